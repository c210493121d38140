// SPDX-License-Identifier: GPL-2.0
/*
 * weave: a random model check of failures on bytes through the real
 * module: what CHECK and READ say of every range matches a shadow model.
 *
 * Each test runs a few hundred random tasks (FILL, FAIL, COPY, ADD_U32,
 * host writes) on a few streams of one file over a few page-sized
 * buffers, one stream's batch at a time, and mirrors them in a model that
 * keeps, per u32 word, its value and the failure it carries, named by the
 * label of its root task.  A task that reads a failed word is skipped and
 * its writes take the failure of the lowest failed byte of its first read
 * binding that has one.  After each batch it CHECKs and READs random
 * ranges, and now and then replaces a buffer by a fresh one.  At the end
 * every buffer is closed and the device holds none of them.
 *
 * The seed is printed; WEAVE_MODEL_SEED=<seed> replays it (the first test
 * runs that seed, the next ones the seeds after it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weave_test.h"
#include "weave_rand.h"

#define M_BUFS		4
#define M_STREAMS	3
#define M_TASKS		300	/* tasks per test */
#define M_BATCH		6	/* tasks per batch, at most */
#define M_HOST_WORDS	256	/* words of a host write, at most */
#define M_LABELS	(M_TASKS + M_BATCH + 1)
#define M_LIVE_MAX	16	/* live failures the model allows itself */

struct mbuf {
	uint32_t handle;
	uint32_t *val;		/* per word: its value, if good */
	uint32_t *taint;	/* per word: root label of its failure, or 0 */
};

/* A failure, by the label of its root FAIL task. */
struct mroot {
	int err;
	uint32_t stream;
	uint64_t seqno;
};

FIXTURE(model) {
	int fd;
	uint64_t page;
	uint32_t words;		/* per buffer */
	uint64_t seed, rng;
	uint32_t live_cap;
	uint32_t stream[M_STREAMS];
	struct mbuf buf[M_BUFS];
	struct mroot root[M_LABELS];
	uint32_t next_label;
	uint32_t tasks, round;
	struct drm_weave_memory_usage base;
	struct weave_test_batch b;
	uint32_t batch_label[WEAVE_TEST_BATCH];
	uint32_t host[M_BATCH][M_HOST_WORDS];
	uint32_t *tmp;		/* a snapshot of a range's words */
	uint32_t *data;		/* what READ copies */
	struct weave_test_report *r;
	struct weave_test_report *q;
};

FIXTURE_VARIANT(model) {
	unsigned int index;
};

FIXTURE_VARIANT_ADD(model, seed_a) { .index = 0 };
FIXTURE_VARIANT_ADD(model, seed_b) { .index = 1 };
FIXTURE_VARIANT_ADD(model, seed_c) { .index = 2 };
FIXTURE_VARIANT_ADD(model, seed_d) { .index = 3 };
FIXTURE_VARIANT_ADD(model, seed_e) { .index = 4 };

typedef FIXTURE_DATA(model) model_t;

static void mbuf_new(struct __test_metadata *_metadata, model_t *self,
		     struct mbuf *m)
{
	m->handle = weave_test_bo(_metadata, self->fd, self->page, 0);
	memset(m->val, 0, self->page);
	memset(m->taint, 0, self->words * sizeof(uint32_t));
}

