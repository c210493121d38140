// SPDX-License-Identifier: GPL-2.0
/*
 * weave: failures on bytes (uAPI 1.3).  A FAIL task taints exactly the
 * ranges it writes; a task that reads tainted bytes is skipped and passes
 * the failure on, with a skip record; a successful write, a host write
 * included, makes its bytes good again; unrelated work, interleaved in the
 * same job, is untouched; fences and stream states carry no task failure.
 * DRM_IOCTL_WEAVE_CHECK reports it all, the private fields to the file
 * that enqueued the task only.  Its refusals of malformed arguments are
 * check_errors.c's.
 *
 * CHECK does not wait: every test waits for the work on a range first.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "weave_test.h"

FIXTURE(fg) {
	WEAVE_TEST_FILE_FIELDS;
	uint32_t stream;
	struct weave_test_report *r;
};

FIXTURE_SETUP(fg)
{
	WEAVE_TEST_FILE_SETUP();
	ASSERT_LE(3u, self->info.uapi_minor) {
		TH_LOG("uAPI 1.%u has no failures on bytes",
		       self->info.uapi_minor);
	}
	ASSERT_LT(0u, self->info.max_check_ranges);
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	self->r = malloc(sizeof(*self->r));
	ASSERT_NE(NULL, self->r);
}

FIXTURE_TEARDOWN(fg)
{
	free(self->r);
	close(self->fd);
}

typedef FIXTURE_DATA(fg) fg_t;

/* Enqueues the batch on @stream, flushes and waits; its first seqno. */
static uint64_t run(struct __test_metadata *_metadata, fg_t *self,
		    uint32_t stream, struct weave_test_batch *b)
{
	uint64_t seq = weave_test_enqueue_seq(_metadata, self->fd, stream, b);

	weave_test_finish(_metadata, self->fd, stream);
	return seq;
}

/*
 * Flushes the fixture's stream and waits for it, as long as @jobs jobs may
 * take (weave_test_work_ns()).
 */
static void finish_jobs(struct __test_metadata *_metadata, fg_t *self,
			uint32_t jobs)
{
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	ASSERT_EQ(0, weave_wait(self->fd, self->stream,
				weave_timeout_ns(weave_test_work_ns(&self->info,
								    jobs))));
}

/* CHECK of a range of the fixture's file into self->r. */
static uint32_t report(struct __test_metadata *_metadata, fg_t *self,
		       uint32_t bo, uint64_t off, uint64_t size)
{
	return weave_test_report(_metadata, self->fd, bo, off, size, self->r);
}

static void good(struct __test_metadata *_metadata, fg_t *self, uint32_t bo,
		 uint64_t off, uint64_t size)
{
	weave_test_expect_good(_metadata, self->fd, bo, off, size);
}

/* The id of the one failure on the range; fails the test if not one. */
static uint64_t one_failure(struct __test_metadata *_metadata, fg_t *self,
			    uint32_t bo, uint64_t off, uint64_t size)
{
	ASSERT_EQ(1u, report(_metadata, self, bo, off, size)) {
		TH_LOG("bytes %llu+%llu of buffer %u",
		       (unsigned long long)off, (unsigned long long)size, bo);
	}
	return self->r->failure[0].id;
}

/* The crc32c of @size bytes of u32 words @word. */
static uint32_t crc_of_words(uint64_t size, uint32_t word)
{
	uint32_t *buf = malloc(size);
	uint32_t crc;
	uint64_t i;

	if (!buf)
		abort();
	for (i = 0; i < size / 4; i++)
		buf[i] = word;
	crc = weave_test_crc32c(buf, size);
	free(buf);
	return crc;
}

/* --- what a FAIL taints ------------------------------------------------------ */

/*
 * A FAIL taints exactly the range it writes, to the byte, with a failure
 * that names it; it writes nothing, and the bytes around stay good.
 */
TEST_F(fg, fail_taints_exactly_its_write_range)
{
	struct drm_weave_check_range ranges[3];
	struct drm_weave_failure f[4];
	struct drm_weave_failure_task t[4];
	uint32_t bo, nf = 4, nt = 4;
	struct weave_test_batch b;
	const struct drm_weave_failure *fl;
	uint64_t seq, id;

	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 0x11111111);
	weave_test_fail_task(&b, bo, 256, 256, EINVAL)->label = 7;
	seq = run(_metadata, self, self->stream, &b);

	/* Nothing written: the FAIL's range keeps the FILL's bytes. */
	weave_test_expect_range(_metadata, self->fd, bo, self->page, 0,
				self->page,
				0x11111111);

	ASSERT_EQ(1u, report(_metadata, self, bo, 0, self->page));
	weave_test_log_failure(_metadata, self->r, 0);
	fl = &self->r->failure[0];
	id = fl->id;
	EXPECT_EQ(-EINVAL, fl->error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_KERNEL, fl->cause);
	EXPECT_EQ(1u, fl->buffers);
	EXPECT_EQ(0u, fl->nskips);
	EXPECT_EQ(0u, fl->skips_dropped);
	weave_test_expect_task(_metadata, &fl->root, self->stream, seq + 1, 7,
			       DRM_WEAVE_KERNEL_FAIL);

	/* To the byte. */
	good(_metadata, self, bo, 0, 256);
	good(_metadata, self, bo, 512, self->page - 512);
	good(_metadata, self, bo, 255, 1);
	good(_metadata, self, bo, 512, 1);
	EXPECT_EQ(id, one_failure(_metadata, self, bo, 256, 256));
	EXPECT_EQ(id, one_failure(_metadata, self, bo, 256, 1));
	EXPECT_EQ(id, one_failure(_metadata, self, bo, 511, 1));
	EXPECT_EQ(id, one_failure(_metadata, self, bo, 255, 2));
	EXPECT_EQ(id, one_failure(_metadata, self, bo, 511, 2));

	/* Three ranges in one call: only the middle one carries it. */
	ranges[0] = weave_check_range(bo, 0, 256);
	ranges[1] = weave_check_range(bo, 256, 256);
	ranges[2] = weave_check_range(bo, 512, self->page - 512);
	ASSERT_EQ(0, weave_check(self->fd, ranges, 3, f, &nf, t, &nt));
	EXPECT_EQ(1u, nf);
	EXPECT_EQ(0u, nt);
	EXPECT_EQ(0u, ranges[0].nfailures);
	EXPECT_EQ(1u, ranges[1].nfailures);
	EXPECT_EQ(0u, ranges[1].first);
	EXPECT_EQ(0u, ranges[2].nfailures);
	EXPECT_EQ(id, f[0].id);
}

