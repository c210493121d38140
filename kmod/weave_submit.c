// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the submission of tasks on a stream, for ENQUEUE and REPLAY.
 *
 * Reading and checking the tasks and in-syncs a client hands in, resolving
 * their handles, staging host writes and gating on in-fences, then
 * registering the tasks with the scheduler core.
 */

#include <linux/dma-fence.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_syncobj.h>

#include "weave_arena.h"
#include "weave_client.h"
#include "weave_core.h"
#include "weave_drm.h"
#include "weave_engine.h"
#include "weave_fence.h"
#include "weave_insync.h"
#include "weave_job.h"
#include "weave_prepare.h"
#include "weave_propagate.h"
#include "weave_staging.h"
#include "weave_submit.h"
#include "weave_uarray.h"

/**
 * DOC: enqueue
 *
 * %DRM_IOCTL_WEAVE_ENQUEUE is all or nothing.  Under the client's mutex it
 * first copies and checks every task and in-sync, resolves every handle
 * (a binding's buffer gets the client's tracking record, which holds a
 * reference to it), stages host-write bytes, makes the soft engine's
 * reserve job if the client has none (weave_eng_ctx_reserve(), for a task
 * that an execution caused by registering cannot keep), the stream's slot
 * (weave_core_reserve()) and the in-fences' gates; only then does it link
 * the gates to the slot and register the tasks with the scheduler core,
 * neither of which can fail.  Every step before that point undoes itself
 * on error.  A slot whose pending gates would pass %WEAVE_MAX_SLOT_GATES
 * is executed first, which hands them to a job.  The work is bounded by
 * max_tasks_per_enqueue, max_bindings, max_in_syncs and
 * %DRM_WEAVE_MAX_STRIDE.
 *
 * Each task is read once (a chunk of %WEAVE_TASK_CHUNK user tasks at a
 * time, or the shared ring's copy), checked once, and encoded once: its
 * bindings, uniforms, grid and staging are written straight into the
 * compact &struct weave_entry that the slot's ring will hold, in the
 * client's scratch (&weave_client.entries_buf, charged to its memory
 * cgroup).  The pin, refusal, failure-reservation, ring-reservation and
 * record steps walk those entries; registering moves each into the ring
 * as it is (weave_core_register_entry()), and a recording window keeps
 * them as they are too (see "DOC: graphs").
 *
 * All of that is one try, inside a drm_dev_enter() section and with page
 * faults disabled.  A try that finds user memory missing, or the slot's
 * staging arena full, undoes itself as any failed try does, and the call
 * faults the memory in ("DOC: user memory") or waits for room ("DOC:
 * staging") with no lock held and outside the section, then tries again.
 */

/* weave_uarray_tasks() reads every field: keep it in step with the struct. */
static_assert(sizeof(struct drm_weave_task) == 64);

/*
 * The bulk reader of tasks for weave_uarray_read(): field by field in one
 * user-access window, twelve loads per task instead of copy_from_user()'s
 * string copy of 64 bytes, the costlier of the two on short copies (by far
 * under emulation).  Return: true if all @n were read; false on a fault.
 */
static bool weave_uarray_tasks(void *dst, const void __user *usrc, u32 n)
{
	const struct drm_weave_task __user *src = usrc;
	struct drm_weave_task *t;
	u64 tail;

	if (!user_access_begin(src, (size_t)n * sizeof(*src)))
		return false;
	for (t = dst; t < (struct drm_weave_task *)dst + n; t++, src++) {
		unsafe_get_user(t->type, &src->type, fault);
		unsafe_get_user(t->kernel, &src->kernel, fault);
		unsafe_get_user(t->bindings.ptr, &src->bindings.ptr, fault);
		unsafe_get_user(t->bindings.stride, &src->bindings.stride,
				fault);
		unsafe_get_user(t->bindings.count, &src->bindings.count, fault);
		unsafe_get_user(t->uniforms, &src->uniforms, fault);
		unsafe_get_user(t->uniforms_size, &src->uniforms_size, fault);
		unsafe_get_user(t->grid[0], &src->grid[0], fault);
		unsafe_get_user(t->grid[1], &src->grid[1], fault);
		unsafe_get_user(t->grid[2], &src->grid[2], fault);
		unsafe_get_user(t->data, &src->data, fault);
		unsafe_get_user(tail, (const u64 __user *)&src->label, fault);
		t->label = lower_32_bits(tail);
		t->pad = upper_32_bits(tail);
	}
	user_access_end();
	return true;

fault:
	user_access_end();
	return false;
}

