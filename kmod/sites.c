// SPDX-License-Identifier: GPL-2.0
/*
 * sites.c - where the running kernel rewrites its own code under us: jump
 * label (static key) sites and inline static_call sites.
 *
 * The translator asks about every instruction it decodes:
 *  - a jump label site is translated as a run-time test of the original
 *    bytes (jit/flow.c), so a static key flipped after translation - a
 *    tracepoint enabled, say - takes effect in the cache at once;
 *  - an inline static_call site is translated as a call (jmp, jcc) to the
 *    static call's trampoline (jit/decode.c), which the kernel updates
 *    together with every site, so a retargeted call - the preemption
 *    model switched, a tracepoint's probe changed - is never stale.
 *
 * Invariants:
 *  - The core kernel's sites of both kinds are built once at load (process
 *    context) into one array sorted by address; looked up lock-free from
 *    any context.
 *  - Module code is looked up in the module's own tables, under
 *    preempt_disable() so the module cannot be freed meanwhile. A module's
 *    static_call site is reported without a trampoline (tramp 0): the
 *    translator refuses its block, which then runs natively.
 *  - Static call sites in init text (freed after boot) are left out.
 *  - The sites of the preempt_schedule static calls (preempt_enable()'s
 *    call when a reschedule is pending) are told apart for the reports:
 *    how often they run is timing, not the workload (KJIT_BLOCK_PREEMPT).
 */
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sort.h>
#include <linux/static_call.h>
#include <linux/vmalloc.h>
#include "ksyms.h"
#include "sites.h"

enum site_kind { SITE_JUMP_LABEL, SITE_STATIC_CALL };

/* A site of the core kernel: a jump label and where its jmp goes, or an
 * inline static_call site and its trampoline (0: not known). */
struct site {
	unsigned long code, target;
	u8 kind;   /* enum site_kind */
	bool tail; /* static_call: a tail call */
};

static struct site *sites;
static size_t n_sites;
/* Trampolines of the preempt_schedule{,_notrace} static calls (0: none). */
static unsigned long preempt_tramp[2];

/* The core kernel's static call trampolines with inline sites, each with
 * its key, sorted by trampoline (kjit_static_call_key). */
struct tramp_key {
	unsigned long tramp, key;
};
static struct tramp_key *tramps;
static size_t n_tramps;

static int cmp_tramp(const void *a, const void *b)
{
	const struct tramp_key *x = a, *y = b;

	return x->tramp < y->tramp ? -1 : x->tramp > y->tramp;
}

static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	return x->code < y->code ? -1 : x->code > y->code;
}

/* Where this CPU's last search ended: the translator asks about the
 * instructions of a block in address order, so the next answer is almost
 * always at that index or the one after it, and a binary search over tens
 * of thousands of sites (~0.4 us a question under QEMU TCG, two questions
 * an instruction) is left for the first instruction of a block. A hint
 * only, checked before use: any CPU may read or write it (raw_cpu_*). */
static DEFINE_PER_CPU(size_t, site_hint);

/* Is index @i the first site at or after @addr? */
static bool lower_bound_at(size_t i, unsigned long addr)
{
	return i <= n_sites && (i == n_sites || sites[i].code >= addr) &&
	       (i == 0 || sites[i - 1].code < addr);
}

