// SPDX-License-Identifier: GPL-2.0
/*
 * weave: the memory failures take is bounded and charged (uAPI 1.6).  A
 * client that makes a buffer's taints as fragmented as it can (FAIL tasks
 * that each write eight one-byte ranges, every other byte; or random
 * ranges, with good writes between) holds at most max_buffer_claims
 * claims on the buffer and max_client_claims over all, as its usage query
 * says; past them the taints are coarsened, and CHECK still reports every
 * byte that failed as failed, marks the failures that stand for more than
 * their own bytes, and reports no other byte tainted.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weave_test.h"

/* Ranges each task writes, tasks per enqueue, ranges per CHECK. */
#define FM_RANGES	8u
#define FM_BATCH	64u
#define FM_CHECK	64u

/* Tasks of each random round. */
#define FM_TASKS	640u

/* Upper bounds on the slab size of one claim, and of one record. */
#define FM_CLAIM_MAX	128
#define FM_OBJECT_MAX	1024

FIXTURE(fm) {
	int fd;
	struct drm_weave_device_info info;
	uint32_t stream;
	/* Whether each byte of the buffer under test failed last. */
	uint8_t *failed;
	uint64_t size;
};

FIXTURE_SETUP(fm)
{
	self->fd = weave_test_open(_metadata);
	self->info = weave_test_info(_metadata, self->fd);
	ASSERT_LE(6u, self->info.uapi_minor) {
		TH_LOG("uAPI 1.%u does not bound the memory of failures",
		       self->info.uapi_minor);
	}
	ASSERT_LE(1u, self->info.max_buffer_claims);
	ASSERT_LE(FM_CHECK, self->info.max_check_ranges);
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	self->failed = NULL;
}

FIXTURE_TEARDOWN(fm)
{
	free(self->failed);
	close(self->fd);
}

typedef FIXTURE_DATA(fm) fm_t;

/* Tasks under construction, each with up to FM_RANGES bindings. */
struct fm_batch {
	struct drm_weave_task task[FM_BATCH];
	struct drm_weave_binding bind[FM_BATCH][FM_RANGES];
	uint32_t uniform[FM_BATCH];
	uint32_t n;
};

/* Enqueues the batch, if it holds a task, and empties it. */
static void fm_enqueue(struct __test_metadata *_metadata, fm_t *self,
		       struct fm_batch *b)
{
	uint64_t seqno = 0;

	if (!b->n)
		return;
	ASSERT_EQ(0, weave_enqueue(self->fd, self->stream, b->task, b->n,
				   NULL, 0, &seqno));
	b->n = 0;
}

/* Adds a task of @kernel that writes @n ranges of @bo; enqueues if full. */
static void fm_add(struct __test_metadata *_metadata, fm_t *self,
		   struct fm_batch *b, uint32_t kernel, uint32_t uniform,
		   uint32_t bo, const uint64_t *off, const uint64_t *len,
		   uint32_t n)
{
	uint32_t i = b->n++, j;

	for (j = 0; j < n; j++) {
		b->bind[i][j] = weave_binding(bo, DRM_WEAVE_ACCESS_WRITE,
					      off[j], len[j]);
		memset(self->failed + off[j], kernel == DRM_WEAVE_KERNEL_FAIL,
		       len[j]);
	}
	b->uniform[i] = uniform;
	weave_task_launch(&b->task[i], kernel, b->bind[i], n, &b->uniform[i],
			  sizeof(b->uniform[i]));
	if (b->n == FM_BATCH)
		fm_enqueue(_metadata, self, b);
}

/* Flushes and waits for everything enqueued; the client is then idle. */
static struct drm_weave_client_usage fm_finish(struct __test_metadata *_metadata,
					       fm_t *self, struct fm_batch *b)
{
	fm_enqueue(_metadata, self, b);
	weave_test_finish(_metadata, self->fd, self->stream);
	return weave_test_client_idle(_metadata, self->fd);
}

