/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the weave tests: SPIR-V modules built word by word, with the
 * instructions the kernel's check of a module looks at.
 *
 * Plain C on <stdint.h>: the kselftest suites and the unit tests of
 * kmod/weave_spirv.c both use it.
 */
#ifndef _WEAVE_TEST_SPIRV_H_
#define _WEAVE_TEST_SPIRV_H_

#include <stdint.h>
#include <string.h>

#define WEAVE_TEST_SPIRV_MAX_WORDS	64

/* Opcodes and the GLCompute model, from the SPIR-V specification. */
#define WEAVE_TEST_SPIRV_OP_NOP			0u
#define WEAVE_TEST_SPIRV_OP_ENTRY_POINT		15u
#define WEAVE_TEST_SPIRV_GLCOMPUTE		5u

/* A module being built: its words, @n of them. */
struct weave_test_spirv {
	uint32_t w[WEAVE_TEST_SPIRV_MAX_WORDS];
	uint32_t n;
};

static inline void weave_test_spirv_emit(struct weave_test_spirv *m,
					 uint32_t word)
{
	if (m->n < WEAVE_TEST_SPIRV_MAX_WORDS)
		m->w[m->n++] = word;
}

/* An instruction: opcode @opc, then @n operand words. */
static inline void weave_test_spirv_op(struct weave_test_spirv *m,
				       uint32_t opc, const uint32_t *operands,
				       uint32_t n)
{
	uint32_t i;

	weave_test_spirv_emit(m, ((n + 1) << 16) | opc);
	for (i = 0; i < n; i++)
		weave_test_spirv_emit(m, operands[i]);
}

/*
 * OpEntryPoint @model %@id "@name" (under 56 bytes): the string packed
 * from each word's low byte up, whatever the host's byte order.
 */
static inline void weave_test_spirv_entry(struct weave_test_spirv *m,
					  uint32_t model, uint32_t id,
					  const char *name)
{
	uint32_t ops[16] = { model, id };
	uint32_t len = strlen(name) + 1, i;

	for (i = 0; i < len && i < 4 * 14; i++)
		ops[2 + i / 4] |= (uint32_t)(uint8_t)name[i] << (8 * (i % 4));
	weave_test_spirv_op(m, WEAVE_TEST_SPIRV_OP_ENTRY_POINT, ops,
			    2 + (len + 3) / 4);
}

/*
 * A module as glslc makes one, cut down to what the kernel reads: the
 * header (SPIR-V 1.3), a capability, the memory model, GLCompute entry
 * points "main" and "scan_pass2", a Vertex one "vert", an execution mode
 * and an empty function.
 */
static inline void weave_test_spirv_module(struct weave_test_spirv *m)
{
	static const uint32_t cap[] = { 1 }, mem[] = { 0, 1 };
	static const uint32_t mode[] = { 4, 17, 64, 1, 1 };
	static const uint32_t fn[] = { 2, 4, 0, 3 };

	memset(m, 0, sizeof(*m));
	weave_test_spirv_emit(m, 0x07230203);	/* magic */
	weave_test_spirv_emit(m, 0x00010300);	/* version 1.3 */
	weave_test_spirv_emit(m, 0x000d000b);	/* generator: glslang */
	weave_test_spirv_emit(m, 20);		/* bound */
	weave_test_spirv_emit(m, 0);		/* schema */
	weave_test_spirv_op(m, 17, cap, 1);
	weave_test_spirv_op(m, 14, mem, 2);
	weave_test_spirv_entry(m, WEAVE_TEST_SPIRV_GLCOMPUTE, 4, "main");
	weave_test_spirv_entry(m, WEAVE_TEST_SPIRV_GLCOMPUTE, 5, "scan_pass2");
	weave_test_spirv_entry(m, 0, 6, "vert");
	weave_test_spirv_op(m, 16, mode, 5);
	weave_test_spirv_op(m, 54, fn, 4);
	weave_test_spirv_op(m, 56, NULL, 0);
}

#endif /* _WEAVE_TEST_SPIRV_H_ */
