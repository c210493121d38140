// SPDX-License-Identifier: MIT
/*
 * weave-bench: the benchmark's entry point and options; the parts are the
 * sweep (sweep.c), the memory per task (memory.c), the targets and the
 * kernel's floors (targets.c, floors.c), one-ioctl fenced submission
 * (fenced.c), pending jobs (pending.c), failure tracking (taints.c) and
 * graph replay (replay.c).
 *
 * Noop-task throughput of the scheduler, against baselines measured in the
 * same run.
 *
 * Every configuration opens a fresh file, sets its strategy and threshold
 * (max_tasks), creates its streams, warms every stream up, then enqueues a
 * fixed number of noop tasks round-robin over the streams in batches, and
 * ends with a flush of every stream with an out-fence and one wait on it,
 * so completion is included.  Afterwards, untimed, every stream must have
 * completed without an error.  Baselines: the conventional driver path
 * (one task per ioctl and one job per task: batch 1, max_tasks 1,
 * sequential) and an empty ioctl (a size-0 QUERY); and the kernel's
 * floors: getppid, an io_uring NOP submitted 64 per io_uring_enter, and
 * a wake-up round trip between two threads (eventfd).
 *
 * Prints one line per configuration of the sweep, the kernel memory per
 * pending task (from %DRM_WEAVE_QUERY_CLIENT_USAGE, with noop tasks left
 * queued below the threshold: once with the rings half full, once as full
 * as they get), then the target configurations, measured again in nine
 * interleaved rounds at the device's largest max_tasks with the floors and
 * a job of one noop task (one ENQUEUE with its flush flag, then a WAIT on
 * the sequence number it returned: fenced.c), and the time to submit a
 * one-task job in that one ioctl against an ENQUEUE then a FLUSH (only
 * the submissions timed, with an untimed wait after every 64), and the
 * targets as "ratio NAME VALUE" lines: the median over the rounds of each
 * round's ratio, followed by "target <= X met" (or missed) where it has
 * one.
 * Exits 1 if a configuration fails or io_uring is unusable.
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
 *        weave-bench -t           the memory and the targets only
 *        weave-bench -m           the memory figures only
 *        weave-bench -p           the pending-jobs ratio only
 *        weave-bench -f           the failure-tracking ratio only
 *        weave-bench -g           the graph-replay ratios only
 *        weave-bench -r N [TASKS] one replay measurement of a graph of N
 *                                 tasks, TASKS in all (for a profile)
 *        weave-bench -e N [TASKS] the same N tasks enqueued and flushed
 *        weave-bench -j [JOBS]    JOBS one-task jobs (enqueue with
 *                                 flush, wait on the seqno; default
 *                                 16384), for a profile
 *        weave-bench -s [JOBS]    JOBS one-task submissions, each one
 *                                 ENQUEUE with the flush flag (default
 *                                 16384), for a profile
 *        weave-bench -R [TASKS]   TASKS noop tasks through a shared ring
 *                                 of poll mode (default 16384), for a
 *                                 profile
 *        weave-bench -c BATCH,STREAMS,STRATEGY,MAX_TASKS [TASKS]
 *                                 one configuration (STRATEGY is
 *                                 interleave or sequential)
 */
#include "bench.h"

int main(int argc, char **argv)
{
	struct drm_weave_device_info info;
	const char *one = NULL;
	bool targets_only = false, pending_only = false, taints_only = false;
	bool replay_only = false, memory_only = false;
	uint32_t replay_n = 0;
	bool replay_one = false, job_one = false, submit_one = false;
	bool ring_one = false;
	double bytes_per_task;
	int fd, err, opt, failed = 0;
	uint32_t tasks = 16384;

	while ((opt = getopt(argc, argv, "c:e:fgjmpr:Rst")) != -1) {
		if (opt == 'c') {
			one = optarg;
		} else if (opt == 'f') {
			taints_only = true;
		} else if (opt == 'j') {
			job_one = true;
		} else if (opt == 'm') {
			memory_only = true;
		} else if (opt == 'g') {
			replay_only = true;
		} else if (opt == 'e' || opt == 'r') {
			replay_n = strtoul(optarg, NULL, 0);
			replay_one = opt == 'r';
		} else if (opt == 's') {
			submit_one = true;
		} else if (opt == 'R') {
			ring_one = true;
		} else if (opt == 'p') {
			pending_only = true;
		} else if (opt == 't') {
			targets_only = true;
		} else {
			fprintf(stderr, "usage: weave-bench [-t | -m | -p | -f | -g | -j | -s | -R | -r N | -e N | -c BATCH,STREAMS,STRATEGY,MAX_TASKS] [TASKS]\n");
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
	if (job_one)
		return print_job_one(&info, tasks);
	if (submit_one)
		return print_submit_one(&info, tasks);
	if (ring_one)
		return print_ring_one(&info, tasks);

	if (!targets_only && !memory_only)
		failed |= print_sweep(&info, tasks);
	failed |= print_memory(&info, &bytes_per_task);
	if (memory_only)
		return failed;
	if (print_targets(&info, bytes_per_task))
		failed = 1;
	if (targets_only)
		return failed;
	if (print_pending_ratio(&info))
		failed = 1;
	if (print_taint_ratio(&info))
		failed = 1;
	if (print_replay_ratios(&info))
		failed = 1;
	return failed;
}
