// SPDX-License-Identifier: GPL-2.0
/*
 * weave: allocation failures of graph capture (uAPI 1.5).  CAPTURE
 * PREPARE, BEGIN, END and ABORT, ENQUEUE while a window records, REPLAY
 * and GRAPH_DESTROY, each swept through fail-nth by fail_nth_run()
 * (fault_inject.h): the table of cases is at the end.
 */
#include "fault_inject.h"

/*
 * The launches a graph of lane @l records: fill page 1 with @pattern, copy
 * it to page 2, the crc32c of page 0 into the result, and two no-ops.  Five
 * tasks: with FI_MAX_TASKS, a replay executes the slot within the call (at
 * its fourth task) and once more as it flushes.
 */
#define FI_GRAPH_TASKS	5u

/* The state of a capture case's sweep. */
struct fi_cap {
	struct drm_weave_capture a;
	uint64_t enqueued;	/* by the stream before the call */
	struct weave_test_batch b;
	struct fi_syncs syncs;
	uint32_t graph, obj, bo, pattern;
	uint64_t seqno;
	struct drm_weave_memory_usage u0;
	struct weave_test_report r;
	unsigned int inprogress;	/* REPLAYs that returned -EINPROGRESS */
	bool isolated;
};

/* CAPTURE @op of @stream, its out fields into @a. */
static int fi_capture(int fd, uint32_t stream, uint32_t op,
		      struct drm_weave_capture *a)
{
	memset(a, 0, sizeof(*a));
	a->stream = stream;
	a->op = op;
	return fi_ioctl(fd, DRM_IOCTL_WEAVE_CAPTURE, a);
}

/* CAPTURE @op of lane 0 of @r's client must succeed. */
static void fi_cap_op(struct __test_metadata *_metadata, struct fi_run *r,
		      uint32_t op)
{
	struct fi_cap *s = r->s;

	ASSERT_EQ(0, fi_capture(r->cl.fd, r->cl.lane[0].stream, op, &s->a));
}

/*
 * The window of lane 0's slot of @r's client is in @state, owned by that
 * lane's stream unless there is none, and holds @ntasks recorded tasks.
 */
static void fi_window_is(struct __test_metadata *_metadata, struct fi_run *r,
			 uint32_t state, uint32_t ntasks)
{
	uint32_t stream = r->cl.lane[0].stream;
	const char *what = r->c->what;
	struct drm_weave_capture q;

	ASSERT_EQ(0, fi_capture(r->cl.fd, stream, DRM_WEAVE_CAPTURE_QUERY,
				&q));
	ASSERT_EQ(state, q.state) {
		TH_LOG("%s, fail-nth %u: the window is in state %u, not %u",
		       what, r->n, q.state, state);
	}
	ASSERT_EQ(state ? stream : 0, q.owner);
	ASSERT_EQ(ntasks, q.ntasks) {
		TH_LOG("%s, fail-nth %u: the window recorded %u tasks, not %u",
		       what, r->n, q.ntasks, ntasks);
	}
	ASSERT_EQ(0, q.error) {
		TH_LOG("%s, fail-nth %u: the window is doomed (%d)", what,
		       r->n, q.error);
	}
}

static int fi_replay_graph(int fd, uint32_t graph, uint32_t stream,
			   const struct drm_weave_sync *in, uint32_t nin,
			   uint32_t out_obj, uint64_t *seqno)
{
	struct drm_weave_replay args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.graph = graph;
	args.stream = stream;
	args.in_syncs.ptr = (uintptr_t)in;
	args.in_syncs.stride = sizeof(*in);
	args.in_syncs.count = nin;
	args.out_sync = weave_sync(out_obj, 0);
	ret = fi_ioctl(fd, DRM_IOCTL_WEAVE_REPLAY, &args);
	if (seqno)
		*seqno = args.seqno;
	return ret;
}

static int fi_destroy_graph(int fd, uint32_t graph)
{
	struct drm_weave_graph_destroy args = { .graph = graph };

	return fi_ioctl(fd, DRM_IOCTL_WEAVE_GRAPH_DESTROY, &args);
}

