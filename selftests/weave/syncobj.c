// SPDX-License-Identifier: GPL-2.0
/*
 * The core's syncobj ioctls on a weave node, as a hostile caller uses them.
 *
 * Two findings in core DRM code, both reachable from weave's render node:
 * on 6.12 a DRM_IOCTL_SYNCOBJ_TRANSFER with an unknown flag leaked a
 * reference to the source syncobj, so a weave fence in it pinned weave.ko
 * for ever; and on every kernel a syncobj ioctl with a handle count whose
 * arrays kmalloc() cannot hold printed a page allocator WARNING before
 * failing with -ENOMEM.  weave guards both ("DOC: core syncobj ioctls" in
 * kmod/weave_syncobj.c): an unknown transfer flag fails with -EINVAL, as a
 * fixed core's does, and a count past the documented limit fails with
 * -ENOMEM, as the core's does, with no WARNING.  The lane fails on any
 * console WARNING, so the count tests also check that nothing was printed.
 */
#include <stdio.h>
#include <sys/mman.h>

#include "weave_test.h"

/* The documented limits: KMALLOC_MAX_SIZE (4 MiB) over 64 and 8 bytes. */
#define WAIT_MAX_HANDLES	65536u
#define ARRAY_MAX_HANDLES	524288u

/* A count no kernel could ever allocate for. */
#define HUGE_COUNT		0x8000000u

/* Transfer flags the core does not know: all but WAIT_FOR_SUBMIT. */
static const uint32_t bad_transfer_flags[] = {
	DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL,
	DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE,
	1u << 3,
	1u << 31,
	DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT | (1u << 4),
};

/* The same ioctl number with another argument size, as drm_ioctl() takes. */
static unsigned long resized(unsigned long cmd, unsigned int size)
{
	return (cmd & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
	       ((unsigned long)size << _IOC_SIZESHIFT);
}

/* An array of @n copies of @handle, for a count past a limit. */
static uint32_t *repeat_handle(struct __test_metadata *_metadata,
			       uint32_t handle, uint32_t n)
{
	uint32_t *a = malloc((size_t)n * sizeof(*a));
	uint32_t i;

	ASSERT_NE(NULL, a);
	for (i = 0; i < n; i++)
		a[i] = handle;
	return a;
}

FIXTURE(syncobj) {
	int fd;
	uint32_t stream;
	uint32_t weave;		/* holds a weave fence */
	uint32_t dst;		/* empty */
};

FIXTURE_SETUP(syncobj)
{
	struct drm_weave_sync out;

	self->fd = weave_test_open(_metadata);
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	self->weave = weave_test_syncobj(_metadata, self->fd);
	self->dst = weave_test_syncobj(_metadata, self->fd);
	weave_test_enqueue_noop(_metadata, self->fd, self->stream);
	out = weave_sync(self->weave, 0);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, &out));
	ASSERT_EQ(0, drmSyncobjWait(self->fd, &self->weave, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
}

FIXTURE_TEARDOWN(syncobj)
{
	close(self->fd);
}

static struct drm_syncobj_transfer transfer(uint32_t src, uint32_t dst,
					    uint64_t dst_point, uint32_t flags)
{
	struct drm_syncobj_transfer t;

	memset(&t, 0, sizeof(t));
	t.src_handle = src;
	t.dst_handle = dst;
	t.dst_point = dst_point;
	t.flags = flags;
	return t;
}

/* 0 if @obj holds a fence (signalled or not), -EINVAL if it is empty. */
static int has_fence(int fd, uint32_t obj)
{
	return drmSyncobjWait(fd, &obj, 1, 0, 0, NULL) && errno == EINVAL ?
	       -EINVAL : 0;
}

TEST_F(syncobj, transfer_refuses_unknown_flags)
{
	struct drm_syncobj_transfer t;
	uint64_t point = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_transfer_flags); i++) {
		/* To a binary syncobj, then to a timeline point. */
		t = transfer(self->weave, self->dst, 0, bad_transfer_flags[i]);
		EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd,
						    DRM_IOCTL_SYNCOBJ_TRANSFER,
						    &t));
		t = transfer(self->weave, self->dst, 5, bad_transfer_flags[i]);
		EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd,
						    DRM_IOCTL_SYNCOBJ_TRANSFER,
						    &t));
	}
	/* Nothing was transferred. */
	EXPECT_EQ(-EINVAL, has_fence(self->fd, self->dst));
	ASSERT_EQ(0, drmSyncobjQuery(self->fd, &self->dst, &point, 1));
	EXPECT_EQ(0u, point);
}

