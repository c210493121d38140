// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program built against today's weave.h, run against whichever
 * libweave.so.1 the loader finds: tests/abi/run.sh runs it against the
 * library as built and against one built with uAPI structs grown at their
 * end.  The library must never write past the program's structs (guard
 * bytes after each stay intact), nor make the kernel read past them (a
 * newer kernel reads extra bytes as fields, which must then be zero), and
 * every call must still carry the program's values.
 *
 * No device is needed: the program defines ioctl(), which libdrm's
 * drmIoctl() calls, and answers as weave's kernel does on a file it opened
 * on /dev/null.  Prints TAP.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weave.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define GUARD		64
#define GUARD_BYTE	0xa5
/* Bytes a newer kernel's structs have past the program's. */
#define KERNEL_EXTRA	8

static int fake_fd = -1;

static void guard_set(unsigned char *guard)
{
	memset(guard, GUARD_BYTE, GUARD);
}

static bool guard_ok(const unsigned char *guard)
{
	int i;

	for (i = 0; i < GUARD; i++) {
		if (guard[i] != GUARD_BYTE) {
			printf("# guard byte %d is 0x%02x\n", i, guard[i]);
			return false;
		}
	}
	return true;
}

static bool zero(const void *p, size_t from, size_t to)
{
	const unsigned char *b = p;

	for (; from < to; from++)
		if (b[from])
			return false;
	return true;
}

/* What the newer kernel reports, byte @i of a reply: never zero. */
static unsigned char pattern(size_t i)
{
	return 0x40 + i % 61;
}

/* Bytes [from, to) of @p are what the kernel reported. */
static bool is_pattern(const void *p, size_t from, size_t to)
{
	const unsigned char *b = p;

	for (; from < to; from++)
		if (b[from] != pattern(from))
			return false;
	return true;
}

/* --- the fake kernel ------------------------------------------------------ */

static struct {
	struct drm_weave_task tasks[4];
	struct drm_weave_binding bindings[4][3];
	struct drm_weave_sync syncs[4];
	struct drm_weave_flush flush;
	struct drm_weave_read read;
	struct drm_weave_capture capture;
	struct drm_weave_replay replay;
	struct drm_weave_graph_destroy destroy;
	uint32_t nr_tasks, nr_syncs, stream;
} seen;

/*
 * Reads a user array of @esize-byte structs into @dst as the kernel does:
 * a longer stride is fine if its extra bytes are zero.
 */
static int read_array(const struct drm_weave_array *a, void *dst,
		      size_t esize, uint32_t max)
{
	const unsigned char *src = (const unsigned char *)(uintptr_t)a->ptr;
	uint32_t i;

	if (a->count > max || a->stride < esize ||
	    a->stride > DRM_WEAVE_MAX_STRIDE)
		return -EINVAL;
	for (i = 0; i < a->count; i++) {
		if (!zero(src + (size_t)i * a->stride, esize, a->stride))
			return -EINVAL;
		memcpy((char *)dst + i * esize, src + (size_t)i * a->stride,
		       esize);
	}
	return 0;
}

/* The DRM core copies in and out the size the request encodes. */
static int fake_query(struct drm_weave_query *q, size_t size)
{
	size_t ksize, n, i;
	unsigned char *out = (unsigned char *)(uintptr_t)q->pointer;

	if (size < sizeof(*q))
		return -EINVAL;
	switch (q->type) {
	case DRM_WEAVE_QUERY_DEVICE_INFO:
		ksize = sizeof(struct drm_weave_device_info);
		break;
	case DRM_WEAVE_QUERY_MEMORY_USAGE:
		ksize = sizeof(struct drm_weave_memory_usage);
		break;
	case DRM_WEAVE_QUERY_CLIENT_USAGE:
		ksize = sizeof(struct drm_weave_client_usage);
		break;
	default:
		return -EINVAL;
	}
	ksize += KERNEL_EXTRA;
	n = q->size < ksize ? q->size : ksize;
	for (i = 0; i < q->size; i++)
		out[i] = i < n ? pattern(i) : 0;
	q->size = ksize;
	return 0;
}

static int fake_stream_query(void *arg, size_t size)
{
	struct drm_weave_stream_query *q = arg;
	uint32_t handle = q->handle;
	size_t i;

	if (size < sizeof(*q))
		return -EINVAL;
	for (i = 0; i < size; i++)
		((unsigned char *)arg)[i] = pattern(i);
	q->handle = handle;
	return 0;
}

