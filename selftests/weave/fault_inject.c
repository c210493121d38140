// SPDX-License-Identifier: GPL-2.0
/*
 * weave: allocation failures.  Every weave ioctl, the core ioctls that make
 * objects through weave's render node (PRIME export and import, syncobj
 * creation), open and close run with the Nth allocation of the calling
 * task failed, for N from 1 until the call makes fewer than N allocations.
 * Each time the call must succeed or fail with an errno its uAPI documents,
 * keep every promise the uAPI makes about what a failure leaves behind,
 * and leave the client working and nothing allocated.  The lane's kmemleak
 * scan and console check catch what the device's own counters cannot.
 *
 * The knob is /proc/thread-self/fail-nth (FAULT_INJECTION_DEBUG_FS, with
 * FAILSLAB and FAIL_PAGE_ALLOC): writing N arms it; every allocation the
 * injectors consider counts it down and the one that reaches zero fails.
 * Read back after the call, it is 0 if that failure was injected and what
 * is left of N if the call made fewer allocations; writing 0 disarms it.
 * Only the call under test runs between arming and disarming, as one
 * system call, and the process is mlockall()ed so that no page fault (which
 * allocates) happens inside it.  Without the knobs every test fails; none
 * skips.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "weave_test.h"

/*
 * A line of the test's output.  Tests run in forked children that end
 * with _exit(): what they print to stdout must be flushed at once.
 */
#define fi_note(...) do {					\
	ksft_print_msg(__VA_ARGS__);				\
	fflush(stdout);						\
} while (0)

/*
 * The threshold of the clients here.  It keeps slot rings and job task
 * arrays under a page, so kvmalloc() never falls back to vmalloc(), whose
 * failures print a stack dump (warn_alloc()); and a four-task enqueue
 * executes its slot within the call.
 */
#define FI_MAX_TASKS	4

/* A loop that gets this far is stuck: no call here allocates that much. */
#define FI_MAX_STEPS	2000u

/* Host-write bytes of one step's work. */
#define FI_WRITE	256

/* Work lanes (stream and buffers) a client has at most. */
#define FI_LANES	3u

#define FI_DEBUGFS	"/sys/kernel/debug/"

/*
 * By default failslab and fail_page_alloc only consider allocations that
 * cannot sleep, and fail_page_alloc only those of order 1 and up and not
 * __GFP_HIGHMEM (shmem pages are).  Make them consider every allocation
 * weave makes, and keep them quiet: at the default verbosity, 2, every
 * injected failure prints a line and a stack dump on the console.
 */
static const struct {
	const char *file;
	const char *value;
} fi_knobs[] = {
	{ "failslab/ignore-gfp-wait", "N" },
	{ "failslab/cache-filter", "N" },
	{ "failslab/verbose", "0" },
	{ "fail_page_alloc/ignore-gfp-wait", "N" },
	{ "fail_page_alloc/ignore-gfp-highmem", "N" },
	{ "fail_page_alloc/min-order", "0" },
	{ "fail_page_alloc/verbose", "0" },
};

#define FI_NKNOBS	(sizeof(fi_knobs) / sizeof(fi_knobs[0]))

/* Failures injected by every test, in a page the tests' processes share. */
static uint64_t *fi_total;

static void __attribute__((constructor)) fi_total_map(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	fi_total = p == MAP_FAILED ? NULL : p;
}

/* A stream with buffers of its own for one step's work. */
struct fi_lane {
	uint32_t stream;
	uint32_t wbo;		/* three pages */
	uint32_t wres;		/* one page */
	uint8_t *wmap;
	uint32_t *rmap;
};

/* A client: a file with a stream and buffers for the checked chain. */
struct fi_client {
	int fd;
	uint32_t stream;
	uint32_t bo;		/* four pages */
	uint32_t res;		/* one page */
	uint32_t *res_map;
	uint32_t nlanes;
	struct fi_lane lane[FI_LANES];
};

FIXTURE(fi) {
	int nth;		/* /proc/thread-self/fail-nth */
	bool knobs_set;
	char saved[FI_NKNOBS][24];
	char path[64];		/* the render node */
	struct drm_weave_device_info info;
	uint64_t page;
	struct drm_weave_memory_usage base;
	struct fi_client main;	/* the client the checks use */
	uint32_t round;		/* names each checked chain */
	uint64_t steps;		/* calls made with the knob armed */
	uint64_t injected;	/* of those, with a failure injected */
	int64_t start;
};

typedef FIXTURE_DATA(fi) fi_t;

/* Reads a debugfs knob into @buf (@len bytes) without its newline. */
static int fi_knob_read(const char *file, char *buf, size_t len)
{
	return weave_test_read_file(FI_DEBUGFS, file, buf, len);
}

static int fi_knob_write(const char *file, const char *value)
{
	return weave_test_write_file(FI_DEBUGFS, file, value);
}

/* The raw ioctl, once: drmIoctl() would repeat it on EINTR or EAGAIN. */
static int fi_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg) ? -errno : 0;
}

/* Arms the knob: the @n-th allocation from now on fails. */
static void fi_arm(struct __test_metadata *_metadata, fi_t *self,
		   unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	ASSERT_EQ(len, pwrite(self->nth, buf, len, 0));
}

/* Disarms the knob; returns whether the armed failure was injected. */
static bool fi_disarm(struct __test_metadata *_metadata, fi_t *self)
{
	char buf[24];
	ssize_t len;

	len = pread(self->nth, buf, sizeof(buf) - 1, 0);
	ASSERT_EQ(1, pwrite(self->nth, "0", 1, 0));
	ASSERT_LT(0, len);
	buf[len] = 0;
	return strtoul(buf, NULL, 10) == 0;
}

/*
 * Counts step @n of a loop over @what.  Returns true when the loop is
 * done: when no failure was injected, the call made fewer than @n
 * allocations, and it must then have succeeded.
 */
static bool fi_done(struct __test_metadata *_metadata, fi_t *self,
		    const char *what, unsigned int n, bool injected, int ret)
{
	self->steps++;
	if (injected) {
		self->injected++;
		ASSERT_GT(FI_MAX_STEPS, n) {
			TH_LOG("%s: still allocating at fail-nth %u", what, n);
		}
		return false;
	}
	ASSERT_EQ(0, ret) {
		TH_LOG("%s failed with %d (%s) at fail-nth %u, where no allocation failed",
		       what, ret, strerror(-ret), n);
	}
	fi_note("%s: %u allocation(s) failed in turn\n", what, n - 1);
	return true;
}

/* Fails unless @ret is 0 or -ENOMEM; says what and at which step. */
static void fi_ok_or_enomem(struct __test_metadata *_metadata,
			    const char *what, unsigned int n, int ret)
{
	ASSERT_TRUE(ret == 0 || ret == -ENOMEM) {
		TH_LOG("%s at fail-nth %u: %d (%s), not 0 or -ENOMEM",
		       what, n, ret, strerror(-ret));
	}
}

/*
 * Flushes @stream and waits for it, as weave_test_finish() does, but says
 * why the stream failed if it did.
 */
static void fi_finish(struct __test_metadata *_metadata, int fd,
		      uint32_t stream)
{
	struct drm_weave_stream_query q;
	int ret = weave_flush(fd, stream, NULL);

	if (!ret)
		ret = weave_wait(fd, stream,
				 weave_timeout_ns(WEAVE_TEST_WAIT_NS));
	if (ret) {
		memset(&q, 0, sizeof(q));
		weave_stream_query(fd, stream, &q);
		TH_LOG("stream %u: %s; its error %d (%s), %llu enqueued, %llu executed, %llu completed",
		       stream, strerror(-ret), q.error, strerror(-q.error),
		       (unsigned long long)q.enqueued,
		       (unsigned long long)q.executed,
		       (unsigned long long)q.completed);
	}
	ASSERT_EQ(0, ret);
}

/* A new file on the main client's render node, found without a scan. */
static int fi_new_file(struct __test_metadata *_metadata, fi_t *self)
{
	int fd = open(self->path, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd) {
		TH_LOG("%s: %s", self->path, strerror(errno));
	}
	return fd;
}

/* A lane of work for @c: a stream and its buffers, mapped. */
static void fi_lane_add(struct __test_metadata *_metadata, fi_t *self,
			struct fi_client *c)
{
	struct fi_lane *l = &c->lane[c->nlanes];

	ASSERT_GT(FI_LANES, c->nlanes);
	l->stream = weave_test_stream(_metadata, c->fd,
				      DRM_WEAVE_PRIORITY_NORMAL);
	l->wbo = weave_test_bo(_metadata, c->fd, 3 * self->page, 0);
	l->wres = weave_test_bo(_metadata, c->fd, self->page, 0);
	l->wmap = weave_test_map(_metadata, c->fd, l->wbo, 3 * self->page);
	l->rmap = weave_test_map(_metadata, c->fd, l->wres, self->page);
	c->nlanes++;
}

/*
 * Sets up client @c on @fd, or on a new file if @fd is negative, with
 * threshold FI_MAX_TASKS and @nlanes lanes.
 */
static void fi_client_open(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_client *c, int fd, uint32_t nlanes)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd >= 0 ? fd : fi_new_file(_metadata, self);
	weave_test_param(_metadata, c->fd, DRM_WEAVE_PARAM_MAX_TASKS,
			 FI_MAX_TASKS);
	c->stream = weave_test_stream(_metadata, c->fd,
				      DRM_WEAVE_PRIORITY_NORMAL);
	c->bo = weave_test_bo(_metadata, c->fd, 4 * self->page, 0);
	c->res = weave_test_bo(_metadata, c->fd, self->page, 0);
	c->res_map = weave_test_map(_metadata, c->fd, c->res, self->page);
	while (c->nlanes < nlanes)
		fi_lane_add(_metadata, self, c);
}

/* Unmaps @c's buffers and closes its file, with no knob armed. */
static void fi_client_close(struct __test_metadata *_metadata, fi_t *self,
			    struct fi_client *c)
{
	uint32_t i;

	for (i = 0; i < c->nlanes; i++) {
		weave_test_unmap(_metadata, c->lane[i].wmap, 3 * self->page);
		weave_test_unmap(_metadata, c->lane[i].rmap, self->page);
	}
	weave_test_unmap(_metadata, c->res_map, self->page);
	ASSERT_EQ(0, close(c->fd));
	c->fd = -1;
}

/*
 * The client still works: a checked chain (fill, fill, add, copy, crc32c)
 * on its own stream, flushed and waited for, gives the right checksum.
 */
static void fi_client_round(struct __test_metadata *_metadata, fi_t *self,
			    struct fi_client *c)
{
	uint32_t i = ++self->round;
	uint32_t a = weave_test_chain_a(i), b = weave_test_chain_b(i);
	struct weave_test_batch batch;

	weave_test_batch_init(&batch);
	weave_test_chain(&batch, c->bo, self->page, a, b, c->res, 0);
	weave_test_enqueue(_metadata, c->fd, c->stream, &batch);
	fi_finish(_metadata, c->fd, c->stream);
	ASSERT_EQ(weave_test_chain_crc(self->page, a, b), c->res_map[0]) {
		TH_LOG("the client's checked chain %u went wrong", i);
	}
}

/* Polls until the device holds @bos more buffers of @bytes than at setup. */
static void fi_await_usage(struct __test_metadata *_metadata, fi_t *self,
			   uint64_t bos, uint64_t bytes)
{
	int64_t deadline = weave_test_now() + WEAVE_TEST_WAIT_NS;
	struct drm_weave_memory_usage now;

	for (;;) {
		now = weave_test_usage(_metadata, self->main.fd);
		if (now.live_bos == self->base.live_bos + bos &&
		    now.live_bytes == self->base.live_bytes + bytes)
			return;
		if (weave_test_now() > deadline)
			break;
		usleep(2000);
	}
	ASSERT_EQ(self->base.live_bos + bos, now.live_bos);
	ASSERT_EQ(self->base.live_bytes + bytes, now.live_bytes);
}

/* The device is back to its usage at setup and the main client works. */
static void fi_settled(struct __test_metadata *_metadata, fi_t *self)
{
	fi_await_usage(_metadata, self, 0, 0);
	fi_client_round(_metadata, self, &self->main);
}

FIXTURE_SETUP(fi)
{
	char buf[24];
	ssize_t len;
	size_t i;
	int fd, ret;

	self->nth = -1;
	self->main.fd = -1;
	self->start = weave_test_now();
	ASSERT_EQ(0, mlockall(MCL_CURRENT | MCL_FUTURE)) {
		TH_LOG("mlockall: %s", strerror(errno));
	}
	self->nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->nth) {
		TH_LOG("/proc/thread-self/fail-nth: %s (the kernel needs CONFIG_FAULT_INJECTION_DEBUG_FS)",
		       strerror(errno));
	}
	for (i = 0; i < FI_NKNOBS; i++) {
		ret = fi_knob_read(fi_knobs[i].file, self->saved[i],
				   sizeof(self->saved[i]));
		ASSERT_EQ(0, ret) {
			TH_LOG("%s%s: %s (the kernel needs CONFIG_FAILSLAB and CONFIG_FAIL_PAGE_ALLOC, debugfs mounted)",
			       FI_DEBUGFS, fi_knobs[i].file, strerror(-ret));
		}
	}
	/* Nothing but fail-nth may fail an allocation. */
	ASSERT_EQ(0, fi_knob_read("failslab/probability", buf, sizeof(buf)));
	ASSERT_STREQ("0", buf);
	ASSERT_EQ(0, fi_knob_read("fail_page_alloc/probability", buf,
				  sizeof(buf)));
	ASSERT_STREQ("0", buf);

	fd = weave_test_open(_metadata);
	self->info = weave_test_info(_metadata, fd);
	self->page = self->info.page_size;
	fi_client_open(_metadata, self, &self->main, fd, 0);
	self->base = weave_test_usage(_metadata, self->main.fd);
	snprintf(buf, sizeof(buf), "/proc/self/fd/%d", self->main.fd);
	len = readlink(buf, self->path, sizeof(self->path) - 1);
	ASSERT_LT(0, len);
	self->path[len] = 0;

	fi_client_round(_metadata, self, &self->main);

	/* Last, as the teardown that restores the knobs runs after it only. */
	for (i = 0; i < FI_NKNOBS; i++) {
		ret = fi_knob_write(fi_knobs[i].file, fi_knobs[i].value);
		if (ret)
			break;
	}
	if (i < FI_NKNOBS) {
		TH_LOG("writing %s to %s%s: %s", fi_knobs[i].value,
		       FI_DEBUGFS, fi_knobs[i].file, strerror(-ret));
		for (i = 0; i < FI_NKNOBS; i++)
			fi_knob_write(fi_knobs[i].file, self->saved[i]);
		ASSERT_EQ(0, ret);
	}
	self->knobs_set = true;
}

FIXTURE_TEARDOWN(fi)
{
	size_t i;

	if (self->nth >= 0) {
		if (pwrite(self->nth, "0", 1, 0) != 1)
			TH_LOG("cannot disarm fail-nth");
		close(self->nth);
	}
	for (i = 0; self->knobs_set && i < FI_NKNOBS; i++)
		fi_knob_write(fi_knobs[i].file, self->saved[i]);
	if (self->main.fd >= 0)
		close(self->main.fd);
	if (fi_total)
		__atomic_add_fetch(fi_total, self->injected, __ATOMIC_SEQ_CST);
	fi_note("%s: %llu calls with fail-nth armed, %llu allocation failures injected, %lld ms\n",
		       _metadata->name, (unsigned long long)self->steps,
		       (unsigned long long)self->injected,
		       (long long)((weave_test_now() - self->start) / 1000000));
}

/* --- open and close ---------------------------------------------------- */

