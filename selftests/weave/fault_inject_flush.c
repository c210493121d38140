// SPDX-License-Identifier: GPL-2.0
/*
 * weave: allocation failures of the calls that submit held work.  FLUSH
 * (one stream, a timeline point, every stream, with dependencies),
 * STREAM_ISOLATE and a close that drops a held job, each swept through
 * fail-nth by fail_nth_run() (fault_inject.h): the table of cases is at
 * the end.
 */
#include "fault_inject.h"

/* --- flush ------------------------------------------------------------------ */

enum fi_flush_kind {
	FI_FLUSH_STREAM,	/* one stream, a binary out-sync */
	FI_FLUSH_TIMELINE,	/* one stream, a timeline point */
	FI_FLUSH_ALL,		/* three streams, interleaved */
	FI_FLUSH_ALL_SEQ,	/* three streams, sequential */
	FI_FLUSH_DEPS,		/* on buffers other work still writes */
};

struct fi_flush {
	struct drm_weave_flush args;
	struct drm_weave_stream_isolate iso;
	struct fi_work w[FI_LANES];
	uint32_t obj, dep_obj;
	uint64_t point;
	unsigned int held, failed;	/* steps that held a job, failed */
};

static bool fi_flush_all(const struct fi_run *r)
{
	return r->c->kind == FI_FLUSH_ALL || r->c->kind == FI_FLUSH_ALL_SEQ;
}

static void fi_flush_begin(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_run *r)
{
	struct fi_flush *f = r->s;

	(void)self;
	if (r->c->kind == FI_FLUSH_ALL_SEQ)
		weave_test_param(_metadata, r->cl.fd, DRM_WEAVE_PARAM_STRATEGY,
				 DRM_WEAVE_STRATEGY_SEQUENTIAL);
	f->obj = weave_test_syncobj(_metadata, r->cl.fd);
	f->dep_obj = weave_test_syncobj(_metadata, r->cl.fd);
}

/*
 * Before a step of FI_FLUSH_DEPS: other work that writes the lane's
 * buffers and is still running, so the flushed job has implicit
 * dependencies, and an in-sync on it.
 */
static void fi_deps_setup(struct __test_metadata *_metadata, fi_t *self,
			  struct fi_client *c, uint32_t obj,
			  struct drm_weave_sync *in)
{
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	weave_test_delay(&b, 20000);
	weave_test_fill_task(&b, c->lane[0].wbo, 2 * self->page, self->page,
			     0x77);
	weave_test_fill_task(&b, c->lane[0].wres, 4, 4, 0x77);
	weave_test_enqueue(_metadata, c->fd, c->stream, &b);
	*in = weave_sync(obj, 0);
	ASSERT_EQ(0, weave_flush(c->fd, c->stream, in));
}

/* A fresh binary syncobj, with no fence yet, or the next timeline point. */
static void fi_flush_out(struct __test_metadata *_metadata, struct fi_run *r,
			 bool timeline)
{
	struct fi_flush *f = r->s;

	if (timeline) {
		f->point++;
	} else {
		ASSERT_EQ(0, drmSyncobjDestroy(r->cl.fd, f->obj));
		f->obj = weave_test_syncobj(_metadata, r->cl.fd);
	}
	memset(&f->args, 0, sizeof(f->args));
	f->args.out_sync = weave_sync(f->obj, f->point);
	r->arg = &f->args;
}

static void fi_flush_prepare(struct __test_metadata *_metadata, fi_t *self,
			     struct fi_run *r)
{
	struct fi_flush *f = r->s;
	struct fi_client *c = &r->cl;
	struct drm_weave_sync in;
	uint32_t i;

