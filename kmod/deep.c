// SPDX-License-Identifier: GPL-2.0
/*
 * deep.c - the deep-mode function table (see deep.h).
 */
#include <linux/kallsyms.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "deep.h"
#include "kcode.h"
#include "kjit_refusals.h"
#include "ksyms.h"
#include "native.h"
#include "refuse.h"
#include "sites.h"

/* Never followed, whatever else says (kjit_refusals.h). */
static const char *const deny_names[] = {KJIT_DEEP_DENY};
/* ... and these where a call cannot leave the cache (kjit_kcode_leaves()). */
static const char *const deny_unless_leave[] = {KJIT_DEEP_DENY_UNLESS_LEAVE};
#define N_DENY (ARRAY_SIZE(deny_names) + ARRAY_SIZE(deny_unless_leave))

static u32 hash_start(unsigned long a)
{
	return (u32)((a >> 4) * 0x9e3779b1u);
}

/* Slots of a map with room for @cap entries: at least twice as many. */
static u32 map_slots(u32 cap)
{
	return roundup_pow_of_two(2 * cap + 2);
}

static struct kjit_deep_map *map_alloc(struct kjit_deep *d, u32 slots)
{
	struct kjit_deep_map *m = vzalloc(struct_size(m, slot, slots));

	if (m) {
		m->mask = slots - 1;
		d->bytes += struct_size(m, slot, slots);
	}
	return m;
}

/* Entry @i, to write (kjit_deep_fn() reads). */
static struct kjit_deep_fn *fn_at(struct kjit_deep *d, u32 i)
{
	return &d->fn[i / KJIT_DEEP_CHUNK][i % KJIT_DEEP_CHUNK];
}

/* Put entry @i into @m (not yet published, or d->lock held). */
static void map_put(struct kjit_deep_map *m, const struct kjit_deep *d, u32 i)
{
	u32 h = hash_start(kjit_deep_fn(d, i)->start) & m->mask;

	while (m->slot[h])
		h = (h + 1) & m->mask;
	m->slot[h] = i + 1;
}

/* The fn chunks for entries [0, @cap); false if memory ran out. */
static bool add_chunks(struct kjit_deep *d, u32 cap)
{
	u32 c;

	for (c = 0; c < DIV_ROUND_UP(cap, KJIT_DEEP_CHUNK); c++) {
		if (d->fn[c])
			continue;
		d->fn[c] =
		    vzalloc(array_size(KJIT_DEEP_CHUNK, sizeof(**d->fn)));
		if (!d->fn[c])
			return false;
		d->bytes += KJIT_DEEP_CHUNK * sizeof(**d->fn);
	}
	return true;
}

/* over[]: needed once the table can fill, i.e. when cap reaches max. */
static bool add_over(struct kjit_deep *d, u32 cap)
{
	u32 slots = map_slots(d->max);

	if (cap < d->max || d->over)
		return true;
	d->over = vzalloc(array_size(slots, sizeof(*d->over)));
	if (!d->over)
		return false;
	d->over_mask = slots - 1;
	d->bytes += slots * sizeof(*d->over);
	return true;
}

/* Hold @cap entries: chunks, native-run rows, over[]. Process context. */
static bool hold(struct kjit_deep *d, u32 cap)
{
	return add_chunks(d, cap) &&
	       kjit_native_grow(d->native, d->native_base + cap) &&
	       add_over(d, cap);
}

/* The worker: room for twice `ahead` entries past those in use (at least
 * one more). The map is rebuilt without the lock for the entries published so
 * far, and under it for those added meanwhile (append-only), then swapped
 * in with the new cap. */
