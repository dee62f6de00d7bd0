/* SPDX-License-Identifier: GPL-2.0 */
/*
 * extable.h - exception-table entries for the code cache, in kjit_pool.ko's
 * table (kmod/pool/kjit_pool.h), so that a fault in a translated copy of an
 * instruction with an entry is fixed up as the original's is.
 *
 *     pool extable   [chunk 0's slice][chunk 1's slice] ...
 *     a slice        used entries, by address | unused: insn and fixup =
 *                                               the chunk's last byte
 *
 * A block that holds such a copy (jit/translate.h: fix_insn) gets one
 * entry: the copy's address, the original entry's data (type, register,
 * immediate: kmod/kjit_fixups.h says which types), and as fixup either the
 * copy's next instruction (the original's fixup is its next one) or the
 * block's landing, an exit to the original fixup target.
 *
 * Invariants:
 *  - Every slice is sorted at every moment: search_extable() bisects the
 *    whole table without a lock. A block's entry goes after the slice's
 *    last used one (fixup and data first, then the address); reset walks
 *    down from the top, address first.
 *  - The pool module's extable/num_exentries point at the table while
 *    kjit.ko is loaded.
 */
#ifndef KJIT_EXTABLE_H
#define KJIT_EXTABLE_H

#include <linux/types.h>

struct kjit_block;
struct kjit_translator;

/* Module init, after kjit_pool_init(): empty every slice, give the table
 * to the kernel. Process context. */
void kjit_extable_init(void);
/* Module exit: take the table back from the kernel. */
void kjit_extable_exit(void);
/* Can translations use the table (init found memory for it)? */
bool kjit_extable_ready(void);
/*
 * kjit_extable_place - give block @b, translated by @tr to run at @run,
 * the entry its copied instruction needs, if any. False, writing nothing,
 * when its chunk's slice is full. The chunk's owning CPU, any context,
 * preemption disabled.
 */
bool kjit_extable_place(const struct kjit_block *b,
			const struct kjit_translator *tr, u64 run);
/* Detach, once nothing runs in the pool: empty the slices of the first
 * @chunks chunks. Process context. */
void kjit_extable_reset(unsigned int chunks);
/* Entries written since load (statistics). */
u64 kjit_extable_entries(void);

#endif
