/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the failure graph: failure records and the taints that hold them on
 * a buffer's bytes.
 *
 * Pure logic that also compiles in user space.  See "DOC: failure graph"
 * in weave_failure.c for ownership, locking and teardown.
 */
#ifndef _WEAVE_FAILURE_H_
#define _WEAVE_FAILURE_H_

#include <linux/limits.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/** WEAVE_FAILURE_SKIPS - Skip records a failure keeps, the newest ones. */
#define WEAVE_FAILURE_SKIPS	16
/** WEAVE_CLAIM_NODES - Claim nodes weave_fg_taints_claim() needs at most. */
#define WEAVE_CLAIM_NODES	2
/**
 * WEAVE_RELEASE_NODES - Claim nodes weave_fg_taints_release() needs at
 * most.
 */
#define WEAVE_RELEASE_NODES	1
/** WEAVE_NO_LIMIT - A limit of claims that never binds. */
#define WEAVE_NO_LIMIT		U32_MAX

/**
 * struct weave_failures - The failure graph of one device.
 * @lock: Protects everything below, every record's mutable fields and
 *	every &struct weave_taints and &struct weave_fowner used with this
 *	graph.  A leaf lock, taken with interrupts off.
 * @next_id: The id the next failure gets: starts at 1, only grows.
 * @live: Failure records allocated and not yet freed.
 * @nodes: Claim nodes taken from stashes and not yet freed; the node
 *	embedded in each &struct weave_taints is not counted.
 * @max_claims: The most claims one buffer holds: past it, the buffer's
 *	taints are coarsened (see "DOC: coarsening").  At least 1;
 *	%WEAVE_NO_LIMIT after weave_fg_init().
 * @coarsened: Operations that coarsened, ever.
 *
 * Empty when @live and @nodes are zero, which is what weave_fg_fini()
 * expects: once every buffer is freed and every reference dropped.
 */
struct weave_failures {
	spinlock_t lock;	/* see the kernel-doc above */
	u64 next_id;
	u32 live;
	u32 nodes;
	u32 max_claims;
	u64 coarsened;
};

/**
 * struct weave_ftask - A task, as a failure report names it.
 * @client: The id of the client that enqueued it; never 0, except in a
 *	snapshot, where 0 means that the fields private to that client
 *	(@client, @seqno, @stream, @label) are hidden and read as 0.
 * @seqno: Its &weave_entry.seqno.
 * @stream: The logical stream it was enqueued on.
 * @kernel: The kernel it launches.
 * @label: The label user space gave it at enqueue, 0 for none.
 * @type: What kind of task it is, a value of the caller's that the graph
 *	only keeps (the uAPI's task type).
 */
struct weave_ftask {
	u64 client;
	u64 seqno;
	u32 stream;
	u32 kernel;
	u32 label;
	u32 type;
};

/**
 * struct weave_fowner - What a client may hold of the graph.
 * @records: Its live failure records, by &weave_failure.link.
 * @client_id: The client's id, for the caller; not used by the graph.
 * @live: Entries of @records, the shared one included.
 * @shared: Entries of @records that weave_fg_shared() made: 0 or 1 for a
 *	client.  They count against no limit.
 * @max: The most live records it may have, not counting @shared:
 *	weave_fg_create() fails with -EDQUOT at @max.
 * @nodes: Claim nodes taken from stashes, not the buffers' own, that
 *	carry one of @records.
 * @max_nodes: The most @nodes may reach: a claim that would take one
 *	more for one of @records is coarsened instead.
 *
 * Owned by the client, under the graph's lock.  Its records outlive it,
 * as they live on bytes: weave_fg_owner_detach() lets go of them.
 */
struct weave_fowner {
	struct list_head records;
	u64 client_id;
	u32 live;
	u32 shared;
	u32 max;
	u32 nodes;
	u32 max_nodes;
};

