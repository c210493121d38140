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
 *
 * The tests describe a task whole, as a &struct mock_task, and queue it
 * with mock_register(): it packs the task into an entry as the module's
 * ioctls prepare one (kmod/weave_prepare.c), with the same layout helpers,
 * and hands that to weave_core_register_entry(), which the module runs.
 */
#ifndef _WEAVE_MOCK_BACKEND_H
#define _WEAVE_MOCK_BACKEND_H

#include "weave_core.h"

#define MOCK_SLOTS	16
#define MOCK_TRACKS	8
#define MOCK_SEEN	64

/*
 * A task as a test describes it.  The core sets @stream, @seqno and @slot
 * (mock_register() copies them back); the rest is the entry's.  A launch
 * has no @data; @data and @len are a host write's staging, from
 * kvmalloc(), which the entry takes over.  Counts past what an entry may
 * hold go into its head as they are, with only what fits of the parts:
 * the core must refuse them.
 */
struct mock_task {
	enum weave_task_kind kind;
	u32 stream;
	u64 seqno;
	u32 slot;
	u32 num_bindings;
	struct weave_binding bindings[WEAVE_MAX_BINDINGS];
	u32 kernel_id;
	struct weave_grid grid;
	u32 uniform_len;
	u8 uniforms[WEAVE_MAX_UNIFORM_BYTES];
	void *data;
	u64 len;
	u64 stream_seqno;
	u32 label;
	int refuse;
};

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
	struct mock_task seen[MOCK_SEEN];
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

void mock_entry_pack(struct weave_entry *e, const struct mock_task *t);
int mock_register(struct weave_core *core, u32 stream, struct mock_task *t);

void mock_track_idle(struct weave_core *core, struct weave_track *track);
struct weave_core_params mock_params(struct mock_backend *m,
				     struct mutex *lock, u32 max_streams,
				     u32 max_tasks);
const char *mock_log(const struct mock_backend *m);
void mock_clear(struct mock_backend *m);
void mock_isolate(struct mock_backend *m, u32 slot, bool isolated);

#endif
