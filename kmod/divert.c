// SPDX-License-Identifier: GPL-2.0
/*
 * divert.c - entry diversion through ftrace direct calls (layout in divert.h
 * and codecache/entry.h).
 *
 * Invariants:
 *  - The trampoline (in the code pool, written through the pool's alias)
 *    and its key table (a data region of the module area) are written at
 *    attach before any direct call points at them, and never change while
 *    diverted.
 *  - Every slots[] word is 0 or a translation of this session, written by
 *    its own CPU's dispatcher; it is read by the trampoline only through
 *    kjit_entry_slots, which points at the attached session's slots[] from
 *    before the first registration until after the last RCU-tasks wait of
 *    detach.
 *  - A refused function is never touched; the reason is one of a fixed set
 *    of strings (kjit_divert_check).
 *  - Process context, kjit_mutex held.
 */
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "cachepool.h"
#include "codecache/entry.h"
#include "compat.h"
#include "divert.h"
#include "kcode.h"
#include "ibl.h"
#include "jit/arch_x86.h"
#include "kjit_refusals.h"
#include "ksyms.h"
#include "orc.h"
#include "refuse.h"
#include "symbols.h"

DEFINE_PER_CPU(unsigned long *, kjit_entry_slots);
extern char kjit_dispatch_entry[];

int kjit_divert_check(unsigned long start, const char **why)
{
	*why = kjit_refuse_text(start);
	if (*why)
		return -EOPNOTSUPP;
	if (kjit_refuse_dispatch_dep(start))
		*why = "used by kjit's dispatcher";
	else if (kjit_kapi.within_kprobe_blacklist(start))
		*why = "on the kprobe blacklist";
	else if (!kjit_fentry_site(start))
		*why = "not traceable (no __fentry__ site at its start)";
	else
		return 0;
	return -EOPNOTSUPP;
}

/* keys[] of @s (written through @keys_rw): one key per function, its slot
 * in f->slot. */
static int fill_keys(struct kjit_session *s, u32 *keys_rw)
{
	struct kjit_entry_keys t = {keys_rw, s->entry_size, 0};
	unsigned int i;
	int slot;

	for (i = 0; i < s->n_funcs; i++) {
		if (!kjit_ibl_addr_ok(s->funcs[i].body))
			return -ERANGE;
		slot = kjit_entry_insert(&t, (u32)s->funcs[i].body);
		if (slot < 0)
			return -EINVAL; /* a duplicate: resolve_all refuses */
		s->funcs[i].slot = slot;
	}
	return 0;
}

/* The exiting guard's counters[] (codecache/entry.h): per key slot, the
 * address of its function's KJIT_FB_EXITING counter; 0 in empty slots,
 * which the trampoline never reads (it reads only a slot it found). */
static int fill_exiting(struct kjit_session *s)
{
	unsigned int i;
	atomic64_t *ctr;
	u64 *tab;
	int err;

	err = kjit_region_alloc_data(&s->exiting, s->entry_size * sizeof(u64));
	if (err)
		return err;
	s->mem_bytes += s->exiting.size;
	tab = (u64 *)s->exiting.rw;
	for (i = 0; i < s->n_funcs; i++) {
		ctr = kjit_native_ctr(&s->native, (int)i, KJIT_FB_EXITING);
		if (!ctr)
			return -EINVAL; /* every attached function has a row */
		tab[s->funcs[i].slot] = (u64)(unsigned long)ctr;
	}
	return 0;
}

static int alloc_slots(struct kjit_session *s)
{
	size_t bytes = array_size(s->entry_size, sizeof(unsigned long));
	int cpu;

	s->entry_slots =
	    kcalloc(nr_cpu_ids, sizeof(*s->entry_slots), GFP_KERNEL);
	if (!s->entry_slots)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
	{
		s->entry_slots[cpu] = vzalloc(bytes);
		if (!s->entry_slots[cpu])
			return -ENOMEM;
		s->mem_bytes += bytes;
	}
	return 0;
}

int kjit_divert_prepare(struct kjit_session *s)
{
	int err;

	s->entry_size = kjit_entry_size(s->n_funcs);
	if (!s->entry_size)
		return -E2BIG;
	/* zeroed: keys[] starts empty */
	err = kjit_region_alloc_data(&s->keys, s->entry_size * sizeof(u32));
	if (err)
		return err;
	s->mem_bytes += s->keys.size;
	err = fill_keys(s, (u32 *)s->keys.rw);
	if (!err)
		err = fill_exiting(s);
	if (err)
		return err;
	return alloc_slots(s);
}

