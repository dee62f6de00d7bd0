/* fgraph.h - run a command once under ftrace's function_graph tracer (the
 * oracle of `kjit record --oracle`) and collect the functions it saw under
 * the roots (oracle.h).
 *
 * Invariants:
 *  - Only the top-level tracing instance, and only while its current_tracer
 *    is nop (6.1 allows function_graph nowhere else); a busy tracer, or a
 *    set_ftrace_filter/set_ftrace_notrace that would hide functions, is an
 *    error, never overridden.
 *  - Every tracefs setting written is read first and written back on every
 *    exit path after it (current_tracer first, so tracing has stopped).
 *    ^C and ^\ go to the command, as in runcmd.c; a kjit killed by another
 *    signal mid-run leaves the settings (current_tracer shows it).
 *  - Only COMMAND and its children are traced: set_ftrace_pid holds the
 *    child's pid (stopped before exec) with options/function-fork on.
 */
#ifndef KJIT_TOOL_FGRAPH_H
#define KJIT_TOOL_FGRAPH_H

#include "tools/session/oracle.h"

#define FGRAPH_BUFFER_KB 16384 /* per CPU */

/* Runs @cmd under function_graph with set_graph_function = @roots, fills
 * @o (roots, functions, lost events) and, from the running kernel, why deep
 * mode would refuse each function. Returns 0, or 1 after one line on
 * stderr saying why. */
int fgraph_run(struct oracle *o, const char *const *roots, int n_roots,
	       char **cmd);

#endif
