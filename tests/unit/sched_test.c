// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the weave scheduler core, kmod/weave_core.c, compiled in
 * user space against tests/unit/include and driven through a mock backend
 * that logs every call (see mock_backend.h for the log's tokens).
 *
 * Unless a test says otherwise: max_streams 4, max_tasks 3, interleave.
 */
#include <signal.h>
#include <string.h>
#include <sanitizer/lsan_interface.h>

#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/slab.h>

/* The harness has an unused parameter; -Wextra is otherwise kept. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "mock_backend.h"

#define MAX_STREAMS	4
#define MAX_TASKS	3

FIXTURE(sched) {
	struct mock_backend m;
	struct mutex lock;
	struct weave_core s;
	bool live;
};

static struct weave_core_params params(struct mock_backend *m,
					struct mutex *lock)
{
	return mock_params(m, lock, MAX_STREAMS, MAX_TASKS);
}

FIXTURE_SETUP(sched)
{
	struct weave_core_params p = params(&self->m, &self->lock);

	mutex_init(&self->lock);
	mutex_lock(&self->lock);
	ASSERT_EQ(0, weave_core_init(&self->s, &p));
	self->live = true;
}

FIXTURE_TEARDOWN(sched)
{
	unsigned int i;

	if (self->live)
		weave_core_fini(&self->s);
	mutex_unlock(&self->lock);
	EXPECT_EQ(0u, self->m.live_streams);
	for (i = 0; i < MOCK_TRACKS; i++)
		EXPECT_EQ(0u, self->m.tracks[i].queued);
	/* The child _exit()s, so ask LeakSanitizer now. */
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

static struct mock_task *bind(struct mock_task *t, struct weave_track *track,
			       u32 access)
{
	t->bindings[t->num_bindings++] = (struct weave_binding) {
		.bo = track,
		.track = track,
		.size = 16,
		.access = access,
	};
	return t;
}

static struct mock_task host_write(struct weave_track *track, u64 len)
{
	struct mock_task t = { .kind = WEAVE_TASK_HOST_WRITE };

	bind(&t, track, WEAVE_ACCESS_WRITE);
	t.bindings[0].size = len;
	t.data = kvmalloc(len, GFP_KERNEL);
	memset(t.data, 0x5a, len);
	t.len = len;
	return t;
}

/* Tasks queued on the slot of @stream. */
#define QUEUED(stream)	weave_core_slot_queued(&self->s, (stream))

/* Tasks the backend took from the slot of @stream, by enqueue or fail. */
#define TAKEN(stream)	self->m.taken[weave_core_slot(&self->s, (stream))]

/* Register a copy of a task; the copy gets stream and seqno. */
#define REG(stream, task) do {						\
	struct mock_task __t = (task);					\
	ASSERT_EQ(0, mock_register(&self->s, (stream), &__t));	\
} while (0)

/* Register a launch without bindings. */
#define LAUNCH(stream, kernel_id)	REG(stream, launch(kernel_id))

/* Check the mock's log of calls since the last check, then clear it. */
#define CALLS(expected) do {						\
	ASSERT_STREQ(expected, mock_log(&self->m));			\
	mock_clear(&self->m);						\
} while (0)

#define X (&self->m.tracks[0])
#define Y (&self->m.tracks[1])
#define Z (&self->m.tracks[2])

TEST_F(sched, below_threshold_makes_no_backend_calls)
{
	LAUNCH(0, 1);
	LAUNCH(0, 2);
	CALLS("C0");
	ASSERT_EQ(2u, QUEUED(0));
	ASSERT_EQ(2u, QUEUED(0) + TAKEN(0));
	ASSERT_EQ(0u, TAKEN(0));
}

TEST_F(sched, threshold_executes_the_slot)
{
	LAUNCH(0, 1);
	LAUNCH(0, 2);
	CALLS("C0");
	LAUNCH(0, 3);
	CALLS("E0:1 E0:2 E0:3 F0");
	ASSERT_EQ(0u, QUEUED(0));
	ASSERT_EQ(3u, TAKEN(0));
	ASSERT_EQ(3u, self->m.num_seen);
	ASSERT_EQ(1u, self->m.seen[0].seqno);
	ASSERT_EQ(3u, self->m.seen[2].seqno);
	LAUNCH(0, 4);
	CALLS("");
}

TEST_F(sched, ring_wraps_in_fifo_order)
{
	LAUNCH(0, 1);
	LAUNCH(0, 2);
	ASSERT_EQ(0, weave_core_flush(&self->s, 0));
	CALLS("C0 E0:1 E0:2 F0");
	LAUNCH(0, 3);
	LAUNCH(0, 4);
	LAUNCH(0, 5);
	CALLS("E0:3 E0:4 E0:5 F0");
}

/* The ring keeps only what a task uses; all of it reaches the backend. */
TEST_F(sched, ring_entries_carry_bindings_and_uniforms)
{
	struct mock_task t = launch(7);
	const struct mock_task *e;
	u32 i;

	LAUNCH(0, 1);
	LAUNCH(0, 2);
	ASSERT_EQ(0, weave_core_flush(&self->s, 0));
	CALLS("C0 E0:1 E0:2 F0");
	bind(&t, X, WEAVE_ACCESS_READ);
	bind(&t, Y, WEAVE_ACCESS_RW);
	t.bindings[1].offset = 32;
	t.uniform_len = 5;
	memcpy(t.uniforms, "abcde", 5);
	t.grid = (struct weave_grid) { 2, 3, 4 };
	REG(0, t);	/* lands past the ring's wrap */
	ASSERT_EQ(0, weave_core_flush(&self->s, 0));
	CALLS("E0:7 T0 T1 F0");
	ASSERT_EQ(3u, self->m.num_seen);
	e = &self->m.seen[2];
	EXPECT_EQ((u32)WEAVE_TASK_LAUNCH, (u32)e->kind);
	EXPECT_EQ(0u, e->stream);
	EXPECT_EQ(3u, e->seqno);
	EXPECT_EQ(7u, e->kernel_id);
	EXPECT_EQ(2u, e->grid.x);
	EXPECT_EQ(3u, e->grid.y);
	EXPECT_EQ(4u, e->grid.z);
	EXPECT_EQ(5u, e->uniform_len);
	EXPECT_EQ(0, memcmp(e->uniforms, "abcde", 5));
	EXPECT_EQ(NULL, e->data);
	EXPECT_EQ(0u, e->len);
	ASSERT_EQ(2u, e->num_bindings);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(t.bindings[i].bo, e->bindings[i].bo);
		EXPECT_EQ(t.bindings[i].track, e->bindings[i].track);
		EXPECT_EQ(t.bindings[i].offset, e->bindings[i].offset);
		EXPECT_EQ(t.bindings[i].size, e->bindings[i].size);
		EXPECT_EQ(t.bindings[i].access, e->bindings[i].access);
	}
}

