// SPDX-License-Identifier: GPL-2.0
/*
 * weave: allocation failures of ENQUEUE, the executions it causes
 * included, swept through fail-nth by fail_nth_run() (fault_inject.h): the
 * table of cases is at the end.  FLUSH and STREAM_ISOLATE are
 * fault_inject_flush's.
 */
#include "fault_inject.h"

enum fi_enqueue_kind {
	FI_ENQ_COLD,		/* the client's first enqueue */
	FI_ENQ_WARM,		/* a client that ran work before */
	FI_ENQ_GATED,		/* in-fences that have not signalled */
};

/* What a failed call must leave as it was: nothing queued or staged. */
struct fi_before {
	struct drm_weave_client_usage u;
	struct drm_weave_stream_query q;
};

static void fi_before_take(struct __test_metadata *_metadata, int fd,
			   uint32_t stream, struct fi_before *b)
{
	b->q = weave_test_squery(_metadata, fd, stream);
	b->u = weave_test_client_usage(_metadata, fd);
}

/* Nothing was queued, staged or gated since fi_before_take(). */
static void fi_before_same(struct __test_metadata *_metadata, int fd,
			   const struct fi_before *b)
{
	struct drm_weave_client_usage u;
	struct drm_weave_stream_query q;

	q = weave_test_squery(_metadata, fd, b->q.handle);
	u = weave_test_client_usage(_metadata, fd);
	ASSERT_EQ(b->q.enqueued, q.enqueued);
	ASSERT_EQ(b->u.pending_tasks, u.pending_tasks);
	ASSERT_EQ(b->u.queued_tasks, u.queued_tasks);
	ASSERT_EQ(b->u.staged_bytes, u.staged_bytes);
	ASSERT_EQ(b->u.gate_bytes, u.gate_bytes);
}

/* --- enqueue ----------------------------------------------------------- */

struct fi_enq {
	struct fi_syncs s;
	struct fi_before b;
};

static void fi_enq_prepare(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_run *r)
{
	struct fi_enq *e = r->s;
	struct fi_client *c = &r->cl;

	if (r->c->kind == FI_ENQ_COLD)
		fi_client_open(_metadata, self, c, -1, 1);
	fi_in_syncs(_metadata, c, &self->main, r->c->kind == FI_ENQ_GATED,
		    &e->s);
	fi_work_build(self, &c->lane[0], &r->w, 0x10000u * r->n + r->c->kind);
	fi_before_take(_metadata, c->fd, c->lane[0].stream, &e->b);
}

static int fi_enq_call(fi_t *self, struct fi_run *r)
{
	struct fi_enq *e = r->s;

	(void)self;
	return fi_enqueue_raw(r->cl.fd, r->cl.lane[0].stream, r->w.b.task,
			      r->w.b.n, e->s.in, e->s.nin, NULL);
}

/*
 * ENQUEUE fails with -ENOMEM having queued nothing, or queues every task,
 * which then runs.  These enqueues execute nothing within the call (see
 * the poison cases for those that do), and none fails its stream.
 */
static void fi_enq_after(struct __test_metadata *_metadata, fi_t *self,
			 struct fi_run *r)
{
	struct fi_enq *e = r->s;
	struct fi_client *c = &r->cl;
	struct fi_lane *l = &c->lane[0];
	const char *what = r->c->what;
	struct drm_weave_stream_query q;
	struct weave_test_batch extra;

	if (r->ret) {
		fi_before_same(_metadata, c->fd, &e->b);
		ASSERT_EQ(e->b.u.alone_bytes,
			  weave_test_client_usage(_metadata,
						  c->fd).alone_bytes);
		/* And the same call now goes through. */
		ASSERT_EQ(0, weave_enqueue(c->fd, l->stream, r->w.b.task,
					   r->w.b.n, e->s.in, e->s.nin, NULL));
	} else {
		ASSERT_EQ(e->b.q.enqueued + r->w.b.n,
			  weave_test_squery(_metadata, c->fd,
					    l->stream).enqueued);
	}
	q = weave_test_squery(_metadata, c->fd, l->stream);
	ASSERT_EQ(0, q.error) {
		TH_LOG("%s, fail-nth %u: an enqueue that executes nothing failed its stream",
		       what, r->n);
	}
	/*
	 * One more task, on whatever the call left in the slot's ring,
	 * before anything flushes it.
	 */
	weave_test_batch_init(&extra);
	weave_test_fill_task(&extra, l->wres, 8, 4, r->w.seed);
	weave_test_enqueue(_metadata, c->fd, l->stream, &extra);
	fi_finish(_metadata, c->fd, l->stream);
	q = weave_test_squery(_metadata, c->fd, l->stream);
	ASSERT_EQ(q.enqueued, q.completed);
	fi_work_ran(_metadata, self, r);
	ASSERT_EQ(r->w.seed, l->rmap[2]) {
		TH_LOG("%s, fail-nth %u: the task enqueued after it did not run",
		       what, r->n);
	}
	fi_syncs_put(_metadata, c->fd, &e->s);
	weave_test_client_idle(_metadata, c->fd);
	if (r->c->kind == FI_ENQ_COLD) {
		/* Its work ran; the main client's round follows. */
		fi_client_close(_metadata, self, c);
		fi_settled(_metadata, self);
	} else {
		fi_client_round(_metadata, self, c);
	}
}

