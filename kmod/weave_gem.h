/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: buffer objects, GEM objects backed by shmem.
 */
#ifndef _WEAVE_GEM_H_
#define _WEAVE_GEM_H_

#include <linux/types.h>

#include <drm/drm_gem.h>

#include "weave_compat.h"

struct dma_buf_attachment;
struct drm_device;
struct drm_file;
struct drm_gem_object;
struct sg_table;

struct drm_gem_object *weave_gem_create_object(struct drm_device *drm,
					       size_t size);
struct drm_gem_object *
weave_gem_prime_import_sg_table(struct drm_device *drm,
				struct dma_buf_attachment *attach,
				struct sg_table *sgt);

size_t weave_gem_rss(struct drm_gem_object *obj);
enum drm_gem_object_status weave_gem_status(struct drm_gem_object *obj);

int weave_gem_bo_create_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file);
int weave_gem_bo_mmap_offset_ioctl(struct drm_device *drm, void *data,
				   struct drm_file *file);

#endif /* _WEAVE_GEM_H_ */
