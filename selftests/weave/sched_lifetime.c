// SPDX-License-Identifier: GPL-2.0
/*
 * weave: lifetimes.  Closing a file with work queued, in flight and gated
 * on a fence cancels and reaps it promptly; so does killing a process in
 * the middle of a wait; destroying a stream executes its queued work.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weave_test.h"

FIXTURE(life) {
	WEAVE_TEST_FILE_FIELDS;
	int64_t timeout_ns;
	struct drm_weave_memory_usage base;
};

FIXTURE_SETUP(life)
{
	WEAVE_TEST_FILE_SETUP();
	self->timeout_ns = self->info.job_timeout_ms * 1000000ll;
	ASSERT_LT(0, self->timeout_ns);
	self->base = weave_test_usage(_metadata, self->fd);
}

FIXTURE_TEARDOWN(life)
{
	close(self->fd);
}

/*
 * Polls /proc/@pid/stat until the process sleeps (state S or D), for at
 * most five seconds; returns the last state seen.
 */
static char await_sleeping(pid_t pid)
{
	char path[64], buf[512], state = '?', *p;
	int i, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (i = 0; i < 500; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return '?';
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			/* The state follows the command name's closing ')'. */
			p = strrchr(buf, ')');
			if (p && p[1] == ' ')
				state = p[2];
			if (state == 'S' || state == 'D')
				return state;
		}
		usleep(10000);
	}
	return state;
}

TEST_F_TIMEOUT(life, close_with_queued_inflight_and_gated_work, 120)
{
	uint32_t queued, inflight, gated, gate_stream, gate_obj, bo, qbo, gate_bo;
	uint32_t delay_us = weave_test_hang_delay_us(_metadata, &self->info);
	struct drm_weave_stream_query q;
	struct drm_weave_sync gate;
	struct weave_test_batch b;
	int fd2, gate_fd;
	int64_t start, elapsed;

	/* The gate: a long delay on another file, outliving the close. */
	gate_fd = weave_test_open(_metadata);
	gate_stream = weave_test_stream(_metadata, gate_fd,
					DRM_WEAVE_PRIORITY_NORMAL);
	gate_bo = weave_test_bo(_metadata, gate_fd, self->page, 0);

	fd2 = weave_test_open(_metadata);
	weave_test_param(_metadata, fd2, DRM_WEAVE_PARAM_MAX_TASKS,
			 self->info.max_tasks);
	gate_obj = weave_test_syncobj(_metadata, fd2);
	queued = weave_test_stream(_metadata, fd2, DRM_WEAVE_PRIORITY_NORMAL);
	inflight = weave_test_stream(_metadata, fd2, DRM_WEAVE_PRIORITY_NORMAL);
	gated = weave_test_stream(_metadata, fd2, DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, fd2, 4 * self->page, 0);
	/* Its own buffer, so that no later enqueue executes its slot. */
	qbo = weave_test_bo(_metadata, fd2, self->page, 0);

	/* The gate's fence, moved into fd2's syncobj through a sync_file. */
	{
		uint32_t obj = weave_test_syncobj(_metadata, gate_fd);
		struct drm_weave_sync out = weave_sync(obj, 0);
		int sfd = -1;

		weave_test_batch_init(&b);
		weave_test_delay(&b, delay_us);
		weave_test_fill_task(&b, gate_bo, 0, self->page, 1);
		weave_test_enqueue(_metadata, gate_fd, gate_stream, &b);
		ASSERT_EQ(0, weave_flush(gate_fd, gate_stream, &out));
		ASSERT_EQ(0, drmSyncobjExportSyncFile(gate_fd, obj, &sfd));
		ASSERT_EQ(0, drmSyncobjImportSyncFile(fd2, gate_obj, sfd));
		close(sfd);
	}
	gate = weave_sync(gate_obj, 0);

	weave_test_batch_init(&b);
	weave_test_fill_task(&b, qbo, 0, self->page, 2);
	weave_test_enqueue(_metadata, fd2, queued, &b);

	weave_test_delay(&b, delay_us);
	weave_test_fill_task(&b, bo, self->page, self->page, 3);
	weave_test_enqueue(_metadata, fd2, inflight, &b);
	ASSERT_EQ(0, weave_flush(fd2, inflight, NULL));

	weave_test_fill_task(&b, bo, 2 * self->page, self->page, 4);
	ASSERT_EQ(0, weave_enqueue(fd2, gated, b.task, b.n, &gate, 1, NULL));
	ASSERT_EQ(0, weave_flush(fd2, gated, NULL));
	usleep(20000);

	/* Each kind of work is really there when the file closes. */
	q = weave_test_squery(_metadata, fd2, queued);
	ASSERT_EQ(1u, q.enqueued);
	ASSERT_EQ(0u, q.executed);
	q = weave_test_squery(_metadata, fd2, inflight);
	ASSERT_EQ(2u, q.executed);
	ASSERT_EQ(0u, q.completed);
	q = weave_test_squery(_metadata, fd2, gated);
	ASSERT_EQ(1u, q.executed);
	ASSERT_EQ(0u, q.completed);
	/* The gate (and so the in-flight delay, started no earlier) runs on. */
	ASSERT_EQ(-ETIME, drmSyncobjWait(fd2, &gate_obj, 1, 0, 0, NULL) ?
		  -errno : 0);

	start = weave_test_now();
	ASSERT_EQ(0, close(fd2));
	elapsed = weave_test_now() - start;
	EXPECT_GT(2 * self->timeout_ns, elapsed) {
		TH_LOG("close took %lld ms", (long long)(elapsed / 1000000));
	}
	/* Only gate_fd's buffer is left once fd2's work is reaped. */
	self->base.live_bos += 1;
	self->base.live_bytes += self->page;
	weave_test_await_usage(_metadata, self->fd, &self->base, 0, 0,
			       start + 2 * self->timeout_ns + WEAVE_TEST_SEC -
			       weave_test_now());

	close(gate_fd);
	self->base.live_bos -= 1;
	self->base.live_bytes -= self->page;
	weave_test_await_usage(_metadata, self->fd, &self->base, 0, 0,
			       2 * self->timeout_ns + WEAVE_TEST_SEC);
}

