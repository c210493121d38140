// SPDX-License-Identifier: GPL-2.0
/*
 * weave: stress.  Several processes at once, each with many streams, run
 * chains of checksummed tasks over buffers the streams share; meanwhile
 * some of them are killed with SIGKILL, one closes its file with work in
 * flight, and two share buffers through PRIME until one of them is killed.
 *
 * Then nothing may be lost: every surviving stream has enqueued ==
 * executed == completed, every checksum and every byte of the survivors'
 * buffers is what the chains compute, the buffers a killed process shared
 * hold either nothing or whole writes of it, each file drains to idle, and
 * the device's memory usage returns to where it was once every file is
 * closed.  (The lane then unloads weave.ko.)
 *
 * The chains: stream s of a process owns a buffer of four pages p0..p3.
 * In round r it fills p0 with a pattern (a FILL, or a host write on odd
 * streams), copies p3 of stream s + 1's buffer into p1, adds p0 and p1
 * into p2, copies p2 to p3, and writes the crc32c of p3 to a results
 * buffer.  Streams are enqueued in order, so stream s reads what stream
 * s + 1 wrote in the round before: the kernel must keep that order across
 * slots.  Every page stays one repeated u32, so the expected data and
 * checksums are computed here from the patterns alone.
 *
 * WEAVE_STRESS_SEED=S replays the patterns and the kill times.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weave_test.h"
#include "weave_rand.h"

/* The most streams one process runs; stream handles index its arrays. */
#define SX_MAX_STREAMS	96

/* Tasks of one stream's round: fill, copy, add, copy, crc (+ a delay). */
#define SX_CHAIN	5

/* What a process does. */
enum sx_role {
	SX_SURVIVOR,	/* runs its chains to the end and checks them */
	SX_VICTIM,	/* is killed with SIGKILL while its work runs */
	SX_CLOSER,	/* closes its file while its work runs, then survives */
	SX_PRODUCER,	/* shares buffers through PRIME, then is killed */
	SX_CONSUMER,	/* uses the producer's buffer before and after */
};

struct sx_cfg {
	const char *name;
	enum sx_role role;
	unsigned int streams;
	unsigned int rounds;
	uint32_t delay_us;	/* a DELAY before each stream's round */
	uint32_t strategy;
	uint32_t max_tasks;	/* 0: the device's */
};

/*
 * The load.  Survivors: 32 and 32 streams, and 80, which is more than
 * the 64 slots, so streams share slots; one runs the sequential
 * strategy, one executes every third task.  Victims and the closer put a
 * DELAY before each stream's round, so work is queued and running when
 * they are hit.
 */
static const struct sx_cfg sx_procs[] = {
	{ "survivor-interleave", SX_SURVIVOR, 32, 12, 0,
	  DRM_WEAVE_STRATEGY_INTERLEAVE, 0 },
	{ "survivor-sequential", SX_SURVIVOR, 32, 12, 0,
	  DRM_WEAVE_STRATEGY_SEQUENTIAL, 0 },
	{ "survivor-80-streams", SX_SURVIVOR, 80, 5, 0,
	  DRM_WEAVE_STRATEGY_INTERLEAVE, 3 },
	{ "victim-1", SX_VICTIM, 32, 12, 20000,
	  DRM_WEAVE_STRATEGY_INTERLEAVE, 0 },
	{ "victim-2", SX_VICTIM, 64, 8, 5000,
	  DRM_WEAVE_STRATEGY_SEQUENTIAL, 4 },
	{ "closer", SX_CLOSER, 32, 6, 20000,
	  DRM_WEAVE_STRATEGY_INTERLEAVE, 0 },
	{ "producer", SX_PRODUCER, 1, 6, 20000,
	  DRM_WEAVE_STRATEGY_INTERLEAVE, 0 },
	{ "consumer", SX_CONSUMER, 1, 8, 0,
	  DRM_WEAVE_STRATEGY_INTERLEAVE, 0 },
};

#define SX_NPROCS	ARRAY_SIZE(sx_procs)
#define SX_PRODUCER_INDEX	6

/* One process's chains. */
struct sx_run {
	const struct sx_cfg *cfg;
	int fd;
	uint64_t seed;
	unsigned int id;
	uint64_t page;
	uint32_t stream[SX_MAX_STREAMS];
	uint32_t bo[SX_MAX_STREAMS];	/* p0..p3 of each stream */
	uint32_t res;			/* the crc32c of each round and stream */
	uint32_t timeline;		/* a syncobj FLUSH_ALL signals per round */
	uint32_t v3[SX_MAX_STREAMS];	/* the model: p3's word, per stream */
	uint32_t v1[SX_MAX_STREAMS];	/* ... p1's */
	uint32_t a[SX_MAX_STREAMS];	/* ... p0's */
	uint32_t *page_words;		/* a page of one word, for writes */
	uint64_t tasks;			/* tasks enqueued */
};

