/* SPDX-License-Identifier: GPL-2.0-only */
/* Test stand-in for <linux/minmax.h>. */
#ifndef _WEAVE_TEST_LINUX_MINMAX_H
#define _WEAVE_TEST_LINUX_MINMAX_H

#define min(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b); \
		     (void)(&__a == &__b); __a < __b ? __a : __b; })
#define max(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b); \
		     (void)(&__a == &__b); __a > __b ? __a : __b; })
#define min_t(type, a, b)	min((type)(a), (type)(b))

#define max3(a, b, c)	max(max(a, b), c)
#define swap(a, b) do { __typeof__(a) __t = (a); (a) = (b); (b) = __t; } while (0)

#endif
