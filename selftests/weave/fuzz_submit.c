// SPDX-License-Identifier: GPL-2.0
/*
 * weave: the fuzzer of submission: ENQUEUE with every part of its tasks,
 * bindings, uniforms, host-write data and in-syncs made invalid in turn,
 * FLUSH with out-syncs, and WAIT with deadlines past, near and far, now
 * and then behind a task that hangs until the job timeout.  The seqno an
 * ENQUEUE returns must count the stream's tasks.  See fuzz_run.h for how a
 * run goes and what it checks.
 */
#include "fuzz_run.h"

/*
 * Rebuilds @t until it is a valid host write (@host_write) or a valid
 * FILL, COPY, ADD or CRC32C; false if the thread has no buffer for one.
 */
static bool fz_remake(struct fz_ctx *c, struct fz_task *t, bool host_write)
{
	int tries;

	if (!c->nbo)
		return false;
	for (tries = 0; tries < 64; tries++) {
		if (host_write ? t->t.type == DRM_WEAVE_TASK_HOST_WRITE :
		    t->t.type == DRM_WEAVE_TASK_LAUNCH &&
		    t->t.kernel >= DRM_WEAVE_KERNEL_FILL &&
		    t->t.kernel <= DRM_WEAVE_KERNEL_CRC32C)
			return true;
		fz_build_task(c, t, false);
	}
	return false;
}

/* Breaks the counts and the array of the enqueue's tasks. */
static bool fz_mut_tasks(struct fz_ctx *c, struct fz_enq *e)
{
	switch (fz_below(c, 6)) {
	case 0:
		/* Valid with the flush flag and no in-syncs (uAPI 1.8). */
		e->a.tasks.count = 0;
		e->a.flags &= ~DRM_WEAVE_ENQUEUE_FLUSH;
		fz_mut(c, "tasks.count 0", true);
		return true;
	case 1:
		e->a.tasks.count = fz.info.max_tasks_per_enqueue +
				   (uint32_t)fz_range(c, 1, 0xffff);
		fz_mut(c, "tasks.count over max", true);
		return true;
	case 2:
	case 3:
		/* Short of the 1.2 task; the 1.2 task itself is fine. */
		FZ_MUT_STRIDE(c, "tasks", &e->tstride, FZ_TASK_1_2,
			      sizeof(struct drm_weave_task), &e->textra,
			      e->nt);
		return true;
	case 4:
		e->tplace = FZ_PLACE_BAD;
		fz_mut(c, "tasks.ptr unmapped", true);
		return true;
	default:
		e->tplace = FZ_PLACE_STRADDLE;
		fz_mut(c, "tasks run into PROT_NONE", true);
		return true;
	}
}

/* Breaks what makes @t a host write: it must be one already. */
static void fz_mut_host_write(struct fz_ctx *c, struct fz_task *t)
{
	switch (fz_below(c, 6)) {
	case 0:
		t->t.kernel = (uint32_t)fz_range(c, 1, 0xffffffff);
		fz_mut(c, "host write with kernel", true);
		break;
	case 1:
		fz_set_u32(t, 1, (uint32_t)fz_range(c, 1, 64));
		fz_mut(c, "host write with uniforms", true);
		break;
	case 2:
		t->t.data = 0;
		fz_mut(c, "host write without data", true);
		break;
	case 3:
		t->b[0].access = DRM_WEAVE_ACCESS_READ;
		fz_mut(c, "host write without WRITE", true);
		break;
	case 4:
		t->t.bindings.count = fz_one_in(c, 3) ? 0 :
			(uint32_t)fz_range(c, 2, fz.info.max_bindings);
		while (t->nb < t->t.bindings.count)
			t->b[t->nb] = t->b[0], t->nb++;
		fz_mut(c, "host write bindings.count not 1", true);
		break;
	default:
		if (fz_below(c, 2)) {
			t->t.data = fz_bad_ptr(c);
			fz_mut(c, "host write data unmapped", true);
			break;
		}
		/* The last bytes of the data lie in PROT_NONE. */
		t->t.data = (uintptr_t)c->data + FZ_DATA - t->b[0].size +
			    fz_range(c, 1, t->b[0].size);
		fz_mut(c, "host write data runs into PROT_NONE", true);
		break;
	}
}