/* Only bindings with WRITE are tainted, READ and WRITE ones included. */
TEST_F(fg, fail_taints_write_bindings_only)
{
	struct drm_weave_binding bind[3];
	struct weave_test_batch b;
	uint32_t a, w, rw;
	uint64_t id;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	w = weave_test_bo(_metadata, self->fd, self->page, 0);
	rw = weave_test_bo(_metadata, self->fd, self->page, 0);
	bind[0] = weave_binding(a, DRM_WEAVE_ACCESS_READ, 0, self->page);
	bind[1] = weave_binding(w, DRM_WEAVE_ACCESS_WRITE, 64, 64);
	bind[2] = weave_binding(rw, DRM_WEAVE_ACCESS_READ |
				DRM_WEAVE_ACCESS_WRITE, 0, 128);
	weave_test_batch_init(&b);
	weave_test_launch(&b, DRM_WEAVE_KERNEL_FAIL, bind, 3, 1, EIO);
	run(_metadata, self, self->stream, &b);

	good(_metadata, self, a, 0, self->page);
	id = one_failure(_metadata, self, w, 0, self->page);
	EXPECT_EQ(2u, self->r->failure[0].buffers);
	EXPECT_EQ(-EIO, self->r->failure[0].error);
	good(_metadata, self, w, 0, 64);
	good(_metadata, self, w, 128, self->page - 128);
	EXPECT_EQ(id, one_failure(_metadata, self, rw, 0, 128));
	good(_metadata, self, rw, 128, self->page - 128);
}

/* --- skips -------------------------------------------------------------------- */

/*
 * A chain two deep: a COPY reads the FAIL's bytes and a CRC32C reads the
 * COPY's output.  Neither runs; both outputs take the root's failure,
 * which names the root and the two skips in order, and libweave says so.
 */
TEST_F(fg, skip_chain_two_deep)
{
	uint32_t s2, a, bb, c, *map;
	const struct drm_weave_failure *f;
	const struct drm_weave_failure_task *sk;
	struct weave_test_batch b;
	uint64_t seq_fail, seq_copy, id;
	char line[512], want[512];

	s2 = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	bb = weave_test_bo(_metadata, self->fd, self->page, 0);
	c = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bb, 0, self->page, 0xbbbbbbbb);
	weave_test_fill_task(&b, c, 0, self->page, 0xcccccccc);
	run(_metadata, self, s2, &b);

	weave_test_fail_task(&b, a, 0, 256, EIO)->label = 1;
	seq_fail = weave_test_enqueue_seq(_metadata, self->fd, self->stream,
					  &b);
	weave_test_copy_task(&b, a, 0, bb, 0, 256)->label = 2;
	weave_test_crc_task(&b, bb, 0, 256, c, 0)->label = 3;
	seq_copy = run(_metadata, self, s2, &b);
	weave_test_wait(_metadata, self->fd, self->stream);

	/* Neither ran: their outputs keep their bytes. */
	weave_test_expect_range(_metadata, self->fd, bb, self->page, 0,
				self->page,
				0xbbbbbbbb);
	map = weave_test_map(_metadata, self->fd, c, self->page);
	EXPECT_EQ(0xccccccccu, map[0]);
	weave_test_unmap(_metadata, map, self->page);

	id = one_failure(_metadata, self, a, 0, 256);
	EXPECT_EQ(2u, self->r->failure[0].nskips);

	ASSERT_EQ(id, one_failure(_metadata, self, c, 0, 4));
	f = &self->r->failure[0];
	EXPECT_EQ(-EIO, f->error);
	EXPECT_EQ(3u, f->buffers);
	EXPECT_EQ(0u, f->skips_dropped);
	weave_test_expect_task(_metadata, &f->root, self->stream, seq_fail, 1,
			       DRM_WEAVE_KERNEL_FAIL);
	ASSERT_EQ(2u, f->nskips);
	sk = &self->r->skip[f->first_skip];
	weave_test_expect_task(_metadata, &sk[0], s2, seq_copy, 2,
			       DRM_WEAVE_KERNEL_COPY);
	weave_test_expect_task(_metadata, &sk[1], s2, seq_copy + 1, 3,
			       DRM_WEAVE_KERNEL_CRC32C);

	/* What libweave makes of it. */
	snprintf(want, sizeof(want),
		 "failed: kernel \"fail\" (stream %u, seq %llu, label 1) returned -EIO; then skipped \"copy\" (stream %u, seq %llu, label 2) and \"crc32c\" (stream %u, seq %llu, label 3); failure #%llu",
		 self->stream, (unsigned long long)seq_fail, s2,
		 (unsigned long long)seq_copy, s2,
		 (unsigned long long)seq_copy + 1, (unsigned long long)id);
	EXPECT_EQ((int)strlen(want),
		  weave_failure_format(line, sizeof(line), f, self->r->skip));
	EXPECT_STREQ(want, line);

	/* The middle buffer carries the same failure, and the rest is good. */
	EXPECT_EQ(id, one_failure(_metadata, self, bb, 0, 256));
	EXPECT_EQ(2u, self->r->failure[0].nskips);
	good(_metadata, self, bb, 256, self->page - 256);
	good(_metadata, self, c, 4, self->page - 4);
}

