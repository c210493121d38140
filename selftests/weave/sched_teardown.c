// SPDX-License-Identifier: GPL-2.0
/*
 * weave: teardown while the scheduler is busy.  A file is closed, or the
 * process that holds it is killed, at several points of a hang (well
 * before the job timeout, right around it, while the timeout is being
 * handled) and of a busy queue (many queued jobs, jobs running, jobs just
 * released by their in-fence).  Each close returns
 * promptly and reaps everything; afterwards the device still works and
 * weave.ko holds no reference beyond the test's own file, so it can be
 * unloaded (the lane unloads it after the suites).
 *
 * On a stock kernel a use-after-free in these races goes unseen; on the
 * debug kernel (KASAN) it is reported on the console, which fails the lane.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "weave_test.h"

/* Jobs queued behind a load's head job: more than a queue's 64 credits. */
#define LOAD_QUEUED	80
/* Streams of a load whose jobs wait on the head job's fence. */
#define LOAD_GATED	24
/*
 * Each scenario runs this many times, its points a millisecond later each
 * time.  Once: the debug kernel's lane is the long pole of make check, and
 * a timer's jitter moves the points more than that from run to run anyway.
 */
#define ITERATIONS	1
/* The head job of a busy (not hung) load, in microseconds. */
#define BUSY_DELAY_US	40000

#define MS		1000000ll

/*
 * What a load that fails with -ECANCELED (125) means: a load has to be in
 * place within the job timeout, which a busy host can make it miss.  That
 * is not the teardown under test, so a fresh file tries again, this many
 * times in all.
 */
#define LOAD_SLOW	"-ECANCELED: the hung head job timed out before the load was in place"
#define LOAD_TRIES	4

FIXTURE(teardown) {
	WEAVE_TEST_FILE_FIELDS;
	int64_t timeout_ns;
	uint32_t gated;
	struct drm_weave_memory_usage base;
	long base_refs;
};

FIXTURE_SETUP(teardown)
{
	WEAVE_TEST_FILE_SETUP();
	self->timeout_ns = self->info.job_timeout_ms * MS;
	ASSERT_LT(0, self->timeout_ns);
	/* Gated streams get slots of their own, on every queue. */
	self->gated = self->info.max_streams - 1;
	if (self->gated > LOAD_GATED)
		self->gated = LOAD_GATED;
	self->base = weave_test_usage(_metadata, self->fd);
	self->base_refs = weave_test_settled_refs();
	ASSERT_LT(0, self->base_refs);
}

FIXTURE_TEARDOWN(teardown)
{
	close(self->fd);
}

static void sleep_until(int64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / 1000000000ll,
		.tv_nsec = ns % 1000000000ll,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

/*
 * Put a load on the fresh file @fd: on stream 1, a head job (a FILL, a DELAY
 * of @delay_us, then a FILL) and LOAD_QUEUED one-task jobs behind it, more
 * than its queue runs at once, so that some wait in the scheduler's entity; on
 * each of @gated more streams (slots of their own, on both queues) a job that
 * waits on the head job's fence.  *@t0 is when the head job was flushed.
 * Returns 0 or a negative errno; it asserts nothing, so that a child process
 * can run it.
 */
static int load(int fd, uint32_t delay_us, uint32_t gated, int64_t *t0)
{
	uint32_t head, stream[LOAD_GATED], obj, bo;
	struct drm_weave_sync sync;
	struct weave_test_batch b;
	uint64_t size = 4096;
	unsigned int i;
	int ret;

	/* Everything that need not follow the head job comes first. */
	ret = drmSyncobjCreate(fd, 0, &obj) ? -errno : 0;
	if (!ret)
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &head);
	if (!ret)
		ret = weave_bo_create(fd, &size, 0, &bo);
	for (i = 0; i < gated && !ret; i++)
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL,
					  &stream[i]);
	if (ret)
		return ret;
	sync = weave_sync(obj, 0);

	/*
	 * The head job's first fill runs inline in run_job, so each
	 * teardown also finds a job that started inline with its DELAY on
	 * the queue's worker.
	 */
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, size, 0x1e57);
	weave_test_delay(&b, delay_us);
	weave_test_fill_task(&b, bo, 0, size, 0x7e57);
	ret = weave_test_submit(fd, head, &b);
	if (!ret)
		ret = weave_flush(fd, head, &sync);
	if (ret)
		return ret;
	*t0 = weave_test_now();

	for (i = 0; i < LOAD_QUEUED && !ret; i++) {
		weave_test_noop(&b);
		ret = weave_test_submit(fd, head, &b);
		if (!ret)
			ret = weave_flush(fd, head, NULL);
	}
	for (i = 0; i < gated && !ret; i++) {
		weave_test_noop(&b);
		weave_test_noop(&b);
		ret = weave_enqueue(fd, stream[i], b.task, b.n, &sync, 1, NULL);
		weave_test_batch_init(&b);
		if (!ret)
			ret = weave_flush(fd, stream[i], NULL);
	}
	return ret;
}

