/* native.h - what ran natively instead of from the code cache, per
 * function and why, in plain words: "ran natively 20x: its ftrace site was
 * held by a Kprobe" (issue 16: never a silent zero).
 *
 * The counts come from the module (kjit_func_info.native[], by fallback
 * reason, kmod/native.h); who held a followed callee's ftrace site is the
 * tool's finding, from debugfs' kprobes/list and tracefs'
 * enabled_functions, made while the recording kernel runs and stored in
 * kjit.data (native_holder).
 *
 * Invariants: output depends only on the session (host-testable), but for
 * native_find_holders(), which reads the running kernel's files; a data
 * file of an older kjit (native_known 0) is said to lack the per-function
 * counts, never shown as zero where its session totals are not.
 */
#ifndef KJIT_TOOL_NATIVE_H
#define KJIT_TOOL_NATIVE_H

#include <stddef.h>
#include <stdio.h>
#include "tools/session/session.h"

#define FB_FTRACE_SITE 4 /* enum kjit_fallback (kmod/session.h) */

/* Runs of @f that went native, all reasons. */
uint64_t native_total(const struct sess_func *f);

/* "ran natively 20x: its ftrace site was held by a Kprobe" (several
 * reasons: "ran natively 23x: 20x its ftrace site ...; 3x the code cache
 * was full ...") into @buf; "" when nothing of @f ran natively. */
const char *native_words(const struct sess_func *f, char *buf, size_t size);

/* For a function that leaves the cache part-way (do_exit() at its call of
 * exit_tasks_rcu_start(): kmod/kjit_refusals.h KJIT_LEAVE_AT) where the
 * session @st says dying tasks leave there (exit_tail 0: every call, "the
 * rest after its call of exit_tasks_rcu_start runs natively on every call
 * (5 calls): ..."; the call is on every path, and a call still before it
 * when the counts were read has not left yet, so the count of calls is an
 * upper bound of the leaves) or some did (exit_tail_left: "... ran
 * natively for 2 dying task(s): no slot was free ..."), into @buf; "" for
 * any other function, one never called, or none left. */
const char *native_leave_words(const struct sess_func *f,
			       const struct sess_stats *st, char *buf,
			       size_t size);

/* The why alone ("its ftrace site was held by a Kprobe"; several reasons
 * joined with "; "). */
const char *native_why(const struct sess_func *f, char *buf, size_t size);

/* Text lines after the function table: native runs the module counted but
 * could tie to no function, and, for a file of an older kjit, the
 * session's totals with a note that per-function counts were not
 * recorded. Each line starts with @prefix; nothing when there is none. */
void native_print_other(const struct session *s, const char *prefix, FILE *out);

/* "native": {...} of one function for JSON (no trailing comma), null
 * for a file of an older kjit. */
void native_json(const struct sess_func *f, FILE *out);

/* "native_other": {...} for JSON: per reason, what no function has. */
void native_json_other(const struct session *s, FILE *out);

/* record's one line at the end ("kjit record: warning: ..."), into @buf;
 * 0 when nothing ran natively (no line to print), else the number of
 * functions concerned (or 1 for native runs tied to no function). */
int native_warning(const struct session *s, const char *who, char *buf,
		   size_t size);

/* Who holds the ftrace site of every function whose entry guard sent it
 * native: a Kprobe (kprobes/list, [FTRACE] at its start), else what
 * enabled_functions says (an IPMODIFY user such as livepatch, a direct
 * call such as a BPF trampoline, a tracer). Fills native_holder; leaves it
 * "" when nothing holds it any more or the files cannot be read. */
void native_find_holders(struct session *s);

#endif
