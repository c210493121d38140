// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the soft engine's in-syncs, the in-fences of one enqueue that its
 * tasks carry to the worker, and their place on a slot.
 */

#include <linux/dma-fence.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/slab.h>

#include "weave_engine.h"
#include "weave_failure.h"
#include "weave_insync.h"

/**
 * weave_eng_insync_create() - Keep the in-fences of an enqueue for its tasks.
 * @ctx: The client's engine context.
 * @fences: The enqueue's @n in-fences; this takes references of its own.
 * @n: Entries of @fences, not zero.
 *
 * Context: The client's mutex held.
 * Return: The in-syncs with one reference, or NULL if out of memory.
 */
struct weave_insync *weave_eng_insync_create(struct weave_ectx *ctx,
					     struct dma_fence **fences, u32 n)
{
	struct weave_insync *in;
	u32 i;

	in = kzalloc(struct_size(in, fences, n), GFP_KERNEL_ACCOUNT);
	if (!in)
		return NULL;
	kref_init(&in->ref);
	INIT_LIST_HEAD(&in->link);
	in->failures = ctx->failures;
	in->n = n;
	for (i = 0; i < n; i++)
		in->fences[i] = dma_fence_get(fences[i]);
	return in;
}

/**
 * weave_eng_insync_commit() - Hand in-syncs to the slot of their tasks.
 * @ctx: The client's engine context.
 * @slot: The tasks' slot.
 * @in: The in-syncs; this takes the caller's reference.
 * @first: &weave_entry.seqno of the first of the tasks, as registered.
 * @last: That of the last.
 *
 * Context: The client's mutex held, the tasks registered in the core and
 * not yet encoded.
 */
void weave_eng_insync_commit(struct weave_ectx *ctx, u32 slot,
			     struct weave_insync *in, u64 first, u64 last)
{
	in->first = first;
	in->last = last;
	list_add_tail(&in->link, &ctx->slots[slot].insyncs);
}

static void weave_insync_release(struct kref *ref)
{
	struct weave_insync *in = container_of(ref, struct weave_insync, ref);
	u32 i;

	for (i = 0; i < in->n; i++)
		dma_fence_put(in->fences[i]);
	if (in->failure)
		weave_fg_put(in->failures, in->failure);
	kfree(in);
}

/**
 * weave_eng_insync_put() - Drop a reference to in-syncs.
 * @in: The in-syncs, or NULL.
 */
void weave_eng_insync_put(struct weave_insync *in)
{
	if (in)
		kref_put(&in->ref, weave_insync_release);
}

/**
 * weave_eng_eslot_insync() - The in-syncs of a task the backend encodes.
 * @es: The task's slot.
 * @seqno: The task's &weave_entry.seqno.
 *
 * The slot's tasks are encoded in order; in-syncs whose tasks are all
 * past (the last encoded, or failed by the core) leave the slot.
 *
 * Context: The client's mutex held.
 * Return: The task's in-syncs with a reference, or NULL if it has none.
 */
struct weave_insync *weave_eng_eslot_insync(struct weave_eslot *es, u64 seqno)
{
	struct weave_insync *in;

	while (!list_empty(&es->insyncs)) {
		in = list_first_entry(&es->insyncs, struct weave_insync, link);
		if (seqno < in->first)
			return NULL;
		if (seqno <= in->last) {
			kref_get(&in->ref);
			if (seqno == in->last) {
				list_del_init(&in->link);
				weave_eng_insync_put(in);
			}
			return in;
		}
		list_del_init(&in->link);
		weave_eng_insync_put(in);
	}
	return NULL;
}

/**
 * weave_eng_eslot_insyncs_free() - Drop the in-syncs a slot still holds.
 * @es: The slot, whose tasks will not be encoded.
 */
void weave_eng_eslot_insyncs_free(struct weave_eslot *es)
{
	struct weave_insync *in, *tmp;

	list_for_each_entry_safe(in, tmp, &es->insyncs, link) {
		list_del_init(&in->link);
		weave_eng_insync_put(in);
	}
}