static int fake_enqueue(struct drm_weave_enqueue *e, size_t size)
{
	uint32_t i;
	int ret;

	if (size < sizeof(*e) || !zero(e, sizeof(*e), size) || e->flags)
		return -EINVAL;
	ret = read_array(&e->tasks, seen.tasks, sizeof(seen.tasks[0]), 4);
	if (ret)
		return ret;
	for (i = 0; i < e->tasks.count; i++) {
		ret = read_array(&seen.tasks[i].bindings, seen.bindings[i],
				 sizeof(seen.bindings[i][0]), 3);
		if (ret)
			return ret;
	}
	ret = read_array(&e->in_syncs, seen.syncs, sizeof(seen.syncs[0]), 4);
	if (ret)
		return ret;
	seen.nr_tasks = e->tasks.count;
	seen.nr_syncs = e->in_syncs.count;
	seen.stream = e->stream;
	e->seqno = 1000 + e->tasks.count;
	return 0;
}

static int fake_flush(struct drm_weave_flush *f, size_t size)
{
	if (size < sizeof(*f) || !zero(f, sizeof(*f), size))
		return -EINVAL;
	seen.flush = *f;
	return 0;
}

/* Writes @n elements of @esize bytes from @src at @a's stride; the room. */
static int write_array(const struct drm_weave_array *a, const void *src,
		       size_t esize, uint32_t n)
{
	unsigned char *dst = (unsigned char *)(uintptr_t)a->ptr;
	uint32_t i;

	if (a->count && (a->stride < esize || a->stride > DRM_WEAVE_MAX_STRIDE))
		return -EINVAL;
	for (i = 0; i < n && i < a->count; i++) {
		memcpy(dst + (size_t)i * a->stride,
		       (const char *)src + i * esize, esize);
		memset(dst + (size_t)i * a->stride + esize, 0,
		       a->stride - esize);
	}
	return 0;
}

/*
 * CHECK: every range of an even handle is good; a range of an odd handle
 * carries two failures, the second with two skips.
 */
static int fake_check(struct drm_weave_check *c, size_t size)
{
	struct drm_weave_check_range r[4];
	struct drm_weave_failure f[8];
	struct drm_weave_failure_task t[8];
	unsigned char *rp = (unsigned char *)(uintptr_t)c->ranges.ptr;
	uint32_t i, nf = 0, nt = 0;
	int ret;

	if (size < sizeof(*c) || !zero(c, sizeof(*c), size) || c->flags ||
	    c->pad || !c->ranges.count)
		return -EINVAL;
	ret = read_array(&c->ranges, r, sizeof(r[0]), 4);
	if (ret)
		return ret;
	memset(f, 0, sizeof(f));
	memset(t, 0, sizeof(t));
	for (i = 0; i < c->ranges.count; i++) {
		r[i].first = nf;
		r[i].nfailures = r[i].handle % 2 ? 2 : 0;
		if (!r[i].nfailures)
			continue;
		f[nf].id = 100 + r[i].handle;
		f[nf].error = -EIO;
		f[nf].root.kernel = DRM_WEAVE_KERNEL_FAIL;
		f[nf].root.stream = r[i].handle;
		f[nf].root.seqno = 1;
		f[nf].root.flags = DRM_WEAVE_FAILURE_TASK_OWN;
		f[nf].buffers = 1;
		f[nf].first_skip = nt;
		nf++;
		f[nf] = f[nf - 1];
		f[nf].id++;
		f[nf].nskips = 2;
		t[nt].kernel = DRM_WEAVE_KERNEL_COPY;
		t[nt].stream = 2;
		t[nt].seqno = 5;
		t[nt].flags = DRM_WEAVE_FAILURE_TASK_OWN;
		t[nt + 1] = t[nt];
		t[nt + 1].kernel = DRM_WEAVE_KERNEL_CRC32C;
		t[nt + 1].seqno = 6;
		nt += 2;
		nf++;
	}
	/* Out: the ranges' counts, at the caller's stride. */
	for (i = 0; i < c->ranges.count; i++)
		memcpy(rp + (size_t)i * c->ranges.stride +
		       offsetof(struct drm_weave_check_range, nfailures),
		       &r[i].nfailures, 2 * sizeof(uint32_t));
	ret = write_array(&c->failures, f, sizeof(f[0]), nf);
	if (!ret)
		ret = write_array(&c->skips, t, sizeof(t[0]), nt);
	if (ret)
		return ret;
	c->nfailures = nf;
	c->nskips = nt;
	return nf > c->failures.count || nt > c->skips.count ? -ENOSPC : 0;
}

/*
 * READ: a range of an even handle is good and reads as its offsets' low
 * bytes; one of an odd handle carries the two failures CHECK reports.
 */
