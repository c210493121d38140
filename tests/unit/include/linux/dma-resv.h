/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test stand-in for <linux/dma-resv.h>: reservation locks that obey the
 * wound/wait rules and a hook, set by the test, that makes a lock attempt
 * fail.  -EDEADLK is only returned to a context that holds a lock, and
 * dma_resv_lock_slow() checks that the context dropped every lock and
 * sleeps on the one that was contended, as the kernel's debug checks do.
 */
#ifndef _WEAVE_TEST_LINUX_DMA_RESV_H
#define _WEAVE_TEST_LINUX_DMA_RESV_H

#include <errno.h>
#include <linux/bug.h>
#include <linux/types.h>
#include <linux/ww_mutex.h>

struct dma_resv {
	struct ww_acquire_ctx *owner;
	int locks;		/* times it was locked */
};

static struct ww_class reservation_ww_class __attribute__((unused));

/* Zero, or the errno the attempt on @obj fails with; set by the test. */
extern int (*dma_resv_lock_hook)(struct dma_resv *obj);

static inline void dma_resv_take(struct dma_resv *obj,
				 struct ww_acquire_ctx *ctx)
{
	obj->owner = ctx;
	obj->locks++;
	ctx->held++;
}

static inline int dma_resv_lock(struct dma_resv *obj,
				struct ww_acquire_ctx *ctx)
{
	int ret;

	WARN_ON(!ctx->live || ctx->done);
	if (obj->owner == ctx)
		return -EALREADY;
	ret = dma_resv_lock_hook ? dma_resv_lock_hook(obj) : 0;
	/* A context holding nothing is never wounded: it just waits. */
	if (ret == -EDEADLK && !ctx->held)
		ret = 0;
	if (ret == -EDEADLK)
		ctx->contending = obj;
	if (!ret)
		dma_resv_take(obj, ctx);
	return ret;
}

static inline void dma_resv_lock_slow(struct dma_resv *obj,
				      struct ww_acquire_ctx *ctx)
{
	WARN_ON(!ctx->live || ctx->done || ctx->held);
	WARN_ON(ctx->contending != obj);
	ctx->contending = NULL;
	dma_resv_take(obj, ctx);
}

static inline int dma_resv_lock_interruptible(struct dma_resv *obj,
					      struct ww_acquire_ctx *ctx)
{
	return dma_resv_lock(obj, ctx);
}

/* As dma_resv_lock_slow(), but the hook may make it fail with -EINTR. */
static inline int dma_resv_lock_slow_interruptible(struct dma_resv *obj,
						   struct ww_acquire_ctx *ctx)
{
	int ret = dma_resv_lock_hook ? dma_resv_lock_hook(obj) : 0;

	if (ret == -EINTR) {
		WARN_ON(!ctx->live || ctx->done || ctx->held);
		ctx->contending = NULL;
		return ret;
	}
	dma_resv_lock_slow(obj, ctx);
	return 0;
}

static inline void dma_resv_unlock(struct dma_resv *obj)
{
	if (WARN_ON(!obj->owner))
		return;
	obj->owner->held--;
	obj->owner = NULL;
}

#endif