/* The usage is within the limits, and counts its bytes as documented. */
static void fm_expect_bounded(struct __test_metadata *_metadata, fm_t *self,
			      const struct drm_weave_client_usage *u,
			      uint32_t buffers)
{
	uint64_t claims = (uint64_t)buffers * self->info.max_buffer_claims;

	if (claims > self->info.max_client_claims)
		claims = self->info.max_client_claims;
	EXPECT_GE(claims, u->failure_claims);
	EXPECT_GE(self->info.max_live_failures + 1ull, u->failure_records);
	/* Claims and records, and what is set aside: as much again. */
	EXPECT_LE(u->failure_claims + u->failure_records, u->failure_bytes /
		  8);
	EXPECT_GE(2 * (uint64_t)self->info.max_client_claims * FM_CLAIM_MAX +
		  2 * (self->info.max_live_failures + 1ull) * FM_OBJECT_MAX,
		  u->failure_bytes);
}

/*
 * CHECK each byte of [0, @size) of @bo, FM_CHECK at a time: every byte
 * that failed last carries a failure; a byte that did not is good, or
 * carries a failure marked coarse.  Returns the failures seen marked.
 */
static uint32_t fm_check_bytes(struct __test_metadata *_metadata, fm_t *self,
			       uint32_t bo, uint64_t size)
{
	static struct drm_weave_failure_task skips[FM_CHECK *
						   DRM_WEAVE_FAILURE_SKIPS];
	struct drm_weave_check_range r[FM_CHECK];
	struct drm_weave_failure f[FM_CHECK];
	uint32_t nf, ns, i, k, coarse = 0, failed = 0, extra = 0;
	uint64_t at;
	int ret;

	for (at = 0; at < size; at += FM_CHECK) {
		for (i = 0; i < FM_CHECK; i++)
			r[i] = weave_check_range(bo, at + i, 1);
		nf = FM_CHECK;
		ns = FM_CHECK * DRM_WEAVE_FAILURE_SKIPS;
		ret = weave_check(self->fd, r, FM_CHECK, f, &nf, skips, &ns);
		ASSERT_EQ(0, ret);
		ASSERT_GE((uint32_t)FM_CHECK, nf);
		for (i = 0; i < FM_CHECK; i++) {
			if (self->failed[at + i]) {
				failed++;
				ASSERT_EQ(1u, r[i].nfailures) {
					TH_LOG("byte %llu failed, reported good",
					       (unsigned long long)(at + i));
				}
				continue;
			}
			if (!r[i].nfailures)
				continue;
			extra++;
			k = r[i].first;
			ASSERT_EQ(DRM_WEAVE_FAILURE_COARSE, f[k].flags) {
				TH_LOG("byte %llu never failed, tainted by #%llu, not coarse",
				       (unsigned long long)(at + i),
				       (unsigned long long)f[k].id);
			}
		}
		for (k = 0; k < nf; k++) {
			ASSERT_EQ(0u, f[k].flags & ~DRM_WEAVE_FAILURE_COARSE);
			coarse += !!f[k].flags;
		}
	}
	TH_LOG("%u bytes failed, %u more tainted by coarsening", failed,
	       extra);
	return coarse;
}

/*
 * The pattern of issue 18: FAIL tasks that each write eight one-byte
 * ranges, every other byte, on one buffer.  Claims stop growing at the
 * buffer's limit; every failed byte is still reported failed.
 */
