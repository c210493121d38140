/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test stand-in for <linux/slab.h>: the C library's heap, seen by ASan.
 * Every GFP here may sleep, so allocating under a spinlock traps.
 */
#ifndef _WEAVE_TEST_LINUX_SLAB_H
#define _WEAVE_TEST_LINUX_SLAB_H

#include <stdlib.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#define GFP_KERNEL	0u
#define GFP_KERNEL_ACCOUNT	0u

/*
 * kmalloc() counts its calls in weave_test_kmallocs and fails while
 * weave_test_kmalloc_fail is set, for tests that check allocations.
 */
__attribute__((weak)) unsigned long weave_test_kmallocs;
__attribute__((weak)) bool weave_test_kmalloc_fail;

static inline void *kmalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	WARN_ON(weave_test_spins_held);
	weave_test_kmallocs++;
	if (weave_test_kmalloc_fail)
		return NULL;
	return malloc(size);
}

static inline void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	(void)gfp;
	WARN_ON(weave_test_spins_held);
	return calloc(n, size);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

static inline void *kmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	if (size && n > (size_t)-1 / size)
		return NULL;
	return kmalloc(n * size, gfp);
}

#define kvmalloc(size, gfp)		kmalloc(size, gfp)
#define kvmalloc_array(n, size, gfp)	kmalloc_array(n, size, gfp)
#define kvcalloc(n, size, gfp)		kcalloc(n, size, gfp)
#define kvfree(p)			kfree(p)

#endif