/* Records lane 0's graph batch while its window records, unarmed. */
static void fi_graph_record_batch(struct __test_metadata *_metadata,
				  fi_t *self, struct fi_run *r,
				  uint32_t pattern)
{
	struct fi_lane *l = &r->cl.lane[0];
	struct drm_weave_stream_query q0, q1;
	struct weave_test_batch b;

	q0 = weave_test_squery(_metadata, r->cl.fd, l->stream);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, l->wbo, self->page, self->page, pattern);
	weave_test_copy_task(&b, l->wbo, self->page, l->wbo, 2 * self->page,
			     self->page);
	weave_test_crc_task(&b, l->wbo, 0, self->page, l->wres, 0);
	weave_test_noop(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, r->cl.fd, l->stream, &b);
	/* Recorded, not queued: no task of the stream's. */
	q1 = weave_test_squery(_metadata, r->cl.fd, l->stream);
	ASSERT_EQ(q0.enqueued, q1.enqueued);
}

/*
 * The inputs of lane @l's graph, written by the CPU while the lane is
 * idle: the first FI_WRITE bytes of page 0 from @seed, as a step's host
 * write (fi_work_build()) would be, the rest of pages 0 to 2 and the
 * result zero.
 */
static void fi_graph_inputs(fi_t *self, struct fi_lane *l, uint32_t seed)
{
	weave_test_fill(l->wmap, FI_WRITE, seed);
	memset(l->wmap + FI_WRITE, 0, 3 * self->page - FI_WRITE);
	l->rmap[0] = 0;
}

/* Lane 0 holds what its graph makes of the inputs (once it has run). */
static void fi_graph_check(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_run *r, uint32_t pattern)
{
	struct fi_lane *l = &r->cl.lane[0];
	uint32_t *words = (uint32_t *)l->wmap;
	size_t i, w = self->page / 4;

	for (i = 0; i < w; i++) {
		ASSERT_EQ(pattern, words[w + i]) {
			TH_LOG("%s, fail-nth %u: the graph's fill is not in the buffer (word %zu)",
			       r->c->what, r->n, i);
		}
		ASSERT_EQ(pattern, words[2 * w + i]) {
			TH_LOG("%s, fail-nth %u: the graph's copy is not in the buffer (word %zu)",
			       r->c->what, r->n, i);
		}
	}
	ASSERT_EQ(weave_test_crc32c(l->wmap, self->page), l->rmap[0]) {
		TH_LOG("%s, fail-nth %u: the graph's crc32c is wrong",
		       r->c->what, r->n);
	}
}

/* Replays @graph on lane 0 unarmed, and checks what it made. */
static void fi_graph_run(struct __test_metadata *_metadata, fi_t *self,
			 struct fi_run *r, uint32_t graph, uint32_t pattern)
{
	struct fi_lane *l = &r->cl.lane[0];
	uint32_t obj = weave_test_syncobj(_metadata, r->cl.fd);

	weave_test_client_idle(_metadata, r->cl.fd);
	fi_graph_inputs(self, l, r->n);
	ASSERT_EQ(0, fi_replay_graph(r->cl.fd, graph, l->stream, NULL, 0, obj,
				     NULL));
	ASSERT_EQ(0, drmSyncobjWait(r->cl.fd, &obj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	fi_graph_check(_metadata, self, r, pattern);
	ASSERT_EQ(0, drmSyncobjDestroy(r->cl.fd, obj));
}

/* The call of the capture cases: CAPTURE of the op the case's kind names. */
static int fi_cap_call(fi_t *self, struct fi_run *r)
{
	struct fi_cap *s = r->s;

	(void)self;
	return fi_capture(r->cl.fd, r->cl.lane[0].stream, r->c->kind, &s->a);
}

/*
 * PREPARE executes the slot's queued work before it isolates the slot.
 * Out of memory it fails with -ENOMEM and "nothing changed": no window,
 * no stream failed, the work still runs right.
 */
static void fi_prepare_prepare(struct __test_metadata *_metadata, fi_t *self,
			       struct fi_run *r)
{
	fi_work_queue(_metadata, self, r, 0x60000u * r->n);
}

static void fi_prepare_after(struct __test_metadata *_metadata, fi_t *self,
			     struct fi_run *r)
{
	struct drm_weave_stream_query q;
	int fd = r->cl.fd;
	uint32_t stream = r->cl.lane[0].stream;

	fi_window_is(_metadata, r, r->ret ? DRM_WEAVE_CAPTURE_NONE :
			DRM_WEAVE_CAPTURE_PREPARED, 0);
	q = weave_test_squery(_metadata, fd, stream);
	ASSERT_EQ(0, q.error);
	ASSERT_EQ(r->ret ? 0u : 1u, q.isolated);
	/* A warm-up runs as usual. */
	fi_finish(_metadata, fd, stream);
	fi_work_ran(_metadata, self, r);
	fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_ABORT);
	ASSERT_EQ(0u, weave_test_squery(_metadata, fd, stream).isolated);
	fi_client_ok(_metadata, self, &r->cl);
}

/*
 * BEGIN submits the warm-up queued on the slot, then records.  Out of
 * memory, the window stays prepared and nothing is lost: BEGIN again
 * records, the warm-up ran right, and the graph sealed then runs right.
 */
static void fi_begin_prepare(struct __test_metadata *_metadata, fi_t *self,
			     struct fi_run *r)
{
	fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_PREPARE);
	fi_work_queue(_metadata, self, r, 0x70000u * r->n);
}

