// SPDX-License-Identifier: GPL-2.0
/*
 * weave: the slots' staging arenas.  Small host writes share their slot's
 * arena, large ones have memory of their own; a full arena makes ENQUEUE
 * execute the slot and wait, -EBUSY if the work ahead is held, -EINTR on a
 * signal, and a kill ends the wait; a host write cut short leaves its
 * slice clean for the next one.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weave_test.h"

/* Host writes per arena in the pressure tests: each takes a quarter. */
#define PER_ARENA	4
/* Host writes the pressure tests make: four arenas' worth. */
#define WRITES		(4 * PER_ARENA)

FIXTURE(staging) {
	WEAVE_TEST_FILE_FIELDS;
	uint32_t stream;
	/* A host write that takes a quarter of the arena, and its data. */
	uint32_t quarter;
	uint8_t *data;
};

FIXTURE_SETUP(staging)
{
	WEAVE_TEST_FILE_SETUP();
	ASSERT_LE(4u, self->info.uapi_minor);
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	self->quarter = self->info.slot_staging_bytes / PER_ARENA - 16;
	self->data = malloc((size_t)WRITES * self->quarter);
	ASSERT_NE(NULL, self->data);
	weave_test_fill(self->data, (size_t)WRITES * self->quarter, 0x57a6);
}

FIXTURE_TEARDOWN(staging)
{
	free(self->data);
	close(self->fd);
}

/* A buffer for @n quarters, page-rounded. */
static uint32_t quarters_bo(struct __test_metadata *_metadata,
			    FIXTURE_DATA(staging) *self, uint32_t n)
{
	uint64_t size = (uint64_t)n * self->quarter;

	size = (size + self->page - 1) / self->page * self->page;
	return weave_test_bo(_metadata, self->fd, size, 0);
}

/* Quarter @i of the data, written to quarter @i of @bo. */
static int write_quarter(FIXTURE_DATA(staging) *self, uint32_t bo,
			 uint32_t i)
{
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	weave_test_write_task(&b, bo, (uint64_t)i * self->quarter,
			      self->quarter, self->data +
			      (size_t)i * self->quarter);
	return weave_test_submit(self->fd, self->stream, &b);
}

/*
 * Staging pressure: a NOOP gated on @gate, which this opens, holds the
 * slot's work back, and host writes of PER_ARENA quarters of @bo fill its
 * arena.  Returns 0 or the first negative errno.
 */
static int fill_arena_gated(struct __test_metadata *_metadata,
			    FIXTURE_DATA(staging) *self,
			    struct weave_test_gate *gate, uint32_t bo)
{
	uint32_t i;
	int ret;

	weave_test_gate_open(_metadata, gate, self->fd);
	ret = weave_test_gated_noop(gate, self->fd, self->stream);
	for (i = 0; !ret && i < PER_ARENA; i++)
		ret = write_quarter(self, bo, i);
	return ret;
}

/* Quarters 0..@n-1 of @bo hold the data's. */
static void expect_quarters(struct __test_metadata *_metadata,
			    FIXTURE_DATA(staging) *self, uint32_t bo,
			    uint32_t n)
{
	size_t len = (size_t)n * self->quarter;
	size_t size = (len + self->page - 1) / self->page * self->page;
	uint8_t *map = weave_test_map(_metadata, self->fd, bo, size);

	EXPECT_EQ(0, memcmp(map, self->data, len));
	weave_test_unmap(_metadata, map, size);
}

/* Small writes go to the slot's arena, made on the first, kept at idle. */
TEST_F(staging, small_writes_share_the_arena)
{
	const uint32_t n = 16, len = 64;
	struct drm_weave_client_usage u;
	struct weave_test_batch b;
	uint32_t bo, i;

	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	u = weave_test_client_usage(_metadata, self->fd);
	EXPECT_EQ(0u, u.arena_bytes);
	weave_test_batch_init(&b);
	for (i = 0; i < n; i++)
		weave_test_write_task(&b, bo, i * len, len,
				      self->data + i * len);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	u = weave_test_client_usage(_metadata, self->fd);
	EXPECT_EQ(self->info.slot_staging_bytes, u.arena_bytes);
	EXPECT_EQ(0u, u.alone_bytes);
	EXPECT_EQ((uint64_t)n * len, u.staged_bytes);

	weave_test_finish(_metadata, self->fd, self->stream);
	u = weave_test_client_idle(_metadata, self->fd);
	EXPECT_EQ(0u, u.staged_bytes);
	EXPECT_EQ(self->info.slot_staging_bytes, u.arena_bytes);
	self->quarter = len;
	expect_quarters(_metadata, self, bo, n);
}

