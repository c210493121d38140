/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The allocation-failure sweep of the fault_inject suites: its fixture,
 * the clients it works on, fail_nth_run() and the table of cases.
 *
 * A case (struct fi_case) names one call: what to set up before each
 * step, the call itself, made with the Nth allocation of the calling task
 * failed, and what to check after it.  fail_nth_run() makes the call for
 * N from 1 until it makes fewer than N allocations; each time the call
 * must succeed or fail with an errno its uAPI documents, keep every
 * promise the uAPI makes about what a failure leaves behind, and leave the
 * client working and nothing allocated.  The lane's kmemleak scan and
 * console check catch what the device's own counters cannot.
 *
 * Each suite lists its cases with FI_CASE(), one harness variant each, so
 * that each case is a TAP line of its own (fi.CASE.sweep), and ends with
 * FI_SUMMARY().  Without fault injection every case skips (see
 * weave_test_fault.h).  To add a case for a new ioctl, write its call and
 * checks and add an FI_CASE() line to the suite of its family.
 */
#ifndef _WEAVE_FAULT_INJECT_H_
#define _WEAVE_FAULT_INJECT_H_

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "weave_test.h"
#include "weave_test_fault.h"

/*
 * A line of the test's output.  Tests run in forked children that end
 * with _exit(): what they print to stdout must be flushed at once.
 */
#define fi_note(...) do {					\
	ksft_print_msg(__VA_ARGS__);				\
	fflush(stdout);						\
} while (0)

/*
 * The threshold of the clients here.  It keeps slot rings and job task
 * arrays under a page, so kvmalloc() never falls back to vmalloc(), whose
 * failures print a stack dump (warn_alloc()); and a four-task enqueue
 * executes its slot within the call.
 */
#define FI_MAX_TASKS	4

/* A loop that gets this far is stuck: no call here allocates that much. */
#define FI_MAX_STEPS	2000u

/* Host-write bytes of one step's work. */
#define FI_WRITE	256

/* Work lanes (stream and buffers) a client has at most. */
#define FI_LANES	3u

/* Syncobjs fi_in_syncs() makes. */
#define FI_SYNCOBJS	4

/* Failures injected by every test, in a page the tests' processes share. */
static uint64_t *fi_total;

static void __attribute__((constructor)) fi_total_map(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	fi_total = p == MAP_FAILED ? NULL : p;
}

/* A stream with buffers of its own for one step's work. */
struct fi_lane {
	uint32_t stream;
	uint32_t wbo;		/* three pages */
	uint32_t wres;		/* one page */
	uint8_t *wmap;
	uint32_t *rmap;
};

/* A client: a file with a stream and buffers for the checked chain. */
struct fi_client {
	int fd;
	uint32_t stream;
	uint32_t bo;		/* four pages */
	uint32_t res;		/* one page */
	uint32_t *res_map;
	uint32_t nlanes;
	struct fi_lane lane[FI_LANES];
};

/*
 * One step's work on a lane: a host write of FI_WRITE bytes at the start
 * of page 0, a fill of page 1 and the crc32c of page 0 into the result.
 * What it must produce follows from @seed alone.
 */
struct fi_work {
	uint32_t seed;
	uint8_t bytes[FI_WRITE];
	struct weave_test_batch b;
};

FIXTURE(fi) {
	struct weave_test_fault fault;
	char path[64];		/* the render node */
	struct drm_weave_device_info info;
	uint64_t page;
	struct drm_weave_memory_usage base;
	struct fi_client main;	/* the client the checks use */
	uint32_t round;		/* names each checked chain */
	uint64_t steps;		/* calls made with the knob armed */
	uint64_t injected;	/* of those, with a failure injected */
	int64_t start;
};

typedef FIXTURE_DATA(fi) fi_t;

/* A sweep under way: the step, its outcome and the case's own state. */
struct fi_run {
	const struct fi_case *c;
	unsigned int n;		/* fail-nth of the step */
	int ret;		/* what the call returned */
	bool injected;		/* the armed failure happened */
	bool stop;		/* the case ends the sweep at this step */
	int fd;			/* the file of the ioctl the case makes */
	unsigned long request;	/* that ioctl, if the case has no call */
	void *arg;		/* and its argument, set by the case */
	struct fi_client cl;	/* the case's client, if it asks for one */
	struct fi_work w;	/* the step's work, if the case makes any */
	void *s;		/* the case's state, @c->size bytes, zeroed */
};

