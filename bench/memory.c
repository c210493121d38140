// SPDX-License-Identifier: MIT
/*
 * weave-bench: the kernel memory per pending noop task, from the client
 * usage query, with the tasks left queued below the threshold.
 */
#include "bench.h"

/*
 * On a fresh file with the device's largest threshold, queues @per_ring noop
 * tasks on each of up to max_streams streams, one per slot, so that none
 * executes, and reads the file's usage.  Returns 0 or a negative errno.
 */
static int pending_usage(const struct drm_weave_device_info *info,
			 uint32_t per_ring, struct drm_weave_client_usage *usage)
{
	uint32_t nstreams = info->max_streams, stream, i, n;
	struct drm_weave_task noop[64];
	int fd, ret;

	if (nstreams > info->max_client_streams)
		nstreams = info->max_client_streams;
	if ((uint64_t)nstreams * per_ring > info->max_pending_tasks)
		nstreams = info->max_pending_tasks / per_ring;
	fd = weave_device_open(0);
	if (fd < 0)
		return fd;
	for (i = 0; i < 64; i++)
		weave_task_launch(&noop[i], DRM_WEAVE_KERNEL_NOOP, NULL, 0,
				  NULL, 0);
	ret = weave_set_param(fd, DRM_WEAVE_PARAM_MAX_TASKS, info->max_tasks);
	for (i = 0; !ret && i < nstreams; i++) {
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL,
					  &stream);
		for (n = 0; !ret && n < per_ring; n += 64)
			ret = weave_enqueue(fd, stream, noop,
					    per_ring - n < 64 ? per_ring - n : 64,
					    NULL, 0, NULL);
	}
	if (!ret)
		ret = weave_query_client_usage(fd, usage);
	if (!ret && usage->queued_tasks != (uint64_t)nstreams * per_ring)
		ret = -EPROTO;	/* something executed */
	weave_device_close(fd);
	return ret;
}

/*
 * Prints "NAME VALUE" for @per_ring tasks per ring, and the details; sets
 * @bytes to VALUE (0 if there is none).
 */
static int print_bytes_per_task(const struct drm_weave_device_info *info,
				const char *name, uint32_t per_ring,
				double *bytes)
{
	struct drm_weave_client_usage usage;
	int ret;

	*bytes = 0;
	memset(&usage, 0, sizeof(usage));
	ret = pending_usage(info, per_ring, &usage);
	if (ret || !usage.pending_tasks) {
		printf("%s n/a (%s)\n", name,
		       ret ? strerror(-ret) : "no pending task");
		return ret;
	}
	*bytes = (double)usage.kernel_bytes / usage.pending_tasks;
	printf("%s %.0f\n", name, *bytes);
	printf("client_usage %s pending_tasks %llu streams %llu max_tasks %u kernel_bytes %llu ring_bytes %llu job_bytes %llu staged_bytes %llu\n",
	       name, (unsigned long long)usage.pending_tasks,
	       (unsigned long long)usage.streams, info->max_tasks,
	       (unsigned long long)usage.kernel_bytes,
	       (unsigned long long)usage.ring_bytes,
	       (unsigned long long)usage.job_bytes,
	       (unsigned long long)usage.staged_bytes);
	return 0;
}

/*
 * Rings are allocated whole, so the figure depends on how full they are:
 * half full, then max_tasks - 1 per ring, the most that stays queued.
 * Sets @bytes_per_task to the larger of the two (0 if there is none).
 * Returns 1 if a measurement failed, else 0.
 */
int print_memory(const struct drm_weave_device_info *info,
		 double *bytes_per_task)
{
	double half = 0, full = 0;
	int failed = 0;

	*bytes_per_task = 0;
	if (info->max_tasks < 2) {
		printf("kernel_bytes_per_pending_task n/a (max_tasks %u executes every task)\n",
		       info->max_tasks);
		return 0;
	}
	if (print_bytes_per_task(info, "kernel_bytes_per_pending_task",
				 info->max_tasks / 2, &half))
		failed = 1;
	if (info->max_tasks - 1 != info->max_tasks / 2 &&
	    print_bytes_per_task(info,
				 "kernel_bytes_per_pending_task_rings_full",
				 info->max_tasks - 1, &full))
		failed = 1;
	*bytes_per_task = half > full ? half : full;
	return failed;
}
