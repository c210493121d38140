// SPDX-License-Identifier: GPL-2.0
/*
 * weave: the uAPI's documented promises, case by case (issue 19, part 3):
 * CHECK of a buffer imported from another weave device, a CHECK over
 * several ranges as one snapshot, a doomed window that names its failure,
 * END and ABORT as documented, FLUSH_ALL and STREAM_ISOLATE while a
 * stream records, the capture struct's pad2, the seqno of a recorded
 * ENQUEUE, the limits of graph capture and the stream argument's name.
 * Needs weave.ko loaded with num_devices=2 (the lane's multi-device run).
 */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weave_test.h"

/* Words of record_doomed()'s host write. */
#define DOOM_WORDS	16

FIXTURE(contract) {
	int fd;
	struct drm_weave_device_info info;
	uint64_t page;
	uint32_t s;		/* the stream whose slot the tests capture */
	uint32_t a, w;		/* record_doomed()'s buffers */
	uint32_t data[DOOM_WORDS];	/* and its host write's words */
	struct weave_test_report *r;
};

FIXTURE_SETUP(contract)
{
	self->fd = weave_test_open(_metadata);
	self->info = weave_test_info(_metadata, self->fd);
	self->page = self->info.page_size;
	ASSERT_LE(7u, self->info.uapi_minor) {
		TH_LOG("uAPI 1.%u predates these promises",
		       self->info.uapi_minor);
	}
	self->s = weave_test_stream(_metadata, self->fd,
				    DRM_WEAVE_PRIORITY_NORMAL);
	self->r = malloc(sizeof(*self->r));
	ASSERT_NE(NULL, self->r);
}

FIXTURE_TEARDOWN(contract)
{
	free(self->r);
	close(self->fd);
}

typedef FIXTURE_DATA(contract) contract_t;

/* --- helpers ------------------------------------------------------------------ */

static void must(struct __test_metadata *_metadata, int fd, uint32_t stream,
		 uint32_t op)
{
	struct drm_weave_capture c;

	ASSERT_EQ(0, weave_capture(fd, stream, op, &c)) {
		TH_LOG("capture op %u of stream %u", op, stream);
	}
}

/* PREPARE then BEGIN: @stream records. */
static void start(struct __test_metadata *_metadata, int fd, uint32_t stream)
{
	must(_metadata, fd, stream, DRM_WEAVE_CAPTURE_PREPARE);
	must(_metadata, fd, stream, DRM_WEAVE_CAPTURE_BEGIN);
}

/* QUERY of @stream's slot. */
static struct drm_weave_capture query(struct __test_metadata *_metadata,
				      int fd, uint32_t stream)
{
	struct drm_weave_capture c;

	memset(&c, 0, sizeof(c));
	EXPECT_EQ(0, weave_capture(fd, stream, DRM_WEAVE_CAPTURE_QUERY, &c));
	return c;
}

/*
 * A stream on the slot of self->s (handle s + max_streams), creating the
 * handles below it on the way; fails the test if max_client_streams does
 * not reach it.
 */