/*
 * max_staging_slice is the largest write the arena takes; one byte more
 * has memory of its own, at its length rounded up to 16, plus 16, which
 * goes once it was written.
 */
TEST_F(staging, large_write_has_memory_of_its_own)
{
	uint32_t max = self->info.max_staging_slice, len = max + 1;
	struct drm_weave_client_usage u;
	struct weave_test_batch b;
	uint8_t *data, *got;
	uint32_t bo;

	data = malloc(len);
	ASSERT_NE(NULL, data);
	weave_test_fill(data, len, 0x1a);
	bo = weave_test_bo(_metadata, self->fd,
			   (len + self->page - 1) / self->page * self->page, 0);
	weave_test_batch_init(&b);
	weave_test_write_task(&b, bo, 0, len, data);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	u = weave_test_client_usage(_metadata, self->fd);
	EXPECT_EQ(0u, u.arena_bytes);
	EXPECT_EQ((len + 15ull) / 16 * 16 + 16, u.alone_bytes);
	weave_test_finish(_metadata, self->fd, self->stream);
	u = weave_test_client_idle(_metadata, self->fd);
	EXPECT_EQ(0u, u.alone_bytes);
	EXPECT_EQ(0u, u.arena_bytes);

	/* The largest that fits goes to the arena. */
	weave_test_write_task(&b, bo, 0, max, self->data);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	u = weave_test_client_usage(_metadata, self->fd);
	EXPECT_EQ(self->info.slot_staging_bytes, u.arena_bytes);
	EXPECT_EQ(0u, u.alone_bytes);
	weave_test_finish(_metadata, self->fd, self->stream);
	/* The second write over the first, but for its last byte. */
	memcpy(data, self->data, max);
	got = malloc(len);
	ASSERT_NE(NULL, got);
	ASSERT_EQ(0, weave_read(self->fd, bo, 0, len, got,
				weave_timeout_ns(WEAVE_TEST_WAIT_NS), NULL,
				NULL, NULL, NULL));
	EXPECT_EQ(0, memcmp(got, data, len));
	free(got);
	free(data);
}

/*
 * One ENQUEUE's writes take at most half the arena; the rest of them get
 * memory of their own, so a call never waits on its own slices.
 */
TEST_F(staging, one_call_takes_at_most_half)
{
	const uint32_t n = PER_ARENA + 2;
	struct drm_weave_client_usage u;
	struct weave_test_batch b;
	uint32_t bo, i;

	bo = quarters_bo(_metadata, self, n);
	weave_test_batch_init(&b);
	for (i = 0; i < n; i++)
		weave_test_write_task(&b, bo, (uint64_t)i * self->quarter,
				      self->quarter,
				      self->data + (size_t)i * self->quarter);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	u = weave_test_client_usage(_metadata, self->fd);
	/* Two quarters fill the half; the other four are alone. */
	EXPECT_EQ((uint64_t)(n - PER_ARENA / 2) *
		  (self->info.slot_staging_bytes / PER_ARENA), u.alone_bytes);
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).executed);
	weave_test_finish(_metadata, self->fd, self->stream);
	expect_quarters(_metadata, self, bo, n);
}

/*
 * Pressure: with the slot's work queued behind a delay and never flushed,
 * writes of four arenas' worth, one per call, all go through; a full
 * arena made the calls execute the slot and wait for its slices.
 */
TEST_F(staging, pressure_executes_and_waits)
{
	struct weave_test_batch b;
	uint64_t jobs;
	uint32_t bo, i;

	bo = quarters_bo(_metadata, self, WRITES);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS,
			 self->info.max_tasks);
	ASSERT_LT(2u * WRITES, self->info.max_tasks) {
		TH_LOG("max_tasks %u executes by itself", self->info.max_tasks);
	}
	jobs = weave_test_jobs(_metadata, self->fd);
	weave_test_batch_init(&b);
	weave_test_delay(&b, 50000);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	for (i = 0; i < WRITES; i++)
		ASSERT_EQ(0, write_quarter(self, bo, i)) {
			TH_LOG("write %u of %u", i, WRITES);
		}
	/* Nobody flushed, yet the arena's writes were executed and ran. */
	EXPECT_LT(jobs, weave_test_jobs(_metadata, self->fd));
	EXPECT_LE((uint64_t)WRITES - PER_ARENA + 1,
		  weave_test_squery(_metadata, self->fd,
				    self->stream).executed);
	weave_test_finish(_metadata, self->fd, self->stream);
	expect_quarters(_metadata, self, bo, WRITES);
}

