// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the soft engine, the backend of the scheduler core.
 *
 * Hardware queues are DRM GPU schedulers whose jobs run on the CPU, one
 * ordered workqueue per queue.  This file implements &struct
 * weave_backend_ops on top of them.
 */

#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/err.h>
#include <linux/highmem.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/ww_mutex.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/gpu_scheduler.h>

#include "weave_compat.h"
#include "weave_drm.h"
#include "weave_drv.h"
#include "weave_engine.h"

/**
 * DOC: soft engine
 *
 * Each device has num_queues hardware queues.  A queue is a &struct
 * drm_gpu_scheduler plus an ordered workqueue, its "hardware": run_job
 * hands the job to the workqueue and returns the job's hardware fence at
 * once; the worker runs the job's tasks on the CPU in order, against the
 * pinned shmem pages of its buffers (kmap_local_page(), no lock), then
 * signals the fence.  Jobs never run on the scheduler's own thread, as
 * on real hardware.  Hardware fences have one fence context per queue.
 *
 * A backend stream is one slot's: three scheduler entities (one per
 * priority) on queue slot % num_queues.  The client has at most one job
 * not yet pushed, &weave_ectx.job: enqueue appends a task to it,
 * allocating it (for the backend stream it is given) on first use; flush
 * arms it on the entity of the highest priority among the logical streams
 * of its tasks, and pushes it.
 *
 * Ordering.  (a) Jobs that share buffers, also across queues and clients:
 * at flush the job's buffers are locked together (ww mutexes), the job
 * waits for their reservation fences (implicit sync, reads after writes,
 * writes after everything) and adds, as a read or write fence, a weave
 * fence that stands in for its finished fence (see Unload).  It waits for
 * its own client's jobs directly and for any other fence through a gate
 * (see (c)), so that a closed client's jobs wait for no one else.  (b) Each
 * slot's FIFO, across backend streams (interleave puts a slot's tasks on
 * another slot's backend stream): a job depends on
 * &weave_eslot.last of every slot it holds tasks of, and becomes that
 * slot's last.  (c) In-fences of %DRM_IOCTL_WEAVE_ENQUEUE become gates:
 * weave fences that signal when the in-fence does, or at once with
 * -ECANCELED when the client closes, so that a close never waits on
 * someone else's fence.  The next job with a task of the slot depends on
 * them.  A slot keeps one pending gate per fence context (the later
 * fence wins), and at most %WEAVE_MAX_SLOT_GATES of them.
 *
 * Submission never loses a task.  Every allocation a job needs is made
 * when its tasks are appended.  enqueue refuses a task it has no memory to
 * append, leaving it and the job untouched; the core then keeps the task
 * queued and the FLUSH (or ENQUEUE) fails with -ENOMEM, or, in the
 * executions an ENQUEUE causes after it committed, hands it to fail: its
 * stream is marked failed with -ENOMEM and the task counts as executed and
 * completed.  Buffers are pinned from their creation, so flush pins
 * nothing.  Flush can still fail for lack of memory (scheduler job,
 * dependency or reservation slots); the job then stays in &weave_ectx.job,
 * unchanged, and every later task of the client is appended to it, so no
 * order is broken, until a later flush pushes it.
 *
 * Lifetimes.  A job holds references to the client's engine context, the
 * logical streams of its tasks, its buffers, the backend stream it was
 * made for and the module, and drops them when it is freed.  A client
 * never waits for its entities to drain, not at close and not when it is
 * killed: drm_sched_entity_flush() would wait behind other clients' work
 * on the queue, and on 6.1 the kill that follows it for an exiting
 * process leaks a fence reference when a job's dependency has already
 * signalled, pinning the module.  Instead a backend stream, with its
 * entities, lives until the client has let it go and the last job made
 * for it is freed; drm_sched_entity_fini() then finds its queue empty and
 * kills nothing.  That runs on weave_engine_wq, because the last job can
 * be freed by the scheduler itself.  The scheduler frees a job in a later
 * pass of the thread or ordered work queue that ran it, or with that
 * stopped (drm_sched_stop() at a timeout), so after everything the pass
 * that took the job did with its entity (such as signalling its idle
 * completion).  A closed client's jobs drain without help: its abort fired
 * every gate, so they wait only for each other and for room on their
 * queue, and they skip their tasks.  The same holds at unload: no job
 * means no backend stream, and module exit drains weave_engine_wq.
 *
 * Errors.  A FAIL task sets its errno on the job's fences; the job's later
 * tasks still run.  A job that runs past job_timeout_ms is cut short: its
 * remaining tasks are skipped, its fences get -ETIMEDOUT and every logical
 * stream with a task in it is marked failed (with interleave, that can be
 * several streams: their tasks shared the job).  A job of a closed client
 * stops between two tasks with -ECANCELED.
 *
 * Unload.  A fence must not outlive the code of its ops (Debian's 6.1 has
 * none of the later fixes).  Each hardware fence and gate holds a module
 * reference from its initialisation until its release, and each job one
 * until it is freed, so rmmod is refused while any of them lives.  The
 * scheduler's own fences name their timeline through the queue, which
 * unload frees; a job that ran keeps its hardware fence (so the module)
 * alive through them, but a job killed before it ran does not.  So user
 * space never gets a scheduler fence: out-syncs and the reservation
 * objects of a job's buffers (which dma-buf importers and
 * DMA_BUF_IOCTL_EXPORT_SYNC_FILE read) get a weave fence that stands in
 * for it (weave_fence_export()), made before the job is armed.
 *
 * The crc32c kernel uses a table of its own (Castagnoli polynomial,
 * reflected) rather than libcrc32c, so that loading weave does not depend
 * on the crypto API's crc32c being loadable.
 */

/* Entities per backend stream: one per &enum drm_weave_priority. */
#define WEAVE_NUM_PRIOS		3
/* Jobs a hardware queue holds at once. */
#define WEAVE_QUEUE_CREDITS	64
/* Bindings the worker needs: ADD_U32 has the most. */
#define WEAVE_ETASK_BINDINGS	3
/* Delays up to this many microseconds sleep without waking for an abort. */
#define WEAVE_SHORT_DELAY_US	2000
/* Tallies and dependencies a job holds without allocating. */
#define WEAVE_JOB_INLINE	4

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

/**
 * struct weave_bstream - A backend stream: the soft engine's per-slot
 * submission context.
 *
 * Its entities are finished, and it is freed, only once the client has
 * let it go and every job made for it is freed (see "DOC: soft engine",
 * Lifetimes).
 */
struct weave_bstream {
	/** @ref: The client's reference and one per job made for the stream. */
	struct kref ref;
	/** @fini_work: Finishes the entities and frees the stream. */
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
};

/* A fence of the engine: a hardware fence or a gate. */
struct weave_fence {
	struct dma_fence base;
	spinlock_t lock;	/* the fence's lock */
};

/* A gate: signals when @in does, or when the client closes. */
struct weave_gate {
	struct weave_fence f;
	struct dma_fence *in;
	struct dma_fence_cb cb;
	struct weave_ectx *ctx;
	struct list_head link;	/* in &weave_ectx.gates, under gate_lock */
	atomic_t fired;
};

/* A buffer of a job and how the job uses it. */
struct weave_jbo {
	struct drm_gem_object *obj;
	u32 access;
};

/* A run of consecutive tasks of one logical stream in a job. */
struct weave_tally {
	struct weave_lstream *ls;
	u32 count;
};

