// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the recycling of a client's freed jobs and of their task arrays,
 * which its next jobs reuse instead of allocating (and clearing) anew, and
 * the count of the bytes of those arrays.
 */

#include <linux/atomic.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "weave_engine.h"
#include "weave_fence.h"
#include "weave_job.h"
#include "weave_job_cache.h"

/**
 * DOC: job recycling
 *
 * A client's freed jobs do not go back to the slab: up to
 * %WEAVE_JOB_CACHE of them wait in &weave_ectx.job_cache for its next
 * jobs, each with its arrays of buffers, dependencies and tallies (when
 * they are small: at most %WEAVE_JOB_CACHE_ENTRIES entries) and, if it
 * never ran, its hardware fence.  A job that ran leaves its hardware
 * fence to the scheduler's fences, which hold it, and its proxy to the
 * reservation objects: fences are not recycled.
 *
 * Task arrays are kept apart, up to %WEAVE_SPARE_TASKS of them in
 * &weave_ectx.spare_tasks, and counted in the client's usage: enough for
 * the jobs a client builds while its last ones run, whose arrays come back
 * only once those jobs are freed.  A spare has &weave_ectx.task_hint
 * entries, and a new job takes one whatever its size (a small job's own
 * array would be allocated and cleared; with none spare, it gets one of
 * its size, which is not kept); a change of the hint frees the spares,
 * under &weave_ectx.spare_lock, so that no array of the old size is kept
 * after.
 *
 * The memory stays charged to the cgroup that allocated it
 * (%GFP_KERNEL_ACCOUNT), and is freed with the context, once the client
 * has closed its file and its last job is freed.  A cached job holds no
 * module reference, so the module's reference count while a client is
 * idle is what it was without the cache: a job that goes to the cache
 * drops its own with module_put() as the last thing weave_eng_job_free()
 * does, after which it runs no module code but its return, which module
 * exit's synchronize_rcu_tasks() waits for (see "DOC: fences", Unload);
 * the job's allocation takes one again when it is reused.
 *
 * Any thread that frees a job may add it to the cache; only the client's
 * allocations take from it, under the client's mutex: the llist's one
 * consumer.
 */

/* Freed jobs a client keeps for reuse. */
#define WEAVE_JOB_CACHE		8
/* The most entries of each array a cached job keeps. */
#define WEAVE_JOB_CACHE_ENTRIES	64

/**
 * weave_eng_job_bytes_add() - Count job task array entries in the usage.
 * @ctx: The client's engine context.
 * @n: Entries allocated, added to &weave_ectx.job_bytes.
 */
void weave_eng_job_bytes_add(struct weave_ectx *ctx, u32 n)
{
	atomic64_add((u64)n * sizeof(struct weave_etask), &ctx->job_bytes);
}

/**
 * weave_eng_job_bytes_sub() - Count job task array entries no more.
 * @ctx: The client's engine context.
 * @n: Entries freed, taken from &weave_ectx.job_bytes.
 */
void weave_eng_job_bytes_sub(struct weave_ectx *ctx, u32 n)
{
	atomic64_sub((u64)n * sizeof(struct weave_etask), &ctx->job_bytes);
}

/**
 * weave_eng_job_free_arrays() - Free a job's arrays of buffers,
 * dependencies and tallies, and its hardware fence.
 * @job: The job, about to be freed.
 */
void weave_eng_job_free_arrays(struct weave_job *job)
{
	kfree(job->hw);
	kvfree(job->bos);
	kvfree(job->objs);
	if (job->deps != job->dep0)
		kvfree(job->deps);
	if (job->tallies != job->tally0)
		kvfree(job->tallies);
}

/**
 * weave_eng_job_recycle() - Keep a freed job for the client's next one.
 * @ctx: The client's engine context.
 * @job: The job, which holds nothing any more but its arrays and its
 *	unused hardware fence.
 *
 * Context: Any thread that frees a job.
 * Return: true if it is kept: then @job is the cache's, and may be reused
 * or freed at once.
 */
bool weave_eng_job_recycle(struct weave_ectx *ctx, struct weave_job *job)
{
	if (atomic_inc_return(&ctx->job_cached) > WEAVE_JOB_CACHE) {
		atomic_dec(&ctx->job_cached);
		return false;
	}
	if (job->cbos > WEAVE_JOB_CACHE_ENTRIES) {
		kvfree(job->bos);
		kvfree(job->objs);
		job->bos = NULL;
		job->objs = NULL;
		job->cbos = 0;
	}
	if (job->cdeps > WEAVE_JOB_CACHE_ENTRIES) {
		kvfree(job->deps);
		job->deps = job->dep0;
		job->cdeps = ARRAY_SIZE(job->dep0);
	}
	if (job->ctallies > WEAVE_JOB_CACHE_ENTRIES) {
		kvfree(job->tallies);
		job->tallies = job->tally0;
		job->ctallies = ARRAY_SIZE(job->tally0);
	}
	llist_add(&job->cache, &ctx->job_cache);
	return true;
}

