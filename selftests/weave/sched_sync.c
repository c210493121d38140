// SPDX-License-Identifier: GPL-2.0
/*
 * weave: fences.  Out-fences on binary syncobjs and timeline points,
 * exported as sync_files; in-fences that gate tasks; WAIT and its absolute
 * CLOCK_MONOTONIC deadline.  Syncobjs are plain libdrm calls.
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include "weave_test.h"

FIXTURE(sync) {
	WEAVE_TEST_FILE_FIELDS;
	uint32_t stream;
	uint32_t bo;
	uint32_t syncobj;
};

FIXTURE_SETUP(sync)
{
	WEAVE_TEST_FILE_SETUP();
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	self->bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	self->syncobj = weave_test_syncobj(_metadata, self->fd);
}

FIXTURE_TEARDOWN(sync)
{
	drmSyncobjDestroy(self->fd, self->syncobj);
	close(self->fd);
}

/* Queues a delay of @usec, then a fill of the fixture's buffer. */
static void delay_then_fill(struct __test_metadata *_metadata, int fd,
			    uint32_t stream, uint32_t bo, uint64_t page,
			    uint32_t usec, uint32_t pattern)
{
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	weave_test_delay(&b, usec);
	weave_test_fill_task(&b, bo, 0, page, pattern);
	weave_test_enqueue(_metadata, fd, stream, &b);
}

/* Queues a fill of the fixture's buffer gated on @gate. */
static void gated_fill(struct __test_metadata *_metadata, int fd,
		       uint32_t stream, uint32_t bo, uint64_t page,
		       const struct weave_test_gate *gate, uint32_t pattern)
{
	struct drm_weave_sync in = weave_sync(gate->syncobj, 0);
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, page, pattern);
	ASSERT_EQ(0, weave_enqueue(fd, stream, b.task, b.n, &in, 1, NULL));
}

TEST_F(sync, out_fence_binary)
{
	struct drm_weave_sync out = weave_sync(self->syncobj, 0);
	struct weave_test_gate gate;

	weave_test_gate_open(_metadata, &gate, self->fd);
	gated_fill(_metadata, self->fd, self->stream, self->bo, self->page,
		   &gate, 0xb1);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, &out));
	/* The gate holds the fill: a poll times out. */
	EXPECT_EQ(-ETIME, drmSyncobjWait(self->fd, &self->syncobj, 1, 0, 0,
					 NULL) ? -errno : 0);
	weave_test_gate_pending(_metadata, self->fd, &gate);
	weave_test_gate_wait(_metadata, self->fd, &gate);
	ASSERT_EQ(0, drmSyncobjWait(self->fd, &self->syncobj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	weave_test_expect_words(_metadata, self->fd, self->bo, self->page,
				0xb1);
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).completed);
}

TEST_F(sync, out_fence_timeline_point)
{
	struct drm_weave_sync out;
	uint64_t point = 7, value = 0;
	uint32_t tl;

	tl = weave_test_syncobj(_metadata, self->fd);
	out = weave_sync(tl, point);
	delay_then_fill(_metadata, self->fd, self->stream, self->bo,
			self->page, 30000, 0xb2);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, &out));
	ASSERT_EQ(0, drmSyncobjTimelineWait(self->fd, &tl, &point, 1,
					    weave_timeout_ns(WEAVE_TEST_WAIT_NS),
					    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL,
					    NULL));
	ASSERT_EQ(0, drmSyncobjQuery(self->fd, &tl, &value, 1));
	EXPECT_EQ(point, value);
	weave_test_expect_words(_metadata, self->fd, self->bo, self->page,
				0xb2);

	/* A second flush with nothing new still signals its point. */
	point = 8;
	out = weave_sync(tl, point);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, &out));
	ASSERT_EQ(0, drmSyncobjTimelineWait(self->fd, &tl, &point, 1,
					    weave_timeout_ns(WEAVE_TEST_WAIT_NS),
					    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL,
					    NULL));
	drmSyncobjDestroy(self->fd, tl);
}

