// SPDX-License-Identifier: GPL-2.0-only
/*
 * The failure graph's model check: kmod/weave_failure.c and
 * kmod/weave_taints.c, compiled in user space against tests/unit/include,
 * driven by random operations and compared after each with a shadow that
 * holds each byte's failure id.  Until a buffer's taints are coarsened
 * (see "DOC: coarsening"), which the shadow predicts, they must equal the
 * shadow; after, every byte the shadow says failed must be tainted, and
 * a byte that differs from the shadow must carry a coarse failure.
 */
#include <stdio.h>
#include <string.h>
#include <sanitizer/lsan_interface.h>

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/slab.h>

/* The harness has an unused parameter; -Wextra is otherwise kept. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "failure_dump.h"

#define CLIENT		7

static struct weave_ftask ftask(u64 client, u32 stream, u64 seqno,
				u32 kernel, u32 label)
{
	return (struct weave_ftask) {
		.client = client, .stream = stream, .seqno = seqno,
		.kernel = kernel, .label = label,
	};
}

#define M_BUFS		4
#define M_SIZE		48
#define M_SEEDS		200
#define M_OPS		300
#define M_OWNER_MAX	10
#define M_IDS		(M_OPS + 2)

struct model {
	struct weave_failures g;
	struct weave_fstash stash;
	struct weave_fowner owner;
	struct weave_taints t[M_BUFS];
	/* The shadow: each byte's failure id, 0 if good. */
	u64 bytes[M_BUFS][M_SIZE];
	/* Whether the buffer's taints were coarsened since it was made. */
	bool coarse[M_BUFS];
	/* Whether stashes are always full and no limit binds. */
	bool exact;
	/* Skip records added, by id. */
	u64 skips[M_IDS];
	/* The failure the current step holds a reference to, if any. */
	struct weave_failure *held;
	u64 next_id;
	u64 rng;
	u64 seqno;
	char err[2560];
	char dump[2048];
};

struct range {
	int buf;
	u64 off;
	u64 len;
};

static u32 rnd(struct model *m, u32 n)
{
	/* xorshift64 */
	m->rng ^= m->rng << 13;
	m->rng ^= m->rng >> 7;
	m->rng ^= m->rng << 17;
	return (u32)(m->rng % n);
}

static struct range rnd_range(struct model *m)
{
	struct range r = { .buf = rnd(m, M_BUFS) };

	if (!rnd(m, 10)) {
		r.off = 0;
		r.len = M_SIZE;
		return r;
	}
	r.off = rnd(m, M_SIZE);
	r.len = 1 + rnd(m, M_SIZE - r.off < 12 ? M_SIZE - r.off : 12);
	return r;
}

#define FAILED(m, ...) ({						\
	snprintf((m)->err, sizeof((m)->err), __VA_ARGS__);		\
	-1;								\
})

/* The claims the shadow says buffer @b has, as taints_str() prints them. */
static void shadow_str(const struct model *m, int b, char *buf, size_t size)
{
	size_t len = 0;
	u64 i = 0, j;

	buf[0] = '\0';
	while (i < M_SIZE) {
		if (!m->bytes[b][i]) {
			i++;
			continue;
		}
		for (j = i; j < M_SIZE && m->bytes[b][j] == m->bytes[b][i]; j++)
			;
		len += snprintf(buf + len, size - len, "%s[%llu,%llu)#%llu",
				len ? " " : "", (unsigned long long)i,
				(unsigned long long)j,
				(unsigned long long)m->bytes[b][i]);
		i = j;
	}
}

/* The shadow's id of the first tainted byte of @r, 0 if none. */
static u64 shadow_first(const struct model *m, const struct range *r)
{
	u64 i;

	for (i = r->off; i < r->off + r->len; i++)
		if (m->bytes[r->buf][i])
			return m->bytes[r->buf][i];
	return 0;
}

