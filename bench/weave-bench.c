// SPDX-License-Identifier: MIT
/*
 * weave-bench: noop-task throughput of the scheduler, against baselines
 * measured in the same run.
 *
 * Every configuration opens a fresh file, sets its strategy and threshold
 * (max_tasks), creates its streams, warms every stream up, then enqueues a
 * fixed number of noop tasks round-robin over the streams in batches, and
 * ends with a flush of every stream with an out-fence and one wait on it,
 * so completion is included.  Afterwards, untimed, every stream must have
 * completed without an error.  Baselines: the conventional driver path
 * (one task per ioctl and one job per task: batch 1, max_tasks 1,
 * sequential) and an empty ioctl (a size-0 QUERY).
 *
 * Prints one line per configuration of the sweep, the kernel memory per
 * pending task (from %DRM_WEAVE_QUERY_CLIENT_USAGE, with noop tasks left
 * queued below the threshold: once with the rings half full, once as full
 * as they get), then the target configurations, measured again in ROUNDS
 * interleaved rounds at the device's largest max_tasks, and the targets as
 * "ratio NAME VALUE" lines: the median over the rounds of each round's
 * ratio.  Exits 1 if a configuration fails.
 *
 * Last, the cost of a task against the jobs pending on its buffer: on one
 * stream held back by a gate, with max_tasks 1 (a job per task), every
 * task writes the same buffer; the time per task of windows of
 * PENDING_WINDOW tasks enqueued with about 1k to 6k jobs pending (the
 * median of five) is compared with that of as many with about 60k to 64k
 * pending, in the same run, as "ratio pending_64k_vs_1k".
 * Each job waits for its stream's previous one only, so it should stay
 * near 1.
 *
 * And the cost of failure tracking: FILL tasks round-robin over
 * TAINT_BUFFERS buffers, each writing the first quarter of its buffer,
 * first with no buffer carrying a failure, then with a tenth of them
 * carrying one on their second half (a FAIL wrote it, untimed), which the
 * fills do not touch but the tracking must look up.  Measured in ROUNDS
 * interleaved rounds, as "ratio taints_tenth_vs_clean", which should stay
 * near 1.
 *
 * And graph replay (uAPI 1.5): a graph of N noop tasks replayed, against
 * the same N tasks enqueued and flushed, each REPLAY_TASKS tasks in all,
 * for N of 8, 64 and 512, in ROUNDS interleaved rounds, as "ratio
 * replay_vs_enqueue_N" (and "ratio replay_vs_enqueue" for N = 64): the
 * time per task of a replay over that of an enqueue, below 1 when the
 * replay is cheaper.
 *
 * Usage: weave-bench [TASKS]      the sweep (TASKS per configuration,
 *                                 default 16384), memory and targets
 *        weave-bench -t           the targets only
 *        weave-bench -p           the pending-jobs ratio only
 *        weave-bench -f           the failure-tracking ratio only
 *        weave-bench -g           the graph-replay ratios only
 *        weave-bench -r N [TASKS] one replay measurement of a graph of N
 *                                 tasks, TASKS in all (for a profile)
 *        weave-bench -e N [TASKS] the same N tasks enqueued and flushed
 *        weave-bench -c BATCH,STREAMS,STRATEGY,MAX_TASKS [TASKS]
 *                                 one configuration (STRATEGY is
 *                                 interleave or sequential)
 */
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

#define EMPTY_IOCTLS	50000
/* Rounds of the target configurations, and tasks in each. */
#define ROUNDS		5
#define TARGET_TASKS	65536
/* The longest DELAY the uAPI accepts, in microseconds. */
#define WEAVE_BENCH_MAX_DELAY_US	60000000u

static const uint32_t batches[] = { 1, 8, 64 };
static const uint32_t stream_counts[] = { 1, 8, 64, 1024 };
static const uint32_t strategies[] = {
	DRM_WEAVE_STRATEGY_INTERLEAVE, DRM_WEAVE_STRATEGY_SEQUENTIAL,
};
static const uint32_t thresholds[] = { 1, 8, 64, 1024 };

#define NB	(sizeof(batches) / sizeof(batches[0]))
#define NS	(sizeof(stream_counts) / sizeof(stream_counts[0]))
#define NG	(sizeof(strategies) / sizeof(strategies[0]))
#define NT	(sizeof(thresholds) / sizeof(thresholds[0]))

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * Flush every stream of @fd with an out-fence on @syncobj and wait for it:
 * one wait for all of the file's work, as a runtime would.
 */
