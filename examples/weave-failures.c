// SPDX-License-Identifier: MIT
/*
 * weave-failures: a failure followed from its bytes back to its cause.
 *
 * Stream "producer" runs a FAIL task, label 7, that should have written
 * buffer A.  Stream "consumer" adds A to B into C and takes the crc32c of
 * C into D, and, in between, fills E, which touches nothing that failed.
 * Neither stream waits by hand and no fence carries an error: the failure
 * lives on A, and the two tasks that read it are skipped and pass it on to
 * C and D.  The example asks which failures D and E carry, prints the
 * report libweave formats for D, then refills D and asks again.  Prints
 * "weave-failures: OK" and exits 0 when every answer is the expected one;
 * prints what differed and exits 1 otherwise.
 *
 * Usage: weave-failures [INDEX]    (INDEX: which weave device, default 0)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weave.h>

#define BYTES		4096
#define LABEL		7

static int fail(const char *what, int err)
{
	fprintf(stderr, "weave-failures: %s: %s\n", what, strerror(-err));
	return 1;
}

/* How many failures @size bytes at 0 of @bo carry; the first in @f. */
static int failures_on(int fd, uint32_t bo, uint64_t size,
		       struct drm_weave_failure *f,
		       struct drm_weave_failure_task *skips, uint32_t *n)
{
	struct drm_weave_check_range r = weave_check_range(bo, 0, size);
	uint32_t nf = 1, ns = DRM_WEAVE_FAILURE_SKIPS;
	int ret;

	ret = weave_check(fd, &r, 1, f, &nf, skips, &ns);
	*n = r.nfailures;
	return ret;
}

static int run(int fd)
{
	struct drm_weave_failure_task skips[DRM_WEAVE_FAILURE_SKIPS];
	uint32_t producer, consumer, a, b, c, d, e, n;
	uint32_t einval = EINVAL, pattern = 0x600d;
	struct drm_weave_binding bind[3], fill[1], crc[2];
	struct drm_weave_failure f;
	struct drm_weave_task t[3];
	uint64_t size = BYTES, seqno = 0;
	char msg[512];
	int ret;

	ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &producer);
	if (!ret)
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL,
					  &consumer);
	if (ret)
		return fail("stream_create", ret);
	ret = weave_bo_create(fd, &size, 0, &a);
	if (!ret)
		ret = weave_bo_create(fd, &size, 0, &b);
	if (!ret)
		ret = weave_bo_create(fd, &size, 0, &c);
	if (!ret)
		ret = weave_bo_create(fd, &size, 0, &d);
	if (!ret)
		ret = weave_bo_create(fd, &size, 0, &e);
	if (ret)
		return fail("bo_create", ret);

	/* The producer's FAIL should have written A. */
	bind[0] = weave_binding(a, DRM_WEAVE_ACCESS_WRITE, 0, BYTES);
	weave_task_launch(&t[0], DRM_WEAVE_KERNEL_FAIL, bind, 1, &einval,
			  sizeof(einval));
	t[0].label = LABEL;
	ret = weave_enqueue(fd, producer, t, 1, NULL, 0, NULL);
	if (!ret)
		ret = weave_flush(fd, producer, NULL);
	if (ret)
		return fail("producer", ret);

	/*
	 * C = A + B, E filled, D = crc32c(C), in one enqueue.  A task points
	 * at its bindings, which ENQUEUE reads: each needs its own.
	 */
	bind[0] = weave_binding(a, DRM_WEAVE_ACCESS_READ, 0, BYTES);
	bind[1] = weave_binding(b, DRM_WEAVE_ACCESS_READ, 0, BYTES);
	bind[2] = weave_binding(c, DRM_WEAVE_ACCESS_WRITE, 0, BYTES);
	weave_task_launch(&t[0], DRM_WEAVE_KERNEL_ADD_U32, bind, 3, NULL, 0);
	fill[0] = weave_binding(e, DRM_WEAVE_ACCESS_WRITE, 0, BYTES);
	weave_task_launch(&t[1], DRM_WEAVE_KERNEL_FILL, fill, 1, &pattern,
			  sizeof(pattern));
	crc[0] = weave_binding(c, DRM_WEAVE_ACCESS_READ, 0, BYTES);
	crc[1] = weave_binding(d, DRM_WEAVE_ACCESS_WRITE, 0, 4);
	weave_task_launch(&t[2], DRM_WEAVE_KERNEL_CRC32C, crc, 2, NULL, 0);
	/* Queue and submit in one call (uAPI 1.8), then wait for its seqno. */
	ret = weave_enqueue_flush(fd, consumer, t, 3, NULL, 0, NULL, 0, &seqno);
	if (!ret)
		ret = weave_wait_seqno(fd, consumer, seqno, INT64_MAX);
	if (ret)
		return fail("consumer (no task failure reaches a stream)", ret);

	ret = failures_on(fd, e, BYTES, &f, skips, &n);
	if (ret || n) {
		fprintf(stderr, "weave-failures: E carries %u failures (%d)\n",
			n, ret);
		return 1;
	}
	ret = failures_on(fd, d, 4, &f, skips, &n);
	if (ret || n != 1)
		return fail("check D", ret ?: -EPROTO);
	weave_failure_format(msg, sizeof(msg), &f, skips);
	printf("weave-failures: D: %s\n", msg);
	if (f.error != -EINVAL || f.root.label != LABEL || f.nskips != 2 ||
	    skips[0].kernel != DRM_WEAVE_KERNEL_ADD_U32 ||
	    skips[1].kernel != DRM_WEAVE_KERNEL_CRC32C || f.buffers != 3) {
		fprintf(stderr, "weave-failures: unexpected report\n");
		return 1;
	}

	/* Rewriting D makes it good; A and C still carry the failure. */
	bind[0] = weave_binding(d, DRM_WEAVE_ACCESS_WRITE, 0, BYTES);
	weave_task_launch(&t[0], DRM_WEAVE_KERNEL_FILL, bind, 1, &pattern,
			  sizeof(pattern));
	ret = weave_enqueue_flush(fd, consumer, t, 1, NULL, 0, NULL, 0, &seqno);
	if (!ret)
		ret = weave_wait_seqno(fd, consumer, seqno, INT64_MAX);
	if (!ret)
		ret = failures_on(fd, d, BYTES, &f, skips, &n);
	if (ret || n)
		return fail("D after the refill", ret ?: -EPROTO);
	ret = failures_on(fd, c, BYTES, &f, skips, &n);
	if (ret || n != 1 || f.buffers != 2)
		return fail("C after the refill", ret ?: -EPROTO);
	return 0;
}

int main(int argc, char **argv)
{
	int fd, ret;

	fd = weave_device_open(argc > 1 ? atoi(argv[1]) : 0);
	if (fd < 0)
		return fail("open", fd);
	ret = run(fd);
	weave_device_close(fd);
	if (!ret)
		printf("weave-failures: OK\n");
	return ret;
}
