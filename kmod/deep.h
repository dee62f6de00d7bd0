/* SPDX-License-Identifier: GPL-2.0 */
/*
 * deep.h - deep mode: callees of attached functions join the session as
 * they are first called from translated code.
 *
 * A translated direct call is a call exit (jit/flow.c): unlinked, it goes
 * through the dispatcher, which asks kjit_deep_func_of() whether the callee
 * may be translated. If so the callee gets a slot in the session's deep
 * table and is translated like an attached function (its __fentry__ site
 * is dropped: it is entered from the cache, not through a diversion), and
 * the call exit is linked to it; if not, the call is linked to the original
 * callee, which runs natively and returns into the cache.
 *
 *   deep table: fn[0..n)   start/end of each deep function, append-only,
 *                          in chunks of KJIT_DEEP_CHUNK behind a directory
 *                          sized for max
 *               map        start -> index+1 (open addressing, at least 2x
 *                          the entries held); replaced by a bigger one as
 *                          the table grows
 *               over       starts refused for lack of room (2 x (max + 1)
 *                          slots, allocated once the table can fill)
 *               recent[c]  index+1 of the function CPU c found last: the
 *                          next address asked about is usually in it, and
 *                          answering without kallsyms saves ~2 us a
 *                          question under QEMU TCG
 *
 * Growing: the table holds `cap` entries (fn chunks, native-run rows and a
 * map with room for them); an insert that leaves less than `ahead` free
 * (KJIT_DEEP_AHEAD) or finds none asks the worker (worker.h), which (process
 * context) adds chunks and rows, builds a bigger map under the lock and then
 * publishes the new cap (release). The dispatcher never allocates. A callee met
 * while the table is at cap but below max is "not now" (KJIT_DEEP_LATER): that
 * call runs natively, counted (growing), and nothing is linked to its native
 * code, so a later call finds the room.
 *
 * Invariants:
 *  - Any context (called from the dispatcher): no sleeping; inserts take a
 *    raw spinlock with interrupts off, lookups take nothing. An entry is
 *    complete before its index is published (release store of the map
 *    slot), and entries are never removed while the session lives.
 *  - At most max functions (the attach's deep_max); past that, callees run
 *    natively: over_budget counts each refusal, over[] remembers the
 *    distinct callees refused (up to max + 1 of them: "at least" beyond).
 *  - A map, once published, is never freed before the session (readers
 *    take no lock and may still hold an old one; the old maps together are
 *    smaller than the last). Entries are inserted under the lock into the
 *    map current then, and the worker rehashes under the same lock.
 *  - A callee in a module pins that module (try_module_get) until detach,
 *    so its code, and so its translations, stay valid; a module being
 *    unloaded is not followed.
 *  - Refused: what kmod/refuse.c refuses everywhere (kjit itself, entry,
 *    noinstr and cpuidle text, the idle path, the notrace functions on its
 *    list), code that does not last (BPF programs, trampolines), and a
 *    short deny list (kmod/deep.c) of functions that leave or switch the
 *    task. Callees without an __fentry__ site are followed otherwise.
 */
#ifndef KJIT_DEEP_H
#define KJIT_DEEP_H

#include <linux/spinlock.h>
#include <linux/types.h>
#include "worker.h"

struct kjit_session;

#define KJIT_DEEP_CHUNK 256  /* entries per fn chunk */
#define KJIT_DEEP_FIRST 1024 /* room at attach (kjit.deep_first) */
#define KJIT_DEEP_AHEAD 512  /* room kept ahead (kjit.deep_ahead) */
#define KJIT_DEEP_LATER (-2) /* kjit_deep_func_of(): no room yet */

struct kjit_native;

struct kjit_deep_fn {
	unsigned long start, end;
	struct module *mod; /* pinned while translations may run (ksyms.h) */
};

struct kjit_deep_map {
	struct kjit_deep_map *older; /* the map it replaced, freed at the end */
	u32 mask;		     /* slot[] has mask + 1 entries */
	u32 slot[];		     /* index + 1, 0: free */
};

struct kjit_deep {
	raw_spinlock_t lock;
	u32 n; /* entries in fn[]; published with release */
	u32 cap; /* entries held (chunks, rows, map room); release */
	u32 max;
	u32 ahead;		  /* kick the worker when less room is left */
	u32 delay_ms;		  /* the worker waits this long first (tests) */
	struct kjit_deep_fn **fn; /* [dir_len] chunks of KJIT_DEEP_CHUNK */
	u32 dir_len;
	struct kjit_deep_map *map;  /* published with release */
	struct kjit_native *native; /* rows native_base + i for entry i */
	u32 native_base;
	struct kjit_worker worker; /* grows the table (worker.h) */
	atomic64_t growing;  /* calls run natively: no room yet (dispatcher) */
	u64 failed;	     /* allocations that failed (tried again later) */
	size_t bytes;	     /* held now (native rows not included) */
	u32 *recent;	     /* [nr_cpu_ids], see above; only a hint */
	unsigned long *deny; /* function starts that are never followed */
	unsigned int n_deny;
	atomic64_t over_budget; /* callees run natively: table full */
	unsigned long *over;	/* distinct starts refused: table full */
	u32 over_mask;		/* over[] has over_mask + 1 slots */
	u32 over_n;		/* entries in over[], at most max + 1 */
};

/* Process context: a table for up to @max functions, with room for the
 * first @first (1..max), growing to keep room for @ahead more; entry i's
 * native-run row is @native row @native_base + i (rows for @first are
 * there; the table grows the rest). Growing starts at once. */
int kjit_deep_init(struct kjit_deep *d, u32 max, u32 first, u32 ahead,
		   struct kjit_native *native, u32 native_base);
/* Process context, once no dispatcher can run (so nothing kicks the worker
 * any more): stop growing, free the table. */
void kjit_deep_free(struct kjit_deep *d);
/* The entry at index @i (< n). */
static inline const struct kjit_deep_fn *kjit_deep_fn(const struct kjit_deep *d,
						      u32 i)
{
	return &d->fn[i / KJIT_DEEP_CHUNK][i % KJIT_DEEP_CHUNK];
}
/* Process context, once no translated code can run: let the modules of
 * followed callees go (they were pinned when first followed). */
void kjit_deep_unpin(struct kjit_deep *d);
/* Index of @addr's function in the deep table (added if allowed and room
 * is left), -1 if it must run natively, KJIT_DEEP_LATER if it may be
 * followed once the table has grown (run it natively this time, link
 * nothing to it). Any context. */
int kjit_deep_func_of(struct kjit_deep *d, unsigned long addr);
/* Does a callee followed so far start at @addr? Adds nothing. Any
 * context. */
bool kjit_deep_is_start(const struct kjit_deep *d, unsigned long addr);
/* Is @addr inside a callee followed so far? Adds nothing. Any context. */
bool kjit_deep_contains(struct kjit_deep *d, unsigned long addr);

#endif