TEST_F(fm, every_other_byte_is_bounded)
{
	struct drm_weave_client_usage u0, u1, u2;
	uint64_t off[FM_RANGES], len[FM_RANGES];
	uint32_t bo, t, j, coarse, n;
	struct fm_batch *b;

	/* A quarter more ranges than the buffer's limit. */
	n = self->info.max_buffer_claims / FM_RANGES +
	    self->info.max_buffer_claims / (4 * FM_RANGES) + 1;
	ASSERT_GE(65536u, n);
	self->size = n * 2 * FM_RANGES;
	self->size = (self->size * 2 + self->info.page_size - 1) /
		     self->info.page_size * self->info.page_size;
	self->failed = calloc(1, self->size);
	b = calloc(1, sizeof(*b));
	ASSERT_NE(NULL, self->failed);
	ASSERT_NE(NULL, b);
	bo = weave_test_bo(_metadata, self->fd, self->size, 0);
	u0 = weave_test_client_idle(_metadata, self->fd);
	EXPECT_EQ(0u, u0.failure_claims);
	EXPECT_EQ(0u, u0.failure_records);

	for (t = 0; t < n / 2; t++) {
		for (j = 0; j < FM_RANGES; j++) {
			off[j] = (t * FM_RANGES + j) * 2;
			len[j] = 1;
		}
		fm_add(_metadata, self, b, DRM_WEAVE_KERNEL_FAIL, EIO, bo,
		       off, len, FM_RANGES);
	}
	u1 = fm_finish(_metadata, self, b);
	fm_expect_bounded(_metadata, self, &u1, 1);
	for (; t < n; t++) {
		for (j = 0; j < FM_RANGES; j++) {
			off[j] = (t * FM_RANGES + j) * 2;
			len[j] = 1;
		}
		fm_add(_metadata, self, b, DRM_WEAVE_KERNEL_FAIL, EIO, bo,
		       off, len, FM_RANGES);
	}
	u2 = fm_finish(_metadata, self, b);
	TH_LOG("%u ranges: %llu claims, %llu records, %llu bytes (after half: %llu claims, %llu bytes)",
	       n * FM_RANGES, (unsigned long long)u2.failure_claims,
	       (unsigned long long)u2.failure_records,
	       (unsigned long long)u2.failure_bytes,
	       (unsigned long long)u1.failure_claims,
	       (unsigned long long)u1.failure_bytes);
	fm_expect_bounded(_metadata, self, &u2, 1);
	/* One claim per range would pass the limit: it was coarsened. */
	ASSERT_LT(self->info.max_buffer_claims, n * FM_RANGES);
	EXPECT_GE(self->info.max_buffer_claims, u2.failure_claims + 1);

	coarse = fm_check_bytes(_metadata, self, bo, self->size);
	EXPECT_LT(0u, coarse);
	/* Past the last range, nothing was absorbed. */
	weave_test_expect_good(_metadata, self->fd, bo,
			       n * FM_RANGES * 2,
			       self->size - n * FM_RANGES * 2);

	/* Rewritten whole, the buffer is good and the memory is given back. */
	off[0] = 0;
	len[0] = self->size;
	fm_add(_metadata, self, b, DRM_WEAVE_KERNEL_FILL, 0, bo, off, len, 1);
	u2 = fm_finish(_metadata, self, b);
	weave_test_expect_good(_metadata, self->fd, bo, 0, self->size);
	EXPECT_EQ(0u, u2.failure_claims);
	EXPECT_EQ(0u, u2.failure_records);
	free(b);
}

/* xorshift32, seeded per test, so that a failure can be replayed. */
static uint32_t fm_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/*
 * Random ranges: FAIL tasks of eight random ranges, and FILL tasks that
 * make a random range good again, over one buffer.  The usage stays
 * within the limits, and CHECK agrees with what failed last, byte by
 * byte, but where a failure is marked coarse.
 */
TEST_F(fm, random_ranges_are_bounded)
{
	uint64_t off[FM_RANGES], len[FM_RANGES];
	struct drm_weave_client_usage u;
	uint32_t seed = 0x2545f491u, bo, t, j, round;
	struct fm_batch *b;

	self->size = 4 * self->info.page_size;
	self->failed = calloc(1, self->size);
	b = calloc(1, sizeof(*b));
	ASSERT_NE(NULL, self->failed);
	ASSERT_NE(NULL, b);
	bo = weave_test_bo(_metadata, self->fd, self->size, 0);

	for (round = 0; round < 2; round++) {
		for (t = 0; t < FM_TASKS; t++) {
			if (!(fm_rand(&seed) % 8)) {
				off[0] = fm_rand(&seed) % (self->size / 4) * 4;
				len[0] = 4 * (1 + fm_rand(&seed) % 8);
				if (off[0] + len[0] > self->size)
					len[0] = self->size - off[0];
				fm_add(_metadata, self, b,
				       DRM_WEAVE_KERNEL_FILL, t, bo, off, len,
				       1);
				continue;
			}
			for (j = 0; j < FM_RANGES; j++) {
				off[j] = fm_rand(&seed) % self->size;
				len[j] = 1 + fm_rand(&seed) % 3;
				if (off[j] + len[j] > self->size)
					len[j] = self->size - off[j];
			}
			fm_add(_metadata, self, b, DRM_WEAVE_KERNEL_FAIL,
			       1 + t % 4095, bo, off, len, FM_RANGES);
		}
		u = fm_finish(_metadata, self, b);
		TH_LOG("round %u: %llu claims, %llu records, %llu bytes",
		       round, (unsigned long long)u.failure_claims,
		       (unsigned long long)u.failure_records,
		       (unsigned long long)u.failure_bytes);
		fm_expect_bounded(_metadata, self, &u, 1);
		fm_check_bytes(_metadata, self, bo, self->size);
	}
	free(b);
}

