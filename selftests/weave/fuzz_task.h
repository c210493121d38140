/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The weave fuzzers' work, as data: capture windows as a thread knows
 * them, tasks of every kind built valid, and the in-syncs, out-syncs,
 * strides and deadlines of the calls that queue or wait for work.
 */
#ifndef _WEAVE_FUZZ_TASK_H_
#define _WEAVE_FUZZ_TASK_H_

#include "fuzz_call.h"

/* --- capture windows (uAPI 1.5) ----------------------------------------- */

/*
 * What the thread knows of its streams' windows comes from the out fields
 * of CAPTURE, which report the window of the stream's slot: one window
 * per slot, owned by one of its streams.  That steers the generators;
 * the checks ask the kernel (CAPTURE QUERY) where they need the truth.
 */

static inline uint32_t fz_slot(uint32_t stream)
{
	return stream % fz.info.max_streams;
}

/*
 * The window of @stream's slot is as @q reports it, or was just @closed:
 * the thread's streams on that slot learn what they own.
 */
static inline void fz_window_seen(struct fz_ctx *c, uint32_t stream,
				  const struct drm_weave_capture *q, bool closed)
{
	unsigned int i;

	for (i = 0; i < c->nst; i++) {
		struct fz_stream *t = &c->st[i];

		if (fz_slot(t->handle) != fz_slot(stream))
			continue;
		if (!closed && q->state != DRM_WEAVE_CAPTURE_NONE &&
		    q->owner == t->handle && q->state < FZ_WIN_UNKNOWN) {
			t->win = (uint8_t)q->state;
			t->rec = q->state == DRM_WEAVE_CAPTURE_RECORDING ?
				 (int64_t)q->ntasks : -1;
		} else {
			t->win = DRM_WEAVE_CAPTURE_NONE;
			t->rec = -1;
		}
	}
}

/* The window of @stream's slot changed unseen. */
static inline void fz_window_lost(struct fz_ctx *c, uint32_t stream)
{
	unsigned int i;

	for (i = 0; i < c->nst; i++) {
		if (fz_slot(c->st[i].handle) == fz_slot(stream)) {
			c->st[i].win = FZ_WIN_UNKNOWN;
			c->st[i].rec = -1;
		}
	}
}

/* A stream the thread holds whose window is in @state, or -1. */
static inline int fz_pick_window(struct fz_ctx *c, uint8_t state)
{
	unsigned int i, start = (unsigned int)fz_below(c, FZ_STREAMS);

	for (i = 0; i < c->nst; i++) {
		unsigned int k = (start + i) % c->nst;

		if (c->st[k].win == state)
			return (int)k;
	}
	return -1;
}

/*
 * A stream the thread holds that shares its slot with another it holds,
 * or -1: a window there can be abandoned.
 */
static inline int fz_pick_slotmate(struct fz_ctx *c)
{
	unsigned int i, j, start = (unsigned int)fz_below(c, FZ_STREAMS);

	for (i = 0; i < c->nst; i++) {
		unsigned int k = (start + i) % c->nst;

		for (j = 0; j < c->nst; j++)
			if (j != k && fz_slot(c->st[j].handle) ==
				      fz_slot(c->st[k].handle))
				return (int)k;
	}
	return -1;
}

/* The windows the thread believes open. */
static inline unsigned int fz_windows_open(struct fz_ctx *c)
{
	unsigned int i, n = 0;

	for (i = 0; i < c->nst; i++)
		n += c->st[i].win != DRM_WEAVE_CAPTURE_NONE;
	return n;
}

/*
 * Whether @stream records its window, asked of the kernel with CAPTURE
 * QUERY, for the check of a call on the thread's own file (so nothing
 * changed since the call).  @stream is one the thread holds: the query
 * must work.
 */
static inline bool fz_records(struct fz_ctx *c, uint32_t stream,
			      struct drm_weave_capture *q)
{
	int ret;

