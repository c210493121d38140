// SPDX-License-Identifier: GPL-2.0
/*
 * weave: graph capture (uAPI 1.5).  A slot's capture window through every
 * state and every refusal, with the errno "DOC: graph capture" and
 * &struct drm_weave_capture document and the window unchanged after a
 * refusal; its abandonment by another stream of the slot; the isolation
 * it holds (seen through the jobs executions make,
 * &drm_weave_client_usage.submitted_jobs); recording, which runs nothing;
 * doomed windows; replays, byte for byte as the same tasks enqueued, with
 * syncs, through failures and their recovery; destroying graphs, closing
 * files that hold graphs and windows; and the limits max_graphs and
 * max_graph_tasks.
 */
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

typedef FIXTURE_DATA(cap) cap_t;

/* --- helpers ------------------------------------------------------------------ */

/* weave_capture() into @out, poisoned first so that every field is new. */
static int capture(int fd, uint32_t stream, uint32_t op,
		   struct drm_weave_capture *out)
{
	memset(out, 0xa5, sizeof(*out));
	return weave_capture(fd, stream, op, out);
}

/* CAPTURE with @flags and @pad, which libweave leaves zero. */
static int capture_raw(int fd, uint32_t stream, uint32_t op, uint32_t flags,
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
static struct drm_weave_capture do_op(struct __test_metadata *_metadata,
				      int fd, uint32_t stream, uint32_t op)
{
	struct drm_weave_capture c;
	int ret = capture(fd, stream, op, &c);

	ASSERT_EQ(0, ret) {
		TH_LOG("op %u of stream %u: %s (state %u, owner %u, error %d)",
		       op, stream, strerror(-ret), c.state, c.owner, c.error);
	}
	return c;
}

/* QUERY of @stream's slot: its state, owner and tasks recorded. */
static void expect_window(struct __test_metadata *_metadata, int fd,
			  uint32_t stream, uint32_t state, uint32_t owner,
			  uint32_t ntasks)
{
	struct drm_weave_capture c = do_op(_metadata, fd, stream,
					   DRM_WEAVE_CAPTURE_QUERY);

	EXPECT_EQ(state, c.state);
	EXPECT_EQ(owner, c.owner);
	EXPECT_EQ(ntasks, c.ntasks);
	EXPECT_EQ(0u, c.graph);
	EXPECT_EQ(0, c.error);
	EXPECT_EQ(0u, c.failure);
	EXPECT_EQ(0u, c.pad2);
}

static void expect_no_window(struct __test_metadata *_metadata, int fd,
			     uint32_t stream)
{
	expect_window(_metadata, fd, stream, DRM_WEAVE_CAPTURE_NONE, 0, 0);
}

static void prepare(struct __test_metadata *_metadata, int fd,
		    uint32_t stream)
{
	struct drm_weave_capture c = do_op(_metadata, fd, stream,
					   DRM_WEAVE_CAPTURE_PREPARE);

	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_PREPARED, c.state);
	EXPECT_EQ(stream, c.owner);
	EXPECT_EQ(0u, c.ntasks);
}

static void begin(struct __test_metadata *_metadata, int fd, uint32_t stream)
{
	struct drm_weave_capture c = do_op(_metadata, fd, stream,
					   DRM_WEAVE_CAPTURE_BEGIN);

	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
	EXPECT_EQ(stream, c.owner);
	EXPECT_EQ(0u, c.ntasks);
}

/* PREPARE then BEGIN: @stream records. */
static void start(struct __test_metadata *_metadata, int fd, uint32_t stream)
{
	prepare(_metadata, fd, stream);
	begin(_metadata, fd, stream);
}

/* END by the owner, which must seal @ntasks tasks; returns the graph. */
static uint32_t end(struct __test_metadata *_metadata, int fd,
		    uint32_t stream, uint32_t ntasks)
{
	struct drm_weave_capture c = do_op(_metadata, fd, stream,
					   DRM_WEAVE_CAPTURE_END);

	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_NE(0u, c.graph);
	EXPECT_EQ(ntasks, c.ntasks);
	EXPECT_EQ(0, c.error);
	EXPECT_EQ(0u, c.failure);
	return c.graph;
}

/* Records the batch on @stream into a graph, which it returns. */
static uint32_t record(struct __test_metadata *_metadata, int fd,
		       uint32_t stream, struct weave_test_batch *b)
{
	uint32_t n = b->n;

	start(_metadata, fd, stream);
	weave_test_enqueue(_metadata, fd, stream, b);
	expect_window(_metadata, fd, stream, DRM_WEAVE_CAPTURE_RECORDING,
		      stream, n);
	return end(_metadata, fd, stream, n);
}

/* Replays @graph on @stream and waits for it. */
static void replay_wait(struct __test_metadata *_metadata, int fd,
			uint32_t graph, uint32_t stream)
{
	ASSERT_EQ(0, weave_replay(fd, graph, stream, NULL, 0, NULL, NULL));
	weave_test_wait(_metadata, fd, stream);
}

/* A new stream on another slot than @of. */
static uint32_t other_slot(struct __test_metadata *_metadata, cap_t *self,
			   uint32_t of)
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
static uint32_t folded_stream(struct __test_metadata *_metadata, cap_t *self)
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

/*
 * One NOOP on each of @a and @b, flushed together by one flush all, then
 * waited for.  Returns the jobs that made: 1 if the two slots were
 * interleaved, 2 if each ran on its own backend stream.
 */
static uint64_t flush_pair(struct __test_metadata *_metadata, int fd,
			   uint32_t a, uint32_t b)
{
	struct weave_test_batch bt;
	uint64_t before = weave_test_jobs(_metadata, fd);

	weave_test_batch_init(&bt);
	weave_test_noop(&bt);
	weave_test_enqueue(_metadata, fd, a, &bt);
	weave_test_noop(&bt);
	weave_test_enqueue(_metadata, fd, b, &bt);
	ASSERT_EQ(0, weave_flush_all(fd, NULL));
	weave_test_wait(_metadata, fd, a);
	weave_test_wait(_metadata, fd, b);
	return weave_test_jobs(_metadata, fd) - before;
}

static uint32_t isolated(struct __test_metadata *_metadata, int fd,
			 uint32_t stream)
{
	return weave_test_squery(_metadata, fd, stream).isolated;
}

/* Runs a checked chain on @stream (not recording) and checks its crc. */
static void chain_works(struct __test_metadata *_metadata, cap_t *self,
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

/* Every u32 word of @size bytes at @off of @bo is @word. */
static void expect_words(struct __test_metadata *_metadata, int fd,
			 uint32_t bo, uint64_t bo_size, uint64_t off,
			 uint64_t size, uint32_t word)
{
	uint32_t *map = weave_test_map(_metadata, fd, bo, bo_size);
	uint64_t i;

	for (i = off / 4; i < (off + size) / 4; i++) {
		ASSERT_EQ(word, map[i]) {
			TH_LOG("buffer %u, byte %llu", bo,
			       (unsigned long long)i * 4);
		}
	}
	weave_test_unmap(_metadata, map, bo_size);
}

/* The first @size bytes of @a and @b are the same. */
static void expect_same(struct __test_metadata *_metadata, int fd,
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
static void fill_now(struct __test_metadata *_metadata, int fd,
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
static void await_live_bos(struct __test_metadata *_metadata, int fd,
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

/* --- the window's states and refusals ------------------------------------ */

TEST_F(cap, query_without_window)
{
	struct drm_weave_capture c;

	ASSERT_EQ(0, capture(self->fd, self->s, DRM_WEAVE_CAPTURE_QUERY, &c));
	EXPECT_EQ(self->s, c.stream);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_QUERY, c.op);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.owner);
	EXPECT_EQ(0u, c.graph);
	EXPECT_EQ(0u, c.ntasks);
	EXPECT_EQ(0, c.error);
	EXPECT_EQ(0u, c.failure);
	EXPECT_EQ(0u, isolated(_metadata, self->fd, self->s));
}

/* PREPARE, BEGIN, END: each state as QUERY reports it, then a graph. */
TEST_F(cap, prepare_begin_end)
{
	struct drm_weave_capture c;
	struct weave_test_batch b;

	prepare(_metadata, self->fd, self->s);
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_PREPARED, self->s, 0);
	EXPECT_EQ(1u, isolated(_metadata, self->fd, self->s));
	begin(_metadata, self->fd, self->s);
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, 0);

	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, 2);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, 3);

	c = do_op(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_END);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_NE(0u, c.graph);
	EXPECT_EQ(3u, c.ntasks);
	EXPECT_EQ(0, c.error);
	EXPECT_EQ(0u, c.failure);
	expect_no_window(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, isolated(_metadata, self->fd, self->s));

	/* The slot takes a new window, and the stream works. */
	prepare(_metadata, self->fd, self->s);
	do_op(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_ABORT);
	chain_works(_metadata, self, self->s, 0);
}

