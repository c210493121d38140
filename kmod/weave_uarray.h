/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: reading the user arrays of the ioctls (&struct drm_weave_array),
 * whose elements may grow.
 */
#ifndef _WEAVE_UARRAY_H_
#define _WEAVE_UARRAY_H_

#include <linux/compiler_types.h>
#include <linux/stddef.h>
#include <linux/types.h>

#include "weave_drm.h"

/*
 * The first version of &struct drm_weave_task, before uAPI 1.3 gave it
 * @label: the smallest stride its array takes.
 */
#define WEAVE_TASK_SIZE_V0	offsetof(struct drm_weave_task, label)

/**
 * weave_uarray_valid() - Whether an array's stride suits its elements.
 * @arr: The user array.
 * @minsize: The size of the element struct's first version.
 *
 * Inline: every binding array of every task goes through it.
 *
 * Return: true if @arr is empty (its stride is not read) or its stride is
 * at least @minsize and at most %DRM_WEAVE_MAX_STRIDE.
 */
static inline bool weave_uarray_valid(const struct drm_weave_array *arr,
				      size_t minsize)
{
	return !arr->count || (arr->stride >= minsize &&
			       arr->stride <= DRM_WEAVE_MAX_STRIDE);
}

/* Reads @n elements of the kernel's size from @src, or returns false. */
typedef bool (*weave_uarray_bulk_t)(void *dst, const void __user *src,
				    u32 n);

int weave_uarray_read(void *dst, size_t ksize, size_t minsize,
		      const struct drm_weave_array *arr, u32 first, u32 n,
		      weave_uarray_bulk_t bulk, u32 *done);
int weave_uarray_elem(void *dst, size_t ksize,
		      const struct drm_weave_array *arr, u32 i);
int weave_uarray_write(const struct drm_weave_array *arr, u32 i,
		       size_t offset, const void *src, size_t len);

#endif /* _WEAVE_UARRAY_H_ */
