// SPDX-License-Identifier: MIT
/*
 * libweave: user engines: DRM_IOCTL_WEAVE_ENGINE_ATTACH.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "weave.h"
#include "private.h"

WEAVE_PUBLIC int weave_engine_attach(int fd, uint64_t queues, const char *name,
				     int *engine_fd, uint32_t *generation)
{
	struct drm_weave_engine_attach args = { .queues = queues };
	int ret;

	if (!name || strlen(name) >= sizeof(args.name) || !engine_fd)
		return -EINVAL;
	strcpy(args.name, name);
	ret = shim_ioctl(fd, DRM_IOCTL_WEAVE_ENGINE_ATTACH, &args);
	if (ret)
		return ret;
	*engine_fd = args.fd;
	if (generation)
		*generation = args.generation;
	return 0;
}
