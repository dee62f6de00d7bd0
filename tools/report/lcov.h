/* lcov.h - a recording as an lcov tracefile (geninfo(1)'s format: TN, SF,
 * FN/FNDA, DA, BRDA, LF/LH, BRF/BRH, end_of_record), lines from srcline.h.
 *
 * Rules (docs/usage.md): the lines of a block are the line-table rows of
 * its bytes; a line's count is the largest count of the blocks touching
 * it; every line of a recorded function's code is listed (0 if no counted
 * block touches it). A counted block ending in a conditional jump gives
 * two BRDA entries: taken = count of the block at the target, not taken =
 * count of the block after the jump, each capped at the block's own count
 * (successor counts, not edge counts).
 */
#ifndef KJIT_TOOL_LCOV_H
#define KJIT_TOOL_LCOV_H

#include <stdio.h>
#include "tools/session/session.h"
#include "srcline.h"

struct lcov_totals {
	unsigned long lines, lines_hit, branches, branches_hit;
	unsigned long funcs, funcs_mapped, blocks_unmapped;
};

/* Writes the tracefile of @s to @out; each function's lines come from the
 * first of the @n_sl debug files that has its symbol. Returns 0. */
int lcov_write(const struct session *s, struct srcline **sls, int n_sl,
	       FILE *out, struct lcov_totals *t);

#endif
