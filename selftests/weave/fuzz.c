// SPDX-License-Identifier: GPL-2.0
/*
 * weave: a seeded, structure-aware fuzzer of the ioctls a weave render node
 * offers: weave's own, and the core's that a render node allows (GEM close,
 * PRIME, every syncobj ioctl, GET_CAP, VERSION), plus core ioctls it must
 * refuse and numbers nobody defines.
 *
 * Each iteration builds one call from what the thread holds (streams,
 * buffers, syncobjs, dma-buf, syncobj and sync_file descriptors): a valid
 * call, a valid call with one field made invalid, or a call with several
 * fields made random.  Pointers go to writable, read-only, unmapped or
 * PROT_NONE memory, or run from a readable page into a PROT_NONE one.
 * Several threads do this, on a shared file and on files of their own, and
 * now and then open a file, give it work and close it while the work runs;
 * a timer interrupts them all with SIGALRM, installed without SA_RESTART,
 * so calls that sleep return EINTR.
 *
 * Every result is checked: an errno the uAPI does not document for the
 * ioctl (for the core's ioctls: one the DRM core of neither test kernel
 * returns) fails the test, and so does success where the call was made
 * invalid.  On a file only one thread uses, a valid call on objects the
 * thread holds must succeed.  Afterwards every file must still run work
 * correctly, every stream's enqueued, executed and completed counts must
 * agree, the files' usage must come back to idle and the device's memory
 * usage to where it was.  A report of CHECK (uAPI 1.3) must be well formed:
 * its counts add up, and every entry written has an id, a negative errno
 * and private fields only where the OWN flag says so.
 *
 * Graph capture (uAPI 1.5): threads open capture windows on their streams,
 * begin them, record the launches they enqueue, end them into graphs and
 * replay those, with and without in-syncs and out-sync, and destroy them.
 * Every CAPTURE's out fields must describe the slot's window as its op and
 * errno say.  On a file of its own a thread asks the kernel whether a
 * stream records: an ENQUEUE's seqno then counts only the host writes it
 * queued, the recording grows by its launches, and FLUSH and WAIT fail with
 * -EBUSY exactly when the stream records.  A replay's seqno counts the
 * graph's tasks, and the owner's count grows by what a doomed window
 * recorded when BEGIN or END closes it (queued, to taint, not to run).
 * CHECK and READ may fail with -EBUSY while a window records.
 *
 * The seed is printed first.  WEAVE_FUZZ_SEED=S replays a run (a
 * single-threaded one call for call), WEAVE_FUZZ_SECONDS=N sets its length
 * (at most 600 s per run) and WEAVE_FUZZ_ITERS=N stops each thread after N
 * calls.  A failure prints the seed, the thread, the iteration and the
 * call.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "weave_test.h"
#include "weave_rand.h"

/*
 * WEAVE_FUZZ_CORE_GUARDS - Also send the two syncobj calls that only fail
 * cleanly once weave guards the core's syncobj ioctls (issue 8, part 5):
 * handle counts so large that the core's allocation warns (both kernels;
 * they must fail, with -ENOMEM or -EINVAL, and the lane fails on the
 * WARNING), and SYNCOBJ_TRANSFER with unknown flags (6.1 accepts them;
 * 6.12 refuses them but leaks a reference, which pins weave.ko so that
 * rmmod and the test's refcount check fail), which must fail with -EINVAL
 * when both syncobjs exist.  On by default; WEAVE_FUZZ_CORE_GUARDS=0 in
 * the environment, or -DWEAVE_FUZZ_CORE_GUARDS=0, leaves them out.
 */
#ifndef WEAVE_FUZZ_CORE_GUARDS
#define WEAVE_FUZZ_CORE_GUARDS	1
#endif

/* Seconds of fuzzing per run of `make check`, over both tests. */
#define FZ_DEFAULT_SECONDS	20
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

/* Ranges one CHECK is built with at most. */
#define FZ_CHECK_RANGES	16

/* --- errors each ioctl may return -------------------------------------- */

/* From the kernel-doc of uapi/weave_drm.h, one list per ioctl. */
/* EINTR: a wait for the client's lock, which another thread holds. */
static const int errs_query[] = { EINVAL, EFAULT, EINTR, 0 };
static const int errs_bo_create[] = { EINVAL, E2BIG, ENOMEM, EINTR, 0 };
static const int errs_mmap_offset[] = { EINVAL, ENOENT, EPERM, 0 };
static const int errs_stream_create[] = { EINVAL, EPERM, ENOSPC, EINTR, 0 };
static const int errs_stream_destroy[] = { EINVAL, ENOENT, EINTR, 0 };
/* ENOSPC and EBUSY also while the stream records (uAPI 1.5). */
static const int errs_enqueue[] = {
	EINVAL, ENOENT, ENOSPC, E2BIG, EBUSY, EINTR, ECANCELED, EFAULT, ENOMEM, 0
};

static const int errs_flush[] = {
	EINVAL, ENOENT, EBUSY, ECANCELED, ENOMEM, EINTR, 0
};
static const int errs_isolate[] = {
	EINVAL, ENOENT, EALREADY, ENOMEM, EINTR, 0
};
/* -ERRESTARTSYS reaches a handler without SA_RESTART as EINTR. */
static const int errs_wait[] = {
	EINVAL, ENOENT, EBUSY, ETIME, EINTR, ECANCELED, 0
};
static const int errs_stream_query[] = { EINVAL, ENOENT, EINTR, 0 };
static const int errs_set_param[] = { EINVAL, EBUSY, EINTR, 0 };
/* EBUSY: a buffer that a capture window records (uAPI 1.5). */
static const int errs_check[] = {
	EINVAL, ENOENT, EBUSY, ENOSPC, EFAULT, ENOMEM, EINTR, 0
};
static const int errs_read[] = {
	EINVAL, ENOENT, EBUSY, EIO, ENOSPC, ETIME, EINTR, EFAULT, ENOMEM, 0
};
/*
 * Graph capture (uAPI 1.5).  -ENODEV is left out, as for READ and WAIT:
 * the fuzzer never unplugs the device.  CAPTURE's -ERESTARTSYS (a drain)
 * is EINTR here.
 */
static const int errs_capture[] = {
	EINVAL, ENOENT, EBUSY, EBADFD, EIO, ECANCELED, ENOSPC, EINTR, ENOMEM, 0
};
static const int errs_replay[] = {
	EINVAL, ENOENT, EBUSY, ECANCELED, ENOMEM, EFAULT, EINTR, 0
};
static const int errs_graph_destroy[] = { EINVAL, ENOENT, EINTR, 0 };

/* From the DRM core of 6.1 and 6.12 (drm_ioctl.c, drm_prime.c, ...). */
static const int errs_gem_close[] = { EINVAL, 0 };
static const int errs_prime_export[] = { EINVAL, ENOENT, ENOMEM, EMFILE, 0 };
static const int errs_prime_import[] = { EINVAL, EBADF, ENOMEM, ENOSPC, 0 };
static const int errs_so_create[] = { EINVAL, ENOMEM, ENOSPC, 0 };
static const int errs_so_destroy[] = { EINVAL, 0 };
static const int errs_so_export[] = { EINVAL, ENOENT, EMFILE, ENOMEM, 0 };
static const int errs_so_import[] = { EINVAL, ENOENT, ENOMEM, ENOSPC, 0 };
static const int errs_so_wait[] = {
	EINVAL, ENOENT, EFAULT, ETIME, EINTR, ENOMEM, 0
};

static const int errs_so_array[] = { EINVAL, ENOENT, EFAULT, ENOMEM, 0 };
static const int errs_so_transfer[] = {
	EINVAL, ENOENT, ETIME, EINTR, ENOMEM, 0
};

static const int errs_so_eventfd[] = { EINVAL, ENOENT, EBADF, ENOMEM, 0 };
static const int errs_get_cap[] = { EINVAL, EOPNOTSUPP, 0 };
static const int errs_version[] = { EFAULT, 0 };
/* Core ioctls a render node refuses, and numbers nothing defines. */
static const int errs_forbidden[] = { EACCES, EINVAL, EOPNOTSUPP, 0 };
static const int errs_unknown[] = { EINVAL, 0 };
static const int errs_not_drm[] = { ENOTTY, 0 };

/* DRM_IOCTL_SYNCOBJ_EVENTFD (6.6 on), which the libdrm headers lack. */
struct fz_syncobj_eventfd {
	uint32_t handle;
	uint32_t flags;
	uint64_t point;
	int32_t fd;
	uint32_t pad;
};

#define FZ_IOCTL_SYNCOBJ_EVENTFD DRM_IOWR(0xCF, struct fz_syncobj_eventfd)

/* Core ioctls that are not DRM_RENDER_ALLOW on either kernel. */
static const uint8_t fz_forbidden_nr[] = {
	0x02, 0x05, 0x0a, 0x0b, 0x11, 0x1e, 0x1f, 0xa0, 0xb2, 0xbc, 0xbd,
};

/* --- state ------------------------------------------------------------- */

enum fz_op {
	OP_QUERY, OP_BO_CREATE, OP_MMAP_OFFSET, OP_STREAM_CREATE,
	OP_STREAM_DESTROY, OP_ENQUEUE, OP_FLUSH, OP_ISOLATE, OP_WAIT,
	OP_STREAM_QUERY, OP_SET_PARAM, OP_CHECK, OP_READ,
	OP_CAPTURE, OP_REPLAY, OP_GRAPH_DESTROY,
	OP_GEM_CLOSE, OP_PRIME_EXPORT, OP_PRIME_IMPORT,
	OP_SO_CREATE, OP_SO_DESTROY, OP_SO_EXPORT, OP_SO_IMPORT, OP_SO_WAIT,
	OP_SO_TL_WAIT, OP_SO_RESET, OP_SO_SIGNAL, OP_SO_TL_SIGNAL,
	OP_SO_QUERY, OP_SO_TRANSFER, OP_SO_EVENTFD,
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

struct fz_enq {
	struct drm_weave_enqueue a;
	struct fz_task task[FZ_MAX_TASKS];
	uint32_t nt;		/* tasks built */
	uint32_t tstride;
	enum fz_place tplace;
	uint32_t textra;	/* 1 + task whose extra bytes are not 0 */
	struct drm_weave_sync sync[FZ_MAX_SYNCS];
	uint32_t ns;		/* in-syncs built */
	uint32_t sstride;
	enum fz_place splace;
	uint32_t sextra;
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
	struct fz_syncobj_eventfd so_eventfd;
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
	int evfd;
	uint64_t sink;		/* bytes read from mappings go here */

	uint8_t *rw;		/* scratch, FZ_SCRATCH bytes, then PROT_NONE */
	uint8_t *ro;		/* the same memory, read-only, then PROT_NONE */
	size_t bump;
	uint8_t *data;		/* host-write bytes, FZ_DATA, then PROT_NONE */
	uint8_t *out;		/* where the kernel writes, FZ_OUT, then PROT_NONE */

	struct fz_enq *enq;
	struct fz_call call;

