/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the query ioctls.
 */
#ifndef _WEAVE_QUERY_H_
#define _WEAVE_QUERY_H_

struct drm_device;
struct drm_file;
struct drm_weave_client_usage;
struct weave_client;

int weave_client_usage(struct weave_client *c,
		       struct drm_weave_client_usage *usage);

int weave_query_ioctl(struct drm_device *drm, void *data,
		      struct drm_file *file);
int weave_stream_query_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file);

#endif /* _WEAVE_QUERY_H_ */