TEST_F_TIMEOUT(fi, open, 120)
{
	struct fi_client c;
	unsigned int n;
	int fd, err;
	bool inj;

	for (n = 1;; n++) {
		fi_arm(_metadata, self, n);
		fd = open(self->path, O_RDWR | O_CLOEXEC);
		err = fd < 0 ? -errno : 0;
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, "open", n, err);
		if (fd >= 0) {
			/* A file that opened is a whole client. */
			fi_client_open(_metadata, self, &c, fd, 0);
			fi_client_round(_metadata, self, &c);
			fi_client_close(_metadata, self, &c);
		}
		fi_settled(_metadata, self);
		if (fi_done(_metadata, self, "open", n, inj, err))
			break;
	}
}

/*
 * Gives @c work of every kind a close must cancel and reap: a job running
 * a delay, a job waiting on that job's fence (a gate), tasks queued in a
 * slot's ring, and staged host-write bytes.
 */
static void fi_busy(struct __test_metadata *_metadata, fi_t *self,
		    struct fi_client *c)
{
	uint32_t obj = weave_test_syncobj(_metadata, c->fd);
	struct drm_weave_sync sync = weave_sync(obj, 0);
	uint32_t gated, queued, staged;
	uint8_t bytes[FI_WRITE];
	struct weave_test_batch b;

	gated = weave_test_stream(_metadata, c->fd, DRM_WEAVE_PRIORITY_NORMAL);
	queued = weave_test_stream(_metadata, c->fd, DRM_WEAVE_PRIORITY_NORMAL);
	staged = weave_test_stream(_metadata, c->fd, DRM_WEAVE_PRIORITY_LOW);

	weave_test_batch_init(&b);
	weave_test_delay(&b, self->info.job_timeout_ms * 1000 / 2);
	weave_test_fill_task(&b, c->bo, 0, self->page, 1);
	weave_test_enqueue(_metadata, c->fd, c->stream, &b);
	ASSERT_EQ(0, weave_flush(c->fd, c->stream, &sync));

	weave_test_fill_task(&b, c->bo, self->page, self->page, 2);
	ASSERT_EQ(0, weave_enqueue(c->fd, gated, b.task, b.n, &sync, 1,
				   NULL));
	weave_test_batch_init(&b);
	ASSERT_EQ(0, weave_flush(c->fd, gated, NULL));

	weave_test_fill_task(&b, c->res, 0, self->page, 3);
	weave_test_enqueue(_metadata, c->fd, queued, &b);

	memset(bytes, 4, sizeof(bytes));
	weave_test_write_task(&b, c->bo, 2 * self->page, sizeof(bytes), bytes);
	weave_test_enqueue(_metadata, c->fd, staged, &b);

	ASSERT_EQ(2u, weave_test_client_usage(_metadata, c->fd).queued_tasks);
	ASSERT_NE(0u, weave_test_client_usage(_metadata, c->fd).staged_bytes);
}

static void fi_close_loop(struct __test_metadata *_metadata, fi_t *self,
			  bool busy)
{
	const char *what = busy ? "close with work" : "close";
	struct fi_client c;
	unsigned int n;
	bool inj;
	int err;

	for (n = 1;; n++) {
		fi_client_open(_metadata, self, &c, -1, 0);
		fi_client_round(_metadata, self, &c);
		if (busy)
			fi_busy(_metadata, self, &c);
		weave_test_unmap(_metadata, c.res_map, self->page);

		/* The last reference: the file is released within the call. */
		fi_arm(_metadata, self, n);
		err = close(c.fd) ? -errno : 0;
		inj = fi_disarm(_metadata, self);
		ASSERT_EQ(0, err) {
			TH_LOG("%s at fail-nth %u: %s", what, n, strerror(-err));
		}
		/* Its work is cancelled and reaped: its buffers are freed. */
		fi_settled(_metadata, self);
		if (fi_done(_metadata, self, what, n, inj, err))
			break;
	}
}

TEST_F_TIMEOUT(fi, close_idle, 120)
{
	fi_close_loop(_metadata, self, false);
}

TEST_F_TIMEOUT(fi, close_busy, 120)
{
	fi_close_loop(_metadata, self, true);
}

/* --- buffers ----------------------------------------------------------- */

TEST_F_TIMEOUT(fi, bo_create, 120)
{
	struct drm_weave_bo_create args;
	unsigned int n;
	uint8_t *map;
	bool inj;
	int ret;

	for (n = 1;; n++) {
		memset(&args, 0, sizeof(args));
		args.size = 2 * self->page;
		args.flags = n % 2 ? 0 : DRM_WEAVE_BO_NO_MMAP;
		fi_arm(_metadata, self, n);
		ret = fi_ioctl(self->main.fd, DRM_IOCTL_WEAVE_BO_CREATE, &args);
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, "BO_CREATE", n, ret);
		if (!ret) {
			ASSERT_EQ(2 * self->page, args.size);
			fi_await_usage(_metadata, self, 1, 2 * self->page);
			if (!args.flags) {
				map = weave_test_map(_metadata, self->main.fd,
						     args.handle, 2 * self->page);
				ASSERT_EQ(2 * self->page,
					  weave_test_check_bytes(map,
								 2 * self->page,
								 0));
				weave_test_unmap(_metadata, map,
						 2 * self->page);
			}
			weave_test_close_bo(_metadata, self->main.fd,
					    args.handle);
		}
		fi_settled(_metadata, self);
		if (fi_done(_metadata, self, "BO_CREATE", n, inj, ret))
			break;
	}
}

/* --- PRIME and syncobjs: core ioctls that make objects through weave --- */

TEST_F_TIMEOUT(fi, prime_export, 120)
{
	struct drm_prime_handle args;
	uint32_t bo, imported;
	unsigned int n;
	uint8_t *map;
	int fd2, ret;
	bool inj;

	fd2 = fi_new_file(_metadata, self);
	for (n = 1;; n++) {
		/* A fresh buffer each time: no dma-buf is cached for it. */
		bo = weave_test_bo(_metadata, self->main.fd, self->page, 0);
		map = weave_test_map(_metadata, self->main.fd, bo, self->page);
		memset(map, 0xe5, self->page);
		weave_test_unmap(_metadata, map, self->page);

		memset(&args, 0, sizeof(args));
		args.handle = bo;
		args.flags = DRM_CLOEXEC | DRM_RDWR;
		args.fd = -1;
		fi_arm(_metadata, self, n);
		ret = fi_ioctl(self->main.fd, DRM_IOCTL_PRIME_HANDLE_TO_FD,
			       &args);
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, "PRIME_HANDLE_TO_FD", n, ret);
		if (ret) {
			/* Nothing half made: an export now works. */
			ASSERT_EQ(0, weave_bo_export(self->main.fd, bo,
						     DRM_CLOEXEC | DRM_RDWR,
						     &args.fd));
		}
		/* The dma-buf is the buffer, in another file too. */
		ASSERT_EQ(0, weave_bo_import(fd2, args.fd, &imported));
		map = weave_test_map(_metadata, fd2, imported, self->page);
		ASSERT_EQ(self->page,
			  weave_test_check_bytes(map, self->page, 0xe5));
		weave_test_unmap(_metadata, map, self->page);
		fi_await_usage(_metadata, self, 1, self->page);
		weave_test_close_bo(_metadata, fd2, imported);
		weave_test_close_bo(_metadata, self->main.fd, bo);
		ASSERT_EQ(0, close(args.fd));
		fi_settled(_metadata, self);
		if (fi_done(_metadata, self, "PRIME_HANDLE_TO_FD", n, inj, ret))
			break;
	}
	close(fd2);
}

TEST_F_TIMEOUT(fi, prime_import, 120)
{
	struct drm_prime_handle args;
	uint32_t bo, again;
	unsigned int n;
	int fd2, dmabuf, ret;
	uint8_t *map;
	bool inj;

	for (n = 1;; n++) {
		/* A fresh importer each time: it has seen no dma-buf yet. */
		fd2 = fi_new_file(_metadata, self);
		bo = weave_test_bo(_metadata, self->main.fd, self->page, 0);
		map = weave_test_map(_metadata, self->main.fd, bo, self->page);
		memset(map, 0x3c, self->page);
		weave_test_unmap(_metadata, map, self->page);
		ASSERT_EQ(0, weave_bo_export(self->main.fd, bo,
					     DRM_CLOEXEC | DRM_RDWR, &dmabuf));

		memset(&args, 0, sizeof(args));
		args.fd = dmabuf;
		fi_arm(_metadata, self, n);
		ret = fi_ioctl(fd2, DRM_IOCTL_PRIME_FD_TO_HANDLE, &args);
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, "PRIME_FD_TO_HANDLE", n, ret);
		/* Importing again gives the same handle, or the first one. */
		ASSERT_EQ(0, weave_bo_import(fd2, dmabuf, &again));
		if (!ret) {
			ASSERT_EQ(args.handle, again);
		}
		map = weave_test_map(_metadata, fd2, again, self->page);
		ASSERT_EQ(self->page,
			  weave_test_check_bytes(map, self->page, 0x3c));
		weave_test_unmap(_metadata, map, self->page);
		/* One object, however many handles. */
		fi_await_usage(_metadata, self, 1, self->page);
		ASSERT_EQ(0, close(dmabuf));
		weave_test_close_bo(_metadata, self->main.fd, bo);
		ASSERT_EQ(0, close(fd2));
		fi_settled(_metadata, self);
		if (fi_done(_metadata, self, "PRIME_FD_TO_HANDLE", n, inj, ret))
			break;
	}
}

TEST_F_TIMEOUT(fi, syncobj_create, 120)
{
	struct drm_syncobj_create args;
	unsigned int n, pass;
	uint32_t obj;
	bool inj;
	int ret;

	for (pass = 0; pass < 2; pass++) {
		for (n = 1;; n++) {
			memset(&args, 0, sizeof(args));
			args.flags = pass ? DRM_SYNCOBJ_CREATE_SIGNALED : 0;
			fi_arm(_metadata, self, n);
			ret = fi_ioctl(self->main.fd, DRM_IOCTL_SYNCOBJ_CREATE,
				       &args);
			inj = fi_disarm(_metadata, self);
			fi_ok_or_enomem(_metadata, "SYNCOBJ_CREATE", n, ret);
			if (!ret) {
				obj = args.handle;
				/* Signalled if asked, else without a fence. */
				ASSERT_EQ(pass ? 0 : -EINVAL,
					  drmSyncobjWait(self->main.fd, &obj,
							 1, 0, 0, NULL) ?
					  -errno : 0);
				ASSERT_EQ(0, drmSyncobjDestroy(self->main.fd,
							       obj));
			}
			fi_settled(_metadata, self);
			if (fi_done(_metadata, self, "SYNCOBJ_CREATE", n, inj,
				    ret))
				break;
		}
	}
}

/* --- streams and settings ------------------------------------------------ */

TEST_F_TIMEOUT(fi, stream_create, 120)
{
	struct drm_weave_stream_create args;
	struct drm_weave_client_usage before;
	unsigned int n;
	bool inj;
	int ret;

	for (n = 1;; n++) {
		before = weave_test_client_usage(_metadata, self->main.fd);
		memset(&args, 0, sizeof(args));
		args.priority = DRM_WEAVE_PRIORITY_NORMAL;
		fi_arm(_metadata, self, n);
		ret = fi_ioctl(self->main.fd, DRM_IOCTL_WEAVE_STREAM_CREATE,
			       &args);
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, "STREAM_CREATE", n, ret);
		if (ret) {
			ASSERT_EQ(before.streams, weave_test_client_usage(
				_metadata, self->main.fd).streams);
		} else {
			ASSERT_EQ(before.streams + 1, weave_test_client_usage(
				_metadata, self->main.fd).streams);
			weave_test_squery(_metadata, self->main.fd,
					  args.handle);
			ASSERT_EQ(0, weave_stream_destroy(self->main.fd,
							  args.handle));
		}
		fi_settled(_metadata, self);
		if (fi_done(_metadata, self, "STREAM_CREATE", n, inj, ret))
			break;
	}
}

/*
 * STREAM_DESTROY executes the stream's queued tasks first: "destroying a
 * stream never loses work".  So whatever allocation fails, the work must
 * be done once the client flushes.  Out of memory, the call either
 * destroys the stream, its tasks submitted or held for the next FLUSH, or
 * fails with -ENOMEM and leaves the stream, its tasks still queued, to be
 * destroyed by a second call.
 */
TEST_F_TIMEOUT(fi, stream_destroy, 120)
{
	struct drm_weave_stream_destroy args;
	struct drm_weave_stream_query q;
	uint8_t bytes[FI_WRITE];
	struct weave_test_batch b;
	struct drm_weave_sync out;
	struct fi_client c;
	uint32_t stream, obj, *words;
	unsigned int n;
	bool inj;
	int ret;

	fi_client_open(_metadata, self, &c, -1, 1);
	words = (uint32_t *)c.lane[0].wmap;
	obj = weave_test_syncobj(_metadata, c.fd);
	for (n = 1;; n++) {
		stream = weave_test_stream(_metadata, c.fd,
					   DRM_WEAVE_PRIORITY_NORMAL);
		memset(bytes, n & 0xff, sizeof(bytes));
		weave_test_batch_init(&b);
		weave_test_write_task(&b, c.lane[0].wbo, 0, sizeof(bytes),
				      bytes);
		weave_test_fill_task(&b, c.lane[0].wbo, self->page, self->page,
				     0xd0000000u | n);
		weave_test_enqueue(_metadata, c.fd, stream, &b);

		memset(&args, 0, sizeof(args));
		args.handle = stream;
		fi_arm(_metadata, self, n);
		ret = fi_ioctl(c.fd, DRM_IOCTL_WEAVE_STREAM_DESTROY, &args);
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, "STREAM_DESTROY", n, ret);
		if (ret) {
			q = weave_test_squery(_metadata, c.fd, stream);
			ASSERT_EQ(0, q.error);
			ASSERT_EQ(0, weave_stream_destroy(c.fd, stream));
		}
		ASSERT_EQ(-ENOENT, weave_stream_query(c.fd, stream, &q));

		/* Its two tasks ran, or run with the next flush. */
		out = weave_sync(obj, 0);
		ASSERT_EQ(0, weave_flush_all(c.fd, &out));
		ASSERT_EQ(0, drmSyncobjWait(c.fd, &obj, 1,
					    weave_timeout_ns(WEAVE_TEST_WAIT_NS),
					    0, NULL));
		/* Lost work fails the test; the loop goes on to find all. */
		EXPECT_EQ((size_t)FI_WRITE,
			  weave_test_check_bytes(c.lane[0].wmap, FI_WRITE,
						 n & 0xff)) {
			TH_LOG("STREAM_DESTROY at fail-nth %u returned 0 but its queued host write never ran",
			       n);
		}
		EXPECT_EQ(0xd0000000u | n, words[self->page / 4]) {
			TH_LOG("STREAM_DESTROY at fail-nth %u returned 0 but its queued fill never ran",
			       n);
		}
		fi_client_round(_metadata, self, &c);
		if (fi_done(_metadata, self, "STREAM_DESTROY", n, inj, ret))
			break;
	}
	fi_client_close(_metadata, self, &c);
	fi_settled(_metadata, self);
}

/*
 * DRM_WEAVE_PARAM_MAX_TASKS makes the client a new scheduler core: on
 * failure the old one, and its threshold, must stay.
 */
TEST_F_TIMEOUT(fi, set_param_max_tasks, 120)
{
	struct drm_weave_set_param args;
	struct weave_test_batch b;
	uint32_t stream, i;
	unsigned int n;
	bool inj;
	int fd, ret;

	ASSERT_LT(3u, self->info.max_tasks);
	for (n = 1;; n++) {
		fd = fi_new_file(_metadata, self);
		stream = weave_test_stream(_metadata, fd,
					   DRM_WEAVE_PRIORITY_NORMAL);
		memset(&args, 0, sizeof(args));
		args.param = DRM_WEAVE_PARAM_MAX_TASKS;
		args.value = 3;
		fi_arm(_metadata, self, n);
		ret = fi_ioctl(fd, DRM_IOCTL_WEAVE_SET_PARAM, &args);
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, "SET_PARAM MAX_TASKS", n, ret);

		/* Three tasks execute the slot if and only if it took. */
		weave_test_batch_init(&b);
		for (i = 0; i < 3; i++)
			weave_test_noop(&b);
		weave_test_enqueue(_metadata, fd, stream, &b);
		ASSERT_EQ(ret ? 0u : 3u,
			  weave_test_squery(_metadata, fd, stream).executed);
		fi_finish(_metadata, fd, stream);
		ASSERT_EQ(3u, weave_test_squery(_metadata, fd,
						stream).completed);
		ASSERT_EQ(0, close(fd));
		fi_settled(_metadata, self);
		if (fi_done(_metadata, self, "SET_PARAM MAX_TASKS", n, inj,
			    ret))
			break;
	}
}

