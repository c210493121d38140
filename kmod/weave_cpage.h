/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the completion area, one read-only page range per client with
 * every stream's completed count.
 */
#ifndef _WEAVE_CPAGE_H_
#define _WEAVE_CPAGE_H_

#include <linux/types.h>

struct drm_device;
struct drm_file;
struct file;
struct vm_area_struct;
struct weave_client;
struct weave_lstream;

int weave_completions_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file);
int weave_cpage_mmap(struct file *filp, struct vm_area_struct *vma);
void weave_cpage_stream_new(struct weave_client *c, struct weave_lstream *ls);
void weave_cpage_fini(struct weave_client *c);

#endif /* _WEAVE_CPAGE_H_ */
