// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the capture windows, kmod/weave_capture.c, over the
 * scheduler core and the mock backend, compiled in user space: every
 * transition, every refusal (which changes nothing), abandonment from a
 * stream folded onto the same slot, and the isolation hold a window keeps
 * whatever the owner's own isolation does.
 *
 * max_streams 4, max_tasks 3, interleave: streams 1 and 5 share slot 1.
 */
#include <string.h>
#include <sanitizer/lsan_interface.h>

#include <linux/errno.h>
#include <linux/mutex.h>

/* The harness has an unused parameter; -Wextra is otherwise kept. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "mock_backend.h"
#include "weave_capture.h"

#define MAX_STREAMS	4
#define MAX_TASKS	3

FIXTURE(cap) {
	struct mock_backend m;
	struct mutex lock;
	struct weave_core s;
	struct weave_capture c;
};

FIXTURE_SETUP(cap)
{
	struct weave_core_params p = {
		.ops = &mock_ops,
		.backend = &self->m,
		.lock = &self->lock,
		.track_idle = mock_track_idle,
		.max_streams = MAX_STREAMS,
		.max_tasks = MAX_TASKS,
		.strategy = WEAVE_STRATEGY_INTERLEAVE,
	};

	mutex_init(&self->lock);
	mutex_lock(&self->lock);
	ASSERT_EQ(0, weave_core_init(&self->s, &p));
	ASSERT_EQ(0, weave_core_capture_init(&self->c, &self->s));
}

FIXTURE_TEARDOWN(cap)
{
	u32 i;

	for (i = 0; i < MAX_STREAMS; i++)
		EXPECT_EQ(WEAVE_WINDOW_NONE, (int)self->c.windows[i].state);
	weave_core_capture_fini(&self->c);
	weave_core_fini(&self->s);
	mutex_unlock(&self->lock);
	EXPECT_EQ(0, __lsan_do_recoverable_leak_check());
}

static struct mock_task launch(u32 kernel_id)
{
	return (struct mock_task) {
		.kind = WEAVE_TASK_LAUNCH,
		.kernel_id = kernel_id,
		.grid = { 1, 1, 1 },
	};
}

#define LAUNCH(stream, kernel_id) do {					\
	struct mock_task __t = launch(kernel_id);			\
	ASSERT_EQ(0, mock_register(&self->s, (stream), &__t));	\
} while (0)

#define STATE(stream)	((int)weave_core_capture_window(&self->c, (stream))->state)
#define OWNER(stream)	weave_core_capture_window(&self->c, (stream))->owner
#define ISOLATED(stream)	weave_core_isolated(&self->s, (stream))

TEST_F(cap, prepare_begin_end)
{
	u32 owner = 99;

	LAUNCH(1, 7);
	ASSERT_EQ(0, weave_core_capture_prepare(&self->c, 1));
	EXPECT_EQ(WEAVE_WINDOW_PREPARED, STATE(1));
	EXPECT_EQ(1u, OWNER(5));	/* the slot's window */
	/* Prepare executed the slot: the task before it is not isolated. */
	EXPECT_EQ(0u, weave_core_slot_queued(&self->s, 1));
	EXPECT_TRUE(ISOLATED(1));
	EXPECT_FALSE(ISOLATED(2));
	EXPECT_FALSE(weave_core_capture_recording(&self->c, 1));

	LAUNCH(1, 8);	/* the warm-up */
	ASSERT_EQ(0, weave_core_capture_begin(&self->c, 1));
	EXPECT_EQ(WEAVE_WINDOW_RECORDING, STATE(1));
	/* Begin executed the warm-up. */
	EXPECT_EQ(0u, weave_core_slot_queued(&self->s, 1));
	EXPECT_TRUE(weave_core_capture_recording(&self->c, 1));
	EXPECT_FALSE(weave_core_capture_recording(&self->c, 5));

	ASSERT_EQ(0, weave_core_capture_end(&self->c, 1, &owner));
	EXPECT_EQ(1u, owner);
	EXPECT_EQ(WEAVE_WINDOW_NONE, STATE(1));
	EXPECT_EQ(0u, OWNER(1));
	EXPECT_FALSE(ISOLATED(1));
}

