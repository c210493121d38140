/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading the failure graph's internals, for the unit tests of
 * kmod/weave_failure.c and kmod/weave_taints.c (failure_test.c and
 * failure_model_test.c).  A buffer's taints read as "[start,end)#id ...",
 * by offset.
 */
#ifndef _WEAVE_FAILURE_DUMP_H
#define _WEAVE_FAILURE_DUMP_H

#include "weave_failure.h"
#include "weave_taints.h"

/* The claim of a node of &weave_taints.by_off, or of .by_fail; NULL: NULL. */
struct weave_claim *claim_of(struct rb_node *n);
struct weave_claim *fclaim_of(struct rb_node *n);

/*
 * Write @t's claims into @buf and check the invariants of its trees.
 * Returns NULL, or what is wrong.
 */
const char *taints_str(const struct weave_taints *t, char *buf, size_t size);

/* Claims of @f over the @nbuf buffers @t, and buffers that hold one. */
void count_claims(const struct weave_taints *t, int nbuf,
		  const struct weave_failure *f, u32 *claims, u32 *buffers);

/* The whole graph as the tests see it, for comparing before and after. */
void dump_all(const struct weave_failures *g, const struct weave_taints *t,
	      int nbuf, const struct weave_fstash *stash,
	      const struct weave_fowner *owner, char *buf, size_t size);

#endif
