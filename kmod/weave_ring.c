// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: a slot's task ring, compact entries in chunks that grow on demand.
 *
 * Packing a task into its entry, and the chunked FIFO of entries: push,
 * peek, pop, setting chunks aside and giving them back.  Pure, like the
 * core that uses it; see "DOC: Ring memory".
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

/* Whether a launch's grid differs from the 1x1x1 an entry leaves out. */
static bool weave_task_has_grid(const struct weave_task *task)
{
	return task->kind == WEAVE_TASK_LAUNCH &&
	       (task->grid.x != 1 || task->grid.y != 1 || task->grid.z != 1);
}

/**
 * weave_core_entry_size_of() - The bytes a task's entry will take in a ring.
 * @task: A task that weave_core_register() would accept.
 *
 * Return: weave_core_entry_size() of the entry that weave_core_entry_pack()
 * makes of it.
 */
size_t weave_core_entry_size_of(const struct weave_task *task)
{
	size_t n = sizeof(struct weave_entry);

	if (weave_task_has_grid(task))
		n += WEAVE_ENTRY_GRID_BYTES;
	if (task->kind == WEAVE_TASK_HOST_WRITE)
		n += sizeof(struct weave_entry_write);
	n += task->num_bindings * sizeof(struct weave_binding);
	return ALIGN(n + task->uniform_len, 8);
}

/**
 * weave_core_entry_pack() - Write a task as a ring entry.
 * @e: Room for weave_core_entry_size_of(@task) bytes, 8-byte aligned.
 * @task: A task that weave_core_register() would accept.
 *
 * Copies the head and only the parts @task has: the used bindings and
 * uniform bytes, the grid if it is not 1x1x1, a host write's staging.
 */
void weave_core_entry_pack(struct weave_entry *e, const struct weave_task *task)
{
	struct weave_entry_write w = { .data = task->data, .len = task->len };
	u8 *p;

	*e = (struct weave_entry) {
		.seqno = task->seqno,
		.stream_seqno = task->stream_seqno,
		.stream = task->stream,
		.label = task->label,
		.refuse = task->refuse,
		.kind = task->kind,
		.flags = weave_task_has_grid(task) ? WEAVE_ENTRY_GRID : 0,
		.slot = task->slot,
		.kernel_id = task->kind == WEAVE_TASK_LAUNCH ?
			     task->kernel_id : 0,
		.num_bindings = task->num_bindings,
		.uniform_len = task->uniform_len,
	};
	p = (u8 *)(e + 1);
	if (e->flags & WEAVE_ENTRY_GRID) {
		memcpy(p, &task->grid, sizeof(task->grid));
		p += WEAVE_ENTRY_GRID_BYTES;
	}
	if (task->kind == WEAVE_TASK_HOST_WRITE) {
		memcpy(p, &w, sizeof(w));
		p += sizeof(w);
	}
	if (task->num_bindings) {
		memcpy(p, task->bindings,
		       task->num_bindings * sizeof(*task->bindings));
		p += task->num_bindings * sizeof(*task->bindings);
	}
	if (task->uniform_len)
		memcpy(p, task->uniforms, task->uniform_len);
}

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
 * @size: The entry's weave_core_entry_size_of().
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
