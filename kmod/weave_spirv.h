/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the scheduler core's check of a SPIR-V module's header, its
 * instruction stream and its GLCompute entry points.
 */
#ifndef _WEAVE_SPIRV_H_
#define _WEAVE_SPIRV_H_

#include <linux/types.h>

/** WEAVE_SPIRV_MAGIC - The first word of a module, in its byte order. */
#define WEAVE_SPIRV_MAGIC		0x07230203u
/** WEAVE_SPIRV_HEADER_WORDS - Words of a module's header. */
#define WEAVE_SPIRV_HEADER_WORDS	5u
/** WEAVE_SPIRV_MAX_BOUND - The largest id bound SPIR-V allows. */
#define WEAVE_SPIRV_MAX_BOUND		0x3fffffu

/**
 * struct weave_spirv_name - An entry point's name, NUL-terminated.
 */
struct weave_spirv_name {
	/** @s: The name, then zeroes. */
	char s[64];
};

int weave_core_spirv_check(const u32 *code, u32 words,
			   const struct weave_spirv_name *names, u32 nnames);

#endif /* _WEAVE_SPIRV_H_ */
