/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The weave fuzzers' calls: how a call is started, mutated, made and
 * judged (an errno the ioctl documents, failure where it was made invalid,
 * success where it was valid on what the thread holds), and the
 * generators of the objects every suite needs: buffers, streams and
 * syncobjs, made and closed.
 */
#ifndef _WEAVE_FUZZ_CALL_H_
#define _WEAVE_FUZZ_CALL_H_

#include "fuzz.h"

/* --- calls and checks ---------------------------------------------------- */

static inline int64_t fz_now(void)
{
	return weave_test_now();
}

static inline bool fz_in(const int *errs, int err)
{
	for (; *errs; errs++)
		if (*errs == err)
			return true;
	return false;
}

static inline const char *fz_errname(int err)
{
	const char *name = err ? strerrorname_np(err) : "0";

	return name ? name : "E?";
}

/* The argument struct's bytes, in hex, into the call's detail. */
static inline void fz_detail_hex(struct fz_ctx *c, size_t size)
{
	const uint8_t *p = (const uint8_t *)&c->call.arg;
	size_t i, len = strlen(c->call.detail);

	len += snprintf(c->call.detail + len, sizeof(c->call.detail) - len,
			"%sarg", len ? "; " : "");
	for (i = 0; i < size && len + 3 < sizeof(c->call.detail); i++)
		len += snprintf(c->call.detail + len,
				sizeof(c->call.detail) - len, "%s%02x",
				i % 8 ? "" : " ", p[i]);
}

/* Records the first failure of the run, with the call, and stops it. */
static inline void __attribute__((format(printf, 2, 3)))
fz_fail(struct fz_ctx *c, const char *fmt, ...)
{
	size_t len, size = _IOC_SIZE(c->call.req);
	char msg[1024];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* The argument as the kernel left it. */
	fz_detail_hex(c, size < 64 ? size : 64);
	pthread_mutex_lock(&fz.lock);
	if (!fz.failure[0]) {
		len = snprintf(fz.failure, sizeof(fz.failure),
			       "seed %#" PRIx64 ", thread %d, iteration %" PRIu64
			       ": %s\n  call: %s [%s] on fd %d%s\n  %s\n  last calls:",
			       fz.seed, c->id, c->iter, msg,
			       fz_ops[c->call.op].name, c->call.mut,
			       c->call.fd, c->shared ? " (shared)" : "",
			       c->call.detail);
		for (i = 1; i <= 8 && len < sizeof(fz.failure); i++) {
			unsigned int k = (unsigned int)((c->stat.calls + 8 - i) % 8);

			if (c->ring[k].mut)
				len += snprintf(fz.failure + len,
						sizeof(fz.failure) - len,
						"\n    %" PRIu64 " %s [%s]",
						c->ring[k].iter,
						fz_ops[c->ring[k].op].name,
						c->ring[k].mut);
		}
	}
	pthread_mutex_unlock(&fz.lock);
	atomic_store(&fz.stop, 1);
}

static inline void __attribute__((format(printf, 2, 3)))
fz_detail(struct fz_ctx *c, const char *fmt, ...)
{
	size_t len = strlen(c->call.detail);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->call.detail + len, sizeof(c->call.detail) - len, fmt, ap);
	va_end(ap);
}

/* Starts a call of @op on the thread's file: picks valid, mutated, random. */
static inline void fz_begin(struct fz_ctx *c, enum fz_op op)
{
	uint64_t r = fz_below(c, 100);

	memset(&c->call, 0, sizeof(c->call));
	c->call.op = op;
	c->call.req = fz_ops[op].req;
	c->call.fd = c->fd;
	c->call.idx = -1;
	c->call.argplace = FZ_PLACE_RW;
	if (r < 35) {
		c->call.mode = FZ_VALID;
	} else if (r < 88) {
		c->call.mode = FZ_MUTATE;
		c->call.nmut = 1;
	} else {
		c->call.mode = FZ_RANDOM;
		c->call.nmut = (int)fz_range(c, 2, 4);
	}
	c->bump = 0;
}

/* True while mutations are left to apply; takes one. */
static inline bool fz_mutate(struct fz_ctx *c)
{
	if (c->call.nmut <= 0)
		return false;
	c->call.nmut--;
	return true;
}

