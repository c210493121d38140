// SPDX-License-Identifier: GPL-2.0
/*
 * weave: one-ioctl fenced submission and WAIT on a seqno (uAPI 1.8):
 * ENQUEUE with DRM_WEAVE_ENQUEUE_FLUSH and its out-syncs, WAIT with
 * DRM_WEAVE_WAIT_SEQNO, the structs of older programs, and each misuse.
 */
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include "weave_test.h"

/* The sizes of the uAPI 1.7 structs, which an older program passes. */
#define ENQUEUE_1_7	offsetof(struct drm_weave_enqueue, out_syncs)
#define WAIT_1_7	offsetof(struct drm_weave_wait, seqno)
#define IOCTL_ENQUEUE_1_7 \
	DRM_IOC(DRM_IOC_READ | DRM_IOC_WRITE, DRM_IOCTL_BASE, \
		DRM_COMMAND_BASE + DRM_WEAVE_ENQUEUE, ENQUEUE_1_7)
#define IOCTL_WAIT_1_7 \
	DRM_IOC(DRM_IOC_WRITE, DRM_IOCTL_BASE, \
		DRM_COMMAND_BASE + DRM_WEAVE_WAIT, WAIT_1_7)

FIXTURE(fenced) {
	WEAVE_TEST_FILE_FIELDS;
	uint32_t stream;
	uint32_t bo;
	uint32_t bin, tl;	/* a binary and a timeline syncobj */
};

FIXTURE_SETUP(fenced)
{
	WEAVE_TEST_FILE_SETUP();
	ASSERT_LE(8u, self->info.uapi_minor) {
		TH_LOG("uAPI 1.%u has no fenced ENQUEUE",
		       self->info.uapi_minor);
	}
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	self->bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	self->bin = weave_test_syncobj(_metadata, self->fd);
	self->tl = weave_test_syncobj(_metadata, self->fd);
}

FIXTURE_TEARDOWN(fenced)
{
	drmSyncobjDestroy(self->fd, self->bin);
	drmSyncobjDestroy(self->fd, self->tl);
	close(self->fd);
}

typedef FIXTURE_DATA(fenced) fenced_t;

/* --- helpers ------------------------------------------------------------- */

/* An ENQUEUE with the flag, one fill task and @n out-syncs at @out. */
static struct drm_weave_enqueue fill_args(fenced_t *self,
					  struct weave_test_batch *b,
					  const struct drm_weave_sync *out,
					  uint32_t n, uint32_t pattern)
{
	struct drm_weave_enqueue a;

	weave_test_batch_init(b);
	weave_test_fill_task(b, self->bo, 0, self->page, pattern);
	memset(&a, 0, sizeof(a));
	a.stream = self->stream;
	a.flags = DRM_WEAVE_ENQUEUE_FLUSH;
	a.tasks.ptr = (uintptr_t)b->task;
	a.tasks.stride = sizeof(b->task[0]);
	a.tasks.count = b->n;
	a.out_syncs.ptr = (uintptr_t)out;
	a.out_syncs.stride = sizeof(*out);
	a.out_syncs.count = n;
	return a;
}

/* Whether @syncobj has a fence: a poll without WAIT_FOR_SUBMIT says. */
static int has_fence(int fd, uint32_t syncobj)
{
	int ret = drmSyncobjWait(fd, &syncobj, 1, 0, 0, NULL) ? -errno : 0;

	return ret != -EINVAL;
}

/* A refused call queued nothing, submitted nothing and set no syncobj. */
static void expect_nothing(struct __test_metadata *_metadata,
			   fenced_t *self)
{
	struct drm_weave_stream_query q;
	uint64_t point = 0;

	q = weave_test_squery(_metadata, self->fd, self->stream);
	EXPECT_EQ(0u, q.enqueued);
	EXPECT_EQ(0u, q.executed);
	EXPECT_FALSE(has_fence(self->fd, self->bin));
	ASSERT_EQ(0, drmSyncobjQuery(self->fd, &self->tl, &point, 1));
	EXPECT_EQ(0u, point);
}

