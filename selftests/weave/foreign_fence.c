// SPDX-License-Identifier: GPL-2.0
/*
 * weave: fences weave does not own.  A sw_sync timeline (SW_SYNC, in
 * debugfs) makes fences that only the test signals, which weave meets as
 * the in-syncs of ENQUEUE, through a syncobj, and as implicit fences in the
 * reservation of an exported weave buffer (DMA_BUF_IOCTL_IMPORT_SYNC_FILE;
 * weave's jobs wait for them: "reads after writes, writes after
 * everything", DOC: soft engine).  Closing a timeline signals its pending
 * points with -ENOENT: that is the foreign fence that fails.  And a client
 * must close, or die, without waiting for a foreign fence that has not
 * signalled ("closing the fd ... never waits on anyone else's fence").
 * Without sw_sync every test fails; none skips.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/sync_file.h>
#include <linux/types.h>

#include "weave_test.h"

/*
 * A line of the test's output.  Tests run in forked children that end
 * with _exit(): what they print to stdout must be flushed at once.
 */
#define ff_note(...) do {					\
	ksft_print_msg(__VA_ARGS__);				\
	fflush(stdout);						\
} while (0)

/* How long work gated on a pending fence is watched for not running. */
#define FF_HOLD_US		200000

/*
 * How long a close (or an exit) may take before it counts as blocked: a
 * killed process may wait a second per scheduler entity for its queued
 * jobs (drm_sched_entity_flush()), which is slow under the debug kernel.
 */
#define FF_CLOSE_LIMIT_NS	(10 * WEAVE_TEST_SEC)

/* A new sw_sync timeline, at 0 (its uAPI: weave_test_gate.h). */
static int ff_timeline(struct __test_metadata *_metadata)
{
	int tl = open(WEAVE_TEST_SW_SYNC_PATH, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, tl) {
		TH_LOG("%s: %s (the kernel needs CONFIG_SW_SYNC and debugfs mounted)",
		       WEAVE_TEST_SW_SYNC_PATH, strerror(errno));
	}
	return tl;
}

/* A sync_file of the fence at @point of timeline @tl. */
static int ff_point(struct __test_metadata *_metadata, int tl, uint32_t point)
{
	struct weave_test_sw_sync_create_fence args;

	memset(&args, 0, sizeof(args));
	args.value = point;
	snprintf(args.name, sizeof(args.name), "weave-test-%u", point);
	args.fence = -1;
	ASSERT_EQ(0, ioctl(tl, WEAVE_TEST_SW_SYNC_IOC_CREATE_FENCE, &args)) {
		TH_LOG("SW_SYNC_IOC_CREATE_FENCE: %s", strerror(errno));
	}
	ASSERT_LE(0, args.fence);
	return args.fence;
}

/* Advances timeline @tl by @n, signalling the points it reaches. */
static void ff_inc(struct __test_metadata *_metadata, int tl, uint32_t n)
{
	ASSERT_EQ(0, ioctl(tl, WEAVE_TEST_SW_SYNC_IOC_INC, &n)) {
		TH_LOG("SW_SYNC_IOC_INC: %s", strerror(errno));
	}
}

/* A sync_file's status: 1 signalled, 0 pending, a negative errno failed. */
static int ff_status(struct __test_metadata *_metadata, int sync_file)
{
	struct sync_file_info info;

	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, ioctl(sync_file, SYNC_IOC_FILE_INFO, &info));
	return info.status;
}

/* A syncobj of @fd holding the fence of @sync_file. */
static uint32_t ff_syncobj(struct __test_metadata *_metadata, int fd,
			   int sync_file)
{
	uint32_t obj = weave_test_syncobj(_metadata, fd);

	ASSERT_EQ(0, drmSyncobjImportSyncFile(fd, obj, sync_file));
	return obj;
}

/* Adds @sync_file's fence to dma-buf @dmabuf's reservation. */
static int ff_attach(int dmabuf, int sync_file, uint32_t flags)
{
	struct dma_buf_import_sync_file args = {
		.flags = flags,
		.fd = sync_file,
	};

	return ioctl(dmabuf, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &args) ?
	       -errno : 0;
}

