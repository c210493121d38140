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

/*
 * A test's time limit: a trace instance is made, and the events switched
 * on and off, for each test, which a loaded TCG VM with a debug kernel
 * can make take longer than the harness's default 30 s.
 */
#define TRACE_TIMEOUT_S	90

struct trace_text {
	char text[1 << 18];
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

/* Whether the line @len bytes at @line has the field @word ("name=value"). */
static int trace_has(const char *line, size_t len, const char *word)
{
	size_t n = strlen(word);
	const char *w;

	for (w = line; (w = strstr(w, word)) && w + n <= line + len; w++)
		if (w > line && w[-1] == ' ' &&
		    (w[n] == ' ' || w[n] == '\n' || !w[n]))
			return 1;
	return 0;
}

/*
 * The first line at or after @from that has the event @event and every
 * field of @words (NULL-terminated); NULL if there is none.
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
		for (i = 0; words[i]; i++)
			if (!trace_has(from, len, words[i]))
				break;
		if (!words[i])
			return from;
	}
	return NULL;
}

/* The line after @line. */
static const char *trace_next(const char *line)
{
	const char *nl = strchr(line, '\n');

	return nl ? nl + 1 : line + strlen(line);
}

/*
 * The first line after @after (or at the start, if @after is @t's text)
 * with @event and @words, failing the test if there is none.
 */
#define trace_expect(t, after, event, ...) ({				\
	const char *at_ = trace_find((after) == (t)->text ? (after) :	\
				     trace_next(after), (event),	\
				     (const char *[]){ __VA_ARGS__,	\
						       NULL });		\
	ASSERT_NE(NULL, at_) {						\
		TH_LOG("no %s with %s after \"%.*s\" in:\n%.4000s",	\
		       (event), #__VA_ARGS__,				\
		       (int)strcspn(after, "\n"), (after), (t)->text);	\
	}								\
	at_;								\
})

/* The value of the field @name of the trace line @line. */
static unsigned long long trace_field(const char *line, const char *name)
{
	char key[32];
	const char *at;

	snprintf(key, sizeof(key), " %s=", name);
	at = strstr(line, key);
	return at && at < trace_next(line) ?
	       strtoull(at + strlen(key), NULL, 0) : ~0ull;
}

/* "context=C" and "seqno=S" of the job named on @line, into @fence. */
struct trace_fence {
	char context[48];
	char seqno[48];
};

static struct trace_fence trace_fence_of(const char *line)
{
	struct trace_fence f;

	snprintf(f.context, sizeof(f.context), "context=%llu",
		 trace_field(line, "context"));
	snprintf(f.seqno, sizeof(f.seqno), "seqno=%llu",
		 trace_field(line, "seqno"));
	return f;
}

/* A field "name=value" for trace_expect(). */
static const char *trace_kv(char *buf, size_t size, const char *name,
			    long long value)
{
	snprintf(buf, size, "%s=%lld", name, value);
	return buf;
}

#define KV(name, value) trace_kv((char[64]){ 0 }, 64, (name), (value))

FIXTURE(trace) {
	WEAVE_TEST_FILE_FIELDS;
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
	/* One clock for every CPU's events, so that their order holds. */
	ASSERT_EQ(0, weave_test_write_file(INSTANCE, "trace_clock", "global"));
	WEAVE_TEST_FILE_SETUP();
	self->stream = weave_test_stream(_metadata, self->fd,
					 DRM_WEAVE_PRIORITY_NORMAL);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_STRATEGY,
			 DRM_WEAVE_STRATEGY_INTERLEAVE);
}

FIXTURE_TEARDOWN(trace)
{
	close(self->fd);
	rmdir(INSTANCE);
}

