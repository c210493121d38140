// SPDX-License-Identifier: GPL-2.0
/*
 * weave: the fuzzer of graph capture (uAPI 1.5): threads open capture
 * windows on their streams, begin them, record the launches they enqueue,
 * end them into graphs and replay those, with and without in-syncs and
 * out-sync, and destroy them.  Every CAPTURE's out fields must describe
 * the slot's window as its op and errno say.  On a file of its own a
 * thread asks the kernel whether a stream records: an ENQUEUE's seqno then
 * counts only the host writes it queued, the recording grows by its
 * launches, and FLUSH and WAIT fail with -EBUSY exactly when the stream
 * records (fuzz_work.h).  A replay's seqno counts the graph's tasks, and
 * the owner's count grows by what a doomed window recorded when BEGIN or
 * END closes it (queued, to taint, not to run).  See fuzz_run.h for how a
 * run goes and what it checks.
 */
#include "fuzz_run.h"

/*
 * -ENODEV is left out, as for READ and WAIT: the fuzzer never unplugs the
 * device.  CAPTURE's -ERESTARTSYS (a drain) is EINTR here.
 */
static const int errs_capture[] = {
	EINVAL, ENOENT, EBUSY, EBADFD, EIO, ECANCELED, ENOSPC, EINTR, ENOMEM, 0
};
static const int errs_replay[] = {
	EINVAL, ENOENT, EBUSY, ECANCELED, ENOMEM, EINPROGRESS, EFAULT, EINTR, 0
};

static const char *const fz_capture_op_names[] = {
	"PREPARE", "BEGIN", "END", "ABORT", "QUERY",
};

static const char *fz_capture_op_name(uint32_t op)
{
	return op < ARRAY_SIZE(fz_capture_op_names) ?
	       fz_capture_op_names[op] : "unknown op";
}

static const struct fz_field fz_capture_fields[] = {
	FZ_FIELD(capture, flags, FZ_BREAK_NONZERO, 0, "flags"),
	FZ_FIELD(capture, pad, FZ_BREAK_NONZERO, 0, "pad"),
	FZ_FIELD(capture, op, FZ_BREAK_ABOVE, DRM_WEAVE_CAPTURE_QUERY,
		 "unknown op"),
	FZ_FIELD(capture, stream, FZ_BREAK_HANDLE, 0, "bad stream"),
};

/*
 * A CAPTURE.  Valid calls are steered so that windows go through their
 * states: a prepared window begins, a recording one ends (now and then by
 * another stream of its slot, which abandons it), a window not known is
 * queried; otherwise any op on any stream, a new window only while few
 * are open.
 */
static void gen_capture(struct fz_ctx *c)
{
	struct drm_weave_capture *a = &c->call.arg.capture;
	uint64_t r = fz_below(c, 100);
	uint32_t op, j;
	int i;

	if (r < 40 &&
	    (i = fz_pick_window(c, DRM_WEAVE_CAPTURE_PREPARED)) >= 0) {
		op = DRM_WEAVE_CAPTURE_BEGIN;
	} else if (r < 65 &&
		   (i = fz_pick_window(c, DRM_WEAVE_CAPTURE_RECORDING)) >= 0) {
		op = DRM_WEAVE_CAPTURE_END;
		/* Another stream of the slot abandons it. */
		for (j = fz_below(c, 2) ? 0 : c->nst; j < c->nst; j++) {
			if ((int)j != i &&
			    fz_slot(c->st[j].handle) == fz_slot(c->st[i].handle)) {
				i = (int)j;
				break;
			}
		}
	} else if (r < 75 && (i = fz_pick_window(c, FZ_WIN_UNKNOWN)) >= 0) {
		op = DRM_WEAVE_CAPTURE_QUERY;
	} else {
		i = -1;
		switch (fz_below(c, 10)) {
		case 0:
		case 1:
		case 2:
		case 3:
			op = DRM_WEAVE_CAPTURE_PREPARE;
			/* Where another stream of the slot can abandon it. */
			if (fz_one_in(c, 2))
				i = fz_pick_slotmate(c);
			if (fz_windows_open(c) < FZ_WINDOWS)
				break;
			/* Enough windows: close one. */
			i = fz_pick_window(c, DRM_WEAVE_CAPTURE_PREPARED);
			if (i < 0)
				i = fz_pick_window(c,
						   DRM_WEAVE_CAPTURE_RECORDING);
			op = DRM_WEAVE_CAPTURE_ABORT;
			break;
		case 4:
			op = DRM_WEAVE_CAPTURE_BEGIN;
			break;
		case 5:
		case 6:
			op = DRM_WEAVE_CAPTURE_END;
			break;
		case 7:
			op = DRM_WEAVE_CAPTURE_ABORT;
			break;
		default:
			op = DRM_WEAVE_CAPTURE_QUERY;
			break;
		}
	}
	if (i >= 0) {
		c->call.idx = i;
		a->stream = c->st[i].handle;
	} else {
		a->stream = fz_stream_handle(c);
	}
	a->op = op;
	/* Out fields hold garbage on the way in. */
	a->state = (uint32_t)fz_r(c);
	a->owner = (uint32_t)fz_r(c);
	a->graph = (uint32_t)fz_r(c);
	a->ntasks = (uint32_t)fz_r(c);
	a->error = (int32_t)fz_r(c);
	a->failure = fz_r(c);
	c->call.strict = c->call.mode == FZ_VALID &&
			 fz_known_stream(c, a->stream);
	/* A read-only argument: done, but nothing said (END: a graph). */
	FZ_MUT_FIELDS(c, fz_capture_fields, true);
	fz_detail(c, "stream %u op %u (%s)", a->stream, a->op,
		  fz_capture_op_name(a->op));
}

