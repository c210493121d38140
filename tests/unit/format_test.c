// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of libweave's failure formatter, libshim/failure.c, in user
 * space: the line weave_failure_format() writes for a report of
 * DRM_IOCTL_WEAVE_CHECK, its snprintf()-style length and cutting, and the
 * caller's struct sizes, as weave_failure_format_sized() takes them.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

/* The harness's TEST() has an unused parameter; -Wextra is otherwise kept. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "weave.h"

static char line[1024];

/* A task of the caller's file, or another's (own 0: its fields hidden). */
static struct drm_weave_failure_task task(uint32_t kernel, uint32_t stream,
					  uint64_t seqno, uint32_t label,
					  int own)
{
	struct drm_weave_failure_task t;

	memset(&t, 0, sizeof(t));
	t.type = DRM_WEAVE_TASK_LAUNCH;
	t.kernel = kernel;
	if (own) {
		t.stream = stream;
		t.seqno = seqno;
		t.label = label;
		t.flags = DRM_WEAVE_FAILURE_TASK_OWN;
	}
	return t;
}

static struct drm_weave_failure failure(uint64_t id, int error,
					struct drm_weave_failure_task root,
					uint32_t first_skip, uint32_t nskips,
					uint64_t dropped)
{
	struct drm_weave_failure f;

	memset(&f, 0, sizeof(f));
	f.id = id;
	f.error = error;
	f.cause = DRM_WEAVE_FAILURE_KERNEL;
	f.root = root;
	f.buffers = 1;
	f.first_skip = first_skip;
	f.nskips = nskips;
	f.skips_dropped = dropped;
	return f;
}

/* Formats into line; checks the return is the line's length. */
static const char *fmt(struct __test_metadata *_metadata,
		       const struct drm_weave_failure *f,
		       const struct drm_weave_failure_task *skips)
{
	int n;

	memset(line, 0x7f, sizeof(line));
	n = weave_failure_format(line, sizeof(line), f, skips);
	EXPECT_LT(0, n);
	EXPECT_GT((int)sizeof(line), n);
	EXPECT_EQ((size_t)n, strlen(line));
	return line;
}

/* The example of the issue and of weave.h, exactly. */
TEST(example_line)
{
	struct drm_weave_failure_task skips[2] = {
		task(DRM_WEAVE_KERNEL_ADD_U32, 5, 12, 0, 1),
		task(DRM_WEAVE_KERNEL_CRC32C, 5, 13, 0, 1),
	};
	struct drm_weave_failure f = failure(7, -EINVAL,
		task(DRM_WEAVE_KERNEL_FAIL, 3, 41, 7, 1), 0, 2, 0);

	EXPECT_STREQ("failed: kernel \"fail\" (stream 3, seq 41, label 7) returned -EINVAL; then skipped \"add\" (stream 5, seq 12) and \"crc32c\" (stream 5, seq 13); failure #7",
		     fmt(_metadata, &f, skips));
}

/* Another file's tasks: no stream, sequence number or label. */
TEST(private_fields_only_with_own)
{
	struct drm_weave_failure_task skips[2] = {
		task(DRM_WEAVE_KERNEL_COPY, 5, 12, 3, 1),
		task(DRM_WEAVE_KERNEL_CRC32C, 0, 0, 0, 0),
	};
	struct drm_weave_failure f = failure(9, -EIO,
		task(DRM_WEAVE_KERNEL_FAIL, 0, 0, 0, 0), 0, 2, 0);

	EXPECT_STREQ("failed: kernel \"fail\" returned -EIO; then skipped \"copy\" (stream 5, seq 12, label 3) and \"crc32c\"; failure #9",
		     fmt(_metadata, &f, skips));
	/* The fields without the flag are not shown, whatever they hold. */
	f.root.stream = 3;
	f.root.seqno = 4;
	f.root.label = 5;
	EXPECT_STREQ("failed: kernel \"fail\" returned -EIO; then skipped \"copy\" (stream 5, seq 12, label 3) and \"crc32c\"; failure #9",
		     fmt(_metadata, &f, skips));
}

