// SPDX-License-Identifier: GPL-2.0
/*
 * weave: the fuzzer of shared submission rings (uAPI 1.9): RING_CREATE,
 * RING_DESTROY and RING_ENTER (plain and RESUME), while the thread writes
 * its rings' memory with valid, broken and random descriptors and tails,
 * and the header the kernel writes must stay consistent.  See fuzz_run.h
 * for how a run goes and what it checks.
 */
#include "fuzz_run.h"

/* Rings a thread holds at once, and the threads that hold any. */
#define FZ_RINGS	4
#define FZ_RING_CTXS	16

struct fz_ring {
	struct weave_ring r;
	uint64_t reopens;	/* the thread's reopens when it was made */
	uint32_t head;		/* the head last seen */
	int polled;		/* of poll mode: the kernel's thread consumes */
};

static struct fz_ring fz_rings[FZ_RING_CTXS][FZ_RINGS];
static unsigned int fz_nrings[FZ_RING_CTXS];

static const int errs_ring_create[] = {
	EINVAL, ENOENT, EBUSY, ENOSPC, ENOMEM, EINTR, 0
};
static const int errs_ring_destroy[] = { EINVAL, ENOENT, EINTR, 0 };
static const int errs_ring_enter[] = {
	EINVAL, ENOENT, EALREADY, EBUSY, ENOMEM, EINTR, 0
};

/* The thread's rings, with those of a file it closed since dropped. */
static struct fz_ring *fz_ring_pool(struct fz_ctx *c, unsigned int **n)
{
	struct fz_ring *p;
	unsigned int i;

	if (c->id >= FZ_RING_CTXS)
		return NULL;
	p = fz_rings[c->id];
	*n = &fz_nrings[c->id];
	for (i = 0; i < **n; i++) {
		if (p[i].reopens == c->stat.reopens)
			continue;
		/* Its file is gone: the mappings stay until unmapped. */
		munmap((void *)p[i].r.hdr, fz.page);
		munmap(p[i].r.sq, p[i].r.sq_size);
		p[i--] = p[--**n];
	}
	return p;
}

static const struct fz_field fz_ring_create_fields[] = {
	FZ_FIELD(ring_create, flags, FZ_BREAK_BIT, 1, "unknown flag"),
	FZ_FIELD(ring_create, stream, FZ_BREAK_HANDLE, 0, "bad stream"),
	FZ_FIELD(ring_create, units, FZ_BREAK_ABOVE, 65536, "units too many"),
};

static void gen_ring_create(struct fz_ctx *c)
{
	struct drm_weave_ring_create *a = &c->call.arg.ring_create;
	static const uint32_t units[] = { 64, 128, 256, 1024 };

	a->stream = fz_stream_handle(c);
	a->units = units[fz_below(c, 4)];
	/* Some of poll mode (uAPI 1.10), which the thread consumes. */
	if (fz.info.uapi_minor >= 10 && fz_one_in(c, 3))
		a->flags = DRM_WEAVE_RING_CREATE_POLL;
	while (fz_mutate(c)) {
		if (fz_one_in(c, 3)) {
			a->units = (uint32_t)fz_edgy(c);
			fz_mut(c, "units edgy",
			       a->units < 64 || a->units > 65536 ||
			       (a->units & (a->units - 1)));
			continue;
		}
		fz_mut_field(c, fz_ring_create_fields,
			     ARRAY_SIZE(fz_ring_create_fields), true);
	}
	fz_detail(c, "stream %u units %u flags %#x", a->stream, a->units,
		  a->flags);
}

