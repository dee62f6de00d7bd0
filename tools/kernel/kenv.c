/* kenv.c - struct kjit_env over /proc/kcore and kallsyms (see kenv.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "kenv.h"

static size_t read_code(void *opaque, u64 addr, u8 *buf, size_t len)
{
	struct kenv *e = opaque;

	for (; len; len--) /* the end of a mapping: as much as there is */
		if (!kcore_read(e->kc, addr, buf, len))
			return len;
	return 0;
}

static enum kjit_sym classify(void *opaque, u64 target, int *reg)
{
	return kthunks_classify(&((struct kenv *)opaque)->thunks, target, reg);
}

/* x86-64 struct jump_entry with relative references (6.1: 16 bytes). */
struct jump_entry_rel {
	int32_t code, target;
	int64_t key;
};

static int by_code(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Reads the core kernel's __jump_table; no table is not an error (the CFG
 * then follows today's direction of each site only). */
static void load_sites(struct kenv *e, const struct symtab *t)
{
	uint64_t start = t->jump_table[0], stop = t->jump_table[1], a;
	size_t n = stop > start ? (stop - start) / 16 : 0, i;
	struct jump_entry_rel *j;

	if (!n || n > (1u << 22))
		return;
	j = malloc(n * sizeof(*j));
	e->sites = malloc(n * sizeof(*e->sites));
	if (!j || !e->sites || kcore_read(e->kc, start, j, n * sizeof(*j))) {
		free(j);
		free(e->sites);
		e->sites = NULL;
		return;
	}
	for (i = 0; i < n; i++) {
		a = start + i * sizeof(*j);
		e->sites[i][0] = a + (uint64_t)(int64_t)j[i].code;
		e->sites[i][1] = a + 4 + (uint64_t)(int64_t)j[i].target;
	}
	qsort(e->sites, n, sizeof(*e->sites), by_code);
	e->n_sites = n;
	free(j);
}

static bool patch_site(void *opaque, u64 addr, u64 *target)
{
	struct kenv *e = opaque;
	size_t lo = 0, hi = e->n_sites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->sites[mid][0] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= e->n_sites || e->sites[lo][0] != addr)
		return false;
	*target = e->sites[lo][1];
	return true;
}

struct kenv *kenv_open(const char *kcore_path, const struct symtab *t)
{
	struct kenv *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->kc = kcore_open(kcore_path);
	if (!e->kc) {
		free(e);
		return NULL;
	}
	kthunks_from_symtab(&e->thunks, t);
	e->env.opaque = e;
	e->env.read_code = read_code;
	e->env.classify = classify;
	load_sites(e, t);
	if (e->n_sites)
		e->env.patch_site = patch_site;
	return e;
}

void kenv_close(struct kenv *e)
{
	if (!e)
		return;
	kcore_close(e->kc);
	free(e->sites);
	free(e);
}
