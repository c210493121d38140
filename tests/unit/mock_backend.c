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
static void mock_unpack(struct mock_task *t, const struct weave_entry *e)
{
	*t = (struct mock_task) {
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

/*
 * Pack @t into the entry at @e, room for %WEAVE_ENTRY_MAX_SIZE bytes: its
 * head, then its parts where the layout helpers say, as the module's
 * preparer writes them.  A kernel id past 255 or a launch with staging is
 * a test's mistake (the preparer refuses them before the entry): abort.
 */
void mock_entry_pack(struct weave_entry *e, const struct mock_task *t)
{
	bool grid = t->kind == WEAVE_TASK_LAUNCH &&
		    (t->grid.x != 1 || t->grid.y != 1 || t->grid.z != 1);
	u32 nb = t->num_bindings < WEAVE_MAX_BINDINGS ?
		 t->num_bindings : WEAVE_MAX_BINDINGS;
	u32 ulen = t->uniform_len < WEAVE_MAX_UNIFORM_BYTES ?
		   t->uniform_len : WEAVE_MAX_UNIFORM_BYTES;

	if (t->kernel_id > 255 || (t->kind == WEAVE_TASK_LAUNCH && t->data)) {
		fprintf(stderr, "mock: a task no entry can hold\n");
		abort();
	}
	*e = (struct weave_entry) {
		.seqno = t->seqno,
		.stream_seqno = t->stream_seqno,
		.stream = t->stream,
		.label = t->label,
		.refuse = (s16)t->refuse,
		.kind = (u8)t->kind,
		.flags = grid ? WEAVE_ENTRY_GRID : 0,
		.slot = (u8)t->slot,
		.kernel_id = t->kind == WEAVE_TASK_LAUNCH ? (u8)t->kernel_id : 0,
		.num_bindings = (u8)nb,
		.uniform_len = (u8)ulen,
	};
	if (grid)
		memcpy(e + 1, &t->grid, sizeof(t->grid));
	if (t->kind == WEAVE_TASK_HOST_WRITE)
		*(struct weave_entry_write *)
			weave_core_entry_part(e, weave_core_entry_write_off(e)) =
			(struct weave_entry_write) { t->data, t->len };
	memcpy(weave_core_entry_part(e, weave_core_entry_bindings_off(e)),
	       t->bindings, nb * sizeof(t->bindings[0]));
	memcpy(weave_core_entry_part(e, weave_core_entry_uniforms_off(e)),
	       t->uniforms, ulen);
	/* The counts as the test gave them, for the core to judge. */
	e->num_bindings = (u8)t->num_bindings;
	e->uniform_len = (u8)t->uniform_len;
}

/*
 * Queue @t on @stream as ENQUEUE does: its entry, prepared, goes to
 * weave_core_register_entry(); on success @t gets the entry's stream,
 * slot and seqno.  Returns what that returned.
 */
int mock_register(struct weave_core *core, u32 stream, struct mock_task *t)
{
	u64 buf[WEAVE_ENTRY_MAX_SIZE / sizeof(u64)];
	struct weave_entry *e = (struct weave_entry *)buf;
	int ret;

	mock_entry_pack(e, t);
	ret = weave_core_register_entry(core, stream, e);
	if (ret)
		return ret;
	t->stream = e->stream;
	t->slot = e->slot;
	t->seqno = e->seqno;
	return 0;
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
