// SPDX-License-Identifier: GPL-2.0
/*
 * weave: shared submission rings of poll mode (uAPI 1.10): consumption by
 * the device's polling thread with no system call, the wake-up flag, the
 * error word and resume, teardown mid-stream, two clients, and misuse of
 * the flag and of the ring_poll_idle_us parameter, a producer that
 * shares its CPU with the thread, and idle polling kept out of the load.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weave_test.h"

#define POLL_PARAM	"/sys/module/weave/parameters/ring_poll_idle_us"
/*
 * The bound of every wait for the thread: no timing assertion, and below
 * the harness's timeout, so that a wait that fails says which.
 */
#define POLL_WAIT_MS	8000
/* A long idle time, so that the thread polls through a test's steps. */
#define POLL_LONG_US	1000000

FIXTURE(ring_poll) {
	WEAVE_TEST_FILE_FIELDS;
	uint32_t stream;
	struct weave_ring r;
	char idle[32];
};

/* Writes @val to ring_poll_idle_us; returns 0 or -errno. */
static int poll_param_set(const char *val)
{
	int fd = open(POLL_PARAM, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* Reads ring_poll_idle_us into @buf; returns 0 or -errno. */
static int poll_param_get(char *buf, size_t size)
{
	int fd = open(POLL_PARAM, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	return 0;
}

FIXTURE_SETUP(ring_poll)
{
	char val[32];

	WEAVE_TEST_FILE_SETUP();
	ASSERT_LE(10u, self->info.uapi_minor) {
		TH_LOG("uAPI 1.%u has no polled rings", self->info.uapi_minor);
	}
	ASSERT_EQ(0, poll_param_get(self->idle, sizeof(self->idle)));
	snprintf(val, sizeof(val), "%u", POLL_LONG_US);
	ASSERT_EQ(0, poll_param_set(val));
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_EQ(0, weave_ring_create_flags(self->fd, self->stream, 64,
					     DRM_WEAVE_RING_CREATE_POLL,
					     &self->r));
}

FIXTURE_TEARDOWN(ring_poll)
{
	poll_param_set(self->idle);
	close(self->fd);
}

typedef FIXTURE_DATA(ring_poll) ring_poll_t;

/* --- helpers ------------------------------------------------------------- */

static uint32_t poll_flags(const struct weave_ring *r)
{
	return __atomic_load_n(&r->hdr->flags, __ATOMIC_ACQUIRE);
}

/* Waits, bounded, until @r's flags & @mask is @want; returns whether. */
static int poll_wait_flags(const struct weave_ring *r, uint32_t mask,
			   uint32_t want)
{
	int ms;

	for (ms = 0; ms < POLL_WAIT_MS; ms++) {
		if ((poll_flags(r) & mask) == want)
			return 1;
		usleep(1000);
	}
	return 0;
}

/* Waits, bounded, until the kernel consumed all @r published. */
static int poll_wait_head(const struct weave_ring *r)
{
	int ms;

	for (ms = 0; ms < POLL_WAIT_MS; ms++) {
		if (weave_ring_head(r) == r->tail ||
		    poll_flags(r) & DRM_WEAVE_RING_STOPPED)
			return weave_ring_head(r) == r->tail;
		usleep(1000);
	}
	return 0;
}

/* Reserves @n no-op launches; returns how many there was room for. */
static uint32_t poll_noops(struct weave_ring *r, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (weave_ring_noop(r))
			break;
	return i;
}

/*
 * Publishes @n no-ops while the thread polls, with no system call, and
 * waits until it consumed them.  The thread may have gone to sleep just
 * before the publication (the flag says so, and the doorbell is rung):
 * then try again, a few times.  Returns the tries that made no call.
 */
static int poll_round(struct __test_metadata *_metadata, struct weave_ring *r,
		      uint32_t n)
{
	uint32_t entered = 0;
	int tries;

	for (tries = 0; tries < 5; tries++) {
		if (poll_flags(r) & DRM_WEAVE_RING_NEED_WAKEUP)
			EXPECT_EQ(0, weave_ring_enter(r->fd, NULL));
		EXPECT_TRUE(poll_wait_flags(r, DRM_WEAVE_RING_NEED_WAKEUP, 0));
		entered = 0;
		EXPECT_EQ(n, poll_noops(r, n));
		EXPECT_EQ(0, weave_ring_submit(r, &entered));
		EXPECT_TRUE(poll_wait_head(r));
		if (!entered)
			return 1;
	}
	return 0;
}

/* Thread ids of the polling threads (weave-poll/N), at most @max. */
static int poll_threads(pid_t *tids, int max)
{
	struct dirent *d;
	char path[300], comm[32];
	DIR *dir = opendir("/proc");
	int n = 0, fd;
	ssize_t len;

	if (!dir)
		return 0;
	while (n < max && (d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		comm[len > 0 ? len : 0] = 0;
		if (!strncmp(comm, "weave-poll/", 11))
			tids[n++] = atoi(d->d_name);
	}
	closedir(dir);
	return n;
}

/*
 * Publishes @n no-ops @batch at a time as weave-bench's ring does: waiting
 * for room with sched_yield(), and ringing the doorbell only when the
 * header asks.  Returns the doorbells rung.
 */
static uint32_t poll_stream_noops(struct __test_metadata *_metadata,
				  struct weave_ring *r, uint32_t n,
				  uint32_t batch)
{
	uint32_t entered = 0, i;

	for (i = 0; i < n; i++) {
		while (weave_ring_noop(r)) {
			EXPECT_EQ(0, weave_ring_error(r, NULL));
			EXPECT_EQ(0, weave_ring_wakeup(r, &entered));
			sched_yield();
		}
		if ((i + 1) % batch == 0)
			EXPECT_EQ(0, weave_ring_submit(r, &entered));
	}
	EXPECT_EQ(0, weave_ring_submit(r, &entered));
	return entered;
}

static int create_raw(int fd, uint32_t stream, uint32_t flags)
{
	struct drm_weave_ring_create c = {
		.stream = stream, .flags = flags, .units = 64,
	};

	return weave_test_ioctl(fd, DRM_IOCTL_WEAVE_RING_CREATE, &c);
}

/* Makes the next descriptor of @r a no-op on a buffer handle nobody has. */
static void poll_bad(struct weave_ring *r)
{
	struct drm_weave_ring_desc *d = weave_ring_reserve(r, 1, 0);

	d->type = DRM_WEAVE_TASK_LAUNCH;
	d->kernel = DRM_WEAVE_KERNEL_NOOP;
	weave_ring_desc_bindings(d)[0] =
		weave_binding(WEAVE_TEST_BAD_HANDLE, DRM_WEAVE_ACCESS_READ, 0,
			      4);
}

/* --- tests ---------------------------------------------------------------- */

TEST_F(ring_poll, consumed_without_syscall)
{
	uint64_t seqno;
	int ms;

	ASSERT_TRUE(poll_round(_metadata, &self->r, 8));
	ASSERT_TRUE(poll_round(_metadata, &self->r, 24));
	/* Ring order and seqnos as the doorbell's: 32 tasks so far. */
	seqno = weave_ring_seqno(&self->r);
	ASSERT_EQ(32u, seqno);
	/* Completions come to the header too. */
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	for (ms = 0; ms < POLL_WAIT_MS; ms++) {
		if (weave_ring_completed(&self->r) >= seqno)
			break;
		usleep(1000);
	}
	ASSERT_LE(seqno, weave_ring_completed(&self->r));
}

TEST_F(ring_poll, wakeup_flag)
{
	/* The thread polls: the flag is clear. */
	ASSERT_TRUE(poll_wait_flags(&self->r, DRM_WEAVE_RING_NEED_WAKEUP, 0));
	/* After the idle time, it sleeps, with the flag set. */
	ASSERT_EQ(0, poll_param_set("1000"));
	ASSERT_TRUE(poll_wait_flags(&self->r, DRM_WEAVE_RING_NEED_WAKEUP,
				    DRM_WEAVE_RING_NEED_WAKEUP));
	ASSERT_EQ(0, poll_param_set("1000000"));
	/*
	 * The doorbell wakes it, and returns with its rings' flags clear,
	 * so that what is published next goes without another.
	 */
	ASSERT_EQ(0, weave_ring_enter(self->fd, NULL));
	ASSERT_EQ(0u, poll_flags(&self->r) & DRM_WEAVE_RING_NEED_WAKEUP);
	ASSERT_TRUE(poll_round(_metadata, &self->r, 4));
	/* A published ring keeps it from sleeping until it is consumed. */
	ASSERT_EQ(0, poll_param_set("0"));
	ASSERT_EQ(4u, poll_noops(&self->r, 4));
	ASSERT_EQ(0, weave_ring_submit(&self->r, NULL));
	ASSERT_TRUE(poll_wait_head(&self->r));
	ASSERT_EQ(8u, weave_ring_seqno(&self->r));
}

TEST_F(ring_poll, error_and_resume)
{
	uint32_t bad, index = ~0u, consumed = ~0u;

	ASSERT_TRUE(poll_round(_metadata, &self->r, 2));
	ASSERT_EQ(2u, poll_noops(&self->r, 2));
	bad = self->r.tail;
	poll_bad(&self->r);
	ASSERT_EQ(2u, poll_noops(&self->r, 2));
	ASSERT_EQ(0, weave_ring_submit(&self->r, NULL));
	ASSERT_TRUE(poll_wait_flags(&self->r, DRM_WEAVE_RING_STOPPED,
				    DRM_WEAVE_RING_STOPPED));
	ASSERT_EQ(-ENOENT, weave_ring_error(&self->r, &index));
	ASSERT_EQ(bad, index);
	ASSERT_EQ(bad, weave_ring_head(&self->r));
	ASSERT_EQ(4u, weave_ring_seqno(&self->r));
	/* The thread does not go past it, however long it polls. */
	usleep(20000);
	ASSERT_EQ(bad, weave_ring_head(&self->r));
	/* Made a skip and resumed, the rest is consumed. */
	weave_ring_skip_bad(&self->r);
	ASSERT_EQ(0, weave_ring_resume(&self->r, &consumed));
	ASSERT_TRUE(poll_wait_head(&self->r));
	ASSERT_EQ(0, weave_ring_error(&self->r, NULL));
	ASSERT_EQ(6u, weave_ring_seqno(&self->r));
	ASSERT_EQ(-EALREADY, weave_ring_resume(&self->r, NULL));
	ASSERT_TRUE(poll_round(_metadata, &self->r, 2));
}

TEST_F(ring_poll, destroy_mid_stream)
{
	int i;

	for (i = 0; i < 20; i++) {
		poll_noops(&self->r, 30);
		weave_ring_publish(&self->r);
		/* Whatever the thread has consumed of it so far. */
		ASSERT_EQ(0, weave_ring_destroy(&self->r));
		ASSERT_EQ(0, weave_ring_create_flags(self->fd, self->stream,
						     64,
						     DRM_WEAVE_RING_CREATE_POLL,
						     &self->r));
	}
	ASSERT_TRUE(poll_round(_metadata, &self->r, 4));
	/* And the stream goes under a ring being consumed. */
	poll_noops(&self->r, 30);
	weave_ring_publish(&self->r);
	ASSERT_EQ(0, weave_stream_destroy(self->fd, self->stream));
	ASSERT_TRUE(poll_wait_flags(&self->r, DRM_WEAVE_RING_STOPPED,
				    DRM_WEAVE_RING_STOPPED));
	ASSERT_EQ(-ENOENT, weave_ring_error(&self->r, NULL));
}

TEST_F(ring_poll, close_mid_stream)
{
	struct weave_ring r2;
	uint32_t s2;
	int fd2, i;

	for (i = 0; i < 10; i++) {
		fd2 = weave_test_open(_metadata);
		s2 = weave_test_stream(_metadata, fd2,
				       DRM_WEAVE_PRIORITY_NORMAL);
		ASSERT_EQ(0, weave_ring_create_flags(fd2, s2, 64,
						     DRM_WEAVE_RING_CREATE_POLL,
						     &r2));
		poll_noops(&r2, 30);
		weave_ring_publish(&r2);
		/* The mappings hold the file: it is still consumed. */
		ASSERT_EQ(0, close(fd2));
		ASSERT_TRUE(poll_wait_head(&r2));
		poll_noops(&r2, 30);
		weave_ring_publish(&r2);
		/* The last mapping goes mid-stream: the file is released. */
		munmap(r2.sq, r2.sq_size);
		munmap((void *)r2.hdr, self->page);
	}
	ASSERT_TRUE(poll_round(_metadata, &self->r, 4));
}

TEST_F(ring_poll, exit_mid_stream)
{
	int i, status;
	pid_t pid;

	for (i = 0; i < 5; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			struct weave_ring r2;
			int fd2 = weave_device_open(0);
			uint32_t s2;
			int n;

			if (fd2 < 0 ||
			    weave_stream_create(fd2, DRM_WEAVE_PRIORITY_NORMAL,
						&s2) ||
			    weave_ring_create_flags(fd2, s2, 64,
						    DRM_WEAVE_RING_CREATE_POLL,
						    &r2))
				_exit(1);
			/* Keep it busy, then exit with it published. */
			for (n = 0; n < 200; n++) {
				poll_noops(&r2, 30);
				weave_ring_publish(&r2);
			}
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
	}
	ASSERT_TRUE(poll_round(_metadata, &self->r, 4));
}

TEST_F(ring_poll, two_clients)
{
	struct weave_ring r2;
	uint32_t s2;
	int fd2, i;

	fd2 = weave_test_open(_metadata);
	s2 = weave_test_stream(_metadata, fd2, DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_EQ(0, weave_ring_create_flags(fd2, s2, 64,
					     DRM_WEAVE_RING_CREATE_POLL, &r2));
	/* One client's ring stops; the other's goes on. */
	poll_bad(&r2);
	ASSERT_EQ(0, weave_ring_submit(&r2, NULL));
	ASSERT_TRUE(poll_wait_flags(&r2, DRM_WEAVE_RING_STOPPED,
				    DRM_WEAVE_RING_STOPPED));
	ASSERT_TRUE(poll_round(_metadata, &self->r, 16));
	/* Both busy: both consumed, each by turns. */
	weave_ring_skip_bad(&r2);
	ASSERT_EQ(0, weave_ring_resume(&r2, NULL));
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(16u, poll_noops(&self->r, 16));
		ASSERT_EQ(16u, poll_noops(&r2, 16));
		ASSERT_EQ(0, weave_ring_submit(&self->r, NULL));
		ASSERT_EQ(0, weave_ring_submit(&r2, NULL));
		ASSERT_TRUE(poll_wait_head(&self->r));
		ASSERT_TRUE(poll_wait_head(&r2));
		ASSERT_EQ(0, weave_flush(fd2, s2, NULL));
		ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	}
	ASSERT_EQ(0, weave_ring_error(&r2, NULL));
	ASSERT_EQ(0, weave_ring_destroy(&r2));
	close(fd2);
}

/*
 * A producer on the polling thread's CPU: a thread that spun there with
 * nothing to consume would keep it off the CPU until the tick (4 ms at
 * 250 Hz), past the idle time, then sleep and ask for a doorbell at
 * nearly every refill.  One that naps lets it publish.  A few doorbells
 * are allowed: a host that stops the whole vCPU for longer than the idle
 * time makes the thread find it spent, as it should.
 */
TEST_F(ring_poll, producer_on_the_thread_cpu)
{
	cpu_set_t one, own, theirs[8];
	uint32_t fills = 200, entered = 0;
	int i, n, pinned, err = 0;
	bool drained = false;
	pid_t tids[8];

	n = poll_threads(tids, 8);
	ASSERT_LE(1, n);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, sched_getaffinity(tids[i], sizeof(theirs[i]),
					       &theirs[i]));
	ASSERT_EQ(0, poll_param_set("2000"));
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(own), &own));
	/* Itself first: then a thread that refuses leaves none pinned. */
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	for (pinned = 0; pinned < n; pinned++) {
		if (sched_setaffinity(tids[pinned], sizeof(one), &one)) {
			err = errno;
			break;
		}
	}
	if (pinned == n) {
		/* A refill wakes the thread if it slept; then 200 count. */
		poll_stream_noops(_metadata, &self->r, 32, 16);
		entered = poll_stream_noops(_metadata, &self->r, fills * 32,
					    16);
		drained = poll_wait_head(&self->r);
	}
	/* Every thread back where it was, before anything may fail. */
	for (i = 0; i < pinned; i++)
		sched_setaffinity(tids[i], sizeof(theirs[i]), &theirs[i]);
	sched_setaffinity(0, sizeof(own), &own);
	ASSERT_EQ(n, pinned) {
		TH_LOG("weave-poll thread %d refused CPU 0: %s", tids[pinned],
		       strerror(err));
	}
	EXPECT_TRUE(drained);
	TH_LOG("%u doorbells in %u refills", entered, fills);
	EXPECT_GE(fills / 4, entered);
	ASSERT_EQ(0, weave_ring_error(&self->r, NULL));
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	ASSERT_EQ(0, weave_wait(self->fd, self->stream,
				weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
	ASSERT_EQ((uint64_t)(fills + 1) * 32, weave_ring_seqno(&self->r));
}

/* The state letter of task @tid (R, S, D, I...), or 0 if unreadable. */
static char poll_state(pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = 0;
	/* The name, in parentheses, may hold spaces: after its last one. */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * Polling with nothing to consume, the thread naps between passes, and
 * naps as it sleeps: never uninterruptibly ("D"), which the load average
 * would count, one task for every device with an idle ring.  The samples
 * count only if the thread polled through them all: its flag is clear
 * after them (it raises it before it sleeps, and only a doorbell, which
 * nothing here rings, would wake it); else they are taken again.
 */
TEST_F(ring_poll, idle_naps_are_not_load)
{
	int tries, i, t, n, blocked = 0, polled = 0;
	pid_t tids[8];
	char state;

	n = poll_threads(tids, 8);
	ASSERT_LE(1, n);
	for (tries = 0; tries < 5 && !polled; tries++) {
		/* Awake and polling, with nothing left to consume. */
		poll_round(_metadata, &self->r, 4);
		blocked = 0;
		for (i = 0; i < 200; i++) {
			for (t = 0; t < n; t++) {
				state = poll_state(tids[t]);
				ASSERT_NE(0, state);
				blocked += state == 'D';
			}
		}
		polled = !(poll_flags(&self->r) & DRM_WEAVE_RING_NEED_WAKEUP);
	}
	ASSERT_TRUE(polled) {
		TH_LOG("the thread slept within every round of samples");
	}
	EXPECT_EQ(0, blocked) {
		TH_LOG("%d of %d samples found a polling thread in D",
		       blocked, 200 * n);
	}
}

TEST_F(ring_poll, misuse)
{
	uint32_t other = weave_test_stream(_metadata, self->fd,
					   DRM_WEAVE_PRIORITY_NORMAL);
	char val[32];

	/* Unknown flags, with the poll flag or without. */
	ASSERT_EQ(-EINVAL, create_raw(self->fd, other, 2));
	ASSERT_EQ(-EINVAL, create_raw(self->fd, other,
				      DRM_WEAVE_RING_CREATE_POLL | 2));
	ASSERT_EQ(-EINVAL, create_raw(self->fd, other, 1u << 31));
	/* A stream has one ring, of either mode. */
	ASSERT_EQ(-EBUSY, create_raw(self->fd, self->stream,
				     DRM_WEAVE_RING_CREATE_POLL));
	ASSERT_EQ(-EBUSY, create_raw(self->fd, self->stream, 0));
	ASSERT_EQ(-ENOENT, create_raw(self->fd, WEAVE_TEST_BAD_HANDLE,
				      DRM_WEAVE_RING_CREATE_POLL));
	/* Resuming a polled ring that did not stop. */
	ASSERT_EQ(-EALREADY, weave_ring_resume(&self->r, NULL));
	/* The parameter keeps its bounds. */
	ASSERT_EQ(-EINVAL, poll_param_set("1000001"));
	ASSERT_EQ(-EINVAL, poll_param_set("-1"));
	ASSERT_EQ(-EINVAL, poll_param_set("many"));
	ASSERT_EQ(0, poll_param_get(val, sizeof(val)));
	ASSERT_EQ((uint32_t)POLL_LONG_US, (uint32_t)strtoul(val, NULL, 10));
	ASSERT_EQ(0, poll_param_set("0"));
	/* Polling long enough for poll_round() to see it poll. */
	ASSERT_EQ(0, poll_param_set("1000000"));
	ASSERT_TRUE(poll_round(_metadata, &self->r, 2));
}

TEST_HARNESS_MAIN
