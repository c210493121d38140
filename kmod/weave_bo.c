// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: what the soft engine needs of a buffer object: its resident
 * pages' pins and holds, and the quota a client's buffers are charged to.
 */

#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>

#include "weave_bo.h"
#include "weave_compat.h"
#include "weave_pinned.h"

/**
 * weave_eng_bo_enomem() - The uAPI's errno of a shmem failure.
 * @err: A negative errno from shmem.
 *
 * shmem fails with -ENOSPC when it cannot allocate a file's inode or
 * account its pages: a lack of memory, which the uAPI calls -ENOMEM.
 *
 * Return: @err, with -ENOSPC made -ENOMEM.
 */
int weave_eng_bo_enomem(int err)
{
	return err == -ENOSPC ? -ENOMEM : err;
}

/**
 * weave_eng_bo_hold() - Hold a buffer's pages resident, charged to a user.
 * @obj: The buffer; the caller holds a reference.
 * @pu: The user charged if this is the first hold (see "DOC: pinned
 *	memory"); the caller holds a reference.
 *
 * Counts only: the caller makes the pages resident, or has the shmem
 * helper do it.  Undone by weave_eng_bo_unhold().  An imported buffer is
 * not held, and both calls do nothing.
 *
 * Context: Process context; may sleep.  The caller may hold the mmap
 * lock, the buffer's reservation lock or &weave_bo.pin_lock.
 * Return: 0; -EDQUOT or -ENOMEM past a limit of weave_eng_pinned_charge(),
 * with nothing held.
 */
int weave_eng_bo_hold(struct drm_gem_object *obj, struct weave_pin_user *pu)
{
	struct weave_bo *bo = to_weave_bo(obj);
	int ret = 0;

	if (obj->import_attach || atomic_inc_not_zero(&bo->holds))
		return 0;
	mutex_lock(&bo->hold_lock);
	if (!atomic_inc_not_zero(&bo->holds)) {
		ret = weave_eng_pinned_charge(pu, obj->size);
		if (!ret) {
			bo->pin_user = pu;
			atomic_set(&bo->holds, 1);
		}
	}
	mutex_unlock(&bo->hold_lock);
	return ret;
}

/**
 * weave_eng_bo_hold_get() - Another hold of a buffer already held.
 * @obj: A buffer of which the caller has a hold (weave_eng_bo_hold()),
 *	or an imported buffer.
 *
 * Undone by weave_eng_bo_unhold().
 *
 * Context: Any.
 */
void weave_eng_bo_hold_get(struct drm_gem_object *obj)
{
	if (!obj->import_attach)
		WARN_ON_ONCE(!atomic_inc_not_zero(&to_weave_bo(obj)->holds));
}

/**
 * weave_eng_bo_unhold() - End a hold of a buffer's pages.
 * @obj: The buffer; the caller holds a reference.
 *
 * The last hold gives the charge back.
 *
 * Context: Process context; may sleep.
 */
void weave_eng_bo_unhold(struct drm_gem_object *obj)
{
	struct weave_bo *bo = to_weave_bo(obj);
	struct weave_pin_user *pu;

	if (obj->import_attach ||
	    !atomic_dec_and_mutex_lock(&bo->holds, &bo->hold_lock))
		return;
	pu = bo->pin_user;
	bo->pin_user = NULL;
	mutex_unlock(&bo->hold_lock);
	weave_eng_pinned_uncharge(pu, obj->size);
}

/**
 * weave_eng_bo_pin() - Make a buffer's pages resident for a use of weave's.
 * @obj: A buffer weave created (not an imported one); the caller holds a
 *	reference.
 * @pu: The user the pages are charged to if this is the first use.
 *
 * The first use charges the buffer to @pu (weave_eng_bo_hold()), then
 * allocates the pages that are missing, charged to the caller's memory
 * cgroup, and pins them.  Each call is undone by one weave_eng_bo_unpin().
 *
 * Context: Process context; may sleep.  The caller may hold its client's
 * mutex, and no reservation lock.
 * Return: 0, -EDQUOT or -ENOMEM past a limit of resident bytes (see "DOC:
 * pinned memory"), -ENOMEM, or -ERESTARTSYS if a signal interrupted it.
 */
