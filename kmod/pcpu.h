/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpu.h - a session's block counters in per-CPU memory, incremented by
 * translated code with one non-atomic `incq %gs:(%reg)` (jit/instrument.h).
 * The table of counters grows with use, as the block map does.
 *
 *     keys[k]      open-addressing hash of the original block addresses:
 *                  (number + 1) << 32 | low half of the address, 0: free.
 *                  One counter per original block, shared by every CPU's
 *                  cache; numbers are handed out in order from 0
 *     chunk[c]     chunk_len u64 of per-CPU memory: counter n is
 *                  chunk[n / chunk_len] + n % chunk_len, whose raw
 *                  __percpu value (the %gs offset) is the same on every
 *                  CPU; NULL until the worker brought it. The first
 *                  near_chunks lie in the near area (pcpu_near.h: offsets
 *                  within a disp32, `incq %gs:disp32`), the rest come
 *                  from alloc_percpu() (`movabs $off,%reg; incq
 *                  %gs:(%reg)`)
 *     base[c][i]   the sum at the last reset: a count is sum - base
 *
 * Why this is exact without a lock: the increment is a single instruction,
 * so an interrupt, a preemption or a migration lands before or after it;
 * it increments the copy of the CPU that executes it, whichever CPU's cache
 * the code belongs to (a task that migrated while inside CPU 0's cache
 * counts on CPU 1), and every copy is summed. A chunk's address is fixed
 * when it is allocated and translated code carries it whole (movabs), so
 * chunks need not be contiguous: the table grows without moving anything.
 *
 * Invariants:
 *  - A key, once claimed for a block, stays that block's for the session's
 *    life; a claim is one cmpxchg that publishes the block and its number
 *    together (any context). Block addresses are kernel or module text,
 *    in the top 2 GiB, so the low half names one (checked: else no key).
 *  - Chunks come in order, each published (release) after its base row;
 *    `held` counts the counters that have memory. A block whose chunk has
 *    not come yet when a CPU translates it is counted by that translation
 *    in the old form (lock incq), exactly, and said (`growing`).
 *  - Only translated code writes a counter (on its own CPU's copy);
 *    readers sum every possible CPU's copy with READ_ONCE (an aligned u64
 *    load) and never write one: a reset records base instead, so it can
 *    never lose an increment in flight. base and the sums are used under
 *    kjit_mutex.
 *  - Allocation and freeing: process context; the worker (worker.h) adds
 *    chunks while translated code runs, asked for by claims that leave
 *    less than `ahead` counters with memory.
 */
#ifndef KJIT_KMOD_PCPU_H
#define KJIT_KMOD_PCPU_H

#include <linux/percpu.h>
#include <linux/types.h>
#include "pcpu_near.h"
#include "worker.h"

/* pcpu_alloc() refuses more than PCPU_MIN_UNIT_SIZE (32 KiB) at once. */
#define KJIT_PCPU_CHUNK (PCPU_MIN_UNIT_SIZE / sizeof(u64))

struct kjit_pcpu {
	u32 n_keys;    /* a power of two */
	u32 n_ctrs;    /* the limit: 3/4 of n_keys (probes stay short) */
	u32 chunk_len; /* counters per chunk, a power of two */
	u32 dir_len;   /* chunks for n_ctrs */
	u32 ahead;     /* counters with memory the worker keeps free */
	u32 held;      /* counters with memory (release, by the worker) */
	u32 delay_ms;  /* tests: the worker waits this long first */
	u64 *keys;
	u64 __percpu **chunk;
	u64 **base;
	atomic_t used;	    /* numbers handed out */
	atomic64_t full;    /* claims refused: the table was full */
	atomic64_t growing; /* translations whose counter had no memory yet */
	size_t bytes;	    /* memory held now (the worker adds to it) */
	/* the first near_chunks chunks lie in the near area (pcpu_near.h):
	 * %gs offsets within a disp32, one instruction a block */
	struct kjit_pcpu_near near;
	u32 near_chunks;
	const char *near_why; /* why there is no near area, or NULL */
	bool said_in_reach;   /* an alloc_percpu() chunk fit a disp32 */
	struct kjit_worker worker;
};

/* Set at load by kjit_pcpu_probe(): `incq %gs:(%reg)` on an
 * alloc_percpu() pointer increments this CPU's copy. */
extern bool kjit_pcpu_ok;

/* Process context, at load: check that %gs-relative increments of
 * alloc_percpu() memory work as this_cpu_inc() does. */
void kjit_pcpu_probe(void);
/* @n_keys keys (rounded up to a power of two) and counters for 3/4 of
 * them at most, in chunks of @chunk_len (rounded up to a power of two, at
 * most KJIT_PCPU_CHUNK; 0: that): the first chunks, for @ahead counters,
 * allocated now, the rest by a worker as claims come; 0 or -ENOMEM.
 * With @near, as many chunks as the near area holds come from it
 * (pcpu_near.h; p->near_why says why none do), the area at most
 * @near_cap bytes a CPU (0: no cap). Process context. */
int kjit_pcpu_init(struct kjit_pcpu *p, u32 n_keys, u32 chunk_len, u32 ahead,
		   bool near, size_t near_cap);
/* Stops the worker and frees everything. Process context, once no
 * translation can claim any more. */
void kjit_pcpu_free(struct kjit_pcpu *p);
/* The counter of the block at @orig for a translation, claimed if new:
 * 0 and its %gs-relative offset (the raw __percpu pointer value) in @off;
 * -ENOSPC: the table is full (counted in full); -EAGAIN: its chunk has
 * not come yet (counted in growing; the worker is asked); -ERANGE: not a
 * text address. Any context. */
int kjit_pcpu_claim(struct kjit_pcpu *p, u64 orig, u64 *off);
/* The number of the block at @orig's counter (claimed when @claim and
 * new), for the banks of a split session (split.h); -ENOENT, -ENOSPC or
 * -ERANGE as above. Any context. */
int kjit_pcpu_number(struct kjit_pcpu *p, u64 orig, bool claim);
/* The count of the block at @orig summed over CPUs, less its baseline; 0
 * when it has no counter. kjit_mutex held. */
u64 kjit_pcpu_count(const struct kjit_pcpu *p, u64 orig);
/* Make every count read 0 from now on. kjit_mutex held. */
void kjit_pcpu_reset(struct kjit_pcpu *p);

#endif