static void deep_grow_work(struct kjit_worker *w)
{
	struct kjit_deep *d = container_of(w, struct kjit_deep, worker);
	u32 cap = min(d->max,
		      round_up(smp_load_acquire(&d->n) + max(2 * d->ahead, 1u),
			       KJIT_DEEP_CHUNK));
	struct kjit_deep_map *m = d->map;
	unsigned long flags;
	u32 i, n = 0;

	if (cap <= d->cap)
		return;
	if (d->delay_ms)
		msleep(d->delay_ms);
	if (!hold(d, cap))
		goto fail;
	if (map_slots(cap) > m->mask + 1) {
		m = map_alloc(d, map_slots(cap));
		if (!m)
			goto fail;
		n = smp_load_acquire(&d->n);
		for (i = 0; i < n; i++)
			map_put(m, d, i);
	}
	raw_spin_lock_irqsave(&d->lock, flags);
	if (m != d->map) {
		for (i = n; i < d->n; i++)
			map_put(m, d, i);
		m->older = d->map;
		smp_store_release(&d->map, m);
	}
	smp_store_release(&d->cap, cap);
	raw_spin_unlock_irqrestore(&d->lock, flags);
	return;
fail:
	d->failed++;
}

int kjit_deep_init(struct kjit_deep *d, u32 max, u32 first, u32 ahead,
		   struct kjit_native *native, u32 native_base)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	raw_spin_lock_init(&d->lock);
	kjit_worker_init(&d->worker, deep_grow_work);
	d->max = max;
	d->ahead = ahead;
	d->native = native;
	d->native_base = native_base;
	d->dir_len = DIV_ROUND_UP(max, KJIT_DEEP_CHUNK);
	d->fn = kvcalloc(d->dir_len, sizeof(*d->fn), GFP_KERNEL);
	d->deny = kcalloc(N_DENY, sizeof(*d->deny), GFP_KERNEL);
	d->recent = kcalloc(nr_cpu_ids, sizeof(*d->recent), GFP_KERNEL);
	if (!d->fn || !d->deny || !d->recent)
		goto fail;
	d->bytes = d->dir_len * sizeof(*d->fn) + N_DENY * sizeof(*d->deny) +
		   nr_cpu_ids * sizeof(*d->recent);
	d->map = map_alloc(d, map_slots(first));
	if (!d->map || !hold(d, first))
		goto fail;
	d->cap = first;
	for (i = 0; i < ARRAY_SIZE(deny_names); i++)
		d->deny[d->n_deny++] = kjit_lookup_name(deny_names[i]);
	for (i = 0; !kjit_kcode_leaves() && i < ARRAY_SIZE(deny_unless_leave);
	     i++)
		d->deny[d->n_deny++] = kjit_lookup_name(deny_unless_leave[i]);
	kjit_worker_start(&d->worker);
	return 0;
fail:
	kjit_deep_free(d);
	return -ENOMEM;
}

