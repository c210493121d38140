// SPDX-License-Identifier: MIT
/*
 * libweave: a failure of a DRM_IOCTL_WEAVE_CHECK or READ report, said in
 * one line.
 *
 * weave_check() and weave_read() themselves are inline in weave.h.  The formatter reads the
 * caller's structs with the caller's sizes (weave_failure_format() passes
 * them), as the kernel reads user arrays: a field the caller's header
 * lacks reads as zero, and the skips are found at the caller's stride.
 */
#define _GNU_SOURCE	/* strerrorname_np() */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "weave.h"
#include "private.h"

#define offsetofend(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member))

/* The structs of uAPI 1.3, the first that has them: the least accepted. */
#define FAILURE_1_3	offsetofend(struct drm_weave_failure, skips_dropped)
#define TASK_1_3	offsetofend(struct drm_weave_failure_task, pad)

/* glibc names every errno since 2.32; elsewhere, the table below. */
#if defined(__GLIBC__) && \
	(__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
#define HAVE_STRERRORNAME_NP	1
#endif

/* The errors tasks fail with most; the same names on every C library. */
static const char *errno_name(int err)
{
	switch (err) {
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case ENXIO: return "ENXIO";
	case E2BIG: return "E2BIG";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case EDEADLK: return "EDEADLK";
	case ENOSYS: return "ENOSYS";
	case ENODATA: return "ENODATA";
	case ETIME: return "ETIME";
	case EPROTO: return "EPROTO";
	case EBADMSG: return "EBADMSG";
	case EOVERFLOW: return "EOVERFLOW";
	case EILSEQ: return "EILSEQ";
	case EMSGSIZE: return "EMSGSIZE";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ECANCELED: return "ECANCELED";
	case EHWPOISON: return "EHWPOISON";
	}
#ifdef HAVE_STRERRORNAME_NP
	return strerrorname_np(err);
#else
	return NULL;
#endif
}

/* The built-in kernels' names, as enum drm_weave_kernel orders them. */
static const char *const kernel_names[] = {
	[DRM_WEAVE_KERNEL_NOOP] = "noop",
	[DRM_WEAVE_KERNEL_FILL] = "fill",
	[DRM_WEAVE_KERNEL_COPY] = "copy",
	[DRM_WEAVE_KERNEL_ADD_U32] = "add",
	[DRM_WEAVE_KERNEL_CRC32C] = "crc32c",
	[DRM_WEAVE_KERNEL_DELAY] = "delay",
	[DRM_WEAVE_KERNEL_FAIL] = "fail",
};

/* A line being written, snprintf() style: @n counts what did not fit. */
struct line {
	char *buf;
	size_t len;
	size_t n;
};

static void __attribute__((format(printf, 2, 3)))
put(struct line *l, const char *fmt, ...)
{
	size_t room = l->n < l->len ? l->len - l->n : 0;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(room ? l->buf + l->n : NULL, room, fmt, ap);
	va_end(ap);
	if (r > 0)
		l->n += (size_t)r;
}

/*
 * A task: the root says "kernel", a skip only the kernel's name; then its
 * stream, sequence number and label, if they are the caller's to see.
 */
static void put_task(struct line *l, const struct drm_weave_failure_task *t,
		     int root)
{
	const char *name = NULL;

	if (t->kernel < sizeof(kernel_names) / sizeof(kernel_names[0]))
		name = kernel_names[t->kernel];
	if (t->type == DRM_WEAVE_TASK_HOST_WRITE)
		put(l, "host write");
	else if (t->type != DRM_WEAVE_TASK_LAUNCH)
		put(l, "task of type %u", t->type);
	else if (name)
		put(l, "%s\"%s\"", root ? "kernel " : "", name);
	else
		put(l, "kernel %u", t->kernel);
	if (!(t->flags & DRM_WEAVE_FAILURE_TASK_OWN))
		return;
	put(l, " (stream %u, seq %llu", t->stream,
	    (unsigned long long)t->seqno);
	if (t->label)
		put(l, ", label %u", t->label);
	put(l, ")");
}

static void put_error(struct line *l, int error)
{
	const char *name = error < 0 && error > INT_MIN ?
			   errno_name(-error) : NULL;

	if (name)
		put(l, "-%s", name);
	else
		put(l, "%d", error);
}

/* Reads @size bytes of a caller's struct into @dst, of @dsize: zero past. */
static void read_struct(void *dst, size_t dsize, const void *src, size_t size)
{
	memset(dst, 0, dsize);
	memcpy(dst, src, size < dsize ? size : dsize);
}

static const char *plural(unsigned long long n)
{
	return n == 1 ? "" : "s";
}

WEAVE_PUBLIC int
weave_failure_format_sized(char *buf, size_t len,
			   const struct drm_weave_failure *failure,
			   size_t failure_size,
			   const struct drm_weave_failure_task *skips,
			   size_t skip_size)
{
	struct line l = { .buf = buf, .len = len };
	struct drm_weave_failure_task t;
	struct drm_weave_failure f;
	unsigned long long total;
	uint32_t i;

	if (!failure || failure_size < FAILURE_1_3 || (!buf && len) ||
	    (skips && skip_size < TASK_1_3))
		return -EINVAL;
	if (len)
		buf[0] = 0;
	read_struct(&f, sizeof(f), failure, failure_size);

	put(&l, "failed: ");
	put_task(&l, &f.root, 1);
	switch (f.cause) {
	case DRM_WEAVE_FAILURE_TIMEOUT:
		put(&l, " timed out (");
		put_error(&l, f.error);
		put(&l, ")");
		break;
	case DRM_WEAVE_FAILURE_IN_FENCE:
		put(&l, " did not run: an in-sync signalled ");
		put_error(&l, f.error);
		break;
	case DRM_WEAVE_FAILURE_CANCELED:
		put(&l, " was cancelled (");
		put_error(&l, f.error);
		put(&l, ")");
		break;
	case DRM_WEAVE_FAILURE_ENCODE:
		put(&l, " did not run: the kernel could not submit it (");
		put_error(&l, f.error);
		put(&l, ")");
		break;
	case DRM_WEAVE_FAILURE_CAPTURE:
		put(&l, " did not run: a capture window refused it (");
		put_error(&l, f.error);
		put(&l, ")");
		break;
	default:
		put(&l, " returned ");
		put_error(&l, f.error);
		if (f.cause == DRM_WEAVE_FAILURE_OVERFLOW)
			put(&l, ", and the tasks that failed after it too (over max_live_failures)");
		else if (f.cause != DRM_WEAVE_FAILURE_KERNEL)
			put(&l, " (cause %u)", f.cause);
	}

	total = (unsigned long long)f.nskips + f.skips_dropped;
	if (total && (!skips || !f.nskips)) {
		put(&l, "; then skipped %llu task%s", total, plural(total));
	} else if (total) {
		put(&l, "; then skipped ");
		for (i = 0; i < f.nskips; i++) {
			read_struct(&t, sizeof(t),
				    (const char *)skips +
				    ((size_t)f.first_skip + i) * skip_size,
				    skip_size);
			if (i)
				put(&l, i + 1 == f.nskips ? " and " : ", ");
			put_task(&l, &t, 0);
		}
		if (f.skips_dropped)
			put(&l, ", and %llu earlier skip%s",
			    (unsigned long long)f.skips_dropped,
			    plural(f.skips_dropped));
	}
	put(&l, "; failure #%llu", (unsigned long long)f.id);
	return l.n > INT_MAX ? -EOVERFLOW : (int)l.n;
}