/* Waits for a timeline point, or fails the test. */
static void wait_point(struct __test_metadata *_metadata, int fd,
		       uint32_t tl, uint64_t point)
{
	ASSERT_EQ(0, drmSyncobjTimelineWait(fd, &tl, &point, 1,
					    weave_timeout_ns(WEAVE_TEST_WAIT_NS),
					    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL,
					    NULL));
}

/* One noop on @stream with flush, gated on @in if not NULL. */
static uint64_t noop_flush(struct __test_metadata *_metadata, int fd,
			   uint32_t stream, const struct drm_weave_sync *in)
{
	struct weave_test_batch b;
	uint64_t seqno = 0;

	weave_test_batch_init(&b);
	weave_test_noop(&b);
	EXPECT_EQ(0, weave_enqueue_flush(fd, stream, b.task, b.n, in,
					 in ? 1 : 0, NULL, 0, &seqno));
	return seqno;
}

/* --- one call: queue, submit, signal ----------------------------------- */

/*
 * One call queues a gated fill, submits it (no FLUSH) and sets a binary
 * out-sync and a timeline point, which signal exactly when it ran.
 */
TEST_F(fenced, one_call_signals_out_syncs)
{
	struct drm_weave_sync out[2] = {
		weave_sync(self->bin, 0), weave_sync(self->tl, 5),
	};
	struct weave_test_gate gate;
	struct drm_weave_sync in;
	struct weave_test_batch b;
	uint64_t seqno = 0, point = 0;

	weave_test_gate_open(_metadata, &gate, self->fd);
	in = weave_sync(gate.syncobj, 0);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, self->bo, 0, self->page, 0xf1);
	ASSERT_EQ(0, weave_enqueue_flush(self->fd, self->stream, b.task, b.n,
					 &in, 1, out, 2, &seqno));
	EXPECT_EQ(1u, seqno);
	/* Submitted, held by the gate: both have a fence, not signalled. */
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).executed);
	EXPECT_EQ(-ETIME, drmSyncobjWait(self->fd, &self->bin, 1, 0, 0,
					 NULL) ? -errno : 0);
	ASSERT_EQ(0, drmSyncobjQuery(self->fd, &self->tl, &point, 1));
	EXPECT_EQ(0u, point);
	weave_test_gate_pending(_metadata, self->fd, &gate);

	weave_test_gate_wait(_metadata, self->fd, &gate);
	ASSERT_EQ(0, drmSyncobjWait(self->fd, &self->bin, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	wait_point(_metadata, self->fd, self->tl, 5);
	ASSERT_EQ(0, drmSyncobjQuery(self->fd, &self->tl, &point, 1));
	EXPECT_EQ(5u, point);
	weave_test_expect_words(_metadata, self->fd, self->bo, self->page,
				0xf1);
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).completed);
}

/* Without out-syncs the flag still submits; later points keep adding. */
TEST_F(fenced, flush_without_out_syncs_then_points)
{
	struct drm_weave_sync out;
	struct weave_test_batch b;
	uint64_t seqno = 0, point;

	weave_test_batch_init(&b);
	weave_test_delay(&b, 20000);
	ASSERT_EQ(0, weave_enqueue_flush(self->fd, self->stream, b.task, b.n,
					 NULL, 0, NULL, 0, &seqno));
	EXPECT_EQ(1u, seqno);
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).executed);
	for (point = 1; point <= 3; point++) {
		out = weave_sync(self->tl, point);
		weave_test_batch_init(&b);
		weave_test_fill_task(&b, self->bo, 0, self->page,
				     0xf20 + (uint32_t)point);
		ASSERT_EQ(0, weave_enqueue_flush(self->fd, self->stream,
						 b.task, b.n, NULL, 0, &out, 1,
						 &seqno));
		EXPECT_EQ(point + 1, seqno);
	}
	wait_point(_metadata, self->fd, self->tl, 3);
	weave_test_expect_words(_metadata, self->fd, self->bo, self->page,
				0xf23);
}

