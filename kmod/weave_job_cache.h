/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the recycling of a client's freed jobs and of their task arrays,
 * and the count of the bytes of those arrays.
 */

#ifndef _WEAVE_JOB_CACHE_H_
#define _WEAVE_JOB_CACHE_H_

#include <linux/llist.h>
#include <linux/types.h>

struct weave_ectx;
struct weave_job;

void weave_eng_job_bytes_add(struct weave_ectx *ctx, u32 n);
void weave_eng_job_bytes_sub(struct weave_ectx *ctx, u32 n);
void weave_eng_job_free_arrays(struct weave_job *job);
bool weave_eng_job_recycle(struct weave_ectx *ctx, struct weave_job *job);
struct weave_job *weave_eng_job_reuse(struct weave_ectx *ctx, size_t size);
void weave_eng_job_cache_free(struct llist_node *first);
void weave_eng_job_spare_put(struct weave_job *job);
void *weave_eng_job_spare_take(struct weave_ectx *ctx);
void weave_eng_job_set_task_hint(struct weave_ectx *ctx, u32 task_hint);
void weave_eng_job_spares_free(struct weave_ectx *ctx);

#endif /* _WEAVE_JOB_CACHE_H_ */
