// SPDX-License-Identifier: GPL-2.0
/*
 * weave: a weave fence's last reference dropped where nothing may sleep.
 * The fence that FLUSH_ALL hands out (weave's join of every slot's last
 * job) is released by the callback of its last input when user space let
 * it go first: from the signalling of a scheduler fence, with interrupts
 * off.  With max_streams=256 its inputs take more than a page, and
 * kvmalloc() falls back to vmalloc() when the kmalloc() it tries first
 * fails; so the release must not vfree() there, which may sleep.
 *
 * The suite needs the debug kernel (fail-nth, FAILSLAB, FAIL_PAGE_ALLOC,
 * DEBUG_ATOMIC_SLEEP) and weave.ko loaded with max_streams=256, which the
 * VM lane does for the suites of tests-wide.  fail-nth fails each
 * allocation of FLUSH_ALL in turn, one of them kvmalloc()'s kmalloc()
 * attempt; the lane's console check fails the run on the "BUG: sleeping
 * function called from invalid context" that a vfree() in the callback
 * prints.  With fewer slots, or fail-nth without the injectors' knobs,
 * the test fails; on a kernel without fault injection it skips.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "weave_test.h"
#include "weave_test_fault.h"

/*
 * The slots of the device weave.ko must be loaded with: with at least 103,
 * a join's inputs (40 bytes each on 64-bit) take more than a page, the
 * size from which kvmalloc() may fall back to vmalloc().
 */
#define FR_MAX_STREAMS	256u

/* A loop that gets this far is stuck: FLUSH_ALL allocates a handful. */
#define FR_MAX_STEPS	64u

/* Streams whose jobs the join waits for, on slots of their own. */
#define FR_STREAMS	3u

FIXTURE(fr) {
	int fd;
	struct weave_test_fault fault;
	uint32_t stream[FR_STREAMS];
};

FIXTURE_SETUP(fr)
{
	struct drm_weave_device_info info;
	uint32_t i;

	self->fault.nth = -1;
	self->fd = weave_test_open(_metadata);
	info = weave_test_info(_metadata, self->fd);
	ASSERT_LE(FR_MAX_STREAMS, info.max_streams) {
		TH_LOG("weave.ko has %u slots per client: load it with max_streams=%u",
		       info.max_streams, FR_MAX_STREAMS);
	}
	/* Slots 1, 2 and 3: the join gets an input from each. */
	for (i = 0; i < FR_STREAMS; i++) {
		self->stream[i] = weave_test_stream(_metadata, self->fd,
						    DRM_WEAVE_PRIORITY_NORMAL);
		ASSERT_NE(0u, self->stream[i] % info.max_streams);
	}

	/* Last, as the teardown that restores the knobs runs after it only. */
	weave_test_fault_open(_metadata, &self->fault);
	if (!weave_test_fault_absent(&self->fault))
		weave_test_fault_set(_metadata, &self->fault);
}

FIXTURE_TEARDOWN(fr)
{
	weave_test_fault_close(_metadata, &self->fault);
	close(self->fd);
}

/*
 * FLUSH_ALL with an out-sync, with the N-th of its allocations failed for
 * each N in turn, while every stream's job waits behind a gate.  The
 * out-sync is destroyed before the gate opens, so that the join's last
 * reference is its inputs': the last input's callback, in the signalling
 * of a scheduler fence with interrupts off, releases it.  Each step must
 * succeed or fail with -ENOMEM and leave no fence behind: weave.ko's
 * reference count comes back to what it was with each slot's last fence.
 */
TEST_F_TIMEOUT(fr, flush_all_last_put_in_callback, 120)
{
	struct weave_test_batch b;
	struct weave_test_gate g;
	struct drm_weave_sync in, out;
	unsigned int n, injected = 0;
	uint32_t obj, i;
	long refs;
	bool inj;
	int ret;

	if (weave_test_fault_absent(&self->fault))
		return;
	/*
	 * Each slot keeps the fence of its last job, which holds the module:
	 * the baseline is taken once every stream has one.
	 */
	for (i = 0; i < FR_STREAMS; i++) {
		weave_test_enqueue_noop(_metadata, self->fd, self->stream[i]);
		weave_test_finish(_metadata, self->fd, self->stream[i]);
	}
	weave_test_client_idle(_metadata, self->fd);
	refs = weave_test_settled_refs();
	ASSERT_LT(0, refs);
	for (n = 1;; n++) {
		ASSERT_GT(FR_MAX_STEPS, n) {
			TH_LOG("FLUSH_ALL still allocating at fail-nth %u", n);
		}
		weave_test_gate_open(_metadata, &g, self->fd);
		in = weave_sync(g.syncobj, 0);
		for (i = 0; i < FR_STREAMS; i++) {
			weave_test_batch_init(&b);
			weave_test_noop(&b);
			ASSERT_EQ(0, weave_enqueue(self->fd, self->stream[i],
						   b.task, b.n, &in, 1, NULL));
			ASSERT_EQ(0, weave_flush(self->fd, self->stream[i],
						 NULL));
		}
		obj = weave_test_syncobj(_metadata, self->fd);
		out = weave_sync(obj, 0);

		weave_test_fault_arm(_metadata, &self->fault, n);
		ret = weave_flush_all(self->fd, &out);
		inj = weave_test_fault_disarm(_metadata, &self->fault);

		weave_test_ok_or_enomem(_metadata, "FLUSH_ALL", n, ret);
		if (!ret) {
			/* The join waits for the gated jobs. */
			ASSERT_EQ(-ETIME, drmSyncobjWait(self->fd, &obj, 1, 0,
							 0, NULL) ? -errno : 0);
		} else {
			ASSERT_TRUE(inj);
		}
		weave_test_gate_pending(_metadata, self->fd, &g);
		/* The join's last references are its inputs' now. */
		ASSERT_EQ(0, drmSyncobjDestroy(self->fd, obj));
		weave_test_gate_wait(_metadata, self->fd, &g);
		for (i = 0; i < FR_STREAMS; i++)
			weave_test_wait(_metadata, self->fd, self->stream[i]);
		weave_test_client_idle(_metadata, self->fd);
		/* Jobs, gates and the join are all gone; the slots' fences stay. */
		weave_test_await_refs(_metadata, refs);
		if (inj)
			injected++;
		if (!inj) {
			ASSERT_EQ(0, ret);
			break;
		}
	}
	/* FLUSH_ALL with an out-sync makes the join and its inputs' array. */
	ASSERT_LE(2u, injected);
	ksft_print_msg("FLUSH_ALL: %u allocation(s) failed in turn\n",
		       injected);
}

TEST_HARNESS_MAIN
