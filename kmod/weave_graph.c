// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: graph capture and replay: the CAPTURE, REPLAY and GRAPH_DESTROY
 * ioctls, the recordings of a client's capture windows and its graphs.
 */

#include <linux/dma-fence.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "weave_capture.h"
#include "weave_client.h"
#include "weave_core.h"
#include "weave_device.h"
#include "weave_drm.h"
#include "weave_engine.h"
#include "weave_fault_in.h"
#include "weave_fence.h"
#include "weave_flush.h"
#include "weave_graph.h"
#include "weave_insync.h"
#include "weave_job.h"
#include "weave_propagate.h"
#include "weave_submit.h"
#include "weave_template.h"
#include "weave_trace.h"
#include "weave_uarray.h"

/**
 * DOC: graphs
 *
 * A window's recording is a &struct weave_graph that its slot's entry of
 * &weave_client.recording owns from BEGIN until the window closes.  An
 * ENQUEUE of the owner moves its checked launches there as the compact
 * ring entries it prepared them into (&weave_graph.entries, unchanged),
 * holding their buffers' tracking records as a queued task would; a
 * submission that queues them copies the entries, taking holds of its
 * own, so that the graph can go at any time.  Sealing encodes them once
 * into the graph's template and moves the recording into
 * &weave_client.graphs.  A window that closes any other way frees its
 * recording, abandoned or aborted, doomed or not; a doomed one that its
 * owner's BEGIN or END closes first queues it as tasks that do not run and
 * taint what they should have written, in their place in the slot's
 * order.  All of it is under the client's mutex.
 */

/**
 * weave_graphs_init() - Set up a client's capture state.
 * @c: The client, whose core is initialized.
 *
 * Return: 0 or -ENOMEM.
 */
int weave_graphs_init(struct weave_client *c)
{
	int ret;

	xa_init_flags(&c->graphs, XA_FLAGS_ALLOC1);
	ret = weave_core_capture_init(&c->capture, &c->core);
	if (ret)
		return ret;
	c->recording = kcalloc(c->core.max_streams, sizeof(*c->recording),
			       GFP_KERNEL_ACCOUNT);
	if (!c->recording) {
		weave_core_capture_fini(&c->capture);
		return -ENOMEM;
	}
	return 0;
}

/**
 * weave_graphs_fini() - Free every recording and graph of a client.
 * @c: The client, at close, before its core goes.
 *
 * The windows' isolation holds go with the core, which executes nothing
 * more.
 *
 * Context: The client's mutex held.
 */
void weave_graphs_fini(struct weave_client *c)
{
	struct weave_graph *g;
	unsigned long idx;
	u32 i;

	for (i = 0; i < c->core.max_streams; i++)
		weave_graph_free(c, c->recording[i]);
	kfree(c->recording);
	c->recording = NULL;
	weave_core_capture_fini(&c->capture);
	xa_for_each(&c->graphs, idx, g)
		weave_graph_free(c, g);
	xa_destroy(&c->graphs);
}

/* The owner stream of @stream's window, if it still exists. */
static struct weave_lstream *weave_window_owner(struct weave_client *c,
						u32 stream)
{
	u32 owner = weave_core_capture_window(&c->capture, stream)->owner;

	return owner ? xa_load(&c->ectx->streams, owner) : NULL;
}

/* Close @stream's window, and free its recording. */
static void weave_window_close(struct weave_client *c, u32 stream)
{
	struct weave_lstream *ls = weave_window_owner(c, stream);
	u32 slot = weave_core_slot(&c->core, stream);

	if (ls)
		WRITE_ONCE(ls->window, false);
	weave_core_capture_close(&c->capture, stream);
	if (c->recording[slot])
		weave_graph_count(c, c->recording[slot], 0, -1, 0);
	weave_graph_free(c, c->recording[slot]);
	c->recording[slot] = NULL;
}

/**
 * weave_capture_stream_gone() - A stream is being destroyed: close the
 * window it owns.
 * @c: The client.
 * @stream: The stream.
 *
 * Context: The client's mutex held.
 */
void weave_capture_stream_gone(struct weave_client *c, u32 stream)
{
	if (weave_core_capture_window(&c->capture, stream)->owner == stream)
		weave_window_close(c, stream);
}

/**
 * weave_graph_records() - Whether an open window of the client records a
 * task that binds @obj: what the buffer will hold is not known yet.
 * @c: The client.
 * @obj: The buffer.
 *
 * Context: The client's mutex held.
 * Return: True if so.
 */