FIXTURE(ff) {
	int fd;
	int tl;			/* the foreign timeline; -1 once closed */
	struct drm_weave_device_info info;
	uint64_t page;
	uint32_t stream;
	uint32_t bo;		/* two pages */
	uint32_t res;		/* one page */
	uint32_t *bo_map;
	uint32_t *res_map;
	struct drm_weave_memory_usage base;
};

FIXTURE_SETUP(ff)
{
	self->fd = weave_test_open(_metadata);
	self->tl = -1;
	self->info = weave_test_info(_metadata, self->fd);
	self->page = self->info.page_size;
	self->base = weave_test_usage(_metadata, self->fd);
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	self->bo = weave_test_bo(_metadata, self->fd, 2 * self->page, 0);
	self->res = weave_test_bo(_metadata, self->fd, self->page, 0);
	self->bo_map = weave_test_map(_metadata, self->fd, self->bo,
				      2 * self->page);
	self->res_map = weave_test_map(_metadata, self->fd, self->res,
				       self->page);
	self->tl = ff_timeline(_metadata);
}

FIXTURE_TEARDOWN(ff)
{
	/* Closing the timeline signals whatever still waits on it. */
	if (self->tl >= 0)
		close(self->tl);
	close(self->fd);
}

typedef FIXTURE_DATA(ff) ff_t;

/* Fills page @index of the fixture's buffer with @word, on @stream. */
static void ff_fill(struct __test_metadata *_metadata, ff_t *self,
		    uint32_t stream, uint32_t index, uint32_t word,
		    const struct drm_weave_sync *in, uint32_t nin)
{
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	weave_test_fill_task(&b, self->bo, index * self->page, self->page,
			     word);
	ASSERT_EQ(0, weave_enqueue(self->fd, stream, b.task, b.n, in, nin,
				   NULL));
}

/*
 * Lets @stream's flushed work have every chance to run, then checks none
 * of it did: nothing completed, page @index of the buffer still reads
 * @word, and a WAIT polls as pending.
 */
static void ff_held(struct __test_metadata *_metadata, ff_t *self,
		    uint32_t stream, uint32_t index, uint32_t word,
		    const char *why)
{
	usleep(FF_HOLD_US);
	ASSERT_EQ(0u, weave_test_squery(_metadata, self->fd,
					stream).completed) {
		TH_LOG("%s: the task ran", why);
	}
	ASSERT_EQ(word, self->bo_map[index * self->page / 4]) {
		TH_LOG("%s: the buffer was written", why);
	}
	ASSERT_EQ(-ETIME, weave_wait(self->fd, stream, 0));
}

/* Waits for @stream and checks page @index of the buffer reads @word. */
static void ff_ran(struct __test_metadata *_metadata, ff_t *self,
		   uint32_t stream, uint32_t index, uint32_t word)
{
	struct drm_weave_stream_query q;

	weave_test_wait(_metadata, self->fd, stream);
	q = weave_test_squery(_metadata, self->fd, stream);
	ASSERT_EQ(q.enqueued, q.completed);
	ASSERT_EQ(0, q.error);
	ASSERT_EQ(word, self->bo_map[index * self->page / 4]);
	ASSERT_EQ(word, self->bo_map[(index + 1) * self->page / 4 - 1]);
}

/* --- in-syncs ----------------------------------------------------------- */

/*
 * A task gated on point 2 of a foreign timeline runs once the timeline
 * reaches 2, not at 1; its out-fence follows.
 */
TEST_F(ff, in_sync_point)
{
	int p1 = ff_point(_metadata, self->tl, 1);
	int p2 = ff_point(_metadata, self->tl, 2);
	uint32_t obj = ff_syncobj(_metadata, self->fd, p2);
	uint32_t out_obj = weave_test_syncobj(_metadata, self->fd);
	struct drm_weave_sync in = weave_sync(obj, 0);
	struct drm_weave_sync out = weave_sync(out_obj, 0);

	ff_fill(_metadata, self, self->stream, 0, 0xf1, &in, 1);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, &out));
	ff_held(_metadata, self, self->stream, 0, 0, "point 2 pending");
	EXPECT_EQ(0, weave_test_sync_file_status(_metadata, self->fd,
						 out_obj, 0));

	ff_inc(_metadata, self->tl, 1);
	ASSERT_EQ(1, ff_status(_metadata, p1));
	ASSERT_EQ(0, ff_status(_metadata, p2));
	ff_held(_metadata, self, self->stream, 0, 0, "timeline at 1 of 2");

	ff_inc(_metadata, self->tl, 1);
	ASSERT_EQ(1, ff_status(_metadata, p2));
	ff_ran(_metadata, self, self->stream, 0, 0xf1);
	EXPECT_EQ(1, weave_test_sync_file_status(_metadata, self->fd,
						 out_obj, 20000));
	close(p1);
	close(p2);
}

