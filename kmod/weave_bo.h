/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: buffer objects as the soft engine sees them: their pins, taints,
 * quota and resident charge.
 */
#ifndef _WEAVE_BO_H_
#define _WEAVE_BO_H_

#include <linux/atomic.h>
#include <linux/container_of.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include <drm/drm_gem_shmem_helper.h>

#include "weave_failure.h"

struct drm_gem_object;
struct weave_res_user;

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
	 * @charge_lock: Serialises the charge of its resident bytes; a leaf,
	 * taken under the mmap lock, the reservation lock and @pin_lock, and
	 * held only to charge.
	 */
	struct mutex charge_lock;

	/**
	 * @resident_user: The user charged its size from the first call that
	 * made its pages resident until it is freed, a reference; NULL
	 * before, and always for an imported buffer (see "DOC: resident
	 * memory").  Set under @charge_lock by the first call that is to
	 * make them resident, and cleared again if every such call failed
	 * before one succeeded (@charge_pending).
	 */
	struct weave_res_user *resident_user;

	/**
	 * @charge_pending: The calls that rely on the charge of
	 * @resident_user and have not said yet whether they made the pages
	 * resident (weave_eng_bo_charge_settle()); under @charge_lock.
	 */
	unsigned int charge_pending;

	/**
	 * @resident_settled: A call made the pages resident: the charge
	 * stays until the buffer is freed.  Set once, under @charge_lock.
	 */
	bool resident_settled;

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

int weave_eng_bo_charge_resident(struct drm_gem_object *obj,
				 struct weave_res_user *ru);
void weave_eng_bo_charge_settle(struct drm_gem_object *obj, int ret);
void weave_eng_bo_uncharge_resident(struct drm_gem_object *obj);
int weave_eng_bo_pin(struct drm_gem_object *obj, struct weave_res_user *ru);
void weave_eng_bo_pin_get(struct drm_gem_object *obj);
void weave_eng_bo_unpin(struct drm_gem_object *obj);

struct weave_bo_quota *weave_eng_bo_quota_create(u64 max_bytes, u64 max_bos);
void weave_eng_bo_quota_put(struct weave_bo_quota *quota);
int weave_eng_bo_quota_charge(struct weave_bo_quota *quota, size_t size);
void weave_eng_bo_quota_uncharge(struct weave_bo_quota *quota, size_t size);
int weave_eng_bo_enomem(int err);

#endif /* _WEAVE_BO_H_ */
