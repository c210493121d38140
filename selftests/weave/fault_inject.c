// SPDX-License-Identifier: GPL-2.0
/*
 * weave: allocation failures of the calls that make and query objects.
 * Open and close, BO_CREATE, the core ioctls that make objects through
 * weave's render node (PRIME export and import, syncobj creation), the
 * stream and parameter ioctls, the small queries, CHECK and READ, each
 * swept through fail-nth by fail_nth_run() (fault_inject.h): the table of
 * cases is at the end.  fault_inject_submit.c holds ENQUEUE,
 * fault_inject_flush.c FLUSH and STREAM_ISOLATE, fault_inject_capture.c
 * graph capture and replay.
 */
#include "fault_inject.h"

/* --- open and close ---------------------------------------------------- */

static int fi_open_call(fi_t *self, struct fi_run *r)
{
	int fd = open(self->path, O_RDWR | O_CLOEXEC);

	r->cl.fd = fd;
	return fd < 0 ? -errno : 0;
}

static void fi_open_after(struct __test_metadata *_metadata, fi_t *self,
			  struct fi_run *r)
{
	struct fi_client c;

	if (r->cl.fd >= 0) {
		/* A file that opened is a whole client. */
		fi_client_open(_metadata, self, &c, r->cl.fd, 0);
		fi_client_round(_metadata, self, &c);
		fi_client_close(_metadata, self, &c);
		r->cl.fd = -1;
	}
	fi_settled(_metadata, self);
}

/*
 * Gives @c work of every kind a close must cancel and reap: a job running
 * a delay, a job waiting on that job's fence (a gate), tasks queued in a
 * slot's ring, and staged host-write bytes.
 */
static void fi_busy(struct __test_metadata *_metadata, fi_t *self,
		    struct fi_client *c)
{
	uint32_t obj = weave_test_syncobj(_metadata, c->fd);
	struct drm_weave_sync sync = weave_sync(obj, 0);
	uint32_t gated, queued, staged;
	uint8_t bytes[FI_WRITE];
	struct weave_test_batch b;

	gated = weave_test_stream(_metadata, c->fd, DRM_WEAVE_PRIORITY_NORMAL);
	queued = weave_test_stream(_metadata, c->fd, DRM_WEAVE_PRIORITY_NORMAL);
	staged = weave_test_stream(_metadata, c->fd, DRM_WEAVE_PRIORITY_LOW);

	weave_test_batch_init(&b);
	weave_test_delay(&b, self->info.job_timeout_ms * 1000 / 2);
	weave_test_fill_task(&b, c->bo, 0, self->page, 1);
	weave_test_enqueue(_metadata, c->fd, c->stream, &b);
	ASSERT_EQ(0, weave_flush(c->fd, c->stream, &sync));

	weave_test_fill_task(&b, c->bo, self->page, self->page, 2);
	ASSERT_EQ(0, weave_enqueue(c->fd, gated, b.task, b.n, &sync, 1,
				   NULL));
	weave_test_batch_init(&b);
	ASSERT_EQ(0, weave_flush(c->fd, gated, NULL));

	weave_test_fill_task(&b, c->res, 0, self->page, 3);
	weave_test_enqueue(_metadata, c->fd, queued, &b);

	memset(bytes, 4, sizeof(bytes));
	weave_test_write_task(&b, c->bo, 2 * self->page, sizeof(bytes), bytes);
	weave_test_enqueue(_metadata, c->fd, staged, &b);

	ASSERT_EQ(2u, weave_test_client_usage(_metadata, c->fd).queued_tasks);
	ASSERT_NE(0u, weave_test_client_usage(_metadata, c->fd).staged_bytes);
}

/* A new client, busy if the case's kind says so, its last map gone. */
static void fi_close_prepare(struct __test_metadata *_metadata, fi_t *self,
			     struct fi_run *r)
{
	fi_client_open(_metadata, self, &r->cl, -1, 0);
	fi_client_round(_metadata, self, &r->cl);
	if (r->c->kind)
		fi_busy(_metadata, self, &r->cl);
	weave_test_unmap(_metadata, r->cl.res_map, self->page);
}

