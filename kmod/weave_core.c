// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the scheduler core.
 *
 * The kernel form of CubeCL's SchedulerMultiStream: register (align, push,
 * threshold), execute (interleave or sequential), flush and flush all.
 */

#include <linux/build_bug.h>
#include <linux/bug.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "weave_core.h"
#include "weave_ring.h"

/* &weave_entry.slot is a u8. */
static_assert(WEAVE_CORE_MAX_STREAMS <= 256);

/**
 * struct weave_slot - One slot of the pool.
 * @bstream: The backend stream, NULL until the slot is first used.
 * @ring: The queued tasks; @ring.count stays below max_tasks between calls.
 * @isolation: Holders of the slot's isolation, see "DOC: Isolation".
 */
struct weave_slot {
	struct weave_bstream *bstream;
	struct weave_ring ring;
	u32 isolation;
};

static struct weave_slot *weave_slot_of(const struct weave_core *s,
					u32 stream)
{
	return &s->slots[weave_core_slot(s, stream)];
}

/* What weave_core_register_entry() accepts, as documented there. */
static int weave_entry_check(const struct weave_entry *e)
{
	const struct weave_binding *b = weave_core_entry_bindings(e);
	const struct weave_entry_write *w;
	u32 i;

	if (e->num_bindings > WEAVE_MAX_BINDINGS ||
	    e->uniform_len > WEAVE_MAX_UNIFORM_BYTES ||
	    e->refuse > 0 || e->refuse < -MAX_ERRNO ||
	    e->flags & ~WEAVE_ENTRY_GRID)
		return -EINVAL;
	for (i = 0; i < e->num_bindings; i++)
		if (!b[i].track || !b[i].access || b[i].access & ~WEAVE_ACCESS_RW)
			return -EINVAL;
	if (e->kind == WEAVE_TASK_LAUNCH)
		return 0;
	w = weave_core_entry_write(e);
	if (e->kind != WEAVE_TASK_HOST_WRITE || e->num_bindings != 1 ||
	    !w->data || !w->len || !(b[0].access & WEAVE_ACCESS_WRITE) ||
	    b[0].size != w->len)
		return -EINVAL;
	return 0;
}

static void weave_track_put(struct weave_core *s, struct weave_track *track)
{
	if (WARN_ON_ONCE(!track->queued))
		return;
	if (!--track->queued && s->track_idle)
		s->track_idle(s, track);
}

/* An entry is leaving the ring: release its hold on its buffers' tracks. */
static void weave_entry_done(struct weave_core *s, const struct weave_entry *e)
{
	const struct weave_binding *b = weave_core_entry_bindings(e);
	u32 i;

	for (i = 0; i < e->num_bindings; i++)
		weave_track_put(s, b[i].track);
}

/*
 * Hand the slot's oldest task to the backend on @bs.  If the backend
 * refuses it, the error is returned with the task still queued if @keep;
 * without @keep the task goes to fail.  See "DOC: Errors".
 */
static int weave_slot_run_one(struct weave_core *s, struct weave_slot *slot,
			      struct weave_bstream *bs, bool keep)
{
	struct weave_entry *e = weave_core_ring_peek(&slot->ring);
	int err;

	err = s->ops->enqueue(s->backend, bs, e, s->failures);
	if (err) {
		if (keep)
			return err;
		s->ops->fail(s->backend, bs, e, err, s->failures);
	}
	/* Its staging is the backend's now. */
	weave_entry_done(s, e);
	weave_core_ring_pop(&slot->ring);
	return 0;
}

/* A failed flush is the backend's to handle: see "DOC: Errors". */
static void weave_bstream_flush(struct weave_core *s, struct weave_bstream *bs)
{
	s->ops->flush(s->backend, bs, s->failures);
}

static bool weave_slot_isolated(const struct weave_core *s,
				const struct weave_slot *slot)
{
	if (slot->isolation)
		return true;
	return slot->bstream && s->ops->requires_isolation &&
	       s->ops->requires_isolation(s->backend, slot->bstream);
}

/*
 * Each slot's tasks on its own backend stream, one slot after the other.
 * Returns 0, or the error of a refusal kept with @keep, which stops it
 * after flushing the slot's backend stream.
 */