static void fi_begin_after(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_run *r)
{
	uint32_t pattern = 0xb0000000u | r->n, graph;
	struct fi_cap *s = r->s;

	fi_window_is(_metadata, r, r->ret ? DRM_WEAVE_CAPTURE_PREPARED :
			DRM_WEAVE_CAPTURE_RECORDING, 0);
	ASSERT_EQ(0, weave_test_squery(_metadata, r->cl.fd,
				       r->cl.lane[0].stream).error);
	if (r->ret)
		fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_BEGIN);
	fi_graph_record_batch(_metadata, self, r, pattern);
	fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_END);
	ASSERT_EQ(FI_GRAPH_TASKS, s->a.ntasks);
	graph = s->a.graph;
	fi_window_is(_metadata, r, DRM_WEAVE_CAPTURE_NONE, 0);

	fi_finish(_metadata, r->cl.fd, r->cl.lane[0].stream);
	fi_work_ran(_metadata, self, r);
	fi_graph_run(_metadata, self, r, graph, pattern);
	ASSERT_EQ(0, fi_destroy_graph(r->cl.fd, graph));
	fi_client_ok(_metadata, self, &r->cl);
}

/*
 * END seals the recording into a graph: a new client each step, so that
 * its first graph handle is allocated within the call.  Out of memory,
 * the window goes on recording what it holds, and END again seals it.
 */
static void fi_end_prepare(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_run *r)
{
	fi_client_open(_metadata, self, &r->cl, -1, 1);
	fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_PREPARE);
	fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_BEGIN);
	fi_graph_record_batch(_metadata, self, r, 0xe0000000u | r->n);
}

static void fi_end_after(struct __test_metadata *_metadata, fi_t *self,
			 struct fi_run *r)
{
	struct fi_cap *s = r->s;

	if (r->ret) {
		ASSERT_EQ(0u, s->a.graph);
		fi_window_is(_metadata, r, DRM_WEAVE_CAPTURE_RECORDING,
			     FI_GRAPH_TASKS);
		fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_END);
	}
	ASSERT_NE(0u, s->a.graph);
	ASSERT_EQ(FI_GRAPH_TASKS, s->a.ntasks);
	fi_window_is(_metadata, r, DRM_WEAVE_CAPTURE_NONE, 0);
	ASSERT_EQ(0u, weave_test_squery(_metadata, r->cl.fd,
					r->cl.lane[0].stream).isolated);
	fi_graph_run(_metadata, self, r, s->a.graph, 0xe0000000u | r->n);
	fi_client_ok(_metadata, self, &r->cl);
	/* Its graph goes with the file. */
	fi_client_close(_metadata, self, &r->cl);
	fi_settled(_metadata, self);
}

/*
 * ABORT closes the window whatever its state (the case's kind: 1 for a
 * recording window), and gives back its hold of the slot's isolation,
 * which executes the slot: of a prepared window with a warm-up queued,
 * and of a recording one.  Nothing is lost: the warm-up runs right, the
 * recording is freed (kmemleak).
 */
static void fi_abort_prepare(struct __test_metadata *_metadata, fi_t *self,
			     struct fi_run *r)
{
	int recording = r->c->kind;

	fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_PREPARE);
	fi_work_queue(_metadata, self, r, 0x90000u * r->n + recording);
	if (recording) {
		fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_BEGIN);
		fi_graph_record_batch(_metadata, self, r, r->n);
	}
}

static int fi_abort_call(fi_t *self, struct fi_run *r)
{
	struct fi_cap *s = r->s;

	(void)self;
	return fi_capture(r->cl.fd, r->cl.lane[0].stream,
			  DRM_WEAVE_CAPTURE_ABORT, &s->a);
}

