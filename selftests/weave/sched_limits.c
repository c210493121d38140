// SPDX-License-Identifier: GPL-2.0
/*
 * weave: per-client limits: logical streams, tasks per enqueue, pending
 * tasks and staged host-write bytes, with their documented errnos.
 */
#include <stdint.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "weave_test.h"

WEAVE_TEST_FIXTURE(limits, 0u)

TEST_F_TIMEOUT(limits, max_client_streams, 120)
{
	uint32_t handle, first = 0;
	unsigned int n;
	int ret;

	if (self->info.max_client_streams > 65536)
		SKIP(return, "max_client_streams %u is too many to create",
		     self->info.max_client_streams);
	for (n = 0; n < self->info.max_client_streams; n++) {
		ASSERT_EQ(0, weave_stream_create(self->fd,
						 DRM_WEAVE_PRIORITY_NORMAL,
						 &handle)) TH_LOG("stream %u", n);
		if (!first)
			first = handle;
	}
	ret = weave_stream_create(self->fd, DRM_WEAVE_PRIORITY_NORMAL, &handle);
	ASSERT_EQ(-ENOSPC, ret);
	/* Destroying one makes room for one. */
	ASSERT_EQ(0, weave_stream_destroy(self->fd, first));
	ASSERT_EQ(0, weave_stream_create(self->fd, DRM_WEAVE_PRIORITY_NORMAL,
					 &handle));
	ASSERT_EQ(-ENOSPC, weave_stream_create(self->fd,
					       DRM_WEAVE_PRIORITY_NORMAL,
					       &handle));
	/* The limit is per client. */
	{
		int fd2 = weave_test_open(_metadata);

		EXPECT_EQ(0, weave_stream_create(fd2, DRM_WEAVE_PRIORITY_NORMAL,
						 &handle));
		close(fd2);
	}
}

static struct drm_weave_task *noops(uint32_t n)
{
	struct drm_weave_task *t = calloc(n, sizeof(*t));
	uint32_t i;

	if (!t)
		abort();
	for (i = 0; i < n; i++)
		weave_task_launch(&t[i], DRM_WEAVE_KERNEL_NOOP, NULL, 0, NULL, 0);
	return t;
}

TEST_F(limits, max_tasks_per_enqueue)
{
	uint32_t n = self->info.max_tasks_per_enqueue, stream;
	struct drm_weave_task *t;
	uint64_t seqno = 0;

	ASSERT_LT(0u, n);
	t = noops(n + 1);
	stream = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	EXPECT_EQ(-EINVAL, weave_enqueue(self->fd, stream, t, n + 1, NULL, 0,
					 NULL));
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd, stream).enqueued);
	EXPECT_EQ(0, weave_enqueue(self->fd, stream, t, n, NULL, 0, &seqno));
	EXPECT_EQ(n, seqno);
	weave_test_finish(_metadata, self->fd, stream);
	free(t);
}

/*
 * Tasks queued behind a gated task stay pending: exactly max_pending_tasks
 * fit, one more gets -EBUSY, and it fits again once the work completed.
 * Queueing them may take seconds, all within the gate's window: a try
 * whose vgem gate expired is made again, on a new stream.
 */
TEST_F_TIMEOUT(limits, max_pending_tasks, 180)
{
	uint64_t max = self->info.max_pending_tasks, total, enqueued, completed;
	uint32_t per = self->info.max_tasks_per_enqueue, stream, n;
	struct weave_test_gate gate;
	struct drm_weave_task *t;
	int tries, busy;

	if (max > 200000)
		SKIP(return, "max_pending_tasks %llu is too many to queue",
		     (unsigned long long)max);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS,
			 self->info.max_tasks);
	t = noops(per);
	for (tries = 1;; tries++) {
		stream = weave_test_stream(_metadata, self->fd,
					   DRM_WEAVE_PRIORITY_NORMAL);
		weave_test_gate_open(_metadata, &gate, self->fd);
		ASSERT_EQ(0, weave_test_gated_noop(&gate, self->fd, stream));
		ASSERT_EQ(0, weave_flush(self->fd, stream, NULL));
		for (total = 1; total < max; total += n) {
			n = max - total < per ? max - total : per;
			ASSERT_EQ(0, weave_enqueue(self->fd, stream, t, n, NULL,
						   0, NULL)) {
				TH_LOG("at %llu", (unsigned long long)total);
			}
		}
		busy = weave_enqueue(self->fd, stream, t, 1, NULL, 0, NULL);
		enqueued = weave_test_squery(_metadata, self->fd,
					     stream).enqueued;
		completed = weave_test_squery(_metadata, self->fd,
					      stream).completed;
		if (!weave_test_gate_expired(self->fd, &gate))
			break;
		weave_test_gate_again(_metadata, self->fd, &gate, tries);
		weave_test_finish(_metadata, self->fd, stream);
	}
	EXPECT_EQ(-EBUSY, busy);
	EXPECT_EQ(max, enqueued);
	EXPECT_EQ(0u, completed);
	weave_test_gate_pending(_metadata, self->fd, &gate);
	weave_test_gate_wait(_metadata, self->fd, &gate);
	weave_test_finish(_metadata, self->fd, stream);
	EXPECT_EQ(0, weave_enqueue(self->fd, stream, t, 1, NULL, 0, NULL));
	weave_test_finish(_metadata, self->fd, stream);
	free(t);
}

