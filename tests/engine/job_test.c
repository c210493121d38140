// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the executor's jobs on the host's Vulkan device: SAXPY, prefix
 * sum and checksum over several sizes against a CPU reference, bit for bit,
 * through host-pointer import and through the staging copy; dependent tasks
 * and the barriers between them; and every refused task.
 */
#include "wvk_test.h"

/* A small deterministic generator, so that a failure replays. */
static uint32_t rnd_state;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) ^ (rnd_state << 20);
}

static float rnd_float(void)
{
	return (float)(int32_t)(rnd() % 2000001u - 1000000) / 1024.0f;
}

FIXTURE(job) {
	struct wvk_device *dev;
	struct wvk_pipeline *saxpy, *scan, *scan_add, *checksum;
};

FIXTURE_VARIANT(job) {
	bool staging;
};

FIXTURE_VARIANT_ADD(job, host_ptr) {
	.staging = false,
};

FIXTURE_VARIANT_ADD(job, staging) {
	.staging = true,
};

FIXTURE_SETUP(job)
{
	self->dev = wvk_test_device(variant->staging);
	ASSERT_NE(NULL, self->dev);
	ASSERT_EQ((int)(variant->staging ? WVK_MEM_STAGING : WVK_MEM_HOST_PTR),
		  (int)wvk_device_info(self->dev)->mem_path);
	self->saxpy = wvk_test_pipeline(self->dev, "saxpy", 2);
	self->scan = wvk_test_pipeline(self->dev, "scan", 2);
	self->scan_add = wvk_test_pipeline(self->dev, "scan_add", 2);
	self->checksum = wvk_test_pipeline(self->dev, "checksum", 2);
	ASSERT_NE(NULL, self->saxpy);
	ASSERT_NE(NULL, self->scan);
	ASSERT_NE(NULL, self->scan_add);
	ASSERT_NE(NULL, self->checksum);
	rnd_state = 1;
}

FIXTURE_TEARDOWN(job)
{
	EXPECT_EQ(0, wvk_device_destroy(self->dev));
}

struct saxpy_push {
	float a;
	uint32_t n;
};

static struct wvk_task saxpy_task(struct wvk_pipeline *p,
				  const struct saxpy_push *push,
				  const struct wvk_binding *b)
{
	return (struct wvk_task) {
		.pipeline = p,
		.groups = { (push->n + 63) / 64, 1, 1 },
		.push = push,
		.push_size = sizeof(*push),
		.bindings = b,
		.nbindings = 2,
	};
}

/*
 * The reference: rounded after the product and after the sum (C11 mode
 * contracts no a * x + y into a fused multiply-add).
 */
static float saxpy_ref(float a, float x, float y)
{
	float ax = a * x;

	return ax + y;
}

TEST_F(job, saxpy_bit_exact_over_sizes)
{
	static const uint32_t sizes[] = { 1, 63, 64, 1000, 65543, 1u << 20 };
	size_t i, k;

	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		uint32_t n = sizes[k];
		struct saxpy_push push = { .a = 2.5f - (float)k, .n = n };
		size_t xs, ys;
		float *x = wvk_test_region(n * 4, &xs);
		float *y = wvk_test_region(n * 4, &ys);
		float *want = malloc(n * sizeof(float));
		struct wvk_buffer *bx, *by;
		struct wvk_binding b[2];
		struct wvk_task t;

		ASSERT_NE(NULL, x);
		ASSERT_NE(NULL, y);
		ASSERT_NE(NULL, want);
		for (i = 0; i < n; i++) {
			x[i] = rnd_float();
			y[i] = rnd_float();
			want[i] = saxpy_ref(push.a, x[i], y[i]);
		}
		ASSERT_EQ(0, wvk_buffer_register(self->dev, x, xs, &bx));
		ASSERT_EQ(0, wvk_buffer_register(self->dev, y, ys, &by));
		b[0] = wvk_bind(bx, 0, n * 4ull, WVK_READ);
		b[1] = wvk_bind(by, 0, n * 4ull, WVK_RW);
		t = saxpy_task(self->saxpy, &push, b);
		ASSERT_EQ(0, wvk_test_run(self->dev, &t, 1, NULL));
		EXPECT_EQ(0, memcmp(want, y, n * sizeof(float))) {
			for (i = 0; i < n && !memcmp(&want[i], &y[i], 4); i++)
				;
			TH_LOG("n %u: y[%zu] = %a, want %a", n, i, y[i], want[i]);
		}
		EXPECT_EQ(0, wvk_buffer_free(bx));
		EXPECT_EQ(0, wvk_buffer_free(by));
		munmap(x, xs);
		munmap(y, ys);
		free(want);
	}
}