FIXTURE_SETUP(model)
{
	struct drm_weave_device_info info;
	const char *env = getenv("WEAVE_MODEL_SEED");
	unsigned int i;

	self->fd = weave_test_open(_metadata);
	info = weave_test_info(_metadata, self->fd);
	ASSERT_LE(3u, info.uapi_minor);
	self->page = info.page_size;
	self->words = self->page / 4;
	self->live_cap = M_LIVE_MAX;
	if (self->live_cap > info.max_live_failures / 2)
		self->live_cap = info.max_live_failures / 2;
	if (self->live_cap > info.max_report_failures)
		self->live_cap = info.max_report_failures;
	ASSERT_LT(0u, self->live_cap);
	self->seed = env ? strtoull(env, NULL, 0) + variant->index :
		     weave_rand_seed();
	self->rng = self->seed;
	TH_LOG("seed 0x%llx (WEAVE_MODEL_SEED=0x%llx replays it)",
	       (unsigned long long)self->seed,
	       (unsigned long long)(self->seed - variant->index));

	self->base = weave_test_usage(_metadata, self->fd);
	for (i = 0; i < M_STREAMS; i++)
		self->stream[i] = weave_test_stream(_metadata, self->fd,
						    DRM_WEAVE_PRIORITY_NORMAL);
	for (i = 0; i < M_BUFS; i++) {
		self->buf[i].val = calloc(self->words, sizeof(uint32_t));
		self->buf[i].taint = calloc(self->words, sizeof(uint32_t));
		ASSERT_NE(NULL, self->buf[i].val);
		ASSERT_NE(NULL, self->buf[i].taint);
		mbuf_new(_metadata, self, &self->buf[i]);
	}
	self->tmp = malloc(2 * self->page);
	self->data = malloc(self->page);
	self->r = malloc(sizeof(*self->r));
	self->q = malloc(sizeof(*self->q));
	ASSERT_NE(NULL, self->tmp);
	ASSERT_NE(NULL, self->data);
	ASSERT_NE(NULL, self->r);
	ASSERT_NE(NULL, self->q);
	self->next_label = 1;
	weave_test_batch_init(&self->b);
}

FIXTURE_TEARDOWN(model)
{
	unsigned int i;

	for (i = 0; i < M_BUFS; i++) {
		free(self->buf[i].val);
		free(self->buf[i].taint);
	}
	free(self->tmp);
	free(self->data);
	free(self->r);
	free(self->q);
	close(self->fd);
}

/* --- the model ------------------------------------------------------------ */

/* A word range of a buffer. */
struct mrange {
	unsigned int buf;
	uint32_t off;	/* in words */
	uint32_t len;	/* in words, not zero */
};

static uint64_t rnd(model_t *self, uint64_t n)
{
	return weave_rand_below(&self->rng, n);
}

/* A random range of at most @max words: mostly short, now and then long. */
static struct mrange pick(model_t *self, uint32_t max)
{
	static const uint32_t lens[] = { 4, 16, 64, UINT32_MAX };
	struct mrange r;
	uint32_t room, cap;

	r.buf = rnd(self, M_BUFS);
	r.off = rnd(self, self->words);
	room = self->words - r.off;
	if (room > max)
		room = max;
	cap = lens[rnd(self, 4)];
	if (room > cap)
		room = cap;
	r.len = 1 + rnd(self, room);
	return r;
}

static int overlap(struct mrange a, struct mrange b)
{
	return a.buf == b.buf && a.off < b.off + b.len &&
	       b.off < a.off + a.len;
}

static int same(struct mrange a, struct mrange b)
{
	return a.buf == b.buf && a.off == b.off && a.len == b.len;
}

/* The failure on the lowest failed word of @r, or 0. */
static uint32_t first_taint(model_t *self, struct mrange r)
{
	uint32_t i;

	for (i = r.off; i < r.off + r.len; i++)
		if (self->buf[r.buf].taint[i])
			return self->buf[r.buf].taint[i];
	return 0;
}

static void taint(model_t *self, struct mrange r, uint32_t label)
{
	uint32_t i;

	for (i = r.off; i < r.off + r.len; i++)
		self->buf[r.buf].taint[i] = label;
}

/* Good words @src (a snapshot) written to @r. */
static void write_words(model_t *self, struct mrange r, const uint32_t *src)
{
	memcpy(&self->buf[r.buf].val[r.off], src, r.len * 4);
	taint(self, r, 0);
}

/* The distinct failures on @r, by their first word: their number. */
static uint32_t failures_on(model_t *self, struct mrange r, uint32_t *out)
{
	uint32_t i, j, n = 0, t;

	for (i = r.off; i < r.off + r.len; i++) {
		t = self->buf[r.buf].taint[i];
		if (!t)
			continue;
		for (j = 0; j < n && out[j] != t; j++)
			;
		if (j == n)
			out[n++] = t;
	}
	return n;
}

/* Whether any word of buffer @buf carries @label. */
static int carries(model_t *self, unsigned int buf, uint32_t label)
{
	uint32_t i;

	for (i = 0; i < self->words; i++)
		if (self->buf[buf].taint[i] == label)
			return 1;
	return 0;
}

