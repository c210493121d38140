// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: a client's usage in its file's fdinfo, in the keys of the DRM
 * client usage statistics and in weave's own.
 */

#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "weave_client.h"
#include "weave_compat.h"
#include "weave_drm.h"
#include "weave_engine.h"
#include "weave_fdinfo.h"
#include "weave_gem.h"
#include "weave_query.h"

/**
 * DOC: fdinfo
 *
 * ``/proc/<pid>/fdinfo/<fd>`` of a weave file reports the client's usage in
 * the keys of the kernel's DRM client usage statistics
 * (Documentation/gpu/drm-usage-stats.rst), which gputop and nvtop read:
 *
 * - ``drm-driver``: ``weave``; ``drm-client-id``: the file's id, unique
 *   among open files (the DRM core's where it prints fdinfo itself, since
 *   6.5; on 6.1 weave's own client id, unique among weave's files while
 *   the module is loaded).
 * - ``drm-engine-soft``: the nanoseconds the soft engine's hardware queues
 *   spent running the client's jobs, summed over the queues, each job
 *   counted when it ends (before its fence signals); and
 *   ``drm-engine-capacity-soft``: the number of queues, num_queues.  The
 *   queues are identical engines that each run one job at a time, so they
 *   are one engine class whose capacity is their number, as the usage
 *   statistics group identical engines: the busy time grows by at most the
 *   capacity times the time that passes.  One engine name whatever
 *   num_queues is (1 to %WEAVE_MAX_QUEUES): IGT's fdinfo parser, which
 *   gputop uses, holds at most 15 engine names per file and aborts at a
 *   16th, and reads the first 4 KiB of the file only (weave's keys take
 *   less than 1 KiB with 16 queues).
 * - ``weave-engine-q<N>``: the same time for hardware queue N alone, one
 *   key per queue, read in the same pass; they add up to
 *   ``drm-engine-soft``.
 * - ``drm-total-memory``, ``drm-shared-memory`` and ``drm-resident-memory``:
 *   the buffers the file has handles to; shared if it has more than one
 *   handle or a dma-buf, resident by the pages of it in memory, pinned or
 *   not.  The core's helper prints them where it exists (with
 *   ``drm-purgeable-memory`` and ``drm-active-memory``); weave prints the
 *   first three on 6.1 the same way.
 * - The other ``weave-*`` keys: what %DRM_WEAVE_QUERY_CLIENT_USAGE reports
 *   beyond that, one key per field of &struct drm_weave_client_usage:
 *   counts as plain numbers, bytes as the memory keys are printed
 *   (``weave-kernel-memory`` is @kernel_bytes, ``weave-charged-memory``
 *   @bo_bytes).  They are read under the client's lock, which the read
 *   waits for interruptibly; a signal leaves them out.
 */

/* A number of bytes, in the largest unit that divides it, up to MiB. */
static void weave_fdinfo_size(struct drm_printer *p, const char *key, u64 n)
{
	static const char *const units[] = { "", " KiB", " MiB" };
	unsigned int u = 0;

	while (u + 1 < ARRAY_SIZE(units) && n && !(n % 1024)) {
		n /= 1024;
		u++;
	}
	drm_printf(p, "%s:\t%llu%s\n", key, n, units[u]);
}

/* The memory keys where the DRM core has no helper to print them. */
static void weave_fdinfo_memory(struct drm_printer *p, struct drm_file *file)
{
	u64 total = 0, shared = 0, resident = 0;
	struct drm_gem_object *obj;
	int id;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		total += obj->size;
		if (obj->handle_count > 1 || obj->dma_buf)
			shared += obj->size;
		if (weave_gem_status(obj) & DRM_GEM_OBJECT_RESIDENT)
			resident += weave_gem_rss(obj);
	}
	spin_unlock(&file->table_lock);

	weave_fdinfo_size(p, "drm-total-memory", total);
	weave_fdinfo_size(p, "drm-shared-memory", shared);
	weave_fdinfo_size(p, "drm-resident-memory", resident);
}

#define WEAVE_USAGE(name, field, bytes) \
	{ name, offsetof(struct drm_weave_client_usage, field), bytes }