static int drain(int fd, uint32_t syncobj)
{
	struct drm_weave_sync out = { .handle = syncobj };
	int ret;

	ret = weave_flush_all(fd, &out);
	if (!ret && drmSyncobjWait(fd, &syncobj, 1, INT64_MAX, 0, NULL))
		ret = -errno;
	return ret;
}

/* Runs one configuration; returns ns per task, 0 if skipped, <0 on error. */
static double run(const struct drm_weave_device_info *info, uint32_t tasks,
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

/*
 * On a fresh file with the device's largest threshold, queues @per_ring noop
 * tasks on each of up to max_streams streams, one per slot, so that none
 * executes, and reads the file's usage.  Returns 0 or a negative errno.
 */
static int pending_usage(const struct drm_weave_device_info *info,
			 uint32_t per_ring, struct drm_weave_client_usage *usage)
{
	uint32_t nstreams = info->max_streams, stream, i, n;
	struct drm_weave_task noop[64];
	int fd, ret;

	if (nstreams > info->max_client_streams)
		nstreams = info->max_client_streams;
	if ((uint64_t)nstreams * per_ring > info->max_pending_tasks)
		nstreams = info->max_pending_tasks / per_ring;
	fd = weave_device_open(0);
	if (fd < 0)
		return fd;
	for (i = 0; i < 64; i++)
		weave_task_launch(&noop[i], DRM_WEAVE_KERNEL_NOOP, NULL, 0,
				  NULL, 0);
	ret = weave_set_param(fd, DRM_WEAVE_PARAM_MAX_TASKS, info->max_tasks);
	for (i = 0; !ret && i < nstreams; i++) {
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL,
					  &stream);
		for (n = 0; !ret && n < per_ring; n += 64)
			ret = weave_enqueue(fd, stream, noop,
					    per_ring - n < 64 ? per_ring - n : 64,
					    NULL, 0, NULL);
	}
	if (!ret)
		ret = weave_query_client_usage(fd, usage);
	if (!ret && usage->queued_tasks != (uint64_t)nstreams * per_ring)
		ret = -EPROTO;	/* something executed */
	weave_device_close(fd);
	return ret;
}

/* Prints "NAME VALUE" for @per_ring tasks per ring, and the details. */
static int print_bytes_per_task(const struct drm_weave_device_info *info,
				const char *name, uint32_t per_ring)
{
	struct drm_weave_client_usage usage;
	int ret;

	memset(&usage, 0, sizeof(usage));
	ret = pending_usage(info, per_ring, &usage);
	if (ret || !usage.pending_tasks) {
		printf("%s n/a (%s)\n", name,
		       ret ? strerror(-ret) : "no pending task");
		return ret;
	}
	printf("%s %.0f\n", name,
	       (double)usage.kernel_bytes / usage.pending_tasks);
	printf("client_usage %s pending_tasks %llu streams %llu max_tasks %u kernel_bytes %llu ring_bytes %llu job_bytes %llu staged_bytes %llu\n",
	       name, (unsigned long long)usage.pending_tasks,
	       (unsigned long long)usage.streams, info->max_tasks,
	       (unsigned long long)usage.kernel_bytes,
	       (unsigned long long)usage.ring_bytes,
	       (unsigned long long)usage.job_bytes,
	       (unsigned long long)usage.staged_bytes);
	return 0;
}

static double empty_ioctl_ns(int fd)
{
	struct drm_weave_query q;
	double start;
	int i;

	start = now_ns();
	for (i = 0; i < EMPTY_IOCTLS; i++) {
		memset(&q, 0, sizeof(q));
		q.type = DRM_WEAVE_QUERY_DEVICE_INFO;
		if (drmIoctl(fd, DRM_IOCTL_WEAVE_QUERY, &q))
			return -1;
	}
	return (now_ns() - start) / EMPTY_IOCTLS;
}

static double ratio(double a, double b)
{
	return a > 0 && b > 0 ? a / b : 0;
}

static const char *strategy_name(uint32_t strategy)
{
	return strategy == DRM_WEAVE_STRATEGY_INTERLEAVE ? "interleave" :
							   "sequential";
}

