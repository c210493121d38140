// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the soft engine's hardware queues: DRM GPU schedulers set up and
 * torn down with the engine, their run_job, which runs a job inline where
 * it can, free_job, and the worker that runs the rest, with the watchdog.
 */

#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/dma-fence.h>
#include <linux/hrtimer.h>
#include <linux/kcov.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/gpu_scheduler.h>

#include "weave_compat.h"
#include "weave_drm.h"
#include "weave_engine.h"
#include "weave_fence.h"
#include "weave_job.h"
#include "weave_job_release.h"
#include "weave_propagate.h"
#include "weave_queue.h"
#include "weave_trace.h"

/**
 * DOC: hardware queues
 *
 * Each device has num_queues hardware queues.  A queue is a &struct
 * drm_gpu_scheduler plus an ordered workqueue, its worker.  A job runs its
 * tasks on the CPU in order, against the pinned shmem pages of its buffers
 * (kmap_local_page(), no lock), then signals its hardware fence.
 * Hardware fences have one fence context per queue.
 *
 * The job path.  A job costs one hand-off where it can: run_job (on the
 * scheduler's kthread on 6.1, its submit work item on 6.12) runs the job
 * itself, inline, when the queue's worker has no job (&weave_queue.hw_jobs is
 * zero, so queue order and the hardware fences' signalling order hold), task
 * by task while the next task cannot sleep, and returns the fence signalled. A
 * task may run inline if it is no DELAY (which sleeps) and touches at most
 * %WEAVE_INLINE_TASK_BYTES (64 KiB) of pinned pages: NOOP, FAIL, a refused
 * task, small fills, copies, sums, checksums and host writes; none faults on
 * user memory or waits for a fence (the scheduler has waited for the job's
 * dependencies).  The inline budget: no task starts inline once the queue's
 * inline runs took %WEAVE_INLINE_BUDGET_NS (1 ms) in the current window of
 * %WEAVE_INLINE_WINDOW_NS (10 ms), so the scheduler's thread is held for at
 * most that plus one task of at most 64 KiB at a time, and spends at most
 * about a tenth of a CPU running jobs (it runs at SCHED_FIFO on 6.1, where it
 * could otherwise starve the processes that submit and close).  At the first
 * task that may not run inline, or once the budget is spent, run_job hands the
 * rest of the job to the worker (trace event weave_job_handoff) and returns
 * its fence unsignalled, as it does for every job while the worker has one or
 * the budget is spent: the worker then goes on from that task, with the same
 * watchdog, still armed.  run_job calls are serialised per scheduler, so the
 * inline run and the worker never run jobs of one queue at once; the worker
 * lets run_job run inline again only once its last job's fence has signalled.
 * A job of no-ops thus costs a wake-up of the scheduler's thread and one of
 * the waiter, as against a third hand-off, to the worker, before.  Where other
 * comments speak of "the worker" running a job, they mean either: the two take
 * the same locks, allocate nothing and run the same code.
 *
 * Eager runs.  A job can cost no hand-off at all: at its push, under the
 * client's mutex, weave_eng_queue_run_now() runs it in the submitting
 * thread when it is small and nothing may run before it, and the
 * scheduler's run_job then finds its hardware fence signalled and returns
 * it.  Small: at most 64 tasks, none a DELAY, whose first bindings add up
 * to at most 64 KiB, one inline task's worth (a larger job goes to
 * run_job, whose inline budget holds).  Nothing may run before it when
 * each of its dependencies has signalled or stands for a job of its own
 * client (a slot's last job, a proxy through a buffer; a gate, which is an
 * in-sync or another client's work, must have signalled); every job its
 * client pushed before has run its tasks (&weave_ectx.unrun, counted from
 * each push until the job's tasks are done, since a finished fence
 * signals only once the scheduler has got to its job); and its queue has
 * no job running, inline or eagerly, or handed to the worker.
 * &weave_queue.run_lock makes that last decision for run_job and the push
 * alike, hands out the hardware fences' seqnos in the order their jobs
 * run, and marks the queue busy for the run (&weave_queue.busy; a job
 * run_job hands to the worker meanwhile waits for it to end).  So the
 * hardware fences still signal in order, each job's tasks still run after
 * everything they depend on, and the scheduler still orders the finished
 * fences, out-syncs and proxies, which signal once it has got to the job,
 * after the tasks: the completed count (%DRM_WEAVE_WAIT_SEQNO, the
 * completion area) may then be ahead of them.  The watchdog is armed as
 * for any run; the run is the same code, annotated as the fences'
 * signalling path, in the submitter's time.  Its coverage is the
 * submitter's own KCOV's, not remote.
 *
 * Where those wake-ups run.  6.1's scheduler thread is SCHED_FIFO and wakes
 * on the CPU it last ran on, and a waiter on its own idle CPU, so a one-task
 * job there costs two cross-CPU wake-ups, as an eventfd round trip between
 * two threads does (a synchronous wake-up of the waiter does not move it: the
 * kernel keeps a woken task on its idle previous CPU).  On 6.12 the scheduler
 * runs run_job and free_job on its own ordered workqueue, which serialises
 * run_job calls as 6.1's thread does.  A job that runs at its push (Eager
 * runs) costs neither wake-up on either kernel: only the scheduler's, off
 * the submitter's path.  Until 2026-12-06 each queue gave 6.12's scheduler
 * a per-CPU workqueue of its own, so that run_job ran on the submitting
 * CPU; once jobs ran at their push, that only made the submitter's CPU
 * switch to run_job and back inside the submission (a one-task job: 1.45
 * wake-up round trips with it, 0.91 without).
 *
 * Both the inline run and the worker are the fences' signalling path,
 * annotated with dma_fence_begin_signalling(), so lockdep reports an
 * allocation that could recurse into reclaim or a lock that is held while
 * waiting for a fence.  Running tasks in run_job adds no dependency: the
 * job's fences wait for run_job anyway.  The worker's workqueue has
 * WQ_MEM_RECLAIM, as reclaim may wait for the fences it signals.
 *
 * Coverage.  KCOV records only the task it is enabled in, and a job runs
 * on another thread than the one that submitted it.  A job keeps the
 * submitter's kcov_common_handle() (&weave_job.kcov_handle, taken at
 * commit; for the ring polling thread, its ring creator's handle, as the
 * thread has none; zero where the committer collects nothing or on a
 * kernel without KCOV), and the inline run and the worker run it
 * between kcov_remote_start_common() and kcov_remote_stop(), so that a
 * fuzzer that collects remote coverage (syzkaller does) sees what its
 * programs' jobs ran, as vhost's workers do.  Both calls are no-ops
 * without CONFIG_KCOV.  They sit outside the signalling annotation: the
 * first remote section on a CPU allocates its coverage area, which only a
 * fuzzing kernel does.
 *
 * Errors.  A task's failure goes on the bytes it should have written (see
 * "DOC: failure propagation"), not on the job's fences; the job's later
 * tasks still run.  A job that runs past job_timeout_ms is cut short: its
 * remaining tasks are skipped, its fences get -ETIMEDOUT, and what its
 * unfinished tasks should have written carries one -ETIMEDOUT failure;
 * their streams stay usable.  A job of a closed client stops between two
 * tasks with -ECANCELED.  A job reports its error the way the scheduler
 * expects of hardware: on the hardware fence, before it signals it; the
 * scheduler hands it on to the finished fence (on 6.1, which does not,
 * weave_compat_sched_job_error() does).
 *
 * Timeouts.  The hardware times its jobs itself, as a GPU's watchdog
 * would: each queue has an hrtimer that is armed when a job starts,
 * inline or on the worker, for job_timeout_ms, and cancelled when the job
 * ends, wherever it ends.  If it fires, it sets the job's abort to
 * -ETIMEDOUT and wakes the worker, and the job is cut short between two
 * tasks, or within a task's page, or out of a long delay (on the worker:
 * a delay never runs inline), and signals its fences as for any other
 * job, in order.  A job's time counts from when it starts running, not
 * while it waits for the one ahead of it.  A timeout is thus never a
 * hang: the scheduler's own timeout is off (%MAX_SCHEDULE_TIMEOUT), and
 * the driver never stops, resubmits or restarts a scheduler.  No job is
 * ever cut short but by its own timer, its client's close or its device's
 * unplug.
 */

