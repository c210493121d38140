// SPDX-License-Identifier: MIT
/*
 * Out-of-line copies of weave.h's static inline helpers for the Rust
 * bindings: each only calls the helper it is named after.
 */
#include <string.h>

#include "shim.h"

int weave_sys_query_device_info(int fd, struct drm_weave_device_info *info)
{
	return weave_query_device_info(fd, info);
}

int weave_sys_query_memory_usage(int fd, struct drm_weave_memory_usage *usage)
{
	return weave_query_memory_usage(fd, usage);
}

int weave_sys_query_client_usage(int fd, struct drm_weave_client_usage *usage)
{
	return weave_query_client_usage(fd, usage);
}

int weave_sys_stream_query(int fd, uint32_t stream,
			   struct drm_weave_stream_query *query)
{
	return weave_stream_query(fd, stream, query);
}

int weave_sys_enqueue_ex(int fd, uint32_t stream, uint32_t flags,
			 const struct drm_weave_task *tasks, uint32_t count,
			 const struct drm_weave_sync *in_syncs,
			 uint32_t in_count,
			 const struct drm_weave_sync *out_syncs,
			 uint32_t out_count, uint64_t *seqno)
{
	return weave_enqueue_ex(fd, stream, flags, tasks, count, in_syncs,
				in_count, out_syncs, out_count, seqno);
}

int weave_sys_flush(int fd, uint32_t stream,
		    const struct drm_weave_sync *out_sync)
{
	return weave_flush(fd, stream, out_sync);
}

int weave_sys_flush_all(int fd, const struct drm_weave_sync *out_sync)
{
	return weave_flush_all(fd, out_sync);
}

int weave_sys_check(int fd, struct drm_weave_check_range *ranges,
		    uint32_t count, struct drm_weave_failure *failures,
		    uint32_t *nfailures, struct drm_weave_failure_task *skips,
		    uint32_t *nskips)
{
	return weave_check(fd, ranges, count, failures, nfailures, skips,
			   nskips);
}

int weave_sys_read(int fd, uint32_t handle, uint64_t offset, uint64_t size,
		   void *data, int64_t timeout_ns,
		   struct drm_weave_failure *failures, uint32_t *nfailures,
		   struct drm_weave_failure_task *skips, uint32_t *nskips)
{
	return weave_read(fd, handle, offset, size, data, timeout_ns,
			  failures, nfailures, skips, nskips);
}

int weave_sys_failure_format(char *buf, size_t len,
			     const struct drm_weave_failure *failure,
			     const struct drm_weave_failure_task *skips)
{
	return weave_failure_format(buf, len, failure, skips);
}

int weave_sys_capture(int fd, uint32_t stream, uint32_t op,
		      struct drm_weave_capture *out)
{
	return weave_capture(fd, stream, op, out);
}

int weave_sys_replay(int fd, uint32_t graph, uint32_t stream,
		     const struct drm_weave_sync *in, uint32_t nin,
		     const struct drm_weave_sync *out_sync, uint64_t *seqno)
{
	return weave_replay(fd, graph, stream, in, nin, out_sync, seqno);
}

#define SIZE_OF(s) { #s, sizeof(struct s) }

size_t weave_sys_sizeof(const char *name)
{
	static const struct {
		const char *name;
		size_t size;
	} sizes[] = {
		SIZE_OF(drm_weave_device_info),
		SIZE_OF(drm_weave_memory_usage),
		SIZE_OF(drm_weave_client_usage),
		SIZE_OF(drm_weave_binding),
		SIZE_OF(drm_weave_task),
		SIZE_OF(drm_weave_sync),
		SIZE_OF(drm_weave_enqueue),
		SIZE_OF(drm_weave_stream_query),
		SIZE_OF(drm_weave_check_range),
		SIZE_OF(drm_weave_failure),
		SIZE_OF(drm_weave_failure_task),
		SIZE_OF(drm_weave_capture),
	};
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (!strcmp(sizes[i].name, name))
			return sizes[i].size;
	return 0;
}