static void fi_abort_after(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_run *r)
{
	int recording = r->c->kind;
	struct fi_cap *s = r->s;
	int fd = r->cl.fd;
	uint32_t stream = r->cl.lane[0].stream;

	if (r->ret) {
		/* Nothing changed. */
		fi_window_is(_metadata, r, recording ?
			     DRM_WEAVE_CAPTURE_RECORDING :
			     DRM_WEAVE_CAPTURE_PREPARED,
			     recording ? FI_GRAPH_TASKS : 0);
		fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_ABORT);
	}
	fi_window_is(_metadata, r, DRM_WEAVE_CAPTURE_NONE, 0);
	ASSERT_EQ(0, weave_test_squery(_metadata, fd, stream).error);
	fi_finish(_metadata, fd, stream);
	fi_work_ran(_metadata, self, r);
	/*
	 * If executing the slot fails as the window gives back its hold of
	 * the slot's isolation, the slot keeps it until the file is closed
	 * (see weave_core_capture_close()).
	 */
	if (!s->isolated &&
	    weave_test_squery(_metadata, fd, stream).isolated) {
		s->isolated = true;
		fi_note("%s, fail-nth %u: the window closed, but the slot stays isolated\n",
			r->c->what, r->n);
	}
	fi_client_ok(_metadata, self, &r->cl);
}

/*
 * ENQUEUE of a stream that records its window: its launches go to the
 * recording, its host writes (kind 1) are queued, refused (they do not
 * run), and doom the window.  A new client each step, so that the
 * recording's task array and the slot's ring (the slot's first task is
 * the host write) are allocated within the call.  Out of memory, nothing
 * was queued, and nothing recorded: the window holds no task and is not
 * doomed.
 */
static void fi_recording_prepare(struct __test_metadata *_metadata,
				 fi_t *self, struct fi_run *r)
{
	static uint8_t bytes[FI_WRITE];
	struct fi_cap *s = r->s;
	struct fi_lane *l;

	memset(bytes, 0x4d, sizeof(bytes));
	fi_client_open(_metadata, self, &r->cl, -1, 1);
	l = &r->cl.lane[0];
	fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_PREPARE);
	fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_BEGIN);
	weave_test_batch_init(&s->b);
	weave_test_fill_task(&s->b, l->wbo, self->page, self->page, r->n);
	if (r->c->kind)
		weave_test_write_task(&s->b, l->wbo, 0, sizeof(bytes), bytes);
	weave_test_noop(&s->b);
	s->enqueued = weave_test_squery(_metadata, r->cl.fd,
					l->stream).enqueued;
}

static int fi_recording_call(fi_t *self, struct fi_run *r)
{
	struct fi_cap *s = r->s;

	(void)self;
	return fi_enqueue_raw(r->cl.fd, r->cl.lane[0].stream, s->b.task,
			      s->b.n, NULL, 0, NULL);
}

static void fi_recording_after(struct __test_metadata *_metadata, fi_t *self,
			       struct fi_run *r)
{
	struct fi_cap *s = r->s;
	const char *what = r->c->what;
	uint64_t enqueued;

	enqueued = weave_test_squery(_metadata, r->cl.fd,
				     r->cl.lane[0].stream).enqueued;
	fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_QUERY);
	ASSERT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, s->a.state);
	if (r->ret) {
		ASSERT_EQ(s->enqueued, enqueued);
		ASSERT_EQ(0u, s->a.ntasks) {
			TH_LOG("%s, fail-nth %u: ENQUEUE failed, but its launches were recorded",
			       what, r->n);
		}
		ASSERT_EQ(0, s->a.error) {
			TH_LOG("%s, fail-nth %u: ENQUEUE failed, but its host write doomed the window (%d)",
			       what, r->n, s->a.error);
		}
	} else {
		ASSERT_EQ(s->enqueued + r->c->kind, enqueued);
		ASSERT_EQ(2u, s->a.ntasks);
		/* A host write dooms it. */
		if (r->c->kind) {
			ASSERT_GT(0, s->a.error);
		} else {
			ASSERT_EQ(0, s->a.error);
		}
	}
	fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_ABORT);
	fi_finish(_metadata, r->cl.fd, r->cl.lane[0].stream);
	fi_client_ok(_metadata, self, &r->cl);
	fi_client_close(_metadata, self, &r->cl);
	fi_settled(_metadata, self);
}

