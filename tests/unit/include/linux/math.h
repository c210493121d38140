/* SPDX-License-Identifier: GPL-2.0-only */
/* Test stand-in for <linux/math.h>. */
#ifndef _WEAVE_TEST_LINUX_MATH_H
#define _WEAVE_TEST_LINUX_MATH_H

/* @y is a power of two, as in the kernel. */
#define round_up(x, y)	((((x) - 1) | ((__typeof__(x))(y) - 1)) + 1)

#endif
