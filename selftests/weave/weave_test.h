/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the weave kselftest suites.
 *
 * Every helper that can fail takes the harness's _metadata and fails the
 * running test with ASSERT_*, so a suite reads as the list of things it
 * checks.  A missing weave device is a failure, never a skip: these suites
 * only run where weave.ko is expected to be loaded.  So is a missing vgem
 * device where a test needs a gate (see struct weave_test_gate).
 */
#ifndef _WEAVE_TEST_H_
#define _WEAVE_TEST_H_

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/sync_file.h>
#include <xf86drm.h>

/* The 6.1 harness has an unused parameter in its SIGALRM handler. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#include "weave.h"

/* Any handle a fresh file has not handed out. */
#define WEAVE_TEST_BAD_HANDLE	0xdeadbeefu

/* A user pointer that is never mapped. */
#define WEAVE_TEST_BAD_PTR	((void *)8)

/*
 * weave_test_ioctl() - A raw ioctl, for arguments libweave would not build.
 * Returns 0 or a negative errno.
 */
static inline int weave_test_ioctl(int fd, unsigned long request, void *arg)
{
	return drmIoctl(fd, request, arg) ? -errno : 0;
}

/* From here on, ENQUEUE may go through a ring: see weave_test_ring.h. */
#include "weave_test_ring.h"

static sigjmp_buf weave_test_ioctl32_jmp;

static inline void weave_test_ioctl32_segv(int sig)
{
	(void)sig;
	siglongjmp(weave_test_ioctl32_jmp, 1);
}

/*
 * weave_test_ioctl32() - An ioctl made the way a 32-bit process makes it,
 * through int $0x80, so that it takes the kernel's compat path.  @arg must
 * lie in the low 4 GiB (mmap() it with MAP_32BIT).  Returns 0 or a negative
 * errno; -ENOSYS if the kernel runs no 32-bit code: int $0x80 then faults,
 * and the SIGSEGV is caught here, so that the kernel logs no unhandled
 * fault either.
 */
static inline long weave_test_ioctl32(int fd, uint32_t cmd, void *arg)
{
	struct sigaction sa, old;
	long ret;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = weave_test_ioctl32_segv;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old);
	if (sigsetjmp(weave_test_ioctl32_jmp, 1)) {
		sigaction(SIGSEGV, &old, NULL);
		return -ENOSYS;
	}
	/* __NR_ioctl of i386; int $0x80 from 64-bit code clobbers r8-r11. */
	asm volatile ("int $0x80"
		      : "=a" (ret)
		      : "a" (54L), "b" ((long)fd), "c" ((long)cmd),
			"d" ((long)(uintptr_t)arg)
		      : "memory", "r8", "r9", "r10", "r11");
	sigaction(SIGSEGV, &old, NULL);
	return ret;
}

/* Opens weave device 0; fails the test, saying why, if there is none. */
static inline int weave_test_open(struct __test_metadata *_metadata)
{
	int fd = weave_device_open(0);

	ASSERT_LE(0, fd) {
		TH_LOG("cannot open a weave render node: %s (is weave.ko loaded?)",
		       strerror(-fd));
	}
	return fd;
}

static inline struct drm_weave_device_info
weave_test_info(struct __test_metadata *_metadata, int fd)
{
	struct drm_weave_device_info info;

	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, weave_query_device_info(fd, &info));
	ASSERT_NE(0u, info.page_size);
	return info;
}

static inline struct drm_weave_memory_usage
weave_test_usage(struct __test_metadata *_metadata, int fd)
{
	struct drm_weave_memory_usage usage;

	memset(&usage, 0, sizeof(usage));
	ASSERT_EQ(0, weave_query_memory_usage(fd, &usage));
	return usage;
}