/*
 * The slot's work held by a gate: the arena stays full, and the call that
 * finds no room waits a job timeout for none, then fails with -EBUSY
 * having queued nothing.  Once the gate opens, it goes through.  That wait
 * is within the gate's window: a try whose vgem gate expired is made
 * again.
 */
TEST_F_TIMEOUT(staging, pressure_on_held_work_is_ebusy, 120)
{
	uint64_t enqueued, before, staged;
	struct weave_test_gate gate;
	int64_t start, timeout, took;
	int tries, busy;
	uint32_t bo;

	timeout = self->info.job_timeout_ms * 1000000ll;
	bo = quarters_bo(_metadata, self, PER_ARENA + 1);
	for (tries = 1;; tries++) {
		before = weave_test_squery(_metadata, self->fd,
					   self->stream).enqueued;
		ASSERT_EQ(0, fill_arena_gated(_metadata, self, &gate, bo));
		/* The wait below must end well before vgem lets the gate go. */
		ASSERT_TRUE(!gate.vgem ||
			    WEAVE_TEST_VGEM_EXPIRY_NS > 3 * timeout + WEAVE_TEST_SEC) {
			TH_LOG("job_timeout_ms %u is too long for a vgem gate to outlast the wait",
			       self->info.job_timeout_ms);
		}
		start = weave_test_now();
		busy = write_quarter(self, bo, PER_ARENA);
		took = weave_test_now() - start;
		enqueued = weave_test_squery(_metadata, self->fd,
					     self->stream).enqueued - before;
		staged = weave_test_client_usage(_metadata,
						 self->fd).staged_bytes;
		if (!weave_test_gate_expired(self->fd, &gate))
			break;
		weave_test_gate_again(_metadata, self->fd, &gate, tries);
		weave_test_finish(_metadata, self->fd, self->stream);
	}
	EXPECT_EQ(-EBUSY, busy);
	EXPECT_LE(timeout, took);
	EXPECT_EQ(PER_ARENA + 1u, enqueued);
	EXPECT_EQ((uint64_t)PER_ARENA * self->quarter, staged);
	weave_test_gate_pending(_metadata, self->fd, &gate);

	weave_test_gate_wait(_metadata, self->fd, &gate);
	ASSERT_EQ(0, write_quarter(self, bo, PER_ARENA));
	weave_test_finish(_metadata, self->fd, self->stream);
	expect_quarters(_metadata, self, bo, PER_ARENA + 1);
}

static void staging_alarm(int sig)
{
	(void)sig;
}

/*
 * A signal ends the wait: without SA_RESTART the call fails with -EINTR,
 * queued nothing, and the same call goes through later.
 */
TEST_F_TIMEOUT(staging, signal_interrupts_the_wait, 120)
{
	struct itimerval it = { .it_value = { .tv_usec = 200000 } };
	struct sigaction sa = { .sa_handler = staging_alarm };
	struct drm_weave_binding bind;
	struct drm_weave_enqueue args;
	struct drm_weave_task task;
	struct weave_test_gate gate;
	uint32_t bo;
	int ret;

	bo = quarters_bo(_metadata, self, PER_ARENA + 1);
	ASSERT_EQ(0, fill_arena_gated(_metadata, self, &gate, bo));

	/* A raw ioctl: drmIoctl() would restart it. */
	bind = weave_binding(bo, DRM_WEAVE_ACCESS_WRITE,
			     (uint64_t)PER_ARENA * self->quarter,
			     self->quarter);
	weave_task_host_write(&task, &bind,
			      self->data + (size_t)PER_ARENA * self->quarter);
	memset(&args, 0, sizeof(args));
	args.stream = self->stream;
	args.tasks.ptr = (uintptr_t)&task;
	args.tasks.stride = sizeof(task);
	args.tasks.count = 1;
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	ret = ioctl(self->fd, DRM_IOCTL_WEAVE_ENQUEUE, &args) ? -errno : 0;
	signal(SIGALRM, SIG_DFL);
	EXPECT_EQ(-EINTR, ret);
	EXPECT_EQ(PER_ARENA + 1u, weave_test_squery(_metadata, self->fd,
						    self->stream).enqueued);
	/* Nothing of the call stayed: no task, no staged byte. */
	EXPECT_EQ(PER_ARENA + 1u,
		  weave_test_client_usage(_metadata, self->fd).pending_tasks);
	EXPECT_EQ((uint64_t)PER_ARENA * self->quarter,
		  weave_test_client_usage(_metadata, self->fd).staged_bytes);
	weave_test_gate_pending(_metadata, self->fd, &gate);

	weave_test_gate_wait(_metadata, self->fd, &gate);
	ASSERT_EQ(0, write_quarter(self, bo, PER_ARENA));
	weave_test_finish(_metadata, self->fd, self->stream);
	expect_quarters(_metadata, self, bo, PER_ARENA + 1);
}

