// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the check of a SPIR-V module, kmod/weave_spirv.c, compiled
 * in user space: the header, the instruction stream, the entry points,
 * and random corruptions of a good module, which must be refused or
 * accepted without reading past it (ASan watches).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

/* The harness's TEST() has an unused parameter; -Wextra is otherwise kept. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "weave_spirv.h"
#include "weave_test_spirv.h"

#define SEEDS		2000

/* The unit tests' view of the suites' builder. */
#define mod		weave_test_spirv
#define module		weave_test_spirv_module
#define op		weave_test_spirv_op

static struct weave_spirv_name names[4];

static u32 set_names(const char *a, const char *b)
{
	memset(names, 0, sizeof(names));
	strcpy(names[0].s, a);
	if (!b)
		return 1;
	strcpy(names[1].s, b);
	return 2;
}

static int check(const struct mod *m, const char *a, const char *b)
{
	u32 n = a ? set_names(a, b) : 0;
	u32 *copy = malloc(m->n * sizeof(u32));
	int ret;

	/* An exact-size copy, so that ASan sees a read past the end. */
	memcpy(copy, m->w, m->n * sizeof(u32));
	ret = weave_core_spirv_check(copy, m->n, names, n);
	free(copy);
	return ret;
}

TEST(good_module_and_its_compute_entry_points)
{
	struct mod m;

	module(&m);
	EXPECT_EQ(0, check(&m, "main", NULL));
	EXPECT_EQ(0, check(&m, "scan_pass2", "main"));
	EXPECT_EQ(0, check(&m, NULL, NULL));
}

TEST(entry_points_that_are_not_compute_or_absent)
{
	struct mod m;

	module(&m);
	EXPECT_EQ(-ENOENT, check(&m, "vert", NULL));
	EXPECT_EQ(-ENOENT, check(&m, "main", "nope"));
	EXPECT_EQ(-ENOENT, check(&m, "mai", NULL));
	EXPECT_EQ(-ENOENT, check(&m, "mainx", NULL));
	EXPECT_EQ(-ENOENT, check(&m, "scan_pass", NULL));
}

TEST(header_fields)
{
	static const struct {
		u32 word, value;
		int ret;
	} cases[] = {
		{ 0, 0x03022307, -EINVAL },	/* the other byte order */
		{ 0, 0, -EINVAL },
		{ 1, 0x00010000, 0 },
		{ 1, 0x00010600, 0 },
		{ 1, 0x00010700, -EINVAL },
		{ 1, 0x00020000, -EINVAL },
		{ 1, 0x00000600, -EINVAL },
		{ 1, 0x00010001, -EINVAL },
		{ 1, 0x01010000, -EINVAL },
		{ 2, 0xffffffff, 0 },		/* any generator */
		{ 3, 0, -EINVAL },
		{ 3, WEAVE_SPIRV_MAX_BOUND, 0 },
		{ 3, WEAVE_SPIRV_MAX_BOUND + 1, -EINVAL },
		{ 4, 1, -EINVAL },
	};
	struct mod m;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		module(&m);
		m.w[cases[i].word] = cases[i].value;
		EXPECT_EQ(cases[i].ret, check(&m, "main", NULL))
			TH_LOG("word %u = %#x", cases[i].word, cases[i].value);
	}
}

TEST(too_short_for_a_header)
{
	struct mod m;

	module(&m);
	for (m.n = 0; m.n < WEAVE_SPIRV_HEADER_WORDS; m.n++)
		EXPECT_EQ(-EINVAL, check(&m, NULL, NULL));
	EXPECT_EQ(0, check(&m, NULL, NULL));
}

TEST(instruction_word_counts_must_tile_the_module)
{
	struct mod m;
	u32 cut;

	/* A zero word count would never move on. */
	module(&m);
	m.w[WEAVE_SPIRV_HEADER_WORDS] &= 0xffff;
	EXPECT_EQ(-EINVAL, check(&m, NULL, NULL));
	/* One past the end. */
	module(&m);
	m.w[m.n - 1] = (2u << 16) | 56;
	EXPECT_EQ(-EINVAL, check(&m, NULL, NULL));
	/* Cut anywhere but between instructions. */
	module(&m);
	for (cut = WEAVE_SPIRV_HEADER_WORDS + 1; cut < m.n; cut++) {
		struct mod t = m;
		u32 at = WEAVE_SPIRV_HEADER_WORDS;
		bool boundary = false;

		while (at <= cut) {
			if (at == cut)
				boundary = true;
			at += m.w[at] >> 16;
		}
		t.n = cut;
		EXPECT_EQ(boundary ? 0 : -EINVAL, check(&t, NULL, NULL))
			TH_LOG("cut at word %u", cut);
	}
}

TEST(malformed_entry_point)
{
	struct mod m;
	u32 at = WEAVE_SPIRV_HEADER_WORDS + 2 + 3;	/* after cap, memmodel */

	/* Its name's NUL cut off: the string runs to the instruction's end. */
	module(&m);
	ASSERT_EQ(15u, m.w[at] & 0xffff);
	m.w[at + 4] = 0x41414141;
	EXPECT_EQ(-EINVAL, check(&m, "scan_pass2", NULL));
	/* Too short to hold a name at all. */
	module(&m);
	m.n = at;
	{
		static const u32 ops[] = { 5, 4 };

		op(&m, 15, ops, 2);
	}
	EXPECT_EQ(-EINVAL, check(&m, NULL, NULL));
}

TEST(random_corruptions_never_read_past_the_module)
{
	struct mod good, m;
	u32 seed, k, flips;
	int ret;

	module(&good);
	for (seed = 1; seed <= SEEDS; seed++) {
		srand(seed);
		m = good;
		flips = 1 + rand() % 4;
		for (k = 0; k < flips; k++) {
			u32 at = rand() % m.n;

			if (rand() % 2)
				m.w[at] ^= 1u << (rand() % 32);
			else
				m.w[at] = (u32)rand() << 1 ^ (u32)rand();
		}
		if (rand() % 4 == 0)
			m.n = 1 + rand() % m.n;
		ret = check(&m, "main", rand() % 2 ? "scan_pass2" : NULL);
		ASSERT_TRUE(ret == 0 || ret == -EINVAL || ret == -ENOENT)
			TH_LOG("seed %u: %d", seed, ret);
	}
}

TEST_HARNESS_MAIN
