// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the ENQUEUE ioctl: its tries, the waits between them, the
 * choice to record the launches of a stream that records its capture
 * window instead of queueing them, and the flush and out-syncs that
 * %DRM_WEAVE_ENQUEUE_FLUSH adds.
 */

#include <linux/dma-fence.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "weave_capture.h"
#include "weave_client.h"
#include "weave_device.h"
#include "weave_drm.h"
#include "weave_enqueue.h"
#include "weave_fault_in.h"
#include "weave_fence.h"
#include "weave_flush.h"
#include "weave_graph.h"
#include "weave_job_release.h"
#include "weave_staging.h"
#include "weave_submit.h"
#include "weave_trace.h"
#include "weave_uarray.h"

/*
 * An ENQUEUE of a stream that records its window, or a ring's task: see
 * "DOC: graphs".
 */
const struct weave_recorder weave_graph_recorder = {
	.record = weave_graph_record,
	.doom = weave_graph_doom,
};

/*
 * Queue step of a try, its user memory read with page faults disabled:
 * the tasks, or for a stream that records its window, its launches
 * recorded.
 */
static int weave_enqueue_queue(struct weave_client *c, struct drm_file *file,
			       struct drm_weave_enqueue *args, bool record,
			       struct weave_room *room)
{
	int ret;

	pagefault_disable();
	ret = weave_submit(c, file, args, NULL, 0, 0,
			   record ? &weave_graph_recorder : NULL, room);
	pagefault_enable();
	if (!ret)
		trace_weave_enqueue(c->ectx->id, args->stream,
				    weave_core_slot(&c->core, args->stream),
				    args->tasks.count, record);
	if (ret == -EAGAIN && room->full)
		room->seen = weave_eng_staging_reclaimed(c->ectx, room->slot);
	return ret;
}

/*
 * An out-sync of an ENQUEUE with flush: what setting it takes, resolved
 * before anything is queued, and its point.
 */
struct weave_enqueue_out {
	struct weave_flush_out out;
	u64 point;
};

/* Drop what weave_enqueue_outs_get() took and nothing used. */
static void weave_enqueue_outs_put(struct weave_enqueue_out *outs, u32 n)
{
	while (outs && n--)
		weave_flush_out_put(&outs[n].out);
	kfree(outs);
}

/*
 * Resolve step of an ENQUEUE with flush, before anything is queued: read
 * every out-sync, find its syncobj and allocate what setting it takes.
 * The first keeps the proxy of the slot's fence, which all of them get.
 */
static int weave_enqueue_outs_get(struct weave_client *c,
				  struct drm_file *file,
				  const struct drm_weave_enqueue *args,
				  struct weave_enqueue_out **outs)
{
	struct drm_weave_flush f = { .stream = args->stream };
	u32 i, n = args->out_syncs.count;
	int ret = 0;

	*outs = NULL;
	if (!n)
		return 0;
	*outs = kcalloc(n, sizeof(**outs), GFP_KERNEL_ACCOUNT);
	if (!*outs)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		ret = weave_uarray_elem(&f.out_sync, sizeof(f.out_sync),
					&args->out_syncs, i);
		if (!ret && f.out_sync.flags)
			ret = -EINVAL;
		else if (!ret && !f.out_sync.handle)
			ret = -ENOENT;
		if (!ret)
			ret = weave_flush_out_get(c, file, &f, &(*outs)[i].out);
		(*outs)[i].point = f.out_sync.timeline_value;
		if (i) {
			weave_eng_proxy_put((*outs)[i].out.proxy);
			(*outs)[i].out.proxy = NULL;
		}
	}
	return ret;
}

/* Commit step of an ENQUEUE with flush: every out-sync gets @fence. */
static void weave_enqueue_outs_set(struct weave_enqueue_out *outs, u32 n,
				   struct dma_fence *fence)
{
	u32 i;

	for (i = 0; i < n; i++)
		weave_flush_out_set(&outs[i].out, dma_fence_get(fence),
				    outs[i].point);
}

/*
 * Flush step of an ENQUEUE with flush, under the client's lock: FLUSH of
 * the stream, its fence into *@fence.  Once tasks are queued, its failure
 * is -EINPROGRESS, never one that says nothing was (see "DOC: enqueue
 * with flush").
 */
static int weave_enqueue_flush(struct weave_client *c,
			       struct drm_weave_enqueue *args,
			       struct weave_flush_out *out,
			       struct dma_fence **fence)
{
	struct drm_weave_flush f = { .stream = args->stream };
	struct weave_lstream *ls;
	int ret = weave_flush_locked(c, &f, out, fence);

	if (args->tasks.count)
		return ret ? -EINPROGRESS : 0;
	ls = weave_client_stream(c, args->stream);
	if (!IS_ERR(ls))
		args->seqno = ls->enqueued;
	return ret;
}

/*
 * One try of an ENQUEUE: its device section and the client's mutex, and
 * the user memory it reads with page faults disabled; with flush, the
 * flush and its fence, into *@fence, from @out.
 */
