/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the device, shared by the DRM glue files.
 */
#ifndef _WEAVE_DEVICE_H_
#define _WEAVE_DEVICE_H_

#include <linux/atomic.h>
#include <linux/container_of.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <drm/drm_device.h>

#include "weave_engine.h"
#include "weave_failure.h"

struct dentry;
struct file;
struct platform_device;
struct task_struct;
struct weave_engine;
struct weave_uengine;

/* Limits of one ENQUEUE, fixed by the driver. */
#define WEAVE_MAX_TASKS_PER_ENQUEUE	1024
#define WEAVE_MAX_IN_SYNCS		64

/* Limits of the failure reports, fixed by the driver. */
#define WEAVE_MAX_CHECK_RANGES		64
#define WEAVE_MAX_REPORT_FAILURES	256

/* The DRM driver name, and the name of the platform devices weave creates. */
#define WEAVE_DRIVER_NAME	"weave"

/**
 * struct weave_spoll - The polling thread of a device and its rings (see
 * "DOC: ring polling").
 */
struct weave_spoll {
	/** @lock: Protects @rings and each ring's &weave_sring.poll_link. */
	struct mutex lock;
	/** @rings: The polled rings of every client, in visiting order. */
	struct list_head rings;
	/** @nrings: Entries of @rings. */
	u32 nrings;
	/** @thread: The thread, from probe until the unbind stops it. */
	struct task_struct *thread;
	/** @wq: Where it sleeps. */
	wait_queue_head_t wq;
	/** @kicked: A doorbell or a new ring asked it to wake. */
	atomic_t kicked;
};

/**
 * struct weave_equeue - An engine queue of a device (see "DOC: user
 * engines"), under &weave_device.engines_lock.
 */
struct weave_equeue {
	/** @engine: Its user engine, or NULL. */
	struct weave_uengine *engine;
	/** @generation: The generation of its engine, or of its last one. */
	u32 generation;
	/** @name: The name of its engine, or of its last one. */
	char name[DRM_WEAVE_ENGINE_NAME_SIZE];
};

/**
 * struct weave_device - One weave device.
 *
 * Made when weave's platform driver binds one of the module's platform
 * devices, unplugged when it unbinds (see "DOC: lifetimes").
 * devm_drm_dev_alloc() allocates it around @drm, so it lives as long as
 * the last reference to @drm: the binding's, each open file's, each
 * exported dma-buf's and each client engine context's.
 */
struct weave_device {
	/** @drm: The DRM device. */
	struct drm_device drm;

	/**
	 * @pdev: The platform device the module registered for this device;
	 * the parent of @drm.
	 */
	struct platform_device *pdev;

	/**
	 * @clients_lock: Protects @clients; taken before any client's mutex.
	 */
	struct mutex clients_lock;

	/**
	 * @clients: The open files' &struct weave_client, by &weave_client.link,
	 * so that unplugging the device can cancel their work.
	 */
	struct list_head clients;

	/**
	 * @max_bo_size: The largest buffer object, in bytes, a multiple of
	 * the page size.  The module parameter max_bo_size at load time.
	 */
	u64 max_bo_size;

	/**
	 * @max_client_bo_bytes: The most bytes of buffers charged to one
	 * client; the module parameter max_client_bo_bytes, or a quarter of
	 * the RAM at probe.
	 */
	u64 max_client_bo_bytes;

	/** @max_client_bos: The most buffers charged to one client. */
	u32 max_client_bos;

	/**
	 * @live_bos: Buffer objects of this device not yet freed, imported
	 * ones included.
	 */
	atomic64_t live_bos;

	/** @live_bytes: The sum of the sizes of @live_bos, in bytes. */
	atomic64_t live_bytes;

	/** @limits: The scheduler's module parameters at creation. */
	struct weave_limits limits;

	/**
	 * @failures: The failure graph of the device's buffers (see "DOC:
	 * failure graph"); emptied as the last buffer goes.
	 */
	struct weave_failures failures;

	/** @engine: The soft engine: hardware queues and their workers. */
	struct weave_engine *engine;

	/**
	 * @engines_lock: Protects @equeues and @engine_generation; a leaf
	 * lock.
	 */
	struct mutex engines_lock;

	/** @engine_generation: The generation of the last attachment. */
	u32 engine_generation;

	/** @equeues: The engine queues, limits.num_engine_queues of them. */
	struct weave_equeue equeues[DRM_WEAVE_MAX_ENGINE_QUEUES];

	/** @spoll: The polling thread of rings of poll mode, and its list. */
	struct weave_spoll spoll;

	/**
	 * @debugfs_clients: The directory of the clients' debugfs files in
	 * the device's debugfs directory, or NULL: before it is made, if it
	 * could not be, and once the unplug removed it.  Under @clients_lock.
	 */
	struct dentry *debugfs_clients;
};

/**
 * to_weave_device() - The &struct weave_device around a DRM device.
 * @drm: A DRM device of the weave driver.
 *
 * Return: The weave device that embeds @drm.
 */
static inline struct weave_device *to_weave_device(struct drm_device *drm)
{
	return container_of(drm, struct weave_device, drm);
}

#endif /* _WEAVE_DEVICE_H_ */