static int fake_read(struct drm_weave_read *r, size_t size)
{
	struct drm_weave_check_range range;
	struct drm_weave_check c;
	unsigned char *data = (unsigned char *)(uintptr_t)r->data;
	uint64_t i;
	int ret;

	if (size < sizeof(*r) || !zero(r, sizeof(*r), size) || r->flags ||
	    !r->size || !r->data)
		return -EINVAL;
	seen.read = *r;
	if (!(r->handle % 2)) {
		for (i = 0; i < r->size; i++)
			data[i] = (unsigned char)(r->offset + i);
		r->nfailures = 0;
		r->nskips = 0;
		return 0;
	}
	memset(&c, 0, sizeof(c));
	range = (struct drm_weave_check_range){ .handle = r->handle,
		.offset = r->offset, .size = r->size };
	c.ranges.ptr = (uintptr_t)&range;
	c.ranges.stride = sizeof(range);
	c.ranges.count = 1;
	c.failures = r->failures;
	c.skips = r->skips;
	ret = fake_check(&c, sizeof(c));
	if (ret && ret != -ENOSPC)
		return ret;
	r->nfailures = c.nfailures;
	r->nskips = c.nskips;
	return ret ? ret : -EIO;
}

/*
 * CAPTURE: the out fields are written whatever the result, here with the
 * reply pattern; stream 7 is not the owner, and END fails with -ECANCELED.
 */
static int fake_capture(struct drm_weave_capture *c, size_t size)
{
	const size_t in = offsetof(struct drm_weave_capture, state);
	size_t i;

	if (size < sizeof(*c) || !zero(c, sizeof(*c), size) || c->flags ||
	    c->pad)
		return -EINVAL;
	seen.capture = *c;
	for (i = in; i < size; i++)
		((unsigned char *)c)[i] = pattern(i);
	return c->op == DRM_WEAVE_CAPTURE_END && c->stream == 7 ?
	       -ECANCELED : 0;
}

static int fake_replay(struct drm_weave_replay *r, size_t size)
{
	int ret;

	if (size < sizeof(*r) || !zero(r, sizeof(*r), size) || r->flags ||
	    r->pad)
		return -EINVAL;
	ret = read_array(&r->in_syncs, seen.syncs, sizeof(seen.syncs[0]), 4);
	if (ret)
		return ret;
	seen.replay = *r;
	seen.nr_syncs = r->in_syncs.count;
	r->seqno = 2000 + r->graph;
	return 0;
}

static int fake_graph_destroy(struct drm_weave_graph_destroy *d, size_t size)
{
	if (size < sizeof(*d) || !zero(d, sizeof(*d), size) || d->pad)
		return -EINVAL;
	seen.destroy = *d;
	return d->graph == 13 ? -ENOENT : 0;
}

int ioctl(int fd, unsigned long request, ...)
{
	size_t size = _IOC_SIZE(request);
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != fake_fd)
		return syscall(SYS_ioctl, fd, request, arg);

	if (_IOC_TYPE(request) != DRM_IOCTL_BASE)
		ret = -ENOTTY;
	else if (_IOC_NR(request) == DRM_COMMAND_BASE + DRM_WEAVE_QUERY)
		ret = fake_query(arg, size);
	else if (_IOC_NR(request) == DRM_COMMAND_BASE + DRM_WEAVE_STREAM_QUERY)
		ret = fake_stream_query(arg, size);
	else if (_IOC_NR(request) == DRM_COMMAND_BASE + DRM_WEAVE_ENQUEUE)
		ret = fake_enqueue(arg, size);
	else if (_IOC_NR(request) == DRM_COMMAND_BASE + DRM_WEAVE_FLUSH)
		ret = fake_flush(arg, size);
	else if (_IOC_NR(request) == DRM_COMMAND_BASE + DRM_WEAVE_CHECK)
		ret = fake_check(arg, size);
	else if (_IOC_NR(request) == DRM_COMMAND_BASE + DRM_WEAVE_READ)
		ret = fake_read(arg, size);
	else if (_IOC_NR(request) == DRM_COMMAND_BASE + DRM_WEAVE_CAPTURE)
		ret = fake_capture(arg, size);
	else if (_IOC_NR(request) == DRM_COMMAND_BASE + DRM_WEAVE_REPLAY)
		ret = fake_replay(arg, size);
	else if (_IOC_NR(request) ==
		 DRM_COMMAND_BASE + DRM_WEAVE_GRAPH_DESTROY)
		ret = fake_graph_destroy(arg, size);
	else
		ret = -ENOTTY;
	if (ret) {
		errno = -ret;
		return -1;
	}
	return 0;
}

/* --- the tests ------------------------------------------------------------- */

#define GUARDED(type)	struct { type v; unsigned char guard[GUARD]; }

static bool binding_is(const struct drm_weave_binding *b, uint32_t handle,
		       uint32_t access, uint64_t offset, uint64_t size)
{
	return b->handle == handle && b->access == access &&
	       b->offset == offset && b->size == size;
}

/* A failed call: says what it returned. */
static bool ret_ok(int ret)
{
	if (ret)
		printf("# returned %d\n", ret);
	return !ret;
}