/*
 * The finding itself: on 6.12 the refused transfer kept a reference to the
 * source syncobj, whose weave fence then held weave.ko, so rmmod failed
 * until reboot.  Once the file is closed every reference must go.
 */
FIXTURE(leak) {
	long base;	/* weave.ko's references before the test opened anything */
};

FIXTURE_SETUP(leak)
{
	self->base = weave_test_settled_refs();
	ASSERT_LE(0, self->base);
}

FIXTURE_TEARDOWN(leak)
{
}

TEST_F(leak, transfer_with_unknown_flags_leaks_nothing)
{
	long base = self->base;
	struct drm_syncobj_transfer t;
	struct drm_weave_sync out;
	uint32_t stream, src, dst;
	int fd, i;

	fd = weave_test_open(_metadata);
	stream = weave_test_stream(_metadata, fd, DRM_WEAVE_PRIORITY_NORMAL);
	src = weave_test_syncobj(_metadata, fd);
	dst = weave_test_syncobj(_metadata, fd);
	weave_test_enqueue_noop(_metadata, fd, stream);
	out = weave_sync(src, 0);
	ASSERT_EQ(0, weave_flush(fd, stream, &out));
	ASSERT_LT(base, weave_test_module_refs());

	for (i = 0; i < 8; i++) {
		t = transfer(src, dst, i & 1, 1u << (2 + i));
		EXPECT_EQ(-EINVAL, weave_test_ioctl(fd,
						    DRM_IOCTL_SYNCOBJ_TRANSFER,
						    &t));
	}
	ASSERT_EQ(0, drmSyncobjDestroy(fd, src));
	ASSERT_EQ(0, drmSyncobjDestroy(fd, dst));
	close(fd);
	weave_test_await_refs(_metadata, base);
}

TEST_F(syncobj, transfer_with_known_flags_still_works)
{
	uint32_t flags[] = { 0, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT };
	struct drm_syncobj_transfer t;
	uint32_t bin, tl;
	uint64_t point;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		bin = weave_test_syncobj(_metadata, self->fd);
		tl = weave_test_syncobj(_metadata, self->fd);
		ASSERT_EQ(-EINVAL, has_fence(self->fd, bin));

		t = transfer(self->weave, bin, 0, flags[i]);
		ASSERT_EQ(0, weave_test_ioctl(self->fd,
					      DRM_IOCTL_SYNCOBJ_TRANSFER, &t));
		EXPECT_EQ(0, drmSyncobjWait(self->fd, &bin, 1, 0, 0, NULL));

		t = transfer(self->weave, tl, 7, flags[i]);
		ASSERT_EQ(0, weave_test_ioctl(self->fd,
					      DRM_IOCTL_SYNCOBJ_TRANSFER, &t));
		point = 0;
		ASSERT_EQ(0, drmSyncobjQuery(self->fd, &tl, &point, 1));
		EXPECT_EQ(7u, point);
		point = 7;
		EXPECT_EQ(0, drmSyncobjTimelineWait(self->fd, &tl, &point, 1,
						    0, 0, NULL));

		/* And from a timeline point back to a binary syncobj. */
		ASSERT_EQ(0, drmSyncobjReset(self->fd, &bin, 1));
		t = transfer(tl, bin, 0, flags[i]);
		t.src_point = 7;
		ASSERT_EQ(0, weave_test_ioctl(self->fd,
					      DRM_IOCTL_SYNCOBJ_TRANSFER, &t));
		EXPECT_EQ(0, drmSyncobjWait(self->fd, &bin, 1, 0, 0, NULL));
		drmSyncobjDestroy(self->fd, bin);
		drmSyncobjDestroy(self->fd, tl);
	}
}

