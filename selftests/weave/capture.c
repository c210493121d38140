// SPDX-License-Identifier: GPL-2.0
/*
 * weave: graph capture windows (uAPI 1.5).  A slot's capture window
 * through every state and every refusal, with the errno "DOC: graph
 * capture" and &struct drm_weave_capture document and the window unchanged
 * after a refusal; its abandonment by another stream of the slot; the
 * isolation it holds (seen through the jobs executions make,
 * &drm_weave_client_usage.submitted_jobs); recording, which runs nothing;
 * and doomed windows.  What a sealed graph does is capture_replay.c's.
 */
#include "weave_test_capture.h"

/* --- the window's states and refusals ------------------------------------ */

TEST_F(cap, query_without_window)
{
	struct drm_weave_capture c;

	ASSERT_EQ(0, cap_capture(self->fd, self->s, DRM_WEAVE_CAPTURE_QUERY, &c));
	EXPECT_EQ(self->s, c.stream);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_QUERY, c.op);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.owner);
	EXPECT_EQ(0u, c.graph);
	EXPECT_EQ(0u, c.ntasks);
	EXPECT_EQ(0, c.error);
	EXPECT_EQ(0u, c.failure);
	EXPECT_EQ(0u, cap_isolated(_metadata, self->fd, self->s));
}

/* PREPARE, BEGIN, END: each state as QUERY reports it, then a graph. */
TEST_F(cap, prepare_begin_end)
{
	struct drm_weave_capture c;
	struct weave_test_batch b;

	cap_prepare(_metadata, self->fd, self->s);
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_PREPARED, self->s, 0);
	EXPECT_EQ(1u, cap_isolated(_metadata, self->fd, self->s));
	cap_begin(_metadata, self->fd, self->s);
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, 0);

	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, 2);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, 3);

	c = cap_do(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_END);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_NE(0u, c.graph);
	EXPECT_EQ(3u, c.ntasks);
	EXPECT_EQ(0, c.error);
	EXPECT_EQ(0u, c.failure);
	cap_expect_none(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, cap_isolated(_metadata, self->fd, self->s));

	/* The slot takes a new window, and the stream works. */
	cap_prepare(_metadata, self->fd, self->s);
	cap_do(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_ABORT);
	cap_chain_works(_metadata, self, self->s, 0);
}