static bool test_binding(void)
{
	GUARDED(struct drm_weave_binding) b;

	guard_set(b.guard);
	b.v = weave_binding(3, DRM_WEAVE_ACCESS_READ, 64, 128);
	return guard_ok(b.guard) &&
	       binding_is(&b.v, 3, DRM_WEAVE_ACCESS_READ, 64, 128);
}

static bool test_sync(void)
{
	GUARDED(struct drm_weave_sync) s;

	guard_set(s.guard);
	s.v = weave_sync(9, 42);
	return guard_ok(s.guard) && s.v.handle == 9 &&
	       s.v.timeline_value == 42 && !s.v.flags;
}

static const uint32_t uniforms[1] = { 0xfeedf00d };
static const struct drm_weave_binding bindings[3] = {
	{ .handle = 1, .access = DRM_WEAVE_ACCESS_WRITE, .size = 4096 },
	{ .handle = 2, .access = DRM_WEAVE_ACCESS_READ, .offset = 8, .size = 16 },
	{ .handle = 3, .access = DRM_WEAVE_ACCESS_WRITE, .offset = 24, .size = 16 },
};

static bool test_task_launch(void)
{
	GUARDED(struct drm_weave_task) t;

	guard_set(t.guard);
	weave_task_launch(&t.v, DRM_WEAVE_KERNEL_FILL, bindings, 1, uniforms,
			  sizeof(uniforms));
	return guard_ok(t.guard) && t.v.type == DRM_WEAVE_TASK_LAUNCH &&
	       t.v.kernel == DRM_WEAVE_KERNEL_FILL &&
	       t.v.bindings.ptr == (uintptr_t)bindings &&
	       t.v.bindings.stride == sizeof(bindings[0]) &&
	       t.v.bindings.count == 1 &&
	       t.v.uniforms == (uintptr_t)uniforms &&
	       t.v.uniforms_size == sizeof(uniforms) && !t.v.data;
}

static bool test_task_host_write(void)
{
	GUARDED(struct drm_weave_task) t;

	guard_set(t.guard);
	weave_task_host_write(&t.v, bindings, uniforms);
	return guard_ok(t.guard) && t.v.type == DRM_WEAVE_TASK_HOST_WRITE &&
	       t.v.bindings.ptr == (uintptr_t)bindings &&
	       t.v.bindings.stride == sizeof(bindings[0]) &&
	       t.v.bindings.count == 1 && t.v.data == (uintptr_t)uniforms;
}

static bool test_device_info(void)
{
	GUARDED(struct drm_weave_device_info) q;

	guard_set(q.guard);
	return ret_ok(weave_query_device_info(fake_fd, &q.v)) &&
	       guard_ok(q.guard) && is_pattern(&q.v, 0, sizeof(q.v));
}

static bool test_memory_usage(void)
{
	GUARDED(struct drm_weave_memory_usage) q;

	guard_set(q.guard);
	return ret_ok(weave_query_memory_usage(fake_fd, &q.v)) &&
	       guard_ok(q.guard) && is_pattern(&q.v, 0, sizeof(q.v));
}

static bool test_client_usage(void)
{
	GUARDED(struct drm_weave_client_usage) q;

	guard_set(q.guard);
	return ret_ok(weave_query_client_usage(fake_fd, &q.v)) &&
	       guard_ok(q.guard) && is_pattern(&q.v, 0, sizeof(q.v));
}

static bool test_stream_query(void)
{
	GUARDED(struct drm_weave_stream_query) q;

	guard_set(q.guard);
	return ret_ok(weave_stream_query(fake_fd, 5, &q.v)) &&
	       guard_ok(q.guard) && q.v.handle == 5 &&
	       is_pattern(&q.v, sizeof(q.v.handle), sizeof(q.v));
}

