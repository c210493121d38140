/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the soft engine's staging of host-write bytes.
 */
#ifndef _WEAVE_STAGING_H_
#define _WEAVE_STAGING_H_

#include <linux/types.h>

struct weave_ectx;

void *weave_eng_staging_get(struct weave_ectx *ctx, u32 slot, u32 len,
			    bool arena);
u64 weave_eng_staging_reclaimed(struct weave_ectx *ctx, u32 slot);
int weave_eng_staging_wait(struct weave_ectx *ctx, u32 slot, u64 seen,
			   u32 timeout_ms);
void weave_eng_staging_drop(struct weave_ectx *ctx, void *data, u64 len);
void weave_eng_staging_free(struct weave_ectx *ctx, void *data, u64 len);

#endif /* _WEAVE_STAGING_H_ */
