// SPDX-License-Identifier: GPL-2.0
/*
 * weave: DRM_IOCTL_WEAVE_READ (uAPI 1.3) copies good bytes once their
 * writers are done, and refuses tainted ones with CHECK's report.
 *
 * READ submits the file's queued work itself and waits for the buffer's
 * writers, this file's or an importer's; a range with any failed byte
 * fails with -EIO (or -ENOSPC if the report does not fit) and copies
 * nothing.  Every malformed argument is refused with the errno the uAPI
 * documents.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weave_test.h"

/* Tries of a scenario that a loaded host can make tell nothing. */
#define TRIES		3

#define WORD_A		0x600dbeefu
#define WORD_B		0x0badf00du
#define POISON		0xcc

FIXTURE(rd) {
	WEAVE_TEST_FILE_FIELDS;
	uint32_t stream;
	struct weave_test_report *r;	/* CHECK's report */
	struct weave_test_report *q;	/* READ's report, in the same shape */
	uint32_t *data;			/* a page to read into */
	uint32_t bo;			/* good bytes: WORD_A */
	uint32_t tainted;		/* three failures, the last two skips */
};

typedef FIXTURE_DATA(rd) rd_t;

FIXTURE_SETUP(rd)
{
	struct weave_test_batch b;

	WEAVE_TEST_FILE_SETUP();
	ASSERT_LE(3u, self->info.uapi_minor) {
		TH_LOG("uAPI 1.%u has no READ", self->info.uapi_minor);
	}
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	self->r = malloc(sizeof(*self->r));
	self->q = malloc(sizeof(*self->q));
	self->data = malloc(self->page);
	ASSERT_NE(NULL, self->r);
	ASSERT_NE(NULL, self->q);
	ASSERT_NE(NULL, self->data);
	self->bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	self->tainted = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, self->bo, 0, self->page, WORD_A);
	weave_test_fill_task(&b, self->tainted, 0, self->page, WORD_B);
	weave_test_fail_task(&b, self->tainted, 0, 64, EIO)->label = 1;
	weave_test_fail_task(&b, self->tainted, 64, 64, EINVAL)->label = 2;
	weave_test_fail_task(&b, self->tainted, 128, 64, ENOMEM)->label = 3;
	weave_test_copy_task(&b, self->tainted, 128, self->tainted, 256,
			     64)->label = 4;
	weave_test_copy_task(&b, self->tainted, 256, self->tainted, 512,
			     64)->label = 5;
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	weave_test_finish(_metadata, self->fd, self->stream);
	ASSERT_EQ(3u, weave_test_report(_metadata, self->fd, self->tainted, 0,
					1024, self->r));
	ASSERT_EQ(2u, self->r->failure[2].nskips);
}

FIXTURE_TEARDOWN(rd)
{
	free(self->data);
	free(self->q);
	free(self->r);
	close(self->fd);
}

/* READ of @fd into self->data, the report into self->q; what it returned. */
static int rd(rd_t *self, int fd, uint32_t bo, uint64_t off, uint64_t size,
	      int64_t deadline)
{
	memset(self->data, POISON, self->page);
	memset(self->q, 0xa5, sizeof(*self->q));
	self->q->nfailures = WEAVE_TEST_REPORT_FAILURES;
	self->q->nskips = WEAVE_TEST_REPORT_SKIPS;
	return weave_read(fd, bo, off, size, self->data, deadline,
			  self->q->failure, &self->q->nfailures,
			  self->q->skip, &self->q->nskips);
}

static int64_t soon(void)
{
	return weave_timeout_ns(WEAVE_TEST_WAIT_NS);
}

/* Checks @size bytes of self->data are u32 words @word. */
static void expect_data(struct __test_metadata *_metadata, rd_t *self,
			uint64_t size, uint32_t word)
{
	uint64_t i;

	for (i = 0; i < size / 4; i++) {
		ASSERT_EQ(word, self->data[i]) {
			TH_LOG("byte %llu read", (unsigned long long)i * 4);
		}
	}
}