/*
 * A process killed while it waits for its arena dies at once, and its
 * file, arena and held work all go: weave.ko's count comes back.
 */
TEST_F_TIMEOUT(staging, kill_during_the_wait, 120)
{
	struct weave_test_gate gate;
	long base = weave_test_settled_refs();
	int status;
	pid_t child;

	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		FIXTURE_DATA(staging) c = *self;
		uint32_t bo;

		c.fd = weave_test_open(_metadata);
		c.stream = weave_test_stream(_metadata, c.fd,
					     DRM_WEAVE_PRIORITY_NORMAL);
		bo = quarters_bo(_metadata, &c, PER_ARENA + 1);
		if (fill_arena_gated(_metadata, &c, &gate, bo))
			_exit(1);
		/* Waits until the kill: nothing signals the gate before. */
		while (write_quarter(&c, bo, PER_ARENA) == -EBUSY)
			;
		_exit(3);
	}
	/* Its wait has begun by now, or the kill finds it on its way. */
	usleep(self->info.job_timeout_ms * 1000 / 2 + 500000);
	ASSERT_EQ(0, kill(child, SIGKILL));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status)) {
		TH_LOG("the child exited with %d before the kill",
		       WEXITSTATUS(status));
	}
	weave_test_await_refs(_metadata, base);
}

/*
 * A host write cut short by the job timeout taints its destination, not
 * its slice: the next write, in the same bytes of the arena, lands good,
 * and rewriting the destination makes it good too.
 */
TEST_F_TIMEOUT(staging, cut_short_write_leaves_its_slice_clean, 120)
{
	struct drm_weave_check_range r;
	struct drm_weave_failure f;
	struct weave_test_batch b;
	uint32_t x, y, nf = 1;

	x = weave_test_bo(_metadata, self->fd, self->page, 0);
	y = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_delay(&b, weave_test_hang_delay_us(_metadata, &self->info));
	weave_test_write_task(&b, x, 0, self->page, self->data);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	weave_test_finish(_metadata, self->fd, self->stream);
	r = weave_check_range(x, 0, self->page);
	memset(&f, 0, sizeof(f));
	ASSERT_EQ(0, weave_check(self->fd, &r, 1, &f, &nf, NULL, NULL));
	ASSERT_EQ(1u, r.nfailures);
	EXPECT_EQ(-ETIMEDOUT, f.error);

	/* The arena is idle: the next slice starts where x's was. */
	weave_test_write_task(&b, y, 0, self->page,
			      self->data + self->page);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	weave_test_finish(_metadata, self->fd, self->stream);
	weave_test_expect_good(_metadata, self->fd, y, 0, self->page);
	ASSERT_EQ(0, weave_read(self->fd, y, 0, self->page,
				self->data + 2 * self->page,
				weave_timeout_ns(WEAVE_TEST_WAIT_NS), NULL,
				NULL, NULL, NULL));
	EXPECT_EQ(0, memcmp(self->data + self->page,
			    self->data + 2 * self->page, self->page));

	/* x still carries the timeout until it is written again. */
	nf = 1;
	ASSERT_EQ(0, weave_check(self->fd, &r, 1, &f, &nf, NULL, NULL));
	EXPECT_EQ(1u, r.nfailures);
	weave_test_write_task(&b, x, 0, self->page, self->data);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	weave_test_finish(_metadata, self->fd, self->stream);
	weave_test_expect_good(_metadata, self->fd, x, 0, self->page);
}

TEST_HARNESS_MAIN
