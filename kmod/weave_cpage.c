// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the completion area of a client: its pages, the entry of each
 * stream, its mapping, and %DRM_IOCTL_WEAVE_COMPLETIONS.
 */

#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/math.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_vma_manager.h>

#include "weave_client.h"
#include "weave_cpage.h"
#include "weave_drm.h"
#include "weave_engine.h"
#include "weave_sring.h"

/* Entries of the area in one page. */
#define WEAVE_CPAGE_ENTRIES	(PAGE_SIZE / sizeof(u64))

/*
 * The largest area, for max_client_streams at its most (BIT(20), see
 * weave_drv.c), fits below the offsets of buffers.
 */
static_assert(WEAVE_SRING_PGOFF_END + ((1ul << 20) / (PAGE_SIZE / 8)) <
	      DRM_FILE_PAGE_OFFSET_START);

/* The entry of stream @handle in @c's area, which exists. */
static u64 *weave_cpage_entry(struct weave_client *c, u32 handle)
{
	u32 i = handle - 1;
	u64 *base = page_address(c->cpages[i / WEAVE_CPAGE_ENTRIES]);

	return base + i % WEAVE_CPAGE_ENTRIES;
}

/* Free @n pages of @pages, and the array. */
static void weave_cpage_free(struct page **pages, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (pages[i])
			put_page(pages[i]);
	kvfree(pages);
}

/*
 * Make @c's area and give each stream its entry; under the client's
 * mutex.  Charged to the caller's memory cgroup.
 */
static int weave_cpage_create(struct weave_client *c)
{
	u32 n = DIV_ROUND_UP(c->wdev->limits.max_client_streams,
			     WEAVE_CPAGE_ENTRIES);
	struct weave_lstream *ls;
	struct page **pages;
	unsigned long h;
	u32 i;

	pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL_ACCOUNT);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!pages[i]) {
			weave_cpage_free(pages, n);
			return -ENOMEM;
		}
	}
	mutex_lock(&c->sring_lock);
	c->cpages = pages;
	c->ncpages = n;
	mutex_unlock(&c->sring_lock);
	c->sring_bytes += (u64)n * PAGE_SIZE;
	xa_for_each(&c->ectx->streams, h, ls)
		weave_eng_lstream_count_attach(ls, weave_cpage_entry(c, h));
	return 0;
}

/**
 * weave_completions_ioctl() - Handle %DRM_IOCTL_WEAVE_COMPLETIONS.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_completions.
 * @file: The client's file.
 *
 * Context: Inside a drm_dev_enter() section.
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_completions_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct drm_weave_completions *args = data;
	struct weave_client *c = file->driver_priv;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	ret = weave_client_lock(c);
	if (ret)
		return ret;
	if (!c->cpages)
		ret = weave_cpage_create(c);
	mutex_unlock(&c->lock);
	if (ret)
		return ret;
	args->offset = (u64)WEAVE_SRING_PGOFF_END << PAGE_SHIFT;
	args->size = c->ncpages << PAGE_SHIFT;
	args->entries = c->wdev->limits.max_client_streams;
	return 0;
}

/**
 * weave_cpage_stream_new() - Give a new stream its entry, if its client
 * has an area.
 * @c: The client.
 * @ls: The stream, with its handle; it has no task yet.
 *
 * The entry is zero: the last stream that had the handle zeroed it as it
 * was destroyed.
 *
 * Context: The client's mutex held.
 */
void weave_cpage_stream_new(struct weave_client *c, struct weave_lstream *ls)
{
	if (c->cpages)
		weave_eng_lstream_count_attach(ls,
					       weave_cpage_entry(c, ls->handle));
}

/**
 * weave_cpage_fini() - Free a closed client's area.
 * @c: The client.
 *
 * Its streams let go of their entries first: their tasks may complete
 * later.  Mappings keep the pages.
 *
 * Context: The client's mutex held.
 */
void weave_cpage_fini(struct weave_client *c)
{
	struct weave_lstream *ls;
	unsigned long h;

	if (!c->cpages)
		return;
	xa_for_each(&c->ectx->streams, h, ls)
		weave_eng_lstream_count_detach(ls);
	weave_cpage_free(c->cpages, c->ncpages);
	c->cpages = NULL;
	c->sring_bytes -= (u64)c->ncpages * PAGE_SIZE;
	c->ncpages = 0;
}

/**
 * weave_cpage_mmap() - mmap() of the completion area, past every ring's
 * offsets.
 * @filp: The DRM file.
 * @vma: The new mapping.
 *
 * Read-only, of the whole area, which the mapping holds.
 *
 * Context: mmap_lock held; takes &weave_client.sring_lock.
 * Return: 0, -EINVAL for another offset or size, or before the area is
 * made, -EPERM for a writable mapping, -ENODEV after an unplug.
 */
int weave_cpage_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct drm_file *file = filp->private_data;
	struct weave_client *c = file->driver_priv;
	int idx, ret = -EINVAL;

	if (!drm_dev_enter(file->minor->dev, &idx))
		return -ENODEV;
	mutex_lock(&c->sring_lock);
	if (c->cpages && vma->vm_pgoff == WEAVE_SRING_PGOFF_END)
		ret = weave_sring_map_ro(vma, c->cpages, c->ncpages);
	mutex_unlock(&c->sring_lock);
	drm_dev_exit(idx);
	return ret;
}
