/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: FLUSH (and its out-sync) and WAIT.
 */
#ifndef _WEAVE_FLUSH_H_
#define _WEAVE_FLUSH_H_

#include <linux/types.h>

struct dma_fence;
struct dma_fence_chain;
struct dma_resv;
struct drm_device;
struct drm_file;
struct drm_syncobj;
struct drm_weave_flush;
struct weave_client;
struct weave_join;
struct weave_proxy;

/**
 * struct weave_flush_out - What a FLUSH needs to set its out-sync,
 * allocated before it submits.
 * @syncobj: The out-sync's syncobj, a reference, or NULL.
 * @chain: For a timeline point, its chain node.
 * @proxy: The proxy fence of one stream's slot.
 * @join: The joined fence of every slot, for %DRM_WEAVE_FLUSH_ALL.
 */
struct weave_flush_out {
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
	struct weave_proxy *proxy;
	struct weave_join *join;
};

int weave_flush_ioctl(struct drm_device *drm, void *data,
		      struct drm_file *file);
int weave_client_flush_all(struct weave_client *c);
int weave_flush_refused(void);
int weave_flush_out_get(struct weave_client *c, struct drm_file *file,
			const struct drm_weave_flush *args,
			struct weave_flush_out *out);
int weave_flush_locked(struct weave_client *c,
		       const struct drm_weave_flush *args,
		       struct weave_flush_out *out, struct dma_fence **fence);
void weave_flush_out_set(struct weave_flush_out *out, struct dma_fence *fence,
			 u64 point);
void weave_flush_out_put(struct weave_flush_out *out);
int weave_wait_resv(struct dma_resv *resv, s64 deadline_ns);
int weave_wait_ioctl(struct drm_device *drm, void *data,
		     struct drm_file *file);

#endif /* _WEAVE_FLUSH_H_ */
