// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the guard in front of the core's syncobj ioctls.
 */

#include <linux/dma-fence.h>
#include <linux/dma-fence-chain.h>
#include <linux/dma-fence-unwrap.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/uaccess.h>

#include <drm/drm.h>
#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_syncobj.h>

#include "weave_syncobj.h"

/**
 * DOC: core syncobj ioctls
 *
 * A weave render node offers the core's syncobj ioctls, whose code is the
 * kernel's, not weave's.  Two of them let any user who can open the node
 * harm the machine, and weave's file operations guard both before
 * drm_ioctl() sees the call (weave_syncobj_guard(), from weave's
 * unlocked_ioctl and also its compat_ioctl, through which a 32-bit caller
 * would otherwise reach the core unguarded):
 *
 * - %DRM_IOCTL_SYNCOBJ_TRANSFER with a flag other than
 *   %DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT.  6.1's core ignores unknown
 *   flags; 6.12's rejects them but, before the fix that later 6.12 stable
 *   releases carry, keeps a reference to the source syncobj.  The syncobj
 *   then never dies, nor does the weave fence in it, which holds weave.ko:
 *   rmmod fails until reboot.  weave runs the transfer itself, from its
 *   own copy of the argument, with the core's exported syncobj functions,
 *   and fails an unknown flag with -EINVAL once both syncobjs are found,
 *   as a fixed core does.  It must run it itself: checking the argument and
 *   then handing the user's pointer to drm_ioctl() would let a second
 *   thread change the flags between the check and the core's copy, and
 *   the core's handler, which could take weave's copy through
 *   drm_ioctl_kernel(), is not exported.  Every other result is the core's.
 *
 * - %DRM_IOCTL_SYNCOBJ_WAIT, %DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT,
 *   %DRM_IOCTL_SYNCOBJ_RESET, %DRM_IOCTL_SYNCOBJ_SIGNAL,
 *   %DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL and %DRM_IOCTL_SYNCOBJ_QUERY, the
 *   ioctls that take a handle count.  The core allocates its per-handle
 *   arrays with kmalloc() and no __GFP_NOWARN, so a count whose array is
 *   larger than KMALLOC_MAX_SIZE (4 MiB on x86-64) makes the page allocator
 *   print a WARNING before the call fails with -ENOMEM.  Upstream has no
 *   limit of its own (the report, syzbot's "WARNING in
 *   drm_syncobj_array_find", is still open).  weave fails such a count
 *   with the core's own -ENOMEM, without the WARNING and before any
 *   allocation: counts above 65536 for the two waits, whose largest array
 *   holds the core's 64-byte wait entries, and above 524288 for the other
 *   four, whose largest arrays hold pointers and u64 points.  Any count up
 *   to those limits goes to the core as before, so nothing the core could
 *   have done is refused; a count past them fails with -ENOMEM whatever
 *   the other fields hold.  The check costs one copy of the ioctl's fixed
 *   argument, whatever the count.
 *
 *   The core reads the argument again after weave has checked it, so a
 *   second thread that rewrites the count in between still reaches the
 *   core's WARNING (once per boot: it is a WARN_ON_ONCE) and its -ENOMEM.
 *   Closing that would mean running the waits in weave too, with the
 *   core's private wait-for-submit machinery; the race costs one line in
 *   the log and no resource, so weave leaves it to the core's own fix.
 *
 * Both checks decode the argument as drm_ioctl() does: by the ioctl
 * number, with as many bytes as the command's size field says (zeros
 * after them), so that a command with another size cannot slip past.  On
 * an unplugged device every ioctl fails with -ENODEV before the guard, as
 * in drm_ioctl().
 */

/*
 * The core's per-handle wait record, struct syncobj_wait_entry, private to
 * drm_syncobj.c (the same on 6.1 and 6.12); mirrored for its size only.
 */
struct weave_syncobj_wait_entry {
	struct list_head node;
	struct task_struct *task;
	struct dma_fence *fence;
	struct dma_fence_cb fence_cb;
	u64 point;
};

/* The largest handle count of the two waits. */
#define WEAVE_SYNCOBJ_WAIT_MAX_HANDLES \
	(KMALLOC_MAX_SIZE / sizeof(struct weave_syncobj_wait_entry))

/* The largest handle count of reset, signal, timeline signal and query. */
#define WEAVE_SYNCOBJ_ARRAY_MAX_HANDLES \
	(KMALLOC_MAX_SIZE / max(sizeof(void *), sizeof(u64)))

/* The arguments of the guarded ioctls, as drm_ioctl() copies them in. */
union weave_syncobj_args {
	struct drm_syncobj_wait wait;
	struct drm_syncobj_timeline_wait timeline_wait;
	struct drm_syncobj_array array;
	struct drm_syncobj_timeline_array timeline_array;
	struct drm_syncobj_transfer transfer;
};

/*
 * Copy in the argument of core ioctl @cmd the way drm_ioctl() does: the
 * command's size in bytes if it reads its argument, at most @size, and
 * zeros after them.
 */
static int weave_syncobj_args(unsigned int cmd, const void __user *uarg,
			      void *kdata, size_t size)
{
	size_t in = cmd & IOC_IN ? min_t(size_t, _IOC_SIZE(cmd), size) : 0;

	memset((u8 *)kdata + in, 0, size - in);
	return copy_from_user(kdata, uarg, in) ? -EFAULT : 0;
}