/* --- replay ---------------------------------------------------------------- */

/* The pattern of the graph the replay cases replay. */
#define FI_REPLAY_PATTERN	0x5e5e0001u

/*
 * Whether a range that lane 0's graph writes carries a failure: then each
 * that does carries one, -ENOMEM of cause ENCODE, a task of the replay
 * that an execution within the call had no memory to pack (uAPI 1.4), or
 * a later task's skip of what it should have written.
 */
static bool fi_graph_encoded(struct __test_metadata *_metadata, fi_t *self,
			     struct fi_run *r)
{
	struct fi_lane *l = &r->cl.lane[0];
	const struct drm_weave_binding range[] = {
		weave_binding(l->wbo, DRM_WEAVE_ACCESS_WRITE, self->page,
			      self->page),
		weave_binding(l->wbo, DRM_WEAVE_ACCESS_WRITE, 2 * self->page,
			      self->page),
		weave_binding(l->wres, DRM_WEAVE_ACCESS_WRITE, 0, 4),
	};
	struct weave_test_report *rep = &((struct fi_cap *)r->s)->r;
	bool encoded = false;
	uint32_t i, nf;

	for (i = 0; i < sizeof(range) / sizeof(range[0]); i++) {
		nf = weave_test_report(_metadata, r->cl.fd, range[i].handle,
				       range[i].offset, range[i].size, rep);
		ASSERT_GE(1u, nf) {
			TH_LOG("%s, fail-nth %u: the graph's range %u carries %u failures",
			       r->c->what, r->n, i, nf);
		}
		if (!nf)
			continue;
		ASSERT_EQ(-ENOMEM, rep->failure[0].error) {
			weave_test_log_failure(_metadata, rep, 0);
		}
		ASSERT_EQ((uint32_t)DRM_WEAVE_FAILURE_ENCODE,
			  rep->failure[0].cause);
		encoded = true;
	}
	return encoded;
}

/* A graph of lane 0's batch, made unarmed. */
static void fi_replay_begin(struct __test_metadata *_metadata, fi_t *self,
			    struct fi_run *r)
{
	struct fi_cap *s = r->s;

	fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_PREPARE);
	fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_BEGIN);
	fi_graph_record_batch(_metadata, self, r, FI_REPLAY_PATTERN);
	fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_END);
	ASSERT_EQ(FI_GRAPH_TASKS, s->a.ntasks);
	ASSERT_NE(0u, s->a.graph);
	s->graph = s->a.graph;
}

static void fi_replay_prepare(struct __test_metadata *_metadata, fi_t *self,
			      struct fi_run *r)
{
	struct fi_cap *s = r->s;

	/* Kind 0: no in-sync; 1: signalled ones; 2: pending ones. */
	if (r->c->kind)
		fi_in_syncs(_metadata, &r->cl, &self->main, r->c->kind == 2,
			    &s->syncs);
	s->obj = weave_test_syncobj(_metadata, r->cl.fd);
	weave_test_client_idle(_metadata, r->cl.fd);
	fi_graph_inputs(self, &r->cl.lane[0], 0x80000u * r->n + r->c->kind);
	s->enqueued = weave_test_squery(_metadata, r->cl.fd,
					r->cl.lane[0].stream).enqueued;
}

static int fi_replay_call(fi_t *self, struct fi_run *r)
{
	struct fi_cap *s = r->s;

	(void)self;
	return fi_replay_graph(r->cl.fd, s->graph, r->cl.lane[0].stream,
			       s->syncs.in, s->syncs.nin, s->obj, &s->seqno);
}

/*
 * After a REPLAY whose stream failed, the last resort of an execution
 * within the call that cannot pack a task (see &enum
 * drm_weave_stream_state): with the graph's tasks queued (-EINPROGRESS,
 * uAPI 1.9), the threshold's execution failed the stream (-ENOMEM) and the
 * FLUSH part refused it; or, with -ECANCELED, an execution that cleared
 * the way failed it first and nothing was queued.  The out-sync is left
 * alone either way.  FLUSH_ALL submits what is left, every task is
 * accounted for, and the graph runs right on a new stream.
 */
static void fi_replay_canceled(struct __test_metadata *_metadata, fi_t *self,
			       struct fi_run *r, struct drm_weave_stream_query q)
{
	struct fi_cap *s = r->s;
	struct fi_client *c = &r->cl;