TEST_F(sync, sync_file_poll)
{
	struct drm_weave_sync out = weave_sync(self->syncobj, 0);
	struct weave_test_gate gate;

	weave_test_gate_open(_metadata, &gate, self->fd);
	gated_fill(_metadata, self->fd, self->stream, self->bo, self->page,
		   &gate, 0xb3);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, &out));
	/* Held by the gate: the sync_file polls as not ready. */
	EXPECT_EQ(0, weave_test_sync_file_status(_metadata, self->fd,
						 self->syncobj, 0));
	weave_test_gate_pending(_metadata, self->fd, &gate);
	weave_test_gate_wait(_metadata, self->fd, &gate);
	EXPECT_EQ(1, weave_test_sync_file_status(_metadata, self->fd,
						 self->syncobj, 20000));
	weave_test_expect_words(_metadata, self->fd, self->bo, self->page,
				0xb3);
}

/* In-fences that already signalled, binary and timeline, let tasks run. */
TEST_F(sync, in_fence_signalled_by_user)
{
	struct drm_weave_sync in[2];
	struct weave_test_batch b;
	uint64_t point = 3;
	uint32_t tl;

	tl = weave_test_syncobj(_metadata, self->fd);
	ASSERT_EQ(0, drmSyncobjSignal(self->fd, &self->syncobj, 1));
	ASSERT_EQ(0, drmSyncobjTimelineSignal(self->fd, &tl, &point, 1));
	in[0] = weave_sync(self->syncobj, 0);
	in[1] = weave_sync(tl, point);

	weave_test_batch_init(&b);
	weave_test_fill_task(&b, self->bo, 0, self->page, 0xb4);
	ASSERT_EQ(0, weave_enqueue(self->fd, self->stream, b.task, b.n, in, 2,
				   NULL));
	weave_test_finish(_metadata, self->fd, self->stream);
	weave_test_expect_words(_metadata, self->fd, self->bo, self->page,
				0xb4);
	drmSyncobjDestroy(self->fd, tl);
}

/*
 * A task gated on another stream's out-fence (a timeline point) does not
 * run before that fence signals, though it is flushed and shares no
 * buffer with it.
 */
TEST_F(sync, in_fence_gates_task)
{
	struct drm_weave_sync in = weave_sync(self->syncobj, 0), gate;
	struct weave_test_gate hold;
	struct drm_weave_stream_query q;
	struct weave_test_batch b;
	uint64_t point = 1;
	uint32_t other, tl;

	/* Other's noop, held by a gate, signals the timeline point. */
	other = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	tl = weave_test_syncobj(_metadata, self->fd);
	gate = weave_sync(tl, point);
	weave_test_gate_open(_metadata, &hold, self->fd);
	in = weave_sync(hold.syncobj, 0);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	ASSERT_EQ(0, weave_enqueue(self->fd, other, b.task, b.n, &in, 1, NULL));
	ASSERT_EQ(0, weave_flush(self->fd, other, &gate));

	weave_test_batch_init(&b);
	weave_test_fill_task(&b, self->bo, 0, self->page, 0xb5);
	ASSERT_EQ(0, weave_enqueue(self->fd, self->stream, b.task, b.n, &gate,
				   1, NULL));
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	usleep(50000);
	q = weave_test_squery(_metadata, self->fd, self->stream);
	EXPECT_EQ(0u, q.completed);
	weave_test_expect_words(_metadata, self->fd, self->bo, self->page, 0);
	EXPECT_EQ(-ETIME, weave_wait(self->fd, self->stream, 0));
	weave_test_gate_pending(_metadata, self->fd, &hold);

	weave_test_gate_wait(_metadata, self->fd, &hold);
	weave_test_wait(_metadata, self->fd, self->stream);
	weave_test_expect_words(_metadata, self->fd, self->bo, self->page,
				0xb5);
	/* The gate signalled before the gated task completed. */
	q = weave_test_squery(_metadata, self->fd, other);
	EXPECT_EQ(1u, q.completed);
	drmSyncobjDestroy(self->fd, tl);
}

/* Signals a gate from another thread while the test waits. */
struct gate_signaller {
	struct weave_test_gate *gate;
	int ret;
};

static void *signal_gate(void *arg)
{
	struct gate_signaller *s = arg;

	/* Most likely once the test blocks in WAIT; correct either way. */
	usleep(100000);
	s->ret = weave_test_gate_try_signal(s->gate);
	return NULL;
}