TEST_F(sched, folded_streams_share_one_fifo)
{
	LAUNCH(1, 1);
	LAUNCH(1 + MAX_STREAMS, 2);
	LAUNCH(1, 3);
	CALLS("C1 E1:1 E1:2 E1:3 F1");
	ASSERT_EQ(1u, self->m.seen[0].stream);
	ASSERT_EQ(1u + MAX_STREAMS, self->m.seen[1].stream);
	/* Both name the slot they were registered on. */
	ASSERT_EQ(1u, self->m.seen[0].slot);
	ASSERT_EQ(1u, self->m.seen[1].slot);
	ASSERT_EQ(3u, TAKEN(1 + MAX_STREAMS));
	/* One backend stream, made once, took them all. */
	ASSERT_NE(NULL, self->m.streams[1]);
	ASSERT_EQ(1u, self->m.live_streams);
}

TEST_F(sched, backend_streams_are_created_lazily_once)
{
	u32 i;

	for (i = 0; i < MAX_STREAMS; i++)
		ASSERT_EQ(NULL, self->m.streams[i]);
	ASSERT_EQ(0, weave_core_flush(&self->s, 3));
	ASSERT_EQ(0, weave_core_flush_all(&self->s));
	CALLS("");
	LAUNCH(2, 1);
	CALLS("C2");
	ASSERT_NE(NULL, self->m.streams[2]);
	LAUNCH(2 + MAX_STREAMS, 2);
	LAUNCH(2, 3);
	LAUNCH(2, 4);
	CALLS("E2:1 E2:2 E2:3 F2");
	ASSERT_EQ(NULL, self->m.streams[3]);
	ASSERT_EQ(1u, self->m.live_streams);
}

TEST_F(sched, align_executes_the_other_slot_first)
{
	struct mock_task t = launch(1);

	REG(0, *bind(&t, X, WEAVE_ACCESS_WRITE));
	LAUNCH(0, 2);
	LAUNCH(1, 3);
	CALLS("C0 C1");
	ASSERT_EQ(0u, X->slot);
	ASSERT_EQ(1u, X->queued);

	t = launch(4);
	REG(1, *bind(&t, X, WEAVE_ACCESS_READ));
	CALLS("E0:1 T0 E0:2 F0");
	/* The target slot was not drained; the task was pushed after. */
	ASSERT_EQ(2u, QUEUED(1));
	ASSERT_EQ(0u, QUEUED(0));
	ASSERT_EQ(1u, X->slot);
	ASSERT_EQ(1u, X->queued);

	ASSERT_EQ(0, weave_core_flush(&self->s, 1));
	CALLS("E1:3 E1:4 T0 F1");
}

TEST_F(sched, align_on_the_same_slot_costs_nothing)
{
	struct mock_task t = launch(1);

	REG(0, *bind(&t, X, WEAVE_ACCESS_WRITE));
	t = launch(2);
	REG(MAX_STREAMS, *bind(&t, X, WEAVE_ACCESS_READ));
	CALLS("C0");
	ASSERT_EQ(2u, X->queued);
}

TEST_F(sched, align_executes_one_set_in_first_seen_order)
{
	struct mock_task t = launch(1);

	REG(2, *bind(&t, X, WEAVE_ACCESS_WRITE));
	t = launch(2);
	REG(1, *bind(&t, Y, WEAVE_ACCESS_WRITE));
	t = launch(3);
	REG(2, *bind(&t, Z, WEAVE_ACCESS_WRITE));
	CALLS("C2 C1");

	t = launch(4);
	bind(&t, X, WEAVE_ACCESS_READ);
	bind(&t, Y, WEAVE_ACCESS_READ);
	bind(&t, Z, WEAVE_ACCESS_READ);
	REG(0, t);
	/* Set [2, 1]: 1 is flushed, then both run round-robin on 2. */
	CALLS("C0 F1 E2:1 T0 E2:2 T1 E2:3 T2 F2");
	ASSERT_EQ(1u, QUEUED(0));
}

/* Slot 0: tasks 1, 2; slot 1: task 3; slot 2: tasks 4, 5. */
static void queue_three_slots(struct __test_metadata *_metadata,
			      FIXTURE_DATA(sched) *self)
{
	LAUNCH(0, 1);
	LAUNCH(0, 2);
	LAUNCH(1, 3);
	LAUNCH(2, 4);
	LAUNCH(2, 5);
	CALLS("C0 C1 C2");
}

TEST_F(sched, interleave_round_robins_onto_the_first_stream)
{
	const u32 set[] = { 2, 0, 2 + MAX_STREAMS, 1 };

	queue_three_slots(_metadata, self);
	weave_core_execute(&self->s, set, 4);
	CALLS("F0 F1 E2:4 E2:1 E2:3 E2:5 E2:2 F2");
	ASSERT_EQ(0u, self->m.seen[1].stream);
	ASSERT_EQ(2u, TAKEN(0));
}

