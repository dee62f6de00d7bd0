/* limits.h - a session's limits in plain words: what ran natively (or was
 * counted the slow way) because a table was full, and the option that
 * raises each limit.
 *
 *   deep table      callees followed          --deep-max N
 *   code cache      bytes per CPU             --cache-kb N
 *   block map       blocks per CPU            --max-blocks N
 *   counter table   per-CPU counter slots     --max-blocks N (2 x N slots)
 *
 * Invariants: output depends only on the statistics (host-testable); every
 * line names its number, the limit, and the option; a limit of 0 (a file
 * from an older kjit) is said to be unknown, never guessed.
 */
#ifndef KJIT_TOOL_LIMITS_H
#define KJIT_TOOL_LIMITS_H

#include <stdio.h>
#include "tools/session/session.h"

/* Things ran natively, or were counted with shared counters, for lack of
 * room in @st: the number of limits hit (0: none). */
unsigned int limits_hit(const struct sess_stats *st);

/* One line per limit hit, each starting with @prefix; when none was hit,
 * one line that says so, with how full each table got. */
void limits_print(const struct sess_stats *st, const char *prefix, FILE *out);

/* The limits and the memory reserved, one line ("deep table 8192
 * functions, ..."), starting with @prefix. */
void limits_print_reserved(const struct sess_stats *st, const char *prefix,
			   FILE *out);

/* "limits": {...} for `kjit report --json` (no trailing comma or newline). */
void limits_json(const struct sess_stats *st, FILE *out);

#endif
