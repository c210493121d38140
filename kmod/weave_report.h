/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the failure reports: the CHECK and READ ioctls.
 */
#ifndef _WEAVE_REPORT_H_
#define _WEAVE_REPORT_H_

struct drm_device;
struct drm_file;

int weave_check_ioctl(struct drm_device *drm, void *data,
		      struct drm_file *file);
int weave_read_ioctl(struct drm_device *drm, void *data,
		     struct drm_file *file);

#endif /* _WEAVE_REPORT_H_ */