/* --- reporting from a child ------------------------------------------- */

static const char *sx_who = "stress";

static void __attribute__((format(printf, 1, 2), noreturn))
sx_die(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "# stress: %s: %s\n", sx_who, msg);
	fflush(stderr);
	_exit(1);
}

#define SX_CHECK(cond, ...)				\
	do {						\
		if (!(cond))				\
			sx_die(__VA_ARGS__);		\
	} while (0)

/* --- the chains --------------------------------------------------------- */

/* The pattern process @id fills stream @s's p0 with in round @r. */
static uint32_t sx_pattern(uint64_t seed, unsigned int id, unsigned int s,
			   unsigned int r)
{
	uint64_t st = seed ^ ((uint64_t)id << 48) ^ ((uint64_t)s << 24) ^ r;

	return (uint32_t)weave_rand64(&st);
}

/*
 * The crc32c of a page whose every u32 is @v, a byte table at a time
 * (weave_test_crc32c() goes bit by bit, too slow for thousands of pages
 * under emulation).  The table is checked against it once.
 */
static uint32_t sx_page_crc(uint64_t page, uint32_t v)
{
	static uint32_t table[256];
	const uint8_t *b = (const uint8_t *)&v;
	uint32_t crc = ~0u, k;
	uint64_t i;
	int bit;

	if (!table[1]) {
		for (k = 0; k < 256; k++) {
			uint32_t c = k;

			for (bit = 0; bit < 8; bit++)
				c = (c >> 1) ^ (0x82f63b78u & -(c & 1));
			table[k] = c;
		}
	}
	for (i = 0; i < page; i++)
		crc = (crc >> 8) ^ table[(crc ^ b[i % 4]) & 0xff];
	return ~crc;
}

/* The table above agrees with the reference, on a page of one word. */
static void sx_check_crc(uint64_t page)
{
	uint32_t *buf = malloc(page), v = 0x9e3779b9u;
	size_t i;

	SX_CHECK(buf, "no memory");
	for (i = 0; i < page / 4; i++)
		buf[i] = v;
	SX_CHECK(weave_test_crc32c(buf, page) == sx_page_crc(page, v),
		 "the crc32c table is wrong");
	free(buf);
}

static void sx_setup(struct sx_run *x, const struct sx_cfg *cfg, int fd,
		     uint64_t seed, unsigned int id)
{
	struct drm_weave_device_info info;
	uint64_t size;
	unsigned int s;
	int ret;

	memset(x, 0, sizeof(*x));
	x->cfg = cfg;
	x->fd = fd;
	x->seed = seed;
	x->id = id;
	SX_CHECK(!weave_query_device_info(fd, &info), "device info");
	x->page = info.page_size;
	sx_check_crc(x->page);
	SX_CHECK(cfg->streams <= SX_MAX_STREAMS, "too many streams");
	x->page_words = malloc(x->page);
	SX_CHECK(x->page_words, "no memory");
	ret = weave_set_param(fd, DRM_WEAVE_PARAM_STRATEGY, cfg->strategy);
	SX_CHECK(!ret, "SET_PARAM strategy: %s", strerror(-ret));
	if (cfg->max_tasks) {
		ret = weave_set_param(fd, DRM_WEAVE_PARAM_MAX_TASKS,
				      cfg->max_tasks);
		SX_CHECK(!ret, "SET_PARAM max_tasks: %s", strerror(-ret));
	}
	for (s = 0; s < cfg->streams; s++) {
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL,
					  &x->stream[s]);
		SX_CHECK(!ret, "STREAM_CREATE %u: %s", s, strerror(-ret));
		size = 4 * x->page;
		ret = weave_bo_create(fd, &size, 0, &x->bo[s]);
		SX_CHECK(!ret, "BO_CREATE: %s", strerror(-ret));
	}
	size = ((uint64_t)cfg->rounds * cfg->streams * 4 + x->page - 1) &
	       ~(x->page - 1);
	ret = weave_bo_create(fd, &size, 0, &x->res);
	SX_CHECK(!ret, "BO_CREATE results: %s", strerror(-ret));
	ret = drmSyncobjCreate(fd, 0, &x->timeline) ? -errno : 0;
	SX_CHECK(!ret, "SYNCOBJ_CREATE: %s", strerror(-ret));
}

