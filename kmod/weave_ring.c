// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: a slot's task ring, compact entries in chunks that grow on demand.
 *
 * The chunked FIFO of entries: push, peek, pop, setting chunks aside and
 * giving them back.  Pure, like the core that uses it; see "DOC: Ring
 * memory".
 */

#include <linux/align.h>
#include <linux/build_bug.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "weave_ring.h"

/**
 * struct weave_chunk - A piece of a slot's ring.
 * @next: The next chunk towards the ring's tail, or on the free list.
 * @used: Bytes of entries written in @data.
 * @data: The entries, back to back, each 8-byte aligned.
 */
struct weave_chunk {
	struct weave_chunk *next;
	u32 used;
	u64 data[];
};

/* The bytes of entries a chunk holds. */
#define WEAVE_CHUNK_ROOM \
	((u32)(WEAVE_RING_CHUNK_BYTES - offsetof(struct weave_chunk, data)))

static_assert(WEAVE_ENTRY_MAX_SIZE <= WEAVE_CHUNK_ROOM);
static_assert(sizeof(struct weave_entry) == 32);

static void weave_chunk_free(struct weave_chunk *c, u64 *bytes)
{
	kfree(c);
	*bytes -= WEAVE_RING_CHUNK_BYTES;
}

/* The bytes the tail chunk has left for entries; 0 without a chunk. */
static u32 weave_core_ring_room(const struct weave_ring *r)
{
	return r->tail ? WEAVE_CHUNK_ROOM - r->tail->used : 0;
}

/**
 * weave_core_ring_chunks_needed() - The chunks that appending entries
 * would take.
 * @r: The ring, as it is.
 * @entries: The entries that would be appended, in order, back to back
 *	(weave_core_entry_next()).
 * @n: Number of @entries.
 *
 * Entries go to the tail chunk while they fit, then to a new one.  Pops
 * only empty chunks or give them to the free list, so this bounds what
 * pushing the entries takes, whatever is popped in between.
 *
 * Return: The number of new chunks.
 */
u32 weave_core_ring_chunks_needed(const struct weave_ring *r,
				  const struct weave_entry *entries, u32 n)
{
	u32 i, need = 0, room = weave_core_ring_room(r);
	const struct weave_entry *e = entries;
	size_t size;

	for (i = 0; i < n; i++, e = weave_core_entry_next(e)) {
		size = weave_core_entry_size(e);
		if (size > room) {
			need++;
			room = WEAVE_CHUNK_ROOM;
		}
		room -= size;
	}
	return need;
}

/**
 * weave_core_ring_set_aside() - Have chunks on a ring's free list.
 * @r: The ring.
 * @chunks: How many it must have there.
 * @bytes: The bytes-held counter.
 *
 * Return: 0, or -ENOMEM; the chunks allocated so far stay on the list.
 */
int weave_core_ring_set_aside(struct weave_ring *r, u32 chunks, u64 *bytes)
{
	struct weave_chunk *c;

	while (r->nfree < chunks) {
		c = kmalloc(WEAVE_RING_CHUNK_BYTES, GFP_KERNEL_ACCOUNT);
		if (!c)
			return -ENOMEM;
		*bytes += WEAVE_RING_CHUNK_BYTES;
		c->next = r->free;
		r->free = c;
		r->nfree++;
	}
	return 0;
}

/**
 * weave_core_ring_make_room() - Make sure an entry can be pushed.
 * @r: The ring.
 * @size: The entry's weave_core_entry_size().
 * @bytes: The bytes-held counter.
 *
 * Return: 0 if the tail chunk has room or a free chunk is there, allocated
 * if need be; -ENOMEM.
 */
int weave_core_ring_make_room(struct weave_ring *r, size_t size, u64 *bytes)
{
	if (weave_core_ring_room(r) >= size)
		return 0;
	return weave_core_ring_set_aside(r, 1, bytes);
}

/**
 * weave_core_ring_push() - Append an entry.
 * @r: The ring, with room for it (weave_core_ring_make_room()).
 * @e: The entry, complete: its weave_core_entry_size() bytes are moved
 *	into the ring as they are.
 */
void weave_core_ring_push(struct weave_ring *r, const struct weave_entry *e)
{
	size_t size = weave_core_entry_size(e);
	struct weave_chunk *c;

	if (weave_core_ring_room(r) < size) {
		c = r->free;
		r->free = c->next;
		r->nfree--;
		c->next = NULL;
		c->used = 0;
		if (r->tail)
			r->tail->next = c;
		else
			r->head = c;
		r->tail = c;
	}
	memcpy((u8 *)r->tail->data + r->tail->used, e, size);
	r->tail->used += size;
	r->count++;
}

/**
 * weave_core_ring_peek() - The oldest entry of a ring, which stays there.
 * @r: The ring, not empty.
 *
 * Return: The entry; valid after weave_core_ring_pop() too, until the
 * next push, weave_core_ring_trim() or weave_core_ring_fini().
 */
struct weave_entry *weave_core_ring_peek(const struct weave_ring *r)
{
	return (void *)((u8 *)r->head->data + r->head_off);
}

/**
 * weave_core_ring_pop() - Take the oldest entry off a ring.
 * @r: The ring, not empty.
 *
 * A chunk it empties goes to the free list; the last chunk of an empty
 * ring stays, emptied, for the next push.
 */
void weave_core_ring_pop(struct weave_ring *r)
{
	struct weave_chunk *c = r->head;

	r->head_off += weave_core_entry_size(weave_core_ring_peek(r));
	if (!--r->count) {
		WARN_ON_ONCE(c != r->tail);
		r->head_off = 0;
		c->used = 0;
	} else if (r->head_off >= c->used) {
		r->head = c->next;
		r->head_off = 0;
		c->next = r->free;
		r->free = c;
		r->nfree++;
	}
}

/**
 * weave_core_ring_trim() - Free the chunks of a ring's free list.
 * @r: The ring.
 * @bytes: The bytes-held counter.
 */
void weave_core_ring_trim(struct weave_ring *r, u64 *bytes)
{
	struct weave_chunk *c;

	while (r->free) {
		c = r->free;
		r->free = c->next;
		weave_chunk_free(c, bytes);
	}
	r->nfree = 0;
}

/**
 * weave_core_ring_fini() - Free every chunk of an empty ring.
 * @r: The ring, with no entry left.
 * @bytes: The bytes-held counter.
 */
void weave_core_ring_fini(struct weave_ring *r, u64 *bytes)
{
	WARN_ON_ONCE(r->count);
	weave_core_ring_trim(r, bytes);
	if (r->tail)
		weave_chunk_free(r->tail, bytes);
	r->head = NULL;
	r->tail = NULL;
}
