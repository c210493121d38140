/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the soft engine's hardware queues and the worker that runs jobs on
 * them.
 */
#ifndef _WEAVE_QUEUE_H_
#define _WEAVE_QUEUE_H_

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

#include "weave_engine.h"

struct weave_etask;
struct weave_job;
struct weave_tally;

/**
 * struct weave_queue - One hardware queue of the soft engine.
 */
struct weave_queue {
	/** @sched: The DRM GPU scheduler of the queue. */
	struct drm_gpu_scheduler sched;
	/** @wq: The ordered workqueue that runs the jobs: the "hardware". */
	struct workqueue_struct *wq;
	/** @abort_wq: Woken when a job of the queue is aborted. */
	wait_queue_head_t abort_wq;
	/**
	 * @watchdog: Cuts @running short after @timeout_ms; armed and
	 * cancelled by the worker (see "DOC: hardware queues", Timeouts).
	 */
	struct hrtimer watchdog;
	/** @running: The job the worker runs, while @watchdog is armed. */
	struct weave_job *running;
	/** @timeout_ms: How long a job may run, job_timeout_ms. */
	u32 timeout_ms;
	/** @fence_context: The context of the queue's hardware fences. */
	u64 fence_context;
	/** @fence_seqno: The last hardware fence seqno. */
	atomic64_t fence_seqno;
	/** @scratch: Three pages of bounce buffers, used by the worker only. */
	u8 *scratch;
	/** @name: The scheduler's name. */
	char name[24];
};

/**
 * struct weave_engine - The soft engine of a device.
 *
 * Made with the device, and torn down from @fini_work once the device's
 * last reference is gone, which can be a job freed by one of the engine's
 * own schedulers.
 */
struct weave_engine {
	/** @dev: The device's parent, a reference, for the schedulers. */
	struct device *dev;
	/** @fini_work: Tears the engine down, on weave_engine_wq. */
	struct work_struct fini_work;
	/** @num_queues: Used entries of @queues. */
	u32 num_queues;
	/** @queues: The hardware queues. */
	struct weave_queue queues[WEAVE_MAX_QUEUES];
};

/* Tears engines and backend streams down; drained at module exit. */
extern struct workqueue_struct *weave_engine_wq;

void weave_job_work(struct work_struct *work);
int weave_run_task(struct weave_job *job, struct weave_etask *t);
int weave_task_execute(struct weave_job *job, struct weave_etask *t,
		       const struct weave_tally *tally, u32 pos);
int weave_job_fail_from(struct weave_job *job, u32 first,
			const struct weave_tally *tally, u32 pos, int err);

#endif /* _WEAVE_QUEUE_H_ */
