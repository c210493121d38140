/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the scheduler core.
 *
 * Logical streams folded onto a bounded pool of slots, per-slot task rings,
 * cross-slot ordering of shared buffers and the interleave and sequential
 * execution paths.  Pure logic: everything device-specific goes through
 * &struct weave_backend_ops.  The design notes are the DOC sections below.
 */
#ifndef _WEAVE_CORE_H_
#define _WEAVE_CORE_H_

#include <linux/bits.h>
#include <linux/types.h>

#include "weave_task.h"

struct mutex;
struct weave_bstream;
struct weave_failures;
struct weave_core;
struct weave_slot;

/**
 * DOC: Locking
 *
 * The core has no lock of its own.  Every weave_core_*() function but
 * weave_core_init() must be called with &weave_core.lock held, the
 * client's mutex, and checks it with lockdep_assert_held().  Backend ops
 * and the track_idle callback run under that lock and must not call back
 * into the core.
 */

/**
 * DOC: Streams and slots
 *
 * The caller names logical streams with u32 handles: the ioctl layer
 * allocates them per client, the core only maps them.  A stream folds onto
 * slot weave_core_slot(), handle % max_streams; folded streams share the
 * slot's FIFO ring.  A slot's ring and its backend stream
 * (ops->create_stream) are made on the first task registered on it (or
 * weave_core_reserve()); a flush of a slot that never had a task does
 * nothing and creates nothing.  Backend streams live until
 * weave_core_fini().
 *
 * &weave_entry.seqno is per client.  The counters the uAPI reports
 * (enqueued, executed, completed) are per logical stream and kept by the
 * caller and the backend, not by the core.
 */

/**
 * DOC: Buffer tracking
 *
 * Each binding points at the caller's &struct weave_track for its buffer.
 * Invariant: within one client, every queued task that binds a buffer sits
 * on one slot, because registering on another slot first executes that
 * slot (align).  So (slot, queued) per buffer is enough and align costs
 * O(bindings).  Push adds one to queued per binding (a task binding a
 * buffer twice adds two); a task leaving the ring, executed or cancelled,
 * takes them off again.
 *
 * When queued drops to zero, track_idle is called: every task that bound
 * the buffer has been handed to the backend or cancelled, and the caller
 * may free the track.  It must not free a track bound by the task that
 * weave_core_register_entry() is registering, as align may idle it
 * mid-call.
 */

/**
 * DOC: Task ownership
 *
 * A task owns its host-write staging (&weave_entry_write.data of its
 * entry).  The caller owns it until weave_core_register_entry() returns
 * 0; then the core owns it, moved into the ring with the entry.  An
 * enqueue that succeeds hands it to the backend, and so
 * does a fail; the backend frees it, as it made it.  A task whose enqueue
 * failed is still the core's.  A task cancelled by weave_core_fini() goes
 * to the backend's drop.  Buffer references behind
 * &weave_binding.bo are not the core's business: the backend takes its own
 * in enqueue, the caller's may hang off the track.
 */

/**
 * DOC: Errors
 *
 * weave_core_register_entry() fails only when it rejects the entry:
 * -EINVAL for a malformed one, or the error of ring allocation or
 * create_stream.  The entry is then untouched and still the caller's.
 *
 * Once accepted, a task leaves the ring through enqueue, fail or, at
 * teardown, cancellation.  A backend refuses a task by failing its enqueue
 * (the soft engine does when it has no memory for it); the task is then
 * untouched.  What happens next depends on who asked for the execution:
 *
 * - weave_core_execute(), weave_core_flush(), weave_core_flush_all()
 *   and weave_core_stream_destroy() keep it: the execution stops there,
 *   the refused task and every task it had not handed over yet stay
 *   queued in their slots, in order, the backend streams the execution
 *   used are still flushed, and the call reports the error.  Calling again
 *   hands them over.
 * - The executions inside weave_core_register_entry() (align, threshold)
 *   cannot keep it, as the new task must find its buffers' queued tasks on
 *   its own slot and room in the ring: the core hands the task to fail,
 *   with the backend stream it was refused on, and goes on with the rest.
 *   The backend disposes of it visibly and in its place in the order, as
 *   if enqueue had taken it (the soft engine makes it a task that does
 *   not run and taints what it should have written).
 *
 * A failed flush is the backend's to handle (the soft engine keeps the
 * submission for the next flush); the core goes on and does not report
 * it.
 *
 * The core validates only what guards its own memory and invariants:
 * binding count, uniform length, access flags, non-NULL tracks and the
 * shape of a host write (weave_core_register_entry()).  The ioctl layer
 * validates user input: handles, ranges against buffer sizes, copies.
 */

