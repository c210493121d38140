/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: a task as a slot's ring holds it, the compact entry.
 *
 * The types the scheduler core and its rings share: a task's bindings and
 * grid and the compact entry a slot's ring keeps of it, which the caller
 * prepares, with the helpers that read an entry.  See "DOC: Ring memory"
 * in weave_core.h.
 */
#ifndef _WEAVE_TASK_H_
#define _WEAVE_TASK_H_

#include <linux/align.h>
#include <linux/bits.h>
#include <linux/types.h>

/** WEAVE_MAX_BINDINGS - The most buffers one task binds. */
#define WEAVE_MAX_BINDINGS		8
/** WEAVE_MAX_UNIFORM_BYTES - The most inline uniform bytes of a launch. */
#define WEAVE_MAX_UNIFORM_BYTES		64

/** WEAVE_ACCESS_READ - The task reads the bound range. */
#define WEAVE_ACCESS_READ		BIT(0)
/** WEAVE_ACCESS_WRITE - The task writes the bound range. */
#define WEAVE_ACCESS_WRITE		BIT(1)
/** WEAVE_ACCESS_RW - The task reads and writes the bound range. */
#define WEAVE_ACCESS_RW			(WEAVE_ACCESS_READ | WEAVE_ACCESS_WRITE)

/**
 * enum weave_task_kind - What a task does.
 * @WEAVE_TASK_LAUNCH: Run a kernel over a grid.
 * @WEAVE_TASK_HOST_WRITE: Copy staged bytes into a buffer range.
 */
enum weave_task_kind {
	WEAVE_TASK_LAUNCH,
	WEAVE_TASK_HOST_WRITE,
};

/**
 * struct weave_track - Where a client's queued tasks on one buffer sit.
 * @slot: The slot holding every queued task that binds the buffer; only
 *	meaningful while @queued is not zero.
 * @queued: How many bindings of queued tasks name the buffer.
 *
 * One per (client, buffer), owned by the caller, zero-initialised and
 * written only by the core.  See "DOC: Buffer tracking".
 */
struct weave_track {
	u32 slot;
	u32 queued;
};

/**
 * struct weave_binding - One buffer range a task touches.
 * @bo: The buffer, opaque to the core and handed to the backend.
 * @track: The client's tracking struct of @bo; never NULL.
 * @offset: Start of the range, in bytes.
 * @size: Length of the range, in bytes.
 * @access: %WEAVE_ACCESS_READ, %WEAVE_ACCESS_WRITE or %WEAVE_ACCESS_RW.
 */
struct weave_binding {
	void *bo;
	struct weave_track *track;
	u64 offset;
	u64 size;
	u32 access;
};

/**
 * struct weave_grid - Launch dimensions, in workgroups.
 * @x: Width.
 * @y: Height.
 * @z: Depth.
 */
struct weave_grid {
	u32 x;
	u32 y;
	u32 z;
};

/** WEAVE_ENTRY_GRID - &weave_entry.flags: a grid follows the head. */
#define WEAVE_ENTRY_GRID		BIT(0)

/**
 * struct weave_entry - A task as a slot's ring holds it: a compact head,
 * followed only by the parts the task has.
 * @seqno: Set by the core: the client's registration counter, 1 for the
 *	first task of a &struct weave_core, never reused.
 * @stream_seqno: Set by the caller, for failure reports: the task's
 *	sequence number on its logical stream, as the uAPI counts it.
 * @stream: Set by the core: the logical stream the task was registered
 *	on.
 * @label: Set by the caller, for failure reports: the user's label.
 * @refuse: Set by the caller: zero, or the negative errno of a task that
 *	must not run, because a capture window refused it; the backend
 *	records a failure on what it should have written instead.
 * @kind: A &enum weave_task_kind.
 * @flags: %WEAVE_ENTRY_GRID if the grid is not 1x1x1 and follows.
 * @slot: Set by the core: the slot of @stream, weave_core_slot().
 * @kernel_id: Launch only: which kernel to run; 0 for a host write.
 * @num_bindings: The &struct weave_binding that follow, the buffers the
 *	task touches; exactly 1 for a host write, its destination, whose
 *	size is &weave_entry_write.len.
 * @uniform_len: Launch only: the inline uniform bytes that follow.
 *
 * Then, 8-byte aligned and in this order: the &struct weave_grid if
 * %WEAVE_ENTRY_GRID (16 bytes); for a host write, its &struct
 * weave_entry_write; @num_bindings &struct weave_binding; @uniform_len
 * bytes.  Read them with the weave_core_entry_*() helpers.  See "DOC:
 * Ring memory".
 */
struct weave_entry {
	u64 seqno;
	u64 stream_seqno;
	u32 stream;
	u32 label;
	s16 refuse;
	u8 kind;
	u8 flags;
	u8 slot;
	u8 kernel_id;
	u8 num_bindings;
	u8 uniform_len;
};

/**
 * struct weave_entry_write - What an entry of a host write adds.
 * @data: Kernel-staged bytes from kvmalloc() or kmalloc(); the task owns
 *	them, see "DOC: Task ownership".
 * @len: Bytes at @data, not zero.
 */