/* The last reference: the file is released within the call. */
static int fi_close_call(fi_t *self, struct fi_run *r)
{
	(void)self;
	return close(r->cl.fd) ? -errno : 0;
}

/* Its work is cancelled and reaped: its buffers are freed. */
static void fi_settled_after(struct __test_metadata *_metadata, fi_t *self,
			     struct fi_run *r)
{
	(void)r;
	fi_settled(_metadata, self);
}

/* --- buffers ----------------------------------------------------------- */

static void fi_bo_create_prepare(struct __test_metadata *_metadata,
				 fi_t *self, struct fi_run *r)
{
	struct drm_weave_bo_create *args = r->s;

	(void)_metadata;
	memset(args, 0, sizeof(*args));
	args->size = 2 * self->page;
	args->flags = r->n % 2 ? 0 : DRM_WEAVE_BO_NO_MMAP;
	r->arg = args;
}

static void fi_bo_create_after(struct __test_metadata *_metadata, fi_t *self,
			       struct fi_run *r)
{
	struct drm_weave_bo_create *args = r->s;
	uint8_t *map;

	if (!r->ret) {
		ASSERT_EQ(2 * self->page, args->size);
		fi_await_usage(_metadata, self, 1, 2 * self->page);
		if (!args->flags) {
			map = weave_test_map(_metadata, self->main.fd,
					     args->handle, 2 * self->page);
			ASSERT_EQ(2 * self->page,
				  weave_test_check_bytes(map, 2 * self->page,
							 0));
			weave_test_unmap(_metadata, map, 2 * self->page);
		}
		weave_test_close_bo(_metadata, self->main.fd, args->handle);
	}
	fi_settled(_metadata, self);
}

/* --- PRIME and syncobjs: core ioctls that make objects through weave --- */

struct fi_prime {
	struct drm_prime_handle args;
	uint32_t bo;
	int fd2;
	int dmabuf;
};

/* A buffer of @self->page bytes of @byte on the main client. */
static uint32_t fi_prime_bo(struct __test_metadata *_metadata, fi_t *self,
			    int byte)
{
	uint32_t bo = weave_test_bo(_metadata, self->main.fd, self->page, 0);
	uint8_t *map = weave_test_map(_metadata, self->main.fd, bo,
				      self->page);

	memset(map, byte, self->page);
	weave_test_unmap(_metadata, map, self->page);
	return bo;
}

/* Buffer @handle of @fd holds @byte everywhere. */
static void fi_prime_expect(struct __test_metadata *_metadata, fi_t *self,
			    int fd, uint32_t handle, int byte)
{
	uint8_t *map = weave_test_map(_metadata, fd, handle, self->page);

	ASSERT_EQ(self->page, weave_test_check_bytes(map, self->page, byte));
	weave_test_unmap(_metadata, map, self->page);
}

static void fi_export_begin(struct __test_metadata *_metadata, fi_t *self,
			    struct fi_run *r)
{
	struct fi_prime *p = r->s;

	p->fd2 = fi_new_file(_metadata, self);
}

/* A fresh buffer each time: no dma-buf is cached for it. */
static void fi_export_prepare(struct __test_metadata *_metadata, fi_t *self,
			      struct fi_run *r)
{
	struct fi_prime *p = r->s;

	p->bo = fi_prime_bo(_metadata, self, 0xe5);
	memset(&p->args, 0, sizeof(p->args));
	p->args.handle = p->bo;
	p->args.flags = DRM_CLOEXEC | DRM_RDWR;
	p->args.fd = -1;
	r->arg = &p->args;
}

static void fi_export_after(struct __test_metadata *_metadata, fi_t *self,
			    struct fi_run *r)
{
	struct fi_prime *p = r->s;
	uint32_t imported;

