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
 * One slot is one 8-byte word that holds both halves of an entry, so the
 * probe reads it in one load: atomic with respect to an interrupt that
 * refills the slot on this CPU, and to a migration (the probe then reads
 * the old CPU's table, whose entries are as valid). It needs no `cli`.
 * Every address kjit enters or continues at lies in the top 2 GiB of the
 * address space (kernel text, and the modules area where the code cache,
 * BPF programs, ftrace and kprobe trampolines live), where an address is
 * its low 32 bits sign-extended:
 *
 *     word = target[31:0] << 32 | continuation[31:0]    (0: empty)
 *
 * The probe compares the high half with the target's low half (after
 * checking the target is such an address) and sign-extends the low half.
 * A pair outside that range is never put in the table (kjit_ibl_word()
 * returns 0 and kjit_ibl_fill() leaves the slot alone): the dispatcher
 * then handles that target every time, correctly.
 *
 * Invariants:
 *  - Only the owning CPU writes its table, from kjit_dispatch() with
 *    preemption disabled, one word at a time.
 *  - Every CPU's table is cleared before a session is published and after
 *    it is detached, so no entry outlives the code it points into.
 */
#ifndef KJIT_IBL_H
#define KJIT_IBL_H

#define KJIT_IBL_SLOTS 4096 /* a power of two; 8 bytes each */

#ifndef __ASSEMBLY__
#include <linux/percpu.h>

struct kjit_ibl_entry {
	u64 word; /* target[31:0] << 32 | continuation[31:0], 0: empty */
};

/* True if @a is its own low 32 bits sign-extended (the top 2 GiB). */
static inline bool kjit_ibl_addr_ok(unsigned long a)
{
	return (unsigned long)(long)(int)a == a;
}

/* The slot word for @target -> @run, or 0 if either cannot be encoded. */
static inline u64 kjit_ibl_word(unsigned long target, unsigned long run)
{
	if (!kjit_ibl_addr_ok(target) || !kjit_ibl_addr_ok(run))
		return 0;
	return (u64)(u32)target << 32 | (u32)run;
}

/* This CPU's table, KJIT_IBL_SLOTS entries (set at load, never changed). */
DECLARE_PER_CPU(struct kjit_ibl_entry *, kjit_ibl_tab);
/* Hits of the assembly fast path on this CPU (statistics). */
DECLARE_PER_CPU(unsigned long, kjit_ibl_hits);

/*
 * Where an indirect jmp's miss path (jit/flow.c, predict_indirect_jumps)
 * leaves the target it jumps to and its own address, with two plain stores
 * under %gs, before it exits here (kjit_env.jsite_gs is its offset). The
 * C dispatcher, when the target it resolves is that one, fills a way of
 * that site's prediction (kjit_cache_predict_jump). A stale or torn pair
 * (an interrupt's own jump in between, a migration) costs at most a way:
 * a way matches its target exactly, so it can never send a jump wrong.
 */
struct kjit_jsite {
	unsigned long target; /* +0 */
	unsigned long site;   /* +8 */
};
DECLARE_PER_CPU(struct kjit_jsite, kjit_jsite);

/* Module load: every possible CPU's table, zeroed. 0 or -ENOMEM. */
int kjit_ibl_init(void);
/* Module unload (and a failed load): free the tables. */
void kjit_ibl_exit(void);

/* Set by kjit_ibl_freeze(): the tables take no more entries. */
extern bool kjit_ibl_frozen;

/* Remember @target -> @run on this CPU, unless the tables are frozen.
 * Preemption disabled. */
static inline void kjit_ibl_fill(unsigned long target, unsigned long run)
{
	struct kjit_ibl_entry *e = this_cpu_read(kjit_ibl_tab) +
				   ((target >> 4) & (KJIT_IBL_SLOTS - 1));
	u64 w = kjit_ibl_word(target, run);

	if (w && !READ_ONCE(kjit_ibl_frozen))
		WRITE_ONCE(e->word, w);
}

/* Empty every CPU's table (one store a slot: the fast path may be
 * probing). Process context. */
void kjit_ibl_clear(void);
/* Detach: no more entries (after a synchronize_rcu(), no fill is in
 * flight either), then empty every table. Process context, sleeps. */
void kjit_ibl_freeze(void);
/* Attach: empty tables that take entries again. Process context. */
void kjit_ibl_thaw(void);
/* Zero the hit counters (a new session). */
void kjit_ibl_reset_hits(void);
#endif

#endif