	memset(q, 0, sizeof(*q));
	q->stream = stream;
	q->op = DRM_WEAVE_CAPTURE_QUERY;
	ret = ioctl(c->fd, DRM_IOCTL_WEAVE_CAPTURE, q) ? -errno : 0;
	if (ret) {
		fz_fail(c, "CAPTURE QUERY of stream %u, which the thread holds, after the call: %s",
			stream, fz_errname(-ret));
		return false;
	}
	fz_window_seen(c, stream, q, false);
	return q->state == DRM_WEAVE_CAPTURE_RECORDING && q->owner == stream;
}

/* A range of @size bytes (@align-aligned offset) within buffer @bo. */
static inline struct drm_weave_binding fz_range_of(struct fz_ctx *c,
						   const struct fz_bo *bo,
						   uint64_t size, uint32_t access,
						   uint64_t align)
{
	uint64_t slots = (bo->size - size) / align + 1;

	return (struct drm_weave_binding){
		.handle = bo->handle,
		.access = access,
		.offset = fz_below(c, slots) * align,
		.size = size,
	};
}

/* Whether @a and @b overlap in one buffer without being the same range. */
static inline bool fz_crosses(const struct drm_weave_binding *a,
			      const struct drm_weave_binding *b)
{
	return a->handle == b->handle &&
	       (a->offset != b->offset || a->size != b->size) &&
	       a->offset < b->offset + b->size &&
	       b->offset < a->offset + a->size;
}

/* A size for a task's range: small mostly, a multiple of @unit, <= @max. */
static inline uint64_t fz_task_size(struct fz_ctx *c, uint64_t max,
				    uint64_t unit)
{
	uint64_t size, r = fz_below(c, 100);

	if (r < 3)
		size = fz_range(c, 1, max < (64u << 10) ? max : (64u << 10));
	else if (r < 20)
		size = fz_range(c, 1, max < 4096 ? max : 4096);
	else
		size = fz_range(c, 1, max < 256 ? max : 256);
	size -= size % unit;
	return size ?: unit;
}

/* Adds READ or WRITE to @must now and then: the uAPI allows both. */
static inline uint32_t fz_access(struct fz_ctx *c, uint32_t must)
{
	if (fz_one_in(c, 4))
		must |= DRM_WEAVE_ACCESS_READ | DRM_WEAVE_ACCESS_WRITE;
	return must;
}

static inline void fz_set_u32(struct fz_task *t, uint32_t v, uint32_t len)
{
	memset(t->uni, 0, sizeof(t->uni));
	memcpy(t->uni, &v, 4);
	t->t.uniforms_size = len;
	t->uplace = FZ_PLACE_RW;
}

