// SPDX-License-Identifier: GPL-2.0
/*
 * weave: stream priorities: creation, CAP_SYS_NICE for high, unknown
 * values, what STREAM_QUERY reports, and the order in which jobs of
 * different priorities waiting for one saturated hardware queue run.
 */
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include "weave_test.h"

/* capability bit for CAP_SYS_NICE is in the first 32-bit word. */
#define NICE_BIT	(1u << CAP_SYS_NICE)

FIXTURE(prio) {
	int fd;
};

FIXTURE_SETUP(prio)
{
	self->fd = weave_test_open(_metadata);
}

FIXTURE_TEARDOWN(prio)
{
	close(self->fd);
}

/* Creates a stream of @prio, checks the query and that it runs work. */
static void check_priority(struct __test_metadata *_metadata, int fd,
			   uint32_t prio)
{
	uint32_t stream;

	stream = weave_test_stream(_metadata, fd, prio);
	EXPECT_EQ(prio, weave_test_squery(_metadata, fd, stream).priority);
	weave_test_enqueue_noop(_metadata, fd, stream);
	weave_test_finish(_metadata, fd, stream);
	EXPECT_EQ(1u, weave_test_squery(_metadata, fd, stream).completed);
	ASSERT_EQ(0, weave_stream_destroy(fd, stream));
}

TEST_F(prio, low)
{
	check_priority(_metadata, self->fd, DRM_WEAVE_PRIORITY_LOW);
}