struct weave_entry_write {
	void *data;
	u64 len;
};

/* The grid's place in an entry, aligned as every part is. */
#define WEAVE_ENTRY_GRID_BYTES	ALIGN(sizeof(struct weave_grid), 8)

/** WEAVE_ENTRY_MAX_SIZE - The largest &struct weave_entry with its parts. */
#define WEAVE_ENTRY_MAX_SIZE						\
	(sizeof(struct weave_entry) + WEAVE_ENTRY_GRID_BYTES +		\
	 sizeof(struct weave_entry_write) +				\
	 WEAVE_MAX_BINDINGS * sizeof(struct weave_binding) +		\
	 ALIGN(WEAVE_MAX_UNIFORM_BYTES, 8))

/** WEAVE_RING_CHUNK_BYTES - The unit in which a slot's ring grows. */
#define WEAVE_RING_CHUNK_BYTES		512

/* Where the parts of @e start, from the head. */
static inline size_t weave_core_entry_write_off(const struct weave_entry *e)
{
	return sizeof(*e) +
	       (e->flags & WEAVE_ENTRY_GRID ? WEAVE_ENTRY_GRID_BYTES : 0);
}

static inline size_t weave_core_entry_bindings_off(const struct weave_entry *e)
{
	return weave_core_entry_write_off(e) +
	       (e->kind == WEAVE_TASK_HOST_WRITE ?
		sizeof(struct weave_entry_write) : 0);
}

static inline size_t weave_core_entry_uniforms_off(const struct weave_entry *e)
{
	return weave_core_entry_bindings_off(e) +
	       e->num_bindings * sizeof(struct weave_binding);
}

/**
 * weave_core_entry_size() - The bytes an entry takes in its ring.
 * @e: The entry.
 *
 * Return: The head and its parts, a multiple of 8.
 */
static inline size_t weave_core_entry_size(const struct weave_entry *e)
{
	return ALIGN(weave_core_entry_uniforms_off(e) + e->uniform_len, 8);
}

/**
 * weave_core_entry_bindings() - The bindings of an entry.
 * @e: The entry.
 *
 * Return: Its &weave_entry.num_bindings bindings.
 */
static inline const struct weave_binding *
weave_core_entry_bindings(const struct weave_entry *e)
{
	return (const void *)((const u8 *)e + weave_core_entry_bindings_off(e));
}

/**
 * weave_core_entry_uniforms() - The uniform bytes of an entry.
 * @e: The entry.
 *
 * Return: Its &weave_entry.uniform_len bytes.
 */
static inline const u8 *weave_core_entry_uniforms(const struct weave_entry *e)
{
	return (const u8 *)e + weave_core_entry_uniforms_off(e);
}

/**
 * weave_core_entry_grid() - The grid of an entry.
 * @e: The entry.
 *
 * Return: Its grid; 1x1x1 if it has none.
 */
static inline struct weave_grid
weave_core_entry_grid(const struct weave_entry *e)
{
	struct weave_grid g = { 1, 1, 1 };

	if (e->flags & WEAVE_ENTRY_GRID)
		g = *(const struct weave_grid *)(e + 1);
	return g;
}

/**
 * weave_core_entry_write() - The staging of a host write's entry.
 * @e: The entry, of a host write.
 *
 * Return: Where its staged bytes and their length are.
 */
static inline const struct weave_entry_write *
weave_core_entry_write(const struct weave_entry *e)
{
	return (const void *)((const u8 *)e + weave_core_entry_write_off(e));
}

/**
 * weave_core_entry_data() - The staging an entry owns.
 * @e: The entry.
 *
 * Return: A host write's staged bytes; NULL for a launch.
 */
static inline void *weave_core_entry_data(const struct weave_entry *e)
{
	return e->kind == WEAVE_TASK_HOST_WRITE ? weave_core_entry_write(e)->data :
						 NULL;
}

/**
 * weave_core_entry_len() - The bytes of the staging an entry owns.
 * @e: The entry.
 *
 * Return: A host write's length; 0 for a launch.
 */
static inline u64 weave_core_entry_len(const struct weave_entry *e)
{
	return e->kind == WEAVE_TASK_HOST_WRITE ? weave_core_entry_write(e)->len : 0;
}

/**
 * weave_core_entry_next() - The entry that follows another, back to back.
 * @e: An entry of a packed run of entries (a ring chunk's, or a caller's
 *	scratch of prepared entries).
 *
 * Return: Where the next entry starts, weave_core_entry_size() past @e.
 */
static inline struct weave_entry *
weave_core_entry_next(const struct weave_entry *e)
{
	return (struct weave_entry *)((const u8 *)e + weave_core_entry_size(e));
}

/**
 * weave_core_entry_part() - Where a part of an entry is written.
 * @e: The entry, whose head says which parts it has.
 * @off: The part's offset, from a weave_core_entry_*_off() helper.
 *
 * For a caller that prepares an entry in place.
 *
 * Return: The part's first byte.
 */
static inline void *weave_core_entry_part(struct weave_entry *e, size_t off)
{
	return (u8 *)e + off;
}

#endif /* _WEAVE_TASK_H_ */
