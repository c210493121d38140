// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: a multi-stream GPU task scheduler behind a DRM render node.
 *
 * This file registers the devices: module parameters, device creation and
 * removal, the &struct drm_driver, the ioctl table and the query ioctl.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nospec.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>

#include "weave_client.h"
#include "weave_compat.h"
#include "weave_drm.h"
#include "weave_drv.h"
#include "weave_engine.h"
#include "weave_gem.h"
#include "weave_sched.h"

/**
 * DOC: locking
 *
 * The lock order of the driver, outermost first.  Each lock added to weave
 * is added here, in its place.
 *
 * 1. &weave_client.lock, the client's mutex.  Every ioctl of a client that
 *    touches its streams or scheduler takes it, and so does close.  It is
 *    the scheduler core's lock: the core and the backend ops (encoding
 *    tasks into jobs, arming and pushing them) run under it, and it
 *    protects the client's xarrays and the engine's per-slot state
 *    (&weave_eslot).  Waits (%DRM_IOCTL_WEAVE_WAIT) drop it first.  At
 *    close, destroying the scheduler entities may wait, under it, for the
 *    client's jobs to leave them; those jobs never need the mutex.
 * 2. The reservation locks (&dma_resv, ww mutexes of reservation_ww_class)
 *    of a job's buffers, all taken together, not interruptibly, when a
 *    backend stream is flushed; nothing is pinned under them: buffers are
 *    pinned once, at creation, with no weave lock held (the shmem helper
 *    takes the reservation lock on 6.12, its pages_lock on 6.1).  Freeing
 *    a buffer unpins it, taking the same lock without the client mutex
 *    (scheduler thread or workqueue).
 * 3. The scheduler's own locks (gpu-sched entity and run-queue spinlocks,
 *    &drm_gpu_scheduler.job_list_lock), taken by drm_sched_*() under the
 *    above.
 * 4. &weave_ectx.gate_lock, a spinlock taken with interrupts off; it may
 *    be taken inside a foreign fence's lock (the gate's fence callback).
 * 5. Fence locks: a gate's or hardware fence's own spinlock, innermost.
 *
 * The soft engine's workers take no lock of weave's: they run a job's
 * tasks on pages pinned since the buffers' creation and signal its
 * hardware fence.  The
 * timeout handler (system workqueue) only sets atomics and fence errors,
 * then uses drm_sched_stop() and drm_sched_start() on its own queue.
 *
 * Device-wide state needs no lock: the usage counters are atomics and the
 * limits and engine are fixed from creation to removal.  A client's usage
 * counters that jobs update after they leave the client's mutex (pending
 * tasks, staged bytes, job task-array bytes and live jobs, in &weave_ectx)
 * are atomics too; %DRM_WEAVE_QUERY_CLIENT_USAGE reads them, with the
 * mutex-protected rest (streams, rings, queued tasks), under the mutex.
 */

/**
 * DOC: lifetimes
 *
 * The module creates its devices at load time, each on a platform device
 * of its own, and tears them down in reverse order at unload.  Unload
 * cannot start while a user remains: every open DRM file and every
 * exported dma-buf holds a reference on the module, through the owner of
 * the file operations.  A &struct weave_device is freed when the last
 * reference to its &drm_device goes, which at unload is the devres group
 * release that follows drm_dev_unregister().
 *
 * A client's state that its jobs use outlives the client's file: each job
 * holds a reference to the client's engine context, to the backend stream
 * whose scheduler entity it went through (the scheduler touches the entity
 * after it took the job, so the stream is freed with its last job, not at
 * close), to its logical streams and buffers, and to the module.
 */

/* The most devices one module load may create. */
#define WEAVE_MAX_DEVICES	8

/* The largest value the max_bo_size module parameter accepts. */
#define WEAVE_MAX_BO_SIZE_LIMIT	SZ_4G

static unsigned int num_devices = 1;
module_param(num_devices, uint, 0444);
MODULE_PARM_DESC(num_devices,
		 "Number of weave devices to create (1-"
		 __stringify(WEAVE_MAX_DEVICES) ", default 1)");

static unsigned long long max_bo_size = SZ_256M;
module_param(max_bo_size, ullong, 0444);
MODULE_PARM_DESC(max_bo_size,
		 "Largest buffer object in bytes, a multiple of the page size (at most 4 GiB, default 256 MiB)");

