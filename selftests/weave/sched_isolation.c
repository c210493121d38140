// SPDX-License-Identifier: GPL-2.0
/*
 * weave: stream isolation: enter and leave, its errors, the query flag,
 * what it does to the jobs an execution makes (counted through
 * &drm_weave_client_usage.submitted_jobs), the executions at enter and at
 * leave, the per-stream holds of streams folded onto one slot, and correct
 * data when an isolated stream shares buffers with others.
 */
#include <stdint.h>
#include <unistd.h>

#include "weave_test.h"

FIXTURE(iso) {
	WEAVE_TEST_FILE_FIELDS;
	uint32_t stream;
};

FIXTURE_SETUP(iso)
{
	WEAVE_TEST_FILE_SETUP();
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	/* The module parameter may make sequential the default. */
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_STRATEGY,
			 DRM_WEAVE_STRATEGY_INTERLEAVE);
}

FIXTURE_TEARDOWN(iso)
{
	close(self->fd);
}

TEST_F(iso, enter_leave)
{
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
}

TEST_F(iso, double_enter)
{
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));
	EXPECT_EQ(-EALREADY, weave_stream_isolate(self->fd, self->stream,
						  DRM_WEAVE_ISOLATION_ENTER));
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
}

TEST_F(iso, leave_when_not_isolated)
{
	EXPECT_EQ(-EALREADY, weave_stream_isolate(self->fd, self->stream,
						  DRM_WEAVE_ISOLATION_LEAVE));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(-EALREADY, weave_stream_isolate(self->fd, self->stream,
						  DRM_WEAVE_ISOLATION_LEAVE));
}

TEST_F(iso, bad_op)
{
	EXPECT_EQ(-EINVAL, weave_stream_isolate(self->fd, self->stream, 2));
	EXPECT_EQ(-EINVAL, weave_stream_isolate(self->fd, self->stream,
						0xffffffffu));
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
}

TEST_F(iso, bad_handle)
{
	EXPECT_EQ(-ENOENT, weave_stream_isolate(self->fd, WEAVE_TEST_BAD_HANDLE,
						DRM_WEAVE_ISOLATION_ENTER));
}

/*
 * A stream on the slot of self->stream (handle + max_streams), or zero if
 * max_client_streams does not reach it.  The handles below it are
 * created on the way and kept.
 */
static uint32_t folded_stream(struct __test_metadata *_metadata,
			      FIXTURE_DATA(iso) *self)
{
	uint32_t h;
	unsigned int i;

	for (i = 1; i < self->info.max_client_streams; i++) {
		h = weave_test_stream(_metadata, self->fd,
				      DRM_WEAVE_PRIORITY_NORMAL);
		if (h == self->stream + self->info.max_streams)
			return h;
	}
	return 0;
}

/* The strategy alone decides, then isolation keeps the slots apart. */
TEST_F(iso, isolated_slot_is_not_interleaved)
{
	uint32_t other = weave_test_stream(_metadata, self->fd,
					   DRM_WEAVE_PRIORITY_NORMAL);

	EXPECT_EQ(1u, weave_test_flush_pair(_metadata, self->fd, self->stream, other));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));
	EXPECT_EQ(2u, weave_test_flush_pair(_metadata, self->fd, self->stream, other));
	EXPECT_EQ(2u, weave_test_flush_pair(_metadata, self->fd, other, self->stream));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(1u, weave_test_flush_pair(_metadata, self->fd, self->stream, other));
}

/* Tasks queued before ENTER are executed by it, outside the isolation. */
TEST_F(iso, enter_executes_queued_tasks)
{
	struct weave_test_batch b;
	uint64_t before;

	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).executed);
	before = weave_test_jobs(_metadata, self->fd);
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));
	EXPECT_EQ(2u, weave_test_squery(_metadata, self->fd,
					self->stream).executed);
	EXPECT_EQ(0u, weave_test_client_usage(_metadata,
					      self->fd).queued_tasks);
	EXPECT_EQ(before + 1, weave_test_jobs(_metadata, self->fd));
	weave_test_wait(_metadata, self->fd, self->stream);
	EXPECT_EQ(2u, weave_test_squery(_metadata, self->fd,
					self->stream).completed);
}

/*
 * Tasks queued while isolated are executed by LEAVE, on their own backend
 * stream, so a later execution cannot interleave them with another slot's.
 */
TEST_F(iso, leave_executes_isolated_tasks)
{
	uint32_t other = weave_test_stream(_metadata, self->fd,
					   DRM_WEAVE_PRIORITY_NORMAL);
	struct weave_test_batch b;
	uint64_t before;

	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));
	weave_test_enqueue_noop(_metadata, self->fd, self->stream);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, other, &b);
	before = weave_test_jobs(_metadata, self->fd);
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).executed);
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd, other).executed);
	EXPECT_EQ(before + 1, weave_test_jobs(_metadata, self->fd));
	ASSERT_EQ(0, weave_flush_all(self->fd, NULL));
	weave_test_wait(_metadata, self->fd, self->stream);
	weave_test_wait(_metadata, self->fd, other);
	EXPECT_EQ(before + 2, weave_test_jobs(_metadata, self->fd));
}

