// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the staging arena, kmod/weave_arena.c, compiled in user
 * space: slices in order, releases in any order, the wrap and its gap, and
 * a random model check that slices never overlap, keep their bytes, and
 * that a caller holding at most half the arena always fits once everyone
 * else released.
 */
#include <stdlib.h>
#include <string.h>

/* The harness's TEST() has an unused parameter; -Wextra is otherwise kept. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "weave_arena.h"

#define SIZE	4096u
#define SEEDS	200
#define OPS	2000
#define HELD	64

static u32 rnd_state;

static u32 rnd(u32 n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) % n;
}

/* An arena over a buffer of its own, so that ASan sees any overrun. */
static struct weave_arena *arena_new(u32 size)
{
	struct weave_arena *a = malloc(sizeof(*a));

	weave_core_arena_init(a, malloc(size), size);
	return a;
}

static void arena_free(struct weave_arena *a)
{
	free(a->base);
	free(a);
}

static u32 off(struct weave_arena *a, void *p)
{
	return (u32)((u8 *)p - a->base);
}

TEST(slices_in_order_and_reused)
{
	struct weave_arena *a = arena_new(SIZE);
	void *p, *q;

	EXPECT_EQ(32u, weave_core_arena_cost(1));
	EXPECT_EQ(32u, weave_core_arena_cost(16));
	EXPECT_EQ(48u, weave_core_arena_cost(17));
	p = weave_core_arena_reserve(a, 100);
	q = weave_core_arena_reserve(a, 100);
	ASSERT_NE(NULL, p);
	ASSERT_NE(NULL, q);
	EXPECT_EQ(WEAVE_ARENA_GRANULE, off(a, p));
	EXPECT_EQ(off(a, p) + weave_core_arena_cost(100), off(a, q));
	EXPECT_EQ(0u, (uintptr_t)p % 8);
	EXPECT_FALSE(weave_core_arena_idle(a));
	weave_core_arena_release(p);
	weave_core_arena_release(q);
	EXPECT_TRUE(weave_core_arena_idle(a));
	EXPECT_EQ(2u, weave_core_arena_reclaimed(a));
	/* Empty: the next slice starts over at the beginning. */
	p = weave_core_arena_reserve(a, 8);
	EXPECT_EQ(WEAVE_ARENA_GRANULE, off(a, p));
	EXPECT_EQ(NULL, weave_core_arena_release(p));
	arena_free(a);
}

/* A slice without an arena is released like the others, and handed back. */
TEST(alone_slice_comes_back_to_free)
{
	u32 len = 3 * SIZE;
	void *mem = malloc(weave_core_arena_cost(len)), *p;

	p = weave_core_arena_alone(mem, len);
	ASSERT_EQ((u8 *)mem + WEAVE_ARENA_GRANULE, (u8 *)p);
	memset(p, 0x5a, len);
	EXPECT_EQ(mem, weave_core_arena_release(p));
	free(mem);
	EXPECT_EQ(NULL, weave_core_arena_release(NULL));
}

TEST(too_large_and_full_fail)
{
	struct weave_arena *a = arena_new(SIZE);
	void *p;

	EXPECT_EQ(NULL, weave_core_arena_reserve(a, SIZE));
	p = weave_core_arena_reserve(a, SIZE - WEAVE_ARENA_GRANULE);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(NULL, weave_core_arena_reserve(a, 1));
	weave_core_arena_release(p);
	EXPECT_TRUE(weave_core_arena_idle(a));
	arena_free(a);
}

/* A release out of order frees nothing until the older slices go too. */
TEST(release_out_of_order_reclaims_in_order)
{
	struct weave_arena *a = arena_new(SIZE);
	u32 len = SIZE / 4 - WEAVE_ARENA_GRANULE;
	void *s[4];
	int i;

	for (i = 0; i < 4; i++) {
		s[i] = weave_core_arena_reserve(a, len);
		ASSERT_NE(NULL, s[i]);
	}
	EXPECT_EQ(NULL, weave_core_arena_reserve(a, 1));
	weave_core_arena_release(s[2]);
	weave_core_arena_release(s[1]);
	EXPECT_EQ(0u, weave_core_arena_reclaimed(a));
	EXPECT_EQ(NULL, weave_core_arena_reserve(a, 1));
	weave_core_arena_release(s[0]);
	EXPECT_EQ(3u, weave_core_arena_reclaimed(a));
	/* Three quarters are free again, at the front. */
	s[0] = weave_core_arena_reserve(a, 3 * (len + WEAVE_ARENA_GRANULE) -
					WEAVE_ARENA_GRANULE);
	ASSERT_NE(NULL, s[0]);
	EXPECT_EQ(WEAVE_ARENA_GRANULE, off(a, s[0]));
	weave_core_arena_release(s[3]);
	weave_core_arena_release(s[0]);
	EXPECT_TRUE(weave_core_arena_idle(a));
	arena_free(a);
}

