/* blockmap.c - the per-cache hash from original address to translation and
 * pending links.
 *
 * Invariants:
 *  - Open addressing with linear probing; entries are never removed, so a
 *    probe stops at the first empty slot.
 *  - The map is kept at most half full (kjit_cache_init checks the sizes),
 *    so a probe always ends.
 */
#include "codecache/cache.h"
#include "codecache/blockmap.h"

static u32 hash_addr(u64 a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdull;
	a ^= a >> 33;
	return (u32)a;
}

struct kjit_centry *kjit_map_find(const struct kjit_cache *c, u64 orig)
{
	u32 i = hash_addr(orig) & c->map_mask;

	while (c->map[i].orig) {
		if (c->map[i].orig == orig)
			return &c->map[i];
		i = (i + 1) & c->map_mask;
	}
	return NULL;
}

struct kjit_centry *kjit_map_get(struct kjit_cache *c, u64 orig, u32 *used)
{
	u32 i = hash_addr(orig) & c->map_mask;

	while (c->map[i].orig) {
		if (c->map[i].orig == orig)
			return &c->map[i];
		i = (i + 1) & c->map_mask;
	}
	/* Keep the load factor at or below 1/2. */
	if (*used + 1 > (c->map_mask + 1) / 2)
		return NULL;
	(*used)++;
	c->map[i].orig = orig;
	return &c->map[i];
}
