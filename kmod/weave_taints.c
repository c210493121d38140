// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the taints of a buffer: claims of failures on its byte ranges.
 *
 * Part of the failure graph; see "DOC: failure graph" in weave_failure.c.
 */

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "weave_failure.h"
#include "weave_taints.h"

/**
 * DOC: taints
 *
 * A buffer's taints are claims: ranges [start, end) of its bytes, each
 * carrying one failure.  Claims never overlap, so in &weave_taints.by_off
 * both their starts and their ends are sorted.  Two claims of one failure
 * never touch: a claim that would touch or overlap another of its failure
 * merges with it.  Each claim holds one reference to its failure, and a
 * failure's &weave_failure.buffers counts the buffers holding at least one
 * of its claims, found in &weave_taints.by_fail in O(log n).
 *
 * Every operation first finds what it would do without changing anything
 * (the need for claim nodes); if the buffer's own node and the stash
 * cannot cover it, or a limit would be passed, it coarsens instead (see
 * "DOC: coarsening"), and only then changes the trees.  A claim or a
 * release costs O((k + 1) log n), where k is the number of claims it
 * touches and n the buffer's claims, at most &weave_failures.max_claims;
 * every claim it removes was made by an earlier operation.
 */

static struct weave_claim *weave_claim_next(struct weave_claim *c)
{
	struct rb_node *n = rb_next(&c->by_off);

	return n ? rb_entry(n, struct weave_claim, by_off) : NULL;
}

static struct weave_claim *weave_claim_prev(struct weave_taints *t,
					    struct weave_claim *c)
{
	struct rb_node *n = c ? rb_prev(&c->by_off) : rb_last(&t->by_off);

	return n ? rb_entry(n, struct weave_claim, by_off) : NULL;
}