/* "-c BATCH,STREAMS,STRATEGY,MAX_TASKS [TASKS]": one configuration only. */
static int run_one(const struct drm_weave_device_info *info, const char *spec,
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values; sorts them. */
static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * The configurations the targets compare, measured again in rounds, one of
 * each per round, so that slow phases of a shared machine hit them alike.
 */
enum { T_EMPTY, T_CONV, T_BATCHED, T_STREAMS_1, T_STREAMS_1024, NTARGETS };

static const char *const target_names[NTARGETS] = {
	"empty_ioctl", "conventional", "batched", "streams_1", "streams_1024",
};

/*
 * Each ratio is taken within a round, whose measurements ran back to back,
 * and the median over the rounds is reported, so that a slow phase of the
 * machine cannot pair with a fast one.
 */
static const struct {
	const char *name;
	unsigned int num, den;
} ratios[] = {
	{ "batched_vs_conventional", T_CONV, T_BATCHED },
	{ "task_vs_empty_ioctl", T_STREAMS_1, T_EMPTY },
	{ "streams_1024_vs_1", T_STREAMS_1024, T_STREAMS_1 },
};

#define NRATIOS	(sizeof(ratios) / sizeof(ratios[0]))

static int measure_targets(const struct drm_weave_device_info *info,
			   uint32_t tasks, double med[NRATIOS])
{
	/* batch, streams, strategy and threshold of each; 0 is the largest */
	static const uint32_t conf[NTARGETS][4] = {
		[T_CONV] = { 1, 1, DRM_WEAVE_STRATEGY_SEQUENTIAL, 1 },
		[T_BATCHED] = { 64, 8, DRM_WEAVE_STRATEGY_INTERLEAVE, 0 },
		[T_STREAMS_1] = { 64, 1, DRM_WEAVE_STRATEGY_INTERLEAVE, 0 },
		[T_STREAMS_1024] = { 64, 1024, DRM_WEAVE_STRATEGY_INTERLEAVE, 0 },
	};
	double v[NTARGETS][ROUNDS], q[ROUNDS];
	unsigned int r, k;
	int fd, err;

	for (r = 0; r < ROUNDS; r++) {
		for (k = 0; k < NTARGETS; k++) {
			if (k == T_EMPTY) {
				fd = weave_device_open(0);
				if (fd < 0)
					return fd;
				v[k][r] = empty_ioctl_ns(fd);
				weave_device_close(fd);
				err = v[k][r] > 0 ? 0 : -EIO;
			} else {
				v[k][r] = run(info, tasks, conf[k][0], conf[k][1],
					      conf[k][2],
					      conf[k][3] ?: info->max_tasks,
					      &err);
				if (!v[k][r] && !err)
					err = -E2BIG;	/* over a limit */
			}
			if (err)
				return err;
		}
	}
	for (k = 0; k < NTARGETS; k++) {
		printf("target %s ns", target_names[k]);
		for (r = 0; r < ROUNDS; r++)
			printf(" %.0f", v[k][r]);
		printf("\n");
	}
	for (k = 0; k < NRATIOS; k++) {
		printf("round_ratios %s", ratios[k].name);
		for (r = 0; r < ROUNDS; r++) {
			q[r] = ratio(v[ratios[k].num][r], v[ratios[k].den][r]);
			printf(" %.3f", q[r]);
		}
		med[k] = median(q, ROUNDS);
		printf("\n");
	}
	return 0;
}

/* Tasks each window of the pending-jobs measurement times. */
#define PENDING_WINDOW	1024
/* Jobs pending on the buffer at the end of it, at most. */
#define PENDING_JOBS	(64 * 1024)
/* Windows timed at each end, of which the median counts. */
#define PENDING_SPAN	5
/* How long the gate holds the jobs back, at least, in ms. */
#define PENDING_GATE_MS	60000

/*
 * Make @gfd's work hold a fence back for at least @ms: DELAY jobs of half
 * the job timeout each, so none is cut short, flushed one at a time.  The
 * fence of the last is imported into a new syncobj @obj of @fd.  Closing
 * @gfd cancels the delays and signals the fence.
 */
static int hold_fence(const struct drm_weave_device_info *info, int fd,
		      int gfd, uint32_t ms, uint32_t *obj)
{
	uint32_t stream = 0, gobj = 0, us, n, i;
	struct drm_weave_task delay;
	struct drm_weave_sync out;
	int sfd = -1, ret;

	us = info->job_timeout_ms * 500;
	if (us > WEAVE_BENCH_MAX_DELAY_US)
		us = WEAVE_BENCH_MAX_DELAY_US;
	n = ms / (us / 1000) + 1;
	weave_task_launch(&delay, DRM_WEAVE_KERNEL_DELAY, NULL, 0, &us,
			  sizeof(us));
	ret = weave_stream_create(gfd, DRM_WEAVE_PRIORITY_NORMAL, &stream);
	if (!ret && drmSyncobjCreate(gfd, 0, &gobj))
		ret = -errno;
	for (i = 0; !ret && i < n; i++) {
		ret = weave_enqueue(gfd, stream, &delay, 1, NULL, 0, NULL);
		if (!ret)
			ret = weave_flush(gfd, stream, NULL);
	}
	out = weave_sync(gobj, 0);
	if (!ret)
		ret = weave_flush(gfd, stream, &out);
	if (!ret && drmSyncobjExportSyncFile(gfd, gobj, &sfd))
		ret = -errno;
	if (!ret && drmSyncobjCreate(fd, 0, obj))
		ret = -errno;
	if (!ret && drmSyncobjImportSyncFile(fd, *obj, sfd))
		ret = -errno;
	if (sfd >= 0)
		close(sfd);
	return ret;
}

/*
 * The pending-jobs measurement: enqueues up to PENDING_JOBS one-task jobs
 * writing one buffer behind a gate, timing each window of PENDING_WINDOW
 * tasks, and sets @ns_1k and @ns_64k, the time per task of the median of
 * the PENDING_SPAN windows after the first (about 1k to 6k jobs pending)
 * and of the last PENDING_SPAN windows (about 60k to 64k).  One window
 * that the host slowed down then changes neither.  Returns 0, or a
 * negative errno: -ETIME if the gate opened before the end (the jobs were
 * not all pending).
 */
static int pending_jobs(const struct drm_weave_device_info *info,
			uint32_t *jobs, double *ns_1k, double *ns_64k)
{
	uint32_t stream = 0, bo = 0, gate = 0, syncobj = 0, pattern = 0, i, n;
	double t[PENDING_JOBS / PENDING_WINDOW + 1] = { 0 };
	double early[PENDING_SPAN], late[PENDING_SPAN];
	struct drm_weave_binding bind;
	uint64_t size = info->page_size;
	struct drm_weave_task fill;
	struct drm_weave_sync in;
	uint32_t w, nw;
	int fd, gfd, ret;

	n = PENDING_JOBS;
	if (n > info->max_pending_tasks - 1)
		n = info->max_pending_tasks - 1;
	nw = n / PENDING_WINDOW;
	if (nw < 2 * PENDING_SPAN + 1)
		return -E2BIG;
	n = nw * PENDING_WINDOW;
	*jobs = n;
	fd = weave_device_open(0);
	if (fd < 0)
		return fd;
	gfd = weave_device_open(0);
	if (gfd < 0) {
		weave_device_close(fd);
		return gfd;
	}
	ret = weave_set_param(fd, DRM_WEAVE_PARAM_MAX_TASKS, 1);
	if (!ret)
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL,
					  &stream);
	if (!ret)
		ret = weave_bo_create(fd, &size, 0, &bo);
	if (!ret && drmSyncobjCreate(fd, 0, &syncobj))
		ret = -errno;
	if (!ret)
		ret = hold_fence(info, fd, gfd, PENDING_GATE_MS, &gate);
	bind = weave_binding(bo, DRM_WEAVE_ACCESS_WRITE, 0, size);
	weave_task_launch(&fill, DRM_WEAVE_KERNEL_FILL, &bind, 1, &pattern,
			  sizeof(pattern));
	in = weave_sync(gate, 0);
	if (!ret)
		ret = weave_enqueue(fd, stream, &fill, 1, &in, 1, NULL);
	for (i = 1; !ret && i < n; i++) {
		if (i % PENDING_WINDOW == 0)
			t[i / PENDING_WINDOW - 1] = now_ns();
		ret = weave_enqueue(fd, stream, &fill, 1, NULL, 0, NULL);
	}
	t[nw - 1] = now_ns();
	/* Everything timed was pending: the gate still holds. */
	if (!ret && !drmSyncobjWait(fd, &gate, 1, 0, 0, NULL))
		ret = -ETIME;
	/* t[k] was taken with (k + 1) windows enqueued; the first untimed. */
	for (w = 0; !ret && w < PENDING_SPAN; w++) {
		early[w] = (t[w + 1] - t[w]) / PENDING_WINDOW;
		late[w] = (t[nw - 1 - w] - t[nw - 2 - w]) / PENDING_WINDOW;
	}
	if (!ret) {
		*ns_1k = median(early, PENDING_SPAN);
		*ns_64k = median(late, PENDING_SPAN);
	}
	/* Untimed: cancel the gate and let the jobs drain. */
	weave_device_close(gfd);
	if (syncobj)
		drain(fd, syncobj);
	weave_device_close(fd);
	return ret;
}

