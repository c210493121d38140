// SPDX-License-Identifier: GPL-2.0
/*
 * weave: the fuzzer of failure reports: CHECK over ranges of the threads'
 * buffers, and READ of a range with its report, while work fills, copies
 * and fails on them.  A valid CHECK's report must be well formed: its
 * counts add up, -ENOSPC exactly when it did not fit, and every entry
 * written has an id, a negative errno and private fields only where the
 * OWN flag says so.  See fuzz_run.h for how a run goes and what it checks.
 */
#include "fuzz_run.h"

/* EBUSY: a buffer that a capture window records (uAPI 1.5). */
static const int errs_check[] = {
	EINVAL, ENOENT, EBUSY, ENOSPC, EFAULT, ENOMEM, EINTR, 0
};
static const int errs_read[] = {
	EINVAL, ENOENT, EBUSY, EIO, ENOSPC, ETIME, EINTR, EFAULT, ENOMEM, 0
};

/* Ranges one CHECK is built with at most. */
#define FZ_CHECK_RANGES	16

/*
 * Gives the report array @arr (of @esize-byte entries) room for one at
 * least, at @ptr if not 0, and a stride too short or over the maximum.
 */
static void fz_mut_out_stride(struct fz_ctx *c, struct drm_weave_array *arr,
			      uint32_t esize, uint64_t ptr, const char *name)
{
	arr->count = arr->count ?: 1;
	if (ptr)
		arr->ptr = ptr;
	arr->stride = fz_below(c, 2) ? (uint32_t)fz_below(c, esize) :
		      (uint32_t)fz_range(c, DRM_WEAVE_MAX_STRIDE + 1,
					 0xffffffff);
	fz_mut(c, name, true);
}

/*
 * A READ of a range of one of the thread's buffers.  The bytes go to the
 * out buffer's first half, the report's failures and skips to the second.
 * Whether the range carries failures, or is written in time, is not known
 * here: -EIO, -ENOSPC and -ETIME are always fair.
 */
static void gen_read(struct fz_ctx *c)
{
	struct drm_weave_read *a = &c->call.arg.read;
	const uint32_t fsize = sizeof(struct drm_weave_failure);
	const uint32_t ssize = sizeof(struct drm_weave_failure_task);
	int k = fz_pick_bo(c);

	if (k < 0 || fz_one_in(c, 50)) {
		a->handle = fz_any_handle(c);
		a->offset = fz_below(c, 4096);
		a->size = fz_range(c, 1, FZ_OUT / 2);
	} else {
		a->handle = c->bo[k].handle;
		a->size = fz_task_size(c, c->bo[k].size, 1);
		if (a->size > FZ_OUT / 2)
			a->size = FZ_OUT / 2;
		a->offset = fz_below(c, c->bo[k].size - a->size + 1);
	}
	a->data = (uintptr_t)c->out;
	a->timeout_ns = fz_deadline(c);
	a->failures.stride = fsize;
	a->failures.count = (uint32_t)fz_below(c, (FZ_OUT / 4) / fsize + 1);
	a->failures.ptr = (uintptr_t)c->out + FZ_OUT / 2;
	a->skips.stride = ssize;
	a->skips.count = (uint32_t)fz_below(c, (FZ_OUT / 4) / ssize + 1);
	a->skips.ptr = (uintptr_t)c->out + 3 * (FZ_OUT / 4);
	a->nfailures = (uint32_t)fz_r(c);
	a->nskips = (uint32_t)fz_r(c);

	while (fz_mutate(c)) {
		switch (fz_below(c, 9)) {
		case 0:
			a->flags = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "flags", true);
			break;
		case 1:
			a->size = 0;
			fz_mut(c, "size 0", true);
			break;
		case 2:
			a->offset = ~0ull - fz_below(c, 8);
			a->size = fz_range(c, 9, 64);
			fz_mut(c, "range offset overflows", true);
			break;
		case 3:
			a->offset = fz_range(c, 1ull << 40, 1ull << 50);
			fz_mut(c, "range past the end", true);
			break;
		case 4:
			a->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "bad handle", true);
			break;
		case 5:
			/* Fails only if the range is good and copied. */
			a->data = fz_bad_ptr(c);
			fz_mut(c, "data unwritable", false);
			break;
		case 6:
			fz_mut_out_stride(c, &a->failures, fsize, 0,
					  "failures.stride bad");
			break;
		case 7:
			fz_mut_out_stride(c, &a->skips, ssize, 0,
					  "skips.stride bad");
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	fz_detail(c, "handle %u %#llx+%#llx deadline %lld room %u/%u",
		  a->handle, (unsigned long long)a->offset,
		  (unsigned long long)a->size, (long long)a->timeout_ns,
		  a->failures.count, a->skips.count);
}

