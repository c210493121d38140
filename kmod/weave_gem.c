// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: buffer objects, GEM objects backed by shmem.
 */

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/stddef.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_vma_manager.h>

#include "weave_compat.h"
#include "weave_drm.h"
#include "weave_drv.h"
#include "weave_gem.h"

/**
 * DOC: buffer objects
 *
 * A weave buffer object is a &struct drm_gem_shmem_object wrapped in a
 * &struct weave_bo.  The shmem helpers do the work: backing pages come from
 * shmem and are zero.  weave adds three things around them:
 *
 * - Residency.  A buffer created by weave has its pages allocated and
 *   pinned at creation (weave_compat_shmem_pin()) until it is freed, so
 *   the soft engine never pins at submission, where a signal or a lock
 *   could fail it: a job only holds a GEM reference.  Such buffers are not
 *   swappable.  An imported buffer is not pinned: jobs refuse it.
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

static void weave_gem_free(struct drm_gem_object *obj)
{
	struct weave_device *wdev = to_weave_device(obj->dev);

	weave_taints_fini(&wdev->failures, &to_weave_bo(obj)->taints);
	if (to_weave_bo(obj)->pinned)
		drm_gem_shmem_unpin(to_drm_gem_shmem_obj(obj));
	atomic64_sub(obj->size, &wdev->live_bytes);
	atomic64_dec(&wdev->live_bos);
	drm_gem_shmem_object_free(obj);
}

static int weave_gem_mmap(struct drm_gem_object *obj,
			  struct vm_area_struct *vma)
{
	if (to_weave_bo(obj)->flags & DRM_WEAVE_BO_NO_MMAP)
		return -EPERM;

	return drm_gem_shmem_object_mmap(obj, vma);
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

static const struct vm_operations_struct weave_gem_vm_ops = {
	.fault = weave_gem_fault,
	.open = weave_gem_vm_open,
	.close = weave_gem_vm_close,
};

/*
 * The shmem helper's own object functions, except for free (accounting),
 * mmap (DRM_WEAVE_BO_NO_MMAP) and the mappings' fault handler (unplug).
 * The drm_gem_shmem_object_*() wrappers are static inline in the helper's
 * header on every supported kernel, so each build gets the ones that
 * match its kernel.
 */
static const struct drm_gem_object_funcs weave_gem_funcs = {
	.free = weave_gem_free,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = weave_gem_mmap,
	.vm_ops = &weave_gem_vm_ops,
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
	weave_taints_init(&bo->taints);
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

/*
 * shmem fails with -ENOSPC when it cannot allocate a file's inode or
 * account its pages: a lack of memory, which the uAPI calls -ENOMEM.
 */
static int weave_gem_enomem(int err)
{
	return err == -ENOSPC ? -ENOMEM : err;
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
		return weave_gem_enomem(PTR_ERR(shmem));
	weave_gem_account(&shmem->base);
	to_weave_bo(&shmem->base)->flags = args->flags;

	/* Resident from now on; see "DOC: buffer objects". */
	ret = weave_compat_shmem_pin(shmem);
	if (ret) {
		drm_gem_object_put(&shmem->base);
		return weave_gem_enomem(ret);
	}
	to_weave_bo(&shmem->base)->pinned = true;

	/* On failure, dropping the creation reference frees the object. */
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