/* Nodes the shadow says a claim of @id over @r needs, as documented. */
static u32 shadow_claim_need(const struct model *m, const struct range *r,
			     u64 id)
{
	const u64 *b = m->bytes[r->buf];
	u64 s = r->off, e = r->off + r->len, i;
	bool reuse = false, covered = true;

	for (i = s; i < e; i++)
		covered &= b[i] == id;
	if (covered)
		return 0;
	/* Strictly inside one run of another failure: split. */
	if (s > 0 && e < M_SIZE && b[s - 1] && b[s - 1] != id) {
		bool one = true;

		for (i = s - 1; i <= e; i++)
			one &= b[i] == b[s - 1];
		if (one)
			return 2;
	}
	/* A claim of @id touching or inside, or a run inside: reused. */
	for (i = s ? s - 1 : 0; i < (e < M_SIZE ? e + 1 : M_SIZE); i++)
		reuse |= b[i] == id;
	for (i = s; i < e && !reuse; i++) {
		u64 j;

		if (!b[i] || (i > s && b[i - 1] == b[i]))
			continue;
		/* A run of another failure starting at i > s or at s. */
		if (i == s && s > 0 && b[s - 1] == b[i])
			continue;
		for (j = i; j < M_SIZE && b[j] == b[i]; j++)
			;
		reuse |= j <= e;
	}
	return !reuse;
}

static u32 shadow_release_need(const struct model *m, const struct range *r)
{
	const u64 *b = m->bytes[r->buf];
	u64 s = r->off, e = r->off + r->len, i;

	if (!s || e >= M_SIZE || !b[s - 1])
		return 0;
	for (i = s - 1; i <= e; i++)
		if (b[i] != b[s - 1])
			return 0;
	return 1;
}

/*
 * A coarsened buffer: no byte the shadow says failed is good, and a byte
 * whose failure differs from the shadow's carries a coarse failure.
 */
static int coarse_compare(struct model *m, int b)
{
	const struct weave_claim *c;
	struct weave_failure *have[M_SIZE] = { NULL };
	u64 i;

	for (c = claim_of(rb_first(&m->t[b].by_off)); c;
	     c = claim_of(rb_next(&c->by_off)))
		for (i = c->start; i < c->end && i < M_SIZE; i++)
			have[i] = c->failure;
	for (i = 0; i < M_SIZE; i++) {
		u64 id = have[i] ? have[i]->id : 0;

		if (m->bytes[b][i] && !have[i])
			return FAILED(m, "buffer %d: byte %llu of #%llu is good",
				      b, (unsigned long long)i,
				      (unsigned long long)m->bytes[b][i]);
		if (id != m->bytes[b][i] && !have[i]->coarse)
			return FAILED(m, "buffer %d: byte %llu: #%llu, not coarse, want #%llu",
				      b, (unsigned long long)i,
				      (unsigned long long)id,
				      (unsigned long long)m->bytes[b][i]);
	}
	return 0;
}

