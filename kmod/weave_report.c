// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the failure reports: CHECK, which tells which failures buffer
 * ranges carry, and READ, which reads a range once it is written, or says
 * why it could not be.
 */

#include <linux/dma-buf.h>
#include <linux/err.h>
#include <linux/highmem.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>

#include "weave_bo.h"
#include "weave_client.h"
#include "weave_device.h"
#include "weave_drm.h"
#include "weave_engine.h"
#include "weave_failure.h"
#include "weave_flush.h"
#include "weave_gem.h"
#include "weave_graph.h"
#include "weave_report.h"
#include "weave_taints.h"
#include "weave_uarray.h"

/* A report being written: where its next entries go. */
struct weave_report {
	struct weave_failures *graph;	/* of the range being written */
	u64 viewer;
	const struct drm_weave_array *failures;
	const struct drm_weave_array *skips;
	u32 froom;		/* entries of @failures it may use */
	u32 nfailures;		/* failure entries, written or not */
	u32 nskips;		/* skip entries, written or not */
	struct weave_failure **found;	/* WEAVE_MAX_REPORT_FAILURES */
	u32 *buffers;		/* of each found, as its range was read */
};

/*
 * Start a report for client @c into the user arrays @failures and @skips.
 * Return: 0, or -ENOMEM.
 */
static int weave_report_init(struct weave_report *rep, struct weave_client *c,
			     const struct drm_weave_array *failures,
			     const struct drm_weave_array *skips)
{
	*rep = (struct weave_report) {
		.graph = &c->wdev->failures,
		.viewer = c->ectx->id,
		.failures = failures,
		.skips = skips,
		.froom = min_t(u32, failures->count,
			       WEAVE_MAX_REPORT_FAILURES),
	};
	rep->found = kmalloc_array(WEAVE_MAX_REPORT_FAILURES,
				   sizeof(*rep->found), GFP_KERNEL);
	rep->buffers = kmalloc_array(WEAVE_MAX_REPORT_FAILURES,
				     sizeof(*rep->buffers), GFP_KERNEL);
	return rep->found && rep->buffers ? 0 : -ENOMEM;
}

/*
 * End a report: its counts into @nfailures and @nskips.
 * Return: 0 if everything was written, -ENOSPC if not.
 */
static int weave_report_fini(struct weave_report *rep, u32 *nfailures,
			     u32 *nskips)
{
	kfree(rep->found);
	kfree(rep->buffers);
	*nfailures = rep->nfailures;
	*nskips = rep->nskips;
	if (rep->nfailures > rep->froom || rep->nskips > rep->skips->count)
		return -ENOSPC;
	return 0;
}

static void weave_ftask_to_user(const struct weave_ftask *ft,
				struct drm_weave_failure_task *u)
{
	*u = (struct drm_weave_failure_task) {
		.type = ft->type,
		.kernel = ft->kernel,
	};
	/* A snapshot shows the client only to the client itself. */
	if (ft->client) {
		u->seqno = ft->seqno;
		u->stream = ft->stream;
		u->label = ft->label;
		u->flags = DRM_WEAVE_FAILURE_TASK_OWN;
	}
}

/*
 * Count failure @f, found on @buffers buffers, and its skips as the
 * report's next entries, and write each where there is room: the failure
 * if it @fits, as entry @at.
 */
static int weave_report_failure(struct weave_report *rep,
				struct weave_failure *f, u32 buffers, u32 at,
				bool fits)
{
	struct drm_weave_failure_task ut;
	struct drm_weave_failure uf;
	struct weave_fsnap snap;
	u32 i;
	int ret;

	weave_fg_snapshot(rep->graph, f, &snap, rep->viewer);
	uf = (struct drm_weave_failure) {
		.id = snap.id,
		.error = snap.err,
		.cause = snap.cause,
		/* As the range was read: it carried the failure then. */
		.buffers = buffers,
		.nskips = snap.nskips,
		.first_skip = rep->nskips,
		.skips_dropped = snap.skips_dropped,
		.flags = snap.coarse ? DRM_WEAVE_FAILURE_COARSE : 0,
	};
	weave_ftask_to_user(&snap.root, &uf.root);
	for (i = 0; i < snap.nskips; i++, rep->nskips++) {
		if (rep->nskips >= rep->skips->count)
			continue;
		weave_ftask_to_user(&snap.skips[i], &ut);
		ret = weave_uarray_write(rep->skips, rep->nskips, 0, &ut,
					 sizeof(ut));
		if (ret)
			return ret;
	}
	if (!fits)
		return 0;
	return weave_uarray_write(rep->failures, at, 0, &uf, sizeof(uf));
}

