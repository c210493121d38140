/* SPDX-License-Identifier: MIT */
/*
 * weave-bench: what the benchmark's parts share: timing, statistics, the
 * run of one configuration and each part's entry point.
 */
#ifndef WEAVE_BENCH_H
#define WEAVE_BENCH_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "weave.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Interleaved rounds of every ratio measured in rounds. */
#define ROUNDS		5
/* Tasks of each target configuration in a round. */
#define TARGET_TASKS	65536

/*
 * A ratio's target: @op is '<' (at most @value), '>' (at least), '~'
 * (about) or 0 (none).
 */
struct target {
	char op;
	double value;
};

/* util.c */
double now_ns(void);
int drain(int fd, uint32_t syncobj);
double ratio(double a, double b);
double median(double *v, unsigned int n);
void print_ratio(const char *name, double value, struct target t);

/* sweep.c */
double run(const struct drm_weave_device_info *info, uint32_t tasks,
	   uint32_t batch, uint32_t nstreams, uint32_t strategy,
	   uint32_t threshold, int *err);
int run_one(const struct drm_weave_device_info *info, const char *spec,
	    uint32_t tasks);
int print_sweep(const struct drm_weave_device_info *info, uint32_t tasks);

/* memory.c */
int print_memory(const struct drm_weave_device_info *info,
		 double *bytes_per_task);

/* floors.c */
double empty_ioctl_ns(int fd);
double getppid_ns(void);
int uring_check(void);
double uring_nop_ns(void);
double wakeup_ns(void);

/* ring.c */
double ring_task_ns(const struct drm_weave_device_info *info, uint32_t tasks,
		    uint32_t *entered, int *err);
int print_ring_one(const struct drm_weave_device_info *info, uint32_t tasks);

/* fenced.c */
double job_ns(const struct drm_weave_device_info *info, uint32_t jobs,
	      int *err);
double fenced_submit_ns(const struct drm_weave_device_info *info, uint32_t n,
			bool two, int *err);
int print_submit_one(const struct drm_weave_device_info *info, uint32_t n);

/* targets.c */
int print_targets(const struct drm_weave_device_info *info,
		  double bytes_per_task);
int print_job_one(const struct drm_weave_device_info *info, uint32_t jobs);

/* pending.c */
int print_pending_ratio(const struct drm_weave_device_info *info);

/* taints.c */
int print_taint_ratio(const struct drm_weave_device_info *info);

/* replay.c */
int print_replay_ratios(const struct drm_weave_device_info *info);
int print_replay_one(const struct drm_weave_device_info *info, uint32_t n,
		     bool replay, uint32_t tasks);

#endif /* WEAVE_BENCH_H */
