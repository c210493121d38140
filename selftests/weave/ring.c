// SPDX-License-Identifier: GPL-2.0
/*
 * weave: shared submission rings (uAPI 1.9): creation and teardown, the
 * mappings, the doorbell and its order, the error word and resume, bad
 * tails and descriptors, a producer racing the consumer, limits and
 * memory accounting.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weave_test.h"

FIXTURE(ring) {
	WEAVE_TEST_FILE_FIELDS;
	uint32_t stream;
	uint32_t bo;
	uint32_t *map;
	struct weave_ring r;
};

FIXTURE_SETUP(ring)
{
	WEAVE_TEST_FILE_SETUP();
	ASSERT_LE(9u, self->info.uapi_minor) {
		TH_LOG("uAPI 1.%u has no shared rings", self->info.uapi_minor);
	}
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	self->bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	self->map = weave_test_map(_metadata, self->fd, self->bo, self->page);
	ASSERT_EQ(0, weave_ring_create(self->fd, self->stream, 64, &self->r));
}

FIXTURE_TEARDOWN(ring)
{
	close(self->fd);
}

typedef FIXTURE_DATA(ring) ring_t;

/* --- helpers ------------------------------------------------------------- */

/* Reserves a fill of the first @words words of @bo with @pattern. */
static int ring_fill(struct weave_ring *r, uint32_t bo, uint32_t words,
		     uint32_t pattern)
{
	struct drm_weave_ring_desc *d = weave_ring_reserve(r, 1, 4);

	if (!d)
		return -ENOSPC;
	d->type = DRM_WEAVE_TASK_LAUNCH;
	d->kernel = DRM_WEAVE_KERNEL_FILL;
	weave_ring_desc_bindings(d)[0] =
		weave_binding(bo, DRM_WEAVE_ACCESS_WRITE, 0, words * 4);
	memcpy(weave_ring_desc_uniforms(d), &pattern, 4);
	return 0;
}

/* Rings the doorbell; returns what it consumed, failing on error. */
static uint32_t ring_enter(struct __test_metadata *_metadata, int fd)
{
	uint32_t consumed = ~0u;

	ASSERT_EQ(0, weave_ring_enter(fd, &consumed));
	return consumed;
}

/* The raw descriptor at ring position @at. */
static struct drm_weave_ring_desc *ring_at(struct weave_ring *r, uint32_t at)
{
	return (void *)(r->descs + (size_t)(at & (r->units - 1)) *
			DRM_WEAVE_RING_UNIT);
}

/* A raw doorbell, for arguments libweave would not build. */
static int ring_enter_raw(int fd, uint32_t flags, uint32_t ring, uint32_t pad)
{
	struct drm_weave_ring_enter e = {
		.flags = flags, .ring = ring, .pad = pad,
	};

	return weave_test_ioctl(fd, DRM_IOCTL_WEAVE_RING_ENTER, &e);
}

static int ring_create_raw(int fd, uint32_t stream, uint32_t units,
			   uint32_t flags, struct drm_weave_ring_create *c)
{
	memset(c, 0, sizeof(*c));
	c->stream = stream;
	c->units = units;
	c->flags = flags;
	return weave_test_ioctl(fd, DRM_IOCTL_WEAVE_RING_CREATE, c);
}

/* --- creation, mappings, teardown ---------------------------------------- */

