/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: a slot's task ring, compact entries in chunks that grow on demand.
 */
#ifndef _WEAVE_RING_H_
#define _WEAVE_RING_H_

#include <linux/types.h>

#include "weave_task.h"

struct weave_chunk;

/**
 * struct weave_ring - The FIFO of one slot's queued tasks, as entries.
 * @head: The chunk of the oldest entry; NULL before the first push.
 * @tail: The chunk the next entry is appended to, if it has room.
 * @free: Chunks for the tail to take, singly linked.
 * @head_off: Where the oldest entry starts in @head.
 * @count: Entries queued.
 * @nfree: Chunks on @free.
 *
 * Pure and unlocked: the core calls it under its lock.  Each function that
 * allocates or frees chunks takes @bytes, the counter it keeps of the
 * bytes held (&weave_core.ring_bytes).  See "DOC: Ring memory".
 */
struct weave_ring {
	struct weave_chunk *head;
	struct weave_chunk *tail;
	struct weave_chunk *free;
	u32 head_off;
	u32 count;
	u32 nfree;
};

u32 weave_core_ring_chunks_needed(const struct weave_ring *r,
				  const struct weave_entry *entries, u32 n);
int weave_core_ring_set_aside(struct weave_ring *r, u32 chunks, u64 *bytes);
int weave_core_ring_make_room(struct weave_ring *r, size_t size, u64 *bytes);
void weave_core_ring_push(struct weave_ring *r, const struct weave_entry *e);
struct weave_entry *weave_core_ring_peek(const struct weave_ring *r);
void weave_core_ring_pop(struct weave_ring *r);
void weave_core_ring_trim(struct weave_ring *r, u64 *bytes);
void weave_core_ring_fini(struct weave_ring *r, u64 *bytes);

#endif /* _WEAVE_RING_H_ */
