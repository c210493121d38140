/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the soft engine's jobs, the encoded tasks they carry and the
 * backend streams they are made for.
 */
#ifndef _WEAVE_JOB_H_
#define _WEAVE_JOB_H_

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/compiler.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

#include "weave_engine.h"
#include "weave_lists.h"

struct drm_gem_object;
struct drm_gem_shmem_object;
struct weave_fence;
struct weave_proxy;

/* Entities per backend stream: one per &enum drm_weave_priority. */
#define WEAVE_NUM_PRIOS		3
/*
 * Bindings an encoded task holds inline: ADD_U32 has the most.  Only a
 * FAIL may have more, which the failure graph needs: they are allocated.
 */
#define WEAVE_ETASK_BINDINGS	3
/* Tallies and dependencies a job holds without allocating. */
#define WEAVE_JOB_INLINE	4

/**
 * struct weave_bstream - A backend stream: the soft engine's per-slot
 * submission context.
 *
 * Its entities are finished, and it is freed, only once the client has
 * let it go and every job made for it is freed (see "DOC: soft engine",
 * Lifetimes).
 */
struct weave_bstream {
	/** @ref: The client's reference and one per job made for it. */
	struct kref ref;
	/** @fini_work: Finishes the entities and frees the backend stream. */
	struct work_struct fini_work;
	/** @ctx: The client's engine context, a reference. */
	struct weave_ectx *ctx;
	/** @slot: The slot whose backend stream this is. */
	u32 slot;
	/** @queue: The hardware queue its jobs go to. */
	struct weave_queue *queue;
	/** @sched_list: The one scheduler of @entity. */
	struct drm_gpu_scheduler *sched_list[1];
	/** @entity: One entity per &enum drm_weave_priority. */
	struct drm_sched_entity entity[WEAVE_NUM_PRIOS];
	/**
	 * @fence_context: The first of %WEAVE_NUM_PRIOS fence contexts, one
	 * per entry of @entity: the timelines of its jobs' proxies (see "DOC:
	 * fences", Timelines).
	 */
	u64 fence_context;
	/**
	 * @fence_seqno: The last proxy seqno of each timeline, under the
	 * client's mutex.
	 */
	u64 fence_seqno[WEAVE_NUM_PRIOS];
	/**
	 * @last_tasks: The tasks of the last job pushed to it, zero before
	 * the first; under the client's mutex.  Sizes the next job's task
	 * array (weave_eng_job_alloc()).
	 */
	u32 last_tasks;
};

/*
 * A run of consecutive tasks of one logical stream in a job, with
 * consecutive sequence numbers on it and the same in-syncs: what a
 * failure report says of each task's stream and seqno, kept here rather
 * than in every task.
 */
struct weave_tally {
	struct weave_lstream *ls;
	u32 count;
	u64 first_seqno;		/* &weave_entry.stream_seqno of the first */
	struct weave_insync *insync;	/* a reference, or NULL */
};

/* A buffer range an encoded task uses. */
struct weave_ebinding {
	struct drm_gem_shmem_object *shmem;
	u64 offset;
	u64 size;
};

/*
 * One encoded task, what the worker runs.  Every task of a job pays for
 * its size, so it stays small: its stream, seqno and in-syncs are its
 * tally's, and a host write's length is its binding's size.  A task
 * enqueue refused for lack of memory, where the core could not keep it,
 * is @refused: it does not run, @arg is its positive errno, @cause the
 * failure's cause, and a host write has no staging.  So is a task that a
 * capture window refused (&weave_entry.refuse).
 */
struct weave_etask {
	u32 arg;
	u32 label;
	u8 kind;
	u8 kernel;
	u8 nb;
	u8 refused;
	u8 access[WEAVE_MAX_BINDINGS];
	u8 cause;
	struct weave_ebinding b[WEAVE_ETASK_BINDINGS];
	union {
		void *data;			/* a host write's staging */
		struct weave_ebinding *more;	/* a launch's bindings past @b */
	};
};

/*
 * Where a running job stands, so that a job started inline in run_job can
 * go on in the worker (see "DOC: hardware queues", The job path).
 */
struct weave_jrun {
	u64 start;			/* ktime_get_ns() at its start */
	const struct weave_tally *tally;	/* the tally of task @next */
	u32 next;			/* the first task not run yet */
	u32 pos;			/* the place of task @next in @tally */
	int err;			/* the job's error so far */
	bool skip;			/* it failed before it ran: run nothing */
	bool begun;			/* started, its watchdog armed */
};

/**
 * struct weave_job - A job of the soft engine.
 */