/* Compare everything with the shadow. */
static int model_compare(struct model *m)
{
	char got[1024], want[1024];
	const struct weave_claim *c;
	u32 live = 0, claims = 0, own = 0, owned = 0;
	int b;

	for (b = 0; b < M_BUFS; b++) {
		const char *err = taints_str(&m->t[b], got, sizeof(got));

		if (err)
			return FAILED(m, "buffer %d: %s: %s", b, err, got);
		shadow_str(m, b, want, sizeof(want));
		if (!m->coarse[b] && strcmp(got, want))
			return FAILED(m, "buffer %d: have %s, want %s", b, got,
				      want);
		if (m->coarse[b] && coarse_compare(m, b))
			return -1;
		if (m->t[b].claims > m->g.max_claims)
			return FAILED(m, "buffer %d: %u claims, limit %u", b,
				      m->t[b].claims, m->g.max_claims);
		claims += m->t[b].claims;
		own += m->t[b].node_busy;
		for (c = claim_of(rb_first(&m->t[b].by_off)); c;
		     c = claim_of(rb_next(&c->by_off)))
			owned += c != &m->t[b].node &&
				 c->failure->owner == &m->owner;
	}
	if (owned != m->owner.nodes)
		return FAILED(m, "owner nodes %u, want %u", m->owner.nodes,
			      owned);
	/* Each failure: its refs are its claims, its buffers counted. */
	for (b = 0; b < M_BUFS; b++) {
		for (c = claim_of(rb_first(&m->t[b].by_off)); c;
		     c = claim_of(rb_next(&c->by_off))) {
			struct weave_failure *f = c->failure;
			const struct weave_claim *p;
			u32 n, nb;
			int pb;
			bool seen = false;

			/* Count each failure once: at its first claim. */
			for (pb = 0; pb <= b && !seen; pb++)
				for (p = claim_of(rb_first(&m->t[pb].by_off));
				     p && p != c; p = claim_of(rb_next(&p->by_off)))
					seen |= p->failure == f;
			if (seen)
				continue;
			live++;
			count_claims(m->t, M_BUFS, f, &n, &nb);
			n += f == m->held;
			if (f->refs != n || f->buffers != nb)
				return FAILED(m, "#%llu: refs %u buffers %u, want %u %u",
					      (unsigned long long)f->id, f->refs,
					      f->buffers, n, nb);
			if (f->skipped != m->skips[f->id])
				return FAILED(m, "#%llu: %llu skips, want %llu",
					      (unsigned long long)f->id,
					      (unsigned long long)f->skipped,
					      (unsigned long long)m->skips[f->id]);
			if (f->owner != &m->owner)
				return FAILED(m, "#%llu: lost its owner",
					      (unsigned long long)f->id);
		}
	}
	/* The held failure, if no byte carries it yet. */
	if (m->held) {
		u32 n, nb;

		count_claims(m->t, M_BUFS, m->held, &n, &nb);
		if (!n && (m->held->refs != 1 || m->held->buffers))
			return FAILED(m, "held failure: refs %u buffers %u",
				      m->held->refs, m->held->buffers);
		live += !n;
	}
	if (m->g.live != live || m->owner.live != live)
		return FAILED(m, "live %u, owner %u, want %u", m->g.live,
			      m->owner.live, live);
	if (m->g.nodes != claims - own)
		return FAILED(m, "nodes %u, want %u", m->g.nodes, claims - own);
	if (m->g.next_id != m->next_id)
		return FAILED(m, "next id %llu, want %llu",
			      (unsigned long long)m->g.next_id,
			      (unsigned long long)m->next_id);
	return 0;
}

/* A stash of random size, or a full one. */
static void model_stash(struct model *m, bool full)
{
	weave_fg_stash_drain(&m->stash);
	if (m->exact)	/* for two claims */
		weave_fg_stash_fill(&m->stash, 1, 2 * WEAVE_CLAIM_NODES,
				    GFP_KERNEL);
	else if (full)
		weave_fg_stash_fill(&m->stash, 1, WEAVE_CLAIM_NODES, GFP_KERNEL);
	else
		weave_fg_stash_fill(&m->stash, rnd(m, 2), rnd(m, 3), GFP_KERNEL);
}

static u32 nodes_free(const struct model *m, int b)
{
	return m->stash.nnodes + !m->t[b].node_busy;
}

/* Whether an operation needing @need nodes on @b coarsens, as documented. */
static bool model_coarsens(const struct model *m, int b, u32 need)
{
	return need > nodes_free(m, b) ||
	       (u64)m->t[b].claims + need > m->g.max_claims;
}

/*
 * Claim @r for @f.  On a buffer not yet coarsened, the shadow says how
 * many nodes it needs, and so whether it coarsens.
 */
static int model_claim(struct model *m, const struct range *r,
		       struct weave_failure *f)
{
	u32 need = shadow_claim_need(m, r, f->id), before;
	bool coarsens = model_coarsens(m, r->buf, need);
	u64 i, was = m->g.coarsened;
	int ret;