/*
 * The out fields, written whether the call succeeds or not, and what each
 * result says of the window of the stream's slot (uAPI 1.5); then what
 * the thread knows of its windows and graphs.  A window that BEGIN or END
 * closed with -EIO or -ECANCELED is in state NONE after the call.
 */
static void check_capture(struct fz_ctx *c, int ret)
{
	const struct drm_weave_capture *a = &c->call.arg.capture;
	bool closed = ret == -EIO || ret == -ECANCELED;
	int i = fz_find_stream(c, a->stream), k;
	int64_t held = i >= 0 ? c->st[i].rec : -1;
	const char *bad = NULL;
	uint32_t op = a->op, graph = a->graph, ntasks = a->ntasks, h;

	if (c->call.argplace == FZ_PLACE_RO) {
		/*
		 * Done, unseen: an END made a graph the thread cannot name,
		 * or closed a doomed window, whose recording the stream then
		 * counts: ask it.
		 */
		fz_window_lost(c, a->stream);
		if (i >= 0 && c->st[i].exact) {
			struct drm_weave_stream_query q = { 0 };

			if (weave_stream_query(c->fd, a->stream, &q) ||
			    q.enqueued < c->st[i].enqueued)
				c->st[i].exact = false;
			else
				c->st[i].enqueued = q.enqueued;
		}
		return;
	}
	if (c->call.argplace != FZ_PLACE_RW)
		return;

	if (a->pad2)
		bad = "pad2 not zero";
	else if (a->state > DRM_WEAVE_CAPTURE_RECORDING)
		bad = "an unknown state";
	else if (a->error > 0 || a->error < -4095)
		bad = "an error that is no negative errno";
	else if (a->failure && !a->error)
		bad = "a failure without an error";
	else if (a->graph && (ret || op != DRM_WEAVE_CAPTURE_END))
		bad = "a graph, where no END succeeded";
	else if (a->ntasks > fz.info.max_graph_tasks)
		bad = "more tasks than max_graph_tasks";
	else if (closed && a->state != DRM_WEAVE_CAPTURE_NONE)
		bad = "the window closed, but the state after is not NONE";
	else if (!closed && (a->state == DRM_WEAVE_CAPTURE_NONE) !=
		 !a->owner)
		bad = "an owner without a window, or a window without one";
	else if (a->owner && (a->owner > fz.info.max_client_streams ||
			      fz_slot(a->owner) != fz_slot(a->stream)))
		bad = "an owner that is no stream of the slot";
	else if (!closed && a->state == DRM_WEAVE_CAPTURE_NONE &&
		 (a->error || a->failure))
		bad = "a doom without a window";
	else if (!closed && !a->graph &&
		 a->state != DRM_WEAVE_CAPTURE_RECORDING && a->ntasks)
		bad = "tasks recorded, without a recording";

	switch (bad ? 1 : ret) {
	case 0:
		if (op == DRM_WEAVE_CAPTURE_PREPARE &&
		    (a->state != DRM_WEAVE_CAPTURE_PREPARED ||
		     a->owner != a->stream))
			bad = "PREPARE succeeded, but the stream owns no prepared window";
		else if (op == DRM_WEAVE_CAPTURE_BEGIN &&
			 (a->state != DRM_WEAVE_CAPTURE_RECORDING ||
			  a->owner != a->stream || a->ntasks))
			bad = "BEGIN succeeded, but the stream owns no empty recording window";
		else if (op == DRM_WEAVE_CAPTURE_END &&
			 (!a->graph || a->state != DRM_WEAVE_CAPTURE_NONE))
			bad = "END succeeded, but made no graph or left a window";
		else if (op == DRM_WEAVE_CAPTURE_END && !c->shared &&
			 held >= 0 && a->ntasks != held)
			bad = "END sealed another number of tasks than the recording held";
		else if (op == DRM_WEAVE_CAPTURE_END && !c->shared &&
			 fz_find_graph(c, a->graph) >= 0)
			bad = "END returned a graph handle the thread holds";
		else if (op == DRM_WEAVE_CAPTURE_ABORT &&
			 a->state != DRM_WEAVE_CAPTURE_NONE)
			bad = "ABORT left a window";
		break;
	case -EBUSY:
		if (op != DRM_WEAVE_CAPTURE_PREPARE ||
		    a->state == DRM_WEAVE_CAPTURE_NONE)
			bad = "EBUSY, but not from PREPARE on a slot with a window";
		break;
	case -EBADFD:
		if (op == DRM_WEAVE_CAPTURE_BEGIN &&
		    a->state == DRM_WEAVE_CAPTURE_PREPARED &&
		    a->owner == a->stream)
			bad = "BEGIN: EBADFD, but the stream owns a prepared window";
		else if (op == DRM_WEAVE_CAPTURE_END &&
			 a->state == DRM_WEAVE_CAPTURE_RECORDING)
			bad = "END: EBADFD, but the window records";
		else if (op != DRM_WEAVE_CAPTURE_BEGIN &&
			 op != DRM_WEAVE_CAPTURE_END)
			bad = "EBADFD from neither BEGIN nor END";
		break;
	case -EIO:
		if ((op != DRM_WEAVE_CAPTURE_BEGIN &&
		     op != DRM_WEAVE_CAPTURE_END) || !a->error)
			bad = "EIO, but not BEGIN or END of a doomed window";
		break;
	case -ECANCELED:
		if (op != DRM_WEAVE_CAPTURE_END || !a->owner ||
		    a->owner == a->stream)
			bad = "ECANCELED, but not END by a stream that does not own the window";
		break;
	case -ENOSPC:
		if (op != DRM_WEAVE_CAPTURE_END ||
		    a->state != DRM_WEAVE_CAPTURE_RECORDING ||
		    a->owner != a->stream)
			bad = "ENOSPC, but not END of a window that goes on recording";
		break;
	default:
		/* EINTR: a drain, or any op's wait for the client's lock. */
		break;
	}
	if (bad) {
		fz_fail(c, "CAPTURE %s of stream %u returned %s, with %s: state %u owner %u graph %u ntasks %u error %d failure %llu pad2 %u (the recording held %lld)",
			fz_capture_op_name(op), a->stream, fz_errname(-ret),
			bad, a->state, a->owner, a->graph, a->ntasks,
			a->error, (unsigned long long)a->failure, a->pad2,
			(long long)held);
		return;
	}

	/* Refused before the window was looked at: the fields say nothing. */
	if (ret != -EINVAL && ret != -ENOENT && ret != -EINTR)
		fz_window_seen(c, a->stream, a, closed);
	if (!ret && op == DRM_WEAVE_CAPTURE_PREPARE)
		c->stat.prepared++;
	if (!ret && op == DRM_WEAVE_CAPTURE_BEGIN)
		c->stat.begun++;
	/*
	 * A doomed window's recording is queued on its owner, the caller, as
	 * tasks that do not run and taint what they would have written; or
	 * dropped, if the owner cannot take them.
	 */
	if (ret == -EIO && i >= 0 && c->st[i].exact) {
		struct drm_weave_stream_query q = { 0 };
		uint64_t e = c->st[i].enqueued;
		int err = weave_stream_query(c->fd, c->st[i].handle, &q);

		if (err || (q.enqueued != e && q.enqueued != e + ntasks)) {
			fz_fail(c, "CAPTURE %s of stream %u closed a doomed window of %u tasks: the stream's enqueued went from %llu to %llu (%s)",
				fz_capture_op_name(op), c->st[i].handle,
				ntasks, (unsigned long long)e,
				(unsigned long long)q.enqueued,
				fz_errname(-err));
			return;
		}
		c->st[i].enqueued = q.enqueued;
	}
	c->stat.doomed += ret == -EIO;
	c->stat.abandoned += ret == -ECANCELED;
	if (ret || op != DRM_WEAVE_CAPTURE_END)
		return;
	c->stat.sealed++;
	c->stat.sealed_tasks += ntasks;
	fz_forget_graph(c, graph);
	if (c->ngr < FZ_GRAPHS) {
		c->gr[c->ngr++] = (struct fz_graph){ graph, ntasks };
		return;
	}
	/* Full: the new graph takes the place of one, destroyed (last). */
	k = (int)fz_below(c, FZ_GRAPHS);
	h = c->gr[k].handle;
	c->gr[k] = (struct fz_graph){ graph, ntasks };
	fz_destroy_graph(c, h);
}