/* --- executions an enqueue causes: a task it cannot pack (uAPI 1.4) ----- */

/* Bindings of the FAIL of a step: past an encoded task's own three. */
#define FI_FAIL_BINDINGS	5

/* Tasks of a step of a poison case. */
#define FI_PTASKS	4

/* Bytes of lane 0's result page that a step's tasks write, from 0. */
#define FI_PRES		(64 + 64 * FI_FAIL_BINDINGS)

enum fi_poison_kind {
	FI_POISON_THRESHOLD,	/* the enqueue's last task executes its slot */
	FI_POISON_ALIGN,	/* it binds a buffer another slot has queued */
};

/* What a task of a step does, on lane 0's buffers. */
enum fi_role {
	FI_WRITE_0,	/* a host write of FI_WRITE bytes at page 0 */
	FI_FILL_1,	/* a fill of page 1 */
	FI_FAIL_RES,	/* a FAIL, -EIO, of FI_FAIL_BINDINGS 64-byte ranges
			 * of the result page, from byte 64 on */
	FI_CRC,		/* the crc32c of task 0's (first) range into the
			 * result's first word */
};

/*
 * A step's work.  Task 0 is the first an execution packs: the one whose
 * job the kernel makes, and so the one it fails to pack at the steps
 * that fail the making of a job; the crc32c, last, reads what task 0
 * wrote.  With FI_POISON_THRESHOLD the four tasks are one enqueue, task
 * 0 the host write, so that a host write is what cannot be packed; with
 * FI_POISON_ALIGN tasks 0 to 2 are queued on lane 0's slot and the
 * crc32c, enqueued alone on lane 1's stream, executes them, task 0 the
 * FAIL, so that a task with bindings past three is.
 */
struct fi_poison {
	uint32_t seed;
	uint32_t pattern;
	uint32_t eio;
	enum fi_role role[FI_PTASKS];
	uint32_t stream[FI_PTASKS];	/* of each task */
	uint64_t seqno[FI_PTASKS];	/* on its stream, once enqueued */
	uint8_t bytes[FI_WRITE];
	struct drm_weave_binding bind[FI_PTASKS][FI_FAIL_BINDINGS];
	struct drm_weave_task task[FI_PTASKS];
};

/* The state of a poison case's sweep. */
struct fi_poison_run {
	struct fi_poison p;
	struct fi_syncs s;
	struct fi_before b;
	struct weave_test_report r;
	unsigned int at[FI_PTASKS];	/* steps where task k was not packed */
};

static void fi_poison_build(fi_t *self, struct fi_client *c,
			    struct fi_poison *p, uint32_t seed,
			    enum fi_poison_kind kind)
{
	static const enum fi_role order[2][FI_PTASKS] = {
		[FI_POISON_THRESHOLD] = {
			FI_WRITE_0, FI_FILL_1, FI_FAIL_RES, FI_CRC,
		},
		[FI_POISON_ALIGN] = {
			FI_FAIL_RES, FI_WRITE_0, FI_FILL_1, FI_CRC,
		},
	};
	struct fi_lane *l = &c->lane[0];
	struct drm_weave_binding *b;
	uint32_t k, j;

