// SPDX-License-Identifier: GPL-2.0
/*
 * weave: buffer objects: create, map, close, and their validation.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weave_test.h"

/* Buffers the stress test keeps alive at once. */
#define MANY_BOS	1000

WEAVE_TEST_FIXTURE(bo, 0u)

static int create(int fd, uint64_t size, uint32_t flags)
{
	uint32_t handle;

	return weave_bo_create(fd, &size, flags, &handle);
}

/* Writes through one mapping, reads back through a second, fresh one. */
TEST_F(bo, lifecycle)
{
	size_t size = 4 * self->page;
	uint64_t offset1, offset2;
	void *map1, *map2;
	uint32_t handle;

	handle = weave_test_bo(_metadata, self->fd, size, 0);
	ASSERT_EQ(0, weave_bo_mmap_offset(self->fd, handle, &offset1));
	map1 = weave_test_map(_metadata, self->fd, handle, size);
	weave_test_fill(map1, size, 0x1234);
	weave_test_unmap(_metadata, map1, size);

	ASSERT_EQ(0, weave_bo_mmap_offset(self->fd, handle, &offset2));
	EXPECT_EQ(offset1, offset2);
	map2 = weave_test_map(_metadata, self->fd, handle, size);
	ASSERT_EQ(size, weave_test_check(map2, size, 0x1234));
	weave_test_unmap(_metadata, map2, size);

	weave_test_close_bo(_metadata, self->fd, handle);
}

/* Two live mappings of one buffer see each other's writes. */
TEST_F(bo, two_mappings_coherent)
{
	size_t size = 2 * self->page;
	uint32_t handle = weave_test_bo(_metadata, self->fd, size, 0);
	void *map1 = weave_test_map(_metadata, self->fd, handle, size);
	void *map2 = weave_test_map(_metadata, self->fd, handle, size);

	ASSERT_NE(map1, map2);
	weave_test_fill(map1, size, 1);
	ASSERT_EQ(size, weave_test_check(map2, size, 1));
	weave_test_fill(map2, size, 2);
	ASSERT_EQ(size, weave_test_check(map1, size, 2));
	weave_test_unmap(_metadata, map1, size);
	weave_test_unmap(_metadata, map2, size);
	weave_test_close_bo(_metadata, self->fd, handle);
}

/* New buffers read as zeroes, even where freed buffers were written. */
TEST_F(bo, new_buffer_is_zero)
{
	size_t size = 16 * self->page;
	uint32_t handle;
	void *map;
	int i;

	for (i = 0; i < 4; i++) {
		handle = weave_test_bo(_metadata, self->fd, size, 0);
		map = weave_test_map(_metadata, self->fd, handle, size);
		ASSERT_EQ(size, weave_test_check_bytes(map, size, 0)) {
			TH_LOG("round %d", i);
		}
		memset(map, 0xa5, size);
		weave_test_unmap(_metadata, map, size);
		weave_test_close_bo(_metadata, self->fd, handle);
	}
}

TEST_F(bo, size_rounds_up_one_byte)
{
	uint64_t size = 1;
	uint32_t handle;

	ASSERT_EQ(0, weave_bo_create(self->fd, &size, 0, &handle));
	ASSERT_EQ(self->page, size);
	weave_test_close_bo(_metadata, self->fd, handle);
}

TEST_F(bo, size_rounds_up_page_plus_one)
{
	uint64_t size = self->page + 1;
	uint32_t handle;

	ASSERT_EQ(0, weave_bo_create(self->fd, &size, 0, &handle));
	ASSERT_EQ(2 * self->page, size);
	weave_test_close_bo(_metadata, self->fd, handle);
}

TEST_F(bo, size_exact_page_unchanged)
{
	uint64_t size = 5 * self->page;
	uint32_t handle;

	ASSERT_EQ(0, weave_bo_create(self->fd, &size, 0, &handle));
	ASSERT_EQ(5 * self->page, size);
	weave_test_close_bo(_metadata, self->fd, handle);
}

