// SPDX-License-Identifier: GPL-2.0
/*
 * weave: one negative test per validation check of the scheduler ioctls,
 * each with the exact errno the uAPI documents.  Every test starts from a
 * valid argument, breaks one thing, and checks nothing was queued.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <sys/mman.h>

#include "weave_test.h"

FIXTURE(err) {
	WEAVE_TEST_FILE_FIELDS;
	uint32_t stream;
	uint32_t bo;
	uint32_t bo2;
	uint32_t pattern[64];
	struct drm_weave_binding bind[3];
	struct drm_weave_task task[2];
	struct drm_weave_enqueue args;
};

/* A valid enqueue of one fill of bo's first page, in self->args. */
FIXTURE_SETUP(err)
{
	WEAVE_TEST_FILE_SETUP();
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	self->bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	self->bo2 = weave_test_bo(_metadata, self->fd, self->page, 0);
	self->pattern[0] = 0x77;
	self->bind[0] = weave_binding(self->bo, DRM_WEAVE_ACCESS_WRITE, 0,
				      self->page);
	weave_task_launch(&self->task[0], DRM_WEAVE_KERNEL_FILL, self->bind, 1,
			  self->pattern, 4);
	memset(&self->args, 0, sizeof(self->args));
	self->args.stream = self->stream;
	self->args.tasks.ptr = (uintptr_t)self->task;
	self->args.tasks.stride = sizeof(self->task[0]);
	self->args.tasks.count = 1;
}

FIXTURE_TEARDOWN(err)
{
	close(self->fd);
}

typedef FIXTURE_DATA(err) err_t;

/* Issues self->args with @ioctl_fn; on failure, checks nothing was queued. */
static int enqueue_by(struct __test_metadata *_metadata, err_t *self,
		      int (*ioctl_fn)(int, unsigned long, void *))
{
	int ret = ioctl_fn(self->fd, DRM_IOCTL_WEAVE_ENQUEUE, &self->args);

	if (ret)
		EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
						self->stream).enqueued);
	return ret;
}

/* The same with weave_test_ioctl(), which a ring may carry. */
static int enqueue(struct __test_metadata *_metadata, err_t *self)
{
	return enqueue_by(_metadata, self, weave_test_route_ioctl);
}

/* Points self->args' in-syncs at @count elements of @stride bytes at @ptr. */
static void set_in_syncs(err_t *self, const void *ptr, uint32_t stride,
			 uint32_t count)
{
	self->args.in_syncs.ptr = (uintptr_t)ptr;
	self->args.in_syncs.stride = stride;
	self->args.in_syncs.count = count;
}

/* A syncobj of the fixture's file that has a signalled fence. */
static uint32_t signalled_syncobj(struct __test_metadata *_metadata,
				  err_t *self)
{
	uint32_t obj = weave_test_syncobj(_metadata, self->fd);

	ASSERT_EQ(0, drmSyncobjSignal(self->fd, &obj, 1));
	return obj;
}

/* The baseline: the unbroken argument is accepted. */
TEST_F(err, valid_enqueue)
{
	ASSERT_EQ(0, enqueue(_metadata, self));
	EXPECT_EQ(1u, self->args.seqno);
}

/* --- STREAM_CREATE / DESTROY / QUERY ---------------------------------- */

TEST_F(err, stream_create_flags)
{
	struct drm_weave_stream_create c = { .flags = 1 };

	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd,
					    DRM_IOCTL_WEAVE_STREAM_CREATE, &c));
}

TEST_F(err, stream_create_pad)
{
	struct drm_weave_stream_create c = { .pad = 1 };

	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd,
					    DRM_IOCTL_WEAVE_STREAM_CREATE, &c));
}

TEST_F(err, stream_destroy_pad)
{
	struct drm_weave_stream_destroy d = { .handle = self->stream, .pad = 1 };

	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd,
					    DRM_IOCTL_WEAVE_STREAM_DESTROY, &d));
}

