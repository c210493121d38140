// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the soft engine's side of the failure graph: which task runs and
 * which is skipped, and what each leaves on the bytes it writes.
 */

#include <linux/dma-fence.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/slab.h>

#include <drm/drm_gem_shmem_helper.h>

#include "weave_bo.h"
#include "weave_drm.h"
#include "weave_engine.h"
#include "weave_failure.h"
#include "weave_taints.h"
#include "weave_insync.h"
#include "weave_job.h"
#include "weave_kernels.h"
#include "weave_propagate.h"
#include "weave_trace.h"

/**
 * DOC: failure propagation
 *
 * The worker executes each task of a job through weave_eng_task_execute():
 *
 * - A task that reads a byte carrying a failure is skipped: it does not
 *   run, the ranges it writes take the failure of the lowest such byte of
 *   its first tainted read binding, and the failure records the skip.
 * - A task that runs and fails (a FAIL kernel) makes a new failure, its
 *   root, which the ranges it writes take.  A client has at most
 *   %WEAVE_MAX_LIVE_FAILURES failures live; past them, or when its stash
 *   has no record left, its tasks' failures share one record, the
 *   client's overflow failure, which names the first of them.
 * - So does a task the engine had no memory to encode where the core
 *   could not keep it queued (&weave_etask.refused, see
 *   weave_engine_fail()): it does not run, whatever its in-syncs, and
 *   its failure has the errno of the refusal, -ENOMEM, and cause
 *   %DRM_WEAVE_FAILURE_ENCODE.  It is recorded in the task's place in
 *   its job, so after the earlier writers of those bytes and before the
 *   later readers, which are skipped, and writers, which make them good.
 *   A task a capture window refused (&weave_entry.refuse) is recorded the
 *   same way, with its own errno and cause %DRM_WEAVE_FAILURE_CAPTURE.
 * - A task that runs and succeeds makes the ranges it writes good.  So
 *   does a host write.
 * - The tasks of an enqueue whose in-syncs include a fence that signalled
 *   with an error do not run: one failure with that error, whose root is
 *   the first of them to reach the worker, goes on what each should have
 *   written.  The enqueue's in-fences travel with its tasks in a &struct
 *   weave_insync, which the slot keeps until the backend encodes its last
 *   task.
 * - A job cut short makes one failure, whose root is the task that was
 *   running, or the next one; what that task and every later task of the
 *   job should have written takes it.  Its error says why: -ETIMEDOUT for
 *   a timeout (the streams stay usable), -ECANCELED or -ENODEV when the
 *   client closed its file or the device was unplugged, which another
 *   process sharing the buffers through PRIME then sees.  A job that could
 *   not run at all counts as cut short before its first task.
 *
 * A task whose bindings carry no failure costs a lockless comparison per
 * binding.  The worker is a fence signalling path and never allocates:
 * the records and claim nodes the graph needs come from the client's
 * stash, &weave_ectx.fstash, which each enqueue fills beforehand with
 * %GFP_KERNEL_ACCOUNT, charged to the client (weave_eng_ctx_fail_reserve()):
 * a record per task and %WEAVE_CLAIM_NODES claim nodes per write binding,
 * as far as the client's limits allow.  When the records run out, the
 * client's tasks share its overflow failure, whose record is kept aside
 * from the first enqueue on (&weave_ectx.overflow): made from it when
 * needed, it is freed with the last byte that carries it, like any other
 * failure, and its record goes back there for the next one.  It counts
 * in the client's live failures, not against their limit: once the
 * client's other failures are cleared, its next max_live_failures are
 * distinct again.  When the claim nodes run out, or a limit is reached,
 * the taints are coarsened (see "DOC: coarsening"), so a worker never
 * fails for want of memory.
 */