	ASSERT_EQ(-ENOMEM, q.error) {
		TH_LOG("%s, fail-nth %u: returned %d, but the stream %s",
		       r->c->what, r->n, r->ret,
		       q.error ? "failed otherwise" : "did not fail");
	}
	ASSERT_FALSE(fi_has_fence(c->fd, s->obj, 0));
	ASSERT_EQ(0, weave_flush_all(c->fd, NULL));
	weave_test_client_idle(_metadata, c->fd);
	q = weave_test_squery(_metadata, c->fd, c->lane[0].stream);
	ASSERT_EQ(q.enqueued, q.executed);
	ASSERT_EQ(q.enqueued, q.completed);
	fi_lane_renew(_metadata, c, 0);
	fi_note("%s, fail-nth %u: stream failed with -ENOMEM (documented)\n",
		r->c->what, r->n);
	fi_graph_run(_metadata, self, r, s->graph, FI_REPLAY_PATTERN);
}

/*
 * After a REPLAY that returned 0, -ENOMEM or -EINPROGRESS on a stream that
 * did not fail: done; or nothing queued (REPLAY again); or queued and not
 * all submitted, the out-sync left alone (FLUSH submits the rest).  Then
 * the graph's work is right; or, a failure injected, a task of the replay
 * the kernel had no memory to pack tainted what it writes, and the next
 * good replay makes it all good again.
 */
static void fi_replay_done(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_run *r)
{
	struct fi_cap *s = r->s;
	struct fi_client *c = &r->cl;
	uint32_t stream = c->lane[0].stream;
	struct drm_weave_stream_query q;
	struct drm_weave_flush f;

	if (r->ret == -ENOMEM) {
		ASSERT_FALSE(fi_has_fence(c->fd, s->obj, 0));
		ASSERT_EQ(0, fi_replay_graph(c->fd, s->graph, stream,
					     s->syncs.in, s->syncs.nin, s->obj,
					     NULL));
	} else if (r->ret == -EINPROGRESS) {
		s->inprogress++;
		ASSERT_FALSE(fi_has_fence(c->fd, s->obj, 0)) {
			TH_LOG("%s, fail-nth %u: REPLAY failed but set its out-sync",
			       r->c->what, r->n);
		}
		memset(&f, 0, sizeof(f));
		f.stream = stream;
		f.out_sync = weave_sync(s->obj, 0);
		ASSERT_EQ(0, fi_ioctl(c->fd, DRM_IOCTL_WEAVE_FLUSH, &f));
		fi_note("%s, fail-nth %u: queued, not all submitted; FLUSH submitted the rest\n",
			r->c->what, r->n);
	}
	ASSERT_EQ(0, drmSyncobjWait(c->fd, &s->obj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL)) {
		TH_LOG("%s, fail-nth %u: the out-sync did not signal",
		       r->c->what, r->n);
	}
	q = weave_test_squery(_metadata, c->fd, stream);
	ASSERT_EQ(s->enqueued + FI_GRAPH_TASKS, q.enqueued) {
		TH_LOG("%s, fail-nth %u: the graph was queued %s",
		       r->c->what, r->n,
		       q.enqueued > s->enqueued + FI_GRAPH_TASKS ?
		       "twice" : "not at all");
	}
	ASSERT_EQ(q.enqueued, q.completed);
	if (fi_graph_encoded(_metadata, self, r)) {
		ASSERT_TRUE(r->injected);
		fi_note("%s, fail-nth %u: a task the kernel could not pack tainted what it writes (documented)\n",
			r->c->what, r->n);
		fi_graph_run(_metadata, self, r, s->graph, FI_REPLAY_PATTERN);
		ASSERT_FALSE(fi_graph_encoded(_metadata, self, r));
		return;
	}
	fi_graph_check(_metadata, self, r, FI_REPLAY_PATTERN);
}

/*
 * REPLAY is an ENQUEUE of the graph's tasks and a FLUSH: out of memory it
 * queued nothing (-ENOMEM), or queued everything and did not submit all
 * of it (-EINPROGRESS, uAPI 1.9: its seqno written, the out-sync not set,
 * and FLUSH submits the rest).  A task that an execution within the call
 * cannot pack does not run and taints what it should have written
 * (-ENOMEM, cause ENCODE), which the next good replay makes good; only as
 * the last resort does it fail the stream (-ENOMEM).
 */
