// SPDX-License-Identifier: MIT
/*
 * weave-demo: a tour of libweave.
 *
 * Finds the first weave device, prints what it reports, creates a buffer,
 * writes a pattern through a mapping on one file, shares the buffer with a
 * second file through PRIME, reads the pattern back through a mapping there
 * and checks it.  Prints "weave-demo: OK" and exits 0 on success; prints
 * what failed and exits 1 otherwise.
 *
 * Usage: weave-demo [INDEX]    (INDEX: which weave device, default 0)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <weave.h>

#define DEMO_PAGES	16

static int fail(const char *what, int err)
{
	fprintf(stderr, "weave-demo: %s: %s\n", what, strerror(-err));
	return 1;
}

static uint32_t pattern(size_t i)
{
	return (uint32_t)i * 0x9e3779b9u ^ 0xfeedf00du;
}

/* The part after both files are open; the caller closes them. */
static int run_demo(int fd_a, int fd_b)
{
	struct drm_weave_memory_usage usage;
	struct drm_weave_device_info info;
	uint32_t handle_a, handle_b;
	uint32_t *map_a, *map_b, seen = 0;
	uint64_t size;
	int ret, dmabuf;
	size_t i, words;

	ret = weave_query_device_info(fd_a, &info);
	if (ret)
		return fail("query device info", ret);
	printf("uAPI %u.%u, max_bo_size %llu bytes, page_size %u bytes\n",
	       info.uapi_major, info.uapi_minor,
	       (unsigned long long)info.max_bo_size, info.page_size);

	ret = weave_query_memory_usage(fd_a, &usage);
	if (ret)
		return fail("query memory usage", ret);
	printf("memory usage: %llu buffers, %llu bytes\n",
	       (unsigned long long)usage.live_bos,
	       (unsigned long long)usage.live_bytes);

	size = (uint64_t)DEMO_PAGES * info.page_size;
	ret = weave_bo_create(fd_a, &size, 0, &handle_a);
	if (ret)
		return fail("create buffer", ret);
	printf("created buffer %u of %llu bytes\n", handle_a,
	       (unsigned long long)size);

	ret = weave_bo_mmap(fd_a, handle_a, size, PROT_READ | PROT_WRITE,
			    (void **)&map_a);
	if (ret)
		return fail("map buffer in the first file", ret);
	words = size / sizeof(*map_a);
	for (i = 0; i < words; i++)
		map_a[i] = pattern(i);
	weave_bo_munmap(map_a, size);

	ret = weave_bo_export(fd_a, handle_a, DRM_CLOEXEC, &dmabuf);
	if (ret)
		return fail("export buffer", ret);
	ret = weave_bo_import(fd_b, dmabuf, &handle_b);
	close(dmabuf);
	if (ret)
		return fail("import buffer into the second file", ret);
	weave_bo_close(fd_a, handle_a);
	printf("shared as buffer %u of the second file\n", handle_b);

	ret = weave_bo_mmap(fd_b, handle_b, size, PROT_READ, (void **)&map_b);
	if (ret)
		return fail("map buffer in the second file", ret);
	for (i = 0; i < words && map_b[i] == pattern(i); i++)
		;
	if (i != words)
		seen = map_b[i];
	weave_bo_munmap(map_b, size);
	weave_bo_close(fd_b, handle_b);
	if (i != words) {
		fprintf(stderr,
			"weave-demo: word %zu reads %#x through the second file, expected %#x\n",
			i, seen, pattern(i));
		return 1;
	}
	printf("read back %zu words through the second file\n", words);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int index = argc > 1 ? strtoul(argv[1], NULL, 0) : 0;
	int fd_a, fd_b, ret;

	fd_a = weave_device_open(index);
	if (fd_a < 0) {
		fprintf(stderr, "weave-demo: no weave device %u: %s (is weave.ko loaded?)\n",
			index, strerror(-fd_a));
		return 1;
	}
	fd_b = weave_device_open(index);
	if (fd_b < 0) {
		weave_device_close(fd_a);
		return fail("open the device a second time", fd_b);
	}
	printf("weave device %u of %d\n", index, weave_device_count());

	ret = run_demo(fd_a, fd_b);
	weave_device_close(fd_b);
	weave_device_close(fd_a);
	if (!ret)
		printf("weave-demo: OK\n");
	return ret;
}