TEST_F(sched, sequential_keeps_each_slot_on_its_stream)
{
	const u32 set[] = { 2, 0, 1 };

	ASSERT_EQ(0, weave_core_set_strategy(&self->s,
					      WEAVE_STRATEGY_SEQUENTIAL));
	queue_three_slots(_metadata, self);
	weave_core_execute(&self->s, set, 3);
	CALLS("E2:4 E2:5 F2 E0:1 E0:2 F0 E1:3 F1");
}

TEST_F(sched, isolation_forces_the_sequential_path)
{
	const u32 set[] = { 2, 0, 1 };
	const u32 others[] = { 2, 1 };

	queue_three_slots(_metadata, self);
	mock_isolate(&self->m, 0, true);
	weave_core_execute(&self->s, set, 3);
	CALLS("E2:4 E2:5 F2 E0:1 E0:2 F0 E1:3 F1");

	/* A set without the isolated stream still interleaves. */
	LAUNCH(0, 6);
	LAUNCH(1, 7);
	LAUNCH(2, 8);
	weave_core_execute(&self->s, others, 2);
	CALLS("F1 E2:8 E2:7 F2");
	ASSERT_EQ(1u, QUEUED(0));

	/* Isolation is asked of the stream at each execution. */
	mock_isolate(&self->m, 0, false);
	LAUNCH(1, 9);
	weave_core_execute(&self->s, set, 3);
	CALLS("F0 F1 E2:6 E2:9 F2");
}

#define GET(stream)	weave_core_isolate_get(&self->s, (stream))
#define PUT(stream)	weave_core_isolate_put(&self->s, (stream))
#define ISOLATED(stream)	weave_core_isolated(&self->s, (stream))

/* A hold of the core's own isolation forces the sequential path. */
TEST_F(sched, isolate_get_forces_the_sequential_path)
{
	const u32 set[] = { 2, 0, 1 };

	queue_three_slots(_metadata, self);
	ASSERT_EQ(0, weave_core_flush(&self->s, 0));
	CALLS("E0:1 E0:2 F0");
	ASSERT_FALSE(ISOLATED(0));
	ASSERT_EQ(0, GET(0));
	CALLS("F0");
	ASSERT_TRUE(ISOLATED(0));
	ASSERT_TRUE(ISOLATED(MAX_STREAMS));	/* the slot's */
	ASSERT_FALSE(ISOLATED(1));
	LAUNCH(0, 6);
	weave_core_execute(&self->s, set, 3);
	CALLS("E2:4 E2:5 F2 E0:6 F0 E1:3 F1");
	ASSERT_EQ(0, PUT(0));
	CALLS("F0");
	ASSERT_FALSE(ISOLATED(0));
}

/* Tasks queued before the get run at the get, on their own stream. */
TEST_F(sched, isolate_get_executes_the_slot_first)
{
	const u32 set[] = { 1, 0 };

	LAUNCH(0, 1);
	LAUNCH(0, 2);
	LAUNCH(1, 3);
	CALLS("C0 C1");
	ASSERT_EQ(0, GET(0));
	CALLS("E0:1 E0:2 F0");
	ASSERT_EQ(0u, QUEUED(0));
	ASSERT_EQ(1u, QUEUED(1));	/* only the slot's */
	LAUNCH(0, 4);
	weave_core_execute(&self->s, set, 2);
	CALLS("E1:3 F1 E0:4 F0");
	ASSERT_EQ(0, PUT(0));
}

/*
 * Tasks queued while isolated run at the put, on the slot's own stream,
 * so that a later execution cannot interleave them with another slot's.
 */
TEST_F(sched, isolate_put_executes_the_slot_first)
{
	const u32 set[] = { 1, 0 };

	ASSERT_EQ(0, GET(0));
	CALLS("");	/* a slot never used: nothing to execute or make */
	LAUNCH(0, 1);
	LAUNCH(1, 2);
	CALLS("C0 C1");
	ASSERT_EQ(0, PUT(0));
	CALLS("E0:1 F0");
	ASSERT_EQ(1u, QUEUED(1));
	ASSERT_FALSE(ISOLATED(0));
	LAUNCH(0, 3);
	weave_core_execute(&self->s, set, 2);
	CALLS("F0 E1:2 E1:3 F1");
}

/*
 * Holds add up: streams folded onto one slot each hold it, and isolation
 * ends with the last put, in any order.  Each get and put executes.
 */
TEST_F(sched, isolation_counts_holders_per_slot)
{
	const u32 set[] = { 1, 0 };

	LAUNCH(0, 1);
	LAUNCH(1, 2);
	ASSERT_EQ(0, GET(0));
	ASSERT_EQ(0, GET(MAX_STREAMS));
	CALLS("C0 C1 E0:1 F0 F0");
	ASSERT_EQ(0, PUT(0));
	CALLS("F0");
	ASSERT_TRUE(ISOLATED(MAX_STREAMS));
	ASSERT_TRUE(ISOLATED(0));
	LAUNCH(MAX_STREAMS, 3);
	weave_core_execute(&self->s, set, 2);
	CALLS("E1:2 F1 E0:3 F0");
	ASSERT_EQ(0, PUT(MAX_STREAMS));
	CALLS("F0");
	ASSERT_FALSE(ISOLATED(0));
	LAUNCH(0, 4);
	LAUNCH(1, 5);
	weave_core_execute(&self->s, set, 2);
	CALLS("F0 E1:5 E1:4 F1");
}

