// SPDX-License-Identifier: GPL-2.0
/*
 * weave: KCOV follows a job's tasks to the thread that runs them.  A task
 * that enables remote coverage with a common handle (as syzkaller does)
 * must find in its buffer the PCs of weave_eng_run_task(), which only a
 * job's run executes (inline in run_job, or on the queue's worker), for
 * its own jobs, and none for another collector's.  Each job starts with a
 * delay, which never runs at the push (see "DOC: hardware queues", Eager
 * runs): a job run by the submitting thread itself is the coverage of
 * that thread's own KCOV, not remote.  So is the polling thread's work on
 * a polled ring the coverage of the ring's creator, and so are the jobs
 * the thread commits for it.
 *
 * It needs a kernel with CONFIG_KCOV (the KCOV variant of the debug
 * kernel: WEAVE_SUITES=kcov_remote scripts/vm/run.sh CACHE KVER check), and
 * root for /proc/kallsyms' addresses; elsewhere it skips.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/kcov.h>

#include "weave_test.h"

/* Words of the coverage buffer: the job's run makes a few hundred PCs. */
#define KR_WORDS	(1u << 16)
/* Any instance: a common handle only has to be unique on the machine. */
#define KR_HANDLE	kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, 0x5eaf)
/* The remote section ends after the job's fence signals: poll this long. */
#define KR_SETTLE_NS	(2 * 1000000000LL)
#define KR_POLL_PARAM	"/sys/module/weave/parameters/ring_poll_idle_us"

struct kr_range {
	uint64_t lo, hi;
};

/*
 * The address range of weave.ko's function @name, from /proc/kallsyms
 * (its start to the next weave symbol's); zero if it cannot be read, as
 * without root.
 */
static struct kr_range kr_symbol(const char *name)
{
	struct kr_range r = { 0, 0 };
	char line[512], sym[256], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return r;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[weave]") ||
		    sscanf(line, "%llx %c %255s", &addr, &type, sym) != 3)
			continue;
		if (!strcmp(sym, name))
			r.lo = addr;
		else if (r.lo && addr > r.lo && (!r.hi || addr < r.hi))
			r.hi = addr;
	}
	fclose(f);
	if (!r.hi)
		r.lo = 0;
	return r;
}

FIXTURE(kr) {
	int fd;
	int kcov;
	uint64_t *area;
	uint32_t stream;
	uint32_t bo;
	struct kr_range run_task;
	struct kr_range poll_ring;
	/* Set up: the harness runs a test's body after a skipped setup. */
	bool ready;
};

FIXTURE_SETUP(kr)
{
	struct kcov_remote_arg arg = {
		.trace_mode = KCOV_TRACE_PC,
		.area_size = KR_WORDS,
		.common_handle = KR_HANDLE,
	};

	self->fd = -1;
	self->kcov = open("/sys/kernel/debug/kcov", O_RDWR);
	if (self->kcov < 0)
		SKIP(return, "no /sys/kernel/debug/kcov: a kernel without CONFIG_KCOV");
	self->run_task = kr_symbol("weave_eng_run_task");
	self->poll_ring = kr_symbol("weave_sring_poll_ring");
	if (!self->run_task.lo || !self->poll_ring.lo)
		SKIP(return, "weave.ko's addresses are not in /proc/kallsyms");
	ASSERT_EQ(0, ioctl(self->kcov, KCOV_INIT_TRACE, (unsigned long)KR_WORDS));
	self->area = mmap(NULL, KR_WORDS * sizeof(uint64_t),
			  PROT_READ | PROT_WRITE, MAP_SHARED, self->kcov, 0);
	ASSERT_NE(MAP_FAILED, self->area);
	/* From here the jobs this task commits are covered into area. */
	ASSERT_EQ(0, ioctl(self->kcov, KCOV_REMOTE_ENABLE, &arg)) {
		TH_LOG("KCOV_REMOTE_ENABLE: %s", strerror(errno));
	}
	self->fd = weave_test_open(_metadata);
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	self->bo = weave_test_bo(_metadata, self->fd, 4096, 0);
	self->ready = true;
}