/* --- CHECK --------------------------------------------------------------- */

/*
 * A CHECK of ranges of the thread's buffers.  The kernel writes the
 * failures to the first half of the out buffer, the skips to the second,
 * and each range's counts into the ranges.
 */
static void gen_check(struct fz_ctx *c)
{
	struct drm_weave_check *a = &c->call.arg.check;
	struct drm_weave_check_range r[FZ_CHECK_RANGES];
	const uint32_t fsize = sizeof(struct drm_weave_failure);
	const uint32_t ssize = sizeof(struct drm_weave_failure_task);
	uint32_t n, i, max = fz.info.max_check_ranges, rstride, rextra = 0;
	enum fz_place rplace = FZ_PLACE_RW;
	struct drm_weave_check_range *v;
	uint64_t size;
	int k;

	n = (uint32_t)fz_range(c, 1, max && max < FZ_CHECK_RANGES ?
				     max : FZ_CHECK_RANGES);
	c->call.strict = true;
	for (i = 0; i < n; i++) {
		k = fz_pick_bo(c);
		if (k < 0 || fz_one_in(c, 50)) {
			r[i] = weave_check_range(fz_any_handle(c),
						 fz_below(c, 4096),
						 fz_range(c, 1, 4096));
			c->call.strict = false;
			continue;
		}
		size = fz_task_size(c, c->bo[k].size, 1);
		r[i] = weave_check_range(c->bo[k].handle,
					 fz_below(c, c->bo[k].size - size + 1),
					 size);
		if (!c->bo[k].exact)
			c->call.strict = false;
		/* Out fields hold garbage on the way in. */
		r[i].nfailures = (uint32_t)fz_r(c);
		r[i].first = (uint32_t)fz_r(c);
	}
	rstride = fz_good_stride(c, sizeof(r[0]));
	a->ranges.count = n;
	a->failures.stride = fsize;
	a->failures.count = fz_one_in(c, 4) ? 0 :
		(uint32_t)fz_range(c, 1, (FZ_OUT / 2) / fsize);
	a->failures.ptr = a->failures.count || fz_below(c, 2) ?
			  (uintptr_t)c->out : 0;
	a->skips.stride = ssize;
	a->skips.count = fz_one_in(c, 4) ? 0 :
		(uint32_t)fz_range(c, 1, (FZ_OUT / 2) / ssize);
	a->skips.ptr = a->skips.count || fz_below(c, 2) ?
		       (uintptr_t)c->out + FZ_OUT / 2 : 0;
	a->nfailures = (uint32_t)fz_r(c);
	a->nskips = (uint32_t)fz_r(c);

	while (fz_mutate(c)) {
		struct drm_weave_check_range *x = &r[fz_below(c, n)];

		switch (fz_below(c, 20)) {
		case 0:
			a->flags = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "flags", true);
			break;
		case 1:
			a->pad = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "pad", true);
			break;
		case 2:
			x->flags = (uint32_t)fz_range(c, 1, 0xffffffff);
			fz_mut(c, "range flags", true);
			break;
		case 3:
			a->ranges.count = 0;
			fz_mut(c, "ranges.count 0", true);
			break;
		case 4:
			a->ranges.count = max + (uint32_t)fz_range(c, 1, 0xffff);
			rplace = FZ_PLACE_KEEP;
			a->ranges.ptr = (uintptr_t)fz.zeros;
			fz_mut(c, "ranges.count over max", true);
			break;
		case 5:
		case 6:
		case 7:
			FZ_MUT_STRIDE(c, "ranges", &rstride, sizeof(r[0]),
				      sizeof(r[0]), &rextra, n);
			break;
		case 8:
			x->size = 0;
			fz_mut(c, "range size 0", true);
			break;
		case 9:
		case 10:
			k = fz_find_bo(c, x->handle);
			if (k >= 0 && c->bo[k].exact && fz_below(c, 2)) {
				x->offset = c->bo[k].size - x->size +
					    fz_range(c, 1, 4096);
				fz_mut(c, "range past the end", true);
				break;
			}
			/* An overflow is past any end. */
			x->offset = ~0ull - fz_below(c, 8);
			x->size = fz_range(c, 9, 64);
			fz_mut(c, "range offset overflows", true);
			break;
		case 11:
			x->handle = fz_below(c, 2) ? 0 : fz_bad_handle(c);
			fz_mut(c, "range bad handle", true);
			break;
		case 12:
			rplace = fz_below(c, 2) ? FZ_PLACE_BAD :
						  FZ_PLACE_STRADDLE;
			fz_mut(c, "ranges unreadable", true);
			break;
		case 13:
			/* They are written back. */
			rplace = FZ_PLACE_RO;
			fz_mut(c, "ranges read-only", true);
			break;
		case 14:
			fz_mut_out_stride(c, &a->failures, fsize,
					  (uintptr_t)c->out,
					  "failures.stride bad");
			break;
		case 15:
			fz_mut_out_stride(c, &a->skips, ssize,
					  (uintptr_t)c->out + FZ_OUT / 2,
					  "skips.stride bad");
			break;
		case 16:
			/* Fails only if there is a failure to write. */
			a->failures.count = a->failures.count ?: 1;
			a->failures.ptr = fz_below(c, 2) ? fz_bad_ptr(c) :
					  (uintptr_t)c->ro;
			fz_mut(c, "failures unwritable", false);
			break;
		case 17:
			a->skips.count = a->skips.count ?: 1;
			a->skips.ptr = fz_below(c, 2) ? fz_bad_ptr(c) :
				       (uintptr_t)c->ro;
			fz_mut(c, "skips unwritable", false);
			break;
		case 18:
			a->failures.count = (uint32_t)fz_below(c, 2);
			a->skips.count = (uint32_t)fz_below(c, 2);
			fz_mut(c, "little room", false);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	if (rplace != FZ_PLACE_KEEP)
		a->ranges.ptr = fz_put_array(c, r, sizeof(r[0]), n, rstride,
					     rextra, rplace);
	a->ranges.stride = rstride;
	if (c->call.mode != FZ_VALID)
		c->call.strict = false;
	/* For the check: the ranges as the kernel will write them. */
	v = (struct drm_weave_check_range *)(uintptr_t)a->ranges.ptr;
	c->call.v[0] = rplace == FZ_PLACE_RW ? (uintptr_t)v : 0;
	c->call.v[1] = a->failures.count;
	c->call.v[2] = a->skips.count;
	fz_detail(c, "ranges %u stride %u; room %u failures, %u skips",
		  a->ranges.count, a->ranges.stride, a->failures.count,
		  a->skips.count);
	if (n)
		fz_detail(c, "; range0 %u %#llx+%#llx", r[0].handle,
			  (unsigned long long)r[0].offset,
			  (unsigned long long)r[0].size);
}

