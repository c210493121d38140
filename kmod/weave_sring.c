// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the life of shared submission rings: their creation, memory,
 * mappings, place on the polling thread's list, and destruction.
 */

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/kcov.h>
#include <linux/log2.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_vma_manager.h>

#include "weave_client.h"
#include "weave_compat.h"
#include "weave_drm.h"
#include "weave_engine.h"
#include "weave_sring.h"

/*
 * The mmap() offsets of a ring, in pages: a window of 1024 pages per
 * handle, the header at its start and the submission area one page in,
 * all below the fake offsets of buffers.
 */
#define WEAVE_SRING_PGOFF_SHIFT		10
#define WEAVE_SRING_PGOFF(handle, sq)	\
	(((unsigned long)(handle) << WEAVE_SRING_PGOFF_SHIFT) + (sq))

static_assert(WEAVE_SRING_PGOFF(WEAVE_MAX_CLIENT_RINGS + 1, 0) ==
	      WEAVE_SRING_PGOFF_END);
static_assert(WEAVE_SRING_PGOFF_END < DRM_FILE_PAGE_OFFSET_START);
static_assert(DRM_WEAVE_RING_SQ_DESCS +
	      WEAVE_MAX_RING_UNITS * DRM_WEAVE_RING_UNIT <
	      (PAGE_SIZE << WEAVE_SRING_PGOFF_SHIFT) - PAGE_SIZE);
static_assert(sizeof(struct drm_weave_ring_header) <= PAGE_SIZE);
static_assert(sizeof(struct drm_weave_ring_desc) ==
	      2 * DRM_WEAVE_RING_UNIT);
static_assert(sizeof(struct drm_weave_ring_sq) <= DRM_WEAVE_RING_SQ_DESCS);

/* Bytes of the submission area of a ring of @units units. */
static size_t weave_sring_sq_bytes(u32 units)
{
	return PAGE_ALIGN(DRM_WEAVE_RING_SQ_DESCS +
			  (size_t)units * DRM_WEAVE_RING_UNIT);
}

/* Bytes a ring of @npages submission pages charges: its header too. */
static u64 weave_sring_cost(u32 npages)
{
	return (u64)(npages + 1) * PAGE_SIZE;
}

/* Free @r, which no xarray holds, with its pages; mappings keep theirs. */
static void weave_sring_free(struct weave_sring *r)
{
	u32 i;

	if (r->sq)
		vunmap(r->sq);
	for (i = 0; i < r->npages; i++)
		if (r->pages[i])
			put_page(r->pages[i]);
	if (r->hpage)
		put_page(r->hpage);
	if (r->mm)
		mmdrop(r->mm);
	mem_cgroup_put(r->memcg);
	kfree(r);
}

/*
 * Allocate a ring of @units units, its submission area zeroed and mapped
 * for the kernel; charged to the caller's memory cgroup.
 */
static struct weave_sring *weave_sring_alloc(u32 units)
{
	u32 i, npages = weave_sring_sq_bytes(units) >> PAGE_SHIFT;
	struct weave_sring *r;

	r = kzalloc(struct_size(r, pages, npages), GFP_KERNEL_ACCOUNT);
	if (!r)
		return NULL;
	r->npages = npages;
	r->units = units;
	INIT_LIST_HEAD(&r->poll_link);
	for (i = 0; i < npages; i++) {
		r->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!r->pages[i])
			goto err;
	}
	r->sq = vmap(r->pages, npages, VM_MAP, PAGE_KERNEL);
	if (!r->sq)
		goto err;
	r->descs = (u8 *)r->sq + DRM_WEAVE_RING_SQ_DESCS;
	return r;

err:
	weave_sring_free(r);
	return NULL;
}

/*
 * The header page of @ls's ring, made on its first ring and kept by the
 * stream, which completions update; reset for the new ring @r, which
 * takes a reference.
 */