	before = m->stash.nnodes;
	ret = weave_fg_taints_claim(&m->g, &m->t[r->buf], r->off, r->len, f,
				    &m->stash);
	if (ret)
		return FAILED(m, "claim: %d", ret);
	if (m->exact && m->g.coarsened != was)
		return FAILED(m, "claim needing %u coarsened", need);
	if (!m->coarse[r->buf] && (m->g.coarsened != was) != coarsens)
		return FAILED(m, "claim needing %u of %u, %u claims: %s", need,
			      nodes_free(m, r->buf), m->t[r->buf].claims,
			      coarsens ? "exact" : "coarsened");
	if (!m->coarse[r->buf] && before - m->stash.nnodes > need)
		return FAILED(m, "claim needing %u took %u", need,
			      before - m->stash.nnodes);
	m->coarse[r->buf] |= m->g.coarsened != was;
	for (i = r->off; i < r->off + r->len; i++)
		m->bytes[r->buf][i] = f->id;
	return model_compare(m);
}

static int model_release(struct model *m, const struct range *r)
{
	u32 need = shadow_release_need(m, r);
	bool coarsens = need && model_coarsens(m, r->buf, need);
	u64 i, was = m->g.coarsened;
	int ret;

	ret = weave_fg_taints_release(&m->g, &m->t[r->buf], r->off, r->len,
				      &m->stash);
	if (ret)
		return FAILED(m, "release: %d", ret);
	if (m->exact && m->g.coarsened != was)
		return FAILED(m, "release needing %u coarsened", need);
	if (!m->coarse[r->buf] && (m->g.coarsened != was) != coarsens)
		return FAILED(m, "release needing %u: %s", need,
			      coarsens ? "exact" : "coarsened");
	m->coarse[r->buf] |= m->g.coarsened != was;
	for (i = r->off; i < r->off + r->len; i++)
		m->bytes[r->buf][i] = 0;
	return model_compare(m);
}

/* A launch: skipped if a read is tainted, else its writes are good. */
static int model_launch(struct model *m)
{
	struct range reads[2], writes[2];
	int nr = 1 + rnd(m, 2), nw = 1 + rnd(m, 2), i;
	struct weave_failure *f = NULL;
	struct weave_ftask skip;
	u64 want = 0;

	for (i = 0; i < nr; i++)
		reads[i] = rnd_range(m);
	for (i = 0; i < nw; i++)
		writes[i] = rnd_range(m);
	for (i = 0; i < nr && !f; i++) {
		want = shadow_first(m, &reads[i]);
		f = weave_fg_taints_first(&m->g, &m->t[reads[i].buf],
					  reads[i].off, reads[i].len);
		/* Coarsened: tainted if the shadow is, maybe otherwise. */
		if ((f ? f->id : 0) != want &&
		    (!m->coarse[reads[i].buf] || !f || !f->coarse))
			return FAILED(m, "first of read %d: #%llu, want #%llu",
				      i, (unsigned long long)(f ? f->id : 0),
				      (unsigned long long)want);
	}
	if (!f) {
		for (i = 0; i < nw; i++)
			if (model_release(m, &writes[i]))
				return -1;
		return 0;
	}
	skip = ftask(CLIENT, 1, ++m->seqno, 3, 0);
	weave_fg_skip(&m->g, f, &skip);
	m->skips[f->id]++;
	m->held = f;
	for (i = 0; i < nw; i++)
		if (model_claim(m, &writes[i], f))
			return -1;
	m->held = NULL;
	weave_fg_put(&m->g, f);
	return model_compare(m);
}

