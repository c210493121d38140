/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the soft engine's hardware queues and the worker that runs jobs on
 * them.
 */
#ifndef _WEAVE_QUEUE_H_
#define _WEAVE_QUEUE_H_

#include <linux/types.h>

struct device;
struct weave_engine;
struct weave_job;
struct weave_limits;

struct weave_engine *weave_eng_create(struct device *dev,
				      const struct weave_limits *limits);
void weave_eng_fini(struct weave_engine *engine);
bool weave_eng_queue_run_now(struct weave_job *job, bool settled);

#endif /* _WEAVE_QUEUE_H_ */