/* Records the two or three tasks of an inclusive scan of @n words. */
static uint32_t scan_tasks(FIXTURE_DATA(job) *self, uint32_t n,
			   struct wvk_buffer *data, struct wvk_buffer *sums,
			   struct wvk_task *t, struct wvk_binding (*b)[2],
			   uint32_t (*push)[2])
{
	uint32_t blocks = (n + 255) / 256;

	/* Pass 1: each block scanned, its total into sums. */
	push[0][0] = n;
	push[0][1] = blocks > 1;
	b[0][0] = wvk_bind(data, 0, n * 4ull, WVK_RW);
	b[0][1] = wvk_bind(sums, 0, blocks * 4ull, WVK_WRITE);
	t[0] = (struct wvk_task) { self->scan, { blocks, 1, 1 }, push[0], 8,
				   b[0], 2 };
	if (blocks == 1)
		return 1;
	/* Pass 2: the totals scanned, by one workgroup (sums' tail unused). */
	push[1][0] = blocks;
	push[1][1] = 0;
	b[1][0] = wvk_bind(sums, 0, blocks * 4ull, WVK_RW);
	b[1][1] = wvk_bind(sums, WVK_PAGE, 4, WVK_WRITE);
	t[1] = (struct wvk_task) { self->scan, { 1, 1, 1 }, push[1], 8,
				   b[1], 2 };
	/* Pass 3: each block gets the total of the blocks before it. */
	push[2][0] = n;
	b[2][0] = wvk_bind(data, 0, n * 4ull, WVK_RW);
	b[2][1] = wvk_bind(sums, 0, blocks * 4ull, WVK_READ);
	t[2] = (struct wvk_task) { self->scan_add, { blocks, 1, 1 }, push[2],
				   4, b[2], 2 };
	return 3;
}

TEST_F(job, prefix_sum_bit_exact_over_sizes)
{
	static const uint32_t sizes[] = { 1, 255, 256, 257, 1000, 4097,
					  65536 };
	size_t i, k;

	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		uint32_t n = sizes[k], acc = 0, ntasks, barriers = 99;
		size_t ds, ss;
		uint32_t *d = wvk_test_region(n * 4, &ds);
		uint32_t *s = wvk_test_region(2 * WVK_PAGE, &ss);
		uint32_t *want = malloc(n * 4);
		struct wvk_buffer *bd, *bs;
		struct wvk_binding b[3][2];
		uint32_t push[3][2];
		struct wvk_task t[3];

		ASSERT_NE(NULL, d);
		ASSERT_NE(NULL, s);
		ASSERT_NE(NULL, want);
		for (i = 0; i < n; i++) {
			/* Large values: the sums wrap, as u32 sums do. */
			d[i] = rnd();
			acc += d[i];
			want[i] = acc;
		}
		ASSERT_EQ(0, wvk_buffer_register(self->dev, d, ds, &bd));
		ASSERT_EQ(0, wvk_buffer_register(self->dev, s, ss, &bs));
		ntasks = scan_tasks(self, n, bd, bs, t, b, push);
		ASSERT_EQ(0, wvk_test_run(self->dev, t, ntasks, &barriers));
		/* Pass 2 needs pass 1's sums, pass 3 pass 2's. */
		EXPECT_EQ(ntasks - 1, barriers);
		EXPECT_EQ(0, memcmp(want, d, n * 4)) {
			for (i = 0; i < n && want[i] == d[i]; i++)
				;
			TH_LOG("n %u: [%zu] = %u, want %u", n, i, d[i], want[i]);
		}
		EXPECT_EQ(0, wvk_buffer_free(bd));
		EXPECT_EQ(0, wvk_buffer_free(bs));
		munmap(d, ds);
		munmap(s, ss);
		free(want);
	}
}