/* Builds task @t as a valid task of a random kind. */
static inline void fz_build_task(struct fz_ctx *c, struct fz_task *t,
				 bool noop_only)
{
	const struct fz_bo *a, *b, *d;
	uint64_t size;
	int kind;

	memset(&t->t, 0, sizeof(t->t));
	t->nb = 0;
	t->bstride = fz_good_stride(c, sizeof(struct drm_weave_binding));
	t->bplace = fz_good_place(c);
	t->bextra = 0;
	t->uplace = fz_good_place(c);
	t->dplace = FZ_PLACE_RW;
	t->t.type = DRM_WEAVE_TASK_LAUNCH;
	if (fz_one_in(c, 2))
		t->t.label = (uint32_t)fz_edgy(c);
	if (fz_one_in(c, 8)) {
		t->t.grid[0] = (uint32_t)fz_edgy(c);
		t->t.grid[1] = (uint32_t)fz_edgy(c);
		t->t.grid[2] = (uint32_t)fz_edgy(c);
	}
	kind = noop_only ? (int)fz_below(c, 2) : (int)fz_below(c, 9);
	if (!c->nbo && kind >= 3)
		kind = (int)fz_below(c, 3);
	a = &c->bo[fz_below(c, c->nbo ?: 1)];
	b = &c->bo[fz_below(c, c->nbo ?: 1)];
	d = &c->bo[fz_below(c, c->nbo ?: 1)];
	switch (kind) {
	case 0:
		t->t.kernel = DRM_WEAVE_KERNEL_NOOP;
		if (fz_one_in(c, 2))
			fz_set_u32(t, (uint32_t)fz_r(c),
				   (uint32_t)fz_below(c, FZ_UNI / 2 + 1));
		break;
	case 1:
		t->t.kernel = DRM_WEAVE_KERNEL_DELAY;
		fz_set_u32(t, (uint32_t)fz_below(c, noop_only ? 2 : 300),
			   (uint32_t)fz_range(c, 4, fz.info.max_uniform_bytes));
		break;
	case 2:
		t->t.kernel = DRM_WEAVE_KERNEL_FAIL;
		fz_set_u32(t, (uint32_t)fz_range(c, 1, FZ_MAX_ERRNO),
			   (uint32_t)fz_range(c, 4, fz.info.max_uniform_bytes));
		/* FAIL takes any bindings: it writes none, taints WRITE ones. */
		while (c->nbo && t->nb < fz.info.max_bindings &&
		       fz_one_in(c, 2)) {
			size = fz_task_size(c, a->size, 1);
			t->b[t->nb++] = fz_range_of(c, a, size,
						    fz_access(c, DRM_WEAVE_ACCESS_READ),
						    1);
		}
		break;
	case 3:
		t->t.kernel = DRM_WEAVE_KERNEL_FILL;
		size = fz_task_size(c, a->size & ~3ull, 4);
		t->b[t->nb++] = fz_range_of(c, a, size,
					    fz_access(c, DRM_WEAVE_ACCESS_WRITE),
					    4);
		fz_set_u32(t, (uint32_t)fz_r(c),
			   (uint32_t)fz_range(c, 4, fz.info.max_uniform_bytes));
		break;
	case 4:
		t->t.kernel = DRM_WEAVE_KERNEL_COPY;
		size = fz_task_size(c, a->size < b->size ? a->size : b->size,
				    1);
		t->b[t->nb++] = fz_range_of(c, a, size,
					    fz_access(c, DRM_WEAVE_ACCESS_READ),
					    1);
		t->b[t->nb++] = fz_range_of(c, b, size,
					    fz_access(c, DRM_WEAVE_ACCESS_WRITE),
					    1);
		break;
	case 5:
		t->t.kernel = DRM_WEAVE_KERNEL_ADD_U32;
		size = a->size < b->size ? a->size : b->size;
		size = fz_task_size(c, (size < d->size ? size : d->size) &
				    ~3ull, 4);
		t->b[t->nb++] = fz_range_of(c, a, size,
					    fz_access(c, DRM_WEAVE_ACCESS_READ),
					    4);
		t->b[t->nb++] = fz_range_of(c, b, size,
					    fz_access(c, DRM_WEAVE_ACCESS_READ),
					    4);
		t->b[t->nb++] = fz_range_of(c, d, size,
					    fz_access(c, DRM_WEAVE_ACCESS_WRITE),
					    4);
		/* An output that crosses an input is refused: in place. */
		if (fz_crosses(&t->b[2], &t->b[0]) ||
		    fz_crosses(&t->b[2], &t->b[1])) {
			t->b[0] = t->b[2];
			t->b[1] = t->b[2];
			t->b[0].access = fz_access(c, DRM_WEAVE_ACCESS_READ);
			t->b[1].access = fz_access(c, DRM_WEAVE_ACCESS_READ);
		}
		break;
	case 6:
		t->t.kernel = DRM_WEAVE_KERNEL_CRC32C;
		size = fz_task_size(c, a->size, 1);
		t->b[t->nb++] = fz_range_of(c, a, size,
					    fz_access(c, DRM_WEAVE_ACCESS_READ),
					    1);
		t->b[t->nb++] = fz_range_of(c, b, 4,
					    fz_access(c, DRM_WEAVE_ACCESS_WRITE),
					    1);
		break;
	default:
		t->t.type = DRM_WEAVE_TASK_HOST_WRITE;
		size = fz_task_size(c, a->size < (16u << 10) ? a->size :
				    (16u << 10), 1);
		t->b[t->nb++] = fz_range_of(c, a, size,
					    fz_access(c, DRM_WEAVE_ACCESS_WRITE),
					    1);
		t->t.data = (uintptr_t)c->data +
			    fz_below(c, FZ_DATA - size + 1);
		t->dplace = FZ_PLACE_KEEP;
		break;
	}
	t->t.bindings.count = t->nb;
}

