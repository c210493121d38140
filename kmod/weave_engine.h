/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the soft engine, the backend of the scheduler core.
 *
 * Hardware queues built on the DRM GPU scheduler whose jobs run on the CPU,
 * and the per-client state the backend ops work on.
 */
#ifndef _WEAVE_ENGINE_H_
#define _WEAVE_ENGINE_H_

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/llist.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "weave_arena.h"
#include "weave_core.h"
#include "weave_drm.h"
#include "weave_failure.h"

struct dma_fence;
struct drm_device;
struct weave_device;
struct weave_engine;
struct weave_insync;
struct weave_job;
struct weave_join;
struct weave_proxy;
struct weave_template;

/**
 * struct weave_limits - The module parameters of the scheduler, copied
 * into each device when it is created and reported by
 * %DRM_WEAVE_QUERY_DEVICE_INFO.
 */
struct weave_limits {
	/** @num_queues: Hardware queues of the soft engine. */
	u32 num_queues;
	/** @num_engine_queues: Engine queues, for user engines. */
	u32 num_engine_queues;
	/** @max_streams: Slots per client. */
	u32 max_streams;
	/** @max_tasks: Default and largest slot threshold. */
	u32 max_tasks;
	/** @strategy: Default &enum weave_strategy. */
	u32 strategy;
	/** @job_timeout_ms: Job timeout in milliseconds. */
	u32 job_timeout_ms;
	/** @max_client_streams: Logical streams per client. */
	u32 max_client_streams;
	/** @max_pending_tasks: Enqueued, uncompleted tasks per client. */
	u64 max_pending_tasks;
	/** @max_staged_bytes: Staged host-write bytes per client. */
	u64 max_staged_bytes;
	/** @slot_staging_bytes: Bytes of each slot's staging arena. */
	u32 slot_staging_bytes;
	/** @max_buffer_claims: Claims of failures one buffer holds. */
	u32 max_buffer_claims;
	/** @max_client_claims: Claim nodes one client's failures hold. */
	u32 max_client_claims;
};

/*
 * The most live failures of one client; more share one record, see
 * &weave_ectx.overflow.
 */
#define WEAVE_MAX_LIVE_FAILURES		1024

/*
 * WEAVE_SPARE_TASKS - Freed jobs' task arrays a client keeps: enough for
 * the job being built while others run and wait to be freed (on 6.1 the
 * scheduler frees a finished job only when its thread next wakes): with
 * two, one job in nine of a batched run on eight streams allocated and
 * cleared a fresh array.
 */
#define WEAVE_SPARE_TASKS		4

/** WEAVE_MAX_QUEUES - The most hardware queues a device may have. */
#define WEAVE_MAX_QUEUES		16
/**
 * WEAVE_MAX_SLOT_GATES - The most in-fence gates pending on one slot; a
 * slot that would hold more is executed first.
 */
#define WEAVE_MAX_SLOT_GATES		128
/** WEAVE_MAX_DELAY_US - The longest delay kernel, in microseconds. */
#define WEAVE_MAX_DELAY_US		60000000u

/**
 * struct weave_lstream - A logical stream of a client.
 *
 * Created by %DRM_IOCTL_WEAVE_STREAM_CREATE and held by the client's
 * stream xarray until destroyed; every encoded task of the stream also
 * holds a reference, so the soft engine can credit it after the stream is
 * gone.
 */