	memset(p, 0, sizeof(*p));
	p->seed = seed;
	p->pattern = seed ^ 0x5a5a5a5au;
	p->eio = EIO;
	weave_test_fill(p->bytes, sizeof(p->bytes), seed);
	for (k = 0; k < FI_PTASKS; k++) {
		b = p->bind[k];
		p->role[k] = order[kind][k];
		switch (p->role[k]) {
		case FI_WRITE_0:
			b[0] = weave_binding(l->wbo, DRM_WEAVE_ACCESS_WRITE, 0,
					     FI_WRITE);
			weave_task_host_write(&p->task[k], b, p->bytes);
			break;
		case FI_FILL_1:
			b[0] = weave_binding(l->wbo, DRM_WEAVE_ACCESS_WRITE,
					     self->page, self->page);
			weave_task_launch(&p->task[k], DRM_WEAVE_KERNEL_FILL,
					  b, 1, &p->pattern,
					  sizeof(p->pattern));
			break;
		case FI_FAIL_RES:
			for (j = 0; j < FI_FAIL_BINDINGS; j++)
				b[j] = weave_binding(l->wres,
						     DRM_WEAVE_ACCESS_WRITE,
						     64 + 64 * j, 64);
			weave_task_launch(&p->task[k], DRM_WEAVE_KERNEL_FAIL,
					  b, FI_FAIL_BINDINGS, &p->eio,
					  sizeof(p->eio));
			break;
		case FI_CRC:
			b[0] = p->bind[0][0];
			b[0].access = DRM_WEAVE_ACCESS_READ;
			b[1] = weave_binding(l->wres, DRM_WEAVE_ACCESS_WRITE,
					     0, 4);
			weave_task_launch(&p->task[k], DRM_WEAVE_KERNEL_CRC32C,
					  b, 2, NULL, 0);
			break;
		}
		p->task[k].label = seed + k;
		p->stream[k] = l->stream;
	}
	if (kind == FI_POISON_ALIGN)
		p->stream[3] = c->lane[1].stream;
}

/* Enqueues tasks @first to @first + @n - 1 of @p, raw; notes their seqnos. */
static int fi_poison_enqueue(int fd, struct fi_poison *p, uint32_t first,
			     uint32_t n, const struct fi_syncs *s)
{
	uint64_t seqno = 0;
	uint32_t k;
	int ret;

	ret = fi_enqueue_raw(fd, p->stream[first], &p->task[first], n,
			     s ? s->in : NULL, s ? s->nin : 0, &seqno);
	for (k = 0; !ret && k < n; k++)
		p->seqno[first + k] = seqno - n + 1 + k;
	return ret;
}

/* Ranges task @k of @p writes; the @j-th is fi_poison_range(). */
static uint32_t fi_poison_nranges(const struct fi_poison *p, uint32_t k)
{
	return p->role[k] == FI_FAIL_RES ? FI_FAIL_BINDINGS : 1;
}

static struct drm_weave_binding fi_poison_range(const struct fi_poison *p,
						uint32_t k, uint32_t j)
{
	return p->bind[k][p->role[k] == FI_CRC ? 1 : j];
}

/* Checks that report task @t is task @k of @p. */
static void fi_poison_expect_task(struct __test_metadata *_metadata,
				  const struct fi_poison *p, uint32_t k,
				  const struct drm_weave_failure_task *t)
{
	EXPECT_EQ(DRM_WEAVE_FAILURE_TASK_OWN, t->flags);
	EXPECT_EQ(p->stream[k], t->stream);
	EXPECT_EQ(p->seqno[k], t->seqno);
	EXPECT_EQ(p->task[k].label, t->label);
	EXPECT_EQ(p->task[k].type, t->type);
	EXPECT_EQ(p->task[k].kernel, t->kernel);
}

/*
 * Checks the report @r of a range of task @k of @p: one failure, whose
 * root is task @root with error @err and cause @cause, and whose skip
 * records are the crc32c's if it read task @root's bytes.  Returns its id.
 */
static uint64_t fi_poison_expect(struct __test_metadata *_metadata,
				 const struct fi_poison *p,
				 const struct weave_test_report *r,
				 uint32_t root, int err, uint32_t cause)
{
	const struct drm_weave_failure *f = &r->failure[0];

	EXPECT_EQ(err, f->error);
	EXPECT_EQ(cause, f->cause);
	fi_poison_expect_task(_metadata, p, root, &f->root);
	EXPECT_EQ(0u, f->skips_dropped);
	if (root) {
		EXPECT_EQ(0u, f->nskips);
	} else {
		/* The crc32c read it, and was skipped. */
		EXPECT_EQ(1u, f->nskips);
		if (f->nskips == 1)
			fi_poison_expect_task(_metadata, p, FI_PTASKS - 1,
					      &r->skip[f->first_skip]);
	}
	return f->id;
}