/* Every other error is the core's, in the order a fixed core checks. */
TEST_F(syncobj, transfer_errors_are_the_cores)
{
	struct drm_syncobj_transfer t;

	t = transfer(self->weave, self->dst, 0, 0);
	t.pad = 1;
	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd,
					    DRM_IOCTL_SYNCOBJ_TRANSFER, &t));
	t = transfer(self->weave, WEAVE_TEST_BAD_HANDLE, 0, 0);
	EXPECT_EQ(-ENOENT, weave_test_ioctl(self->fd,
					    DRM_IOCTL_SYNCOBJ_TRANSFER, &t));
	t = transfer(WEAVE_TEST_BAD_HANDLE, self->dst, 0, 0);
	EXPECT_EQ(-ENOENT, weave_test_ioctl(self->fd,
					    DRM_IOCTL_SYNCOBJ_TRANSFER, &t));
	t = transfer(WEAVE_TEST_BAD_HANDLE, self->dst, 3, 0);
	EXPECT_EQ(-ENOENT, weave_test_ioctl(self->fd,
					    DRM_IOCTL_SYNCOBJ_TRANSFER, &t));
	/* A missing syncobj is found missing before the flags are read. */
	t = transfer(self->weave, WEAVE_TEST_BAD_HANDLE, 0, 1u << 31);
	EXPECT_EQ(-ENOENT, weave_test_ioctl(self->fd,
					    DRM_IOCTL_SYNCOBJ_TRANSFER, &t));
	t = transfer(WEAVE_TEST_BAD_HANDLE, self->dst, 0, 1u << 31);
	EXPECT_EQ(-ENOENT, weave_test_ioctl(self->fd,
					    DRM_IOCTL_SYNCOBJ_TRANSFER, &t));
	/* An empty source, and a point it does not have. */
	t = transfer(self->dst, self->weave, 0, 0);
	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd,
					    DRM_IOCTL_SYNCOBJ_TRANSFER, &t));
	t = transfer(self->dst, self->weave, 2, 0);
	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd,
					    DRM_IOCTL_SYNCOBJ_TRANSFER, &t));
	/* The argument is unreadable. */
	EXPECT_EQ(-EFAULT, weave_test_ioctl(self->fd,
					    DRM_IOCTL_SYNCOBJ_TRANSFER,
					    WEAVE_TEST_BAD_PTR));
	EXPECT_EQ(-EINVAL, has_fence(self->fd, self->dst));
}

/*
 * drm_ioctl() reads as many bytes as the command's size field says and
 * zeroes the rest, so the same ioctl number with a larger size still
 * carries the flags, and one too short to reach them carries none.
 */
TEST_F(syncobj, transfer_other_argument_sizes)
{
	struct {
		struct drm_syncobj_transfer t;
		uint8_t tail[24];
	} big;
	struct drm_syncobj_transfer t;

	memset(&big, 0, sizeof(big));
	big.t = transfer(self->weave, self->dst, 0, 1u << 31);
	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd,
					    resized(DRM_IOCTL_SYNCOBJ_TRANSFER,
						    sizeof(big)), &big));
	EXPECT_EQ(-EINVAL, has_fence(self->fd, self->dst));

	/* Up to dst_point: flags and pad read as zero, a plain transfer. */
	t = transfer(self->weave, self->dst, 0, 1u << 31);
	EXPECT_EQ(0, weave_test_ioctl(self->fd,
				      resized(DRM_IOCTL_SYNCOBJ_TRANSFER,
					      offsetof(struct drm_syncobj_transfer,
						       flags)), &t));
	EXPECT_EQ(0, has_fence(self->fd, self->dst));
}

/* One call of a count ioctl with @count handles at @handles. */
static int count_ioctl(int fd, unsigned long cmd, uint32_t count,
		       const uint32_t *handles, uint64_t *points)
{
	union {
		struct drm_syncobj_wait wait;
		struct drm_syncobj_timeline_wait twait;
		struct drm_syncobj_array array;
		struct drm_syncobj_timeline_array tarray;
	} a;

	memset(&a, 0, sizeof(a));
	switch (cmd) {
	case DRM_IOCTL_SYNCOBJ_WAIT:
		a.wait.handles = (uintptr_t)handles;
		a.wait.count_handles = count;
		a.wait.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
		break;
	case DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT:
		a.twait.handles = (uintptr_t)handles;
		a.twait.points = (uintptr_t)points;
		a.twait.count_handles = count;
		a.twait.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
		break;
	case DRM_IOCTL_SYNCOBJ_RESET:
	case DRM_IOCTL_SYNCOBJ_SIGNAL:
		a.array.handles = (uintptr_t)handles;
		a.array.count_handles = count;
		break;
	default:
		a.tarray.handles = (uintptr_t)handles;
		a.tarray.points = (uintptr_t)points;
		a.tarray.count_handles = count;
		break;
	}
	return weave_test_ioctl(fd, cmd, &a);
}