int kjit_divert_place(struct kjit_session *s)
{
	struct kjit_entry_addrs a = {0};
	struct kjit_entry_frames fr;
	unsigned int i;
	u8 *run, *rw;
	u32 size, len;

	if (!kjit_pool_take(&run, &rw, &size))
		return -ENOMEM;
	a.run = (unsigned long)run;
	a.keys = (unsigned long)s->keys.exec;
	a.size = s->entry_size;
	a.slots_gs = (unsigned long)&kjit_entry_slots;
	a.dispatch = (unsigned long)kjit_dispatch_entry;
	a.thunk = kjit_kcode_indirect_thunk(11);
	kjit_scope_entry(&s->scope, &a.scope);
	kjit_scope_exiting(&a.exiting);
	a.exiting.counters = (unsigned long)s->exiting.exec;
	if (kjit_entry_emit_frames(rw, min_t(u32, size, KJIT_ENTRY_TRAMP_MAX),
				   &a, &len, &fr))
		return -ERANGE;
	if (kjit_orc_place_frames((unsigned long)run, &fr) < 0)
		pr_warn("kjit: no ORC entries for the entry trampoline: "
			"stack traces in it are unreliable\n");
	kjit_symbols_add((unsigned long)run, "kjit_entry_trampoline");
	s->tramp = (unsigned long)run;
	s->tramp_len = len;
	for (i = 0; i < s->n_funcs; i++)
		s->funcs[i].tramp = s->tramp;
	return 0;
}

/* Register the functions [first, first + n) of @s without err as one
 * group; on -EBUSY, each half separately, down to single functions, whose
 * err then says why. @sites: room for n addresses. Returns 0, or the
 * error of a registration that failed for another reason than a held
 * site (nothing more is tried then). */
static int divert_range(struct kjit_session *s, unsigned int first,
			unsigned int n, unsigned long *sites)
{
	struct kjit_divert_group *g;
	unsigned int i, k = 0, half = n / 2;
	int err;

	for (i = first; i < first + n; i++)
		if (!s->funcs[i].err)
			sites[k++] = s->funcs[i].site;
	if (!k)
		return 0;
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	err = kjit_direct_on(&g->d, sites, k, s->tramp);
	if (!err) {
		g->first = first;
		g->n = n;
		g->next = s->groups;
		s->groups = g;
		s->n_groups++;
		for (i = first; i < first + n; i++)
			s->funcs[i].diverted = !s->funcs[i].err;
		return 0;
	}
	kfree(g);
	if (err != -EBUSY)
		return err;
	if (n == 1) {
		s->funcs[first].err = err;
		return 0;
	}
	return divert_range(s, first, half, sites)
		   ?: divert_range(s, first + half, n - half, sites);
}

int kjit_divert_on(struct kjit_session *s, bool best_effort)
{
	unsigned long *sites;
	unsigned int i, on = 0;
	int cpu, err, first = 0;

	for_each_possible_cpu(cpu) per_cpu(kjit_entry_slots, cpu) =
	    s->entry_slots[cpu];
	sites = kvmalloc_array(s->n_funcs, sizeof(*sites), GFP_KERNEL);
	if (!sites)
		return -ENOMEM;
	err = divert_range(s, 0, s->n_funcs, sites);
	kvfree(sites);
	for (i = 0; i < s->n_funcs; i++) {
		on += s->funcs[i].diverted;
		if (!first)
			first = s->funcs[i].err;
	}
	if (!err && (!on || (first && !best_effort)))
		err = first ?: -EINVAL;
	if (err)
		kjit_divert_off(s);
	return err;
}

/* Test hook (VM case detach_refused): the next fail_divert_off removals
 * of a diversion fail with -EIO before ftrace is asked, as a removal
 * ftrace refused would (it can: -ENOMEM, -EINVAL from a changed hash). */
static unsigned int fail_divert_off;
module_param(fail_divert_off, uint, 0644);
MODULE_PARM_DESC(fail_divert_off,
		 "test hook: fail the next N diversion removals with -EIO");

static int direct_off(struct kjit_divert_group *g, unsigned long tramp)
{
	unsigned int n = READ_ONCE(fail_divert_off);

	if (n) {
		WRITE_ONCE(fail_divert_off, n - 1);
		return -EIO;
	}
	return kjit_direct_off(&g->d, tramp);
}

unsigned int kjit_divert_off(struct kjit_session *s)
{
	struct kjit_divert_group **p = &s->groups, *g;
	unsigned int i, left = 0;
	int err;

	while ((g = *p)) {
		err = direct_off(g, s->tramp);
		if (err) {
			pr_err("kjit: cannot remove the diversion of %u "
			       "functions from %s: %d\n",
			       g->n, s->funcs[g->first].name, err);
			left += g->n;
			p = &g->next;
			continue;
		}
		for (i = g->first; i < g->first + g->n; i++)
			s->funcs[i].diverted = false;
		*p = g->next;
		s->n_groups--;
		kfree(g);
	}
	return left;
}

void kjit_divert_release(struct kjit_session *s)
{
	int cpu;

	for_each_possible_cpu(cpu) per_cpu(kjit_entry_slots, cpu) = NULL;
	kjit_region_free(&s->keys);
	kjit_region_free(&s->exiting);
}

void kjit_divert_free(struct kjit_session *s)
{
	int cpu;

	if (s->entry_slots)
		for_each_possible_cpu(cpu) vfree(s->entry_slots[cpu]);
	kfree(s->entry_slots);
	s->entry_slots = NULL;
	kjit_region_free(&s->keys); /* a session that never attached */
	kjit_region_free(&s->exiting);
}
