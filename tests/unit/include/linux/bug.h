/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test stand-in for <linux/bug.h>.  A warning is a broken invariant of the
 * code under test, so it traps (SIGILL, like the kernel's ud2): the harness
 * fails the test, unless the test expects the signal.
 */
#ifndef _WEAVE_TEST_LINUX_BUG_H
#define _WEAVE_TEST_LINUX_BUG_H

#include <stdio.h>

#define WARN_ON(cond) ({						\
	int __c = !!(cond);						\
	if (__c) {							\
		fprintf(stderr, "WARNING: %s:%d: %s\n",		\
			__FILE__, __LINE__, #cond);			\
		__builtin_trap();					\
	}								\
	__c;								\
})
#define WARN_ON_ONCE(cond)	WARN_ON(cond)
#define BUG_ON(cond)		((void)WARN_ON(cond))

#endif