/* Enqueues round @r on every stream, in order, and flushes them all. */
static void sx_round(struct sx_run *x, unsigned int r)
{
	unsigned int s, n = x->cfg->streams;
	struct drm_weave_sync out;
	struct weave_test_batch b;
	uint64_t page = x->page;
	size_t i;
	int ret;

	for (s = 0; s < n; s++) {
		uint32_t a = sx_pattern(x->seed, x->id, s, r);
		uint32_t next = x->bo[(s + 1) % n];

		weave_test_batch_init(&b);
		if (x->cfg->delay_us)
			weave_test_delay(&b, x->cfg->delay_us);
		if (s % 2) {
			/* The kernel copies the bytes at enqueue. */
			for (i = 0; i < page / 4; i++)
				x->page_words[i] = a;
			weave_test_write_task(&b, x->bo[s], 0, page,
					      x->page_words);
		} else {
			weave_test_fill_task(&b, x->bo[s], 0, page, a);
		}
		weave_test_copy_task(&b, next, 3 * page, x->bo[s], page, page);
		weave_test_add_task(&b, x->bo[s], 0, x->bo[s], page, x->bo[s],
				    2 * page, page);
		weave_test_copy_task(&b, x->bo[s], 2 * page, x->bo[s],
				     3 * page, page);
		weave_test_crc_task(&b, x->bo[s], 3 * page, page, x->res,
				    4 * ((uint64_t)r * n + s));
		x->tasks += b.n;
		ret = weave_test_submit(x->fd, x->stream[s], &b);
		SX_CHECK(!ret, "ENQUEUE round %u stream %u: %s", r, s,
			 strerror(-ret));
		/* The model, in the same order. */
		x->a[s] = a;
		x->v1[s] = x->v3[(s + 1) % n];
		x->v3[s] = a + x->v1[s];
	}
	out = weave_sync(x->timeline, r + 1);
	ret = weave_flush_all(x->fd, &out);
	SX_CHECK(!ret, "FLUSH_ALL round %u: %s", r, strerror(-ret));
}

/* Checks that every word of @size bytes at @p is @v. */
static void sx_expect_words(const uint32_t *p, size_t size, uint32_t v,
			    const char *what, unsigned int s)
{
	size_t i;

	for (i = 0; i < size / 4; i++)
		SX_CHECK(p[i] == v, "stream %u: %s word %zu is %#x, not %#x",
			 s, what, i, p[i], v);
}

/*
 * Waits for everything, then checks the counters, the checksums, the
 * data and that the file is idle.
 */
static void sx_verify(struct sx_run *x)
{
	unsigned int s, r, n = x->cfg->streams;
	uint64_t want = (uint64_t)SX_CHAIN * x->cfg->rounds +
			(x->cfg->delay_us ? x->cfg->rounds : 0);
	uint64_t point = x->cfg->rounds;
	struct drm_weave_client_usage u;
	struct drm_weave_stream_query q;
	int64_t deadline;
	uint32_t *map;
	void *ptr;
	int ret;

	ret = drmSyncobjTimelineWait(x->fd, &x->timeline, &point, 1,
				     weave_timeout_ns(WEAVE_TEST_WAIT_NS),
				     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL) ?
	      -errno : 0;
	SX_CHECK(!ret, "the last round's FLUSH_ALL fence: %s", strerror(-ret));
	for (s = 0; s < n; s++) {
		ret = weave_wait(x->fd, x->stream[s],
				 weave_timeout_ns(WEAVE_TEST_WAIT_NS));
		SX_CHECK(!ret, "WAIT stream %u: %s", s, strerror(-ret));
		ret = weave_stream_query(x->fd, x->stream[s], &q);
		SX_CHECK(!ret, "STREAM_QUERY %u: %s", s, strerror(-ret));
		SX_CHECK(q.enqueued == want && q.executed == want &&
			 q.completed == want && !q.error &&
			 q.state == DRM_WEAVE_STREAM_ACTIVE,
			 "stream %u: enqueued %llu executed %llu completed %llu (want %llu), state %u error %d",
			 s, (unsigned long long)q.enqueued,
			 (unsigned long long)q.executed,
			 (unsigned long long)q.completed,
			 (unsigned long long)want, q.state, q.error);
	}

	ret = weave_bo_mmap(x->fd, x->res, x->page, PROT_READ, &ptr);
	SX_CHECK(!ret, "mmap results: %s", strerror(-ret));
	map = ptr;
	/* Round by round, the model again: what each crc must be. */
	{
		uint32_t v3[SX_MAX_STREAMS] = { 0 }, v;

		for (r = 0; r < x->cfg->rounds; r++) {
			for (s = 0; s < n; s++) {
				v = sx_pattern(x->seed, x->id, s, r) +
				    v3[(s + 1) % n];
				v3[s] = v;
				SX_CHECK(map[r * n + s] ==
					 sx_page_crc(x->page, v),
					 "round %u stream %u: crc32c %#x, want %#x (page of %#x)",
					 r, s, map[r * n + s],
					 sx_page_crc(x->page, v), v);
			}
		}
	}
	weave_bo_munmap(ptr, x->page);

	for (s = 0; s < n; s++) {
		ret = weave_bo_mmap(x->fd, x->bo[s], 4 * x->page, PROT_READ,
				    &ptr);
		SX_CHECK(!ret, "mmap stream %u: %s", s, strerror(-ret));
		map = ptr;
		sx_expect_words(map, x->page, x->a[s], "p0", s);
		sx_expect_words(map + x->page / 4, x->page, x->v1[s], "p1", s);
		sx_expect_words(map + x->page / 2, x->page, x->v3[s], "p2", s);
		sx_expect_words(map + 3 * x->page / 4, x->page, x->v3[s],
				"p3", s);
		weave_bo_munmap(ptr, 4 * x->page);
	}

	deadline = weave_test_now() + WEAVE_TEST_WAIT_NS;
	for (;;) {
		memset(&u, 0, sizeof(u));
		ret = weave_query_client_usage(x->fd, &u);
		SX_CHECK(!ret, "client usage: %s", strerror(-ret));
		if (!u.jobs && !u.pending_tasks)
			break;
		SX_CHECK(weave_test_now() < deadline,
			 "not idle: %llu jobs, %llu pending tasks",
			 (unsigned long long)u.jobs,
			 (unsigned long long)u.pending_tasks);
		usleep(5000);
	}
	SX_CHECK(!u.queued_tasks && !u.staged_bytes && !u.gate_bytes &&
		 u.streams == n,
		 "idle but %llu queued, %llu staged bytes, %llu gate bytes, %llu streams",
		 (unsigned long long)u.queued_tasks,
		 (unsigned long long)u.staged_bytes,
		 (unsigned long long)u.gate_bytes,
		 (unsigned long long)u.streams);
}