static void trace_enable(struct __test_metadata *_metadata, int on)
{
	ASSERT_EQ(0, weave_test_write_file(INSTANCE, "events/weave/enable",
					   on ? "1" : "0"));
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
 * The enqueue, then its job pushed, run and done, naming its stream and
 * one finished fence by context and seqno.
 */
TEST_F_TIMEOUT(trace, enqueue_then_push_run_done_of_one_fence,
	       TRACE_TIMEOUT_S)
{
	static struct trace_text t;
	const char *at, *s = KV("stream", self->stream);
	struct trace_fence f;

	trace_enable(_metadata, 1);
	trace_workload(_metadata, self->fd, self->stream);
	trace_enable(_metadata, 0);
	trace_read(_metadata, &t);

	at = trace_expect(&t, t.text, "weave_enqueue", s, "count=3",
			  "recorded=0");
	at = trace_expect(&t, at, "weave_job_push", s, "tasks=3", "error=0");
	f = trace_fence_of(at);
	at = trace_expect(&t, at, "weave_job_run", s, f.context, f.seqno,
			  "tasks=3");
	trace_expect(&t, at, "weave_job_done", s, f.context, f.seqno,
		     "tasks=3", "error=0");
}

/*
 * A flush's execution says its strategy, slots, tasks and the job it
 * pushed, after that job's push: interleaved, then sequential; and a
 * FLUSH_ALL of two slots interleaves their tasks into one job of no one
 * stream.
 */
TEST_F_TIMEOUT(trace, exec_says_strategy_slots_tasks_and_jobs,
	       TRACE_TIMEOUT_S)
{
	static struct trace_text t;
	const char *at, *s = KV("stream", self->stream);
	uint32_t other;
	int i;

	other = weave_test_stream(_metadata, self->fd,
				  DRM_WEAVE_PRIORITY_NORMAL);
	trace_enable(_metadata, 1);
	trace_workload(_metadata, self->fd, self->stream);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_STRATEGY,
			 DRM_WEAVE_STRATEGY_SEQUENTIAL);
	for (i = 0; i < 2; i++)
		weave_test_enqueue_noop(_metadata, self->fd, self->stream);
	weave_test_finish(_metadata, self->fd, self->stream);
	weave_test_param(_metadata, self->fd, DRM_WEAVE_PARAM_STRATEGY,
			 DRM_WEAVE_STRATEGY_INTERLEAVE);
	weave_test_enqueue_noop(_metadata, self->fd, self->stream);
	weave_test_enqueue_noop(_metadata, self->fd, other);
	ASSERT_EQ(0, weave_flush_all(self->fd, NULL));
	weave_test_wait(_metadata, self->fd, self->stream);
	weave_test_wait(_metadata, self->fd, other);
	trace_enable(_metadata, 0);
	trace_read(_metadata, &t);

	at = trace_expect(&t, t.text, "weave_job_push", s, "tasks=3");
	at = trace_expect(&t, at, "weave_exec", s, "strategy=interleave",
			  "slots=1", "tasks=3", "jobs=1");
	at = trace_expect(&t, at, "weave_job_push", s, "tasks=2");
	at = trace_expect(&t, at, "weave_exec", s, "strategy=sequential",
			  "slots=1", "tasks=2", "jobs=1");
	at = trace_expect(&t, at, "weave_job_push", "stream=0", "tasks=2");
	trace_expect(&t, at, "weave_exec", "stream=0", "strategy=interleave",
		     "slots=2", "tasks=2", "jobs=1");
}

/*
 * A job that reads a buffer another stream's job is still writing waits
 * for it: weave_job_dep names the reader's fence and the writer's.
 */
TEST_F_TIMEOUT(trace, job_dep_names_the_writers_fence,
	       TRACE_TIMEOUT_S)
{
	static struct trace_text t;
	const char *push, *at, *a = KV("stream", self->stream);
	uint32_t reader, x, y;
	struct trace_fence w, r;
	struct weave_test_batch b;
	char dc[64], ds[64];

	reader = weave_test_stream(_metadata, self->fd,
				   DRM_WEAVE_PRIORITY_NORMAL);
	x = weave_test_bo(_metadata, self->fd, self->page, 0);
	y = weave_test_bo(_metadata, self->fd, self->page, 0);
	trace_enable(_metadata, 1);
	/* The writer holds X long enough for the reader to be pushed. */
	weave_test_batch_init(&b);
	weave_test_delay(&b, 500000);
	weave_test_fill_task(&b, x, 0, self->page, 0x7ace);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	weave_test_copy_task(&b, x, 0, y, 0, self->page);
	weave_test_enqueue(_metadata, self->fd, reader, &b);
	weave_test_finish(_metadata, self->fd, reader);
	trace_enable(_metadata, 0);
	trace_read(_metadata, &t);
	weave_test_expect_words(_metadata, self->fd, y, self->page, 0x7ace);

	at = trace_expect(&t, t.text, "weave_job_push", a, "tasks=2");
	w = trace_fence_of(at);
	push = trace_expect(&t, at, "weave_job_push",
			    KV("stream", reader), "tasks=1");
	r = trace_fence_of(push);
	snprintf(dc, sizeof(dc), "dep_%s", w.context);
	snprintf(ds, sizeof(ds), "dep_%s", w.seqno);
	trace_expect(&t, push, "weave_job_dep", r.context, r.seqno, dc, ds);
}