/* Checks what the tasks of @p that ran (@ran) wrote. */
static void fi_poison_wrote(struct __test_metadata *_metadata, fi_t *self,
			    struct fi_lane *l, const struct fi_poison *p,
			    const bool *ran, const char *what, unsigned int n)
{
	uint32_t *words = (uint32_t *)l->wmap;
	uint32_t k, i;

	for (k = 0; k < FI_PTASKS; k++) {
		if (!ran[k])
			continue;
		switch (p->role[k]) {
		case FI_WRITE_0:
			ASSERT_EQ(0, memcmp(l->wmap, p->bytes, FI_WRITE)) {
				TH_LOG("%s, fail-nth %u: the host write is not in the buffer",
				       what, n);
			}
			break;
		case FI_FILL_1:
			for (i = 0; i < self->page / 4; i++) {
				ASSERT_EQ(p->pattern,
					  words[self->page / 4 + i]) {
					TH_LOG("%s, fail-nth %u: the fill is not in the buffer (word %u)",
					       what, n, i);
				}
			}
			break;
		case FI_FAIL_RES:
			break;
		case FI_CRC:
			ASSERT_EQ(weave_test_crc32c(p->bytes, FI_WRITE),
				  l->rmap[0]) {
				TH_LOG("%s, fail-nth %u: wrong crc32c", what, n);
			}
			break;
		}
	}
}

/*
 * After a step's work ran: which task of @p the kernel could not pack, or
 * -1 for none.  Every range shows what the uAPI says it must: that task's
 * own new failure (-ENOMEM, cause ENCODE) on what it should have written,
 * the FAIL's included; the FAIL's -EIO otherwise; the crc32c skipped,
 * carrying the failure of task 0 if there is one; everything else good,
 * with the bytes its task wrote.
 */
static int fi_poison_check(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_client *c, const struct fi_poison *p,
			   struct weave_test_report *r, const char *what,
			   unsigned int n)
{
	uint64_t id[FI_PTASKS] = { 0 };
	bool ran[FI_PTASKS] = { false };
	struct drm_weave_binding b;
	int poisoned = -1;
	uint32_t k, j, i, nf;

	for (k = 0; k < FI_PTASKS; k++) {
		for (j = 0; j < fi_poison_nranges(p, k); j++) {
			b = fi_poison_range(p, k, j);
			nf = weave_test_report(_metadata, c->fd, b.handle,
					       b.offset, b.size, r);
			for (i = 0; nf > 1 && i < nf; i++)
				weave_test_log_failure(_metadata, r, i);
			ASSERT_GE(1u, nf) {
				TH_LOG("%s, fail-nth %u: task %u's range %u carries %u failures",
				       what, n, k, j, nf);
			}
			if (p->role[k] == FI_CRC) {
				/* Skipped if task 0 left a failure. */
				ASSERT_EQ(id[0] ? 1u : 0u, nf) {
					TH_LOG("%s, fail-nth %u: the crc32c's range carries %u failures, task 0's %s",
					       what, n, nf,
					       id[0] ? "one" : "none");
				}
				if (nf)
					EXPECT_EQ(id[0], r->failure[0].id);
				ran[k] = !nf;
				continue;
			}
			if (!nf) {
				ASSERT_NE((int)FI_FAIL_RES, (int)p->role[k]) {
					TH_LOG("%s, fail-nth %u: the FAIL left its range %u good",
					       what, n, j);
				}
				ASSERT_EQ(0u, id[k]) {
					TH_LOG("%s, fail-nth %u: task %u's range %u is good, its range 0 not",
					       what, n, k, j);
				}
				ran[k] = true;
				continue;
			}
			if (j) {
				/* One failure over all of the task's ranges. */
				ASSERT_EQ(id[k], r->failure[0].id);
				continue;
			}
			if (r->failure[0].cause != DRM_WEAVE_FAILURE_ENCODE) {
				ASSERT_EQ((int)FI_FAIL_RES, (int)p->role[k]) {
					weave_test_log_failure(_metadata, r, 0);
					TH_LOG("%s, fail-nth %u: task %u's range carries a failure",
					       what, n, k);
				}
				id[k] = fi_poison_expect(_metadata, p, r, k,
							 -EIO,
							 DRM_WEAVE_FAILURE_KERNEL);
				continue;
			}
			/* The one task the kernel could not pack. */
			ASSERT_GT(0, poisoned) {
				weave_test_log_failure(_metadata, r, 0);
				TH_LOG("%s, fail-nth %u: tasks %d and %u both could not be packed",
				       what, n, poisoned, k);
			}
			id[k] = fi_poison_expect(_metadata, p, r, k, -ENOMEM,
						 DRM_WEAVE_FAILURE_ENCODE);
			poisoned = k;
		}
	}
	fi_poison_wrote(_metadata, self, &c->lane[0], p, ran, what, n);
	return poisoned;
}