/*
 * Points of one foreign timeline are one fence context: an enqueue that
 * lists points 1 and 3 waits for 3, whichever order they come in.
 */
TEST_F(ff, in_sync_one_timeline)
{
	int p1 = ff_point(_metadata, self->tl, 1);
	int p3 = ff_point(_metadata, self->tl, 3);
	struct drm_weave_sync in[2] = {
		weave_sync(ff_syncobj(_metadata, self->fd, p3), 0),
		weave_sync(ff_syncobj(_metadata, self->fd, p1), 0),
	};

	ff_fill(_metadata, self, self->stream, 0, 0xf2, in, 2);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	ff_inc(_metadata, self->tl, 2);
	ASSERT_EQ(1, ff_status(_metadata, p1));
	ff_held(_metadata, self, self->stream, 0, 0, "timeline at 2 of 3");
	ff_inc(_metadata, self->tl, 1);
	ff_ran(_metadata, self, self->stream, 0, 0xf2);
	close(p1);
	close(p3);
}

/*
 * Two enqueues on one slot gated on points 4 then 5 of one timeline: the
 * slot keeps one gate per context, the later.  The second task may not run
 * before point 5; both run once it is reached.
 */
TEST_F(ff, in_sync_gate_replaced)
{
	int p4 = ff_point(_metadata, self->tl, 4);
	int p5 = ff_point(_metadata, self->tl, 5);
	struct drm_weave_sync in4 = weave_sync(ff_syncobj(_metadata, self->fd,
							  p4), 0);
	struct drm_weave_sync in5 = weave_sync(ff_syncobj(_metadata, self->fd,
							  p5), 0);

	uint64_t one;

	ff_fill(_metadata, self, self->stream, 0, 0xf3, &in4, 1);
	one = weave_test_client_usage(_metadata, self->fd).gate_bytes;
	ASSERT_NE(0u, one);
	ff_fill(_metadata, self, self->stream, 1, 0xf4, &in5, 1);
	ASSERT_EQ(one, weave_test_client_usage(_metadata, self->fd).gate_bytes);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	ff_inc(_metadata, self->tl, 4);
	usleep(FF_HOLD_US);
	ASSERT_EQ(0u, self->bo_map[self->page / 4]) {
		TH_LOG("the task gated on point 5 ran at 4");
	}
	ASSERT_GE(1u, weave_test_squery(_metadata, self->fd,
					self->stream).completed);
	ff_inc(_metadata, self->tl, 1);
	weave_test_wait(_metadata, self->fd, self->stream);
	ASSERT_EQ(0xf3u, self->bo_map[0]);
	ASSERT_EQ(0xf4u, self->bo_map[self->page / 4]);
	ASSERT_EQ(2u, weave_test_squery(_metadata, self->fd,
					self->stream).completed);
	close(p4);
	close(p5);
}

/* A foreign fence moved to a point of a timeline syncobj gates the same. */
TEST_F(ff, in_sync_timeline_syncobj)
{
	int p1 = ff_point(_metadata, self->tl, 1);
	uint32_t bin = ff_syncobj(_metadata, self->fd, p1);
	uint32_t tlobj = weave_test_syncobj(_metadata, self->fd);
	struct drm_weave_sync in = weave_sync(tlobj, 7);

	ASSERT_EQ(0, drmSyncobjTransfer(self->fd, tlobj, 7, bin, 0, 0));
	ff_fill(_metadata, self, self->stream, 0, 0xf5, &in, 1);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	ff_held(_metadata, self, self->stream, 0, 0, "point 7 pending");
	ff_inc(_metadata, self->tl, 1);
	ff_ran(_metadata, self, self->stream, 0, 0xf5);
	close(p1);
}

