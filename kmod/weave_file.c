// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: clients' files: opening and closing a client, the unplug of its
 * device, and the stream ioctls: create, destroy, isolate, and the
 * per-client settings.
 */

#include <linux/build_bug.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kref.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>

#include "weave_backend.h"
#include "weave_bo.h"
#include "weave_client.h"
#include "weave_compat.h"
#include "weave_core.h"
#include "weave_cpage.h"
#include "weave_debugfs.h"
#include "weave_device.h"
#include "weave_drm.h"
#include "weave_engine.h"
#include "weave_file.h"
#include "weave_flush.h"
#include "weave_graph.h"
#include "weave_shader.h"
#include "weave_job.h"
#include "weave_resident.h"
#include "weave_sring.h"

/**
 * DOC: clients
 *
 * Each open file of a weave device is a client, &struct weave_client.  It
 * owns its logical streams (handles from 1 to max_client_streams, given out
 * cyclically, so that a destroyed stream's handle is not the next one's),
 * its scheduler core with the soft engine's context as the backend, and a
 * tracking record per buffer its queued tasks bind.
 *
 * Closing the file (also when the process is killed) cancels and reaps,
 * and waits for nothing: the engine context is aborted first (a job whose
 * flush failed is dropped, running jobs stop between tasks, every gate on
 * another client's or driver's fence signals with -ECANCELED; see
 * weave_eng_ctx_abort()), then the core cancels every queued task and lets
 * the backend streams go.  Jobs already pushed drain on their own, skipping
 * their tasks, and hold references to what they use: the engine context,
 * the backend stream (whose entities are finished after its last job),
 * their buffers, the logical streams of their tasks, and the module.
 */

static void weave_track_idle(struct weave_core *core,
			     struct weave_track *track)
{
	struct weave_client *c = container_of(core, struct weave_client,
					      core);
	weave_btrack_release(c, container_of(track, struct weave_btrack, track));
}

/*
 * A strategy crosses unconverted from the uAPI (SET_PARAM, the module
 * parameter) to the core: the two enums must agree.
 */
static_assert((int)DRM_WEAVE_STRATEGY_INTERLEAVE ==
	      (int)WEAVE_STRATEGY_INTERLEAVE);
static_assert((int)DRM_WEAVE_STRATEGY_SEQUENTIAL ==
	      (int)WEAVE_STRATEGY_SEQUENTIAL);

/* Fill in the core's parameters for a client with threshold @max_tasks. */
static void weave_client_params(struct weave_client *c, u32 max_tasks,
				struct weave_core_params *params)
{
	*params = (struct weave_core_params) {
		.ops = &weave_eng_ops,
		.backend = c->ectx,
		.failures = &c->wdev->failures,
		.lock = &c->lock,
		.track_idle = weave_track_idle,
		.max_streams = c->wdev->limits.max_streams,
		.max_tasks = max_tasks,
		.strategy = c->wdev->limits.strategy,
	};
}

/**
 * weave_client_open() - The &drm_driver.open hook: set up a client.
 * @drm: The DRM device.
 * @file: The new file.
 *
 * Return: 0, -ENOMEM, or -ENODEV if the device is being unplugged.
 */
