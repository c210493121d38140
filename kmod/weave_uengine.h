/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: user engines attached to a device's engine queues, and their
 * files.
 */
#ifndef _WEAVE_UENGINE_H_
#define _WEAVE_UENGINE_H_

#include <linux/types.h>

struct drm_device;
struct drm_file;
struct drm_weave_engines;
struct weave_device;

int weave_uengines_init(struct weave_device *wdev);
void weave_uengines_report(struct weave_device *wdev,
			   struct drm_weave_engines *reply);
int weave_engine_attach_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file);

#endif /* _WEAVE_UENGINE_H_ */