/* A second PREPARE: -EBUSY, whoever asks, in either state. */
TEST_F(cap, prepare_twice_is_busy)
{
	struct drm_weave_capture c;
	struct weave_test_batch b;
	uint32_t folded;

	prepare(_metadata, self->fd, self->s);
	EXPECT_EQ(-EBUSY, capture(self->fd, self->s,
				  DRM_WEAVE_CAPTURE_PREPARE, &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_PREPARED, c.state);
	EXPECT_EQ(self->s, c.owner);
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_PREPARED, self->s, 0);

	begin(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	EXPECT_EQ(-EBUSY, capture(self->fd, self->s,
				  DRM_WEAVE_CAPTURE_PREPARE, &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
	EXPECT_EQ(self->s, c.owner);
	EXPECT_EQ(1u, c.ntasks);
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, 1);

	folded = folded_stream(_metadata, self);
	if (folded) {
		EXPECT_EQ(-EBUSY, capture(self->fd, folded,
					  DRM_WEAVE_CAPTURE_PREPARE, &c));
		EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
		EXPECT_EQ(self->s, c.owner);
		expect_window(_metadata, self->fd, self->s,
			      DRM_WEAVE_CAPTURE_RECORDING, self->s, 1);
	}
	end(_metadata, self->fd, self->s, 1);
}

/* BEGIN without a prepared window of the stream's own: -EBADFD. */
TEST_F(cap, begin_without_prepare)
{
	struct drm_weave_capture c;
	uint32_t other = other_slot(_metadata, self, self->s);

	EXPECT_EQ(-EBADFD, capture(self->fd, self->s, DRM_WEAVE_CAPTURE_BEGIN,
				   &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.owner);
	expect_no_window(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, isolated(_metadata, self->fd, self->s));

	/* A window on another slot does not count. */
	prepare(_metadata, self->fd, other);
	EXPECT_EQ(-EBADFD, capture(self->fd, self->s, DRM_WEAVE_CAPTURE_BEGIN,
				   &c));
	expect_no_window(_metadata, self->fd, self->s);
	expect_window(_metadata, self->fd, other, DRM_WEAVE_CAPTURE_PREPARED,
		      other, 0);

	/* Nor does a window already recording. */
	start(_metadata, self->fd, self->s);
	EXPECT_EQ(-EBADFD, capture(self->fd, self->s, DRM_WEAVE_CAPTURE_BEGIN,
				   &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
	EXPECT_EQ(self->s, c.owner);
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, 0);
}

/* BEGIN by a stream of the slot that does not own the window: -EBADFD. */
TEST_F(cap, begin_by_non_owner)
{
	struct drm_weave_capture c;
	uint32_t folded = folded_stream(_metadata, self);

	if (!folded)
		SKIP(return, "no folded stream within max_client_streams");
	prepare(_metadata, self->fd, self->s);
	EXPECT_EQ(-EBADFD, capture(self->fd, folded, DRM_WEAVE_CAPTURE_BEGIN,
				   &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_PREPARED, c.state);
	EXPECT_EQ(self->s, c.owner);
	expect_window(_metadata, self->fd, folded, DRM_WEAVE_CAPTURE_PREPARED,
		      self->s, 0);
	/* The owner still can. */
	begin(_metadata, self->fd, self->s);
}

/* END of a slot whose window is not recording: -EBADFD, nothing changes. */
TEST_F(cap, end_when_not_recording)
{
	struct drm_weave_capture c;
	uint32_t folded;

	EXPECT_EQ(-EBADFD, capture(self->fd, self->s, DRM_WEAVE_CAPTURE_END,
				   &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.graph);
	expect_no_window(_metadata, self->fd, self->s);

	prepare(_metadata, self->fd, self->s);
	EXPECT_EQ(-EBADFD, capture(self->fd, self->s, DRM_WEAVE_CAPTURE_END,
				   &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_PREPARED, c.state);
	EXPECT_EQ(self->s, c.owner);
	EXPECT_EQ(0u, c.graph);
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_PREPARED, self->s, 0);
	EXPECT_EQ(1u, isolated(_metadata, self->fd, self->s));

	/* Another stream of the slot abandons only a recording window. */
	folded = folded_stream(_metadata, self);
	if (folded) {
		EXPECT_EQ(-EBADFD, capture(self->fd, folded,
					   DRM_WEAVE_CAPTURE_END, &c));
		EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_PREPARED, c.state);
		expect_window(_metadata, self->fd, self->s,
			      DRM_WEAVE_CAPTURE_PREPARED, self->s, 0);
	}
	begin(_metadata, self->fd, self->s);
}

/* Unknown op, flags, pad: -EINVAL, in every state, and nothing changes. */
TEST_F(cap, bad_op_flags_pad)
{
	static const uint32_t bad_ops[] = { 5, 6, 0x100, 0xffffffffu };
	struct weave_test_batch b;
	unsigned int i, op;

	for (i = 0; i < ARRAY_SIZE(bad_ops); i++)
		EXPECT_EQ(-EINVAL, weave_capture(self->fd, self->s, bad_ops[i],
						 NULL));
	/* A PREPARE with flags or pad opens no window. */
	EXPECT_EQ(-EINVAL, capture_raw(self->fd, self->s,
				       DRM_WEAVE_CAPTURE_PREPARE, 1, 0));
	EXPECT_EQ(-EINVAL, capture_raw(self->fd, self->s,
				       DRM_WEAVE_CAPTURE_PREPARE, 0x80000000u,
				       0));
	EXPECT_EQ(-EINVAL, capture_raw(self->fd, self->s,
				       DRM_WEAVE_CAPTURE_PREPARE, 0, 1));
	expect_no_window(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, isolated(_metadata, self->fd, self->s));

	prepare(_metadata, self->fd, self->s);
	for (op = DRM_WEAVE_CAPTURE_PREPARE; op <= DRM_WEAVE_CAPTURE_QUERY;
	     op++) {
		EXPECT_EQ(-EINVAL, capture_raw(self->fd, self->s, op, 1, 0));
		EXPECT_EQ(-EINVAL, capture_raw(self->fd, self->s, op, 0, 1));
	}
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_PREPARED, self->s, 0);

	begin(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	for (i = 0; i < ARRAY_SIZE(bad_ops); i++)
		EXPECT_EQ(-EINVAL, weave_capture(self->fd, self->s, bad_ops[i],
						 NULL));
	for (op = DRM_WEAVE_CAPTURE_PREPARE; op <= DRM_WEAVE_CAPTURE_QUERY;
	     op++) {
		EXPECT_EQ(-EINVAL, capture_raw(self->fd, self->s, op, 1, 0));
		EXPECT_EQ(-EINVAL, capture_raw(self->fd, self->s, op, 0, 1));
	}
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, 1);
	end(_metadata, self->fd, self->s, 1);
}

/* A stream the client does not have: -ENOENT for every op. */
TEST_F(cap, unknown_stream)
{
	uint32_t gone = weave_test_stream(_metadata, self->fd,
					  DRM_WEAVE_PRIORITY_NORMAL);
	unsigned int op;

	ASSERT_EQ(0, weave_stream_destroy(self->fd, gone));
	for (op = DRM_WEAVE_CAPTURE_PREPARE; op <= DRM_WEAVE_CAPTURE_QUERY;
	     op++) {
		EXPECT_EQ(-ENOENT, weave_capture(self->fd,
						 WEAVE_TEST_BAD_HANDLE, op,
						 NULL));
		EXPECT_EQ(-ENOENT, weave_capture(self->fd, gone, op, NULL));
		EXPECT_EQ(-ENOENT, weave_capture(self->fd, 0, op, NULL));
	}
	expect_no_window(_metadata, self->fd, self->s);
}

/* ABORT closes the window from any state; no window is no error. */
TEST_F(cap, abort_from_every_state)
{
	struct drm_weave_capture c;
	struct weave_test_batch b;
	uint32_t bo;

	c = do_op(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_ABORT);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.graph);
	expect_no_window(_metadata, self->fd, self->s);

	prepare(_metadata, self->fd, self->s);
	c = do_op(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_ABORT);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.graph);
	expect_no_window(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, isolated(_metadata, self->fd, self->s));

	/* What a recording window recorded never runs. */
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	start(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 0xab0b7ab0);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	c = do_op(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_ABORT);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.graph);
	expect_no_window(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, isolated(_metadata, self->fd, self->s));
	weave_test_finish(_metadata, self->fd, self->s);
	expect_words(_metadata, self->fd, bo, self->page, 0, self->page, 0);

	/* The stream works, and the slot takes a new window. */
	chain_works(_metadata, self, self->s, 1);
	prepare(_metadata, self->fd, self->s);
}

/* ABORT and QUERY act on the slot's window, from any stream of the slot. */
TEST_F(cap, abort_and_query_by_another_stream_of_the_slot)
{
	uint32_t folded = folded_stream(_metadata, self);
	struct weave_test_batch b;

	if (!folded)
		SKIP(return, "no folded stream within max_client_streams");
	start(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	expect_window(_metadata, self->fd, folded,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, 1);
	do_op(_metadata, self->fd, folded, DRM_WEAVE_CAPTURE_ABORT);
	expect_no_window(_metadata, self->fd, self->s);
	expect_no_window(_metadata, self->fd, folded);
	EXPECT_EQ(0u, isolated(_metadata, self->fd, self->s));
	/* The owner's WAIT works again. */
	weave_test_wait(_metadata, self->fd, self->s);
}

/* --- abandonment ------------------------------------------------------------ */

/*
 * END by another stream of the slot abandons the window: -ECANCELED with
 * the owner named, closed without a graph, what it recorded never runs,
 * and both streams keep working.
 */
TEST_F(cap, end_by_another_stream_abandons)
{
	uint32_t folded = folded_stream(_metadata, self), bo;
	struct drm_weave_capture c;
	struct weave_test_batch b;
	int ret;

	if (!folded)
		SKIP(return, "no folded stream within max_client_streams");
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	start(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 0xaba0d0);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);

	/* The folded stream's own tasks run meanwhile. */
	chain_works(_metadata, self, folded, 2);

	ret = capture(self->fd, folded, DRM_WEAVE_CAPTURE_END, &c);
	EXPECT_EQ(-ECANCELED, ret);
	EXPECT_EQ(self->s, c.owner);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.graph);
	EXPECT_EQ(0, c.error);
	expect_no_window(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, isolated(_metadata, self->fd, self->s));

	/* Nothing of it ran; both streams work, the owner's WAIT too. */
	weave_test_finish(_metadata, self->fd, self->s);
	expect_words(_metadata, self->fd, bo, self->page, 0, self->page, 0);
	chain_works(_metadata, self, folded, 3);
	chain_works(_metadata, self, self->s, 4);
	/* And the slot takes a new window, of either. */
	prepare(_metadata, self->fd, folded);
}

