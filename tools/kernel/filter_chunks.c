/*
 * filter_chunks.c - split ftrace's function list into prefix globs of a
 * bounded size (see filter_chunks.h).
 *
 * The names are sorted; a prefix that matches at most @max of them becomes
 * one glob ("prefix*"), a larger one is split by its next character, and
 * names equal to the prefix itself become an exact glob. The globs, in
 * sorted order, are then packed greedily into chunks of at most @max.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filter_chunks.h"

/* what ftrace lists for a weak function the linker dropped (6.0+): a site
 * no filter takes in, so it is not one of the functions to trace */
#define INVALID "__ftrace_invalid_address__"

struct glob {
	const char *name; /* the prefix is name[0..len) */
	size_t len;
	int exact;    /* no "*": only the name itself */
	size_t count; /* names it matches */
};

struct plan {
	char **names;
	size_t n;
	size_t max;
	struct glob *g;
	size_t ng, capg;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_glob(struct plan *p, const char *name, size_t len, int exact,
		    size_t count)
{
	if (p->ng == p->capg) {
		size_t cap = p->capg ? 2 * p->capg : 256;
		struct glob *g = realloc(p->g, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		p->g = g;
		p->capg = cap;
	}
	p->g[p->ng++] = (struct glob){name, len, exact, count};
	return 0;
}

/* names[lo..hi), sorted, all begin with names[lo][0..d) */
static int split(struct plan *p, size_t lo, size_t hi, size_t d)
{
	size_t i = lo, j;
	int err = 0;

	if (hi - lo <= p->max && d > 0)
		return add_glob(p, p->names[lo], d, 0, hi - lo);
	while (i < hi && p->names[i][d] == 0)
		i++; /* the prefix itself sorts first */
	if (i > lo)
		err = add_glob(p, p->names[lo], d, 1, i - lo);
	for (; i < hi && !err; i = j) {
		for (j = i; j < hi && p->names[j][d] == p->names[i][d]; j++)
			;
		err = split(p, i, j, d + 1);
	}
	return err;
}

/* Splits @buf (modified) into its lines' first words. */
static int read_names(struct plan *p, char *buf)
{
	size_t cap = 0;
	char *l, *e;

	for (l = buf; *l; l = e) {
		e = l + strcspn(l, "\n");
		if (*e)
			*e++ = 0;
		l[strcspn(l, " \t")] = 0;
		if (!*l || !strncmp(l, INVALID, sizeof(INVALID) - 1))
			continue;
		if (p->n == cap) {
			char **v =
			    realloc(p->names,
				    (cap = cap ? 2 * cap : 4096) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			p->names = v;
		}
		p->names[p->n++] = l;
	}
	return p->n ? 0 : -EINVAL;
}

static int pack(struct plan *p, struct filter_chunks *c)
{
	size_t i, k, first, count, bytes;

	c->text = calloc(p->ng, sizeof(*c->text));
	c->names = calloc(p->ng, sizeof(*c->names));
	if (!c->text || !c->names)
		return -ENOMEM;
	for (i = 0; i < p->ng; i = k) {
		first = i;
		count = bytes = 0;
		for (k = i; k < p->ng &&
			    (k == first || count + p->g[k].count <= p->max);
		     k++) {
			count += p->g[k].count;
			bytes += p->g[k].len + 2;
		}
		c->text[c->n] = malloc(bytes + 1);
		if (!c->text[c->n])
			return -ENOMEM;
		bytes = 0;
		for (; first < k; first++)
			bytes += (size_t)sprintf(
			    c->text[c->n] + bytes, "%.*s%s\n",
			    (int)p->g[first].len, p->g[first].name,
			    p->g[first].exact ? "" : "*");
		c->names[c->n++] = count;
	}
	c->total = p->n;
	return 0;
}

int filter_chunks_plan(const char *avail, size_t max, struct filter_chunks *c)
{
	struct plan p = {.max = max ? max : 1};
	char *buf = strdup(avail);
	int err;

	memset(c, 0, sizeof(*c));
	if (!buf)
		return -ENOMEM;
	err = read_names(&p, buf);
	if (!err) {
		qsort(p.names, p.n, sizeof(*p.names), cmp_name);
		err = split(&p, 0, p.n, 0);
	}
	if (!err)
		err = pack(&p, c);
	if (err)
		filter_chunks_free(c);
	free(p.g);
	free(p.names);
	free(buf);
	return err;
}

char *filter_chunks_negated(const char *chunk)
{
	size_t lines = 0, i, o = 0;
	char *out;

	for (i = 0; chunk[i]; i++)
		lines += chunk[i] == '\n';
	out = malloc(strlen(chunk) + lines + 1);
	if (!out)
		return NULL;
	for (i = 0; chunk[i]; i++) {
		if (i == 0 || chunk[i - 1] == '\n')
			out[o++] = '!';
		out[o++] = chunk[i];
	}
	out[o] = 0;
	return out;
}

void filter_chunks_free(struct filter_chunks *c)
{
	size_t i;

	for (i = 0; c->text && i < c->n; i++)
		free(c->text[i]);
	free(c->text);
	free(c->names);
	memset(c, 0, sizeof(*c));
}