/*
 * With no tasks the call is a FLUSH with several out-syncs: it submits
 * what ENQUEUE queued and returns the stream's last seqno.
 */
TEST_F(fenced, no_tasks_flushes)
{
	struct drm_weave_sync out[2] = {
		weave_sync(self->bin, 0), weave_sync(self->tl, 2),
	};
	struct weave_test_batch b;
	uint64_t seqno = 0;

	weave_test_batch_init(&b);
	weave_test_fill_task(&b, self->bo, 0, self->page, 0xf3);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).executed);
	ASSERT_EQ(0, weave_enqueue_flush(self->fd, self->stream, NULL, 0,
					 NULL, 0, out, 2, &seqno));
	EXPECT_EQ(1u, seqno);
	ASSERT_EQ(0, drmSyncobjWait(self->fd, &self->bin, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	wait_point(_metadata, self->fd, self->tl, 2);
	weave_test_expect_words(_metadata, self->fd, self->bo, self->page,
				0xf3);
}

/* A stream that records refuses the flag: nothing recorded or queued. */
TEST_F(fenced, recording_refuses_flush)
{
	struct drm_weave_sync out = weave_sync(self->bin, 0);
	struct drm_weave_capture cap;
	struct weave_test_batch b;
	uint64_t seqno = 0;

	ASSERT_EQ(0, weave_capture(self->fd, self->stream,
				   DRM_WEAVE_CAPTURE_PREPARE, &cap));
	ASSERT_EQ(0, weave_capture(self->fd, self->stream,
				   DRM_WEAVE_CAPTURE_BEGIN, &cap));
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, self->bo, 0, self->page, 0xf4);
	EXPECT_EQ(-EBUSY, weave_enqueue_flush(self->fd, self->stream, b.task,
					      b.n, NULL, 0, &out, 1, &seqno));
	ASSERT_EQ(0, weave_capture(self->fd, self->stream,
				   DRM_WEAVE_CAPTURE_QUERY, &cap));
	EXPECT_EQ(0u, cap.ntasks);
	EXPECT_FALSE(has_fence(self->fd, self->bin));
	/* A seqno wait works while recording, where WAIT does not. */
	EXPECT_EQ(-EBUSY, weave_wait(self->fd, self->stream, 0));
	EXPECT_EQ(0, weave_wait_seqno(self->fd, self->stream, 0, 0));
	EXPECT_EQ(0, weave_capture(self->fd, self->stream,
				   DRM_WEAVE_CAPTURE_ABORT, &cap));
}

/* On an isolated stream the one call submits and signals as well. */
TEST_F(fenced, isolated_stream)
{
	struct drm_weave_sync out = weave_sync(self->bin, 0);
	struct weave_test_batch b;
	uint64_t seqno = 0;

	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, self->bo, 0, self->page, 0xf5);
	ASSERT_EQ(0, weave_enqueue_flush(self->fd, self->stream, b.task, b.n,
					 NULL, 0, &out, 1, &seqno));
	ASSERT_EQ(0, drmSyncobjWait(self->fd, &self->bin, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	weave_test_expect_words(_metadata, self->fd, self->bo, self->page,
				0xf5);
	EXPECT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_LEAVE));
}