TEST_F(err, stream_destroy_bad_handle)
{
	EXPECT_EQ(-ENOENT, weave_stream_destroy(self->fd, WEAVE_TEST_BAD_HANDLE));
	EXPECT_EQ(-ENOENT, weave_stream_destroy(self->fd, 0));
}

TEST_F(err, stream_query_pad)
{
	struct drm_weave_stream_query q = { .handle = self->stream, .pad = 1 };

	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd,
					    DRM_IOCTL_WEAVE_STREAM_QUERY, &q));
}

TEST_F(err, stream_query_pad2)
{
	struct drm_weave_stream_query q = { .handle = self->stream, .pad2 = 1 };

	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd,
					    DRM_IOCTL_WEAVE_STREAM_QUERY, &q));
}

/*
 * Handles are allocated cyclically: a destroyed stream's handle is not
 * given to the next stream, so a stale handle fails with -ENOENT instead
 * of reaching a stream it never named.
 */
TEST_F(err, stream_handle_not_reused)
{
	struct drm_weave_stream_query q;
	uint32_t old, fresh;

	old = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_EQ(0, weave_stream_destroy(self->fd, old));
	fresh = weave_test_stream(_metadata, self->fd,
				  DRM_WEAVE_PRIORITY_NORMAL);
	EXPECT_NE(old, fresh);
	memset(&q, 0, sizeof(q));
	EXPECT_EQ(-ENOENT, weave_stream_query(self->fd, old, &q));
	self->args.stream = old;
	EXPECT_EQ(-ENOENT, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_ENQUEUE,
					    &self->args));
	EXPECT_EQ(-ENOENT, weave_flush(self->fd, old, NULL));
	EXPECT_EQ(-ENOENT, weave_wait(self->fd, old, 0));
	EXPECT_EQ(-ENOENT, weave_stream_destroy(self->fd, old));
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd, fresh).enqueued);
}

TEST_F(err, stream_query_bad_handle)
{
	struct drm_weave_stream_query q;

	EXPECT_EQ(-ENOENT, weave_stream_query(self->fd, WEAVE_TEST_BAD_HANDLE,
					      &q));
}

/*
 * Streams are per file: another file's handle is unknown here.  Handles
 * start at 1 in every file, so the handle used is fd2's second one, which
 * self->fd (with one stream) never handed out.
 */
TEST_F(err, stream_of_other_file)
{
	int fd2 = weave_test_open(_metadata);
	struct drm_weave_stream_query q;
	uint32_t first, second;

	first = weave_test_stream(_metadata, fd2, DRM_WEAVE_PRIORITY_NORMAL);
	second = weave_test_stream(_metadata, fd2, DRM_WEAVE_PRIORITY_NORMAL);
	ASSERT_NE(first, second);
	ASSERT_NE(self->stream, second);
	EXPECT_EQ(0, weave_stream_query(fd2, second, &q));
	EXPECT_EQ(-ENOENT, weave_stream_query(self->fd, second, &q));
	EXPECT_EQ(-ENOENT, weave_stream_destroy(self->fd, second));
	EXPECT_EQ(-ENOENT, weave_flush(self->fd, second, NULL));
	self->args.stream = second;
	EXPECT_EQ(-ENOENT, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_ENQUEUE,
					    &self->args));
	EXPECT_EQ(0u, weave_test_squery(_metadata, fd2, second).enqueued);
	close(fd2);
}

/* --- ENQUEUE: the argument itself -------------------------------------- */

/* Bit 0 is DRM_WEAVE_ENQUEUE_FLUSH (uAPI 1.8); see sched_fenced. */
TEST_F(err, enqueue_flags)
{
	self->args.flags = 2;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
	self->args.flags = DRM_WEAVE_ENQUEUE_FLUSH | 0x80000000u;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, enqueue_zero_tasks)
{
	self->args.tasks.count = 0;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, enqueue_bad_stream)
{
	self->args.stream = WEAVE_TEST_BAD_HANDLE;
	EXPECT_EQ(-ENOENT, enqueue(_metadata, self));
}