/**
 * DOC: Isolation
 *
 * An isolated slot's tasks run only on its own backend stream, and no other
 * slot's tasks are placed there: every execution whose set holds an
 * isolated slot takes the sequential path, whatever the strategy.  A slot
 * is isolated while its holders count is not zero, or while the backend's
 * requires_isolation op says so of its backend stream.
 *
 * weave_core_isolate_get() and weave_core_isolate_put() take and drop one
 * hold.  The core only counts: which logical stream holds what is the
 * caller's (the ioctl layer lets each stream hold it once through
 * %DRM_IOCTL_WEAVE_STREAM_ISOLATE, and a graph capture will hold it for
 * its window), so holders of streams folded onto one slot add up, and
 * isolation ends when the last one leaves.
 *
 * Both execute the slot first, as the seed drains a stream when isolation
 * begins and ends: what was queued before a get runs as it would have
 * without it, outside the isolated window, and what was queued during it
 * runs on the slot's own backend stream before the put lets a later
 * execution interleave the slot again.  The counts live until
 * weave_core_fini(), also for a slot whose ring was never made.
 */

/**
 * DOC: Ring memory
 *
 * A slot's ring holds &struct weave_entry records, each as long as what
 * its task has (weave_core_entry_size()): a 32-byte head, then only the grid
 * of a launch whose grid is not 1x1x1, the staging of a host write, the
 * bindings used and the uniform bytes used.  A noop launch costs 32 bytes;
 * the largest entry is %WEAVE_ENTRY_MAX_SIZE.
 *
 * Entries are appended to chunks of %WEAVE_RING_CHUNK_BYTES, allocated
 * with GFP_KERNEL_ACCOUNT as the ring grows; an entry never straddles two.
 * A chunk the ring's head leaves goes to the slot's free list, for the
 * ring's tail to reuse.  So a ring holds what is queued on it, one chunk
 * of slack, and the chunks weave_core_reserve() set aside; when an
 * execution that a caller asked for (a flush, an execute, isolation, a
 * destroy) leaves a slot empty, its free chunks are freed, and the slot
 * keeps one chunk.  &weave_core.ring_bytes counts every chunk held.
 *
 * The bounds: at most max_tasks entries per slot (the threshold executes
 * the slot when it holds that many), so at most max_tasks *
 * %WEAVE_ENTRY_MAX_SIZE bytes of entries, in at most max_tasks chunks,
 * plus the chunks reserved for the registrations under way.
 *
 * Growing can fail, and registering a task must not once the caller has
 * committed to it: weave_core_reserve() sets aside, for a run of
 * prepared entries, every chunk their registration may take, whatever
 * executions happen in between; weave_core_register_entry() then takes
 * only those.  A caller prepares each task straight into its entry, in a
 * scratch of its own, and registering moves the entry into the ring as it
 * is: a task is encoded once.
 */

/** WEAVE_CORE_MAX_STREAMS - The largest accepted max_streams. */
#define WEAVE_CORE_MAX_STREAMS		256
/** WEAVE_CORE_MAX_TASKS - The largest accepted max_tasks. */
#define WEAVE_CORE_MAX_TASKS		1024

/**
 * enum weave_strategy - How an execution hands slots to the backend.
 * @WEAVE_STRATEGY_INTERLEAVE: Round-robin the tasks of all slots of the
 *	execution onto the first slot's backend stream.
 * @WEAVE_STRATEGY_SEQUENTIAL: Each slot's tasks on its own backend stream,
 *	one slot after the other.
 */
enum weave_strategy {
	WEAVE_STRATEGY_INTERLEAVE,
	WEAVE_STRATEGY_SEQUENTIAL,
};

