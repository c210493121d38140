// SPDX-License-Identifier: GPL-2.0
/*
 * weave: stream priorities: creation, CAP_SYS_NICE for high, unknown
 * values, and what STREAM_QUERY reports.
 */
#include <stdint.h>
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
	struct weave_test_batch b;
	uint32_t stream;

	stream = weave_test_stream(_metadata, fd, prio);
	EXPECT_EQ(prio, weave_test_squery(_metadata, fd, stream).priority);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, fd, stream, &b);
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

TEST_HARNESS_MAIN
