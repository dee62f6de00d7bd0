/* grow.c - the grower's side of a cache that grows (cache.h, "Growing"):
 * what the cache wants next, and taking it in. Any CPU, concurrently with
 * the owner; one grower per cache at a time.
 *
 * Invariants:
 *  - Directory entries are filled in order, once each (release store); the
 *    owner reads them with acquire before it writes into a chunk.
 *  - A map is offered only while neither an offered map nor a retired one
 *    is outstanding, so next_map and old_map each have one writer at a
 *    time: next_map the grower (set) then the owner (clear), old_map the
 *    owner (set) then the grower (clear).
 */
#include "codecache/cache.h"

static u32 load_u32(const u32 *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

u32 kjit_cache_chunks_wanted(const struct kjit_cache *c)
{
	u32 want = kjit_cache_chunks_ahead(kjit_cache_count(c), c->dir_len);

	/* pending links are taken in order too, two per block on average:
	 * keep the chunk of the next ones as well */
	u32 pend = load_u32(&c->n_pending) / KJIT_CHUNK_PENDING + 1;

	if (want < pend)
		want = pend < c->dir_len ? pend : c->dir_len;
	return want;
}

static u32 pow2_at_least(u32 v)
{
	u32 p = 1;

	while (p < v && p < (1u << 31))
		p <<= 1;
	return p;
}

u32 kjit_cache_map_wanted(const struct kjit_cache *c)
{
	u32 slots = load_u32(&c->map_mask) + 1, used, want;

	if (__atomic_load_n(&c->next_map, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&c->old_map, __ATOMIC_ACQUIRE))
		return 0;
	/* kept at most half full: grow once fewer than KJIT_GROW_AHEAD
	 * entries are left, to room for twice that many more (a block and
	 * the targets of its exits) */
	used = load_u32(&c->map_used);
	if (2 * (u64)(used + KJIT_GROW_AHEAD) <= slots)
		return 0;
	want = pow2_at_least(2 * (used + 2 * KJIT_GROW_AHEAD));
	if (want > c->map_max_slots)
		want = c->map_max_slots;
	return want > slots ? want : 0;
}

void kjit_cache_offer_chunk(struct kjit_cache *c, u32 i, struct kjit_chunk *ch)
{
	if (i < c->dir_len && !c->chunks[i])
		__atomic_store_n(&c->chunks[i], ch, __ATOMIC_RELEASE);
}

void kjit_cache_offer_map(struct kjit_cache *c, struct kjit_centry *map,
			  u32 slots)
{
	c->next_map_slots = slots;
	__atomic_store_n(&c->next_map, map, __ATOMIC_RELEASE);
}

struct kjit_centry *kjit_cache_retired_map(struct kjit_cache *c)
{
	struct kjit_centry *old =
	    __atomic_load_n(&c->old_map, __ATOMIC_ACQUIRE);

	if (old)
		__atomic_store_n(&c->old_map, NULL, __ATOMIC_RELEASE);
	return old;
}

bool kjit_cache_wants_room(const struct kjit_cache *c)
{
	u32 want = kjit_cache_chunks_wanted(c);

	return (want &&
		!__atomic_load_n(&c->chunks[want - 1], __ATOMIC_ACQUIRE)) ||
	       kjit_cache_map_wanted(c) ||
	       __atomic_load_n(&c->old_map, __ATOMIC_ACQUIRE);
}