	for (i = 0; i < c->nlanes; i++) {
		fi_work_build(self, &c->lane[i], &f->w[i],
			      0x20000u * r->n + 0x100 * r->c->kind + i);
		if (r->c->kind == FI_FLUSH_DEPS) {
			fi_deps_setup(_metadata, self, c, f->dep_obj, &in);
			ASSERT_EQ(0, weave_enqueue(c->fd, c->lane[i].stream,
						   f->w[i].b.task,
						   f->w[i].b.n, &in, 1, NULL));
		} else {
			weave_test_enqueue(_metadata, c->fd, c->lane[i].stream,
					   &f->w[i].b);
		}
	}
	fi_flush_out(_metadata, r, r->c->kind == FI_FLUSH_TIMELINE);
	f->args.stream = fi_flush_all(r) ? 0 : c->lane[0].stream;
	f->args.flags = fi_flush_all(r) ? DRM_WEAVE_FLUSH_ALL : 0;
}

/*
 * The promise of FLUSH: "whenever it returns 0 its work was submitted and
 * the out-sync, if any, was set"; on -ENOMEM "the out-sync is left
 * unchanged" and nothing is lost: the stream has not failed and calling
 * again submits the work, which runs right.
 */
static void fi_flush_after(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_run *r)
{
	struct fi_flush *f = r->s;
	struct fi_client *c = &r->cl;
	const char *what = r->c->what;
	bool lost[FI_LANES] = { false };
	struct drm_weave_stream_query q;
	unsigned int n = r->n;
	uint32_t i;
	int ret;

	for (i = 0; i < c->nlanes; i++) {
		q = weave_test_squery(_metadata, c->fd, c->lane[i].stream);
		/*
		 * A broken promise fails the test; the loop goes on (with a
		 * new stream) to find every step that breaks it.
		 */
		lost[i] = q.error != 0;
		EXPECT_EQ(0, q.error) {
			TH_LOG("%s, fail-nth %u: FLUSH returned %d but stream %u failed with %d; FLUSH promises that 0 means submitted and -ENOMEM means nothing lost",
			       what, n, r->ret, c->lane[i].stream, q.error);
		}
		if (r->ret)
			continue;
		ASSERT_EQ(q.enqueued, q.executed) {
			TH_LOG("%s, fail-nth %u: FLUSH returned 0 with %llu of %llu tasks not submitted",
			       what, n,
			       (unsigned long long)(q.enqueued - q.executed),
			       (unsigned long long)q.enqueued);
		}
	}
	if (r->ret) {
		ASSERT_FALSE(fi_has_fence(c->fd, f->obj, f->point)) {
			TH_LOG("%s, fail-nth %u: FLUSH failed but set its out-sync",
			       what, n);
		}
		/*
		 * Calling again submits everything (a stream failed against
		 * the promise refuses a FLUSH of its own).
		 */
		if (lost[0] && !fi_flush_all(r)) {
			f->args.stream = 0;
			f->args.flags = DRM_WEAVE_FLUSH_ALL;
		}
		ASSERT_EQ(0, fi_ioctl(c->fd, DRM_IOCTL_WEAVE_FLUSH, &f->args));
	}
	ret = drmSyncobjTimelineWait(c->fd, &f->obj, &f->point, 1,
				     weave_timeout_ns(WEAVE_TEST_WAIT_NS),
				     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL);
	ASSERT_EQ(0, ret) {
		TH_LOG("%s, fail-nth %u: the out-sync did not signal", what,
		       n);
	}
	for (i = 0; i < c->nlanes; i++) {
		q = weave_test_squery(_metadata, c->fd, c->lane[i].stream);
		ASSERT_EQ(q.enqueued, q.completed);
		if (lost[i]) {
			fi_lane_renew(_metadata, c, i);
			continue;
		}
		fi_work_check(_metadata, self, &c->lane[i], &f->w[i], what, n);
	}
	fi_client_ok(_metadata, self, c);
}

/*
 * Whether lane 0's flushed work is held: FLUSH failed after its tasks left
 * the slot's ring for a job the kernel could not submit.  Still counted
 * as pending, not yet as executed (handed to a hardware queue).
 */
