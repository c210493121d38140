// SPDX-License-Identifier: MIT
/*
 * weave-bench: the cost of failure tracking, with a tenth of the buffers
 * carrying a failure the tasks do not touch.
 */
#include "bench.h"

/* Buffers and tasks of the failure-tracking measurement. */
#define TAINT_BUFFERS	64
#define TAINT_TASKS	16384

/* Whether @size bytes at @off of @bo carry exactly @want failures. */
static int taint_expect(int fd, uint32_t bo, uint64_t off, uint64_t size,
			uint32_t want)
{
	struct drm_weave_check_range r = {
		.handle = bo, .offset = off, .size = size,
	};
	struct drm_weave_failure f[2];
	struct drm_weave_check c = {
		.ranges = { (uintptr_t)&r, sizeof(r), 1 },
		.failures = { (uintptr_t)f, sizeof(f[0]), 2 },
	};

	if (drmIoctl(fd, DRM_IOCTL_WEAVE_CHECK, &c) && errno != ENOSPC)
		return -errno;
	return r.nfailures == want ? 0 : -EPROTO;
}

/*
 * One run of the failure-tracking measurement, with a tenth of the buffers
 * tainted or none; sets @ns, the time per task.  Returns 0 or a negative
 * errno.
 */
static int taint_run(const struct drm_weave_device_info *info, bool tainted,
		     double *ns)
{
	uint64_t size = info->page_size, q = size / 4;
	struct drm_weave_task fill[64], fail;
	struct drm_weave_binding bind[64], half;
	uint32_t bos[TAINT_BUFFERS] = { 0 };
	uint32_t stream = 0, syncobj = 0, pattern = 0x5eed, eio = EIO, i, done;
	double start;
	int fd, ret;

	fd = weave_device_open(0);
	if (fd < 0)
		return fd;
	ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &stream);
	if (!ret && drmSyncobjCreate(fd, 0, &syncobj))
		ret = -errno;
	for (i = 0; !ret && i < TAINT_BUFFERS; i++)
		ret = weave_bo_create(fd, &size, 0, &bos[i]);
	/* Untimed: a FAIL taints the second half of every tenth buffer. */
	for (i = 0; !ret && tainted && i < TAINT_BUFFERS; i += 10) {
		half = weave_binding(bos[i], DRM_WEAVE_ACCESS_WRITE, size / 2,
				     size / 2);
		weave_task_launch(&fail, DRM_WEAVE_KERNEL_FAIL, &half, 1, &eio,
				  sizeof(eio));
		ret = weave_enqueue(fd, stream, &fail, 1, NULL, 0, NULL);
	}
	if (!ret)
		ret = drain(fd, syncobj);

	start = now_ns();
	for (done = 0; !ret && done < TAINT_TASKS; done += 64) {
		for (i = 0; i < 64; i++) {
			bind[i] = weave_binding(bos[(done + i) % TAINT_BUFFERS],
						DRM_WEAVE_ACCESS_WRITE, 0, q);
			weave_task_launch(&fill[i], DRM_WEAVE_KERNEL_FILL,
					  &bind[i], 1, &pattern,
					  sizeof(pattern));
		}
		ret = weave_enqueue(fd, stream, fill, 64, NULL, 0, NULL);
	}
	if (!ret)
		ret = drain(fd, syncobj);
	if (!ret)
		*ns = (now_ns() - start) / TAINT_TASKS;
	/* Untimed: the taints are where they were put, and only there. */
	if (!ret)
		ret = taint_expect(fd, bos[0], 0, size / 2, 0);
	if (!ret)
		ret = taint_expect(fd, bos[0], size / 2, size / 2, tainted);
	if (!ret)
		ret = taint_expect(fd, bos[1], 0, size, 0);
	weave_device_close(fd);
	return ret;
}

/* Prints the failure-tracking figures; returns 0 or a negative errno. */
int print_taint_ratio(const struct drm_weave_device_info *info)
{
	double clean[ROUNDS], dirty[ROUNDS], r[ROUNDS];
	unsigned int k;
	int err = 0;

	for (k = 0; !err && k < ROUNDS; k++) {
		err = taint_run(info, false, &clean[k]);
		if (!err)
			err = taint_run(info, true, &dirty[k]);
		r[k] = ratio(dirty[k], clean[k]);
	}
	if (err) {
		printf("taints error %s\n", strerror(-err));
		return err;
	}
	printf("taints buffers %u tainted %u tasks %u ns_per_task_clean %.0f ns_per_task_tainted %.0f\n",
	       TAINT_BUFFERS, (TAINT_BUFFERS + 9) / 10, TAINT_TASKS,
	       median(clean, ROUNDS), median(dirty, ROUNDS));
	print_ratio("taints_tenth_vs_clean", median(r, ROUNDS),
		    (struct target){ '~', 1 });
	return 0;
}
