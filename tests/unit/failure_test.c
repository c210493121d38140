// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the failure graph, kmod/weave_failure.c and
 * kmod/weave_taints.c, compiled in user space against tests/unit/include.
 *
 * A buffer's taints read as "[start,end)#id ...", by offset; TAINTS()
 * compares them and checks the invariants of the trees on the way.  The
 * model check is failure_model_test.c.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "failure_dump.h"
#include "failure_fixture.h"

/* Buffer @b's claims, with ids, compared with a string. */
#define TAINTS(b, expected) do {					\
	const char *__err = taints_str(&self->t[b], self->buf,		\
				       sizeof(self->buf));		\
	ASSERT_EQ(NULL, __err) TH_LOG("%s: %s", __err, self->buf);	\
	ASSERT_STREQ(expected, self->buf);				\
} while (0)

#define DUMP(out)	dump_all(&self->g, self->t, NBUF, &self->stash,	\
				 &self->owner, (out), sizeof(out))

/* --- split, merge, replace, release ---------------------------------------- */

TEST_F(fg, one_range_uses_the_buffers_own_node)
{
	struct weave_failure *f = NEW(-EIO);
	u32 nodes = self->stash.nnodes;

	/* No stash at all: the buffer's own node is enough. */
	ASSERT_EQ(0, weave_fg_taints_claim(&self->g, &self->t[0], 0, 16, f,
					   NULL));
	PUT(f);
	TAINTS(0, "[0,16)#1");
	ASSERT_TRUE(self->t[0].node_busy);
	ASSERT_EQ(0u, self->g.nodes);
	ASSERT_EQ(nodes, self->stash.nnodes);
	/* Merging into it takes nothing either. */
	ASSERT_EQ(0, weave_fg_taints_claim(&self->g, &self->t[0], 16, 8, f,
					   NULL));
	TAINTS(0, "[0,24)#1");
	/* A second range does. */
	CLAIM(0, 30, 2, f);
	TAINTS(0, "[0,24)#1 [30,32)#1");
	ASSERT_EQ(1u, self->g.nodes);
	ASSERT_EQ(nodes - 1, self->stash.nnodes);
	ASSERT_EQ(2u, f->refs);
	ASSERT_EQ(1u, f->buffers);
}

TEST_F(fg, claim_inside_another_failure_splits_it)
{
	struct weave_failure *f = NEW(-EIO), *g = NEW(-EINVAL);

	CLAIM(0, 0, 32, f);
	CLAIM(0, 8, 8, g);
	TAINTS(0, "[0,8)#1 [8,16)#2 [16,32)#1");
	PUT(f);
	PUT(g);
	ASSERT_EQ(2u, f->refs);
	ASSERT_EQ(1u, g->refs);
	ASSERT_EQ(1u, f->buffers);
	ASSERT_EQ(2u, self->g.nodes);	/* the own node holds [0,8) */
	/* The split edges are exact: one byte either side. */
	CLAIM(0, 7, 1, g);
	TAINTS(0, "[0,7)#1 [7,16)#2 [16,32)#1");
	CLAIM(0, 16, 1, g);
	TAINTS(0, "[0,7)#1 [7,17)#2 [17,32)#1");
	CLAIM(0, 1, 1, g);
	TAINTS(0, "[0,1)#1 [1,2)#2 [2,7)#1 [7,17)#2 [17,32)#1");
	ASSERT_EQ(3u, f->refs);
	ASSERT_EQ(2u, g->refs);
}

TEST_F(fg, adjacent_claims_of_one_failure_merge)
{
	struct weave_failure *f = NEW(-EIO);

	CLAIM(0, 0, 8, f);
	CLAIM(0, 8, 8, f);
	TAINTS(0, "[0,16)#1");
	CLAIM(0, 20, 4, f);
	TAINTS(0, "[0,16)#1 [20,24)#1");
	/* Before, after, and between two: one claim. */
	CLAIM(0, 16, 4, f);
	TAINTS(0, "[0,24)#1");
	CLAIM(0, 30, 2, f);
	CLAIM(0, 28, 2, f);
	TAINTS(0, "[0,24)#1 [28,32)#1");
	ASSERT_EQ(3u, f->refs);		/* 2 claims and the test's */
	PUT(f);
	ASSERT_EQ(2u, f->refs);
	ASSERT_EQ(1u, self->g.nodes);
}