static void fi_replay_after(struct __test_metadata *_metadata, fi_t *self,
			    struct fi_run *r)
{
	struct fi_cap *s = r->s;
	struct drm_weave_stream_query q;
	bool queued = !r->ret || r->ret == -EINPROGRESS;

	if (r->ret != -ECANCELED && r->ret != -EINPROGRESS)
		weave_test_ok_or_enomem(_metadata, r->c->what, r->n, r->ret);
	q = weave_test_squery(_metadata, r->cl.fd, r->cl.lane[0].stream);
	ASSERT_EQ(s->enqueued + (queued ? FI_GRAPH_TASKS : 0), q.enqueued) {
		TH_LOG("%s, fail-nth %u: returned %d, and the stream queued %llu tasks",
		       r->c->what, r->n, r->ret,
		       (unsigned long long)(q.enqueued - s->enqueued));
	}
	if (queued)
		ASSERT_EQ(q.enqueued, s->seqno);
	if (r->ret == -ECANCELED || q.error)
		fi_replay_canceled(_metadata, self, r, q);
	else
		fi_replay_done(_metadata, self, r);
	ASSERT_EQ(0, drmSyncobjDestroy(r->cl.fd, s->obj));
	fi_syncs_put(_metadata, r->cl.fd, &s->syncs);
	fi_client_ok(_metadata, self, &r->cl);
}

/*
 * A plain REPLAY's flush fails after the queueing at some step, so that
 * its -EINPROGRESS is real.
 */
static void fi_replay_end(struct __test_metadata *_metadata, fi_t *self,
			  struct fi_run *r)
{
	struct fi_cap *s = r->s;

	(void)self;
	ASSERT_EQ(0, fi_destroy_graph(r->cl.fd, s->graph));
	if (!r->c->kind) {
		ASSERT_LT(0u, s->inprogress) {
			TH_LOG("%s: no step up to fail-nth %u failed after queueing",
			       r->c->what, r->n);
		}
	}
}

/*
 * GRAPH_DESTROY documents no -ENOMEM: it succeeds at every step, and drops
 * the graph's hold of its buffers: a buffer only the graph held is freed,
 * once the replay in flight (kind 1), which keeps its own, is done.
 */
static void fi_gdestroy_begin(struct __test_metadata *_metadata, fi_t *self,
			      struct fi_run *r)
{
	struct fi_cap *s = r->s;

	(void)self;
	s->obj = weave_test_syncobj(_metadata, r->cl.fd);
}

static void fi_gdestroy_prepare(struct __test_metadata *_metadata,
				fi_t *self, struct fi_run *r)
{
	struct fi_cap *s = r->s;
	int fd = r->cl.fd;
	struct weave_test_batch b;

	s->u0 = weave_test_usage(_metadata, fd);
	s->bo = weave_test_bo(_metadata, fd, self->page, 0);
	fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_PREPARE);
	fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_BEGIN);
	weave_test_batch_init(&b);
	if (r->c->kind)
		weave_test_delay(&b, 20000);
	weave_test_fill_task(&b, s->bo, 0, self->page, r->n);
	weave_test_enqueue(_metadata, fd, r->cl.lane[0].stream, &b);
	fi_cap_op(_metadata, r, DRM_WEAVE_CAPTURE_END);
	s->graph = s->a.graph;
	if (r->c->kind)
		ASSERT_EQ(0, fi_replay_graph(fd, s->graph,
					     r->cl.lane[0].stream, NULL, 0,
					     s->obj, NULL));
	weave_test_close_bo(_metadata, fd, s->bo);
	/* The graph holds the buffer. */
	ASSERT_EQ(s->u0.live_bos + 1, weave_test_usage(_metadata,
						       fd).live_bos);
}

static int fi_gdestroy_call(fi_t *self, struct fi_run *r)
{
	struct fi_cap *s = r->s;

	(void)self;
	return fi_destroy_graph(r->cl.fd, s->graph);
}

static void fi_gdestroy_after(struct __test_metadata *_metadata, fi_t *self,
			      struct fi_run *r)
{
	struct fi_cap *s = r->s;
	int fd = r->cl.fd;
	struct drm_weave_memory_usage u1;
	int64_t deadline;