/*
 * A task that reads two failures passes on the one on the lowest byte it
 * reads, not the older one; only that failure records the skip.
 */
TEST_F(fg, skip_takes_failure_of_lowest_byte)
{
	struct weave_test_batch b;
	uint32_t a, bb;
	uint64_t seq, low, high;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	bb = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, a, 4, 4, EIO);		/* the older */
	weave_test_fail_task(&b, a, 0, 4, EINVAL);
	weave_test_copy_task(&b, a, 0, bb, 0, 8)->label = 5;
	seq = run(_metadata, self, self->stream, &b);

	high = one_failure(_metadata, self, a, 4, 4);
	EXPECT_EQ(-EIO, self->r->failure[0].error);
	EXPECT_EQ(0u, self->r->failure[0].nskips);
	low = one_failure(_metadata, self, a, 0, 4);
	EXPECT_EQ(-EINVAL, self->r->failure[0].error);
	EXPECT_NE(high, low);

	EXPECT_EQ(low, one_failure(_metadata, self, bb, 0, 8));
	ASSERT_EQ(1u, self->r->failure[0].nskips);
	weave_test_expect_task(_metadata,
			       &self->r->skip[self->r->failure[0].first_skip],
			       self->stream, seq + 2, 5, DRM_WEAVE_KERNEL_COPY);

	/* Two failures on A's first 8 bytes, by first byte. */
	ASSERT_EQ(2u, report(_metadata, self, a, 0, 8));
	EXPECT_EQ(low, self->r->failure[0].id);
	EXPECT_EQ(high, self->r->failure[1].id);
}

/*
 * A failure keeps its newest max_failure_skips skip records, oldest first,
 * and counts the ones before.
 */
TEST_F(fg, skips_dropped_past_the_newest)
{
	const struct drm_weave_failure *f;
	struct weave_test_batch b;
	uint32_t a, bb, n, i, keep = self->info.max_failure_skips;
	uint64_t seq;

	ASSERT_EQ((uint32_t)DRM_WEAVE_FAILURE_SKIPS, keep);
	n = keep + 4;
	ASSERT_GE((uint32_t)WEAVE_TEST_BATCH, n + 1);
	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	bb = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, a, 0, 4, EIO);
	for (i = 0; i < n; i++)
		weave_test_copy_task(&b, a, 0, bb, 4 * i, 4)->label = 100 + i;
	seq = run(_metadata, self, self->stream, &b) + 1;

	one_failure(_metadata, self, bb, 0, 4 * n);
	f = &self->r->failure[0];
	EXPECT_EQ(4u, f->skips_dropped);
	ASSERT_EQ(keep, f->nskips);
	for (i = 0; i < keep; i++)
		weave_test_expect_task(_metadata,
				       &self->r->skip[f->first_skip + i],
				       self->stream, seq + 4 + i, 104 + i,
				       DRM_WEAVE_KERNEL_COPY);
	weave_test_log_failure(_metadata, self->r, 0);
}

/* --- unrelated work ------------------------------------------------------------ */

/* Buffers of two chains, one that fails at its root and one that does not. */
struct chains {
	uint32_t x, y;		/* parts 0 and 1 of each chain */
	uint32_t rx, ry;	/* their crc results */
	uint64_t seq_x;		/* the failing chain's first seqno */
};

#define CHAIN_BYTES	256
#define CHAIN_WORD	0x1234abcdu
#define UNTOUCHED	0xddddddddu

/*
 * Enqueues two chains of three tasks, one task per enqueue, alternating:
 * on @hx a FAIL of x's part 0, a COPY to part 1 and its CRC32C into rx;
 * on @hy the same with a FILL instead of the FAIL.  The results start as
 * UNTOUCHED.
 */
static void two_chains(struct __test_metadata *_metadata, fg_t *self,
		       uint32_t hx, uint32_t hy, struct chains *ch)
{
	struct weave_test_batch b;

	ch->x = weave_test_bo(_metadata, self->fd, self->page, 0);
	ch->y = weave_test_bo(_metadata, self->fd, self->page, 0);
	ch->rx = weave_test_bo(_metadata, self->fd, self->page, 0);
	ch->ry = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, ch->rx, 0, self->page, UNTOUCHED);
	weave_test_fill_task(&b, ch->ry, 0, self->page, UNTOUCHED);
	run(_metadata, self, hx, &b);

	weave_test_fail_task(&b, ch->x, 0, CHAIN_BYTES, EIO)->label = 10;
	ch->seq_x = weave_test_enqueue_seq(_metadata, self->fd, hx, &b);
	weave_test_fill_task(&b, ch->y, 0, CHAIN_BYTES, CHAIN_WORD)->label = 20;
	weave_test_enqueue(_metadata, self->fd, hy, &b);
	weave_test_copy_task(&b, ch->x, 0, ch->x, CHAIN_BYTES,
			     CHAIN_BYTES)->label = 11;
	weave_test_enqueue(_metadata, self->fd, hx, &b);
	weave_test_copy_task(&b, ch->y, 0, ch->y, CHAIN_BYTES,
			     CHAIN_BYTES)->label = 21;
	weave_test_enqueue(_metadata, self->fd, hy, &b);
	weave_test_crc_task(&b, ch->x, CHAIN_BYTES, CHAIN_BYTES, ch->rx,
			    0)->label = 12;
	weave_test_enqueue(_metadata, self->fd, hx, &b);
	weave_test_crc_task(&b, ch->y, CHAIN_BYTES, CHAIN_BYTES, ch->ry,
			    0)->label = 22;
	weave_test_enqueue(_metadata, self->fd, hy, &b);
}

