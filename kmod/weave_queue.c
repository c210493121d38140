// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the soft engine's hardware queues: DRM GPU schedulers set up and
 * torn down with the engine, their run_job, timedout_job and free_job, and
 * the worker that executes a job.
 */

#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/dma-fence.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/gpu_scheduler.h>

#include "weave_compat.h"
#include "weave_drv.h"
#include "weave_engine.h"
#include "weave_fence.h"
#include "weave_job.h"
#include "weave_queue.h"

/**
 * DOC: hardware queues
 *
 * Each device has num_queues hardware queues.  A queue is a &struct
 * drm_gpu_scheduler plus an ordered workqueue, its "hardware": run_job
 * hands the job to the workqueue and returns the job's hardware fence at
 * once; the worker runs the job's tasks on the CPU in order, against the
 * pinned shmem pages of its buffers (kmap_local_page(), no lock), then
 * signals the fence.  Jobs never run on the scheduler's own thread, as
 * on real hardware.  Hardware fences have one fence context per queue.
 * The worker is the fences' signalling path, annotated with
 * dma_fence_begin_signalling(), so lockdep reports an allocation that
 * could recurse into reclaim or a lock that is held while waiting for a
 * fence; its workqueue has WQ_MEM_RECLAIM, as reclaim may wait for the
 * fences it signals.
 *
 * Errors.  A task's failure goes on the bytes it should have written (see
 * "DOC: failure propagation"), not on the job's fences; the job's later
 * tasks still run.  A job that runs past job_timeout_ms is cut short: its
 * remaining tasks are skipped, its fences get -ETIMEDOUT, and what its
 * unfinished tasks should have written carries one -ETIMEDOUT failure;
 * their streams stay usable.  A job of a closed client stops between two
 * tasks with -ECANCELED.
 */

/* Jobs a hardware queue holds at once. */
#define WEAVE_QUEUE_CREDITS	64

/* Tears engines and backend streams down; drained at module exit. */
struct workqueue_struct *weave_engine_wq;

/*
 * Why @job stopped before its end: its timeout, its client's close or
 * unplug, or @err, the error it had before it ran.
 */
static int weave_job_cut_reason(struct weave_job *job, int err)
{
	return READ_ONCE(job->abort) ?: err ?:
	       atomic_read(&job->ctx->aborted) ?: -ECANCELED;
}

/* Run the job's tasks and signal its hardware fence. */
static void weave_job_execute(struct weave_job *job)
{
	struct weave_ectx *ctx = job->ctx;
	struct dma_fence *hw = &job->hw->base;
	int err = job->base.s_fence->finished.error;
	const struct weave_tally *tally = job->tallies;
	u32 i, pos = 0;
	bool skip;
	int ret;

	/*
	 * A job that failed before it ran (its entity died, say) runs
	 * nothing, and neither does one that starts after its device was
	 * unplugged, which also cancels running jobs through the abort.
	 */
	if (!err && drm_dev_is_unplugged(ctx->drm))
		err = -ENODEV;
	skip = err;

	/*
	 * A failed task does not stop the job: later tasks still run, and its
	 * failure goes on the bytes it should have written, not on the
	 * fences, unless the graph had no memory to record it.
	 */
	for (i = 0; i < job->ntasks; i++) {
		if (skip || weave_job_aborted(job))
			break;
		ret = weave_task_execute(job, &job->tasks[i], tally, pos);
		if (ret == -EINTR)
			break;
		if (ret && !err)
			err = ret;
		if (++pos == tally->count) {
			tally++;
			pos = 0;
		}
	}
	/*
	 * Tasks that did not finish leave bytes unwritten, or half written,
	 * which another process may share: they carry why.
	 */
	if (i < job->ntasks) {
		ret = weave_job_fail_from(job, i, tally, pos,
					  weave_job_cut_reason(job, skip ? err : 0));
		if (ret && !err)
			err = ret;
	}
	for (i = 0; i < job->ntallies; i++)
		atomic64_add(job->tallies[i].count,
			     &job->tallies[i].ls->completed);
	if (READ_ONCE(job->abort))
		err = READ_ONCE(job->abort);
	else if (!err)
		err = atomic_read(&ctx->aborted);

	weave_job_release_tasks(job);

	if (err) {
		weave_fence_error(&job->base.s_fence->finished, err);
		weave_fence_error(hw, err);
	}
	dma_fence_signal(hw);
}