/*
 * Room for the entries of @count tasks, at most %WEAVE_ENTRY_MAX_SIZE
 * each: the client's cached scratch if it is big enough.
 */
static struct weave_entry *weave_enqueue_entries_buf(struct weave_client *c,
						     u32 count)
{
	struct weave_entry *buf;

	/* Not zeroed: weave_task_copy() writes every byte it reads. */
	if (count <= c->entries_cap)
		return c->entries_buf;
	buf = kvmalloc_array(count, WEAVE_ENTRY_MAX_SIZE, GFP_KERNEL_ACCOUNT);
	if (buf && count <= WEAVE_ENQUEUE_CACHE) {
		kvfree(c->entries_buf);
		c->entries_buf = buf;
		c->entries_cap = count;
	}
	return buf;
}

/**
 * weave_enqueue_stream() - Resolve step: the stream of an ENQUEUE, or of a
 * replay.
 * @c: The client.
 * @args: The checked ENQUEUE arguments.
 * @count: The tasks to queue.
 *
 * Context: The client's mutex held.
 * Return: The stream, if it can take @count more tasks; else ERR_PTR() of
 * -ENOENT, -ECANCELED (it failed) or -EBUSY (max_pending_tasks).
 */
struct weave_lstream *weave_enqueue_stream(struct weave_client *c,
					   const struct drm_weave_enqueue *args,
					   u32 count)
{
	struct weave_lstream *ls;

	ls = weave_client_stream(c, args->stream);
	if (IS_ERR(ls))
		return ls;
	if (atomic_read(&ls->error))
		return ERR_PTR(-ECANCELED);
	if (atomic64_read(&c->ectx->pending_tasks) + count >
	    c->wdev->limits.max_pending_tasks)
		return ERR_PTR(-EBUSY);
	return ls;
}

/*
 * Copy step: copy in the tasks of @args, a chunk at a time (or take those
 * @st->kt holds), and prepare each into its entry, back to back from
 * @entries.  *@n counts the entries prepared, which hold resources.
 */
static int weave_enqueue_copy_tasks(struct weave_client *c,
				    struct drm_file *file,
				    const struct drm_weave_enqueue *args,
				    struct weave_entry *entries, u32 *n,
				    struct weave_stage *st)
{
	struct drm_weave_task *chunk = c->task_chunk;
	struct weave_entry *e = entries;
	u32 count = args->tasks.count;
	u32 k, got = 0;
	int cret = 0;
	int ret;

	if (st->kt) {
		/* *@n stays the count prepared: the caller records them. */
		for (*n = 0; *n < count; (*n)++) {
			ret = weave_task_prepare(c, file, &st->kt[*n].task,
						 &st->kt[*n], e, st);
			if (ret)
				return ret;
			e = weave_core_entry_next(e);
		}
		return 0;
	}
	for (*n = 0; *n < count; (*n)++) {
		k = *n % WEAVE_TASK_CHUNK;
		if (!k)
			cret = weave_uarray_read(chunk, sizeof(*chunk),
						 WEAVE_TASK_SIZE_V0,
						 &args->tasks, *n,
						 min(count - *n,
						     WEAVE_TASK_CHUNK),
						 weave_uarray_tasks, &got);
		/* The tasks before a bad one have had their say. */
		if (k == got)
			return cret;
		ret = weave_task_prepare(c, file, &chunk[k], NULL, e, st);
		if (ret)
			return ret;
		e = weave_core_entry_next(e);
	}
	return 0;
}

/**
 * weave_enqueue_in_fences() - Resolve step: the fences of the in-syncs of
 * an ENQUEUE, or of a replay.
 * @file: The client's file.
 * @args: The checked ENQUEUE arguments.
 * @fences: Room for @args' in-syncs.
 * @nf: Set to the number of fences taken into @fences, for the caller to
 *	put, whether it fails or not.
 *
 * Return: 0, or a negative errno as documented on &struct drm_weave_enqueue.
 */
