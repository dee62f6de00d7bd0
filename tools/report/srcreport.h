/* srcreport.h - the text report's source-lines section: every counted
 * block as file:line with its inline chain, or why lines are unavailable. */
#ifndef KJIT_TOOL_SRCREPORT_H
#define KJIT_TOOL_SRCREPORT_H

#include <stdio.h>
#include "debuginfo.h"
#include "tools/session/session.h"

void srcreport_print(const struct session *s, struct debuginfo *d,
		     FILE *out);

#endif
