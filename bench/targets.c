// SPDX-License-Identifier: MIT
/*
 * weave-bench: the targets, weave's configurations and the kernel's floors
 * measured in interleaved rounds, and the ratios between them.
 */
#include "bench.h"

/*
 * Rounds of the targets: more than the other parts' ROUNDS, because the
 * floors' pairs are short and a loaded host's slow phases are not.
 */
#define TARGET_ROUNDS	9
/* One-task jobs timed in a round, after one untimed. */
#define JOBS		1024
/* One-task submissions timed in a round, of each kind, after one untimed. */
#define SUBMITS		4096

/*
 * What the targets compare, measured again in rounds, one of each per
 * round, so that slow phases of a shared machine hit them alike; in this
 * order, so that most ratios compare neighbours in time.
 */
enum {
	T_GETPPID, T_EMPTY, T_URING_NOP, T_RING, T_STREAMS_1, T_STREAMS_1024,
	T_BATCHED, T_CONV, T_WAKEUP, T_JOB, T_ENQ_FLUSH, T_TWO_IOCTLS,
	NTARGETS
};

static const char *const target_names[NTARGETS] = {
	[T_GETPPID] = "getppid",
	[T_EMPTY] = "empty_ioctl",
	[T_URING_NOP] = "uring_nop",
	[T_RING] = "ring_poll",
	[T_STREAMS_1] = "streams_1",
	[T_STREAMS_1024] = "streams_1024",
	[T_BATCHED] = "batched",
	[T_CONV] = "conventional",
	[T_WAKEUP] = "wakeup",
	[T_JOB] = "job",
	[T_ENQ_FLUSH] = "enqueue_flush",
	[T_TWO_IOCTLS] = "enqueue_then_flush",
};

/*
 * Each ratio is taken within a round, whose measurements ran back to back,
 * and the median over the rounds is reported, so that a slow phase of the
 * machine cannot pair with a fast one.
 */
static const struct {
	const char *name;
	unsigned int num, den;
	struct target target;
} ratios[] = {
	{ "batched_vs_conventional", T_CONV, T_BATCHED, { '>', 20 } },
	{ "task_vs_empty_ioctl", T_STREAMS_1, T_EMPTY, { '<', 0.1 } },
	{ "streams_1024_vs_1", T_STREAMS_1024, T_STREAMS_1, { '<', 1.5 } },
	/* Against the kernel's floors. */
	{ "task_vs_uring_nop", T_STREAMS_1, T_URING_NOP, { '<', 1.5 } },
	/* Shared rings of poll mode (uAPI 1.10), batch 64. */
	{ "ring_task_vs_uring_nop", T_RING, T_URING_NOP, { '<', 1.0 } },
	{ "job_vs_wakeup", T_JOB, T_WAKEUP, { '<', 1.2 } },
	/* One-ioctl fenced submission (uAPI 1.8). */
	{ "enqueue_flush_vs_two_ioctls", T_ENQ_FLUSH, T_TWO_IOCTLS,
	  { '<', 0.6 } },
	/* Context: the floors against each other. */
	{ "uring_nop_vs_empty_ioctl", T_URING_NOP, T_EMPTY, { 0, 0 } },
	{ "getppid_vs_empty_ioctl", T_GETPPID, T_EMPTY, { 0, 0 } },
};

#define NRATIOS	ARRAY_SIZE(ratios)

/*
 * The doorbells a producer on a ring of poll mode rang in the steady
 * state of T_RING, per 1000 tasks, over all rounds: none is the target.
 */
static const struct target ring_calls_target = { '<', 0 };
static uint32_t ring_entered, ring_tasks;

/* The target's per-task noop memory, from the client usage query. */
static const struct target bytes_target = { '<', 64 };