TEST_F(job, checksum_bit_exact_over_sizes)
{
	static const uint32_t sizes[] = { 1, 127, 128, 1000, 100003 };
	size_t i, k;

	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		uint32_t n = sizes[k], sum = 0, xored = 0;
		size_t xs, os;
		uint32_t *x = wvk_test_region(n * 4, &xs);
		uint32_t *o = wvk_test_region(8, &os);
		struct wvk_buffer *bx, *bo;
		struct wvk_binding b[2];
		struct wvk_task t = {
			.pipeline = self->checksum,
			.groups = { (n + 127) / 128, 1, 1 },
			.push = &n,
			.push_size = 4,
			.bindings = b,
			.nbindings = 2,
		};

		ASSERT_NE(NULL, x);
		ASSERT_NE(NULL, o);
		for (i = 0; i < n; i++) {
			uint32_t r = i & 31;

			x[i] = rnd();
			sum += x[i] * (2 * (uint32_t)i + 1);
			xored ^= r ? (x[i] << r) | (x[i] >> (32 - r)) : x[i];
		}
		ASSERT_EQ(0, wvk_buffer_register(self->dev, x, xs, &bx));
		ASSERT_EQ(0, wvk_buffer_register(self->dev, o, os, &bo));
		b[0] = wvk_bind(bx, 0, n * 4ull, WVK_READ);
		b[1] = wvk_bind(bo, 0, 8, WVK_RW);
		ASSERT_EQ(0, wvk_test_run(self->dev, &t, 1, NULL));
		EXPECT_EQ(sum, o[0]);
		EXPECT_EQ(xored, o[1]);
		EXPECT_EQ(0, wvk_buffer_free(bx));
		EXPECT_EQ(0, wvk_buffer_free(bo));
		munmap(x, xs);
		munmap(o, os);
	}
}

/*
 * Two SAXPYs over four regions of one buffer A, with x in region 0:
 * @second_x and @second_y are the regions the second task reads and
 * writes, the first one writing region 1.  Checks the result against the
 * tasks run one after the other, and returns the barriers recorded.
 */
static uint32_t two_saxpys(struct __test_metadata *_metadata,
			   FIXTURE_DATA(job) *self, uint32_t second_x,
			   uint32_t second_y)
{
	const uint32_t n = 1024, bytes = n * 4;
	struct saxpy_push p1 = { 3.0f, n }, p2 = { -0.5f, n };
	struct wvk_binding b1[2], b2[2];
	struct wvk_task t[2];
	struct wvk_buffer *ba;
	uint32_t i, barriers = 99;
	size_t as;
	float *a = wvk_test_region(4 * bytes, &as);
	float *want = malloc(4 * bytes);

	EXPECT_NE(NULL, a);
	EXPECT_NE(NULL, want);
	if (!a || !want)
		return 99;
	for (i = 0; i < 4 * n; i++)
		a[i] = rnd_float();
	memcpy(want, a, 4 * bytes);
	for (i = 0; i < n; i++)
		want[n + i] = saxpy_ref(p1.a, want[i], want[n + i]);
	for (i = 0; i < n; i++)
		want[second_y * n + i] = saxpy_ref(p2.a, want[second_x * n + i],
						   want[second_y * n + i]);
	EXPECT_EQ(0, wvk_buffer_register(self->dev, a, as, &ba));
	b1[0] = wvk_bind(ba, 0, bytes, WVK_READ);
	b1[1] = wvk_bind(ba, bytes, bytes, WVK_RW);
	b2[0] = wvk_bind(ba, second_x * bytes, bytes, WVK_READ);
	b2[1] = wvk_bind(ba, second_y * bytes, bytes, WVK_RW);
	t[0] = saxpy_task(self->saxpy, &p1, b1);
	t[1] = saxpy_task(self->saxpy, &p2, b2);
	EXPECT_EQ(0, wvk_test_run(self->dev, t, 2, &barriers));
	EXPECT_EQ(0, memcmp(want, a, 4 * bytes));
	EXPECT_EQ(0, wvk_buffer_free(ba));
	munmap(a, as);
	free(want);
	return barriers;
}

