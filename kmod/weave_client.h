/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the state of one client (open DRM file) and its ioctls.
 */
#ifndef _WEAVE_CLIENT_H_
#define _WEAVE_CLIENT_H_

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "weave_core.h"
#include "weave_drm.h"
#include "weave_drv.h"

/* Tasks of an enqueue copied from user space at once. */
#define WEAVE_TASK_CHUNK	8u

/* Enqueues up to this many tasks reuse the client's scratch buffer. */
#define WEAVE_ENQUEUE_CACHE	64

struct dma_fence;
struct dma_resv;
struct drm_device;
struct drm_file;
struct drm_gem_object;
struct weave_device;
struct weave_ectx;
struct weave_lstream;

/**
 * struct weave_btrack - A client's tracking of one buffer.
 *
 * The scheduler core's &struct weave_track plus what the ioctl layer needs:
 * a reference to the buffer, so that queued tasks keep it alive after its
 * handle is closed, and a count of tasks being registered that bind it.
 * Lives in &weave_client.tracks, keyed by the object's address, until
 * both counts drop to zero.
 */
struct weave_btrack {
	/** @track: The core's part. */
	struct weave_track track;
	/** @obj: The buffer; a reference. */
	struct drm_gem_object *obj;
	/** @busy: Bindings of tasks of the current enqueue not yet queued. */
	u32 busy;
};

/**
 * struct weave_client - Per-file state of a weave device.
 */
struct weave_client {
	/** @wdev: The device. */
	struct weave_device *wdev;
	/** @link: In &weave_device.clients, under its clients_lock. */
	struct list_head link;
	/**
	 * @lock: The client's mutex: the scheduler core's lock, and the lock
	 * of everything below.
	 */
	struct mutex lock;
	/** @streams: Logical streams by handle, &struct weave_lstream. */
	struct xarray streams;
	/** @tracks: &struct weave_btrack by buffer address. */
	struct xarray tracks;
	/** @core: The scheduler core. */
	struct weave_core core;
	/** @ectx: The soft engine's context of the client; a reference. */
	struct weave_ectx *ectx;
	/**
	 * @tasks_buf: Scratch for the tasks of one enqueue, kept between
	 * calls up to %WEAVE_ENQUEUE_CACHE entries (allocations are zeroed,
	 * which costs).
	 */
	struct weave_task *tasks_buf;
	/**
	 * @task_chunk: The user tasks an enqueue copied in last, under @lock;
	 * here rather than on the ioctl's stack, which it would outgrow.
	 */
	struct drm_weave_task task_chunk[WEAVE_TASK_CHUNK];
	/** @in_fences: An enqueue's in-fences, under @lock; as @task_chunk. */
	struct dma_fence *in_fences[WEAVE_MAX_IN_SYNCS];
	/** @tasks_cap: Entries of @tasks_buf. */
	u32 tasks_cap;
	/** @next_stream: Where the cyclic allocation of handles goes on. */
	u32 next_stream;
	/** @nstreams: Entries of @streams. */
	u32 nstreams;
	/** @enqueued: Whether the client has enqueued anything yet. */
	bool enqueued;
};

void weave_btrack_release(struct weave_client *c, struct weave_btrack *bt);
int weave_client_open(struct drm_device *drm, struct drm_file *file);
void weave_client_postclose(struct drm_device *drm, struct drm_file *file);
void weave_clients_unplug(struct weave_device *wdev);
struct weave_lstream *weave_client_stream(struct weave_client *c, u32 handle);

int weave_stream_create_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file);
int weave_stream_destroy_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file);
int weave_stream_isolate_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file);
int weave_set_param_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file);
int weave_enqueue_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file);
int weave_flush_ioctl(struct drm_device *drm, void *data,
		      struct drm_file *file);
int weave_client_flush_all(struct weave_client *c);
int weave_wait_resv(struct dma_resv *resv, s64 deadline_ns);
int weave_wait_ioctl(struct drm_device *drm, void *data,
		     struct drm_file *file);

#endif /* _WEAVE_CLIENT_H_ */
