/*
 * codeenv.c - a session's stored code: capture from the running kernel,
 * the translator's environment over it, CFGs and coverage (codeenv.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codeenv.h"
#include "tools/kernel/kenv.h"
#include "tools/kernel/sysfiles.h"
#include "tools/kernel/symtab.h"

/* ---- the environment over stored code ---- */

static const struct sess_func *holding(struct codeenv *e, u64 addr)
{
	const struct session *s = e->s;
	unsigned int i, k;

	for (k = 0; k < s->n_funcs; k++) {
		i = (e->last + k) % s->n_funcs;
		if (s->funcs[i].code && addr >= s->funcs[i].start &&
		    addr < s->funcs[i].start + s->funcs[i].code_len) {
			e->last = i;
			return &s->funcs[i];
		}
	}
	return NULL;
}

static size_t read_code(void *opaque, u64 addr, u8 *buf, size_t len)
{
	const struct sess_func *f = holding(opaque, addr);
	size_t off, n;

	if (!f)
		return 0;
	off = (size_t)(addr - f->start);
	n = f->code_len - off < len ? f->code_len - off : len;
	memcpy(buf, f->code + off, n);
	return n;
}

static enum kjit_sym classify(void *opaque, u64 target, int *reg)
{
	return kthunks_classify(&((struct codeenv *)opaque)->thunks, target,
				reg);
}

static bool patch_site(void *opaque, u64 addr, u64 *target)
{
	const struct session *s = ((struct codeenv *)opaque)->s;
	unsigned int lo = 0, hi = s->n_keysites;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (s->keysites[mid][0] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= s->n_keysites || s->keysites[lo][0] != addr)
		return false;
	*target = s->keysites[lo][1];
	return true;
}

/* What a report needs once per function but can work out once per
 * session: every CFG needs the addresses found by name among the stored
 * symbols (a walk of all of them), every coverage the function's blocks
 * (a walk of all blocks). Kept in the session, keyed by the arrays it was
 * made from, so a session that changes gets a new one. */
struct sess_cache {
	const struct sess_sym *syms; /* the addresses: made from these */
	unsigned int n_syms;
	int have_addrs;
	struct kthunks thunks;
	const struct sess_block *blocks; /* the index: made from these */
	unsigned int n_blocks, n_funcs;
	unsigned int *order; /* block indexes, by function */
	unsigned int *first; /* function fi's: order[first[fi]..first[fi+1]) */
};

static struct sess_cache *cache_of(const struct session *cs)
{
	struct session *s = (struct session *)cs; /* a cache, not meaning */

	if (!s->cache)
		s->cache = calloc(1, sizeof(*s->cache));
	return s->cache;
}

void session_cache_free(struct session *s)
{
	if (s->cache) {
		free(s->cache->order);
		free(s->cache->first);
	}
	free(s->cache);
	s->cache = NULL;
}

/* The first stored symbol (by address) of each name codeenv needs, in
 * one walk. */
static void find_addrs(const struct session *s, struct sess_cache *c)
{
	unsigned int i;

	memset(&c->thunks, 0, sizeof(c->thunks));
	for (i = 0; i < s->n_syms; i++)
		kthunks_note(&c->thunks, s->syms[i].name, s->syms[i].addr);
	c->syms = s->syms;
	c->n_syms = s->n_syms;
	c->have_addrs = 1;
}

void codeenv_init(struct codeenv *e, const struct session *s)
{
	struct sess_cache *c = cache_of(s), local;

	memset(e, 0, sizeof(*e));
	e->s = s;
	if (!c) /* out of memory: work it out every time */
		c = &local;
	if (c == &local || !c->have_addrs || c->syms != s->syms ||
	    c->n_syms != s->n_syms)
		find_addrs(s, c);
	e->thunks = c->thunks;
	e->env.opaque = e;
	e->env.read_code = read_code;
	e->env.classify = classify;
	if (s->n_keysites)
		e->env.patch_site = patch_site;
}

int session_has_code(const struct session *s)
{
	unsigned int i;

	for (i = 0; i < s->n_funcs; i++)
		if (!s->funcs[i].code)
			return 0;
	return 1;
}

