/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the capture windows of a client's slots, the state machine of
 * graph capture on top of the scheduler core; it needs no device.
 */
#ifndef _WEAVE_CAPTURE_H_
#define _WEAVE_CAPTURE_H_

#include <linux/types.h>

struct weave_core;

/**
 * enum weave_window_state - Where a slot's capture window is.
 * @WEAVE_WINDOW_NONE: No window.
 * @WEAVE_WINDOW_PREPARED: Prepared: the slot is isolated, the owner warms
 *	up, its tasks run.
 * @WEAVE_WINDOW_RECORDING: The owner's launches are recorded, not run.
 *
 * The values are those of &enum drm_weave_capture_state.
 */
enum weave_window_state {
	WEAVE_WINDOW_NONE = 0,
	WEAVE_WINDOW_PREPARED = 1,
	WEAVE_WINDOW_RECORDING = 2,
};

/**
 * struct weave_window - A slot's capture window.
 * @state: A &enum weave_window_state.
 * @owner: The logical stream that opened it; 0 without a window.
 * @isolated: The window holds one of the slot's isolation holds; or,
 *	with state %WEAVE_WINDOW_NONE, the hold of a closed window is
 *	pending (see weave_core_capture_close()).
 */
struct weave_window {
	enum weave_window_state state;
	u32 owner;
	bool isolated;
};

/**
 * struct weave_capture - The capture windows of one scheduler core.
 * @core: The core, whose lock guards the windows.
 * @windows: One per slot.
 */
struct weave_capture {
	struct weave_core *core;
	struct weave_window *windows;
};

int weave_core_capture_init(struct weave_capture *cap, struct weave_core *core);
void weave_core_capture_fini(struct weave_capture *cap);
const struct weave_window *
weave_core_capture_window(const struct weave_capture *cap, u32 stream);
bool weave_core_capture_recording(const struct weave_capture *cap, u32 stream);
int weave_core_capture_prepare(struct weave_capture *cap, u32 stream);
int weave_core_capture_begin(struct weave_capture *cap, u32 stream);
int weave_core_capture_end(struct weave_capture *cap, u32 stream, u32 *owner);
bool weave_core_capture_close(struct weave_capture *cap, u32 stream);
int weave_core_capture_settle(struct weave_capture *cap, u32 stream);

#endif /* _WEAVE_CAPTURE_H_ */
