/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The weave fuzzers' shared state: what a thread holds, the call being
 * made, the seeded randomness and the guarded memory the calls point into.
 *
 * Each fuzz_*.c suite fuzzes one family of ioctls (see fuzz_run.h for how
 * a run goes and what it checks); fuzz_call.h makes and judges calls and
 * fuzzes the objects every family needs (buffers, streams, syncobjs),
 * fuzz_task.h and fuzz_work.h build the work every family queues.  The
 * headers hold static inline functions: each suite is one file, as
 * kselftest's lib.mk builds them.
 */
#ifndef _WEAVE_FUZZ_H_
#define _WEAVE_FUZZ_H_

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "weave_test.h"
#include "weave_rand.h"

/*
 * WEAVE_FUZZ_CORE_GUARDS - Also send the syncobj calls that only fail
 * cleanly because weave guards the core's syncobj ioctls (fuzz_syncobj.c):
 * absurd handle counts and SYNCOBJ_TRANSFER with unknown flags.  On by
 * default; WEAVE_FUZZ_CORE_GUARDS=0 in the environment, or
 * -DWEAVE_FUZZ_CORE_GUARDS=0, leaves them out.
 */
#ifndef WEAVE_FUZZ_CORE_GUARDS
#define WEAVE_FUZZ_CORE_GUARDS	1
#endif

/* Seconds of fuzzing per suite in a run of `make check`, both tests. */
#define FZ_DEFAULT_SECONDS	8
#define FZ_MAX_SECONDS		600

/* What one thread holds at most. */
#define FZ_BOS		12
#define FZ_STREAMS	16
#define FZ_SYNCOBJS	12
#define FZ_FDS		8
#define FZ_DMABUFS	16
#define FZ_GRAPHS	8

/* Capture windows a thread opens at once, at most, when it means to. */
#define FZ_WINDOWS	3

/* Buffers: at most this big, and this much per thread. */
#define FZ_MAX_BO	(1u << 20)
#define FZ_LIVE_BYTES	(4u << 20)

/* Builder limits: beyond the uAPI's, so that "too many" can be built. */
#define FZ_MAX_TASKS	1024
#define FZ_MAX_BIND	10
#define FZ_MAX_SYNCS	70
#define FZ_UNI		128

/* Memory: arrays are built in scratch; straddling ones at its end. */
#define FZ_SCRATCH	(768u << 10)
#define FZ_STRADDLE	(128u << 10)
#define FZ_DATA		(1u << 20)
#define FZ_OUT		(16u << 10)
#define FZ_ZEROS	(64u << 10)

/* A call that must fail with -EINVAL and nothing else. */
static const int fz_want_einval[] = { EINVAL, 0 };

/* Handles no file hands out: they are allocated from 1 upwards. */
#define FZ_BAD_HANDLE	0x40000000u

/* The largest syncobj handle count that is not absurd. */
#define FZ_SANE_COUNT	4096u

/* The uAPI's limits that are not in the device info. */
#define FZ_MAX_DELAY_US	60000000u
#define FZ_MAX_ERRNO	4095u

/* The task of uAPI 1.0 to 1.2, before label and pad: still accepted. */
#define FZ_TASK_1_2	offsetof(struct drm_weave_task, label)

/* --- errors each ioctl may return -------------------------------------- */

/*
 * From the kernel-doc of uapi/weave_drm.h (and for the core's ioctls, from
 * the DRM core of 6.1 and 6.12), one list per ioctl the library fuzzes;
 * each suite has the lists of its own ioctls.  EINTR: a wait for the
 * client's lock, which another thread holds; -ERRESTARTSYS reaches a
 * handler without SA_RESTART as EINTR.
 */