static int sx_open(void)
{
	int fd = weave_device_open(0);

	SX_CHECK(fd >= 0, "cannot open the device: %s", strerror(-fd));
	return fd;
}

/* Tells the parent a step is done. */
static void sx_tell(int pipefd, char c)
{
	SX_CHECK(write(pipefd, &c, 1) == 1, "write to the parent: %s",
		 strerror(errno));
}

/* --- the roles -------------------------------------------------------------- */

static void sx_survivor(const struct sx_cfg *cfg, uint64_t seed,
			unsigned int id)
{
	struct sx_run x;
	unsigned int r;

	sx_setup(&x, cfg, sx_open(), seed, id);
	for (r = 0; r < cfg->rounds; r++)
		sx_round(&x, r);
	sx_verify(&x);
	close(x.fd);
}

/*
 * Submits its rounds with delays in them, says so after round @k, and
 * waits to be killed.
 */
static void sx_victim(const struct sx_cfg *cfg, uint64_t seed,
		      unsigned int id, unsigned int k, int pipefd)
{
	struct sx_run x;
	unsigned int r;

	sx_setup(&x, cfg, sx_open(), seed, id);
	for (r = 0; r < cfg->rounds; r++) {
		sx_round(&x, r);
		if (r == k)
			sx_tell(pipefd, 'k');
	}
	/* Blocked in the kernel when the signal comes, or about to be. */
	weave_wait(x.fd, x.stream[0], INT64_MAX);
	for (;;)
		pause();
}

/*
 * Closes its file with rounds in flight, which must not take longer than
 * the job timeout; then runs its chains again on a new file and checks
 * them.
 */
static void sx_closer(const struct sx_cfg *cfg, uint64_t seed,
		      unsigned int id, unsigned int k)
{
	struct drm_weave_device_info info;
	struct sx_cfg again = *cfg;
	struct sx_run x;
	int64_t start, took;
	unsigned int r;

	sx_setup(&x, cfg, sx_open(), seed, id);
	SX_CHECK(!weave_query_device_info(x.fd, &info), "device info");
	for (r = 0; r <= k; r++)
		sx_round(&x, r);
	start = weave_test_now();
	SX_CHECK(!close(x.fd), "close: %s", strerror(errno));
	took = weave_test_now() - start;
	SX_CHECK(took < 2 * info.job_timeout_ms * 1000000ll,
		 "close with work in flight took %lld ms",
		 (long long)(took / 1000000));
	free(x.page_words);

	again.delay_us = 0;
	sx_survivor(&again, seed ^ 0x5555, id);
}