	if (r->ret) {
		/* Nothing half made: an export now works. */
		ASSERT_EQ(0, weave_bo_export(self->main.fd, p->bo,
					     DRM_CLOEXEC | DRM_RDWR,
					     &p->args.fd));
	}
	/* The dma-buf is the buffer, in another file too. */
	ASSERT_EQ(0, weave_bo_import(p->fd2, p->args.fd, &imported));
	fi_prime_expect(_metadata, self, p->fd2, imported, 0xe5);
	fi_await_usage(_metadata, self, 1, self->page);
	weave_test_close_bo(_metadata, p->fd2, imported);
	weave_test_close_bo(_metadata, self->main.fd, p->bo);
	ASSERT_EQ(0, close(p->args.fd));
	fi_settled(_metadata, self);
}

static void fi_export_end(struct __test_metadata *_metadata, fi_t *self,
			  struct fi_run *r)
{
	struct fi_prime *p = r->s;

	(void)_metadata;
	(void)self;
	close(p->fd2);
}

/* A fresh importer each time: it has seen no dma-buf yet. */
static void fi_import_prepare(struct __test_metadata *_metadata, fi_t *self,
			      struct fi_run *r)
{
	struct fi_prime *p = r->s;

	p->fd2 = fi_new_file(_metadata, self);
	p->bo = fi_prime_bo(_metadata, self, 0x3c);
	ASSERT_EQ(0, weave_bo_export(self->main.fd, p->bo,
				     DRM_CLOEXEC | DRM_RDWR, &p->dmabuf));
	memset(&p->args, 0, sizeof(p->args));
	p->args.fd = p->dmabuf;
	r->fd = p->fd2;
	r->arg = &p->args;
}

static void fi_import_after(struct __test_metadata *_metadata, fi_t *self,
			    struct fi_run *r)
{
	struct fi_prime *p = r->s;
	uint32_t again;

	/* Importing again gives the same handle, or the first one. */
	ASSERT_EQ(0, weave_bo_import(p->fd2, p->dmabuf, &again));
	if (!r->ret) {
		ASSERT_EQ(p->args.handle, again);
	}
	fi_prime_expect(_metadata, self, p->fd2, again, 0x3c);
	/* One object, however many handles. */
	fi_await_usage(_metadata, self, 1, self->page);
	ASSERT_EQ(0, close(p->dmabuf));
	weave_test_close_bo(_metadata, self->main.fd, p->bo);
	ASSERT_EQ(0, close(p->fd2));
	fi_settled(_metadata, self);
}

/* Kind 1: created signalled. */
static void fi_syncobj_prepare(struct __test_metadata *_metadata,
			       fi_t *self, struct fi_run *r)
{
	struct drm_syncobj_create *args = r->s;

	(void)_metadata;
	(void)self;
	memset(args, 0, sizeof(*args));
	args->flags = r->c->kind ? DRM_SYNCOBJ_CREATE_SIGNALED : 0;
	r->arg = args;
}

static void fi_syncobj_after(struct __test_metadata *_metadata, fi_t *self,
			     struct fi_run *r)
{
	struct drm_syncobj_create *args = r->s;
	uint32_t obj = args->handle;

	if (!r->ret) {
		/* Signalled if asked, else without a fence. */
		ASSERT_EQ(r->c->kind ? 0 : -EINVAL,
			  drmSyncobjWait(self->main.fd, &obj, 1, 0, 0, NULL) ?
			  -errno : 0);
		ASSERT_EQ(0, drmSyncobjDestroy(self->main.fd, obj));
	}
	fi_settled(_metadata, self);
}

/* --- streams and settings ------------------------------------------------ */

struct fi_stream {
	struct drm_weave_client_usage before;
	struct drm_weave_stream_create create;
	struct drm_weave_stream_destroy destroy;
	uint32_t obj;
};

static void fi_screate_prepare(struct __test_metadata *_metadata, fi_t *self,
			       struct fi_run *r)
{
	struct fi_stream *s = r->s;

	s->before = weave_test_client_usage(_metadata, self->main.fd);
	memset(&s->create, 0, sizeof(s->create));
	s->create.priority = DRM_WEAVE_PRIORITY_NORMAL;
	r->arg = &s->create;
}

static void fi_screate_after(struct __test_metadata *_metadata, fi_t *self,
			     struct fi_run *r)
{
	struct fi_stream *s = r->s;
	int fd = self->main.fd;

