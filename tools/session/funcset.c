/* funcset.c - FUNC arguments to attach targets (see funcset.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "funcglob.h"
#include "funcset.h"
#include "tools/report/plural.h"
#include "tools/report/progress.h"
#include "target.h"
#include "tools/report/say.h"

int funcset_has_pattern(const char *const *funcs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (funcglob_is(funcs[i]))
			return 1;
	return 0;
}

static int add(struct funcset *fs, uint64_t addr, const struct ksym *s,
	       const char *spec)
{
	struct kjit_target *t;
	const char **v;
	int cap;

	if (fs->n == fs->cap) {
		cap = fs->cap ? 2 * fs->cap : 64;
		t = realloc(fs->t, (size_t)cap * sizeof(*t));
		if (t)
			fs->t = t;
		v = realloc(fs->spec, (size_t)cap * sizeof(*v));
		if (v)
			fs->spec = v;
		if (!t || !v)
			return -ENOMEM;
		fs->cap = cap;
	}
	t = &fs->t[fs->n];
	memset(t, 0, sizeof(*t));
	t->addr = addr;
	target_symname(s, t->name, sizeof(t->name));
	fs->spec[fs->n++] = spec;
	return 0;
}

/* The functions patterns skipped, each once, to name or count at the end. */
struct skips {
	const struct ksym **sym;
	const char **why; /* eligible_why()'s: static strings */
	unsigned int n, cap;
};

static int skip_add(struct skips *k, const struct ksym *s, const char *why)
{
	if (k->n == k->cap) {
		unsigned int cap = k->cap ? 2 * k->cap : 64;
		const struct ksym **sv = realloc(k->sym, cap * sizeof(*sv));
		const char **wv;

		if (!sv)
			return -ENOMEM;
		k->sym = sv;
		wv = realloc(k->why, cap * sizeof(*wv));
		if (!wv)
			return -ENOMEM;
		k->why = wv;
		k->cap = cap;
	}
	k->sym[k->n] = s;
	k->why[k->n++] = why;
	return 0;
}

/* Each skipped function a line, or (more than @list_max) a count by
 * reason, largest first. */
static void skips_say(const struct skips *k, int list_max, const char *who,
		      FILE *err)
{
	const char *reason[32];
	unsigned int count[32], nr = 0, i, j, other = 0;
	char name[320];

	if (list_max < 0 || k->n <= (unsigned int)list_max) {
		for (i = 0; i < k->n; i++) {
			target_symname(k->sym[i], name, sizeof(name));
			fprintf(err, "kjit %s: skipped %s: %s\n", who, name,
				k->why[i]);
		}
		return;
	}
	for (i = 0; i < k->n; i++) {
		for (j = 0; j < nr && strcmp(reason[j], k->why[i]); j++)
			;
		if (j == nr && nr == 32) {
			other++;
			continue;
		}
		if (j == nr) {
			reason[nr] = k->why[i];
			count[nr++] = 0;
		}
		count[j]++;
	}
	fprintf(err,
		"kjit %s: skipped %u matching functions kjit cannot "
		"instrument:",
		who, k->n);
	while (nr) { /* the largest count left, then drop it */
		unsigned int b = 0;

		for (j = 1; j < nr; j++)
			if (count[j] > count[b])
				b = j;
		fprintf(err, " %u %s%s", count[b], reason[b],
			nr > 1 || other ? ";" : "");
		reason[b] = reason[nr - 1];
		count[b] = count[--nr];
	}
	if (other)
		fprintf(err, " %u for other reasons", other);
	fprintf(err, " (-v names each)\n");
}

/* The functions pattern @pat matches; 0, or 1 after saying why. A
 * function skipped is noted once in @k, however many patterns match it
 * (@told: one mark per symbol). @p advances by one per symbol from
 * *@done. */