/* A task of a report: private fields only with the OWN flag. */
static bool fz_task_sane(const struct drm_weave_failure_task *t)
{
	bool own = t->flags & DRM_WEAVE_FAILURE_TASK_OWN;

	if (t->pad || t->flags & ~DRM_WEAVE_FAILURE_TASK_OWN ||
	    t->type > DRM_WEAVE_TASK_HOST_WRITE ||
	    t->kernel > DRM_WEAVE_KERNEL_FAIL)
		return false;
	if (own)
		return t->stream && t->seqno &&
		       t->stream <= fz.info.max_client_streams;
	return !t->stream && !t->seqno && !t->label;
}

/*
 * A valid CHECK's report, as far as it was written: the ranges' counts
 * add up to the report's, -ENOSPC exactly when the report did not fit,
 * and every entry is well formed.
 */
static void check_check(struct fz_ctx *c, int ret)
{
	const struct drm_weave_check *a = &c->call.arg.check;
	const uint8_t *rp = (const uint8_t *)(uintptr_t)c->call.v[0];
	uint32_t nf_room = (uint32_t)c->call.v[1];
	uint32_t ns_room = (uint32_t)c->call.v[2];
	const struct drm_weave_failure *f;
	const struct drm_weave_failure_task *t;
	struct drm_weave_check_range r;
	uint32_t i, j, sum = 0, fit_f, fit_s;

	if ((ret && ret != -ENOSPC) || c->call.mode != FZ_VALID ||
	    c->call.argplace != FZ_PLACE_RW || !rp)
		return;
	for (i = 0; i < a->ranges.count; i++) {
		memcpy(&r, rp + (size_t)i * a->ranges.stride, sizeof(r));
		if (r.nfailures && r.first + (uint64_t)r.nfailures >
				   a->nfailures) {
			fz_fail(c, "CHECK: range %u has failures %u to %u of %u",
				i, r.first, r.first + r.nfailures,
				a->nfailures);
			return;
		}
		sum += r.nfailures;
	}
	if (sum != a->nfailures) {
		fz_fail(c, "CHECK: the ranges have %u failures, the report %u",
			sum, a->nfailures);
		return;
	}
	fit_f = nf_room < fz.info.max_report_failures ? nf_room :
		fz.info.max_report_failures;
	fit_s = ns_room;
	if ((ret == -ENOSPC) != (a->nfailures > fit_f || a->nskips > fit_s)) {
		fz_fail(c, "CHECK returned %d with %u failures and %u skips for room %u and %u",
			ret, a->nfailures, a->nskips, nf_room, ns_room);
		return;
	}
	f = (const struct drm_weave_failure *)c->out;
	for (i = 0; i < a->nfailures && i < fit_f; i++, f++) {
		if (!f->id || f->error >= 0 || f->error < -4095 ||
		    f->cause > DRM_WEAVE_FAILURE_CAPTURE ||
		    f->flags & ~DRM_WEAVE_FAILURE_COARSE ||
		    !f->buffers || f->nskips > DRM_WEAVE_FAILURE_SKIPS ||
		    f->first_skip + (uint64_t)f->nskips > a->nskips ||
		    !fz_task_sane(&f->root)) {
			fz_fail(c, "CHECK: failure %u: id %llu error %d cause %u buffers %u skips %u at %u of %u, root flags %#x stream %u seqno %llu label %u",
				i, (unsigned long long)f->id, f->error,
				f->cause, f->buffers, f->nskips, f->first_skip,
				a->nskips, f->root.flags, f->root.stream,
				(unsigned long long)f->root.seqno,
				f->root.label);
			return;
		}
	}
	t = (const struct drm_weave_failure_task *)(c->out + FZ_OUT / 2);
	for (j = 0; j < a->nskips && j < fit_s; j++, t++) {
		if (!fz_task_sane(t)) {
			fz_fail(c, "CHECK: skip %u: flags %#x stream %u seqno %llu label %u type %u kernel %u",
				j, t->flags, t->stream,
				(unsigned long long)t->seqno, t->label, t->type,
				t->kernel);
			return;
		}
	}
}

/* With the work that writes, copies and fails on the buffers. */
static const struct fz_opdesc fz_ops[OP_NR] = {
	FZ_OBJECT_OPS,
	FZ_WORK_OPS(160, 40, 20),
	[OP_CHECK] = { "CHECK", DRM_IOCTL_WEAVE_CHECK, errs_check, 80,
		       gen_check, check_check },
	[OP_READ] = { "READ", DRM_IOCTL_WEAVE_READ, errs_read, 60, gen_read,
		      NULL },
};

FZ_TESTS(NULL)
