/* cache.h - one CPU's code cache: code bytes, counters, the block map
 * (original address -> translation) and pending links.
 *
 * Memory is handed in by the caller (kmod/ in the kernel, tests/ on the
 * host); this file allocates nothing and calls no kernel or libc function.
 *
 *   code area   [run | rw alias]  bump-allocated, 16-aligned blocks,
 *                                 unused bytes stay int3; when it is full,
 *                                 the optional more_code() hands out the
 *                                 next area (kmod/: a chunk of the code
 *                                 pool in kjit_pool.ko)
 *   counters    u64[max_blocks]   counter i belongs to block i (shared by
 *                                 CPUs: `lock incq`; an env may count
 *                                 elsewhere - kmod/ uses per-CPU memory)
 *   chunks      directory of struct kjit_chunk: block i is in chunk
 *               i / KJIT_CHUNK_BLOCKS, pending link p in chunk
 *               p / KJIT_CHUNK_PENDING; blocks published in order
 *   map         open-addressing hash, orig -> (block+1, pending+1)
 *   stage       one block's bytes while the translator writes them
 *
 * Growing. The directory has room for max_blocks from the start, but its
 * chunks may come later: a grower (kmod/grow.c; the tests fill them all
 * up front) asks kjit_cache_chunks_wanted() and kjit_cache_map_wanted()
 * what the cache wants next - room for KJIT_GROW_AHEAD more blocks - and
 * hands it in with kjit_cache_offer_chunk() and kjit_cache_offer_map(). A
 * block whose chunk has not come yet is refused with KJIT_R_NO_SPACE and
 * counted in stats.growing (the grower was late), never in table_full.
 * A bigger map is adopted by the owner at its next kjit_cache_add()
 * (entries rehashed; the old array then belongs to the grower again:
 * kjit_cache_retired_map()).
 *
 * Invariants:
 *  - Only the owning CPU modifies a cache, with preemption disabled and never
 *    re-entered (the dispatcher's busy flag); any CPU may execute its code.
 *  - n_blocks is published with release semantics after the block, its map
 *    entry and its links are complete; readers on other CPUs load it with
 *    acquire and may read blocks 0..n_blocks-1 (kjit_cache_block()) and
 *    their counters.
 *  - A directory entry goes from NULL to its chunk once (release store by
 *    the grower, acquire load by the owner) and stays until the cache is
 *    freed; the map is read and written by the owner only, so only the
 *    owner swaps it.
 *  - An exit is linked only to a block of the same cache, or to original
 *    code: a target outside the instrumented functions (translatable), or
 *    one whose refusal lasts (kjit_reason_lasts: the map remembers it as
 *    native, so it is translated once, not at every visit); an unlinked
 *    exit always reaches the dispatcher through its stub.
 *  - A block is never freed or moved while the cache lives.
 *  - Every code area lies above the areas before it, so blocks lie in
 *    address order (kjit_cache_return_site() searches them so), and all
 *    areas share one writable alias: rw - run is the same for each, so
 *    code_rw + (run - code_run) is the writable address of any block.
 *  - place(), when set, has accepted a block's side tables (kmod/: its
 *    ORC and exception-table entries) before its code is written, and a
 *    block it refuses goes to the next area, translated anew there.
 *  - The translator never writes the code area: it emits into stage
 *    (ordinary memory), and the finished block goes into the code area in
 *    aligned 8-byte stores, the bytes past its end up to the next 8 being
 *    int3 as before. Under QEMU TCG every store into a page holding code
 *    that has run takes the self-modifying-code slow path; byte-at-a-time
 *    emission there cost more than the translation itself
 *    (docs/results/translate-guest.md).
 */
#ifndef KJIT_CODECACHE_CACHE_H
#define KJIT_CODECACHE_CACHE_H

#include "jit/translate.h"

/* One translated block. */
struct kjit_cblock {
	u64 run;	     /* run-time address of its entry */
	u32 func;	     /* index of the attached function it belongs to */
	u32 linked;	     /* bit i: exit i is linked */
	struct kjit_block b; /* what the translator produced */
};

#define KJIT_CENTRY_NATIVE 0xffffffffu /* centry.block: runs natively */