/*
 * After the check: a host write over the host write's range and fills
 * over the others', on lane 0's stream, which takes work: every range is
 * good again, with the new bytes.
 */
static void fi_poison_rewrite(struct __test_metadata *_metadata, fi_t *self,
			      struct fi_client *c, struct fi_poison *p)
{
	struct fi_lane *l = &c->lane[0];
	uint32_t *words = (uint32_t *)l->wmap;
	struct drm_weave_binding b;
	struct weave_test_batch wb;
	uint32_t k, j, i;

	weave_test_fill(p->bytes, sizeof(p->bytes), ~p->seed);
	weave_test_batch_init(&wb);
	weave_test_write_task(&wb, l->wbo, 0, FI_WRITE, p->bytes);
	weave_test_fill_task(&wb, l->wbo, self->page, self->page,
			     ~p->pattern);
	weave_test_fill_task(&wb, l->wres, 0, FI_PRES, p->seed);
	weave_test_enqueue(_metadata, c->fd, l->stream, &wb);
	fi_finish(_metadata, c->fd, l->stream);
	for (k = 0; k < FI_PTASKS; k++) {
		for (j = 0; j < fi_poison_nranges(p, k); j++) {
			b = fi_poison_range(p, k, j);
			weave_test_expect_good(_metadata, c->fd, b.handle,
					       b.offset, b.size);
		}
	}
	ASSERT_EQ(0, memcmp(l->wmap, p->bytes, FI_WRITE));
	for (i = 0; i < self->page / 4; i++)
		ASSERT_EQ(~p->pattern, words[self->page / 4 + i]);
	for (i = 0; i < FI_PRES / 4; i++)
		ASSERT_EQ(p->seed, l->rmap[i]);
}

static void fi_poison_prepare(struct __test_metadata *_metadata, fi_t *self,
			      struct fi_run *r)
{
	struct fi_poison_run *s = r->s;
	int kind = r->c->kind, fd;

	/*
	 * A file of its own at each step: the last step's freed job, fences
	 * and task array went to its file's caches (see "DOC: job
	 * recycling"), and packing the first task into a job would then
	 * allocate nothing to fail, or not, as the timing of their frees
	 * has it.
	 */
	if (r->n > 1) {
		fi_client_close(_metadata, self, &r->cl);
		fi_client_open(_metadata, self, &r->cl, -1, r->c->lanes);
	}
	fd = r->cl.fd;
	fi_poison_build(self, &r->cl, &s->p, 0x60000u * r->n + 0x100u * kind,
			kind);
	if (kind == FI_POISON_ALIGN) {
		/* Queued on lane 0's slot, below its threshold. */
		ASSERT_EQ(0, fi_poison_enqueue(fd, &s->p, 0, 3, NULL));
		ASSERT_EQ(3u, weave_test_client_usage(_metadata,
						      fd).queued_tasks);
	} else {
		fi_in_syncs(_metadata, &r->cl, &self->main, true, &s->s);
	}
	fi_before_take(_metadata, fd, s->p.stream[3], &s->b);
}

static int fi_poison_call(fi_t *self, struct fi_run *r)
{
	struct fi_poison_run *s = r->s;

	(void)self;
	if (r->c->kind == FI_POISON_ALIGN)
		return fi_poison_enqueue(r->cl.fd, &s->p, 3, 1, NULL);
	return fi_poison_enqueue(r->cl.fd, &s->p, 0, FI_PTASKS, &s->s);
}

static void fi_poison_after(struct __test_metadata *_metadata, fi_t *self,
			    struct fi_run *r)
{
	struct fi_poison_run *s = r->s;
	bool align = r->c->kind == FI_POISON_ALIGN;
	const char *what = r->c->what;
	struct drm_weave_stream_query q;
	struct fi_client *c = &r->cl;
	int poisoned;
	uint32_t i;