static const int errs_bo_create[] = { EINVAL, E2BIG, ENOMEM, EINTR, 0 };
static const int errs_stream_create[] = { EINVAL, EPERM, ENOSPC, EINTR, 0 };
static const int errs_stream_destroy[] = { EINVAL, ENOENT, EINTR, 0 };
/*
 * ENOSPC and EBUSY also while the stream records (uAPI 1.5); EINPROGRESS
 * with DRM_WEAVE_ENQUEUE_FLUSH, queued but not all flushed (uAPI 1.8).
 */
static const int errs_enqueue[] = {
	EINVAL, ENOENT, ENOSPC, E2BIG, EBUSY, EINTR, ECANCELED, EFAULT, ENOMEM,
	EINPROGRESS, 0
};
static const int errs_flush[] = {
	EINVAL, ENOENT, EBUSY, ECANCELED, ENOMEM, EINTR, 0
};
static const int errs_wait[] = {
	EINVAL, ENOENT, EBUSY, ETIME, EINTR, ECANCELED, 0
};
static const int errs_gem_close[] = { EINVAL, 0 };
static const int errs_so_create[] = { EINVAL, ENOMEM, ENOSPC, 0 };
static const int errs_so_destroy[] = { EINVAL, 0 };
static const int errs_graph_destroy[] = { EINVAL, ENOENT, EINTR, 0 };

/* --- state ------------------------------------------------------------- */

enum fz_op {
	OP_QUERY, OP_BO_CREATE, OP_MMAP_OFFSET, OP_STREAM_CREATE,
	OP_STREAM_DESTROY, OP_ENQUEUE, OP_FLUSH, OP_ISOLATE, OP_WAIT,
	OP_STREAM_QUERY, OP_SET_PARAM, OP_CHECK, OP_READ,
	OP_CAPTURE, OP_REPLAY, OP_GRAPH_DESTROY,
	OP_GEM_CLOSE, OP_PRIME_EXPORT, OP_PRIME_IMPORT,
	OP_SO_CREATE, OP_SO_DESTROY, OP_SO_EXPORT, OP_SO_IMPORT, OP_SO_WAIT,
	OP_SO_TL_WAIT, OP_SO_RESET, OP_SO_SIGNAL, OP_SO_TL_SIGNAL,
	OP_SO_QUERY, OP_SO_TRANSFER,
	OP_RING_CREATE, OP_RING_DESTROY, OP_RING_ENTER,
	OP_GET_CAP, OP_VERSION, OP_FORBIDDEN, OP_UNKNOWN, OP_NOT_DRM,
	OP_NR
};

/* How a call is made: valid, one field broken, or several made random. */
enum fz_mode { FZ_VALID, FZ_MUTATE, FZ_RANDOM };

/* Where an argument or array lives. */
enum fz_place {
	FZ_PLACE_RW,		/* writable scratch memory */
	FZ_PLACE_RO,		/* a read-only view of the same memory */
	FZ_PLACE_BAD,		/* unmapped, PROT_NONE, kernel or wild */
	FZ_PLACE_STRADDLE,	/* runs from scratch into a PROT_NONE page */
	FZ_PLACE_KEEP,		/* the pointer was set by hand */
	FZ_PLACE_NULL,
};

/* What a pool descriptor is. */
enum fz_fd_kind { FZ_FD_SYNCOBJ, FZ_FD_SYNC_FILE };

struct fz_bo {
	uint32_t handle;
	uint32_t flags;
	uint64_t size;
	bool exact;		/* size and flags known for certain */
};

/*
 * The capture window a stream owns, as the thread last saw it: the
 * values of &enum drm_weave_capture_state, or not known.
 */
#define FZ_WIN_UNKNOWN	3

struct fz_stream {
	uint32_t handle;
	uint64_t enqueued;	/* tasks this thread saw enqueued */
	bool exact;		/* ... and no other could have */
	uint8_t win;		/* its window: DRM_WEAVE_CAPTURE_*, or unknown */
	int64_t rec;		/* tasks its window recorded; -1: not known */
};