/*
 * A task gated on a fence that signalled with an error does not run, and
 * what it should have written (page 0) carries a failure with that error
 * (uAPI 1.3): page 0 is untouched, the out-fence signals without an
 * error, CHECK names the in-fence as the cause.  The stream has not
 * failed and takes new work, which makes page 0 good again.
 */
static void ff_failed_in_fence(struct __test_metadata *_metadata, ff_t *self,
			       uint32_t out_obj, uint32_t word, int err,
			       const char *what)
{
	struct drm_weave_stream_query q;
	struct weave_test_report *r;
	int out;

	ASSERT_EQ(0, drmSyncobjWait(self->fd, &out_obj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	out = weave_test_sync_file_status(_metadata, self->fd, out_obj, 0);
	ASSERT_EQ(0u, self->bo_map[0]) {
		TH_LOG("%s: the gated task ran", what);
	}
	ASSERT_EQ(0u, self->bo_map[self->page / 4 - 1]);
	ASSERT_EQ(1, out) {
		TH_LOG("%s: out-fence status %d: a task failure is on its bytes, not on fences",
		       what, out);
	}
	r = malloc(sizeof(*r));
	ASSERT_NE(NULL, r);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, self->bo, 0,
					self->page, r));
	EXPECT_EQ(err, r->failure[0].error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_IN_FENCE, r->failure[0].cause);
	EXPECT_EQ((uint32_t)DRM_WEAVE_KERNEL_FILL, r->failure[0].root.kernel);
	EXPECT_EQ(self->stream, r->failure[0].root.stream);
	free(r);
	weave_test_expect_good(_metadata, self->fd, self->bo, self->page,
			       self->page);
	q = weave_test_squery(_metadata, self->fd, self->stream);
	ASSERT_EQ(q.enqueued, q.completed);
	ASSERT_EQ(0, q.error);
	ff_fill(_metadata, self, self->stream, 1, word + 1, NULL, 0);
	ff_fill(_metadata, self, self->stream, 0, word + 2, NULL, 0);
	weave_test_finish(_metadata, self->fd, self->stream);
	ASSERT_EQ(word + 1, self->bo_map[self->page / 4]);
	ASSERT_EQ(word + 2, self->bo_map[0]);
	weave_test_expect_good(_metadata, self->fd, self->bo, 0, self->page);
}

/* A foreign in-fence that signals with an error after the enqueue. */
TEST_F(ff, in_sync_fails)
{
	int p1 = ff_point(_metadata, self->tl, 1);
	uint32_t obj = ff_syncobj(_metadata, self->fd, p1);
	uint32_t out_obj = weave_test_syncobj(_metadata, self->fd);
	struct drm_weave_sync in = weave_sync(obj, 0);
	struct drm_weave_sync out = weave_sync(out_obj, 0);

	ff_fill(_metadata, self, self->stream, 0, 0xf6, &in, 1);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, &out));
	ff_held(_metadata, self, self->stream, 0, 0, "point 1 pending");
	/* Closing the timeline signals its pending points with -ENOENT. */
	close(self->tl);
	self->tl = -1;
	ASSERT_EQ(-ENOENT, ff_status(_metadata, p1));
	ff_failed_in_fence(_metadata, self, out_obj, 0xf6, -ENOENT,
			   "in-sync failed while gating");
	close(p1);
}

/* A foreign in-fence that had already failed when it was listed. */
TEST_F(ff, in_sync_failed_before)
{
	int p1 = ff_point(_metadata, self->tl, 1);
	uint32_t obj = ff_syncobj(_metadata, self->fd, p1);
	uint32_t out_obj = weave_test_syncobj(_metadata, self->fd);
	struct drm_weave_sync in = weave_sync(obj, 0);
	struct drm_weave_sync out = weave_sync(out_obj, 0);

	close(self->tl);
	self->tl = -1;
	ASSERT_EQ(-ENOENT, ff_status(_metadata, p1));
	ff_fill(_metadata, self, self->stream, 0, 0xf7, &in, 1);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, &out));
	ff_failed_in_fence(_metadata, self, out_obj, 0xf7, -ENOENT,
			   "in-sync failed before the enqueue");
	close(p1);
}

