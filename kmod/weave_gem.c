// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: buffer objects, GEM objects backed by shmem.
 */

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/stddef.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_vma_manager.h>

#include "weave_bo.h"
#include "weave_client.h"
#include "weave_compat.h"
#include "weave_device.h"
#include "weave_drm.h"
#include "weave_gem.h"
#include "weave_job_release.h"
#include "weave_resident.h"
#include "weave_taints.h"

/**
 * DOC: buffer objects
 *
 * A weave buffer object is a &struct drm_gem_shmem_object wrapped in a
 * &struct weave_bo.  The shmem helpers do the work: backing pages come from
 * shmem and are zero.  weave adds these around them:
 *
 * - Residency.  A buffer's pages are pinned only while work uses them, as
 *   in other shmem-backed GEM drivers; idle, they are ordinary shmem pages
 *   that the kernel may reclaim and swap.  weave counts its own uses in
 *   &weave_bo.pins, and holds one pin of the helper's while there are
 *   any: the first use pins (weave_eng_bo_pin(), which may allocate the pages
 *   and may fail), the last unpins (weave_eng_bo_unpin()).  The uses are a
 *   client's tracking record of the buffer while tasks that bind it are
 *   queued or being enqueued (pinned by ENQUEUE and REPLAY before they
 *   commit, so that a lack of memory fails the call and loses nothing),
 *   each job that binds it, from the task that brings it into the job
 *   until the job completes (weave_eng_bo_pin_get(), which only counts, as
 *   the task's record holds a pin; see "DOC: job release"), and READ
 *   while it copies.  The pages are
 *   allocated, and charged to a memory cgroup, by the process whose call
 *   pins them first, or whose fault maps them: a cgroup's limit stops
 *   the client that asks too much, with -ENOMEM, as the helpers allocate
 *   with __GFP_RETRY_MAYFAIL, which never calls the OOM killer.  A
 *   mapping of the buffer holds the helper's own use of the pages while it
 *   lives, as the helpers make it.  An imported buffer's pages are its
 *   exporter's: weave never pins them, and jobs and READ refuse it.
 *   The first use of weave's, mapping, or pin or vmap by a dma-buf
 *   importer charges the buffer's size to a user until it is freed,
 *   against the limits of "DOC: resident memory".
 *
 * - Quota.  Each client has a &struct weave_bo_quota: the bytes and the
 *   number of buffers charged to it, with their limits, the module
 *   parameters max_client_bo_bytes and max_client_bos.  A buffer is
 *   charged to the client whose file gets its first handle, in
 *   &drm_gem_object_funcs.open: the creator of a buffer weave makes, the
 *   importer of a foreign dma-buf.  Past either limit that handle is
 *   refused with -EDQUOT, so BO_CREATE and a PRIME import fail and leave
 *   nothing behind.  Another handle of a charged buffer, a re-import of
 *   the client's own export included, charges nothing.  A buffer stays
 *   charged until it is freed, even after its client is gone (it may
 *   live on as a dma-buf): the quota is reference counted.  Jobs hold
 *   their buffers until they complete, not until the scheduler frees
 *   them: once a client has waited for the work on a buffer and closed
 *   its last handle (and exported none), the buffer is freed and its
 *   bytes are off the quota, with no delay a program could see.  Closing
 *   a handle, and a charge past the quota before it fails, first wait
 *   for the completed jobs to let go of their buffers
 *   (weave_eng_job_release_drain(); "DOC: job release").
 *
 * - The creation flags.  %DRM_WEAVE_BO_NO_MMAP refuses every user mapping:
 *   the fake offset, and mmap() through the GEM object functions, which is
 *   also the path mmap() of an exported dma-buf takes.
 * - Unplug.  drm_dev_unplug() zaps every mapping made through the device
 *   node (mmap() of the render node at a buffer's fake offset), and
 *   weave's fault handler refuses to map a page of them again once the
 *   device is unplugged: the next access gets SIGBUS.  A buffer exported
 *   as a dma-buf stays usable through the dma-buf, mmap() of it included:
 *   its pages are memory that the dma-buf keeps, with the device's
 *   structures, until its last user lets go.
 * - Device-wide usage counters for %DRM_WEAVE_QUERY_MEMORY_USAGE.  A buffer
 *   is counted as soon as the helper that made it returns it (creation or
 *   PRIME import), and uncounted in &drm_gem_object_funcs.free, which the
 *   helpers only ever call on an object they returned.  The counters are
 *   atomics; a reader may see one updated before the other.
 */

