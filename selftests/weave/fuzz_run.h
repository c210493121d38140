/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a weave fuzzer suite runs: each iteration builds one call of an op
 * its fz_ops table weighs (a valid call, a valid call with one field made
 * invalid, or a call with several fields made random; now and then a
 * random struct).  Pointers go to writable, read-only, unmapped or
 * PROT_NONE memory, or run from a readable page into a PROT_NONE one.
 * Several threads do this, on a shared file and on files of their own,
 * and now and then open a file, give it work and close it while the work
 * runs; a timer interrupts them all with SIGALRM, installed without
 * SA_RESTART, so calls that sleep return EINTR.
 *
 * Every result is checked: an errno the uAPI does not document for the
 * ioctl (for the core's ioctls: one the DRM core of neither test kernel
 * returns) fails the test, and so does success where the call was made
 * invalid.  On a file only one thread uses, a valid call on objects the
 * thread holds must succeed.  Afterwards every file must still run work
 * correctly, every stream's enqueued, executed and completed counts must
 * agree, the files' usage must come back to idle and the device's memory
 * usage to where it was, and no reference to weave.ko may be left.
 *
 * The seed is printed first.  WEAVE_FUZZ_SEED=S replays a run (a
 * single-threaded one call for call), WEAVE_FUZZ_SECONDS=N sets its length
 * (at most 600 s per run) and WEAVE_FUZZ_ITERS=N stops each thread after N
 * calls.  A failure prints the seed, the thread, the iteration and the
 * call.  A suite ends with FZ_TESTS(), after its fz_ops.
 */
#ifndef _WEAVE_FUZZ_RUN_H_
#define _WEAVE_FUZZ_RUN_H_

#include "fuzz_work.h"

/* --- ops and random structs ---------------------------------------------- */