FIXTURE_TEARDOWN(kr)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->area && self->area != MAP_FAILED) {
		ioctl(self->kcov, KCOV_DISABLE, 0);
		munmap(self->area, KR_WORDS * sizeof(uint64_t));
	}
	if (self->kcov >= 0)
		close(self->kcov);
}

/* The PCs of the buffer in @r, counted; the buffer's count is word 0. */
static uint64_t kr_hits(const uint64_t *area, struct kr_range r)
{
	uint64_t n = __atomic_load_n(&area[0], __ATOMIC_RELAXED);
	uint64_t i, hits = 0;

	for (i = 0; i < n && i + 1 < KR_WORDS; i++)
		if (area[i + 1] >= r.lo && area[i + 1] < r.hi)
			hits++;
	return hits;
}

/* Waits up to KR_SETTLE_NS for a PC in @r to arrive. */
static uint64_t kr_await(const uint64_t *area, struct kr_range r)
{
	int64_t deadline = weave_test_now() + KR_SETTLE_NS;
	uint64_t hits;

	while (!(hits = kr_hits(area, r)) && weave_test_now() < deadline)
		usleep(1000);
	return hits;
}

/* A job the submitting thread does not run: a delay, then a fill. */
static void kr_job(struct weave_test_batch *b, uint32_t bo, uint32_t pattern)
{
	weave_test_batch_init(b);
	weave_test_delay(b, 1);
	weave_test_fill_task(b, bo, 0, 4096, pattern);
}

/* Submits one such job on @stream and waits for it. */
static void kr_fill(struct __test_metadata *_metadata, int fd,
		    uint32_t stream, uint32_t bo)
{
	struct weave_test_batch b;

	kr_job(&b, bo, 0x5a5a5a5a);
	weave_test_enqueue(_metadata, fd, stream, &b);
	weave_test_finish(_metadata, fd, stream);
}

/* This task's job is covered, though another thread ran it. */
TEST_F(kr, own_job_is_covered)
{
	if (!self->ready)
		return;
	__atomic_store_n(&self->area[0], 0, __ATOMIC_RELAXED);
	kr_fill(_metadata, self->fd, self->stream, self->bo);
	EXPECT_LT(0u, kr_await(self->area, self->run_task)) {
		TH_LOG("%" PRIu64 " PCs, none in weave_eng_run_task",
		       (uint64_t)self->area[0]);
	}
}

/*
 * Another collector's jobs (a child, which would inherit this task's
 * handle, enables its own) go to its buffer, not this task's; this
 * task's next job still comes here.
 */
TEST_F(kr, other_collector_job_is_not)
{
	int status;
	pid_t pid;

	if (!self->ready)
		return;
	__atomic_store_n(&self->area[0], 0, __ATOMIC_RELAXED);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct kcov_remote_arg arg = {
			.trace_mode = KCOV_TRACE_PC,
			.area_size = KR_WORDS,
			.common_handle = KR_HANDLE + 1,
		};
		uint32_t stream = 0, bo = 0, i;
		struct weave_test_batch b;
		uint64_t size = 4096;
		uint64_t *area;
		int kcov, fd;

		kcov = open("/sys/kernel/debug/kcov", O_RDWR);
		if (kcov < 0 ||
		    ioctl(kcov, KCOV_INIT_TRACE, (unsigned long)KR_WORDS))
			_exit(2);
		area = mmap(NULL, KR_WORDS * sizeof(uint64_t),
			    PROT_READ | PROT_WRITE, MAP_SHARED, kcov, 0);
		if (area == MAP_FAILED ||
		    ioctl(kcov, KCOV_REMOTE_ENABLE, &arg))
			_exit(3);
		fd = weave_device_open(0);
		if (fd < 0 || weave_stream_create(fd, 0, &stream) ||
		    weave_bo_create(fd, &size, 0, &bo))
			_exit(4);
		for (i = 0; i < 16; i++) {
			kr_job(&b, bo, i);
			if (weave_test_submit(fd, stream, &b) ||
			    weave_flush(fd, stream, NULL) ||
			    weave_wait(fd, stream, weave_timeout_ns(WEAVE_TEST_WAIT_NS)))
				_exit(5);
		}
		/* Its own jobs are its coverage. */
		_exit(kr_await(area, self->run_task) ? 0 : 6);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0u, kr_hits(self->area, self->run_task));
	kr_fill(_metadata, self->fd, self->stream, self->bo);
	EXPECT_LT(0u, kr_await(self->area, self->run_task));
}

