// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the soft engine as a backend of the scheduler core: its
 * &struct weave_backend_ops, the backend streams, and the client's engine
 * context.
 */

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/dma-fence.h>
#include <linux/err.h>
#include <linux/kref.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/gpu_scheduler.h>

#include "weave_backend.h"
#include "weave_bo.h"
#include "weave_compat.h"
#include "weave_drm.h"
#include "weave_engine.h"
#include "weave_fence.h"
#include "weave_insync.h"
#include "weave_job.h"
#include "weave_job_cache.h"
#include "weave_lists.h"
#include "weave_push.h"
#include "weave_queue.h"
#include "weave_staging.h"
#include "weave_trace.h"

/**
 * DOC: soft engine
 *
 * The soft engine is the backend of the scheduler core; its hardware
 * queues are described in "DOC: hardware queues".
 *
 * A backend stream is one slot's: three scheduler entities (one per
 * priority) on queue slot % num_queues.  enqueue appends a task to a job
 * made for the backend stream it is given; flush arms each job on the
 * entity of the highest priority among the logical streams of its tasks,
 * and pushes it.
 *
 * Ordering.  (a) Jobs that share buffers, also across queues and clients:
 * at flush the job's buffers are locked together (ww mutexes), the job
 * waits for their reservation fences (implicit sync, reads after writes,
 * writes after everything) and adds, as a read or write fence, a weave
 * fence that stands in for its finished fence (see "DOC: fences").  It
 * waits for its own client's jobs directly and for any other fence through
 * a gate (see (c)), so that a closed client's jobs wait for no one else.
 * (b) Each slot's FIFO, across backend streams (interleave puts a slot's
 * tasks on another slot's backend stream): a job depends on
 * &weave_eslot.last of every slot it holds tasks of, and becomes that
 * slot's last.  (c) In-fences of %DRM_IOCTL_WEAVE_ENQUEUE become gates:
 * weave fences that signal when the in-fence does, or at once with
 * -ECANCELED when the client closes, so that a close never waits on
 * someone else's fence.  The next job with a task of the slot depends on
 * them.  A slot keeps one pending gate per fence context (the later
 * fence wins), and at most %WEAVE_MAX_SLOT_GATES of them.
 *
 * Submission never loses a task.  Every allocation a job needs is made
 * when its tasks are appended.  enqueue refuses a task it has no memory to
 * append, leaving it and the job untouched; the core then keeps the task
 * queued and the FLUSH (or ENQUEUE) fails with -ENOMEM, or, in the
 * executions an ENQUEUE causes after it committed, hands it to fail.
 * There the task still takes its place in the order, without an
 * allocation that could fail: the client's reserve (&weave_ectx.reserve),
 * a job made ahead with room for any one task and its slot's gates,
 * becomes a job of the backend stream the task was refused on, after every
 * job not yet pushed, and the task is encoded into it as refused.  It does
 * not run; the worker gives what it should have written a new failure,
 * -ENOMEM, cause %DRM_WEAVE_FAILURE_ENCODE (see "DOC: failure
 * propagation"), and its stream stays usable.  Later tasks join that job
 * as they would any other.  A new reserve is made at once if memory
 * allows, else by the next ENQUEUE before it commits (which fails with
 * -ENOMEM if it cannot), so each ENQUEUE has one.  Only a second refusal
 * in one ENQUEUE, with no memory for a reserve in between, finds none:
 * that task's stream is then marked failed with -ENOMEM, the last
 * resort, and the task counts as executed and completed.  A task's
 * buffers are pinned before it is queued, and a job only counts another
 * use of each (weave_eng_bo_pin_get()), so flush pins nothing.  Flush can still
 * fail for lack of memory (scheduler job, dependency or reservation
 * slots); the job is then held, unchanged, refused tasks and all.
 *
 * Held jobs.  The jobs not yet pushed, &weave_ectx.unpushed, are kept in
 * the order of their tasks: a task joins the newest of them if that one
 * was made for its backend stream, and starts a new job otherwise.  Without
 * a failed flush there is at most one, as the core flushes every backend
 * stream it enqueued on before it enqueues on another.  After one, tasks
 * still go to jobs of their own backend stream, with its entity, priority
 * and isolation, and every flush pushes all of them, oldest first,
 * stopping at the first it cannot push.  A job is ordered against later
 * work only once it is pushed: its proxy then enters its buffers'
 * reservations (a) and its finished fence becomes &weave_eslot.last of its
 * slots (b).  So both are taken at push, and a job pushed after a held one
 * follows it: a consumer never runs before a producer enqueued before it,
 * nor a slot's later task before its earlier one.
 *
 * Lifetimes.  A job holds references to the client's engine context, the
 * logical streams of its tasks, the backend stream it was made for and
 * the module, and drops them when it is freed; its buffers (and in-syncs)
 * it lets go of when it completes ("DOC: job release").  A client
 * never waits for its entities to drain, not at close and not when it is
 * killed: drm_sched_entity_flush() would wait behind other clients' work
 * on the queue, and on 6.1 the kill that follows it for an exiting
 * process leaks a fence reference when a job's dependency has already
 * signalled, pinning the module.  Instead a backend stream, with its
 * entities, lives until the client has let it go and the last job made
 * for it is freed; drm_sched_entity_fini() then finds each entity empty and
 * kills nothing.  That runs on weave_eng_wq, because the last job can
 * be freed by the scheduler itself.  The scheduler frees a job in a later
 * pass of the thread or ordered work queue that ran it, so after
 * everything the pass that took the job did with its entity (such as
 * signalling its idle completion).  A closed client's jobs drain without help: its abort fired
 * every gate, so they wait only for each other and for room on their
 * queue, and they skip their tasks.  The same holds at unload: no job
 * means no backend stream, and module exit drains weave_eng_wq.
 */