/* A dma-buf descriptor over a socket. */
static void sx_send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))], byte = 'f';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;

	memset(cbuf, 0, sizeof(cbuf));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	SX_CHECK(sendmsg(sock, &msg, 0) == 1, "sendmsg: %s", strerror(errno));
}

static int sx_recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))], byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd;

	SX_CHECK(recvmsg(sock, &msg, 0) == 1, "recvmsg: %s", strerror(errno));
	cm = CMSG_FIRSTHDR(&msg);
	SX_CHECK(cm && cm->cmsg_type == SCM_RIGHTS, "no descriptor received");
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* The patterns of the PRIME pair: X's, and the producer's writes to Y. */
static uint32_t sx_px(uint64_t seed)
{
	return sx_pattern(seed, 100, 0, 0) | 1;
}

static uint32_t sx_py(uint64_t seed, unsigned int i)
{
	return sx_pattern(seed, 101, 0, i) | 1;
}

/*
 * Makes X, fills it and waits for that, shares it; imports the consumer's
 * Y and queues writes to it behind delays; says it is ready and waits to
 * be killed with those writes in flight.
 */
static void sx_producer(const struct sx_cfg *cfg, uint64_t seed, int sock,
			int pipefd)
{
	uint64_t size = 4 * 4096;
	struct weave_test_batch b;
	uint32_t stream, x, y;
	int fd = sx_open(), dmabuf, ret;
	unsigned int i;

	SX_CHECK(!weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &stream),
		 "STREAM_CREATE");
	SX_CHECK(!weave_bo_create(fd, &size, 0, &x), "BO_CREATE");
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, x, 0, size, sx_px(seed));
	SX_CHECK(!weave_test_submit(fd, stream, &b), "ENQUEUE");
	SX_CHECK(!weave_flush(fd, stream, NULL), "FLUSH");
	ret = weave_wait(fd, stream, weave_timeout_ns(WEAVE_TEST_WAIT_NS));
	SX_CHECK(!ret, "WAIT: %s", strerror(-ret));
	SX_CHECK(!weave_bo_export(fd, x, DRM_CLOEXEC, &dmabuf), "export X");
	sx_send_fd(sock, dmabuf);
	close(dmabuf);

	dmabuf = sx_recv_fd(sock);
	SX_CHECK(!weave_bo_import(fd, dmabuf, &y), "import Y");
	close(dmabuf);
	for (i = 0; i < cfg->rounds; i++) {
		weave_test_batch_init(&b);
		weave_test_delay(&b, cfg->delay_us);
		weave_test_fill_task(&b, y, 0, 4096, sx_py(seed, i));
		SX_CHECK(!weave_test_submit(fd, stream, &b), "ENQUEUE Y");
		SX_CHECK(!weave_flush(fd, stream, NULL), "FLUSH Y");
	}
	sx_tell(pipefd, 'p');
	for (;;)
		pause();
}

/*
 * Shares Y, imports X, tells the parent (which then kills the producer)
 * and keeps reading X through its own chains: every crc must be X's, and
 * Y must hold nothing or one whole write of the producer's.
 */