/* Writes @val to ring_poll_idle_us, first reading it into @old. */
static int kr_poll_idle(const char *val, char *old, size_t size)
{
	ssize_t n = 0;
	int fd;

	fd = open(KR_POLL_PARAM, O_RDWR);
	if (fd < 0)
		return -errno;
	if (old) {
		n = read(fd, old, size - 1);
		old[n > 0 ? n : 0] = 0;
	}
	if (n >= 0)
		n = pwrite(fd, val, strlen(val), 0);
	close(fd);
	return n < 0 ? -errno : 0;
}

/*
 * What the polling thread consumes of this task's polled ring, and the
 * jobs it commits for it, are this task's coverage: PCs of the thread's
 * consume (weave_sring_poll_ring(), which this task's own doorbell runs
 * uncollected: its KCOV is remote only) and of the delayed job's run.
 * A round whose publication found the thread asleep rang the doorbell,
 * so the thread consumed nothing of it: then another round.
 */
TEST_F(kr, polled_ring_is_covered)
{
	struct drm_weave_ring_desc *d;
	uint32_t entered = 1, usec = 1;
	struct weave_ring r;
	char idle[32];
	int round, ms;

	if (!self->ready)
		return;
	/* The thread polls for a second after its last work. */
	ASSERT_EQ(0, kr_poll_idle("1000000", idle, sizeof(idle)));
	ASSERT_EQ(0, weave_ring_create_flags(self->fd, self->stream, 64,
					     DRM_WEAVE_RING_CREATE_POLL, &r));
	__atomic_store_n(&self->area[0], 0, __ATOMIC_RELAXED);
	for (round = 0; round < 5 && entered; round++) {
		EXPECT_EQ(0, weave_ring_wakeup(&r, NULL));
		entered = 0;
		/* A delay, which never runs at its push, then a no-op. */
		d = weave_ring_reserve(&r, 0, sizeof(usec));
		ASSERT_NE(NULL, d);
		d->type = DRM_WEAVE_TASK_LAUNCH;
		d->kernel = DRM_WEAVE_KERNEL_DELAY;
		d->grid[0] = d->grid[1] = d->grid[2] = 1;
		memcpy(weave_ring_desc_uniforms(d), &usec, sizeof(usec));
		ASSERT_EQ(0, weave_ring_noop(&r));
		ASSERT_EQ(0, weave_ring_submit(&r, &entered));
		for (ms = 0; ms < 8000 && weave_ring_head(&r) != r.tail; ms++)
			usleep(1000);
		ASSERT_EQ(r.tail, weave_ring_head(&r));
	}
	ASSERT_EQ(0, weave_ring_error(&r, NULL));
	ASSERT_EQ(0u, entered) {
		TH_LOG("the polling thread slept at every publication");
	}
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	ASSERT_EQ(0, weave_wait(self->fd, self->stream,
				weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
	EXPECT_LT(0u, kr_await(self->area, self->poll_ring)) {
		TH_LOG("%" PRIu64 " PCs, none in weave_sring_poll_ring",
		       (uint64_t)self->area[0]);
	}
	EXPECT_LT(0u, kr_await(self->area, self->run_task)) {
		TH_LOG("%" PRIu64 " PCs, none in weave_eng_run_task",
		       (uint64_t)self->area[0]);
	}
	EXPECT_EQ(0, weave_ring_destroy(&r));
	EXPECT_EQ(0, kr_poll_idle(idle, NULL, 0));
}

TEST_HARNESS_MAIN