TEST_F(fg, overlapping_claims_of_one_failure_merge)
{
	struct weave_failure *f = NEW(-EIO), *g = NEW(-EINVAL);

	CLAIM(0, 0, 8, f);
	CLAIM(0, 4, 8, f);
	TAINTS(0, "[0,12)#1");
	/* Inside it: nothing changes. */
	CLAIM(0, 2, 4, f);
	TAINTS(0, "[0,12)#1");
	/* Over several of its claims and another failure's. */
	CLAIM(0, 14, 2, g);
	CLAIM(0, 18, 2, f);
	CLAIM(0, 10, 9, f);
	TAINTS(0, "[0,20)#1");
	ASSERT_EQ(2u, f->refs);
	PUT(f);
	/* g lost its last claim but the test holds it. */
	ASSERT_EQ(1u, g->refs);
	ASSERT_EQ(0u, g->buffers);
	ASSERT_EQ(2u, self->g.live);
	PUT(g);
	ASSERT_EQ(1u, self->g.live);
}

TEST_F(fg, claim_replaces_part_of_another)
{
	struct weave_failure *f = NEW(-EIO), *g = NEW(-EINVAL);

	CLAIM(0, 0, 16, f);
	CLAIM(0, 8, 16, g);
	TAINTS(0, "[0,8)#1 [8,24)#2");
	CLAIM(0, 20, 8, f);
	TAINTS(0, "[0,8)#1 [8,20)#2 [20,28)#1");
	PUT(f);
	PUT(g);
	ASSERT_EQ(2u, f->refs);
	ASSERT_EQ(1u, g->refs);
}

TEST_F(fg, claim_replaces_all_of_another_and_frees_it)
{
	struct weave_failure *f = NEW(-EIO), *g = NEW(-EINVAL);

	CLAIM(0, 4, 4, f);
	PUT(f);
	ASSERT_EQ(2u, self->g.live);
	CLAIM(0, 0, 16, g);
	TAINTS(0, "[0,16)#2");
	ASSERT_EQ(1u, self->g.live);	/* f: no byte, no reference */
	ASSERT_EQ(1u, self->owner.live);
	/* The exact same range: the node is reused. */
	f = NEW(-EIO);
	CLAIM(0, 0, 16, f);
	TAINTS(0, "[0,16)#3");
	PUT(f);
	PUT(g);
	ASSERT_EQ(1u, self->g.live);
}

TEST_F(fg, claim_spanning_several_claims)
{
	struct weave_failure *f = NEW(-EIO), *g = NEW(-EIO), *h = NEW(-EIO);
	struct weave_failure *k = NEW(-ENOSPC);

	CLAIM(0, 0, 4, f);
	CLAIM(0, 4, 4, g);
	CLAIM(0, 8, 4, h);
	CLAIM(0, 16, 4, g);
	PUT(f);
	PUT(g);
	PUT(h);
	CLAIM(0, 2, 8, k);
	TAINTS(0, "[0,2)#1 [2,10)#4 [10,12)#3 [16,20)#2");
	ASSERT_EQ(4u, self->g.live);
	CLAIM(0, 0, 20, k);
	TAINTS(0, "[0,20)#4");
	ASSERT_EQ(1u, self->g.live);
	ASSERT_EQ(2u, k->refs);
	PUT(k);
}

TEST_F(fg, release_exact_bytes)
{
	struct weave_failure *f = NEW(-EIO);

	CLAIM(0, 0, 16, f);
	CLAIM(1, 0, 16, f);
	PUT(f);
	RELEASE(0, 0, 15);
	TAINTS(0, "[15,16)#1");
	RELEASE(0, 15, 1);
	TAINTS(0, "");
	ASSERT_EQ(1u, f->buffers);
	ASSERT_EQ(1u, self->g.live);
	/* Releasing good bytes changes nothing. */
	RELEASE(0, 0, 64);
	RELEASE(1, 16, 16);
	TAINTS(1, "[0,16)#1");
	RELEASE(1, 0, 16);
	TAINTS(1, "");
	ASSERT_EQ(0u, self->g.live);
	ASSERT_EQ(0u, self->owner.live);
	ASSERT_EQ(0u, self->g.nodes);
	ASSERT_FALSE(self->t[1].node_busy);
}

TEST_F(fg, release_in_the_middle_splits)
{
	struct weave_failure *f = NEW(-EIO);

	CLAIM(0, 0, 16, f);
	PUT(f);
	RELEASE(0, 4, 4);
	TAINTS(0, "[0,4)#1 [8,16)#1");
	ASSERT_EQ(2u, f->refs);
	ASSERT_EQ(1u, f->buffers);
	RELEASE(0, 5, 3);
	RELEASE(0, 1, 1);
	TAINTS(0, "[0,1)#1 [2,4)#1 [8,16)#1");
	ASSERT_EQ(3u, f->refs);
}

