/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The work every weave fuzzer queues and waits for: ENQUEUE (whose deep
 * mutations are fuzz_submit.c's), FLUSH and WAIT, what their results say
 * of the streams and their capture windows, and files closed with work in
 * flight.
 */
#ifndef _WEAVE_FUZZ_WORK_H_
#define _WEAVE_FUZZ_WORK_H_

#include "fuzz_task.h"

/*
 * The mutations of ENQUEUE that are not its tasks': flags, stream,
 * in-syncs and the argument's place.  Returns false if it did not.
 */
static inline bool fz_mut_enqueue_call(struct fz_ctx *c, struct fz_enq *e)
{
	switch (fz_below(c, 6)) {
	case 0:
		/* Bit 0 is DRM_WEAVE_ENQUEUE_FLUSH (uAPI 1.8). */
		e->a.flags |= 2u << fz_below(c, 31);
		fz_mut(c, "unknown flag", true);
		return true;
	case 1:
		e->a.stream = fz_below(c, 2) ? 0 : fz_bad_handle(c);
		fz_mut(c, "bad stream", true);
		return true;
	case 2:
	case 3:
		return fz_mut_syncs(c, &e->in, &e->a.in_syncs);
	case 4:
		return fz_mut_outs(c, &e->out, &e->a);
	default:
		fz_mut_arg(c, true);
		return true;
	}
}

static inline void gen_enqueue(struct fz_ctx *c)
{
	struct fz_enq *e = c->enq;
	uint32_t i, n;
	uint64_t r = fz_below(c, 100);
	bool noop_only = false, rec, win;
	int s, w, tries;

	n = r < 70 ? (uint32_t)fz_range(c, 1, 4) :
	    r < 90 ? (uint32_t)fz_range(c, 5, 16) :
	    r < 98 ? (uint32_t)fz_range(c, 17, 64) :
		     (uint32_t)fz_range(c, 65, fz.info.max_tasks_per_enqueue);
	if (n > FZ_MAX_TASKS)
		n = FZ_MAX_TASKS;
	if (n > 64)
		noop_only = true;
	memset(&e->a, 0, sizeof(e->a));
	e->nt = n;
	e->tstride = fz_one_in(c, 8) ? FZ_TASK_1_2 :
		     fz_good_stride(c, sizeof(struct drm_weave_task));
	e->tplace = fz_good_place(c);
	e->textra = 0;
	/*
	 * A stream that records, now and then: its launches are recorded.
	 * Mostly without host writes or in-syncs, which doom the window or
	 * are refused.  No hang in a window: it would be replayed, or make
	 * BEGIN's drain wait for the job timeout.
	 */
	s = fz_pick_stream(c);
	if (c->captured && fz_one_in(c, 3)) {
		w = fz_pick_window(c, DRM_WEAVE_CAPTURE_RECORDING);
		s = w >= 0 ? w : s;
	}
	rec = s >= 0 && c->st[s].win == DRM_WEAVE_CAPTURE_RECORDING;
	win = s >= 0 && c->st[s].win != DRM_WEAVE_CAPTURE_NONE;
	for (i = 0; i < n; i++) {
		fz_build_task(c, &e->task[i], noop_only);
		for (tries = 0; rec && tries < 8 && !fz_one_in(c, 8) &&
		     e->task[i].t.type == DRM_WEAVE_TASK_HOST_WRITE; tries++)
			fz_build_task(c, &e->task[i], noop_only);
	}
	if (!win && c->hangs_left > 0 && fz_one_in(c, 4000)) {
		c->hangs_left--;
		c->stat.hangs++;
		fz_build_hang(c, &e->task[fz_below(c, n)]);
	}
	fz_pick_syncs(c, &e->in, rec ? 40 : 5);
	/*
	 * One in four queues and flushes in one call, with out-syncs (uAPI
	 * 1.8); not on a stream that records, which refuses it (-EBUSY).
	 */
	e->a.flags = !rec && fz_one_in(c, 4) ? DRM_WEAVE_ENQUEUE_FLUSH : 0;
	fz_pick_outs(c, &e->out, e->a.flags);
	c->call.idx = s;
	e->a.stream = s < 0 ? fz_any_handle(c) : c->st[s].handle;
	e->a.tasks.count = n;
	e->a.seqno = fz_r(c);

	/* Valid, on a private file, without in-syncs: nothing may fail. */
	c->call.strict = s >= 0 && !e->in.ns;
	for (i = 0; i < n && c->call.strict; i++) {
		uint32_t j;

		for (j = 0; j < e->task[i].nb; j++) {
			int k = fz_find_bo(c, e->task[i].b[j].handle);

			if (k < 0 || !c->bo[k].exact)
				c->call.strict = false;
		}
	}
	while (fz_mutate(c)) {
		int tries = 0;

		while (!(fz.mut_enqueue ? fz.mut_enqueue(c, e) :
			 fz_mut_enqueue_call(c, e)) && ++tries < 8)
			;
	}
	if (c->call.mode != FZ_VALID)
		c->call.strict = false;
	fz_render_enqueue(c, e);
	c->call.arg.enqueue = e->a;
	c->call.v[0] = e->a.tasks.count;
	fz_detail(c, "stream %u flags %#x tasks %u stride %u in_syncs %u stride %u out_syncs %u stride %u",
		  e->a.stream, e->a.flags, e->a.tasks.count, e->a.tasks.stride,
		  e->a.in_syncs.count, e->a.in_syncs.stride,
		  e->a.out_syncs.count, e->a.out_syncs.stride);
	if (e->nt) {
		struct fz_task *t = &e->task[0];

		fz_detail(c, "; task0 type %u kernel %u bindings %u/%u uni %u data %#llx",
			  t->t.type, t->t.kernel, t->t.bindings.count,
			  t->t.bindings.stride, t->t.uniforms_size,
			  (unsigned long long)t->t.data);
		if (t->nb)
			fz_detail(c, " b0 %u/%#x %#llx+%#llx", t->b[0].handle,
				  t->b[0].access,
				  (unsigned long long)t->b[0].offset,
				  (unsigned long long)t->b[0].size);
	}
}

/*
 * On a file of the thread's own, where windows change only by its calls,
 * an ENQUEUE of a stream that records its window (uAPI 1.5) records its
 * launches, which do not count as the stream's tasks, and queues its host
 * writes: the seqno counts these only, and the recording its launches.
 */
static inline void check_enqueue(struct fz_ctx *c, int ret)
{
	struct drm_weave_enqueue *a = &c->call.arg.enqueue;
	uint32_t n = (uint32_t)c->call.v[0], k = n, j;
	int i = fz_find_stream(c, a->stream);
	struct fz_stream *st = i < 0 ? NULL : &c->st[i];
	bool own = c->captured && !c->shared;
	struct drm_weave_capture q;
	int64_t held;

	if (!st)
		return;
	/* Queued, with the flush flag, and not all submitted (uAPI 1.8). */
	if (ret == -EINPROGRESS &&
	    !(a->flags & DRM_WEAVE_ENQUEUE_FLUSH && a->tasks.count))
		fz_fail(c, "ENQUEUE returned EINPROGRESS with flags %#x and %u tasks",
			a->flags, a->tasks.count);
	if (ret == -EINPROGRESS)
		ret = 0;
	if (ret == -EFAULT && c->call.argplace == FZ_PLACE_RO) {
		/* Queued, but the seqno could not be written back. */
		st->exact = false;
		st->rec = -1;
		return;
	}
	if (ret == -ENOMEM)
		st->rec = -1;
	/*
	 * -ENOSPC: the recording is full; or gates the kernel had no memory
	 * to hand to a job, which does not happen here.
	 */
	if (ret == -ENOSPC && own && !fz_records(c, a->stream, &q))
		fz_fail(c, "ENQUEUE returned ENOSPC, but stream %u does not record (window state %u, owner %u)",
			a->stream, q.state, q.owner);
	if (ret || c->call.argplace != FZ_PLACE_RW)
		return;
	held = st->rec;
	if (own && fz_records(c, a->stream, &q)) {
		if (c->call.mode == FZ_RANDOM) {
			/* The tasks are not known: the seqno says. */
			if (a->seqno >= st->enqueued &&
			    a->seqno - st->enqueued <= n)
				k = (uint32_t)(a->seqno - st->enqueued);
		} else {
			for (k = 0, j = 0; j < n; j++)
				k += c->enq->task[j].t.type ==
				     DRM_WEAVE_TASK_HOST_WRITE;
		}
		if (held >= 0 && q.ntasks != held + (n - k))
			fz_fail(c, "ENQUEUE of %u launches on stream %u, which records: the recording went from %lld to %u tasks",
				n - k, a->stream, (long long)held, q.ntasks);
		c->stat.recorded += n - k;
	}
	if (st->exact && a->seqno != st->enqueued + k)
		fz_fail(c, "ENQUEUE of %u tasks (%u of them queued) on stream %u returned seqno %llu after %llu",
			n, k, a->stream, (unsigned long long)a->seqno,
			(unsigned long long)st->enqueued);
	/* On the shared file, another thread's window may record them. */
	if (!st->exact && a->seqno < k &&
	    !(c->shared && atomic_load(&fz.shared_captured)))
		fz_fail(c, "ENQUEUE of %u tasks returned seqno %llu", n,
			(unsigned long long)a->seqno);
	st->enqueued += k;
}

static inline void gen_flush(struct fz_ctx *c)
{
	struct drm_weave_flush *a = &c->call.arg.flush;

	if (fz_one_in(c, 4)) {
		a->flags = DRM_WEAVE_FLUSH_ALL;
		c->call.strict = true;
	} else {
		a->stream = fz_stream_handle(c);
		c->call.strict = fz_known_stream(c, a->stream);
	}
	a->out_sync = fz_out_sync(c);
	c->call.strict &= c->call.mode == FZ_VALID;
	while (fz_mutate(c)) {
		switch (fz_below(c, 7)) {
		case 0:
			a->flags |= 2u << fz_below(c, 31);
			fz_mut(c, "unknown flag", true);
			break;
		case 1:
			a->flags |= DRM_WEAVE_FLUSH_ALL;
			a->stream = a->stream ?: (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "FLUSH_ALL with a stream", true);
			break;
		case 2:
			a->out_sync.flags = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "out_sync flags", true);
			break;
		case 3:
			a->flags &= ~DRM_WEAVE_FLUSH_ALL;
			a->stream = fz_bad_handle(c);
			fz_mut(c, "bad stream", true);
			break;
		case 4:
			a->flags &= ~DRM_WEAVE_FLUSH_ALL;
			a->stream = 0;
			fz_mut(c, "stream 0 without FLUSH_ALL", true);
			break;
		case 5:
			a->out_sync.handle = fz_bad_handle(c);
			fz_mut(c, "bad out_sync", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "stream %u flags %#x out %u@%llu", a->stream, a->flags,
		  a->out_sync.handle,
		  (unsigned long long)a->out_sync.timeline_value);
}

/*
 * -EBUSY (uAPI 1.5) exactly when the stream records its window, which
 * the thread knows for sure on a file of its own.  A failed stream
 * refuses a flush of its own; that is allowed.
 */
static inline void fz_check_busy(struct fz_ctx *c, const char *what,
				 uint32_t stream, int ret)
{
	struct drm_weave_capture q;
	bool rec;

	if (!c->captured || c->shared || fz_find_stream(c, stream) < 0 ||
	    (ret && ret != -EBUSY))
		return;
	rec = fz_records(c, stream, &q);
	if (rec != (ret == -EBUSY))
		fz_fail(c, "%s of stream %u returned %s, but the stream %s (window state %u, owner %u)",
			what, stream, fz_errname(-ret),
			rec ? "records" : "does not record", q.state,
			q.owner);
}

static inline void check_flush(struct fz_ctx *c, int ret)
{
	struct drm_weave_flush *a = &c->call.arg.flush;

	if (ret == -EBUSY && a->flags & DRM_WEAVE_FLUSH_ALL) {
		fz_fail(c, "FLUSH_ALL returned EBUSY");
		return;
	}
	if (!(a->flags & DRM_WEAVE_FLUSH_ALL))
		fz_check_busy(c, "FLUSH", a->stream, ret);
}

/* Bit 0 is DRM_WEAVE_WAIT_SEQNO (uAPI 1.8): a flag at bit 1 or above. */
static const struct fz_field fz_wait_fields[] = {
	FZ_FIELD(wait, flags, FZ_BREAK_BIT, 1, "unknown flag"),
	FZ_FIELD(wait, handle, FZ_BREAK_HANDLE, 0, "bad handle"),
};

/*
 * Breaks a WAIT's seqno (uAPI 1.8): one without the flag, or, on a stream
 * only this thread enqueues on, one past the stream's last.
 */
static inline void fz_mut_wait_seqno(struct fz_ctx *c,
				     struct drm_weave_wait *a)
{
	int i = fz_find_stream(c, a->handle);

	if (i >= 0 && c->st[i].exact && fz_below(c, 2)) {
		a->flags |= DRM_WEAVE_WAIT_SEQNO;
		a->seqno = c->st[i].enqueued + fz_range(c, 1, 1ull << 40);
		fz_mut(c, "seqno in the future", true);
		return;
	}
	a->flags &= ~DRM_WEAVE_WAIT_SEQNO;
	a->seqno = fz_range(c, 1, UINT64_MAX);
	fz_mut(c, "seqno without the flag", true);
}

static inline void gen_wait(struct fz_ctx *c)
{
	struct drm_weave_wait *a = &c->call.arg.wait;
	int i;

	a->handle = fz_stream_handle(c);
	a->timeout_ns = fz_deadline(c);
	/* One in three waits for a seqno the stream has had. */
	i = fz_find_stream(c, a->handle);
	if (i >= 0 && fz_one_in(c, 3)) {
		a->flags = DRM_WEAVE_WAIT_SEQNO;
		a->seqno = fz_below(c, c->st[i].enqueued + 1);
	}
	while (fz_mutate(c)) {
		if (fz_one_in(c, 4))
			fz_mut_wait_seqno(c, a);
		else
			fz_mut_field(c, fz_wait_fields,
				     ARRAY_SIZE(fz_wait_fields), true);
	}
	fz_detail(c, "handle %u flags %#x seqno %llu deadline %lld",
		  a->handle, a->flags, (unsigned long long)a->seqno,
		  (long long)a->timeout_ns);
}

static inline void check_wait(struct fz_ctx *c, int ret)
{
	struct drm_weave_wait *a = &c->call.arg.wait;

	/* A seqno wait works while the stream records (uAPI 1.8). */
	if (!(a->flags & DRM_WEAVE_WAIT_SEQNO))
		fz_check_busy(c, "WAIT", a->handle, ret);
	else if (ret == -EBUSY)
		fz_fail(c, "WAIT for seqno %llu of stream %u returned EBUSY",
			(unsigned long long)a->seqno, a->handle);
}

/* --- files that come and go ---------------------------------------------- */

/*
 * Opens a file of its own, gives it work (some of it on a buffer it
 * shares), and closes it while the work runs.  The shared buffer outlives
 * the file through its dma-buf.
 */
static inline void fz_side_file(struct fz_ctx *c)
{
	struct weave_test_batch b;
	uint32_t stream = 0, bo = 0;
	uint64_t size = fz.page * fz_range(c, 1, 4);
	int fd, dmabuf = -1, i, n;

	fd = weave_device_open(0);
	if (fd < 0) {
		fz_fail(c, "cannot open a second file: %s", strerror(-fd));
		return;
	}
	c->stat.side_files++;
	if (weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &stream) ||
	    weave_bo_create(fd, &size, 0, &bo)) {
		fz_fail(c, "side file: cannot create a stream or buffer");
		close(fd);
		return;
	}
	n = (int)fz_range(c, 1, 6);
	for (i = 0; i < n; i++) {
		weave_test_batch_init(&b);
		weave_test_delay(&b, (uint32_t)fz_range(c, 100, 3000));
		weave_test_fill_task(&b, bo, 0, size, (uint32_t)fz_r(c));
		if (weave_test_submit(fd, stream, &b) ||
		    (fz_below(c, 2) && weave_flush(fd, stream, NULL))) {
			fz_fail(c, "side file: cannot queue work");
			break;
		}
	}
	if (fz_below(c, 2) && !weave_bo_export(fd, bo, DRM_CLOEXEC, &dmabuf))
		fz_share_dmabuf(c, dmabuf);
	close(fd);
}

/* Closes the thread's own file with its work in flight, and reopens it. */
static inline void fz_reopen(struct fz_ctx *c)
{
	close(c->fd);
	fz_forget_file(c);
	c->stat.reopens++;
	c->fd = weave_device_open(0);
	if (c->fd < 0)
		fz_fail(c, "cannot reopen the device: %s", strerror(-c->fd));
}

/*
 * The work every suite queues, as entries of its fz_ops, with the suite's
 * weights.
 */
#define FZ_WORK_OPS(enqueue, flush, wait) \
	[OP_ENQUEUE] = { "ENQUEUE", DRM_IOCTL_WEAVE_ENQUEUE, errs_enqueue, \
			 (enqueue), gen_enqueue, check_enqueue }, \
	[OP_FLUSH] = { "FLUSH", DRM_IOCTL_WEAVE_FLUSH, errs_flush, (flush), \
		       gen_flush, check_flush }, \
	[OP_WAIT] = { "WAIT", DRM_IOCTL_WEAVE_WAIT, errs_wait, (wait), \
		      gen_wait, check_wait }

#endif /* _WEAVE_FUZZ_WORK_H_ */