/* The weave- keys, in the order of the struct's fields. */
static const struct {
	const char *key;
	size_t offset;
	bool bytes;
} weave_fdinfo_keys[] = {
	WEAVE_USAGE("weave-pending-tasks", pending_tasks, false),
	WEAVE_USAGE("weave-queued-tasks", queued_tasks, false),
	WEAVE_USAGE("weave-kernel-memory", kernel_bytes, true),
	WEAVE_USAGE("weave-staged-memory", staged_bytes, true),
	WEAVE_USAGE("weave-streams", streams, false),
	WEAVE_USAGE("weave-ring-memory", ring_bytes, true),
	WEAVE_USAGE("weave-job-memory", job_bytes, true),
	WEAVE_USAGE("weave-jobs", jobs, false),
	WEAVE_USAGE("weave-gate-memory", gate_bytes, true),
	WEAVE_USAGE("weave-submitted-jobs", submitted_jobs, false),
	WEAVE_USAGE("weave-arena-memory", arena_bytes, true),
	WEAVE_USAGE("weave-alone-memory", alone_bytes, true),
	WEAVE_USAGE("weave-charged-memory", bo_bytes, true),
	WEAVE_USAGE("weave-charged-bos", bos, false),
	WEAVE_USAGE("weave-failure-claims", failure_claims, false),
	WEAVE_USAGE("weave-failure-records", failure_records, false),
	WEAVE_USAGE("weave-failure-memory", failure_bytes, true),
	WEAVE_USAGE("weave-shared-ring-memory", shared_ring_bytes, true),
	WEAVE_USAGE("weave-shared-rings", shared_rings, false),
	WEAVE_USAGE("weave-user-resident-memory", user_resident_bytes, true),
	WEAVE_USAGE("weave-shaders", shaders, false),
	WEAVE_USAGE("weave-shader-memory", shader_bytes, true),
};

static void weave_fdinfo_usage(struct drm_printer *p, struct weave_client *c)
{
	struct drm_weave_client_usage usage = {};
	unsigned int i;

	if (weave_client_usage(c, &usage))
		return;
	for (i = 0; i < ARRAY_SIZE(weave_fdinfo_keys); i++) {
		u64 v;

		memcpy(&v, (u8 *)&usage + weave_fdinfo_keys[i].offset,
		       sizeof(v));
		if (weave_fdinfo_keys[i].bytes)
			weave_fdinfo_size(p, weave_fdinfo_keys[i].key, v);
		else
			drm_printf(p, "%s:\t%llu\n", weave_fdinfo_keys[i].key,
				   v);
	}
}

/**
 * weave_show_fdinfo() - Print a client's usage into its file's fdinfo.
 * @p: The printer.
 * @file: The client's file.
 *
 * The &drm_driver.show_fdinfo hook, after the core's own keys; see
 * "DOC: fdinfo".
 *
 * Context: Process context; takes the file's table_lock and, interruptibly,
 * the client's lock.
 */
void weave_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct weave_client *c = file->driver_priv;
	struct weave_ectx *ctx = c->ectx;
	u64 busy[WEAVE_MAX_QUEUES], sum = 0;
	u32 n = c->wdev->limits.num_queues, i;

	for (i = 0; i < n; i++) {
		busy[i] = atomic64_read(&ctx->busy_ns[i]);
		sum += busy[i];
	}
	drm_printf(p, "drm-engine-soft:\t%llu ns\n", sum);
	drm_printf(p, "drm-engine-capacity-soft:\t%u\n", n);
	for (i = 0; i < n; i++)
		drm_printf(p, "weave-engine-q%u:\t%llu ns\n", i, busy[i]);
	weave_compat_show_memory_stats(p, file, weave_fdinfo_memory);
	weave_fdinfo_usage(p, c);
}

/**
 * weave_show_fdinfo_file() - The fdinfo file operation, where the DRM core
 * has none.
 * @m: The fdinfo file.
 * @f: The weave file.
 *
 * Prints the keys drm_show_fdinfo() prints on later kernels, then the
 * driver's.
 *
 * Context: Process context, as weave_show_fdinfo().
 */
void weave_show_fdinfo_file(struct seq_file *m, struct file *f)
{
	struct drm_file *file = f->private_data;
	struct weave_client *c = file->driver_priv;
	struct drm_printer p = drm_seq_file_printer(m);

	drm_printf(&p, "drm-driver:\t%s\n", file->minor->dev->driver->name);
	drm_printf(&p, "drm-client-id:\t%llu\n", c->ectx->id);
	weave_show_fdinfo(&p, file);
}
