// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the slots' rings, kmod/weave_ring.c, through the scheduler
 * core and a mock backend: entry sizes, growth, wrap, drain, reserve.
 *
 * Unless a test says otherwise: max_streams 4, max_tasks 64, interleave.
 */
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
#include "weave_ring.h"

#define MAX_STREAMS	4
#define MAX_TASKS	64
/* Noop entries of 32 bytes in a chunk: its 496 bytes of room. */
#define NOOPS_PER_CHUNK	15

FIXTURE(ring) {
	struct mock_backend m;
	struct mutex lock;
	struct weave_core s;
};

FIXTURE_SETUP(ring)
{
	struct weave_core_params p = mock_params(&self->m, &self->lock,
						 MAX_STREAMS, MAX_TASKS);

	weave_test_kmalloc_fail = false;
	mutex_init(&self->lock);
	mutex_lock(&self->lock);
	ASSERT_EQ(0, weave_core_init(&self->s, &p));
}

FIXTURE_TEARDOWN(ring)
{
	unsigned int i;

	weave_test_kmalloc_fail = false;
	weave_core_fini(&self->s);
	EXPECT_EQ(0u, self->s.ring_bytes);
	mutex_unlock(&self->lock);
	for (i = 0; i < MOCK_TRACKS; i++)
		EXPECT_EQ(0u, self->m.tracks[i].queued);
	EXPECT_EQ(0, __lsan_do_recoverable_leak_check());
}

/* A launch of @kernel with @nb read bindings of tracks 0.. and @ulen bytes. */
static struct mock_task task_of(struct mock_backend *m, u32 kernel, u32 nb,
				 u32 ulen)
{
	struct mock_task t = {
		.kind = WEAVE_TASK_LAUNCH,
		.kernel_id = kernel,
		.grid = { 1, 1, 1 },
		.num_bindings = nb,
		.uniform_len = ulen,
		.label = kernel * 3,
	};
	u32 i;

	for (i = 0; i < nb; i++)
		t.bindings[i] = (struct weave_binding) {
			.bo = &m->tracks[i % MOCK_TRACKS],
			.track = &m->tracks[i % MOCK_TRACKS],
			.offset = kernel + i,
			.size = 4 * (i + 1),
			.access = WEAVE_ACCESS_READ,
		};
	for (i = 0; i < ulen; i++)
		t.uniforms[i] = (u8)(kernel + i);
	return t;
}

#define REG(stream, task) do {						\
	struct mock_task __t = (task);					\
	ASSERT_EQ(0, mock_register(&self->s, (stream), &__t));	\
} while (0)

/* Pack @n tasks back to back into @run, as a caller's scratch holds them. */
static void pack_run(u64 *run, const struct mock_task *t, u32 n)
{
	struct weave_entry *e = (void *)run;
	u32 i;

	for (i = 0; i < n; i++) {
		mock_entry_pack(e, &t[i]);
		e = weave_core_entry_next(e);
	}
}

/* The bytes whole chunks for @bytes of entries take, 496 to a chunk. */
#define CHUNKS(n)	((u64)(n) * WEAVE_RING_CHUNK_BYTES)

/*
 * An entry's size, weave_core_entry_size(), counts only the parts its
 * head says it has: the size ENQUEUE's preparer and the ring go by.
 */
