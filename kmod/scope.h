/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scope.h - who a session counts: every task on every CPU (the default),
 * the thread groups in a bitmap, in task context only (with "children":
 * also every process one of them forks while attached), or the CPUs in a
 * bitmap (everything on them, interrupts included).
 *
 * The test is the entry trampoline's prologue (codecache/entry.h), before
 * anything else: a call from out of scope returns at once to the
 * function's __fentry__ site and runs natively, at the cost of a few
 * instructions; a session without a scope has no prologue. Callees that
 * deep mode follows are entered only from the cache, so they inherit the
 * decision, and so do an interrupt's own calls to an attached function
 * (not task context: native).
 *
 *     own      every-task and CPU scopes: a second bitmap of thread group
 *              ids, kjit's own processes (own.h), left out in task
 *              context (PID_MAX_LIMIT bits, 512 KiB); none with
 *              KJIT_SCOPE_KJIT, or without the %gs offsets
 *     bitmap   module area (the prologue's bt takes its absolute disp32),
 *              bit n = thread group id n (PID_MAX_LIMIT bits, 512 KiB) or
 *              CPU n (nr_cpu_ids bits); set at attach, and for children
 *              by the sched_process_fork tracepoint, cleared by
 *              sched_process_free when a group leader goes (any tasks
 *              scope: a reused pid is not counted); atomic bit operations
 *
 * The %gs offsets of the current task, the preempt count and the CPU
 * number differ between kernels (6.1: per-CPU variables; 6.12: fields of
 * pcpu_hot): kjit_scope_init() finds them by name and checks each against
 * the value it must hold, else sessions cannot be scoped (-EOPNOTSUPP).
 */
#ifndef KJIT_SCOPE_H
#define KJIT_SCOPE_H

#include <linux/types.h>
#include "cachemem.h"
#include "codecache/entry.h"

struct kjit_scope {
	u32 kind;      /* enum kjit_entry_scope_kind */
	bool children; /* follow forks (KJIT_ATTACH_SCOPE_CHILDREN) */
	bool probing;  /* the fork/free tracepoint probes are registered */
	bool watching; /* own.h keeps @own up to date */
	u32 limit;     /* bits in the bitmap */
	struct kjit_region bits;
	u32 own_limit;		/* bits in @own */
	struct kjit_region own; /* kjit's own thread groups, left out (own.h);
				 * none: counted */
};

/* Module init (process context): find the %gs offsets and tracepoints.
 * Never fails: without them, scoped attaches are refused. */
void kjit_scope_init(void);
/*
 * kjit_scope_prepare - the scope @kind (KJIT_SCOPE_*, kjit_ioctl.h) of
 * the ids @ids[0..@n) into @sc, bitmap allocated and set. 0, -EINVAL (a
 * kind or id out of range), -EOPNOTSUPP (this kernel's offsets were not
 * found), -ENOMEM. Process context.
 */
int kjit_scope_prepare(struct kjit_scope *sc, u32 kind, const u32 *ids, u32 n);
/* The trampoline's view of @sc. */
void kjit_scope_entry(const struct kjit_scope *sc, struct kjit_entry_scope *e);
/* The entry trampoline's exiting guard (codecache/entry.h), but its
 * counters: every session has it; current_gs 0 (no guard) where the %gs
 * offsets of current and the preempt count were not found. */
void kjit_scope_exiting(struct kjit_entry_exiting *x);
/* Attach / detach: follow exits (tasks) and forks (children) while
 * attached. */
int kjit_scope_start(struct kjit_scope *sc);
void kjit_scope_stop(struct kjit_scope *sc);
void kjit_scope_free(struct kjit_scope *sc);
struct tracepoint;
/* The sched_process_free tracepoint, or NULL where it was not found. */
struct tracepoint *kjit_scope_tp_free(void);
/* The request's scope @kind as the session counts it: KJIT_SCOPE_KJIT
 * added where kjit's own processes could not be left out (no %gs
 * offsets), so that stats never claim they were. */
u32 kjit_scope_counted(const struct kjit_scope *sc, u32 kind);
/* Bytes the bitmap takes. */
size_t kjit_scope_mem_bytes(const struct kjit_scope *sc);

#endif
