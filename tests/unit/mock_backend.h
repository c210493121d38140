/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A mock weave backend for the core's unit tests.  It records every call
 * the core makes, in order, as space-separated tokens:
 *
 *   C<slot>          create_stream for slot
 *   D<bs>            destroy_stream
 *   E<bs>:<kernel>   enqueue of a launch on backend stream bs
 *   W<bs>:<seqno>    enqueue of a host write (its staging is freed here)
 *   ...!             either, refused: the task stays the core's
 *   X<bs>:<kernel>   fail of a launch the core could not keep, refused
 *                    on backend stream bs
 *   XW<bs>:<seqno>   fail of a host write (its staging is freed here)
 *   F<bs>            flush
 *   T<track>         the core's track_idle callback, index in mock->tracks
 *   R<stream>:<i|s>:<slots>:<tasks>
 *                    executed: an execution observed (only with
 *                    mock->observe), its stream, strategy (interleave or
 *                    sequential), slots and tasks
 *
 * A backend stream is named by the slot it was created for.
 */
#ifndef _WEAVE_MOCK_BACKEND_H
#define _WEAVE_MOCK_BACKEND_H

#include "weave_core.h"

#define MOCK_SLOTS	16
#define MOCK_TRACKS	8
#define MOCK_SEEN	64

struct weave_bstream {
	u32 slot;
	u32 max_tasks;	/* the hint create_stream was given */
	bool isolated;
};

struct mock_backend {
	char log[4096];
	size_t len;
	struct weave_bstream *streams[MOCK_SLOTS];
	unsigned int live_streams;
	struct weave_track tracks[MOCK_TRACKS];

	/* Copies of every task the backend took through enqueue, in order. */
	struct weave_task seen[MOCK_SEEN];
	unsigned int num_seen;
	/* The error of the last fail. */
	int failed_err;
	/* Tasks taken, through enqueue or fail, by the slot they came from. */
	unsigned int taken[MOCK_SLOTS];
	/* Whether observe asks to be told of executions. */
	bool observe;

	/*
	 * Error injection; an error of 0 injects nothing.  enqueue refuses
	 * launches of fail_enqueue_kernel, and host writes if
	 * fail_enqueue_writes.
	 */
	u32 fail_create_slot;
	int fail_create_err;
	u32 fail_enqueue_kernel;
	bool fail_enqueue_writes;
	int fail_enqueue_err;
	u32 fail_flush_slot;
	int fail_flush_err;
};

extern const struct weave_backend_ops mock_ops;

void mock_track_idle(struct weave_core *core, struct weave_track *track);
struct weave_core_params mock_params(struct mock_backend *m,
				     struct mutex *lock, u32 max_streams,
				     u32 max_tasks);
const char *mock_log(const struct mock_backend *m);
void mock_clear(struct mock_backend *m);
void mock_isolate(struct mock_backend *m, u32 slot, bool isolated);

#endif