/*
 * Waits until weave holds only the test's own references again and every
 * buffer of the closed file is freed: all of its jobs and fences are gone.
 */
static void await_reaped(struct __test_metadata *_metadata,
			 FIXTURE_DATA(teardown) *self, const char *what)
{
	int64_t deadline = weave_test_now() + 4 * self->timeout_ns +
			   10 * WEAVE_TEST_SEC;
	struct drm_weave_memory_usage now;
	long refs;

	for (;;) {
		refs = weave_test_module_refs();
		now = weave_test_usage(_metadata, self->fd);
		if (refs == self->base_refs &&
		    now.live_bos == self->base.live_bos &&
		    now.live_bytes == self->base.live_bytes)
			return;
		if (weave_test_now() > deadline)
			break;
		usleep(10000);
	}
	ASSERT_EQ(self->base_refs, refs) TH_LOG("%s: module references", what);
	ASSERT_EQ(self->base.live_bos, now.live_bos) TH_LOG("%s", what);
	ASSERT_EQ(self->base.live_bytes, now.live_bytes) TH_LOG("%s", what);
}

/* Loads a file of its own and closes it @at_ns after the head job left. */
static void close_at(struct __test_metadata *_metadata,
		     FIXTURE_DATA(teardown) *self, uint32_t delay_us,
		     int64_t at_ns, const char *what)
{
	int64_t t0 = 0, start, elapsed;
	int fd, ret, tries = 0;

	for (;;) {
		fd = weave_test_open(_metadata);
		ret = load(fd, delay_us, self->gated, &t0);
		if (ret != -ECANCELED || ++tries == LOAD_TRIES)
			break;
		ASSERT_EQ(0, close(fd));
		await_reaped(_metadata, self, what);
		ksft_print_msg("%s: %s; again\n", what, LOAD_SLOW);
	}
	ASSERT_EQ(0, ret) TH_LOG("%s: %s, %d times", what, LOAD_SLOW, tries);
	sleep_until(t0 + at_ns);
	start = weave_test_now();
	ASSERT_EQ(0, close(fd));
	elapsed = weave_test_now() - start;
	EXPECT_GT(2 * self->timeout_ns, elapsed) {
		TH_LOG("%s: close took %lld ms", what,
		       (long long)(elapsed / MS));
	}
	await_reaped(_metadata, self, what);
}

/*
 * A child loads a file of its own and is killed with SIGKILL @at_ns after
 * its head job left: the file is closed by the exiting process.
 */
static void kill_at(struct __test_metadata *_metadata,
		    FIXTURE_DATA(teardown) *self, uint32_t delay_us,
		    int64_t at_ns, const char *what)
{
	struct { int64_t t0; int ret; } msg;
	int pipefd[2], status, tries = 0;
	int64_t start;
	pid_t pid;

	for (;;) {
		msg.t0 = 0;
		msg.ret = -EIO;
		ASSERT_EQ(0, pipe(pipefd));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			int fd = weave_device_open(0);

			close(pipefd[0]);
			msg.ret = fd < 0 ? fd : load(fd, delay_us, self->gated,
						    &msg.t0);
			if (write(pipefd[1], &msg, sizeof(msg)) != sizeof(msg))
				_exit(1);
			for (;;)
				pause();
		}
		close(pipefd[1]);
		ASSERT_EQ((ssize_t)sizeof(msg),
			  read(pipefd[0], &msg, sizeof(msg)));
		close(pipefd[0]);
		if (msg.ret != -ECANCELED || ++tries == LOAD_TRIES)
			break;
		kill(pid, SIGKILL);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		await_reaped(_metadata, self, what);
		ksft_print_msg("%s: %s; again\n", what, LOAD_SLOW);
	}
	if (msg.ret)
		kill(pid, SIGKILL);
	ASSERT_EQ(0, msg.ret) {
		TH_LOG("%s: the child's load failed (%d tries); %s", what,
		       tries, LOAD_SLOW);
	}

	sleep_until(msg.t0 + at_ns);
	start = weave_test_now();
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_GT(2 * self->timeout_ns, weave_test_now() - start) {
		TH_LOG("%s: the killed child took too long to go", what);
	}
	await_reaped(_metadata, self, what);
}

