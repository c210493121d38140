// SPDX-License-Identifier: GPL-2.0
/*
 * weave: the debugfs files of a device and of its clients show a known
 * state rightly, and reading them is safe while work runs, during a storm
 * of calls, while their client closes and while the device is unplugged.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "weave_test.h"
#include "weave_test_debugfs.h"

FIXTURE(debugfs) {
	int fd;
	long long id;
	struct node nd;
	struct drm_weave_device_info info;
	char buf[TEXT_MAX];
};

FIXTURE_SETUP(debugfs)
{
	self->fd = weave_test_open(_metadata);
	self->info = weave_test_info(_metadata, self->fd);
	dbg_node(_metadata, self->fd, &self->nd);
	self->id = dbg_client_id(_metadata, self->fd);
}

FIXTURE_TEARDOWN(debugfs)
{
	close(self->fd);
}

/* Every file is there, with its mode, and parses; the device's limits. */
TEST_F(debugfs, files_are_there_read_only_and_parse)
{
	const char *const *dev = dev_files, *const *cli = client_files;
	char path[PATH_MAX];
	struct stat st;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s%s", self->nd.dir, dev[i]);
		ASSERT_EQ(0, stat(path, &st));
		EXPECT_EQ(0444u, st.st_mode & 0777);
		dbg(_metadata, &self->nd, 0, dev[i], self->buf);
		snprintf(path, sizeof(path), "%sweave_client/%lld/%s",
			 self->nd.dir, self->id, cli[i]);
		ASSERT_EQ(0, stat(path, &st));
		EXPECT_EQ(0400u, st.st_mode & 0777);
		dbg(_metadata, &self->nd, self->id, cli[i], self->buf);
	}
	EXPECT_EQ(self->info.num_queues,
		  dbg_state(_metadata, &self->nd, 0, "queues"));
	EXPECT_EQ(self->info.max_streams,
		  dbg_state(_metadata, &self->nd, 0, "slots"));
	EXPECT_LE(1, dbg_state(_metadata, &self->nd, 0, "clients"));
	EXPECT_EQ(self->id, dbg_state(_metadata, &self->nd, self->id, "client"));
	EXPECT_EQ(0, dbg_state(_metadata, &self->nd, self->id, "aborted"));
	dbg(_metadata, &self->nd, 0, "weave_queues", self->buf);
	for (i = 0; i < self->info.num_queues; i++)
		EXPECT_LE(0, dbg_num(self->buf, i, "jobs"));
	EXPECT_EQ(-1, dbg_num(self->buf, self->info.num_queues, "jobs"));
	dbg(_metadata, &self->nd, 0, "weave_clients", self->buf);
	EXPECT_EQ(0, dbg_num(self->buf, self->id, "streams"));
}

/* Tasks queued, not flushed, show in their slot, then leave it. */
TEST_F(debugfs, pending_tasks_show_in_their_slot)
{
	uint32_t s = weave_test_stream(_metadata, self->fd,
				       DRM_WEAVE_PRIORITY_NORMAL);
	uint32_t sl = s % self->info.max_streams;
	struct weave_test_batch b;
	int i;

	weave_test_batch_init(&b);
	for (i = 0; i < 5; i++)
		weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, s, &b);
	EXPECT_EQ(5, dbg_slot(_metadata, &self->nd, self->id, sl, "queued"));
	EXPECT_EQ(5, dbg_state(_metadata, &self->nd, self->id, "queued"));
	EXPECT_EQ(5, dbg_state(_metadata, &self->nd, self->id, "pending"));
	EXPECT_EQ(1, dbg_state(_metadata, &self->nd, self->id, "streams"));
	dbg(_metadata, &self->nd, 0, "weave_clients", self->buf);
	EXPECT_EQ(5, dbg_num(self->buf, self->id, "queued"));

	weave_test_finish(_metadata, self->fd, s);
	EXPECT_EQ(0, dbg_slot(_metadata, &self->nd, self->id, sl, "queued"));
	EXPECT_EQ(0, dbg_state(_metadata, &self->nd, self->id, "queued"));
	EXPECT_EQ(0, dbg_state(_metadata, &self->nd, self->id, "pending"));
	EXPECT_LE(1, dbg_state(_metadata, &self->nd, self->id, "submitted_jobs"));
}