/* Isolation covers the slot: a folded stream is isolated too. */
TEST_F(iso, covers_folded_stream)
{
	uint32_t other, folded = folded_stream(_metadata, self);

	if (!folded)
		SKIP(return, "no folded stream within max_client_streams");
	other = weave_test_stream(_metadata, self->fd,
				  DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd, folded).isolated);
	EXPECT_EQ(2u, weave_test_flush_pair(_metadata, self->fd, folded, other));
}

/*
 * Each stream holds isolation once; the slot stays isolated until the last
 * holder leaves, in any order.
 */
TEST_F(iso, folded_streams_hold_it_each)
{
	uint32_t other, folded = folded_stream(_metadata, self);

	if (!folded)
		SKIP(return, "no folded stream within max_client_streams");
	other = weave_test_stream(_metadata, self->fd,
				  DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, folded,
					  DRM_WEAVE_ISOLATION_ENTER));
	EXPECT_EQ(-EALREADY, weave_stream_isolate(self->fd, folded,
						  DRM_WEAVE_ISOLATION_ENTER));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
	EXPECT_EQ(2u, weave_test_flush_pair(_metadata, self->fd, self->stream, other));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, folded,
					  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd, folded).isolated);
	EXPECT_EQ(1u, weave_test_flush_pair(_metadata, self->fd, self->stream, other));
}

/* A stream that holds no isolation cannot end another stream's. */
TEST_F(iso, leave_by_a_folded_stream_that_holds_none)
{
	uint32_t folded = folded_stream(_metadata, self);

	if (!folded)
		SKIP(return, "no folded stream within max_client_streams");
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));
	EXPECT_EQ(-EALREADY, weave_stream_isolate(self->fd, folded,
						  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
}

/* Destroying a stream releases its hold. */
TEST_F(iso, destroy_releases_the_hold)
{
	uint32_t other, folded = folded_stream(_metadata, self);

	if (!folded)
		SKIP(return, "no folded stream within max_client_streams");
	other = weave_test_stream(_metadata, self->fd,
				  DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_EQ(0, weave_stream_isolate(self->fd, folded,
					  DRM_WEAVE_ISOLATION_ENTER));
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
	ASSERT_EQ(0, weave_stream_destroy(self->fd, folded));
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
	EXPECT_EQ(1u, weave_test_flush_pair(_metadata, self->fd, self->stream, other));
}

/* Changing the threshold before the first enqueue keeps the holds. */
TEST_F(iso, max_tasks_keeps_isolation)
{
	uint32_t other = weave_test_stream(_metadata, self->fd,
					   DRM_WEAVE_PRIORITY_NORMAL);

	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS, 2);
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
	EXPECT_EQ(2u, weave_test_flush_pair(_metadata, self->fd, self->stream, other));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_LEAVE));
}

/*
 * An isolated stream and an interleaved one share buffers both ways; with
 * a small threshold their slots execute together many times.  Every result
 * is right, and the isolated stream still works after leaving.
 */
TEST_F(iso, shared_buffers_with_interleaved_stream)
{
	uint32_t other, bo, res, *map;
	struct weave_test_batch b;
	unsigned int round;

	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_STRATEGY,
			 DRM_WEAVE_STRATEGY_INTERLEAVE);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS, 2);
	other = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, self->fd, 4 * self->page, 0);
	res = weave_test_bo(_metadata, self->fd, self->page, 0);
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));

	weave_test_batch_init(&b);
	for (round = 0; round < 4; round++) {
		uint32_t pa = weave_test_chain_a(round);
		uint32_t pb = weave_test_chain_b(round);

		/* The isolated stream writes the inputs ... */
		weave_test_fill_task(&b, bo, 0, self->page, pa);
		weave_test_fill_task(&b, bo, self->page, self->page, pb);
		weave_test_enqueue(_metadata, self->fd, self->stream, &b);
		/* ... the other adds and copies them ... */
		weave_test_add_task(&b, bo, 0, bo, self->page, bo,
				    2 * self->page, self->page);
		weave_test_copy_task(&b, bo, 2 * self->page, bo,
				     3 * self->page, self->page);
		weave_test_enqueue(_metadata, self->fd, other, &b);
		/* ... and the isolated one checksums the result. */
		weave_test_crc_task(&b, bo, 3 * self->page, self->page, res,
				    4 * round);
		weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	}
	ASSERT_EQ(0, weave_flush_all(self->fd, NULL));
	weave_test_wait(_metadata, self->fd, self->stream);
	weave_test_wait(_metadata, self->fd, other);
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd, other).isolated);

	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_LEAVE));
	weave_test_chain(&b, bo, self->page, weave_test_chain_a(4),
			 weave_test_chain_b(4), res, 16);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	weave_test_finish(_metadata, self->fd, self->stream);

	map = weave_test_map(_metadata, self->fd, res, self->page);
	for (round = 0; round < 5; round++)
		EXPECT_EQ(weave_test_chain_crc(self->page,
					       weave_test_chain_a(round),
					       weave_test_chain_b(round)),
			  map[round]) TH_LOG("round %u", round);
	weave_test_unmap(_metadata, map, self->page);
}

TEST_HARNESS_MAIN