/*
 * After two_chains() ran: the clean chain's data is right and good, the
 * failing chain's outputs were not written and carry its root's failure,
 * with its two skips; both streams are active, without an error.
 */
static void check_chains(struct __test_metadata *_metadata, fg_t *self,
			 uint32_t hx, uint32_t hy, const struct chains *ch)
{
	const struct drm_weave_failure *f;
	struct drm_weave_stream_query q;
	uint32_t *map;

	map = weave_test_map(_metadata, self->fd, ch->ry, self->page);
	EXPECT_EQ(crc_of_words(CHAIN_BYTES, CHAIN_WORD), map[0]);
	weave_test_unmap(_metadata, map, self->page);
	weave_test_expect_range(_metadata, self->fd, ch->y, self->page, 0,
				2 * CHAIN_BYTES, CHAIN_WORD);
	good(_metadata, self, ch->y, 0, self->page);
	good(_metadata, self, ch->ry, 0, self->page);

	map = weave_test_map(_metadata, self->fd, ch->rx, self->page);
	EXPECT_EQ(UNTOUCHED, map[0]);
	weave_test_unmap(_metadata, map, self->page);
	weave_test_expect_range(_metadata, self->fd, ch->x, self->page, 0,
				2 * CHAIN_BYTES, 0);
	one_failure(_metadata, self, ch->rx, 0, self->page);
	f = &self->r->failure[0];
	weave_test_expect_task(_metadata, &f->root, hx, ch->seq_x, 10,
			       DRM_WEAVE_KERNEL_FAIL);
	ASSERT_EQ(2u, f->nskips);
	weave_test_expect_task(_metadata, &self->r->skip[f->first_skip], hx,
			       ch->seq_x + 1, 11, DRM_WEAVE_KERNEL_COPY);
	weave_test_expect_task(_metadata, &self->r->skip[f->first_skip + 1],
			       hx, ch->seq_x + 2, 12, DRM_WEAVE_KERNEL_CRC32C);
	good(_metadata, self, ch->rx, 4, self->page - 4);

	q = weave_test_squery(_metadata, self->fd, hx);
	EXPECT_EQ((uint32_t)DRM_WEAVE_STREAM_ACTIVE, q.state);
	EXPECT_EQ(0, q.error);
	EXPECT_EQ(q.enqueued, q.completed);
	q = weave_test_squery(_metadata, self->fd, hy);
	EXPECT_EQ((uint32_t)DRM_WEAVE_STREAM_ACTIVE, q.state);
	EXPECT_EQ(0, q.error);
	EXPECT_EQ(q.enqueued, q.completed);
}

/*
 * Two independent chains in one job: streams h and h + max_streams share
 * a slot, so one flush makes one job of both, their tasks alternating.
 * The failing chain does not contaminate the other.
 */
TEST_F(fg, chains_interleaved_in_one_job)
{
	uint32_t h = self->stream, g = 0, s;
	struct chains ch;
	uint64_t jobs;

	ASSERT_LT(self->info.max_streams, self->info.max_client_streams);
	ASSERT_LE(6u, self->info.max_tasks);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_STRATEGY,
			 DRM_WEAVE_STRATEGY_INTERLEAVE);
	/* Handles are given out in turn: h + max_streams comes. */
	do {
		s = weave_test_stream(_metadata, self->fd,
				      DRM_WEAVE_PRIORITY_NORMAL);
		if (s == h + self->info.max_streams) {
			g = s;
		} else {
			ASSERT_EQ(0, weave_stream_destroy(self->fd, s));
		}
	} while (!g && s < h + self->info.max_streams);
	ASSERT_NE(0u, g);
	ASSERT_EQ(weave_test_squery(_metadata, self->fd, h).slot,
		  weave_test_squery(_metadata, self->fd, g).slot);

	two_chains(_metadata, self, h, g, &ch);
	jobs = weave_test_jobs(_metadata, self->fd);
	ASSERT_EQ(0, weave_flush(self->fd, h, NULL));
	weave_test_wait(_metadata, self->fd, h);
	weave_test_wait(_metadata, self->fd, g);
	EXPECT_EQ(1u, weave_test_jobs(_metadata, self->fd) - jobs);
	check_chains(_metadata, self, h, g, &ch);
}

/* The same across two slots that one flush all interleaves into one job. */
TEST_F(fg, chains_interleaved_by_flush_all)
{
	uint32_t h = self->stream, g;
	struct chains ch;
	uint64_t jobs;

	ASSERT_LE(6u, self->info.max_tasks);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_STRATEGY,
			 DRM_WEAVE_STRATEGY_INTERLEAVE);
	g = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_NE(weave_test_squery(_metadata, self->fd, h).slot,
		  weave_test_squery(_metadata, self->fd, g).slot);

	two_chains(_metadata, self, h, g, &ch);
	jobs = weave_test_jobs(_metadata, self->fd);
	ASSERT_EQ(0, weave_flush_all(self->fd, NULL));
	weave_test_wait(_metadata, self->fd, h);
	weave_test_wait(_metadata, self->fd, g);
	EXPECT_EQ(1u, weave_test_jobs(_metadata, self->fd) - jobs);
	check_chains(_metadata, self, h, g, &ch);
}

/*
 * A buffer the failure never touched is good, so is one a FILL of the
 * failing job wrote, and so is what a task made of the good part of a
 * tainted buffer.
 */