void kjit_deep_free(struct kjit_deep *d)
{
	struct kjit_deep_map *m, *older;
	u32 c;

	kjit_worker_stop(&d->worker);
	kjit_deep_unpin(d);
	for (c = 0; d->fn && c < d->dir_len; c++)
		vfree(d->fn[c]);
	kvfree(d->fn);
	for (m = d->map; m; m = older) {
		older = m->older;
		vfree(m);
	}
	vfree(d->over);
	kfree(d->deny);
	kfree(d->recent);
	d->fn = NULL;
	d->map = NULL;
	d->over = NULL;
	d->deny = NULL;
	d->recent = NULL;
	d->bytes = 0;
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

/* Lock-free lookup of @start in @m; returns the index or -1, and in
 * @slot where it would go. */
static int lookup_in(const struct kjit_deep *d, const struct kjit_deep_map *m,
		     unsigned long start, u32 *slot)
{
	u32 i = hash_start(start) & m->mask, v;

	while ((v = smp_load_acquire(&m->slot[i]))) {
		if (kjit_deep_fn(d, v - 1)->start == start)
			return (int)v - 1;
		i = (i + 1) & m->mask;
	}
	*slot = i;
	return -1;
}

static int lookup(const struct kjit_deep *d, unsigned long start)
{
	u32 slot;

	return lookup_in(d, smp_load_acquire(&d->map), start, &slot);
}

/* Remember that the callee at @start was refused for lack of room, once
 * per callee: over[] has at least 2 x (max + 1) slots and holds at most
 * max + 1 starts, so a probe always ends. d->lock held. */
static void note_over(struct kjit_deep *d, unsigned long start)
{
	u32 i = hash_start(start) & d->over_mask;

	if (!d->over) /* cannot be: over[] comes with the last room */
		return;
	while (d->over[i]) {
		if (d->over[i] == start)
			return;
		i = (i + 1) & d->over_mask;
	}
	if (d->over_n > d->max)
		return; /* saturated: the report says "at least" */
	d->over[i] = start;
	WRITE_ONCE(d->over_n, d->over_n + 1);
}

/* Add [start, end) owned by @mod (pinned; the pin is dropped here unless
 * this call stored it). Returns the index, -1 (table full) or
 * KJIT_DEEP_LATER (room is on its way). */
static int insert(struct kjit_deep *d, unsigned long start, unsigned long end,
		  struct module *mod)
{
	struct kjit_deep_fn *f;
	unsigned long flags;
	bool low = false;
	u32 slot;
	int idx;

	raw_spin_lock_irqsave(&d->lock, flags);
	idx = lookup_in(d, d->map, start, &slot);
	if (idx < 0 && d->n < d->cap) {
		idx = d->n;
		f = fn_at(d, idx);
		f->start = start;
		f->end = end;
		f->mod = mod;
		mod = NULL;
		smp_store_release(&d->n, idx + 1);
		smp_store_release(&d->map->slot[slot], idx + 1);
		low = d->cap < d->max && d->cap - d->n < d->ahead;
	} else if (idx < 0 && d->n < d->max) {
		idx = KJIT_DEEP_LATER;
		low = true;
	} else if (idx < 0) {
		atomic64_inc(&d->over_budget);
		note_over(d, start);
	}
	raw_spin_unlock_irqrestore(&d->lock, flags);
	kjit_module_unpin(mod);
	if (low)
		kjit_worker_ask(&d->worker);
	return idx;
}

void kjit_deep_unpin(struct kjit_deep *d)
{
	struct kjit_deep_fn *f;
	u32 i;

	for (i = 0; d->fn && i < d->n; i++) {
		f = fn_at(d, i);
		kjit_module_unpin(f->mod);
		f->mod = NULL;
	}
}

bool kjit_deep_is_start(const struct kjit_deep *d, unsigned long addr)
{
	return d->fn && lookup(d, addr) >= 0;
}

/* The function this CPU found last, if it contains @addr: -1 otherwise.
 * A hint only: a stale or torn one (another CPU's, after a migration in
 * preemptible callers) is checked against the published table. */
static int recent(const struct kjit_deep *d, unsigned long addr)
{
	u32 v = READ_ONCE(d->recent[raw_smp_processor_id()]);
	const struct kjit_deep_fn *f;

	if (!v || v > smp_load_acquire(&d->n))
		return -1;
	f = kjit_deep_fn(d, v - 1);
	return addr >= f->start && addr < f->end ? (int)v - 1 : -1;
}

static void set_recent(struct kjit_deep *d, int idx)
{
	if (idx >= 0)
		WRITE_ONCE(d->recent[raw_smp_processor_id()], idx + 1);
}

bool kjit_deep_contains(struct kjit_deep *d, unsigned long addr)
{
	unsigned long size = 0, off = 0;

	return d->fn &&
	       kjit_kapi.kallsyms_lookup_size_offset(addr, &size, &off) &&
	       lookup(d, addr - off) >= 0;
}

int kjit_deep_func_of(struct kjit_deep *d, unsigned long addr)
{
	unsigned long size = 0, off = 0, start;
	struct module *mod;
	int idx;

	if (!d->fn)
		return -1;
	idx = recent(d, addr);
	if (idx >= 0)
		return idx;
	if (!kjit_kapi.kallsyms_lookup_size_offset(addr, &size, &off) || !size)
		return -1;
	start = addr - off;
	idx = lookup(d, start);
	if (idx < 0 && allowed(d, start)) {
		mod = kjit_module_pin(start);
		if (IS_ERR(mod))
			return -1;
		idx = insert(d, start, start + size, mod);
	}
	set_recent(d, idx);
	return idx;
}