TEST_F(ring, create_and_map)
{
	struct drm_weave_ring_create c;
	void *p;

	ASSERT_EQ(0u, self->r.hdr->head);
	ASSERT_EQ(0, weave_ring_error(&self->r, NULL));
	ASSERT_EQ(DRM_WEAVE_RING_NEED_WAKEUP, self->r.hdr->flags);
	/* 64 bytes of tail, then 1 KiB of descriptors: a page. */
	ASSERT_EQ(self->page, self->r.sq_size);
	/* The header is the kernel's: no write mapping, no mprotect. */
	ASSERT_EQ(-1, mprotect((void *)self->r.hdr, self->page,
			       PROT_READ | PROT_WRITE));
	ASSERT_EQ(EACCES, errno);
	ASSERT_EQ(0, weave_stream_destroy(self->fd, self->stream));
	ASSERT_EQ(-ENOENT, weave_ring_error(&self->r, NULL));

	/* A second stream, mapped by hand. */
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_EQ(0, ring_create_raw(self->fd, self->stream, 128, 0, &c));
	ASSERT_NE(self->r.ring, c.ring);
	ASSERT_EQ(self->page, c.header_size);
	p = mmap(NULL, c.header_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, (off_t)c.header_offset);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EPERM, errno);
	p = mmap(NULL, c.sq_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 self->fd, (off_t)c.sq_offset);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	p = mmap(NULL, c.sq_size + self->page, PROT_READ | PROT_WRITE,
		 MAP_SHARED, self->fd, (off_t)c.sq_offset);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	p = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)(c.header_offset + (1024 * 70) * self->page));
	ASSERT_EQ(MAP_FAILED, p);
	p = mmap(NULL, c.sq_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, (off_t)c.sq_offset);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, munmap(p, c.sq_size));
	struct drm_weave_ring_destroy d = { .ring = c.ring };

	ASSERT_EQ(0, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_RING_DESTROY,
				      &d));
	ASSERT_EQ(-ENOENT, weave_test_ioctl(self->fd,
					    DRM_IOCTL_WEAVE_RING_DESTROY, &d));
	ASSERT_EQ(0, weave_ring_destroy(&self->r));
}

TEST_F(ring, bad_args)
{
	struct drm_weave_ring_create c;
	struct drm_weave_ring_destroy d = { .ring = self->r.ring, .pad = 1 };
	uint32_t other = weave_test_stream(_metadata, self->fd,
					   DRM_WEAVE_PRIORITY_NORMAL);

	ASSERT_EQ(-EINVAL, ring_create_raw(self->fd, other, 64, 2, &c));
	ASSERT_EQ(-EINVAL, ring_create_raw(self->fd, other, 96, 0, &c));
	ASSERT_EQ(-EINVAL, ring_create_raw(self->fd, other, 32, 0, &c));
	ASSERT_EQ(-EINVAL, ring_create_raw(self->fd, other, 0, 0, &c));
	ASSERT_EQ(-EINVAL, ring_create_raw(self->fd, other,
					   self->info.max_ring_units * 2, 0,
					   &c));
	ASSERT_EQ(-ENOENT, ring_create_raw(self->fd, WEAVE_TEST_BAD_HANDLE,
					   64, 0, &c));
	ASSERT_EQ(-EBUSY, ring_create_raw(self->fd, self->stream, 64, 0, &c));
	ASSERT_EQ(-EINVAL, weave_test_ioctl(self->fd,
					    DRM_IOCTL_WEAVE_RING_DESTROY, &d));
	d.pad = 0;
	d.ring = WEAVE_TEST_BAD_HANDLE;
	ASSERT_EQ(-ENOENT, weave_test_ioctl(self->fd,
					    DRM_IOCTL_WEAVE_RING_DESTROY, &d));
	ASSERT_EQ(-EINVAL, ring_enter_raw(self->fd, 2, 0, 0));
	ASSERT_EQ(-EINVAL, ring_enter_raw(self->fd, 0, self->r.ring, 0));
	ASSERT_EQ(-EINVAL, ring_enter_raw(self->fd, 0, 0, 1));
	ASSERT_EQ(-ENOENT, ring_enter_raw(self->fd, DRM_WEAVE_RING_ENTER_RESUME,
					  WEAVE_TEST_BAD_HANDLE, 0));
	ASSERT_EQ(-ENOENT, ring_enter_raw(self->fd, DRM_WEAVE_RING_ENTER_RESUME,
					  0, 0));
	ASSERT_EQ(-EALREADY, weave_ring_resume(&self->r, NULL));
	/* Nothing published: nothing consumed. */
	ASSERT_EQ(0u, ring_enter(_metadata, self->fd));
}

