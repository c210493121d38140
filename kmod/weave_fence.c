// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the soft engine's fences: hardware fences, the out-fence proxies
 * and joins handed to user space, and the gates that stand in for
 * in-fences, with the slots' pending gates.
 */

#include <linux/build_bug.h>
#include <linux/dma-fence.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>

#include "weave_engine.h"
#include "weave_fence.h"
#include "weave_lists.h"

/**
 * DOC: fences
 *
 * Unload.  A fence must not outlive the code of its ops (Debian's 6.1 has
 * none of the later fixes).  Each weave fence holds a module reference
 * from its initialisation until after its release, and each job one until
 * after it is freed, so rmmod is refused while any of them lives.  The
 * reference is not dropped by the release (or weave_eng_job_free()) itself,
 * which would go on running module text that rmmod may already have
 * freed, but by an RCU callback that frees the object and ends with the
 * module_put(): weave_fence_free() and weave_eng_job_free() end by queueing
 * it (or, for a job kept for reuse, by the module_put() itself, see "DOC:
 * job recycling").  Module exit calls rcu_barrier(), which returns only
 * once every callback queued before it has returned, so none is still
 * running in the module's text when it goes.  The function that queues the
 * callback does nothing after that but return, and the callback runs a
 * grace period later; as a preemptible kernel could still run it, and rmmod,
 * before such a function has returned, module exit also waits with
 * synchronize_rcu_tasks() until every task has scheduled voluntarily,
 * which none does in those instructions.  A caller running in the module
 * after such a release holds a reference of its own (an open file, a job
 * not yet freed) or runs in a fence callback, with interrupts off, which
 * a grace period waits for.  The
 * scheduler's own fences name their timeline through the queue, which
 * unload frees; a job that ran keeps its hardware fence (so the module)
 * alive through them, but a job killed before it ran does not.  So user
 * space never gets a scheduler fence: out-syncs and the reservation
 * objects of a job's buffers (which dma-buf importers and
 * DMA_BUF_IOCTL_EXPORT_SYNC_FILE read) get a weave fence that stands in
 * for it, a proxy (weave_eng_proxy_create()) made with the job and attached
 * when it is armed.
 *
 * Release.  A fence's last reference can go wherever a fence is put: in
 * the callback of a fence it waits for, under that fence's lock with
 * interrupts off (a proxy's or a join's input, a gate's in-fence), in an
 * RCU callback, or in any driver's code.  So no release here sleeps,
 * takes a mutex or frees vmalloc() memory: it puts the fences it holds,
 * whose releases keep the same rule, and leaves the freeing to the RCU
 * callback above.  A join's inputs, which kvmalloc() takes from vmalloc()
 * when they are larger than a page (max_streams of 103 and up) and its
 * kmalloc() fails, are freed there too, in softirq context or with bottom
 * halves off, where kvfree() hands vmalloc() memory to a worker.  Nothing
 * else of weave's is let go in a fence callback: jobs, and the buffers,
 * streams and clients they hold, are freed by the scheduler's free_job,
 * by an ioctl or at close, all in process context.
 *
 * A join is weave's own, not a &struct dma_fence_array, which signals
 * once all its fences have, with the first error, and frees with
 * kfree() only.  6.1's dma_fence_array_create() allocates when it is
 * given the fences, which FLUSH_ALL knows only once its work is
 * submitted, where nothing may fail any more (dma_fence_array_alloc()
 * came in 6.11); and its fences are scheduler fences, which
 * dma_fence_unwrap() (sync_file's fence info) would show user space.
 *
 * Timelines.  The proxies of a backend stream's jobs are one timeline per
 * scheduler entity: fence context &weave_bstream.fence_context plus the
 * priority, with a seqno taken from &weave_bstream.fence_seqno when the
 * job is committed at flush, under the client's mutex, in the order the
 * jobs are pushed (weave_eng_proxy_attach_at()).  So a buffer's reservation
 * keeps one fence per entity that wrote it, as dma_resv_add_fence()
 * replaces an earlier fence of the same context, and a job gets one
 * dependency per entity, not one per pending job.  A fence context must
 * signal in seqno order, and these do: a proxy signals from the callback
 * of its job's finished fence, and the finished fences of an entity
 * signal in push order.  The scheduler runs an entity's jobs in push
 * order on one queue, where run_job or, behind a job it handed on, the
 * queue's ordered workqueue runs them and signals their hardware fences
 * in that order (see "DOC: hardware queues", The job path), and each
 * finished fence signals from its hardware fence's callback, or from
 * run_job's caller for a fence signalled inline, before the next job
 * runs.  A timeout keeps
 * that order: the timed-out job is cut short on the worker and signals
 * there, in its place, like any other; the scheduler is never stopped
 * (see "DOC: hardware queues", Timeouts).  Gates, joins
 * and the proxies of out-syncs (weave_eng_proxy_attach()) each have a context
 * of their own: nothing orders them.
 */

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