static bool test_enqueue(void)
{
	struct {
		struct drm_weave_task v[2];
		unsigned char guard[GUARD];
	} t;
	struct {
		struct drm_weave_sync v[2];
		unsigned char guard[GUARD];
	} s;
	uint64_t seqno = 0;

	guard_set(t.guard);
	guard_set(s.guard);
	memset(&t.v, 0, sizeof(t.v));
	t.v[0].type = DRM_WEAVE_TASK_LAUNCH;
	t.v[0].kernel = DRM_WEAVE_KERNEL_FILL;
	t.v[0].bindings.ptr = (uintptr_t)&bindings[0];
	t.v[0].bindings.stride = sizeof(bindings[0]);
	t.v[0].bindings.count = 1;
	t.v[0].uniforms = (uintptr_t)uniforms;
	t.v[0].uniforms_size = sizeof(uniforms);
	t.v[1].type = DRM_WEAVE_TASK_LAUNCH;
	t.v[1].kernel = DRM_WEAVE_KERNEL_COPY;
	t.v[1].bindings.ptr = (uintptr_t)&bindings[1];
	t.v[1].bindings.stride = sizeof(bindings[0]);
	t.v[1].bindings.count = 2;
	memset(&s.v, 0, sizeof(s.v));
	s.v[0].handle = 11;
	s.v[1].handle = 12;
	s.v[1].timeline_value = 77;

	return ret_ok(weave_enqueue(fake_fd, 4, t.v, 2, s.v, 2, &seqno)) &&
	       seqno == 1002 && seen.stream == 4 &&
	       seen.nr_tasks == 2 && seen.nr_syncs == 2 &&
	       seen.tasks[0].kernel == DRM_WEAVE_KERNEL_FILL &&
	       seen.tasks[0].uniforms_size == sizeof(uniforms) &&
	       seen.tasks[1].kernel == DRM_WEAVE_KERNEL_COPY &&
	       binding_is(&seen.bindings[0][0], 1, DRM_WEAVE_ACCESS_WRITE, 0,
			  4096) &&
	       binding_is(&seen.bindings[1][0], 2, DRM_WEAVE_ACCESS_READ, 8,
			  16) &&
	       binding_is(&seen.bindings[1][1], 3, DRM_WEAVE_ACCESS_WRITE, 24,
			  16) &&
	       seen.syncs[0].handle == 11 && seen.syncs[1].handle == 12 &&
	       seen.syncs[1].timeline_value == 77 &&
	       guard_ok(t.guard) && guard_ok(s.guard);
}

static bool test_flush(void)
{
	GUARDED(struct drm_weave_sync) s;

	guard_set(s.guard);
	memset(&s.v, 0, sizeof(s.v));
	s.v.handle = 12;
	s.v.timeline_value = 77;
	return ret_ok(weave_flush(fake_fd, 4, &s.v)) &&
	       seen.flush.stream == 4 && !seen.flush.flags &&
	       seen.flush.out_sync.handle == 12 &&
	       seen.flush.out_sync.timeline_value == 77;
}

static bool test_flush_all(void)
{
	GUARDED(struct drm_weave_sync) s;

	guard_set(s.guard);
	memset(&s.v, 0, sizeof(s.v));
	s.v.handle = 11;
	return ret_ok(weave_flush_all(fake_fd, &s.v)) && !seen.flush.stream &&
	       seen.flush.flags == DRM_WEAVE_FLUSH_ALL &&
	       seen.flush.out_sync.handle == 11;
}

static bool test_check_range(void)
{
	GUARDED(struct drm_weave_check_range) r;

	guard_set(r.guard);
	memset(&r.v, 0xff, sizeof(r.v));
	r.v = weave_check_range(3, 64, 128);
	return guard_ok(r.guard) && r.v.handle == 3 && !r.v.flags &&
	       r.v.offset == 64 && r.v.size == 128 && !r.v.nfailures &&
	       !r.v.first;
}

/*
 * weave_check() passes the program's arrays at the program's strides, and
 * on -ENOSPC still returns the counts; the kernel writes only the room.
 */
static bool test_check(void)
{
	struct {
		struct drm_weave_check_range v[2];
		unsigned char guard[GUARD];
	} r;
	struct {
		struct drm_weave_failure v[2];
		unsigned char guard[GUARD];
	} f;
	struct {
		struct drm_weave_failure_task v[2];
		unsigned char guard[GUARD];
	} t;
	uint32_t nf = 1, nt = 2;
	int ret;

	guard_set(r.guard);
	guard_set(f.guard);
	guard_set(t.guard);
	r.v[0] = weave_check_range(2, 0, 4096);
	r.v[1] = weave_check_range(5, 8, 16);
	memset(f.v, 0, sizeof(f.v));
	memset(t.v, 0, sizeof(t.v));

	/* Room for one failure of two: -ENOSPC, the counts, one entry. */
	ret = weave_check(fake_fd, r.v, 2, f.v, &nf, t.v, &nt);
	if (ret != -ENOSPC) {
		printf("# returned %d, not -ENOSPC\n", ret);
		return false;
	}
	if (nf != 2 || nt != 2 || f.v[0].id != 105 || f.v[1].id ||
	    r.v[0].nfailures || r.v[1].nfailures != 2 || r.v[1].first) {
		printf("# nfailures %u nskips %u ids %llu %llu\n", nf, nt,
		       (unsigned long long)f.v[0].id,
		       (unsigned long long)f.v[1].id);
		return false;
	}

	/* Room for all. */
	nf = 2;
	if (!ret_ok(weave_check(fake_fd, r.v, 2, f.v, &nf, t.v, &nt)))
		return false;
	if (nf != 2 || nt != 2 || f.v[1].id != 106 || f.v[1].nskips != 2 ||
	    t.v[1].kernel != DRM_WEAVE_KERNEL_CRC32C || t.v[1].seqno != 6)
		return false;

	/* No room at all: whether the range is good, and the counts. */
	if (!ret_ok(weave_check(fake_fd, r.v, 1, NULL, NULL, NULL, NULL)) ||
	    weave_check(fake_fd, &r.v[1], 1, NULL, &nf, NULL, &nt) != -ENOSPC ||
	    nf != 2 || nt != 2)
		return false;
	return guard_ok(r.guard) && guard_ok(f.guard) && guard_ok(t.guard);
}