/* A slice that does not fit at the end wraps; the gap goes with the tail. */
TEST(wrap_leaves_a_gap_reclaimed_in_turn)
{
	struct weave_arena *a = arena_new(SIZE);
	void *p, *q, *r;

	p = weave_core_arena_reserve(a, 1500);
	q = weave_core_arena_reserve(a, 2000);
	ASSERT_NE(NULL, q);
	weave_core_arena_release(p);
	/* 1520 bytes free at the front, 560 at the end: 900 wraps. */
	r = weave_core_arena_reserve(a, 900);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(WEAVE_ARENA_GRANULE, off(a, r));
	/* Between r and q: 592 bytes. */
	EXPECT_EQ(NULL, weave_core_arena_reserve(a, 700));
	weave_core_arena_release(q);
	/* q and the gap after it are back: only r is held. */
	EXPECT_EQ(NULL, weave_core_arena_reserve(a, SIZE - 900));
	p = weave_core_arena_reserve(a, SIZE - 2 * weave_core_arena_cost(900));
	ASSERT_NE(NULL, p);
	weave_core_arena_release(r);
	weave_core_arena_release(p);
	EXPECT_TRUE(weave_core_arena_idle(a));
	arena_free(a);
}

struct held {
	u8 *p;
	u32 len;
	u8 fill;
	bool mine;	/* reserved by the call in progress */
};

struct model {
	struct weave_arena *a;
	struct held h[HELD];
	u32 n;
};

/* Checks that @i kept its bytes, releases it and drops it. */
static void model_release(struct __test_metadata *_metadata,
			  struct model *m, u32 i)
{
	u32 j;

	for (j = 0; j < m->h[i].len; j++)
		ASSERT_EQ(m->h[i].fill, m->h[i].p[j]);
	weave_core_arena_release(m->h[i].p);
	m->h[i] = m->h[--m->n];
}

/* Records the new slice @p, checking it lies apart from every other. */
static void model_add(struct __test_metadata *_metadata, struct model *m,
		      u8 *p, u32 len, u8 fill, bool mine)
{
	u32 i;

	ASSERT_GE(p, m->a->base + WEAVE_ARENA_GRANULE);
	ASSERT_LE(p + len, m->a->base + SIZE);
	for (i = 0; i < m->n; i++)
		ASSERT_TRUE(p + len <= m->h[i].p || m->h[i].p + m->h[i].len <= p);
	m->h[m->n].p = p;
	m->h[m->n].len = len;
	m->h[m->n].fill = fill;
	m->h[m->n].mine = mine;
	memset(p, fill, len);
	m->n++;
}

/*
 * The model: slices reserved at random and released in random order, each
 * filled with its own byte and checked when released; no two overlap.
 * Now and then "a call" reserves a run of slices with nothing else
 * reserved between them (as one ENQUEUE does under its client's lock),
 * while others are released.  If the run holds at most half the arena in
 * all, its next slice always fits once every other slice is released.
 */
TEST(model)
{
	struct model m;
	u32 seed, op, i, mine, len;
	bool call;
	u8 *p;

	for (seed = 1; seed <= SEEDS; seed++) {
		m.a = arena_new(SIZE);
		m.n = 0;
		rnd_state = seed;
		call = false;
		mine = 0;
		for (op = 0; op < OPS; op++) {
			if (!rnd(40)) {
				/* A call starts or ends: its slices are others'. */
				call = !call;
				mine = 0;
				for (i = 0; i < m.n; i++)
					m.h[i].mine = false;
			}
			if (m.n && (m.n == HELD || !rnd(3))) {
				i = rnd(m.n);
				if (!m.h[i].mine)
					model_release(_metadata, &m, i);
				continue;
			}
			len = 1 + rnd(rnd(4) ? 200 : SIZE / 3);
			if (call && mine + weave_core_arena_cost(len) > SIZE / 2)
				continue;
			p = weave_core_arena_reserve(m.a, len);
			if (!p && call) {
				/* Everyone else lets go: it fits. */
				for (i = 0; i < m.n; ) {
					if (m.h[i].mine)
						i++;
					else
						model_release(_metadata, &m, i);
				}
				p = weave_core_arena_reserve(m.a, len);
				ASSERT_NE(NULL, p) {
					TH_LOG("seed %u op %u: %u held, %u more",
					       seed, op, mine, len);
				}
			}
			if (!p)
				continue;
			model_add(_metadata, &m, p, len, (u8)(seed + op), call);
			if (call)
				mine += weave_core_arena_cost(len);
		}
		while (m.n)
			model_release(_metadata, &m, 0);
		ASSERT_TRUE(weave_core_arena_idle(m.a));
		arena_free(m.a);
	}
}

TEST_HARNESS_MAIN