/* An older program's shorter structs still work, and are zero-filled. */
TEST_F(fenced, structs_of_uapi_1_7)
{
	struct drm_weave_enqueue a;
	struct drm_weave_wait w;
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	weave_test_fill_task(&b, self->bo, 0, self->page, 0xf6);
	memset(&a, 0, sizeof(a));
	a.stream = self->stream;
	a.tasks.ptr = (uintptr_t)b.task;
	a.tasks.stride = sizeof(b.task[0]);
	a.tasks.count = b.n;
	/* Past the old end: the kernel must not read it. */
	a.out_syncs.count = 0xdead;
	ASSERT_EQ(0, weave_ioctl(self->fd, IOCTL_ENQUEUE_1_7, &a));
	EXPECT_EQ(1u, a.seqno);
	EXPECT_EQ(0xdeadu, a.out_syncs.count);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	memset(&w, 0, sizeof(w));
	w.stream = self->stream;
	w.timeout_ns = weave_timeout_ns(WEAVE_TEST_WAIT_NS);
	w.seqno = 0xdead;
	ASSERT_EQ(0, weave_ioctl(self->fd, IOCTL_WAIT_1_7, &w));
	weave_test_expect_words(_metadata, self->fd, self->bo, self->page,
				0xf6);
}

/* --- WAIT on a seqno --------------------------------------------------- */

/*
 * A seqno wait returns once that work is done while later work, held by
 * a gate, still has not run; the later seqno waits for the gate.
 */
