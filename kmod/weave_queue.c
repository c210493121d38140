// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the soft engine's hardware queues: DRM GPU schedulers set up and
 * torn down with the engine, their run_job and free_job, and the worker
 * that executes a job, with its watchdog.
 */

#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/dma-fence.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/gpu_scheduler.h>

#include "weave_compat.h"
#include "weave_engine.h"
#include "weave_fence.h"
#include "weave_job.h"
#include "weave_propagate.h"
#include "weave_queue.h"
#include "weave_trace.h"

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
 * tasks with -ECANCELED.  The worker reports a job's error the way the
 * scheduler expects of hardware: on the hardware fence, before it
 * signals it; the scheduler hands it on to the finished fence (on 6.1,
 * which does not, weave_compat_sched_job_error() does).
 *
 * Timeouts.  The hardware times its jobs itself, as a GPU's watchdog
 * would: each queue has an hrtimer that the worker arms when it starts a
 * job, for job_timeout_ms, and cancels when the job ends.  If it fires,
 * it sets the job's abort to -ETIMEDOUT and wakes the worker, which cuts
 * the job short between two tasks, or within a task's page, or out of a
 * long delay, and signals its fences as for any other job, in order.  A
 * job's time counts from when it starts running, not while it waits for
 * the one ahead of it.  A timeout is thus never a hang: the scheduler's
 * own timeout is off (%MAX_SCHEDULE_TIMEOUT), and the driver never stops,
 * resubmits or restarts a scheduler.  No job is ever cut short but by its
 * own timer, its client's close or its device's unplug.
 */

/* Jobs a hardware queue holds at once. */
#define WEAVE_QUEUE_CREDITS	64

/*
 * Why @job stopped before its end: its timeout, its client's close or
 * unplug, or @err, the error it had before it ran.
 */
static int weave_job_cut_reason(struct weave_job *job, int err)
{
	return READ_ONCE(job->abort) ?: err ?:
	       atomic_read(&job->ctx->aborted) ?: -ECANCELED;
}

/* An event of the weave_job class about @job, which the worker holds. */
#define weave_queue_trace(event, job, tasks, err) do {			\
	const struct weave_job *j_ = (job);				\
									\
	event(j_->ctx->id, j_->queue - j_->ctx->engine->queues,	\
	      j_->base.s_fence->finished.context,			\
	      j_->base.s_fence->finished.seqno, (tasks), (err));	\
} while (0)

/*
 * The watchdog of a queue's running job (see "DOC: hardware queues",
 * Timeouts), in hard interrupt context: cut the job short.
 */
static enum hrtimer_restart weave_queue_watchdog(struct hrtimer *timer)
{
	struct weave_queue *q = container_of(timer, struct weave_queue,
					     watchdog);

	/* The worker cancels the timer before it lets the job go. */
	weave_queue_trace(trace_weave_job_timeout, q->running, 0, -ETIMEDOUT);
	WRITE_ONCE(q->running->abort, -ETIMEDOUT);
	wake_up_all(&q->abort_wq);
	return HRTIMER_NORESTART;
}