/* A second PREPARE: -EBUSY, whoever asks, in either state. */
TEST_F(cap, prepare_twice_is_busy)
{
	struct drm_weave_capture c;
	uint32_t folded;

	cap_prepare(_metadata, self->fd, self->s);
	EXPECT_EQ(-EBUSY, cap_capture(self->fd, self->s,
				      DRM_WEAVE_CAPTURE_PREPARE, &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_PREPARED, c.state);
	EXPECT_EQ(self->s, c.owner);
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_PREPARED, self->s, 0);

	cap_begin(_metadata, self->fd, self->s);
	weave_test_enqueue_noop(_metadata, self->fd, self->s);
	EXPECT_EQ(-EBUSY, cap_capture(self->fd, self->s,
				      DRM_WEAVE_CAPTURE_PREPARE, &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
	EXPECT_EQ(self->s, c.owner);
	EXPECT_EQ(1u, c.ntasks);
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, 1);

	folded = cap_folded_stream(_metadata, self);
	if (folded) {
		EXPECT_EQ(-EBUSY, cap_capture(self->fd, folded,
					      DRM_WEAVE_CAPTURE_PREPARE, &c));
		EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
		EXPECT_EQ(self->s, c.owner);
		cap_expect_window(_metadata, self->fd, self->s,
				  DRM_WEAVE_CAPTURE_RECORDING, self->s, 1);
	}
	cap_end(_metadata, self->fd, self->s, 1);
}

/* BEGIN without a prepared window of the stream's own: -EBADFD. */
TEST_F(cap, begin_without_prepare)
{
	struct drm_weave_capture c;
	uint32_t other = cap_other_slot(_metadata, self, self->s);

	EXPECT_EQ(-EBADFD, cap_capture(self->fd, self->s, DRM_WEAVE_CAPTURE_BEGIN,
				       &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.owner);
	cap_expect_none(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, cap_isolated(_metadata, self->fd, self->s));

	/* A window on another slot does not count. */
	cap_prepare(_metadata, self->fd, other);
	EXPECT_EQ(-EBADFD, cap_capture(self->fd, self->s, DRM_WEAVE_CAPTURE_BEGIN,
				       &c));
	cap_expect_none(_metadata, self->fd, self->s);
	cap_expect_window(_metadata, self->fd, other, DRM_WEAVE_CAPTURE_PREPARED,
			  other, 0);

	/* Nor does a window already recording. */
	cap_start(_metadata, self->fd, self->s);
	EXPECT_EQ(-EBADFD, cap_capture(self->fd, self->s, DRM_WEAVE_CAPTURE_BEGIN,
				       &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
	EXPECT_EQ(self->s, c.owner);
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, 0);
}

/* BEGIN by a stream of the slot that does not own the window: -EBADFD. */
TEST_F(cap, begin_by_non_owner)
{
	struct drm_weave_capture c;
	uint32_t folded = cap_folded_stream(_metadata, self);

	if (!folded)
		SKIP(return, "no folded stream within max_client_streams");
	cap_prepare(_metadata, self->fd, self->s);
	EXPECT_EQ(-EBADFD, cap_capture(self->fd, folded, DRM_WEAVE_CAPTURE_BEGIN,
				       &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_PREPARED, c.state);
	EXPECT_EQ(self->s, c.owner);
	cap_expect_window(_metadata, self->fd, folded, DRM_WEAVE_CAPTURE_PREPARED,
			  self->s, 0);
	/* The owner still can. */
	cap_begin(_metadata, self->fd, self->s);
}

/* END of a slot whose window is not recording: -EBADFD, nothing changes. */
TEST_F(cap, end_when_not_recording)
{
	struct drm_weave_capture c;
	uint32_t folded;

	EXPECT_EQ(-EBADFD, cap_capture(self->fd, self->s, DRM_WEAVE_CAPTURE_END,
				       &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.graph);
	cap_expect_none(_metadata, self->fd, self->s);

	cap_prepare(_metadata, self->fd, self->s);
	EXPECT_EQ(-EBADFD, cap_capture(self->fd, self->s, DRM_WEAVE_CAPTURE_END,
				       &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_PREPARED, c.state);
	EXPECT_EQ(self->s, c.owner);
	EXPECT_EQ(0u, c.graph);
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_PREPARED, self->s, 0);
	EXPECT_EQ(1u, cap_isolated(_metadata, self->fd, self->s));

	/* Another stream of the slot abandons only a recording window. */
	folded = cap_folded_stream(_metadata, self);
	if (folded) {
		EXPECT_EQ(-EBADFD, cap_capture(self->fd, folded,
					       DRM_WEAVE_CAPTURE_END, &c));
		EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_PREPARED, c.state);
		cap_expect_window(_metadata, self->fd, self->s,
				  DRM_WEAVE_CAPTURE_PREPARED, self->s, 0);
	}
	cap_begin(_metadata, self->fd, self->s);
}

/* Unknown op, flags, pad: -EINVAL, in every state, and nothing changes. */
TEST_F(cap, bad_op_flags_pad)
{
	static const uint32_t bad_ops[] = { 5, 6, 0x100, 0xffffffffu };
	unsigned int i, op;

	for (i = 0; i < ARRAY_SIZE(bad_ops); i++)
		EXPECT_EQ(-EINVAL, weave_capture(self->fd, self->s, bad_ops[i],
						 NULL));
	/* A PREPARE with flags or pad opens no window. */
	EXPECT_EQ(-EINVAL, cap_capture_raw(self->fd, self->s,
					   DRM_WEAVE_CAPTURE_PREPARE, 1, 0));
	EXPECT_EQ(-EINVAL, cap_capture_raw(self->fd, self->s,
					   DRM_WEAVE_CAPTURE_PREPARE,
					   0x80000000u, 0));
	EXPECT_EQ(-EINVAL, cap_capture_raw(self->fd, self->s,
					   DRM_WEAVE_CAPTURE_PREPARE, 0, 1));
	cap_expect_none(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, cap_isolated(_metadata, self->fd, self->s));

	cap_prepare(_metadata, self->fd, self->s);
	for (op = DRM_WEAVE_CAPTURE_PREPARE; op <= DRM_WEAVE_CAPTURE_QUERY;
	     op++) {
		EXPECT_EQ(-EINVAL, cap_capture_raw(self->fd, self->s, op, 1, 0));
		EXPECT_EQ(-EINVAL, cap_capture_raw(self->fd, self->s, op, 0, 1));
	}
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_PREPARED, self->s, 0);

	cap_begin(_metadata, self->fd, self->s);
	weave_test_enqueue_noop(_metadata, self->fd, self->s);
	for (i = 0; i < ARRAY_SIZE(bad_ops); i++)
		EXPECT_EQ(-EINVAL, weave_capture(self->fd, self->s, bad_ops[i],
						 NULL));
	for (op = DRM_WEAVE_CAPTURE_PREPARE; op <= DRM_WEAVE_CAPTURE_QUERY;
	     op++) {
		EXPECT_EQ(-EINVAL, cap_capture_raw(self->fd, self->s, op, 1, 0));
		EXPECT_EQ(-EINVAL, cap_capture_raw(self->fd, self->s, op, 0, 1));
	}
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, 1);
	cap_end(_metadata, self->fd, self->s, 1);
}

/* A stream the client does not have: -ENOENT for every op. */
TEST_F(cap, unknown_stream)
{
	uint32_t gone = weave_test_stream(_metadata, self->fd,
					  DRM_WEAVE_PRIORITY_NORMAL);
	unsigned int op;

	ASSERT_EQ(0, weave_stream_destroy(self->fd, gone));
	for (op = DRM_WEAVE_CAPTURE_PREPARE; op <= DRM_WEAVE_CAPTURE_QUERY;
	     op++) {
		EXPECT_EQ(-ENOENT, weave_capture(self->fd,
						 WEAVE_TEST_BAD_HANDLE, op,
						 NULL));
		EXPECT_EQ(-ENOENT, weave_capture(self->fd, gone, op, NULL));
		EXPECT_EQ(-ENOENT, weave_capture(self->fd, 0, op, NULL));
	}
	cap_expect_none(_metadata, self->fd, self->s);
}

/* ABORT closes the window from any state; no window is no error. */
TEST_F(cap, abort_from_every_state)
{
	struct drm_weave_capture c;
	struct weave_test_batch b;
	uint32_t bo;

	c = cap_do(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_ABORT);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.graph);
	cap_expect_none(_metadata, self->fd, self->s);

	cap_prepare(_metadata, self->fd, self->s);
	c = cap_do(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_ABORT);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.graph);
	cap_expect_none(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, cap_isolated(_metadata, self->fd, self->s));

	/* What a recording window recorded never runs. */
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	cap_start(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 0xab0b7ab0);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	c = cap_do(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_ABORT);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.graph);
	cap_expect_none(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, cap_isolated(_metadata, self->fd, self->s));
	weave_test_finish(_metadata, self->fd, self->s);
	weave_test_expect_range(_metadata, self->fd, bo, self->page, 0,
				self->page, 0);

	/* The stream works, and the slot takes a new window. */
	cap_chain_works(_metadata, self, self->s, 1);
	cap_prepare(_metadata, self->fd, self->s);
}