int weave_eng_bo_pin(struct drm_gem_object *obj, struct weave_pin_user *pu)
{
	struct weave_bo *bo = to_weave_bo(obj);
	int ret;

	if (atomic_inc_not_zero(&bo->pins))
		return 0;
	if (mutex_lock_interruptible(&bo->pin_lock))
		return -ERESTARTSYS;
	ret = 0;
	if (!atomic_inc_not_zero(&bo->pins)) {
		ret = weave_eng_bo_hold(obj, pu);
		if (!ret) {
			ret = weave_compat_shmem_pin(&bo->base);
			ret = weave_eng_bo_enomem(ret);
			if (ret)
				weave_eng_bo_unhold(obj);
		}
		if (!ret)
			atomic_set(&bo->pins, 1);
	}
	mutex_unlock(&bo->pin_lock);
	return ret;
}

/**
 * weave_eng_bo_pin_get() - Another use of a buffer's resident pages.
 * @obj: A buffer of which the caller holds a pin (weave_eng_bo_pin()).
 *
 * Undone by weave_eng_bo_unpin().
 *
 * Context: Any.
 */
void weave_eng_bo_pin_get(struct drm_gem_object *obj)
{
	WARN_ON_ONCE(!atomic_inc_not_zero(&to_weave_bo(obj)->pins));
}

/**
 * weave_eng_bo_unpin() - End a use of a buffer's pages.
 * @obj: The buffer; the caller holds a reference.
 *
 * The last use unpins the pages, which become reclaimable, and ends
 * their hold.
 *
 * Context: Process context; may sleep: the last takes the helper's lock
 * (the reservation lock since 6.8, its pages_lock before).  The caller
 * holds no reservation lock.
 */
void weave_eng_bo_unpin(struct drm_gem_object *obj)
{
	struct weave_bo *bo = to_weave_bo(obj);

	if (!atomic_dec_and_mutex_lock(&bo->pins, &bo->pin_lock))
		return;
	drm_gem_shmem_unpin(&bo->base);
	weave_eng_bo_unhold(obj);
	mutex_unlock(&bo->pin_lock);
}

/**
 * weave_eng_bo_quota_create() - Make a client's buffer quota.
 * @max_bytes: The most bytes of buffers it may be charged.
 * @max_bos: The most buffers it may be charged.
 *
 * Return: The quota, with one reference, or NULL.
 */
struct weave_bo_quota *weave_eng_bo_quota_create(u64 max_bytes, u64 max_bos)
{
	struct weave_bo_quota *quota;

	quota = kzalloc(sizeof(*quota), GFP_KERNEL_ACCOUNT);
	if (!quota)
		return NULL;
	kref_init(&quota->ref);
	quota->max_bytes = max_bytes;
	quota->max_bos = max_bos;
	return quota;
}

static void weave_bo_quota_release(struct kref *ref)
{
	kfree(container_of(ref, struct weave_bo_quota, ref));
}

/**
 * weave_eng_bo_quota_put() - Drop a reference to a quota.
 * @quota: The quota.
 *
 * Context: Any but a hard interrupt.
 */
void weave_eng_bo_quota_put(struct weave_bo_quota *quota)
{
	kref_put(&quota->ref, weave_bo_quota_release);
}

/**
 * weave_eng_bo_quota_charge() - Charge a buffer to a quota.
 * @quota: The quota.
 * @size: The buffer's size in bytes.
 *
 * Return: 0, or -EDQUOT past one of its limits, with nothing charged.
 */
int weave_eng_bo_quota_charge(struct weave_bo_quota *quota, size_t size)
{
	if (atomic64_add_return(size, &quota->bytes) > quota->max_bytes) {
		atomic64_sub(size, &quota->bytes);
		return -EDQUOT;
	}
	if (atomic64_inc_return(&quota->bos) > quota->max_bos) {
		atomic64_dec(&quota->bos);
		atomic64_sub(size, &quota->bytes);
		return -EDQUOT;
	}
	return 0;
}

/**
 * weave_eng_bo_quota_uncharge() - Undo weave_eng_bo_quota_charge(), and
 * drop the buffer's reference to the quota.
 * @quota: The quota.
 * @size: The buffer's size in bytes.
 */
void weave_eng_bo_quota_uncharge(struct weave_bo_quota *quota, size_t size)
{
	atomic64_sub(size, &quota->bytes);
	atomic64_dec(&quota->bos);
	weave_eng_bo_quota_put(quota);
}
