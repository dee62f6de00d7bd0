/* filter_chunks.h - split the kernel's ftrace functions into chunks of
 * set_ftrace_filter globs, each matching at most a given number of them.
 *
 * Why: switching a tracer on with an empty filter patches every ftrace
 * site of the kernel in one kernel call that never reschedules (x86's
 * ftrace_replace_code). Under TCG that is 6 s of a CPU on 6.1 at pace 1,
 * and a soft lockup on a slower host. Growing the filter a chunk at a
 * time (one open/write/close of set_ftrace_filter each) patches a chunk
 * per call, and traces the same functions in the end.
 *
 * Invariants: the globs are prefixes ("ab*") or exact names, taken from
 * the names themselves, so every name of the list is matched by exactly
 * one glob of exactly one chunk, and no glob matches a name outside the
 * list's prefixes. A chunk matches at most @max names unless one exact
 * name alone is listed more often. ftrace's "__ftrace_invalid_address___N"
 * entries (weak functions the linker dropped; never traced) are not among
 * the names: `total` counts the functions a tracer can trace.
 */
#ifndef KJIT_TOOL_FILTER_CHUNKS_H
#define KJIT_TOOL_FILTER_CHUNKS_H

#include <stddef.h>

struct filter_chunks {
	char **text;	/* chunk i: its globs, one per line, each "\n"-ended */
	size_t *names;	/* chunk i matches names[i] functions */
	size_t n;	/* chunks */
	size_t total;	/* functions in the list */
};

/* Plans @c from @avail (available_filter_functions: "name" or
 * "name [module]" per line). 0, or -ENOMEM / -EINVAL (no names). */
int filter_chunks_plan(const char *avail, size_t max,
		       struct filter_chunks *c);

/* @chunk's globs, each prefixed with "!" (removes them from the filter).
 * NULL when out of memory. The caller frees it. */
char *filter_chunks_negated(const char *chunk);

void filter_chunks_free(struct filter_chunks *c);

#endif