/* A DELAY that only the job timeout ends: the stream fails. */
static inline void fz_build_hang(struct fz_ctx *c, struct fz_task *t)
{
	uint64_t us = fz.info.job_timeout_ms * 1000ull + 500000;

	fz_build_task(c, t, true);
	t->t.kernel = DRM_WEAVE_KERNEL_DELAY;
	fz_set_u32(t, (uint32_t)(us < FZ_MAX_DELAY_US ? us : FZ_MAX_DELAY_US),
		   4);
}

/* --- in-syncs, out-syncs, strides and deadlines ------------------------- */

/*
 * Picks valid in-syncs (1 to 3 of the thread's syncobjs, now and then at
 * a point they passed) into @s, one time in @one_in; none otherwise.
 */
static inline void fz_pick_syncs(struct fz_ctx *c, struct fz_syncs *s,
				 uint64_t one_in)
{
	uint32_t i;

	s->ns = 0;
	s->stride = fz_good_stride(c, sizeof(struct drm_weave_sync));
	s->place = fz_good_place(c);
	s->extra = 0;
	if (!c->nso || !fz_one_in(c, one_in))
		return;
	s->ns = (uint32_t)fz_range(c, 1, 3);
	for (i = 0; i < s->ns; i++) {
		struct fz_syncobj *so = &c->so[fz_below(c, c->nso)];

		s->sync[i] = (struct drm_weave_sync){
			.handle = so->handle,
			.timeline_value = fz_one_in(c, 3) ?
				fz_below(c, so->point + 1) : 0,
		};
	}
}

/* Writes the in-syncs @s where they go and points @arr at them. */
static inline void fz_put_syncs(struct fz_ctx *c, struct fz_syncs *s,
				struct drm_weave_array *arr)
{
	if (s->place != FZ_PLACE_KEEP) {
		arr->count = s->ns;
		arr->ptr = s->ns ? fz_put_array(c, s->sync, sizeof(s->sync[0]),
						s->ns, s->stride, s->extra,
						s->place) : 0;
	}
	arr->stride = s->stride;
}

/*
 * Breaks the stride of an array of @n elements of @esize bytes: shorter
 * than @min, over the uAPI's maximum, or longer with a non-zero byte past
 * @esize in one element (*@extra).  Each is refused.
 */
#define FZ_MUT_STRIDE(c, what, stride, min, esize, extra, n) \
	fz_mut_stride((c), (stride), (min), (esize), (extra), (n), \
		      what ".stride short", what ".stride over max", \
		      what " extra bytes")

static inline void fz_mut_stride(struct fz_ctx *c, uint32_t *stride,
				 uint32_t min, uint32_t esize, uint32_t *extra,
				 uint32_t n, const char *shrt,
				 const char *over, const char *more)
{
	uint64_t r = n ? fz_below(c, 3) : fz_below(c, 2);

	if (r == 0) {
		*stride = (uint32_t)fz_below(c, min);
		fz_mut(c, shrt, true);
	} else if (r == 1) {
		*stride = fz_below(c, 2) ?
			  DRM_WEAVE_MAX_STRIDE + 8 * (uint32_t)fz_range(c, 1, 8) :
			  (uint32_t)fz_range(c, DRM_WEAVE_MAX_STRIDE + 1,
					     0xffffffff);
		fz_mut(c, over, true);
	} else {
		*stride = esize + 8 * (uint32_t)fz_range(c, 1,
				(DRM_WEAVE_MAX_STRIDE - esize) / 8);
		*extra = 1 + (uint32_t)fz_below(c, n);
		fz_mut(c, more, true);
	}
}

/*
 * Breaks the in-syncs @s of a call whose array is @arr: too many, a bad
 * stride, flags or handle, unreadable, or a syncobj without a fence
 * (refused on a file of the thread's own).  Returns false if it did not.
 */
static inline bool fz_mut_syncs(struct fz_ctx *c, struct fz_syncs *s,
				struct drm_weave_array *arr)
{
	struct drm_syncobj_create sc = { 0 };
	struct drm_weave_sync *one;
	int k;

