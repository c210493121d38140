/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: checking one task straight into its compact ring entry.
 */
#ifndef _WEAVE_PREPARE_H_
#define _WEAVE_PREPARE_H_

#include <linux/types.h>

#include "weave_task.h"

struct drm_file;
struct drm_weave_task;
struct weave_client;
struct weave_ktask;
struct weave_room;

/**
 * struct weave_stage - What one ENQUEUE staged so far.
 * @stream: Its stream.
 * @slot: The stream's slot.
 * @bytes: Host-write bytes, which max_staged_bytes counts.
 * @arena: Bytes of the slot's arena, at weave_core_arena_cost().
 * @room: Where a full arena is told.
 * @kt: The kernel copies of the tasks, or NULL.
 */
struct weave_stage {
	u32 stream;
	u32 slot;
	u64 bytes;
	u64 arena;
	struct weave_room *room;
	const struct weave_ktask *kt;
};

/**
 * weave_entry_write_of() - Where a host write's entry keeps its staging.
 * @e: The entry, of a host write.
 *
 * Return: Its &struct weave_entry_write, to write.
 */
static inline struct weave_entry_write *
weave_entry_write_of(struct weave_entry *e)
{
	return weave_core_entry_part(e, weave_core_entry_write_off(e));
}

int weave_task_prepare(struct weave_client *c, struct drm_file *file,
		       const struct drm_weave_task *ut,
		       const struct weave_ktask *kt,
		       struct weave_entry *e, struct weave_stage *st);

#endif /* _WEAVE_PREPARE_H_ */