/**
 * struct weave_failure - A failure: bytes that no task could write.
 * @link: In &weave_fowner.records while it has an owner; in
 *	&weave_fstash.records while it waits in a stash.
 * @owner: The client it counts against, NULL once detached or if none.
 * @shared: The &struct weave_fshared it is the failure of, or NULL: it
 *	was made by weave_fg_shared(), and its record goes back there when
 *	it is freed.  NULL once weave_fg_shared_fini() let go of it.
 * @id: Its id, never 0 and never reused within the graph; constant, so it
 *	may be read without the lock while a reference is held.
 * @err: The root errno, negative.
 * @refs: Claims that carry it, plus references held by callers.  It is
 *	freed when this drops to zero.
 * @buffers: The &struct weave_taints holding at least one of its claims.
 * @skipped: Skip records ever added; the newest %WEAVE_FAILURE_SKIPS are
 *	in @skips, the one added last at (@skipped - 1) modulo the size.
 * @cause: Why it began, a value of the caller's that the graph only
 *	keeps: see weave_fg_set_cause().  0 when created.
 * @coarse: Whether a claim of it was coarsened: it may be carried by
 *	bytes that it did not fail (see "DOC: coarsening").  Never cleared.
 * @root: The task that failed.
 * @skips: A ring of the newest skip records: tasks that read its bytes and
 *	were skipped, passing it on to what they should have written.
 *
 * All fields but @id are under &weave_failures.lock.
 */
struct weave_failure {
	struct list_head link;
	struct weave_fowner *owner;
	struct weave_fshared *shared;
	u64 id;
	int err;
	u32 refs;
	u32 buffers;
	u64 skipped;
	u32 cause;
	bool coarse;
	struct weave_ftask root;
	struct weave_ftask skips[WEAVE_FAILURE_SKIPS];
};

/**
 * struct weave_fsnap - A copy of a failure, for a report.
 * @id: &weave_failure.id.
 * @err: &weave_failure.err.
 * @buffers: &weave_failure.buffers when the copy was taken.
 * @nskips: Used entries of @skips.
 * @skips_dropped: Skip records older than @skips, no longer kept.
 * @cause: &weave_failure.cause.
 * @coarse: &weave_failure.coarse.
 * @root: The root task.
 * @skips: The newest skip records, oldest first; the entries after
 *	@nskips are zero.
 *
 * Tasks of clients other than the viewer have their private fields
 * hidden: see &weave_ftask.client.
 */
struct weave_fsnap {
	u64 id;
	int err;
	u32 buffers;
	u32 nskips;
	u64 skips_dropped;
	u32 cause;
	bool coarse;
	struct weave_ftask root;
	struct weave_ftask skips[WEAVE_FAILURE_SKIPS];
};

/**
 * struct weave_claim - One range of a buffer's bytes that carries a failure.
 * @by_off: In &weave_taints.by_off, keyed by @start.
 * @by_fail: In &weave_taints.by_fail, keyed by (&weave_failure.id, @start).
 * @stash: In &weave_fstash.nodes, while the node waits in a stash.
 * @failure: The failure; the claim holds one of its references.
 * @start: The first byte.
 * @end: One past the last byte; above @start.
 */
struct weave_claim {
	struct rb_node by_off;
	union {
		struct rb_node by_fail;
		struct list_head stash;
	};
	struct weave_failure *failure;
	u64 start;
	u64 end;
};

/**
 * struct weave_taints - The claims on one buffer's bytes.
 * @by_off: Every claim, by offset.  Claims never overlap, and two claims
 *	of one failure never touch (they are merged).
 * @by_fail: Every claim, by failure then offset: which failures the
 *	buffer holds, each found in O(log n).
 * @node: A claim node of the buffer's own, used before any stash's: one
 *	failure over one range costs no allocation.
 * @claims: Entries of @by_off; written under the graph's lock, read
 *	without it for the clean buffer's early out.
 * @node_busy: Whether @node is in the trees.
 *
 * Embedded in each buffer; under &weave_failures.lock.
 */
