// SPDX-License-Identifier: MIT
/*
 * weave-graph: record a step once as a graph, then replay it each round.
 *
 * The step (stream "compute") adds two input vectors element-wise, then
 * doubles the sum in place by adding it to itself.  It is captured once:
 * PREPARE isolates the stream's slot, BEGIN starts recording, the step's
 * launches are enqueued (recorded, not run) and END seals them into a
 * graph.  Each round then uploads new inputs on another stream and
 * replays the graph with an out-fence on a timeline syncobj: weave orders
 * the replay after the upload, as the two share a buffer, without a wait
 * in between.  The example waits for each round's point with libdrm and
 * checks every word.  Prints "weave-graph: OK" and exits 0 on success;
 * prints what failed and exits 1 otherwise.
 *
 * Usage: weave-graph [INDEX]    (INDEX: which weave device, default 0)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <xf86drm.h>

#include <weave.h>

#define WORDS		4096
#define BYTES		(WORDS * sizeof(uint32_t))
#define ROUNDS		4

static int fail(const char *what, int err)
{
	fprintf(stderr, "weave-graph: %s: %s\n", what, strerror(-err));
	return 1;
}

/* Capture the step on @compute: out = 2 * (in[0] + in[1]). */
static int capture(int fd, uint32_t compute, uint32_t in, uint32_t out,
		   uint32_t *graph)
{
	struct drm_weave_binding add[3], twice[3];
	struct drm_weave_capture cap;
	struct drm_weave_task task[2];
	int ret;

	add[0] = weave_binding(in, DRM_WEAVE_ACCESS_READ, 0, BYTES);
	add[1] = weave_binding(in, DRM_WEAVE_ACCESS_READ, BYTES, BYTES);
	add[2] = weave_binding(out, DRM_WEAVE_ACCESS_WRITE, 0, BYTES);
	weave_task_launch(&task[0], DRM_WEAVE_KERNEL_ADD_U32, add, 3, NULL, 0);
	twice[0] = weave_binding(out, DRM_WEAVE_ACCESS_READ, 0, BYTES);
	twice[1] = weave_binding(out, DRM_WEAVE_ACCESS_READ, 0, BYTES);
	twice[2] = weave_binding(out, DRM_WEAVE_ACCESS_WRITE, 0, BYTES);
	weave_task_launch(&task[1], DRM_WEAVE_KERNEL_ADD_U32, twice, 3, NULL,
			  0);

	ret = weave_capture(fd, compute, DRM_WEAVE_CAPTURE_PREPARE, &cap);
	if (!ret)
		ret = weave_capture(fd, compute, DRM_WEAVE_CAPTURE_BEGIN, &cap);
	if (!ret)
		ret = weave_enqueue(fd, compute, task, 2, NULL, 0, NULL);
	if (!ret)
		ret = weave_capture(fd, compute, DRM_WEAVE_CAPTURE_END, &cap);
	if (ret) {
		/* Whatever state the window is in, close it. */
		weave_capture(fd, compute, DRM_WEAVE_CAPTURE_ABORT, &cap);
		return ret;
	}
	printf("graph %u: %u tasks recorded\n", cap.graph, cap.ntasks);
	*graph = cap.graph;
	return 0;
}

static int run(int fd)
{
	uint32_t upload, compute, in, out, graph, syncobj, round, i;
	static uint32_t x[WORDS], y[WORDS];
	struct drm_weave_binding bind[2];
	struct drm_weave_task write[2];
	struct drm_weave_sync done;
	uint64_t size, point;
	uint32_t *map;
	int ret;

	ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &upload);
	if (!ret)
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &compute);
	if (ret)
		return fail("create streams", ret);
	size = 2 * BYTES;
	ret = weave_bo_create(fd, &size, 0, &in);
	size = BYTES;
	if (!ret)
		ret = weave_bo_create(fd, &size, 0, &out);
	if (ret)
		return fail("create buffers", ret);
	ret = drmSyncobjCreate(fd, 0, &syncobj) ? -errno : 0;
	if (ret)
		return fail("create syncobj", ret);
	ret = capture(fd, compute, in, out, &graph);
	if (ret)
		return fail("capture", ret);
	ret = weave_bo_mmap(fd, out, BYTES, PROT_READ, (void **)&map);
	if (ret)
		return fail("map the result", ret);

	bind[0] = weave_binding(in, DRM_WEAVE_ACCESS_WRITE, 0, BYTES);
	bind[1] = weave_binding(in, DRM_WEAVE_ACCESS_WRITE, BYTES, BYTES);
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < WORDS; i++) {
			x[i] = i * 0x9e3779b9u + round;
			y[i] = (i ^ 0x5a5au) * (round + 7);
		}
		/* The upload is staged: x and y can be reused at once. */
		weave_task_host_write(&write[0], &bind[0], x);
		weave_task_host_write(&write[1], &bind[1], y);
		ret = weave_enqueue(fd, upload, write, 2, NULL, 0, NULL);
		if (ret)
			return fail("enqueue the upload", ret);
		point = round + 1;
		done = weave_sync(syncobj, point);
		ret = weave_replay(fd, graph, compute, NULL, 0, &done, NULL);
		if (ret)
			return fail("replay", ret);
		ret = drmSyncobjTimelineWait(fd, &syncobj, &point, 1,
					     weave_timeout_ns(30000000000ll),
					     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL,
					     NULL);
		if (ret)
			return fail("wait for the replay", ret);
		for (i = 0; i < WORDS; i++) {
			if (map[i] == 2 * (x[i] + y[i]))
				continue;
			fprintf(stderr,
				"weave-graph: round %u word %u is %#x, expected %#x\n",
				round, i, map[i], 2 * (x[i] + y[i]));
			return 1;
		}
		printf("round %u: replayed, %u words verified\n", round, WORDS);
	}

	weave_bo_munmap(map, BYTES);
	ret = weave_graph_destroy(fd, graph);
	if (ret)
		return fail("destroy the graph", ret);
	drmSyncobjDestroy(fd, syncobj);
	weave_stream_destroy(fd, upload);
	weave_stream_destroy(fd, compute);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int index = argc > 1 ? strtoul(argv[1], NULL, 0) : 0;
	int fd, ret;

	fd = weave_device_open(index);
	if (fd < 0) {
		fprintf(stderr, "weave-graph: no weave device %u: %s (is weave.ko loaded?)\n",
			index, strerror(-fd));
		return 1;
	}
	ret = run(fd);
	weave_device_close(fd);
	if (!ret)
		printf("weave-graph: OK\n");
	return ret;
}
