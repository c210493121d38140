// SPDX-License-Identifier: GPL-2.0
/*
 * weave: the completion page (uAPI 1.11): each stream's completed count
 * in one read-only area, as WAIT sees it, with and without rings; the
 * mapping's rules, isolation between files, destroyed streams, close
 * with work in flight, memory accounting and misuse.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "weave_test.h"

/* A DELAY long enough to read the area while it runs, even under TCG. */
#define CP_DELAY_US	400000u

FIXTURE(completions) {
	WEAVE_TEST_FILE_FIELDS;
	struct weave_completions map;
};

FIXTURE_SETUP(completions)
{
	WEAVE_TEST_FILE_SETUP();
	ASSERT_LE(11u, self->info.uapi_minor) {
		TH_LOG("uAPI 1.%u has no completion page",
		       self->info.uapi_minor);
	}
	ASSERT_EQ(0, weave_completions_map(self->fd, &self->map));
}

FIXTURE_TEARDOWN(completions)
{
	weave_completions_unmap(&self->map);
	close(self->fd);
}

typedef FIXTURE_DATA(completions) completions_t;

/* A file with no area yet. */
WEAVE_TEST_FIXTURE(cp_file, 11u);

/* --- helpers ------------------------------------------------------------- */

/* The raw ioctl, for arguments libweave would not build. */
static int cp_ioctl(int fd, struct drm_weave_completions *args)
{
	return weave_test_ioctl(fd, DRM_IOCTL_WEAVE_COMPLETIONS, args);
}

/*
 * mmap()s @size bytes of @fd at @offset with @prot and @flags: 0 if it
 * was mapped (and is unmapped again), else the errno.
 */
static int cp_mmap_errno(int fd, size_t size, int prot, int flags,
			 uint64_t offset)
{
	void *p = mmap(NULL, size, prot, flags, fd, (off_t)offset);

	if (p == MAP_FAILED)
		return errno;
	munmap(p, size);
	return 0;
}

/* Enqueues and flushes @n no-ops on @stream; returns the last seqno. */
static uint64_t cp_noops(struct __test_metadata *_metadata, int fd,
			 uint32_t stream, uint32_t n)
{
	struct weave_test_batch b;
	uint64_t seqno = 0;
	uint32_t i;

	weave_test_batch_init(&b);
	for (i = 0; i < n; i++)
		weave_test_noop(&b);
	ASSERT_EQ(0, weave_enqueue_flush(fd, stream, b.task, b.n, NULL, 0,
					 NULL, 0, &seqno));
	return seqno;
}

/* Enqueues and flushes one DELAY of @us on @stream; returns its seqno. */
static uint64_t cp_delay(struct __test_metadata *_metadata, int fd,
			 uint32_t stream, uint32_t us)
{
	struct weave_test_batch b;
	uint64_t seqno = 0;

	weave_test_batch_init(&b);
	weave_test_delay(&b, us);
	ASSERT_EQ(0, weave_enqueue_flush(fd, stream, b.task, b.n, NULL, 0,
					 NULL, 0, &seqno));
	return seqno;
}