/*
 * The ioctls that should allocate nothing: each takes one step, or fails
 * a documented way.  None of them documents -ENOMEM.
 */
TEST_F_TIMEOUT(fi, small_ioctls, 120)
{
	static const char * const names[] = {
		"QUERY DEVICE_INFO", "QUERY MEMORY_USAGE",
		"QUERY CLIENT_USAGE", "STREAM_QUERY", "STREAM_ISOLATE enter",
		"STREAM_ISOLATE leave", "SET_PARAM STRATEGY",
		"WAIT on completed work", "WAIT on running work",
		"BO_MMAP_OFFSET", "GEM_CLOSE",
	};
	struct drm_weave_client_usage cu;
	struct drm_weave_stream_isolate iso;
	struct drm_weave_bo_mmap_offset mo;
	struct drm_weave_stream_query sq;
	struct drm_weave_set_param sp;
	struct drm_weave_query qa;
	struct drm_gem_close gc;
	struct drm_weave_wait w;
	struct weave_test_batch b;
	uint8_t reply[256];
	unsigned int which, n;
	bool inj;
	int ret;

	for (which = 0; which < sizeof(names) / sizeof(names[0]); which++) {
		for (n = 1;; n++) {
			/* Argument and state, made before arming. */
			memset(&qa, 0, sizeof(qa));
			qa.type = which;
			qa.size = sizeof(reply);
			qa.pointer = (uintptr_t)reply;
			memset(&sq, 0, sizeof(sq));
			sq.handle = self->main.stream;
			iso.handle = self->main.stream;
			iso.op = which == 4 ? DRM_WEAVE_ISOLATION_ENTER :
					      DRM_WEAVE_ISOLATION_LEAVE;
			if (which == 5) {
				ASSERT_EQ(0, weave_stream_isolate(self->main.fd,
						self->main.stream,
						DRM_WEAVE_ISOLATION_ENTER));
			}
			memset(&sp, 0, sizeof(sp));
			sp.param = DRM_WEAVE_PARAM_STRATEGY;
			sp.value = n % 2 ? DRM_WEAVE_STRATEGY_SEQUENTIAL :
					   DRM_WEAVE_STRATEGY_INTERLEAVE;
			memset(&w, 0, sizeof(w));
			w.handle = self->main.stream;
			w.timeout_ns = weave_timeout_ns(WEAVE_TEST_WAIT_NS);
			if (which == 8) {
				weave_test_batch_init(&b);
				weave_test_delay(&b, 20000);
				weave_test_enqueue(_metadata, self->main.fd,
						   self->main.stream, &b);
				ASSERT_EQ(0, weave_flush(self->main.fd,
							 self->main.stream,
							 NULL));
			}
			memset(&mo, 0, sizeof(mo));
			mo.handle = self->main.res;
			memset(&gc, 0, sizeof(gc));
			if (which == 10)
				gc.handle = weave_test_bo(_metadata,
							  self->main.fd,
							  self->page, 0);

			fi_arm(_metadata, self, n);
			switch (which) {
			case 0: case 1: case 2:
				ret = fi_ioctl(self->main.fd,
					       DRM_IOCTL_WEAVE_QUERY, &qa);
				break;
			case 3:
				ret = fi_ioctl(self->main.fd,
					       DRM_IOCTL_WEAVE_STREAM_QUERY,
					       &sq);
				break;
			case 4: case 5:
				ret = fi_ioctl(self->main.fd,
					       DRM_IOCTL_WEAVE_STREAM_ISOLATE,
					       &iso);
				break;
			case 6:
				ret = fi_ioctl(self->main.fd,
					       DRM_IOCTL_WEAVE_SET_PARAM, &sp);
				break;
			case 7: case 8:
				ret = fi_ioctl(self->main.fd,
					       DRM_IOCTL_WEAVE_WAIT, &w);
				break;
			case 9:
				ret = fi_ioctl(self->main.fd,
					       DRM_IOCTL_WEAVE_BO_MMAP_OFFSET,
					       &mo);
				break;
			default:
				ret = fi_ioctl(self->main.fd,
					       DRM_IOCTL_GEM_CLOSE, &gc);
				break;
			}
			inj = fi_disarm(_metadata, self);
			ASSERT_EQ(0, ret) {
				TH_LOG("%s at fail-nth %u: %s", names[which],
				       n, strerror(-ret));
			}
			/* Undo what the call did. */
			if (which == 4) {
				ASSERT_EQ(0, weave_stream_isolate(self->main.fd,
						self->main.stream,
						DRM_WEAVE_ISOLATION_LEAVE));
			}
			if (which == 6) {
				weave_test_param(_metadata, self->main.fd,
						 DRM_WEAVE_PARAM_STRATEGY,
						 DRM_WEAVE_STRATEGY_INTERLEAVE);
			}
			if (which == 2) {
				memcpy(&cu, reply, sizeof(cu));
				ASSERT_EQ(cu.ring_bytes + cu.job_bytes +
					  cu.gate_bytes + cu.arena_bytes +
					  cu.alone_bytes, cu.kernel_bytes);
			}
			fi_settled(_metadata, self);
			if (fi_done(_metadata, self, names[which], n, inj,
				    ret))
				break;
		}
	}
}

/*
 * CHECK (uAPI 1.3) fails cleanly with -ENOMEM, its one error besides the
 * caller's mistakes: whatever allocation fails, a valid CHECK returns
 * either that or its whole report.
 */
TEST_F_TIMEOUT(fi, check, 120)
{
	struct drm_weave_failure_task t[4];
	struct drm_weave_check_range r;
	struct drm_weave_failure f[4];
	struct drm_weave_check a;
	struct weave_test_batch b;
	uint32_t bo;
	unsigned int n;
	bool inj;
	int ret;

	ASSERT_LE(3u, self->info.uapi_minor);
	bo = weave_test_bo(_metadata, self->main.fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, bo, 0, 64, EIO);
	weave_test_copy_task(&b, bo, 0, bo, 128, 64);
	weave_test_enqueue(_metadata, self->main.fd, self->main.stream, &b);
	fi_finish(_metadata, self->main.fd, self->main.stream);

	for (n = 1;; n++) {
		r = weave_check_range(bo, 0, self->page);
		memset(f, 0, sizeof(f));
		memset(t, 0, sizeof(t));
		memset(&a, 0, sizeof(a));
		a.ranges.ptr = (uintptr_t)&r;
		a.ranges.stride = sizeof(r);
		a.ranges.count = 1;
		a.failures.ptr = (uintptr_t)f;
		a.failures.stride = sizeof(f[0]);
		a.failures.count = 4;
		a.skips.ptr = (uintptr_t)t;
		a.skips.stride = sizeof(t[0]);
		a.skips.count = 4;

		fi_arm(_metadata, self, n);
		ret = fi_ioctl(self->main.fd, DRM_IOCTL_WEAVE_CHECK, &a);
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, "CHECK", n, ret);
		if (ret) {
			ASSERT_TRUE(inj);
			fi_done(_metadata, self, "CHECK", n, inj, ret);
			continue;
		}
		ASSERT_EQ(1u, a.nfailures);
		ASSERT_EQ(1u, a.nskips);
		ASSERT_EQ(1u, r.nfailures);
		ASSERT_EQ(-EIO, f[0].error);
		ASSERT_EQ(1u, f[0].nskips);
		ASSERT_EQ((uint32_t)DRM_WEAVE_KERNEL_COPY,
			  t[f[0].first_skip].kernel);
		if (fi_done(_metadata, self, "CHECK", n, inj, ret))
			break;
	}
	weave_test_close_bo(_metadata, self->main.fd, bo);
}

/*
 * READ (uAPI 1.3) under fail-nth: of a good range, after a fill it has to
 * submit itself, it returns the bytes or -ENOMEM; of a tainted range, the
 * report or -ENOMEM.  A failed READ submits nothing twice and loses
 * nothing: the next one returns the same.
 */
TEST_F_TIMEOUT(fi, read, 120)
{
	struct drm_weave_failure_task t[4];
	struct drm_weave_failure f[4];
	struct weave_test_batch b;
	uint32_t bo, *data, nf, nt;
	unsigned int n, k;
	bool inj;
	int ret;

	ASSERT_LE(3u, self->info.uapi_minor);
	data = malloc(self->page);
	ASSERT_NE(NULL, data);
	bo = weave_test_bo(_metadata, self->main.fd, 2 * self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, bo, self->page, 64, EIO);
	weave_test_enqueue(_metadata, self->main.fd, self->main.stream, &b);
	fi_finish(_metadata, self->main.fd, self->main.stream);

	for (k = 0; k < 2; k++) {
		for (n = 1;; n++) {
			/* Queued, not flushed: the READ submits it. */
			weave_test_fill_task(&b, bo, 0, self->page, 0x5eed + n);
			weave_test_enqueue(_metadata, self->main.fd,
					   self->main.stream, &b);
			memset(data, 0, self->page);
			nf = 4;
			nt = 4;
			fi_arm(_metadata, self, n);
			ret = weave_read(self->main.fd, bo, k * self->page,
					 self->page, data,
					 weave_timeout_ns(WEAVE_TEST_WAIT_NS),
					 f, &nf, t, &nt);
			inj = fi_disarm(_metadata, self);
			if (ret == -ENOMEM) {
				ASSERT_TRUE(inj);
				fi_done(_metadata, self, "READ", n, inj, ret);
				continue;
			}
			if (k) {
				ASSERT_EQ(-EIO, ret);
				ASSERT_EQ(1u, nf);
				ASSERT_EQ(-EIO, f[0].error);
				ret = 0;
			} else {
				ASSERT_EQ(0, ret);
				ASSERT_EQ(0x5eed + n, data[0]);
				ASSERT_EQ(0x5eed + n, data[self->page / 4 - 1]);
			}
			if (fi_done(_metadata, self, "READ", n, inj, ret))
				break;
		}
	}
	fi_finish(_metadata, self->main.fd, self->main.stream);
	weave_test_close_bo(_metadata, self->main.fd, bo);
	free(data);
}

/* --- enqueue --------------------------------------------------------------- */

/*
 * One step's work on lane @l: a host write of FI_WRITE bytes at the start
 * of page 0, a fill of page 1 and the crc32c of page 0 into the result.
 * What it must produce follows from @seed alone.
 */
struct fi_work {
	uint32_t seed;
	uint8_t bytes[FI_WRITE];
	struct weave_test_batch b;
};

static void fi_work_build(fi_t *self, struct fi_lane *l, struct fi_work *w,
			  uint32_t seed)
{
	w->seed = seed;
	weave_test_fill(w->bytes, sizeof(w->bytes), seed);
	weave_test_batch_init(&w->b);
	weave_test_write_task(&w->b, l->wbo, 0, sizeof(w->bytes), w->bytes);
	weave_test_fill_task(&w->b, l->wbo, self->page, self->page,
			     seed ^ 0x0f0f0f0fu);
	weave_test_crc_task(&w->b, l->wbo, 0, self->page, l->wres, 0);
}

/* Checks lane @l holds what @w produces (once it has run). */
static void fi_work_check(struct __test_metadata *_metadata, fi_t *self,
			  struct fi_lane *l, const struct fi_work *w,
			  const char *what, unsigned int n)
{
	uint32_t *words = (uint32_t *)l->wmap, crc;
	uint8_t *page0 = calloc(1, self->page);
	size_t i;

	ASSERT_NE(NULL, page0);
	memcpy(page0, w->bytes, sizeof(w->bytes));
	crc = weave_test_crc32c(page0, self->page);
	free(page0);
	ASSERT_EQ(0, memcmp(l->wmap, w->bytes, sizeof(w->bytes))) {
		TH_LOG("%s, fail-nth %u: the host write is not in the buffer",
		       what, n);
	}
	for (i = 0; i < self->page / 4; i++) {
		ASSERT_EQ(w->seed ^ 0x0f0f0f0fu, words[self->page / 4 + i]) {
			TH_LOG("%s, fail-nth %u: the fill is not in the buffer (word %zu)",
			       what, n, i);
		}
	}
	ASSERT_EQ(crc, l->rmap[0]) {
		TH_LOG("%s, fail-nth %u: wrong crc32c", what, n);
	}
}

static int fi_enqueue_raw(int fd, uint32_t stream, struct weave_test_batch *b,
			  const struct drm_weave_sync *in, uint32_t nin)
{
	struct drm_weave_enqueue args;

	memset(&args, 0, sizeof(args));
	args.stream = stream;
	args.tasks.ptr = (uintptr_t)b->task;
	args.tasks.stride = sizeof(b->task[0]);
	args.tasks.count = b->n;
	args.in_syncs.ptr = (uintptr_t)in;
	args.in_syncs.stride = sizeof(*in);
	args.in_syncs.count = nin;
	return fi_ioctl(fd, DRM_IOCTL_WEAVE_ENQUEUE, &args);
}

enum fi_enqueue_kind {
	FI_ENQ_COLD,		/* the client's first enqueue */
	FI_ENQ_WARM,		/* a client that ran work before */
	FI_ENQ_GATED,		/* in-fences that have not signalled */
};

/* Syncobjs fi_in_syncs() makes. */
#define FI_SYNCOBJS	4

/*
 * Makes the in-syncs of an enqueue of @kind on @c in @in, with the
 * FI_SYNCOBJS syncobjs it creates in @objs; returns how many.  Pending
 * fences come from @gate, another client, so that @c's own counters only
 * move with the enqueue.
 */
static uint32_t fi_in_syncs(struct __test_metadata *_metadata,
			    struct fi_client *c, struct fi_client *gate,
			    enum fi_enqueue_kind kind,
			    struct drm_weave_sync *in, uint32_t *objs)
{
	uint32_t i, gobj = weave_test_syncobj(_metadata, gate->fd);
	struct weave_test_batch b;
	struct drm_weave_sync out;
	uint64_t point = 5;
	int sfd = -1;

	for (i = 0; i < FI_SYNCOBJS; i++)
		objs[i] = weave_test_syncobj(_metadata, c->fd);
	if (kind != FI_ENQ_GATED) {
		/* Signalled fences: a binary syncobj and a timeline point. */
		ASSERT_EQ(0, drmSyncobjSignal(c->fd, &objs[0], 1));
		ASSERT_EQ(0, drmSyncobjTimelineSignal(c->fd, &objs[1], &point,
						      1));
		in[0] = weave_sync(objs[0], 0);
		in[1] = weave_sync(objs[1], point);
		return 2;
	}
	/*
	 * Three fences of the gate client's delays, each its own context:
	 * in two binary syncobjs, and at a timeline point (moved there from
	 * the fourth syncobj).
	 */
	for (i = 0; i < 3; i++) {
		weave_test_batch_init(&b);
		weave_test_delay(&b, 10000);
		weave_test_enqueue(_metadata, gate->fd, gate->stream, &b);
		out = weave_sync(gobj, 0);
		ASSERT_EQ(0, weave_flush(gate->fd, gate->stream, &out));
		ASSERT_EQ(0, drmSyncobjExportSyncFile(gate->fd, gobj, &sfd));
		ASSERT_EQ(0, drmSyncobjImportSyncFile(c->fd,
						      objs[i == 2 ? 3 : i],
						      sfd));
		close(sfd);
		in[i] = weave_sync(objs[i], i == 2 ? point : 0);
	}
	ASSERT_EQ(0, drmSyncobjTransfer(c->fd, objs[2], point, objs[3], 0, 0));
	ASSERT_EQ(0, drmSyncobjDestroy(gate->fd, gobj));
	return 3;
}