/* The strategy and threshold a client sets are the ones shown. */
TEST_F(debugfs, strategy_and_threshold_in_force)
{
	dbg(_metadata, &self->nd, self->id, "state", self->buf);
	EXPECT_NE(NULL, strstr(self->buf, "\nstrategy: interleave\n"));
	EXPECT_EQ(self->info.max_tasks,
		  dbg_state(_metadata, &self->nd, self->id, "threshold"));
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_STRATEGY,
			 DRM_WEAVE_STRATEGY_SEQUENTIAL);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_MAX_TASKS, 3);
	dbg(_metadata, &self->nd, self->id, "state", self->buf);
	EXPECT_NE(NULL, strstr(self->buf, "\nstrategy: sequential\n"));
	EXPECT_EQ(3, dbg_state(_metadata, &self->nd, self->id, "threshold"));
}

/* Isolation and capture windows show on their slots. */
TEST_F(debugfs, isolation_and_capture_windows_show)
{
	uint32_t a = weave_test_stream(_metadata, self->fd,
				       DRM_WEAVE_PRIORITY_NORMAL);
	uint32_t c = weave_test_stream(_metadata, self->fd,
				       DRM_WEAVE_PRIORITY_NORMAL);
	uint32_t sa = a % self->info.max_streams;
	uint32_t sc = c % self->info.max_streams;
	struct drm_weave_capture cap;
	char cell[32];

	ASSERT_NE(sa, sc);
	ASSERT_EQ(0, weave_stream_isolate(self->fd, a,
					  DRM_WEAVE_ISOLATION_ENTER));
	EXPECT_EQ(1, dbg_slot(_metadata, &self->nd, self->id, sa, "isolated"));
	EXPECT_EQ(1, dbg_state(_metadata, &self->nd, self->id, "isolated"));

	ASSERT_EQ(0, weave_capture(self->fd, c, DRM_WEAVE_CAPTURE_PREPARE,
				   &cap));
	dbg(_metadata, &self->nd, self->id, "slots", self->buf);
	ASSERT_EQ(0, dbg_cell(self->buf, sc, "window", cell, sizeof(cell)));
	EXPECT_STREQ("prepared", cell);
	EXPECT_EQ(c, dbg_num(self->buf, sc, "owner"));
	EXPECT_EQ(1, dbg_num(self->buf, sc, "isolated"));
	ASSERT_EQ(0, weave_capture(self->fd, c, DRM_WEAVE_CAPTURE_BEGIN,
				   &cap));
	dbg(_metadata, &self->nd, self->id, "slots", self->buf);
	ASSERT_EQ(0, dbg_cell(self->buf, sc, "window", cell, sizeof(cell)));
	EXPECT_STREQ("recording", cell);
	EXPECT_EQ(1, dbg_state(_metadata, &self->nd, self->id, "windows"));
	EXPECT_EQ(2, dbg_state(_metadata, &self->nd, self->id, "isolated"));

	ASSERT_EQ(0, weave_capture(self->fd, c, DRM_WEAVE_CAPTURE_ABORT,
				   &cap));
	ASSERT_EQ(0, weave_stream_isolate(self->fd, a,
					  DRM_WEAVE_ISOLATION_LEAVE));
	EXPECT_EQ(0, dbg_state(_metadata, &self->nd, self->id, "windows"));
	EXPECT_EQ(0, dbg_state(_metadata, &self->nd, self->id, "isolated"));
	EXPECT_GE(0, dbg_slot(_metadata, &self->nd, self->id, sa, "isolated"));
}

