// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the soft engine's list logic, kmod/weave_lists.c, compiled
 * in user space: array growth, a job's buffer list in lock order, and the
 * de-duplication of a slot's in-fences.  The random cases are checked
 * against a model written here, for fixed seeds.
 */
#include <stdlib.h>
#include <string.h>
#include <sanitizer/lsan_interface.h>

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/slab.h>
#include <linux/ww_mutex.h>
#include <drm/drm_gem.h>

/* The harness's TEST() has an unused parameter; -Wextra is otherwise kept. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "weave_lists.h"

#define SEEDS	200

/* The stand-in reservation lock's hook, unused here. */
int (*dma_resv_lock_hook)(struct dma_resv *obj);

/* A small deterministic generator, so that a failure replays. */
static u32 rnd_state;

static u32 rnd(u32 n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) % n;
}

/* --- growth ---------------------------------------------------------------- */

TEST(grow_keeps_entries_and_at_least_doubles)
{
	u32 *arr = NULL, cap = 0, i;

	ASSERT_EQ(0, weave_core_grow((void **)&arr, &cap, 0, sizeof(*arr)));
	EXPECT_EQ(0u, cap);
	EXPECT_EQ(NULL, arr);
	ASSERT_EQ(0, weave_core_grow((void **)&arr, &cap, 1, sizeof(*arr)));
	EXPECT_EQ(8u, cap);
	for (i = 0; i < cap; i++)
		arr[i] = i * 7;
	ASSERT_EQ(0, weave_core_grow((void **)&arr, &cap, 9, sizeof(*arr)));
	EXPECT_EQ(16u, cap);
	for (i = 0; i < 8; i++)
		EXPECT_EQ(i * 7, arr[i]);
	/* Room already: nothing moves. */
	u32 *was = arr;

	ASSERT_EQ(0, weave_core_grow((void **)&arr, &cap, 16, sizeof(*arr)));
	EXPECT_EQ(was, arr);
	/* A need beyond double is met exactly. */
	ASSERT_EQ(0, weave_core_grow((void **)&arr, &cap, 100, sizeof(*arr)));
	EXPECT_EQ(100u, cap);
	for (i = 0; i < 8; i++)
		EXPECT_EQ(i * 7, arr[i]);
	kvfree(arr);
}

TEST(grow_from_embedded_storage_never_frees_it)
{
	struct { u64 inl[4]; u64 *arr; u32 cap; } o = { .cap = 4 };
	u32 i;

	o.arr = o.inl;
	for (i = 0; i < 4; i++)
		o.inl[i] = 100 + i;
	/* ASan reports a free of storage that malloc() did not give. */
	ASSERT_EQ(0, weave_core_grow_from((void **)&o.arr, &o.cap, 5,
					  sizeof(*o.arr), o.inl));
	EXPECT_NE((u64 *)o.inl, o.arr);
	EXPECT_EQ(8u, o.cap);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(100 + i, o.arr[i]);
	ASSERT_EQ(0, weave_core_grow_from((void **)&o.arr, &o.cap, 9,
					  sizeof(*o.arr), o.inl));
	EXPECT_EQ(16u, o.cap);
	EXPECT_EQ(103u, o.arr[3]);
	kvfree(o.arr);
	EXPECT_EQ(0, __lsan_do_recoverable_leak_check());
}

/* --- a job's buffer list ---------------------------------------------------- */

#define NOBJS	8

TEST(merge_of_nothing)
{
	EXPECT_EQ(0u, weave_core_jbos_merge(NULL, 0));
}

TEST(merge_random_against_model)
{
	struct drm_gem_object objs[NOBJS];
	struct weave_jbo bos[64];
	u32 seed, i, j, n, u, in_count[NOBJS], tail_count[NOBJS], acc[NOBJS];

	for (seed = 1; seed <= SEEDS * 5; seed++) {
		rnd_state = seed;
		n = 1 + rnd(64);
		memset(in_count, 0, sizeof(in_count));
		memset(acc, 0, sizeof(acc));
		for (i = 0; i < n; i++) {
			j = rnd(NOBJS);
			bos[i].obj = &objs[j];
			bos[i].access = 1u << rnd(2);
			in_count[j]++;
			acc[j] |= bos[i].access;
		}
		u = weave_core_jbos_merge(bos, n);
		/* Distinct, in ascending address order: the lock order. */
		for (i = 1; i < u; i++)
			ASSERT_LT(bos[i - 1].obj, bos[i].obj);
		memset(tail_count, 0, sizeof(tail_count));
		for (i = u; i < n; i++)
			tail_count[bos[i].obj - objs]++;
		for (j = 0; j < NOBJS; j++) {
			bool kept = false;

			for (i = 0; i < u; i++) {
				if (bos[i].obj != &objs[j])
					continue;
				kept = true;
				/* The union of every entry's access. */
				ASSERT_EQ(acc[j], bos[i].access);
			}
			ASSERT_EQ(in_count[j] > 0, kept);
			/* Each duplicate, and only they, in the tail. */
			ASSERT_EQ(in_count[j] ? in_count[j] - 1 : 0,
				  tail_count[j]);
		}
	}
}

/* --- in-fence de-duplication ------------------------------------------------ */

#define NCTX	4
#define NIN	12

static const struct dma_fence_ops ops32 = { .use_64bit_seqno = false };
static const struct dma_fence_ops ops64 = { .use_64bit_seqno = true };

/*
 * A context's fences are numbered in time order ("order"); their seqnos
 * start just below the wrap of a 32-bit seqno, so that comparing the raw
 * seqnos would be wrong for the 32-bit contexts (the even ones).
 */
