// SPDX-License-Identifier: GPL-2.0
/*
 * weave: device discovery and DRM_IOCTL_WEAVE_QUERY.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "weave_test.h"

/* Room past the kernel's struct, to see that the kernel zeroes it. */
#define TAIL	64

FIXTURE(query) {
	int fd;
};

FIXTURE_SETUP(query)
{
	self->fd = weave_test_open(_metadata);
}

FIXTURE_TEARDOWN(query)
{
	close(self->fd);
}

/* The size of the kernel's struct for @type, from a size-0 query. */
static uint32_t kernel_size(struct __test_metadata *_metadata, int fd,
			    uint32_t type)
{
	uint32_t size = 0;

	ASSERT_EQ(0, weave_query(fd, type, NULL, &size));
	return size;
}

TEST_F(query, render_node_is_weave)
{
	drmVersionPtr version;

	ASSERT_EQ(DRM_NODE_RENDER, drmGetNodeTypeFromFd(self->fd));
	version = drmGetVersion(self->fd);
	ASSERT_NE(NULL, version);
	EXPECT_STREQ("weave", version->name);
	TH_LOG("driver %s %d.%d.%d (%s)", version->name,
	       version->version_major, version->version_minor,
	       version->version_patchlevel, version->desc);
	drmFreeVersion(version);
}

TEST_F(query, device_count)
{
	int count = weave_device_count();

	ASSERT_LE(1, count);
	ASSERT_EQ(-ENODEV, weave_device_open(count));
}

TEST_F(query, open_path_rejects_other_files)
{
	ASSERT_EQ(-ENODEV, weave_device_open_path("/dev/null"));
}

TEST_F(query, device_info)
{
	struct drm_weave_device_info info = weave_test_info(_metadata,
							    self->fd);

	EXPECT_EQ((uint32_t)DRM_WEAVE_UAPI_MAJOR, info.uapi_major);
	EXPECT_LE((uint32_t)DRM_WEAVE_UAPI_MINOR, info.uapi_minor);
	EXPECT_LT(0u, info.max_bo_size);
	EXPECT_EQ((uint32_t)sysconf(_SC_PAGESIZE), info.page_size);
	EXPECT_EQ(0u, info.pad);
	TH_LOG("uAPI %u.%u, max_bo_size %llu, page_size %u",
	       info.uapi_major, info.uapi_minor,
	       (unsigned long long)info.max_bo_size, info.page_size);
}

/* The limits of uAPI 1.2, which the uAPI used to give in prose only. */
TEST_F(query, device_info_limits)
{
	struct drm_weave_device_info info = weave_test_info(_metadata,
							    self->fd);

	ASSERT_LE(2u, info.uapi_minor);
	EXPECT_EQ(128u, info.max_slot_gates);
	EXPECT_EQ(60000000u, info.max_delay_us);
	EXPECT_EQ(1024u, info.max_tasks_per_enqueue);
	EXPECT_EQ(8u, info.max_bindings);
	EXPECT_EQ(64u, info.max_uniform_bytes);
	EXPECT_EQ(64u, info.max_in_syncs);
}

/*
 * The limits of uAPI 1.3, for failures on bytes: an older kernel leaves
 * them zero, which says it has no CHECK.
 */
TEST_F(query, device_info_failure_limits)
{
	struct drm_weave_device_info info = weave_test_info(_metadata,
							    self->fd);

	ASSERT_LE(3u, info.uapi_minor);
	EXPECT_LT(0u, info.max_check_ranges);
	EXPECT_LT(0u, info.max_report_failures);
	EXPECT_LT(0u, info.max_live_failures);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_SKIPS, info.max_failure_skips);
	TH_LOG("max_check_ranges %u, max_report_failures %u, max_live_failures %u, max_failure_skips %u",
	       info.max_check_ranges, info.max_report_failures,
	       info.max_live_failures, info.max_failure_skips);
}