/* A gate shows on its slot, then armed on its job, then goes. */
TEST_F(debugfs, a_gate_shows_until_it_opens)
{
	uint32_t s = weave_test_stream(_metadata, self->fd,
				       DRM_WEAVE_PRIORITY_NORMAL);
	uint32_t sl = s % self->info.max_streams;
	struct weave_test_gate g;
	long long jobs = 0;
	int64_t deadline;
	uint32_t q;

	weave_test_gate_open(_metadata, &g, self->fd);
	ASSERT_EQ(0, weave_test_gated_noop(&g, self->fd, s));
	EXPECT_EQ(1, dbg_slot(_metadata, &self->nd, self->id, sl, "gates"));
	EXPECT_EQ(1, dbg_state(_metadata, &self->nd, self->id, "gates"));
	ASSERT_EQ(0, weave_flush(self->fd, s, NULL));
	EXPECT_EQ(0, dbg_state(_metadata, &self->nd, self->id, "gates"));
	EXPECT_EQ(1, dbg_state(_metadata, &self->nd, self->id, "gates_armed"));
	for (q = 0; q < self->info.num_queues; q++) {
		char key[32];

		snprintf(key, sizeof(key), "queue%u_jobs", q);
		jobs += dbg_state(_metadata, &self->nd, self->id, key);
	}
	EXPECT_EQ(1, jobs);
	EXPECT_EQ(1, dbg_slot(_metadata, &self->nd, self->id, sl, "busy"));
	weave_test_gate_pending(_metadata, self->fd, &g);
	weave_test_gate_wait(_metadata, self->fd, &g);
	weave_test_wait(_metadata, self->fd, s);

	deadline = weave_test_now() + WEAVE_TEST_WAIT_NS;
	while (dbg_state(_metadata, &self->nd, self->id, "jobs") &&
	       weave_test_now() < deadline)
		usleep(1000);
	EXPECT_EQ(0, dbg_state(_metadata, &self->nd, self->id, "gates_armed"));
	EXPECT_EQ(0, dbg_state(_metadata, &self->nd, self->id, "queue0_jobs"));
	EXPECT_EQ(0, dbg_slot(_metadata, &self->nd, self->id, sl, "busy"));
}

/* A failure shows in the client's and the device's counts, then goes. */
TEST_F(debugfs, a_failure_shows_in_the_taint_counts)
{
	uint32_t s = weave_test_stream(_metadata, self->fd,
				       DRM_WEAVE_PRIORITY_NORMAL);
	uint64_t page = self->info.page_size;
	uint32_t bo = weave_test_bo(_metadata, self->fd, 2 * page, 0);
	long long live0 = dbg_state(_metadata, &self->nd, 0, "failures_made");
	struct weave_test_batch b;
	long long id;

	EXPECT_EQ(0, dbg_state(_metadata, &self->nd, self->id, "failures"));
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, bo, 0, page, EINVAL);
	weave_test_enqueue(_metadata, self->fd, s, &b);
	weave_test_finish(_metadata, self->fd, s);

	EXPECT_EQ(1, dbg_state(_metadata, &self->nd, self->id, "failures"));
	EXPECT_EQ(1, dbg_state(_metadata, &self->nd, self->id, "tainted"));
	EXPECT_LE(1, dbg_state(_metadata, &self->nd, 0, "failures_live"));
	EXPECT_LT(live0, dbg_state(_metadata, &self->nd, 0, "failures_made"));
	dbg(_metadata, &self->nd, self->id, "failures", self->buf);
	id = strtoll(strchr(self->buf, '\n') + 1, NULL, 10);
	EXPECT_LT(0, id);
	EXPECT_EQ(-EINVAL, dbg_num(self->buf, id, "errno"));
	EXPECT_EQ(DRM_WEAVE_FAILURE_KERNEL, dbg_num(self->buf, id, "cause"));
	EXPECT_EQ(1, dbg_num(self->buf, id, "buffers"));
	dbg(_metadata, &self->nd, 0, "weave_clients", self->buf);
	EXPECT_EQ(1, dbg_num(self->buf, self->id, "failures"));
	EXPECT_EQ(1, dbg_num(self->buf, self->id, "tainted"));

	/* Rewriting the bytes frees the failure. */
	weave_test_fill_task(&b, bo, 0, page, 7);
	weave_test_enqueue(_metadata, self->fd, s, &b);
	weave_test_finish(_metadata, self->fd, s);
	EXPECT_EQ(0, dbg_state(_metadata, &self->nd, self->id, "failures"));
	EXPECT_EQ(0, dbg_state(_metadata, &self->nd, self->id, "tainted"));
}

/* --- reading in a loop while things happen ------------------------------- */

/* A thread that reads every file of the device and of its clients. */
struct reader {
	pthread_t thread;
	const struct node *nd;
	atomic_bool *stop;
	/* Device files may be gone (unplug), not only clients'. */
	bool unplug;
	long reads;
	long errors;
	char bad[512];
	char buf[TEXT_MAX];
};