/* A graph the thread sealed (uAPI 1.5). */
struct fz_graph {
	uint32_t handle;
	uint32_t ntasks;	/* tasks it recorded */
};

struct fz_syncobj {
	uint32_t handle;
	uint64_t point;		/* the last timeline point given to it */
};

struct fz_fd {
	int fd;
	enum fz_fd_kind kind;
};

/* One task of an enqueue being built, with what it points to. */
struct fz_task {
	struct drm_weave_task t;
	struct drm_weave_binding b[FZ_MAX_BIND];
	uint32_t nb;		/* bindings built (the count may claim more) */
	uint32_t bstride;
	enum fz_place bplace;
	uint32_t bextra;	/* 1 + binding whose extra bytes are not 0 */
	uint8_t uni[FZ_UNI];
	enum fz_place uplace;
	enum fz_place dplace;
};

/* The in-syncs of an ENQUEUE or a REPLAY being built. */
struct fz_syncs {
	struct drm_weave_sync sync[FZ_MAX_SYNCS];
	uint32_t ns;		/* in-syncs built */
	uint32_t stride;
	enum fz_place place;
	uint32_t extra;		/* 1 + sync whose extra bytes are not 0 */
};

struct fz_enq {
	struct drm_weave_enqueue a;
	struct fz_task task[FZ_MAX_TASKS];
	uint32_t nt;		/* tasks built */
	uint32_t tstride;
	enum fz_place tplace;
	uint32_t textra;	/* 1 + task whose extra bytes are not 0 */
	struct fz_syncs in;
	struct fz_syncs out;	/* with DRM_WEAVE_ENQUEUE_FLUSH (uAPI 1.8) */
};

union fz_arg {
	struct drm_weave_query query;
	struct drm_weave_bo_create bo_create;
	struct drm_weave_bo_mmap_offset mmap_offset;
	struct drm_weave_stream_create stream_create;
	struct drm_weave_stream_destroy stream_destroy;
	struct drm_weave_enqueue enqueue;
	struct drm_weave_flush flush;
	struct drm_weave_stream_isolate isolate;
	struct drm_weave_wait wait;
	struct drm_weave_stream_query stream_query;
	struct drm_weave_set_param set_param;
	struct drm_weave_check check;
	struct drm_weave_read read;
	struct drm_weave_capture capture;
	struct drm_weave_replay replay;
	struct drm_weave_graph_destroy graph_destroy;
	struct drm_weave_ring_create ring_create;
	struct drm_weave_ring_destroy ring_destroy;
	struct drm_weave_ring_enter ring_enter;
	struct drm_gem_close gem_close;
	struct drm_prime_handle prime;
	struct drm_syncobj_create so_create;
	struct drm_syncobj_destroy so_destroy;
	struct drm_syncobj_handle so_handle;
	struct drm_syncobj_wait so_wait;
	struct drm_syncobj_timeline_wait so_tl_wait;
	struct drm_syncobj_array so_array;
	struct drm_syncobj_timeline_array so_tl_array;
	struct drm_syncobj_transfer so_transfer;
	struct drm_get_cap get_cap;
	struct drm_version version;
	uint64_t raw[64];
};

/* The call being made, and what its checks need to know. */
struct fz_call {
	enum fz_op op;
	unsigned long req;
	union fz_arg arg;
	enum fz_place argplace;
	enum fz_mode mode;
	int nmut;		/* mutations still to apply */
	bool must_fail;
	const int *want;	/* the only errnos allowed, if not NULL */
	bool strict;		/* valid, on objects the thread holds */
	int fd;			/* the file the call goes to */
	char mut[128];
	const char *mut0;	/* the first mutation's name */
	char detail[320];
	/* For the op's check. */
	int idx;		/* pool index of the object used, or -1 */
	uint64_t v[4];
	uint32_t tmp_so;	/* a syncobj made for this call only */
};