static int weave_enqueue_try(struct drm_device *drm, struct drm_file *file,
			     struct drm_weave_enqueue *args,
			     struct weave_room *room,
			     struct weave_flush_out *out,
			     struct dma_fence **fence)
{
	struct weave_client *c = file->driver_priv;
	bool flush = args->flags & DRM_WEAVE_ENQUEUE_FLUSH;
	int idx, ret;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = weave_client_lock(c);
	if (!ret) {
		bool record = weave_core_capture_recording(&c->capture,
							   args->stream);

		room->full = false;
		/* A recording stream refuses FLUSH: it records nothing. */
		if (flush && record)
			ret = -EBUSY;
		else if (args->tasks.count)
			ret = weave_enqueue_queue(c, file, args, record, room);
		if (!ret && flush)
			ret = weave_enqueue_flush(c, args, out, fence);
		mutex_unlock(&c->lock);
	}
	drm_dev_exit(idx);
	return ret;
}

/*
 * The tries of an ENQUEUE, and the waits between them; with flush, the
 * fence for its out-syncs into *@fence.
 */
static int weave_enqueue_tries(struct drm_device *drm, struct drm_file *file,
			       struct drm_weave_enqueue *args,
			       struct weave_flush_out *out,
			       struct dma_fence **fence)
{
	struct weave_client *c = file->driver_priv;
	struct weave_room room = {};
	bool unservable = false, drained = false;
	u32 tries = 0;
	int ret;

	for (;;) {
		ret = weave_enqueue_try(drm, file, args, &room, out, fence);
		if (room.resident && !drained) {
			/*
			 * Completed jobs may still hold buffers, charged until
			 * freed: let go of them, then one more try.
			 */
			weave_eng_job_release_drain();
			drained = true;
			room.resident = false;
			ret = 0;
		} else if (ret == -EAGAIN && room.full) {
			u32 ms = c->wdev->limits.job_timeout_ms;

			ret = weave_eng_staging_wait(c->ectx, room.slot,
						     room.seen, ms);
			/* One more try, which fails if the arena is full. */
			room.last = ret == -ETIME;
			if (room.last)
				ret = 0;
		} else if (ret == -EFAULT && !unservable) {
			/* Once all it could was faulted in, -EFAULT stands. */
			unservable = weave_enqueue_fault_in(c, args) ||
				     ++tries >= WEAVE_FAULT_IN_TRIES;
			room.last = false;
			ret = 0;
		} else {
			return ret;
		}
		/* A signal also cuts a fault-in short, which then fails. */
		if (!ret && signal_pending(current))
			ret = -ERESTARTSYS;
		if (ret)
			return ret;
		cond_resched();
	}
}

/* The checks of an ENQUEUE's arguments that need no lock. */
static bool weave_enqueue_valid(const struct drm_weave_enqueue *args)
{
	bool flush = args->flags & DRM_WEAVE_ENQUEUE_FLUSH;

	if (args->flags & ~DRM_WEAVE_ENQUEUE_FLUSH ||
	    (!flush && args->out_syncs.count) ||
	    (!args->tasks.count && (!flush || args->in_syncs.count)))
		return false;
	return args->tasks.count <= WEAVE_MAX_TASKS_PER_ENQUEUE &&
	       weave_uarray_valid(&args->tasks, WEAVE_TASK_SIZE_V0) &&
	       args->in_syncs.count <= WEAVE_MAX_IN_SYNCS &&
	       weave_uarray_valid(&args->in_syncs,
				  sizeof(struct drm_weave_sync)) &&
	       args->out_syncs.count <= WEAVE_MAX_IN_SYNCS &&
	       weave_uarray_valid(&args->out_syncs,
				  sizeof(struct drm_weave_sync));
}

/**
 * weave_enqueue_ioctl() - Handle %DRM_IOCTL_WEAVE_ENQUEUE.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_enqueue.
 * @file: The client's file.
 *
 * See "DOC: enqueue".  Each try runs in a device section, under the
 * client's mutex, and reads user memory with page faults disabled; one
 * that stops, having undone all it did, to wait for room in the staging
 * arena or for user pages, waits with neither held, then the call tries
 * again.  User memory that cannot be faulted in fails the call with
 * -EFAULT; a signal ends it with -ERESTARTSYS between tries.  A try whose
 * pin step is refused past a limit of resident bytes (or for memory) is
 * tried once more, after the completed jobs have let go of their
 * buffers (weave_eng_job_release_drain(), "DOC: job release").
 *
 * With %DRM_WEAVE_ENQUEUE_FLUSH, what the out-syncs need is resolved and
 * allocated first, then the try that queues the tasks also flushes the
 * stream, under the same hold of the mutex, and the out-syncs are set
 * once it is released (see "DOC: enqueue with flush").
 *
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_enqueue_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct drm_weave_enqueue *args = data;
	struct weave_client *c = file->driver_priv;
	struct weave_flush_out none = {};
	struct weave_enqueue_out *outs;
	struct dma_fence *fence = NULL;
	u32 n = args->out_syncs.count;
	int ret;

	if (!weave_enqueue_valid(args))
		return -EINVAL;
	ret = weave_enqueue_outs_get(c, file, args, &outs);
	if (!ret)
		ret = weave_enqueue_tries(drm, file, args,
					  n ? &outs[0].out : &none, &fence);
	if (!ret)
		weave_enqueue_outs_set(outs, n, fence);
	dma_fence_put(fence);
	weave_enqueue_outs_put(outs, n);
	return ret;
}
