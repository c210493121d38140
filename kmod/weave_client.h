/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the state of one client (open DRM file).
 */
#ifndef _WEAVE_CLIENT_H_
#define _WEAVE_CLIENT_H_

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <drm/drm_file.h>

#include "weave_capture.h"
#include "weave_core.h"
#include "weave_drm.h"
#include "weave_device.h"

/* Tasks of an enqueue copied from user space at once. */
#define WEAVE_TASK_CHUNK	8u

/*
 * Rounds of faulting in an ioctl's user memory and trying again, before a
 * page that keeps going away fails it with -EFAULT (see "DOC: user
 * memory").
 */
#define WEAVE_FAULT_IN_TRIES	4

/* Enqueues up to this many tasks reuse the client's scratch buffer. */
#define WEAVE_ENQUEUE_CACHE	64

struct dentry;
struct dma_fence;
struct dma_fence_chain;
struct dma_resv;
struct drm_device;
struct drm_file;
struct drm_gem_object;
struct drm_syncobj;
struct page;
struct weave_device;
struct weave_bo_quota;
struct weave_res_user;
struct weave_ectx;
struct weave_graph;
struct weave_join;
struct weave_lstream;
struct weave_proxy;
struct weave_sring_scratch;

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
	/**
	 * @busy: Bindings of tasks not yet queued that hold the buffer: of
	 * the current enqueue, and of recordings and graphs.
	 */
	u32 busy;
	/** @recorded: Bindings of it in open windows' recordings. */
	u32 recorded;
	/**
	 * @held: Bindings of it in recordings and graphs, counted in @busy
	 * too: they hold the record but not a pin.
	 */
	u32 held;
	/**
	 * @pinned: The record holds a pin of the buffer (weave_eng_bo_pin()):
	 * from the enqueue that queues a task binding it until no task
	 * binding it is queued or being enqueued (see "DOC: buffer
	 * objects").
	 */
	bool pinned;
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
	/** @tracks: &struct weave_btrack by buffer address. */
	struct xarray tracks;
	/** @core: The scheduler core. */
	struct weave_core core;
	/** @capture: The capture windows of the core's slots. */
	struct weave_capture capture;
	/**
	 * @recording: Per slot, the recording of its window, or NULL; see
	 * &struct weave_graph.
	 */
	struct weave_graph **recording;
	/** @graphs: Sealed graphs by handle, &struct weave_graph. */
	struct xarray graphs;
	/** @ngraphs: Entries of @graphs. */
	u32 ngraphs;
	/** @next_graph: Where the cyclic allocation of graph handles goes on. */
	u32 next_graph;
	/** @shaders: Its shaders by handle, &struct weave_shader. */
	struct xarray shaders;
	/** @shader_bytes: Bytes of their modules. */
	u64 shader_bytes;
	/** @nshaders: Entries of @shaders. */
	u32 nshaders;
	/** @next_shader: Where the cyclic allocation of handles goes on. */
	u32 next_shader;
	/** @quota: What its buffers may take; a reference. */
	struct weave_bo_quota *quota;
	/**
	 * @resident_user: The user that opened its file, charged for the
	 * buffers its calls first make resident (see "DOC: resident
	 * memory"); a reference.
	 */
	struct weave_res_user *resident_user;
	/** @ectx: The soft engine's context of the client; a reference. */
	struct weave_ectx *ectx;
	/**
	 * @entries_buf: Scratch where one enqueue prepares its tasks' ring
	 * entries, back to back, %WEAVE_ENTRY_MAX_SIZE bytes per task at
	 * most; kept between calls up to %WEAVE_ENQUEUE_CACHE tasks.
	 */
	struct weave_entry *entries_buf;
	/**
	 * @task_chunk: The user tasks an enqueue copied in last, under @lock;
	 * here rather than on the ioctl's stack, which it would outgrow.
	 */
	struct drm_weave_task task_chunk[WEAVE_TASK_CHUNK];
	/**
	 * @in_fences: An enqueue's in-fences, under @lock; as @task_chunk.
	 * One more for a replay: its graph's last replay.
	 */
	struct dma_fence *in_fences[WEAVE_MAX_IN_SYNCS + 1];
	/** @entries_cap: The tasks whose entries @entries_buf has room for. */
	u32 entries_cap;
	/** @next_stream: Where the cyclic allocation of handles goes on. */
	u32 next_stream;
	/** @nstreams: Entries of &weave_ectx.streams. */
	u32 nstreams;
	/** @enqueued: Whether the client has enqueued anything yet. */
	bool enqueued;
	/** @client_id: The drm-client-id of its file, as fdinfo prints it. */
	u64 client_id;
	/**
	 * @srings: The shared submission rings, &struct weave_sring by
	 * handle; changed under @lock and @sring_lock both.
	 */
	struct xarray srings;
	/**
	 * @sring_lock: Keeps the rings of @srings alive for mmap(), which
	 * runs under mmap_lock and so cannot take @lock.
	 */
	struct mutex sring_lock;
	/** @sring_scratch: Where descriptors are copied to, or NULL. */
	struct weave_sring_scratch *sring_scratch;
	/**
	 * @sring_bytes: Bytes of the rings, of @sring_scratch and of the
	 * pages of @cpages.
	 */
	u64 sring_bytes;
	/** @nsrings: Entries of @srings. */
	u32 nsrings;
	/** @npolled: Of @srings, those of poll mode. */
	u32 npolled;
	/** @next_sring: Where the cyclic allocation of ring handles goes on. */
	u32 next_sring;
	/** @sring_next: The ring the next doorbell starts with. */
	u32 sring_next;
	/**
	 * @cpages: The pages of the completion area (see "DOC: completion
	 * page"), references, or NULL before the first
	 * %DRM_IOCTL_WEAVE_COMPLETIONS; set once, under @lock and
	 * @sring_lock both.
	 */
	struct page **cpages;
	/** @ncpages: Entries of @cpages. */
	u32 ncpages;
	/**
	 * @debugfs: The client's debugfs directory, or NULL; under
	 * &weave_device.clients_lock.
	 */
	struct dentry *debugfs;
};

/**
 * weave_client_quota() - The buffer quota of a file's client.
 * @file: A file of a weave device, open.
 *
 * Return: The quota; the client holds it until the file is closed.
 */
static inline struct weave_bo_quota *weave_client_quota(struct drm_file *file)
{
	return ((struct weave_client *)file->driver_priv)->quota;
}

int weave_client_lock(struct weave_client *c);
struct weave_lstream *weave_client_stream(struct weave_client *c, u32 handle);
int weave_btrack_pin(struct weave_client *c, struct weave_btrack *bt);
void weave_btrack_release(struct weave_client *c, struct weave_btrack *bt);
struct weave_btrack *weave_btrack_get(struct weave_client *c,
				      struct drm_gem_object *obj);
void weave_entry_hold(struct weave_client *c, const struct weave_entry *e);
u64 weave_entry_release(struct weave_client *c, struct weave_entry *e,
			u32 nb);
u64 weave_entries_release(struct weave_client *c, struct weave_entry *entries,
			  u32 n);

#endif /* _WEAVE_CLIENT_H_ */