/*
 * The RCU callback that ends every weave fence: frees it and drops its
 * module reference.  It is the last of the module's code the fence runs:
 * module exit waits for it with rcu_barrier().
 */
static void weave_fence_free_rcu(struct rcu_head *rcu)
{
	kfree(container_of(rcu, struct dma_fence, rcu));
	module_put(THIS_MODULE);
}

/*
 * Free @f, whose &struct dma_fence starts its allocation, once readers
 * under RCU are done with it, as dma_fence_free() would, then drop its
 * module reference; see "DOC: fences", Unload.  Call it last in a release.
 */
static void weave_fence_free(struct dma_fence *f)
{
	call_rcu(&f->rcu, weave_fence_free_rcu);
}

static_assert(offsetof(struct weave_fence, base) == 0);
static_assert(offsetof(struct weave_gate, f.base) == 0);
static_assert(offsetof(struct weave_proxy, f.base) == 0);
static_assert(offsetof(struct weave_join, f.base) == 0);

static void weave_gate_release(struct dma_fence *f)
{
	struct weave_gate *gate = container_of(f, struct weave_gate, f.base);

	dma_fence_put(gate->in);
	weave_fence_free(f);
}

static void weave_proxy_release(struct dma_fence *f)
{
	struct weave_proxy *proxy = container_of(f, struct weave_proxy,
						 f.base);

	dma_fence_put(proxy->in);
	weave_fence_free(f);
}

/*
 * The end of a join, a grace period after its release: its inputs' array
 * may be vmalloc() memory, which the release cannot free (see "DOC:
 * fences", Release).  An RCU callback runs in softirq context, or with
 * bottom halves off, where kvfree() hands vmalloc() memory to a worker.
 */
static void weave_join_free_rcu(struct rcu_head *rcu)
{
	struct weave_join *join = container_of(rcu, struct weave_join,
					       f.base.rcu);

	kvfree(join->in);
	weave_fence_free_rcu(rcu);
}

static void weave_join_release(struct dma_fence *f)
{
	struct weave_join *join = container_of(f, struct weave_join, f.base);
	u32 i;

	for (i = 0; i < join->n; i++)
		dma_fence_put(join->in[i].fence);
	call_rcu(&f->rcu, weave_join_free_rcu);
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
	.release = weave_fence_free,
};

static const struct dma_fence_ops weave_gate_ops = {
	.get_driver_name = weave_fence_driver_name,
	.get_timeline_name = weave_gate_timeline_name,
	.release = weave_gate_release,
};

/* Set @err on @f unless it is signalled or already has an error. */
void weave_eng_fence_error(struct dma_fence *f, int err)
{
	unsigned long flags;

	spin_lock_irqsave(f->lock, flags);
	if (!test_bit(DMA_FENCE_FLAG_SIGNALED_BIT, &f->flags) && !f->error)
		f->error = err;
	spin_unlock_irqrestore(f->lock, flags);
}

/*
 * Initialise the hardware fence @f of a job as seqno @seqno of the queue's
 * fence @context; it holds a module reference until after it is freed.
 */
void weave_eng_hw_fence_init(struct weave_fence *f, u64 context, u64 seqno)
{
	spin_lock_init(&f->lock);
	dma_fence_init(&f->base, &weave_hw_fence_ops, &f->lock, context,
		       seqno);
	__module_get(THIS_MODULE);
}