/*
 * ENQUEUE fails with -ENOMEM having queued nothing, or queues every task,
 * which then runs.  These enqueues execute nothing within the call (see
 * fi_poison_loop() for those that do), and none fails its stream.
 */
static void fi_enqueue_loop(struct __test_metadata *_metadata, fi_t *self,
			    enum fi_enqueue_kind kind, const char *what)
{
	struct drm_weave_client_usage before, after;
	struct drm_weave_stream_query qb, q;
	struct drm_weave_sync in[3];
	uint32_t objs[FI_SYNCOBJS], nin, i;
	struct weave_test_batch extra;
	struct fi_work w;
	struct fi_client c;
	unsigned int n;
	bool inj;
	int ret;

	if (kind != FI_ENQ_COLD) {
		fi_client_open(_metadata, self, &c, -1, 1);
		fi_client_round(_metadata, self, &c);
	}
	for (n = 1;; n++) {
		if (kind == FI_ENQ_COLD)
			fi_client_open(_metadata, self, &c, -1, 1);
		nin = fi_in_syncs(_metadata, &c, &self->main, kind, in, objs);
		fi_work_build(self, &c.lane[0], &w, 0x10000u * n + kind);
		qb = weave_test_squery(_metadata, c.fd, c.lane[0].stream);
		before = weave_test_client_usage(_metadata, c.fd);

		fi_arm(_metadata, self, n);
		ret = fi_enqueue_raw(c.fd, c.lane[0].stream, &w.b, in, nin);
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, what, n, ret);

		q = weave_test_squery(_metadata, c.fd, c.lane[0].stream);
		after = weave_test_client_usage(_metadata, c.fd);
		if (ret) {
			/* Nothing was queued, staged or gated. */
			ASSERT_EQ(qb.enqueued, q.enqueued);
			ASSERT_EQ(before.pending_tasks, after.pending_tasks);
			ASSERT_EQ(before.queued_tasks, after.queued_tasks);
			ASSERT_EQ(before.staged_bytes, after.staged_bytes);
			ASSERT_EQ(before.alone_bytes, after.alone_bytes);
			ASSERT_EQ(before.gate_bytes, after.gate_bytes);
			/* And the same call now goes through. */
			ASSERT_EQ(0, weave_enqueue(c.fd, c.lane[0].stream,
						   w.b.task, w.b.n, in, nin,
						   NULL));
		} else {
			ASSERT_EQ(qb.enqueued + w.b.n, q.enqueued);
		}
		q = weave_test_squery(_metadata, c.fd, c.lane[0].stream);
		ASSERT_EQ(0, q.error) {
			TH_LOG("%s, fail-nth %u: an enqueue that executes nothing failed its stream",
			       what, n);
		}
		/*
		 * One more task, on whatever the call left in the slot's
		 * ring, before anything flushes it.
		 */
		weave_test_batch_init(&extra);
		weave_test_fill_task(&extra, c.lane[0].wres, 8, 4, w.seed);
		weave_test_enqueue(_metadata, c.fd, c.lane[0].stream, &extra);
		fi_finish(_metadata, c.fd, c.lane[0].stream);
		q = weave_test_squery(_metadata, c.fd, c.lane[0].stream);
		ASSERT_EQ(q.enqueued, q.completed);
		fi_work_check(_metadata, self, &c.lane[0], &w, what, n);
		ASSERT_EQ(w.seed, c.lane[0].rmap[2]) {
			TH_LOG("%s, fail-nth %u: the task enqueued after it did not run",
			       what, n);
		}
		for (i = 0; i < FI_SYNCOBJS; i++)
			ASSERT_EQ(0, drmSyncobjDestroy(c.fd, objs[i]));
		weave_test_client_idle(_metadata, c.fd);
		if (kind == FI_ENQ_COLD) {
			/* Its work ran; the main client's round follows. */
			fi_client_close(_metadata, self, &c);
			fi_settled(_metadata, self);
		} else {
			fi_client_round(_metadata, self, &c);
		}
		if (fi_done(_metadata, self, what, n, inj, ret))
			break;
	}
	if (kind != FI_ENQ_COLD) {
		fi_client_close(_metadata, self, &c);
		fi_settled(_metadata, self);
	}
}

TEST_F_TIMEOUT(fi, enqueue_cold, 120)
{
	fi_enqueue_loop(_metadata, self, FI_ENQ_COLD, "ENQUEUE, first");
}

TEST_F_TIMEOUT(fi, enqueue_warm, 120)
{
	fi_enqueue_loop(_metadata, self, FI_ENQ_WARM, "ENQUEUE");
}

TEST_F_TIMEOUT(fi, enqueue_gated, 120)
{
	fi_enqueue_loop(_metadata, self, FI_ENQ_GATED, "ENQUEUE, gated");
}


/* --- executions an enqueue causes: a task it cannot pack (uAPI 1.4) ----- */

/* Bindings of the FAIL of a step: past an encoded task's own three. */
#define FI_FAIL_BINDINGS	5

/* Tasks of a step of fi_poison_loop(). */
#define FI_PTASKS	4

/* Bytes of lane 0's result page that a step's tasks write, from 0. */
#define FI_PRES		(64 + 64 * FI_FAIL_BINDINGS)

enum fi_poison_kind {
	FI_POISON_THRESHOLD,	/* the enqueue's last task executes its slot */
	FI_POISON_ALIGN,	/* it binds a buffer another slot has queued */
};

/* What a task of a step does, on lane 0's buffers. */
enum fi_role {
	FI_WRITE_0,	/* a host write of FI_WRITE bytes at page 0 */
	FI_FILL_1,	/* a fill of page 1 */
	FI_FAIL_RES,	/* a FAIL, -EIO, of FI_FAIL_BINDINGS 64-byte ranges
			 * of the result page, from byte 64 on */
	FI_CRC,		/* the crc32c of task 0's (first) range into the
			 * result's first word */
};

/*
 * A step's work.  Task 0 is the first an execution packs: the one whose
 * job the kernel makes, and so the one it fails to pack at the steps
 * that fail the making of a job; the crc32c, last, reads what task 0
 * wrote.  With FI_POISON_THRESHOLD the four tasks are one enqueue, task
 * 0 the host write, so that a host write is what cannot be packed; with
 * FI_POISON_ALIGN tasks 0 to 2 are queued on lane 0's slot and the
 * crc32c, enqueued alone on lane 1's stream, executes them, task 0 the
 * FAIL, so that a task with bindings past three is.
 */
struct fi_poison {
	uint32_t seed;
	uint32_t pattern;
	uint32_t eio;
	enum fi_role role[FI_PTASKS];
	uint32_t stream[FI_PTASKS];	/* of each task */
	uint64_t seqno[FI_PTASKS];	/* on its stream, once enqueued */
	uint8_t bytes[FI_WRITE];
	struct drm_weave_binding bind[FI_PTASKS][FI_FAIL_BINDINGS];
	struct drm_weave_task task[FI_PTASKS];
};

static void fi_poison_build(fi_t *self, struct fi_client *c,
			    struct fi_poison *p, uint32_t seed,
			    enum fi_poison_kind kind)
{
	static const enum fi_role order[2][FI_PTASKS] = {
		[FI_POISON_THRESHOLD] = {
			FI_WRITE_0, FI_FILL_1, FI_FAIL_RES, FI_CRC,
		},
		[FI_POISON_ALIGN] = {
			FI_FAIL_RES, FI_WRITE_0, FI_FILL_1, FI_CRC,
		},
	};
	struct fi_lane *l = &c->lane[0];
	struct drm_weave_binding *b;
	uint32_t k, j;

	memset(p, 0, sizeof(*p));
	p->seed = seed;
	p->pattern = seed ^ 0x5a5a5a5au;
	p->eio = EIO;
	weave_test_fill(p->bytes, sizeof(p->bytes), seed);
	for (k = 0; k < FI_PTASKS; k++) {
		b = p->bind[k];
		p->role[k] = order[kind][k];
		switch (p->role[k]) {
		case FI_WRITE_0:
			b[0] = weave_binding(l->wbo, DRM_WEAVE_ACCESS_WRITE, 0,
					     FI_WRITE);
			weave_task_host_write(&p->task[k], b, p->bytes);
			break;
		case FI_FILL_1:
			b[0] = weave_binding(l->wbo, DRM_WEAVE_ACCESS_WRITE,
					     self->page, self->page);
			weave_task_launch(&p->task[k], DRM_WEAVE_KERNEL_FILL,
					  b, 1, &p->pattern,
					  sizeof(p->pattern));
			break;
		case FI_FAIL_RES:
			for (j = 0; j < FI_FAIL_BINDINGS; j++)
				b[j] = weave_binding(l->wres,
						     DRM_WEAVE_ACCESS_WRITE,
						     64 + 64 * j, 64);
			weave_task_launch(&p->task[k], DRM_WEAVE_KERNEL_FAIL,
					  b, FI_FAIL_BINDINGS, &p->eio,
					  sizeof(p->eio));
			break;
		case FI_CRC:
			b[0] = p->bind[0][0];
			b[0].access = DRM_WEAVE_ACCESS_READ;
			b[1] = weave_binding(l->wres, DRM_WEAVE_ACCESS_WRITE,
					     0, 4);
			weave_task_launch(&p->task[k], DRM_WEAVE_KERNEL_CRC32C,
					  b, 2, NULL, 0);
			break;
		}
		p->task[k].label = seed + k;
		p->stream[k] = l->stream;
	}
	if (kind == FI_POISON_ALIGN)
		p->stream[3] = c->lane[1].stream;
}

/* Enqueues tasks @first to @first + @n - 1 of @p, raw; notes their seqnos. */
static int fi_poison_enqueue(int fd, struct fi_poison *p, uint32_t first,
			     uint32_t n, const struct drm_weave_sync *in,
			     uint32_t nin)
{
	struct drm_weave_enqueue args;
	uint32_t k;
	int ret;

	memset(&args, 0, sizeof(args));
	args.stream = p->stream[first];
	args.tasks.ptr = (uintptr_t)&p->task[first];
	args.tasks.stride = sizeof(p->task[0]);
	args.tasks.count = n;
	args.in_syncs.ptr = (uintptr_t)in;
	args.in_syncs.stride = sizeof(*in);
	args.in_syncs.count = nin;
	ret = fi_ioctl(fd, DRM_IOCTL_WEAVE_ENQUEUE, &args);
	for (k = 0; !ret && k < n; k++)
		p->seqno[first + k] = args.seqno - n + 1 + k;
	return ret;
}

/* Ranges task @k of @p writes; the @j-th is fi_poison_range(). */
static uint32_t fi_poison_nranges(const struct fi_poison *p, uint32_t k)
{
	return p->role[k] == FI_FAIL_RES ? FI_FAIL_BINDINGS : 1;
}

static struct drm_weave_binding fi_poison_range(const struct fi_poison *p,
						uint32_t k, uint32_t j)
{
	return p->bind[k][p->role[k] == FI_CRC ? 1 : j];
}

/* Checks that report task @t is task @k of @p. */
static void fi_poison_expect_task(struct __test_metadata *_metadata,
				  const struct fi_poison *p, uint32_t k,
				  const struct drm_weave_failure_task *t)
{
	EXPECT_EQ(DRM_WEAVE_FAILURE_TASK_OWN, t->flags);
	EXPECT_EQ(p->stream[k], t->stream);
	EXPECT_EQ(p->seqno[k], t->seqno);
	EXPECT_EQ(p->task[k].label, t->label);
	EXPECT_EQ(p->task[k].type, t->type);
	EXPECT_EQ(p->task[k].kernel, t->kernel);
}

/*
 * Checks the report @r of a range of task @k of @p: one failure, whose
 * root is task @root with error @err and cause @cause, and whose skip
 * records are the crc32c's if it read task @root's bytes.  Returns its id.
 */
static uint64_t fi_poison_expect(struct __test_metadata *_metadata,
				 const struct fi_poison *p,
				 const struct weave_test_report *r,
				 uint32_t root, int err, uint32_t cause)
{
	const struct drm_weave_failure *f = &r->failure[0];

	EXPECT_EQ(err, f->error);
	EXPECT_EQ(cause, f->cause);
	fi_poison_expect_task(_metadata, p, root, &f->root);
	EXPECT_EQ(0u, f->skips_dropped);
	if (root) {
		EXPECT_EQ(0u, f->nskips);
	} else {
		/* The crc32c read it, and was skipped. */
		EXPECT_EQ(1u, f->nskips);
		if (f->nskips == 1)
			fi_poison_expect_task(_metadata, p, FI_PTASKS - 1,
					      &r->skip[f->first_skip]);
	}
	return f->id;
}

/*
 * After a step's work ran: which task of @p the kernel could not pack, or
 * -1 for none.  Every range shows what the uAPI says it must: that task's
 * own new failure (-ENOMEM, cause ENCODE) on what it should have written,
 * the FAIL's included; the FAIL's -EIO otherwise; the crc32c skipped,
 * carrying the failure of task 0 if there is one; everything else good,
 * with the bytes its task wrote.
 */
static int fi_poison_check(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_client *c, const struct fi_poison *p,
			   struct weave_test_report *r, const char *what,
			   unsigned int n)
{
	struct fi_lane *l = &c->lane[0];
	uint32_t *words = (uint32_t *)l->wmap;
	uint64_t id[FI_PTASKS] = { 0 };
	bool ran[FI_PTASKS] = { false };
	struct drm_weave_binding b;
	int poisoned = -1;
	uint32_t k, j, i, nf;

	for (k = 0; k < FI_PTASKS; k++) {
		for (j = 0; j < fi_poison_nranges(p, k); j++) {
			b = fi_poison_range(p, k, j);
			nf = weave_test_report(_metadata, c->fd, b.handle,
					       b.offset, b.size, r);
			for (i = 0; nf > 1 && i < nf; i++)
				weave_test_log_failure(_metadata, r, i);
			ASSERT_GE(1u, nf) {
				TH_LOG("%s, fail-nth %u: task %u's range %u carries %u failures",
				       what, n, k, j, nf);
			}
			if (p->role[k] == FI_CRC) {
				/* Skipped if task 0 left a failure. */
				ASSERT_EQ(id[0] ? 1u : 0u, nf) {
					TH_LOG("%s, fail-nth %u: the crc32c's range carries %u failures, task 0's %s",
					       what, n, nf,
					       id[0] ? "one" : "none");
				}
				if (nf)
					EXPECT_EQ(id[0], r->failure[0].id);
				ran[k] = !nf;
				continue;
			}
			if (!nf) {
				ASSERT_NE((int)FI_FAIL_RES, (int)p->role[k]) {
					TH_LOG("%s, fail-nth %u: the FAIL left its range %u good",
					       what, n, j);
				}
				ASSERT_EQ(0u, id[k]) {
					TH_LOG("%s, fail-nth %u: task %u's range %u is good, its range 0 not",
					       what, n, k, j);
				}
				ran[k] = true;
				continue;
			}
			if (j) {
				/* One failure over all of the task's ranges. */
				ASSERT_EQ(id[k], r->failure[0].id);
				continue;
			}
			if (r->failure[0].cause != DRM_WEAVE_FAILURE_ENCODE) {
				ASSERT_EQ((int)FI_FAIL_RES, (int)p->role[k]) {
					weave_test_log_failure(_metadata, r, 0);
					TH_LOG("%s, fail-nth %u: task %u's range carries a failure",
					       what, n, k);
				}
				id[k] = fi_poison_expect(_metadata, p, r, k,
							 -EIO,
							 DRM_WEAVE_FAILURE_KERNEL);
				continue;
			}
			/* The one task the kernel could not pack. */
			ASSERT_GT(0, poisoned) {
				weave_test_log_failure(_metadata, r, 0);
				TH_LOG("%s, fail-nth %u: tasks %d and %u both could not be packed",
				       what, n, poisoned, k);
			}
			id[k] = fi_poison_expect(_metadata, p, r, k, -ENOMEM,
						 DRM_WEAVE_FAILURE_ENCODE);
			poisoned = k;
		}
	}

	/* What the tasks that ran wrote. */
	for (k = 0; k < FI_PTASKS; k++) {
		if (!ran[k])
			continue;
		switch (p->role[k]) {
		case FI_WRITE_0:
			ASSERT_EQ(0, memcmp(l->wmap, p->bytes, FI_WRITE)) {
				TH_LOG("%s, fail-nth %u: the host write is not in the buffer",
				       what, n);
			}
			break;
		case FI_FILL_1:
			for (i = 0; i < self->page / 4; i++) {
				ASSERT_EQ(p->pattern,
					  words[self->page / 4 + i]) {
					TH_LOG("%s, fail-nth %u: the fill is not in the buffer (word %u)",
					       what, n, i);
				}
			}
			break;
		case FI_FAIL_RES:
			break;
		case FI_CRC:
			ASSERT_EQ(weave_test_crc32c(p->bytes, FI_WRITE),
				  l->rmap[0]) {
				TH_LOG("%s, fail-nth %u: wrong crc32c", what, n);
			}
			break;
		}
	}
	return poisoned;
}

