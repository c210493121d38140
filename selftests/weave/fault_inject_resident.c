// SPDX-License-Identifier: GPL-2.0
/*
 * weave: allocation failures of a call that is the first to make a buffer
 * resident, swept through fail-nth by fail_nth_run() (fault_inject.h):
 * the call charges the buffer to its user first, and gives the charge
 * back if it then fails to make the pages resident ("DOC: resident
 * memory").
 */
#include "fault_inject.h"

struct fi_fresh {
	uint32_t bo;		/* a new buffer, never resident */
	long long resident;	/* the user's resident bytes before */
	uint8_t *data;		/* what READ copies out */
};

/* The resident bytes of the main client's user. */
static long long fi_user_bytes(struct __test_metadata *_metadata,
			       fi_t *self)
{
	return weave_test_client_usage(_metadata, self->main.fd)
		.user_resident_bytes;
}

static void fi_fresh_begin(struct __test_metadata *_metadata, fi_t *self,
			   struct fi_run *r)
{
	struct fi_fresh *s = r->s;

	/* After mlockall(): populated, so the copy faults nothing in. */
	s->data = malloc(2 * self->page);
	ASSERT_NE(NULL, s->data);
}

static void fi_fresh_prepare(struct __test_metadata *_metadata, fi_t *self,
			     struct fi_run *r)
{
	struct fi_fresh *s = r->s;

	memset(s->data, 0xff, 2 * self->page);
	s->bo = weave_test_bo(_metadata, self->main.fd, 2 * self->page, 0);
	s->resident = fi_user_bytes(_metadata, self);
}

/*
 * READ's pin is the first to make the buffer resident: with the nth
 * allocation failed (in the pin, or before it), READ fails with -ENOMEM
 * and the user's resident bytes are as they were; if it succeeds, the
 * buffer is charged, and no more once it is freed.
 */
static int fi_read_fresh_call(fi_t *self, struct fi_run *r)
{
	struct fi_fresh *s = r->s;

	return weave_read(self->main.fd, s->bo, 0, 2 * self->page, s->data,
			  weave_timeout_ns(WEAVE_TEST_WAIT_NS), NULL, NULL,
			  NULL, NULL);
}

static void fi_read_fresh_after(struct __test_metadata *_metadata,
				fi_t *self, struct fi_run *r)
{
	struct fi_fresh *s = r->s;
	long long now = fi_user_bytes(_metadata, self);

	weave_test_close_bo(_metadata, self->main.fd, s->bo);
	ASSERT_EQ(s->resident, fi_user_bytes(_metadata, self));
	if (r->ret) {
		ASSERT_TRUE(r->injected);
		ASSERT_EQ(s->resident, now) {
			TH_LOG("READ failed at fail-nth %u and left its buffer charged",
			       r->n);
		}
		return;
	}
	ASSERT_EQ(s->resident + 2 * (long long)self->page, now);
	ASSERT_EQ(2 * self->page,
		  weave_test_check_bytes(s->data, 2 * self->page, 0));
}

static void fi_fresh_end(struct __test_metadata *_metadata, fi_t *self,
			 struct fi_run *r)
{
	struct fi_fresh *s = r->s;

	free(s->data);
	fi_settled(_metadata, self);
}

/* --- the table ------------------------------------------------------------ */

FI_CASE(read_first_pin, .what = "READ, the buffer's first pin",
	.uapi_minor = 12, .size = sizeof(struct fi_fresh),
	.begin = fi_fresh_begin, .prepare = fi_fresh_prepare,
	.call = fi_read_fresh_call, .after = fi_read_fresh_after,
	.end = fi_fresh_end);

FI_SUMMARY("fault_inject_resident");

TEST_HARNESS_MAIN