/*
 * The limits of uAPI 1.4, the slots' staging arenas: a host write of at
 * most max_staging_slice bytes fits one, at its cost of length rounded up
 * to 16, plus 16.
 */
TEST_F(query, device_info_staging_limits)
{
	struct drm_weave_device_info info = weave_test_info(_metadata,
							    self->fd);

	ASSERT_LE(4u, info.uapi_minor);
	EXPECT_LE(4096u, info.slot_staging_bytes);
	EXPECT_EQ(0u, info.slot_staging_bytes % 4096);
	EXPECT_EQ(info.slot_staging_bytes / 2 - 16, info.max_staging_slice);
	TH_LOG("slot_staging_bytes %u, max_staging_slice %u",
	       info.slot_staging_bytes, info.max_staging_slice);
}

/*
 * A program built against an older uAPI passes the size of the struct it
 * knows, @old: it gets exactly those bytes, the same as the start of the
 * whole struct, and nothing is written past them.
 */
static void expect_old_size(struct __test_metadata *_metadata, int fd,
			    uint32_t old)
{
	struct drm_weave_device_info info = weave_test_info(_metadata, fd);
	unsigned char buf[sizeof(info) + TAIL];
	uint32_t size = old;

	memset(buf, 0xff, sizeof(buf));
	ASSERT_EQ(0, weave_query(fd, DRM_WEAVE_QUERY_DEVICE_INFO, buf, &size));
	ASSERT_EQ(sizeof(info), size);
	ASSERT_EQ(0, memcmp(&info, buf, old));
	ASSERT_EQ(sizeof(buf) - old,
		  weave_test_check_bytes(buf + old, sizeof(buf) - old, 0xff));
}

TEST_F(query, device_info_1_3_size)
{
	expect_old_size(_metadata, self->fd,
			offsetof(struct drm_weave_device_info,
				 slot_staging_bytes));
}

TEST_F(query, device_info_1_2_size)
{
	expect_old_size(_metadata, self->fd,
			offsetof(struct drm_weave_device_info,
				 max_check_ranges));
}

TEST_F(query, device_info_1_1_size)
{
	expect_old_size(_metadata, self->fd,
			offsetof(struct drm_weave_device_info,
				 max_slot_gates));
}

TEST_F(query, device_info_size)
{
	struct drm_weave_device_info info = weave_test_info(_metadata,
							    self->fd);
	uint32_t size = kernel_size(_metadata, self->fd,
				    DRM_WEAVE_QUERY_DEVICE_INFO);

	/* A kernel at our minor has our struct; a newer one may have more. */
	ASSERT_TRUE(size == sizeof(info) ||
		    (info.uapi_minor > DRM_WEAVE_UAPI_MINOR &&
		     size > sizeof(info)));
}

TEST_F(query, memory_usage_size)
{
	ASSERT_EQ(sizeof(struct drm_weave_memory_usage),
		  kernel_size(_metadata, self->fd,
			      DRM_WEAVE_QUERY_MEMORY_USAGE));
}

/* Size 0 asks for the size only: the pointer is not even looked at. */
TEST_F(query, size_zero_ignores_pointer)
{
	uint32_t expected = kernel_size(_metadata, self->fd,
					DRM_WEAVE_QUERY_DEVICE_INFO);
	uint32_t size = 0;

	ASSERT_EQ(0, weave_query(self->fd, DRM_WEAVE_QUERY_DEVICE_INFO,
				 WEAVE_TEST_BAD_PTR, &size));
	ASSERT_EQ(expected, size);
}