static int weave_sring_header(struct weave_lstream *ls, struct weave_sring *r)
{
	struct drm_weave_ring_header *h;

	if (!ls->ring_page) {
		ls->ring_page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!ls->ring_page)
			return -ENOMEM;
		/*
		 * Completions find it from here on; the release orders the
		 * page's zeroes before, for weave_eng_lstream_completed().
		 */
		smp_store_release(&ls->ring_header,
				  page_address(ls->ring_page));
	}
	get_page(ls->ring_page);
	r->hpage = ls->ring_page;
	r->hdr = ls->ring_header;
	h = r->hdr;
	WRITE_ONCE(h->head, 0);
	WRITE_ONCE(h->error, 0);
	WRITE_ONCE(h->error_index, 0);
	WRITE_ONCE(h->seqno, 0);
	WRITE_ONCE(h->flags, DRM_WEAVE_RING_NEED_WAKEUP);
	/* What completed before it was published, at least. */
	weave_eng_count_raise(&h->completed, atomic64_read(&ls->completed));
	return 0;
}

/* Whether a ring of @c feeds @stream. */
static bool weave_sring_on_stream(struct weave_client *c, u32 stream)
{
	struct weave_sring *r;
	unsigned long i;

	xa_for_each(&c->srings, i, r)
		if (r->stream == stream)
			return true;
	return false;
}

/* The scratch of @c's doorbells, made with its first ring. */
static int weave_sring_scratch_get(struct weave_client *c)
{
	if (c->sring_scratch)
		return 0;
	c->sring_scratch = kvzalloc(sizeof(*c->sring_scratch),
				    GFP_KERNEL_ACCOUNT);
	if (!c->sring_scratch)
		return -ENOMEM;
	c->sring_bytes += sizeof(*c->sring_scratch);
	return 0;
}

/* Create step, under the client's mutex: the ring @r of @args' stream. */
static int weave_sring_add(struct weave_client *c,
			   struct drm_weave_ring_create *args,
			   struct weave_sring *r)
{
	struct weave_lstream *ls;
	u32 id;
	int ret;

	ls = weave_client_stream(c, args->stream);
	if (IS_ERR(ls))
		return PTR_ERR(ls);
	if (weave_sring_on_stream(c, args->stream))
		return -EBUSY;
	ret = weave_sring_scratch_get(c);
	if (!ret)
		ret = weave_sring_header(ls, r);
	if (ret)
		return ret;
	r->stream = args->stream;
	mutex_lock(&c->sring_lock);
	ret = xa_alloc_cyclic(&c->srings, &id, r,
			      XA_LIMIT(1, WEAVE_MAX_CLIENT_RINGS),
			      &c->next_sring, GFP_KERNEL_ACCOUNT);
	if (ret >= 0)
		r->handle = id;
	mutex_unlock(&c->sring_lock);
	if (ret < 0)
		return ret == -EBUSY ? -ENOSPC : ret;
	c->nsrings++;
	if (r->polled) {
		c->npolled++;
		weave_sring_poll_add(c->wdev, r);
	}
	c->sring_bytes += weave_sring_cost(r->npages);
	args->ring = id;
	return 0;
}