/* Checks READ copied nothing: self->data is all poison. */
static void expect_untouched(struct __test_metadata *_metadata, rd_t *self)
{
	EXPECT_EQ(self->page, weave_test_check_bytes(self->data, self->page,
						     POISON));
}

/* READ's report of a range is CHECK's: same failures, same skips. */
static void expect_report_is_check(struct __test_metadata *_metadata,
				   rd_t *self, int fd, uint32_t bo,
				   uint64_t off, uint64_t size)
{
	uint32_t n = weave_test_report(_metadata, fd, bo, off, size, self->r);

	ASSERT_LT(0u, n);
	ASSERT_EQ(n, self->q->nfailures);
	ASSERT_EQ(self->r->nskips, self->q->nskips);
	EXPECT_EQ(0, memcmp(self->r->failure, self->q->failure,
			    n * sizeof(self->r->failure[0])));
	EXPECT_EQ(0, memcmp(self->r->skip, self->q->skip,
			    self->r->nskips * sizeof(self->r->skip[0])));
}

/* --- what READ copies ----------------------------------------------------- */

/* Enqueued, never flushed: READ submits it and waits for it. */
TEST_F(rd, flushes_and_reads_back_a_fill)
{
	uint32_t a = weave_test_bo(_metadata, self->fd, self->page, 0);
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	weave_test_delay(&b, 100000);
	weave_test_fill_task(&b, a, 0, self->page, WORD_B);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	ASSERT_EQ(0, rd(self, self->fd, a, 0, self->page, soon()));
	EXPECT_EQ(0u, self->q->nfailures);
	EXPECT_EQ(0u, self->q->nskips);
	expect_data(_metadata, self, self->page, WORD_B);
}

/* Sub-ranges read their own bytes, at any aligned offset. */
TEST_F(rd, reads_a_sub_range)
{
	uint32_t a = weave_test_bo(_metadata, self->fd, self->page, 0);
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	weave_test_fill_task(&b, a, 0, 256, WORD_A);
	weave_test_fill_task(&b, a, 256, 256, WORD_B);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	ASSERT_EQ(0, rd(self, self->fd, a, 252, 8, soon()));
	EXPECT_EQ(WORD_A, self->data[0]);
	EXPECT_EQ(WORD_B, self->data[1]);
	/* Nothing past the range is written. */
	EXPECT_EQ(self->page - 8,
		  weave_test_check_bytes((char *)self->data + 8,
					 self->page - 8, POISON));
	ASSERT_EQ(0, rd(self, self->fd, a, 512, self->page - 512, 0));
	expect_data(_metadata, self, self->page - 512, 0);
}

/* --- what READ refuses ---------------------------------------------------- */

/* A tainted range: -EIO, nothing copied, CHECK's report. */
TEST_F(rd, tainted_range_is_eio_with_checks_report)
{
	ASSERT_EQ(-EIO, rd(self, self->fd, self->tainted, 0, 1024, soon()));
	expect_untouched(_metadata, self);
	ASSERT_EQ(3u, self->q->nfailures);
	EXPECT_EQ(2u, self->q->nskips);
	EXPECT_EQ(-EIO, self->q->failure[0].error);
	EXPECT_EQ(-EINVAL, self->q->failure[1].error);
	EXPECT_EQ(-ENOMEM, self->q->failure[2].error);
	weave_test_expect_task(_metadata, &self->q->failure[0].root,
			       self->stream, 3, 1, DRM_WEAVE_KERNEL_FAIL);
	weave_test_expect_task(_metadata, &self->q->failure[2].root,
			       self->stream, 5, 3, DRM_WEAVE_KERNEL_FAIL);
	ASSERT_EQ(2u, self->q->failure[2].nskips);
	weave_test_expect_task(_metadata,
			       &self->q->skip[self->q->failure[2].first_skip],
			       self->stream, 6, 4, DRM_WEAVE_KERNEL_COPY);
	weave_test_expect_task(_metadata,
			       &self->q->skip[self->q->failure[2].first_skip +
					      1],
			       self->stream, 7, 5, DRM_WEAVE_KERNEL_COPY);
	expect_report_is_check(_metadata, self, self->fd, self->tainted, 0,
			       1024);

	/* A skipped copy's output: the root's failure, with its skips. */
	ASSERT_EQ(-EIO, rd(self, self->fd, self->tainted, 256, 64, 0));
	ASSERT_EQ(1u, self->q->nfailures);
	EXPECT_EQ(self->r->failure[2].id, self->q->failure[0].id);
	EXPECT_EQ(2u, self->q->failure[0].nskips);
	expect_report_is_check(_metadata, self, self->fd, self->tainted, 256,
			       64);
}

