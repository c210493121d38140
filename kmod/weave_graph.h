/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: a client's captured graphs and its capture windows' recordings.
 */
#ifndef _WEAVE_GRAPH_H_
#define _WEAVE_GRAPH_H_

#include <linux/types.h>

struct dma_fence;
struct drm_device;
struct drm_file;
struct drm_gem_object;
struct weave_client;
struct weave_entry;
struct weave_template;
struct weave_track;

/* Limits of graph capture, fixed by the driver. */
#define WEAVE_MAX_GRAPHS	256
#define WEAVE_MAX_GRAPH_TASKS	1024

/**
 * struct weave_graph - Recorded tasks: a window's recording, then a graph.
 *
 * Owned by the client, under its mutex: in &weave_client.recording while
 * its window records, then in &weave_client.graphs once sealed.
 */
struct weave_graph {
	/**
	 * @entries: The recorded launches, as the ring entries an ENQUEUE
	 * prepared, moved here as they are, back to back: checked and
	 * resolved, each binding holding its buffer's tracking record busy,
	 * and so the buffer.
	 */
	struct weave_entry *entries;
	/** @ntasks: Number of @entries. */
	u32 ntasks;
	/** @bytes: Bytes of @entries used. */
	size_t bytes;
	/** @cap: Bytes of @entries allocated. */
	size_t cap;
	/**
	 * @tmpl: Once sealed, @entries encoded for replays (see "DOC: job
	 * templates"); a reference.  NULL while recording, or with no task.
	 */
	struct weave_template *tmpl;
	/**
	 * @tracks: Once sealed, the tracking structs of the buffers @entries
	 * bind, each once, which @entries hold.
	 */
	struct weave_track **tracks;
	/** @ntracks: Entries of @tracks. */
	u32 ntracks;
	/**
	 * @last: The fence of the slot the graph was last replayed on, just
	 * after that replay; a reference, or NULL.
	 */
	struct dma_fence *last;
	/** @last_slot: The slot of @last. */
	u32 last_slot;
};

int weave_graphs_init(struct weave_client *c);
void weave_graphs_fini(struct weave_client *c);
void weave_capture_stream_gone(struct weave_client *c, u32 stream);
int weave_graph_record(struct weave_client *c, u32 stream,
		       struct weave_entry *entries, u32 n);
void weave_graph_count(struct weave_client *c, struct weave_graph *g,
		       size_t from, int recorded, int held);
void weave_graph_free(struct weave_client *c, struct weave_graph *g);
void weave_graph_unseal(struct weave_graph *g);
int weave_graph_seal(struct weave_graph *g);
void weave_graph_doom(struct weave_client *c, u32 stream, int err);
bool weave_graph_records(struct weave_client *c, struct drm_gem_object *obj);

int weave_capture_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file);
int weave_replay_ioctl(struct drm_device *drm, void *data,
		       struct drm_file *file);
int weave_graph_destroy_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file);

#endif /* _WEAVE_GRAPH_H_ */