/* A short size gets only the prefix; the size comes back as the kernel's. */
TEST_F(query, short_size_writes_prefix)
{
	uint32_t full = kernel_size(_metadata, self->fd,
				    DRM_WEAVE_QUERY_DEVICE_INFO);
	struct drm_weave_device_info info;
	uint32_t size = sizeof(info.uapi_major);

	memset(&info, 0xff, sizeof(info));
	ASSERT_EQ(0, weave_query(self->fd, DRM_WEAVE_QUERY_DEVICE_INFO,
				 &info, &size));
	ASSERT_EQ(full, size);
	ASSERT_EQ((uint32_t)DRM_WEAVE_UAPI_MAJOR, info.uapi_major);
	ASSERT_EQ(sizeof(info),
		  sizeof(info.uapi_major) +
		  weave_test_check_bytes(&info.uapi_minor,
					 sizeof(info) - sizeof(info.uapi_major),
					 0xff));
}

/* A larger size gets the whole struct, then zeroes past its end. */
TEST_F(query, long_size_zeroes_tail)
{
	struct drm_weave_device_info info = weave_test_info(_metadata,
							    self->fd);
	uint32_t full = kernel_size(_metadata, self->fd,
				    DRM_WEAVE_QUERY_DEVICE_INFO);
	unsigned char buf[sizeof(info) + TAIL];
	uint32_t size = sizeof(buf);

	ASSERT_LE(full, sizeof(buf)) {
		TH_LOG("kernel struct of %u bytes: grow TAIL", full);
	}
	memset(buf, 0xff, sizeof(buf));
	ASSERT_EQ(0, weave_query(self->fd, DRM_WEAVE_QUERY_DEVICE_INFO,
				 buf, &size));
	ASSERT_EQ(full, size);
	ASSERT_EQ(0, memcmp(&info, buf, sizeof(info)));
	ASSERT_EQ(sizeof(buf) - full,
		  weave_test_check_bytes(buf + full, sizeof(buf) - full, 0));
}

TEST_F(query, memory_usage_counts_a_buffer)
{
	struct drm_weave_device_info info = weave_test_info(_metadata,
							    self->fd);
	struct drm_weave_memory_usage base = weave_test_usage(_metadata,
							      self->fd);
	uint64_t size = 3 * (uint64_t)info.page_size;
	uint32_t handle;

	handle = weave_test_bo(_metadata, self->fd, size, 0);
	weave_test_assert_usage(_metadata, self->fd, &base, 1, size);
	weave_test_close_bo(_metadata, self->fd, handle);
	weave_test_assert_usage(_metadata, self->fd, &base, 0, 0);
}

TEST_F(query, client_usage_size)
{
	ASSERT_EQ(sizeof(struct drm_weave_client_usage),
		  kernel_size(_metadata, self->fd,
			      DRM_WEAVE_QUERY_CLIENT_USAGE));
}

/* A fresh file holds nothing. */
TEST_F(query, client_usage_fresh_is_zero)
{
	struct drm_weave_client_usage usage;

	usage = weave_test_client_usage(_metadata, self->fd);
	ASSERT_EQ(sizeof(usage), weave_test_check_bytes(&usage, sizeof(usage),
							0));
}

/* Streams (one buffer each) and tasks per stream of the usage tests. */
#define USAGE_STREAMS	3
#define USAGE_WRITES	4
#define USAGE_BYTES	256

/*
 * Queued work is counted exactly, rings grow with what is queued, and
 * everything but a chunk of ring per slot (and at most one cached task
 * array) goes away once it has completed.
 */
