/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the ENQUEUE ioctl: its tries, and recording instead of queueing.
 */
#ifndef _WEAVE_ENQUEUE_H_
#define _WEAVE_ENQUEUE_H_

struct drm_device;
struct drm_file;
struct weave_recorder;

/* Where the launches of a stream that records its window go. */
extern const struct weave_recorder weave_graph_recorder;

int weave_enqueue_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file);

#endif /* _WEAVE_ENQUEUE_H_ */