/**
 * struct weave_core_exec - One execution, as the core tells its backend.
 * @stream: The logical stream whose call caused it: a FLUSH, ENQUEUE,
 *	REPLAY, isolation or destroy of it (for weave_core_execute(), the
 *	first it names); 0 for weave_core_flush_all().
 * @strategy: The path it took, a &enum weave_strategy: sequential when
 *	the strategy says so or a slot of the set is isolated.
 * @slots: The slots of its set.
 * @tasks: The tasks it handed over, to enqueue or fail.
 */
struct weave_core_exec {
	u32 stream;
	enum weave_strategy strategy;
	u32 slots;
	u32 tasks;
};

/**
 * struct weave_backend_ops - What the core asks of a backend.
 * @enqueue: Append @task, the ring entry of a task, to @bs; it is valid
 *	only during the call, so the backend encodes what it needs of it.
 *	@bs may be another slot's backend stream (interleave).  On success
 *	the backend takes what @task owns (see "DOC: Task ownership").  An
 *	error refuses the task: the backend took nothing and changed
 *	nothing, and the core keeps the task queued or hands it to @fail
 *	(see "DOC: Errors").
 * @fail: Take @task, which @enqueue refused on @bs with @err, and dispose
 *	of it so that its failure is seen, in its place in the order: on
 *	@bs, after what was enqueued there before it (the soft engine
 *	encodes it there as a task that does not run and taints what it
 *	should have written).  The backend takes what @task owns.
 * @drop: Free what @task owns, a task that weave_core_fini() cancels
 *	without handing it to @enqueue or @fail.
 * @flush: Submit everything enqueued on @bs, ordered before anything any
 *	backend stream submits later.  On error the backend may keep the
 *	work and submit it on a later flush.
 * @create_stream: The factory: make the backend stream of slot @slot.
 *	@max_tasks is the core's threshold, the most tasks one execution
 *	takes from the slot's ring at a time: a hint for sizing what the
 *	backend encodes into.  Returns it or an ERR_PTR(), never NULL.
 * @destroy_stream: Release @bs, which the core never uses again; nothing
 *	is enqueued on it but not flushed.  The backend may keep its memory
 *	while work submitted through it is still running.
 * @requires_isolation: Optional, false if NULL.  Whether @bs must run only
 *	its own slot's tasks for a reason of the backend's own.  It may
 *	change between executions; the backend owns that state.  Isolation
 *	that the core's callers ask for (%DRM_IOCTL_WEAVE_STREAM_ISOLATE, a
 *	graph capture) is not the backend's: it is the core's holders count,
 *	weave_core_isolate_get(), see "DOC: Isolation".
 * @observe: Optional.  Called as an execution starts: whether the backend
 *	wants @executed told of it.  The core counts its tasks only then,
 *	so an execution that no one observes costs nothing more.
 * @executed: Called, if @observe said so, once the execution has handed
 *	its tasks over and flushed, with what it did.
 *
 * The C form of the seed's SchedulerStreamBackend trait.  Every op is
 * called with the client's scheduler lock held and must not call back into
 * the core.  @backend is &weave_core_params.backend and @failures is
 * &weave_core_params.failures, passed through untouched.
 */
struct weave_backend_ops {
	int (*enqueue)(void *backend, struct weave_bstream *bs,
		       const struct weave_entry *task,
		       struct weave_failures *failures);
	void (*fail)(void *backend, struct weave_bstream *bs,
		     const struct weave_entry *task, int err,
		     struct weave_failures *failures);
	void (*drop)(void *backend, const struct weave_entry *task);
	int (*flush)(void *backend, struct weave_bstream *bs,
		     struct weave_failures *failures);
	struct weave_bstream *(*create_stream)(void *backend, u32 slot,
					       u32 max_tasks);
	void (*destroy_stream)(void *backend, struct weave_bstream *bs);
	bool (*requires_isolation)(void *backend,
				   const struct weave_bstream *bs);
	bool (*observe)(void *backend);
	void (*executed)(void *backend, const struct weave_core_exec *exec);
};