static void check_ring_create(struct fz_ctx *c, int ret)
{
	struct drm_weave_ring_create *a = &c->call.arg.ring_create;
	struct drm_weave_ring_destroy d = { .ring = a->ring };
	struct fz_ring *p, *x;
	unsigned int *n;
	void *hdr, *sq;
	int i;

	if (ret || c->call.argplace != FZ_PLACE_RW)
		return;
	i = fz_find_stream(c, a->stream);
	if (i >= 0)
		c->st[i].exact = false;	/* its tasks come from a ring too */
	p = fz_ring_pool(c, &n);
	hdr = mmap(NULL, a->header_size, PROT_READ, MAP_SHARED, c->fd,
		   (off_t)a->header_offset);
	sq = mmap(NULL, a->sq_size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd,
		  (off_t)a->sq_offset);
	if (hdr == MAP_FAILED || sq == MAP_FAILED) {
		/* On a shared file another thread may have destroyed it. */
		if (!c->shared)
			fz_fail(c, "RING_CREATE: ring %u cannot be mapped: %s",
				a->ring, strerror(errno));
		if (hdr != MAP_FAILED)
			munmap(hdr, a->header_size);
		if (sq != MAP_FAILED)
			munmap(sq, a->sq_size);
		return;
	}
	if (!p || *n == FZ_RINGS) {
		munmap(hdr, a->header_size);
		munmap(sq, a->sq_size);
		/* On a shared file another thread may have destroyed it. */
		do	/* the run's alarms interrupt it */
			ret = fz_tidy(c, OP_RING_DESTROY, &d, sizeof(d));
		while (ret == -EINTR);
		if (ret && !(c->shared && ret == -ENOENT))
			fz_fail(c, "RING_DESTROY of a new ring failed: %d",
				ret);
		return;
	}
	x = &p[(*n)++];
	memset(x, 0, sizeof(*x));
	x->r.fd = c->fd;
	x->r.ring = a->ring;
	x->r.stream = a->stream;
	x->r.units = a->units;
	x->r.hdr = hdr;
	x->r.sq = sq;
	x->r.descs = (uint8_t *)sq + DRM_WEAVE_RING_SQ_DESCS;
	x->r.sq_size = a->sq_size;
	x->reopens = c->stat.reopens;
	x->polled = !!(a->flags & DRM_WEAVE_RING_CREATE_POLL);
	/*
	 * The thread may have cleared NEED_WAKEUP of a polled one already.
	 * On a shared file the header page is the stream's, which another
	 * thread may have destroyed (stopping the ring) or given a later
	 * ring since: fresh on a file of its own only.
	 */
	if (a->header_size != fz.page ||
	    (!c->shared &&
	     (x->r.hdr->head ||
	      (x->r.hdr->flags |
	       (x->polled ? DRM_WEAVE_RING_NEED_WAKEUP : 0)) !=
	      DRM_WEAVE_RING_NEED_WAKEUP ||
	      x->r.hdr->error)))
		fz_fail(c, "RING_CREATE: ring %u's header is not fresh: head %u flags %#x error %d",
			a->ring, x->r.hdr->head, x->r.hdr->flags,
			x->r.hdr->error);
}

/* A ring of the thread, or -1. */
static int fz_pick_ring(struct fz_ctx *c)
{
	unsigned int *n;
	struct fz_ring *p = fz_ring_pool(c, &n);

	return p && *n ? (int)fz_below(c, *n) : -1;
}

static const struct fz_field fz_ring_destroy_fields[] = {
	FZ_FIELD(ring_destroy, pad, FZ_BREAK_NONZERO, 0, "pad"),
	FZ_FIELD(ring_destroy, ring, FZ_BREAK_HANDLE, 0, "bad ring"),
};

static void gen_ring_destroy(struct fz_ctx *c)
{
	struct drm_weave_ring_destroy *a = &c->call.arg.ring_destroy;
	int i = fz_pick_ring(c);

	c->call.idx = i;
	a->ring = i < 0 ? fz_any_handle(c) : fz_rings[c->id][i].r.ring;
	FZ_MUT_FIELDS(c, fz_ring_destroy_fields, true);
	fz_detail(c, "ring %u", a->ring);
}

