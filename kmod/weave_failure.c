// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the failure graph: failure records and the taints that hold them on
 * a buffer's bytes.
 *
 * This file has the graph, its records, stashes and owners; weave_taints.c
 * has the claims on a buffer's bytes.
 */

#include <linux/bug.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "weave_failure.h"

/**
 * DOC: failure graph
 *
 * The kernel form of the seed's ErrorGraph.  A failure means "these bytes
 * have no valid writer".  A &struct weave_failure records why (the root
 * errno and task) and which tasks were skipped because they read its bytes;
 * &struct weave_taints, embedded in each buffer, records which of the
 * buffer's bytes carry which failure, as non-overlapping claims on byte
 * ranges.  A failure's id is never 0 and never reused within its graph, so
 * a report naming it never names another.
 *
 * Ownership.  A failure is counted: each claim that carries it holds one
 * reference, and so does each caller between weave_fg_create(),
 * weave_fg_get(), weave_fg_taints_first() or weave_fg_taints_list() and its
 * weave_fg_put().  The last put, or the release of its last claim,
 * frees it at once.  So the graph holds nothing that no byte carries and
 * no caller holds: it leaks if and only if buffers (or references) leak.
 * A failure created and never claimed is freed by the creator's put.
 * Owners only bound how many live failures a client has; a failure
 * outlives its owner (weave_fg_owner_detach()), since it lives on bytes,
 * and those bytes may be shared with other processes.
 *
 * Locking.  One spinlock per graph, &weave_failures.lock, protects the
 * records, the owners' counts and lists, and every &struct weave_taints
 * used with the graph.  It is taken with interrupts off and is a leaf: no
 * other lock is taken under it, so it may be taken under any lock of the
 * driver, fence locks included, and from the workers that run jobs, which
 * are fence-signalling paths.  Nothing under it sleeps or allocates.  The
 * only lockless access is the read of &weave_taints.claims by the clean
 * buffer's early out (weave_fg_taints_any() and others): it is exact for a
 * caller ordered after the last change of the buffer's taints (by this
 * lock, a fence, or running on the same worker), as the worker that runs a
 * job is ordered after the jobs that wrote its buffers.
 *
 * Memory.  Whatever may need memory takes a &struct weave_fstash, filled
 * beforehand where sleeping is allowed (an ioctl, with
 * %GFP_KERNEL_ACCOUNT, so that it is charged to the client).  Nothing in
 * the graph allocates.  weave_fg_create() and weave_fg_shared()
 * take one record from the stash, and fail with -ENOMEM, changing nothing,
 * if it has none.  A claim or a release needs claim nodes: at most
 * %WEAVE_CLAIM_NODES for weave_fg_taints_claim() (a claim inside another
 * failure's claim splits it in two around the new one) and
 * %WEAVE_RELEASE_NODES for weave_fg_taints_release() (a release inside a
 * claim splits it).  A buffer's own node (&weave_taints.node) is used
 * before a stash's, so that one failure over one range needs no stash at
 * all.  When the nodes are not there, or taking them would pass a limit,
 * the claim or release is coarsened instead (see "DOC: coarsening"): it
 * never fails for want of memory.  Freed nodes and records go back to the
 * slab allocator, not to a stash, but for the record of a shared failure
 * (see below).
 *
 * Limits.  Whatever the pattern of ranges, a buffer holds at most
 * &weave_failures.max_claims claims, so at most that many nodes, one of
 * them its own; a client's failures are carried by at most
 * &weave_fowner.max_nodes nodes taken from stashes, and it has at most
 * &weave_fowner.max live records, plus the one weave_fg_shared()
 * makes, which counts against no limit: a client that has it may still
 * make &weave_fowner.max records of its own once its others are gone.
 * Records of a closed client (after weave_fg_owner_detach()) count
 * against no one; each is carried by a claim or held by a caller, so the
 * buffers' limit bounds them.
 *
 * The shared failure.  weave_fg_shared() makes it from the record of its
 * &struct weave_fshared, which holds no reference to it: like any other
 * failure it is freed with its last claim and reference, and its record
 * then goes back to that stash, for the next one, which gets a new id.
 * So it never outlives the bytes that carry it, and its owner never lacks
 * the record to make it again.
 *
 * Teardown.  Freeing a buffer calls weave_fg_taints_fini(), which releases its
 * claims; closing a client calls weave_fg_owner_detach() after its last
 * create; the device calls weave_fg_fini() last, once every buffer
 * is gone, and it warns if any record or claim node is left.
 */

