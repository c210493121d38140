// SPDX-License-Identifier: GPL-2.0
/*
 * weave: a client's usage in /proc/<pid>/fdinfo, in the DRM client usage
 * statistics' keys (engine busy time, memory) and weave's own, readable by
 * IGT's fdinfo parser (gputop's) at every num_queues.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weave_test.h"

#define KIB		1024ll
#define MIB		(1024 * KIB)

/* Each stream runs this many delays of DELAY_US. */
#define DELAYS		4
#define DELAY_US	50000u

/*
 * IGT's fdinfo parser (lib/igt_drm_fdinfo.c, which gputop uses) reads the
 * first 4 KiB of the file in one read, and asserts, so aborts, when an
 * engine name would be its 16th: it holds at most 15.
 */
#define IGT_FDINFO_BYTES	4096u
#define IGT_MAX_ENGINE_NAMES	15u

struct fdinfo {
	char text[8192];
	size_t len;
};

static void fdinfo_read(struct __test_metadata *_metadata, int fd,
			struct fdinfo *info)
{
	size_t len = 0;
	char path[64];
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, f) {
		TH_LOG("cannot open %s: %s", path, strerror(errno));
	}
	do {
		n = read(f, info->text + len, sizeof(info->text) - 1 - len);
		if (n > 0)
			len += n;
	} while (n > 0 && len < sizeof(info->text) - 1);
	close(f);
	ASSERT_LE(0, n);
	ASSERT_GT(sizeof(info->text) - 1, len);
	info->text[len] = 0;
	info->len = len;
}

/*
 * The value of @key, as text (up to the end of its line) in @out; NULL if
 * the key is not there.
 */
