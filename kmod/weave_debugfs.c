// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the debugfs files of a device and of its clients, read-only
 * snapshots of the scheduler's state taken under its locks.
 */

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/dma-fence.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>

#include "weave_capture.h"
#include "weave_client.h"
#include "weave_compat.h"
#include "weave_core.h"
#include "weave_debugfs.h"
#include "weave_device.h"
#include "weave_engine.h"
#include "weave_failure.h"
#include "weave_job.h"
#include "weave_resident.h"

/**
 * DOC: debugfs
 *
 * With debugfs mounted (``/sys/kernel/debug``), the directory of a weave
 * device, ``dri/<N>/`` where ``card<N>`` is its primary node (the one
 * ``/sys/class/drm/renderD<M>/device/drm/`` lists next to the render
 * node), holds weave's files beside the DRM core's.  All are read-only
 * text: either one ``key: value`` per line, or a header line of column
 * names and one line per row, columns separated by single spaces.  Each is
 * a snapshot taken under the locks of what it shows, in the driver's lock
 * order (see "DOC: locking"): a read that must wait for a client's mutex
 * waits interruptibly, and a signal fails it with -EINTR.
 *
 * ``weave_device``, key: value:
 *
 * - ``clients``: open files.
 * - ``queues``, ``slots``, ``threshold``, ``strategy`` (``interleave`` or
 *   ``sequential``), ``job_timeout_ms``: the limits in force, the module
 *   parameters at the device's creation (a client may lower its threshold
 *   and change its strategy: see its ``state``).
 * - ``live_bos``, ``live_bytes``: buffers of the device not yet freed.
 * - ``failures_live``: failure records alive in the device's failure
 *   graph, every client's and those of closed clients that bytes still
 *   carry; ``failures_made``: failures ever made; ``failure_nodes``: claim
 *   nodes taken from stashes (a buffer's first claim uses a node of its
 *   own, which is not counted); ``coarsened``: operations that coarsened
 *   taints.
 *
 * ``weave_resident``, key: value, the same in every device's directory: the
 * bytes of buffers made resident by every user of every weave device
 * (``resident_bytes``), the limits in force (``max_resident_bytes``,
 * ``max_user_resident_bytes``), and a line ``uid_<uid>: <bytes>`` for each
 * user with a client open or a buffer charged (see "DOC: resident memory").
 *
 * ``weave_queues``, columns ``queue jobs fences``: per hardware queue, the
 * jobs the scheduler handed to it that have not finished, and the jobs it
 * ever ran.
 *
 * ``weave_clients``, columns ``client strategy threshold streams queued
 * pending jobs gates failures tainted``: one row per open file, fields as
 * in its ``state`` below.
 *
 * ``weave_client/<client>/``: the directory of one open file, named after
 * its drm-client-id (as its fdinfo prints it), made at open and removed at
 * close or unplug, before the client goes.  Its files are readable by root
 * alone:
 *
 * ``state``, key: value:
 *
 * - ``client``: the drm-client-id; ``aborted``: 0, or the errno its work
 *   was cut short with (-ENODEV after an unplug).
 * - ``strategy``, ``threshold``: the client's own; ``slots``: its slots.
 * - ``streams``: logical streams; ``graphs``: sealed graphs.
 * - ``queued``: tasks in the slots' rings; ``ring_bytes``: the rings'
 *   memory; ``pending``: tasks enqueued and not yet completed.
 * - ``isolated``: slots isolated; ``windows``: slots with a capture window
 *   open (prepared or recording).
 * - ``gates``: in-fence gates pending on slots, for their next job;
 *   ``gates_armed``: gates of pushed jobs whose in-fence has not signalled.
 * - ``jobs``: jobs allocated; ``submitted_jobs``: jobs pushed ever;
 *   ``queue<N>_jobs``: per hardware queue, jobs pushed and not yet freed.
 * - ``failures``: the client's live failure records; ``failure_nodes``:
 *   the claim nodes from stashes that carry them; ``tainted``: the sum over
 *   them of the buffers that carry each (a buffer with two of them counts
 *   twice).
 *
 * ``slots``, columns ``slot queued isolated window owner gates staged
 * arena busy``: one row per slot that has anything to show: its queued
 * tasks (out of ``threshold``), isolation (0 or 1), capture window
 * (``none``, ``prepared`` or ``recording``) and the stream that owns it
 * (0 for none), in-fence gates pending, the bytes of its staging arena in
 * use and its size, and 1 if its last job has not finished.
 *
 * ``failures``, columns ``id errno cause buffers skipped coarse``: the
 * client's live failures, oldest first: the id ``CHECK`` reports, the root
 * errno and &enum drm_weave_failure_cause, the buffers that carry it, the
 * tasks it made skip, and 1 if it was coarsened.
 *
 * Lifetimes: the DRM core removes the device's files with its debugfs
 * directory when the device is unregistered, and the unplug removes the
 * clients' before it (weave_debugfs_unplug()); a client's directory goes
 * at close, before the client is freed (weave_debugfs_client_remove()).
 * debugfs_remove() waits for the reads in progress, and a file still open
 * then fails its later reads, so no read meets a freed client or device.
 */