TEST_F(ring, entries_take_only_what_the_task_has)
{
	struct weave_entry h = { .kind = WEAVE_TASK_LAUNCH };
	u8 buf[WEAVE_ENTRY_MAX_SIZE] __attribute__((aligned(8)));
	struct weave_entry *e = (void *)buf;
	struct mock_task t;
	char byte;

	ASSERT_EQ(32u, weave_core_entry_size(&h));		/* a noop */
	h.flags = WEAVE_ENTRY_GRID;
	ASSERT_EQ(48u, weave_core_entry_size(&h));		/* its grid */
	h = (struct weave_entry) {
		.kind = WEAVE_TASK_LAUNCH, .num_bindings = 2, .uniform_len = 16,
	};
	ASSERT_EQ(32u + 2 * 40 + 16, weave_core_entry_size(&h));
	h = (struct weave_entry) {
		.kind = WEAVE_TASK_LAUNCH, .uniform_len = 5,
	};
	ASSERT_EQ(40u, weave_core_entry_size(&h));		/* rounded to 8 */
	h = (struct weave_entry) {
		.kind = WEAVE_TASK_LAUNCH, .flags = WEAVE_ENTRY_GRID,
		.num_bindings = WEAVE_MAX_BINDINGS,
		.uniform_len = WEAVE_MAX_UNIFORM_BYTES,
	};
	ASSERT_EQ(WEAVE_ENTRY_MAX_SIZE - 16, weave_core_entry_size(&h));
	h = (struct weave_entry) {
		.kind = WEAVE_TASK_HOST_WRITE, .num_bindings = 1,
	};
	ASSERT_EQ(32u + 16 + 40, weave_core_entry_size(&h));
	t = (struct mock_task) {
		.kind = WEAVE_TASK_HOST_WRITE, .num_bindings = 1,
		.data = &byte, .len = 1,
	};
	mock_entry_pack(e, &t);
	ASSERT_EQ(32u + 16 + 40, weave_core_entry_size(e));
	ASSERT_EQ(&byte, weave_core_entry_data(e));
	ASSERT_EQ(1u, weave_core_entry_len(e));

	/* What the entry keeps reads back. */
	t = task_of(&self->m, 9, 3, 7);
	t.grid = (struct weave_grid) { 4, 5, 6 };
	t.seqno = 77;
	t.stream_seqno = 1ull << 40;
	t.stream = 123456;
	t.slot = 200;
	t.refuse = -EBUSY;
	mock_entry_pack(e, &t);
	ASSERT_EQ(32u + 16 + 3 * 40 + 8, weave_core_entry_size(e));
	ASSERT_EQ(77u, e->seqno);
	ASSERT_EQ(1ull << 40, e->stream_seqno);
	ASSERT_EQ(123456u, e->stream);
	ASSERT_EQ(200u, e->slot);
	ASSERT_EQ(-EBUSY, e->refuse);
	ASSERT_EQ(27u, e->label);
	ASSERT_EQ(9u, e->kernel_id);
	ASSERT_EQ(6u, weave_core_entry_grid(e).z);
	ASSERT_EQ(NULL, weave_core_entry_data(e));
	ASSERT_EQ(0, memcmp(t.bindings, weave_core_entry_bindings(e),
			    3 * sizeof(t.bindings[0])));
	ASSERT_EQ(0, memcmp(t.uniforms, weave_core_entry_uniforms(e), 7));
	t = task_of(&self->m, 9, 0, 0);
	mock_entry_pack(e, &t);
	ASSERT_EQ(1u, weave_core_entry_grid(e).y);
}

/* Nothing is allocated before a task; then one chunk per 15 noops. */
TEST_F(ring, ring_grows_with_what_is_queued)
{
	u32 i;

	ASSERT_EQ(0, weave_core_reserve(&self->s, 1, NULL, 0));
	ASSERT_EQ(0u, self->s.ring_bytes);
	for (i = 1; i < MAX_TASKS; i++) {
		REG(1, task_of(&self->m, i, 0, 0));
		ASSERT_EQ(CHUNKS((i + NOOPS_PER_CHUNK - 1) / NOOPS_PER_CHUNK),
			  self->s.ring_bytes) TH_LOG("after %u noops", i);
	}
	/* The figure: at most 64 bytes per pending noop. */
	ASSERT_GE(64u * (MAX_TASKS - 1), self->s.ring_bytes);
	ASSERT_GE(64u * 32, CHUNKS((32 + NOOPS_PER_CHUNK - 1) /
				   NOOPS_PER_CHUNK));
}

/* A flush gives back every chunk but one; the next tasks reuse it. */
TEST_F(ring, drain_keeps_one_chunk)
{
	u32 i;

	for (i = 0; i < 40; i++)
		REG(2, task_of(&self->m, i, 0, 0));
	ASSERT_EQ(CHUNKS(3), self->s.ring_bytes);
	ASSERT_EQ(0, weave_core_flush(&self->s, 2));
	ASSERT_EQ(40u, self->m.num_seen);
	ASSERT_EQ(CHUNKS(1), self->s.ring_bytes);
	REG(2, task_of(&self->m, 1, 0, 0));
	ASSERT_EQ(CHUNKS(1), self->s.ring_bytes);
	ASSERT_EQ(0, weave_core_flush_all(&self->s));
	ASSERT_EQ(CHUNKS(1), self->s.ring_bytes);
}

/*
 * Entries of every size go through chunk after chunk, in order and whole,
 * with the head chasing the tail: the ring is drained part way (by the
 * threshold) while it grows.
 */
