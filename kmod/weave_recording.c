// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: a capture window's recording: the prepared ring entries it takes
 * from ENQUEUE, the holds they count, and sealing them into a graph.
 */

#include <linux/dma-fence.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "weave_client.h"
#include "weave_core.h"
#include "weave_graph.h"
#include "weave_job.h"
#include "weave_template.h"

/**
 * weave_graph_count() - Count a recording's bindings in their records.
 * @c: The client.
 * @g: The recording, or graph.
 * @from: The byte of @g's entries to start from: 0 for all of them.
 * @recorded: What to add to each record's recorded bindings.
 * @held: What to add to each record's held bindings; a record that no
 *	longer needs its pin lets it go.
 *
 * Context: The client's mutex held.
 */
void weave_graph_count(struct weave_client *c, struct weave_graph *g,
		       size_t from, int recorded, int held)
{
	const struct weave_binding *b;
	const struct weave_entry *e;
	struct weave_btrack *bt;
	u32 j;

	for (e = (void *)((u8 *)g->entries + from);
	     (u8 *)e < (u8 *)g->entries + g->bytes;
	     e = weave_core_entry_next(e)) {
		b = weave_core_entry_bindings(e);
		for (j = 0; j < e->num_bindings; j++) {
			bt = container_of(b[j].track, struct weave_btrack,
					  track);
			bt->recorded += recorded;
			bt->held += held;
			if (held)
				weave_btrack_release(c, bt);
		}
	}
}

/**
 * weave_graph_free() - Free a recording or a graph, and what it holds.
 * @c: The client.
 * @g: The recording or graph, or NULL.
 *
 * Context: The client's mutex held.
 */
void weave_graph_free(struct weave_client *c, struct weave_graph *g)
{
	if (!g)
		return;
	weave_eng_template_put(g->tmpl);
	kvfree(g->tracks);
	weave_graph_count(c, g, 0, 0, -1);
	weave_entries_release(c, g->entries, g->ntasks);
	kvfree(g->entries);
	dma_fence_put(g->last);
	kfree(g);
}

/**
 * weave_graph_record() - Record an ENQUEUE's launches into the window.
 * @c: The client.
 * @stream: The owner of a recording window.
 * @entries: The call's @n prepared entries, back to back.
 * @n: Their number.
 *
 * The launches' entries move into the recording as they are, holding what
 * they held; the other entries move to the front of @entries, in their
 * order.  On error nothing moved.
 *
 * Context: The client's mutex held.
 * Return: How many entries are left in @entries, or -ENOSPC if the
 * recording would pass %WEAVE_MAX_GRAPH_TASKS, or -ENOMEM.
 */
int weave_graph_record(struct weave_client *c, u32 stream,
		       struct weave_entry *entries, u32 n)
{
	u32 slot = weave_core_slot(&c->core, stream);
	struct weave_graph *g = c->recording[slot];
	struct weave_entry *e, *next, *keep = entries;
	size_t size, bytes = 0, from = g->bytes;
	u32 i, launches = 0, left = 0;
	void *grown;

	for (i = 0, e = entries; i < n; i++, e = weave_core_entry_next(e)) {
		if (e->kind != WEAVE_TASK_LAUNCH)
			continue;
		launches++;
		bytes += weave_core_entry_size(e);
	}
	if (g->ntasks + launches > WEAVE_MAX_GRAPH_TASKS)
		return -ENOSPC;
	if (g->bytes + bytes > g->cap) {
		size = max3((size_t)PAGE_SIZE, 2 * g->cap, g->bytes + bytes);
		size = min_t(size_t, size,
			     WEAVE_MAX_GRAPH_TASKS * WEAVE_ENTRY_MAX_SIZE);
		grown = kvmalloc(size, GFP_KERNEL_ACCOUNT);
		if (!grown)
			return -ENOMEM;
		if (g->bytes)
			memcpy(grown, g->entries, g->bytes);
		kvfree(g->entries);
		g->entries = grown;
		g->cap = size;
	}
	for (i = 0, e = entries; i < n; i++, e = next) {
		size = weave_core_entry_size(e);
		next = (void *)((u8 *)e + size);
		if (e->kind == WEAVE_TASK_LAUNCH) {
			memcpy((u8 *)g->entries + g->bytes, e, size);
			g->bytes += size;
			g->ntasks++;
			continue;
		}
		if (keep != e)
			memmove(keep, e, size);
		keep = (void *)((u8 *)keep + size);
		left++;
	}
	weave_graph_count(c, g, from, 1, 1);
	return left;
}

static int weave_track_cmp(const void *a, const void *b)
{
	const struct weave_track *x = *(struct weave_track * const *)a;
	const struct weave_track *y = *(struct weave_track * const *)b;

	if (x == y)
		return 0;
	return x < y ? -1 : 1;
}

/**
 * weave_graph_unseal() - Undo weave_graph_seal(): @g records on.
 * @g: The recording.
 */
void weave_graph_unseal(struct weave_graph *g)
{
	weave_eng_template_put(g->tmpl);
	g->tmpl = NULL;
	kvfree(g->tracks);
	g->tracks = NULL;
	g->ntracks = 0;
}

/**
 * weave_graph_seal() - Make what a replay of a recording needs.
 * @g: The recording.
 *
 * Its template, which encodes its entries once, and the tracking structs
 * of its buffers, each once.
 *
 * Context: The client's mutex held.
 * Return: 0 or -ENOMEM, with nothing made.
 */
int weave_graph_seal(struct weave_graph *g)
{
	const struct weave_binding *b;
	const struct weave_entry *e;
	struct weave_track *track;
	u32 i, j, k, n = 0;

	if (!g->ntasks)
		return 0;
	for (i = 0, e = g->entries; i < g->ntasks;
	     i++, e = weave_core_entry_next(e))
		n += e->num_bindings;
	g->tracks = kvmalloc_array(n, sizeof(*g->tracks), GFP_KERNEL_ACCOUNT);
	g->tmpl = g->tracks ? weave_eng_template_create(g->entries,
							g->ntasks) : NULL;
	if (!g->tmpl) {
		kvfree(g->tracks);
		g->tracks = NULL;
		return -ENOMEM;
	}
	/* Sorted, so that each is kept once in O(n log n). */
	for (i = 0, k = 0, e = g->entries; i < g->ntasks;
	     i++, e = weave_core_entry_next(e)) {
		b = weave_core_entry_bindings(e);
		for (j = 0; j < e->num_bindings; j++)
			g->tracks[k++] = b[j].track;
	}
	sort(g->tracks, n, sizeof(*g->tracks), weave_track_cmp, NULL);
	for (i = 0; i < n; i++) {
		track = g->tracks[i];
		if (!g->ntracks || g->tracks[g->ntracks - 1] != track)
			g->tracks[g->ntracks++] = track;
	}
	return 0;
}