struct kjit_centry {
	u64 orig;    /* 0: empty slot */
	u32 block;   /* index+1 into blocks, 0: not translated,
		      * KJIT_CENTRY_NATIVE: refused for good */
	u32 pending; /* index+1 of the first pending link, 0: none;
		      * KJIT_CENTRY_NATIVE entries: the refusal reason */
};

struct kjit_pending {
	u32 block; /* index of the block whose exit waits */
	u32 next;  /* index+1 of the next pending link, 0: end */
	u8 exit;
};

/* Blocks and pending links come in chunks (see "Growing"); a host test
 * builds with smaller ones (tests/host/host.mk, test_smp). */
#ifndef KJIT_CHUNK_SHIFT
#define KJIT_CHUNK_SHIFT 8
#endif
#define KJIT_CHUNK_BLOCKS  (1u << KJIT_CHUNK_SHIFT)
#define KJIT_CHUNK_PENDING (2 * KJIT_CHUNK_BLOCKS)
/* The room a grower keeps ahead of the blocks translated so far: ~100 ms
 * of translation under TCG (47 us a block) while the worker waits for
 * the other CPU, which may itself be deep in a translating system call
 * (1,024 was caught short by one block in one clean-clone run). */
#define KJIT_GROW_AHEAD 2048u

struct kjit_chunk {
	struct kjit_cblock block[KJIT_CHUNK_BLOCKS];
	struct kjit_pending pending[KJIT_CHUNK_PENDING];
};

/* Directory entries for @max_blocks blocks. */
static inline u32 kjit_cache_dir_len(u32 max_blocks)
{
	return (max_blocks + KJIT_CHUNK_BLOCKS - 1) >> KJIT_CHUNK_SHIFT;
}

/* Chunks, from the first, that hold KJIT_GROW_AHEAD blocks of room after
 * @n_blocks, within @dir_len. */
static inline u32 kjit_cache_chunks_ahead(u32 n_blocks, u32 dir_len)
{
	u32 want = (n_blocks + KJIT_GROW_AHEAD) / KJIT_CHUNK_BLOCKS + 1;

	return want < dir_len ? want : dir_len;
}

struct kjit_cache_stats {
	u64 translated;	  /* blocks */
	u64 links;	  /* exits linked (to translations or native code) */
	u64 native_links; /* of which straight to original code */
	u64 bytes;	  /* code bytes used, every area's */
	u64 areas;	  /* code areas taken from more_code() */
	u64 refused;	  /* kjit_translate refusals */
	u64 native;	  /* of which remembered (kjit_reason_lasts) */
	u64 full;	  /* refusals for lack of space or table room */
	u64 table_full;	  /* of which for lack of block table or map room */
	u64 growing;	  /* of which because the grower had not yet
			   * brought the next chunk or a bigger map */
	u64 maps;	  /* bigger maps adopted */
	u64 predicted;	  /* inline predictions set (kjit_cache_predict) */
};

/* Room for any block (KJIT_MAX_BLOCK_BYTES), in whole 8-byte words. */
#define KJIT_STAGE_BYTES ((KJIT_MAX_BLOCK_BYTES + 7) & ~7u)

struct kjit_cache {
	u8 *code_run;
	u8 *code_rw;
	u32 code_size;
	u32 code_used;
	u64 *counters_run; /* run-time address of counters[0] */
	u64 *counters_rw;
	u32 max_blocks;
	u32 n_blocks; /* published count, see invariants */
	struct kjit_chunk **chunks; /* [dir_len] (see "Growing") */
	u32 dir_len;
	struct kjit_centry *map;
	u32 map_mask; /* map has map_mask+1 slots, a power of two */
	u32 map_used;
	u32 map_max_slots;	      /* the most it may grow to */
	struct kjit_centry *next_map; /* offered, not yet adopted */
	u32 next_map_slots;
	struct kjit_centry *old_map; /* adopted away from, to free */
	u32 n_pending;
	struct kjit_cache_stats stats;
	/* Optional policy: false for an original address this cache will never
	 * translate (outside the instrumented functions). Direct exits to such
	 * a target are linked straight to the original code when their block
	 * is added, so leaving the instrumented code costs one jmp. */
	bool (*translatable)(void *ctx, u64 orig);
	/* Optional: the next code area once the current one is full: *run,
	 * *rw and *size of an area above every earlier one, seen through the
	 * same writable alias (invariants); false when there is none. Owning
	 * CPU, any context. */
	bool (*more_code)(void *ctx, u8 **run, u8 **rw, u32 *size);
	/* Optional: accept block @b, translated by @tr to run at @run, before
	 * its code is written: record what the block needs beside its code
	 * (kmod/: ORC and exception-table entries in the area's slices).
	 * false: no room for them in this area - the block goes to the next.
	 * Owning CPU, any context. */
	bool (*place)(void *ctx, const struct kjit_block *b,
		      const struct kjit_translator *tr, u64 run);
	void *ctx;
	u64 stage[KJIT_STAGE_BYTES / 8]; /* see invariants */
};

