// SPDX-License-Identifier: GPL-2.0
/*
 * weave: the fuzzer of what is weave's own in the core's syncobj ioctls:
 * the guard in front of them (kmod/weave_syncobj.c: absurd handle counts
 * fail with -ENOMEM or -EINVAL, without the core's allocation WARNING;
 * SYNCOBJ_TRANSFER with an unknown flag fails with -EINVAL and leaks no
 * reference), and syncobjs that carry weave's fences: the out-syncs of
 * FLUSH and the in-syncs of ENQUEUE, waited for, signalled, reset, queried,
 * transferred between timelines and passed through sync_files, while the
 * work runs and the files close.  The core's own checks of these ioctls
 * are IGT's (its syncobj_* tests); see "Core syncobj ioctls" in
 * Documentation/weave.rst.  See fuzz_run.h for how a run goes and what it
 * checks.
 */
#include "fuzz_run.h"

static const int errs_so_export[] = { EINVAL, ENOENT, EMFILE, ENOMEM, 0 };
static const int errs_so_import[] = { EINVAL, ENOENT, ENOMEM, ENOSPC, 0 };
static const int errs_so_wait[] = {
	EINVAL, ENOENT, EFAULT, ETIME, EINTR, ENOMEM, 0
};
static const int errs_so_array[] = { EINVAL, ENOENT, EFAULT, ENOMEM, 0 };
static const int errs_so_transfer[] = {
	EINVAL, ENOENT, ETIME, EINTR, ENOMEM, 0
};

/* What the guard makes of an absurd count: the core's own -ENOMEM. */
static const int fz_want_guarded[] = { ENOMEM, EINVAL, 0 };

/*
 * The ioctls that take a handle count, which weave's guard checks: where
 * their handles, count and points are in the argument (0: none), and
 * whether the kernel writes the points.
 */
struct fz_counted {
	uint16_t handles, count, points;
	bool out;
};

#define FZ_COUNTED(m, pts, out) { offsetof(union fz_arg, m.handles), \
	offsetof(union fz_arg, m.count_handles), (pts), (out) }

static const struct fz_counted fz_counted[OP_NR] = {
	[OP_SO_WAIT] = FZ_COUNTED(so_wait, 0, false),
	[OP_SO_TL_WAIT] = FZ_COUNTED(so_tl_wait,
				     offsetof(union fz_arg, so_tl_wait.points),
				     false),
	[OP_SO_RESET] = FZ_COUNTED(so_array, 0, false),
	[OP_SO_SIGNAL] = FZ_COUNTED(so_array, 0, false),
	[OP_SO_TL_SIGNAL] = FZ_COUNTED(so_tl_array,
				       offsetof(union fz_arg, so_tl_array.points),
				       false),
	[OP_SO_QUERY] = FZ_COUNTED(so_tl_array,
				   offsetof(union fz_arg, so_tl_array.points),
				   true),
};

/* A wait's deadline: as fz_deadline(), but never past 20 ms from now. */
static int64_t fz_so_deadline(struct fz_ctx *c)
{
	int64_t t = fz_deadline(c);

	return t > fz_now() + 20000000 ? fz_now() + 20000000 : t;
}

/*
 * A call of an ioctl of fz_counted: 1 to 4 of the thread's syncobjs (or
 * any handles), the points they have passed or, to signal, points that
 * go up.  Mutated: an absurd count, which the guard refuses whatever else
 * the call holds (only with WEAVE_FUZZ_CORE_GUARDS), or the argument's
 * place.
 */