/*
 * The limit itself (rounded down to a page) is allowed.  Pinning its pages
 * takes the debug kernel (KASAN, under TCG) half a minute on a busy host.
 */
TEST_F_TIMEOUT(bo, size_at_max_bo_size, 120)
{
	uint64_t size = self->info.max_bo_size / self->page * self->page;
	uint32_t handle;

	ASSERT_LT(0u, size);
	ASSERT_EQ(0, weave_bo_create(self->fd, &size, 0, &handle));
	weave_test_close_bo(_metadata, self->fd, handle);
}

TEST_F(bo, mmap_no_mmap_flag)
{
	uint32_t handle = weave_test_bo(_metadata, self->fd, self->page,
					DRM_WEAVE_BO_NO_MMAP);
	uint64_t offset;

	ASSERT_EQ(-EPERM, weave_bo_mmap_offset(self->fd, handle, &offset));
	weave_test_close_bo(_metadata, self->fd, handle);
}

TEST_F(bo, create_zero_size)
{
	ASSERT_EQ(-EINVAL, create(self->fd, 0, 0));
}

TEST_F(bo, create_over_max_bo_size)
{
	uint64_t size = self->info.max_bo_size + self->page;

	ASSERT_LT(self->info.max_bo_size, size);
	ASSERT_EQ(-E2BIG, create(self->fd, size, 0));
}

/* One byte over a page-aligned limit still rounds up past it. */
TEST_F(bo, create_max_bo_size_plus_one)
{
	uint64_t size = self->info.max_bo_size / self->page * self->page + 1;

	ASSERT_EQ(-E2BIG, create(self->fd, size, 0));
}

/* Rounding UINT64_MAX up must not wrap around to a small size. */
TEST_F(bo, create_u64_max)
{
	ASSERT_EQ(-E2BIG, create(self->fd, UINT64_MAX, 0));
}

TEST_F(bo, create_unknown_flags)
{
	ASSERT_EQ(-EINVAL, create(self->fd, self->page, ~DRM_WEAVE_BO_FLAGS));
}

/* Each unknown flag on its own is rejected too. */
TEST_F(bo, create_each_unknown_flag)
{
	unsigned int bit;

	for (bit = 0; bit < 32; bit++) {
		if (DRM_WEAVE_BO_FLAGS & (1u << bit))
			continue;
		ASSERT_EQ(-EINVAL, create(self->fd, self->page, 1u << bit)) {
			TH_LOG("flag bit %u", bit);
		}
	}
}

TEST_F(bo, create_bad_argument)
{
	ASSERT_EQ(-EFAULT, weave_test_ioctl(self->fd,
					    DRM_IOCTL_WEAVE_BO_CREATE,
					    WEAVE_TEST_BAD_PTR));
}

TEST_F(bo, mmap_offset_nonzero_pad)
{
	uint32_t handle = weave_test_bo(_metadata, self->fd, self->page, 0);
	struct drm_weave_bo_mmap_offset args = {
		.handle = handle,
		.pad = 1,
	};

	ASSERT_EQ(-EINVAL, weave_test_ioctl(self->fd,
					    DRM_IOCTL_WEAVE_BO_MMAP_OFFSET,
					    &args));
	weave_test_close_bo(_metadata, self->fd, handle);
}

TEST_F(bo, mmap_offset_bad_handle)
{
	uint64_t offset;

	ASSERT_EQ(-ENOENT, weave_bo_mmap_offset(self->fd,
						WEAVE_TEST_BAD_HANDLE,
						&offset));
}

TEST_F(bo, mmap_offset_handle_zero)
{
	uint64_t offset;

	ASSERT_EQ(-ENOENT, weave_bo_mmap_offset(self->fd, 0, &offset));
}