/* One tainted byte, or word, of a range is enough. */
TEST_F(rd, partly_tainted_range_is_eio)
{
	ASSERT_EQ(-EIO, rd(self, self->fd, self->tainted, 60, 8, 0));
	expect_untouched(_metadata, self);
	EXPECT_EQ(2u, self->q->nfailures);
	ASSERT_EQ(-EIO, rd(self, self->fd, self->tainted, 188, 8, 0));
	EXPECT_EQ(1u, self->q->nfailures);
	ASSERT_EQ(-EIO, rd(self, self->fd, self->tainted, 572, 1024, 0));
	EXPECT_EQ(1u, self->q->nfailures);
	EXPECT_EQ(self->r->failure[2].id, self->q->failure[0].id);
	expect_untouched(_metadata, self);
}

/* The good bytes around and between failures read as written. */
TEST_F(rd, range_next_to_a_tainted_one_reads)
{
	ASSERT_EQ(0, rd(self, self->fd, self->tainted, 192, 64, 0));
	expect_data(_metadata, self, 64, WORD_B);
	ASSERT_EQ(0, rd(self, self->fd, self->tainted, 320, 192, 0));
	expect_data(_metadata, self, 192, WORD_B);
	ASSERT_EQ(0, rd(self, self->fd, self->tainted, 576,
			self->page - 576, 0));
	expect_data(_metadata, self, self->page - 576, WORD_B);
	/* The other buffer is untouched by them all. */
	ASSERT_EQ(0, rd(self, self->fd, self->bo, 0, self->page, 0));
	expect_data(_metadata, self, self->page, WORD_A);
}

/* Reading does not clear a failure; rewriting does. */
TEST_F(rd, rewritten_range_reads)
{
	struct weave_test_batch b;
	uint32_t words[16];
	unsigned int i;

	ASSERT_EQ(-EIO, rd(self, self->fd, self->tainted, 0, 64, 0));
	ASSERT_EQ(-EIO, rd(self, self->fd, self->tainted, 0, 64, 0));
	for (i = 0; i < 16; i++)
		words[i] = weave_test_word(7, i);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, self->tainted, 0, 320, WORD_A);
	weave_test_write_task(&b, self->tainted, 512, sizeof(words), words);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	/* Not flushed: READ submits the rewrite before it looks. */
	ASSERT_EQ(0, rd(self, self->fd, self->tainted, 0, 1024, soon()));
	expect_data(_metadata, self, 320, WORD_A);
	EXPECT_EQ(WORD_B, self->data[320 / 4]);
	EXPECT_EQ(WORD_B, self->data[508 / 4]);
	EXPECT_EQ(0, memcmp(words, &self->data[512 / 4], sizeof(words)));
	EXPECT_EQ(WORD_B, self->data[(512 + sizeof(words)) / 4]);
	weave_test_expect_good(_metadata, self->fd, self->tainted, 0,
			       self->page);
}

/*
 * A writer not done (held by a gate): a zero deadline polls (-ETIME), a
 * later one reads.
 */