TEST_F(prio, normal)
{
	check_priority(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
}

TEST_F(prio, high_as_root)
{
	if (geteuid() != 0)
		SKIP(return, "needs root for CAP_SYS_NICE");
	check_priority(_metadata, self->fd, DRM_WEAVE_PRIORITY_HIGH);
}

TEST_F(prio, unknown)
{
	struct drm_weave_client_usage usage;
	uint32_t handle = 0;

	EXPECT_EQ(-EINVAL, weave_stream_create(self->fd, 3, &handle));
	EXPECT_EQ(-EINVAL, weave_stream_create(self->fd, 0xffffffffu, &handle));
	/* Nothing was created: the file still has no stream. */
	usage = weave_test_client_usage(_metadata, self->fd);
	EXPECT_EQ(0u, usage.streams);
}

/* Drops CAP_SYS_NICE from every set of the calling thread. */
static int drop_sys_nice(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[0].effective &= ~NICE_BIT;
	data[0].permitted &= ~NICE_BIT;
	data[0].inheritable &= ~NICE_BIT;
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

/*
 * A child without CAP_SYS_NICE, on the inherited file and on one it opens
 * afresh, gets -EPERM for high priority but may still create the others.
 */
TEST_F(prio, high_needs_cap_sys_nice)
{
	int status;
	pid_t pid;

	if (geteuid() != 0)
		SKIP(return, "needs root to hold CAP_SYS_NICE first");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		uint32_t handle;
		int fd2;

		if (drop_sys_nice())
			_exit(10);
		if (weave_stream_create(self->fd, DRM_WEAVE_PRIORITY_HIGH,
					&handle) != -EPERM)
			_exit(11);
		if (weave_stream_create(self->fd, DRM_WEAVE_PRIORITY_NORMAL,
					&handle))
			_exit(12);
		fd2 = weave_device_open(0);
		if (fd2 < 0)
			_exit(13);
		if (weave_stream_create(fd2, DRM_WEAVE_PRIORITY_HIGH,
					&handle) != -EPERM)
			_exit(14);
		if (weave_stream_create(fd2, DRM_WEAVE_PRIORITY_LOW, &handle))
			_exit(15);
		close(fd2);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("child step %d failed (10 capset, 11 inherited fd high, 12 normal, 13 reopen, 14 new fd high, 15 low)",
		       WEXITSTATUS(status));
	}
}

/* Streams of every priority on one file keep their own priority. */
TEST_F(prio, query_reports_each)
{
	uint32_t s[3] = { 0 }, p;

	for (p = 0; p < 3; p++) {
		if (p == DRM_WEAVE_PRIORITY_HIGH && geteuid() != 0)
			continue;
		s[p] = weave_test_stream(_metadata, self->fd, p);
	}
	for (p = 0; p < 3; p++)
		if (s[p])
			EXPECT_EQ(p, weave_test_squery(_metadata, self->fd,
						       s[p]).priority);
}

/*
 * Jobs a hardware queue holds at once (WEAVE_QUEUE_CREDITS in
 * kmod/weave_queue.c); later jobs wait in the DRM scheduler, which picks
 * the next one by priority.
 */
#define QUEUE_JOBS	64

/* Filler jobs that wait in the scheduler behind the full queue. */
#define BACKLOG		8

/*
 * The CLOCK_MONOTONIC time at which the fence of @syncobj signalled, from
 * its sync_file; fails the test unless it signalled without error.
 */
static int64_t signal_time(struct __test_metadata *_metadata, int fd,
			   uint32_t syncobj)
{
	struct sync_fence_info fence;
	struct sync_file_info info;
	int sfd = -1, ret;

	ASSERT_EQ(0, drmSyncobjWait(fd, &syncobj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	ASSERT_EQ(0, drmSyncobjExportSyncFile(fd, syncobj, &sfd));
	memset(&info, 0, sizeof(info));
	memset(&fence, 0, sizeof(fence));
	info.num_fences = 1;
	info.sync_fence_info = (uintptr_t)&fence;
	ret = ioctl(sfd, SYNC_IOC_FILE_INFO, &info);
	close(sfd);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(1u, info.num_fences);
	ASSERT_EQ(1, fence.status);
	drmSyncobjDestroy(fd, syncobj);
	return fence.timestamp_ns;
}

/* Enqueues @b on @stream and flushes it into a job of its own. */
static void job(struct __test_metadata *_metadata, int fd, uint32_t stream,
		struct weave_test_batch *b, uint32_t *out_syncobj)
{
	struct drm_weave_sync out;

	weave_test_enqueue(_metadata, fd, stream, b);
	if (!out_syncobj) {
		ASSERT_EQ(0, weave_flush(fd, stream, NULL));
		return;
	}
	*out_syncobj = weave_test_syncobj(_metadata, fd);
	out = weave_sync(*out_syncobj, 0);
	ASSERT_EQ(0, weave_flush(fd, stream, &out));
}

/* A new stream of @prio on hardware queue @queue (slot % num_queues). */
static uint32_t stream_on_queue(struct __test_metadata *_metadata, int fd,
				const struct drm_weave_device_info *info,
				uint32_t prio, uint32_t queue)
{
	uint32_t h, i;

	for (i = 0; i < info->max_client_streams; i++) {
		h = weave_test_stream(_metadata, fd, prio);
		if (weave_test_squery(_metadata, fd, h).slot %
		    info->num_queues == queue)
			return h;
	}
	ASSERT_TRUE(0) TH_LOG("no stream on queue %u", queue);
	return 0;
}

/* When each of the jobs of race() completed. */
struct order {
	int64_t early;		/* the job queued first */
	int64_t late;		/* the job queued after it */
	int64_t filler;		/* the last normal-priority filler */
};

/*
 * Saturates one hardware queue with normal-priority filler jobs, the first
 * a long DELAY, so that QUEUE_JOBS of them sit on the queue and BACKLOG
 * more wait in the scheduler; then queues one job of @early_prio and, after
 * it, one of @late_prio, both on streams of that queue with nothing in
 * common, and reports when each completed.
 */
static void race(struct __test_metadata *_metadata, int fd,
		 uint32_t early_prio, uint32_t late_prio, struct order *o)
{
	struct drm_weave_device_info info = weave_test_info(_metadata, fd);
	uint32_t fill, early, late, queue, head_us, i;
	uint32_t s_early, s_late, s_fill;
	struct weave_test_batch b;

	/* Long enough to queue everything, far from the job timeout. */
	head_us = info.job_timeout_ms * 250;
	if (head_us > 500000)
		head_us = 500000;
	fill = weave_test_stream(_metadata, fd, DRM_WEAVE_PRIORITY_NORMAL);
	queue = weave_test_squery(_metadata, fd, fill).slot % info.num_queues;
	early = stream_on_queue(_metadata, fd, &info, early_prio, queue);
	late = stream_on_queue(_metadata, fd, &info, late_prio, queue);

	weave_test_batch_init(&b);
	weave_test_delay(&b, head_us);
	job(_metadata, fd, fill, &b, NULL);
	for (i = 1; i < QUEUE_JOBS + BACKLOG; i++) {
		weave_test_noop(&b);
		job(_metadata, fd, fill, &b,
		    i == QUEUE_JOBS + BACKLOG - 1 ? &s_fill : NULL);
	}
	weave_test_noop(&b);
	job(_metadata, fd, early, &b, &s_early);
	weave_test_noop(&b);
	job(_metadata, fd, late, &b, &s_late);
	ASSERT_EQ(0u, weave_test_squery(_metadata, fd, fill).completed) {
		TH_LOG("the %u ms head job ended before everything was queued: machine too slow, the order proves nothing",
		       head_us / 1000);
	}

	o->early = signal_time(_metadata, fd, s_early);
	o->late = signal_time(_metadata, fd, s_late);
	o->filler = signal_time(_metadata, fd, s_fill);
}

/* A normal job overtakes a low one queued before it. */
TEST_F(prio, normal_runs_before_earlier_low)
{
	struct order o;

	race(_metadata, self->fd, DRM_WEAVE_PRIORITY_LOW,
	     DRM_WEAVE_PRIORITY_NORMAL, &o);
	EXPECT_LT(o.late, o.early);
	/* The low job waited for every normal filler. */
	EXPECT_LT(o.filler, o.early);
}

/* A high job overtakes a low one queued before it, and the fillers. */
TEST_F(prio, high_runs_before_earlier_low_and_normal)
{
	struct order o;

	if (geteuid() != 0)
		SKIP(return, "needs root for CAP_SYS_NICE");
	race(_metadata, self->fd, DRM_WEAVE_PRIORITY_LOW,
	     DRM_WEAVE_PRIORITY_HIGH, &o);
	EXPECT_LT(o.late, o.early);
	EXPECT_LT(o.late, o.filler);
	EXPECT_LT(o.filler, o.early);
}

/* Without priorities, the queue keeps the order of submission. */
TEST_F(prio, equal_priorities_keep_submission_order)
{
	struct order o;

	race(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL,
	     DRM_WEAVE_PRIORITY_NORMAL, &o);
	EXPECT_LT(o.early, o.late);
}

TEST_HARNESS_MAIN