/*
 * Claims on many buffers count against the one client's limit, and a
 * buffer's first claim costs nothing: a client with one claim on each of
 * its buffers holds no claim of its limit.
 */
TEST_F(fm, first_claim_of_a_buffer_is_free)
{
	uint64_t off[2] = { 0, 2 }, len[2] = { 1, 1 };
	struct drm_weave_client_usage u;
	uint32_t bo[8], i;
	struct fm_batch *b;

	self->size = self->info.page_size;
	self->failed = calloc(1, self->size);
	b = calloc(1, sizeof(*b));
	ASSERT_NE(NULL, self->failed);
	ASSERT_NE(NULL, b);
	for (i = 0; i < 8; i++) {
		bo[i] = weave_test_bo(_metadata, self->fd, self->size, 0);
		fm_add(_metadata, self, b, DRM_WEAVE_KERNEL_FAIL, EIO, bo[i],
		       off, len, 1);
	}
	u = fm_finish(_metadata, self, b);
	EXPECT_EQ(0u, u.failure_claims);
	EXPECT_EQ(8u, u.failure_records);
	/* A second range on each takes one claim each. */
	for (i = 0; i < 8; i++)
		fm_add(_metadata, self, b, DRM_WEAVE_KERNEL_FAIL, EIO, bo[i],
		       off, len, 2);
	u = fm_finish(_metadata, self, b);
	if (self->info.max_client_claims >= 8)
		EXPECT_EQ(8u, u.failure_claims);
	EXPECT_GE(self->info.max_client_claims, u.failure_claims);
	for (i = 0; i < 8; i++)
		EXPECT_EQ(0, weave_bo_close(self->fd, bo[i]));
	u = weave_test_client_idle(_metadata, self->fd);
	/* The buffers are gone, and so are the failures and their claims. */
	EXPECT_EQ(0u, u.failure_claims);
	EXPECT_EQ(0u, u.failure_records);
	free(b);
}

/*
 * What enqueues set aside is bounded too: tasks that cannot run yet,
 * behind a delay, with more write bindings than max_client_claims and
 * more tasks than max_live_failures, do not make the client hold more
 * than its limits allow, though each enqueue succeeds.
 */