static void gen_so_counted(struct fz_ctx *c)
{
	const struct fz_counted *d = &fz_counted[c->call.op];
	uint8_t *arg = (uint8_t *)&c->call.arg;
	uint32_t *count = (uint32_t *)(arg + d->count), h[4], i;
	uint64_t points[4];
	bool known = true;
	int k;

	*count = (uint32_t)fz_range(c, 1, 4);
	for (i = 0; i < *count; i++) {
		k = fz_pick_so(c);
		h[i] = k < 0 ? fz_any_handle(c) : c->so[k].handle;
		known &= k >= 0;
		if (c->call.op == OP_SO_TL_SIGNAL)
			points[i] = k < 0 ? fz_below(c, 4) :
				    (c->so[k].point += fz_range(c, 1, 2));
		else
			points[i] = k < 0 ? fz_below(c, 3) :
				    fz_below(c, c->so[k].point + 2);
	}
	*(uint64_t *)(arg + d->handles) = fz_put(c, h, *count * sizeof(h[0]),
						 fz_good_place(c), 0);
	if (d->points)
		*(uint64_t *)(arg + d->points) = d->out ?
			(uintptr_t)c->out + 8 * fz_below(c, FZ_OUT / 8 - 4) :
			fz_put(c, points, *count * sizeof(points[0]),
			       fz_good_place(c), 0);
	/* Waits may time out and fences come late: only the rest is strict. */
	c->call.strict = known && c->call.mode == FZ_VALID;
	switch (c->call.op) {
	case OP_SO_WAIT:
		c->call.arg.so_wait.flags = (uint32_t)fz_below(c, 4);
		c->call.arg.so_wait.timeout_nsec = fz_so_deadline(c);
		c->call.arg.so_wait.first_signaled = (uint32_t)fz_r(c);
		c->call.v[1] = c->call.arg.so_wait.flags;
		c->call.strict = false;
		break;
	case OP_SO_TL_WAIT:
		c->call.arg.so_tl_wait.flags = (uint32_t)fz_below(c, 8);
		c->call.arg.so_tl_wait.timeout_nsec = fz_so_deadline(c);
		c->call.strict = false;
		break;
	case OP_SO_QUERY:
		c->call.arg.so_tl_array.flags = fz_below(c, 2) ?
			DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED : 0;
		break;
	default:
		break;
	}
	c->call.v[0] = *count;
	while (fz_mutate(c)) {
		if (fz.core_guards && fz_below(c, 2)) {
			*count = 0x8000000u | (uint32_t)fz_r(c);
			fz_mut(c, "absurd count (core guard)", true);
			c->call.want = fz_want_guarded;
		} else {
			fz_mut_arg(c, true);
		}
	}
	fz_detail(c, "count %u", *count);
}

static void check_so_wait(struct fz_ctx *c, int ret)
{
	struct drm_syncobj_wait *a = &c->call.arg.so_wait;

	if (ret || c->call.argplace != FZ_PLACE_RW || !c->call.v[0])
		return;
	if (!(c->call.v[1] & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL) &&
	    a->first_signaled >= c->call.v[0])
		fz_fail(c, "SYNCOBJ_WAIT on %llu returned first_signaled %u",
			(unsigned long long)c->call.v[0], a->first_signaled);
}

/*
 * A TRANSFER between the thread's syncobjs, which moves weave's fences
 * into timelines.  Mutated (with WEAVE_FUZZ_CORE_GUARDS): an unknown
 * flag, which the guard refuses with -EINVAL once both syncobjs are
 * found (a bad handle may fail it first on a shared file).
 */
static void gen_so_transfer(struct fz_ctx *c)
{
	struct drm_syncobj_transfer *a = &c->call.arg.so_transfer;
	int d;

	a->src_handle = fz_so_handle(c);
	d = fz_pick_so(c);
	a->dst_handle = d < 0 ? fz_any_handle(c) : c->so[d].handle;
	a->src_point = fz_below(c, 2) ? 0 : fz_below(c, 6);
	if (d >= 0 && fz_below(c, 2))
		a->dst_point = (c->so[d].point += fz_range(c, 1, 2));
	/* WAIT_FOR_SUBMIT sleeps up to 5 s; the timer cuts it short. */
	a->flags = fz_one_in(c, 16) ? DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT : 0;
	while (fz_mutate(c)) {
		if (!fz.core_guards || fz_below(c, 3)) {
			fz_mut_arg(c, true);
			continue;
		}
		a->flags |= 1u << fz_range(c, 0, 31);
		a->flags &= ~DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
		a->flags = a->flags ?: 4;
		fz_mut(c, "unknown flag (core guard)", true);
		if (!c->shared && fz_find_so(c, a->src_handle) >= 0 &&
		    fz_find_so(c, a->dst_handle) >= 0)
			c->call.want = fz_want_einval;
	}
	fz_detail(c, "src %u@%llu dst %u@%llu flags %#x", a->src_handle,
		  (unsigned long long)a->src_point, a->dst_handle,
		  (unsigned long long)a->dst_point, a->flags);
}

/* A syncobj's fence, a weave fence or none, as a sync_file (or not). */
static void gen_so_export(struct fz_ctx *c)
{
	struct drm_syncobj_handle *a = &c->call.arg.so_handle;

	a->handle = fz_so_handle(c);
	a->flags = fz_below(c, 2) ?
		   DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE : 0;
	a->fd = (int)fz_r(c);
	c->call.strict = c->call.mode == FZ_VALID && !a->flags &&
			 fz_known_so(c, a->handle);
	/* Not read-only: the descriptor would leak unseen. */
	while (fz_mutate(c))
		fz_mut_arg(c, false);
	c->call.v[0] = a->flags;
	fz_detail(c, "handle %u flags %#x", a->handle, a->flags);
}

