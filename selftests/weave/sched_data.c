// SPDX-License-Identifier: GPL-2.0
/*
 * weave: data correctness of the scheduler: task chains across many
 * streams, cross-stream ordering without user synchronisation, host-write
 * staging, folding, thresholds, both strategies and flush all.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "weave_test.h"

/* Streams the chain tests run at once. */
#define CHAINS		16

WEAVE_TEST_FIXTURE(data, 0u)

/*
 * Runs @n chains, one per stream, each on its own buffer, all writing their
 * crc into one result buffer if @shared, else each into its own; flushes
 * them all with one flush all and checks every crc and every copied part
 * against user-space arithmetic.  Returns the jobs the file pushed.
 */
static uint64_t run_chains(struct __test_metadata *_metadata, int fd,
			   uint64_t page, unsigned int n, bool shared)
{
	uint32_t stream[CHAINS], bo[CHAINS], res[CHAINS], *map, *words;
	uint64_t jobs = weave_test_jobs(_metadata, fd);
	struct weave_test_batch b;
	unsigned int i;
	size_t w;

	ASSERT_LE(n, (unsigned int)CHAINS);
	for (i = 0; i < n; i++) {
		stream[i] = weave_test_stream(_metadata, fd,
					      DRM_WEAVE_PRIORITY_NORMAL);
		bo[i] = weave_test_bo(_metadata, fd, 4 * page, 0);
		res[i] = shared && i ? res[0] :
				       weave_test_bo(_metadata, fd, page, 0);
	}
	for (i = 0; i < n; i++) {
		weave_test_batch_init(&b);
		weave_test_chain(&b, bo[i], page, weave_test_chain_a(i),
				 weave_test_chain_b(i), res[i], 4 * i);
		weave_test_enqueue(_metadata, fd, stream[i], &b);
	}
	ASSERT_EQ(0, weave_flush_all(fd, NULL));
	for (i = 0; i < n; i++)
		weave_test_wait(_metadata, fd, stream[i]);
	jobs = weave_test_jobs(_metadata, fd) - jobs;

	for (i = 0; i < n; i++) {
		struct drm_weave_stream_query q =
			weave_test_squery(_metadata, fd, stream[i]);

		EXPECT_EQ(5u, q.enqueued);
		EXPECT_EQ(5u, q.executed);
		EXPECT_EQ(5u, q.completed);
		map = weave_test_map(_metadata, fd, res[i], page);
		ASSERT_EQ(weave_test_chain_crc(page, weave_test_chain_a(i),
					       weave_test_chain_b(i)), map[i]) {
			TH_LOG("chain %u", i);
		}
		weave_test_unmap(_metadata, map, page);
		words = weave_test_map(_metadata, fd, bo[i], 4 * page);
		for (w = 0; w < page / 4; w++) {
			uint32_t want = weave_test_chain_a(i) +
					weave_test_chain_b(i);

			ASSERT_EQ(want, words[3 * page / 4 + w]) {
				TH_LOG("chain %u word %zu", i, w);
			}
		}
		weave_test_unmap(_metadata, words, 4 * page);
	}
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, weave_stream_destroy(fd, stream[i]));
	return jobs;
}

TEST_F(data, chains_16_streams)
{
	run_chains(_metadata, self->fd, self->page, CHAINS, true);
}

/*
 * Chains on disjoint buffers, below the threshold, flushed by one flush
 * all: interleaving makes them one job ...
 */
TEST_F(data, chains_interleave)
{
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_STRATEGY,
			 DRM_WEAVE_STRATEGY_INTERLEAVE);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS, 8);
	EXPECT_EQ(1u, run_chains(_metadata, self->fd, self->page, 8, false));
}

/* ... and the sequential strategy one job per stream. */
TEST_F(data, chains_sequential)
{
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_STRATEGY,
			 DRM_WEAVE_STRATEGY_SEQUENTIAL);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS, 8);
	EXPECT_EQ(8u, run_chains(_metadata, self->fd, self->page, 8, false));
}

/*
 * Chains sharing their result buffer with a threshold of 3: every enqueue
 * executes its own slot at the threshold and the previous stream's slot
 * (align).  Each of these executions holds one slot, so both strategies
 * make the same jobs: two per stream.  The data is right either way.
 */