/* The fields of a client that ``state`` and ``weave_clients`` print. */
struct weave_debugfs_snap {
	u64 id;
	int aborted;
	u32 strategy;
	u32 threshold;
	u32 slots;
	u32 streams;
	u32 graphs;
	u32 isolated;
	u32 windows;
	u32 failures;
	u32 failure_nodes;
	u32 num_queues;
	u64 queued;
	u64 ring_bytes;
	u64 pending;
	u64 gates;
	u64 gates_armed;
	u64 jobs;
	u64 submitted_jobs;
	u64 tainted;
	u32 queue_jobs[WEAVE_MAX_QUEUES];
};

static const char *weave_debugfs_strategy(u32 strategy)
{
	return strategy == WEAVE_STRATEGY_SEQUENTIAL ? "sequential" :
						       "interleave";
}

static const char *weave_debugfs_window(u32 state)
{
	switch (state) {
	case WEAVE_WINDOW_PREPARED:
		return "prepared";
	case WEAVE_WINDOW_RECORDING:
		return "recording";
	default:
		return "none";
	}
}

/* The failure graph's part of @s, under the graph's lock. */
static void weave_debugfs_snap_failures(struct weave_ectx *ctx,
					struct weave_debugfs_snap *s)
{
	struct weave_failure *f;

	spin_lock_irq(&ctx->failures->lock);
	s->failures = ctx->fowner.live;
	s->failure_nodes = ctx->fowner.nodes;
	list_for_each_entry(f, &ctx->fowner.records, link)
		s->tainted += f->buffers;
	spin_unlock_irq(&ctx->failures->lock);
}

/* Armed gates whose in-fence has not signalled, under the gate lock. */
static u64 weave_debugfs_gates_armed(struct weave_ectx *ctx)
{
	struct list_head *pos;
	u64 n = 0;

	spin_lock_irq(&ctx->gate_lock);
	list_for_each(pos, &ctx->gates)
		n++;
	spin_unlock_irq(&ctx->gate_lock);
	return n;
}

/* Fill @s from @c, whose mutex the caller holds. */
static void weave_debugfs_snap(struct weave_client *c,
			       struct weave_debugfs_snap *s)
{
	struct weave_ectx *ctx = c->ectx;
	u32 i;

	lockdep_assert_held(&c->lock);
	memset(s, 0, sizeof(*s));
	s->id = c->client_id;
	s->aborted = atomic_read(&ctx->aborted);
	s->strategy = c->core.strategy;
	s->threshold = c->core.max_tasks;
	s->slots = c->core.max_streams;
	s->streams = c->nstreams;
	s->graphs = c->ngraphs;
	s->queued = weave_core_queued(&c->core);
	s->ring_bytes = c->core.ring_bytes;
	s->pending = atomic64_read(&ctx->pending_tasks);
	for (i = 0; i < c->core.max_streams; i++) {
		s->isolated += weave_core_isolated(&c->core, i);
		s->windows += weave_core_capture_window(&c->capture, i)->state !=
			      WEAVE_WINDOW_NONE;
	}
	s->gates = ctx->ngates;
	s->gates_armed = weave_debugfs_gates_armed(ctx);
	s->jobs = atomic64_read(&ctx->jobs);
	s->submitted_jobs = atomic64_read(&ctx->submitted_jobs);
	s->num_queues = c->wdev->limits.num_queues;
	for (i = 0; i < s->num_queues; i++)
		s->queue_jobs[i] = atomic_read(&ctx->queued_jobs[i]);
	weave_debugfs_snap_failures(ctx, s);
}

