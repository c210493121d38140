// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the flush and wait ioctls.
 *
 * Submitting a client's queued work to the hardware queues, the out-sync
 * that a flush sets, and waiting for a stream's work, all of it so far or
 * up to a sequence number.
 */

#include <linux/dma-fence.h>
#include <linux/dma-fence-chain.h>
#include <linux/dma-resv.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/wait.h>
#include <linux/slab.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_syncobj.h>
#include <drm/drm_utils.h>

#include "weave_backend.h"
#include "weave_capture.h"
#include "weave_client.h"
#include "weave_core.h"
#include "weave_drm.h"
#include "weave_engine.h"
#include "weave_fence.h"
#include "weave_flush.h"
#include "weave_job.h"

/*
 * The fence of everything flushed on any slot of the client, made from
 * @join, which has room for every slot.  Cannot fail.
 */
static struct dma_fence *weave_client_all_fence(struct weave_client *c,
						struct weave_join *join)
{
	struct dma_fence *f;
	u32 i;

	for (i = 0; i < c->core.max_streams; i++) {
		f = weave_eng_ctx_slot_fence(c->ectx, i);
		if (f)
			weave_eng_join_add(join, f);
	}
	return weave_eng_join_arm(join);
}

/**
 * weave_flush_out_get() - Resolve step of a FLUSH: its out-sync and what
 * setting it takes, allocated before anything is submitted.
 * @c: The client.
 * @file: Its file.
 * @args: The checked FLUSH arguments.
 * @out: Zeroed; filled in, for weave_flush_out_put() in any case.
 *
 * Return: 0, -ENOENT for an unknown syncobj, or -ENOMEM.
 */
int weave_flush_out_get(struct weave_client *c, struct drm_file *file,
			const struct drm_weave_flush *args,
			struct weave_flush_out *out)
{
	if (!args->out_sync.handle)
		return 0;
	out->syncobj = drm_syncobj_find(file, args->out_sync.handle);
	if (!out->syncobj)
		return -ENOENT;
	if (args->out_sync.timeline_value) {
		out->chain = dma_fence_chain_alloc();
		if (!out->chain)
			return -ENOMEM;
	}
	if (args->flags & DRM_WEAVE_FLUSH_ALL)
		out->join = weave_eng_join_create(c->wdev->limits.max_streams);
	else
		out->proxy = weave_eng_proxy_create();
	if (!out->join && !out->proxy)
		return -ENOMEM;
	return 0;
}

/**
 * weave_flush_out_put() - Drop what weave_flush_out_get() took and
 * weave_flush_out_set() did not use.
 * @out: What it took.
 */
void weave_flush_out_put(struct weave_flush_out *out)
{
	weave_eng_join_put(out->join);
	weave_eng_proxy_put(out->proxy);
	dma_fence_chain_free(out->chain);
	if (out->syncobj)
		drm_syncobj_put(out->syncobj);
}

/**
 * weave_flush_refused() - The errno of a flush that left work unsubmitted.
 *
 * Return: -ERESTARTSYS if a signal is pending: a wait for a buffer's
 * reservation lock may have ended with it, and the restarted call, or the
 * next flush, pushes the job held; else -ENOMEM.
 */
int weave_flush_refused(void)
{
	return signal_pending(current) ? -ERESTARTSYS : -ENOMEM;
}

/*
 * Submit step, under the client's lock.  The state after the executions
 * says whether this call's work was all submitted: a task refused for lack
 * of memory stays queued, a task that an ENQUEUE's execution could not
 * pack even into the reserve marked its stream failed (-ECANCELED here),
 * and a job whose push failed is pushed now or still held.
 */
static int weave_flush_submit(struct weave_client *c,
			      const struct drm_weave_flush *args)
{
	struct weave_lstream *ls;
	u64 left;

	if (args->flags & DRM_WEAVE_FLUSH_ALL)
		return weave_client_flush_all(c);
	ls = weave_client_stream(c, args->stream);
	if (IS_ERR(ls))
		return PTR_ERR(ls);
	if (atomic_read(&ls->error))
		return -ECANCELED;
	if (weave_core_capture_recording(&c->capture, args->stream))
		return -EBUSY;
	weave_core_flush(&c->core, args->stream);
	left = weave_core_slot_queued(&c->core, args->stream);
	/* A closed window's pending hold goes once the slot is handed over. */
	if (!left)
		weave_core_capture_settle(&c->capture, args->stream);
	/* Tasks refused for lack of memory stay queued, a job unpushed held. */
	if (left || weave_eng_ctx_held(c->ectx))
		return weave_flush_refused();
	return 0;
}