/* A put without a holder is refused and executes nothing. */
TEST_F(sched, isolate_put_without_a_holder_is_refused)
{
	LAUNCH(0, 1);
	CALLS("C0");
	ASSERT_EQ(-EINVAL, PUT(0));
	CALLS("");
	ASSERT_EQ(1u, QUEUED(0));
	ASSERT_EQ(0, GET(0));
	ASSERT_EQ(0, PUT(0));
	ASSERT_EQ(-EINVAL, PUT(MAX_STREAMS));
	CALLS("E0:1 F0 F0");
}

/*
 * A refused task stops the get and the put: the slot keeps its tasks
 * queued, in order, and its holders as they were.
 */
TEST_F(sched, isolate_get_and_put_fail_whole)
{
	LAUNCH(0, 1);
	LAUNCH(0, 2);
	CALLS("C0");
	self->m.fail_enqueue_kernel = 2;
	self->m.fail_enqueue_err = -ENOMEM;
	ASSERT_EQ(-ENOMEM, GET(0));
	CALLS("E0:1 E0:2! F0");
	ASSERT_FALSE(ISOLATED(0));
	ASSERT_EQ(1u, QUEUED(0));
	self->m.fail_enqueue_err = 0;
	ASSERT_EQ(0, GET(0));
	CALLS("E0:2 F0");
	ASSERT_TRUE(ISOLATED(0));

	LAUNCH(0, 2);
	LAUNCH(0, 3);
	self->m.fail_enqueue_err = -ENOMEM;
	ASSERT_EQ(-ENOMEM, PUT(0));
	CALLS("E0:2! F0");
	ASSERT_TRUE(ISOLATED(0));
	ASSERT_EQ(2u, QUEUED(0));
	self->m.fail_enqueue_err = 0;
	ASSERT_EQ(0, PUT(0));
	CALLS("E0:2 E0:3 F0");
	ASSERT_FALSE(ISOLATED(0));
}

/* The backend learns the threshold when it makes a backend stream. */
TEST_F(sched, create_stream_is_given_the_threshold)
{
	LAUNCH(2, 1);
	CALLS("C2");
	ASSERT_EQ((u32)MAX_TASKS, self->m.streams[2]->max_tasks);
}

TEST_F(sched, execute_keeps_empty_slots_and_skips_unused_ones)
{
	const u32 set[] = { 3, 0, 1 };

	LAUNCH(0, 1);
	ASSERT_EQ(0, weave_core_flush(&self->s, 0));
	LAUNCH(1, 2);
	LAUNCH(1, 3);
	CALLS("C0 E0:1 F0 C1");
	weave_core_execute(&self->s, set, 3);
	CALLS("F1 E0:2 E0:3 F0");
	weave_core_execute(&self->s, set, 0);
	CALLS("");
}

TEST_F(sched, flush_executes_only_the_streams_slot)
{
	LAUNCH(0, 1);
	LAUNCH(1, 2);
	CALLS("C0 C1");
	ASSERT_EQ(0, weave_core_flush(&self->s, MAX_STREAMS));
	CALLS("E0:1 F0");
	ASSERT_EQ(1u, QUEUED(1));
	ASSERT_EQ(0, weave_core_flush(&self->s, 0));
	CALLS("F0");
}

TEST_F(sched, flush_all_executes_every_slot_then_flushes_each)
{
	LAUNCH(0, 1);
	LAUNCH(0, 2);
	LAUNCH(2, 3);
	LAUNCH(1, 4);
	ASSERT_EQ(0, weave_core_flush(&self->s, 1));
	CALLS("C0 C2 C1 E1:4 F1");
	ASSERT_EQ(0, weave_core_flush_all(&self->s));
	CALLS("F1 F2 E0:1 E0:3 E0:2 F0 F0 F1 F2");

	ASSERT_EQ(0, weave_core_set_strategy(&self->s,
					      WEAVE_STRATEGY_SEQUENTIAL));
	LAUNCH(0, 5);
	LAUNCH(2, 6);
	ASSERT_EQ(0, weave_core_flush_all(&self->s));
	CALLS("E0:5 F0 F1 E2:6 F2 F0 F1 F2");
}

/*
 * An observed execution is told to the backend once it has flushed: the
 * stream whose call caused it, the path it took, its slots and the tasks
 * it handed over.  One that is not observed is not told.
 */
TEST_F(sched, executions_are_told_when_observed)
{
	const u32 set[] = { 2, 0, 1 };

	queue_three_slots(_metadata, self);
	ASSERT_EQ(0, weave_core_flush(&self->s, 1));
	CALLS("E1:3 F1");
	self->m.observe = true;
	weave_core_execute(&self->s, set, 3);
	CALLS("F0 F1 E2:4 E2:1 E2:5 E2:2 F2 R2:i:3:4");
	ASSERT_EQ(0, weave_core_isolate_get(&self->s, 1));
	CALLS("F1 R1:i:1:0");
	LAUNCH(1, 6);
	ASSERT_EQ(0, weave_core_flush(&self->s, 1 + MAX_STREAMS));
	CALLS("E1:6 F1 R5:s:1:1");
	ASSERT_EQ(0, weave_core_flush_all(&self->s));
	CALLS("F0 F1 F2 R0:s:3:0 F0 F1 F2");
	ASSERT_EQ(0, weave_core_isolate_put(&self->s, 1));
	CALLS("F1 R1:s:1:0");
	self->m.observe = false;
	ASSERT_EQ(0, weave_core_flush(&self->s, 0));
	CALLS("F0");
}

TEST_F(sched, destroying_a_stream_executes_its_work)
{
	LAUNCH(0, 1);
	LAUNCH(MAX_STREAMS, 2);
	ASSERT_EQ(0, weave_core_stream_destroy(&self->s, MAX_STREAMS));
	CALLS("C0 E0:1 E0:2 F0");
	LAUNCH(0, 3);
	CALLS("");
	ASSERT_EQ(1u, QUEUED(0));
}

