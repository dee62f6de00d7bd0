/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibl.h - the indirect branch lookup table: a per-CPU direct-mapped cache
 * of original target -> continuation (a translation, or the target itself
 * when it lies outside the attached code), probed in assembly by
 * kjit_dispatch_entry before it enters C (layout in dispatch_entry.S).
 * Each CPU's table (KJIT_IBL_SLOTS entries, 32 KiB) is allocated at load
 * (ibl.c) and found through the per-CPU pointer kjit_ibl_tab: too big for
 * the kernel's small reserve of static per-CPU memory that all modules
 * share (PERCPU_MODULE_RESERVE, 8 KiB). It was 64 static slots, and deep
 * sessions with hundreds of indirect targets missed it often: every miss
 * is a trip through the C dispatcher (docs/results/lmbench-icount.md).
 *
 * Invariants:
 *  - Only the owning CPU writes its table, from kjit_dispatch() with
 *    preemption disabled: it clears the target word, writes the
 *    continuation, then the target, so an interrupt on this CPU never sees
 *    a target paired with another target's continuation.
 *  - The probe (dispatch_entry.S) reads target and continuation with
 *    interrupts off, so nothing on this CPU refills the slot between its
 *    two reads and the task cannot move to another CPU's table meanwhile.
 *  - Every CPU's table is cleared before a session is published and after
 *    it is detached, so no entry outlives the code it points into.
 */
#ifndef KJIT_IBL_H
#define KJIT_IBL_H

#define KJIT_IBL_SLOTS 2048 /* a power of two */

#ifndef __ASSEMBLY__
#include <linux/percpu.h>

struct kjit_ibl_entry {
	unsigned long target;
	unsigned long run;
};

/* This CPU's table, KJIT_IBL_SLOTS entries (set at load, never changed). */
DECLARE_PER_CPU(struct kjit_ibl_entry *, kjit_ibl_tab);
/* Hits of the assembly fast path on this CPU (statistics). */
DECLARE_PER_CPU(unsigned long, kjit_ibl_hits);

/* Module load: every possible CPU's table, zeroed. 0 or -ENOMEM. */
int kjit_ibl_init(void);
/* Module unload (and a failed load): free the tables. */
void kjit_ibl_exit(void);

/* Remember @target -> @run on this CPU. Preemption disabled. */
static inline void kjit_ibl_fill(unsigned long target, unsigned long run)
{
	struct kjit_ibl_entry *e = this_cpu_read(kjit_ibl_tab) +
				   ((target >> 4) & (KJIT_IBL_SLOTS - 1));

	WRITE_ONCE(e->target, 0);
	barrier();
	WRITE_ONCE(e->run, run);
	barrier();
	WRITE_ONCE(e->target, target);
}

/* Empty every CPU's table. Process context, no session running code. */
void kjit_ibl_clear(void);
/* Zero the hit counters (a new session). */
void kjit_ibl_reset_hits(void);
#endif

#endif
