// SPDX-License-Identifier: GPL-2.0
/*
 * weave: a hung job.  A delay far past the job timeout is cut short: its
 * fence signals with an error, its stream fails and refuses work, and a
 * stream created alongside keeps working.
 */
#include <stdint.h>
#include <unistd.h>

#include "weave_test.h"

FIXTURE(hang) {
	int fd;
	struct drm_weave_device_info info;
	uint64_t page;
};

FIXTURE_SETUP(hang)
{
	self->fd = weave_test_open(_metadata);
	self->info = weave_test_info(_metadata, self->fd);
	self->page = self->info.page_size;
	ASSERT_NE(0u, self->info.job_timeout_ms);
}

FIXTURE_TEARDOWN(hang)
{
	close(self->fd);
}

TEST_F_TIMEOUT(hang, timeout_fails_only_its_stream, 120)
{
	uint64_t timeout_ns = self->info.job_timeout_ms * 1000000ull;
	uint32_t a, b_stream, syncobj, bo, res, *map;
	struct drm_weave_stream_query q;
	struct drm_weave_sync out;
	struct weave_test_batch b;
	int64_t start;
	int status;

	a = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	b_stream = weave_test_stream(_metadata, self->fd,
				     DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, self->fd, 4 * self->page, 0);
	res = weave_test_bo(_metadata, self->fd, self->page, 0);
	syncobj = weave_test_syncobj(_metadata, self->fd);

	/* Ten times the timeout, within the longest delay. */
	weave_test_batch_init(&b);
	weave_test_delay(&b, weave_test_hang_delay_us(_metadata, &self->info));
	weave_test_enqueue(_metadata, self->fd, a, &b);
	out = weave_sync(syncobj, 0);
	start = weave_test_now();
	ASSERT_EQ(0, weave_flush(self->fd, a, &out));

	/* Stream B runs a checked chain meanwhile. */
	weave_test_chain(&b, bo, self->page, 0x1234, 0x4321, res, 0);
	weave_test_enqueue(_metadata, self->fd, b_stream, &b);
	weave_test_finish(_metadata, self->fd, b_stream);
	map = weave_test_map(_metadata, self->fd, res, self->page);
	EXPECT_EQ(weave_test_chain_crc(self->page, 0x1234, 0x4321), map[0]);
	weave_test_unmap(_metadata, map, self->page);

	/* A's fence signals, with an error, soon after the timeout. */
	ASSERT_EQ(0, drmSyncobjWait(self->fd, &syncobj, 1,
				    start + 5 * timeout_ns +
				    10 * WEAVE_TEST_SEC, 0, NULL));
	EXPECT_LE((int64_t)timeout_ns, weave_test_now() - start);
	status = weave_test_sync_file_status(_metadata, self->fd, syncobj, 0);
	EXPECT_GT(0, status) TH_LOG("sync_file status %d", status);

	q = weave_test_squery(_metadata, self->fd, a);
	EXPECT_EQ((uint32_t)DRM_WEAVE_STREAM_FAILED, q.state);
	EXPECT_EQ(-ETIMEDOUT, q.error);
	EXPECT_EQ(-ECANCELED, weave_wait(self->fd, a,
					 weave_timeout_ns(WEAVE_TEST_SEC)));

	/* A refuses work; B takes more. */
	weave_test_noop(&b);
	EXPECT_EQ(-ECANCELED, weave_test_submit(self->fd, a, &b));
	EXPECT_EQ(-ECANCELED, weave_flush(self->fd, a, NULL));
	/*
	 * FLUSH_ALL submits the client's work and does not report A's
	 * failure, which A's own calls report: see struct drm_weave_flush.
	 */
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, b_stream, &b);
	EXPECT_EQ(0, weave_flush_all(self->fd, NULL));
	EXPECT_EQ(weave_test_squery(_metadata, self->fd, b_stream).enqueued,
		  weave_test_squery(_metadata, self->fd, b_stream).executed);
	q = weave_test_squery(_metadata, self->fd, b_stream);
	EXPECT_EQ((uint32_t)DRM_WEAVE_STREAM_ACTIVE, q.state);
	EXPECT_EQ(0, q.error);

	weave_test_chain(&b, bo, self->page, 0x55, 0x66, res, 4);
	weave_test_enqueue(_metadata, self->fd, b_stream, &b);
	weave_test_finish(_metadata, self->fd, b_stream);
	map = weave_test_map(_metadata, self->fd, res, self->page);
	EXPECT_EQ(weave_test_chain_crc(self->page, 0x55, 0x66), map[1]);
	weave_test_unmap(_metadata, map, self->page);

	/* A fresh stream works too, and A can be destroyed. */
	ASSERT_EQ(0, weave_stream_destroy(self->fd, a));
	EXPECT_EQ(-ENOENT, weave_stream_destroy(self->fd, a));
	a = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, a, &b);
	weave_test_finish(_metadata, self->fd, a);
	drmSyncobjDestroy(self->fd, syncobj);
}

/* A failing kernel (not a hang) does not fail the stream. */
TEST_F(hang, fail_kernel_keeps_stream_active)
{
	struct weave_test_batch b;
	uint32_t stream;

	stream = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_batch_init(&b);
	weave_test_launch(&b, DRM_WEAVE_KERNEL_FAIL, NULL, 0, 1, EIO);
	weave_test_enqueue(_metadata, self->fd, stream, &b);
	ASSERT_EQ(0, weave_flush(self->fd, stream, NULL));
	EXPECT_EQ(0, weave_wait(self->fd, stream,
				weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
	EXPECT_EQ((uint32_t)DRM_WEAVE_STREAM_ACTIVE,
		  weave_test_squery(_metadata, self->fd, stream).state);
	weave_test_noop(&b);
	EXPECT_EQ(0, weave_test_submit(self->fd, stream, &b));
	weave_test_finish(_metadata, self->fd, stream);
}

TEST_HARNESS_MAIN