TEST_F(sync, wait_deadlines)
{
	struct gate_signaller signaller;
	struct weave_test_gate gate;
	int64_t start, elapsed, done;
	pthread_t thread;

	/* Nothing flushed: nothing to wait for, even with a past deadline. */
	EXPECT_EQ(0, weave_wait(self->fd, self->stream, 0));

	weave_test_gate_open(_metadata, &gate, self->fd);
	gated_fill(_metadata, self->fd, self->stream, self->bo, self->page,
		   &gate, 0xb6);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	EXPECT_EQ(-ETIME, weave_wait(self->fd, self->stream,
				     weave_timeout_ns(-WEAVE_TEST_SEC)));
	EXPECT_EQ(-ETIME, weave_wait(self->fd, self->stream, 0));

	start = weave_test_now();
	EXPECT_EQ(-ETIME, weave_wait(self->fd, self->stream,
				     start + 20 * 1000000));
	elapsed = weave_test_now() - start;
	/* Never before the deadline; -ETIME says it did not wait for the job. */
	EXPECT_LE(20 * 1000000, elapsed);
	weave_test_gate_pending(_metadata, self->fd, &gate);

	/*
	 * No deadline: blocks until the gate, signalled by another thread
	 * meanwhile, let the fill run, and returns after the signal.
	 */
	signaller.gate = &gate;
	signaller.ret = 1;
	ASSERT_EQ(0, pthread_create(&thread, NULL, signal_gate, &signaller));
	ASSERT_EQ(0, weave_wait(self->fd, self->stream, INT64_MAX));
	done = weave_test_now();
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(0, signaller.ret);
	EXPECT_LE(gate.signalled, done);
	weave_test_gate_wait(_metadata, self->fd, &gate);
	weave_test_expect_words(_metadata, self->fd, self->bo, self->page,
				0xb6);
	/* Completed work: a past deadline is no longer an error. */
	EXPECT_EQ(0, weave_wait(self->fd, self->stream,
				weave_timeout_ns(-WEAVE_TEST_SEC)));
}

/*
 * DELAY waits at least as long as asked: its job's fence does not signal
 * before the sum of its delays has passed since the flush.  Each delay is
 * a whole number of scheduler ticks, where a jiffies-based timeout could
 * end up to a tick early; twenty of them make such a shortfall show.
 */
TEST_F(sync, delay_lasts_at_least)
{
	const uint32_t us = 20000, n = 20;
	struct drm_weave_sync out = weave_sync(self->syncobj, 0);
	struct weave_test_batch b;
	int64_t start, elapsed;
	uint32_t i;

	weave_test_batch_init(&b);
	for (i = 0; i < n; i++)
		weave_test_delay(&b, us);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	start = weave_test_now();
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, &out));
	ASSERT_EQ(0, drmSyncobjWait(self->fd, &self->syncobj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	elapsed = weave_test_now() - start;
	EXPECT_LE((int64_t)n * us * 1000, elapsed);
}

/* WAIT does not wait for tasks that were queued but not flushed. */
TEST_F(sync, wait_ignores_unflushed)
{
	struct weave_test_batch b;

	if (self->info.max_tasks < 2)
		SKIP(return, "a threshold of one executes every task");
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS, 2);
	weave_test_batch_init(&b);
	weave_test_delay(&b, 100000);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).executed);
	EXPECT_EQ(0, weave_wait(self->fd, self->stream, 0));
	weave_test_finish(_metadata, self->fd, self->stream);
}

/* Enqueues of gate_dedupe (at most) and gate_cap; in-syncs per enqueue. */
#define GATE_ENQUEUES		100
#define GATE_CAP_ENQUEUES	10
#define GATE_SYNCS		64
/* The most in-fence gates one slot holds (see drm_weave_enqueue). */
#define GATE_MAX		128

/* Enqueues one noop on @stream gated on @n in-syncs. */
static void gated_noop(struct __test_metadata *_metadata, int fd,
		       uint32_t stream, const struct drm_weave_sync *in,
		       uint32_t n)
{
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	weave_test_noop(&b);
	ASSERT_EQ(0, weave_enqueue(fd, stream, b.task, b.n, in, n, NULL));
}