	if (!s->ns) {
		k = fz_pick_so(c);
		s->sync[0] = (struct drm_weave_sync){
			.handle = k < 0 ? fz_bad_handle(c) : c->so[k].handle,
		};
		s->ns = 1;
	}
	one = &s->sync[fz_below(c, s->ns)];
	switch (fz_below(c, 8)) {
	case 0:
		arr->count = fz.info.max_in_syncs +
			     (uint32_t)fz_range(c, 1, 0xffff);
		arr->ptr = (uintptr_t)fz.zeros;
		s->stride = sizeof(struct drm_weave_sync);
		s->place = FZ_PLACE_KEEP;
		fz_mut(c, "in_syncs.count over max", true);
		return true;
	case 1:
	case 2:
		FZ_MUT_STRIDE(c, "in_syncs", &s->stride, sizeof(*one),
			      sizeof(*one), &s->extra, s->ns);
		return true;
	case 3:
		one->flags = (uint32_t)fz_range(c, 1, 0xffffffff);
		fz_mut(c, "in_sync flags", true);
		return true;
	case 4:
		one->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
		fz_mut(c, "in_sync bad handle", true);
		return true;
	case 5:
		s->place = fz_below(c, 2) ? FZ_PLACE_BAD : FZ_PLACE_STRADDLE;
		fz_mut(c, "in_syncs unreadable", true);
		return true;
	default:
		/* A syncobj of its own that has no fence (fz_issue drops it). */
		if (c->call.tmp_so ||
		    ioctl(c->fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc))
			return false;
		c->call.tmp_so = sc.handle;
		*one = (struct drm_weave_sync){
			.handle = sc.handle,
			.timeline_value = fz_below(c, 2) ? 0 : fz_range(c, 1, 9),
		};
		fz_mut(c, "in_sync without a fence", !c->shared);
		return true;
	}
}

/* Writes the enqueue's arrays to memory and points its argument at them. */
static inline void fz_render_enqueue(struct fz_ctx *c, struct fz_enq *e)
{
	struct drm_weave_task *tasks = malloc(sizeof(*tasks) * FZ_MAX_TASKS);
	uint32_t i;

	if (!tasks)
		abort();
	for (i = 0; i < e->nt; i++) {
		struct fz_task *t = &e->task[i];

		if (t->bplace != FZ_PLACE_KEEP)
			t->t.bindings.ptr = t->nb ?
				fz_put_array(c, t->b, sizeof(t->b[0]), t->nb,
					     t->bstride, t->bextra, t->bplace) :
				(fz_one_in(c, 2) ? 0 : fz_bad_ptr(c));
		t->t.bindings.stride = t->bstride;
		if (t->uplace != FZ_PLACE_KEEP)
			t->t.uniforms = t->t.uniforms_size ?
				fz_put(c, t->uni, t->t.uniforms_size, t->uplace,
				       fz_range(c, 1, t->t.uniforms_size)) :
				(fz_one_in(c, 2) ? 0 : fz_bad_ptr(c));
		tasks[i] = t->t;
	}
	if (e->tstride == FZ_TASK_1_2) {
		/* A program of uAPI 1.2: its tasks end before label. */
		uint8_t *old = malloc(FZ_TASK_1_2 * (e->nt ?: 1));

		if (!old)
			abort();
		for (i = 0; i < e->nt; i++)
			memcpy(old + i * FZ_TASK_1_2, &tasks[i], FZ_TASK_1_2);
		e->a.tasks.ptr = fz_put_array(c, old, FZ_TASK_1_2, e->nt,
					      e->tstride, e->textra,
					      e->tplace);
		free(old);
	} else {
		e->a.tasks.ptr = fz_put_array(c, tasks, sizeof(tasks[0]),
					      e->nt, e->tstride, e->textra,
					      e->tplace);
	}
	e->a.tasks.stride = e->tstride;
	fz_put_syncs(c, &e->in, &e->a.in_syncs);
	fz_put_syncs(c, &e->out, &e->a.out_syncs);
	free(tasks);
}