TEST_F(fg, release_over_gaps)
{
	struct weave_failure *f = NEW(-EIO), *g = NEW(-EIO), *h = NEW(-EIO);

	CLAIM(0, 0, 4, f);
	CLAIM(0, 8, 4, g);
	CLAIM(0, 16, 4, h);
	PUT(f);
	PUT(g);
	PUT(h);
	RELEASE(0, 2, 16);
	TAINTS(0, "[0,2)#1 [18,20)#3");
	ASSERT_EQ(2u, self->g.live);
	RELEASE(0, 0, 64);
	TAINTS(0, "");
	ASSERT_EQ(0u, self->g.live);
}

TEST_F(fg, ranges_that_wrap_are_refused)
{
	struct weave_failure *f = NEW(-EIO);

	ASSERT_EQ(-EINVAL, weave_fg_taints_claim(&self->g, &self->t[0], ~0ull,
						 2, f, &self->stash));
	ASSERT_EQ(-EINVAL, weave_fg_taints_release(&self->g, &self->t[0], 2,
						   ~0ull, &self->stash));
	/* Empty ranges do nothing. */
	CLAIM(0, 5, 0, f);
	RELEASE(0, 5, 0);
	CLAIM(0, ~0ull - 4, 4, f);
	TAINTS(0, "[18446744073709551611,18446744073709551615)#1");
	ASSERT_FALSE(weave_fg_taints_any(&self->g, &self->t[0], ~0ull, 1));
	ASSERT_TRUE(weave_fg_taints_any(&self->g, &self->t[0], ~0ull - 1, 1));
	PUT(f);
}

/* --- records --------------------------------------------------------------- */

TEST_F(fg, ids_are_never_reused)
{
	struct weave_failure *f;
	u64 last = 0;
	int i;

	for (i = 0; i < 100; i++) {
		f = NEW(-EIO);
		ASSERT_EQ(last + 1, f->id);
		last = f->id;
		if (i % 3)
			CLAIM(i % NBUF, 0, 8, f);
		PUT(f);
		ASSERT_EQ(0, weave_fg_stash_fill(&self->stash, 1, 2,
						 GFP_KERNEL));
	}
	/* Every claim replaced the one before it on its buffer. */
	ASSERT_LE(self->g.live, (u32)NBUF);
	ASSERT_EQ(101u, self->g.next_id);
}

TEST_F(fg, records_are_freed_with_their_last_claim)
{
	struct weave_failure *f = NEW(-EIO);

	CLAIM(0, 0, 8, f);
	CLAIM(0, 16, 8, f);
	CLAIM(1, 0, 8, f);
	PUT(f);
	ASSERT_EQ(3u, f->refs);
	ASSERT_EQ(2u, f->buffers);
	weave_fg_taints_fini(&self->g, &self->t[0]);
	weave_fg_taints_init(&self->t[0]);
	ASSERT_EQ(1u, f->refs);
	ASSERT_EQ(1u, f->buffers);
	ASSERT_EQ(1u, self->g.live);
	/* A reference keeps it without any byte. */
	weave_fg_get(&self->g, f);
	RELEASE(1, 0, 8);
	ASSERT_EQ(1u, self->g.live);
	ASSERT_EQ(0u, f->buffers);
	PUT(f);
	ASSERT_EQ(0u, self->g.live);
	ASSERT_EQ(0u, self->owner.live);
	/* Created and never claimed: the creator's put frees it. */
	f = NEW(-EIO);
	ASSERT_EQ(1u, self->g.live);
	PUT(f);
	ASSERT_EQ(0u, self->g.live);
}

TEST_F(fg, buffers_counts_each_buffer_once)
{
	struct weave_failure *f = NEW(-EIO), *g = NEW(-EIO);

	CLAIM(0, 0, 4, f);
	CLAIM(0, 8, 4, f);
	CLAIM(1, 0, 4, f);
	ASSERT_EQ(2u, f->buffers);
	CLAIM(0, 0, 4, g);
	ASSERT_EQ(2u, f->buffers);
	ASSERT_EQ(1u, g->buffers);
	CLAIM(0, 8, 4, g);
	ASSERT_EQ(1u, f->buffers);
	/* Merging claims of f on a buffer keeps it counted once. */
	CLAIM(1, 8, 4, f);
	CLAIM(1, 2, 8, f);
	TAINTS(1, "[0,12)#1");
	ASSERT_EQ(1u, f->buffers);
	CLAIM(2, 0, 4, g);
	CLAIM(3, 0, 4, g);
	ASSERT_EQ(3u, g->buffers);
	PUT(f);
	PUT(g);
}

