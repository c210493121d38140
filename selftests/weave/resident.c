// SPDX-License-Identifier: GPL-2.0
/*
 * weave: the bytes of buffers made resident, bounded per user through any
 * number of files and for the whole machine, so that other processes keep
 * their memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weave_test.h"
#include "weave_test_debugfs.h"
#include "weave_test_gate.h"

#define MIB		(1024ull * 1024)

/* The files one hostile user opens. */
#define FILES		16

/* What the process outside weave allocates and touches. */
#define OUTSIDER	(256 * MIB)

/* The users the tests run as; none owns anything else in the guest. */
#define UID_A		60001
#define UID_B		60002

#define PARAMS		"/sys/module/weave/parameters"

/* What a child tells the test, in memory shared with it. */
struct report {
	int line;
	char msg[200];
	/* Its user's resident bytes, read from its last file. */
	uint64_t user_resident;
	/* The errno of the call that went past a limit, 0 if none did. */
	int err;
	/* Tasks queued on that file before and after the refused call. */
	uint64_t queued_before, queued_after;
	/* Buffers whose FILL was queued, over all its files. */
	unsigned int resident_bos;
	/* vgem's node, opened by root for the child. */
	int vgem;
};

/* In a child: record where and why it failed, and return nonzero. */
#define CHILD_CHECK(r, cond, ...) do {					\
	if (!(cond)) {							\
		(r)->line = __LINE__;					\
		snprintf((r)->msg, sizeof((r)->msg), __VA_ARGS__);	\
		return 1;						\
	}								\
} while (0)

FIXTURE(resident) {
	WEAVE_TEST_FILE_FIELDS;
	char node[64];
	mode_t mode;
	struct report *r;
	pid_t holders[2];
};

/* The render node of @fd, by its /proc/self/fd link. */
static int node_path(int fd, char *path, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, len - 1);
	if (n <= 0)
		return -1;
	path[n] = 0;
	return 0;
}

static int write_param(const char *name, unsigned long long v)
{
	char path[128], text[32];
	int fd, len, ret;

	snprintf(path, sizeof(path), PARAMS "/%s", name);
	len = snprintf(text, sizeof(text), "%llu", v);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = write(fd, text, len) == len ? 0 : -errno;
	close(fd);
	return ret;
}

static unsigned long long read_param(const char *name)
{
	char path[128], text[32] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), PARAMS "/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	return n > 0 ? strtoull(text, NULL, 0) : 0;
}

FIXTURE_SETUP(resident)
{
	struct stat st;

	WEAVE_TEST_FILE_SETUP();
	ASSERT_LE(12u, self->info.uapi_minor);
	/* A render node is open to every local user, as udev makes it. */
	ASSERT_EQ(0, node_path(self->fd, self->node, sizeof(self->node)));
	ASSERT_EQ(0, stat(self->node, &st));
	self->mode = st.st_mode & 07777;
	ASSERT_EQ(0, chmod(self->node, 0666));
	self->r = mmap(NULL, 2 * sizeof(*self->r), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->r);
	memset(self->r, 0, 2 * sizeof(*self->r));
	self->holders[0] = self->holders[1] = 0;
}

FIXTURE_TEARDOWN(resident)
{
	int i;

	for (i = 0; i < 2; i++)
		if (self->holders[i] > 0) {
			kill(self->holders[i], SIGKILL);
			waitpid(self->holders[i], NULL, 0);
		}
	write_param("max_user_resident_bytes", 0);
	write_param("max_resident_bytes", 0);
	chmod(self->node, self->mode);
	munmap(self->r, 2 * sizeof(*self->r));
	close(self->fd);
}

/* Drops every privilege of root for those of @uid (its gid too). */
static int become(uid_t uid)
{
	return setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	       setresuid(uid, uid, uid) ? -1 : 0;
}

/*
 * As one user, through @files files: buffers of @bo bytes, each with one
 * FILL queued and never flushed, until a call is refused past a limit of
 * resident bytes.  A buffer that a file's own quota refuses moves on
 * to the next file.
 */
