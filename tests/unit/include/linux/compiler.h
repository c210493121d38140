/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test stand-in for <linux/compiler.h>: READ_ONCE() and WRITE_ONCE() as
 * volatile accesses, which is what they are for a naturally aligned scalar.
 */
#ifndef _WEAVE_TEST_LINUX_COMPILER_H
#define _WEAVE_TEST_LINUX_COMPILER_H

#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val)	do {					\
	*(volatile __typeof__(x) *)&(x) = (val);			\
} while (0)

#endif