/* What a thread did: counters only, summed over the threads of a run. */
struct fz_stats {
	uint64_t calls, fails_expected, eintr, reopens, side_files, hangs;
	uint64_t prepared, begun, sealed, sealed_tasks, doomed, abandoned;
	uint64_t recorded, replays, replayed_tasks;
	uint64_t per_op[OP_NR];
};

struct fz_ctx {
	int id;
	uint64_t rng;
	uint64_t iter;
	int fd;
	bool shared;		/* other threads use fd too */
	bool may_reopen;	/* closes and reopens fd now and then */
	int hangs_left;		/* DELAYs past the job timeout it may queue */

	struct fz_bo bo[FZ_BOS];
	unsigned int nbo;
	uint64_t live_bytes;
	struct fz_stream st[FZ_STREAMS];
	unsigned int nst;
	struct fz_syncobj so[FZ_SYNCOBJS];
	unsigned int nso;
	struct fz_graph gr[FZ_GRAPHS];
	unsigned int ngr;
	bool captured;		/* made a CAPTURE call on its file */
	struct fz_fd fds[FZ_FDS];
	unsigned int nfds;
	uint64_t sink;		/* bytes read from mappings go here */

	uint8_t *rw;		/* scratch, FZ_SCRATCH bytes, then PROT_NONE */
	uint8_t *ro;		/* the same memory, read-only, then PROT_NONE */
	size_t bump;
	uint8_t *data;		/* host-write bytes, FZ_DATA, then PROT_NONE */
	uint8_t *out;		/* where the kernel writes, FZ_OUT, then PROT_NONE */

	struct fz_enq *enq;
	struct fz_call call;

	struct fz_stats stat;
	struct {
		uint64_t iter;
		enum fz_op op;
		const char *mut;
	} ring[8];		/* the last calls, for the report */
};

static struct {
	uint64_t seed;
	uint64_t max_iters;
	bool core_guards;
	/* The ENQUEUE mutations of the suite (fuzz_submit.c), or NULL. */
	bool (*mut_enqueue)(struct fz_ctx *c, struct fz_enq *e);
	/*
	 * What the suite lets go of when a thread ends (fuzz_ring.c: its
	 * rings' mappings, which hold their file), or NULL.
	 */
	void (*ctx_fini)(struct fz_ctx *c);
	struct drm_weave_device_info info;
	uint64_t page;
	uint8_t *none;		/* a PROT_NONE page */
	uint8_t *zeros;		/* FZ_ZEROS read-only zero bytes, then PROT_NONE */
	int64_t deadline;
	atomic_int stop;
	atomic_ulong signals;
	atomic_int shared_captured;	/* a CAPTURE call on the shared file */
	pthread_mutex_t lock;
	char failure[4096];	/* the first failure; under lock */
	int dmabuf[FZ_DMABUFS];	/* shared by all threads; under lock */
	unsigned int ndmabuf;
} fz;

/*
 * An ioctl a suite fuzzes: its request (0: the generator sets it), the
 * errnos it may return, how often it is called, relative to the others,
 * and its generator and check.  Each suite defines fz_ops, indexed by
 * &enum fz_op; an op of weight 0 is not called.
 */
struct fz_opdesc {
	const char *name;
	unsigned long req;
	const int *errs;
	unsigned int weight;
	void (*gen)(struct fz_ctx *c);
	void (*check)(struct fz_ctx *c, int ret);
};

static const struct fz_opdesc fz_ops[OP_NR];

/* --- randomness ---------------------------------------------------------- */

static inline uint64_t fz_r(struct fz_ctx *c)
{
	return weave_rand64(&c->rng);
}

static inline uint64_t fz_below(struct fz_ctx *c, uint64_t n)
{
	return weave_rand_below(&c->rng, n);
}

static inline uint64_t fz_range(struct fz_ctx *c, uint64_t lo, uint64_t hi)
{
	return weave_rand_range(&c->rng, lo, hi);
}