static void check_ring_destroy(struct fz_ctx *c, int ret)
{
	struct drm_weave_ring_destroy *a = &c->call.arg.ring_destroy;
	int i = c->call.idx;
	struct fz_ring *p;
	unsigned int *n;

	if (ret || i < 0)
		return;
	p = fz_ring_pool(c, &n);
	if (!p || (unsigned int)i >= *n || p[i].r.ring != a->ring)
		return;
	munmap((void *)p[i].r.hdr, fz.page);
	munmap(p[i].r.sq, p[i].r.sq_size);
	p[i] = p[--*n];
}

/*
 * Writes ring @x's memory as a producer would, or would not: valid
 * descriptors on the thread's buffers, broken ones, random bytes, and
 * now and then a wild tail.
 */
static void fz_ring_scribble(struct fz_ctx *c, struct fz_ring *x)
{
	struct drm_weave_ring_desc *d;
	unsigned int i, k = (unsigned int)fz_range(c, 1, 8);
	int b;

	for (i = 0; i < k; i++) {
		switch (fz_below(c, 6)) {
		case 0:
		case 1:
			weave_ring_noop(&x->r);
			break;
		case 2:
			b = fz_pick_bo(c);
			d = weave_ring_reserve(&x->r, 1, 4);
			if (!d || b < 0)
				break;
			d->type = DRM_WEAVE_TASK_LAUNCH;
			d->kernel = DRM_WEAVE_KERNEL_FILL;
			weave_ring_desc_bindings(d)[0] =
				weave_binding(c->bo[b].handle,
					      DRM_WEAVE_ACCESS_WRITE, 0, 4);
			memcpy(weave_ring_desc_uniforms(d), &i, 4);
			break;
		case 3:
			d = weave_ring_reserve(&x->r,
					       (uint32_t)fz_below(c, 9),
					       (uint32_t)fz_below(c, 65));
			if (d) {
				memset(d + 1, (int)fz_r(c),
				       d->units * DRM_WEAVE_RING_UNIT -
				       sizeof(*d));
				d->type = (uint8_t)fz_below(c, 3);
				/* Not a DELAY, which could be long. */
				d->kernel = (uint32_t)fz_below(c, 8);
				if (d->kernel == DRM_WEAVE_KERNEL_DELAY)
					d->kernel = DRM_WEAVE_KERNEL_NOOP;
			}
			break;
		case 4:
			x->r.descs[fz_below(c, x->r.units *
					       DRM_WEAVE_RING_UNIT)] =
				(uint8_t)fz_r(c);
			break;
		default:
			if (fz_one_in(c, 4))
				x->r.tail = (uint32_t)fz_edgy(c);
			break;
		}
	}
	if (weave_ring_error(&x->r, NULL)) {
		if (fz_one_in(c, 2))
			weave_ring_skip_bad(&x->r);
		else	/* what is not consumed yet is forgotten */
			x->r.tail = weave_ring_head(&x->r);
	}
	weave_ring_publish(&x->r);
}

static const struct fz_field fz_ring_enter_fields[] = {
	FZ_FIELD(ring_enter, flags, FZ_BREAK_BIT, 1, "unknown flag"),
	FZ_FIELD(ring_enter, pad, FZ_BREAK_NONZERO, 0, "pad"),
};

static void gen_ring_enter(struct fz_ctx *c)
{
	struct drm_weave_ring_enter *a = &c->call.arg.ring_enter;
	int i = fz_pick_ring(c);
	struct fz_ring *x = i < 0 ? NULL : &fz_rings[c->id][i];

	c->call.idx = i;
	if (x)
		fz_ring_scribble(c, x);
	if (x && weave_ring_error(&x->r, NULL) && fz_one_in(c, 2)) {
		a->flags = DRM_WEAVE_RING_ENTER_RESUME;
		a->ring = x->r.ring;
	}
	while (fz_mutate(c)) {
		if (fz_one_in(c, 3)) {
			a->ring = fz_any_handle(c);
			fz_mut(c, "ring without RESUME",
			       !(a->flags & DRM_WEAVE_RING_ENTER_RESUME) &&
			       a->ring);
			continue;
		}
		fz_mut_field(c, fz_ring_enter_fields,
			     ARRAY_SIZE(fz_ring_enter_fields), true);
	}
	fz_detail(c, "flags %#x ring %u", a->flags, a->ring);
}

