/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test stand-in for <linux/ww_mutex.h>: an acquire context counts the locks
 * it holds and checks the protocol's rules (see <linux/dma-resv.h>).
 */
#ifndef _WEAVE_TEST_LINUX_WW_MUTEX_H
#define _WEAVE_TEST_LINUX_WW_MUTEX_H

#include <linux/bug.h>
#include <linux/types.h>

struct ww_class {
	int unused;
};

struct ww_acquire_ctx {
	bool live;		/* between init and fini */
	bool done;		/* no more locks may be taken */
	int held;		/* locks held */
	const void *contending;	/* the lock that returned -EDEADLK */
};

static inline void ww_acquire_init(struct ww_acquire_ctx *ctx,
				   struct ww_class *class)
{
	(void)class;
	ctx->live = true;
	ctx->done = false;
	ctx->held = 0;
	ctx->contending = NULL;
}

static inline void ww_acquire_done(struct ww_acquire_ctx *ctx)
{
	WARN_ON(!ctx->live || ctx->done);
	ctx->done = true;
}

static inline void ww_acquire_fini(struct ww_acquire_ctx *ctx)
{
	/* Every lock is dropped before the context ends. */
	WARN_ON(!ctx->live || ctx->held);
	ctx->live = false;
}

#endif