/* Below the task of uAPI 1.0 to 1.2, which ended at data. */
TEST_F(err, enqueue_tasks_stride_too_small)
{
	self->args.tasks.stride = offsetof(struct drm_weave_task, label) - 8;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
	self->args.tasks.stride = 0;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

/* A program of uAPI 1.2 passes 56-byte tasks, without label and pad. */
TEST_F(err, enqueue_tasks_stride_1_2_ok)
{
	const uint32_t old = offsetof(struct drm_weave_task, label);
	unsigned char raw[2 * sizeof(struct drm_weave_task)];

	ASSERT_EQ(56u, old);
	memset(raw, 0xff, sizeof(raw));
	memcpy(raw, &self->task[0], old);
	memcpy(raw + old, &self->task[0], old);
	self->args.tasks.ptr = (uintptr_t)raw;
	self->args.tasks.stride = old;
	self->args.tasks.count = 2;
	EXPECT_EQ(0, enqueue(_metadata, self));
	EXPECT_EQ(2u, self->args.seqno);
	weave_test_finish(_metadata, self->fd, self->stream);
	weave_test_expect_words(_metadata, self->fd, self->bo, self->page,
				0x77);
}

/* A task's pad must be zero; its label may be anything. */
TEST_F(err, task_pad_not_zero)
{
	self->task[0].pad = 1;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
	self->task[0].pad = 0x80000000u;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, task_label_any_ok)
{
	self->task[0].label = UINT32_MAX;
	EXPECT_EQ(0, enqueue(_metadata, self));
	weave_test_finish(_metadata, self->fd, self->stream);
}

TEST_F(err, enqueue_tasks_stride_extra_not_zero)
{
	uint64_t raw[sizeof(struct drm_weave_task) / 8 + 1];

	memcpy(raw, &self->task[0], sizeof(self->task[0]));
	raw[sizeof(struct drm_weave_task) / 8] = 1;
	self->args.tasks.ptr = (uintptr_t)raw;
	self->args.tasks.stride = sizeof(raw);
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, enqueue_tasks_stride_extra_zero_ok)
{
	uint64_t raw[sizeof(struct drm_weave_task) / 8 + 1];

	memcpy(raw, &self->task[0], sizeof(self->task[0]));
	raw[sizeof(struct drm_weave_task) / 8] = 0;
	self->args.tasks.ptr = (uintptr_t)raw;
	self->args.tasks.stride = sizeof(raw);
	EXPECT_EQ(0, enqueue(_metadata, self));
}

/* Strides are bounded, so one element never costs more than a few bytes. */
TEST_F(err, enqueue_tasks_stride_at_limit_ok)
{
	uint8_t raw[DRM_WEAVE_MAX_STRIDE] = { 0 };

	memcpy(raw, &self->task[0], sizeof(self->task[0]));
	self->args.tasks.ptr = (uintptr_t)raw;
	self->args.tasks.stride = sizeof(raw);
	EXPECT_EQ(0, enqueue(_metadata, self));
}

TEST_F(err, enqueue_tasks_stride_over_limit)
{
	uint8_t raw[DRM_WEAVE_MAX_STRIDE + 8] = { 0 };

	memcpy(raw, &self->task[0], sizeof(self->task[0]));
	self->args.tasks.ptr = (uintptr_t)raw;
	self->args.tasks.stride = sizeof(raw);
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
	/* A huge stride is refused before any byte is read. */
	self->args.tasks.stride = 0x80000000u;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, task_bindings_stride_over_limit)
{
	uint8_t raw[DRM_WEAVE_MAX_STRIDE + 8] = { 0 };

	memcpy(raw, &self->bind[0], sizeof(self->bind[0]));
	self->task[0].bindings.ptr = (uintptr_t)raw;
	self->task[0].bindings.stride = sizeof(raw);
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, in_sync_stride_over_limit)
{
	uint8_t raw[DRM_WEAVE_MAX_STRIDE + 8] = { 0 };
	struct drm_weave_sync s = weave_sync(WEAVE_TEST_BAD_HANDLE, 0);

	memcpy(raw, &s, sizeof(s));
	set_in_syncs(self, raw, sizeof(raw), 1);
	/* -EINVAL, not the bad handle's -ENOENT: the stride is checked first. */
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, enqueue_tasks_bad_ptr)
{
	self->args.tasks.ptr = (uintptr_t)WEAVE_TEST_BAD_PTR;
	EXPECT_EQ(-EFAULT, enqueue(_metadata, self));
}

/*
 * Tasks are read in chunks: an array whose fifth task runs into a page that
 * cannot be read fails as a whole, though the first four are readable.
 */
TEST_F(err, enqueue_tasks_run_into_unreadable_page)
{
	size_t sz = sizeof(struct drm_weave_task);
	struct drm_weave_task *t;
	uint8_t *map;
	int i;

	map = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + self->page, self->page, PROT_NONE));
	/* Task 4 straddles the boundary: its last 8 bytes are unreadable. */
	t = (struct drm_weave_task *)(map + self->page - 4 * sz - (sz - 8));
	for (i = 0; i < 4; i++)
		t[i] = self->task[0];
	memcpy(&t[4], &self->task[0], sz - 8);
	self->args.tasks.ptr = (uintptr_t)t;
	self->args.tasks.count = 5;
	EXPECT_EQ(-EFAULT, enqueue(_metadata, self));
	/* The four readable tasks alone are accepted. */
	self->args.tasks.count = 4;
	EXPECT_EQ(0, enqueue(_metadata, self));
	EXPECT_EQ(4u, self->args.seqno);
	munmap(map, 2 * self->page);
}