/*
 * After the check: a host write over the host write's range and fills
 * over the others', on lane 0's stream, which takes work: every range is
 * good again, with the new bytes.
 */
static void fi_poison_rewrite(struct __test_metadata *_metadata, fi_t *self,
			      struct fi_client *c, struct fi_poison *p)
{
	struct fi_lane *l = &c->lane[0];
	uint32_t *words = (uint32_t *)l->wmap;
	struct drm_weave_binding b;
	struct weave_test_batch wb;
	uint32_t k, j, i;

	weave_test_fill(p->bytes, sizeof(p->bytes), ~p->seed);
	weave_test_batch_init(&wb);
	weave_test_write_task(&wb, l->wbo, 0, FI_WRITE, p->bytes);
	weave_test_fill_task(&wb, l->wbo, self->page, self->page,
			     ~p->pattern);
	weave_test_fill_task(&wb, l->wres, 0, FI_PRES, p->seed);
	weave_test_enqueue(_metadata, c->fd, l->stream, &wb);
	fi_finish(_metadata, c->fd, l->stream);
	for (k = 0; k < FI_PTASKS; k++) {
		for (j = 0; j < fi_poison_nranges(p, k); j++) {
			b = fi_poison_range(p, k, j);
			weave_test_expect_good(_metadata, c->fd, b.handle,
					       b.offset, b.size);
		}
	}
	ASSERT_EQ(0, memcmp(l->wmap, p->bytes, FI_WRITE));
	for (i = 0; i < self->page / 4; i++)
		ASSERT_EQ(~p->pattern, words[self->page / 4 + i]);
	for (i = 0; i < FI_PRES / 4; i++)
		ASSERT_EQ(p->seed, l->rmap[i]);
}

/*
 * An execution that ENQUEUE causes after it committed to queuing its
 * tasks, its slot's threshold or the align of a buffer queued on another
 * slot, cannot keep a task the kernel has no memory to pack into a job.
 * Since uAPI 1.4 the task does not run and what it should have written
 * takes a new failure, -ENOMEM with cause ENCODE, in its place: the call
 * succeeds, the stream stays active and takes more work, a later reader
 * of those bytes is skipped, every other task's bytes are good, and
 * rewriting them makes them good.  Each allocation of the call fails in
 * turn; the kernel's reserve for such a task means that recording it
 * needs none, so no step may fail a stream.  The first task the execution
 * packs, which makes the job, must be seen not to be packed.
 */
static void fi_poison_loop(struct __test_metadata *_metadata, fi_t *self,
			   enum fi_poison_kind kind, const char *what)
{
	bool align = kind == FI_POISON_ALIGN;
	struct drm_weave_client_usage before, after;
	unsigned int n, at[FI_PTASKS] = { 0 };
	struct drm_weave_stream_query q, qb;
	struct weave_test_report *r;
	struct drm_weave_sync in[3];
	uint32_t objs[FI_SYNCOBJS], nin = 0, i;
	struct fi_poison p;
	struct fi_client c;
	int ret, poisoned;
	bool inj;

	r = malloc(sizeof(*r));
	ASSERT_NE(NULL, r);
	fi_client_open(_metadata, self, &c, -1, 2);
	fi_client_round(_metadata, self, &c);
	for (n = 1;; n++) {
		fi_poison_build(self, &c, &p, 0x60000u * n + 0x100u * kind,
				kind);
		if (align) {
			/* Queued on lane 0's slot, below its threshold. */
			ASSERT_EQ(0, fi_poison_enqueue(c.fd, &p, 0, 3, NULL,
						       0));
			ASSERT_EQ(3u, weave_test_client_usage(_metadata,
							      c.fd).queued_tasks);
		} else {
			nin = fi_in_syncs(_metadata, &c, &self->main,
					  FI_ENQ_GATED, in, objs);
		}
		qb = weave_test_squery(_metadata, c.fd, p.stream[3]);
		before = weave_test_client_usage(_metadata, c.fd);

		fi_arm(_metadata, self, n);
		ret = align ? fi_poison_enqueue(c.fd, &p, 3, 1, NULL, 0) :
			      fi_poison_enqueue(c.fd, &p, 0, FI_PTASKS, in,
						nin);
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, what, n, ret);

		if (ret) {
			/* Nothing was queued, executed, staged or gated. */
			after = weave_test_client_usage(_metadata, c.fd);
			q = weave_test_squery(_metadata, c.fd, p.stream[3]);
			ASSERT_EQ(qb.enqueued, q.enqueued);
			ASSERT_EQ(before.pending_tasks, after.pending_tasks);
			ASSERT_EQ(before.queued_tasks, after.queued_tasks);
			ASSERT_EQ(before.staged_bytes, after.staged_bytes);
			ASSERT_EQ(before.gate_bytes, after.gate_bytes);
			/* And the same call now goes through. */
			ASSERT_EQ(0, align ?
				  fi_poison_enqueue(c.fd, &p, 3, 1, NULL, 0) :
				  fi_poison_enqueue(c.fd, &p, 0, FI_PTASKS, in,
						    nin));
		}
		/*
		 * The execution took every task of lane 0's slot, packed or
		 * not; with align, the new task waits on lane 1's.
		 */
		after = weave_test_client_usage(_metadata, c.fd);
		ASSERT_EQ(align ? 1u : 0u, after.queued_tasks) {
			TH_LOG("%s, fail-nth %u: the execution left tasks queued",
			       what, n);
		}
		fi_finish(_metadata, c.fd, c.lane[0].stream);
		fi_finish(_metadata, c.fd, c.lane[1].stream);
		for (i = 0; i < 2; i++) {
			q = weave_test_squery(_metadata, c.fd,
					      c.lane[i].stream);
			ASSERT_EQ(0, q.error) {
				TH_LOG("%s, fail-nth %u: stream %u failed with %d",
				       what, n, q.handle, q.error);
			}
			ASSERT_EQ((uint32_t)DRM_WEAVE_STREAM_ACTIVE, q.state);
			ASSERT_EQ(q.enqueued, q.completed);
		}

		poisoned = fi_poison_check(_metadata, self, &c, &p, r, what,
					   n);
		if (poisoned >= 0) {
			ASSERT_TRUE(inj);
			ASSERT_EQ(0, ret);
			at[poisoned]++;
		}
		fi_poison_rewrite(_metadata, self, &c, &p);
		for (i = 0; !align && i < FI_SYNCOBJS; i++)
			ASSERT_EQ(0, drmSyncobjDestroy(c.fd, objs[i]));
		weave_test_client_idle(_metadata, c.fd);
		fi_client_round(_metadata, self, &c);
		if (fi_done(_metadata, self, what, n, inj, ret))
			break;
	}
	fi_note("%s: steps where task 0, 1, 2, 3 could not be packed: %u, %u, %u, %u\n",
		what, at[0], at[1], at[2], at[3]);
	ASSERT_LT(0u, at[0]) {
		TH_LOG("%s: no step failed to pack the task that makes a job: the path was not reached",
		       what);
	}
	fi_client_close(_metadata, self, &c);
	fi_settled(_metadata, self);
	free(r);
}

/* A host write, with the slot's in-fence gates, that cannot be packed. */
TEST_F_TIMEOUT(fi, enqueue_threshold, 300)
{
	fi_poison_loop(_metadata, self, FI_POISON_THRESHOLD,
		       "ENQUEUE, executing its slot");
}

/* A task with bindings past three that cannot be packed. */
TEST_F_TIMEOUT(fi, enqueue_align, 300)
{
	fi_poison_loop(_metadata, self, FI_POISON_ALIGN,
		       "ENQUEUE, executing another slot");
}

/* --- flush ------------------------------------------------------------------ */

/* Whether syncobj @obj has a fence at @point (0: a binary syncobj). */
static bool fi_has_fence(int fd, uint32_t obj, uint64_t point)
{
	/* Without a fence at the point, a wait fails at once. */
	return drmSyncobjTimelineWait(fd, &obj, &point, 1, 0, 0, NULL) == 0 ||
	       errno != EINVAL;
}

enum fi_flush_kind {
	FI_FLUSH_STREAM,	/* one stream, a binary out-sync */
	FI_FLUSH_TIMELINE,	/* one stream, a timeline point */
	FI_FLUSH_ALL,		/* three streams, interleaved */
	FI_FLUSH_ALL_SEQ,	/* three streams, sequential */
	FI_FLUSH_DEPS,		/* on buffers other work still writes */
};

/*
 * Before step @n of a FI_FLUSH_DEPS loop: other work that writes the
 * lane's buffers and is still running, so the flushed job has implicit
 * dependencies, and an in-sync on it.
 */
static void fi_deps_setup(struct __test_metadata *_metadata, fi_t *self,
			  struct fi_client *c, uint32_t obj,
			  struct drm_weave_sync *in)
{
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	weave_test_delay(&b, 20000);
	weave_test_fill_task(&b, c->lane[0].wbo, 2 * self->page, self->page,
			     0x77);
	weave_test_fill_task(&b, c->lane[0].wres, 4, 4, 0x77);
	weave_test_enqueue(_metadata, c->fd, c->stream, &b);
	*in = weave_sync(obj, 0);
	ASSERT_EQ(0, weave_flush(c->fd, c->stream, in));
}

/*
 * The promise of FLUSH: "whenever it returns 0 its work was submitted and
 * the out-sync, if any, was set"; on -ENOMEM "the out-sync is left
 * unchanged" and nothing is lost: the stream has not failed and calling
 * again submits the work, which runs right.
 */
static void fi_flush_loop(struct __test_metadata *_metadata, fi_t *self,
			  enum fi_flush_kind kind, const char *what)
{
	bool all = kind == FI_FLUSH_ALL || kind == FI_FLUSH_ALL_SEQ;
	uint32_t lanes = all ? 3 : 1, obj, dep_obj, i;
	bool lost[FI_LANES] = { false };
	struct drm_weave_stream_query q;
	struct fi_work w[FI_LANES];
	struct drm_weave_flush args;
	struct drm_weave_sync in;
	struct fi_client c;
	uint64_t point = 0;
	unsigned int n;
	bool inj;
	int ret;

	fi_client_open(_metadata, self, &c, -1, lanes);
	if (kind == FI_FLUSH_ALL_SEQ)
		weave_test_param(_metadata, c.fd, DRM_WEAVE_PARAM_STRATEGY,
				 DRM_WEAVE_STRATEGY_SEQUENTIAL);
	obj = weave_test_syncobj(_metadata, c.fd);
	dep_obj = weave_test_syncobj(_metadata, c.fd);
	fi_client_round(_metadata, self, &c);
	for (n = 1;; n++) {
		for (i = 0; i < lanes; i++) {
			fi_work_build(self, &c.lane[i], &w[i],
				      0x20000u * n + 0x100 * kind + i);
			if (kind == FI_FLUSH_DEPS) {
				fi_deps_setup(_metadata, self, &c, dep_obj,
					      &in);
				ASSERT_EQ(0, weave_enqueue(c.fd,
							   c.lane[i].stream,
							   w[i].b.task,
							   w[i].b.n, &in, 1,
							   NULL));
			} else {
				weave_test_enqueue(_metadata, c.fd,
						   c.lane[i].stream, &w[i].b);
			}
		}
		if (kind == FI_FLUSH_TIMELINE) {
			point++;
		} else {
			/* A fresh binary syncobj: it has no fence yet. */
			ASSERT_EQ(0, drmSyncobjDestroy(c.fd, obj));
			obj = weave_test_syncobj(_metadata, c.fd);
		}
		memset(&args, 0, sizeof(args));
		args.stream = all ? 0 : c.lane[0].stream;
		args.flags = all ? DRM_WEAVE_FLUSH_ALL : 0;
		args.out_sync = weave_sync(obj, point);

		fi_arm(_metadata, self, n);
		ret = fi_ioctl(c.fd, DRM_IOCTL_WEAVE_FLUSH, &args);
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, what, n, ret);

		for (i = 0; i < lanes; i++) {
			q = weave_test_squery(_metadata, c.fd,
					      c.lane[i].stream);
			/*
			 * A broken promise fails the test; the loop goes on
			 * (with a new stream) to find every step that breaks
			 * it.
			 */
			lost[i] = q.error != 0;
			EXPECT_EQ(0, q.error) {
				TH_LOG("%s, fail-nth %u: FLUSH returned %d but stream %u failed with %d; FLUSH promises that 0 means submitted and -ENOMEM means nothing lost",
				       what, n, ret, c.lane[i].stream,
				       q.error);
			}
			if (ret)
				continue;
			ASSERT_EQ(q.enqueued, q.executed) {
				TH_LOG("%s, fail-nth %u: FLUSH returned 0 with %llu of %llu tasks not submitted",
				       what, n,
				       (unsigned long long)(q.enqueued - q.executed),
				       (unsigned long long)q.enqueued);
			}
		}
		if (ret) {
			ASSERT_FALSE(fi_has_fence(c.fd, obj, point)) {
				TH_LOG("%s, fail-nth %u: FLUSH failed but set its out-sync",
				       what, n);
			}
			/*
			 * Calling again submits everything (a stream failed
			 * against the promise refuses a FLUSH of its own).
			 */
			if (lost[0] && !all) {
				args.stream = 0;
				args.flags = DRM_WEAVE_FLUSH_ALL;
			}
			ASSERT_EQ(0, fi_ioctl(c.fd, DRM_IOCTL_WEAVE_FLUSH,
					      &args));
		}
		ASSERT_EQ(0, drmSyncobjTimelineWait(c.fd, &obj, &point, 1,
				weave_timeout_ns(WEAVE_TEST_WAIT_NS),
				DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL)) {
			TH_LOG("%s, fail-nth %u: the out-sync did not signal",
			       what, n);
		}
		for (i = 0; i < lanes; i++) {
			q = weave_test_squery(_metadata, c.fd,
					      c.lane[i].stream);
			ASSERT_EQ(q.enqueued, q.completed);
			if (lost[i]) {
				ASSERT_EQ(0, weave_stream_destroy(c.fd,
							c.lane[i].stream));
				c.lane[i].stream = weave_test_stream(_metadata,
						c.fd, DRM_WEAVE_PRIORITY_NORMAL);
				continue;
			}
			fi_work_check(_metadata, self, &c.lane[i], &w[i],
				      what, n);
		}
		weave_test_client_idle(_metadata, c.fd);
		fi_client_round(_metadata, self, &c);
		if (fi_done(_metadata, self, what, n, inj, ret))
			break;
	}
	fi_client_close(_metadata, self, &c);
	fi_settled(_metadata, self);
}

