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
 *   deep table: fn[0..n)   start/end of each deep function, append-only
 *               map        start -> index+1 (open addressing, 2x slots)
 *               over       starts refused for lack of room (same size)
 *               recent[c]  index+1 of the function CPU c found last: the
 *                          next address asked about is usually in it, and
 *                          answering without kallsyms saves ~2 us a
 *                          question under QEMU TCG
 *
 * Invariants:
 *  - Any context (called from the dispatcher): no sleeping; inserts take a
 *    raw spinlock with interrupts off, lookups take nothing. An entry is
 *    complete before its index is published (release store of the map
 *    slot), and entries are never removed while the session lives.
 *  - At most max functions (the attach's deep_max, allocated at attach:
 *    the table does not grow); past that, callees run natively:
 *    over_budget counts each refusal, over[] remembers the distinct
 *    callees refused (up to max + 1 of them: "at least" beyond).
 *  - A callee in a module pins that module (try_module_get) until detach,
 *    so its code, and so its translations, stay valid; a module being
 *    unloaded is not followed.
 *  - Refused: functions without an __fentry__ site (not traceable: notrace,
 *    noinstr, assembly), what kmod/refuse.c refuses everywhere (kjit itself,
 *    entry, noinstr and cpuidle text, the idle path), and a short deny list
 *    (kmod/deep.c) of functions that leave or switch the task.
 */
#ifndef KJIT_DEEP_H
#define KJIT_DEEP_H

#include <linux/spinlock.h>
#include <linux/types.h>

struct kjit_session;

struct kjit_deep_fn {
	unsigned long start, end;
	struct module *mod; /* pinned while translations may run (ksyms.h) */
};

struct kjit_deep {
	raw_spinlock_t lock;
	u32 n; /* entries in fn[]; published with release */
	u32 max;
	u32 mask; /* map has mask+1 slots */
	struct kjit_deep_fn *fn;
	u32 *map;
	u32 *recent;	     /* [nr_cpu_ids], see above; only a hint */
	unsigned long *deny; /* function starts that are never followed */
	unsigned int n_deny;
	atomic64_t over_budget; /* callees run natively: table full */
	unsigned long *over;	/* distinct starts refused: table full */
	u32 over_n;		/* entries in over[], at most max + 1 */
};

/* Process context: allocate for at most @max functions. */
int kjit_deep_init(struct kjit_deep *d, u32 max);
/* Bytes kjit_deep_init() allocates for @max functions. */
size_t kjit_deep_mem_bytes(u32 max);
void kjit_deep_free(struct kjit_deep *d);
/* Process context, once no translated code can run: let the modules of
 * followed callees go (they were pinned when first followed). */
void kjit_deep_unpin(struct kjit_deep *d);
/* Index of @addr's function in the deep table (added if allowed and room
 * is left), or -1 if it must run natively. Any context. */
int kjit_deep_func_of(struct kjit_deep *d, unsigned long addr);
/* Does a callee followed so far start at @addr? Adds nothing. Any
 * context. */
bool kjit_deep_is_start(const struct kjit_deep *d, unsigned long addr);
/* Is @addr inside a callee followed so far? Adds nothing. Any context. */
bool kjit_deep_contains(struct kjit_deep *d, unsigned long addr);

#endif