bool weave_graph_records(struct weave_client *c, struct drm_gem_object *obj)
{
	struct weave_btrack *bt = xa_load(&c->tracks, (unsigned long)obj);

	return bt && bt->recorded;
}

/**
 * weave_graph_doom() - Doom the window @stream records, with @err.
 * @c: The client.
 * @stream: The owner, recording.
 * @err: The negative errno, if the window is not doomed yet.
 *
 * Context: The client's mutex held.
 */
void weave_graph_doom(struct weave_client *c, u32 stream, int err)
{
	struct weave_lstream *ls = xa_load(&c->ectx->streams, stream);

	if (ls)
		atomic_cmpxchg(&ls->doom, 0, err);
}

/* Fill the out fields of @args from @stream's window. */
static void weave_capture_report(struct weave_client *c, u32 stream,
				 struct drm_weave_capture *args)
{
	const struct weave_window *w = weave_core_capture_window(&c->capture,
							     stream);
	struct weave_graph *g = c->recording[weave_core_slot(&c->core, stream)];
	struct weave_lstream *ls = weave_window_owner(c, stream);

	args->state = w->state;
	args->owner = w->owner;
	args->ntasks = g ? g->ntasks : 0;
	args->error = ls ? atomic_read(&ls->doom) : 0;
	args->failure = ls ? atomic64_read(&ls->doom_failure) : 0;
}

/*
 * Drain step of PREPARE, BEGIN and END: submit the slot of @stream, as
 * FLUSH does, then wait, without the client's mutex, for all it submitted.
 * A call that would be refused (PREPARE of a slot that has a window, BEGIN
 * by a stream that does not own a prepared one) drains nothing; the
 * transition checks again after the wait.  END drains only a recording
 * window that a refused host write doomed: the write has then run, and
 * its failure can be named.
 */
static int weave_capture_drain(struct weave_client *c, u32 stream, u32 op)
{
	u32 slot = weave_core_slot(&c->core, stream);
	const struct weave_window *w;
	struct dma_fence *fence = NULL;
	struct weave_lstream *ls;
	bool drain = false;
	long ret;

	ret = weave_client_lock(c);
	if (ret)
		return ret;
	ls = weave_client_stream(c, stream);
	ret = PTR_ERR_OR_ZERO(ls);
	if (!ret) {
		w = weave_core_capture_window(&c->capture, stream);
		if (op == DRM_WEAVE_CAPTURE_PREPARE)
			drain = w->state == WEAVE_WINDOW_NONE;
		else if (op == DRM_WEAVE_CAPTURE_BEGIN)
			drain = w->state == WEAVE_WINDOW_PREPARED &&
				w->owner == stream;
		else
			drain = atomic_read(&ls->doom) &&
				!atomic64_read(&ls->doom_failure) &&
				weave_core_capture_recording(&c->capture,
							     stream);
		if (drain)
			ret = weave_core_flush(&c->core, stream);
	}
	if (!ret && (drain || op != DRM_WEAVE_CAPTURE_END))
		fence = weave_eng_ctx_slot_fence(c->ectx, slot);
	mutex_unlock(&c->lock);
	if (fence)
		ret = dma_fence_wait(fence, true);
	dma_fence_put(fence);
	return ret;
}

/*
 * The window of @stream is doomed: close it, queue its recording on the
 * owner as tasks that do not run and taint what they should have written,
 * with the doom's errno, and fail with -EIO.  If the owner cannot take
 * them (it failed, or the client is at max_pending_tasks), they go without
 * a trace, as an aborted window's do.
 */
static int weave_capture_fail(struct weave_client *c, struct drm_file *file,
			      u32 stream, struct drm_weave_capture *args)
{
	u32 slot = weave_core_slot(&c->core, stream);
	struct weave_graph *g = c->recording[slot];
	u32 owner = weave_core_capture_window(&c->capture, stream)->owner;
	struct drm_weave_enqueue e = { .stream = owner };

	weave_capture_report(c, stream, args);
	c->recording[slot] = NULL;
	weave_window_close(c, stream);
	if (g && g->ntasks) {
		weave_graph_count(c, g, 0, -1, 0);
		e.tasks.count = g->ntasks;
		if (!weave_submit(c, file, &e, g->entries, g->ntasks,
				  args->error ?: -EIO, NULL, NULL))
			weave_core_flush(&c->core, owner);
	}
	weave_graph_free(c, g);
	return -EIO;
}