TEST_F_TIMEOUT(fi, flush_stream, 120)
{
	fi_flush_loop(_metadata, self, FI_FLUSH_STREAM, "FLUSH");
}

TEST_F_TIMEOUT(fi, flush_timeline, 120)
{
	fi_flush_loop(_metadata, self, FI_FLUSH_TIMELINE,
		      "FLUSH to a timeline point");
}

TEST_F_TIMEOUT(fi, flush_all, 120)
{
	fi_flush_loop(_metadata, self, FI_FLUSH_ALL, "FLUSH_ALL");
}

TEST_F_TIMEOUT(fi, flush_all_sequential, 120)
{
	fi_flush_loop(_metadata, self, FI_FLUSH_ALL_SEQ,
		      "FLUSH_ALL, sequential");
}

TEST_F_TIMEOUT(fi, flush_deps, 120)
{
	fi_flush_loop(_metadata, self, FI_FLUSH_DEPS,
		      "FLUSH with dependencies");
}

/*
 * Whether lane 0's flushed work is held: FLUSH failed after its tasks left
 * the slot's ring for a job the kernel could not submit.  Still counted
 * as pending, not yet as executed (handed to a hardware queue).
 */
static bool fi_held(struct __test_metadata *_metadata, struct fi_client *c,
		    int ret)
{
	struct drm_weave_client_usage u;
	struct drm_weave_stream_query q;

	q = weave_test_squery(_metadata, c->fd, c->lane[0].stream);
	u = weave_test_client_usage(_metadata, c->fd);
	return ret == -ENOMEM && !u.queued_tasks && u.pending_tasks &&
	       q.executed < q.enqueued;
}

/*
 * The path no other test reaches: FLUSH packs the tasks into a job, then
 * cannot submit it (the scheduler's job, a dependency slot or a
 * reservation slot cannot be allocated).  The job is kept, FLUSH fails
 * with -ENOMEM and leaves the out-sync alone, later tasks of the client
 * join the kept job behind its tasks, and the next FLUSH of any stream
 * submits it all.
 *
 * Steps where FLUSH returns 0 with a stream failed are fi_flush_loop()'s
 * business; here they only cost a new stream.
 */
TEST_F_TIMEOUT(fi, flush_held, 120)
{
	const char *what = "FLUSH, held";
	unsigned int n, held = 0, failed = 0;
	struct drm_weave_client_usage u0, u1;
	struct drm_weave_stream_query q;
	struct drm_weave_flush args;
	struct drm_weave_sync out;
	struct weave_test_batch b;
	uint32_t obj, *copy;
	struct fi_client c;
	struct fi_work w;
	bool inj;
	int ret;

	fi_client_open(_metadata, self, &c, -1, 2);
	copy = (uint32_t *)c.lane[1].wmap;
	obj = weave_test_syncobj(_metadata, c.fd);
	fi_client_round(_metadata, self, &c);
	for (n = 1;; n++) {
		fi_work_build(self, &c.lane[0], &w, 0x30000u * n);
		weave_test_enqueue(_metadata, c.fd, c.lane[0].stream, &w.b);
		ASSERT_EQ(0, drmSyncobjDestroy(c.fd, obj));
		obj = weave_test_syncobj(_metadata, c.fd);
		out = weave_sync(obj, 0);
		memset(&args, 0, sizeof(args));
		args.stream = c.lane[0].stream;
		args.out_sync = out;

		fi_arm(_metadata, self, n);
		ret = fi_ioctl(c.fd, DRM_IOCTL_WEAVE_FLUSH, &args);
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, what, n, ret);
		q = weave_test_squery(_metadata, c.fd, c.lane[0].stream);

		if (fi_held(_metadata, &c, ret)) {
			held++;
			ASSERT_EQ(0, q.error);
			ASSERT_FALSE(fi_has_fence(c.fd, obj, 0));
			/*
			 * A copy of the held fill, on the other stream, is
			 * enqueued behind it and flushed after it, in a job
			 * of its own stream's: two jobs are pushed.
			 */
			u0 = weave_test_client_usage(_metadata, c.fd);
			weave_test_batch_init(&b);
			weave_test_copy_task(&b, c.lane[0].wbo, self->page,
					     c.lane[1].wbo, 0, self->page);
			weave_test_enqueue(_metadata, c.fd, c.lane[1].stream,
					   &b);
			ASSERT_EQ(0, weave_flush(c.fd, c.lane[1].stream,
						 NULL));
			u1 = weave_test_client_usage(_metadata, c.fd);
			ASSERT_EQ(u0.submitted_jobs + 2, u1.submitted_jobs) {
				TH_LOG("fail-nth %u: the held job and the other stream's were not pushed as two jobs",
				       n);
			}
			q = weave_test_squery(_metadata, c.fd,
					      c.lane[0].stream);
			ASSERT_EQ(q.enqueued, q.executed) {
				TH_LOG("fail-nth %u: a FLUSH of another stream did not submit the held job",
				       n);
			}
			weave_test_wait(_metadata, c.fd, c.lane[1].stream);
			weave_test_wait(_metadata, c.fd, c.lane[0].stream);
			ASSERT_EQ(w.seed ^ 0x0f0f0f0fu, copy[0]) {
				TH_LOG("fail-nth %u: the later copy ran before the held fill",
				       n);
			}
			ASSERT_EQ(w.seed ^ 0x0f0f0f0fu,
				  copy[self->page / 4 - 1]);
			/* The out-sync is set by the next FLUSH asking. */
			ASSERT_EQ(0, weave_flush(c.fd, c.lane[0].stream,
						 &out));
		} else if (ret) {
			ASSERT_EQ(0, q.error);
			ASSERT_EQ(0, weave_flush(c.fd, c.lane[0].stream,
						 &out));
		} else if (q.error) {
			/* Packing failed; see fi_flush_loop(). */
			failed++;
			ASSERT_EQ(0, weave_stream_destroy(c.fd,
							  c.lane[0].stream));
			c.lane[0].stream = weave_test_stream(_metadata, c.fd,
						DRM_WEAVE_PRIORITY_NORMAL);
			weave_test_client_idle(_metadata, c.fd);
			fi_client_round(_metadata, self, &c);
			if (fi_done(_metadata, self, what, n, inj, ret))
				break;
			continue;
		}
		ASSERT_EQ(0, drmSyncobjWait(c.fd, &obj, 1,
					    weave_timeout_ns(WEAVE_TEST_WAIT_NS),
					    0, NULL));
		q = weave_test_squery(_metadata, c.fd, c.lane[0].stream);
		ASSERT_EQ(q.enqueued, q.completed);
		fi_work_check(_metadata, self, &c.lane[0], &w, what, n);
		weave_test_client_idle(_metadata, c.fd);
		fi_client_round(_metadata, self, &c);
		if (fi_done(_metadata, self, what, n, inj, ret))
			break;
	}
	fi_note("%s: %u step(s) held a job, %u failed a stream instead\n",
		       what, held, failed);
	ASSERT_LT(0u, held) {
		TH_LOG("no step of FLUSH kept a job it could not submit: the held-job path was not reached");
	}
	fi_client_close(_metadata, self, &c);
	fi_settled(_metadata, self);
}

/*
 * STREAM_ISOLATE executes the slot as FLUSH does, and fails as FLUSH does:
 * with -ENOMEM, the stream's hold unchanged, when a task could not be
 * packed or the job could not be submitted.  A 0 means all of the slot's
 * work was submitted and the hold taken.
 */
TEST_F_TIMEOUT(fi, isolate_held, 120)
{
	struct drm_weave_stream_isolate args;
	const char *what = "STREAM_ISOLATE";
	unsigned int n, held = 0;
	struct drm_weave_stream_query q;
	struct fi_client c;
	struct fi_work w;
	bool inj;
	int ret;

	fi_client_open(_metadata, self, &c, -1, 2);
	fi_client_round(_metadata, self, &c);
	for (n = 1;; n++) {
		fi_work_build(self, &c.lane[0], &w, 0x50000u * n);
		weave_test_enqueue(_metadata, c.fd, c.lane[0].stream, &w.b);
		memset(&args, 0, sizeof(args));
		args.handle = c.lane[0].stream;
		args.op = DRM_WEAVE_ISOLATION_ENTER;

		fi_arm(_metadata, self, n);
		ret = fi_ioctl(c.fd, DRM_IOCTL_WEAVE_STREAM_ISOLATE, &args);
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, what, n, ret);
		q = weave_test_squery(_metadata, c.fd, c.lane[0].stream);
		if (q.error) {
			/* Packing failed the stream: see fi_flush_loop(). */
			if (!ret)
				ASSERT_EQ(0, weave_stream_isolate(c.fd,
						c.lane[0].stream,
						DRM_WEAVE_ISOLATION_LEAVE));
			ASSERT_EQ(0, weave_stream_destroy(c.fd,
							  c.lane[0].stream));
			c.lane[0].stream = weave_test_stream(_metadata, c.fd,
						DRM_WEAVE_PRIORITY_NORMAL);
			weave_test_client_idle(_metadata, c.fd);
			fi_client_round(_metadata, self, &c);
			if (fi_done(_metadata, self, what, n, inj, ret))
				break;
			continue;
		}
		if (ret) {
			held += fi_held(_metadata, &c, ret);
			ASSERT_EQ(0u, q.isolated) {
				TH_LOG("fail-nth %u: ENTER failed, but the slot is isolated",
				       n);
			}
			ASSERT_EQ(0, weave_flush(c.fd, c.lane[0].stream, NULL));
			ASSERT_EQ(0, weave_stream_isolate(c.fd,
					c.lane[0].stream,
					DRM_WEAVE_ISOLATION_ENTER));
		} else {
			ASSERT_EQ(q.enqueued, q.executed) {
				TH_LOG("fail-nth %u: ENTER returned 0 with %llu of %llu tasks not submitted",
				       n, (unsigned long long)(q.enqueued -
							       q.executed),
				       (unsigned long long)q.enqueued);
			}
		}
		ASSERT_NE(0u, weave_test_squery(_metadata, c.fd,
						c.lane[0].stream).isolated);
		ASSERT_EQ(0, weave_stream_isolate(c.fd, c.lane[0].stream,
						  DRM_WEAVE_ISOLATION_LEAVE));
		weave_test_wait(_metadata, c.fd, c.lane[0].stream);
		q = weave_test_squery(_metadata, c.fd, c.lane[0].stream);
		ASSERT_EQ(q.enqueued, q.completed);
		fi_work_check(_metadata, self, &c.lane[0], &w, what, n);
		weave_test_client_idle(_metadata, c.fd);
		fi_client_round(_metadata, self, &c);
		if (fi_done(_metadata, self, what, n, inj, ret))
			break;
	}
	fi_note("%s: %u step(s) held a job\n", what, held);
	ASSERT_LT(0u, held) {
		TH_LOG("no step of ENTER kept a job it could not submit: the held-job path was not reached");
	}
	fi_client_close(_metadata, self, &c);
	fi_settled(_metadata, self);
}

/*
 * A client closed while it holds a job that FLUSH could not submit: the
 * job is dropped with everything it holds.  Each step is a new client,
 * brought to the state fi.flush_held steps from (its lane's backend
 * stream made, its buffers' reservations grown by finished work), so
 * that the steps that hold a job are the same ones.  A client's very
 * first FLUSH was no good here: on the debug kernel, one run in several
 * reached no held step through it.
 */
TEST_F_TIMEOUT(fi, close_held, 120)
{
	const char *what = "FLUSH, then close";
	struct drm_weave_flush args;
	struct fi_client c;
	struct fi_work w;
	unsigned int n;
	bool inj, held;
	int ret;

	for (n = 1;; n++) {
		fi_client_open(_metadata, self, &c, -1, 1);
		fi_client_round(_metadata, self, &c);
		/* The lane's first work, unarmed, as fi.flush_held's. */
		fi_work_build(self, &c.lane[0], &w, 0x50000u * n);
		weave_test_enqueue(_metadata, c.fd, c.lane[0].stream, &w.b);
		fi_finish(_metadata, c.fd, c.lane[0].stream);
		fi_work_check(_metadata, self, &c.lane[0], &w, what, n);
		fi_work_build(self, &c.lane[0], &w, 0x40000u * n);
		weave_test_enqueue(_metadata, c.fd, c.lane[0].stream, &w.b);
		memset(&args, 0, sizeof(args));
		args.stream = c.lane[0].stream;

		fi_arm(_metadata, self, n);
		ret = fi_ioctl(c.fd, DRM_IOCTL_WEAVE_FLUSH, &args);
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, what, n, ret);
		held = fi_held(_metadata, &c, ret);
		fi_client_close(_metadata, self, &c);
		fi_settled(_metadata, self);
		self->steps++;
		self->injected += inj;
		if (held) {
			fi_note("%s: closed a client holding a job at fail-nth %u\n",
				       what, n);
			break;
		}
		ASSERT_TRUE(inj) {
			TH_LOG("no step of a warm client's FLUSH, up to fail-nth %u, kept a job it could not submit",
			       n);
		}
		ASSERT_GT(FI_MAX_STEPS, n);
	}
}

/* --- graph capture (uAPI 1.5) -------------------------------------------- */

/* CAPTURE @op of @stream, its out fields into @a. */
static int fi_capture(int fd, uint32_t stream, uint32_t op,
		      struct drm_weave_capture *a)
{
	memset(a, 0, sizeof(*a));
	a->stream = stream;
	a->op = op;
	return fi_ioctl(fd, DRM_IOCTL_WEAVE_CAPTURE, a);
}

/*
 * The window of @stream's slot is in @state, owned by @stream unless there
 * is none, and holds @ntasks recorded tasks.
 */
static void fi_window_is(struct __test_metadata *_metadata, int fd,
			 uint32_t stream, uint32_t state, uint32_t ntasks,
			 const char *what, unsigned int n)
{
	struct drm_weave_capture q;

	ASSERT_EQ(0, fi_capture(fd, stream, DRM_WEAVE_CAPTURE_QUERY, &q));
	ASSERT_EQ(state, q.state) {
		TH_LOG("%s, fail-nth %u: the window is in state %u, not %u",
		       what, n, q.state, state);
	}
	ASSERT_EQ(state ? stream : 0, q.owner);
	ASSERT_EQ(ntasks, q.ntasks) {
		TH_LOG("%s, fail-nth %u: the window recorded %u tasks, not %u",
		       what, n, q.ntasks, ntasks);
	}
	ASSERT_EQ(0, q.error) {
		TH_LOG("%s, fail-nth %u: the window is doomed (%d)", what, n,
		       q.error);
	}
}

static int fi_replay_graph(int fd, uint32_t graph, uint32_t stream,
			   const struct drm_weave_sync *in, uint32_t nin,
			   uint32_t out_obj, uint64_t *seqno)
{
	struct drm_weave_replay args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.graph = graph;
	args.stream = stream;
	args.in_syncs.ptr = (uintptr_t)in;
	args.in_syncs.stride = sizeof(*in);
	args.in_syncs.count = nin;
	args.out_sync = weave_sync(out_obj, 0);
	ret = fi_ioctl(fd, DRM_IOCTL_WEAVE_REPLAY, &args);
	if (seqno)
		*seqno = args.seqno;
	return ret;
}

static int fi_destroy_graph(int fd, uint32_t graph)
{
	struct drm_weave_graph_destroy args = { .graph = graph };

	return fi_ioctl(fd, DRM_IOCTL_WEAVE_GRAPH_DESTROY, &args);
}

/*
 * The launches a graph of lane @l records: fill page 1 with @pattern, copy
 * it to page 2, the crc32c of page 0 into the result, and two no-ops.  Five
 * tasks: with FI_MAX_TASKS, a replay executes the slot within the call (at
 * its fourth task) and once more as it flushes.
 */
#define FI_GRAPH_TASKS	5u

