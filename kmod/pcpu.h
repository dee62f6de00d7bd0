/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpu.h - a session's block counters in per-CPU memory, incremented by
 * translated code with one non-atomic `incq %gs:(%reg)` (jit/instrument.h).
 *
 *     keys[s]      original block address of slot s (0: free); one slot
 *                  per original block, shared by every CPU's cache
 *     chunk[c]     alloc_percpu() of KJIT_PCPU_CHUNK u64: slot s is
 *                  chunk[s / KJIT_PCPU_CHUNK] + s % KJIT_PCPU_CHUNK, whose
 *                  raw __percpu value (the %gs offset) is the same on
 *                  every CPU
 *     base[s]      the sum at the last reset: a count is sum - base
 *
 * Why this is exact without a lock: the increment is a single instruction,
 * so an interrupt, a preemption or a migration lands before or after it;
 * it increments the copy of the CPU that executes it, whichever CPU's cache
 * the code belongs to (a task that migrated while inside CPU 0's cache
 * counts on CPU 1), and every copy is summed.
 *
 * Invariants:
 *  - A slot, once claimed for a block, stays that block's for the
 *    session's life; a claim is one cmpxchg of its key (any context).
 *  - Only translated code writes a counter (on its own CPU's copy);
 *    readers sum every possible CPU's copy with READ_ONCE (an aligned u64
 *    load) and never write one: a reset records base[] instead, so it can
 *    never lose an increment in flight. base[] and the sums are used under
 *    kjit_mutex.
 *  - Allocation and freeing: process context.
 */
#ifndef KJIT_KMOD_PCPU_H
#define KJIT_KMOD_PCPU_H

#include <linux/percpu.h>
#include <linux/types.h>

/* pcpu_alloc() refuses more than PCPU_MIN_UNIT_SIZE (32 KiB) at once. */
#define KJIT_PCPU_CHUNK (PCPU_MIN_UNIT_SIZE / sizeof(u64))

struct kjit_pcpu {
	u32 n_slots; /* a power of two, a multiple of KJIT_PCPU_CHUNK */
	u64 *keys;
	u64 *base;
	u64 __percpu **chunk;
	atomic_t used;	 /* slots claimed */
	atomic64_t full; /* claims refused: the table was full */
};

/* Set at load by kjit_pcpu_probe(): `incq %gs:(%reg)` on an
 * alloc_percpu() pointer increments this CPU's copy. */
extern bool kjit_pcpu_ok;

/* Process context, at load: check that %gs-relative increments of
 * alloc_percpu() memory work as this_cpu_inc() does. */
void kjit_pcpu_probe(void);
/* Room for @n_slots counters (rounded up); 0 or -ENOMEM. Process context. */
int kjit_pcpu_init(struct kjit_pcpu *p, u32 n_slots);
void kjit_pcpu_free(struct kjit_pcpu *p);
/* The slot of the block at @orig, claimed when @claim and new; -1 when it
 * has none (not claimed, or the table is full). Any context. */
int kjit_pcpu_slot(struct kjit_pcpu *p, u64 orig, bool claim);
/* The %gs-relative offset of slot @s (the raw __percpu pointer value). */
u64 kjit_pcpu_offset(const struct kjit_pcpu *p, u32 s);
/* Slot @s summed over CPUs, less its baseline. kjit_mutex held. */
u64 kjit_pcpu_read(const struct kjit_pcpu *p, u32 s);
/* Make every count read 0 from now on. kjit_mutex held. */
void kjit_pcpu_reset(struct kjit_pcpu *p);

#endif