static int weave_capture_prepare_op(struct weave_client *c, u32 stream,
				    struct weave_lstream *ls)
{
	int ret;

	ret = weave_core_capture_prepare(&c->capture, stream);
	if (ret)
		return ret;
	atomic_set(&ls->doom, 0);
	atomic64_set(&ls->doom_failure, 0);
	WRITE_ONCE(ls->window, true);
	return 0;
}

static int weave_capture_begin_op(struct weave_client *c,
				  struct drm_file *file, u32 stream,
				  struct weave_lstream *ls,
				  struct drm_weave_capture *args)
{
	const struct weave_window *w = weave_core_capture_window(&c->capture,
							     stream);
	u32 slot = weave_core_slot(&c->core, stream);
	struct weave_graph *g;
	int ret;

	if (w->state == WEAVE_WINDOW_PREPARED && w->owner == stream &&
	    atomic_read(&ls->doom))
		return weave_capture_fail(c, file, stream, args);
	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	if (!g)
		return -ENOMEM;
	ret = weave_core_capture_begin(&c->capture, stream);
	if (ret) {
		kfree(g);
		return ret;
	}
	c->recording[slot] = g;
	return 0;
}

static int weave_capture_end_op(struct weave_client *c,
				struct drm_file *file, u32 stream,
				struct drm_weave_capture *args)
{
	const struct weave_window *w = weave_core_capture_window(&c->capture,
							     stream);
	u32 slot = weave_core_slot(&c->core, stream);
	struct weave_lstream *ls = weave_window_owner(c, stream);
	u32 owner, id;
	int ret;

	if (w->state != WEAVE_WINDOW_RECORDING)
		return -EBADFD;
	if (w->owner != stream) {
		weave_capture_report(c, stream, args);
		weave_window_close(c, stream);
		return -ECANCELED;
	}
	if (ls && atomic_read(&ls->doom))
		return weave_capture_fail(c, file, stream, args);
	if (c->ngraphs >= WEAVE_MAX_GRAPHS)
		return -ENOSPC;
	ret = weave_graph_seal(c->recording[slot]);
	if (!ret)
		ret = xa_alloc_cyclic(&c->graphs, &id, c->recording[slot],
				      XA_LIMIT(1, U32_MAX), &c->next_graph,
				      GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		weave_graph_unseal(c->recording[slot]);
		return ret;
	}
	c->ngraphs++;
	args->ntasks = c->recording[slot]->ntasks;
	weave_graph_count(c, c->recording[slot], 0, -1, 0);
	c->recording[slot] = NULL;
	if (ls)
		WRITE_ONCE(ls->window, false);
	weave_core_capture_end(&c->capture, stream, &owner);
	args->graph = id;
	return 0;
}

/**
 * weave_capture_ioctl() - Handle %DRM_IOCTL_WEAVE_CAPTURE.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_capture.
 * @file: The client's file.
 *
 * See "DOC: graph capture".  PREPARE and BEGIN drain the slot first,
 * without the client's mutex, then check the window again under it.
 *
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_capture_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct drm_weave_capture *args = data;
	struct weave_client *c = file->driver_priv;
	struct weave_lstream *ls;
	u32 op = args->op, pad2 = args->pad2;
	int ret, idx;

	args->state = 0;
	args->owner = 0;
	args->graph = 0;
	args->ntasks = 0;
	args->error = 0;
	args->pad2 = 0;
	args->failure = 0;
	if (args->flags || args->pad || pad2 ||
	    op > DRM_WEAVE_CAPTURE_QUERY)
		return -EINVAL;

	if (op == DRM_WEAVE_CAPTURE_PREPARE || op == DRM_WEAVE_CAPTURE_BEGIN ||
	    op == DRM_WEAVE_CAPTURE_END) {
		ret = weave_capture_drain(c, args->stream, op);
		if (ret)
			return ret;
	}

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = weave_client_lock(c);
	if (ret)
		goto out_exit;
	ls = weave_client_stream(c, args->stream);
	ret = PTR_ERR_OR_ZERO(ls);
	if (ret)
		goto out;
	switch (op) {
	case DRM_WEAVE_CAPTURE_PREPARE:
		ret = weave_capture_prepare_op(c, args->stream, ls);
		break;
	case DRM_WEAVE_CAPTURE_BEGIN:
		ret = weave_capture_begin_op(c, file, args->stream, ls,
					     args);
		break;
	case DRM_WEAVE_CAPTURE_END:
		ret = weave_capture_end_op(c, file, args->stream, args);
		break;
	case DRM_WEAVE_CAPTURE_ABORT:
		weave_window_close(c, args->stream);
		break;
	}
	if (ret != -EIO && ret != -ECANCELED) {
		u32 graph = args->graph, ntasks = args->ntasks;

		weave_capture_report(c, args->stream, args);
		args->graph = graph;
		if (graph)
			args->ntasks = ntasks;
	} else {
		/*
		 * Reported before it closed, so that the fields say whose
		 * window it was and why; but the state is the one after.
		 */
		args->state = DRM_WEAVE_CAPTURE_NONE;
	}
	if (!ret && (op == DRM_WEAVE_CAPTURE_BEGIN || args->graph))
		trace_weave_capture(c->ectx->id, args->stream, args->graph,
				    op == DRM_WEAVE_CAPTURE_BEGIN, args->ntasks);