static uint32_t folded_stream(struct __test_metadata *_metadata,
			      contract_t *self)
{
	uint32_t h = 0;

	ASSERT_LT(self->s + self->info.max_streams,
		  self->info.max_client_streams + 1);
	while (h != self->s + self->info.max_streams)
		h = weave_test_stream(_metadata, self->fd,
				      DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_EQ(weave_test_squery(_metadata, self->fd, self->s).slot,
		  weave_test_squery(_metadata, self->fd, h).slot);
	return h;
}

/* A new stream on another slot than self->s. */
static uint32_t other_slot(struct __test_metadata *_metadata,
			   contract_t *self)
{
	uint32_t h = weave_test_stream(_metadata, self->fd,
				       DRM_WEAVE_PRIORITY_NORMAL);

	ASSERT_NE(weave_test_squery(_metadata, self->fd, self->s).slot,
		  weave_test_squery(_metadata, self->fd, h).slot);
	return h;
}

/*
 * Records a fill of the first 512 bytes of a new buffer self->a on
 * self->s, then dooms the window with a host write of the owner into the
 * first bytes of another, self->w.
 */
static void record_doomed(struct __test_metadata *_metadata,
			  contract_t *self)
{
	struct weave_test_batch b;
	struct drm_weave_capture c;
	uint32_t i;

	for (i = 0; i < DOOM_WORDS; i++)
		self->data[i] = 0xd00d0000u + i;
	self->a = weave_test_bo(_metadata, self->fd, self->page, 0);
	self->w = weave_test_bo(_metadata, self->fd, self->page, 0);
	start(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, self->a, 0, 512, 0xaaaa);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	weave_test_write_task(&b, self->w, 0, sizeof(self->data), self->data);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	c = query(_metadata, self->fd, self->s);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
	EXPECT_EQ(1u, c.ntasks);
	EXPECT_EQ(-EBUSY, c.error);
}

/* --- a buffer imported from another weave device ------------------------------ */

/*
 * Taints belong to the buffer: device 1 FAILs bytes 0..64 of its buffer,
 * and a file of device 0 that imported it sees the same failure through
 * CHECK, with the task's private fields hidden; a rewrite on device 1 makes
 * the bytes good there too.  READ and ENQUEUE refuse the import with
 * -EINVAL, as documented.
 */
TEST_F(contract, check_of_an_import_from_another_device_reports_taints)
{
	struct drm_weave_check_range ranges[2];
	struct weave_test_batch b;
	uint32_t bo1, bo0, s1, word, nf, ns;
	uint64_t id;
	int fd1, dmabuf;

	fd1 = weave_device_open(1);
	ASSERT_LE(0, fd1) {
		TH_LOG("no weave device 1 (load weave.ko with num_devices=2): %s",
		       strerror(-fd1));
	}
	bo1 = weave_test_bo(_metadata, fd1, self->page, 0);
	s1 = weave_test_stream(_metadata, fd1, DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, bo1, 0, 64, EPROTO);
	weave_test_enqueue(_metadata, fd1, s1, &b);
	weave_test_finish(_metadata, fd1, s1);
	ASSERT_EQ(1u, weave_test_report(_metadata, fd1, bo1, 0, 64, self->r));
	id = self->r->failure[0].id;
	EXPECT_EQ(-EPROTO, self->r->failure[0].error);

	ASSERT_EQ(0, weave_bo_export(fd1, bo1, DRM_CLOEXEC | DRM_RDWR,
				     &dmabuf));
	ASSERT_EQ(0, weave_bo_import(self->fd, dmabuf, &bo0));
	close(dmabuf);

	/* The same failure, its task not this client's. */
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, bo0, 0, 64,
					self->r)) {
		TH_LOG("device 0 calls failed bytes of the import good");
	}
	EXPECT_EQ(id, self->r->failure[0].id);
	EXPECT_EQ(-EPROTO, self->r->failure[0].error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_KERNEL,
		  self->r->failure[0].cause);
	EXPECT_EQ(0u, self->r->failure[0].root.flags);
	EXPECT_EQ((uint32_t)DRM_WEAVE_KERNEL_FAIL,
		  self->r->failure[0].root.kernel);
	weave_test_expect_good(_metadata, self->fd, bo0, 64, self->page - 64);

	/* Two ranges of the import, one failed and one good, in one call. */
	ranges[0] = weave_check_range(bo0, 32, 64);
	ranges[1] = weave_check_range(bo0, 128, 64);
	nf = 0;
	ns = 0;
	EXPECT_EQ(-ENOSPC, weave_check(self->fd, ranges, 2, NULL, &nf, NULL,
				       &ns));
	EXPECT_EQ(1u, nf);
	EXPECT_EQ(1u, ranges[0].nfailures);
	EXPECT_EQ(0u, ranges[1].nfailures);

	/* READ and ENQUEUE refuse a buffer of another device. */
	EXPECT_EQ(-EINVAL, weave_read(self->fd, bo0, 0, 4, &word,
				      weave_timeout_ns(WEAVE_TEST_WAIT_NS),
				      NULL, NULL, NULL, NULL));
	EXPECT_EQ(-EINVAL, weave_read(self->fd, bo0, 128, 4, &word,
				      weave_timeout_ns(WEAVE_TEST_WAIT_NS),
				      NULL, NULL, NULL, NULL));
	weave_test_fill_task(&b, bo0, 0, 64, 1);
	EXPECT_EQ(-EINVAL, weave_test_submit(self->fd, self->s, &b));

	/* A rewrite on device 1 makes the bytes good on both. */
	weave_test_fill_task(&b, bo1, 0, 64, 0x600d);
	weave_test_enqueue(_metadata, fd1, s1, &b);
	weave_test_finish(_metadata, fd1, s1);
	weave_test_expect_good(_metadata, fd1, bo1, 0, self->page);
	weave_test_expect_good(_metadata, self->fd, bo0, 0, self->page);
	close(fd1);
}