/*
 * One read; a file gone is allowed if @gone: ENOENT, EIO once removed, or
 * ENODEV from a device file read after the unplug and before the DRM core
 * removes the device's directory.
 */
static void reader_one(struct reader *r, const char *path, bool gone)
{
	ssize_t n = dbg_read(path, r->buf, sizeof(r->buf));

	if (n > 0 && dbg_well_formed(r->buf)) {
		__atomic_add_fetch(&r->reads, 1, __ATOMIC_RELAXED);
		return;
	}
	if (n < 0 && gone && (n == -ENOENT || n == -EIO || n == -ENODEV))
		return;
	if (!r->errors++)
		snprintf(r->bad, sizeof(r->bad), "%.300s: %.200s", path,
			 n < 0 ? strerror((int)-n) : r->buf);
}

static void *reader_run(void *arg)
{
	const char *const *dev = dev_files, *const *cli = client_files;
	struct reader *r = arg;
	char path[PATH_MAX + 300];
	struct dirent *e;
	unsigned int i;
	DIR *d;

	while (!atomic_load(r->stop)) {
		for (i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), "%s%s", r->nd->dir,
				 dev[i]);
			reader_one(r, path, r->unplug);
		}
		snprintf(path, sizeof(path), "%sweave_client", r->nd->dir);
		d = opendir(path);
		if (!d) {
			if (!r->unplug && !r->errors++)
				snprintf(r->bad, sizeof(r->bad),
					 "%.300s: %.100s", path,
					 strerror(errno));
			continue;
		}
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			for (i = 0; i < 3; i++) {
				snprintf(path, sizeof(path),
					 "%sweave_client/%s/%s", r->nd->dir,
					 e->d_name, cli[i]);
				reader_one(r, path, true);
			}
		}
		closedir(d);
	}
	return NULL;
}

static void readers_start(struct __test_metadata *_metadata,
			  struct reader *r, const struct node *nd,
			  atomic_bool *stop, bool unplug)
{
	int i;

	atomic_store(stop, false);
	for (i = 0; i < READERS; i++) {
		memset(&r[i], 0, offsetof(struct reader, buf));
		r[i].nd = nd;
		r[i].stop = stop;
		r[i].unplug = unplug;
		ASSERT_EQ(0, pthread_create(&r[i].thread, NULL, reader_run,
					    &r[i]));
	}
}

/* Waits until each reader has read every file once at least. */
static void readers_wait(struct __test_metadata *_metadata, struct reader *r)
{
	int64_t deadline = weave_test_now() + WEAVE_TEST_WAIT_NS;
	int i;

	for (i = 0; i < READERS; i++) {
		while (__atomic_load_n(&r[i].reads, __ATOMIC_RELAXED) < 6) {
			ASSERT_GT(deadline, weave_test_now());
			usleep(1000);
		}
	}
}

/* Stops the readers: each read something, and nothing it should not. */
static void readers_stop(struct __test_metadata *_metadata, struct reader *r,
			 atomic_bool *stop)
{
	int i;

	atomic_store(stop, true);
	for (i = 0; i < READERS; i++) {
		pthread_join(r[i].thread, NULL);
		EXPECT_LT(0, r[i].reads);
		EXPECT_EQ(0, r[i].errors) {
			TH_LOG("reader %d: %ld bad reads, the first: %s", i,
			       r[i].errors, r[i].bad);
		}
	}
}

/* A little of everything on @fd's stream @s: writes, fills, delays. */
static void workload(struct __test_metadata *_metadata, int fd, uint32_t s,
		     uint32_t bo, uint64_t page, uint32_t round)
{
	static const uint32_t data[64];
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	weave_test_write_task(&b, bo, 0, sizeof(data), data);
	weave_test_fill_task(&b, bo, page, page, round);
	weave_test_copy_task(&b, bo, page, bo, 0, page);
	weave_test_delay(&b, 1000);
	if (round % 5 == 0)
		weave_test_fail_task(&b, bo, page, 64, EIO);
	weave_test_enqueue(_metadata, fd, s, &b);
	if (round % 3 == 0)
		ASSERT_EQ(0, weave_flush(fd, s, NULL));
	if (round % 7 == 0)
		weave_test_finish(_metadata, fd, s);
}

