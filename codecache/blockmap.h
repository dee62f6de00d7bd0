/* blockmap.h - hash of original addresses (internal to codecache/). */
#ifndef KJIT_CODECACHE_BLOCKMAP_H
#define KJIT_CODECACHE_BLOCKMAP_H

#include "codecache/cache.h"

/* The entry of @orig, or NULL. */
struct kjit_centry *kjit_map_find(const struct kjit_cache *c, u64 orig);
/* The entry of @orig, created if missing (*used counts entries); NULL when
 * the map is full. */
struct kjit_centry *kjit_map_get(struct kjit_cache *c, u64 orig, u32 *used);

/* Owner: move to the bigger map a grower offered, if any (its entries
 * rehashed into it); the old one waits in old_map for the grower. */
void kjit_map_adopt(struct kjit_cache *c);

#endif