/* --- implicit fences ---------------------------------------------------- */

/*
 * A foreign write fence on a weave buffer's reservation holds both a
 * weave task that reads the buffer and one that writes it.  FLUSH does not
 * wait for it.
 */
TEST_F(ff, implicit_write_fence)
{
	int p1 = ff_point(_metadata, self->tl, 1);
	uint32_t reader, src, crc;
	struct weave_test_batch b;
	int dmabuf, src_dmabuf;
	uint8_t *map;

	/*
	 * The reader checksums a buffer of its own, so that it and the
	 * writer (of the fixture's buffer) share nothing but the fence.
	 */
	src = weave_test_bo(_metadata, self->fd, self->page, 0);
	map = weave_test_map(_metadata, self->fd, src, self->page);
	weave_test_fill(map, self->page, 0xab);
	crc = weave_test_crc32c(map, self->page);
	weave_test_unmap(_metadata, map, self->page);
	ASSERT_EQ(0, weave_bo_export(self->fd, src, DRM_CLOEXEC | DRM_RDWR,
				     &src_dmabuf));
	ASSERT_EQ(0, weave_bo_export(self->fd, self->bo,
				     DRM_CLOEXEC | DRM_RDWR, &dmabuf));
	ASSERT_EQ(0, ff_attach(src_dmabuf, p1, DMA_BUF_SYNC_WRITE)) {
		TH_LOG("DMA_BUF_IOCTL_IMPORT_SYNC_FILE: %s", strerror(errno));
	}
	ASSERT_EQ(0, ff_attach(dmabuf, p1, DMA_BUF_SYNC_WRITE));

	reader = weave_test_stream(_metadata, self->fd,
				   DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_batch_init(&b);
	weave_test_crc_task(&b, src, 0, self->page, self->res, 0);
	weave_test_enqueue(_metadata, self->fd, reader, &b);
	ASSERT_EQ(0, weave_flush(self->fd, reader, NULL));
	ff_fill(_metadata, self, self->stream, 0, 0xf8, NULL, 0);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));

	ff_held(_metadata, self, self->stream, 0, 0,
		"foreign write fence pending");
	ASSERT_EQ(0u, weave_test_squery(_metadata, self->fd,
					reader).completed) {
		TH_LOG("a read ran before the foreign write fence signalled");
	}
	ASSERT_EQ(0u, self->res_map[0]);

	ff_inc(_metadata, self->tl, 1);
	ff_ran(_metadata, self, self->stream, 0, 0xf8);
	weave_test_wait(_metadata, self->fd, reader);
	ASSERT_EQ(crc, self->res_map[0]);
	close(dmabuf);
	close(src_dmabuf);
	weave_test_close_bo(_metadata, self->fd, src);
	close(p1);
}

/*
 * A foreign read fence holds a weave task that writes the buffer, and not
 * one that only reads it.
 */
