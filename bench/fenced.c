// SPDX-License-Identifier: MIT
/*
 * weave-bench: one-ioctl fenced submission (uAPI 1.8): a job of one noop
 * task as the issue defines it, and ENQUEUE with its flush flag against
 * ENQUEUE then FLUSH.
 */
#include "bench.h"

/* Submissions between two untimed waits in fenced_submit_ns(). */
#define SUBMIT_WINDOW	64

/*
 * A fresh file with one stream, its threshold max_tasks, and *@noop a noop
 * launch.  Returns the file, or a negative errno.
 */
static int fenced_open(const struct drm_weave_device_info *info,
		       uint32_t *stream, struct drm_weave_task *noop)
{
	int fd, ret;

	fd = weave_device_open(0);
	if (fd < 0)
		return fd;
	weave_task_launch(noop, DRM_WEAVE_KERNEL_NOOP, NULL, 0, NULL, 0);
	ret = weave_set_param(fd, DRM_WEAVE_PARAM_MAX_TASKS, info->max_tasks);
	if (!ret)
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, stream);
	if (ret) {
		weave_device_close(fd);
		return ret;
	}
	return fd;
}

/*
 * Untimed, after a run of @n one-task submissions on @stream of @fd: every
 * one was enqueued and has completed.  Returns 0 or a negative errno.
 */
static int fenced_check(int fd, uint32_t stream, uint32_t n)
{
	struct drm_weave_stream_query q;
	int ret;

	ret = weave_stream_query(fd, stream, &q);
	if (!ret && (q.completed != n || q.enqueued != n))
		ret = -EPROTO;
	return ret;
}

/*
 * The time of a job of one noop task on a fresh file's stream, as issue 21
 * defines it: one ENQUEUE with %DRM_WEAVE_ENQUEUE_FLUSH, then a WAIT with
 * %DRM_WEAVE_WAIT_SEQNO on the sequence number it returned; @jobs times
 * after one untimed.  -1 on an error, in *@err; afterwards, untimed, the
 * stream must have completed every task.
 */
double job_ns(const struct drm_weave_device_info *info, uint32_t jobs,
	      int *err)
{
	struct drm_weave_task noop;
	double start = 0, ns = -1;
	uint32_t stream = 0, i;
	uint64_t seqno = 0;
	int fd, ret = 0;

	fd = fenced_open(info, &stream, &noop);
	if (fd < 0) {
		*err = fd;
		return -1;
	}
	for (i = 0; !ret && i <= jobs; i++) {
		if (i == 1)
			start = now_ns();
		ret = weave_enqueue_flush(fd, stream, &noop, 1, NULL, 0, NULL,
					  0, &seqno);
		if (!ret)
			ret = weave_wait_seqno(fd, stream, seqno, INT64_MAX);
	}
	if (!ret)
		ns = (now_ns() - start) / jobs;
	if (!ret)
		ret = fenced_check(fd, stream, jobs + 1);
	weave_device_close(fd);
	*err = ret;
	return ret ? -1 : ns;
}

/* One noop task submitted on @stream: in one ioctl, or in two if @two. */
static int fenced_submit(int fd, uint32_t stream,
			 const struct drm_weave_task *noop, bool two)
{
	int ret;

	if (!two)
		return weave_enqueue_flush(fd, stream, noop, 1, NULL, 0, NULL,
					   0, NULL);
	ret = weave_enqueue(fd, stream, noop, 1, NULL, 0, NULL);
	return ret ?: weave_flush(fd, stream, NULL);
}

/*
 * The time to submit a job of one noop task on a fresh file's stream: one
 * ENQUEUE with %DRM_WEAVE_ENQUEUE_FLUSH, or with @two an ENQUEUE then a
 * FLUSH; @n submissions after one untimed.  Only the submissions are
 * timed, SUBMIT_WINDOW at a time: after each window an untimed wait for
 * the stream bounds the jobs in flight, so that both kinds see the same
 * queue.  -1
 * on an error, in *@err; afterwards, untimed, the stream must have
 * completed every task.
 */
double fenced_submit_ns(const struct drm_weave_device_info *info, uint32_t n,
			bool two, int *err)
{
	struct drm_weave_task noop;
	uint32_t stream = 0, i, k = 0;
	double t, ns = 0;
	int fd, ret;

	fd = fenced_open(info, &stream, &noop);
	if (fd < 0) {
		*err = fd;
		return -1;
	}
	ret = fenced_submit(fd, stream, &noop, two);
	if (!ret)
		ret = weave_wait(fd, stream, INT64_MAX);
	for (i = 0; !ret && i < n; i += k) {
		t = now_ns();
		for (k = 0; !ret && k < SUBMIT_WINDOW && i + k < n; k++)
			ret = fenced_submit(fd, stream, &noop, two);
		ns += now_ns() - t;
		if (!ret)
			ret = weave_wait(fd, stream, INT64_MAX);
	}
	if (!ret)
		ret = fenced_check(fd, stream, n + 1);
	weave_device_close(fd);
	*err = ret;
	return ret ? -1 : ns / n;
}

/* "-s [N]": N one-task submissions, one ioctl each (for a profile). */
int print_submit_one(const struct drm_weave_device_info *info, uint32_t n)
{
	double ns;
	int err;

	ns = fenced_submit_ns(info, n, false, &err);
	if (ns < 0) {
		printf("submit error %s\n", strerror(-err));
		return 1;
	}
	printf("submit tasks 1 jobs %u ns_per_enqueue_flush %.0f\n", n, ns);
	return 0;
}
