/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The suites' ring route: with WEAVE_TEST_SUBMIT=ring, every plain ENQUEUE
 * a suite makes goes through a shared submission ring of its stream.
 *
 * weave_test.h includes this after weave_test_ioctl(), and from there on
 * weave_enqueue(), weave_enqueue_ex() and weave_test_ioctl() of
 * DRM_IOCTL_WEAVE_ENQUEUE are the route's.  Without the switch they are
 * the plain calls.  With it, a call the ring can express (no flags, no
 * in- or out-syncs, 1 to max_tasks_per_enqueue tasks of the uAPI's own
 * strides, each with at most 8 bindings and 64 uniform bytes, and its
 * memory readable) is written as descriptors into a ring made for this
 * call, published, and consumed with the doorbell; the header's error
 * word becomes the call's return, as ENQUEUE's errno, and the ring is
 * acknowledged (RESUME) and destroyed.  Any other call goes to the ioctl
 * and is counted, with why.
 *
 * A ring per call: fds are closed and their numbers reused, streams are
 * destroyed and their handles reused, and processes fork; a ring made and
 * destroyed within the call can never feed the wrong stream, nor outlive
 * its file.  What it costs is a few system calls per ENQUEUE.
 *
 * One difference stays, and is counted as "partial": ENQUEUE queues all
 * its tasks or none, a ring queues each descriptor as if enqueued alone
 * (see "DOC: shared submission rings"), so a call of several tasks whose
 * k-th is refused has queued the k before it.
 *
 * The counts live in memory shared by the suite's processes (the harness
 * runs each test in a child), and the suite's own process prints them at
 * exit ("# WEAVE-RING: ..."), and fails if no descriptor went through a
 * ring, or if a ring's header ever disagreed with what was published: so
 * a switch that silently fell back to the ioctl fails the suite.
 */
#ifndef _WEAVE_TEST_RING_H_
#define _WEAVE_TEST_RING_H_

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "weave.h"

/* Why a call went to the ioctl. */
enum weave_test_ring_why {
	WEAVE_TEST_RING_SYNCS,	/* flags, in-syncs or out-syncs */
	WEAVE_TEST_RING_SHAPE,	/* a count, stride, size or field */
	WEAVE_TEST_RING_PTR,	/* memory the route cannot read */
	WEAVE_TEST_RING_NORING,	/* RING_CREATE refused (no stream, say) */
	WEAVE_TEST_RING_WHOLE,	/* a test of ENQUEUE's all-or-nothing */
	WEAVE_TEST_RING_WHYS
};

/* The route's counts, shared by every process of the suite. */
struct weave_test_ring_stats {
	uint64_t calls;		/* ENQUEUEs that went through a ring */
	uint64_t descs;		/* descriptors the kernel consumed */
	uint64_t refused;	/* of @calls, those a stopped ring refused */
	uint64_t partial;	/* of @calls, those that queued some tasks */
	uint64_t mismatch;	/* headers that disagreed with the route */
	uint64_t ioctl[WEAVE_TEST_RING_WHYS];
};

static struct weave_test_ring_stats *weave_test_ring_stats;
static pid_t weave_test_ring_owner;

/* Whether the switch is on: read once, in the suite's first process. */
static inline int weave_test_ring_on(void)
{
	return weave_test_ring_stats != NULL;
}

static inline void weave_test_ring_count(uint64_t *field, uint64_t n)
{
	__atomic_fetch_add(field, n, __ATOMIC_RELAXED);
}

/* Counts a call the ring cannot express; returns 1, "use the ioctl". */
static inline int weave_test_ring_fallback(enum weave_test_ring_why why)
{
	weave_test_ring_count(&weave_test_ring_stats->ioctl[why], 1);
	return 1;
}

__attribute__((constructor))
static void weave_test_ring_init(void)
{
	const char *sw = getenv("WEAVE_TEST_SUBMIT");
	void *p;

	if (!sw || strcmp(sw, "ring"))
		return;
	p = mmap(NULL, sizeof(*weave_test_ring_stats), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("WEAVE-RING: mmap");
		exit(1);
	}
	weave_test_ring_stats = p;
	weave_test_ring_owner = getpid();
}