static int expand(struct funcset *fs, const struct symtab *syms,
		  const struct eligible *e, const char *pat, char *told,
		  struct skips *k, struct progress *p, unsigned long *done,
		  const char *who, FILE *err)
{
	unsigned int matched = 0, skipped = 0;
	const char *why;
	size_t i;

	if (strchr(pat, '+')) {
		fprintf(err,
			"kjit %s: %s: a pattern names whole functions "
			"(no +OFFSET)\n",
			who, pat);
		return 1;
	}
	for (i = 0; i < syms->n; i++) {
		const struct ksym *s = &syms->s[i];

		progress_step(p, (*done)++);
		if (!funcglob_listable(s) || !funcglob_match(s, pat))
			continue;
		matched++;
		why = eligible_why(e, s);
		if (why) {
			skipped++;
			if (told[i]++)
				continue;
			fs->skipped++;
			if (skip_add(k, s, why)) {
				fprintf(err, "kjit %s: out of memory\n", who);
				return 1;
			}
		} else if (add(fs, s->addr, s, pat)) {
			fprintf(err, "kjit %s: out of memory\n", who);
			return 1;
		}
	}
	if (!matched && !funcglob_say_absent_module(err, who, syms, pat))
		fprintf(err, "kjit %s: '%s': no kernel function matches\n", who,
			pat);
	else if (matched == skipped)
		fprintf(err,
			"kjit %s: '%s': no instrumentable function matches "
			"(%u skipped)\n",
			who, pat, skipped);
	return matched == skipped;
}

/* A name or an address; 0, or 1 after saying why. */
static int resolve(struct funcset *fs, const struct symtab *syms,
		   const char *spec, const char *who, FILE *err)
{
	struct target r;

	if (target_resolve(syms, spec, &r, err))
		return 1;
	if (r.off) {
		say_to(err,
		       "%s: not a function start (inside %s); "
		       "attach takes whole functions\n",
		       spec, r.sym->name);
		return 1;
	}
	if (add(fs, r.addr, r.sym, spec)) {
		fprintf(err, "kjit %s: out of memory\n", who);
		return 1;
	}
	return 0;
}

struct order {
	uint64_t addr;
	int i;
};

static int by_addr_then_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->i - y->i;
}

/* One target per address, the first FUNC's; the order is kept. */
static int dedupe(struct funcset *fs)
{
	struct order *o = calloc((size_t)fs->n + 1, sizeof(*o));
	char *drop = calloc((size_t)fs->n + 1, 1);
	int i, k = 0;

	if (!o || !drop) {
		free(o);
		free(drop);
		return -ENOMEM;
	}
	for (i = 0; i < fs->n; i++)
		o[i] = (struct order){fs->t[i].addr, i};
	qsort(o, (size_t)fs->n, sizeof(*o), by_addr_then_order);
	for (i = 1; i < fs->n; i++)
		if (o[i].addr == o[i - 1].addr)
			drop[o[i].i] = 1;
	for (i = 0; i < fs->n; i++)
		if (!drop[i]) {
			fs->t[k] = fs->t[i];
			fs->spec[k++] = fs->spec[i];
		}
	fs->n = k;
	free(o);
	free(drop);
	return 0;
}

int funcset_build(struct funcset *fs, const struct symtab *syms,
		  const struct eligible *e, const char *const *funcs, int n,
		  int list_max, const char *who, FILE *err)
{
	char *told = calloc(syms->n + 1, 1);
	unsigned long done = 0, total = 0;
	struct skips k = {0};
	struct progress p;
	int i, bad = 0;

	memset(fs, 0, sizeof(*fs));
	if (!told) {
		fprintf(err, "kjit %s: out of memory\n", who);
		return 1;
	}
	for (i = 0; i < n; i++)
		total += funcglob_is(funcs[i]) ? syms->n : 1;
	progress_begin(&p, "matching", total);
	for (i = 0; i < n; i++) {
		if (funcglob_is(funcs[i])) {
			bad += expand(fs, syms, e, funcs[i], told, &k, &p,
				      &done, who, err);
			continue;
		}
		progress_step(&p, done++);
		bad += resolve(fs, syms, funcs[i], who, err);
	}
	progress_end(&p);
	free(told);
	skips_say(&k, list_max, who, err);
	free(k.sym);
	free(k.why);
	if (!bad && dedupe(fs)) {
		fprintf(err, "kjit %s: out of memory\n", who);
		bad = 1;
	}
	if (!bad && fs->skipped)
		fprintf(err,
			"kjit %s: %d function%s to attach; %u matching "
			"function%s skipped (not instrumentable, above)\n",
			who, fs->n, plural_s((unsigned)fs->n), fs->skipped,
			plural_s(fs->skipped));
	return bad;
}

void funcset_free(struct funcset *fs)
{
	free(fs->t);
	free(fs->spec);
	memset(fs, 0, sizeof(*fs));
}