TEST_F(fg, skip_ring_keeps_the_newest_16)
{
	struct weave_failure *f = NEW(-EIO);
	struct weave_fsnap snap;
	struct weave_ftask skip;
	int i;

	for (i = 1; i <= 5; i++) {
		skip = ftask(CLIENT, 3, 100 + i, 10 + i, i);
		weave_fg_skip(&self->g, f, &skip);
	}
	weave_fg_snapshot(&self->g, f, &snap, CLIENT);
	ASSERT_EQ(5u, snap.nskips);
	ASSERT_EQ(0u, snap.skips_dropped);
	ASSERT_EQ(101u, snap.skips[0].seqno);
	ASSERT_EQ(105u, snap.skips[4].seqno);
	ASSERT_EQ(0u, snap.skips[5].seqno);

	for (i = 6; i <= 20; i++) {
		skip = ftask(CLIENT, 3, 100 + i, 10 + i, i);
		weave_fg_skip(&self->g, f, &skip);
	}
	weave_fg_snapshot(&self->g, f, &snap, CLIENT);
	ASSERT_EQ((u32)WEAVE_FAILURE_SKIPS, snap.nskips);
	ASSERT_EQ(4u, snap.skips_dropped);
	for (i = 0; i < WEAVE_FAILURE_SKIPS; i++) {
		ASSERT_EQ(105u + i, snap.skips[i].seqno);
		ASSERT_EQ(15u + i, snap.skips[i].kernel);
		ASSERT_EQ(5u + i, snap.skips[i].label);
	}
	PUT(f);
}

TEST_F(fg, snapshot_hides_other_clients_fields)
{
	struct weave_ftask root = ftask(CLIENT, 3, 41, 5, 7);
	struct weave_ftask mine = ftask(CLIENT, 5, 12, 6, 8);
	struct weave_ftask theirs = ftask(OTHER, 2, 99, 9, 4);
	struct weave_failure *f;
	struct weave_fsnap snap;

	theirs.type = 1;
	f = weave_fg_create(&self->g, &self->owner, -EINVAL, &root,
			    &self->stash);
	ASSERT_FALSE(IS_ERR(f));
	CLAIM(0, 0, 8, f);
	CLAIM(1, 0, 8, f);
	weave_fg_skip(&self->g, f, &mine);
	weave_fg_skip(&self->g, f, &theirs);

	/* The root's client sees its own tasks, not the other's. */
	weave_fg_snapshot(&self->g, f, &snap, CLIENT);
	ASSERT_EQ(f->id, snap.id);
	ASSERT_EQ(-EINVAL, snap.err);
	ASSERT_EQ(2u, snap.buffers);
	ASSERT_EQ(0, memcmp(&root, &snap.root, sizeof(root)));
	ASSERT_EQ(2u, snap.nskips);
	ASSERT_EQ(0, memcmp(&mine, &snap.skips[0], sizeof(mine)));
	ASSERT_EQ(0u, snap.skips[1].client);
	ASSERT_EQ(0u, snap.skips[1].stream);
	ASSERT_EQ(0u, snap.skips[1].seqno);
	ASSERT_EQ(0u, snap.skips[1].label);
	ASSERT_EQ(9u, snap.skips[1].kernel);
	ASSERT_EQ(1u, snap.skips[1].type);

	/* Another client sees its own skip only. */
	weave_fg_snapshot(&self->g, f, &snap, OTHER);
	ASSERT_EQ(0u, snap.root.client);
	ASSERT_EQ(0u, snap.root.stream);
	ASSERT_EQ(0u, snap.root.seqno);
	ASSERT_EQ(0u, snap.root.label);
	ASSERT_EQ(5u, snap.root.kernel);
	ASSERT_EQ(0u, snap.skips[0].seqno);
	ASSERT_EQ(0, memcmp(&theirs, &snap.skips[1], sizeof(theirs)));

	/* Nobody: errno, kernels and id only. */
	weave_fg_snapshot(&self->g, f, &snap, 0);
	ASSERT_EQ(f->id, snap.id);
	ASSERT_EQ(-EINVAL, snap.err);
	ASSERT_EQ(0u, snap.root.client | snap.root.seqno | snap.root.stream |
		  snap.root.label);
	ASSERT_EQ(0u, snap.skips[0].client | snap.skips[1].client);
	ASSERT_EQ(6u, snap.skips[0].kernel);
	PUT(f);
}