/* Prints the pending-jobs figures; returns 0 or a negative errno. */
static int print_pending_ratio(const struct drm_weave_device_info *info)
{
	double ns_1k = 0, ns_64k = 0;
	uint32_t jobs = 0;
	int err;

	err = pending_jobs(info, &jobs, &ns_1k, &ns_64k);
	if (err == -ETIME) {
		printf("pending_jobs error: the gate (%u ms) opened first, machine too slow\n",
		       PENDING_GATE_MS);
		return err;
	} else if (err) {
		printf("pending_jobs error %s\n", strerror(-err));
		return err;
	}
	printf("pending_jobs %u window %u ns_per_task_1k %.0f ns_per_task_64k %.0f\n",
	       jobs, PENDING_WINDOW, ns_1k, ns_64k);
	printf("ratio pending_64k_vs_1k %.3f\n", ratio(ns_64k, ns_1k));
	return 0;
}

/* Buffers and tasks of the failure-tracking measurement. */
#define TAINT_BUFFERS	64
#define TAINT_TASKS	16384

/* Whether @size bytes at @off of @bo carry exactly @want failures. */
static int taint_expect(int fd, uint32_t bo, uint64_t off, uint64_t size,
			uint32_t want)
{
	struct drm_weave_check_range r = {
		.handle = bo, .offset = off, .size = size,
	};
	struct drm_weave_failure f[2];
	struct drm_weave_check c = {
		.ranges = { (uintptr_t)&r, sizeof(r), 1 },
		.failures = { (uintptr_t)f, sizeof(f[0]), 2 },
	};

	if (drmIoctl(fd, DRM_IOCTL_WEAVE_CHECK, &c) && errno != ENOSPC)
		return -errno;
	return r.nfailures == want ? 0 : -EPROTO;
}