/*
 * A REPLAY of a graph the thread sealed on one of its streams, with or
 * without in-syncs and an out-sync.
 */
static const struct fz_field fz_replay_fields[] = {
	FZ_FIELD(replay, flags, FZ_BREAK_NONZERO, 0, "flags"),
	FZ_FIELD(replay, pad, FZ_BREAK_NONZERO, 0, "pad"),
	FZ_FIELD(replay, graph, FZ_BREAK_HANDLE, 0, "bad graph"),
	FZ_FIELD(replay, stream, FZ_BREAK_HANDLE, 0, "bad stream"),
	FZ_FIELD(replay, out_sync.flags, FZ_BREAK_NONZERO, 0,
		 "out_sync flags"),
};

static void gen_replay(struct fz_ctx *c)
{
	struct drm_weave_replay *a = &c->call.arg.replay;
	struct fz_syncs s;
	int g = fz_pick_graph(c);

	a->graph = g < 0 || fz_one_in(c, 50) ? fz_any_handle(c) :
		   c->gr[g].handle;
	a->stream = fz_stream_handle(c);
	/* A stream that records refuses it: mostly another. */
	if (c->call.idx >= 0 &&
	    c->st[c->call.idx].win == DRM_WEAVE_CAPTURE_RECORDING &&
	    !fz_one_in(c, 4))
		a->stream = fz_stream_handle(c);
	fz_pick_syncs(c, &s, 4);
	a->out_sync = fz_out_sync(c);
	a->seqno = fz_r(c);
	c->call.strict = c->call.mode == FZ_VALID && !s.ns &&
			 fz_known_stream(c, a->stream) && g >= 0 &&
			 a->graph == c->gr[g].handle;
	while (fz_mutate(c)) {
		uint64_t m = fz_below(c, 15);

		if (m < 8) {
			if (!fz_mut_syncs(c, &s, &a->in_syncs))
				fz_mut_arg(c, true);
		} else if (m < 9) {
			a->out_sync.handle = fz_bad_handle(c);
			fz_mut(c, "bad out_sync", true);
		} else {
			fz_mut_field(c, fz_replay_fields,
				     ARRAY_SIZE(fz_replay_fields), true);
		}
	}
	fz_put_syncs(c, &s, &a->in_syncs);
	fz_detail(c, "graph %u stream %u in_syncs %u stride %u out %u@%llu",
		  a->graph, a->stream, a->in_syncs.count, a->in_syncs.stride,
		  a->out_sync.handle,
		  (unsigned long long)a->out_sync.timeline_value);
	if (g >= 0 && a->graph == c->gr[g].handle)
		fz_detail(c, " (%u tasks)", c->gr[g].ntasks);
}