/**
 * weave_ring_create_ioctl() - Handle %DRM_IOCTL_WEAVE_RING_CREATE.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_ring_create.
 * @file: The client's file.
 *
 * Context: Inside a drm_dev_enter() section.
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_ring_create_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct drm_weave_ring_create *args = data;
	struct weave_client *c = file->driver_priv;
	bool poll = args->flags & DRM_WEAVE_RING_CREATE_POLL;
	struct weave_sring *r;
	int ret;

	if (args->flags & ~DRM_WEAVE_RING_CREATE_POLL ||
	    !is_power_of_2(args->units) ||
	    args->units < WEAVE_MIN_RING_UNITS ||
	    args->units > WEAVE_MAX_RING_UNITS || (poll && !current->mm))
		return -EINVAL;
	/* Allocated before the lock: it is not held for that long. */
	r = weave_sring_alloc(args->units);
	if (!r)
		return -ENOMEM;
	r->client = c;
	r->file = file;
	if (poll) {
		/* What the polling thread works in for this ring. */
		r->polled = true;
		mmgrab(current->mm);
		r->mm = current->mm;
		r->memcg = get_mem_cgroup_from_mm(current->mm);
		r->kcov_handle = kcov_common_handle();
	}
	ret = weave_client_lock(c);
	if (ret) {
		weave_sring_free(r);
		return ret;
	}
	ret = weave_sring_add(c, args, r);
	mutex_unlock(&c->lock);
	if (ret) {
		weave_sring_free(r);
		return ret;
	}
	if (poll)
		weave_sring_poll_kick(c->wdev);
	args->header_offset = (u64)WEAVE_SRING_PGOFF(args->ring, 0) <<
			      PAGE_SHIFT;
	args->sq_offset = (u64)WEAVE_SRING_PGOFF(args->ring, 1) << PAGE_SHIFT;
	args->header_size = PAGE_SIZE;
	args->sq_size = r->npages << PAGE_SHIFT;
	return 0;
}

/* Take @r out of @c, under its mutex, and free it. */
static void weave_sring_remove(struct weave_client *c, struct weave_sring *r)
{
	/* The polling thread lets go of it first. */
	if (r->polled) {
		weave_sring_poll_del(c->wdev, r);
		c->npolled--;
	}
	mutex_lock(&c->sring_lock);
	xa_erase(&c->srings, r->handle);
	mutex_unlock(&c->sring_lock);
	c->nsrings--;
	c->sring_bytes -= weave_sring_cost(r->npages);
	weave_sring_free(r);
}

/**
 * weave_ring_destroy_ioctl() - Handle %DRM_IOCTL_WEAVE_RING_DESTROY.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_ring_destroy.
 * @file: The client's file.
 *
 * Context: Inside a drm_dev_enter() section.
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_ring_destroy_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct drm_weave_ring_destroy *args = data;
	struct weave_client *c = file->driver_priv;
	struct weave_sring *r;
	int ret;

	if (args->pad)
		return -EINVAL;
	ret = weave_client_lock(c);
	if (ret)
		return ret;
	r = xa_load(&c->srings, args->ring);
	if (r)
		weave_sring_remove(c, r);
	mutex_unlock(&c->lock);
	return r ? 0 : -ENOENT;
}

/**
 * weave_sring_stop() - Stop a ring at an error.
 * @r: The ring, at the bad descriptor (or tail).
 * @err: The negative errno.
 *
 * The header tells user space: @err and the position, then, with a
 * release store, the flag.
 *
 * Context: The client's mutex held.
 */
void weave_sring_stop(struct weave_sring *r, int err)
{
	r->stopped = true;
	WRITE_ONCE(r->hdr->error, err);
	WRITE_ONCE(r->hdr->error_index, r->head);
	/* A reader that sees the flag (acquire) sees the error word. */
	weave_sring_flags(r, DRM_WEAVE_RING_STOPPED, 0);
}

/**
 * weave_sring_flags() - Change the flags of a ring's header.
 * @r: The ring.
 * @set: Flags to set.
 * @clear: Flags to clear.
 *
 * Atomic, and fully ordered: the polling thread changes
 * %DRM_WEAVE_RING_NEED_WAKEUP without the client's mutex, which the
 * others are changed under; what was written before is seen by a reader
 * that loads the new flags with acquire.
 */
void weave_sring_flags(struct weave_sring *r, u32 set, u32 clear)
{
	u32 old = READ_ONCE(r->hdr->flags);

	while (!try_cmpxchg(&r->hdr->flags, &old, (old | set) & ~clear))
		;
}