/* ABORT and QUERY act on the slot's window, from any stream of the slot. */
TEST_F(cap, abort_and_query_by_another_stream_of_the_slot)
{
	uint32_t folded = cap_folded_stream(_metadata, self);

	if (!folded)
		SKIP(return, "no folded stream within max_client_streams");
	cap_start(_metadata, self->fd, self->s);
	weave_test_enqueue_noop(_metadata, self->fd, self->s);
	cap_expect_window(_metadata, self->fd, folded,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, 1);
	cap_do(_metadata, self->fd, folded, DRM_WEAVE_CAPTURE_ABORT);
	cap_expect_none(_metadata, self->fd, self->s);
	cap_expect_none(_metadata, self->fd, folded);
	EXPECT_EQ(0u, cap_isolated(_metadata, self->fd, self->s));
	/* The owner's WAIT works again. */
	weave_test_wait(_metadata, self->fd, self->s);
}

/* --- abandonment ------------------------------------------------------------ */

/*
 * END by another stream of the slot abandons the window: -ECANCELED with
 * the owner named, closed without a graph, what it recorded never runs,
 * and both streams keep working.
 */
TEST_F(cap, end_by_another_stream_abandons)
{
	uint32_t folded = cap_folded_stream(_metadata, self), bo;
	struct drm_weave_capture c;
	struct weave_test_batch b;
	int ret;

	if (!folded)
		SKIP(return, "no folded stream within max_client_streams");
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	cap_start(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 0xaba0d0);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);

	/* The folded stream's own tasks run meanwhile. */
	cap_chain_works(_metadata, self, folded, 2);

	ret = cap_capture(self->fd, folded, DRM_WEAVE_CAPTURE_END, &c);
	EXPECT_EQ(-ECANCELED, ret);
	EXPECT_EQ(self->s, c.owner);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.graph);
	EXPECT_EQ(0, c.error);
	cap_expect_none(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, cap_isolated(_metadata, self->fd, self->s));

	/* Nothing of it ran; both streams work, the owner's WAIT too. */
	weave_test_finish(_metadata, self->fd, self->s);
	weave_test_expect_range(_metadata, self->fd, bo, self->page, 0,
				self->page, 0);
	cap_chain_works(_metadata, self, folded, 3);
	cap_chain_works(_metadata, self, self->s, 4);
	/* And the slot takes a new window, of either. */
	cap_prepare(_metadata, self->fd, folded);
}