/* --- a CHECK over several ranges is one snapshot -------------------------------- */

#define SNAP_RANGES		64
#define SNAP_RANGE_BYTES	64
#define SNAP_ROUNDS		4000
#define SNAP_SECONDS		20

struct snap_writer {
	int fd;
	uint32_t stream;
	uint32_t bo;
	volatile int stop;
	int ret;
};

/* FAILs and FILLs the whole buffer in turn, each waited for. */
static void *snap_write(void *arg)
{
	struct snap_writer *w = arg;
	struct weave_test_batch b;
	uint32_t i;

	for (i = 0; !w->stop; i++) {
		weave_test_batch_init(&b);
		if (i % 2)
			weave_test_fill_task(&b, w->bo, 0,
					     SNAP_RANGES * SNAP_RANGE_BYTES, i);
		else
			weave_test_fail_task(&b, w->bo, 0,
					     SNAP_RANGES * SNAP_RANGE_BYTES,
					     EPROTO);
		w->ret = weave_test_submit(w->fd, w->stream, &b);
		if (!w->ret)
			w->ret = weave_flush(w->fd, w->stream, NULL);
		if (!w->ret)
			w->ret = weave_wait(w->fd, w->stream,
					    weave_timeout_ns(WEAVE_TEST_WAIT_NS));
		if (w->ret)
			break;
	}
	return NULL;
}

/*
 * One thread FAILs and FILLs a whole 4 KiB buffer in turn; another CHECKs
 * it as 64 ranges of 64 bytes.  Each task changes every range at once, so
 * every report must show all ranges good, or all carrying one failure.
 */
TEST_F(contract, check_of_several_ranges_is_one_snapshot)
{
	struct drm_weave_check_range ranges[SNAP_RANGES];
	struct drm_weave_failure *f;
	struct snap_writer w = { .fd = self->fd };
	uint32_t i, round, nf, torn = 0, failed = 0, good = 0;
	int64_t deadline = weave_test_now() + SNAP_SECONDS * WEAVE_TEST_SEC;
	pthread_t thread;
	int ret;

	f = calloc(SNAP_RANGES, sizeof(*f));
	ASSERT_NE(NULL, f);
	w.stream = self->s;
	w.bo = weave_test_bo(_metadata, self->fd,
			     SNAP_RANGES * SNAP_RANGE_BYTES, 0);
	ASSERT_EQ(0, pthread_create(&thread, NULL, snap_write, &w));
	for (round = 0; round < SNAP_ROUNDS && weave_test_now() < deadline;
	     round++) {
		for (i = 0; i < SNAP_RANGES; i++)
			ranges[i] = weave_check_range(w.bo,
						      i * SNAP_RANGE_BYTES,
						      SNAP_RANGE_BYTES);
		nf = SNAP_RANGES;
		ret = weave_check(self->fd, ranges, SNAP_RANGES, f, &nf, NULL,
				  NULL);
		if (ret) {
			/* Without room for skips, a failure may overflow. */
			EXPECT_EQ(-ENOSPC, ret);
		}
		if (!ranges[0].nfailures) {
			good++;
			for (i = 1; i < SNAP_RANGES; i++)
				torn += ranges[i].nfailures != 0;
			continue;
		}
		failed++;
		for (i = 0; i < SNAP_RANGES; i++)
			torn += ranges[i].nfailures != 1 || nf != SNAP_RANGES ||
				f[i].id != f[0].id;
		if (torn)
			break;
	}
	w.stop = 1;
	pthread_join(thread, NULL);
	EXPECT_EQ(0, w.ret);
	TH_LOG("%u reports: %u good, %u failed, %u torn ranges", round, good,
	       failed, torn);
	EXPECT_EQ(0u, torn) {
		TH_LOG("a report mixed the state of two moments");
	}
	EXPECT_LT(0u, failed);
	free(f);
}

