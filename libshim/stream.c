// SPDX-License-Identifier: MIT
/*
 * libweave: streams: create, destroy, isolate, wait; and the
 * file's settings.
 */
#include <stdint.h>
#include <time.h>

#include "weave.h"
#include "private.h"

WEAVE_PUBLIC int weave_stream_create(int fd, uint32_t priority,
				     uint32_t *handle)
{
	struct drm_weave_stream_create args = { .priority = priority };
	int ret;

	ret = shim_ioctl(fd, DRM_IOCTL_WEAVE_STREAM_CREATE, &args);
	if (ret)
		return ret;
	*handle = args.handle;
	return 0;
}

WEAVE_PUBLIC int weave_stream_destroy(int fd, uint32_t stream)
{
	struct drm_weave_stream_destroy args = { .stream = stream };

	return shim_ioctl(fd, DRM_IOCTL_WEAVE_STREAM_DESTROY, &args);
}

WEAVE_PUBLIC int weave_stream_isolate(int fd, uint32_t stream, uint32_t op)
{
	struct drm_weave_stream_isolate args = { .stream = stream, .op = op };

	return shim_ioctl(fd, DRM_IOCTL_WEAVE_STREAM_ISOLATE, &args);
}

WEAVE_PUBLIC int weave_wait(int fd, uint32_t stream, int64_t timeout_ns)
{
	struct drm_weave_wait args = {
		.stream = stream,
		.timeout_ns = timeout_ns,
	};

	return shim_ioctl(fd, DRM_IOCTL_WEAVE_WAIT, &args);
}

WEAVE_PUBLIC int weave_wait_seqno(int fd, uint32_t stream, uint64_t seqno,
				  int64_t timeout_ns)
{
	struct drm_weave_wait args = {
		.stream = stream,
		.flags = DRM_WEAVE_WAIT_SEQNO,
		.timeout_ns = timeout_ns,
		.seqno = seqno,
	};

	return shim_ioctl(fd, DRM_IOCTL_WEAVE_WAIT, &args);
}

WEAVE_PUBLIC int64_t weave_timeout_ns(int64_t rel_ns)
{
	struct timespec now;
	int64_t base;

	clock_gettime(CLOCK_MONOTONIC, &now);
	base = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	if (rel_ns > 0 && base > INT64_MAX - rel_ns)
		return INT64_MAX;
	if (rel_ns < 0 && base + rel_ns < 0)
		return 0;
	return base + rel_ns;
}

WEAVE_PUBLIC int weave_set_param(int fd, uint32_t param, uint64_t value)
{
	struct drm_weave_set_param args = { .param = param, .value = value };

	return shim_ioctl(fd, DRM_IOCTL_WEAVE_SET_PARAM, &args);
}