TEST_F(ring, limits)
{
	uint32_t i, s, n = self->info.max_client_rings;
	struct drm_weave_ring_create c;

	ASSERT_LT(0u, n);
	ASSERT_LE(64u, self->info.max_ring_units);
	for (i = 1; i < n; i++) {
		s = weave_test_stream(_metadata, self->fd,
				      DRM_WEAVE_PRIORITY_NORMAL);
		ASSERT_EQ(0, ring_create_raw(self->fd, s, 64, 0, &c));
	}
	s = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_EQ(-ENOSPC, ring_create_raw(self->fd, s, 64, 0, &c));
	ASSERT_EQ(n, weave_test_client_usage(_metadata, self->fd).shared_rings);
	/* The largest ring. */
	ASSERT_EQ(0, weave_ring_destroy(&self->r));
	ASSERT_EQ(0, ring_create_raw(self->fd, s, self->info.max_ring_units, 0,
				     &c));
}

TEST_F(ring, memory_accounting)
{
	struct drm_weave_client_usage u0, u1, u2;
	struct drm_weave_ring_create c;
	uint32_t s = weave_test_stream(_metadata, self->fd,
				       DRM_WEAVE_PRIORITY_NORMAL);
	uint64_t sq = 4096u * DRM_WEAVE_RING_UNIT + self->page;

	u0 = weave_test_client_usage(_metadata, self->fd);
	ASSERT_EQ(1u, u0.shared_rings);
	/* Header, area, and the scratch of the doorbell. */
	ASSERT_LT(2 * self->page, u0.shared_ring_bytes);
	ASSERT_EQ(0, ring_create_raw(self->fd, s, 4096, 0, &c));
	ASSERT_EQ(sq, c.sq_size);
	u1 = weave_test_client_usage(_metadata, self->fd);
	ASSERT_EQ(2u, u1.shared_rings);
	ASSERT_EQ(u0.shared_ring_bytes + sq + self->page, u1.shared_ring_bytes);
	ASSERT_EQ(u0.kernel_bytes + sq + self->page, u1.kernel_bytes);
	ASSERT_EQ(0, weave_ring_destroy(&self->r));
	u2 = weave_test_client_usage(_metadata, self->fd);
	ASSERT_EQ(1u, u2.shared_rings);
	ASSERT_EQ(u1.shared_ring_bytes - 2 * self->page, u2.shared_ring_bytes);
}

/* --- the doorbell --------------------------------------------------------- */