static unsigned int num_queues = 2;
module_param(num_queues, uint, 0444);
MODULE_PARM_DESC(num_queues, "Hardware queues per device (1-"
		 __stringify(WEAVE_MAX_QUEUES) ", default 2)");

static unsigned int max_streams = 64;
module_param(max_streams, uint, 0444);
MODULE_PARM_DESC(max_streams, "Slots per client (1-"
		 __stringify(WEAVE_SCHED_MAX_STREAMS) ", default 64)");

static unsigned int max_tasks = 64;
module_param(max_tasks, uint, 0444);
MODULE_PARM_DESC(max_tasks, "Tasks queued on a slot before it executes (1-"
		 __stringify(WEAVE_SCHED_MAX_TASKS) ", default 64)");

static unsigned int strategy = DRM_WEAVE_STRATEGY_INTERLEAVE;
module_param(strategy, uint, 0444);
MODULE_PARM_DESC(strategy,
		 "Default strategy: 0 interleave (default), 1 sequential");

static unsigned int job_timeout_ms = 2000;
module_param(job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms,
		 "Job timeout in milliseconds (10-600000, default 2000)");

static unsigned int max_client_streams = 4096;
module_param(max_client_streams, uint, 0444);
MODULE_PARM_DESC(max_client_streams,
		 "Logical streams per client (1-1048576, default 4096)");

static unsigned long long max_pending_tasks = 65536;
module_param(max_pending_tasks, ullong, 0444);
MODULE_PARM_DESC(max_pending_tasks,
		 "Enqueued, uncompleted tasks per client (at least 1, default 65536)");

static unsigned long long max_staged_bytes = SZ_64M;
module_param(max_staged_bytes, ullong, 0444);
MODULE_PARM_DESC(max_staged_bytes,
		 "Staged host-write bytes per client (1 to 4 GiB, default 64 MiB)");

/* Bounds of the module parameters above. */
#define WEAVE_TIMEOUT_MS_MIN		10
#define WEAVE_TIMEOUT_MS_MAX		600000
#define WEAVE_CLIENT_STREAMS_MAX	BIT(20)

static struct weave_device *weave_devices[WEAVE_MAX_DEVICES];

/**
 * struct weave_query - How to answer one &enum drm_weave_query_type.
 */
struct weave_query {
	/** @size: The size of the reply struct, in bytes. */
	u32 size;

	/**
	 * @fill: Fill in the reply struct for the caller's @file.  @reply is
	 * zeroed beforehand and is @size bytes long.
	 */
	void (*fill)(struct weave_device *wdev, struct drm_file *file,
		     void *reply);
};

/* The largest reply struct any query may have, in bytes. */
#define WEAVE_QUERY_REPLY_MAX	128

/*
 * WEAVE_QUERY(type, fill) - A &struct weave_query entry whose reply is a
 * struct @type; fails to build if @type outgrows WEAVE_QUERY_REPLY_MAX.
 */
#define WEAVE_QUERY(type, _fill)					\
	{								\
		.size = sizeof(struct type) +				\
			BUILD_BUG_ON_ZERO(sizeof(struct type) >		\
					  WEAVE_QUERY_REPLY_MAX),	\
		.fill = (_fill),					\
	}

static void weave_query_device_info(struct weave_device *wdev,
				    struct drm_file *file, void *reply)
{
	struct drm_weave_device_info *info = reply;

	info->uapi_major = DRM_WEAVE_UAPI_MAJOR;
	info->uapi_minor = DRM_WEAVE_UAPI_MINOR;
	info->max_bo_size = wdev->max_bo_size;
	info->page_size = PAGE_SIZE;
	info->num_queues = wdev->limits.num_queues;
	info->max_streams = wdev->limits.max_streams;
	info->max_tasks = wdev->limits.max_tasks;
	info->max_client_streams = wdev->limits.max_client_streams;
	info->max_tasks_per_enqueue = WEAVE_MAX_TASKS_PER_ENQUEUE;
	info->max_pending_tasks = wdev->limits.max_pending_tasks;
	info->max_staged_bytes = wdev->limits.max_staged_bytes;
	info->max_bindings = WEAVE_MAX_BINDINGS;
	info->max_uniform_bytes = WEAVE_MAX_UNIFORM_BYTES;
	info->max_in_syncs = WEAVE_MAX_IN_SYNCS;
	info->job_timeout_ms = wdev->limits.job_timeout_ms;
	info->default_strategy = wdev->limits.strategy;
}