/* Destroying the owner closes its window, and releases the slot. */
TEST_F(cap, destroying_the_owner_closes_the_window)
{
	uint32_t folded = folded_stream(_metadata, self);
	struct weave_test_batch b;

	if (!folded)
		SKIP(return, "no folded stream within max_client_streams");
	start(_metadata, self->fd, folded);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, folded, &b);
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, folded, 1);
	ASSERT_EQ(0, weave_stream_destroy(self->fd, folded));
	expect_no_window(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, isolated(_metadata, self->fd, self->s));
	chain_works(_metadata, self, self->s, 5);
	prepare(_metadata, self->fd, self->s);
}

/* --- isolation ---------------------------------------------------------------- */

/*
 * The window isolates the slot from PREPARE to END: its tasks, the
 * owner's warm-up and a folded stream's while recording, are never
 * interleaved with another slot's.
 */
TEST_F(cap, window_isolates_the_slot)
{
	uint32_t other = other_slot(_metadata, self, self->s), folded;
	struct weave_test_batch b;

	EXPECT_EQ(1u, flush_pair(_metadata, self->fd, self->s, other));
	prepare(_metadata, self->fd, self->s);
	EXPECT_EQ(1u, isolated(_metadata, self->fd, self->s));
	EXPECT_EQ(0u, isolated(_metadata, self->fd, other));
	EXPECT_EQ(2u, flush_pair(_metadata, self->fd, self->s, other));
	EXPECT_EQ(2u, flush_pair(_metadata, self->fd, other, self->s));
	begin(_metadata, self->fd, self->s);
	EXPECT_EQ(1u, isolated(_metadata, self->fd, self->s));
	folded = folded_stream(_metadata, self);
	if (folded) {
		EXPECT_EQ(1u, isolated(_metadata, self->fd, folded));
		EXPECT_EQ(2u, flush_pair(_metadata, self->fd, folded, other));
	}
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	end(_metadata, self->fd, self->s, 1);
	EXPECT_EQ(0u, isolated(_metadata, self->fd, self->s));
	EXPECT_EQ(1u, flush_pair(_metadata, self->fd, self->s, other));
}

/*
 * The window's hold is its own: the stream's ENTER and LEAVE neither end
 * it nor count it, and END leaves the stream's own hold in place.
 */
TEST_F(cap, own_isolation_cannot_end_the_window)
{
	uint32_t other = other_slot(_metadata, self, self->s);
	struct weave_test_batch b;

	prepare(_metadata, self->fd, self->s);
	EXPECT_EQ(-EALREADY, weave_stream_isolate(self->fd, self->s,
						  DRM_WEAVE_ISOLATION_LEAVE));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->s,
					  DRM_WEAVE_ISOLATION_ENTER));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->s,
					  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(1u, isolated(_metadata, self->fd, self->s));
	EXPECT_EQ(2u, flush_pair(_metadata, self->fd, self->s, other));
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_PREPARED, self->s, 0);

	begin(_metadata, self->fd, self->s);
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->s,
					  DRM_WEAVE_ISOLATION_ENTER));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->s,
					  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(-EALREADY, weave_stream_isolate(self->fd, self->s,
						  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(1u, isolated(_metadata, self->fd, self->s));
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, 0);

	/* A hold taken during the window outlives it. */
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->s,
					  DRM_WEAVE_ISOLATION_ENTER));
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	end(_metadata, self->fd, self->s, 1);
	EXPECT_EQ(1u, isolated(_metadata, self->fd, self->s));
	EXPECT_EQ(2u, flush_pair(_metadata, self->fd, self->s, other));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, self->s,
					  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(0u, isolated(_metadata, self->fd, self->s));
	EXPECT_EQ(1u, flush_pair(_metadata, self->fd, self->s, other));
}

/* Streams of other slots keep working through the whole window. */
TEST_F(cap, other_slots_keep_working)
{
	uint32_t other = other_slot(_metadata, self, self->s);
	struct weave_test_batch b;

	prepare(_metadata, self->fd, self->s);
	chain_works(_metadata, self, other, 6);
	begin(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	chain_works(_metadata, self, other, 7);
	EXPECT_EQ(0u, isolated(_metadata, self->fd, other));
	end(_metadata, self->fd, self->s, 1);
	chain_works(_metadata, self, other, 8);
}

/* The first word of @bo, without failing the test. */
static uint32_t first_word(struct __test_metadata *_metadata, int fd,
			   uint32_t bo, uint64_t size)
{
	uint32_t *map = weave_test_map(_metadata, fd, bo, size), word;

	word = map[0];
	weave_test_unmap(_metadata, map, size);
	return word;
}

/*
 * PREPARE drains the slot's work so far: when it returns, the tasks
 * flushed before it and those only queued (which it executes) have
 * completed, without a WAIT.
 */
TEST_F(cap, prepare_drains_the_slot)
{
	uint32_t a, c;
	struct weave_test_batch b;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	c = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_delay(&b, 200000);
	weave_test_fill_task(&b, a, 0, self->page, 0xd1a1);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	ASSERT_EQ(0, weave_flush(self->fd, self->s, NULL));
	weave_test_delay(&b, 200000);
	weave_test_fill_task(&b, c, 0, self->page, 0xd1a2);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	prepare(_metadata, self->fd, self->s);
	EXPECT_EQ(0xd1a1u, first_word(_metadata, self->fd, a, self->page)) {
		TH_LOG("the flushed work had not completed");
	}
	EXPECT_EQ(0xd1a2u, first_word(_metadata, self->fd, c, self->page)) {
		TH_LOG("the queued work had not completed");
	}
	EXPECT_EQ(4u, weave_test_squery(_metadata, self->fd,
					self->s).completed);
}

/*
 * BEGIN drains the warm-up: when it returns, the owner's warm-up tasks,
 * flushed or only queued, have completed; none is left to the recording.
 */
TEST_F(cap, begin_drains_the_warm_up)
{
	struct drm_weave_stream_query q;
	struct weave_test_batch b;
	uint32_t a, c;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	c = weave_test_bo(_metadata, self->fd, self->page, 0);
	prepare(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_delay(&b, 200000);
	weave_test_fill_task(&b, a, 0, self->page, 0xd1a3);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	ASSERT_EQ(0, weave_flush(self->fd, self->s, NULL));
	weave_test_delay(&b, 200000);
	weave_test_fill_task(&b, c, 0, self->page, 0xd1a4);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	begin(_metadata, self->fd, self->s);
	EXPECT_EQ(0xd1a3u, first_word(_metadata, self->fd, a, self->page)) {
		TH_LOG("the flushed warm-up had not completed");
	}
	EXPECT_EQ(0xd1a4u, first_word(_metadata, self->fd, c, self->page)) {
		TH_LOG("the queued warm-up had not completed");
	}
	q = weave_test_squery(_metadata, self->fd, self->s);
	EXPECT_EQ(4u, q.completed);
	EXPECT_EQ(4u, q.executed);
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, 0);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	end(_metadata, self->fd, self->s, 1);
	/* The recording added nothing to the stream's tasks. */
	weave_test_finish(_metadata, self->fd, self->s);
	EXPECT_EQ(4u, weave_test_squery(_metadata, self->fd,
					self->s).completed);
}

/* --- recording ------------------------------------------------------------- */

/*
 * The owner's launches are recorded, not run: their buffers keep their
 * bytes, the stream's executed and completed counts and the file's jobs
 * do not move, before END or after; END seals them all.
 */
TEST_F(cap, recorded_launches_do_not_run)
{
	struct drm_weave_stream_query q0, q;
	struct weave_test_batch b;
	uint32_t bo, bo2, graph;
	uint64_t jobs;

	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	bo2 = weave_test_bo(_metadata, self->fd, self->page, 0);
	fill_now(_metadata, self->fd, self->s, bo, self->page, 0x1111);
	fill_now(_metadata, self->fd, self->s, bo2, self->page, 0x2222);

	start(_metadata, self->fd, self->s);
	q0 = weave_test_squery(_metadata, self->fd, self->s);
	jobs = weave_test_jobs(_metadata, self->fd);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 0x3333);
	weave_test_copy_task(&b, bo, 0, bo2, 0, self->page);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	weave_test_noop(&b);
	weave_test_noop(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, 5);
	usleep(100000);
	expect_words(_metadata, self->fd, bo, self->page, 0, self->page,
		     0x1111);
	expect_words(_metadata, self->fd, bo2, self->page, 0, self->page,
		     0x2222);
	q = weave_test_squery(_metadata, self->fd, self->s);
	EXPECT_EQ(q0.executed, q.executed);
	EXPECT_EQ(q0.completed, q.completed);
	EXPECT_EQ(jobs, weave_test_jobs(_metadata, self->fd));
	TH_LOG("enqueued %llu before recording, %llu after",
	       (unsigned long long)q0.enqueued,
	       (unsigned long long)q.enqueued);

	graph = end(_metadata, self->fd, self->s, 5);
	weave_test_finish(_metadata, self->fd, self->s);
	q = weave_test_squery(_metadata, self->fd, self->s);
	EXPECT_EQ(q0.executed, q.executed);
	EXPECT_EQ(q0.completed, q.completed);
	expect_words(_metadata, self->fd, bo, self->page, 0, self->page,
		     0x1111);
	expect_words(_metadata, self->fd, bo2, self->page, 0, self->page,
		     0x2222);

	/* Replayed, they run. */
	replay_wait(_metadata, self->fd, graph, self->s);
	expect_words(_metadata, self->fd, bo, self->page, 0, self->page,
		     0x3333);
	expect_words(_metadata, self->fd, bo2, self->page, 0, self->page,
		     0x3333);
}