/* The client's state, one key: value per line. */
static int weave_debugfs_state_show(struct seq_file *m, void *data)
{
	struct weave_client *c = m->private;
	struct weave_debugfs_snap s;
	u32 i;

	if (mutex_lock_interruptible(&c->lock))
		return -EINTR;
	weave_debugfs_snap(c, &s);
	mutex_unlock(&c->lock);

	seq_printf(m, "client: %llu\naborted: %d\n", s.id, s.aborted);
	seq_printf(m, "strategy: %s\nthreshold: %u\nslots: %u\n",
		   weave_debugfs_strategy(s.strategy), s.threshold, s.slots);
	seq_printf(m, "streams: %u\ngraphs: %u\n", s.streams, s.graphs);
	seq_printf(m, "queued: %llu\nring_bytes: %llu\npending: %llu\n",
		   s.queued, s.ring_bytes, s.pending);
	seq_printf(m, "isolated: %u\nwindows: %u\n", s.isolated, s.windows);
	seq_printf(m, "gates: %llu\ngates_armed: %llu\n", s.gates,
		   s.gates_armed);
	seq_printf(m, "jobs: %llu\nsubmitted_jobs: %llu\n", s.jobs,
		   s.submitted_jobs);
	for (i = 0; i < s.num_queues; i++)
		seq_printf(m, "queue%u_jobs: %u\n", i, s.queue_jobs[i]);
	seq_printf(m, "failures: %u\nfailure_nodes: %u\ntainted: %llu\n",
		   s.failures, s.failure_nodes, s.tainted);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(weave_debugfs_state);

/* One row of ``slots``, if slot @i of @c has anything to show. */
static void weave_debugfs_slot(struct seq_file *m, struct weave_client *c,
			       u32 i)
{
	const struct weave_window *w = weave_core_capture_window(&c->capture,
								  i);
	struct weave_eslot *es = &c->ectx->slots[i];
	u32 queued = weave_core_slot_queued(&c->core, i);
	bool isolated = weave_core_isolated(&c->core, i);
	bool busy = es->last &&
		    !test_bit(DMA_FENCE_FLAG_SIGNALED_BIT, &es->last->flags);
	u32 used, size;

	spin_lock(&es->staging.lock);
	used = es->staging.used;
	size = es->staging.size;
	spin_unlock(&es->staging.lock);

	if (!queued && !isolated && w->state == WEAVE_WINDOW_NONE &&
	    !es->ngates && !size && !es->last)
		return;
	seq_printf(m, "%u %u %u %s %u %u %u %u %u\n", i, queued, isolated,
		   weave_debugfs_window(w->state), w->owner, es->ngates, used,
		   size, busy);
}

/* The client's slots, a header and a row per slot in use. */
static int weave_debugfs_slots_show(struct seq_file *m, void *data)
{
	struct weave_client *c = m->private;
	u32 i;

	seq_puts(m, "slot queued isolated window owner gates staged arena busy\n");
	if (mutex_lock_interruptible(&c->lock))
		return -EINTR;
	for (i = 0; i < c->core.max_streams; i++)
		weave_debugfs_slot(m, c, i);
	mutex_unlock(&c->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(weave_debugfs_slots);

/*
 * The client's live failures, a header and a row each: at most
 * %WEAVE_MAX_LIVE_FAILURES and one for the overflow, printed under the
 * graph's lock, as the records change under it.
 */
static int weave_debugfs_failures_show(struct seq_file *m, void *data)
{
	struct weave_client *c = m->private;
	struct weave_ectx *ctx = c->ectx;
	struct weave_failure *f;

	seq_puts(m, "id errno cause buffers skipped coarse\n");
	spin_lock_irq(&ctx->failures->lock);
	list_for_each_entry(f, &ctx->fowner.records, link)
		seq_printf(m, "%llu %d %u %u %llu %u\n", f->id, f->err,
			   f->cause, f->buffers, f->skipped, f->coarse);
	spin_unlock_irq(&ctx->failures->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(weave_debugfs_failures);

/* The device, one key: value per line. */
static int weave_debugfs_device_show(struct seq_file *m, void *data)
{
	struct weave_device *wdev =
		to_weave_device(weave_compat_debugfs_device(m));
	struct weave_failures *g = &wdev->failures;
	const struct weave_limits *l = &wdev->limits;
	u64 made, coarsened;
	struct weave_client *c;
	u32 live, nodes;
	u32 clients = 0;

	if (mutex_lock_interruptible(&wdev->clients_lock))
		return -EINTR;
	list_for_each_entry(c, &wdev->clients, link)
		clients++;
	mutex_unlock(&wdev->clients_lock);

	spin_lock_irq(&g->lock);
	live = g->live;
	nodes = g->nodes;
	made = g->next_id - 1;
	coarsened = g->coarsened;
	spin_unlock_irq(&g->lock);

	seq_printf(m, "clients: %u\nqueues: %u\nslots: %u\nthreshold: %u\n",
		   clients, l->num_queues, l->max_streams, l->max_tasks);
	seq_printf(m, "strategy: %s\njob_timeout_ms: %u\n",
		   weave_debugfs_strategy(l->strategy), l->job_timeout_ms);
	seq_printf(m, "live_bos: %lld\nlive_bytes: %lld\n",
		   (s64)atomic64_read(&wdev->live_bos),
		   (s64)atomic64_read(&wdev->live_bytes));
	seq_printf(m, "failures_live: %u\nfailures_made: %llu\n", live, made);
	seq_printf(m, "failure_nodes: %u\ncoarsened: %llu\n", nodes,
		   coarsened);
	return 0;
}

/* The hardware queues, a header and a row each. */
static int weave_debugfs_queues_show(struct seq_file *m, void *data)
{
	struct weave_device *wdev =
		to_weave_device(weave_compat_debugfs_device(m));
	struct weave_engine *engine = wdev->engine;
	u32 i;

	seq_puts(m, "queue jobs fences\n");
	for (i = 0; i < engine->num_queues; i++) {
		struct weave_queue *q = &engine->queues[i];

		seq_printf(m, "%u %u %lld\n", i,
			   weave_compat_sched_jobs(&q->sched),
			   (s64)atomic64_read(&q->fence_seqno));
	}
	return 0;
}

/* The clients, a header and a row each. */
static int weave_debugfs_clients_show(struct seq_file *m, void *data)
{
	struct weave_device *wdev =
		to_weave_device(weave_compat_debugfs_device(m));
	struct weave_debugfs_snap s;
	struct weave_client *c;
	int ret = 0;

	seq_puts(m, "client strategy threshold streams queued pending jobs gates failures tainted\n");
	if (mutex_lock_interruptible(&wdev->clients_lock))
		return -EINTR;
	list_for_each_entry(c, &wdev->clients, link) {
		if (mutex_lock_interruptible(&c->lock)) {
			ret = -EINTR;
			break;
		}
		weave_debugfs_snap(c, &s);
		mutex_unlock(&c->lock);
		seq_printf(m, "%llu %s %u %u %llu %llu %llu %llu %u %llu\n",
			   s.id, weave_debugfs_strategy(s.strategy),
			   s.threshold, s.streams, s.queued, s.pending, s.jobs,
			   s.gates, s.failures, s.tainted);
	}
	mutex_unlock(&wdev->clients_lock);
	return ret;
}

/* The bytes held resident, machine-wide: total, limits, each user's. */
static int weave_debugfs_resident_show(struct seq_file *m, void *data)
{
	weave_eng_resident_show(m);
	return 0;
}

static const struct weave_compat_debugfs_info weave_debugfs_files[] = {
	{ .name = "weave_device", .show = weave_debugfs_device_show },
	{ .name = "weave_queues", .show = weave_debugfs_queues_show },
	{ .name = "weave_clients", .show = weave_debugfs_clients_show },
	{ .name = "weave_resident", .show = weave_debugfs_resident_show },
};

/**
 * weave_debugfs_init() - The &drm_driver.debugfs_init hook: make the
 * device's debugfs files and its clients' directory.
 * @minor: A minor of the device being registered.
 *
 * Only for the primary minor (6.1 calls it for the render minor too, in a
 * directory of its own; later kernels only for the primary, whose
 * directory the render minor's links to).  See "DOC: debugfs".
 *
 * Context: Process context; takes &weave_device.clients_lock.
 */
void weave_debugfs_init(struct drm_minor *minor)
{
	struct weave_device *wdev = to_weave_device(minor->dev);
	struct dentry *dir;

	if (minor->type != DRM_MINOR_PRIMARY)
		return;
	weave_compat_debugfs_add(minor, weave_debugfs_files,
				 ARRAY_SIZE(weave_debugfs_files));
	dir = debugfs_create_dir("weave_client", minor->debugfs_root);
	mutex_lock(&wdev->clients_lock);
	wdev->debugfs_clients = IS_ERR_OR_NULL(dir) ? NULL : dir;
	mutex_unlock(&wdev->clients_lock);
}

/**
 * weave_debugfs_client_add() - Make a new client's debugfs directory.
 * @c: The client, just added to its device's list.
 *
 * Nothing if debugfs has no directory for the device's clients (it could
 * not be made, or the device is being unplugged): debugfs is no part of
 * the uAPI, and open does not fail for it.
 *
 * Context: Process context; &weave_device.clients_lock held.
 */
void weave_debugfs_client_add(struct weave_client *c)
{
	struct weave_device *wdev = c->wdev;
	struct dentry *dir;
	char name[24];

	lockdep_assert_held(&wdev->clients_lock);
	if (!wdev->debugfs_clients)
		return;
	snprintf(name, sizeof(name), "%llu", c->client_id);
	dir = debugfs_create_dir(name, wdev->debugfs_clients);
	if (IS_ERR_OR_NULL(dir))
		return;
	debugfs_create_file("state", 0400, dir, c, &weave_debugfs_state_fops);
	debugfs_create_file("slots", 0400, dir, c, &weave_debugfs_slots_fops);
	debugfs_create_file("failures", 0400, dir, c,
			    &weave_debugfs_failures_fops);
	c->debugfs = dir;
}

/**
 * weave_debugfs_client_remove() - Remove a closing client's debugfs
 * directory.
 * @c: The client, about to be freed.
 *
 * Waits for the reads of its files in progress, which may wait for @c's
 * mutex: the caller does not hold it.  Its files' later reads fail.
 *
 * Context: Process context; &weave_device.clients_lock held, so that the
 * unplug does not remove the directory at the same time.
 */
void weave_debugfs_client_remove(struct weave_client *c)
{
	lockdep_assert_held(&c->wdev->clients_lock);
	debugfs_remove(c->debugfs);
	c->debugfs = NULL;
}

/**
 * weave_debugfs_unplug() - Remove the debugfs directories of a device's
 * clients, before the device is unplugged.
 * @wdev: The device.
 *
 * drm_dev_unplug() removes the device's debugfs directory, and what is in
 * it, with it: the clients' directories go first, and no new one is made,
 * so that no client is left with a directory that debugfs freed.
 *
 * Context: Process context; takes &weave_device.clients_lock; waits for
 * the reads in progress, which may wait for a client's mutex.
 */
void weave_debugfs_unplug(struct weave_device *wdev)
{
	struct weave_client *c;

	mutex_lock(&wdev->clients_lock);
	list_for_each_entry(c, &wdev->clients, link)
		c->debugfs = NULL;
	debugfs_remove(wdev->debugfs_clients);
	wdev->debugfs_clients = NULL;
	mutex_unlock(&wdev->clients_lock);
}