/* The readers run while streams of two files take work. */
TEST_F(debugfs, reading_during_a_workload)
{
	struct reader *r = calloc(READERS, sizeof(*r));
	uint64_t page = self->info.page_size;
	int fds[2] = { self->fd, weave_test_open(_metadata) };
	uint32_t s[4], bo[2], round = 0, i;
	atomic_bool stop;
	int64_t end;

	ASSERT_NE(NULL, r);
	for (i = 0; i < 4; i++)
		s[i] = weave_test_stream(_metadata, fds[i % 2],
					 DRM_WEAVE_PRIORITY_NORMAL);
	for (i = 0; i < 2; i++)
		bo[i] = weave_test_bo(_metadata, fds[i], 2 * page, 0);
	readers_start(_metadata, r, &self->nd, &stop, false);
	end = weave_test_now() + LOOP_NS;
	while (weave_test_now() < end) {
		i = round % 4;
		workload(_metadata, fds[i % 2], s[i], bo[i % 2], page, round);
		round++;
	}
	for (i = 0; i < 4; i++)
		weave_test_finish(_metadata, fds[i % 2], s[i]);
	readers_stop(_metadata, r, &stop);
	close(fds[1]);
	free(r);
}

/* One thread of the storm: random calls, valid or not, on its files. */
struct storm {
	pthread_t thread;
	atomic_bool *stop;
	uint32_t seed;
	long calls;
	uint32_t op;
};

static uint32_t storm_rand(struct storm *st)
{
	st->seed = st->seed * 1103515245u + 12345u;
	return st->seed >> 8;
}

/* One random call on @fd, whose streams are among 1..16. */
static void storm_call(struct storm *st, int fd, uint32_t bo)
{
	uint32_t s = 1 + storm_rand(st) % 16, h = storm_rand(st), k;
	struct drm_weave_capture cap;
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	st->op = storm_rand(st) % 10;
	switch (st->op) {
	case 0: weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &h); break;
	case 1: weave_stream_destroy(fd, s); break;
	case 2: weave_stream_isolate(fd, s, storm_rand(st) % 3); break;
	case 3: weave_capture(fd, s, storm_rand(st) % 5, &cap); break;
	case 4: weave_set_param(fd, h % 3, storm_rand(st) % 80); break;
	case 5: weave_flush(fd, s, NULL); break;
	case 6: weave_flush_all(fd, NULL); break;
	case 7: weave_wait(fd, s, weave_timeout_ns(1000000)); break;
	default:
		for (k = 1 + storm_rand(st) % 8; k; k--) {
			if (storm_rand(st) % 4)
				weave_test_noop(&b);
			else
				weave_test_fail_task(&b, bo, 0, 64, EFAULT);
		}
		weave_test_submit(fd, s, &b);
	}
	st->calls++;
}