/* While the owner records, its WAIT, FLUSH and replays onto it: -EBUSY. */
TEST_F(cap, wait_flush_replay_busy_while_recording)
{
	struct weave_test_batch b;
	uint32_t graph;

	weave_test_batch_init(&b);
	weave_test_noop(&b);
	graph = record(_metadata, self->fd, self->s, &b);

	/* Prepared is not recording: the warm-up flushes and waits. */
	prepare(_metadata, self->fd, self->s);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	EXPECT_EQ(0, weave_flush(self->fd, self->s, NULL));
	EXPECT_EQ(0, weave_wait(self->fd, self->s,
				weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
	begin(_metadata, self->fd, self->s);

	EXPECT_EQ(-EBUSY, weave_wait(self->fd, self->s,
				     weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
	EXPECT_EQ(-EBUSY, weave_wait(self->fd, self->s, 0));
	EXPECT_EQ(-EBUSY, weave_flush(self->fd, self->s, NULL));
	EXPECT_EQ(-EBUSY, weave_replay(self->fd, graph, self->s, NULL, 0,
				       NULL, NULL));
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, 0);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	EXPECT_EQ(-EBUSY, weave_flush(self->fd, self->s, NULL));
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, 1);
	end(_metadata, self->fd, self->s, 1);
	weave_test_finish(_metadata, self->fd, self->s);
	replay_wait(_metadata, self->fd, graph, self->s);
}

/* A recording stream's enqueue with in-syncs: -EINVAL, nothing recorded. */
TEST_F(cap, in_syncs_refused_while_recording)
{
	struct drm_weave_sync in;
	struct weave_test_batch b;
	uint32_t obj;

	obj = weave_test_syncobj(_metadata, self->fd);
	ASSERT_EQ(0, drmSyncobjSignal(self->fd, &obj, 1));
	in = weave_sync(obj, 0);
	start(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	EXPECT_EQ(-EINVAL, weave_enqueue(self->fd, self->s, b.task, b.n, &in,
					 1, NULL));
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, 0);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	end(_metadata, self->fd, self->s, 1);
	drmSyncobjDestroy(self->fd, obj);
}

/* --- doomed windows ---------------------------------------------------------- */

/*
 * A FAIL of the owner's warm-up dooms the window: BEGIN drains it, fails
 * with -EIO, names the errno and the failure, and closes the window.
 */
TEST_F(cap, failed_warm_up_dooms_begin)
{
	struct drm_weave_capture c;
	struct weave_test_batch b;
	uint32_t bo;
	int ret;

	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	prepare(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, bo, 0, 256, EPROTO);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	/* Submitted, not waited for: BEGIN's drain waits. */
	ASSERT_EQ(0, weave_flush(self->fd, self->s, NULL));
	ret = capture(self->fd, self->s, DRM_WEAVE_CAPTURE_BEGIN, &c);
	EXPECT_EQ(-EIO, ret);
	EXPECT_EQ(-EPROTO, c.error);
	EXPECT_NE(0u, c.failure);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.graph);
	expect_no_window(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, isolated(_metadata, self->fd, self->s));

	/* The failure named is the one on the FAIL's bytes. */
	weave_test_wait(_metadata, self->fd, self->s);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, bo, 0, 256,
					self->r));
	EXPECT_EQ(self->r->failure[0].id, c.failure);
	EXPECT_EQ(-EPROTO, self->r->failure[0].error);

	/* The slot takes a new window, which seals. */
	weave_test_noop(&b);
	record(_metadata, self->fd, self->s, &b);
}

/* A warm-up task skipped for reading tainted bytes dooms it too. */
TEST_F(cap, skipped_warm_up_dooms_begin)
{
	uint32_t other = other_slot(_metadata, self, self->s), bo, bo2;
	struct drm_weave_capture c;
	struct weave_test_batch b;
	uint64_t id;

	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	bo2 = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, bo, 0, self->page, ENOEXEC);
	weave_test_enqueue(_metadata, self->fd, other, &b);
	weave_test_finish(_metadata, self->fd, other);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, bo, 0,
					self->page, self->r));
	id = self->r->failure[0].id;

	prepare(_metadata, self->fd, self->s);
	weave_test_copy_task(&b, bo, 0, bo2, 0, self->page);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	ASSERT_EQ(0, weave_flush(self->fd, self->s, NULL));
	EXPECT_EQ(-EIO, capture(self->fd, self->s, DRM_WEAVE_CAPTURE_BEGIN,
				&c));
	EXPECT_EQ(-ENOEXEC, c.error);
	EXPECT_EQ(id, c.failure);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	expect_no_window(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, isolated(_metadata, self->fd, self->s));
}

/*
 * A host write of the owner while recording is not recorded, and dooms
 * the window: END fails with -EIO and closes it, and what the recorded
 * tasks write is tainted with the doom's errno and cause
 * DRM_WEAVE_FAILURE_CAPTURE, until rewritten.  The host write itself is
 * refused: it does not run, and its destination takes a failure of cause
 * DRM_WEAVE_FAILURE_CAPTURE, -EBUSY (as &enum drm_weave_failure_cause
 * says; "DOC: graph capture" still says that it runs).
 */
TEST_F(cap, host_write_dooms_end)
{
	uint32_t a, w, data[64], i;
	struct drm_weave_capture c;
	struct weave_test_batch b;
	int ret;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	w = weave_test_bo(_metadata, self->fd, self->page, 0);
	for (i = 0; i < 64; i++)
		data[i] = 0xda7a0000u + i;
	start(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, a, 0, 512, 0xaaaa);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	weave_test_write_task(&b, w, 0, sizeof(data), data);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	/* Doomed, it still records until END; the host write is not in it. */
	c = do_op(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_QUERY);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
	EXPECT_EQ(self->s, c.owner);
	EXPECT_EQ(2u, c.ntasks);
	EXPECT_GT(0, c.error);
	/* BEGIN finds no prepared window: -EBADFD, and nothing changes. */
	EXPECT_EQ(-EBADFD, capture(self->fd, self->s,
				   DRM_WEAVE_CAPTURE_BEGIN, &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
	EXPECT_EQ(2u, c.ntasks);

	ret = capture(self->fd, self->s, DRM_WEAVE_CAPTURE_END, &c);
	EXPECT_EQ(-EIO, ret);
	EXPECT_GT(0, c.error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, c.graph);
	expect_no_window(_metadata, self->fd, self->s);
	EXPECT_EQ(0u, isolated(_metadata, self->fd, self->s));

	/* The host write was refused: not written, its range tainted. */
	weave_test_finish(_metadata, self->fd, self->s);
	expect_words(_metadata, self->fd, w, self->page, 0, self->page, 0);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, w, 0,
					sizeof(data), self->r));
	EXPECT_EQ(-EBUSY, self->r->failure[0].error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_CAPTURE,
		  self->r->failure[0].cause);
	EXPECT_EQ((uint32_t)DRM_WEAVE_TASK_HOST_WRITE,
		  self->r->failure[0].root.type);
	EXPECT_EQ(self->s, self->r->failure[0].root.stream);
	weave_test_log_failure(_metadata, self->r, 0);
	weave_test_expect_good(_metadata, self->fd, w, sizeof(data),
			       self->page - sizeof(data));

	/* The recorded fill did not run, and its range is tainted. */
	expect_words(_metadata, self->fd, a, self->page, 0, self->page, 0);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, a, 0, 512,
					self->r)) {
		TH_LOG("what the doomed window recorded is not tainted");
	}
	EXPECT_EQ(c.error, self->r->failure[0].error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_CAPTURE,
		  self->r->failure[0].cause);
	weave_test_log_failure(_metadata, self->r, 0);
	weave_test_expect_good(_metadata, self->fd, a, 512,
			       self->page - 512);

	/* Rewriting makes it good. */
	fill_now(_metadata, self->fd, self->s, a, 512, 0xbbbb);
	weave_test_expect_good(_metadata, self->fd, a, 0, self->page);
}

/*
 * A host write of another stream into a buffer the window records is
 * refused too (DRM_WEAVE_FAILURE_CAPTURE, -EBUSY), but dooms nothing:
 * END seals the graph, and its replay makes the bytes good.
 */
TEST_F(cap, host_write_into_a_recorded_buffer_is_refused)
{
	uint32_t t = other_slot(_metadata, self, self->s), a, data[16], i;
	struct weave_test_batch b;
	uint32_t graph;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	for (i = 0; i < 16; i++)
		data[i] = 0x5eed0000u + i;
	start(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, a, 0, self->page, 0xfeed);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	weave_test_write_task(&b, a, 0, sizeof(data), data);
	weave_test_enqueue(_metadata, self->fd, t, &b);
	weave_test_finish(_metadata, self->fd, t);
	expect_words(_metadata, self->fd, a, self->page, 0, self->page, 0);
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, 1);
	graph = end(_metadata, self->fd, self->s, 1);

	/* CHECK of a recorded buffer waits for END. */
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, a, 0,
					sizeof(data), self->r));
	EXPECT_EQ(-EBUSY, self->r->failure[0].error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_CAPTURE,
		  self->r->failure[0].cause);
	EXPECT_EQ((uint32_t)DRM_WEAVE_TASK_HOST_WRITE,
		  self->r->failure[0].root.type);
	EXPECT_EQ(t, self->r->failure[0].root.stream);

	replay_wait(_metadata, self->fd, graph, self->s);
	weave_test_expect_good(_metadata, self->fd, a, 0, self->page);
	expect_words(_metadata, self->fd, a, self->page, 0, self->page,
		     0xfeed);
	/* With the window closed, host writes into it run. */
	weave_test_write_task(&b, a, 0, sizeof(data), data);
	weave_test_enqueue(_metadata, self->fd, t, &b);
	weave_test_finish(_metadata, self->fd, t);
	weave_test_expect_good(_metadata, self->fd, a, 0, self->page);
	expect_words(_metadata, self->fd, a, self->page, 0, 4, data[0]);
}

