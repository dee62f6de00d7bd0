/* oracle.h - the completeness oracle: the functions ftrace's function_graph
 * tracer saw under each root (a separate run of the same command, driven
 * by tools/kernel/fgraph.c), and how they compare with what kjit counted.
 *
 * Invariants:
 *  - Everything here is pure: text in, text out, no kernel access (host
 *    tested on captured guest output, tests/tool/test_oracle.c).
 *  - A name is kept once: the first root and first parent (the enclosing
 *    function) it was seen under in task context. Names are symbol names
 *    without a " [module]" suffix.
 *  - A function seen only in interrupt context under a root (the irq entry
 *    and exit helpers, softirqs, and __schedule's callees in a preemption
 *    at an interrupt's exit: function_graph runs them on the interrupted
 *    task) is kept with irq set and left out of the percentage: kjit
 *    follows calls, and interrupts run natively.
 *
 * Classification of a function the tracer saw, first match wins:
 *   counted      kjit counted a block of it (a session function by name)
 *   refused      deep mode would not follow it: why says so (computed while
 *                recording, by eligible_deep_why())
 *   caller       its first parent was not counted either (root cause there)
 *   not_deep     the session did not follow callees (recorded without --deep)
 *   static_call  it is the current target of a static call trampoline
 *                (__SCT__x, via): kjit translates a static call site as a
 *                call to the trampoline, which runs natively (a known gap)
 *   table_full   the deep table was full (stat deep_over_budget > 0)
 *   unexplained  called from counted code, followed by nothing we know of:
 *                a gap to look at (see docs/design/oracle.md)
 */
#ifndef KJIT_TOOL_ORACLE_H
#define KJIT_TOOL_ORACLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "kmod/kjit_ioctl.h"

struct session;

#define ORACLE_WHY_MAX 96

struct oracle_fn {
	char name[KJIT_NAME_MAX];
	char parent[KJIT_NAME_MAX]; /* "-" for a root */
	char root[KJIT_NAME_MAX];
	char why[ORACLE_WHY_MAX]; /* deep mode's refusal; "" if it follows */
	char via[KJIT_NAME_MAX];  /* a static call trampoline to it, or "" */
	int irq;		  /* seen only in interrupt context */
	/* called by a KJIT_LEAVE_FROM function (do_exit), each time after
	 * that call's leaving callee (exit_tasks_rcu_start) or as it: 1; ever
	 * before it: 0; never called by one: -1 (kjit.data: oracle_left) */
	int left;
};

struct oracle {
	char (*roots)[KJIT_NAME_MAX]; /* as many as -f gave */
	unsigned int n_roots, cap_roots;
	struct oracle_fn *fn;
	unsigned int n, cap;
	uint64_t lost;	/* events the tracer lost (overrun + dropped) */
	uint64_t lines; /* function lines parsed */
};

enum oracle_class {
	OC_COUNTED,
	OC_IRQ,
	OC_REFUSED,
	OC_CALLER,
	OC_NOT_DEEP,
	OC_STATIC_CALL,
	OC_TABLE_FULL,
	OC_NOT_RUN,
	OC_TRACER_PROBE,
	OC_LEFT_CACHE,
	OC_SITE_NOT_RUN,
	OC_UNEXPLAINED,
	OC_COUNT
};

/* Adds a root (-f FUNC; "module:name" keeps the name). 0 or -ENOMEM. */
int oracle_add_root(struct oracle *o, const char *name);
void oracle_free(struct oracle *o);

/* Parses a function_graph `trace` file (funcgraph-proc on; latency-format
 * adds the context flags that mark interrupt context). Returns 0 or
 * -ENOMEM; lines it does not understand are skipped. */
int oracle_parse(struct oracle *o, FILE *trace);

/* Sums "overrun:" and "dropped events:" of a per_cpu/cpuN/stats file. */
uint64_t oracle_stats_lost(FILE *stats);

struct oracle_fn *oracle_find(const struct oracle *o, const char *name);

/* kjit.data lines: `oracle_root NAME`, `oracle_lost N`,
 * `oracle NAME PARENT ROOT IRQ WHY...` (WHY "-" if none), then
 * `oracle_via NAME TRAMPOLINE` for static call targets. */
void oracle_write(const struct oracle *o, FILE *f);
/* One line's key and rest: 1 if it was an oracle line, 0 if not, -1 if
 * malformed or out of memory. */
int oracle_read_line(struct oracle *o, const char *key, const char *rest);

/* Is @parent a function that enters __schedule (notrace: the tracer names
 * it as the caller of what __schedule calls)? *@followed: deep mode
 * follows __schedule from it (schedule() and its wrappers, __cond_resched
 * through preempt_schedule_common); false for the preemption entries,
 * which KJIT_DEEP_DENY keeps native. */
bool oracle_sched_entry(const char *parent, bool *followed);

enum oracle_class oracle_classify(const struct oracle *o,
				  const struct oracle_fn *fn,
				  const struct session *s);
const char *oracle_class_name(enum oracle_class c);

/* The report's completeness section, per root (see docs/usage.md). */
void oracle_report(const struct oracle *o, const struct session *s, FILE *out);

#endif