typedef void fi_step_fn(struct __test_metadata *_metadata, fi_t *self,
			struct fi_run *r);

/* What the call may return, checked before the case's own checks. */
enum fi_expect {
	FI_OK_OR_ENOMEM,	/* 0 or -ENOMEM */
	FI_OK,			/* 0: it documents no -ENOMEM */
	FI_ANY,			/* the case checks it */
};

/*
 * struct fi_case - One call swept through fail-nth.
 * @what: the call, as the log says it
 * @kind: a variant of the case's functions (a pass, a kind of work)
 * @expect: what the call may return
 * @uapi_minor: the uAPI minor the call needs
 * @lanes: if not 0, the sweep runs on a client of its own, @r->cl, with
 *	that many lanes, made before the first step and closed after the last
 * @warm: that client ran a checked chain before the first step
 * @size: bytes of the case's state, @r->s
 * @request: the ioctl the case makes, on @r->fd (the case's client's
 *	file, else the main client's) with @r->arg, if it has no @call
 * @begin: before the first step (may be NULL)
 * @prepare: before each step, unarmed (may be NULL)
 * @call: the call, armed; returns 0 or a negative errno (may be NULL:
 *	then @request is the call)
 * @after: the step's checks, unarmed; may set @r->ret to what counts and
 *	@r->stop to end the sweep
 * @end: after the last step (may be NULL)
 */
struct fi_case {
	const char *what;
	int kind;
	enum fi_expect expect;
	unsigned int uapi_minor;
	unsigned int lanes;
	bool warm;
	size_t size;
	unsigned long request;
	fi_step_fn *begin;
	fi_step_fn *prepare;
	int (*call)(fi_t *self, struct fi_run *r);
	fi_step_fn *after;
	fi_step_fn *end;
};

/* The raw ioctl, once: drmIoctl() would repeat it on EINTR or EAGAIN. */
static inline int fi_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg) ? -errno : 0;
}

/*
 * Counts step @n of a loop over @what.  Returns true when the loop is
 * done: when no failure was injected, the call made fewer than @n
 * allocations, and it must then have succeeded.
 */
static inline bool fi_done(struct __test_metadata *_metadata, fi_t *self,
			   const char *what, unsigned int n, bool injected,
			   int ret)
{
	self->steps++;
	if (injected) {
		self->injected++;
		ASSERT_GT(FI_MAX_STEPS, n) {
			TH_LOG("%s: still allocating at fail-nth %u", what, n);
		}
		return false;
	}
	ASSERT_EQ(0, ret) {
		TH_LOG("%s failed with %d (%s) at fail-nth %u, where no allocation failed",
		       what, ret, strerror(-ret), n);
	}
	fi_note("%s: %u allocation(s) failed in turn\n", what, n - 1);
	return true;
}

/*
 * Flushes @stream and waits for it, as weave_test_finish() does, but says
 * why the stream failed if it did.
 */
static inline void fi_finish(struct __test_metadata *_metadata, int fd,
			     uint32_t stream)
{
	struct drm_weave_stream_query q;
	int ret = weave_flush(fd, stream, NULL);

	if (!ret)
		ret = weave_wait(fd, stream,
				 weave_timeout_ns(WEAVE_TEST_WAIT_NS));
	if (ret) {
		memset(&q, 0, sizeof(q));
		weave_stream_query(fd, stream, &q);
		TH_LOG("stream %u: %s; its error %d (%s), %llu enqueued, %llu executed, %llu completed",
		       stream, strerror(-ret), q.error, strerror(-q.error),
		       (unsigned long long)q.enqueued,
		       (unsigned long long)q.executed,
		       (unsigned long long)q.completed);
	}
	ASSERT_EQ(0, ret);
}

/* A new file on the main client's render node, found without a scan. */
static inline int fi_new_file(struct __test_metadata *_metadata, fi_t *self)
{
	int fd = open(self->path, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd) {
		TH_LOG("%s: %s", self->path, strerror(errno));
	}
	return fd;
}

/* A lane of work for @c: a stream and its buffers, mapped. */
static inline void fi_lane_add(struct __test_metadata *_metadata, fi_t *self,
			       struct fi_client *c)
{
	struct fi_lane *l = &c->lane[c->nlanes];

