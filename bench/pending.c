// SPDX-License-Identifier: MIT
/*
 * weave-bench: the cost of a task against the jobs already pending on its
 * buffer, behind a gate.
 */
#include "bench.h"

/* The longest DELAY the uAPI accepts, in microseconds. */
#define WEAVE_BENCH_MAX_DELAY_US	60000000u

/* Tasks each window of the pending-jobs measurement times. */
#define PENDING_WINDOW	1024
/* Jobs pending on the buffer at the end of it, at most. */
#define PENDING_JOBS	(64 * 1024)
/* Windows timed at each end, of which the median counts. */
#define PENDING_SPAN	5
/* How long the gate holds the jobs back, at least, in ms. */
#define PENDING_GATE_MS	60000

/*
 * Make @gfd's work hold a fence back for at least @ms: DELAY jobs of half
 * the job timeout each, so none is cut short, flushed one at a time.  The
 * fence of the last is imported into a new syncobj @obj of @fd.  Closing
 * @gfd cancels the delays and signals the fence.
 */
static int hold_fence(const struct drm_weave_device_info *info, int fd,
		      int gfd, uint32_t ms, uint32_t *obj)
{
	uint32_t stream = 0, gobj = 0, us, n, i;
	struct drm_weave_task delay;
	struct drm_weave_sync out;
	int sfd = -1, ret;

	us = info->job_timeout_ms * 500;
	if (us > WEAVE_BENCH_MAX_DELAY_US)
		us = WEAVE_BENCH_MAX_DELAY_US;
	n = ms / (us / 1000) + 1;
	weave_task_launch(&delay, DRM_WEAVE_KERNEL_DELAY, NULL, 0, &us,
			  sizeof(us));
	ret = weave_stream_create(gfd, DRM_WEAVE_PRIORITY_NORMAL, &stream);
	if (!ret && drmSyncobjCreate(gfd, 0, &gobj))
		ret = -errno;
	for (i = 0; !ret && i < n; i++) {
		ret = weave_enqueue(gfd, stream, &delay, 1, NULL, 0, NULL);
		if (!ret)
			ret = weave_flush(gfd, stream, NULL);
	}
	out = weave_sync(gobj, 0);
	if (!ret)
		ret = weave_flush(gfd, stream, &out);
	if (!ret && drmSyncobjExportSyncFile(gfd, gobj, &sfd))
		ret = -errno;
	if (!ret && drmSyncobjCreate(fd, 0, obj))
		ret = -errno;
	if (!ret && drmSyncobjImportSyncFile(fd, *obj, sfd))
		ret = -errno;
	if (sfd >= 0)
		close(sfd);
	return ret;
}

/*
 * The pending-jobs measurement: enqueues up to PENDING_JOBS one-task jobs
 * writing one buffer behind a gate, timing each window of PENDING_WINDOW
 * tasks, and sets @ns_1k and @ns_64k, the time per task of the median of
 * the PENDING_SPAN windows after the first (about 1k to 6k jobs pending)
 * and of the last PENDING_SPAN windows (about 60k to 64k).  One window
 * that the host slowed down then changes neither.  Returns 0, or a
 * negative errno: -ETIME if the gate opened before the end (the jobs were
 * not all pending).
 */
static int pending_jobs(const struct drm_weave_device_info *info,
			uint32_t *jobs, double *ns_1k, double *ns_64k)
{
	uint32_t stream = 0, bo = 0, gate = 0, syncobj = 0, pattern = 0, i, n;
	double t[PENDING_JOBS / PENDING_WINDOW + 1] = { 0 };
	double early[PENDING_SPAN], late[PENDING_SPAN];
	struct drm_weave_binding bind;
	uint64_t size = info->page_size;
	struct drm_weave_task fill;
	struct drm_weave_sync in;
	uint32_t w, nw;
	int fd, gfd, ret;

	n = PENDING_JOBS;
	if (n > info->max_pending_tasks - 1)
		n = info->max_pending_tasks - 1;
	nw = n / PENDING_WINDOW;
	if (nw < 2 * PENDING_SPAN + 1)
		return -E2BIG;
	n = nw * PENDING_WINDOW;
	*jobs = n;
	fd = weave_device_open(0);
	if (fd < 0)
		return fd;
	gfd = weave_device_open(0);
	if (gfd < 0) {
		weave_device_close(fd);
		return gfd;
	}
	ret = weave_set_param(fd, DRM_WEAVE_PARAM_MAX_TASKS, 1);
	if (!ret)
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL,
					  &stream);
	if (!ret)
		ret = weave_bo_create(fd, &size, 0, &bo);
	if (!ret && drmSyncobjCreate(fd, 0, &syncobj))
		ret = -errno;
	if (!ret)
		ret = hold_fence(info, fd, gfd, PENDING_GATE_MS, &gate);
	bind = weave_binding(bo, DRM_WEAVE_ACCESS_WRITE, 0, size);
	weave_task_launch(&fill, DRM_WEAVE_KERNEL_FILL, &bind, 1, &pattern,
			  sizeof(pattern));
	in = weave_sync(gate, 0);
	if (!ret)
		ret = weave_enqueue(fd, stream, &fill, 1, &in, 1, NULL);
	for (i = 1; !ret && i < n; i++) {
		if (i % PENDING_WINDOW == 0)
			t[i / PENDING_WINDOW - 1] = now_ns();
		ret = weave_enqueue(fd, stream, &fill, 1, NULL, 0, NULL);
	}
	t[nw - 1] = now_ns();
	/* Everything timed was pending: the gate still holds. */
	if (!ret && !drmSyncobjWait(fd, &gate, 1, 0, 0, NULL))
		ret = -ETIME;
	/* t[k] was taken with (k + 1) windows enqueued; the first untimed. */
	for (w = 0; !ret && w < PENDING_SPAN; w++) {
		early[w] = (t[w + 1] - t[w]) / PENDING_WINDOW;
		late[w] = (t[nw - 1 - w] - t[nw - 2 - w]) / PENDING_WINDOW;
	}
	if (!ret) {
		*ns_1k = median(early, PENDING_SPAN);
		*ns_64k = median(late, PENDING_SPAN);
	}
	/* Untimed: cancel the gate and let the jobs drain. */
	weave_device_close(gfd);
	if (syncobj)
		drain(fd, syncobj);
	weave_device_close(fd);
	return ret;
}

/* Prints the pending-jobs figures; returns 0 or a negative errno. */
int print_pending_ratio(const struct drm_weave_device_info *info)
{
	double ns_1k = 0, ns_64k = 0;
	uint32_t jobs = 0;
	int err;

	err = pending_jobs(info, &jobs, &ns_1k, &ns_64k);
	if (err == -ETIME) {
		printf("pending_jobs error: the gate (%u ms) opened first, machine too slow\n",
		       PENDING_GATE_MS);
		return err;
	} else if (err) {
		printf("pending_jobs error %s\n", strerror(-err));
		return err;
	}
	printf("pending_jobs %u window %u ns_per_task_1k %.0f ns_per_task_64k %.0f\n",
	       jobs, PENDING_WINDOW, ns_1k, ns_64k);
	print_ratio("pending_64k_vs_1k", ratio(ns_64k, ns_1k),
		    (struct target){ '<', 1.5 });
	return 0;
}
