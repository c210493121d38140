// SPDX-License-Identifier: GPL-2.0-only
/*
 * Measures the executor on this host, for Documentation/weave-engine.rst:
 * device creation, the first dispatch (the JIT), a pipeline cache hit, a
 * submit and wait per job and per dispatch, and SAXPY over 1 Mi floats.
 * Not a test: it prints times and asserts nothing.
 *
 * Usage: wvk-measure SHADER_DIR [JOBS]  (LP_NUM_THREADS as the caller sets
 * it; MESA_SHADER_CACHE_DISABLE=true for a cold JIT)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "wvk.h"

#define N_SMALL	64u
#define N_BIG	(1u << 20)

static double ms(uint64_t from)
{
	return (double)(wvk_now_ns() - from) / 1e6;
}

static void *load(const char *dir, const char *name, size_t *size)
{
	char path[4096];
	void *data;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.spv", dir, name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	data = malloc(1 << 20);
	*size = data ? fread(data, 1, 1 << 20, f) : 0;
	fclose(f);
	return data;
}

static void *region(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int run(struct wvk_device *dev, const struct wvk_task *t, uint32_t n)
{
	struct wvk_job *job;
	int ret = wvk_job_submit(dev, t, n, &job);

	if (ret)
		return ret;
	ret = wvk_job_wait(job, wvk_now_ns() + 60000000000ull);
	if (!ret)
		ret = wvk_job_free(job);
	return ret;
}

int main(int argc, char **argv)
{
	struct wvk_device_opts o = { .index = -1,
				     .lp_num_threads = WVK_LP_THREADS_KEEP };
	struct { float a; uint32_t n; } push = { 2.0f, N_SMALL };
	static struct wvk_task tasks[WVK_TASKS_MAX];
	static struct wvk_binding bs[WVK_TASKS_MAX][2];
	int jobs = argc > 2 ? atoi(argv[2]) : 1000;
	struct wvk_pipeline *p, *again;
	struct wvk_buffer *xb, *yb;
	struct wvk_device *dev;
	struct wvk_binding b[2];
	const char *lp = getenv("LP_NUM_THREADS");
	size_t size = 0;
	void *spv, *x, *y;
	uint64_t t0;
	int i, ret;

	spv = argc < 2 ? NULL : load(argv[1], "saxpy", &size);
	if (!spv) {
		fprintf(stderr, "usage: wvk-measure SHADER_DIR [JOBS]\n");
		return 2;
	}
	printf("LP_NUM_THREADS=%s\n", lp ? lp : "(unset)");
	t0 = wvk_now_ns();
	ret = wvk_device_create(&o, &dev);
	if (ret) {
		fprintf(stderr, "wvk_device_create: %s\n", wvk_error());
		return 1;
	}
	printf("instance and device: %.2f ms (%s)\n", ms(t0),
	       wvk_device_info(dev)->name);
	t0 = wvk_now_ns();
	ret = wvk_pipeline_get(dev, spv, size, "main", 2, &p);
	printf("pipeline (validation, creation): %.2f ms\n", ms(t0));
	t0 = wvk_now_ns();
	ret |= wvk_pipeline_get(dev, spv, size, "main", 2, &again);
	printf("pipeline again (in-memory hit): %.1f us\n", ms(t0) * 1000);
	x = region(N_BIG * 4);
	y = region(N_BIG * 4);
	if (ret || !x || !y ||
	    wvk_buffer_register(dev, x, N_BIG * 4, &xb) ||
	    wvk_buffer_register(dev, y, N_BIG * 4, &yb)) {
		fprintf(stderr, "set-up: %s\n", wvk_error());
		return 1;
	}
	b[0] = (struct wvk_binding) { xb, 0, N_SMALL * 4, WVK_READ };
	b[1] = (struct wvk_binding) { yb, 0, N_SMALL * 4, WVK_RW };
	tasks[0] = (struct wvk_task) { p, { 1, 1, 1 }, &push, sizeof(push),
				       b, 2 };
	t0 = wvk_now_ns();
	ret = run(dev, tasks, 1);
	printf("first dispatch (JIT), %u floats: %.2f ms\n", N_SMALL, ms(t0));
	t0 = wvk_now_ns();
	for (i = 0; i < jobs && !ret; i++)
		ret = run(dev, tasks, 1);
	printf("submit and wait, one dispatch a job: %.1f us a job (%d jobs)\n",
	       ms(t0) * 1000 / jobs, jobs);
	/* Independent dispatches in one job, each on its own bytes of y. */
	for (i = 0; i < (int)WVK_TASKS_MAX; i++) {
		bs[i][0] = b[0];
		bs[i][1] = b[1];
		bs[i][1].offset = (uint64_t)i * N_SMALL * 4;
		tasks[i] = tasks[0];
		tasks[i].bindings = bs[i];
	}
	t0 = wvk_now_ns();
	for (i = 0; i < 10 && !ret; i++)
		ret = run(dev, tasks, WVK_TASKS_MAX);
	printf("dispatches inside one job of %u: %.1f us a dispatch\n",
	       WVK_TASKS_MAX, ms(t0) * 1000 / (10 * WVK_TASKS_MAX));
	b[0].size = N_BIG * 4;
	b[1].size = N_BIG * 4;
	tasks[0].bindings = b;
	push.n = N_BIG;
	tasks[0].groups[0] = N_BIG / 64;
	t0 = wvk_now_ns();
	if (!ret)
		ret = run(dev, tasks, 1);
	printf("SAXPY over %u floats: %.2f ms\n", N_BIG, ms(t0));
	if (ret)
		fprintf(stderr, "failed: %d %s\n", ret, wvk_error());
	wvk_buffer_free(xb);
	wvk_buffer_free(yb);
	wvk_device_destroy(dev);
	return ret ? 1 : 0;
}
