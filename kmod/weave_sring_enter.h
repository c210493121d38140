/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the doorbell of shared submission rings.
 */
#ifndef _WEAVE_SRING_ENTER_H_
#define _WEAVE_SRING_ENTER_H_

struct drm_device;
struct drm_file;

int weave_ring_enter_ioctl(struct drm_device *drm, void *data,
			   struct drm_file *file);

#endif /* _WEAVE_SRING_ENTER_H_ */