/* What the kernel wrote into ring @x's header must hold together. */
static void fz_ring_header_check(struct fz_ctx *c, struct fz_ring *x)
{
	/* Flags first: a stopped ring holds still until this thread resumes. */
	uint32_t flags = __atomic_load_n(&x->r.hdr->flags, __ATOMIC_ACQUIRE);
	uint32_t head = weave_ring_head(&x->r);
	int err = x->r.hdr->error;

	/*
	 * The header page is the stream's: on a shared file another thread
	 * may destroy the ring and make a new one on the stream, whose head
	 * starts again at 0.
	 */
	if (head - x->head > x->r.units && !c->shared)
		fz_fail(c, "ring %u: head went from %u to %u", x->r.ring,
			x->head, head);
	x->head = head;
	/*
	 * Of a polled ring, NEED_WAKEUP comes and goes with its thread; on
	 * a shared file the stream's header page may be a later ring's, of
	 * poll mode, made by another thread.
	 */
	if ((!(flags & DRM_WEAVE_RING_NEED_WAKEUP) && !x->polled &&
	     !c->shared) ||
	    flags & ~(DRM_WEAVE_RING_NEED_WAKEUP | DRM_WEAVE_RING_STOPPED))
		fz_fail(c, "ring %u: flags %#x", x->r.ring, flags);
	if (flags & DRM_WEAVE_RING_STOPPED &&
	    (err >= 0 || err < -4095 || x->r.hdr->error_index != head))
		fz_fail(c, "ring %u stopped with %d at %u, head %u", x->r.ring,
			err, x->r.hdr->error_index, head);
}

static void check_ring_enter(struct fz_ctx *c, int ret)
{
	struct drm_weave_ring_enter *a = &c->call.arg.ring_enter;
	struct fz_ring *p;
	unsigned int *n, i;

	if (!ret && c->call.argplace == FZ_PLACE_RW &&
	    a->consumed > DRM_WEAVE_RING_ENTER_MAX)
		fz_fail(c, "RING_ENTER consumed %u", a->consumed);
	p = fz_ring_pool(c, &n);
	for (i = 0; p && i < *n; i++)
		fz_ring_header_check(c, &p[i]);
}

/* A thread ends: its rings' mappings go, and with them their hold of the file. */
static void fz_ring_ctx_fini(struct fz_ctx *c)
{
	unsigned int *n, i;
	struct fz_ring *p = fz_ring_pool(c, &n);

	for (i = 0; p && i < *n; i++) {
		munmap((void *)p[i].r.hdr, fz.page);
		munmap(p[i].r.sq, p[i].r.sq_size);
	}
	if (p)
		*n = 0;
}

__attribute__((constructor)) static void fz_ring_init(void)
{
	fz.ctx_fini = fz_ring_ctx_fini;
}

static const struct fz_opdesc fz_ops[OP_NR] = {
	FZ_OBJECT_OPS,
	FZ_WORK_OPS(60, 40, 20),
	[OP_RING_CREATE] = { "RING_CREATE", DRM_IOCTL_WEAVE_RING_CREATE,
			     errs_ring_create, 30, gen_ring_create,
			     check_ring_create },
	[OP_RING_DESTROY] = { "RING_DESTROY", DRM_IOCTL_WEAVE_RING_DESTROY,
			      errs_ring_destroy, 10, gen_ring_destroy,
			      check_ring_destroy },
	[OP_RING_ENTER] = { "RING_ENTER", DRM_IOCTL_WEAVE_RING_ENTER,
			    errs_ring_enter, 120, gen_ring_enter,
			    check_ring_enter },
};

FZ_TESTS(NULL)