	ASSERT_GT(FI_LANES, c->nlanes);
	l->stream = weave_test_stream(_metadata, c->fd,
				      DRM_WEAVE_PRIORITY_NORMAL);
	l->wbo = weave_test_bo(_metadata, c->fd, 3 * self->page, 0);
	l->wres = weave_test_bo(_metadata, c->fd, self->page, 0);
	l->wmap = weave_test_map(_metadata, c->fd, l->wbo, 3 * self->page);
	l->rmap = weave_test_map(_metadata, c->fd, l->wres, self->page);
	c->nlanes++;
}

/*
 * Sets up client @c on @fd, or on a new file if @fd is negative, with
 * threshold FI_MAX_TASKS and @nlanes lanes.
 */
static inline void fi_client_open(struct __test_metadata *_metadata,
				  fi_t *self, struct fi_client *c, int fd,
				  uint32_t nlanes)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd >= 0 ? fd : fi_new_file(_metadata, self);
	weave_test_param(_metadata, c->fd, DRM_WEAVE_PARAM_MAX_TASKS,
			 FI_MAX_TASKS);
	c->stream = weave_test_stream(_metadata, c->fd,
				      DRM_WEAVE_PRIORITY_NORMAL);
	c->bo = weave_test_bo(_metadata, c->fd, 4 * self->page, 0);
	c->res = weave_test_bo(_metadata, c->fd, self->page, 0);
	c->res_map = weave_test_map(_metadata, c->fd, c->res, self->page);
	while (c->nlanes < nlanes)
		fi_lane_add(_metadata, self, c);
}

/* Unmaps @c's buffers and closes its file, with no knob armed. */
static inline void fi_client_close(struct __test_metadata *_metadata,
				   fi_t *self, struct fi_client *c)
{
	uint32_t i;

	for (i = 0; i < c->nlanes; i++) {
		weave_test_unmap(_metadata, c->lane[i].wmap, 3 * self->page);
		weave_test_unmap(_metadata, c->lane[i].rmap, self->page);
	}
	weave_test_unmap(_metadata, c->res_map, self->page);
	ASSERT_EQ(0, close(c->fd));
	c->fd = -1;
}

/*
 * The client still works: a checked chain (fill, fill, add, copy, crc32c)
 * on its own stream, flushed and waited for, gives the right checksum.
 */
static inline void fi_client_round(struct __test_metadata *_metadata,
				   fi_t *self, struct fi_client *c)
{
	uint32_t i = ++self->round;
	uint32_t a = weave_test_chain_a(i), b = weave_test_chain_b(i);
	struct weave_test_batch batch;

	weave_test_batch_init(&batch);
	weave_test_chain(&batch, c->bo, self->page, a, b, c->res, 0);
	weave_test_enqueue(_metadata, c->fd, c->stream, &batch);
	fi_finish(_metadata, c->fd, c->stream);
	ASSERT_EQ(weave_test_chain_crc(self->page, a, b), c->res_map[0]) {
		TH_LOG("the client's checked chain %u went wrong", i);
	}
}

/* Polls until the device holds @bos more buffers of @bytes than at setup. */
static inline void fi_await_usage(struct __test_metadata *_metadata,
				  fi_t *self, uint64_t bos, uint64_t bytes)
{
	weave_test_await_usage(_metadata, self->main.fd, &self->base, bos, bytes,
			       WEAVE_TEST_WAIT_NS);
}

/* The device is back to its usage at setup and the main client works. */
static inline void fi_settled(struct __test_metadata *_metadata, fi_t *self)
{
	fi_await_usage(_metadata, self, 0, 0);
	fi_client_round(_metadata, self, &self->main);
}

/* @c's jobs are all freed, and its checked chain still works. */
static inline void fi_client_ok(struct __test_metadata *_metadata,
				fi_t *self, struct fi_client *c)
{
	weave_test_client_idle(_metadata, c->fd);
	fi_client_round(_metadata, self, c);
}

static inline void fi_work_build(fi_t *self, struct fi_lane *l,
				 struct fi_work *w, uint32_t seed)
{
	w->seed = seed;
	weave_test_fill(w->bytes, sizeof(w->bytes), seed);
	weave_test_batch_init(&w->b);
	weave_test_write_task(&w->b, l->wbo, 0, sizeof(w->bytes), w->bytes);
	weave_test_fill_task(&w->b, l->wbo, self->page, self->page,
			     seed ^ 0x0f0f0f0fu);
	weave_test_crc_task(&w->b, l->wbo, 0, self->page, l->wres, 0);
}