static int weave_core_run_sequential(struct weave_core *s, u32 n, bool keep)
{
	struct weave_slot *slot;
	int err = 0;
	u32 i;

	for (i = 0; i < n && !err; i++) {
		slot = &s->slots[s->set[i]];
		while (slot->ring.count && !err)
			err = weave_slot_run_one(s, slot, slot->bstream, keep);
		weave_bstream_flush(s, slot->bstream);
	}
	return err;
}

/*
 * Round-robin every slot's tasks onto the first slot's backend stream.
 * Returns 0, or the error of a refusal kept with @keep, which stops the
 * round-robin; the first slot's backend stream is flushed either way.
 */
static int weave_core_run_interleave(struct weave_core *s, u32 n, bool keep)
{
	struct weave_bstream *exec = s->slots[s->set[0]].bstream;
	struct weave_slot *slot;
	u32 i, round, rounds = 0;
	int err = 0;

	for (i = 1; i < n; i++)
		weave_bstream_flush(s, s->slots[s->set[i]].bstream);
	for (i = 0; i < n; i++)
		rounds = max(rounds, s->slots[s->set[i]].ring.count);
	for (round = 0; round < rounds && !err; round++) {
		for (i = 0; i < n && !err; i++) {
			slot = &s->slots[s->set[i]];
			if (slot->ring.count)
				err = weave_slot_run_one(s, slot, exec, keep);
		}
	}
	weave_bstream_flush(s, exec);
	return err;
}

/* The tasks queued on the n slots in s->set[]. */
static u32 weave_core_set_queued(const struct weave_core *s, u32 n)
{
	u32 i, queued = 0;

	for (i = 0; i < n; i++)
		queued += s->slots[s->set[i]].ring.count;
	return queued;
}

/*
 * Execute the n distinct, initialised slots in s->set[], for a call of
 * @stream's, and tell the backend if it observes it.
 */
static int weave_core_run(struct weave_core *s, u32 n, bool keep, u32 stream)
{
	struct weave_core_exec ex = {
		.stream = stream,
		.strategy = WEAVE_STRATEGY_SEQUENTIAL,
		.slots = n,
	};
	bool isolated = false, seen;
	u32 i;
	int err;

	for (i = 0; i < n; i++)
		isolated |= weave_slot_isolated(s, &s->slots[s->set[i]]);
	if (s->strategy == WEAVE_STRATEGY_INTERLEAVE && !isolated)
		ex.strategy = WEAVE_STRATEGY_INTERLEAVE;

	seen = s->ops->observe && s->ops->observe(s->backend);
	if (seen)
		ex.tasks = weave_core_set_queued(s, n);
	if (ex.strategy == WEAVE_STRATEGY_INTERLEAVE)
		err = weave_core_run_interleave(s, n, keep);
	else
		err = weave_core_run_sequential(s, n, keep);
	if (seen) {
		ex.tasks -= weave_core_set_queued(s, n);
		s->ops->executed(s->backend, &ex);
	}
	return err;
}

/*
 * After an execution a caller asked for, free the free chunks of the n
 * slots in s->set[] (see "DOC: Ring memory").  Not inside
 * weave_core_register_entry(), whose pushes may need them.
 */
static void weave_core_trim(struct weave_core *s, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		weave_core_ring_trim(&s->slots[s->set[i]].ring, &s->ring_bytes);
}

static bool weave_set_has(const u32 *set, u32 n, u32 idx)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (set[i] == idx)
			return true;
	}
	return false;
}

/*
 * weave_core_execute(), keeping refused tasks queued or not, for a call of
 * @stream's (see &struct weave_core_exec).
 */
static int weave_core_exec(struct weave_core *core, const u32 *streams,
			   u32 count, bool keep, u32 stream)
{
	u32 i, idx, n = 0;
	int err;

	for (i = 0; i < count; i++) {
		idx = weave_core_slot(core, streams[i]);
		if (core->slots[idx].bstream &&
		    !weave_set_has(core->set, n, idx))
			core->set[n++] = idx;
	}
	if (!n)
		return 0;
	err = weave_core_run(core, n, keep, stream);
	if (keep)
		weave_core_trim(core, n);
	return err;
}

