// SPDX-License-Identifier: GPL-2.0
/*
 * weave: a hung job.  A delay far past the job timeout is cut short: its
 * fence signals with -ETIMEDOUT, what its unfinished tasks should have
 * written carries a timeout failure, and its stream, like a stream created
 * alongside, keeps working; so does one whose job started inline in
 * run_job.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "weave_test.h"

FIXTURE(hang) {
	WEAVE_TEST_FILE_FIELDS;
};

FIXTURE_SETUP(hang)
{
	WEAVE_TEST_FILE_SETUP();
	ASSERT_NE(0u, self->info.job_timeout_ms);
}

FIXTURE_TEARDOWN(hang)
{
	close(self->fd);
}

/* The failures on @size bytes at @off of @bo: their number, the first's. */
static uint32_t hang_check(struct __test_metadata *_metadata, int fd,
			   uint32_t bo, uint64_t off, uint64_t size,
			   struct drm_weave_failure *f)
{
	struct drm_weave_check_range r = {
		.handle = bo, .offset = off, .size = size,
	};
	struct drm_weave_failure_task skips[DRM_WEAVE_FAILURE_SKIPS];
	struct drm_weave_check c = {
		.ranges = { (uintptr_t)&r, sizeof(r), 1 },
		.failures = { (uintptr_t)f, sizeof(*f), 1 },
		.skips = { (uintptr_t)skips, sizeof(skips[0]),
			   DRM_WEAVE_FAILURE_SKIPS },
	};

	memset(f, 0, sizeof(*f));
	ASSERT_EQ(0, weave_test_ioctl(fd, DRM_IOCTL_WEAVE_CHECK, &c));
	return r.nfailures;
}