int session_cfg(const struct session *s, unsigned int fi, struct cfg *g)
{
	struct codeenv e;

	if (fi >= s->n_funcs || !s->funcs[fi].code)
		return -ENOENT;
	codeenv_init(&e, s);
	e.last = fi;
	return cfg_build(g, s->funcs[fi].start, s->funcs[fi].end, &e.env);
}

/* The blocks of each function (a counting sort by function), made once
 * per session's blocks: 0, or -ENOMEM. */
static int index_blocks(const struct session *s, struct sess_cache *c)
{
	unsigned int i, *order, *first;

	if (c->order && c->blocks == s->blocks && c->n_blocks == s->n_blocks &&
	    c->n_funcs == s->n_funcs)
		return 0;
	order = malloc((s->n_blocks + 1) * sizeof(*order));
	first = calloc(s->n_funcs + 2, sizeof(*first));
	if (!order || !first) {
		free(order);
		free(first);
		return -ENOMEM;
	}
	for (i = 0; i < s->n_blocks; i++)
		if (s->blocks[i].func < s->n_funcs)
			first[s->blocks[i].func + 2]++;
	for (i = 2; i < s->n_funcs + 2; i++)
		first[i] += first[i - 1];
	for (i = 0; i < s->n_blocks; i++)
		if (s->blocks[i].func < s->n_funcs)
			order[first[s->blocks[i].func + 1]++] = i;
	free(c->order);
	free(c->first);
	c->order = order;
	c->first = first; /* first[fi]..first[fi + 1] now */
	c->blocks = s->blocks;
	c->n_blocks = s->n_blocks;
	c->n_funcs = s->n_funcs;
	return 0;
}

/* Marks the static blocks of @g that block @b overlaps. */
static void mark_overlaps(const struct cfg *g, const struct sess_block *b,
			  char *mark)
{
	long k;

	if (!b->count)
		return;
	for (k = 0; k < (long)g->n_blk; k++)
		if (g->blk[k].start < b->addr + b->len &&
		    b->addr < g->blk[k].end)
			mark[k] = 1;
}

long session_cover_marks(const struct session *s, unsigned int fi,
			 const struct cfg *g, char *mark)
{
	struct sess_cache *c = cache_of(s);
	unsigned int i;
	long k, n = 0;

	memset(mark, 0, g->n_blk ? g->n_blk : 1);
	if (c && fi < s->n_funcs && !index_blocks(s, c)) {
		for (i = c->first[fi]; i < c->first[fi + 1]; i++)
			mark_overlaps(g, &s->blocks[c->order[i]], mark);
	} else { /* out of memory: every block */
		for (i = 0; i < s->n_blocks; i++)
			if (s->blocks[i].func == fi)
				mark_overlaps(g, &s->blocks[i], mark);
	}
	for (k = 0; k < (long)g->n_blk; k++)
		n += mark[k];
	return n;
}

/* ---- names ---- */

