/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grow.h - a CPU's block table and block map grow while the session runs
 * (codecache/cache.h, "Growing"), up to the attach's max_blocks.
 *
 * The dispatcher may not allocate: it runs in any context, even under a
 * lock the code it translates holds. So growing is asked for, not done:
 *
 *   dispatcher  after kjit_cache_add(): kjit_cache_wants_room()?
 *               kjit_grow_kick(), which asks the worker (worker.h)
 *   worker      vzalloc the chunks and the map the cache wants, hand them
 *               in (kjit_cache_offer_*), vfree a map the owner retired
 *
 * kjit_grow_first() allocates the first chunks and map at attach, so a
 * cache starts with room for KJIT_GROW_AHEAD blocks, and the worker keeps
 * that much room ahead of it: a block refused because growing was late
 * (stats.growing, fallback "growing") needs a burst of more than
 * KJIT_GROW_AHEAD translations on one CPU before a worker runs.
 *
 * Invariants:
 *  - One worker per cache at a time (a work item never runs on two CPUs at
 *    once), and none before kjit_grow_start() or after
 *    kjit_grow_stop(); kjit_grow_stop() runs once no dispatcher can run.
 *  - Chunks and maps are freed only by kjit_grow_free() (a retired map by
 *    the worker: the owner never reads it again).
 */
#ifndef KJIT_KMOD_GROW_H
#define KJIT_KMOD_GROW_H

#include "codecache/cache.h"
#include "worker.h"

struct kjit_grow {
	struct kjit_cache *cache; /* set by kjit_grow_start() */
	struct kjit_worker worker;
	struct kjit_chunk **dir; /* the cache's directory */
	u32 dir_len;
	u32 retire_slots; /* size of the map the owner will retire */
	u64 bytes;	  /* chunks and maps held now, directory included */
	u64 failed;	  /* allocations that failed (tried again later) */
};

/* Bytes kjit_grow_first() takes for a cache of @max_blocks. */
size_t kjit_grow_first_bytes(u32 max_blocks);
/* Process context: the directory for @max_blocks, the first chunks and the
 * first map, into @m (memory for kjit_cache_init()). 0 or -ENOMEM. */
int kjit_grow_first(struct kjit_grow *g, struct kjit_cache_mem *m,
		    u32 max_blocks);
/* Process context, after kjit_cache_init(): growing may start. */
void kjit_grow_start(struct kjit_grow *g, struct kjit_cache *c);
/* Any context: the cache wants room; a worker will bring it. */
void kjit_grow_kick(struct kjit_grow *g);
/* Process context, once no dispatcher can run: no more growing. */
void kjit_grow_stop(struct kjit_grow *g);
/* Process context, after kjit_grow_stop(): free the chunks and maps of
 * @c (or, when the cache never started, of @m). */
void kjit_grow_free(struct kjit_grow *g, struct kjit_cache *c,
		    struct kjit_cache_mem *m);

#endif