/* Measures @k of round @r into @v; returns 0 or a negative errno. */
static int measure_one(const struct drm_weave_device_info *info,
		       unsigned int k, bool uring, double *v)
{
	/* batch, streams, strategy and threshold of each; 0 is the largest */
	static const uint32_t conf[NTARGETS][4] = {
		[T_CONV] = { 1, 1, DRM_WEAVE_STRATEGY_SEQUENTIAL, 1 },
		[T_BATCHED] = { 64, 8, DRM_WEAVE_STRATEGY_INTERLEAVE, 0 },
		[T_STREAMS_1] = { 64, 1, DRM_WEAVE_STRATEGY_INTERLEAVE, 0 },
		[T_STREAMS_1024] = { 64, 1024, DRM_WEAVE_STRATEGY_INTERLEAVE, 0 },
	};
	int fd, err = 0;

	switch (k) {
	case T_EMPTY:
		fd = weave_device_open(0);
		if (fd < 0)
			return fd;
		*v = empty_ioctl_ns(fd);
		weave_device_close(fd);
		break;
	case T_GETPPID:
		*v = getppid_ns();
		break;
	case T_URING_NOP:
		/* Unusable: said once, the ratios on it not printed. */
		*v = uring ? uring_nop_ns() : 0;
		if (!uring)
			return 0;
		break;
	case T_WAKEUP:
		*v = wakeup_ns();
		break;
	case T_JOB:
		*v = job_ns(info, JOBS, &err);
		return err;
	case T_RING:
		*v = ring_task_ns(info, TARGET_TASKS / 4, &ring_entered, &err);
		ring_tasks += TARGET_TASKS / 4;
		return err;
	case T_ENQ_FLUSH:
	case T_TWO_IOCTLS:
		*v = fenced_submit_ns(info, SUBMITS, k == T_TWO_IOCTLS, &err);
		return err;
	default:
		*v = run(info, TARGET_TASKS, conf[k][0], conf[k][1], conf[k][2],
			 conf[k][3] ?: info->max_tasks, &err);
		if (!*v && !err)
			err = -E2BIG;	/* over a limit */
		return err;
	}
	return *v > 0 ? 0 : -EIO;
}

static int measure_targets(const struct drm_weave_device_info *info,
			   bool uring, double med[NRATIOS])
{
	double v[NTARGETS][TARGET_ROUNDS], q[TARGET_ROUNDS];
	unsigned int r, k;
	int err;

	for (r = 0; r < TARGET_ROUNDS; r++) {
		for (k = 0; k < NTARGETS; k++) {
			err = measure_one(info, k, uring, &v[k][r]);
			if (err) {
				printf("targets error %s: %s\n",
				       target_names[k], strerror(-err));
				return err;
			}
		}
	}
	for (k = 0; k < NTARGETS; k++) {
		printf("target %s ns", target_names[k]);
		for (r = 0; r < TARGET_ROUNDS; r++)
			printf(" %.0f", v[k][r]);
		printf("\n");
	}
	for (k = 0; k < NRATIOS; k++) {
		printf("round_ratios %s", ratios[k].name);
		for (r = 0; r < TARGET_ROUNDS; r++) {
			q[r] = ratio(v[ratios[k].num][r], v[ratios[k].den][r]);
			printf(" %.3f", q[r]);
		}
		med[k] = median(q, TARGET_ROUNDS);
		printf("\n");
	}
	return 0;
}

/*
 * Measures the targets in TARGET_ROUNDS interleaved rounds and prints their
 * ratios, each with its target, then the memory per pending noop task
 * (@bytes_per_task, 0 if not measured) against its own.  Returns 1 if a
 * measurement failed or io_uring is unusable, else 0.
 */
int print_targets(const struct drm_weave_device_info *info,
		  double bytes_per_task)
{
	bool uring = !uring_check();
	double med[NRATIOS];
	unsigned int k;

	if (measure_targets(info, uring, med))
		return 1;
	for (k = 0; k < NRATIOS; k++) {
		if (!med[k] && (ratios[k].num == T_URING_NOP ||
				ratios[k].den == T_URING_NOP))
			printf("%s n/a (io_uring unusable)\n", ratios[k].name);
		else
			print_ratio(ratios[k].name, med[k], ratios[k].target);
	}
	print_ratio("ring_syscalls_per_1000",
		    ring_tasks ? 1000.0 * ring_entered / ring_tasks : 0,
		    ring_calls_target);
	if (bytes_per_task)
		print_ratio("kernel_bytes_per_noop_task", bytes_per_task,
			    bytes_target);
	return uring ? 0 : 1;
}

/* "-j [JOBS]": the one-task jobs alone (for a profile); the exit status. */
int print_job_one(const struct drm_weave_device_info *info, uint32_t jobs)
{
	double ns;
	int err;

	ns = job_ns(info, jobs, &err);
	if (ns < 0) {
		printf("job error %s\n", strerror(-err));
		return 1;
	}
	printf("job tasks 1 jobs %u ns_per_job %.0f\n", jobs, ns);
	return 0;
}