/* Run the job's tasks and signal its hardware fence. */
static void weave_job_execute(struct weave_job *job)
{
	struct weave_ectx *ctx = job->ctx;
	struct weave_queue *q = job->queue;
	struct dma_fence *hw = &job->hw->base;
	int err = job->base.s_fence->finished.error;
	const struct weave_tally *tally = job->tallies;
	u64 start = ktime_get_ns();
	u32 i, ran, pos = 0;
	bool skip, cut;
	int ret, why;

	q->running = job;
	weave_queue_trace(trace_weave_job_run, job, job->ntasks, err);
	hrtimer_start(&q->watchdog, ms_to_ktime(q->timeout_ms),
		      HRTIMER_MODE_REL);

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
		if (skip || weave_eng_job_aborted(job))
			break;
		ret = weave_eng_task_execute(job, &job->tasks[i], tally, pos);
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
	 * Done or cut short: no timeout from here on, and none that fires
	 * after the last task is counted.
	 */
	hrtimer_cancel(&q->watchdog);
	cut = i < job->ntasks;
	ran = i;
	/*
	 * Tasks that did not finish leave bytes unwritten, or half written,
	 * which another process may share: they carry why.
	 */
	if (cut) {
		why = weave_job_cut_reason(job, skip ? err : 0);
		ret = weave_eng_job_fail_from(job, i, tally, pos, why);
		if (ret && !err)
			err = ret;
	}
	for (i = 0; i < job->ntallies; i++)
		atomic64_add(job->tallies[i].count,
			     &job->tallies[i].ls->completed);
	weave_eng_ctx_done(ctx);
	if (cut && READ_ONCE(job->abort))
		err = READ_ONCE(job->abort);
	else if (!err)
		err = atomic_read(&ctx->aborted);

	weave_eng_job_release_tasks(job);
	/* Counted before the fence tells anyone the job is done. */
	atomic64_add(ktime_get_ns() - start,
		     &ctx->busy_ns[q - ctx->engine->queues]);
	weave_queue_trace(trace_weave_job_done, job, ran, err);

	/* Only the worker signals the hardware fence: it is not yet. */
	if (err) {
		dma_fence_set_error(hw, err);
		weave_compat_sched_job_error(&job->base, err);
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
static void weave_job_work(struct work_struct *work)
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

	job->started = true;
	weave_eng_hw_fence_init(job->hw, q->fence_context,
				atomic64_inc_return(&q->fence_seqno));
	INIT_WORK(&job->work, weave_job_work);
	queue_work(q->wq, &job->work);
	return dma_fence_get(&job->hw->base);
}

static void weave_queue_free_job(struct drm_sched_job *sched_job)
{
	struct weave_job *job = to_weave_job(sched_job);

	drm_sched_job_cleanup(sched_job);
	weave_eng_job_free(job);
}

static const struct drm_sched_backend_ops weave_queue_ops = {
	/* No timedout_job: the scheduler's timeout is off, see Timeouts. */
	.run_job = weave_queue_run_job,
	.free_job = weave_queue_free_job,
};

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
 * weave_eng_create() - Create the soft engine of a device.
 * @dev: The device's parent, the device of its schedulers; the engine
 *	holds a reference.
 * @limits: The device's limits: its queues and job timeout.
 *
 * Return: The engine, or an ERR_PTR() with a negative errno.
 */
struct weave_engine *weave_eng_create(struct device *dev,
				      const struct weave_limits *limits)
{
	struct weave_engine *engine;
	struct weave_queue *q;
	u32 i;
	int ret;

	engine = kzalloc(sizeof(*engine), GFP_KERNEL);
	if (!engine)
		return ERR_PTR(-ENOMEM);
	engine->dev = get_device(dev);
	INIT_WORK(&engine->fini_work, weave_engine_fini_work);
	for (i = 0; i < limits->num_queues; i++) {
		q = &engine->queues[i];
		snprintf(q->name, sizeof(q->name), "weave-q%u", i);
		init_waitqueue_head(&q->abort_wq);
		weave_compat_hrtimer_setup(&q->watchdog, weave_queue_watchdog);
		q->timeout_ms = limits->job_timeout_ms;
		q->fence_context = dma_fence_context_alloc(1);
		atomic64_set(&q->fence_seqno, 0);
		q->scratch = kmalloc(3 * PAGE_SIZE, GFP_KERNEL);
		/* The worker signals fences: memory reclaim may wait for it. */
		q->wq = alloc_ordered_workqueue("%s", WQ_MEM_RECLAIM, q->name);
		if (!q->scratch || !q->wq) {
			ret = -ENOMEM;
			goto err;
		}
		/* The hardware times its jobs: no scheduler timeout. */
		ret = weave_compat_sched_init(&q->sched, &weave_queue_ops,
					      WEAVE_QUEUE_CREDITS,
					      MAX_SCHEDULE_TIMEOUT, q->name,
					      engine->dev);
		if (ret)
			goto err;
		engine->num_queues++;
	}
	return engine;

err:
	if (q->wq)
		destroy_workqueue(q->wq);
	kfree(q->scratch);
	weave_engine_free(engine);
	return ERR_PTR(ret);
}

/**
 * weave_eng_fini() - Let the soft engine of a device go.
 * @engine: The engine of a device being released: no client, no job and
 *	no scheduler entity of it is left.  NULL does nothing.
 *
 * The device's last reference can be dropped by a job that one of the
 * engine's own schedulers frees, which cannot stop that scheduler: the
 * engine is torn down on weave_eng_wq instead, before the module goes.
 */
void weave_eng_fini(struct weave_engine *engine)
{
	if (!engine)
		return;
	queue_work(weave_eng_wq, &engine->fini_work);
}
