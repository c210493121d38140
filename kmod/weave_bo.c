// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: what the soft engine needs of a buffer object: its resident
 * pages' pins and charge, and the quota a client's buffers are charged to.
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
#include "weave_resident.h"

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
 * weave_eng_bo_charge_resident() - Charge a buffer's bytes to a user before
 * its pages are first made resident.
 * @obj: The buffer; the caller holds a reference.
 * @ru: The user charged if the buffer is not yet (see "DOC: resident
 *	memory"); the caller holds a reference.
 *
 * Counts only: the caller then makes the pages resident, or has the shmem
 * helper do it, and says how that went with weave_eng_bo_charge_settle().
 * Until a call has made them resident the charge is pending: if every
 * call that relied on it fails, the last one gives it back.  Once one
 * has, it lasts until the buffer is freed
 * (weave_eng_bo_uncharge_resident()).  An imported buffer is never
 * charged.
 *
 * Context: Process context; may sleep.  The caller may hold the mmap
 * lock, the buffer's reservation lock or &weave_bo.pin_lock.
 * Return: 0, and the caller must then call weave_eng_bo_charge_settle();
 * -EDQUOT or -ENOMEM past a limit of weave_eng_resident_charge(), with
 * nothing charged and nothing to settle.
 */
int weave_eng_bo_charge_resident(struct drm_gem_object *obj,
				 struct weave_res_user *ru)
{
	struct weave_bo *bo = to_weave_bo(obj);
	int ret = 0;

	/* Pairs with the release in settle: a settled charge stays. */
	if (obj->import_attach || smp_load_acquire(&bo->resident_settled))
		return 0;
	mutex_lock(&bo->charge_lock);
	if (!bo->resident_settled) {
		if (!bo->resident_user) {
			ret = weave_eng_resident_charge(ru, obj->size);
			if (!ret)
				bo->resident_user = ru;
		}
		if (!ret)
			bo->charge_pending++;
	}
	mutex_unlock(&bo->charge_lock);
	return ret;
}

/**
 * weave_eng_bo_charge_settle() - Say whether the call that charged a
 * buffer made its pages resident.
 * @obj: The buffer weave_eng_bo_charge_resident() returned 0 for.
 * @ret: 0 if the call made the pages resident, else its error.
 *
 * A success settles the charge for the buffer's life.  A failure (the
 * shmem helper could not allocate the pages, a signal) of the last call
 * that relied on a charge no call has settled gives the charge back:
 * nothing was made resident.
 *
 * Context: Process context; may sleep.  The locks the caller held for
 * weave_eng_bo_charge_resident(), or fewer.
 */
void weave_eng_bo_charge_settle(struct drm_gem_object *obj, int ret)
{
	struct weave_bo *bo = to_weave_bo(obj);

	/* Settled, it stays so: the caller's charge was not pending. */
	if (obj->import_attach || smp_load_acquire(&bo->resident_settled))
		return;
	mutex_lock(&bo->charge_lock);
	if (!bo->resident_settled && !WARN_ON_ONCE(!bo->charge_pending)) {
		bo->charge_pending--;
		if (!ret) {
			/* Pairs with the acquires above. */
			smp_store_release(&bo->resident_settled, true);
		} else if (!bo->charge_pending) {
			weave_eng_resident_uncharge(bo->resident_user,
						    obj->size);
			bo->resident_user = NULL;
		}
	}
	mutex_unlock(&bo->charge_lock);
}

/**
 * weave_eng_bo_uncharge_resident() - Give back a freed buffer's charge.
 * @obj: The buffer, being freed.
 *
 * Context: Process context, where a buffer's last reference goes.
 */
void weave_eng_bo_uncharge_resident(struct drm_gem_object *obj)
{
	struct weave_bo *bo = to_weave_bo(obj);

	/* Each caller of the charge holds a reference: none is pending. */
	WARN_ON_ONCE(bo->charge_pending);
	if (bo->resident_user)
		weave_eng_resident_uncharge(bo->resident_user, obj->size);
}

/**
 * weave_eng_bo_pin() - Make a buffer's pages resident for a use of weave's.
 * @obj: A buffer weave created (not an imported one); the caller holds a
 *	reference.
 * @ru: The user its bytes are charged to if they are not yet.
 *
 * The first use charges the buffer to @ru unless it is already
 * (weave_eng_bo_charge_resident()), then allocates the pages that are
 * missing, charged to the caller's memory cgroup, and pins them; if that
 * fails, a charge this call made is given back
 * (weave_eng_bo_charge_settle()).  Each call is undone by one
 * weave_eng_bo_unpin().
 *
 * Context: Process context; may sleep.  The caller may hold its client's
 * mutex, and no reservation lock.
 * Return: 0, -EDQUOT or -ENOMEM past a limit of resident bytes (see "DOC:
 * resident memory"), -ENOMEM, or -ERESTARTSYS if a signal interrupted it.
 */
int weave_eng_bo_pin(struct drm_gem_object *obj, struct weave_res_user *ru)
{
	struct weave_bo *bo = to_weave_bo(obj);
	int ret;

	if (atomic_inc_not_zero(&bo->pins))
		return 0;
	if (mutex_lock_interruptible(&bo->pin_lock))
		return -ERESTARTSYS;
	ret = 0;
	if (!atomic_inc_not_zero(&bo->pins)) {
		ret = weave_eng_bo_charge_resident(obj, ru);
		if (!ret) {
			ret = weave_compat_shmem_pin(&bo->base);
			ret = weave_eng_bo_enomem(ret);
			weave_eng_bo_charge_settle(obj, ret);
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
 * The last use unpins the pages, which become reclaimable.
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
