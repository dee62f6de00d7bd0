/*
 * symtab.c - load /proc/kallsyms into a sorted table of text symbols.
 *
 * Invariants: see symtab.h. Loading reads the file once; lookups are binary
 * searches except symtab_addr (linear, for the few section bounds).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symtab.h"

static int add_symbol(struct symtab *t, size_t *cap, uint64_t addr,
		      const char *name, const char *module)
{
	struct ksym *s;

	if (t->n == *cap) {
		*cap = *cap ? *cap * 2 : 4096;
		s = realloc(t->s, *cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		t->s = s;
	}
	s = &t->s[t->n];
	s->addr = addr;
	s->end = 0;
	s->name = strdup(name);
	s->module = strdup(module);
	if (!s->name || !s->module) {
		free(s->name);
		free(s->module);
		return -ENOMEM;
	}
	t->n++;
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* end = next higher address, capped. */
static void set_ends(struct symtab *t)
{
	size_t i, j = 0;

	for (i = 0; i < t->n; i++) {
		if (j <= i)
			j = i + 1;
		while (j < t->n && t->s[j].addr == t->s[i].addr)
			j++;
		t->s[i].end = j < t->n ? t->s[j].addr : t->s[i].addr + 1;
		if (t->s[i].end - t->s[i].addr > SYMTAB_MAX_SIZE)
			t->s[i].end = t->s[i].addr + SYMTAB_MAX_SIZE;
	}
}

static int parse_file(struct symtab *t, FILE *f)
{
	char line[512], name[256], module[64];
	size_t cap = 0;
	uint64_t addr;
	int zero = 0, err;
	char type;

	while (fgets(line, sizeof(line), f)) {
		module[0] = 0;
		if (sscanf(line, "%" SCNx64 " %c %255s [%63[^]]]", &addr, &type,
			   name, module) < 3)
			continue;
		if (!strcmp(name, "__start___jump_table"))
			t->jump_table[0] = addr;
		else if (!strcmp(name, "__stop___jump_table"))
			t->jump_table[1] = addr;
		if (type != 't' && type != 'T')
			continue;
		zero += addr == 0;
		err = add_symbol(t, &cap, addr, name, module);
		if (err)
			return err;
	}
	t->restricted = t->n && (size_t)zero == t->n;
	return 0;
}

int symtab_load(struct symtab *t, const char *path)
{
	FILE *f = fopen(path, "r");
	int err;

	memset(t, 0, sizeof(*t));
	if (!f)
		return -errno;
	err = parse_file(t, f);
	fclose(f);
	if (err) {
		symtab_free(t);
		return err;
	}
	if (t->restricted) {
		symtab_free(t);
		return -EPERM;
	}
	qsort(t->s, t->n, sizeof(*t->s), by_addr);
	set_ends(t);
	return 0;
}

void symtab_free(struct symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->s[i].name);
		free(t->s[i].module);
	}
	free(t->s);
	memset(t, 0, sizeof(*t));
}

const struct ksym *symtab_containing(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) { /* first symbol with s.addr > addr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->s[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= t->s[lo - 1].end)
		return NULL;
	return &t->s[lo - 1];
}

uint64_t symtab_addr(const struct symtab *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->s[i].name, name))
			return t->s[i].addr;
	return 0;
}