/**
 * weave_eng_job_reuse() - A job of the client's cache.
 * @ctx: The client's engine context.
 * @size: The bytes of the job to zero.
 *
 * Context: The client's mutex held: the cache's one consumer.
 * Return: The job, zeroed but for the arrays and fence it kept, or NULL
 * if the cache is empty.
 */
struct weave_job *weave_eng_job_reuse(struct weave_ectx *ctx, size_t size)
{
	struct llist_node *node = llist_del_first(&ctx->job_cache);
	struct weave_job *job, keep;

	if (!node)
		return NULL;
	atomic_dec(&ctx->job_cached);
	job = llist_entry(node, struct weave_job, cache);
	keep = *job;
	memset(job, 0, size);
	job->bos = keep.bos;
	job->objs = keep.objs;
	job->cbos = keep.cbos;
	job->deps = keep.deps == keep.dep0 ? job->dep0 : keep.deps;
	job->cdeps = keep.cdeps;
	job->tallies = keep.tallies == keep.tally0 ? job->tally0 :
						     keep.tallies;
	job->ctallies = keep.ctallies;
	job->hw = keep.hw;
	if (job->hw)
		memset(job->hw, 0, sizeof(*job->hw));
	return job;
}

/**
 * weave_eng_job_cache_free() - Free the jobs of a context's cache.
 * @first: The first of them, from llist_del_all().
 */
void weave_eng_job_cache_free(struct llist_node *first)
{
	struct weave_job *job, *next;

	llist_for_each_entry_safe(job, next, first, cache) {
		weave_eng_job_free_arrays(job);
		kfree(job);
	}
}

/**
 * weave_eng_job_spare_put() - Keep a freed job's task array.
 * @job: The job, being freed.
 *
 * Keeps its task array for the client's next jobs if it has
 * &weave_ectx.task_hint entries and there is room: the array then leaves
 * @job, and stays counted in &weave_ectx.job_bytes.
 *
 * Context: Any thread that frees a job.
 */
void weave_eng_job_spare_put(struct weave_job *job)
{
	struct weave_ectx *ctx = job->ctx;
	unsigned long flags;

	spin_lock_irqsave(&ctx->spare_lock, flags);
	if (job->ctasks == ctx->task_hint && ctx->nspare < WEAVE_SPARE_TASKS) {
		ctx->spare_tasks[ctx->nspare++] = job->tasks;
		job->tasks = NULL;
	}
	spin_unlock_irqrestore(&ctx->spare_lock, flags);
}

/**
 * weave_eng_job_spare_take() - A spare task array for a new job.
 * @ctx: The client's engine context.
 *
 * Context: The client's mutex held.
 * Return: An array of &weave_ectx.task_hint entries, counted in
 * &weave_ectx.job_bytes already, or NULL.
 */
void *weave_eng_job_spare_take(struct weave_ectx *ctx)
{
	unsigned long flags;
	void *tasks = NULL;

	spin_lock_irqsave(&ctx->spare_lock, flags);
	if (ctx->nspare)
		tasks = ctx->spare_tasks[--ctx->nspare];
	spin_unlock_irqrestore(&ctx->spare_lock, flags);
	return tasks;
}

/**
 * weave_eng_job_set_task_hint() - Size new jobs' task arrays.
 * @ctx: The client's engine context.
 * @task_hint: Tasks a new job has room for: the threshold the core gave
 *	create_stream.
 *
 * Frees the spare task arrays, which have the old size.
 *
 * Context: The client's mutex held.
 */
void weave_eng_job_set_task_hint(struct weave_ectx *ctx, u32 task_hint)
{
	void *spare[WEAVE_SPARE_TASKS];
	unsigned long flags;
	u32 i, n, old;

	spin_lock_irqsave(&ctx->spare_lock, flags);
	n = ctx->nspare;
	memcpy(spare, ctx->spare_tasks, n * sizeof(spare[0]));
	ctx->nspare = 0;
	old = ctx->task_hint;
	ctx->task_hint = task_hint;
	spin_unlock_irqrestore(&ctx->spare_lock, flags);
	for (i = 0; i < n; i++) {
		weave_eng_job_bytes_sub(ctx, old);
		kvfree(spare[i]);
	}
}

/**
 * weave_eng_job_spares_free() - Free a context's spare task arrays.
 * @ctx: The context, being released.
 */
void weave_eng_job_spares_free(struct weave_ectx *ctx)
{
	u32 i;

	for (i = 0; i < ctx->nspare; i++)
		kvfree(ctx->spare_tasks[i]);
	ctx->nspare = 0;
}
