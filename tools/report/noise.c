/* noise.c - median, spread, noise floor and never-negative cost printing
 * (see noise.h). Pure: also compiled into the guest program kjitcount. */
#include <stdio.h>
#include <stdlib.h>
#include "noise.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void spread_of(double *v, int n, struct spread *s)
{
	s->median = s->min = s->max = 0;
	if (n < 1)
		return;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	s->min = v[0];
	s->max = v[n - 1];
	s->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double noise_floor(const struct spread *native, double events)
{
	double range = native->max - native->min;

	if (range < 0)
		range = 0;
	return events > 0 ? range / events : range;
}

int cost_format_unit(char *buf, size_t size, double added, double noise,
		     int compact, const char *unit)
{
	if (noise < 0)
		noise = 0;
	if (added > noise) {
		snprintf(buf, size, "%.2f", added);
		return 1;
	}
	if (compact)
		snprintf(buf, size, "below-noise(\u00b1%.2f)", noise);
	else
		snprintf(buf, size, "below noise (\u00b1%.2f %s)", noise, unit);
	return 0;
}

int cost_format(char *buf, size_t size, double added, double noise, int compact)
{
	return cost_format_unit(buf, size, added, noise, compact, "ns");
}

int ratio_format(char *buf, size_t size, double kp, double kp_noise, double kj,
		 double kj_noise, int compact)
{
	if (kp <= kp_noise || kp <= 0) {
		snprintf(buf, size, "%s",
			 compact ? "n/a" : "n/a (Kprobes' cost below noise)");
		return 0;
	}
	if (kj > kj_noise && kj > 0) {
		snprintf(buf, size, "%.1f", kp / kj);
		return 1;
	}
	if (kj_noise > 0)
		snprintf(buf, size,
			 compact ? ">=%.1f"
				 : ">= %.1f (kjit's cost below noise)",
			 kp / kj_noise);
	else
		snprintf(buf, size, "%s",
			 compact ? "n/a" : "n/a (kjit's cost below noise)");
	return 0;
}