/*
 * The device still runs a checked chain, on a file of its own; once that
 * file is closed weave is back to the test's own references.
 */
static void still_works(struct __test_metadata *_metadata,
			FIXTURE_DATA(teardown) *self)
{
	struct drm_weave_client_usage usage;
	struct weave_test_batch b;
	uint32_t stream, bo, res, *map;
	int fd;

	fd = weave_test_open(_metadata);
	stream = weave_test_stream(_metadata, fd, DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, fd, 4 * self->page, 0);
	res = weave_test_bo(_metadata, fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_chain(&b, bo, self->page, 0x1357, 0x2468, res, 0);
	weave_test_enqueue(_metadata, fd, stream, &b);
	weave_test_finish(_metadata, fd, stream);
	map = weave_test_map(_metadata, fd, res, self->page);
	EXPECT_EQ(weave_test_chain_crc(self->page, 0x1357, 0x2468), map[0]);
	weave_test_unmap(_metadata, map, self->page);
	usage = weave_test_client_idle(_metadata, fd);
	EXPECT_EQ(0u, usage.pending_tasks);
	EXPECT_EQ((uint32_t)DRM_WEAVE_STREAM_ACTIVE,
		  weave_test_squery(_metadata, fd, stream).state);
	ASSERT_EQ(0, close(fd));
	await_reaped(_metadata, self, "after the checked chain");
}

typedef void (*teardown_fn)(struct __test_metadata *_metadata,
			    FIXTURE_DATA(teardown) *self, uint32_t delay_us,
			    int64_t at_ns, const char *what);

/*
 * A hung head job, torn down well before the job timeout, right around
 * it, and while the timed-out job and the released jobs finish.  Each
 * iteration shifts the points by a few milliseconds.
 */
static void hang_points(struct __test_metadata *_metadata,
			FIXTURE_DATA(teardown) *self, teardown_fn fn)
{
	const int64_t t = self->timeout_ns;
	const int64_t at[] = {
		t / 4, t - 20 * MS, t - 2 * MS, t, t + 2 * MS, t + 10 * MS,
		t + 30 * MS, t + 80 * MS,
	};
	uint32_t delay_us = weave_test_hang_delay_us(_metadata, &self->info);
	char what[64];
	unsigned int i, k;

	/*
	 * A load must be in place well within the job timeout.  The first
	 * one of a boot is the slowest by far on the debug kernel, where
	 * lockdep learns every new chain of locks the first time it is
	 * taken: go through one first.
	 */
	fn(_metadata, self, BUSY_DELAY_US, 0, "warm-up");
	for (k = 0; k < ITERATIONS; k++) {
		for (i = 0; i < ARRAY_SIZE(at); i++) {
			snprintf(what, sizeof(what), "hang, T%+lld ms, round %u",
				 (long long)((at[i] - t) / MS + k), k);
			fn(_metadata, self, delay_us, at[i] + k * MS, what);
		}
	}
	still_works(_metadata, self);
}

/*
 * A busy queue: torn down at once (jobs queued in the entities), while the
 * head job runs, and as it completes and releases the gated jobs.
 */
static void busy_points(struct __test_metadata *_metadata,
			FIXTURE_DATA(teardown) *self, teardown_fn fn)
{
	const int64_t d = BUSY_DELAY_US * 1000ll;
	const int64_t at[] = {
		0, 5 * MS, d - 5 * MS, d, d + 2 * MS, d + 5 * MS, d + 15 * MS,
		d + 40 * MS,
	};
	char what[64];
	unsigned int i, k;

	for (k = 0; k < ITERATIONS; k++) {
		for (i = 0; i < ARRAY_SIZE(at); i++) {
			snprintf(what, sizeof(what), "busy, %lld ms, round %u",
				 (long long)(at[i] / MS + k), k);
			fn(_metadata, self, BUSY_DELAY_US, at[i] + k * MS,
			   what);
		}
	}
	still_works(_metadata, self);
}

/*
 * Opens a file of its own and queues work on it that waits on @gate (a
 * syncobj of self->fd) through an in-sync: a fill, then a job behind it.
 * Returns the file.
 */
static int foreign_gated_load(struct __test_metadata *_metadata,
			      FIXTURE_DATA(teardown) *self,
			      const struct weave_test_gate *gate)
{
	int fd = weave_test_open(_metadata), sfd = -1;
	uint32_t obj, stream, bo;
	struct weave_test_batch b;
	struct drm_weave_sync in;

	ASSERT_EQ(0, drmSyncobjExportSyncFile(self->fd, gate->syncobj, &sfd));
	obj = weave_test_syncobj(_metadata, fd);
	ASSERT_EQ(0, drmSyncobjImportSyncFile(fd, obj, sfd));
	close(sfd);
	stream = weave_test_stream(_metadata, fd, DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, fd, self->page, 0);
	in = weave_sync(obj, 0);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 0xf0e1);
	ASSERT_EQ(0, weave_enqueue(fd, stream, b.task, b.n, &in, 1, NULL));
	ASSERT_EQ(0, weave_flush(fd, stream, NULL));
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 0xf0e2);
	weave_test_enqueue(_metadata, fd, stream, &b);
	ASSERT_EQ(0, weave_flush(fd, stream, NULL));
	return fd;
}