/* A binding whose range ends past the end of its buffer, or of memory. */
static void fz_binding_past_end(struct fz_ctx *c, struct drm_weave_binding *b)
{
	int k = fz_find_bo(c, b->handle);

	if (k < 0 || !c->bo[k].exact || fz_below(c, 2)) {
		b->offset = ~0ull - fz_below(c, 8);
		b->size = fz_range(c, 9, 64);
		fz_mut(c, "binding offset overflows", true);
		return;
	}
	b->offset = c->bo[k].size - b->size + fz_range(c, 1, 4096);
	fz_mut(c, "binding past the end", true);
}

/* Breaks one binding of @t, or their array; @t must have one. */
static void fz_mut_binding(struct fz_ctx *c, struct fz_task *t)
{
	struct drm_weave_binding *b = &t->b[fz_below(c, t->nb)];

	switch (fz_below(c, 9)) {
	case 0:
	case 1:
		FZ_MUT_STRIDE(c, "bindings", &t->bstride, sizeof(*b),
			      sizeof(*b), &t->bextra, t->nb);
		break;
	case 2:
		t->bplace = fz_below(c, 2) ? FZ_PLACE_BAD : FZ_PLACE_STRADDLE;
		fz_mut(c, "bindings unreadable", true);
		break;
	case 3:
		b->access = fz_below(c, 2) ? 0 :
			    b->access | 4u << fz_below(c, 30);
		fz_mut(c, "access zero or unknown", true);
		break;
	case 4:
		b->size = 0;
		fz_mut(c, "binding size 0", true);
		break;
	case 5:
	case 6:
		fz_binding_past_end(c, b);
		break;
	case 7:
		b->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
		fz_mut(c, "binding bad handle", true);
		break;
	default:
		fz_mut_arg(c, true);
		break;
	}
}

/* Makes the bindings of @t wrong for its kernel; @t must be bound. */
static void fz_mut_kernel_bindings(struct fz_ctx *c, struct fz_task *t)
{
	bool size = fz_below(c, 2);

	switch (t->t.kernel) {
	case DRM_WEAVE_KERNEL_FILL:
		if (size && t->b[0].size > 4) {
			t->b[0].size -= fz_range(c, 1, 3);
			fz_mut(c, "FILL size not a multiple of 4", true);
		} else {
			t->b[0].access = DRM_WEAVE_ACCESS_READ;
			fz_mut(c, "FILL without WRITE", true);
		}
		break;
	case DRM_WEAVE_KERNEL_COPY:
		if (size && t->b[0].size > 1) {
			t->b[0].size -= 1;
			fz_mut(c, "COPY sizes differ", true);
		} else {
			t->b[1].access = DRM_WEAVE_ACCESS_READ;
			fz_mut(c, "COPY without WRITE", true);
		}
		break;
	case DRM_WEAVE_KERNEL_ADD_U32:
		if (size && t->b[1].size > 4) {
			t->b[1].size -= 4;
			fz_mut(c, "ADD sizes differ", true);
		} else {
			t->b[0].access = DRM_WEAVE_ACCESS_WRITE;
			fz_mut(c, "ADD without READ", true);
		}
		break;
	default:
		t->b[1].size = size ? fz_range(c, 1, 3) : 8;
		fz_mut(c, "CRC32C result not 4 bytes", true);
		break;
	}
}