static inline bool fz_one_in(struct fz_ctx *c, uint64_t n)
{
	return weave_rand_one_in(&c->rng, n);
}

/* A value that tends to sit on an edge. */
static inline uint64_t fz_edgy(struct fz_ctx *c)
{
	static const uint64_t edge[] = {
		0, 1, 2, 3, 4, 7, 8, 15, 16, 63, 64, 255, 256, 4095, 4096,
		65535, 65536, 0x7fffffff, 0x80000000, 0xffffffff,
		0x100000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
		~0ull - 1, ~0ull,
	};

	switch (fz_below(c, 3)) {
	case 0:
		return edge[fz_below(c, ARRAY_SIZE(edge))];
	case 1:
		return fz_below(c, 64);
	default:
		return fz_r(c) >> fz_below(c, 64);
	}
}

/* A handle that may or may not name something: small, 0 or wild. */
static inline uint32_t fz_any_handle(struct fz_ctx *c)
{
	switch (fz_below(c, 4)) {
	case 0:
		return 0;
	case 1:
		return (uint32_t)fz_edgy(c);
	default:
		return (uint32_t)fz_range(c, 1, 40);
	}
}

/* A handle that names nothing in any file. */
static inline uint32_t fz_bad_handle(struct fz_ctx *c)
{
	return FZ_BAD_HANDLE + (uint32_t)fz_below(c, 0x3fffffff);
}

/* --- memory -------------------------------------------------------------- */

