/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symbols.h - kallsyms names for translated code: each block of the code
 * cache becomes a symbol of kjit_pool.ko named after the original it was
 * translated from, "pipe_read+0x4c", so that %pS, stack traces,
 * /proc/kallsyms and perf say whose code ran:
 *
 *     [<0>] pipe_read+0x4c+0x1e/0x40 [kjit_pool]
 *           ^ the block's original  ^ offset in its translation
 *
 * The pool module's symbol table (mod->kallsyms) is swapped, while kjit.ko
 * is loaded, for a copy with room for KJIT_SYMS_MAX more symbols. Names
 * are made in process context (sprint_symbol(), which the dispatcher may
 * not call: it takes no lock but reaches vsnprintf, a function users
 * attach), by a worker that runs every KJIT_SYMS_PERIOD_MS while a session
 * is attached: a block may go unnamed (kjit_pool_code+...) for that long.
 *
 * The table has two kinds of readers: lookups by address (%pS, stack
 * traces, /proc/kallsyms) under RCU-sched, and walks of every symbol
 * (module_kallsyms_on_each_symbol(): kprobe events, fprobe, livepatch)
 * under module_mutex, preemptible, which RCU does not wait for.
 *
 * Invariants:
 *  - A symbol is written whole before the count that shows it grows
 *    (readers walk the table without a lock, under RCU-sched).
 *  - mod->kallsyms changes only under module_mutex, and a table it no
 *    longer names is freed only after an RCU-sched grace period that
 *    began once module_mutex was released: no reader of either kind
 *    holds it then.
 *  - Symbols of a session go at its detach (count back under
 *    module_mutex, then an RCU-sched grace period) before their slots are
 *    written again: no walk that saw them is still under way.
 *  - Without module_mutex's address (kallsyms_lookup_name), the table is
 *    never swapped: cache addresses keep the pool's one name.
 */
#ifndef KJIT_SYMBOLS_H
#define KJIT_SYMBOLS_H

#include <linux/types.h>

struct kjit_session;

#define KJIT_SYMS_MAX	    65536
#define KJIT_SYMS_PERIOD_MS 100

/* Module init, after kjit_pool_init(): swap in the bigger table. Process
 * context. Without memory, cache addresses keep the pool's one name. */
void kjit_symbols_init(void);
/* Module exit: the pool module's own table back. */
void kjit_symbols_exit(void);
/* Attach: name @s's blocks from now on. Process context. */
void kjit_symbols_start(struct kjit_session *s);
/* Detach, before the code goes: stop naming; no session block keeps a
 * name once kjit_symbols_reset() has returned. Process context. */
void kjit_symbols_stop(void);
void kjit_symbols_reset(void);
/* Name code of kjit's own in the pool (the entry trampoline) @name until
 * kjit_symbols_reset(). False if the table is full or missing. Process
 * context, kjit_mutex held. */
bool kjit_symbols_add(unsigned long value, const char *name);
/* Blocks named so far in this session, and left unnamed for want of room. */
u64 kjit_symbols_named(void);
u64 kjit_symbols_dropped(void);

#endif
