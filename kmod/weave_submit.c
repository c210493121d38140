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
 * Whether @a and @b are ranges of one buffer that overlap without being
 * the same range.
 */
static bool weave_bindings_cross(const struct weave_binding *a,
				 const struct weave_binding *b)
{
	if (a->bo != b->bo)
		return false;
	if (a->offset == b->offset && a->size == b->size)
		return false;
	return a->offset < b->offset + b->size &&
	       b->offset < a->offset + a->size;
}

/* The access each binding of a launch must include, by kernel. */
static int weave_launch_check(const struct drm_weave_task *ut,
			      const struct weave_task *t)
{
	const struct weave_binding *b = t->bindings;
	u32 arg = 0;

	if (t->uniform_len >= 4)
		memcpy(&arg, t->uniforms, 4);

	switch (ut->kernel) {
	case DRM_WEAVE_KERNEL_NOOP:
		return t->num_bindings ? -EINVAL : 0;
	case DRM_WEAVE_KERNEL_FILL:
		if (t->num_bindings != 1 || t->uniform_len < 4 ||
		    !(b[0].access & WEAVE_ACCESS_WRITE) || b[0].size % 4)
			return -EINVAL;
		return 0;
	case DRM_WEAVE_KERNEL_COPY:
		if (t->num_bindings != 2 ||
		    !(b[0].access & WEAVE_ACCESS_READ) ||
		    !(b[1].access & WEAVE_ACCESS_WRITE) ||
		    b[0].size != b[1].size)
			return -EINVAL;
		return 0;
	case DRM_WEAVE_KERNEL_ADD_U32:
		if (t->num_bindings != 3 ||
		    !(b[0].access & WEAVE_ACCESS_READ) ||
		    !(b[1].access & WEAVE_ACCESS_READ) ||
		    !(b[2].access & WEAVE_ACCESS_WRITE) ||
		    b[0].size != b[2].size || b[1].size != b[2].size ||
		    b[2].size % 4)
			return -EINVAL;
		/* In place, or apart: see &enum drm_weave_kernel. */
		if (weave_bindings_cross(&b[2], &b[0]) ||
		    weave_bindings_cross(&b[2], &b[1]))
			return -EINVAL;
		return 0;
	case DRM_WEAVE_KERNEL_CRC32C:
		if (t->num_bindings != 2 ||
		    !(b[0].access & WEAVE_ACCESS_READ) ||
		    !(b[1].access & WEAVE_ACCESS_WRITE) || b[1].size != 4)
			return -EINVAL;
		return 0;
	case DRM_WEAVE_KERNEL_DELAY:
		if (t->num_bindings || t->uniform_len < 4 ||
		    arg > WEAVE_MAX_DELAY_US)
			return -EINVAL;
		return 0;
	case DRM_WEAVE_KERNEL_FAIL:
		if (t->uniform_len < 4 || !arg || arg > MAX_ERRNO)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

/*
 * Copy step of a task: check the user task @ut's header and copy its
 * uniforms into @t, which holds nothing yet: from @kt if it is not NULL
 * (@ut is then &kt->task), else from user memory.
 */
static int weave_task_copy(const struct drm_weave_task *ut,
			   const struct weave_ktask *kt, struct weave_task *t)
{
	t->num_bindings = 0;
	t->uniform_len = 0;
	t->data = NULL;
	t->len = 0;
	t->label = ut->label;
	t->refuse = 0;
	if (ut->bindings.count > WEAVE_MAX_BINDINGS ||
	    !weave_uarray_valid(&ut->bindings,
				sizeof(struct drm_weave_binding)) ||
	    ut->uniforms_size > WEAVE_MAX_UNIFORM_BYTES || ut->pad)
		return -EINVAL;
	switch (ut->type) {
	case DRM_WEAVE_TASK_LAUNCH:
		if (ut->data)
			return -EINVAL;
		t->kind = WEAVE_TASK_LAUNCH;
		t->kernel_id = ut->kernel;
		t->grid.x = ut->grid[0] ?: 1;
		t->grid.y = ut->grid[1] ?: 1;
		t->grid.z = ut->grid[2] ?: 1;
		t->uniform_len = ut->uniforms_size;
		if (kt)
			memcpy(t->uniforms, kt->uniforms, ut->uniforms_size);
		else if (ut->uniforms_size &&
			 copy_from_user(t->uniforms,
					u64_to_user_ptr(ut->uniforms),
					ut->uniforms_size))
			return -EFAULT;
		return 0;
	case DRM_WEAVE_TASK_HOST_WRITE:
		if (ut->kernel || ut->uniforms_size || !ut->data ||
		    ut->bindings.count != 1)
			return -EINVAL;
		t->kind = WEAVE_TASK_HOST_WRITE;
		t->kernel_id = 0;
		t->grid = (struct weave_grid) { 1, 1, 1 };
		return 0;
	}
	return -EINVAL;
}

/* Resolve the user binding @ub into @b, taking the buffer's track. */
static int weave_binding_resolve(struct weave_client *c,
				 struct drm_file *file,
				 const struct drm_weave_binding *ub,
				 struct weave_binding *b)
{
	struct drm_gem_object *obj;
	struct weave_btrack *bt;
	u64 end;

	if (!ub->access || ub->access & ~(DRM_WEAVE_ACCESS_READ |
					  DRM_WEAVE_ACCESS_WRITE) ||
	    !ub->size)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, ub->handle);
	if (!obj)
		return -ENOENT;
	if (obj->import_attach ||
	    check_add_overflow(ub->offset, ub->size, &end) ||
	    end > obj->size) {
		drm_gem_object_put(obj);
		return -EINVAL;
	}
	bt = weave_btrack_get(c, obj);
	drm_gem_object_put(obj);	/* the track holds one */
	if (IS_ERR(bt))
		return PTR_ERR(bt);
	*b = (struct weave_binding) {
		.bo = bt->obj,
		.track = &bt->track,
		.offset = ub->offset,
		.size = ub->size,
		.access = (ub->access & DRM_WEAVE_ACCESS_READ ?
			   WEAVE_ACCESS_READ : 0) |
			  (ub->access & DRM_WEAVE_ACCESS_WRITE ?
			   WEAVE_ACCESS_WRITE : 0),
	};
	return 0;
}

/*
 * Resolve step of a task: copy and resolve each binding of @ut (from @kt,
 * if it is not NULL) into @t.  On error @t keeps the bindings resolved so
 * far.
 */
static int weave_task_bind(struct weave_client *c, struct drm_file *file,
			   const struct drm_weave_task *ut,
			   const struct weave_ktask *kt, struct weave_task *t)
{
	struct drm_weave_binding ub;
	u32 j;
	int ret;

	for (j = 0; j < ut->bindings.count; j++) {
		ret = kt ? 0 : weave_uarray_elem(&ub, sizeof(ub),
						 &ut->bindings, j);
		if (ret)
			return ret;
		ret = weave_binding_resolve(c, file, kt ? &kt->bindings[j] : &ub,
					    &t->bindings[j]);
		if (ret)
			return ret;
		t->num_bindings = j + 1;
	}
	return 0;
}

/* What one ENQUEUE staged so far. */
struct weave_stage {
	u32 stream;	/* its stream */
	u32 slot;	/* the stream's slot */
	u64 bytes;	/* host-write bytes, which max_staged_bytes counts */
	u64 arena;	/* of the slot's arena, at weave_core_arena_cost() */
	struct weave_room *room;	/* where a full arena is told */
	const struct weave_ktask *kt;	/* kernel copies of the tasks, or NULL */
};

/*
 * Stage step of a host write: room for its bytes (see "DOC: staging"),
 * then a copy from @ut->data.  Under pressure, after executing the slot,
 * -EAGAIN to wait for room with no lock held, or -EBUSY if that wait
 * timed out.
 */
static int weave_task_stage(struct weave_client *c,
			    const struct drm_weave_task *ut,
			    struct weave_task *t, struct weave_stage *st)
{
	const struct weave_limits *lim = &c->wdev->limits;
	u64 cost;
	bool arena;
	void *p;

	t->len = t->bindings[0].size;
	if (!(t->bindings[0].access & WEAVE_ACCESS_WRITE))
		return -EINVAL;
	if (t->len > lim->max_staged_bytes)
		return -E2BIG;
	if (atomic64_read(&c->ectx->staged_bytes) + st->bytes + t->len >
	    lim->max_staged_bytes)
		return -EBUSY;
	cost = weave_core_arena_cost(t->len);
	arena = st->arena + cost <= lim->slot_staging_bytes / 2;
	p = weave_eng_staging_get(c->ectx, st->slot, t->len, arena);
	if (!p) {
		/* Its work under way, the slot's slices come back. */
		weave_core_flush(&c->core, st->stream);
		st->room->full = !st->room->last;
		st->room->slot = st->slot;
		return st->room->last ? -EBUSY : -EAGAIN;
	}
	if (IS_ERR(p))
		return PTR_ERR(p);
	t->data = p;
	if (arena)
		st->arena += cost;
	if (copy_from_user(t->data, u64_to_user_ptr(ut->data), t->len))
		return -EFAULT;
	st->bytes += t->len;
	return 0;
}

/*
 * Check and resolve the user task @ut, already copied in, into @t; its
 * bindings and uniforms come from @kt if it is not NULL.  @st says what
 * this call staged so far.  On error @t holds nothing.
 */
static int weave_task_prepare(struct weave_client *c, struct drm_file *file,
			      const struct drm_weave_task *ut,
			      const struct weave_ktask *kt,
			      struct weave_task *t, struct weave_stage *st)
{
	int ret;

	ret = weave_task_copy(ut, kt, t);
	if (ret)
		return ret;
	ret = weave_task_bind(c, file, ut, kt, t);
	if (!ret && t->kind == WEAVE_TASK_LAUNCH)
		ret = weave_launch_check(ut, t);
	else if (!ret)
		ret = weave_task_stage(c, ut, t, st);
	if (ret)
		weave_task_release(c, t);
	return ret;
}

/* Room for @count tasks: the client's cached array if it is big enough. */
static struct weave_task *weave_enqueue_tasks_buf(struct weave_client *c,
						  u32 count)
{
	struct weave_task *tasks;

	/* Not zeroed: weave_task_prepare() sets every field it reads. */
	if (count <= c->tasks_cap)
		return c->tasks_buf;
	tasks = kvmalloc_array(count, sizeof(*tasks), GFP_KERNEL_ACCOUNT);
	if (tasks && count <= WEAVE_ENQUEUE_CACHE) {
		kvfree(c->tasks_buf);
		c->tasks_buf = tasks;
		c->tasks_cap = count;
	}
	return tasks;
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
 * @st->kt holds), and prepare each into @tasks.  *@n counts the tasks
 * prepared, which hold resources.
 */
static int weave_enqueue_copy_tasks(struct weave_client *c,
				    struct drm_file *file,
				    const struct drm_weave_enqueue *args,
				    struct weave_task *tasks, u32 *n,
				    struct weave_stage *st)
{
	struct drm_weave_task *chunk = c->task_chunk;
	u32 count = args->tasks.count;
	u32 k, got = 0;
	int cret = 0;
	int ret;

	if (st->kt) {
		/* *@n stays the count prepared: the caller records them. */
		for (*n = 0; *n < count; (*n)++) {
			ret = weave_task_prepare(c, file, &st->kt[*n].task,
						 &st->kt[*n], &tasks[*n], st);
			if (ret)
				return ret;
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
		ret = weave_task_prepare(c, file, &chunk[k], NULL, &tasks[*n],
					 st);
		if (ret)
			return ret;
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

/* Whether any of the @n prepared @tasks is not a launch. */
static bool weave_tasks_queue_any(const struct weave_task *tasks, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (tasks[i].kind != WEAVE_TASK_LAUNCH)
			return true;
	}
	return false;
}

/*
 * Reserve step, the last that can fail: the engine's reserve job, the
 * stream's slot, into *@slot, with ring room for the @n @tasks, and the
 * gates of the *@nf in-fences.  Sets *@nf to zero if it put them.
 */
static int weave_enqueue_reserve(struct weave_client *c,
				 struct drm_weave_enqueue *args,
				 const struct weave_task *tasks, u32 n,
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
	ret = weave_core_reserve(&c->core, args->stream, tasks, n);
	if (ret)
		return ret;
	ret = weave_eng_ctx_gates_prepare(c->ectx, *slot, fences, nf);
	if (ret)
		*nf = 0;	/* it put the fences */
	return ret;
}

/*
 * Commit step: link the @nf gates and the in-syncs @in (if any, which it
 * takes) to @slot and register the @count tasks with the core, which takes
 * them.  Cannot fail but for a bug.
 */
static int weave_enqueue_commit(struct weave_client *c,
				struct drm_weave_enqueue *args,
				struct weave_lstream *ls,
				struct weave_task *tasks, u32 count, u64 staged,
				struct dma_fence **fences, u32 nf,
				struct weave_insync *in, u32 slot)
{
	u64 first = weave_core_next_seqno(&c->core);
	u32 i;
	int ret;

	weave_eng_ctx_gates_commit(c->ectx, slot, fences, nf);
	/* Before the tasks: registering them may encode some at once. */
	if (in)
		weave_eng_insync_commit(c->ectx, slot, in, first,
					first + count - 1);
	atomic64_add(count, &c->ectx->pending_tasks);
	atomic64_add(staged, &c->ectx->staged_bytes);
	for (i = 0; i < count; i++) {
		tasks[i].stream_seqno = ls->enqueued + 1;
		ret = weave_core_register(&c->core, args->stream, &tasks[i]);
		if (WARN_ON_ONCE(ret)) {
			/* Checked and reserved: the core accepts every task. */
			atomic64_sub(count - i, &c->ectx->pending_tasks);
			for (; i < count; i++) {
				if (tasks[i].data)
					atomic64_sub(tasks[i].len,
						     &c->ectx->staged_bytes);
				weave_task_release(c, &tasks[i]);
			}
			return ret;
		}
		ls->enqueued++;
		tasks[i].data = NULL;	/* the core's now */
		weave_task_release(c, &tasks[i]);
	}
	c->enqueued = true;
	args->seqno = ls->enqueued;
	return 0;
}

/*
 * Copy step of a recording's tasks: the @nrecorded of @recorded, each holding its buffers,
 * and refused with @refuse if it is not zero.
 */
static void weave_recording_copy_tasks(struct weave_client *c,
				       const struct weave_task *recorded,
				       u32 nrecorded, int refuse,
				       struct weave_task *tasks, u32 *n)
{
	for (*n = 0; *n < nrecorded; (*n)++) {
		tasks[*n] = recorded[*n];
		tasks[*n].refuse = refuse;
		weave_task_hold(c, &tasks[*n]);
	}
}

/*
 * Pin step: the buffers of the @n tasks about to be queued (not the
 * launches a recording takes, if @queued_only), where their tracking
 * records do not hold a pin yet (see "DOC: buffer objects").  On error the
 * pins taken stay with their records, which let go of them when the tasks
 * are released.
 */
static int weave_tasks_pin(struct weave_task *tasks, u32 n, bool queued_only)
{
	struct weave_btrack *bt;
	u32 i, j;
	int ret;

	for (i = 0; i < n; i++) {
		if (queued_only && tasks[i].kind == WEAVE_TASK_LAUNCH)
			continue;
		for (j = 0; j < tasks[i].num_bindings; j++) {
			bt = container_of(tasks[i].bindings[j].track,
					  struct weave_btrack, track);
			ret = weave_btrack_pin(bt);
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
static void weave_enqueue_refuse_writes(struct weave_task *tasks, u32 n,
					bool all)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (tasks[i].kind == WEAVE_TASK_HOST_WRITE &&
		    (all || container_of(tasks[i].bindings[0].track,
					 struct weave_btrack,
					 track)->recorded))
			tasks[i].refuse = -EBUSY;
}

/*
 * Record step of an ENQUEUE of a stream that records its window: its
 * launches move to the recording through @rec, the rest of its @n tasks
 * stay in @tasks, to be queued: *@n and *@count become their number.
 * What they leave is queued after, where nothing may fail: so first
 * reserve (*@slot, with the in-fences in @fences and *@nf), pin and set
 * aside for it before the launches move, and a call that fails records
 * nothing.
 */
static int weave_submit_record(struct weave_client *c,
			       struct drm_weave_enqueue *args,
			       const struct weave_recorder *rec,
			       struct weave_lstream *ls,
			       struct weave_task *tasks, u32 *n, u32 *count,
			       struct dma_fence **fences, u32 *nf, u32 *slot)
{
	int ret = 0;

	if (weave_tasks_queue_any(tasks, *n)) {
		ret = weave_enqueue_reserve(c, args, tasks, *n, fences, nf,
					    slot);
		if (!ret)
			ret = weave_tasks_pin(tasks, *n, true);
		if (!ret)
			ret = weave_eng_ctx_fail_reserve(c->ectx, tasks, *n,
							 true);
		if (ret)
			return ret;
	}
	/* The launches go to the recording, the rest is queued. */
	ret = rec->record(c, args->stream, tasks, *n);
	if (ret > 0)
		rec->doom(c, args->stream, -EBUSY);
	*count = ret > 0 ? ret : 0;
	/* Refused, nothing moved: the tasks are released by the caller. */
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
 * @recorded: A recording's tasks to queue task by task (a doomed
 *	window's, refused), or NULL to copy the tasks from @args.  A replay
 *	queues a sealed graph whole instead (see "DOC: job templates").
 * @nrecorded: Entries of @recorded.
 * @refuse: Zero, or the negative errno with which @recorded's tasks are
 *	queued refused: they do not run, and taint what they should have
 *	written.
 * @rec: NULL, or for an ENQUEUE of a stream that records its window
 *	(the caller decides), where its launches go instead of the queue
 *	(see "DOC: graph capture").
 * @room: For an ENQUEUE, where a full staging arena is told; NULL for a
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
		      const struct weave_task *recorded, u32 nrecorded,
		      int refuse, const struct weave_recorder *rec,
		      struct weave_room *room)
{
	struct dma_fence **fences = c->in_fences;
	struct weave_stage st = {
		.stream = args->stream, .room = room, .kt = kt,
	};
	u32 n = 0, nf = 0, slot, count = args->tasks.count;
	struct weave_insync *in = NULL;
	struct weave_lstream *ls;
	struct weave_task *tasks;
	bool record = rec;
	int ret;

	tasks = weave_enqueue_tasks_buf(c, count);
	if (!tasks)
		return -ENOMEM;
	ls = weave_enqueue_stream(c, args, count);
	ret = PTR_ERR_OR_ZERO(ls);
	st.slot = weave_core_slot(&c->core, args->stream);
	if (!ret && record && args->in_syncs.count)
		ret = -EINVAL;
	if (!ret && recorded)
		weave_recording_copy_tasks(c, recorded, nrecorded, refuse,
					   tasks, &n);
	else if (!ret)
		ret = weave_enqueue_copy_tasks(c, file, args, tasks, &n, &st);
	if (!ret && record)
		ret = weave_submit_record(c, args, rec, ls, tasks, &n, &count,
					  fences, &nf, &slot);
	if (!ret && !recorded)
		weave_enqueue_refuse_writes(tasks, count, record);
	if (!ret && count && !record)
		ret = weave_tasks_pin(tasks, count, false);
	if (!ret && count)
		ret = weave_enqueue_in_fences(file, args, fences, &nf);
	if (!ret && nf) {
		in = weave_eng_insync_create(c->ectx, fences, nf);
		ret = in ? 0 : -ENOMEM;
	}
	if (!ret && count && !record)
		ret = weave_eng_ctx_fail_reserve(c->ectx, tasks, count, false);
	if (!ret && count)
		ret = weave_enqueue_reserve(c, args, tasks, count, fences,
					    &nf, &slot);
	if (!ret && count) {
		/* Committed: it takes the tasks, the fences and in-syncs. */
		ret = weave_enqueue_commit(c, args, ls, tasks, count, st.bytes,
					   fences, nf, in, slot);
		n = 0;
		nf = 0;
		in = NULL;
	}

	weave_eng_insync_put(in);
	while (nf--)
		dma_fence_put(fences[nf]);
	while (n--)
		weave_task_release(c, &tasks[n]);
	if (tasks != c->tasks_buf)
		kvfree(tasks);
	return ret;
}