TEST_F(fenced, wait_seqno_before_gated_work)
{
	struct weave_test_gate gate;
	struct drm_weave_sync in;
	uint64_t first, second;

	first = noop_flush(_metadata, self->fd, self->stream, NULL);
	weave_test_gate_open(_metadata, &gate, self->fd);
	in = weave_sync(gate.syncobj, 0);
	second = noop_flush(_metadata, self->fd, self->stream, &in);
	ASSERT_EQ(first + 1, second);

	ASSERT_EQ(0, weave_wait_seqno(self->fd, self->stream, first,
				      weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
	EXPECT_EQ(-ETIME, weave_wait_seqno(self->fd, self->stream, second,
					   weave_timeout_ns(20000000)));
	EXPECT_EQ(-ETIME, weave_wait(self->fd, self->stream, 0));
	EXPECT_EQ(first, weave_test_squery(_metadata, self->fd,
					   self->stream).completed);
	weave_test_gate_pending(_metadata, self->fd, &gate);

	weave_test_gate_wait(_metadata, self->fd, &gate);
	ASSERT_EQ(0, weave_wait_seqno(self->fd, self->stream, second,
				      weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
	EXPECT_EQ(second, weave_test_squery(_metadata, self->fd,
					    self->stream).completed);
}

/* A blocking seqno wait returns after the work, not before. */
TEST_F(fenced, wait_seqno_blocks_until_done)
{
	const uint32_t us = 100000;
	struct weave_test_batch b;
	int64_t start, elapsed;
	uint64_t seqno = 0;

	weave_test_batch_init(&b);
	weave_test_delay(&b, us);
	start = weave_test_now();
	ASSERT_EQ(0, weave_enqueue_flush(self->fd, self->stream, b.task, b.n,
					 NULL, 0, NULL, 0, &seqno));
	ASSERT_EQ(0, weave_wait_seqno(self->fd, self->stream, seqno,
				      INT64_MAX));
	elapsed = weave_test_now() - start;
	EXPECT_LE((int64_t)us * 1000, elapsed);
	EXPECT_EQ(seqno, weave_test_squery(_metadata, self->fd,
					   self->stream).completed);
	/* Complete: at once, even with a past deadline; so is zero. */
	EXPECT_EQ(0, weave_wait_seqno(self->fd, self->stream, seqno, 0));
	EXPECT_EQ(0, weave_wait_seqno(self->fd, self->stream, 0, 0));
}

/* --- eager runs: a job nothing may precede runs at its push ------------ */

/*
 * With the client's earlier jobs done and freed, a one-task job runs in
 * the call that submits it (see "DOC: hardware queues", Eager runs): its
 * stream's completed count has its seqno when the call returns, before
 * any wait; and its slot's fence, the scheduler's, still signals.
 */
TEST_F(fenced, job_nothing_precedes_runs_at_its_push)
{
	struct drm_weave_stream_query q;
	uint64_t seqno;
	uint32_t i;

	for (i = 0; i < 8; i++) {
		weave_test_client_idle(_metadata, self->fd);
		seqno = noop_flush(_metadata, self->fd, self->stream, NULL);
		q = weave_test_squery(_metadata, self->fd, self->stream);
		EXPECT_EQ(seqno, q.completed) {
			TH_LOG("job %u: completed %llu of %llu when its call returned",
			       i, (unsigned long long)q.completed,
			       (unsigned long long)seqno);
		}
		weave_test_wait(_metadata, self->fd, self->stream);
	}
}

/*
 * A job behind one of the same stream that still runs (a delay, which
 * never runs at its push) waits for it: nothing has completed when the
 * second call returns, and the stream's count reaches the second seqno
 * only after the delay.
 */
TEST_F(fenced, job_behind_a_running_job_waits)
{
	uint32_t us = 300000, most = self->info.job_timeout_ms * 500, tries;
	struct drm_weave_stream_query q;
	struct weave_test_batch b;
	uint64_t first = 0, second;
	bool told = false;
	int64_t start;

	/*
	 * The query tells only if it came before the delay could end; a try
	 * that came later (a loaded host) is made again, with a longer delay.
	 */
	for (tries = 0; tries < 4 && !told; tries++, us = us * 2 < most ?
							us * 2 : most) {
		weave_test_batch_init(&b);
		weave_test_delay(&b, us);
		start = weave_test_now();
		ASSERT_EQ(0, weave_enqueue_flush(self->fd, self->stream, b.task,
						 b.n, NULL, 0, NULL, 0, &first));
		second = noop_flush(_metadata, self->fd, self->stream, NULL);
		q = weave_test_squery(_metadata, self->fd, self->stream);
		told = weave_test_now() - start < (int64_t)us * 1000;
		if (told) {
			EXPECT_EQ(first - 1, q.completed);
		} else {
			TH_LOG("the %u ms delay ended before the query: trying again",
			       us / 1000);
		}
		ASSERT_EQ(0, weave_wait_seqno(self->fd, self->stream, second,
					      weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
		EXPECT_LE((int64_t)us * 1000, weave_test_now() - start);
		EXPECT_EQ(first + 1, second);
	}
	EXPECT_TRUE(told) TH_LOG("no try told");
}

/*
 * Across streams, through a buffer: a copy on another stream, submitted
 * while the job that fills its source still waits behind a delay, reads
 * what the fill wrote, not what was there before.
 */
TEST_F(fenced, job_reading_a_buffer_waits_for_its_writer)
{
	uint32_t other, dst, *map;
	struct weave_test_batch b;
	uint64_t seqno = 0;
	size_t i;

	other = weave_test_stream(_metadata, self->fd,
				  DRM_WEAVE_PRIORITY_NORMAL);
	dst = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_delay(&b, 200000);
	weave_test_fill_task(&b, self->bo, 0, self->page, 0x600dcafe);
	ASSERT_EQ(0, weave_enqueue_flush(self->fd, self->stream, b.task, b.n,
					 NULL, 0, NULL, 0, &seqno));
	weave_test_batch_init(&b);
	weave_test_copy_task(&b, self->bo, 0, dst, 0, self->page);
	ASSERT_EQ(0, weave_enqueue_flush(self->fd, other, b.task, b.n, NULL,
					 0, NULL, 0, &seqno));
	ASSERT_EQ(0, weave_wait_seqno(self->fd, other, seqno,
				      weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
	weave_test_wait(_metadata, self->fd, other);
	map = weave_test_map(_metadata, self->fd, dst, self->page);
	for (i = 0; i < self->page / 4; i++)
		if (map[i] != 0x600dcafe)
			break;
	EXPECT_EQ(self->page / 4, i) {
		TH_LOG("word %zu of the copy is 0x%08x", i, map[i]);
	}
	weave_test_unmap(_metadata, map, self->page);
}

/* Queued, not flushed: the wait does not flush, it ends at the deadline. */
TEST_F(fenced, wait_seqno_unflushed)
{
	struct weave_test_batch b;
	uint64_t seqno = 0;
	int64_t start;

	if (self->info.max_tasks < 2)
		SKIP(return, "a threshold of one executes every task");
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS, 2);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	ASSERT_EQ(0, weave_enqueue(self->fd, self->stream, b.task, b.n, NULL,
				   0, &seqno));
	start = weave_test_now();
	EXPECT_EQ(-ETIME, weave_wait_seqno(self->fd, self->stream, seqno,
					   start + 20000000));
	EXPECT_LE(20000000, weave_test_now() - start);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	EXPECT_EQ(0, weave_wait_seqno(self->fd, self->stream, seqno,
				      weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
}

/* --- misuse ------------------------------------------------------------ */

TEST_F(fenced, refuses_unknown_flags)
{
	struct drm_weave_sync out = weave_sync(self->bin, 0);
	struct drm_weave_enqueue a;
	struct weave_test_batch b;
	uint32_t bit;

	for (bit = 1; bit < 32; bit++) {
		a = fill_args(self, &b, &out, 1, 0xe1);
		a.flags |= 1u << bit;
		EXPECT_EQ(-EINVAL, weave_ioctl(self->fd,
					       DRM_IOCTL_WEAVE_ENQUEUE, &a));
	}
	expect_nothing(_metadata, self);
}

TEST_F(fenced, refuses_out_syncs_without_flush)
{
	struct drm_weave_sync out = weave_sync(self->bin, 0);
	struct drm_weave_enqueue a;
	struct weave_test_batch b;

	a = fill_args(self, &b, &out, 1, 0xe2);
	a.flags = 0;
	EXPECT_EQ(-EINVAL, weave_ioctl(self->fd, DRM_IOCTL_WEAVE_ENQUEUE, &a));
	/* No tasks: only with the flag, and then without in-syncs. */
	a = fill_args(self, &b, NULL, 0, 0xe2);
	a.flags = 0;
	a.tasks.count = 0;
	EXPECT_EQ(-EINVAL, weave_ioctl(self->fd, DRM_IOCTL_WEAVE_ENQUEUE, &a));
	a.flags = DRM_WEAVE_ENQUEUE_FLUSH;
	a.in_syncs.ptr = (uintptr_t)&out;
	a.in_syncs.stride = sizeof(out);
	a.in_syncs.count = 1;
	EXPECT_EQ(-EINVAL, weave_ioctl(self->fd, DRM_IOCTL_WEAVE_ENQUEUE, &a));
	expect_nothing(_metadata, self);
}

TEST_F(fenced, refuses_out_sync_flags)
{
	struct drm_weave_sync out[2] = {
		weave_sync(self->bin, 0), weave_sync(self->tl, 1),
	};
	struct drm_weave_enqueue a;
	struct weave_test_batch b;

	out[1].flags = 1;
	a = fill_args(self, &b, out, 2, 0xe3);
	EXPECT_EQ(-EINVAL, weave_ioctl(self->fd, DRM_IOCTL_WEAVE_ENQUEUE, &a));
	expect_nothing(_metadata, self);
}

/* A missing syncobj, even the last of several: nothing queued or set. */
TEST_F(fenced, refuses_missing_syncobj)
{
	struct drm_weave_sync out[3] = {
		weave_sync(self->bin, 0), weave_sync(self->tl, 1),
		weave_sync(WEAVE_TEST_BAD_HANDLE, 0),
	};
	struct drm_weave_enqueue a;
	struct weave_test_batch b;

	a = fill_args(self, &b, out, 3, 0xe4);
	EXPECT_EQ(-ENOENT, weave_ioctl(self->fd, DRM_IOCTL_WEAVE_ENQUEUE, &a));
	out[2].handle = 0;
	a = fill_args(self, &b, out, 3, 0xe4);
	EXPECT_EQ(-ENOENT, weave_ioctl(self->fd, DRM_IOCTL_WEAVE_ENQUEUE, &a));
	expect_nothing(_metadata, self);
	weave_test_expect_words(_metadata, self->fd, self->bo, self->page, 0);
}

TEST_F(fenced, refuses_bad_out_sync_arrays)
{
	uint32_t n = self->info.max_in_syncs + 1, i;
	struct drm_weave_sync *many = calloc(n, sizeof(*many));
	struct drm_weave_enqueue a;
	struct weave_test_batch b;

	ASSERT_NE(NULL, many);
	for (i = 0; i < n; i++)
		many[i] = weave_sync(self->bin, 0);
	a = fill_args(self, &b, many, n, 0xe5);
	EXPECT_EQ(-EINVAL, weave_ioctl(self->fd, DRM_IOCTL_WEAVE_ENQUEUE, &a));
	a.out_syncs.count = 0xffffffffu;
	EXPECT_EQ(-EINVAL, weave_ioctl(self->fd, DRM_IOCTL_WEAVE_ENQUEUE, &a));
	/* Strides: shorter than the struct, over the maximum. */
	a = fill_args(self, &b, many, 2, 0xe5);
	a.out_syncs.stride = sizeof(*many) - 1;
	EXPECT_EQ(-EINVAL, weave_ioctl(self->fd, DRM_IOCTL_WEAVE_ENQUEUE, &a));
	a.out_syncs.stride = DRM_WEAVE_MAX_STRIDE + 8;
	EXPECT_EQ(-EINVAL, weave_ioctl(self->fd, DRM_IOCTL_WEAVE_ENQUEUE, &a));
	/* A longer stride whose extra bytes are not zero. */
	a.out_syncs.stride = 2 * sizeof(*many);
	many[1].flags = 0;
	many[1].handle = 1;
	EXPECT_EQ(-EINVAL, weave_ioctl(self->fd, DRM_IOCTL_WEAVE_ENQUEUE, &a));
	/* Unreadable. */
	a = fill_args(self, &b, WEAVE_TEST_BAD_PTR, 1, 0xe5);
	EXPECT_EQ(-EFAULT, weave_ioctl(self->fd, DRM_IOCTL_WEAVE_ENQUEUE, &a));
	free(many);
	expect_nothing(_metadata, self);
}

TEST_F(fenced, refuses_bad_seqno_waits)
{
	struct drm_weave_wait w;
	uint64_t seqno;

	/* None returned yet: 1 is in the future. */
	EXPECT_EQ(-EINVAL, weave_wait_seqno(self->fd, self->stream, 1, 0));
	seqno = noop_flush(_metadata, self->fd, self->stream, NULL);
	EXPECT_EQ(-EINVAL, weave_wait_seqno(self->fd, self->stream, seqno + 1,
					    0));
	EXPECT_EQ(-EINVAL, weave_wait_seqno(self->fd, self->stream,
					    UINT64_MAX, 0));
	EXPECT_EQ(-ENOENT, weave_wait_seqno(self->fd, WEAVE_TEST_BAD_HANDLE,
					    0, 0));
	memset(&w, 0, sizeof(w));
	w.stream = self->stream;
	w.flags = DRM_WEAVE_WAIT_SEQNO | 2;
	EXPECT_EQ(-EINVAL, weave_ioctl(self->fd, DRM_IOCTL_WEAVE_WAIT, &w));
	w.flags = 0x80000000u;
	EXPECT_EQ(-EINVAL, weave_ioctl(self->fd, DRM_IOCTL_WEAVE_WAIT, &w));
	/* A seqno without the flag is a reserved field that is not zero. */
	w.flags = 0;
	w.seqno = seqno;
	EXPECT_EQ(-EINVAL, weave_ioctl(self->fd, DRM_IOCTL_WEAVE_WAIT, &w));
	EXPECT_EQ(0, weave_wait_seqno(self->fd, self->stream, seqno,
				      weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
}

TEST_HARNESS_MAIN