/* A host write larger than max_staged_bytes can never fit: -E2BIG. */
TEST_F(limits, host_write_over_max_staged_bytes)
{
	uint64_t size = self->info.max_staged_bytes + self->page;
	struct weave_test_batch b;
	uint32_t stream, bo;
	void *data;

	size -= size % self->page;
	if (size > self->info.max_bo_size || size > (256ull << 20))
		SKIP(return, "no buffer larger than max_staged_bytes");
	stream = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, self->fd, size, 0);
	data = calloc(1, size);
	ASSERT_NE(NULL, data);
	weave_test_batch_init(&b);
	weave_test_write_task(&b, bo, 0, size, data);
	EXPECT_EQ(-E2BIG, weave_test_submit(self->fd, stream, &b));
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd, stream).enqueued);
	free(data);
}

/* Unexecuted host writes fill max_staged_bytes; then -EBUSY until flushed. */
TEST_F_TIMEOUT(limits, max_staged_bytes, 120)
{
	uint64_t max = self->info.max_staged_bytes, chunk, n, i;
	uint32_t stream, bo, parts;
	struct weave_test_batch b;
	void *data;

	parts = self->info.max_tasks > 8 ? 8 : self->info.max_tasks - 1;
	if (!parts)
		SKIP(return, "a threshold of one executes every write");
	chunk = (max + parts - 1) / parts;
	chunk += self->page - 1;
	chunk -= chunk % self->page;
	if (chunk > self->info.max_bo_size || max > (256ull << 20))
		SKIP(return, "max_staged_bytes too large to fill");
	n = max / chunk;
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS,
			 self->info.max_tasks);
	stream = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, self->fd, chunk, 0);
	data = calloc(1, chunk);
	ASSERT_NE(NULL, data);
	weave_test_batch_init(&b);
	for (i = 0; i < n; i++) {
		weave_test_write_task(&b, bo, 0, chunk, data);
		ASSERT_EQ(0, weave_test_submit(self->fd, stream, &b));
	}
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd, stream).executed);
	weave_test_write_task(&b, bo, 0, chunk, data);
	EXPECT_EQ(-EBUSY, weave_test_submit(self->fd, stream, &b));
	weave_test_finish(_metadata, self->fd, stream);
	weave_test_write_task(&b, bo, 0, chunk, data);
	EXPECT_EQ(0, weave_test_submit(self->fd, stream, &b));
	weave_test_finish(_metadata, self->fd, stream);
	free(data);
}

/* A cgroup2 hierarchy of the test's own, mounted at CG_ROOT. */
#define CG_ROOT		"/tmp/weave-cgroup2"
#define CG_CHILD	CG_ROOT "/weave-memcg"

static int cg_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * What the kernel keeps for a client is charged to the caller's memory
 * cgroup.  A host write's staging, 32 MiB, fails with -ENOMEM in a child
 * whose cgroup may hold 16 MiB, and the same enqueue on the same file
 * succeeds in the parent, outside that cgroup.  The buffer and the data
 * are allocated before the child joins the cgroup, so they are charged
 * elsewhere.
 */
TEST_F_TIMEOUT(limits, staging_charged_to_memcg, 120)
{
	const uint64_t size = 32ull << 20;
	struct drm_weave_binding bind;
	struct drm_weave_task task;
	uint32_t stream, bo, *data;
	char pid[32];
	int status;
	pid_t child;

	ASSERT_LE(size, self->info.max_staged_bytes);
	ASSERT_LE(size, self->info.max_bo_size);
	mkdir(CG_ROOT, 0755);
	if (access(CG_ROOT "/cgroup.controllers", F_OK))
		ASSERT_EQ(0, mount("none", CG_ROOT, "cgroup2", 0, NULL)) {
			TH_LOG("mount cgroup2: %s", strerror(errno));
		}
	ASSERT_EQ(0, cg_write(CG_ROOT "/cgroup.subtree_control", "+memory"));
	ASSERT_TRUE(!mkdir(CG_CHILD, 0755) || errno == EEXIST);
	ASSERT_EQ(0, cg_write(CG_CHILD "/memory.max", "16777216"));

	stream = weave_test_stream(_metadata, self->fd,
				   DRM_WEAVE_PRIORITY_NORMAL);
	bo = weave_test_bo(_metadata, self->fd, size, 0);
	data = malloc(size);
	ASSERT_NE(NULL, data);
	memset(data, 0x3e, size);
	bind = weave_binding(bo, DRM_WEAVE_ACCESS_WRITE, 0, size);
	weave_task_host_write(&task, &bind, data);

	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		int ret;

		snprintf(pid, sizeof(pid), "%d", getpid());
		if (cg_write(CG_CHILD "/cgroup.procs", pid))
			_exit(100);
		ret = weave_enqueue(self->fd, stream, &task, 1, NULL, 0, NULL);
		_exit(ret == -ENOMEM ? 0 : ret ? -ret : 101);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("in the small cgroup the enqueue %s",
		       WEXITSTATUS(status) == 101 ? "succeeded" :
		       WEXITSTATUS(status) == 100 ? "could not start" :
		       strerror(WEXITSTATUS(status)));
	}
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd, stream).enqueued);
	EXPECT_EQ(0u, weave_test_client_usage(_metadata, self->fd).staged_bytes);
	EXPECT_EQ(0, rmdir(CG_CHILD));

	/* Outside the cgroup the same enqueue goes through. */
	ASSERT_EQ(0, weave_enqueue(self->fd, stream, &task, 1, NULL, 0, NULL));
	weave_test_finish(_metadata, self->fd, stream);
	weave_test_expect_words(_metadata, self->fd, bo, size, data[0]);
	free(data);
	umount(CG_ROOT);
}

TEST_HARNESS_MAIN
