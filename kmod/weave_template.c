// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the soft engine's job templates: a graph's tasks encoded once,
 * and the job each replay makes of them without encoding them again.
 */

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include <drm/drm_gem.h>

#include "weave_backend.h"
#include "weave_bo.h"
#include "weave_engine.h"
#include "weave_fence.h"
#include "weave_job.h"
#include "weave_lists.h"
#include "weave_task.h"
#include "weave_template.h"

/**
 * DOC: job templates
 *
 * A graph replays the same tasks each time, so the soft engine encodes
 * them once, when the graph is sealed, into a &struct weave_template: the
 * encoded tasks, read-only from then on, and the buffers they bind, sorted
 * and merged with the union of their access, a reference each.
 *
 * A replay queues one job that borrows the template's tasks
 * (&weave_job.tmpl holds a reference), with one tally for all of them,
 * the replay's in-syncs and the slot's gates, and a copy of the buffer
 * list, whose references it takes as any job does.  So a replay encodes
 * nothing, and costs one job whatever its number of tasks; the worker
 * runs the tasks as any others, with the same failure propagation.  No
 * task of an ENQUEUE joins such a job.
 *
 * A template lives as long as its graph or a job made from it, whichever
 * goes last: destroying a graph with replays in flight is safe.
 */

/* Gather the buffers of @entries into @tmpl, each once; 0 or -ENOMEM. */
static int weave_template_bos(struct weave_template *tmpl,
			      const struct weave_entry *entries, u32 n)
{
	const struct weave_binding *b;
	const struct weave_entry *e;
	struct weave_jbo *all;
	u32 i, j, nall = 0;

	for (i = 0, e = entries; i < n; i++, e = weave_core_entry_next(e))
		nall += e->num_bindings;
	if (!nall)
		return 0;
	all = kvmalloc_array(nall, sizeof(*all), GFP_KERNEL_ACCOUNT);
	if (!all)
		return -ENOMEM;
	nall = 0;
	for (i = 0, e = entries; i < n; i++, e = weave_core_entry_next(e)) {
		b = weave_core_entry_bindings(e);
		for (j = 0; j < e->num_bindings; j++) {
			all[nall].obj = b[j].bo;
			all[nall++].access = b[j].access;
		}
	}
	nall = weave_core_jbos_merge(all, nall);
	tmpl->bos = kvmalloc_array(nall, sizeof(*tmpl->bos),
				   GFP_KERNEL_ACCOUNT);
	if (!tmpl->bos) {
		kvfree(all);
		return -ENOMEM;
	}
	memcpy(tmpl->bos, all, nall * sizeof(*all));
	kvfree(all);
	tmpl->nbos = nall;
	for (i = 0; i < nall; i++)
		drm_gem_object_get(tmpl->bos[i].obj);
	return 0;
}

/**
 * weave_eng_template_create() - Encode a graph's tasks once.
 * @entries: The graph's launches, checked and resolved, as the ring
 *	entries they were prepared into, back to back.
 * @n: Their number, not zero.
 *
 * See "DOC: job templates".  The template holds its own references to
 * the buffers, so @entries may go before it.
 *
 * Context: The client's mutex held.
 * Return: The template with one reference, or NULL if out of memory.
 */
struct weave_template *
weave_eng_template_create(const struct weave_entry *entries, u32 n)
{
	const struct weave_entry *e = entries;
	struct weave_template *tmpl;
	struct weave_ebinding *more;
	u32 i, extra;

	tmpl = kvzalloc(struct_size(tmpl, tasks, n), GFP_KERNEL_ACCOUNT);
	if (!tmpl)
		return NULL;
	kref_init(&tmpl->ref);
	tmpl->ntasks = n;
	for (i = 0; i < n; i++, e = weave_core_entry_next(e)) {
		more = NULL;
		if (e->num_bindings > WEAVE_ETASK_BINDINGS) {
			extra = e->num_bindings - WEAVE_ETASK_BINDINGS;
			more = kmalloc_array(extra, sizeof(*more),
					     GFP_KERNEL_ACCOUNT);
			if (!more)
				goto err;
		}
		weave_eng_etask_fill(&tmpl->tasks[i], e, more);
	}
	if (weave_template_bos(tmpl, entries, n))
		goto err;
	return tmpl;

err:
	weave_eng_template_put(tmpl);
	return NULL;
}

/**
 * weave_eng_template_queue() - Queue a job of a template's tasks.
 * @bs: The backend stream of the slot the tasks run on.
 * @tmpl: The template.
 * @ls: The logical stream they count for, whose @enqueued already counts
 *	them.
 * @first_seqno: &weave_entry.stream_seqno of the first of them.
 * @in: The replay's in-syncs, or NULL; taken on success.
 * @gates: The gates of its in-fences, from weave_eng_ctx_gates_prepare() for
 *	the slot of @bs; taken on success.
 * @ngates: Entries of @gates.
 *
 * The job goes after every job of the client not pushed yet; the next
 * flush pushes it (see "DOC: job templates").  The tasks count as the
 * client's pending tasks from now on.
 *
 * Context: The client's mutex held.
 * Return: 0, or -ENOMEM with nothing changed.
 */
int weave_eng_template_queue(struct weave_bstream *bs,
			     struct weave_template *tmpl,
			     struct weave_lstream *ls, u64 first_seqno,
			     struct weave_insync *in, struct dma_fence **gates,
			     u32 ngates)
{
	struct weave_ectx *ctx = bs->ctx;
	struct weave_tally *tally;
	struct weave_job *job;
	u32 i;

	job = weave_eng_job_alloc_from(bs, tmpl,
				       ctx->slots[bs->slot].ngates + ngates);
	if (!job)
		return -ENOMEM;
	weave_eng_ctx_gates_commit(ctx, bs->slot, gates, ngates);
	weave_eng_job_take_gates(job, bs->slot);

	kref_get(&ls->ref);
	tally = &job->tallies[job->ntallies++];
	tally->ls = ls;
	tally->count = tmpl->ntasks;
	tally->first_seqno = first_seqno;
	tally->insync = in;
	job->prio = ls->priority;
	job->ntasks = tmpl->ntasks;
	job->pending = tmpl->ntasks;
	atomic64_add(tmpl->ntasks, &ctx->pending_tasks);
	job->failures = ctx->failures;
	/* The replay pinned them, through the graph's tracking records. */
	for (i = 0; i < tmpl->nbos; i++) {
		drm_gem_object_get(tmpl->bos[i].obj);
		weave_eng_bo_pin_get(tmpl->bos[i].obj);
		job->bos[i] = tmpl->bos[i];
	}
	job->nbos = tmpl->nbos;
	list_add_tail(&job->link, &ctx->unpushed);
	return 0;
}