/*
 * Check a core ioctl that takes a handle count.  Return: 0 to let the
 * core run it, -EFAULT if its argument cannot be read, -ENOMEM if its
 * count is past the limit.
 */
static int weave_syncobj_check_count(unsigned int cmd,
				     const void __user *uarg)
{
	union weave_syncobj_args args;
	unsigned int nr = DRM_IOCTL_NR(cmd);
	u32 count, max;
	int ret;

	switch (nr) {
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_WAIT):
		ret = weave_syncobj_args(cmd, uarg, &args.wait, sizeof(args.wait));
		count = args.wait.count_handles;
		max = WEAVE_SYNCOBJ_WAIT_MAX_HANDLES;
		break;
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT):
		ret = weave_syncobj_args(cmd, uarg, &args.timeline_wait,
					 sizeof(args.timeline_wait));
		count = args.timeline_wait.count_handles;
		max = WEAVE_SYNCOBJ_WAIT_MAX_HANDLES;
		break;
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_RESET):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_SIGNAL):
		ret = weave_syncobj_args(cmd, uarg, &args.array,
					 sizeof(args.array));
		count = args.array.count_handles;
		max = WEAVE_SYNCOBJ_ARRAY_MAX_HANDLES;
		break;
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_QUERY):
		ret = weave_syncobj_args(cmd, uarg, &args.timeline_array,
					 sizeof(args.timeline_array));
		count = args.timeline_array.count_handles;
		max = WEAVE_SYNCOBJ_ARRAY_MAX_HANDLES;
		break;
	default:
		return 0;
	}
	if (ret)
		return ret;

	return count > max ? -ENOMEM : 0;
}

/*
 * The core's %DRM_IOCTL_SYNCOBJ_TRANSFER, checks and order included, with
 * unknown flags refused before drm_syncobj_find_fence() sees them.
 */
static int weave_syncobj_transfer_ioctl(struct drm_device *drm, void *data,
					struct drm_file *file)
{
	struct drm_syncobj_transfer *args = data;
	struct dma_fence *fence, *merged;
	struct dma_fence_chain *chain;
	struct drm_syncobj *dst, *src;
	int ret;

	if (!drm_core_check_feature(drm, DRIVER_SYNCOBJ_TIMELINE))
		return -EOPNOTSUPP;
	if (args->pad)
		return -EINVAL;

	dst = drm_syncobj_find(file, args->dst_handle);
	if (!dst)
		return -ENOENT;

	if (args->flags & ~DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT) {
		src = drm_syncobj_find(file, args->src_handle);
		ret = src ? -EINVAL : -ENOENT;
		if (src)
			drm_syncobj_put(src);
		goto out;
	}

	ret = drm_syncobj_find_fence(file, args->src_handle, args->src_point,
				     args->flags, &fence);
	if (ret)
		goto out;

	if (!args->dst_point) {
		drm_syncobj_replace_fence(dst, fence);
		dma_fence_put(fence);
		goto out;
	}

	/* A timeline point holds no container: flatten the source's. */
	merged = dma_fence_unwrap_merge(fence);
	dma_fence_put(fence);
	chain = merged ? dma_fence_chain_alloc() : NULL;
	if (!chain) {
		dma_fence_put(merged);
		ret = -ENOMEM;
		goto out;
	}
	drm_syncobj_add_point(dst, chain, merged, args->dst_point);
	dma_fence_put(merged);
out:
	drm_syncobj_put(dst);
	return ret;
}

/*
 * %DRM_IOCTL_SYNCOBJ_TRANSFER from weave's copy of the argument, with the
 * core's permission and unplug checks (drm_ioctl_kernel()); the argument
 * goes back to the caller as drm_ioctl() writes it back.
 */
static long weave_syncobj_transfer(struct file *filp, unsigned int cmd,
				   void __user *uarg)
{
	struct drm_syncobj_transfer args;
	size_t out;
	long ret;

	ret = weave_syncobj_args(cmd, uarg, &args, sizeof(args));
	if (ret)
		return ret;

	ret = drm_ioctl_kernel(filp, weave_syncobj_transfer_ioctl, &args,
			       DRM_RENDER_ALLOW);

	out = cmd & IOC_OUT ? min_t(size_t, _IOC_SIZE(cmd), sizeof(args)) : 0;
	if (copy_to_user(uarg, &args, out))
		ret = -EFAULT;
	return ret;
}

/**
 * weave_syncobj_guard() - Check, or run, a core syncobj ioctl for drm_ioctl().
 * @filp: The DRM file.
 * @cmd: The ioctl command.
 * @uarg: Its argument.
 * @ret: Out: the call's result, if the guard ended it.
 *
 * See "DOC: core syncobj ioctls".  The caller has checked that the device
 * is not unplugged.
 *
 * Return: false if the DRM core is to run the call as it is.  True if the
 * guard ended it: a transfer, which the guard runs itself, with its
 * result; -EFAULT if the argument cannot be read; -ENOMEM if the handle
 * count is past the limit.
 */
bool weave_syncobj_guard(struct file *filp, unsigned int cmd,
			 void __user *uarg, long *ret)
{
	if (DRM_IOCTL_TYPE(cmd) != DRM_IOCTL_BASE)
		return false;

	if (DRM_IOCTL_NR(cmd) == DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_TRANSFER)) {
		*ret = weave_syncobj_transfer(filp, cmd, uarg);
		return true;
	}

	*ret = weave_syncobj_check_count(cmd, uarg);
	return *ret != 0;
}