TEST_F(rd, zero_timeout_with_a_running_writer)
{
	uint32_t a = weave_test_bo(_metadata, self->fd, self->page, 0);
	struct weave_test_gate gate;
	struct weave_test_batch b;
	struct drm_weave_sync in;

	weave_test_gate_open(_metadata, &gate, self->fd);
	in = weave_sync(gate.syncobj, 0);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, a, 0, self->page, WORD_A);
	ASSERT_EQ(0, weave_enqueue(self->fd, self->stream, b.task, b.n, &in, 1,
				   NULL));
	ASSERT_EQ(-ETIME, rd(self, self->fd, a, 0, self->page, 0));
	expect_untouched(_metadata, self);
	/* A deadline already past is a poll too. */
	ASSERT_EQ(-ETIME, rd(self, self->fd, a, 0, 64,
			     weave_test_now() - WEAVE_TEST_SEC));
	weave_test_gate_pending(_metadata, self->fd, &gate);
	ASSERT_EQ(0, weave_test_gate_try_signal(&gate));
	ASSERT_EQ(0, rd(self, self->fd, a, 0, self->page, soon()));
	expect_data(_metadata, self, self->page, WORD_A);
	/* Done: a poll reads now. */
	ASSERT_EQ(0, rd(self, self->fd, a, 0, self->page, 0));
	expect_data(_metadata, self, self->page, WORD_A);
	weave_test_gate_close(&gate);
}

/* --- across processes ----------------------------------------------------- */

/*
 * An importer's READ waits for the exporter's writer and reads good
 * bytes; on tainted ones it gets -EIO and the failure without the
 * exporter's private fields.
 */
TEST_F(rd, prime_importer_reads_and_sees_public_fields)
{
	const struct drm_weave_failure *f;
	struct weave_test_batch b;
	int fd2, dmabuf = -1;
	uint32_t t2, a, a2, i;

	a = weave_test_bo(_metadata, self->fd, self->page, 0);
	fd2 = weave_test_open(_metadata);
	ASSERT_EQ(0, weave_bo_export(self->fd, self->tainted, DRM_CLOEXEC,
				     &dmabuf));
	ASSERT_EQ(0, weave_bo_import(fd2, dmabuf, &t2));
	close(dmabuf);
	ASSERT_EQ(0, weave_bo_export(self->fd, a, DRM_CLOEXEC, &dmabuf));
	ASSERT_EQ(0, weave_bo_import(fd2, dmabuf, &a2));
	close(dmabuf);

	ASSERT_EQ(0, rd(self, fd2, t2, 192, 64, 0));
	expect_data(_metadata, self, 64, WORD_B);

	ASSERT_EQ(-EIO, rd(self, fd2, t2, 128, 64, soon()));
	expect_untouched(_metadata, self);
	ASSERT_EQ(1u, self->q->nfailures);
	f = &self->q->failure[0];
	EXPECT_EQ(self->r->failure[2].id, f->id);
	EXPECT_EQ(-ENOMEM, f->error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_KERNEL, f->cause);
	EXPECT_EQ(0u, f->root.flags);
	EXPECT_EQ(0u, f->root.stream);
	EXPECT_EQ(0u, f->root.seqno);
	EXPECT_EQ(0u, f->root.label);
	EXPECT_EQ((uint32_t)DRM_WEAVE_KERNEL_FAIL, f->root.kernel);
	ASSERT_EQ(2u, f->nskips);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0u, self->q->skip[f->first_skip + i].flags);
		EXPECT_EQ(0u, self->q->skip[f->first_skip + i].seqno);
		EXPECT_EQ((uint32_t)DRM_WEAVE_KERNEL_COPY,
			  self->q->skip[f->first_skip + i].kernel);
	}
	expect_report_is_check(_metadata, self, fd2, t2, 128, 64);

	/* The exporter's writer, flushed by it, is waited for. */
	weave_test_batch_init(&b);
	weave_test_delay(&b, 200000);
	weave_test_fill_task(&b, a, 0, self->page, WORD_A);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	ASSERT_EQ(0, rd(self, fd2, a2, 0, self->page, soon()));
	expect_data(_metadata, self, self->page, WORD_A);
	close(fd2);
}

