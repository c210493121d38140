// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the scheduler core's check of a SPIR-V module: its header, that
 * its instructions tile it, and that the entry points a client names are
 * GLCompute entry points of it.  See "DOC: shaders" in the uAPI.
 */

#include <linux/errno.h>
#include <linux/string.h>

#include "weave_spirv.h"

/* Opcodes and operands of the SPIR-V specification, section 3. */
#define SPIRV_OP_ENTRY_POINT		15u
#define SPIRV_MODEL_GLCOMPUTE		5u

/* Whether @v is version 1.0 to 1.6: 0 | major | minor | 0, a byte each. */
static bool weave_spirv_version_ok(u32 v)
{
	return (v & 0xff0000ffu) == 0 && (v >> 16) == 1 &&
	       ((v >> 8) & 0xff) <= 6;
}

/*
 * The length of the literal string that starts at @w, of @n words, with
 * its NUL; 0 if no NUL ends it within them.  SPIR-V packs a string's
 * bytes into words from the lowest byte up, whatever the host's order.
 */
static u32 weave_spirv_string_len(const u32 *w, u32 n)
{
	u32 i, b;

	for (i = 0; i < n; i++)
		for (b = 0; b < 4; b++)
			if (!((w[i] >> (8 * b)) & 0xff))
				return 4 * i + b + 1;
	return 0;
}

/* Whether the literal string at @w, of up to @n words, is @name. */
static bool weave_spirv_string_is(const u32 *w, u32 n, const char *name)
{
	u32 len = weave_spirv_string_len(w, n), i;

	if (!len || len != strlen(name) + 1)
		return false;
	for (i = 0; i < len; i++)
		if (((w[i / 4] >> (8 * (i % 4))) & 0xff) != (u8)name[i])
			return false;
	return true;
}

/*
 * Marks in @found the names of @names that the OpEntryPoint at @w, of
 * @n words, declares for GLCompute; -EINVAL if it is malformed.
 */
static int weave_spirv_entry(const u32 *w, u32 n,
			     const struct weave_spirv_name *names, u32 nnames,
			     u64 *found)
{
	u32 i;

	/* Opcode word, model, function id, then the name's words. */
	if (n < 4 || !weave_spirv_string_len(w + 3, n - 3))
		return -EINVAL;
	if (w[1] != SPIRV_MODEL_GLCOMPUTE)
		return 0;
	for (i = 0; i < nnames; i++)
		if (weave_spirv_string_is(w + 3, n - 3, names[i].s))
			*found |= 1ull << i;
	return 0;
}

/**
 * weave_core_spirv_check() - Check a module as "DOC: shaders" says.
 * @code: The module, @words 32-bit words in the host's byte order.
 * @words: Its size in words.
 * @names: The entry points to find, at most 64, each NUL-terminated.
 * @nnames: How many.
 *
 * Walks the module once: its cost is linear in @words, and it reads no
 * word past @code + @words.  Entry points come before the first function
 * in a valid module, but the walk goes on to the end, so that every
 * instruction's word count is checked.
 *
 * Return: 0; -EINVAL for a bad header or an instruction that does not fit;
 * -ENOENT if a name of @names is not that of a GLCompute OpEntryPoint.
 */
int weave_core_spirv_check(const u32 *code, u32 words,
			   const struct weave_spirv_name *names, u32 nnames)
{
	u64 found = 0, all;
	u32 at, n;
	int ret;

	if (words < WEAVE_SPIRV_HEADER_WORDS || nnames > 64 ||
	    code[0] != WEAVE_SPIRV_MAGIC || !weave_spirv_version_ok(code[1]) ||
	    !code[3] || code[3] > WEAVE_SPIRV_MAX_BOUND || code[4])
		return -EINVAL;
	for (at = WEAVE_SPIRV_HEADER_WORDS; at < words; at += n) {
		n = code[at] >> 16;
		if (!n || n > words - at)
			return -EINVAL;
		if ((code[at] & 0xffff) != SPIRV_OP_ENTRY_POINT)
			continue;
		ret = weave_spirv_entry(code + at, n, names, nnames, &found);
		if (ret)
			return ret;
	}
	all = nnames == 64 ? ~0ull : (1ull << nnames) - 1;
	return found == all ? 0 : -ENOENT;
}
