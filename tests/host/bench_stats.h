/* bench_stats.h - the clock and percentile helpers the silicon benchmarks
 * (bench_silicon, bench_ibl) share: CLOCK_MONOTONIC in ns, and the p-th
 * percentile of a sample (sorts it in place; nearest rank).
 */
#ifndef KJIT_TESTS_HOST_BENCH_STATS_H
#define KJIT_TESTS_HOST_BENCH_STATS_H

#include <stdlib.h>
#include <time.h>

static inline double kb_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static inline int kb_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The @p-th percentile (0..1) of @v[0..n), n >= 1; @v ends up sorted. */
static inline double kb_pct(double *v, unsigned n, double p)
{
	qsort(v, n, sizeof(*v), kb_cmp_double);
	return v[(unsigned)(p * (n - 1) + 0.5)];
}

#endif