/* Waits with WAIT_SEQNO for @seqno of @stream, failing on error. */
static void cp_wait(struct __test_metadata *_metadata, int fd,
		    uint32_t stream, uint64_t seqno)
{
	ASSERT_EQ(0, weave_wait_seqno(fd, stream, seqno,
				      weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
}

/* Polls, bounded, until @stream's entry is @want; returns whether. */
static int cp_await(const struct weave_completions *map, uint32_t stream,
		    uint64_t want)
{
	int64_t deadline = weave_test_now() + WEAVE_TEST_WAIT_NS;

	while (weave_stream_completed(map, stream) != want) {
		if (weave_test_now() > deadline)
			return 0;
		usleep(1000);
	}
	return 1;
}

/* --- the values ---------------------------------------------------------- */

/* The entry rises as jobs complete, to what WAIT_SEQNO and the query see. */
TEST_F(completions, rises_as_wait_sees)
{
	uint32_t s = weave_test_stream(_metadata, self->fd,
				       DRM_WEAVE_PRIORITY_NORMAL);
	struct weave_test_gate gate;
	struct weave_test_batch b;
	struct drm_weave_sync in;
	uint64_t first, second;

	ASSERT_EQ(self->info.max_client_streams, self->map.count);
	ASSERT_EQ(0u, weave_stream_completed(&self->map, s));
	first = cp_noops(_metadata, self->fd, s, 8);
	ASSERT_EQ(8u, first);
	cp_wait(_metadata, self->fd, s, first);
	ASSERT_EQ(first, weave_stream_completed(&self->map, s));
	ASSERT_EQ(first, weave_test_squery(_metadata, self->fd,
						   s).completed);

	/* While a gate holds the next task, the entry stays below it. */
	weave_test_gate_open(_metadata, &gate, self->fd);
	in = weave_sync(gate.syncobj, 0);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	ASSERT_EQ(0, weave_enqueue_flush(self->fd, s, b.task, b.n, &in, 1,
					 NULL, 0, &second));
	ASSERT_EQ(first + 1, second);
	ASSERT_EQ(first, weave_stream_completed(&self->map, s));
	weave_test_gate_pending(_metadata, self->fd, &gate);
	weave_test_gate_wait(_metadata, self->fd, &gate);
	cp_wait(_metadata, self->fd, s, second);
	ASSERT_EQ(second, weave_stream_completed(&self->map, s));
}

/* Two streams count apart: one held by a DELAY, the other goes on. */
TEST_F(completions, streams_independent)
{
	uint32_t a = weave_test_stream(_metadata, self->fd,
				       DRM_WEAVE_PRIORITY_NORMAL);
	uint32_t b = weave_test_stream(_metadata, self->fd,
				       DRM_WEAVE_PRIORITY_NORMAL);
	uint64_t sa, sb;

	sb = cp_delay(_metadata, self->fd, b, CP_DELAY_US);
	sa = cp_noops(_metadata, self->fd, a, 5);
	cp_wait(_metadata, self->fd, a, sa);
	ASSERT_EQ(5u, weave_stream_completed(&self->map, a));
	cp_wait(_metadata, self->fd, b, sb);
	ASSERT_EQ(1u, weave_stream_completed(&self->map, b));
	ASSERT_EQ(5u, weave_stream_completed(&self->map, a));
	/* Out of range: zero, no read. */
	ASSERT_EQ(0u, weave_stream_completed(&self->map, 0));
	ASSERT_EQ(0u, weave_stream_completed(&self->map,
					     self->map.count + 1));
}

/* With a ring, the entry and the ring header's count are one value. */
TEST_F(completions, ring_agrees)
{
	uint32_t s = weave_test_stream(_metadata, self->fd,
				       DRM_WEAVE_PRIORITY_NORMAL);
	uint32_t consumed = 0, i;
	struct weave_ring r;

	ASSERT_EQ(0, weave_ring_create(self->fd, s, 64, &r));
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, weave_ring_noop(&r));
	weave_ring_publish(&r);
	ASSERT_EQ(0, weave_ring_enter(self->fd, &consumed));
	ASSERT_EQ(6u, consumed);
	ASSERT_EQ(0, weave_flush(self->fd, s, NULL));
	cp_wait(_metadata, self->fd, s, weave_ring_seqno(&r));
	ASSERT_EQ(6u, weave_stream_completed(&self->map, s));
	ASSERT_EQ(weave_ring_completed(&r),
		  weave_stream_completed(&self->map, s));
	ASSERT_EQ(0, weave_ring_destroy(&r));
}

/* An area made after the work completed has the counts at once. */
TEST_F(cp_file, made_late)
{
	int fd = self->fd;
	struct weave_completions map;
	uint32_t s = weave_test_stream(_metadata, fd,
				       DRM_WEAVE_PRIORITY_NORMAL);
	uint64_t seqno = cp_noops(_metadata, fd, s, 3);

	cp_wait(_metadata, fd, s, seqno);
	ASSERT_EQ(0, weave_completions_map(fd, &map));
	ASSERT_EQ(3u, weave_stream_completed(&map, s));
	weave_completions_unmap(&map);
}

/* A destroyed stream's entry is zero, also after its DELAY ends. */
TEST_F(completions, destroyed_stream_zero)
{
	uint32_t s = weave_test_stream(_metadata, self->fd,
				       DRM_WEAVE_PRIORITY_NORMAL);
	uint32_t t;
	uint64_t seqno = cp_noops(_metadata, self->fd, s, 3);

	cp_wait(_metadata, self->fd, s, seqno);
	ASSERT_EQ(3u, weave_stream_completed(&self->map, s));
	cp_delay(_metadata, self->fd, s, CP_DELAY_US);
	ASSERT_EQ(0, weave_stream_destroy(self->fd, s));
	ASSERT_EQ(0u, weave_stream_completed(&self->map, s));
	/* The DELAY completes after the destroy, and writes nothing. */
	weave_test_client_idle(_metadata, self->fd);
	ASSERT_EQ(0u, weave_stream_completed(&self->map, s));
	/* The next stream starts from zero, and counts. */
	t = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_NE(s, t);
	ASSERT_EQ(0u, weave_stream_completed(&self->map, t));
	seqno = cp_noops(_metadata, self->fd, t, 2);
	cp_wait(_metadata, self->fd, t, seqno);
	ASSERT_EQ(2u, weave_stream_completed(&self->map, t));
	ASSERT_EQ(0u, weave_stream_completed(&self->map, s));
}

/* --- the mapping --------------------------------------------------------- */

/* Never writable: PROT_WRITE, private or shared, and mprotect(). */
TEST_F(completions, read_only)
{
	struct drm_weave_completions args = { 0 };
	void *p;

	ASSERT_EQ(0, cp_ioctl(self->fd, &args));
	ASSERT_EQ(EPERM, cp_mmap_errno(self->fd, args.size,
				       PROT_READ | PROT_WRITE, MAP_SHARED,
				       args.offset));
	ASSERT_EQ(EPERM, cp_mmap_errno(self->fd, args.size,
				       PROT_READ | PROT_WRITE, MAP_PRIVATE,
				       args.offset));
	p = mmap(NULL, args.size, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)args.offset);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(-1, mprotect(p, args.size, PROT_READ | PROT_WRITE));
	ASSERT_EQ(EACCES, errno);
	ASSERT_EQ(0, munmap(p, args.size));
}