struct weave_taints {
	struct rb_root by_off;
	struct rb_root by_fail;
	struct weave_claim node;
	u32 claims;
	bool node_busy;
};

/**
 * struct weave_fstash - Memory set aside for the graph by one caller.
 * @records: Unused failure records, by &weave_failure.link.
 * @nodes: Unused claim nodes, by &weave_claim.stash.
 * @nrecords: Entries of @records.
 * @nnodes: Entries of @nodes.
 *
 * Filled where sleeping is allowed, weave_fg_stash_fill(), and used where
 * it is not.  Either owned by one caller at a time, which serialises its
 * use, or shared: then it is filled with weave_fg_stash_refill() and used
 * only by the graph's operations, under the graph's lock.
 */
struct weave_fstash {
	struct list_head records;
	struct list_head nodes;
	u32 nrecords;
	u32 nnodes;
};

/**
 * struct weave_fshared - The failure that many tasks share, and its record.
 * @failure: The failure, NULL while there is none; it holds no reference:
 *	the failure lives as long as bytes carry it or callers hold it, and
 *	this is cleared when it is freed.
 * @stash: Its record while @failure is NULL: taken when the failure is
 *	made, given back when it is freed.  Filled by its owner with
 *	weave_fg_stash_refill(), used by the graph under its lock.
 *
 * Once its stash holds one record, there is always a record for the
 * failure: in the stash, or the failure itself.  Under the graph's lock.
 */
struct weave_fshared {
	struct weave_failure *failure;
	struct weave_fstash stash;
};

void weave_fg_init(struct weave_failures *graph);
void weave_fg_fini(struct weave_failures *graph);

void weave_fg_stash_init(struct weave_fstash *stash);
int weave_fg_stash_fill(struct weave_fstash *stash, u32 nrecords, u32 nnodes,
			gfp_t gfp);
int weave_fg_stash_refill(struct weave_failures *graph,
			  struct weave_fstash *stash, u32 nrecords, u32 nnodes,
			  gfp_t gfp);
void weave_fg_stash_trim(struct weave_failures *graph,
			 struct weave_fstash *stash, u32 nrecords, u32 nnodes);
void weave_fg_stash_drain(struct weave_fstash *stash);

void weave_fg_owner_init(struct weave_fowner *owner, u64 client_id, u32 max,
			 u32 max_nodes);
void weave_fg_owner_detach(struct weave_failures *graph,
			   struct weave_fowner *owner);

struct weave_failure *weave_fg_create(struct weave_failures *graph,
				      struct weave_fowner *owner, int err,
				      const struct weave_ftask *root,
				      struct weave_fstash *stash);
void weave_fg_shared_init(struct weave_fshared *shared);
int weave_fg_shared_reserve(struct weave_failures *graph,
			    struct weave_fshared *shared, gfp_t gfp);
void weave_fg_shared_fini(struct weave_failures *graph,
			  struct weave_fshared *shared);
struct weave_failure *weave_fg_shared(struct weave_failures *graph,
				      struct weave_fshared *shared,
				      struct weave_fowner *owner, int err,
				      const struct weave_ftask *root,
				      u32 cause);
void weave_fg_skip(struct weave_failures *graph,
		   struct weave_failure *failure,
		   const struct weave_ftask *skip);
void weave_fg_set_cause(struct weave_failures *graph,
			struct weave_failure *failure, u32 cause);
void weave_fg_get(struct weave_failures *graph,
		  struct weave_failure *failure);
void weave_fg_put(struct weave_failures *graph,
		  struct weave_failure *failure);
void weave_fg_put_locked(struct weave_failures *graph,
			 struct weave_failure *failure);
void weave_fg_snapshot(struct weave_failures *graph,
		       struct weave_failure *failure,
		       struct weave_fsnap *out, u64 viewer);

#endif /* _WEAVE_FAILURE_H_ */