TEST_F(data, chains_threshold_interleave)
{
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_STRATEGY,
			 DRM_WEAVE_STRATEGY_INTERLEAVE);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS, 3);
	EXPECT_EQ(16u, run_chains(_metadata, self->fd, self->page, 8, true));
}

TEST_F(data, chains_threshold_sequential)
{
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_STRATEGY,
			 DRM_WEAVE_STRATEGY_SEQUENTIAL);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS, 3);
	EXPECT_EQ(16u, run_chains(_metadata, self->fd, self->page, 8, true));
}

/*
 * The producer fills a buffer behind a delay; the consumer, on another
 * slot, copies it.  Only the consumer is flushed and waited for, yet it
 * sees the producer's data: its enqueue executed the producer's slot first
 * and its job ran after the producer's.
 */
TEST_F(data, producer_consumer_no_user_sync)
{
	uint32_t prod, cons, x, y, *map;
	struct drm_weave_stream_query qp, qc;
	struct weave_test_batch b;
	size_t w;

	if (self->info.max_streams < 2)
		SKIP(return, "one slot: producer and consumer would share it");
	prod = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	cons = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	qp = weave_test_squery(_metadata, self->fd, prod);
	qc = weave_test_squery(_metadata, self->fd, cons);
	ASSERT_NE(qp.slot, qc.slot);
	x = weave_test_bo(_metadata, self->fd, self->page, 0);
	y = weave_test_bo(_metadata, self->fd, self->page, 0);

	weave_test_batch_init(&b);
	weave_test_delay(&b, 50000);
	weave_test_fill_task(&b, x, 0, self->page, 0xc0ffee00u);
	weave_test_enqueue(_metadata, self->fd, prod, &b);

	weave_test_copy_task(&b, x, 0, y, 0, self->page);
	weave_test_enqueue(_metadata, self->fd, cons, &b);
	qp = weave_test_squery(_metadata, self->fd, prod);
	EXPECT_EQ(2u, qp.executed);

	weave_test_finish(_metadata, self->fd, cons);
	map = weave_test_map(_metadata, self->fd, y, self->page);
	for (w = 0; w < self->page / 4; w++)
		ASSERT_EQ(0xc0ffee00u, map[w]) TH_LOG("word %zu", w);
	weave_test_unmap(_metadata, map, self->page);
	weave_test_wait(_metadata, self->fd, prod);
}

/* The user's bytes are staged at enqueue: overwriting them is harmless. */
TEST_F(data, host_write_is_staged)
{
	size_t size = 2 * self->page;
	uint32_t stream, bo;
	struct weave_test_batch b;
	void *data, *map;

	stream = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, self->fd, 2 * size, 0);
	data = malloc(size);
	ASSERT_NE(NULL, data);

	weave_test_batch_init(&b);
	weave_test_fill(data, size, 0x11);
	weave_test_write_task(&b, bo, 0, size, data);
	weave_test_enqueue(_metadata, self->fd, stream, &b);
	weave_test_fill(data, size, 0x22);
	weave_test_write_task(&b, bo, size, size, data);
	weave_test_enqueue(_metadata, self->fd, stream, &b);
	memset(data, 0xff, size);

	weave_test_finish(_metadata, self->fd, stream);
	map = weave_test_map(_metadata, self->fd, bo, 2 * size);
	EXPECT_EQ(size, weave_test_check(map, size, 0x11));
	EXPECT_EQ(size, weave_test_check((char *)map + size, size, 0x22));
	weave_test_unmap(_metadata, map, 2 * size);
	free(data);
}

/*
 * Streams h and h + max_streams share a slot: one FIFO and one threshold.
 * With a threshold of 4, two tasks on each execute the slot, and the
 * second stream's copy sees the first stream's fill.
 */
