/*
 * symnames.c - a name index over a symtab (see symnames.h): FNV-1a of the
 * name into a power-of-two table of chains, built in one pass from the
 * table's end so that each chain comes out in address order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "symnames.h"

static uint32_t hash_name(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

int symnames_build(struct symnames *x, const struct symtab *t)
{
	size_t buckets = 1024, i;
	uint32_t b;

	memset(x, 0, sizeof(*x));
	while (buckets < 2 * t->n)
		buckets *= 2;
	x->t = t;
	x->mask = buckets - 1;
	x->head = calloc(buckets, sizeof(*x->head));
	x->next = calloc(t->n ? t->n : 1, sizeof(*x->next));
	if (!x->head || !x->next || t->n >= UINT32_MAX) {
		symnames_free(x);
		return -ENOMEM;
	}
	for (i = t->n; i-- > 0;) {
		b = hash_name(t->s[i].name) & x->mask;
		x->next[i] = x->head[b];
		x->head[b] = (uint32_t)i + 1;
	}
	return 0;
}

void symnames_free(struct symnames *x)
{
	free(x->head);
	free(x->next);
	memset(x, 0, sizeof(*x));
}

static int matches(const struct ksym *s, const char *name, const char *module)
{
	return !strcmp(s->name, name) &&
	       (!module || !strcmp(s->module, module));
}

/* From chain link @link (index + 1, 0: end) on, the first that matches. */
static size_t scan(const struct symnames *x, uint32_t link, const char *name,
		   const char *module)
{
	for (; link; link = x->next[link - 1])
		if (matches(&x->t->s[link - 1], name, module))
			return link - 1;
	return SYMNAMES_END;
}

size_t symnames_first(const struct symnames *x, const char *name,
		      const char *module)
{
	if (!x->head)
		return SYMNAMES_END;
	return scan(x, x->head[hash_name(name) & x->mask], name, module);
}

size_t symnames_next(const struct symnames *x, size_t i, const char *name,
		     const char *module)
{
	return scan(x, x->next[i], name, module);
}
