// SPDX-License-Identifier: GPL-2.0
/*
 * weave: what a client's buffers may take of the machine: the quota, pages
 * pinned only while used, and the memory cgroup that pays for them.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weave_test.h"

#define MIB		(1024ull * 1024)

/* Pinned memory that unrelated activity may add while a test measures. */
#define SLACK_KB	(8 * 1024)

/* The hostile client's memory cgroup limit, and its buffers' size. */
#define CG_LIMIT	(64 * MIB)
#define CG_BO		(16 * MIB)
#define CG_BOS		8

/* What the process outside the group allocates and touches. */
#define OUTSIDER	(256 * MIB)

WEAVE_TEST_FIXTURE(memory, 6u)

/* A field of /proc/meminfo, in kB; -1 if it has none by @name. */
static long long meminfo_kb(const char *name)
{
	size_t len = strlen(name);
	long long kb = -1;
	char line[256];
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':') {
			kb = strtoll(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

/*
 * The kernel log, from its end: what the kernel logs from now on.  Not
 * /proc/vmstat's oom_kill, which kernels without VM event counters (the
 * debug kernel) lack.
 */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The records of the log @fd that contain @needle, up to its end now. */
static int kmsg_count(int fd, const char *needle)
{
	char rec[8192];
	ssize_t n;
	int found = 0;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: go on */
		if (n <= 0)
			break;
		rec[n] = 0;
		found += !!strstr(rec, needle);
	}
	return found;
}

static struct drm_weave_client_usage usage(struct __test_metadata *_metadata,
					   int fd)
{
	return weave_test_client_usage(_metadata, fd);
}

/* Fills the first @size bytes of a buffer with @pattern on @stream. */
static int fill(int fd, uint32_t stream, uint32_t bo, uint64_t size,
		uint32_t pattern, const struct drm_weave_sync *in, uint32_t nin)
{
	struct drm_weave_binding bind = weave_binding(bo, DRM_WEAVE_ACCESS_WRITE,
						      0, size);
	struct drm_weave_task task;

	weave_task_launch(&task, DRM_WEAVE_KERNEL_FILL, &bind, 1, &pattern,
			  sizeof(pattern));
	return weave_enqueue(fd, stream, &task, 1, in, nin, NULL);
}

/* The defaults the VM loads weave.ko with, reported as documented. */
TEST_F(memory, limits_reported)
{
	long long total_kb = meminfo_kb("MemTotal");
	uint64_t pages;

	ASSERT_LT(0, total_kb);
	pages = total_kb * 1024 / self->page;
	EXPECT_EQ(pages / 4 * self->page, self->info.max_client_bo_bytes);
	EXPECT_EQ(4096u, self->info.max_client_bos);
	EXPECT_EQ(0u, self->info.pad1);
}

/*
 * Creates buffers of at most max_bo_size until @fd's charges reach
 * max_client_bo_bytes; their handles go to @bos.  Returns how many.
 */
static uint32_t fill_quota(struct __test_metadata *_metadata, int fd,
			   const struct drm_weave_device_info *info,
			   uint32_t *bos)
{
	uint64_t max = info->max_client_bo_bytes, one;
	uint64_t charged = usage(_metadata, fd).bo_bytes;
	uint32_t n = 0;

	while (charged < max) {
		one = info->max_bo_size < max - charged ? info->max_bo_size :
							  max - charged;
		bos[n++] = weave_test_bo(_metadata, fd, one, 0);
		charged += one;
	}
	EXPECT_EQ(max, usage(_metadata, fd).bo_bytes);
	return n;
}

/* Room for the handles of fill_quota(). */
static uint32_t *quota_handles(const struct drm_weave_device_info *info)
{
	return calloc(info->max_client_bo_bytes / info->max_bo_size + 2,
		      sizeof(uint32_t));
}

/*
 * Buffers up to max_client_bo_bytes are charged; past it BO_CREATE fails
 * with -EDQUOT and creates nothing.  Another client is not affected, and a
 * freed buffer's bytes come back.
 */
TEST_F(memory, quota_bytes)
{
	uint64_t max = self->info.max_client_bo_bytes, one;
	uint32_t *bos = quota_handles(&self->info), n, handle;
	struct drm_weave_memory_usage base;
	int other;

	ASSERT_NE(NULL, bos);
	n = fill_quota(_metadata, self->fd, &self->info, bos);
	EXPECT_EQ(n, usage(_metadata, self->fd).bos);

	base = weave_test_usage(_metadata, self->fd);
	one = self->page;
	EXPECT_EQ(-EDQUOT, weave_bo_create(self->fd, &one, 0, &handle));
	EXPECT_EQ(self->page, one);
	weave_test_assert_usage(_metadata, self->fd, &base, 0, 0);
	EXPECT_EQ(max, usage(_metadata, self->fd).bo_bytes);

	/* Another file has its own quota. */
	other = weave_test_open(_metadata);
	handle = weave_test_bo(_metadata, other, self->page, 0);
	EXPECT_EQ(self->page, usage(_metadata, other).bo_bytes);
	close(other);

	/* Freeing a buffer gives its bytes back. */
	weave_test_close_bo(_metadata, self->fd, bos[--n]);
	EXPECT_GT(max, usage(_metadata, self->fd).bo_bytes);
	handle = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_close_bo(_metadata, self->fd, handle);
	while (n)
		weave_test_close_bo(_metadata, self->fd, bos[--n]);
	EXPECT_EQ(0u, usage(_metadata, self->fd).bo_bytes);
	EXPECT_EQ(0u, usage(_metadata, self->fd).bos);
	free(bos);
}

/* Past max_client_bos buffers, however small, BO_CREATE fails too. */
TEST_F_TIMEOUT(memory, quota_count, 180)
{
	uint32_t max = self->info.max_client_bos, n, handle, *bos;
	uint64_t one = self->page;

	ASSERT_LE(max * self->page, self->info.max_client_bo_bytes);
	bos = calloc(max, sizeof(*bos));
	ASSERT_NE(NULL, bos);
	for (n = 0; n < max; n++)
		ASSERT_EQ(0, weave_bo_create(self->fd, &one, 0, &bos[n]));
	EXPECT_EQ(max, usage(_metadata, self->fd).bos);
	EXPECT_EQ(-EDQUOT, weave_bo_create(self->fd, &one, 0, &handle));
	EXPECT_EQ(max, usage(_metadata, self->fd).bos);
	while (n)
		weave_test_close_bo(_metadata, self->fd, bos[--n]);
	free(bos);
}

/* A foreign dma-buf of one page, from vgem; its file is *@vgem. */
static int vgem_dmabuf(struct __test_metadata *_metadata, int *vgem)
{
	struct drm_mode_create_dumb dumb;
	int dmabuf = -1;

	*vgem = weave_test_vgem_open(_metadata);
	memset(&dumb, 0, sizeof(dumb));
	dumb.width = 1024;
	dumb.height = 1;
	dumb.bpp = 32;
	ASSERT_EQ(0, weave_test_ioctl(*vgem, DRM_IOCTL_MODE_CREATE_DUMB, &dumb));
	ASSERT_EQ(0, drmPrimeHandleToFD(*vgem, dumb.handle, DRM_CLOEXEC,
					&dmabuf));
	return dmabuf;
}

/*
 * Importing a foreign dma-buf charges the importer, and is refused with
 * -EDQUOT past the quota, leaving nothing behind; importing a buffer
 * that is charged already charges nothing.
 */
TEST_F(memory, quota_import)
{
	uint64_t max = self->info.max_client_bo_bytes;
	uint32_t *big = quota_handles(&self->info), handle, again, mine, n;
	struct drm_weave_client_usage before, after;
	struct drm_weave_memory_usage base;
	int vgem, dmabuf, own, other;

	dmabuf = vgem_dmabuf(_metadata, &vgem);
	before = usage(_metadata, self->fd);
	ASSERT_EQ(0, weave_bo_import(self->fd, dmabuf, &handle));
	after = usage(_metadata, self->fd);
	EXPECT_EQ(before.bos + 1, after.bos);
	EXPECT_EQ(before.bo_bytes + self->page, after.bo_bytes);
	weave_test_close_bo(_metadata, self->fd, handle);
	EXPECT_EQ(before.bos, usage(_metadata, self->fd).bos);

	/* A weave buffer imported again, here or elsewhere, stays its own. */
	mine = weave_test_bo(_metadata, self->fd, self->page, 0);
	ASSERT_EQ(0, weave_bo_export(self->fd, mine, DRM_CLOEXEC | DRM_RDWR,
				     &own));
	other = weave_test_open(_metadata);
	ASSERT_EQ(0, weave_bo_import(other, own, &again));
	EXPECT_EQ(0u, usage(_metadata, other).bos);
	before = usage(_metadata, self->fd);
	ASSERT_EQ(0, weave_bo_import(self->fd, own, &again));
	EXPECT_EQ(mine, again);
	EXPECT_EQ(before.bos, usage(_metadata, self->fd).bos);
	close(other);

	/* Full: the import fails and no object is left. */
	ASSERT_NE(NULL, big);
	n = fill_quota(_metadata, self->fd, &self->info, big);
	base = weave_test_usage(_metadata, self->fd);
	EXPECT_EQ(-EDQUOT, weave_bo_import(self->fd, dmabuf, &handle));
	weave_test_assert_usage(_metadata, self->fd, &base, 0, 0);
	EXPECT_EQ(max, usage(_metadata, self->fd).bo_bytes);

	/* Room again: the same dma-buf imports. */
	weave_test_close_bo(_metadata, self->fd, big[--n]);
	ASSERT_EQ(0, weave_bo_import(self->fd, dmabuf, &handle));
	weave_test_close_bo(_metadata, self->fd, handle);
	while (n)
		weave_test_close_bo(_metadata, self->fd, big[--n]);
	free(big);
	weave_test_close_bo(_metadata, self->fd, mine);
	close(own);
	close(dmabuf);
	close(vgem);
}

/* A buffer stays charged while it lives, with no handle left to it. */
TEST_F(memory, charge_follows_the_buffer)
{
	uint32_t bo = weave_test_bo(_metadata, self->fd, 4 * self->page, 0);
	int dmabuf;

	ASSERT_EQ(0, weave_bo_export(self->fd, bo, DRM_CLOEXEC | DRM_RDWR,
				     &dmabuf));
	weave_test_close_bo(_metadata, self->fd, bo);
	EXPECT_EQ(1u, usage(_metadata, self->fd).bos);
	EXPECT_EQ(4 * self->page, usage(_metadata, self->fd).bo_bytes);
	close(dmabuf);
	EXPECT_EQ(0u, usage(_metadata, self->fd).bos);
	EXPECT_EQ(0u, usage(_metadata, self->fd).bo_bytes);
}

/*
 * A buffer's pages, all of them, are pinned (Unevictable) while a task
 * that writes some of it is queued, and no longer once its job is done;
 * what it wrote stays, and READ of the idle buffer pins it only while it
 * copies.
 */
TEST_F(memory, pinned_only_while_used)
{
	uint64_t size = 64 * MIB, part = self->page;
	uint32_t stream = weave_test_stream(_metadata, self->fd,
					    DRM_WEAVE_PRIORITY_NORMAL);
	long long base_kb, held_kb, idle_kb;
	struct weave_test_gate gate;
	struct drm_weave_sync in;
	uint32_t words[4], bo;
	int tries;

	/*
	 * The pin at ENQUEUE allocates the pages, which is what puts them
	 * on the unevictable list (pages that exist already stay where they
	 * are), and is slow on a debug kernel: a try whose vgem gate expired
	 * is made again, with a new buffer.
	 */
	base_kb = meminfo_kb("Unevictable");
	ASSERT_LE(0, base_kb);
	for (tries = 1;; tries++) {
		bo = weave_test_bo(_metadata, self->fd, size, 0);
		weave_test_gate_open(_metadata, &gate, self->fd);
		in = weave_sync(gate.syncobj, 0);
		ASSERT_EQ(0, fill(self->fd, stream, bo, part, 0x5eed, &in, 1));
		ASSERT_EQ(0, weave_flush(self->fd, stream, NULL));
		held_kb = meminfo_kb("Unevictable");
		if (!weave_test_gate_expired(self->fd, &gate))
			break;
		weave_test_gate_again(_metadata, self->fd, &gate, tries);
		weave_test_wait(_metadata, self->fd, stream);
		weave_test_close_bo(_metadata, self->fd, bo);
		weave_test_client_idle(_metadata, self->fd);
	}
	weave_test_gate_pending(_metadata, self->fd, &gate);
	EXPECT_LE(base_kb + (long long)(size / 1024) - SLACK_KB, held_kb);

	weave_test_gate_wait(_metadata, self->fd, &gate);
	weave_test_wait(_metadata, self->fd, stream);
	weave_test_client_idle(_metadata, self->fd);
	idle_kb = meminfo_kb("Unevictable");
	EXPECT_GE(base_kb + SLACK_KB, idle_kb) {
		TH_LOG("Unevictable %lld kB before, %lld kB while queued, %lld kB idle",
		       base_kb, held_kb, idle_kb);
	}

	ASSERT_EQ(0, weave_read(self->fd, bo, part - sizeof(words),
				sizeof(words), words,
				weave_timeout_ns(WEAVE_TEST_WAIT_NS),
				NULL, NULL, NULL, NULL));
	EXPECT_EQ(0x5eedu, words[0]);
	EXPECT_EQ(0x5eedu, words[3]);
	EXPECT_GE(base_kb + SLACK_KB, meminfo_kb("Unevictable"));
	weave_test_gate_close(&gate);
	weave_test_close_bo(_metadata, self->fd, bo);
}

/* Where a cgroup v2 hierarchy is mounted, or was mounted by the test. */
struct cgroup {
	char root[64];
	char path[128];
	int mounted;
};

/* A counter of a "key value" file of the group, -1 if none. */
static long long cg_read(const struct cgroup *cg, const char *file,
			 const char *key)
{
	size_t len = strlen(key);
	long long v = -1;
	char path[256], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", cg->path, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ' ')
			v = strtoll(line + len + 1, NULL, 10);
	fclose(f);
	return v;
}

/* Makes a memory cgroup limited to @limit bytes, mounting cgroup2 if need be. */
static void cg_make(struct __test_metadata *_metadata, struct cgroup *cg,
		    uint64_t limit)
{
	char value[32];
	struct stat st;

	memset(cg, 0, sizeof(*cg));
	snprintf(cg->root, sizeof(cg->root), "/sys/fs/cgroup");
	snprintf(cg->path, sizeof(cg->path), "%s/cgroup.controllers",
		 cg->root);
	if (stat(cg->path, &st)) {
		snprintf(cg->root, sizeof(cg->root), "/tmp/weave-cg-%d",
			 getpid());
		ASSERT_EQ(0, mkdir(cg->root, 0700));
		ASSERT_EQ(0, mount("none", cg->root, "cgroup2", 0, NULL)) {
			TH_LOG("mount cgroup2: %s (the test needs CONFIG_MEMCG)",
			       strerror(errno));
		}
		cg->mounted = 1;
	}
	ASSERT_EQ(0, weave_test_write_file(cg->root, "/cgroup.subtree_control",
					   "+memory"));
	snprintf(cg->path, sizeof(cg->path), "%s/weave-memory-%d", cg->root,
		 getpid());
	ASSERT_EQ(0, mkdir(cg->path, 0700));
	snprintf(value, sizeof(value), "%llu", (unsigned long long)limit);
	ASSERT_EQ(0, weave_test_write_file(cg->path, "/memory.max", value));
	/* No swap to hide in, where there is swap accounting. */
	weave_test_write_file(cg->path, "/memory.swap.max", "0");
}

static void cg_remove(struct cgroup *cg)
{
	rmdir(cg->path);
	if (cg->mounted) {
		umount(cg->root);
		rmdir(cg->root);
	}
}

/* Why the hostile child stopped, through its exit status. */
enum hostile_end {
	HOSTILE_ENOMEM = 0,	/* ENQUEUE failed with -ENOMEM, as it must */
	HOSTILE_JOIN = 10,	/* could not join the group, or lock its memory */
	HOSTILE_SETUP,		/* could not open, create or make a stream */
	HOSTILE_NO_LIMIT,	/* every buffer was made resident */
	HOSTILE_FIRST,		/* the very first buffer did not fit */
	HOSTILE_OTHER_ERR,	/* ENQUEUE failed, not with -ENOMEM */
	HOSTILE_LEFT_QUEUED,	/* the failed ENQUEUE queued something */
};

/* Touches @n bytes of stack, so that using them later faults nothing in. */
static void __attribute__((noinline)) touch_stack(size_t n)
{
	volatile char buf[64 * 1024];
	size_t i;

	for (i = 0; i < n && i < sizeof(buf); i += 4096)
		buf[i] = 0;
}

/*
 * In the group: makes buffers resident one by one, each by a FILL that
 * pins it, until the group's limit refuses one.  Its own memory is
 * resident and locked first: a group at its limit with nothing it can
 * reclaim (no swap) OOM-kills the next task of the group that faults a
 * page in, which is the cgroup's policy, not weave's; what is tested here
 * is that weave's own allocation fails with -ENOMEM and kills no one.
 */
static int hostile(const struct cgroup *cg)
{
	struct drm_weave_device_info info;
	struct drm_weave_client_usage u;
	uint32_t stream, bo[CG_BOS];
	char pid[32];
	int fd, i, ret;

	snprintf(pid, sizeof(pid), "%d", getpid());
	if (weave_test_write_file(cg->path, "/cgroup.procs", pid))
		return HOSTILE_JOIN;
	touch_stack(64 * 1024);
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		return HOSTILE_JOIN;
	fd = weave_device_open(0);
	memset(&info, 0, sizeof(info));
	if (fd < 0 || weave_query_device_info(fd, &info) ||
	    weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &stream))
		return HOSTILE_SETUP;
	for (i = 0; i < CG_BOS; i++) {
		uint64_t size = CG_BO;

		if (weave_bo_create(fd, &size, 0, &bo[i]))
			return HOSTILE_SETUP;
	}
	for (i = 0; i < CG_BOS; i++) {
		/* A page written makes the whole buffer resident. */
		ret = fill(fd, stream, bo[i], sysconf(_SC_PAGESIZE), i, NULL, 0);
		if (ret)
			break;
		/* One job: as long as it may take, however slow the host. */
		if (weave_flush(fd, stream, NULL) ||
		    weave_wait(fd, stream,
			       weave_timeout_ns(weave_test_work_ns(&info, 1))))
			return HOSTILE_SETUP;
	}
	if (i == CG_BOS)
		return HOSTILE_NO_LIMIT;
	if (!i)
		return HOSTILE_FIRST;
	if (ret != -ENOMEM)
		return HOSTILE_OTHER_ERR;
	memset(&u, 0xff, sizeof(u));
	if (weave_query_client_usage(fd, &u) || u.pending_tasks)
		return HOSTILE_LEFT_QUEUED;
	close(fd);
	return HOSTILE_ENOMEM;
}