/* A weave fence standing in for another one, see weave_fence_export(). */
struct weave_proxy {
	struct weave_fence f;
	struct dma_fence *in;
	struct dma_fence_cb cb;
	u64 owner;	/* &weave_ectx.id of the job's client, or zero */
};

/* One input of a join. */
struct weave_join_in {
	struct dma_fence_cb cb;
	struct weave_join *join;
	struct dma_fence *fence;	/* a reference */
};

/* A weave fence that signals once all its inputs have, see weave_join_create(). */
struct weave_join {
	struct weave_fence f;
	atomic_t pending;	/* inputs not signalled, plus one until armed */
	u32 n;			/* used entries of @in */
	u32 max;		/* entries of @in */
	struct weave_join_in *in;
};

/* One encoded task, what the worker runs. */
struct weave_etask {
	u32 kind;
	u32 kernel;
	u32 arg;
	u32 nb;
	struct {
		struct drm_gem_shmem_object *shmem;
		u64 offset;
		u64 size;
	} b[WEAVE_ETASK_BINDINGS];
	void *data;
	u64 len;
};

/**
 * struct weave_job - A job of the soft engine.
 */
struct weave_job {
	/** @base: The scheduler job. */
	struct drm_sched_job base;
	/** @ctx: The client's engine context; a reference. */
	struct weave_ectx *ctx;
	/** @bs: The backend stream whose entities it is pushed to. */
	struct weave_bstream *bs;
	/** @queue: The queue it runs on. */
	struct weave_queue *queue;
	/** @hw: The hardware fence, initialised by the first run_job. */
	struct weave_fence *hw;
	/**
	 * @proxy: The fence that stands in for the finished fence in the
	 * buffers' reservation objects; made with the job, attached at flush.
	 */
	struct weave_proxy *proxy;
	/** @work: The worker's item on &weave_queue.wq. */
	struct work_struct work;
	/** @started: run_job was called; under the scheduler's serialisation. */
	bool started;
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
	/** @tasks: The encoded tasks. */
	struct weave_etask *tasks;
	/** @ntasks: Used entries of @tasks. */
	u32 ntasks;
	/** @ctasks: Allocated entries of @tasks. */
	u32 ctasks;
	/** @pending: Tasks still counted in &weave_ectx.pending_tasks. */
	u32 pending;
	/** @bos: The buffers, one reference each; sorted and unique at flush. */
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
	/** @slots: Bitmap of the client's slots with tasks in the job. */
	unsigned long slots[];
};

static const enum drm_sched_priority weave_prio_map[WEAVE_NUM_PRIOS] = {
	[DRM_WEAVE_PRIORITY_LOW] = WEAVE_COMPAT_SCHED_PRIORITY_LOW,
	[DRM_WEAVE_PRIORITY_NORMAL] = DRM_SCHED_PRIORITY_NORMAL,
	[DRM_WEAVE_PRIORITY_HIGH] = DRM_SCHED_PRIORITY_HIGH,
};

static u32 weave_crc32c_table[256];

static void weave_crc32c_init(void)
{
	u32 i, j, c;

	if (weave_crc32c_table[1])
		return;
	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ (c & 1 ? 0x82f63b78 : 0);
		weave_crc32c_table[i] = c;
	}
}

/* Raw crc32c update: no pre- or post-inversion. */
static u32 weave_crc32c(u32 crc, const u8 *p, size_t len)
{
	while (len--)
		crc = (crc >> 8) ^ weave_crc32c_table[(crc ^ *p++) & 0xff];
	return crc;
}

/* ---- fences ------------------------------------------------------------- */

static const char *weave_fence_driver_name(struct dma_fence *f)
{
	return "weave";
}

static const char *weave_hw_timeline_name(struct dma_fence *f)
{
	return "weave-hw";
}

static const char *weave_gate_timeline_name(struct dma_fence *f)
{
	return "weave-gate";
}

static const char *weave_proxy_timeline_name(struct dma_fence *f)
{
	return "weave-out";
}

static const char *weave_join_timeline_name(struct dma_fence *f)
{
	return "weave-all";
}

static void weave_hw_fence_release(struct dma_fence *f)
{
	dma_fence_free(f);
	module_put(THIS_MODULE);
}

static void weave_gate_release(struct dma_fence *f)
{
	struct weave_gate *gate = container_of(f, struct weave_gate, f.base);

	dma_fence_put(gate->in);
	dma_fence_free(f);
	module_put(THIS_MODULE);
}

static void weave_proxy_release(struct dma_fence *f)
{
	struct weave_proxy *proxy = container_of(f, struct weave_proxy,
						 f.base);

	dma_fence_put(proxy->in);
	dma_fence_free(f);
	module_put(THIS_MODULE);
}

static void weave_join_release(struct dma_fence *f)
{
	struct weave_join *join = container_of(f, struct weave_join, f.base);
	u32 i;

	for (i = 0; i < join->n; i++)
		dma_fence_put(join->in[i].fence);
	kvfree(join->in);
	dma_fence_free(f);
	module_put(THIS_MODULE);
}

static const struct dma_fence_ops weave_join_ops = {
	.get_driver_name = weave_fence_driver_name,
	.get_timeline_name = weave_join_timeline_name,
	.release = weave_join_release,
};

static const struct dma_fence_ops weave_proxy_ops = {
	.get_driver_name = weave_fence_driver_name,
	.get_timeline_name = weave_proxy_timeline_name,
	.release = weave_proxy_release,
};

static const struct dma_fence_ops weave_hw_fence_ops = {
	.get_driver_name = weave_fence_driver_name,
	.get_timeline_name = weave_hw_timeline_name,
	.release = weave_hw_fence_release,
};

static const struct dma_fence_ops weave_gate_ops = {
	.get_driver_name = weave_fence_driver_name,
	.get_timeline_name = weave_gate_timeline_name,
	.release = weave_gate_release,
};

/* Set @err on @f unless it is signalled or already has an error. */
static void weave_fence_error(struct dma_fence *f, int err)
{
	unsigned long flags;

	spin_lock_irqsave(f->lock, flags);
	if (!test_bit(DMA_FENCE_FLAG_SIGNALED_BIT, &f->flags) && !f->error)
		f->error = err;
	spin_unlock_irqrestore(f->lock, flags);
}

/* Signal @gate once, with @err; whoever takes it off the list puts it. */
static void weave_gate_fire(struct weave_gate *gate, int err)
{
	struct weave_ectx *ctx = gate->ctx;
	unsigned long flags;
	bool listed;

	if (atomic_xchg(&gate->fired, 1))
		return;
	spin_lock_irqsave(&ctx->gate_lock, flags);
	listed = !list_empty(&gate->link);
	list_del_init(&gate->link);
	spin_unlock_irqrestore(&ctx->gate_lock, flags);
	if (err)
		weave_fence_error(&gate->f.base, err);
	dma_fence_signal(&gate->f.base);
	if (listed)
		dma_fence_put(&gate->f.base);
}

static void weave_gate_cb(struct dma_fence *in, struct dma_fence_cb *cb)
{
	struct weave_gate *gate = container_of(cb, struct weave_gate, cb);

	weave_gate_fire(gate, in->error);
}

static void weave_proxy_cb(struct dma_fence *in, struct dma_fence_cb *cb)
{
	struct weave_proxy *proxy = container_of(cb, struct weave_proxy, cb);

	if (in->error)
		weave_fence_error(&proxy->f.base, in->error);
	dma_fence_signal(&proxy->f.base);
	dma_fence_put(&proxy->f.base);	/* the callback's reference */
}