/*
 * Closing a file never waits on another party's fence: its jobs wait on a
 * gate that nobody signals during the test, and the close returns, the
 * gate still shut: that it is still shut is the proof, whatever the time
 * the close took.  (A close that waited for a sw_sync gate would never
 * return, and the harness's timeout fails the test; a vgem gate opens by
 * itself after 10 s, so a try whose gate expired is made again, up to
 * WEAVE_TEST_GATE_TRIES, each saying how long its close took.)
 * Everything is reaped once the gate opens.
 */
TEST_F_TIMEOUT(teardown, close_never_waits_on_a_foreign_fence, 60)
{
	struct weave_test_gate gate;
	int64_t t0, dt;
	int fd, tries;

	for (tries = 1;; tries++) {
		weave_test_gate_open(_metadata, &gate, self->fd);
		fd = foreign_gated_load(_metadata, self, &gate);
		t0 = weave_test_now();
		ASSERT_EQ(0, close(fd));
		dt = weave_test_now() - t0;
		if (!weave_test_gate_expired(self->fd, &gate))
			break;
		TH_LOG("the close took %lld ms", (long long)(dt / MS));
		weave_test_gate_again(_metadata, self->fd, &gate, tries);
		await_reaped(_metadata, self, "after the close");
	}
	weave_test_gate_pending(_metadata, self->fd, &gate);
	weave_test_gate_wait(_metadata, self->fd, &gate);
	await_reaped(_metadata, self, "after the close");
}

/*
 * The same for a process that exits with the file open: the child sets
 * its load up, and exits; the parent reaps it with the gate still shut.
 */
TEST_F_TIMEOUT(teardown, exit_never_waits_on_a_foreign_fence, 60)
{
	struct weave_test_gate gate;
	int status, fd, tries;
	int64_t t0, dt;
	pid_t pid;

	for (tries = 1;; tries++) {
		weave_test_gate_open(_metadata, &gate, self->fd);
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			fd = foreign_gated_load(_metadata, self, &gate);
			(void)fd;
			_exit(0);
		}
		t0 = weave_test_now();
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		dt = weave_test_now() - t0;
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
		if (!weave_test_gate_expired(self->fd, &gate))
			break;
		TH_LOG("the load and the exit took %lld ms",
		       (long long)(dt / MS));
		weave_test_gate_again(_metadata, self->fd, &gate, tries);
		await_reaped(_metadata, self, "after the exit");
	}
	weave_test_gate_pending(_metadata, self->fd, &gate);
	weave_test_gate_wait(_metadata, self->fd, &gate);
	await_reaped(_metadata, self, "after the exit");
}

TEST_F_TIMEOUT(teardown, close_during_hang, 120)
{
	hang_points(_metadata, self, close_at);
}

TEST_F_TIMEOUT(teardown, kill_during_hang, 120)
{
	hang_points(_metadata, self, kill_at);
}

TEST_F_TIMEOUT(teardown, close_busy_queue, 60)
{
	busy_points(_metadata, self, close_at);
}

TEST_F_TIMEOUT(teardown, kill_busy_queue, 60)
{
	busy_points(_metadata, self, kill_at);
}

TEST_HARNESS_MAIN