static inline enum fz_op fz_pick_op(struct fz_ctx *c)
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
static inline uint64_t fz_raw_ptr(struct fz_ctx *c)
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
static inline void fz_raw_out(struct fz_ctx *c, struct drm_weave_array *arr,
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
static inline void fz_raw(struct fz_ctx *c)
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
static inline void fz_step(struct fz_ctx *c)
{
	enum fz_op op = fz_pick_op(c);

	fz_begin(c, op);
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

/* --- threads and the timer ------------------------------------------------ */

static inline void fz_on_alarm(int sig)
{
	(void)sig;
	atomic_fetch_add(&fz.signals, 1);
}

static __thread struct fz_ctx *fz_self;

/*
 * A crash of the fuzzer itself (or memory the kernel wrote where it must
 * not): say which call was being made, then die of the same signal.
 */
static inline void fz_on_crash(int sig)
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

static inline void *fz_thread(void *arg)
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

static inline int fz_ctx_init(struct fz_ctx *c, int id, int fd, bool shared)
{
	int memfd;

	memset(c, 0, sizeof(*c));
	c->id = id;
	c->rng = weave_rand_stream(fz.seed, (uint64_t)id);
	c->fd = fd;
	c->shared = shared;
	c->enq = calloc(1, sizeof(*c->enq));
	memfd = memfd_create("weave-fuzz", MFD_CLOEXEC);
	if (!c->enq || memfd < 0 || ftruncate(memfd, FZ_SCRATCH))
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

static inline void fz_ctx_fini(struct fz_ctx *c)
{
	unsigned int i;

	if (fz.ctx_fini)
		fz.ctx_fini(c);
	for (i = 0; i < c->nfds; i++)
		close(c->fds[i].fd);
	c->nfds = 0;
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
static inline void fz_drain(struct __test_metadata *_metadata, int fd,
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
	/*
	 * Every stream, known or not, until the file has none left (the
	 * check below says it has none): handles are small.
	 */
	u = weave_test_client_usage(_metadata, fd);
	for (h = 1; h <= fz.info.max_client_streams && u.streams; h++) {
		if (weave_stream_query(fd, h, &q))
			continue;
		ASSERT_EQ(0, weave_stream_destroy(fd, h));
		u.streams--;
	}

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

/* --- runs ---------------------------------------------------------------- */


FIXTURE(fuzz) {
	int fd;			/* a file of its own, for usage queries */
	struct drm_weave_memory_usage base;
	long refcnt;
	int seconds;
};

/* WEAVE_FUZZ_SECONDS, or the default. */
static inline double fz_total_seconds(void)
{
	const char *env = getenv("WEAVE_FUZZ_SECONDS");
	double total = env ? strtod(env, NULL) : FZ_DEFAULT_SECONDS;

	return total > 0 ? total : FZ_DEFAULT_SECONDS;
}

/* The run's length: @share of WEAVE_FUZZ_SECONDS. */
static inline int fz_seconds(double share)
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

/* The run's counters, summed over its threads, and what they must show. */
static inline void fz_report(struct __test_metadata *_metadata,
			     struct fz_ctx **ctx, int n, int64_t elapsed)
{
	struct fz_stats t = { 0 };
	uint64_t *sum = (uint64_t *)&t;
	unsigned int k;
	int i;

	for (i = 0; i < n; i++)
		for (k = 0; k < sizeof(t) / sizeof(*sum); k++)
			sum[k] += ((const uint64_t *)&ctx[i]->stat)[k];
	ksft_print_msg("fuzz: %" PRIu64 " ioctls in %.1f s (%.0f/s), %" PRIu64
		       " made invalid and refused, %" PRIu64 " EINTR of %lu signals, %" PRIu64
		       " hangs, %" PRIu64 " files closed busy, %" PRIu64 " reopened\n",
		       t.calls, elapsed / 1e9, t.calls / (elapsed / 1e9),
		       t.fails_expected, t.eintr, atomic_load(&fz.signals),
		       t.hangs, t.side_files, t.reopens);
	for (k = 0; k < OP_NR; k++)
		if (fz_ops[k].weight)
			ksft_print_msg("fuzz:   %-24s %" PRIu64 "\n",
				       fz_ops[k].name, t.per_op[k]);
	if (fz_ops[OP_CAPTURE].weight)
		ksft_print_msg("fuzz: capture: %" PRIu64 " windows prepared, %" PRIu64
			       " begun, %" PRIu64 " launches recorded, %" PRIu64
			       " graphs sealed (%" PRIu64 " tasks), %" PRIu64
			       " doomed, %" PRIu64 " abandoned; %" PRIu64
			       " replays (%" PRIu64 " tasks)\n",
			       t.prepared, t.begun, t.recorded, t.sealed,
			       t.sealed_tasks, t.doomed, t.abandoned, t.replays,
			       t.replayed_tasks);
	fflush(stdout);

	ASSERT_EQ(0, fz.failure[0]) {
		TH_LOG("%s", fz.failure);
		TH_LOG("replay: WEAVE_FUZZ_SEED=%#" PRIx64 " WEAVE_FUZZ_SECONDS=%g %s, or make fuzz SEED=%#" PRIx64 " SECONDS=%g FUZZ_SUITES=%s",
		       fz.seed, fz_total_seconds(),
		       program_invocation_short_name, fz.seed,
		       fz_total_seconds(), program_invocation_short_name);
	}
	if (fz.max_iters != UINT64_MAX)
		return;
	/*
	 * Windows went all the way, into graphs that were replayed: one
	 * graph in 4000 to 12000 calls of the capture suite.
	 */
	if (fz_ops[OP_CAPTURE].weight && t.calls >= 100000) {
		EXPECT_LT(0u, t.begun);
		EXPECT_LT(0u, t.recorded);
		EXPECT_LT(0u, t.sealed);
		EXPECT_LT(0u, t.replays);
	}
	/*
	 * Every op of the suite was tried: a table entry that never runs
	 * tests nothing.  (Unless the run was cut short.)
	 */
	for (k = 0; k < OP_NR && t.calls >= 5000; k++) {
		if (!fz_ops[k].weight)
			continue;
		EXPECT_LT(0u, t.per_op[k]) {
			TH_LOG("%s was never called", fz_ops[k].name);
		}
	}
}

/* Nothing is left on the device: buffers, fences or files of weave's. */
static inline void fz_settle(struct __test_metadata *_metadata,
			     FIXTURE_DATA(fuzz) *self)
{
	weave_test_await_usage(_metadata, self->fd, &self->base, 0, 0,
			       3 * WEAVE_TEST_WAIT_NS);
	weave_test_await_refs(_metadata, self->refcnt);
}

/*
 * A run of the suite's ops by @l's threads, with @mut_enqueue the
 * suite's mutations of ENQUEUE (NULL: those of fuzz_work.h only).
 */
static inline void fz_run(struct __test_metadata *_metadata,
			  FIXTURE_DATA(fuzz) *self, const struct fz_layout *l,
			  bool (*mut_enqueue)(struct fz_ctx *c,
					      struct fz_enq *e))
{
	struct itimerval tv = { { 0, 1500 }, { 0, 1500 } };
	struct fz_ctx *ctx[8], *shared[8];
	pthread_t th[8];
	struct timespec ts;
	struct sigaction sa;
	sigset_t set;
	int64_t start;
	int shared_fd = -1, i, nshared = 0;
	unsigned int k;

	fz.mut_enqueue = mut_enqueue;
	self->seconds = fz_seconds(l->share);
	ksft_print_msg("fuzz: %s: seed %#" PRIx64 ", %d s, %d threads (%d on one file), core guards %s; replay: make fuzz SEED=%#" PRIx64 " FUZZ_SUITES=%s\n",
		       program_invocation_short_name, fz.seed, self->seconds,
		       l->nthreads, l->nshared, fz.core_guards ? "on" : "off",
		       fz.seed, program_invocation_short_name);
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
	memset(&tv, 0, sizeof(tv));
	setitimer(ITIMER_REAL, &tv, NULL);
	fz_report(_metadata, ctx, l->nthreads, weave_test_now() - start);

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
	fz_settle(_metadata, self);
}

/*
 * The tests of a suite, after its fz_ops: one thread on one file (a run
 * replays call for call from its seed); four threads, two sharing a file,
 * two with one each that they close and reopen.  @mut_enqueue: as for
 * fz_run().
 */
#define FZ_TESTS(mut_enqueue) \
	TEST_F_TIMEOUT(fuzz, one_thread, FZ_MAX_SECONDS + 240) \
	{ \
		static const struct fz_layout l = { 1, 0, 0.25 }; \
		fz_run(_metadata, self, &l, (mut_enqueue)); \
	} \
	TEST_F_TIMEOUT(fuzz, four_threads, FZ_MAX_SECONDS + 240) \
	{ \
		static const struct fz_layout l = { 4, 2, 0.75 }; \
		fz_run(_metadata, self, &l, (mut_enqueue)); \
	} \
	TEST_HARNESS_MAIN

#endif /* _WEAVE_FUZZ_RUN_H_ */