TEST_F(sched, teardown_cancels_queued_tasks)
{
	struct mock_task t = launch(1);

	REG(0, *bind(&t, X, WEAVE_ACCESS_WRITE));
	REG(1, host_write(Y, 32));
	t = launch(2);
	REG(1, *bind(&t, Y, WEAVE_ACCESS_READ));
	CALLS("C0 C1");
	ASSERT_EQ(2u, Y->queued);

	weave_core_fini(&self->s);
	self->live = false;
	/* Nothing reaches the backend; tracks drain; staging is freed. */
	CALLS("T0 D0 T1 D1");
}

TEST_F(sched, host_write_staging_goes_to_the_backend)
{
	REG(0, host_write(X, 8));
	ASSERT_EQ(0, weave_core_flush(&self->s, 0));
	CALLS("C0 W0:1 T0 F0");
	ASSERT_TRUE(self->m.seen[0].kind == WEAVE_TASK_HOST_WRITE);
	ASSERT_EQ(8u, self->m.seen[0].len);
}

TEST_F(sched, duplicate_bindings_count_and_tracks_return_to_zero)
{
	struct mock_task t = launch(1);

	bind(&t, X, WEAVE_ACCESS_RW);
	bind(&t, X, WEAVE_ACCESS_READ);
	bind(&t, Y, WEAVE_ACCESS_READ);
	REG(0, t);
	ASSERT_EQ(2u, X->queued);
	ASSERT_EQ(1u, Y->queued);

	t = launch(2);
	REG(1, *bind(&t, Y, WEAVE_ACCESS_WRITE));
	CALLS("C0 C1 E0:1 T0 T1 F0");
	ASSERT_EQ(0u, X->queued);
	ASSERT_EQ(1u, Y->slot);
	ASSERT_EQ(1u, Y->queued);
	ASSERT_EQ(0, weave_core_flush(&self->s, 1));
	CALLS("E1:2 T1 F1");
	ASSERT_EQ(0u, Y->queued);
}

/*
 * A threshold execution cannot keep a refused task (the ring must have
 * room): it goes to fail, with the error, and the rest still runs.  Later
 * flushes have nothing left to report.
 */
TEST_F(sched, threshold_fails_a_refused_task_and_goes_on)
{
	self->m.fail_enqueue_kernel = 2;
	self->m.fail_enqueue_err = -ENOMEM;
	LAUNCH(0, 1);
	LAUNCH(1, 5);
	LAUNCH(0, 2);
	LAUNCH(0, 3);
	CALLS("C0 C1 E0:1 E0:2! X0:2 E0:3 F0");
	ASSERT_EQ(-ENOMEM, self->m.failed_err);
	ASSERT_EQ(3u, TAKEN(0));
	ASSERT_EQ(0u, QUEUED(0));
	ASSERT_EQ(0, weave_core_flush(&self->s, 1));
	CALLS("E1:5 F1");
	ASSERT_EQ(0, weave_core_flush(&self->s, MAX_STREAMS));
	ASSERT_EQ(0, weave_core_flush(&self->s, 0));
	CALLS("F0 F0");
	ASSERT_EQ(3u, TAKEN(0));
}

/* Nor can align: the new task must find its buffer's tasks on its slot. */
TEST_F(sched, align_fails_a_refused_task_and_goes_on)
{
	struct mock_task t = launch(1);

	REG(0, *bind(&t, X, WEAVE_ACCESS_WRITE));
	REG(0, host_write(Y, 8));
	CALLS("C0");
	self->m.fail_enqueue_kernel = 1;
	self->m.fail_enqueue_writes = true;
	self->m.fail_enqueue_err = -ENOMEM;
	t = launch(4);
	REG(1, *bind(&t, X, WEAVE_ACCESS_READ));
	/* The host write's staging went to fail, which freed it. */
	CALLS("C1 E0:1! X0:1 T0 W0:2! XW0:2 T1 F0");
	ASSERT_EQ(1u, X->slot);
	ASSERT_EQ(1u, X->queued);
	ASSERT_EQ(0u, QUEUED(0));
	ASSERT_EQ(2u, TAKEN(0));
	/* fail got the error; a flush has nothing left to report. */
	ASSERT_EQ(-ENOMEM, self->m.failed_err);
	ASSERT_EQ(0, weave_core_flush(&self->s, 0));
}

/*
 * fail gets the backend stream the task was refused on: in an interleaved
 * align, the first slot's, whichever slot the task came from, so that the
 * backend can put it in its place among the tasks enqueued there.
 */
TEST_F(sched, fail_gets_the_stream_the_task_was_refused_on)
{
	struct mock_task t = launch(1);

	REG(0, *bind(&t, X, WEAVE_ACCESS_WRITE));
	t = launch(2);
	REG(1, *bind(&t, Y, WEAVE_ACCESS_WRITE));
	CALLS("C0 C1");
	self->m.fail_enqueue_kernel = 2;
	self->m.fail_enqueue_err = -ENOMEM;
	t = launch(3);
	bind(&t, X, WEAVE_ACCESS_READ);
	REG(2, *bind(&t, Y, WEAVE_ACCESS_READ));
	CALLS("C2 F1 E0:1 T0 E0:2! X0:2 T1 F0");
	ASSERT_EQ(1u, TAKEN(0));
	ASSERT_EQ(1u, TAKEN(1));
	ASSERT_EQ(1u, QUEUED(2));
}

/*
 * A flush keeps a refused task queued, with the rest of its slot, in
 * order, and reports the error; once the backend takes tasks again, a
 * flush hands them all over.
 */
