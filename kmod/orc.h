/* SPDX-License-Identifier: GPL-2.0 */
/*
 * orc.h - ORC unwind entries for the code cache, in kjit_pool.ko's table
 * (kmod/pool/kjit_pool.h), so that the kernel's ORC unwinder walks
 * through translated code as it walks through the original.
 *
 *     pool ORC table   [chunk 0's slice ][chunk 1's slice ] ...
 *     a slice          used slots, by address | unused: (chunk end - 1,
 *                                               undefined entry)
 *
 * A block's entries come from its unwind map (jit/emit.h): each point's
 * original instruction's own ORC entry (vmlinux's table, or its module's),
 * with sp_offset raised by the bytes inserted code pushed; consecutive
 * equal entries are one. Where the map knows no layout (stubs), or the
 * original has none, or an adjustment cannot be expressed (the CFA is
 * not sp-based), the entry is undefined: the unwinder stops there and
 * calls the trace unreliable - never a wrong frame.
 *
 * Invariants:
 *  - Every slice is sorted at every moment (kjit_pool.h): a block's slots
 *    are written at the slice's end, above every earlier one, entry
 *    before address; reset walks down from the top.
 *  - The pool module's arch.orc_unwind* point at the table only while
 *    kjit.ko is loaded.
 */
#ifndef KJIT_ORC_H
#define KJIT_ORC_H

#include <linux/types.h>

struct kjit_block;
struct kjit_entry_frames;
struct kjit_translator;

/* Module init, after kjit_pool_init(): find vmlinux's ORC tables, empty
 * every slice, give the table to the kernel. Process context. A kernel
 * without them (no ORC unwinder) leaves every entry undefined. */
void kjit_orc_init(void);
/* Module exit: take the table back from the kernel. */
void kjit_orc_exit(void);
/*
 * kjit_orc_place - record block @b, translated by @tr to run at @run (in
 * the pool), in its chunk's slice. Returns the entries written, or -1,
 * writing nothing, when the slice has no room for it: the block goes to
 * the next chunk. The owning CPU of the chunk, any context, preemption
 * disabled.
 */
int kjit_orc_place(const struct kjit_block *b, const struct kjit_translator *tr,
		   u64 run);
/* Detach, once nothing runs in the pool: empty the slices of the first
 * @chunks chunks. Process context. */
void kjit_orc_reset(unsigned int chunks);
/* Record the entry trampoline at @run (in a chunk of its own, before any
 * block): at each of @fr's points a CALL frame @fr->f[i].sp bytes up, or
 * none (sp 0). Returns the slots used, or -1 (no room, not in the pool).
 * Process context, kjit_mutex held. */
int kjit_orc_place_frames(unsigned long run, const struct kjit_entry_frames *fr);
/* Entries written since load (statistics). */
u64 kjit_orc_entries(void);

#endif