/* Jobs a hardware queue holds at once. */
#define WEAVE_QUEUE_CREDITS	64
/*
 * The inline budget: run_job starts no task inline once a queue's inline
 * runs took this long within the current window of
 * %WEAVE_INLINE_WINDOW_NS, so it holds the scheduler's thread at most
 * this long plus one task of at most %WEAVE_INLINE_TASK_BYTES per window.
 */
#define WEAVE_INLINE_BUDGET_NS	(1 * NSEC_PER_MSEC)
#define WEAVE_INLINE_WINDOW_NS	(10 * NSEC_PER_MSEC)
/* The most bytes a task that runs inline touches (16 pages of 4 KiB). */
#define WEAVE_INLINE_TASK_BYTES	SZ_64K

/*
 * Why @job stopped before its end: its timeout, its client's close or
 * unplug, or @err, the error it had before it ran.
 */
static int weave_job_cut_reason(struct weave_job *job, int err)
{
	return READ_ONCE(job->abort) ?: err ?:
	       atomic_read(&job->ctx->aborted) ?: -ECANCELED;
}

/*
 * An event of the weave_job class about @job, which the worker holds; its
 * arguments are worked out only while the event is on.
 */
#define weave_queue_trace(event, job, tasks, err) do {			\
	const struct weave_job *j_ = (job);				\
									\
	if (event##_enabled())						\
		event(j_->ctx->id, weave_eng_job_stream(j_),		\
		      j_->queue - j_->ctx->engine->queues,		\
		      j_->base.s_fence->finished.context,		\
		      j_->base.s_fence->finished.seqno, (tasks), (err));\
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

/*
 * Start @job on its queue, inline or on the worker: it is the running job,
 * its watchdog armed, with the error it had before it ran.
 */
static void weave_job_start(struct weave_job *job)
{
	struct weave_jrun *r = &job->run;
	struct weave_queue *q = job->queue;

	r->start = ktime_get_ns();
	r->tally = job->tallies;
	r->err = job->base.s_fence->finished.error;
	r->begun = true;
	q->running = job;
	weave_queue_trace(trace_weave_job_run, job, job->ntasks, r->err);
	hrtimer_start(&q->watchdog, ms_to_ktime(q->timeout_ms),
		      HRTIMER_MODE_REL);

	/*
	 * A job that failed before it ran (its entity died, say) runs
	 * nothing, and neither does one that starts after its device was
	 * unplugged, which also cancels running jobs through the abort.
	 */
	if (!r->err && drm_dev_is_unplugged(job->ctx->drm))
		r->err = -ENODEV;
	r->skip = r->err;
}

/*
 * The size of @t's first binding, which bounds each of its bindings (the
 * kernels' bindings are of one size, but for CRC32C's 4-byte result), or
 * zero for a task with none or refused, or U64_MAX for a task that may
 * sleep (a DELAY).
 */
static u64 weave_task_bytes(const struct weave_etask *t)
{
	if (t->refused)
		return 0;
	if (t->kind == WEAVE_TASK_LAUNCH) {
		if (t->kernel == DRM_WEAVE_KERNEL_DELAY)
			return U64_MAX;
		if (t->kernel == DRM_WEAVE_KERNEL_NOOP ||
		    t->kernel == DRM_WEAVE_KERNEL_FAIL)
			return 0;
	}
	return t->b[0].size;
}

/*
 * Whether @t may run inline in run_job: it cannot sleep (no DELAY) and
 * touches at most %WEAVE_INLINE_TASK_BYTES of pinned pages.
 */
static bool weave_task_inline(const struct weave_etask *t)
{
	return weave_task_bytes(t) <= WEAVE_INLINE_TASK_BYTES;
}

/*
 * Run @job's tasks from where it stands.  With a @deadline (ktime_get_ns()),
 * inline: stop before a task that may not run inline, or once past it.
 *
 * A failed task does not stop the job: later tasks still run, and its
 * failure goes on the bytes it should have written, not on the fences,
 * unless the graph had no memory to record it.
 *
 * Return: false if it stopped for the worker to go on; true if the job is
 * done with its tasks, all run or cut short.
 */
static bool weave_job_run_tasks(struct weave_job *job, u64 deadline)
{
	struct weave_jrun *r = &job->run;
	struct weave_etask *t;
	int ret;

	for (; r->next < job->ntasks; r->next++) {
		if (r->skip || weave_eng_job_aborted(job))
			return true;
		t = &job->tasks[r->next];
		if (deadline && (!weave_task_inline(t) ||
				 ktime_get_ns() > deadline))
			return false;
		ret = weave_eng_task_execute(job, t, r->tally, r->pos);
		if (ret == -EINTR)
			return true;
		if (ret && !r->err)
			r->err = ret;
		if (++r->pos == r->tally->count) {
			r->tally++;
			r->pos = 0;
		}
	}
	return true;
}

/* End @job, done with its tasks, and signal its hardware fence. */
static void weave_job_finish(struct weave_job *job)
{
	struct weave_ectx *ctx = job->ctx;
	struct weave_queue *q = job->queue;
	struct dma_fence *hw = &job->hw->base;
	struct weave_jrun *r = &job->run;
	int err = r->err, ret, why;
	u32 i, ran = r->next;
	bool cut;

	/*
	 * Done or cut short: no timeout from here on, and none that fires
	 * after the last task is counted.
	 */
	hrtimer_cancel(&q->watchdog);
	cut = ran < job->ntasks;
	/*
	 * Tasks that did not finish leave bytes unwritten, or half written,
	 * which another process may share: they carry why.
	 */
	if (cut) {
		why = weave_job_cut_reason(job, r->skip ? err : 0);
		ret = weave_eng_job_fail_from(job, ran, r->tally, r->pos, why);
		if (ret && !err)
			err = ret;
	}
	/*
	 * Its buffers and in-syncs go to be let go of before anything tells
	 * that it is done: see "DOC: job release".
	 */
	weave_eng_job_completed(job);
	/* Before a waiter that the counts wake may push the next job. */
	weave_eng_job_ran(job);
	for (i = 0; i < job->ntallies; i++)
		weave_eng_lstream_completed(job->tallies[i].ls,
					    job->tallies[i].count);
	weave_eng_ctx_done(ctx);
	if (cut && READ_ONCE(job->abort))
		err = READ_ONCE(job->abort);
	else if (!err)
		err = atomic_read(&ctx->aborted);

	weave_eng_job_release_tasks(job);
	/* Counted before the fence tells anyone the job is done. */
	atomic64_add(ktime_get_ns() - r->start,
		     &ctx->busy_ns[q - ctx->engine->queues]);
	weave_queue_trace(trace_weave_job_done, job, ran, err);

	/* Only the running job's thread signals the hardware fence. */
	if (err) {
		dma_fence_set_error(hw, err);
		weave_compat_sched_job_error(&job->base, err);
	}
	dma_fence_signal(hw);
}

/*
 * The work item of a job on its queue's workqueue: runs the job, or what
 * run_job left of it.  All of it is the fence signalling critical path of
 * the job's hardware fence (and so of its finished fence and proxy, and of
 * every job behind it): it must not allocate memory other than GFP_ATOMIC
 * or GFP_NOWAIT, nor take a lock held while waiting for a fence, such as a
 * reservation lock.
 */
static void weave_job_work(struct work_struct *work)
{
	struct weave_job *job = container_of(work, struct weave_job, work);
	struct weave_queue *q = job->queue;
	bool cookie;

	/*
	 * A job that run_job handed over while an eager run had the queue
	 * waits for it: a bounded run of tasks that cannot sleep, which
	 * needs nothing of this job.
	 */
	wait_event(q->busy_wq, !smp_load_acquire(&q->busy));
	/* Before the critical path: its first use allocates (KCOV only). */
	kcov_remote_start_common(job->kcov_handle);
	cookie = dma_fence_begin_signalling();
	if (!job->run.begun)
		weave_job_start(job);
	weave_job_run_tasks(job, 0);
	/* The job may be freed as soon as its fence signals. */
	weave_job_finish(job);
	/*
	 * Only now may run_job run the next job inline: this one no longer
	 * uses the queue's watchdog, @running or scratch, and its fence
	 * signalled before the next one's.  The queue outlives its
	 * workqueue's items.
	 */
	smp_mb__before_atomic();
	atomic_dec(&q->hw_jobs);
	dma_fence_end_signalling(cookie);
	kcov_remote_stop();
	weave_eng_job_release_kick();
}

static struct weave_job *to_weave_job(struct drm_sched_job *sched_job)
{
	return container_of(sched_job, struct weave_job, base);
}

/*
 * Run @job inline in run_job, as far as it may (see "DOC: hardware
 * queues", The job path); the queue's worker is idle.  This is the
 * signalling critical path of the job's hardware fence as the worker is.
 *
 * Return: true if the job is done and its hardware fence signalled; false
 * if the worker is to run it, or the rest of it.
 */
static bool weave_job_run_inline(struct weave_job *job)
{
	struct weave_queue *q = job->queue;
	u64 now = ktime_get_ns();
	bool cookie, done;

	/* The queue's budget, under run_job's serialisation. */
	if (now - q->inline_window >= WEAVE_INLINE_WINDOW_NS) {
		q->inline_window = now;
		q->inline_ns = 0;
	}
	if (q->inline_ns >= WEAVE_INLINE_BUDGET_NS)
		return false;
	kcov_remote_start_common(job->kcov_handle);
	cookie = dma_fence_begin_signalling();
	weave_job_start(job);
	done = weave_job_run_tasks(job, now + WEAVE_INLINE_BUDGET_NS -
					q->inline_ns);
	if (done)
		weave_job_finish(job);
	else
		weave_queue_trace(trace_weave_job_handoff, job, job->run.next,
				  job->run.err);
	dma_fence_end_signalling(cookie);
	kcov_remote_stop();
	q->inline_ns += ktime_get_ns() - now;
	if (done)
		weave_eng_job_release_kick();
	return done;
}

/*
 * Let @q go after an inline or eager run, which has @busy: to the worker
 * too, if @handoff (a job goes to it).
 */
static void weave_queue_release(struct weave_queue *q, bool handoff)
{
	spin_lock(&q->run_lock);
	/* After the run: the next one finds its watchdog and scratch free. */
	smp_store_release(&q->busy, false);
	if (handoff)
		atomic_inc(&q->hw_jobs);
	spin_unlock(&q->run_lock);
	wake_up(&q->busy_wq);
}

static struct dma_fence *weave_queue_run_job(struct drm_sched_job *sched_job)
{
	struct weave_job *job = to_weave_job(sched_job);
	struct weave_queue *q = job->queue;
	struct dma_fence *hw = &job->hw->base;
	bool run_inline;

	job->started = true;
	/* The scheduler's reference, taken before the fence may signal. */
	if (job->eager) {
		dma_fence_get(hw);
		return hw;
	}
	/*
	 * run_job calls are serialised per scheduler: with no job handed to
	 * the worker and no eager run, the queue is this job's alone.
	 */
	spin_lock(&q->run_lock);
	weave_eng_hw_fence_init(job->hw, q->fence_context,
				atomic64_inc_return(&q->fence_seqno));
	run_inline = !atomic_read_acquire(&q->hw_jobs) && !q->busy;
	if (run_inline)
		q->busy = true;
	else
		atomic_inc(&q->hw_jobs);
	spin_unlock(&q->run_lock);
	dma_fence_get(hw);
	if (run_inline) {
		run_inline = weave_job_run_inline(job);
		/* The watchdog, if armed, runs on: the job's time goes on. */
		weave_queue_release(q, !run_inline);
		if (run_inline)
			return hw;
	}
	INIT_WORK(&job->work, weave_job_work);
	queue_work(q->wq, &job->work);
	return hw;
}

/*
 * The most tasks a job may have to run at its push, and the most bytes of
 * pinned pages they may touch in all: one inline task's.
 */
#define WEAVE_EAGER_TASKS	64
#define WEAVE_EAGER_BYTES	WEAVE_INLINE_TASK_BYTES

/* Whether @job is small enough to run at its push, none of it a DELAY. */
static bool weave_job_eager_sized(const struct weave_job *job)
{
	u64 bytes = 0, b;
	u32 i;

	if (job->ntasks > WEAVE_EAGER_TASKS)
		return false;
	for (i = 0; i < job->ntasks; i++) {
		b = weave_task_bytes(&job->tasks[i]);
		if (b > WEAVE_EAGER_BYTES - bytes)
			return false;
		bytes += b;
	}
	return true;
}

/**
 * weave_eng_queue_run_now() - Run a job at its push, if nothing may run
 * before it.
 * @job: The job, armed, with its dependencies, not pushed yet.
 * @settled: Whether each of its dependencies is signalled or one of its
 *	client's own jobs (see "DOC: hardware queues", Eager runs).
 *
 * Runs @job's tasks now, in the caller's thread, when it has at most
 * %WEAVE_EAGER_TASKS tasks, none a DELAY, whose first bindings add up to
 * at most %WEAVE_EAGER_BYTES, @settled holds,
 * every job its client pushed before has run its tasks, and its queue has
 * no job running or handed to the worker; then signals its hardware
 * fence, which run_job will find signalled.
 *
 * Context: The client's mutex held, in a drm_dev_enter() section.
 * Return: true if it ran the job (&weave_job.eager is set).
 */
bool weave_eng_queue_run_now(struct weave_job *job, bool settled)
{
	struct weave_queue *q = job->queue;
	bool cookie;

	if (!settled || atomic_read(&job->ctx->unrun) ||
	    atomic_read(&job->ctx->aborted) || !weave_job_eager_sized(job))
		return false;
	spin_lock(&q->run_lock);
	if (atomic_read_acquire(&q->hw_jobs) || q->busy) {
		spin_unlock(&q->run_lock);
		return false;
	}
	q->busy = true;
	weave_eng_hw_fence_init(job->hw, q->fence_context,
				atomic64_inc_return(&q->fence_seqno));
	spin_unlock(&q->run_lock);

	job->eager = true;
	cookie = dma_fence_begin_signalling();
	weave_job_start(job);
	/* Every task may run inline: no deadline, it runs to its end. */
	weave_job_run_tasks(job, 0);
	weave_job_finish(job);
	dma_fence_end_signalling(cookie);
	weave_queue_release(q, false);
	/* Its buffers, in this thread if it can: see "DOC: job release". */
	weave_eng_job_release_now();
	return true;
}

static void weave_queue_free_job(struct drm_sched_job *sched_job)
{
	struct weave_job *job = to_weave_job(sched_job);
	struct weave_ectx *ctx = job->ctx;

	atomic_dec(&ctx->queued_jobs[job->queue - ctx->engine->queues]);
	drm_sched_job_cleanup(sched_job);
	/* The release may still hold it: see "DOC: job release". */
	weave_eng_job_put(job);
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
		atomic_set(&q->hw_jobs, 0);
		spin_lock_init(&q->run_lock);
		init_waitqueue_head(&q->busy_wq);
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
					      MAX_SCHEDULE_TIMEOUT,
					      q->name,
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