TEST_F(ring, variable_entries_wrap_in_fifo_order)
{
	struct weave_core_params p = mock_params(&self->m, &self->lock, 2, 5);
	struct mock_task want;
	const struct mock_task *got;
	u32 i;

	weave_core_fini(&self->s);
	ASSERT_EQ(0, weave_core_init(&self->s, &p));
	for (i = 0; i < MOCK_SEEN - 1; i++) {
		want = task_of(&self->m, i, i % (WEAVE_MAX_BINDINGS + 1),
			       (i * 7) % (WEAVE_MAX_UNIFORM_BYTES + 1));
		if (i % 3 == 0)
			want.grid.y = i;
		REG(0, want);
		/* Five entries are never more than 5 chunks. */
		ASSERT_GE(CHUNKS(5), self->s.ring_bytes);
	}
	ASSERT_EQ(0, weave_core_flush(&self->s, 0));
	ASSERT_EQ(MOCK_SEEN - 1u, self->m.num_seen);
	for (i = 0; i < MOCK_SEEN - 1; i++) {
		want = task_of(&self->m, i, i % (WEAVE_MAX_BINDINGS + 1),
			       (i * 7) % (WEAVE_MAX_UNIFORM_BYTES + 1));
		got = &self->m.seen[i];
		ASSERT_EQ(i + 1, got->seqno);
		ASSERT_EQ(i, got->kernel_id);
		ASSERT_EQ(i * 3, got->label);
		ASSERT_EQ(i % 3 == 0 ? i : 1, got->grid.y);
		ASSERT_EQ(want.num_bindings, got->num_bindings);
		ASSERT_EQ(0, memcmp(want.bindings, got->bindings,
				    want.num_bindings *
				    sizeof(want.bindings[0])));
		ASSERT_EQ(want.uniform_len, got->uniform_len);
		ASSERT_EQ(0, memcmp(want.uniforms, got->uniforms,
				    want.uniform_len));
	}
}

/*
 * The bound: at most max_tasks entries, so at most max_tasks chunks, even
 * of the largest entries, one per chunk.
 */
TEST_F(ring, the_largest_entries_stay_within_the_bound)
{
	u32 i;

	for (i = 0; i < 3 * MAX_TASKS; i++) {
		REG(3, task_of(&self->m, 5, WEAVE_MAX_BINDINGS,
			       WEAVE_MAX_UNIFORM_BYTES));
		ASSERT_GE((u64)MAX_TASKS * WEAVE_RING_CHUNK_BYTES,
			  self->s.ring_bytes);
		ASSERT_GT((u32)MAX_TASKS, weave_core_slot_queued(&self->s, 3));
	}
}

/*
 * After weave_core_reserve() of a batch, registering it allocates nothing:
 * exactly as many chunks as it takes when nothing drains the ring, and
 * enough when the threshold drains it part way in between.
 */
TEST_F(ring, reserve_sets_aside_every_chunk_a_batch_takes)
{
	static u64 run[150 * WEAVE_ENTRY_MAX_SIZE / sizeof(u64)];
	struct mock_task batch[150];
	unsigned long before;
	u64 bytes;
	u32 i;

	REG(1, task_of(&self->m, 1, 1, 3));	/* a partly used tail */
	for (i = 0; i < 150; i++)
		batch[i] = task_of(&self->m, i, i % 4, i % 40);
	pack_run(run, batch, 150);
	bytes = self->s.ring_bytes;
	ASSERT_EQ(0, weave_core_reserve(&self->s, 1, (void *)run,
					MAX_TASKS - 2));
	weave_test_kmalloc_fail = true;
	before = weave_test_kmallocs;
	for (i = 0; i < MAX_TASKS - 2; i++)
		ASSERT_EQ(0, mock_register(&self->s, 1, &batch[i]))
			TH_LOG("task %u of the batch", i);
	weave_test_kmalloc_fail = false;
	ASSERT_EQ(before, weave_test_kmallocs);
	/* Nothing executed: the chunks set aside held it all. */
	ASSERT_EQ(MAX_TASKS - 1u, weave_core_slot_queued(&self->s, 1));
	ASSERT_LT(bytes, self->s.ring_bytes);

	ASSERT_EQ(0, weave_core_flush(&self->s, 1));
	ASSERT_EQ(0, weave_core_reserve(&self->s, 1, (void *)run, 150));
	weave_test_kmalloc_fail = true;
	before = weave_test_kmallocs;
	for (i = 0; i < 150; i++)
		ASSERT_EQ(0, mock_register(&self->s, 1, &batch[i]))
			TH_LOG("task %u of the batch", i);
	weave_test_kmalloc_fail = false;
	ASSERT_EQ(before, weave_test_kmallocs);
	ASSERT_EQ(150u % MAX_TASKS, weave_core_slot_queued(&self->s, 1));
}

