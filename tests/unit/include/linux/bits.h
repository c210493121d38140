/* SPDX-License-Identifier: GPL-2.0-only */
/* Test stand-in for <linux/bits.h>. */
#ifndef _WEAVE_TEST_LINUX_BITS_H
#define _WEAVE_TEST_LINUX_BITS_H

#define BIT(nr)		(1UL << (nr))

#endif
