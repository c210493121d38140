/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the weave kselftest suites: failure reports (uAPI 1.3), read
 * with DRM_IOCTL_WEAVE_CHECK and checked record by record.
 *
 * Part of weave_test.h, which includes it at its end: suites include
 * weave_test.h only.
 */
#ifndef _WEAVE_TEST_FAILURE_H_
#define _WEAVE_TEST_FAILURE_H_

/* --- failures (uAPI 1.3) -------------------------------------------------- */

/* Failures, and their skip records, one weave_test_report holds. */
#define WEAVE_TEST_REPORT_FAILURES	32
#define WEAVE_TEST_REPORT_SKIPS \
	(WEAVE_TEST_REPORT_FAILURES * DRM_WEAVE_FAILURE_SKIPS)

/* The report of DRM_IOCTL_WEAVE_CHECK on one range. */
struct weave_test_report {
	struct drm_weave_check_range range;
	uint32_t nfailures;
	uint32_t nskips;
	struct drm_weave_failure failure[WEAVE_TEST_REPORT_FAILURES];
	struct drm_weave_failure_task skip[WEAVE_TEST_REPORT_SKIPS];
};

/* Appends a FAIL with errno @err whose one binding writes @bo's range. */
static inline struct drm_weave_task *
weave_test_fail_task(struct weave_test_batch *b, uint32_t bo, uint64_t off,
		     uint64_t size, uint32_t err)
{
	struct drm_weave_binding bind[1] = {
		weave_binding(bo, DRM_WEAVE_ACCESS_WRITE, off, size),
	};

	return weave_test_launch(b, DRM_WEAVE_KERNEL_FAIL, bind, 1, 1, err);
}

/*
 * Enqueues the batch on @stream and empties it; returns the sequence
 * number of its first task (the enqueue returns that of its last).
 */
static inline uint64_t
weave_test_enqueue_seq(struct __test_metadata *_metadata, int fd,
		       uint32_t stream, struct weave_test_batch *b)
{
	uint32_t n = b->n;
	uint64_t seqno = 0;

	ASSERT_EQ(0, weave_enqueue(fd, stream, b->task, n, NULL, 0, &seqno));
	ASSERT_LE(n, seqno);
	weave_test_batch_init(b);
	return seqno - n + 1;
}

/*
 * A task of a report is well formed: only known flags, no private field
 * without %DRM_WEAVE_FAILURE_TASK_OWN, a known type, zero pad.
 */
static inline void
weave_test_task_sane(struct __test_metadata *_metadata,
		     const struct drm_weave_failure_task *t)
{
	ASSERT_EQ(0u, t->pad);
	ASSERT_EQ(0u, t->flags & ~DRM_WEAVE_FAILURE_TASK_OWN);
	if (t->flags & DRM_WEAVE_FAILURE_TASK_OWN) {
		ASSERT_NE(0u, t->stream);
		ASSERT_NE(0u, t->seqno);
	} else {
		ASSERT_EQ(0u, t->stream);
		ASSERT_EQ(0u, t->seqno);
		ASSERT_EQ(0u, t->label);
	}
	ASSERT_GE((uint32_t)DRM_WEAVE_TASK_HOST_WRITE, t->type);
	if (t->type == DRM_WEAVE_TASK_HOST_WRITE) {
		ASSERT_EQ(0u, t->kernel);
	} else {
		ASSERT_GE((uint32_t)DRM_WEAVE_KERNEL_FAIL, t->kernel);
	}
}

/*
 * A failure of a report of @nskips skip records is well formed: an id, a
 * negative errno, a known cause, at least one buffer, its skips within
 * the report, zero pad.
 */
static inline void
weave_test_failure_sane(struct __test_metadata *_metadata,
			const struct drm_weave_failure *f,
			const struct drm_weave_failure_task *skips,
			uint32_t nskips)
{
	uint32_t i;

	ASSERT_NE(0u, f->id);
	ASSERT_GT(0, f->error);
	ASSERT_LE(-4095, f->error);
	ASSERT_GE((uint32_t)DRM_WEAVE_FAILURE_CAPTURE, f->cause);
	ASSERT_EQ(0u, f->flags & ~DRM_WEAVE_FAILURE_COARSE);
	ASSERT_LE(1u, f->buffers);
	ASSERT_GE((uint32_t)DRM_WEAVE_FAILURE_SKIPS, f->nskips);
	ASSERT_GE(nskips, f->first_skip + f->nskips);
	weave_test_task_sane(_metadata, &f->root);
	for (i = 0; i < f->nskips; i++)
		weave_test_task_sane(_metadata, &skips[f->first_skip + i]);
}