static const enum drm_sched_priority weave_prio_map[WEAVE_NUM_PRIOS] = {
	[DRM_WEAVE_PRIORITY_LOW] = WEAVE_COMPAT_SCHED_PRIORITY_LOW,
	[DRM_WEAVE_PRIORITY_NORMAL] = DRM_SCHED_PRIORITY_NORMAL,
	[DRM_WEAVE_PRIORITY_HIGH] = DRM_SCHED_PRIORITY_HIGH,
};

static struct weave_bstream *weave_engine_create_stream(void *backend,
							u32 slot,
							u32 max_tasks)
{
	struct weave_ectx *ctx = backend;
	struct weave_engine *engine = ctx->engine;
	struct weave_bstream *bs;
	u32 p;
	int ret;

	/*
	 * One core, one threshold: every backend stream of the client is
	 * given the same, so this changes the hint only before the first job.
	 */
	if (ctx->task_hint != max_tasks)
		weave_eng_job_set_task_hint(ctx, max_tasks);
	bs = kzalloc(sizeof(*bs), GFP_KERNEL_ACCOUNT);
	if (!bs)
		return ERR_PTR(-ENOMEM);
	kref_init(&bs->ref);
	bs->ctx = ctx;
	bs->slot = slot;
	bs->queue = &engine->queues[slot % engine->num_queues];
	bs->sched_list[0] = &bs->queue->sched;
	bs->fence_context = dma_fence_context_alloc(WEAVE_NUM_PRIOS);
	for (p = 0; p < WEAVE_NUM_PRIOS; p++) {
		ret = drm_sched_entity_init(&bs->entity[p], weave_prio_map[p],
					    bs->sched_list, 1, NULL);
		if (ret) {
			while (p--)
				drm_sched_entity_destroy(&bs->entity[p]);
			kfree(bs);
			return ERR_PTR(ret);
		}
	}
	kref_get(&ctx->ref);
	return bs;
}

/*
 * Drop the client's reference: the backend stream and its entities go once
 * its last job is freed, and the client does not wait for that.  See "DOC:
 * soft engine", Lifetimes.
 */
static void weave_engine_destroy_stream(void *backend,
					struct weave_bstream *bs)
{
	kref_put(&bs->ref, weave_eng_bstream_release);
}

/**
 * weave_eng_etask_fill() - Encode a task.
 * @t: The encoded task to fill.
 * @task: The task.
 * @more: The array for its bindings past %WEAVE_ETASK_BINDINGS, or NULL.
 *
 * Takes no reference: the job (or template) that @t is part of holds the
 * buffers.  A host write's staging is left to the caller.
 */
