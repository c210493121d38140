// SPDX-License-Identifier: GPL-2.0
/*
 * weave: the fuzzer of streams and their scheduling: STREAM_CREATE and
 * STREAM_DESTROY (fuzz_call.h), STREAM_ISOLATE, STREAM_QUERY (whose counts
 * must agree with what the thread enqueued) and SET_PARAM, while work is
 * queued, flushed and waited for.  See fuzz_run.h for how a run goes and
 * what it checks.
 */
#include "fuzz_run.h"

static const int errs_isolate[] = {
	EINVAL, ENOENT, EALREADY, ENOMEM, EINTR, 0
};
static const int errs_stream_query[] = { EINVAL, ENOENT, EINTR, 0 };
static const int errs_set_param[] = { EINVAL, EBUSY, EINTR, 0 };

static const struct fz_field fz_isolate_fields[] = {
	FZ_FIELD(isolate, op, FZ_BREAK_ABOVE, DRM_WEAVE_ISOLATION_ENTER,
		 "unknown op"),
	FZ_FIELD(isolate, handle, FZ_BREAK_HANDLE, 0, "bad handle"),
};

static void gen_isolate(struct fz_ctx *c)
{
	struct drm_weave_stream_isolate *a = &c->call.arg.isolate;

	a->handle = fz_stream_handle(c);
	a->op = (uint32_t)fz_below(c, 2);
	FZ_MUT_FIELDS(c, fz_isolate_fields, true);
	fz_detail(c, "handle %u op %u", a->handle, a->op);
}

static void check_isolate(struct fz_ctx *c, int ret)
{
	struct drm_weave_stream_isolate *a = &c->call.arg.isolate;

	if (ret == -ENOENT && fz_known_stream(c, a->handle) && !c->shared &&
	    c->call.mode == FZ_VALID)
		fz_fail(c, "ISOLATE: stream %u, which the thread holds, is unknown",
			a->handle);
}

static const struct fz_field fz_stream_query_fields[] = {
	FZ_FIELD(stream_query, pad, FZ_BREAK_NONZERO, 0, "pad"),
	FZ_FIELD(stream_query, pad2, FZ_BREAK_NONZERO, 0, "pad2"),
	FZ_FIELD(stream_query, handle, FZ_BREAK_HANDLE, 0, "bad handle"),
};

static void gen_stream_query(struct fz_ctx *c)
{
	struct drm_weave_stream_query *a = &c->call.arg.stream_query;

	a->handle = fz_stream_handle(c);
	/* Out fields hold garbage on the way in; pad2 must be zero. */
	a->enqueued = fz_r(c);
	c->call.strict = c->call.mode == FZ_VALID &&
			 fz_known_stream(c, a->handle);
	FZ_MUT_FIELDS(c, fz_stream_query_fields, true);
	fz_detail(c, "handle %u", a->handle);
}

static void check_stream_query(struct fz_ctx *c, int ret)
{
	struct drm_weave_stream_query *q = &c->call.arg.stream_query;
	int i = fz_find_stream(c, q->handle);

	if (ret || c->call.argplace != FZ_PLACE_RW)
		return;
	if (q->executed > q->enqueued || q->completed > q->enqueued ||
	    q->slot != q->handle % fz.info.max_streams || q->state > 1 ||
	    (q->state == DRM_WEAVE_STREAM_FAILED) != (q->error != 0) ||
	    (q->error && q->error != -ETIMEDOUT && q->error != -ENOMEM) ||
	    q->isolated > 1 || q->priority > DRM_WEAVE_PRIORITY_HIGH ||
	    q->pad2) {
		fz_fail(c, "STREAM_QUERY of %u: enqueued %llu executed %llu completed %llu slot %u priority %u state %u isolated %u error %d pad2 %u",
			q->handle, (unsigned long long)q->enqueued,
			(unsigned long long)q->executed,
			(unsigned long long)q->completed, q->slot, q->priority,
			q->state, q->isolated, q->error, q->pad2);
		return;
	}
	if (i >= 0 && c->st[i].exact && q->enqueued != c->st[i].enqueued)
		fz_fail(c, "STREAM_QUERY of %u: %llu enqueued, the thread enqueued %llu",
			q->handle, (unsigned long long)q->enqueued,
			(unsigned long long)c->st[i].enqueued);
}

static const struct fz_field fz_set_param_fields[] = {
	FZ_FIELD(set_param, pad, FZ_BREAK_NONZERO, 0, "pad"),
	FZ_FIELD(set_param, param, FZ_BREAK_ABOVE, DRM_WEAVE_PARAM_MAX_TASKS,
		 "unknown param"),
};

static void gen_set_param(struct fz_ctx *c)
{
	struct drm_weave_set_param *a = &c->call.arg.set_param;

	a->param = (uint32_t)fz_below(c, 2);
	a->value = a->param == DRM_WEAVE_PARAM_STRATEGY ? fz_below(c, 2) :
		   fz_range(c, 1, fz.info.max_tasks);
	while (fz_mutate(c)) {
		if (!fz_one_in(c, 4)) {
			fz_mut_field(c, fz_set_param_fields,
				     ARRAY_SIZE(fz_set_param_fields), true);
			continue;
		}
		if (a->param == DRM_WEAVE_PARAM_STRATEGY)
			a->value = fz_range(c, 2, ~0ull);
		else
			a->value = fz_below(c, 2) ? 0 :
				   fz_range(c, fz.info.max_tasks + 1ull, ~0ull);
		fz_mut(c, "value out of range", true);
	}
	fz_detail(c, "param %u value %#llx", a->param,
		  (unsigned long long)a->value);
}

static const struct fz_opdesc fz_ops[OP_NR] = {
	FZ_OBJECT_OPS,
	FZ_WORK_OPS(120, 40, 30),
	[OP_ISOLATE] = { "STREAM_ISOLATE", DRM_IOCTL_WEAVE_STREAM_ISOLATE,
			 errs_isolate, 40, gen_isolate, check_isolate },
	[OP_STREAM_QUERY] = { "STREAM_QUERY", DRM_IOCTL_WEAVE_STREAM_QUERY,
			      errs_stream_query, 60, gen_stream_query,
			      check_stream_query },
	[OP_SET_PARAM] = { "SET_PARAM", DRM_IOCTL_WEAVE_SET_PARAM,
			   errs_set_param, 30, gen_set_param, NULL },
};

FZ_TESTS(NULL)