/* A syncobj and point to hand a fence to, or none. */
static inline struct drm_weave_sync fz_out_sync(struct fz_ctx *c)
{
	int i = fz_pick_so(c);

	if (i < 0 || fz_one_in(c, 2))
		return (struct drm_weave_sync){ 0 };
	if (fz_one_in(c, 2))
		return (struct drm_weave_sync){ .handle = c->so[i].handle };
	c->so[i].point += fz_range(c, 1, 3);
	return (struct drm_weave_sync){
		.handle = c->so[i].handle,
		.timeline_value = c->so[i].point,
	};
}

/*
 * The out-syncs of an ENQUEUE with DRM_WEAVE_ENQUEUE_FLUSH (uAPI 1.8),
 * if @pick: none to three syncobjs of the thread, binary or at a new
 * point.
 */
static inline void fz_pick_outs(struct fz_ctx *c, struct fz_syncs *s,
				bool pick)
{
	uint32_t i, n = pick ? (uint32_t)fz_below(c, 4) : 0;
	struct drm_weave_sync one;

	s->ns = 0;
	s->stride = fz_good_stride(c, sizeof(struct drm_weave_sync));
	s->place = fz_good_place(c);
	s->extra = 0;
	for (i = 0; i < n; i++) {
		one = fz_out_sync(c);
		if (one.handle)
			s->sync[s->ns++] = one;
	}
}

/*
 * Breaks the out-syncs of an ENQUEUE @a, with the flag set unless the
 * break is its absence: each is refused with nothing queued.
 */
static inline bool fz_mut_outs(struct fz_ctx *c, struct fz_syncs *s,
			       struct drm_weave_enqueue *a)
{
	struct drm_weave_sync *one;

	a->flags |= DRM_WEAVE_ENQUEUE_FLUSH;
	if (!s->ns) {
		s->sync[0] = (struct drm_weave_sync){ 0 };
		s->sync[0].handle = c->nso ? c->so[fz_below(c, c->nso)].handle :
					     fz_bad_handle(c);
		s->ns = 1;
	}
	one = &s->sync[fz_below(c, s->ns)];
	switch (fz_below(c, 7)) {
	case 0:
		a->out_syncs.count = fz.info.max_in_syncs +
				     (uint32_t)fz_range(c, 1, 0xffff);
		a->out_syncs.ptr = (uintptr_t)fz.zeros;
		s->stride = sizeof(struct drm_weave_sync);
		s->place = FZ_PLACE_KEEP;
		fz_mut(c, "out_syncs.count over max", true);
		return true;
	case 1:
		FZ_MUT_STRIDE(c, "out_syncs", &s->stride, sizeof(*one),
			      sizeof(*one), &s->extra, s->ns);
		return true;
	case 2:
		one->flags = (uint32_t)fz_range(c, 1, 0xffffffff);
		fz_mut(c, "out_sync flags", true);
		return true;
	case 3:
		one->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
		fz_mut(c, "out_sync bad handle", true);
		return true;
	case 4:
		s->place = fz_below(c, 2) ? FZ_PLACE_BAD : FZ_PLACE_STRADDLE;
		fz_mut(c, "out_syncs unreadable", true);
		return true;
	case 5:
		a->flags &= ~DRM_WEAVE_ENQUEUE_FLUSH;
		fz_mut(c, "out_syncs without the flush flag", true);
		return true;
	default:
		/* No tasks: only with the flag. */
		a->flags &= ~DRM_WEAVE_ENQUEUE_FLUSH;
		a->tasks.count = 0;
		fz_mut(c, "no tasks without the flush flag", true);
		return true;
	}
}

/* A deadline for a wait: past, now, soon; never far. */
static inline int64_t fz_deadline(struct fz_ctx *c)
{
	uint64_t r = fz_below(c, 100);

	if (r < 25)
		return 0;
	if (r < 35)
		return -(int64_t)fz_below(c, 1ull << 62);
	if (r < 55)
		return fz_now() - (int64_t)fz_below(c, WEAVE_TEST_SEC);
	if (r < 88)
		return fz_now() + (int64_t)fz_below(c, 1000000);
	if (r < 98)
		return fz_now() + (int64_t)fz_below(c, 10000000);
	return fz_now() + (int64_t)fz_below(c, 100000000);
}

#endif /* _WEAVE_FUZZ_TASK_H_ */