static void weave_query_memory_usage(struct weave_device *wdev,
				     struct drm_file *file, void *reply)
{
	struct drm_weave_memory_usage *usage = reply;

	usage->live_bos = atomic64_read(&wdev->live_bos);
	usage->live_bytes = atomic64_read(&wdev->live_bytes);
}

static void weave_query_client_usage(struct weave_device *wdev,
				     struct drm_file *file, void *reply)
{
	weave_client_usage(file->driver_priv, reply);
}

/* Indexed by &enum drm_weave_query_type; a new query is one line here. */
static const struct weave_query weave_queries[] = {
	[DRM_WEAVE_QUERY_DEVICE_INFO] =
		WEAVE_QUERY(drm_weave_device_info, weave_query_device_info),
	[DRM_WEAVE_QUERY_MEMORY_USAGE] =
		WEAVE_QUERY(drm_weave_memory_usage, weave_query_memory_usage),
	[DRM_WEAVE_QUERY_CLIENT_USAGE] =
		WEAVE_QUERY(drm_weave_client_usage, weave_query_client_usage),
};

/*
 * Zero @len bytes of user memory, in chunks so that a large buffer does
 * not keep the CPU for long.
 */
static int weave_clear_user(void __user *ptr, size_t len)
{
	while (len) {
		size_t chunk = min_t(size_t, len, SZ_64K);

		if (clear_user(ptr, chunk))
			return -EFAULT;
		ptr += chunk;
		len -= chunk;
		cond_resched();
	}

	return 0;
}

static int weave_query_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct drm_weave_query *args = data;
	void __user *ptr = u64_to_user_ptr(args->pointer);
	u64 reply[WEAVE_QUERY_REPLY_MAX / sizeof(u64)] = {};
	const struct weave_query *query;
	u32 type = args->type;
	u32 len;
	int ret;

	if (type >= ARRAY_SIZE(weave_queries))
		return -EINVAL;
	type = array_index_nospec(type, ARRAY_SIZE(weave_queries));
	query = &weave_queries[type];
	if (!query->fill)
		return -EINVAL;

	if (!args->size) {
		args->size = query->size;
		return 0;
	}

	/* Refuse a range that cannot be user memory before writing any. */
	if (!access_ok(ptr, args->size))
		return -EFAULT;

	query->fill(to_weave_device(drm), file, reply);

	len = min(args->size, query->size);
	if (copy_to_user(ptr, reply, len))
		return -EFAULT;
	if (args->size > len) {
		ret = weave_clear_user(ptr + len, args->size - len);
		if (ret)
			return ret;
	}

	args->size = query->size;

	return 0;
}

static const struct drm_ioctl_desc weave_ioctls[] = {
	DRM_IOCTL_DEF_DRV(WEAVE_QUERY, weave_query_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_BO_CREATE, weave_gem_bo_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_BO_MMAP_OFFSET, weave_gem_bo_mmap_offset_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_STREAM_CREATE, weave_stream_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_STREAM_DESTROY, weave_stream_destroy_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_ENQUEUE, weave_enqueue_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_FLUSH, weave_flush_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_STREAM_ISOLATE, weave_stream_isolate_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_WAIT, weave_wait_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_STREAM_QUERY, weave_stream_query_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WEAVE_SET_PARAM, weave_set_param_ioctl,
			  DRM_RENDER_ALLOW),
};

DEFINE_DRM_GEM_FOPS(weave_drm_fops);

static const struct drm_driver weave_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE,
	.fops = &weave_drm_fops,
	.ioctls = weave_ioctls,
	.num_ioctls = ARRAY_SIZE(weave_ioctls),
	.open = weave_client_open,
	.postclose = weave_client_postclose,

	.gem_create_object = weave_gem_create_object,
	.gem_prime_import_sg_table = weave_gem_prime_import_sg_table,

	.name = WEAVE_DRIVER_NAME,
	.desc = "weave multi-stream GPU task scheduler",
	.date = "20261202",
	.major = DRM_WEAVE_UAPI_MAJOR,
	.minor = DRM_WEAVE_UAPI_MINOR,

	WEAVE_COMPAT_PRIME_FD_OPS
	WEAVE_COMPAT_PRIME_MMAP_OPS
};

/*
 * Create device @index: a platform device, a devres group on it that holds
 * the DRM device, and the registered DRM device.  On failure, undo all of
 * it.
 */