static uint32_t live_failures(model_t *self)
{
	struct mrange all = { .off = 0, .len = self->words };
	uint32_t seen[M_LABELS], labels[M_LABELS], n = 0, k, i, j;

	for (all.buf = 0; all.buf < M_BUFS; all.buf++) {
		k = failures_on(self, all, labels);
		for (i = 0; i < k; i++) {
			for (j = 0; j < n && seen[j] != labels[i]; j++)
				;
			if (j == n)
				seen[n++] = labels[i];
		}
	}
	return n;
}

static struct drm_weave_binding bind(model_t *self, struct mrange r,
				     uint32_t access)
{
	return weave_binding(self->buf[r.buf].handle, access, r.off * 4ull,
			     r.len * 4ull);
}

/* --- the tasks: each appended to the batch and applied to the model ------- */

static void add_label(model_t *self, struct drm_weave_task *t)
{
	t->label = self->next_label++;
	self->batch_label[self->b.n - 1] = t->label;
}

static void op_fill(model_t *self)
{
	struct mrange r = pick(self, self->words);
	uint32_t word = (uint32_t)weave_rand64(&self->rng), i;

	add_label(self, weave_test_fill_task(&self->b,
					     self->buf[r.buf].handle,
					     r.off * 4ull, r.len * 4ull,
					     word));
	for (i = 0; i < r.len; i++)
		self->tmp[i] = word;
	write_words(self, r, self->tmp);
}

static void op_fail(model_t *self)
{
	static const int errs[] = { EIO, EINVAL, ENOMEM, EPROTO, ENODATA };
	struct drm_weave_binding bd[2];
	struct mrange r[2];
	unsigned int n = 1 + rnd(self, 2), i;
	int err = errs[rnd(self, 5)];
	struct drm_weave_task *t;

	for (i = 0; i < n; i++) {
		r[i] = pick(self, 128);
		bd[i] = bind(self, r[i], DRM_WEAVE_ACCESS_WRITE);
	}
	t = weave_test_launch(&self->b, DRM_WEAVE_KERNEL_FAIL, bd, n, 1,
			      (uint32_t)err);
	add_label(self, t);
	self->root[t->label].err = -err;
	for (i = 0; i < n; i++)
		taint(self, r[i], t->label);
}

static void op_copy(model_t *self)
{
	struct mrange src = pick(self, self->words), dst;
	struct drm_weave_binding bd[2];
	uint32_t f;

	dst = pick(self, self->words);
	dst.len = src.len;
	if (dst.off + dst.len > self->words)
		dst.off = self->words - dst.len;
	bd[0] = bind(self, src, DRM_WEAVE_ACCESS_READ);
	bd[1] = bind(self, dst, DRM_WEAVE_ACCESS_WRITE);
	add_label(self, weave_test_launch(&self->b, DRM_WEAVE_KERNEL_COPY, bd,
					  2, 0, 0));
	f = first_taint(self, src);
	if (f) {
		taint(self, dst, f);
		return;
	}
	memcpy(self->tmp, &self->buf[src.buf].val[src.off], src.len * 4);
	write_words(self, dst, self->tmp);
}

/* Moves @r to a random offset of a random buffer, keeping its length. */
static struct mrange move(model_t *self, struct mrange r)
{
	r.buf = rnd(self, M_BUFS);
	r.off = rnd(self, self->words - r.len + 1);
	return r;
}

/* An output the kernel takes: an input's very range, or apart from it. */
static int add_ok(struct mrange a, struct mrange b, struct mrange c)
{
	return (same(a, c) || !overlap(a, c)) &&
	       (same(b, c) || !overlap(b, c));
}

