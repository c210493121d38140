// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the soft engine's list logic that needs no device (array growth, a
 * job's buffer list in lock order, the in-fences a slot waits for), kept
 * apart so that tests/unit/lists_test.c runs it in user space.
 */

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include <drm/drm_gem.h>

#include "weave_lists.h"

/**
 * weave_core_grow_from() - Make room in a growable array.
 * @arr: The array; replaced by a larger one if it has no room.
 * @cap: Its capacity in entries; updated with @arr.
 * @need: The entries it must hold.
 * @size: The size of an entry.
 * @inl: Storage embedded in the array's owner, which is never freed; or
 *	NULL.
 *
 * At least doubles the capacity, to no less than 8 entries, and copies
 * the @cap entries over.  Charged to the caller's memory cgroup.
 *
 * Return: 0, also when there was room; -ENOMEM, with @arr and @cap as
 * they were.
 */
int weave_core_grow_from(void **arr, u32 *cap, u32 need, size_t size,
			 const void *inl)
{
	u32 ncap;
	void *n;

	if (need <= *cap)
		return 0;
	ncap = max3(need, *cap * 2, 8u);
	n = kvmalloc_array(ncap, size, GFP_KERNEL_ACCOUNT);
	if (!n)
		return -ENOMEM;
	if (*cap)
		memcpy(n, *arr, (size_t)*cap * size);
	if (*arr != inl)
		kvfree(*arr);
	*arr = n;
	*cap = ncap;
	return 0;
}

/**
 * weave_core_grow() - Make room in a growable array with no embedded storage.
 * @arr: The array, or NULL if @cap is zero.
 * @cap: Its capacity in entries.
 * @need: The entries it must hold.
 * @size: The size of an entry.
 *
 * Return: As weave_core_grow_from().
 */
int weave_core_grow(void **arr, u32 *cap, u32 need, size_t size)
{
	return weave_core_grow_from(arr, cap, need, size, NULL);
}

static int weave_jbo_cmp(const void *a, const void *b)
{
	const struct weave_jbo *x = a, *y = b;

	if (x->obj == y->obj)
		return 0;
	return x->obj < y->obj ? -1 : 1;
}

/**
 * weave_core_jbos_merge() - Sort a job's buffers and merge duplicates.
 * @bos: @n entries, each with its own reference to its object.
 * @n: Entries of @bos.
 *
 * Sorts @bos by object address, the order drm_gem_lock_reservations() locks them
 * in, and merges the entries of one object into its first, with the
 * union of their access.
 *
 * Return: the number of distinct objects, u.  The first u entries are
 * they, in strictly ascending order; the others are the duplicates, whose
 * references the caller drops.
 */
u32 weave_core_jbos_merge(struct weave_jbo *bos, u32 n)
{
	u32 i, u = 0;

	if (!n)
		return 0;
	sort(bos, n, sizeof(*bos), weave_jbo_cmp, NULL);
	for (i = 0; i < n; i++) {
		if (u && bos[u - 1].obj == bos[i].obj) {
			bos[u - 1].access |= bos[i].access;
			continue;
		}
		/* Entries u..i-1 are duplicates: move one to the tail. */
		swap(bos[u], bos[i]);
		u++;
	}
	return u;
}

/**
 * weave_core_fences_dedupe() - Keep the in-fences that add a wait.
 * @fences: @n fences, a reference each.  Compacted in place.
 * @n: In: entries of @fences.  Out: fences kept, at the start of @fences.
 * @cover: Finds the fence the slot already waits for on a fence's context.
 * @arg: The argument of @cover.
 *
 * Keeps one fence per fence context, the later one, and drops a fence
 * that the slot's own fence of its context covers: one with the same
 * seqno or a later one, whether or not it is the same fence object.  The
 * references of dropped fences are put.
 *
 * Return: how many kept fences are on a context the slot waits for
 * nothing on, i.e. the slot's new gates; the others replace one.
 */
u32 weave_core_fences_dedupe(struct dma_fence **fences, u32 *n,
			     weave_fence_cover_fn cover, void *arg)
{
	struct dma_fence *f, *had;
	u32 i, j, k = 0, fresh = 0;

	for (i = 0; i < *n; i++) {
		f = fences[i];
		for (j = 0; j < k; j++) {
			if (fences[j]->context != f->context)
				continue;
			if (dma_fence_is_later(f, fences[j]))
				swap(fences[j], f);
			dma_fence_put(f);
			f = NULL;
			break;
		}
		if (!f)
			continue;
		had = cover(arg, f);
		if (had && !dma_fence_is_later(f, had)) {
			dma_fence_put(f);
			continue;
		}
		fresh += !had;
		fences[k++] = f;
	}
	*n = k;
	return fresh;
}