/* A launch that fails: a new failure over its writes. */
static int model_fail(struct model *m)
{
	struct weave_ftask root = ftask(CLIENT, 1, ++m->seqno, 4, 0);
	struct range writes[2];
	int nw = 1 + rnd(m, 2), i;
	struct weave_failure *f;

	for (i = 0; i < nw; i++)
		writes[i] = rnd_range(m);
	f = weave_fg_create(&m->g, &m->owner, -EIO, &root, &m->stash);
	if (PTR_ERR(f) == -ENOMEM && !m->stash.nrecords) {
		if (model_compare(m))
			return -1;
		model_stash(m, true);
		f = weave_fg_create(&m->g, &m->owner, -EIO, &root,
				    &m->stash);
	}
	if (PTR_ERR(f) == -EDQUOT) {
		if (m->owner.live != M_OWNER_MAX)
			return FAILED(m, "-EDQUOT at %u", m->owner.live);
		return model_compare(m);
	}
	if (IS_ERR(f))
		return FAILED(m, "create: %ld", PTR_ERR(f));
	if (f->id != m->next_id++)
		return FAILED(m, "new id %llu", (unsigned long long)f->id);
	m->held = f;
	for (i = 0; i < nw; i++)
		if (model_claim(m, &writes[i], f))
			return -1;
	m->held = NULL;
	weave_fg_put(&m->g, f);
	return model_compare(m);
}

/* A check: any, first and the list agree with the shadow. */
static int model_probe(struct model *m)
{
	struct range r = rnd_range(m);
	struct weave_failure *out[2], *f;
	u64 want[M_SIZE], i;
	u32 n = 0, got, k, nbuf[2];
	struct weave_fsnap snap;

	for (i = r.off; i < r.off + r.len; i++) {
		u64 id = m->bytes[r.buf][i];

		for (k = 0; id && k < n && want[k] != id; k++)
			;
		if (id && k == n)
			want[n++] = id;
	}
	if (m->coarse[r.buf]) {
		/* Tainted if the shadow is; the rest, coarse_compare(). */
		if (n && !weave_fg_taints_any(&m->g, &m->t[r.buf], r.off, r.len))
			return FAILED(m, "any: a failed byte is good");
		return model_compare(m);
	}
	if (weave_fg_taints_any(&m->g, &m->t[r.buf], r.off, r.len) != !!n)
		return FAILED(m, "any: wrong");
	got = weave_fg_taints_list(&m->g, &m->t[r.buf], r.off, r.len, out, nbuf,
				   2);
	if (got != n)
		return FAILED(m, "list: %u, want %u", got, n);
	for (k = 0; k < n && k < 2; k++) {
		u32 claims, buffers;

		if (out[k]->id != want[k])
			return FAILED(m, "list[%u]: #%llu, want #%llu", k,
				      (unsigned long long)out[k]->id,
				      (unsigned long long)want[k]);
		count_claims(m->t, M_BUFS, out[k], &claims, &buffers);
		if (nbuf[k] != buffers || !nbuf[k])
			return FAILED(m, "list[%u]: #%llu on %u buffers, want %u",
				      k, (unsigned long long)out[k]->id,
				      nbuf[k], buffers);
	}
	f = weave_fg_taints_first(&m->g, &m->t[r.buf], r.off, r.len);
	if ((f ? f->id : 0) != (n ? want[0] : 0))
		return FAILED(m, "first: wrong");
	if (f) {
		u32 claims, buffers;

		weave_fg_snapshot(&m->g, f, &snap, CLIENT);
		count_claims(m->t, M_BUFS, f, &claims, &buffers);
		if (snap.id != f->id || snap.buffers != buffers ||
		    snap.nskips + snap.skips_dropped != m->skips[f->id] ||
		    snap.nskips > WEAVE_FAILURE_SKIPS)
			return FAILED(m, "snapshot of #%llu wrong",
				      (unsigned long long)f->id);
		weave_fg_put(&m->g, f);
	}
	for (k = 0; k < n && k < 2; k++)
		weave_fg_put(&m->g, out[k]);
	return model_compare(m);
}

/*
 * Seed @seed: exact (full stashes, no limit), or with random stashes and,
 * on odd seeds, a buffer limit of 1 to 8 claims.
 */