TEST_F(fg, untouched_buffers_are_good)
{
	struct weave_test_batch b;
	uint32_t a, fresh, filled, out;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	fresh = weave_test_bo(_metadata, self->fd, self->page, 0);
	filled = weave_test_bo(_metadata, self->fd, self->page, 0);
	out = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, a, 0, self->page, 0x77777777);
	weave_test_fail_task(&b, a, 0, self->page / 2, EIO);
	weave_test_fill_task(&b, filled, 0, self->page, 0x5555aaaa);
	weave_test_copy_task(&b, a, self->page / 2, out, 0, self->page / 2);
	run(_metadata, self, self->stream, &b);

	good(_metadata, self, fresh, 0, self->page);
	good(_metadata, self, filled, 0, self->page);
	weave_test_expect_range(_metadata, self->fd, filled, self->page, 0,
				self->page,
				0x5555aaaa);
	good(_metadata, self, out, 0, self->page);
	weave_test_expect_range(_metadata, self->fd, out, self->page, 0,
				self->page / 2,
				0x77777777);
	good(_metadata, self, a, self->page / 2, self->page / 2);
	one_failure(_metadata, self, a, 0, self->page);
}

/* --- clearing -------------------------------------------------------------------- */

/*
 * A failure stays through reports and through a task that only reads it;
 * a FILL makes exactly the bytes it wrote good, splitting the taint.
 */
TEST_F(fg, failure_stays_until_rewritten)
{
	struct drm_weave_check_range ranges[3];
	struct drm_weave_failure f[4];
	struct drm_weave_failure_task t[4];
	struct weave_test_batch b;
	uint32_t a, res, nf = 4, nt = 4;
	uint64_t id;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	res = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, a, 0, 1024, EIO);
	run(_metadata, self, self->stream, &b);
	id = one_failure(_metadata, self, a, 0, 1024);
	/* Reporting does not clear. */
	EXPECT_EQ(id, one_failure(_metadata, self, a, 0, 1024));

	/* A reader is skipped; the bytes it read keep their failure. */
	weave_test_crc_task(&b, a, 0, 1024, res, 0);
	run(_metadata, self, self->stream, &b);
	EXPECT_EQ(id, one_failure(_metadata, self, a, 0, 1024));
	EXPECT_EQ(1u, self->r->failure[0].nskips);
	EXPECT_EQ(2u, self->r->failure[0].buffers);
	EXPECT_EQ(id, one_failure(_metadata, self, res, 0, 4));

	/* A FILL of the middle: that part good, the two others not. */
	weave_test_fill_task(&b, a, 256, 256, 0x600d600d);
	run(_metadata, self, self->stream, &b);
	good(_metadata, self, a, 256, 256);
	EXPECT_EQ(id, one_failure(_metadata, self, a, 0, 256));
	EXPECT_EQ(id, one_failure(_metadata, self, a, 512, 512));
	EXPECT_EQ(id, one_failure(_metadata, self, a, 255, 2));
	EXPECT_EQ(id, one_failure(_metadata, self, a, 511, 2));
	EXPECT_EQ(id, one_failure(_metadata, self, a, 0, 1024));
	good(_metadata, self, a, 1024, self->page - 1024);

	/* One failure on two of three ranges is reported twice. */
	ranges[0] = weave_check_range(a, 0, 256);
	ranges[1] = weave_check_range(a, 256, 256);
	ranges[2] = weave_check_range(a, 512, 512);
	ASSERT_EQ(0, weave_check(self->fd, ranges, 3, f, &nf, t, &nt));
	ASSERT_EQ(2u, nf);
	EXPECT_EQ(1u, ranges[0].nfailures);
	EXPECT_EQ(0u, ranges[0].first);
	EXPECT_EQ(0u, ranges[1].nfailures);
	EXPECT_EQ(1u, ranges[2].nfailures);
	EXPECT_EQ(1u, ranges[2].first);
	EXPECT_EQ(id, f[0].id);
	EXPECT_EQ(id, f[1].id);
	EXPECT_EQ(1u, f[0].nskips);
	EXPECT_EQ(1u, f[1].nskips);
	EXPECT_GE(nt, f[0].first_skip + f[0].nskips);
	EXPECT_GE(nt, f[1].first_skip + f[1].nskips);

	/* Rewrite the rest: A is good; the failure lives on in res. */
	weave_test_fill_task(&b, a, 0, 256, 0x600d600d);
	weave_test_fill_task(&b, a, 512, 512, 0x600d600d);
	run(_metadata, self, self->stream, &b);
	good(_metadata, self, a, 0, self->page);
	weave_test_expect_range(_metadata, self->fd, a, self->page, 0, 1024,
				0x600d600d);
	EXPECT_EQ(id, one_failure(_metadata, self, res, 0, 4));
	EXPECT_EQ(1u, self->r->failure[0].buffers);
}

/* A host write makes the bytes it wrote good. */
TEST_F(fg, host_write_clears)
{
	unsigned char data[128];
	struct weave_test_batch b;
	uint64_t id;
	uint32_t a;
	void *map;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, a, 0, 256, EIO);
	run(_metadata, self, self->stream, &b);
	id = one_failure(_metadata, self, a, 0, 256);

	memset(data, 0x3c, sizeof(data));
	weave_test_write_task(&b, a, 64, sizeof(data), data);
	run(_metadata, self, self->stream, &b);
	good(_metadata, self, a, 64, sizeof(data));
	EXPECT_EQ(id, one_failure(_metadata, self, a, 0, 64));
	EXPECT_EQ(id, one_failure(_metadata, self, a, 192, 64));
	map = weave_test_map(_metadata, self->fd, a, self->page);
	EXPECT_EQ(sizeof(data), weave_test_check_bytes((char *)map + 64,
						       sizeof(data), 0x3c));
	weave_test_unmap(_metadata, map, self->page);

	weave_test_write_task(&b, a, 0, 64, data);
	weave_test_write_task(&b, a, 192, 64, data);
	run(_metadata, self, self->stream, &b);
	good(_metadata, self, a, 0, self->page);
}