static const char *fdinfo_text(const struct fdinfo *info, const char *key,
			       char *out, size_t len)
{
	size_t klen = strlen(key);
	const char *p = info->text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			const char *v = p + klen + 1;
			size_t n;

			v += strspn(v, " \t");
			n = strcspn(v, "\n");
			if (n >= len)
				n = len - 1;
			memcpy(out, v, n);
			out[n] = 0;
			return out;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* A number, with its unit: "ns", "KiB", "MiB" or none; -1 if absent. */
static int64_t fdinfo_value(struct __test_metadata *_metadata,
			    const struct fdinfo *info, const char *key)
{
	char text[64], *end;
	unsigned long long v;

	if (!fdinfo_text(info, key, text, sizeof(text)))
		return -1;
	errno = 0;
	v = strtoull(text, &end, 10);
	EXPECT_EQ(0, errno);
	EXPECT_TRUE(end != text) {
		TH_LOG("%s: '%s' is not a number", key, text);
	}
	if (!strcmp(end, " KiB"))
		v *= KIB;
	else if (!strcmp(end, " MiB"))
		v *= MIB;
	else
		EXPECT_TRUE(!*end || !strcmp(end, " ns")) {
			TH_LOG("%s: unknown unit in '%s'", key, text);
		}
	return v;
}

/*
 * The busy time of each queue, weave-engine-q<N>, in @each; returns
 * drm-engine-soft, their sum, once checked to be that sum.
 */
static int64_t fdinfo_busy(struct __test_metadata *_metadata,
			   const struct fdinfo *info, uint32_t queues,
			   int64_t *each)
{
	int64_t sum = 0, soft;
	char key[32];
	uint32_t i;

	for (i = 0; i < queues; i++) {
		snprintf(key, sizeof(key), "weave-engine-q%u", i);
		each[i] = fdinfo_value(_metadata, info, key);
		EXPECT_LE(0, each[i]) {
			TH_LOG("no %s", key);
		}
		sum += each[i];
	}
	soft = fdinfo_value(_metadata, info, "drm-engine-soft");
	EXPECT_EQ(sum, soft);
	return soft;
}

/*
 * The engine names in @info as IGT's parser collects them: the <name> of
 * each drm-engine-<name>, drm-engine-capacity-<name>, drm-cycles-<name>
 * and drm-total-cycles-<name> key, once each, into @names (at most @max;
 * the rest are counted, not kept).  @engines counts the names that have a
 * busy-time key, drm-engine-<name>.  Returns the number of names.
 */
static unsigned int fdinfo_engine_names(const struct fdinfo *info,
					char names[][64], unsigned int max,
					unsigned int *engines)
{
	static const char *const prefixes[] = {
		"drm-engine-capacity-", "drm-engine-", "drm-cycles-",
		"drm-total-cycles-",
	};
	const char *line = info->text, *end;
	unsigned int n = 0, i, k;

	*engines = 0;
	for (; *line; line = *end ? end + 1 : end) {
		const char *name = NULL, *colon;
		size_t len;

		end = line + strcspn(line, "\n");
		colon = memchr(line, ':', end - line);
		for (k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++) {
			if (!strncmp(line, prefixes[k], strlen(prefixes[k]))) {
				name = line + strlen(prefixes[k]);
				break;
			}
		}
		if (!name || !colon || colon <= name)
			continue;
		len = colon - name;
		for (i = 0; i < n && i < max; i++)
			if (strlen(names[i]) == len &&
			    !strncmp(names[i], name, len))
				break;
		if (i == n) {
			if (n < max)
				snprintf(names[n], sizeof(names[n]), "%.*s",
					 (int)len, name);
			n++;
		}
		if (k == 1)
			(*engines)++;
	}
	return n;
}

FIXTURE(fdinfo) {
	int fd;
	struct drm_weave_device_info info;
};

FIXTURE_SETUP(fdinfo)
{
	self->fd = weave_test_open(_metadata);
	self->info = weave_test_info(_metadata, self->fd);
	ASSERT_GE(16u, self->info.num_queues);
}

FIXTURE_TEARDOWN(fdinfo)
{
	close(self->fd);
}

/* The standard keys are there, and each file has its own client id. */
TEST_F(fdinfo, names_the_driver_the_client_and_each_queue)
{
	int other = weave_test_open(_metadata);
	struct fdinfo a, b;
	char text[64], key[32];
	int64_t busy[16];

	fdinfo_read(_metadata, self->fd, &a);
	fdinfo_read(_metadata, other, &b);
	ASSERT_NE(NULL, fdinfo_text(&a, "drm-driver", text, sizeof(text)));
	ASSERT_STREQ("weave", text);
	ASSERT_LT(0, fdinfo_value(_metadata, &a, "drm-client-id"));
	ASSERT_LT(0, fdinfo_value(_metadata, &b, "drm-client-id"));
	ASSERT_NE(fdinfo_value(_metadata, &a, "drm-client-id"),
		  fdinfo_value(_metadata, &b, "drm-client-id"));

	/*
	 * One engine class, soft, of as many engines as queues; one key per
	 * queue, busy for nothing yet, and none past them.
	 */
	ASSERT_EQ(0, fdinfo_busy(_metadata, &a, self->info.num_queues, busy));
	ASSERT_EQ(self->info.num_queues,
		  fdinfo_value(_metadata, &a, "drm-engine-capacity-soft"));
	snprintf(key, sizeof(key), "weave-engine-q%u", self->info.num_queues);
	ASSERT_EQ(NULL, fdinfo_text(&a, key, text, sizeof(text)));
	ASSERT_EQ(NULL, fdinfo_text(&a, "drm-engine-q0", text, sizeof(text)));
	close(other);
}

/*
 * What IGT's parser needs, at this device's num_queues (the lane runs the
 * suite with the default and again with num_queues=16, the most weave
 * allows): the whole file within its one read, drm-driver and
 * drm-client-id, and at most 15 engine names, each with its busy time and
 * any capacity above zero.
 */
TEST_F(fdinfo, igt_parser_reads_it_whole_at_any_queue_count)
{
	char names[IGT_MAX_ENGINE_NAMES + 1][64], text[64], key[96];
	unsigned int n, engines, i;
	struct fdinfo info;

	fdinfo_read(_metadata, self->fd, &info);
	ASSERT_GT(IGT_FDINFO_BYTES - 1, info.len) {
		TH_LOG("%zu bytes of fdinfo with %u queues", info.len,
		       self->info.num_queues);
	}
	ASSERT_NE(NULL, fdinfo_text(&info, "drm-driver", text, sizeof(text)));
	ASSERT_LT(0, fdinfo_value(_metadata, &info, "drm-client-id"));

	n = fdinfo_engine_names(&info, names, IGT_MAX_ENGINE_NAMES + 1,
				&engines);
	ASSERT_GE(IGT_MAX_ENGINE_NAMES, n) {
		TH_LOG("%u engine names with %u queues", n,
		       self->info.num_queues);
	}
	ASSERT_LT(0u, n);
	ASSERT_EQ(n, engines) {
		TH_LOG("%u of %u engine names have a busy time", engines, n);
	}
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "drm-engine-capacity-%.63s",
			 names[i]);
		if (fdinfo_text(&info, key, text, sizeof(text)))
			ASSERT_LT(0, fdinfo_value(_metadata, &info, key));
	}
	TH_LOG("%u queues: %u engine name(s), %zu bytes", self->info.num_queues,
	       n, info.len);
}