/**
 * weave_core_execute() - Execute the slots of some logical streams.
 * @core: The scheduler core.
 * @streams: Logical stream handles; a slot index names its own slot.
 * @count: Entries in @streams.
 *
 * Maps @streams to slots, keeps the first occurrence of each and leaves
 * out slots never used, then hands every task queued on them to the
 * backend and flushes.  Interleave, unless the strategy is sequential or
 * any of these slots is isolated ("DOC: Isolation"): flush each slot's
 * backend stream but the first's, enqueue the tasks of all slots
 * round-robin, in set order, on the first slot's backend stream, flush it.
 * Sequential: for each slot in order, enqueue its tasks on its own backend
 * stream and flush it.  Slots with an empty ring stay in the set.  A task
 * the backend refuses stops the execution: it and every task not handed
 * over yet stay queued, see "DOC: Errors".
 *
 * Context: &weave_core.lock held.
 * Return: 0 if every task queued on the slots was handed to the backend,
 * else the error with which it refused one.
 */
int weave_core_execute(struct weave_core *core, const u32 *streams,
		       u32 count)
{
	lockdep_assert_held(core->lock);
	return weave_core_exec(core, streams, count, true,
			       count ? streams[0] : 0);
}

/* Make the slot's backend stream on its first use; its ring grows later. */
static int weave_slot_init(struct weave_core *s, u32 idx)
{
	struct weave_slot *slot = &s->slots[idx];
	struct weave_bstream *bs;

	if (slot->bstream)
		return 0;
	bs = s->ops->create_stream(s->backend, idx, s->max_tasks);
	if (IS_ERR(bs))
		return PTR_ERR(bs);
	slot->bstream = bs;
	return 0;
}

/**
 * weave_core_reserve() - Make a logical stream's slot ready for tasks.
 * @core: The scheduler core.
 * @stream: The logical stream handle.
 * @entries: The entries the caller is about to register on @stream, in
 *	order and back to back (weave_core_entry_next()); their sizes are
 *	all that is read.
 * @n: Number of @entries; may be 0.
 *
 * Creates the slot's backend stream if it has none yet and sets aside
 * every ring chunk that registering @entries may take, the only steps of
 * weave_core_register_entry() that can fail for a well-formed entry, so
 * that a caller can commit to registering before it registers.  What it
 * sets aside holds until an execution the caller asks for (a flush,
 * execute, isolation or destroy of the slot) frees it: reserve after
 * those.  See "DOC: Ring memory".
 *
 * Context: &weave_core.lock held.
 * Return: 0, or the error of creating the slot's backend stream or
 * -ENOMEM; the chunks set aside so far then stay on the free list.
 */
int weave_core_reserve(struct weave_core *core, u32 stream,
		       const struct weave_entry *entries, u32 n)
{
	u32 idx = weave_core_slot(core, stream);
	struct weave_ring *r = &core->slots[idx].ring;
	u32 need;
	int ret;

	lockdep_assert_held(core->lock);
	ret = weave_slot_init(core, idx);
	if (ret)
		return ret;
	need = weave_core_ring_chunks_needed(r, entries, n);
	return weave_core_ring_set_aside(r, need, &core->ring_bytes);
}

/**
 * weave_core_register_entry() - Queue a prepared entry on a logical stream.
 * @core: The scheduler core.
 * @stream: The logical stream handle.
 * @e: The entry, complete but for its &weave_entry.stream,
 *	&weave_entry.slot and &weave_entry.seqno, which are set first; then
 *	it is moved into the slot's ring as it is, with no re-encoding.
 *
 * The seed's algorithm: 1) align: execute, as one set, the other slots on
 * which tasks binding the same buffers are still queued (the target slot
 * is not drained); 2) push the entry on the slot's ring; 3) if the ring
 * holds max_tasks tasks, execute the slot.  Creates the slot's ring and
 * backend stream on first use.  On success the entry's staging belongs to
 * the core ("DOC: Task ownership"), and @e is a spent copy.  These
 * executions leave no task queued: a task the backend refuses goes to its
 * fail op ("DOC: Errors").
 *
 * Context: &weave_core.lock held.
 * Return: 0 if the entry was accepted; -EINVAL if it is malformed (too
 * many bindings, too many uniform bytes, unknown flags, bad access flags,
 * a refusal that is not an errno, a host write that is not one written
 * binding of its &weave_entry_write.len bytes); or the error of creating
 * the slot's backend stream or growing its ring, which cannot happen
 * after weave_core_reserve() of @stream with this entry among its
 * entries.  On error nothing changed, but for a free chunk that may stay.
 */
