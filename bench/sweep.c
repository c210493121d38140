// SPDX-License-Identifier: MIT
/*
 * weave-bench: the sweep, each configuration of noop tasks (batch, streams,
 * strategy, threshold) on a fresh file, and -c for one of them.
 */
#include "bench.h"

static const uint32_t batches[] = { 1, 8, 64 };
static const uint32_t stream_counts[] = { 1, 8, 64, 1024 };
static const uint32_t strategies[] = {
	DRM_WEAVE_STRATEGY_INTERLEAVE, DRM_WEAVE_STRATEGY_SEQUENTIAL,
};

static const uint32_t thresholds[] = { 1, 8, 64, 1024 };

#define NB	ARRAY_SIZE(batches)
#define NS	ARRAY_SIZE(stream_counts)
#define NG	ARRAY_SIZE(strategies)
#define NT	ARRAY_SIZE(thresholds)

/* Runs one configuration; returns ns per task, 0 if skipped, <0 on error. */
double run(const struct drm_weave_device_info *info, uint32_t tasks,
	   uint32_t batch, uint32_t nstreams, uint32_t strategy,
	   uint32_t threshold, int *err)
{
	struct drm_weave_task noop[64];
	uint32_t *streams, i, done, syncobj = 0;
	double start, elapsed = -1;
	int fd, ret;

	*err = 0;
	if (nstreams > info->max_client_streams || threshold > info->max_tasks ||
	    batch > info->max_tasks_per_enqueue)
		return 0;
	fd = weave_device_open(0);
	if (fd < 0) {
		*err = fd;
		return -1;
	}
	streams = calloc(nstreams, sizeof(*streams));
	ret = streams ? 0 : -ENOMEM;
	if (!ret && drmSyncobjCreate(fd, 0, &syncobj))
		ret = -errno;
	if (!ret)
		ret = weave_set_param(fd, DRM_WEAVE_PARAM_STRATEGY, strategy);
	if (!ret)
		ret = weave_set_param(fd, DRM_WEAVE_PARAM_MAX_TASKS, threshold);
	for (i = 0; !ret && i < nstreams; i++)
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL,
					  &streams[i]);
	for (i = 0; i < batch; i++)
		weave_task_launch(&noop[i], DRM_WEAVE_KERNEL_NOOP, NULL, 0,
				  NULL, 0);

	/*
	 * Warm up: one batch on every stream, so that slots' rings and
	 * backend streams, created on first use, are not timed.
	 */
	for (i = 0; !ret && i < nstreams; i++)
		ret = weave_enqueue(fd, streams[i], noop, batch, NULL, 0, NULL);
	if (!ret)
		ret = drain(fd, syncobj);

	start = now_ns();
	for (done = 0, i = 0; !ret && done < tasks; i++) {
		ret = weave_enqueue(fd, streams[i % nstreams], noop, batch,
				    NULL, 0, NULL);
		if (ret == -EBUSY) {
			/* max_pending_tasks: let the queue drain. */
			ret = drain(fd, syncobj);
			i--;
			continue;
		}
		done += batch;
	}
	if (!ret)
		ret = drain(fd, syncobj);
	if (!ret)
		elapsed = (now_ns() - start) / done;
	/* Untimed: every stream completed its work without an error. */
	for (i = 0; !ret && i < nstreams; i++)
		ret = weave_wait(fd, streams[i], 0);

	free(streams);
	weave_device_close(fd);
	*err = ret;
	return ret ? -1 : elapsed;
}

static const char *strategy_name(uint32_t strategy)
{
	return strategy == DRM_WEAVE_STRATEGY_INTERLEAVE ? "interleave" :
							   "sequential";
}

/* "-c BATCH,STREAMS,STRATEGY,MAX_TASKS [TASKS]": one configuration only. */
int run_one(const struct drm_weave_device_info *info, const char *spec,
	    uint32_t tasks)
{
	unsigned int b, s, t, k;
	char g[16];
	double ns;
	int err;

	if (sscanf(spec, "%u,%u,%15[a-z],%u", &b, &s, g, &t) != 4) {
		fprintf(stderr, "weave-bench: bad configuration '%s'\n", spec);
		return 2;
	}
	for (k = 0; k < NG && strcmp(g, strategy_name(strategies[k])); k++)
		;
	if (k == NG) {
		fprintf(stderr, "weave-bench: unknown strategy '%s'\n", g);
		return 2;
	}
	ns = run(info, tasks, b, s, strategies[k], t, &err);
	if (ns <= 0) {
		fprintf(stderr, "weave-bench: %s: %s\n", spec,
			ns < 0 ? strerror(-err) : "over a device limit");
		return 1;
	}
	printf("config batch %u streams %u strategy %s max_tasks %u ns_per_task %.0f\n",
	       b, s, g, t, ns);
	return 0;
}

/*
 * Every configuration of the sweep, @tasks noop tasks each, one line each.
 * Returns 1 if one failed, else 0.
 */
int print_sweep(const struct drm_weave_device_info *info, uint32_t tasks)
{
	unsigned int b, s, g, t, k;
	int err, failed = 0;
	double ns;

	for (k = 0; k < NB * NS * NG * NT; k++) {
		t = k % NT;
		g = k / NT % NG;
		s = k / (NT * NG) % NS;
		b = k / (NT * NG * NS);
		ns = run(info, tasks, batches[b], stream_counts[s],
			 strategies[g], thresholds[t], &err);

		printf("config batch %u streams %u strategy %s max_tasks %u ",
		       batches[b], stream_counts[s],
		       strategy_name(strategies[g]), thresholds[t]);
		if (ns < 0) {
			printf("error %s\n", strerror(-err));
			failed = 1;
		} else if (ns == 0) {
			printf("skipped (over a device limit)\n");
		} else {
			printf("ns_per_task %.0f tasks_per_s %.0f\n", ns,
			       1e9 / ns);
		}
		fflush(stdout);
	}
	return failed;
}
