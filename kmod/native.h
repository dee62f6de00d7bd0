/* SPDX-License-Identifier: GPL-2.0 */
/*
 * native.h - per function, how often its code ran natively instead of from
 * the cache, and why (enum kjit_fallback): what KJIT_IOC_FUNCS reports as
 * kjit_func_info.native[], so no report shows a silent zero.
 *
 *     cnt[fi][r]    one u64 per function and reason, a row of
 *                   KJIT_FALLBACK_REASONS (the ABI's array, one cache line)
 *                   per function, in a data region of the module area
 *
 *   fi is the session's function index (attached 0..n_funcs-1, deep
 *   callees n_funcs + i), so a deep session has n_funcs + deep_max rows.
 *   Row fi, reason KJIT_FB_FTRACE_SITE, is the word a followed callee's
 *   entry guard increments (`lock incq ctr(%rip)`, jit/flow.c) when its
 *   ftrace site is in use: the region is in the module area, within rel32
 *   reach of every cache. The dispatcher adds its fallbacks at a
 *   function's code (code cache or block map full, a refused block, NMI,
 *   nested, RCU idle) to the same rows.
 *
 * Cost: 64 bytes per function slot for the session (a deep session with
 * the default 4096 callees: 260 KiB, whatever the number of CPUs); nothing
 * on the path of a counted block: the guard's increment is on its native
 * side only, as before, and the dispatcher's on its fallback paths.
 *
 * Invariants:
 *  - Counters only go up (lock incq / atomic64_inc, any context); a reset
 *    zeroes the entry guards' column (kjit_mutex held), so every column
 *    adds up to the session's total of its reason (KJIT_IOC_STATS).
 *    Readers take atomic64_read.
 *  - Allocation and freeing: process context.
 */
#ifndef KJIT_KMOD_NATIVE_H
#define KJIT_KMOD_NATIVE_H

#include <linux/atomic.h>
#include <linux/types.h>
#include "cachemem.h"
#include "kjit_ioctl.h"

struct kjit_native {
	struct kjit_region mem;
	atomic64_t (*cnt)[KJIT_FALLBACK_REASONS]; /* [rows] */
	u32 rows;
};

/* Process context: room for @rows functions. 0 or -ENOMEM. */
int kjit_native_init(struct kjit_native *n, u32 rows);
void kjit_native_free(struct kjit_native *n);
/* Bytes kjit_native_init() takes for @rows functions. */
size_t kjit_native_mem_bytes(u32 rows);

/* The counter of function @fi, reason @r (enum kjit_fallback), or NULL
 * when @fi is out of range. Any context. */
static inline atomic64_t *kjit_native_ctr(const struct kjit_native *n, int fi,
					  unsigned int r)
{
	if (fi < 0 || (u32)fi >= n->rows || r >= KJIT_FALLBACK_REASONS)
		return NULL;
	return &n->cnt[fi][r];
}

/* Count one native run of function @fi for reason @r. Any context. */
static inline void kjit_native_add(const struct kjit_native *n, int fi,
				   unsigned int r)
{
	atomic64_t *c = kjit_native_ctr(n, fi, r);

	if (c)
		atomic64_inc(c);
}

/* Sum of reason @r over every function. kjit_mutex held. */
u64 kjit_native_total(const struct kjit_native *n, unsigned int r);
/* Zero the entry guards' counts: what a reset zeroes in the session's
 * totals too (the dispatcher's fallbacks count for the whole session, as
 * in KJIT_IOC_STATS). kjit_mutex held. */
void kjit_native_reset(struct kjit_native *n);

#endif