/**
 * DOC: coarsening
 *
 * What a buffer's taints become when an operation on them would need a
 * claim node that is not there (the buffer's own is taken and the stash
 * is empty), or that would pass a limit: the buffer's
 * &weave_failures.max_claims, or &weave_fowner.max_nodes of the owner of
 * the failure that would get the node.  The operation then makes the
 * taints coarser, with no new node, by these rules:
 *
 * - Tainted bytes stay tainted: a byte that failed is never reported good.
 * - A claim whose range lies inside a claim of another failure leaves that
 *   claim as it is: its failure now also stands for the new one.
 * - Any other claim is absorbed by the buffer's claim nearest to it (the
 *   one before or the one after, whichever leaves the smaller gap; the
 *   claimed failure's on a tie): that claim grows to cover the range and
 *   the gap between, taking those bytes from other claims, and merges
 *   with claims of its failure that it then touches.  So the bytes of the
 *   gap, which may never have failed, become tainted, and the range's
 *   bytes carry the neighbour's failure instead of the claimed one.
 * - A release that would split a claim leaves it whole: bytes that were
 *   just written stay tainted.
 *
 * The failure of every claim that coarsening leaves covering bytes it did
 * not fail is marked (&weave_failure.coarse), for good, and reports say
 * so: a report may grow coarser, never wrong.  Coarsening never takes a
 * node and never adds a claim, so no limit is passed; operations that
 * need no node stay exact, on a coarsened buffer as on any other.
 *
 * A client's limit counts the nodes that carry its failures, wherever its
 * failures travel: another client's task that reads its bytes and is
 * skipped passes its failure on, and may so use up the limit, which then
 * makes this client's later claims coarser, never wrong.
 */

/**
 * weave_fg_init() - Make an empty failure graph.
 * @graph: The graph.
 */
void weave_fg_init(struct weave_failures *graph)
{
	spin_lock_init(&graph->lock);
	graph->next_id = 1;
	graph->live = 0;
	graph->nodes = 0;
	graph->max_claims = WEAVE_NO_LIMIT;
	graph->coarsened = 0;
}

/**
 * weave_fg_fini() - Tear down a failure graph.
 * @graph: The graph, with no buffer (&struct weave_taints) and no
 *	reference left.
 *
 * Warns if a record or a claim node is still live: a buffer or a
 * reference leaked.
 */
void weave_fg_fini(struct weave_failures *graph)
{
	WARN_ON(graph->live || graph->nodes);
}

/**
 * weave_fg_stash_init() - Make an empty stash.
 * @stash: The stash.
 */
void weave_fg_stash_init(struct weave_fstash *stash)
{
	INIT_LIST_HEAD(&stash->records);
	INIT_LIST_HEAD(&stash->nodes);
	stash->nrecords = 0;
	stash->nnodes = 0;
}

/**
 * weave_fg_stash_fill() - Set memory aside for the graph.
 * @stash: The stash.
 * @nrecords: How many failure records it must hold.
 * @nnodes: How many claim nodes it must hold.
 * @gfp: How to allocate what is missing, e.g. %GFP_KERNEL_ACCOUNT.
 *
 * Allocates until the stash holds at least @nrecords records and @nnodes
 * claim nodes; what it already holds counts.  Call it where @gfp may
 * sleep, never under &weave_failures.lock.
 *
 * Return: 0, or -ENOMEM: then the stash holds what could be allocated, and
 * is still drained by weave_fg_stash_drain().
 */
int weave_fg_stash_fill(struct weave_fstash *stash, u32 nrecords, u32 nnodes,
			gfp_t gfp)
{
	while (stash->nrecords < nrecords) {
		struct weave_failure *f = kmalloc(sizeof(*f), gfp);

		if (!f)
			return -ENOMEM;
		list_add(&f->link, &stash->records);
		stash->nrecords++;
	}
	while (stash->nnodes < nnodes) {
		struct weave_claim *c = kmalloc(sizeof(*c), gfp);

		if (!c)
			return -ENOMEM;
		list_add(&c->stash, &stash->nodes);
		stash->nnodes++;
	}
	return 0;
}

