/* noise.h - timing statistics for `kjit compare` and kjitcount: median and
 * spread of repeated runs, the noise floor, and how an added cost or a
 * cost ratio is printed.
 *
 * The noise floor X of a measurement is the spread (max - min) of the
 * native runs' times, divided by the events (executed blocks) it is
 * charged to: an added cost of X or less cannot be told from the way the
 * native runs differ among themselves. Invariants: nothing here prints a
 * negative cost or ratio; a cost at or below its floor is written
 * "below noise (±X ns)" ("below-noise(±X)" in key=value lines); every
 * function is pure (no I/O, no globals), so the host tests check them.
 */
#ifndef KJIT_TOOL_NOISE_H
#define KJIT_TOOL_NOISE_H

#include <stddef.h>

struct spread {
	double median, min, max;
};

/* Sorts @v[0..n) in place and fills @s (n >= 1; n == 0 gives zeros). The
 * median of an even count is the mean of the middle two. */
void spread_of(double *v, int n, struct spread *s);

/* The noise floor per event: (native max - native min) / @events; the
 * whole spread when @events is 0 or less. Never negative. */
double noise_floor(const struct spread *native, double events);

/* Writes the added cost @added (ns) into @buf: "%.2f" when it exceeds
 * @noise, else "below noise (±X ns)", or with @compact (no spaces, for
 * key=value lines) "below-noise(±X)". Returns 1 when a figure was written,
 * 0 when the cost is below noise. */
int cost_format(char *buf, size_t size, double added, double noise,
		int compact);
/* cost_format() in @unit ("ns", or "insns" where the clock counts
 * instructions: QEMU -icount shift=0) instead of ns. */
int cost_format_unit(char *buf, size_t size, double added, double noise,
		     int compact, const char *unit);

/* Writes the ratio @kp / @kj of two added costs with their floors:
 * "%.1f" when both exceed them; ">=R" when only @kp does (R = @kp /
 * @kj_noise: a lower bound, as kjit's cost is at most its floor); "n/a"
 * when @kp is below noise or no bound exists. Human form (@compact 0) adds
 * the reason in parentheses. Returns 1 for an exact ratio, else 0. */
int ratio_format(char *buf, size_t size, double kp, double kp_noise, double kj,
		 double kj_noise, int compact);

#endif