TEST_F(ring, doorbell_order_and_completions)
{
	uint32_t i, n = 0, consumed;
	uint64_t seqno;

	/* Fills of the same words, in order: the last one stays. */
	for (i = 1; i <= 10; i++) {
		ASSERT_EQ(0, ring_fill(&self->r, self->bo, 16, i));
		n++;
		ASSERT_EQ(0, weave_ring_noop(&self->r));
		n++;
	}
	/* Reserved, not published: not consumed. */
	ASSERT_EQ(0u, ring_enter(_metadata, self->fd));
	weave_ring_publish(&self->r);
	consumed = ring_enter(_metadata, self->fd);
	ASSERT_EQ(n, consumed);
	ASSERT_EQ(self->r.tail, weave_ring_head(&self->r));
	seqno = weave_ring_seqno(&self->r);
	ASSERT_EQ((uint64_t)n, seqno);
	ASSERT_EQ((uint64_t)n,
		  weave_test_squery(_metadata, self->fd, self->stream).enqueued);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	ASSERT_EQ(0, weave_wait_seqno(self->fd, self->stream, seqno,
				      weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
	/* Completions without a system call. */
	ASSERT_EQ(seqno, weave_ring_completed(&self->r));
	for (i = 0; i < 16; i++)
		ASSERT_EQ(10u, self->map[i]);

	/* ENQUEUE and the ring share the stream's order and numbers. */
	weave_test_enqueue_noop(_metadata, self->fd, self->stream);
	ASSERT_EQ(0, ring_fill(&self->r, self->bo, 1, 77));
	weave_ring_publish(&self->r);
	ASSERT_EQ(1u, ring_enter(_metadata, self->fd));
	ASSERT_EQ(seqno + 2, weave_ring_seqno(&self->r));
	weave_test_finish(_metadata, self->fd, self->stream);
	ASSERT_EQ(seqno + 2, weave_ring_completed(&self->r));
	ASSERT_EQ(77u, self->map[0]);
}

TEST_F(ring, wrap_and_skips)
{
	uint32_t i, total = 0, consumed, pattern = 0;

	/* 64 units: 4-unit fills and 2-unit no-ops wrap with skips. */
	for (i = 0; i < 200; i++) {
		if (i % 3) {
			ASSERT_EQ(0, ring_fill(&self->r, self->bo, 4, ++pattern));
		} else {
			ASSERT_EQ(0, weave_ring_noop(&self->r));
		}
		weave_ring_publish(&self->r);
		if (i % 7 == 6) {
			consumed = ring_enter(_metadata, self->fd);
			ASSERT_LT(0u, consumed);
			total += consumed;
			ASSERT_EQ(self->r.tail, weave_ring_head(&self->r));
		}
	}
	total += ring_enter(_metadata, self->fd);
	ASSERT_EQ(0, weave_ring_error(&self->r, NULL));
	ASSERT_LT(200u, total);	/* skips count too */
	ASSERT_EQ(200u, weave_ring_seqno(&self->r));
	weave_test_finish(_metadata, self->fd, self->stream);
	ASSERT_EQ(200u, weave_ring_completed(&self->r));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(pattern, self->map[i]);
}

TEST_F(ring, full_ring)
{
	uint32_t n = 0;

	while (!weave_ring_noop(&self->r))
		n++;
	ASSERT_EQ(32u, n);
	weave_ring_publish(&self->r);
	ASSERT_EQ(n, ring_enter(_metadata, self->fd));
	ASSERT_EQ(0, weave_ring_noop(&self->r));
}

TEST_F(ring, host_write)
{
	static const uint32_t data[4] = { 1, 2, 3, 4 };
	struct drm_weave_ring_desc *d = weave_ring_reserve(&self->r, 1, 0);

	ASSERT_NE(NULL, d);
	d->type = DRM_WEAVE_TASK_HOST_WRITE;
	d->data = (uintptr_t)data;
	weave_ring_desc_bindings(d)[0] =
		weave_binding(self->bo, DRM_WEAVE_ACCESS_WRITE, 8,
			      sizeof(data));
	weave_ring_publish(&self->r);
	ASSERT_EQ(1u, ring_enter(_metadata, self->fd));
	weave_test_finish(_metadata, self->fd, self->stream);
	ASSERT_EQ(0, memcmp(&self->map[2], data, sizeof(data)));
}

/* --- the error word --------------------------------------------------------- */

TEST_F(ring, error_word_and_resume)
{
	struct weave_ring other;
	uint32_t s2 = weave_test_stream(_metadata, self->fd,
					DRM_WEAVE_PRIORITY_NORMAL);
	struct drm_weave_ring_desc *d;
	uint32_t bad, index = ~0u;

	ASSERT_EQ(0, weave_ring_create(self->fd, s2, 64, &other));
	ASSERT_EQ(0, ring_fill(&self->r, self->bo, 1, 5));
	bad = self->r.tail;
	d = weave_ring_reserve(&self->r, 0, 0);
	d->type = DRM_WEAVE_TASK_LAUNCH;
	d->kernel = 999;		/* no such kernel */
	ASSERT_EQ(0, ring_fill(&self->r, self->bo, 1, 6));
	weave_ring_publish(&self->r);
	ASSERT_EQ(0, weave_ring_noop(&other));
	weave_ring_publish(&other);

	/* The good one before, the other ring: consumed. */
	ASSERT_EQ(2u, ring_enter(_metadata, self->fd));
	ASSERT_EQ(-EINVAL, weave_ring_error(&self->r, &index));
	ASSERT_EQ(bad, index);
	ASSERT_EQ(bad, weave_ring_head(&self->r));
	ASSERT_EQ(1u, weave_ring_seqno(&self->r));
	ASSERT_EQ(1u, weave_ring_seqno(&other));
	ASSERT_EQ(0, weave_ring_error(&other, NULL));
	/* Stopped: nothing after it. */
	ASSERT_EQ(0u, ring_enter(_metadata, self->fd));

	/* Rewritten, acknowledged, resumed. */
	d->kernel = DRM_WEAVE_KERNEL_NOOP;
	ASSERT_EQ(0, ring_enter_raw(self->fd, DRM_WEAVE_RING_ENTER_RESUME,
				    self->r.ring, 0));
	ASSERT_EQ(0, weave_ring_error(&self->r, NULL));
	ASSERT_EQ(self->r.tail, weave_ring_head(&self->r));
	ASSERT_EQ(3u, weave_ring_seqno(&self->r));
	weave_test_finish(_metadata, self->fd, self->stream);
	ASSERT_EQ(6u, self->map[0]);

	/* A bad handle: -ENOENT; made a skip and resumed. */
	ASSERT_EQ(0, ring_fill(&self->r, WEAVE_TEST_BAD_HANDLE, 1, 7));
	weave_ring_publish(&self->r);
	ASSERT_EQ(0u, ring_enter(_metadata, self->fd));
	ASSERT_EQ(-ENOENT, weave_ring_error(&self->r, NULL));
	weave_ring_skip_bad(&self->r);
	uint32_t consumed = 0;

	ASSERT_EQ(0, weave_ring_resume(&self->r, &consumed));
	ASSERT_EQ(1u, consumed);
	ASSERT_EQ(self->r.tail, weave_ring_head(&self->r));
}

/* Skips, published and consumed, to ring position @pos of the area. */
static void ring_skip_to(struct __test_metadata *_metadata, ring_t *self,
			 uint32_t pos)
{
	uint32_t at = self->r.tail & 63, n = (pos - at) & 63;
	struct drm_weave_ring_desc *d;

	if (!n)
		return;
	if (at + n > 64)
		n = 64 - at;	/* to the end first */
	d = ring_at(&self->r, self->r.tail);
	d->units = (uint8_t)n;
	d->type = DRM_WEAVE_RING_DESC_SKIP;
	self->r.tail += n;
	weave_ring_publish(&self->r);
	ASSERT_EQ(1u, ring_enter(_metadata, self->fd));
	ring_skip_to(_metadata, self, pos);
}

TEST_F(ring, bad_descriptors)
{
	struct {
		uint8_t units, type, nb, us;
		int err;
	} bad[] = {
		{ 0, 0, 0, 0, -EINVAL },	/* no size */
		{ 1, 0, 0, 0, -EINVAL },	/* smaller than a head */
		{ 3, 0, 0, 0, -EINVAL },	/* larger than it takes */
		{ 2, 0, 1, 0, -EINVAL },	/* smaller than it takes */
		{ 18, 0, 9, 0, -EINVAL },	/* nine bindings */
		{ 7, 0, 0, 80, -EINVAL },	/* 80 bytes of uniforms */
		{ 19, 0, 8, 64, -EINVAL },	/* too long */
		{ 2, 7, 0, 0, -EINVAL },	/* no such type */
		{ 40, 0xff, 0, 0, -EINVAL },	/* a skip past the tail */
		{ 4, 1, 1, 0, -EINVAL },	/* a host write without data */
	};
	struct drm_weave_ring_desc *d;
	uint32_t i, at;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ring_skip_to(_metadata, self, 0);
		at = self->r.tail;
		d = ring_at(&self->r, at);
		memset(d, 0, 20 * DRM_WEAVE_RING_UNIT);
		d->units = bad[i].units;
		d->type = bad[i].type;
		d->num_bindings = bad[i].nb;
		d->uniforms_size = bad[i].us;
		self->r.tail += 20;
		weave_ring_publish(&self->r);
		ASSERT_EQ(0u, ring_enter(_metadata, self->fd));
		ASSERT_EQ(bad[i].err, weave_ring_error(&self->r, NULL)) {
			TH_LOG("descriptor %u", i);
		}
		ASSERT_EQ(at, weave_ring_head(&self->r));
		/* Thrown away: a skip of the 20 units. */
		d->units = 20;
		d->type = DRM_WEAVE_RING_DESC_SKIP;
		ASSERT_EQ(0, weave_ring_resume(&self->r, NULL));
		ASSERT_EQ(self->r.tail, weave_ring_head(&self->r));
	}
	/* A descriptor across the end of the area. */
	ring_skip_to(_metadata, self, 60);
	d = ring_at(&self->r, self->r.tail);
	memset(d, 0, 4 * DRM_WEAVE_RING_UNIT);
	d->units = 5;
	d->num_bindings = 1;
	d->uniforms_size = 24;
	self->r.tail += 5;
	weave_ring_publish(&self->r);
	ASSERT_EQ(0u, ring_enter(_metadata, self->fd));
	ASSERT_EQ(-EINVAL, weave_ring_error(&self->r, NULL));
}

TEST_F(ring, bad_tails)
{
	uint32_t head;

	/* Past capacity. */
	__atomic_store_n(&self->r.sq->tail, 65, __ATOMIC_RELEASE);
	ASSERT_EQ(0u, ring_enter(_metadata, self->fd));
	ASSERT_EQ(-EINVAL, weave_ring_error(&self->r, NULL));
	ASSERT_EQ(0u, weave_ring_head(&self->r));
	/* Fixed and resumed. */
	ASSERT_EQ(0, weave_ring_noop(&self->r));
	weave_ring_publish(&self->r);
	ASSERT_EQ(0, weave_ring_resume(&self->r, NULL));
	head = weave_ring_head(&self->r);
	ASSERT_EQ(2u, head);
	/* Backwards. */
	__atomic_store_n(&self->r.sq->tail, head - 1, __ATOMIC_RELEASE);
	ASSERT_EQ(0u, ring_enter(_metadata, self->fd));
	ASSERT_EQ(-EINVAL, weave_ring_error(&self->r, NULL));
	ASSERT_EQ(head, weave_ring_head(&self->r));
	weave_ring_publish(&self->r);
	ASSERT_EQ(0, weave_ring_resume(&self->r, NULL));
	ASSERT_EQ(0, weave_ring_error(&self->r, NULL));
}

TEST_F(ring, enqueue_rules)
{
	struct drm_weave_ring_desc *d;

	/* A fill that reads only. */
	d = weave_ring_reserve(&self->r, 1, 4);
	d->type = DRM_WEAVE_TASK_LAUNCH;
	d->kernel = DRM_WEAVE_KERNEL_FILL;
	weave_ring_desc_bindings(d)[0] =
		weave_binding(self->bo, DRM_WEAVE_ACCESS_READ, 0, 4);
	weave_ring_publish(&self->r);
	ASSERT_EQ(0u, ring_enter(_metadata, self->fd));
	ASSERT_EQ(-EINVAL, weave_ring_error(&self->r, NULL));
	weave_ring_skip_bad(&self->r);
	ASSERT_EQ(0, weave_ring_resume(&self->r, NULL));
	/* Past the buffer. */
	d = weave_ring_reserve(&self->r, 1, 4);
	d->type = DRM_WEAVE_TASK_LAUNCH;
	d->kernel = DRM_WEAVE_KERNEL_FILL;
	weave_ring_desc_bindings(d)[0] =
		weave_binding(self->bo, DRM_WEAVE_ACCESS_WRITE, self->page, 4);
	weave_ring_publish(&self->r);
	ASSERT_EQ(0u, ring_enter(_metadata, self->fd));
	ASSERT_EQ(-EINVAL, weave_ring_error(&self->r, NULL));
	weave_ring_skip_bad(&self->r);
	ASSERT_EQ(0, weave_ring_resume(&self->r, NULL));
	/* Ordering across streams: a copy on another stream sees the fill. */
	uint32_t s2 = weave_test_stream(_metadata, self->fd,
					DRM_WEAVE_PRIORITY_NORMAL);
	uint32_t bo2 = weave_test_bo(_metadata, self->fd, self->page, 0);
	uint32_t *map2 = weave_test_map(_metadata, self->fd, bo2, self->page);
	struct weave_test_batch b;

	ASSERT_EQ(0, ring_fill(&self->r, self->bo, 4, 42));
	weave_ring_publish(&self->r);
	ASSERT_EQ(1u, ring_enter(_metadata, self->fd));
	weave_test_batch_init(&b);
	weave_test_copy_task(&b, self->bo, 0, bo2, 0, 16);
	weave_test_enqueue(_metadata, self->fd, s2, &b);
	weave_test_finish(_metadata, self->fd, s2);
	ASSERT_EQ(42u, map2[0]);
	ASSERT_EQ(42u, map2[3]);
	ASSERT_EQ(0, weave_ring_error(&self->r, NULL));
}

/*
 * A capture window records a ring's launches, as it does ENQUEUE's: they
 * do not run, and END seals them into the graph; a ring made while the
 * window records too.
 */
TEST_F(ring, capture_records_launches)
{
	struct drm_weave_capture c;
	struct weave_ring r2;

	ASSERT_EQ(0, weave_capture(self->fd, self->stream,
				   DRM_WEAVE_CAPTURE_PREPARE, NULL));
	ASSERT_EQ(0, weave_capture(self->fd, self->stream,
				   DRM_WEAVE_CAPTURE_BEGIN, NULL));
	ASSERT_EQ(0, ring_fill(&self->r, self->bo, 4, 42));
	weave_ring_publish(&self->r);
	ASSERT_EQ(1u, ring_enter(_metadata, self->fd));
	ASSERT_EQ(0, weave_ring_error(&self->r, NULL));
	ASSERT_EQ(0, weave_capture(self->fd, self->stream,
				   DRM_WEAVE_CAPTURE_QUERY, &c));
	ASSERT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
	ASSERT_EQ(1u, c.ntasks);
	ASSERT_EQ(0, weave_ring_destroy(&self->r));
	ASSERT_EQ(0, weave_ring_create(self->fd, self->stream, 64, &r2));
	ASSERT_EQ(0, ring_fill(&r2, self->bo, 4, 43));
	weave_ring_publish(&r2);
	ASSERT_EQ(1u, ring_enter(_metadata, self->fd));
	ASSERT_EQ(0, weave_ring_error(&r2, NULL));
	ASSERT_EQ(0, weave_capture(self->fd, self->stream,
				   DRM_WEAVE_CAPTURE_END, &c));
	ASSERT_EQ(2u, c.ntasks);
	ASSERT_NE(0u, c.graph);
	usleep(100000);
	ASSERT_EQ(0u, self->map[0]);
	ASSERT_EQ(0, weave_ring_destroy(&r2));
}

/* --- races and teardown --------------------------------------------------- */

struct racer {
	struct weave_ring *r;
	volatile int stop;
	uint32_t bo;
};

/* Rewrites every unit of the area, all the time, with ever other bytes. */
static void *racer_main(void *arg)
{
	struct racer *x = arg;
	uint32_t i = 0;

	while (!x->stop) {
		uint8_t *p = x->r->descs + (i * 7 % (x->r->units * 16));

		*p = (uint8_t)(i * 13);
		if (i % 5 == 0)
			__atomic_store_n(&x->r->sq->tail, i * 3,
					 __ATOMIC_RELEASE);
		i++;
	}
	return NULL;
}

TEST_F(ring, racing_producer)
{
	struct racer x = { .r = &self->r, .bo = self->bo };
	struct drm_weave_stream_query q;
	pthread_t t;
	int i, ret;

	ASSERT_EQ(0, pthread_create(&t, NULL, racer_main, &x));
	for (i = 0; i < 2000; i++) {
		ret = ring_enter_raw(self->fd, 0, 0, 0);
		ASSERT_TRUE(ret == 0 || ret == -EBUSY) {
			TH_LOG("doorbell: %d", ret);
		}
		if (weave_ring_error(&self->r, NULL))
			ring_enter_raw(self->fd, DRM_WEAVE_RING_ENTER_RESUME,
				       self->r.ring, 0);
		if (i % 100 == 99)
			weave_flush(self->fd, self->stream, NULL);
	}
	x.stop = 1;
	ASSERT_EQ(0, pthread_join(t, NULL));
	/* Whatever got through is the stream's, and nothing else. */
	q = weave_test_squery(_metadata, self->fd, self->stream);
	ASSERT_EQ(q.enqueued, weave_ring_seqno(&self->r));
	weave_flush(self->fd, self->stream, NULL);
	weave_wait(self->fd, self->stream, weave_timeout_ns(WEAVE_TEST_WAIT_NS));
}

TEST_F(ring, close_with_half_written_ring)
{
	int i;

	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, ring_fill(&self->r, self->bo, 1, i));
	weave_ring_publish(&self->r);
	ASSERT_EQ(0, weave_ring_noop(&self->r));	/* not published */
	ASSERT_EQ(10u, ring_enter(_metadata, self->fd));
	/* Published and not consumed, then half written. */
	ASSERT_EQ(0, ring_fill(&self->r, self->bo, 1, 99));
	weave_ring_publish(&self->r);
	ring_at(&self->r, self->r.tail)->units = 9;
	close(self->fd);
	/* The mappings keep their pages after the file is gone. */
	ASSERT_EQ(40u, weave_ring_head(&self->r));
	ring_at(&self->r, 0)->units = 2;
	self->fd = weave_test_open(_metadata);
}