int weave_core_register_entry(struct weave_core *core, u32 stream,
			      struct weave_entry *e)
{
	u32 idx = weave_core_slot(core, stream);
	struct weave_slot *slot = &core->slots[idx];
	const struct weave_binding *b = weave_core_entry_bindings(e);
	u32 align[WEAVE_MAX_BINDINGS];
	struct weave_track *track;
	u32 i, n = 0;
	int ret;

	lockdep_assert_held(core->lock);
	ret = weave_entry_check(e);
	if (ret)
		return ret;
	ret = weave_slot_init(core, idx);
	if (!ret)
		ret = weave_core_ring_make_room(&slot->ring,
						weave_core_entry_size(e),
						&core->ring_bytes);
	if (ret)
		return ret;

	for (i = 0; i < e->num_bindings; i++) {
		track = b[i].track;
		if (track->queued && track->slot != idx)
			align[n++] = track->slot;
	}
	/* Below, a refused task cannot stay: see "DOC: Errors". */
	if (n)
		weave_core_exec(core, align, n, false, stream);

	e->stream = stream;
	e->slot = idx;
	e->seqno = ++core->seqno;
	for (i = 0; i < e->num_bindings; i++) {
		track = b[i].track;
		WARN_ON_ONCE(track->queued && track->slot != idx);
		track->slot = idx;
		track->queued++;
	}
	/* Align executed other slots only: the room made above is there. */
	weave_core_ring_push(&slot->ring, e);

	if (slot->ring.count >= core->max_tasks)
		weave_core_exec(core, &idx, 1, false, stream);
	return 0;
}

/**
 * weave_core_direct() - Clear the way for work handed to a logical stream's
 * backend stream whole, past the ring (a graph replay).
 * @core: The scheduler core.
 * @stream: The logical stream handle.
 * @tracks: The tracking structs of the buffers the work binds, each once.
 * @n: Entries of @tracks.
 *
 * Makes the slot ready as weave_core_reserve() does; executes, as
 * weave_core_execute() would, the other slots that have tasks queued on
 * one of @tracks, so that the work comes after them as a registered task
 * would (see "DOC: Buffer tracking"); then flushes the stream's slot, as
 * weave_core_flush() does, so that it comes after the slot's queued tasks.
 * A task the backend refuses stays queued and fails the call.  The caller
 * then hands the work to the returned backend stream and flushes it, under
 * the same hold of &weave_core.lock.
 *
 * Context: &weave_core.lock held.
 * Return: The slot's backend stream, or an ERR_PTR(): the error of making
 * the slot, or the one with which the backend refused a task.
 */
struct weave_bstream *weave_core_direct(struct weave_core *core, u32 stream,
					struct weave_track *const *tracks,
					u32 n)
{
	u32 i, idx = weave_core_slot(core, stream);
	int ret;

	lockdep_assert_held(core->lock);
	ret = weave_slot_init(core, idx);
	if (ret)
		return ERR_PTR(ret);
	/*
	 * One slot at a time: executing a slot leaves its buffers' tracks
	 * with nothing queued, so no slot is executed twice.
	 */
	for (i = 0; i < n; i++) {
		if (!tracks[i]->queued || tracks[i]->slot == idx)
			continue;
		ret = weave_core_exec(core, &tracks[i]->slot, 1, true,
				      stream);
		if (ret)
			return ERR_PTR(ret);
	}
	ret = weave_core_exec(core, &stream, 1, true, stream);
	if (ret)
		return ERR_PTR(ret);
	return core->slots[idx].bstream;
}

/**
 * weave_core_flush() - Execute the slot of a logical stream.
 * @core: The scheduler core.
 * @stream: The logical stream handle.
 *
 * weave_core_execute() of @stream alone: its slot's tasks run on its own
 * backend stream, which is then flushed even if the ring was empty.  The
 * caller then takes its fence.  Does nothing if the slot was never used.
 * A task the backend refuses stays queued with the rest of the slot
 * (weave_core_slot_queued() counts them); a later flush hands them over.
 *
 * Context: &weave_core.lock held.
 * Return: 0, or the error with which the backend refused a task.
 */
int weave_core_flush(struct weave_core *core, u32 stream)
{
	lockdep_assert_held(core->lock);
	return weave_core_exec(core, &stream, 1, true, stream);
}