TEST_F(data, folding_shares_slot_fifo)
{
	uint32_t first, folded = 0, h, x, y, *map;
	struct drm_weave_stream_query q1, q2;
	struct weave_test_batch b;
	unsigned int i;
	size_t w;

	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS, 4);
	first = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	for (i = 1; i < self->info.max_client_streams; i++) {
		h = weave_test_stream(_metadata, self->fd,
				      DRM_WEAVE_PRIORITY_NORMAL);
		if (h == first + self->info.max_streams) {
			folded = h;
			break;
		}
	}
	if (!folded)
		SKIP(return, "no stream handle %u within max_client_streams",
		     first + self->info.max_streams);
	q1 = weave_test_squery(_metadata, self->fd, first);
	q2 = weave_test_squery(_metadata, self->fd, folded);
	ASSERT_EQ(first % self->info.max_streams, q1.slot);
	ASSERT_EQ(q1.slot, q2.slot);

	x = weave_test_bo(_metadata, self->fd, self->page, 0);
	y = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_delay(&b, 20000);
	weave_test_fill_task(&b, x, 0, self->page, 0xf01dab1eu);
	weave_test_enqueue(_metadata, self->fd, first, &b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, folded, &b);
	q1 = weave_test_squery(_metadata, self->fd, first);
	q2 = weave_test_squery(_metadata, self->fd, folded);
	EXPECT_EQ(0u, q1.executed);
	EXPECT_EQ(0u, q2.executed);
	EXPECT_EQ(1u, q2.enqueued);

	/* The fourth task in the shared FIFO executes the slot. */
	weave_test_copy_task(&b, x, 0, y, 0, self->page);
	weave_test_enqueue(_metadata, self->fd, folded, &b);
	q1 = weave_test_squery(_metadata, self->fd, first);
	q2 = weave_test_squery(_metadata, self->fd, folded);
	EXPECT_EQ(2u, q1.executed);
	EXPECT_EQ(2u, q2.executed);

	weave_test_wait(_metadata, self->fd, folded);
	weave_test_wait(_metadata, self->fd, first);
	map = weave_test_map(_metadata, self->fd, y, self->page);
	for (w = 0; w < self->page / 4; w++)
		ASSERT_EQ(0xf01dab1eu, map[w]) TH_LOG("word %zu", w);
	weave_test_unmap(_metadata, map, self->page);
}

/* max_tasks - 1 tasks stay queued; the max_tasks-th executes them all. */
TEST_F(data, threshold)
{
	const unsigned int max = 5;
	struct drm_weave_stream_query q;
	struct weave_test_batch b;
	uint32_t stream;
	unsigned int i;

	ASSERT_LE(max, self->info.max_tasks);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS, max);
	stream = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_batch_init(&b);
	for (i = 1; i < max; i++) {
		uint64_t seqno = 0;

		weave_test_noop(&b);
		ASSERT_EQ(0, weave_enqueue(self->fd, stream, b.task, 1, NULL, 0,
					   &seqno));
		EXPECT_EQ(i, seqno);
		weave_test_batch_init(&b);
	}
	q = weave_test_squery(_metadata, self->fd, stream);
	EXPECT_EQ(max - 1, q.enqueued);
	EXPECT_EQ(0u, q.executed);
	EXPECT_EQ(0u, q.completed);

	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, stream, &b);
	q = weave_test_squery(_metadata, self->fd, stream);
	EXPECT_EQ(max, q.executed);
	weave_test_wait(_metadata, self->fd, stream);
	q = weave_test_squery(_metadata, self->fd, stream);
	EXPECT_EQ(max, q.completed);

	/* Below the threshold again: only a flush executes. */
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, stream, &b);
	q = weave_test_squery(_metadata, self->fd, stream);
	EXPECT_EQ(max, q.executed);
	weave_test_finish(_metadata, self->fd, stream);
	q = weave_test_squery(_metadata, self->fd, stream);
	EXPECT_EQ(max + 1, q.executed);
	EXPECT_EQ(max + 1, q.completed);
}

/* A threshold of one executes every task at once. */
TEST_F(data, threshold_one)
{
	struct drm_weave_stream_query q;
	uint32_t stream;

	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS, 1);
	stream = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_enqueue_noop(_metadata, self->fd, stream);
	q = weave_test_squery(_metadata, self->fd, stream);
	EXPECT_EQ(1u, q.executed);
	weave_test_wait(_metadata, self->fd, stream);
}

/*
 * Flush all executes every stream's queue and its out-fence covers all of
 * them; before it, nothing below the threshold has executed.
 */