TEST_F(ff, implicit_read_fence)
{
	int p1 = ff_point(_metadata, self->tl, 1);
	struct weave_test_batch b;
	uint32_t reader, crc;
	int dmabuf;

	weave_test_fill(self->bo_map, self->page, 0xcd);
	crc = weave_test_crc32c(self->bo_map, self->page);
	ASSERT_EQ(0, weave_bo_export(self->fd, self->bo,
				     DRM_CLOEXEC | DRM_RDWR, &dmabuf));
	ASSERT_EQ(0, ff_attach(dmabuf, p1, DMA_BUF_SYNC_READ)) {
		TH_LOG("DMA_BUF_IOCTL_IMPORT_SYNC_FILE: %s", strerror(errno));
	}

	reader = weave_test_stream(_metadata, self->fd,
				   DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_batch_init(&b);
	weave_test_crc_task(&b, self->bo, 0, self->page, self->res, 0);
	weave_test_enqueue(_metadata, self->fd, reader, &b);
	weave_test_finish(_metadata, self->fd, reader);
	ASSERT_EQ(crc, self->res_map[0]);
	ASSERT_EQ(0, ff_status(_metadata, p1));

	ff_fill(_metadata, self, self->stream, 1, 0xf9, NULL, 0);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	ff_held(_metadata, self, self->stream, 1, 0,
		"foreign read fence pending");
	ff_inc(_metadata, self->tl, 1);
	ff_ran(_metadata, self, self->stream, 1, 0xf9);
	close(dmabuf);
	close(p1);
}

/*
 * A foreign write fence that signals with an error.  Implicit fences only
 * order work: the task runs once the fence has signalled, whatever its
 * error, and its out-fence signals without one.
 */
TEST_F(ff, implicit_fence_fails)
{
	int p1 = ff_point(_metadata, self->tl, 1);
	uint32_t out_obj = weave_test_syncobj(_metadata, self->fd);
	struct drm_weave_sync out = weave_sync(out_obj, 0);
	int dmabuf;

	ASSERT_EQ(0, weave_bo_export(self->fd, self->bo,
				     DRM_CLOEXEC | DRM_RDWR, &dmabuf));
	ASSERT_EQ(0, ff_attach(dmabuf, p1, DMA_BUF_SYNC_WRITE));
	ff_fill(_metadata, self, self->stream, 0, 0xfa, NULL, 0);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, &out));
	ff_held(_metadata, self, self->stream, 0, 0,
		"foreign write fence pending");
	close(self->tl);
	self->tl = -1;
	ASSERT_EQ(-ENOENT, ff_status(_metadata, p1));
	ASSERT_EQ(0, drmSyncobjWait(self->fd, &out_obj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	EXPECT_EQ(1, weave_test_sync_file_status(_metadata, self->fd, out_obj,
						 0));
	ff_ran(_metadata, self, self->stream, 0, 0xfa);
	weave_test_expect_good(_metadata, self->fd, self->bo, 0, self->page);
	close(dmabuf);
	close(p1);
}

/* --- closing on a fence that never signals -------------------------------- */

/* Exit codes of a child that sets up work and closes its file. */
enum ff_child_exit {
	FF_CHILD_OK = 0,
	FF_CHILD_OPEN = 10,
	FF_CHILD_SETUP,
	FF_CHILD_ENQUEUE,
	FF_CHILD_FLUSH,
	FF_CHILD_CLOSE,
};

enum ff_gate {
	FF_GATE_IN_SYNC,	/* the fence is an in-sync of the tasks */
	FF_GATE_IMPLICIT,	/* it is a write fence on their buffer */
};

/*
 * In a child: opens a client, queues work that waits on the foreign fence
 * @sync_file as @how says (one flushed task, one only queued), tells the
 * parent on @ready, then closes the client (with @close_it) or waits to
 * be killed.  Never returns.
 */
static void ff_child(int sync_file, enum ff_gate how, bool close_it,
		     uint64_t page, int ready, int shared)
{
	struct drm_weave_binding bind;
	struct drm_weave_task task;
	struct drm_weave_sync in;
	uint32_t s1, s2, bo, obj = 0, word = 1;
	uint64_t size = 2 * page;
	int fd, dmabuf = -1;

	fd = weave_device_open(0);
	if (fd < 0)
		_exit(FF_CHILD_OPEN);
	if (weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &s1) ||
	    weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &s2))
		_exit(FF_CHILD_SETUP);
	if (shared >= 0) {
		/* The parent's buffer, already busy with its own work. */
		if (weave_bo_import(fd, shared, &bo))
			_exit(FF_CHILD_SETUP);
		dmabuf = shared;
	} else if (weave_bo_create(fd, &size, 0, &bo) ||
		   (how == FF_GATE_IMPLICIT &&
		    weave_bo_export(fd, bo, DRM_CLOEXEC | DRM_RDWR,
				    &dmabuf))) {
		_exit(FF_CHILD_SETUP);
	}
	if (how == FF_GATE_IMPLICIT) {
		if (ff_attach(dmabuf, sync_file, DMA_BUF_SYNC_WRITE))
			_exit(FF_CHILD_SETUP);
	} else if (drmSyncobjCreate(fd, 0, &obj) ||
		   drmSyncobjImportSyncFile(fd, obj, sync_file)) {
		_exit(FF_CHILD_SETUP);
	}
	close(sync_file);
	if (dmabuf >= 0)
		close(dmabuf);
	in = weave_sync(obj, 0);

	bind = weave_binding(bo, DRM_WEAVE_ACCESS_WRITE, 0, page);
	weave_task_launch(&task, DRM_WEAVE_KERNEL_FILL, &bind, 1, &word, 4);
	if (weave_enqueue(fd, s1, &task, 1, &in, obj ? 1 : 0, NULL))
		_exit(FF_CHILD_ENQUEUE);
	if (weave_flush(fd, s1, NULL))
		_exit(FF_CHILD_FLUSH);
	bind = weave_binding(bo, DRM_WEAVE_ACCESS_WRITE, page, page);
	weave_task_launch(&task, DRM_WEAVE_KERNEL_FILL, &bind, 1, &word, 4);
	if (weave_enqueue(fd, s2, &task, 1, &in, obj ? 1 : 0, NULL))
		_exit(FF_CHILD_ENQUEUE);

	if (write(ready, "r", 1) != 1)
		_exit(FF_CHILD_SETUP);
	if (!close_it)
		for (;;)
			pause();
	if (close(fd))
		_exit(FF_CHILD_CLOSE);
	_exit(FF_CHILD_OK);
}

