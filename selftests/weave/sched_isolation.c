// SPDX-License-Identifier: GPL-2.0
/*
 * weave: stream isolation: enter and leave, its errors, the query flag,
 * and correct data when an isolated stream shares buffers with others.
 */
#include <stdint.h>
#include <unistd.h>

#include "weave_test.h"

FIXTURE(iso) {
	int fd;
	struct drm_weave_device_info info;
	uint64_t page;
	uint32_t stream;
};

FIXTURE_SETUP(iso)
{
	self->fd = weave_test_open(_metadata);
	self->info = weave_test_info(_metadata, self->fd);
	self->page = self->info.page_size;
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
}

FIXTURE_TEARDOWN(iso)
{
	close(self->fd);
}

TEST_F(iso, enter_leave)
{
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
}

TEST_F(iso, double_enter)
{
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));
	EXPECT_EQ(-EALREADY, weave_stream_isolate(self->fd, self->stream,
						  DRM_WEAVE_ISOLATION_ENTER));
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
}

TEST_F(iso, leave_when_not_isolated)
{
	EXPECT_EQ(-EALREADY, weave_stream_isolate(self->fd, self->stream,
						  DRM_WEAVE_ISOLATION_LEAVE));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(-EALREADY, weave_stream_isolate(self->fd, self->stream,
						  DRM_WEAVE_ISOLATION_LEAVE));
}

TEST_F(iso, bad_op)
{
	EXPECT_EQ(-EINVAL, weave_stream_isolate(self->fd, self->stream, 2));
	EXPECT_EQ(-EINVAL, weave_stream_isolate(self->fd, self->stream,
						0xffffffffu));
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
}

TEST_F(iso, bad_handle)
{
	EXPECT_EQ(-ENOENT, weave_stream_isolate(self->fd, WEAVE_TEST_BAD_HANDLE,
						DRM_WEAVE_ISOLATION_ENTER));
}

/* Isolation belongs to the slot: a folded stream reports it too. */
TEST_F(iso, covers_folded_stream)
{
	uint32_t h, folded = 0;
	unsigned int i;

	for (i = 1; i < self->info.max_client_streams; i++) {
		h = weave_test_stream(_metadata, self->fd,
				      DRM_WEAVE_PRIORITY_NORMAL);
		if (h == self->stream + self->info.max_streams) {
			folded = h;
			break;
		}
	}
	if (!folded)
		SKIP(return, "no folded stream within max_client_streams");
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd, folded).isolated);
	EXPECT_EQ(-EALREADY, weave_stream_isolate(self->fd, folded,
						  DRM_WEAVE_ISOLATION_ENTER));
}

/*
 * An isolated stream and an interleaved one share buffers both ways; with
 * a small threshold their slots execute together many times.  Every result
 * is right, and the isolated stream still works after leaving.
 */
TEST_F(iso, shared_buffers_with_interleaved_stream)
{
	uint32_t other, bo, res, *map;
	struct weave_test_batch b;
	unsigned int round;

	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_STRATEGY,
			 DRM_WEAVE_STRATEGY_INTERLEAVE);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS, 2);
	other = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, self->fd, 4 * self->page, 0);
	res = weave_test_bo(_metadata, self->fd, self->page, 0);
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_ENTER));

	weave_test_batch_init(&b);
	for (round = 0; round < 4; round++) {
		uint32_t pa = weave_test_chain_a(round);
		uint32_t pb = weave_test_chain_b(round);

		/* The isolated stream writes the inputs ... */
		weave_test_fill_task(&b, bo, 0, self->page, pa);
		weave_test_fill_task(&b, bo, self->page, self->page, pb);
		weave_test_enqueue(_metadata, self->fd, self->stream, &b);
		/* ... the other adds and copies them ... */
		weave_test_add_task(&b, bo, 0, bo, self->page, bo,
				    2 * self->page, self->page);
		weave_test_copy_task(&b, bo, 2 * self->page, bo,
				     3 * self->page, self->page);
		weave_test_enqueue(_metadata, self->fd, other, &b);
		/* ... and the isolated one checksums the result. */
		weave_test_crc_task(&b, bo, 3 * self->page, self->page, res,
				    4 * round);
		weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	}
	ASSERT_EQ(0, weave_flush_all(self->fd, NULL));
	weave_test_wait(_metadata, self->fd, self->stream);
	weave_test_wait(_metadata, self->fd, other);
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->stream).isolated);
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd, other).isolated);

	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->stream,
					  DRM_WEAVE_ISOLATION_LEAVE));
	weave_test_chain(&b, bo, self->page, weave_test_chain_a(4),
			 weave_test_chain_b(4), res, 16);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	weave_test_finish(_metadata, self->fd, self->stream);

	map = weave_test_map(_metadata, self->fd, res, self->page);
	for (round = 0; round < 5; round++)
		EXPECT_EQ(weave_test_chain_crc(self->page,
					       weave_test_chain_a(round),
					       weave_test_chain_b(round)),
			  map[round]) TH_LOG("round %u", round);
	weave_test_unmap(_metadata, map, self->page);
}

TEST_HARNESS_MAIN
