// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the soft engine's jobs: allocation, growth as tasks are appended,
 * and freeing, with the release of their tasks' staging.
 */

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <drm/drm_gem.h>

#include "weave_engine.h"
#include "weave_fence.h"
#include "weave_job.h"
#include "weave_lists.h"
#include "weave_queue.h"

/*
 * Free the staging of every task of @job and take its tasks off the
 * client's pending count; idempotent.
 */
void weave_job_release_tasks(struct weave_job *job)
{
	struct weave_ectx *ctx = job->ctx;
	struct weave_etask *t;
	u32 i;

	for (i = 0; i < job->ntasks; i++) {
		t = &job->tasks[i];
		if (t->kind == WEAVE_TASK_HOST_WRITE)
			weave_staging_free(ctx, t->data, t->b[0].size);
		else
			kfree(t->more);
		t->data = NULL;
	}
	atomic64_sub(job->pending, &ctx->pending_tasks);
	job->pending = 0;
}

/* Count @n more entries of job task arrays in &weave_ectx.job_bytes. */
static void weave_job_bytes_add(struct weave_ectx *ctx, u32 n)
{
	atomic64_add((u64)n * sizeof(struct weave_etask), &ctx->job_bytes);
}

/* Count @n entries of job task arrays fewer. */
void weave_job_bytes_sub(struct weave_ectx *ctx, u32 n)
{
	atomic64_sub((u64)n * sizeof(struct weave_etask), &ctx->job_bytes);
}

/*
 * Free a job and drop its module reference, a grace period after
 * weave_job_free(), which thus never runs after the module_put(); module
 * exit waits for this callback with rcu_barrier().
 */
static void weave_job_free_rcu(struct rcu_head *rcu)
{
	kfree(container_of(rcu, struct weave_job, rcu));
	module_put(THIS_MODULE);
}

/*
 * Free what the job holds.  A pushed job's scheduler job is cleaned up
 * already; one never pushed has none.
 */
void weave_job_free(struct weave_job *job)
{
	struct weave_ectx *ctx = job->ctx;
	u32 i;

	weave_job_release_tasks(job);
	for (i = 0; i < job->ntallies; i++) {
		weave_lstream_put(job->tallies[i].ls);
		weave_insync_put(job->tallies[i].insync);
	}
	if (job->tallies != job->tally0)
		kvfree(job->tallies);
	/*
	 * Keep one task array for the next job: allocations are zeroed.  It
	 * stays counted in job_bytes; an array freed below leaves it.
	 */
	if (job->ctasks == ctx->task_hint &&
	    !cmpxchg(&ctx->spare_tasks, NULL, job->tasks))
		job->tasks = NULL;
	if (job->tasks)
		weave_job_bytes_sub(ctx, job->ctasks);
	for (i = 0; i < job->nbos; i++)
		drm_gem_object_put(job->bos[i].obj);
	for (i = 0; i < job->ndeps; i++)
		dma_fence_put(job->deps[i]);
	if (job->started)
		dma_fence_put(&job->hw->base);
	else
		kfree(job->hw);
	weave_proxy_put(job->proxy);
	kvfree(job->tasks);
	kvfree(job->bos);
	kvfree(job->objs);
	if (job->deps != job->dep0)
		kvfree(job->deps);
	/* The last job of a destroyed backend stream frees it. */
	kref_put(&job->bs->ref, weave_bstream_release);
	atomic64_dec(&ctx->jobs);
	weave_ectx_put(ctx);
	/* The last thing done here: see "DOC: fences", Unload. */
	call_rcu(&job->rcu, weave_job_free_rcu);
}

struct weave_job *weave_job_alloc(struct weave_bstream *bs)
{
	struct weave_ectx *ctx = bs->ctx;
	struct weave_job *job;

	job = kzalloc(struct_size(job, slots, BITS_TO_LONGS(ctx->max_streams)),
		      GFP_KERNEL_ACCOUNT);
	if (!job)
		return NULL;
	job->hw = kzalloc(sizeof(*job->hw), GFP_KERNEL_ACCOUNT);
	job->proxy = weave_proxy_create();
	if (job->proxy)
		job->proxy->owner = ctx->id;
	/* The spare has task_hint entries and is counted already. */
	job->tasks = xchg(&ctx->spare_tasks, NULL);
	if (!job->tasks) {
		job->tasks = kvmalloc_array(ctx->task_hint,
					    sizeof(*job->tasks),
					    GFP_KERNEL_ACCOUNT);
		if (job->tasks)
			weave_job_bytes_add(ctx, ctx->task_hint);
	}
	if (!job->hw || !job->proxy || !job->tasks) {
		if (job->tasks)
			weave_job_bytes_sub(ctx, ctx->task_hint);
		kfree(job->hw);
		weave_proxy_put(job->proxy);
		kvfree(job->tasks);
		kfree(job);
		return NULL;
	}
	job->ctasks = ctx->task_hint;
	job->tallies = job->tally0;
	job->ctallies = ARRAY_SIZE(job->tally0);
	job->deps = job->dep0;
	job->cdeps = ARRAY_SIZE(job->dep0);
	atomic64_inc(&ctx->jobs);
	__module_get(THIS_MODULE);
	kref_get(&ctx->ref);
	kref_get(&bs->ref);
	job->ctx = ctx;
	job->bs = bs;
	job->queue = bs->queue;
	INIT_WORK(&job->work, weave_job_work);
	return job;
}

/* Make room in @job for @task and the @ndeps dependencies it brings. */
int weave_job_reserve(struct weave_job *job,
		      const struct weave_task *task, u32 ndeps)
{
	struct weave_ectx *ctx = job->ctx;
	u32 need = job->nbos + task->num_bindings;
	u32 cap = job->ctasks, cobjs = job->cbos;
	int ret;

	/* The common case, with room for everything: no call at all. */
	if (job->ntasks < job->ctasks && need <= job->cbos &&
	    job->ntallies < job->ctallies && job->ndeps + ndeps <= job->cdeps)
		return 0;
	ret = weave_grow((void **)&job->tasks, &job->ctasks, job->ntasks + 1,
			 sizeof(*job->tasks));
	if (job->ctasks != cap)
		weave_job_bytes_add(ctx, job->ctasks - cap);
	/* @objs has the capacity of @bos: grow it first. */
	if (!ret)
		ret = weave_grow((void **)&job->objs, &cobjs, need,
				 sizeof(*job->objs));
	if (!ret)
		ret = weave_grow((void **)&job->bos, &job->cbos, cobjs,
				 sizeof(*job->bos));
	if (!ret)
		ret = weave_grow_from((void **)&job->tallies, &job->ctallies,
				      job->ntallies + 1, sizeof(*job->tallies),
				      job->tally0);
	if (!ret)
		ret = weave_grow_from((void **)&job->deps, &job->cdeps,
				      job->ndeps + ndeps, sizeof(*job->deps),
				      job->dep0);
	return ret;
}
