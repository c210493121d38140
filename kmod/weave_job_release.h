/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the release of what a completed job held for its run, outside
 * the fences' signalling path, and the job's two references.
 */

#ifndef _WEAVE_JOB_RELEASE_H_
#define _WEAVE_JOB_RELEASE_H_

struct weave_job;

void weave_eng_job_put(struct weave_job *job);
void weave_eng_job_completed(struct weave_job *job);
void weave_eng_job_release_kick(void);
void weave_eng_job_release_now(void);
void weave_eng_job_release_drain(void);

#endif /* _WEAVE_JOB_RELEASE_H_ */