out:
	mutex_unlock(&c->lock);
out_exit:
	drm_dev_exit(idx);
	return ret;
}

/*
 * Queue the tasks of @g, which has some, on @ls, the stream of @e, after
 * its in-fences @fences (@nf of them, which it takes): the way cleared
 * past other slots' and the slot's queued tasks, then one job of the
 * graph's template (see "DOC: job templates").
 */
static int weave_replay_queue(struct weave_client *c, struct weave_graph *g,
			      const struct drm_weave_enqueue *e,
			      struct weave_lstream *ls,
			      struct dma_fence **fences, u32 nf)
{
	u32 slot = weave_core_slot(&c->core, e->stream);
	struct weave_insync *in = NULL;
	struct weave_btrack *bt;
	struct weave_bstream *bs;
	u32 i;
	int ret = 0;

	/*
	 * The replay uses the graph's buffers until its job is queued, which
	 * takes pins of its own: hold their records (busy past held keeps a
	 * pin, whatever clearing the way executes) and pin them.
	 */
	for (i = 0; i < g->ntracks; i++) {
		bt = container_of(g->tracks[i], struct weave_btrack, track);
		bt->busy++;
		if (!ret)
			ret = weave_btrack_pin(c, bt);
	}
	/* Its last replay, on another slot and not done, gates this one. */
	if (g->last && g->last_slot != slot && !dma_fence_is_signaled(g->last))
		fences[nf++] = dma_fence_get(g->last);
	/* What the tasks' failures may take of the failure graph. */
	if (!ret)
		ret = weave_eng_ctx_fail_reserve(c->ectx, g->entries, g->ntasks,
						 false);
	if (!ret && nf) {
		in = weave_eng_insync_create(c->ectx, fences, nf);
		ret = in ? 0 : -ENOMEM;
	}
	if (!ret) {
		bs = weave_core_direct(&c->core, e->stream, g->tracks,
				       g->ntracks);
		ret = PTR_ERR_OR_ZERO(bs);
	}
	if (!ret) {
		/* The slot is made: no new core may replace this one. */
		c->enqueued = true;
		ret = weave_eng_ctx_gates_prepare(c->ectx, slot, fences, &nf);
	}
	if (!ret)
		ret = weave_eng_template_queue(bs, g->tmpl, ls,
					       ls->enqueued + 1, in, fences,
					       nf);
	if (!ret) {
		ls->enqueued += g->ntasks;
		in = NULL;
		nf = 0;
	}
	weave_eng_insync_put(in);
	while (nf--)
		dma_fence_put(fences[nf]);
	/* The holds and pins taken above, unless queued tasks need them. */
	for (i = 0; i < g->ntracks; i++) {
		bt = container_of(g->tracks[i], struct weave_btrack, track);
		bt->busy--;
		weave_btrack_release(c, bt);
	}
	return ret;
}

/*
 * One try of a REPLAY, with the out-sync's needs @out allocated: its
 * device section and the client's mutex, the in-syncs read with page
 * faults disabled, and the out-sync set.
 */
