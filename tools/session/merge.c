/*
 * merge.c - several recordings of one kernel as one session (see merge.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* @into's function that is @f (name and size), or -1. */
static int find_func(const struct session *into, const struct sess_func *f,
		     int same_boot)
{
	unsigned int i;

	for (i = 0; i < into->n_funcs; i++) {
		const struct sess_func *g = &into->funcs[i];

		if (!strcmp(g->name, f->name) &&
		    g->end - g->start == f->end - f->start &&
		    (!same_boot || g->start == f->start))
			return (int)i;
	}
	return -1;
}

/* Where each of @add's functions goes: @map[j] (an index of @into, or -1:
 * new) and @delta[j], what moves its addresses into @into's boot. */
static int place_funcs(const struct session *into, const struct session *add,
		       int *map, uint64_t *delta, char *why, size_t n)
{
	char mod[64], other[64];
	unsigned int j, k;

	for (j = 0; j < add->n_funcs; j++) {
		map[j] = find_func(into, &add->funcs[j], 0);
		if (map[j] >= 0)
			delta[j] =
			    into->funcs[map[j]].start - add->funcs[j].start;
	}
	for (j = 0; j < add->n_funcs; j++) {
		int placed = map[j] >= 0;

		if (placed)
			continue;
		if (!strcmp(into->boot_id, add->boot_id)) {
			delta[j] = 0; /* the same boot: nothing moved */
			continue;
		}
		/* another boot: a shared function of the same module (or of
		 * the core kernel) says how far it moved */
		module_of(add->funcs[j].name, mod, sizeof(mod));
		for (k = 0; k < add->n_funcs && !placed; k++) {
			module_of(add->funcs[k].name, other, sizeof(other));
			if (map[k] >= 0 && !strcmp(mod, other)) {
				delta[j] = delta[k];
				placed = 1;
			}
		}
		if (!placed) {
			snprintf(
			    why, n,
			    "%s: recorded on another boot, and no function "
			    "both files recorded says where %s's code "
			    "moved",
			    add->funcs[j].name, *mod ? mod : "the kernel");
			return -1;
		}
	}
	return 0;
}

/* Appends @add's function @j to @into (its stored code moves). */
static int add_func(struct session *into, struct sess_func *f, uint64_t delta)
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
	unsigned int j;
	int rc = -1;

	if (!map || !delta) {
		snprintf(why, why_size, "out of memory");
		goto out;
	}
	if (into->oracle || add->oracle) {
		snprintf(why, why_size,
			 "recorded with --oracle: its checks are read one "
			 "file at a time");
		goto out;
	}
	if (same_kernel(into, add, why, why_size) ||
	    place_funcs(into, add, map, delta, why, why_size))
		goto out;
	for (j = 0; j < add->n_funcs; j++) {
		if (map[j] < 0)
			map[j] = add_func(into, &add->funcs[j], delta[j]);
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
	merge_words(into, add);
	session_derive(into);
	rc = 0;
out:
	free(map);
	free(delta);
	return rc;
}
