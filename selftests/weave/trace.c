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

/*
 * Flush what is enqueued on the fixture's stream, wait for it, turn the
 * events off and read the trace.  Returns the finished fence of the last
 * job pushed, as "context=C seqno=S ", in @fence.
 */
static void trace_flush_job(struct __test_metadata *_metadata,
			    FIXTURE_DATA(trace) *self, struct trace_text *t,
			    char *fence, size_t size)
{
	unsigned long long ctx, seqno;
	const char *push, *next;

	weave_test_finish(_metadata, self->fd, self->stream);
	ASSERT_EQ(0, weave_test_write_file(INSTANCE, "events/weave/enable",
					   "0"));
	trace_read(_metadata, t);
	push = trace_find(t->text, "weave_job_push",
			  (const char *[]){ "error=0", NULL });
	ASSERT_NE(NULL, push) {
		TH_LOG("no push in:\n%.2000s", t->text);
	}
	while ((next = trace_find(strchr(push, '\n'), "weave_job_push",
				  (const char *[]){ "error=0", NULL })))
		push = next;
	ASSERT_EQ(2, sscanf(strstr(push, "context="),
			    "context=%llu seqno=%llu", &ctx, &seqno));
	snprintf(fence, size, "context=%llu seqno=%llu ", ctx, seqno);
}

/*
 * A job that starts with no-ops runs them inline in run_job and hands the
 * rest to the queue's worker at its first task that may sleep, a DELAY:
 * the handoff names that task, at most the third, and the job then runs
 * to its end.
 */
TEST_F(trace, job_hands_a_delay_to_the_worker)
{
	static struct trace_text t;
	const char *run, *off, *done;
	struct weave_test_batch b;
	unsigned int at;
	char fence[96];

	ASSERT_EQ(0, weave_test_write_file(INSTANCE, "events/weave/enable",
					   "1"));
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_noop(&b);
	weave_test_delay(&b, 1000);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	trace_flush_job(_metadata, self, &t, fence, sizeof(fence));

	run = trace_find(t.text, "weave_job_run",
			 (const char *[]){ fence, "tasks=4 ", NULL });
	ASSERT_NE(NULL, run) {
		TH_LOG("no run of %s in:\n%.2000s", fence, t.text);
	}
	off = trace_find(run, "weave_job_handoff",
			 (const char *[]){ fence, NULL });
	ASSERT_NE(NULL, off) {
		TH_LOG("the DELAY of %s ran inline:\n%.2000s", fence, t.text);
	}
	ASSERT_EQ(1, sscanf(strstr(off, "tasks="), "tasks=%u", &at));
	EXPECT_GE(2u, at);
	done = trace_find(off, "weave_job_done",
			  (const char *[]){ fence, "tasks=4 ", "error=0",
					    NULL });
	EXPECT_NE(NULL, done) {
		TH_LOG("no done of %s after its handoff in:\n%.2000s", fence,
		       t.text);
	}
}

/* Fills of 64 KiB, each of which may run inline. */
#define TRACE_FILL_BYTES	65536
#define TRACE_FILLS		(4 * WEAVE_TEST_BATCH)

/*
 * A job of fills that may each run inline, 16 MiB in all, spends the
 * inline budget (1 ms) long before its end: the queue's worker does the
 * rest, and the last fill's pattern is what the buffer holds.
 */
TEST_F(trace, long_job_spends_the_inline_budget)
{
	static struct trace_text t;
	struct weave_test_batch b;
	const char *off, *done;
	unsigned int at, i;
	char fence[96];
	uint32_t bo;

	bo = weave_test_bo(_metadata, self->fd, TRACE_FILL_BYTES, 0);
	ASSERT_EQ(0, weave_test_write_file(INSTANCE, "events/weave/enable",
					   "1"));
	for (i = 0; i < TRACE_FILLS; i++) {
		if (i % WEAVE_TEST_BATCH == 0)
			weave_test_batch_init(&b);
		weave_test_fill_task(&b, bo, 0, TRACE_FILL_BYTES, 0xf00 + i);
		if (b.n == WEAVE_TEST_BATCH)
			weave_test_enqueue(_metadata, self->fd, self->stream,
					   &b);
	}
	trace_flush_job(_metadata, self, &t, fence, sizeof(fence));

	off = trace_find(t.text, "weave_job_handoff",
			 (const char *[]){ "error=0", NULL });
	ASSERT_NE(NULL, off) {
		TH_LOG("16 MiB of fills ran inline:\n%.2000s", t.text);
	}
	ASSERT_EQ(1, sscanf(strstr(off, "tasks="), "tasks=%u", &at));
	EXPECT_LT(0u, at);
	done = trace_find(t.text, "weave_job_done",
			  (const char *[]){ fence, "error=0", NULL });
	EXPECT_NE(NULL, done) {
		TH_LOG("no done of %s in:\n%.2000s", fence, t.text);
	}
	weave_test_expect_words(_metadata, self->fd, bo, TRACE_FILL_BYTES,
				0xf00 + TRACE_FILLS - 1);
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