static void op_add(model_t *self)
{
	struct mrange a = pick(self, 256), bb, c;
	struct drm_weave_binding bd[3];
	uint32_t f, i, tries = 0;

	bb = rnd(self, 4) ? move(self, a) : a;
	do {
		c = rnd(self, 3) ? move(self, a) : (rnd(self, 2) ? a : bb);
	} while (!add_ok(a, bb, c) && ++tries < 32);
	if (!add_ok(a, bb, c))
		return;
	bd[0] = bind(self, a, DRM_WEAVE_ACCESS_READ);
	bd[1] = bind(self, bb, DRM_WEAVE_ACCESS_READ);
	bd[2] = bind(self, c, DRM_WEAVE_ACCESS_WRITE);
	add_label(self, weave_test_launch(&self->b, DRM_WEAVE_KERNEL_ADD_U32,
					  bd, 3, 0, 0));
	f = first_taint(self, a);
	if (!f)
		f = first_taint(self, bb);
	if (f) {
		taint(self, c, f);
		return;
	}
	for (i = 0; i < a.len; i++)
		self->tmp[i] = self->buf[a.buf].val[a.off + i] +
			       self->buf[bb.buf].val[bb.off + i];
	write_words(self, c, self->tmp);
}

static void op_host_write(model_t *self)
{
	struct mrange r = pick(self, M_HOST_WORDS);
	uint32_t *words = self->host[self->b.n], i;

	for (i = 0; i < r.len; i++)
		words[i] = (uint32_t)weave_rand64(&self->rng);
	add_label(self, weave_test_write_task(&self->b,
					      self->buf[r.buf].handle,
					      r.off * 4ull, r.len * 4ull,
					      words));
	write_words(self, r, words);
}

/*
 * A batch of random tasks on one random stream, flushed and waited for:
 * the model applied them in the order the stream runs them.
 */
static void run_batch(struct __test_metadata *_metadata, model_t *self)
{
	unsigned int s = rnd(self, M_STREAMS), n = 1 + rnd(self, M_BATCH), i;
	uint64_t seq;
	uint32_t op;

	for (i = 0; i < n; i++) {
		op = rnd(self, 100);
		if (op < 20)
			op_fill(self);
		else if (op < 40 && live_failures(self) < self->live_cap)
			op_fail(self);
		else if (op < 60)
			op_copy(self);
		else if (op < 80)
			op_add(self);
		else
			op_host_write(self);
	}
	if (!self->b.n)
		return;
	for (i = 0; i < self->b.n; i++) {
		self->root[self->batch_label[i]].stream = self->stream[s];
		self->root[self->batch_label[i]].seqno = i;
	}
	n = self->b.n;
	self->tasks += n;
	seq = weave_test_enqueue_seq(_metadata, self->fd, self->stream[s],
				     &self->b);
	for (i = 0; i < n; i++)
		self->root[self->batch_label[i]].seqno += seq;
	weave_test_finish(_metadata, self->fd, self->stream[s]);
}

/* --- the checks ----------------------------------------------------------- */

/* A report @r of range @m is the model's: the same failures, in order. */
static void expect_report(struct __test_metadata *_metadata, model_t *self,
			  struct mrange m, const char *what,
			  const struct drm_weave_failure *f, uint32_t nf)
{
	uint32_t want[M_LABELS], n = failures_on(self, m, want), i, bufs, k;
	const struct mroot *root;

	ASSERT_EQ(n, nf) {
		TH_LOG("%s of buffer %u words %u+%u after %u tasks (round %u): %u failures, the model says %u",
		       what, m.buf, m.off, m.len, self->tasks, self->round,
		       nf, n);
		for (i = 0; i < n; i++)
			TH_LOG("model: failure of label %u", want[i]);
		for (i = 0; i < nf; i++)
			TH_LOG("kernel: failure #%llu of label %u",
			       (unsigned long long)f[i].id, f[i].root.label);
	}
	for (i = 0; i < n; i++) {
		root = &self->root[want[i]];
		for (bufs = 0, k = 0; k < M_BUFS; k++)
			bufs += carries(self, k, want[i]);
		ASSERT_EQ(want[i], f[i].root.label) {
			TH_LOG("%s of buffer %u words %u+%u, failure %u, after %u tasks",
			       what, m.buf, m.off, m.len, i, self->tasks);
		}
		EXPECT_EQ(root->err, f[i].error);
		EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_KERNEL, f[i].cause);
		EXPECT_EQ(DRM_WEAVE_FAILURE_TASK_OWN, f[i].root.flags);
		EXPECT_EQ((uint32_t)DRM_WEAVE_KERNEL_FAIL, f[i].root.kernel);
		EXPECT_EQ(root->stream, f[i].root.stream);
		EXPECT_EQ(root->seqno, f[i].root.seqno);
		EXPECT_EQ(bufs, f[i].buffers) {
			TH_LOG("failure of label %u", want[i]);
		}
	}
}

