/* blockmap.c - the per-cache hash from original address to translation and
 * pending links.
 *
 * Invariants:
 *  - Open addressing with linear probing; entries are never removed, so a
 *    probe stops at the first empty slot.
 *  - The map is kept at most half full (kjit_cache_init checks the sizes),
 *    so a probe always ends.
 *  - Only the owner reads or writes it, so it moves to a bigger array
 *    (kjit_map_adopt) without telling anyone but the grower.
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

void kjit_map_adopt(struct kjit_cache *c)
{
	struct kjit_centry *old = c->map, *nu;
	u32 n = c->map_mask + 1, mask, i, j;

	nu = __atomic_load_n(&c->next_map, __ATOMIC_ACQUIRE);
	if (!nu)
		return;
	mask = c->next_map_slots - 1;
	for (i = 0; i < n; i++) {
		if (!old[i].orig)
			continue;
		j = hash_addr(old[i].orig) & mask;
		while (nu[j].orig)
			j = (j + 1) & mask;
		nu[j] = old[i];
	}
	c->map = nu;
	c->map_mask = mask;
	c->stats.maps++;
	__atomic_store_n(&c->next_map, NULL, __ATOMIC_RELAXED);
	/* the grower may free it once it sees it here */
	__atomic_store_n(&c->old_map, old, __ATOMIC_RELEASE);
}
