// SPDX-License-Identifier: GPL-2.0
/*
 * weave: the fuzzer of what a render node says about itself and refuses:
 * QUERY (device info, memory and client usage), GET_CAP and VERSION, the
 * core ioctls a render node must refuse, driver ioctl numbers nobody
 * defines and numbers that are not DRM's.  See fuzz_run.h for how a run
 * goes and what it checks.
 */
#include "fuzz_run.h"

static const int errs_query[] = { EINVAL, EFAULT, EINTR, 0 };
static const int errs_get_cap[] = { EINVAL, EOPNOTSUPP, 0 };
static const int errs_version[] = { EFAULT, 0 };
/* Core ioctls a render node refuses, and numbers nothing defines. */
static const int errs_forbidden[] = { EACCES, EINVAL, EOPNOTSUPP, 0 };
static const int errs_unknown[] = { EINVAL, 0 };
static const int errs_not_drm[] = { ENOTTY, 0 };

/* Core ioctls that are not DRM_RENDER_ALLOW on either kernel. */
static const uint8_t fz_forbidden_nr[] = {
	0x02, 0x05, 0x0a, 0x0b, 0x11, 0x1e, 0x1f, 0xa0, 0xb2, 0xbc, 0xbd,
};

static uint32_t fz_query_size(uint32_t type)
{
	switch (type) {
	case DRM_WEAVE_QUERY_DEVICE_INFO:
		return sizeof(struct drm_weave_device_info);
	case DRM_WEAVE_QUERY_MEMORY_USAGE:
		return sizeof(struct drm_weave_memory_usage);
	case DRM_WEAVE_QUERY_ENGINES:
		return sizeof(struct drm_weave_engines);
	default:
		return sizeof(struct drm_weave_client_usage);
	}
}