	if (r->ret) {
		/* Nothing was queued, executed, staged or gated. */
		fi_before_same(_metadata, c->fd, &s->b);
		/* And the same call now goes through. */
		ASSERT_EQ(0, fi_poison_call(self, r));
	}
	/*
	 * The execution took every task of lane 0's slot, packed or not;
	 * with align, the new task waits on lane 1's.
	 */
	ASSERT_EQ(align ? 1u : 0u,
		  weave_test_client_usage(_metadata, c->fd).queued_tasks) {
		TH_LOG("%s, fail-nth %u: the execution left tasks queued",
		       what, r->n);
	}
	fi_finish(_metadata, c->fd, c->lane[0].stream);
	fi_finish(_metadata, c->fd, c->lane[1].stream);
	for (i = 0; i < 2; i++) {
		q = weave_test_squery(_metadata, c->fd, c->lane[i].stream);
		ASSERT_EQ(0, q.error) {
			TH_LOG("%s, fail-nth %u: stream %u failed with %d",
			       what, r->n, q.handle, q.error);
		}
		ASSERT_EQ((uint32_t)DRM_WEAVE_STREAM_ACTIVE, q.state);
		ASSERT_EQ(q.enqueued, q.completed);
	}

	poisoned = fi_poison_check(_metadata, self, c, &s->p, &s->r, what,
				   r->n);
	if (poisoned >= 0) {
		ASSERT_TRUE(r->injected);
		ASSERT_EQ(0, r->ret);
		s->at[poisoned]++;
	}
	fi_poison_rewrite(_metadata, self, c, &s->p);
	fi_syncs_put(_metadata, c->fd, &s->s);
	fi_client_ok(_metadata, self, c);
}

/*
 * An execution that ENQUEUE causes after it committed to queuing its
 * tasks, its slot's threshold or the align of a buffer queued on another
 * slot, cannot keep a task the kernel has no memory to pack into a job.
 * Since uAPI 1.4 the task does not run and what it should have written
 * takes a new failure, -ENOMEM with cause ENCODE, in its place: the call
 * succeeds, the stream stays active and takes more work, a later reader
 * of those bytes is skipped, every other task's bytes are good, and
 * rewriting them makes them good.  Each allocation of the call fails in
 * turn; the kernel's reserve for such a task means that recording it
 * needs none, so no step may fail a stream.  The first task the execution
 * packs, which makes the job, must be seen not to be packed.
 */
static void fi_poison_end(struct __test_metadata *_metadata, fi_t *self,
			  struct fi_run *r)
{
	struct fi_poison_run *s = r->s;

	(void)self;
	fi_note("%s: steps where task 0, 1, 2, 3 could not be packed: %u, %u, %u, %u\n",
		r->c->what, s->at[0], s->at[1], s->at[2], s->at[3]);
	ASSERT_LT(0u, s->at[0]) {
		TH_LOG("%s: no step failed to pack the task that makes a job: the path was not reached",
		       r->c->what);
	}
}

/* --- the table ------------------------------------------------------------ */

FI_CASE(enqueue_cold, .what = "ENQUEUE, first", .kind = FI_ENQ_COLD,
	.size = sizeof(struct fi_enq), .prepare = fi_enq_prepare,
	.call = fi_enq_call, .after = fi_enq_after);
FI_CASE(enqueue_warm, .what = "ENQUEUE", .kind = FI_ENQ_WARM, .lanes = 1,
	.warm = true, .size = sizeof(struct fi_enq),
	.prepare = fi_enq_prepare, .call = fi_enq_call,
	.after = fi_enq_after);
FI_CASE(enqueue_gated, .what = "ENQUEUE, gated", .kind = FI_ENQ_GATED,
	.lanes = 1, .warm = true, .size = sizeof(struct fi_enq),
	.prepare = fi_enq_prepare, .call = fi_enq_call,
	.after = fi_enq_after);

/* A host write, with the slot's in-fence gates, that cannot be packed. */
FI_CASE(enqueue_threshold, .what = "ENQUEUE, executing its slot",
	.kind = FI_POISON_THRESHOLD, .lanes = 2, .warm = true,
	.size = sizeof(struct fi_poison_run), .prepare = fi_poison_prepare,
	.call = fi_poison_call, .after = fi_poison_after,
	.end = fi_poison_end);
/* A task with bindings past three that cannot be packed. */
FI_CASE(enqueue_align, .what = "ENQUEUE, executing another slot",
	.kind = FI_POISON_ALIGN, .lanes = 2, .warm = true,
	.size = sizeof(struct fi_poison_run), .prepare = fi_poison_prepare,
	.call = fi_poison_call, .after = fi_poison_after,
	.end = fi_poison_end);

FI_SUMMARY("fault_inject_submit");

TEST_HARNESS_MAIN
