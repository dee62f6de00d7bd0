/* by_part.h - `kjit report --sort pid|comm|cpu`: a split session's counts
 * (tools/session/split.h) by process, by command or by CPU, as perf report
 * --sort groups its samples, but counted, not sampled.
 *
 * Rows are (group, function): the function's calls there (its entry
 * block's count) and its block executions, heaviest first; text, JSON or
 * CSV. By command, processes of one command name are summed. Blocks
 * counted whole (past the banks' chunks) are said, never put in a group.
 */
#ifndef KJIT_TOOL_BY_PART_H
#define KJIT_TOOL_BY_PART_H

#include <stdio.h>
#include "format.h"
#include "tools/session/session.h"

enum by_part { BY_PID, BY_COMM, BY_CPU };

/* Parses "pid|comm|cpu"; -1 if none. */
int by_part_parse(const char *s);
/* 0, or 1 after saying why not (the session is not split). */
int by_part_print(const struct session *s, enum by_part by,
		  enum report_fmt fmt, FILE *out);

#endif
