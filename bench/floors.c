// SPDX-License-Identifier: MIT
/*
 * weave-bench: the kernel's floors weave is measured against: getppid, an
 * empty weave ioctl, an io_uring NOP at batch 64 and an eventfd round trip
 * between two threads.
 */
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>

#include <liburing.h>

#include "bench.h"

#define EMPTY_IOCTLS	50000
#define GETPPIDS	100000
/* NOPs per io_uring_enter, and in all. */
#define URING_BATCH	64
#define URING_NOPS	(4096 * URING_BATCH)
/* Round trips, after as many untimed as WAKEUP_WARM. */
#define WAKEUPS		2048
#define WAKEUP_WARM	16

/* The time of an empty ioctl (a size-0 QUERY: the size of the device info). */
double empty_ioctl_ns(int fd)
{
	struct drm_weave_query q;
	double start;
	int i;

	start = now_ns();
	for (i = 0; i < EMPTY_IOCTLS; i++) {
		memset(&q, 0, sizeof(q));
		q.type = DRM_WEAVE_QUERY_DEVICE_INFO;
		if (drmIoctl(fd, DRM_IOCTL_WEAVE_QUERY, &q))
			return -1;
	}
	return (now_ns() - start) / EMPTY_IOCTLS;
}

/* The time of a system call that does next to nothing. */
double getppid_ns(void)
{
	double start;
	int i;

	start = now_ns();
	for (i = 0; i < GETPPIDS; i++)
		syscall(SYS_getppid);
	return (now_ns() - start) / GETPPIDS;
}

/*
 * Whether io_uring is usable here; if not, says why (kernel.io_uring_disabled
 * exists from 6.6 on: 1 limits io_uring to a group, 2 disables it).
 * Returns 0 or a negative errno.
 */
int uring_check(void)
{
	struct io_uring ring;
	FILE *f;
	int ret, v;

	ret = io_uring_queue_init(URING_BATCH, &ring, 0);
	if (!ret) {
		io_uring_queue_exit(&ring);
		return 0;
	}
	printf("io_uring unusable: io_uring_setup: %s", strerror(-ret));
	f = fopen("/proc/sys/kernel/io_uring_disabled", "r");
	if (f && fscanf(f, "%d", &v) == 1)
		printf(" (sysctl kernel.io_uring_disabled = %d: 0 allows it)",
		       v);
	else
		printf(" (no sysctl kernel.io_uring_disabled: CONFIG_IO_URING?)");
	if (f)
		fclose(f);
	printf("\n");
	return ret;
}

/* Completes the @n NOPs submitted on @ring; -EPROTO unless each got 0. */
static int uring_reap(struct io_uring *ring, unsigned int n)
{
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;
	int ret = 0;

	io_uring_for_each_cqe(ring, head, cqe) {
		if (cqe->res)
			ret = -EPROTO;
		seen++;
	}
	io_uring_cq_advance(ring, seen);
	if (ret)
		return ret;
	return seen == n ? 0 : -EPROTO;
}

/* One batch of URING_BATCH NOPs, submitted and waited for in one call. */
static int uring_batch(struct io_uring *ring)
{
	struct io_uring_sqe *sqe;
	int i, ret;

	for (i = 0; i < URING_BATCH; i++) {
		sqe = io_uring_get_sqe(ring);
		if (!sqe)
			return -ENOSPC;
		io_uring_prep_nop(sqe);
	}
	ret = io_uring_submit_and_wait(ring, URING_BATCH);
	if (ret < 0)
		return ret;
	return ret == URING_BATCH ? uring_reap(ring, URING_BATCH) : -EPROTO;
}

/*
 * The time per io_uring NOP, URING_BATCH per io_uring_enter, each batch
 * waited for in the same call: what a kernel ring pays to take in an item
 * and complete it.  After one untimed batch; -1 on an error (each NOP must
 * complete with 0).
 */
double uring_nop_ns(void)
{
	struct io_uring ring;
	double start, ns = -1;
	int i, ret;

	if (io_uring_queue_init(URING_BATCH, &ring, 0))
		return -1;
	ret = uring_batch(&ring);
	start = now_ns();
	for (i = 0; !ret && i < URING_NOPS / URING_BATCH; i++)
		ret = uring_batch(&ring);
	if (!ret)
		ns = (now_ns() - start) / URING_NOPS;
	io_uring_queue_exit(&ring);
	return ns;
}

struct wakeup {
	int ping, pong;		/* eventfds: to the echo thread, and back */
	unsigned int n;		/* round trips the echo thread answers */
};

/* The other thread of the round trip: answers each ping with a pong. */
static void *wakeup_echo(void *arg)
{
	struct wakeup *w = arg;
	uint64_t v = 1;
	unsigned int i;

	for (i = 0; i < w->n; i++) {
		if (read(w->ping, &v, sizeof(v)) != sizeof(v) ||
		    write(w->pong, &v, sizeof(v)) != sizeof(v))
			break;
	}
	return NULL;
}

/* One ping and its pong; -1 if either failed. */
static int wakeup_once(struct wakeup *w)
{
	uint64_t v = 1;

	if (write(w->ping, &v, sizeof(v)) != sizeof(v) ||
	    read(w->pong, &v, sizeof(v)) != sizeof(v) || v != 1)
		return -1;
	return 0;
}

/*
 * The time of a wake-up round trip between two threads: an eventfd write
 * wakes the other thread, blocked in read, whose write wakes this one:
 * the least a piece of work handed to a worker and back can cost.  -1 on
 * an error.
 */
double wakeup_ns(void)
{
	struct wakeup w = { .n = WAKEUP_WARM + WAKEUPS };
	double start = 0, ns = -1;
	unsigned int i;
	pthread_t echo;
	int ret = 0;

	w.ping = eventfd(0, EFD_CLOEXEC);
	w.pong = eventfd(0, EFD_CLOEXEC);
	if (w.ping < 0 || w.pong < 0 ||
	    pthread_create(&echo, NULL, wakeup_echo, &w)) {
		if (w.ping >= 0)
			close(w.ping);
		if (w.pong >= 0)
			close(w.pong);
		return -1;
	}
	for (i = 0; !ret && i < w.n; i++) {
		if (i == WAKEUP_WARM)
			start = now_ns();
		ret = wakeup_once(&w);
	}
	if (!ret)
		ns = (now_ns() - start) / WAKEUPS;
	else
		pthread_cancel(echo);	/* blocked in read, a cancellation point */
	pthread_join(echo, NULL);
	close(w.ping);
	close(w.pong);
	return ns;
}
