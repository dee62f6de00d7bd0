// SPDX-License-Identifier: GPL-2.0
/*
 * sites.c - where the running kernel rewrites its own branches: the jump
 * label (static key) sites of the core kernel, from its __jump_table.
 *
 * The translator asks kjit_patch_site() about every instruction; a site is
 * translated as a run-time test of the original bytes (jit/flow.c), so a
 * static key flipped after translation - a tracepoint enabled, say - takes
 * effect in the cache at once.
 *
 * Invariants:
 *  - Built once at load (process context) into a table sorted by address;
 *    looked up lock-free from any context afterwards.
 *  - Covers the core kernel only: sites in modules (deep mode can reach
 *    module code) are not known, and static_call sites are not covered
 *    either (docs/design.md says so).
 */
#include <linux/jump_label.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include "ksyms.h"
#include "sites.h"

struct site {
	unsigned long code, target;
};

static struct site *sites;
static size_t n_sites;

static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	return x->code < y->code ? -1 : x->code > y->code;
}

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
	return 0;
}

void kjit_sites_exit(void)
{
	vfree(sites);
	sites = NULL;
	n_sites = 0;
}

bool kjit_patch_site(unsigned long addr, unsigned long *target)
{
	size_t lo = 0, hi = n_sites, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (sites[mid].code < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= n_sites || sites[lo].code != addr)
		return false;
	*target = sites[lo].target;
	return true;
}