/*
 * While a window records a task that binds a buffer, CHECK and READ of
 * any range of that buffer fail with -EBUSY, and READ submits nothing;
 * other buffers answer as usual, and END lifts it.
 */
TEST_F(cap, check_and_read_of_a_recorded_buffer_are_busy)
{
	uint32_t t = other_slot(_metadata, self, self->s), a, x, word = 0;
	struct drm_weave_check_range ranges[2];
	struct weave_test_batch b;
	uint32_t nf = 0, ns = 0;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	x = weave_test_bo(_metadata, self->fd, self->page, 0);
	start(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, a, 0, 256, 0xb05e);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);

	/* Any range of the buffer, the one recorded or not. */
	ranges[0] = weave_check_range(a, 0, 256);
	EXPECT_EQ(-EBUSY, weave_check(self->fd, ranges, 1, NULL, &nf, NULL,
				      &ns));
	ranges[0] = weave_check_range(a, self->page / 2, 64);
	EXPECT_EQ(-EBUSY, weave_check(self->fd, ranges, 1, NULL, &nf, NULL,
				      &ns));
	ranges[0] = weave_check_range(x, 0, 64);
	ranges[1] = weave_check_range(a, self->page - 4, 4);
	EXPECT_EQ(-EBUSY, weave_check(self->fd, ranges, 2, NULL, &nf, NULL,
				      &ns));
	EXPECT_EQ(0, weave_check(self->fd, ranges, 1, NULL, &nf, NULL, &ns));
	EXPECT_EQ(0u, nf);

	/* READ: -EBUSY, and the task queued on another slot stays queued. */
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, t, &b);
	EXPECT_EQ(-EBUSY, weave_read(self->fd, a, self->page / 2, 4, &word,
				     weave_timeout_ns(WEAVE_TEST_WAIT_NS),
				     NULL, NULL, NULL, NULL));
	EXPECT_EQ(1u, weave_test_client_usage(_metadata,
					      self->fd).queued_tasks);
	EXPECT_EQ(0, weave_read(self->fd, x, 0, 4, &word,
				weave_timeout_ns(WEAVE_TEST_WAIT_NS), NULL,
				NULL, NULL, NULL));
	EXPECT_EQ(0u, word);
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, 1);

	/* Closed, the buffer answers again. */
	end(_metadata, self->fd, self->s, 1);
	ranges[0] = weave_check_range(a, 0, self->page);
	EXPECT_EQ(0, weave_check(self->fd, ranges, 1, NULL, &nf, NULL, &ns));
	EXPECT_EQ(0, weave_read(self->fd, a, 0, 4, &word,
				weave_timeout_ns(WEAVE_TEST_WAIT_NS), NULL,
				NULL, NULL, NULL));
	EXPECT_EQ(0u, word);
}

/* --- replay -------------------------------------------------------------------- */

/*
 * A graph of a checked chain, replayed several times, on its stream and
 * on others, writes exactly the bytes the same tasks enqueued write.
 */
TEST_F(cap, replay_matches_enqueue)
{
	uint32_t t1 = other_slot(_metadata, self, self->s), t2;
	uint32_t bo, res, bo2, res2, graph, *map, crc, streams[4];
	uint32_t pa = 0x01234567, pb = 0x10305070;
	struct weave_test_batch b;
	unsigned int i;

	t2 = other_slot(_metadata, self, self->s);
	bo = weave_test_bo(_metadata, self->fd, 4 * self->page, 0);
	res = weave_test_bo(_metadata, self->fd, self->page, 0);
	bo2 = weave_test_bo(_metadata, self->fd, 4 * self->page, 0);
	res2 = weave_test_bo(_metadata, self->fd, self->page, 0);
	crc = weave_test_chain_crc(self->page, pa, pb);

	weave_test_batch_init(&b);
	weave_test_chain(&b, bo, self->page, pa, pb, res, 8);
	graph = record(_metadata, self->fd, self->s, &b);
	weave_test_chain(&b, bo2, self->page, pa, pb, res2, 8);
	weave_test_enqueue(_metadata, self->fd, t1, &b);
	weave_test_finish(_metadata, self->fd, t1);
	map = weave_test_map(_metadata, self->fd, res2, self->page);
	EXPECT_EQ(crc, map[2]);
	weave_test_unmap(_metadata, map, self->page);

	streams[0] = self->s;
	streams[1] = self->s;
	streams[2] = t1;
	streams[3] = t2;
	for (i = 0; i < 4; i++) {
		/* Clear, so that each replay writes every byte anew. */
		fill_now(_metadata, self->fd, t2, bo, 4 * self->page, 0);
		fill_now(_metadata, self->fd, t2, res, self->page, 0);
		replay_wait(_metadata, self->fd, graph, streams[i]);
		expect_same(_metadata, self->fd, bo, bo2, 4 * self->page);
		expect_same(_metadata, self->fd, res, res2, self->page);
		weave_test_expect_good(_metadata, self->fd, bo, 0,
				       4 * self->page);
		weave_test_expect_good(_metadata, self->fd, res, 0,
				       self->page);
	}
	/* Back to back, without waiting in between. */
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, weave_replay(self->fd, graph, streams[i + 1], NULL,
					  0, NULL, NULL));
	weave_test_wait(_metadata, self->fd, self->s);
	weave_test_wait(_metadata, self->fd, t1);
	weave_test_wait(_metadata, self->fd, t2);
	expect_same(_metadata, self->fd, bo, bo2, 4 * self->page);
	expect_same(_metadata, self->fd, res, res2, self->page);
}

/*
 * A replayed task with every binding it may have (past the few an encoded
 * task keeps inline, a buffer bound twice) fails on each range it writes,
 * and on none it only reads.
 */
TEST_F(cap, replay_fails_on_every_written_binding)
{
	uint32_t t = other_slot(_metadata, self, self->s), w[4], r, graph;
	struct drm_weave_binding bind[8];
	struct weave_test_report *rep;
	struct weave_test_batch b;
	uint64_t rseq = 0;
	unsigned int i;

	ASSERT_EQ(8u, self->info.max_bindings);
	rep = malloc(sizeof(*rep));
	ASSERT_NE(NULL, rep);
	for (i = 0; i < 4; i++)
		w[i] = weave_test_bo(_metadata, self->fd, 2 * self->page, 0);
	r = weave_test_bo(_metadata, self->fd, self->page, 0);
	bind[0] = weave_binding(r, DRM_WEAVE_ACCESS_READ, 0, self->page);
	for (i = 0; i < 4; i++)
		bind[1 + i] = weave_binding(w[i], DRM_WEAVE_ACCESS_WRITE, 0, 64);
	/* The last three: a second range of w[3], r again, w[0] again. */
	bind[5] = weave_binding(w[3], DRM_WEAVE_ACCESS_WRITE, self->page, 64);
	bind[6] = weave_binding(r, DRM_WEAVE_ACCESS_READ, 64, 64);
	bind[7] = weave_binding(w[0], DRM_WEAVE_ACCESS_READ |
				 DRM_WEAVE_ACCESS_WRITE, self->page, 128);
	weave_test_batch_init(&b);
	weave_test_launch(&b, DRM_WEAVE_KERNEL_FAIL, bind, 8, 1, EIO);
	graph = record(_metadata, self->fd, self->s, &b);

	ASSERT_EQ(0, weave_replay(self->fd, graph, t, NULL, 0, NULL, &rseq));
	weave_test_wait(_metadata, self->fd, t);
	for (i = 1; i < 8; i++) {
		if (bind[i].handle == r)
			continue;
		ASSERT_EQ(1u, weave_test_report(_metadata, self->fd,
						bind[i].handle, bind[i].offset,
						bind[i].size, rep)) {
			TH_LOG("binding %u", i);
		}
		EXPECT_EQ(-EIO, rep->failure[0].error);
		weave_test_expect_task(_metadata, &rep->failure[0].root, t,
				       rseq, 0, DRM_WEAVE_KERNEL_FAIL);
	}
	/* Outside the written ranges, and the read buffer: good. */
	weave_test_expect_good(_metadata, self->fd, w[1], 64,
			       2 * self->page - 64);
	weave_test_expect_good(_metadata, self->fd, w[3], 64, self->page - 64);
	weave_test_expect_good(_metadata, self->fd, r, 0, self->page);
	free(rep);
}

/* A replay's tasks count as the stream's, and its seqno is the last one. */
TEST_F(cap, replay_counts_and_seqno)
{
	uint32_t t = other_slot(_metadata, self, self->s), graph;
	struct drm_weave_stream_query q0, q;
	struct weave_test_batch b;
	uint64_t seq = 0, rseq = 0;

	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_noop(&b);
	weave_test_noop(&b);
	graph = record(_metadata, self->fd, self->s, &b);

	weave_test_noop(&b);
	weave_test_noop(&b);
	ASSERT_EQ(0, weave_enqueue(self->fd, t, b.task, b.n, NULL, 0, &seq));
	weave_test_batch_init(&b);
	weave_test_finish(_metadata, self->fd, t);
	q0 = weave_test_squery(_metadata, self->fd, t);
	ASSERT_EQ(0, weave_replay(self->fd, graph, t, NULL, 0, NULL, &rseq));
	EXPECT_EQ(seq + 3, rseq);
	ASSERT_EQ(0, weave_replay(self->fd, graph, t, NULL, 0, NULL, &rseq));
	EXPECT_EQ(seq + 6, rseq);
	weave_test_wait(_metadata, self->fd, t);
	q = weave_test_squery(_metadata, self->fd, t);
	EXPECT_EQ(q0.enqueued + 6, q.enqueued);
	EXPECT_EQ(q0.executed + 6, q.executed);
	EXPECT_EQ(q0.completed + 6, q.completed);
	/* The next enqueue follows on. */
	weave_test_noop(&b);
	ASSERT_EQ(0, weave_enqueue(self->fd, t, b.task, b.n, NULL, 0, &seq));
	EXPECT_EQ(rseq + 1, seq);
}