static_assert(offsetof(struct weave_bo, base) == 0,
	      "the shmem helpers kfree() the drm_gem_shmem_object");

static void weave_gem_account(struct drm_gem_object *obj)
{
	struct weave_device *wdev = to_weave_device(obj->dev);

	atomic64_inc(&wdev->live_bos);
	atomic64_add(obj->size, &wdev->live_bytes);
}

/*
 * &drm_gem_object_funcs.open, for each new handle: the first charges the
 * buffer to the quota of the file's client.
 */
static int weave_gem_open(struct drm_gem_object *obj, struct drm_file *file)
{
	struct weave_bo_quota *quota = weave_client_quota(file);
	struct weave_bo *bo = to_weave_bo(obj);
	int ret;

	if (READ_ONCE(bo->quota))
		return 0;
	ret = weave_eng_bo_quota_charge(quota, obj->size);
	if (ret == -EDQUOT) {
		/* Buffers of work that completed may be on their way out. */
		weave_eng_job_release_drain();
		ret = weave_eng_bo_quota_charge(quota, obj->size);
	}
	if (ret)
		return ret;
	kref_get(&quota->ref);
	/* Two first handles at once: one charge stays. */
	if (cmpxchg(&bo->quota, NULL, quota))
		weave_eng_bo_quota_uncharge(quota, obj->size);
	return 0;
}

/*
 * &drm_gem_object_funcs.close, for each handle closed: the buffer may be
 * held by jobs that completed, which are letting go of it (its pins may be
 * gone already, not yet its references); once they have, the handle's
 * reference may be its last, and its free uncharges the quota at once
 * (see "DOC: job release").  With nothing to let go of, the drain costs
 * an uncontended mutex.
 */
static void weave_gem_close(struct drm_gem_object *obj, struct drm_file *file)
{
	weave_eng_job_release_drain();
}

static void weave_gem_free(struct drm_gem_object *obj)
{
	struct weave_device *wdev = to_weave_device(obj->dev);
	struct weave_bo *bo = to_weave_bo(obj);

	/* Each use holds a reference: none is left. */
	WARN_ON_ONCE(atomic_read(&bo->pins));
	weave_fg_taints_fini(&wdev->failures, &bo->taints);
	if (bo->quota)
		weave_eng_bo_quota_uncharge(bo->quota, obj->size);
	weave_eng_bo_uncharge_resident(obj);
	mutex_destroy(&bo->pin_lock);
	mutex_destroy(&bo->charge_lock);
	atomic64_sub(obj->size, &wdev->live_bytes);
	atomic64_dec(&wdev->live_bos);
	drm_gem_shmem_object_free(obj);
}

/**
 * weave_gem_rss() - The bytes of a buffer that are in memory.
 * @obj: The buffer.
 *
 * The pages of its shmem file that are in the page cache, whether weave
 * pins them or not; pages swapped out are not counted.  An imported
 * buffer's pages are its exporter's, and count there.
 *
 * Context: Any context.  A snapshot, which may be stale at once.
 * Return: The buffer's resident bytes.
 */
size_t weave_gem_rss(struct drm_gem_object *obj)
{
	if (!obj->filp)
		return 0;
	return (size_t)READ_ONCE(obj->filp->f_mapping->nrpages) << PAGE_SHIFT;
}

/**
 * weave_gem_status() - What fdinfo counts a buffer as.
 * @obj: The buffer.
 *
 * Resident while any of its bytes are (weave_gem_rss()); never purgeable:
 * weave does not drop a buffer's pages under memory pressure.
 *
 * Context: Any context.
 * Return: %DRM_GEM_OBJECT_RESIDENT or 0.
 */
enum drm_gem_object_status weave_gem_status(struct drm_gem_object *obj)
{
	return weave_gem_rss(obj) ? DRM_GEM_OBJECT_RESIDENT : 0;
}

/*
 * The charge of a buffer's resident bytes to the user of the calling
 * process, before its mapping or a dma-buf importer makes its pages
 * resident (see "DOC: resident memory").  Once it returns 0, the caller
 * says with weave_eng_bo_charge_settle() whether they were.
 */