/*
 * The work item of a job on its queue's workqueue: runs the job.  All of it
 * is the fence signalling critical path of the job's hardware fence (and
 * so of its finished fence and proxy, and of every job behind it): it
 * must not allocate memory other than GFP_ATOMIC or GFP_NOWAIT, nor take
 * a lock held while waiting for a fence, such as a reservation lock.
 */
void weave_job_work(struct work_struct *work)
{
	bool cookie = dma_fence_begin_signalling();

	/* The job may be freed as soon as its fence signals. */
	weave_job_execute(container_of(work, struct weave_job, work));
	dma_fence_end_signalling(cookie);
}

static struct weave_job *to_weave_job(struct drm_sched_job *sched_job)
{
	return container_of(sched_job, struct weave_job, base);
}

static struct dma_fence *weave_queue_run_job(struct drm_sched_job *sched_job)
{
	struct weave_job *job = to_weave_job(sched_job);
	struct weave_queue *q = job->queue;

	/*
	 * Called again by drm_sched_resubmit_jobs() after a timeout: the job
	 * is already on the hardware, hand out its fence again.
	 */
	if (!job->started) {
		job->started = true;
		weave_hw_fence_init(job->hw, q->fence_context,
				    atomic64_inc_return(&q->fence_seqno));
		queue_work(q->wq, &job->work);
	}
	return dma_fence_get(&job->hw->base);
}

