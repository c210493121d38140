/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capture windows for the graph capture suites (capture, capture_replay):
 * their fixture, a file with a stream whose slot they capture, and the
 * CAPTURE steps they take, each checking what the op returns.
 */
#ifndef _WEAVE_TEST_CAPTURE_H_
#define _WEAVE_TEST_CAPTURE_H_

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weave_test.h"

FIXTURE(cap) {
	WEAVE_TEST_FILE_FIELDS;
	uint32_t s;		/* the stream whose slot the tests capture */
	struct weave_test_report *r;
};

FIXTURE_SETUP(cap)
{
	WEAVE_TEST_FILE_SETUP();
	ASSERT_LE(5u, self->info.uapi_minor) {
		TH_LOG("uAPI 1.%u has no graph capture", self->info.uapi_minor);
	}
	ASSERT_LT(0u, self->info.max_graphs);
	ASSERT_LT(0u, self->info.max_graph_tasks);
	self->s = weave_test_stream(_metadata, self->fd,
				    DRM_WEAVE_PRIORITY_NORMAL);
	/* The module parameter may make sequential the default. */
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_STRATEGY,
			 DRM_WEAVE_STRATEGY_INTERLEAVE);
	self->r = malloc(sizeof(*self->r));
	ASSERT_NE(NULL, self->r);
}

FIXTURE_TEARDOWN(cap)
{
	free(self->r);
	close(self->fd);
}

/* The fixture's data, for the helpers that take it. */
typedef FIXTURE_DATA(cap) cap_t;

/* weave_capture() into @out, poisoned first so that every field is new. */
static inline int cap_capture(int fd, uint32_t stream, uint32_t op,
			      struct drm_weave_capture *out)
{
	memset(out, 0xa5, sizeof(*out));
	return weave_capture(fd, stream, op, out);
}

/* CAPTURE with @flags and @pad, which libweave leaves zero. */
static inline int
cap_capture_raw(int fd, uint32_t stream, uint32_t op, uint32_t flags,
		uint32_t pad)
{
	struct drm_weave_capture c;

	memset(&c, 0, sizeof(c));
	c.stream = stream;
	c.op = op;
	c.flags = flags;
	c.pad = pad;
	return weave_test_ioctl(fd, DRM_IOCTL_WEAVE_CAPTURE, &c);
}

/* Does @op of @stream, which must succeed; returns its out fields. */
static inline struct drm_weave_capture
cap_do(struct __test_metadata *_metadata, int fd, uint32_t stream, uint32_t op)
{
	struct drm_weave_capture c;
	int ret = cap_capture(fd, stream, op, &c);

	ASSERT_EQ(0, ret) {
		TH_LOG("op %u of stream %u: %s (state %u, owner %u, error %d)",
		       op, stream, strerror(-ret), c.state, c.owner, c.error);
	}
	return c;
}

/* QUERY of @stream's slot: its state, owner and tasks recorded. */
static inline void cap_expect_window(struct __test_metadata *_metadata,
				     int fd, uint32_t stream, uint32_t state,
				     uint32_t owner, uint32_t ntasks)
{
	struct drm_weave_capture c = cap_do(_metadata, fd, stream,
					    DRM_WEAVE_CAPTURE_QUERY);

	EXPECT_EQ(state, c.state);
	EXPECT_EQ(owner, c.owner);
	EXPECT_EQ(ntasks, c.ntasks);
	EXPECT_EQ(0u, c.graph);
	EXPECT_EQ(0, c.error);
	EXPECT_EQ(0u, c.failure);
	EXPECT_EQ(0u, c.pad2);
}

static inline void cap_expect_none(struct __test_metadata *_metadata, int fd,
				   uint32_t stream)
{
	cap_expect_window(_metadata, fd, stream, DRM_WEAVE_CAPTURE_NONE, 0, 0);
}

static inline void cap_prepare(struct __test_metadata *_metadata, int fd,
			       uint32_t stream)
{
	struct drm_weave_capture c = cap_do(_metadata, fd, stream,
					    DRM_WEAVE_CAPTURE_PREPARE);

	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_PREPARED, c.state);
	EXPECT_EQ(stream, c.owner);
	EXPECT_EQ(0u, c.ntasks);
}

static inline void
cap_begin(struct __test_metadata *_metadata, int fd, uint32_t stream)
{
	struct drm_weave_capture c = cap_do(_metadata, fd, stream,
					    DRM_WEAVE_CAPTURE_BEGIN);

	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
	EXPECT_EQ(stream, c.owner);
	EXPECT_EQ(0u, c.ntasks);
}

/* PREPARE then BEGIN: @stream records. */
static inline void
cap_start(struct __test_metadata *_metadata, int fd, uint32_t stream)
{
	cap_prepare(_metadata, fd, stream);
	cap_begin(_metadata, fd, stream);
}

/* END by the owner, which must seal @ntasks tasks; returns the graph. */
static inline uint32_t cap_end(struct __test_metadata *_metadata, int fd,
			       uint32_t stream, uint32_t ntasks)
{
	struct drm_weave_capture c = cap_do(_metadata, fd, stream,
					    DRM_WEAVE_CAPTURE_END);

	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_NE(0u, c.graph);
	EXPECT_EQ(ntasks, c.ntasks);
	EXPECT_EQ(0, c.error);
	EXPECT_EQ(0u, c.failure);
	return c.graph;
}