TEST_F(bo, mmap_offset_closed_handle)
{
	uint32_t handle = weave_test_bo(_metadata, self->fd, self->page, 0);
	uint64_t offset;

	weave_test_close_bo(_metadata, self->fd, handle);
	ASSERT_EQ(-ENOENT, weave_bo_mmap_offset(self->fd, handle, &offset));
}

TEST_F(bo, mmap_offset_bad_argument)
{
	ASSERT_EQ(-EFAULT, weave_test_ioctl(self->fd,
					    DRM_IOCTL_WEAVE_BO_MMAP_OFFSET,
					    WEAVE_TEST_BAD_PTR));
}

/* DRM core: a mapping longer than the buffer matches no object. */
TEST_F(bo, mmap_longer_than_buffer)
{
	uint32_t handle = weave_test_bo(_metadata, self->fd, self->page, 0);
	void *ptr;

	ASSERT_EQ(-EINVAL, weave_bo_mmap(self->fd, handle, 2 * self->page,
					 PROT_READ | PROT_WRITE, &ptr));
	weave_test_close_bo(_metadata, self->fd, handle);
}

TEST_F(bo, gem_close_twice)
{
	uint32_t handle = weave_test_bo(_metadata, self->fd, self->page, 0);

	ASSERT_EQ(0, weave_bo_close(self->fd, handle));
	ASSERT_EQ(-EINVAL, weave_bo_close(self->fd, handle));
}

TEST_F(bo, gem_close_bad_handle)
{
	ASSERT_EQ(-EINVAL, weave_bo_close(self->fd, WEAVE_TEST_BAD_HANDLE));
}

/* A mapping outlives its handle: the buffer lives until munmap(). */
TEST_F(bo, mapping_keeps_buffer_alive)
{
	struct drm_weave_memory_usage base = weave_test_usage(_metadata,
							      self->fd);
	size_t size = 2 * self->page;
	uint32_t handle = weave_test_bo(_metadata, self->fd, size, 0);
	void *map = weave_test_map(_metadata, self->fd, handle, size);

	weave_test_fill(map, size, 77);
	weave_test_close_bo(_metadata, self->fd, handle);
	weave_test_assert_usage(_metadata, self->fd, &base, 1, size);
	ASSERT_EQ(size, weave_test_check(map, size, 77));
	weave_test_unmap(_metadata, map, size);
	weave_test_assert_usage(_metadata, self->fd, &base, 0, 0);
}

/* Sizes of the many-buffers test: 1 to 4 pages. */
static uint64_t many_size(uint64_t page, int i)
{
	return (1 + i % 4) * page;
}

/* Many buffers, alive at once, each mapped and touched, then freed. */
TEST_F_TIMEOUT(bo, many_buffers, 120)
{
	struct drm_weave_memory_usage base = weave_test_usage(_metadata,
							      self->fd);
	uint32_t *handles = calloc(MANY_BOS, sizeof(*handles));
	uint64_t bytes = 0, size;
	uint32_t *map;
	int i;

	ASSERT_NE(NULL, handles);
	for (i = 0; i < MANY_BOS; i++) {
		size = many_size(self->page, i);
		handles[i] = weave_test_bo(_metadata, self->fd, size, 0);
		map = weave_test_map(_metadata, self->fd, handles[i], size);
		ASSERT_EQ(0u, map[0]);
		map[0] = i;
		weave_test_unmap(_metadata, map, size);
		bytes += size;
	}
	weave_test_assert_usage(_metadata, self->fd, &base, MANY_BOS, bytes);

	for (i = 0; i < MANY_BOS; i++) {
		size = many_size(self->page, i);
		map = weave_test_map(_metadata, self->fd, handles[i], size);
		ASSERT_EQ((uint32_t)i, map[0]);
		weave_test_unmap(_metadata, map, size);
		weave_test_close_bo(_metadata, self->fd, handles[i]);
	}
	weave_test_assert_usage(_metadata, self->fd, &base, 0, 0);
	free(handles);
}