	ASSERT_EQ(s->before.streams + !r->ret,
		  weave_test_client_usage(_metadata, fd).streams);
	if (!r->ret) {
		weave_test_squery(_metadata, fd, s->create.handle);
		ASSERT_EQ(0, weave_stream_destroy(fd, s->create.handle));
	}
	fi_settled(_metadata, self);
}

/*
 * STREAM_DESTROY executes the stream's queued tasks first: "destroying a
 * stream never loses work".  So whatever allocation fails, the work must
 * be done once the client flushes.  Out of memory, the call either
 * destroys the stream, its tasks submitted or held for the next FLUSH, or
 * fails with -ENOMEM and leaves the stream, its tasks still queued, to be
 * destroyed by a second call.
 */
static void fi_sdestroy_begin(struct __test_metadata *_metadata, fi_t *self,
			      struct fi_run *r)
{
	struct fi_stream *s = r->s;

	(void)self;
	s->obj = weave_test_syncobj(_metadata, r->cl.fd);
}

static void fi_sdestroy_prepare(struct __test_metadata *_metadata,
				fi_t *self, struct fi_run *r)
{
	struct fi_stream *s = r->s;
	struct fi_lane *l = &r->cl.lane[0];
	uint8_t bytes[FI_WRITE];
	struct weave_test_batch b;
	uint32_t stream;

	stream = weave_test_stream(_metadata, r->cl.fd,
				   DRM_WEAVE_PRIORITY_NORMAL);
	memset(bytes, r->n & 0xff, sizeof(bytes));
	weave_test_batch_init(&b);
	weave_test_write_task(&b, l->wbo, 0, sizeof(bytes), bytes);
	weave_test_fill_task(&b, l->wbo, self->page, self->page,
			     0xd0000000u | r->n);
	weave_test_enqueue(_metadata, r->cl.fd, stream, &b);
	memset(&s->destroy, 0, sizeof(s->destroy));
	s->destroy.handle = stream;
	r->arg = &s->destroy;
}

static void fi_sdestroy_after(struct __test_metadata *_metadata, fi_t *self,
			      struct fi_run *r)
{
	struct fi_stream *s = r->s;
	uint32_t stream = s->destroy.handle, n = r->n;
	uint32_t *words = (uint32_t *)r->cl.lane[0].wmap;
	struct drm_weave_stream_query q;
	struct drm_weave_sync out;
	int fd = r->cl.fd;

	if (r->ret) {
		q = weave_test_squery(_metadata, fd, stream);
		ASSERT_EQ(0, q.error);
		ASSERT_EQ(0, weave_stream_destroy(fd, stream));
	}
	ASSERT_EQ(-ENOENT, weave_stream_query(fd, stream, &q));