TEST_F(data, flush_all_out_fence)
{
	uint32_t stream[8], bo[8], syncobj;
	struct drm_weave_stream_query q;
	struct drm_weave_sync out;
	struct weave_test_batch b;
	unsigned int i;

	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS,
			 self->info.max_tasks < 16 ? self->info.max_tasks : 16);
	weave_test_batch_init(&b);
	for (i = 0; i < 8; i++) {
		stream[i] = weave_test_stream(_metadata, self->fd,
					      DRM_WEAVE_PRIORITY_NORMAL);
		bo[i] = weave_test_bo(_metadata, self->fd, self->page, 0);
		weave_test_delay(&b, 2000);
		weave_test_fill_task(&b, bo[i], 0, self->page, 0xa0 + i);
		weave_test_enqueue(_metadata, self->fd, stream[i], &b);
	}
	if (self->info.max_tasks > 2) {
		for (i = 0; i < 8; i++) {
			q = weave_test_squery(_metadata, self->fd, stream[i]);
			EXPECT_EQ(0u, q.executed);
		}
	}
	syncobj = weave_test_syncobj(_metadata, self->fd);
	out = weave_sync(syncobj, 0);
	ASSERT_EQ(0, weave_flush_all(self->fd, &out));
	ASSERT_EQ(0, drmSyncobjWait(self->fd, &syncobj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS),
				    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL));
	for (i = 0; i < 8; i++) {
		q = weave_test_squery(_metadata, self->fd, stream[i]);
		EXPECT_EQ(2u, q.executed);
		EXPECT_EQ(2u, q.completed);
		weave_test_expect_words(_metadata, self->fd, bo[i], self->page,
					0xa0 + i);
	}
	drmSyncobjDestroy(self->fd, syncobj);
}

/*
 * With the sequential strategy each stream's tasks are a job of their own:
 * flush all's out-fence waits for every one of them.  A task that failed
 * puts no error on it (uAPI 1.3: failures live on bytes, see failures.c).
 */
