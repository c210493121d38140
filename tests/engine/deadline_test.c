// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the executor's deadlines: a job that never ends makes its wait
 * return -ETIMEDOUT at the deadline, keeps everything it uses, and goes on
 * running (lavapipe cannot stop a dispatch); the device is then given up
 * and a new one serves.  Each test runs in the harness's own process, which
 * ends with _exit() and takes the endless job with it.
 */
#include "wvk_test.h"

FIXTURE(spin) {
	struct wvk_device *dev;
	struct wvk_pipeline *spin;
	struct wvk_buffer *buf;
	uint32_t *flag;		/* stop, turns: written by the device */
	size_t size;
	struct wvk_job *job;
};

FIXTURE_VARIANT(spin) {
	int lp_num_threads;
};

FIXTURE_VARIANT_ADD(spin, lp_threads_default) {
	.lp_num_threads = WVK_LP_THREADS_KEEP,
};

FIXTURE_VARIANT_ADD(spin, lp_threads_0) {
	.lp_num_threads = 0,
};

/* The spinning job: the most workgroups, each spinning 65535 turns or more. */
FIXTURE_SETUP(spin)
{
	struct wvk_device_opts o = {
		.index = -1,
		.lp_num_threads = variant->lp_num_threads,
	};
	const struct wvk_device_info *info;
	struct wvk_binding b;
	struct wvk_task t;

	if (variant->lp_num_threads == WVK_LP_THREADS_KEEP)
		unsetenv("LP_NUM_THREADS");
	ASSERT_EQ(0, wvk_device_create(&o, &self->dev));
	info = wvk_device_info(self->dev);
	self->spin = wvk_test_pipeline(self->dev, "spin", 1);
	ASSERT_NE(NULL, self->spin);
	self->flag = wvk_test_region(8, &self->size);
	ASSERT_NE(NULL, self->flag);
	ASSERT_EQ(0, wvk_buffer_register(self->dev, self->flag,
					 self->size, &self->buf));
	b = wvk_bind(self->buf, 0, 8, WVK_RW);
	t = (struct wvk_task) {
		.pipeline = self->spin,
		.groups = { info->max_group_count[0], info->max_group_count[1],
			    info->max_group_count[2] },
		.bindings = &b,
		.nbindings = 1,
	};
	ASSERT_EQ(0, wvk_job_submit(self->dev, &t, 1, &self->job));
}

/* Nothing: the device is abandoned and the process ends with _exit(). */
FIXTURE_TEARDOWN(spin)
{
}

static uint32_t turns(FIXTURE_DATA(spin) *self)
{
	return __atomic_load_n(&self->flag[1], __ATOMIC_RELAXED);
}

/* Waits (boundedly) until the job's turn count moves past @from. */
static bool turns_past(FIXTURE_DATA(spin) *self, uint32_t from)
{
	int i;

	for (i = 0; i < 6000 && turns(self) == from; i++)
		usleep(10000);
	return turns(self) != from;
}

TEST_F_TIMEOUT(spin, deadline_passes_and_the_device_is_given_up, 180)
{
	struct wvk_device *fresh;
	struct wvk_pipeline *saxpy;
	struct wvk_buffer *xb, *yb;
	struct wvk_binding b[2];
	uint64_t deadline;
	uint32_t was, i;
	float *x, *y;
	size_t xs, ys;
	struct {
		float a;
		uint32_t n;
	} push = { 2.0f, 256 };
	struct wvk_task t = { .groups = { 4, 1, 1 }, .push = &push,
			      .push_size = sizeof(push), .bindings = b,
			      .nbindings = 2 };

	/* It runs: the device writes its turns into the caller's page. */
	ASSERT_TRUE(turns_past(self, 0));

	deadline = wvk_now_ns() + WVK_SEC / 10;
	EXPECT_EQ(-ETIMEDOUT, wvk_job_wait(self->job, deadline));
	/* Never before the deadline. */
	EXPECT_LE(deadline, wvk_now_ns());
	EXPECT_NE(NULL, strstr(wvk_error(), "still running"));
	EXPECT_EQ(-ETIMEDOUT, wvk_job_wait(self->job, 0));
	EXPECT_EQ(-EINPROGRESS, wvk_job_status(self->job, 0));

	/* Nothing it uses may go. */
	EXPECT_EQ(-EBUSY, wvk_job_free(self->job));
	EXPECT_EQ(-EBUSY, wvk_buffer_free(self->buf));
	EXPECT_EQ(-EBUSY, wvk_device_destroy(self->dev));
	EXPECT_FALSE(wvk_device_lost(self->dev));

	/* Given up: no new work, and still nothing freed. */
	wvk_device_abandon(self->dev);
	EXPECT_TRUE(wvk_device_lost(self->dev));
	EXPECT_EQ(-ENODEV, wvk_job_wait(self->job, 0));
	EXPECT_EQ(-EBUSY, wvk_job_free(self->job));
	EXPECT_EQ(-EBUSY, wvk_device_destroy(self->dev));
	EXPECT_EQ(-ENODEV, wvk_job_submit(self->dev, &t, 1, &self->job));
	EXPECT_EQ(NULL, wvk_test_pipeline(self->dev, "saxpy", 2));

	/* A new device serves while the old one's job goes on. */
	fresh = wvk_test_device(false);
	ASSERT_NE(NULL, fresh);
	saxpy = wvk_test_pipeline(fresh, "saxpy", 2);
	ASSERT_NE(NULL, saxpy);
	x = wvk_test_region(push.n * 4, &xs);
	y = wvk_test_region(push.n * 4, &ys);
	ASSERT_NE(NULL, x);
	ASSERT_NE(NULL, y);
	for (i = 0; i < push.n; i++) {
		x[i] = (float)i;
		y[i] = 1.0f;
	}
	ASSERT_EQ(0, wvk_buffer_register(fresh, x, xs, &xb));
	ASSERT_EQ(0, wvk_buffer_register(fresh, y, ys, &yb));
	b[0] = wvk_bind(xb, 0, push.n * 4, WVK_READ);
	b[1] = wvk_bind(yb, 0, push.n * 4, WVK_RW);
	t.pipeline = saxpy;
	ASSERT_EQ(0, wvk_test_run(fresh, &t, 1, NULL));
	for (i = 0; i < push.n; i++)
		ASSERT_EQ(2.0f * (float)i + 1.0f, y[i]);
	EXPECT_EQ(0, wvk_buffer_free(xb));
	EXPECT_EQ(0, wvk_buffer_free(yb));
	EXPECT_EQ(0, wvk_device_destroy(fresh));

	/* The abandoned job still writes the old page: it must stay mapped. */
	was = turns(self);
	EXPECT_TRUE(turns_past(self, was));
}

TEST_HARNESS_MAIN
