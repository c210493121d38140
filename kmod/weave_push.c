// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the push of a soft-engine job to its scheduler entity: its
 * dependencies, its buffers' reservations and proxy, and its run at the
 * push when nothing may run before it.
 */

#include <linux/bitmap.h>
#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/kcov.h>
#include <linux/list.h>
#include <linux/ww_mutex.h>
#include <linux/xarray.h>

#include <drm/drm_gem.h>
#include <drm/gpu_scheduler.h>

#include "weave_compat.h"
#include "weave_engine.h"
#include "weave_fence.h"
#include "weave_job.h"
#include "weave_lists.h"
#include "weave_push.h"
#include "weave_queue.h"
#include "weave_trace.h"

/*
 * Sort the job's buffers, merge duplicates and their access, and list the
 * objects for the reservation helpers in @objs, which has room.
 */
static void weave_job_uniq_bos(struct weave_job *job)
{
	u32 i, n = weave_core_jbos_merge(job->bos, job->nbos);

	for (i = n; i < job->nbos; i++)
		weave_eng_job_put_bo(job->bos[i].obj);
	job->nbos = n;
	for (i = 0; i < n; i++)
		job->objs[i] = job->bos[i].obj;
}

/*
 * Make @job follow what its use of @obj must follow: the fences of @obj's
 * reservation that a write (or a read) waits for.  The job waits for the
 * client's own jobs directly, and for any other fence (another client's
 * work, another driver's) through a gate, added to @gates with a reference
 * and not armed yet.  The client's abort fires its gates, so a closed
 * client's jobs never wait for someone else's.
 *
 * Context: @obj's reservation held.
 */
static int weave_job_add_implicit(struct weave_job *job,
				  struct drm_gem_object *obj, bool write,
				  struct list_head *gates)
{
	struct weave_ectx *ctx = job->ctx;
	struct dma_resv_iter cursor;
	struct weave_gate *gate;
	struct dma_fence *f;
	int ret;