/* Memory for one cache: a zeroed directory of kjit_cache_dir_len(max_blocks)
 * entries, none, some or all of them filled with zeroed chunks; a zeroed
 * map of map_slots, a power of two, at most map_max_slots (0: map_slots),
 * also a power of two, at least 2 x max_blocks. */
struct kjit_cache_mem {
	u8 *code_run, *code_rw;
	u32 code_size;
	u64 *counters_run, *counters_rw;
	struct kjit_chunk **chunks;
	u32 max_blocks;
	struct kjit_centry *map;
	u32 map_slots, map_max_slots;
};

/* Returns 0, or -1 if @m is inconsistent. The code area may be empty
 * (code_size 0) when more_code() is set before the first
 * kjit_cache_add(). */
int kjit_cache_init(struct kjit_cache *c, const struct kjit_cache_mem *m);

/* Block @i (below max_blocks, its chunk present: any published block). */
static inline struct kjit_cblock *kjit_cache_block(const struct kjit_cache *c,
						   u32 i)
{
	return &c->chunks[i >> KJIT_CHUNK_SHIFT]
		    ->block[i & (KJIT_CHUNK_BLOCKS - 1)];
}

/*
 * The grower's side ("Growing"): any CPU, concurrently with the owner, one
 * grower at a time. kjit_cache_chunks_wanted() is how many directory
 * entries, from the first, should be filled by now; kjit_cache_map_wanted()
 * the map size wanted, 0 when the map is big enough, at its limit, or an
 * offered map is not yet adopted or its predecessor not yet taken back.
 * kjit_cache_offer_chunk() fills empty entry @i; kjit_cache_offer_map()
 * hands in a zeroed map of @slots (a power of two, above the current
 * size). kjit_cache_retired_map() gives back a map the owner has left, or
 * NULL. kjit_cache_wants_room() is what the owner asks after an add: does
 * the grower have work?
 */
u32 kjit_cache_chunks_wanted(const struct kjit_cache *c);
u32 kjit_cache_map_wanted(const struct kjit_cache *c);
void kjit_cache_offer_chunk(struct kjit_cache *c, u32 i, struct kjit_chunk *ch);
void kjit_cache_offer_map(struct kjit_cache *c, struct kjit_centry *map,
			  u32 slots);
struct kjit_centry *kjit_cache_retired_map(struct kjit_cache *c);
bool kjit_cache_wants_room(const struct kjit_cache *c);

/* Run-time address of the translation of @orig, or 0. Owning CPU only. */
u64 kjit_cache_lookup(const struct kjit_cache *c, u64 orig);
/* True when @orig was refused for good in this cache and runs natively
 * (see kjit_cache_add). Owning CPU only. */
bool kjit_cache_native(const struct kjit_cache *c, u64 orig);

/* Counter address the translator should use for the block about to be
 * translated (the next block index): for kjit_env.counter. */
u64 kjit_cache_next_counter(const struct kjit_cache *c);

/*
 * kjit_cache_add - translate the block at @orig into the cache with @tr (whose
 * env hands out kjit_cache_next_counter() for it), publish it, link its direct
 * exits to translated targets and link exits that were waiting for @orig.
 * Returns KJIT_OK and *run, or the refusal reason (KJIT_R_NO_SPACE also when
 * the block table, map or pending list is full). A refusal that lasts
 * (kjit_reason_lasts) is remembered: exits waiting for @orig, and exits
 * added later, are linked straight to @orig, and kjit_cache_native() says
 * so; a later call for @orig returns the same reason without translating.
 * Owning CPU only. Does not flush anything: x86 keeps instruction fetch
 * coherent with stores.
 */
