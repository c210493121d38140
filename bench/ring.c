// SPDX-License-Identifier: MIT
/*
 * weave-bench: noop tasks through a shared ring of poll mode, and the
 * doorbells its producer had to ring.
 */
#include <sched.h>

#include "bench.h"

/* Tasks a producer publishes at once, and the ring's units (32 batches). */
#define RING_BATCH	64
#define RING_UNITS	4096

/*
 * Waits until the kernel consumed all @r published, ringing the doorbell
 * only when the header asks (counted in @entered).  Returns 0, the ring's
 * error or the doorbell's.
 */
static int ring_settle(struct weave_ring *r, uint32_t *entered)
{
	int ret = 0;

	while (!ret && weave_ring_head(r) != r->tail) {
		ret = weave_ring_error(r, NULL);
		if (!ret)
			ret = weave_ring_wakeup(r, entered);
		sched_yield();
	}
	return ret ? ret : weave_ring_error(r, NULL);
}

/* Reserves and publishes one batch of noops; returns 0 or an error. */
static int ring_batch(struct weave_ring *r, uint32_t *entered)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < RING_BATCH; i++) {
		/* No room: the thread is behind, or asleep (the flag says). */
		while (!ret && weave_ring_noop(r)) {
			ret = weave_ring_error(r, NULL);
			if (!ret)
				ret = weave_ring_wakeup(r, entered);
			sched_yield();
		}
	}
	return ret ? ret : weave_ring_submit(r, entered);
}

/*
 * The time per noop task published @RING_BATCH at a time on a ring of
 * poll mode, until the file's work is done, as run() times ENQUEUE's;
 * adds the doorbells rung in that steady state (the warm-up's not) to
 * *@entered.  Returns ns per task, or -1 with *@err set.
 */
double ring_task_ns(const struct drm_weave_device_info *info, uint32_t tasks,
		    uint32_t *entered, int *err)
{
	uint32_t stream, syncobj = 0, warm = 0, done = 0;
	struct weave_ring r;
	double start, elapsed = -1;
	int fd, ret;

	fd = weave_device_open(0);
	if (fd < 0) {
		*err = fd;
		return -1;
	}
	ret = drmSyncobjCreate(fd, 0, &syncobj) ? -errno : 0;
	if (!ret)
		ret = weave_set_param(fd, DRM_WEAVE_PARAM_MAX_TASKS,
				      info->max_tasks);
	if (!ret)
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL,
					  &stream);
	if (!ret)
		ret = weave_ring_create_flags(fd, stream, RING_UNITS,
					      DRM_WEAVE_RING_CREATE_POLL, &r);
	if (ret) {
		weave_device_close(fd);
		*err = ret;
		return -1;
	}
	/* Warm up: the slot, and the thread woken. */
	ret = ring_batch(&r, &warm);
	if (!ret)
		ret = ring_settle(&r, &warm);
	if (!ret)
		ret = drain(fd, syncobj);

	/*
	 * Timed, but its doorbell is the warm-up's: the thread may have
	 * gone to sleep during the drain, which is no steady state.
	 */
	start = now_ns();
	if (!ret)
		ret = ring_batch(&r, &warm);
	for (done = RING_BATCH; !ret && done < tasks; done += RING_BATCH)
		ret = ring_batch(&r, entered);
	if (!ret)
		ret = ring_settle(&r, entered);
	if (!ret)
		ret = drain(fd, syncobj);
	if (!ret)
		elapsed = (now_ns() - start) / done;
	/* Untimed: the stream completed its work without an error. */
	if (!ret)
		ret = weave_wait(fd, stream, 0);
	weave_ring_destroy(&r);
	weave_device_close(fd);
	*err = ret;
	return ret ? -1 : elapsed;
}

/*
 * One measurement of @tasks noop tasks through a ring of poll mode, for
 * a profile.  Returns 0, or 1 on an error.
 */
int print_ring_one(const struct drm_weave_device_info *info, uint32_t tasks)
{
	uint32_t entered = 0;
	double ns;
	int err;

	ns = ring_task_ns(info, tasks, &entered, &err);
	if (ns < 0) {
		printf("ring error %s\n", strerror(-err));
		return 1;
	}
	printf("ring tasks %u ns_per_task %.0f doorbells %u\n", tasks, ns,
	       entered);
	return 0;
}
