// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: user engines: ENGINE_ATTACH, the engine's file that holds its
 * engine queues until it is closed, and the report of the queues.  See
 * "DOC: user engines" in the uAPI.
 */

#include <linux/anon_inodes.h>
#include <linux/bitops.h>
#include <linux/ctype.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>

#include "weave_device.h"
#include "weave_drm.h"
#include "weave_uengine.h"

/**
 * struct weave_uengine - A user engine: what its file holds.
 */
struct weave_uengine {
	/** @wdev: Its device; a reference (drm_dev_get()) once attached. */
	struct weave_device *wdev;
	/**
	 * @queues: The engine queues it holds; zero until it attached, and
	 * once it detached.  Under &weave_device.engines_lock.
	 */
	u64 queues;
};

/**
 * weave_uengines_init() - Set up a device's engine queues: no engine.
 * @wdev: The device, being probed, with its limits.
 *
 * Return: 0, or a negative errno.
 */
int weave_uengines_init(struct weave_device *wdev)
{
	return drmm_mutex_init(&wdev->drm, &wdev->engines_lock);
}

/**
 * weave_uengines_report() - Fill the reply of %DRM_WEAVE_QUERY_ENGINES.
 * @wdev: The device.
 * @reply: Zeroed.
 */
void weave_uengines_report(struct weave_device *wdev,
			   struct drm_weave_engines *reply)
{
	u32 i, n = wdev->limits.num_engine_queues;

	reply->num_engine_queues = n;
	mutex_lock(&wdev->engines_lock);
	for (i = 0; i < n; i++) {
		const struct weave_equeue *eq = &wdev->equeues[i];

		reply->queues[i].flags = eq->engine ?
					 DRM_WEAVE_ENGINE_ATTACHED : 0;
		reply->queues[i].generation = eq->generation;
		memcpy(reply->queues[i].name, eq->name, sizeof(eq->name));
	}
	mutex_unlock(&wdev->engines_lock);
}

/* Let @ue's queues go, if it holds any. */
static void weave_uengine_detach(struct weave_uengine *ue)
{
	struct weave_device *wdev = ue->wdev;
	unsigned long queues;
	u32 i;

	mutex_lock(&wdev->engines_lock);
	queues = ue->queues;
	for_each_set_bit(i, &queues, DRM_WEAVE_MAX_ENGINE_QUEUES)
		wdev->equeues[i].engine = NULL;
	ue->queues = 0;
	mutex_unlock(&wdev->engines_lock);
	if (queues)
		drm_dev_put(&wdev->drm);
}

static int weave_uengine_release(struct inode *inode, struct file *f)
{
	struct weave_uengine *ue = f->private_data;

	weave_uengine_detach(ue);
	kfree(ue);
	return 0;
}

static const struct file_operations weave_uengine_fops = {
	.owner = THIS_MODULE,
	.release = weave_uengine_release,
	.llseek = noop_llseek,
};

/*
 * Attach @ue to @queues under @name, unless one has an engine; its
 * generation in *@generation.  Return: 0 or -EBUSY.
 */
static int weave_uengine_attach(struct weave_uengine *ue, u64 queues,
				const char *name, u32 *generation)
{
	struct weave_device *wdev = ue->wdev;
	unsigned long mask = queues;
	u32 i;

	mutex_lock(&wdev->engines_lock);
	for_each_set_bit(i, &mask, DRM_WEAVE_MAX_ENGINE_QUEUES) {
		if (wdev->equeues[i].engine) {
			mutex_unlock(&wdev->engines_lock);
			return -EBUSY;
		}
	}
	/* Never zero, so that zero says "never had one". */
	*generation = ++wdev->engine_generation ?: ++wdev->engine_generation;
	for_each_set_bit(i, &mask, DRM_WEAVE_MAX_ENGINE_QUEUES) {
		struct weave_equeue *eq = &wdev->equeues[i];

		eq->engine = ue;
		eq->generation = *generation;
		memcpy(eq->name, name, sizeof(eq->name));
	}
	ue->queues = queues;
	drm_dev_get(&wdev->drm);
	mutex_unlock(&wdev->engines_lock);
	return 0;
}

/* Whether @name is 1 to 31 printable ASCII bytes, a NUL, then zeroes. */
static bool weave_engine_name_ok(const char *name)
{
	size_t len = strnlen(name, DRM_WEAVE_ENGINE_NAME_SIZE), i;

	if (!len || len == DRM_WEAVE_ENGINE_NAME_SIZE ||
	    memchr_inv(name + len, 0, DRM_WEAVE_ENGINE_NAME_SIZE - len))
		return false;
	for (i = 0; i < len; i++)
		if (!isascii(name[i]) || !isprint(name[i]))
			return false;
	return true;
}

/**
 * weave_engine_attach_ioctl() - Handle %DRM_IOCTL_WEAVE_ENGINE_ATTACH.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_engine_attach.
 * @file: The caller's file; the DRM core checked CAP_SYS_ADMIN.
 *
 * The engine's file is made before the queues are taken and installed
 * after, so that nothing can fail once they are.
 *
 * Context: Inside a drm_dev_enter() section.
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_engine_attach_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	struct drm_weave_engine_attach *args = data;
	struct weave_device *wdev = to_weave_device(drm);
	u32 n = wdev->limits.num_engine_queues;
	struct weave_uengine *ue;
	struct file *f;
	int fd, ret;

	if (args->flags || args->pad || !args->queues ||
	    (n < 64 && args->queues >> n) ||
	    !weave_engine_name_ok(args->name))
		return -EINVAL;
	ue = kzalloc(sizeof(*ue), GFP_KERNEL_ACCOUNT);
	if (!ue)
		return -ENOMEM;
	ue->wdev = wdev;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		kfree(ue);
		return fd;
	}
	f = anon_inode_getfile("[weave-engine]", &weave_uengine_fops, ue,
			       O_RDWR | O_CLOEXEC);
	if (IS_ERR(f)) {
		put_unused_fd(fd);
		kfree(ue);
		return PTR_ERR(f);
	}
	ret = weave_uengine_attach(ue, args->queues, args->name,
				   &args->generation);
	if (ret) {
		/* Its release frees @ue, which holds nothing. */
		fput(f);
		put_unused_fd(fd);
		return ret;
	}
	fd_install(fd, f);
	args->fd = fd;
	return 0;
}