/*
 * A replay gated on an in-sync does not start before it signals; its
 * out-sync signals once it has run.
 */
TEST_F_TIMEOUT(cap, replay_in_sync_and_out_sync, 60)
{
	uint32_t t = other_slot(_metadata, self, self->s), bo, graph, out_obj;
	struct drm_weave_sync in, out;
	struct weave_test_gate gate;
	struct weave_test_batch b;

	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	out_obj = weave_test_syncobj(_metadata, self->fd);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 0x9a7e);
	graph = record(_metadata, self->fd, self->s, &b);

	weave_test_gate_open(_metadata, &gate, self->fd);
	in = weave_sync(gate.syncobj, 0);
	out = weave_sync(out_obj, 0);
	ASSERT_EQ(0, weave_replay(self->fd, graph, t, &in, 1, &out, NULL));
	usleep(100000);
	expect_words(_metadata, self->fd, bo, self->page, 0, self->page, 0);
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd, t).completed);
	EXPECT_EQ(0, weave_test_sync_file_status(_metadata, self->fd, out_obj,
						 0));
	weave_test_gate_pending(_metadata, self->fd, &gate);
	weave_test_gate_wait(_metadata, self->fd, &gate);

	ASSERT_EQ(0, drmSyncobjWait(self->fd, &out_obj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	EXPECT_EQ(1, weave_test_sync_file_status(_metadata, self->fd, out_obj,
						 0));
	expect_words(_metadata, self->fd, bo, self->page, 0, self->page,
		     0x9a7e);
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd, t).completed);
	drmSyncobjDestroy(self->fd, out_obj);
}

/*
 * A replay is ordered against other streams' tasks on its buffers as
 * enqueued tasks are: after those queued before it, before those after.
 */
TEST_F(cap, replay_ordered_with_other_streams)
{
	uint32_t t = other_slot(_metadata, self, self->s), in, out, out2, graph;
	struct weave_test_batch b;

	in = weave_test_bo(_metadata, self->fd, self->page, 0);
	out = weave_test_bo(_metadata, self->fd, self->page, 0);
	out2 = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_copy_task(&b, in, 0, out, 0, self->page);
	graph = record(_metadata, self->fd, self->s, &b);

	/* Queued, not flushed, on another slot, then the replay. */
	weave_test_delay(&b, 100000);
	weave_test_fill_task(&b, in, 0, self->page, 0x0dde4);
	weave_test_enqueue(_metadata, self->fd, t, &b);
	ASSERT_EQ(0, weave_replay(self->fd, graph, self->s, NULL, 0, NULL,
				  NULL));
	/* Then a reader of the replay's output. */
	weave_test_copy_task(&b, out, 0, out2, 0, self->page);
	weave_test_enqueue(_metadata, self->fd, t, &b);
	weave_test_finish(_metadata, self->fd, t);
	weave_test_wait(_metadata, self->fd, self->s);
	expect_words(_metadata, self->fd, out, self->page, 0, self->page,
		     0x0dde4);
	expect_words(_metadata, self->fd, out2, self->page, 0, self->page,
		     0x0dde4);
}

/*
 * A replay clears its way by executing another slot's task on the graph's
 * buffer, whose job may be done and freed before the replay's own is
 * queued: the buffer must stay pinned for the replay all the same.  Each
 * round races the other job's completion; a replay that lost its pin
 * warns, and runs on pages that are gone.
 */
TEST_F(cap, replay_keeps_its_pins_while_it_clears_its_way)
{
	uint32_t t = other_slot(_metadata, self, self->s), bo, graph, i;
	struct weave_test_batch b;

	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 0x5a5a);
	graph = record(_metadata, self->fd, self->s, &b);
	for (i = 0; i < 64; i++) {
		weave_test_fill_task(&b, bo, 0, self->page, i);
		weave_test_enqueue(_metadata, self->fd, t, &b);
		ASSERT_EQ(0, weave_replay(self->fd, graph, self->s, NULL, 0,
					  NULL, NULL));
		weave_test_wait(_metadata, self->fd, self->s);
		expect_words(_metadata, self->fd, bo, self->page, 0,
			     self->page, 0x5a5a);
	}
	ASSERT_EQ(0, weave_graph_destroy(self->fd, graph));
	weave_test_close_bo(_metadata, self->fd, bo);
}

/* REPLAY's refusals, with the errno the uAPI documents; nothing queued. */
TEST_F(cap, replay_errors)
{
	uint32_t t = other_slot(_metadata, self, self->s), graph, obj, fresh;
	struct drm_weave_sync in[2], *many;
	struct drm_weave_replay r;
	struct weave_test_batch b;
	uint32_t i, n;

	weave_test_batch_init(&b);
	weave_test_noop(&b);
	graph = record(_metadata, self->fd, self->s, &b);
	obj = weave_test_syncobj(_metadata, self->fd);
	ASSERT_EQ(0, drmSyncobjSignal(self->fd, &obj, 1));
	fresh = weave_test_syncobj(_metadata, self->fd);

	EXPECT_EQ(-ENOENT, weave_replay(self->fd, 0, t, NULL, 0, NULL, NULL));
	EXPECT_EQ(-ENOENT, weave_replay(self->fd, WEAVE_TEST_BAD_HANDLE, t,
					NULL, 0, NULL, NULL));
	EXPECT_EQ(-ENOENT, weave_replay(self->fd, graph, WEAVE_TEST_BAD_HANDLE,
					NULL, 0, NULL, NULL));
	in[0] = weave_sync(WEAVE_TEST_BAD_HANDLE, 0);
	EXPECT_EQ(-ENOENT, weave_replay(self->fd, graph, t, in, 1, NULL,
					NULL));
	/* A point with no fence. */
	in[0] = weave_sync(fresh, 0);
	EXPECT_EQ(-ENOENT, weave_replay(self->fd, graph, t, in, 1, NULL,
					NULL));
	in[0] = weave_sync(WEAVE_TEST_BAD_HANDLE, 0);
	EXPECT_EQ(-ENOENT, weave_replay(self->fd, graph, t, NULL, 0, in,
					NULL));
	/* An in-sync's flags. */
	in[0] = weave_sync(obj, 0);
	in[0].flags = 1;
	EXPECT_EQ(-EINVAL, weave_replay(self->fd, graph, t, in, 1, NULL,
					NULL));

	/* The replay's own flags and pad, and strides. */
	in[0] = weave_sync(obj, 0);
	memset(&r, 0, sizeof(r));
	r.graph = graph;
	r.stream = t;
	r.flags = 1;
	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_REPLAY,
					    &r));
	r.flags = 0;
	r.pad = 1;
	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_REPLAY,
					    &r));
	r.pad = 0;
	r.in_syncs.ptr = (uintptr_t)in;
	r.in_syncs.count = 1;
	r.in_syncs.stride = sizeof(in[0]) - 4;
	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_REPLAY,
					    &r));
	r.in_syncs.stride = DRM_WEAVE_MAX_STRIDE + 8;
	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_REPLAY,
					    &r));

	/* More in-syncs than max_in_syncs. */
	n = self->info.max_in_syncs + 1;
	many = calloc(n, sizeof(*many));
	ASSERT_NE(NULL, many);
	for (i = 0; i < n; i++)
		many[i] = weave_sync(obj, 0);
	EXPECT_EQ(-EINVAL, weave_replay(self->fd, graph, t, many, n, NULL,
					NULL));
	free(many);

	/* Nothing was queued by any of them. */
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd, t).enqueued);
	EXPECT_EQ(0u, weave_test_client_usage(_metadata,
					      self->fd).pending_tasks);
	/* And a good one goes through, a stride with zero tail too. */
	r.in_syncs.stride = sizeof(in[0]) + 8;
	{
		unsigned char wide[sizeof(in[0]) + 8];

		memset(wide, 0, sizeof(wide));
		memcpy(wide, &in[0], sizeof(in[0]));
		r.in_syncs.ptr = (uintptr_t)wide;
		EXPECT_EQ(0, weave_test_ioctl(self->fd,
					      DRM_IOCTL_WEAVE_REPLAY, &r));
	}
	weave_test_wait(_metadata, self->fd, t);
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd, t).completed);
	drmSyncobjDestroy(self->fd, obj);
	drmSyncobjDestroy(self->fd, fresh);
}

/*
 * A replay whose input is tainted skips and taints its outputs; once the
 * input is rewritten, the next replay makes them good.
 */