struct weave_lstream {
	/** @ref: References: the xarray entry and encoded tasks. */
	struct kref ref;
	/** @handle: The stream's handle in its client. */
	u32 handle;
	/** @priority: Its &enum drm_weave_priority. */
	u32 priority;
	/** @enqueued: Tasks enqueued; written under the client lock. */
	u64 enqueued;
	/** @executed: Tasks handed to the backend. */
	atomic64_t executed;
	/** @completed: Tasks whose job completed. */
	atomic64_t completed;
	/** @error: Zero, or the negative errno the stream failed with. */
	atomic_t error;
	/**
	 * @isolated: The stream holds its slot's isolation in the scheduler
	 * core (%DRM_IOCTL_WEAVE_STREAM_ISOLATE), once at most; under the
	 * client's mutex.
	 */
	bool isolated;
	/**
	 * @window: The stream owns its slot's capture window; written under
	 * the client's mutex, read by the workers.
	 */
	bool window;
	/**
	 * @doom: Zero, or the negative errno of the first failure or skip
	 * of the stream's tasks while @window (or the host write that doomed
	 * it); reset when a window opens.
	 */
	atomic_t doom;
	/** @doom_failure: The id of the failure behind @doom, or zero. */
	atomic64_t doom_failure;
	/**
	 * @ring_page: NULL, or the header page of the stream's shared
	 * submission ring (see "DOC: shared submission rings"), a reference
	 * put when the stream is freed; set once, under the client's mutex.
	 */
	struct page *ring_page;
	/**
	 * @ring_header: The address of @ring_page, where completions raise
	 * &drm_weave_ring_header.completed; published after @ring_page with
	 * a release store.
	 */
	struct drm_weave_ring_header *ring_header;
	/**
	 * @count_lock: Protects @count_entry against its detachment, which
	 * must not race with a completion that writes it.
	 */
	spinlock_t count_lock;
	/**
	 * @count_entry: NULL, or the stream's entry in its client's
	 * completion area (see "DOC: completion page"), which completions
	 * raise too; under @count_lock, read once without it first.
	 */
	u64 *count_entry;
};

/**
 * struct weave_eslot - The engine's state of one slot of a client.
 *
 * Protected by the client's mutex.
 */
struct weave_eslot {
	/**
	 * @last: The finished fence of the last job that holds a task of
	 * this slot, or NULL.  Every later such job depends on it, which keeps
	 * the slot's FIFO order across backend streams.
	 */
	struct dma_fence *last;
	/**
	 * @gates: In-fence gates the next job with a task of the slot waits
	 * on, at most one per in-fence context and %WEAVE_MAX_SLOT_GATES.
	 */
	struct dma_fence **gates;
	/** @ngates: Used entries of @gates. */
	u32 ngates;
	/** @cgates: Allocated entries of @gates. */
	u32 cgates;
	/**
	 * @insyncs: The in-syncs of the slot's enqueues whose last task is
	 * not encoded yet, oldest first (&struct weave_insync).
	 */
	struct list_head insyncs;
	/**
	 * @staging: The slot's staging arena, whose bytes are allocated on
	 * the slot's first host write small enough for it and kept with the
	 * context; see "DOC: staging".
	 */
	struct weave_arena staging;
};

/**
 * struct weave_ectx - The soft engine's context of one client.
 *
 * Created at open, aborted at close or when the device is unplugged.  Jobs
 * hold references, so it lives until the client's last job is freed.
 */
