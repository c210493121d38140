/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the soft engine as the scheduler core's backend: its ops, the
 * encoding of a task, and a client's engine context cut short.
 */
#ifndef _WEAVE_BACKEND_H_
#define _WEAVE_BACKEND_H_

#include <linux/types.h>

struct weave_backend_ops;
struct weave_ebinding;
struct weave_ectx;
struct weave_etask;
struct weave_job;
struct weave_entry;

extern const struct weave_backend_ops weave_eng_ops;

void weave_eng_etask_fill(struct weave_etask *t, const struct weave_entry *task,
			  struct weave_ebinding *more);
void weave_eng_job_take_gates(struct weave_job *job, u32 slot);
void weave_eng_ctx_abort(struct weave_ectx *ctx, int err);
bool weave_eng_ctx_held(struct weave_ectx *ctx);

#endif /* _WEAVE_BACKEND_H_ */