/* Records the batch on @stream into a graph, which it returns. */
static inline uint32_t cap_record(struct __test_metadata *_metadata, int fd,
				  uint32_t stream, struct weave_test_batch *b)
{
	uint32_t n = b->n;

	cap_start(_metadata, fd, stream);
	weave_test_enqueue(_metadata, fd, stream, b);
	cap_expect_window(_metadata, fd, stream, DRM_WEAVE_CAPTURE_RECORDING,
			  stream, n);
	return cap_end(_metadata, fd, stream, n);
}

/* Replays @graph on @stream and waits for it. */
static inline void cap_replay_wait(struct __test_metadata *_metadata, int fd,
				   uint32_t graph, uint32_t stream)
{
	ASSERT_EQ(0, weave_replay(fd, graph, stream, NULL, 0, NULL, NULL));
	weave_test_wait(_metadata, fd, stream);
}

/* A new stream on another slot than @of. */
static inline uint32_t
cap_other_slot(struct __test_metadata *_metadata, cap_t *self, uint32_t of)
{
	uint32_t h = weave_test_stream(_metadata, self->fd,
				       DRM_WEAVE_PRIORITY_NORMAL);

	ASSERT_NE(weave_test_squery(_metadata, self->fd, of).slot,
		  weave_test_squery(_metadata, self->fd, h).slot) {
		TH_LOG("max_streams %u: streams %u and %u share a slot",
		       self->info.max_streams, of, h);
	}
	return h;
}

/*
 * A stream on the slot of self->s (handle s + max_streams), creating the
 * handles below it on the way; zero if max_client_streams does not reach
 * it.
 */
static inline uint32_t
cap_folded_stream(struct __test_metadata *_metadata, cap_t *self)
{
	uint32_t h;
	unsigned int i;

	for (i = 1; i < self->info.max_client_streams; i++) {
		h = weave_test_stream(_metadata, self->fd,
				      DRM_WEAVE_PRIORITY_NORMAL);
		if (h == self->s + self->info.max_streams) {
			ASSERT_EQ(weave_test_squery(_metadata, self->fd,
						    self->s).slot,
				  weave_test_squery(_metadata, self->fd,
						    h).slot);
			return h;
		}
	}
	return 0;
}

static inline uint32_t cap_isolated(struct __test_metadata *_metadata, int fd,
				    uint32_t stream)
{
	return weave_test_squery(_metadata, fd, stream).isolated;
}

/* Runs a checked chain on @stream (not recording) and checks its crc. */
static inline void
cap_chain_works(struct __test_metadata *_metadata, cap_t *self,
		uint32_t stream, unsigned int i)
{
	uint32_t bo, res, *map;
	struct weave_test_batch b;

	bo = weave_test_bo(_metadata, self->fd, 4 * self->page, 0);
	res = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_chain(&b, bo, self->page, weave_test_chain_a(i),
			 weave_test_chain_b(i), res, 0);
	weave_test_enqueue(_metadata, self->fd, stream, &b);
	weave_test_finish(_metadata, self->fd, stream);
	map = weave_test_map(_metadata, self->fd, res, self->page);
	EXPECT_EQ(weave_test_chain_crc(self->page, weave_test_chain_a(i),
				       weave_test_chain_b(i)), map[0]) {
		TH_LOG("stream %u", stream);
	}
	weave_test_unmap(_metadata, map, self->page);
	weave_test_close_bo(_metadata, self->fd, bo);
	weave_test_close_bo(_metadata, self->fd, res);
}

/* The first @size bytes of @a and @b are the same. */
static inline void cap_expect_same(struct __test_metadata *_metadata, int fd,
				   uint32_t a, uint32_t b, size_t size)
{
	void *ma = weave_test_map(_metadata, fd, a, size);
	void *mb = weave_test_map(_metadata, fd, b, size);

	EXPECT_EQ(0, memcmp(ma, mb, size)) {
		TH_LOG("buffers %u and %u differ", a, b);
	}
	weave_test_unmap(_metadata, ma, size);
	weave_test_unmap(_metadata, mb, size);
}

/* Fills the buffer with @word through @stream and waits. */
static inline void cap_fill_now(struct __test_metadata *_metadata, int fd,
				uint32_t stream, uint32_t bo, uint64_t size,
				uint32_t word)
{
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, size, word);
	weave_test_enqueue(_metadata, fd, stream, &b);
	weave_test_finish(_metadata, fd, stream);
}

/* Waits until the device holds @bos buffers, failing after a while. */
static inline void cap_await_live_bos(struct __test_metadata *_metadata, int fd,
				      uint64_t bos)
{
	int64_t deadline = weave_test_now() + WEAVE_TEST_WAIT_NS;
	uint64_t now;

	for (;;) {
		now = weave_test_usage(_metadata, fd).live_bos;
		if (now == bos || weave_test_now() > deadline)
			break;
		usleep(10000);
	}
	ASSERT_EQ(bos, now) {
		TH_LOG("%llu buffers live, %llu expected: a reference leaked",
		       (unsigned long long)now, (unsigned long long)bos);
	}
}

#endif /* _WEAVE_TEST_CAPTURE_H_ */
