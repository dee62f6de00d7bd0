/* SPDX-License-Identifier: GPL-2.0 */
/*
 * native.h - per function, how often its code ran natively instead of from
 * the cache, and why (enum kjit_fallback): what KJIT_IOC_FUNCS reports as
 * kjit_func_info.native[], so no report shows a silent zero.
 *
 *     cnt[fi][r]    one u64 per function and reason, a row of
 *                   KJIT_FALLBACK_REASONS (the ABI's array, 72 bytes)
 *                   per function, in a data region of the module area
 *
 *   fi is the session's function index (attached 0..n_funcs-1, deep
 *   callees n_funcs + i), so a deep session has up to n_funcs + deep_max
 *   rows: the first `first` rows in one region allocated at attach, the
 *   rest in chunks of KJIT_NATIVE_CHUNK rows that the deep table's worker
 *   adds as it grows (kmod/deep.c), each published (release) before any
 *   function is given a row in it.
 *   Row fi, reason KJIT_FB_FTRACE_SITE, is the word a followed callee's
 *   entry guard increments (`lock incq ctr(%rip)`, jit/flow.c) when its
 *   ftrace site is in use: the region is in the module area, within rel32
 *   reach of every cache. The dispatcher adds its fallbacks at a
 *   function's code (code cache or block map full, a refused block, NMI,
 *   nested, RCU idle) to the same rows.
 *
 * Cost: 72 bytes per function row held, whatever the number of CPUs (a
 * deep session starts with rows for its first 1,024 callees: 72 KiB); nothing
 * on the path of a counted block: the guard's increment is on its native
 * side only, as before, and the dispatcher's on its fallback paths.
 *
 * Invariants:
 *  - Counters only go up (lock incq / atomic64_inc, any context); a reset
 *    zeroes the entry guards' column (kjit_mutex held), so every column
 *    adds up to the session's total of its reason (KJIT_IOC_STATS).
 *    Readers take atomic64_read.
 *  - Allocation and freeing: process context. A row, once held, never
 *    moves until the session is freed (translated guards address it).
 */
#ifndef KJIT_KMOD_NATIVE_H
#define KJIT_KMOD_NATIVE_H

#include <linux/atomic.h>
#include <linux/types.h>
#include "cachemem.h"
#include "kjit_ioctl.h"

#define KJIT_NATIVE_CHUNK 256 /* rows per chunk after the first region */

typedef atomic64_t kjit_native_row[KJIT_FALLBACK_REASONS];

struct kjit_native {
	struct kjit_region mem; /* the first region: rows [0, first) */
	kjit_native_row *cnt;
	u32 first;
	u32 rows;		  /* held; published with release */
	u32 max_rows;		  /* the limit */
	struct kjit_region *more; /* [dir_len] chunks after the first */
	u32 dir_len;
	size_t bytes; /* held now */
};

/* Process context: rows for @first functions now, up to @max_rows as
 * kjit_native_grow() adds them. 0 or -ENOMEM. */
int kjit_native_init(struct kjit_native *n, u32 first, u32 max_rows);
void kjit_native_free(struct kjit_native *n);
/* Bytes kjit_native_init() takes for @first rows. */
size_t kjit_native_mem_bytes(u32 first);
/* Process context: hold at least @rows rows (within the limit). False if
 * memory ran out. */
bool kjit_native_grow(struct kjit_native *n, u32 rows);

/* The counter of function @fi, reason @r (enum kjit_fallback), or NULL
 * when @fi is out of range. Any context. */
static inline atomic64_t *kjit_native_ctr(const struct kjit_native *n, int fi,
					  unsigned int r)
{
	kjit_native_row *row;
	u32 i;

	if (fi < 0 || (u32)fi >= smp_load_acquire(&n->rows) ||
	    r >= KJIT_FALLBACK_REASONS)
		return NULL;
	if ((u32)fi < n->first)
		return &n->cnt[fi][r];
	i = (u32)fi - n->first;
	row = (kjit_native_row *)n->more[i / KJIT_NATIVE_CHUNK].rw;
	return &row[i % KJIT_NATIVE_CHUNK][r];
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
