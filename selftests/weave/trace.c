// SPDX-License-Identifier: GPL-2.0
/*
 * weave: the weave trace system's events, enabled through tracefs in a
 * trace instance of the test's own: what a workload records, and in what
 * order.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "weave_test.h"

#define TRACEFS		"/sys/kernel/tracing"
#define INSTANCE	TRACEFS "/instances/weave-test/"

struct trace_text {
	char text[1 << 16];
};

static void trace_read(struct __test_metadata *_metadata,
		       struct trace_text *t)
{
	size_t len = 0;
	ssize_t n;
	int fd;

	fd = open(INSTANCE "trace", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	while ((n = read(fd, t->text + len, sizeof(t->text) - 1 - len)) > 0)
		len += n;
	close(fd);
	ASSERT_LE(0, n);
	t->text[len] = 0;
}

/*
 * The first line at or after @from that has the event @event and every
 * word of @words (NULL-terminated); NULL if there is none.
 */
static const char *trace_find(const char *from, const char *event,
			      const char *const *words)
{
	char ev[64];

	snprintf(ev, sizeof(ev), " %s: ", event);
	for (; from && *from; from = strchr(from, '\n') ?
	     strchr(from, '\n') + 1 : NULL) {
		size_t len = strcspn(from, "\n");
		const char *at = strstr(from, ev);
		int i;

		if (!at || at >= from + len)
			continue;
		for (i = 0; words[i]; i++) {
			const char *w = strstr(from, words[i]);

			if (!w || w >= from + len)
				break;
		}
		if (!words[i])
			return from;
	}
	return NULL;
}

FIXTURE(trace) {
	int fd;
	uint32_t stream;
};

FIXTURE_SETUP(trace)
{
	struct stat st;

	if (stat(TRACEFS "/instances", &st))
		mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	ASSERT_EQ(0, stat(TRACEFS "/events/weave", &st)) {
		TH_LOG("no weave trace system in " TRACEFS ": %s",
		       strerror(errno));
	}
	rmdir(INSTANCE);
	ASSERT_EQ(0, mkdir(INSTANCE, 0700));
	self->fd = weave_test_open(_metadata);
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
}

FIXTURE_TEARDOWN(trace)
{
	close(self->fd);
	rmdir(INSTANCE);
}

/* Three no-ops, flushed and waited for. */
static void trace_workload(struct __test_metadata *_metadata, int fd,
			   uint32_t stream)
{
	struct weave_test_batch b;
	int i;

	weave_test_batch_init(&b);
	for (i = 0; i < 3; i++)
		weave_test_noop(&b);
	weave_test_enqueue(_metadata, fd, stream, &b);
	weave_test_finish(_metadata, fd, stream);
}

/*
 * The enqueue, then its job pushed, run and done, naming one finished
 * fence by context and seqno.
 */
TEST_F(trace, enqueue_then_push_run_done_of_one_fence)
{
	static struct trace_text t;
	const char *enq, *push, *run, *done;
	unsigned long long ctx, seqno;
	char stream[32], fence[96];

	ASSERT_EQ(0, weave_test_write_file(INSTANCE, "events/weave/enable",
					   "1"));
	trace_workload(_metadata, self->fd, self->stream);
	ASSERT_EQ(0, weave_test_write_file(INSTANCE, "events/weave/enable",
					   "0"));
	trace_read(_metadata, &t);

	snprintf(stream, sizeof(stream), "stream=%u ", self->stream);
	enq = trace_find(t.text, "weave_enqueue",
			 (const char *[]){ stream, "count=3 ", "recorded=0",
					   NULL });
	ASSERT_NE(NULL, enq) {
		TH_LOG("no enqueue in:\n%.2000s", t.text);
	}
	push = trace_find(enq, "weave_job_push",
			  (const char *[]){ "tasks=3 ", "error=0", NULL });
	ASSERT_NE(NULL, push) {
		TH_LOG("no push after the enqueue in:\n%.2000s", t.text);
	}
	ASSERT_EQ(2, sscanf(strstr(push, "context="),
			    "context=%llu seqno=%llu", &ctx, &seqno));
	snprintf(fence, sizeof(fence), "context=%llu seqno=%llu ", ctx, seqno);
	run = trace_find(push, "weave_job_run",
			 (const char *[]){ fence, "tasks=3 ", NULL });
	ASSERT_NE(NULL, run) {
		TH_LOG("no run of %s after its push in:\n%.2000s", fence,
		       t.text);
	}
	done = trace_find(run, "weave_job_done",
			  (const char *[]){ fence, "tasks=3 ", "error=0",
					    NULL });
	ASSERT_NE(NULL, done) {
		TH_LOG("no done of %s after its run in:\n%.2000s", fence,
		       t.text);
	}
}

/* With the events off, a workload records nothing of weave's. */
TEST_F(trace, disabled_events_record_nothing)
{
	static struct trace_text t;

	ASSERT_EQ(0, weave_test_write_file(INSTANCE, "events/weave/enable",
					   "0"));
	trace_workload(_metadata, self->fd, self->stream);
	trace_read(_metadata, &t);
	ASSERT_EQ(NULL, strstr(t.text, " weave_"));
}

TEST_HARNESS_MAIN