/**
 * struct weave_core_params - Arguments of weave_core_init().
 * @ops: The backend's operations; all but requires_isolation, observe
 *	and executed are required.
 * @backend: The backend's context, passed to every op.
 * @failures: The failure store, passed to enqueue and flush; may be NULL.
 * @lock: The client's mutex, held around every other weave_core_*() call.
 * @track_idle: Optional: called when a &struct weave_track drops to
 *	queued == 0; see "DOC: Buffer tracking".
 * @max_streams: Slots in the pool, 1 to %WEAVE_CORE_MAX_STREAMS.
 * @max_tasks: Queue length that executes a slot, 1 to
 *	%WEAVE_CORE_MAX_TASKS.
 * @strategy: The initial &enum weave_strategy.
 */
struct weave_core_params {
	const struct weave_backend_ops *ops;
	void *backend;
	struct weave_failures *failures;
	struct mutex *lock;	/* held around every weave_core_*() call */
	void (*track_idle)(struct weave_core *core,
			   struct weave_track *track);
	u32 max_streams;
	u32 max_tasks;
	enum weave_strategy strategy;
};

/**
 * struct weave_core - The scheduler of one client (one open file).
 * @ops: See &weave_core_params.ops.
 * @backend: See &weave_core_params.backend.
 * @failures: See &weave_core_params.failures.
 * @lock: See &weave_core_params.lock.
 * @track_idle: See &weave_core_params.track_idle.
 * @slots: @max_streams slots, created lazily.
 * @set: Scratch for the slot indices of one execution.
 * @max_streams: See &weave_core_params.max_streams.
 * @max_tasks: See &weave_core_params.max_tasks.
 * @strategy: The current &enum weave_strategy.
 * @seqno: The last &weave_entry.seqno handed out.
 * @ring_bytes: Bytes of the chunks the slots' rings hold, see "DOC: Ring
 *	memory".
 *
 * Read-only for callers; change it only through weave_core_*().
 */
struct weave_core {
	const struct weave_backend_ops *ops;
	void *backend;
	struct weave_failures *failures;
	struct mutex *lock;	/* held around every weave_core_*() call */
	void (*track_idle)(struct weave_core *core,
			   struct weave_track *track);
	struct weave_slot *slots;
	u32 *set;
	u32 max_streams;
	u32 max_tasks;
	enum weave_strategy strategy;
	u64 seqno;
	u64 ring_bytes;
};

/**
 * weave_core_slot() - The slot a logical stream folds onto.
 * @core: The scheduler core.
 * @stream: A logical stream handle.
 *
 * Fixed: @stream modulo &weave_core.max_streams.  Streams with equal
 * slots share one FIFO.  A slot index is a handle of its own slot.
 *
 * Return: The slot index.
 */
static inline u32 weave_core_slot(const struct weave_core *core, u32 stream)
{
	return stream % core->max_streams;
}

int weave_core_init(struct weave_core *core,
		    const struct weave_core_params *params);
void weave_core_fini(struct weave_core *core);
int weave_core_set_strategy(struct weave_core *core,
			    enum weave_strategy strategy);
int weave_core_reserve(struct weave_core *core, u32 stream,
		       const struct weave_entry *entries, u32 n);
int weave_core_register_entry(struct weave_core *core, u32 stream,
			      struct weave_entry *e);
int weave_core_execute(struct weave_core *core, const u32 *streams,
		       u32 count);
int weave_core_flush(struct weave_core *core, u32 stream);
struct weave_bstream *weave_core_direct(struct weave_core *core, u32 stream,
					struct weave_track *const *tracks,
					u32 n);
int weave_core_flush_all(struct weave_core *core);
int weave_core_stream_destroy(struct weave_core *core, u32 stream);
int weave_core_isolate_get(struct weave_core *core, u32 stream);
int weave_core_isolate_put(struct weave_core *core, u32 stream);
bool weave_core_isolated(const struct weave_core *core, u32 stream);
u32 weave_core_slot_queued(const struct weave_core *core, u32 stream);
u64 weave_core_queued(const struct weave_core *core);

/**
 * weave_core_next_seqno() - The seqno the next registered task gets.
 * @core: The scheduler.
 *
 * Context: &weave_core.lock held.
 * Return: &weave_entry.seqno of the next entry weave_core_register_entry()
 * takes; each later one gets the next number.
 */
static inline u64 weave_core_next_seqno(const struct weave_core *core)
{
	return core->seqno + 1;
}

#endif /* _WEAVE_CORE_H_ */
