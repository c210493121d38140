/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the soft engine's built-in kernels and host writes.
 */
#ifndef _WEAVE_KERNELS_H_
#define _WEAVE_KERNELS_H_

struct weave_etask;
struct weave_job;

int weave_eng_run_task(struct weave_job *job, struct weave_etask *t);

#endif /* _WEAVE_KERNELS_H_ */
