// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the staging arena, a bounded ring of bytes that hands out slices
 * in order and takes them back in any order.
 *
 * Each slice is preceded by a header that names its arena, its length and
 * whether it is still held.  Releasing a slice marks its header; the tail
 * then moves over every released slice it reaches, so bytes come back in
 * the order they were handed out, whatever the order of the releases.  A
 * slice that does not fit before the end of the ring starts again at its
 * beginning, and the gap it leaves is reclaimed with the slice before it.
 */

#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/spinlock.h>

#include "weave_arena.h"

/* In front of each slice and each gap: %WEAVE_ARENA_GRANULE bytes. */
struct weave_arena_hdr {
	struct weave_arena *arena;
	u32 len;	/* the whole slice's, header included */
	u32 held;
};

static_assert(sizeof(struct weave_arena_hdr) <= WEAVE_ARENA_GRANULE);

static struct weave_arena_hdr *weave_arena_at(struct weave_arena *a, u32 off)
{
	return (struct weave_arena_hdr *)(a->base + off);
}

/**
 * weave_core_arena_init() - Make @a an empty arena over @size bytes at @base.
 * @a: The arena.
 * @base: Its bytes, aligned to at least 8; the caller owns them.
 * @size: Their number, a multiple of %WEAVE_ARENA_GRANULE.
 */
void weave_core_arena_init(struct weave_arena *a, void *base, u32 size)
{
	spin_lock_init(&a->lock);
	a->base = base;
	a->size = size;
	a->head = 0;
	a->tail = 0;
	a->used = 0;
	a->reclaimed = 0;
}

/* Put a header of @len bytes at @head, held or not, and move @head on. */
static void *weave_arena_put(struct weave_arena *a, u32 len, bool held)
{
	struct weave_arena_hdr *h = weave_arena_at(a, a->head);

	h->arena = a;
	h->len = len;
	h->held = held;
	a->head += len;
	a->used += len;
	return (u8 *)h + WEAVE_ARENA_GRANULE;
}

/* Place a slice of @need bytes, or return NULL; @a is not full. */
static void *weave_arena_fit(struct weave_arena *a, u32 need)
{
	/* Held bytes wrap: the room is [head, tail). */
	if (a->used && a->head < a->tail)
		return need <= a->tail - a->head ?
		       weave_arena_put(a, need, true) : NULL;
	/* Held bytes lie in [tail, head): room after them, or before. */
	if (need <= a->size - a->head)
		return weave_arena_put(a, need, true);
	if (need > a->tail)
		return NULL;
	if (a->head < a->size)
		weave_arena_put(a, a->size - a->head, false);
	a->head = 0;
	return weave_arena_put(a, need, true);
}

/**
 * weave_core_arena_reserve() - Take a slice of @len bytes.
 * @a: The arena, which has bytes.
 * @len: The slice's length; it takes weave_core_arena_cost() of the arena.
 *
 * Return: The slice, aligned to 8, or NULL if it does not fit now.
 */
void *weave_core_arena_reserve(struct weave_arena *a, u32 len)
{
	u64 need = weave_core_arena_cost(len);
	void *p = NULL;

	spin_lock(&a->lock);
	if (!a->used) {
		a->head = 0;
		a->tail = 0;
	}
	/* Not larger than the arena, and the arena not full. */
	if (need <= a->size && (!a->used || a->head != a->tail))
		p = weave_arena_fit(a, need);
	spin_unlock(&a->lock);
	return p;
}

/**
 * weave_core_arena_alone() - Make a slice of @len bytes that has no arena.
 * @mem: weave_core_arena_cost(@len) bytes, aligned to 8, that the caller frees
 *	when weave_core_arena_release() hands them back.
 * @len: The slice's length.
 *
 * For a slice too large for its arena: it is released like the others.
 *
 * Return: The slice.
 */
void *weave_core_arena_alone(void *mem, u32 len)
{
	struct weave_arena_hdr *h = mem;

	h->arena = NULL;
	h->len = weave_core_arena_cost(len);
	h->held = true;
	return (u8 *)mem + WEAVE_ARENA_GRANULE;
}

/**
 * weave_core_arena_release() - Give back the slice @p.
 * @p: A slice from weave_core_arena_reserve() or weave_core_arena_alone(),
 *	or NULL.
 *
 * An arena's slice is reused once every slice reserved before it was
 * released.  Any context but a hard interrupt.
 *
 * Return: For a slice of weave_core_arena_alone(), the memory given to it, for
 * the caller to free; else NULL.
 */
void *weave_core_arena_release(void *p)
{
	struct weave_arena_hdr *h;
	struct weave_arena *a;

	if (!p)
		return NULL;
	h = (struct weave_arena_hdr *)((u8 *)p - WEAVE_ARENA_GRANULE);
	a = h->arena;
	if (!a)
		return h;
	spin_lock(&a->lock);
	WARN_ON_ONCE(!h->held);
	h->held = false;
	while (a->used) {
		if (a->tail == a->size)
			a->tail = 0;
		h = weave_arena_at(a, a->tail);
		if (h->held)
			break;
		a->tail += h->len;
		a->used -= h->len;
		a->reclaimed++;
	}
	spin_unlock(&a->lock);
	return NULL;
}

/**
 * weave_core_arena_idle() - Whether @a holds no slice.
 * @a: The arena.
 *
 * Return: True if every slice was released.
 */
bool weave_core_arena_idle(struct weave_arena *a)
{
	bool idle;

	spin_lock(&a->lock);
	idle = !a->used;
	spin_unlock(&a->lock);
	return idle;
}

/**
 * weave_core_arena_reclaimed() - How many slices @a took back so far.
 * @a: The arena.
 *
 * Return: A count that only grows, for a waiter to see progress.
 */
u64 weave_core_arena_reclaimed(struct weave_arena *a)
{
	u64 n;

	spin_lock(&a->lock);
	n = a->reclaimed;
	spin_unlock(&a->lock);
	return n;
}
