// SPDX-License-Identifier: GPL-2.0
/*
 * weave: fences.  Out-fences on binary syncobjs and timeline points,
 * exported as sync_files; in-fences that gate tasks; WAIT and its absolute
 * CLOCK_MONOTONIC deadline.  Syncobjs are plain libdrm calls.
 */
#include <poll.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>

#include "weave_test.h"

FIXTURE(sync) {
	int fd;
	struct drm_weave_device_info info;
	uint64_t page;
	uint32_t stream;
	uint32_t bo;
	uint32_t syncobj;
};

FIXTURE_SETUP(sync)
{
	self->fd = weave_test_open(_metadata);
	self->info = weave_test_info(_metadata, self->fd);
	self->page = self->info.page_size;
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

static uint32_t first_word(struct __test_metadata *_metadata, int fd,
			   uint32_t bo, uint64_t page)
{
	uint32_t *map = weave_test_map(_metadata, fd, bo, page);
	uint32_t word = map[0];

	EXPECT_EQ(word, map[page / 4 - 1]);
	weave_test_unmap(_metadata, map, page);
	return word;
}

TEST_F(sync, out_fence_binary)
{
	struct drm_weave_sync out = weave_sync(self->syncobj, 0);

	delay_then_fill(_metadata, self->fd, self->stream, self->bo,
			self->page, 50000, 0xb1);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, &out));
	/* The delay has not passed yet: a poll times out. */
	EXPECT_EQ(-ETIME, drmSyncobjWait(self->fd, &self->syncobj, 1, 0, 0,
					 NULL) ? -errno : 0);
	ASSERT_EQ(0, drmSyncobjWait(self->fd, &self->syncobj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	EXPECT_EQ(0xb1u, first_word(_metadata, self->fd, self->bo, self->page));
	EXPECT_EQ(2u, weave_test_squery(_metadata, self->fd,
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
	EXPECT_EQ(0xb2u, first_word(_metadata, self->fd, self->bo, self->page));

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
	struct sync_file_info info;
	struct pollfd pfd;
	int sfd = -1;

	delay_then_fill(_metadata, self->fd, self->stream, self->bo,
			self->page, 200000, 0xb3);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, &out));
	ASSERT_EQ(0, drmSyncobjExportSyncFile(self->fd, self->syncobj, &sfd));
	ASSERT_LE(0, sfd);

	pfd.fd = sfd;
	pfd.events = POLLIN;
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(1, poll(&pfd, 1, 20000));
	EXPECT_TRUE(pfd.revents & POLLIN);

	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, ioctl(sfd, SYNC_IOC_FILE_INFO, &info));
	EXPECT_EQ(1, info.status);
	EXPECT_EQ(0xb3u, first_word(_metadata, self->fd, self->bo, self->page));
	close(sfd);
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
	EXPECT_EQ(0xb4u, first_word(_metadata, self->fd, self->bo, self->page));
	drmSyncobjDestroy(self->fd, tl);
}

/*
 * A task gated on another stream's out-fence does not run before that
 * fence signals, though it is flushed and shares no buffer with it.
 */
TEST_F(sync, in_fence_gates_task)
{
	struct drm_weave_stream_query q;
	struct drm_weave_sync gate;
	struct weave_test_batch b;
	uint64_t point = 1;
	uint32_t other, tl;

	other = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	tl = weave_test_syncobj(_metadata, self->fd);
	gate = weave_sync(tl, point);

	weave_test_batch_init(&b);
	weave_test_delay(&b, 300000);
	weave_test_enqueue(_metadata, self->fd, other, &b);
	ASSERT_EQ(0, weave_flush(self->fd, other, &gate));

	weave_test_fill_task(&b, self->bo, 0, self->page, 0xb5);
	ASSERT_EQ(0, weave_enqueue(self->fd, self->stream, b.task, b.n, &gate,
				   1, NULL));
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	usleep(50000);
	q = weave_test_squery(_metadata, self->fd, self->stream);
	EXPECT_EQ(0u, q.completed);
	EXPECT_EQ(0u, first_word(_metadata, self->fd, self->bo, self->page));
	EXPECT_EQ(-ETIME, weave_wait(self->fd, self->stream, 0));

	weave_test_wait(_metadata, self->fd, self->stream);
	EXPECT_EQ(0xb5u, first_word(_metadata, self->fd, self->bo, self->page));
	/* The gate signalled before the gated task completed. */
	q = weave_test_squery(_metadata, self->fd, other);
	EXPECT_EQ(1u, q.completed);
	drmSyncobjDestroy(self->fd, tl);
}