/* Each task's event, in index order, between its job's run and done. */
TEST_F_TIMEOUT(trace, tasks_in_order_between_run_and_done,
	       TRACE_TIMEOUT_S)
{
	static struct trace_text t;
	const char *at;
	struct weave_test_batch b;
	struct trace_fence f;
	uint32_t x;

	x = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_fill_task(&b, x, 0, self->page, 1);
	weave_test_delay(&b, 1000);
	trace_enable(_metadata, 1);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	weave_test_finish(_metadata, self->fd, self->stream);
	trace_enable(_metadata, 0);
	trace_read(_metadata, &t);

	at = trace_expect(&t, t.text, "weave_job_run", "tasks=3");
	f = trace_fence_of(at);
	at = trace_expect(&t, at, "weave_task", f.context, f.seqno, "index=0",
			  KV("kernel", DRM_WEAVE_KERNEL_NOOP), "error=0");
	at = trace_expect(&t, at, "weave_task", f.context, f.seqno, "index=1",
			  KV("kernel", DRM_WEAVE_KERNEL_FILL), "error=0");
	at = trace_expect(&t, at, "weave_task", f.context, f.seqno, "index=2",
			  KV("kernel", DRM_WEAVE_KERNEL_DELAY), "error=0");
	at = trace_expect(&t, at, "weave_job_done", f.context, f.seqno,
			  "tasks=3");
	/* No task of the job after its done. */
	ASSERT_EQ(NULL, trace_find(trace_next(at), "weave_task",
				   (const char *[]){ f.context, f.seqno,
						     NULL }));
}

/*
 * A failing task records its failure, then a task reading what it should
 * have written is skipped, inheriting the failure: the record is the id
 * CHECK reports.  The job itself ends without an error.
 */
TEST_F_TIMEOUT(trace, failure_then_skip_of_the_reported_record,
	       TRACE_TIMEOUT_S)
{
	static struct trace_text t;
	const char *at, *rec;
	struct weave_test_report r;
	struct weave_test_batch b;
	struct trace_fence f;
	uint32_t x, y;

	x = weave_test_bo(_metadata, self->fd, self->page, 0);
	y = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fail_task(&b, x, 0, self->page, EIO);
	weave_test_copy_task(&b, x, 0, y, 0, self->page);
	trace_enable(_metadata, 1);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	weave_test_finish(_metadata, self->fd, self->stream);
	trace_enable(_metadata, 0);
	trace_read(_metadata, &t);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, y, 0, self->page,
					&r));
	rec = KV("record", r.failure[0].id);

	at = trace_expect(&t, t.text, "weave_job_run", "tasks=2");
	f = trace_fence_of(at);
	at = trace_expect(&t, at, "weave_failure", f.context, f.seqno,
			  "index=0", KV("error", -EIO), rec);
	at = trace_expect(&t, at, "weave_task", f.context, f.seqno, "index=0",
			  KV("kernel", DRM_WEAVE_KERNEL_FAIL),
			  KV("error", -EIO));
	at = trace_expect(&t, at, "weave_skip", f.context, f.seqno, "index=1",
			  rec);
	at = trace_expect(&t, at, "weave_task", f.context, f.seqno, "index=1",
			  KV("kernel", DRM_WEAVE_KERNEL_COPY),
			  KV("error", -EIO));
	trace_expect(&t, at, "weave_job_done", f.context, f.seqno, "tasks=2",
		     "error=0");
}

/*
 * A capture window opens, records an enqueue and closes as a graph; its
 * replay pushes one job of the graph's tasks on the stream.
 */