TEST_F(fg, owner_at_its_max_gets_edquot)
{
	struct weave_failure *f[3], *e;
	struct weave_ftask root = ftask(CLIENT, 1, 1, 1, 0);
	int i;

	self->owner.max = 3;
	for (i = 0; i < 3; i++) {
		f[i] = NEW(-EIO);
		CLAIM(i, 0, 8, f[i]);
		PUT(f[i]);
	}
	DUMP(self->before);
	e = weave_fg_create(&self->g, &self->owner, -EIO, &root,
			    &self->stash);
	ASSERT_EQ(-EDQUOT, PTR_ERR(e));
	DUMP(self->buf);
	ASSERT_STREQ(self->before, self->buf);
	/* Without an owner it is not counted. */
	e = weave_fg_create(&self->g, NULL, -EIO, &root, &self->stash);
	ASSERT_FALSE(IS_ERR(e));
	PUT(e);
	/* Bytes rewritten: room again. */
	RELEASE(0, 0, 8);
	f[0] = NEW(-EIO);
	ASSERT_EQ(5u, f[0]->id);	/* 4 went to the ownerless one */
	CLAIM(0, 0, 8, f[0]);
	PUT(f[0]);
	ASSERT_EQ(3u, self->owner.live);
}

TEST_F(fg, failures_outlive_their_owner)
{
	struct weave_failure *f = NEW(-EIO);

	CLAIM(0, 0, 8, f);
	PUT(f);
	weave_fg_owner_detach(&self->g, &self->owner);
	ASSERT_EQ(0u, self->owner.live);
	ASSERT_EQ(NULL, f->owner);
	ASSERT_EQ(1u, self->g.live);
	TAINTS(0, "[0,8)#1");
	RELEASE(0, 0, 8);
	ASSERT_EQ(0u, self->g.live);
	ASSERT_EQ(0u, self->owner.live);
}

TEST_F(fg, create_checks_errno_and_stash)
{
	struct weave_ftask root = ftask(CLIENT, 1, 1, 1, 0);
	struct weave_fstash empty;

	weave_fg_stash_init(&empty);
	ASSERT_EQ(-EINVAL, PTR_ERR(weave_fg_create(&self->g, NULL, 0,
						   &root, &self->stash)));
	ASSERT_EQ(-EINVAL, PTR_ERR(weave_fg_create(&self->g, NULL, 5,
						   &root, &self->stash)));
	DUMP(self->before);
	ASSERT_EQ(-ENOMEM, PTR_ERR(weave_fg_create(&self->g,
						   &self->owner, -EIO,
						   &root, &empty)));
	ASSERT_EQ(-ENOMEM, PTR_ERR(weave_fg_create(&self->g,
						   &self->owner, -EIO,
						   &root, NULL)));
	DUMP(self->buf);
	ASSERT_STREQ(self->before, self->buf);
	ASSERT_EQ(1u, self->g.next_id);
}