/* --- ENQUEUE: tasks ------------------------------------------------------ */

TEST_F(err, task_unknown_type)
{
	self->task[0].type = 2;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, task_unknown_kernel)
{
	self->task[0].kernel = DRM_WEAVE_KERNEL_FAIL + 1;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, task_host_write_with_kernel)
{
	weave_task_host_write(&self->task[0], self->bind, self->pattern);
	self->bind[0].size = sizeof(self->pattern);
	self->task[0].kernel = DRM_WEAVE_KERNEL_FILL;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, task_wrong_binding_count)
{
	self->bind[1] = self->bind[0];
	self->bind[1].handle = self->bo2;
	self->task[0].bindings.count = 2;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, task_noop_with_binding)
{
	self->task[0].kernel = DRM_WEAVE_KERNEL_NOOP;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, task_bindings_stride_too_small)
{
	self->task[0].bindings.stride = sizeof(self->bind[0]) - 8;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, task_bindings_stride_extra_not_zero)
{
	uint64_t raw[sizeof(struct drm_weave_binding) / 8 + 1];

	memcpy(raw, &self->bind[0], sizeof(self->bind[0]));
	raw[sizeof(struct drm_weave_binding) / 8] = 1;
	self->task[0].bindings.ptr = (uintptr_t)raw;
	self->task[0].bindings.stride = sizeof(raw);
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
	/* The same element with zero extra bytes is accepted. */
	raw[sizeof(struct drm_weave_binding) / 8] = 0;
	EXPECT_EQ(0, enqueue(_metadata, self));
}

TEST_F(err, task_bindings_bad_ptr)
{
	self->task[0].bindings.ptr = (uintptr_t)WEAVE_TEST_BAD_PTR;
	EXPECT_EQ(-EFAULT, enqueue(_metadata, self));
}

TEST_F(err, binding_access_zero)
{
	self->bind[0].access = 0;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, binding_access_unknown)
{
	self->bind[0].access |= 0x4;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, binding_size_zero)
{
	self->bind[0].size = 0;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, binding_past_end)
{
	self->bind[0].offset = 4;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, binding_offset_past_end)
{
	self->bind[0].offset = self->page;
	self->bind[0].size = 4;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, binding_offset_size_overflow)
{
	self->bind[0].offset = UINT64_MAX - 3;
	self->bind[0].size = 8;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, binding_bad_bo)
{
	self->bind[0].handle = WEAVE_TEST_BAD_HANDLE;
	EXPECT_EQ(-ENOENT, enqueue(_metadata, self));
}

