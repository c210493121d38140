/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the staging arena, a bounded ring of bytes that hands out slices
 * in order and takes them back in any order; it needs no device.
 */
#ifndef _WEAVE_ARENA_H_
#define _WEAVE_ARENA_H_

#include <linux/math.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/**
 * WEAVE_ARENA_GRANULE - What a slice's size is rounded up to, and the size
 * of the header in front of it.
 */
#define WEAVE_ARENA_GRANULE	16u

/**
 * struct weave_arena - A ring of @size bytes cut into slices.
 * @lock: Guards the fields below and the slices' headers.
 * @base: The bytes, which the owner allocates and frees.
 * @size: Their number, a multiple of %WEAVE_ARENA_GRANULE.
 * @head: Where the next slice goes.
 * @tail: The oldest slice not yet reclaimed.
 * @used: Bytes from @tail to @head, released slices and the gap left at
 *	the end by a wrap included.
 * @reclaimed: Slices reclaimed so far: progress, for those who wait.
 *
 * A slice is reserved at @head and released by its holder at any time;
 * its bytes are reused only once every older slice was released too, so
 * the ring never fragments.  Bytes reused carry nothing of what they held.
 */
struct weave_arena {
	spinlock_t lock;	/* the fields below, the slices' headers */
	u8 *base;
	u32 size;
	u32 head;
	u32 tail;
	u32 used;
	u64 reclaimed;
};

/* The bytes a slice of @len takes in its arena, header included. */
static inline u64 weave_core_arena_cost(u64 len)
{
	return round_up(len, WEAVE_ARENA_GRANULE) + WEAVE_ARENA_GRANULE;
}

void weave_core_arena_init(struct weave_arena *a, void *base, u32 size);
void *weave_core_arena_reserve(struct weave_arena *a, u32 len);
void *weave_core_arena_alone(void *mem, u32 len);
void *weave_core_arena_release(void *p);
bool weave_core_arena_idle(struct weave_arena *a);
u64 weave_core_arena_reclaimed(struct weave_arena *a);

#endif /* _WEAVE_ARENA_H_ */