/*
 * weave_read() passes the range, the deadline and the program's arrays at
 * the program's strides; it returns the counts on 0, -EIO and -ENOSPC.
 */
static bool test_read(void)
{
	struct {
		unsigned char v[16];
		unsigned char guard[GUARD];
	} d;
	struct {
		struct drm_weave_failure v[2];
		unsigned char guard[GUARD];
	} f;
	struct {
		struct drm_weave_failure_task v[2];
		unsigned char guard[GUARD];
	} t;
	uint32_t nf = 2, nt = 2, i;
	int ret;

	guard_set(d.guard);
	guard_set(f.guard);
	guard_set(t.guard);
	memset(f.v, 0, sizeof(f.v));
	memset(t.v, 0, sizeof(t.v));

	/* Good: copied, counts zero. */
	if (!ret_ok(weave_read(fake_fd, 4, 32, sizeof(d.v), d.v, 12345, f.v,
			       &nf, t.v, &nt)))
		return false;
	if (nf || nt || seen.read.handle != 4 || seen.read.offset != 32 ||
	    seen.read.size != sizeof(d.v) || seen.read.timeout_ns != 12345 ||
	    seen.read.data != (uintptr_t)d.v ||
	    seen.read.failures.stride != sizeof(f.v[0]) ||
	    seen.read.failures.count != 2 ||
	    seen.read.skips.stride != sizeof(t.v[0]) ||
	    seen.read.skips.count != 2)
		return false;
	for (i = 0; i < sizeof(d.v); i++)
		if (d.v[i] != 32 + i)
			return false;

	/* Tainted, room for all: -EIO and the report. */
	nf = 2;
	nt = 2;
	ret = weave_read(fake_fd, 5, 0, 8, d.v, 0, f.v, &nf, t.v, &nt);
	if (ret != -EIO || nf != 2 || nt != 2 || f.v[0].id != 105 ||
	    f.v[1].id != 106 || t.v[1].kernel != DRM_WEAVE_KERNEL_CRC32C) {
		printf("# returned %d, %u failures, %u skips\n", ret, nf, nt);
		return false;
	}

	/* Room for one failure: -ENOSPC with the counts; none: the same. */
	nf = 1;
	memset(f.v, 0, sizeof(f.v));
	if (weave_read(fake_fd, 5, 0, 8, d.v, 0, f.v, &nf, t.v, &nt) !=
	    -ENOSPC || nf != 2 || nt != 2 || f.v[0].id != 105 || f.v[1].id)
		return false;
	if (weave_read(fake_fd, 5, 0, 8, d.v, 0, NULL, &nf, NULL, &nt) !=
	    -ENOSPC || seen.read.failures.count || seen.read.skips.count ||
	    nf != 2 || nt != 2)
		return false;
	if (weave_read(fake_fd, 5, 0, 8, d.v, 0, NULL, NULL, NULL, NULL) !=
	    -ENOSPC)
		return false;

	/* Other errors leave the counts alone. */
	nf = 77;
	if (weave_read(fake_fd, 4, 0, 0, d.v, 0, f.v, &nf, t.v, &nt) !=
	    -EINVAL || nf != 77)
		return false;
	return guard_ok(d.guard) && guard_ok(f.guard) && guard_ok(t.guard);
}

/*
 * weave_capture() passes the stream and op, and fills the program's
 * struct, nothing past it, on success and on error alike.
 */
static bool test_capture(void)
{
	const size_t in = offsetof(struct drm_weave_capture, state);
	GUARDED(struct drm_weave_capture) c;
	int ret;

	guard_set(c.guard);
	memset(&c.v, 0, sizeof(c.v));
	if (!ret_ok(weave_capture(fake_fd, 5, DRM_WEAVE_CAPTURE_QUERY, &c.v)))
		return false;
	if (seen.capture.stream != 5 ||
	    seen.capture.op != DRM_WEAVE_CAPTURE_QUERY ||
	    c.v.stream != 5 || c.v.op != DRM_WEAVE_CAPTURE_QUERY ||
	    !is_pattern(&c.v, in, sizeof(c.v)) || !guard_ok(c.guard))
		return false;

	memset(&c.v, 0, sizeof(c.v));
	ret = weave_capture(fake_fd, 7, DRM_WEAVE_CAPTURE_END, &c.v);
	if (ret != -ECANCELED) {
		printf("# returned %d, not -ECANCELED\n", ret);
		return false;
	}
	if (seen.capture.stream != 7 ||
	    seen.capture.op != DRM_WEAVE_CAPTURE_END ||
	    !is_pattern(&c.v, in, sizeof(c.v)) || !guard_ok(c.guard))
		return false;
	return ret_ok(weave_capture(fake_fd, 5, DRM_WEAVE_CAPTURE_ABORT,
				    NULL)) &&
	       seen.capture.op == DRM_WEAVE_CAPTURE_ABORT;
}