TEST_F(err, binding_closed_bo)
{
	weave_test_close_bo(_metadata, self->fd, self->bo);
	EXPECT_EQ(-ENOENT, enqueue(_metadata, self));
}

TEST_F(err, fill_size_not_multiple_of_4)
{
	self->bind[0].size = 6;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, copy_sizes_differ)
{
	self->bind[0] = weave_binding(self->bo, DRM_WEAVE_ACCESS_READ, 0, 64);
	self->bind[1] = weave_binding(self->bo2, DRM_WEAVE_ACCESS_WRITE, 0, 128);
	weave_task_launch(&self->task[0], DRM_WEAVE_KERNEL_COPY, self->bind, 2,
			  NULL, 0);
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, crc_result_not_4_bytes)
{
	self->bind[0] = weave_binding(self->bo, DRM_WEAVE_ACCESS_READ, 0, 64);
	self->bind[1] = weave_binding(self->bo2, DRM_WEAVE_ACCESS_WRITE, 0, 8);
	weave_task_launch(&self->task[0], DRM_WEAVE_KERNEL_CRC32C, self->bind,
			  2, NULL, 0);
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, add_sizes_differ)
{
	self->bind[0] = weave_binding(self->bo, DRM_WEAVE_ACCESS_READ, 0, 64);
	self->bind[1] = weave_binding(self->bo, DRM_WEAVE_ACCESS_READ, 64, 64);
	self->bind[2] = weave_binding(self->bo2, DRM_WEAVE_ACCESS_WRITE, 0, 32);
	weave_task_launch(&self->task[0], DRM_WEAVE_KERNEL_ADD_U32, self->bind,
			  3, NULL, 0);
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

/*
 * An ADD whose output overlaps an input's range of the same buffer without
 * being that range: its result would depend on the order of the elements.
 */
TEST_F(err, add_output_crosses_input)
{
	static const uint64_t shift[] = { 4, 60, -4ull, -60ull };
	unsigned int i, in;

	for (in = 0; in < 2; in++) {
		for (i = 0; i < 4; i++) {
			self->bind[0] = weave_binding(self->bo,
						      DRM_WEAVE_ACCESS_READ,
						      128, 64);
			self->bind[1] = weave_binding(self->bo2,
						      DRM_WEAVE_ACCESS_READ,
						      128, 64);
			self->bind[2] = weave_binding(in ? self->bo2 : self->bo,
						      DRM_WEAVE_ACCESS_WRITE,
						      128 + shift[i], 64);
			weave_task_launch(&self->task[0],
					  DRM_WEAVE_KERNEL_ADD_U32, self->bind,
					  3, NULL, 0);
			EXPECT_EQ(-EINVAL, enqueue(_metadata, self)) {
				TH_LOG("output of input %u shifted by %lld",
				       in, (long long)shift[i]);
			}
		}
	}
	/* In place, and next to its input: both accepted. */
	self->bind[2] = weave_binding(self->bo, DRM_WEAVE_ACCESS_WRITE, 128,
				      64);
	EXPECT_EQ(0, enqueue(_metadata, self));
	self->bind[2] = weave_binding(self->bo, DRM_WEAVE_ACCESS_WRITE, 192,
				      64);
	EXPECT_EQ(0, enqueue(_metadata, self));
}

TEST_F(err, add_size_not_multiple_of_4)
{
	self->bind[0] = weave_binding(self->bo, DRM_WEAVE_ACCESS_READ, 0, 6);
	self->bind[1] = weave_binding(self->bo, DRM_WEAVE_ACCESS_READ, 64, 6);
	self->bind[2] = weave_binding(self->bo2, DRM_WEAVE_ACCESS_WRITE, 0, 6);
	weave_task_launch(&self->task[0], DRM_WEAVE_KERNEL_ADD_U32, self->bind,
			  3, NULL, 0);
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

/* Makes self->task[0] a launch of @kernel, no bindings, with @arg. */
static void arg_launch(err_t *self, uint32_t kernel, uint32_t arg)
{
	self->pattern[0] = arg;
	weave_task_launch(&self->task[0], kernel, NULL, 0, self->pattern, 4);
}

TEST_F(err, fill_uniforms_short)
{
	self->task[0].uniforms_size = 3;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, delay_uniforms_short)
{
	arg_launch(self, DRM_WEAVE_KERNEL_DELAY, 1);
	self->task[0].uniforms_size = 3;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, fail_uniforms_short)
{
	arg_launch(self, DRM_WEAVE_KERNEL_FAIL, EIO);
	self->task[0].uniforms_size = 3;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, delay_over_limit)
{
	arg_launch(self, DRM_WEAVE_KERNEL_DELAY, WEAVE_TEST_MAX_DELAY_US + 1);
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
	/* The limit the device reports. */
	arg_launch(self, DRM_WEAVE_KERNEL_DELAY, self->info.max_delay_us + 1);
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
	arg_launch(self, DRM_WEAVE_KERNEL_DELAY, UINT32_MAX);
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, fail_errno_zero)
{
	arg_launch(self, DRM_WEAVE_KERNEL_FAIL, 0);
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, fail_errno_4096)
{
	arg_launch(self, DRM_WEAVE_KERNEL_FAIL, 4096);
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

/* The bounds themselves are accepted: a 1 us delay, errno 1 and 4095. */
TEST_F(err, delay_and_fail_bounds_ok)
{
	arg_launch(self, DRM_WEAVE_KERNEL_DELAY, 1);
	EXPECT_EQ(0, enqueue(_metadata, self));
	arg_launch(self, DRM_WEAVE_KERNEL_FAIL, 1);
	EXPECT_EQ(0, enqueue(_metadata, self));
	arg_launch(self, DRM_WEAVE_KERNEL_FAIL, 4095);
	EXPECT_EQ(0, enqueue(_metadata, self));
	weave_test_finish(_metadata, self->fd, self->stream);
}

TEST_F(err, launch_with_data)
{
	self->task[0].data = (uintptr_t)self->pattern;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, uniforms_too_long)
{
	uint8_t *big = calloc(1, self->info.max_uniform_bytes + 4);

	ASSERT_NE(NULL, big);
	self->task[0].uniforms = (uintptr_t)big;
	self->task[0].uniforms_size = self->info.max_uniform_bytes + 1;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
	free(big);
}

TEST_F(err, uniforms_bad_ptr)
{
	self->task[0].uniforms = (uintptr_t)WEAVE_TEST_BAD_PTR;
	EXPECT_EQ(-EFAULT, enqueue(_metadata, self));
}

TEST_F(err, host_write_bad_data)
{
	weave_task_host_write(&self->task[0], self->bind, WEAVE_TEST_BAD_PTR);
	self->bind[0].size = 64;
	EXPECT_EQ(-EFAULT, enqueue(_metadata, self));
}

TEST_F(err, host_write_two_bindings)
{
	weave_task_host_write(&self->task[0], self->bind, self->pattern);
	self->bind[0].size = 64;
	self->bind[1] = self->bind[0];
	self->task[0].bindings.count = 2;
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

/* All or nothing: a bad last task queues none of the good ones. */
TEST_F(err, batch_with_bad_last_task)
{
	struct drm_weave_task *t = calloc(8, sizeof(*t));
	uint32_t *map;
	int i;

	ASSERT_NE(NULL, t);
	for (i = 0; i < 8; i++)
		t[i] = self->task[0];
	t[7].kernel = 0xff;
	self->args.tasks.ptr = (uintptr_t)t;
	self->args.tasks.count = 8;
	/* A ring queues each descriptor alone: this is ENQUEUE's own. */
	EXPECT_EQ(-EINVAL, enqueue_by(_metadata, self,
				      weave_test_ioctl_whole));
	EXPECT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	weave_test_wait(_metadata, self->fd, self->stream);
	map = weave_test_map(_metadata, self->fd, self->bo, self->page);
	EXPECT_EQ(0u, map[0]);
	weave_test_unmap(_metadata, map, self->page);

	/* With the last task fixed, all eight go in. */
	t[7].kernel = DRM_WEAVE_KERNEL_FILL;
	EXPECT_EQ(0, enqueue(_metadata, self));
	EXPECT_EQ(8u, self->args.seqno);
	free(t);
}

/* --- ENQUEUE: in-syncs --------------------------------------------------- */

TEST_F(err, in_sync_bad_syncobj)
{
	struct drm_weave_sync s = weave_sync(WEAVE_TEST_BAD_HANDLE, 0);

	set_in_syncs(self, &s, sizeof(s), 1);
	EXPECT_EQ(-ENOENT, enqueue(_metadata, self));
}

TEST_F(err, in_sync_no_fence)
{
	struct drm_weave_sync s = weave_sync(weave_test_syncobj(_metadata,
								 self->fd), 0);

	set_in_syncs(self, &s, sizeof(s), 1);
	EXPECT_EQ(-ENOENT, enqueue(_metadata, self));
}

TEST_F(err, in_sync_unsignalled_point)
{
	uint32_t tl = weave_test_syncobj(_metadata, self->fd);
	uint64_t point = 1;
	struct drm_weave_sync s = weave_sync(tl, 5);

	ASSERT_EQ(0, drmSyncobjTimelineSignal(self->fd, &tl, &point, 1));
	set_in_syncs(self, &s, sizeof(s), 1);
	EXPECT_EQ(-ENOENT, enqueue(_metadata, self));
}

/* The baseline of the in-sync tests: a signalled in-sync is accepted. */
TEST_F(err, in_sync_signalled_ok)
{
	struct drm_weave_sync s = weave_sync(signalled_syncobj(_metadata, self),
					     0);

	set_in_syncs(self, &s, sizeof(s), 1);
	EXPECT_EQ(0, enqueue(_metadata, self));
}

TEST_F(err, in_sync_flags)
{
	struct drm_weave_sync s = weave_sync(signalled_syncobj(_metadata, self),
					     0);

	s.flags = 1;
	set_in_syncs(self, &s, sizeof(s), 1);
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, in_sync_stride_too_small)
{
	struct drm_weave_sync s = weave_sync(signalled_syncobj(_metadata, self),
					     0);

	set_in_syncs(self, &s, 4, 1);
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
}

TEST_F(err, in_sync_stride_extra_not_zero)
{
	uint64_t raw[sizeof(struct drm_weave_sync) / 8 + 1];
	struct drm_weave_sync s = weave_sync(signalled_syncobj(_metadata, self),
					     0);

	memcpy(raw, &s, sizeof(s));
	raw[sizeof(s) / 8] = 1;
	set_in_syncs(self, raw, sizeof(raw), 1);
	EXPECT_EQ(-EINVAL, enqueue(_metadata, self));
	/* The same element with zero extra bytes is accepted. */
	raw[sizeof(s) / 8] = 0;
	EXPECT_EQ(0, enqueue(_metadata, self));
}

TEST_F(err, in_sync_bad_ptr)
{
	set_in_syncs(self, WEAVE_TEST_BAD_PTR, sizeof(struct drm_weave_sync), 1);
	EXPECT_EQ(-EFAULT, enqueue(_metadata, self));
}

/* --- FLUSH --------------------------------------------------------------- */

TEST_F(err, flush_unknown_flags)
{
	struct drm_weave_flush f = { .stream = self->stream, .flags = 2 };

	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_FLUSH, &f));
}

TEST_F(err, flush_all_with_stream)
{
	struct drm_weave_flush f = {
		.stream = self->stream,
		.flags = DRM_WEAVE_FLUSH_ALL,
	};

	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_FLUSH, &f));
}