void weave_eng_etask_fill(struct weave_etask *t, const struct weave_entry *task,
			  struct weave_ebinding *more)
{
	const struct weave_binding *b = weave_core_entry_bindings(task);
	struct weave_ebinding *eb;
	u32 i;

	t->kind = task->kind;
	t->kernel = task->kernel_id;
	t->arg = 0;
	if (task->uniform_len >= 4)
		memcpy(&t->arg, weave_core_entry_uniforms(task), 4);
	/* A task a capture window refused runs as one we had to refuse. */
	t->refused = task->refuse != 0;
	t->cause = 0;
	if (t->refused) {
		t->arg = -task->refuse;
		t->cause = DRM_WEAVE_FAILURE_CAPTURE;
	}
	t->more = more;
	t->nb = task->num_bindings;
	t->label = task->label;
	for (i = 0; i < task->num_bindings; i++) {
		eb = weave_eng_etask_binding(t, i);
		eb->shmem = to_drm_gem_shmem_obj(b[i].bo);
		eb->offset = b[i].offset;
		eb->size = b[i].size;
		t->access[i] = b[i].access;
	}
}

/**
 * weave_eng_job_take_gates() - Move a slot's pending gates to a job.
 * @job: The job, with room for them in its dependencies.
 * @slot: The slot, whose tasks the job takes.
 *
 * Context: The client's mutex held.
 */
void weave_eng_job_take_gates(struct weave_job *job, u32 slot)
{
	struct weave_ectx *ctx = job->ctx;
	struct weave_eslot *es = &ctx->slots[slot];

	__set_bit(slot, job->slots);
	ctx->ngates -= es->ngates;
	while (es->ngates)
		job->deps[job->ndeps++] = es->gates[--es->ngates];
}

/*
 * Append @task to @job, which has room for it and for its slot's gates
 * (weave_eng_job_reserve()), with @more, the array for its bindings past
 * %WEAVE_ETASK_BINDINGS, or NULL.  Cannot fail.
 *
 * Return: The encoded task.
 */
static struct weave_etask *weave_job_encode(struct weave_job *job,
					    const struct weave_entry *task,
					    struct weave_ebinding *more,
					    struct weave_failures *failures)
{
	const struct weave_binding *b = weave_core_entry_bindings(task);
	struct weave_ectx *ctx = job->ctx;
	struct weave_eslot *es = &ctx->slots[task->slot];
	struct weave_insync *insync;
	struct weave_tally *tally;
	struct weave_lstream *ls;
	struct weave_etask *t;
	u32 i;

	weave_eng_job_take_gates(job, task->slot);
	insync = list_empty(&es->insyncs) ? NULL :
		 weave_eng_eslot_insync(es, task->seqno);
	tally = job->ntallies ? &job->tallies[job->ntallies - 1] : NULL;
	if (tally && tally->ls->handle == task->stream &&
	    tally->first_seqno + tally->count == task->stream_seqno &&
	    tally->insync == insync) {
		if (insync)
			/* The tally holds one. */
			weave_eng_insync_put(insync);
	} else {
		/* Destroying a stream executes its slot first: it is there. */
		ls = xa_load(&ctx->streams, task->stream);
		tally = &job->tallies[job->ntallies++];
		kref_get(&ls->ref);
		tally->ls = ls;
		tally->count = 0;
		tally->first_seqno = task->stream_seqno;
		tally->insync = insync;
		job->prio = max(job->prio, ls->priority);
	}
	tally->count++;
	t = &job->tasks[job->ntasks++];
	weave_eng_etask_fill(t, task, more);
	job->failures = failures;
	for (i = 0; i < task->num_bindings; i++) {
		struct drm_gem_object *obj = b[i].bo;

		if (job->nbos && job->bos[job->nbos - 1].obj == obj) {
			job->bos[job->nbos - 1].access |= b[i].access;
			continue;
		}
		/* The task's tracking record holds a pin: the job takes one. */
		drm_gem_object_get(obj);
		weave_eng_bo_pin_get(obj);
		job->bos[job->nbos].obj = obj;
		job->bos[job->nbos++].access = b[i].access;
	}
	if (task->kind == WEAVE_TASK_HOST_WRITE)
		t->data = weave_core_entry_data(task);
	job->pending++;
	return t;
}