TEST_F(ring, destroy_with_half_written_ring)
{
	struct drm_weave_ring_destroy d = { .ring = self->r.ring };

	ASSERT_EQ(0, ring_fill(&self->r, self->bo, 1, 3));
	weave_ring_publish(&self->r);
	ASSERT_EQ(0, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_RING_DESTROY,
				      &d));
	ASSERT_EQ(0u, ring_enter(_metadata, self->fd));
	/* A ring for the stream again, from a clean header. */
	ASSERT_EQ(0, weave_ring_create(self->fd, self->stream, 64, &self->r));
	ASSERT_EQ(0u, weave_ring_head(&self->r));
	ASSERT_EQ(0, weave_ring_error(&self->r, NULL));
	ASSERT_EQ(0, weave_ring_noop(&self->r));
	weave_ring_publish(&self->r);
	ASSERT_EQ(1u, ring_enter(_metadata, self->fd));
	ASSERT_EQ(1u, weave_ring_seqno(&self->r));
}

TEST_F(ring, stream_destroyed)
{
	ASSERT_EQ(0, weave_ring_noop(&self->r));
	weave_ring_publish(&self->r);
	ASSERT_EQ(0, weave_stream_destroy(self->fd, self->stream));
	ASSERT_EQ(-ENOENT, weave_ring_error(&self->r, NULL));
	ASSERT_EQ(0u, ring_enter(_metadata, self->fd));
	/* Resuming stops it again: it feeds no later stream. */
	ASSERT_EQ(0, weave_ring_resume(&self->r, NULL));
	ASSERT_EQ(-ENOENT, weave_ring_error(&self->r, NULL));
	ASSERT_EQ(0u, weave_ring_head(&self->r));
}

TEST_F(ring, process_exit_with_half_written_ring)
{
	pid_t pid = fork();
	int status;

	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = weave_device_open(0);
		uint32_t s;
		struct weave_ring r;

		if (fd < 0 || weave_stream_create(fd, 1, &s) ||
		    weave_ring_create(fd, s, 64, &r))
			_exit(1);
		weave_ring_noop(&r);
		weave_ring_publish(&r);
		weave_ring_noop(&r);
		ring_at(&r, 2)->units = 50;
		_exit(0);	/* the file and the mappings go with it */
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	/* The parent's ring, inherited, still works. */
	ASSERT_EQ(0, weave_ring_noop(&self->r));
	weave_ring_publish(&self->r);
	ASSERT_EQ(1u, ring_enter(_metadata, self->fd));
}

TEST_HARNESS_MAIN
