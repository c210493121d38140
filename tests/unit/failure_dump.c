// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading the failure graph's internals, for its unit tests; see
 * failure_dump.h.
 */
#include <stdio.h>

#include "failure_dump.h"

struct weave_claim *claim_of(struct rb_node *n)
{
	return n ? rb_entry(n, struct weave_claim, by_off) : NULL;
}

struct weave_claim *fclaim_of(struct rb_node *n)
{
	return n ? rb_entry(n, struct weave_claim, by_fail) : NULL;
}

/*
 * Write @t's claims into @buf as "[s,e)#id ..." and check what the trees
 * promise: claims sorted and not overlapping, two claims of one failure
 * never touching, the by-failure tree holding the same claims in (id,
 * offset) order, the count, and whether the buffer's own node is in use.
 * Returns NULL, or what is wrong.
 */
const char *taints_str(const struct weave_taints *t, char *buf, size_t size)
{
	const struct weave_claim *c, *prev = NULL;
	bool own = false;
	size_t len = 0;
	u32 n = 0;

	buf[0] = '\0';
	for (c = claim_of(rb_first(&t->by_off)); c;
	     prev = c, c = claim_of(rb_next(&c->by_off))) {
		len += snprintf(buf + len, size - len, "%s[%llu,%llu)#%llu",
				n ? " " : "", (unsigned long long)c->start,
				(unsigned long long)c->end,
				(unsigned long long)c->failure->id);
		if (len >= size)
			return "dump too long";
		if (c->start >= c->end)
			return "empty claim";
		if (prev && prev->end > c->start)
			return "claims overlap";
		if (prev && prev->end == c->start && prev->failure == c->failure)
			return "touching claims of one failure";
		own |= c == &t->node;
		n++;
	}
	if (n != t->claims)
		return "claims count wrong";
	if (own != t->node_busy)
		return "own node use wrong";
	prev = NULL;
	n = 0;
	for (c = fclaim_of(rb_first(&t->by_fail)); c;
	     prev = c, c = fclaim_of(rb_next(&c->by_fail))) {
		if (prev && (prev->failure->id > c->failure->id ||
			     (prev->failure == c->failure &&
			      prev->start >= c->start)))
			return "by_fail out of order";
		n++;
	}
	if (n != t->claims)
		return "by_fail count wrong";
	return NULL;
}

/* Claims of @f, over all @nbuf buffers, and buffers that hold one. */
void count_claims(const struct weave_taints *t, int nbuf,
		  const struct weave_failure *f, u32 *claims, u32 *buffers)
{
	const struct weave_claim *c;
	int i;

	*claims = 0;
	*buffers = 0;
	for (i = 0; i < nbuf; i++) {
		bool held = false;

		for (c = claim_of(rb_first(&t[i].by_off)); c;
		     c = claim_of(rb_next(&c->by_off))) {
			if (c->failure == f) {
				(*claims)++;
				held = true;
			}
		}
		*buffers += held;
	}
}

/* A whole dump of the graph as tests see it, for before-and-after. */
void dump_all(const struct weave_failures *g, const struct weave_taints *t,
	      int nbuf, const struct weave_fstash *stash,
	      const struct weave_fowner *owner, char *buf, size_t size)
{
	size_t len;
	int i;

	len = snprintf(buf, size,
		       "next %llu live %u nodes %u stash %u/%u owner %u;",
		       (unsigned long long)g->next_id, g->live, g->nodes,
		       stash->nrecords, stash->nnodes, owner->live);
	for (i = 0; i < nbuf && len < size; i++) {
		const struct weave_claim *c;

		len += snprintf(buf + len, size - len, " buf%d %u%s:", i,
				t[i].claims, t[i].node_busy ? "+own" : "");
		for (c = claim_of(rb_first(&t[i].by_off)); c && len < size;
		     c = claim_of(rb_next(&c->by_off)))
			len += snprintf(buf + len, size - len,
					" [%llu,%llu)#%llu r%u b%u s%llu",
					(unsigned long long)c->start,
					(unsigned long long)c->end,
					(unsigned long long)c->failure->id,
					c->failure->refs, c->failure->buffers,
					(unsigned long long)c->failure->skipped);
	}
}