/**
 * weave_proxy_create() - Make a weave fence that will stand in for another.
 *
 * The fence is initialised (with a context of its own and a module
 * reference) but stands in for nothing until weave_proxy_attach(); until
 * then it may be put without ever signalling.
 *
 * Return: The fence with one reference, or NULL if out of memory.
 */
struct weave_proxy *weave_proxy_create(void)
{
	struct weave_proxy *proxy;

	proxy = kzalloc(sizeof(*proxy), GFP_KERNEL);
	if (!proxy)
		return NULL;
	spin_lock_init(&proxy->f.lock);
	dma_fence_init(&proxy->f.base, &weave_proxy_ops, &proxy->f.lock,
		       dma_fence_context_alloc(1), 1);
	__module_get(THIS_MODULE);
	return proxy;
}

/**
 * weave_proxy_attach() - Make a proxy stand in for a fence.
 * @proxy: From weave_proxy_create(), not attached yet; this takes the
 *	caller's reference.
 * @in: The fence; this takes the caller's reference.
 *
 * Return: The proxy's fence, which signals with @in's error when @in does.
 */
struct dma_fence *weave_proxy_attach(struct weave_proxy *proxy,
				     struct dma_fence *in)
{
	proxy->in = in;
	dma_fence_get(&proxy->f.base);	/* for the callback */
	if (dma_fence_add_callback(in, &proxy->cb, weave_proxy_cb))
		weave_proxy_cb(in, &proxy->cb);
	return &proxy->f.base;
}

/**
 * weave_proxy_put() - Drop a proxy that was never attached.
 * @proxy: The proxy, or NULL.
 */
void weave_proxy_put(struct weave_proxy *proxy)
{
	if (proxy)
		dma_fence_put(&proxy->f.base);
}

/**
 * weave_fence_export() - Wrap a fence for user space.
 * @in: The fence; this takes the caller's reference, also on error.
 *
 * The returned weave fence signals, with @in's error, when @in does.  It
 * hides @in (it is no container) and holds a module reference until it is
 * released, so no fence handed to a syncobj, sync_file or reservation
 * object can reach the scheduler's fences, whose timeline name points into
 * weave's queues, after weave is unloaded.
 *
 * Return: A reference to the new fence, or ERR_PTR(-ENOMEM).
 */
struct dma_fence *weave_fence_export(struct dma_fence *in)
{
	struct weave_proxy *proxy = weave_proxy_create();

	if (!proxy) {
		dma_fence_put(in);
		return ERR_PTR(-ENOMEM);
	}
	return weave_proxy_attach(proxy, in);
}

/* One input fewer to wait for; the last one signals the join. */
static void weave_join_done(struct weave_join *join, int err)
{
	if (err)
		weave_fence_error(&join->f.base, err);
	if (atomic_dec_and_test(&join->pending)) {
		dma_fence_signal(&join->f.base);
		dma_fence_put(&join->f.base);	/* the inputs' reference */
	}
}

static void weave_join_cb(struct dma_fence *f, struct dma_fence_cb *cb)
{
	struct weave_join_in *in = container_of(cb, struct weave_join_in, cb);

	weave_join_done(in->join, f->error);
}

/**
 * weave_join_create() - Make a weave fence that will wait for several.
 * @max: The most inputs it will get.
 *
 * Everything the fence needs is allocated here, so that the inputs can be
 * added and the fence armed where nothing may fail any more.  Until it is
 * armed the fence does not signal; a fence given no input may be put
 * without ever being armed.
 *
 * Return: The fence with one reference, or NULL if out of memory.
 */
struct weave_join *weave_join_create(u32 max)
{
	struct weave_join *join;

	join = kzalloc(sizeof(*join), GFP_KERNEL);
	if (!join)
		return NULL;
	join->in = kvmalloc_array(max, sizeof(*join->in), GFP_KERNEL);
	if (!join->in) {
		kfree(join);
		return NULL;
	}
	join->max = max;
	atomic_set(&join->pending, 1);
	spin_lock_init(&join->f.lock);
	dma_fence_init(&join->f.base, &weave_join_ops, &join->f.lock,
		       dma_fence_context_alloc(1), 1);
	__module_get(THIS_MODULE);
	return join;
}

/**
 * weave_join_add() - Make a join wait for one more fence.
 * @join: From weave_join_create(), not armed yet, with room left.
 * @fence: The fence; this takes the caller's reference.
 */
void weave_join_add(struct weave_join *join, struct dma_fence *fence)
{
	struct weave_join_in *in;

	if (WARN_ON_ONCE(join->n == join->max)) {
		dma_fence_put(fence);
		return;
	}
	in = &join->in[join->n++];
	in->join = join;
	in->fence = fence;
	atomic_inc(&join->pending);
	if (dma_fence_add_callback(fence, &in->cb, weave_join_cb))
		weave_join_done(join, fence->error);
}

/**
 * weave_join_arm() - Let a join signal once its inputs have.
 * @join: From weave_join_create(); this takes the caller's reference.
 *
 * Return: The join's fence, which signals when every input added has, with
 * the error of one that failed if any did.
 */
struct dma_fence *weave_join_arm(struct weave_join *join)
{
	dma_fence_get(&join->f.base);	/* dropped by the last input */
	weave_join_done(join, 0);
	return &join->f.base;
}

/**
 * weave_join_put() - Drop a join that was given no input.
 * @join: The join, or NULL.
 */
void weave_join_put(struct weave_join *join)
{
	if (join)
		dma_fence_put(&join->f.base);
}

/*
 * Grow the array *@arr of *@cap entries of @size bytes to hold @need.  The
 * old array is freed unless it is @inl, storage embedded in its owner.
 */