/*
 * Listing one syncobj many times, in many enqueues, keeps one gate: the
 * client's gate memory stays that of a single-sync enqueue.  The slot
 * never reaches its threshold, so every gate stays pending until FLUSH.
 */
TEST_F(sync, gate_dedupe)
{
	struct drm_weave_sync in[GATE_SYNCS];
	struct drm_weave_client_usage usage;
	struct weave_test_gate gate;
	uint32_t i, n;
	uint64_t one;

	if (self->info.max_tasks < 3)
		SKIP(return, "a threshold of %u leaves no room for enqueues",
		     self->info.max_tasks);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS,
			 self->info.max_tasks);
	n = self->info.max_tasks - 1;
	if (n > GATE_ENQUEUES)
		n = GATE_ENQUEUES;
	weave_test_gate_open(_metadata, &gate, self->fd);
	for (i = 0; i < GATE_SYNCS; i++)
		in[i] = weave_sync(gate.syncobj, 0);

	/* One gate, from an enqueue that lists the syncobj once. */
	gated_noop(_metadata, self->fd, self->stream, in, 1);
	one = weave_test_client_usage(_metadata, self->fd).gate_bytes;
	ASSERT_NE(0u, one);

	for (i = 1; i < n; i++) {
		gated_noop(_metadata, self->fd, self->stream, in, GATE_SYNCS);
		usage = weave_test_client_usage(_metadata, self->fd);
		ASSERT_EQ(one, usage.gate_bytes) TH_LOG("enqueue %u", i);
	}
	/* Below the threshold: nothing executed, the gates are all pending. */
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).executed);
	weave_test_gate_pending(_metadata, self->fd, &gate);

	/* FLUSH hands the gate to the job: none is left waiting. */
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	EXPECT_EQ(0u, weave_test_client_usage(_metadata, self->fd).gate_bytes);
	weave_test_gate_wait(_metadata, self->fd, &gate);
	weave_test_wait(_metadata, self->fd, self->stream);
	EXPECT_EQ((uint64_t)n,
		  weave_test_squery(_metadata, self->fd, self->stream).completed);
	EXPECT_EQ(0u, weave_test_client_usage(_metadata, self->fd).gate_bytes);
}

/*
 * Distinct in-fences pile up on a slot only to a bound: a slot that would
 * hold more than 128 gates is executed first.  Every task still waits for
 * its in-fences and completes.
 */
