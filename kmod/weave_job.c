// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the soft engine's jobs and what they hold: their allocation,
 * growth and freeing (their recycling is weave_job_cache.c's), and the
 * lifetimes of the engine context,
 * backend streams, logical streams and templates, which the last job lets
 * go of.
 */

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/dma-fence.h>
#include <linux/kref.h>
#include <linux/llist.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>

#include "weave_arena.h"
#include "weave_bo.h"
#include "weave_engine.h"
#include "weave_fence.h"
#include "weave_insync.h"
#include "weave_job.h"
#include "weave_job_cache.h"
#include "weave_lists.h"
#include "weave_staging.h"

/*
 * Free the staging of every task of @job and take its tasks off the
 * client's pending count; idempotent.
 */
void weave_eng_job_release_tasks(struct weave_job *job)
{
	struct weave_ectx *ctx = job->ctx;
	struct weave_etask *t;
	u32 i;

	/* A template's tasks are its own, and hold nothing of the job's. */
	for (i = 0; !job->tmpl && i < job->ntasks; i++) {
		t = &job->tasks[i];
		if (t->kind == WEAVE_TASK_HOST_WRITE)
			weave_eng_staging_free(ctx, t->data, t->b[0].size);
		else
			kfree(t->more);
		t->data = NULL;
	}
	atomic64_sub(job->pending, &ctx->pending_tasks);
	job->pending = 0;
}

/*
 * Free a job and drop its module reference, a grace period after
 * weave_eng_job_free(), which thus never runs after the module_put(); module
 * exit waits for this callback with rcu_barrier().
 */
static void weave_job_free_rcu(struct rcu_head *rcu)
{
	kfree(container_of(rcu, struct weave_job, rcu));
	module_put(THIS_MODULE);
}

/**
 * weave_eng_job_ran() - Count a pushed job's tasks as run.
 * @job: The job, its tasks all run or cut short, or freed without running.
 *
 * Takes it out of &weave_ectx.unrun once, if it was counted there.
 *
 * Context: The thread that ran the job, before it signals its hardware
 * fence; or the job's free.
 */
void weave_eng_job_ran(struct weave_job *job)
{
	if (job->unrun) {
		job->unrun = false;
		atomic_dec(&job->ctx->unrun);
	}
}

/**
 * weave_eng_job_put_bo() - Drop a job's pin and reference of a buffer.
 * @obj: The buffer.
 *
 * Context: Process context, no reservation lock held: it may sleep.
 */
void weave_eng_job_put_bo(struct drm_gem_object *obj)
{
	weave_eng_bo_unpin(obj);
	drm_gem_object_put(obj);
}

/*
 * Free what the job holds.  A pushed job's scheduler job is cleaned up
 * already; one never pushed has none.  The job itself goes to the client's
 * cache (see "DOC: job recycling") or is freed.
 */
void weave_eng_job_free(struct weave_job *job)
{
	struct weave_ectx *ctx = job->ctx;
	bool cached;
	u32 i;

	weave_eng_job_release_tasks(job);
	for (i = 0; i < job->ntallies; i++) {
		weave_eng_lstream_put(job->tallies[i].ls);
		weave_eng_insync_put(job->tallies[i].insync);
	}
	/*
	 * Keep the task array for the next jobs: allocations are zeroed.  It
	 * stays counted in job_bytes; an array freed below leaves it.
	 */
	if (job->tmpl) {
		weave_eng_template_put(job->tmpl);
		job->tasks = NULL;
	} else {
		weave_eng_job_spare_put(job);
	}
	if (job->tasks)
		weave_eng_job_bytes_sub(ctx, job->ctasks);
	for (i = 0; i < job->nbos; i++)
		weave_eng_job_put_bo(job->bos[i].obj);
	for (i = 0; i < job->ndeps; i++)
		dma_fence_put(job->deps[i]);
	weave_eng_job_ran(job);
	/*
	 * The hardware fence of a job that ran lives on in the scheduler's;
	 * one that ran eagerly and was never run_job's is let go here.
	 */
	if (job->started || job->eager) {
		dma_fence_put(&job->hw->base);
		job->hw = NULL;
	}
	weave_eng_proxy_put(job->proxy);
	kvfree(job->tasks);
	/* The last job of a destroyed backend stream frees it. */
	kref_put(&job->bs->ref, weave_eng_bstream_release);
	atomic64_dec(&ctx->jobs);
	/* Cached, @job may be reused or freed at once: not touched again. */
	cached = weave_eng_job_recycle(ctx, job);
	if (!cached)
		weave_eng_job_free_arrays(job);
	weave_eng_ctx_put(ctx);
	/* The last thing done here: see "DOC: fences", Unload. */
	if (cached)
		module_put(THIS_MODULE);
	else
		call_rcu(&job->rcu, weave_job_free_rcu);
}

/*
 * Make @job, allocated whole and not yet anyone's, a job of @bs: the
 * references it holds until weave_eng_job_free().
 */
static void weave_job_attach(struct weave_job *job, struct weave_bstream *bs)
{
	struct weave_ectx *ctx = bs->ctx;

	job->proxy->owner = ctx->id;
	refcount_set(&job->refs, 1);
	atomic64_inc(&ctx->jobs);
	__module_get(THIS_MODULE);
	kref_get(&ctx->ref);
	kref_get(&bs->ref);
	job->ctx = ctx;
	job->bs = bs;
	job->queue = bs->queue;
}

/*
 * A zeroed job with its tallies and dependencies (inline, or kept by a
 * recycled job), hardware fence and proxy (either of which may be NULL);
 * from the client's cache if @reuse.
 */
static struct weave_job *weave_job_zalloc(struct weave_ectx *ctx, bool reuse)
{
	struct weave_job *job;
	size_t size = struct_size(job, slots, BITS_TO_LONGS(ctx->max_streams));

	job = reuse ? weave_eng_job_reuse(ctx, size) : NULL;
	if (!job) {
		job = kzalloc(size, GFP_KERNEL_ACCOUNT);
		if (!job)
			return NULL;
		job->tallies = job->tally0;
		job->ctallies = ARRAY_SIZE(job->tally0);
		job->deps = job->dep0;
		job->cdeps = ARRAY_SIZE(job->dep0);
	}
	if (!job->hw)
		job->hw = kzalloc(sizeof(*job->hw), GFP_KERNEL_ACCOUNT);
	job->proxy = weave_eng_proxy_create();
	return job;
}

/*
 * Free a job that weave_job_zalloc() made and nothing attached yet, with
 * the arrays it has (but its tasks, which the caller frees).
 */
static void weave_job_unmake(struct weave_job *job)
{
	weave_eng_proxy_put(job->proxy);
	weave_eng_job_free_arrays(job);
	kfree(job);
}

struct weave_job *weave_eng_job_alloc(struct weave_bstream *bs)
{
	struct weave_ectx *ctx = bs->ctx;
	u32 want = ctx->task_hint;
	struct weave_job *job;

	/*
	 * Room for what the backend stream's last job held, if that was
	 * well below the threshold: a client that flushes small batches
	 * under a large threshold does not get (and, as allocations are
	 * zeroed, clear) a threshold's worth of entries per job.  A job
	 * that needs more grows.
	 */
	if (bs->last_tasks && bs->last_tasks <= want / 2)
		want = max_t(u32, roundup_pow_of_two(bs->last_tasks), 8);
	job = weave_job_zalloc(ctx, true);
	if (!job)
		return NULL;
	/*
	 * A spare has task_hint entries and is counted already: a small job
	 * takes one too, if there is one, which costs no clearing and keeps
	 * the client's arrays of one size.
	 */
	job->tasks = weave_eng_job_spare_take(ctx);
	if (job->tasks) {
		want = ctx->task_hint;
	} else {
		job->tasks = kvmalloc_array(want, sizeof(*job->tasks),
					    GFP_KERNEL_ACCOUNT);
		if (job->tasks)
			weave_eng_job_bytes_add(ctx, want);
	}
	if (!job->hw || !job->proxy || !job->tasks) {
		if (job->tasks)
			weave_eng_job_bytes_sub(ctx, want);
		kvfree(job->tasks);
		weave_job_unmake(job);
		return NULL;
	}
	job->ctasks = want;
	weave_job_attach(job, bs);
	return job;
}

/**
 * weave_eng_job_alloc_from() - Allocate a job of a template's tasks.
 * @bs: The backend stream the job is for.
 * @tmpl: The template; the job takes a reference of its own.
 * @ndeps: The dependencies it must have room for.
 *
 * The job borrows @tmpl's tasks and has room for its buffers, one tally
 * and @ndeps dependencies; it is empty otherwise (see "DOC: job
 * templates").
 *
 * Context: The client's mutex held.
 * Return: The job, or NULL if out of memory.
 */
struct weave_job *weave_eng_job_alloc_from(struct weave_bstream *bs,
					   struct weave_template *tmpl,
					   u32 ndeps)
{
	u32 nbos = tmpl->nbos;
	struct weave_job *job;

	job = weave_job_zalloc(bs->ctx, true);
	if (!job)
		return NULL;
	if (nbos > job->cbos) {
		kvfree(job->bos);
		kvfree(job->objs);
		job->bos = kvmalloc_array(nbos, sizeof(*job->bos),
					  GFP_KERNEL_ACCOUNT);
		job->objs = kvmalloc_array(nbos, sizeof(*job->objs),
					   GFP_KERNEL_ACCOUNT);
		job->cbos = nbos;
	}
	if (!job->hw || !job->proxy || (nbos && (!job->bos || !job->objs)) ||
	    weave_core_grow_from((void **)&job->deps, &job->cdeps, ndeps,
				 sizeof(*job->deps), job->dep0)) {
		weave_job_unmake(job);
		return NULL;
	}
	kref_get(&tmpl->ref);
	job->tmpl = tmpl;
	job->tasks = tmpl->tasks;
	job->ctasks = tmpl->ntasks;
	weave_job_attach(job, bs);
	return job;
}

/* Whether @job has room for @task and @ndeps dependencies as it is. */
static bool weave_job_has_room(const struct weave_job *job,
			       const struct weave_entry *task, u32 ndeps)
{
	return job->ntasks < job->ctasks &&
	       job->nbos + task->num_bindings <= job->cbos &&
	       job->ntallies < job->ctallies &&
	       job->ndeps + ndeps <= job->cdeps;
}

/* Make room in @job for @task and the @ndeps dependencies it brings. */
int weave_eng_job_reserve(struct weave_job *job,
			  const struct weave_entry *task, u32 ndeps)
{
	struct weave_ectx *ctx = job->ctx;
	u32 need = job->nbos + task->num_bindings;
	u32 cap = job->ctasks, cobjs = job->cbos;
	int ret;

	/* The common case, with room for everything: no call at all. */
	if (weave_job_has_room(job, task, ndeps))
		return 0;
	ret = weave_core_grow((void **)&job->tasks, &job->ctasks,
			      job->ntasks + 1, sizeof(*job->tasks));
	if (job->ctasks != cap)
		weave_eng_job_bytes_add(ctx, job->ctasks - cap);
	/* @objs has the capacity of @bos: grow it first. */
	if (!ret)
		ret = weave_core_grow((void **)&job->objs, &cobjs, need,
				      sizeof(*job->objs));
	if (!ret)
		ret = weave_core_grow((void **)&job->bos, &job->cbos, cobjs,
				      sizeof(*job->bos));
	if (!ret)
		ret = weave_core_grow_from((void **)&job->tallies,
					   &job->ctallies, job->ntallies + 1,
					   sizeof(*job->tallies), job->tally0);
	if (!ret)
		ret = weave_core_grow_from((void **)&job->deps, &job->cdeps,
					   job->ndeps + ndeps,
					   sizeof(*job->deps), job->dep0);
	return ret;
}

/**
 * weave_eng_job_free_reserve() - Free a reserve job that was never used.
 * @job: &weave_ectx.reserve, or NULL; it holds no reference.
 */
void weave_eng_job_free_reserve(struct weave_job *job)
{
	if (!job)
		return;
	if (job->tasks)
		kfree(job->tasks[0].more);
	kvfree(job->tasks);
	weave_job_unmake(job);
}

/**
 * weave_eng_ctx_reserve() - Make sure a client has its reserve job.
 * @ctx: The client's engine context.
 *
 * The reserve is a job allocated ahead, with room for any one task: one
 * entry of tasks and tallies, buffers for %WEAVE_MAX_BINDINGS bindings,
 * an array for the bindings past an encoded task's own, and dependencies
 * for the %WEAVE_MAX_SLOT_GATES gates its slot may hold.  So encoding a
 * task into it allocates nothing (weave_eng_job_take_reserve()).  It holds
 * no reference until it is taken, and is counted in &weave_ectx.jobs and
 * &weave_ectx.job_bytes only from then on.
 *
 * Context: The client's mutex held.
 * Return: 0 if the client has its reserve, or -ENOMEM.
 */
int weave_eng_ctx_reserve(struct weave_ectx *ctx)
{
	struct weave_ebinding *more;
	struct weave_job *job;

	if (ctx->reserve)
		return 0;
	job = weave_job_zalloc(ctx, false);
	if (!job)
		return -ENOMEM;
	job->tasks = kvcalloc(1, sizeof(*job->tasks), GFP_KERNEL_ACCOUNT);
	job->bos = kvmalloc_array(WEAVE_MAX_BINDINGS, sizeof(*job->bos),
				  GFP_KERNEL_ACCOUNT);
	job->objs = kvmalloc_array(WEAVE_MAX_BINDINGS, sizeof(*job->objs),
				   GFP_KERNEL_ACCOUNT);
	job->deps = kvmalloc_array(WEAVE_MAX_SLOT_GATES, sizeof(*job->deps),
				   GFP_KERNEL_ACCOUNT);
	more = kmalloc_array(WEAVE_MAX_BINDINGS - WEAVE_ETASK_BINDINGS,
			     sizeof(*more), GFP_KERNEL_ACCOUNT);
	if (!job->hw || !job->proxy || !job->tasks || !job->bos ||
	    !job->objs || !job->deps || !more) {
		kfree(more);
		weave_eng_job_free_reserve(job);
		return -ENOMEM;
	}
	job->tasks[0].more = more;
	job->ctasks = 1;
	job->cbos = WEAVE_MAX_BINDINGS;
	job->cdeps = WEAVE_MAX_SLOT_GATES;
	ctx->reserve = job;
	return 0;
}

/**
 * weave_eng_job_take_reserve() - Make the client's reserve a job of a backend
 * stream, for a task that enqueue refused.
 * @bs: The backend stream.
 * @task: The task; the reserve has room for it.
 * @ndeps: The dependencies it brings, its slot's gates.
 * @more: Set to the reserve's array for @task's bindings past
 *	%WEAVE_ETASK_BINDINGS, or to NULL if it has no more.
 *
 * The job then has room for @task, and weave_eng_job_reserve() of it would
 * allocate nothing; it holds what weave_eng_job_alloc() makes a job hold.
 * The client has no reserve until weave_eng_ctx_reserve() makes another.
 *
 * Context: The client's mutex held.
 * Return: The job, or NULL if the client has no reserve.
 */
struct weave_job *weave_eng_job_take_reserve(struct weave_bstream *bs,
					     const struct weave_entry *task,
					     u32 ndeps,
					     struct weave_ebinding **more)
{
	struct weave_ectx *ctx = bs->ctx;
	struct weave_job *job = ctx->reserve;

	/* Made with room for any one task, see weave_eng_ctx_reserve(). */
	if (!job || WARN_ON_ONCE(!weave_job_has_room(job, task, ndeps)))
		return NULL;
	ctx->reserve = NULL;
	*more = job->tasks[0].more;
	job->tasks[0].more = NULL;
	if (task->num_bindings <= WEAVE_ETASK_BINDINGS) {
		kfree(*more);
		*more = NULL;
	}
	weave_eng_job_bytes_add(ctx, job->ctasks);
	weave_job_attach(job, bs);
	return job;
}

static void weave_bstream_fini_work(struct work_struct *work)
{
	struct weave_bstream *bs = container_of(work, struct weave_bstream,
						fini_work);
	u32 p;

	/* No job of the backend stream is left: no entity waits or is busy. */
	for (p = 0; p < WEAVE_NUM_PRIOS; p++)
		drm_sched_entity_fini(&bs->entity[p]);
	weave_eng_ctx_put(bs->ctx);
	kfree(bs);
}

/*
 * The last reference can go in the scheduler's own free_job, where an
 * entity cannot be finished: do it on weave_eng_wq.
 */
void weave_eng_bstream_release(struct kref *ref)
{
	struct weave_bstream *bs = container_of(ref, struct weave_bstream, ref);

	INIT_WORK(&bs->fini_work, weave_bstream_fini_work);
	queue_work(weave_eng_wq, &bs->fini_work);
}

/* The last &weave_ectx.id handed out. */
static atomic64_t weave_ectx_last_id = ATOMIC64_INIT(0);

/**
 * weave_eng_ctx_create() - Make a client's engine context.
 * @drm: The device; the context holds a reference.
 * @engine: The device's engine.
 * @failures: The device's failure graph.
 * @limits: The device's limits, which live as long as @drm: the client's
 *	slots are @limits->max_streams.
 *
 * The context starts with no logical stream in &weave_ectx.streams; the
 * caller adds them, under the client's mutex, and empties it before it
 * drops its reference.
 *
 * Return: The context with one reference, or NULL if out of memory.
 */
struct weave_ectx *weave_eng_ctx_create(struct drm_device *drm,
					struct weave_engine *engine,
					struct weave_failures *failures,
					const struct weave_limits *limits)
{
	u32 i, max_streams = limits->max_streams;
	struct weave_ectx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return NULL;
	ctx->slots = kcalloc(max_streams, sizeof(*ctx->slots),
			     GFP_KERNEL_ACCOUNT);
	if (!ctx->slots) {
		kfree(ctx);
		return NULL;
	}
	kref_init(&ctx->ref);
	ctx->id = atomic64_inc_return(&weave_ectx_last_id);
	ctx->drm = drm;
	drm_dev_get(ctx->drm);
	ctx->engine = engine;
	ctx->failures = failures;
	ctx->limits = limits;
	xa_init_flags(&ctx->streams, XA_FLAGS_ALLOC1);
	ctx->max_streams = max_streams;
	ctx->task_hint = 8;
	spin_lock_init(&ctx->spare_lock);
	INIT_LIST_HEAD(&ctx->unpushed);
	init_llist_head(&ctx->job_cache);
	for (i = 0; i < max_streams; i++) {
		INIT_LIST_HEAD(&ctx->slots[i].insyncs);
		/* Empty, its lock ready: debugfs reads it before it is made. */
		weave_core_arena_init(&ctx->slots[i].staging, NULL, 0);
	}
	spin_lock_init(&ctx->gate_lock);
	INIT_LIST_HEAD(&ctx->gates);
	init_waitqueue_head(&ctx->staging_wq);
	init_waitqueue_head(&ctx->done_wq);
	weave_fg_owner_init(&ctx->fowner, ctx->id, WEAVE_MAX_LIVE_FAILURES,
			    limits->max_client_claims);
	weave_fg_stash_init(&ctx->fstash);
	ctx->fstash_busy = jiffies;
	weave_fg_shared_init(&ctx->overflow);
	return ctx;
}

static void weave_ectx_release(struct kref *ref)
{
	struct weave_ectx *ctx = container_of(ref, struct weave_ectx, ref);
	struct llist_node *cache = llist_del_all(&ctx->job_cache);
	struct weave_failures *failures = ctx->failures;
	u32 i;

	WARN_ON_ONCE(!xa_empty(&ctx->streams));
	xa_destroy(&ctx->streams);
	for (i = 0; i < ctx->max_streams; i++) {
		struct weave_eslot *es = &ctx->slots[i];

		while (es->ngates)
			dma_fence_put(es->gates[--es->ngates]);
		kvfree(es->gates);
		weave_eng_eslot_insyncs_free(es);
		dma_fence_put(es->last);
		WARN_ON(es->staging.base &&
			!weave_core_arena_idle(&es->staging));
		kvfree(es->staging.base);
	}
	weave_eng_job_spares_free(ctx);
	weave_eng_job_free_reserve(ctx->reserve);
	kfree(ctx->slots);
	weave_fg_shared_fini(failures, &ctx->overflow);
	weave_fg_owner_detach(failures, &ctx->fowner);
	weave_fg_stash_drain(&ctx->fstash);
	/* Maybe the device's last reference: see weave_eng_fini(). */
	drm_dev_put(ctx->drm);
	weave_eng_job_cache_free(cache);
	kfree_rcu(ctx, rcu);
}

/**
 * weave_eng_ctx_put() - Drop a reference to a client's engine context.
 * @ctx: The context.
 */
void weave_eng_ctx_put(struct weave_ectx *ctx)
{
	kref_put(&ctx->ref, weave_ectx_release);
}

static void weave_lstream_release(struct kref *ref)
{
	struct weave_lstream *ls = container_of(ref, struct weave_lstream,
						ref);

	if (ls->ring_page)
		put_page(ls->ring_page);
	kfree(ls);
}

/**
 * weave_eng_lstream_put() - Drop a reference to a logical stream.
 * @ls: The stream.
 */
void weave_eng_lstream_put(struct weave_lstream *ls)
{
	kref_put(&ls->ref, weave_lstream_release);
}

static void weave_template_release(struct kref *ref)
{
	struct weave_template *tmpl = container_of(ref, struct weave_template,
						   ref);
	u32 i;

	for (i = 0; i < tmpl->ntasks; i++)
		kfree(tmpl->tasks[i].more);
	for (i = 0; i < tmpl->nbos; i++)
		drm_gem_object_put(tmpl->bos[i].obj);
	kvfree(tmpl->bos);
	kvfree(tmpl);
}

/**
 * weave_eng_template_put() - Drop a reference to a template.
 * @tmpl: The template, or NULL.
 */
void weave_eng_template_put(struct weave_template *tmpl)
{
	if (tmpl)
		kref_put(&tmpl->ref, weave_template_release);
}

/* Tears engines and backend streams down; drained at module exit. */
struct workqueue_struct *weave_eng_wq;

/**
 * weave_eng_module_init() - Set up what every engine shares.
 *
 * Return: 0 or -ENOMEM.
 */
int weave_eng_module_init(void)
{
	weave_eng_wq = alloc_workqueue("weave-engine", 0, 0);
	return weave_eng_wq ? 0 : -ENOMEM;
}

/**
 * weave_eng_module_exit() - Undo weave_eng_module_init().
 *
 * Waits for the teardown of every engine already let go, which must be
 * all of them: no device is left.
 */
void weave_eng_module_exit(void)
{
	destroy_workqueue(weave_eng_wq);
}
