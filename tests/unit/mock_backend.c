// SPDX-License-Identifier: GPL-2.0-only
/* A mock weave backend that records the exact sequence of calls. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "mock_backend.h"

static void mock_record(struct mock_backend *m, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (m->len && m->len < sizeof(m->log) - 1)
		m->log[m->len++] = ' ';
	va_start(ap, fmt);
	n = vsnprintf(m->log + m->len, sizeof(m->log) - m->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(m->log) - m->len) {
		fprintf(stderr, "mock: call log overflow\n");
		abort();
	}
	m->len += n;
}

/* The task an entry was packed from, as far as the entry keeps it. */
static void mock_unpack(struct weave_task *t, const struct weave_entry *e)
{
	*t = (struct weave_task) {
		.kind = e->kind,
		.stream = e->stream,
		.seqno = e->seqno,
		.slot = e->slot,
		.num_bindings = e->num_bindings,
		.kernel_id = e->kernel_id,
		.grid = weave_core_entry_grid(e),
		.uniform_len = e->uniform_len,
		.data = weave_core_entry_data(e),
		.len = weave_core_entry_len(e),
		.stream_seqno = e->stream_seqno,
		.label = e->label,
		.refuse = e->refuse,
	};
	memcpy(t->bindings, weave_core_entry_bindings(e),
	       e->num_bindings * sizeof(*t->bindings));
	memcpy(t->uniforms, weave_core_entry_uniforms(e), e->uniform_len);
}

/* A core on @m with @lock and these limits, interleaving. */
struct weave_core_params mock_params(struct mock_backend *m,
				     struct mutex *lock, u32 max_streams,
				     u32 max_tasks)
{
	return (struct weave_core_params) {
		.ops = &mock_ops,
		.backend = m,
		.lock = lock,
		.track_idle = mock_track_idle,
		.max_streams = max_streams,
		.max_tasks = max_tasks,
		.strategy = WEAVE_STRATEGY_INTERLEAVE,
	};
}

static int mock_enqueue(void *backend, struct weave_bstream *bs,
			const struct weave_entry *task,
			struct weave_failures *failures)
{
	struct mock_backend *m = backend;
	bool write = task->kind == WEAVE_TASK_HOST_WRITE;
	bool refuse = m->fail_enqueue_err &&
		      (write ? m->fail_enqueue_writes :
			       task->kernel_id == m->fail_enqueue_kernel);

	(void)failures;
	if (write)
		mock_record(m, "W%u:%llu%s", bs->slot,
			    (unsigned long long)task->seqno, refuse ? "!" : "");
	else
		mock_record(m, "E%u:%u%s", bs->slot, task->kernel_id,
			    refuse ? "!" : "");
	if (refuse)
		return m->fail_enqueue_err;	/* took nothing */
	m->taken[task->slot]++;
	if (m->num_seen < MOCK_SEEN)
		mock_unpack(&m->seen[m->num_seen++], task);
	if (write)
		kvfree(weave_core_entry_data(task));	/* the backend's now */
	return 0;
}

static void mock_fail(void *backend, struct weave_bstream *bs,
		      const struct weave_entry *task, int err,
		      struct weave_failures *failures)
{
	struct mock_backend *m = backend;

	(void)failures;
	m->failed_err = err;
	m->taken[task->slot]++;
	if (task->kind == WEAVE_TASK_HOST_WRITE) {
		mock_record(m, "XW%u:%llu", bs->slot,
			    (unsigned long long)task->seqno);
		kvfree(weave_core_entry_data(task));	/* the backend's now */
		return;
	}
	mock_record(m, "X%u:%u", bs->slot, task->kernel_id);
}

static int mock_flush(void *backend, struct weave_bstream *bs,
		      struct weave_failures *failures)
{
	struct mock_backend *m = backend;

	(void)failures;
	mock_record(m, "F%u", bs->slot);
	if (m->fail_flush_err && bs->slot == m->fail_flush_slot)
		return m->fail_flush_err;
	return 0;
}

static struct weave_bstream *mock_create_stream(void *backend, u32 slot,
						u32 max_tasks)
{
	struct mock_backend *m = backend;
	struct weave_bstream *bs;

	mock_record(m, "C%u", slot);
	if (m->fail_create_err && slot == m->fail_create_slot)
		return ERR_PTR(m->fail_create_err);
	if (slot >= MOCK_SLOTS || m->streams[slot]) {
		fprintf(stderr, "mock: bad or second create of slot %u\n", slot);
		abort();
	}
	bs = calloc(1, sizeof(*bs));
	if (!bs)
		return ERR_PTR(-ENOMEM);
	bs->slot = slot;
	bs->max_tasks = max_tasks;
	m->streams[slot] = bs;
	m->live_streams++;
	return bs;
}

static void mock_destroy_stream(void *backend, struct weave_bstream *bs)
{
	struct mock_backend *m = backend;

	mock_record(m, "D%u", bs->slot);
	m->streams[bs->slot] = NULL;
	m->live_streams--;
	free(bs);
}

static void mock_drop(void *backend, const struct weave_entry *task)
{
	(void)backend;
	kvfree(weave_core_entry_data(task));
}

static bool mock_requires_isolation(void *backend,
				    const struct weave_bstream *bs)
{
	(void)backend;
	return bs->isolated;
}

static bool mock_observe(void *backend)
{
	struct mock_backend *m = backend;

	return m->observe;
}

static void mock_executed(void *backend, const struct weave_core_exec *ex)
{
	mock_record(backend, "R%u:%c:%u:%u", ex->stream,
		    ex->strategy == WEAVE_STRATEGY_INTERLEAVE ? 'i' : 's',
		    ex->slots, ex->tasks);
}

const struct weave_backend_ops mock_ops = {
	.enqueue = mock_enqueue,
	.fail = mock_fail,
	.drop = mock_drop,
	.flush = mock_flush,
	.create_stream = mock_create_stream,
	.destroy_stream = mock_destroy_stream,
	.requires_isolation = mock_requires_isolation,
	.observe = mock_observe,
	.executed = mock_executed,
};

void mock_track_idle(struct weave_core *core, struct weave_track *track)
{
	struct mock_backend *m = core->backend;

	if (track < m->tracks || track >= m->tracks + MOCK_TRACKS || track->queued) {
		fprintf(stderr, "mock: bad idle track\n");
		abort();
	}
	mock_record(m, "T%u", (unsigned int)(track - m->tracks));
}

const char *mock_log(const struct mock_backend *m)
{
	return m->log;
}

void mock_clear(struct mock_backend *m)
{
	m->len = 0;
	m->log[0] = '\0';
}

void mock_isolate(struct mock_backend *m, u32 slot, bool isolated)
{
	if (slot >= MOCK_SLOTS || !m->streams[slot]) {
		fprintf(stderr, "mock: isolating unknown slot %u\n", slot);
		abort();
	}
	m->streams[slot]->isolated = isolated;
}