TEST_F(sched, flush_keeps_refused_tasks_queued_in_order)
{
	LAUNCH(0, 1);
	LAUNCH(0, 2);
	CALLS("C0");
	self->m.fail_enqueue_kernel = 1;
	self->m.fail_enqueue_err = -ENOMEM;
	ASSERT_EQ(-ENOMEM, weave_core_flush(&self->s, 0));
	CALLS("E0:1! F0");
	ASSERT_EQ(2u, QUEUED(0));
	ASSERT_EQ(0u, TAKEN(0));
	ASSERT_EQ(0u, self->m.num_seen);
	ASSERT_EQ(-ENOMEM, weave_core_flush(&self->s, 0));
	CALLS("E0:1! F0");

	/* Later tasks queue behind them; the threshold still holds. */
	self->m.fail_enqueue_err = 0;
	LAUNCH(MAX_STREAMS, 3);
	CALLS("E0:1 E0:2 E0:3 F0");
	ASSERT_EQ(0u, QUEUED(0));
	ASSERT_EQ(3u, TAKEN(0));
	ASSERT_EQ(1u, self->m.seen[0].seqno);
	ASSERT_EQ(3u, self->m.seen[2].seqno);
	ASSERT_EQ(0, weave_core_flush(&self->s, 0));
	CALLS("F0");
}

/* A refused host write keeps its staging and its track until taken. */
TEST_F(sched, flush_keeps_a_refused_host_write_whole)
{
	struct mock_task t = launch(1);

	REG(0, host_write(X, 8));
	REG(0, *bind(&t, X, WEAVE_ACCESS_READ));
	self->m.fail_enqueue_writes = true;
	self->m.fail_enqueue_err = -ENOMEM;
	ASSERT_EQ(-ENOMEM, weave_core_flush(&self->s, 0));
	CALLS("C0 W0:1! F0");
	ASSERT_EQ(2u, X->queued);
	ASSERT_EQ(2u, QUEUED(0));

	self->m.fail_enqueue_err = 0;
	ASSERT_EQ(0, weave_core_flush(&self->s, 0));
	CALLS("W0:1 E0:1 T0 F0");
	/* The mock freed the staging; ASan and LSan see it freed once. */
	ASSERT_EQ(8u, self->m.seen[0].len);
	ASSERT_NE(NULL, self->m.seen[0].data);
	ASSERT_EQ(0u, X->queued);
}

/*
 * Interleave stops at a refused task; every slot keeps what it did not
 * hand over, and the execution stream is still flushed.
 */
TEST_F(sched, interleave_stops_at_a_refused_task)
{
	const u32 set[] = { 2, 0, 1 };

	queue_three_slots(_metadata, self);
	self->m.fail_enqueue_kernel = 3;
	self->m.fail_enqueue_err = -ENOMEM;
	ASSERT_EQ(-ENOMEM, weave_core_execute(&self->s, set, 3));
	CALLS("F0 F1 E2:4 E2:1 E2:3! F2");
	ASSERT_EQ(1u, QUEUED(0));
	ASSERT_EQ(1u, QUEUED(1));
	ASSERT_EQ(1u, QUEUED(2));

	self->m.fail_enqueue_err = 0;
	ASSERT_EQ(0, weave_core_execute(&self->s, set, 3));
	CALLS("F0 F1 E2:5 E2:2 E2:3 F2");
	ASSERT_EQ(0u, weave_core_queued(&self->s));
}

/* Sequential stops at the refusing slot, after flushing it. */
TEST_F(sched, sequential_stops_at_a_refused_task)
{
	const u32 set[] = { 2, 0, 1 };

	ASSERT_EQ(0, weave_core_set_strategy(&self->s,
					      WEAVE_STRATEGY_SEQUENTIAL));
	queue_three_slots(_metadata, self);
	self->m.fail_enqueue_kernel = 2;
	self->m.fail_enqueue_err = -ENOMEM;
	ASSERT_EQ(-ENOMEM, weave_core_execute(&self->s, set, 3));
	CALLS("E2:4 E2:5 F2 E0:1 E0:2! F0");
	ASSERT_EQ(2u, weave_core_queued(&self->s));

	self->m.fail_enqueue_err = 0;
	ASSERT_EQ(0, weave_core_execute(&self->s, set, 3));
	CALLS("F2 E0:2 F0 E1:3 F1");
}

/* A stream's work that the backend refuses stays; destroy says so. */
TEST_F(sched, destroy_reports_refused_work)
{
	LAUNCH(0, 1);
	LAUNCH(MAX_STREAMS, 2);
	self->m.fail_enqueue_kernel = 2;
	self->m.fail_enqueue_err = -ENOMEM;
	ASSERT_EQ(-ENOMEM, weave_core_stream_destroy(&self->s, MAX_STREAMS));
	CALLS("C0 E0:1 E0:2! F0");
	ASSERT_EQ(1u, QUEUED(0));

	self->m.fail_enqueue_err = 0;
	ASSERT_EQ(0, weave_core_stream_destroy(&self->s, MAX_STREAMS));
	CALLS("E0:2 F0");
	/* Everything was taken: a flush has nothing to report. */
	ASSERT_EQ(0, weave_core_flush(&self->s, 0));
	ASSERT_EQ(2u, TAKEN(0));
}

/*
 * A failed flush is the backend's to handle: the core reports it to no
 * one, on none of the slots whose tasks the backend stream carried, and
 * goes on.
 */
TEST_F(sched, flush_error_is_the_backends)
{
	const u32 set[] = { 0, 1 };

	LAUNCH(0, 1);
	LAUNCH(1, 2);
	LAUNCH(2, 3);
	self->m.fail_flush_slot = 0;
	self->m.fail_flush_err = -EIO;
	weave_core_execute(&self->s, set, 2);
	CALLS("C0 C1 C2 F1 E0:1 E0:2 F0");
	self->m.fail_flush_err = 0;
	ASSERT_EQ(0, weave_core_flush(&self->s, 2));
	ASSERT_EQ(0, weave_core_flush(&self->s, 1));
	ASSERT_EQ(0, weave_core_flush(&self->s, 0));
	ASSERT_EQ(0, weave_core_flush(&self->s, 0));
	CALLS("E2:3 F2 F1 F0 F0");
	ASSERT_EQ(0u, weave_core_queued(&self->s));
}

