/* time_report.h - `kjit report --time`: a timed session's functions by
 * their exclusive time, heaviest first: calls, inclusive, exclusive and
 * virtual time, the mean call, and the histogram's p50 and p99 (upper
 * bounds: the power of two of cycles the share of calls stays under), in
 * text, JSON or CSV. */
#ifndef KJIT_TOOL_TIME_REPORT_H
#define KJIT_TOOL_TIME_REPORT_H

#include <stdio.h>
#include "format.h"
#include "tools/session/session.h"

/* 0, or 1 after saying why not (the session is not timed). */
int time_report_print(const struct session *s, enum report_fmt fmt,
		      FILE *out);

#endif