/* Every core ioctl that takes a handle count, with its documented limit. */
static const struct {
	const char *name;
	unsigned long cmd;
	uint32_t max;
} count_ioctls[] = {
	{ "WAIT", DRM_IOCTL_SYNCOBJ_WAIT, WAIT_MAX_HANDLES },
	{ "TIMELINE_WAIT", DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, WAIT_MAX_HANDLES },
	{ "RESET", DRM_IOCTL_SYNCOBJ_RESET, ARRAY_MAX_HANDLES },
	{ "SIGNAL", DRM_IOCTL_SYNCOBJ_SIGNAL, ARRAY_MAX_HANDLES },
	{ "TIMELINE_SIGNAL", DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
	  ARRAY_MAX_HANDLES },
	{ "QUERY", DRM_IOCTL_SYNCOBJ_QUERY, ARRAY_MAX_HANDLES },
};

/* The finding: SYNCOBJ_RESET with 0x8000000 handles, and the others. */
TEST_F(syncobj, huge_counts_fail_with_enomem)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(count_ioctls); i++) {
		EXPECT_EQ(-ENOMEM, count_ioctl(self->fd, count_ioctls[i].cmd,
					       HUGE_COUNT, WEAVE_TEST_BAD_PTR,
					       WEAVE_TEST_BAD_PTR)) {
			TH_LOG("%s", count_ioctls[i].name);
		}
		EXPECT_EQ(-ENOMEM, count_ioctl(self->fd, count_ioctls[i].cmd,
					       UINT32_MAX, WEAVE_TEST_BAD_PTR,
					       WEAVE_TEST_BAD_PTR)) {
			TH_LOG("%s", count_ioctls[i].name);
		}
	}
}

/*
 * One handle past the limit, with every handle valid: the core would get
 * as far as its largest array, one kmalloc() past KMALLOC_MAX_SIZE.
 */
TEST_F(syncobj, one_past_the_limit_fails_with_enomem)
{
	uint32_t *handles = repeat_handle(_metadata, self->weave,
					  ARRAY_MAX_HANDLES + 1);
	uint64_t *points = calloc(ARRAY_MAX_HANDLES + 1, sizeof(*points));
	size_t i;

	ASSERT_NE(NULL, points);
	for (i = 0; i < ARRAY_SIZE(count_ioctls); i++) {
		EXPECT_EQ(-ENOMEM, count_ioctl(self->fd, count_ioctls[i].cmd,
					       count_ioctls[i].max + 1,
					       handles, points)) {
			TH_LOG("%s", count_ioctls[i].name);
		}
	}
	/* The syncobj was not touched: still the weave fence, signalled. */
	EXPECT_EQ(0, drmSyncobjWait(self->fd, &self->weave, 1, 0, 0, NULL));
	free(points);
	free(handles);
}

/*
 * A count at the limit reaches the core: with the first handle unknown,
 * each call fails with the core's -ENOENT after it allocated its handle
 * and syncobj arrays, the largest of reset, signal and query, at 4 MiB.
 */
TEST_F(syncobj, counts_at_the_limit_reach_the_core)
{
	uint32_t *handles = repeat_handle(_metadata, self->weave,
					  ARRAY_MAX_HANDLES);
	uint64_t *points = calloc(ARRAY_MAX_HANDLES, sizeof(*points));
	size_t i;

	ASSERT_NE(NULL, points);
	handles[0] = WEAVE_TEST_BAD_HANDLE;
	for (i = 0; i < ARRAY_SIZE(count_ioctls); i++) {
		EXPECT_EQ(-ENOENT, count_ioctl(self->fd, count_ioctls[i].cmd,
					       count_ioctls[i].max, handles,
					       points)) {
			TH_LOG("%s", count_ioctls[i].name);
		}
	}
	free(points);
	free(handles);
}

