/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test stand-in for <linux/dma-fence.h>: a fence is its context, its seqno
 * and a reference count the test reads; ordering follows the kernel's rule,
 * 32-bit wrapping unless the ops say the seqnos are 64-bit.
 */
#ifndef _WEAVE_TEST_LINUX_DMA_FENCE_H
#define _WEAVE_TEST_LINUX_DMA_FENCE_H

#include <linux/bug.h>
#include <linux/types.h>

struct dma_fence_ops {
	bool use_64bit_seqno;
};

struct dma_fence {
	const struct dma_fence_ops *ops;
	u64 context;
	u64 seqno;
	int refcount;
};

static inline void dma_fence_put(struct dma_fence *f)
{
	if (f && !WARN_ON(f->refcount <= 0))
		f->refcount--;
}

static inline bool dma_fence_is_later(struct dma_fence *f1,
				      struct dma_fence *f2)
{
	/* Comparing across contexts is a bug of the caller. */
	if (WARN_ON(f1->context != f2->context))
		return false;
	if (f1->ops->use_64bit_seqno)
		return f1->seqno > f2->seqno;
	return (int32_t)((u32)f1->seqno - (u32)f2->seqno) > 0;
}


#endif
