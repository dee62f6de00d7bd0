/*
 * merge.c - several recordings of one kernel as one session (see merge.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codeenv.h"
#include "merge.h"

/* Statistics that are a level or a limit, not a count of events: the
 * merged value is the larger one. The rest of struct sess_stats (all
 * uint64_t up to `attached`) adds up. */
static const size_t level_fields[] = {
    offsetof(struct sess_stats, cache_bytes),
    offsetof(struct sess_stats, pool_bytes),
    offsetof(struct sess_stats, pool_taken),
    offsetof(struct sess_stats, deep),
    offsetof(struct sess_stats, deep_funcs),
    offsetof(struct sess_stats, watched),
    offsetof(struct sess_stats, patched_addr),
    offsetof(struct sess_stats, deep_max),
    offsetof(struct sess_stats, deep_over_funcs),
    offsetof(struct sess_stats, cache_kb),
    offsetof(struct sess_stats, max_blocks),
    offsetof(struct sess_stats, pcpu_slots),
    offsetof(struct sess_stats, pcpu_used),
    offsetof(struct sess_stats, blocks_cpu_max),
    offsetof(struct sess_stats, mem_bytes),
    offsetof(struct sess_stats, cache_bytes_cpu_max),
    offsetof(struct sess_stats, deep_held),
    offsetof(struct sess_stats, pcpu_held),
    offsetof(struct sess_stats, exit_tail),
    offsetof(struct sess_stats, exit_tail_max),
};

_Static_assert(offsetof(struct sess_stats, attached) % sizeof(uint64_t) == 0,
	       "sess_stats: uint64_t fields, then attached");

static int is_level(size_t off)
{
	size_t i;

	for (i = 0; i < sizeof(level_fields) / sizeof(level_fields[0]); i++)
		if (level_fields[i] == off)
			return 1;
	return 0;
}

static void merge_stats(struct sess_stats *o, const struct sess_stats *a)
{
	size_t off;

	for (off = 0; off < offsetof(struct sess_stats, attached);
	     off += sizeof(uint64_t)) {
		uint64_t *x = (uint64_t *)((char *)o + off);
		const uint64_t *y = (const uint64_t *)((const char *)a + off);

		if (!is_level(off))
			*x += *y;
		else if (*y > *x)
			*x = *y;
	}
	o->attached = 0;
}

/* The same kernel? 0, or -1 with @why. */
static int same_kernel(const struct session *a, const struct session *b,
		       char *why, size_t n)
{
	if (a->build_id[0] && b->build_id[0]) {
		if (!strcmp(a->build_id, b->build_id))
			return 0;
		snprintf(why, n,
			 "recorded on another kernel build (build-id %.16s..., "
			 "the first file's %.16s...)",
			 b->build_id, a->build_id);
		return -1;
	}
	if (!strcmp(a->kernel, b->kernel))
		return 0;
	snprintf(why, n, "recorded on kernel %s, the first file on %s",
		 b->kernel, a->kernel);
	return -1;
}

/* "mod" of "mod:name" in @out (size @n), "" for the core kernel. */
static void module_of(const char *name, char *out, size_t n)
{
	const char *c = strchr(name, ':');
	size_t len = c ? (size_t)(c - name) : 0;

	if (len >= n)
		len = n - 1;
	memcpy(out, name, len);
	out[len] = 0;
}

/* Functions of one session sorted by name and size, to find a name's
 * copies (static functions share names) without comparing every pair. */
struct by_name {
	const struct session *s;
	unsigned int *ix;
};

static const struct session *sort_session; /* qsort's context */

static int cmp_name_size(const struct sess_func *a, const struct sess_func *b)
{
	int c = strcmp(a->name, b->name);
	uint64_t x = a->end - a->start, y = b->end - b->start;

	return c ? c : x < y ? -1 : x > y;
}

static int cmp_ix(const void *a, const void *b)
{
	const struct sess_func *f = sort_session->funcs;
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;
	int c = cmp_name_size(&f[x], &f[y]);

	return c ? c : x < y ? -1 : x > y;
}

static int by_name_make(struct by_name *b, const struct session *s)
{
	unsigned int i;

	b->s = s;
	b->ix = calloc(s->n_funcs + 1, sizeof(*b->ix));
	if (!b->ix)
		return -1;
	for (i = 0; i < s->n_funcs; i++)
		b->ix[i] = i;
	sort_session = s;
	qsort(b->ix, s->n_funcs, sizeof(*b->ix), cmp_ix);
	return 0;
}