struct weave_ectx {
	/** @ref: The client's reference and one per job. */
	struct kref ref;
	/**
	 * @id: Names the client's jobs in their proxies: never zero, never
	 * reused while the module is loaded.
	 */
	u64 id;
	/**
	 * @drm: The device, a reference: the engine and the device's buffers
	 * stay until the client's last job is freed, also after an unplug.
	 */
	struct drm_device *drm;
	/** @engine: The device's engine. */
	struct weave_engine *engine;
	/**
	 * @streams: The client's logical streams by handle, &struct
	 * weave_lstream; an entry holds a reference.  Under the client's
	 * mutex, which fills and empties it.
	 */
	struct xarray streams;
	/** @failures: The device's failure graph. */
	struct weave_failures *failures;
	/** @limits: The device's limits, which live as long as @drm. */
	const struct weave_limits *limits;
	/** @max_streams: Slots of the client. */
	u32 max_streams;
	/**
	 * @task_hint: Tasks a new job has room for before it grows: the
	 * client's threshold, which the core hands to create_stream.  Written
	 * there, under the client's mutex.
	 */
	u32 task_hint;
	/**
	 * @spare_lock: Guards @spare_tasks and @nspare, and @task_hint's
	 * changes; taken with interrupts off, innermost.
	 */
	spinlock_t spare_lock;
	/**
	 * @spare_tasks: Freed jobs' task arrays of @task_hint entries, kept
	 * for the next jobs: the first @nspare.
	 */
	void *spare_tasks[WEAVE_SPARE_TASKS];
	/** @nspare: Entries of @spare_tasks in use. */
	u32 nspare;
	/**
	 * @kcov_handle: Zero; or, while the ring polling thread consumes one
	 * of the client's rings, the handle of that ring's creator
	 * (&weave_sring.kcov_handle), which the jobs the thread commits carry
	 * (&weave_job.kcov_handle) as the thread has none.  Under the
	 * client's mutex.
	 */
	u64 kcov_handle;
	/**
	 * @reserve: A job made ahead and not used yet, or NULL: room for one
	 * task that enqueue has no memory to encode where the core cannot
	 * keep it (see weave_eng_ctx_reserve()).  Under the client's mutex.
	 */
	struct weave_job *reserve;
	/** @slots: @max_streams slot states, under the client's mutex. */
	struct weave_eslot *slots;
	/**
	 * @unpushed: The client's jobs not yet pushed, in the order their
	 * tasks were enqueued: the ones a flush could not push, then the one
	 * being encoded.  Under the client's mutex.
	 */
	struct list_head unpushed;
	/** @ngates: Gates pending on all slots, under the client's mutex. */
	u64 ngates;
	/**
	 * @aborted: Zero, or the negative errno the client's work was cut
	 * short with, set once: -ECANCELED at close, -ENODEV at unplug.
	 * Running jobs stop, new ones skip.
	 */
	atomic_t aborted;
	/**
	 * @unrun: Jobs pushed whose tasks have not all run (or been cut
	 * short): a job may run eagerly at its push only when there is none
	 * (see "DOC: hardware queues", Eager runs).
	 */
	atomic_t unrun;
	/** @pending_tasks: Enqueued tasks not yet completed. */
	atomic64_t pending_tasks;
	/** @staged_bytes: Host-write bytes staged and not yet written. */
	atomic64_t staged_bytes;
	/**
	 * @arena_bytes: Bytes of the slots' staging arenas, under the
	 * client's mutex.
	 */
	u64 arena_bytes;
	/**
	 * @alone_bytes: Bytes of the staged host writes too large for their
	 * slot's arena, which have memory of their own.
	 */
	atomic64_t alone_bytes;
	/** @staging_wq: Woken when a slice goes back to an arena. */
	wait_queue_head_t staging_wq;
	/**
	 * @done_wq: Woken when a stream's completed count grows, and when
	 * the context is aborted: %DRM_WEAVE_WAIT_SEQNO waits on it.
	 */
	wait_queue_head_t done_wq;
	/**
	 * @job_bytes: Bytes of the task arrays of jobs not yet freed, at
	 * their capacity, and of @spare_tasks.
	 */
	atomic64_t job_bytes;
	/**
	 * @job_cache: Freed jobs kept for the client's next ones, at most
	 * %WEAVE_JOB_CACHE (see "DOC: job recycling").
	 */
	struct llist_head job_cache;
	/** @job_cached: Entries of @job_cache (more while one goes in). */
	atomic_t job_cached;
	/** @jobs: Jobs allocated and not yet freed. */
	atomic64_t jobs;
	/** @submitted_jobs: Jobs pushed since the client opened its file. */
	atomic64_t submitted_jobs;
	/**
	 * @exec_jobs: @submitted_jobs when the execution that the weave_exec
	 * event observes began; under the client's mutex.
	 */
	u64 exec_jobs;
	/**
	 * @busy_ns: Per hardware queue, the nanoseconds its worker spent
	 * running the client's jobs, added as each job ends (fdinfo's
	 * weave-engine-q<N>, and their sum drm-engine-soft).
	 */
	atomic64_t busy_ns[WEAVE_MAX_QUEUES];
	/**
	 * @queued_jobs: Per hardware queue, the client's jobs pushed to its
	 * scheduler and not yet freed (debugfs).
	 */
	atomic_t queued_jobs[WEAVE_MAX_QUEUES];
	/** @gate_lock: Protects @gates; taken with interrupts off. */
	spinlock_t gate_lock;
	/** @gates: Gates whose in-fence has not signalled yet. */
	struct list_head gates;
	/**
	 * @fowner: The client's live failures, under the graph's lock; let go
	 * of (not freed: they live on bytes) with the context.
	 */
	struct weave_fowner fowner;
	/**
	 * @overflow: The failure the client's tasks share once @fowner is
	 * full, or @fstash has no record, made by the first worker that needs
	 * it and freed, its record kept here, with the last byte that
	 * carries it; under the graph's lock.
	 */
	struct weave_fshared overflow;
	/**
	 * @fstash: The memory the failure graph takes for the client's tasks,
	 * charged to it: filled by weave_eng_ctx_reserve() at each enqueue,
	 * taken by the workers under the graph's lock.
	 */
	struct weave_fstash fstash;
	/**
	 * @fstash_busy: jiffies of the last reservation in @fstash made with
	 * tasks pending: an idle client trims @fstash only a second after,
	 * so that one whose queue drains between calls keeps what it uses.
	 * Under the client's mutex.
	 */
	unsigned long fstash_busy;
	/**
	 * @rcu: Frees the context after a grace period: a gate's fence
	 * callback, which runs with interrupts off, may still be taking
	 * @gate_lock after the last reference is gone.
	 */
	struct rcu_head rcu;
};