/**
 * weave_eng_ctx_fail_reserve() - Set memory aside for the failures of tasks
 * a client enqueues.
 * @ctx: The client's engine context.
 * @entries: The tasks' entries, back to back (weave_core_entry_next()).
 * @n: Number of @entries.
 * @queued_only: Count only the tasks that a recording stream queues, not
 *	the launches its recording takes.
 *
 * Fills the client's stash, with %GFP_KERNEL_ACCOUNT, to hold a record
 * for each task pending and each of these (the most that a task's
 * failure, skip or write may take: a task takes its record while it is
 * counted pending, before its job is released) and %WEAVE_CLAIM_NODES
 * claim nodes more per write binding, up to the client's limits:
 * max_live_failures records and max_client_claims nodes.  So the stash
 * holds at most as much again as the client's failures may.  A client
 * with no task pending first gives back the claim nodes its stash holds
 * past what these tasks need, and its records too unless it had tasks
 * pending within the last second (&weave_ectx.fstash_busy): one whose queue
 * drains between calls keeps its records (a kilobyte each, at most
 * max_live_failures of them) instead of freeing and allocating them again
 * each time.  Also keeps the record of the overflow failure
 * (weave_fg_shared_reserve()).
 *
 * Context: Process context, the client's mutex held.
 * Return: 0, or -ENOMEM: then the stash keeps what it could get.
 */
int weave_eng_ctx_fail_reserve(struct weave_ectx *ctx,
			       const struct weave_entry *entries, u32 n,
			       bool queued_only)
{
	const struct weave_entry *e = entries;
	const struct weave_binding *b;
	struct weave_failures *g = ctx->failures;
	u64 nrec = atomic64_read(&ctx->pending_tasks), nnodes = 0;
	bool idle = !nrec;
	unsigned long flags;
	u32 i, j;
	int ret;

	for (i = 0; i < n; i++, e = weave_core_entry_next(e)) {
		if (queued_only && e->kind == WEAVE_TASK_LAUNCH)
			continue;
		nrec++;
		b = weave_core_entry_bindings(e);
		for (j = 0; j < e->num_bindings; j++)
			if (b[j].access & WEAVE_ACCESS_WRITE)
				nnodes += WEAVE_CLAIM_NODES;
	}
	if (!idle) {
		spin_lock_irqsave(&g->lock, flags);
		nnodes += ctx->fstash.nnodes;
		spin_unlock_irqrestore(&g->lock, flags);
		ctx->fstash_busy = jiffies;
	}
	nrec = min_t(u64, nrec, ctx->fowner.max);
	nnodes = min_t(u64, nnodes, ctx->fowner.max_nodes);

	/* Records kept when a client drains between calls: see above. */
	if (idle)
		weave_fg_stash_trim(g, &ctx->fstash,
				    time_after(jiffies, ctx->fstash_busy + HZ) ?
				    nrec : U32_MAX, nnodes);
	ret = weave_fg_stash_refill(g, &ctx->fstash, nrec, nnodes,
				    GFP_KERNEL_ACCOUNT);
	if (!ret)
		ret = weave_fg_shared_reserve(g, &ctx->overflow,
					      GFP_KERNEL_ACCOUNT);
	return ret;
}

/**
 * weave_eng_ctx_fail_usage() - What a client holds of the failure graph.
 * @ctx: The client's engine context.
 * @claims: Set to the claim nodes from stashes that carry its failures.
 * @records: Set to its live failure records.
 * @bytes: Set to the bytes of those, and of what its stashes hold, at
 *	the size the slab allocator gives each.
 */
void weave_eng_ctx_fail_usage(struct weave_ectx *ctx, u64 *claims, u64 *records,
			      u64 *bytes)
{
	struct weave_failures *g = ctx->failures;
	size_t node = kmalloc_size_roundup(sizeof(struct weave_claim));
	size_t rec = kmalloc_size_roundup(sizeof(struct weave_failure));
	unsigned long flags;
	u64 nodes, recs;

	spin_lock_irqsave(&g->lock, flags);
	*claims = ctx->fowner.nodes;
	*records = ctx->fowner.live;
	nodes = (u64)ctx->fowner.nodes + ctx->fstash.nnodes;
	recs = (u64)ctx->fowner.live + ctx->fstash.nrecords +
	       ctx->overflow.stash.nrecords;
	spin_unlock_irqrestore(&g->lock, flags);
	*bytes = nodes * node + recs * rec;
}