static bool fi_held(struct __test_metadata *_metadata, struct fi_client *c,
		    int ret)
{
	struct drm_weave_client_usage u;
	struct drm_weave_stream_query q;

	q = weave_test_squery(_metadata, c->fd, c->lane[0].stream);
	u = weave_test_client_usage(_metadata, c->fd);
	return ret == -ENOMEM && !u.queued_tasks && u.pending_tasks &&
	       q.executed < q.enqueued;
}

/* A step's work on lane 0 and a FLUSH of it to a fresh out-sync. */
static void fi_held_prepare(struct __test_metadata *_metadata, fi_t *self,
			    struct fi_run *r)
{
	struct fi_flush *f = r->s;

	fi_work_queue(_metadata, self, r, 0x30000u * r->n);
	fi_flush_out(_metadata, r, false);
	f->args.stream = r->cl.lane[0].stream;
}

/*
 * A held job: a copy of the held fill, on the other stream, is enqueued
 * behind it and flushed after it, in a job of its own stream's: two jobs
 * are pushed, the held one first.
 */
static void fi_held_check(struct __test_metadata *_metadata, fi_t *self,
			  struct fi_run *r)
{
	struct fi_flush *f = r->s;
	struct fi_client *c = &r->cl;
	uint32_t *copy = (uint32_t *)c->lane[1].wmap;
	struct drm_weave_client_usage u0, u1;
	struct drm_weave_stream_query q;
	struct drm_weave_sync out = f->args.out_sync;
	struct weave_test_batch b;
	unsigned int n = r->n;

	f->held++;
	ASSERT_FALSE(fi_has_fence(c->fd, f->obj, 0));
	u0 = weave_test_client_usage(_metadata, c->fd);
	weave_test_batch_init(&b);
	weave_test_copy_task(&b, c->lane[0].wbo, self->page, c->lane[1].wbo,
			     0, self->page);
	weave_test_enqueue(_metadata, c->fd, c->lane[1].stream, &b);
	ASSERT_EQ(0, weave_flush(c->fd, c->lane[1].stream, NULL));
	u1 = weave_test_client_usage(_metadata, c->fd);
	ASSERT_EQ(u0.submitted_jobs + 2, u1.submitted_jobs) {
		TH_LOG("fail-nth %u: the held job and the other stream's were not pushed as two jobs",
		       n);
	}
	q = weave_test_squery(_metadata, c->fd, c->lane[0].stream);
	ASSERT_EQ(q.enqueued, q.executed) {
		TH_LOG("fail-nth %u: a FLUSH of another stream did not submit the held job",
		       n);
	}
	weave_test_wait(_metadata, c->fd, c->lane[1].stream);
	weave_test_wait(_metadata, c->fd, c->lane[0].stream);
	ASSERT_EQ(r->w.seed ^ 0x0f0f0f0fu, copy[0]) {
		TH_LOG("fail-nth %u: the later copy ran before the held fill",
		       n);
	}
	ASSERT_EQ(r->w.seed ^ 0x0f0f0f0fu, copy[self->page / 4 - 1]);
	/* The out-sync is set by the next FLUSH asking. */
	ASSERT_EQ(0, weave_flush(c->fd, c->lane[0].stream, &out));
}

/*
 * The path no other case reaches: FLUSH packs the tasks into a job, then
 * cannot submit it (the scheduler's job, a dependency slot or a
 * reservation slot cannot be allocated).  The job is kept, FLUSH fails
 * with -ENOMEM and leaves the out-sync alone, later tasks of the client
 * join the kept job behind its tasks, and the next FLUSH of any stream
 * submits it all.  Steps where FLUSH returns 0 with a stream failed are
 * the flush cases' business; here they only cost a new stream.
 */
static void fi_held_after(struct __test_metadata *_metadata, fi_t *self,
			  struct fi_run *r)
{
	struct fi_flush *f = r->s;
	struct fi_client *c = &r->cl;
	struct drm_weave_stream_query q;