static void check_so_export(struct fz_ctx *c, int ret)
{
	struct drm_syncobj_handle *a = &c->call.arg.so_handle;

	if (ret || c->call.argplace != FZ_PLACE_RW)
		return;
	if (a->fd < 0) {
		fz_fail(c, "SYNCOBJ_HANDLE_TO_FD returned fd %d", a->fd);
		return;
	}
	fz_add_fd(c, a->fd, c->call.v[0] ? FZ_FD_SYNC_FILE : FZ_FD_SYNCOBJ);
}

/* A sync_file into one of the thread's syncobjs, or a syncobj file. */
static void gen_so_import(struct fz_ctx *c)
{
	struct drm_syncobj_handle *a = &c->call.arg.so_handle;
	int fd;

	if (fz_below(c, 2)) {
		fd = fz_pick_fd(c, FZ_FD_SYNC_FILE);
		a->flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE;
		a->handle = fz_so_handle(c);
		c->call.strict = fd >= 0 && fz_known_so(c, a->handle);
	} else {
		fd = fz_pick_fd(c, FZ_FD_SYNCOBJ);
		a->handle = (uint32_t)fz_r(c);
		c->call.strict = fd >= 0;
	}
	a->fd = fd;
	c->call.strict &= c->call.mode == FZ_VALID;
	while (fz_mutate(c))
		fz_mut_arg(c, true);
	c->call.v[0] = a->flags;
	fz_detail(c, "fd %d handle %u flags %#x", a->fd, a->handle, a->flags);
}

static void check_so_import(struct fz_ctx *c, int ret)
{
	struct drm_syncobj_handle *a = &c->call.arg.so_handle;

	if (ret || c->call.argplace != FZ_PLACE_RW || c->call.v[0])
		return;
	if (!a->handle) {
		fz_fail(c, "SYNCOBJ_FD_TO_HANDLE returned handle 0");
		return;
	}
	if (fz_find_so(c, a->handle) >= 0)
		return;
	if (c->nso == FZ_SYNCOBJS) {
		fz_destroy_so(c, a->handle);
		return;
	}
	c->so[c->nso++] = (struct fz_syncobj){ .handle = a->handle };
}

/* FLUSH gives the syncobjs weave's fences; ENQUEUE waits for them. */
static const struct fz_opdesc fz_ops[OP_NR] = {
	FZ_OBJECT_OPS,
	FZ_WORK_OPS(150, 120, 20),
	[OP_SO_EXPORT] = { "SYNCOBJ_HANDLE_TO_FD",
			   DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, errs_so_export, 30,
			   gen_so_export, check_so_export },
	[OP_SO_IMPORT] = { "SYNCOBJ_FD_TO_HANDLE",
			   DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, errs_so_import, 30,
			   gen_so_import, check_so_import },
	[OP_SO_WAIT] = { "SYNCOBJ_WAIT", DRM_IOCTL_SYNCOBJ_WAIT, errs_so_wait,
			 40, gen_so_counted, check_so_wait },
	[OP_SO_TL_WAIT] = { "SYNCOBJ_TIMELINE_WAIT",
			    DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, errs_so_wait, 30,
			    gen_so_counted, NULL },
	[OP_SO_RESET] = { "SYNCOBJ_RESET", DRM_IOCTL_SYNCOBJ_RESET,
			  errs_so_array, 20, gen_so_counted, NULL },
	[OP_SO_SIGNAL] = { "SYNCOBJ_SIGNAL", DRM_IOCTL_SYNCOBJ_SIGNAL,
			   errs_so_array, 20, gen_so_counted, NULL },
	[OP_SO_TL_SIGNAL] = { "SYNCOBJ_TIMELINE_SIGNAL",
			      DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, errs_so_array,
			      20, gen_so_counted, NULL },
	[OP_SO_QUERY] = { "SYNCOBJ_QUERY", DRM_IOCTL_SYNCOBJ_QUERY,
			  errs_so_array, 30, gen_so_counted, NULL },
	[OP_SO_TRANSFER] = { "SYNCOBJ_TRANSFER", DRM_IOCTL_SYNCOBJ_TRANSFER,
			     errs_so_transfer, 30, gen_so_transfer, NULL },
};

FZ_TESTS(NULL)
