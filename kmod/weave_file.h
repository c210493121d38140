/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: clients' files: open, close, unplug, and the stream ioctls.
 */
#ifndef _WEAVE_FILE_H_
#define _WEAVE_FILE_H_

#include <linux/types.h>

struct drm_device;
struct drm_file;
struct weave_device;

int weave_client_open(struct drm_device *drm, struct drm_file *file);
void weave_client_postclose(struct drm_device *drm, struct drm_file *file);
void weave_clients_unplug(struct weave_device *wdev);
int weave_stream_create_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file);
int weave_stream_destroy_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file);
int weave_stream_isolate_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file);
int weave_set_param_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file);

#endif /* _WEAVE_FILE_H_ */