	/* Statistics. */
	uint64_t calls, fails_expected, eintr, reopens, side_files, hangs;
	uint64_t per_op[OP_NR];
	uint64_t prepared, begun, sealed, sealed_tasks, doomed, abandoned;
	uint64_t recorded, replays, replayed_tasks;
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

struct fz_opdesc {
	const char *name;
	const int *errs;
	unsigned int weight;
	void (*gen)(struct fz_ctx *c);
	void (*check)(struct fz_ctx *c, int ret);
};

static const struct fz_opdesc fz_ops[OP_NR];

/* --- randomness ---------------------------------------------------------- */

static uint64_t fz_r(struct fz_ctx *c)
{
	return weave_rand64(&c->rng);
}

static uint64_t fz_below(struct fz_ctx *c, uint64_t n)
{
	return weave_rand_below(&c->rng, n);
}

static uint64_t fz_range(struct fz_ctx *c, uint64_t lo, uint64_t hi)
{
	return weave_rand_range(&c->rng, lo, hi);
}

static bool fz_one_in(struct fz_ctx *c, uint64_t n)
{
	return weave_rand_one_in(&c->rng, n);
}

/* A value that tends to sit on an edge. */
static uint64_t fz_edgy(struct fz_ctx *c)
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
static uint32_t fz_any_handle(struct fz_ctx *c)
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
static uint32_t fz_bad_handle(struct fz_ctx *c)
{
	return FZ_BAD_HANDLE + (uint32_t)fz_below(c, 0x3fffffff);
}

/* --- memory -------------------------------------------------------------- */

/* @size bytes of @memfd (or anonymous memory) with a PROT_NONE page after. */
static uint8_t *fz_map_guarded(int memfd, size_t size, int prot)
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
static uint64_t fz_bad_ptr(struct fz_ctx *c)
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
static uint8_t *fz_alloc(struct fz_ctx *c, size_t len)
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
static uint64_t fz_put(struct fz_ctx *c, const void *src, size_t len,
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
static uint64_t fz_put_array(struct fz_ctx *c, const void *src, size_t esize,
			     uint32_t n, uint32_t stride, uint32_t extra,
			     enum fz_place place)
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
static enum fz_place fz_good_place(struct fz_ctx *c)
{
	return fz_one_in(c, 8) ? FZ_PLACE_RO : FZ_PLACE_RW;
}

/* A stride for @esize-byte elements that the uAPI accepts. */
static uint32_t fz_good_stride(struct fz_ctx *c, uint32_t esize)
{
	if (!fz_one_in(c, 6))
		return esize;
	return esize + 8 * (uint32_t)fz_below(c, (DRM_WEAVE_MAX_STRIDE -
						  esize) / 8 + 1);
}

/* --- pools --------------------------------------------------------------- */

static int fz_pick_bo(struct fz_ctx *c)
{
	return c->nbo ? (int)fz_below(c, c->nbo) : -1;
}

static int fz_pick_stream(struct fz_ctx *c)
{
	return c->nst ? (int)fz_below(c, c->nst) : -1;
}

static int fz_pick_so(struct fz_ctx *c)
{
	return c->nso ? (int)fz_below(c, c->nso) : -1;
}

static int fz_pick_graph(struct fz_ctx *c)
{
	return c->ngr ? (int)fz_below(c, c->ngr) : -1;
}

static int fz_find_bo(struct fz_ctx *c, uint32_t handle)
{
	unsigned int i;

	for (i = 0; i < c->nbo; i++)
		if (c->bo[i].handle == handle)
			return (int)i;
	return -1;
}

static int fz_find_stream(struct fz_ctx *c, uint32_t handle)
{
	unsigned int i;

	for (i = 0; i < c->nst; i++)
		if (c->st[i].handle == handle)
			return (int)i;
	return -1;
}

static int fz_find_so(struct fz_ctx *c, uint32_t handle)
{
	unsigned int i;

	for (i = 0; i < c->nso; i++)
		if (c->so[i].handle == handle)
			return (int)i;
	return -1;
}

static int fz_find_graph(struct fz_ctx *c, uint32_t handle)
{
	unsigned int i;

	for (i = 0; i < c->ngr; i++)
		if (c->gr[i].handle == handle)
			return (int)i;
	return -1;
}

static void fz_forget_bo(struct fz_ctx *c, uint32_t handle)
{
	int i = fz_find_bo(c, handle);

	if (i < 0)
		return;
	c->live_bytes -= c->bo[i].size;
	c->bo[i] = c->bo[--c->nbo];
}

static void fz_forget_stream(struct fz_ctx *c, uint32_t handle)
{
	int i = fz_find_stream(c, handle);

	if (i >= 0)
		c->st[i] = c->st[--c->nst];
}

static void fz_forget_so(struct fz_ctx *c, uint32_t handle)
{
	int i = fz_find_so(c, handle);

	if (i >= 0)
		c->so[i] = c->so[--c->nso];
}

static void fz_forget_graph(struct fz_ctx *c, uint32_t handle)
{
	int i = fz_find_graph(c, handle);

	if (i >= 0)
		c->gr[i] = c->gr[--c->ngr];
}

/* Drops everything known about the thread's file (it was closed). */
static void fz_forget_file(struct fz_ctx *c)
{
	c->nbo = 0;
	c->nst = 0;
	c->nso = 0;
	c->ngr = 0;
	c->captured = false;
	c->live_bytes = 0;
}

static void fz_add_fd(struct fz_ctx *c, int fd, enum fz_fd_kind kind)
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
static int fz_pick_fd(struct fz_ctx *c, enum fz_fd_kind kind)
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
static void fz_share_dmabuf(struct fz_ctx *c, int fd)
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
static int fz_pick_dmabuf(struct fz_ctx *c, uint64_t *size)
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

/* --- calls and checks ---------------------------------------------------- */

static int64_t fz_now(void)
{
	return weave_test_now();
}

static bool fz_in(const int *errs, int err)
{
	for (; *errs; errs++)
		if (*errs == err)
			return true;
	return false;
}

static const char *fz_errname(int err)
{
	const char *name = err ? strerrorname_np(err) : "0";

	return name ? name : "E?";
}

/* The argument struct's bytes, in hex, into the call's detail. */
static void fz_detail_hex(struct fz_ctx *c, size_t size)
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
static void __attribute__((format(printf, 2, 3)))
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
			unsigned int k = (unsigned int)((c->calls + 8 - i) % 8);

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

static void __attribute__((format(printf, 2, 3)))
fz_detail(struct fz_ctx *c, const char *fmt, ...)
{
	size_t len = strlen(c->call.detail);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->call.detail + len, sizeof(c->call.detail) - len, fmt, ap);
	va_end(ap);
}

/* Starts a call of @op on the thread's file: picks valid, mutated, random. */
static void fz_begin(struct fz_ctx *c, enum fz_op op, unsigned long req)
{
	uint64_t r = fz_below(c, 100);

	memset(&c->call, 0, sizeof(c->call));
	c->call.op = op;
	c->call.req = req;
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
static bool fz_mutate(struct fz_ctx *c)
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
static void fz_mut(struct fz_ctx *c, const char *name, bool invalid)
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
static bool fz_write_only(unsigned long req)
{
	return _IOC_DIR(req) == _IOC_WRITE;
}

/*
 * Moves the argument to where it cannot be read, or cannot be written
 * back (read-only: fails only ioctls that copy their argument back; not
 * for those that make descriptors, which would then leak unseen).
 */
static void fz_mut_arg(struct fz_ctx *c, bool may_be_ro)
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
static int fz_issue(struct fz_ctx *c)
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

	c->ring[c->calls % 8].iter = c->iter;
	c->ring[c->calls % 8].op = c->call.op;
	c->ring[c->calls % 8].mut = c->call.mut0;
	ret = ioctl(c->call.fd, c->call.req, argp) ? -errno : 0;
	c->calls++;
	c->per_op[c->call.op]++;
	if (ret == -EINTR)
		c->eintr++;
	if (ret && c->call.must_fail)
		c->fails_expected++;

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
	return ret;
}

/* Issues a call the fuzzer needs to succeed (tidying up, say). */
static int fz_tidy(struct fz_ctx *c, enum fz_op op, unsigned long req,
		   const void *arg, size_t size)
{
	memset(&c->call, 0, sizeof(c->call));
	c->call.op = op;
	c->call.req = req;
	c->call.fd = c->fd;
	c->call.idx = -1;
	memcpy(&c->call.arg, arg, size);
	fz_mut(c, "tidy", false);
	c->call.strict = true;
	return fz_issue(c);
}

static void fz_close_bo(struct fz_ctx *c, uint32_t handle)
{
	struct drm_gem_close a = { .handle = handle };

	fz_tidy(c, OP_GEM_CLOSE, DRM_IOCTL_GEM_CLOSE, &a, sizeof(a));
}

static void fz_destroy_stream(struct fz_ctx *c, uint32_t handle)
{
	struct drm_weave_stream_destroy a = { .handle = handle };

	fz_tidy(c, OP_STREAM_DESTROY, DRM_IOCTL_WEAVE_STREAM_DESTROY, &a,
		sizeof(a));
}

static void fz_destroy_so(struct fz_ctx *c, uint32_t handle)
{
	struct drm_syncobj_destroy a = { .handle = handle };

	fz_tidy(c, OP_SO_DESTROY, DRM_IOCTL_SYNCOBJ_DESTROY, &a, sizeof(a));
}

static void fz_destroy_graph(struct fz_ctx *c, uint32_t handle)
{
	struct drm_weave_graph_destroy a = { .graph = handle };

	fz_tidy(c, OP_GRAPH_DESTROY, DRM_IOCTL_WEAVE_GRAPH_DESTROY, &a,
		sizeof(a));
}

/* --- weave ioctls -------------------------------------------------------- */

static uint32_t fz_query_size(uint32_t type)
{
	switch (type) {
	case DRM_WEAVE_QUERY_DEVICE_INFO:
		return sizeof(struct drm_weave_device_info);
	case DRM_WEAVE_QUERY_MEMORY_USAGE:
		return sizeof(struct drm_weave_memory_usage);
	default:
		return sizeof(struct drm_weave_client_usage);
	}
}

static void gen_query(struct fz_ctx *c)
{
	struct drm_weave_query *a = &c->call.arg.query;
	uint32_t ksize, off;

	a->type = (uint32_t)fz_below(c, 3);
	ksize = fz_query_size(a->type);
	switch (fz_below(c, 4)) {
	case 0:
		a->size = 0;
		break;
	case 1:
		a->size = (uint32_t)fz_range(c, 1, ksize);
		break;
	case 2:
		a->size = (uint32_t)fz_range(c, ksize, 4096);
		break;
	default:
		a->size = ksize;
		break;
	}
	off = (uint32_t)fz_below(c, FZ_OUT - a->size + 1);
	a->pointer = (uintptr_t)c->out + off;
	while (fz_mutate(c)) {
		switch (fz_below(c, 6)) {
		case 0:
			a->type = 3 + (uint32_t)fz_below(c, 100);
			if (fz_one_in(c, 4))
				a->type = (uint32_t)fz_edgy(c) | 4;
			fz_mut(c, "unknown type", true);
			break;
		case 1:
			a->size = a->size ?: 1;
			a->pointer = fz_bad_ptr(c);
			fz_mut(c, "pointer unmapped", true);
			break;
		case 2:
			a->size = a->size ?: 1;
			a->pointer = (uintptr_t)c->ro + fz_below(c, 4096);
			fz_mut(c, "pointer read-only", true);
			break;
		case 3:
			/* Runs past the out buffer into its guard page. */
			a->size = (uint32_t)fz_range(c, 1, 0xffffffff);
			if (a->size <= FZ_OUT)
				a->size = FZ_OUT + 1;
			a->pointer = (uintptr_t)c->out + FZ_OUT -
				     fz_below(c, FZ_OUT);
			if (a->pointer + a->size <= (uintptr_t)c->out + FZ_OUT)
				a->pointer = (uintptr_t)c->out + FZ_OUT - 1;
			fz_mut(c, "size runs into PROT_NONE", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	c->call.v[0] = a->size;
	c->call.v[1] = a->pointer;
	/* Poison, to see which bytes the kernel writes. */
	if (a->pointer >= (uintptr_t)c->out &&
	    a->pointer <= (uintptr_t)c->out + FZ_OUT &&
	    a->size <= (uintptr_t)c->out + FZ_OUT - a->pointer)
		memset((void *)(uintptr_t)a->pointer, 0xa5, a->size);
	c->call.strict = c->call.mode == FZ_VALID;
	fz_detail(c, "type %u size %u", a->type, a->size);
}

static void check_query(struct fz_ctx *c, int ret)
{
	struct drm_weave_query *a = &c->call.arg.query;
	uint32_t in = (uint32_t)c->call.v[0], ksize, n, i;
	const uint8_t *p = (const uint8_t *)(uintptr_t)c->call.v[1];

	if (ret || c->call.argplace != FZ_PLACE_RW)
		return;
	ksize = fz_query_size(a->type);
	if (a->size != ksize) {
		fz_fail(c, "QUERY type %u set size %u, not %u", a->type,
			a->size, ksize);
		return;
	}
	n = in < ksize ? in : ksize;
	for (i = n; i < in; i++) {
		if (p[i]) {
			fz_fail(c, "QUERY left byte %u of %u non-zero (%#x)",
				i, in, p[i]);
			return;
		}
	}
	if (a->type == DRM_WEAVE_QUERY_DEVICE_INFO && in >= ksize &&
	    memcmp(p, &fz.info, ksize))
		fz_fail(c, "QUERY device info changed");
	if (a->type == DRM_WEAVE_QUERY_CLIENT_USAGE && in >= ksize) {
		struct drm_weave_client_usage u;

		memcpy(&u, p, sizeof(u));
		if (u.kernel_bytes != u.ring_bytes + u.job_bytes +
		    u.gate_bytes + u.arena_bytes + u.alone_bytes)
			fz_fail(c, "client usage: kernel_bytes %llu is not the sum of its parts",
				(unsigned long long)u.kernel_bytes);
		if (u.queued_tasks > u.pending_tasks)
			fz_fail(c, "client usage: %llu queued of %llu pending",
				(unsigned long long)u.queued_tasks,
				(unsigned long long)u.pending_tasks);
	}
}

/* A buffer size this thread can afford; 0 if it holds enough already. */
static uint64_t fz_bo_size(struct fz_ctx *c)
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

static void gen_bo_create(struct fz_ctx *c)
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

static void check_bo_create(struct fz_ctx *c, int ret)
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

static void gen_mmap_offset(struct fz_ctx *c)
{
	struct drm_weave_bo_mmap_offset *a = &c->call.arg.mmap_offset;
	int i = fz_pick_bo(c);

	a->handle = i < 0 ? fz_any_handle(c) : c->bo[i].handle;
	a->offset = fz_r(c);
	c->call.idx = i;
	c->call.strict = i >= 0 && c->call.mode == FZ_VALID &&
			 !(c->bo[i].flags & DRM_WEAVE_BO_NO_MMAP);
	while (fz_mutate(c)) {
		switch (fz_below(c, 3)) {
		case 0:
			a->pad = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad", true);
			break;
		case 1:
			a->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad handle", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "handle %u", a->handle);
}

static void check_mmap_offset(struct fz_ctx *c, int ret)
{
	struct drm_weave_bo_mmap_offset *a = &c->call.arg.mmap_offset;
	struct fz_bo *bo = c->call.idx >= 0 ? &c->bo[c->call.idx] : NULL;
	size_t len;
	void *map;

	if (!bo || c->shared || !bo->exact || c->call.mode != FZ_VALID ||
	    c->call.argplace != FZ_PLACE_RW)
		return;
	if (bo->flags & DRM_WEAVE_BO_NO_MMAP) {
		if (ret != -EPERM)
			fz_fail(c, "MMAP_OFFSET of a NO_MMAP buffer returned %s, not EPERM",
				fz_errname(-ret));
		return;
	}
	if (ret)
		return;
	if (!a->offset || a->offset & (fz.page - 1)) {
		fz_fail(c, "MMAP_OFFSET returned offset %#llx",
			(unsigned long long)a->offset);
		return;
	}
	if (!fz_one_in(c, 3))
		return;
	/* A mapping of at most the buffer works; a longer one is refused. */
	if (fz_one_in(c, 4)) {
		len = bo->size + fz_range(c, 1, 4) * fz.page;
		map = mmap(NULL, len, PROT_READ, MAP_SHARED, c->fd, a->offset);
		if (map != MAP_FAILED || errno != EINVAL)
			fz_fail(c, "mmap of %zu bytes of a %llu-byte buffer: %s",
				len, (unsigned long long)bo->size,
				map == MAP_FAILED ? strerror(errno) : "mapped");
		if (map != MAP_FAILED)
			munmap(map, len);
		return;
	}
	len = fz_range(c, 1, bo->size / fz.page) * fz.page;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd,
		   a->offset);
	if (map == MAP_FAILED) {
		fz_fail(c, "mmap of %zu bytes of a %llu-byte buffer: %s", len,
			(unsigned long long)bo->size, strerror(errno));
		return;
	}
	/* Reading is all: the engine may be writing the buffer. */
	c->sink += ((uint8_t *)map)[0] + ((uint8_t *)map)[len - 1];
	munmap(map, len);
}

static void gen_stream_create(struct fz_ctx *c)
{
	struct drm_weave_stream_create *a = &c->call.arg.stream_create;

	a->priority = (uint32_t)fz_below(c, 3);
	a->handle = (uint32_t)fz_r(c);
	c->call.strict = c->call.mode == FZ_VALID;
	while (fz_mutate(c)) {
		switch (fz_below(c, 4)) {
		case 0:
			a->flags = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "flags", true);
			break;
		case 1:
			a->pad = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad", true);
			break;
		case 2:
			a->priority = (uint32_t)fz_range(c, 3, 0xffffffff);
			fz_mut(c, "unknown priority", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "priority %u", a->priority);
}

static void check_stream_create(struct fz_ctx *c, int ret)
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
static uint32_t fz_stream_handle(struct fz_ctx *c)
{
	int i = fz_pick_stream(c);

	c->call.idx = i;
	return i < 0 || fz_one_in(c, 50) ? fz_any_handle(c) : c->st[i].handle;
}

static bool fz_known_stream(struct fz_ctx *c, uint32_t handle)
{
	return c->call.idx >= 0 && c->st[c->call.idx].handle == handle;
}

static void gen_stream_destroy(struct fz_ctx *c)
{
	struct drm_weave_stream_destroy *a = &c->call.arg.stream_destroy;

	a->handle = fz_stream_handle(c);
	c->call.strict = c->call.mode == FZ_VALID &&
			 fz_known_stream(c, a->handle);
	while (fz_mutate(c)) {
		switch (fz_below(c, 3)) {
		case 0:
			a->pad = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad", true);
			break;
		case 1:
			a->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad handle", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "handle %u", a->handle);
}

static void check_stream_destroy(struct fz_ctx *c, int ret)
{
	if (!ret)
		fz_forget_stream(c, c->call.arg.stream_destroy.handle);
}

/* --- capture windows (uAPI 1.5) ------------------------------------------ */

/*
 * What the thread knows of its streams' windows comes from the out fields
 * of CAPTURE, which report the window of the stream's slot: one window
 * per slot, owned by one of its streams.  That steers the generators;
 * the checks ask the kernel (CAPTURE QUERY) where they need the truth.
 */

static uint32_t fz_slot(uint32_t stream)
{
	return stream % fz.info.max_streams;
}

/*
 * The window of @stream's slot is as @q reports it, or was just @closed:
 * the thread's streams on that slot learn what they own.
 */
static void fz_window_seen(struct fz_ctx *c, uint32_t stream,
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
static void fz_window_lost(struct fz_ctx *c, uint32_t stream)
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
static int fz_pick_window(struct fz_ctx *c, uint8_t state)
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
static int fz_pick_slotmate(struct fz_ctx *c)
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
static unsigned int fz_windows_open(struct fz_ctx *c)
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
static bool fz_records(struct fz_ctx *c, uint32_t stream,
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

/* --- ENQUEUE ------------------------------------------------------------- */

/* A range of @size bytes (@align-aligned offset) within buffer @bo. */
static struct drm_weave_binding fz_range_of(struct fz_ctx *c,
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
static bool fz_crosses(const struct drm_weave_binding *a,
		       const struct drm_weave_binding *b)
{
	return a->handle == b->handle &&
	       (a->offset != b->offset || a->size != b->size) &&
	       a->offset < b->offset + b->size &&
	       b->offset < a->offset + a->size;
}

/* A size for a task's range: small mostly, a multiple of @unit, <= @max. */
static uint64_t fz_task_size(struct fz_ctx *c, uint64_t max, uint64_t unit)
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
static uint32_t fz_access(struct fz_ctx *c, uint32_t must)
{
	if (fz_one_in(c, 4))
		must |= DRM_WEAVE_ACCESS_READ | DRM_WEAVE_ACCESS_WRITE;
	return must;
}

static void fz_set_u32(struct fz_task *t, uint32_t v, uint32_t len)
{
	memset(t->uni, 0, sizeof(t->uni));
	memcpy(t->uni, &v, 4);
	t->t.uniforms_size = len;
	t->uplace = FZ_PLACE_RW;
}

/* Builds task @t as a valid task of a random kind. */
static void fz_build_task(struct fz_ctx *c, struct fz_task *t, bool noop_only)
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
static void fz_build_hang(struct fz_ctx *c, struct fz_task *t)
{
	uint64_t us = fz.info.job_timeout_ms * 1000ull + 500000;

	fz_build_task(c, t, true);
	t->t.kernel = DRM_WEAVE_KERNEL_DELAY;
	fz_set_u32(t, (uint32_t)(us < FZ_MAX_DELAY_US ? us : FZ_MAX_DELAY_US),
		   4);
}

/* Writes the enqueue's arrays to memory and points its argument at them. */
static void fz_render_enqueue(struct fz_ctx *c, struct fz_enq *e)
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
	if (e->splace != FZ_PLACE_KEEP)
		e->a.in_syncs.ptr = e->ns ?
			fz_put_array(c, e->sync, sizeof(e->sync[0]), e->ns,
				     e->sstride, e->sextra, e->splace) : 0;
	e->a.in_syncs.stride = e->sstride;
	free(tasks);
}

/* A task to break: one of the built ones, made a @kind launch if needed. */
static struct fz_task *fz_victim(struct fz_ctx *c, struct fz_enq *e)
{
	return &e->task[fz_below(c, e->nt)];
}

/* Makes @t a valid FILL, COPY, ADD or CRC32C (needs a buffer). */
static bool fz_make_bound(struct fz_ctx *c, struct fz_task *t)
{
	int tries;

	if (!c->nbo)
		return false;
	for (tries = 0; tries < 64; tries++) {
		if (t->t.type == DRM_WEAVE_TASK_LAUNCH &&
		    t->t.kernel >= DRM_WEAVE_KERNEL_FILL &&
		    t->t.kernel <= DRM_WEAVE_KERNEL_CRC32C)
			return true;
		fz_build_task(c, t, false);
	}
	return false;
}

static bool fz_make_host_write(struct fz_ctx *c, struct fz_task *t)
{
	int tries;

	if (!c->nbo)
		return false;
	for (tries = 0; tries < 64; tries++) {
		if (t->t.type == DRM_WEAVE_TASK_HOST_WRITE)
			return true;
		fz_build_task(c, t, false);
	}
	return false;
}

/* Breaks one thing of the enqueue @e; returns false if it could not. */
static bool fz_mut_enqueue(struct fz_ctx *c, struct fz_enq *e)
{
	struct fz_task *t = fz_victim(c, e);
	struct drm_weave_binding *b;
	int k;

	switch (fz_below(c, 44)) {
	case 0:
		e->a.flags = (uint32_t)fz_range(c, 1, 0xffffffff);
		fz_mut(c, "flags", true);
		return true;
	case 1:
		e->a.tasks.count = 0;
		fz_mut(c, "tasks.count 0", true);
		return true;
	case 2:
		e->a.tasks.count = fz.info.max_tasks_per_enqueue +
				   (uint32_t)fz_range(c, 1, 0xffff);
		fz_mut(c, "tasks.count over max", true);
		return true;
	case 3:
		/* Short of the 1.2 task; the 1.2 task itself is fine. */
		e->tstride = (uint32_t)fz_below(c, FZ_TASK_1_2);
		fz_mut(c, "tasks.stride short", true);
		return true;
	case 4:
		e->tstride = DRM_WEAVE_MAX_STRIDE + 8 * (uint32_t)fz_range(c, 1, 8);
		if (fz_one_in(c, 2))
			e->tstride = (uint32_t)fz_range(c, DRM_WEAVE_MAX_STRIDE + 1,
							0xffffffff);
		fz_mut(c, "tasks.stride over max", true);
		return true;
	case 5:
		e->tstride = sizeof(struct drm_weave_task) +
			     8 * (uint32_t)fz_range(c, 1, 25);
		e->textra = 1 + (uint32_t)fz_below(c, e->nt);
		fz_mut(c, "tasks extra bytes", true);
		return true;
	case 6:
		e->a.in_syncs.count = fz.info.max_in_syncs +
				      (uint32_t)fz_range(c, 1, 0xffff);
		e->sstride = sizeof(struct drm_weave_sync);
		e->splace = FZ_PLACE_KEEP;
		e->a.in_syncs.ptr = (uintptr_t)fz.zeros;
		fz_mut(c, "in_syncs.count over max", true);
		return true;
	case 7:
	case 8:
	case 9:
	case 10:
	case 11:
	case 15:
		break;
	case 12:
		e->a.stream = fz_below(c, 2) ? 0 : fz_bad_handle(c);
		fz_mut(c, "bad stream", true);
		return true;
	case 13:
		e->tplace = FZ_PLACE_BAD;
		fz_mut(c, "tasks.ptr unmapped", true);
		return true;
	case 14:
		e->tplace = FZ_PLACE_STRADDLE;
		fz_mut(c, "tasks run into PROT_NONE", true);
		return true;
	case 16:
		t->t.type = (uint32_t)fz_range(c, 2, 0xffffffff);
		fz_mut(c, "task type unknown", true);
		return true;
	case 17:
		if (t->t.type != DRM_WEAVE_TASK_LAUNCH)
			return false;
		t->t.kernel = (uint32_t)fz_range(c, DRM_WEAVE_KERNEL_FAIL + 1,
						 0xffffffff);
		fz_mut(c, "kernel unknown", true);
		return true;
	case 18:
		if (t->t.type != DRM_WEAVE_TASK_LAUNCH)
			return false;
		t->t.data = (uintptr_t)c->data;
		fz_mut(c, "launch with data", true);
		return true;
	case 19:
		if (!fz_make_host_write(c, t))
			return false;
		switch (fz_below(c, 5)) {
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
		default:
			t->t.bindings.count = fz_one_in(c, 3) ? 0 :
				(uint32_t)fz_range(c, 2, fz.info.max_bindings);
			while (t->nb < t->t.bindings.count)
				t->b[t->nb] = t->b[0], t->nb++;
			fz_mut(c, "host write bindings.count not 1", true);
			break;
		}
		return true;
	case 20:
		if (!fz_make_host_write(c, t))
			return false;
		if (fz_below(c, 2)) {
			t->t.data = fz_bad_ptr(c);
			fz_mut(c, "host write data unmapped", true);
		} else {
			/* The last bytes of the data lie in PROT_NONE. */
			t->t.data = (uintptr_t)c->data + FZ_DATA - t->b[0].size +
				    fz_range(c, 1, t->b[0].size);
			fz_mut(c, "host write data runs into PROT_NONE", true);
		}
		return true;
	case 21:
		t->t.bindings.count = fz.info.max_bindings +
				      (uint32_t)fz_range(c, 1, 0xffff);
		t->bplace = FZ_PLACE_KEEP;
		t->t.bindings.ptr = (uintptr_t)fz.zeros;
		fz_mut(c, "bindings.count over max", true);
		return true;
	case 22:
		if (t->t.type != DRM_WEAVE_TASK_LAUNCH ||
		    t->t.kernel == DRM_WEAVE_KERNEL_FAIL || !c->nbo)
			return false;
		/* One binding more than the kernel takes. */
		t->b[t->nb] = fz_range_of(c, &c->bo[0], 4,
					  DRM_WEAVE_ACCESS_READ |
					  DRM_WEAVE_ACCESS_WRITE, 4);
		t->t.bindings.count = ++t->nb;
		fz_mut(c, "bindings.count wrong for kernel", true);
		return true;
	case 23:
	case 24:
	case 25:
	case 26:
	case 27:
	case 28:
	case 29:
	case 30:
	case 31:
	case 32:
		if (!t->nb && !fz_make_bound(c, t))
			return false;
		b = &t->b[fz_below(c, t->nb)];
		switch (fz_below(c, 10)) {
		case 0:
			t->bstride = (uint32_t)fz_below(c,
					sizeof(struct drm_weave_binding));
			fz_mut(c, "bindings.stride short", true);
			break;
		case 1:
			t->bstride = (uint32_t)fz_range(c,
					DRM_WEAVE_MAX_STRIDE + 1, 0xffffffff);
			fz_mut(c, "bindings.stride over max", true);
			break;
		case 2:
			t->bstride = sizeof(*b) + 8 * (uint32_t)fz_range(c, 1, 29);
			t->bextra = 1 + (uint32_t)fz_below(c, t->nb);
			fz_mut(c, "bindings extra bytes", true);
			break;
		case 3:
			t->bplace = fz_below(c, 2) ? FZ_PLACE_BAD :
						     FZ_PLACE_STRADDLE;
			fz_mut(c, "bindings unreadable", true);
			break;
		case 4:
			b->access = fz_below(c, 2) ? 0 :
				    b->access | 4u << fz_below(c, 30);
			fz_mut(c, "access zero or unknown", true);
			break;
		case 5:
			b->size = 0;
			fz_mut(c, "binding size 0", true);
			break;
		case 6:
			k = fz_find_bo(c, b->handle);
			if (k < 0 || !c->bo[k].exact) {
				b->offset = ~0ull - fz_below(c, 8);
				b->size = fz_range(c, 9, 64);
				fz_mut(c, "binding offset overflows", true);
				break;
			}
			b->offset = c->bo[k].size - b->size +
				    fz_range(c, 1, 4096);
			fz_mut(c, "binding past the end", true);
			break;
		case 7:
			b->offset = ~0ull - fz_below(c, 8);
			b->size = fz_range(c, 9, 64);
			fz_mut(c, "binding offset overflows", true);
			break;
		case 8:
			b->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "binding bad handle", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
		return true;
	case 33:
	case 34:
		if (!fz_make_bound(c, t))
			return false;
		switch (t->t.kernel) {
		case DRM_WEAVE_KERNEL_FILL:
			if (fz_below(c, 2) && t->b[0].size > 4) {
				t->b[0].size -= fz_range(c, 1, 3);
				fz_mut(c, "FILL size not a multiple of 4", true);
			} else {
				t->b[0].access = DRM_WEAVE_ACCESS_READ;
				fz_mut(c, "FILL without WRITE", true);
			}
			break;
		case DRM_WEAVE_KERNEL_COPY:
			if (fz_below(c, 2) && t->b[0].size > 1) {
				t->b[0].size -= 1;
				fz_mut(c, "COPY sizes differ", true);
			} else {
				t->b[1].access = DRM_WEAVE_ACCESS_READ;
				fz_mut(c, "COPY without WRITE", true);
			}
			break;
		case DRM_WEAVE_KERNEL_ADD_U32:
			if (fz_below(c, 2) && t->b[1].size > 4) {
				t->b[1].size -= 4;
				fz_mut(c, "ADD sizes differ", true);
			} else {
				t->b[0].access = DRM_WEAVE_ACCESS_WRITE;
				fz_mut(c, "ADD without READ", true);
			}
			break;
		default:
			t->b[1].size = fz_below(c, 2) ? fz_range(c, 1, 3) : 8;
			fz_mut(c, "CRC32C result not 4 bytes", true);
			break;
		}
		return true;
	case 35:
		t->t.uniforms_size = fz.info.max_uniform_bytes +
				     (uint32_t)fz_range(c, 1, 0xffff);
		t->uplace = FZ_PLACE_KEEP;
		t->t.uniforms = (uintptr_t)fz.zeros;
		fz_mut(c, "uniforms over max", true);
		return true;
	case 36:
		if (t->t.type != DRM_WEAVE_TASK_LAUNCH ||
		    (t->t.kernel != DRM_WEAVE_KERNEL_FILL &&
		     t->t.kernel != DRM_WEAVE_KERNEL_DELAY &&
		     t->t.kernel != DRM_WEAVE_KERNEL_FAIL))
			return false;
		t->t.uniforms_size = (uint32_t)fz_below(c, 4);
		fz_mut(c, "uniforms short", true);
		return true;
	case 37:
		if (t->t.type != DRM_WEAVE_TASK_LAUNCH || !t->t.uniforms_size)
			return false;
		t->uplace = fz_below(c, 2) ? FZ_PLACE_BAD : FZ_PLACE_STRADDLE;
		fz_mut(c, "uniforms unreadable", true);
		return true;
	case 38:
		if (t->t.type != DRM_WEAVE_TASK_LAUNCH)
			return false;
		fz_build_task(c, t, true);
		t->t.kernel = DRM_WEAVE_KERNEL_DELAY;
		fz_set_u32(t, (uint32_t)fz_range(c, FZ_MAX_DELAY_US + 1,
						 0xffffffff), 4);
		fz_mut(c, "DELAY over 60 s", true);
		return true;
	case 39:
		if (t->t.type != DRM_WEAVE_TASK_LAUNCH)
			return false;
		fz_build_task(c, t, true);
		t->t.kernel = DRM_WEAVE_KERNEL_FAIL;
		fz_set_u32(t, fz_below(c, 2) ? 0 :
			   (uint32_t)fz_range(c, FZ_MAX_ERRNO + 1, 0xffffffff), 4);
		fz_mut(c, "FAIL errno out of range", true);
		return true;
	case 40:
		/* The pad a stride of the 1.2 task would not reach. */
		if (e->tstride < sizeof(struct drm_weave_task))
			e->tstride = sizeof(struct drm_weave_task);
		t->t.pad = (uint32_t)fz_range(c, 1, 0xffffffff);
		fz_mut(c, "task pad", true);
		return true;
	default:
		fz_mut_arg(c, true);
		return true;
	}

	/* The in-syncs: make sure there is one to break. */
	if (!e->ns) {
		int i = fz_pick_so(c);

		e->sync[0] = (struct drm_weave_sync){
			.handle = i < 0 ? fz_bad_handle(c) : c->so[i].handle,
		};
		e->ns = 1;
		e->a.in_syncs.count = 1;
	}
	switch (fz_below(c, 7)) {
	case 0:
		e->sstride = (uint32_t)fz_below(c, sizeof(struct drm_weave_sync));
		fz_mut(c, "in_syncs.stride short", true);
		break;
	case 1:
		e->sstride = (uint32_t)fz_range(c, DRM_WEAVE_MAX_STRIDE + 1,
						0xffffffff);
		fz_mut(c, "in_syncs.stride over max", true);
		break;
	case 2:
		e->sstride = sizeof(struct drm_weave_sync) +
			     8 * (uint32_t)fz_range(c, 1, 30);
		e->sextra = 1 + (uint32_t)fz_below(c, e->ns);
		fz_mut(c, "in_syncs extra bytes", true);
		break;
	case 3:
		e->sync[fz_below(c, e->ns)].flags = (uint32_t)fz_range(c, 1,
								0xffffffff);
		fz_mut(c, "in_sync flags", true);
		break;
	case 4:
		e->sync[fz_below(c, e->ns)].handle = fz_below(c, 2) ? 0 :
						      fz_bad_handle(c);
		fz_mut(c, "in_sync bad handle", true);
		break;
	case 5:
		e->splace = fz_below(c, 2) ? FZ_PLACE_BAD : FZ_PLACE_STRADDLE;
		fz_mut(c, "in_syncs unreadable", true);
		break;
	default: {
		/* A syncobj of its own that has no fence. */
		struct drm_syncobj_create sc = { 0 };

		if (c->call.tmp_so ||
		    ioctl(c->fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc))
			return false;
		c->call.tmp_so = sc.handle;
		e->sync[fz_below(c, e->ns)] = (struct drm_weave_sync){
			.handle = sc.handle,
			.timeline_value = fz_below(c, 2) ? 0 : fz_range(c, 1, 9),
		};
		fz_mut(c, "in_sync without a fence", !c->shared);
		break;
	}
	}
	return true;
}

static void gen_enqueue(struct fz_ctx *c)
{
	struct fz_enq *e = c->enq;
	uint32_t i, n;
	uint64_t r = fz_below(c, 100);
	bool noop_only = false, rec, win;
	int s, w, tries;

	n = r < 70 ? (uint32_t)fz_range(c, 1, 4) :
	    r < 90 ? (uint32_t)fz_range(c, 5, 16) :
	    r < 98 ? (uint32_t)fz_range(c, 17, 64) :
		     (uint32_t)fz_range(c, 65, fz.info.max_tasks_per_enqueue);
	if (n > FZ_MAX_TASKS)
		n = FZ_MAX_TASKS;
	if (n > 64)
		noop_only = true;
	memset(&e->a, 0, sizeof(e->a));
	e->nt = n;
	e->tstride = fz_one_in(c, 8) ? FZ_TASK_1_2 :
		     fz_good_stride(c, sizeof(struct drm_weave_task));
	e->tplace = fz_good_place(c);
	e->textra = 0;
	e->ns = 0;
	e->sstride = fz_good_stride(c, sizeof(struct drm_weave_sync));
	e->splace = fz_good_place(c);
	e->sextra = 0;
	/*
	 * A stream that records, now and then: its launches are recorded.
	 * Mostly without host writes or in-syncs, which doom the window or
	 * are refused.  No hang in a window: it would be replayed, or make
	 * BEGIN's drain wait for the job timeout.
	 */
	s = fz_pick_stream(c);
	if (c->captured && fz_one_in(c, 3)) {
		w = fz_pick_window(c, DRM_WEAVE_CAPTURE_RECORDING);
		s = w >= 0 ? w : s;
	}
	rec = s >= 0 && c->st[s].win == DRM_WEAVE_CAPTURE_RECORDING;
	win = s >= 0 && c->st[s].win != DRM_WEAVE_CAPTURE_NONE;
	for (i = 0; i < n; i++) {
		fz_build_task(c, &e->task[i], noop_only);
		for (tries = 0; rec && tries < 8 && !fz_one_in(c, 8) &&
		     e->task[i].t.type == DRM_WEAVE_TASK_HOST_WRITE; tries++)
			fz_build_task(c, &e->task[i], noop_only);
	}
	if (!win && c->hangs_left > 0 && fz_one_in(c, 4000)) {
		c->hangs_left--;
		c->hangs++;
		fz_build_hang(c, &e->task[fz_below(c, n)]);
	}
	if (c->nso && fz_one_in(c, rec ? 40 : 5)) {
		e->ns = (uint32_t)fz_range(c, 1, 3);
		for (i = 0; i < e->ns; i++) {
			struct fz_syncobj *so = &c->so[fz_below(c, c->nso)];

			e->sync[i] = (struct drm_weave_sync){
				.handle = so->handle,
				.timeline_value = fz_one_in(c, 3) ?
					fz_below(c, so->point + 1) : 0,
			};
		}
	}
	c->call.idx = s;
	e->a.stream = s < 0 ? fz_any_handle(c) : c->st[s].handle;
	e->a.tasks.count = n;
	e->a.in_syncs.count = e->ns;
	e->a.seqno = fz_r(c);

	/* Valid, on a private file, without in-syncs: nothing may fail. */
	c->call.strict = s >= 0 && !e->ns;
	for (i = 0; i < n && c->call.strict; i++) {
		uint32_t j;

		for (j = 0; j < e->task[i].nb; j++) {
			int k = fz_find_bo(c, e->task[i].b[j].handle);

			if (k < 0 || !c->bo[k].exact)
				c->call.strict = false;
		}
	}
	while (fz_mutate(c)) {
		int tries = 0;

		while (!fz_mut_enqueue(c, e) && ++tries < 8)
			;
	}
	if (c->call.mode != FZ_VALID)
		c->call.strict = false;
	fz_render_enqueue(c, e);
	c->call.arg.enqueue = e->a;
	c->call.v[0] = e->a.tasks.count;
	fz_detail(c, "stream %u tasks %u stride %u in_syncs %u stride %u",
		  e->a.stream, e->a.tasks.count, e->a.tasks.stride,
		  e->a.in_syncs.count, e->a.in_syncs.stride);
	if (e->nt) {
		struct fz_task *t = &e->task[0];

		fz_detail(c, "; task0 type %u kernel %u bindings %u/%u uni %u data %#llx",
			  t->t.type, t->t.kernel, t->t.bindings.count,
			  t->t.bindings.stride, t->t.uniforms_size,
			  (unsigned long long)t->t.data);
		if (t->nb)
			fz_detail(c, " b0 %u/%#x %#llx+%#llx", t->b[0].handle,
				  t->b[0].access,
				  (unsigned long long)t->b[0].offset,
				  (unsigned long long)t->b[0].size);
	}
}

/*
 * On a file of the thread's own, where windows change only by its calls,
 * an ENQUEUE of a stream that records its window (uAPI 1.5) records its
 * launches, which do not count as the stream's tasks, and queues its host
 * writes: the seqno counts these only, and the recording its launches.
 */
static void check_enqueue(struct fz_ctx *c, int ret)
{
	struct drm_weave_enqueue *a = &c->call.arg.enqueue;
	uint32_t n = (uint32_t)c->call.v[0], k = n, j;
	int i = fz_find_stream(c, a->stream);
	struct fz_stream *st = i < 0 ? NULL : &c->st[i];
	bool own = c->captured && !c->shared;
	struct drm_weave_capture q;
	int64_t held;

	if (c->call.tmp_so) {
		struct drm_syncobj_destroy d = { .handle = c->call.tmp_so };

		ioctl(c->fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
	}
	if (!st)
		return;
	if (ret == -EFAULT && c->call.argplace == FZ_PLACE_RO) {
		/* Queued, but the seqno could not be written back. */
		st->exact = false;
		st->rec = -1;
		return;
	}
	if (ret == -ENOMEM)
		st->rec = -1;
	/*
	 * -ENOSPC: the recording is full; or gates the kernel had no memory
	 * to hand to a job, which does not happen here.
	 */
	if (ret == -ENOSPC && own && !fz_records(c, a->stream, &q))
		fz_fail(c, "ENQUEUE returned ENOSPC, but stream %u does not record (window state %u, owner %u)",
			a->stream, q.state, q.owner);
	if (ret || c->call.argplace != FZ_PLACE_RW)
		return;
	held = st->rec;
	if (own && fz_records(c, a->stream, &q)) {
		if (c->call.mode == FZ_RANDOM) {
			/* The tasks are not known: the seqno says. */
			if (a->seqno >= st->enqueued &&
			    a->seqno - st->enqueued <= n)
				k = (uint32_t)(a->seqno - st->enqueued);
		} else {
			for (k = 0, j = 0; j < n; j++)
				k += c->enq->task[j].t.type ==
				     DRM_WEAVE_TASK_HOST_WRITE;
		}
		if (held >= 0 && q.ntasks != held + (n - k))
			fz_fail(c, "ENQUEUE of %u launches on stream %u, which records: the recording went from %lld to %u tasks",
				n - k, a->stream, (long long)held, q.ntasks);
		c->recorded += n - k;
	}
	if (st->exact && a->seqno != st->enqueued + k)
		fz_fail(c, "ENQUEUE of %u tasks (%u of them queued) on stream %u returned seqno %llu after %llu",
			n, k, a->stream, (unsigned long long)a->seqno,
			(unsigned long long)st->enqueued);
	/* On the shared file, another thread's window may record them. */
	if (!st->exact && a->seqno < k &&
	    !(c->shared && atomic_load(&fz.shared_captured)))
		fz_fail(c, "ENQUEUE of %u tasks returned seqno %llu", n,
			(unsigned long long)a->seqno);
	st->enqueued += k;
}

/* --- FLUSH, WAIT and the other stream ioctls ------------------------------ */

/* A syncobj and point to hand a fence to, or none. */
static struct drm_weave_sync fz_out_sync(struct fz_ctx *c)
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

static void gen_flush(struct fz_ctx *c)
{
	struct drm_weave_flush *a = &c->call.arg.flush;

	if (fz_one_in(c, 4)) {
		a->flags = DRM_WEAVE_FLUSH_ALL;
		c->call.strict = true;
	} else {
		a->stream = fz_stream_handle(c);
		c->call.strict = fz_known_stream(c, a->stream);
	}
	a->out_sync = fz_out_sync(c);
	c->call.strict &= c->call.mode == FZ_VALID;
	while (fz_mutate(c)) {
		switch (fz_below(c, 7)) {
		case 0:
			a->flags |= 2u << fz_below(c, 31);
			fz_mut(c, "unknown flag", true);
			break;
		case 1:
			a->flags |= DRM_WEAVE_FLUSH_ALL;
			a->stream = a->stream ?: (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "FLUSH_ALL with a stream", true);
			break;
		case 2:
			a->out_sync.flags = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "out_sync flags", true);
			break;
		case 3:
			a->flags &= ~DRM_WEAVE_FLUSH_ALL;
			a->stream = fz_bad_handle(c);
			fz_mut(c, "bad stream", true);
			break;
		case 4:
			a->flags &= ~DRM_WEAVE_FLUSH_ALL;
			a->stream = 0;
			fz_mut(c, "stream 0 without FLUSH_ALL", true);
			break;
		case 5:
			a->out_sync.handle = fz_bad_handle(c);
			fz_mut(c, "bad out_sync", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "stream %u flags %#x out %u@%llu", a->stream, a->flags,
		  a->out_sync.handle,
		  (unsigned long long)a->out_sync.timeline_value);
}

/*
 * -EBUSY (uAPI 1.5) exactly when the stream records its window, which
 * the thread knows for sure on a file of its own.  A failed stream
 * refuses a flush of its own; that is allowed.
 */
static void fz_check_busy(struct fz_ctx *c, const char *what,
			  uint32_t stream, int ret)
{
	struct drm_weave_capture q;
	bool rec;

	if (!c->captured || c->shared || fz_find_stream(c, stream) < 0 ||
	    (ret && ret != -EBUSY))
		return;
	rec = fz_records(c, stream, &q);
	if (rec != (ret == -EBUSY))
		fz_fail(c, "%s of stream %u returned %s, but the stream %s (window state %u, owner %u)",
			what, stream, fz_errname(-ret),
			rec ? "records" : "does not record", q.state,
			q.owner);
}

static void check_flush(struct fz_ctx *c, int ret)
{
	struct drm_weave_flush *a = &c->call.arg.flush;

	if (ret == -EBUSY && a->flags & DRM_WEAVE_FLUSH_ALL) {
		fz_fail(c, "FLUSH_ALL returned EBUSY");
		return;
	}
	if (!(a->flags & DRM_WEAVE_FLUSH_ALL))
		fz_check_busy(c, "FLUSH", a->stream, ret);
}

/* A deadline for a wait: past, now, soon; never far. */
static int64_t fz_deadline(struct fz_ctx *c)
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

static void gen_wait(struct fz_ctx *c)
{
	struct drm_weave_wait *a = &c->call.arg.wait;

	a->handle = fz_stream_handle(c);
	a->timeout_ns = fz_deadline(c);
	while (fz_mutate(c)) {
		switch (fz_below(c, 3)) {
		case 0:
			a->flags = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "flags", true);
			break;
		case 1:
			a->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad handle", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "handle %u deadline %lld", a->handle,
		  (long long)a->timeout_ns);
}

static void check_wait(struct fz_ctx *c, int ret)
{
	struct drm_weave_wait *a = &c->call.arg.wait;

	fz_check_busy(c, "WAIT", a->handle, ret);
}

static void gen_isolate(struct fz_ctx *c)
{
	struct drm_weave_stream_isolate *a = &c->call.arg.isolate;

	a->handle = fz_stream_handle(c);
	a->op = (uint32_t)fz_below(c, 2);
	while (fz_mutate(c)) {
		switch (fz_below(c, 3)) {
		case 0:
			a->op = (uint32_t)fz_range(c, 2, 0xffffffff);
			fz_mut(c, "unknown op", true);
			break;
		case 1:
			a->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad handle", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "handle %u op %u", a->handle, a->op);
}

static void check_isolate(struct fz_ctx *c, int ret)
{
	struct drm_weave_stream_isolate *a = &c->call.arg.isolate;

	if (ret == -ENOENT && fz_known_stream(c, a->handle) && !c->shared &&
	    c->call.mode == FZ_VALID)
		fz_fail(c, "ISOLATE: stream %u, which the thread holds, is unknown",
			a->handle);
}

static void gen_stream_query(struct fz_ctx *c)
{
	struct drm_weave_stream_query *a = &c->call.arg.stream_query;

	a->handle = fz_stream_handle(c);
	/* Out fields hold garbage on the way in; pad2 must be zero. */
	a->enqueued = fz_r(c);
	c->call.strict = c->call.mode == FZ_VALID &&
			 fz_known_stream(c, a->handle);
	while (fz_mutate(c)) {
		switch (fz_below(c, 4)) {
		case 0:
			a->pad = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad", true);
			break;
		case 3:
			a->pad2 = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad2", true);
			break;
		case 1:
			a->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad handle", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "handle %u", a->handle);
}

static void check_stream_query(struct fz_ctx *c, int ret)
{
	struct drm_weave_stream_query *q = &c->call.arg.stream_query;
	int i = fz_find_stream(c, q->handle);

	if (ret || c->call.argplace != FZ_PLACE_RW)
		return;
	if (q->executed > q->enqueued || q->completed > q->enqueued ||
	    q->slot != q->handle % fz.info.max_streams || q->state > 1 ||
	    (q->state == DRM_WEAVE_STREAM_FAILED) != (q->error != 0) ||
	    (q->error && q->error != -ETIMEDOUT && q->error != -ENOMEM) ||
	    q->isolated > 1 || q->priority > DRM_WEAVE_PRIORITY_HIGH ||
	    q->pad2) {
		fz_fail(c, "STREAM_QUERY of %u: enqueued %llu executed %llu completed %llu slot %u priority %u state %u isolated %u error %d pad2 %u",
			q->handle, (unsigned long long)q->enqueued,
			(unsigned long long)q->executed,
			(unsigned long long)q->completed, q->slot, q->priority,
			q->state, q->isolated, q->error, q->pad2);
		return;
	}
	if (i >= 0 && c->st[i].exact && q->enqueued != c->st[i].enqueued)
		fz_fail(c, "STREAM_QUERY of %u: %llu enqueued, the thread enqueued %llu",
			q->handle, (unsigned long long)q->enqueued,
			(unsigned long long)c->st[i].enqueued);
}

static void gen_set_param(struct fz_ctx *c)
{
	struct drm_weave_set_param *a = &c->call.arg.set_param;

	a->param = (uint32_t)fz_below(c, 2);
	a->value = a->param == DRM_WEAVE_PARAM_STRATEGY ? fz_below(c, 2) :
		   fz_range(c, 1, fz.info.max_tasks);
	while (fz_mutate(c)) {
		switch (fz_below(c, 4)) {
		case 0:
			a->pad = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad", true);
			break;
		case 1:
			a->param = (uint32_t)fz_range(c, 2, 0xffffffff);
			fz_mut(c, "unknown param", true);
			break;
		case 2:
			if (a->param == DRM_WEAVE_PARAM_STRATEGY)
				a->value = fz_range(c, 2, ~0ull);
			else
				a->value = fz_below(c, 2) ? 0 :
					   fz_range(c, fz.info.max_tasks + 1ull,
						    ~0ull);
			fz_mut(c, "value out of range", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "param %u value %#llx", a->param,
		  (unsigned long long)a->value);
}

/* --- READ ------------------------------------------------------------------ */

/*
 * A READ of a range of one of the thread's buffers.  The bytes go to the
 * out buffer's first half, the report's failures and skips to the second.
 * Whether the range carries failures, or is written in time, is not known
 * here: -EIO, -ENOSPC and -ETIME are always fair.
 */
static void gen_read(struct fz_ctx *c)
{
	struct drm_weave_read *a = &c->call.arg.read;
	const uint32_t fsize = sizeof(struct drm_weave_failure);
	const uint32_t ssize = sizeof(struct drm_weave_failure_task);
	int k = fz_pick_bo(c);

	if (k < 0 || fz_one_in(c, 50)) {
		a->handle = fz_any_handle(c);
		a->offset = fz_below(c, 4096);
		a->size = fz_range(c, 1, FZ_OUT / 2);
	} else {
		a->handle = c->bo[k].handle;
		a->size = fz_task_size(c, c->bo[k].size, 1);
		if (a->size > FZ_OUT / 2)
			a->size = FZ_OUT / 2;
		a->offset = fz_below(c, c->bo[k].size - a->size + 1);
	}
	a->data = (uintptr_t)c->out;
	a->timeout_ns = fz_deadline(c);
	a->failures.stride = fsize;
	a->failures.count = (uint32_t)fz_below(c, (FZ_OUT / 4) / fsize + 1);
	a->failures.ptr = (uintptr_t)c->out + FZ_OUT / 2;
	a->skips.stride = ssize;
	a->skips.count = (uint32_t)fz_below(c, (FZ_OUT / 4) / ssize + 1);
	a->skips.ptr = (uintptr_t)c->out + 3 * (FZ_OUT / 4);
	a->nfailures = (uint32_t)fz_r(c);
	a->nskips = (uint32_t)fz_r(c);

	while (fz_mutate(c)) {
		switch (fz_below(c, 9)) {
		case 0:
			a->flags = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "flags", true);
			break;
		case 1:
			a->size = 0;
			fz_mut(c, "size 0", true);
			break;
		case 2:
			a->offset = ~0ull - fz_below(c, 8);
			a->size = fz_range(c, 9, 64);
			fz_mut(c, "range offset overflows", true);
			break;
		case 3:
			a->offset = fz_range(c, 1ull << 40, 1ull << 50);
			fz_mut(c, "range past the end", true);
			break;
		case 4:
			a->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad handle", true);
			break;
		case 5:
			/* Fails only if the range is good and copied. */
			a->data = fz_bad_ptr(c);
			fz_mut(c, "data unwritable", false);
			break;
		case 6:
			a->failures.count = a->failures.count ?: 1;
			a->failures.stride = fz_below(c, 2) ?
				(uint32_t)fz_below(c, fsize) :
				(uint32_t)fz_range(c, DRM_WEAVE_MAX_STRIDE + 1,
						   0xffffffff);
			fz_mut(c, "failures.stride bad", true);
			break;
		case 7:
			a->skips.count = a->skips.count ?: 1;
			a->skips.stride = fz_below(c, 2) ?
				(uint32_t)fz_below(c, ssize) :
				(uint32_t)fz_range(c, DRM_WEAVE_MAX_STRIDE + 1,
						   0xffffffff);
			fz_mut(c, "skips.stride bad", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "handle %u %#llx+%#llx deadline %lld room %u/%u",
		  a->handle, (unsigned long long)a->offset,
		  (unsigned long long)a->size, (long long)a->timeout_ns,
		  a->failures.count, a->skips.count);
}

/* --- CHECK ----------------------------------------------------------------- */

/*
 * A CHECK of ranges of the thread's buffers.  The kernel writes the
 * failures to the first half of the out buffer, the skips to the second,
 * and each range's counts into the ranges.
 */
static void gen_check(struct fz_ctx *c)
{
	struct drm_weave_check *a = &c->call.arg.check;
	struct drm_weave_check_range r[FZ_CHECK_RANGES];
	const uint32_t fsize = sizeof(struct drm_weave_failure);
	const uint32_t ssize = sizeof(struct drm_weave_failure_task);
	uint32_t n, i, max = fz.info.max_check_ranges, rstride, rextra = 0;
	enum fz_place rplace = FZ_PLACE_RW;
	struct drm_weave_check_range *v;
	uint64_t size;
	int k;

	n = (uint32_t)fz_range(c, 1, max && max < FZ_CHECK_RANGES ?
				     max : FZ_CHECK_RANGES);
	c->call.strict = true;
	for (i = 0; i < n; i++) {
		k = fz_pick_bo(c);
		if (k < 0 || fz_one_in(c, 50)) {
			r[i] = weave_check_range(fz_any_handle(c),
						 fz_below(c, 4096),
						 fz_range(c, 1, 4096));
			c->call.strict = false;
			continue;
		}
		size = fz_task_size(c, c->bo[k].size, 1);
		r[i] = weave_check_range(c->bo[k].handle,
					 fz_below(c, c->bo[k].size - size + 1),
					 size);
		if (!c->bo[k].exact)
			c->call.strict = false;
		/* Out fields hold garbage on the way in. */
		r[i].nfailures = (uint32_t)fz_r(c);
		r[i].first = (uint32_t)fz_r(c);
	}
	rstride = fz_good_stride(c, sizeof(r[0]));
	a->ranges.count = n;
	a->failures.stride = fsize;
	a->failures.count = fz_one_in(c, 4) ? 0 :
		(uint32_t)fz_range(c, 1, (FZ_OUT / 2) / fsize);
	a->failures.ptr = a->failures.count || fz_below(c, 2) ?
			  (uintptr_t)c->out : 0;
	a->skips.stride = ssize;
	a->skips.count = fz_one_in(c, 4) ? 0 :
		(uint32_t)fz_range(c, 1, (FZ_OUT / 2) / ssize);
	a->skips.ptr = a->skips.count || fz_below(c, 2) ?
		       (uintptr_t)c->out + FZ_OUT / 2 : 0;
	a->nfailures = (uint32_t)fz_r(c);
	a->nskips = (uint32_t)fz_r(c);

	while (fz_mutate(c)) {
		struct drm_weave_check_range *x = &r[fz_below(c, n)];

		switch (fz_below(c, 20)) {
		case 0:
			a->flags = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "flags", true);
			break;
		case 1:
			a->pad = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad", true);
			break;
		case 2:
			x->flags = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "range flags", true);
			break;
		case 3:
			a->ranges.count = 0;
			fz_mut(c, "ranges.count 0", true);
			break;
		case 4:
			a->ranges.count = max + (uint32_t)fz_range(c, 1, 0xffff);
			rplace = FZ_PLACE_KEEP;
			a->ranges.ptr = (uintptr_t)fz.zeros;
			fz_mut(c, "ranges.count over max", true);
			break;
		case 5:
			rstride = (uint32_t)fz_below(c, sizeof(r[0]));
			fz_mut(c, "ranges.stride short", true);
			break;
		case 6:
			rstride = (uint32_t)fz_range(c, DRM_WEAVE_MAX_STRIDE + 1,
						     0xffffffff);
			fz_mut(c, "ranges.stride over max", true);
			break;
		case 7:
			rstride = sizeof(r[0]) + 8 * (uint32_t)fz_range(c, 1,
				(DRM_WEAVE_MAX_STRIDE - sizeof(r[0])) / 8);
			rextra = 1 + (uint32_t)fz_below(c, n);
			fz_mut(c, "ranges extra bytes", true);
			break;
		case 8:
			x->size = 0;
			fz_mut(c, "range size 0", true);
			break;
		case 9:
			k = fz_find_bo(c, x->handle);
			if (k >= 0 && c->bo[k].exact) {
				x->offset = c->bo[k].size - x->size +
					    fz_range(c, 1, 4096);
				fz_mut(c, "range past the end", true);
				break;
			}
			/* An overflow is past any end. */
			x->offset = ~0ull - fz_below(c, 8);
			x->size = fz_range(c, 9, 64);
			fz_mut(c, "range offset overflows", true);
			break;
		case 10:
			x->offset = ~0ull - fz_below(c, 8);
			x->size = fz_range(c, 9, 64);
			fz_mut(c, "range offset overflows", true);
			break;
		case 11:
			x->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "range bad handle", true);
			break;
		case 12:
			rplace = fz_below(c, 2) ? FZ_PLACE_BAD :
						  FZ_PLACE_STRADDLE;
			fz_mut(c, "ranges unreadable", true);
			break;
		case 13:
			/* They are written back. */
			rplace = FZ_PLACE_RO;
			fz_mut(c, "ranges read-only", true);
			break;
		case 14:
			a->failures.count = a->failures.count ?: 1;
			a->failures.ptr = (uintptr_t)c->out;
			a->failures.stride = fz_below(c, 2) ?
				(uint32_t)fz_below(c, fsize) :
				(uint32_t)fz_range(c, DRM_WEAVE_MAX_STRIDE + 1,
						   0xffffffff);
			fz_mut(c, "failures.stride bad", true);
			break;
		case 15:
			a->skips.count = a->skips.count ?: 1;
			a->skips.ptr = (uintptr_t)c->out + FZ_OUT / 2;
			a->skips.stride = fz_below(c, 2) ?
				(uint32_t)fz_below(c, ssize) :
				(uint32_t)fz_range(c, DRM_WEAVE_MAX_STRIDE + 1,
						   0xffffffff);
			fz_mut(c, "skips.stride bad", true);
			break;
		case 16:
			/* Fails only if there is a failure to write. */
			a->failures.count = a->failures.count ?: 1;
			a->failures.ptr = fz_below(c, 2) ? fz_bad_ptr(c) :
					  (uintptr_t)c->ro;
			fz_mut(c, "failures unwritable", false);
			break;
		case 17:
			a->skips.count = a->skips.count ?: 1;
			a->skips.ptr = fz_below(c, 2) ? fz_bad_ptr(c) :
				       (uintptr_t)c->ro;
			fz_mut(c, "skips unwritable", false);
			break;
		case 18:
			a->failures.count = (uint32_t)fz_below(c, 2);
			a->skips.count = (uint32_t)fz_below(c, 2);
			fz_mut(c, "little room", false);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	if (rplace != FZ_PLACE_KEEP)
		a->ranges.ptr = fz_put_array(c, r, sizeof(r[0]), n, rstride,
					     rextra, rplace);
	a->ranges.stride = rstride;
	if (c->call.mode != FZ_VALID)
		c->call.strict = false;
	/* For the check: the ranges as the kernel will write them. */
	v = (struct drm_weave_check_range *)(uintptr_t)a->ranges.ptr;
	c->call.v[0] = rplace == FZ_PLACE_RW ? (uintptr_t)v : 0;
	c->call.v[1] = a->failures.count;
	c->call.v[2] = a->skips.count;
	fz_detail(c, "ranges %u stride %u; room %u failures, %u skips",
		  a->ranges.count, a->ranges.stride, a->failures.count,
		  a->skips.count);
	if (n)
		fz_detail(c, "; range0 %u %#llx+%#llx", r[0].handle,
			  (unsigned long long)r[0].offset,
			  (unsigned long long)r[0].size);
}

/* A task of a report: private fields only with the OWN flag. */
static bool fz_task_sane(const struct drm_weave_failure_task *t)
{
	bool own = t->flags & DRM_WEAVE_FAILURE_TASK_OWN;

	if (t->pad || t->flags & ~DRM_WEAVE_FAILURE_TASK_OWN ||
	    t->type > DRM_WEAVE_TASK_HOST_WRITE ||
	    t->kernel > DRM_WEAVE_KERNEL_FAIL)
		return false;
	if (own)
		return t->stream && t->seqno &&
		       t->stream <= fz.info.max_client_streams;
	return !t->stream && !t->seqno && !t->label;
}

/*
 * A valid CHECK's report, as far as it was written: the ranges' counts
 * add up to the report's, -ENOSPC exactly when the report did not fit,
 * and every entry is well formed.
 */
static void check_check(struct fz_ctx *c, int ret)
{
	const struct drm_weave_check *a = &c->call.arg.check;
	const uint8_t *rp = (const uint8_t *)(uintptr_t)c->call.v[0];
	uint32_t nf_room = (uint32_t)c->call.v[1];
	uint32_t ns_room = (uint32_t)c->call.v[2];
	const struct drm_weave_failure *f;
	const struct drm_weave_failure_task *t;
	struct drm_weave_check_range r;
	uint32_t i, j, sum = 0, fit_f, fit_s;

	if ((ret && ret != -ENOSPC) || c->call.mode != FZ_VALID ||
	    c->call.argplace != FZ_PLACE_RW || !rp)
		return;
	for (i = 0; i < a->ranges.count; i++) {
		memcpy(&r, rp + (size_t)i * a->ranges.stride, sizeof(r));
		if (r.nfailures && r.first + (uint64_t)r.nfailures >
				   a->nfailures) {
			fz_fail(c, "CHECK: range %u has failures %u to %u of %u",
				i, r.first, r.first + r.nfailures,
				a->nfailures);
			return;
		}
		sum += r.nfailures;
	}
	if (sum != a->nfailures) {
		fz_fail(c, "CHECK: the ranges have %u failures, the report %u",
			sum, a->nfailures);
		return;
	}
	fit_f = nf_room < fz.info.max_report_failures ? nf_room :
		fz.info.max_report_failures;
	fit_s = ns_room;
	if ((ret == -ENOSPC) != (a->nfailures > fit_f || a->nskips > fit_s)) {
		fz_fail(c, "CHECK returned %d with %u failures and %u skips for room %u and %u",
			ret, a->nfailures, a->nskips, nf_room, ns_room);
		return;
	}
	f = (const struct drm_weave_failure *)c->out;
	for (i = 0; i < a->nfailures && i < fit_f; i++, f++) {
		if (!f->id || f->error >= 0 || f->error < -4095 ||
		    f->cause > DRM_WEAVE_FAILURE_CAPTURE ||
		    f->flags & ~DRM_WEAVE_FAILURE_COARSE ||
		    !f->buffers || f->nskips > DRM_WEAVE_FAILURE_SKIPS ||
		    f->first_skip + (uint64_t)f->nskips > a->nskips ||
		    !fz_task_sane(&f->root)) {
			fz_fail(c, "CHECK: failure %u: id %llu error %d cause %u buffers %u skips %u at %u of %u, root flags %#x stream %u seqno %llu label %u",
				i, (unsigned long long)f->id, f->error,
				f->cause, f->buffers, f->nskips, f->first_skip,
				a->nskips, f->root.flags, f->root.stream,
				(unsigned long long)f->root.seqno,
				f->root.label);
			return;
		}
	}
	t = (const struct drm_weave_failure_task *)(c->out + FZ_OUT / 2);
	for (j = 0; j < a->nskips && j < fit_s; j++, t++) {
		if (!fz_task_sane(t)) {
			fz_fail(c, "CHECK: skip %u: flags %#x stream %u seqno %llu label %u type %u kernel %u",
				j, t->flags, t->stream,
				(unsigned long long)t->seqno, t->label, t->type,
				t->kernel);
			return;
		}
	}
}

/* --- graph capture (uAPI 1.5) -------------------------------------------- */

static const char *const fz_capture_op_names[] = {
	"PREPARE", "BEGIN", "END", "ABORT", "QUERY",
};

static const char *fz_capture_op_name(uint32_t op)
{
	return op < ARRAY_SIZE(fz_capture_op_names) ?
	       fz_capture_op_names[op] : "unknown op";
}

/*
 * A CAPTURE.  Valid calls are steered so that windows go through their
 * states: a prepared window begins, a recording one ends (now and then by
 * another stream of its slot, which abandons it), a window not known is
 * queried; otherwise any op on any stream, a new window only while few
 * are open.
 */
static void gen_capture(struct fz_ctx *c)
{
	struct drm_weave_capture *a = &c->call.arg.capture;
	uint64_t r = fz_below(c, 100);
	uint32_t op, j;
	int i;

	if (r < 40 &&
	    (i = fz_pick_window(c, DRM_WEAVE_CAPTURE_PREPARED)) >= 0) {
		op = DRM_WEAVE_CAPTURE_BEGIN;
	} else if (r < 65 &&
		   (i = fz_pick_window(c, DRM_WEAVE_CAPTURE_RECORDING)) >= 0) {
		op = DRM_WEAVE_CAPTURE_END;
		/* Another stream of the slot abandons it. */
		for (j = fz_below(c, 2) ? 0 : c->nst; j < c->nst; j++) {
			if ((int)j != i &&
			    fz_slot(c->st[j].handle) == fz_slot(c->st[i].handle)) {
				i = (int)j;
				break;
			}
		}
	} else if (r < 75 && (i = fz_pick_window(c, FZ_WIN_UNKNOWN)) >= 0) {
		op = DRM_WEAVE_CAPTURE_QUERY;
	} else {
		i = -1;
		switch (fz_below(c, 10)) {
		case 0:
		case 1:
		case 2:
		case 3:
			op = DRM_WEAVE_CAPTURE_PREPARE;
			/* Where another stream of the slot can abandon it. */
			if (fz_one_in(c, 2))
				i = fz_pick_slotmate(c);
			if (fz_windows_open(c) < FZ_WINDOWS)
				break;
			/* Enough windows: close one. */
			i = fz_pick_window(c, DRM_WEAVE_CAPTURE_PREPARED);
			if (i < 0)
				i = fz_pick_window(c,
						   DRM_WEAVE_CAPTURE_RECORDING);
			op = DRM_WEAVE_CAPTURE_ABORT;
			break;
		case 4:
			op = DRM_WEAVE_CAPTURE_BEGIN;
			break;
		case 5:
		case 6:
			op = DRM_WEAVE_CAPTURE_END;
			break;
		case 7:
			op = DRM_WEAVE_CAPTURE_ABORT;
			break;
		default:
			op = DRM_WEAVE_CAPTURE_QUERY;
			break;
		}
	}
	if (i >= 0) {
		c->call.idx = i;
		a->stream = c->st[i].handle;
	} else {
		a->stream = fz_stream_handle(c);
	}
	a->op = op;
	/* Out fields hold garbage on the way in. */
	a->state = (uint32_t)fz_r(c);
	a->owner = (uint32_t)fz_r(c);
	a->graph = (uint32_t)fz_r(c);
	a->ntasks = (uint32_t)fz_r(c);
	a->error = (int32_t)fz_r(c);
	a->failure = fz_r(c);
	c->call.strict = c->call.mode == FZ_VALID &&
			 fz_known_stream(c, a->stream);
	while (fz_mutate(c)) {
		switch (fz_below(c, 5)) {
		case 0:
			a->flags = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "flags", true);
			break;
		case 1:
			a->pad = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad", true);
			break;
		case 2:
			a->op = (uint32_t)fz_range(c, DRM_WEAVE_CAPTURE_QUERY + 1,
						   0xffffffff);
			fz_mut(c, "unknown op", true);
			break;
		case 3:
			a->stream = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad stream", true);
			break;
		default:
			/* Read-only: done, but nothing said (END: a graph). */
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "stream %u op %u (%s)", a->stream, a->op,
		  fz_capture_op_name(a->op));
}

/*
 * The out fields, written whether the call succeeds or not, and what each
 * result says of the window of the stream's slot (uAPI 1.5); then what
 * the thread knows of its windows and graphs.  A window that BEGIN or END
 * closed with -EIO or -ECANCELED is in state NONE after the call.
 */
static void check_capture(struct fz_ctx *c, int ret)
{
	const struct drm_weave_capture *a = &c->call.arg.capture;
	bool closed = ret == -EIO || ret == -ECANCELED;
	int i = fz_find_stream(c, a->stream), k;
	int64_t held = i >= 0 ? c->st[i].rec : -1;
	const char *bad = NULL;
	uint32_t op = a->op, graph = a->graph, ntasks = a->ntasks, h;

	if (c->call.argplace == FZ_PLACE_RO) {
		/*
		 * Done, unseen: an END made a graph the thread cannot name,
		 * or closed a doomed window, whose recording the stream then
		 * counts: ask it.
		 */
		fz_window_lost(c, a->stream);
		if (i >= 0 && c->st[i].exact) {
			struct drm_weave_stream_query q = { 0 };

			if (weave_stream_query(c->fd, a->stream, &q) ||
			    q.enqueued < c->st[i].enqueued)
				c->st[i].exact = false;
			else
				c->st[i].enqueued = q.enqueued;
		}
		return;
	}
	if (c->call.argplace != FZ_PLACE_RW)
		return;

	if (a->pad2)
		bad = "pad2 not zero";
	else if (a->state > DRM_WEAVE_CAPTURE_RECORDING)
		bad = "an unknown state";
	else if (a->error > 0 || a->error < -4095)
		bad = "an error that is no negative errno";
	else if (a->failure && !a->error)
		bad = "a failure without an error";
	else if (a->graph && (ret || op != DRM_WEAVE_CAPTURE_END))
		bad = "a graph, where no END succeeded";
	else if (a->ntasks > fz.info.max_graph_tasks)
		bad = "more tasks than max_graph_tasks";
	else if (closed && a->state != DRM_WEAVE_CAPTURE_NONE)
		bad = "the window closed, but the state after is not NONE";
	else if (!closed && (a->state == DRM_WEAVE_CAPTURE_NONE) !=
		 !a->owner)
		bad = "an owner without a window, or a window without one";
	else if (a->owner && (a->owner > fz.info.max_client_streams ||
			      fz_slot(a->owner) != fz_slot(a->stream)))
		bad = "an owner that is no stream of the slot";
	else if (!closed && a->state == DRM_WEAVE_CAPTURE_NONE &&
		 (a->error || a->failure))
		bad = "a doom without a window";
	else if (!closed && !a->graph &&
		 a->state != DRM_WEAVE_CAPTURE_RECORDING && a->ntasks)
		bad = "tasks recorded, without a recording";

	switch (bad ? 1 : ret) {
	case 0:
		if (op == DRM_WEAVE_CAPTURE_PREPARE &&
		    (a->state != DRM_WEAVE_CAPTURE_PREPARED ||
		     a->owner != a->stream))
			bad = "PREPARE succeeded, but the stream owns no prepared window";
		else if (op == DRM_WEAVE_CAPTURE_BEGIN &&
			 (a->state != DRM_WEAVE_CAPTURE_RECORDING ||
			  a->owner != a->stream || a->ntasks))
			bad = "BEGIN succeeded, but the stream owns no empty recording window";
		else if (op == DRM_WEAVE_CAPTURE_END &&
			 (!a->graph || a->state != DRM_WEAVE_CAPTURE_NONE))
			bad = "END succeeded, but made no graph or left a window";
		else if (op == DRM_WEAVE_CAPTURE_END && !c->shared &&
			 held >= 0 && a->ntasks != held)
			bad = "END sealed another number of tasks than the recording held";
		else if (op == DRM_WEAVE_CAPTURE_END && !c->shared &&
			 fz_find_graph(c, a->graph) >= 0)
			bad = "END returned a graph handle the thread holds";
		else if (op == DRM_WEAVE_CAPTURE_ABORT &&
			 a->state != DRM_WEAVE_CAPTURE_NONE)
			bad = "ABORT left a window";
		break;
	case -EBUSY:
		if (op != DRM_WEAVE_CAPTURE_PREPARE ||
		    a->state == DRM_WEAVE_CAPTURE_NONE)
			bad = "EBUSY, but not from PREPARE on a slot with a window";
		break;
	case -EBADFD:
		if (op == DRM_WEAVE_CAPTURE_BEGIN &&
		    a->state == DRM_WEAVE_CAPTURE_PREPARED &&
		    a->owner == a->stream)
			bad = "BEGIN: EBADFD, but the stream owns a prepared window";
		else if (op == DRM_WEAVE_CAPTURE_END &&
			 a->state == DRM_WEAVE_CAPTURE_RECORDING)
			bad = "END: EBADFD, but the window records";
		else if (op != DRM_WEAVE_CAPTURE_BEGIN &&
			 op != DRM_WEAVE_CAPTURE_END)
			bad = "EBADFD from neither BEGIN nor END";
		break;
	case -EIO:
		if ((op != DRM_WEAVE_CAPTURE_BEGIN &&
		     op != DRM_WEAVE_CAPTURE_END) || !a->error)
			bad = "EIO, but not BEGIN or END of a doomed window";
		break;
	case -ECANCELED:
		if (op != DRM_WEAVE_CAPTURE_END || !a->owner ||
		    a->owner == a->stream)
			bad = "ECANCELED, but not END by a stream that does not own the window";
		break;
	case -ENOSPC:
		if (op != DRM_WEAVE_CAPTURE_END ||
		    a->state != DRM_WEAVE_CAPTURE_RECORDING ||
		    a->owner != a->stream)
			bad = "ENOSPC, but not END of a window that goes on recording";
		break;
	default:
		/* EINTR: a drain, or any op's wait for the client's lock. */
		break;
	}
	if (bad) {
		fz_fail(c, "CAPTURE %s of stream %u returned %s, with %s: state %u owner %u graph %u ntasks %u error %d failure %llu pad2 %u (the recording held %lld)",
			fz_capture_op_name(op), a->stream, fz_errname(-ret),
			bad, a->state, a->owner, a->graph, a->ntasks,
			a->error, (unsigned long long)a->failure, a->pad2,
			(long long)held);
		return;
	}

	/* Refused before the window was looked at: the fields say nothing. */
	if (ret != -EINVAL && ret != -ENOENT && ret != -EINTR)
		fz_window_seen(c, a->stream, a, closed);
	if (!ret && op == DRM_WEAVE_CAPTURE_PREPARE)
		c->prepared++;
	if (!ret && op == DRM_WEAVE_CAPTURE_BEGIN)
		c->begun++;
	/*
	 * A doomed window's recording is queued on its owner, the caller, as
	 * tasks that do not run and taint what they would have written; or
	 * dropped, if the owner cannot take them.
	 */
	if (ret == -EIO && i >= 0 && c->st[i].exact) {
		struct drm_weave_stream_query q = { 0 };
		uint64_t e = c->st[i].enqueued;
		int err = weave_stream_query(c->fd, c->st[i].handle, &q);

		if (err || (q.enqueued != e && q.enqueued != e + ntasks)) {
			fz_fail(c, "CAPTURE %s of stream %u closed a doomed window of %u tasks: the stream's enqueued went from %llu to %llu (%s)",
				fz_capture_op_name(op), c->st[i].handle,
				ntasks, (unsigned long long)e,
				(unsigned long long)q.enqueued,
				fz_errname(-err));
			return;
		}
		c->st[i].enqueued = q.enqueued;
	}
	c->doomed += ret == -EIO;
	c->abandoned += ret == -ECANCELED;
	if (ret || op != DRM_WEAVE_CAPTURE_END)
		return;
	c->sealed++;
	c->sealed_tasks += ntasks;
	fz_forget_graph(c, graph);
	if (c->ngr < FZ_GRAPHS) {
		c->gr[c->ngr++] = (struct fz_graph){ graph, ntasks };
		return;
	}
	/* Full: the new graph takes the place of one, destroyed (last). */
	k = (int)fz_below(c, FZ_GRAPHS);
	h = c->gr[k].handle;
	c->gr[k] = (struct fz_graph){ graph, ntasks };
	fz_destroy_graph(c, h);
}

/*
 * A REPLAY of a graph the thread sealed on one of its streams, with or
 * without in-syncs and an out-sync.
 */
static void gen_replay(struct fz_ctx *c)
{
	struct drm_weave_replay *a = &c->call.arg.replay;
	struct drm_weave_sync sync[FZ_MAX_SYNCS];
	uint32_t i, ns = 0, sstride, sextra = 0;
	enum fz_place splace = fz_good_place(c);
	bool keep = false;
	int g = fz_pick_graph(c);

	a->graph = g < 0 || fz_one_in(c, 50) ? fz_any_handle(c) :
		   c->gr[g].handle;
	a->stream = fz_stream_handle(c);
	/* A stream that records refuses it: mostly another. */
	if (c->call.idx >= 0 &&
	    c->st[c->call.idx].win == DRM_WEAVE_CAPTURE_RECORDING &&
	    !fz_one_in(c, 4))
		a->stream = fz_stream_handle(c);
	if (c->nso && fz_one_in(c, 4)) {
		ns = (uint32_t)fz_range(c, 1, 3);
		for (i = 0; i < ns; i++) {
			struct fz_syncobj *so = &c->so[fz_below(c, c->nso)];

			sync[i] = (struct drm_weave_sync){
				.handle = so->handle,
				.timeline_value = fz_one_in(c, 3) ?
					fz_below(c, so->point + 1) : 0,
			};
		}
	}
	sstride = fz_good_stride(c, sizeof(struct drm_weave_sync));
	a->out_sync = fz_out_sync(c);
	a->seqno = fz_r(c);
	c->call.strict = c->call.mode == FZ_VALID && !ns &&
			 fz_known_stream(c, a->stream) && g >= 0 &&
			 a->graph == c->gr[g].handle;
	while (fz_mutate(c)) {
		uint64_t m = fz_below(c, 15);

		if (m >= 5 && m <= 11 && !ns) {
			/* An in-sync to break. */
			int k = fz_pick_so(c);

			sync[0] = (struct drm_weave_sync){
				.handle = k < 0 ? fz_bad_handle(c) :
					  c->so[k].handle,
			};
			ns = 1;
		}
		switch (m) {
		case 0:
			a->flags = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "flags", true);
			break;
		case 1:
			a->pad = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad", true);
			break;
		case 2:
			a->graph = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad graph", true);
			break;
		case 3:
			a->stream = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad stream", true);
			break;
		case 4:
			a->in_syncs.count = fz.info.max_in_syncs +
					    (uint32_t)fz_range(c, 1, 0xffff);
			a->in_syncs.ptr = (uintptr_t)fz.zeros;
			sstride = sizeof(struct drm_weave_sync);
			keep = true;
			fz_mut(c, "in_syncs.count over max", true);
			break;
		case 5:
			sstride = (uint32_t)fz_below(c,
					sizeof(struct drm_weave_sync));
			fz_mut(c, "in_syncs.stride short", true);
			break;
		case 6:
			sstride = (uint32_t)fz_range(c, DRM_WEAVE_MAX_STRIDE + 1,
						     0xffffffff);
			fz_mut(c, "in_syncs.stride over max", true);
			break;
		case 7:
			sstride = sizeof(struct drm_weave_sync) +
				  8 * (uint32_t)fz_range(c, 1, 30);
			sextra = 1 + (uint32_t)fz_below(c, ns);
			fz_mut(c, "in_syncs extra bytes", true);
			break;
		case 8:
			sync[fz_below(c, ns)].flags =
				(uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "in_sync flags", true);
			break;
		case 9:
			sync[fz_below(c, ns)].handle = fz_below(c, 2) ? 0 :
						       fz_bad_handle(c);
			fz_mut(c, "in_sync bad handle", true);
			break;
		case 10:
			splace = fz_below(c, 2) ? FZ_PLACE_BAD :
						  FZ_PLACE_STRADDLE;
			fz_mut(c, "in_syncs unreadable", true);
			break;
		case 11: {
			/* A syncobj of its own that has no fence. */
			struct drm_syncobj_create sc = { 0 };

			if (c->call.tmp_so ||
			    ioctl(c->fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc))
				break;
			c->call.tmp_so = sc.handle;
			sync[fz_below(c, ns)] = (struct drm_weave_sync){
				.handle = sc.handle,
				.timeline_value = fz_below(c, 2) ? 0 :
						  fz_range(c, 1, 9),
			};
			fz_mut(c, "in_sync without a fence", !c->shared);
			break;
		}
		case 12:
			a->out_sync.flags = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "out_sync flags", true);
			break;
		case 13:
			a->out_sync.handle = fz_bad_handle(c);
			fz_mut(c, "bad out_sync", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	if (!keep) {
		a->in_syncs.count = ns;
		a->in_syncs.ptr = ns ? fz_put_array(c, sync, sizeof(sync[0]),
						    ns, sstride, sextra,
						    splace) : 0;
	}
	a->in_syncs.stride = sstride;
	fz_detail(c, "graph %u stream %u in_syncs %u stride %u out %u@%llu",
		  a->graph, a->stream, a->in_syncs.count, a->in_syncs.stride,
		  a->out_sync.handle,
		  (unsigned long long)a->out_sync.timeline_value);
	if (g >= 0 && a->graph == c->gr[g].handle)
		fz_detail(c, " (%u tasks)", c->gr[g].ntasks);
}

/*
 * A replay counts the graph's tasks as the stream's (uAPI 1.5): its
 * seqno is the last one's.  An empty graph has no last task: its replay's
 * seqno is not checked.
 */
static void check_replay(struct fz_ctx *c, int ret)
{
	const struct drm_weave_replay *a = &c->call.arg.replay;
	int i = fz_find_stream(c, a->stream), g = fz_find_graph(c, a->graph);
	struct fz_stream *st = i < 0 ? NULL : &c->st[i];

	if (c->call.tmp_so) {
		struct drm_syncobj_destroy d = { .handle = c->call.tmp_so };

		ioctl(c->fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
	}
	if (!ret && c->call.argplace == FZ_PLACE_RW) {
		c->replays++;
		c->replayed_tasks += g >= 0 ? c->gr[g].ntasks : 0;
	}
	if (!st)
		return;
	/* Queued, perhaps: the seqno could not be written back; or, out of
	 * memory, queued but not all submitted (as FLUSH). */
	if ((ret == -EFAULT && c->call.argplace == FZ_PLACE_RO) ||
	    ret == -ENOMEM || ret == -ECANCELED) {
		st->exact = false;
		return;
	}
	if (ret || c->call.argplace != FZ_PLACE_RW)
		return;
	if (g < 0) {
		/*
		 * A graph the thread does not know: the seqno says; an empty
		 * one's is the stream's last.
		 */
		if (!a->seqno)
			return;
		if (st->exact && a->seqno < st->enqueued)
			fz_fail(c, "REPLAY of graph %u on stream %u returned seqno %llu after %llu",
				a->graph, a->stream,
				(unsigned long long)a->seqno,
				(unsigned long long)st->enqueued);
		st->enqueued = a->seqno;
		return;
	}
	if (!c->gr[g].ntasks) {
		if (st->exact && a->seqno != st->enqueued)
			fz_fail(c, "REPLAY of empty graph %u on stream %u returned seqno %llu, not the stream's last, %llu",
				a->graph, a->stream,
				(unsigned long long)a->seqno,
				(unsigned long long)st->enqueued);
		return;
	}
	if (st->exact && a->seqno != st->enqueued + c->gr[g].ntasks)
		fz_fail(c, "REPLAY of graph %u (%u tasks) on stream %u returned seqno %llu after %llu",
			a->graph, c->gr[g].ntasks, a->stream,
			(unsigned long long)a->seqno,
			(unsigned long long)st->enqueued);
	if (!st->exact && a->seqno < c->gr[g].ntasks)
		fz_fail(c, "REPLAY of graph %u (%u tasks) returned seqno %llu",
			a->graph, c->gr[g].ntasks,
			(unsigned long long)a->seqno);
	st->enqueued += c->gr[g].ntasks;
}

static void gen_graph_destroy(struct fz_ctx *c)
{
	struct drm_weave_graph_destroy *a = &c->call.arg.graph_destroy;
	int g = fz_pick_graph(c);

	a->graph = g < 0 || fz_one_in(c, 50) ? fz_any_handle(c) :
		   c->gr[g].handle;
	c->call.strict = c->call.mode == FZ_VALID && g >= 0 &&
			 a->graph == c->gr[g].handle;
	while (fz_mutate(c)) {
		switch (fz_below(c, 3)) {
		case 0:
			a->pad = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad", true);
			break;
		case 1:
			a->graph = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad graph", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "graph %u", a->graph);
}

static void check_graph_destroy(struct fz_ctx *c, int ret)
{
	if (!ret)
		fz_forget_graph(c, c->call.arg.graph_destroy.graph);
}

/* --- core: buffers and PRIME --------------------------------------------- */

static void gen_gem_close(struct fz_ctx *c)
{
	struct drm_gem_close *a = &c->call.arg.gem_close;
	int i = fz_pick_bo(c);

	a->handle = i < 0 || fz_one_in(c, 50) ? fz_any_handle(c) :
		    c->bo[i].handle;
	c->call.strict = c->call.mode == FZ_VALID && i >= 0 &&
			 a->handle == c->bo[i].handle;
	while (fz_mutate(c)) {
		if (fz_below(c, 2)) {
			a->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad handle", true);
		} else {
			fz_mut_arg(c, true);
		}
	}
	fz_detail(c, "handle %u", a->handle);
}

static void check_gem_close(struct fz_ctx *c, int ret)
{
	if (!ret)
		fz_forget_bo(c, c->call.arg.gem_close.handle);
}

static void gen_prime_export(struct fz_ctx *c)
{
	struct drm_prime_handle *a = &c->call.arg.prime;
	int i = fz_pick_bo(c);

	a->handle = i < 0 ? fz_any_handle(c) : c->bo[i].handle;
	a->flags = (uint32_t)fz_below(c, 4) == 0 ? DRM_CLOEXEC :
		   DRM_CLOEXEC | (fz_below(c, 2) ? DRM_RDWR : 0);
	a->fd = (int)fz_r(c);
	c->call.idx = i;
	c->call.strict = i >= 0 && c->call.mode == FZ_VALID;
	while (fz_mutate(c)) {
		switch (fz_below(c, 3)) {
		case 0:
			a->flags |= 1u << fz_below(c, 32);
			if (!(a->flags & ~(DRM_CLOEXEC | DRM_RDWR)))
				a->flags |= 1;
			fz_mut(c, "unknown flag", true);
			break;
		case 1:
			a->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad handle", true);
			break;
		default:
			fz_mut_arg(c, false);
			break;
		}
	}
	fz_detail(c, "handle %u flags %#x", a->handle, a->flags);
}

/*
 * mmap() of a dma-buf: refused for NO_MMAP buffers, with EPERM.  Only for
 * reading: a buffer has one dma-buf file, made at its first export, so a
 * later export with DRM_RDWR may still give a read-only file.
 */
static void fz_check_dmabuf_mmap(struct fz_ctx *c, int fd,
				 const struct fz_bo *bo)
{
	void *map = mmap(NULL, fz.page, PROT_READ, MAP_SHARED, fd, 0);
	int err = map == MAP_FAILED ? errno : 0;

	if (map != MAP_FAILED)
		munmap(map, fz.page);
	if (bo->flags & DRM_WEAVE_BO_NO_MMAP) {
		if (err != EPERM)
			fz_fail(c, "mmap of a dma-buf of a NO_MMAP buffer: %s, not EPERM",
				err ? fz_errname(err) : "mapped");
	} else if (err) {
		fz_fail(c, "mmap of a dma-buf: %s", fz_errname(err));
	}
}

static void check_prime_export(struct fz_ctx *c, int ret)
{
	struct drm_prime_handle *a = &c->call.arg.prime;
	int i = c->call.idx;

	if (ret || c->call.argplace != FZ_PLACE_RW)
		return;
	if (a->fd < 0) {
		fz_fail(c, "PRIME_HANDLE_TO_FD returned fd %d", a->fd);
		return;
	}
	if (i >= 0 && c->bo[i].handle == a->handle && c->bo[i].exact &&
	    !c->shared && fz_one_in(c, 4))
		fz_check_dmabuf_mmap(c, a->fd, &c->bo[i]);
	fz_share_dmabuf(c, a->fd);
}

static void gen_prime_import(struct fz_ctx *c)
{
	struct drm_prime_handle *a = &c->call.arg.prime;
	uint64_t size = 0;

	a->fd = fz_pick_dmabuf(c, &size);
	a->flags = (uint32_t)fz_r(c);
	a->handle = (uint32_t)fz_r(c);
	c->call.v[0] = size;
	while (fz_mutate(c)) {
		switch (fz_below(c, 3)) {
		case 0:
			a->fd = fz_below(c, 2) ? -1 : 1 << 20;
			fz_mut(c, "fd not open", true);
			break;
		case 1:
			a->fd = c->fd;
			if (fz_below(c, 2) && fz_pick_fd(c, FZ_FD_SYNCOBJ) >= 0)
				a->fd = fz_pick_fd(c, FZ_FD_SYNCOBJ);
			fz_mut(c, "fd not a dma-buf", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "fd %d", a->fd);
}

static void check_prime_import(struct fz_ctx *c, int ret)
{
	struct drm_prime_handle *a = &c->call.arg.prime;
	uint64_t size = c->call.v[0];

	if (ret || c->call.argplace != FZ_PLACE_RW || !a->handle)
		return;
	if (fz_find_bo(c, a->handle) >= 0 || !size)
		return;
	if (c->nbo == FZ_BOS || c->live_bytes + size > FZ_LIVE_BYTES) {
		fz_close_bo(c, a->handle);
		return;
	}
	/* The descriptor may have been swapped under us: size uncertain. */
	c->bo[c->nbo++] = (struct fz_bo){
		.handle = a->handle, .size = size, .exact = false,
	};
	c->live_bytes += size;
}

/* --- core: syncobjs -------------------------------------------------------- */

static void gen_so_create(struct fz_ctx *c)
{
	struct drm_syncobj_create *a = &c->call.arg.so_create;

	a->flags = fz_below(c, 2) ? DRM_SYNCOBJ_CREATE_SIGNALED : 0;
	a->handle = (uint32_t)fz_r(c);
	c->call.strict = c->call.mode == FZ_VALID;
	while (fz_mutate(c)) {
		if (fz_below(c, 2)) {
			a->flags |= 2u << fz_below(c, 31);
			fz_mut(c, "unknown flag", true);
		} else {
			fz_mut_arg(c, true);
		}
	}
	fz_detail(c, "flags %#x", a->flags);
}

static void check_so_create(struct fz_ctx *c, int ret)
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

static uint32_t fz_so_handle(struct fz_ctx *c)
{
	int i = fz_pick_so(c);

	c->call.idx = i;
	return i < 0 || fz_one_in(c, 50) ? fz_any_handle(c) : c->so[i].handle;
}

static bool fz_known_so(struct fz_ctx *c, uint32_t handle)
{
	return c->call.idx >= 0 && c->so[c->call.idx].handle == handle;
}

static void gen_so_destroy(struct fz_ctx *c)
{
	struct drm_syncobj_destroy *a = &c->call.arg.so_destroy;

	a->handle = fz_so_handle(c);
	c->call.strict = c->call.mode == FZ_VALID &&
			 fz_known_so(c, a->handle);
	while (fz_mutate(c)) {
		switch (fz_below(c, 3)) {
		case 0:
			a->pad = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad", true);
			break;
		case 1:
			a->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad handle", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "handle %u", a->handle);
}

static void check_so_destroy(struct fz_ctx *c, int ret)
{
	/* A read-only argument: destroyed, then the copy back failed. */
	if (!ret || (ret == -EFAULT && c->call.argplace == FZ_PLACE_RO))
		fz_forget_so(c, c->call.arg.so_destroy.handle);
}

static void gen_so_export(struct fz_ctx *c)
{
	struct drm_syncobj_handle *a = &c->call.arg.so_handle;

	a->handle = fz_so_handle(c);
	a->flags = fz_below(c, 2) ?
		   DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE : 0;
	a->fd = (int)fz_r(c);
	c->call.strict = c->call.mode == FZ_VALID && !a->flags &&
			 fz_known_so(c, a->handle);
	while (fz_mutate(c)) {
		switch (fz_below(c, 4)) {
		case 0:
			a->pad = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad", true);
			break;
		case 1:
			/* Bits 0 and 1 are known to some kernel. */
			a->flags |= 4u << fz_below(c, 30);
			fz_mut(c, "unknown flag", true);
			break;
		case 2:
			a->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad handle", true);
			break;
		default:
			fz_mut_arg(c, false);
			break;
		}
	}
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
	while (fz_mutate(c)) {
		switch (fz_below(c, 5)) {
		case 0:
			a->pad = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad", true);
			break;
		case 1:
			a->flags |= 4u << fz_below(c, 30);
			fz_mut(c, "unknown flag", true);
			break;
		case 2:
			a->fd = fz_below(c, 2) ? -1 : c->fd;
			fz_mut(c, "fd not a syncobj or sync_file", true);
			break;
		case 3:
			if (!(a->flags & DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE))
				break;
			a->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad handle", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
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

/*
 * The handle array of a syncobj call: 1 to 4 of the thread's syncobjs
 * (or any handles) into @h, placed in memory; *@count gets its length and
 * @points, if not NULL, points for them.
 */
static uint64_t fz_so_array(struct fz_ctx *c, uint32_t *count, uint32_t *h,
			    uint64_t *points)
{
	uint32_t i, n = (uint32_t)fz_range(c, 1, 4);
	bool known = true;

	for (i = 0; i < n; i++) {
		int k = fz_pick_so(c);

		h[i] = k < 0 ? fz_any_handle(c) : c->so[k].handle;
		known &= k >= 0;
		if (points)
			points[i] = k < 0 ? fz_below(c, 3) :
				    fz_below(c, c->so[k].point + 2);
	}
	*count = n;
	c->call.strict = known;
	return fz_put(c, h, n * sizeof(h[0]), fz_good_place(c), 0);
}

/* Breaks the handle array of a syncobj call; returns false if it did not. */
static bool fz_mut_so_array(struct fz_ctx *c, __u64 *handles,
			    uint32_t *count, bool zero_count_fails)
{
	switch (fz_below(c, 5)) {
	case 0:
		*count = 0;
		/* 6.1 refuses an empty wait; later kernels return at once. */
		fz_mut(c, "count 0", zero_count_fails);
		return true;
	case 1:
		*handles = fz_bad_ptr(c);
		fz_mut(c, "handles unmapped", true);
		return true;
	case 2: {
		uint32_t h[4] = { 1, 2, 3, 4 };

		/* The last handle's bytes lie in PROT_NONE. */
		*count = (uint32_t)fz_range(c, 1, 4);
		*handles = fz_put(c, h, *count * sizeof(h[0]),
				  FZ_PLACE_STRADDLE, fz_range(c, 1, 4));
		fz_mut(c, "handles run into PROT_NONE", true);
		return true;
	}
	case 3: {
		uint32_t *h = (uint32_t *)fz_alloc(c, 4 * sizeof(*h));

		if (!h)
			return false;
		h[0] = fz_bad_handle(c);
		h[1] = fz_below(c, 2) ? 0 : fz_bad_handle(c);
		h[2] = h[1];
		h[3] = h[1];
		*count = (uint32_t)fz_range(c, 1, 4);
		*handles = (uintptr_t)h;
		fz_mut(c, "bad handle", true);
		return true;
	}
	default:
		/* Many handles, all 0: none exists. */
		*count = (uint32_t)fz_range(c, 5, FZ_SANE_COUNT);
		*handles = (uintptr_t)fz.zeros;
		fz_mut(c, "many zero handles", true);
		return true;
	}
}

/*
 * An absurd handle count (see WEAVE_FUZZ_CORE_GUARDS): the core would
 * allocate gigabytes for it.  Only while the guards are on.
 */
static bool fz_mut_absurd_count(struct fz_ctx *c, uint32_t *count)
{
	if (!fz.core_guards)
		return false;
	static const int want[] = { ENOMEM, EINVAL, 0 };

	*count = 0x8000000u | (uint32_t)fz_r(c);
	fz_mut(c, "absurd count (core guard)", true);
	c->call.want = want;
	return true;
}

static void gen_so_wait(struct fz_ctx *c)
{
	struct drm_syncobj_wait *a = &c->call.arg.so_wait;

	uint32_t h[4];

	a->handles = fz_so_array(c, &a->count_handles, h, NULL);
	a->flags = (uint32_t)fz_below(c, 4);
	a->timeout_nsec = fz_deadline(c);
	if (a->timeout_nsec > fz_now() + 20000000)
		a->timeout_nsec = fz_now() + 20000000;
	a->first_signaled = (uint32_t)fz_r(c);
	c->call.strict = false;		/* may time out, and fences come late */
	while (fz_mutate(c)) {
		switch (fz_below(c, 9)) {
		case 0:
			a->flags |= 16u << fz_below(c, 28);
			fz_mut(c, "unknown flag", true);
			break;
		case 1:
			if (fz_mut_absurd_count(c, &a->count_handles))
				break;
			fz_mut_so_array(c, &a->handles, &a->count_handles,
					false);
			break;
		case 2:
		case 3:
		case 4:
		case 5:
		case 6:
			fz_mut_so_array(c, &a->handles, &a->count_handles,
					false);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	c->call.v[0] = a->count_handles;
	c->call.v[1] = a->flags;
	fz_detail(c, "count %u flags %#x deadline %lld", a->count_handles,
		  a->flags, (long long)a->timeout_nsec);
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

static void gen_so_tl_wait(struct fz_ctx *c)
{
	struct drm_syncobj_timeline_wait *a = &c->call.arg.so_tl_wait;
	uint64_t points[4];
	uint32_t h[4];

	a->handles = fz_so_array(c, &a->count_handles, h, points);
	a->points = fz_put(c, points, a->count_handles * sizeof(points[0]),
			   fz_good_place(c), 0);
	a->flags = (uint32_t)fz_below(c, 8);
	a->timeout_nsec = fz_deadline(c);
	if (a->timeout_nsec > fz_now() + 20000000)
		a->timeout_nsec = fz_now() + 20000000;
	c->call.strict = false;
	while (fz_mutate(c)) {
		switch (fz_below(c, 10)) {
		case 0:
			a->flags |= 16u << fz_below(c, 28);
			fz_mut(c, "unknown flag", true);
			break;
		case 1:
			if (fz_mut_absurd_count(c, &a->count_handles))
				break;
			a->points = fz_bad_ptr(c);
			a->count_handles = a->count_handles ?: 1;
			fz_mut(c, "points unmapped", true);
			break;
		case 2:
			a->points = fz_bad_ptr(c);
			a->count_handles = a->count_handles ?: 1;
			fz_mut(c, "points unmapped", true);
			break;
		case 3:
		case 4:
		case 5:
		case 6:
		case 7:
			fz_mut_so_array(c, &a->handles, &a->count_handles,
					false);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "count %u flags %#x", a->count_handles, a->flags);
}

static void gen_so_reset_signal(struct fz_ctx *c)
{
	struct drm_syncobj_array *a = &c->call.arg.so_array;
	uint32_t h[4];

	a->handles = fz_so_array(c, &a->count_handles, h, NULL);
	while (fz_mutate(c)) {
		switch (fz_below(c, 8)) {
		case 0:
			a->pad = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad", true);
			break;
		case 1:
			if (fz_mut_absurd_count(c, &a->count_handles))
				break;
			fz_mut_so_array(c, &a->handles, &a->count_handles,
					true);
			break;
		case 2:
		case 3:
		case 4:
		case 5:
		case 6:
			fz_mut_so_array(c, &a->handles, &a->count_handles,
					true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "count %u", a->count_handles);
}

static void gen_so_reset(struct fz_ctx *c)
{
	gen_so_reset_signal(c);
}

static void gen_so_signal(struct fz_ctx *c)
{
	gen_so_reset_signal(c);
}

static void gen_so_tl_signal(struct fz_ctx *c)
{
	struct drm_syncobj_timeline_array *a = &c->call.arg.so_tl_array;
	uint64_t points[4];
	uint32_t h[4], i;

	a->handles = fz_so_array(c, &a->count_handles, h, NULL);
	/* Points that go up, per syncobj, mostly. */
	for (i = 0; i < a->count_handles; i++) {
		int k = fz_find_so(c, h[i]);

		points[i] = k < 0 ? fz_below(c, 4) :
			    (c->so[k].point += fz_range(c, 1, 2));
	}
	a->points = fz_one_in(c, 8) ? 0 :
		    fz_put(c, points, a->count_handles * sizeof(points[0]),
			   fz_good_place(c), 0);
	while (fz_mutate(c)) {
		switch (fz_below(c, 9)) {
		case 0:
			a->flags = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "flags", true);
			break;
		case 1:
			if (fz_mut_absurd_count(c, &a->count_handles))
				break;
			a->points = fz_bad_ptr(c);
			a->count_handles = a->count_handles ?: 1;
			fz_mut(c, "points unmapped", true);
			break;
		case 2:
			a->points = fz_bad_ptr(c);
			a->count_handles = a->count_handles ?: 1;
			fz_mut(c, "points unmapped", true);
			break;
		case 3:
		case 4:
		case 5:
		case 6:
		case 7:
			fz_mut_so_array(c, &a->handles, &a->count_handles,
					true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "count %u flags %#x", a->count_handles, a->flags);
}

static void gen_so_query(struct fz_ctx *c)
{
	struct drm_syncobj_timeline_array *a = &c->call.arg.so_tl_array;
	uint32_t h[4];

	a->handles = fz_so_array(c, &a->count_handles, h, NULL);
	/* The kernel writes the points. */
	a->points = (uintptr_t)c->out + 8 * fz_below(c, FZ_OUT / 8 - 4);
	a->flags = fz_below(c, 2) ? DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED : 0;
	while (fz_mutate(c)) {
		switch (fz_below(c, 10)) {
		case 0:
			a->flags |= 2u << fz_below(c, 31);
			fz_mut(c, "unknown flag", true);
			break;
		case 1:
		case 2:
			if (fz_below(c, 2) &&
			    fz_mut_absurd_count(c, &a->count_handles))
				break;
			a->points = fz_below(c, 2) ? fz_bad_ptr(c) :
				    (uintptr_t)c->ro + 8 * fz_below(c, 64);
			fz_mut(c, "points unwritable", true);
			break;
		case 3:
			/* Only the first points fit before PROT_NONE. */
			a->count_handles = a->count_handles > 1 ?
					   a->count_handles : 2;
			a->points = (uintptr_t)c->out + FZ_OUT -
				    8 * fz_range(c, 1, a->count_handles - 1);
			fz_mut(c, "points run into PROT_NONE", true);
			break;
		case 4:
		case 5:
		case 6:
		case 7:
			fz_mut_so_array(c, &a->handles, &a->count_handles,
					true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "count %u flags %#x", a->count_handles, a->flags);
}

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
		switch (fz_below(c, 5)) {
		case 0:
			a->pad = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad", true);
			break;
		case 1:
			a->src_handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad source", true);
			break;
		case 2:
			a->dst_handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad destination", true);
			break;
		case 3:
			if (!fz.core_guards) {
				fz_mut_arg(c, true);
				break;
			}
			a->flags |= 1u << fz_range(c, 0, 31);
			a->flags &= ~DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
			if (!a->flags)
				a->flags = 4;
			fz_mut(c, "unknown flag (core guard)", true);
			/* Else a bad handle may fail it first. */
			if (!c->shared && fz_find_so(c, a->src_handle) >= 0 &&
			    fz_find_so(c, a->dst_handle) >= 0)
				c->call.want = fz_want_einval;
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "src %u@%llu dst %u@%llu flags %#x", a->src_handle,
		  (unsigned long long)a->src_point, a->dst_handle,
		  (unsigned long long)a->dst_point, a->flags);
}

static void gen_so_eventfd(struct fz_ctx *c)
{
	struct fz_syncobj_eventfd *a = &c->call.arg.so_eventfd;

	a->handle = fz_so_handle(c);
	a->flags = fz_below(c, 2) ? DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE : 0;
	a->point = fz_below(c, 4);
	a->fd = c->evfd;
	while (fz_mutate(c)) {
		switch (fz_below(c, 5)) {
		case 0:
			a->flags |= 1u << fz_below(c, 32);
			if (!(a->flags & ~DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE))
				a->flags |= 1;
			fz_mut(c, "unknown flag", true);
			break;
		case 1:
			a->pad = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad", true);
			break;
		case 2:
			a->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad handle", true);
			break;
		case 3:
			a->fd = fz_below(c, 2) ? -1 : c->fd;
			fz_mut(c, "fd not an eventfd", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "handle %u flags %#x point %llu fd %d", a->handle,
		  a->flags, (unsigned long long)a->point, a->fd);
}

/* --- core: caps, version, refused and unknown numbers -------------------- */

static const struct {
	uint64_t cap;
	uint64_t value;
} fz_caps[] = {
	{ DRM_CAP_PRIME, DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT },
	{ DRM_CAP_TIMESTAMP_MONOTONIC, 1 },
	{ DRM_CAP_SYNCOBJ, 1 },
	{ DRM_CAP_SYNCOBJ_TIMELINE, 1 },
};

static void gen_get_cap(struct fz_ctx *c)
{
	struct drm_get_cap *a = &c->call.arg.get_cap;
	unsigned int i = (unsigned int)fz_below(c, ARRAY_SIZE(fz_caps));

	a->capability = fz_caps[i].cap;
	a->value = fz_r(c);
	c->call.v[0] = fz_caps[i].value;
	c->call.strict = c->call.mode == FZ_VALID;
	while (fz_mutate(c)) {
		if (fz_below(c, 3)) {
			/* The other caps are for KMS drivers, or unknown. */
			do {
				a->capability = fz_below(c, 2) ?
						fz_range(c, 1, 0x40) : fz_r(c);
				for (i = 0; i < ARRAY_SIZE(fz_caps); i++)
					if (fz_caps[i].cap == a->capability)
						break;
			} while (i < ARRAY_SIZE(fz_caps));
			fz_mut(c, "cap a render node has not", true);
		} else {
			fz_mut_arg(c, true);
		}
	}
	fz_detail(c, "cap %#llx", (unsigned long long)a->capability);
}

static void check_get_cap(struct fz_ctx *c, int ret)
{
	struct drm_get_cap *a = &c->call.arg.get_cap;

	if (!ret && c->call.argplace == FZ_PLACE_RW &&
	    c->call.mode == FZ_VALID && a->value != c->call.v[0])
		fz_fail(c, "GET_CAP %#llx returned %llu, not %llu",
			(unsigned long long)a->capability,
			(unsigned long long)a->value,
			(unsigned long long)c->call.v[0]);
}

static void gen_version(struct fz_ctx *c)
{
	struct drm_version *a = &c->call.arg.version;

	/* The kernel writes at most the strings' lengths (< 256). */
	a->name_len = fz_below(c, 64);
	a->name = (char *)c->out;
	a->date_len = fz_below(c, 64);
	a->date = (char *)c->out + 256;
	a->desc_len = fz_below(c, 256);
	a->desc = (char *)c->out + 512;
	a->version_major = (int)fz_r(c);
	memset(c->out, 0, 1024);
	while (fz_mutate(c)) {
		switch (fz_below(c, 3)) {
		case 0:
			a->name_len = a->name_len ?: 1;
			a->name = (char *)(uintptr_t)(fz_below(c, 2) ?
				  fz_bad_ptr(c) : (uintptr_t)c->ro);
			fz_mut(c, "name unwritable", true);
			break;
		case 1:
			a->desc_len = a->desc_len ?: 1;
			a->desc = (char *)(uintptr_t)fz_bad_ptr(c);
			fz_mut(c, "desc unwritable", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	c->call.v[0] = a->name_len;
	c->call.strict = c->call.mode == FZ_VALID;
	fz_detail(c, "name_len %zu desc_len %zu", (size_t)a->name_len,
		  (size_t)a->desc_len);
}

static void check_version(struct fz_ctx *c, int ret)
{
	struct drm_version *a = &c->call.arg.version;
	size_t n = c->call.v[0] < 5 ? c->call.v[0] : 5;

	if (ret || c->call.argplace != FZ_PLACE_RW || c->call.mode != FZ_VALID)
		return;
	if (a->version_major != DRM_WEAVE_UAPI_MAJOR || a->name_len != 5 ||
	    memcmp(c->out, "weave", n))
		fz_fail(c, "VERSION: major %d, name \"%.5s\" of length %zu",
			a->version_major, (const char *)c->out,
			(size_t)a->name_len);
}

static void gen_forbidden(struct fz_ctx *c)
{
	uint8_t nr = fz_forbidden_nr[fz_below(c, sizeof(fz_forbidden_nr))];

	c->call.req = _IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, nr, 64);
	memset(&c->call.arg, 0, 64);
	c->call.must_fail = c->call.mode != FZ_RANDOM;
	fz_mut(c, "refused on a render node", true);
	fz_detail(c, "nr %#x", nr);
}

static void gen_unknown(struct fz_ctx *c)
{
	unsigned int nr = DRM_COMMAND_BASE + DRM_WEAVE_GRAPH_DESTROY + 1 +
		(unsigned int)fz_below(c, DRM_COMMAND_END - DRM_COMMAND_BASE -
					  DRM_WEAVE_GRAPH_DESTROY - 1);
	unsigned int size = (unsigned int)fz_below(c, 257);

	c->call.req = _IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, nr, size);
	c->call.arg.raw[0] = fz_r(c);
	c->call.must_fail = c->call.mode != FZ_RANDOM;
	fz_mut(c, "no such driver ioctl", true);
	fz_detail(c, "nr %#x size %u", nr, size);
}

static void gen_not_drm(struct fz_ctx *c)
{
	unsigned int type = (unsigned int)fz_below(c, 256);

	if (type == DRM_IOCTL_BASE)
		type++;
	c->call.req = _IOC(_IOC_READ | _IOC_WRITE, type,
			   (unsigned int)fz_below(c, 256), 64);
	c->call.must_fail = c->call.mode != FZ_RANDOM;
	fz_mut(c, "not a DRM ioctl", true);
	fz_detail(c, "req %#lx", c->call.req);
}

/* --- the table ---------------------------------------------------------- */

static const struct fz_opdesc fz_ops[OP_NR] = {
	[OP_QUERY] = { "QUERY", errs_query, 40, gen_query, check_query },
	[OP_BO_CREATE] = { "BO_CREATE", errs_bo_create, 50, gen_bo_create,
			   check_bo_create },
	[OP_MMAP_OFFSET] = { "BO_MMAP_OFFSET", errs_mmap_offset, 30,
			     gen_mmap_offset, check_mmap_offset },
	[OP_STREAM_CREATE] = { "STREAM_CREATE", errs_stream_create, 40,
			       gen_stream_create, check_stream_create },
	[OP_STREAM_DESTROY] = { "STREAM_DESTROY", errs_stream_destroy, 25,
				gen_stream_destroy, check_stream_destroy },
	[OP_ENQUEUE] = { "ENQUEUE", errs_enqueue, 260, gen_enqueue,
			 check_enqueue },
	[OP_FLUSH] = { "FLUSH", errs_flush, 80, gen_flush, check_flush },
	[OP_ISOLATE] = { "STREAM_ISOLATE", errs_isolate, 20, gen_isolate,
			 check_isolate },
	[OP_WAIT] = { "WAIT", errs_wait, 40, gen_wait, check_wait },
	[OP_STREAM_QUERY] = { "STREAM_QUERY", errs_stream_query, 40,
			      gen_stream_query, check_stream_query },
	[OP_SET_PARAM] = { "SET_PARAM", errs_set_param, 15, gen_set_param,
			   NULL },
	[OP_CHECK] = { "CHECK", errs_check, 40, gen_check, check_check },
	[OP_READ] = { "READ", errs_read, 30, gen_read, NULL },
	[OP_CAPTURE] = { "CAPTURE", errs_capture, 40, gen_capture,
			 check_capture },
	[OP_REPLAY] = { "REPLAY", errs_replay, 30, gen_replay, check_replay },
	[OP_GRAPH_DESTROY] = { "GRAPH_DESTROY", errs_graph_destroy, 10,
			       gen_graph_destroy, check_graph_destroy },
	[OP_GEM_CLOSE] = { "GEM_CLOSE", errs_gem_close, 30, gen_gem_close,
			   check_gem_close },
	[OP_PRIME_EXPORT] = { "PRIME_HANDLE_TO_FD", errs_prime_export, 20,
			      gen_prime_export, check_prime_export },
	[OP_PRIME_IMPORT] = { "PRIME_FD_TO_HANDLE", errs_prime_import, 20,
			      gen_prime_import, check_prime_import },
	[OP_SO_CREATE] = { "SYNCOBJ_CREATE", errs_so_create, 30,
			   gen_so_create, check_so_create },
	[OP_SO_DESTROY] = { "SYNCOBJ_DESTROY", errs_so_destroy, 20,
			    gen_so_destroy, check_so_destroy },
	[OP_SO_EXPORT] = { "SYNCOBJ_HANDLE_TO_FD", errs_so_export, 20,
			   gen_so_export, check_so_export },
	[OP_SO_IMPORT] = { "SYNCOBJ_FD_TO_HANDLE", errs_so_import, 20,
			   gen_so_import, check_so_import },
	[OP_SO_WAIT] = { "SYNCOBJ_WAIT", errs_so_wait, 20, gen_so_wait,
			 check_so_wait },
	[OP_SO_TL_WAIT] = { "SYNCOBJ_TIMELINE_WAIT", errs_so_wait, 20,
			    gen_so_tl_wait, NULL },
	[OP_SO_RESET] = { "SYNCOBJ_RESET", errs_so_array, 15, gen_so_reset,
			  NULL },
	[OP_SO_SIGNAL] = { "SYNCOBJ_SIGNAL", errs_so_array, 15,
			   gen_so_signal, NULL },
	[OP_SO_TL_SIGNAL] = { "SYNCOBJ_TIMELINE_SIGNAL", errs_so_array, 15,
			      gen_so_tl_signal, NULL },
	[OP_SO_QUERY] = { "SYNCOBJ_QUERY", errs_so_array, 15, gen_so_query,
			  NULL },
	[OP_SO_TRANSFER] = { "SYNCOBJ_TRANSFER", errs_so_transfer, 20,
			     gen_so_transfer, NULL },
	[OP_SO_EVENTFD] = { "SYNCOBJ_EVENTFD", errs_so_eventfd, 8,
			    gen_so_eventfd, NULL },
	[OP_GET_CAP] = { "GET_CAP", errs_get_cap, 8, gen_get_cap,
			 check_get_cap },
	[OP_VERSION] = { "VERSION", errs_version, 8, gen_version,
			 check_version },
	[OP_FORBIDDEN] = { "refused core ioctl", errs_forbidden, 5,
			   gen_forbidden, NULL },
	[OP_UNKNOWN] = { "unknown driver ioctl", errs_unknown, 5,
			 gen_unknown, NULL },
	[OP_NOT_DRM] = { "non-DRM ioctl", errs_not_drm, 3, gen_not_drm,
			 NULL },
};

static const unsigned long fz_reqs[OP_NR] = {
	[OP_QUERY] = DRM_IOCTL_WEAVE_QUERY,
	[OP_BO_CREATE] = DRM_IOCTL_WEAVE_BO_CREATE,
	[OP_MMAP_OFFSET] = DRM_IOCTL_WEAVE_BO_MMAP_OFFSET,
	[OP_STREAM_CREATE] = DRM_IOCTL_WEAVE_STREAM_CREATE,
	[OP_STREAM_DESTROY] = DRM_IOCTL_WEAVE_STREAM_DESTROY,
	[OP_ENQUEUE] = DRM_IOCTL_WEAVE_ENQUEUE,
	[OP_FLUSH] = DRM_IOCTL_WEAVE_FLUSH,
	[OP_ISOLATE] = DRM_IOCTL_WEAVE_STREAM_ISOLATE,
	[OP_WAIT] = DRM_IOCTL_WEAVE_WAIT,
	[OP_STREAM_QUERY] = DRM_IOCTL_WEAVE_STREAM_QUERY,
	[OP_SET_PARAM] = DRM_IOCTL_WEAVE_SET_PARAM,
	[OP_CHECK] = DRM_IOCTL_WEAVE_CHECK,
	[OP_READ] = DRM_IOCTL_WEAVE_READ,
	[OP_CAPTURE] = DRM_IOCTL_WEAVE_CAPTURE,
	[OP_REPLAY] = DRM_IOCTL_WEAVE_REPLAY,
	[OP_GRAPH_DESTROY] = DRM_IOCTL_WEAVE_GRAPH_DESTROY,
	[OP_GEM_CLOSE] = DRM_IOCTL_GEM_CLOSE,
	[OP_PRIME_EXPORT] = DRM_IOCTL_PRIME_HANDLE_TO_FD,
	[OP_PRIME_IMPORT] = DRM_IOCTL_PRIME_FD_TO_HANDLE,
	[OP_SO_CREATE] = DRM_IOCTL_SYNCOBJ_CREATE,
	[OP_SO_DESTROY] = DRM_IOCTL_SYNCOBJ_DESTROY,
	[OP_SO_EXPORT] = DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD,
	[OP_SO_IMPORT] = DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE,
	[OP_SO_WAIT] = DRM_IOCTL_SYNCOBJ_WAIT,
	[OP_SO_TL_WAIT] = DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT,
	[OP_SO_RESET] = DRM_IOCTL_SYNCOBJ_RESET,
	[OP_SO_SIGNAL] = DRM_IOCTL_SYNCOBJ_SIGNAL,
	[OP_SO_TL_SIGNAL] = DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
	[OP_SO_QUERY] = DRM_IOCTL_SYNCOBJ_QUERY,
	[OP_SO_TRANSFER] = DRM_IOCTL_SYNCOBJ_TRANSFER,
	[OP_SO_EVENTFD] = FZ_IOCTL_SYNCOBJ_EVENTFD,
	[OP_GET_CAP] = DRM_IOCTL_GET_CAP,
	[OP_VERSION] = DRM_IOCTL_VERSION,
};

static enum fz_op fz_pick_op(struct fz_ctx *c)
{
	unsigned int i, r, total = 0;

	for (i = 0; i < OP_NR; i++)
		total += fz_ops[i].weight;
	r = (unsigned int)fz_below(c, total);
	for (i = 0; i < OP_NR - 1; i++) {
		if (r < fz_ops[i].weight)
			break;
		r -= fz_ops[i].weight;
	}
	return (enum fz_op)i;
}

/* Where a random array pointer goes: zeros, scratch, data or nowhere. */
static uint64_t fz_raw_ptr(struct fz_ctx *c)
{
	switch (fz_below(c, 4)) {
	case 0:
		return (uintptr_t)fz.zeros + 8 * fz_below(c, 64);
	case 1:
		return (uintptr_t)c->rw + 8 * fz_below(c, 4096);
	case 2:
		return (uintptr_t)c->data + fz_below(c, 4096);
	default:
		return fz_bad_ptr(c);
	}
}

/*
 * An array the kernel writes, made random: in the out buffer, at @at, and
 * within half of it, or nowhere.
 */
static void fz_raw_out(struct fz_ctx *c, struct drm_weave_array *arr,
		       size_t at)
{
	arr->ptr = fz_below(c, 4) ? (uintptr_t)c->out + at : fz_bad_ptr(c);
	if (arr->stride && arr->stride <= DRM_WEAVE_MAX_STRIDE &&
	    arr->count > (FZ_OUT / 2) / arr->stride)
		arr->count = (FZ_OUT / 2) / arr->stride;
}

/*
 * A random struct: every word random, then only what keeps the fuzzer
 * safe is fixed.  Memory the kernel writes is the out buffer or none;
 * buffers stay small; syncobj counts stay sane (absurd ones are the core
 * guards' mutation); TRANSFER gets no unknown flag unless the guards are
 * on.  Waits may be long: the timer interrupts them.
 */
static void fz_raw(struct fz_ctx *c)
{
	union fz_arg *a = &c->call.arg;
	size_t i, size = _IOC_SIZE(c->call.req);
	uint32_t *w = (uint32_t *)a;

	c->call.mode = FZ_RANDOM;
	c->call.nmut = 0;
	for (i = 0; i < size / 4; i++)
		w[i] = fz_below(c, 3) ? (uint32_t)fz_below(c, 40) :
					 (uint32_t)fz_edgy(c);
	fz_mut(c, "random struct", false);
	switch (c->call.op) {
	case OP_QUERY:
		if (fz_below(c, 2)) {
			a->query.size %= FZ_OUT + 1;
			a->query.pointer = (uintptr_t)c->out +
				fz_below(c, FZ_OUT - a->query.size + 1);
		} else {
			a->query.pointer = fz_bad_ptr(c);
		}
		c->call.v[0] = a->query.size;
		c->call.v[1] = a->query.pointer;
		break;
	case OP_BO_CREATE:
		if (a->bo_create.size > FZ_MAX_BO &&
		    a->bo_create.size <= fz.info.max_bo_size)
			a->bo_create.size %= FZ_MAX_BO;
		if (c->live_bytes + FZ_MAX_BO > FZ_LIVE_BYTES &&
		    a->bo_create.size <= fz.info.max_bo_size)
			a->bo_create.size %= fz.page;
		c->call.v[0] = a->bo_create.size;
		c->call.v[1] = a->bo_create.flags;
		break;
	case OP_ENQUEUE:
		a->enqueue.tasks.ptr = fz_raw_ptr(c);
		a->enqueue.in_syncs.ptr = fz_raw_ptr(c);
		c->call.v[0] = a->enqueue.tasks.count;
		break;
	case OP_CHECK:
		/* The kernel writes the counts into the ranges it read. */
		a->check.ranges.ptr = fz_raw_ptr(c);
		fz_raw_out(c, &a->check.failures, 0);
		fz_raw_out(c, &a->check.skips, FZ_OUT / 2);
		break;
	case OP_READ:
		/* The bytes go to the out buffer's first half, a report after. */
		a->read.data = fz_below(c, 4) ? (uintptr_t)c->out :
						fz_bad_ptr(c);
		a->read.size %= FZ_OUT / 2 + 1;
		fz_raw_out(c, &a->read.failures, FZ_OUT / 2);
		fz_raw_out(c, &a->read.skips, FZ_OUT / 2);
		if (a->read.failures.ptr == (uintptr_t)c->out + FZ_OUT / 2 &&
		    a->read.skips.ptr == a->read.failures.ptr)
			a->read.skips.count = 0;
		break;
	case OP_REPLAY:
		a->replay.in_syncs.ptr = fz_raw_ptr(c);
		break;
	case OP_SO_EXPORT:
	case OP_SO_IMPORT:
		c->call.v[0] = a->so_handle.flags;
		break;
	case OP_SO_WAIT:
		a->so_wait.handles = fz_raw_ptr(c);
		a->so_wait.count_handles %= FZ_SANE_COUNT + 1;
		c->call.v[0] = a->so_wait.count_handles;
		c->call.v[1] = a->so_wait.flags;
		break;
	case OP_SO_TL_WAIT:
		a->so_tl_wait.handles = fz_raw_ptr(c);
		a->so_tl_wait.points = fz_raw_ptr(c);
		a->so_tl_wait.count_handles %= FZ_SANE_COUNT + 1;
		break;
	case OP_SO_RESET:
	case OP_SO_SIGNAL:
		a->so_array.handles = fz_raw_ptr(c);
		a->so_array.count_handles %= FZ_SANE_COUNT + 1;
		break;
	case OP_SO_TL_SIGNAL:
		a->so_tl_array.handles = fz_raw_ptr(c);
		a->so_tl_array.points = fz_raw_ptr(c);
		a->so_tl_array.count_handles %= FZ_SANE_COUNT + 1;
		break;
	case OP_SO_QUERY:
		/* The kernel writes count points. */
		a->so_tl_array.handles = fz_raw_ptr(c);
		a->so_tl_array.count_handles %= 65;
		a->so_tl_array.points = fz_below(c, 2) ? fz_bad_ptr(c) :
			(uintptr_t)c->out + 8 * fz_below(c, FZ_OUT / 8 - 64);
		break;
	case OP_SO_TRANSFER:
		if (!fz.core_guards)
			a->so_transfer.flags &=
				DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
		break;
	case OP_VERSION:
		/* The kernel writes at most the strings' lengths (< 256). */
		a->version.name = (char *)(uintptr_t)(fz_below(c, 4) ?
			(uintptr_t)c->out : fz_bad_ptr(c));
		a->version.date = (char *)(uintptr_t)(fz_below(c, 4) ?
			(uintptr_t)c->out + 256 : fz_bad_ptr(c));
		a->version.desc = (char *)(uintptr_t)(fz_below(c, 4) ?
			(uintptr_t)c->out + 512 : fz_bad_ptr(c));
		break;
	default:
		break;
	}
}

/* One random call, built, made and checked. */
static void fz_step(struct fz_ctx *c)
{
	enum fz_op op = fz_pick_op(c);

	fz_begin(c, op, fz_reqs[op]);
	if (op == OP_CAPTURE) {
		/* Windows may open: ENQUEUE, FLUSH and WAIT check them. */
		c->captured = true;
		if (c->shared)
			atomic_store(&fz.shared_captured, 1);
	}
	if (op < OP_FORBIDDEN && fz_one_in(c, 16))
		fz_raw(c);
	else
		fz_ops[op].gen(c);
	fz_issue(c);
}

/* --- files that come and go ---------------------------------------------- */

/*
 * Opens a file of its own, gives it work (some of it on a buffer it
 * shares), and closes it while the work runs.  The shared buffer outlives
 * the file through its dma-buf.
 */
static void fz_side_file(struct fz_ctx *c)
{
	struct weave_test_batch b;
	uint32_t stream = 0, bo = 0;
	uint64_t size = fz.page * fz_range(c, 1, 4);
	int fd, dmabuf = -1, i, n;

	fd = weave_device_open(0);
	if (fd < 0) {
		fz_fail(c, "cannot open a second file: %s", strerror(-fd));
		return;
	}
	c->side_files++;
	if (weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &stream) ||
	    weave_bo_create(fd, &size, 0, &bo)) {
		fz_fail(c, "side file: cannot create a stream or buffer");
		close(fd);
		return;
	}
	n = (int)fz_range(c, 1, 6);
	for (i = 0; i < n; i++) {
		weave_test_batch_init(&b);
		weave_test_delay(&b, (uint32_t)fz_range(c, 100, 3000));
		weave_test_fill_task(&b, bo, 0, size, (uint32_t)fz_r(c));
		if (weave_test_submit(fd, stream, &b) ||
		    (fz_below(c, 2) && weave_flush(fd, stream, NULL))) {
			fz_fail(c, "side file: cannot queue work");
			break;
		}
	}
	if (fz_below(c, 2) && !weave_bo_export(fd, bo, DRM_CLOEXEC, &dmabuf))
		fz_share_dmabuf(c, dmabuf);
	close(fd);
}

/* Closes the thread's own file with its work in flight, and reopens it. */
static void fz_reopen(struct fz_ctx *c)
{
	close(c->fd);
	fz_forget_file(c);
	c->reopens++;
	c->fd = weave_device_open(0);
	if (c->fd < 0)
		fz_fail(c, "cannot reopen the device: %s", strerror(-c->fd));
}

/* --- threads and the timer ------------------------------------------------ */

static void fz_on_alarm(int sig)
{
	(void)sig;
	atomic_fetch_add(&fz.signals, 1);
}

static __thread struct fz_ctx *fz_self;

/*
 * A crash of the fuzzer itself (or memory the kernel wrote where it must
 * not): say which call was being made, then die of the same signal.
 */
static void fz_on_crash(int sig)
{
	struct fz_ctx *c = fz_self;
	char buf[768];
	int len;

	if (c) {
		len = snprintf(buf, sizeof(buf),
			       "# fuzz: signal %d in thread %d, seed %#" PRIx64
			       ", iteration %" PRIu64 ", call %s [%s] %s\n",
			       sig, c->id, fz.seed, c->iter,
			       fz_ops[c->call.op].name, c->call.mut,
			       c->call.detail);
		if (len > 0 && write(STDERR_FILENO, buf,
				     (size_t)len < sizeof(buf) ? (size_t)len :
				     sizeof(buf) - 1) < 0)
			len = 0;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void *fz_thread(void *arg)
{
	struct fz_ctx *c = arg;
	sigset_t set;

	fz_self = c;
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	while (!atomic_load(&fz.stop) && fz_now() < fz.deadline &&
	       c->iter < fz.max_iters && c->fd >= 0) {
		c->iter++;
		if (fz_one_in(c, 1500)) {
			fz_side_file(c);
			continue;
		}
		if (c->may_reopen && fz_one_in(c, 6000)) {
			fz_reopen(c);
			continue;
		}
		fz_step(c);
	}
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	return NULL;
}

static int fz_ctx_init(struct fz_ctx *c, int id, int fd, bool shared)
{
	int memfd;

	memset(c, 0, sizeof(*c));
	c->id = id;
	c->rng = weave_rand_stream(fz.seed, (uint64_t)id);
	c->fd = fd;
	c->shared = shared;
	c->evfd = eventfd(0, EFD_CLOEXEC);
	c->enq = calloc(1, sizeof(*c->enq));
	memfd = memfd_create("weave-fuzz", MFD_CLOEXEC);
	if (c->evfd < 0 || !c->enq || memfd < 0 ||
	    ftruncate(memfd, FZ_SCRATCH))
		return -1;
	c->rw = fz_map_guarded(memfd, FZ_SCRATCH, PROT_READ | PROT_WRITE);
	c->ro = fz_map_guarded(memfd, FZ_SCRATCH, PROT_READ);
	close(memfd);
	c->data = fz_map_guarded(-1, FZ_DATA, PROT_READ | PROT_WRITE);
	c->out = fz_map_guarded(-1, FZ_OUT, PROT_READ | PROT_WRITE);
	if (!c->rw || !c->ro || !c->data || !c->out)
		return -1;
	memset(c->data, 0x5c ^ id, FZ_DATA);
	return 0;
}

static void fz_ctx_fini(struct fz_ctx *c)
{
	unsigned int i;

	for (i = 0; i < c->nfds; i++)
		close(c->fds[i].fd);
	c->nfds = 0;
	if (c->evfd >= 0)
		close(c->evfd);
	free(c->enq);
	munmap(c->rw, FZ_SCRATCH + fz.page);
	munmap(c->ro, FZ_SCRATCH + fz.page);
	munmap(c->data, FZ_DATA + fz.page);
	munmap(c->out, FZ_OUT + fz.page);
}

/* --- the checks after a run ----------------------------------------------- */

/*
 * Drains a file the fuzzer used: flushes everything, checks the counters
 * of the streams it knows, destroys every stream (also those it lost
 * track of), waits for the file to be idle and checks it is.  Then proves
 * the file still runs work correctly.
 */
static void fz_drain(struct __test_metadata *_metadata, int fd,
		     struct fz_ctx **ctxs, int nctx)
{
	struct drm_weave_client_usage u;
	struct drm_weave_stream_query q;
	struct weave_test_batch b;
	uint32_t stream, bo, res, *map;
	int64_t deadline;
	uint32_t h;
	int i, ret;
	unsigned int j;

	/*
	 * Windows closed first (a WAIT of a stream that records is -EBUSY),
	 * the graphs the threads hold destroyed; those they lost track of
	 * go with the file.
	 */
	for (i = 0; i < nctx; i++) {
		for (j = 0; j < ctxs[i]->nst; j++) {
			struct drm_weave_capture cap = {
				.stream = ctxs[i]->st[j].handle,
				.op = DRM_WEAVE_CAPTURE_ABORT,
			};

			ret = weave_test_ioctl(fd, DRM_IOCTL_WEAVE_CAPTURE,
					       &cap);
			if (ctxs[i]->shared && ret == -ENOENT)
				continue;
			ASSERT_EQ(0, ret) {
				TH_LOG("ABORT of the window of stream %u: %s",
				       cap.stream, strerror(-ret));
			}
			EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, cap.state);
		}
		for (j = 0; j < ctxs[i]->ngr; j++) {
			struct drm_weave_graph_destroy gd = {
				.graph = ctxs[i]->gr[j].handle,
			};

			ret = weave_test_ioctl(fd,
					       DRM_IOCTL_WEAVE_GRAPH_DESTROY,
					       &gd);
			if (!ctxs[i]->shared || ret != -ENOENT)
				EXPECT_EQ(0, ret) {
					TH_LOG("GRAPH_DESTROY of graph %u: %s",
					       gd.graph, strerror(-ret));
				}
		}
		ctxs[i]->ngr = 0;
	}
	ASSERT_EQ(0, weave_flush_all(fd, NULL));
	for (i = 0; i < nctx; i++) {
		for (j = 0; j < ctxs[i]->nst; j++) {
			struct fz_stream *st = &ctxs[i]->st[j];

			ret = weave_wait(fd, st->handle,
					 weave_timeout_ns(WEAVE_TEST_WAIT_NS));
			/* Another thread of the file may have destroyed it. */
			if (ctxs[i]->shared && ret == -ENOENT)
				continue;
			ASSERT_EQ(0, weave_stream_query(fd, st->handle, &q)) {
				TH_LOG("stream %u of thread %d is gone",
				       st->handle, ctxs[i]->id);
			}
			if (st->exact)
				EXPECT_EQ(st->enqueued, q.enqueued) {
					TH_LOG("stream %u of thread %d",
					       st->handle, ctxs[i]->id);
				}
			if (q.state == DRM_WEAVE_STREAM_FAILED) {
				/* Its queued tasks run when it is destroyed. */
				EXPECT_EQ(-ECANCELED, ret);
				EXPECT_TRUE(q.error == -ETIMEDOUT ||
					    q.error == -ENOMEM) {
					TH_LOG("stream %u failed with %d",
					       st->handle, q.error);
				}
				continue;
			}
			EXPECT_EQ(0, ret) {
				TH_LOG("WAIT on stream %u: %s", st->handle,
				       strerror(-ret));
			}
			EXPECT_EQ(q.enqueued, q.executed) {
				TH_LOG("stream %u of thread %d", st->handle,
				       ctxs[i]->id);
			}
			EXPECT_EQ(q.enqueued, q.completed) {
				TH_LOG("stream %u of thread %d", st->handle,
				       ctxs[i]->id);
			}
		}
	}
	/* Every stream, known or not: handles are small. */
	for (h = 1; h <= fz.info.max_client_streams; h++)
		if (!weave_stream_query(fd, h, &q))
			ASSERT_EQ(0, weave_stream_destroy(fd, h));

	deadline = weave_test_now() + 3 * WEAVE_TEST_WAIT_NS;
	for (;;) {
		u = weave_test_client_usage(_metadata, fd);
		if (!u.jobs && !u.pending_tasks)
			break;
		ASSERT_GT(deadline, weave_test_now()) {
			TH_LOG("file not idle: %llu jobs, %llu pending tasks",
			       (unsigned long long)u.jobs,
			       (unsigned long long)u.pending_tasks);
		}
		usleep(10000);
	}
	EXPECT_EQ(0u, u.queued_tasks);
	EXPECT_EQ(0u, u.staged_bytes);
	EXPECT_EQ(0u, u.alone_bytes);
	EXPECT_EQ(0u, u.streams);
	EXPECT_EQ(0u, u.gate_bytes);

	/* The file still runs work, and right. */
	stream = weave_test_stream(_metadata, fd, DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, fd, 4 * fz.page, 0);
	res = weave_test_bo(_metadata, fd, fz.page, 0);
	weave_test_batch_init(&b);
	weave_test_chain(&b, bo, fz.page, weave_test_chain_a(7),
			 weave_test_chain_b(7), res, 0);
	weave_test_enqueue(_metadata, fd, stream, &b);
	weave_test_finish(_metadata, fd, stream);
	map = weave_test_map(_metadata, fd, res, fz.page);
	EXPECT_EQ(weave_test_chain_crc(fz.page, weave_test_chain_a(7),
				       weave_test_chain_b(7)), map[0]);
	weave_test_unmap(_metadata, map, fz.page);
	weave_test_close_bo(_metadata, fd, bo);
	weave_test_close_bo(_metadata, fd, res);
	ASSERT_EQ(0, weave_stream_destroy(fd, stream));
}

/* --- runs ------------------------------------------------------------------ */


FIXTURE(fuzz) {
	int fd;			/* a file of its own, for usage queries */
	struct drm_weave_memory_usage base;
	long refcnt;
	int seconds;
};

/* WEAVE_FUZZ_SECONDS, or the default. */
static double fz_total_seconds(void)
{
	const char *env = getenv("WEAVE_FUZZ_SECONDS");
	double total = env ? strtod(env, NULL) : FZ_DEFAULT_SECONDS;

	return total > 0 ? total : FZ_DEFAULT_SECONDS;
}

/* The run's length: @share of WEAVE_FUZZ_SECONDS. */
static int fz_seconds(double share)
{
	double total = fz_total_seconds();
	int s;

	s = (int)(total * share + 0.5);
	if (s < 1)
		s = 1;
	if (s > FZ_MAX_SECONDS)
		s = FZ_MAX_SECONDS;
	return s;
}

FIXTURE_SETUP(fuzz)
{
	const char *env;

	self->fd = weave_test_open(_metadata);
	fz.info = weave_test_info(_metadata, self->fd);
	fz.page = fz.info.page_size;
	self->base = weave_test_usage(_metadata, self->fd);
	self->refcnt = weave_test_settled_refs();
	ASSERT_LT(0, self->refcnt);

	env = getenv("WEAVE_FUZZ_SEED");
	fz.seed = env ? strtoull(env, NULL, 0) : weave_rand_seed();
	env = getenv("WEAVE_FUZZ_ITERS");
	fz.max_iters = env ? strtoull(env, NULL, 0) : UINT64_MAX;
	env = getenv("WEAVE_FUZZ_CORE_GUARDS");
	fz.core_guards = env ? atoi(env) != 0 : WEAVE_FUZZ_CORE_GUARDS;
	atomic_store(&fz.stop, 0);
	atomic_store(&fz.signals, 0);
	atomic_store(&fz.shared_captured, 0);
	fz.failure[0] = 0;
	fz.ndmabuf = 0;
	pthread_mutex_init(&fz.lock, NULL);

	fz.none = mmap(NULL, fz.page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	ASSERT_NE(MAP_FAILED, fz.none);
	fz.zeros = fz_map_guarded(-1, FZ_ZEROS, PROT_READ);
	ASSERT_NE(NULL, fz.zeros);
}

FIXTURE_TEARDOWN(fuzz)
{
	close(self->fd);
}

/* The threads of a run: which file each uses. */
struct fz_layout {
	int nthreads;
	int nshared;		/* the first nshared share one file */
	double share;		/* of WEAVE_FUZZ_SECONDS */
};

static void fz_run(struct __test_metadata *_metadata,
		   FIXTURE_DATA(fuzz) *self, const struct fz_layout *l)
{
	struct itimerval tv = { { 0, 1500 }, { 0, 1500 } };
	struct fz_ctx *ctx[8], *shared[8];
	uint64_t calls = 0, fails = 0, eintr = 0, hangs = 0, side = 0;
	uint64_t reopens = 0, per_op[OP_NR] = { 0 };
	uint64_t prepared = 0, begun = 0, sealed = 0, sealed_tasks = 0;
	uint64_t doomed = 0, abandoned = 0, recorded = 0, replays = 0;
	uint64_t replayed_tasks = 0;
	pthread_t th[8];
	struct timespec ts;
	struct sigaction sa;
	sigset_t set;
	int64_t start, elapsed;
	int shared_fd = -1, i, nshared = 0;
	unsigned int k;

	self->seconds = fz_seconds(l->share);
	ksft_print_msg("fuzz: seed %#" PRIx64 ", %d s, %d threads (%d on one file), core guards %s; replay: make fuzz SEED=%#" PRIx64 "\n",
		       fz.seed, self->seconds, l->nthreads, l->nshared,
		       fz.core_guards ? "on" : "off", fz.seed);
	fflush(stdout);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fz_on_alarm;	/* no SA_RESTART: EINTR */
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	sa.sa_handler = fz_on_crash;
	sa.sa_flags = SA_RESETHAND;
	ASSERT_EQ(0, sigaction(SIGSEGV, &sa, NULL));
	ASSERT_EQ(0, sigaction(SIGBUS, &sa, NULL));
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	ASSERT_EQ(0, pthread_sigmask(SIG_BLOCK, &set, NULL));

	if (l->nshared)
		shared_fd = weave_test_open(_metadata);
	for (i = 0; i < l->nthreads; i++) {
		bool sh = i < l->nshared;
		int fd = sh ? shared_fd : weave_test_open(_metadata);

		ctx[i] = malloc(sizeof(*ctx[i]));
		ASSERT_NE(NULL, ctx[i]);
		ASSERT_EQ(0, fz_ctx_init(ctx[i], i, fd, sh));
		/* Half the private files are closed early now and then. */
		ctx[i]->may_reopen = !sh && l->nthreads > 1 && i % 2 == 0;
		ctx[i]->hangs_left = 1;
		if (sh)
			shared[nshared++] = ctx[i];
	}

	start = weave_test_now();
	fz.deadline = start + self->seconds * WEAVE_TEST_SEC;
	for (i = 0; i < l->nthreads; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, fz_thread, ctx[i]));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &tv, NULL));

	/* A thread stuck in an ioctl shows here, with its call. */
	for (i = 0; i < l->nthreads; i++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += self->seconds + 120;
		if (pthread_timedjoin_np(th[i], NULL, &ts)) {
			ksft_print_msg("fuzz: thread %d is stuck, iteration %" PRIu64 ": %s [%s] %s\n",
				       i, ctx[i]->iter,
				       fz_ops[ctx[i]->call.op].name,
				       ctx[i]->call.mut, ctx[i]->call.detail);
			abort();
		}
	}
	elapsed = weave_test_now() - start;
	memset(&tv, 0, sizeof(tv));
	setitimer(ITIMER_REAL, &tv, NULL);

	for (i = 0; i < l->nthreads; i++) {
		calls += ctx[i]->calls;
		fails += ctx[i]->fails_expected;
		eintr += ctx[i]->eintr;
		hangs += ctx[i]->hangs;
		side += ctx[i]->side_files;
		reopens += ctx[i]->reopens;
		for (k = 0; k < OP_NR; k++)
			per_op[k] += ctx[i]->per_op[k];
		prepared += ctx[i]->prepared;
		begun += ctx[i]->begun;
		sealed += ctx[i]->sealed;
		sealed_tasks += ctx[i]->sealed_tasks;
		doomed += ctx[i]->doomed;
		abandoned += ctx[i]->abandoned;
		recorded += ctx[i]->recorded;
		replays += ctx[i]->replays;
		replayed_tasks += ctx[i]->replayed_tasks;
	}
	ksft_print_msg("fuzz: %" PRIu64 " ioctls in %.1f s (%.0f/s), %" PRIu64
		       " made invalid and refused, %" PRIu64 " EINTR of %lu signals, %" PRIu64
		       " hangs, %" PRIu64 " files closed busy, %" PRIu64 " reopened\n",
		       calls, elapsed / 1e9, calls / (elapsed / 1e9), fails, eintr,
		       atomic_load(&fz.signals), hangs, side, reopens);
	for (k = 0; k < OP_NR; k++)
		ksft_print_msg("fuzz:   %-24s %" PRIu64 "\n", fz_ops[k].name,
			       per_op[k]);
	ksft_print_msg("fuzz: capture: %" PRIu64 " windows prepared, %" PRIu64
		       " begun, %" PRIu64 " launches recorded, %" PRIu64
		       " graphs sealed (%" PRIu64 " tasks), %" PRIu64
		       " doomed, %" PRIu64 " abandoned; %" PRIu64
		       " replays (%" PRIu64 " tasks)\n",
		       prepared, begun, recorded, sealed, sealed_tasks, doomed,
		       abandoned, replays, replayed_tasks);
	fflush(stdout);

	ASSERT_EQ(0, fz.failure[0]) {
		TH_LOG("%s", fz.failure);
		TH_LOG("replay: WEAVE_FUZZ_SEED=%#" PRIx64 " WEAVE_FUZZ_SECONDS=%g, or make fuzz SEED=%#" PRIx64 " SECONDS=%g",
		       fz.seed, fz_total_seconds(), fz.seed,
		       fz_total_seconds());
	}
	/*
	 * Windows went all the way, into graphs that were replayed: one
	 * graph in 4000 to 12000 calls.
	 */
	if (calls >= 100000 && fz.max_iters == UINT64_MAX) {
		EXPECT_LT(0u, begun);
		EXPECT_LT(0u, recorded);
		EXPECT_LT(0u, sealed);
		EXPECT_LT(0u, replays);
	}
	/*
	 * Every op was tried: a table entry that never runs tests nothing.
	 * (Unless the run was cut short: the rarest op is one call in 400.)
	 */
	for (k = 0; k < OP_NR && calls >= 5000 && fz.max_iters == UINT64_MAX;
	     k++) {
		const char *name = fz_ops[k].name ?: "?";

		EXPECT_LT(0u, per_op[k]) {
			TH_LOG("%s was never called", name);
		}
	}

	/* Each file drains, is idle, and still works. */
	if (nshared)
		fz_drain(_metadata, shared_fd, shared, nshared);
	for (i = 0; i < l->nthreads; i++)
		if (!ctx[i]->shared)
			fz_drain(_metadata, ctx[i]->fd, &ctx[i], 1);

	for (i = 0; i < l->nthreads; i++) {
		if (!ctx[i]->shared)
			close(ctx[i]->fd);
		fz_ctx_fini(ctx[i]);
		free(ctx[i]);
	}
	if (shared_fd >= 0)
		close(shared_fd);
	for (k = 0; k < fz.ndmabuf; k++)
		close(fz.dmabuf[k]);
	fz.ndmabuf = 0;

	/* Nothing is left of all that on the device. */
	{
		struct drm_weave_memory_usage now;
		int64_t deadline = weave_test_now() + 3 * WEAVE_TEST_WAIT_NS;

		for (;;) {
			now = weave_test_usage(_metadata, self->fd);
			if (now.live_bos == self->base.live_bos &&
			    now.live_bytes == self->base.live_bytes)
				break;
			ASSERT_GT(deadline, weave_test_now()) {
				TH_LOG("%llu buffers (%llu bytes) left, %llu (%llu) before",
				       (unsigned long long)now.live_bos,
				       (unsigned long long)now.live_bytes,
				       (unsigned long long)self->base.live_bos,
				       (unsigned long long)self->base.live_bytes);
			}
			usleep(10000);
		}
	}
	/* Nor is any fence or file of weave's held. */
	weave_test_await_refs(_metadata, self->refcnt);
}

/* One thread on one file: a run replays call for call from its seed. */
TEST_F_TIMEOUT(fuzz, one_thread, FZ_MAX_SECONDS + 240)
{
	static const struct fz_layout l = {
		.nthreads = 1, .nshared = 0, .share = 0.25,
	};

	fz_run(_metadata, self, &l);
}

/* Four threads: two share a file, two have one each and reopen it. */
TEST_F_TIMEOUT(fuzz, four_threads, FZ_MAX_SECONDS + 240)
{
	static const struct fz_layout l = {
		.nthreads = 4, .nshared = 2, .share = 0.75,
	};

	fz_run(_metadata, self, &l);
}

TEST_HARNESS_MAIN