/*
 * The taints of @obj, and in @graph the failures they name.  A buffer
 * imported from another weave device carries its exporter's: the dma-buf
 * holds that buffer, and that device's structures, for as long as @obj
 * lives.  One imported from elsewhere has its own, which stay empty.
 */
static struct weave_taints *weave_report_taints(struct drm_gem_object *obj,
						struct weave_failures **graph)
{
	struct dma_buf *buf = obj->import_attach ?
			      obj->import_attach->dmabuf : NULL;

	/* drm_gem_prime_export() made it: its priv is the GEM object. */
	if (buf && buf->owner == THIS_MODULE)
		obj = buf->priv;
	*graph = &to_weave_device(obj->dev)->failures;
	return &to_weave_bo(obj)->taints;
}

/* The failure graph that the taints of @obj name. */
static struct weave_failures *weave_report_graph(struct drm_gem_object *obj)
{
	struct weave_failures *graph;

	weave_report_taints(obj, &graph);
	return graph;
}

/*
 * List step of range @r of @obj, under the lock of its failures' graph:
 * the range's failures into the report's next entries, as many as there
 * is room for, each with a reference; and the range's counts.
 */
static void weave_report_list(struct weave_report *rep,
			      struct drm_gem_object *obj,
			      struct drm_weave_check_range *r)
{
	u32 at = min_t(u32, rep->nfailures, WEAVE_MAX_REPORT_FAILURES);
	struct weave_failures *graph;
	struct weave_taints *taints = weave_report_taints(obj, &graph);

	r->nfailures = weave_fg_taints_list_locked(graph, taints, r->offset,
						   r->size, rep->found + at,
						   rep->buffers + at,
						   WEAVE_MAX_REPORT_FAILURES -
						   at);
	r->first = rep->nfailures;
	rep->nfailures += r->nfailures;
}

/*
 * Read the failures on the @n ranges @ranges of @objs, under one hold of
 * the graph's lock for each run of ranges whose failures one graph holds:
 * one snapshot.
 */
static void weave_report_read(struct weave_report *rep,
			      struct drm_gem_object **objs,
			      struct drm_weave_check_range *ranges, u32 n)
{
	struct weave_failures *graph;
	unsigned long flags;
	u32 i = 0;

	while (i < n) {
		graph = weave_report_graph(objs[i]);
		spin_lock_irqsave(&graph->lock, flags);
		do {
			weave_report_list(rep, objs[i], &ranges[i]);
			i++;
		} while (i < n && weave_report_graph(objs[i]) == graph);
		spin_unlock_irqrestore(&graph->lock, flags);
	}
}

/*
 * Write step of range @r of @obj, after weave_report_read(): its failures
 * and their skips, where there is room, unless @ret is an error already;
 * each failure's reference put in any case.
 */
static int weave_report_write(struct weave_report *rep,
			      struct drm_gem_object *obj,
			      const struct drm_weave_check_range *r, int ret)
{
	u32 at = min_t(u32, r->first, WEAVE_MAX_REPORT_FAILURES);
	u32 i, stored = min(r->nfailures, WEAVE_MAX_REPORT_FAILURES - at);

	rep->graph = weave_report_graph(obj);
	for (i = at; i < at + stored; i++) {
		if (!ret)
			ret = weave_report_failure(rep, rep->found[i],
						   rep->buffers[i], i,
						   i < rep->froom);
		weave_fg_put(rep->graph, rep->found[i]);
	}
	return ret;
}