/* Task 2 reads what task 1 wrote: one barrier, and the sequential result. */
TEST_F(job, read_after_write_gets_a_barrier)
{
	EXPECT_EQ(1u, two_saxpys(_metadata, self, 1, 2));
}

/* Task 2 writes what task 1 read (its x). */
TEST_F(job, write_after_read_gets_a_barrier)
{
	EXPECT_EQ(1u, two_saxpys(_metadata, self, 3, 0));
}

/* Both write region 1. */
TEST_F(job, write_after_write_gets_a_barrier)
{
	EXPECT_EQ(1u, two_saxpys(_metadata, self, 2, 1));
}

/* Both read region 0, each writes its own region: no barrier. */
TEST_F(job, independent_tasks_get_no_barrier)
{
	EXPECT_EQ(0u, two_saxpys(_metadata, self, 0, 2));
	EXPECT_EQ(0u, two_saxpys(_metadata, self, 3, 2));
}

/* A job of many tasks, each depending only on the one two before it. */
TEST_F(job, barrier_only_where_a_task_depends_on_one_since_the_last)
{
	const uint32_t n = 256, bytes = n * 4;
	struct saxpy_push p = { 1.0f, n };
	struct wvk_binding b[4][2];
	struct wvk_task t[4];
	struct wvk_buffer *ba;
	uint32_t i, barriers = 99;
	size_t as;
	float *a = wvk_test_region(3 * bytes, &as);

	ASSERT_NE(NULL, a);
	for (i = 0; i < 3 * n; i++)
		a[i] = (float)(i % n);
	ASSERT_EQ(0, wvk_buffer_register(self->dev, a, as, &ba));
	/* x = region 0; tasks write regions 1, 2, 1, 2. */
	for (i = 0; i < 4; i++) {
		b[i][0] = wvk_bind(ba, 0, bytes, WVK_READ);
		b[i][1] = wvk_bind(ba, (1 + i % 2) * bytes, bytes, WVK_RW);
		t[i] = saxpy_task(self->saxpy, &p, b[i]);
	}
	ASSERT_EQ(0, wvk_test_run(self->dev, t, 4, &barriers));
	/* Before task 2 (it rewrites task 0's region); task 3 follows it. */
	EXPECT_EQ(1u, barriers);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(3.0f * (float)i, a[n + i]);
		EXPECT_EQ(3.0f * (float)i, a[2 * n + i]);
	}
	EXPECT_EQ(0, wvk_buffer_free(ba));
}

/* --- refused tasks ----------------------------------------------------------- */

/* One SAXPY over one page, changed by each case, then submitted. */
struct refusal {
	struct wvk_binding b[2];
	struct saxpy_push push;
	unsigned char big_push[WVK_PUSH_MAX + 4];
	struct wvk_task t;
	struct wvk_buffer *buf;
	float *mem;
	size_t size;
};

