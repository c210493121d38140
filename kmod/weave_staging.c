// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the soft engine's staging, the kernel's copy of a host write's
 * bytes from ENQUEUE until its task writes them: each slot's arena, and
 * memory of their own for writes too large for it.
 */

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include <drm/drm_device.h>

#include "weave_arena.h"
#include "weave_engine.h"
#include "weave_staging.h"

/**
 * DOC: staging
 *
 * A host write's bytes are copied into the kernel at ENQUEUE and written
 * to the buffer when its task runs.  A write of at most half the slot's
 * arena (slot_staging_bytes, see &struct drm_weave_device_info), counted
 * at weave_core_arena_cost(), takes a slice of the slot's staging arena, while
 * the slices an ENQUEUE already took there leave room for it.  Other
 * writes get memory of their own.  Both count against max_staged_bytes.
 *
 * The arena's bytes are allocated on the slot's first write that goes
 * there, charged to the caller's memory cgroup, and kept with the client.
 * A slice goes back when its task ran, or was dropped, and its bytes are
 * reused once the slices before it went back too.  A slice is not a buffer
 * that the failure graph knows: a host write cut short taints its
 * destination, and the slice comes back empty-handed.
 *
 * Pressure: when the arena has no room, ENQUEUE executes the slot and
 * submits its work, undoes what it did so far, leaves the client's mutex
 * and its drm_dev_enter() section, and waits for a slice to come back,
 * then starts over.  The wait ends with a slice back, with a signal, or
 * after a job timeout; then the call tries once more, and fails with
 * -EBUSY if the arena is still full (the work ahead is held, by an
 * in-fence say).  As an ENQUEUE's own slices hold at most half the arena,
 * they never keep it from fitting the next; nothing is queued by a call
 * that fails.
 */

/**
 * weave_eng_staging_get() - Room for a host write on a slot.
 * @ctx: The client's engine context.
 * @slot: The slot of the write's stream.
 * @len: The write's length.
 * @arena: Whether it goes to the slot's arena (see "DOC: staging").
 *
 * Context: The client's mutex held.
 * Return: The slice, NULL if the arena has no room now, or
 * ERR_PTR(-ENOMEM).
 */
void *weave_eng_staging_get(struct weave_ectx *ctx, u32 slot, u32 len,
			    bool arena)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL |
			  __GFP_NOWARN;
	struct weave_arena *a = &ctx->slots[slot].staging;
	u32 size;
	void *mem;

	if (arena) {
		if (!a->base) {
			size = ctx->limits->slot_staging_bytes;
			mem = kvmalloc(size, gfp);
			if (!mem)
				return ERR_PTR(-ENOMEM);
			weave_core_arena_init(a, mem, size);
			ctx->arena_bytes += size;
		}
		return weave_core_arena_reserve(a, len);
	}
	/* Up to max_staged_bytes of the caller's choosing: a refusal, no OOM. */
	mem = kvmalloc(weave_core_arena_cost(len), gfp);
	if (!mem)
		return ERR_PTR(-ENOMEM);
	atomic64_add(weave_core_arena_cost(len), &ctx->alone_bytes);
	return weave_core_arena_alone(mem, len);
}

/**
 * weave_eng_staging_reclaimed() - How many slices a slot's arena took back.
 * @ctx: The client's engine context.
 * @slot: The slot.
 *
 * Context: The client's mutex held, which keeps anyone else from taking
 * a slice.
 * Return: A count that only grows, for weave_eng_staging_wait().
 */
u64 weave_eng_staging_reclaimed(struct weave_ectx *ctx, u32 slot)
{
	return weave_core_arena_reclaimed(&ctx->slots[slot].staging);
}

/* Whether a slice came back to @a since its reclaimed count was @seen. */
static bool weave_arena_moved(struct weave_arena *a, u64 seen)
{
	return weave_core_arena_reclaimed(a) != seen;
}

/**
 * weave_eng_staging_wait() - Wait for a slice to come back to a slot's arena.
 * @ctx: The client's engine context.
 * @slot: The slot, whose arena has bytes.
 * @seen: weave_eng_staging_reclaimed() when the arena was last found full.
 * @timeout_ms: How long to wait.
 *
 * Context: No lock held, and not inside drm_dev_enter(): the wait may
 * last @timeout_ms, and only the unplug's cancel may end it.
 * Return: 0 once a slice came back since @seen, -ETIME if none did in
 * @timeout_ms, or -ERESTARTSYS on a signal.
 */
int weave_eng_staging_wait(struct weave_ectx *ctx, u32 slot, u64 seen,
			   u32 timeout_ms)
{
	struct weave_arena *a = &ctx->slots[slot].staging;

	/*
	 * An hrtimer, not jiffies: a timeout of N jiffies may end up to a
	 * tick early, and -EBUSY promises that the arena stayed full for
	 * @timeout_ms.
	 */
	return wait_event_interruptible_hrtimeout(ctx->staging_wq,
						  weave_arena_moved(a, seen),
						  ms_to_ktime(timeout_ms));
}

/**
 * weave_eng_staging_drop() - Give back a slice that staged_bytes does not
 * count.
 * @ctx: The client's engine context.
 * @data: The slice, or NULL.
 * @len: The write's length.
 *
 * Any context but a hard interrupt: the worker's too.
 */
void weave_eng_staging_drop(struct weave_ectx *ctx, void *data, u64 len)
{
	void *mem = weave_core_arena_release(data);

	if (mem) {
		atomic64_sub(weave_core_arena_cost(len), &ctx->alone_bytes);
		kvfree(mem);
	} else if (data && wq_has_sleeper(&ctx->staging_wq)) {
		wake_up_all(&ctx->staging_wq);
	}
}

/**
 * weave_eng_staging_free() - Give back a queued host write's slice.
 * @ctx: The client's engine context.
 * @data: The slice, or NULL.
 * @len: The write's length, which staged_bytes counts.
 *
 * Any context but a hard interrupt: the worker's too.
 */
void weave_eng_staging_free(struct weave_ectx *ctx, void *data, u64 len)
{
	if (!data)
		return;
	atomic64_sub(len, &ctx->staged_bytes);
	weave_eng_staging_drop(ctx, data, len);
}
