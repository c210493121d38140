// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: reading (and writing back into) the user arrays of the ioctls,
 * with their strides, so that an element struct can grow at its end.
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/uaccess.h>

#include "weave_drm.h"
#include "weave_uarray.h"

/**
 * weave_uarray_read() - Read consecutive elements of a user array.
 * @dst: Room for @n structs of @ksize bytes.
 * @ksize: The kernel's size of the element struct.
 * @minsize: The size of its first version, the smallest stride taken.
 * @arr: The user array.
 * @first: The first element to read.
 * @n: How many to read.
 * @bulk: Reads all @n at once when the stride is @ksize; or NULL.
 * @done: Out: the number of elements read.
 *
 * Each element's first min(stride, @ksize) bytes are copied, the rest of
 * the kernel's struct is zeroed, and a stride's bytes past @ksize must be
 * zero.  Where @bulk cannot read them, they are read one by one, which
 * finds the bad one.
 *
 * Return: 0 if all were read; else the errno of element @first + *@done:
 * -EINVAL for a stride out of bounds or extra bytes not zero, -EFAULT.
 */
int weave_uarray_read(void *dst, size_t ksize, size_t minsize,
		      const struct drm_weave_array *arr, u32 first, u32 n,
		      weave_uarray_bulk_t bulk, u32 *done)
{
	void __user *src = u64_to_user_ptr(arr->ptr);
	u32 i;
	int ret;

	*done = 0;
	if (!weave_uarray_valid(arr, minsize))
		return -EINVAL;
	if (bulk && arr->stride == ksize &&
	    bulk(dst, src + (size_t)first * ksize, n)) {
		*done = n;
		return 0;
	}
	for (i = 0; i < n; i++) {
		ret = copy_struct_from_user(dst + (size_t)i * ksize, ksize,
					    src + (size_t)(first + i) *
						  arr->stride,
					    arr->stride);
		if (ret)
			return ret == -E2BIG ? -EINVAL : ret;
		*done = i + 1;
	}
	return 0;
}

/**
 * weave_uarray_elem() - Read one element of a user array.
 * @dst: Room for a struct of @ksize bytes.
 * @ksize: The kernel's size of the element struct, also its first
 *	version's.
 * @arr: The user array.
 * @i: The element.
 *
 * Return: As weave_uarray_read().
 */
int weave_uarray_elem(void *dst, size_t ksize,
		      const struct drm_weave_array *arr, u32 i)
{
	u32 done;

	return weave_uarray_read(dst, ksize, ksize, arr, i, 1, NULL, &done);
}

/**
 * weave_uarray_write() - Write fields of one element of a user array.
 * @arr: The user array, already checked with weave_uarray_valid().
 * @i: The element, below @arr->count.
 * @offset: Where the fields start in the element.
 * @src: The fields.
 * @len: Their size; @offset + @len is within the struct's first version.
 *
 * Return: 0, or -EFAULT.
 */
int weave_uarray_write(const struct drm_weave_array *arr, u32 i,
		       size_t offset, const void *src, size_t len)
{
	void __user *dst = u64_to_user_ptr(arr->ptr);

	if (copy_to_user(dst + (size_t)i * arr->stride + offset, src, len))
		return -EFAULT;
	return 0;
}