/* Logs failure @i of @r as libweave says it. */
static inline void weave_test_log_failure(struct __test_metadata *_metadata,
					  const struct weave_test_report *r,
					  uint32_t i)
{
	char line[512];

	weave_failure_format(line, sizeof(line), &r->failure[i], r->skip);
	TH_LOG("%s", line);
}

/*
 * weave_test_report() - CHECK the range @size bytes at @off of @bo.
 *
 * Fills @r, checks it is well formed and returns its number of failures:
 * zero if every byte of the range is good.  Fails the test if the call
 * fails (a report must fit in @r).  CHECK does not wait: wait for the work
 * on the range first.
 */
static inline uint32_t weave_test_report(struct __test_metadata *_metadata,
					 int fd, uint32_t bo, uint64_t off,
					 uint64_t size,
					 struct weave_test_report *r)
{
	uint32_t i;
	int ret;

	memset(r, 0xa5, sizeof(*r));
	r->range = weave_check_range(bo, off, size);
	r->nfailures = WEAVE_TEST_REPORT_FAILURES;
	r->nskips = WEAVE_TEST_REPORT_SKIPS;
	ret = weave_check(fd, &r->range, 1, r->failure, &r->nfailures,
			  r->skip, &r->nskips);
	ASSERT_EQ(0, ret) {
		TH_LOG("CHECK of %u at %llu+%llu: %s (%u failures, %u skips)",
		       bo, (unsigned long long)off, (unsigned long long)size,
		       strerror(-ret), r->nfailures, r->nskips);
	}
	ASSERT_EQ(r->nfailures, r->range.nfailures);
	if (r->nfailures) {
		ASSERT_EQ(0u, r->range.first);
	}
	for (i = 0; i < r->nfailures; i++)
		weave_test_failure_sane(_metadata, &r->failure[i], r->skip,
					r->nskips);
	return r->nfailures;
}

/*
 * Checks every byte of the range is good: a CHECK without room must say
 * so (0, no failure).  If not, logs the failures.
 */
static inline void weave_test_expect_good(struct __test_metadata *_metadata,
					  int fd, uint32_t bo, uint64_t off,
					  uint64_t size)
{
	struct drm_weave_check_range range = weave_check_range(bo, off, size);
	uint32_t nfailures = 0, nskips = 0, i;
	struct weave_test_report *r;
	int ret;

	ret = weave_check(fd, &range, 1, NULL, &nfailures, NULL, &nskips);
	if (!ret && !nfailures && !range.nfailures)
		return;
	r = malloc(sizeof(*r));
	ASSERT_NE(NULL, r);
	if (ret == -ENOSPC && weave_test_report(_metadata, fd, bo, off, size,
						r))
		for (i = 0; i < r->nfailures; i++)
			weave_test_log_failure(_metadata, r, i);
	free(r);
	ASSERT_EQ(0, ret) {
		TH_LOG("bytes %llu+%llu of buffer %u are not good: %s, %u failures",
		       (unsigned long long)off, (unsigned long long)size, bo,
		       strerror(-ret), nfailures);
	}
	ASSERT_EQ(0u, nfailures);
	ASSERT_EQ(0u, range.nfailures);
}

/*
 * Checks a report's task is the caller's launch of @kernel on @stream at
 * @seqno with @label, its private fields shown.
 */
static inline void weave_test_expect_task(struct __test_metadata *_metadata,
					  const struct drm_weave_failure_task *t,
					  uint32_t stream, uint64_t seqno,
					  uint32_t label, uint32_t kernel)
{
	EXPECT_EQ(DRM_WEAVE_FAILURE_TASK_OWN, t->flags);
	EXPECT_EQ(stream, t->stream);
	EXPECT_EQ(seqno, t->seqno);
	EXPECT_EQ(label, t->label);
	EXPECT_EQ((uint32_t)DRM_WEAVE_TASK_LAUNCH, t->type);
	EXPECT_EQ(kernel, t->kernel);
}

#endif /* _WEAVE_TEST_FAILURE_H_ */
