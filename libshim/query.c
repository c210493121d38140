// SPDX-License-Identifier: MIT
/*
 * libweave: DRM_IOCTL_WEAVE_QUERY.
 */
#include <stdint.h>

#include "weave.h"
#include "private.h"

WEAVE_PUBLIC int weave_query(int fd, uint32_t type, void *data, uint32_t *size)
{
	struct drm_weave_query query = {
		.type = type,
		.size = *size,
		.pointer = (uintptr_t)data,
	};
	int ret;

	ret = shim_ioctl(fd, DRM_IOCTL_WEAVE_QUERY, &query);
	if (ret)
		return ret;
	*size = query.size;
	return 0;
}

WEAVE_PUBLIC int weave_query_device_info(int fd,
					 struct drm_weave_device_info *info)
{
	uint32_t size = sizeof(*info);

	return weave_query(fd, DRM_WEAVE_QUERY_DEVICE_INFO, info, &size);
}

WEAVE_PUBLIC int weave_query_memory_usage(int fd,
					  struct drm_weave_memory_usage *usage)
{
	uint32_t size = sizeof(*usage);

	return weave_query(fd, DRM_WEAVE_QUERY_MEMORY_USAGE, usage, &size);
}

WEAVE_PUBLIC int weave_query_client_usage(int fd,
					  struct drm_weave_client_usage *usage)
{
	uint32_t size = sizeof(*usage);

	return weave_query(fd, DRM_WEAVE_QUERY_CLIENT_USAGE, usage, &size);
}