TEST_F_TIMEOUT(life, close_with_queued_work_only, 60)
{
	struct weave_test_batch b;
	uint32_t stream, bo;
	unsigned int i;
	int fd2;

	fd2 = weave_test_open(_metadata);
	weave_test_param(_metadata, fd2, DRM_WEAVE_PARAM_MAX_TASKS,
			 self->info.max_tasks);
	weave_test_batch_init(&b);
	for (i = 0; i < 4; i++) {
		stream = weave_test_stream(_metadata, fd2,
					   DRM_WEAVE_PRIORITY_NORMAL);
		bo = weave_test_bo(_metadata, fd2, self->page, 0);
		weave_test_fill_task(&b, bo, 0, self->page, i);
		weave_test_enqueue(_metadata, fd2, stream, &b);
	}
	ASSERT_EQ(0, close(fd2));
	weave_test_await_usage(_metadata, self->fd, &self->base, 0, 0,
			       2 * self->timeout_ns);
}

/* A child killed with SIGKILL while blocked in WAIT is reaped promptly. */
TEST_F_TIMEOUT(life, killed_in_wait, 120)
{
	uint32_t delay_us = weave_test_hang_delay_us(_metadata, &self->info);
	int pipefd[2], status;
	int64_t start;
	char c = 0, state;
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct weave_test_batch b;
		uint32_t stream, bo;
		uint64_t size;
		int fd;

		close(pipefd[0]);
		fd = weave_device_open(0);
		if (fd < 0 || weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL,
						  &stream))
			_exit(1);
		size = 4096;
		if (weave_bo_create(fd, &size, 0, &bo))
			_exit(2);
		weave_test_batch_init(&b);
		weave_test_delay(&b, delay_us);
		weave_test_fill_task(&b, bo, 0, size, 9);
		if (weave_test_submit(fd, stream, &b) ||
		    weave_flush(fd, stream, NULL))
			_exit(3);
		if (write(pipefd[1], "r", 1) != 1)
			_exit(4);
		weave_wait(fd, stream, INT64_MAX);
		_exit(5);
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	close(pipefd[0]);
	/* The child is blocked in WAIT, not about to enter it. */
	state = await_sleeping(pid);
	if (state != 'S' && state != 'D')
		kill(pid, SIGKILL);
	ASSERT_TRUE(state == 'S' || state == 'D') {
		TH_LOG("child in state '%c', not sleeping in WAIT", state);
	}

	start = weave_test_now();
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_GT(2 * self->timeout_ns, weave_test_now() - start);
	weave_test_await_usage(_metadata, self->fd, &self->base, 0, 0,
			       start + 2 * self->timeout_ns + WEAVE_TEST_SEC -
			       weave_test_now());
}

/* Destroying a stream executes its queued tasks: the data gets written. */
TEST_F(life, destroy_executes_queued_work)
{
	uint32_t stream, other, bo, y, *map;
	struct weave_test_batch b;
	int64_t deadline;

	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS,
			 self->info.max_tasks);
	stream = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	other = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	y = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_delay(&b, 10000);
	weave_test_fill_task(&b, bo, 0, self->page, 0xdead);
	weave_test_enqueue(_metadata, self->fd, stream, &b);
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd, stream).executed);
	ASSERT_EQ(0, weave_stream_destroy(self->fd, stream));
	EXPECT_EQ(-ENOENT, weave_stream_query(self->fd, stream,
					      &(struct drm_weave_stream_query){ 0 }));

	/* The data appears without any further call on the buffer ... */
	map = weave_test_map(_metadata, self->fd, bo, self->page);
	deadline = weave_test_now() + WEAVE_TEST_WAIT_NS;
	while (map[self->page / 4 - 1] != 0xdead && weave_test_now() < deadline)
		usleep(5000);
	EXPECT_EQ(0xdeadu, map[0]);
	EXPECT_EQ(0xdeadu, map[self->page / 4 - 1]);
	weave_test_unmap(_metadata, map, self->page);

	/* ... and a later reader on another stream sees it too. */
	weave_test_copy_task(&b, bo, 0, y, 0, self->page);
	weave_test_enqueue(_metadata, self->fd, other, &b);
	weave_test_finish(_metadata, self->fd, other);
	weave_test_expect_words(_metadata, self->fd, y, self->page, 0xdead);
}

TEST_HARNESS_MAIN
