// SPDX-License-Identifier: GPL-2.0
/*
 * weave: user engines attaching to a device's engine queues: the engine's
 * file holds them until it is closed or its process dies, one engine per
 * queue, generations, the ENGINES report, and every bad argument refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weave_test.h"

#define UID_NOBODY	60001

WEAVE_TEST_FIXTURE(engine, 13u);

static struct drm_weave_engines engines(struct __test_metadata *_metadata,
					int fd)
{
	struct drm_weave_engines e;

	memset(&e, 0xff, sizeof(e));
	ASSERT_EQ(0, weave_query_engines(fd, &e));
	return e;
}

/* Fails the test unless no engine queue of @fd's device has an engine. */
static void assert_none(struct __test_metadata *_metadata, int fd)
{
	struct drm_weave_engines e = engines(_metadata, fd);
	uint32_t i;

	for (i = 0; i < e.num_engine_queues; i++)
		ASSERT_EQ(0u, e.queues[i].flags) TH_LOG("engine queue %u", i);
}

static int attach_raw(int fd, struct drm_weave_engine_attach *a)
{
	return weave_ioctl(fd, DRM_IOCTL_WEAVE_ENGINE_ATTACH, a);
}

TEST_F(engine, the_device_reports_its_engine_queues)
{
	struct drm_weave_engines e = engines(_metadata, self->fd);
	uint32_t i;

	ASSERT_EQ(1u, self->info.num_engine_queues);
	ASSERT_EQ(self->info.num_engine_queues, e.num_engine_queues);
	EXPECT_EQ(0u, e.pad);
	for (i = e.num_engine_queues; i < DRM_WEAVE_MAX_ENGINE_QUEUES; i++) {
		EXPECT_EQ(0u, e.queues[i].flags);
		EXPECT_EQ(0u, e.queues[i].generation);
	}
	assert_none(_metadata, self->fd);
}

TEST_F(engine, the_engines_file_holds_the_queue_until_closed)
{
	struct drm_weave_engines e;
	uint32_t gen = 0, gen2 = 0;
	int efd = -1, other = -1;

	ASSERT_EQ(0, weave_engine_attach(self->fd, 1, "test: first", &efd,
					 &gen));
	ASSERT_LE(0, efd);
	ASSERT_NE(0u, gen);
	EXPECT_EQ(FD_CLOEXEC, fcntl(efd, F_GETFD) & FD_CLOEXEC);
	e = engines(_metadata, self->fd);
	EXPECT_EQ(DRM_WEAVE_ENGINE_ATTACHED, e.queues[0].flags);
	EXPECT_EQ(gen, e.queues[0].generation);
	EXPECT_STREQ("test: first", e.queues[0].name);

	/* One engine per queue, whoever asks. */
	EXPECT_EQ(-EBUSY, weave_engine_attach(self->fd, 1, "test: second",
					      &other, NULL));
	EXPECT_EQ(-1, other);
	e = engines(_metadata, self->fd);
	EXPECT_EQ(gen, e.queues[0].generation);
	EXPECT_STREQ("test: first", e.queues[0].name);

	ASSERT_EQ(0, close(efd));
	e = engines(_metadata, self->fd);
	EXPECT_EQ(0u, e.queues[0].flags);
	/* The last engine's generation and name stay, for the record. */
	EXPECT_EQ(gen, e.queues[0].generation);
	EXPECT_STREQ("test: first", e.queues[0].name);

	ASSERT_EQ(0, weave_engine_attach(self->fd, 1, "test: again", &efd,
					 &gen2));
	EXPECT_LT(gen, gen2);
	EXPECT_EQ(gen2, engines(_metadata, self->fd).queues[0].generation);
	close(efd);
}

TEST_F(engine, the_engine_outlives_the_file_it_attached_through)
{
	int fd = weave_test_open(_metadata), efd;

	ASSERT_EQ(0, weave_engine_attach(fd, 1, "test", &efd, NULL));
	close(fd);
	EXPECT_EQ(DRM_WEAVE_ENGINE_ATTACHED,
		  engines(_metadata, self->fd).queues[0].flags);
	close(efd);
	assert_none(_metadata, self->fd);
}

TEST_F(engine, an_engine_that_dies_lets_its_queues_go)
{
	int ready[2];
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int efd;

		close(ready[0]);
		if (weave_engine_attach(self->fd, 1, "test: doomed", &efd,
					NULL))
			_exit(1);
		c = 1;
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);
	EXPECT_EQ(DRM_WEAVE_ENGINE_ATTACHED,
		  engines(_metadata, self->fd).queues[0].flags);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	assert_none(_metadata, self->fd);
}

TEST_F(engine, the_engines_file_holds_the_module)
{
	long base = weave_test_settled_refs();
	int efd;

	ASSERT_LT(0, base);
	ASSERT_EQ(0, weave_engine_attach(self->fd, 1, "test", &efd, NULL));
	EXPECT_EQ(base + 1, weave_test_module_refs());
	close(efd);
	EXPECT_EQ(base, weave_test_module_refs());
}

TEST_F(engine, only_a_privileged_process_attaches)
{
	int status, efd = -1;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* The file stays open; only the caller's rights change. */
		if (setresuid(UID_NOBODY, UID_NOBODY, UID_NOBODY))
			_exit(2);
		_exit(weave_engine_attach(self->fd, 1, "test", &efd, NULL) ==
		      -EACCES ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("not refused with -EACCES");
	assert_none(_metadata, self->fd);
}

TEST_F(engine, bad_arguments_are_refused)
{
	struct drm_weave_engine_attach good, a;
	int i;

	memset(&good, 0, sizeof(good));
	good.queues = 1;
	strcpy(good.name, "test");
	for (i = 0; i < 9; i++) {
		a = good;
		switch (i) {
		case 0:
			a.queues = 0;
			break;
		case 1:
			a.queues = 1ull << self->info.num_engine_queues;
			break;
		case 2:
			a.queues = 1ull << 63;
			break;
		case 3:
			a.flags = 1;
			break;
		case 4:
			a.pad = 1;
			break;
		case 5:
			memset(a.name, 0, sizeof(a.name));
			break;
		case 6:
			memset(a.name, 'a', sizeof(a.name));
			break;
		case 7:
			a.name[1] = '\n';
			break;
		case 8:
			a.name[20] = 'x';
			break;
		}
		EXPECT_EQ(-EINVAL, attach_raw(self->fd, &a)) TH_LOG("case %d", i);
	}
	assert_none(_metadata, self->fd);
	/* The good one, to show the cases differ from it by their fault. */
	ASSERT_EQ(0, attach_raw(self->fd, &good));
	close(good.fd);
}

TEST_HARNESS_MAIN
