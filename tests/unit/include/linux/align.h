/* SPDX-License-Identifier: GPL-2.0-only */
/* Test stand-in for <linux/align.h>. */
#ifndef _WEAVE_TEST_LINUX_ALIGN_H
#define _WEAVE_TEST_LINUX_ALIGN_H

#define ALIGN(x, a)	(((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))

#endif