/* The parser's count catches a file with a name per queue at 16 queues. */
TEST_F(fdinfo, igt_engine_name_count_sees_sixteen_names)
{
	char names[IGT_MAX_ENGINE_NAMES + 1][64];
	struct fdinfo info = { .len = 0 };
	unsigned int n, engines, i;

	for (i = 0; i < 16; i++)
		info.len += snprintf(info.text + info.len,
				     sizeof(info.text) - info.len,
				     "drm-engine-q%u:\t0 ns\n", i);
	info.len += snprintf(info.text + info.len, sizeof(info.text) - info.len,
			     "drm-engine-capacity-q3:\t1\ndrm-total-memory:\t0\n");
	n = fdinfo_engine_names(&info, names, IGT_MAX_ENGINE_NAMES + 1,
				&engines);
	ASSERT_EQ(16u, n);
	ASSERT_EQ(16u, engines);
	ASSERT_STREQ("q15", names[15]);
}

/*
 * Delays of a known length: the queues' busy time grows by at least their
 * sum, and no queue's by more than the time that passed.
 */
TEST_F(fdinfo, busy_time_covers_the_delays_and_no_more_than_the_wall)
{
	int64_t before[16], after[16], sum0, sum1, t0, t1;
	struct weave_test_batch b;
	uint32_t s[2], i, k;
	struct fdinfo info;

	for (k = 0; k < 2; k++)
		s[k] = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	fdinfo_read(_metadata, self->fd, &info);
	sum0 = fdinfo_busy(_metadata, &info, self->info.num_queues, before);

	t0 = weave_test_now();
	for (k = 0; k < 2; k++) {
		weave_test_batch_init(&b);
		for (i = 0; i < DELAYS; i++)
			weave_test_delay(&b, DELAY_US);
		weave_test_enqueue(_metadata, self->fd, s[k], &b);
		ASSERT_EQ(0, weave_flush(self->fd, s[k], NULL));
	}
	for (k = 0; k < 2; k++)
		weave_test_wait(_metadata, self->fd, s[k]);
	t1 = weave_test_now();

	fdinfo_read(_metadata, self->fd, &info);
	sum1 = fdinfo_busy(_metadata, &info, self->info.num_queues, after);
	ASSERT_LE(2ll * DELAYS * DELAY_US * 1000, sum1 - sum0) {
		TH_LOG("busy %lld ns for %u delays of %u us",
		       (long long)(sum1 - sum0), 2 * DELAYS, DELAY_US);
	}
	/* The class: at most its capacity times the time that passed. */
	ASSERT_GE((t1 - t0) * self->info.num_queues, sum1 - sum0);
	for (i = 0; i < self->info.num_queues; i++)
		ASSERT_GE(t1 - t0, after[i] - before[i]) {
			TH_LOG("queue %u busy %lld ns in %lld ns", i,
			       (long long)(after[i] - before[i]),
			       (long long)(t1 - t0));
		}
}

