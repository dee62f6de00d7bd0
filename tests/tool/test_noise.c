/*
 * test_noise.c - host tests of tools/report/noise.c: median and spread, the
 * noise floor, and that no cost or ratio is ever printed negative (the demo
 * once printed "PERBLOCK kjit=-39.70 ns ... ratio=-24.3").
 */
#include <string.h>
#include "tools/report/noise.h"
#include "check.h"

static void check_str(const char *name, const char *got, const char *want)
{
	char why[160];

	snprintf(why, sizeof(why), "got \"%s\", want \"%s\"", got, want);
	check(name, !strcmp(got, want), why);
}

static void test_spread(void)
{
	double odd[] = {5, 1, 4, 2, 3}, even[] = {8, 2, 6, 4};
	struct spread s;

	spread_of(odd, 5, &s);
	check("spread_odd", s.median == 3 && s.min == 1 && s.max == 5,
	      "median/min/max of 5,1,4,2,3");
	spread_of(even, 4, &s);
	check("spread_even", s.median == 5 && s.min == 2 && s.max == 8,
	      "median of an even count: mean of the middle two");
	spread_of(even, 0, &s);
	check("spread_empty", s.median == 0 && s.min == 0 && s.max == 0,
	      "zeros");
	s.min = 100;
	s.max = 140;
	check("floor_per_event", noise_floor(&s, 8) == 5, "(140-100)/8");
	check("floor_no_events", noise_floor(&s, 0) == 40, "whole spread");
}

static void test_cost(void)
{
	char b[64];
	int r;

	r = cost_format(b, sizeof(b), 12.345, 5, 0);
	check("cost_above", r == 1, "returns 1");
	check_str("cost_above_text", b, "12.35");
	r = cost_format(b, sizeof(b), -39.7, 8.25, 0);
	check("cost_negative", r == 0, "returns 0");
	check_str("cost_negative_text", b, "below noise (\u00b18.25 ns)");
	cost_format(b, sizeof(b), 8.25, 8.25, 1);
	check_str("cost_at_floor_compact", b, "below-noise(\u00b18.25)");
	cost_format(b, sizeof(b), -1.027, 0, 0);
	check_str("cost_negative_no_noise", b, "below noise (\u00b10.00 ns)");
	cost_format(b, sizeof(b), 0.5, -3, 1);
	check_str("cost_negative_floor", b, "0.50");
	r = cost_format_unit(b, sizeof(b), -2, 1.5, 0, "insns");
	check("cost_unit_below", r == 0, "returns 0");
	check_str("cost_unit_text", b, "below noise (\u00b11.50 insns)");
}

static void test_ratio(void)
{
	char b[64];
	int r;

	r = ratio_format(b, sizeof(b), 966.11, 10, 20, 10, 1);
	check("ratio_exact", r == 1, "returns 1");
	check_str("ratio_exact_text", b, "48.3");
	/* the demo's case: kjit's cost negative, Kprobes' well above */
	r = ratio_format(b, sizeof(b), 966.11, 10, -39.7, 10, 1);
	check("ratio_bound", r == 0, "returns 0");
	check_str("ratio_bound_compact", b, ">=96.6");
	ratio_format(b, sizeof(b), 966.11, 10, -39.7, 10, 0);
	check_str("ratio_bound_human", b, ">= 96.6 (kjit's cost below noise)");
	ratio_format(b, sizeof(b), 966.11, 0, -39.7, 0, 1);
	check_str("ratio_no_bound", b, "n/a");
	ratio_format(b, sizeof(b), -3, 10, 20, 10, 0);
	check_str("ratio_kprobes_below", b, "n/a (Kprobes' cost below noise)");
	ratio_format(b, sizeof(b), 30, 10, -5, 0, 1);
	check_str("ratio_zero_kjit_floor", b, "n/a");
}

int main(void)
{
	area = "tool.noise";
	test_spread();
	test_cost();
	test_ratio();
	return failures ? 1 : 0;
}