/* weave_replay() passes the program's syncs at its stride, the seqno back. */
static bool test_replay(void)
{
	struct {
		struct drm_weave_sync v[2];
		unsigned char guard[GUARD];
	} s;
	GUARDED(struct drm_weave_sync) out;
	uint64_t seqno = 0;

	guard_set(s.guard);
	guard_set(out.guard);
	memset(&s.v, 0, sizeof(s.v));
	memset(&out.v, 0, sizeof(out.v));
	s.v[0].handle = 21;
	s.v[1].handle = 22;
	s.v[1].timeline_value = 88;
	out.v.handle = 23;
	out.v.timeline_value = 99;
	if (!ret_ok(weave_replay(fake_fd, 3, 6, s.v, 2, &out.v, &seqno)))
		return false;
	if (seqno != 2003 || seen.replay.graph != 3 ||
	    seen.replay.stream != 6 || seen.nr_syncs != 2 ||
	    seen.syncs[0].handle != 21 || seen.syncs[1].handle != 22 ||
	    seen.syncs[1].timeline_value != 88 ||
	    seen.replay.out_sync.handle != 23 ||
	    seen.replay.out_sync.timeline_value != 99)
		return false;
	/* No syncs at all, no seqno asked. */
	if (!ret_ok(weave_replay(fake_fd, 4, 6, NULL, 0, NULL, NULL)) ||
	    seen.nr_syncs || seen.replay.out_sync.handle)
		return false;
	return guard_ok(s.guard) && guard_ok(out.guard);
}

static bool test_graph_destroy(void)
{
	return ret_ok(weave_graph_destroy(fake_fd, 12)) &&
	       seen.destroy.graph == 12 && !seen.destroy.pad &&
	       weave_graph_destroy(fake_fd, 13) == -ENOENT;
}

/* The formatter reads the program's structs, whatever the library's are. */
static bool test_failure_format(void)
{
	static const char want[] = "failed: kernel \"fail\" (stream 3, seq 41, label 7) returned -EINVAL; then skipped \"add\" (stream 5, seq 12) and \"crc32c\" (stream 5, seq 13); failure #7";
	GUARDED(struct drm_weave_failure) f;
	struct {
		struct drm_weave_failure_task v[3];
		unsigned char guard[GUARD];
	} t;
	char buf[256];
	int n;

	guard_set(f.guard);
	guard_set(t.guard);
	memset(&f.v, 0, sizeof(f.v));
	memset(t.v, 0, sizeof(t.v));
	f.v.id = 7;
	f.v.error = -EINVAL;
	f.v.root.kernel = DRM_WEAVE_KERNEL_FAIL;
	f.v.root.stream = 3;
	f.v.root.seqno = 41;
	f.v.root.label = 7;
	f.v.root.flags = DRM_WEAVE_FAILURE_TASK_OWN;
	f.v.first_skip = 1;
	f.v.nskips = 2;
	t.v[1].kernel = DRM_WEAVE_KERNEL_ADD_U32;
	t.v[1].stream = 5;
	t.v[1].seqno = 12;
	t.v[1].flags = DRM_WEAVE_FAILURE_TASK_OWN;
	t.v[2] = t.v[1];
	t.v[2].kernel = DRM_WEAVE_KERNEL_CRC32C;
	t.v[2].seqno = 13;
	n = weave_failure_format(buf, sizeof(buf), &f.v, t.v);
	if (n != (int)strlen(want) || strcmp(buf, want)) {
		printf("# %d: %s\n", n, buf);
		return false;
	}
	return guard_ok(f.guard) && guard_ok(t.guard);
}

/*
 * Programs linked to libweave 1.0 call its WEAVE_1.0 symbols, with the
 * struct sizes of the 1.0 header, which are today's.
 */