TEST_F(err, flush_out_sync_flags)
{
	struct drm_weave_flush f = { .stream = self->stream };

	f.out_sync = weave_sync(weave_test_syncobj(_metadata, self->fd), 0);
	f.out_sync.flags = 1;
	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_FLUSH, &f));
}

TEST_F(err, flush_bad_stream)
{
	EXPECT_EQ(-ENOENT, weave_flush(self->fd, WEAVE_TEST_BAD_HANDLE, NULL));
}

/* Stream 0 is never a handle; only FLUSH_ALL takes it. */
TEST_F(err, flush_stream_zero)
{
	struct drm_weave_flush f = { .stream = 0 };

	EXPECT_EQ(-ENOENT, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_FLUSH, &f));
}

TEST_F(err, flush_bad_out_syncobj)
{
	struct drm_weave_sync out = weave_sync(WEAVE_TEST_BAD_HANDLE, 0);

	ASSERT_EQ(0, enqueue(_metadata, self));
	EXPECT_EQ(-ENOENT, weave_flush(self->fd, self->stream, &out));
	EXPECT_EQ(-ENOENT, weave_flush_all(self->fd, &out));
	weave_test_finish(_metadata, self->fd, self->stream);
}

/* --- WAIT ---------------------------------------------------------------- */

TEST_F(err, wait_flags)
{
	/* Bit 0 is DRM_WEAVE_WAIT_SEQNO (uAPI 1.8); see sched_fenced. */
	struct drm_weave_wait w = { .handle = self->stream, .flags = 2 };

	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_WAIT, &w));
	w.flags = DRM_WEAVE_WAIT_SEQNO | 0x80000000u;
	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_WAIT, &w));
}

