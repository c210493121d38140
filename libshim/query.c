// SPDX-License-Identifier: MIT
/*
 * libweave: DRM_IOCTL_WEAVE_QUERY; the typed queries are inline in weave.h.
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