static inline struct drm_weave_client_usage
weave_test_client_usage(struct __test_metadata *_metadata, int fd)
{
	struct drm_weave_client_usage usage;

	memset(&usage, 0xff, sizeof(usage));
	ASSERT_EQ(0, weave_query_client_usage(fd, &usage));
	ASSERT_EQ(usage.ring_bytes + usage.job_bytes + usage.gate_bytes +
		  usage.arena_bytes + usage.alone_bytes +
		  usage.shared_ring_bytes + usage.shader_bytes,
		  usage.kernel_bytes);
	return usage;
}

/*
 * The jobs the file has pushed to a hardware queue so far
 * (&drm_weave_client_usage.submitted_jobs): an execution makes one job per
 * backend stream it flushes with tasks on it.
 */
static inline uint64_t weave_test_jobs(struct __test_metadata *_metadata,
				       int fd)
{
	return weave_test_client_usage(_metadata, fd).submitted_jobs;
}

/* Checks the device's usage is @base plus @bos buffers of @bytes in all. */
static inline void weave_test_assert_usage(struct __test_metadata *_metadata,
					   int fd,
					   const struct drm_weave_memory_usage *base,
					   uint64_t bos, uint64_t bytes)
{
	struct drm_weave_memory_usage now = weave_test_usage(_metadata, fd);

	ASSERT_EQ(base->live_bos + bos, now.live_bos);
	ASSERT_EQ(base->live_bytes + bytes, now.live_bytes);
}

/*
 * The fields of a fixture on a file of weave device 0: the file, the
 * device's info and its page size, filled by WEAVE_TEST_FILE_SETUP().
 */
#define WEAVE_TEST_FILE_FIELDS				\
	int fd;						\
	struct drm_weave_device_info info;		\
	uint64_t page

/* In a FIXTURE_SETUP(): opens the file of WEAVE_TEST_FILE_FIELDS. */
#define WEAVE_TEST_FILE_SETUP() do {				\
	self->fd = weave_test_open(_metadata);			\
	self->info = weave_test_info(_metadata, self->fd);	\
	self->page = self->info.page_size;			\
} while (0)

/*
 * WEAVE_TEST_FIXTURE() - Fixture @name: a file of weave device 0, whose
 * uAPI must be 1.@minor or later, and nothing else (its fields are
 * WEAVE_TEST_FILE_FIELDS).
 */
#define WEAVE_TEST_FIXTURE(name, minor)				\
	FIXTURE(name) {						\
		WEAVE_TEST_FILE_FIELDS;				\
	};							\
	FIXTURE_SETUP(name)					\
	{							\
		WEAVE_TEST_FILE_SETUP();			\
		ASSERT_LE(minor, self->info.uapi_minor);	\
	}							\
	FIXTURE_TEARDOWN(name)					\
	{							\
		close(self->fd);				\
	}

/* Creates a buffer of @size bytes (a multiple of the page size). */
static inline uint32_t weave_test_bo(struct __test_metadata *_metadata,
				     int fd, uint64_t size, uint32_t flags)
{
	uint64_t rounded = size;
	uint32_t handle = 0;

	ASSERT_EQ(0, weave_bo_create(fd, &rounded, flags, &handle));
	ASSERT_EQ(size, rounded);
	ASSERT_NE(0u, handle);
	return handle;
}

/* Maps @size bytes of a buffer for reading and writing. */
static inline void *weave_test_map(struct __test_metadata *_metadata,
				   int fd, uint32_t handle, size_t size)
{
	void *ptr = NULL;

	ASSERT_EQ(0, weave_bo_mmap(fd, handle, size,
				   PROT_READ | PROT_WRITE, &ptr));
	return ptr;
}

static inline void weave_test_unmap(struct __test_metadata *_metadata,
				    void *ptr, size_t size)
{
	ASSERT_EQ(0, weave_bo_munmap(ptr, size));
}

static inline void weave_test_close_bo(struct __test_metadata *_metadata,
				       int fd, uint32_t handle)
{
	ASSERT_EQ(0, weave_bo_close(fd, handle));
}

/* The 32-bit word at @index of the pattern named @seed. */
static inline uint32_t weave_test_word(uint32_t seed, size_t index)
{
	return seed ^ (uint32_t)(index * 2654435761u) ^ 0x5a5a5a5au;
}

