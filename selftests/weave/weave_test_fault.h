/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fail-nth knob of the suites that fail allocations in turn.
 *
 * /proc/thread-self/fail-nth (FAULT_INJECTION_DEBUG_FS, with FAILSLAB and
 * FAIL_PAGE_ALLOC): writing N arms it; every allocation the injectors
 * consider counts it down and the one that reaches zero fails.  Read back
 * after the call, it is 0 if that failure was injected and what is left of
 * N if the call made fewer allocations; writing 0 disarms it.  Only the
 * call under test runs between arming and disarming, as one system call,
 * and the process is mlockall()ed so that no page fault (which allocates)
 * happens inside it.
 *
 * A kernel without fault injection (no fail-nth file, as on the stock 6.1
 * and 6.12 lanes) skips the tests that need it; one that has fail-nth but
 * not the injectors' debugfs knobs fails them, as it is misconfigured.
 */
#ifndef _WEAVE_TEST_FAULT_H_
#define _WEAVE_TEST_FAULT_H_

#include <stdbool.h>
#include <sys/mman.h>

#include "weave_test.h"

#define WEAVE_TEST_DEBUGFS	"/sys/kernel/debug/"

/*
 * By default failslab and fail_page_alloc only consider allocations that
 * cannot sleep, and fail_page_alloc only those of order 1 and up and not
 * __GFP_HIGHMEM (shmem pages are).  Make them consider every allocation
 * weave makes, and keep them quiet: at the default verbosity, 2, every
 * injected failure prints a line and a stack dump on the console.
 */
static const struct {
	const char *file;
	const char *value;
} weave_test_fault_knobs[] = {
	{ "failslab/ignore-gfp-wait", "N" },
	{ "failslab/cache-filter", "N" },
	{ "failslab/verbose", "0" },
	{ "fail_page_alloc/ignore-gfp-wait", "N" },
	{ "fail_page_alloc/ignore-gfp-highmem", "N" },
	{ "fail_page_alloc/min-order", "0" },
	{ "fail_page_alloc/verbose", "0" },
};

#define WEAVE_TEST_FAULT_NKNOBS	ARRAY_SIZE(weave_test_fault_knobs)

/* The knob of a test, and the debugfs settings it changed. */
struct weave_test_fault {
	int nth;		/* /proc/thread-self/fail-nth, or -1 */
	bool knobs_set;
	char saved[WEAVE_TEST_FAULT_NKNOBS][24];
};

/*
 * weave_test_fault_open() - Opens the knob, or skips the test without it.
 *
 * mlockall()s the process, opens fail-nth and checks that nothing else
 * may fail an allocation (the injectors' probabilities are 0).  Without a
 * fail-nth file the test is skipped (SKIP(): the harness reports it so
 * and goes on); the caller returns at once then, and the test's body
 * must check weave_test_fault_absent() first.  Call
 * weave_test_fault_set() once the rest of the set-up is done.
 */
static inline void weave_test_fault_open(struct __test_metadata *_metadata,
					 struct weave_test_fault *f)
{
	char buf[24];
	size_t i;
	int ret;

	memset(f, 0, sizeof(*f));
	f->nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (f->nth < 0 && errno == ENOENT)
		SKIP(return, "no /proc/thread-self/fail-nth: the kernel has no fault injection (CONFIG_FAULT_INJECTION_DEBUG_FS)");
	ASSERT_LE(0, f->nth) {
		TH_LOG("/proc/thread-self/fail-nth: %s", strerror(errno));
	}
	ASSERT_EQ(0, mlockall(MCL_CURRENT | MCL_FUTURE)) {
		TH_LOG("mlockall: %s", strerror(errno));
	}
	for (i = 0; i < WEAVE_TEST_FAULT_NKNOBS; i++) {
		ret = weave_test_read_file(WEAVE_TEST_DEBUGFS,
					   weave_test_fault_knobs[i].file,
					   f->saved[i], sizeof(f->saved[i]));
		ASSERT_EQ(0, ret) {
			TH_LOG("%s%s: %s (the kernel needs CONFIG_FAILSLAB and CONFIG_FAIL_PAGE_ALLOC, debugfs mounted)",
			       WEAVE_TEST_DEBUGFS,
			       weave_test_fault_knobs[i].file, strerror(-ret));
		}
	}
	/* Nothing but fail-nth may fail an allocation. */
	ASSERT_EQ(0, weave_test_read_file(WEAVE_TEST_DEBUGFS,
					  "failslab/probability", buf,
					  sizeof(buf)));
	ASSERT_STREQ("0", buf);
	ASSERT_EQ(0, weave_test_read_file(WEAVE_TEST_DEBUGFS,
					  "fail_page_alloc/probability", buf,
					  sizeof(buf)));
	ASSERT_STREQ("0", buf);
}