static int weave_grow_from(void **arr, u32 *cap, u32 need, size_t size,
			   const void *inl)
{
	u32 ncap;
	void *n;

	if (need <= *cap)
		return 0;
	ncap = max3(need, *cap * 2, 8u);
	n = kvmalloc_array(ncap, size, GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	if (*cap)
		memcpy(n, *arr, (size_t)*cap * size);
	if (*arr != inl)
		kvfree(*arr);
	*arr = n;
	*cap = ncap;
	return 0;
}

static int weave_grow(void **arr, u32 *cap, u32 need, size_t size)
{
	return weave_grow_from(arr, cap, need, size, NULL);
}

static struct weave_gate *to_weave_gate(struct dma_fence *f)
{
	return container_of(f, struct weave_gate, f.base);
}

/*
 * Make a gate on @in, taking the caller's reference to @in; it does not
 * watch @in until weave_gate_arm().  Returns it with one reference, or NULL
 * (and @in is not taken) if out of memory.
 */
static struct weave_gate *weave_gate_create(struct weave_ectx *ctx,
					    struct dma_fence *in)
{
	struct weave_gate *gate = kzalloc(sizeof(*gate), GFP_KERNEL);

	if (!gate)
		return NULL;
	spin_lock_init(&gate->f.lock);
	dma_fence_init(&gate->f.base, &weave_gate_ops, &gate->f.lock,
		       dma_fence_context_alloc(1), 1);
	__module_get(THIS_MODULE);
	gate->in = in;
	gate->ctx = ctx;
	INIT_LIST_HEAD(&gate->link);
	return gate;
}

/*
 * Put @gate, not armed, on the client's list (with a reference of its own)
 * and watch its in-fence: it fires when that signals, or at the client's
 * abort, whichever comes first.
 */
static void weave_gate_arm(struct weave_ectx *ctx, struct weave_gate *gate)
{
	dma_fence_get(&gate->f.base);
	spin_lock_irq(&ctx->gate_lock);
	list_add_tail(&gate->link, &ctx->gates);
	spin_unlock_irq(&ctx->gate_lock);
	if (dma_fence_add_callback(gate->in, &gate->cb, weave_gate_cb))
		weave_gate_fire(gate, gate->in->error);
}

/*
 * Take a gate that left its slot out of the client's list: it gates no
 * job, so it is signalled (-ECANCELED) now rather than kept until its
 * in-fence signals.  Drops the slot's reference.
 */
static void weave_gate_retire(struct weave_ectx *ctx, struct weave_gate *gate)
{
	bool listed;

	spin_lock_irq(&ctx->gate_lock);
	listed = !list_empty(&gate->link);
	list_del_init(&gate->link);
	spin_unlock_irq(&ctx->gate_lock);
	if (listed) {
		/* The list's reference is ours now. */
		dma_fence_remove_callback(gate->in, &gate->cb);
		weave_gate_fire(gate, -ECANCELED);
		dma_fence_put(&gate->f.base);
	}
	dma_fence_put(&gate->f.base);
}

/* The pending gate of slot @es on @f's fence context, or NULL. */
static struct weave_gate *weave_eslot_gate_of(struct weave_eslot *es,
					      struct dma_fence *f, u32 *index)
{
	struct weave_gate *gate;
	u32 i;

	for (i = 0; i < es->ngates; i++) {
		gate = to_weave_gate(es->gates[i]);
		if (gate->in->context == f->context) {
			*index = i;
			return gate;
		}
	}
	return NULL;
}

/**
 * weave_ectx_gate_room() - How many more gates a slot takes.
 * @ctx: The client's engine context.
 * @slot: The slot.
 *
 * Context: The client's mutex held.
 * Return: %WEAVE_MAX_SLOT_GATES minus the slot's pending gates.
 */
u32 weave_ectx_gate_room(struct weave_ectx *ctx, u32 slot)
{
	return WEAVE_MAX_SLOT_GATES - ctx->slots[slot].ngates;
}

/**
 * weave_ectx_gates_prepare() - Make the gates of in-fences, not linked yet.
 * @ctx: The client's engine context.
 * @slot: The slot they will gate.
 * @fences: @n fences; this takes the caller's references, also on error,
 *	and replaces each kept one by its gate.
 * @n: In: entries of @fences.  Out: gates made, at the start of @fences.
 *
 * Keeps one fence per fence context, the later one, and drops a fence a
 * pending gate of the slot already covers (same context, not earlier).
 * Allocates a gate per remaining fence and room for them in the slot, so
 * that weave_ectx_gates_commit() cannot fail.  On error nothing changed.
 *
 * Context: The client's mutex held.
 * Return: 0; -ENOSPC if the slot would hold more than
 * %WEAVE_MAX_SLOT_GATES gates; -ENOMEM.
 */
int weave_ectx_gates_prepare(struct weave_ectx *ctx, u32 slot,
			     struct dma_fence **fences, u32 *n)
{
	struct weave_eslot *es = &ctx->slots[slot];
	struct weave_gate *gate;
	struct dma_fence *f;
	u32 i, j, k = 0, idx, fresh = 0;
	int ret;

	for (i = 0; i < *n; i++) {
		f = fences[i];
		for (j = 0; j < k; j++) {
			if (fences[j]->context != f->context)
				continue;
			if (dma_fence_is_later(f, fences[j]))
				swap(fences[j], f);
			dma_fence_put(f);
			f = NULL;
			break;
		}
		if (!f)
			continue;
		gate = weave_eslot_gate_of(es, f, &idx);
		if (gate && dma_fence_is_later_or_same(gate->in, f)) {
			dma_fence_put(f);
			continue;
		}
		fresh += !gate;
		fences[k++] = f;
	}
	*n = k;

	ret = es->ngates + fresh > WEAVE_MAX_SLOT_GATES ? -ENOSPC : 0;
	if (!ret)
		ret = weave_grow((void **)&es->gates, &es->cgates,
				 es->ngates + fresh, sizeof(*es->gates));
	for (i = 0; i < k; i++) {
		gate = ret ? NULL : weave_gate_create(ctx, fences[i]);
		if (!gate) {
			/* Gates made so far put their in-fence when released. */
			for (j = 0; j < k; j++)
				dma_fence_put(fences[j]);
			*n = 0;
			return ret ?: -ENOMEM;
		}
		fences[i] = &gate->f.base;
	}
	return 0;
}

/**
 * weave_ectx_gates_commit() - Gate a slot's next job on prepared gates.
 * @ctx: The client's engine context.
 * @slot: The slot given to weave_ectx_gates_prepare().
 * @gates: Its gates; this takes the references.
 * @n: Entries of @gates.
 *
 * A gate replaces the slot's pending gate of the same in-fence context,
 * which is earlier; the others are added.  Cannot fail.
 *
 * Context: The client's mutex held, no change to the slot's gates since
 * the prepare.
 */
void weave_ectx_gates_commit(struct weave_ectx *ctx, u32 slot,
			     struct dma_fence **gates, u32 n)
{
	struct weave_eslot *es = &ctx->slots[slot];
	struct weave_gate *gate, *old;
	u32 i, idx;

	for (i = 0; i < n; i++) {
		gate = to_weave_gate(gates[i]);
		old = weave_eslot_gate_of(es, gate->in, &idx);
		/* The initial reference is the slot's; one more for the list. */
		if (old) {
			es->gates[idx] = &gate->f.base;
			weave_gate_retire(ctx, old);
		} else {
			es->gates[es->ngates++] = &gate->f.base;
			ctx->ngates++;
		}
		weave_gate_arm(ctx, gate);
	}
}

/**
 * weave_ectx_held() - Whether the client has tasks its flush could not push.
 * @ctx: The client's engine context.
 *
 * Context: The client's mutex held, outside of the scheduler core.
 * Return: True if a job is pending: a flush failed and the next one will
 * push it.
 */
bool weave_ectx_held(struct weave_ectx *ctx)
{
	return ctx->job;
}

/**
 * weave_ectx_gate_bytes() - Memory of the gates pending on the slots.
 * @ctx: The client's engine context.
 *
 * Context: The client's mutex held.
 * Return: Bytes of the gates not yet handed to a job.
 */
u64 weave_ectx_gate_bytes(struct weave_ectx *ctx)
{
	return ctx->ngates * sizeof(struct weave_gate);
}

/**
 * weave_ectx_slot_fence() - The fence of everything flushed on a slot.
 * @ctx: The client's engine context.
 * @slot: The slot.
 *
 * Context: The client's mutex held.
 * Return: A reference to the finished fence of the slot's last job, or
 * NULL if the slot never had one.
 */
struct dma_fence *weave_ectx_slot_fence(struct weave_ectx *ctx, u32 slot)
{
	return dma_fence_get(ctx->slots[slot].last);
}

/* ---- the worker ---------------------------------------------------------- */

/* Copy between a pinned shmem range and @buf. */
static void weave_bo_io(struct drm_gem_shmem_object *shmem, u64 off,
			void *buf, size_t len, bool write)
{
	while (len) {
		size_t po = off & ~PAGE_MASK;
		size_t n = min_t(size_t, len, PAGE_SIZE - po);
		u8 *va = kmap_local_page(shmem->pages[off >> PAGE_SHIFT]);

		if (write)
			memcpy(va + po, buf, n);
		else
			memcpy(buf, va + po, n);
		kunmap_local(va);
		buf += n;
		off += n;
		len -= n;
	}
}

static bool weave_job_aborted(struct weave_job *job)
{
	return READ_ONCE(job->abort) || atomic_read(&job->ctx->aborted);
}

static int weave_run_delay(struct weave_job *job, u32 us)
{
	if (us <= WEAVE_SHORT_DELAY_US) {
		fsleep(us);
		return 0;
	}
	wait_event_timeout(job->queue->abort_wq, weave_job_aborted(job),
			   usecs_to_jiffies(us));
	return 0;
}

static int weave_run_task(struct weave_job *job, struct weave_etask *t)
{
	u8 *s0 = job->queue->scratch;
	u8 *s1 = s0 + PAGE_SIZE, *s2 = s1 + PAGE_SIZE;
	u64 done, size;
	u32 crc, i, n;

	if (t->kind == WEAVE_TASK_HOST_WRITE) {
		weave_bo_io(t->b[0].shmem, t->b[0].offset, t->data, t->len,
			    true);
		return 0;
	}

	size = t->b[0].size;
	switch (t->kernel) {
	case DRM_WEAVE_KERNEL_NOOP:
		return 0;
	case DRM_WEAVE_KERNEL_DELAY:
		return weave_run_delay(job, t->arg);
	case DRM_WEAVE_KERNEL_FAIL:
		return -(int)t->arg;
	case DRM_WEAVE_KERNEL_FILL:
		for (i = 0; i < PAGE_SIZE / 4; i++)
			((u32 *)s0)[i] = t->arg;
		break;
	case DRM_WEAVE_KERNEL_CRC32C:
		crc = ~0u;
		break;
	}

	for (done = 0; done < size; done += n) {
		if (weave_job_aborted(job))
			return 0;
		n = min_t(u64, size - done, PAGE_SIZE);
		switch (t->kernel) {
		case DRM_WEAVE_KERNEL_FILL:
			weave_bo_io(t->b[0].shmem, t->b[0].offset + done, s0, n,
				    true);
			break;
		case DRM_WEAVE_KERNEL_COPY:
			weave_bo_io(t->b[0].shmem, t->b[0].offset + done, s0, n,
				    false);
			weave_bo_io(t->b[1].shmem, t->b[1].offset + done, s0, n,
				    true);
			break;
		case DRM_WEAVE_KERNEL_ADD_U32:
			weave_bo_io(t->b[0].shmem, t->b[0].offset + done, s0, n,
				    false);
			weave_bo_io(t->b[1].shmem, t->b[1].offset + done, s1, n,
				    false);
			for (i = 0; i < n / 4; i++)
				((u32 *)s2)[i] = ((u32 *)s0)[i] + ((u32 *)s1)[i];
			weave_bo_io(t->b[2].shmem, t->b[2].offset + done, s2, n,
				    true);
			break;
		case DRM_WEAVE_KERNEL_CRC32C:
			weave_bo_io(t->b[0].shmem, t->b[0].offset + done, s0, n,
				    false);
			crc = weave_crc32c(crc, s0, n);
			break;
		}
		cond_resched();
	}
	if (t->kernel == DRM_WEAVE_KERNEL_CRC32C) {
		crc = ~crc;
		weave_bo_io(t->b[1].shmem, t->b[1].offset, &crc, 4, true);
	}
	return 0;
}

/* Free staged host-write bytes and take them off the client's count. */
static void weave_staging_free(struct weave_ectx *ctx, void *data, u64 len)
{
	if (!data)
		return;
	atomic64_sub(len, &ctx->staged_bytes);
	kvfree(data);
}

/*
 * Free the staging of every task of @job and take its tasks off the
 * client's pending count; idempotent.
 */
static void weave_job_release_tasks(struct weave_job *job)
{
	struct weave_ectx *ctx = job->ctx;
	struct weave_etask *t;
	u32 i;

	for (i = 0; i < job->ntasks; i++) {
		t = &job->tasks[i];
		weave_staging_free(ctx, t->data, t->len);
		t->data = NULL;
	}
	atomic64_sub(job->pending, &ctx->pending_tasks);
	job->pending = 0;
}

/* Run the job's tasks and signal its hardware fence. */
static void weave_job_execute(struct weave_job *job)
{
	struct weave_ectx *ctx = job->ctx;
	struct dma_fence *hw = &job->hw->base;
	int err = job->base.s_fence->finished.error;
	bool skip;
	u32 i;
	int ret;

	/*
	 * A job that failed before it ran (its entity died, say) runs
	 * nothing, and neither does one that starts after its device was
	 * unplugged, which also cancels running jobs through the abort.
	 */
	if (!err && drm_dev_is_unplugged(ctx->drm))
		err = -ENODEV;
	skip = err;

	/* A failed task does not stop the job: later tasks still run. */
	for (i = 0; i < job->ntasks; i++) {
		if (skip || weave_job_aborted(job))
			break;
		ret = weave_run_task(job, &job->tasks[i]);
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

static void weave_job_work(struct work_struct *work)
{
	/* The job may be freed as soon as its fence signals. */
	weave_job_execute(container_of(work, struct weave_job, work));
}

/* ---- jobs ---------------------------------------------------------------- */

static struct weave_job *to_weave_job(struct drm_sched_job *sched_job)
{
	return container_of(sched_job, struct weave_job, base);
}

static void weave_ectx_release(struct kref *ref);

/* Tears engines and backend streams down; drained at module exit. */
static struct workqueue_struct *weave_engine_wq;

static void weave_bstream_fini_work(struct work_struct *work)
{
	struct weave_bstream *bs = container_of(work, struct weave_bstream,
						fini_work);
	u32 p;

	/* No job of the stream is left: no entity waits, none is busy. */
	for (p = 0; p < WEAVE_NUM_PRIOS; p++)
		drm_sched_entity_fini(&bs->entity[p]);
	kref_put(&bs->ctx->ref, weave_ectx_release);
	kfree(bs);
}

/*
 * The last reference can go in the scheduler's own free_job, where an
 * entity cannot be finished: do it on weave_engine_wq.
 */
static void weave_bstream_release(struct kref *ref)
{
	struct weave_bstream *bs = container_of(ref, struct weave_bstream, ref);

	queue_work(weave_engine_wq, &bs->fini_work);
}

/* Count @n more entries of job task arrays in &weave_ectx.job_bytes. */
static void weave_job_bytes_add(struct weave_ectx *ctx, u32 n)
{
	atomic64_add((u64)n * sizeof(struct weave_etask), &ctx->job_bytes);
}

/* Count @n entries of job task arrays fewer. */
static void weave_job_bytes_sub(struct weave_ectx *ctx, u32 n)
{
	atomic64_sub((u64)n * sizeof(struct weave_etask), &ctx->job_bytes);
}

/*
 * Free what the job holds.  A pushed job's scheduler job is cleaned up
 * already; one never pushed has none.
 */
static void weave_job_free(struct weave_job *job)
{
	struct weave_ectx *ctx = job->ctx;
	u32 i;

	weave_job_release_tasks(job);
	for (i = 0; i < job->ntallies; i++)
		weave_lstream_put(job->tallies[i].ls);
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
	kref_put(&ctx->ref, weave_ectx_release);
	kfree(job);
	module_put(THIS_MODULE);
}

static struct weave_job *weave_job_alloc(struct weave_bstream *bs)
{
	struct weave_ectx *ctx = bs->ctx;
	struct weave_job *job;

	job = kzalloc(struct_size(job, slots, BITS_TO_LONGS(ctx->max_streams)),
		      GFP_KERNEL);
	if (!job)
		return NULL;
	job->hw = kzalloc(sizeof(*job->hw), GFP_KERNEL);
	job->proxy = weave_proxy_create();
	if (job->proxy)
		job->proxy->owner = ctx->id;
	/* The spare has task_hint entries and is counted already. */
	job->tasks = xchg(&ctx->spare_tasks, NULL);
	if (!job->tasks) {
		job->tasks = kvmalloc_array(ctx->task_hint,
					    sizeof(*job->tasks), GFP_KERNEL);
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

static struct dma_fence *weave_sched_run_job(struct drm_sched_job *sched_job)
{
	struct weave_job *job = to_weave_job(sched_job);
	struct weave_queue *q = job->queue;

	/*
	 * Called again by drm_sched_resubmit_jobs() after a timeout: the job
	 * is already on the hardware, hand out its fence again.
	 */
	if (!job->started) {
		job->started = true;
		spin_lock_init(&job->hw->lock);
		dma_fence_init(&job->hw->base, &weave_hw_fence_ops,
			       &job->hw->lock, q->fence_context,
			       atomic64_inc_return(&q->fence_seqno));
		__module_get(THIS_MODULE);
		queue_work(q->wq, &job->work);
	}
	return dma_fence_get(&job->hw->base);
}

static enum drm_gpu_sched_stat
weave_sched_timedout_job(struct drm_sched_job *sched_job)
{
	struct weave_job *job = to_weave_job(sched_job);
	struct weave_queue *q = job->queue;
	struct drm_gpu_scheduler *sched = &q->sched;
	u32 i;

	if (!dma_fence_is_signaled(&job->hw->base)) {
		weave_fence_error(&sched_job->s_fence->finished, -ETIMEDOUT);
		for (i = 0; i < job->ntallies; i++)
			atomic_cmpxchg(&job->tallies[i].ls->error, 0,
				       -ETIMEDOUT);
		WRITE_ONCE(job->abort, -ETIMEDOUT);
		wake_up_all(&q->abort_wq);
	}

	/*
	 * The scheduler took the job off its pending list before calling
	 * this: drm_sched_stop() puts it back (or frees it if it completed),
	 * the resubmit reattaches every pending job to its hardware fence
	 * (run_job hands out the same fence again) and the restart rearms
	 * the fence callbacks.  The worker finishes the aborted job quickly.
	 * @job must not be touched after drm_sched_stop().
	 */
	drm_sched_stop(sched, sched_job);
	drm_sched_resubmit_jobs(sched);
	weave_compat_sched_start(sched);

	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static void weave_sched_free_job(struct drm_sched_job *sched_job)
{
	struct weave_job *job = to_weave_job(sched_job);

	drm_sched_job_cleanup(sched_job);
	weave_job_free(job);
}

static const struct drm_sched_backend_ops weave_sched_ops = {
	.run_job = weave_sched_run_job,
	.timedout_job = weave_sched_timedout_job,
	.free_job = weave_sched_free_job,
};

/* ---- backend ops --------------------------------------------------------- */

/*
 * A task that cannot be appended to a job, where the core cannot keep it
 * queued, fails visibly: its stream is marked failed with @err and the
 * task counts as executed and completed, so the stream's counters still
 * add up.
 */
static void weave_engine_fail(void *backend, const struct weave_task *task,
			      int err, struct weave_failures *failures)
{
	struct weave_ectx *ctx = backend;
	struct weave_lstream *ls = xa_load(ctx->streams, task->stream);

	weave_staging_free(ctx, task->data, task->len);
	atomic64_dec(&ctx->pending_tasks);
	atomic_cmpxchg(&ls->error, 0, err);
	atomic64_inc(&ls->executed);
	atomic64_inc(&ls->completed);
}

/* Make room in @job for @task and the @ndeps dependencies it brings. */
static int weave_job_reserve(struct weave_job *job,
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

static int weave_engine_enqueue(void *backend, struct weave_bstream *bs,
				const struct weave_task *task,
				struct weave_failures *failures)
{
	struct weave_ectx *ctx = backend;
	u32 origin = task->slot;
	struct weave_eslot *es = &ctx->slots[origin];
	struct weave_tally *tally;
	struct weave_lstream *ls;
	struct weave_etask *t;
	struct weave_job *job;
	bool first;
	u32 i;
	int ret;

	/* A job whose flush failed takes every later task: see DOC. */
	job = ctx->job;
	if (!job) {
		job = weave_job_alloc(bs);
		if (!job)
			return -ENOMEM;
		ctx->job = job;
	}

	/* Refused: the task stays the core's, the job as it was. */
	first = !test_bit(origin, job->slots);
	ret = weave_job_reserve(job, task,
				es->ngates + (first && es->last ? 1 : 0));
	if (ret) {
		if (!job->ntasks) {
			ctx->job = NULL;
			weave_job_free(job);
		}
		return ret;
	}

	/* Nothing below fails. */
	if (first) {
		__set_bit(origin, job->slots);
		if (es->last)
			job->deps[job->ndeps++] = dma_fence_get(es->last);
	}
	ctx->ngates -= es->ngates;
	while (es->ngates)
		job->deps[job->ndeps++] = es->gates[--es->ngates];

	tally = job->ntallies ? &job->tallies[job->ntallies - 1] : NULL;
	if (!tally || tally->ls->handle != task->stream) {
		/* Destroying a stream executes its slot first: it is there. */
		ls = xa_load(ctx->streams, task->stream);
		tally = &job->tallies[job->ntallies++];
		kref_get(&ls->ref);
		tally->ls = ls;
		tally->count = 0;
		job->prio = max(job->prio, ls->priority);
	}
	tally->count++;
	t = &job->tasks[job->ntasks++];
	t->kind = task->kind;
	t->kernel = task->kernel_id;
	t->arg = 0;
	if (task->uniform_len >= 4)
		memcpy(&t->arg, task->uniforms, 4);
	t->nb = min_t(u32, task->num_bindings, WEAVE_ETASK_BINDINGS);
	for (i = 0; i < task->num_bindings; i++) {
		struct drm_gem_object *obj = task->bindings[i].bo;

		if (i < t->nb) {
			t->b[i].shmem = to_drm_gem_shmem_obj(obj);
			t->b[i].offset = task->bindings[i].offset;
			t->b[i].size = task->bindings[i].size;
		}
		if (job->nbos && job->bos[job->nbos - 1].obj == obj) {
			job->bos[job->nbos - 1].access |= task->bindings[i].access;
			continue;
		}
		drm_gem_object_get(obj);
		job->bos[job->nbos].obj = obj;
		job->bos[job->nbos++].access = task->bindings[i].access;
	}
	t->data = task->data;
	t->len = task->len;
	job->pending++;
	return 0;
}

static int weave_jbo_cmp(const void *a, const void *b)
{
	const struct weave_jbo *x = a, *y = b;

	if (x->obj == y->obj)
		return 0;
	return x->obj < y->obj ? -1 : 1;
}

/*
 * Sort the job's buffers, merge duplicates and their access, and list the
 * objects for the reservation helpers in @objs, which has room.
 */
static void weave_job_uniq_bos(struct weave_job *job)
{
	u32 i, n = 0;

	if (!job->nbos)
		return;
	sort(job->bos, job->nbos, sizeof(*job->bos), weave_jbo_cmp, NULL);
	for (i = 0; i < job->nbos; i++) {
		if (n && job->bos[n - 1].obj == job->bos[i].obj) {
			job->bos[n - 1].access |= job->bos[i].access;
			drm_gem_object_put(job->bos[i].obj);
			continue;
		}
		job->bos[n++] = job->bos[i];
	}
	job->nbos = n;
	for (i = 0; i < n; i++)
		job->objs[i] = job->bos[i].obj;
}

/*
 * Lock the reservations of @n distinct objects, like
 * drm_gem_lock_reservations() but not interruptible: a signal must not
 * make a flush drop the tasks it already took.  The ww protocol backs off
 * on -EDEADLK, so this cannot deadlock.  Unlock with
 * drm_gem_unlock_reservations().
 */
static int weave_lock_bos(struct drm_gem_object **objs, u32 n,
			  struct ww_acquire_ctx *acquire)
{
	int contended = -1;
	u32 i, j;
	int ret;

	ww_acquire_init(acquire, &reservation_ww_class);
retry:
	if (contended != -1)
		dma_resv_lock_slow(objs[contended]->resv, acquire);
	for (i = 0; i < n; i++) {
		if (i == contended)
			continue;
		ret = dma_resv_lock(objs[i]->resv, acquire);
		if (!ret)
			continue;
		/* Everything below i is locked, the contended one included. */
		for (j = 0; j < i; j++)
			dma_resv_unlock(objs[j]->resv);
		if (contended > (int)i)
			dma_resv_unlock(objs[contended]->resv);
		if (ret == -EDEADLK) {
			contended = i;
			goto retry;
		}
		ww_acquire_fini(acquire);
		return ret;
	}
	ww_acquire_done(acquire);
	return 0;
}

/*
 * Push the client's pending job, whichever backend stream it was made for.
 * Every allocation but the scheduler's own (its job, dependency and
 * reservation slots) was made at enqueue.  If one of those fails, the job
 * is left as it was, in &weave_ectx.job, and a later flush pushes it.
 */
/* The &weave_ectx.id of the client whose job @f stands in for, or zero. */
static u64 weave_fence_owner(struct dma_fence *f)
{
	if (f->ops != &weave_proxy_ops)
		return 0;
	return container_of(f, struct weave_proxy, f.base)->owner;
}

/*
 * Make @job follow what its use of @obj must follow: the fences of @obj's
 * reservation that a write (or a read) waits for.  The job waits for the
 * client's own jobs directly, and for any other fence (another client's
 * work, another driver's) through a gate, added to @gates with a reference
 * and not armed yet.  The client's abort fires its gates, so a closed
 * client's jobs never wait for someone else's.
 *
 * Context: @obj's reservation held.
 */
static int weave_job_add_implicit(struct weave_job *job,
				  struct drm_gem_object *obj, bool write,
				  struct list_head *gates)
{
	struct weave_ectx *ctx = job->ctx;
	struct dma_resv_iter cursor;
	struct weave_gate *gate;
	struct dma_fence *f;
	int ret;

	dma_resv_for_each_fence(&cursor, obj->resv, dma_resv_usage_rw(write),
				f) {
		if (dma_fence_is_signaled(f))
			continue;
		if (weave_fence_owner(f) == ctx->id) {
			ret = drm_sched_job_add_dependency(&job->base,
							   dma_fence_get(f));
			if (ret)
				return ret;
			continue;
		}
		gate = weave_gate_create(ctx, dma_fence_get(f));
		if (!gate) {
			dma_fence_put(f);
			return -ENOMEM;
		}
		/* One reference for the job, one for @gates. */
		ret = drm_sched_job_add_dependency(&job->base,
						   dma_fence_get(&gate->f.base));
		list_add_tail(&gate->link, gates);
		if (ret)
			return ret;
	}
	return 0;
}

static int weave_engine_flush(void *backend, struct weave_bstream *bs,
			      struct weave_failures *failures)
{
	struct weave_ectx *ctx = backend;
	struct weave_job *job = ctx->job;
	struct weave_gate *gate, *tmp;
	struct ww_acquire_ctx acquire;
	struct dma_fence *finished, *out;
	LIST_HEAD(gates);
	u32 i, s;
	int ret;

	if (!job)
		return 0;
	weave_job_uniq_bos(job);
	ret = weave_compat_sched_job_init(&job->base,
					  &job->bs->entity[job->prio], ctx);
	if (ret)
		return ret;

	/* The job keeps its own references until it is pushed. */
	for (i = 0; i < job->ndeps; i++) {
		ret = drm_sched_job_add_dependency(&job->base,
						   dma_fence_get(job->deps[i]));
		if (ret)
			goto err_cleanup;
	}

	if (job->nbos) {
		ret = weave_lock_bos(job->objs, job->nbos, &acquire);
		if (ret)
			goto err_cleanup;
		for (i = 0; i < job->nbos; i++) {
			struct drm_gem_object *obj = job->objs[i];
			bool write = job->bos[i].access & WEAVE_ACCESS_WRITE;

			ret = weave_job_add_implicit(job, obj, write, &gates);
			if (!ret)
				ret = dma_resv_reserve_fences(obj->resv, 1);
			if (ret) {
				drm_gem_unlock_reservations(job->objs, job->nbos,
							    &acquire);
				goto err_cleanup;
			}
		}
	}

	/* Committed: nothing below fails. */
	ctx->job = NULL;
	list_for_each_entry_safe(gate, tmp, &gates, link) {
		list_del_init(&gate->link);
		weave_gate_arm(ctx, gate);
		dma_fence_put(&gate->f.base);
	}
	drm_sched_job_arm(&job->base);
	finished = &job->base.s_fence->finished;
	out = weave_proxy_attach(job->proxy, dma_fence_get(finished));
	job->proxy = NULL;
	for (i = 0; i < job->nbos; i++)
		dma_resv_add_fence(job->objs[i]->resv, out,
				   job->bos[i].access & WEAVE_ACCESS_WRITE ?
				   DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_READ);
	if (job->nbos)
		drm_gem_unlock_reservations(job->objs, job->nbos, &acquire);
	dma_fence_put(out);

	while (job->ndeps)
		dma_fence_put(job->deps[--job->ndeps]);
	for (i = 0; i < job->ntallies; i++)
		atomic64_add(job->tallies[i].count,
			     &job->tallies[i].ls->executed);
	for_each_set_bit(s, job->slots, ctx->max_streams) {
		dma_fence_put(ctx->slots[s].last);
		ctx->slots[s].last = dma_fence_get(finished);
	}
	drm_sched_entity_push_job(&job->base);
	return 0;

err_cleanup:
	list_for_each_entry_safe(gate, tmp, &gates, link) {
		list_del_init(&gate->link);
		dma_fence_put(&gate->f.base);
	}
	/* Drops the scheduler's job and its dependencies, not the job's. */
	drm_sched_job_cleanup(&job->base);
	return ret;
}

static struct weave_bstream *weave_engine_create_stream(void *backend,
							u32 slot)
{
	struct weave_ectx *ctx = backend;
	struct weave_engine *engine = ctx->engine;
	struct weave_bstream *bs;
	u32 p;
	int ret;

	bs = kzalloc(sizeof(*bs), GFP_KERNEL);
	if (!bs)
		return ERR_PTR(-ENOMEM);
	kref_init(&bs->ref);
	INIT_WORK(&bs->fini_work, weave_bstream_fini_work);
	bs->ctx = ctx;
	bs->slot = slot;
	bs->queue = &engine->queues[slot % engine->num_queues];
	bs->sched_list[0] = &bs->queue->sched;
	for (p = 0; p < WEAVE_NUM_PRIOS; p++) {
		ret = drm_sched_entity_init(&bs->entity[p], weave_prio_map[p],
					    bs->sched_list, 1, NULL);
		if (ret) {
			while (p--)
				drm_sched_entity_destroy(&bs->entity[p]);
			kfree(bs);
			return ERR_PTR(ret);
		}
	}
	kref_get(&ctx->ref);
	return bs;
}

/*
 * Drop the client's reference: the stream and its entities go once its
 * last job is freed, and the client does not wait for that.  See "DOC: soft
 * engine", Lifetimes.
 */
static void weave_engine_destroy_stream(void *backend,
					struct weave_bstream *bs)
{
	kref_put(&bs->ref, weave_bstream_release);
}

static bool weave_engine_requires_isolation(void *backend,
					    const struct weave_bstream *bs)
{
	struct weave_ectx *ctx = backend;

	return ctx->slots[bs->slot].isolated;
}

/*
 * The soft engine as a backend of the scheduler core.  The backend context
 * is the client's &struct weave_ectx.
 */
const struct weave_backend_ops weave_engine_ops = {
	.enqueue = weave_engine_enqueue,
	.fail = weave_engine_fail,
	.flush = weave_engine_flush,
	.create_stream = weave_engine_create_stream,
	.destroy_stream = weave_engine_destroy_stream,
	.requires_isolation = weave_engine_requires_isolation,
};

/* ---- per-client context -------------------------------------------------- */

/* The last &weave_ectx.id handed out. */
static atomic64_t weave_ectx_last_id = ATOMIC64_INIT(0);

static void weave_lstream_release(struct kref *ref)
{
	kfree(container_of(ref, struct weave_lstream, ref));
}

/**
 * weave_lstream_put() - Drop a reference to a logical stream.
 * @ls: The stream.
 */
void weave_lstream_put(struct weave_lstream *ls)
{
	kref_put(&ls->ref, weave_lstream_release);
}

/**
 * weave_ectx_create() - Make a client's engine context.
 * @wdev: The device.
 * @streams: The client's logical streams.
 * @max_streams: The client's slots.
 *
 * Return: The context with one reference, or NULL if out of memory.
 */
struct weave_ectx *weave_ectx_create(struct weave_device *wdev,
				     struct xarray *streams, u32 max_streams)
{
	struct weave_ectx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return NULL;
	ctx->slots = kcalloc(max_streams, sizeof(*ctx->slots), GFP_KERNEL);
	if (!ctx->slots) {
		kfree(ctx);
		return NULL;
	}
	kref_init(&ctx->ref);
	ctx->id = atomic64_inc_return(&weave_ectx_last_id);
	ctx->drm = &wdev->drm;
	drm_dev_get(ctx->drm);
	ctx->engine = wdev->engine;
	ctx->streams = streams;
	ctx->max_streams = max_streams;
	ctx->task_hint = 8;
	spin_lock_init(&ctx->gate_lock);
	INIT_LIST_HEAD(&ctx->gates);
	return ctx;
}

static void weave_ectx_release(struct kref *ref)
{
	struct weave_ectx *ctx = container_of(ref, struct weave_ectx, ref);
	u32 i;

	for (i = 0; i < ctx->max_streams; i++) {
		struct weave_eslot *es = &ctx->slots[i];

		while (es->ngates)
			dma_fence_put(es->gates[--es->ngates]);
		kvfree(es->gates);
		dma_fence_put(es->last);
	}
	kvfree(ctx->spare_tasks);
	kfree(ctx->slots);
	/* Maybe the device's last reference: see weave_engine_fini(). */
	drm_dev_put(ctx->drm);
	kfree_rcu(ctx, rcu);
}

/**
 * weave_ectx_abort() - Cut a client's work short.
 * @ctx: The client's engine context.
 * @err: The negative errno the work fails with: -ECANCELED when the client
 *	closes, -ENODEV when its device is unplugged.  Only the first abort
 *	of a context sets it; a later one finds nothing left to do.
 *
 * A job not yet pushed (one whose flush failed) is dropped.  Running jobs
 * of the client stop before their next task and jobs not yet run skip
 * their tasks, all with the errno; every gate whose in-fence has not
 * signalled signals now with it.  Afterwards no job of the client waits on
 * anything but other jobs.
 *
 * Context: The client's mutex held.
 */
void weave_ectx_abort(struct weave_ectx *ctx, int err)
{
	struct weave_engine *engine = ctx->engine;
	struct weave_gate *gate;
	u32 i;

	atomic_cmpxchg(&ctx->aborted, 0, err);
	err = atomic_read(&ctx->aborted);
	if (ctx->job) {
		weave_job_free(ctx->job);
		ctx->job = NULL;
	}
	for (i = 0; i < engine->num_queues; i++)
		wake_up_all(&engine->queues[i].abort_wq);

	for (;;) {
		spin_lock_irq(&ctx->gate_lock);
		gate = list_first_entry_or_null(&ctx->gates, struct weave_gate,
						link);
		if (gate)
			list_del_init(&gate->link);
		spin_unlock_irq(&ctx->gate_lock);
		if (!gate)
			break;
		/* The list's reference is ours now. */
		dma_fence_remove_callback(gate->in, &gate->cb);
		weave_gate_fire(gate, err);
		dma_fence_put(&gate->f.base);
	}
}

/**
 * weave_ectx_set_task_hint() - Change the size of new jobs' task arrays.
 * @ctx: The client's engine context.
 * @task_hint: The client's new threshold.
 *
 * Drops the spare task array, which has the old size.
 *
 * Context: The client's mutex held, before the client's first job.
 */
void weave_ectx_set_task_hint(struct weave_ectx *ctx, u32 task_hint)
{
	void *spare = xchg(&ctx->spare_tasks, NULL);

	if (spare) {
		weave_job_bytes_sub(ctx, ctx->task_hint);
		kvfree(spare);
	}
	ctx->task_hint = task_hint;
}

/**
 * weave_ectx_put() - Drop a reference to a client's engine context.
 * @ctx: The context.
 */
void weave_ectx_put(struct weave_ectx *ctx)
{
	kref_put(&ctx->ref, weave_ectx_release);
}

/* ---- the engine ---------------------------------------------------------- */

/**
 * weave_engine_module_init() - Set up what every engine shares.
 *
 * Return: 0 or -ENOMEM.
 */
int weave_engine_module_init(void)
{
	weave_crc32c_init();
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
		q->wq = alloc_ordered_workqueue("%s", 0, q->name);
		if (!q->scratch || !q->wq) {
			ret = -ENOMEM;
			goto err;
		}
		ret = weave_compat_sched_init(&q->sched, &weave_sched_ops,
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