int weave_enqueue_in_fences(struct drm_file *file,
			    const struct drm_weave_enqueue *args,
			    struct dma_fence **fences, u32 *nf)
{
	struct drm_weave_sync us;
	int ret;

	for (*nf = 0; *nf < args->in_syncs.count; (*nf)++) {
		ret = weave_uarray_elem(&us, sizeof(us), &args->in_syncs, *nf);
		if (!ret && us.flags)
			ret = -EINVAL;
		if (ret)
			return ret;
		ret = drm_syncobj_find_fence(file, us.handle,
					     us.timeline_value, 0,
					     &fences[*nf]);
		if (ret)	/* -EINVAL: no fence at that point */
			return ret == -EINVAL ? -ENOENT : ret;
	}
	return 0;
}

/* Whether any of the @n prepared @entries is not a launch. */
static bool weave_entries_queue_any(const struct weave_entry *entries, u32 n)
{
	const struct weave_entry *e = entries;
	u32 i;

	for (i = 0; i < n; i++, e = weave_core_entry_next(e)) {
		if (e->kind != WEAVE_TASK_LAUNCH)
			return true;
	}
	return false;
}

/*
 * Reserve step, the last that can fail: the engine's reserve job, the
 * stream's slot, into *@slot, with ring room for the @n @entries, and the
 * gates of the *@nf in-fences.  Sets *@nf to zero if it put them.
 */
static int weave_enqueue_reserve(struct weave_client *c,
				 struct drm_weave_enqueue *args,
				 const struct weave_entry *entries, u32 n,
				 struct dma_fence **fences, u32 *nf,
				 u32 *slot)
{
	int ret;

	/* For a task the executions of registering cannot keep. */
	ret = weave_eng_ctx_reserve(c->ectx);
	if (ret)
		return ret;
	*slot = weave_core_slot(&c->core, args->stream);
	if (*nf && weave_eng_ctx_gate_room(c->ectx, *slot) < *nf) {
		/* Packing the slot's tasks hands its gates to a job. */
		ret = weave_core_execute(&c->core, &args->stream, 1);
		if (ret)
			return ret;
	}
	/* After that execution, which gives back the ring's free chunks. */
	ret = weave_core_reserve(&c->core, args->stream, entries, n);
	if (ret)
		return ret;
	ret = weave_eng_ctx_gates_prepare(c->ectx, *slot, fences, nf);
	if (ret)
		*nf = 0;	/* it put the fences */
	return ret;
}

/*
 * Commit step: link the @nf gates and the in-syncs @in (if any, which it
 * takes) to @slot and register the @count prepared @entries with the core,
 * which moves each into the slot's ring and takes its staging; the holds
 * on their tracks go once the core counts them queued.  Cannot fail but
 * for a bug.
 */
static int weave_enqueue_commit(struct weave_client *c,
				struct drm_weave_enqueue *args,
				struct weave_lstream *ls,
				struct weave_entry *entries, u32 count,
				u64 staged, struct dma_fence **fences, u32 nf,
				struct weave_insync *in, u32 slot)
{
	u64 first = weave_core_next_seqno(&c->core);
	struct weave_entry *e = entries;
	u32 i;
	int ret;

	weave_eng_ctx_gates_commit(c->ectx, slot, fences, nf);
	/* Before the tasks: registering them may encode some at once. */
	if (in)
		weave_eng_insync_commit(c->ectx, slot, in, first,
					first + count - 1);
	atomic64_add(count, &c->ectx->pending_tasks);
	atomic64_add(staged, &c->ectx->staged_bytes);
	for (i = 0; i < count; i++, e = weave_core_entry_next(e)) {
		e->stream_seqno = ls->enqueued + 1;
		ret = weave_core_register_entry(&c->core, args->stream, e);
		if (WARN_ON_ONCE(ret)) {
			/* Checked and reserved: the core accepts every task. */
			atomic64_sub(count - i, &c->ectx->pending_tasks);
			atomic64_sub(weave_entries_release(c, e, count - i),
				     &c->ectx->staged_bytes);
			return ret;
		}
		ls->enqueued++;
		if (e->kind == WEAVE_TASK_HOST_WRITE)
			weave_entry_write_of(e)->data = NULL;	/* the core's */
		weave_entry_release(c, e, e->num_bindings);
	}
	c->enqueued = true;
	args->seqno = ls->enqueued;
	return 0;
}

