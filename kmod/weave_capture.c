// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the capture windows of a client's slots, the state machine of
 * graph capture on top of the scheduler core.
 */

#include <linux/errno.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "weave_capture.h"
#include "weave_core.h"

/**
 * DOC: capture windows
 *
 * Each slot has at most one window, none -> prepared -> recording -> none,
 * owned by the logical stream that prepared it.  A refused transition
 * changes nothing.  Prepare takes one of the slot's isolation holds
 * (weave_core_isolate_get(), which executes the slot first), so that the
 * owner's own %DRM_IOCTL_WEAVE_STREAM_ISOLATE cannot end it; closing the
 * window, from any state, gives it back.  Begin executes the slot, so that
 * the warm-up is submitted before recording starts.  End by a stream other
 * than the owner, but folded onto the same slot, abandons the window: it
 * closes, and the caller learns whose it was.  What is recorded, the
 * drains and the doom of a window are the caller's: this is only the state
 * machine, which also compiles in user space.
 *
 * Everything here runs under &weave_core.lock.
 */

/**
 * weave_core_capture_init() - Give every slot of @core an empty window.
 * @cap: The windows.
 * @core: The initialized core.
 *
 * Return: 0 or -ENOMEM.
 */
int weave_core_capture_init(struct weave_capture *cap, struct weave_core *core)
{
	cap->core = core;
	cap->windows = kcalloc(core->max_streams, sizeof(*cap->windows),
			       GFP_KERNEL_ACCOUNT);
	return cap->windows ? 0 : -ENOMEM;
}

/**
 * weave_core_capture_fini() - Free the windows, which must all be closed.
 * @cap: The windows.
 */
void weave_core_capture_fini(struct weave_capture *cap)
{
	kfree(cap->windows);
	cap->windows = NULL;
}

static struct weave_window *weave_window_of(const struct weave_capture *cap,
					    u32 stream)
{
	return &cap->windows[weave_core_slot(cap->core, stream)];
}

/**
 * weave_core_capture_window() - The window of a logical stream's slot.
 * @cap: The windows.
 * @stream: The logical stream handle.
 *
 * Return: The window, to read.
 */
const struct weave_window *
weave_core_capture_window(const struct weave_capture *cap, u32 stream)
{
	lockdep_assert_held(cap->core->lock);
	return weave_window_of(cap, stream);
}

/**
 * weave_core_capture_recording() - Whether @stream owns a recording window.
 * @cap: The windows.
 * @stream: The logical stream handle.
 *
 * Return: True if @stream's launches are to be recorded, not run.
 */
bool weave_core_capture_recording(const struct weave_capture *cap, u32 stream)
{
	const struct weave_window *w = weave_core_capture_window(cap, stream);

	return w->state == WEAVE_WINDOW_RECORDING && w->owner == stream;
}

/**
 * weave_core_capture_prepare() - Open a window on @stream's slot.
 * @cap: The windows.
 * @stream: The logical stream handle, its owner.
 *
 * Return: 0; -EBUSY if the slot has a window; or the error with which the
 * backend refused a task when the slot was executed, and then no window
 * opened (a closed window's pending hold may have been given back).
 */
int weave_core_capture_prepare(struct weave_capture *cap, u32 stream)
{
	struct weave_window *w = weave_window_of(cap, stream);
	int err;

	lockdep_assert_held(cap->core->lock);
	if (w->state != WEAVE_WINDOW_NONE)
		return -EBUSY;
	err = weave_core_capture_settle(cap, stream);
	if (!err)
		err = weave_core_isolate_get(cap->core, stream);
	if (err)
		return err;
	w->state = WEAVE_WINDOW_PREPARED;
	w->owner = stream;
	w->isolated = true;
	return 0;
}

/**
 * weave_core_capture_begin() - Start recording a prepared window.
 * @cap: The windows.
 * @stream: The logical stream handle, which must own the window.
 *
 * Return: 0; -EBADFD if @stream owns no prepared window; or the error with
 * which the backend refused a task of the warm-up, and then nothing
 * changed.
 */
int weave_core_capture_begin(struct weave_capture *cap, u32 stream)
{
	struct weave_window *w = weave_window_of(cap, stream);
	int err;

	lockdep_assert_held(cap->core->lock);
	if (w->state != WEAVE_WINDOW_PREPARED || w->owner != stream)
		return -EBADFD;
	err = weave_core_flush(cap->core, stream);
	if (err)
		return err;
	w->state = WEAVE_WINDOW_RECORDING;
	return 0;
}

/**
 * weave_core_capture_close() - Close the window of @stream's slot, if any.
 * @cap: The windows.
 * @stream: A logical stream of the slot.
 *
 * Gives back the window's isolation hold, which executes the slot.  If the
 * backend refuses a task of the slot then, the window closes all the same
 * but its hold stays with the slot, *pending*: the tasks queued while it
 * was isolated still run isolated, and weave_core_capture_settle() gives the
 * hold back once they could be handed over.
 *
 * Return: True if there was a window.
 */
bool weave_core_capture_close(struct weave_capture *cap, u32 stream)
{
	struct weave_window *w = weave_window_of(cap, stream);
	bool open = w->state != WEAVE_WINDOW_NONE;

	lockdep_assert_held(cap->core->lock);
	w->state = WEAVE_WINDOW_NONE;
	w->owner = 0;
	weave_core_capture_settle(cap, stream);
	return open;
}

/**
 * weave_core_capture_settle() - Give back the pending isolation hold of the
 * closed window of @stream's slot, if it has one.
 * @cap: The windows.
 * @stream: A logical stream of the slot.
 *
 * See weave_core_capture_close().  Called again by anything that executes the
 * slot; after an execution that handed over all of the slot's tasks it
 * cannot fail.
 *
 * Return: 0, also without a pending hold; or the error with which the
 * backend refused a task of the slot, and the hold stays pending.
 */
int weave_core_capture_settle(struct weave_capture *cap, u32 stream)
{
	struct weave_window *w = weave_window_of(cap, stream);
	int err;

	lockdep_assert_held(cap->core->lock);
	if (w->state != WEAVE_WINDOW_NONE || !w->isolated)
		return 0;
	err = weave_core_isolate_put(cap->core, stream);
	if (!err)
		w->isolated = false;
	return err;
}

/**
 * weave_core_capture_end() - End the recording window of @stream's slot.
 * @cap: The windows.
 * @stream: A logical stream of the slot.
 * @owner: Set to the window's owner, whether it ends or not.
 *
 * The window closes if it was recording: sealed when @stream owns it,
 * abandoned otherwise.  The caller seals what was recorded.
 *
 * Return: 0 if @stream owned it; -ECANCELED if it was abandoned; -EBADFD if
 * the slot had no recording window, which changed nothing.
 */
int weave_core_capture_end(struct weave_capture *cap, u32 stream, u32 *owner)
{
	struct weave_window *w = weave_window_of(cap, stream);

	lockdep_assert_held(cap->core->lock);
	*owner = w->owner;
	if (w->state != WEAVE_WINDOW_RECORDING)
		return -EBADFD;
	weave_core_capture_close(cap, stream);
	return *owner == stream ? 0 : -ECANCELED;
}