/* Builds @r's work on lane 0 of its client and enqueues it, unflushed. */
static inline void fi_work_queue(struct __test_metadata *_metadata,
				 fi_t *self, struct fi_run *r, uint32_t seed)
{
	fi_work_build(self, &r->cl.lane[0], &r->w, seed);
	weave_test_enqueue(_metadata, r->cl.fd, r->cl.lane[0].stream,
			   &r->w.b);
}

/* Checks lane @l holds what @w produces (once it has run). */
static inline void fi_work_check(struct __test_metadata *_metadata,
				 fi_t *self, struct fi_lane *l,
				 const struct fi_work *w, const char *what,
				 unsigned int n)
{
	uint32_t *words = (uint32_t *)l->wmap, crc;
	uint8_t *page0 = calloc(1, self->page);
	size_t i;

	ASSERT_NE(NULL, page0);
	memcpy(page0, w->bytes, sizeof(w->bytes));
	crc = weave_test_crc32c(page0, self->page);
	free(page0);
	ASSERT_EQ(0, memcmp(l->wmap, w->bytes, sizeof(w->bytes))) {
		TH_LOG("%s, fail-nth %u: the host write is not in the buffer",
		       what, n);
	}
	for (i = 0; i < self->page / 4; i++) {
		ASSERT_EQ(w->seed ^ 0x0f0f0f0fu, words[self->page / 4 + i]) {
			TH_LOG("%s, fail-nth %u: the fill is not in the buffer (word %zu)",
			       what, n, i);
		}
	}
	ASSERT_EQ(crc, l->rmap[0]) {
		TH_LOG("%s, fail-nth %u: wrong crc32c", what, n);
	}
}

/* Checks lane 0 of @r's client holds what @r's work produces. */
static inline void fi_work_ran(struct __test_metadata *_metadata, fi_t *self,
			       struct fi_run *r)
{
	fi_work_check(_metadata, self, &r->cl.lane[0], &r->w, r->c->what,
		      r->n);
}

/* Whether syncobj @obj has a fence at @point (0: a binary syncobj). */
static inline bool fi_has_fence(int fd, uint32_t obj, uint64_t point)
{
	/* Without a fence at the point, a wait fails at once. */
	return drmSyncobjTimelineWait(fd, &obj, &point, 1, 0, 0, NULL) == 0 ||
	       errno != EINVAL;
}

/* Replaces lane @i's stream of @c, failed, with a new one. */
static inline void fi_lane_renew(struct __test_metadata *_metadata,
				 struct fi_client *c, uint32_t i)
{
	ASSERT_EQ(0, weave_stream_destroy(c->fd, c->lane[i].stream));
	c->lane[i].stream = weave_test_stream(_metadata, c->fd,
					      DRM_WEAVE_PRIORITY_NORMAL);
}

/* In-syncs of a call and the syncobjs they name, made unarmed. */
struct fi_syncs {
	struct drm_weave_sync in[3];
	uint32_t objs[FI_SYNCOBJS];
	uint32_t nin;
};

/*
 * Makes the in-syncs of a call on @c in @s, with the FI_SYNCOBJS
 * syncobjs it creates: signalled ones, or, if @gated, pending ones.
 * Pending fences come from @gate, another client, so that @c's own
 * counters only move with the call.
 */