/* Only the whole area at its offset: more, less or further is refused. */
TEST_F(completions, past_the_area)
{
	struct drm_weave_completions args = { 0 };
	int fd = self->fd;

	ASSERT_EQ(0, cp_ioctl(fd, &args));
	ASSERT_EQ(self->map.size, args.size);
	ASSERT_EQ(0u, args.size % self->page);
	ASSERT_LE((uint64_t)args.entries * 8, args.size);
	ASSERT_GT((uint64_t)args.entries * 8, args.size - self->page);
	ASSERT_EQ(0, cp_mmap_errno(fd, args.size, PROT_READ, MAP_SHARED,
				   args.offset));
	ASSERT_EQ(EINVAL, cp_mmap_errno(fd, args.size + self->page,
					PROT_READ, MAP_SHARED, args.offset));
	ASSERT_EQ(EINVAL, cp_mmap_errno(fd, self->page, PROT_READ,
					MAP_SHARED, args.offset + args.size));
	ASSERT_EQ(EINVAL, cp_mmap_errno(fd, self->page, PROT_READ,
					MAP_SHARED, args.offset + self->page));
	if (args.size > self->page) {
		ASSERT_EQ(EINVAL, cp_mmap_errno(fd, self->page, PROT_READ,
						MAP_SHARED, args.offset));
	}
}