/*
 * A replay counts the graph's tasks as the stream's (uAPI 1.5): its
 * seqno is the last one's.  An empty graph has no last task: its replay's
 * seqno is not checked.
 */
static void check_replay(struct fz_ctx *c, int ret)
{
	const struct drm_weave_replay *a = &c->call.arg.replay;
	int i = fz_find_stream(c, a->stream), g = fz_find_graph(c, a->graph);
	struct fz_stream *st = i < 0 ? NULL : &c->st[i];

	if (!ret && c->call.argplace == FZ_PLACE_RW) {
		c->stat.replays++;
		c->stat.replayed_tasks += g >= 0 ? c->gr[g].ntasks : 0;
	}
	if (!st)
		return;
	/* Queued, perhaps: the seqno could not be written back. */
	if (ret == -EFAULT && c->call.argplace == FZ_PLACE_RO) {
		st->exact = false;
		return;
	}
	/* Queued but not all submitted (uAPI 1.9) counts as queued. */
	if ((ret && ret != -EINPROGRESS) || c->call.argplace != FZ_PLACE_RW)
		return;
	if (g < 0) {
		/*
		 * A graph the thread does not know: the seqno says; an empty
		 * one's is the stream's last.
		 */
		if (!a->seqno)
			return;
		if (st->exact && a->seqno < st->enqueued)
			fz_fail(c, "REPLAY of graph %u on stream %u returned seqno %llu after %llu",
				a->graph, a->stream,
				(unsigned long long)a->seqno,
				(unsigned long long)st->enqueued);
		st->enqueued = a->seqno;
		return;
	}
	if (!c->gr[g].ntasks) {
		if (st->exact && a->seqno != st->enqueued)
			fz_fail(c, "REPLAY of empty graph %u on stream %u returned seqno %llu, not the stream's last, %llu",
				a->graph, a->stream,
				(unsigned long long)a->seqno,
				(unsigned long long)st->enqueued);
		return;
	}
	if (st->exact && a->seqno != st->enqueued + c->gr[g].ntasks)
		fz_fail(c, "REPLAY of graph %u (%u tasks) on stream %u returned seqno %llu after %llu",
			a->graph, c->gr[g].ntasks, a->stream,
			(unsigned long long)a->seqno,
			(unsigned long long)st->enqueued);
	if (!st->exact && a->seqno < c->gr[g].ntasks)
		fz_fail(c, "REPLAY of graph %u (%u tasks) returned seqno %llu",
			a->graph, c->gr[g].ntasks,
			(unsigned long long)a->seqno);
	st->enqueued += c->gr[g].ntasks;
}