/**
 * weave_core_stream_destroy() - Hand over a logical stream's queued work
 * before the stream is retired.
 * @core: The scheduler core.
 * @stream: The logical stream handle.
 *
 * Queued work is executed, never dropped: weave_core_execute() of
 * @stream.  As other streams may fold onto the slot, the slot and its
 * backend stream stay until weave_core_fini().  Freeing the handle is the
 * caller's job, and only once this returned 0: a task of the slot may
 * still be queued otherwise.
 *
 * Context: &weave_core.lock held.
 * Return: 0, or the error with which the backend refused a task, and the
 * slot's tasks from that one on stay queued.
 */
int weave_core_stream_destroy(struct weave_core *core, u32 stream)
{
	lockdep_assert_held(core->lock);
	return weave_core_exec(core, &stream, 1, true, stream);
}

/**
 * weave_core_flush_all() - Execute and flush every slot of the client.
 * @core: The scheduler core.
 *
 * One weave_core_execute() of every used slot in index order, then a
 * flush of each of their backend streams, for a caller about to touch
 * memory that any stream may use.  A task the backend refuses stops the
 * execution: it and every task not handed over yet stay queued
 * (weave_core_queued() counts them); the flushes still happen.
 *
 * Context: &weave_core.lock held.
 * Return: 0, or the error with which the backend refused a task.
 */
int weave_core_flush_all(struct weave_core *core)
{
	u32 i, n = 0;
	int err;

	lockdep_assert_held(core->lock);
	for (i = 0; i < core->max_streams; i++) {
		if (core->slots[i].bstream)
			core->set[n++] = i;
	}
	if (!n)
		return 0;
	err = weave_core_run(core, n, true, 0);
	for (i = 0; i < n; i++)
		weave_bstream_flush(core, core->slots[core->set[i]].bstream);
	weave_core_trim(core, n);
	return err;
}

/**
 * weave_core_set_strategy() - Choose the execution path of later calls.
 * @core: The scheduler core.
 * @strategy: A &enum weave_strategy.
 *
 * Context: &weave_core.lock held.
 * Return: 0, or -EINVAL if @strategy is unknown.
 */
int weave_core_set_strategy(struct weave_core *core,
			    enum weave_strategy strategy)
{
	lockdep_assert_held(core->lock);
	if (strategy != WEAVE_STRATEGY_INTERLEAVE &&
	    strategy != WEAVE_STRATEGY_SEQUENTIAL)
		return -EINVAL;
	core->strategy = strategy;
	return 0;
}

/**
 * weave_core_isolate_get() - Take a hold of a logical stream's slot's
 * isolation.
 * @core: The scheduler core.
 * @stream: The logical stream handle.
 *
 * Executes the slot first, like weave_core_flush(), so that no task queued
 * before the call is isolated; then adds a holder.  If the backend refuses
 * a task, the slot keeps that task and the tasks after it queued, and its
 * holders count stays as it was; weave_core_isolate_put() does the same.
 * See "DOC: Isolation".
 *
 * Context: &weave_core.lock held.
 * Return: 0, or the error with which the backend refused a task.
 */
int weave_core_isolate_get(struct weave_core *core, u32 stream)
{
	struct weave_slot *slot = weave_slot_of(core, stream);
	int err;

	lockdep_assert_held(core->lock);
	err = weave_core_exec(core, &stream, 1, true, stream);
	if (err)
		return err;
	slot->isolation++;
	return 0;
}

/**
 * weave_core_isolate_put() - Drop a hold of a logical stream's slot's
 * isolation.
 * @core: The scheduler core.
 * @stream: The logical stream handle.
 *
 * Executes the slot first, on its own backend stream, so that every task
 * queued while it was isolated runs isolated; then drops a holder.  The
 * slot stays isolated while other holders remain.  A task the backend
 * refuses is kept as weave_core_isolate_get() says.
 *
 * Context: &weave_core.lock held.
 * Return: 0; -EINVAL if the slot has no holder (nothing is executed); or
 * the error with which the backend refused a task.
 */
int weave_core_isolate_put(struct weave_core *core, u32 stream)
{
	struct weave_slot *slot = weave_slot_of(core, stream);
	int err;

	lockdep_assert_held(core->lock);
	if (!slot->isolation)
		return -EINVAL;
	err = weave_core_exec(core, &stream, 1, true, stream);
	if (err)
		return err;
	slot->isolation--;
	return 0;
}

