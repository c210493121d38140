/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: faulting in the user memory of ENQUEUE and REPLAY.
 */
#ifndef _WEAVE_FAULT_IN_H_
#define _WEAVE_FAULT_IN_H_

#include <linux/types.h>

struct drm_weave_array;
struct drm_weave_enqueue;
struct weave_client;

bool weave_enqueue_fault_in(struct weave_client *c,
			    const struct drm_weave_enqueue *args);
bool weave_syncs_fault_in(const struct drm_weave_array *syncs);

#endif /* _WEAVE_FAULT_IN_H_ */
