// SPDX-License-Identifier: GPL-2.0
/*
 * weave: unloading weave.ko right after its last fence is released.
 *
 * Each round makes a job and keeps only fences of it, as sync_files (one
 * exported from the written buffer's dma-buf, one from an out-sync), waits
 * for them, closes them, and unloads weave.ko at once, retrying while the
 * module is still held: its fences and jobs drop their module reference
 * asynchronously, after an RCU grace period.  It then loads weave.ko again
 * with the parameters it had.
 *
 * What this shows: the references are balanced (the unload succeeds soon
 * after the last fence goes), and unload happens as close to the release
 * as user space can get it, so that on the debug kernel a callback or
 * release still running in the module's text when rmmod frees it would
 * fault or raise a KASAN report on the console, which fails the lane.
 * What it cannot show: the window it looks for is a few instructions wide,
 * so a run without a report does not prove there is none; the reasoning
 * is in "DOC: fences" (Unload) in kmod/weave_fence.c.
 *
 * weave.ko is found next to the suites, at ../../kmod/$(uname -r)/weave.ko
 * from this program, or at $WEAVE_KO; without it the test is skipped.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include "weave_test.h"

/* Unload and reload rounds. */
#define UNLOAD_ROUNDS	20

/* The path of weave.ko into @path; 0, or -1 if there is none. */
static int weave_ko_path(char *path, size_t size)
{
	const char *env = getenv("WEAVE_KO");
	char exe[PATH_MAX];
	struct utsname u;
	ssize_t n;
	int i;

	if (env) {
		snprintf(path, size, "%s", env);
		return access(path, R_OK);
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0 || uname(&u))
		return -1;
	exe[n] = '\0';
	/* .../build/selftests/weave/unload -> .../build */
	for (i = 0; i < 3; i++) {
		char *slash = strrchr(exe, '/');

		if (!slash)
			return -1;
		*slash = '\0';
	}
	if (snprintf(path, size, "%.*s/kmod/%.*s/weave.ko", 2048, exe, 64,
		     u.release) >= (int)size)
		return -1;
	return access(path, R_OK);
}

/* "name=value ..." of weave.ko's parameters as loaded now, into @buf. */
static void weave_params(struct __test_metadata *_metadata, char *buf,
			 size_t size)
{
	const char *dir = "/sys/module/weave/parameters";
	char file[PATH_MAX], val[128];
	struct dirent *e;
	size_t len = 0;
	DIR *d = opendir(dir);
	FILE *f;

	ASSERT_TRUE(d != NULL);
	buf[0] = '\0';
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
		f = fopen(file, "r");
		if (!f)
			continue;
		if (fgets(val, sizeof(val), f)) {
			val[strcspn(val, "\n")] = '\0';
			len += snprintf(buf + len, size - len, "%s%s=%s",
					len ? " " : "", e->d_name, val);
			ASSERT_GT(size, len);
		}
		fclose(f);
	}
	closedir(d);
}

/* Exports the fences of @bo's reservation as a sync_file. */
static int resv_sync_file(struct __test_metadata *_metadata, int fd,
			  uint32_t bo)
{
	struct dma_buf_export_sync_file exp;
	int dmabuf = -1;

	ASSERT_EQ(0, drmPrimeHandleToFD(fd, bo, DRM_CLOEXEC, &dmabuf));
	memset(&exp, 0, sizeof(exp));
	exp.flags = DMA_BUF_SYNC_WRITE;
	exp.fd = -1;
	ASSERT_EQ(0, ioctl(dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &exp));
	close(dmabuf);
	return exp.fd;
}

/* Waits for a sync_file to signal and closes it. */
static void sync_file_close(struct __test_metadata *_metadata, int sfd)
{
	struct pollfd pfd = { .fd = sfd, .events = POLLIN };

	ASSERT_EQ(1, poll(&pfd, 1, WEAVE_TEST_WAIT_NS / 1000000));
	close(sfd);
}

FIXTURE(unload) {
	int unused;
};

FIXTURE_SETUP(unload)
{
}

FIXTURE_TEARDOWN(unload)
{
}

TEST_F_TIMEOUT(unload, after_last_fence, 300)
{
	char ko[PATH_MAX], params[2048];
	struct drm_weave_sync out;
	struct weave_test_batch b;
	uint32_t stream, bo, obj;
	int64_t deadline;
	int fd, kfd, sfd[2], round, tries;
	long ret;

	if (weave_ko_path(ko, sizeof(ko)))
		SKIP(return, "no weave.ko next to the suites (set WEAVE_KO)");
	weave_params(_metadata, params, sizeof(params));

	for (round = 0; round < UNLOAD_ROUNDS; round++) {
		fd = weave_test_open(_metadata);
		stream = weave_test_stream(_metadata, fd,
					   DRM_WEAVE_PRIORITY_NORMAL);
		bo = weave_test_bo(_metadata, fd, 4096, 0);
		obj = weave_test_syncobj(_metadata, fd);
		weave_test_batch_init(&b);
		weave_test_delay(&b, 1000);
		weave_test_fill_task(&b, bo, 0, 4096, round);
		weave_test_enqueue(_metadata, fd, stream, &b);
		out = weave_sync(obj, 0);
		ASSERT_EQ(0, weave_flush(fd, stream, &out));
		sfd[0] = resv_sync_file(_metadata, fd, bo);
		ASSERT_EQ(0, drmSyncobjExportSyncFile(fd, obj, &sfd[1]));
		/* Only the sync_files hold weave fences now. */
		close(fd);
		sync_file_close(_metadata, sfd[0]);
		sync_file_close(_metadata, sfd[1]);

		deadline = weave_test_now() + WEAVE_TEST_WAIT_NS;
		for (tries = 1;; tries++) {
			ret = syscall(__NR_delete_module, "weave", O_NONBLOCK);
			if (!ret || errno != EWOULDBLOCK ||
			    weave_test_now() > deadline)
				break;
			sched_yield();
		}
		ASSERT_EQ(0, ret) {
			TH_LOG("round %d: rmmod weave after %d tries: %s",
			       round, tries, strerror(errno));
		}

		kfd = open(ko, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, kfd);
		ASSERT_EQ(0, syscall(__NR_finit_module, kfd, params, 0)) {
			TH_LOG("reloading %s %s: %s", ko, params,
			       strerror(errno));
		}
		close(kfd);
	}
}

TEST_HARNESS_MAIN