/* Fills @size bytes (a multiple of 4) with the pattern named @seed. */
static inline void weave_test_fill(void *ptr, size_t size, uint32_t seed)
{
	uint32_t *word = ptr;
	size_t i;

	for (i = 0; i < size / sizeof(*word); i++)
		word[i] = weave_test_word(seed, i);
}

/* Returns the byte offset of the first word off the pattern, or @size. */
static inline size_t weave_test_check(const void *ptr, size_t size,
				      uint32_t seed)
{
	const uint32_t *word = ptr;
	size_t i;

	for (i = 0; i < size / sizeof(*word); i++)
		if (word[i] != weave_test_word(seed, i))
			return i * sizeof(*word);
	return size;
}

/* Returns the offset of the first byte of @ptr that is not @byte, or @size. */
static inline size_t weave_test_check_bytes(const void *ptr, size_t size,
					    unsigned char byte)
{
	const unsigned char *p = ptr;
	size_t i;

	for (i = 0; i < size; i++)
		if (p[i] != byte)
			return i;
	return size;
}

/*
 * Maps the first @size bytes of a buffer and checks its first and last
 * u32 words are @word, then unmaps it.
 */
static inline void weave_test_expect_words(struct __test_metadata *_metadata,
					   int fd, uint32_t handle,
					   size_t size, uint32_t word)
{
	uint32_t *map = weave_test_map(_metadata, fd, handle, size);

	EXPECT_EQ(word, map[0]);
	EXPECT_EQ(word, map[size / 4 - 1]);
	weave_test_unmap(_metadata, map, size);
}

/* Checks every u32 word of @size bytes at @off of @bo is @word. */
static inline void weave_test_expect_range(struct __test_metadata *_metadata,
					   int fd, uint32_t bo,
					   uint64_t bo_size, uint64_t off,
					   uint64_t size, uint32_t word)
{
	uint32_t *map = weave_test_map(_metadata, fd, bo, bo_size);
	uint64_t i;

	for (i = off / 4; i < (off + size) / 4; i++) {
		ASSERT_EQ(word, map[i]) {
			TH_LOG("buffer %u, byte %llu", bo,
			       (unsigned long long)i * 4);
		}
	}
	weave_test_unmap(_metadata, map, bo_size);
}

/* --- streams and tasks ---------------------------------------------------- */

/* One second, in nanoseconds. */
#define WEAVE_TEST_SEC		1000000000ll

/* How long a test waits for work that must complete. */
#define WEAVE_TEST_WAIT_NS	(20 * WEAVE_TEST_SEC)

/*
 * The harness's time, in seconds, for a test whose work slows down with
 * the kernel and the host (the debug kernel under TCG on a loaded host is
 * tens of times slower than a stock one on a quiet host): the suite's
 * whole time (settings), so that only a test that hangs runs out of it.
 */
#define WEAVE_TEST_SLOW_S	300

/* Tasks one weave_test_batch holds. */
#define WEAVE_TEST_BATCH	64

/*
 * Reads the file @dir@file (a debugfs knob, a cgroup file) into @buf, @len
 * bytes, without its newline.  Returns 0 or a negative errno.
 */
static inline int weave_test_read_file(const char *dir, const char *file,
				       char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return n ? -errno : -EIO;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* Writes @value to the file @dir@file in one write; 0 or a negative errno. */
static inline int weave_test_write_file(const char *dir, const char *file,
					const char *value)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	n = n < 0 ? -errno : n;
	close(fd);
	if (n < 0)
		return n;
	return n == (ssize_t)strlen(value) ? 0 : -EIO;
}

/* The CLOCK_MONOTONIC time in nanoseconds. */
static inline int64_t weave_test_now(void)
{
	return weave_timeout_ns(0);
}

/*
 * weave.ko's reference count: one per open file, dma-buf, job and fence of
 * it that something holds.  -1 if it cannot be read.
 */