static int weave_gem_charge_resident(struct drm_gem_object *obj)
{
	struct weave_bo *bo = to_weave_bo(obj);
	struct weave_res_user *ru;
	int ret;

	/* Pairs with the release of weave_eng_bo_charge_settle(). */
	if (obj->import_attach || smp_load_acquire(&bo->resident_settled))
		return 0;
	ru = weave_eng_resident_user_get(current_uid());
	if (IS_ERR(ru))
		return PTR_ERR(ru);
	ret = weave_eng_bo_charge_resident(obj, ru);
	weave_eng_resident_user_put(ru);
	return ret;
}

/* The helper populates every page of the mapping. */
static int weave_gem_mmap(struct drm_gem_object *obj,
			  struct vm_area_struct *vma)
{
	int ret;

	if (to_weave_bo(obj)->flags & DRM_WEAVE_BO_NO_MMAP)
		return -EPERM;

	ret = weave_gem_charge_resident(obj);
	if (ret)
		return ret;
	ret = drm_gem_shmem_object_mmap(obj, vma);
	weave_eng_bo_charge_settle(obj, ret);
	return ret;
}

/*
 * The shmem helper's fault handler, inside drm_dev_enter() for a mapping
 * of the device node: drm_dev_unplug() waits for the section, then zaps
 * what it mapped, and later faults get SIGBUS.  A mapping of an exported
 * dma-buf (its file is the dma-buf's) keeps the helper's behaviour.
 */
static vm_fault_t weave_gem_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct drm_gem_object *obj = vma->vm_private_data;
	vm_fault_t ret;
	int idx;

	if (!vma->vm_file || vma->vm_file->f_op != obj->dev->driver->fops)
		return drm_gem_shmem_vm_ops.fault(vmf);

	if (!drm_dev_enter(obj->dev, &idx))
		return VM_FAULT_SIGBUS;
	ret = drm_gem_shmem_vm_ops.fault(vmf);
	drm_dev_exit(idx);
	return ret;
}

/* The helper's own: it counts the mapping's page and object references. */
static void weave_gem_vm_open(struct vm_area_struct *vma)
{
	drm_gem_shmem_vm_ops.open(vma);
}

static void weave_gem_vm_close(struct vm_area_struct *vma)
{
	drm_gem_shmem_vm_ops.close(vma);
}

/* A dma-buf importer's pin of the pages, and its vmap, make them resident. */
static int weave_gem_pin(struct drm_gem_object *obj)
{
	int ret = weave_gem_charge_resident(obj);

	if (ret)
		return ret;
	ret = drm_gem_shmem_object_pin(obj);
	weave_eng_bo_charge_settle(obj, ret);
	return ret;
}

static int weave_gem_vmap(struct drm_gem_object *obj, struct iosys_map *map)
{
	int ret = weave_gem_charge_resident(obj);

	if (ret)
		return ret;
	ret = drm_gem_shmem_object_vmap(obj, map);
	weave_eng_bo_charge_settle(obj, ret);
	return ret;
}

static const struct vm_operations_struct weave_gem_vm_ops = {
	.fault = weave_gem_fault,
	.open = weave_gem_vm_open,
	.close = weave_gem_vm_close,
};

/*
 * The shmem helper's own object functions, except for free (accounting),
 * open and close (the quota), mmap (DRM_WEAVE_BO_NO_MMAP), the mappings'
 * fault handler (unplug), and status and rss for fdinfo, which the helper
 * lacks; mmap, pin and vmap also charge the buffer's resident bytes to a
 * user.
 * The drm_gem_shmem_object_*() wrappers are static inline in the helper's
 * header on every supported kernel, so each build gets the ones that
 * match its kernel.
 */
static const struct drm_gem_object_funcs weave_gem_funcs = {
	.free = weave_gem_free,
	.open = weave_gem_open,
	.close = weave_gem_close,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = weave_gem_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = weave_gem_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = weave_gem_mmap,
	.vm_ops = &weave_gem_vm_ops,
	WEAVE_COMPAT_GEM_STATUS_OPS(weave_gem_status)
	WEAVE_COMPAT_GEM_RSS_OPS(weave_gem_rss)
};

/**
 * weave_gem_create_object() - Allocate a buffer object for the shmem helpers.
 * @drm: The DRM device.
 * @size: The object's size in bytes, already page aligned; unused.
 *
 * The &drm_driver.gem_create_object hook.  The shmem helpers call it both to
 * create a buffer and to import one through PRIME, and initialize the rest
 * of the object themselves.  On a later error they kfree() it without
 * calling &drm_gem_object_funcs.free, so nothing here needs undoing.
 *
 * Return: The new object's GEM object, or ERR_PTR(-ENOMEM).
 */
