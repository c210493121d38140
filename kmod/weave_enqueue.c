// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the ENQUEUE ioctl: its tries, the waits between them, and the
 * choice to record the launches of a stream that records its capture
 * window instead of queueing them.
 */

#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "weave_capture.h"
#include "weave_client.h"
#include "weave_device.h"
#include "weave_drm.h"
#include "weave_enqueue.h"
#include "weave_fault_in.h"
#include "weave_graph.h"
#include "weave_staging.h"
#include "weave_submit.h"
#include "weave_trace.h"
#include "weave_uarray.h"

/* An ENQUEUE of a stream that records its window: see "DOC: graphs". */
static const struct weave_recorder weave_graph_recorder = {
	.record = weave_graph_record,
	.doom = weave_graph_doom,
};

/*
 * One try of an ENQUEUE: its device section and the client's mutex, and
 * the user memory it reads with page faults disabled.
 */
static int weave_enqueue_try(struct drm_device *drm, struct drm_file *file,
			     struct drm_weave_enqueue *args,
			     struct weave_room *room)
{
	struct weave_client *c = file->driver_priv;
	int idx, ret;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = weave_client_lock(c);
	if (!ret) {
		bool record = weave_core_capture_recording(&c->capture,
							   args->stream);

		room->full = false;
		pagefault_disable();
		ret = weave_submit(c, file, args, NULL, 0, 0,
				   record ? &weave_graph_recorder : NULL, room);
		pagefault_enable();
		if (!ret)
			trace_weave_enqueue(c->ectx->id, args->stream,
					    weave_core_slot(&c->core,
							    args->stream),
					    args->tasks.count, record);
		if (ret == -EAGAIN && room->full)
			room->seen = weave_eng_staging_reclaimed(c->ectx,
								 room->slot);
		mutex_unlock(&c->lock);
	}
	drm_dev_exit(idx);
	return ret;
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
 * -EFAULT; a signal ends it with -ERESTARTSYS between tries.
 *
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_enqueue_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct drm_weave_enqueue *args = data;
	struct weave_client *c = file->driver_priv;
	struct weave_room room = {};
	bool unservable = false;
	u32 tries = 0;
	int ret;

	if (args->flags || !args->tasks.count ||
	    args->tasks.count > WEAVE_MAX_TASKS_PER_ENQUEUE ||
	    !weave_uarray_valid(&args->tasks, WEAVE_TASK_SIZE_V0) ||
	    args->in_syncs.count > WEAVE_MAX_IN_SYNCS ||
	    !weave_uarray_valid(&args->in_syncs, sizeof(struct drm_weave_sync)))
		return -EINVAL;

	for (;;) {
		ret = weave_enqueue_try(drm, file, args, &room);
		if (ret == -EAGAIN && room.full) {
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