static void *weave_1_0(const char *name)
{
	void *lib = dlopen("libweave.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *sym = lib ? dlvsym(lib, name, "WEAVE_1.0") : NULL;

	if (!sym)
		printf("# no %s@WEAVE_1.0\n", name);
	return sym;
}

static bool test_1_0_task_launch(void)
{
	GUARDED(struct drm_weave_task) t;
	void (*launch)(struct drm_weave_task *task, uint32_t kernel,
		       const struct drm_weave_binding *bindings,
		       uint32_t count, const void *uniforms, uint32_t size);

	*(void **)&launch = weave_1_0("weave_task_launch");
	if (!launch)
		return false;
	guard_set(t.guard);
	launch(&t.v, DRM_WEAVE_KERNEL_CRC32C, bindings, 2, NULL, 0);
	return guard_ok(t.guard) && t.v.kernel == DRM_WEAVE_KERNEL_CRC32C &&
	       t.v.bindings.stride == sizeof(bindings[0]) &&
	       t.v.bindings.count == 2;
}

/*
 * The 1.0 symbol fills the 1.0 struct, up to pad: uAPI 1.2 appended
 * fields, which it must leave alone in a struct of today's header.
 */
static bool test_1_0_device_info(void)
{
	const size_t size_1_0 = offsetof(struct drm_weave_device_info, pad) +
				sizeof(((struct drm_weave_device_info *)0)->pad);
	GUARDED(struct drm_weave_device_info) q;
	int (*query)(int fd, struct drm_weave_device_info *info);
	const unsigned char *b = (const unsigned char *)&q.v;
	size_t i;

	*(void **)&query = weave_1_0("weave_query_device_info");
	if (!query)
		return false;
	guard_set(q.guard);
	memset(&q.v, 0xa5, sizeof(q.v));
	if (!ret_ok(query(fake_fd, &q.v)) || !guard_ok(q.guard) ||
	    !is_pattern(&q.v, 0, size_1_0))
		return false;
	for (i = size_1_0; i < sizeof(q.v); i++)
		if (b[i] != 0xa5)
			return false;
	return true;
}

static bool test_version(void)
{
#ifdef WEAVE_VERSION_MAJOR
	unsigned int v = weave_version();

	printf("# weave_version() is 0x%06x\n", v);
	return v == WEAVE_VERSION(WEAVE_VERSION_MAJOR, WEAVE_VERSION_MINOR,
				  WEAVE_VERSION_PATCH);
#else
	return false;
#endif
}

static const struct {
	bool (*fn)(void);
	const char *name;
} tests[] = {
	{ test_binding, "weave_binding() fills the binding, nothing past it" },
	{ test_sync, "weave_sync() fills the sync, nothing past it" },
	{ test_task_launch, "weave_task_launch() fills the task, nothing past it" },
	{ test_task_host_write,
	  "weave_task_host_write() fills the task, nothing past it" },
	{ test_device_info,
	  "weave_query_device_info() fills the struct, nothing past it" },
	{ test_memory_usage,
	  "weave_query_memory_usage() fills the struct, nothing past it" },
	{ test_client_usage,
	  "weave_query_client_usage() fills the struct, nothing past it" },
	{ test_stream_query,
	  "weave_stream_query() fills the struct, nothing past it" },
	{ test_enqueue,
	  "weave_enqueue() passes the program's tasks, bindings and syncs" },
	{ test_flush, "weave_flush() passes the program's out-sync" },
	{ test_flush_all, "weave_flush_all() passes the program's out-sync" },
	{ test_1_0_task_launch,
	  "weave_task_launch@WEAVE_1.0 fills a 1.0 task, nothing past it" },
	{ test_1_0_device_info,
	  "weave_query_device_info@WEAVE_1.0 fills a 1.0 struct, nothing past it" },
	{ test_check_range,
	  "weave_check_range() fills the range, nothing past it" },
	{ test_check,
	  "weave_check() passes the program's arrays and returns the counts" },
	{ test_read,
	  "weave_read() passes the range and arrays and returns the counts" },
	{ test_failure_format,
	  "weave_failure_format() reads the program's failure and skips" },
	{ test_capture,
	  "weave_capture() fills the struct, nothing past it, even on error" },
	{ test_replay, "weave_replay() passes the program's syncs" },
	{ test_graph_destroy, "weave_graph_destroy() passes the graph" },
	{ test_version, "weave_version() is the header's version" },
};

/* Each test runs in a child of its own, so that a crash fails only it. */
int main(void)
{
	unsigned int i, n = ARRAY_SIZE(tests);
	int failed = 0, status;
	pid_t pid;

	printf("TAP version 13\n1..%u\n", n);
	fake_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fake_fd < 0) {
		printf("Bail out! /dev/null: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		fflush(stdout);
		pid = fork();
		if (!pid) {
			bool ok = tests[i].fn();

			fflush(stdout);
			_exit(ok ? 0 : 1);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			status = -1;
		if (WIFSIGNALED(status))
			printf("# killed by signal %d\n", WTERMSIG(status));
		if (status)
			failed = 1;
		printf("%sok %u %s\n", status ? "not " : "", i + 1,
		       tests[i].name);
	}
	return failed;
}