/* Destroying the owner closes its window, and releases the slot. */
TEST_F(cap, destroying_the_owner_closes_the_window)
{
	uint32_t folded = cap_folded_stream(_metadata, self);

	if (!folded)
		SKIP(return, "no folded stream within max_client_streams");
	cap_start(_metadata, self->fd, folded);
	weave_test_enqueue_noop(_metadata, self->fd, folded);
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, folded, 1);
	ASSERT_EQ(0, weave_stream_destroy(self->fd, folded));
	cap_expect_none(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, cap_isolated(_metadata, self->fd, self->s));
	cap_chain_works(_metadata, self, self->s, 5);
	cap_prepare(_metadata, self->fd, self->s);
}

/* --- isolation ---------------------------------------------------------------- */

/*
 * The window isolates the slot from PREPARE to END: its tasks, the
 * owner's warm-up and a folded stream's while recording, are never
 * interleaved with another slot's.
 */
TEST_F(cap, window_isolates_the_slot)
{
	uint32_t other = cap_other_slot(_metadata, self, self->s), folded;

	EXPECT_EQ(1u, weave_test_flush_pair(_metadata, self->fd, self->s, other));
	cap_prepare(_metadata, self->fd, self->s);
	EXPECT_EQ(1u, cap_isolated(_metadata, self->fd, self->s));
	EXPECT_EQ(0u, cap_isolated(_metadata, self->fd, other));
	EXPECT_EQ(2u, weave_test_flush_pair(_metadata, self->fd, self->s, other));
	EXPECT_EQ(2u, weave_test_flush_pair(_metadata, self->fd, other, self->s));
	cap_begin(_metadata, self->fd, self->s);
	EXPECT_EQ(1u, cap_isolated(_metadata, self->fd, self->s));
	folded = cap_folded_stream(_metadata, self);
	if (folded) {
		EXPECT_EQ(1u, cap_isolated(_metadata, self->fd, folded));
		EXPECT_EQ(2u, weave_test_flush_pair(_metadata, self->fd, folded, other));
	}
	weave_test_enqueue_noop(_metadata, self->fd, self->s);
	cap_end(_metadata, self->fd, self->s, 1);
	EXPECT_EQ(0u, cap_isolated(_metadata, self->fd, self->s));
	EXPECT_EQ(1u, weave_test_flush_pair(_metadata, self->fd, self->s, other));
}

/*
 * The window's hold is its own: the stream's ENTER and LEAVE neither end
 * it nor count it, and END leaves the stream's own hold in place.
 */
TEST_F(cap, own_isolation_cannot_end_the_window)
{
	uint32_t other = cap_other_slot(_metadata, self, self->s);

	cap_prepare(_metadata, self->fd, self->s);
	EXPECT_EQ(-EALREADY, weave_stream_isolate(self->fd, self->s,
						  DRM_WEAVE_ISOLATION_LEAVE));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->s,
					  DRM_WEAVE_ISOLATION_ENTER));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->s,
					  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(1u, cap_isolated(_metadata, self->fd, self->s));
	EXPECT_EQ(2u, weave_test_flush_pair(_metadata, self->fd, self->s, other));
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_PREPARED, self->s, 0);

	cap_begin(_metadata, self->fd, self->s);
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->s,
					  DRM_WEAVE_ISOLATION_ENTER));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->s,
					  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(-EALREADY, weave_stream_isolate(self->fd, self->s,
						  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(1u, cap_isolated(_metadata, self->fd, self->s));
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, 0);

	/* A hold taken during the window outlives it. */
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->s,
					  DRM_WEAVE_ISOLATION_ENTER));
	weave_test_enqueue_noop(_metadata, self->fd, self->s);
	cap_end(_metadata, self->fd, self->s, 1);
	EXPECT_EQ(1u, cap_isolated(_metadata, self->fd, self->s));
	EXPECT_EQ(2u, weave_test_flush_pair(_metadata, self->fd, self->s, other));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->s,
					  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(0u, cap_isolated(_metadata, self->fd, self->s));
	EXPECT_EQ(1u, weave_test_flush_pair(_metadata, self->fd, self->s, other));
}

/* Streams of other slots keep working through the whole window. */
TEST_F(cap, other_slots_keep_working)
{
	uint32_t other = cap_other_slot(_metadata, self, self->s);

	cap_prepare(_metadata, self->fd, self->s);
	cap_chain_works(_metadata, self, other, 6);
	cap_begin(_metadata, self->fd, self->s);
	weave_test_enqueue_noop(_metadata, self->fd, self->s);
	cap_chain_works(_metadata, self, other, 7);
	EXPECT_EQ(0u, cap_isolated(_metadata, self->fd, other));
	cap_end(_metadata, self->fd, self->s, 1);
	cap_chain_works(_metadata, self, other, 8);
}