static const char *lookup(void *ctx, uint64_t addr, uint64_t *start)
{
	const struct session *s = ctx;
	unsigned int i, lo = 0, hi = s->n_syms;

	for (i = 0; i < s->n_funcs; i++)
		if (addr >= s->funcs[i].start && addr < s->funcs[i].end) {
			*start = s->funcs[i].start;
			return s->funcs[i].name;
		}
	while (lo < hi) { /* the last symbol starting at or below addr */
		unsigned int mid = lo + (hi - lo) / 2;

		if (s->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= s->syms[lo - 1].end)
		return NULL;
	*start = s->syms[lo - 1].addr;
	return s->syms[lo - 1].name;
}

struct disasm_syms session_syms(const struct session *s)
{
	struct disasm_syms d = {lookup, (void *)s};

	return d;
}

/* ---- capture from the running kernel ---- */

/* Appends @k (duplicates go at the end: sort_syms()). */
static int add_sym(struct session *s, unsigned int *cap, const struct ksym *k)
{
	struct sess_sym *v;

	if (!k)
		return 0;
	if (s->n_syms == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		v = realloc(s->syms, *cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->syms = v;
	}
	v = &s->syms[s->n_syms++];
	v->addr = k->addr;
	v->end = k->end;
	snprintf(v->name, sizeof(v->name), "%s", k->name);
	return 0;
}

/* The symbols classify() knows by name, whether this code calls them
 * or not: the CFG over stored code must classify as kenv does. */
static int add_known_syms(struct session *s, unsigned int *cap,
			  const struct symtab *t)
{
	char name[64];
	int i, err = 0;

	for (i = 0; i < KTHUNKS_N && !err; i++)
		err = add_sym(
		    s, cap,
		    symtab_containing(
			t,
			symtab_addr(t, kthunks_name(i, name, sizeof(name)))));
	return err;
}

/* The symbols the instructions of @f reach (a linear sweep). */
static int add_reached_syms(struct session *s, unsigned int *cap,
			    const struct sess_func *f, const struct symtab *t)
{
	struct disasm_insn d;
	uint64_t off = 0, size = f->end - f->start;
	int err = 0;

	while (off < size && !err) {
		if (disasm_one(f->code + off, f->code_len - off, f->start + off,
			       NULL, &d)) {
			off++;
			continue;
		}
		if (d.has_target && (d.target < f->start || d.target >= f->end))
			err = add_sym(s, cap, symtab_containing(t, d.target));
		off += d.len;
	}
	return err;
}

static int add_keysites(struct session *s, const struct kenv *e,
			const struct sess_func *f)
{
	uint64_t(*v)[2];
	size_t i;

	for (i = 0; i < e->n_sites; i++) {
		if (e->sites[i][0] < f->start ||
		    e->sites[i][0] >= f->start + f->code_len)
			continue;
		v = realloc(s->keysites, (s->n_keysites + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->keysites = v;
		s->keysites[s->n_keysites][0] = e->sites[i][0];
		s->keysites[s->n_keysites][1] = e->sites[i][1];
		s->n_keysites++;
	}
	return 0;
}

/* Reads @f's bytes (and the tail, as far as it can be read). */
static void read_func(struct sess_func *f, struct kenv *e)
{
	size_t want = (size_t)(f->end - f->start) + CODE_TAIL, got;

	f->code = malloc(want);
	if (!f->code)
		return;
	got = e->env.read_code(e, f->start, f->code, want);
	if (got < f->end - f->start) {
		free(f->code);
		f->code = NULL;
		return;
	}
	f->code_len = (uint32_t)got;
}

static int by_sym(const void *a, const void *b)
{
	const struct sess_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Sorted by address, each once. */
static void sort_syms(struct session *s)
{
	unsigned int i, o = 0;

	qsort(s->syms, s->n_syms, sizeof(*s->syms), by_sym);
	for (i = 0; i < s->n_syms; i++)
		if (!o || by_sym(&s->syms[o - 1], &s->syms[i]))
			s->syms[o++] = s->syms[i];
	s->n_syms = o;
}

static int by_site(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Sorted, each once (a function's tail may hold the next one's start). */
static void sort_sites(struct session *s)
{
	unsigned int i, o = 0;

	qsort(s->keysites, s->n_keysites, sizeof(*s->keysites), by_site);
	for (i = 0; i < s->n_keysites; i++)
		if (!o || s->keysites[o - 1][0] != s->keysites[i][0]) {
			s->keysites[o][0] = s->keysites[i][0];
			s->keysites[o][1] = s->keysites[i][1];
			o++;
		}
	s->n_keysites = o;
}

int session_capture(struct session *s)
{
	unsigned int i, cap = s->n_syms;
	struct symtab t;
	struct kenv *e;
	int err = symtab_load(&t, sysfile(3, "/proc/kallsyms"));

	if (err)
		return err;
	e = kenv_open(sysfile(3, "/proc/kcore"), &t);
	if (!e) {
		err = -errno;
		symtab_free(&t);
		return err;
	}
	err = add_known_syms(s, &cap, &t);
	for (i = 0; i < s->n_funcs && !err; i++) {
		struct sess_func *f = &s->funcs[i];

		if (f->code)
			continue;
		read_func(f, e);
		if (f->code)
			err = add_reached_syms(s, &cap, f, &t);
		if (f->code && !err)
			err = add_keysites(s, e, f);
	}
	if (s->syms)
		sort_syms(s);
	if (s->keysites)
		sort_sites(s);
	kenv_close(e);
	symtab_free(&t);
	return err;
}