TEST_F(fm, reserve_is_bounded_by_the_limits)
{
	uint64_t off[FM_RANGES], len[FM_RANGES], writes = 0, bound;
	struct drm_weave_client_usage u;
	uint32_t bo, t, j, n;
	struct fm_batch *b;

	self->size = self->info.page_size;
	self->failed = calloc(1, self->size);
	b = calloc(1, sizeof(*b));
	ASSERT_NE(NULL, self->failed);
	ASSERT_NE(NULL, b);
	bo = weave_test_bo(_metadata, self->fd, self->size, 0);
	n = (self->info.max_client_claims + self->info.max_live_failures) /
	    FM_RANGES + 2 * FM_BATCH;
	ASSERT_GE(self->info.max_pending_tasks, n + 1ull);

	fm_add(_metadata, self, b, DRM_WEAVE_KERNEL_DELAY, 1000000, bo, off,
	       len, 0);
	for (t = 0; t < n; t++) {
		for (j = 0; j < FM_RANGES; j++) {
			off[j] = (t * FM_RANGES + j) % self->size;
			len[j] = 1;
		}
		fm_add(_metadata, self, b, DRM_WEAVE_KERNEL_FAIL, EIO, bo,
		       off, len, FM_RANGES);
		writes += FM_RANGES;
	}
	fm_enqueue(_metadata, self, b);
	u = weave_test_client_usage(_metadata, self->fd);
	ASSERT_LT(0u, u.pending_tasks) {
		TH_LOG("the delay ended before the usage was read");
	}
	/* What one claim per write and a record per task would take. */
	ASSERT_LT(self->info.max_client_claims, writes);
	ASSERT_LT(self->info.max_live_failures, n);
	bound = (uint64_t)self->info.max_client_claims * FM_CLAIM_MAX +
		(self->info.max_live_failures + 2ull) * FM_OBJECT_MAX;
	TH_LOG("%u tasks, %llu writes pending: %llu bytes set aside or held, at most %llu",
	       n, (unsigned long long)writes,
	       (unsigned long long)u.failure_bytes,
	       (unsigned long long)bound);
	EXPECT_GE(bound, u.failure_bytes);
	/* At 96 bytes a claim and 1 KiB a record, more than the bound. */
	EXPECT_LT(bound, writes * 96 + n * 1024ull) {
		TH_LOG("the bound does not tell bounded from not");
	}
	u = fm_finish(_metadata, self, b);
	fm_expect_bounded(_metadata, self, &u, 1);
	fm_check_bytes(_metadata, self, bo, self->size);
	free(b);
}

/* FAIL tasks that each fail a 4-byte range, and how many fit a batch. */
#define FM_PENDING	512u

/*
 * Each task pending takes its own record when it fails, whatever other
 * tasks were pending when it was enqueued: FAIL tasks enqueued a batch at
 * a time behind a gate, none run yet, each fail their own range with a
 * record of their own, not the overflow failure that records run out into.
 */
TEST_F(fm, pending_failures_each_get_a_record)
{
	uint32_t n = FM_PENDING, i, j, bo, nf;
	struct drm_weave_check_range r[FM_CHECK];
	struct drm_weave_failure f[FM_CHECK];
	struct drm_weave_client_usage u;
	struct weave_test_gate gate;
	struct weave_test_batch b;
	struct drm_weave_sync in;

	if (n > self->info.max_live_failures)
		n = self->info.max_live_failures;
	ASSERT_LE(FM_CHECK, n);
	ASSERT_GE(self->info.max_pending_tasks, n + 1ull);
	self->size = (4ull * n + self->info.page_size - 1) /
		     self->info.page_size * self->info.page_size;
	bo = weave_test_bo(_metadata, self->fd, self->size, 0);
	/* The first batch, and so every later one, waits for a gate. */
	weave_test_gate_open(_metadata, &gate, self->fd);
	in = weave_sync(gate.syncobj, 0);
	weave_test_batch_init(&b);
	for (i = 0; i < n; i++) {
		weave_test_fail_task(&b, bo, 4ull * i, 4, EIO);
		if (b.n < WEAVE_TEST_BATCH && i + 1 < n)
			continue;
		ASSERT_EQ(0, weave_enqueue(self->fd, self->stream, b.task,
					   b.n, i < WEAVE_TEST_BATCH ? &in : NULL,
					   i < WEAVE_TEST_BATCH, NULL));
		weave_test_batch_init(&b);
	}
	u = weave_test_client_usage(_metadata, self->fd);
	EXPECT_EQ(n, u.pending_tasks);
	weave_test_gate_pending(_metadata, self->fd, &gate);
	weave_test_gate_wait(_metadata, self->fd, &gate);
	weave_test_finish(_metadata, self->fd, self->stream);

	for (i = 0; i < n; i += FM_CHECK) {
		for (j = 0; j < FM_CHECK; j++)
			r[j] = (struct drm_weave_check_range) {
				.handle = bo, .offset = 4ull * (i + j),
				.size = 4,
			};
		nf = FM_CHECK;
		ASSERT_EQ(0, weave_check(self->fd, r, FM_CHECK, f, &nf, NULL,
					 NULL));
		ASSERT_EQ(FM_CHECK, nf);
		for (j = 0; j < FM_CHECK; j++) {
			ASSERT_EQ(1u, r[j].nfailures);
			EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_KERNEL,
				  f[r[j].first].cause) {
				TH_LOG("task %u of %u failed without a record of its own",
				       i + j, n);
			}
		}
	}
}