/**
 * weave_fg_stash_refill() - Set memory aside in a stash that the graph uses.
 * @graph: The graph, under whose lock @stash is used.
 * @stash: The stash; its other callers only take from it, and only under
 *	the graph's lock.
 * @nrecords: How many failure records it must hold.
 * @nnodes: How many claim nodes it must hold.
 * @gfp: How to allocate what is missing, e.g. %GFP_KERNEL_ACCOUNT.
 *
 * As weave_fg_stash_fill(), for a stash that the graph's operations may be
 * taking from meanwhile: it allocates without the lock and adds what it
 * allocated under it.  One caller at a time.
 *
 * Return: 0, or -ENOMEM: then the stash holds what could be allocated.
 */
int weave_fg_stash_refill(struct weave_failures *graph,
			  struct weave_fstash *stash, u32 nrecords, u32 nnodes,
			  gfp_t gfp)
{
	struct weave_fstash add;
	unsigned long flags;
	u32 have_r, have_n;
	int ret;

	spin_lock_irqsave(&graph->lock, flags);
	have_r = stash->nrecords;
	have_n = stash->nnodes;
	spin_unlock_irqrestore(&graph->lock, flags);
	if (have_r >= nrecords && have_n >= nnodes)
		return 0;

	weave_fg_stash_init(&add);
	ret = weave_fg_stash_fill(&add,
				  nrecords > have_r ? nrecords - have_r : 0,
				  nnodes > have_n ? nnodes - have_n : 0, gfp);
	spin_lock_irqsave(&graph->lock, flags);
	list_splice(&add.records, &stash->records);
	list_splice(&add.nodes, &stash->nodes);
	stash->nrecords += add.nrecords;
	stash->nnodes += add.nnodes;
	spin_unlock_irqrestore(&graph->lock, flags);
	return ret;
}

/**
 * weave_fg_stash_trim() - Give back what a shared stash holds past a size.
 * @graph: The graph, under whose lock @stash is used.
 * @stash: The stash, as for weave_fg_stash_refill().
 * @nrecords: How many failure records it may keep.
 * @nnodes: How many claim nodes it may keep.
 *
 * Frees the rest, outside the lock.
 */
void weave_fg_stash_trim(struct weave_failures *graph,
			 struct weave_fstash *stash, u32 nrecords, u32 nnodes)
{
	struct weave_fstash out;
	unsigned long flags;

	weave_fg_stash_init(&out);
	spin_lock_irqsave(&graph->lock, flags);
	while (stash->nrecords > nrecords) {
		list_move(stash->records.next, &out.records);
		stash->nrecords--;
	}
	while (stash->nnodes > nnodes) {
		list_move(stash->nodes.next, &out.nodes);
		stash->nnodes--;
	}
	spin_unlock_irqrestore(&graph->lock, flags);
	weave_fg_stash_drain(&out);
}

/**
 * weave_fg_stash_drain() - Free what a stash holds.
 * @stash: The stash; empty afterwards, and may be filled again.
 */
void weave_fg_stash_drain(struct weave_fstash *stash)
{
	struct weave_failure *f, *fn;
	struct weave_claim *c, *cn;

	list_for_each_entry_safe(f, fn, &stash->records, link)
		kfree(f);
	list_for_each_entry_safe(c, cn, &stash->nodes, stash)
		kfree(c);
	weave_fg_stash_init(stash);
}

/**
 * weave_fg_owner_init() - Make an owner with no failure.
 * @owner: The owner.
 * @client_id: The client's id, kept for the caller.
 * @max: The most live failures it may have.
 * @max_nodes: The most claim nodes from stashes its failures may have,
 *	or %WEAVE_NO_LIMIT.
 */
void weave_fg_owner_init(struct weave_fowner *owner, u64 client_id, u32 max,
			 u32 max_nodes)
{
	INIT_LIST_HEAD(&owner->records);
	owner->client_id = client_id;
	owner->live = 0;
	owner->shared = 0;
	owner->max = max;
	owner->nodes = 0;
	owner->max_nodes = max_nodes;
}