/*
 * The largest array of all, the waits' 64-byte entries, at the limit: the
 * waits do their work, through every handle.  So does a reset at its own
 * limit, through every handle of a 4 MiB array.
 */
TEST_F_TIMEOUT(syncobj, counts_at_the_limit_work, 120)
{
	uint32_t *handles = repeat_handle(_metadata, self->weave,
					  ARRAY_MAX_HANDLES);
	uint64_t *points = calloc(ARRAY_MAX_HANDLES, sizeof(*points));
	int64_t start = weave_test_now();

	ASSERT_NE(NULL, points);
	EXPECT_EQ(0, count_ioctl(self->fd, DRM_IOCTL_SYNCOBJ_WAIT,
				 WAIT_MAX_HANDLES, handles, points));
	EXPECT_EQ(0, count_ioctl(self->fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT,
				 WAIT_MAX_HANDLES, handles, points));
	EXPECT_EQ(0, count_ioctl(self->fd, DRM_IOCTL_SYNCOBJ_RESET,
				 ARRAY_MAX_HANDLES, handles, points));
	EXPECT_EQ(-EINVAL, has_fence(self->fd, self->weave));
	TH_LOG("two waits on %u handles and a reset of %u: %lld ms",
	       WAIT_MAX_HANDLES, ARRAY_MAX_HANDLES,
	       (long long)((weave_test_now() - start) / 1000000));
	free(points);
	free(handles);
}

/* The same counts through a larger argument size. */
TEST_F(syncobj, huge_counts_other_argument_sizes)
{
	struct {
		struct drm_syncobj_array a;
		uint8_t tail[16];
	} big;

	memset(&big, 0, sizeof(big));
	big.a.handles = (uintptr_t)WEAVE_TEST_BAD_PTR;
	big.a.count_handles = HUGE_COUNT;
	EXPECT_EQ(-ENOMEM, weave_test_ioctl(self->fd,
					    resized(DRM_IOCTL_SYNCOBJ_RESET,
						    sizeof(big)), &big));
	EXPECT_EQ(-ENOMEM, weave_test_ioctl(self->fd,
					    resized(DRM_IOCTL_SYNCOBJ_SIGNAL,
						    sizeof(big)), &big));
}

/*
 * A 32-bit caller reaches the core through the compat entry point, which
 * the guard covers too.  A kernel that runs no 32-bit code has no such
 * path: the test says so and has nothing to check.
 */
TEST_F(syncobj, compat_path_is_guarded)
{
	struct drm_syncobj_transfer *t;
	struct drm_syncobj_array *a;
	void *low;
	long ret;

	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	ASSERT_NE(MAP_FAILED, low);
	ASSERT_GT(1ull << 32, (unsigned long long)(uintptr_t)low);

	a = low;
	memset(a, 0, sizeof(*a));
	a->handles = (uintptr_t)WEAVE_TEST_BAD_PTR;
	a->count_handles = HUGE_COUNT;
	ret = weave_test_ioctl32(self->fd, DRM_IOCTL_SYNCOBJ_RESET, a);
	if (ret == -ENOSYS) {
		TH_LOG("no 32-bit system calls on this kernel: no compat path");
		munmap(low, 4096);
		return;
	}
	EXPECT_EQ(-ENOMEM, ret);

	t = low;
	*t = transfer(self->weave, self->dst, 0, 1u << 31);
	EXPECT_EQ(-EINVAL, weave_test_ioctl32(self->fd,
					      DRM_IOCTL_SYNCOBJ_TRANSFER, t));
	EXPECT_EQ(-EINVAL, has_fence(self->fd, self->dst));
	*t = transfer(self->weave, self->dst, 0, 0);
	EXPECT_EQ(0, weave_test_ioctl32(self->fd, DRM_IOCTL_SYNCOBJ_TRANSFER,
					t));
	EXPECT_EQ(0, has_fence(self->fd, self->dst));
	munmap(low, 4096);
}

TEST_HARNESS_MAIN