/*
 * A task that enqueue refused, where the core cannot keep it queued, still
 * takes its place on @bs: the client's reserve becomes a job of @bs, after
 * every job not yet pushed, and the task is encoded into it as a task that
 * does not run, with @err, whose write set the worker gives a new failure
 * (see "DOC: failure propagation").  A host write's staging is freed now.
 * A new reserve is made at once if memory allows; else by the next
 * ENQUEUE, which fails with -ENOMEM if it cannot.
 *
 * Only without a reserve (two refusals in one ENQUEUE, and no memory for
 * a new one in between) does the task fail its stream, the last resort:
 * the stream is marked failed with @err and the task counts as executed
 * and completed, so the stream's counters still add up.
 */
static void weave_engine_fail(void *backend, struct weave_bstream *bs,
			      const struct weave_entry *task, int err,
			      struct weave_failures *failures)
{
	struct weave_ectx *ctx = backend;
	struct weave_eslot *es = &ctx->slots[task->slot];
	struct weave_ebinding *more;
	struct weave_lstream *ls;
	struct weave_etask *t;
	struct weave_job *job;

	job = weave_eng_job_take_reserve(bs, task, es->ngates, &more);
	if (job) {
		list_add_tail(&job->link, &ctx->unpushed);
		t = weave_job_encode(job, task, more, failures);
		t->refused = true;
		t->arg = -err;
		t->cause = DRM_WEAVE_FAILURE_ENCODE;
		if (task->kind == WEAVE_TASK_HOST_WRITE) {
			weave_eng_staging_free(ctx, t->data,
					       weave_core_entry_len(task));
			t->data = NULL;
		}
		weave_eng_ctx_reserve(ctx);
		return;
	}

	ls = xa_load(&ctx->streams, task->stream);
	weave_eng_staging_free(ctx, weave_core_entry_data(task),
			       weave_core_entry_len(task));
	atomic64_dec(&ctx->pending_tasks);
	atomic_cmpxchg(&ls->error, 0, err);
	atomic64_inc(&ls->executed);
	weave_eng_lstream_completed(ls, 1);
	weave_eng_ctx_done(ctx);
}

/* A task the core cancels at close: only its staging is left to free. */
static void weave_engine_drop(void *backend, const struct weave_entry *task)
{
	weave_eng_staging_free(backend, weave_core_entry_data(task),
			       weave_core_entry_len(task));
}

static int weave_engine_enqueue(void *backend, struct weave_bstream *bs,
				const struct weave_entry *task,
				struct weave_failures *failures)
{
	struct weave_ectx *ctx = backend;
	struct weave_eslot *es = &ctx->slots[task->slot];
	struct weave_ebinding *more = NULL;
	struct weave_job *job;
	int ret;

	if (task->num_bindings > WEAVE_ETASK_BINDINGS) {
		more = kmalloc_array(task->num_bindings - WEAVE_ETASK_BINDINGS,
				     sizeof(*more), GFP_KERNEL_ACCOUNT);
		if (!more)
			return -ENOMEM;
	}

	/*
	 * The task joins the newest unpushed job if that one is @bs's, so
	 * that unpushed jobs stay in the order of their tasks, and borrows
	 * no template's (see "DOC: job templates").
	 */
	job = list_empty(&ctx->unpushed) ? NULL :
		list_last_entry(&ctx->unpushed, struct weave_job, link);
	if (!job || job->bs != bs || job->tmpl) {
		job = weave_eng_job_alloc(bs);
		if (!job) {
			kfree(more);
			return -ENOMEM;
		}
		list_add_tail(&job->link, &ctx->unpushed);
	}

	/* Refused: the task stays the core's, the job as it was. */
	ret = weave_eng_job_reserve(job, task, es->ngates);
	if (ret) {
		kfree(more);
		if (!job->ntasks) {
			list_del(&job->link);
			weave_eng_job_free(job);
		}
		return ret;
	}
	weave_job_encode(job, task, more, failures);
	return 0;
}