	ASSERT_EQ(-ENOENT, fi_destroy_graph(fd, s->graph));
	ASSERT_EQ(-ENOENT, fi_replay_graph(fd, s->graph, r->cl.lane[0].stream,
					   NULL, 0, 0, NULL));
	if (r->c->kind)
		ASSERT_EQ(0, drmSyncobjWait(fd, &s->obj, 1,
					    weave_timeout_ns(WEAVE_TEST_WAIT_NS),
					    0, NULL));
	/* Nothing holds the buffer now. */
	deadline = weave_test_now() + WEAVE_TEST_WAIT_NS;
	for (;;) {
		u1 = weave_test_usage(_metadata, fd);
		if (u1.live_bos == s->u0.live_bos ||
		    weave_test_now() > deadline)
			break;
		usleep(2000);
	}
	ASSERT_EQ(s->u0.live_bos, u1.live_bos) {
		TH_LOG("%s at fail-nth %u: the graph's buffer outlived it",
		       r->c->what, r->n);
	}
	ASSERT_EQ(s->u0.live_bytes, u1.live_bytes);
	fi_client_ok(_metadata, self, &r->cl);
}

/* --- the table ------------------------------------------------------------ */

#define FI_GRAPH(name, w, ...)						\
	FI_CASE(name, .what = w, .uapi_minor = 5,			\
		.size = sizeof(struct fi_cap), __VA_ARGS__)

FI_GRAPH(capture_prepare, "CAPTURE PREPARE", .lanes = 1, .warm = true,
	 .kind = DRM_WEAVE_CAPTURE_PREPARE, .prepare = fi_prepare_prepare,
	 .call = fi_cap_call, .after = fi_prepare_after);
FI_GRAPH(capture_begin, "CAPTURE BEGIN", .lanes = 1, .warm = true,
	 .kind = DRM_WEAVE_CAPTURE_BEGIN, .prepare = fi_begin_prepare,
	 .call = fi_cap_call, .after = fi_begin_after);
FI_GRAPH(capture_end, "CAPTURE END", .kind = DRM_WEAVE_CAPTURE_END,
	 .prepare = fi_end_prepare, .call = fi_cap_call,
	 .after = fi_end_after);
FI_GRAPH(capture_abort, "CAPTURE ABORT", .lanes = 1, .warm = true,
	 .prepare = fi_abort_prepare,
	 .call = fi_abort_call, .after = fi_abort_after);
FI_GRAPH(capture_abort_recording, "CAPTURE ABORT, recording", .lanes = 1,
	 .warm = true, .kind = 1,
	 .prepare = fi_abort_prepare, .call = fi_abort_call,
	 .after = fi_abort_after);
FI_GRAPH(enqueue_recording, "ENQUEUE, recording",
	 .prepare = fi_recording_prepare, .call = fi_recording_call,
	 .after = fi_recording_after);
FI_GRAPH(enqueue_recording_write, "ENQUEUE, recording a host write",
	 .kind = 1, .prepare = fi_recording_prepare,
	 .call = fi_recording_call, .after = fi_recording_after);
FI_GRAPH(replay, "REPLAY", .expect = FI_ANY, .lanes = 1, .warm = true,
	 .begin = fi_replay_begin, .prepare = fi_replay_prepare,
	 .call = fi_replay_call, .after = fi_replay_after,
	 .end = fi_replay_end);
FI_GRAPH(replay_in_syncs, "REPLAY, in-syncs", .kind = 1, .expect = FI_ANY,
	 .lanes = 1, .warm = true, .begin = fi_replay_begin,
	 .prepare = fi_replay_prepare, .call = fi_replay_call,
	 .after = fi_replay_after, .end = fi_replay_end);
FI_GRAPH(replay_gated, "REPLAY, gated", .kind = 2, .expect = FI_ANY,
	 .lanes = 1, .warm = true, .begin = fi_replay_begin,
	 .prepare = fi_replay_prepare, .call = fi_replay_call,
	 .after = fi_replay_after, .end = fi_replay_end);
FI_GRAPH(graph_destroy, "GRAPH_DESTROY", .expect = FI_OK, .lanes = 1,
	 .warm = true, .begin = fi_gdestroy_begin,
	 .prepare = fi_gdestroy_prepare, .call = fi_gdestroy_call,
	 .after = fi_gdestroy_after);
FI_GRAPH(graph_destroy_replaying, "GRAPH_DESTROY, replaying", .kind = 1,
	 .expect = FI_OK, .lanes = 1, .warm = true,
	 .begin = fi_gdestroy_begin, .prepare = fi_gdestroy_prepare,
	 .call = fi_gdestroy_call, .after = fi_gdestroy_after);

FI_SUMMARY("fault_inject_capture");

TEST_HARNESS_MAIN