/*
 * An exporter closes its file while its job writes a buffer it shares: the
 * job is cut short, and the importer, who waits for that writer, reads
 * -EIO with the failure the cancel left on the bytes, and its root's
 * private fields hidden; its own rewrite makes them good.  The job is a
 * DELAY that only the job timeout ends, job_timeout_ms after it started:
 * a try whose job ran to its timeout before the close (a loaded host)
 * tells nothing, and is made again, with a new file, at most TRIES times.
 */
TEST_F(rd, exporter_closing_mid_write_leaves_a_canceled_failure)
{
	const struct drm_weave_failure *f;
	struct weave_test_batch b;
	uint32_t stream, bo, bo2, s2;
	int fd1, fd2 = self->fd, dmabuf, polled, tries;

	for (tries = 1;; tries++) {
		fd1 = weave_test_open(_metadata);
		stream = weave_test_stream(_metadata, fd1,
					   DRM_WEAVE_PRIORITY_NORMAL);
		bo = weave_test_bo(_metadata, fd1, self->page, 0);
		ASSERT_EQ(0, weave_bo_export(fd1, bo, DRM_CLOEXEC, &dmabuf));
		ASSERT_EQ(0, weave_bo_import(fd2, dmabuf, &bo2));
		close(dmabuf);

		/* A long delay, then the fill it keeps from running. */
		weave_test_batch_init(&b);
		weave_test_delay(&b, weave_test_hang_delay_us(_metadata,
							      &self->info));
		weave_test_fill_task(&b, bo, 0, self->page, WORD_A);
		weave_test_enqueue(_metadata, fd1, stream, &b);
		ASSERT_EQ(0, weave_flush(fd1, stream, NULL));
		/* The job is running, or waits to: the fill has not happened. */
		polled = rd(self, fd2, bo2, 0, self->page, 0);
		close(fd1);

		ASSERT_EQ(-EIO, rd(self, fd2, bo2, 0, self->page, soon()));
		expect_untouched(_metadata, self);
		ASSERT_EQ(1u, self->q->nfailures);
		f = &self->q->failure[0];
		if (f->error != -ETIMEDOUT)
			break;
		ASSERT_GT(TRIES, tries) {
			TH_LOG("in each of %d tries the job ran to its timeout before the close",
			       tries);
		}
		TH_LOG("the job ran to its timeout (%u ms) before the close: trying again",
		       self->info.job_timeout_ms);
		weave_test_close_bo(_metadata, fd2, bo2);
	}
	ASSERT_EQ(-ETIME, polled);
	EXPECT_EQ(-ECANCELED, f->error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_CANCELED, f->cause);
	EXPECT_EQ(0u, f->root.flags);
	EXPECT_EQ(0u, f->root.stream);
	EXPECT_EQ(0u, f->root.seqno);
	EXPECT_EQ((uint32_t)DRM_WEAVE_KERNEL_DELAY, f->root.kernel);
	EXPECT_EQ(1u, f->buffers);
	expect_report_is_check(_metadata, self, fd2, bo2, 0, self->page);

	s2 = weave_test_stream(_metadata, fd2, DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_fill_task(&b, bo2, 0, self->page, WORD_B);
	weave_test_enqueue(_metadata, fd2, s2, &b);
	ASSERT_EQ(0, rd(self, fd2, bo2, 0, self->page, soon()));
	expect_data(_metadata, self, self->page, WORD_B);
}

/* --- malformed calls ------------------------------------------------------ */

/* A valid READ of a range, in self-contained memory, to break. */
struct rdx {
	struct drm_weave_read a;
	struct drm_weave_failure f[4];
	struct drm_weave_failure_task t[8];
	uint32_t data[256];
};

static void rdx_init(struct rdx *x, uint32_t bo, uint64_t off, uint64_t size)
{
	memset(x, 0, sizeof(*x));
	x->a.handle = bo;
	x->a.offset = off;
	x->a.size = size;
	x->a.data = (uintptr_t)x->data;
	x->a.timeout_ns = weave_timeout_ns(WEAVE_TEST_WAIT_NS);
	x->a.failures.ptr = (uintptr_t)x->f;
	x->a.failures.stride = sizeof(x->f[0]);
	x->a.failures.count = 4;
	x->a.skips.ptr = (uintptr_t)x->t;
	x->a.skips.stride = sizeof(x->t[0]);
	x->a.skips.count = 8;
}

static int rdx(int fd, struct rdx *x)
{
	return weave_test_ioctl(fd, DRM_IOCTL_WEAVE_READ, &x->a);
}

TEST_F(rd, bad_valid_call_ok)
{
	struct rdx x;

	rdx_init(&x, self->bo, 0, sizeof(x.data));
	ASSERT_EQ(0, rdx(self->fd, &x));
	EXPECT_EQ(0u, x.a.nfailures);
	EXPECT_EQ(WORD_A, x.data[0]);
	EXPECT_EQ(WORD_A, x.data[255]);
}

TEST_F(rd, bad_flags)
{
	struct rdx x;

	rdx_init(&x, self->bo, 0, 64);
	x.a.flags = 1;
	EXPECT_EQ(-EINVAL, rdx(self->fd, &x));
	x.a.flags = 0x80000000u;
	EXPECT_EQ(-EINVAL, rdx(self->fd, &x));
	EXPECT_EQ(0u, x.data[0]);
}

TEST_F(rd, bad_size_zero)
{
	struct rdx x;

	rdx_init(&x, self->bo, 0, 0);
	EXPECT_EQ(-EINVAL, rdx(self->fd, &x));
	EXPECT_EQ(-EINVAL, weave_read(self->fd, self->bo, 0, 0, x.data, 0,
				      NULL, NULL, NULL, NULL));
}

TEST_F(rd, bad_range_overflows)
{
	struct rdx x;

	rdx_init(&x, self->bo, 8, UINT64_MAX - 3);
	EXPECT_EQ(-EINVAL, rdx(self->fd, &x));
	rdx_init(&x, self->bo, UINT64_MAX - 3, 8);
	EXPECT_EQ(-EINVAL, rdx(self->fd, &x));
	rdx_init(&x, self->bo, UINT64_MAX, 1);
	EXPECT_EQ(-EINVAL, rdx(self->fd, &x));
}

TEST_F(rd, bad_range_past_end)
{
	struct rdx x;

	rdx_init(&x, self->bo, self->page - 4, 8);
	EXPECT_EQ(-EINVAL, rdx(self->fd, &x));
	rdx_init(&x, self->bo, self->page, 4);
	EXPECT_EQ(-EINVAL, rdx(self->fd, &x));
	rdx_init(&x, self->bo, 0, self->page + 4);
	EXPECT_EQ(-EINVAL, rdx(self->fd, &x));
	/* The last word is inside. */
	rdx_init(&x, self->bo, self->page - 4, 4);
	EXPECT_EQ(0, rdx(self->fd, &x));
	EXPECT_EQ(WORD_A, x.data[0]);
}

TEST_F(rd, bad_unknown_handle)
{
	uint32_t a = weave_test_bo(_metadata, self->fd, self->page, 0);
	struct rdx x;

	rdx_init(&x, WEAVE_TEST_BAD_HANDLE, 0, 64);
	EXPECT_EQ(-ENOENT, rdx(self->fd, &x));
	rdx_init(&x, 0, 0, 64);
	EXPECT_EQ(-ENOENT, rdx(self->fd, &x));
	/* A closed handle is no buffer. */
	weave_test_close_bo(_metadata, self->fd, a);
	rdx_init(&x, a, 0, 64);
	EXPECT_EQ(-ENOENT, rdx(self->fd, &x));
	EXPECT_EQ(-ENOENT, weave_read(self->fd, a, 0, 64, x.data, 0, NULL,
				      NULL, NULL, NULL));
}

TEST_F(rd, bad_data_pointer)
{
	struct rdx x;

	rdx_init(&x, self->bo, 0, 64);
	x.a.data = (uintptr_t)WEAVE_TEST_BAD_PTR;
	EXPECT_EQ(-EFAULT, rdx(self->fd, &x));
	x.a.data = 0;
	EXPECT_EQ(-EFAULT, rdx(self->fd, &x));
}

TEST_F(rd, bad_failures_stride)
{
	struct rdx x;

	rdx_init(&x, self->tainted, 0, 1024);
	x.a.failures.stride = sizeof(x.f[0]) - 8;
	EXPECT_EQ(-EINVAL, rdx(self->fd, &x));
	x.a.failures.stride = DRM_WEAVE_MAX_STRIDE + 8;
	EXPECT_EQ(-EINVAL, rdx(self->fd, &x));
	rdx_init(&x, self->tainted, 0, 1024);
	x.a.skips.stride = sizeof(x.t[0]) - 8;
	EXPECT_EQ(-EINVAL, rdx(self->fd, &x));
}

TEST_F(rd, bad_failures_unwritable)
{
	struct rdx x;

	rdx_init(&x, self->tainted, 0, 1024);
	x.a.failures.ptr = (uintptr_t)WEAVE_TEST_BAD_PTR;
	EXPECT_EQ(-EFAULT, rdx(self->fd, &x));
}

/* Room for one failure of three: -ENOSPC, the first written, the counts. */
TEST_F(rd, short_failures_array_is_enospc_with_counts)
{
	struct drm_weave_failure f[1];
	uint32_t nf = 1, nt = 0;
	struct rdx x;

	rdx_init(&x, self->tainted, 0, 1024);
	memset(x.f, 0xa5, sizeof(x.f));
	x.a.failures.count = 1;
	EXPECT_EQ(-ENOSPC, rdx(self->fd, &x));
	EXPECT_EQ(3u, x.a.nfailures);
	EXPECT_EQ(2u, x.a.nskips);
	EXPECT_EQ(0, memcmp(&x.f[0], &self->r->failure[0], sizeof(x.f[0])));
	EXPECT_EQ(sizeof(x.f[1]),
		  weave_test_check_bytes(&x.f[1], sizeof(x.f[1]), 0xa5));
	EXPECT_EQ(0u, x.data[0]);

	/* No room at all: the counts. */
	x.a.failures.ptr = 0;
	x.a.failures.count = 0;
	x.a.skips.ptr = 0;
	x.a.skips.count = 0;
	EXPECT_EQ(-ENOSPC, rdx(self->fd, &x));
	EXPECT_EQ(3u, x.a.nfailures);
	EXPECT_EQ(2u, x.a.nskips);

	/* Room for the failures, not the skips. */
	rdx_init(&x, self->tainted, 0, 1024);
	x.a.skips.count = 1;
	EXPECT_EQ(-ENOSPC, rdx(self->fd, &x));
	EXPECT_EQ(3u, x.a.nfailures);
	EXPECT_EQ(2u, x.a.nskips);

	/* libweave says the same. */
	EXPECT_EQ(-ENOSPC, weave_read(self->fd, self->tainted, 0, 1024,
				      x.data, 0, f, &nf, NULL, &nt));
	EXPECT_EQ(3u, nf);
	EXPECT_EQ(2u, nt);
	EXPECT_EQ(self->r->failure[0].id, f[0].id);
	/* A good range with no room is just read. */
	nf = 0;
	EXPECT_EQ(0, weave_read(self->fd, self->bo, 0, 64, x.data, 0, NULL,
				&nf, NULL, NULL));
	EXPECT_EQ(0u, nf);
}

TEST_HARNESS_MAIN
