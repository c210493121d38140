/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the soft engine's list logic that needs no device: array growth, a
 * job's buffer list in lock order, and the in-fences a slot waits for.
 */
#ifndef _WEAVE_LISTS_H_
#define _WEAVE_LISTS_H_

#include <linux/types.h>

struct dma_fence;
struct drm_gem_object;

/* A buffer of a job and how the job uses it. */
struct weave_jbo {
	struct drm_gem_object *obj;
	u32 access;
};

/*
 * The pending in-fence on @f's fence context that a slot already waits for,
 * or NULL; see weave_core_fences_dedupe().
 */
typedef struct dma_fence *(*weave_fence_cover_fn)(void *arg,
						  const struct dma_fence *f);

int weave_core_grow_from(void **arr, u32 *cap, u32 need, size_t size,
			 const void *inl);
int weave_core_grow(void **arr, u32 *cap, u32 need, size_t size);
u32 weave_core_jbos_merge(struct weave_jbo *bos, u32 n);
u32 weave_core_fences_dedupe(struct dma_fence **fences, u32 *n,
			     weave_fence_cover_fn cover, void *arg);

#endif /* _WEAVE_LISTS_H_ */
