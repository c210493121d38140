// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: what the DRM glue does with a client: its mutex, its logical
 * streams by handle, the tracking records of its buffers, and a task's
 * holds of them.
 */

#include <linux/build_bug.h>
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kref.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>

#include "weave_bo.h"
#include "weave_client.h"
#include "weave_engine.h"
#include "weave_staging.h"

/**
 * weave_client_lock() - Take a client's mutex in an ioctl.
 * @c: The client.
 *
 * Its holders do not wait for long (see "DOC: locking"), but a caller
 * that has to wait can still be interrupted, and killed.
 *
 * Return: 0 with the mutex held, or -ERESTARTSYS on a signal.
 */
int weave_client_lock(struct weave_client *c)
{
	return mutex_lock_interruptible(&c->lock) ? -ERESTARTSYS : 0;
}

/**
 * weave_client_stream() - Look up a logical stream of a client.
 * @c: The client.
 * @handle: The stream's handle, as user space gave it.
 *
 * The stream stays in @c's streams, and keeps the reference that entry
 * holds, until @c's mutex is dropped; take a reference to use it longer.
 *
 * Context: &weave_client.lock held.
 * Return: The stream, or ERR_PTR(-ENOENT) if @c has none by @handle.
 */
struct weave_lstream *weave_client_stream(struct weave_client *c, u32 handle)
{
	struct weave_lstream *ls;

	lockdep_assert_held(&c->lock);
	ls = xa_load(&c->ectx->streams, handle);
	return ls ?: ERR_PTR(-ENOENT);
}

/**
 * weave_btrack_pin() - Pin a tracking record's buffer, if it is not yet.
 * @c: The client whose record it is; a first pin is charged to its user.
 * @bt: The record.
 *
 * Held until weave_btrack_release() finds no task binding the buffer
 * queued or being enqueued.
 *
 * Context: The client's mutex held.
 * Return: 0, or a negative errno of weave_eng_bo_pin().
 */
int weave_btrack_pin(struct weave_client *c, struct weave_btrack *bt)
{
	int ret;

	if (bt->pinned)
		return 0;
	ret = weave_eng_bo_pin(bt->obj, c->resident_user);
	bt->pinned = !ret;
	return ret;
}

/**
 * weave_btrack_release() - Let go of what a tracking record no longer needs.
 * @c: The client.
 * @bt: The record.  Its pin goes if no task binding its buffer is queued
 *	(queued) or being enqueued (busy past held).  It is freed if no
 *	task binds its buffer at all: neither one being enqueued, recorded
 *	or in a graph (busy), nor a queued one.
 *
 * Jobs hold pins of their own.
 *
 * Context: The client's mutex held.
 */
void weave_btrack_release(struct weave_client *c, struct weave_btrack *bt)
{
	if (bt->pinned && !bt->track.queued && bt->busy == bt->held) {
		bt->pinned = false;
		weave_eng_bo_unpin(bt->obj);
	}
	if (bt->busy || bt->track.queued)
		return;
	xa_erase(&c->tracks, (unsigned long)bt->obj);
	drm_gem_object_put(bt->obj);
	kfree(bt);
}

/**
 * weave_btrack_get() - Hold the client's tracking record of a buffer.
 * @c: The client.
 * @obj: The buffer, of which the caller holds a reference; a new record
 *	takes one of its own.
 *
 * Makes the record if the buffer has none.  Undone by
 * weave_btrack_release() once &weave_btrack.busy is dropped.
 *
 * Context: The client's mutex held.
 * Return: The record, held, or an ERR_PTR() of -ENOMEM.
 */
struct weave_btrack *weave_btrack_get(struct weave_client *c,
				      struct drm_gem_object *obj)
{
	struct weave_btrack *bt;
	int ret;

	bt = xa_load(&c->tracks, (unsigned long)obj);
	if (!bt) {
		bt = kzalloc(sizeof(*bt), GFP_KERNEL_ACCOUNT);
		if (!bt)
			return ERR_PTR(-ENOMEM);
		ret = xa_err(xa_store(&c->tracks, (unsigned long)obj, bt,
				      GFP_KERNEL_ACCOUNT));
		if (ret) {
			kfree(bt);
			return ERR_PTR(ret);
		}
		drm_gem_object_get(obj);
		bt->obj = obj;
	}
	bt->busy++;
	return bt;
}

/**
 * weave_entry_hold() - Take another hold of the tracking records of a
 * prepared entry's buffers, for a copy of it.
 * @c: The client.
 * @e: The entry, which has no staging.
 */
void weave_entry_hold(struct weave_client *c, const struct weave_entry *e)
{
	const struct weave_binding *b = weave_core_entry_bindings(e);
	u32 i;

	for (i = 0; i < e->num_bindings; i++)
		container_of(b[i].track, struct weave_btrack, track)->busy++;
}

/**
 * weave_entry_release() - Undo the preparation of an entry, or
 * weave_entry_hold(): the tracks it holds and its staged bytes.
 * @c: The client.
 * @e: The entry, which holds nothing afterwards; its size stays as it
 *	was, so that a run of entries can still be walked.
 * @nb: How many of its bindings hold their track: the first @nb.
 *
 * Return: The bytes of staging it let go of.
 */
u64 weave_entry_release(struct weave_client *c, struct weave_entry *e,
			u32 nb)
{
	const struct weave_binding *b = weave_core_entry_bindings(e);
	struct weave_entry_write *w;
	struct weave_btrack *bt;
	u64 len = 0;
	u32 i;

	for (i = 0; i < nb; i++) {
		bt = container_of(b[i].track, struct weave_btrack, track);
		bt->busy--;
		weave_btrack_release(c, bt);
	}
	if (e->kind != WEAVE_TASK_HOST_WRITE)
		return 0;
	w = weave_core_entry_part(e, weave_core_entry_write_off(e));
	if (w->data) {
		len = w->len;
		weave_eng_staging_drop(c->ectx, w->data, w->len);
		w->data = NULL;
	}
	return len;
}

/**
 * weave_entries_release() - weave_entry_release() of a run of entries.
 * @c: The client.
 * @entries: The first, the others back to back after it.
 * @n: How many; each holds all its bindings' tracks.
 *
 * Return: The bytes of staging they let go of.
 */
u64 weave_entries_release(struct weave_client *c, struct weave_entry *entries,
			  u32 n)
{
	struct weave_entry *e = entries;
	u64 len = 0;
	u32 i;

	for (i = 0; i < n; i++, e = weave_core_entry_next(e))
		len += weave_entry_release(c, e, e->num_bindings);
	return len;
}