static void refusal_init(FIXTURE_DATA(job) *self, struct refusal *r)
{
	memset(r, 0, sizeof(*r));
	r->mem = wvk_test_region(2 * WVK_PAGE, &r->size);
	if (!r->mem || wvk_buffer_register(self->dev, r->mem, r->size, &r->buf))
		return;
	r->push = (struct saxpy_push) { 1.0f, 1024 };
	r->b[0] = wvk_bind(r->buf, 0, WVK_PAGE, WVK_READ);
	r->b[1] = wvk_bind(r->buf, WVK_PAGE, WVK_PAGE, WVK_RW);
	r->t = saxpy_task(self->saxpy, &r->push, r->b);
}

/* Submits @r's task: the error, and the job waited for if it was taken. */
static int refusal_submit(FIXTURE_DATA(job) *self, struct refusal *r)
{
	struct wvk_job *job = NULL;
	int ret = wvk_job_submit(self->dev, &r->t, 1, &job);

	if (!ret) {
		wvk_job_wait(job, wvk_now_ns() + 60 * WVK_SEC);
		wvk_job_free(job);
	}
	return ret;
}

TEST_F(job, workgroup_counts_beyond_the_limit_are_refused)
{
	const struct wvk_device_info *info = wvk_device_info(self->dev);
	static const uint32_t ones[3] = { 1, 1, 1 };
	struct refusal r;
	uint32_t k;

	refusal_init(self, &r);
	ASSERT_NE(NULL, r.buf);
	for (k = 0; k < 3; k++) {
		memcpy(r.t.groups, ones, sizeof(ones));
		r.t.groups[k] = info->max_group_count[k] + 1;
		EXPECT_EQ(-EINVAL, refusal_submit(self, &r));
		EXPECT_NE(NULL, strstr(wvk_error(), "workgroups"));
		r.t.groups[k] = 0;
		EXPECT_EQ(-EINVAL, refusal_submit(self, &r));
	}
	memcpy(r.t.groups, ones, sizeof(ones));
	EXPECT_EQ(0, refusal_submit(self, &r));
	EXPECT_EQ(0, wvk_buffer_free(r.buf));
}

TEST_F(job, push_constants_over_the_bound_are_refused)
{
	const struct wvk_device_info *info = wvk_device_info(self->dev);
	struct refusal r;

	refusal_init(self, &r);
	ASSERT_NE(NULL, r.buf);
	ASSERT_LE(info->push_bytes, WVK_PUSH_MAX);
	memcpy(r.big_push, &r.push, sizeof(r.push));
	r.t.push = r.big_push;
	r.t.push_size = info->push_bytes + 1;
	EXPECT_EQ(-EINVAL, refusal_submit(self, &r));
	r.t.push_size = info->push_bytes;
	EXPECT_EQ(0, refusal_submit(self, &r));
	/* Bytes but no pointer. */
	r.t.push = NULL;
	r.t.push_size = 8;
	EXPECT_EQ(-EINVAL, refusal_submit(self, &r));
	EXPECT_EQ(0, wvk_buffer_free(r.buf));
}

TEST_F(job, bindings_past_the_buffer_are_refused)
{
	const struct wvk_device_info *info = wvk_device_info(self->dev);
	struct refusal r;

	refusal_init(self, &r);
	ASSERT_NE(NULL, r.buf);
	r.b[1].size = WVK_PAGE + 4;
	EXPECT_EQ(-EINVAL, refusal_submit(self, &r));
	EXPECT_NE(NULL, strstr(wvk_error(), "within the buffer"));
	r.b[1] = wvk_bind(r.buf, 2 * WVK_PAGE, 4, WVK_RW);
	EXPECT_EQ(-EINVAL, refusal_submit(self, &r));
	r.b[1] = wvk_bind(r.buf, 16, UINT64_MAX, WVK_RW);
	EXPECT_EQ(-EINVAL, refusal_submit(self, &r));
	r.b[1] = wvk_bind(r.buf, WVK_PAGE, 0, WVK_RW);
	EXPECT_EQ(-EINVAL, refusal_submit(self, &r));
	/* An offset the device cannot bind at. */
	r.b[1] = wvk_bind(r.buf, WVK_PAGE + 4, WVK_PAGE - 4, WVK_RW);
	EXPECT_EQ(info->storage_offset_align > 4 ? -EINVAL : 0,
		  refusal_submit(self, &r));
	r.b[1] = wvk_bind(r.buf, WVK_PAGE, WVK_PAGE, WVK_RW);
	EXPECT_EQ(0, refusal_submit(self, &r));
	EXPECT_EQ(0, wvk_buffer_free(r.buf));
}