/* Prints the counts; fails the suite if the route was not taken. */
__attribute__((destructor))
static void weave_test_ring_report(void)
{
	struct weave_test_ring_stats *s = weave_test_ring_stats;
	const char *name = program_invocation_short_name;
	uint64_t to_ioctl = 0;
	int i;

	if (!s || getpid() != weave_test_ring_owner)
		return;
	for (i = 0; i < WEAVE_TEST_RING_WHYS; i++)
		to_ioctl += s->ioctl[i];
	printf("# WEAVE-RING: %s: %llu ENQUEUEs through rings (%llu refused, %llu partial), %llu descriptors consumed; %llu to the ioctl (syncs or flags %llu, shape %llu, pointers %llu, no ring %llu, all or nothing %llu)\n",
	       name, (unsigned long long)s->calls,
	       (unsigned long long)s->refused,
	       (unsigned long long)s->partial,
	       (unsigned long long)s->descs, (unsigned long long)to_ioctl,
	       (unsigned long long)s->ioctl[WEAVE_TEST_RING_SYNCS],
	       (unsigned long long)s->ioctl[WEAVE_TEST_RING_SHAPE],
	       (unsigned long long)s->ioctl[WEAVE_TEST_RING_PTR],
	       (unsigned long long)s->ioctl[WEAVE_TEST_RING_NORING],
	       (unsigned long long)s->ioctl[WEAVE_TEST_RING_WHOLE]);
	fflush(stdout);
	if (!s->descs || s->mismatch) {
		printf("# WEAVE-RING: %s: not ok: %s\n", name, s->mismatch ?
		       "a ring's header disagreed with what was published" :
		       "WEAVE_TEST_SUBMIT=ring, and no descriptor went through a ring");
		fflush(stdout);
		_exit(1);
	}
}

/*
 * Copies @len bytes at the user pointer @src to @dst through the pipe
 * @p, so that an unreadable pointer is -EFAULT here, not a crash, as it
 * would be the ioctl's.  Returns 0 or -EFAULT.
 */
static inline int weave_test_ring_peek(const int p[2], void *dst,
				       uint64_t src, size_t len)
{
	if (!len)
		return 0;
	if (write(p[1], (const void *)(uintptr_t)src, len) != (ssize_t)len)
		return -EFAULT;
	return read(p[0], dst, len) == (ssize_t)len ? 0 : -EFAULT;
}

/* One task, read and checked; its bindings and uniforms copied. */
struct weave_test_ring_task {
	struct drm_weave_task t;
	struct drm_weave_binding bind[8];
	uint8_t uniforms[64];
};

/*
 * Copies the @count tasks at @tasks into @rt, through the pipe @p a chunk
 * at a time (a pipe holds 64 KiB); returns 0 or -EFAULT.
 */
static inline int weave_test_ring_peek_tasks(const int p[2],
					     const void *tasks, uint32_t count,
					     struct weave_test_ring_task *rt)
{
	struct drm_weave_task chunk[256];
	uint32_t i, k, n;

	for (i = 0; i < count; i += n) {
		n = count - i < 256 ? count - i : 256;
		if (weave_test_ring_peek(p, chunk, (uintptr_t)tasks +
					 (uint64_t)i * sizeof(chunk[0]),
					 n * sizeof(chunk[0])))
			return -EFAULT;
		for (k = 0; k < n; k++)
			rt[i + k].t = chunk[k];
	}
	return 0;
}

/*
 * Reads the bindings and uniforms of the task @rt holds, checking that a
 * descriptor can say the same; returns 0, or the fallback's reason plus
 * one.
 */
static inline int weave_test_ring_read(const int p[2],
				       struct weave_test_ring_task *rt)
{
	const struct drm_weave_task *t = &rt->t;

	if (t->pad || t->type >= DRM_WEAVE_RING_DESC_SKIP ||
	    t->bindings.count > 8 || t->uniforms_size > 64 ||
	    (t->bindings.count &&
	     t->bindings.stride != sizeof(struct drm_weave_binding)))
		return WEAVE_TEST_RING_SHAPE + 1;
	if (weave_test_ring_peek(p, rt->bind, t->bindings.ptr,
				 t->bindings.count * sizeof(rt->bind[0])) ||
	    weave_test_ring_peek(p, rt->uniforms, t->uniforms,
				 t->uniforms_size))
		return WEAVE_TEST_RING_PTR + 1;
	return 0;
}

/* Writes @rt as the descriptor at @d, which weave_ring_reserve() gave. */
static inline void weave_test_ring_put(struct drm_weave_ring_desc *d,
				       const struct weave_test_ring_task *rt)
{
	const struct drm_weave_task *t = &rt->t;

	d->type = (uint8_t)t->type;
	d->kernel = t->kernel;
	memcpy(d->grid, t->grid, sizeof(d->grid));
	d->label = t->label;
	d->data = t->data;
	memcpy(weave_ring_desc_bindings(d), rt->bind,
	       t->bindings.count * sizeof(rt->bind[0]));
	memcpy(weave_ring_desc_uniforms(d), rt->uniforms, t->uniforms_size);
}