/* Without room and without memory, register fails and changes nothing. */
TEST_F(ring, register_without_memory_changes_nothing)
{
	static u64 run[20 * WEAVE_ENTRY_MAX_SIZE / sizeof(u64)];
	struct mock_task t = task_of(&self->m, 1, 2, 0);
	struct mock_task batch[20];
	u32 i;

	ASSERT_EQ(0, weave_core_reserve(&self->s, 0, NULL, 0));
	weave_test_kmalloc_fail = true;
	ASSERT_EQ(-ENOMEM, mock_register(&self->s, 0, &t));
	ASSERT_EQ(0u, self->m.tracks[0].queued);
	ASSERT_EQ(0u, self->s.seqno);
	ASSERT_EQ(0u, weave_core_queued(&self->s));
	for (i = 0; i < 20; i++)
		batch[i] = task_of(&self->m, 1, 0, 0);
	pack_run(run, batch, 20);
	ASSERT_EQ(-ENOMEM, weave_core_reserve(&self->s, 0, (void *)run, 20));
	weave_test_kmalloc_fail = false;
	ASSERT_EQ(0u, self->s.ring_bytes);
	REG(0, t);
	ASSERT_EQ(2u, self->m.tracks[0].queued + self->m.tracks[1].queued);
}

/*
 * A prepared entry is moved into the ring as it is, given its stream, slot
 * and seqno; one the core cannot trust is refused, changing nothing.
 */
TEST_F(ring, register_entry_moves_the_prepared_entry)
{
	static u64 buf[WEAVE_ENTRY_MAX_SIZE / sizeof(u64)];
	struct weave_entry *e = (void *)buf;
	struct mock_task t = task_of(&self->m, 7, 2, 9);

	t.grid.y = 3;
	t.stream_seqno = 41;
	mock_entry_pack(e, &t);
	e->flags |= 0x80;
	ASSERT_EQ(-EINVAL, weave_core_register_entry(&self->s, 1, e));
	e->flags &= ~0x80;
	((struct weave_binding *)weave_core_entry_bindings(e))[1].access = 0;
	ASSERT_EQ(-EINVAL, weave_core_register_entry(&self->s, 1, e));
	ASSERT_EQ(0u, self->s.seqno);
	ASSERT_EQ(0u, self->s.ring_bytes);
	mock_entry_pack(e, &t);
	ASSERT_EQ(0, weave_core_register_entry(&self->s, 1, e));
	ASSERT_EQ(1u, e->seqno);
	ASSERT_EQ(1u, e->stream);
	ASSERT_EQ(1u, weave_core_slot_queued(&self->s, 1));
	ASSERT_EQ(2u, self->m.tracks[0].queued + self->m.tracks[1].queued);
	ASSERT_EQ(0, weave_core_flush(&self->s, 1));
	ASSERT_EQ(0u, weave_core_slot_queued(&self->s, 1));
}

/*
 * What an entry cannot hold is refused.  (A kernel id past 255, which no
 * entry can hold, ENQUEUE's preparer refuses before there is one.)
 */
TEST_F(ring, tasks_an_entry_cannot_hold_are_rejected)
{
	struct mock_task bad[3];
	char byte;
	u32 i;

	for (i = 0; i < 3; i++)
		bad[i] = task_of(&self->m, 1, 0, 0);
	bad[0].refuse = 1;
	bad[1].refuse = -4096;
	bad[2] = (struct mock_task) {
		.kind = WEAVE_TASK_HOST_WRITE, .data = &byte, .len = 1,
		.uniform_len = WEAVE_MAX_UNIFORM_BYTES + 1,
	};
	bad[2].bindings[0] = (struct weave_binding) {
		.bo = &byte, .track = &self->m.tracks[0], .size = 1,
		.access = WEAVE_ACCESS_WRITE,
	};
	bad[2].num_bindings = 1;
	for (i = 0; i < 3; i++)
		ASSERT_EQ(-EINVAL, mock_register(&self->s, 0, &bad[i]))
			TH_LOG("bad task %u accepted", i);
	ASSERT_EQ(0u, self->s.ring_bytes);
	bad[0].kernel_id = 255;
	bad[0].refuse = 0;
	bad[1].refuse = -4095;
	REG(0, bad[0]);
	REG(0, bad[1]);
}

TEST_HARNESS_MAIN