TEST_F(sched, flush_all_reports_a_refused_task)
{
	self->m.fail_enqueue_kernel = 3;
	self->m.fail_enqueue_err = -ENOSPC;
	LAUNCH(0, 1);
	LAUNCH(2, 3);
	LAUNCH(2, 4);
	/* Stops at the refusal, keeps the rest queued, still flushes all. */
	ASSERT_EQ(-ENOSPC, weave_core_flush_all(&self->s));
	CALLS("C0 C2 F2 E0:1 E0:3! F0 F0 F2");
	ASSERT_EQ(2u, weave_core_queued(&self->s));
	self->m.fail_enqueue_err = 0;
	ASSERT_EQ(0, weave_core_flush_all(&self->s));
	CALLS("F2 E0:3 E0:4 F0 F0 F2");
	ASSERT_EQ(0u, weave_core_queued(&self->s));
	ASSERT_EQ(0, weave_core_flush_all(&self->s));
}

TEST_F(sched, create_error_rejects_the_task_untouched)
{
	struct mock_task t = host_write(X, 4);

	self->m.fail_create_slot = 2;
	self->m.fail_create_err = -ENOMEM;
	ASSERT_EQ(-ENOMEM, mock_register(&self->s, 2, &t));
	CALLS("C2");
	ASSERT_EQ(0u, X->queued);
	ASSERT_EQ(0u, self->s.seqno);
	ASSERT_EQ(NULL, self->m.streams[2]);

	/* Still the caller's: retry once the backend recovers. */
	self->m.fail_create_err = 0;
	ASSERT_EQ(0, mock_register(&self->s, 2, &t));
	ASSERT_EQ(1u, t.seqno);
	ASSERT_EQ(2u, t.stream);
	ASSERT_EQ(2u, t.slot);
	ASSERT_EQ(1u, X->queued);
	CALLS("C2");
}

/*
 * direct clears the way for work handed to the stream's backend stream
 * whole: the other slots with queued tasks on its buffers first, each
 * once, then the stream's own slot, flushed.
 */
TEST_F(sched, direct_executes_sharing_slots_then_its_own)
{
	struct weave_track *tracks[] = { X, Y, Z };
	struct mock_task t = launch(1);
	struct weave_bstream *bs;

	REG(1, *bind(&t, X, WEAVE_ACCESS_WRITE));
	t = launch(2);
	REG(1, *bind(&t, Y, WEAVE_ACCESS_WRITE));
	t = launch(3);
	REG(2, *bind(&t, Z, WEAVE_ACCESS_READ));
	LAUNCH(0, 4);
	LAUNCH(3, 5);
	CALLS("C1 C2 C0 C3");

	bs = weave_core_direct(&self->s, 0, tracks, 3);
	ASSERT_EQ(self->m.streams[0], bs);
	/* Slot 1 once for X and Y, slot 2 for Z, then slot 0; not 3. */
	CALLS("E1:1 T0 E1:2 T1 F1 E2:3 T2 F2 E0:4 F0");
	ASSERT_EQ(0u, QUEUED(0));
	ASSERT_EQ(1u, QUEUED(3));
	ASSERT_EQ(0u, X->queued);
}

TEST_F(sched, direct_makes_the_slot_and_skips_its_own_buffers)
{
	struct weave_track *tracks[] = { X };
	struct mock_task t = launch(1);
	struct weave_bstream *bs;

	REG(2, *bind(&t, X, WEAVE_ACCESS_WRITE));
	CALLS("C2");
	/* X is queued on the stream's own slot: the flush covers it. */
	bs = weave_core_direct(&self->s, 2 + MAX_STREAMS, tracks, 1);
	ASSERT_EQ(self->m.streams[2], bs);
	CALLS("E2:1 T0 F2");

	/* A slot never used is made; an empty one is still flushed. */
	bs = weave_core_direct(&self->s, 1, NULL, 0);
	ASSERT_EQ(self->m.streams[1], bs);
	ASSERT_EQ(1u, bs->slot);
	CALLS("C1 F1");
}

TEST_F(sched, direct_fails_with_a_refusal_and_keeps_the_tasks)
{
	struct weave_track *tracks[] = { X };
	struct mock_task t = launch(1);

	REG(1, *bind(&t, X, WEAVE_ACCESS_WRITE));
	LAUNCH(0, 2);
	CALLS("C1 C0");
	self->m.fail_enqueue_kernel = 1;
	self->m.fail_enqueue_err = -ENOMEM;
	ASSERT_EQ(ERR_PTR(-ENOMEM), weave_core_direct(&self->s, 0, tracks, 1));
	/* Stopped at the other slot: nothing of slot 0 ran. */
	CALLS("E1:1! F1");
	ASSERT_EQ(1u, QUEUED(1));
	ASSERT_EQ(1u, QUEUED(0));
	ASSERT_EQ(1u, X->queued);

	self->m.fail_enqueue_kernel = 2;
	ASSERT_EQ(ERR_PTR(-ENOMEM), weave_core_direct(&self->s, 0, tracks, 1));
	CALLS("E1:1 T0 F1 E0:2! F0");
	ASSERT_EQ(1u, QUEUED(0));

	self->m.fail_enqueue_err = 0;
	ASSERT_EQ(self->m.streams[0],
		  weave_core_direct(&self->s, 0, tracks, 1));
	CALLS("E0:2 F0");
}

TEST_F(sched, direct_fails_whole_when_the_slot_cannot_be_made)
{
	self->m.fail_create_slot = 3;
	self->m.fail_create_err = -ENOMEM;
	ASSERT_EQ(ERR_PTR(-ENOMEM), weave_core_direct(&self->s, 3, NULL, 0));
	CALLS("C3");
	ASSERT_EQ(NULL, self->m.streams[3]);
}