/* Write the out fields of element @i of the ranges array. */
static int weave_report_counts(const struct drm_weave_array *arr, u32 i,
			       const struct drm_weave_check_range *r)
{
	size_t at = offsetof(struct drm_weave_check_range, nfailures);

	static_assert(offsetof(struct drm_weave_check_range, first) ==
		      offsetof(struct drm_weave_check_range, nfailures) + 4);
	return weave_uarray_write(arr, i, at, &r->nfailures,
				  sizeof(r->nfailures) + sizeof(r->first));
}

/* Read and check every range, and look their buffers up into @objs. */
static int weave_check_ranges(struct drm_file *file,
			      const struct drm_weave_check *args,
			      struct drm_weave_check_range *ranges,
			      struct drm_gem_object **objs)
{
	struct drm_weave_check_range *r;
	u64 end;
	u32 i;
	int ret;

	for (i = 0; i < args->ranges.count; i++) {
		r = &ranges[i];
		ret = weave_uarray_elem(r, sizeof(*r), &args->ranges, i);
		if (ret)
			return ret;
		if (r->flags || !r->size ||
		    check_add_overflow(r->offset, r->size, &end))
			return -EINVAL;
		objs[i] = drm_gem_object_lookup(file, r->handle);
		if (!objs[i])
			return -ENOENT;
		if (end > objs[i]->size)
			return -EINVAL;
	}
	return 0;
}

/**
 * weave_check_ioctl() - Handle %DRM_IOCTL_WEAVE_CHECK.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_check.
 * @file: The DRM file.
 *
 * Every range is read and checked before anything is written, and the
 * failures of all of them are listed under one hold of their graph's lock
 * (see weave_report_read()), so that the report is of one moment.  The work
 * is bounded by %WEAVE_MAX_CHECK_RANGES, %WEAVE_MAX_REPORT_FAILURES and
 * the claims on the ranges' bytes.
 *
 * Return: 0 or a negative errno, see &struct drm_weave_check.
 */
int weave_check_ioctl(struct drm_device *drm, void *data,
		      struct drm_file *file)
{
	struct drm_weave_check *args = data;
	struct weave_client *c = file->driver_priv;
	struct drm_weave_check_range *ranges;
	struct drm_gem_object **objs;
	u32 i, nf, ns, n = args->ranges.count;
	struct weave_report rep;
	int ret, full;

	args->nfailures = 0;
	args->nskips = 0;
	if (args->flags || args->pad || !n || n > WEAVE_MAX_CHECK_RANGES ||
	    !weave_uarray_valid(&args->ranges, sizeof(*ranges)) ||
	    !weave_uarray_valid(&args->failures,
				sizeof(struct drm_weave_failure)) ||
	    !weave_uarray_valid(&args->skips,
				sizeof(struct drm_weave_failure_task)))
		return -EINVAL;

	ret = weave_report_init(&rep, c, &args->failures, &args->skips);
	ranges = kcalloc(n, sizeof(*ranges), GFP_KERNEL);
	objs = kcalloc(n, sizeof(*objs), GFP_KERNEL);
	if (!ret && (!ranges || !objs))
		ret = -ENOMEM;
	if (!ret)
		ret = weave_check_ranges(file, args, ranges, objs);
	/* A buffer that a window records has no answer yet. */
	if (!ret)
		ret = weave_client_lock(c);
	if (!ret) {
		for (i = 0; !ret && i < n; i++)
			if (weave_graph_records(c, objs[i]))
				ret = -EBUSY;
		mutex_unlock(&c->lock);
	}
	if (!ret) {
		weave_report_read(&rep, objs, ranges, n);
		/* Past an error, only the references are put. */
		for (i = 0; i < n; i++) {
			ret = weave_report_write(&rep, objs[i], &ranges[i], ret);
			if (!ret)
				ret = weave_report_counts(&args->ranges, i,
							  &ranges[i]);
		}
	}
	for (i = 0; objs && i < n; i++)
		if (objs[i])
			drm_gem_object_put(objs[i]);
	kfree(objs);
	kfree(ranges);
	full = weave_report_fini(&rep, &nf, &ns);
	if (ret)
		return ret;
	args->nfailures = nf;
	args->nskips = ns;
	return full;
}

