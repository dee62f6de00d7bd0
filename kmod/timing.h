/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timing.h - per-function time (KJIT_ATTACH_TIME): every call of a timed
 * function (attached, or followed in deep mode) is timed from its entry to
 * its return, in TSC cycles, by calls translated code makes there
 * (jit/timing.h): calls, inclusive and exclusive time (less the timed
 * callees'), virtual time (less the time the task was switched out) and a
 * log2 histogram of the inclusive time, per function.
 *
 *     record       per task: a stack of open calls {fid, the function's
 *                  stack pointer at its entry (where its return address
 *                  is), start, the task's switched-out time then, the
 *                  timed callees' time}, the task's switched-out total
 *                  and when it was switched out. From a pool claimed with
 *                  one cmpxchg by the task's first timed call, keyed by
 *                  the task and its start time (a reused task_struct is a
 *                  new task); none left: its calls are untimed, counted
 *     cur          per CPU: the record of the task running there, set by
 *                  the sched_switch probe, which also books switched-out
 *                  time (virtual time)
 *     stat[cpu][fid] per CPU: calls, cycles inclusive, exclusive, virtual,
 *                  histogram; summed over CPUs when read
 *     paths        the calling context tree: a node per (caller's node,
 *                  fid) seen, claimed with one cmpxchg in an open-addressed
 *                  table; each open call holds its node, and its time goes
 *                  to its node's per-CPU stats too (report --folded)
 *
 * A return closes every open call whose stack pointer is at or below its
 * own: its own, and those of functions that tail-called into it (jmp: one
 * return for both); an entry first drops calls left open deeper than
 * itself (a return that ran natively), counting them lost.
 *
 * Context: the helpers run wherever translated code does (task, softirq,
 * hardirq; NMI leaves them at once, untimed), with preemption off and the
 * CPU marked busy while they touch a record and the CPU's stats: an
 * interrupt that comes in the middle of one leaves its own calls untimed
 * (counted in untimed). Calls in hardirq and softirq context go in the
 * CPU's own two records (on PREEMPT_RT softirqs run preemptible in their
 * task: in its record), so that one record's calls are all on one stack:
 * a task's record takes only calls on the task's own stack (a function
 * entered on another, as __switch_to on the next task's, is untimed); in
 * a CPU's, an open call on another stack than a new one's is dropped as
 * lost. An
 * interrupt's time counts in the task's calls it interrupted (as perf's).
 * The probe runs in the scheduler; a task's last switch (TASK_DEAD) gives
 * its record back to the pool.
 *
 * Invariants: the pool, the stats and the probe live from attach until
 * the session is freed (the probe unregistered and synchronized at
 * detach); readers sum every CPU's stats; reset zeroes each CPU's own on
 * that CPU (an IPI), or, if it interrupted a helper there, the helper does
 * as it finishes.
 */
#ifndef KJIT_TIMING_H
#define KJIT_TIMING_H

#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/types.h>
#include "kjit_ioctl.h"

#define KJIT_TIME_DEPTH 64 /* open calls a task may have */

struct kjit_tframe {
	u32 fid;
	u32 node; /* its call path (KJIT_TPATH_NONE: none) */
	u64 rsp, t0, off0, child;
	/* the last callee's fid and path node (KJIT_TPATH_NONE: none yet):
	 * a node never changes once claimed, so a callee called again from
	 * here skips the path table */
	u32 cfid, cnode;
};

struct kjit_trec {
	struct task_struct *task; /* claimed: cmpxchg from NULL */
	u64 start;		  /* task->start_time at the claim */
	u32 depth;
	u64 off;    /* cycles switched out since the claim */
	u64 out_at; /* when switched out (0: running) */
	u32 rfid, rnode; /* as a frame's cfid, cnode, for its root calls */
	struct kjit_tframe f[KJIT_TIME_DEPTH];
};

struct kjit_tstat {
	u64 calls, incl, excl, virt;
	u64 hist[KJIT_TIME_BUCKETS];
};

/* A call path's time (its node: the path of its caller, then a fid). */
struct kjit_tpstat {
	u64 calls, incl, excl;
};

struct kjit_timing {
	u32 n_recs;	/* 0: the session is not timed */
	u32 max_fid;	/* functions timed: fids below it */
	struct kjit_trec *rec; /* [n_recs] tasks', then 2 per CPU: hardirq,
				* softirq */
	struct kjit_tstat **stat; /* [cpu][max_fid], each CPU's vmalloc */
	atomic_t recs_used; /* records claimed */
	atomic64_t untimed; /* calls not timed: no record, too deep, fid */
	atomic64_t lost;    /* calls left open (their return native) */
	/* call paths: node n's key is (its caller's node + 1) << 32 | (fid
	 * + 1), 0 while free, claimed with one cmpxchg; its time per CPU */
	u32 n_paths;
	u64 *pkey;
	struct kjit_tpstat **pstat; /* [cpu][n_paths] */
	atomic_t paths_used;
	atomic64_t paths_full; /* calls whose path found no node */
	bool probing;
	size_t bytes;
};

/* Module init: find the sched_switch tracepoint. */
void kjit_timing_init(void);
/* A pool of @recs task records, stats for @max_fid functions and room
 * for @paths call paths: 0,
 * -EOPNOTSUPP (no tracepoint, no TSC or one the kernel
 * marked unstable; said in the log), -ENOMEM. Process context. */
int kjit_timing_prepare(struct kjit_timing *t, u32 recs, u32 max_fid,
			u32 paths);
/* Publish @t to the helpers and register the probe (before diversion). */
int kjit_timing_start(struct kjit_timing *t);
/* Unpublish, unregister, wait (idempotent). */
void kjit_timing_stop(struct kjit_timing *t);
void kjit_timing_free(struct kjit_timing *t);
/* Function @fid's stats summed over CPUs into @out. */
void kjit_timing_read(const struct kjit_timing *t, u32 fid,
		      struct kjit_tstat *out);
/* Call path @node's key (0: free) and its time summed over CPUs. */
u64 kjit_timing_path(const struct kjit_timing *t, u32 node,
		     struct kjit_tpstat *out);
/* Zero every CPU's stats (KJIT_IOC_RESET). */
void kjit_timing_reset(struct kjit_timing *t);

/* The helpers translated code calls (timing_entry.S). */
extern char kjit_time_enter_stub[], kjit_time_exit_stub[];

#endif