/**
 * weave_sring_stream_gone() - A stream was destroyed: stop its ring.
 * @c: The client.
 * @stream: The stream's handle.
 *
 * The ring stays until it is destroyed, stopped with -ENOENT, and resuming
 * it stops it again: it never feeds a later stream of the same handle.
 *
 * Context: The client's mutex held.
 */
void weave_sring_stream_gone(struct weave_client *c, u32 stream)
{
	struct weave_sring *r;
	unsigned long i;

	xa_for_each(&c->srings, i, r) {
		if (r->stream != stream)
			continue;
		r->stream = 0;
		if (!r->stopped)
			weave_sring_stop(r, -ENOENT);
	}
}

/**
 * weave_sring_unpoll() - Take a client's rings off the polling thread, as
 * its file is released.
 * @c: The client.
 *
 * Before the DRM core releases the file's buffer handles, which the
 * thread would look up.
 *
 * Context: Takes the client's mutex, then &weave_spoll.lock.
 */
void weave_sring_unpoll(struct weave_client *c)
{
	struct weave_sring *r;
	unsigned long i;

	mutex_lock(&c->lock);
	xa_for_each(&c->srings, i, r)
		if (r->polled)
			weave_sring_poll_del(c->wdev, r);
	mutex_unlock(&c->lock);
}

/**
 * weave_sring_poll_waking() - Clear NEED_WAKEUP on a client's polled
 * rings, whose doorbell is about to wake the polling thread.
 * @c: The client, whose doorbell (%DRM_IOCTL_WEAVE_RING_ENTER) then
 *	calls weave_sring_poll_kick() whatever it returns.
 *
 * The thread clears the flags once it runs; until then a producer that
 * publishes again would see them and ring a second time.  Clearing them
 * first is safe: the kick makes the thread poll every ring once more
 * before it can sleep, and it sets the flags again before it sleeps.
 *
 * Context: The client's mutex held.
 */
void weave_sring_poll_waking(struct weave_client *c)
{
	struct weave_sring *r;
	unsigned long i;

	lockdep_assert_held(&c->lock);
	xa_for_each(&c->srings, i, r)
		if (r->polled &&
		    READ_ONCE(r->hdr->flags) & DRM_WEAVE_RING_NEED_WAKEUP)
			weave_sring_flags(r, 0, DRM_WEAVE_RING_NEED_WAKEUP);
}

/**
 * weave_sring_init() - Set up a new client's rings: none.
 * @c: The client.
 */
void weave_sring_init(struct weave_client *c)
{
	xa_init_flags(&c->srings, XA_FLAGS_ALLOC1);
	mutex_init(&c->sring_lock);
}

/**
 * weave_sring_fini() - Free every ring of a client being closed.
 * @c: The client.
 *
 * What was published and not consumed is dropped.  Mappings keep their
 * pages.
 *
 * Context: The client's mutex held.
 */
void weave_sring_fini(struct weave_client *c)
{
	struct weave_sring *r;
	unsigned long i;

	xa_for_each(&c->srings, i, r)
		weave_sring_remove(c, r);
	xa_destroy(&c->srings);
	kvfree(c->sring_scratch);
	c->sring_scratch = NULL;
	mutex_destroy(&c->sring_lock);
}

/**
 * weave_sring_poll_add() - Put a new polled ring on its device's list.
 * @wdev: The device.
 * @r: The ring.
 *
 * Context: The ring's client's mutex held; takes &weave_spoll.lock.
 */
void weave_sring_poll_add(struct weave_device *wdev, struct weave_sring *r)
{
	struct weave_spoll *sp = &wdev->spoll;

	mutex_lock(&sp->lock);
	list_add_tail(&r->poll_link, &sp->rings);
	sp->nrings++;
	mutex_unlock(&sp->lock);
}

/**
 * weave_sring_poll_del() - Take a polled ring off its device's list, if on it.
 * @wdev: The device.
 * @r: The ring.
 *
 * The thread does not use @r once this returns.
 *
 * Context: The ring's client's mutex held; takes &weave_spoll.lock.
 */
