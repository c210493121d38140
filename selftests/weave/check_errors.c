// SPDX-License-Identifier: GPL-2.0
/*
 * weave: DRM_IOCTL_WEAVE_CHECK (uAPI 1.3) refuses every malformed argument
 * with the errno the uAPI documents.  Each test breaks one thing of a
 * valid call, over a good buffer and one that carries three failures.
 * What failures do, and what CHECK reports of them, is failures.c's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "weave_test.h"

/* A valid CHECK of one range, in self-contained memory, to break. */
struct chk {
	struct drm_weave_check a;
	struct drm_weave_check_range r[2];
	struct drm_weave_failure f[4];
	struct drm_weave_failure_task t[8];
};

static void chk_init(struct chk *c, uint32_t bo, uint64_t size)
{
	memset(c, 0, sizeof(*c));
	c->r[0] = weave_check_range(bo, 0, size);
	c->r[1] = weave_check_range(bo, 0, size);
	c->a.ranges.ptr = (uintptr_t)c->r;
	c->a.ranges.stride = sizeof(c->r[0]);
	c->a.ranges.count = 1;
	c->a.failures.ptr = (uintptr_t)c->f;
	c->a.failures.stride = sizeof(c->f[0]);
	c->a.failures.count = 4;
	c->a.skips.ptr = (uintptr_t)c->t;
	c->a.skips.stride = sizeof(c->t[0]);
	c->a.skips.count = 8;
}

static int chk(int fd, struct chk *c)
{
	return weave_test_ioctl(fd, DRM_IOCTL_WEAVE_CHECK, &c->a);
}

FIXTURE(bad) {
	WEAVE_TEST_FILE_FIELDS;
	uint32_t stream;
	struct weave_test_report *r;
	uint32_t bo;		/* good bytes */
	uint32_t tainted;	/* three failures, the last with two skips */
	struct chk c;
};

FIXTURE_SETUP(bad)
{
	struct weave_test_batch b;

	WEAVE_TEST_FILE_SETUP();
	ASSERT_LE(3u, self->info.uapi_minor);
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	self->r = malloc(sizeof(*self->r));
	ASSERT_NE(NULL, self->r);
	self->bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	self->tainted = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, self->tainted, 0, 64, EIO);
	weave_test_fail_task(&b, self->tainted, 64, 64, EINVAL);
	weave_test_fail_task(&b, self->tainted, 128, 64, ENOMEM);
	weave_test_copy_task(&b, self->tainted, 128, self->tainted, 256, 64);
	weave_test_copy_task(&b, self->tainted, 256, self->tainted, 512, 64);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	weave_test_finish(_metadata, self->fd, self->stream);
	ASSERT_EQ(3u, weave_test_report(_metadata, self->fd, self->tainted, 0,
					1024, self->r));
	ASSERT_EQ(2u, self->r->failure[2].nskips);
	ASSERT_EQ(2u, self->r->nskips);
	chk_init(&self->c, self->bo, self->page);
}

FIXTURE_TEARDOWN(bad)
{
	free(self->r);
	close(self->fd);
}

/* Issues self->c, which must fail with @err. */
static void expect_refused(struct __test_metadata *_metadata,
			   FIXTURE_DATA(bad) *self, int err)
{
	EXPECT_EQ(err, chk(self->fd, &self->c));
}

/* The fixture's call succeeds as built: the tests below break one thing. */
TEST_F(bad, valid_call_ok)
{
	ASSERT_EQ(0, chk(self->fd, &self->c));
	EXPECT_EQ(0u, self->c.a.nfailures);
	EXPECT_EQ(0u, self->c.a.nskips);
	EXPECT_EQ(0u, self->c.r[0].nfailures);
	chk_init(&self->c, self->tainted, 1024);
	ASSERT_EQ(0, chk(self->fd, &self->c));
	EXPECT_EQ(3u, self->c.a.nfailures);
	EXPECT_EQ(2u, self->c.a.nskips);
	EXPECT_EQ(3u, self->c.r[0].nfailures);
}

TEST_F(bad, flags)
{
	self->c.a.flags = 1;
	expect_refused(_metadata, self, -EINVAL);
	self->c.a.flags = 0x80000000u;
	expect_refused(_metadata, self, -EINVAL);
}

TEST_F(bad, pad)
{
	self->c.a.pad = 1;
	expect_refused(_metadata, self, -EINVAL);
}

TEST_F(bad, range_flags)
{
	self->c.r[0].flags = 1;
	expect_refused(_metadata, self, -EINVAL);
}

TEST_F(bad, count_zero)
{
	self->c.a.ranges.count = 0;
	expect_refused(_metadata, self, -EINVAL);
}