static int pin_all(struct report *r, unsigned int files, uint64_t bo)
{
	struct drm_weave_client_usage u;
	struct weave_test_batch b;
	unsigned int i;
	int fd = -1;

	for (i = 0; i < files && !r->err; i++) {
		uint32_t stream = 0;

		fd = weave_device_open(0);
		CHILD_CHECK(r, fd >= 0, "open file %u: %d", i, fd);
		CHILD_CHECK(r, !weave_stream_create(fd, 0, &stream),
			    "stream of file %u", i);
		for (;;) {
			uint64_t size = bo;
			uint32_t h = 0;
			int ret;

			ret = weave_bo_create(fd, &size, 0, &h);
			if (ret == -EDQUOT)
				break;
			CHILD_CHECK(r, !ret, "BO_CREATE: %d", ret);
			CHILD_CHECK(r, !weave_query_client_usage(fd, &u), "usage");
			r->queued_before = u.queued_tasks;
			weave_test_batch_init(&b);
			weave_test_fill_task(&b, h, 0, bo, 0x5a5a5a5a);
			ret = weave_test_submit(fd, stream, &b);
			if (ret) {
				r->err = -ret;
				CHILD_CHECK(r, !weave_query_client_usage(fd, &u),
					    "usage");
				r->queued_after = u.queued_tasks;
				break;
			}
			r->resident_bos++;
		}
	}
	CHILD_CHECK(r, !weave_query_client_usage(fd, &u), "usage");
	r->user_resident = u.user_resident_bytes;
	return 0;
}

/*
 * Forks a child that becomes @uid and pins all it can through @files
 * files, then keeps it all until killed; returns once the child has
 * reported, with its pid, or -1 if it failed.
 */
