// SPDX-License-Identifier: GPL-2.0
/*
 * weave: stream priorities: creation, CAP_SYS_NICE for high, unknown
 * values, what STREAM_QUERY reports, and the order in which jobs of
 * different priorities waiting for one saturated hardware queue run.
 */
#include <poll.h>
#include <stdbool.h>
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

/* Tries of race(); see there for what makes one void. */
#define TRIES		4

/*
 * The status and CLOCK_MONOTONIC signal time of the fence of the sync_file
 * @sfd, which it closes, once it has signalled; fails the test if it does
 * not within WEAVE_TEST_WAIT_NS.
 */
static int sync_file_end(struct __test_metadata *_metadata, int sfd,
			 int64_t *when)
{
	struct sync_fence_info fence;
	struct sync_file_info info;
	struct pollfd pfd = { .fd = sfd, .events = POLLIN };
	int ret;

	ret = poll(&pfd, 1, WEAVE_TEST_WAIT_NS / 1000000);
	memset(&info, 0, sizeof(info));
	memset(&fence, 0, sizeof(fence));
	info.num_fences = 1;
	info.sync_fence_info = (uintptr_t)&fence;
	if (ret == 1 && ioctl(sfd, SYNC_IOC_FILE_INFO, &info))
		ret = -errno;
	close(sfd);
	ASSERT_EQ(1, ret) TH_LOG("the fence did not signal");
	ASSERT_EQ(1u, info.num_fences);
	ASSERT_NE(0, fence.status);
	if (when)
		*when = fence.timestamp_ns;
	return fence.status;
}

/* The fence of @syncobj of @fd as a sync_file, which outlives the file. */
static int sync_file_of(struct __test_metadata *_metadata, int fd,
			uint32_t syncobj)
{
	int sfd = -1;

	ASSERT_EQ(0, drmSyncobjExportSyncFile(fd, syncobj, &sfd));
	ASSERT_LE(0, sfd);
	return sfd;
}

/* When the job of @sfd completed; fails the test unless without error. */
static int64_t signal_time(struct __test_metadata *_metadata, int sfd)
{
	int64_t when = 0;

	EXPECT_EQ(1, sync_file_end(_metadata, sfd, &when));
	return when;
}

/*
 * Enqueues @b on @stream, gated on @in if not NULL, and flushes it into a
 * job of its own; its out-fence goes to *@out_sfd as a sync_file, if
 * @out_sfd is not NULL.
 */
