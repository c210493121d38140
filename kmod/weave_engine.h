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
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "weave_arena.h"
#include "weave_core.h"
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
	/** @streams: The client's logical streams, read under its mutex. */
	struct xarray *streams;
	/** @max_streams: Slots of the client. */
	u32 max_streams;
	/**
	 * @task_hint: Tasks a new job has room for before it grows: the
	 * client's threshold, which the core hands to create_stream.  Written
	 * there, under the client's mutex.
	 */
	u32 task_hint;
	/**
	 * @spare_tasks: A freed job's task array of @task_hint entries, kept
	 * for the next job (exchanged atomically), or NULL.
	 */
	void *spare_tasks;
	/**
	 * @reserve: A job made ahead and not used yet, or NULL: room for one
	 * task that enqueue has no memory to encode where the core cannot
	 * keep it (see weave_ectx_reserve()).  Under the client's mutex.
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
	 * @job_bytes: Bytes of the task arrays of jobs not yet freed, at
	 * their capacity, and of @spare_tasks.
	 */
	atomic64_t job_bytes;
	/** @jobs: Jobs allocated and not yet freed. */
	atomic64_t jobs;
	/** @submitted_jobs: Jobs pushed since the client opened its file. */
	atomic64_t submitted_jobs;
	/**
	 * @busy_ns: Per hardware queue, the nanoseconds its worker spent
	 * running the client's jobs, added as each job ends (fdinfo's
	 * drm-engine-<queue>).
	 */
	atomic64_t busy_ns[WEAVE_MAX_QUEUES];
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
	 * full, or @fstash has no record, a reference; set once, by the first
	 * worker that needs it, under the graph's lock.
	 */
	struct weave_failure *overflow;
	/**
	 * @fstash: The memory the failure graph takes for the client's tasks,
	 * charged to it: filled by weave_ectx_reserve() at each enqueue,
	 * taken by the workers under the graph's lock.
	 */
	struct weave_fstash fstash;
	/** @ostash: The record kept for @overflow, until it is made. */
	struct weave_fstash ostash;
	/**
	 * @rcu: Frees the context after a grace period: a gate's fence
	 * callback, which runs with interrupts off, may still be taking
	 * @gate_lock after the last reference is gone.
	 */
	struct rcu_head rcu;
};

extern const struct weave_backend_ops weave_engine_ops;

struct weave_insync *weave_insync_create(struct weave_ectx *ctx,
					 struct dma_fence **fences, u32 n);
void weave_insync_commit(struct weave_ectx *ctx, u32 slot,
			 struct weave_insync *in, u64 first, u64 last);
void weave_insync_put(struct weave_insync *in);
int weave_ectx_fail_reserve(struct weave_ectx *ctx,
			    const struct weave_task *tasks, u32 n,
			    bool queued_only);
void weave_ectx_fail_usage(struct weave_ectx *ctx, u64 *claims, u64 *records,
			   u64 *bytes);
struct weave_insync *weave_eslot_insync(struct weave_eslot *es, u64 seqno);
void weave_eslot_insyncs_free(struct weave_eslot *es);

int weave_engine_module_init(void);
void weave_engine_module_exit(void);
int weave_engine_init(struct weave_device *wdev);
void weave_engine_fini(struct weave_device *wdev);

struct weave_ectx *weave_ectx_create(struct weave_device *wdev,
				     struct xarray *streams, u32 max_streams);
void weave_ectx_abort(struct weave_ectx *ctx, int err);
int weave_ectx_reserve(struct weave_ectx *ctx);
void weave_ectx_put(struct weave_ectx *ctx);
u32 weave_ectx_gate_room(struct weave_ectx *ctx, u32 slot);
int weave_ectx_gates_prepare(struct weave_ectx *ctx, u32 slot,
			     struct dma_fence **fences, u32 *n);
void weave_ectx_gates_commit(struct weave_ectx *ctx, u32 slot,
			     struct dma_fence **gates, u32 n);
u64 weave_ectx_gate_bytes(struct weave_ectx *ctx);
bool weave_ectx_held(struct weave_ectx *ctx);
struct dma_fence *weave_ectx_slot_fence(struct weave_ectx *ctx, u32 slot);
struct weave_proxy *weave_proxy_create(void);
struct dma_fence *weave_proxy_attach(struct weave_proxy *proxy,
				     struct dma_fence *in);
void weave_proxy_put(struct weave_proxy *proxy);
struct weave_join *weave_join_create(u32 max);
void weave_join_add(struct weave_join *join, struct dma_fence *fence);
struct dma_fence *weave_join_arm(struct weave_join *join);
void weave_join_put(struct weave_join *join);

void weave_lstream_put(struct weave_lstream *ls);

struct weave_template *weave_template_create(const struct weave_task *tasks,
					     u32 n);
void weave_template_put(struct weave_template *tmpl);
int weave_template_queue(struct weave_bstream *bs, struct weave_template *tmpl,
			 struct weave_lstream *ls, u64 first_seqno,
			 struct weave_insync *in, struct dma_fence **gates,
			 u32 ngates);

void *weave_staging_get(struct weave_ectx *ctx, u32 slot, u32 len,
			bool arena);
u64 weave_staging_reclaimed(struct weave_ectx *ctx, u32 slot);
int weave_staging_wait(struct weave_ectx *ctx, u32 slot, u64 seen,
		       u32 timeout_ms);
void weave_staging_drop(struct weave_ectx *ctx, void *data, u64 len);
void weave_staging_free(struct weave_ectx *ctx, void *data, u64 len);

#endif /* _WEAVE_ENGINE_H_ */