static void do_check(struct __test_metadata *_metadata, model_t *self,
		     struct mrange m)
{
	uint32_t n = weave_test_report(_metadata, self->fd,
				       self->buf[m.buf].handle, m.off * 4ull,
				       m.len * 4ull, self->r);

	expect_report(_metadata, self, m, "CHECK", self->r->failure, n);
}

static void do_read(struct __test_metadata *_metadata, model_t *self,
		    struct mrange m)
{
	uint32_t want[M_LABELS], i;
	int ret;

	memset(self->data, 0xcc, self->page);
	self->q->nfailures = WEAVE_TEST_REPORT_FAILURES;
	self->q->nskips = WEAVE_TEST_REPORT_SKIPS;
	ret = weave_read(self->fd, self->buf[m.buf].handle, m.off * 4ull,
			 m.len * 4ull, self->data,
			 weave_timeout_ns(WEAVE_TEST_WAIT_NS),
			 self->q->failure, &self->q->nfailures,
			 self->q->skip, &self->q->nskips);
	if (failures_on(self, m, want)) {
		ASSERT_EQ(-EIO, ret) {
			TH_LOG("READ of buffer %u words %u+%u after %u tasks",
			       m.buf, m.off, m.len, self->tasks);
		}
		expect_report(_metadata, self, m, "READ", self->q->failure,
			      self->q->nfailures);
		return;
	}
	ASSERT_EQ(0, ret) {
		TH_LOG("READ of good buffer %u words %u+%u after %u tasks",
		       m.buf, m.off, m.len, self->tasks);
	}
	ASSERT_EQ(0u, self->q->nfailures);
	for (i = 0; i < m.len; i++) {
		ASSERT_EQ(self->buf[m.buf].val[m.off + i], self->data[i]) {
			TH_LOG("READ of buffer %u word %u after %u tasks",
			       m.buf, m.off + i, self->tasks);
		}
	}
}

/*
 * Replaces a buffer by a fresh one: its failures go with it, once the
 * kernel drops its last reference.  A job that has signalled may hold one
 * until the scheduler frees it, and until then the buffer still counts in
 * its failures' buffers: wait for it to go.
 */
static void replace(struct __test_metadata *_metadata, model_t *self)
{
	struct mbuf *m = &self->buf[rnd(self, M_BUFS)];
	uint64_t want = self->base.live_bos + M_BUFS - 1;
	int64_t end = weave_test_now() + WEAVE_TEST_WAIT_NS;

	weave_test_close_bo(_metadata, self->fd, m->handle);
	while (weave_test_usage(_metadata, self->fd).live_bos != want) {
		ASSERT_GT(end, weave_test_now()) {
			TH_LOG("a closed buffer is still alive after %lld s",
			       WEAVE_TEST_WAIT_NS / WEAVE_TEST_SEC);
		}
		usleep(1000);
	}
	mbuf_new(_metadata, self, m);
}

TEST_F_TIMEOUT(model, random_tasks, 120)
{
	struct mrange all = { .off = 0 };
	unsigned int i, k;

	while (self->tasks < M_TASKS) {
		self->round++;
		run_batch(_metadata, self);
		k = rnd(self, 4);
		for (i = 0; i < k; i++) {
			if (rnd(self, 2))
				do_check(_metadata, self,
					 pick(self, self->words));
			else
				do_read(_metadata, self,
					pick(self, self->words));
		}
		if (rnd(self, 20) == 0)
			replace(_metadata, self);
	}

	/* Every word of every buffer, both ways. */
	all.len = self->words;
	for (all.buf = 0; all.buf < M_BUFS; all.buf++) {
		do_check(_metadata, self, all);
		do_read(_metadata, self, all);
	}
	TH_LOG("%u tasks in %u batches, %u failures live at the end",
	       self->tasks, self->round, live_failures(self));

	for (i = 0; i < M_BUFS; i++)
		weave_test_close_bo(_metadata, self->fd, self->buf[i].handle);
	weave_test_client_idle(_metadata, self->fd);
	weave_test_assert_usage(_metadata, self->fd, &self->base, 0, 0);
}

TEST_HARNESS_MAIN