/* @size bytes of @memfd (or anonymous memory) with a PROT_NONE page after. */
static inline uint8_t *fz_map_guarded(int memfd, size_t size, int prot)
{
	uint8_t *p;

	p = mmap(NULL, size + fz.page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (memfd >= 0) {
		if (mmap(p, size, prot, MAP_SHARED | MAP_FIXED, memfd, 0) ==
		    MAP_FAILED)
			return NULL;
	} else if (mprotect(p, size, prot)) {
		return NULL;
	}
	return p;
}

/* An address no access from user memory can succeed at. */
static inline uint64_t fz_bad_ptr(struct fz_ctx *c)
{
	switch (fz_below(c, 8)) {
	case 0:
		return 8;
	case 1:
		/* Below mmap_min_addr: never mapped. */
		return 0x1000 + fz_below(c, 0x8000);
	case 2:
		return (uintptr_t)fz.none + fz_below(c, fz.page);
	case 3:
		/* The guard page after this thread's scratch. */
		return (uintptr_t)c->rw + FZ_SCRATCH + fz_below(c, fz.page);
	case 4:
		return 0xffff888000000000ull + fz_below(c, 1 << 20);
	case 5:
		return 0x8000000000000000ull + fz_below(c, 1 << 20);
	case 6:
		return ~0ull - fz_below(c, 64);
	default:
		return (uintptr_t)c->out + FZ_OUT + fz_below(c, fz.page);
	}
}

/* @len bytes of scratch, 8-aligned; NULL when the scratch is used up. */
static inline uint8_t *fz_alloc(struct fz_ctx *c, size_t len)
{
	size_t at = (c->bump + 7) & ~(size_t)7;

	if (at + len > FZ_SCRATCH - FZ_STRADDLE)
		return NULL;
	c->bump = at + len;
	return c->rw + at;
}

/*
 * Put @len bytes at @src where @place says and return the user pointer;
 * @tail is how many of the last bytes a straddling copy leaves in the
 * PROT_NONE page.
 */
static inline uint64_t fz_put(struct fz_ctx *c, const void *src, size_t len,
			      enum fz_place place, size_t tail)
{
	uint8_t *dst;

	switch (place) {
	case FZ_PLACE_NULL:
		return 0;
	case FZ_PLACE_BAD:
		return fz_bad_ptr(c);
	case FZ_PLACE_STRADDLE:
		if (!len || len > FZ_STRADDLE)
			return fz_bad_ptr(c);
		if (!tail || tail > len)
			tail = 1;
		dst = c->rw + FZ_SCRATCH - (len - tail);
		memcpy(dst, src, len - tail);
		return (uintptr_t)dst;
	default:
		dst = fz_alloc(c, len);
		if (!dst)
			abort();	/* the builders stay well within */
		memcpy(dst, src, len);
		if (place == FZ_PLACE_RO)
			return (uintptr_t)(c->ro + (dst - c->rw));
		return (uintptr_t)dst;
	}
}

/*
 * Write @n elements of @esize bytes each from @src as a user array of
 * @stride bytes per element; element @extra - 1, if any, gets a non-zero
 * byte past @esize.  A stride the uAPI refuses before reading anything is
 * written as if it were @esize.
 */
static inline uint64_t fz_put_array(struct fz_ctx *c, const void *src,
				    size_t esize, uint32_t n, uint32_t stride,
				    uint32_t extra, enum fz_place place)
{
	size_t slot, len;
	uint8_t *buf;
	uint64_t ptr;
	uint32_t i;

	if (stride < esize || stride > DRM_WEAVE_MAX_STRIDE)
		stride = (uint32_t)esize;
	slot = stride;
	len = (size_t)n * slot;
	buf = calloc(1, len + 1);
	if (!buf)
		abort();
	for (i = 0; i < n; i++)
		memcpy(buf + i * slot, (const uint8_t *)src + i * esize, esize);
	if (extra && extra <= n && slot > esize)
		buf[(extra - 1) * slot + esize +
		    fz_below(c, slot - esize)] = (uint8_t)fz_range(c, 1, 255);
	ptr = fz_put(c, buf, len, place, fz_range(c, 1, slot));
	free(buf);
	return ptr;
}

/* A place for an array that must work: writable or read-only memory. */
static inline enum fz_place fz_good_place(struct fz_ctx *c)
{
	return fz_one_in(c, 8) ? FZ_PLACE_RO : FZ_PLACE_RW;
}

/* A stride for @esize-byte elements that the uAPI accepts. */
static inline uint32_t fz_good_stride(struct fz_ctx *c, uint32_t esize)
{
	if (!fz_one_in(c, 6))
		return esize;
	return esize + 8 * (uint32_t)fz_below(c, (DRM_WEAVE_MAX_STRIDE -
						  esize) / 8 + 1);
}

/* --- pools --------------------------------------------------------------- */

/*
 * The pools of buffers, streams, syncobjs and graphs a thread holds are
 * arrays of structs that each start with their handle: one index, search
 * and removal serves them all.
 */
#define FZ_PICK(c, pool, n)	((n) ? (int)fz_below((c), (n)) : -1)
#define FZ_FIND(pool, n, h)	fz_find((pool), sizeof((pool)[0]), (n), (h))
#define FZ_FORGET(pool, n, h)	fz_forget((pool), sizeof((pool)[0]), &(n), (h))

static inline int fz_find(const void *pool, size_t esize, unsigned int n,
			  uint32_t handle)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (*(const uint32_t *)((const uint8_t *)pool + i * esize) ==
		    handle)
			return (int)i;
	return -1;
}

/* Drops @handle's entry from a pool of @*n: the last one takes its place. */
static inline void fz_forget(void *pool, size_t esize, unsigned int *n,
			     uint32_t handle)
{
	int i = fz_find(pool, esize, *n, handle);

	if (i < 0)
		return;
	--*n;
	memmove((uint8_t *)pool + i * esize, (uint8_t *)pool + *n * esize,
		esize);
}

static inline int fz_pick_bo(struct fz_ctx *c)
{
	return FZ_PICK(c, c->bo, c->nbo);
}

static inline int fz_pick_stream(struct fz_ctx *c)
{
	return FZ_PICK(c, c->st, c->nst);
}

static inline int fz_pick_so(struct fz_ctx *c)
{
	return FZ_PICK(c, c->so, c->nso);
}