/* reserve makes the slot once, so a later register cannot fail on it. */
TEST_F(sched, reserve_makes_the_slot_so_register_cannot_fail)
{
	self->m.fail_create_slot = 2;
	self->m.fail_create_err = -ENOMEM;
	ASSERT_EQ(-ENOMEM, weave_core_reserve(&self->s, 2, NULL, 0));
	CALLS("C2");
	ASSERT_EQ(NULL, self->m.streams[2]);

	self->m.fail_create_err = 0;
	ASSERT_EQ(0, weave_core_reserve(&self->s, 2 + MAX_STREAMS, NULL, 0));
	CALLS("C2");
	ASSERT_EQ(0, weave_core_reserve(&self->s, 2, NULL, 0));
	CALLS("");
	self->m.fail_create_err = -ENOMEM;
	LAUNCH(2, 1);
	CALLS("");
	ASSERT_EQ(1u, QUEUED(2));
}

TEST_F(sched, malformed_tasks_are_rejected)
{
	struct mock_task bad[11];
	unsigned int i;
	char byte;

	for (i = 0; i < 11; i++)
		bad[i] = launch(i);
	for (i = 0; i < WEAVE_MAX_BINDINGS; i++)
		bind(&bad[0], X, WEAVE_ACCESS_READ);
	bad[0].num_bindings++;
	bad[1].uniform_len = WEAVE_MAX_UNIFORM_BYTES + 1;
	bind(&bad[2], NULL, WEAVE_ACCESS_READ);
	bind(&bad[3], X, 0);
	bind(&bad[4], X, WEAVE_ACCESS_RW << 1);
	bad[5].kind = 7;
	/*
	 * (A launch with staging, which no entry can hold, ENQUEUE's
	 * preparer refuses before there is one.)  Host writes: two
	 * bindings, no data, zero length, read-only, length not the
	 * binding's size.
	 */
	for (i = 6; i < 11; i++) {
		bad[i].kind = WEAVE_TASK_HOST_WRITE;
		bind(&bad[i], X, WEAVE_ACCESS_WRITE);
		bad[i].data = &byte;
		bad[i].len = 1;
		bad[i].bindings[0].size = 1;
	}
	bind(&bad[6], Y, WEAVE_ACCESS_READ);
	bad[7].data = NULL;
	bad[8].len = 0;
	bad[8].bindings[0].size = 0;
	bad[9].bindings[0].access = WEAVE_ACCESS_READ;
	bad[10].bindings[0].size = 2;

	for (i = 0; i < 11; i++) {
		ASSERT_EQ(-EINVAL, mock_register(&self->s, 0, &bad[i]))
			TH_LOG("bad task %u accepted", i);
	}
	CALLS("");
	ASSERT_EQ(0u, X->queued);
	ASSERT_EQ(0u, self->s.seqno);

	/* The limits themselves are accepted. */
	bad[0].num_bindings = WEAVE_MAX_BINDINGS;
	bad[1].uniform_len = WEAVE_MAX_UNIFORM_BYTES;
	REG(0, bad[0]);
	REG(0, bad[1]);
	ASSERT_EQ((u32)WEAVE_MAX_BINDINGS, X->queued);
}

TEST_F(sched, init_and_strategy_reject_bad_values)
{
	struct weave_core_params p = params(&self->m, &self->lock);
	struct weave_core s;

	p.max_streams = 0;
	ASSERT_EQ(-EINVAL, weave_core_init(&s, &p));
	p.max_streams = WEAVE_CORE_MAX_STREAMS + 1;
	ASSERT_EQ(-EINVAL, weave_core_init(&s, &p));
	p.max_streams = WEAVE_CORE_MAX_STREAMS;
	p.max_tasks = 0;
	ASSERT_EQ(-EINVAL, weave_core_init(&s, &p));
	p.max_tasks = WEAVE_CORE_MAX_TASKS + 1;
	ASSERT_EQ(-EINVAL, weave_core_init(&s, &p));
	p.max_tasks = WEAVE_CORE_MAX_TASKS;
	p.strategy = WEAVE_STRATEGY_SEQUENTIAL + 1;
	ASSERT_EQ(-EINVAL, weave_core_init(&s, &p));
	p.strategy = WEAVE_STRATEGY_SEQUENTIAL;
	ASSERT_EQ(0, weave_core_init(&s, &p));
	weave_core_fini(&s);

	ASSERT_EQ(-EINVAL, weave_core_set_strategy(&self->s, 2));
	ASSERT_TRUE(self->s.strategy == WEAVE_STRATEGY_INTERLEAVE);
}

TEST_F(sched, seqno_counts_registrations_of_the_client)
{
	LAUNCH(3, 1);
	LAUNCH(1, 2);
	LAUNCH(3 + MAX_STREAMS, 3);
	ASSERT_EQ(0, weave_core_flush_all(&self->s));
	CALLS("C3 C1 F3 E1:2 E1:1 E1:3 F1 F1 F3");
	ASSERT_EQ(2u, self->m.seen[0].seqno);
	ASSERT_EQ(1u, self->m.seen[1].seqno);
	ASSERT_EQ(3u, self->m.seen[2].seqno);
	ASSERT_EQ(3u + MAX_STREAMS, self->m.seen[2].stream);
}

TEST_F_SIGNAL(sched, calls_without_the_lock_are_caught, SIGILL)
{
	/* Keep the expected "WARNING:" line off the test log. */
	ASSERT_NE(NULL, freopen("/dev/null", "w", stderr));
	mutex_unlock(&self->lock);
	weave_core_flush(&self->s, 0);
	/* Not reached; if it were, exiting normally fails the test. */
	mutex_lock(&self->lock);
}

TEST_HARNESS_MAIN