/*
 * FAIL tasks on the 4-byte ranges @first to @first + @n - 1 of @bo, a batch
 * at a time, flushed and waited for.
 */
static void fm_fail_ranges(struct __test_metadata *_metadata, fm_t *self,
			   uint32_t bo, uint32_t first, uint32_t n)
{
	struct weave_test_batch b;
	uint32_t i;

	weave_test_batch_init(&b);
	for (i = 0; i < n; i++) {
		weave_test_fail_task(&b, bo, 4ull * (first + i), 4, EIO);
		if (b.n < WEAVE_TEST_BATCH && i + 1 < n)
			continue;
		weave_test_enqueue(_metadata, self->fd, self->stream, &b);
		/* Within max_pending_tasks. */
		if (i / WEAVE_TEST_BATCH % 64 == 63)
			weave_test_finish(_metadata, self->fd, self->stream);
	}
	weave_test_finish(_metadata, self->fd, self->stream);
}

/*
 * How many of the 4-byte ranges @first to @first + @n - 1 of @bo carry one
 * failure of their own (cause KERNEL) and how many the overflow failure;
 * fails the test if a range carries anything else.  *@overflow_id is the
 * overflow failure's id, if one carries it.
 */
static void fm_count_causes(struct __test_metadata *_metadata, fm_t *self,
			    uint32_t bo, uint32_t first, uint32_t n,
			    uint32_t *own, uint32_t *overflow,
			    uint64_t *overflow_id)
{
	struct drm_weave_check_range r[FM_CHECK];
	struct drm_weave_failure f[FM_CHECK];
	uint32_t i, j, k, nf;

	*own = 0;
	*overflow = 0;
	for (i = 0; i < n; i += k) {
		k = n - i < FM_CHECK ? n - i : FM_CHECK;
		for (j = 0; j < k; j++)
			r[j] = (struct drm_weave_check_range) {
				.handle = bo, .offset = 4ull * (first + i + j),
				.size = 4,
			};
		nf = FM_CHECK;
		ASSERT_EQ(0, weave_check(self->fd, r, k, f, &nf, NULL, NULL));
		for (j = 0; j < k; j++) {
			ASSERT_EQ(1u, r[j].nfailures);
			if (f[r[j].first].cause == DRM_WEAVE_FAILURE_OVERFLOW) {
				++*overflow;
				*overflow_id = f[r[j].first].id;
				continue;
			}
			ASSERT_EQ((uint32_t)DRM_WEAVE_FAILURE_KERNEL,
				  f[r[j].first].cause);
			++*own;
		}
	}
}

/*
 * The overflow failure is given back with the bytes that carried it, and
 * counts against no limit: a client that made max_live_failures distinct
 * failures and one more, which overflowed, and then made every byte good
 * holds no failure record, and its next max_live_failures failures are
 * each distinct again; the one after them overflows into a new record.
 */