TEST_F(query, client_usage_counts_queued_work)
{
	struct drm_weave_device_info info = weave_test_info(_metadata,
							    self->fd);
	uint64_t page = info.page_size, slots = 0, tasks, rings;
	unsigned char data[USAGE_BYTES];
	struct drm_weave_client_usage usage;
	uint32_t stream[USAGE_STREAMS], bo[USAGE_STREAMS];
	struct weave_test_batch b;
	uint32_t i, j, k, threshold = info.max_tasks;
	void *map;

	/* Every slot must stay below the threshold: nothing executes. */
	k = (threshold - 1) / (2 * USAGE_STREAMS);
	if (k > USAGE_WRITES)
		k = USAGE_WRITES;
	if (!k)
		SKIP(return, "max_tasks %u is too small", threshold);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS,
			 threshold);

	for (i = 0; i < USAGE_STREAMS; i++) {
		stream[i] = weave_test_stream(_metadata, self->fd,
					      DRM_WEAVE_PRIORITY_NORMAL);
		bo[i] = weave_test_bo(_metadata, self->fd, page, 0);
		for (j = 0; j < i; j++)
			if (stream[j] % info.max_streams ==
			    stream[i] % info.max_streams)
				break;
		slots += j == i;
	}
	usage = weave_test_client_usage(_metadata, self->fd);
	ASSERT_EQ((uint64_t)USAGE_STREAMS, usage.streams);
	ASSERT_EQ(0u, usage.kernel_bytes);

	/* Per stream: k host writes to its own buffer, then k noops. */
	memset(data, 0xa5, sizeof(data));
	for (i = 0; i < USAGE_STREAMS; i++) {
		weave_test_batch_init(&b);
		for (j = 0; j < k; j++)
			weave_test_write_task(&b, bo[i], j * USAGE_BYTES,
					      USAGE_BYTES, data);
		for (j = 0; j < k; j++)
			weave_test_noop(&b);
		weave_test_enqueue(_metadata, self->fd, stream[i], &b);
	}
	tasks = USAGE_STREAMS * 2 * k;

	usage = weave_test_client_usage(_metadata, self->fd);
	ASSERT_EQ(tasks, usage.pending_tasks);
	ASSERT_EQ(tasks, usage.queued_tasks);
	ASSERT_EQ((uint64_t)USAGE_STREAMS * k * USAGE_BYTES, usage.staged_bytes);
	ASSERT_EQ((uint64_t)USAGE_STREAMS, usage.streams);
	ASSERT_EQ(0u, usage.jobs);
	ASSERT_EQ(0u, usage.job_bytes);
	/*
	 * Compact entries, as many as are queued: at least 32 bytes each,
	 * and with chunk slack, less than 128 bytes each (a host write
	 * takes 88, a noop 32) and 512 bytes more per slot used.
	 */
	ASSERT_LE(tasks * 32, usage.ring_bytes);
	ASSERT_GE(tasks * 128 + slots * 512, usage.ring_bytes);
	/* The writes are small: one staging arena per slot used, in it. */
	ASSERT_EQ(slots * info.slot_staging_bytes, usage.arena_bytes);
	ASSERT_EQ(0u, usage.alone_bytes);
	ASSERT_EQ(usage.ring_bytes + usage.job_bytes + usage.gate_bytes +
		  usage.arena_bytes, usage.kernel_bytes);
	rings = usage.ring_bytes;
	TH_LOG("%llu tasks on %llu slots: kernel_bytes %llu, ring_bytes %llu",
	       (unsigned long long)tasks, (unsigned long long)slots,
	       (unsigned long long)usage.kernel_bytes,
	       (unsigned long long)rings);

	ASSERT_EQ(0, weave_flush_all(self->fd, NULL));
	for (i = 0; i < USAGE_STREAMS; i++)
		weave_test_wait(_metadata, self->fd, stream[i]);
	usage = weave_test_client_usage(_metadata, self->fd);
	ASSERT_EQ(0u, usage.pending_tasks);
	ASSERT_EQ(0u, usage.queued_tasks);
	ASSERT_EQ(0u, usage.staged_bytes);
	ASSERT_EQ((uint64_t)USAGE_STREAMS, usage.streams);

	/*
	 * Idle: one chunk of ring per slot used (the flush gave back the
	 * rest), the arenas, and task arrays of max_tasks entries.
	 */
	usage = weave_test_client_idle(_metadata, self->fd);
	ASSERT_EQ(0u, usage.pending_tasks);
	ASSERT_LT(0u, usage.ring_bytes);
	ASSERT_GE(rings, usage.ring_bytes);
	ASSERT_EQ(0u, usage.ring_bytes % slots);
	rings = usage.ring_bytes;
	ASSERT_EQ(slots * info.slot_staging_bytes, usage.arena_bytes);
	ASSERT_EQ(0u, usage.job_bytes % threshold);
	ASSERT_EQ(rings + usage.arena_bytes + usage.job_bytes,
		  usage.kernel_bytes);

	/* The writes landed. */
	for (i = 0; i < USAGE_STREAMS; i++) {
		map = weave_test_map(_metadata, self->fd, bo[i], page);
		ASSERT_EQ(k * USAGE_BYTES,
			  weave_test_check_bytes(map, k * USAGE_BYTES, 0xa5));
		weave_test_unmap(_metadata, map, page);
	}

	/* Rings stay until close, even without streams. */
	for (i = 0; i < USAGE_STREAMS; i++)
		ASSERT_EQ(0, weave_stream_destroy(self->fd, stream[i]));
	usage = weave_test_client_usage(_metadata, self->fd);
	ASSERT_EQ(0u, usage.streams);
	ASSERT_EQ(rings, usage.ring_bytes);
	ASSERT_EQ(slots * info.slot_staging_bytes, usage.arena_bytes);
}