/* The one function of @b's session with @f's name and size: its index,
 * -1 if there is none, -2 if there are several. */
static int by_name_unique(const struct by_name *b, const struct sess_func *f)
{
	unsigned int lo = 0, hi = b->s->n_funcs, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (cmp_name_size(&b->s->funcs[b->ix[mid]], f) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= b->s->n_funcs || cmp_name_size(&b->s->funcs[b->ix[lo]], f))
		return -1;
	if (lo + 1 < b->s->n_funcs &&
	    !cmp_name_size(&b->s->funcs[b->ix[lo + 1]], f))
		return -2;
	return (int)b->ix[lo];
}

/* How far a module's code (the core kernel's: "") moved from @add's boot
 * to @into's, as a function both recorded once says. */
struct shift {
	char mod[64];
	uint64_t delta;
	char by[KJIT_NAME_MAX]; /* the function that says so */
};

struct shifts {
	struct shift *v;
	unsigned int n;
};

static struct shift *shift_of(struct shifts *t, const char *mod)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].mod, mod))
			return &t->v[i];
	return NULL;
}

/* The shifts the functions recorded once in both files say; -1 with @why
 * if two of one module disagree (another build of it). */
static int find_shifts(const struct session *into, const struct session *add,
		       const struct by_name *bi, const struct by_name *ba,
		       struct shifts *t, char *why, size_t n)
{
	unsigned int j;
	char mod[64];
	int i;

	for (j = 0; j < add->n_funcs; j++) {
		const struct sess_func *f = &add->funcs[j];
		uint64_t d;
		struct shift *h, *v;

		if (by_name_unique(ba, f) < 0 ||
		    (i = by_name_unique(bi, f)) < 0)
			continue;
		d = into->funcs[i].start - f->start;
		module_of(f->name, mod, sizeof(mod));
		h = shift_of(t, mod);
		if (h && h->delta != d) {
			snprintf(why, n,
				 "%s and %s moved by different distances: "
				 "another build of %s",
				 h->by, f->name, *mod ? mod : "the kernel");
			return -1;
		}
		if (h)
			continue;
		v = realloc(t->v, (t->n + 1) * sizeof(*v));
		if (!v) {
			snprintf(why, n, "out of memory");
			return -1;
		}
		t->v = v;
		h = &t->v[t->n++];
		snprintf(h->mod, sizeof(h->mod), "%s", mod);
		snprintf(h->by, sizeof(h->by), "%s", f->name);
		h->delta = d;
	}
	return 0;
}

static int cmp_start(const void *a, const void *b)
{
	const struct sess_func *f = sort_session->funcs;
	uint64_t x = f[*(const unsigned int *)a].start,
		 y = f[*(const unsigned int *)b].start;

	return x < y ? -1 : x > y;
}

/* @into's function at @start named @name, or -1 (@ix: sorted by start). */
static int at_start(const struct session *into, const unsigned int *ix,
		    uint64_t start, const char *name)
{
	unsigned int lo = 0, hi = into->n_funcs, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (into->funcs[ix[mid]].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < into->n_funcs && into->funcs[ix[lo]].start == start; lo++)
		if (!strcmp(into->funcs[ix[lo]].name, name))
			return (int)ix[lo];
	return -1;
}

/* Where each of @add's functions goes: @delta[j] moves its addresses into
 * @into's boot (its module's shift: shared functions recorded once say
 * it; on the same boot, 0 where none does), and @map[j] is @into's
 * function at the moved address (by name), or -1: a new one. */
static int place_funcs(const struct session *into, const struct session *add,
		       int *map, uint64_t *delta, char *why, size_t n)
{
	int same_boot = !strcmp(into->boot_id, add->boot_id), rc = -1;
	struct by_name bi = {0}, ba = {0};
	struct shifts t = {NULL, 0};
	unsigned int j, *ix = NULL;
	const struct shift *h;
	char mod[64];

	if (by_name_make(&bi, into) || by_name_make(&ba, add) ||
	    !(ix = calloc(into->n_funcs + 1, sizeof(*ix)))) {
		snprintf(why, n, "out of memory");
		goto out;
	}
	if (find_shifts(into, add, &bi, &ba, &t, why, n))
		goto out;
	for (j = 0; j < into->n_funcs; j++)
		ix[j] = j;
	sort_session = into;
	qsort(ix, into->n_funcs, sizeof(*ix), cmp_start);
	for (j = 0; j < add->n_funcs; j++) {
		module_of(add->funcs[j].name, mod, sizeof(mod));
		h = shift_of(&t, mod);
		if (!h && !same_boot) {
			snprintf(
			    why, n,
			    "%s: recorded on another boot, and no function "
			    "both files recorded once says where %s's "
			    "code moved",
			    add->funcs[j].name, *mod ? mod : "the kernel");
			goto out;
		}
		delta[j] = h ? h->delta : 0;
		map[j] = at_start(into, ix, add->funcs[j].start + delta[j],
				  add->funcs[j].name);
	}
	rc = 0;
out:
	free(bi.ix);
	free(ba.ix);
	free(ix);
	free(t.v);
	return rc;
}