/* max_check_ranges ranges are taken; one more is refused. */
TEST_F(bad, count_over_max)
{
	uint32_t max = self->info.max_check_ranges, i;
	struct drm_weave_check_range *r = calloc(max + 1, sizeof(*r));

	ASSERT_NE(NULL, r);
	for (i = 0; i <= max; i++)
		r[i] = weave_check_range(self->bo, i % self->page, 1);
	self->c.a.ranges.ptr = (uintptr_t)r;
	self->c.a.ranges.count = max;
	EXPECT_EQ(0, chk(self->fd, &self->c));
	self->c.a.ranges.count = max + 1;
	expect_refused(_metadata, self, -EINVAL);
	self->c.a.ranges.count = UINT32_MAX;
	expect_refused(_metadata, self, -EINVAL);
	free(r);
}

TEST_F(bad, ranges_stride_too_small)
{
	self->c.a.ranges.stride = sizeof(self->c.r[0]) - 8;
	expect_refused(_metadata, self, -EINVAL);
	self->c.a.ranges.stride = 0;
	expect_refused(_metadata, self, -EINVAL);
}

TEST_F(bad, ranges_stride_over_max)
{
	uint8_t raw[DRM_WEAVE_MAX_STRIDE + 8] = { 0 };

	memcpy(raw, &self->c.r[0], sizeof(self->c.r[0]));
	self->c.a.ranges.ptr = (uintptr_t)raw;
	self->c.a.ranges.stride = sizeof(raw);
	expect_refused(_metadata, self, -EINVAL);
	self->c.a.ranges.stride = 0x80000000u;
	expect_refused(_metadata, self, -EINVAL);
}

/* Extra bytes of a longer stride must be zero; then the counts land. */
TEST_F(bad, ranges_stride_extra_bytes)
{
	uint64_t raw[2][sizeof(struct drm_weave_check_range) / 8 + 1];
	struct drm_weave_check_range *r;

	memset(raw, 0, sizeof(raw));
	memcpy(raw[0], &self->c.r[0], sizeof(self->c.r[0]));
	r = (struct drm_weave_check_range *)raw[1];
	*r = weave_check_range(self->tainted, 0, 1024);
	self->c.a.ranges.ptr = (uintptr_t)raw;
	self->c.a.ranges.stride = sizeof(raw[0]);
	self->c.a.ranges.count = 2;
	ASSERT_EQ(0, chk(self->fd, &self->c));
	EXPECT_EQ(3u, r->nfailures);
	EXPECT_EQ(0u, r->first);
	EXPECT_EQ(0u, raw[1][sizeof(*r) / 8]);
	raw[1][sizeof(*r) / 8] = 1;
	expect_refused(_metadata, self, -EINVAL);
}

/* On a tainted range, so that there is something to write. */
TEST_F(bad, failures_stride)
{
	chk_init(&self->c, self->tainted, 1024);
	self->c.a.failures.stride = sizeof(self->c.f[0]) - 8;
	expect_refused(_metadata, self, -EINVAL);
	self->c.a.failures.stride = DRM_WEAVE_MAX_STRIDE + 8;
	expect_refused(_metadata, self, -EINVAL);
}

TEST_F(bad, skips_stride)
{
	chk_init(&self->c, self->tainted, 1024);
	self->c.a.skips.stride = sizeof(self->c.t[0]) - 8;
	expect_refused(_metadata, self, -EINVAL);
	self->c.a.skips.stride = DRM_WEAVE_MAX_STRIDE + 8;
	expect_refused(_metadata, self, -EINVAL);
}

TEST_F(bad, range_size_zero)
{
	self->c.r[0].size = 0;
	expect_refused(_metadata, self, -EINVAL);
}

TEST_F(bad, range_past_end)
{
	self->c.r[0].offset = self->page - 4;
	self->c.r[0].size = 8;
	expect_refused(_metadata, self, -EINVAL);
	self->c.r[0].offset = self->page;
	self->c.r[0].size = 1;
	expect_refused(_metadata, self, -EINVAL);
	/* The last byte is in. */
	self->c.r[0].offset = self->page - 1;
	EXPECT_EQ(0, chk(self->fd, &self->c));
}

TEST_F(bad, range_overflows)
{
	self->c.r[0].offset = ~0ull - 3;
	self->c.r[0].size = 8;
	expect_refused(_metadata, self, -EINVAL);
	self->c.r[0].offset = 4;
	self->c.r[0].size = ~0ull;
	expect_refused(_metadata, self, -EINVAL);
}

TEST_F(bad, unknown_handle)
{
	self->c.r[0].handle = WEAVE_TEST_BAD_HANDLE;
	expect_refused(_metadata, self, -ENOENT);
	self->c.r[0].handle = 0;
	expect_refused(_metadata, self, -ENOENT);
	/* The second range's. */
	self->c.r[0].handle = self->bo;
	self->c.r[1].handle = WEAVE_TEST_BAD_HANDLE;
	self->c.a.ranges.count = 2;
	expect_refused(_metadata, self, -ENOENT);
}

/* A closed buffer's handle names nothing any more. */
TEST_F(bad, closed_handle)
{
	weave_test_close_bo(_metadata, self->fd, self->bo);
	expect_refused(_metadata, self, -ENOENT);
}

TEST_F(bad, ranges_unreadable)
{
	self->c.a.ranges.ptr = (uintptr_t)WEAVE_TEST_BAD_PTR;
	expect_refused(_metadata, self, -EFAULT);
}