/*
 * Names the mutation applied.  @invalid: the uAPI (or the core) refuses a
 * call with it, so a call with just this one must fail.
 */
static inline void fz_mut(struct fz_ctx *c, const char *name, bool invalid)
{
	size_t len = strlen(c->call.mut), n = strlen(name);

	if (!c->call.mut0)
		c->call.mut0 = name;
	if (len + n + 2 < sizeof(c->call.mut)) {
		if (len)
			c->call.mut[len++] = '+';
		memcpy(c->call.mut + len, name, n + 1);
	}
	if (invalid && c->call.mode == FZ_MUTATE)
		c->call.must_fail = true;
}

/* Ioctls that only read their argument: DRM_IOW. */
static inline bool fz_write_only(unsigned long req)
{
	return _IOC_DIR(req) == _IOC_WRITE;
}

/*
 * Moves the argument to where it cannot be read, or cannot be written
 * back (read-only: fails only ioctls that copy their argument back; not
 * for those that make descriptors, which would then leak unseen).
 */
static inline void fz_mut_arg(struct fz_ctx *c, bool may_be_ro)
{
	uint64_t r = fz_below(c, 3);

	if (r == 0 && may_be_ro) {
		c->call.argplace = FZ_PLACE_RO;
		fz_mut(c, "arg read-only", !fz_write_only(c->call.req));
	} else if (r == 1) {
		c->call.argplace = FZ_PLACE_STRADDLE;
		fz_mut(c, "arg straddles PROT_NONE", true);
	} else {
		c->call.argplace = FZ_PLACE_BAD;
		fz_mut(c, "arg unmapped", true);
	}
}

/* How a field of an argument is made invalid. */
enum fz_break {
	FZ_BREAK_NONZERO,		/* pad or flags: any value but 0 */
	FZ_BREAK_HANDLE,	/* 0, or a handle no file hands out */
	FZ_BREAK_ABOVE,		/* above @max: an unknown op, type, priority */
	FZ_BREAK_BIT,		/* a flag at bit @max or above */
};

/*
 * A u32 field of an argument and how to break it: a table of these is
 * what most ioctls' mutations are.  @name names the mutation.
 */
struct fz_field {
	const char *name;
	uint16_t off;
	uint8_t bad;		/* enum fz_break */
	uint32_t max;
};

#define FZ_FIELD(member, field, bad, max, name) \
	{ (name), offsetof(union fz_arg, member.field), (bad), (max) }

/*
 * Breaks one field of the table @f (@n entries), or, as often as any one
 * field, moves the argument (fz_mut_arg(@may_be_ro)).  Each makes the
 * call invalid.
 */
static inline void fz_mut_field(struct fz_ctx *c, const struct fz_field *f,
				unsigned int n, bool may_be_ro)
{
	unsigned int i = (unsigned int)fz_below(c, n + 1);
	uint32_t v, *p;

	if (i == n) {
		fz_mut_arg(c, may_be_ro);
		return;
	}
	f += i;
	p = (uint32_t *)((uint8_t *)&c->call.arg + f->off);
	switch (f->bad) {
	case FZ_BREAK_NONZERO:
		v = (uint32_t)fz_range(c, 1, 0xffffffff);
		break;
	case FZ_BREAK_HANDLE:
		v = fz_below(c, 2) ? 0 : fz_bad_handle(c);
		break;
	case FZ_BREAK_ABOVE:
		v = (uint32_t)fz_range(c, f->max + 1ull, 0xffffffff);
		break;
	default:
		v = *p | 1u << fz_range(c, f->max, 31);
		break;
	}
	*p = v;
	fz_mut(c, f->name, true);
}

/* Every mutation the call is due, each from the table @f. */
#define FZ_MUT_FIELDS(c, f, may_be_ro) \
	do { \
		while (fz_mutate(c)) \
			fz_mut_field((c), (f), ARRAY_SIZE(f), (may_be_ro)); \
	} while (0)

/*
 * Errors that say an argument was wrong.  A valid call on objects a thread
 * holds on a file of its own must not get one; errors that come from the
 * state of things (EBUSY, ECANCELED, ETIME, ENOMEM, EINTR...) it may.
 */
