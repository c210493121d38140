/* SPDX-License-Identifier: GPL-2.0-only */
/* Test stand-in for <linux/sort.h>: the C library's qsort(). */
#ifndef _WEAVE_TEST_LINUX_SORT_H
#define _WEAVE_TEST_LINUX_SORT_H

#include <stdlib.h>
#include <linux/bug.h>

typedef int (*cmp_func_t)(const void *a, const void *b);

static inline void sort(void *base, size_t num, size_t size, cmp_func_t cmp,
			const void *swap_fn)
{
	/* Only the default swap is stood in for. */
	WARN_ON(swap_fn);
	qsort(base, num, size, cmp);
}

#endif