/* Signal @gate once, with @err; whoever takes it off the list puts it. */
void weave_eng_gate_fire(struct weave_gate *gate, int err)
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
		weave_eng_fence_error(&gate->f.base, err);
	dma_fence_signal(&gate->f.base);
	if (listed)
		dma_fence_put(&gate->f.base);
}

static void weave_gate_cb(struct dma_fence *in, struct dma_fence_cb *cb)
{
	struct weave_gate *gate = container_of(cb, struct weave_gate, cb);

	weave_eng_gate_fire(gate, in->error);
}

static void weave_proxy_cb(struct dma_fence *in, struct dma_fence_cb *cb)
{
	struct weave_proxy *proxy = container_of(cb, struct weave_proxy, cb);

	if (in->error)
		weave_eng_fence_error(&proxy->f.base, in->error);
	dma_fence_signal(&proxy->f.base);
	dma_fence_put(&proxy->f.base);	/* the callback's reference */
}

/**
 * weave_eng_proxy_create() - Allocate a proxy, a fence to stand in for another.
 *
 * The fence is initialised, with its timeline and a module reference, only
 * by weave_eng_proxy_attach() or weave_eng_proxy_attach_at(), where nothing may
 * fail any more; until then it is no fence yet, and weave_eng_proxy_put()
 * frees it.
 *
 * Return: The proxy, or NULL if out of memory.
 */
struct weave_proxy *weave_eng_proxy_create(void)
{
	return kzalloc(sizeof(struct weave_proxy), GFP_KERNEL_ACCOUNT);
}

/**
 * weave_eng_proxy_attach_at() - Make a proxy stand in for a timeline's fence.
 * @proxy: From weave_eng_proxy_create(), not attached yet; this takes it.
 * @in: The fence; this takes the caller's reference.
 * @context: The fence context of the timeline.
 * @seqno: The proxy's seqno on it, above every earlier one of @context.
 *
 * The caller orders the timeline: the proxies of @context must signal in
 * @seqno order, so @in must signal after the fences the earlier proxies of
 * @context stand in for.
 *
 * Return: The proxy's fence, with one reference, which signals with @in's
 * error when @in does.
 */
struct dma_fence *weave_eng_proxy_attach_at(struct weave_proxy *proxy,
					    struct dma_fence *in, u64 context,
					    u64 seqno)
{
	spin_lock_init(&proxy->f.lock);
	dma_fence_init(&proxy->f.base, &weave_proxy_ops, &proxy->f.lock,
		       context, seqno);
	__module_get(THIS_MODULE);
	proxy->in = in;
	dma_fence_get(&proxy->f.base);	/* for the callback */
	if (dma_fence_add_callback(in, &proxy->cb, weave_proxy_cb))
		weave_proxy_cb(in, &proxy->cb);
	return &proxy->f.base;
}

/**
 * weave_eng_proxy_attach() - Make a proxy stand in for a fence.
 * @proxy: From weave_eng_proxy_create(), not attached yet; this takes it.
 * @in: The fence; this takes the caller's reference.
 *
 * The proxy gets a fence context of its own.
 *
 * Return: The proxy's fence, with one reference, which signals with @in's
 * error when @in does.
 */
struct dma_fence *weave_eng_proxy_attach(struct weave_proxy *proxy,
					 struct dma_fence *in)
{
	return weave_eng_proxy_attach_at(proxy, in, dma_fence_context_alloc(1),
					 1);
}

/**
 * weave_eng_proxy_put() - Free a proxy that was never attached.
 * @proxy: The proxy, or NULL.
 */
void weave_eng_proxy_put(struct weave_proxy *proxy)
{
	kfree(proxy);
}

/* The &weave_ectx.id of the client whose job @f stands in for, or zero. */
u64 weave_eng_fence_owner(struct dma_fence *f)
{
	if (f->ops != &weave_proxy_ops)
		return 0;
	return container_of(f, struct weave_proxy, f.base)->owner;
}

/**
 * weave_eng_fence_waited() - The fence a dependency of a job stands for,
 * for the weave_job_dep event.
 * @f: A dependency of a job of client @owner.
 * @owner: The &weave_ectx.id of that client.
 *
 * Return: For a proxy of one of @owner's jobs (a buffer it used), that
 * job's finished fence; for a gate (an in-sync, another client's work),
 * the fence it waits for, or the finished fence of the job that fence
 * stands for; NULL for any other fence, such as a slot's last job.
 */
