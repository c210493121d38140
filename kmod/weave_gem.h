/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: buffer objects, GEM objects backed by shmem.
 */
#ifndef _WEAVE_GEM_H_
#define _WEAVE_GEM_H_

#include <linux/container_of.h>
#include <linux/types.h>

#include <drm/drm_gem_shmem_helper.h>

#include "weave_failure.h"

struct dma_buf_attachment;
struct drm_device;
struct drm_file;
struct drm_gem_object;
struct sg_table;

/**
 * struct weave_bo - A weave buffer object.
 *
 * Every GEM object of a weave device is one, including buffers imported
 * through PRIME: &drm_driver.gem_create_object allocates it for the shmem
 * helpers.
 */
struct weave_bo {
	/**
	 * @base: The shmem GEM object.  It must stay the first member: the
	 * shmem helpers free the object with kfree() of its address.
	 */
	struct drm_gem_shmem_object base;

	/**
	 * @flags: The DRM_WEAVE_BO_* flags the buffer was created with; zero
	 * for an imported buffer.  Never changes after creation.
	 */
	u32 flags;

	/**
	 * @pinned: Its pages are pinned from creation until it is freed; set
	 * for every buffer weave creates, never for an imported one.
	 */
	bool pinned;

	/**
	 * @taints: Which of its bytes carry failures, in the device's
	 * &weave_device.failures; released when the buffer is freed.
	 */
	struct weave_taints taints;
};

/**
 * to_weave_bo() - The &struct weave_bo around a GEM object.
 * @obj: A GEM object of a weave device.
 *
 * Return: The weave buffer object that embeds @obj.
 */
static inline struct weave_bo *to_weave_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct weave_bo, base.base);
}

struct drm_gem_object *weave_gem_create_object(struct drm_device *drm,
					       size_t size);
struct drm_gem_object *
weave_gem_prime_import_sg_table(struct drm_device *drm,
				struct dma_buf_attachment *attach,
				struct sg_table *sgt);

int weave_gem_bo_create_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file);
int weave_gem_bo_mmap_offset_ioctl(struct drm_device *drm, void *data,
				   struct drm_file *file);

#endif /* _WEAVE_GEM_H_ */