/* The error of the first in-fence of @in that signalled with one, or 0. */
static int weave_insync_error(const struct weave_insync *in)
{
	int status;
	u32 i;

	for (i = 0; i < in->n; i++) {
		status = dma_fence_get_status(in->fences[i]);
		if (status < 0)
			return status;
	}
	return 0;
}

static struct weave_taints *weave_binding_taints(const struct weave_ebinding *b)
{
	return &to_weave_bo(&b->shmem->base)->taints;
}

/*
 * A task being executed: the job's task @t, the @pos-th of its tally
 * @tally.
 */
struct weave_exec {
	struct weave_job *job;
	struct weave_etask *t;
	const struct weave_tally *tally;
	u32 pos;
};

/*
 * An event about the task @x: the client, its job's finished fence and
 * its index in the job, then @...; worked out only while @event is on.
 */
#define weave_exec_trace(event, x, ...) do {				\
	const struct weave_exec *x_ = (x);				\
	const struct dma_fence *f_ = &x_->job->base.s_fence->finished;	\
									\
	if (event##_enabled())						\
		event(x_->job->ctx->id, f_->context, f_->seqno,		\
		      x_->t - x_->job->tasks, __VA_ARGS__);		\
} while (0)

/* The task as a failure report names it. */
static void weave_exec_ftask(const struct weave_exec *x,
			     struct weave_ftask *ft)
{
	*ft = (struct weave_ftask) {
		.client = x->job->ctx->id,
		.seqno = x->tally->first_seqno + x->pos,
		.stream = x->tally->ls->handle,
		.kernel = x->t->kernel,
		.label = x->t->label,
		.type = x->t->kind == WEAVE_TASK_HOST_WRITE ?
			DRM_WEAVE_TASK_HOST_WRITE : DRM_WEAVE_TASK_LAUNCH,
	};
}

/*
 * A failure (@err, @id) that starts at or passes through a task of a
 * stream that owns a capture window dooms the window, the first one only.
 * A refused host write doomed it already, with its errno but no failure
 * yet: the failure it takes when it would have run names the doom.
 */
static void weave_exec_doom(const struct weave_exec *x, int err, u64 id)
{
	struct weave_lstream *ls = x->tally ? x->tally->ls : NULL;
	int old;

	if (!ls || !READ_ONCE(ls->window))
		return;
	old = atomic_cmpxchg(&ls->doom, 0, err);
	if (!old || old == err)
		atomic64_cmpxchg(&ls->doom_failure, 0, id);
}

/* The failure the task's reads carry, with a reference; or NULL. */
static struct weave_failure *weave_etask_read_failure(struct weave_job *job,
						      struct weave_etask *t)
{
	struct weave_ebinding *b;
	struct weave_failure *f;
	u32 i;

	for (i = 0; i < t->nb; i++) {
		if (!(t->access[i] & WEAVE_ACCESS_READ))
			continue;
		b = weave_eng_etask_binding(t, i);
		f = weave_fg_taints_first(job->failures,
					  weave_binding_taints(b), b->offset,
					  b->size);
		if (f)
			return f;
	}
	return NULL;
}

/* Make every range the task writes carry @f. */
static int weave_etask_claim(struct weave_job *job, struct weave_etask *t,
			     struct weave_failure *f)
{
	struct weave_fstash *stash = &job->ctx->fstash;
	struct weave_ebinding *b;
	u32 i;
	int ret;

	for (i = 0; i < t->nb; i++) {
		if (!(t->access[i] & WEAVE_ACCESS_WRITE))
			continue;
		b = weave_eng_etask_binding(t, i);
		ret = weave_fg_taints_claim(job->failures,
					    weave_binding_taints(b), b->offset,
					    b->size, f, stash);
		if (ret)
			return ret;
	}
	return 0;
}