TEST_F_TIMEOUT(hang, timeout_taints_its_outputs_only, 120)
{
	uint64_t timeout_ns = self->info.job_timeout_ms * 1000000ull;
	uint32_t a, b_stream, syncobj, bo, res, out_bo, *map;
	struct drm_weave_stream_query q;
	struct drm_weave_failure f;
	struct drm_weave_sync out;
	struct weave_test_batch b;
	uint64_t seqno;
	int64_t start;
	int status;

	a = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	b_stream = weave_test_stream(_metadata, self->fd,
				     DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, self->fd, 4 * self->page, 0);
	res = weave_test_bo(_metadata, self->fd, self->page, 0);
	out_bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	syncobj = weave_test_syncobj(_metadata, self->fd);

	/*
	 * Ten times the timeout, within the longest delay, then a fill of
	 * out_bo's first half that the timeout leaves undone.
	 */
	weave_test_batch_init(&b);
	weave_test_delay(&b, weave_test_hang_delay_us(_metadata, &self->info))
		->label = 31;
	weave_test_fill_task(&b, out_bo, 0, self->page / 2, 0xf111);
	ASSERT_EQ(0, weave_enqueue(self->fd, a, b.task, b.n, NULL, 0, &seqno));
	weave_test_batch_init(&b);
	out = weave_sync(syncobj, 0);
	start = weave_test_now();
	ASSERT_EQ(0, weave_flush(self->fd, a, &out));

	/* Stream B runs a checked chain meanwhile. */
	weave_test_chain(&b, bo, self->page, 0x1234, 0x4321, res, 0);
	weave_test_enqueue(_metadata, self->fd, b_stream, &b);
	weave_test_finish(_metadata, self->fd, b_stream);
	map = weave_test_map(_metadata, self->fd, res, self->page);
	EXPECT_EQ(weave_test_chain_crc(self->page, 0x1234, 0x4321), map[0]);
	weave_test_unmap(_metadata, map, self->page);

	/* A's fence signals, with an error, soon after the timeout. */
	ASSERT_EQ(0, drmSyncobjWait(self->fd, &syncobj, 1,
				    start + 5 * timeout_ns +
				    10 * WEAVE_TEST_SEC, 0, NULL));
	EXPECT_LE((int64_t)timeout_ns, weave_test_now() - start);
	status = weave_test_sync_file_status(_metadata, self->fd, syncobj, 0);
	EXPECT_EQ(-ETIMEDOUT, status);

	/* A stays usable; what its job left undone carries the timeout. */
	q = weave_test_squery(_metadata, self->fd, a);
	EXPECT_EQ((uint32_t)DRM_WEAVE_STREAM_ACTIVE, q.state);
	EXPECT_EQ(0, q.error);
	EXPECT_EQ(0, weave_wait(self->fd, a, weave_timeout_ns(WEAVE_TEST_SEC)));
	ASSERT_EQ(1u, hang_check(_metadata, self->fd, out_bo, 0, self->page,
				 &f));
	EXPECT_EQ(-ETIMEDOUT, f.error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_TIMEOUT, f.cause);
	/* Its root is the delay that was running, two tasks from the end. */
	EXPECT_EQ((uint32_t)DRM_WEAVE_KERNEL_DELAY, f.root.kernel);
	EXPECT_EQ(seqno - 1, f.root.seqno);
	EXPECT_EQ(31u, f.root.label);
	EXPECT_EQ(a, f.root.stream);
	EXPECT_EQ(1u, f.buffers);
	EXPECT_EQ(0u, hang_check(_metadata, self->fd, out_bo, self->page / 2,
				 self->page / 2, &f));
	EXPECT_EQ(0u, hang_check(_metadata, self->fd, res, 0, self->page, &f));

	/* A takes work again, and rewriting the range makes it good. */
	weave_test_fill_task(&b, out_bo, 0, self->page / 2, 0xf222);
	weave_test_enqueue(_metadata, self->fd, a, &b);
	weave_test_finish(_metadata, self->fd, a);
	EXPECT_EQ(0u, hang_check(_metadata, self->fd, out_bo, 0, self->page,
				 &f));
	weave_test_expect_words(_metadata, self->fd, out_bo, self->page / 2,
				0xf222);

	/* B kept working throughout. */
	weave_test_chain(&b, bo, self->page, 0x55, 0x66, res, 4);
	weave_test_enqueue(_metadata, self->fd, b_stream, &b);
	weave_test_finish(_metadata, self->fd, b_stream);
	map = weave_test_map(_metadata, self->fd, res, self->page);
	EXPECT_EQ(weave_test_chain_crc(self->page, 0x55, 0x66), map[1]);
	weave_test_unmap(_metadata, map, self->page);
	q = weave_test_squery(_metadata, self->fd, b_stream);
	EXPECT_EQ((uint32_t)DRM_WEAVE_STREAM_ACTIVE, q.state);
	drmSyncobjDestroy(self->fd, syncobj);
}

/*
 * A hung job's out-fence, an in-sync of another stream's enqueue, signals
 * with -ETIMEDOUT: that enqueue's tasks do not run, what they should have
 * written shares one failure, and the stream's next tasks run.
 */
