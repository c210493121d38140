// SPDX-License-Identifier: GPL-2.0
/*
 * Several weave devices from one module load (num_devices): each is its
 * own render node with its own buffers, streams and usage counters, and
 * buffers move between them through PRIME.
 *
 * The lane runs this suite after reloading weave.ko with num_devices=2.
 */
#include <stdio.h>

#include "weave_test.h"

/* The num_devices the module was loaded with, from sysfs. */
static int loaded_devices(void)
{
	FILE *f = fopen("/sys/module/weave/parameters/num_devices", "r");
	int n = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

FIXTURE(devices) {
	int n;
};

FIXTURE_SETUP(devices)
{
	self->n = loaded_devices();
	ASSERT_LE(2, self->n);
}

FIXTURE_TEARDOWN(devices)
{
}

TEST_F(devices, count_matches_the_module_parameter)
{
	EXPECT_EQ(self->n, weave_device_count());
	EXPECT_EQ(-ENODEV, weave_device_open(self->n));
}

TEST_F(devices, every_device_answers_its_own_queries)
{
	int i, n = self->n;

	for (i = 0; i < n; i++) {
		int fd = weave_device_open(i);
		struct drm_weave_device_info info;

		ASSERT_LE(0, fd);
		info = weave_test_info(_metadata, fd);
		EXPECT_EQ((__u32)DRM_WEAVE_UAPI_MAJOR, info.uapi_major);
		EXPECT_LT(0u, info.num_queues);
		close(fd);
	}
}

/* Buffers of one device mean nothing on another. */
TEST_F(devices, are_isolated)
{
	struct drm_weave_memory_usage u0, u1, after;
	uint64_t size = 4096, offset;
	uint32_t bo;
	int fd0, fd1;

	fd0 = weave_device_open(0);
	fd1 = weave_device_open(1);
	ASSERT_LE(0, fd0);
	ASSERT_LE(0, fd1);
	u0 = weave_test_usage(_metadata, fd0);
	u1 = weave_test_usage(_metadata, fd1);

	ASSERT_EQ(0, weave_bo_create(fd0, &size, 0, &bo));
	after = weave_test_usage(_metadata, fd0);
	EXPECT_EQ(u0.live_bos + 1, after.live_bos);
	after = weave_test_usage(_metadata, fd1);
	EXPECT_EQ(u1.live_bos, after.live_bos);

	/*
	 * fd1 holds no buffer at all, so fd0's handle must name nothing
	 * there.  (Stream handles would prove nothing: they start at 1 in
	 * every file, so fd1 may well have the same one.)
	 */
	EXPECT_EQ(0, weave_bo_mmap_offset(fd0, bo, &offset));
	EXPECT_EQ(-ENOENT, weave_bo_mmap_offset(fd1, bo, &offset));
	EXPECT_EQ(-EINVAL, weave_bo_close(fd1, bo));	/* DRM core GEM_CLOSE */

	EXPECT_EQ(0, weave_bo_close(fd0, bo));
	close(fd0);
	close(fd1);
}

/*
 * A buffer exported by one device is shared with another through mappings,
 * but the other's engine cannot run tasks on it: it refuses with -EINVAL.
 */
TEST_F(devices, prime_between_devices)
{
	uint32_t bo0, bo1, stream, pattern = 7;
	struct drm_weave_binding bind;
	struct drm_weave_task task;
	uint64_t size = 8192;
	int fd0, fd1, dmabuf;
	void *p0, *p1;

	fd0 = weave_device_open(0);
	fd1 = weave_device_open(1);
	ASSERT_LE(0, fd0);
	ASSERT_LE(0, fd1);

	bo0 = weave_test_bo(_metadata, fd0, size, 0);
	ASSERT_EQ(0, weave_bo_export(fd0, bo0, DRM_CLOEXEC | DRM_RDWR, &dmabuf));
	ASSERT_EQ(0, weave_bo_import(fd1, dmabuf, &bo1));
	close(dmabuf);

	p0 = weave_test_map(_metadata, fd0, bo0, size);
	p1 = weave_test_map(_metadata, fd1, bo1, size);
	weave_test_fill(p0, size, 0x5eed);
	EXPECT_EQ(size, weave_test_check(p1, size, 0x5eed));
	weave_test_fill(p1, size, 0xfeed);
	EXPECT_EQ(size, weave_test_check(p0, size, 0xfeed));

	stream = weave_test_stream(_metadata, fd1, DRM_WEAVE_PRIORITY_NORMAL);
	bind = weave_binding(bo1, DRM_WEAVE_ACCESS_WRITE, 0, size);
	weave_task_launch(&task, DRM_WEAVE_KERNEL_FILL, &bind, 1,
			  &pattern, sizeof(pattern));
	EXPECT_EQ(-EINVAL, weave_enqueue(fd1, stream, &task, 1, NULL, 0, NULL));
	EXPECT_EQ(size, weave_test_check(p0, size, 0xfeed));

	weave_test_unmap(_metadata, p0, size);
	weave_test_unmap(_metadata, p1, size);
	weave_test_close_bo(_metadata, fd1, bo1);
	weave_test_close_bo(_metadata, fd0, bo0);
	close(fd0);
	close(fd1);
}

TEST_HARNESS_MAIN
