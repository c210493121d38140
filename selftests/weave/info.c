// SPDX-License-Identifier: GPL-2.0
/*
 * weave: weave-info, the tool that lists the devices and the clients'
 * usage, run as a user would, for people and with --json.  Each run
 * starts a program, and Python checks the JSON: slow under emulation, so
 * the tests have time.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weave_test.h"

struct run {
	char out[65536];
	int status;
};

/*
 * The tool: $WEAVE_INFO, else build/tools/weave-info next to this suite's
 * build/selftests/weave/; NULL if neither is there (a kernel-tree build of
 * the suites, which has no tools).
 */
static const char *info_tool(void)
{
	static const char tool[] = "/../../tools/weave-info";
	static char path[PATH_MAX + sizeof(tool)];
	const char *env = getenv("WEAVE_INFO");
	ssize_t n;

	if (env)
		return env;
	n = readlink("/proc/self/exe", path, PATH_MAX - 1);
	if (n <= 0)
		return NULL;
	path[n] = 0;
	strcpy(strrchr(path, '/'), tool);
	return access(path, X_OK) ? NULL : path;
}

/* Runs the tool with @args (NULL-terminated); its stdout and exit status. */
static void info_run(struct __test_metadata *_metadata, struct run *r,
		     const char *const *args)
{
	const char *argv[8] = { info_tool() };
	size_t len = 0;
	int pipefd[2];
	ssize_t n;
	pid_t pid;
	int i;

	for (i = 0; args[i]; i++)
		argv[i + 1] = args[i];
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(pipefd[1], 1);
		dup2(null, 2);
		close(pipefd[0]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], r->out + len, sizeof(r->out) - 1 - len)) > 0)
		len += n;
	close(pipefd[0]);
	r->out[len] = 0;
	ASSERT_EQ(pid, waitpid(pid, &r->status, 0));
	ASSERT_TRUE(WIFEXITED(r->status));
	r->status = WEXITSTATUS(r->status);
}

/* @text is one JSON document, by Python's json module. */
static void info_is_json(struct __test_metadata *_metadata, const char *text)
{
	FILE *py = popen("python3 -c 'import json, sys; json.load(sys.stdin)'",
			 "w");

	ASSERT_NE(NULL, py);
	fputs(text, py);
	ASSERT_EQ(0, pclose(py)) {
		TH_LOG("not JSON: %.400s", text);
	}
}

/* The file's drm-client-id, from its fdinfo. */
static unsigned long long info_client_id(struct __test_metadata *_metadata,
					 int fd)
{
	unsigned long long id = 0;
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "drm-client-id: %llu", &id) == 1)
			break;
	fclose(f);
	ASSERT_NE(0ull, id);
	return id;
}