/* The ring's units for @units of descriptors, with room for the skips. */
static inline uint32_t weave_test_ring_units(uint64_t units)
{
	uint32_t n = 64;

	while (n < units + DRM_WEAVE_RING_DESC_MAX_UNITS && n < (1u << 30))
		n <<= 1;
	return n;
}

/*
 * Consumes what was published on @r, from @head, with the doorbell; @end
 * holds the position after each of the @count descriptors.  Returns what
 * ENQUEUE would have: 0, a stopped ring's errno, or the doorbell's.
 */
static inline int weave_test_ring_consume(struct weave_ring *r, uint32_t head,
					  const uint32_t *end, uint32_t count,
					  uint32_t *done)
{
	uint32_t was, now, index, consumed;
	int ret = 0, err;

	*done = 0;
	for (;;) {
		was = weave_ring_head(r);
		ret = weave_ring_enter(r->fd, &consumed);
		now = weave_ring_head(r);
		while (*done < count && end[*done] - head <= now - head)
			++*done;
		err = weave_ring_error(r, &index);
		if (err) {
			/* At one of ours, the first not consumed. */
			if (index != now || (*done < count &&
					     index != (*done ? end[*done - 1] :
						       head)))
				weave_test_ring_count(&weave_test_ring_stats->mismatch, 1);
			return err;
		}
		if (ret || now == r->tail)
			return ret;
		if (now == was) {
			/* Published, not stopped, nothing consumed: wrong. */
			weave_test_ring_count(&weave_test_ring_stats->mismatch, 1);
			return -EIO;
		}
	}
}

/*
 * Acknowledges a stopped ring: takes back what is published past the bad
 * descriptor (ENQUEUE would queue none of it), then RESUME, which then
 * has nothing to consume.
 */
static inline void weave_test_ring_ack(struct weave_ring *r)
{
	uint32_t consumed = 1;

	r->tail = weave_ring_head(r);
	weave_ring_publish(r);
	if (weave_ring_resume(r, &consumed) || consumed ||
	    weave_ring_error(r, NULL))
		weave_test_ring_count(&weave_test_ring_stats->mismatch, 1);
}

/* The route's body, once the call is known to fit; see below. */
static inline int weave_test_ring_submit(int fd, uint32_t stream,
					 const struct weave_test_ring_task *rt,
					 uint32_t count, uint32_t units,
					 uint64_t *seqno)
{
	struct drm_weave_ring_desc *d;
	struct weave_ring r;
	uint32_t i, head, done, *end;
	int ret;

	if (weave_ring_create(fd, stream, units, &r))
		return weave_test_ring_fallback(WEAVE_TEST_RING_NORING);
	end = calloc(count, sizeof(*end));
	if (!end)
		abort();
	head = r.tail;
	for (i = 0; i < count; i++) {
		d = weave_ring_reserve(&r, rt[i].t.bindings.count,
				       rt[i].t.uniforms_size);
		if (!d)
			abort();	/* the ring was made large enough */
		weave_test_ring_put(d, &rt[i]);
		end[i] = r.tail;
	}
	weave_ring_publish(&r);
	ret = weave_test_ring_consume(&r, head, end, count, &done);
	weave_test_ring_count(&weave_test_ring_stats->calls, 1);
	weave_test_ring_count(&weave_test_ring_stats->descs, done);
	if (ret)
		weave_test_ring_count(&weave_test_ring_stats->refused, 1);
	if (ret && done)
		weave_test_ring_count(&weave_test_ring_stats->partial, 1);
	if (!ret && seqno)
		*seqno = weave_ring_seqno(&r);
	if (weave_ring_error(&r, NULL))
		weave_test_ring_ack(&r);
	if (weave_ring_destroy(&r))
		weave_test_ring_count(&weave_test_ring_stats->mismatch, 1);
	free(end);
	return ret;
}

/*
 * weave_test_ring_enqueue() - ENQUEUE through a ring, if a ring can say it.
 * Returns 0 or the negative errno ENQUEUE would give; 1 if the call must
 * go to the ioctl (counted).
 */