/* The first word of @bo, without failing the test. */
static uint32_t first_word(struct __test_metadata *_metadata, int fd,
			   uint32_t bo, uint64_t size)
{
	uint32_t *map = weave_test_map(_metadata, fd, bo, size), word;

	word = map[0];
	weave_test_unmap(_metadata, map, size);
	return word;
}

/*
 * PREPARE drains the slot's work so far: when it returns, the tasks
 * flushed before it and those only queued (which it executes) have
 * completed, without a WAIT.
 */
TEST_F(cap, prepare_drains_the_slot)
{
	uint32_t a, c;
	struct weave_test_batch b;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	c = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_delay(&b, 200000);
	weave_test_fill_task(&b, a, 0, self->page, 0xd1a1);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	ASSERT_EQ(0, weave_flush(self->fd, self->s, NULL));
	weave_test_delay(&b, 200000);
	weave_test_fill_task(&b, c, 0, self->page, 0xd1a2);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	cap_prepare(_metadata, self->fd, self->s);
	EXPECT_EQ(0xd1a1u, first_word(_metadata, self->fd, a, self->page)) {
		TH_LOG("the flushed work had not completed");
	}
	EXPECT_EQ(0xd1a2u, first_word(_metadata, self->fd, c, self->page)) {
		TH_LOG("the queued work had not completed");
	}
	EXPECT_EQ(4u, weave_test_squery(_metadata, self->fd,
					self->s).completed);
}

/*
 * BEGIN drains the warm-up: when it returns, the owner's warm-up tasks,
 * flushed or only queued, have completed; none is left to the recording.
 */
TEST_F(cap, begin_drains_the_warm_up)
{
	struct drm_weave_stream_query q;
	struct weave_test_batch b;
	uint32_t a, c;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	c = weave_test_bo(_metadata, self->fd, self->page, 0);
	cap_prepare(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_delay(&b, 200000);
	weave_test_fill_task(&b, a, 0, self->page, 0xd1a3);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	ASSERT_EQ(0, weave_flush(self->fd, self->s, NULL));
	weave_test_delay(&b, 200000);
	weave_test_fill_task(&b, c, 0, self->page, 0xd1a4);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	cap_begin(_metadata, self->fd, self->s);
	EXPECT_EQ(0xd1a3u, first_word(_metadata, self->fd, a, self->page)) {
		TH_LOG("the flushed warm-up had not completed");
	}
	EXPECT_EQ(0xd1a4u, first_word(_metadata, self->fd, c, self->page)) {
		TH_LOG("the queued warm-up had not completed");
	}
	q = weave_test_squery(_metadata, self->fd, self->s);
	EXPECT_EQ(4u, q.completed);
	EXPECT_EQ(4u, q.executed);
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, 0);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	cap_end(_metadata, self->fd, self->s, 1);
	/* The recording added nothing to the stream's tasks. */
	weave_test_finish(_metadata, self->fd, self->s);
	EXPECT_EQ(4u, weave_test_squery(_metadata, self->fd,
					self->s).completed);
}

/* --- recording ------------------------------------------------------------- */

/*
 * The owner's launches are recorded, not run: their buffers keep their
 * bytes, the stream's executed and completed counts and the file's jobs
 * do not move, before END or after; END seals them all.
 */
TEST_F(cap, recorded_launches_do_not_run)
{
	struct drm_weave_stream_query q0, q;
	struct weave_test_batch b;
	uint32_t bo, bo2, graph;
	uint64_t jobs;

	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	bo2 = weave_test_bo(_metadata, self->fd, self->page, 0);
	cap_fill_now(_metadata, self->fd, self->s, bo, self->page, 0x1111);
	cap_fill_now(_metadata, self->fd, self->s, bo2, self->page, 0x2222);

	cap_start(_metadata, self->fd, self->s);
	q0 = weave_test_squery(_metadata, self->fd, self->s);
	jobs = weave_test_jobs(_metadata, self->fd);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 0x3333);
	weave_test_copy_task(&b, bo, 0, bo2, 0, self->page);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	weave_test_noop(&b);
	weave_test_noop(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, 5);
	usleep(100000);
	weave_test_expect_range(_metadata, self->fd, bo, self->page, 0,
				self->page,
				0x1111);
	weave_test_expect_range(_metadata, self->fd, bo2, self->page, 0,
				self->page,
				0x2222);
	q = weave_test_squery(_metadata, self->fd, self->s);
	EXPECT_EQ(q0.executed, q.executed);
	EXPECT_EQ(q0.completed, q.completed);
	EXPECT_EQ(jobs, weave_test_jobs(_metadata, self->fd));
	TH_LOG("enqueued %llu before recording, %llu after",
	       (unsigned long long)q0.enqueued,
	       (unsigned long long)q.enqueued);

	graph = cap_end(_metadata, self->fd, self->s, 5);
	weave_test_finish(_metadata, self->fd, self->s);
	q = weave_test_squery(_metadata, self->fd, self->s);
	EXPECT_EQ(q0.executed, q.executed);
	EXPECT_EQ(q0.completed, q.completed);
	weave_test_expect_range(_metadata, self->fd, bo, self->page, 0,
				self->page,
				0x1111);
	weave_test_expect_range(_metadata, self->fd, bo2, self->page, 0,
				self->page,
				0x2222);

	/* Replayed, they run. */
	cap_replay_wait(_metadata, self->fd, graph, self->s);
	weave_test_expect_range(_metadata, self->fd, bo, self->page, 0,
				self->page,
				0x3333);
	weave_test_expect_range(_metadata, self->fd, bo2, self->page, 0,
				self->page,
				0x3333);
}