static void *storm_run(void *arg)
{
	struct storm *st = arg;
	uint64_t size = 4096;
	uint32_t bo = 0;
	int fd = -1;

	while (!atomic_load(st->stop)) {
		if (fd < 0) {
			fd = weave_device_open(0);
			if (fd < 0 || weave_bo_create(fd, &size, 0, &bo))
				break;
		}
		storm_call(st, fd, bo);
		/* Now and then the file closes with its work in flight. */
		if (storm_rand(st) % 64 == 0) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* The readers run while threads make random calls and close files. */
TEST_F(debugfs, reading_during_a_storm_of_calls)
{
	struct reader *r = calloc(READERS, sizeof(*r));
	struct storm st[3];
	atomic_bool stop, stop_storm;
	int i;

	ASSERT_NE(NULL, r);
	readers_start(_metadata, r, &self->nd, &stop, false);
	atomic_store(&stop_storm, false);
	for (i = 0; i < 3; i++) {
		st[i].stop = &stop_storm;
		st[i].seed = 0x5eed0000u + i;
		st[i].calls = 0;
		ASSERT_EQ(0, pthread_create(&st[i].thread, NULL, storm_run,
					    &st[i]));
	}
	usleep(LOOP_NS / 1000);
	atomic_store(&stop_storm, true);
	for (i = 0; i < 3; i++) {
		pthread_join(st[i].thread, NULL);
		EXPECT_LT(20, st[i].calls) {
			TH_LOG("storm %d: %ld calls, the last op %u", i,
			       st[i].calls, st[i].op);
		}
	}
	readers_stop(_metadata, r, &stop);
	free(r);
	/* The fixture's client is as it was. */
	EXPECT_EQ(0, dbg_state(_metadata, &self->nd, self->id, "queued"));
}

/*
 * Opens a client with a job running (a delay of @us) and a task queued
 * behind it; returns its file.
 */
static int busy_client(struct __test_metadata *_metadata, uint32_t us)
{
	int fd = weave_test_open(_metadata);
	uint32_t s = weave_test_stream(_metadata, fd,
				       DRM_WEAVE_PRIORITY_NORMAL);
	struct weave_test_batch b;

	weave_test_batch_init(&b);
	weave_test_delay(&b, us);
	weave_test_enqueue(_metadata, fd, s, &b);
	EXPECT_EQ(0, weave_flush(fd, s, NULL));
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, fd, s, &b);
	return fd;
}

/*
 * A client closes with work in flight while its files are read, one of
 * them held open: the directory goes with the close, and the held file's
 * next read fails.
 */
TEST_F(debugfs, reading_while_the_client_closes)
{
	struct reader *r = calloc(READERS, sizeof(*r));
	char path[PATH_MAX + 64];
	atomic_bool stop;
	long long id;
	int i, fd, held;

	ASSERT_NE(NULL, r);
	readers_start(_metadata, r, &self->nd, &stop, false);
	for (i = 0; i < 20; i++) {
		fd = busy_client(_metadata, 5000);
		id = dbg_client_id(_metadata, fd);

		snprintf(path, sizeof(path), "%sweave_client/%lld/state",
			 self->nd.dir, id);
		held = open(path, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, held);
		ASSERT_LT(0, pread(held, self->buf, 4096, 0));
		close(fd);
		EXPECT_EQ(-1, access(path, F_OK));
		EXPECT_EQ(-1, pread(held, self->buf, 4096, 0));
		EXPECT_EQ(EIO, errno);
		close(held);
	}
	readers_stop(_metadata, r, &stop);
	free(r);
}

/*
 * The device is unbound with clients working and their files read, some
 * held open: every file goes, held ones fail their next read, and the
 * device bound again has its files.
 */
TEST_F(debugfs, reading_during_unplug)
{
	struct reader *r = calloc(READERS, sizeof(*r));
	char path[PATH_MAX + 64];
	int i, fd, held[2];
	struct node nd = self->nd;
	atomic_bool stop;

	ASSERT_NE(NULL, r);
	for (i = 0; i < 3; i++) {
		fd = busy_client(_metadata, 20000);
		dbg_node(_metadata, fd, &nd);
		snprintf(path, sizeof(path), "%sweave_device", nd.dir);
		held[0] = open(path, O_RDONLY | O_CLOEXEC);
		snprintf(path, sizeof(path), "%sweave_client/%lld/slots",
			 nd.dir, dbg_client_id(_metadata, fd));
		held[1] = open(path, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, held[0]);
		ASSERT_LE(0, held[1]);

		readers_start(_metadata, r, &nd, &stop, true);
		/* The unbind meets readers that have read already. */
		readers_wait(_metadata, r);
		ASSERT_EQ(0, weave_test_write_file(DRIVER_DIR "/", "unbind",
						   nd.dev));
		readers_stop(_metadata, r, &stop);
		EXPECT_EQ(-1, access(path, F_OK));
		EXPECT_EQ(-1, pread(held[0], self->buf, 4096, 0));
		EXPECT_EQ(EIO, errno);
		EXPECT_EQ(-1, pread(held[1], self->buf, 4096, 0));
		EXPECT_EQ(EIO, errno);
		close(held[0]);
		close(held[1]);
		close(fd);
		ASSERT_EQ(0, weave_test_write_file(DRIVER_DIR "/", "bind",
						   nd.dev));
	}
	/* The device bound again shows a new client. */
	fd = weave_test_open(_metadata);
	dbg_node(_metadata, fd, &nd);
	EXPECT_EQ(dbg_client_id(_metadata, fd),
		  dbg_state(_metadata, &nd, dbg_client_id(_metadata, fd), "client"));
	close(fd);
	free(r);
}

TEST_HARNESS_MAIN