/*
 * A client in a memory cgroup that tries to make more buffer memory
 * resident than its limit gets -ENOMEM and is not killed; a process
 * outside the group then allocates and touches 256 MiB, and the OOM
 * killer kills no one.
 */
TEST_F_TIMEOUT(memory, cgroup_stops_the_client, WEAVE_TEST_SLOW_S)
{
	int kmsg = kmsg_open(), status;
	struct cgroup cg;
	pid_t pid;
	char *mem;
	size_t i;

	ASSERT_LE(0, kmsg);
	cg_make(_metadata, &cg, CG_LIMIT);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(hostile(&cg));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status)) {
		TH_LOG("the client was killed by signal %d",
		       WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	}
	EXPECT_EQ(HOSTILE_ENOMEM, WEXITSTATUS(status));
	EXPECT_EQ(0, cg_read(&cg, "memory.events", "oom_kill"));
	EXPECT_LT(0, cg_read(&cg, "memory.events", "max"));

	mem = mmap(NULL, OUTSIDER, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	for (i = 0; i < OUTSIDER; i += self->page)
		mem[i] = 1;
	munmap(mem, OUTSIDER);
	/* Each kill logs "oom-kill:constraint=...". */
	EXPECT_EQ(0, kmsg_count(kmsg, "oom-kill:"));
	close(kmsg);
	cg_remove(&cg);
}

/* How the job of a quota round runs: see quota_round(). */
static const char *const quota_paths[] = {
	"at its push", "in run_job, behind a gate", "on the worker",
};

/*
 * One round of quota_back_once_waited_and_closed: work on *@bo, of
 * @size bytes, that its job runs by @path (0: a small job, at its push; 1:
 * the same behind a gate, opened once it is flushed, in run_job; 2: behind
 * a DELAY, on the worker), waited for with WAIT, or of its seqno if
 * @seqno; then *@bo closed and remade at once, which needs its bytes.
 * The path only varies the test: the quota must hold on each.
 */
static void quota_round(struct __test_metadata *_metadata, int fd,
			uint32_t stream, uint32_t *bo, uint64_t size,
			uint32_t path, int seqno, uint64_t max)
{
	struct weave_test_gate gate;
	struct weave_test_batch b;
	struct drm_weave_sync in = { 0 };
	uint64_t one = size, seq = 0;
	int ret;

	weave_test_batch_init(&b);
	if (path == 2)
		weave_test_delay(&b, 1);
	weave_test_fill_task(&b, *bo, 0, 4, path);
	if (path == 1) {
		weave_test_gate_open(_metadata, &gate, fd);
		in = weave_sync(gate.syncobj, 0);
	}
	ASSERT_EQ(0, weave_enqueue(fd, stream, b.task, b.n, &in,
				   path == 1, &seq));
	ASSERT_EQ(0, weave_flush(fd, stream, NULL));
	if (path == 1) {
		/*
		 * Expired by itself (vgem's 10 s) on a slow machine, the gate
		 * let the job run earlier, which the quota must not mind.
		 */
		ret = weave_test_gate_try_signal(&gate);
		if (ret != -ETIMEDOUT)
			ASSERT_EQ(0, ret);
		ASSERT_EQ(0, drmSyncobjWait(fd, &gate.syncobj, 1,
					    weave_timeout_ns(WEAVE_TEST_WAIT_NS),
					    0, NULL));
		drmSyncobjDestroy(fd, gate.syncobj);
		weave_test_gate_close(&gate);
	}
	if (seqno) {
		ASSERT_EQ(0, weave_wait_seqno(fd, stream, seq,
					      weave_timeout_ns(WEAVE_TEST_WAIT_NS)));
	} else {
		weave_test_wait(_metadata, fd, stream);
	}

	weave_test_close_bo(_metadata, fd, *bo);
	EXPECT_EQ(max - size, usage(_metadata, fd).bo_bytes) {
		TH_LOG("a closed buffer's bytes were still charged, its job run %s",
		       quota_paths[path]);
	}
	ret = weave_bo_create(fd, &one, 0, bo);
	ASSERT_EQ(0, ret) {
		TH_LOG("a buffer of %llu bytes after one closed: %s, its job run %s",
		       (unsigned long long)size, strerror(-ret),
		       quota_paths[path]);
	}
	EXPECT_EQ(max, usage(_metadata, fd).bo_bytes);
}

/*
 * Once the work on a buffer has been waited for and its handle closed, its
 * bytes are off the quota: with the quota full, the next buffer of the same
 * size is made at once, however its job ran (at its push, in run_job, on
 * the worker) and however the wait was told (WAIT, or of a seqno).  Each
 * round closes and creates right after its wait, and nothing waits for
 * time to pass: the job's buffers go when it completes, not when the
 * scheduler frees it.  Two rounds with buffers of max_bo_size (at the
 * push, then on the worker), then many with buffers of a page.  Last in
 * the suite: pinning buffers of max_bo_size is slow on a debug kernel.
 */
TEST_F_TIMEOUT(memory, quota_back_once_waited_and_closed, 300)
{
	uint64_t max = self->info.max_client_bo_bytes, size;
	uint32_t *bos = quota_handles(&self->info), n, bo, round, rounds, path;
	uint32_t stream = weave_test_stream(_metadata, self->fd,
					    DRM_WEAVE_PRIORITY_NORMAL);
	int big;

	ASSERT_NE(NULL, bos);
	ASSERT_LE(self->info.max_bo_size, max);
	for (big = 1; big >= 0; big--) {
		size = big ? self->info.max_bo_size : self->page;
		rounds = big ? 2 : 60;
		bo = weave_test_bo(_metadata, self->fd, size, 0);
		n = fill_quota(_metadata, self->fd, &self->info, bos);
		for (round = 0; round < rounds; round++) {
			/*
			 * Not behind a gate with a large buffer: its pin, at
			 * ENQUEUE, could outlast the gate's fence on a slow
			 * kernel (see weave_test_gate_open()).
			 */
			path = big && round % 3 == 1 ? 2 : round % 3;
			quota_round(_metadata, self->fd, stream, &bo, size,
				    path, round / 3 % 2, max);
		}
		weave_test_close_bo(_metadata, self->fd, bo);
		while (n)
			weave_test_close_bo(_metadata, self->fd, bos[--n]);
	}
	free(bos);
}

TEST_HARNESS_MAIN