/*
 * One run of the failure-tracking measurement, with a tenth of the buffers
 * tainted or none; sets @ns, the time per task.  Returns 0 or a negative
 * errno.
 */
static int taint_run(const struct drm_weave_device_info *info, bool tainted,
		     double *ns)
{
	uint64_t size = info->page_size, q = size / 4;
	struct drm_weave_task fill[64], fail;
	struct drm_weave_binding bind[64], half;
	uint32_t bos[TAINT_BUFFERS] = { 0 };
	uint32_t stream = 0, syncobj = 0, pattern = 0x5eed, eio = EIO, i, done;
	double start;
	int fd, ret;

	fd = weave_device_open(0);
	if (fd < 0)
		return fd;
	ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &stream);
	if (!ret && drmSyncobjCreate(fd, 0, &syncobj))
		ret = -errno;
	for (i = 0; !ret && i < TAINT_BUFFERS; i++)
		ret = weave_bo_create(fd, &size, 0, &bos[i]);
	/* Untimed: a FAIL taints the second half of every tenth buffer. */
	for (i = 0; !ret && tainted && i < TAINT_BUFFERS; i += 10) {
		half = weave_binding(bos[i], DRM_WEAVE_ACCESS_WRITE, size / 2,
				     size / 2);
		weave_task_launch(&fail, DRM_WEAVE_KERNEL_FAIL, &half, 1, &eio,
				  sizeof(eio));
		ret = weave_enqueue(fd, stream, &fail, 1, NULL, 0, NULL);
	}
	if (!ret)
		ret = drain(fd, syncobj);

	start = now_ns();
	for (done = 0; !ret && done < TAINT_TASKS; done += 64) {
		for (i = 0; i < 64; i++) {
			bind[i] = weave_binding(bos[(done + i) % TAINT_BUFFERS],
						DRM_WEAVE_ACCESS_WRITE, 0, q);
			weave_task_launch(&fill[i], DRM_WEAVE_KERNEL_FILL,
					  &bind[i], 1, &pattern,
					  sizeof(pattern));
		}
		ret = weave_enqueue(fd, stream, fill, 64, NULL, 0, NULL);
	}
	if (!ret)
		ret = drain(fd, syncobj);
	if (!ret)
		*ns = (now_ns() - start) / TAINT_TASKS;
	/* Untimed: the taints are where they were put, and only there. */
	if (!ret)
		ret = taint_expect(fd, bos[0], 0, size / 2, 0);
	if (!ret)
		ret = taint_expect(fd, bos[0], size / 2, size / 2, tainted);
	if (!ret)
		ret = taint_expect(fd, bos[1], 0, size, 0);
	weave_device_close(fd);
	return ret;
}