/* The memory keys count the file's buffers, and follow them. */
TEST_F(fdinfo, memory_keys_follow_the_buffers)
{
	struct weave_test_batch b;
	uint32_t big, small, s;
	struct fdinfo info;
	int dmabuf = -1;

	fdinfo_read(_metadata, self->fd, &info);
	ASSERT_EQ(0, fdinfo_value(_metadata, &info, "drm-total-memory"));
	/* The core's helper leaves it out while the file has no buffer. */
	ASSERT_GE(0, fdinfo_value(_metadata, &info, "drm-resident-memory"));

	big = weave_test_bo(_metadata, self->fd, MIB, 0);
	small = weave_test_bo(_metadata, self->fd, 64 * KIB, 0);
	fdinfo_read(_metadata, self->fd, &info);
	ASSERT_EQ(MIB + 64 * KIB,
		  fdinfo_value(_metadata, &info, "drm-total-memory"));
	ASSERT_EQ(0, fdinfo_value(_metadata, &info, "drm-shared-memory"));
	ASSERT_EQ(0, fdinfo_value(_metadata, &info, "drm-resident-memory"));

	/* Written by a task: its pages are in memory, and stay there. */
	s = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, big, 0, MIB, 0x5a5a5a5a);
	weave_test_enqueue(_metadata, self->fd, s, &b);
	weave_test_finish(_metadata, self->fd, s);
	fdinfo_read(_metadata, self->fd, &info);
	ASSERT_EQ(MIB, fdinfo_value(_metadata, &info, "drm-resident-memory"));

	/* Exported, the small one is shared. */
	ASSERT_EQ(0, weave_bo_export(self->fd, small, 0, &dmabuf));
	fdinfo_read(_metadata, self->fd, &info);
	ASSERT_EQ(64 * KIB,
		  fdinfo_value(_metadata, &info, "drm-shared-memory"));

	weave_test_close_bo(_metadata, self->fd, big);
	fdinfo_read(_metadata, self->fd, &info);
	ASSERT_EQ(64 * KIB,
		  fdinfo_value(_metadata, &info, "drm-total-memory"));
	ASSERT_EQ(0, fdinfo_value(_metadata, &info, "drm-resident-memory"));
	close(dmabuf);
}

/* weave's own keys say what the client usage query says. */
TEST_F(fdinfo, weave_keys_match_the_client_usage_query)
{
	struct drm_weave_client_usage usage;
	struct weave_test_batch b;
	struct fdinfo info;
	uint32_t s, bo;

	s = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_HIGH);
	bo = weave_test_bo(_metadata, self->fd, 256 * KIB, 0);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, 4096, 1);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, s, &b);
	weave_test_finish(_metadata, self->fd, s);
	usage = weave_test_client_idle(_metadata, self->fd);

	fdinfo_read(_metadata, self->fd, &info);
	ASSERT_EQ(2, fdinfo_value(_metadata, &info, "weave-streams"));
	ASSERT_EQ((int64_t)usage.streams,
		  fdinfo_value(_metadata, &info, "weave-streams"));
	ASSERT_EQ(0, fdinfo_value(_metadata, &info, "weave-pending-tasks"));
	ASSERT_EQ(0, fdinfo_value(_metadata, &info, "weave-jobs"));
	ASSERT_EQ((int64_t)usage.submitted_jobs,
		  fdinfo_value(_metadata, &info, "weave-submitted-jobs"));
	ASSERT_LT(0, fdinfo_value(_metadata, &info, "weave-submitted-jobs"));
	ASSERT_EQ((int64_t)usage.kernel_bytes,
		  fdinfo_value(_metadata, &info, "weave-kernel-memory"));
	ASSERT_EQ(256 * KIB,
		  fdinfo_value(_metadata, &info, "weave-charged-memory"));
	ASSERT_EQ(1, fdinfo_value(_metadata, &info, "weave-charged-bos"));
}

/* Readable with work in flight, which it counts. */
TEST_F(fdinfo, counts_work_in_flight)
{
	struct weave_test_batch b;
	struct fdinfo info;
	uint32_t s, i;

	s = weave_test_stream(_metadata, self->fd, DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_batch_init(&b);
	for (i = 0; i < 3; i++)
		weave_test_delay(&b, 200000);
	weave_test_enqueue(_metadata, self->fd, s, &b);
	fdinfo_read(_metadata, self->fd, &info);
	ASSERT_EQ(3, fdinfo_value(_metadata, &info, "weave-queued-tasks"));
	ASSERT_EQ(3, fdinfo_value(_metadata, &info, "weave-pending-tasks"));

	ASSERT_EQ(0, weave_flush(self->fd, s, NULL));
	fdinfo_read(_metadata, self->fd, &info);
	ASSERT_EQ(0, fdinfo_value(_metadata, &info, "weave-queued-tasks"));
	ASSERT_LT(0, fdinfo_value(_metadata, &info, "weave-jobs"));
	weave_test_wait(_metadata, self->fd, s);
}

TEST_HARNESS_MAIN