static enum drm_gpu_sched_stat
weave_queue_timedout_job(struct drm_sched_job *sched_job)
{
	struct weave_job *job = to_weave_job(sched_job);
	struct weave_queue *q = job->queue;
	struct drm_gpu_scheduler *sched = &q->sched;
	bool cookie;

	/*
	 * Cutting the job short is what makes its fences signal: a critical
	 * section of the signalling path.  What follows is not: on 6.1,
	 * drm_sched_stop() waits for the finished fence of a job that
	 * completed meanwhile, and every one of them signals without it.
	 */
	cookie = dma_fence_begin_signalling();
	if (!dma_fence_is_signaled(&job->hw->base)) {
		weave_fence_error(&sched_job->s_fence->finished, -ETIMEDOUT);
		WRITE_ONCE(job->abort, -ETIMEDOUT);
		wake_up_all(&q->abort_wq);
	}
	dma_fence_end_signalling(cookie);

	/*
	 * The scheduler took the job off its pending list before calling
	 * this: drm_sched_stop() puts it back (or frees it if it completed),
	 * the resubmit reattaches every pending job to its hardware fence
	 * and the restart rearms the fence callbacks.  The worker finishes
	 * the aborted job quickly.  @job must not be touched after
	 * drm_sched_stop().
	 *
	 * drm_sched_resubmit_jobs() is deprecated because it makes drivers
	 * run jobs a second time and hand out a fresh fence for work whose
	 * first fence may already have been seen; nothing of that happens
	 * here.  The hardware (the queue's worker) never lost a job, and
	 * run_job of a started job neither runs it again nor makes a fence:
	 * it only returns another reference to the job's one hardware fence,
	 * without allocating, so the resubmit only restores the pointers
	 * drm_sched_stop() cleared.  No job is marked guilty (karma is never
	 * raised), so it sets no error on a fence either.  Without it,
	 * drm_sched_start() would complete every job that lost its hardware
	 * fence at once, before it ran.
	 */
	drm_sched_stop(sched, sched_job);
	drm_sched_resubmit_jobs(sched);
	weave_compat_sched_start(sched);

	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static void weave_queue_free_job(struct drm_sched_job *sched_job)
{
	struct weave_job *job = to_weave_job(sched_job);

	drm_sched_job_cleanup(sched_job);
	weave_job_free(job);
}

static const struct drm_sched_backend_ops weave_queue_ops = {
	.run_job = weave_queue_run_job,
	.timedout_job = weave_queue_timedout_job,
	.free_job = weave_queue_free_job,
};

/**
 * weave_engine_module_init() - Set up what every engine shares.
 *
 * Return: 0 or -ENOMEM.
 */
int weave_engine_module_init(void)
{
	weave_engine_wq = alloc_workqueue("weave-engine", 0, 0);
	return weave_engine_wq ? 0 : -ENOMEM;
}

/**
 * weave_engine_module_exit() - Undo weave_engine_module_init().
 *
 * Waits for the teardown of every engine already let go, which must be
 * all of them: no device is left.
 */
void weave_engine_module_exit(void)
{
	destroy_workqueue(weave_engine_wq);
}

static void weave_queue_fini(struct weave_queue *q)
{
	drm_sched_fini(&q->sched);
	destroy_workqueue(q->wq);
	kfree(q->scratch);
}

static void weave_engine_free(struct weave_engine *engine)
{
	while (engine->num_queues--)
		weave_queue_fini(&engine->queues[engine->num_queues]);
	put_device(engine->dev);
	kfree(engine);
}

static void weave_engine_fini_work(struct work_struct *work)
{
	weave_engine_free(container_of(work, struct weave_engine, fini_work));
}

/**
 * weave_engine_init() - Create the soft engine of a device.
 * @wdev: The device; &weave_device.limits is set.
 *
 * Return: 0 or a negative errno.
 */
int weave_engine_init(struct weave_device *wdev)
{
	struct weave_engine *engine;
	struct weave_queue *q;
	long timeout;
	u32 i;
	int ret;

	engine = kzalloc(sizeof(*engine), GFP_KERNEL);
	if (!engine)
		return -ENOMEM;
	engine->dev = get_device(wdev->drm.dev);
	INIT_WORK(&engine->fini_work, weave_engine_fini_work);
	timeout = msecs_to_jiffies(wdev->limits.job_timeout_ms);
	for (i = 0; i < wdev->limits.num_queues; i++) {
		q = &engine->queues[i];
		snprintf(q->name, sizeof(q->name), "weave-q%u", i);
		init_waitqueue_head(&q->abort_wq);
		q->fence_context = dma_fence_context_alloc(1);
		atomic64_set(&q->fence_seqno, 0);
		q->scratch = kmalloc(3 * PAGE_SIZE, GFP_KERNEL);
		/* The worker signals fences: memory reclaim may wait for it. */
		q->wq = alloc_ordered_workqueue("%s", WQ_MEM_RECLAIM, q->name);
		if (!q->scratch || !q->wq) {
			ret = -ENOMEM;
			goto err;
		}
		ret = weave_compat_sched_init(&q->sched, &weave_queue_ops,
					      WEAVE_QUEUE_CREDITS, timeout,
					      q->name, engine->dev);
		if (ret)
			goto err;
		engine->num_queues++;
	}
	wdev->engine = engine;
	return 0;

err:
	if (q->wq)
		destroy_workqueue(q->wq);
	kfree(q->scratch);
	weave_engine_free(engine);
	return ret;
}

/**
 * weave_engine_fini() - Let the soft engine of a device go.
 * @wdev: The device, being released: no client, no job and no scheduler
 *	entity of it is left.
 *
 * The device's last reference can be dropped by a job that one of the
 * engine's own schedulers frees, which cannot stop that scheduler: the
 * engine is torn down on weave_engine_wq instead, before the module goes.
 */
void weave_engine_fini(struct weave_device *wdev)
{
	struct weave_engine *engine = wdev->engine;

	if (!engine)
		return;
	wdev->engine = NULL;
	queue_work(weave_engine_wq, &engine->fini_work);
}