static const struct fz_field fz_graph_destroy_fields[] = {
	FZ_FIELD(graph_destroy, pad, FZ_BREAK_NONZERO, 0, "pad"),
	FZ_FIELD(graph_destroy, graph, FZ_BREAK_HANDLE, 0, "bad graph"),
};

static void gen_graph_destroy(struct fz_ctx *c)
{
	struct drm_weave_graph_destroy *a = &c->call.arg.graph_destroy;
	int g = fz_pick_graph(c);

	a->graph = g < 0 || fz_one_in(c, 50) ? fz_any_handle(c) :
		   c->gr[g].handle;
	c->call.strict = c->call.mode == FZ_VALID && g >= 0 &&
			 a->graph == c->gr[g].handle;
	FZ_MUT_FIELDS(c, fz_graph_destroy_fields, true);
	fz_detail(c, "graph %u", a->graph);
}

static void check_graph_destroy(struct fz_ctx *c, int ret)
{
	if (!ret)
		fz_forget_graph(c, c->call.arg.graph_destroy.graph);
}

static const struct fz_opdesc fz_ops[OP_NR] = {
	FZ_OBJECT_OPS,
	FZ_WORK_OPS(260, 80, 40),
	[OP_CAPTURE] = { "CAPTURE", DRM_IOCTL_WEAVE_CAPTURE, errs_capture, 80,
			 gen_capture, check_capture },
	[OP_REPLAY] = { "REPLAY", DRM_IOCTL_WEAVE_REPLAY, errs_replay, 60,
			gen_replay, check_replay },
	[OP_GRAPH_DESTROY] = { "GRAPH_DESTROY", DRM_IOCTL_WEAVE_GRAPH_DESTROY,
			       errs_graph_destroy, 20, gen_graph_destroy,
			       check_graph_destroy },
};

FZ_TESTS(NULL)