struct weave_job {
	/** @base: The scheduler job. */
	struct drm_sched_job base;
	/** @ctx: The client's engine context; a reference. */
	struct weave_ectx *ctx;
	/** @failures: The graph its tasks record failures in. */
	struct weave_failures *failures;
	/** @bs: The backend stream whose entities it is pushed to. */
	struct weave_bstream *bs;
	/** @queue: The queue it runs on. */
	struct weave_queue *queue;
	/** @hw: The hardware fence, initialised by the first run_job. */
	struct weave_fence *hw;
	/**
	 * @proxy: The fence that stands in for the finished fence in the
	 * buffers' reservation objects; allocated with the job, attached (and
	 * given its place on the entity's timeline) at flush.
	 */
	struct weave_proxy *proxy;
	/** @link: In &weave_ectx.unpushed until it is pushed. */
	struct list_head link;
	/** @work: The worker's item on &weave_queue.wq. */
	struct work_struct work;
	/** @run: Where it stands while it runs, inline or on the worker. */
	struct weave_jrun run;
	/** @cache: In &weave_ectx.job_cache while it waits to be reused. */
	struct llist_node cache;
	/**
	 * @refs: Who may still use the job: its own reference, which the
	 * scheduler's free_job drops (or the free of a job never pushed), and
	 * one from its completion until what it held for its run is let go
	 * (see "DOC: job release").  The last frees it.
	 */
	refcount_t refs;
	/**
	 * @release: In the list of completed jobs whose buffers and in-syncs
	 * are to be let go (see "DOC: job release").
	 */
	struct llist_node release;
	/**
	 * @kcov_handle: kcov_common_handle() of the task that committed it,
	 * or for the ring polling thread, &weave_ectx.kcov_handle, so that
	 * a fuzzer's KCOV follows its tasks to the thread that runs them
	 * (see "DOC: hardware queues", Coverage); zero for none.
	 */
	u64 kcov_handle;
	/** @started: run_job was called; under the scheduler's serialisation. */
	bool started;
	/**
	 * @eager: Its tasks ran at its push, before the scheduler had it, and
	 * its hardware fence is signalled (see "DOC: hardware queues", Eager
	 * runs).  Set under the client's mutex before the push.
	 */
	bool eager;
	/**
	 * @unrun: Counted in &weave_ectx.unrun, from its push until its tasks
	 * are done (or it is freed without running).
	 */
	bool unrun;
	/** @abort: Zero, or the negative errno that cuts the job short. */
	int abort;
	/** @prio: The highest &enum drm_weave_priority of its streams. */
	u32 prio;
	/**
	 * @tallies: Runs of tasks per logical stream, each with a reference
	 * to its stream: what the job credits and, on a timeout, fails.
	 */
	struct weave_tally *tallies;
	/** @ntallies: Used entries of @tallies. */
	u32 ntallies;
	/** @ctallies: Allocated entries of @tallies. */
	u32 ctallies;
	/**
	 * @tasks: The encoded tasks; borrowed from @tmpl if it is set, and
	 * then read-only.
	 */
	struct weave_etask *tasks;
	/**
	 * @tmpl: The template of a replay's job, a reference, or NULL (see
	 * "DOC: job templates").
	 */
	struct weave_template *tmpl;
	/** @ntasks: Used entries of @tasks. */
	u32 ntasks;
	/** @ctasks: Allocated entries of @tasks. */
	u32 ctasks;
	/** @pending: Tasks still counted in &weave_ectx.pending_tasks. */
	u32 pending;
	/**
	 * @bos: The buffers, one reference and pin each; sorted and unique
	 * at flush; let go of once the job completes (see "DOC: job
	 * release"), @nbos then zero.
	 */
	struct weave_jbo *bos;
	/** @nbos: Used entries of @bos. */
	u32 nbos;
	/** @cbos: Allocated entries of @bos. */
	u32 cbos;
	/** @objs: The objects of @bos, for the reservation helpers; @cbos. */
	struct drm_gem_object **objs;
	/** @deps: Fences to add as dependencies at flush; references. */
	struct dma_fence **deps;
	/** @ndeps: Used entries of @deps. */
	u32 ndeps;
	/** @cdeps: Allocated entries of @deps. */
	u32 cdeps;
	/** @tally0: The first entries of @tallies, no allocation needed. */
	struct weave_tally tally0[WEAVE_JOB_INLINE];
	/** @dep0: The first entries of @deps, no allocation needed. */
	struct dma_fence *dep0[WEAVE_JOB_INLINE];
	/** @rcu: Frees the job and drops its module reference. */
	struct rcu_head rcu;
	/** @slots: Bitmap of the client's slots with tasks in the job. */
	unsigned long slots[];
};

/**
 * struct weave_queue - One hardware queue of the soft engine.
 */