/* Copy the range @off, @len of @bo's pages, which it pins, to @dst. */
static int weave_bo_read(struct weave_bo *bo, u64 off, u64 len,
			 void __user *dst)
{
	struct page **pages = bo->base.pages;
	size_t n, po;
	unsigned long left;
	u8 *va;

	while (len) {
		po = off & ~PAGE_MASK;
		n = min_t(u64, len, PAGE_SIZE - po);
		va = kmap_local_page(pages[off >> PAGE_SHIFT]);
		left = copy_to_user(dst, va + po, n);
		kunmap_local(va);
		if (left)
			return -EFAULT;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
		dst += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* The report of a READ whose range carries failures: -EIO or -ENOSPC. */
static int weave_read_report(struct weave_client *c,
			     struct drm_weave_read *args,
			     struct drm_gem_object *obj)
{
	struct drm_weave_check_range r = {
		.offset = args->offset,
		.size = args->size,
	};
	struct weave_report rep;
	int ret, full;

	ret = weave_report_init(&rep, c, &args->failures, &args->skips);
	if (!ret) {
		weave_report_read(&rep, &obj, &r, 1);
		ret = weave_report_write(&rep, obj, &r, 0);
	}
	full = weave_report_fini(&rep, &args->nfailures, &args->nskips);
	if (ret)
		return ret;
	if (!args->nfailures)
		return 0;
	return full ?: -EIO;
}

/*
 * Submit the client's queued work, inside a device section; unless a
 * window records a task that binds @obj.
 */
static int weave_read_flush(struct weave_client *c, struct drm_device *drm,
			    struct drm_gem_object *obj)
{
	int idx, ret;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = weave_client_lock(c);
	if (!ret) {
		ret = weave_graph_records(c, obj) ? -EBUSY :
						    weave_client_flush_all(c);
		mutex_unlock(&c->lock);
	}
	drm_dev_exit(idx);
	return ret;
}

/*
 * The report or the copy, once written.  Outside any device section and
 * any lock: a copy to user memory may wait on a fault for as long as user
 * space likes (userfaultfd), and must not hold up an unplug.  What it uses
 * lives as long as the file and its references: the failure graph, and
 * the buffer's pages, which it pins.
 */
static int weave_read_out(struct weave_client *c, struct drm_device *drm,
			  struct drm_weave_read *args,
			  struct drm_gem_object *obj)
{
	int ret;

	if (drm_dev_is_unplugged(drm))
		return -ENODEV;
	ret = weave_read_report(c, args, obj);
	if (ret)
		return ret;
	ret = weave_eng_bo_pin(obj, c->resident_user);
	if (ret)
		return ret;
	ret = weave_bo_read(to_weave_bo(obj), args->offset, args->size,
			    u64_to_user_ptr(args->data));
	weave_eng_bo_unpin(obj);
	return ret;
}

/**
 * weave_read_ioctl() - Handle %DRM_IOCTL_WEAVE_READ.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_read.
 * @file: The DRM file.
 *
 * Not called inside drm_dev_enter(), as it waits for fences that only the
 * unplug's cancel may signal: it enters a section of its own around the
 * flush before its wait and around the copy after.  The copy costs what
 * the caller asked for, and a fatal signal cuts it short.
 *
 * Return: 0 or a negative errno, see &struct drm_weave_read.
 */
int weave_read_ioctl(struct drm_device *drm, void *data,
		     struct drm_file *file)
{
	struct drm_weave_read *args = data;
	struct weave_client *c = file->driver_priv;
	struct drm_gem_object *obj;
	u64 end;
	int ret;

	args->nfailures = 0;
	args->nskips = 0;
	if (args->flags || !args->size ||
	    check_add_overflow(args->offset, args->size, &end) ||
	    !weave_uarray_valid(&args->failures,
				sizeof(struct drm_weave_failure)) ||
	    !weave_uarray_valid(&args->skips,
				sizeof(struct drm_weave_failure_task)))
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	ret = end > obj->size || obj->import_attach ? -EINVAL : 0;
	if (!ret)
		ret = weave_read_flush(c, drm, obj);
	if (!ret)
		ret = weave_wait_resv(obj->resv, args->timeout_ns);
	if (!ret)
		ret = weave_read_out(c, drm, args, obj);
	drm_gem_object_put(obj);
	return ret;
}