/* --- the failure record ------------------------------------------------------------ */

/* buffers counts the buffers that carry the failure now. */
TEST_F(fg, buffers_counts_the_carriers)
{
	struct drm_weave_binding bind[4];
	unsigned char data[64] = { 0 };
	struct weave_test_batch b;
	uint32_t a, bb, c;
	int64_t deadline;
	uint64_t id;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	bb = weave_test_bo(_metadata, self->fd, self->page, 0);
	c = weave_test_bo(_metadata, self->fd, self->page, 0);
	bind[0] = weave_binding(a, DRM_WEAVE_ACCESS_WRITE, 0, 64);
	bind[1] = weave_binding(a, DRM_WEAVE_ACCESS_WRITE, 128, 64);
	bind[2] = weave_binding(bb, DRM_WEAVE_ACCESS_WRITE, 0, 64);
	bind[3] = weave_binding(c, DRM_WEAVE_ACCESS_WRITE, 0, 64);
	weave_test_batch_init(&b);
	weave_test_launch(&b, DRM_WEAVE_KERNEL_FAIL, bind, 4, 1, EIO);
	run(_metadata, self, self->stream, &b);

	/* Two ranges of A: still one failure on A, of three buffers. */
	id = one_failure(_metadata, self, a, 0, 256);
	EXPECT_EQ(3u, self->r->failure[0].buffers);
	good(_metadata, self, a, 64, 64);

	weave_test_write_task(&b, bb, 0, sizeof(data), data);
	run(_metadata, self, self->stream, &b);
	EXPECT_EQ(id, one_failure(_metadata, self, a, 0, 256));
	EXPECT_EQ(2u, self->r->failure[0].buffers);

	/* A buffer freed carries nothing; freeing follows the close. */
	weave_test_client_idle(_metadata, self->fd);
	weave_test_close_bo(_metadata, self->fd, c);
	deadline = weave_test_now() + WEAVE_TEST_WAIT_NS;
	for (;;) {
		EXPECT_EQ(id, one_failure(_metadata, self, a, 0, 256));
		if (self->r->failure[0].buffers == 1 ||
		    weave_test_now() > deadline)
			break;
		usleep(10000);
	}
	EXPECT_EQ(1u, self->r->failure[0].buffers);
}

/*
 * Ids are never zero and never reused; failures of one range come in the
 * order of the first byte each taints, not of their creation.
 */
TEST_F(fg, ids_unique_and_ordered_by_byte)
{
	uint64_t ids[16], id;
	uint32_t a, n, i, j, other_bo, other_stream;
	struct weave_test_batch b;
	int other;

	ASSERT_LE(4u, self->info.max_live_failures);
	n = 8;
	if (n > self->info.max_live_failures - 2)
		n = self->info.max_live_failures - 2;
	if (n > self->info.max_report_failures)
		n = self->info.max_report_failures;
	ASSERT_LE(2u, n);
	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	for (i = n; i-- > 0;)
		weave_test_fail_task(&b, a, 64 * i, 64, i + 1);
	run(_metadata, self, self->stream, &b);

	ASSERT_EQ(n, report(_metadata, self, a, 0, 64 * n));
	for (i = 0; i < n; i++) {
		ids[i] = self->r->failure[i].id;
		EXPECT_EQ(-(int)(i + 1), self->r->failure[i].error);
		for (j = 0; j < i; j++) {
			EXPECT_NE(ids[j], ids[i]);
		}
	}

	/* A new failure on the same bytes is a new one. */
	weave_test_fail_task(&b, a, 0, 64, 1);
	run(_metadata, self, self->stream, &b);
	id = one_failure(_metadata, self, a, 0, 64);
	for (i = 0; i < n; i++) {
		EXPECT_NE(ids[i], id);
	}
	ids[n++] = id;

	/* Ids are the device's: another file's differ too. */
	other = weave_test_open(_metadata);
	other_stream = weave_test_stream(_metadata, other,
					 DRM_WEAVE_PRIORITY_NORMAL);
	other_bo = weave_test_bo(_metadata, other, self->page, 0);
	weave_test_fail_task(&b, other_bo, 0, 64, 1);
	weave_test_enqueue(_metadata, other, other_stream, &b);
	weave_test_finish(_metadata, other, other_stream);
	ASSERT_EQ(1u, weave_test_report(_metadata, other, other_bo, 0, 64,
					self->r));
	for (i = 0; i < n; i++) {
		EXPECT_NE(ids[i], self->r->failure[0].id);
	}
	close(other);
}

/*
 * Past max_live_failures, a client's new failures share one record,
 * OVERFLOW, which names the first of them; once they are cleared, new
 * failures are distinct again.
 */
