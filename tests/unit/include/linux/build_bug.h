/* SPDX-License-Identifier: GPL-2.0-only */
/* Test stand-in for <linux/build_bug.h>. */
#ifndef _WEAVE_TEST_LINUX_BUILD_BUG_H
#define _WEAVE_TEST_LINUX_BUILD_BUG_H

#define static_assert(expr, ...)	_Static_assert(expr, #expr)

#endif
