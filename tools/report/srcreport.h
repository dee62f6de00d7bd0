/* srcreport.h - the text report's source-lines section: every counted
 * block as file:line with its inline chain, or why lines are unavailable;
 * and the line of each block --uncovered lists. */
#ifndef KJIT_TOOL_SRCREPORT_H
#define KJIT_TOOL_SRCREPORT_H

#include <stdio.h>
#include "debuginfo.h"
#include "tools/session/session.h"

void srcreport_print(const struct session *s, struct debuginfo *d, FILE *out);

/* report_opts.where over the debug files @ctx (a struct debuginfo):
 * prints "  FILE:LINE" of FUNC+@off, the innermost line (an inlined
 * callee's own); nothing where no debug file maps it. */
void srcreport_where(void *ctx, const char *func, uint64_t off, FILE *out);

#endif