TEST_F(cap, failed_replay_then_good_replay)
{
	uint32_t t = other_slot(_metadata, self, self->s);
	uint32_t in, out, res, graph, *map;
	const struct drm_weave_failure *f;
	struct weave_test_batch b;
	uint64_t fail_seq;

	in = weave_test_bo(_metadata, self->fd, self->page, 0);
	out = weave_test_bo(_metadata, self->fd, self->page, 0);
	res = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_copy_task(&b, in, 0, out, 0, self->page);
	weave_test_crc_task(&b, out, 0, self->page, res, 0);
	graph = record(_metadata, self->fd, self->s, &b);
	fill_now(_metadata, self->fd, t, in, self->page, 0x1357);
	replay_wait(_metadata, self->fd, graph, self->s);
	weave_test_expect_good(_metadata, self->fd, out, 0, self->page);
	expect_words(_metadata, self->fd, out, self->page, 0, self->page,
		     0x1357);

	/* A FAIL writes the input, then a replay. */
	weave_test_fail_task(&b, in, 0, self->page, EBADMSG)->label = 12;
	fail_seq = weave_test_enqueue_seq(_metadata, self->fd, t, &b);
	weave_test_finish(_metadata, self->fd, t);
	replay_wait(_metadata, self->fd, graph, self->s);
	expect_words(_metadata, self->fd, out, self->page, 0, self->page,
		     0x1357);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, out, 0,
					self->page, self->r));
	f = &self->r->failure[0];
	weave_test_log_failure(_metadata, self->r, 0);
	EXPECT_EQ(-EBADMSG, f->error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_KERNEL, f->cause);
	weave_test_expect_task(_metadata, &f->root, t, fail_seq, 12,
			       DRM_WEAVE_KERNEL_FAIL);
	ASSERT_LE(1u, f->nskips);
	EXPECT_EQ((uint32_t)DRM_WEAVE_KERNEL_COPY,
		  self->r->skip[f->first_skip].kernel);
	EXPECT_EQ(self->s, self->r->skip[f->first_skip].stream);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, res, 0, 4,
					self->r));
	EXPECT_EQ(-EBADMSG, self->r->failure[0].error);

	/* Rewritten, the next replay makes the outputs good. */
	fill_now(_metadata, self->fd, t, in, self->page, 0x2468);
	replay_wait(_metadata, self->fd, graph, t);
	weave_test_expect_good(_metadata, self->fd, out, 0, self->page);
	weave_test_expect_good(_metadata, self->fd, res, 0, 4);
	expect_words(_metadata, self->fd, out, self->page, 0, self->page,
		     0x2468);
	map = weave_test_map(_metadata, self->fd, res, self->page);
	{
		uint32_t *want = malloc(self->page), i;

		ASSERT_NE(NULL, want);
		for (i = 0; i < self->page / 4; i++)
			want[i] = 0x2468;
		EXPECT_EQ(weave_test_crc32c(want, self->page), map[0]);
		free(want);
	}
	weave_test_unmap(_metadata, map, self->page);
}

/* --- destroying graphs ------------------------------------------------------- */

/*
 * Destroyed while a replay of it runs: the replay completes, correct, and
 * afterwards nothing of the graph holds a buffer or the module.  The
 * baseline is taken after the stream ran a job of its own, so that what
 * its slot keeps of its last job counts in it.
 */
TEST_F_TIMEOUT(cap, destroy_during_replay, 120)
{
	struct drm_weave_memory_usage base;
	struct weave_test_batch b;
	uint32_t bo, graph;
	long refs;

	weave_test_batch_init(&b);
	weave_test_delay(&b, 1000);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	weave_test_finish(_metadata, self->fd, self->s);
	weave_test_client_idle(_metadata, self->fd);
	refs = weave_test_settled_refs();
	base = weave_test_usage(_metadata, self->fd);
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_delay(&b, 1000000);
	weave_test_fill_task(&b, bo, 0, self->page, 0xde57);
	graph = record(_metadata, self->fd, self->s, &b);

	ASSERT_EQ(0, weave_replay(self->fd, graph, self->s, NULL, 0, NULL,
				  NULL));
	ASSERT_EQ(0, weave_graph_destroy(self->fd, graph));
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->s).completed);
	EXPECT_EQ(-ENOENT, weave_graph_destroy(self->fd, graph));
	EXPECT_EQ(-ENOENT, weave_replay(self->fd, graph, self->s, NULL, 0,
					NULL, NULL));
	weave_test_wait(_metadata, self->fd, self->s);
	expect_words(_metadata, self->fd, bo, self->page, 0, self->page,
		     0xde57);
	weave_test_expect_good(_metadata, self->fd, bo, 0, self->page);

	weave_test_close_bo(_metadata, self->fd, bo);
	weave_test_client_idle(_metadata, self->fd);
	TH_LOG("jobs freed; %llu buffers live, %llu before; weave.ko held %ld times, %ld before",
	       (unsigned long long)weave_test_usage(_metadata,
						    self->fd).live_bos,
	       (unsigned long long)base.live_bos, weave_test_module_refs(),
	       refs);
	await_live_bos(_metadata, self->fd, base.live_bos);
	weave_test_await_refs(_metadata, refs);
}

/* A graph keeps its buffers alive; destroying it lets them go. */
TEST_F(cap, graph_holds_its_buffers)
{
	struct drm_weave_memory_usage base;
	struct weave_test_batch b;
	uint32_t bo, graph;

	weave_test_settled_refs();
	base = weave_test_usage(_metadata, self->fd);
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 0x601d);
	graph = record(_metadata, self->fd, self->s, &b);
	weave_test_close_bo(_metadata, self->fd, bo);
	weave_test_client_idle(_metadata, self->fd);
	weave_test_assert_usage(_metadata, self->fd, &base, 1, self->page);
	/* Replays still write it. */
	replay_wait(_metadata, self->fd, graph, self->s);
	ASSERT_EQ(0, weave_graph_destroy(self->fd, graph));
	weave_test_client_idle(_metadata, self->fd);
	await_live_bos(_metadata, self->fd, base.live_bos);
}

/* GRAPH_DESTROY's refusals: -ENOENT, -EINVAL; the graph stays usable. */
TEST_F(cap, destroy_errors)
{
	struct drm_weave_graph_destroy d;
	struct weave_test_batch b;
	uint32_t graph;
	int fd2;

	EXPECT_EQ(-ENOENT, weave_graph_destroy(self->fd, 0));
	EXPECT_EQ(-ENOENT, weave_graph_destroy(self->fd,
					       WEAVE_TEST_BAD_HANDLE));
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	graph = record(_metadata, self->fd, self->s, &b);
	EXPECT_EQ(-ENOENT, weave_graph_destroy(self->fd, graph + 1));

	memset(&d, 0, sizeof(d));
	d.graph = graph;
	d.pad = 1;
	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd,
					    DRM_IOCTL_WEAVE_GRAPH_DESTROY, &d));

	/* Graphs are the client's: another file cannot name this one. */
	fd2 = weave_test_open(_metadata);
	EXPECT_EQ(-ENOENT, weave_graph_destroy(fd2, graph));
	close(fd2);

	replay_wait(_metadata, self->fd, graph, self->s);
	EXPECT_EQ(0, weave_graph_destroy(self->fd, graph));
	EXPECT_EQ(-ENOENT, weave_graph_destroy(self->fd, graph));
}

/* --- closing files with graphs and windows ----------------------------------- */

/*
 * On @fd: a graph replayed and still running, another graph idle, and a
 * window recording on another slot.  Returns 0 or a negative errno; no
 * test assertions, so that a child process can run it.
 */
static int leave_graphs_and_window(int fd, uint64_t page)
{
	struct drm_weave_task task[2];
	struct drm_weave_binding bind;
	struct drm_weave_capture c;
	uint32_t a = 0, s2 = 0, bo = 0, delay = 300000, word = 0xc105e;
	uint64_t size = page;
	int i, ret;

	ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &a);
	if (!ret)
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &s2);
	if (!ret)
		ret = weave_bo_create(fd, &size, 0, &bo);
	if (ret)
		return ret;
	bind = weave_binding(bo, DRM_WEAVE_ACCESS_WRITE, 0, page);
	weave_task_launch(&task[0], DRM_WEAVE_KERNEL_DELAY, NULL, 0, &delay,
			  sizeof(delay));
	weave_task_launch(&task[1], DRM_WEAVE_KERNEL_FILL, &bind, 1, &word,
			  sizeof(word));
	/* Two graphs, the first replayed. */
	for (i = 0; i < 2; i++) {
		ret = weave_capture(fd, a, DRM_WEAVE_CAPTURE_PREPARE, NULL);
		if (!ret)
			ret = weave_capture(fd, a, DRM_WEAVE_CAPTURE_BEGIN, NULL);
		if (!ret)
			ret = weave_enqueue(fd, a, task, 2, NULL, 0, NULL);
		if (!ret)
			ret = weave_capture(fd, a, DRM_WEAVE_CAPTURE_END, &c);
		if (!ret && !i)
			ret = weave_replay(fd, c.graph, a, NULL, 0, NULL,
					   NULL);
		if (ret)
			return ret;
	}
	/* A window recording on the other stream's slot. */
	ret = weave_capture(fd, s2, DRM_WEAVE_CAPTURE_PREPARE, NULL);
	if (!ret)
		ret = weave_capture(fd, s2, DRM_WEAVE_CAPTURE_BEGIN, NULL);
	if (!ret)
		ret = weave_enqueue(fd, s2, task, 2, NULL, 0, NULL);
	if (!ret)
		ret = weave_capture(fd, s2, DRM_WEAVE_CAPTURE_QUERY, &c);
	if (!ret && (c.state != DRM_WEAVE_CAPTURE_RECORDING || c.ntasks != 2))
		ret = -EPROTO;
	return ret;
}

TEST_F(cap, close_with_graphs_and_a_window)
{
	struct drm_weave_memory_usage base;
	long refs = weave_test_settled_refs();
	int fd2;

	base = weave_test_usage(_metadata, self->fd);
	fd2 = weave_test_open(_metadata);
	ASSERT_EQ(0, leave_graphs_and_window(fd2, self->page));
	ASSERT_EQ(0, close(fd2));
	await_live_bos(_metadata, self->fd, base.live_bos);
	weave_test_await_refs(_metadata, refs);
	/* The device works on. */
	chain_works(_metadata, self, self->s, 9);
}