/*
 * Copy step of a recording's entries: the @nrecorded back to back from
 * @recorded into @entries, each holding its buffers, and refused with
 * @refuse if it is not zero.
 */
static void weave_recording_copy_entries(struct weave_client *c,
					 const struct weave_entry *recorded,
					 u32 nrecorded, int refuse,
					 struct weave_entry *entries, u32 *n)
{
	const struct weave_entry *r = recorded;
	struct weave_entry *e = entries;

	for (*n = 0; *n < nrecorded; (*n)++) {
		memcpy(e, r, weave_core_entry_size(r));
		e->refuse = refuse;
		weave_entry_hold(c, e);
		r = weave_core_entry_next(r);
		e = weave_core_entry_next(e);
	}
}

/*
 * Pin step: the buffers of @c's @n entries about to be queued (not the
 * launches a recording takes, if @queued_only), where their tracking
 * records do not hold a pin yet (see "DOC: buffer objects").  On error the
 * pins taken stay with their records, which let go of them when the
 * entries are released.
 */
static int weave_entries_pin(struct weave_client *c,
			     const struct weave_entry *entries, u32 n,
			     bool queued_only)
{
	const struct weave_entry *e = entries;
	const struct weave_binding *b;
	struct weave_btrack *bt;
	u32 i, j;
	int ret;

	for (i = 0; i < n; i++, e = weave_core_entry_next(e)) {
		if (queued_only && e->kind == WEAVE_TASK_LAUNCH)
			continue;
		b = weave_core_entry_bindings(e);
		for (j = 0; j < e->num_bindings; j++) {
			bt = container_of(b[j].track, struct weave_btrack,
					  track);
			ret = weave_btrack_pin(c, bt);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * Host writes into a buffer that a capture window records are refused,
 * lazily: they are queued, and taint their destination when they would
 * have run (see "DOC: graph capture").
 */
static void weave_enqueue_refuse_writes(struct weave_entry *entries, u32 n,
					bool all)
{
	struct weave_entry *e = entries;
	u32 i;

	for (i = 0; i < n; i++, e = weave_core_entry_next(e))
		if (e->kind == WEAVE_TASK_HOST_WRITE &&
		    (all || container_of(weave_core_entry_bindings(e)[0].track,
					 struct weave_btrack,
					 track)->recorded))
			e->refuse = -EBUSY;
}

/*
 * Record step of an ENQUEUE of a stream that records its window: its
 * launches move to the recording through @rec, the rest of its @n entries
 * stay in @entries, to be queued: *@n and *@count become their number.
 * What they leave is queued after, where nothing may fail: so first
 * reserve (*@slot, with the in-fences in @fences and *@nf), pin and set
 * aside for it before the launches move, and a call that fails records
 * nothing.
 */
static int weave_submit_record(struct weave_client *c,
			       struct drm_weave_enqueue *args,
			       const struct weave_recorder *rec,
			       struct weave_lstream *ls,
			       struct weave_entry *entries, u32 *n, u32 *count,
			       struct dma_fence **fences, u32 *nf, u32 *slot)
{
	int ret = 0;

	if (weave_entries_queue_any(entries, *n)) {
		ret = weave_enqueue_reserve(c, args, entries, *n, fences, nf,
					    slot);
		if (!ret)
			ret = weave_entries_pin(c, entries, *n, true);
		if (!ret)
			ret = weave_eng_ctx_fail_reserve(c->ectx, entries, *n,
							 true);
		if (ret)
			return ret;
	}
	/* The launches go to the recording, the rest is queued. */
	ret = rec->record(c, args->stream, entries, *n);
	if (ret > 0)
		rec->doom(c, args->stream, -EBUSY);
	*count = ret > 0 ? ret : 0;
	/* Refused, nothing moved: the entries are released by the caller. */
	if (ret >= 0)
		*n = *count;
	ret = min(ret, 0);
	if (!ret && !*count)
		args->seqno = ls->enqueued;
	return ret;
}

/**
 * weave_submit_from() - Queue tasks on a stream: those of an ENQUEUE, a
 * shared ring's, or a recording's.
 * @c: The client.
 * @file: Its file.
 * @args: The checked ENQUEUE arguments; for a recording, the stream, the
 *	in-syncs and @nrecorded.
 * @kt: NULL, or the tasks, copied into kernel memory whole (bindings and
 *	uniforms included) by the caller: a shared ring's, at most
 *	%WEAVE_ENQUEUE_CACHE, with no in-syncs.
 * @recorded: A recording's entries to queue task by task (a doomed
 *	window's, refused), back to back, or NULL to copy the tasks from
 *	@args.  A replay queues a sealed graph whole instead (see "DOC: job
 *	templates").
 * @nrecorded: Number of @recorded.
 * @refuse: Zero, or the negative errno with which @recorded's tasks are
 *	queued refused: they do not run, and taint what they should have
 *	written.
 * @rec: NULL, or for an ENQUEUE of a stream that records its window
 *	(the caller decides), where its launches go instead of the queue
 *	(see "DOC: graph capture").
 * @room: For an ENQUEUE, where a full staging arena, or a pin step
 *	refused past a limit of resident bytes, is told; NULL for a
 *	recording, which stages nothing.
 *
 * See "DOC: enqueue".
 *
 * Context: The client's mutex held; for an ENQUEUE, inside drm_dev_enter()
 * with page faults disabled.
 * Return: 0 or a negative errno as documented on &struct drm_weave_enqueue;
 * -EFAULT also when user memory is not present, and -EAGAIN to wait for
 * room as @room says.  Nothing was queued unless it returns 0.
 */
int weave_submit_from(struct weave_client *c, struct drm_file *file,
		      struct drm_weave_enqueue *args,
		      const struct weave_ktask *kt,
		      const struct weave_entry *recorded, u32 nrecorded,
		      int refuse, const struct weave_recorder *rec,
		      struct weave_room *room)
{
	struct dma_fence **fences = c->in_fences;
	struct weave_stage st = {
		.stream = args->stream, .room = room, .kt = kt,
	};
	u32 n = 0, nf = 0, slot, count = args->tasks.count;
	struct weave_insync *in = NULL;
	struct weave_entry *entries;
	struct weave_lstream *ls;
	bool record = rec;
	int ret;

	entries = weave_enqueue_entries_buf(c, count);
	if (!entries)
		return -ENOMEM;
	ls = weave_enqueue_stream(c, args, count);
	ret = PTR_ERR_OR_ZERO(ls);
	st.slot = weave_core_slot(&c->core, args->stream);
	if (!ret && record && args->in_syncs.count)
		ret = -EINVAL;
	if (!ret && recorded)
		weave_recording_copy_entries(c, recorded, nrecorded, refuse,
					     entries, &n);
	else if (!ret)
		ret = weave_enqueue_copy_tasks(c, file, args, entries, &n,
					       &st);
	if (!ret && record)
		ret = weave_submit_record(c, args, rec, ls, entries, &n,
					  &count, fences, &nf, &slot);
	if (!ret && !recorded)
		weave_enqueue_refuse_writes(entries, count, record);
	if (!ret && count && !record) {
		ret = weave_entries_pin(c, entries, count, false);
		if (room)
			room->resident = ret == -EDQUOT || ret == -ENOMEM;
	}
	if (!ret && count)
		ret = weave_enqueue_in_fences(file, args, fences, &nf);
	if (!ret && nf) {
		in = weave_eng_insync_create(c->ectx, fences, nf);
		ret = in ? 0 : -ENOMEM;
	}
	if (!ret && count && !record)
		ret = weave_eng_ctx_fail_reserve(c->ectx, entries, count,
						 false);
	if (!ret && count)
		ret = weave_enqueue_reserve(c, args, entries, count, fences,
					    &nf, &slot);
	if (!ret && count) {
		/* Committed: it takes the entries, the fences and in-syncs. */
		ret = weave_enqueue_commit(c, args, ls, entries, count,
					   st.bytes, fences, nf, in, slot);
		n = 0;
		nf = 0;
		in = NULL;
	}

	weave_eng_insync_put(in);
	while (nf--)
		dma_fence_put(fences[nf]);
	weave_entries_release(c, entries, n);
	if (entries != c->entries_buf)
		kvfree(entries);
	return ret;
}