	q = weave_test_squery(_metadata, c->fd, c->lane[0].stream);
	if (!r->ret && q.error) {
		/* Packing failed; see the flush cases. */
		f->failed++;
		fi_lane_renew(_metadata, c, 0);
		fi_client_ok(_metadata, self, c);
		return;
	}
	ASSERT_EQ(0, q.error);
	if (fi_held(_metadata, c, r->ret))
		fi_held_check(_metadata, self, r);
	else if (r->ret)
		ASSERT_EQ(0, weave_flush(c->fd, c->lane[0].stream,
					 &f->args.out_sync));
	ASSERT_EQ(0, drmSyncobjWait(c->fd, &f->obj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	q = weave_test_squery(_metadata, c->fd, c->lane[0].stream);
	ASSERT_EQ(q.enqueued, q.completed);
	fi_work_ran(_metadata, self, r);
	fi_client_ok(_metadata, self, c);
}

/* Some step held a job: the path was reached. */
static void fi_held_end(struct __test_metadata *_metadata, fi_t *self,
			struct fi_run *r)
{
	struct fi_flush *f = r->s;

	(void)self;
	fi_note("%s: %u step(s) held a job, %u failed a stream instead\n",
		r->c->what, f->held, f->failed);
	ASSERT_LT(0u, f->held) {
		TH_LOG("no step of %s kept a job it could not submit: the held-job path was not reached",
		       r->c->what);
	}
}

/*
 * STREAM_ISOLATE executes the slot as FLUSH does, and fails as FLUSH does:
 * with -ENOMEM, the stream's hold unchanged, when a task could not be
 * packed or the job could not be submitted.  A 0 means all of the slot's
 * work was submitted and the hold taken.
 */
static void fi_isolate_prepare(struct __test_metadata *_metadata, fi_t *self,
			       struct fi_run *r)
{
	struct fi_flush *f = r->s;

	fi_work_queue(_metadata, self, r, 0x50000u * r->n);
	memset(&f->iso, 0, sizeof(f->iso));
	f->iso.handle = r->cl.lane[0].stream;
	f->iso.op = DRM_WEAVE_ISOLATION_ENTER;
	r->arg = &f->iso;
}

static void fi_isolate_after(struct __test_metadata *_metadata, fi_t *self,
			     struct fi_run *r)
{
	struct fi_flush *f = r->s;
	struct fi_client *c = &r->cl;
	uint32_t stream = c->lane[0].stream;
	struct drm_weave_stream_query q;

	q = weave_test_squery(_metadata, c->fd, stream);
	if (q.error) {
		/* Packing failed the stream: see the flush cases. */
		if (!r->ret)
			ASSERT_EQ(0, weave_stream_isolate(c->fd, stream,
							  DRM_WEAVE_ISOLATION_LEAVE));
		fi_lane_renew(_metadata, c, 0);
		fi_client_ok(_metadata, self, c);
		return;
	}
	if (r->ret) {
		f->held += fi_held(_metadata, c, r->ret);
		ASSERT_EQ(0u, q.isolated) {
			TH_LOG("fail-nth %u: ENTER failed, but the slot is isolated",
			       r->n);
		}
		ASSERT_EQ(0, weave_flush(c->fd, stream, NULL));
		ASSERT_EQ(0, weave_stream_isolate(c->fd, stream,
						  DRM_WEAVE_ISOLATION_ENTER));
	} else {
		ASSERT_EQ(q.enqueued, q.executed) {
			TH_LOG("fail-nth %u: ENTER returned 0 with %llu of %llu tasks not submitted",
			       r->n,
			       (unsigned long long)(q.enqueued - q.executed),
			       (unsigned long long)q.enqueued);
		}
	}
	ASSERT_NE(0u, weave_test_squery(_metadata, c->fd, stream).isolated);
	ASSERT_EQ(0, weave_stream_isolate(c->fd, stream,
					  DRM_WEAVE_ISOLATION_LEAVE));
	weave_test_wait(_metadata, c->fd, stream);
	q = weave_test_squery(_metadata, c->fd, stream);
	ASSERT_EQ(q.enqueued, q.completed);
	fi_work_ran(_metadata, self, r);
	fi_client_ok(_metadata, self, c);
}

/*
 * A client closed while it holds a job that FLUSH could not submit: the
 * job is dropped with everything it holds.  Each step is a new client,
 * brought to the state the held FLUSH case steps from (its lane's backend
 * stream made, its buffers' reservations grown by finished work), so
 * that the steps that hold a job are the same ones.  A client's very
 * first FLUSH was no good here: on the debug kernel, one run in several
 * reached no held step through it.
 */
static void fi_close_held_prepare(struct __test_metadata *_metadata,
				  fi_t *self, struct fi_run *r)
{
	struct fi_flush *f = r->s;
	struct fi_client *c = &r->cl;

	fi_client_open(_metadata, self, c, -1, 1);
	fi_client_round(_metadata, self, c);
	/* The lane's first work, unarmed, as the held FLUSH case's. */
	fi_work_queue(_metadata, self, r, 0x50000u * r->n);
	fi_finish(_metadata, c->fd, c->lane[0].stream);
	fi_work_ran(_metadata, self, r);
	fi_work_queue(_metadata, self, r, 0x40000u * r->n);
	memset(&f->args, 0, sizeof(f->args));
	f->args.stream = c->lane[0].stream;
	r->fd = c->fd;
	r->arg = &f->args;
}

static void fi_close_held_after(struct __test_metadata *_metadata,
				fi_t *self, struct fi_run *r)
{
	bool held = fi_held(_metadata, &r->cl, r->ret);

	fi_client_close(_metadata, self, &r->cl);
	fi_settled(_metadata, self);
	if (held) {
		fi_note("%s: closed a client holding a job at fail-nth %u\n",
			r->c->what, r->n);
		r->stop = true;
		return;
	}
	ASSERT_TRUE(r->injected) {
		TH_LOG("no step of a warm client's FLUSH, up to fail-nth %u, kept a job it could not submit",
		       r->n);
	}
}

/* --- the table ------------------------------------------------------------ */

#define FI_FLUSH(name, k, nlanes, w)					\
	FI_CASE(name, .what = w, .kind = k, .lanes = nlanes,		\
		.warm = true, .size = sizeof(struct fi_flush),		\
		.begin = fi_flush_begin, .prepare = fi_flush_prepare,	\
		.request = DRM_IOCTL_WEAVE_FLUSH, .after = fi_flush_after)

FI_FLUSH(flush_stream, FI_FLUSH_STREAM, 1, "FLUSH");
FI_FLUSH(flush_timeline, FI_FLUSH_TIMELINE, 1, "FLUSH to a timeline point");
FI_FLUSH(flush_all, FI_FLUSH_ALL, 3, "FLUSH_ALL");
FI_FLUSH(flush_all_sequential, FI_FLUSH_ALL_SEQ, 3,
	 "FLUSH_ALL, sequential");
FI_FLUSH(flush_deps, FI_FLUSH_DEPS, 1, "FLUSH with dependencies");

FI_CASE(flush_held, .what = "FLUSH, held", .lanes = 2, .warm = true,
	.size = sizeof(struct fi_flush), .begin = fi_flush_begin,
	.prepare = fi_held_prepare, .request = DRM_IOCTL_WEAVE_FLUSH,
	.after = fi_held_after, .end = fi_held_end);
FI_CASE(isolate_held, .what = "STREAM_ISOLATE", .lanes = 2, .warm = true,
	.size = sizeof(struct fi_flush), .prepare = fi_isolate_prepare,
	.request = DRM_IOCTL_WEAVE_STREAM_ISOLATE, .after = fi_isolate_after,
	.end = fi_held_end);
FI_CASE(close_held, .what = "FLUSH, then close",
	.size = sizeof(struct fi_flush), .prepare = fi_close_held_prepare,
	.request = DRM_IOCTL_WEAVE_FLUSH, .after = fi_close_held_after);

FI_SUMMARY("fault_inject_flush");

TEST_HARNESS_MAIN
