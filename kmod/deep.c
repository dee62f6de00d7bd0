// SPDX-License-Identifier: GPL-2.0
/*
 * deep.c - the deep-mode function table (see deep.h).
 */
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "deep.h"
#include "env.h"
#include "kjit_refusals.h"
#include "ksyms.h"
#include "refuse.h"
#include "sites.h"

/* Never followed, whatever else says (kjit_refusals.h). */
static const char *const deny_names[] = {KJIT_DEEP_DENY};

static u32 hash_start(unsigned long a)
{
	return (u32)((a >> 4) * 0x9e3779b1u);
}

int kjit_deep_init(struct kjit_deep *d, u32 max)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	raw_spin_lock_init(&d->lock);
	d->max = max;
	d->mask = roundup_pow_of_two(2 * max + 2) - 1;
	d->fn = vzalloc(array_size(max + 1, sizeof(*d->fn)));
	d->map = vzalloc(array_size(d->mask + 1, sizeof(*d->map)));
	d->over = vzalloc(array_size(d->mask + 1, sizeof(*d->over)));
	d->deny = kcalloc(ARRAY_SIZE(deny_names), sizeof(*d->deny), GFP_KERNEL);
	d->recent = kcalloc(nr_cpu_ids, sizeof(*d->recent), GFP_KERNEL);
	if (!d->fn || !d->map || !d->over || !d->deny || !d->recent) {
		kjit_deep_free(d);
		return -ENOMEM;
	}
	for (i = 0; i < ARRAY_SIZE(deny_names); i++)
		d->deny[d->n_deny++] = kjit_lookup_name(deny_names[i]);
	return 0;
}

size_t kjit_deep_mem_bytes(u32 max)
{
	size_t slots = roundup_pow_of_two(2 * max + 2);

	return (max + 1) * sizeof(struct kjit_deep_fn) +
	       slots * (sizeof(u32) + sizeof(unsigned long)) +
	       ARRAY_SIZE(deny_names) * sizeof(unsigned long);
}

void kjit_deep_free(struct kjit_deep *d)
{
	kjit_deep_unpin(d);
	vfree(d->fn);
	vfree(d->map);
	vfree(d->over);
	d->over = NULL;
	kfree(d->deny);
	kfree(d->recent);
	d->fn = NULL;
	d->map = NULL;
	d->deny = NULL;
	d->recent = NULL;
}

/* May the function starting at @start be translated? A callee without an
 * __fentry__ site (notrace, an outlined inline function, asm) is followed
 * too, if it is lasting code (core kernel text or a live module's core:
 * not a BPF program or a trampoline) and not one of the notrace
 * refusals. Any context. */
static bool allowed(const struct kjit_deep *d, unsigned long start)
{
	unsigned int i;

	if (kjit_refuse_text(start))
		return false;
	for (i = 0; i < d->n_deny; i++)
		if (d->deny[i] == start)
			return false;
	if (kjit_fentry_site(start) || kjit_static_call_key(start))
		return true; /* a trampoline gets a guard (env.c) */
	return kjit_lasting_code(start) && !kjit_refuse_notrace(start);
}

/* Lock-free lookup of @start; returns the index or -1. */
static int lookup(const struct kjit_deep *d, unsigned long start, u32 *slot)
{
	u32 i = hash_start(start) & d->mask, v;

	while ((v = smp_load_acquire(&d->map[i]))) {
		if (d->fn[v - 1].start == start)
			return (int)v - 1;
		i = (i + 1) & d->mask;
	}
	*slot = i;
	return -1;
}

/* Remember that the callee at @start was refused for lack of room, once
 * per callee: over[] has the map's 2 x (max + 1) slots and holds at most
 * max + 1 starts, so a probe always ends. d->lock held. */
static void note_over(struct kjit_deep *d, unsigned long start)
{
	u32 i = hash_start(start) & d->mask;

	while (d->over[i]) {
		if (d->over[i] == start)
			return;
		i = (i + 1) & d->mask;
	}
	if (d->over_n > d->max)
		return; /* saturated: the report says "at least" */
	d->over[i] = start;
	WRITE_ONCE(d->over_n, d->over_n + 1);
}

/* Add [start, end) owned by @mod (pinned; the pin is dropped here unless
 * this call stored it). */
static int insert(struct kjit_deep *d, unsigned long start, unsigned long end,
		  struct module *mod)
{
	unsigned long flags;
	u32 slot;
	int idx;

	raw_spin_lock_irqsave(&d->lock, flags);
	idx = lookup(d, start, &slot);
	if (idx < 0 && d->n < d->max) {
		idx = d->n;
		d->fn[idx].start = start;
		d->fn[idx].end = end;
		d->fn[idx].mod = mod;
		mod = NULL;
		smp_store_release(&d->n, idx + 1);
		smp_store_release(&d->map[slot], idx + 1);
	} else if (idx < 0) {
		atomic64_inc(&d->over_budget);
		note_over(d, start);
	}
	raw_spin_unlock_irqrestore(&d->lock, flags);
	kjit_module_unpin(mod);
	return idx;
}

void kjit_deep_unpin(struct kjit_deep *d)
{
	u32 i;

	for (i = 0; d->fn && i < d->n; i++) {
		kjit_module_unpin(d->fn[i].mod);
		d->fn[i].mod = NULL;
	}
}

bool kjit_deep_is_start(const struct kjit_deep *d, unsigned long addr)
{
	u32 slot;

	return d->fn && lookup(d, addr, &slot) >= 0;
}

/* The function this CPU found last, if it contains @addr: -1 otherwise.
 * A hint only: a stale or torn one (another CPU's, after a migration in
 * preemptible callers) is checked against the published table. */
static int recent(const struct kjit_deep *d, unsigned long addr)
{
	u32 v = READ_ONCE(d->recent[raw_smp_processor_id()]);

	if (!v || v > smp_load_acquire(&d->n))
		return -1;
	return addr >= d->fn[v - 1].start && addr < d->fn[v - 1].end
		   ? (int)v - 1
		   : -1;
}

static void set_recent(struct kjit_deep *d, int idx)
{
	if (idx >= 0)
		WRITE_ONCE(d->recent[raw_smp_processor_id()], idx + 1);
}

bool kjit_deep_contains(struct kjit_deep *d, unsigned long addr)
{
	unsigned long size = 0, off = 0;
	u32 slot;

	return d->fn &&
	       kjit_kapi.kallsyms_lookup_size_offset(addr, &size, &off) &&
	       lookup(d, addr - off, &slot) >= 0;
}

int kjit_deep_func_of(struct kjit_deep *d, unsigned long addr)
{
	unsigned long size = 0, off = 0, start;
	struct module *mod;
	u32 slot;
	int idx;

	if (!d->fn)
		return -1;
	idx = recent(d, addr);
	if (idx >= 0)
		return idx;
	if (!kjit_kapi.kallsyms_lookup_size_offset(addr, &size, &off) || !size)
		return -1;
	start = addr - off;
	idx = lookup(d, start, &slot);
	if (idx < 0 && allowed(d, start)) {
		mod = kjit_module_pin(start);
		if (IS_ERR(mod))
			return -1;
		idx = insert(d, start, start + size, mod);
	}
	set_recent(d, idx);
	return idx;
}