/* How many times @needle occurs in @hay. */
static int count(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

FIXTURE(info) {
	int fd;
	struct drm_weave_device_info dev;
	struct run r;
	char pid[16];
};

FIXTURE_SETUP(info)
{
	if (!info_tool())
		SKIP(return, "no weave-info (a kernel-tree build has no tools)");
	self->fd = weave_test_open(_metadata);
	self->dev = weave_test_info(_metadata, self->fd);
	snprintf(self->pid, sizeof(self->pid), "%d", getpid());
}

FIXTURE_TEARDOWN(info)
{
	if (self->fd > 0)
		close(self->fd);
}

/* Every device, with its uAPI version, its limits and the parameters. */
TEST_F_TIMEOUT(info, lists_each_device_with_its_limits, 120)
{
	const char *json[] = { "--json", NULL }, *none[] = { NULL };
	struct drm_weave_device_info dev;
	int devices = weave_device_count();
	char want[128];
	int i;

	ASSERT_LT(0, devices);
	info_run(_metadata, &self->r, json);
	ASSERT_EQ(0, self->r.status);
	info_is_json(_metadata, self->r.out);
	ASSERT_EQ(devices, count(self->r.out, "\"index\": "));
	for (i = 0; i < devices; i++) {
		const char *at;
		int fd = weave_device_open(i);

		ASSERT_LE(0, fd);
		dev = weave_test_info(_metadata, fd);
		close(fd);
		snprintf(want, sizeof(want), "\"index\": %d, \"uapi\": \"%u.%u\"",
			 i, dev.uapi_major, dev.uapi_minor);
		at = strstr(self->r.out, want);
		ASSERT_NE(NULL, at) TH_LOG("device %d: no '%s'", i, want);
		/* Its own limits, before the next device's entry. */
		snprintf(want, sizeof(want),
			 "\"num_queues\": %u, \"max_streams\": %u",
			 dev.num_queues, dev.max_streams);
		at = strstr(at, want);
		ASSERT_NE(NULL, at) TH_LOG("device %d: no '%s'", i, want);
		snprintf(want, sizeof(want), "\"index\": %d,", i + 1);
		if (i + 1 < devices)
			ASSERT_GT(strstr(self->r.out, want), at);
	}
	snprintf(want, sizeof(want), "\"max_client_bos\": %u",
		 self->dev.max_client_bos);
	ASSERT_EQ(2, count(self->r.out, want)) {
		TH_LOG("want it as a limit and as a parameter: %.400s",
		       self->r.out);
	}

	info_run(_metadata, &self->r, none);
	ASSERT_EQ(0, self->r.status);
	snprintf(want, sizeof(want), "device 0: weave uAPI %u.%u\n",
		 self->dev.uapi_major, self->dev.uapi_minor);
	ASSERT_TRUE(strstr(self->r.out, want) == self->r.out);
	ASSERT_NE(NULL, strstr(self->r.out, "  module parameters:\n"));
}

/* A process's usage, once per file however many descriptors it has. */
TEST_F_TIMEOUT(info, reports_a_process_usage_from_fdinfo, 120)
{
	const char *json[] = { "--json", "--pid", self->pid, NULL };
	const char *text[] = { "--pid", self->pid, NULL };
	int other = weave_test_open(_metadata);
	int dup1 = dup(self->fd);
	char want[128];

	weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_HIGH);
	weave_test_bo(_metadata, self->fd, 64 * 1024, 0);

	info_run(_metadata, &self->r, json);
	ASSERT_EQ(0, self->r.status);
	ASSERT_EQ(2, count(self->r.out, "\"client_id\": ")) {
		TH_LOG("two files, one of them on two descriptors: %.600s",
		       self->r.out);
	}
	snprintf(want, sizeof(want), "\"client_id\": %llu, \"usage\": {",
		 info_client_id(_metadata, self->fd));
	ASSERT_NE(NULL, strstr(self->r.out, want));
	ASSERT_NE(NULL, strstr(strstr(self->r.out, want),
			       "\"weave-streams\": 2,"));
	ASSERT_NE(NULL, strstr(strstr(self->r.out, want),
			       "\"drm-total-memory\": \"64 KiB\""));

	info_run(_metadata, &self->r, text);
	ASSERT_EQ(0, self->r.status);
	snprintf(want, sizeof(want), "client %llu: pid %s (",
		 info_client_id(_metadata, other), self->pid);
	ASSERT_NE(NULL, strstr(self->r.out, want));
	close(dup1);
	close(other);
}

/* --clients finds this process among all. */
TEST_F_TIMEOUT(info, clients_lists_every_process, 120)
{
	const char *args[] = { "--json", "--clients", NULL };
	char want[64];

	info_run(_metadata, &self->r, args);
	ASSERT_EQ(0, self->r.status);
	info_is_json(_metadata, self->r.out);
	snprintf(want, sizeof(want), "{\"pid\": %s, ", self->pid);
	ASSERT_EQ(1, count(self->r.out, want));
}

/* A bad command line: exit status 2, and nothing on stdout. */
TEST_F_TIMEOUT(info, refuses_a_bad_command_line, 120)
{
	static const char *const bad[][4] = {
		{ "--pid", "0", NULL },
		{ "--pid", "12x", NULL },
		{ "--pid", "-5", NULL },
		{ "--pid", "1", "--clients", NULL },
		{ "extra", NULL },
		{ "--no-such-option", NULL },
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		info_run(_metadata, &self->r, bad[i]);
		EXPECT_EQ(2, self->r.status) {
			TH_LOG("case %u: status %d", i, self->r.status);
		}
		EXPECT_STREQ("", self->r.out);
	}
}

TEST_HARNESS_MAIN