/**
 * weave_client_flush_all() - Submit all of a client's queued work.
 * @c: The client.
 *
 * Context: The client's mutex held.
 * Return: 0 if all of it was submitted; -ENOMEM if tasks the kernel had no
 * memory to pack stay queued, or a job it could not push is held;
 * -ERESTARTSYS if a signal may have cut a push short.
 */
int weave_client_flush_all(struct weave_client *c)
{
	u32 i;

	weave_core_flush_all(&c->core);
	for (i = 0; i < c->core.max_streams; i++)
		if (!weave_core_slot_queued(&c->core, i))
			weave_core_capture_settle(&c->capture, i);
	if (weave_core_queued(&c->core) || weave_eng_ctx_held(c->ectx))
		return weave_flush_refused();
	return 0;
}

/*
 * The fence of what was flushed, for the out-sync, under the client's lock,
 * made from @out's join or proxy (which it takes).  NULL if none is needed.
 */
static struct dma_fence *weave_flush_fence(struct weave_client *c,
					   const struct drm_weave_flush *args,
					   struct weave_flush_out *out)
{
	struct dma_fence *fence;
	u32 slot;

	if (out->join) {
		fence = weave_client_all_fence(c, out->join);
		out->join = NULL;
		return fence;
	}
	if (!out->proxy)
		return NULL;
	slot = weave_core_slot(&c->core, args->stream);
	fence = weave_eng_ctx_slot_fence(c->ectx, slot);
	if (fence) {
		fence = weave_eng_proxy_attach(out->proxy, fence);
		out->proxy = NULL;
	}
	return fence;
}

/**
 * weave_flush_out_set() - Commit step of a FLUSH: set the out-sync.
 * @out: From weave_flush_out_get(), with a syncobj.
 * @fence: The fence, which it puts; NULL for a signalled one.
 * @point: The timeline point, or zero.
 */
void weave_flush_out_set(struct weave_flush_out *out, struct dma_fence *fence,
			 u64 point)
{
	if (!fence)
		fence = dma_fence_get_stub();
	if (out->chain) {
		drm_syncobj_add_point(out->syncobj, out->chain, fence, point);
		out->chain = NULL;
	} else {
		drm_syncobj_replace_fence(out->syncobj, fence);
	}
	dma_fence_put(fence);
}

/**
 * weave_flush_locked() - Submit step of a FLUSH, and its fence.
 * @c: The client.
 * @args: The checked FLUSH arguments.
 * @out: From weave_flush_out_get().
 * @fence: Set to the fence for the out-sync (a reference), or NULL.
 *
 * Context: The client's mutex held.
 * Return: 0 if all of the work was submitted, or a negative errno as
 * documented on &struct drm_weave_flush.
 */
int weave_flush_locked(struct weave_client *c,
		       const struct drm_weave_flush *args,
		       struct weave_flush_out *out, struct dma_fence **fence)
{
	int ret = weave_flush_submit(c, args);

	*fence = ret ? NULL : weave_flush_fence(c, args, out);
	return ret;
}

/**
 * weave_flush_ioctl() - Handle %DRM_IOCTL_WEAVE_FLUSH.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_flush.
 * @file: The client's file.
 *
 * What the out-sync needs is allocated first, so that nothing fails once
 * the work is submitted: a 0 means all of it was.
 *
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_flush_ioctl(struct drm_device *drm, void *data,
		      struct drm_file *file)
{
	struct drm_weave_flush *args = data;
	struct weave_client *c = file->driver_priv;
	struct weave_flush_out out = {};
	struct dma_fence *fence = NULL;
	int ret;

	if (args->flags & ~DRM_WEAVE_FLUSH_ALL ||
	    (args->flags & DRM_WEAVE_FLUSH_ALL && args->stream) ||
	    args->out_sync.flags)
		return -EINVAL;

	ret = weave_flush_out_get(c, file, args, &out);
	if (!ret)
		ret = weave_client_lock(c);
	if (!ret) {
		ret = weave_flush_locked(c, args, &out, &fence);
		mutex_unlock(&c->lock);
	}
	if (!ret && out.syncobj)
		weave_flush_out_set(&out, fence, args->out_sync.timeline_value);
	weave_flush_out_put(&out);
	return ret;
}

/*
 * Wait for @fence until the absolute CLOCK_MONOTONIC time @deadline_ns.
 * drm_timeout_abs_to_jiffies() gives the jiffies of a sleep toward it, or
 * 0 once it has passed; a sleep in jiffies can end up to a jiffy early, so
 * the clock is checked again and the wait goes on until it has passed.
 */