/* Every refusal, and the window as it was after each. */
TEST_F(cap, out_of_order_changes_nothing)
{
	u32 owner = 99;

	EXPECT_EQ(-EBADFD, weave_core_capture_begin(&self->c, 1));
	EXPECT_EQ(-EBADFD, weave_core_capture_end(&self->c, 1, &owner));
	EXPECT_EQ(0u, owner);
	EXPECT_EQ(WEAVE_WINDOW_NONE, STATE(1));
	EXPECT_FALSE(ISOLATED(1));

	ASSERT_EQ(0, weave_core_capture_prepare(&self->c, 1));
	/* Twice, from the owner or from a stream of the same slot. */
	EXPECT_EQ(-EBUSY, weave_core_capture_prepare(&self->c, 1));
	EXPECT_EQ(-EBUSY, weave_core_capture_prepare(&self->c, 5));
	/* Begin by another stream of the slot; end before begin. */
	EXPECT_EQ(-EBADFD, weave_core_capture_begin(&self->c, 5));
	EXPECT_EQ(-EBADFD, weave_core_capture_end(&self->c, 1, &owner));
	EXPECT_EQ(1u, owner);
	EXPECT_EQ(WEAVE_WINDOW_PREPARED, STATE(1));
	EXPECT_EQ(1u, OWNER(1));

	ASSERT_EQ(0, weave_core_capture_begin(&self->c, 1));
	EXPECT_EQ(-EBADFD, weave_core_capture_begin(&self->c, 1));
	EXPECT_EQ(-EBUSY, weave_core_capture_prepare(&self->c, 1));
	EXPECT_EQ(WEAVE_WINDOW_RECORDING, STATE(1));

	/* Other slots are untouched and may have windows of their own. */
	EXPECT_EQ(WEAVE_WINDOW_NONE, STATE(2));
	ASSERT_EQ(0, weave_core_capture_prepare(&self->c, 2));
	EXPECT_TRUE(weave_core_capture_close(&self->c, 2));
	EXPECT_TRUE(weave_core_capture_close(&self->c, 1));
}

/* End from a stream folded onto the slot abandons the window. */
TEST_F(cap, end_by_another_stream_abandons)
{
	u32 owner = 99;

	ASSERT_EQ(0, weave_core_capture_prepare(&self->c, 1));
	ASSERT_EQ(0, weave_core_capture_begin(&self->c, 1));
	EXPECT_EQ(-ECANCELED, weave_core_capture_end(&self->c, 5, &owner));
	EXPECT_EQ(1u, owner);
	EXPECT_EQ(WEAVE_WINDOW_NONE, STATE(1));
	EXPECT_FALSE(ISOLATED(1));
	/* The slot is free for a new window, by either stream. */
	ASSERT_EQ(0, weave_core_capture_prepare(&self->c, 5));
	EXPECT_EQ(5u, OWNER(1));
	EXPECT_TRUE(weave_core_capture_close(&self->c, 1));
}

/* Close works from every state, and twice. */
TEST_F(cap, close_from_any_state)
{
	EXPECT_FALSE(weave_core_capture_close(&self->c, 1));

	ASSERT_EQ(0, weave_core_capture_prepare(&self->c, 1));
	EXPECT_TRUE(weave_core_capture_close(&self->c, 5));
	EXPECT_EQ(WEAVE_WINDOW_NONE, STATE(1));
	EXPECT_FALSE(ISOLATED(1));

	ASSERT_EQ(0, weave_core_capture_prepare(&self->c, 1));
	ASSERT_EQ(0, weave_core_capture_begin(&self->c, 1));
	EXPECT_TRUE(weave_core_capture_close(&self->c, 1));
	EXPECT_FALSE(weave_core_capture_close(&self->c, 1));
	EXPECT_EQ(WEAVE_WINDOW_NONE, STATE(1));
	EXPECT_FALSE(ISOLATED(1));
}

/*
 * The owner's own isolation holds come and go (the ioctl layer lets a
 * stream hold one at most); the window's stays until it closes.
 */
TEST_F(cap, own_isolation_cannot_end_the_window)
{
	ASSERT_EQ(0, weave_core_isolate_get(&self->s, 1));
	ASSERT_EQ(0, weave_core_capture_prepare(&self->c, 1));
	ASSERT_EQ(0, weave_core_isolate_put(&self->s, 1));
	EXPECT_TRUE(ISOLATED(1));
	ASSERT_EQ(0, weave_core_capture_begin(&self->c, 1));
	ASSERT_EQ(0, weave_core_isolate_get(&self->s, 5));
	ASSERT_EQ(0, weave_core_isolate_put(&self->s, 5));
	EXPECT_TRUE(ISOLATED(1));
	ASSERT_EQ(0, weave_core_isolate_get(&self->s, 1));
	EXPECT_TRUE(weave_core_capture_close(&self->c, 1));
	EXPECT_TRUE(ISOLATED(1));	/* the owner's hold */
	ASSERT_EQ(0, weave_core_isolate_put(&self->s, 1));
	EXPECT_FALSE(ISOLATED(1));
	EXPECT_EQ(-EINVAL, weave_core_isolate_put(&self->s, 1));
}