static int weave_replay_try(struct drm_device *drm, struct drm_file *file,
			    struct drm_weave_replay *args,
			    const struct drm_weave_flush *f,
			    struct weave_flush_out *out)
{
	struct weave_client *c = file->driver_priv;
	struct drm_weave_enqueue e = {
		.stream = args->stream,
		.in_syncs = args->in_syncs,
	};
	struct dma_fence *fence = NULL;
	struct weave_lstream *ls;
	struct weave_graph *g;
	u32 slot, nf = 0;
	int ret, idx;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = weave_client_lock(c);
	if (ret)
		goto out_exit;
	g = xa_load(&c->graphs, args->graph);
	if (!g) {
		ret = -ENOENT;
		goto out_unlock;
	}
	/* Only a live stream owns a window. */
	if (weave_core_capture_recording(&c->capture, args->stream)) {
		ret = -EBUSY;
		goto out_unlock;
	}
	ls = weave_enqueue_stream(c, &e, g->ntasks);
	ret = PTR_ERR_OR_ZERO(ls);
	if (!ret) {
		pagefault_disable();
		ret = weave_enqueue_in_fences(file, &e, c->in_fences, &nf);
		pagefault_enable();
	}
	if (!ret && g->ntasks) {
		ret = weave_replay_queue(c, g, &e, ls, c->in_fences, nf);
	} else {
		/* Nothing to queue; the in-syncs were checked all the same. */
		while (nf--)
			dma_fence_put(c->in_fences[nf]);
	}
	if (!ret) {
		args->seqno = ls->enqueued;
		ret = weave_flush_locked(c, f, out, &fence);
		/*
		 * Once the tasks are queued, no failure may say that nothing
		 * was: a restart, or the caller, would queue them again.
		 */
		if (ret && g->ntasks)
			ret = -EINPROGRESS;
	}
	if (!ret) {
		slot = weave_core_slot(&c->core, args->stream);
		dma_fence_put(g->last);
		g->last = weave_eng_ctx_slot_fence(c->ectx, slot);
		g->last_slot = slot;
		trace_weave_replay(c->ectx->id, args->graph, args->stream,
				   g->ntasks, !!g->ntasks);
	}
out_unlock:
	mutex_unlock(&c->lock);
	if (!ret && out->syncobj)
		weave_flush_out_set(out, fence, args->out_sync.timeline_value);
	else
		dma_fence_put(fence);
out_exit:
	drm_dev_exit(idx);
	return ret;
}

/**
 * weave_replay_ioctl() - Handle %DRM_IOCTL_WEAVE_REPLAY.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_replay.
 * @file: The client's file.
 *
 * An ENQUEUE of the graph's tasks, as one job made from its template, and
 * a FLUSH of the stream, under one hold of the client's mutex; what the
 * out-sync needs is allocated first.  A try whose in-syncs are not
 * present fails before it changes anything, and the call tries again once
 * they are faulted in (see "DOC: user memory").
 *
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_replay_ioctl(struct drm_device *drm, void *data,
		       struct drm_file *file)
{
	struct drm_weave_replay *args = data;
	struct weave_client *c = file->driver_priv;
	struct drm_weave_flush f = {
		.stream = args->stream,
		.out_sync = args->out_sync,
	};
	struct weave_flush_out out = {};
	bool unservable;
	u32 tries;
	int ret;

	if (args->flags || args->pad || args->out_sync.flags ||
	    args->in_syncs.count > WEAVE_MAX_IN_SYNCS ||
	    !weave_uarray_valid(&args->in_syncs, sizeof(struct drm_weave_sync)))
		return -EINVAL;
	ret = weave_flush_out_get(c, file, &f, &out);
	for (tries = 1; !ret; tries++) {
		ret = weave_replay_try(drm, file, args, &f, &out);
		if (ret != -EFAULT || tries >= WEAVE_FAULT_IN_TRIES)
			break;
		unservable = weave_syncs_fault_in(&args->in_syncs);
		/* A signal also cuts a fault-in short, which then fails. */
		if (signal_pending(current))
			ret = -ERESTARTSYS;
		else if (!unservable)
			ret = 0;
	}
	weave_flush_out_put(&out);
	return ret;
}

/**
 * weave_graph_destroy_ioctl() - Handle %DRM_IOCTL_WEAVE_GRAPH_DESTROY.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_graph_destroy.
 * @file: The client's file.
 *
 * Replays in flight keep what they use.
 *
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_graph_destroy_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	struct drm_weave_graph_destroy *args = data;
	struct weave_client *c = file->driver_priv;
	struct weave_graph *g;

	if (args->pad)
		return -EINVAL;
	if (weave_client_lock(c))
		return -ERESTARTSYS;
	g = xa_erase(&c->graphs, args->graph);
	if (g) {
		c->ngraphs--;
		weave_graph_free(c, g);
	}
	mutex_unlock(&c->lock);
	return g ? 0 : -ENOENT;
}
