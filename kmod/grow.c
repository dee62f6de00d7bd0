// SPDX-License-Identifier: GPL-2.0
/*
 * grow.c - growing a CPU's block table and block map (see grow.h).
 */
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "grow.h"

/* The map's limit: twice the blocks, a power of two (cache.h). */
static u32 max_map_slots(u32 max_blocks)
{
	return roundup_pow_of_two(2 * max_blocks + 1);
}

/* The first map: room for KJIT_GROW_AHEAD blocks and their targets, as
 * kjit_cache_map_wanted() asks later, within the limit. */
static u32 first_map_slots(u32 max_blocks)
{
	return min_t(u32, max_map_slots(max_blocks),
		     roundup_pow_of_two(4 * KJIT_GROW_AHEAD));
}

static u32 first_chunks(u32 max_blocks)
{
	return kjit_cache_chunks_ahead(0, kjit_cache_dir_len(max_blocks));
}

size_t kjit_grow_first_bytes(u32 max_blocks)
{
	return kjit_cache_dir_len(max_blocks) * sizeof(struct kjit_chunk *) +
	       first_chunks(max_blocks) * sizeof(struct kjit_chunk) +
	       first_map_slots(max_blocks) * sizeof(struct kjit_centry);
}

/* Bring the chunks the cache wants, in order; false if one could not be
 * had. */
static bool add_chunks(struct kjit_grow *g, struct kjit_cache *c, u32 want)
{
	struct kjit_chunk *ch;
	u32 i;

	for (i = 0; i < want; i++) {
		if (READ_ONCE(g->dir[i]))
			continue;
		ch = vzalloc(sizeof(*ch));
		if (!ch)
			return false;
		g->bytes += sizeof(*ch);
		if (c)
			kjit_cache_offer_chunk(c, i, ch);
		else
			g->dir[i] = ch;
	}
	return true;
}

/* A bigger map, if the cache wants one; false if it could not be had. */
static bool add_map(struct kjit_grow *g, struct kjit_cache *c)
{
	u32 slots = kjit_cache_map_wanted(c);
	struct kjit_centry *map;

	if (!slots)
		return true;
	map = vzalloc(array_size(slots, sizeof(*map)));
	if (!map)
		return false;
	g->bytes += (u64)slots * sizeof(*map);
	/* stable: the map changes only by adopting what is offered here */
	g->retire_slots = READ_ONCE(c->map_mask) + 1;
	kjit_cache_offer_map(c, map, slots);
	return true;
}

static void grow_work(struct kjit_worker *w)
{
	struct kjit_grow *g = container_of(w, struct kjit_grow, worker);
	struct kjit_cache *c = g->cache;
	struct kjit_centry *old = kjit_cache_retired_map(c);

	if (old) {
		vfree(old);
		g->bytes -= (u64)g->retire_slots * sizeof(*old);
	}
	if (!add_chunks(g, c, kjit_cache_chunks_wanted(c)) || !add_map(g, c))
		g->failed++;
}

int kjit_grow_first(struct kjit_grow *g, struct kjit_cache_mem *m,
		    u32 max_blocks)
{
	memset(g, 0, sizeof(*g));
	kjit_worker_init(&g->worker, grow_work);
	g->dir_len = kjit_cache_dir_len(max_blocks);
	g->dir = kvcalloc(g->dir_len, sizeof(*g->dir), GFP_KERNEL);
	if (!g->dir)
		return -ENOMEM;
	g->bytes = g->dir_len * sizeof(*g->dir);
	m->chunks = g->dir;
	m->max_blocks = max_blocks;
	m->map_slots = first_map_slots(max_blocks);
	m->map_max_slots = max_map_slots(max_blocks);
	m->map = vzalloc(array_size(m->map_slots, sizeof(*m->map)));
	if (!m->map)
		return -ENOMEM;
	g->bytes += (u64)m->map_slots * sizeof(*m->map);
	return add_chunks(g, NULL, first_chunks(max_blocks)) ? 0 : -ENOMEM;
}

void kjit_grow_start(struct kjit_grow *g, struct kjit_cache *c)
{
	g->cache = c;
	kjit_worker_start(&g->worker);
}

void kjit_grow_kick(struct kjit_grow *g)
{
	kjit_worker_ask(&g->worker);
}

void kjit_grow_stop(struct kjit_grow *g)
{
	kjit_worker_stop(&g->worker);
}

void kjit_grow_free(struct kjit_grow *g, struct kjit_cache *c,
		    struct kjit_cache_mem *m)
{
	u32 i;

	for (i = 0; g->dir && i < g->dir_len; i++)
		vfree(g->dir[i]);
	kvfree(g->dir);
	g->dir = NULL;
	if (c) {
		vfree(c->map);
		vfree(c->next_map);
		vfree(c->old_map);
		c->map = c->next_map = c->old_map = NULL;
	} else if (m) {
		vfree(m->map);
		m->map = NULL;
	}
	g->bytes = 0;
}
