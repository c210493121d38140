/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the push of a soft-engine job to its scheduler entity.
 */
#ifndef _WEAVE_PUSH_H_
#define _WEAVE_PUSH_H_

struct weave_job;

int weave_eng_job_push(struct weave_job *job);

#endif /* _WEAVE_PUSH_H_ */