/**
 * weave_core_isolated() - Whether a logical stream's slot is isolated.
 * @core: The scheduler core.
 * @stream: The logical stream handle.
 *
 * Context: &weave_core.lock held.
 * Return: True if the slot has a holder, or its backend stream requires
 * isolation; what the next execution of the slot sees.
 */
bool weave_core_isolated(const struct weave_core *core, u32 stream)
{
	lockdep_assert_held(core->lock);
	return weave_slot_isolated(core, weave_slot_of(core, stream));
}

/**
 * weave_core_slot_queued() - Count the tasks queued on a stream's slot.
 * @core: The scheduler core.
 * @stream: The logical stream handle.
 *
 * Context: &weave_core.lock held.
 * Return: The tasks registered on the slot and not yet executed or
 * cancelled; streams folded onto one slot share them.
 */
u32 weave_core_slot_queued(const struct weave_core *core, u32 stream)
{
	lockdep_assert_held(core->lock);
	return weave_slot_of(core, stream)->ring.count;
}

/**
 * weave_core_queued() - Count the tasks queued in every slot's ring.
 * @core: The scheduler core.
 *
 * Context: &weave_core.lock held.
 * Return: The tasks registered and not yet executed or cancelled.
 */
u64 weave_core_queued(const struct weave_core *core)
{
	u64 n = 0;
	u32 i;

	lockdep_assert_held(core->lock);
	for (i = 0; i < core->max_streams; i++)
		n += core->slots[i].ring.count;
	return n;
}

/**
 * weave_core_init() - Set up a client's scheduler core.
 * @core: The scheduler core to fill in.
 * @params: Its backend, lock, callbacks and limits.
 *
 * Allocates the slot table only; rings and backend streams come later.
 *
 * Context: Process context; @core is not shared yet, no lock needed.
 * Return: 0; -EINVAL if a limit or the strategy is out of range; -ENOMEM.
 */
int weave_core_init(struct weave_core *core,
		    const struct weave_core_params *params)
{
	if (!params->max_streams ||
	    params->max_streams > WEAVE_CORE_MAX_STREAMS ||
	    !params->max_tasks || params->max_tasks > WEAVE_CORE_MAX_TASKS ||
	    (params->strategy != WEAVE_STRATEGY_INTERLEAVE &&
	     params->strategy != WEAVE_STRATEGY_SEQUENTIAL))
		return -EINVAL;

	*core = (struct weave_core) {
		.ops = params->ops,
		.backend = params->backend,
		.failures = params->failures,
		.lock = params->lock,
		.track_idle = params->track_idle,
		.max_streams = params->max_streams,
		.max_tasks = params->max_tasks,
		.strategy = params->strategy,
	};
	core->slots = kcalloc(core->max_streams, sizeof(*core->slots),
			      GFP_KERNEL_ACCOUNT);
	core->set = kcalloc(core->max_streams, sizeof(*core->set),
			    GFP_KERNEL_ACCOUNT);
	if (!core->slots || !core->set) {
		kfree(core->slots);
		kfree(core->set);
		return -ENOMEM;
	}
	return 0;
}

/**
 * weave_core_fini() - Tear down a client's scheduler core.
 * @core: The scheduler core.
 *
 * Cancels every queued task without enqueueing it: its staging goes to
 * the backend's drop and its tracks are released (track_idle is called).
 * Then destroys every backend stream and frees the slots and their rings.
 *
 * Context: &weave_core.lock held; no other user of @core remains.
 */
void weave_core_fini(struct weave_core *core)
{
	struct weave_entry *e;
	struct weave_slot *slot;
	u32 i;

	lockdep_assert_held(core->lock);
	for (i = 0; i < core->max_streams; i++) {
		slot = &core->slots[i];
		while (slot->ring.count) {
			e = weave_core_ring_peek(&slot->ring);
			core->ops->drop(core->backend, e);
			weave_entry_done(core, e);
			weave_core_ring_pop(&slot->ring);
		}
		if (slot->bstream)
			core->ops->destroy_stream(core->backend, slot->bstream);
		weave_core_ring_fini(&slot->ring, &core->ring_bytes);
	}
	WARN_ON_ONCE(core->ring_bytes);
	kfree(core->slots);
	kfree(core->set);
	core->slots = NULL;
	core->set = NULL;
}