/* Prints the failure-tracking figures; returns 0 or a negative errno. */
static int print_taint_ratio(const struct drm_weave_device_info *info)
{
	double clean[ROUNDS], dirty[ROUNDS], r[ROUNDS];
	unsigned int k;
	int err = 0;

	for (k = 0; !err && k < ROUNDS; k++) {
		err = taint_run(info, false, &clean[k]);
		if (!err)
			err = taint_run(info, true, &dirty[k]);
		r[k] = ratio(dirty[k], clean[k]);
	}
	if (err) {
		printf("taints error %s\n", strerror(-err));
		return err;
	}
	printf("taints buffers %u tainted %u tasks %u ns_per_task_clean %.0f ns_per_task_tainted %.0f\n",
	       TAINT_BUFFERS, (TAINT_BUFFERS + 9) / 10, TAINT_TASKS,
	       median(clean, ROUNDS), median(dirty, ROUNDS));
	printf("ratio taints_tenth_vs_clean %.3f\n", median(r, ROUNDS));
	return 0;
}

/* Tasks each replay or enqueue measurement runs, and the graphs' sizes. */
#define REPLAY_TASKS	16384
#define REPLAY_N_64	1

/* The tasks a replay measurement runs: REPLAY_TASKS, or -r's TASKS. */
static uint32_t replay_tasks = REPLAY_TASKS;

static const uint32_t replay_sizes[] = { 8, 64, 512 };

#define NR	(sizeof(replay_sizes) / sizeof(replay_sizes[0]))

/*
 * One replay measurement on a fresh file and stream: @n noop tasks, either
 * recorded once into a graph and replayed, or enqueued (in batches of at
 * most max_tasks_per_enqueue) and flushed, REPLAY_TASKS / @n times, then
 * one flush with an out-fence and a wait.  The graph is recorded, and one
 * replay or one enqueue and flush runs, before the clock starts.  Sets
 * @ns, the time per task, and @submit_ns, the part of it spent in the
 * REPLAY, or ENQUEUE and FLUSH, calls.  Returns 0 or a negative errno;
 * afterwards, untimed, the stream must have completed every task without
 * an error.
 */
static int replay_run(const struct drm_weave_device_info *info, uint32_t n,
		      bool replay, double *ns, double *submit_ns)
{
	uint32_t stream = 0, syncobj = 0, graph = 0, per, reps, i, k, m;
	struct drm_weave_stream_query q;
	struct drm_weave_capture cap;
	struct drm_weave_task *noop;
	double start = 0, t0, in_calls = 0;
	int fd, ret;

	per = info->max_tasks_per_enqueue < n ? info->max_tasks_per_enqueue : n;
	reps = replay_tasks / n;
	noop = calloc(per, sizeof(*noop));
	if (!noop)
		return -ENOMEM;
	for (i = 0; i < per; i++)
		weave_task_launch(&noop[i], DRM_WEAVE_KERNEL_NOOP, NULL, 0,
				  NULL, 0);
	fd = weave_device_open(0);
	if (fd < 0) {
		free(noop);
		return fd;
	}
	/*
	 * The threshold at @n (the device's at most): the enqueue side
	 * executes its @n tasks as one job, as a replay is, and the engine
	 * sizes that job for @n tasks, not for a larger threshold.
	 */
	ret = weave_set_param(fd, DRM_WEAVE_PARAM_MAX_TASKS,
			      n < info->max_tasks ? n : info->max_tasks);
	if (!ret)
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL,
					  &stream);
	if (!ret && drmSyncobjCreate(fd, 0, &syncobj))
		ret = -errno;
	/* The graph, recorded by the stream it is replayed on. */
	if (!ret && replay)
		ret = weave_capture(fd, stream, DRM_WEAVE_CAPTURE_PREPARE,
				    NULL);
	if (!ret && replay)
		ret = weave_capture(fd, stream, DRM_WEAVE_CAPTURE_BEGIN, NULL);
	for (k = 0; !ret && replay && k < n; k += m) {
		m = n - k < per ? n - k : per;
		ret = weave_enqueue(fd, stream, noop, m, NULL, 0, NULL);
	}
	if (!ret && replay)
		ret = weave_capture(fd, stream, DRM_WEAVE_CAPTURE_END, &cap);
	if (!ret && replay)
		graph = cap.graph;
	if (!ret && replay && cap.ntasks != n)
		ret = -EPROTO;

	/* Warm up, then the timed repetitions, one more than timed. */
	for (i = 0; !ret && i <= reps; i++) {
		if (i == 1) {
			ret = drain(fd, syncobj);
			start = now_ns();
			if (ret)
				break;
			in_calls = 0;
		}
		t0 = now_ns();
		if (replay) {
			ret = weave_replay(fd, graph, stream, NULL, 0, NULL,
					   NULL);
		} else {
			for (k = 0; !ret && k < n; k += m) {
				m = n - k < per ? n - k : per;
				ret = weave_enqueue(fd, stream, noop, m, NULL,
						    0, NULL);
			}
			if (!ret)
				ret = weave_flush(fd, stream, NULL);
		}
		in_calls += now_ns() - t0;
		if (ret == -EBUSY) {
			/* max_pending_tasks: let the queue drain. */
			ret = drain(fd, syncobj);
			i--;
		}
	}
	if (!ret)
		ret = drain(fd, syncobj);
	if (!ret) {
		*ns = (now_ns() - start) / ((double)reps * n);
		*submit_ns = in_calls / ((double)reps * n);
	}
	/* Untimed: every task completed, without an error. */
	if (!ret)
		ret = weave_wait(fd, stream, 0);
	if (!ret)
		ret = weave_stream_query(fd, stream, &q);
	if (!ret && (q.completed != (uint64_t)(reps + 1) * n ||
		     q.completed != q.enqueued))
		ret = -EPROTO;
	if (graph && weave_graph_destroy(fd, graph) && !ret)
		ret = -EPROTO;
	weave_device_close(fd);
	free(noop);
	return ret;
}

