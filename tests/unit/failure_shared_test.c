// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the failure a client's tasks share past its limit
 * (weave_fg_shared() in kmod/weave_failure.c), compiled in user space
 * against tests/unit/include: made once, from the record set aside for
 * it, counted against no limit, and freed with its bytes, its record back
 * for the next one.
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
#include "weave_failure.h"
#include "weave_taints.h"

#define NBUF		4
#define CLIENT		7
#define OWNER_MAX	64

FIXTURE(fg) {
	struct weave_failures g;
	struct weave_fstash stash;
	struct weave_fowner owner;
	struct weave_taints t[NBUF];
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
	EXPECT_EQ(0u, self->g.live);
	EXPECT_EQ(0u, self->g.nodes);
	weave_fg_fini(&self->g);
	/* The child _exit()s, so ask LeakSanitizer now. */
	EXPECT_EQ(0, __lsan_do_recoverable_leak_check());
}

static struct weave_ftask ftask(u64 client, u32 stream, u64 seqno,
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

/* The shared failure of @sh, the test holding a reference. */
#define SHARED(sh, err) ({						\
	struct weave_ftask __root = ftask(CLIENT, 1, 1, 2, 0);		\
	struct weave_failure *__f = weave_fg_shared(&self->g, (sh),	\
		&self->owner, (err), &__root, 1);			\
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

/* The shared failure is made once, past the owner's max, from a record. */
TEST_F(fg, shared_failure_is_made_once)
{
	struct weave_ftask root = ftask(CLIENT, 1, 5, 2, 0);
	struct weave_failure *a, *b;
	struct weave_fshared sh;
	u32 i;

	weave_fg_shared_init(&sh);
	ASSERT_EQ(-ENOMEM, PTR_ERR(weave_fg_shared(&self->g, &sh,
						   &self->owner, -EIO,
						   &root, 7)));
	ASSERT_EQ(NULL, sh.failure);
	ASSERT_EQ(0, weave_fg_shared_reserve(&self->g, &sh, GFP_KERNEL));
	ASSERT_EQ(-EINVAL, PTR_ERR(weave_fg_shared(&self->g, &sh,
						   &self->owner, 0,
						   &root, 7)));
	ASSERT_EQ(0, weave_fg_stash_fill(&self->stash, OWNER_MAX + 1, OWNER_MAX,
					 GFP_KERNEL));
	for (i = 0; i < OWNER_MAX; i++) {
		a = NEW(-EIO);
		CLAIM(1, 8 * i, 4, a);
		PUT(a);
	}
	ASSERT_EQ((u32)OWNER_MAX, self->owner.live);
	a = weave_fg_shared(&self->g, &sh, &self->owner, -EIO, &root, 7);
	ASSERT_FALSE(IS_ERR(a));
	ASSERT_EQ(a, sh.failure);
	ASSERT_EQ(7u, a->cause);
	ASSERT_EQ((u32)OWNER_MAX + 1, self->owner.live);
	b = weave_fg_shared(&self->g, &sh, &self->owner, -EINVAL, &root, 1);
	ASSERT_EQ(a, b);
	ASSERT_EQ(2u, a->refs);
	ASSERT_EQ(-EIO, b->err);
	PUT(a);
	/* The last reference frees it, and its record goes back. */
	PUT(b);
	ASSERT_EQ(NULL, sh.failure);
	ASSERT_EQ(1u, sh.stash.nrecords);
	ASSERT_EQ((u32)OWNER_MAX, self->owner.live);
	weave_fg_shared_fini(&self->g, &sh);
}

TEST_F(fg, shared_failure_is_made_once_and_given_back)
{
	struct weave_ftask root = ftask(CLIENT, 1, 1, 2, 0);
	struct weave_failure *f, *again;
	struct weave_fshared sh;
	u64 id;

	weave_fg_shared_init(&sh);
	/* No record set aside: nothing is made. */
	f = weave_fg_shared(&self->g, &sh, &self->owner, -EIO, &root, 1);
	ASSERT_EQ(-ENOMEM, PTR_ERR(f));
	ASSERT_EQ(0u, self->g.live);
	ASSERT_EQ(0, weave_fg_shared_reserve(&self->g, &sh, GFP_KERNEL));
	ASSERT_EQ(1u, sh.stash.nrecords);

	f = SHARED(&sh, -EIO);
	ASSERT_EQ(f, sh.failure);
	ASSERT_EQ(1u, f->cause);
	ASSERT_EQ(0u, sh.stash.nrecords);
	ASSERT_EQ(1u, self->owner.live);
	ASSERT_EQ(1u, self->owner.shared);
	/* The next caller gets it, whatever it passes. */
	again = SHARED(&sh, -EINVAL);
	ASSERT_EQ(f, again);
	ASSERT_EQ(-EIO, f->err);
	ASSERT_EQ(2u, f->refs);
	PUT(again);
	CLAIM(0, 0, 16, f);
	PUT(f);
	id = f->id;
	/* Live, it has its record: nothing more is set aside. */
	ASSERT_EQ(0, weave_fg_shared_reserve(&self->g, &sh, GFP_KERNEL));
	ASSERT_EQ(0u, sh.stash.nrecords);

	/* Its bytes rewritten, it is gone and its record is back. */
	RELEASE(0, 0, 16);
	ASSERT_EQ(NULL, sh.failure);
	ASSERT_EQ(1u, sh.stash.nrecords);
	ASSERT_EQ(0u, self->g.live);
	ASSERT_EQ(0u, self->owner.live);
	ASSERT_EQ(0u, self->owner.shared);

	/* The next one is new. */
	f = SHARED(&sh, -EINVAL);
	ASSERT_LT(id, f->id);
	ASSERT_EQ(-EINVAL, f->err);
	CLAIM(1, 0, 8, f);
	PUT(f);
	/* It outlives its place, and is then freed as any other. */
	weave_fg_shared_fini(&self->g, &sh);
	ASSERT_EQ(NULL, f->shared);
	ASSERT_EQ(0u, sh.stash.nrecords);
	ASSERT_EQ(1u, self->g.live);
	RELEASE(1, 0, 8);
	ASSERT_EQ(0u, self->g.live);
}

TEST_F(fg, shared_failure_counts_against_no_limit)
{
	struct weave_ftask root = ftask(CLIENT, 1, 1, 1, 0);
	struct weave_failure *f[3], *s, *e;
	struct weave_fshared sh;
	int i;

	weave_fg_shared_init(&sh);
	ASSERT_EQ(0, weave_fg_shared_reserve(&self->g, &sh, GFP_KERNEL));
	self->owner.max = 2;
	for (i = 0; i < 2; i++) {
		f[i] = NEW(-EIO);
		CLAIM(i, 0, 8, f[i]);
		PUT(f[i]);
	}
	e = weave_fg_create(&self->g, &self->owner, -EIO, &root,
			    &self->stash);
	ASSERT_EQ(-EDQUOT, PTR_ERR(e));
	s = SHARED(&sh, -EIO);
	CLAIM(2, 0, 8, s);
	PUT(s);
	ASSERT_EQ(3u, self->owner.live);
	/* One of its own cleared: room for one more, the shared one live. */
	RELEASE(0, 0, 8);
	ASSERT_EQ(2u, self->owner.live);
	f[0] = NEW(-EIO);
	CLAIM(0, 0, 8, f[0]);
	PUT(f[0]);
	ASSERT_EQ(3u, self->owner.live);
	e = weave_fg_create(&self->g, &self->owner, -EIO, &root,
			    &self->stash);
	ASSERT_EQ(-EDQUOT, PTR_ERR(e));
	RELEASE(2, 0, 8);
	ASSERT_EQ(0u, self->owner.shared);
	weave_fg_shared_fini(&self->g, &sh);
}

TEST_HARNESS_MAIN