/*
 * Rings hold compact entries that grow with what is queued: a pending noop
 * costs at most 64 bytes of kernel memory (issue 21), with the ring half
 * full and with it as full as it stays.
 */
TEST_F(query, a_pending_noop_costs_at_most_64_bytes)
{
	struct drm_weave_device_info info = weave_test_info(_metadata,
							    self->fd);
	uint32_t threshold = info.max_tasks, stream, k, queued = 0;
	const uint32_t want[2] = { threshold / 2, threshold - 1 };
	struct drm_weave_client_usage usage;
	struct weave_test_batch b;

	ASSERT_LE(4u, threshold);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS,
			 threshold);
	stream = weave_test_stream(_metadata, self->fd,
				   DRM_WEAVE_PRIORITY_NORMAL);
	for (k = 0; k < 2; k++) {
		while (queued < want[k]) {
			weave_test_batch_init(&b);
			while (queued < want[k] && b.n < WEAVE_TEST_BATCH) {
				weave_test_noop(&b);
				queued++;
			}
			weave_test_enqueue(_metadata, self->fd, stream, &b);
		}
		usage = weave_test_client_usage(_metadata, self->fd);
		ASSERT_EQ(queued, usage.queued_tasks);
		ASSERT_EQ(usage.ring_bytes, usage.kernel_bytes);
		ASSERT_LT(0u, usage.ring_bytes);
		ASSERT_GE(64ull * queued, usage.kernel_bytes);
		TH_LOG("%u noops queued: %llu kernel bytes", queued,
		       (unsigned long long)usage.kernel_bytes);
	}
}

/* Another file of the device sees none of it. */
/*
 * A job's task array is sized by what its backend stream's last job held,
 * not by the threshold: with small flushes under a large threshold, the
 * second job holds much less than the first, which had nothing to go by.
 */