/*
 * Push every job of the client not yet pushed, oldest first, whichever
 * backend stream each was made for: jobs held by an earlier failed flush
 * go before the one just encoded for @bs, so no order is broken.  At the
 * first that cannot be pushed the rest stay, in order, for a later flush.
 */
static int weave_engine_flush(void *backend, struct weave_bstream *bs,
			      struct weave_failures *failures)
{
	struct weave_ectx *ctx = backend;
	struct weave_job *job, *tmp;
	int ret;

	list_for_each_entry_safe(job, tmp, &ctx->unpushed, link) {
		ret = weave_eng_job_push(job);
		if (ret)
			return ret;
	}
	return 0;
}

/* An execution starts: observed while the weave_exec event is on. */
static bool weave_engine_observe(void *backend)
{
	struct weave_ectx *ctx = backend;

	if (!trace_weave_exec_enabled())
		return false;
	ctx->exec_jobs = atomic64_read(&ctx->submitted_jobs);
	return true;
}

/* The observed execution @ex is done: its event, with the jobs it pushed. */
static void weave_engine_executed(void *backend,
				  const struct weave_core_exec *ex)
{
	struct weave_ectx *ctx = backend;

	trace_weave_exec(ctx->id, ex->stream, ex->strategy, ex->slots,
			 ex->tasks,
			 atomic64_read(&ctx->submitted_jobs) - ctx->exec_jobs);
}

/*
 * The soft engine as a backend of the scheduler core.  The backend context
 * is the client's &struct weave_ectx.
 */
const struct weave_backend_ops weave_eng_ops = {
	.enqueue = weave_engine_enqueue,
	.fail = weave_engine_fail,
	.drop = weave_engine_drop,
	.flush = weave_engine_flush,
	.create_stream = weave_engine_create_stream,
	.destroy_stream = weave_engine_destroy_stream,
	.observe = weave_engine_observe,
	.executed = weave_engine_executed,
	/* No reason of its own: isolation is the core's, "DOC: Isolation". */
};

/**
 * weave_eng_ctx_abort() - Cut a client's work short.
 * @ctx: The client's engine context.
 * @err: The negative errno the work fails with: -ECANCELED when the client
 *	closes, -ENODEV when its device is unplugged.  Only the first abort
 *	of a context sets it; a later one finds nothing left to do.
 *
 * A job not yet pushed (one whose flush failed) is dropped.  Running jobs
 * of the client stop before their next task and jobs not yet run skip
 * their tasks, all with the errno; every gate whose in-fence has not
 * signalled signals now with it.  Afterwards no job of the client waits on
 * anything but other jobs.
 *
 * Context: The client's mutex held.
 */
void weave_eng_ctx_abort(struct weave_ectx *ctx, int err)
{
	struct weave_engine *engine = ctx->engine;
	struct weave_gate *gate;
	u32 i;

	atomic_cmpxchg(&ctx->aborted, 0, err);
	err = atomic_read(&ctx->aborted);
	while (!list_empty(&ctx->unpushed)) {
		struct weave_job *job = list_first_entry(&ctx->unpushed,
							 struct weave_job,
							 link);

		list_del(&job->link);
		weave_eng_job_free(job);
	}
	for (i = 0; i < engine->num_queues; i++)
		wake_up_all(&engine->queues[i].abort_wq);
	wake_up_all(&ctx->done_wq);

	for (;;) {
		spin_lock_irq(&ctx->gate_lock);
		gate = list_first_entry_or_null(&ctx->gates, struct weave_gate,
						link);
		if (gate)
			list_del_init(&gate->link);
		spin_unlock_irq(&ctx->gate_lock);
		if (!gate)
			break;
		/* The list's reference is ours now. */
		dma_fence_remove_callback(gate->in, &gate->cb);
		weave_eng_gate_fire(gate, err);
		dma_fence_put(&gate->f.base);
	}
}

/**
 * weave_eng_ctx_held() - Whether the client has tasks its flush could not push.
 * @ctx: The client's engine context.
 *
 * Context: The client's mutex held, outside of the scheduler core.
 * Return: True if a job is pending: a flush failed and the next one will
 * push it.
 */
bool weave_eng_ctx_held(struct weave_ectx *ctx)
{
	return !list_empty(&ctx->unpushed);
}
