/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fixture the failure graph's unit tests share (failure_test.c and
 * failure_shared_test.c): a graph, a stash, an owner and NBUF buffers'
 * taints, checked empty and leak-free at teardown, and the helpers that
 * make, claim, release and put failures of the fixture's owner.
 */
#ifndef _WEAVE_FAILURE_FIXTURE_H
#define _WEAVE_FAILURE_FIXTURE_H

#include <sanitizer/lsan_interface.h>

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/slab.h>

/* The harness has an unused parameter; -Wextra is otherwise kept. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "weave_failure.h"
#include "weave_taints.h"

#define NBUF		4
#define CLIENT		7
#define OTHER		9
#define OWNER_MAX	64

FIXTURE(fg) {
	struct weave_failures g;
	struct weave_fstash stash;
	struct weave_fowner owner;
	struct weave_taints t[NBUF];
	/* Room for a test's dumps of the graph, to compare. */
	char buf[4096];
	char before[4096];
};

FIXTURE_SETUP(fg)
{
	int i;

	weave_fg_init(&self->g);
	weave_fg_stash_init(&self->stash);
	ASSERT_EQ(0, weave_fg_stash_fill(&self->stash, 8, 16, GFP_KERNEL));
	weave_fg_owner_init(&self->owner, CLIENT, OWNER_MAX, WEAVE_NO_LIMIT);
	for (i = 0; i < NBUF; i++)
		weave_fg_taints_init(&self->t[i]);
}

FIXTURE_TEARDOWN(fg)
{
	int i;

	for (i = 0; i < NBUF; i++)
		weave_fg_taints_fini(&self->g, &self->t[i]);
	weave_fg_stash_drain(&self->stash);
	weave_fg_owner_detach(&self->g, &self->owner);
	/* The graph leaks iff buffers leak: all freed, nothing left. */
	EXPECT_EQ(0u, self->g.live);
	EXPECT_EQ(0u, self->g.nodes);
	weave_fg_fini(&self->g);
	/* The child _exit()s, so ask LeakSanitizer now. */
	EXPECT_EQ(0, __lsan_do_recoverable_leak_check());
}

static inline struct weave_ftask ftask(u64 client, u32 stream, u64 seqno,
				       u32 kernel, u32 label)
{
	return (struct weave_ftask) {
		.client = client, .stream = stream, .seqno = seqno,
		.kernel = kernel, .label = label,
	};
}

/* A new failure of the fixture's owner; the test holds its reference. */
#define NEW(err) ({							\
	struct weave_ftask __root = ftask(CLIENT, 1, 1, 2, 0);		\
	struct weave_failure *__f = weave_fg_create(&self->g,	\
		&self->owner, (err), &__root, &self->stash);		\
	ASSERT_FALSE(IS_ERR(__f));					\
	__f;								\
})

#define CLAIM(b, off, len, f)						\
	ASSERT_EQ(0, weave_fg_taints_claim(&self->g, &self->t[b], (off),	\
					   (len), (f), &self->stash))

#define RELEASE(b, off, len)						\
	ASSERT_EQ(0, weave_fg_taints_release(&self->g, &self->t[b], (off),	\
					     (len), &self->stash))

#define PUT(f)	weave_fg_put(&self->g, (f))

#endif