static void sx_consumer(const struct sx_cfg *cfg, uint64_t seed, int sock,
			int pipefd)
{
	uint32_t stream, y, x, z, res, *map, want, v;
	uint64_t size = 4096, rsize = 4096, zsize = 4096;
	struct drm_weave_stream_query q = { 0 };
	struct weave_test_batch b;
	int fd = sx_open(), dmabuf, ret;
	unsigned int i, part;
	bool known = false;
	void *ptr;

	SX_CHECK(!weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &stream),
		 "STREAM_CREATE");
	SX_CHECK(!weave_bo_create(fd, &size, 0, &y), "BO_CREATE Y");
	SX_CHECK(!weave_bo_create(fd, &zsize, 0, &z), "BO_CREATE Z");
	SX_CHECK(!weave_bo_create(fd, &rsize, 0, &res), "BO_CREATE res");
	SX_CHECK(!weave_bo_export(fd, y, DRM_CLOEXEC | DRM_RDWR, &dmabuf),
		 "export Y");
	{
		int xfd = sx_recv_fd(sock);

		sx_send_fd(sock, dmabuf);
		close(dmabuf);
		SX_CHECK(!weave_bo_import(fd, xfd, &x), "import X");
		close(xfd);
	}
	sx_tell(pipefd, 'c');

	want = sx_page_crc(4096, sx_px(seed));
	for (i = 0; i < cfg->rounds; i++) {
		part = i % 4;
		weave_test_batch_init(&b);
		weave_test_copy_task(&b, x, part * 4096ull, z, 0, 4096);
		weave_test_crc_task(&b, z, 0, 4096, res, 4 * i);
		SX_CHECK(!weave_test_submit(fd, stream, &b), "ENQUEUE");
		SX_CHECK(!weave_flush(fd, stream, NULL), "FLUSH");
		ret = weave_wait(fd, stream,
				 weave_timeout_ns(WEAVE_TEST_WAIT_NS));
		SX_CHECK(!ret, "WAIT: %s", strerror(-ret));
		usleep(10000);
	}
	ret = weave_stream_query(fd, stream, &q);
	SX_CHECK(!ret && q.enqueued == 2ull * cfg->rounds &&
		 q.executed == q.enqueued && q.completed == q.enqueued,
		 "stream: enqueued %llu executed %llu completed %llu",
		 (unsigned long long)q.enqueued,
		 (unsigned long long)q.executed,
		 (unsigned long long)q.completed);
	SX_CHECK(!weave_bo_mmap(fd, res, 4096, PROT_READ, &ptr), "mmap res");
	map = ptr;
	for (i = 0; i < cfg->rounds; i++)
		SX_CHECK(map[i] == want, "read %u of X: crc32c %#x, want %#x",
			 i, map[i], want);
	weave_bo_munmap(ptr, 4096);

	/* Y: the producer's writes ran whole or not at all. */
	SX_CHECK(!weave_bo_mmap(fd, y, 4096, PROT_READ, &ptr), "mmap Y");
	map = ptr;
	v = map[0];
	for (i = 0; i < 1024; i++)
		SX_CHECK(map[i] == v, "Y word %u is %#x, word 0 %#x", i,
			 map[i], v);
	known = !v;
	for (i = 0; i < sx_procs[SX_PRODUCER_INDEX].rounds; i++)
		known |= v == sx_py(seed, i);
	SX_CHECK(known, "Y holds %#x, which the producer never wrote", v);
	weave_bo_munmap(ptr, 4096);
	close(fd);
}

/* --- the test ------------------------------------------------------------- */


FIXTURE(stress) {
	int fd;
	struct drm_weave_device_info info;
	struct drm_weave_memory_usage base;
	long refcnt;
	uint64_t seed;
};

FIXTURE_SETUP(stress)
{
	const char *env = getenv("WEAVE_STRESS_SEED");

	self->fd = weave_test_open(_metadata);
	self->info = weave_test_info(_metadata, self->fd);
	self->base = weave_test_usage(_metadata, self->fd);
	self->refcnt = weave_test_settled_refs();
	ASSERT_LT(0, self->refcnt);
	self->seed = env ? strtoull(env, NULL, 0) : weave_rand_seed();
}

FIXTURE_TEARDOWN(stress)
{
	close(self->fd);
}

