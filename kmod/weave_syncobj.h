/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the guard in front of the DRM core's syncobj ioctls.
 */
#ifndef _WEAVE_SYNCOBJ_H_
#define _WEAVE_SYNCOBJ_H_

#include <linux/compiler_types.h>
#include <linux/types.h>

struct file;

bool weave_syncobj_guard(struct file *filp, unsigned int cmd,
			 void __user *uarg, long *ret);

#endif /* _WEAVE_SYNCOBJ_H_ */