static inline void fi_in_syncs(struct __test_metadata *_metadata,
			       struct fi_client *c, struct fi_client *gate,
			       bool gated, struct fi_syncs *s)
{
	uint32_t i, gobj = weave_test_syncobj(_metadata, gate->fd);
	uint32_t *objs = s->objs;
	struct weave_test_batch b;
	struct drm_weave_sync out;
	uint64_t point = 5;
	int sfd = -1;

	for (i = 0; i < FI_SYNCOBJS; i++)
		objs[i] = weave_test_syncobj(_metadata, c->fd);
	if (!gated) {
		/* Signalled fences: a binary syncobj and a timeline point. */
		ASSERT_EQ(0, drmSyncobjSignal(c->fd, &objs[0], 1));
		ASSERT_EQ(0, drmSyncobjTimelineSignal(c->fd, &objs[1], &point,
						      1));
		s->in[0] = weave_sync(objs[0], 0);
		s->in[1] = weave_sync(objs[1], point);
		s->nin = 2;
		ASSERT_EQ(0, drmSyncobjDestroy(gate->fd, gobj));
		return;
	}
	/*
	 * Three fences of the gate client's delays, each its own context:
	 * in two binary syncobjs, and at a timeline point (moved there from
	 * the fourth syncobj).
	 */
	for (i = 0; i < 3; i++) {
		weave_test_batch_init(&b);
		weave_test_delay(&b, 10000);
		weave_test_enqueue(_metadata, gate->fd, gate->stream, &b);
		out = weave_sync(gobj, 0);
		ASSERT_EQ(0, weave_flush(gate->fd, gate->stream, &out));
		ASSERT_EQ(0, drmSyncobjExportSyncFile(gate->fd, gobj, &sfd));
		ASSERT_EQ(0, drmSyncobjImportSyncFile(c->fd,
						      objs[i == 2 ? 3 : i],
						      sfd));
		close(sfd);
		s->in[i] = weave_sync(objs[i], i == 2 ? point : 0);
	}
	ASSERT_EQ(0, drmSyncobjTransfer(c->fd, objs[2], point, objs[3], 0, 0));
	ASSERT_EQ(0, drmSyncobjDestroy(gate->fd, gobj));
	s->nin = 3;
}

/* Destroys the syncobjs fi_in_syncs() made, if it made any. */
static inline void fi_syncs_put(struct __test_metadata *_metadata, int fd,
				struct fi_syncs *s)
{
	uint32_t i;

	for (i = 0; s->nin && i < FI_SYNCOBJS; i++)
		ASSERT_EQ(0, drmSyncobjDestroy(fd, s->objs[i]));
	s->nin = 0;
}

/* ENQUEUE of @n tasks, raw; its seqno into @seqno if not NULL. */
static inline int fi_enqueue_raw(int fd, uint32_t stream,
				 const struct drm_weave_task *task, uint32_t n,
				 const struct drm_weave_sync *in, uint32_t nin,
				 uint64_t *seqno)
{
	struct drm_weave_enqueue args;
	int ret;

	memset(&args, 0, sizeof(args));
	args.stream = stream;
	args.tasks.ptr = (uintptr_t)task;
	args.tasks.stride = sizeof(*task);
	args.tasks.count = n;
	args.in_syncs.ptr = (uintptr_t)in;
	args.in_syncs.stride = sizeof(*in);
	args.in_syncs.count = nin;
	ret = fi_ioctl(fd, DRM_IOCTL_WEAVE_ENQUEUE, &args);
	if (seqno)
		*seqno = args.seqno;
	return ret;
}

FIXTURE_VARIANT(fi) {
	const struct fi_case *c;
};

FIXTURE_SETUP(fi)
{
	char buf[24];
	ssize_t len;
	int fd;

	self->main.fd = -1;
	self->start = weave_test_now();
	weave_test_fault_open(_metadata, &self->fault);
	if (weave_test_fault_absent(&self->fault))
		return;

	fd = weave_test_open(_metadata);
	self->info = weave_test_info(_metadata, fd);
	self->page = self->info.page_size;
	fi_client_open(_metadata, self, &self->main, fd, 0);
	self->base = weave_test_usage(_metadata, self->main.fd);
	snprintf(buf, sizeof(buf), "/proc/self/fd/%d", self->main.fd);
	len = readlink(buf, self->path, sizeof(self->path) - 1);
	ASSERT_LT(0, len);
	self->path[len] = 0;

	fi_client_round(_metadata, self, &self->main);

	/* Last, as the teardown that restores the knobs runs after it only. */
	weave_test_fault_set(_metadata, &self->fault);
}

FIXTURE_TEARDOWN(fi)
{
	bool absent = weave_test_fault_absent(&self->fault);

	weave_test_fault_close(_metadata, &self->fault);
	if (self->main.fd >= 0)
		close(self->main.fd);
	if (absent)
		return;
	if (fi_total)
		__atomic_add_fetch(fi_total, self->injected, __ATOMIC_SEQ_CST);
	fi_note("%s: %llu calls with fail-nth armed, %llu allocation failures injected, %lld ms\n",
		variant->c->what, (unsigned long long)self->steps,
		(unsigned long long)self->injected,
		(long long)((weave_test_now() - self->start) / 1000000));
}

