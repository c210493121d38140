/* SPDX-License-Identifier: MIT */
/*
 * Out-of-line copies of weave.h's static inline helpers, which bindgen
 * cannot bind, and the C sizes of the uAPI structs, for the crate's tests.
 */
#ifndef _WEAVE_SYS_SHIM_H_
#define _WEAVE_SYS_SHIM_H_

#include <stddef.h>
#include <stdint.h>

#include "weave.h"

int weave_sys_query_device_info(int fd, struct drm_weave_device_info *info);
int weave_sys_query_memory_usage(int fd, struct drm_weave_memory_usage *usage);
int weave_sys_query_client_usage(int fd, struct drm_weave_client_usage *usage);
int weave_sys_stream_query(int fd, uint32_t stream,
			   struct drm_weave_stream_query *query);
int weave_sys_enqueue_ex(int fd, uint32_t stream, uint32_t flags,
			 const struct drm_weave_task *tasks, uint32_t count,
			 const struct drm_weave_sync *in_syncs,
			 uint32_t in_count,
			 const struct drm_weave_sync *out_syncs,
			 uint32_t out_count, uint64_t *seqno);
int weave_sys_flush(int fd, uint32_t stream,
		    const struct drm_weave_sync *out_sync);
int weave_sys_flush_all(int fd, const struct drm_weave_sync *out_sync);
int weave_sys_check(int fd, struct drm_weave_check_range *ranges,
		    uint32_t count, struct drm_weave_failure *failures,
		    uint32_t *nfailures, struct drm_weave_failure_task *skips,
		    uint32_t *nskips);
int weave_sys_read(int fd, uint32_t handle, uint64_t offset, uint64_t size,
		   void *data, int64_t timeout_ns,
		   struct drm_weave_failure *failures, uint32_t *nfailures,
		   struct drm_weave_failure_task *skips, uint32_t *nskips);
int weave_sys_failure_format(char *buf, size_t len,
			     const struct drm_weave_failure *failure,
			     const struct drm_weave_failure_task *skips);
int weave_sys_capture(int fd, uint32_t stream, uint32_t op,
		      struct drm_weave_capture *out);
int weave_sys_replay(int fd, uint32_t graph, uint32_t stream,
		     const struct drm_weave_sync *in, uint32_t nin,
		     const struct drm_weave_sync *out_sync, uint64_t *seqno);

/*
 * sizeof() of a uAPI struct as the C compiler lays it out, by name
 * ("drm_weave_task"); 0 for a name it does not know.
 */
size_t weave_sys_sizeof(const char *name);

#endif /* _WEAVE_SYS_SHIM_H_ */
