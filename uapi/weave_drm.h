/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * weave: a multi-stream GPU task scheduler behind a DRM render node.
 *
 * This header is the whole user-space ABI of the weave driver.  It follows
 * Documentation/process/botching-up-ioctls.rst: every struct is made of
 * fixed-size types and is naturally aligned, user pointers travel as __u64,
 * padding and reserved fields must be zero, and unknown flags are rejected
 * with -EINVAL.
 */
#ifndef _WEAVE_DRM_H_
#define _WEAVE_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: weave uAPI overview
 *
 * weave registers one render node per device, driver name "weave".  Buffers
 * are GEM objects backed by shmem; they are created with
 * %DRM_IOCTL_WEAVE_BO_CREATE, mapped through the fake offset returned by
 * %DRM_IOCTL_WEAVE_BO_MMAP_OFFSET, shared through the core PRIME ioctls and
 * released with the core %DRM_IOCTL_GEM_CLOSE.
 *
 * %DRM_IOCTL_WEAVE_QUERY reports the uAPI version, the device's limits and
 * its usage.  New kinds of information are new query types, never new
 * ioctls, and the structs a query returns only grow at their end.
 */

/**
 * DOC: uAPI version
 *
 * The major version changes only if the ABI breaks, which it must not.  The
 * minor version grows with every addition: a new ioctl, flag, query type or
 * field at the end of a query struct.
 */
#define DRM_WEAVE_UAPI_MAJOR		1
#define DRM_WEAVE_UAPI_MINOR		0

#define DRM_WEAVE_QUERY			0x00
#define DRM_WEAVE_BO_CREATE		0x01
#define DRM_WEAVE_BO_MMAP_OFFSET	0x02

#define DRM_IOCTL_WEAVE_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_QUERY, struct drm_weave_query)
#define DRM_IOCTL_WEAVE_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_BO_CREATE, struct drm_weave_bo_create)
#define DRM_IOCTL_WEAVE_BO_MMAP_OFFSET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_BO_MMAP_OFFSET, \
		 struct drm_weave_bo_mmap_offset)

/**
 * enum drm_weave_query_type - What %DRM_IOCTL_WEAVE_QUERY reports.
 */
enum drm_weave_query_type {
	/**
	 * @DRM_WEAVE_QUERY_DEVICE_INFO: The uAPI version and the device's
	 * limits, as &struct drm_weave_device_info.
	 */
	DRM_WEAVE_QUERY_DEVICE_INFO = 0,

	/**
	 * @DRM_WEAVE_QUERY_MEMORY_USAGE: Device-wide buffer usage, as
	 * &struct drm_weave_memory_usage.
	 */
	DRM_WEAVE_QUERY_MEMORY_USAGE = 1,
};

/**
 * struct drm_weave_query - Argument of %DRM_IOCTL_WEAVE_QUERY.
 *
 * The kernel copies min(@size, its own size of the struct) bytes to
 * @pointer and zeroes the rest of the caller's @size bytes, so that a newer
 * user space reads zero in fields an older kernel does not know.  It then
 * sets @size to its own size of the struct, so the caller can tell which
 * fields were filled.  With @size zero, nothing is copied and @size is set:
 * that asks the kernel how big the struct is.
 *
 * Errors:
 *
 * - -EINVAL: @type is not a &enum drm_weave_query_type.
 * - -EFAULT: @pointer cannot be written.
 */
struct drm_weave_query {
	/** @type: One of &enum drm_weave_query_type. */
	__u32 type;

	/**
	 * @size: In: the number of bytes at @pointer.  Out: the size of the
	 * struct this kernel returns for @type.
	 */
	__u32 size;

	/** @pointer: User pointer to the struct to fill. */
	__u64 pointer;
};

/**
 * struct drm_weave_device_info - Reply to %DRM_WEAVE_QUERY_DEVICE_INFO.
 *
 * Fields are only ever added at the end.
 */
struct drm_weave_device_info {
	/** @uapi_major: %DRM_WEAVE_UAPI_MAJOR of the running driver. */
	__u32 uapi_major;

	/** @uapi_minor: %DRM_WEAVE_UAPI_MINOR of the running driver. */
	__u32 uapi_minor;

	/**
	 * @max_bo_size: The largest buffer %DRM_IOCTL_WEAVE_BO_CREATE
	 * accepts, in bytes; set by the module parameter max_bo_size.
	 */
	__u64 max_bo_size;

	/** @page_size: The granule buffer sizes are rounded up to. */
	__u32 page_size;

	/** @pad: Reserved, zero. */
	__u32 pad;
};

/**
 * struct drm_weave_memory_usage - Reply to %DRM_WEAVE_QUERY_MEMORY_USAGE.
 *
 * Counts cover every client of the device, including buffers imported
 * through PRIME.  An object is counted until its last reference is gone,
 * not merely until its last handle is closed.
 */
struct drm_weave_memory_usage {
	/** @live_bos: The number of buffer objects alive on the device. */
	__u64 live_bos;

	/** @live_bytes: The sum of their sizes, in bytes. */
	__u64 live_bytes;
};

/**
 * DRM_WEAVE_BO_NO_MMAP - The buffer can never be mapped by user space.
 *
 * %DRM_IOCTL_WEAVE_BO_MMAP_OFFSET on it fails with -EPERM, and so does
 * mmap() of a dma-buf exported from it.  Bit 0.
 */
#define DRM_WEAVE_BO_NO_MMAP		0x00000001u

/** DRM_WEAVE_BO_FLAGS - Every flag %DRM_IOCTL_WEAVE_BO_CREATE knows. */
#define DRM_WEAVE_BO_FLAGS		DRM_WEAVE_BO_NO_MMAP

/**
 * struct drm_weave_bo_create - Argument of %DRM_IOCTL_WEAVE_BO_CREATE.
 *
 * Creates a buffer object backed by shmem.  Its contents read as zeroes.
 *
 * Errors:
 *
 * - -EINVAL: @size is zero, or @flags has a bit outside
 *   %DRM_WEAVE_BO_FLAGS.
 * - -E2BIG: @size, rounded up to the page size, is over the device's
 *   max_bo_size (see &struct drm_weave_device_info).
 * - -ENOMEM: The kernel is out of memory.
 */
struct drm_weave_bo_create {
	/**
	 * @size: In: the size in bytes.  Out: the size after rounding up to
	 * the page size.
	 */
	__u64 size;

	/** @flags: A combination of %DRM_WEAVE_BO_FLAGS. */
	__u32 flags;

	/** @handle: Out: the new buffer's GEM handle in this file. */
	__u32 handle;
};

/**
 * struct drm_weave_bo_mmap_offset - Argument of
 * %DRM_IOCTL_WEAVE_BO_MMAP_OFFSET.
 *
 * Returns the fake offset to pass to mmap() on the device's file to map
 * the buffer.  Mappings are shared and cached.
 *
 * Errors:
 *
 * - -EINVAL: @pad is not zero.
 * - -ENOENT: @handle names no buffer in this file.
 * - -EPERM: The buffer was created with %DRM_WEAVE_BO_NO_MMAP.
 */
struct drm_weave_bo_mmap_offset {
	/** @handle: The buffer's GEM handle. */
	__u32 handle;

	/** @pad: Must be zero. */
	__u32 pad;

	/** @offset: Out: the offset to pass to mmap(). */
	__u64 offset;
};

#if defined(__cplusplus)
}
#endif

#endif /* _WEAVE_DRM_H_ */