static void fi_graph_batch(fi_t *self, struct fi_lane *l,
			   struct weave_test_batch *b, uint32_t pattern)
{
	weave_test_batch_init(b);
	weave_test_fill_task(b, l->wbo, self->page, self->page, pattern);
	weave_test_copy_task(b, l->wbo, self->page, l->wbo, 2 * self->page,
			     self->page);
	weave_test_crc_task(b, l->wbo, 0, self->page, l->wres, 0);
	weave_test_noop(b);
	weave_test_noop(b);
}

/* Records lane @l's batch while its window records, with no knob armed. */
static void fi_graph_record_batch(struct __test_metadata *_metadata,
				  fi_t *self, struct fi_client *c,
				  struct fi_lane *l, uint32_t pattern)
{
	struct drm_weave_stream_query q0, q1;
	struct weave_test_batch b;

	q0 = weave_test_squery(_metadata, c->fd, l->stream);
	fi_graph_batch(self, l, &b, pattern);
	weave_test_enqueue(_metadata, c->fd, l->stream, &b);
	/* Recorded, not queued: no task of the stream's. */
	q1 = weave_test_squery(_metadata, c->fd, l->stream);
	ASSERT_EQ(q0.enqueued, q1.enqueued);
}

/* A graph of lane @l's batch, made with no knob armed. */
static uint32_t fi_graph_make(struct __test_metadata *_metadata, fi_t *self,
			      struct fi_client *c, struct fi_lane *l,
			      uint32_t pattern)
{
	struct drm_weave_capture a;

	ASSERT_EQ(0, fi_capture(c->fd, l->stream, DRM_WEAVE_CAPTURE_PREPARE,
				&a));
	ASSERT_EQ(0, fi_capture(c->fd, l->stream, DRM_WEAVE_CAPTURE_BEGIN,
				&a));
	fi_graph_record_batch(_metadata, self, c, l, pattern);
	ASSERT_EQ(0, fi_capture(c->fd, l->stream, DRM_WEAVE_CAPTURE_END, &a));
	ASSERT_EQ(FI_GRAPH_TASKS, a.ntasks);
	ASSERT_NE(0u, a.graph);
	return a.graph;
}

/*
 * The inputs of lane @l's graph, written by the CPU while the lane is
 * idle: the first FI_WRITE bytes of page 0 from @seed, as a step's host
 * write (fi_work_build()) would be, the rest of pages 0 to 2 and the
 * result zero.
 */
static void fi_graph_inputs(fi_t *self, struct fi_lane *l, uint32_t seed)
{
	weave_test_fill(l->wmap, FI_WRITE, seed);
	memset(l->wmap + FI_WRITE, 0, 3 * self->page - FI_WRITE);
	l->rmap[0] = 0;
}

/* Lane @l holds what its graph makes of the inputs (once it has run). */
static void fi_graph_check(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_lane *l, uint32_t pattern,
			   const char *what, unsigned int n)
{
	uint32_t *words = (uint32_t *)l->wmap;
	size_t i, w = self->page / 4;

	for (i = 0; i < w; i++) {
		ASSERT_EQ(pattern, words[w + i]) {
			TH_LOG("%s, fail-nth %u: the graph's fill is not in the buffer (word %zu)",
			       what, n, i);
		}
		ASSERT_EQ(pattern, words[2 * w + i]) {
			TH_LOG("%s, fail-nth %u: the graph's copy is not in the buffer (word %zu)",
			       what, n, i);
		}
	}
	ASSERT_EQ(weave_test_crc32c(l->wmap, self->page), l->rmap[0]) {
		TH_LOG("%s, fail-nth %u: the graph's crc32c is wrong", what, n);
	}
}

/* Replays @graph on lane @l with no knob armed, and checks what it made. */
static void fi_graph_run(struct __test_metadata *_metadata, fi_t *self,
			 struct fi_client *c, struct fi_lane *l,
			 uint32_t graph, uint32_t pattern, uint32_t seed,
			 const char *what, unsigned int n)
{
	uint32_t obj = weave_test_syncobj(_metadata, c->fd);

	weave_test_client_idle(_metadata, c->fd);
	fi_graph_inputs(self, l, seed);
	ASSERT_EQ(0, fi_replay_graph(c->fd, graph, l->stream, NULL, 0, obj,
				     NULL));
	ASSERT_EQ(0, drmSyncobjWait(c->fd, &obj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	fi_graph_check(_metadata, self, l, pattern, what, n);
	ASSERT_EQ(0, drmSyncobjDestroy(c->fd, obj));
}

/*
 * PREPARE executes the slot's queued work before it isolates the slot.
 * Out of memory it fails with -ENOMEM and "nothing changed": no window,
 * no stream failed, the work still runs right.
 */
TEST_F_TIMEOUT(fi, capture_prepare, 120)
{
	const char *what = "CAPTURE PREPARE";
	struct drm_weave_stream_query q;
	struct drm_weave_capture a;
	struct fi_client c;
	struct fi_work w;
	unsigned int n;
	bool inj;
	int ret;

	ASSERT_LE(5u, self->info.uapi_minor);
	fi_client_open(_metadata, self, &c, -1, 1);
	fi_client_round(_metadata, self, &c);
	for (n = 1;; n++) {
		fi_work_build(self, &c.lane[0], &w, 0x60000u * n);
		weave_test_enqueue(_metadata, c.fd, c.lane[0].stream, &w.b);

		fi_arm(_metadata, self, n);
		ret = fi_capture(c.fd, c.lane[0].stream,
				 DRM_WEAVE_CAPTURE_PREPARE, &a);
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, what, n, ret);

		fi_window_is(_metadata, c.fd, c.lane[0].stream,
			     ret ? DRM_WEAVE_CAPTURE_NONE :
				   DRM_WEAVE_CAPTURE_PREPARED, 0, what, n);
		q = weave_test_squery(_metadata, c.fd, c.lane[0].stream);
		ASSERT_EQ(0, q.error);
		ASSERT_EQ(ret ? 0u : 1u, q.isolated);
		/* A warm-up runs as usual. */
		fi_finish(_metadata, c.fd, c.lane[0].stream);
		fi_work_check(_metadata, self, &c.lane[0], &w, what, n);
		ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
					DRM_WEAVE_CAPTURE_ABORT, &a));
		ASSERT_EQ(0u, weave_test_squery(_metadata, c.fd,
						c.lane[0].stream).isolated);
		weave_test_client_idle(_metadata, c.fd);
		fi_client_round(_metadata, self, &c);
		if (fi_done(_metadata, self, what, n, inj, ret))
			break;
	}
	fi_client_close(_metadata, self, &c);
	fi_settled(_metadata, self);
}

/*
 * BEGIN submits the warm-up queued on the slot, then records.  Out of
 * memory, the window stays prepared and nothing is lost: BEGIN again
 * records, the warm-up ran right, and the graph sealed then runs right.
 */
TEST_F_TIMEOUT(fi, capture_begin, 120)
{
	const char *what = "CAPTURE BEGIN";
	struct drm_weave_capture a;
	uint32_t pattern, graph;
	struct fi_client c;
	struct fi_work w;
	unsigned int n;
	bool inj;
	int ret;

	ASSERT_LE(5u, self->info.uapi_minor);
	fi_client_open(_metadata, self, &c, -1, 1);
	fi_client_round(_metadata, self, &c);
	for (n = 1;; n++) {
		pattern = 0xb0000000u | n;
		ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
					DRM_WEAVE_CAPTURE_PREPARE, &a));
		fi_work_build(self, &c.lane[0], &w, 0x70000u * n);
		weave_test_enqueue(_metadata, c.fd, c.lane[0].stream, &w.b);

		fi_arm(_metadata, self, n);
		ret = fi_capture(c.fd, c.lane[0].stream,
				 DRM_WEAVE_CAPTURE_BEGIN, &a);
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, what, n, ret);

		fi_window_is(_metadata, c.fd, c.lane[0].stream,
			     ret ? DRM_WEAVE_CAPTURE_PREPARED :
				   DRM_WEAVE_CAPTURE_RECORDING, 0, what, n);
		ASSERT_EQ(0, weave_test_squery(_metadata, c.fd,
					       c.lane[0].stream).error);
		if (ret) {
			ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
						DRM_WEAVE_CAPTURE_BEGIN, &a));
		}
		fi_graph_record_batch(_metadata, self, &c, &c.lane[0],
				      pattern);
		ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
					DRM_WEAVE_CAPTURE_END, &a));
		ASSERT_EQ(FI_GRAPH_TASKS, a.ntasks);
		graph = a.graph;
		fi_window_is(_metadata, c.fd, c.lane[0].stream,
			     DRM_WEAVE_CAPTURE_NONE, 0, what, n);

		fi_finish(_metadata, c.fd, c.lane[0].stream);
		fi_work_check(_metadata, self, &c.lane[0], &w, what, n);
		fi_graph_run(_metadata, self, &c, &c.lane[0], graph, pattern,
			     n, what, n);
		ASSERT_EQ(0, fi_destroy_graph(c.fd, graph));
		weave_test_client_idle(_metadata, c.fd);
		fi_client_round(_metadata, self, &c);
		if (fi_done(_metadata, self, what, n, inj, ret))
			break;
	}
	fi_client_close(_metadata, self, &c);
	fi_settled(_metadata, self);
}

/*
 * END seals the recording into a graph: a new client each step, so that
 * its first graph handle is allocated within the call.  Out of memory,
 * the window goes on recording what it holds, and END again seals it.
 */
TEST_F_TIMEOUT(fi, capture_end, 120)
{
	const char *what = "CAPTURE END";
	struct drm_weave_capture a;
	uint32_t pattern;
	struct fi_client c;
	unsigned int n;
	bool inj;
	int ret;

	ASSERT_LE(5u, self->info.uapi_minor);
	for (n = 1;; n++) {
		pattern = 0xe0000000u | n;
		fi_client_open(_metadata, self, &c, -1, 1);
		ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
					DRM_WEAVE_CAPTURE_PREPARE, &a));
		ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
					DRM_WEAVE_CAPTURE_BEGIN, &a));
		fi_graph_record_batch(_metadata, self, &c, &c.lane[0],
				      pattern);

		fi_arm(_metadata, self, n);
		ret = fi_capture(c.fd, c.lane[0].stream, DRM_WEAVE_CAPTURE_END,
				 &a);
		inj = fi_disarm(_metadata, self);
		fi_ok_or_enomem(_metadata, what, n, ret);
		if (ret) {
			ASSERT_EQ(0u, a.graph);
			fi_window_is(_metadata, c.fd, c.lane[0].stream,
				     DRM_WEAVE_CAPTURE_RECORDING,
				     FI_GRAPH_TASKS, what, n);
			ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
						DRM_WEAVE_CAPTURE_END, &a));
		}
		ASSERT_NE(0u, a.graph);
		ASSERT_EQ(FI_GRAPH_TASKS, a.ntasks);
		fi_window_is(_metadata, c.fd, c.lane[0].stream,
			     DRM_WEAVE_CAPTURE_NONE, 0, what, n);
		ASSERT_EQ(0u, weave_test_squery(_metadata, c.fd,
						c.lane[0].stream).isolated);
		fi_graph_run(_metadata, self, &c, &c.lane[0], a.graph, pattern,
			     n, what, n);
		weave_test_client_idle(_metadata, c.fd);
		fi_client_round(_metadata, self, &c);
		/* Its graph goes with the file. */
		fi_client_close(_metadata, self, &c);
		fi_settled(_metadata, self);
		if (fi_done(_metadata, self, what, n, inj, ret))
			break;
	}
}

/*
 * ABORT closes the window whatever its state, and gives back its hold of
 * the slot's isolation, which executes the slot: of a prepared window
 * with a warm-up queued, and of a recording one.  Nothing is lost: the
 * warm-up runs right, the recording is freed (kmemleak).
 */
TEST_F_TIMEOUT(fi, capture_abort, 120)
{
	const char *what = "CAPTURE ABORT";
	struct drm_weave_capture a;
	bool inj, isolated = false;
	unsigned int n, pass;
	struct fi_client c;
	struct fi_work w;
	uint32_t state;
	int ret;

	ASSERT_LE(5u, self->info.uapi_minor);
	fi_client_open(_metadata, self, &c, -1, 1);
	fi_client_round(_metadata, self, &c);
	for (pass = 0; pass < 2; pass++) {
		/* The window's state before ABORT. */
		state = pass ? DRM_WEAVE_CAPTURE_RECORDING :
			       DRM_WEAVE_CAPTURE_PREPARED;
		for (n = 1;; n++) {
			ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
						DRM_WEAVE_CAPTURE_PREPARE, &a));
			fi_work_build(self, &c.lane[0], &w,
				      0x90000u * n + pass);
			weave_test_enqueue(_metadata, c.fd, c.lane[0].stream,
					   &w.b);
			if (pass) {
				ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
						DRM_WEAVE_CAPTURE_BEGIN, &a));
				fi_graph_record_batch(_metadata, self, &c,
						      &c.lane[0], n);
			}

			fi_arm(_metadata, self, n);
			ret = fi_capture(c.fd, c.lane[0].stream,
					 DRM_WEAVE_CAPTURE_ABORT, &a);
			inj = fi_disarm(_metadata, self);
			fi_ok_or_enomem(_metadata, what, n, ret);
			if (ret) {
				/* Nothing changed. */
				fi_window_is(_metadata, c.fd, c.lane[0].stream,
					     state, pass ? FI_GRAPH_TASKS : 0,
					     what, n);
				ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
						DRM_WEAVE_CAPTURE_ABORT, &a));
			}
			fi_window_is(_metadata, c.fd, c.lane[0].stream,
				     DRM_WEAVE_CAPTURE_NONE, 0, what, n);
			ASSERT_EQ(0, weave_test_squery(_metadata, c.fd,
						c.lane[0].stream).error);
			fi_finish(_metadata, c.fd, c.lane[0].stream);
			fi_work_check(_metadata, self, &c.lane[0], &w, what,
				      n);
			/*
			 * If executing the slot fails as the window gives
			 * back its hold of the slot's isolation, the slot
			 * keeps it until the file is closed (see
			 * weave_core_capture_close()).
			 */
			if (!isolated &&
			    weave_test_squery(_metadata, c.fd,
					      c.lane[0].stream).isolated) {
				isolated = true;
				fi_note("%s, fail-nth %u: the window closed, but the slot stays isolated\n",
					what, n);
			}
			weave_test_client_idle(_metadata, c.fd);
			fi_client_round(_metadata, self, &c);
			if (fi_done(_metadata, self, what, n, inj, ret))
				break;
		}
	}
	fi_client_close(_metadata, self, &c);
	fi_settled(_metadata, self);
}

/*
 * ENQUEUE of a stream that records its window: its launches go to the
 * recording, its host writes (second pass) are queued, refused (they do
 * not run), and doom the window.  A new client each step, so that the recording's task array
 * and the slot's ring (the slot's first task is the host write) are
 * allocated within the call.  Out of memory, nothing was queued, and
 * nothing recorded: the window holds no task and is not doomed.
 */
