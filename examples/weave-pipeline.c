// SPDX-License-Identifier: MIT
/*
 * weave-pipeline: a three-stage pipeline over three streams.
 *
 * Stage 1 (stream "upload") host-writes two input vectors; stage 2
 * (stream "compute") adds them element-wise; stage 3 (stream "checksum")
 * copies the sum out and takes its crc32c.  The stages share buffers and
 * never synchronise by hand: weave orders the work on shared buffers.  One
 * flush of every stream hands back an out-fence on a timeline syncobj,
 * which the example waits on with libdrm, then checks every word and the
 * checksum in user space.  Prints "weave-pipeline: OK" and exits 0 on
 * success; prints what failed and exits 1 otherwise.
 *
 * Usage: weave-pipeline [INDEX]    (INDEX: which weave device, default 0)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include <weave.h>

#define WORDS		4096
#define BYTES		(WORDS * sizeof(uint32_t))
#define ROUNDS		4

static int fail(const char *what, int err)
{
	fprintf(stderr, "weave-pipeline: %s: %s\n", what, strerror(-err));
	return 1;
}

static uint32_t crc32c(const void *ptr, size_t len)
{
	const unsigned char *p = ptr;
	uint32_t crc = ~0u;
	int bit;

	while (len--) {
		crc ^= *p++;
		for (bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (0x82f63b78u & -(crc & 1));
	}
	return ~crc;
}

static int create_bo(int fd, uint64_t size, uint32_t *handle)
{
	return weave_bo_create(fd, &size, 0, handle);
}

static int run(int fd)
{
	uint32_t upload, compute, checksum, in, sum, out, crc, syncobj;
	static uint32_t x[WORDS], y[WORDS], expect[WORDS];
	struct drm_weave_binding bind[ROUNDS][4][3];
	struct drm_weave_task task[ROUNDS][5];
	struct drm_weave_sync done;
	uint32_t *map, *crcs, round, i;
	uint64_t point = 1;
	int ret;

	ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &upload);
	if (!ret)
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &compute);
	if (!ret)
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &checksum);
	if (ret)
		return fail("create streams", ret);
	/* in: x then y; sum; out: one result per round; crc: one per round. */
	ret = create_bo(fd, 2 * BYTES, &in);
	if (!ret)
		ret = create_bo(fd, BYTES, &sum);
	if (!ret)
		ret = create_bo(fd, ROUNDS * BYTES, &out);
	if (!ret)
		ret = create_bo(fd, 4096, &crc);
	if (ret)
		return fail("create buffers", ret);

	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < WORDS; i++) {
			x[i] = i * 0x9e3779b9u + round;
			y[i] = (i ^ 0xabcdu) * (round + 3);
		}
		/* Stage 1: upload; the bytes are staged, x and y reusable. */
		bind[round][0][0] = weave_binding(in, DRM_WEAVE_ACCESS_WRITE, 0,
						  BYTES);
		bind[round][0][1] = weave_binding(in, DRM_WEAVE_ACCESS_WRITE,
						  BYTES, BYTES);
		weave_task_host_write(&task[round][0], &bind[round][0][0], x);
		weave_task_host_write(&task[round][1], &bind[round][0][1], y);
		ret = weave_enqueue(fd, upload, task[round], 2, NULL, 0, NULL);
		if (ret)
			return fail("enqueue upload", ret);

		/* Stage 2: sum = x + y. */
		bind[round][1][0] = weave_binding(in, DRM_WEAVE_ACCESS_READ, 0,
						  BYTES);
		bind[round][1][1] = weave_binding(in, DRM_WEAVE_ACCESS_READ,
						  BYTES, BYTES);
		bind[round][1][2] = weave_binding(sum, DRM_WEAVE_ACCESS_WRITE, 0,
						  BYTES);
		weave_task_launch(&task[round][2], DRM_WEAVE_KERNEL_ADD_U32,
				  bind[round][1], 3, NULL, 0);
		ret = weave_enqueue(fd, compute, &task[round][2], 1, NULL, 0,
				    NULL);
		if (ret)
			return fail("enqueue compute", ret);

		/* Stage 3: out[round] = sum; crc[round] = crc32c(out[round]). */
		bind[round][2][0] = weave_binding(sum, DRM_WEAVE_ACCESS_READ, 0,
						  BYTES);
		bind[round][2][1] = weave_binding(out, DRM_WEAVE_ACCESS_WRITE,
						  round * BYTES, BYTES);
		weave_task_launch(&task[round][3], DRM_WEAVE_KERNEL_COPY,
				  bind[round][2], 2, NULL, 0);
		bind[round][3][0] = weave_binding(out, DRM_WEAVE_ACCESS_READ,
						  round * BYTES, BYTES);
		bind[round][3][1] = weave_binding(crc, DRM_WEAVE_ACCESS_WRITE,
						  4 * round, 4);
		weave_task_launch(&task[round][4], DRM_WEAVE_KERNEL_CRC32C,
				  bind[round][3], 2, NULL, 0);
		ret = weave_enqueue(fd, checksum, &task[round][3], 2, NULL, 0,
				    NULL);
		if (ret)
			return fail("enqueue checksum", ret);
	}

	ret = drmSyncobjCreate(fd, 0, &syncobj) ? -errno : 0;
	if (ret)
		return fail("create syncobj", ret);
	done = weave_sync(syncobj, point);
	ret = weave_flush_all(fd, &done);
	if (ret)
		return fail("flush all", ret);
	ret = drmSyncobjTimelineWait(fd, &syncobj, &point, 1,
				     weave_timeout_ns(30000000000ll),
				     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL);
	if (ret)
		return fail("wait for the out-fence", ret);
	printf("pipeline: %u rounds over 3 streams completed\n", ROUNDS);

	ret = weave_bo_mmap(fd, out, ROUNDS * BYTES, PROT_READ, (void **)&map);
	if (ret)
		return fail("map results", ret);
	ret = weave_bo_mmap(fd, crc, 4096, PROT_READ, (void **)&crcs);
	if (ret)
		return fail("map checksums", ret);
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < WORDS; i++) {
			expect[i] = i * 0x9e3779b9u + round +
				    (i ^ 0xabcdu) * (round + 3);
			if (map[round * WORDS + i] != expect[i]) {
				fprintf(stderr,
					"weave-pipeline: round %u word %u is %#x, expected %#x\n",
					round, i, map[round * WORDS + i],
					expect[i]);
				return 1;
			}
		}
		if (crcs[round] != crc32c(expect, BYTES)) {
			fprintf(stderr,
				"weave-pipeline: round %u crc32c %#x, expected %#x\n",
				round, crcs[round], crc32c(expect, BYTES));
			return 1;
		}
		printf("round %u: %u words and crc32c %#010x verified\n", round,
		       WORDS, crcs[round]);
	}
	weave_bo_munmap(map, ROUNDS * BYTES);
	weave_bo_munmap(crcs, 4096);
	drmSyncobjDestroy(fd, syncobj);
	weave_stream_destroy(fd, upload);
	weave_stream_destroy(fd, compute);
	weave_stream_destroy(fd, checksum);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int index = argc > 1 ? strtoul(argv[1], NULL, 0) : 0;
	int fd, ret;

	fd = weave_device_open(index);
	if (fd < 0) {
		fprintf(stderr, "weave-pipeline: no weave device %u: %s (is weave.ko loaded?)\n",
			index, strerror(-fd));
		return 1;
	}
	ret = run(fd);
	weave_device_close(fd);
	if (!ret)
		printf("weave-pipeline: OK\n");
	return ret;
}
