/* folded.h - `kjit report --folded`: a timed session's call paths as
 * folded stacks ("root;callee;...;func WEIGHT" a line, the format
 * flamegraph.pl and speedscope read), each path weighted by its
 * exclusive time in ns (the TSC's cycles where the rate is unknown), the
 * paths with none left out, in the order of their names. */
#ifndef KJIT_TOOL_FOLDED_H
#define KJIT_TOOL_FOLDED_H

#include <stdio.h>
#include "tools/session/session.h"

/* 0, or 1 after saying why not (not timed, or no paths). */
int folded_print(const struct session *s, FILE *out);

#endif
