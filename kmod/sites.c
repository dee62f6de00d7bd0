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
 *  - The core kernel's tables are built once at load (process context)
 *    into arrays sorted by address; looked up lock-free from any context.
 *  - Module code is looked up in the module's own tables, under
 *    preempt_disable() so the module cannot be freed meanwhile. A module's
 *    static_call site is reported without a trampoline (tramp 0): the
 *    translator refuses its block, which then runs natively.
 *  - Static call sites in init text (freed after boot) are left out.
 */
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/sort.h>
#include <linux/static_call.h>
#include <linux/vmalloc.h>
#include "ksyms.h"
#include "sites.h"

struct site {
	unsigned long code, target;
};

static struct site *sites;
static size_t n_sites;

/* An inline static_call site of the core kernel and its trampoline. */
struct scall {
	unsigned long code, tramp;
	bool tail;
};

static struct scall *scalls;
static size_t n_scalls;

static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	return x->code < y->code ? -1 : x->code > y->code;
}

static int static_calls_init(void);

int kjit_sites_init(void)
{
	const struct jump_entry *start, *stop, *e;
	size_t n = 0;

	start = (const void *)kjit_lookup_name("__start___jump_table");
	stop = (const void *)kjit_lookup_name("__stop___jump_table");
	if (!start || !stop || stop < start) {
		pr_err("kjit: kernel symbol __start___jump_table not found; "
		       "cannot load\n");
		return -ENOENT;
	}
	sites = vmalloc(array_size(stop - start + 1, sizeof(*sites)));
	if (!sites)
		return -ENOMEM;
	for (e = start; e < stop; e++) {
		sites[n].code = jump_entry_code(e);
		sites[n].target = jump_entry_target(e);
		n++;
	}
	sort(sites, n, sizeof(*sites), cmp_site, NULL);
	n_sites = n;
	return static_calls_init();
}

void kjit_sites_exit(void)
{
	vfree(sites);
	sites = NULL;
	n_sites = 0;
	vfree(scalls);
	scalls = NULL;
	n_scalls = 0;
}

/* Index of the first entry of @tab (n sorted sites) at or after @addr. */
static size_t find_site(const struct site *tab, size_t n, unsigned long addr)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (tab[mid].code < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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

static unsigned long static_call_site_addr(const struct static_call_site *e)
{
	return (unsigned long)&e->addr + e->addr;
}

static unsigned long static_call_site_key(const struct static_call_site *e)
{
	return (unsigned long)&e->key + e->key;
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

/* Is @addr a jump label site (@jump_label) or a static_call site of a
 * loaded module? __module_address() is quick (NULL) outside module space. */
static bool in_module(unsigned long addr, unsigned long *out, bool *tail,
		      bool jump_label)
{
	struct module *mod;
	bool found = false;

	if (!kjit_kapi.module_address)
		return false;
	preempt_disable();
	mod = kjit_kapi.module_address(addr);
	if (mod && jump_label)
		found = module_jump_site(mod, addr, out);
	else if (mod && module_static_call_site(mod, addr)) {
		*out = 0; /* trampoline not known: refused */
		*tail = false;
		found = true;
	}
	preempt_enable();
	return found;
}

bool kjit_patch_site(unsigned long addr, unsigned long *target)
{
	size_t i = find_site(sites, n_sites, addr);

	if (i < n_sites && sites[i].code == addr) {
		*target = sites[i].target;
		return true;
	}
	return in_module(addr, target, NULL, true);
}

/* ---- inline static_call sites of the core kernel ---------------------- */

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

static int cmp_scall(const void *a, const void *b)
{
	const struct scall *x = a, *y = b;

	return x->code < y->code ? -1 : x->code > y->code;
}

static int static_calls_init(void)
{
	const struct static_call_site *start, *stop, *e;
	unsigned long key, last_key = 0, tramp = 0;
	size_t n = 0, unknown = 0;

	start = (const void *)kjit_lookup_name("__start_static_call_sites");
	stop = (const void *)kjit_lookup_name("__stop_static_call_sites");
	if (!start || !stop || stop <= start)
		return 0; /* no inline static calls in this kernel */
	scalls = vmalloc(array_size(stop - start, sizeof(*scalls)));
	if (!scalls)
		return -ENOMEM;
	for (e = start; e < stop; e++) {
		key = static_call_site_key(e);
		if (key & STATIC_CALL_SITE_INIT)
			continue;
		if ((key & ~STATIC_CALL_SITE_FLAGS) != last_key) {
			last_key = key & ~STATIC_CALL_SITE_FLAGS;
			tramp = tramp_of_key(last_key);
		}
		unknown += !tramp;
		scalls[n].code = static_call_site_addr(e);
		scalls[n].tramp = tramp;
		scalls[n].tail = key & STATIC_CALL_SITE_TAIL;
		n++;
	}
	sort(scalls, n, sizeof(*scalls), cmp_scall, NULL);
	n_scalls = n;
	if (unknown)
		pr_info("kjit: %zu of %zu static_call sites have no known "
			"trampoline; their blocks will run natively\n",
			unknown, n);
	return 0;
}

bool kjit_static_call_site(unsigned long addr, unsigned long *tramp, bool *tail)
{
	size_t lo = 0, hi = n_scalls, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (scalls[mid].code < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n_scalls && scalls[lo].code == addr) {
		*tramp = scalls[lo].tramp;
		*tail = scalls[lo].tail;
		return true;
	}
	return in_module(addr, tramp, tail, false);
}