TEST_F_TIMEOUT(trace, capture_window_then_replay,
	       TRACE_TIMEOUT_S)
{
	static struct trace_text t;
	const char *at, *s = KV("stream", self->stream);
	struct drm_weave_capture c;
	struct weave_test_batch b;
	const char *g;

	ASSERT_LE(5u, self->info.uapi_minor);
	trace_enable(_metadata, 1);
	ASSERT_EQ(0, weave_capture(self->fd, self->stream,
				   DRM_WEAVE_CAPTURE_PREPARE, &c));
	ASSERT_EQ(0, weave_capture(self->fd, self->stream,
				   DRM_WEAVE_CAPTURE_BEGIN, &c));
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	ASSERT_EQ(0, weave_capture(self->fd, self->stream,
				   DRM_WEAVE_CAPTURE_END, &c));
	ASSERT_NE(0u, c.graph);
	ASSERT_EQ(2u, c.ntasks);
	ASSERT_EQ(0, weave_replay(self->fd, c.graph, self->stream, NULL, 0,
				  NULL, NULL));
	weave_test_wait(_metadata, self->fd, self->stream);
	trace_enable(_metadata, 0);
	trace_read(_metadata, &t);
	g = KV("graph", c.graph);

	at = trace_expect(&t, t.text, "weave_capture", s, "graph=0",
			  "begin=1", "tasks=0");
	at = trace_expect(&t, at, "weave_enqueue", s, "count=2",
			  "recorded=1");
	at = trace_expect(&t, at, "weave_capture", s, g, "begin=0",
			  "tasks=2");
	at = trace_expect(&t, at, "weave_job_push", s, "tasks=2");
	trace_expect(&t, at, "weave_replay", g, s, "tasks=2", "jobs=1");
	EXPECT_EQ(0, weave_graph_destroy(self->fd, c.graph));
}

/*
 * A hung job with the events on: its run, the watchdog's timeout, the
 * timeout failure on what it should have written, and its done with
 * -ETIMEDOUT, none of its tasks having finished; then the stream's next
 * job runs as any other.
 */
TEST_F_TIMEOUT(trace, timeout_then_done_and_the_device_still_works,
	       120)
{
	uint64_t timeout_ns = self->info.job_timeout_ms * 1000000ull;
	const char *at, *s = KV("stream", self->stream);
	struct weave_test_report r;
	static struct trace_text t;
	struct weave_test_batch b;
	struct trace_fence f;
	uint32_t x;

	ASSERT_NE(0u, self->info.job_timeout_ms);
	x = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_delay(&b, weave_test_hang_delay_us(_metadata, &self->info));
	weave_test_fill_task(&b, x, 0, self->page, 0xdead);
	trace_enable(_metadata, 1);
	weave_test_enqueue(_metadata, self->fd, self->stream, &b);
	ASSERT_EQ(0, weave_flush(self->fd, self->stream, NULL));
	ASSERT_EQ(0, weave_wait(self->fd, self->stream,
				weave_timeout_ns(5 * timeout_ns +
						 10 * WEAVE_TEST_SEC)));
	trace_workload(_metadata, self->fd, self->stream);
	trace_enable(_metadata, 0);
	trace_read(_metadata, &t);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, x, 0, self->page,
					&r));
	EXPECT_EQ(-ETIMEDOUT, r.failure[0].error);

	at = trace_expect(&t, t.text, "weave_job_push", s, "tasks=2");
	f = trace_fence_of(at);
	at = trace_expect(&t, at, "weave_job_run", s, f.context, f.seqno,
			  "tasks=2");
	/*
	 * The timeout fires on whichever CPU its timer does, and the failure
	 * it causes is recorded by a worker on another; under TCG the two
	 * may carry the same timestamp, and the merged trace then lists them
	 * in either order.  Both come after the run.
	 */
	trace_expect(&t, at, "weave_job_timeout", s, f.context, f.seqno,
		     KV("error", -ETIMEDOUT));
	at = trace_expect(&t, at, "weave_failure", f.context, f.seqno,
			  "index=0", KV("error", -ETIMEDOUT),
			  KV("record", r.failure[0].id));
	at = trace_expect(&t, at, "weave_job_done", s, f.context, f.seqno,
			  "tasks=0", KV("error", -ETIMEDOUT));
	/* Cut short in its first task: no task of it finished. */
	ASSERT_EQ(NULL, trace_find(t.text, "weave_task",
				   (const char *[]){ f.context, f.seqno,
						     NULL }));
	at = trace_expect(&t, at, "weave_job_push", s, "tasks=3");
	f = trace_fence_of(at);
	trace_expect(&t, at, "weave_job_done", s, f.context, f.seqno,
		     "tasks=3", "error=0");
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
	snprintf(fence, size, "context=%llu seqno=%llu", ctx, seqno);
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
			 (const char *[]){ fence, "tasks=4", NULL });
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
			  (const char *[]){ fence, "tasks=4", "error=0",
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
TEST_F_TIMEOUT(trace, disabled_events_record_nothing,
	       TRACE_TIMEOUT_S)
{
	static struct trace_text t;

	trace_enable(_metadata, 0);
	trace_workload(_metadata, self->fd, self->stream);
	trace_read(_metadata, &t);
	ASSERT_EQ(NULL, strstr(t.text, " weave_"));
}

TEST_HARNESS_MAIN
