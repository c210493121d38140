/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: submitting tasks on a stream: those of an ENQUEUE, or a recording's.
 */
#ifndef _WEAVE_SUBMIT_H_
#define _WEAVE_SUBMIT_H_

#include <linux/types.h>

#include "weave_core.h"
#include "weave_drm.h"

struct dma_fence;
struct drm_file;
struct drm_weave_enqueue;
struct weave_client;
struct weave_lstream;
struct weave_entry;

/**
 * struct weave_room - What an ENQUEUE that found its staging arena full
 * waits for, with no lock held.
 * @full: Set if the call stopped, with -EAGAIN, to wait for room.
 * @last: Set by the caller: the wait timed out, so fail with -EBUSY
 *	rather than stop again.
 * @slot: The slot whose arena is full.
 * @seen: Its weave_eng_staging_reclaimed() once the call let go of its own
 *	slices.
 * @resident: Set if the call's pin step failed with -EDQUOT or -ENOMEM: a
 *	limit of resident bytes, or memory, which completed jobs that still
 *	hold buffers may be keeping.
 */
struct weave_room {
	bool full;
	bool last;
	bool resident;
	u32 slot;
	u64 seen;
};

/**
 * struct weave_recorder - Where the launches of an ENQUEUE of a stream
 * that records its capture window go instead of the queue.
 * @record: Move the launches among the @n prepared @entries (back to
 *	back) into the window of @stream, and the other entries to the front
 *	of @entries, in order; return how many are left in @entries, or a
 *	negative errno with nothing moved.
 * @doom: Doom the window of @stream with @err, if it is not doomed yet.
 */
struct weave_recorder {
	int (*record)(struct weave_client *c, u32 stream,
		      struct weave_entry *entries, u32 n);
	void (*doom)(struct weave_client *c, u32 stream, int err);
};

/**
 * struct weave_ktask - A task in kernel memory whole, as the copy of a
 * shared ring's descriptor: its bindings and uniforms inline.
 * @task: The task; @task.bindings has no pointer, @task.uniforms none.
 * @bindings: Its @task.bindings.count bindings.
 * @uniforms: Its @task.uniforms_size uniform bytes.
 */
struct weave_ktask {
	struct drm_weave_task task;
	struct drm_weave_binding bindings[WEAVE_MAX_BINDINGS];
	u8 uniforms[WEAVE_MAX_UNIFORM_BYTES];
};

int weave_submit_from(struct weave_client *c, struct drm_file *file,
		      struct drm_weave_enqueue *args,
		      const struct weave_ktask *kt,
		      const struct weave_entry *recorded, u32 nrecorded,
		      int refuse, const struct weave_recorder *rec,
		      struct weave_room *room);

/**
 * weave_submit() - weave_submit_from() of an ENQUEUE's or a recording's
 * tasks.
 * @c: The client.
 * @file: Its file.
 * @args: As for weave_submit_from().
 * @recorded: As for weave_submit_from().
 * @nrecorded: As for weave_submit_from().
 * @refuse: As for weave_submit_from().
 * @rec: As for weave_submit_from().
 * @room: As for weave_submit_from().
 *
 * Return: As weave_submit_from().
 */
static inline int weave_submit(struct weave_client *c, struct drm_file *file,
			       struct drm_weave_enqueue *args,
			       const struct weave_entry *recorded,
			       u32 nrecorded, int refuse,
			       const struct weave_recorder *rec,
			       struct weave_room *room)
{
	return weave_submit_from(c, file, args, NULL, recorded, nrecorded,
				 refuse, rec, room);
}

/**
 * weave_submit_ktasks() - weave_submit_from() of the tasks of a shared ring,
 * in kernel memory whole.
 * @c: The client.
 * @file: Its file.
 * @args: The stream and the tasks' count; out, the seqno.
 * @kt: The tasks, copied in once by the caller, which nothing else writes.
 * @rec: As for weave_submit_from().
 * @room: As for weave_submit_from().
 *
 * Return: As weave_submit_from().
 */
static inline int weave_submit_ktasks(struct weave_client *c,
				      struct drm_file *file,
				      struct drm_weave_enqueue *args,
				      const struct weave_ktask *kt,
				      const struct weave_recorder *rec,
				      struct weave_room *room)
{
	return weave_submit_from(c, file, args, kt, NULL, 0, 0, rec, room);
}

struct weave_lstream *weave_enqueue_stream(struct weave_client *c,
					   const struct drm_weave_enqueue *args,
					   u32 count);
int weave_enqueue_in_fences(struct drm_file *file,
			    const struct drm_weave_enqueue *args,
			    struct dma_fence **fences, u32 *nf);

#endif /* _WEAVE_SUBMIT_H_ */
