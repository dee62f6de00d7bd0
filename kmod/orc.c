// SPDX-License-Identifier: GPL-2.0
/*
 * orc.c - ORC entries for translated code (see orc.h).
 *
 * The ORC tables' ip arrays are relative (each int plus its own address,
 * as the kernel's orc_ip()), entries 6 bytes. The layouts of 6.1 and 6.12
 * differ in the flag bits only; an all-zero entry is undefined in both
 * (6.1: sp_reg ORC_REG_UNDEFINED without `end`; 6.12: ORC_TYPE_UNDEFINED),
 * and the only field kjit changes, sp_offset, is the first in both.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/objtool.h>
#include <asm/orc_types.h>
#include "cachepool.h"
#include "codecache/entry.h"
#include "jit/translate.h"
#include "kmod/pool/kjit_pool.h"
#include "ksyms.h"
#include "orc.h"

/* vmlinux's table, sorted at build time */
static int *vml_ip;
static struct orc_entry *vml_orc;
static unsigned int vml_num;
static unsigned long stext, etext;
static u16 *slots_used; /* per chunk */
static atomic64_t entries;

static unsigned long orc_ip(const int *ip)
{
	return (unsigned long)ip + *ip;
}

/* The entry that covers @ip in a sorted table: the last one at or below
 * it, as the kernel's __orc_find(). NULL if none. */