int weave_client_open(struct drm_device *drm, struct drm_file *file)
{
	struct weave_device *wdev = to_weave_device(drm);
	struct weave_core_params params;
	struct weave_client *c;
	int idx, ret;

	/*
	 * Not on a device being unplugged: drm_dev_unplug() waits for this
	 * section, so the weave_clients_unplug() that follows it finds the
	 * client on the list.
	 */
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;

	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c) {
		ret = -ENOMEM;
		goto err_exit;
	}
	c->wdev = wdev;
	mutex_init(&c->lock);
	xa_init(&c->tracks);
	weave_sring_init(c);
	c->quota = weave_eng_bo_quota_create(wdev->max_client_bo_bytes,
					     wdev->max_client_bos);
	if (!c->quota) {
		ret = -ENOMEM;
		goto err_free;
	}
	c->resident_user = weave_eng_resident_user_get(current_uid());
	if (IS_ERR(c->resident_user)) {
		ret = PTR_ERR(c->resident_user);
		goto err_quota;
	}
	c->ectx = weave_eng_ctx_create(drm, wdev->engine, &wdev->failures,
				       &wdev->limits);
	if (!c->ectx) {
		ret = -ENOMEM;
		goto err_resident_user;
	}
	weave_client_params(c, wdev->limits.max_tasks, &params);
	ret = weave_core_init(&c->core, &params);
	if (ret)
		goto err_ectx;
	ret = weave_graphs_init(c);
	if (ret)
		goto err_core;
	weave_shaders_init(c);

	c->client_id = weave_compat_client_id(file, c->ectx->id);
	mutex_lock(&wdev->clients_lock);
	list_add_tail(&c->link, &wdev->clients);
	weave_debugfs_client_add(c);
	mutex_unlock(&wdev->clients_lock);
	drm_dev_exit(idx);

	file->driver_priv = c;
	return 0;

err_core:
	mutex_lock(&c->lock);
	weave_core_fini(&c->core);
	mutex_unlock(&c->lock);
err_ectx:
	weave_eng_ctx_put(c->ectx);
err_resident_user:
	weave_eng_resident_user_put(c->resident_user);
err_quota:
	weave_eng_bo_quota_put(c->quota);
err_free:
	mutex_destroy(&c->lock);
	kfree(c);
err_exit:
	drm_dev_exit(idx);
	return ret;
}

/**
 * weave_client_postclose() - The &drm_driver.postclose hook: cancel and
 * reap a client's work.
 * @drm: The DRM device.
 * @file: The file being closed.
 *
 * See "DOC: clients".  Does not wait for jobs already on a hardware queue,
 * which stop at their next task.
 */
void weave_client_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct weave_client *c = file->driver_priv;
	struct weave_device *wdev = c->wdev;
	struct weave_lstream *ls;
	unsigned long idx;

	mutex_lock(&wdev->clients_lock);
	list_del(&c->link);
	/* Before anything its files show goes. */
	weave_debugfs_client_remove(c);
	mutex_unlock(&wdev->clients_lock);

	mutex_lock(&c->lock);
	weave_eng_ctx_abort(c->ectx, -ECANCELED);
	/* Its streams' jobs may complete later, but write no entry. */
	weave_cpage_fini(c);
	/* What they published and nobody consumed is dropped. */
	weave_sring_fini(c);
	/* The graphs hold tracking records too. */
	weave_graphs_fini(c);
	weave_shaders_fini(c);
	/* Cancelling the queued tasks frees every tracking record. */
	weave_core_fini(&c->core);
	WARN_ON_ONCE(!xa_empty(&c->tracks));
	xa_destroy(&c->tracks);
	xa_for_each(&c->ectx->streams, idx, ls)
		weave_eng_lstream_put(ls);
	xa_destroy(&c->ectx->streams);
	kvfree(c->entries_buf);
	mutex_unlock(&c->lock);

	weave_eng_ctx_put(c->ectx);
	/* Its buffers that live on keep the quota, and their charges. */
	weave_eng_bo_quota_put(c->quota);
	weave_eng_resident_user_put(c->resident_user);
	mutex_destroy(&c->lock);
	kfree(c);
}

/**
 * weave_clients_unplug() - Cancel the work of every client of a device.
 * @wdev: The device, just unplugged: no ioctl of its clients runs inside
 *	drm_dev_enter() any more, and none will.
 *
 * Aborts each client's engine context with -ENODEV, as close would with
 * -ECANCELED: running jobs stop at their next task, jobs not yet run skip
 * theirs, a job whose flush failed is dropped, and gates on foreign
 * in-fences signal.  Every fence of the client's work then signals with
 * an error.  Tasks still queued in the core's rings can never be flushed
 * now; the file's close cancels them.
 *
 * Context: Process context; takes &weave_device.clients_lock, then each
 * client's mutex.
 */