/* Prints the graph-replay figures; returns 0 or a negative errno. */
static int print_replay_ratios(const struct drm_weave_device_info *info)
{
	double enq[NR][ROUNDS], rep[NR][ROUNDS], r[NR][ROUNDS], med[NR];
	double senq[NR][ROUNDS], srep[NR][ROUNDS], sr[NR][ROUNDS];
	unsigned int k, j;
	int err = 0;

	if (!info->max_graphs) {
		printf("replay n/a (uAPI 1.%u has no graph capture)\n",
		       info->uapi_minor);
		return 0;
	}
	for (k = 0; !err && k < ROUNDS; k++) {
		for (j = 0; !err && j < NR; j++) {
			if (replay_sizes[j] > info->max_graph_tasks) {
				err = -E2BIG;
				break;
			}
			err = replay_run(info, replay_sizes[j], false,
					 &enq[j][k], &senq[j][k]);
			if (!err)
				err = replay_run(info, replay_sizes[j], true,
						 &rep[j][k], &srep[j][k]);
			if (!err) {
				r[j][k] = ratio(rep[j][k], enq[j][k]);
				sr[j][k] = ratio(srep[j][k], senq[j][k]);
			}
		}
	}
	if (err) {
		printf("replay error %s\n", strerror(-err));
		return err;
	}
	for (j = 0; j < NR; j++) {
		printf("replay tasks %u graph %u ns_per_task_enqueue",
		       REPLAY_TASKS, replay_sizes[j]);
		for (k = 0; k < ROUNDS; k++)
			printf(" %.0f", enq[j][k]);
		printf(" ns_per_task_replay");
		for (k = 0; k < ROUNDS; k++)
			printf(" %.0f", rep[j][k]);
		printf("\n");
		printf("round_ratios replay_vs_enqueue_%u", replay_sizes[j]);
		for (k = 0; k < ROUNDS; k++)
			printf(" %.3f", r[j][k]);
		printf("\n");
		med[j] = median(r[j], ROUNDS);
		/* The calls alone, without waiting for the jobs to run. */
		printf("replay_submit graph %u ns_per_task_enqueue_flush %.0f ns_per_task_replay %.0f ratio_median %.3f\n",
		       replay_sizes[j], median(senq[j], ROUNDS),
		       median(srep[j], ROUNDS), median(sr[j], ROUNDS));
	}
	for (j = 0; j < NR; j++)
		printf("ratio replay_vs_enqueue_%u %.3f\n", replay_sizes[j],
		       med[j]);
	printf("ratio replay_vs_enqueue %.3f\n", med[REPLAY_N_64]);
	return 0;
}

