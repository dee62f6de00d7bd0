/* bench_stats.h - the clock and percentile helpers the silicon benchmarks
 * (bench_silicon, bench_ibl) share: CLOCK_MONOTONIC in ns, and the p-th
 * percentile of a sample (sorts it in place; nearest rank).
 */
#ifndef KJIT_TESTS_HOST_BENCH_STATS_H
#define KJIT_TESTS_HOST_BENCH_STATS_H

#include <stdio.h>
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

/* "median [p10, p90]" of @add[0..n) (TSC ticks) in ns, into @buf; when
 * the median or the 10th percentile is not above 0, "below noise (±X)",
 * X the larger of |p10| and p90: a cost is never printed negative. */
static inline void kb_added_cell(char *buf, size_t size, double *add,
				 unsigned n, double tsc_per_ns)
{
	double md = kb_pct(add, n, 0.5) / tsc_per_ns;
	double lo = kb_pct(add, n, 0.1) / tsc_per_ns;
	double hi = kb_pct(add, n, 0.9) / tsc_per_ns;

	if (md <= 0 || lo <= 0)
		snprintf(buf, size, "below noise (±%.2f)", hi > -lo ? hi : -lo);
	else
		snprintf(buf, size, "%.2f [%.2f, %.2f]", md, lo, hi);
}

#endif