/*
 * Whether the test was skipped for want of fault injection.  The 6.1
 * harness runs a test's body even when its set-up called SKIP().
 */
static inline bool weave_test_fault_absent(const struct weave_test_fault *f)
{
	return f->nth < 0;
}

/* Makes the injectors consider every allocation, quietly (see above). */
static inline void weave_test_fault_set(struct __test_metadata *_metadata,
					struct weave_test_fault *f)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < WEAVE_TEST_FAULT_NKNOBS; i++) {
		ret = weave_test_write_file(WEAVE_TEST_DEBUGFS,
					    weave_test_fault_knobs[i].file,
					    weave_test_fault_knobs[i].value);
		if (ret)
			break;
	}
	if (i < WEAVE_TEST_FAULT_NKNOBS) {
		TH_LOG("writing %s to %s%s: %s",
		       weave_test_fault_knobs[i].value, WEAVE_TEST_DEBUGFS,
		       weave_test_fault_knobs[i].file, strerror(-ret));
		for (i = 0; i < WEAVE_TEST_FAULT_NKNOBS; i++)
			weave_test_write_file(WEAVE_TEST_DEBUGFS,
					      weave_test_fault_knobs[i].file,
					      f->saved[i]);
		ASSERT_EQ(0, ret);
	}
	f->knobs_set = true;
}

/* Disarms the knob and puts the injectors' settings back, for a teardown. */
static inline void weave_test_fault_close(struct __test_metadata *_metadata,
					  struct weave_test_fault *f)
{
	size_t i;

	if (f->nth >= 0) {
		if (pwrite(f->nth, "0", 1, 0) != 1)
			TH_LOG("cannot disarm fail-nth");
		close(f->nth);
	}
	f->nth = -1;
	for (i = 0; f->knobs_set && i < WEAVE_TEST_FAULT_NKNOBS; i++)
		weave_test_write_file(WEAVE_TEST_DEBUGFS,
				      weave_test_fault_knobs[i].file,
				      f->saved[i]);
	f->knobs_set = false;
}

/* Arms the knob: the @n-th allocation from now on fails. */
static inline void weave_test_fault_arm(struct __test_metadata *_metadata,
					struct weave_test_fault *f,
					unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	ASSERT_EQ(len, pwrite(f->nth, buf, len, 0));
}

/* Disarms the knob; returns whether the armed failure was injected. */
static inline bool weave_test_fault_disarm(struct __test_metadata *_metadata,
					   struct weave_test_fault *f)
{
	char buf[24];
	ssize_t len;

	len = pread(f->nth, buf, sizeof(buf) - 1, 0);
	ASSERT_EQ(1, pwrite(f->nth, "0", 1, 0));
	ASSERT_LT(0, len);
	buf[len] = 0;
	return strtoul(buf, NULL, 10) == 0;
}

/* Fails unless @ret is 0 or -ENOMEM; says what and at which step. */
static inline void weave_test_ok_or_enomem(struct __test_metadata *_metadata,
					   const char *what, unsigned int n,
					   int ret)
{
	ASSERT_TRUE(ret == 0 || ret == -ENOMEM) {
		TH_LOG("%s at fail-nth %u: %d (%s), not 0 or -ENOMEM",
		       what, n, ret, strerror(-ret));
	}
}

#endif /* _WEAVE_TEST_FAULT_H_ */