/* Modules both files name must be the same build. 0, or -1 with @why. */
static int same_modules(const struct session *into, const struct session *add,
			char *why, size_t n)
{
	unsigned int i, k;

	for (i = 0; i < add->n_mods; i++)
		for (k = 0; k < into->n_mods; k++)
			if (!strcmp(add->mods[i].name, into->mods[k].name) &&
			    strcmp(add->mods[i].build_id,
				   into->mods[k].build_id)) {
				snprintf(why, n,
					 "module %s: another build (build-id "
					 "%.16s..., the first file's %.16s...)",
					 add->mods[i].name,
					 add->mods[i].build_id,
					 into->mods[k].build_id);
				return -1;
			}
	return 0;
}

/* @add's modules that @into lacks (up to SESSION_MODS). */
static void merge_mods(struct session *into, const struct session *add)
{
	unsigned int i, k;

	for (i = 0; i < add->n_mods && into->n_mods < SESSION_MODS; i++) {
		for (k = 0; k < into->n_mods; k++)
			if (!strcmp(add->mods[i].name, into->mods[k].name))
				break;
		if (k == into->n_mods)
			into->mods[into->n_mods++] = add->mods[i];
	}
}

/* Appends @add's function @f to @into. Its stored code moves with it
 * from the same boot only: from another, the symbols and static-key sites
 * it needs are not @into's (merge_code()). */
static int add_func(struct session *into, struct sess_func *f, uint64_t delta,
		    int same_boot)
{
	struct sess_func *fs =
	    realloc(into->funcs, (into->n_funcs + 1) * sizeof(*fs));

	if (!fs)
		return -1;
	into->funcs = fs;
	fs[into->n_funcs] = *f;
	fs[into->n_funcs].start += delta;
	fs[into->n_funcs].end += delta;
	fs[into->n_funcs].entry += delta;
	if (!same_boot) {
		fs[into->n_funcs].code = NULL;
		fs[into->n_funcs].code_len = 0;
		return (int)into->n_funcs++;
	}
	f->code = NULL;
	f->code_len = 0;
	return (int)into->n_funcs++;
}

static void merge_func(struct sess_func *g, const struct sess_func *f)
{
	unsigned int r;

	for (r = 0; r < SESSION_FALLBACKS; r++)
		g->native[r] += f->native[r];
	g->native_known = g->native_known && f->native_known;
	g->diverted = g->diverted || f->diverted;
	g->deep = g->deep && f->deep; /* named in either: a target */
	if (!g->native_holder[0])
		memcpy(g->native_holder, f->native_holder,
		       sizeof(g->native_holder));
	g->static_blocks = g->covered = -1; /* the union needs the CFG */
}

