/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the soft engine's side of the failure graph: which task runs or
 * is skipped, and what each leaves on the bytes it writes.
 */
#ifndef _WEAVE_PROPAGATE_H_
#define _WEAVE_PROPAGATE_H_

#include <linux/types.h>

struct weave_ectx;
struct weave_entry;
struct weave_etask;
struct weave_job;
struct weave_tally;

int weave_eng_ctx_fail_reserve(struct weave_ectx *ctx,
			       const struct weave_entry *entries, u32 n,
			       bool queued_only);
void weave_eng_ctx_fail_usage(struct weave_ectx *ctx, u64 *claims, u64 *records,
			      u64 *bytes);
int weave_eng_task_execute(struct weave_job *job, struct weave_etask *t,
			   const struct weave_tally *tally, u32 pos);
int weave_eng_job_fail_from(struct weave_job *job, u32 first,
			    const struct weave_tally *tally, u32 pos, int err);

#endif /* _WEAVE_PROPAGATE_H_ */