static void job(struct __test_metadata *_metadata, int fd, uint32_t stream,
		struct weave_test_batch *b, const struct drm_weave_sync *in,
		int *out_sfd)
{
	struct drm_weave_sync out;
	uint32_t obj;

	ASSERT_EQ(0, weave_enqueue(fd, stream, b->task, b->n, in, in ? 1 : 0,
				   NULL));
	weave_test_batch_init(b);
	if (!out_sfd) {
		ASSERT_EQ(0, weave_flush(fd, stream, NULL));
		return;
	}
	obj = weave_test_syncobj(_metadata, fd);
	out = weave_sync(obj, 0);
	ASSERT_EQ(0, weave_flush(fd, stream, &out));
	*out_sfd = sync_file_of(_metadata, fd, obj);
	drmSyncobjDestroy(fd, obj);
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
 * One try of race().  A file of its own makes BACKLOG normal-priority
 * filler jobs, then one job of @early_prio and one of @late_prio, on three
 * streams of one hardware queue, all held by a gate.  A second file, the
 * holder, fills that queue with QUEUE_JOBS jobs of @late_prio, each a
 * DELAY that only the job timeout ends, held by a gate of their own.  The
 * test opens the holder's gate, then the first; so every job of the first
 * file waits in the scheduler, ready, for a place on the queue.  Closing
 * the holder then cuts its jobs short, and the scheduler hands the queue
 * the waiting jobs one at a time, by priority.
 *
 * Nothing here races the clock: while the holder's jobs are not all on
 * the queue, they are ready, of a priority no job of the first file
 * exceeds, so the scheduler cannot pass them for a lower one; and once
 * they are, the queue has no room until the first of them ends.  That
 * one ends with -ECANCELED if the test's close cut it short, which
 * proves the queue stayed full until then.  Only its own job timeout
 * could end it sooner, job_timeout_ms after it started (the holder's
 * gate opened), before the test opened the second gate, one call later;
 * then it ends with -ETIMEDOUT, the order proves nothing, and this
 * returns false for race() to try again.  So does a gate that vgem opened
 * by itself (WEAVE_TEST_VGEM_EXPIRY_NS).
 */
static bool race_once(struct __test_metadata *_metadata,
		      const struct drm_weave_device_info *info,
		      uint32_t early_prio, uint32_t late_prio, struct order *o)
{
	uint32_t fill, early, late, hold, queue, hang_us, i;
	struct weave_test_gate gate, hgate;
	int fd, holder, s_fill, s_early, s_late, s_head, head, ret;
	struct drm_weave_sync in, hin;
	struct weave_test_batch b;

	fd = weave_test_open(_metadata);
	holder = weave_test_open(_metadata);
	hang_us = weave_test_hang_delay_us(_metadata, info);
	fill = weave_test_stream(_metadata, fd, DRM_WEAVE_PRIORITY_NORMAL);
	queue = weave_test_squery(_metadata, fd, fill).slot % info->num_queues;
	early = stream_on_queue(_metadata, fd, info, early_prio, queue);
	late = stream_on_queue(_metadata, fd, info, late_prio, queue);
	hold = stream_on_queue(_metadata, holder, info, late_prio, queue);

	/* The first file's jobs, held back whatever the time. */
	weave_test_gate_open(_metadata, &gate, fd);
	in = weave_sync(gate.syncobj, 0);
	weave_test_batch_init(&b);
	for (i = 0; i < BACKLOG; i++) {
		weave_test_noop(&b);
		job(_metadata, fd, fill, &b, i ? NULL : &in,
		    i == BACKLOG - 1 ? &s_fill : NULL);
	}
	weave_test_noop(&b);
	job(_metadata, fd, early, &b, &in, &s_early);
	weave_test_noop(&b);
	job(_metadata, fd, late, &b, &in, &s_late);

	/* The holder's, behind a gate of their own. */
	weave_test_gate_open(_metadata, &hgate, holder);
	hin = weave_sync(hgate.syncobj, 0);
	for (i = 0; i < QUEUE_JOBS; i++) {
		weave_test_delay(&b, hang_us);
		job(_metadata, holder, hold, &b, i ? NULL : &hin,
		    i ? NULL : &s_head);
	}

	/* The holder first, then the rest, while the holder holds. */
	weave_test_gate_try_signal(&hgate);
	ret = weave_test_gate_try_signal(&gate);
	close(holder);
	weave_test_gate_close(&hgate);

	head = sync_file_end(_metadata, s_head, NULL);
	EXPECT_TRUE(head == -ECANCELED || head == -ETIMEDOUT) {
		TH_LOG("the holder's first job ended with %d", head);
	}
	o->early = signal_time(_metadata, s_early);
	o->late = signal_time(_metadata, s_late);
	o->filler = signal_time(_metadata, s_fill);
	weave_test_gate_close(&gate);
	close(fd);
	if (ret)
		TH_LOG("the gate had opened by itself after %lld ms: trying again",
		       weave_test_gate_age_ms(&gate));
	else if (head != -ECANCELED)
		TH_LOG("the holder's first job ran to its timeout (%u ms) before the second gate opened: trying again",
		       info->job_timeout_ms);
	return !ret && head == -ECANCELED;
}

/*
 * Saturates one hardware queue and lets jobs of three streams wait for
 * it, BACKLOG normal-priority fillers, then one job of @early_prio and,
 * after it, one of @late_prio, with nothing in common (see race_once());
 * reports when each completed.  A try that cannot prove the order is
 * made again, at most TRIES times.
 */
static void race(struct __test_metadata *_metadata, int fd,
		 uint32_t early_prio, uint32_t late_prio, struct order *o)
{
	struct drm_weave_device_info info = weave_test_info(_metadata, fd);
	int tries = 0;

	while (!race_once(_metadata, &info, early_prio, late_prio, o)) {
		ASSERT_GT(TRIES, ++tries) {
			TH_LOG("no try of %d held the queue", TRIES);
		}
	}
}

/* A normal job overtakes a low one queued before it. */
TEST_F_TIMEOUT(prio, normal_runs_before_earlier_low, WEAVE_TEST_SLOW_S)
{
	struct order o;

	race(_metadata, self->fd, DRM_WEAVE_PRIORITY_LOW,
	     DRM_WEAVE_PRIORITY_NORMAL, &o);
	EXPECT_LT(o.late, o.early);
	/* The low job waited for every normal filler. */
	EXPECT_LT(o.filler, o.early);
}

/* A high job overtakes a low one queued before it, and the fillers. */
TEST_F_TIMEOUT(prio, high_runs_before_earlier_low_and_normal, WEAVE_TEST_SLOW_S)
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
TEST_F_TIMEOUT(prio, equal_priorities_keep_submission_order, WEAVE_TEST_SLOW_S)
{
	struct order o;

	race(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL,
	     DRM_WEAVE_PRIORITY_NORMAL, &o);
	EXPECT_LT(o.early, o.late);
}

TEST_HARNESS_MAIN