TEST(no_skips)
{
	struct drm_weave_failure f = failure(1, -ETIMEDOUT,
		task(DRM_WEAVE_KERNEL_DELAY, 1, 18446744073709551615ull, 0, 1),
		0, 0, 0);

	EXPECT_STREQ("failed: kernel \"delay\" (stream 1, seq 18446744073709551615) returned -ETIMEDOUT; failure #1",
		     fmt(_metadata, &f, NULL));
}

/* A list: commas, then "and"; the failure's own skips, from first_skip. */
TEST(three_skips_at_first_skip)
{
	struct drm_weave_failure_task skips[6] = {
		task(DRM_WEAVE_KERNEL_NOOP, 9, 9, 9, 1),
		task(DRM_WEAVE_KERNEL_NOOP, 9, 9, 9, 1),
		task(DRM_WEAVE_KERNEL_COPY, 2, 10, 0, 1),
		task(DRM_WEAVE_KERNEL_ADD_U32, 4, 11, 1, 1),
		task(DRM_WEAVE_KERNEL_FILL, 2, 12, 0, 1),
		task(DRM_WEAVE_KERNEL_NOOP, 9, 9, 9, 1),
	};
	struct drm_weave_failure f = failure(18446744073709551615ull, -ENOMEM,
		task(DRM_WEAVE_KERNEL_FAIL, 1, 3, 0, 1), 2, 3, 0);

	EXPECT_STREQ("failed: kernel \"fail\" (stream 1, seq 3) returned -ENOMEM; then skipped \"copy\" (stream 2, seq 10), \"add\" (stream 4, seq 11, label 1) and \"fill\" (stream 2, seq 12); failure #18446744073709551615",
		     fmt(_metadata, &f, skips));
}

TEST(earlier_skips_counted)
{
	struct drm_weave_failure_task skips[2] = {
		task(DRM_WEAVE_KERNEL_COPY, 2, 20, 0, 1),
		task(DRM_WEAVE_KERNEL_COPY, 2, 21, 0, 1),
	};
	struct drm_weave_failure f = failure(3, -EINVAL,
		task(DRM_WEAVE_KERNEL_FAIL, 1, 1, 0, 1), 0, 2, 4);

	EXPECT_STREQ("failed: kernel \"fail\" (stream 1, seq 1) returned -EINVAL; then skipped \"copy\" (stream 2, seq 20) and \"copy\" (stream 2, seq 21), and 4 earlier skips; failure #3",
		     fmt(_metadata, &f, skips));
	f.skips_dropped = 1;
	f.nskips = 1;
	EXPECT_STREQ("failed: kernel \"fail\" (stream 1, seq 1) returned -EINVAL; then skipped \"copy\" (stream 2, seq 20), and 1 earlier skip; failure #3",
		     fmt(_metadata, &f, skips));
}

/* Without the skip array, or without kept records, only a number. */
TEST(skips_counted_without_array)
{
	struct drm_weave_failure f = failure(3, -EINVAL,
		task(DRM_WEAVE_KERNEL_FAIL, 1, 1, 0, 1), 0, 2, 0);

	EXPECT_STREQ("failed: kernel \"fail\" (stream 1, seq 1) returned -EINVAL; then skipped 2 tasks; failure #3",
		     fmt(_metadata, &f, NULL));
	f.nskips = 16;
	f.skips_dropped = 5;
	EXPECT_STREQ("failed: kernel \"fail\" (stream 1, seq 1) returned -EINVAL; then skipped 21 tasks; failure #3",
		     fmt(_metadata, &f, NULL));
	f.nskips = 0;
	f.skips_dropped = 1;
	EXPECT_STREQ("failed: kernel \"fail\" (stream 1, seq 1) returned -EINVAL; then skipped 1 task; failure #3",
		     fmt(_metadata, &f, NULL));
}