/* One measurement of -r or -e; returns the exit status. */
static int print_replay_one(const struct drm_weave_device_info *info,
			    uint32_t n, bool replay, uint32_t tasks)
{
	double ns, submit_ns;
	int err;

	if (!n || n > info->max_graph_tasks || tasks < n) {
		fprintf(stderr, "weave-bench: a graph of 1 to %u tasks, no more than TASKS\n",
			info->max_graph_tasks);
		return 2;
	}
	replay_tasks = tasks;
	err = replay_run(info, n, replay, &ns, &submit_ns);
	if (err) {
		printf("replay error %s\n", strerror(-err));
		return 1;
	}
	printf("%s graph %u tasks %u ns_per_task %.0f ns_per_task_in_calls %.0f\n",
	       replay ? "replay" : "enqueue", n, tasks / n * n, ns, submit_ns);
	return 0;
}

int main(int argc, char **argv)
{
	struct drm_weave_device_info info;
	const char *one = NULL;
	bool targets_only = false, pending_only = false, taints_only = false;
	bool replay_only = false;
	uint32_t replay_n = 0;
	bool replay_one = false;
	double med[NRATIOS];
	unsigned int b, s, g, t, k;
	int fd, err, opt, failed = 0;
	uint32_t tasks = 16384;

	while ((opt = getopt(argc, argv, "c:e:fgpr:t")) != -1) {
		if (opt == 'c') {
			one = optarg;
		} else if (opt == 'f') {
			taints_only = true;
		} else if (opt == 'g') {
			replay_only = true;
		} else if (opt == 'e' || opt == 'r') {
			replay_n = strtoul(optarg, NULL, 0);
			replay_one = opt == 'r';
		} else if (opt == 'p') {
			pending_only = true;
		} else if (opt == 't') {
			targets_only = true;
		} else {
			fprintf(stderr, "usage: weave-bench [-t | -p | -f | -g | -r N | -e N | -c BATCH,STREAMS,STRATEGY,MAX_TASKS] [TASKS]\n");
			return 2;
		}
	}
	if (optind < argc)
		tasks = strtoul(argv[optind], NULL, 0);

	fd = weave_device_open(0);
	if (fd < 0) {
		fprintf(stderr, "weave-bench: no weave device: %s\n",
			strerror(-fd));
		return 1;
	}
	err = weave_query_device_info(fd, &info);
	if (err) {
		fprintf(stderr, "weave-bench: query: %s\n", strerror(-err));
		return 1;
	}
	printf("weave-bench: %u noop tasks per configuration; max_streams %u, max_tasks %u, queues %u\n",
	       tasks, info.max_streams, info.max_tasks, info.num_queues);
	printf("empty_ioctl ns %.0f\n", empty_ioctl_ns(fd));
	weave_device_close(fd);
	if (one)
		return run_one(&info, one, tasks);
	if (pending_only)
		return print_pending_ratio(&info) ? 1 : 0;
	if (taints_only)
		return print_taint_ratio(&info) ? 1 : 0;
	if (replay_only)
		return print_replay_ratios(&info) ? 1 : 0;
	if (replay_n)
		return print_replay_one(&info, replay_n, replay_one, tasks);

	for (k = 0; !targets_only && k < NB * NS * NG * NT; k++) {
		double ns;

		t = k % NT;
		g = k / NT % NG;
		s = k / (NT * NG) % NS;
		b = k / (NT * NG * NS);
		ns = run(&info, tasks, batches[b], stream_counts[s],
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

	/*
	 * Rings are allocated whole, so the figure depends on how full they
	 * are: half full, then max_tasks - 1 per ring, the most that stays
	 * queued.
	 */
	if (targets_only) {
		/* no memory figures */
	} else if (info.max_tasks < 2) {
		printf("kernel_bytes_per_pending_task n/a (max_tasks %u executes every task)\n",
		       info.max_tasks);
	} else {
		if (print_bytes_per_task(&info, "kernel_bytes_per_pending_task",
					 info.max_tasks / 2))
			failed = 1;
		if (info.max_tasks - 1 != info.max_tasks / 2 &&
		    print_bytes_per_task(&info,
					 "kernel_bytes_per_pending_task_rings_full",
					 info.max_tasks - 1))
			failed = 1;
	}

	err = measure_targets(&info, TARGET_TASKS, med);
	if (err) {
		printf("targets error %s\n", strerror(-err));
		return 1;
	}
	for (k = 0; k < NRATIOS; k++)
		printf("ratio %s %.3f\n", ratios[k].name, med[k]);
	if (print_pending_ratio(&info))
		failed = 1;
	if (print_taint_ratio(&info))
		failed = 1;
	if (print_replay_ratios(&info))
		failed = 1;
	return failed;
}