TEST_F_TIMEOUT(sync, gate_cap, 120)
{
	uint32_t other, i, j, sobj[3 * GATE_SYNCS];
	struct drm_weave_sync in[GATE_SYNCS], out;
	struct drm_weave_client_usage usage;
	struct drm_weave_stream_query q;
	struct weave_test_gate gate;
	uint64_t per;

	if (self->info.max_tasks <= GATE_CAP_ENQUEUES)
		SKIP(return, "a threshold of %u executes the slot first",
		     self->info.max_tasks);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS,
			 self->info.max_tasks);
	other = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	for (i = 0; i < 3 * GATE_SYNCS; i++)
		sobj[i] = weave_test_syncobj(_metadata, self->fd);
	weave_test_gate_open(_metadata, &gate, self->fd);

	/* One gate's bytes: other's noop, held by the gate. */
	in[0] = weave_sync(gate.syncobj, 0);
	gated_noop(_metadata, self->fd, other, in, 1);
	per = weave_test_client_usage(_metadata, self->fd).gate_bytes;
	ASSERT_NE(0u, per);
	ASSERT_EQ(0, weave_flush(self->fd, other, NULL));
	ASSERT_EQ(0u, weave_test_client_usage(_metadata, self->fd).gate_bytes);

	/* Each out-sync is a fence of its own context, held by the gate. */
	for (i = 0; i < 3 * GATE_SYNCS; i++) {
		out = weave_sync(sobj[i], 0);
		ASSERT_EQ(0, weave_flush(self->fd, other, &out));
	}

	/* Sets 0, 1, 2, 0, ...: the third enqueue would make 192 gates. */
	for (i = 0; i < GATE_CAP_ENQUEUES; i++) {
		for (j = 0; j < GATE_SYNCS; j++)
			in[j] = weave_sync(sobj[(i % 3) * GATE_SYNCS + j], 0);
		gated_noop(_metadata, self->fd, self->stream, in, GATE_SYNCS);
		usage = weave_test_client_usage(_metadata, self->fd);
		q = weave_test_squery(_metadata, self->fd, self->stream);
		ASSERT_GE(GATE_MAX * per, usage.gate_bytes) TH_LOG("enqueue %u", i);
		if (i == 0) {
			ASSERT_EQ(GATE_SYNCS * per, usage.gate_bytes);
			ASSERT_EQ(0u, q.executed);
		} else if (i == 1) {
			/* 128 gates: at the cap, not over it. */
			ASSERT_EQ(GATE_MAX * per, usage.gate_bytes);
			ASSERT_EQ(0u, q.executed);
		} else if (i == 2) {
			/* The cap executed the first two tasks first. */
			ASSERT_EQ(GATE_SYNCS * per, usage.gate_bytes);
			ASSERT_EQ(2u, q.executed);
		}
	}
	EXPECT_LT(0u, weave_test_squery(_metadata, self->fd,
					self->stream).executed);
	/* Nothing ran before the in-fences signalled. */
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).completed);
	weave_test_gate_pending(_metadata, self->fd, &gate);
	weave_test_gate_wait(_metadata, self->fd, &gate);
	weave_test_finish(_metadata, self->fd, self->stream);
	EXPECT_EQ((uint64_t)GATE_CAP_ENQUEUES,
		  weave_test_squery(_metadata, self->fd, self->stream).completed);
	EXPECT_EQ(0u, weave_test_client_usage(_metadata, self->fd).gate_bytes);
	for (i = 0; i < 3 * GATE_SYNCS; i++)
		drmSyncobjDestroy(self->fd, sobj[i]);
}

/* Jobs a test keeps pending on one buffer. */
#define RESV_JOBS	64

/*
 * Pending jobs of one timeline that write one buffer leave one fence in
 * its reservation, not one each: the out-fences of a backend stream's
 * entity share a fence context, so each replaces the one before.  With a
 * threshold of 1, every task is a job of its own, held back by a gate at
 * the head of the stream; the reservation is read as a sync_file exported
 * from the buffer's dma-buf, which holds one fence per fence it had.  The
 * jobs still run in order: the last fill wins.
 */
TEST_F(sync, resv_one_fence_per_timeline)
{
	struct dma_buf_export_sync_file exp;
	struct weave_test_gate gate;
	struct sync_file_info info;
	struct weave_test_batch b;
	int dmabuf = -1;
	uint32_t i;

	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS, 1);
	ASSERT_EQ(0, drmPrimeHandleToFD(self->fd, self->bo,
					DRM_CLOEXEC | DRM_RDWR, &dmabuf));
	weave_test_gate_open(_metadata, &gate, self->fd);
	gated_fill(_metadata, self->fd, self->stream, self->bo, self->page,
		   &gate, 0);
	for (i = 1; i < RESV_JOBS; i++) {
		weave_test_batch_init(&b);
		weave_test_fill_task(&b, self->bo, 0, self->page, i);
		weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	}
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	EXPECT_EQ((uint64_t)RESV_JOBS,
		  weave_test_squery(_metadata, self->fd,
				    self->stream).executed);

	memset(&exp, 0, sizeof(exp));
	exp.flags = DMA_BUF_SYNC_WRITE;
	exp.fd = -1;
	ASSERT_EQ(0, ioctl(dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &exp));
	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, ioctl(exp.fd, SYNC_IOC_FILE_INFO, &info));
	close(exp.fd);
	/* Every job was still pending when the fences were counted. */
	weave_test_gate_pending(_metadata, self->fd, &gate);
	EXPECT_EQ(0, info.status);
	EXPECT_EQ(1u, info.num_fences);

	weave_test_gate_wait(_metadata, self->fd, &gate);
	weave_test_wait(_metadata, self->fd, self->stream);
	weave_test_expect_words(_metadata, self->fd, self->bo, self->page,
				RESV_JOBS - 1);
	close(dmabuf);
}

TEST_HARNESS_MAIN
