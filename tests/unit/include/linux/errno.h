/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test stand-in for <linux/errno.h>.  The C library's <errno.h> includes
 * <linux/errno.h> too, so give it what the uAPI header would: asm/errno.h.
 */
#ifndef _WEAVE_TEST_LINUX_ERRNO_H
#define _WEAVE_TEST_LINUX_ERRNO_H

#include <asm/errno.h>

#endif