/* While the owner records, its WAIT, FLUSH and replays onto it: -EBUSY. */
TEST_F(cap, wait_flush_replay_busy_while_recording)
{
	struct weave_test_batch b;
	uint32_t graph;

	weave_test_batch_init(&b);
	weave_test_noop(&b);
	graph = cap_record(_metadata, self->fd, self->s, &b);

	/* Prepared is not recording: the warm-up flushes and waits. */
	cap_prepare(_metadata, self->fd, self->s);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	EXPECT_EQ(0, weave_flush(self->fd, self->s, NULL));
	EXPECT_EQ(0, weave_wait(self->fd, self->s,
				weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
	cap_begin(_metadata, self->fd, self->s);

	EXPECT_EQ(-EBUSY, weave_wait(self->fd, self->s,
				     weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
	EXPECT_EQ(-EBUSY, weave_wait(self->fd, self->s, 0));
	EXPECT_EQ(-EBUSY, weave_flush(self->fd, self->s, NULL));
	EXPECT_EQ(-EBUSY, weave_replay(self->fd, graph, self->s, NULL, 0,
				       NULL, NULL));
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, 0);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	EXPECT_EQ(-EBUSY, weave_flush(self->fd, self->s, NULL));
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, 1);
	cap_end(_metadata, self->fd, self->s, 1);
	weave_test_finish(_metadata, self->fd, self->s);
	cap_replay_wait(_metadata, self->fd, graph, self->s);
}

/* A recording stream's enqueue with in-syncs: -EINVAL, nothing recorded. */
TEST_F(cap, in_syncs_refused_while_recording)
{
	struct drm_weave_sync in;
	struct weave_test_batch b;
	uint32_t obj;

	obj = weave_test_syncobj(_metadata, self->fd);
	ASSERT_EQ(0, drmSyncobjSignal(self->fd, &obj, 1));
	in = weave_sync(obj, 0);
	cap_start(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	EXPECT_EQ(-EINVAL, weave_enqueue(self->fd, self->s, b.task, b.n, &in,
					 1, NULL));
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, 0);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	cap_end(_metadata, self->fd, self->s, 1);
	drmSyncobjDestroy(self->fd, obj);
}

/* --- doomed windows ---------------------------------------------------------- */

/*
 * A FAIL of the owner's warm-up dooms the window: BEGIN drains it, fails
 * with -EIO, names the errno and the failure, and closes the window.
 */
TEST_F(cap, failed_warm_up_dooms_begin)
{
	struct drm_weave_capture c;
	struct weave_test_batch b;
	uint32_t bo;
	int ret;

	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	cap_prepare(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, bo, 0, 256, EPROTO);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	/* Submitted, not waited for: BEGIN's drain waits. */
	ASSERT_EQ(0, weave_flush(self->fd, self->s, NULL));
	ret = cap_capture(self->fd, self->s, DRM_WEAVE_CAPTURE_BEGIN, &c);
	EXPECT_EQ(-EIO, ret);
	EXPECT_EQ(-EPROTO, c.error);
	EXPECT_NE(0u, c.failure);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.graph);
	cap_expect_none(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, cap_isolated(_metadata, self->fd, self->s));

	/* The failure named is the one on the FAIL's bytes. */
	weave_test_wait(_metadata, self->fd, self->s);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, bo, 0, 256,
					self->r));
	EXPECT_EQ(self->r->failure[0].id, c.failure);
	EXPECT_EQ(-EPROTO, self->r->failure[0].error);

	/* The slot takes a new window, which seals. */
	weave_test_noop(&b);
	cap_record(_metadata, self->fd, self->s, &b);
}

