/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the soft engine's in-syncs: the in-fences of one enqueue, carried
 * by its tasks to the worker.
 */
#ifndef _WEAVE_INSYNC_H_
#define _WEAVE_INSYNC_H_

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>

struct dma_fence;
struct weave_ectx;
struct weave_eslot;
struct weave_failure;
struct weave_failures;

/**
 * struct weave_insync - The in-fences of one enqueue, which its tasks, the
 * client registration seqnos @first to @last, carry to the worker.
 * @ref: The slot's reference until its last task is encoded, and one per
 *	encoded task.
 * @link: In &weave_eslot.insyncs, under the client's mutex.
 * @failures: The device's failure graph.
 * @failure: The failure of the tasks, made by the first that needs it;
 *	a reference.
 * @first: The first task's &weave_entry.seqno.
 * @last: The last task's.
 * @n: Entries of @fences.
 * @fences: The in-fences, a reference each.
 */
struct weave_insync {
	struct kref ref;
	struct list_head link;
	struct weave_failures *failures;
	struct weave_failure *failure;
	u64 first;
	u64 last;
	u32 n;
	struct dma_fence *fences[] __counted_by(n);
};

struct weave_insync *weave_eng_insync_create(struct weave_ectx *ctx,
					     struct dma_fence **fences, u32 n);
void weave_eng_insync_commit(struct weave_ectx *ctx, u32 slot,
			     struct weave_insync *in, u64 first, u64 last);
void weave_eng_insync_put(struct weave_insync *in);
struct weave_insync *weave_eng_eslot_insync(struct weave_eslot *es, u64 seqno);
void weave_eng_eslot_insyncs_free(struct weave_eslot *es);

#endif /* _WEAVE_INSYNC_H_ */