/* Create, map, close in a loop: nothing accumulates. */
TEST_F_TIMEOUT(bo, create_close_loop, 120)
{
	struct drm_weave_memory_usage base = weave_test_usage(_metadata,
							      self->fd);
	uint32_t handle;
	void *map;
	int i;

	for (i = 0; i < MANY_BOS; i++) {
		handle = weave_test_bo(_metadata, self->fd, self->page, 0);
		map = weave_test_map(_metadata, self->fd, handle, self->page);
		weave_test_fill(map, self->page, i);
		weave_test_unmap(_metadata, map, self->page);
		weave_test_close_bo(_metadata, self->fd, handle);
	}
	weave_test_assert_usage(_metadata, self->fd, &base, 0, 0);
}

/* Closing a file frees the buffers it still holds. */
TEST_F(bo, close_fd_frees_buffers)
{
	struct drm_weave_memory_usage base = weave_test_usage(_metadata,
							      self->fd);
	size_t size = 3 * self->page;
	int fd2 = weave_test_open(_metadata);
	uint32_t handle;
	void *map;
	int i;

	for (i = 0; i < 8; i++) {
		handle = weave_test_bo(_metadata, fd2, size, 0);
		map = weave_test_map(_metadata, fd2, handle, size);
		weave_test_fill(map, size, i);
		weave_test_unmap(_metadata, map, size);
	}
	weave_test_assert_usage(_metadata, self->fd, &base, 8, 8 * size);
	ASSERT_EQ(0, weave_device_close(fd2));
	weave_test_assert_usage(_metadata, self->fd, &base, 0, 0);
}

/* A mapping keeps the file, and so its buffers, until munmap(). */
TEST_F(bo, close_fd_with_live_mapping)
{
	struct drm_weave_memory_usage base = weave_test_usage(_metadata,
							      self->fd);
	size_t size = self->page;
	int fd2 = weave_test_open(_metadata);
	uint32_t handle = weave_test_bo(_metadata, fd2, size, 0);
	void *map = weave_test_map(_metadata, fd2, handle, size);

	weave_test_fill(map, size, 5);
	ASSERT_EQ(0, weave_device_close(fd2));
	weave_test_assert_usage(_metadata, self->fd, &base, 1, size);
	ASSERT_EQ(size, weave_test_check(map, size, 5));
	weave_test_unmap(_metadata, map, size);
	weave_test_assert_usage(_metadata, self->fd, &base, 0, 0);
}

/*
 * Runs in a child: creates buffers on a file of its own, maps one, checks
 * they are counted, and exits without closing or unmapping anything.
 * Returns the exit status; 0 if all went well.
 */
static int leaky_child(const struct drm_weave_memory_usage *base,
		       uint64_t page)
{
	struct drm_weave_memory_usage usage;
	uint32_t handle;
	void *map;
	int fd, i;

	fd = weave_device_open(0);
	if (fd < 0)
		return 10;
	for (i = 0; i < 16; i++)
		if (create(fd, page, 0))
			return 11;
	if (weave_bo_create(fd, &page, 0, &handle))
		return 12;
	if (weave_bo_mmap(fd, handle, page, PROT_READ | PROT_WRITE, &map))
		return 13;
	memset(map, 1, page);
	if (weave_query_memory_usage(fd, &usage) ||
	    usage.live_bos != base->live_bos + 17 ||
	    usage.live_bytes != base->live_bytes + 17 * page)
		return 14;
	return 0;
}

/* A process that dies with live buffers and mappings leaks nothing. */
TEST_F(bo, exit_frees_buffers)
{
	struct drm_weave_memory_usage base = weave_test_usage(_metadata,
							      self->fd);
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(leaky_child(&base, self->page));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("child failed at step %d", WEXITSTATUS(status));
	}
	weave_test_assert_usage(_metadata, self->fd, &base, 0, 0);
}

TEST_HARNESS_MAIN