/* With no node for it, an operation coarsens: a failed byte stays so. */
TEST_F(fg, no_node_coarsens_and_never_untaints)
{
	struct weave_failure *f = NEW(-EIO), *g = NEW(-EINVAL);
	struct weave_fstash one;
	struct weave_fsnap snap;

	CLAIM(0, 0, 32, f);
	CLAIM(0, 40, 8, g);
	CLAIM(1, 0, 8, g);
	weave_fg_skip(&self->g, f, &f->root);
	PUT(f);
	PUT(g);
	weave_fg_stash_init(&one);
	ASSERT_EQ(0, weave_fg_stash_fill(&one, 0, 1, GFP_KERNEL));
	ASSERT_FALSE(f->coarse);

	/* A split needs two nodes; with one, f's claim stands for g. */
	ASSERT_EQ(0, weave_fg_taints_claim(&self->g, &self->t[0], 8, 8, g,
					   &one));
	TAINTS(0, "[0,32)#1 [40,48)#2");
	ASSERT_EQ(1u, one.nnodes);
	ASSERT_TRUE(f->coarse);
	ASSERT_FALSE(g->coarse);
	ASSERT_EQ(1u, self->g.coarsened);
	weave_fg_snapshot(&self->g, f, &snap, CLIENT);
	ASSERT_TRUE(snap.coarse);

	/* A new range needs one, the own node is busy: the nearest grows. */
	ASSERT_EQ(0, weave_fg_taints_claim(&self->g, &self->t[0], 34, 2, g,
					   NULL));
	TAINTS(0, "[0,36)#1 [40,48)#2");
	/* A release inside a claim needs one: the bytes stay tainted. */
	ASSERT_EQ(0, weave_fg_taints_release(&self->g, &self->t[0], 8, 8, NULL));
	TAINTS(0, "[0,36)#1 [40,48)#2");
	ASSERT_EQ(3u, self->g.coarsened);
	ASSERT_EQ(1u, f->refs);
	ASSERT_EQ(2u, g->refs);

	/* What needs none stays exact, without a stash. */
	ASSERT_EQ(0, weave_fg_taints_claim(&self->g, &self->t[0], 32, 8, g,
					   NULL));
	ASSERT_EQ(0, weave_fg_taints_release(&self->g, &self->t[0], 0, 8, NULL));
	ASSERT_EQ(0, weave_fg_taints_claim(&self->g, &self->t[0], 28, 4, g,
					   NULL));
	TAINTS(0, "[8,28)#1 [28,48)#2");
	ASSERT_EQ(3u, self->g.coarsened);
	ASSERT_EQ(0, weave_fg_stash_fill(&one, 0, 2, GFP_KERNEL));
	ASSERT_EQ(0, weave_fg_taints_claim(&self->g, &self->t[0], 40, 2, f,
					   &one));
	TAINTS(0, "[8,28)#1 [28,40)#2 [40,42)#1 [42,48)#2");
	ASSERT_EQ(0u, one.nnodes);
	ASSERT_FALSE(g->coarse);
	weave_fg_stash_drain(&one);
}

/*
 * The nearest claim absorbs the range and the gap; on a tie, the claimed
 * failure's; claims in between are taken over, and touching claims of
 * the absorbing failure merge.
 */
TEST_F(fg, coarsening_takes_the_nearest_claim)
{
	struct weave_failure *f = NEW(-EIO), *g = NEW(-EIO), *h = NEW(-EIO);

	CLAIM(0, 0, 4, f);
	CLAIM(0, 20, 4, g);
	CLAIM(0, 40, 4, h);
	CLAIM(0, 50, 4, g);
	/* Nearer to g's [20,24) than to f's: g grows over the gap. */
	ASSERT_EQ(0, weave_fg_taints_claim(&self->g, &self->t[0], 14, 2, f,
					   NULL));
	TAINTS(0, "[0,4)#1 [14,24)#2 [40,44)#3 [50,54)#2");
	ASSERT_TRUE(g->coarse);
	ASSERT_FALSE(f->coarse);
	/* A tie between h and g: the claimed failure's, g, grows. */
	ASSERT_EQ(0, weave_fg_taints_claim(&self->g, &self->t[0], 46, 2, g,
					   NULL));
	TAINTS(0, "[0,4)#1 [14,24)#2 [40,44)#3 [46,54)#2");
	/* A tie, with neither the claimed one's: the one before grows. */
	ASSERT_EQ(0, weave_fg_taints_claim(&self->g, &self->t[0], 7, 4, h,
					   NULL));
	TAINTS(0, "[0,11)#1 [14,24)#2 [40,44)#3 [46,54)#2");
	ASSERT_TRUE(f->coarse);
	ASSERT_FALSE(h->coarse);
	/* Over h, between g's claims: g takes h's bytes and merges. */
	ASSERT_EQ(0, weave_fg_taints_claim(&self->g, &self->t[0], 25, 1, h,
					   NULL));
	TAINTS(0, "[0,11)#1 [14,26)#2 [40,44)#3 [46,54)#2");
	PUT(f);
	PUT(g);
	PUT(h);
	ASSERT_EQ(4u, self->g.coarsened);
}

/* A buffer never holds more than max_claims, whatever the ranges. */
TEST_F(fg, buffer_limit_bounds_every_other_byte)
{
	struct weave_failure *f;
	u64 i;

	self->g.max_claims = 8;
	for (i = 0; i < 512; i += 2) {
		ASSERT_EQ(0, weave_fg_stash_fill(&self->stash, 1, 2,
						 GFP_KERNEL));
		f = NEW(-EIO);
		CLAIM(0, i, 1, f);
		PUT(f);
		ASSERT_GE(8u, self->t[0].claims);
		ASSERT_TRUE(weave_fg_taints_any(&self->g, &self->t[0], i, 1));
	}
	/* Every byte that failed still does. */
	for (i = 0; i < 512; i += 2)
		ASSERT_TRUE(weave_fg_taints_any(&self->g, &self->t[0], i, 1));
	ASSERT_EQ(8u, self->t[0].claims);
	ASSERT_LT(0u, self->g.coarsened);
	/* Records beyond the buffer's claims were freed. */
	ASSERT_GE(8u, self->g.live);
	ASSERT_GE(7u, self->g.nodes);
}