/**
 * weave_fg_owner_detach() - Let go of an owner's failures.
 * @graph: The graph.
 * @owner: The owner, not used by weave_fg_create() any more.
 *
 * Its failures stay, as long as bytes carry them or references hold them,
 * with no owner.  @owner may be freed afterwards.
 */
void weave_fg_owner_detach(struct weave_failures *graph,
			   struct weave_fowner *owner)
{
	struct weave_failure *f, *n;
	unsigned long flags;

	spin_lock_irqsave(&graph->lock, flags);
	list_for_each_entry_safe(f, n, &owner->records, link) {
		f->owner = NULL;
		list_del_init(&f->link);
	}
	owner->live = 0;
	owner->shared = 0;
	owner->nodes = 0;
	spin_unlock_irqrestore(&graph->lock, flags);
}

/* Make a failure from a record of @stash, under the lock; see below. */
static struct weave_failure *weave_failure_new(struct weave_failures *graph,
					       struct weave_fowner *owner,
					       int err,
					       const struct weave_ftask *root,
					       struct weave_fstash *stash)
{
	struct weave_failure *f;

	lockdep_assert_held(&graph->lock);
	if (!stash || !stash->nrecords)
		return ERR_PTR(-ENOMEM);
	f = list_first_entry(&stash->records, struct weave_failure, link);
	list_del(&f->link);
	stash->nrecords--;

	f->id = graph->next_id++;
	f->err = err;
	f->refs = 1;
	f->buffers = 0;
	f->skipped = 0;
	f->cause = 0;
	f->coarse = false;
	f->root = *root;
	f->owner = owner;
	f->shared = NULL;
	if (owner) {
		list_add_tail(&f->link, &owner->records);
		owner->live++;
	} else {
		INIT_LIST_HEAD(&f->link);
	}
	graph->live++;
	return f;
}

/**
 * weave_fg_create() - Record a new failure.
 * @graph: The graph.
 * @owner: The client it counts against, or NULL for none.
 * @err: The root errno, negative.
 * @root: The task that failed, copied.
 * @stash: Where the record comes from.
 *
 * The new failure gets the next id.  The caller holds the one reference
 * and drops it with weave_fg_put() once it has claimed the failed
 * task's write set with weave_fg_taints_claim(); a failure that claims
 * nothing is freed then.
 *
 * Return: The failure, or an ERR_PTR(): -EINVAL if @err is not an errno,
 * -EDQUOT if @owner has &weave_fowner.max live failures, -ENOMEM if
 * @stash has no record.  On error nothing changed.
 */
struct weave_failure *weave_fg_create(struct weave_failures *graph,
				      struct weave_fowner *owner, int err,
				      const struct weave_ftask *root,
				      struct weave_fstash *stash)
{
	struct weave_failure *f;
	unsigned long flags;

	if (err >= 0 || err < -MAX_ERRNO)
		return ERR_PTR(-EINVAL);

	spin_lock_irqsave(&graph->lock, flags);
	if (owner && owner->live - owner->shared >= owner->max)
		f = ERR_PTR(-EDQUOT);
	else
		f = weave_failure_new(graph, owner, err, root, stash);
	spin_unlock_irqrestore(&graph->lock, flags);
	return f;
}

/**
 * weave_fg_shared_init() - Make a shared failure's place, with no record.
 * @shared: The place.
 */
void weave_fg_shared_init(struct weave_fshared *shared)
{
	shared->failure = NULL;
	weave_fg_stash_init(&shared->stash);
}

/**
 * weave_fg_shared_reserve() - Set the shared failure's record aside.
 * @graph: The graph.
 * @shared: The place; one caller at a time.
 * @gfp: How to allocate it, e.g. %GFP_KERNEL_ACCOUNT.
 *
 * Makes sure that @shared has a record: in its stash, or as its live
 * failure, whose record comes back when it is freed.  Sleeps as @gfp
 * allows, never under the graph's lock.
 *
 * Return: 0, or -ENOMEM.
 */