struct dma_fence *weave_eng_fence_waited(struct dma_fence *f, u64 owner)
{
	if (f->ops == &weave_proxy_ops)
		return weave_eng_fence_owner(f) == owner ?
		       container_of(f, struct weave_proxy, f.base)->in : NULL;
	if (f->ops != &weave_gate_ops)
		return NULL;
	f = container_of(f, struct weave_gate, f.base)->in;
	if (f->ops == &weave_proxy_ops)
		return container_of(f, struct weave_proxy, f.base)->in;
	return f;
}

/* One input fewer to wait for; the last one signals the join. */
static void weave_join_done(struct weave_join *join, int err)
{
	if (err)
		weave_eng_fence_error(&join->f.base, err);
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
 * weave_eng_join_create() - Make a weave fence that will wait for several.
 * @max: The most inputs it will get.
 *
 * Everything the fence needs is allocated here, so that the inputs can be
 * added and the fence armed where nothing may fail any more.  Until it is
 * armed the fence does not signal; a fence given no input may be put
 * without ever being armed.
 *
 * Not a &struct dma_fence_array: on 6.1, dma_fence_array_create() is the
 * only way to make one, and it allocates when it is given its fences,
 * which are known only once the flush has pushed its jobs, where nothing
 * may fail (6.12's dma_fence_array_alloc() and dma_fence_array_init()
 * split the two, 6.1 has neither); nor does it take zero fences, which a
 * FLUSH_ALL of a client with nothing flushed joins.
 *
 * Return: The fence with one reference, or NULL if out of memory.
 */
struct weave_join *weave_eng_join_create(u32 max)
{
	struct weave_join *join;

	join = kzalloc(sizeof(*join), GFP_KERNEL_ACCOUNT);
	if (!join)
		return NULL;
	join->in = kvmalloc_array(max, sizeof(*join->in), GFP_KERNEL_ACCOUNT);
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
 * weave_eng_join_add() - Make a join wait for one more fence.
 * @join: From weave_eng_join_create(), not armed yet, with room left.
 * @fence: The fence; this takes the caller's reference.
 */
void weave_eng_join_add(struct weave_join *join, struct dma_fence *fence)
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
 * weave_eng_join_arm() - Let a join signal once its inputs have.
 * @join: From weave_eng_join_create(); this takes the caller's reference.
 *
 * Return: The join's fence, which signals when every input added has, with
 * the error of one that failed if any did.
 */
struct dma_fence *weave_eng_join_arm(struct weave_join *join)
{
	dma_fence_get(&join->f.base);	/* dropped by the last input */
	weave_join_done(join, 0);
	return &join->f.base;
}

/**
 * weave_eng_join_put() - Drop a join that was given no input.
 * @join: The join, or NULL.
 */
void weave_eng_join_put(struct weave_join *join)
{
	if (join)
		dma_fence_put(&join->f.base);
}

static struct weave_gate *to_weave_gate(struct dma_fence *f)
{
	return container_of(f, struct weave_gate, f.base);
}

/*
 * Make a gate on @in, taking the caller's reference to @in; it does not
 * watch @in until weave_eng_gate_arm().  Returns it with one reference, or NULL
 * (and @in is not taken) if out of memory.
 */
struct weave_gate *weave_eng_gate_create(struct weave_ectx *ctx,
					 struct dma_fence *in)
{
	struct weave_gate *gate = kzalloc(sizeof(*gate), GFP_KERNEL_ACCOUNT);

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
void weave_eng_gate_arm(struct weave_ectx *ctx, struct weave_gate *gate)
{
	dma_fence_get(&gate->f.base);
	spin_lock_irq(&ctx->gate_lock);
	list_add_tail(&gate->link, &ctx->gates);
	spin_unlock_irq(&ctx->gate_lock);
	if (dma_fence_add_callback(gate->in, &gate->cb, weave_gate_cb))
		weave_eng_gate_fire(gate, gate->in->error);
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
		weave_eng_gate_fire(gate, -ECANCELED);
		dma_fence_put(&gate->f.base);
	}
	dma_fence_put(&gate->f.base);
}

/* The pending gate of slot @es on @f's fence context, or NULL. */
static struct weave_gate *weave_eslot_gate_of(struct weave_eslot *es,
					      const struct dma_fence *f,
					      u32 *index)
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

/* The in-fence of the pending gate of slot @arg on @f's fence context. */
static struct dma_fence *weave_eslot_cover(void *arg,
					   const struct dma_fence *f)
{
	struct weave_gate *gate;
	u32 idx;

	gate = weave_eslot_gate_of(arg, f, &idx);
	return gate ? gate->in : NULL;
}

/**
 * weave_eng_ctx_gate_room() - How many more gates a slot takes.
 * @ctx: The client's engine context.
 * @slot: The slot.
 *
 * Context: The client's mutex held.
 * Return: %WEAVE_MAX_SLOT_GATES minus the slot's pending gates.
 */
u32 weave_eng_ctx_gate_room(struct weave_ectx *ctx, u32 slot)
{
	return WEAVE_MAX_SLOT_GATES - ctx->slots[slot].ngates;
}

/**
 * weave_eng_ctx_gates_prepare() - Make the gates of in-fences, not linked yet.
 * @ctx: The client's engine context.
 * @slot: The slot they will gate.
 * @fences: @n fences; this takes the caller's references, also on error,
 *	and replaces each kept one by its gate.
 * @n: In: entries of @fences.  Out: gates made, at the start of @fences.
 *
 * Keeps one fence per fence context, the later one, and drops a fence a
 * pending gate of the slot already covers (same context, not earlier).
 * Allocates a gate per remaining fence and room for them in the slot, so
 * that weave_eng_ctx_gates_commit() cannot fail.  On error nothing changed.
 *
 * Context: The client's mutex held.
 * Return: 0; -ENOSPC if the slot would hold more than
 * %WEAVE_MAX_SLOT_GATES gates; -ENOMEM.
 */
int weave_eng_ctx_gates_prepare(struct weave_ectx *ctx, u32 slot,
				struct dma_fence **fences, u32 *n)
{
	struct weave_eslot *es = &ctx->slots[slot];
	u32 fresh = weave_core_fences_dedupe(fences, n, weave_eslot_cover, es);
	struct weave_gate *gate;
	u32 i, j, k = *n;
	int ret;

	ret = es->ngates + fresh > WEAVE_MAX_SLOT_GATES ? -ENOSPC : 0;
	if (!ret)
		ret = weave_core_grow((void **)&es->gates, &es->cgates,
				      es->ngates + fresh, sizeof(*es->gates));
	for (i = 0; i < k; i++) {
		gate = ret ? NULL : weave_eng_gate_create(ctx, fences[i]);
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
 * weave_eng_ctx_gates_commit() - Gate a slot's next job on prepared gates.
 * @ctx: The client's engine context.
 * @slot: The slot given to weave_eng_ctx_gates_prepare().
 * @gates: Its gates; this takes the references.
 * @n: Entries of @gates.
 *
 * A gate replaces the slot's pending gate of the same in-fence context,
 * which is earlier; the others are added.  Cannot fail.
 *
 * Context: The client's mutex held, no change to the slot's gates since
 * the prepare.
 */
void weave_eng_ctx_gates_commit(struct weave_ectx *ctx, u32 slot,
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
		weave_eng_gate_arm(ctx, gate);
	}
}

/**
 * weave_eng_ctx_gate_bytes() - Memory of the gates pending on the slots.
 * @ctx: The client's engine context.
 *
 * Context: The client's mutex held.
 * Return: Bytes of the gates not yet handed to a job.
 */
u64 weave_eng_ctx_gate_bytes(struct weave_ectx *ctx)
{
	return ctx->ngates * sizeof(struct weave_gate);
}

/**
 * weave_eng_ctx_slot_fence() - The fence of everything flushed on a slot.
 * @ctx: The client's engine context.
 * @slot: The slot.
 *
 * Context: The client's mutex held.
 * Return: A reference to the finished fence of the slot's last job, or
 * NULL if the slot never had one.
 */
struct dma_fence *weave_eng_ctx_slot_fence(struct weave_ectx *ctx, u32 slot)
{
	return dma_fence_get(ctx->slots[slot].last);
}
