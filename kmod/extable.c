// SPDX-License-Identifier: GPL-2.0
/*
 * extable.c - exception-table entries for translated code (see extable.h).
 *
 * x86 entries are three ints: insn and fixup relative to their own field,
 * data absolute (type, register, flags, immediate). The table lies in
 * kjit_pool.ko's .bss, within 2 GiB of the pool: every relative field
 * fits.
 */
#include <linux/extable.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <asm/extable.h>
#include "cachepool.h"
#include "kcode.h"
#include "extable.h"
#include "jit/translate.h"
#include "kmod/pool/kjit_pool.h"

static u8 *used; /* entries per chunk */
static atomic64_t entries;

static struct exception_table_entry *slot(unsigned int chunk, unsigned int j)
{
	return &kjit_pool.extable[chunk * kjit_pool.ex_per_chunk + j];
}

static int rel(const int *field, unsigned long to)
{
	return (int)(to - (unsigned long)field);
}

/* Unused: insn and fixup at the chunk's last byte, no type. */
static void empty_slot(unsigned int chunk, unsigned int j)
{
	struct exception_table_entry *e = slot(chunk, j);
	unsigned long end = (unsigned long)kjit_pool.code +
			    (unsigned long)(chunk + 1) * kjit_pool.chunk_bytes -
			    1;

	WRITE_ONCE(e->insn, rel(&e->insn, end));
	smp_wmb();
	e->fixup = rel(&e->fixup, end);
	e->data = 0;
}

bool kjit_extable_place(const struct kjit_block *b,
			const struct kjit_translator *tr, u64 run)
{
	const struct kjit_block_desc *d = kjit_last_desc(tr);
	const struct exception_table_entry *orig;
	struct exception_table_entry *e;
	unsigned int chunk;
	unsigned long fix;

	if (b->fix_kind != KJIT_FIXUP_EXIT && b->fix_kind != KJIT_FIXUP_NEXT)
		return true;
	chunk = kjit_pool_chunk((unsigned long)run);
	orig = kjit_kcode_ex_entry((unsigned long)d->insn[b->fix_insn].addr);
	if (!used || !orig || used[chunk] >= kjit_pool.ex_per_chunk)
		return false;
	fix = b->fix_kind == KJIT_FIXUP_EXIT
		  ? run + b->fix_land_off
		  : run + b->fix_off + d->insn[b->fix_insn].len;
	e = slot(chunk, used[chunk]);
	e->data = orig->data;
	e->fixup = rel(&e->fixup, fix);
	smp_wmb();
	WRITE_ONCE(e->insn, rel(&e->insn, run + b->fix_off));
	used[chunk]++;
	atomic64_inc(&entries);
	return true;
}

void kjit_extable_reset(unsigned int chunks)
{
	unsigned int c, j;

	for (c = 0; used && c < chunks; c++) {
		for (j = used[c]; j-- > 0;)
			empty_slot(c, j);
		used[c] = 0;
	}
}

void kjit_extable_init(void)
{
	unsigned int chunks = kjit_pool.code_bytes / kjit_pool.chunk_bytes;
	struct module *mod = kjit_pool.mod;
	unsigned int c, j;

	used = kcalloc(chunks, 1, GFP_KERNEL);
	if (!used) {
		pr_info("kjit: no memory for the cache's exception table: "
			"instructions with fixups run natively\n");
		return;
	}
	for (c = 0; c < chunks; c++)
		for (j = kjit_pool.ex_per_chunk; j-- > 0;)
			empty_slot(c, j);
	mod->extable = kjit_pool.extable;
	smp_wmb(); /* search_module_extables() reads the count first */
	WRITE_ONCE(mod->num_exentries, chunks * kjit_pool.ex_per_chunk);
}

void kjit_extable_exit(void)
{
	struct module *mod = kjit_pool.mod;

	WRITE_ONCE(mod->num_exentries, 0);
	synchronize_rcu(); /* searches run with preemption disabled */
	mod->extable = NULL;
	kfree(used);
	used = NULL;
}

bool kjit_extable_ready(void)
{
	return used != NULL;
}

u64 kjit_extable_entries(void)
{
	return atomic64_read(&entries);
}
