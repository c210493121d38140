// SPDX-License-Identifier: MIT
/*
 * weave-bench: graph replay against the same tasks enqueued and flushed.
 */
#include "bench.h"

/* Tasks each replay or enqueue measurement runs, and the graphs' sizes. */
#define REPLAY_TASKS	16384
#define REPLAY_N_64	1

/* The tasks a replay measurement runs: REPLAY_TASKS, or -r's TASKS. */
static uint32_t replay_tasks = REPLAY_TASKS;

static const uint32_t replay_sizes[] = { 8, 64, 512 };

#define NR	ARRAY_SIZE(replay_sizes)

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
int print_replay_ratios(const struct drm_weave_device_info *info)
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
	print_ratio("replay_vs_enqueue", med[REPLAY_N_64],
		    (struct target){ '<', 0.2 });
	return 0;
}

/* One measurement of -r or -e; returns the exit status. */
int print_replay_one(const struct drm_weave_device_info *info, uint32_t n,
		     bool replay, uint32_t tasks)
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