static inline int weave_test_ring_enqueue(int fd, uint32_t stream,
					  uint32_t flags, const void *tasks,
					  uint32_t stride, uint32_t count,
					  uint32_t in_count, uint32_t out_count,
					  uint64_t *seqno)
{
	struct drm_weave_device_info info;
	struct weave_test_ring_task *rt;
	uint64_t units = 0;
	int p[2], ret = 0;
	uint32_t i;

	if (!weave_test_ring_on())
		return 1;
	if (flags || in_count || out_count)
		return weave_test_ring_fallback(WEAVE_TEST_RING_SYNCS);
	memset(&info, 0, sizeof(info));
	if (weave_query_device_info(fd, &info) || !count ||
	    count > info.max_tasks_per_enqueue ||
	    stride != sizeof(struct drm_weave_task))
		return weave_test_ring_fallback(WEAVE_TEST_RING_SHAPE);
	rt = calloc(count, sizeof(*rt));
	if (!rt || pipe2(p, O_CLOEXEC))
		abort();
	if (weave_test_ring_peek_tasks(p, tasks, count, rt))
		ret = WEAVE_TEST_RING_PTR + 1;
	for (i = 0; i < count && !ret; i++) {
		ret = weave_test_ring_read(p, &rt[i]);
		units += weave_ring_desc_units(rt[i].t.bindings.count,
					       rt[i].t.uniforms_size);
	}
	close(p[0]);
	close(p[1]);
	if (!ret && weave_test_ring_units(units) > info.max_ring_units)
		ret = WEAVE_TEST_RING_SHAPE + 1;
	if (ret)
		ret = weave_test_ring_fallback(ret - 1);
	else
		ret = weave_test_ring_submit(fd, stream, rt, count,
					     weave_test_ring_units(units),
					     seqno);
	free(rt);
	return ret;
}

/*
 * weave_test_ioctl(), with DRM_IOCTL_WEAVE_ENQUEUE through the route.  Not
 * inlined: @arg is an ENQUEUE's only for that request, which the compiler
 * would not know of a caller's smaller argument.
 */
static __attribute__((noinline, unused)) int
weave_test_route_ioctl(int fd, unsigned long request,
					 void *arg)
{
	struct drm_weave_enqueue *a = arg;
	uint64_t seqno = 0;
	int ret = 1;

	if (request == DRM_IOCTL_WEAVE_ENQUEUE) {
		ret = weave_test_ring_enqueue(fd, a->stream, a->flags,
					      (const void *)(uintptr_t)a->tasks.ptr,
					      a->tasks.stride, a->tasks.count,
					      a->in_syncs.count,
					      a->out_syncs.count, &seqno);
		if (!ret)
			a->seqno = seqno;
	}
	if (ret == 1)
		ret = (weave_test_ioctl)(fd, request, arg);
	return ret;
}

/*
 * weave_test_ioctl_whole() - weave_test_ioctl() for a test of ENQUEUE's
 * all-or-nothing, which a ring, queueing each descriptor alone, does not
 * have: always the ioctl, and counted as such.
 */
static inline int weave_test_ioctl_whole(int fd, unsigned long request,
					 void *arg)
{
	if (weave_test_ring_on() && request == DRM_IOCTL_WEAVE_ENQUEUE)
		weave_test_ring_fallback(WEAVE_TEST_RING_WHOLE);
	return (weave_test_ioctl)(fd, request, arg);
}

/* weave_enqueue() of no in-syncs, for the same: always the ioctl. */
static inline int weave_test_enqueue_whole(int fd, uint32_t stream,
					   const struct drm_weave_task *tasks,
					   uint32_t count, uint64_t *seqno)
{
	if (weave_test_ring_on())
		weave_test_ring_fallback(WEAVE_TEST_RING_WHOLE);
	return (weave_enqueue)(fd, stream, tasks, count, NULL, 0, seqno);
}

/* weave_enqueue_ex() through the route, each argument read once. */
#define weave_enqueue_ex(fd, stream, flags, tasks, count, in, nin, out,	\
			 nout, seqno) ({					\
	int fd_ = (fd), r_;						\
	uint32_t s_ = (stream), f_ = (flags), n_ = (count);		\
	uint32_t nin_ = (nin), nout_ = (nout);				\
	const struct drm_weave_task *t_ = (tasks);			\
	const struct drm_weave_sync *in_ = (in), *out_ = (out);	\
	uint64_t *sq_ = (seqno);					\
									\
	r_ = weave_test_ring_enqueue(fd_, s_, f_, t_, sizeof(*t_), n_,	\
				     nin_, nout_, sq_);			\
	r_ == 1 ? (weave_enqueue_ex)(fd_, s_, f_, t_, n_, in_, nin_,	\
				     out_, nout_, sq_) : r_;		\
})
#define weave_enqueue(fd, stream, tasks, count, in, nin, seqno)	\
	weave_enqueue_ex(fd, stream, 0, tasks, count, in, nin, NULL, 0, seqno)
#define weave_test_ioctl(...)	weave_test_route_ioctl(__VA_ARGS__)

#endif /* _WEAVE_TEST_RING_H_ */