static int weave_device_create(unsigned int index, struct weave_device **out)
{
	struct platform_device *pdev;
	struct weave_device *wdev;
	int ret;

	pdev = platform_device_register_simple(WEAVE_DRIVER_NAME, index,
					       NULL, 0);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);

	if (!devres_open_group(&pdev->dev, NULL, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto err_unregister;
	}

	/* Importers map buffers for this device: it can reach all memory. */
	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		goto err_release;

	wdev = devm_drm_dev_alloc(&pdev->dev, &weave_drm_driver,
				  struct weave_device, drm);
	if (IS_ERR(wdev)) {
		ret = PTR_ERR(wdev);
		goto err_release;
	}
	wdev->pdev = pdev;
	wdev->max_bo_size = max_bo_size;
	wdev->limits = (struct weave_limits) {
		.num_queues = num_queues,
		.max_streams = max_streams,
		.max_tasks = max_tasks,
		.strategy = strategy,
		.job_timeout_ms = job_timeout_ms,
		.max_client_streams = max_client_streams,
		.max_pending_tasks = max_pending_tasks,
		.max_staged_bytes = max_staged_bytes,
	};

	ret = weave_engine_init(wdev);
	if (ret)
		goto err_release;

	ret = drm_dev_register(&wdev->drm, 0);
	if (ret)
		goto err_engine;

	*out = wdev;

	return 0;

err_engine:
	weave_engine_fini(wdev);
err_release:
	devres_release_group(&pdev->dev, NULL);
err_unregister:
	platform_device_unregister(pdev);
	return ret;
}

/* Undo weave_device_create().  @wdev may be freed on return. */
static void weave_device_destroy(struct weave_device *wdev)
{
	struct platform_device *pdev = wdev->pdev;

	drm_dev_unregister(&wdev->drm);
	weave_engine_fini(wdev);
	devres_release_group(&pdev->dev, NULL);
	platform_device_unregister(pdev);
}

static int __init weave_init(void)
{
	unsigned int i;
	int ret;

	if (num_devices < 1 || num_devices > WEAVE_MAX_DEVICES) {
		pr_err("num_devices=%u is outside 1..%u\n", num_devices,
		       WEAVE_MAX_DEVICES);
		return -EINVAL;
	}
	if (max_bo_size < PAGE_SIZE || max_bo_size > WEAVE_MAX_BO_SIZE_LIMIT ||
	    !IS_ALIGNED(max_bo_size, PAGE_SIZE)) {
		pr_err("max_bo_size=%llu is not a multiple of %lu in %lu..%llu\n",
		       max_bo_size, PAGE_SIZE, PAGE_SIZE,
		       WEAVE_MAX_BO_SIZE_LIMIT);
		return -EINVAL;
	}

	if (num_queues < 1 || num_queues > WEAVE_MAX_QUEUES ||
	    max_streams < 1 || max_streams > WEAVE_SCHED_MAX_STREAMS ||
	    max_tasks < 1 || max_tasks > WEAVE_SCHED_MAX_TASKS ||
	    strategy > DRM_WEAVE_STRATEGY_SEQUENTIAL ||
	    job_timeout_ms < WEAVE_TIMEOUT_MS_MIN ||
	    job_timeout_ms > WEAVE_TIMEOUT_MS_MAX ||
	    max_client_streams < 1 ||
	    max_client_streams > WEAVE_CLIENT_STREAMS_MAX ||
	    max_pending_tasks < 1 || max_staged_bytes < 1 ||
	    max_staged_bytes > SZ_4G) {
		pr_err("a scheduler module parameter is out of range\n");
		return -EINVAL;
	}

	for (i = 0; i < num_devices; i++) {
		ret = weave_device_create(i, &weave_devices[i]);
		if (ret) {
			pr_err("cannot create device %u: %d\n", i, ret);
			goto err_destroy;
		}
	}

	return 0;

err_destroy:
	while (i--) {
		weave_device_destroy(weave_devices[i]);
		weave_devices[i] = NULL;
	}
	return ret;
}

static void __exit weave_exit(void)
{
	unsigned int i = num_devices;

	while (i--) {
		weave_device_destroy(weave_devices[i]);
		weave_devices[i] = NULL;
	}
}

module_init(weave_init);
module_exit(weave_exit);

MODULE_DESCRIPTION("weave multi-stream GPU task scheduler");
MODULE_LICENSE("GPL");