/* A warm-up task skipped for reading tainted bytes dooms it too. */
TEST_F(cap, skipped_warm_up_dooms_begin)
{
	uint32_t other = cap_other_slot(_metadata, self, self->s), bo, bo2;
	struct drm_weave_capture c;
	struct weave_test_batch b;
	uint64_t id;

	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	bo2 = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, bo, 0, self->page, ENOEXEC);
	weave_test_enqueue(_metadata, self->fd, other, &b);
	weave_test_finish(_metadata, self->fd, other);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, bo, 0,
					self->page, self->r));
	id = self->r->failure[0].id;

	cap_prepare(_metadata, self->fd, self->s);
	weave_test_copy_task(&b, bo, 0, bo2, 0, self->page);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	ASSERT_EQ(0, weave_flush(self->fd, self->s, NULL));
	EXPECT_EQ(-EIO, cap_capture(self->fd, self->s, DRM_WEAVE_CAPTURE_BEGIN,
				    &c));
	EXPECT_EQ(-ENOEXEC, c.error);
	EXPECT_EQ(id, c.failure);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	cap_expect_none(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, cap_isolated(_metadata, self->fd, self->s));
}

/*
 * A host write of the owner while recording is not recorded, and dooms
 * the window: END fails with -EIO and closes it, and what the recorded
 * tasks write is tainted with the doom's errno and cause
 * DRM_WEAVE_FAILURE_CAPTURE, until rewritten.  The host write itself is
 * refused: it does not run, and its destination takes a failure of cause
 * DRM_WEAVE_FAILURE_CAPTURE, -EBUSY (as &enum drm_weave_failure_cause
 * says; "DOC: graph capture" still says that it runs).
 */
TEST_F(cap, host_write_dooms_end)
{
	uint32_t a, w, data[64], i;
	struct drm_weave_capture c;
	struct weave_test_batch b;
	int ret;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	w = weave_test_bo(_metadata, self->fd, self->page, 0);
	for (i = 0; i < 64; i++)
		data[i] = 0xda7a0000u + i;
	cap_start(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, a, 0, 512, 0xaaaa);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	weave_test_write_task(&b, w, 0, sizeof(data), data);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	/* Doomed, it still records until END; the host write is not in it. */
	c = cap_do(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_QUERY);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
	EXPECT_EQ(self->s, c.owner);
	EXPECT_EQ(2u, c.ntasks);
	EXPECT_GT(0, c.error);
	/* BEGIN finds no prepared window: -EBADFD, and nothing changes. */
	EXPECT_EQ(-EBADFD, cap_capture(self->fd, self->s,
				       DRM_WEAVE_CAPTURE_BEGIN, &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
	EXPECT_EQ(2u, c.ntasks);

	ret = cap_capture(self->fd, self->s, DRM_WEAVE_CAPTURE_END, &c);
	EXPECT_EQ(-EIO, ret);
	EXPECT_GT(0, c.error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.graph);
	cap_expect_none(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, cap_isolated(_metadata, self->fd, self->s));

	/* The host write was refused: not written, its range tainted. */
	weave_test_finish(_metadata, self->fd, self->s);
	weave_test_expect_range(_metadata, self->fd, w, self->page, 0,
				self->page, 0);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, w, 0,
					sizeof(data), self->r));
	EXPECT_EQ(-EBUSY, self->r->failure[0].error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_CAPTURE,
		  self->r->failure[0].cause);
	EXPECT_EQ((uint32_t)DRM_WEAVE_TASK_HOST_WRITE,
		  self->r->failure[0].root.type);
	EXPECT_EQ(self->s, self->r->failure[0].root.stream);
	weave_test_log_failure(_metadata, self->r, 0);
	weave_test_expect_good(_metadata, self->fd, w, sizeof(data),
			       self->page - sizeof(data));

	/* The recorded fill did not run, and its range is tainted. */
	weave_test_expect_range(_metadata, self->fd, a, self->page, 0,
				self->page, 0);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, a, 0, 512,
					self->r)) {
		TH_LOG("what the doomed window recorded is not tainted");
	}
	EXPECT_EQ(c.error, self->r->failure[0].error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_CAPTURE,
		  self->r->failure[0].cause);
	weave_test_log_failure(_metadata, self->r, 0);
	weave_test_expect_good(_metadata, self->fd, a, 512,
			       self->page - 512);

	/* Rewriting makes it good. */
	cap_fill_now(_metadata, self->fd, self->s, a, 512, 0xbbbb);
	weave_test_expect_good(_metadata, self->fd, a, 0, self->page);
}

/*
 * A host write of another stream into a buffer the window records is
 * refused too (DRM_WEAVE_FAILURE_CAPTURE, -EBUSY), but dooms nothing:
 * END seals the graph, and its replay makes the bytes good.
 */
