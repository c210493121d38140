/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the doorbell of shared submission rings.
 */
#ifndef _WEAVE_SRING_ENTER_H_
#define _WEAVE_SRING_ENTER_H_

#include <linux/types.h>

struct drm_device;
struct drm_file;
struct weave_client;
struct weave_sring;

/**
 * struct weave_sring_fault - A host write's bytes that a consume could not
 * read with page faults disabled.
 * @ptr: Their user address.
 * @len: Their length; zero if none is to be faulted in.
 */
struct weave_sring_fault {
	u64 ptr;
	u64 len;
};

int weave_ring_enter_ioctl(struct drm_device *drm, void *data,
			   struct drm_file *file);
int weave_sring_poll_ring(struct weave_client *c, struct weave_sring *r,
			  u32 budget, struct weave_sring_fault *fault);

#endif /* _WEAVE_SRING_ENTER_H_ */