TEST_F_TIMEOUT(stress, processes_kills_closes_prime, 240)
{
	uint64_t rng = self->seed, tasks = 0, streams = 0;
	int pipes[SX_NPROCS][2], sock[2], status, i;
	pid_t pid[SX_NPROCS], producer = -1, consumer = -1;
	unsigned int k[SX_NPROCS];
	int64_t start;
	char c;

	ASSERT_TRUE(sx_procs[SX_PRODUCER_INDEX].role == SX_PRODUCER);
	ksft_print_msg("stress: seed %#" PRIx64 " (WEAVE_STRESS_SEED replays it)\n",
		       self->seed);
	for (i = 0; i < (int)SX_NPROCS; i++) {
		const struct sx_cfg *cfg = &sx_procs[i];

		/* Checked: the survivors', the closer's second file's. */
		streams += cfg->streams;
		if (cfg->role == SX_SURVIVOR || cfg->role == SX_CLOSER)
			tasks += (uint64_t)cfg->streams * cfg->rounds * SX_CHAIN;
		if (cfg->role == SX_CONSUMER)
			tasks += 2ull * cfg->rounds;
		ksft_print_msg("stress:   %-20s %3u streams x %u rounds%s\n",
			       cfg->name, cfg->streams, cfg->rounds,
			       cfg->role == SX_VICTIM ? ", killed" :
			       cfg->role == SX_CLOSER ? ", closes its file" :
			       cfg->role == SX_PRODUCER ? ", shares and is killed" :
			       cfg->role == SX_CONSUMER ? ", imports" : "");
	}
	fflush(stdout);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sock));

	start = weave_test_now();
	for (i = 0; i < (int)SX_NPROCS; i++) {
		const struct sx_cfg *cfg = &sx_procs[i];

		/* The round after which a victim or the closer is hit. */
		k[i] = (unsigned int)weave_rand_below(&rng, cfg->rounds - 1);
		ASSERT_EQ(0, pipe(pipes[i]));
		fflush(stdout);
		fflush(stderr);
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (pid[i] == 0) {
			close(pipes[i][0]);
			sx_who = cfg->name;
			switch (cfg->role) {
			case SX_SURVIVOR:
				sx_survivor(cfg, self->seed, i);
				break;
			case SX_VICTIM:
				sx_victim(cfg, self->seed, i, k[i],
					  pipes[i][1]);
				break;
			case SX_CLOSER:
				sx_closer(cfg, self->seed, i, k[i]);
				break;
			case SX_PRODUCER:
				close(sock[1]);
				sx_producer(cfg, self->seed, sock[0],
					    pipes[i][1]);
				break;
			case SX_CONSUMER:
				close(sock[0]);
				sx_consumer(cfg, self->seed, sock[1],
					    pipes[i][1]);
				break;
			}
			_exit(0);
		}
		close(pipes[i][1]);
		if (cfg->role == SX_PRODUCER)
			producer = i;
		if (cfg->role == SX_CONSUMER)
			consumer = i;
	}
	close(sock[0]);
	close(sock[1]);
	ASSERT_LE(0, producer);
	ASSERT_LE(0, consumer);

	/* Kill each victim once its work is in flight. */
	for (i = 0; i < (int)SX_NPROCS; i++) {
		if (sx_procs[i].role != SX_VICTIM)
			continue;
		ASSERT_EQ(1, read(pipes[i][0], &c, 1)) {
			TH_LOG("%s died before its round %u", sx_procs[i].name,
			       k[i]);
		}
		usleep(weave_rand_below(&rng, 20000));
		ASSERT_EQ(0, kill(pid[i], SIGKILL));
	}
	/* The producer, once both have shared and the consumer reads. */
	ASSERT_EQ(1, read(pipes[producer][0], &c, 1));
	ASSERT_EQ(1, read(pipes[consumer][0], &c, 1));
	usleep(weave_rand_below(&rng, 20000));
	ASSERT_EQ(0, kill(pid[producer], SIGKILL));

	for (i = 0; i < (int)SX_NPROCS; i++) {
		const struct sx_cfg *cfg = &sx_procs[i];
		bool killed = cfg->role == SX_VICTIM ||
			      cfg->role == SX_PRODUCER;

		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		close(pipes[i][0]);
		if (killed) {
			EXPECT_TRUE(WIFSIGNALED(status) &&
				    WTERMSIG(status) == SIGKILL) {
				TH_LOG("%s: status %#x, not killed", cfg->name,
				       status);
			}
		} else {
			EXPECT_TRUE(WIFEXITED(status) &&
				    WEXITSTATUS(status) == 0) {
				TH_LOG("%s failed (status %#x)", cfg->name,
				       status);
			}
		}
	}

	/* With every file closed, every buffer is gone. */
	weave_test_await_usage(_metadata, self->fd, &self->base, 0, 0,
			       2 * WEAVE_TEST_WAIT_NS);
	/* Nor is any fence or file of weave's held. */
	weave_test_await_refs(_metadata, self->refcnt);
	ksft_print_msg("stress: %zu processes, %" PRIu64 " streams, %" PRIu64 " tasks checked, %.1f s\n",
		       SX_NPROCS, streams, tasks,
		       (weave_test_now() - start) / 1e9);
	fflush(stdout);
}

/*
 * What the processes above found, made to happen every time: a client
 * goes away, killed or by closing its file, while a job of one of its
 * slots waits (through a buffer both use) for a job of another slot, which
 * waits on its hardware queue behind another client's work; and the first
 * slot's last job to run has completed.  Nothing it queued may outlive it
 * (weave.ko's reference count comes back), and it must go within twice
 * the job timeout: its work is cancelled, and the other client's is not
 * its to wait for.
 */
FIXTURE(gone) {
	int fd;
	struct drm_weave_device_info info;
	long refcnt;
};

FIXTURE_VARIANT(gone) {
	bool kill;	/* killed with SIGKILL, else it closes its file */
};

FIXTURE_VARIANT_ADD(gone, killed) {
	.kill = true,
};

FIXTURE_VARIANT_ADD(gone, closed) {
	.kill = false,
};

FIXTURE_SETUP(gone)
{
	self->fd = weave_test_open(_metadata);
	self->info = weave_test_info(_metadata, self->fd);
	self->refcnt = weave_test_settled_refs();
	ASSERT_LT(0, self->refcnt);
}

FIXTURE_TEARDOWN(gone)
{
	close(self->fd);
}

/* The other client's jobs: as many as a hardware queue takes at once. */
#define SX_HOG_JOBS	64