TEST_F(cap, host_write_into_a_recorded_buffer_is_refused)
{
	uint32_t t = cap_other_slot(_metadata, self, self->s), a, data[16], i;
	struct weave_test_batch b;
	uint32_t graph;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	for (i = 0; i < 16; i++)
		data[i] = 0x5eed0000u + i;
	cap_start(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, a, 0, self->page, 0xfeed);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	weave_test_write_task(&b, a, 0, sizeof(data), data);
	weave_test_enqueue(_metadata, self->fd, t, &b);
	weave_test_finish(_metadata, self->fd, t);
	weave_test_expect_range(_metadata, self->fd, a, self->page, 0,
				self->page, 0);
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, 1);
	graph = cap_end(_metadata, self->fd, self->s, 1);

	/* CHECK of a recorded buffer waits for END. */
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, a, 0,
					sizeof(data), self->r));
	EXPECT_EQ(-EBUSY, self->r->failure[0].error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_CAPTURE,
		  self->r->failure[0].cause);
	EXPECT_EQ((uint32_t)DRM_WEAVE_TASK_HOST_WRITE,
		  self->r->failure[0].root.type);
	EXPECT_EQ(t, self->r->failure[0].root.stream);

	cap_replay_wait(_metadata, self->fd, graph, self->s);
	weave_test_expect_good(_metadata, self->fd, a, 0, self->page);
	weave_test_expect_range(_metadata, self->fd, a, self->page, 0,
				self->page,
				0xfeed);
	/* With the window closed, host writes into it run. */
	weave_test_write_task(&b, a, 0, sizeof(data), data);
	weave_test_enqueue(_metadata, self->fd, t, &b);
	weave_test_finish(_metadata, self->fd, t);
	weave_test_expect_good(_metadata, self->fd, a, 0, self->page);
	weave_test_expect_range(_metadata, self->fd, a, self->page, 0, 4,
				data[0]);
}

/*
 * While a window records a task that binds a buffer, CHECK and READ of
 * any range of that buffer fail with -EBUSY, and READ submits nothing;
 * other buffers answer as usual, and END lifts it.
 */
TEST_F(cap, check_and_read_of_a_recorded_buffer_are_busy)
{
	uint32_t t = cap_other_slot(_metadata, self, self->s), a, x, word = 0;
	struct drm_weave_check_range ranges[2];
	struct weave_test_batch b;
	uint32_t nf = 0, ns = 0;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	x = weave_test_bo(_metadata, self->fd, self->page, 0);
	cap_start(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, a, 0, 256, 0xb05e);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);

	/* Any range of the buffer, the one recorded or not. */
	ranges[0] = weave_check_range(a, 0, 256);
	EXPECT_EQ(-EBUSY, weave_check(self->fd, ranges, 1, NULL, &nf, NULL,
				      &ns));
	ranges[0] = weave_check_range(a, self->page / 2, 64);
	EXPECT_EQ(-EBUSY, weave_check(self->fd, ranges, 1, NULL, &nf, NULL,
				      &ns));
	ranges[0] = weave_check_range(x, 0, 64);
	ranges[1] = weave_check_range(a, self->page - 4, 4);
	EXPECT_EQ(-EBUSY, weave_check(self->fd, ranges, 2, NULL, &nf, NULL,
				      &ns));
	EXPECT_EQ(0, weave_check(self->fd, ranges, 1, NULL, &nf, NULL, &ns));
	EXPECT_EQ(0u, nf);

	/* READ: -EBUSY, and the task queued on another slot stays queued. */
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, t, &b);
	EXPECT_EQ(-EBUSY, weave_read(self->fd, a, self->page / 2, 4, &word,
				     weave_timeout_ns(WEAVE_TEST_WAIT_NS),
				     NULL, NULL, NULL, NULL));
	EXPECT_EQ(1u, weave_test_client_usage(_metadata,
					      self->fd).queued_tasks);
	EXPECT_EQ(0, weave_read(self->fd, x, 0, 4, &word,
				weave_timeout_ns(WEAVE_TEST_WAIT_NS), NULL,
				NULL, NULL, NULL));
	EXPECT_EQ(0u, word);
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, 1);

	/* Closed, the buffer answers again. */
	cap_end(_metadata, self->fd, self->s, 1);
	ranges[0] = weave_check_range(a, 0, self->page);
	EXPECT_EQ(0, weave_check(self->fd, ranges, 1, NULL, &nf, NULL, &ns));
	EXPECT_EQ(0, weave_read(self->fd, a, 0, 4, &word,
				weave_timeout_ns(WEAVE_TEST_WAIT_NS), NULL,
				NULL, NULL, NULL));
	EXPECT_EQ(0u, word);
}

TEST_HARNESS_MAIN