TEST_F(fm, overflow_record_is_given_back)
{
	uint32_t live = self->info.max_live_failures, bo, own, over;
	struct drm_weave_client_usage u;
	struct weave_test_batch b;
	uint64_t id = 0, first_id;

	ASSERT_LE(2u, live);
	ASSERT_GE(65536u, live) {
		TH_LOG("max_live_failures %u: too many failures to make",
		       live);
	}
	self->size = (4ull * (live + 1) + self->info.page_size - 1) /
		     self->info.page_size * self->info.page_size;
	ASSERT_GE(self->info.max_bo_size, self->size);
	bo = weave_test_bo(_metadata, self->fd, self->size, 0);

	fm_fail_ranges(_metadata, self, bo, 0, live + 1);
	fm_count_causes(_metadata, self, bo, 0, live + 1, &own, &over, &id);
	ASSERT_EQ(live, own);
	ASSERT_EQ(1u, over);
	first_id = id;
	u = weave_test_client_usage(_metadata, self->fd);
	EXPECT_EQ(live + 1ull, u.failure_records);

	/* Every byte written: clean, and no record is left. */
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->size, 0);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	weave_test_finish(_metadata, self->fd, self->stream);
	weave_test_expect_good(_metadata, self->fd, bo, 0, self->size);
	u = weave_test_client_usage(_metadata, self->fd);
	EXPECT_EQ(0u, u.failure_records) {
		TH_LOG("a failure record outlived every byte that carried it");
	}

	/* max_live_failures distinct failures again, the last one too. */
	fm_fail_ranges(_metadata, self, bo, 0, live);
	fm_count_causes(_metadata, self, bo, 0, live, &own, &over, &id);
	EXPECT_EQ(live, own);
	EXPECT_EQ(0u, over) {
		TH_LOG("%u of %u new failures overflowed after a full clear",
		       over, live);
	}
	u = weave_test_client_usage(_metadata, self->fd);
	EXPECT_EQ((uint64_t)live, u.failure_records);

	/* One more overflows, into a record of its own naming it. */
	fm_fail_ranges(_metadata, self, bo, live, 1);
	fm_count_causes(_metadata, self, bo, live, 1, &own, &over, &id);
	EXPECT_EQ(1u, over);
	EXPECT_NE(first_id, id);
	u = weave_test_client_usage(_metadata, self->fd);
	EXPECT_EQ(live + 1ull, u.failure_records);
}

/* Enqueues a noop and waits for the client to be idle; returns its usage. */
static struct drm_weave_client_usage fm_noop_idle(struct __test_metadata *_metadata,
						  fm_t *self)
{
	weave_test_enqueue_noop(_metadata, self->fd, self->stream);
	weave_test_finish(_metadata, self->fd, self->stream);
	return weave_test_client_idle(_metadata, self->fd);
}

/*
 * The records an enqueue sets aside stay with a client whose queue drains
 * between its calls, so that it does not free and allocate them again each
 * time; once it has had nothing pending for a second, its next enqueue
 * gives them back.  A round whose idle enqueue came too late to tell is
 * tried again.
 */
TEST_F(fm, records_stay_between_calls_then_go)
{
	struct drm_weave_client_usage busy, kept, trimmed;
	struct weave_test_batch b;
	int64_t last;
	uint32_t i, round;
	bool told = false;

	for (round = 0; round < 5 && !told; round++) {
		weave_test_batch_init(&b);
		weave_test_delay(&b, 100000);
		weave_test_enqueue(_metadata, self->fd, self->stream, &b);
		for (i = 0; i < 4; i++) {
			while (b.n < WEAVE_TEST_BATCH)
				weave_test_noop(&b);
			weave_test_enqueue(_metadata, self->fd, self->stream,
					   &b);
		}
		last = weave_test_now();
		busy = weave_test_client_usage(_metadata, self->fd);
		ASSERT_LT(0u, busy.pending_tasks) {
			TH_LOG("the delay ended before the usage was read");
		}
		weave_test_finish(_metadata, self->fd, self->stream);
		weave_test_client_idle(_metadata, self->fd);
		/* Idle now, and within the second. */
		kept = fm_noop_idle(_metadata, self);
		told = weave_test_now() - last < 800 * 1000 * 1000ll;
		if (!told)
			TH_LOG("round %u: the idle enqueue came too late to tell",
			       round);
	}
	ASSERT_TRUE(told);
	/* 257 records set aside, each at least 512 bytes. */
	EXPECT_LE(257ull * 512, busy.failure_bytes);
	EXPECT_EQ(busy.failure_bytes, kept.failure_bytes);

	usleep(1500 * 1000);
	trimmed = fm_noop_idle(_metadata, self);
	TH_LOG("failure memory: %llu bytes busy, %llu kept, %llu after a second idle",
	       (unsigned long long)busy.failure_bytes,
	       (unsigned long long)kept.failure_bytes,
	       (unsigned long long)trimmed.failure_bytes);
	/* A record for the noop, one for the overflow failure. */
	EXPECT_GE(2ull * FM_OBJECT_MAX, trimmed.failure_bytes);
}

TEST_HARNESS_MAIN