TEST_F_TIMEOUT(fg, overflow_shares_one_record, WEAVE_TEST_SLOW_S)
{
	uint32_t live = self->info.max_live_failures, n, i, a, jobs = 0;
	uint64_t size, seq = 0, s, id, ids[4];
	struct weave_test_batch b;
	const uint32_t probe[4] = { 0, live - 1, live, live + 1 };

	ASSERT_LE(2u, live);
	ASSERT_GE(65536u, live) {
		TH_LOG("max_live_failures %u: too many failures to make",
		       live);
	}
	n = live + 2;
	size = (4ull * n + self->page - 1) / self->page * self->page;
	ASSERT_GE(self->info.max_bo_size, size);
	a = weave_test_bo(_metadata, self->fd, size, 0);
	weave_test_batch_init(&b);
	for (i = 0; i < n; i++) {
		weave_test_fail_task(&b, a, 4 * i, 4, EIO)->label = i;
		if (b.n < WEAVE_TEST_BATCH && i + 1 < n)
			continue;
		/* Jobs: at most one per batch and one per max_tasks tasks. */
		jobs += 1 + b.n / self->info.max_tasks;
		s = weave_test_enqueue_seq(_metadata, self->fd, self->stream,
					   &b);
		if (!seq)
			seq = s;
		/* Within max_pending_tasks. */
		if (i / WEAVE_TEST_BATCH % 64 == 63)
			finish_jobs(_metadata, self, jobs);
	}
	/* A thousand failures take a while on a debug kernel. */
	finish_jobs(_metadata, self, jobs);

	for (i = 0; i < 4; i++) {
		ids[i] = one_failure(_metadata, self, a, 4 * probe[i], 4);
		EXPECT_EQ(-EIO, self->r->failure[0].error);
		if (probe[i] < live) {
			EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_KERNEL,
				  self->r->failure[0].cause);
			weave_test_expect_task(_metadata,
					       &self->r->failure[0].root,
					       self->stream, seq + probe[i],
					       probe[i], DRM_WEAVE_KERNEL_FAIL);
			continue;
		}
		EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_OVERFLOW,
			  self->r->failure[0].cause);
		/* It names the first of those it stands for. */
		weave_test_expect_task(_metadata, &self->r->failure[0].root,
				       self->stream, seq + live, live,
				       DRM_WEAVE_KERNEL_FAIL);
	}
	weave_test_log_failure(_metadata, self->r, 0);
	EXPECT_NE(ids[0], ids[1]);
	EXPECT_NE(ids[1], ids[2]);
	EXPECT_NE(ids[0], ids[2]);
	EXPECT_EQ(ids[2], ids[3]);

	/* Cleared, a new failure has a record of its own again. */
	weave_test_fill_task(&b, a, 0, size, 0);
	weave_test_fail_task(&b, a, 0, 4, EIO);
	run(_metadata, self, self->stream, &b);
	good(_metadata, self, a, 4, size - 4);
	id = one_failure(_metadata, self, a, 0, 4);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_KERNEL,
		  self->r->failure[0].cause);
	for (i = 0; i < 4; i++) {
		EXPECT_NE(ids[i], id);
	}
}

/* --- labels ---------------------------------------------------------------------- */

/* A program of uAPI 1.2 passes 56-byte tasks: their label is zero. */
TEST_F(fg, label_of_an_old_stride_is_zero)
{
	const uint32_t old = offsetof(struct drm_weave_task, label);
	unsigned char raw[2 * sizeof(struct drm_weave_task)];
	struct drm_weave_enqueue args;
	struct weave_test_batch b;
	uint32_t a;

	ASSERT_EQ(56u, old);
	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, a, 0, 64, EIO)->label = 9;
	weave_test_fail_task(&b, a, 64, 64, EIO)->label = 9;
	memset(raw, 0, sizeof(raw));
	memcpy(raw, &b.task[0], old);
	memcpy(raw + old, &b.task[1], old);
	memset(&args, 0, sizeof(args));
	args.stream = self->stream;
	args.tasks.ptr = (uintptr_t)raw;
	args.tasks.stride = old;
	args.tasks.count = 2;
	ASSERT_EQ(0, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_ENQUEUE,
				      &args));
	EXPECT_EQ(2u, args.seqno);
	weave_test_finish(_metadata, self->fd, self->stream);

	one_failure(_metadata, self, a, 0, 64);
	weave_test_expect_task(_metadata, &self->r->failure[0].root,
			       self->stream, 1, 0, DRM_WEAVE_KERNEL_FAIL);
	one_failure(_metadata, self, a, 64, 64);
	weave_test_expect_task(_metadata, &self->r->failure[0].root,
			       self->stream, 2, 0, DRM_WEAVE_KERNEL_FAIL);
}

/* --- across files -------------------------------------------------------------- */

/*
 * Taints belong to the buffer: a file that imported it through PRIME sees
 * the failure, its id, errno and kernel, but not the stream, sequence
 * number and label of another file's tasks, nor the OWN flag; and its own
 * task that reads the buffer is skipped, privately to each side.
 */