TEST_F(data, flush_all_out_fence_joins_every_job)
{
	uint32_t failing, slow, bo, syncobj;
	struct drm_weave_stream_query q;
	struct weave_test_gate gate;
	struct drm_weave_sync out, in;
	struct weave_test_batch b;
	int status;

	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_STRATEGY,
			 DRM_WEAVE_STRATEGY_SEQUENTIAL);
	failing = weave_test_stream(_metadata, self->fd,
				    DRM_WEAVE_PRIORITY_NORMAL);
	slow = weave_test_stream(_metadata, self->fd,
				 DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);

	weave_test_batch_init(&b);
	weave_test_launch(&b, DRM_WEAVE_KERNEL_FAIL, NULL, 0, 1, EIO);
	weave_test_enqueue(_metadata, self->fd, failing, &b);
	/* The slow stream's job waits for a gate, whatever the time. */
	weave_test_gate_open(_metadata, &gate, self->fd);
	in = weave_sync(gate.syncobj, 0);
	weave_test_noop(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 0x10ad);
	ASSERT_EQ(0, weave_enqueue(self->fd, slow, b.task, b.n, &in, 1, NULL));
	syncobj = weave_test_syncobj(_metadata, self->fd);
	out = weave_sync(syncobj, 0);
	ASSERT_EQ(0, weave_flush_all(self->fd, &out));

	/* The failing job is done, the slow one is not: nor is the fence. */
	weave_test_wait(_metadata, self->fd, failing);
	EXPECT_EQ(0, weave_test_sync_file_status(_metadata, self->fd,
						 syncobj, 0));
	q = weave_test_squery(_metadata, self->fd, slow);
	EXPECT_EQ(0u, q.completed);
	weave_test_gate_pending(_metadata, self->fd, &gate);

	weave_test_gate_wait(_metadata, self->fd, &gate);
	ASSERT_EQ(0, drmSyncobjWait(self->fd, &syncobj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	q = weave_test_squery(_metadata, self->fd, slow);
	EXPECT_EQ(2u, q.completed);
	status = weave_test_sync_file_status(_metadata, self->fd, syncobj, 0);
	EXPECT_EQ(1, status);
	weave_test_expect_words(_metadata, self->fd, bo, self->page, 0x10ad);
	drmSyncobjDestroy(self->fd, syncobj);
}

/* Streams of two files never mix, even on the same buffer via PRIME. */
TEST_F(data, two_files_share_buffer)
{
	uint32_t s1, s2, x1, x2, y;
	struct weave_test_batch b;
	int fd2, dmabuf;

	fd2 = weave_test_open(_metadata);
	s1 = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	s2 = weave_test_stream(_metadata, fd2, DRM_WEAVE_PRIORITY_NORMAL);
	x1 = weave_test_bo(_metadata, self->fd, self->page, 0);
	ASSERT_EQ(0, weave_bo_export(self->fd, x1, DRM_CLOEXEC, &dmabuf));
	ASSERT_EQ(0, weave_bo_import(fd2, dmabuf, &x2));
	close(dmabuf);
	y = weave_test_bo(_metadata, fd2, self->page, 0);

	weave_test_batch_init(&b);
	weave_test_delay(&b, 20000);
	weave_test_fill_task(&b, x1, 0, self->page, 0x5eed);
	weave_test_enqueue(_metadata, self->fd, s1, &b);
	weave_test_finish(_metadata, self->fd, s1);

	weave_test_copy_task(&b, x2, 0, y, 0, self->page);
	weave_test_enqueue(_metadata, fd2, s2, &b);
	weave_test_finish(_metadata, fd2, s2);
	weave_test_expect_words(_metadata, fd2, y, self->page, 0x5eedu);
	close(fd2);
}

/* Rounds, buffer pages and batches per round of signals_lose_no_task. */
#define SIG_ROUNDS	8
#define SIG_PAGES	4
#define SIG_BATCHES	3

static volatile sig_atomic_t sig_ticks;

static void sig_tick(int sig)
{
	(void)sig;
	sig_ticks++;
}

static uint32_t sig_pattern(uint32_t round, uint32_t task)
{
	return 0x51000000u | round << 16 | task;
}

/*
 * A signal pending during ENQUEUE (whose threshold executions submit jobs)
 * or FLUSH loses no task: with a timer signal every 100 us (SA_RESTART), a
 * burst of buffer creations and of more than max_tasks tasks per stream
 * all completes, with the right data.
 */
TEST_F_TIMEOUT(data, signals_lose_no_task, 180)
{
	struct sigaction sa = { .sa_handler = sig_tick, .sa_flags = SA_RESTART };
	struct itimerspec on = { { 0, 100000 }, { 0, 100000 } };
	struct sigevent sev = {
		.sigev_notify = SIGEV_SIGNAL,
		.sigev_signo = SIGUSR1,
	};
	timer_t timer;
	uint64_t size = SIG_PAGES * self->page;
	uint32_t stream, bo[SIG_ROUNDS], r, k, j, n, *map;
	struct drm_weave_stream_query q;
	struct weave_test_batch b;
	uint64_t tasks = 0;

	stream = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, timer_create(CLOCK_MONOTONIC, &sev, &timer));
	sig_ticks = 0;
	ASSERT_EQ(0, timer_settime(timer, 0, &on, NULL));
	for (r = 0; r < SIG_ROUNDS; r++) {
		bo[r] = weave_test_bo(_metadata, self->fd, size, 0);
		for (k = 0, n = 0; k < SIG_BATCHES; k++) {
			weave_test_batch_init(&b);
			for (j = 0; j < WEAVE_TEST_BATCH; j++, n++)
				weave_test_fill_task(&b, bo[r],
						     (n % SIG_PAGES) * self->page,
						     self->page, sig_pattern(r, n));
			weave_test_enqueue(_metadata, self->fd, stream, &b);
			tasks += WEAVE_TEST_BATCH;
		}
		ASSERT_EQ(0, weave_flush(self->fd, stream, NULL));
	}
	ASSERT_EQ(0, timer_delete(timer));
	signal(SIGUSR1, SIG_DFL);
	TH_LOG("%d signals during the burst", (int)sig_ticks);
	ASSERT_LT(0, (int)sig_ticks);
	ASSERT_LT((uint64_t)self->info.max_tasks, tasks);

	weave_test_finish(_metadata, self->fd, stream);
	q = weave_test_squery(_metadata, self->fd, stream);
	EXPECT_EQ(0, q.error);
	EXPECT_EQ(tasks, q.enqueued);
	EXPECT_EQ(tasks, q.executed);
	EXPECT_EQ(tasks, q.completed);
	n = SIG_BATCHES * WEAVE_TEST_BATCH;
	for (r = 0; r < SIG_ROUNDS; r++) {
		map = weave_test_map(_metadata, self->fd, bo[r], size);
		for (j = 0; j < SIG_PAGES; j++) {
			/* The last fill of page j was task n - SIG_PAGES + j. */
			EXPECT_EQ(sig_pattern(r, n - SIG_PAGES + j),
				  map[j * self->page / 4]);
			EXPECT_EQ(sig_pattern(r, n - SIG_PAGES + j),
				  map[(j + 1) * self->page / 4 - 1]);
		}
		weave_test_unmap(_metadata, map, size);
	}
}