void weave_clients_unplug(struct weave_device *wdev)
{
	struct weave_client *c;

	mutex_lock(&wdev->clients_lock);
	list_for_each_entry(c, &wdev->clients, link) {
		mutex_lock(&c->lock);
		weave_eng_ctx_abort(c->ectx, -ENODEV);
		mutex_unlock(&c->lock);
	}
	mutex_unlock(&wdev->clients_lock);
}

/**
 * weave_stream_create_ioctl() - Handle %DRM_IOCTL_WEAVE_STREAM_CREATE.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_stream_create.
 * @file: The client's file.
 *
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_stream_create_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	struct weave_device *wdev = to_weave_device(drm);
	struct drm_weave_stream_create *args = data;
	struct weave_client *c = file->driver_priv;
	struct weave_lstream *ls;
	u32 id;
	int ret;

	if (args->flags || args->pad ||
	    args->priority > DRM_WEAVE_PRIORITY_HIGH)
		return -EINVAL;
	if (args->priority == DRM_WEAVE_PRIORITY_HIGH &&
	    !capable(CAP_SYS_NICE))
		return -EPERM;

	ls = kzalloc(sizeof(*ls), GFP_KERNEL_ACCOUNT);
	if (!ls)
		return -ENOMEM;
	kref_init(&ls->ref);
	spin_lock_init(&ls->count_lock);
	ls->priority = args->priority;

	ret = weave_client_lock(c);
	if (ret) {
		kfree(ls);
		return ret;
	}
	/* Cyclic: a destroyed stream's handle does not name the next one. */
	ret = xa_alloc_cyclic(&c->ectx->streams, &id, ls,
			      XA_LIMIT(1, wdev->limits.max_client_streams),
			      &c->next_stream, GFP_KERNEL_ACCOUNT);
	if (ret >= 0) {
		ls->handle = id;
		c->nstreams++;
		weave_cpage_stream_new(c, ls);
		ret = 0;
	}
	mutex_unlock(&c->lock);
	if (ret) {
		kfree(ls);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	args->handle = id;
	return 0;
}

/**
 * weave_stream_destroy_ioctl() - Handle %DRM_IOCTL_WEAVE_STREAM_DESTROY.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_stream_destroy.
 * @file: The client's file.
 *
 * Executes the stream's slot first, so no queued task is lost, and
 * releases the stream's hold of its slot's isolation; if that runs out of
 * memory, the stream stays, and so does its hold.
 *
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_stream_destroy_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct drm_weave_stream_destroy *args = data;
	struct weave_client *c = file->driver_priv;
	struct weave_lstream *ls;
	int ret;

	if (args->pad)
		return -EINVAL;

	ret = weave_client_lock(c);
	if (ret)
		return ret;
	ls = weave_client_stream(c, args->handle);
	if (IS_ERR(ls)) {
		mutex_unlock(&c->lock);
		return PTR_ERR(ls);
	}
	/* Its capture window closes, recording nothing. */
	weave_capture_stream_gone(c, args->handle);
	/* Its tasks need the stream until the backend has them all. */
	ret = weave_core_stream_destroy(&c->core, args->handle);
	/* Its hold of isolation goes with it; the slot is empty now. */
	if (!ret && ls->isolated)
		ret = weave_core_isolate_put(&c->core, args->handle);
	if (ret) {
		mutex_unlock(&c->lock);
		return ret;
	}
	ls->isolated = false;
	weave_sring_stream_gone(c, args->handle);
	/* Its tasks still running no longer count where a later one will. */
	weave_eng_lstream_count_detach(ls);
	xa_erase(&c->ectx->streams, args->handle);
	c->nstreams--;
	mutex_unlock(&c->lock);
	weave_eng_lstream_put(ls);
	return 0;
}

