// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: checking one task of an ENQUEUE or a shared ring straight into
 * the compact ring entry that its slot will hold.
 *
 * Copying its header, uniforms and grid, resolving its bindings' handles,
 * checking a launch's bindings against its kernel and staging a host
 * write's bytes, each written once into the entry.
 */

#include <linux/errno.h>
#include <linux/overflow.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>

#include "weave_client.h"
#include "weave_core.h"
#include "weave_drm.h"
#include "weave_engine.h"
#include "weave_prepare.h"
#include "weave_staging.h"
#include "weave_submit.h"
#include "weave_uarray.h"

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
			      const struct weave_entry *e)
{
	const struct weave_binding *b = weave_core_entry_bindings(e);
	u32 arg = 0;

	if (e->uniform_len >= 4)
		memcpy(&arg, weave_core_entry_uniforms(e), 4);

	switch (ut->kernel) {
	case DRM_WEAVE_KERNEL_NOOP:
		return e->num_bindings ? -EINVAL : 0;
	case DRM_WEAVE_KERNEL_FILL:
		if (e->num_bindings != 1 || e->uniform_len < 4 ||
		    !(b[0].access & WEAVE_ACCESS_WRITE) || b[0].size % 4)
			return -EINVAL;
		return 0;
	case DRM_WEAVE_KERNEL_COPY:
		if (e->num_bindings != 2 ||
		    !(b[0].access & WEAVE_ACCESS_READ) ||
		    !(b[1].access & WEAVE_ACCESS_WRITE) ||
		    b[0].size != b[1].size)
			return -EINVAL;
		return 0;
	case DRM_WEAVE_KERNEL_ADD_U32:
		if (e->num_bindings != 3 ||
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
		if (e->num_bindings != 2 ||
		    !(b[0].access & WEAVE_ACCESS_READ) ||
		    !(b[1].access & WEAVE_ACCESS_WRITE) || b[1].size != 4)
			return -EINVAL;
		return 0;
	case DRM_WEAVE_KERNEL_DELAY:
		if (e->num_bindings || e->uniform_len < 4 ||
		    arg > WEAVE_MAX_DELAY_US)
			return -EINVAL;
		return 0;
	case DRM_WEAVE_KERNEL_FAIL:
		if (e->uniform_len < 4 || !arg || arg > MAX_ERRNO)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

/*
 * Copy step of a task: check the user task @ut's header and write its
 * entry's head, grid and uniforms at @e, which holds nothing yet; the
 * uniforms from @kt if it is not NULL (@ut is then &kt->task), else from
 * user memory.  The head counts every binding @ut has, none resolved yet.
 */
static int weave_task_copy(const struct drm_weave_task *ut,
			   const struct weave_ktask *kt, struct weave_entry *e)
{
	struct weave_grid grid;
	void *uniforms;

	if (ut->bindings.count > WEAVE_MAX_BINDINGS ||
	    !weave_uarray_valid(&ut->bindings,
				sizeof(struct drm_weave_binding)) ||
	    ut->uniforms_size > WEAVE_MAX_UNIFORM_BYTES || ut->pad)
		return -EINVAL;
	*e = (struct weave_entry) {
		.label = ut->label,
		.num_bindings = ut->bindings.count,
	};
	switch (ut->type) {
	case DRM_WEAVE_TASK_LAUNCH:
		if (ut->data)
			return -EINVAL;
		grid = (struct weave_grid) {
			ut->grid[0] ?: 1, ut->grid[1] ?: 1, ut->grid[2] ?: 1,
		};
		e->kind = WEAVE_TASK_LAUNCH;
		/* Past 255, weave_launch_check() refuses ut->kernel. */
		e->kernel_id = (u8)ut->kernel;
		e->uniform_len = ut->uniforms_size;
		if (grid.x != 1 || grid.y != 1 || grid.z != 1) {
			e->flags = WEAVE_ENTRY_GRID;
			memcpy(e + 1, &grid, sizeof(grid));
		}
		uniforms = (u8 *)e + weave_core_entry_uniforms_off(e);
		if (kt)
			memcpy(uniforms, kt->uniforms, ut->uniforms_size);
		else if (ut->uniforms_size &&
			 copy_from_user(uniforms, u64_to_user_ptr(ut->uniforms),
					ut->uniforms_size))
			return -EFAULT;
		return 0;
	case DRM_WEAVE_TASK_HOST_WRITE:
		if (ut->kernel || ut->uniforms_size || !ut->data ||
		    ut->bindings.count != 1)
			return -EINVAL;
		e->kind = WEAVE_TASK_HOST_WRITE;
		*weave_entry_write_of(e) = (struct weave_entry_write) { };
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
 * if it is not NULL) into its place in @e.  *@nb counts those resolved,
 * which hold their tracks, on error too.
 */
static int weave_task_bind(struct weave_client *c, struct drm_file *file,
			   const struct drm_weave_task *ut,
			   const struct weave_ktask *kt, struct weave_entry *e,
			   u32 *nb)
{
	struct weave_binding *b;
	struct drm_weave_binding ub;
	int ret;

	b = weave_core_entry_part(e, weave_core_entry_bindings_off(e));
	for (*nb = 0; *nb < ut->bindings.count; (*nb)++) {
		ret = kt ? 0 : weave_uarray_elem(&ub, sizeof(ub),
						 &ut->bindings, *nb);
		if (ret)
			return ret;
		ret = weave_binding_resolve(c, file,
					    kt ? &kt->bindings[*nb] : &ub,
					    &b[*nb]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Stage step of a host write: room for its bytes (see "DOC: staging"),
 * then a copy from @ut->data into the staging @e's entry then owns.
 * Under pressure, after executing the slot, -EAGAIN to wait for room with
 * no lock held, or -EBUSY if that wait timed out.
 */
static int weave_task_stage(struct weave_client *c,
			    const struct drm_weave_task *ut,
			    struct weave_entry *e, struct weave_stage *st)
{
	const struct weave_limits *lim = &c->wdev->limits;
	const struct weave_binding *b = weave_core_entry_bindings(e);
	struct weave_entry_write *w = weave_entry_write_of(e);
	u64 cost, len = b[0].size;
	bool arena;
	void *p;

	if (!(b[0].access & WEAVE_ACCESS_WRITE))
		return -EINVAL;
	if (len > lim->max_staged_bytes)
		return -E2BIG;
	if (atomic64_read(&c->ectx->staged_bytes) + st->bytes + len >
	    lim->max_staged_bytes)
		return -EBUSY;
	cost = weave_core_arena_cost(len);
	arena = st->arena + cost <= lim->slot_staging_bytes / 2;
	p = weave_eng_staging_get(c->ectx, st->slot, len, arena);
	if (!p) {
		/* Its work under way, the slot's slices come back. */
		weave_core_flush(&c->core, st->stream);
		st->room->full = !st->room->last;
		st->room->slot = st->slot;
		return st->room->last ? -EBUSY : -EAGAIN;
	}
	if (IS_ERR(p))
		return PTR_ERR(p);
	w->data = p;
	w->len = len;
	if (arena)
		st->arena += cost;
	if (copy_from_user(p, u64_to_user_ptr(ut->data), len))
		return -EFAULT;
	st->bytes += len;
	return 0;
}

/**
 * weave_task_prepare() - Check and resolve a user task straight into its
 * ring entry.
 * @c: The client.
 * @file: Its file.
 * @ut: The task, already copied in.
 * @kt: NULL, or the kernel copy of the task whole, where its bindings and
 *	uniforms come from (@ut is then &kt->task).
 * @e: Where the entry goes, with room for %WEAVE_ENTRY_MAX_SIZE bytes.
 * @st: What this call staged so far.
 *
 * See "DOC: enqueue".
 *
 * Context: As weave_submit_from().
 * Return: 0, with the entry complete but for what the core and the commit
 * set, holding its buffers' tracking records and its staging; or a
 * negative errno as documented on &struct drm_weave_enqueue, with @e
 * holding nothing.
 */
int weave_task_prepare(struct weave_client *c, struct drm_file *file,
		       const struct drm_weave_task *ut,
		       const struct weave_ktask *kt,
		       struct weave_entry *e, struct weave_stage *st)
{
	u32 nb = 0;
	int ret;

	ret = weave_task_copy(ut, kt, e);
	if (ret)
		return ret;
	ret = weave_task_bind(c, file, ut, kt, e, &nb);
	if (!ret && e->kind == WEAVE_TASK_LAUNCH)
		ret = weave_launch_check(ut, e);
	else if (!ret)
		ret = weave_task_stage(c, ut, e, st);
	if (ret)
		weave_entry_release(c, e, nb);
	return ret;
}
