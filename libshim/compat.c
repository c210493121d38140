// SPDX-License-Identifier: MIT
/*
 * libweave: the WEAVE_1.0 symbols of the functions that weave.h 1.1 made
 * static inline.
 *
 * Programs linked against libweave 1.0 still call these.  Their struct
 * sizes are frozen at those of libweave 1.0, whatever uAPI header the
 * library is built with: a uAPI whose structs grew at their end must not
 * make them write or read past the structs of a program built before.
 * They are bound to the node WEAVE_1.0 as non-default versions, so new
 * programs cannot link to them: those use the inline helpers of weave.h.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "weave.h"
#include "private.h"

#define offsetofend(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member))

/* The struct sizes of libweave 1.0: up to their last field then. */
#define BINDING_1_0	offsetofend(struct drm_weave_binding, size)
#define TASK_1_0	offsetofend(struct drm_weave_task, data)
#define SYNC_1_0	offsetofend(struct drm_weave_sync, timeline_value)
#define STREAM_QUERY_1_0 offsetofend(struct drm_weave_stream_query, pad2)
#define DEVICE_INFO_1_0	offsetofend(struct drm_weave_device_info, pad)
#define MEMORY_USAGE_1_0 offsetofend(struct drm_weave_memory_usage, live_bytes)
#define CLIENT_USAGE_1_0 offsetofend(struct drm_weave_client_usage, gate_bytes)

/* Defines the WEAVE_1.0 symbol @name, which new programs cannot link. */
#define WEAVE_1_0(name) \
	__attribute__((visibility("default"), symver(#name "@WEAVE_1.0")))

/* The two structs 1.0 returned by value, as they were. */
struct binding_1_0 {
	__u32 handle;
	__u32 access;
	__u64 offset;
	__u64 size;
};

struct sync_1_0 {
	__u32 flags;
	__u32 handle;
	__u64 timeline_value;
};

static_assert(sizeof(struct binding_1_0) == BINDING_1_0, "binding 1.0");
static_assert(sizeof(struct sync_1_0) == SYNC_1_0, "sync 1.0");

WEAVE_1_0(weave_binding) struct binding_1_0
compat_binding(uint32_t handle, uint32_t access, uint64_t offset,
	       uint64_t size)
{
	struct binding_1_0 binding = {
		.handle = handle,
		.access = access,
		.offset = offset,
		.size = size,
	};

	return binding;
}

WEAVE_1_0(weave_sync) struct sync_1_0
compat_sync(uint32_t handle, uint64_t point)
{
	struct sync_1_0 sync = {
		.handle = handle,
		.timeline_value = point,
	};

	return sync;
}

WEAVE_1_0(weave_task_launch) void
compat_task_launch(struct drm_weave_task *task, uint32_t kernel,
		   const struct drm_weave_binding *bindings, uint32_t count,
		   const void *uniforms, uint32_t size)
{
	memset(task, 0, TASK_1_0);
	task->type = DRM_WEAVE_TASK_LAUNCH;
	task->kernel = kernel;
	task->bindings.ptr = (uintptr_t)bindings;
	task->bindings.stride = BINDING_1_0;
	task->bindings.count = count;
	task->uniforms = (uintptr_t)uniforms;
	task->uniforms_size = size;
}

WEAVE_1_0(weave_task_host_write) void
compat_task_host_write(struct drm_weave_task *task,
		       const struct drm_weave_binding *binding,
		       const void *data)
{
	memset(task, 0, TASK_1_0);
	task->type = DRM_WEAVE_TASK_HOST_WRITE;
	task->bindings.ptr = (uintptr_t)binding;
	task->bindings.stride = BINDING_1_0;
	task->bindings.count = 1;
	task->data = (uintptr_t)data;
}

WEAVE_1_0(weave_enqueue) int
compat_enqueue(int fd, uint32_t stream, const struct drm_weave_task *tasks,
	       uint32_t count, const struct drm_weave_sync *in_syncs,
	       uint32_t in_count, uint64_t *seqno)
{
	struct drm_weave_enqueue args = {
		.stream = stream,
		.tasks = {
			.ptr = (uintptr_t)tasks,
			.stride = TASK_1_0,
			.count = count,
		},
		.in_syncs = {
			.ptr = (uintptr_t)in_syncs,
			.stride = SYNC_1_0,
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

static int flush_1_0(int fd, uint32_t stream, uint32_t flags,
		     const struct drm_weave_sync *out_sync)
{
	struct drm_weave_flush args = {
		.stream = stream,
		.flags = flags,
	};

	if (out_sync)
		memcpy(&args.out_sync, out_sync, SYNC_1_0);
	return shim_ioctl(fd, DRM_IOCTL_WEAVE_FLUSH, &args);
}

WEAVE_1_0(weave_flush) int
compat_flush(int fd, uint32_t stream, const struct drm_weave_sync *out_sync)
{
	return flush_1_0(fd, stream, 0, out_sync);
}

WEAVE_1_0(weave_flush_all) int
compat_flush_all(int fd, const struct drm_weave_sync *out_sync)
{
	return flush_1_0(fd, 0, DRM_WEAVE_FLUSH_ALL, out_sync);
}

WEAVE_1_0(weave_stream_query) int
compat_stream_query(int fd, uint32_t stream,
		    struct drm_weave_stream_query *query)
{
	struct drm_weave_stream_query args = { .stream = stream };
	int ret;

	/* The DRM core copies in and out the size the request encodes. */
	ret = shim_ioctl(fd, DRM_IOC(DRM_IOC_READWRITE, DRM_IOCTL_BASE,
				     DRM_COMMAND_BASE + DRM_WEAVE_STREAM_QUERY,
				     STREAM_QUERY_1_0), &args);
	if (ret)
		return ret;
	memcpy(query, &args, STREAM_QUERY_1_0);
	return 0;
}

static int query_1_0(int fd, uint32_t type, void *data, uint32_t size)
{
	return weave_query(fd, type, data, &size);
}

WEAVE_1_0(weave_query_device_info) int
compat_query_device_info(int fd, struct drm_weave_device_info *info)
{
	return query_1_0(fd, DRM_WEAVE_QUERY_DEVICE_INFO, info,
			 DEVICE_INFO_1_0);
}

WEAVE_1_0(weave_query_memory_usage) int
compat_query_memory_usage(int fd, struct drm_weave_memory_usage *usage)
{
	return query_1_0(fd, DRM_WEAVE_QUERY_MEMORY_USAGE, usage,
			 MEMORY_USAGE_1_0);
}

WEAVE_1_0(weave_query_client_usage) int
compat_query_client_usage(int fd, struct drm_weave_client_usage *usage)
{
	return query_1_0(fd, DRM_WEAVE_QUERY_CLIENT_USAGE, usage,
			 CLIENT_USAGE_1_0);
}