static int weave_wait_fence(struct dma_fence *fence, s64 deadline_ns)
{
	long ret, j;

	while (!dma_fence_is_signaled(fence)) {
		j = drm_timeout_abs_to_jiffies(deadline_ns);
		if (!j)
			return -ETIME;
		ret = dma_fence_wait_timeout(fence, true, j);
		if (ret < 0)
			return ret;
		if (ret)
			return 0;
	}
	return 0;
}

/**
 * weave_wait_resv() - Wait for a buffer's writers, with a deadline.
 * @resv: The buffer's reservation object.
 * @deadline_ns: Absolute CLOCK_MONOTONIC time; zero polls.
 *
 * Return: 0 once every write fence of @resv has signalled; -ETIME at the
 * deadline; -ERESTARTSYS on a signal.
 */
int weave_wait_resv(struct dma_resv *resv, s64 deadline_ns)
{
	long ret, j;

	while (!dma_resv_test_signaled(resv, DMA_RESV_USAGE_WRITE)) {
		j = drm_timeout_abs_to_jiffies(deadline_ns);
		if (!j)
			return -ETIME;
		ret = dma_resv_wait_timeout(resv, DMA_RESV_USAGE_WRITE, true,
					    j);
		if (ret < 0)
			return ret;
		if (ret)
			return 0;
	}
	return 0;
}

/*
 * Wait until @ls's completed count reaches @seqno, or its client's work is
 * aborted (an unplug; the caller tells), until the absolute
 * CLOCK_MONOTONIC time @deadline_ns.  An hrtimer, not jiffies, so that
 * -ETIME means the deadline passed.
 */
static int weave_wait_seqno(struct weave_ectx *ctx, struct weave_lstream *ls,
			    u64 seqno, s64 deadline_ns)
{
	s64 now = ktime_get_ns();
	ktime_t left = ns_to_ktime(deadline_ns > now ? deadline_ns - now : 0);

	return wait_event_interruptible_hrtimeout(ctx->done_wq,
		atomic64_read(&ls->completed) >= seqno ||
		atomic_read(&ctx->aborted), left);
}

/*
 * The stream of a WAIT, a reference, under the client's lock, and for a
 * wait of everything so far the fence of its slot.
 */
static struct weave_lstream *weave_wait_stream(struct weave_client *c,
					       const struct drm_weave_wait *args,
					       struct dma_fence **fence)
{
	bool seqno = args->flags & DRM_WEAVE_WAIT_SEQNO;
	struct weave_lstream *ls = weave_client_stream(c, args->stream);

	if (IS_ERR(ls))
		return ls;
	if (seqno && args->seqno > ls->enqueued)
		return ERR_PTR(-EINVAL);
	if (!seqno && weave_core_capture_recording(&c->capture, args->stream))
		return ERR_PTR(-EBUSY);
	kref_get(&ls->ref);
	if (!seqno)
		*fence = weave_eng_ctx_slot_fence(c->ectx,
						  weave_core_slot(&c->core,
								  args->stream));
	return ls;
}

/**
 * weave_wait_ioctl() - Handle %DRM_IOCTL_WEAVE_WAIT.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_wait.
 * @file: The client's file.
 *
 * Without %DRM_WEAVE_WAIT_SEQNO, waits for the fence of the stream's slot;
 * with it, for the stream's completed count, which the worker raises
 * before it signals the job's fence.
 *
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_wait_ioctl(struct drm_device *drm, void *data,
		     struct drm_file *file)
{
	struct drm_weave_wait *args = data;
	struct weave_client *c = file->driver_priv;
	struct dma_fence *fence = NULL;
	struct weave_lstream *ls;
	int ret = 0;

	if (args->flags & ~DRM_WEAVE_WAIT_SEQNO ||
	    (!(args->flags & DRM_WEAVE_WAIT_SEQNO) && args->seqno))
		return -EINVAL;

	ret = weave_client_lock(c);
	if (ret)
		return ret;
	ls = weave_wait_stream(c, args, &fence);
	mutex_unlock(&c->lock);
	if (IS_ERR(ls))
		return PTR_ERR(ls);

	if (args->flags & DRM_WEAVE_WAIT_SEQNO)
		ret = weave_wait_seqno(c->ectx, ls, args->seqno,
				       args->timeout_ns);
	else if (fence)
		ret = weave_wait_fence(fence, args->timeout_ns);
	dma_fence_put(fence);
	/* Not in drm_dev_enter(): an unplug may have cancelled the work. */
	if (!ret && drm_dev_is_unplugged(drm))
		ret = -ENODEV;
	else if (!ret && atomic_read(&ls->error))
		ret = -ECANCELED;
	weave_eng_lstream_put(ls);
	return ret;
}