enum kjit_reason kjit_cache_add(struct kjit_cache *c,
				struct kjit_translator *tr, u64 orig, u32 func,
				u64 *run);

/*
 * kjit_cache_return_site - the original return address that the cache
 * address @a stands for, when @a is exactly the return address pushed by a
 * call that ends a translated block (native-call mode: a callee returns into
 * the cache there); 0 for any other address, the middle of a block
 * included. Resuming natively at the returned address is equivalent to
 * resuming at @a: both are "just after the call". Any CPU; reads only
 * published blocks.
 */
u64 kjit_cache_return_site(const struct kjit_cache *c, u64 a);

/*
 * kjit_cache_fault_site - the original instruction that the cache address
 * @a stands for, when @a is exactly the copy of an instruction with an
 * exception-table entry (kjit_block.fix_off): where a fault raised there
 * (a user copy's, which may sleep) saved its IP. The copy runs with the
 * original's registers, flags and stack, and faults and is fixed up as it
 * does, so resuming at the returned address after the fault is equivalent
 * to resuming at @a. 0 for any other address. Any CPU; reads only
 * published blocks.
 */
u64 kjit_cache_fault_site(const struct kjit_cache *c, u64 a);

/*
 * kjit_cache_predict - a followed indirect call whose return address in
 * this cache is exactly @ret (so [rsp+8] at the dispatcher, when the exit
 * was that call's) went to @target, whose continuation is @dest: fill the
 * next empty way of the call's inline prediction (jit/flow.c) with it.
 * Ways stay filled, so a CPU never sees one target's immediate with
 * another's continuation. The immediate is written first, then the je's
 * rel32 (kjit_pred_patch), each a 4-aligned 4-byte store through the
 * writable alias: a CPU running the site meanwhile sees the way empty, or
 * the target with the rel 0 that goes on to the next way and then the
 * dispatcher path, or both set. Nothing is set unless @target fits the
 * sign-extended imm32, no way has it, a way is empty and @dest is in
 * rel32 reach. @ret may be any word: only an exact return address of a
 * block with a prediction site counts. True if set now. Owning CPU only.
 */
bool kjit_cache_predict(struct kjit_cache *c, u64 ret, u64 target, u64 dest);

/*
 * kjit_cache_predict_jump - the same for an indirect jmp's prediction
 * (predict_indirect_jumps): the site whose miss path is at @site in this
 * cache (what that path stored at kjit_env.jsite_gs + 8) went to @target:
 * fill its next empty way with -@target and @dest (kjit_jpred_patch), the
 * lea's disp32 first, then the hit stub's rel32 - until then the way's
 * hit goes on to the miss path. Once the last way is filled, or @target
 * cannot be (a target a way has, or one no disp32 negates), the site's
 * name in its miss path becomes 0: it learns no more. @site may be any
 * word: only the exact miss path of a block with such a site counts.
 * True if set now. Owning CPU only.
 */
bool kjit_cache_predict_jump(struct kjit_cache *c, u64 site, u64 target,
			     u64 dest);

/* Published block count (acquire): for readers on any CPU. */
static inline u32 kjit_cache_count(const struct kjit_cache *c)
{
	return __atomic_load_n(&c->n_blocks, __ATOMIC_ACQUIRE);
}

/* Writable address of run-time address @run of any block of @c. */
static inline u8 *kjit_cache_rw(const struct kjit_cache *c, u64 run)
{
	return c->code_rw + (run - (u64)(unsigned long)c->code_run);
}

/*
 * kjit_cache_link - point exit @exit of block @bi at run-time address @dest
 * (a translation in the same cache): one compare-and-exchange of the aligned
 * rel32 field through the writable alias, checked against the unlinked
 * value. Returns KJIT_OK, KJIT_R_BRANCH_FAR, or KJIT_R_BAD_ARG if the field
 * did not hold what it should (nothing is written then).
 */
enum kjit_reason kjit_cache_link(struct kjit_cache *c, u32 bi, unsigned exit,
				 u64 dest);

#endif
