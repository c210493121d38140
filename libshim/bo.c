// SPDX-License-Identifier: MIT
/*
 * libweave: buffer objects: create, map, close, PRIME export and import.
 */
#include <stdint.h>
#include <sys/mman.h>

#include <xf86drm.h>

#include "weave.h"
#include "private.h"

WEAVE_PUBLIC int weave_bo_create(int fd, uint64_t *size, uint32_t flags,
				 uint32_t *handle)
{
	struct drm_weave_bo_create create = {
		.size = *size,
		.flags = flags,
	};
	int ret;

	ret = shim_ioctl(fd, DRM_IOCTL_WEAVE_BO_CREATE, &create);
	if (ret)
		return ret;
	*size = create.size;
	*handle = create.handle;
	return 0;
}

WEAVE_PUBLIC int weave_bo_mmap_offset(int fd, uint32_t handle, uint64_t *offset)
{
	struct drm_weave_bo_mmap_offset args = { .handle = handle };
	int ret;

	ret = shim_ioctl(fd, DRM_IOCTL_WEAVE_BO_MMAP_OFFSET, &args);
	if (ret)
		return ret;
	*offset = args.offset;
	return 0;
}

WEAVE_PUBLIC int weave_bo_mmap(int fd, uint32_t handle, size_t size, int prot,
			       void **ptr)
{
	uint64_t offset;
	void *map;
	int ret;

	ret = weave_bo_mmap_offset(fd, handle, &offset);
	if (ret)
		return ret;
	/* off_t may be 32 bits wide, and it is signed. */
	if (offset > (uint64_t)INT64_MAX || (uint64_t)(off_t)offset != offset)
		return -EOVERFLOW;

	map = mmap(NULL, size, prot, MAP_SHARED, fd, (off_t)offset);
	if (map == MAP_FAILED)
		return -errno;
	*ptr = map;
	return 0;
}

WEAVE_PUBLIC int weave_bo_munmap(void *ptr, size_t size)
{
	return shim_errno(munmap(ptr, size));
}

WEAVE_PUBLIC int weave_bo_close(int fd, uint32_t handle)
{
	struct drm_gem_close args = { .handle = handle };

	return shim_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &args);
}

WEAVE_PUBLIC int weave_bo_export(int fd, uint32_t handle, uint32_t flags,
				 int *dmabuf_fd)
{
	return drmPrimeHandleToFD(fd, handle, flags, dmabuf_fd) ? -errno : 0;
}

WEAVE_PUBLIC int weave_bo_import(int fd, int dmabuf_fd, uint32_t *handle)
{
	return drmPrimeFDToHandle(fd, dmabuf_fd, handle) ? -errno : 0;
}