static inline long weave_test_module_refs(void)
{
	char buf[32];
	ssize_t n;
	int fd;

	fd = open("/sys/module/weave/refcnt", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

/*
 * weave.ko's reference count once it has settled, as a test's baseline.
 * Jobs and fences drop their references an RCU grace period after they
 * are freed, so the count just after earlier work can still fall: this
 * returns it once it has not changed for 300 ms (giving up after 10 s).
 */
static inline long weave_test_settled_refs(void)
{
	int64_t end = weave_test_now() + 10 * WEAVE_TEST_SEC;
	long last = weave_test_module_refs(), now;
	int still = 0;

	while (still < 30 && weave_test_now() < end) {
		usleep(10000);
		now = weave_test_module_refs();
		still = now == last ? still + 1 : 0;
		last = now;
	}
	return last;
}

/*
 * Waits for weave.ko's reference count to come back to @base (from
 * weave_test_settled_refs()), as jobs and fences are freed asynchronously;
 * fails the test, with the count, if it does not: then something still
 * holds a file, job or fence, and rmmod would fail.
 */
static inline void weave_test_await_refs(struct __test_metadata *_metadata,
					 long base)
{
	int64_t deadline = weave_test_now() + 2 * WEAVE_TEST_WAIT_NS;
	long now;

	for (;;) {
		now = weave_test_module_refs();
		if (now == base || weave_test_now() > deadline)
			break;
		usleep(10000);
	}
	ASSERT_EQ(base, now) {
		TH_LOG("weave.ko is held %ld times, %ld before: a reference leaked (rmmod will fail)",
		       now, base);
	}
}

/*
 * Polls until the device holds @bos more buffers of @bytes than @base (as
 * freeing is deferred past the fences and files that hold them), and
 * fails if it does not within @wait_ns.
 */
static inline void weave_test_await_usage(struct __test_metadata *_metadata,
					  int fd,
					  const struct drm_weave_memory_usage *base,
					  uint64_t bos, uint64_t bytes,
					  int64_t wait_ns)
{
	int64_t deadline = weave_test_now() + wait_ns;
	struct drm_weave_memory_usage now;

	for (;;) {
		now = weave_test_usage(_metadata, fd);
		if (now.live_bos == base->live_bos + bos &&
		    now.live_bytes == base->live_bytes + bytes)
			return;
		if (weave_test_now() > deadline)
			break;
		usleep(2000);
	}
	ASSERT_EQ(base->live_bos + bos, now.live_bos) {
		TH_LOG("%llu buffers (%llu bytes) live, %llu (%llu) expected",
		       (unsigned long long)now.live_bos,
		       (unsigned long long)now.live_bytes,
		       (unsigned long long)(base->live_bos + bos),
		       (unsigned long long)(base->live_bytes + bytes));
	}
	ASSERT_EQ(base->live_bytes + bytes, now.live_bytes);
}

/* The software crc32c (Castagnoli, seed ~0, final xor ~0) of @len bytes. */
static inline uint32_t weave_test_crc32c(const void *ptr, size_t len)
{
	const unsigned char *p = ptr;
	uint32_t crc = ~0u;
	int bit;

	while (len--) {
		crc ^= *p++;
		for (bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (0x82f63b78u & -(crc & 1));
	}
	return ~crc;
}

/* Creates a stream of @priority; fails the test if it cannot. */
static inline uint32_t weave_test_stream(struct __test_metadata *_metadata,
					 int fd, uint32_t priority)
{
	uint32_t handle = 0;

	ASSERT_EQ(0, weave_stream_create(fd, priority, &handle));
	ASSERT_NE(0u, handle);
	return handle;
}

static inline struct drm_weave_stream_query
weave_test_squery(struct __test_metadata *_metadata, int fd, uint32_t stream)
{
	struct drm_weave_stream_query q;

	memset(&q, 0, sizeof(q));
	ASSERT_EQ(0, weave_stream_query(fd, stream, &q));
	ASSERT_EQ(stream, q.handle);
	return q;
}

/*
 * How long to wait for @jobs jobs, taken from the work rather than from
 * the host's speed: the kernel cuts a job short job_timeout_ms after it
 * starts, so jobs queued one behind another end within @jobs job timeouts
 * of the first one's start; WEAVE_TEST_WAIT_NS more for the rest.
 */
static inline int64_t
weave_test_work_ns(const struct drm_weave_device_info *info, uint64_t jobs)
{
	return jobs * info->job_timeout_ms * 1000000ll + WEAVE_TEST_WAIT_NS;
}

/* Waits for everything flushed on @stream, failing after WEAVE_TEST_WAIT_NS. */
static inline void weave_test_wait(struct __test_metadata *_metadata, int fd,
				   uint32_t stream)
{
	ASSERT_EQ(0, weave_wait(fd, stream, weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
}

/*
 * Waits until every job of the file has been freed, which follows their
 * completion asynchronously, and returns the file's usage then.  Fails
 * after WEAVE_TEST_WAIT_NS.
 */
static inline struct drm_weave_client_usage
weave_test_client_idle(struct __test_metadata *_metadata, int fd)
{
	int64_t deadline = weave_test_now() + WEAVE_TEST_WAIT_NS;
	struct drm_weave_client_usage usage;

	for (;;) {
		usage = weave_test_client_usage(_metadata, fd);
		if (!usage.jobs)
			break;
		ASSERT_GT(deadline, weave_test_now()) {
			TH_LOG("%llu jobs still alive",
			       (unsigned long long)usage.jobs);
		}
		usleep(1000);
	}
	return usage;
}

/* Flushes and waits for @stream. */
static inline void weave_test_finish(struct __test_metadata *_metadata, int fd,
				     uint32_t stream)
{
	ASSERT_EQ(0, weave_flush(fd, stream, NULL));
	weave_test_wait(_metadata, fd, stream);
}

/*
 * A batch of tasks under construction, with the bindings and uniforms they
 * point to.  Build it in place (the tasks point into it), then submit it.
 */
struct weave_test_batch {
	struct drm_weave_task task[WEAVE_TEST_BATCH];
	struct drm_weave_binding bind[WEAVE_TEST_BATCH][3];
	uint32_t uniform[WEAVE_TEST_BATCH][4];
	uint32_t n;
};

static inline void weave_test_batch_init(struct weave_test_batch *b)
{
	memset(b, 0, sizeof(*b));
}

/* Appends a launch of @kernel with @count bindings and one u32 uniform. */
static inline struct drm_weave_task *
weave_test_launch(struct weave_test_batch *b, uint32_t kernel,
		  const struct drm_weave_binding *bind, uint32_t count,
		  int has_uniform, uint32_t uniform)
{
	uint32_t i = b->n++;

	if (i >= WEAVE_TEST_BATCH)
		abort();
	memcpy(b->bind[i], bind, count * sizeof(*bind));
	b->uniform[i][0] = uniform;
	weave_task_launch(&b->task[i], kernel, count ? b->bind[i] : NULL, count,
			  has_uniform ? b->uniform[i] : NULL,
			  has_uniform ? sizeof(uint32_t) : 0);
	return &b->task[i];
}

static inline struct drm_weave_task *
weave_test_noop(struct weave_test_batch *b)
{
	return weave_test_launch(b, DRM_WEAVE_KERNEL_NOOP, NULL, 0, 0, 0);
}

static inline struct drm_weave_task *
weave_test_delay(struct weave_test_batch *b, uint32_t usec)
{
	return weave_test_launch(b, DRM_WEAVE_KERNEL_DELAY, NULL, 0, 1, usec);
}

static inline struct drm_weave_task *
weave_test_fill_task(struct weave_test_batch *b, uint32_t bo, uint64_t off,
		     uint64_t size, uint32_t pattern)
{
	struct drm_weave_binding bind[1] = {
		weave_binding(bo, DRM_WEAVE_ACCESS_WRITE, off, size),
	};

	return weave_test_launch(b, DRM_WEAVE_KERNEL_FILL, bind, 1, 1, pattern);
}

static inline struct drm_weave_task *
weave_test_copy_task(struct weave_test_batch *b, uint32_t src, uint64_t soff,
		     uint32_t dst, uint64_t doff, uint64_t size)
{
	struct drm_weave_binding bind[2] = {
		weave_binding(src, DRM_WEAVE_ACCESS_READ, soff, size),
		weave_binding(dst, DRM_WEAVE_ACCESS_WRITE, doff, size),
	};

	return weave_test_launch(b, DRM_WEAVE_KERNEL_COPY, bind, 2, 0, 0);
}

/* c[coff..] = a[aoff..] + b[boff..], @size bytes each. */
static inline struct drm_weave_task *
weave_test_add_task(struct weave_test_batch *b, uint32_t a, uint64_t aoff,
		    uint32_t bb, uint64_t boff, uint32_t c, uint64_t coff,
		    uint64_t size)
{
	struct drm_weave_binding bind[3] = {
		weave_binding(a, DRM_WEAVE_ACCESS_READ, aoff, size),
		weave_binding(bb, DRM_WEAVE_ACCESS_READ, boff, size),
		weave_binding(c, DRM_WEAVE_ACCESS_WRITE, coff, size),
	};

	return weave_test_launch(b, DRM_WEAVE_KERNEL_ADD_U32, bind, 3, 0, 0);
}

/* Writes crc32c(src[soff, soff + size)) as a u32 at dst[doff]. */
static inline struct drm_weave_task *
weave_test_crc_task(struct weave_test_batch *b, uint32_t src, uint64_t soff,
		    uint64_t size, uint32_t dst, uint64_t doff)
{
	struct drm_weave_binding bind[2] = {
		weave_binding(src, DRM_WEAVE_ACCESS_READ, soff, size),
		weave_binding(dst, DRM_WEAVE_ACCESS_WRITE, doff, 4),
	};

	return weave_test_launch(b, DRM_WEAVE_KERNEL_CRC32C, bind, 2, 0, 0);
}

/* Appends a host write of @size bytes at @data (kept by the caller). */
static inline struct drm_weave_task *
weave_test_write_task(struct weave_test_batch *b, uint32_t bo, uint64_t off,
		      uint64_t size, const void *data)
{
	uint32_t i = b->n++;

	if (i >= WEAVE_TEST_BATCH)
		abort();
	b->bind[i][0] = weave_binding(bo, DRM_WEAVE_ACCESS_WRITE, off, size);
	weave_task_host_write(&b->task[i], b->bind[i], data);
	return &b->task[i];
}

/* Enqueues the batch on @stream (no in-syncs) and empties it. */
static inline int weave_test_submit(int fd, uint32_t stream,
				    struct weave_test_batch *b)
{
	int ret = weave_enqueue(fd, stream, b->task, b->n, NULL, 0, NULL);

	weave_test_batch_init(b);
	return ret;
}

/* The same, failing the test on error. */
static inline void weave_test_enqueue(struct __test_metadata *_metadata,
				      int fd, uint32_t stream,
				      struct weave_test_batch *b)
{
	ASSERT_EQ(0, weave_test_submit(fd, stream, b));
}

/* Enqueues one NOOP on @stream, failing the test on error. */
static inline void weave_test_enqueue_noop(struct __test_metadata *_metadata,
					   int fd, uint32_t stream)
{
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, fd, stream, &b);
}

/* A syncobj, failing the test if libdrm cannot make one. */
static inline uint32_t weave_test_syncobj(struct __test_metadata *_metadata,
					  int fd)
{
	uint32_t handle = 0;

	ASSERT_EQ(0, drmSyncobjCreate(fd, 0, &handle));
	return handle;
}

/* Sets a per-file parameter, failing the test on error. */
static inline void weave_test_param(struct __test_metadata *_metadata, int fd,
				    uint32_t param, uint64_t value)
{
	ASSERT_EQ(0, weave_set_param(fd, param, value));
}

/* --- fences and timing ---------------------------------------------------- */

/* The longest DELAY the uAPI accepts, in microseconds. */
#define WEAVE_TEST_MAX_DELAY_US	60000000u

/*
 * A DELAY that only the job timeout can end: ten job timeouts, but at most
 * the WEAVE_TEST_MAX_DELAY_US a DELAY may last.  Fails the test if the job
 * timeout is not below that, as the delay would then end by itself.
 */
static inline uint32_t
weave_test_hang_delay_us(struct __test_metadata *_metadata,
			 const struct drm_weave_device_info *info)
{
	uint64_t timeout_us = info->job_timeout_ms * 1000ull;
	uint64_t us = 10 * timeout_us;

	if (us > WEAVE_TEST_MAX_DELAY_US)
		us = WEAVE_TEST_MAX_DELAY_US;
	ASSERT_GT(us, timeout_us) {
		TH_LOG("job_timeout_ms %u: no DELAY outlasts the job timeout",
		       info->job_timeout_ms);
	}
	return us;
}

/*
 * The sync_file status of a syncobj's fence: exports it, polls it for up
 * to @timeout_ms and returns its status then: 1 signalled, 0 still active,
 * a negative errno if it signalled with an error.
 */
static inline int weave_test_sync_file_status(struct __test_metadata *_metadata,
					      int fd, uint32_t syncobj,
					      int timeout_ms)
{
	struct sync_file_info info;
	struct pollfd pfd;
	int sfd = -1, ret;

	ASSERT_EQ(0, drmSyncobjExportSyncFile(fd, syncobj, &sfd));
	ASSERT_LE(0, sfd);
	pfd.fd = sfd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	ret = poll(&pfd, 1, timeout_ms);
	memset(&info, 0, sizeof(info));
	if (ioctl(sfd, SYNC_IOC_FILE_INFO, &info))
		ret = -1;
	close(sfd);
	ASSERT_LE(0, ret);
	/*
	 * Ready when polled, so signalled when read; not the converse, as it
	 * may signal in between.
	 */
	if (ret) {
		ASSERT_TRUE(pfd.revents & POLLIN);
		ASSERT_NE(0, info.status);
	}
	return info.status;
}

/*
 * A checked chain of five tasks on a buffer of four @page-sized parts:
 * fill part 0 with @pa, fill part 1 with @pb, add them into part 2, copy
 * part 2 to part 3, and write the crc32c of part 3 at @res_off of @res.
 */
static inline void weave_test_chain(struct weave_test_batch *b, uint32_t bo,
				    uint64_t page, uint32_t pa, uint32_t pb,
				    uint32_t res, uint64_t res_off)
{
	weave_test_fill_task(b, bo, 0, page, pa);
	weave_test_fill_task(b, bo, page, page, pb);
	weave_test_add_task(b, bo, 0, bo, page, bo, 2 * page, page);
	weave_test_copy_task(b, bo, 2 * page, bo, 3 * page, page);
	weave_test_crc_task(b, bo, 3 * page, page, res, res_off);
}

/* The crc32c weave_test_chain() must produce, computed in user space. */
static inline uint32_t weave_test_chain_crc(uint64_t page, uint32_t pa,
					    uint32_t pb)
{
	uint32_t *buf = malloc(page);
	uint32_t crc;
	size_t i;

	if (!buf)
		abort();
	for (i = 0; i < page / 4; i++)
		buf[i] = pa + pb;
	crc = weave_test_crc32c(buf, page);
	free(buf);
	return crc;
}

/* The two patterns of chain @i, so that every chain differs. */
static inline uint32_t weave_test_chain_a(unsigned int i)
{
	return 0x01010101u * (i + 1);
}

static inline uint32_t weave_test_chain_b(unsigned int i)
{
	return 0x9e3779b9u ^ (i << 8);
}

#include "weave_test_gate.h"
#include "weave_test_failure.h"

#endif /* _WEAVE_TEST_H_ */