/* --- capture windows -------------------------------------------------------------- */

/*
 * A window doomed by the owner's host write names the failure that the
 * refused write's destination carries, as a doom by a FAIL does.
 */
TEST_F(contract, host_write_doom_names_its_failure)
{
	struct drm_weave_capture c;

	record_doomed(_metadata, self);
	memset(&c, 0, sizeof(c));
	EXPECT_EQ(-EIO, weave_capture(self->fd, self->s, DRM_WEAVE_CAPTURE_END,
				&c));
	EXPECT_EQ(-EBUSY, c.error);
	EXPECT_NE(0u, c.failure) {
		TH_LOG("END of a window doomed by a host write names no failure");
	}
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);

	weave_test_finish(_metadata, self->fd, self->s);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, self->w, 0,
					sizeof(self->data), self->r));
	EXPECT_EQ(c.failure, self->r->failure[0].id);
	EXPECT_EQ(-EBUSY, self->r->failure[0].error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_CAPTURE,
		  self->r->failure[0].cause);
	/* END -EIO taints what was recorded. */
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, self->a, 0, 512,
					self->r));
	EXPECT_EQ(-EBUSY, self->r->failure[0].error);
}

/*
 * ABORT of a doomed window records nothing and taints nothing: the
 * recorded fill never runs, and its bytes keep what they held, good.  Only
 * the refused host write's destination carries a failure.
 */
TEST_F(contract, abort_of_a_doomed_window_taints_nothing)
{
	struct drm_weave_capture c;

	record_doomed(_metadata, self);
	EXPECT_EQ(0, weave_capture(self->fd, self->s, DRM_WEAVE_CAPTURE_ABORT, &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	weave_test_finish(_metadata, self->fd, self->s);
	weave_test_expect_good(_metadata, self->fd, self->a, 0, self->page);
	weave_test_expect_words(_metadata, self->fd, self->a, self->page,
				0);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, self->w, 0,
					sizeof(self->data), self->r));
	EXPECT_EQ(-EBUSY, self->r->failure[0].error);
}

/*
 * END by another stream of the slot abandons a recording window, doomed or
 * not: -ECANCELED, the owner and the doom named, nothing recorded tainted.
 * Of a window that is only prepared it is refused (-EBADFD), as the
 * owner's END is, and the window stays; ABORT by that stream closes it.
 */
TEST_F(contract, end_by_another_stream_of_the_slot)
{
	uint32_t folded = folded_stream(_metadata, self);
	struct drm_weave_capture c;

	must(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_PREPARE);
	memset(&c, 0, sizeof(c));
	EXPECT_EQ(-EBADFD, weave_capture(self->fd, folded, DRM_WEAVE_CAPTURE_END,
				   &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_PREPARED, c.state);
	EXPECT_EQ(self->s, c.owner);
	c = query(_metadata, self->fd, self->s);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_PREPARED, c.state);
	EXPECT_EQ(0, weave_capture(self->fd, folded, DRM_WEAVE_CAPTURE_ABORT, &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->s).isolated);

	/* Abandoning a doomed window: named, closed, nothing tainted. */
	record_doomed(_metadata, self);
	EXPECT_EQ(-ECANCELED, weave_capture(self->fd, folded, DRM_WEAVE_CAPTURE_END,
				      &c));
	EXPECT_EQ(self->s, c.owner);
	EXPECT_EQ(-EBUSY, c.error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	weave_test_finish(_metadata, self->fd, self->s);
	weave_test_expect_good(_metadata, self->fd, self->a, 0, self->page);
}

/*
 * A non-zero pad2 is refused with -EINVAL, for every op; nothing changes,
 * and pad2 is written zero as the other out fields are.
 */
TEST_F(contract, capture_pad2_must_be_zero)
{
	uint32_t op;
	struct drm_weave_capture c;

	for (op = DRM_WEAVE_CAPTURE_PREPARE; op <= DRM_WEAVE_CAPTURE_QUERY;
	     op++) {
		memset(&c, 0, sizeof(c));
		c.stream = self->s;
		c.op = op;
		c.pad2 = 1;
		EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd,
						    DRM_IOCTL_WEAVE_CAPTURE,
						    &c)) {
			TH_LOG("op %u with pad2 1", op);
		}
		/* An out field too: written zero. */
		EXPECT_EQ(0u, c.pad2);
		c = query(_metadata, self->fd, self->s);
		EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_NONE, c.state);
	}
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->s).isolated);
}