/* The ranges are written back: read-only memory will not do. */
TEST_F(bad, ranges_read_only)
{
	void *ro = mmap(NULL, self->page, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, ro);
	memcpy(ro, self->c.r, sizeof(self->c.r[0]));
	ASSERT_EQ(0, mprotect(ro, self->page, PROT_READ));
	self->c.a.ranges.ptr = (uintptr_t)ro;
	expect_refused(_metadata, self, -EFAULT);
	munmap(ro, self->page);
}

/* Failures to report, and nowhere to write them. */
TEST_F(bad, failures_unwritable)
{
	void *ro;

	chk_init(&self->c, self->tainted, 1024);
	self->c.a.failures.ptr = (uintptr_t)WEAVE_TEST_BAD_PTR;
	expect_refused(_metadata, self, -EFAULT);
	ro = mmap(NULL, self->page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		  -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	self->c.a.failures.ptr = (uintptr_t)ro;
	expect_refused(_metadata, self, -EFAULT);
	munmap(ro, self->page);
}

TEST_F(bad, skips_unwritable)
{
	chk_init(&self->c, self->tainted, 1024);
	self->c.a.skips.ptr = (uintptr_t)WEAVE_TEST_BAD_PTR;
	expect_refused(_metadata, self, -EFAULT);
}

TEST_F(bad, argument_unreadable)
{
	EXPECT_EQ(-EFAULT, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_CHECK,
					    WEAVE_TEST_BAD_PTR));
}

/*
 * Room for two failures of three: -ENOSPC, the counts all set, the two
 * that fit written as a full report has them, nothing past them.
 */
TEST_F(bad, failures_too_short)
{
	chk_init(&self->c, self->tainted, 1024);
	memset(self->c.f, 0xa5, sizeof(self->c.f));
	self->c.a.failures.count = 2;
	EXPECT_EQ(-ENOSPC, chk(self->fd, &self->c));
	EXPECT_EQ(3u, self->c.a.nfailures);
	EXPECT_EQ(2u, self->c.a.nskips);
	EXPECT_EQ(3u, self->c.r[0].nfailures);
	EXPECT_EQ(0u, self->c.r[0].first);
	EXPECT_EQ(0, memcmp(self->c.f, self->r->failure,
			    2 * sizeof(self->c.f[0])));
	EXPECT_EQ(sizeof(self->c.f[2]),
		  weave_test_check_bytes(&self->c.f[2], sizeof(self->c.f[2]),
					 0xa5));

	/* No room at all: the counts. */
	self->c.a.failures.ptr = 0;
	self->c.a.failures.count = 0;
	self->c.a.skips.ptr = 0;
	self->c.a.skips.count = 0;
	EXPECT_EQ(-ENOSPC, chk(self->fd, &self->c));
	EXPECT_EQ(3u, self->c.a.nfailures);
	EXPECT_EQ(2u, self->c.a.nskips);
	EXPECT_EQ(3u, self->c.r[0].nfailures);
}

/* Room for one skip of two: -ENOSPC, the first written, the counts set. */
TEST_F(bad, skips_too_short)
{
	chk_init(&self->c, self->tainted, 1024);
	memset(self->c.t, 0xa5, sizeof(self->c.t));
	self->c.a.skips.count = 1;
	EXPECT_EQ(-ENOSPC, chk(self->fd, &self->c));
	EXPECT_EQ(3u, self->c.a.nfailures);
	EXPECT_EQ(2u, self->c.a.nskips);
	EXPECT_EQ(0, memcmp(self->c.f, self->r->failure,
			    3 * sizeof(self->c.f[0])));
	EXPECT_EQ(0, memcmp(&self->c.t[0],
			    &self->r->skip[self->r->failure[2].first_skip],
			    sizeof(self->c.t[0])));
	EXPECT_EQ(sizeof(self->c.t[1]),
		  weave_test_check_bytes(&self->c.t[1], sizeof(self->c.t[1]),
					 0xa5));
}

/* weave_check() says the same: room is in, the counts are out. */
TEST_F(bad, libweave_counts_on_enospc)
{
	struct drm_weave_check_range range;
	struct drm_weave_failure f[1];
	uint32_t nf = 1, nt = 0;

	range = weave_check_range(self->tainted, 0, 1024);
	EXPECT_EQ(-ENOSPC, weave_check(self->fd, &range, 1, f, &nf, NULL,
				       &nt));
	EXPECT_EQ(3u, nf);
	EXPECT_EQ(2u, nt);
	EXPECT_EQ(3u, range.nfailures);
	EXPECT_EQ(self->r->failure[0].id, f[0].id);
	range = weave_check_range(self->bo, 0, self->page);
	EXPECT_EQ(0, weave_check(self->fd, &range, 1, NULL, NULL, NULL, NULL));
	range.size = 0;
	EXPECT_EQ(-EINVAL, weave_check(self->fd, &range, 1, NULL, NULL, NULL,
				       NULL));
}

TEST_HARNESS_MAIN
