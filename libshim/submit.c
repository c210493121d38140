// SPDX-License-Identifier: MIT
/*
 * libweave: building tasks, enqueue and flush.
 */
#include <stdint.h>
#include <string.h>

#include "weave.h"
#include "private.h"

WEAVE_PUBLIC struct drm_weave_binding weave_binding(uint32_t handle,
						    uint32_t access,
						    uint64_t offset,
						    uint64_t size)
{
	struct drm_weave_binding binding = {
		.handle = handle,
		.access = access,
		.offset = offset,
		.size = size,
	};

	return binding;
}

WEAVE_PUBLIC void weave_task_launch(struct drm_weave_task *task,
				    uint32_t kernel,
				    const struct drm_weave_binding *bindings,
				    uint32_t count, const void *uniforms,
				    uint32_t size)
{
	memset(task, 0, sizeof(*task));
	task->type = DRM_WEAVE_TASK_LAUNCH;
	task->kernel = kernel;
	task->bindings.ptr = (uintptr_t)bindings;
	task->bindings.stride = sizeof(*bindings);
	task->bindings.count = count;
	task->uniforms = (uintptr_t)uniforms;
	task->uniforms_size = size;
}

WEAVE_PUBLIC void weave_task_host_write(struct drm_weave_task *task,
					const struct drm_weave_binding *binding,
					const void *data)
{
	memset(task, 0, sizeof(*task));
	task->type = DRM_WEAVE_TASK_HOST_WRITE;
	task->bindings.ptr = (uintptr_t)binding;
	task->bindings.stride = sizeof(*binding);
	task->bindings.count = 1;
	task->data = (uintptr_t)data;
}

WEAVE_PUBLIC struct drm_weave_sync weave_sync(uint32_t handle, uint64_t point)
{
	struct drm_weave_sync sync = {
		.handle = handle,
		.timeline_value = point,
	};

	return sync;
}

WEAVE_PUBLIC int weave_enqueue(int fd, uint32_t stream,
			       const struct drm_weave_task *tasks,
			       uint32_t count,
			       const struct drm_weave_sync *in_syncs,
			       uint32_t in_count, uint64_t *seqno)
{
	struct drm_weave_enqueue args = {
		.stream = stream,
		.tasks = {
			.ptr = (uintptr_t)tasks,
			.stride = sizeof(*tasks),
			.count = count,
		},
		.in_syncs = {
			.ptr = (uintptr_t)in_syncs,
			.stride = sizeof(*in_syncs),
			.count = in_count,
		},
	};
	int ret;

	ret = shim_ioctl(fd, DRM_IOCTL_WEAVE_ENQUEUE, &args);
	if (ret)
		return ret;
	if (seqno)
		*seqno = args.seqno;
	return 0;
}

static int flush(int fd, uint32_t stream, uint32_t flags,
		 const struct drm_weave_sync *out_sync)
{
	struct drm_weave_flush args = {
		.stream = stream,
		.flags = flags,
	};

	if (out_sync)
		args.out_sync = *out_sync;
	return shim_ioctl(fd, DRM_IOCTL_WEAVE_FLUSH, &args);
}

WEAVE_PUBLIC int weave_flush(int fd, uint32_t stream,
			     const struct drm_weave_sync *out_sync)
{
	return flush(fd, stream, 0, out_sync);
}

WEAVE_PUBLIC int weave_flush_all(int fd, const struct drm_weave_sync *out_sync)
{
	return flush(fd, 0, DRM_WEAVE_FLUSH_ALL, out_sync);
}