struct drm_gem_object *weave_gem_create_object(struct drm_device *drm,
					       size_t size)
{
	struct weave_bo *bo;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);
	if (!bo)
		return ERR_PTR(-ENOMEM);

	bo->base.base.funcs = &weave_gem_funcs;
	mutex_init(&bo->pin_lock);
	mutex_init(&bo->charge_lock);
	weave_fg_taints_init(&bo->taints);
	/* The soft engine writes the pages through kmap: keep its data. */
	bo->base.pages_mark_dirty_on_put = true;

	return &bo->base.base;
}

/**
 * weave_gem_prime_import_sg_table() - Import a dma-buf as a buffer object.
 * @drm: The DRM device.
 * @attach: The device's attachment to the dma-buf.
 * @sgt: The dma-buf's mapped scatter/gather table.
 *
 * The &drm_driver.gem_prime_import_sg_table hook: the shmem helper's, plus
 * counting the new object in the device's usage.
 *
 * Return: The new GEM object, or an ERR_PTR() on failure.
 */
struct drm_gem_object *
weave_gem_prime_import_sg_table(struct drm_device *drm,
				struct dma_buf_attachment *attach,
				struct sg_table *sgt)
{
	struct drm_gem_object *obj;

	obj = drm_gem_shmem_prime_import_sg_table(drm, attach, sgt);
	if (!IS_ERR(obj))
		weave_gem_account(obj);

	return obj;
}

/**
 * weave_gem_bo_create_ioctl() - Handle %DRM_IOCTL_WEAVE_BO_CREATE.
 * @drm: The DRM device.
 * @data: The ioctl argument, a &struct drm_weave_bo_create.
 * @file: The DRM file the new handle goes to.
 *
 * Return: 0 on success, else a negative errno as documented on
 * &struct drm_weave_bo_create; @data is then left unchanged.
 */
int weave_gem_bo_create_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	struct weave_device *wdev = to_weave_device(drm);
	struct drm_weave_bo_create *args = data;
	struct drm_gem_shmem_object *shmem;
	u64 size;
	u32 handle;
	int ret;

	if (args->flags & ~DRM_WEAVE_BO_FLAGS)
		return -EINVAL;
	if (!args->size)
		return -EINVAL;
	/*
	 * max_bo_size is page aligned, so this is the same test as on the
	 * rounded size, and after it the rounding cannot overflow.
	 */
	if (args->size > wdev->max_bo_size)
		return -E2BIG;
	size = PAGE_ALIGN(args->size);

	shmem = drm_gem_shmem_create(drm, size);
	if (IS_ERR(shmem))
		return weave_eng_bo_enomem(PTR_ERR(shmem));
	weave_gem_account(&shmem->base);
	to_weave_bo(&shmem->base)->flags = args->flags;

	/*
	 * The handle charges the quota; on failure (-EDQUOT among others),
	 * dropping the creation reference frees the object.
	 */
	ret = drm_gem_handle_create(file, &shmem->base, &handle);
	drm_gem_object_put(&shmem->base);
	if (ret)
		return ret;

	args->size = size;
	args->handle = handle;

	return 0;
}

/**
 * weave_gem_bo_mmap_offset_ioctl() - Handle %DRM_IOCTL_WEAVE_BO_MMAP_OFFSET.
 * @drm: The DRM device.
 * @data: The ioctl argument, a &struct drm_weave_bo_mmap_offset.
 * @file: The DRM file that holds the handle.
 *
 * Return: 0 on success, else a negative errno as documented on
 * &struct drm_weave_bo_mmap_offset; @data is then left unchanged.
 */
int weave_gem_bo_mmap_offset_ioctl(struct drm_device *drm, void *data,
				   struct drm_file *file)
{
	struct drm_weave_bo_mmap_offset *args = data;
	struct drm_gem_object *obj;
	int ret;

	if (args->pad)
		return -EINVAL;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;

	if (to_weave_bo(obj)->flags & DRM_WEAVE_BO_NO_MMAP) {
		ret = -EPERM;
		goto out_put;
	}

	/* The helpers already made the offset; this only returns it. */
	ret = drm_gem_create_mmap_offset(obj);
	if (ret)
		goto out_put;

	args->offset = drm_vma_node_offset_addr(&obj->vma_node);

out_put:
	drm_gem_object_put(obj);
	return ret;
}