/* A refused execution at prepare or begin changes nothing. */
TEST_F(cap, refused_execution_changes_nothing)
{
	LAUNCH(1, 9);
	self->m.fail_enqueue_kernel = 9;
	self->m.fail_enqueue_err = -ENOMEM;
	EXPECT_EQ(-ENOMEM, weave_core_capture_prepare(&self->c, 1));
	EXPECT_EQ(WEAVE_WINDOW_NONE, STATE(1));
	EXPECT_FALSE(ISOLATED(1));
	self->m.fail_enqueue_err = 0;
	ASSERT_EQ(0, weave_core_capture_prepare(&self->c, 1));

	LAUNCH(1, 9);
	self->m.fail_enqueue_err = -ENOMEM;
	EXPECT_EQ(-ENOMEM, weave_core_capture_begin(&self->c, 1));
	EXPECT_EQ(WEAVE_WINDOW_PREPARED, STATE(1));
	self->m.fail_enqueue_err = 0;
	ASSERT_EQ(0, weave_core_capture_begin(&self->c, 1));
	EXPECT_TRUE(weave_core_capture_close(&self->c, 1));
}

/*
 * A close whose execution is refused closes the window all the same, but
 * its isolation hold stays pending, so the tasks queued while isolated
 * still run isolated; settling gives it back once they are handed over.
 */
TEST_F(cap, refused_close_keeps_the_hold_pending)
{
	ASSERT_EQ(0, weave_core_capture_prepare(&self->c, 1));
	ASSERT_EQ(0, weave_core_capture_begin(&self->c, 1));
	LAUNCH(5, 9);
	self->m.fail_enqueue_kernel = 9;
	self->m.fail_enqueue_err = -ENOMEM;
	EXPECT_TRUE(weave_core_capture_close(&self->c, 1));
	EXPECT_EQ(WEAVE_WINDOW_NONE, STATE(1));
	EXPECT_EQ(0u, OWNER(1));
	EXPECT_TRUE(ISOLATED(1));
	EXPECT_FALSE(weave_core_capture_recording(&self->c, 1));

	/* Still refused: the hold stays, a new window cannot open. */
	EXPECT_EQ(-ENOMEM, weave_core_capture_settle(&self->c, 5));
	EXPECT_TRUE(ISOLATED(1));
	EXPECT_EQ(-ENOMEM, weave_core_capture_prepare(&self->c, 1));
	EXPECT_EQ(WEAVE_WINDOW_NONE, STATE(1));
	EXPECT_TRUE(ISOLATED(1));
	EXPECT_FALSE(weave_core_capture_close(&self->c, 1));
	EXPECT_TRUE(ISOLATED(1));

	self->m.fail_enqueue_err = 0;
	EXPECT_EQ(0, weave_core_capture_settle(&self->c, 1));
	EXPECT_FALSE(ISOLATED(1));
	EXPECT_EQ(0u, weave_core_slot_queued(&self->s, 1));
	/* Nothing pending: settling again changes nothing. */
	EXPECT_EQ(0, weave_core_capture_settle(&self->c, 1));
	EXPECT_EQ(-EINVAL, weave_core_isolate_put(&self->s, 1));
}

/* A prepare on a slot with a pending hold gives it back, then takes one. */
TEST_F(cap, prepare_settles_a_pending_hold)
{
	ASSERT_EQ(0, weave_core_capture_prepare(&self->c, 1));
	LAUNCH(1, 9);
	self->m.fail_enqueue_kernel = 9;
	self->m.fail_enqueue_err = -ENOMEM;
	EXPECT_TRUE(weave_core_capture_close(&self->c, 1));
	EXPECT_TRUE(ISOLATED(1));
	self->m.fail_enqueue_err = 0;

	ASSERT_EQ(0, weave_core_capture_prepare(&self->c, 5));
	EXPECT_EQ(5u, OWNER(1));
	EXPECT_TRUE(ISOLATED(1));
	EXPECT_TRUE(weave_core_capture_close(&self->c, 1));
	/* One hold in all: the window's, given back. */
	EXPECT_FALSE(ISOLATED(1));
}

TEST_HARNESS_MAIN