/* The first site at or after @addr (n_sites if none). */
static size_t lower_bound(unsigned long addr)
{
	size_t lo = raw_cpu_read(site_hint), hi = n_sites, mid;

	if (lower_bound_at(lo, addr))
		return lo;
	if (lower_bound_at(lo + 1, addr))
		return lo + 1;
	lo = 0;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (sites[mid].code < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The core kernel's site of @kind at @addr, or NULL. */
static const struct site *find_site(unsigned long addr, enum site_kind kind)
{
	size_t lo = lower_bound(addr);

	raw_cpu_write(site_hint, lo);
	return lo < n_sites && sites[lo].code == addr && sites[lo].kind == kind
		   ? &sites[lo]
		   : NULL;
}

static size_t add_jump_labels(const struct jump_entry *start,
			      const struct jump_entry *stop, struct site *out)
{
	const struct jump_entry *e;
	size_t n = 0;

	for (e = start; e < stop; e++, n++)
		out[n] = (struct site){jump_entry_code(e), jump_entry_target(e),
				       SITE_JUMP_LABEL, false};
	return n;
}

static unsigned long static_call_site_addr(const struct static_call_site *e)
{
	return (unsigned long)&e->addr + e->addr;
}

static unsigned long static_call_site_key(const struct static_call_site *e)
{
	return (unsigned long)&e->key + e->key;
}

/* The trampoline of the static call whose key is at @key: the key is
 * __SCK__<name>, the trampoline __SCT__<name>. 0 if not found. */
static unsigned long tramp_of_key(unsigned long key)
{
	char name[KSYM_SYMBOL_LEN];

	if (sprint_symbol_no_offset(name, key) <= 7 ||
	    strncmp(name, "__SCK__", 7))
		return 0;
	name[4] = 'T';
	return kjit_lookup_name(name);
}

/* Inline static_call sites (not in init text, which is freed) into @out;
 * the kernel sorted them by key at boot, so one lookup per key. */
static size_t add_static_calls(const struct static_call_site *start,
			       const struct static_call_site *stop,
			       struct site *out)
{
	const struct static_call_site *e;
	unsigned long key, last_key = 0, tramp = 0;
	size_t n = 0, unknown = 0;

	for (e = start; e < stop; e++) {
		key = static_call_site_key(e);
		if (key & STATIC_CALL_SITE_INIT)
			continue;
		if ((key & ~STATIC_CALL_SITE_FLAGS) != last_key) {
			last_key = key & ~STATIC_CALL_SITE_FLAGS;
			tramp = tramp_of_key(last_key);
			if (tramp && tramps)
				tramps[n_tramps++] =
				    (struct tramp_key){tramp, last_key};
		}
		unknown += !tramp;
		out[n++] = (struct site){static_call_site_addr(e), tramp,
					 SITE_STATIC_CALL,
					 key & STATIC_CALL_SITE_TAIL};
	}
	if (unknown)
		pr_info("kjit: %zu of %zu static_call sites have no known "
			"trampoline; their blocks will run natively\n",
			unknown, n);
	return n;
}

int kjit_sites_init(void)
{
	const struct jump_entry *jl, *jl_end;
	const struct static_call_site *sc, *sc_end;
	size_t n;

	jl = (const void *)kjit_lookup_name("__start___jump_table");
	jl_end = (const void *)kjit_lookup_name("__stop___jump_table");
	if (!jl || !jl_end || jl_end < jl) {
		pr_err("kjit: kernel symbol __start___jump_table not found; "
		       "cannot load\n");
		return -ENOENT;
	}
	sc = (const void *)kjit_lookup_name("__start_static_call_sites");
	sc_end = (const void *)kjit_lookup_name("__stop_static_call_sites");
	if (!sc || !sc_end || sc_end < sc)
		sc = sc_end = NULL; /* no inline static calls in this kernel */
	sites = vmalloc(
	    array_size((jl_end - jl) + (sc_end - sc) + 1, sizeof(*sites)));
	tramps = vmalloc(array_size((sc_end - sc) + 1, sizeof(*tramps)));
	if (!sites || !tramps) {
		kjit_sites_exit();
		return -ENOMEM;
	}
	n_tramps = 0;
	n = add_jump_labels(jl, jl_end, sites);
	n += add_static_calls(sc, sc_end, sites + n);
	sort(sites, n, sizeof(*sites), cmp_site, NULL);
	n_sites = n;
	sort(tramps, n_tramps, sizeof(*tramps), cmp_tramp, NULL);
	preempt_tramp[0] = kjit_lookup_name("__SCT__preempt_schedule");
	preempt_tramp[1] = kjit_lookup_name("__SCT__preempt_schedule_notrace");
	return 0;
}

void kjit_sites_exit(void)
{
	vfree(sites);
	sites = NULL;
	n_sites = 0;
	vfree(tramps);
	tramps = NULL;
	n_tramps = 0;
}

unsigned long kjit_static_call_key(unsigned long tramp)
{
	size_t lo = 0, hi = n_tramps, mid;

	/* the guard compares the key's first word (jit/flow.c) */
	BUILD_BUG_ON(offsetof(struct static_call_key, func) != 0);
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (tramps[mid].tramp < tramp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n_tramps && tramps[lo].tramp == tramp ? tramps[lo].key
							  : 0;
}

/* A jump label site of module @mod (linear: modules have few). */
static bool module_jump_site(const struct module *mod, unsigned long addr,
			     unsigned long *target)
{
#ifdef CONFIG_JUMP_LABEL
	unsigned int i;

	for (i = 0; i < mod->num_jump_entries; i++) {
		if (jump_entry_code(&mod->jump_entries[i]) == addr) {
			*target = jump_entry_target(&mod->jump_entries[i]);
			return true;
		}
	}
#endif
	return false;
}

static bool module_static_call_site(const struct module *mod,
				    unsigned long addr)
{
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	int i;

	for (i = 0; i < mod->num_static_call_sites; i++)
		if (static_call_site_addr(&mod->static_call_sites[i]) == addr)
			return true;
#endif
	return false;
}

/* Is @addr a site of @kind in a loaded module? Then *target is a jump
 * label's target, or 0 for a static_call site (its trampoline is not
 * known: refused). __module_address() is quick (NULL) outside module
 * space. */
static bool in_module(unsigned long addr, enum site_kind kind,
		      unsigned long *target)
{
	struct module *mod;
	bool found = false;

	if (!kjit_kapi.module_address)
		return false;
	preempt_disable();
	mod = kjit_kapi.module_address(addr);
	if (mod && kind == SITE_JUMP_LABEL)
		found = module_jump_site(mod, addr, target);
	else if (mod && module_static_call_site(mod, addr)) {
		*target = 0;
		found = true;
	}
	preempt_enable();
	return found;
}

bool kjit_patch_site(unsigned long addr, unsigned long *target)
{
	const struct site *st = find_site(addr, SITE_JUMP_LABEL);

	if (st) {
		*target = st->target;
		return true;
	}
	return in_module(addr, SITE_JUMP_LABEL, target);
}

bool kjit_static_call_site(unsigned long addr, unsigned long *tramp, bool *tail)
{
	const struct site *st = find_site(addr, SITE_STATIC_CALL);

	*tail = st && st->tail;
	if (st) {
		*tramp = st->target;
		return true;
	}
	return in_module(addr, SITE_STATIC_CALL, tramp);
}

bool kjit_preempt_site(unsigned long addr)
{
	const struct site *st = find_site(addr, SITE_STATIC_CALL);

	return st && !st->tail && st->target &&
	       (st->target == preempt_tramp[0] ||
		st->target == preempt_tramp[1]);
}