static int by_addr(const void *a, const void *b)
{
	const struct sess_block *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* @into's block at @addr (blocks sorted by address up to @n), or NULL. */
static struct sess_block *find_block(struct session *into, unsigned int n,
				     uint64_t addr)
{
	struct sess_block key = {.addr = addr};

	return bsearch(&key, into->blocks, n, sizeof(key), by_addr);
}

static int merge_blocks(struct session *into, const struct session *add,
			const int *map, const uint64_t *delta)
{
	unsigned int n = into->n_blocks, i;
	struct sess_block *bs =
	    realloc(into->blocks, (n + add->n_blocks + 1) * sizeof(*bs));

	if (!bs)
		return -1;
	into->blocks = bs;
	for (i = 0; i < add->n_blocks; i++) {
		const struct sess_block *b = &add->blocks[i];
		uint64_t addr = b->addr + delta[b->func];
		struct sess_block *o = find_block(into, n, addr);

		if (o && o->func == (unsigned int)map[b->func]) {
			o->count += b->count;
			o->cpus = o->cpus > b->cpus ? o->cpus : b->cpus;
			o->flags |= b->flags;
			continue;
		}
		bs[into->n_blocks] = *b;
		bs[into->n_blocks].addr = addr;
		bs[into->n_blocks].func = (unsigned int)map[b->func];
		into->n_blocks++;
	}
	qsort(into->blocks, into->n_blocks, sizeof(*bs), by_addr);
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sess_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_site(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The same boot's symbols and static-key sites: @into's and @add's, sorted
 * by address, each once (the stored code of @add's functions reads them). */
static int merge_code(struct session *into, const struct session *add)
{
	struct sess_sym *sy =
	    realloc(into->syms, (into->n_syms + add->n_syms + 1) * sizeof(*sy));
	uint64_t(*ks)[2];
	unsigned int i, k;

	if (!sy)
		return -1;
	into->syms = sy;
	memcpy(sy + into->n_syms, add->syms, add->n_syms * sizeof(*sy));
	qsort(sy, into->n_syms + add->n_syms, sizeof(*sy), cmp_sym);
	for (i = k = 0; i < into->n_syms + add->n_syms; i++)
		if (!k || sy[i].addr != sy[k - 1].addr ||
		    strcmp(sy[i].name, sy[k - 1].name))
			sy[k++] = sy[i];
	into->n_syms = k;
	ks = realloc(into->keysites,
		     (into->n_keysites + add->n_keysites + 1) * sizeof(*ks));
	if (!ks)
		return -1;
	into->keysites = ks;
	memcpy(ks + into->n_keysites, add->keysites,
	       add->n_keysites * sizeof(*ks));
	qsort(ks, into->n_keysites + add->n_keysites, sizeof(*ks), cmp_site);
	for (i = k = 0; i < into->n_keysites + add->n_keysites; i++)
		if (!k || ks[i][0] != ks[k - 1][0])
			memcpy(ks[k++], ks[i], sizeof(*ks));
	into->n_keysites = k;
	return 0;
}

/* The header's words: commands joined, scopes the same or "mixed". */
static void merge_words(struct session *into, const struct session *add)
{
	size_t len = strlen(into->command);

	if (strcmp(into->command, add->command))
		snprintf(into->command + len, sizeof(into->command) - len,
			 "; %s", add->command);
	if (strcmp(session_scope(into), session_scope(add)))
		snprintf(into->scope, sizeof(into->scope), "mixed");
}

int session_merge(struct session *into, struct session *add, char *why,
		  size_t why_size)
{
	int *map = calloc(add->n_funcs + 1, sizeof(*map));
	uint64_t *delta = calloc(add->n_funcs + 1, sizeof(*delta));
	int rc = -1, same_boot = !strcmp(into->boot_id, add->boot_id);
	unsigned int j;

	if (!map || !delta) {
		snprintf(why, why_size, "out of memory");
		goto out;
	}
	if (into->oracle || add->oracle) {
		snprintf(why, why_size,
			 "%s recorded with --oracle: its checks are read one "
			 "file at a time",
			 into->oracle ? "the first file was" : "it was");
		goto out;
	}
	if (into->timing || add->timing) {
		snprintf(why, why_size,
			 "%s recorded with --time: its times are read one "
			 "file at a time",
			 into->timing ? "the first file was" : "it was");
		goto out;
	}
	if (into->split || add->split) {
		snprintf(why, why_size,
			 "%s recorded with --split: its processes are read "
			 "one file at a time",
			 into->split ? "the first file was" : "it was");
		goto out;
	}
	if (same_kernel(into, add, why, why_size) ||
	    same_modules(into, add, why, why_size) ||
	    place_funcs(into, add, map, delta, why, why_size))
		goto out;
	session_cache_free(into); /* its functions and blocks change */
	if (same_boot && merge_code(into, add)) {
		snprintf(why, why_size, "out of memory");
		goto out;
	}
	for (j = 0; j < add->n_funcs; j++) {
		if (map[j] < 0)
			map[j] =
			    add_func(into, &add->funcs[j], delta[j], same_boot);
		else
			merge_func(&into->funcs[map[j]], &add->funcs[j]);
		if (map[j] < 0) {
			snprintf(why, why_size, "out of memory");
			goto out;
		}
	}
	if (merge_blocks(into, add, map, delta)) {
		snprintf(why, why_size, "out of memory");
		goto out;
	}
	merge_stats(&into->st, &add->st);
	merge_mods(into, add);
	merge_words(into, add);
	session_derive(into);
	rc = 0;
out:
	free(map);
	free(delta);
	return rc;
}