/*
 * FLUSH_ALL while a stream records succeeds: it submits every slot's
 * queued work, other streams' on the recording slot included, while the
 * owner's launches stay recorded; FLUSH of the owner itself fails.
 */
TEST_F(contract, flush_all_while_a_stream_records)
{
	uint32_t t = other_slot(_metadata, self), folded, a, x, y;
	struct weave_test_batch b;
	struct drm_weave_capture c;

	folded = folded_stream(_metadata, self);
	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	x = weave_test_bo(_metadata, self->fd, self->page, 0);
	y = weave_test_bo(_metadata, self->fd, self->page, 0);
	start(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, a, 0, self->page, 0xa);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	weave_test_fill_task(&b, x, 0, self->page, 0xb);
	weave_test_enqueue(_metadata, self->fd, t, &b);
	weave_test_fill_task(&b, y, 0, self->page, 0xc);
	weave_test_enqueue(_metadata, self->fd, folded, &b);

	EXPECT_EQ(-EBUSY, weave_flush(self->fd, self->s, NULL));
	EXPECT_EQ(0, weave_flush_all(self->fd, NULL));
	weave_test_wait(_metadata, self->fd, t);
	weave_test_wait(_metadata, self->fd, folded);
	weave_test_expect_words(_metadata, self->fd, x, self->page,
				0xb);
	weave_test_expect_words(_metadata, self->fd, y, self->page,
				0xc);
	weave_test_expect_words(_metadata, self->fd, a, self->page,
				0);
	c = query(_metadata, self->fd, self->s);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
	EXPECT_EQ(1u, c.ntasks);
	EXPECT_EQ(0, c.error);
	must(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_ABORT);
}

/*
 * The owner's STREAM_ISOLATE, ENTER or LEAVE, while it records succeeds,
 * as FLUSH_ALL does: it executes the slot, submitting the slot's other
 * streams' tasks, while the owner's launches stay recorded, and it changes
 * the stream's own hold, never the window's.  FLUSH of the owner, which
 * promises the stream's work, fails.
 */
TEST_F(contract, isolate_by_the_recording_owner_executes_the_slot)
{
	uint32_t folded = folded_stream(_metadata, self), a, y;
	struct weave_test_batch b;
	struct drm_weave_capture c;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	y = weave_test_bo(_metadata, self->fd, self->page, 0);
	start(_metadata, self->fd, self->s);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, a, 0, self->page, 0xa);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	weave_test_fill_task(&b, y, 0, self->page, 0xc);
	weave_test_enqueue(_metadata, self->fd, folded, &b);
	EXPECT_EQ(-EBUSY, weave_flush(self->fd, self->s, NULL));

	EXPECT_EQ(0, weave_stream_isolate(self->fd, self->s,
					  DRM_WEAVE_ISOLATION_ENTER));
	weave_test_wait(_metadata, self->fd, folded);
	weave_test_expect_words(_metadata, self->fd, y, self->page,
				0xc);
	EXPECT_EQ(0, weave_stream_isolate(self->fd, self->s,
					  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(-EALREADY, weave_stream_isolate(self->fd, self->s,
						  DRM_WEAVE_ISOLATION_LEAVE));
	/* The window's hold stays, and so does the recording. */
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->s).isolated);
	c = query(_metadata, self->fd, self->s);
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
	EXPECT_EQ(1u, c.ntasks);
	EXPECT_EQ(0, c.error);
	weave_test_expect_words(_metadata, self->fd, a, self->page,
				0);
	must(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_ABORT);
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->s).isolated);
}

