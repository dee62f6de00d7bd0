/* SPDX-License-Identifier: GPL-2.0 */
/*
 * split.h - a session split by process (KJIT_ATTACH_SPLIT): each block
 * counts in the bank of the thread group that runs it, so a report can say
 * which process ran what, exactly.
 *
 *     bank b        a thread group's counters: chunks of 4096 u64 of
 *                   per-CPU memory (alloc_percpu), the same layout as the
 *                   session's counters (pcpu.h): counter n of the session
 *                   is word n % 4096 of chunk n / 4096. Bank 0 counts the
 *                   thread groups that found no bank of their own
 *                   ("[other]"), bank 1 every kernel thread and the idle
 *                   tasks ("[kernel]"), banks 2.. one user process each
 *     slot[c]       per CPU: the %gs offset of chunk c of the bank of the
 *                   task running there; translated code reads it and
 *                   increments at its counter's place (jit/instrument.h,
 *                   KJIT_MEM_GS_BANK). Written by the sched_switch probe
 *                   for the task switched in, and at attach for the task
 *                   running then
 *     tgid table    open addressing, (tgid + 1) << 32 | bank: a thread
 *                   group's bank, claimed with one cmpxchg at its first
 *                   switch-in; a group that finds the banks used up (or
 *                   no entry within a few probes) counts in bank 0
 *
 * Why this is exact: a counter increment is the slot load and one incq;
 * the slot names the bank of the task on this CPU, and a task preempted
 * or migrated between the two keeps its own bank's offset in its
 * register, so the increment lands in its bank (on whichever CPU's copy).
 * Interrupt code counts for the task it interrupted, as perf attributes
 * it. The part of the context switch after the sched_switch tracepoint
 * (the rest of __schedule() in deep mode) counts for the task switched in.
 * Blocks numbered past the banks' chunks (more distinct blocks than
 * chunks x 4096) count in the session's own counters, whole but not
 * split: their counts are reported as such.
 *
 * Invariants:
 *  - Banks, their chunks and base rows are allocated at attach and stay
 *    until the session is freed; the probe is registered before the
 *    diversion and unregistered (and synchronized) before they are freed.
 *  - A bank's tgid and comm are written once, at its claim, before the
 *    table entry that publishes it (release); comm is refreshed by the
 *    probe when the group's leader exec()s (a plain copy, as perf's).
 *  - Reads take every possible CPU's copy with READ_ONCE less the base a
 *    reset recorded for that copy; nothing but translated code writes a
 *    counter.
 */
#ifndef KJIT_SPLIT_H
#define KJIT_SPLIT_H

#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/types.h>
#include "kjit_ioctl.h"

#define KJIT_SPLIT_CHUNKS   4	 /* bank chunks: 16384 blocks split */
#define KJIT_SPLIT_CHUNK    4096 /* counters a chunk (32 KiB, pcpu.h) */
#define KJIT_SPLIT_OTHER    0	 /* banks: the thread groups left over */
#define KJIT_SPLIT_KERNEL   1	 /* ... kernel threads and idle */

struct kjit_bank {
	u32 tgid;
	char comm[TASK_COMM_LEN];
	u64 __percpu *chunk[KJIT_SPLIT_CHUNKS];
	u64 *base[KJIT_SPLIT_CHUNKS]; /* [cpu * KJIT_SPLIT_CHUNK + word] */
};

struct kjit_split {
	u32 n_banks; /* 0: the session is not split */
	u32 chunks;  /* chunks a bank holds (1..KJIT_SPLIT_CHUNKS) */
	struct kjit_bank *bank;
	atomic_t used; /* banks handed out, the two fixed ones included */
	atomic64_t left_over; /* switch-ins of groups that got no bank */
	u64 *table;	/* tgid table, n_table entries */
	u32 n_table;	/* a power of two */
	bool probing;	/* the sched_switch probe is registered */
	size_t bytes;	/* memory held */
};

/* Module init: find the sched_switch tracepoint. Never fails (without it
 * split sessions are refused, -EOPNOTSUPP). */
void kjit_split_init(void);
/* Banks for @banks thread groups (2..KJIT_SPLIT_BANKS_MAX, the two fixed
 * ones included) of @chunks chunks each: 0, -EINVAL, -EOPNOTSUPP,
 * -ENOMEM. Process context. */
int kjit_split_prepare(struct kjit_split *sp, u32 banks, u32 chunks);
/* Register the probe and set every CPU's slots: before the diversion. */
int kjit_split_start(struct kjit_split *sp);
/* Unregister it and wait for its runs (idempotent). */
void kjit_split_stop(struct kjit_split *sp);
void kjit_split_free(struct kjit_split *sp);
/* The %gs offset of the slot of chunk @c, for translated code. */
u64 kjit_split_slot(u32 c);
/* Does counter @n count in the banks? */
static inline bool kjit_split_has(const struct kjit_split *sp, u32 n)
{
	return sp->n_banks && n < sp->chunks * KJIT_SPLIT_CHUNK;
}
/* Counter @n of bank @b summed over CPUs (@cpu < 0) or on CPU @cpu, less
 * the base of the last reset. */
u64 kjit_split_count(const struct kjit_split *sp, u32 b, u32 n, int cpu);
/* The same over every bank. */
u64 kjit_split_total(const struct kjit_split *sp, u32 n, int cpu);
/* Record every counter's current sums as its base (KJIT_IOC_RESET). */
void kjit_split_reset(struct kjit_split *sp);

#endif