static void gen_query(struct fz_ctx *c)
{
	struct drm_weave_query *a = &c->call.arg.query;
	uint32_t ksize, off;

	a->type = (uint32_t)fz_below(c, DRM_WEAVE_QUERY_ENGINES + 1);
	ksize = fz_query_size(a->type);
	switch (fz_below(c, 4)) {
	case 0:
		a->size = 0;
		break;
	case 1:
		a->size = (uint32_t)fz_range(c, 1, ksize);
		break;
	case 2:
		a->size = (uint32_t)fz_range(c, ksize, 4096);
		break;
	default:
		a->size = ksize;
		break;
	}
	off = (uint32_t)fz_below(c, FZ_OUT - a->size + 1);
	a->pointer = (uintptr_t)c->out + off;
	while (fz_mutate(c)) {
		switch (fz_below(c, 6)) {
		case 0:
			a->type = DRM_WEAVE_QUERY_ENGINES + 1 +
				  (uint32_t)fz_below(c, 100);
			if (fz_one_in(c, 4))
				a->type = (uint32_t)fz_edgy(c) | 4;
			fz_mut(c, "unknown type", true);
			break;
		case 1:
			a->size = a->size ?: 1;
			a->pointer = fz_bad_ptr(c);
			fz_mut(c, "pointer unmapped", true);
			break;
		case 2:
			a->size = a->size ?: 1;
			a->pointer = (uintptr_t)c->ro + fz_below(c, 4096);
			fz_mut(c, "pointer read-only", true);
			break;
		case 3:
			/* Runs past the out buffer into its guard page. */
			a->size = (uint32_t)fz_range(c, 1, 0xffffffff);
			if (a->size <= FZ_OUT)
				a->size = FZ_OUT + 1;
			a->pointer = (uintptr_t)c->out + FZ_OUT -
				     fz_below(c, FZ_OUT);
			if (a->pointer + a->size <= (uintptr_t)c->out + FZ_OUT)
				a->pointer = (uintptr_t)c->out + FZ_OUT - 1;
			fz_mut(c, "size runs into PROT_NONE", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	c->call.v[0] = a->size;
	c->call.v[1] = a->pointer;
	/* Poison, to see which bytes the kernel writes. */
	if (a->pointer >= (uintptr_t)c->out &&
	    a->pointer <= (uintptr_t)c->out + FZ_OUT &&
	    a->size <= (uintptr_t)c->out + FZ_OUT - a->pointer)
		memset((void *)(uintptr_t)a->pointer, 0xa5, a->size);
	c->call.strict = c->call.mode == FZ_VALID;
	fz_detail(c, "type %u size %u", a->type, a->size);
}

static void check_query(struct fz_ctx *c, int ret)
{
	struct drm_weave_query *a = &c->call.arg.query;
	uint32_t in = (uint32_t)c->call.v[0], ksize, n, i;
	const uint8_t *p = (const uint8_t *)(uintptr_t)c->call.v[1];

	if (ret || c->call.argplace != FZ_PLACE_RW)
		return;
	ksize = fz_query_size(a->type);
	if (a->size != ksize) {
		fz_fail(c, "QUERY type %u set size %u, not %u", a->type,
			a->size, ksize);
		return;
	}
	n = in < ksize ? in : ksize;
	for (i = n; i < in; i++) {
		if (p[i]) {
			fz_fail(c, "QUERY left byte %u of %u non-zero (%#x)",
				i, in, p[i]);
			return;
		}
	}
	if (a->type == DRM_WEAVE_QUERY_DEVICE_INFO && in >= ksize &&
	    memcmp(p, &fz.info, ksize))
		fz_fail(c, "QUERY device info changed");
	if (a->type == DRM_WEAVE_QUERY_CLIENT_USAGE && in >= ksize) {
		struct drm_weave_client_usage u;

		memcpy(&u, p, sizeof(u));
		if (u.kernel_bytes != u.ring_bytes + u.job_bytes +
		    u.gate_bytes + u.arena_bytes + u.alone_bytes +
		    u.shared_ring_bytes + u.shader_bytes)
			fz_fail(c, "client usage: kernel_bytes %llu is not the sum of its parts",
				(unsigned long long)u.kernel_bytes);
		if (u.queued_tasks > u.pending_tasks)
			fz_fail(c, "client usage: %llu queued of %llu pending",
				(unsigned long long)u.queued_tasks,
				(unsigned long long)u.pending_tasks);
	}
}


static const struct {
	uint64_t cap;
	uint64_t value;
} fz_caps[] = {
	{ DRM_CAP_PRIME, DRM_PRIME_CAP_IMPORT | DRM_PRIME_CAP_EXPORT },
	{ DRM_CAP_TIMESTAMP_MONOTONIC, 1 },
	{ DRM_CAP_SYNCOBJ, 1 },
	{ DRM_CAP_SYNCOBJ_TIMELINE, 1 },
};

static void gen_get_cap(struct fz_ctx *c)
{
	struct drm_get_cap *a = &c->call.arg.get_cap;
	unsigned int i = (unsigned int)fz_below(c, ARRAY_SIZE(fz_caps));

	a->capability = fz_caps[i].cap;
	a->value = fz_r(c);
	c->call.v[0] = fz_caps[i].value;
	c->call.strict = c->call.mode == FZ_VALID;
	while (fz_mutate(c)) {
		if (fz_below(c, 3)) {
			/* The other caps are for KMS drivers, or unknown. */
			do {
				a->capability = fz_below(c, 2) ?
						fz_range(c, 1, 0x40) : fz_r(c);
				for (i = 0; i < ARRAY_SIZE(fz_caps); i++)
					if (fz_caps[i].cap == a->capability)
						break;
			} while (i < ARRAY_SIZE(fz_caps));
			fz_mut(c, "cap a render node has not", true);
		} else {
			fz_mut_arg(c, true);
		}
	}
	fz_detail(c, "cap %#llx", (unsigned long long)a->capability);
}

static void check_get_cap(struct fz_ctx *c, int ret)
{
	struct drm_get_cap *a = &c->call.arg.get_cap;

	if (!ret && c->call.argplace == FZ_PLACE_RW &&
	    c->call.mode == FZ_VALID && a->value != c->call.v[0])
		fz_fail(c, "GET_CAP %#llx returned %llu, not %llu",
			(unsigned long long)a->capability,
			(unsigned long long)a->value,
			(unsigned long long)c->call.v[0]);
}

static void gen_version(struct fz_ctx *c)
{
	struct drm_version *a = &c->call.arg.version;

	/* The kernel writes at most the strings' lengths (< 256). */
	a->name_len = fz_below(c, 64);
	a->name = (char *)c->out;
	a->date_len = fz_below(c, 64);
	a->date = (char *)c->out + 256;
	a->desc_len = fz_below(c, 256);
	a->desc = (char *)c->out + 512;
	a->version_major = (int)fz_r(c);
	memset(c->out, 0, 1024);
	while (fz_mutate(c)) {
		switch (fz_below(c, 3)) {
		case 0:
			a->name_len = a->name_len ?: 1;
			a->name = (char *)(uintptr_t)(fz_below(c, 2) ?
				  fz_bad_ptr(c) : (uintptr_t)c->ro);
			fz_mut(c, "name unwritable", true);
			break;
		case 1:
			a->desc_len = a->desc_len ?: 1;
			a->desc = (char *)(uintptr_t)fz_bad_ptr(c);
			fz_mut(c, "desc unwritable", true);
			break;
		default:
			fz_mut_arg(c, true);
			break;
		}
	}
	c->call.v[0] = a->name_len;
	c->call.strict = c->call.mode == FZ_VALID;
	fz_detail(c, "name_len %zu desc_len %zu", (size_t)a->name_len,
		  (size_t)a->desc_len);
}

static void check_version(struct fz_ctx *c, int ret)
{
	struct drm_version *a = &c->call.arg.version;
	size_t n = c->call.v[0] < 5 ? c->call.v[0] : 5;

	if (ret || c->call.argplace != FZ_PLACE_RW || c->call.mode != FZ_VALID)
		return;
	if (a->version_major != DRM_WEAVE_UAPI_MAJOR || a->name_len != 5 ||
	    memcmp(c->out, "weave", n))
		fz_fail(c, "VERSION: major %d, name \"%.5s\" of length %zu",
			a->version_major, (const char *)c->out,
			(size_t)a->name_len);
}

static void gen_forbidden(struct fz_ctx *c)
{
	uint8_t nr = fz_forbidden_nr[fz_below(c, sizeof(fz_forbidden_nr))];

	c->call.req = _IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, nr, 64);
	memset(&c->call.arg, 0, 64);
	c->call.must_fail = c->call.mode != FZ_RANDOM;
	fz_mut(c, "refused on a render node", true);
	fz_detail(c, "nr %#x", nr);
}

/* The last of weave's driver ioctls: the numbers past it are unknown. */
#define FZ_LAST_NR	DRM_WEAVE_ENGINE_ATTACH

static void gen_unknown(struct fz_ctx *c)
{
	unsigned int nr = DRM_COMMAND_BASE + FZ_LAST_NR + 1 +
		(unsigned int)fz_below(c, DRM_COMMAND_END - DRM_COMMAND_BASE -
					  FZ_LAST_NR - 1);
	unsigned int size = (unsigned int)fz_below(c, 257);

	c->call.req = _IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, nr, size);
	c->call.arg.raw[0] = fz_r(c);
	c->call.must_fail = c->call.mode != FZ_RANDOM;
	fz_mut(c, "no such driver ioctl", true);
	fz_detail(c, "nr %#x size %u", nr, size);
}

static void gen_not_drm(struct fz_ctx *c)
{
	unsigned int type = (unsigned int)fz_below(c, 256);

	if (type == DRM_IOCTL_BASE)
		type++;
	c->call.req = _IOC(_IOC_READ | _IOC_WRITE, type,
			   (unsigned int)fz_below(c, 256), 64);
	c->call.must_fail = c->call.mode != FZ_RANDOM;
	fz_mut(c, "not a DRM ioctl", true);
	fz_detail(c, "req %#lx", c->call.req);
}

/* With some work queued, so that the client's usage moves. */
static const struct fz_opdesc fz_ops[OP_NR] = {
	FZ_OBJECT_OPS,
	FZ_WORK_OPS(60, 20, 10),
	[OP_QUERY] = { "QUERY", DRM_IOCTL_WEAVE_QUERY, errs_query, 120,
		       gen_query, check_query },
	[OP_GET_CAP] = { "GET_CAP", DRM_IOCTL_GET_CAP, errs_get_cap, 40,
			 gen_get_cap, check_get_cap },
	[OP_VERSION] = { "VERSION", DRM_IOCTL_VERSION, errs_version, 40,
			 gen_version, check_version },
	[OP_FORBIDDEN] = { "refused core ioctl", 0, errs_forbidden, 25,
			   gen_forbidden, NULL },
	[OP_UNKNOWN] = { "unknown driver ioctl", 0, errs_unknown, 25,
			 gen_unknown, NULL },
	[OP_NOT_DRM] = { "non-DRM ioctl", 0, errs_not_drm, 15, gen_not_drm,
			 NULL },
};

FZ_TESTS(NULL)