/* Make every range the task wrote good. */
static int weave_etask_release(struct weave_job *job,
			       struct weave_etask *t)
{
	struct weave_fstash *stash = &job->ctx->fstash;
	struct weave_ebinding *b;
	struct weave_taints *taints;
	u32 i;
	int ret;

	for (i = 0; i < t->nb; i++) {
		if (!(t->access[i] & WEAVE_ACCESS_WRITE))
			continue;
		b = weave_eng_etask_binding(t, i);
		taints = weave_binding_taints(b);
		if (!weave_fg_taints_any(job->failures, taints, b->offset,
					 b->size))
			continue;
		ret = weave_fg_taints_release(job->failures, taints, b->offset,
					      b->size, stash);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A new failure of the client's, with root @x, error @err and cause
 * @cause; or, past the client's limit or its stash, the client's overflow
 * failure, made from those by the first task that needs it.  With a
 * reference.
 */
static struct weave_failure *weave_exec_failure(const struct weave_exec *x,
						int err, u32 cause)
{
	struct weave_job *job = x->job;
	struct weave_ectx *ctx = job->ctx;
	struct weave_failure *f;
	struct weave_ftask ft;

	weave_exec_ftask(x, &ft);
	f = weave_fg_create(job->failures, &ctx->fowner, err, &ft,
			    &ctx->fstash);
	if (PTR_ERR_OR_ZERO(f) == -EDQUOT || PTR_ERR_OR_ZERO(f) == -ENOMEM)
		return weave_fg_shared(job->failures, &ctx->overflow,
				       &ctx->fowner, err, &ft,
				       DRM_WEAVE_FAILURE_OVERFLOW);
	if (!IS_ERR(f) && cause)
		weave_fg_set_cause(job->failures, f, cause);
	return f;
}

/* Record the failure @err of the task, for @cause, on what it writes. */
static int weave_exec_fail(const struct weave_exec *x, int err, u32 cause)
{
	struct weave_failure *f;
	int ret;

	f = weave_exec_failure(x, err, cause);
	if (IS_ERR(f))
		return PTR_ERR(f);
	weave_exec_trace(trace_weave_failure, x, err, f->id);
	weave_exec_doom(x, err, f->id);
	ret = weave_etask_claim(x->job, x->t, f);
	weave_fg_put(x->job->failures, f);
	return ret;
}

/*
 * Record that the in-fence error @err kept the task from running: its
 * write set takes the failure of its enqueue's tasks, made now if it is
 * the first.
 */
static int weave_exec_in_fence_fail(const struct weave_exec *x, int err)
{
	struct weave_insync *in = x->tally->insync;
	struct weave_failure *f, *old;

	f = READ_ONCE(in->failure);
	if (!f) {
		f = weave_exec_failure(x, err, DRM_WEAVE_FAILURE_IN_FENCE);
		if (IS_ERR(f))
			return PTR_ERR(f);
		/* The in-syncs keep the caller's reference. */
			old = cmpxchg(&in->failure, NULL, f);
		if (old) {
			weave_fg_put(x->job->failures, f);
			f = old;
		}
	}
	weave_exec_trace(trace_weave_failure, x, err, f->id);
	weave_exec_doom(x, err, f->id);
	return weave_etask_claim(x->job, x->t, f);
}

/**
 * weave_eng_job_fail_from() - Record that a job was cut short.
 * @job: The job, whose worker stopped.
 * @first: The first of its tasks that did not finish: the one running
 *	when the job was cut short, or the next one.
 * @tally: The tally of task @first, if there is one.
 * @pos: Its place in @tally.
 * @err: Why: -ETIMEDOUT for a timeout, else the close (-ECANCELED) or
 *	unplug (-ENODEV) that cancelled it.
 *
 * One failure, @err with root @first, goes on what every task from
 * @first on should have written.
 *
 * Context: The worker of @job's queue, a fence signalling path.
 * Return: 0, or -ENOMEM as weave_eng_task_execute().
 */
int weave_eng_job_fail_from(struct weave_job *job, u32 first,
			    const struct weave_tally *tally, u32 pos, int err)
{
	struct weave_exec x = {
		.job = job, .t = &job->tasks[first], .tally = tally, .pos = pos,
	};
	struct weave_failure *f;
	u32 i;
	int ret = 0;

	if (first >= job->ntasks)
		return 0;
	f = weave_exec_failure(&x, err, err == -ETIMEDOUT ?
					DRM_WEAVE_FAILURE_TIMEOUT :
					DRM_WEAVE_FAILURE_CANCELED);
	if (IS_ERR(f))
		return PTR_ERR(f);
	weave_exec_trace(trace_weave_failure, &x, err, f->id);
	weave_exec_doom(&x, err, f->id);
	for (i = first; !ret && i < job->ntasks; i++)
		ret = weave_etask_claim(job, &job->tasks[i], f);
	weave_fg_put(job->failures, f);
	return ret;
}

/*
 * Run the task @x, or skip it, and record what it leaves on its bytes;
 * @err is set to the task's own errno: its kernel's, its refusal's or
 * in-fence's, or the one it was skipped for.  Returns as
 * weave_eng_task_execute().
 */
static int weave_exec_task(struct weave_exec *x, int *err)
{
	struct weave_job *job = x->job;
	struct weave_etask *t = x->t;
	struct weave_failure *f;
	struct weave_ftask ft;
	int ret;

	if (t->refused) {
		*err = -(int)t->arg;
		return weave_exec_fail(x, *err, t->cause);
	}
	*err = x->tally->insync ? weave_insync_error(x->tally->insync) : 0;
	if (*err)
		return weave_exec_in_fence_fail(x, *err);
	f = weave_etask_read_failure(job, t);
	if (f) {
		*err = READ_ONCE(f->err);
		weave_exec_trace(trace_weave_skip, x, f->id);
		ret = weave_etask_claim(job, t, f);
		if (!ret) {
			weave_exec_ftask(x, &ft);
			weave_fg_skip(job->failures, f, &ft);
			weave_exec_doom(x, *err, f->id);
		}
		weave_fg_put(job->failures, f);
		return ret;
	}
	*err = weave_eng_run_task(job, t);
	if (weave_eng_job_aborted(job))
		return -EINTR;
	if (*err)
		return weave_exec_fail(x, *err, DRM_WEAVE_FAILURE_KERNEL);
	return weave_etask_release(job, t);
}

/**
 * weave_eng_task_execute() - Run a task of a job, or skip it, and record what
 * it leaves on its bytes.
 * @job: The running job.
 * @t: One of its tasks.
 * @tally: The tally of @t: its stream, first seqno and in-syncs.
 * @pos: The place of @t in @tally.
 *
 * See "DOC: failure propagation".
 *
 * Context: The worker of @job's queue, a fence signalling path.
 * Return: 0; -EINTR if the job was cut short while the task ran, which
 * then changed nothing in the graph; or -ENOMEM if the task's failure
 * found no record, not even the overflow failure's (which the client's
 * enqueues set aside), which the job then reports on its fences.
 */
int weave_eng_task_execute(struct weave_job *job, struct weave_etask *t,
			   const struct weave_tally *tally, u32 pos)
{
	struct weave_exec x = { .job = job, .t = t, .tally = tally, .pos = pos };
	int err = 0, ret;

	ret = weave_exec_task(&x, &err);
	if (ret != -EINTR && trace_weave_task_enabled())
		trace_weave_task(job->ctx->id,
				 job->queue - job->ctx->engine->queues,
				 job->base.s_fence->finished.context,
				 job->base.s_fence->finished.seqno,
				 t - job->tasks, t->kernel, err);
	return ret;
}
