/* SPDX-License-Identifier: GPL-2.0-only */
/* Test stand-in for <linux/limits.h>. */
#ifndef _WEAVE_TEST_LINUX_LIMITS_H
#define _WEAVE_TEST_LINUX_LIMITS_H

#include <stdint.h>

#define U8_MAX		UINT8_MAX
#define U32_MAX		UINT32_MAX
#define U64_MAX		UINT64_MAX

#endif