	dma_resv_for_each_fence(&cursor, obj->resv, dma_resv_usage_rw(write),
				f) {
		if (dma_fence_is_signaled(f))
			continue;
		if (weave_eng_fence_owner(f) == ctx->id) {
			ret = drm_sched_job_add_dependency(&job->base,
							   dma_fence_get(f));
			if (ret)
				return ret;
			continue;
		}
		gate = weave_eng_gate_create(ctx, dma_fence_get(f));
		if (!gate) {
			dma_fence_put(f);
			return -ENOMEM;
		}
		/* One reference for the job, one for @gates. */
		ret = drm_sched_job_add_dependency(&job->base,
						   dma_fence_get(&gate->f.base));
		list_add_tail(&gate->link, gates);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Push step: the job's dependencies on the scheduler job, each slot's last
 * pushed job and the job's own (gates), with references of their own.
 */
static int weave_job_add_deps(struct weave_job *job)
{
	struct weave_ectx *ctx = job->ctx;
	u32 i, s;
	int ret;

	/*
	 * Each slot's FIFO: the slot's last pushed job.  Taken now, not when
	 * the job took its first task of the slot, as a job pushed since then
	 * (one that was held) may have become it.
	 */
	for_each_set_bit(s, job->slots, ctx->max_streams) {
		struct dma_fence *last = ctx->slots[s].last;

		if (!last || dma_fence_is_signaled(last))
			continue;
		ret = drm_sched_job_add_dependency(&job->base,
						   dma_fence_get(last));
		if (ret)
			return ret;
	}
	/* The job keeps its own references until it is pushed. */
	for (i = 0; i < job->ndeps; i++) {
		ret = drm_sched_job_add_dependency(&job->base,
						   dma_fence_get(job->deps[i]));
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Push step: lock the job's buffers, take their implicit dependencies
 * (@gates collects the gates made for foreign fences) and room for a fence
 * each.  On success the buffers stay locked under @acquire.
 */
static int weave_job_lock_bos(struct weave_job *job,
			      struct ww_acquire_ctx *acquire,
			      struct list_head *gates)
{
	u32 i;
	int ret;

	/* Interruptible: a signal leaves the job to a later flush. */
	ret = drm_gem_lock_reservations(job->objs, job->nbos, acquire);
	if (ret)
		return ret;
	for (i = 0; i < job->nbos; i++) {
		struct drm_gem_object *obj = job->objs[i];
		bool write = job->bos[i].access & WEAVE_ACCESS_WRITE;

		ret = weave_job_add_implicit(job, obj, write, gates);
		if (!ret)
			ret = dma_resv_reserve_fences(obj->resv, 1);
		if (ret) {
			drm_gem_unlock_reservations(job->objs, job->nbos,
						    acquire);
			return ret;
		}
	}
	return 0;
}

/*
 * The weave_job_dep events of @job, armed and not pushed yet: each fence of
 * another job (through a buffer) or of an in-sync that it waits for.
 */
static void weave_job_trace_deps(struct weave_job *job)
{
	struct dma_fence *finished = &job->base.s_fence->finished;
	struct dma_fence *f, *dep;
	unsigned long i;

	xa_for_each(&job->base.dependencies, i, f) {
		dep = weave_eng_fence_waited(f, job->ctx->id);
		if (dep)
			trace_weave_job_dep(job->ctx->id, finished->context,
					    finished->seqno, dep->context,
					    dep->seqno);
	}
}

/*
 * Whether each dependency of @job is signalled or stands for one of its
 * client's own jobs, all of whose tasks may have run: what an eager run
 * needs of its dependencies (see "DOC: hardware queues", Eager runs).  Its
 * own are a slot's last job, whose scheduler fence its client owns, and
 * the proxy of one through a buffer.  A gate, an in-sync or another
 * client's work, must have signalled.  One look per dependency.
 */
static bool weave_job_deps_settled(struct weave_job *job)
{
	struct drm_sched_fence *sf;
	struct dma_fence *f;
	unsigned long i;

	xa_for_each(&job->base.dependencies, i, f) {
		if (dma_fence_is_signaled(f) ||
		    weave_eng_fence_owner(f) == job->ctx->id)
			continue;
		sf = to_drm_sched_fence(f);
		if (!sf || sf->owner != job->ctx)
			return false;
	}
	return true;
}

/*
 * Push step, committed (nothing fails): arm the gates and the job, add its
 * proxy to its buffers' reservations (still locked under @acquire if it
 * has any) and make it each of its slots' last, run it now if it may
 * (weave_eng_queue_run_now()), then push it.
 */
static void weave_job_commit(struct weave_job *job,
			     struct ww_acquire_ctx *acquire,
			     struct list_head *gates)
{
	struct weave_ectx *ctx = job->ctx;
	struct dma_fence *finished, *out;
	struct weave_gate *gate, *tmp;
	bool settled;
	u32 i, s;

	list_del(&job->link);
	list_for_each_entry_safe(gate, tmp, gates, link) {
		list_del_init(&gate->link);
		weave_eng_gate_arm(ctx, gate);
		dma_fence_put(&gate->f.base);
	}
	job->kcov_handle = ctx->kcov_handle ?: kcov_common_handle();
	drm_sched_job_arm(&job->base);
	finished = &job->base.s_fence->finished;
	if (trace_weave_job_push_enabled())
		trace_weave_job_push(ctx->id, weave_eng_job_stream(job),
				     job->queue - ctx->engine->queues,
				     finished->context, finished->seqno,
				     job->ntasks, 0);
	if (trace_weave_job_dep_enabled())
		weave_job_trace_deps(job);
	/* The next point of the entity's timeline, in push order. */
	out = weave_eng_proxy_attach_at(job->proxy, dma_fence_get(finished),
					job->bs->fence_context + job->prio,
					++job->bs->fence_seqno[job->prio]);
	job->proxy = NULL;
	for (i = 0; i < job->nbos; i++)
		dma_resv_add_fence(job->objs[i]->resv, out,
				   job->bos[i].access & WEAVE_ACCESS_WRITE ?
				   DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_READ);
	if (job->nbos)
		drm_gem_unlock_reservations(job->objs, job->nbos, acquire);
	dma_fence_put(out);

	while (job->ndeps)
		dma_fence_put(job->deps[--job->ndeps]);
	for (i = 0; i < job->ntallies; i++)
		atomic64_add(job->tallies[i].count,
			     &job->tallies[i].ls->executed);
	settled = weave_job_deps_settled(job);
	for_each_set_bit(s, job->slots, ctx->max_streams) {
		dma_fence_put(ctx->slots[s].last);
		ctx->slots[s].last = dma_fence_get(finished);
	}
	atomic64_inc(&ctx->submitted_jobs);
	atomic_inc(&ctx->queued_jobs[job->queue - ctx->engine->queues]);
	if (!job->tmpl)
		job->bs->last_tasks = job->ntasks;
	if (!weave_eng_queue_run_now(job, settled)) {
		job->unrun = true;
		atomic_inc(&ctx->unrun);
	}
	drm_sched_entity_push_job(&job->base);
}

/**
 * weave_eng_job_push() - Push a job to its entity.
 * @job: The job, encoded and not pushed yet.
 *
 * Every allocation but the scheduler's own (its job, dependency and
 * reservation slots) was made at enqueue.  If one of those fails, the job
 * is left as it was and a later flush pushes it.
 *
 * Context: The client's mutex held.
 * Return: 0, or the negative errno with which the job stays unpushed.
 */
int weave_eng_job_push(struct weave_job *job)
{
	struct ww_acquire_ctx acquire;
	struct weave_gate *gate, *tmp;
	LIST_HEAD(gates);
	int ret;

	weave_job_uniq_bos(job);
	ret = weave_compat_sched_job_init(&job->base,
					  &job->bs->entity[job->prio],
					  job->ctx);
	if (ret)
		return ret;
	ret = weave_job_add_deps(job);
	if (!ret && job->nbos)
		ret = weave_job_lock_bos(job, &acquire, &gates);
	if (!ret) {
		weave_job_commit(job, &acquire, &gates);
		return 0;
	}

	list_for_each_entry_safe(gate, tmp, &gates, link) {
		list_del_init(&gate->link);
		dma_fence_put(&gate->f.base);
	}
	/* Drops the scheduler's job and its dependencies, not the job's. */
	drm_sched_job_cleanup(&job->base);
	return ret;
}