/**
 * weave_eng_count_raise() - Raise a copy of a completed count that user
 * space maps.
 * @copy: The copy: a ring header's, or an entry of a completion area.
 * @done: The count, as the stream's atomic counter returned it.
 *
 * The copy never goes backwards, also when two completions of a stream
 * race; a successful cmpxchg is fully ordered, so a reader that loads
 * the new value with acquire sees what the tasks before it wrote.
 */
static inline void weave_eng_count_raise(u64 *copy, u64 done)
{
	u64 old = READ_ONCE(*copy);

	while (old < done) {
		u64 was = cmpxchg64(copy, old, done);

		if (was == old)
			break;
		old = was;
	}
}

/**
 * weave_eng_lstream_completed() - Count tasks of a stream as completed.
 * @ls: The stream.
 * @n: How many.
 *
 * Raises its completed count, and the copies of it user space maps: in
 * its shared ring's header, if it has one, and in its client's
 * completion area, if it has one (see "DOC: completion page").
 */
static inline void weave_eng_lstream_completed(struct weave_lstream *ls,
					       u64 n)
{
	/* Fully ordered: before @count_entry is read, as attach expects. */
	u64 done = atomic64_add_return(n, &ls->completed);
	/* Pairs with the release that publishes the page, zeroed. */
	struct drm_weave_ring_header *h = smp_load_acquire(&ls->ring_header);

	if (h)
		weave_eng_count_raise(&h->completed, done);
	if (!READ_ONCE(ls->count_entry))
		return;
	spin_lock(&ls->count_lock);
	if (ls->count_entry)
		weave_eng_count_raise(ls->count_entry, done);
	spin_unlock(&ls->count_lock);
}

/**
 * weave_eng_lstream_count_attach() - Give a stream its entry in its
 * client's completion area.
 * @ls: The stream, which has none.
 * @entry: The entry, zero.
 *
 * The entry gets the count at once.  A completion that raised the count
 * and did not see @entry yet is caught up here: the store of the pointer
 * and the read of the count are ordered by a full barrier, as the
 * completion's raise and its read of the pointer are.
 *
 * Context: The client's mutex held.
 */
static inline void weave_eng_lstream_count_attach(struct weave_lstream *ls,
						  u64 *entry)
{
	spin_lock(&ls->count_lock);
	WRITE_ONCE(ls->count_entry, entry);
	/* Pairs with the raise's full barrier in lstream_completed(). */
	smp_mb();
	weave_eng_count_raise(entry, atomic64_read(&ls->completed));
	spin_unlock(&ls->count_lock);
}

/**
 * weave_eng_lstream_count_detach() - Take a stream's entry in its
 * client's completion area away, zeroed.
 * @ls: The stream.
 *
 * No completion writes the entry once this returns, so a later stream
 * can have it.
 *
 * Context: The client's mutex held.
 */
static inline void weave_eng_lstream_count_detach(struct weave_lstream *ls)
{
	spin_lock(&ls->count_lock);
	if (ls->count_entry)
		WRITE_ONCE(*ls->count_entry, 0);
	WRITE_ONCE(ls->count_entry, NULL);
	spin_unlock(&ls->count_lock);
}

/**
 * weave_eng_ctx_done() - Tell seqno waiters that a completed count grew.
 * @ctx: The client's engine context.
 *
 * Any context but a hard interrupt: the worker's after it counted a job's
 * tasks, before it signals the job's fence.  wq_has_sleeper() orders the
 * count before the check, so that a waiter either sees the new count or
 * is woken; without one, it costs a barrier.
 */
static inline void weave_eng_ctx_done(struct weave_ectx *ctx)
{
	if (wq_has_sleeper(&ctx->done_wq))
		wake_up_all(&ctx->done_wq);
}

#endif /* _WEAVE_ENGINE_H_ */