/* Breaks the uniforms of @t, a launch; false if it could not. */
static bool fz_mut_uniforms(struct fz_ctx *c, struct fz_task *t)
{
	switch (fz_below(c, 5)) {
	case 0:
		t->t.uniforms_size = fz.info.max_uniform_bytes +
				     (uint32_t)fz_range(c, 1, 0xffff);
		t->uplace = FZ_PLACE_KEEP;
		t->t.uniforms = (uintptr_t)fz.zeros;
		fz_mut(c, "uniforms over max", true);
		return true;
	case 1:
		if (t->t.kernel != DRM_WEAVE_KERNEL_FILL &&
		    t->t.kernel != DRM_WEAVE_KERNEL_DELAY &&
		    t->t.kernel != DRM_WEAVE_KERNEL_FAIL)
			return false;
		t->t.uniforms_size = (uint32_t)fz_below(c, 4);
		fz_mut(c, "uniforms short", true);
		return true;
	case 2:
		if (!t->t.uniforms_size)
			return false;
		t->uplace = fz_below(c, 2) ? FZ_PLACE_BAD : FZ_PLACE_STRADDLE;
		fz_mut(c, "uniforms unreadable", true);
		return true;
	case 3:
		fz_build_task(c, t, true);
		t->t.kernel = DRM_WEAVE_KERNEL_DELAY;
		fz_set_u32(t, (uint32_t)fz_range(c, FZ_MAX_DELAY_US + 1,
						 0xffffffff), 4);
		fz_mut(c, "DELAY over 60 s", true);
		return true;
	default:
		fz_build_task(c, t, true);
		t->t.kernel = DRM_WEAVE_KERNEL_FAIL;
		fz_set_u32(t, fz_below(c, 2) ? 0 :
			   (uint32_t)fz_range(c, FZ_MAX_ERRNO + 1, 0xffffffff),
			   4);
		fz_mut(c, "FAIL errno out of range", true);
		return true;
	}
}

/* Breaks one task of @e, of any kind; false if it could not. */
static bool fz_mut_task(struct fz_ctx *c, struct fz_enq *e)
{
	struct fz_task *t = &e->task[fz_below(c, e->nt)];
	bool launch = t->t.type == DRM_WEAVE_TASK_LAUNCH;

	switch (fz_below(c, 11)) {
	case 0:
		t->t.type = (uint32_t)fz_range(c, 2, 0xffffffff);
		fz_mut(c, "task type unknown", true);
		return true;
	case 1:
		if (!launch)
			return false;
		t->t.kernel = (uint32_t)fz_range(c, DRM_WEAVE_KERNEL_FAIL + 1,
						 0xffffffff);
		fz_mut(c, "kernel unknown", true);
		return true;
	case 2:
		if (!launch)
			return false;
		t->t.data = (uintptr_t)c->data;
		fz_mut(c, "launch with data", true);
		return true;
	case 3:
		if (!fz_remake(c, t, true))
			return false;
		fz_mut_host_write(c, t);
		return true;
	case 4:
		t->t.bindings.count = fz.info.max_bindings +
				      (uint32_t)fz_range(c, 1, 0xffff);
		t->bplace = FZ_PLACE_KEEP;
		t->t.bindings.ptr = (uintptr_t)fz.zeros;
		fz_mut(c, "bindings.count over max", true);
		return true;
	case 5:
		if (!launch || t->t.kernel == DRM_WEAVE_KERNEL_FAIL || !c->nbo)
			return false;
		/* One binding more than the kernel takes. */
		t->b[t->nb] = fz_range_of(c, &c->bo[0], 4,
					  DRM_WEAVE_ACCESS_READ |
					  DRM_WEAVE_ACCESS_WRITE, 4);
		t->t.bindings.count = ++t->nb;
		fz_mut(c, "bindings.count wrong for kernel", true);
		return true;
	case 6:
	case 7:
		if (!t->nb && !fz_remake(c, t, false))
			return false;
		fz_mut_binding(c, t);
		return true;
	case 8:
		if (!fz_remake(c, t, false))
			return false;
		fz_mut_kernel_bindings(c, t);
		return true;
	case 9:
		return launch && fz_mut_uniforms(c, t);
	default:
		/* The pad a stride of the 1.2 task would not reach. */
		if (e->tstride < sizeof(struct drm_weave_task))
			e->tstride = sizeof(struct drm_weave_task);
		t->t.pad = (uint32_t)fz_range(c, 1, 0xffffffff);
		fz_mut(c, "task pad", true);
		return true;
	}
}

/*
 * Breaks one thing of the enqueue @e: the call (fuzz_work.h), its tasks'
 * array, or a task; returns false if it could not.
 */
static bool fz_mut_enqueue(struct fz_ctx *c, struct fz_enq *e)
{
	uint64_t r = fz_below(c, 44);

	if (r < 10)
		return fz_mut_enqueue_call(c, e);
	if (r < 16)
		return fz_mut_tasks(c, e);
	return fz_mut_task(c, e);
}

static const struct fz_opdesc fz_ops[OP_NR] = {
	FZ_OBJECT_OPS,
	FZ_WORK_OPS(260, 80, 40),
};

FZ_TESTS(fz_mut_enqueue)