TEST_F_TIMEOUT(hang, in_fence_error_taints_gated_tasks, 120)
{
	uint32_t a, c, syncobj, gated, after;
	struct drm_weave_failure f;
	struct drm_weave_sync out, in;
	struct weave_test_batch b;
	uint64_t seqno;

	a = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	c = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	gated = weave_test_bo(_metadata, self->fd, self->page, 0);
	after = weave_test_bo(_metadata, self->fd, self->page, 0);
	syncobj = weave_test_syncobj(_metadata, self->fd);

	weave_test_batch_init(&b);
	weave_test_delay(&b, weave_test_hang_delay_us(_metadata, &self->info));
	weave_test_enqueue(_metadata, self->fd, a, &b);
	out = weave_sync(syncobj, 0);
	ASSERT_EQ(0, weave_flush(self->fd, a, &out));

	/* Two tasks gated on the hung job, then one that is not. */
	weave_test_fill_task(&b, gated, 0, self->page / 2, 0x9a)->label = 5;
	weave_test_fill_task(&b, gated, self->page / 2, self->page / 2, 0x9b);
	in = weave_sync(syncobj, 0);
	ASSERT_EQ(0, weave_enqueue(self->fd, c, b.task, b.n, &in, 1, &seqno));
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, after, 0, self->page, 0x9c);
	weave_test_enqueue(_metadata, self->fd, c, &b);
	weave_test_finish(_metadata, self->fd, c);

	ASSERT_EQ(1u, hang_check(_metadata, self->fd, gated, 0, self->page,
				 &f));
	EXPECT_EQ(-ETIMEDOUT, f.error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_IN_FENCE, f.cause);
	EXPECT_EQ(seqno - 1, f.root.seqno);
	EXPECT_EQ(5u, f.root.label);
	EXPECT_EQ(c, f.root.stream);
	EXPECT_EQ((uint32_t)DRM_WEAVE_KERNEL_FILL, f.root.kernel);
	EXPECT_EQ(0u, hang_check(_metadata, self->fd, after, 0, self->page,
				 &f));
	weave_test_expect_words(_metadata, self->fd, after, self->page, 0x9c);
	/* The gated fills did not run. */
	weave_test_expect_words(_metadata, self->fd, gated, self->page, 0);
	EXPECT_EQ((uint32_t)DRM_WEAVE_STREAM_ACTIVE,
		  weave_test_squery(_metadata, self->fd, c).state);
	drmSyncobjDestroy(self->fd, syncobj);
}

/*
 * A hung job that starts inline in run_job: its first fill runs there, its
 * DELAY goes to the queue's worker and times out.  The fill's bytes are
 * good, what the DELAY's successor should have written carries the
 * timeout, whose root is the DELAY.
 */
TEST_F_TIMEOUT(hang, inline_start_then_timeout, 120)
{
	uint64_t timeout_ns = self->info.job_timeout_ms * 1000000ull;
	struct drm_weave_failure f;
	struct weave_test_batch b;
	uint32_t a, bo, syncobj;
	struct drm_weave_sync out;
	uint64_t seqno;
	int64_t start;

	a = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	syncobj = weave_test_syncobj(_metadata, self->fd);

	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page / 2, 0x11a);
	weave_test_delay(&b, weave_test_hang_delay_us(_metadata, &self->info))
		->label = 32;
	weave_test_fill_task(&b, bo, self->page / 2, self->page / 2, 0x11b);
	ASSERT_EQ(0, weave_enqueue(self->fd, a, b.task, b.n, NULL, 0, &seqno));
	weave_test_batch_init(&b);
	out = weave_sync(syncobj, 0);
	start = weave_test_now();
	ASSERT_EQ(0, weave_flush(self->fd, a, &out));

	ASSERT_EQ(0, drmSyncobjWait(self->fd, &syncobj, 1,
				    start + 5 * timeout_ns +
				    10 * WEAVE_TEST_SEC, 0, NULL));
	EXPECT_LE((int64_t)timeout_ns, weave_test_now() - start);
	EXPECT_EQ(-ETIMEDOUT,
		  weave_test_sync_file_status(_metadata, self->fd, syncobj, 0));
	EXPECT_EQ(0u, hang_check(_metadata, self->fd, bo, 0, self->page / 2,
				 &f));
	weave_test_expect_words(_metadata, self->fd, bo, self->page / 2,
				0x11a);
	ASSERT_EQ(1u, hang_check(_metadata, self->fd, bo, self->page / 2,
				 self->page / 2, &f));
	EXPECT_EQ(-ETIMEDOUT, f.error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_TIMEOUT, f.cause);
	EXPECT_EQ((uint32_t)DRM_WEAVE_KERNEL_DELAY, f.root.kernel);
	EXPECT_EQ(seqno - 1, f.root.seqno);
	EXPECT_EQ(32u, f.root.label);

	/* The stream takes work again, inline. */
	weave_test_fill_task(&b, bo, self->page / 2, self->page / 2, 0x11c);
	weave_test_enqueue(_metadata, self->fd, a, &b);
	weave_test_finish(_metadata, self->fd, a);
	EXPECT_EQ(0u, hang_check(_metadata, self->fd, bo, 0, self->page, &f));
	drmSyncobjDestroy(self->fd, syncobj);
}