/* Logs where the blocked child @pid sleeps: its state and kernel stack. */
static void ff_log_blocked(struct __test_metadata *_metadata, pid_t pid)
{
	char path[64], buf[2048], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		buf[n] = 0;
		p = strrchr(buf, ')');
		if (p && p[1] == ' ')
			TH_LOG("the child is in state %c", p[2]);
	}
	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		buf[n] = 0;
		TH_LOG("its kernel stack:\n%s", buf);
	}
}

/*
 * Waits up to FF_CLOSE_LIMIT_NS for child @pid to end.  Returns its wait
 * status, or -1 if it had not ended by then: the parent then signals the
 * foreign timeline, so that the child gets out, and reaps it.
 */
static int ff_reap(struct __test_metadata *_metadata, ff_t *self, pid_t pid,
		   int64_t *took)
{
	int64_t start = weave_test_now();
	int status = 0;
	pid_t got;

	for (;;) {
		got = waitpid(pid, &status, WNOHANG);
		ASSERT_LE(0, got);
		if (got == pid) {
			*took = weave_test_now() - start;
			return status;
		}
		if (weave_test_now() - start > FF_CLOSE_LIMIT_NS)
			break;
		usleep(10000);
	}
	*took = weave_test_now() - start;
	ff_log_blocked(_metadata, pid);
	/* Let it out, so the run goes on; the test fails below. */
	ff_inc(_metadata, self->tl, 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	return -1;
}

/*
 * A client closes (@kill false) or is killed while its flushed and queued
 * tasks wait on a foreign fence that never signals.  The close or the exit
 * must end promptly without signalling that fence, the client's work must
 * be reaped (its buffer freed) while the fence is still pending, and the
 * fence must then fail normally when its timeline goes.  The child makes
 * a buffer of its own, or imports dma-buf @shared if not -1; if @hold is
 * not -1, it is the timeline whose point 1 holds weave work of the
 * fixture's stream, advanced once the child has been reaped.
 */
static void ff_close_pending(struct __test_metadata *_metadata, ff_t *self,
			     enum ff_gate how, bool kill_it, int shared,
			     int hold)
{
	const char *what = how == FF_GATE_IMPLICIT ?
			   "a foreign fence in its buffer's reservation" :
			   "a foreign in-sync";
	int p1 = ff_point(_metadata, self->tl, 1);
	int ready[2], status;
	int64_t took;
	char c;
	pid_t pid;

	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(ready[0]);
		close(self->tl);
		ff_child(p1, how, !kill_it, self->page, ready[1], shared);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1)) {
		TH_LOG("the child died setting up");
		waitpid(pid, &status, 0);
		TH_LOG("its exit status: %d", WEXITSTATUS(status));
	}
	close(ready[0]);
	/* Its flushed task is on a hardware queue, waiting. */
	usleep(FF_HOLD_US);
	ASSERT_EQ(0, ff_status(_metadata, p1));
	if (kill_it)
		ASSERT_EQ(0, kill(pid, SIGKILL));

	status = ff_reap(_metadata, self, pid, &took);
	ASSERT_NE(-1, status) {
		TH_LOG("%s of a client waiting on %s took over %lld ms: it waited for the foreign fence (signalled now to let it go)",
		       kill_it ? "the exit" : "close()", what,
		       (long long)(FF_CLOSE_LIMIT_NS / 1000000));
	}
	if (kill_it) {
		ASSERT_TRUE(WIFSIGNALED(status));
	} else {
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(FF_CHILD_OK, WEXITSTATUS(status));
	}
	ff_note("%s with %s took %lld ms\n",
		       kill_it ? "exit" : "close", what,
		       (long long)(took / 1000000));

	/* Weave did not signal the fence, nor wait for it to reap. */
	ASSERT_EQ(0, ff_status(_metadata, p1));
	if (hold >= 0) {
		/* The weave work it waited behind was still held: let it go. */
		ASSERT_EQ(0u, weave_test_squery(_metadata, self->fd,
						self->stream).completed);
		ff_inc(_metadata, hold, 1);
	}
	if (shared < 0) {
		struct drm_weave_memory_usage now;
		int64_t deadline = weave_test_now() + WEAVE_TEST_WAIT_NS;

		for (;;) {
			now = weave_test_usage(_metadata, self->fd);
			if (now.live_bos == self->base.live_bos + 2 ||
			    weave_test_now() > deadline)
				break;
			usleep(10000);
		}
		ASSERT_EQ(self->base.live_bos + 2, now.live_bos) {
			TH_LOG("the closed client's buffer is still alive: its work waits for the foreign fence");
		}
	}

	/* The timeline goes: the fence fails; nothing else happens. */
	close(self->tl);
	self->tl = -1;
	ASSERT_EQ(-ENOENT, ff_status(_metadata, p1));
	close(p1);
	ff_fill(_metadata, self, self->stream, 0, 0xfb, NULL, 0);
	weave_test_finish(_metadata, self->fd, self->stream);
	ASSERT_EQ(0xfbu, self->bo_map[0]);
}