static inline int fz_pick_graph(struct fz_ctx *c)
{
	return FZ_PICK(c, c->gr, c->ngr);
}

static inline int fz_find_bo(struct fz_ctx *c, uint32_t handle)
{
	return FZ_FIND(c->bo, c->nbo, handle);
}

static inline int fz_find_stream(struct fz_ctx *c, uint32_t handle)
{
	return FZ_FIND(c->st, c->nst, handle);
}

static inline int fz_find_so(struct fz_ctx *c, uint32_t handle)
{
	return FZ_FIND(c->so, c->nso, handle);
}

static inline int fz_find_graph(struct fz_ctx *c, uint32_t handle)
{
	return FZ_FIND(c->gr, c->ngr, handle);
}

static inline void fz_forget_bo(struct fz_ctx *c, uint32_t handle)
{
	int i = fz_find_bo(c, handle);

	if (i >= 0)
		c->live_bytes -= c->bo[i].size;
	FZ_FORGET(c->bo, c->nbo, handle);
}

static inline void fz_forget_stream(struct fz_ctx *c, uint32_t handle)
{
	FZ_FORGET(c->st, c->nst, handle);
}

static inline void fz_forget_so(struct fz_ctx *c, uint32_t handle)
{
	FZ_FORGET(c->so, c->nso, handle);
}

static inline void fz_forget_graph(struct fz_ctx *c, uint32_t handle)
{
	FZ_FORGET(c->gr, c->ngr, handle);
}

/* Drops everything known about the thread's file (it was closed). */
static inline void fz_forget_file(struct fz_ctx *c)
{
	c->nbo = 0;
	c->nst = 0;
	c->nso = 0;
	c->ngr = 0;
	c->captured = false;
	c->live_bytes = 0;
}

static inline void fz_add_fd(struct fz_ctx *c, int fd, enum fz_fd_kind kind)
{
	unsigned int i;

	if (c->nfds == FZ_FDS) {
		i = (unsigned int)fz_below(c, FZ_FDS);
		close(c->fds[i].fd);
		c->fds[i] = c->fds[--c->nfds];
	}
	c->fds[c->nfds].fd = fd;
	c->fds[c->nfds++].kind = kind;
}

/* A descriptor of @kind the thread holds, or -1. */
static inline int fz_pick_fd(struct fz_ctx *c, enum fz_fd_kind kind)
{
	unsigned int i, start = (unsigned int)fz_below(c, FZ_FDS);

	for (i = 0; i < c->nfds; i++) {
		struct fz_fd *f = &c->fds[(start + i) % c->nfds];

		if (f->kind == kind)
			return f->fd;
	}
	return -1;
}

/* Shares a dma-buf with every thread; closes one if the pool is full. */
static inline void fz_share_dmabuf(struct fz_ctx *c, int fd)
{
	unsigned int i;

	pthread_mutex_lock(&fz.lock);
	if (fz.ndmabuf == FZ_DMABUFS) {
		i = (unsigned int)fz_below(c, FZ_DMABUFS);
		close(fz.dmabuf[i]);
		fz.dmabuf[i] = fz.dmabuf[--fz.ndmabuf];
	}
	fz.dmabuf[fz.ndmabuf++] = fd;
	pthread_mutex_unlock(&fz.lock);
}

/*
 * A shared dma-buf's descriptor and size; -1 if none.  Another thread may
 * close it at any time: the number may then name another file, or none.
 */
static inline int fz_pick_dmabuf(struct fz_ctx *c, uint64_t *size)
{
	int fd = -1;
	off_t end;

	pthread_mutex_lock(&fz.lock);
	if (fz.ndmabuf)
		fd = fz.dmabuf[fz_below(c, fz.ndmabuf)];
	pthread_mutex_unlock(&fz.lock);
	end = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	*size = end > 0 ? (uint64_t)end : 0;
	return fd;
}

#endif /* _WEAVE_FUZZ_H_ */