TEST_F(job, malformed_tasks_are_refused)
{
	struct wvk_device *other = wvk_test_device(false);
	struct wvk_buffer *foreign = NULL;
	struct wvk_job *job = NULL;
	struct refusal r;

	refusal_init(self, &r);
	ASSERT_NE(NULL, r.buf);
	ASSERT_NE(NULL, other);
	r.t.nbindings = 1;
	EXPECT_EQ(-EINVAL, refusal_submit(self, &r));
	r.t.nbindings = 2;
	r.b[0].access = 0;
	EXPECT_EQ(-EINVAL, refusal_submit(self, &r));
	r.b[0].access = 4;
	EXPECT_EQ(-EINVAL, refusal_submit(self, &r));
	r.b[0].access = WVK_READ;
	r.b[0].buf = NULL;
	EXPECT_EQ(-EINVAL, refusal_submit(self, &r));
	/* A buffer of another device. */
	ASSERT_EQ(0, wvk_buffer_register(other, r.mem, r.size, &foreign));
	r.b[0].buf = foreign;
	EXPECT_EQ(-EINVAL, refusal_submit(self, &r));
	r.b[0].buf = r.buf;
	r.t.pipeline = NULL;
	EXPECT_EQ(-EINVAL, refusal_submit(self, &r));
	r.t.pipeline = self->saxpy;
	EXPECT_EQ(-EINVAL, wvk_job_submit(self->dev, &r.t, 0, &job));
	EXPECT_EQ(-EINVAL, wvk_job_submit(self->dev, &r.t, WVK_TASKS_MAX + 1,
					  &job));
	EXPECT_EQ(NULL, job);
	EXPECT_EQ(0, refusal_submit(self, &r));
	EXPECT_EQ(0, wvk_buffer_free(foreign));
	EXPECT_EQ(0, wvk_device_destroy(other));
	EXPECT_EQ(0, wvk_buffer_free(r.buf));
}

/* Nothing a job uses goes away before the job is seen complete. */
TEST_F(job, busy_objects_are_not_freed)
{
	struct wvk_job *job = NULL;
	struct refusal r;

	refusal_init(self, &r);
	ASSERT_NE(NULL, r.buf);
	ASSERT_EQ(0, wvk_job_submit(self->dev, &r.t, 1, &job));
	EXPECT_EQ(-EINPROGRESS, wvk_job_status(job, 0));
	EXPECT_EQ(-EBUSY, wvk_job_free(job));
	EXPECT_EQ(-EBUSY, wvk_buffer_free(r.buf));
	EXPECT_EQ(-EBUSY, wvk_device_destroy(self->dev));
	ASSERT_EQ(0, wvk_job_wait(job, wvk_now_ns() + 60 * WVK_SEC));
	EXPECT_EQ(0, wvk_job_status(job, 0));
	EXPECT_EQ(-EINVAL, wvk_job_status(job, 1));
	/* A second wait returns the outcome again. */
	EXPECT_EQ(0, wvk_job_wait(job, 0));
	EXPECT_EQ(-EBUSY, wvk_device_destroy(self->dev));
	EXPECT_EQ(0, wvk_job_free(job));
	EXPECT_EQ(0, wvk_buffer_free(r.buf));
}

TEST_HARNESS_MAIN
