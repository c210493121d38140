/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test stand-in for <linux/lockdep.h>: the assertion really checks, for a
 * mutex or a spinlock (both stand-ins track whether they are held).
 */
#ifndef _WEAVE_TEST_LINUX_LOCKDEP_H
#define _WEAVE_TEST_LINUX_LOCKDEP_H

#include <linux/bug.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>

#define lockdep_assert_held(l)	((void)WARN_ON(!(l)->locked))

#endif