TEST_F(fg, prime_importer_sees_public_fields_only)
{
	uint32_t a, a2, b2, s2;
	const struct drm_weave_failure *f;
	const struct drm_weave_failure_task *t;
	struct weave_test_batch b;
	uint64_t seq, seq2, id;
	char line[512], want[512];
	int fd2, dmabuf = -1;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, a, 0, 256, EIO)->label = 9;
	seq = run(_metadata, self, self->stream, &b);
	id = one_failure(_metadata, self, a, 0, 256);

	fd2 = weave_test_open(_metadata);
	ASSERT_EQ(0, weave_bo_export(self->fd, a, DRM_CLOEXEC, &dmabuf));
	ASSERT_EQ(0, weave_bo_import(fd2, dmabuf, &a2));
	close(dmabuf);

	ASSERT_EQ(1u, weave_test_report(_metadata, fd2, a2, 0, self->page,
					self->r));
	f = &self->r->failure[0];
	EXPECT_EQ(id, f->id);
	EXPECT_EQ(-EIO, f->error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_KERNEL, f->cause);
	EXPECT_EQ(1u, f->buffers);
	EXPECT_EQ(0u, f->root.flags);
	EXPECT_EQ(0u, f->root.stream);
	EXPECT_EQ(0u, f->root.seqno);
	EXPECT_EQ(0u, f->root.label);
	EXPECT_EQ((uint32_t)DRM_WEAVE_TASK_LAUNCH, f->root.type);
	EXPECT_EQ((uint32_t)DRM_WEAVE_KERNEL_FAIL, f->root.kernel);
	weave_test_expect_good(_metadata, fd2, a2, 256, self->page - 256);

	/* The importer's COPY from it is skipped. */
	s2 = weave_test_stream(_metadata, fd2, DRM_WEAVE_PRIORITY_NORMAL);
	b2 = weave_test_bo(_metadata, fd2, self->page, 0);
	weave_test_copy_task(&b, a2, 0, b2, 0, 256)->label = 5;
	seq2 = weave_test_enqueue_seq(_metadata, fd2, s2, &b);
	weave_test_finish(_metadata, fd2, s2);
	ASSERT_EQ(1u, weave_test_report(_metadata, fd2, b2, 0, 256, self->r));
	f = &self->r->failure[0];
	EXPECT_EQ(id, f->id);
	EXPECT_EQ(0u, f->root.flags);
	ASSERT_EQ(1u, f->nskips);
	weave_test_expect_task(_metadata, &self->r->skip[f->first_skip], s2,
			       seq2, 5, DRM_WEAVE_KERNEL_COPY);
	snprintf(want, sizeof(want),
		 "failed: kernel \"fail\" returned -EIO; then skipped \"copy\" (stream %u, seq %llu, label 5); failure #%llu",
		 s2, (unsigned long long)seq2, (unsigned long long)id);
	weave_failure_format(line, sizeof(line), f, self->r->skip);
	EXPECT_STREQ(want, line);

	/* The exporter sees the importer's skip without its private fields. */
	EXPECT_EQ(id, one_failure(_metadata, self, a, 0, 256));
	f = &self->r->failure[0];
	EXPECT_EQ(2u, f->buffers);
	weave_test_expect_task(_metadata, &f->root, self->stream, seq, 9,
			       DRM_WEAVE_KERNEL_FAIL);
	ASSERT_EQ(1u, f->nskips);
	t = &self->r->skip[f->first_skip];
	EXPECT_EQ(0u, t->flags);
	EXPECT_EQ(0u, t->stream);
	EXPECT_EQ(0u, t->seqno);
	EXPECT_EQ(0u, t->label);
	EXPECT_EQ((uint32_t)DRM_WEAVE_KERNEL_COPY, t->kernel);
	close(fd2);
}

/* A freed buffer takes its taints along: a new buffer is good. */
TEST_F(fg, freed_buffer_then_new_is_good)
{
	struct weave_test_batch b;
	uint32_t a, fresh;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, a, 0, self->page, EIO);
	run(_metadata, self, self->stream, &b);
	one_failure(_metadata, self, a, 0, self->page);
	weave_test_client_idle(_metadata, self->fd);
	weave_test_close_bo(_metadata, self->fd, a);

	fresh = weave_test_bo(_metadata, self->fd, self->page, 0);
	good(_metadata, self, fresh, 0, self->page);
	weave_test_fill_task(&b, fresh, 0, self->page, 1);
	run(_metadata, self, self->stream, &b);
	good(_metadata, self, fresh, 0, self->page);
}

/* --- fences, streams and time ------------------------------------------------------- */

/*
 * A failing task puts no error on any fence: a FLUSH's out-sync signals
 * without one (status 1), WAIT succeeds and the stream stays active, and
 * takes work.
 */
TEST_F(fg, failing_flush_signals_without_error)
{
	struct drm_weave_stream_query q;
	struct drm_weave_sync out;
	struct weave_test_batch b;
	uint32_t a, syncobj;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	syncobj = weave_test_syncobj(_metadata, self->fd);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, a, 0, 64, EIO);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	out = weave_sync(syncobj, 0);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, &out));
	ASSERT_EQ(0, drmSyncobjWait(self->fd, &syncobj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	EXPECT_EQ(1, weave_test_sync_file_status(_metadata, self->fd, syncobj,
						 0));
	EXPECT_EQ(0, weave_wait(self->fd, self->stream,
				weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
	q = weave_test_squery(_metadata, self->fd, self->stream);
	EXPECT_EQ((uint32_t)DRM_WEAVE_STREAM_ACTIVE, q.state);
	EXPECT_EQ(0, q.error);
	EXPECT_EQ(1u, q.completed);
	one_failure(_metadata, self, a, 0, 64);

	/* Flush all's out-sync too; and the stream still works. */
	drmSyncobjReset(self->fd, &syncobj, 1);
	weave_test_fail_task(&b, a, 64, 64, ENOMEM);
	weave_test_fill_task(&b, a, 0, 64, 0x0c0ffee0);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	ASSERT_EQ(0, weave_flush_all(self->fd, &out));
	ASSERT_EQ(0, drmSyncobjWait(self->fd, &syncobj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	EXPECT_EQ(1, weave_test_sync_file_status(_metadata, self->fd, syncobj,
						 0));
	weave_test_wait(_metadata, self->fd, self->stream);
	good(_metadata, self, a, 0, 64);
	one_failure(_metadata, self, a, 64, 64);
	EXPECT_EQ(-ENOMEM, self->r->failure[0].error);
	weave_test_expect_range(_metadata, self->fd, a, self->page, 0, 64,
				0x0c0ffee0);
	drmSyncobjDestroy(self->fd, syncobj);
}

/* CHECK does not wait: a FAIL held back by a gate has tainted nothing yet. */
TEST_F(fg, check_does_not_wait)
{
	struct weave_test_batch b;
	struct weave_test_gate g;
	struct drm_weave_sync in;
	uint32_t a;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_gate_open(_metadata, &g, self->fd);
	in = weave_sync(g.syncobj, 0);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, a, 0, 64, EIO);
	ASSERT_EQ(0, weave_enqueue(self->fd, self->stream, b.task, b.n, &in, 1,
				   NULL));
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	good(_metadata, self, a, 0, self->page);
	weave_test_gate_pending(_metadata, self->fd, &g);
	weave_test_gate_wait(_metadata, self->fd, &g);
	weave_test_wait(_metadata, self->fd, self->stream);
	one_failure(_metadata, self, a, 0, 64);
}

TEST_HARNESS_MAIN