TEST_F(cap, exit_with_graphs_and_a_window)
{
	struct drm_weave_memory_usage base;
	long refs = weave_test_settled_refs();
	int status;
	pid_t pid;

	base = weave_test_usage(_metadata, self->fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd2 = weave_device_open(0);

		_exit(fd2 < 0 ? 2 :
		      leave_graphs_and_window(fd2, self->page) ? 3 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	await_live_bos(_metadata, self->fd, base.live_bos);
	weave_test_await_refs(_metadata, refs);
	chain_works(_metadata, self, self->s, 10);
}

/* --- limits ----------------------------------------------------------------------- */

/*
 * With max_graphs graphs, END fails with -ENOSPC and the window goes on
 * recording; once a graph is destroyed, END seals it.
 */
TEST_F_TIMEOUT(cap, max_graphs, 240)
{
	struct drm_weave_capture c;
	struct weave_test_batch b;
	uint32_t i, first = 0, g;

	weave_test_batch_init(&b);
	for (i = 0; i < self->info.max_graphs; i++) {
		weave_test_noop(&b);
		g = record(_metadata, self->fd, self->s, &b);
		if (!i)
			first = g;
	}
	start(_metadata, self->fd, self->s);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	EXPECT_EQ(-ENOSPC, capture(self->fd, self->s, DRM_WEAVE_CAPTURE_END,
				   &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
	EXPECT_EQ(self->s, c.owner);
	EXPECT_EQ(0u, c.graph);
	EXPECT_EQ(1u, c.ntasks);
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, 1);
	EXPECT_EQ(1u, isolated(_metadata, self->fd, self->s));
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	ASSERT_EQ(0, weave_graph_destroy(self->fd, first));
	g = end(_metadata, self->fd, self->s, 2);
	replay_wait(_metadata, self->fd, g, self->s);
}

/*
 * A recording holds max_graph_tasks tasks: an enqueue that would pass it
 * fails with -ENOSPC and records none of its tasks; the graph seals with
 * them all and replays them all.
 */
TEST_F_TIMEOUT(cap, max_graph_tasks, 120)
{
	uint32_t max = self->info.max_graph_tasks, per, n, done, graph;
	struct drm_weave_task *noop;
	struct drm_weave_stream_query q;
	uint32_t i;

	per = self->info.max_tasks_per_enqueue;
	if (per > max)
		per = max;
	noop = calloc(per, sizeof(*noop));
	ASSERT_NE(NULL, noop);
	for (i = 0; i < per; i++)
		weave_task_launch(&noop[i], DRM_WEAVE_KERNEL_NOOP, NULL, 0,
				  NULL, 0);
	start(_metadata, self->fd, self->s);
	for (done = 0; done < max - 1; done += n) {
		n = max - 1 - done < per ? max - 1 - done : per;
		ASSERT_EQ(0, weave_enqueue(self->fd, self->s, noop, n, NULL, 0,
					   NULL));
	}
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, max - 1);
	/* Two would pass it: neither is recorded. */
	if (per >= 2) {
		EXPECT_EQ(-ENOSPC, weave_enqueue(self->fd, self->s, noop, 2,
						 NULL, 0, NULL));
		expect_window(_metadata, self->fd, self->s,
			      DRM_WEAVE_CAPTURE_RECORDING, self->s, max - 1);
	}
	ASSERT_EQ(0, weave_enqueue(self->fd, self->s, noop, 1, NULL, 0, NULL));
	EXPECT_EQ(-ENOSPC, weave_enqueue(self->fd, self->s, noop, 1, NULL, 0,
					 NULL));
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, max);
	graph = end(_metadata, self->fd, self->s, max);
	free(noop);

	q = weave_test_squery(_metadata, self->fd, self->s);
	replay_wait(_metadata, self->fd, graph, self->s);
	EXPECT_EQ(q.completed + max,
		  weave_test_squery(_metadata, self->fd, self->s).completed);
}

/* --- found by the fuzzers ---------------------------------------------- */

/* REPLAY of @graph on @stream with @n in-syncs at @in, @stride apart. */
static int replay_raw(int fd, uint32_t graph, uint32_t stream,
		      const void *in, uint32_t n, uint32_t stride)
{
	struct drm_weave_replay r;

	memset(&r, 0, sizeof(r));
	r.graph = graph;
	r.stream = stream;
	r.in_syncs.ptr = (uintptr_t)in;
	r.in_syncs.stride = stride;
	r.in_syncs.count = n;
	return weave_test_ioctl(fd, DRM_IOCTL_WEAVE_REPLAY, &r);
}

/*
 * A graph that recorded nothing replays as nothing, but its in-syncs are
 * checked as those of any replay: a bad one fails the call.
 */
TEST_F(cap, replay_of_an_empty_graph_checks_its_in_syncs)
{
	const uint32_t size = sizeof(struct drm_weave_sync);
	struct drm_weave_sync in[2];
	uint32_t obj, fresh, graph;
	uint8_t wide[2 * 64];

	obj = weave_test_syncobj(_metadata, self->fd);
	ASSERT_EQ(0, drmSyncobjSignal(self->fd, &obj, 1));
	fresh = weave_test_syncobj(_metadata, self->fd);
	start(_metadata, self->fd, self->s);
	graph = end(_metadata, self->fd, self->s, 0);

	in[0] = weave_sync(obj, 0);
	EXPECT_EQ(0, replay_raw(self->fd, graph, self->s, in, 1, size));
	in[1] = weave_sync(WEAVE_TEST_BAD_HANDLE, 0);
	EXPECT_EQ(-ENOENT, replay_raw(self->fd, graph, self->s, in, 2, size));
	/* A point with no fence. */
	in[1] = weave_sync(fresh, 0);
	EXPECT_EQ(-ENOENT, replay_raw(self->fd, graph, self->s, in, 2, size));
	in[1] = weave_sync(obj, 0);
	in[1].flags = 1;
	EXPECT_EQ(-EINVAL, replay_raw(self->fd, graph, self->s, in, 2, size));
	/* A longer stride's extra bytes must be zero. */
	memset(wide, 0, sizeof(wide));
	memcpy(wide, &in[0], size);
	memcpy(wide + 64, &in[0], size);
	wide[64 + size] = 1;
	EXPECT_EQ(-EINVAL, replay_raw(self->fd, graph, self->s, wide, 2, 64));
	EXPECT_EQ(-EFAULT, replay_raw(self->fd, graph, self->s,
				      WEAVE_TEST_BAD_PTR, 1, size));
	EXPECT_EQ(0, replay_raw(self->fd, graph, self->s, NULL, 0, size));
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->s).enqueued);

	drmSyncobjDestroy(self->fd, obj);
	drmSyncobjDestroy(self->fd, fresh);
}

/* A replay of an empty graph reports the stream's last seqno. */
TEST_F(cap, replay_of_an_empty_graph_reports_the_last_seqno)
{
	uint64_t seq = 0, rseq = 1;
	struct weave_test_batch b;
	uint32_t graph;

	start(_metadata, self->fd, self->s);
	graph = end(_metadata, self->fd, self->s, 0);
	ASSERT_EQ(0, weave_replay(self->fd, graph, self->s, NULL, 0, NULL,
				  &rseq));
	EXPECT_EQ(0u, rseq);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_noop(&b);
	ASSERT_EQ(0, weave_enqueue(self->fd, self->s, b.task, b.n, NULL, 0,
				   &seq));
	ASSERT_EQ(0, weave_replay(self->fd, graph, self->s, NULL, 0, NULL,
				  &rseq));
	EXPECT_EQ(2u, seq);
	EXPECT_EQ(seq, rseq);
	weave_test_wait(_metadata, self->fd, self->s);
	EXPECT_EQ(2u, weave_test_squery(_metadata, self->fd, self->s).completed);
}

/*
 * An ENQUEUE that would take the recording past max_graph_tasks fails
 * with -ENOSPC having recorded and queued nothing, and holds nothing: the
 * buffer it binds goes with its handle, and closing the file warns of
 * nothing left behind.
 */
TEST_F(cap, enqueue_a_full_recording_refuses_holds_nothing)
{
	uint32_t max = self->info.max_graph_tasks, bo;
	struct drm_weave_memory_usage base;
	struct drm_weave_task *noop;
	struct weave_test_batch b;
	uint8_t bytes[64];

	ASSERT_GE(self->info.max_tasks_per_enqueue, max);
	noop = calloc(max, sizeof(*noop));
	ASSERT_NE(NULL, noop);
	memset(bytes, 0x3e, sizeof(bytes));
	weave_test_settled_refs();
	base = weave_test_usage(_metadata, self->fd);
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	start(_metadata, self->fd, self->s);
	/* Zeroed tasks are no-op launches. */
	ASSERT_EQ(0, weave_enqueue(self->fd, self->s, noop, max, NULL, 0,
				   NULL));
	free(noop);

	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 3);
	weave_test_write_task(&b, bo, 0, sizeof(bytes), bytes);
	EXPECT_EQ(-ENOSPC, weave_test_submit(self->fd, self->s, &b));
	expect_window(_metadata, self->fd, self->s,
		      DRM_WEAVE_CAPTURE_RECORDING, self->s, max);
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->s).enqueued);

	do_op(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_ABORT);
	weave_test_close_bo(_metadata, self->fd, bo);
	weave_test_client_idle(_metadata, self->fd);
	await_live_bos(_metadata, self->fd, base.live_bos);
}

TEST_HARNESS_MAIN