TEST_F(err, wait_bad_stream)
{
	EXPECT_EQ(-ENOENT, weave_wait(self->fd, WEAVE_TEST_BAD_HANDLE, 0));
}

/* --- SET_PARAM ------------------------------------------------------------ */

TEST_F(err, set_param_unknown)
{
	EXPECT_EQ(-EINVAL, weave_set_param(self->fd, 2, 0));
	EXPECT_EQ(-EINVAL, weave_set_param(self->fd, 0xffffffffu, 0));
}

TEST_F(err, set_param_pad)
{
	struct drm_weave_set_param p = {
		.param = DRM_WEAVE_PARAM_STRATEGY,
		.pad = 1,
	};

	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_SET_PARAM,
					    &p));
}

TEST_F(err, set_param_bad_strategy)
{
	EXPECT_EQ(-EINVAL, weave_set_param(self->fd, DRM_WEAVE_PARAM_STRATEGY,
					   2));
	EXPECT_EQ(-EINVAL, weave_set_param(self->fd, DRM_WEAVE_PARAM_STRATEGY,
					   1ull << 32));
}

TEST_F(err, set_param_max_tasks_range)
{
	EXPECT_EQ(-EINVAL, weave_set_param(self->fd, DRM_WEAVE_PARAM_MAX_TASKS,
					   0));
	EXPECT_EQ(-EINVAL, weave_set_param(self->fd, DRM_WEAVE_PARAM_MAX_TASKS,
					   self->info.max_tasks + 1ull));
	EXPECT_EQ(0, weave_set_param(self->fd, DRM_WEAVE_PARAM_MAX_TASKS,
				     self->info.max_tasks));
	EXPECT_EQ(0, weave_set_param(self->fd, DRM_WEAVE_PARAM_MAX_TASKS, 1));
}

TEST_F(err, set_param_max_tasks_after_enqueue)
{
	ASSERT_EQ(0, enqueue(_metadata, self));
	EXPECT_EQ(-EBUSY, weave_set_param(self->fd, DRM_WEAVE_PARAM_MAX_TASKS,
					  1));
	/* The strategy may still change. */
	EXPECT_EQ(0, weave_set_param(self->fd, DRM_WEAVE_PARAM_STRATEGY,
				     DRM_WEAVE_STRATEGY_SEQUENTIAL));
	weave_test_finish(_metadata, self->fd, self->stream);
}

TEST_HARNESS_MAIN