TEST_F_TIMEOUT(ff, close_in_sync_pending, 60)
{
	ff_close_pending(_metadata, self, FF_GATE_IN_SYNC, false, -1, -1);
}

TEST_F_TIMEOUT(ff, close_implicit_pending, 60)
{
	ff_close_pending(_metadata, self, FF_GATE_IMPLICIT, false, -1, -1);
}

TEST_F_TIMEOUT(ff, exit_in_sync_pending, 60)
{
	ff_close_pending(_metadata, self, FF_GATE_IN_SYNC, true, -1, -1);
}

TEST_F_TIMEOUT(ff, exit_implicit_pending, 60)
{
	ff_close_pending(_metadata, self, FF_GATE_IMPLICIT, true, -1, -1);
}

/*
 * The exit of a killed process, on the fixture's buffer, shared: its job
 * waits first for weave work of this client that outlasts the scheduler's
 * one-second grace at exit, then for the foreign fence.  When the grace
 * ends, the scheduler kills the job, and waits (unkillably) for each
 * dependency it has not reached: the foreign fence among them.  The weave
 * work, a write of the buffer, is held by a point of a second timeline
 * until the child has been reaped: it outlasts the grace however slow the
 * child's set-up, its kill and its exit.
 */
TEST_F_TIMEOUT(ff, exit_implicit_behind_weave_work, 60)
{
	int hold = ff_timeline(_metadata);
	int p1 = ff_point(_metadata, hold, 1);
	struct drm_weave_sync in;
	int dmabuf;

	in = weave_sync(ff_syncobj(_metadata, self->fd, p1), 0);
	ff_fill(_metadata, self, self->stream, 1, 0xfc, &in, 1);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	/* The child adds the foreign fence after weave's. */
	ASSERT_EQ(0, weave_bo_export(self->fd, self->bo,
				     DRM_CLOEXEC | DRM_RDWR, &dmabuf));
	ff_close_pending(_metadata, self, FF_GATE_IMPLICIT, true, dmabuf, hold);
	close(dmabuf);
	ASSERT_EQ(1, ff_status(_metadata, p1));
	weave_test_wait(_metadata, self->fd, self->stream);
	ASSERT_EQ(0xfcu, self->bo_map[self->page / 4]);
	close(p1);
	close(hold);
}

TEST_HARNESS_MAIN