/* A WAIT on a seqno of a hung job, from another thread. */
struct seqno_waiter {
	int fd;
	uint32_t stream;
	uint64_t seqno;
	int64_t deadline;
	int ret;
	int64_t done;
};

static void *seqno_wait_thread(void *arg)
{
	struct seqno_waiter *w = arg;

	w->ret = weave_wait_seqno(w->fd, w->stream, w->seqno, w->deadline);
	w->done = weave_test_now();
	return NULL;
}

/*
 * WAIT with DRM_WEAVE_WAIT_SEQNO across a hang (uAPI 1.8): one waiter on
 * the hung DELAY's seqno and one on the task after it, both blocked when
 * the watchdog cuts the job short.  Each returns 0 once the job is done
 * (a timeout fails the job, not the stream), not before the timeout, and
 * well before its own deadline; a wait on the task before the DELAY,
 * which ran, returns at once.
 */
TEST_F_TIMEOUT(hang, wait_seqno_across_a_hang, 120)
{
	uint64_t timeout_ns = self->info.job_timeout_ms * 1000000ull;
	struct seqno_waiter w[2];
	struct weave_test_batch b;
	struct drm_weave_stream_query q;
	pthread_t thread[2];
	uint32_t a, bo;
	uint64_t seqno;
	int64_t start;
	int i;

	a = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);

	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page / 2, 0x21a);
	weave_test_delay(&b, weave_test_hang_delay_us(_metadata, &self->info));
	weave_test_fill_task(&b, bo, self->page / 2, self->page / 2, 0x21b);
	start = weave_test_now();
	ASSERT_EQ(0, weave_enqueue_flush(self->fd, a, b.task, b.n, NULL, 0,
					 NULL, 0, &seqno));
	for (i = 0; i < 2; i++) {
		w[i].fd = self->fd;
		w[i].stream = a;
		w[i].seqno = seqno - 1 + i;
		w[i].deadline = start + 5 * timeout_ns + 20 * WEAVE_TEST_SEC;
		w[i].ret = 1;
		ASSERT_EQ(0, pthread_create(&thread[i], NULL,
					    seqno_wait_thread, &w[i]));
	}
	/* The fill before the DELAY ran: its seqno is complete, or soon. */
	EXPECT_EQ(0, weave_wait_seqno(self->fd, a, seqno - 2,
				      weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_join(thread[i], NULL));
		EXPECT_EQ(0, w[i].ret) {
			TH_LOG("waiter on seqno %llu: %s",
			       (unsigned long long)w[i].seqno,
			       strerror(-w[i].ret));
		}
		EXPECT_LE((int64_t)timeout_ns, w[i].done - start);
		EXPECT_GT(w[i].deadline, w[i].done);
	}
	q = weave_test_squery(_metadata, self->fd, a);
	EXPECT_EQ((uint32_t)DRM_WEAVE_STREAM_ACTIVE, q.state);
	EXPECT_EQ(seqno, q.completed);
	weave_test_expect_words(_metadata, self->fd, bo, self->page / 2,
				0x21a);
}

/* A failing kernel (not a hang) does not fail the stream. */
TEST_F(hang, fail_kernel_keeps_stream_active)
{
	struct weave_test_batch b;
	uint32_t stream;

	stream = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_batch_init(&b);
	weave_test_launch(&b, DRM_WEAVE_KERNEL_FAIL, NULL, 0, 1, EIO);
	weave_test_enqueue(_metadata, self->fd, stream, &b);
	ASSERT_EQ(0, weave_flush(self->fd, stream, NULL));
	EXPECT_EQ(0, weave_wait(self->fd, stream,
				weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
	EXPECT_EQ((uint32_t)DRM_WEAVE_STREAM_ACTIVE,
		  weave_test_squery(_metadata, self->fd, stream).state);
	weave_test_noop(&b);
	EXPECT_EQ(0, weave_test_submit(self->fd, stream, &b));
	weave_test_finish(_metadata, self->fd, stream);
}

TEST_HARNESS_MAIN