struct fctx {
	struct dma_fence f[NIN];
	u32 order[NIN];
	struct dma_fence gate_in;	/* what a pending gate waits for */
	u32 gate_order;
	struct dma_fence *pending;	/* the slot's gate's in-fence, or NULL */
};

static struct fctx fctx[NCTX];

static void fence_set(struct dma_fence *f, u32 c, u32 order)
{
	f->ops = c & 1 ? &ops64 : &ops32;
	f->context = 1000 + c;
	f->seqno = (c & 1 ? 0xfffffff0ull : 0xfffffffaull) + order;
	if (!(c & 1))
		f->seqno &= 0xffffffffull;
	f->refcount = 1;
}

/* A fence of context @c, passed once: each comes with one reference. */
static struct dma_fence *make_fence(u32 c, u32 order)
{
	u32 i = rnd(NIN);

	while (fctx[c].f[i].refcount)
		i = (i + 1) % NIN;
	fence_set(&fctx[c].f[i], c, order);
	fctx[c].order[i] = order;
	return &fctx[c].f[i];
}

static u32 order_of(const struct dma_fence *f)
{
	const struct fctx *c = &fctx[f->context - 1000];

	return c->order[f - c->f];
}

static struct dma_fence *cover(void *arg, const struct dma_fence *f)
{
	(void)arg;
	return fctx[f->context - 1000].pending;
}

TEST(dedupe_random_against_model)
{
	struct dma_fence *in[NIN];
	u32 seed, i, n, k, c, fresh, want_fresh;
	u32 best[NCTX], seen[NCTX], kept_of[NCTX];

	for (seed = 1; seed <= SEEDS * 5; seed++) {
		rnd_state = seed;
		memset(fctx, 0, sizeof(fctx));
		memset(seen, 0, sizeof(seen));
		n = rnd(NIN + 1);
		for (i = 0; i < n; i++) {
			c = rnd(NCTX);
			in[i] = make_fence(c, rnd(8));
			if (!seen[c] || order_of(in[i]) > best[c])
				best[c] = order_of(in[i]);
			seen[c] = 1;
		}
		/* Some contexts have a pending gate, earlier or not. */
		for (c = 0; c < NCTX; c++) {
			if (rnd(2))
				continue;
			fctx[c].gate_order = rnd(8);
			fence_set(&fctx[c].gate_in, c, fctx[c].gate_order);
			fctx[c].pending = &fctx[c].gate_in;
		}
		k = n;
		fresh = weave_core_fences_dedupe(in, &k, cover, NULL);

		memset(kept_of, 0, sizeof(kept_of));
		for (i = 0; i < k; i++) {
			c = in[i]->context - 1000;
			/* One per context, and its latest, still referenced. */
			ASSERT_EQ(0u, kept_of[c]);
			kept_of[c] = 1;
			ASSERT_EQ(best[c], order_of(in[i]));
			ASSERT_EQ(1, in[i]->refcount);
		}
		want_fresh = 0;
		for (c = 0; c < NCTX; c++) {
			bool covered = fctx[c].pending &&
				       fctx[c].gate_order >= best[c];

			if (!seen[c])
				continue;
			/* Kept unless the gate waits for as late a fence. */
			ASSERT_EQ((u32)!covered, kept_of[c]);
			want_fresh += !fctx[c].pending;
			/* The gate's own fence is not the caller's to put. */
			if (fctx[c].pending)
				ASSERT_EQ(1, fctx[c].gate_in.refcount);
		}
		ASSERT_EQ(want_fresh, fresh);
		/* Every dropped fence's reference was put, and only those. */
		for (i = 0; i < k; i++)
			in[i]->refcount--;
		for (c = 0; c < NCTX; c++)
			for (i = 0; i < NIN; i++)
				ASSERT_EQ(0, fctx[c].f[i].refcount);
	}
}

TEST(dedupe_drops_the_very_fence_a_gate_waits_for)
{
	struct dma_fence *in[2];
	u32 n = 2;

	memset(fctx, 0, sizeof(fctx));
	rnd_state = 1;
	in[0] = make_fence(0, 3);
	in[1] = make_fence(1, 3);
	/* The slot already waits for in[0] itself. */
	fctx[0].pending = in[0];
	in[0]->refcount++;
	EXPECT_EQ(1u, weave_core_fences_dedupe(in, &n, cover, NULL));
	ASSERT_EQ(1u, n);
	EXPECT_EQ(1000u + 1, in[0]->context);
	EXPECT_EQ(1, fctx[0].pending->refcount);
}

TEST(dedupe_keeps_a_later_fence_than_the_gate)
{
	struct dma_fence *in[3], *gate;
	u32 n = 3;

	memset(fctx, 0, sizeof(fctx));
	rnd_state = 7;
	/* Across the 32-bit wrap: seqnos 0xfffffffb, 0, 1 and 2. */
	gate = &fctx[0].gate_in;
	fence_set(gate, 0, 1);
	in[0] = make_fence(0, 7);
	in[1] = make_fence(0, 6);
	in[2] = make_fence(0, 5);
	fctx[0].pending = gate;
	EXPECT_EQ(0u, weave_core_fences_dedupe(in, &n, cover, NULL));
	ASSERT_EQ(1u, n);
	EXPECT_EQ(7u, order_of(in[0]));
	EXPECT_EQ(1, in[0]->refcount);
	EXPECT_EQ(0, fctx[0].f[0].refcount + fctx[0].f[1].refcount +
		  fctx[0].f[2].refcount + fctx[0].f[3].refcount - 1);
}

TEST_HARNESS_MAIN
