/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the failure graph's taints of a buffer: claims of failures on its
 * byte ranges.
 */
#ifndef _WEAVE_TAINTS_H_
#define _WEAVE_TAINTS_H_

#include <linux/types.h>

#include "weave_failure.h"

void weave_fg_taints_init(struct weave_taints *taints);
void weave_fg_taints_fini(struct weave_failures *graph,
			  struct weave_taints *taints);
int weave_fg_taints_claim(struct weave_failures *graph,
			  struct weave_taints *taints, u64 off, u64 len,
			  struct weave_failure *failure,
			  struct weave_fstash *stash);
int weave_fg_taints_release(struct weave_failures *graph,
			    struct weave_taints *taints, u64 off, u64 len,
			    struct weave_fstash *stash);
bool weave_fg_taints_any(struct weave_failures *graph,
			 struct weave_taints *taints, u64 off, u64 len);
struct weave_failure *weave_fg_taints_first(struct weave_failures *graph,
					    struct weave_taints *taints,
					    u64 off, u64 len);
u32 weave_fg_taints_list_locked(struct weave_failures *graph,
				struct weave_taints *taints, u64 off, u64 len,
				struct weave_failure **out, u32 *buffers,
				u32 max);
u32 weave_fg_taints_list(struct weave_failures *graph,
			 struct weave_taints *taints, u64 off, u64 len,
			 struct weave_failure **out, u32 *buffers, u32 max);

#endif /* _WEAVE_TAINTS_H_ */