/* Another file's area is its own; a file without one maps none. */
TEST_F(completions, other_file)
{
	struct drm_weave_completions args = { 0 };
	int fd2 = weave_test_open(_metadata);
	struct weave_completions map2;
	uint32_t s, s2;
	uint64_t seqno;

	ASSERT_EQ(0, cp_ioctl(self->fd, &args));
	/* fd2 has no area yet: its offset maps nothing of self->fd's. */
	ASSERT_EQ(EINVAL, cp_mmap_errno(fd2, args.size, PROT_READ,
					MAP_SHARED, args.offset));

	s = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	s2 = weave_test_stream(_metadata, fd2, DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_EQ(0, weave_completions_map(fd2, &map2));
	seqno = cp_noops(_metadata, self->fd, s, 4);
	cp_wait(_metadata, self->fd, s, seqno);
	ASSERT_EQ(4u, weave_stream_completed(&self->map, s));
	ASSERT_EQ(0u, weave_stream_completed(&map2, s2));
	seqno = cp_noops(_metadata, fd2, s2, 2);
	cp_wait(_metadata, fd2, s2, seqno);
	ASSERT_EQ(2u, weave_stream_completed(&map2, s2));
	ASSERT_EQ(4u, weave_stream_completed(&self->map, s));
	weave_completions_unmap(&map2);
	close(fd2);
}

/*
 * Closing the file with work in flight: the mapping keeps the file, and
 * its entry still rises; unmapping it then releases the file while the
 * next DELAY runs, which completes into nothing.
 */
TEST_F(cp_file, close_in_flight)
{
	int fd = weave_test_open(_metadata);
	struct weave_completions map;
	uint32_t s = weave_test_stream(_metadata, fd,
				       DRM_WEAVE_PRIORITY_NORMAL);
	uint64_t seqno;

	ASSERT_EQ(0, weave_completions_map(fd, &map));
	seqno = cp_delay(_metadata, fd, s, CP_DELAY_US);
	cp_delay(_metadata, fd, s, CP_DELAY_US);
	close(fd);
	ASSERT_TRUE(cp_await(&map, s, seqno));
	weave_completions_unmap(&map);
	/* The second DELAY ends after the release: nothing to see, no leak. */
	usleep(2 * CP_DELAY_US);
}

/* --- accounting and misuse ----------------------------------------------- */

/* Made once, counted in shared_ring_bytes, the same on each call. */
TEST_F(cp_file, accounting)
{
	struct drm_weave_completions args = { 0 }, again = { 0 };
	int fd = self->fd;
	struct drm_weave_client_usage before, after;

	before = weave_test_client_usage(_metadata, fd);
	ASSERT_EQ(0, cp_ioctl(fd, &args));
	after = weave_test_client_usage(_metadata, fd);
	ASSERT_EQ(before.shared_ring_bytes + args.size,
		  after.shared_ring_bytes);
	ASSERT_EQ(before.kernel_bytes + args.size, after.kernel_bytes);
	ASSERT_EQ(0, cp_ioctl(fd, &again));
	ASSERT_EQ(args.offset, again.offset);
	ASSERT_EQ(args.size, again.size);
	ASSERT_EQ(args.entries, again.entries);
	after = weave_test_client_usage(_metadata, fd);
	ASSERT_EQ(before.shared_ring_bytes + args.size,
		  after.shared_ring_bytes);
}

/* Flags and pad must be zero; nothing is made then. */
TEST_F(cp_file, misuse)
{
	struct drm_weave_completions args = { .flags = 1 };
	int fd = self->fd;
	struct drm_weave_client_usage usage;

	ASSERT_EQ(-EINVAL, cp_ioctl(fd, &args));
	args = (struct drm_weave_completions){ .flags = 0x80000000u };
	ASSERT_EQ(-EINVAL, cp_ioctl(fd, &args));
	args = (struct drm_weave_completions){ .pad = 1 };
	ASSERT_EQ(-EINVAL, cp_ioctl(fd, &args));
	usage = weave_test_client_usage(_metadata, fd);
	ASSERT_EQ(0u, usage.shared_ring_bytes);
}

TEST_HARNESS_MAIN
