/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: buffer objects, GEM objects backed by shmem.
 */
#ifndef _WEAVE_GEM_H_
#define _WEAVE_GEM_H_

#include <linux/atomic.h>
#include <linux/container_of.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include <drm/drm_gem_shmem_helper.h>

#include "weave_compat.h"
#include "weave_failure.h"

struct dma_buf_attachment;
struct drm_device;
struct drm_file;
struct drm_gem_object;
struct sg_table;

/**
 * struct weave_bo_quota - What one client's buffers may take.
 *
 * Made at client open and charged when a buffer gets its first handle
 * (see "DOC: buffer objects", Quota).  The client holds a reference, and
 * so does each buffer charged to it, which uncharges itself when it is
 * freed, after the client may be gone.
 */
struct weave_bo_quota {
	/** @ref: The client's reference and one per buffer charged. */
	struct kref ref;
	/** @bytes: The sizes of the buffers charged, in bytes. */
	atomic64_t bytes;
	/** @bos: The buffers charged. */
	atomic64_t bos;
	/** @max_bytes: The most @bytes may reach. */
	u64 max_bytes;
	/** @max_bos: The most @bos may reach. */
	u64 max_bos;
};

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
	 * @pins: weave's uses of its pages: each holds one pin of the shmem
	 * helper's, taken by the first and dropped by the last.  Never
	 * raised from zero but under @pin_lock, once the helper has pinned.
	 */
	atomic_t pins;

	/** @pin_lock: Serialises the first pin and the last unpin. */
	struct mutex pin_lock;

	/**
	 * @quota: The quota it is charged to, a reference; set when it gets
	 * its first handle, NULL before.
	 */
	struct weave_bo_quota *quota;

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

int weave_bo_pin(struct drm_gem_object *obj);
void weave_bo_pin_get(struct drm_gem_object *obj);
void weave_bo_unpin(struct drm_gem_object *obj);

size_t weave_gem_rss(struct drm_gem_object *obj);
enum drm_gem_object_status weave_gem_status(struct drm_gem_object *obj);

struct weave_bo_quota *weave_bo_quota_create(u64 max_bytes, u64 max_bos);
void weave_bo_quota_put(struct weave_bo_quota *quota);

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
