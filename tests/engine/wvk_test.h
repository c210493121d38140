/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers the executor's tests share: the compiled shaders found beside the
 * test program, page-aligned regions, a device for each test, and buffers
 * registered from regions.
 */
#ifndef _WVK_TEST_H_
#define _WVK_TEST_H_

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wvk.h"

/* The harness's TEST() has an unused parameter; -Wextra is otherwise kept. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"

#define WVK_PAGE	4096u
#define WVK_SEC		1000000000ull

/* The bytes of build/engine/shaders/NAME.spv, beside tests/; NULL if none. */
static inline void *wvk_test_spirv(const char *name, size_t *size)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	void *data = NULL;
	FILE *f;
	long len;

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	snprintf(path, sizeof(path), "%s/../shaders/%s.spv", dirname(exe),
		 name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	len = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	if (len > 0 && !fseek(f, 0, SEEK_SET)) {
		data = malloc((size_t)len);
		if (data && fread(data, 1, (size_t)len, f) != (size_t)len) {
			free(data);
			data = NULL;
		}
		*size = (size_t)len;
	}
	fclose(f);
	return data;
}

/* A zeroed, page-aligned region of at least @bytes, rounded to pages. */
static inline void *wvk_test_region(size_t bytes, size_t *size)
{
	void *p;

	*size = (bytes + WVK_PAGE - 1) / WVK_PAGE * WVK_PAGE;
	p = mmap(NULL, *size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* A device as the daemon opens it; NULL (and the reason printed) if none. */
static inline struct wvk_device *wvk_test_device(bool staging)
{
	struct wvk_device_opts o = {
		.index = -1,
		.lp_num_threads = WVK_LP_THREADS_KEEP,
		.force_staging = staging,
	};
	struct wvk_device *dev = NULL;
	int ret = wvk_device_create(&o, &dev);

	if (ret)
		fprintf(stderr, "# wvk_device_create: %d: %s\n", ret,
			wvk_error());
	return dev;
}

/* A pipeline of a shader of build/engine/shaders; NULL if it fails. */
static inline struct wvk_pipeline *wvk_test_pipeline(struct wvk_device *dev,
						     const char *shader,
						     uint32_t nbindings)
{
	struct wvk_pipeline *p = NULL;
	size_t size = 0;
	void *spv = wvk_test_spirv(shader, &size);
	int ret;

	if (!spv) {
		fprintf(stderr, "# no shader %s.spv\n", shader);
		return NULL;
	}
	ret = wvk_pipeline_get(dev, spv, size, "main", nbindings, &p);
	if (ret)
		fprintf(stderr, "# wvk_pipeline_get(%s): %d: %s\n", shader,
			ret, wvk_error());
	free(spv);
	return p;
}

/* A binding of the first @bytes of @buf. */
static inline struct wvk_binding wvk_bind(struct wvk_buffer *buf,
					  uint64_t offset, uint64_t bytes,
					  uint32_t access)
{
	return (struct wvk_binding) {
		.buf = buf, .offset = offset, .size = bytes, .access = access,
	};
}

/* Submits @tasks and waits for them for at most a minute. */
static inline int wvk_test_run(struct wvk_device *dev,
			       const struct wvk_task *tasks, uint32_t n,
			       uint32_t *barriers)
{
	struct wvk_job *job = NULL;
	int ret;

	ret = wvk_job_submit(dev, tasks, n, &job);
	if (ret) {
		fprintf(stderr, "# wvk_job_submit: %d: %s\n", ret, wvk_error());
		return ret;
	}
	ret = wvk_job_wait(job, wvk_now_ns() + 60 * WVK_SEC);
	if (ret)
		fprintf(stderr, "# wvk_job_wait: %d: %s\n", ret, wvk_error());
	if (barriers)
		*barriers = wvk_job_barriers(job);
	if (!ret)
		ret = wvk_job_free(job);
	return ret;
}

#endif /* _WVK_TEST_H_ */
