/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the weave kselftest suites.
 *
 * Every helper that can fail takes the harness's _metadata and fails the
 * running test with ASSERT_*, so a suite reads as the list of things it
 * checks.  A missing weave device is a failure, never a skip: these suites
 * only run where weave.ko is expected to be loaded.
 */
#ifndef _WEAVE_TEST_H_
#define _WEAVE_TEST_H_

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

#endif /* _WEAVE_TEST_H_ */