static pid_t hold_as(struct report *r, uid_t uid, unsigned int files,
		     uint64_t bo)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(p[0]);
		if (become(uid)) {
			r->line = __LINE__;
			snprintf(r->msg, sizeof(r->msg), "setresuid: %d", errno);
			_exit(1);
		}
		if (pin_all(r, files, bo))
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1) {
		close(p[0]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	close(p[0]);
	return pid;
}

/* A process outside weave allocates and touches @size bytes. */
static void outsider(struct __test_metadata *_metadata, size_t size)
{
	int status = 0;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char *p = malloc(size);

		if (!p)
			_exit(2);
		memset(p, 0x11, size);
		_exit(p[size - 1] == 0x11 ? 0 : 3);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	/* An OOM kill shows as SIGKILL. */
	ASSERT_TRUE(WIFEXITED(status)) {
		TH_LOG("the outsider died of signal %d", WTERMSIG(status));
	}
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/* The holder is alive: nothing killed it meanwhile. */
static void assert_alive(struct __test_metadata *_metadata, pid_t pid)
{
	ASSERT_EQ(0, waitpid(pid, NULL, WNOHANG));
	ASSERT_EQ(0, kill(pid, 0));
}

/* Whether debugfs's weave_resident lists user @uid. */
static int user_listed(struct __test_metadata *_metadata, int fd, uid_t uid)
{
	static char text[TEXT_MAX];
	char key[32];
	struct node nd;
	long long v;

	dbg_node(_metadata, fd, &nd);
	dbg(_metadata, &nd, 0, "weave_resident", text);
	snprintf(key, sizeof(key), "uid_%u", uid);
	return !dbg_kv(text, key, &v);
}

/* Kills a holder, and waits until it is reaped: its files are closed. */
static void reap(struct __test_metadata *_metadata, pid_t *pid)
{
	ASSERT_EQ(0, kill(*pid, SIGKILL));
	ASSERT_EQ(*pid, waitpid(*pid, NULL, 0));
	*pid = 0;
}

/*
 * One user, through 16 files each with a quota of its own, pins no more
 * than the user's limit: the call past it is refused with -EDQUOT and
 * queues nothing.  Another process then allocates and touches 256 MiB,
 * and nothing is killed.  The limits are the defaults.
 */
TEST_F_TIMEOUT(resident, one_user_sixteen_files, 600)
{
	uint64_t max_user = self->info.max_user_resident_bytes;
	uint64_t bo = 64 * MIB;
	struct report *r = self->r;

	ASSERT_NE(0u, max_user);
	ASSERT_LE(max_user, self->info.max_resident_bytes);
	/* The files' quotas together are far above the user's limit. */
	ASSERT_LT(2 * max_user, FILES * self->info.max_client_bo_bytes);
	if (bo > self->info.max_bo_size)
		bo = self->info.max_bo_size;

	self->holders[0] = hold_as(r, UID_A, FILES, bo);
	ASSERT_LT(0, self->holders[0]) {
		TH_LOG("holder failed at line %d: %s", r->line, r->msg);
	}
	ASSERT_EQ(EDQUOT, r->err);
	ASSERT_EQ(r->queued_before, r->queued_after);
	ASSERT_EQ(r->resident_bos * bo, r->user_resident);
	ASSERT_LE(r->user_resident, max_user);
	ASSERT_LT(max_user - bo, r->user_resident);
	ASSERT_TRUE(user_listed(_metadata, self->fd, UID_A));

	outsider(_metadata, OUTSIDER);
	assert_alive(_metadata, self->holders[0]);

	/* Its buffers freed with its files, nothing is charged to the user. */
	reap(_metadata, &self->holders[0]);
	ASSERT_FALSE(user_listed(_metadata, self->fd, UID_A));
}

/*
 * Two users, each below its own limit, together reach the machine's: the
 * second is refused with -ENOMEM, and the total stays at the limit.
 */
TEST_F_TIMEOUT(resident, two_users_global_cap, 600)
{
	struct drm_weave_memory_usage m;
	uint64_t bo = 16 * MIB;

	ASSERT_EQ(0, write_param("max_user_resident_bytes", 6 * bo));
	ASSERT_EQ(0, write_param("max_resident_bytes", 10 * bo));
	ASSERT_EQ(6 * bo, read_param("max_user_resident_bytes"));
	ASSERT_EQ(10 * bo,
		  weave_test_info(_metadata, self->fd).max_resident_bytes);

	self->holders[0] = hold_as(&self->r[0], UID_A, FILES, bo);
	ASSERT_LT(0, self->holders[0]) {
		TH_LOG("A failed at line %d: %s", self->r[0].line,
		       self->r[0].msg);
	}
	ASSERT_EQ(EDQUOT, self->r[0].err);
	ASSERT_EQ(6 * bo, self->r[0].user_resident);

	self->holders[1] = hold_as(&self->r[1], UID_B, FILES, bo);
	ASSERT_LT(0, self->holders[1]) {
		TH_LOG("B failed at line %d: %s", self->r[1].line,
		       self->r[1].msg);
	}
	ASSERT_EQ(ENOMEM, self->r[1].err);
	ASSERT_EQ(self->r[1].queued_before, self->r[1].queued_after);
	/* Others (root's last jobs) may hold some too: at most 4 buffers. */
	ASSERT_LE(self->r[1].user_resident, 4 * bo);
	m = weave_test_usage(_metadata, self->fd);
	ASSERT_LE(m.resident_bytes, 10 * bo);
	ASSERT_LE(10 * bo - self->r[1].user_resident, m.resident_bytes);

	outsider(_metadata, OUTSIDER);
	assert_alive(_metadata, self->holders[0]);
	assert_alive(_metadata, self->holders[1]);

	/* A freed, B may pin again. */
	reap(_metadata, &self->holders[0]);
	memset(&self->r[0], 0, sizeof(self->r[0]));
	self->holders[0] = hold_as(&self->r[0], UID_B, 1, bo);
	ASSERT_LT(0, self->holders[0]);
	ASSERT_LT(self->r[1].user_resident, self->r[0].user_resident);
}

/* The resident bytes of the user of @fd, or -1. */
static long long user_bytes(int fd)
{
	struct drm_weave_client_usage u;

	if (weave_query_client_usage(fd, &u))
		return -1;
	return u.user_resident_bytes;
}

/*
 * A child as @uid that maps, forks, unmaps and frees a buffer, checking
 * its charge, then maps one past its limit.
 */
static int map_as(struct report *r, uid_t uid, uint64_t bo)
{
	int fd, status = 0;
	uint32_t h = 0;
	uint64_t size = bo;
	void *p = NULL, *q = NULL;
	pid_t pid;

	CHILD_CHECK(r, !become(uid), "setresuid: %d", errno);
	fd = weave_device_open(0);
	CHILD_CHECK(r, fd >= 0, "open: %d", fd);
	CHILD_CHECK(r, !weave_bo_create(fd, &size, 0, &h), "BO_CREATE");
	CHILD_CHECK(r, user_bytes(fd) == 0, "charged before: %lld",
		    user_bytes(fd));
	CHILD_CHECK(r, !weave_bo_mmap(fd, h, bo, PROT_READ | PROT_WRITE, &p),
		    "mmap");
	CHILD_CHECK(r, user_bytes(fd) == (long long)bo, "mapped: %lld",
		    user_bytes(fd));
	/* A second mapping, and a fork's copy, charge nothing more. */
	CHILD_CHECK(r, !weave_bo_mmap(fd, h, bo, PROT_READ, &q), "mmap 2");
	pid = fork();
	CHILD_CHECK(r, pid >= 0, "fork");
	if (!pid)
		_exit(user_bytes(fd) == (long long)bo &&
		      ((char *)p)[bo - 1] == 0 ? 0 : 1);
	CHILD_CHECK(r, waitpid(pid, &status, 0) == pid && !status,
		    "the fork saw another charge: %d", status);
	CHILD_CHECK(r, !weave_bo_munmap(q, bo), "munmap 2");
	CHILD_CHECK(r, !weave_bo_munmap(p, bo), "munmap");
	/* Unmapped, its pages are still there: charged until it is freed. */
	CHILD_CHECK(r, user_bytes(fd) == (long long)bo, "unmapped: %lld",
		    user_bytes(fd));
	CHILD_CHECK(r, !weave_bo_close(fd, h), "GEM_CLOSE");
	CHILD_CHECK(r, user_bytes(fd) == 0, "freed: %lld", user_bytes(fd));

	/* Past the user's limit, mmap() maps nothing. */
	size = 4 * bo;
	CHILD_CHECK(r, !weave_bo_create(fd, &size, 0, &h), "BO_CREATE 2");
	r->err = -weave_bo_mmap(fd, h, 4 * bo, PROT_READ, &p);
	r->user_resident = user_bytes(fd);
	return 0;
}

/* A child as @uid whose buffer a dma-buf importer (vgem) pins. */
static int import_as(struct report *r, uid_t uid, uint64_t bo)
{
	struct drm_weave_client_usage u;
	uint32_t h = 0, vh = 0;
	uint64_t size = bo;
	int fd, vgem = r->vgem, dmabuf = -1;

	CHILD_CHECK(r, !become(uid), "setresuid: %d", errno);
	fd = weave_device_open(0);
	CHILD_CHECK(r, fd >= 0, "open: %d", fd);
	CHILD_CHECK(r, !weave_bo_create(fd, &size, 0, &h), "BO_CREATE");
	CHILD_CHECK(r, !weave_bo_export(fd, h, 0, &dmabuf), "export");
	CHILD_CHECK(r, !drmPrimeFDToHandle(vgem, dmabuf, &vh), "import: %d",
		    errno);
	CHILD_CHECK(r, !weave_query_client_usage(fd, &u), "usage");
	CHILD_CHECK(r, u.user_resident_bytes == bo, "imported: %llu",
		    (unsigned long long)u.user_resident_bytes);
	/* Detached, it stays charged until it is freed. */
	CHILD_CHECK(r, !drmCloseBufferHandle(vgem, vh), "vgem close");
	CHILD_CHECK(r, user_bytes(fd) == (long long)bo, "detached: %lld",
		    user_bytes(fd));
	close(dmabuf);
	CHILD_CHECK(r, !weave_bo_close(fd, h), "GEM_CLOSE");
	CHILD_CHECK(r, user_bytes(fd) == 0, "freed: %lld", user_bytes(fd));

	/* A buffer over the user's limit: the import is refused. */
	size = 4 * bo;
	CHILD_CHECK(r, !weave_bo_create(fd, &size, 0, &h), "BO_CREATE 2");
	CHILD_CHECK(r, !weave_bo_export(fd, h, 0, &dmabuf), "export 2");
	if (drmPrimeFDToHandle(vgem, dmabuf, &vh))
		r->err = errno;
	CHILD_CHECK(r, !weave_query_client_usage(fd, &u), "usage");
	r->user_resident = u.user_resident_bytes;
	return 0;
}

static void run_child(struct __test_metadata *_metadata, struct report *r,
		      int (*fn)(struct report *, uid_t, uint64_t), uint64_t bo)
{
	int status = 0;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(fn(r, UID_A, bo));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status) {
		TH_LOG("failed at line %d: %s", r->line, r->msg);
	}
}

/*
 * A child as @uid, at its limit of resident bytes with two buffers, @bo
 * bytes and 1 MiB, each filled by a job of its own and closed while it
 * runs; once it has waited for them, one ENQUEUE of another file binds
 * two new buffers of the same sizes, at once, @rounds times.  The first
 * job runs behind a DELAY, on the engine's worker, which then lets go of
 * the big buffer (its unpin and free take a while) while the second job
 * completes: the wait returns with that job's release still to come.
 */
static int reenqueue_as(struct report *r, uid_t uid, uint64_t bo,
			unsigned int rounds)
{
	uint64_t sizes[2] = { bo, MIB }, size;
	uint32_t stream[2] = { 0, 0 }, h[2][2];
	struct weave_test_batch b;
	int fd[2], i, j, ret;
	unsigned int round;

	CHILD_CHECK(r, !become(uid), "setresuid: %d", errno);
	for (i = 0; i < 2; i++) {
		fd[i] = weave_device_open(0);
		CHILD_CHECK(r, fd[i] >= 0, "open: %d", fd[i]);
		CHILD_CHECK(r, !weave_stream_create(fd[i], 0, &stream[i]),
			    "stream");
	}
	for (round = 0; round < rounds; round++) {
		/* In both files: the one not pinning holds them uncharged. */
		for (i = 0; i < 2; i++)
			for (j = 0; j < 2; j++) {
				size = sizes[j];
				CHILD_CHECK(r, !weave_bo_create(fd[i], &size, 0,
								&h[i][j]),
					    "BO_CREATE");
			}
		for (j = 0; j < 2; j++) {
			weave_test_batch_init(&b);
			if (!j)
				weave_test_delay(&b, 1);
			weave_test_fill_task(&b, h[0][j], 0, sizes[j], j + 1);
			ret = weave_test_submit(fd[0], stream[0], &b);
			CHILD_CHECK(r, !ret, "ENQUEUE %d: %d", j, ret);
			CHILD_CHECK(r, !weave_flush(fd[0], stream[0], NULL),
				    "FLUSH");
		}
		CHILD_CHECK(r, user_bytes(fd[0]) == (long long)(bo + MIB),
			    "pinned: %lld", user_bytes(fd[0]));
		for (j = 0; j < 2; j++)
			CHILD_CHECK(r, !weave_bo_close(fd[0], h[0][j]),
				    "GEM_CLOSE");
		CHILD_CHECK(r, !weave_wait(fd[0], stream[0],
					   weave_timeout_ns(WEAVE_TEST_WAIT_NS)),
			    "WAIT");

		weave_test_batch_init(&b);
		for (j = 0; j < 2; j++)
			weave_test_fill_task(&b, h[1][j], 0, sizes[j], j + 3);
		ret = weave_test_submit(fd[1], stream[1], &b);
		if (ret) {
			r->err = -ret;
			r->user_resident = user_bytes(fd[1]);
			return 0;
		}
		CHILD_CHECK(r, !weave_flush(fd[1], stream[1], NULL), "FLUSH");
		CHILD_CHECK(r, !weave_wait(fd[1], stream[1],
					   weave_timeout_ns(WEAVE_TEST_WAIT_NS)),
			    "WAIT");
		CHILD_CHECK(r, user_bytes(fd[1]) == (long long)(bo + MIB),
			    "pinned again: %lld", user_bytes(fd[1]));
		for (j = 0; j < 2; j++)
			CHILD_CHECK(r, !weave_bo_close(fd[1], h[1][j]),
				    "GEM_CLOSE");
		/* Waited for, then closed: freed at once. */
		CHILD_CHECK(r, user_bytes(fd[1]) == 0, "freed: %lld",
			    user_bytes(fd[1]));
	}
	return 0;
}

/*
 * A client at its user's limit of resident bytes that waits for its work
 * (whose buffers it closed while it ran) and at once enqueues new work
 * needing the same bytes is not refused: ENQUEUE lets the completed jobs
 * go of their buffers before it refuses a pin past the limit.
 */
TEST_F_TIMEOUT(resident, completed_work_makes_room_at_once, 600)
{
	uint64_t bo = 32 * MIB;
	int status = 0;
	pid_t pid;

	if (bo > self->info.max_bo_size)
		bo = self->info.max_bo_size;
	ASSERT_EQ(0, write_param("max_user_resident_bytes", bo + MIB));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(reenqueue_as(self->r, UID_A, bo, 3));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status) {
		TH_LOG("failed at line %d: %s", self->r->line, self->r->msg);
	}
	ASSERT_EQ(0, self->r->err) {
		TH_LOG("the ENQUEUE after the wait was refused: %s, %llu bytes still charged",
		       strerror(self->r->err),
		       (unsigned long long)self->r->user_resident);
	}
	ASSERT_FALSE(user_listed(_metadata, self->fd, UID_A));
}