static const int errs_argument[] = { EINVAL, ENOENT, EFAULT, E2BIG, EBADF, 0 };

/*
 * Makes the call built in c->call and checks its result: an errno the
 * ioctl may return, and failure if it was made invalid; then the op's own
 * checks.  Returns 0 or the negative errno.
 */
static inline int fz_issue(struct fz_ctx *c)
{
	const struct fz_opdesc *op = &fz_ops[c->call.op];
	size_t size = _IOC_SIZE(c->call.req);
	bool efault_ok = false;
	void *argp = &c->call.arg;
	int ret;

	if (c->call.mode == FZ_RANDOM) {
		c->call.must_fail = false;
		c->call.want = NULL;
	}
	if (c->call.mode != FZ_VALID || c->shared)
		c->call.strict = false;
	if (!c->call.mut[0])
		fz_mut(c, c->call.mode == FZ_VALID ? "valid" : "as built",
		       false);
	switch (c->call.argplace) {
	case FZ_PLACE_RO:
		argp = (void *)(uintptr_t)fz_put(c, &c->call.arg, size,
						 FZ_PLACE_RO, 0);
		efault_ok = !fz_write_only(c->call.req);
		break;
	case FZ_PLACE_STRADDLE:
	case FZ_PLACE_BAD:
		argp = (void *)(uintptr_t)fz_put(c, &c->call.arg, size,
						 c->call.argplace,
						 fz_range(c, 1, size));
		efault_ok = true;
		break;
	default:
		break;
	}

	c->ring[c->stat.calls % 8].iter = c->iter;
	c->ring[c->stat.calls % 8].op = c->call.op;
	c->ring[c->stat.calls % 8].mut = c->call.mut0;
	ret = ioctl(c->call.fd, c->call.req, argp) ? -errno : 0;
	c->stat.calls++;
	c->stat.per_op[c->call.op]++;
	if (ret == -EINTR)
		c->stat.eintr++;
	if (ret && c->call.must_fail)
		c->stat.fails_expected++;

	if (!ret && c->call.must_fail) {
		fz_fail(c, "%s succeeded, but [%s] makes it invalid", op->name,
			c->call.mut);
	} else if (ret && !fz_in(op->errs, -ret) &&
		   !(ret == -EFAULT && efault_ok)) {
		fz_fail(c, "%s returned %s (%d), which it does not document",
			op->name, fz_errname(-ret), ret);
	} else if (c->call.want && !fz_in(c->call.want, -ret)) {
		fz_fail(c, "%s returned %s, not %s", op->name, fz_errname(-ret),
			fz_errname(c->call.want[0]));
	} else if (ret && c->call.strict && fz_in(errs_argument, -ret)) {
		fz_fail(c, "%s failed with %s, but the call was valid and the thread holds everything it names",
			op->name, fz_errname(-ret));
	} else if (op->check) {
		op->check(c, ret);
	}
	if (c->call.tmp_so) {
		struct drm_syncobj_destroy d = { .handle = c->call.tmp_so };

		ioctl(c->fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
	}
	return ret;
}

/* Issues a call the fuzzer needs to succeed (tidying up, say). */
static inline int fz_tidy(struct fz_ctx *c, enum fz_op op, const void *arg,
			  size_t size)
{
	memset(&c->call, 0, sizeof(c->call));
	c->call.op = op;
	c->call.req = fz_ops[op].req;
	c->call.fd = c->fd;
	c->call.idx = -1;
	memcpy(&c->call.arg, arg, size);
	fz_mut(c, "tidy", false);
	c->call.strict = true;
	return fz_issue(c);
}

static inline void fz_close_bo(struct fz_ctx *c, uint32_t handle)
{
	struct drm_gem_close a = { .handle = handle };

	fz_tidy(c, OP_GEM_CLOSE, &a, sizeof(a));
}

static inline void fz_destroy_stream(struct fz_ctx *c, uint32_t handle)
{
	struct drm_weave_stream_destroy a = { .handle = handle };

	fz_tidy(c, OP_STREAM_DESTROY, &a, sizeof(a));
}

static inline void fz_destroy_so(struct fz_ctx *c, uint32_t handle)
{
	struct drm_syncobj_destroy a = { .handle = handle };

	fz_tidy(c, OP_SO_DESTROY, &a, sizeof(a));
}

static inline void fz_destroy_graph(struct fz_ctx *c, uint32_t handle)
{
	struct drm_weave_graph_destroy a = { .graph = handle };

	fz_tidy(c, OP_GRAPH_DESTROY, &a, sizeof(a));
}
/* --- objects ------------------------------------------------------------ */

/* A buffer size this thread can afford; 0 if it holds enough already. */
static inline uint64_t fz_bo_size(struct fz_ctx *c)
{
	uint64_t size;

	switch (fz_below(c, 32)) {
	case 0:
		size = fz_one_in(c, 4) ? FZ_MAX_BO : fz_range(c, 1, FZ_MAX_BO);
		break;
	case 1:
	case 2:
		size = fz_range(c, 1, 64) * fz.page;
		break;
	case 3:
	case 4:
	case 5:
		size = fz_range(c, fz.page, 16 * fz.page);
		break;
	case 6:
	case 7:
	case 8:
	case 9:
		size = fz_range(c, 1, fz.page - 1);
		break;
	default:
		size = fz_range(c, 1, 4) * fz.page;
		break;
	}
	if (c->live_bytes + FZ_MAX_BO > FZ_LIVE_BYTES)
		size = fz.page;
	return size;
}

static inline void gen_bo_create(struct fz_ctx *c)
{
	struct drm_weave_bo_create *a = &c->call.arg.bo_create;

	a->size = fz_bo_size(c);
	a->flags = fz_one_in(c, 5) ? DRM_WEAVE_BO_NO_MMAP : 0;
	a->handle = (uint32_t)fz_r(c);
	while (fz_mutate(c)) {
		switch (fz_below(c, 5)) {
		case 0:
			a->size = 0;
			fz_mut(c, "size 0", true);
			break;
		case 1:
			a->flags |= 2u << fz_below(c, 31);
			fz_mut(c, "unknown flag", true);
			break;
		case 2:
			a->size = fz.info.max_bo_size + fz_range(c, 1, 2 * fz.page);
			fz_mut(c, "size over max_bo_size", true);
			break;
		case 3:
			a->size = ~0ull - fz_below(c, 2 * fz.page);
			if (fz_one_in(c, 2))
				a->size = 1ull << fz_range(c, 33, 63);
			fz_mut(c, "size huge", true);
			break;
		default:
			/* A read-only argument leaks the buffer into the file. */
			a->size = fz.page;
			fz_mut_arg(c, true);
			break;
		}
	}
	c->call.v[0] = a->size;
	c->call.v[1] = a->flags;
	fz_detail(c, "size %#llx flags %#x", (unsigned long long)a->size,
		  a->flags);
}

static inline void check_bo_create(struct fz_ctx *c, int ret)
{
	struct drm_weave_bo_create *a = &c->call.arg.bo_create;
	uint64_t want = (c->call.v[0] + fz.page - 1) & ~(fz.page - 1);

	if (ret || c->call.argplace != FZ_PLACE_RW)
		return;
	if (a->size != want || !a->handle) {
		fz_fail(c, "BO_CREATE of %#llx bytes returned size %#llx handle %u",
			(unsigned long long)c->call.v[0],
			(unsigned long long)a->size, a->handle);
		return;
	}
	if (fz_find_bo(c, a->handle) >= 0 && !c->shared) {
		fz_fail(c, "BO_CREATE returned handle %u, which is live",
			a->handle);
		return;
	}
	fz_forget_bo(c, a->handle);
	if (c->nbo == FZ_BOS || c->live_bytes + a->size > FZ_LIVE_BYTES) {
		fz_close_bo(c, a->handle);
		return;
	}
	c->bo[c->nbo++] = (struct fz_bo){
		.handle = a->handle, .flags = (uint32_t)c->call.v[1],
		.size = a->size, .exact = !c->shared,
	};
	c->live_bytes += a->size;
}

static const struct fz_field fz_stream_create_fields[] = {
	FZ_FIELD(stream_create, flags, FZ_BREAK_NONZERO, 0, "flags"),
	FZ_FIELD(stream_create, pad, FZ_BREAK_NONZERO, 0, "pad"),
	FZ_FIELD(stream_create, priority, FZ_BREAK_ABOVE,
		 DRM_WEAVE_PRIORITY_HIGH, "unknown priority"),
};

static inline void gen_stream_create(struct fz_ctx *c)
{
	struct drm_weave_stream_create *a = &c->call.arg.stream_create;

	a->priority = (uint32_t)fz_below(c, 3);
	a->handle = (uint32_t)fz_r(c);
	c->call.strict = c->call.mode == FZ_VALID;
	FZ_MUT_FIELDS(c, fz_stream_create_fields, true);
	fz_detail(c, "priority %u", a->priority);
}

static inline void check_stream_create(struct fz_ctx *c, int ret)
{
	struct drm_weave_stream_create *a = &c->call.arg.stream_create;

	if (ret || c->call.argplace != FZ_PLACE_RW)
		return;
	if (!a->handle || (fz_find_stream(c, a->handle) >= 0 && !c->shared)) {
		fz_fail(c, "STREAM_CREATE returned handle %u", a->handle);
		return;
	}
	fz_forget_stream(c, a->handle);
	if (c->nst == FZ_STREAMS) {
		fz_destroy_stream(c, a->handle);
		return;
	}
	c->st[c->nst++] = (struct fz_stream){
		.handle = a->handle, .exact = !c->shared,
		.win = DRM_WEAVE_CAPTURE_NONE, .rec = -1,
	};
}

/* A stream the thread holds, or a handle that may be one. */
static inline uint32_t fz_stream_handle(struct fz_ctx *c)
{
	int i = fz_pick_stream(c);

	c->call.idx = i;
	return i < 0 || fz_one_in(c, 50) ? fz_any_handle(c) : c->st[i].handle;
}

static inline bool fz_known_stream(struct fz_ctx *c, uint32_t handle)
{
	return c->call.idx >= 0 && c->st[c->call.idx].handle == handle;
}

static const struct fz_field fz_stream_destroy_fields[] = {
	FZ_FIELD(stream_destroy, pad, FZ_BREAK_NONZERO, 0, "pad"),
	FZ_FIELD(stream_destroy, handle, FZ_BREAK_HANDLE, 0, "bad handle"),
};

static inline void gen_stream_destroy(struct fz_ctx *c)
{
	struct drm_weave_stream_destroy *a = &c->call.arg.stream_destroy;

	a->handle = fz_stream_handle(c);
	c->call.strict = c->call.mode == FZ_VALID &&
			 fz_known_stream(c, a->handle);
	FZ_MUT_FIELDS(c, fz_stream_destroy_fields, true);
	fz_detail(c, "handle %u", a->handle);
}

static inline void check_stream_destroy(struct fz_ctx *c, int ret)
{
	if (!ret)
		fz_forget_stream(c, c->call.arg.stream_destroy.handle);
}

static const struct fz_field fz_gem_close_fields[] = {
	FZ_FIELD(gem_close, handle, FZ_BREAK_HANDLE, 0, "bad handle"),
};

static inline void gen_gem_close(struct fz_ctx *c)
{
	struct drm_gem_close *a = &c->call.arg.gem_close;
	int i = fz_pick_bo(c);

	a->handle = i < 0 || fz_one_in(c, 50) ? fz_any_handle(c) :
		    c->bo[i].handle;
	c->call.strict = c->call.mode == FZ_VALID && i >= 0 &&
			 a->handle == c->bo[i].handle;
	FZ_MUT_FIELDS(c, fz_gem_close_fields, true);
	fz_detail(c, "handle %u", a->handle);
}

static inline void check_gem_close(struct fz_ctx *c, int ret)
{
	if (!ret)
		fz_forget_bo(c, c->call.arg.gem_close.handle);
}

static const struct fz_field fz_so_create_fields[] = {
	FZ_FIELD(so_create, flags, FZ_BREAK_BIT, 1, "unknown flag"),
};

static inline void gen_so_create(struct fz_ctx *c)
{
	struct drm_syncobj_create *a = &c->call.arg.so_create;

	a->flags = fz_below(c, 2) ? DRM_SYNCOBJ_CREATE_SIGNALED : 0;
	a->handle = (uint32_t)fz_r(c);
	c->call.strict = c->call.mode == FZ_VALID;
	FZ_MUT_FIELDS(c, fz_so_create_fields, true);
	fz_detail(c, "flags %#x", a->flags);
}

static inline void check_so_create(struct fz_ctx *c, int ret)
{
	uint32_t h = c->call.arg.so_create.handle;

	if (ret || c->call.argplace != FZ_PLACE_RW)
		return;
	if (!h) {
		fz_fail(c, "SYNCOBJ_CREATE returned handle 0");
		return;
	}
	fz_forget_so(c, h);
	if (c->nso == FZ_SYNCOBJS) {
		fz_destroy_so(c, h);
		return;
	}
	c->so[c->nso++] = (struct fz_syncobj){ .handle = h };
}

static inline uint32_t fz_so_handle(struct fz_ctx *c)
{
	int i = fz_pick_so(c);

	c->call.idx = i;
	return i < 0 || fz_one_in(c, 50) ? fz_any_handle(c) : c->so[i].handle;
}

static inline bool fz_known_so(struct fz_ctx *c, uint32_t handle)
{
	return c->call.idx >= 0 && c->so[c->call.idx].handle == handle;
}

static const struct fz_field fz_so_destroy_fields[] = {
	FZ_FIELD(so_destroy, pad, FZ_BREAK_NONZERO, 0, "pad"),
	FZ_FIELD(so_destroy, handle, FZ_BREAK_HANDLE, 0, "bad handle"),
};

static inline void gen_so_destroy(struct fz_ctx *c)
{
	struct drm_syncobj_destroy *a = &c->call.arg.so_destroy;

	a->handle = fz_so_handle(c);
	c->call.strict = c->call.mode == FZ_VALID &&
			 fz_known_so(c, a->handle);
	FZ_MUT_FIELDS(c, fz_so_destroy_fields, true);
	fz_detail(c, "handle %u", a->handle);
}

static inline void check_so_destroy(struct fz_ctx *c, int ret)
{
	/* A read-only argument: destroyed, then the copy back failed. */
	if (!ret || (ret == -EFAULT && c->call.argplace == FZ_PLACE_RO))
		fz_forget_so(c, c->call.arg.so_destroy.handle);
}

/*
 * The objects every suite makes and closes, as entries of its fz_ops:
 * the tidying up calls GEM_CLOSE, STREAM_DESTROY and SYNCOBJ_DESTROY.
 */
#define FZ_OBJECT_OPS \
	[OP_BO_CREATE] = { "BO_CREATE", DRM_IOCTL_WEAVE_BO_CREATE, \
			   errs_bo_create, 50, gen_bo_create, check_bo_create }, \
	[OP_GEM_CLOSE] = { "GEM_CLOSE", DRM_IOCTL_GEM_CLOSE, errs_gem_close, \
			   30, gen_gem_close, check_gem_close }, \
	[OP_STREAM_CREATE] = { "STREAM_CREATE", \
			       DRM_IOCTL_WEAVE_STREAM_CREATE, \
			       errs_stream_create, 40, gen_stream_create, \
			       check_stream_create }, \
	[OP_STREAM_DESTROY] = { "STREAM_DESTROY", \
				DRM_IOCTL_WEAVE_STREAM_DESTROY, \
				errs_stream_destroy, 25, gen_stream_destroy, \
				check_stream_destroy }, \
	[OP_SO_CREATE] = { "SYNCOBJ_CREATE", DRM_IOCTL_SYNCOBJ_CREATE, \
			   errs_so_create, 30, gen_so_create, \
			   check_so_create }, \
	[OP_SO_DESTROY] = { "SYNCOBJ_DESTROY", DRM_IOCTL_SYNCOBJ_DESTROY, \
			    errs_so_destroy, 20, gen_so_destroy, \
			    check_so_destroy }

#endif /* _WEAVE_FUZZ_CALL_H_ */