/**
 * weave_stream_isolate_ioctl() - Handle %DRM_IOCTL_WEAVE_STREAM_ISOLATE.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_stream_isolate.
 * @file: The client's file.
 *
 * A stream holds its slot's isolation at most once, through the scheduler
 * core's holders count (weave_core_isolate_get() and _put(), which execute
 * the slot first), so that streams folded onto one slot do not undo each
 * other's isolation.  Destroying the stream releases its hold, closing the
 * file all of them.
 *
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_stream_isolate_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct drm_weave_stream_isolate *args = data;
	struct weave_client *c = file->driver_priv;
	struct weave_lstream *ls;
	bool enter;
	int ret;

	if (args->op > DRM_WEAVE_ISOLATION_ENTER)
		return -EINVAL;
	enter = args->op == DRM_WEAVE_ISOLATION_ENTER;

	ret = weave_client_lock(c);
	if (ret)
		return ret;
	ls = weave_client_stream(c, args->handle);
	if (IS_ERR(ls)) {
		ret = PTR_ERR(ls);
	} else if (ls->isolated == enter) {
		ret = -EALREADY;
	} else {
		/*
		 * First what FLUSH of the stream does: a task the kernel had
		 * no memory to pack, or a job it could not push, is refused
		 * before the hold changes.  Then the get or put executes an
		 * empty slot, which refuses nothing.
		 */
		weave_core_flush(&c->core, args->handle);
		if (weave_core_slot_queued(&c->core, args->handle) ||
		    weave_eng_ctx_held(c->ectx))
			ret = weave_flush_refused();
		if (!ret && enter)
			ret = weave_core_isolate_get(&c->core, args->handle);
		else if (!ret)
			ret = weave_core_isolate_put(&c->core, args->handle);
		if (!ret)
			ls->isolated = enter;
	}
	mutex_unlock(&c->lock);
	return ret;
}

/*
 * The streams' holds of isolation, taken again on a fresh core that has
 * never executed anything, so nothing can fail.
 */
static void weave_client_isolate_again(struct weave_client *c)
{
	struct weave_lstream *ls;
	unsigned long idx;

	xa_for_each(&c->ectx->streams, idx, ls) {
		if (ls->isolated)
			WARN_ON_ONCE(weave_core_isolate_get(&c->core, idx));
	}
}

/**
 * weave_set_param_ioctl() - Handle %DRM_IOCTL_WEAVE_SET_PARAM.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_set_param.
 * @file: The client's file.
 *
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_set_param_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct weave_device *wdev = to_weave_device(drm);
	struct drm_weave_set_param *args = data;
	struct weave_client *c = file->driver_priv;
	struct weave_core_params params;
	struct weave_core core;
	int ret;

	if (args->pad)
		return -EINVAL;

	ret = weave_client_lock(c);
	if (ret)
		return ret;
	switch (args->param) {
	case DRM_WEAVE_PARAM_STRATEGY:
		if (args->value > DRM_WEAVE_STRATEGY_SEQUENTIAL) {
			ret = -EINVAL;
			break;
		}
		ret = weave_core_set_strategy(&c->core, args->value);
		break;
	case DRM_WEAVE_PARAM_MAX_TASKS:
		if (!args->value || args->value > wdev->limits.max_tasks) {
			ret = -EINVAL;
			break;
		}
		if (c->enqueued) {
			ret = -EBUSY;
			break;
		}
		/* No slot was ever used: swap in a fresh core. */
		weave_client_params(c, args->value, &params);
		params.strategy = c->core.strategy;
		ret = weave_core_init(&core, &params);
		if (ret)
			break;
		weave_core_fini(&c->core);
		c->core = core;
		weave_client_isolate_again(c);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	mutex_unlock(&c->lock);
	return ret;
}