/* Checks what the call of step @r returned, as its case expects. */
static inline void fi_expect(struct __test_metadata *_metadata,
			     const struct fi_run *r)
{
	switch (r->c->expect) {
	case FI_OK_OR_ENOMEM:
		weave_test_ok_or_enomem(_metadata, r->c->what, r->n, r->ret);
		break;
	case FI_OK:
		ASSERT_EQ(0, r->ret) {
			TH_LOG("%s at fail-nth %u: %s", r->c->what, r->n,
			       strerror(-r->ret));
		}
		break;
	case FI_ANY:
		break;
	}
}

/*
 * fail_nth_run() - Sweeps case @c through fail-nth.
 *
 * For N from 1: the case prepares the step, its call runs with the Nth
 * allocation failed, and its checks follow, until the call makes fewer
 * than N allocations (it must then have succeeded) or the case stops.
 */
static inline void fail_nth_run(struct __test_metadata *_metadata,
				fi_t *self, const struct fi_case *c)
{
	struct fi_run r;

	memset(&r, 0, sizeof(r));
	r.c = c;
	r.cl.fd = -1;
	ASSERT_LE(c->uapi_minor, self->info.uapi_minor);
	r.s = calloc(1, c->size ? c->size : 1);
	ASSERT_NE(NULL, r.s);
	r.fd = self->main.fd;
	r.request = c->request;
	if (c->lanes) {
		fi_client_open(_metadata, self, &r.cl, -1, c->lanes);
		if (c->warm)
			fi_client_round(_metadata, self, &r.cl);
		r.fd = r.cl.fd;
	}
	if (c->begin)
		c->begin(_metadata, self, &r);
	for (r.n = 1;; r.n++) {
		r.stop = false;
		if (c->prepare)
			c->prepare(_metadata, self, &r);
		weave_test_fault_arm(_metadata, &self->fault, r.n);
		r.ret = c->call ? c->call(self, &r) :
				  fi_ioctl(r.fd, r.request, r.arg);
		r.injected = weave_test_fault_disarm(_metadata, &self->fault);
		fi_expect(_metadata, &r);
		c->after(_metadata, self, &r);
		if (r.stop) {
			self->steps++;
			self->injected += r.injected;
			break;
		}
		if (fi_done(_metadata, self, c->what, r.n, r.injected, r.ret))
			break;
	}
	if (c->end)
		c->end(_metadata, self, &r);
	if (c->lanes) {
		fi_client_close(_metadata, self, &r.cl);
		fi_settled(_metadata, self);
	}
	free(r.s);
}

/*
 * FI_CASE() - A row of a suite's table: case @name, a harness variant
 * of the fi fixture, whose fields follow (see struct fi_case).
 */
#define FI_CASE(name, ...)						\
	static const struct fi_case fi_case_##name = { __VA_ARGS__ };	\
	FIXTURE_VARIANT_ADD(fi, name) {					\
		.c = &fi_case_##name,					\
	}

/* The one test of the fi fixture: the sweep of its variant's case. */
TEST_F_TIMEOUT(fi, sweep, 300)
{
	if (weave_test_fault_absent(&self->fault))
		return;
	fail_nth_run(_metadata, self, variant->c);
}

/*
 * FI_SUMMARY() - Last, in a fixture of its own (fixtures run in the order
 * they are defined): the failures the suite injected, the number the
 * documentation quotes summed over the fault_inject suites.
 */
#define FI_SUMMARY(suite)						\
	FIXTURE(summary) {						\
		struct weave_test_fault fault;				\
	};								\
	FIXTURE_SETUP(summary)						\
	{								\
		weave_test_fault_open(_metadata, &self->fault);		\
	}								\
	FIXTURE_TEARDOWN(summary)					\
	{								\
		weave_test_fault_close(_metadata, &self->fault);	\
	}								\
	TEST_F(summary, total)						\
	{								\
		if (weave_test_fault_absent(&self->fault))		\
			return;						\
		ASSERT_NE(NULL, fi_total);				\
		fi_note("%s: %llu allocation failures injected in all\n", \
			suite, (unsigned long long)*fi_total);		\
		ASSERT_LT(0u, *fi_total);				\
	}

#endif /* _WEAVE_FAULT_INJECT_H_ */