TEST_F(sync, wait_deadlines)
{
	int64_t start, elapsed;

	/* Nothing flushed: nothing to wait for, even with a past deadline. */
	EXPECT_EQ(0, weave_wait(self->fd, self->stream, 0));

	delay_then_fill(_metadata, self->fd, self->stream, self->bo,
			self->page, 300000, 0xb6);
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

	ASSERT_EQ(0, weave_wait(self->fd, self->stream, INT64_MAX));
	EXPECT_EQ(0xb6u, first_word(_metadata, self->fd, self->bo, self->page));
	/* Completed work: a past deadline is no longer an error. */
	EXPECT_EQ(0, weave_wait(self->fd, self->stream,
				weave_timeout_ns(-WEAVE_TEST_SEC)));
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

/* Enqueues of gate_dedupe and gate_cap, in-syncs per enqueue. */
#define GATE_ENQUEUES	100
#define GATE_SYNCS	64

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
 * client's gate memory does not grow with the in-syncs.
 */
TEST_F(sync, gate_dedupe)
{
	struct drm_weave_sync in[GATE_SYNCS], out = weave_sync(self->syncobj, 0);
	struct drm_weave_client_usage usage;
	struct weave_test_batch b;
	uint64_t one = 0;
	uint32_t other, i;

	other = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_batch_init(&b);
	weave_test_delay(&b, 300000);
	weave_test_enqueue(_metadata, self->fd, other, &b);
	ASSERT_EQ(0, weave_flush(self->fd, other, &out));

	for (i = 0; i < GATE_SYNCS; i++)
		in[i] = weave_sync(self->syncobj, 0);
	for (i = 0; i < GATE_ENQUEUES; i++) {
		gated_noop(_metadata, self->fd, self->stream, in, GATE_SYNCS);
		usage = weave_test_client_usage(_metadata, self->fd);
		if (!one)
			one = usage.gate_bytes;
		ASSERT_NE(0u, one);
		ASSERT_GE(one, usage.gate_bytes);
	}
	weave_test_finish(_metadata, self->fd, self->stream);
	EXPECT_EQ((uint64_t)GATE_ENQUEUES,
		  weave_test_squery(_metadata, self->fd, self->stream).completed);
	EXPECT_EQ(0u, weave_test_client_usage(_metadata, self->fd).gate_bytes);
}

/*
 * Distinct in-fences pile up on a slot only to a bound: a slot that would
 * hold more than 128 gates is executed first.  Every task still waits for
 * its in-fences and completes.
 */
TEST_F(sync, gate_cap)
{
	struct drm_weave_sync in[GATE_SYNCS], out;
	uint32_t other, i, j, sobj[3 * GATE_SYNCS];
	struct drm_weave_client_usage usage;
	struct weave_test_batch b;
	uint64_t per = 0;

	other = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_batch_init(&b);
	weave_test_delay(&b, 300000);
	weave_test_enqueue(_metadata, self->fd, other, &b);
	/* Each out-sync is a fence of its own context. */
	for (i = 0; i < 3 * GATE_SYNCS; i++) {
		sobj[i] = weave_test_syncobj(_metadata, self->fd);
		out = weave_sync(sobj[i], 0);
		ASSERT_EQ(0, weave_flush(self->fd, other, &out));
	}

	for (i = 0; i < GATE_ENQUEUES / 10; i++) {
		for (j = 0; j < GATE_SYNCS; j++)
			in[j] = weave_sync(sobj[(i % 3) * GATE_SYNCS + j], 0);
		gated_noop(_metadata, self->fd, self->stream, in, GATE_SYNCS);
		usage = weave_test_client_usage(_metadata, self->fd);
		if (!per)
			per = usage.gate_bytes / GATE_SYNCS;
		ASSERT_NE(0u, per);
		ASSERT_GE(128 * per, usage.gate_bytes);
	}
	/* Nothing ran before the in-fences signalled. */
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).completed);
	weave_test_finish(_metadata, self->fd, self->stream);
	EXPECT_EQ((uint64_t)GATE_ENQUEUES / 10,
		  weave_test_squery(_metadata, self->fd, self->stream).completed);
	for (i = 0; i < 3 * GATE_SYNCS; i++)
		drmSyncobjDestroy(self->fd, sobj[i]);
}

TEST_HARNESS_MAIN
