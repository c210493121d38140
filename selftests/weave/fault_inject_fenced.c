// SPDX-License-Identifier: GPL-2.0
/*
 * weave: allocation failures of one-ioctl fenced submission (uAPI 1.8):
 * ENQUEUE with DRM_WEAVE_ENQUEUE_FLUSH and two out-syncs, swept through
 * fail-nth by fail_nth_run() (fault_inject.h).  A failure before the
 * tasks are queued leaves nothing queued and no syncobj set; one after
 * returns -EINPROGRESS with the tasks queued and the out-syncs unset, and
 * the same call with no tasks submits the rest and sets them.
 */
#include "fault_inject.h"

/* The timeline point the step's second out-sync asks for. */
#define FI_POINT	3

struct fi_fenced {
	uint32_t bin, tl;		/* the step's out-syncs' syncobjs */
	struct drm_weave_sync out[2];
	uint64_t enqueued;		/* the stream's count before the step */
	uint64_t seqno;
	unsigned int inprogress;	/* steps that returned -EINPROGRESS */
};

static void fi_fenced_prepare(struct __test_metadata *_metadata, fi_t *self,
			      struct fi_run *r)
{
	struct fi_fenced *f = r->s;
	struct fi_lane *l = &r->cl.lane[0];

	fi_work_build(self, l, &r->w, 0x20000u * r->n + 1);
	f->bin = weave_test_syncobj(_metadata, r->cl.fd);
	f->tl = weave_test_syncobj(_metadata, r->cl.fd);
	f->out[0] = weave_sync(f->bin, 0);
	f->out[1] = weave_sync(f->tl, FI_POINT);
	f->enqueued = weave_test_squery(_metadata, r->cl.fd,
					l->stream).enqueued;
	f->seqno = 0;
}

/* The raw call, once: drmIoctl() would repeat it on EINTR. */
static int fi_fenced_ioctl(struct fi_run *r, uint32_t ntasks)
{
	struct fi_fenced *f = r->s;
	struct drm_weave_enqueue a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.stream = r->cl.lane[0].stream;
	a.flags = DRM_WEAVE_ENQUEUE_FLUSH;
	a.tasks.ptr = (uintptr_t)r->w.b.task;
	a.tasks.stride = sizeof(r->w.b.task[0]);
	a.tasks.count = ntasks;
	a.out_syncs.ptr = (uintptr_t)f->out;
	a.out_syncs.stride = sizeof(f->out[0]);
	a.out_syncs.count = 2;
	ret = fi_ioctl(r->cl.fd, DRM_IOCTL_WEAVE_ENQUEUE, &a);
	if (!ret || ret == -EINPROGRESS)
		f->seqno = a.seqno;
	return ret;
}

static int fi_fenced_call(fi_t *self, struct fi_run *r)
{
	(void)self;
	return fi_fenced_ioctl(r, r->w.b.n);
}

/* Whether the step's out-syncs have a fence: both or neither. */
static bool fi_fenced_set(struct __test_metadata *_metadata,
			  struct fi_run *r)
{
	struct fi_fenced *f = r->s;
	bool bin = fi_has_fence(r->cl.fd, f->bin, 0);

	EXPECT_EQ(bin, fi_has_fence(r->cl.fd, f->tl, FI_POINT)) {
		TH_LOG("%s, fail-nth %u: one out-sync set, not the other",
		       r->c->what, r->n);
	}
	return bin;
}

static void fi_fenced_after(struct __test_metadata *_metadata, fi_t *self,
			    struct fi_run *r)
{
	struct fi_fenced *f = r->s;
	struct fi_lane *l = &r->cl.lane[0];
	uint64_t want = f->enqueued + r->w.b.n, point = FI_POINT;
	uint64_t now = weave_test_squery(_metadata, r->cl.fd,
					 l->stream).enqueued;
	uint32_t obj = f->tl;

	if (r->ret == -EINPROGRESS) {
		/* Queued, not all submitted: the retry with no tasks. */
		f->inprogress++;
		ASSERT_EQ(want, now);
		ASSERT_EQ(want, f->seqno);
		ASSERT_FALSE(fi_fenced_set(_metadata, r));
		ASSERT_EQ(0, fi_fenced_ioctl(r, 0));
	} else if (r->ret) {
		ASSERT_EQ(-ENOMEM, r->ret) {
			TH_LOG("%s, fail-nth %u: %s", r->c->what, r->n,
			       strerror(-r->ret));
		}
		ASSERT_EQ(f->enqueued, now);
		ASSERT_FALSE(fi_fenced_set(_metadata, r));
		ASSERT_EQ(0, fi_fenced_ioctl(r, r->w.b.n));
	} else {
		ASSERT_EQ(want, now);
	}
	ASSERT_EQ(want, f->seqno);
	ASSERT_TRUE(fi_fenced_set(_metadata, r));
	ASSERT_EQ(0, drmSyncobjWait(r->cl.fd, &f->bin, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	ASSERT_EQ(0, drmSyncobjTimelineWait(r->cl.fd, &obj, &point, 1,
					    weave_timeout_ns(WEAVE_TEST_WAIT_NS),
					    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL,
					    NULL));
	ASSERT_EQ(0, weave_wait_seqno(r->cl.fd, l->stream, want,
				      weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
	fi_work_ran(_metadata, self, r);
	drmSyncobjDestroy(r->cl.fd, f->bin);
	drmSyncobjDestroy(r->cl.fd, f->tl);
	fi_client_ok(_metadata, self, &r->cl);
}

/* The flush fails after the queueing at some step: -EINPROGRESS is real. */
static void fi_fenced_end(struct __test_metadata *_metadata, fi_t *self,
			  struct fi_run *r)
{
	struct fi_fenced *f = r->s;

	(void)self;
	ASSERT_LT(0u, f->inprogress) {
		TH_LOG("%s: no step up to fail-nth %u failed after queueing",
		       r->c->what, r->n);
	}
}

FI_CASE(enqueue_flush, .what = "ENQUEUE with flush and out-syncs",
	.expect = FI_ANY, .uapi_minor = 8, .lanes = 1, .warm = true,
	.size = sizeof(struct fi_fenced), .prepare = fi_fenced_prepare,
	.call = fi_fenced_call, .after = fi_fenced_after,
	.end = fi_fenced_end);

FI_SUMMARY("fault_inject_fenced");

TEST_HARNESS_MAIN