TEST_F_TIMEOUT(fi, enqueue_recording, 120)
{
	const char *what = "ENQUEUE, recording";
	struct drm_weave_stream_query q0, q;
	struct drm_weave_capture a;
	struct weave_test_batch b;
	uint8_t bytes[FI_WRITE];
	unsigned int n, pass;
	struct fi_client c;
	bool inj;
	int ret;

	ASSERT_LE(5u, self->info.uapi_minor);
	memset(bytes, 0x4d, sizeof(bytes));
	for (pass = 0; pass < 2; pass++) {
		for (n = 1;; n++) {
			fi_client_open(_metadata, self, &c, -1, 1);
			ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
						DRM_WEAVE_CAPTURE_PREPARE, &a));
			ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
						DRM_WEAVE_CAPTURE_BEGIN, &a));
			weave_test_batch_init(&b);
			weave_test_fill_task(&b, c.lane[0].wbo, self->page,
					     self->page, n);
			if (pass)
				weave_test_write_task(&b, c.lane[0].wbo, 0,
						      sizeof(bytes), bytes);
			weave_test_noop(&b);
			q0 = weave_test_squery(_metadata, c.fd,
					       c.lane[0].stream);

			fi_arm(_metadata, self, n);
			ret = fi_enqueue_raw(c.fd, c.lane[0].stream, &b, NULL,
					     0);
			inj = fi_disarm(_metadata, self);
			fi_ok_or_enomem(_metadata, what, n, ret);

			q = weave_test_squery(_metadata, c.fd,
					      c.lane[0].stream);
			ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
						DRM_WEAVE_CAPTURE_QUERY, &a));
			ASSERT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING,
				  a.state);
			if (ret) {
				ASSERT_EQ(q0.enqueued, q.enqueued);
				ASSERT_EQ(0u, a.ntasks) {
					TH_LOG("%s, fail-nth %u: ENQUEUE failed, but its launches were recorded",
					       what, n);
				}
				ASSERT_EQ(0, a.error) {
					TH_LOG("%s, fail-nth %u: ENQUEUE failed, but its host write doomed the window (%d)",
					       what, n, a.error);
				}
			} else {
				ASSERT_EQ(q0.enqueued + pass, q.enqueued);
				ASSERT_EQ(2u, a.ntasks);
				/* A host write dooms it. */
				if (pass) {
					ASSERT_GT(0, a.error);
				} else {
					ASSERT_EQ(0, a.error);
				}
			}
			ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
						DRM_WEAVE_CAPTURE_ABORT, &a));
			fi_finish(_metadata, c.fd, c.lane[0].stream);
			weave_test_client_idle(_metadata, c.fd);
			fi_client_round(_metadata, self, &c);
			fi_client_close(_metadata, self, &c);
			fi_settled(_metadata, self);
			if (fi_done(_metadata, self, what, n, inj, ret))
				break;
		}
	}
}

/*
 * After a REPLAY of @graph on lane 0 of @c that failed with -ECANCELED,
 * the last resort of an execution within the call that cannot pack a
 * task (see &enum drm_weave_stream_state): the tasks were queued, the
 * threshold's execution failed the stream (-ENOMEM) and the FLUSH part
 * refused it, leaving the out-sync @obj alone.  FLUSH_ALL submits what is
 * left, every task is accounted for, and the graph runs right on a new
 * stream.
 */
static void fi_replay_canceled(struct __test_metadata *_metadata, fi_t *self,
			       struct fi_client *c, uint32_t graph,
			       uint32_t pattern, uint32_t obj,
			       uint64_t enqueued, const char *what,
			       unsigned int n)
{
	struct fi_lane *l = &c->lane[0];
	struct drm_weave_stream_query q;

	q = weave_test_squery(_metadata, c->fd, l->stream);
	ASSERT_EQ(-ENOMEM, q.error) {
		TH_LOG("%s, fail-nth %u: ECANCELED, but the stream %s", what,
		       n, q.error ? "failed otherwise" : "did not fail");
	}
	ASSERT_EQ(enqueued + FI_GRAPH_TASKS, q.enqueued);
	ASSERT_FALSE(fi_has_fence(c->fd, obj, 0));
	ASSERT_EQ(0, weave_flush_all(c->fd, NULL));
	weave_test_client_idle(_metadata, c->fd);
	q = weave_test_squery(_metadata, c->fd, l->stream);
	ASSERT_EQ(q.enqueued, q.executed);
	ASSERT_EQ(q.enqueued, q.completed);
	ASSERT_EQ(0, weave_stream_destroy(c->fd, l->stream));
	l->stream = weave_test_stream(_metadata, c->fd,
				      DRM_WEAVE_PRIORITY_NORMAL);
	fi_note("%s, fail-nth %u: stream failed with -ENOMEM (documented)\n",
		what, n);
	fi_graph_run(_metadata, self, c, l, graph, pattern, n, what, n);
}

/*
 * Whether a range that lane @l's graph writes carries a failure: then
 * each that does carries one, -ENOMEM of cause ENCODE, a task of the
 * replay that an execution within the call had no memory to pack (uAPI
 * 1.4), or a later task's skip of what it should have written.
 */
static bool fi_graph_encoded(struct __test_metadata *_metadata, fi_t *self,
			     struct fi_client *c, struct fi_lane *l,
			     struct weave_test_report *r, const char *what,
			     unsigned int n)
{
	const struct drm_weave_binding range[] = {
		weave_binding(l->wbo, DRM_WEAVE_ACCESS_WRITE, self->page,
			      self->page),
		weave_binding(l->wbo, DRM_WEAVE_ACCESS_WRITE, 2 * self->page,
			      self->page),
		weave_binding(l->wres, DRM_WEAVE_ACCESS_WRITE, 0, 4),
	};
	bool encoded = false;
	uint32_t i, nf;

	for (i = 0; i < sizeof(range) / sizeof(range[0]); i++) {
		nf = weave_test_report(_metadata, c->fd, range[i].handle,
				       range[i].offset, range[i].size, r);
		ASSERT_GE(1u, nf) {
			TH_LOG("%s, fail-nth %u: the graph's range %u carries %u failures",
			       what, n, i, nf);
		}
		if (!nf)
			continue;
		ASSERT_EQ(-ENOMEM, r->failure[0].error) {
			weave_test_log_failure(_metadata, r, 0);
		}
		ASSERT_EQ((uint32_t)DRM_WEAVE_FAILURE_ENCODE,
			  r->failure[0].cause);
		encoded = true;
	}
	return encoded;
}

/*
 * After a REPLAY of @graph on lane 0 of @c that returned @ret, 0 or
 * -ENOMEM, with the in-syncs @in and the out-sync @obj: done, or nothing
 * queued (REPLAY again), or queued and not all submitted, the out-sync
 * left alone (FLUSH submits the rest).  Then the graph's work is right;
 * or, a failure injected, a task of the replay the kernel had no memory
 * to pack tainted what it writes, and the next good replay makes it all
 * good again.
 */
static void fi_replay_done(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_client *c, uint32_t graph,
			   uint32_t pattern, const struct drm_weave_sync *in,
			   uint32_t nin, uint32_t obj, uint64_t enqueued,
			   uint64_t seqno, int ret, bool inj,
			   struct weave_test_report *r, const char *what,
			   unsigned int n)
{
	struct fi_lane *l = &c->lane[0];
	struct drm_weave_stream_query q;
	struct drm_weave_flush f;

	fi_ok_or_enomem(_metadata, what, n, ret);
	q = weave_test_squery(_metadata, c->fd, l->stream);
	ASSERT_EQ(0, q.error) {
		TH_LOG("%s, fail-nth %u: returned %d, but the stream failed with %d",
		       what, n, ret, q.error);
	}
	if (!ret) {
		ASSERT_EQ(enqueued + FI_GRAPH_TASKS, q.enqueued);
		ASSERT_EQ(q.enqueued, seqno);
	} else if (q.enqueued == enqueued) {
		ASSERT_FALSE(fi_has_fence(c->fd, obj, 0));
		ASSERT_EQ(0, fi_replay_graph(c->fd, graph, l->stream, in, nin,
					     obj, NULL));
	} else {
		ASSERT_EQ(enqueued + FI_GRAPH_TASKS, q.enqueued);
		ASSERT_FALSE(fi_has_fence(c->fd, obj, 0)) {
			TH_LOG("%s, fail-nth %u: REPLAY failed but set its out-sync",
			       what, n);
		}
		memset(&f, 0, sizeof(f));
		f.stream = l->stream;
		f.out_sync = weave_sync(obj, 0);
		ASSERT_EQ(0, fi_ioctl(c->fd, DRM_IOCTL_WEAVE_FLUSH, &f));
		fi_note("%s, fail-nth %u: queued, not all submitted; FLUSH submitted the rest\n",
			what, n);
	}
	ASSERT_EQ(0, drmSyncobjWait(c->fd, &obj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL)) {
		TH_LOG("%s, fail-nth %u: the out-sync did not signal", what,
		       n);
	}
	q = weave_test_squery(_metadata, c->fd, l->stream);
	ASSERT_EQ(q.enqueued, q.completed);
	if (fi_graph_encoded(_metadata, self, c, l, r, what, n)) {
		ASSERT_TRUE(inj);
		fi_note("%s, fail-nth %u: a task the kernel could not pack tainted what it writes (documented)\n",
			what, n);
		fi_graph_run(_metadata, self, c, l, graph, pattern, n, what,
			     n);
		ASSERT_FALSE(fi_graph_encoded(_metadata, self, c, l, r, what,
					      n));
		return;
	}
	fi_graph_check(_metadata, self, l, pattern, what, n);
}

/*
 * REPLAY is an ENQUEUE of the graph's tasks and a FLUSH: out of memory it
 * queued nothing, or queued everything and did not submit all of it (the
 * out-sync is then not set, and FLUSH submits the rest).  A task that an
 * execution within the call cannot pack does not run and taints what it
 * should have written (-ENOMEM, cause ENCODE), which the next good replay
 * makes good; only as the last resort does it fail the stream (-ENOMEM),
 * and the call with -ECANCELED.  Without in-syncs, with signalled ones,
 * and with ones that have not signalled yet.
 */
TEST_F_TIMEOUT(fi, replay, 120)
{
	static const char * const whats[] = {
		"REPLAY", "REPLAY, in-syncs", "REPLAY, gated",
	};
	static const enum fi_enqueue_kind kinds[] = {
		FI_ENQ_WARM, FI_ENQ_WARM, FI_ENQ_GATED,
	};
	uint32_t objs[FI_SYNCOBJS], nin, obj, graph, i;
	const uint32_t pattern = 0x5e5e0001u;
	struct weave_test_report *r;
	struct drm_weave_sync in[3];
	unsigned int n, pass;
	struct fi_client c;
	uint64_t enqueued, seqno;
	bool inj;
	int ret;

	ASSERT_LE(5u, self->info.uapi_minor);
	r = malloc(sizeof(*r));
	ASSERT_NE(NULL, r);
	fi_client_open(_metadata, self, &c, -1, 1);
	fi_client_round(_metadata, self, &c);
	graph = fi_graph_make(_metadata, self, &c, &c.lane[0], pattern);
	for (pass = 0; pass < 3; pass++) {
		for (n = 1;; n++) {
			nin = 0;
			if (pass)
				nin = fi_in_syncs(_metadata, &c, &self->main,
						  kinds[pass], in, objs);
			obj = weave_test_syncobj(_metadata, c.fd);
			weave_test_client_idle(_metadata, c.fd);
			fi_graph_inputs(self, &c.lane[0], 0x80000u * n + pass);
			enqueued = weave_test_squery(_metadata, c.fd,
						     c.lane[0].stream).enqueued;

			fi_arm(_metadata, self, n);
			ret = fi_replay_graph(c.fd, graph, c.lane[0].stream,
					      in, nin, obj, &seqno);
			inj = fi_disarm(_metadata, self);
			if (ret == -ECANCELED)
				fi_replay_canceled(_metadata, self, &c, graph,
						   pattern, obj, enqueued,
						   whats[pass], n);
			else
				fi_replay_done(_metadata, self, &c, graph,
					       pattern, in, nin, obj, enqueued,
					       seqno, ret, inj, r, whats[pass],
					       n);

			ASSERT_EQ(0, drmSyncobjDestroy(c.fd, obj));
			for (i = 0; pass && i < FI_SYNCOBJS; i++)
				ASSERT_EQ(0, drmSyncobjDestroy(c.fd, objs[i]));
			weave_test_client_idle(_metadata, c.fd);
			fi_client_round(_metadata, self, &c);
			if (fi_done(_metadata, self, whats[pass], n, inj, ret))
				break;
		}
	}
	ASSERT_EQ(0, fi_destroy_graph(c.fd, graph));
	free(r);
	fi_client_close(_metadata, self, &c);
	fi_settled(_metadata, self);
}

/*
 * GRAPH_DESTROY documents no -ENOMEM: it succeeds at every step, and drops
 * the graph's hold of its buffers: a buffer only the graph held is freed,
 * once the replay in flight (second pass), which keeps its own, is done.
 */
TEST_F_TIMEOUT(fi, graph_destroy, 120)
{
	const char *what = "GRAPH_DESTROY";
	struct drm_weave_memory_usage u0, u1;
	struct drm_weave_capture a;
	struct weave_test_batch b;
	uint32_t bo, graph, obj;
	struct fi_client c;
	unsigned int n, pass;
	int64_t deadline;
	bool inj;
	int ret;

	ASSERT_LE(5u, self->info.uapi_minor);
	fi_client_open(_metadata, self, &c, -1, 1);
	fi_client_round(_metadata, self, &c);
	obj = weave_test_syncobj(_metadata, c.fd);
	for (pass = 0; pass < 2; pass++) {
		for (n = 1;; n++) {
			u0 = weave_test_usage(_metadata, c.fd);
			bo = weave_test_bo(_metadata, c.fd, self->page, 0);
			ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
						DRM_WEAVE_CAPTURE_PREPARE, &a));
			ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
						DRM_WEAVE_CAPTURE_BEGIN, &a));
			weave_test_batch_init(&b);
			if (pass)
				weave_test_delay(&b, 20000);
			weave_test_fill_task(&b, bo, 0, self->page, n);
			weave_test_enqueue(_metadata, c.fd, c.lane[0].stream,
					   &b);
			ASSERT_EQ(0, fi_capture(c.fd, c.lane[0].stream,
						DRM_WEAVE_CAPTURE_END, &a));
			graph = a.graph;
			if (pass)
				ASSERT_EQ(0, fi_replay_graph(c.fd, graph,
							     c.lane[0].stream,
							     NULL, 0, obj,
							     NULL));
			weave_test_close_bo(_metadata, c.fd, bo);
			/* The graph holds the buffer. */
			u1 = weave_test_usage(_metadata, c.fd);
			ASSERT_EQ(u0.live_bos + 1, u1.live_bos);

			fi_arm(_metadata, self, n);
			ret = fi_destroy_graph(c.fd, graph);
			inj = fi_disarm(_metadata, self);
			ASSERT_EQ(0, ret) {
				TH_LOG("%s at fail-nth %u: %s", what, n,
				       strerror(-ret));
			}
			ASSERT_EQ(-ENOENT, fi_destroy_graph(c.fd, graph));
			ASSERT_EQ(-ENOENT, fi_replay_graph(c.fd, graph,
							   c.lane[0].stream,
							   NULL, 0, 0, NULL));
			if (pass)
				ASSERT_EQ(0, drmSyncobjWait(c.fd, &obj, 1,
					weave_timeout_ns(WEAVE_TEST_WAIT_NS),
					0, NULL));
			/* Nothing holds the buffer now. */
			deadline = weave_test_now() + WEAVE_TEST_WAIT_NS;
			for (;;) {
				u1 = weave_test_usage(_metadata, c.fd);
				if (u1.live_bos == u0.live_bos ||
				    weave_test_now() > deadline)
					break;
				usleep(2000);
			}
			ASSERT_EQ(u0.live_bos, u1.live_bos) {
				TH_LOG("%s at fail-nth %u: the graph's buffer outlived it",
				       what, n);
			}
			ASSERT_EQ(u0.live_bytes, u1.live_bytes);
			weave_test_client_idle(_metadata, c.fd);
			fi_client_round(_metadata, self, &c);
			if (fi_done(_metadata, self, what, n, inj, ret))
				break;
		}
	}
	fi_client_close(_metadata, self, &c);
	fi_settled(_metadata, self);
}

/*
 * Last, in a fixture of its own (fixtures run in the order they are
 * defined): the number the documentation quotes.
 */
FIXTURE(summary) {
	int unused;
};

FIXTURE_SETUP(summary)
{
}

FIXTURE_TEARDOWN(summary)
{
}

TEST_F(summary, total)
{
	ASSERT_NE(NULL, fi_total);
	fi_note("fault_inject: %llu allocation failures injected in all\n",
		       (unsigned long long)*fi_total);
	ASSERT_LT(0u, *fi_total);
}

TEST_HARNESS_MAIN
