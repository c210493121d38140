/* SPDX-License-Identifier: GPL-2.0-only */
/* Test stand-in for <drm/drm_gem.h>: an object is its reservation. */
#ifndef _WEAVE_TEST_DRM_DRM_GEM_H
#define _WEAVE_TEST_DRM_DRM_GEM_H

#include <linux/dma-resv.h>

struct drm_gem_object {
	struct dma_resv *resv;
	struct dma_resv _resv;
};

#endif
