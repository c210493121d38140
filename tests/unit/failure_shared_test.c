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

#include "failure_fixture.h"

/* The shared failure of @sh, the test holding a reference. */
#define SHARED(sh, err) ({						\
	struct weave_ftask __root = ftask(CLIENT, 1, 1, 2, 0);		\
	struct weave_failure *__f = weave_fg_shared(&self->g, (sh),	\
		&self->owner, (err), &__root, 1);			\
	ASSERT_FALSE(IS_ERR(__f));					\
	__f;								\
})

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