static const struct orc_entry *search(int *ip_tab, struct orc_entry *tab,
				      unsigned int n, unsigned long ip)
{
	int *lo = ip_tab, *hi = ip_tab + n - 1, *mid, *found = NULL;

	while (n && lo <= hi) {
		mid = lo + (hi - lo) / 2;
		if (orc_ip(mid) <= ip) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found ? tab + (found - ip_tab) : NULL;
}

/* Lookups in one sorted table for ascending addresses (a block's
 * instructions): the first searches the whole table, the next ones step
 * forward from the last answer, a few entries at most. */
struct orc_walk {
	int *ip_tab;
	struct orc_entry *tab;
	unsigned int n;
	int at; /* index of the last answer; -1: none */
};

#define ORC_WALK_STEPS 16 /* then search again */

static const struct orc_entry *walk_find(struct orc_walk *w, unsigned long ip)
{
	const struct orc_entry *e;
	unsigned int steps = 0;

	if (w->at >= 0 && orc_ip(w->ip_tab + w->at) <= ip) {
		while ((unsigned int)w->at + 1 < w->n &&
		       orc_ip(w->ip_tab + w->at + 1) <= ip &&
		       steps++ < ORC_WALK_STEPS)
			w->at++;
		if (steps <= ORC_WALK_STEPS)
			return w->tab + w->at;
	}
	e = search(w->ip_tab, w->tab, w->n, ip);
	w->at = e ? (int)(e - w->tab) : -1;
	return e;
}

/* The original's entry at @ip: vmlinux's or its module's, through @w.
 * Preemption disabled (the module cannot go: kjit pins what it
 * translates). */
static const struct orc_entry *orig_entry(struct orc_walk *w, unsigned long ip)
{
	struct orc_entry *tab;
	struct module *mod;
	unsigned int n;
	int *ip_tab;

	if (ip >= stext && ip < etext) {
		if (!vml_ip)
			return NULL;
		ip_tab = vml_ip, tab = vml_orc, n = vml_num;
	} else {
		mod = kjit_kapi.module_address(ip);
		if (!mod || !mod->arch.orc_unwind_ip || !mod->arch.orc_unwind)
			return NULL;
		ip_tab = mod->arch.orc_unwind_ip, tab = mod->arch.orc_unwind;
		n = mod->arch.num_orcs;
	}
	if (w->ip_tab != ip_tab)
		*w = (struct orc_walk){ip_tab, tab, n, -1};
	return walk_find(w, ip);
}

/* Point @p's entry into @o: the original's, @p->sp bytes deeper. */
static void point_entry(struct orc_walk *w, const struct kjit_uw_point *p,
			const struct kjit_block_desc *d, struct orc_entry *o)
{
	const struct orc_entry *orig;

	memset(o, 0, sizeof(*o)); /* undefined */
	if (p->insn == KJIT_UW_NONE || p->insn >= d->n)
		return;
	orig = orig_entry(w, (unsigned long)d->insn[p->insn].addr);
	if (!orig)
		return;
	if (p->sp && orig->sp_reg != ORC_REG_SP && orig->sp_reg != ORC_REG_BP &&
	    orig->sp_reg != ORC_REG_UNDEFINED)
		return; /* a CFA through a pointer or another register */
	*o = *orig;
	if (p->sp && orig->sp_reg == ORC_REG_SP)
		o->sp_offset += p->sp;
}

static unsigned int slot0(unsigned int chunk)
{
	return chunk * kjit_pool.orc_per_chunk;
}

/* Unused: the chunk's last byte, which never holds an instruction. */
static void empty_slot(unsigned int chunk, unsigned int j)
{
	unsigned long end = (unsigned long)kjit_pool.code +
			    (unsigned long)(chunk + 1) * kjit_pool.chunk_bytes;
	int *ip = &kjit_pool.orc_ip[j];

	WRITE_ONCE(*ip, (int)(end - 1 - (unsigned long)ip));
	smp_wmb(); /* its address above the block's before the entry goes */
	memset(&kjit_pool.orc[j], 0, sizeof(kjit_pool.orc[j]));
}

/* Slot @j of @chunk now covers @ip with @o: entry first, then address. */
static void put_slot(unsigned int j, unsigned long ip,
		     const struct orc_entry *o)
{
	int *p = &kjit_pool.orc_ip[j];

	kjit_pool.orc[j] = *o;
	smp_wmb();
	WRITE_ONCE(*p, (int)(ip - (unsigned long)p));
}

int kjit_orc_place(const struct kjit_block *b, const struct kjit_translator *tr,
		   u64 run)
{
	const struct kjit_block_desc *d = kjit_last_desc(tr);
	const struct kjit_uw_point *uw;
	unsigned int n_uw, k, n = 0, chunk, first;
	struct orc_walk w = {NULL, NULL, 0, -1};
	struct orc_entry e;

	if (!slots_used || !kjit_pool_contains((unsigned long)run))
		return -1;
	uw = kjit_last_unwind(tr, &n_uw);
	chunk = kjit_pool_chunk((unsigned long)run);
	/* room for one slot a point: equal neighbours take fewer */
	if (slots_used[chunk] + n_uw > kjit_pool.orc_per_chunk)
		return -1;
	first = slot0(chunk) + slots_used[chunk];
	for (k = 0; k < n_uw; k++) {
		point_entry(&w, &uw[k], d, &e);
		if (n && !memcmp(&e, &kjit_pool.orc[first + n - 1], sizeof(e)))
			continue;
		put_slot(first + n++, (unsigned long)run + uw[k].off, &e);
	}
	slots_used[chunk] += n;
	atomic64_add(n, &entries);
	return n;
}

/* A CALL frame: the return address at sp + @sp - 8, bp unchanged.
 * UNWIND_HINT_TYPE_CALL is the ORC type on both kernels (0 on 6.1, 2 =
 * ORC_TYPE_CALL on 6.12); 6.1's `end` and 6.12's `signal` stay 0. */
static void call_entry(struct orc_entry *o, u32 sp)
{
	memset(o, 0, sizeof(*o));
	if (!sp)
		return; /* undefined */
	o->sp_reg = ORC_REG_SP;
	o->sp_offset = (s16)sp;
	o->bp_reg = ORC_REG_UNDEFINED;
	o->type = UNWIND_HINT_TYPE_CALL;
}

int kjit_orc_place_frames(unsigned long run, const struct kjit_entry_frames *fr)
{
	unsigned int chunk, first, k;
	struct orc_entry e;

	if (!slots_used || !kjit_pool_contains(run))
		return -1;
	chunk = kjit_pool_chunk(run);
	if (slots_used[chunk] + fr->n > kjit_pool.orc_per_chunk)
		return -1;
	first = slot0(chunk) + slots_used[chunk];
	for (k = 0; k < fr->n; k++) {
		call_entry(&e, fr->f[k].sp);
		put_slot(first + k, run + fr->f[k].off, &e);
	}
	slots_used[chunk] += fr->n;
	atomic64_add(fr->n, &entries);
	return fr->n;
}

void kjit_orc_reset(unsigned int chunks)
{
	unsigned int c, j;

	for (c = 0; slots_used && c < chunks; c++) {
		for (j = slots_used[c]; j-- > 0;)
			empty_slot(c, slot0(c) + j);
		slots_used[c] = 0;
	}
}

void kjit_orc_init(void)
{
	unsigned int chunks = kjit_pool.code_bytes / kjit_pool.chunk_bytes;
	struct module *mod = kjit_pool.mod;
	unsigned int c, j;
	int *stop;

	stext = kjit_lookup_name("_stext");
	etext = kjit_lookup_name("_etext");
	vml_ip = (int *)kjit_lookup_name("__start_orc_unwind_ip");
	stop = (int *)kjit_lookup_name("__stop_orc_unwind_ip");
	vml_orc = (struct orc_entry *)kjit_lookup_name("__start_orc_unwind");
	vml_num = vml_ip && stop > vml_ip && vml_orc ? stop - vml_ip : 0;
	if (!vml_num) {
		pr_info("kjit: no ORC table in this kernel: stack traces stop "
			"in translated code\n");
		vml_ip = NULL;
	}
	slots_used = kcalloc(chunks, sizeof(*slots_used), GFP_KERNEL);
	if (!slots_used)
		return;
	for (c = 0; c < chunks; c++)
		for (j = kjit_pool.orc_per_chunk; j-- > 0;)
			empty_slot(c, slot0(c) + j);
	mod->arch.num_orcs = chunks * kjit_pool.orc_per_chunk;
	mod->arch.orc_unwind = kjit_pool.orc;
	smp_wmb(); /* orc_module_find() reads the ip table's pointer first */
	WRITE_ONCE(mod->arch.orc_unwind_ip, kjit_pool.orc_ip);
}

void kjit_orc_exit(void)
{
	struct module *mod = kjit_pool.mod;

	WRITE_ONCE(mod->arch.orc_unwind_ip, NULL);
	synchronize_rcu(); /* unwinders look with preemption disabled */
	mod->arch.orc_unwind = NULL;
	mod->arch.num_orcs = 0;
	kfree(slots_used);
	slots_used = NULL;
}

u64 kjit_orc_entries(void)
{
	return atomic64_read(&entries);
}