/* Errors without a name are numbers; glibc names what the table lacks. */
TEST(error_names)
{
	struct drm_weave_failure f = failure(2, -4000,
		task(DRM_WEAVE_KERNEL_FAIL, 0, 0, 0, 0), 0, 0, 0);

	EXPECT_STREQ("failed: kernel \"fail\" returned -4000; failure #2",
		     fmt(_metadata, &f, NULL));
	f.error = 5;
	EXPECT_STREQ("failed: kernel \"fail\" returned 5; failure #2",
		     fmt(_metadata, &f, NULL));
	f.error = -ECANCELED;
	EXPECT_STREQ("failed: kernel \"fail\" returned -ECANCELED; failure #2",
		     fmt(_metadata, &f, NULL));
#if defined(__GLIBC__) && \
	(__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
	f.error = -ENOTRECOVERABLE;
	EXPECT_STREQ("failed: kernel \"fail\" returned -ENOTRECOVERABLE; failure #2",
		     fmt(_metadata, &f, NULL));
#endif
}

/* Host writes, kernels and types this library does not know, overflow. */
TEST(other_tasks_and_causes)
{
	struct drm_weave_failure_task skips[2] = {
		task(42, 2, 5, 0, 1),
		task(DRM_WEAVE_KERNEL_COPY, 0, 0, 0, 0),
	};
	struct drm_weave_failure f = failure(4, -EIO,
		task(99, 1, 2, 0, 1), 0, 2, 0);

	skips[1].type = DRM_WEAVE_TASK_HOST_WRITE;
	skips[1].kernel = 0;
	EXPECT_STREQ("failed: kernel 99 (stream 1, seq 2) returned -EIO; then skipped kernel 42 (stream 2, seq 5) and host write; failure #4",
		     fmt(_metadata, &f, skips));
	f.root.type = DRM_WEAVE_TASK_HOST_WRITE;
	f.root.kernel = 0;
	f.nskips = 0;
	EXPECT_STREQ("failed: host write (stream 1, seq 2) returned -EIO; failure #4",
		     fmt(_metadata, &f, skips));
	f.root.type = 7;
	EXPECT_STREQ("failed: task of type 7 (stream 1, seq 2) returned -EIO; failure #4",
		     fmt(_metadata, &f, skips));
	f.root = task(DRM_WEAVE_KERNEL_FAIL, 1, 2, 0, 1);
	f.cause = DRM_WEAVE_FAILURE_OVERFLOW;
	EXPECT_STREQ("failed: kernel \"fail\" (stream 1, seq 2) returned -EIO, and the tasks that failed after it too (over max_live_failures); failure #4",
		     fmt(_metadata, &f, skips));
	f.cause = 9;
	EXPECT_STREQ("failed: kernel \"fail\" (stream 1, seq 2) returned -EIO (cause 9); failure #4",
		     fmt(_metadata, &f, skips));
}

/* A timeout: the root "timed out", with the errno the kernel gave. */
TEST(cause_timeout)
{
	struct drm_weave_failure_task skips[1] = {
		task(DRM_WEAVE_KERNEL_COPY, 3, 42, 0, 1),
	};
	struct drm_weave_failure f = failure(12, -ETIMEDOUT,
		task(DRM_WEAVE_KERNEL_DELAY, 3, 41, 0, 1), 0, 0, 0);

	f.cause = DRM_WEAVE_FAILURE_TIMEOUT;
	EXPECT_STREQ("failed: kernel \"delay\" (stream 3, seq 41) timed out (-ETIMEDOUT); failure #12",
		     fmt(_metadata, &f, NULL));
	f.nskips = 1;
	f.root = task(DRM_WEAVE_KERNEL_FILL, 0, 0, 0, 0);
	EXPECT_STREQ("failed: kernel \"fill\" timed out (-ETIMEDOUT); then skipped \"copy\" (stream 3, seq 42); failure #12",
		     fmt(_metadata, &f, skips));
}

/* An in-fence error: the root "did not run", and the in-sync's errno. */
TEST(cause_in_fence)
{
	struct drm_weave_failure_task skips[2] = {
		task(DRM_WEAVE_KERNEL_ADD_U32, 5, 12, 2, 1),
		task(DRM_WEAVE_KERNEL_CRC32C, 0, 0, 0, 0),
	};
	struct drm_weave_failure f = failure(13, -ETIMEDOUT,
		task(DRM_WEAVE_KERNEL_FILL, 3, 41, 0, 1), 0, 0, 0);

	f.cause = DRM_WEAVE_FAILURE_IN_FENCE;
	EXPECT_STREQ("failed: kernel \"fill\" (stream 3, seq 41) did not run: an in-sync signalled -ETIMEDOUT; failure #13",
		     fmt(_metadata, &f, NULL));
	f.error = -ECANCELED;
	f.nskips = 2;
	f.root.label = 4;
	EXPECT_STREQ("failed: kernel \"fill\" (stream 3, seq 41, label 4) did not run: an in-sync signalled -ECANCELED; then skipped \"add\" (stream 5, seq 12, label 2) and \"crc32c\"; failure #13",
		     fmt(_metadata, &f, skips));
	f.root.type = DRM_WEAVE_TASK_HOST_WRITE;
	f.root.kernel = 0;
	f.error = -4000;
	f.nskips = 0;
	EXPECT_STREQ("failed: host write (stream 3, seq 41, label 4) did not run: an in-sync signalled -4000; failure #13",
		     fmt(_metadata, &f, NULL));
}

/* A kernel's error and an overflow still say "returned". */
TEST(cause_kernel_and_overflow)
{
	struct drm_weave_failure f = failure(14, -EINVAL,
		task(DRM_WEAVE_KERNEL_FAIL, 3, 41, 0, 1), 0, 0, 0);

	EXPECT_STREQ("failed: kernel \"fail\" (stream 3, seq 41) returned -EINVAL; failure #14",
		     fmt(_metadata, &f, NULL));
	f.cause = DRM_WEAVE_FAILURE_OVERFLOW;
	EXPECT_STREQ("failed: kernel \"fail\" (stream 3, seq 41) returned -EINVAL, and the tasks that failed after it too (over max_live_failures); failure #14",
		     fmt(_metadata, &f, NULL));
	f.cause = DRM_WEAVE_FAILURE_CAPTURE + 1;
	EXPECT_STREQ("failed: kernel \"fail\" (stream 3, seq 41) returned -EINVAL (cause 7); failure #14",
		     fmt(_metadata, &f, NULL));
}

/* A job cut short by a close or an unplug: "was cancelled". */
TEST(cause_canceled)
{
	struct drm_weave_failure f = failure(15, -ECANCELED,
		task(DRM_WEAVE_KERNEL_DELAY, 3, 41, 0, 1), 0, 0, 0);

	f.cause = DRM_WEAVE_FAILURE_CANCELED;
	EXPECT_STREQ("failed: kernel \"delay\" (stream 3, seq 41) was cancelled (-ECANCELED); failure #15",
		     fmt(_metadata, &f, NULL));
	f.root.flags = 0;
	f.root.stream = 0;
	f.root.seqno = 0;
	f.error = -ENODEV;
	EXPECT_STREQ("failed: kernel \"delay\" was cancelled (-ENODEV); failure #15",
		     fmt(_metadata, &f, NULL));
}

/*
 * A task the kernel had no memory to pack into a job (uAPI 1.4): "did
 * not run: the kernel could not submit it", with a skip after it.
 */
TEST(cause_encode)
{
	struct drm_weave_failure_task skips[1] = {
		task(DRM_WEAVE_KERNEL_COPY, 3, 42, 0, 1),
	};
	struct drm_weave_failure f = failure(16, -ENOMEM,
		task(DRM_WEAVE_KERNEL_FILL, 3, 41, 9, 1), 0, 1, 0);

	f.cause = DRM_WEAVE_FAILURE_ENCODE;
	EXPECT_STREQ("failed: kernel \"fill\" (stream 3, seq 41, label 9) did not run: the kernel could not submit it (-ENOMEM); then skipped \"copy\" (stream 3, seq 42); failure #16",
		     fmt(_metadata, &f, skips));
	f.root = task(0, 0, 0, 0, 0);
	f.root.type = DRM_WEAVE_TASK_HOST_WRITE;
	f.nskips = 0;
	EXPECT_STREQ("failed: host write did not run: the kernel could not submit it (-ENOMEM); failure #16",
		     fmt(_metadata, &f, NULL));
}

/*
 * A task a capture window refused (uAPI 1.5): "did not run: a capture
 * window refused it".
 */
TEST(cause_capture)
{
	struct drm_weave_failure f = failure(17, -EBUSY,
		task(0, 3, 41, 0, 1), 0, 0, 0);

	f.root.type = DRM_WEAVE_TASK_HOST_WRITE;
	f.cause = DRM_WEAVE_FAILURE_CAPTURE;
	EXPECT_STREQ("failed: host write (stream 3, seq 41) did not run: a capture window refused it (-EBUSY); failure #17",
		     fmt(_metadata, &f, NULL));
}

/* snprintf(): the whole length, whatever fits, always terminated. */
TEST(length_and_cutting)
{
	struct drm_weave_failure_task skips[2] = {
		task(DRM_WEAVE_KERNEL_ADD_U32, 5, 12, 0, 1),
		task(DRM_WEAVE_KERNEL_CRC32C, 5, 13, 0, 1),
	};
	struct drm_weave_failure f = failure(7, -EINVAL,
		task(DRM_WEAVE_KERNEL_FAIL, 3, 41, 7, 1), 0, 2, 0);
	char whole[256], small[21];
	int n, len;

	len = weave_failure_format(whole, sizeof(whole), &f, skips);
	ASSERT_EQ((int)strlen(whole), len);
	EXPECT_EQ(len, weave_failure_format(NULL, 0, &f, skips));

	memset(small, 0x7f, sizeof(small));
	n = weave_failure_format(small, sizeof(small), &f, skips);
	EXPECT_EQ(len, n);
	EXPECT_EQ(sizeof(small) - 1, strlen(small));
	EXPECT_EQ(0, strncmp(whole, small, sizeof(small) - 1));

	/* Exactly room for it, and one byte short. */
	memset(whole, 0x7f, sizeof(whole));
	EXPECT_EQ(len, weave_failure_format(whole, len + 1, &f, skips));
	EXPECT_EQ((size_t)len, strlen(whole));
	EXPECT_EQ(0x7f, whole[len + 1]);
	memset(whole, 0x7f, sizeof(whole));
	EXPECT_EQ(len, weave_failure_format(whole, len, &f, skips));
	EXPECT_EQ((size_t)len - 1, strlen(whole));
	EXPECT_EQ(0x7f, whole[len]);

	/* One byte: just the terminator. */
	small[0] = 'x';
	EXPECT_EQ(len, weave_failure_format(small, 1, &f, skips));
	EXPECT_EQ(0, small[0]);
}

TEST(bad_arguments)
{
	struct drm_weave_failure f = failure(1, -EIO,
		task(DRM_WEAVE_KERNEL_FAIL, 1, 1, 0, 1), 0, 0, 0);

	EXPECT_EQ(-EINVAL, weave_failure_format(line, sizeof(line), NULL,
						NULL));
	EXPECT_EQ(-EINVAL, weave_failure_format(NULL, 8, &f, NULL));
	/* Smaller than the structs of uAPI 1.3. */
	EXPECT_EQ(-EINVAL, weave_failure_format_sized(line, sizeof(line), &f,
						      sizeof(f) - 8, NULL, 0));
	EXPECT_EQ(-EINVAL, weave_failure_format_sized(line, sizeof(line), &f,
						      sizeof(f),
						      (const void *)&f, 16));
}

/*
 * A caller built against a later uAPI, whose structs grew: the library
 * reads the fields it knows and finds the skips at the caller's stride.
 */
TEST(callers_sizes)
{
	struct grown_task {
		struct drm_weave_failure_task t;
		uint64_t later;
	} skips[3];
	struct grown_failure {
		struct drm_weave_failure f;
		uint64_t later[2];
	} g;
	unsigned int i;
	int n;

	memset(skips, 0xee, sizeof(skips));
	for (i = 0; i < 3; i++)
		skips[i].t = task(DRM_WEAVE_KERNEL_COPY, 6, 100 + i, 0, 1);
	memset(&g, 0xee, sizeof(g));
	g.f = failure(11, -EIO, task(DRM_WEAVE_KERNEL_FAIL, 6, 99, 0, 1),
		      1, 2, 0);
	n = weave_failure_format_sized(line, sizeof(line), &g.f, sizeof(g),
				       &skips[0].t, sizeof(skips[0]));
	EXPECT_EQ((int)strlen(line), n);
	EXPECT_STREQ("failed: kernel \"fail\" (stream 6, seq 99) returned -EIO; then skipped \"copy\" (stream 6, seq 101) and \"copy\" (stream 6, seq 102); failure #11",
		     line);
}

TEST_HARNESS_MAIN