/*
 * An owner's failures hold at most max_nodes nodes from stashes; a
 * buffer's own node is free, even past the limit.
 */
TEST_F(fg, owner_limit_bounds_the_nodes_of_its_failures)
{
	struct weave_failure *f = NEW(-EIO), *g;
	struct weave_ftask root = ftask(9, 1, 1, 2, 0);
	struct weave_fowner other;

	self->owner.max_nodes = 1;
	CLAIM(0, 0, 4, f);
	ASSERT_EQ(0u, self->owner.nodes);
	CLAIM(0, 8, 4, f);
	ASSERT_EQ(1u, self->owner.nodes);
	CLAIM(0, 16, 4, f);
	TAINTS(0, "[0,4)#1 [8,20)#1");
	ASSERT_TRUE(f->coarse);
	ASSERT_EQ(1u, self->owner.nodes);
	CLAIM(1, 0, 4, f);
	TAINTS(1, "[0,4)#1");
	ASSERT_EQ(1u, self->owner.nodes);

	/* Another owner's failure splits f: f's right part needs a node. */
	weave_fg_owner_init(&other, 9, 4, WEAVE_NO_LIMIT);
	g = weave_fg_create(&self->g, &other, -EIO, &root, &self->stash);
	ASSERT_FALSE(IS_ERR(g));
	CLAIM(0, 10, 2, g);
	TAINTS(0, "[0,4)#1 [8,20)#1");
	ASSERT_EQ(0u, other.nodes);
	/* At an edge, no node is needed. */
	CLAIM(0, 18, 2, g);
	TAINTS(0, "[0,4)#1 [8,18)#1 [18,20)#2");
	ASSERT_EQ(1u, other.nodes);
	PUT(g);

	/* Released, nodes go back; detached, the owner counts nothing. */
	RELEASE(0, 8, 10);
	ASSERT_EQ(0u, self->owner.nodes);
	CLAIM(0, 8, 4, f);
	ASSERT_EQ(1u, self->owner.nodes);
	PUT(f);
	weave_fg_owner_detach(&self->g, &self->owner);
	ASSERT_EQ(0u, self->owner.nodes);
	RELEASE(0, 0, 64);
	ASSERT_EQ(0u, self->owner.nodes);
	weave_fg_owner_detach(&self->g, &other);
	ASSERT_EQ(0u, other.nodes);
}

/* A shared stash is refilled and trimmed under the graph's lock. */
TEST_F(fg, refill_and_trim)
{
	struct weave_fstash s;

	weave_fg_stash_init(&s);
	ASSERT_EQ(0, weave_fg_stash_refill(&self->g, &s, 3, 5, GFP_KERNEL));
	ASSERT_EQ(3u, s.nrecords);
	ASSERT_EQ(5u, s.nnodes);
	ASSERT_EQ(0, weave_fg_stash_refill(&self->g, &s, 1, 6, GFP_KERNEL));
	ASSERT_EQ(3u, s.nrecords);
	ASSERT_EQ(6u, s.nnodes);
	weave_fg_stash_trim(&self->g, &s, 1, 2);
	ASSERT_EQ(1u, s.nrecords);
	ASSERT_EQ(2u, s.nnodes);
	weave_fg_stash_trim(&self->g, &s, 4, 4);
	ASSERT_EQ(1u, s.nrecords);
	ASSERT_EQ(2u, s.nnodes);
	weave_fg_stash_drain(&s);
	ASSERT_EQ(0u, s.nrecords + s.nnodes);
}

TEST_F(fg, fill_and_drain)
{
	struct weave_fstash s;

	weave_fg_stash_init(&s);
	ASSERT_EQ(0, weave_fg_stash_fill(&s, 2, 3, GFP_KERNEL));
	ASSERT_EQ(2u, s.nrecords);
	ASSERT_EQ(3u, s.nnodes);
	/* What it holds counts. */
	ASSERT_EQ(0, weave_fg_stash_fill(&s, 1, 4, GFP_KERNEL));
	ASSERT_EQ(2u, s.nrecords);
	ASSERT_EQ(4u, s.nnodes);
	weave_fg_stash_drain(&s);
	ASSERT_EQ(0u, s.nrecords + s.nnodes);
	ASSERT_TRUE(list_empty(&s.records));
}