/*
 * A mapping makes every page of its buffer resident (the helper populates
 * them at mmap()): the buffer is charged once, however many mappings and
 * forks share it, until it is freed; past the user's limit mmap() fails
 * with EDQUOT.
 */
TEST_F(resident, mappings_are_charged)
{
	uint64_t bo = 4 * MIB;

	ASSERT_EQ(0, write_param("max_user_resident_bytes", 3 * bo));
	run_child(_metadata, self->r, map_as, bo);
	ASSERT_EQ(EDQUOT, self->r->err);
	ASSERT_EQ(0u, self->r->user_resident);
	ASSERT_FALSE(user_listed(_metadata, self->fd, UID_A));
}

/*
 * A dma-buf importer's pin of a buffer (vgem's attachment) charges it to
 * the importing process's user until it is freed, and is refused past the
 * user's limit.
 */
TEST_F(resident, importer_pins_are_charged)
{
	uint64_t bo = 4 * MIB;

	ASSERT_EQ(0, write_param("max_user_resident_bytes", 3 * bo));
	self->r->vgem = weave_test_vgem_open(_metadata);
	run_child(_metadata, self->r, import_as, bo);
	close(self->r->vgem);
	ASSERT_EQ(EDQUOT, self->r->err);
	ASSERT_EQ(0u, self->r->user_resident);
}

/* The limits are bytes; anything else is refused and changes nothing. */
TEST_F(resident, bad_limits_are_refused)
{
	unsigned long long before = read_param("max_resident_bytes");
	int fd;

	ASSERT_NE(0ull, before);
	fd = open(PARAMS "/max_resident_bytes", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(-1, write(fd, "lots", 4));
	ASSERT_EQ(EINVAL, errno);
	close(fd);
	ASSERT_EQ(before, read_param("max_resident_bytes"));
	ASSERT_EQ(before,
		  weave_test_info(_metadata, self->fd).max_resident_bytes);
}

TEST_HARNESS_MAIN