/*
 * COPY within one buffer whose ranges overlap is a memmove: the result is
 * the source as it was before the task, whichever way the ranges overlap
 * and however many page-sized chunks the copy takes.  @shift is the
 * destination's offset from the source's, in bytes.
 */
static void copy_overlap(struct __test_metadata *_metadata, int fd,
			 uint64_t page, int64_t shift)
{
	uint64_t size = 4 * page, len = 2 * page + 300;
	uint64_t soff = shift > 0 ? 100 : 100 - shift;
	uint64_t doff = soff + shift;
	struct weave_test_batch b;
	uint8_t *want, *map;
	uint32_t stream, bo;
	size_t at;

	stream = weave_test_stream(_metadata, fd, DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, fd, size, 0);
	want = malloc(size);
	ASSERT_NE(NULL, want);
	map = weave_test_map(_metadata, fd, bo, size);
	weave_test_fill(map, size, 0xc0b1);
	memcpy(want, map, size);
	memmove(want + doff, want + soff, len);

	weave_test_batch_init(&b);
	weave_test_copy_task(&b, bo, soff, bo, doff, len);
	weave_test_enqueue(_metadata, fd, stream, &b);
	weave_test_finish(_metadata, fd, stream);
	for (at = 0; at < size && map[at] == want[at]; at++)
		;
	EXPECT_EQ(size, at) {
		TH_LOG("shift %lld: byte %zu differs from memmove's",
		       (long long)shift, at);
	}
	weave_test_unmap(_metadata, map, size);
	free(want);
}

/* The destination starts inside the source: a forward copy would smear. */
TEST_F(data, copy_overlap_dst_after_src)
{
	copy_overlap(_metadata, self->fd, self->page, 1000);
	copy_overlap(_metadata, self->fd, self->page, self->page + 4);
}

/* The destination ends inside the source. */
TEST_F(data, copy_overlap_dst_before_src)
{
	copy_overlap(_metadata, self->fd, self->page, -1000);
	copy_overlap(_metadata, self->fd, self->page, -(int64_t)self->page - 4);
}

/*
 * ADD over inputs that overlap each other, into a range apart from them,
 * then in place (a = a + a), across several pages: every element is the
 * sum of the inputs as they were before the task.
 */
TEST_F(data, add_overlapping_inputs_and_in_place)
{
	uint64_t size = 8 * self->page, len = 2 * self->page + 64;
	uint32_t stream, bo, *want, *map;
	uint64_t out = 4 * self->page;
	struct weave_test_batch b;
	size_t i, n = len / 4;

	stream = weave_test_stream(_metadata, self->fd,
				   DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, self->fd, size, 0);
	map = weave_test_map(_metadata, self->fd, bo, size);
	weave_test_fill(map, size, 0xadd);
	want = malloc(size);
	ASSERT_NE(NULL, want);
	memcpy(want, map, size);
	/* out = a + b, b one element after a; then out = out + out. */
	for (i = 0; i < n; i++)
		want[out / 4 + i] = 2 * (map[16 + i] + map[17 + i]);

	weave_test_batch_init(&b);
	weave_test_add_task(&b, bo, 64, bo, 68, bo, out, len);
	weave_test_add_task(&b, bo, out, bo, out, bo, out, len);
	weave_test_enqueue(_metadata, self->fd, stream, &b);
	weave_test_finish(_metadata, self->fd, stream);
	for (i = 0; i < size / 4 && map[i] == want[i]; i++)
		;
	EXPECT_EQ(size / 4, i) {
		TH_LOG("element %zu: %#x, not %#x", i, map[i], want[i]);
	}
	weave_test_unmap(_metadata, map, size);
	free(want);
}

TEST_HARNESS_MAIN