/*
 * A recorded launch takes no sequence number: an ENQUEUE whose tasks were
 * all recorded returns the stream's last one so far; a host write in the
 * same call is queued (refused) and takes the next.
 */
TEST_F(contract, seqno_of_a_recorded_enqueue)
{
	uint32_t a = weave_test_bo(_metadata, self->fd, self->page, 0);
	uint32_t data[4] = { 9 };
	struct weave_test_batch b;
	uint64_t seqno = 0;

	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	start(_metadata, self->fd, self->s);
	weave_test_fill_task(&b, a, 0, 64, 1);
	weave_test_fill_task(&b, a, 64, 64, 2);
	ASSERT_EQ(0, weave_enqueue(self->fd, self->s, b.task, b.n, NULL, 0,
				   &seqno));
	EXPECT_EQ(2u, seqno);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, a, 128, 64, 3);
	weave_test_write_task(&b, a, 256, sizeof(data), data);
	ASSERT_EQ(0, weave_enqueue(self->fd, self->s, b.task, b.n, NULL, 0,
				   &seqno));
	EXPECT_EQ(3u, seqno);
	EXPECT_EQ(3u, weave_test_squery(_metadata, self->fd,
					self->s).enqueued);
	must(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_ABORT);
}

/* The limits of graph capture are those weave.rst's table gives. */
TEST_F(contract, graph_limits_as_documented)
{
	EXPECT_EQ(256u, self->info.max_graphs);
	EXPECT_EQ(1024u, self->info.max_graph_tasks);
}

/* --- the stream argument's name ---------------------------------------------------- */

/*
 * WAIT, STREAM_ISOLATE, STREAM_QUERY and STREAM_DESTROY name their stream
 * @stream, as the other ioctls do; @handle stays, the same field.
 */
TEST_F(contract, stream_is_the_stream_argument_everywhere)
{
	struct drm_weave_stream_query q;
	struct drm_weave_stream_destroy d;
	struct drm_weave_wait w;

	static_assert(offsetof(struct drm_weave_wait, stream) ==
		      offsetof(struct drm_weave_wait, handle), "alias");
	static_assert(offsetof(struct drm_weave_stream_isolate, stream) ==
		      offsetof(struct drm_weave_stream_isolate, handle),
		      "alias");
	static_assert(offsetof(struct drm_weave_stream_query, stream) ==
		      offsetof(struct drm_weave_stream_query, handle),
		      "alias");
	static_assert(offsetof(struct drm_weave_stream_destroy, stream) ==
		      offsetof(struct drm_weave_stream_destroy, handle),
		      "alias");
	/* 16 bytes up to uAPI 1.7, which 1.8 extended with @seqno. */
	static_assert(offsetof(struct drm_weave_wait, seqno) == 16, "1.7");
	static_assert(sizeof(struct drm_weave_wait) == 24, "size");
	/* ENQUEUE too: 48 bytes up to 1.7, then @out_syncs. */
	static_assert(offsetof(struct drm_weave_enqueue, out_syncs) == 48,
		      "1.7");
	static_assert(sizeof(struct drm_weave_enqueue) == 64, "size");
	static_assert(sizeof(struct drm_weave_stream_isolate) == 8, "size");
	static_assert(sizeof(struct drm_weave_stream_destroy) == 8, "size");

	memset(&q, 0, sizeof(q));
	q.stream = self->s;
	ASSERT_EQ(0, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_STREAM_QUERY,
				      &q));
	EXPECT_EQ(self->s, q.handle);
	memset(&w, 0, sizeof(w));
	w.stream = self->s;
	EXPECT_EQ(0, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_WAIT, &w));
	memset(&d, 0, sizeof(d));
	d.stream = self->s;
	EXPECT_EQ(0, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_STREAM_DESTROY,
				      &d));
	EXPECT_EQ(-ENOENT, weave_stream_query(self->fd, self->s, &q));
}

TEST_HARNESS_MAIN