/* The first claim, by offset, whose end is at @min_end or beyond. */
static struct weave_claim *weave_claim_from(const struct weave_taints *t,
					    u64 min_end)
{
	struct rb_node *n = t->by_off.rb_node;
	struct weave_claim *found = NULL;

	while (n) {
		struct weave_claim *c = rb_entry(n, struct weave_claim, by_off);

		if (c->end >= min_end) {
			found = c;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	return found;
}

/* The first claim that overlaps [@start, @start + 1) or comes after it. */
static struct weave_claim *weave_claim_at(const struct weave_taints *t,
					  u64 start)
{
	return weave_claim_from(t, start + 1);
}

/* Whether @t holds a claim of @f. */
static bool weave_taints_holds(const struct weave_taints *t,
			       const struct weave_failure *f)
{
	struct rb_node *n = t->by_fail.rb_node;

	while (n) {
		struct weave_claim *c = rb_entry(n, struct weave_claim, by_fail);

		if (c->failure == f)
			return true;
		n = f->id < c->failure->id ? n->rb_left : n->rb_right;
	}
	return false;
}

static void weave_claim_link(struct weave_taints *t, struct weave_claim *new)
{
	struct rb_node **link = &t->by_off.rb_node, *parent = NULL;
	u64 id = new->failure->id;

	while (*link) {
		struct weave_claim *c = rb_entry(*link, struct weave_claim,
						 by_off);

		parent = *link;
		link = new->start < c->start ? &parent->rb_left :
					       &parent->rb_right;
	}
	rb_link_node(&new->by_off, parent, link);
	rb_insert_color(&new->by_off, &t->by_off);

	link = &t->by_fail.rb_node;
	parent = NULL;
	while (*link) {
		struct weave_claim *c = rb_entry(*link, struct weave_claim,
						 by_fail);
		bool left = id < c->failure->id ||
			    (id == c->failure->id && new->start < c->start);

		parent = *link;
		link = left ? &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&new->by_fail, parent, link);
	rb_insert_color(&new->by_fail, &t->by_fail);

	WRITE_ONCE(t->claims, t->claims + 1);
	if (new != &t->node && new->failure->owner)
		new->failure->owner->nodes++;
}

static void weave_claim_unlink(struct weave_taints *t, struct weave_claim *c)
{
	rb_erase(&c->by_off, &t->by_off);
	rb_erase(&c->by_fail, &t->by_fail);
	WRITE_ONCE(t->claims, t->claims - 1);
	if (c != &t->node && c->failure->owner)
		c->failure->owner->nodes--;
}

/* Whether a node more for a claim of @f would pass its owner's limit. */
static bool weave_owner_full(const struct weave_failure *f)
{
	return f->owner && f->owner->nodes >= f->owner->max_nodes;
}

/* Whether @n more claims would pass the buffer's limit. */
static bool weave_buffer_full(const struct weave_failures *g,
			      const struct weave_taints *t, u32 n)
{
	return (u64)t->claims + n > g->max_claims;
}

/* Nodes an operation on @t may take: the buffer's own and the stash's. */
static u32 weave_nodes_free(const struct weave_taints *t,
			    const struct weave_fstash *stash)
{
	return (stash ? stash->nnodes : 0) + !t->node_busy;
}

/* Take a node, the buffer's own first; weave_nodes_free() said there is. */
static struct weave_claim *weave_node_take(struct weave_failures *g,
					   struct weave_taints *t,
					   struct weave_fstash *stash)
{
	struct weave_claim *c;

	if (!t->node_busy) {
		t->node_busy = true;
		return &t->node;
	}
	c = list_first_entry(&stash->nodes, struct weave_claim, stash);
	list_del(&c->stash);
	stash->nnodes--;
	g->nodes++;
	return c;
}

static void weave_node_free(struct weave_failures *g, struct weave_taints *t,
			    struct weave_claim *c)
{
	if (c == &t->node) {
		t->node_busy = false;
		return;
	}
	g->nodes--;
	kfree(c);
}

/*
 * Drop claim @c, already unlinked from @t, from its failure: which may
 * leave the buffer, or the graph.  The node is the caller's.
 */
static void weave_claim_drop(struct weave_failures *g, struct weave_taints *t,
			     struct weave_claim *c)
{
	if (!weave_taints_holds(t, c->failure))
		c->failure->buffers--;
	weave_fg_put_locked(g, c->failure);
}

/*
 * Cut [@s, @e) out of claim @c, which covers more than it on both sides:
 * @c keeps the left part, a new claim of the same failure takes the right
 * part.  The buffer already holds the failure, so its buffers count stays.
 */
static void weave_claim_split(struct weave_failures *g, struct weave_taints *t,
			      struct weave_claim *c, u64 s, u64 e,
			      struct weave_fstash *stash)
{
	struct weave_claim *right = weave_node_take(g, t, stash);

	right->failure = c->failure;
	right->start = e;
	right->end = c->end;
	c->end = s;
	c->failure->refs++;
	weave_claim_link(t, right);
}

/*
 * Coarsen, so that [@s, @e) carries a failure with no new claim: the
 * claim around it, or else the nearest one (@f's on a tie), absorbs it
 * and the gap, as "DOC: coarsening" says.  The buffer has a claim.
 */
static void weave_taints_absorb(struct weave_failures *g,
				struct weave_taints *t, u64 s, u64 e,
				struct weave_failure *f)
{
	struct weave_claim *c, *next, *a, *prev, *after;
	u64 gp = U64_MAX, ga = U64_MAX, ns, ne;

	c = weave_claim_from(t, s);
	if (c && c->start <= s && c->end >= e) {
		a = c;
		goto mark;
	}
	if (c && c->start < s) {
		prev = c;
		after = weave_claim_next(c);
	} else {
		prev = weave_claim_prev(t, c);
		after = c;
	}
	if (prev)
		gp = prev->end >= s ? 0 : s - prev->end;
	if (after)
		ga = after->start <= e ? 0 : after->start - e;
	if (WARN_ON_ONCE(!prev && !after))
		return;
	if (gp == ga)
		a = after && after->failure == f ? after : prev;
	else
		a = gp < ga ? prev : after;

	ns = min(s, a->start);
	ne = max(e, a->end);
	for (c = weave_claim_from(t, ns); c && c->start <= ne; c = next) {
		next = weave_claim_next(c);
		if (c == a)
			continue;
		if (c->failure == a->failure) {
			/* Touches or overlaps: merge; the buffer keeps it. */
			ns = min(ns, c->start);
			ne = max(ne, c->end);
			weave_claim_unlink(t, c);
			weave_fg_put_locked(g, c->failure);
			weave_node_free(g, t, c);
			continue;
		}
		if (c->end <= ns || c->start >= ne)
			continue;	/* touches another failure: stays */
		if (c->start < ns) {
			c->end = ns;
			continue;
		}
		if (c->end > ne) {
			c->start = ne;
			continue;
		}
		weave_claim_unlink(t, c);
		weave_claim_drop(g, t, c);
		weave_node_free(g, t, c);
	}
	/* Every other claim is now outside: both trees keep their order. */
	a->start = ns;
	a->end = ne;
mark:
	a->failure->coarse = true;
	g->coarsened++;
}

/* Whether [@off, @off + @len) is a valid range, and its end then. */
static bool weave_range(u64 off, u64 len, u64 *end)
{
	*end = off + len;
	return *end >= off;
}

/**
 * weave_fg_taints_init() - Make the taints of a new buffer: none.
 * @taints: The taints.
 */
void weave_fg_taints_init(struct weave_taints *taints)
{
	taints->by_off = RB_ROOT;
	taints->by_fail = RB_ROOT;
	taints->claims = 0;
	taints->node_busy = false;
}

/**
 * weave_fg_taints_fini() - Release every claim of a buffer being freed.
 * @graph: The graph.
 * @taints: The taints; none left afterwards.
 *
 * Failures that no byte carries any more and no one holds are freed.
 * Needs no memory; a buffer with no claim costs a comparison.
 */
void weave_fg_taints_fini(struct weave_failures *graph,
			  struct weave_taints *taints)
{
	struct rb_node *n;
	unsigned long flags;

	if (!READ_ONCE(taints->claims))
		return;
	spin_lock_irqsave(&graph->lock, flags);
	while ((n = rb_first(&taints->by_fail))) {
		struct weave_claim *c = rb_entry(n, struct weave_claim, by_fail);

		weave_claim_unlink(taints, c);
		weave_claim_drop(graph, taints, c);
		weave_node_free(graph, taints, c);
	}
	spin_unlock_irqrestore(&graph->lock, flags);
}

/*
 * Claim step: what a claim of [@s, @e) for @failure would change.  Sets
 * *@split to a claim of another failure that holds the range inside it,
 * *@reuse if a node of a claim the range covers or of @failure's is
 * freed, and *@merge if a claim of @failure touches or overlaps the range.
 * Under the graph's lock.
 *
 * Return: True if a claim of @failure already covers the range.
 */
static bool weave_claim_plan(struct weave_taints *taints, u64 s, u64 e,
			     const struct weave_failure *failure,
			     struct weave_claim **split, bool *reuse,
			     bool *merge)
{
	struct weave_claim *c;

	for (c = weave_claim_from(taints, s); c && c->start <= e;
	     c = weave_claim_next(c)) {
		if (c->failure == failure) {
			if (c->start <= s && c->end >= e)
				return true;	/* it is already so */
			*reuse = true;
			*merge = true;
		} else if (c->start < s && c->end > e) {
			*split = c;
		} else if (c->start >= s && c->end <= e) {
			*reuse = true;
		}
	}
	return false;
}

/*
 * Claim step: clear [@s, @e) for a new claim of @failure.  Claims of other
 * failures that overlap the range are trimmed and those inside it dropped;
 * claims of @failure that touch or overlap it are merged: unlinked, with
 * [*@ns, *@ne) widened over them.  Under the graph's lock.
 *
 * Return: A node freed on the way for the new claim, one of @failure's if
 * there is one, or NULL.
 */
static struct weave_claim *weave_claim_clear(struct weave_failures *graph,
					     struct weave_taints *taints,
					     u64 s, u64 e,
					     struct weave_failure *failure,
					     u64 *ns, u64 *ne)
{
	struct weave_claim *c, *next, *spare = NULL;
	bool same = false, mine;

	for (c = weave_claim_from(taints, s); c && c->start <= e; c = next) {
		next = weave_claim_next(c);
		if (c->failure == failure) {
			/* Touches or overlaps: merge. */
			*ns = min(*ns, c->start);
			*ne = max(*ne, c->end);
		} else if (c->end <= s || c->start >= e) {
			continue;	/* touches another failure: stays */
		} else if (c->start < s) {
			c->end = s;
			continue;
		} else if (c->end > e) {
			/* Still before the next claim, by offset and failure. */
			c->start = e;
			continue;
		}
		/* Merged, or inside the range: the node may be reused. */
		mine = c->failure == failure;
		weave_claim_unlink(taints, c);
		/*
		 * A merged claim's reference never is the last (the new claim
		 * holds one), and the buffer keeps the failure.
		 */
		if (mine)
			weave_fg_put_locked(graph, failure);
		else
			weave_claim_drop(graph, taints, c);
		/* Reuse a node of @failure's: its owner's count never grows. */
		if (!spare || (mine && !same)) {
			if (spare)
				weave_node_free(graph, taints, spare);
			spare = c;
			same = mine;
		} else {
			weave_node_free(graph, taints, c);
		}
	}
	return spare;
}

/**
 * weave_fg_taints_claim() - Make a buffer's bytes carry a failure.
 * @graph: The graph.
 * @taints: The buffer's taints.
 * @off: The first byte.
 * @len: How many bytes; 0 claims nothing.
 * @failure: The failure, which the caller holds a reference to.
 * @stash: Where new claim nodes come from, after the buffer's own; may be
 *	NULL if there is none.
 *
 * The bytes carry @failure afterwards, and nothing else: other failures'
 * claims on them are trimmed, split or removed, and a failure whose last
 * claim goes is freed unless someone holds it.  Claims of @failure that
 * touch or overlap the range merge with it.  Takes at most
 * %WEAVE_CLAIM_NODES nodes: two when the range lies strictly inside
 * another failure's claim, which is split around it; one when no claim
 * inside the range or of @failure next to it can be reused; else none.
 *
 * If those nodes are not there, or taking them would pass the buffer's
 * limit (&weave_failures.max_claims) or that of the owner of a failure
 * that would get one (&weave_fowner.max_nodes), the claim is coarsened
 * instead, with no new node (see "DOC: coarsening"): the bytes are
 * tainted all the same, maybe by another failure, marked coarse.  A
 * failure without an owner has no limit of its own.  The owner's limit
 * is checked conservatively: a claim that would add a claim of @failure
 * where the buffer has a claim already, other than with the buffer's own
 * node, is coarsened at the limit.
 *
 * Return: 0, or -EINVAL if the range wraps around; then nothing changed.
 */
int weave_fg_taints_claim(struct weave_failures *graph,
			  struct weave_taints *taints, u64 off, u64 len,
			  struct weave_failure *failure,
			  struct weave_fstash *stash)
{
	struct weave_claim *c, *spare = NULL, *split = NULL;
	bool reuse = false, merge = false, held;
	u64 s = off, e, ns = off, ne;
	unsigned long flags;
	u32 need;

	if (!weave_range(off, len, &e))
		return -EINVAL;
	if (!len)
		return 0;
	ne = e;

	spin_lock_irqsave(&graph->lock, flags);
	if (weave_claim_plan(taints, s, e, failure, &split, &reuse, &merge))
		goto out;
	need = split ? 2 : !reuse;
	if (need > weave_nodes_free(taints, stash) ||
	    weave_buffer_full(graph, taints, need) ||
	    (split && weave_owner_full(split->failure)) ||
	    (!merge && weave_owner_full(failure) &&
	     (need != 1 || taints->node_busy))) {
		weave_taints_absorb(graph, taints, s, e, failure);
		goto out;
	}

	held = weave_taints_holds(taints, failure);
	/* The new claim's reference, first: merging drops the old ones. */
	failure->refs++;
	if (split)
		weave_claim_split(graph, taints, split, s, e, stash);
	else
		spare = weave_claim_clear(graph, taints, s, e, failure, &ns,
					  &ne);
	c = spare ? spare : weave_node_take(graph, taints, stash);
	c->failure = failure;
	c->start = ns;
	c->end = ne;
	weave_claim_link(taints, c);
	if (!held)
		failure->buffers++;
out:
	spin_unlock_irqrestore(&graph->lock, flags);
	return 0;
}

/**
 * weave_fg_taints_release() - Make a buffer's bytes good again.
 * @graph: The graph.
 * @taints: The buffer's taints.
 * @off: The first byte.
 * @len: How many bytes; 0 releases nothing.
 * @stash: Where a new claim node comes from, after the buffer's own; may
 *	be NULL if there is none.
 *
 * For a task that wrote the bytes, or a host write: exactly those bytes
 * carry no failure afterwards.  A failure whose last claim goes is freed
 * unless someone holds it.  Takes at most %WEAVE_RELEASE_NODES node, when
 * the range lies strictly inside a claim, which is split around it.  If
 * that node is not there, or would pass a limit as for
 * weave_fg_taints_claim(), the release is coarsened: the claim stays whole,
 * its failure marked coarse, and the bytes stay tainted.  A buffer with
 * no claim costs a comparison, without the lock.
 *
 * Return: 0, or -EINVAL if the range wraps around; then nothing changed.
 */
int weave_fg_taints_release(struct weave_failures *graph,
			    struct weave_taints *taints, u64 off, u64 len,
			    struct weave_fstash *stash)
{
	struct weave_claim *c, *next;
	u64 s = off, e;
	unsigned long flags;

	if (!weave_range(off, len, &e))
		return -EINVAL;
	if (!len || !READ_ONCE(taints->claims))
		return 0;

	spin_lock_irqsave(&graph->lock, flags);
	c = weave_claim_at(taints, s);
	if (c && c->start < s && c->end > e) {
		if (!weave_nodes_free(taints, stash) ||
		    weave_buffer_full(graph, taints, 1) ||
		    weave_owner_full(c->failure))
			weave_taints_absorb(graph, taints, s, e, NULL);
		else
			weave_claim_split(graph, taints, c, s, e, stash);
		goto out;
	}
	for (; c && c->start < e; c = next) {
		next = weave_claim_next(c);
		if (c->start < s) {
			c->end = s;
		} else if (c->end > e) {
			c->start = e;
		} else {
			weave_claim_unlink(taints, c);
			weave_claim_drop(graph, taints, c);
			weave_node_free(graph, taints, c);
		}
	}
out:
	spin_unlock_irqrestore(&graph->lock, flags);
	return 0;
}

/**
 * weave_fg_taints_any() - Whether any byte of a range carries a failure.
 * @graph: The graph.
 * @taints: The buffer's taints.
 * @off: The first byte.
 * @len: How many bytes.
 *
 * A buffer with no claim costs a comparison, without the lock; see "DOC:
 * failure graph" for when that read is exact.
 *
 * Return: true if a byte of the range is claimed; false if none is, or
 * the range is empty or wraps around.
 */
bool weave_fg_taints_any(struct weave_failures *graph,
			 struct weave_taints *taints, u64 off, u64 len)
{
	struct weave_claim *c;
	unsigned long flags;
	bool any;
	u64 e;

	if (!READ_ONCE(taints->claims) || !len || !weave_range(off, len, &e))
		return false;
	spin_lock_irqsave(&graph->lock, flags);
	c = weave_claim_at(taints, off);
	any = c && c->start < e;
	spin_unlock_irqrestore(&graph->lock, flags);
	return any;
}

/**
 * weave_fg_taints_first() - The failure of the first tainted byte of a range.
 * @graph: The graph.
 * @taints: The buffer's taints.
 * @off: The first byte.
 * @len: How many bytes.
 *
 * What a task that reads the range and is skipped passes on.  As
 * weave_fg_taints_any(), a clean buffer costs a comparison.
 *
 * Return: The failure carried by the lowest claimed byte of the range,
 * with a reference for the caller to put; NULL if no byte is claimed, or
 * the range is empty or wraps around.
 */
struct weave_failure *weave_fg_taints_first(struct weave_failures *graph,
					    struct weave_taints *taints,
					    u64 off, u64 len)
{
	struct weave_failure *f = NULL;
	struct weave_claim *c;
	unsigned long flags;
	u64 e;

	if (!READ_ONCE(taints->claims) || !len || !weave_range(off, len, &e))
		return NULL;
	spin_lock_irqsave(&graph->lock, flags);
	c = weave_claim_at(taints, off);
	if (c && c->start < e) {
		f = c->failure;
		f->refs++;
	}
	spin_unlock_irqrestore(&graph->lock, flags);
	return f;
}

/**
 * weave_fg_taints_list_locked() - The failures a range of a buffer carries,
 * under the graph's lock, which the caller holds.
 * @graph: The graph, locked.
 * @taints: The buffer's taints.
 * @off: The first byte.
 * @len: How many bytes.
 * @out: Filled with up to @max distinct failures, each with a reference
 *	for the caller to put, ordered by the first byte of the range that
 *	carries them.
 * @buffers: NULL, or filled with the &weave_failure.buffers of each entry
 *	of @out as the range was read, which a running job may change the
 *	moment after (so each is at least 1).
 * @max: Entries of @out, and of @buffers.
 *
 * So that the ranges of one report are read at one moment.
 *
 * Return: How many distinct failures the range carries, which may be more
 * than @max: then @out holds the first @max of them.  0 for an empty or
 * wrapping range.
 */
u32 weave_fg_taints_list_locked(struct weave_failures *graph,
				struct weave_taints *taints, u64 off, u64 len,
				struct weave_failure **out, u32 *buffers,
				u32 max)
{
	struct weave_claim *c;
	u32 n = 0;
	u64 e;

	lockdep_assert_held(&graph->lock);
	if (!taints->claims || !len || !weave_range(off, len, &e))
		return 0;
	for (c = weave_claim_at(taints, off); c && c->start < e;
	     c = weave_claim_next(c)) {
		struct rb_node *p = rb_prev(&c->by_fail);

		/*
		 * The failure's previous claim starts before @c; if it ends
		 * after @off, it is in the range and was counted.
		 */
		if (p) {
			struct weave_claim *pc = rb_entry(p, struct weave_claim,
							  by_fail);

			if (pc->failure == c->failure && pc->end > off)
				continue;
		}
		if (n < max) {
			out[n] = c->failure;
			c->failure->refs++;
			if (buffers)
				buffers[n] = c->failure->buffers;
		}
		n++;
	}
	return n;
}

/**
 * weave_fg_taints_list() - The failures a range of a buffer carries.
 * @graph: The graph.
 * @taints: The buffer's taints.
 * @off: The first byte.
 * @len: How many bytes.
 * @out: As for weave_fg_taints_list_locked().
 * @buffers: As for weave_fg_taints_list_locked().
 * @max: Entries of @out, and of @buffers.
 *
 * Return: As weave_fg_taints_list_locked().
 */
u32 weave_fg_taints_list(struct weave_failures *graph,
			 struct weave_taints *taints, u64 off, u64 len,
			 struct weave_failure **out, u32 *buffers, u32 max)
{
	unsigned long flags;
	u32 n;

	if (!READ_ONCE(taints->claims))
		return 0;
	spin_lock_irqsave(&graph->lock, flags);
	n = weave_fg_taints_list_locked(graph, taints, off, len, out,
					buffers, max);
	spin_unlock_irqrestore(&graph->lock, flags);
	return n;
}