TEST_F_TIMEOUT(query, small_flushes_get_small_jobs, 60)
{
	struct drm_weave_device_info info = weave_test_info(_metadata,
							    self->fd);
	uint32_t threshold = info.max_tasks, stream, i;
	struct drm_weave_client_usage u0, u1, u2;
	struct weave_test_gate gate;
	struct drm_weave_sync in;
	struct weave_test_batch b;

	if (threshold < 32)
		SKIP(return, "max_tasks %u is too small", threshold);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS,
			 threshold);
	stream = weave_test_stream(_metadata, self->fd,
				   DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_gate_open(_metadata, &gate, self->fd);
	in = weave_sync(gate.syncobj, 0);

	/* Held behind the gate: the jobs stay, with their task arrays. */
	weave_test_batch_init(&b);
	for (i = 0; i < 4; i++)
		weave_test_noop(&b);
	ASSERT_EQ(0, weave_enqueue(self->fd, stream, b.task, b.n, &in, 1,
				   NULL));
	u0 = weave_test_client_usage(_metadata, self->fd);
	ASSERT_EQ(0, weave_flush(self->fd, stream, NULL));
	u1 = weave_test_client_usage(_metadata, self->fd);
	ASSERT_EQ(0, weave_enqueue(self->fd, stream, b.task, b.n, NULL, 0,
				   NULL));
	ASSERT_EQ(0, weave_flush(self->fd, stream, NULL));
	u2 = weave_test_client_usage(_metadata, self->fd);
	weave_test_gate_pending(_metadata, self->fd, &gate);

	ASSERT_EQ(u0.jobs + 1, u1.jobs);
	ASSERT_EQ(u1.jobs + 1, u2.jobs);
	/* The first job: room for the threshold. */
	ASSERT_LT(u0.job_bytes, u1.job_bytes);
	/* The second: for a few tasks, at most a quarter of that. */
	ASSERT_LT(u1.job_bytes, u2.job_bytes);
	ASSERT_LE(4 * (u2.job_bytes - u1.job_bytes),
		  u1.job_bytes - u0.job_bytes) {
		TH_LOG("threshold %u: job task arrays of %llu, then %llu bytes",
		       threshold,
		       (unsigned long long)(u1.job_bytes - u0.job_bytes),
		       (unsigned long long)(u2.job_bytes - u1.job_bytes));
	}
	weave_test_gate_wait(_metadata, self->fd, &gate);
	weave_test_wait(_metadata, self->fd, stream);
}

TEST_F(query, client_usage_is_per_file)
{
	struct drm_weave_client_usage usage;
	uint32_t stream;
	int other;

	stream = weave_test_stream(_metadata, self->fd,
				   DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_enqueue_noop(_metadata, self->fd, stream);

	other = weave_test_open(_metadata);
	usage = weave_test_client_usage(_metadata, other);
	close(other);
	ASSERT_EQ(sizeof(usage), weave_test_check_bytes(&usage, sizeof(usage),
							0));
	usage = weave_test_client_usage(_metadata, self->fd);
	ASSERT_EQ(1u, usage.streams);
	ASSERT_LT(0u, usage.ring_bytes);
	weave_test_finish(_metadata, self->fd, stream);
}

TEST_F(query, unknown_type)
{
	struct drm_weave_device_info info;
	uint32_t size = sizeof(info);

	ASSERT_EQ(-EINVAL, weave_query(self->fd,
				       DRM_WEAVE_QUERY_ENGINES + 1,
				       &info, &size));
}

TEST_F(query, unknown_type_high_bit)
{
	struct drm_weave_device_info info;
	uint32_t size = sizeof(info);

	ASSERT_EQ(-EINVAL, weave_query(self->fd, 0x80000000u, &info, &size));
}

/* An unknown type is rejected even when only the size is asked for. */
TEST_F(query, unknown_type_size_zero)
{
	uint32_t size = 0;

	ASSERT_EQ(-EINVAL, weave_query(self->fd, UINT32_MAX, NULL, &size));
}

TEST_F(query, bad_pointer)
{
	uint32_t size = sizeof(struct drm_weave_device_info);

	ASSERT_EQ(-EFAULT, weave_query(self->fd, DRM_WEAVE_QUERY_DEVICE_INFO,
				       WEAVE_TEST_BAD_PTR, &size));
}

TEST_F(query, read_only_pointer)
{
	long page = sysconf(_SC_PAGESIZE);
	uint32_t size = sizeof(struct drm_weave_memory_usage);
	void *ro;

	ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(-EFAULT, weave_query(self->fd, DRM_WEAVE_QUERY_MEMORY_USAGE,
				       ro, &size));
	munmap(ro, page);
}

/* The ioctl's own argument cannot be read. */
TEST_F(query, bad_argument)
{
	ASSERT_EQ(-EFAULT, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_QUERY,
					    WEAVE_TEST_BAD_PTR));
}

TEST_HARNESS_MAIN