	/* Its two tasks ran, or run with the next flush. */
	out = weave_sync(s->obj, 0);
	ASSERT_EQ(0, weave_flush_all(fd, &out));
	ASSERT_EQ(0, drmSyncobjWait(fd, &s->obj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	/* Lost work fails the test; the loop goes on to find all. */
	EXPECT_EQ((size_t)FI_WRITE,
		  weave_test_check_bytes(r->cl.lane[0].wmap, FI_WRITE,
					 n & 0xff)) {
		TH_LOG("STREAM_DESTROY at fail-nth %u returned 0 but its queued host write never ran",
		       n);
	}
	EXPECT_EQ(0xd0000000u | n, words[self->page / 4]) {
		TH_LOG("STREAM_DESTROY at fail-nth %u returned 0 but its queued fill never ran",
		       n);
	}
	fi_client_round(_metadata, self, &r->cl);
}

/*
 * DRM_WEAVE_PARAM_MAX_TASKS makes the client a new scheduler core: on
 * failure the old one, and its threshold, must stay.
 */
struct fi_param {
	struct drm_weave_set_param args;
	uint32_t stream;
	int fd;
};

static void fi_param_prepare(struct __test_metadata *_metadata, fi_t *self,
			     struct fi_run *r)
{
	struct fi_param *p = r->s;

	ASSERT_LT(3u, self->info.max_tasks);
	p->fd = fi_new_file(_metadata, self);
	p->stream = weave_test_stream(_metadata, p->fd,
				      DRM_WEAVE_PRIORITY_NORMAL);
	memset(&p->args, 0, sizeof(p->args));
	p->args.param = DRM_WEAVE_PARAM_MAX_TASKS;
	p->args.value = 3;
	r->fd = p->fd;
	r->arg = &p->args;
}

static void fi_param_after(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_run *r)
{
	struct fi_param *p = r->s;
	struct weave_test_batch b;
	uint32_t i;

	/* Three tasks execute the slot if and only if it took. */
	weave_test_batch_init(&b);
	for (i = 0; i < 3; i++)
		weave_test_noop(&b);
	weave_test_enqueue(_metadata, p->fd, p->stream, &b);
	ASSERT_EQ(r->ret ? 0u : 3u,
		  weave_test_squery(_metadata, p->fd, p->stream).executed);
	fi_finish(_metadata, p->fd, p->stream);
	ASSERT_EQ(3u, weave_test_squery(_metadata, p->fd, p->stream).completed);
	ASSERT_EQ(0, close(p->fd));
	fi_settled(_metadata, self);
}

/*
 * The ioctls that should allocate nothing: each takes one step, or fails
 * a documented way.  None of them documents -ENOMEM.  The case's kind
 * says which.
 */
enum fi_small {
	FI_QUERY_INFO, FI_QUERY_MEMORY, FI_QUERY_CLIENT, FI_STREAM_QUERY,
	FI_ISOLATE_ENTER, FI_ISOLATE_LEAVE, FI_STRATEGY, FI_WAIT_DONE,
	FI_WAIT_RUNNING, FI_MMAP_OFFSET, FI_GEM_CLOSE,
};

struct fi_small_args {
	union {
		struct drm_weave_query qa;
		struct drm_weave_stream_query sq;
		struct drm_weave_stream_isolate iso;
		struct drm_weave_set_param sp;
		struct drm_weave_wait w;
		struct drm_weave_bo_mmap_offset mo;
		struct drm_gem_close gc;
	} u;
	uint8_t reply[256];
};

/* Argument and state, made before arming. */
static void fi_small_prepare(struct __test_metadata *_metadata, fi_t *self,
			     struct fi_run *r)
{
	struct fi_small_args *a = r->s;
	uint32_t stream = self->main.stream;
	int fd = self->main.fd;
	struct weave_test_batch b;

	memset(&a->u, 0, sizeof(a->u));
	r->arg = &a->u;
	switch (r->c->kind) {
	case FI_QUERY_INFO: case FI_QUERY_MEMORY: case FI_QUERY_CLIENT:
		r->request = DRM_IOCTL_WEAVE_QUERY;
		a->u.qa.type = r->c->kind;
		a->u.qa.size = sizeof(a->reply);
		a->u.qa.pointer = (uintptr_t)a->reply;
		break;
	case FI_STREAM_QUERY:
		r->request = DRM_IOCTL_WEAVE_STREAM_QUERY;
		a->u.sq.handle = stream;
		break;
	case FI_ISOLATE_LEAVE:
		ASSERT_EQ(0, weave_stream_isolate(fd, stream,
						  DRM_WEAVE_ISOLATION_ENTER));
		/* fall through */
	case FI_ISOLATE_ENTER:
		r->request = DRM_IOCTL_WEAVE_STREAM_ISOLATE;
		a->u.iso.handle = stream;
		a->u.iso.op = r->c->kind == FI_ISOLATE_ENTER ?
			      DRM_WEAVE_ISOLATION_ENTER :
			      DRM_WEAVE_ISOLATION_LEAVE;
		break;
	case FI_STRATEGY:
		r->request = DRM_IOCTL_WEAVE_SET_PARAM;
		a->u.sp.param = DRM_WEAVE_PARAM_STRATEGY;
		a->u.sp.value = r->n % 2 ? DRM_WEAVE_STRATEGY_SEQUENTIAL :
					   DRM_WEAVE_STRATEGY_INTERLEAVE;
		break;
	case FI_WAIT_RUNNING:
		weave_test_batch_init(&b);
		weave_test_delay(&b, 20000);
		weave_test_enqueue(_metadata, fd, stream, &b);
		ASSERT_EQ(0, weave_flush(fd, stream, NULL));
		/* fall through */
	case FI_WAIT_DONE:
		r->request = DRM_IOCTL_WEAVE_WAIT;
		a->u.w.handle = stream;
		a->u.w.timeout_ns = weave_timeout_ns(WEAVE_TEST_WAIT_NS);
		break;
	case FI_MMAP_OFFSET:
		r->request = DRM_IOCTL_WEAVE_BO_MMAP_OFFSET;
		a->u.mo.handle = self->main.res;
		break;
	default:
		r->request = DRM_IOCTL_GEM_CLOSE;
		a->u.gc.handle = weave_test_bo(_metadata, fd, self->page, 0);
		break;
	}
}

/* Undoes what the call did, and checks the usage it returned adds up. */
static void fi_small_after(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_run *r)
{
	struct fi_small_args *a = r->s;
	struct drm_weave_client_usage cu;

	if (r->c->kind == FI_ISOLATE_ENTER) {
		ASSERT_EQ(0, weave_stream_isolate(self->main.fd,
						  self->main.stream,
						  DRM_WEAVE_ISOLATION_LEAVE));
	}
	if (r->c->kind == FI_STRATEGY)
		weave_test_param(_metadata, self->main.fd,
				 DRM_WEAVE_PARAM_STRATEGY,
				 DRM_WEAVE_STRATEGY_INTERLEAVE);
	if (r->c->kind == FI_QUERY_CLIENT) {
		memcpy(&cu, a->reply, sizeof(cu));
		ASSERT_EQ(cu.ring_bytes + cu.job_bytes + cu.gate_bytes +
			  cu.arena_bytes + cu.alone_bytes, cu.kernel_bytes);
	}
	fi_settled(_metadata, self);
}

/* --- reports (uAPI 1.3) -------------------------------------------------- */

struct fi_report {
	uint32_t bo;
	struct drm_weave_check_range range;
	struct drm_weave_check args;
	struct drm_weave_failure f[4];
	struct drm_weave_failure_task t[4];
	uint32_t nf, nt;
	uint32_t *data;
};

/*
 * CHECK fails cleanly with -ENOMEM, its one error besides the caller's
 * mistakes: whatever allocation fails, a valid CHECK returns either that
 * or its whole report.
 */
static void fi_check_begin(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_run *r)
{
	struct fi_report *s = r->s;
	struct weave_test_batch b;

	s->bo = weave_test_bo(_metadata, self->main.fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, s->bo, 0, 64, EIO);
	weave_test_copy_task(&b, s->bo, 0, s->bo, 128, 64);
	weave_test_enqueue(_metadata, self->main.fd, self->main.stream, &b);
	fi_finish(_metadata, self->main.fd, self->main.stream);
}

static void fi_check_prepare(struct __test_metadata *_metadata, fi_t *self,
			     struct fi_run *r)
{
	struct fi_report *s = r->s;
	struct drm_weave_check *a = &s->args;

	(void)_metadata;
	s->range = weave_check_range(s->bo, 0, self->page);
	memset(s->f, 0, sizeof(s->f));
	memset(s->t, 0, sizeof(s->t));
	memset(a, 0, sizeof(*a));
	a->ranges.ptr = (uintptr_t)&s->range;
	a->ranges.stride = sizeof(s->range);
	a->ranges.count = 1;
	a->failures.ptr = (uintptr_t)s->f;
	a->failures.stride = sizeof(s->f[0]);
	a->failures.count = 4;
	a->skips.ptr = (uintptr_t)s->t;
	a->skips.stride = sizeof(s->t[0]);
	a->skips.count = 4;
	r->arg = a;
}

static void fi_check_after(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_run *r)
{
	struct fi_report *s = r->s;

	(void)self;
	if (r->ret) {
		ASSERT_TRUE(r->injected);
		return;
	}
	ASSERT_EQ(1u, s->args.nfailures);
	ASSERT_EQ(1u, s->args.nskips);
	ASSERT_EQ(1u, s->range.nfailures);
	ASSERT_EQ(-EIO, s->f[0].error);
	ASSERT_EQ(1u, s->f[0].nskips);
	ASSERT_EQ((uint32_t)DRM_WEAVE_KERNEL_COPY,
		  s->t[s->f[0].first_skip].kernel);
}

static void fi_report_end(struct __test_metadata *_metadata, fi_t *self,
			  struct fi_run *r)
{
	struct fi_report *s = r->s;

	fi_finish(_metadata, self->main.fd, self->main.stream);
	weave_test_close_bo(_metadata, self->main.fd, s->bo);
	free(s->data);
}

/*
 * READ under fail-nth: of a good range (kind 0), after a fill it has to
 * submit itself, it returns the bytes or -ENOMEM; of a tainted range
 * (kind 1), the report or -ENOMEM.  A failed READ submits nothing twice
 * and loses nothing: the next one returns the same.
 */
static void fi_read_begin(struct __test_metadata *_metadata, fi_t *self,
			  struct fi_run *r)
{
	struct fi_report *s = r->s;
	struct weave_test_batch b;

	s->data = malloc(self->page);
	ASSERT_NE(NULL, s->data);
	s->bo = weave_test_bo(_metadata, self->main.fd, 2 * self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, s->bo, self->page, 64, EIO);
	weave_test_enqueue(_metadata, self->main.fd, self->main.stream, &b);
	fi_finish(_metadata, self->main.fd, self->main.stream);
}

/* Queued, not flushed: the READ submits it. */
static void fi_read_prepare(struct __test_metadata *_metadata, fi_t *self,
			    struct fi_run *r)
{
	struct fi_report *s = r->s;
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	weave_test_fill_task(&b, s->bo, 0, self->page, 0x5eed + r->n);
	weave_test_enqueue(_metadata, self->main.fd, self->main.stream, &b);
	memset(s->data, 0, self->page);
	s->nf = 4;
	s->nt = 4;
}

static int fi_read_call(fi_t *self, struct fi_run *r)
{
	struct fi_report *s = r->s;

	return weave_read(self->main.fd, s->bo, r->c->kind * self->page,
			  self->page, s->data,
			  weave_timeout_ns(WEAVE_TEST_WAIT_NS), s->f, &s->nf,
			  s->t, &s->nt);
}

static void fi_read_after(struct __test_metadata *_metadata, fi_t *self,
			  struct fi_run *r)
{
	struct fi_report *s = r->s;

	if (r->ret == -ENOMEM) {
		ASSERT_TRUE(r->injected);
		return;
	}
	if (r->c->kind) {
		ASSERT_EQ(-EIO, r->ret);
		ASSERT_EQ(1u, s->nf);
		ASSERT_EQ(-EIO, s->f[0].error);
		r->ret = 0;
	} else {
		ASSERT_EQ(0, r->ret);
		ASSERT_EQ(0x5eed + r->n, s->data[0]);
		ASSERT_EQ(0x5eed + r->n, s->data[self->page / 4 - 1]);
	}
}

/* --- the table ------------------------------------------------------------ */

FI_CASE(open, .what = "open", .call = fi_open_call, .after = fi_open_after);
FI_CASE(close_idle, .what = "close", .expect = FI_OK,
	.prepare = fi_close_prepare, .call = fi_close_call,
	.after = fi_settled_after);
FI_CASE(close_busy, .what = "close with work", .kind = 1, .expect = FI_OK,
	.prepare = fi_close_prepare, .call = fi_close_call,
	.after = fi_settled_after);
FI_CASE(bo_create, .what = "BO_CREATE",
	.size = sizeof(struct drm_weave_bo_create),
	.request = DRM_IOCTL_WEAVE_BO_CREATE, .prepare = fi_bo_create_prepare,
	.after = fi_bo_create_after);
FI_CASE(prime_export, .what = "PRIME_HANDLE_TO_FD",
	.size = sizeof(struct fi_prime), .begin = fi_export_begin,
	.request = DRM_IOCTL_PRIME_HANDLE_TO_FD, .prepare = fi_export_prepare,
	.after = fi_export_after, .end = fi_export_end);
FI_CASE(prime_import, .what = "PRIME_FD_TO_HANDLE",
	.size = sizeof(struct fi_prime), .prepare = fi_import_prepare,
	.request = DRM_IOCTL_PRIME_FD_TO_HANDLE, .after = fi_import_after);
FI_CASE(syncobj_create, .what = "SYNCOBJ_CREATE",
	.size = sizeof(struct drm_syncobj_create),
	.request = DRM_IOCTL_SYNCOBJ_CREATE, .prepare = fi_syncobj_prepare,
	.after = fi_syncobj_after);
FI_CASE(syncobj_create_signaled, .what = "SYNCOBJ_CREATE, signalled",
	.kind = 1, .size = sizeof(struct drm_syncobj_create),
	.request = DRM_IOCTL_SYNCOBJ_CREATE, .prepare = fi_syncobj_prepare,
	.after = fi_syncobj_after);
FI_CASE(stream_create, .what = "STREAM_CREATE",
	.size = sizeof(struct fi_stream), .prepare = fi_screate_prepare,
	.request = DRM_IOCTL_WEAVE_STREAM_CREATE, .after = fi_screate_after);
FI_CASE(stream_destroy, .what = "STREAM_DESTROY", .lanes = 1,
	.size = sizeof(struct fi_stream), .begin = fi_sdestroy_begin,
	.prepare = fi_sdestroy_prepare,
	.request = DRM_IOCTL_WEAVE_STREAM_DESTROY, .after = fi_sdestroy_after);
FI_CASE(set_param_max_tasks, .what = "SET_PARAM MAX_TASKS",
	.size = sizeof(struct fi_param), .prepare = fi_param_prepare,
	.request = DRM_IOCTL_WEAVE_SET_PARAM, .after = fi_param_after);

#define FI_SMALL(name, k, w)						\
	FI_CASE(name, .what = w, .kind = k, .expect = FI_OK,		\
		.size = sizeof(struct fi_small_args),			\
		.prepare = fi_small_prepare, .after = fi_small_after)

FI_SMALL(query_device_info, FI_QUERY_INFO, "QUERY DEVICE_INFO");
FI_SMALL(query_memory_usage, FI_QUERY_MEMORY, "QUERY MEMORY_USAGE");
FI_SMALL(query_client_usage, FI_QUERY_CLIENT, "QUERY CLIENT_USAGE");
FI_SMALL(stream_query, FI_STREAM_QUERY, "STREAM_QUERY");
FI_SMALL(isolate_enter, FI_ISOLATE_ENTER, "STREAM_ISOLATE enter");
FI_SMALL(isolate_leave, FI_ISOLATE_LEAVE, "STREAM_ISOLATE leave");
FI_SMALL(set_param_strategy, FI_STRATEGY, "SET_PARAM STRATEGY");
FI_SMALL(wait_done, FI_WAIT_DONE, "WAIT on completed work");
FI_SMALL(wait_running, FI_WAIT_RUNNING, "WAIT on running work");
FI_SMALL(bo_mmap_offset, FI_MMAP_OFFSET, "BO_MMAP_OFFSET");
FI_SMALL(gem_close, FI_GEM_CLOSE, "GEM_CLOSE");

FI_CASE(check, .what = "CHECK", .uapi_minor = 3,
	.size = sizeof(struct fi_report), .begin = fi_check_begin,
	.prepare = fi_check_prepare, .request = DRM_IOCTL_WEAVE_CHECK,
	.after = fi_check_after, .end = fi_report_end);
FI_CASE(read_good, .what = "READ", .expect = FI_ANY, .uapi_minor = 3,
	.size = sizeof(struct fi_report), .begin = fi_read_begin,
	.prepare = fi_read_prepare, .call = fi_read_call,
	.after = fi_read_after, .end = fi_report_end);
FI_CASE(read_tainted, .what = "READ, tainted", .kind = 1,
	.expect = FI_ANY, .uapi_minor = 3,
	.size = sizeof(struct fi_report), .begin = fi_read_begin,
	.prepare = fi_read_prepare, .call = fi_read_call,
	.after = fi_read_after, .end = fi_report_end);

FI_SUMMARY("fault_inject");

TEST_HARNESS_MAIN