struct weave_queue {
	/** @sched: The DRM GPU scheduler of the queue. */
	struct drm_gpu_scheduler sched;
	/**
	 * @wq: The ordered workqueue that runs the jobs, or what of them
	 * run_job did not run inline: the "hardware".
	 */
	struct workqueue_struct *wq;
	/** @abort_wq: Woken when a job of the queue is aborted. */
	wait_queue_head_t abort_wq;
	/**
	 * @watchdog: Cuts @running short after @timeout_ms; armed and
	 * cancelled by the job's thread, run_job or the worker (see "DOC:
	 * hardware queues", Timeouts).
	 */
	struct hrtimer watchdog;
	/**
	 * @running: The job that runs, inline or on the worker, while
	 * @watchdog is armed.
	 */
	struct weave_job *running;
	/**
	 * @hw_jobs: Jobs handed to @wq and not yet signalled; run_job runs a
	 * job inline only when there is none, and a push runs one eagerly
	 * only then.  Raised under @run_lock.
	 */
	atomic_t hw_jobs;
	/**
	 * @run_lock: Decides who runs a job of the queue next: run_job inline,
	 * the worker or an eager run at a push; hands out the hardware fences'
	 * seqnos in that order, and guards @busy.  Held for no task.
	 */
	spinlock_t run_lock;
	/**
	 * @busy: A job runs inline in run_job or eagerly at its push; under
	 * @run_lock.  A job handed to the worker meanwhile waits on @busy_wq.
	 */
	bool busy;
	/** @busy_wq: Woken when @busy is cleared. */
	wait_queue_head_t busy_wq;
	/**
	 * @inline_window: When the current window of the inline budget
	 * began (ktime_get_ns()); under run_job's serialisation.
	 */
	u64 inline_window;
	/** @inline_ns: Time run_job ran jobs inline in that window. */
	u64 inline_ns;
	/** @timeout_ms: How long a job may run, job_timeout_ms. */
	u32 timeout_ms;
	/** @fence_context: The context of the queue's hardware fences. */
	u64 fence_context;
	/** @fence_seqno: The last hardware fence seqno. */
	atomic64_t fence_seqno;
	/**
	 * @scratch: Three pages of bounce buffers, used by the running job
	 * only.
	 */
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
	/** @fini_work: Tears the engine down, on weave_eng_wq. */
	struct work_struct fini_work;
	/** @num_queues: Used entries of @queues. */
	u32 num_queues;
	/** @queues: The hardware queues. */
	struct weave_queue queues[WEAVE_MAX_QUEUES];
};

/**
 * struct weave_template - A graph's tasks, encoded once for its replays.
 *
 * See "DOC: job templates".  Read-only once made.
 */
struct weave_template {
	/** @ref: The graph's reference and one per job made from it. */
	struct kref ref;
	/** @ntasks: Entries of @tasks, not zero. */
	u32 ntasks;
	/** @nbos: Entries of @bos. */
	u32 nbos;
	/**
	 * @bos: The buffers the tasks bind, sorted, each once with the union
	 * of its access; a reference each.
	 */
	struct weave_jbo *bos;
	/** @tasks: The encoded tasks, in their recorded order. */
	struct weave_etask tasks[] __counted_by(ntasks);
};

/* Binding @i of @t, below &weave_etask.nb. */
static_assert(sizeof(struct weave_etask) <= 104);

static inline struct weave_ebinding *
weave_eng_etask_binding(struct weave_etask *t, u32 i)
{
	return i < WEAVE_ETASK_BINDINGS ? &t->b[i] :
					  &t->more[i - WEAVE_ETASK_BINDINGS];
}

static inline bool weave_eng_job_aborted(struct weave_job *job)
{
	return READ_ONCE(job->abort) || atomic_read(&job->ctx->aborted);
}

/*
 * The logical stream all of @job's tasks came from, for its trace events;
 * 0 if they came from several (an interleave) or it has none.
 */
static inline u32 weave_eng_job_stream(const struct weave_job *job)
{
	u32 i;

	for (i = 1; i < job->ntallies; i++)
		if (job->tallies[i].ls != job->tallies[0].ls)
			return 0;
	return job->ntallies ? job->tallies[0].ls->handle : 0;
}

void weave_eng_job_release_tasks(struct weave_job *job);
void weave_eng_job_ran(struct weave_job *job);
void weave_eng_job_put_bo(struct drm_gem_object *obj);
struct weave_job *weave_eng_job_alloc_from(struct weave_bstream *bs,
					   struct weave_template *tmpl,
					   u32 ndeps);

struct weave_job *weave_eng_job_alloc(struct weave_bstream *bs);
int weave_eng_job_reserve(struct weave_job *job, const struct weave_entry *task,
			  u32 ndeps);
struct weave_job *weave_eng_job_take_reserve(struct weave_bstream *bs,
					     const struct weave_entry *task,
					     u32 ndeps,
					     struct weave_ebinding **more);
void weave_eng_job_free_reserve(struct weave_job *job);
void weave_eng_job_free(struct weave_job *job);
void weave_eng_bstream_release(struct kref *ref);
int weave_eng_ctx_reserve(struct weave_ectx *ctx);
struct weave_ectx *weave_eng_ctx_create(struct drm_device *drm,
					struct weave_engine *engine,
					struct weave_failures *failures,
					const struct weave_limits *limits);
void weave_eng_ctx_put(struct weave_ectx *ctx);
void weave_eng_lstream_put(struct weave_lstream *ls);
void weave_eng_template_put(struct weave_template *tmpl);

/* Tears engines and backend streams down; drained at module exit. */
extern struct workqueue_struct *weave_eng_wq;
int weave_eng_module_init(void);
void weave_eng_module_exit(void);

#endif /* _WEAVE_JOB_H_ */
