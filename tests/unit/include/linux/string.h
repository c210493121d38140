/* SPDX-License-Identifier: GPL-2.0-only */
/* Test stand-in for <linux/string.h>: the C library's. */
#ifndef _WEAVE_TEST_LINUX_STRING_H
#define _WEAVE_TEST_LINUX_STRING_H

#include <string.h>

#endif
