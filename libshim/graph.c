// SPDX-License-Identifier: MIT
/*
 * libweave: graphs: DRM_IOCTL_WEAVE_GRAPH_DESTROY.  weave_capture() and
 * weave_replay() fill and read the caller's uAPI structs, so they are
 * inline in weave.h.
 */
#include <stdint.h>

#include "weave.h"
#include "private.h"

WEAVE_PUBLIC int weave_graph_destroy(int fd, uint32_t graph)
{
	struct drm_weave_graph_destroy args = { .graph = graph };

	return shim_ioctl(fd, DRM_IOCTL_WEAVE_GRAPH_DESTROY, &args);
}