/* The client that goes: slot 2 (queue 0) waits for slot 1 (queue 1). */
static void sx_gone_child(int up, int down, bool kill, uint32_t timeout_ms)
{
	uint32_t a, b, own, x;
	uint64_t size = 4096;
	struct weave_test_batch t;
	int64_t start, took;
	int fd = sx_open(), n;
	char c;

	sx_who = "gone";
	SX_CHECK(!weave_set_param(fd, DRM_WEAVE_PARAM_STRATEGY,
				  DRM_WEAVE_STRATEGY_SEQUENTIAL), "SET_PARAM");
	SX_CHECK(!weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &b) &&
		 b == 1, "STREAM_CREATE 1");
	SX_CHECK(!weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &a) &&
		 a == 2, "STREAM_CREATE 2");
	SX_CHECK(!weave_bo_create(fd, &size, 0, &own), "BO_CREATE");
	SX_CHECK(!weave_bo_create(fd, &size, 0, &x), "BO_CREATE");

	/* Slot 2's job that runs and completes. */
	weave_test_batch_init(&t);
	weave_test_fill_task(&t, own, 0, size, 1);
	SX_CHECK(!weave_test_submit(fd, a, &t), "ENQUEUE");
	SX_CHECK(!weave_flush(fd, a, NULL), "FLUSH");
	SX_CHECK(!weave_wait(fd, a, weave_timeout_ns(WEAVE_TEST_WAIT_NS)),
		 "WAIT");
	sx_tell(up, 'a');
	SX_CHECK(read(down, &c, 1) == 1, "read from the parent");

	/* Slot 1 writes x, behind the other client's work on queue 1 ... */
	weave_test_fill_task(&t, x, 0, size, 2);
	SX_CHECK(!weave_test_submit(fd, b, &t), "ENQUEUE");
	SX_CHECK(!weave_flush(fd, b, NULL), "FLUSH");
	/* ... and slot 2's next jobs read x: they wait for it. */
	for (n = 0; n < 3; n++) {
		weave_test_copy_task(&t, x, 0, own, 0, size);
		SX_CHECK(!weave_test_submit(fd, a, &t), "ENQUEUE");
		SX_CHECK(!weave_flush(fd, a, NULL), "FLUSH");
	}
	sx_tell(up, 'b');
	if (kill)
		for (;;)
			pause();
	start = weave_test_now();
	close(fd);
	took = weave_test_now() - start;
	SX_CHECK(took < 2 * timeout_ms * 1000000ll, "close took %lld ms",
		 (long long)(took / 1000000));
	_exit(0);
}

TEST_F_TIMEOUT(gone, while_its_jobs_wait_behind_another_client, 120)
{
	/* The other client's work lasts 2.5 job timeouts, each job 1/25. */
	uint32_t delay_us = self->info.job_timeout_ms * 1000 / 25;
	int up[2], down[2], status, i, hog;
	struct weave_test_batch b;
	uint32_t hog_stream;
	int64_t start, took;
	char c;
	pid_t pid;

	ASSERT_LT(1000u, delay_us);
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		sx_gone_child(up[1], down[0], variant->kill,
			      self->info.job_timeout_ms);
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(1, read(up[0], &c, 1));

	/* The other client fills hardware queue 1 (its slot 1). */
	hog = weave_test_open(_metadata);
	hog_stream = weave_test_stream(_metadata, hog,
				       DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_EQ(1u, hog_stream);
	weave_test_batch_init(&b);
	for (i = 0; i < SX_HOG_JOBS; i++) {
		weave_test_delay(&b, delay_us);
		weave_test_enqueue(_metadata, hog, hog_stream, &b);
		ASSERT_EQ(0, weave_flush(hog, hog_stream, NULL));
	}
	ASSERT_EQ(1, write(down[1], "g", 1));
	ASSERT_EQ(1, read(up[0], &c, 1));

	start = weave_test_now();
	if (variant->kill)
		ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	took = weave_test_now() - start;
	if (variant->kill) {
		EXPECT_TRUE(WIFSIGNALED(status) &&
			    WTERMSIG(status) == SIGKILL);
	} else {
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	EXPECT_GT(2 * self->info.job_timeout_ms * 1000000ll, took) {
		TH_LOG("the client took %lld ms to go",
		       (long long)(took / 1000000));
	}

	/* The other client's work is not lost either. */
	weave_test_wait(_metadata, hog, hog_stream);
	EXPECT_EQ((uint64_t)SX_HOG_JOBS,
		  weave_test_squery(_metadata, hog, hog_stream).completed);
	close(hog);
	close(up[0]);
	close(down[1]);
	weave_test_await_refs(_metadata, self->refcnt);
}

TEST_HARNESS_MAIN