int weave_fg_shared_reserve(struct weave_failures *graph,
			    struct weave_fshared *shared, gfp_t gfp)
{
	unsigned long flags;
	bool made;

	spin_lock_irqsave(&graph->lock, flags);
	made = shared->failure || shared->stash.nrecords;
	spin_unlock_irqrestore(&graph->lock, flags);
	if (made)
		return 0;
	return weave_fg_stash_refill(graph, &shared->stash, 1, 0, gfp);
}

/**
 * weave_fg_shared_fini() - Let go of a shared failure's place.
 * @graph: The graph.
 * @shared: The place, not used by weave_fg_shared() any more.
 *
 * Its failure, if it has one, stays as long as bytes carry it or
 * references hold it, and is then freed as any other; its stash is freed
 * now.  @shared may be freed afterwards.
 */
void weave_fg_shared_fini(struct weave_failures *graph,
			  struct weave_fshared *shared)
{
	unsigned long flags;

	spin_lock_irqsave(&graph->lock, flags);
	if (shared->failure)
		shared->failure->shared = NULL;
	shared->failure = NULL;
	spin_unlock_irqrestore(&graph->lock, flags);
	weave_fg_stash_drain(&shared->stash);
}

/**
 * weave_fg_shared() - The failure many tasks share, made once.
 * @graph: The graph.
 * @shared: Its place.
 * @owner: The client it counts against, or NULL: it counts in
 *	&weave_fowner.live, not against &weave_fowner.max, which it may
 *	thus pass by one.
 * @err: The root errno, negative, if it is made now.
 * @root: The task that failed, copied if it is made now.
 * @cause: The cause (see weave_fg_set_cause()) if it is made now.
 *
 * For the failure a client's tasks share once it has &weave_fowner.max
 * failures: the first caller makes it, from the record of @shared's
 * stash, and the others get it, as long as it lives.  Once no byte
 * carries it and no caller holds it, it is freed, its record goes back to
 * @shared's stash, and the next caller makes a new one.
 *
 * Return: The failure, with a reference for the caller; or an ERR_PTR():
 * -EINVAL if @err is not an errno, -ENOMEM if it had to be made and
 * @shared has no record (weave_fg_shared_reserve() was not called).  On
 * error nothing changed.
 */
struct weave_failure *weave_fg_shared(struct weave_failures *graph,
				      struct weave_fshared *shared,
				      struct weave_fowner *owner, int err,
				      const struct weave_ftask *root,
				      u32 cause)
{
	struct weave_failure *f;
	unsigned long flags;

	if (err >= 0 || err < -MAX_ERRNO)
		return ERR_PTR(-EINVAL);

	spin_lock_irqsave(&graph->lock, flags);
	f = shared->failure;
	if (f) {
		f->refs++;
		goto out;
	}
	f = weave_failure_new(graph, owner, err, root, &shared->stash);
	if (IS_ERR(f))
		goto out;
	f->cause = cause;
	f->shared = shared;
	shared->failure = f;
	if (owner)
		owner->shared++;
out:
	spin_unlock_irqrestore(&graph->lock, flags);
	return f;
}

/**
 * weave_fg_skip() - Add a skip record to a failure.
 * @graph: The graph.
 * @failure: The failure, which the caller holds a reference to.
 * @skip: The task that was skipped because it read bytes of @failure.
 *
 * The newest %WEAVE_FAILURE_SKIPS records are kept; an older one is
 * dropped and counted.  Needs no memory.
 */
void weave_fg_skip(struct weave_failures *graph,
		   struct weave_failure *failure,
		   const struct weave_ftask *skip)
{
	unsigned long flags;

	spin_lock_irqsave(&graph->lock, flags);
	failure->skips[failure->skipped % WEAVE_FAILURE_SKIPS] = *skip;
	failure->skipped++;
	spin_unlock_irqrestore(&graph->lock, flags);
}

/**
 * weave_fg_get() - Take a reference to a failure.
 * @graph: The graph.
 * @failure: The failure, which the caller holds a reference to.
 */
void weave_fg_get(struct weave_failures *graph,
		  struct weave_failure *failure)
{
	unsigned long flags;

	spin_lock_irqsave(&graph->lock, flags);
	WARN_ON_ONCE(!failure->refs);
	failure->refs++;
	spin_unlock_irqrestore(&graph->lock, flags);
}