void weave_sring_poll_del(struct weave_device *wdev, struct weave_sring *r)
{
	struct weave_spoll *sp = &wdev->spoll;

	mutex_lock(&sp->lock);
	if (!list_empty(&r->poll_link)) {
		list_del_init(&r->poll_link);
		sp->nrings--;
	}
	mutex_unlock(&sp->lock);
}

/**
 * weave_sring_poll_kick() - Wake a device's polling thread.
 * @wdev: The device.
 *
 * Context: Any process context; takes no lock.
 */
void weave_sring_poll_kick(struct weave_device *wdev)
{
	struct weave_spoll *sp = &wdev->spoll;

	atomic_set(&sp->kicked, 1);
	wake_up(&sp->wq);
}

static const struct vm_operations_struct weave_sring_vm_ops = {
	/* No fault: after an unplug zaps it, a mapping gets SIGBUS. */
};

/* Map the @n pages @pages into @vma, which must be as large. */
static int weave_sring_map(struct vm_area_struct *vma, struct page **pages,
			   unsigned long n)
{
	if (vma->vm_end - vma->vm_start != n << PAGE_SHIFT)
		return -EINVAL;
	weave_compat_vm_flags_mod(vma, VM_MIXEDMAP | VM_DONTEXPAND |
				  VM_DONTDUMP, 0);
	vma->vm_ops = &weave_sring_vm_ops;
	return vm_insert_pages(vma, vma->vm_start, pages, &n);
}

/**
 * weave_sring_map_ro() - Map pages only the kernel writes into a mapping.
 * @vma: The new mapping, which must be as large as @n pages.
 * @pages: The pages, which the mapping takes references to.
 * @n: How many.
 *
 * Never writable: neither now nor by a later mprotect().
 *
 * Context: mmap_lock held.
 * Return: 0, -EPERM for a writable mapping, -EINVAL for another size.
 */
int weave_sring_map_ro(struct vm_area_struct *vma, struct page **pages,
		       unsigned long n)
{
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	weave_compat_vm_flags_mod(vma, 0, VM_MAYWRITE);
	return weave_sring_map(vma, pages, n);
}

/* Map a part of @r: its header read-only, or its submission area shared. */
static int weave_sring_mmap_part(struct vm_area_struct *vma,
				 struct weave_sring *r, bool sq)
{
	if (!sq)
		return weave_sring_map_ro(vma, &r->hpage, 1);
	/* A private copy would be written in vain. */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	return weave_sring_map(vma, r->pages, r->npages);
}

/**
 * weave_sring_mmap() - mmap() of a ring's part, at an offset below those
 * of buffers.
 * @filp: The DRM file.
 * @vma: The new mapping.
 *
 * The pages are inserted at once, and the mapping holds them: they stay
 * until it is unmapped, after the ring is gone too.
 *
 * Context: mmap_lock held; takes &weave_client.sring_lock.
 * Return: 0, -EINVAL for an offset or size that is no ring's part, -EPERM
 * for a writable mapping of a header, -ENODEV after an unplug.
 */
int weave_sring_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct drm_file *file = filp->private_data;
	struct weave_client *c = file->driver_priv;
	unsigned long handle = vma->vm_pgoff >> WEAVE_SRING_PGOFF_SHIFT;
	unsigned long part = vma->vm_pgoff - WEAVE_SRING_PGOFF(handle, 0);
	struct weave_sring *r;
	int idx, ret = -EINVAL;

	if (!drm_dev_enter(file->minor->dev, &idx))
		return -ENODEV;
	mutex_lock(&c->sring_lock);
	r = handle <= WEAVE_MAX_CLIENT_RINGS ? xa_load(&c->srings, handle) :
					       NULL;
	if (r && part <= 1)
		ret = weave_sring_mmap_part(vma, r, part);
	mutex_unlock(&c->sring_lock);
	drm_dev_exit(idx);
	return ret;
}
