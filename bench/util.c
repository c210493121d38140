// SPDX-License-Identifier: MIT
/*
 * weave-bench: the clock, the drain of a file and the statistics every part
 * of the benchmark uses.
 */
#include "bench.h"

double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * Flush every stream of @fd with an out-fence on @syncobj and wait for it:
 * one wait for all of the file's work, as a runtime would.
 */
int drain(int fd, uint32_t syncobj)
{
	struct drm_weave_sync out = { .handle = syncobj };
	int ret;

	ret = weave_flush_all(fd, &out);
	if (!ret && drmSyncobjWait(fd, &syncobj, 1, INT64_MAX, 0, NULL))
		ret = -errno;
	return ret;
}

double ratio(double a, double b)
{
	return a > 0 && b > 0 ? a / b : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values; sorts them. */
double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Prints "ratio NAME VALUE", then its target, if it has one, and whether
 * VALUE meets it.  The first three fields are what a reader of the ratios
 * takes.
 */
void print_ratio(const char *name, double value, struct target t)
{
	bool met = t.op == '<' ? value <= t.value : value >= t.value;

	printf("ratio %s %.3f", name, value);
	if (t.op == '<' || t.op == '>')
		printf(" target %s %g %s", t.op == '<' ? "<=" : ">=", t.value,
		       met ? "met" : "missed");
	else if (t.op == '~')
		printf(" target about %g", t.value);
	printf("\n");
}
