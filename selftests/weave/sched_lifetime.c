// SPDX-License-Identifier: GPL-2.0
/*
 * weave: lifetimes.  Closing a file with work queued, in flight and gated
 * on a fence cancels and reaps it promptly; so does killing a process in
 * the middle of a wait; destroying a stream executes its queued work.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weave_test.h"

FIXTURE(life) {
	int fd;
	struct drm_weave_device_info info;
	uint64_t page;
	int64_t timeout_ns;
	struct drm_weave_memory_usage base;
};

FIXTURE_SETUP(life)
{
	self->fd = weave_test_open(_metadata);
	self->info = weave_test_info(_metadata, self->fd);
	self->page = self->info.page_size;
	self->timeout_ns = self->info.job_timeout_ms * 1000000ll;
	ASSERT_LT(0, self->timeout_ns);
	self->base = weave_test_usage(_metadata, self->fd);
}

FIXTURE_TEARDOWN(life)
{
	close(self->fd);
}

/* Polls until the device's usage is back to @base, or fails at @deadline. */
static void await_baseline(struct __test_metadata *_metadata, int fd,
			   const struct drm_weave_memory_usage *base,
			   int64_t deadline)
{
	struct drm_weave_memory_usage now;

	for (;;) {
		now = weave_test_usage(_metadata, fd);
		if (now.live_bos == base->live_bos &&
		    now.live_bytes == base->live_bytes)
			return;
		if (weave_test_now() > deadline)
			break;
		usleep(10000);
	}
	ASSERT_EQ(base->live_bos, now.live_bos);
	ASSERT_EQ(base->live_bytes, now.live_bytes);
}

/* A delay of ten job timeouts, in microseconds, capped to fit a u32. */
static uint32_t long_delay_us(const struct drm_weave_device_info *info)
{
	uint64_t us = info->job_timeout_ms * 10000ull;

	return us > 0xffffffffu ? 0xffffffffu : us;
}

TEST_F_TIMEOUT(life, close_with_queued_inflight_and_gated_work, 120)
{
	uint32_t queued, inflight, gated, gate_stream, gate_obj, bo, gate_bo;
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

	/* The gate's fence, moved into fd2's syncobj through a sync_file. */
	{
		uint32_t obj = weave_test_syncobj(_metadata, gate_fd);
		struct drm_weave_sync out = weave_sync(obj, 0);
		int sfd = -1;

		weave_test_batch_init(&b);
		weave_test_delay(&b, long_delay_us(&self->info));
		weave_test_fill_task(&b, gate_bo, 0, self->page, 1);
		weave_test_enqueue(_metadata, gate_fd, gate_stream, &b);
		ASSERT_EQ(0, weave_flush(gate_fd, gate_stream, &out));
		ASSERT_EQ(0, drmSyncobjExportSyncFile(gate_fd, obj, &sfd));
		ASSERT_EQ(0, drmSyncobjImportSyncFile(fd2, gate_obj, sfd));
		close(sfd);
	}
	gate = weave_sync(gate_obj, 0);

	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 2);
	weave_test_enqueue(_metadata, fd2, queued, &b);

	weave_test_delay(&b, long_delay_us(&self->info));
	weave_test_fill_task(&b, bo, self->page, self->page, 3);
	weave_test_enqueue(_metadata, fd2, inflight, &b);
	ASSERT_EQ(0, weave_flush(fd2, inflight, NULL));

	weave_test_fill_task(&b, bo, 2 * self->page, self->page, 4);
	ASSERT_EQ(0, weave_enqueue(fd2, gated, b.task, b.n, &gate, 1, NULL));
	ASSERT_EQ(0, weave_flush(fd2, gated, NULL));
	usleep(20000);

	start = weave_test_now();
	ASSERT_EQ(0, close(fd2));
	elapsed = weave_test_now() - start;
	EXPECT_GT(2 * self->timeout_ns, elapsed) {
		TH_LOG("close took %lld ms", (long long)(elapsed / 1000000));
	}
	/* Only gate_fd's buffer is left once fd2's work is reaped. */
	self->base.live_bos += 1;
	self->base.live_bytes += self->page;
	await_baseline(_metadata, self->fd, &self->base,
		       start + 2 * self->timeout_ns + WEAVE_TEST_SEC);

	close(gate_fd);
	self->base.live_bos -= 1;
	self->base.live_bytes -= self->page;
	await_baseline(_metadata, self->fd, &self->base,
		       weave_test_now() + 2 * self->timeout_ns + WEAVE_TEST_SEC);
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
	await_baseline(_metadata, self->fd, &self->base,
		       weave_test_now() + 2 * self->timeout_ns);
}

/* A child killed with SIGKILL while blocked in WAIT is reaped promptly. */
TEST_F_TIMEOUT(life, killed_in_wait, 120)
{
	int pipefd[2], status;
	int64_t start;
	char c = 0;
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
		weave_test_delay(&b, long_delay_us(&self->info));
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
	usleep(50000);

	start = weave_test_now();
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_GT(2 * self->timeout_ns, weave_test_now() - start);
	await_baseline(_metadata, self->fd, &self->base,
		       start + 2 * self->timeout_ns + WEAVE_TEST_SEC);
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
	map = weave_test_map(_metadata, self->fd, y, self->page);
	EXPECT_EQ(0xdeadu, map[self->page / 4 - 1]);
	weave_test_unmap(_metadata, map, self->page);
}

TEST_HARNESS_MAIN