/* --- lookups ----------------------------------------------------------------- */

TEST_F(fg, any_first_and_list)
{
	struct weave_failure *f = NEW(-EIO), *g = NEW(-EIO), *h = NEW(-EIO);
	struct weave_failure *out[2], *x;
	u32 nbuf[2];

	ASSERT_FALSE(weave_fg_taints_any(&self->g, &self->t[0], 0, 64));
	ASSERT_EQ(NULL, weave_fg_taints_first(&self->g, &self->t[0], 0, 64));
	ASSERT_EQ(0u, weave_fg_taints_list(&self->g, &self->t[0], 0, 64, out,
					   NULL, 2));
	CLAIM(0, 4, 4, f);
	CLAIM(0, 8, 4, g);
	CLAIM(0, 16, 4, f);
	CLAIM(0, 24, 4, h);
	PUT(f);
	PUT(g);
	PUT(h);

	ASSERT_FALSE(weave_fg_taints_any(&self->g, &self->t[0], 0, 4));
	ASSERT_FALSE(weave_fg_taints_any(&self->g, &self->t[0], 12, 4));
	ASSERT_FALSE(weave_fg_taints_any(&self->g, &self->t[0], 9, 0));
	ASSERT_TRUE(weave_fg_taints_any(&self->g, &self->t[0], 0, 5));
	ASSERT_TRUE(weave_fg_taints_any(&self->g, &self->t[0], 11, 6));

	x = weave_fg_taints_first(&self->g, &self->t[0], 10, 20);
	ASSERT_EQ(g, x);
	ASSERT_EQ(2u, g->refs);
	PUT(x);
	ASSERT_EQ(NULL, weave_fg_taints_first(&self->g, &self->t[0], 12, 4));

	/* f, g, f, h: three distinct, in the order of their first byte. */
	ASSERT_EQ(3u, weave_fg_taints_list(&self->g, &self->t[0], 0, 64, out,
					   NULL, 2));
	ASSERT_EQ(f, out[0]);
	ASSERT_EQ(g, out[1]);
	ASSERT_EQ(3u, f->refs);
	ASSERT_EQ(1u, h->refs);
	PUT(out[0]);
	PUT(out[1]);
	/* f's first claim outside the range: counted at its second. */
	ASSERT_EQ(2u, weave_fg_taints_list(&self->g, &self->t[0], 10, 10, out,
					   NULL, 2));
	ASSERT_EQ(g, out[0]);
	ASSERT_EQ(f, out[1]);
	PUT(out[0]);
	PUT(out[1]);
	/* With the buffers counts as the range was read: f on two buffers. */
	CLAIM(1, 0, 4, f);
	ASSERT_EQ(2u, weave_fg_taints_list(&self->g, &self->t[0], 0, 12, out,
					   nbuf, 2));
	ASSERT_EQ(f, out[0]);
	ASSERT_EQ(2u, nbuf[0]);
	ASSERT_EQ(g, out[1]);
	ASSERT_EQ(1u, nbuf[1]);
	PUT(out[0]);
	PUT(out[1]);
	RELEASE(1, 0, 4);
	/* Partly inside: counted there, and once. */
	ASSERT_EQ(2u, weave_fg_taints_list(&self->g, &self->t[0], 7, 10, out,
					   NULL, 2));
	ASSERT_EQ(f, out[0]);
	ASSERT_EQ(g, out[1]);
	PUT(out[0]);
	PUT(out[1]);
	/* No room: only the count, and no reference taken. */
	ASSERT_EQ(3u, weave_fg_taints_list(&self->g, &self->t[0], 0, 64, out,
					   NULL, 0));
	ASSERT_EQ(2u, f->refs);
	ASSERT_EQ(1u, g->refs);
	ASSERT_EQ(1u, h->refs);
}

TEST_F_SIGNAL(fg, a_put_too_many_is_caught, SIGILL)
{
	struct weave_failure *f = NEW(-EIO);

	/* Keep the expected "WARNING:" line off the test log. */
	ASSERT_NE(NULL, freopen("/dev/null", "w", stderr));
	CLAIM(0, 0, 8, f);
	PUT(f);
	PUT(f);
	PUT(f);
}

TEST_HARNESS_MAIN