static int model_run(struct model *m, u32 seed, bool exact)
{
	int b, op, ret = 0;

	memset(m, 0, sizeof(*m));
	m->rng = 0x9e3779b97f4a7c15ull * (seed + 1);
	m->next_id = 1;
	m->exact = exact;
	weave_fg_init(&m->g);
	if (!exact && seed % 2)
		m->g.max_claims = 1 + rnd(m, 8);
	weave_fg_stash_init(&m->stash);
	weave_fg_owner_init(&m->owner, CLIENT, M_OWNER_MAX, WEAVE_NO_LIMIT);
	for (b = 0; b < M_BUFS; b++)
		weave_fg_taints_init(&m->t[b]);

	for (op = 0; op < M_OPS && !ret; op++) {
		struct range r;
		u32 dice = rnd(m, 100);

		model_stash(m, rnd(m, 2));
		if (dice < 35) {
			ret = model_launch(m);
		} else if (dice < 55) {
			ret = model_fail(m);
		} else if (dice < 70) {
			r = rnd_range(m);
			ret = model_release(m, &r);	/* a host write */
		} else if (dice < 75) {
			b = rnd(m, M_BUFS);
			weave_fg_taints_fini(&m->g, &m->t[b]);
			weave_fg_taints_init(&m->t[b]);
			memset(m->bytes[b], 0, sizeof(m->bytes[b]));
			m->coarse[b] = false;
			ret = model_compare(m);
		} else {
			ret = model_probe(m);
		}
		if (ret)
			snprintf(m->dump, sizeof(m->dump), "op %d (dice %u)",
				 op, dice);
	}

	/* Free every buffer: the graph must be empty. */
	for (b = 0; b < M_BUFS; b++)
		weave_fg_taints_fini(&m->g, &m->t[b]);
	weave_fg_stash_drain(&m->stash);
	weave_fg_owner_detach(&m->g, &m->owner);
	if (!ret && (m->g.live || m->g.nodes))
		ret = FAILED(m, "left: %u records, %u nodes", m->g.live,
			     m->g.nodes);
	/* After a failed step, references may be left: no warning then. */
	if (!ret)
		weave_fg_fini(&m->g);
	return ret;
}

FIXTURE(model) {
	struct model m;
};

FIXTURE_SETUP(model)
{
}

FIXTURE_TEARDOWN(model)
{
	EXPECT_EQ(0, __lsan_do_recoverable_leak_check());
}

/*
 * M_SEEDS runs of M_OPS random operations over M_BUFS buffers, each
 * compared after every step with a shadow that holds each byte's failure
 * id: launches (skipped, passing on the failure of the first tainted byte
 * they read, if a read is tainted; else their writes become good), failed
 * launches, host writes, buffers freed and checks.  Stashes are random,
 * and half the seeds have a buffer limit, so operations coarsen where the
 * shadow says they must, and only there; a coarsened buffer never shows a
 * failed byte good, and marks every byte that differs.  Freeing every
 * buffer at the end must leave the graph empty.
 */
TEST_F(model, random_operations_match_a_shadow_of_every_byte)
{
	u32 seed;

	for (seed = 0; seed < M_SEEDS; seed++) {
		ASSERT_EQ(0, model_run(&self->m, seed, false))
			TH_LOG("seed %u, %s: %s", seed, self->m.dump,
			       self->m.err);
	}
}

/* With full stashes and no limit, nothing ever coarsens: all exact. */
TEST_F(model, full_stashes_never_coarsen)
{
	u32 seed;

	for (seed = 0; seed < M_SEEDS; seed++) {
		ASSERT_EQ(0, model_run(&self->m, seed, true))
			TH_LOG("seed %u, %s: %s", seed, self->m.dump,
			       self->m.err);
		ASSERT_EQ(0u, self->m.g.coarsened);
	}
}

TEST_HARNESS_MAIN