/**
 * weave_fg_put_locked() - Drop a reference to a failure, under the lock.
 * @graph: The graph, whose lock the caller holds.
 * @failure: The failure; freed if that was its last reference.
 *
 * For weave_taints.c and this file: callers outside the graph use
 * weave_fg_put().
 */
void weave_fg_put_locked(struct weave_failures *graph,
			 struct weave_failure *failure)
{
	lockdep_assert_held(&graph->lock);
	if (WARN_ON_ONCE(!failure->refs))
		return;
	if (--failure->refs)
		return;
	/* No claim left, so no buffer holds it. */
	WARN_ON_ONCE(failure->buffers);
	if (failure->owner) {
		failure->owner->live--;
		if (failure->shared)
			failure->owner->shared--;
		list_del(&failure->link);
	}
	graph->live--;
	if (failure->shared) {
		/* Its record waits for the next shared failure. */
		failure->shared->failure = NULL;
		list_add(&failure->link, &failure->shared->stash.records);
		failure->shared->stash.nrecords++;
		return;
	}
	kfree(failure);
}

/**
 * weave_fg_put() - Drop a reference to a failure.
 * @graph: The graph.
 * @failure: The failure; freed if that was its last reference, i.e. no
 *	byte carries it and no one else holds it.
 */
void weave_fg_put(struct weave_failures *graph,
		  struct weave_failure *failure)
{
	unsigned long flags;

	spin_lock_irqsave(&graph->lock, flags);
	weave_fg_put_locked(graph, failure);
	spin_unlock_irqrestore(&graph->lock, flags);
}

/* Copy @src, hiding what is private to its client from anyone else. */
static void weave_ftask_show(struct weave_ftask *dst,
			     const struct weave_ftask *src, u64 viewer)
{
	if (viewer && src->client == viewer) {
		*dst = *src;
		return;
	}
	*dst = (struct weave_ftask) {
		.kernel = src->kernel,
		.type = src->type,
	};
}

/**
 * weave_fg_set_cause() - Say why a failure began.
 * @graph: The graph.
 * @failure: The failure, which the caller holds a reference to.
 * @cause: The caller's value, which snapshots report.
 */
void weave_fg_set_cause(struct weave_failures *graph,
			struct weave_failure *failure, u32 cause)
{
	unsigned long flags;

	spin_lock_irqsave(&graph->lock, flags);
	failure->cause = cause;
	spin_unlock_irqrestore(&graph->lock, flags);
}

/**
 * weave_fg_snapshot() - Copy a failure for a report.
 * @graph: The graph.
 * @failure: The failure, which the caller holds a reference to.
 * @out: The copy, consistent as of one moment.
 * @viewer: The id of the client the report is for, 0 for none.
 *
 * The cross-process rule: anyone who can see a buffer may learn which
 * failures it carries, their errno and the kinds and kernels of their
 * tasks; a task's client, stream, sequence number and label are shown
 * only to that task's own client.  So each task of @out, the root and every skip
 * record, shows them only if its client is @viewer; otherwise they read
 * as 0 (see &weave_ftask.client).
 */
void weave_fg_snapshot(struct weave_failures *graph,
		       struct weave_failure *failure,
		       struct weave_fsnap *out, u64 viewer)
{
	unsigned long flags;
	u64 oldest;
	u32 i, n;

	memset(out, 0, sizeof(*out));
	spin_lock_irqsave(&graph->lock, flags);
	n = min_t(u64, failure->skipped, WEAVE_FAILURE_SKIPS);
	oldest = failure->skipped - n;
	out->id = failure->id;
	out->err = failure->err;
	out->buffers = failure->buffers;
	out->nskips = n;
	out->skips_dropped = oldest;
	out->cause = failure->cause;
	out->coarse = failure->coarse;
	weave_ftask_show(&out->root, &failure->root, viewer);
	for (i = 0; i < n; i++)
		weave_ftask_show(&out->skips[i],
				 &failure->skips[(oldest + i) %
						 WEAVE_FAILURE_SKIPS],
				 viewer);
	spin_unlock_irqrestore(&graph->lock, flags);
}
