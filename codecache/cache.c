/* cache.c - translate a block into one CPU's cache and publish it
 * (invariants in cache.h).
 */
#include "codecache/cache.h"
#include "codecache/blockmap.h"

#define KJIT_BLOCK_ALIGN 16

static bool pow2(u32 v)
{
	return v && !(v & (v - 1));
}

int kjit_cache_init(struct kjit_cache *c, const struct kjit_cache_mem *m)
{
	u32 max_slots = m->map_max_slots ? m->map_max_slots : m->map_slots;

	if ((m->code_size && (!m->code_run || !m->code_rw)) || !m->chunks ||
	    !m->map || !m->counters_run || !m->counters_rw || !m->max_blocks ||
	    !pow2(m->map_slots) || !pow2(max_slots) ||
	    max_slots < m->map_slots || max_slots < 2 * m->max_blocks)
		return -1;
	*c = (struct kjit_cache){
	    .code_run = m->code_run,
	    .code_rw = m->code_rw,
	    .code_size = m->code_size,
	    .counters_run = m->counters_run,
	    .counters_rw = m->counters_rw,
	    .max_blocks = m->max_blocks,
	    .chunks = m->chunks,
	    .dir_len = kjit_cache_dir_len(m->max_blocks),
	    .map = m->map,
	    .map_mask = m->map_slots - 1,
	    .map_max_slots = max_slots,
	};
	return 0;
}

u64 kjit_cache_lookup(const struct kjit_cache *c, u64 orig)
{
	const struct kjit_centry *e = kjit_map_find(c, orig);

	return e && e->block && e->block != KJIT_CENTRY_NATIVE
		   ? kjit_cache_block(c, e->block - 1)->run
		   : 0;
}

/* Pending link @p, if its chunk has come. */
static struct kjit_pending *pending_at(const struct kjit_cache *c, u32 p)
{
	struct kjit_chunk *ch;
	u32 i = p / KJIT_CHUNK_PENDING;

	if (i >= c->dir_len)
		return NULL;
	ch = __atomic_load_n(&c->chunks[i], __ATOMIC_ACQUIRE);
	return ch ? &ch->pending[p % KJIT_CHUNK_PENDING] : NULL;
}

bool kjit_cache_native(const struct kjit_cache *c, u64 orig)
{
	const struct kjit_centry *e = kjit_map_find(c, orig);

	return e && e->block == KJIT_CENTRY_NATIVE;
}

u64 kjit_cache_next_counter(const struct kjit_cache *c)
{
	return (u64)(unsigned long)(c->counters_run + c->n_blocks);
}

/* Where a linked exit enters block @cb: a direct branch skips the endbr64
 * that only an indirect one needs (kjit_block.direct_off). */
static u64 direct_entry(const struct kjit_cblock *cb)
{
	return cb->run + cb->b.direct_off;
}

/* Link exit @x of new block @bi now if its target is translated, else queue
 * it on the target's pending list. */
static enum kjit_reason link_or_queue(struct kjit_cache *c, u32 bi, unsigned x)
{
	const struct kjit_exit *ex = &kjit_cache_block(c, bi)->b.exit[x];
	struct kjit_centry *t;
	struct kjit_pending *p;

	if (ex->kind != KJIT_EXIT_DIRECT)
		return KJIT_OK;
	if (c->translatable && !c->translatable(c->ctx, ex->target)) {
		enum kjit_reason r = kjit_cache_link(c, bi, x, ex->target);

		c->stats.native_links += r == KJIT_OK;
		return r;
	}
	t = kjit_map_get(c, ex->target, &c->map_used);
	if (!t)
		return KJIT_R_NO_SPACE;
	if (t->block == KJIT_CENTRY_NATIVE) {
		enum kjit_reason r = kjit_cache_link(c, bi, x, ex->target);

		c->stats.native_links += r == KJIT_OK;
		return r;
	}
	if (t->block)
		return kjit_cache_link(
		    c, bi, x, direct_entry(kjit_cache_block(c, t->block - 1)));
	p = pending_at(c, c->n_pending);
	if (!p)
		return KJIT_OK; /* stays unlinked: correct, only slower */
	p->block = bi;
	p->exit = (u8)x;
	p->next = t->pending;
	t->pending = ++c->n_pending;
	return KJIT_OK;
}

/* Link every exit that waited for @e's block to @run, then drop the list.
 * Returns how many were linked. */
static u32 link_waiting(struct kjit_cache *c, struct kjit_centry *e, u64 run)
{
	u32 i = e->pending, n = 0;

	while (i) {
		const struct kjit_pending *p = pending_at(c, i - 1);

		n += kjit_cache_link(c, p->block, p->exit, run) == KJIT_OK;
		i = p->next;
	}
	e->pending = 0;
	return n;
}

static u32 align_up(u32 v, u32 a)
{
	return (v + a - 1) & ~(a - 1);
}

/* Move to the next code area (more_code); the rest of the current one
 * stays int3. False if there is none. */
static bool next_area(struct kjit_cache *c)
{
	u8 *run, *rw;
	u32 size;

	if (!c->more_code || !c->more_code(c->ctx, &run, &rw, &size) || !size)
		return false;
	c->code_run = run;
	c->code_rw = rw;
	c->code_size = size;
	c->code_used = 0;
	c->stats.areas++;
	return true;
}

/* Copy the staged block (@len bytes) to offset @at of the code area in
 * 8-byte stores (at is 16-aligned): the last word is completed with int3,
 * which the code area holds there already; a code area whose size is not a
 * multiple of 8 gets its last bytes one at a time. volatile: the compiler
 * must not turn the loops into a memcpy(), which may store byte by byte. */
static void put_block(struct kjit_cache *c, u32 at, u32 len)
{
	u8 *stage = (u8 *)c->stage;
	u32 i, end = align_up(len, 8);

	if (end > c->code_size - at)
		end = len;
	for (i = len; i < end; i++)
		stage[i] = KX86_OP_INT3;
	for (i = 0; i + 8 <= end; i += 8)
		*(volatile u64 *)(c->code_rw + at + i) = c->stage[i / 8];
	for (; i < end; i++)
		*(volatile u8 *)(c->code_rw + at + i) = stage[i];
}

/* Translate @orig into the current area at the first free aligned offset,
 * moving once to the next area when the rest of this one cannot hold the
 * block or its side tables (place). On KJIT_OK *at is where it goes. */
static enum kjit_reason translate_into_area(struct kjit_cache *c,
					    struct kjit_translator *tr,
					    u64 orig, struct kjit_block *b,
					    u32 *at)
{
	enum kjit_reason r = KJIT_R_NO_SPACE;
	bool moved = false;
	u32 cap;
	u64 run;

	for (;;) {
		*at = align_up(c->code_used, KJIT_BLOCK_ALIGN);
		cap = *at < c->code_size ? c->code_size - *at : 0;
		if (cap > KJIT_STAGE_BYTES)
			cap = KJIT_STAGE_BYTES;
		if (cap) {
			run = (u64)(unsigned long)(c->code_run + *at);
			r = kjit_translate(tr, orig, (u8 *)c->stage, cap, run,
					   b);
			if (!r && c->place && !c->place(c->ctx, b, tr, run))
				r = KJIT_R_NO_SPACE;
			/* a refusal of its own, or no room in a whole
			 * stage: another area would not help */
			if (r != KJIT_R_NO_SPACE ||
			    (cap == KJIT_STAGE_BYTES && !c->place))
				return r;
		}
		if (moved || !next_area(c))
			return r;
		moved = true;
	}
}

/* No room for one more block (or its map entry): count why. A table at
 * its limit is full; one that may still grow waits for the grower. */
static enum kjit_reason no_room(struct kjit_cache *c, bool limit)
{
	c->stats.full++;
	if (limit)
		c->stats.table_full++;
	else
		c->stats.growing++;
	return KJIT_R_NO_SPACE;
}

/* The map's entry for @orig, new or old; NULL with the reason counted. */
static struct kjit_centry *map_entry(struct kjit_cache *c, u64 orig,
				     enum kjit_reason *r)
{
	struct kjit_centry *e = kjit_map_get(c, orig, &c->map_used);

	if (!e)
		*r = no_room(c, c->map_mask + 1 >= c->map_max_slots);
	return e;
}

enum kjit_reason kjit_cache_add(struct kjit_cache *c,
				struct kjit_translator *tr, u64 orig, u32 func,
				u64 *run)
{
	u32 at, bi = c->n_blocks;
	struct kjit_cblock *cb;
	struct kjit_centry *e;
	enum kjit_reason r;
	unsigned x;

	kjit_map_adopt(c);
	if (bi >= c->max_blocks)
		return no_room(c, true);
	if (!__atomic_load_n(&c->chunks[bi >> KJIT_CHUNK_SHIFT],
			     __ATOMIC_ACQUIRE))
		return no_room(c, false);
	cb = kjit_cache_block(c, bi);
	e = map_entry(c, orig, &r);
	if (!e)
		return r;
	if (e->block == KJIT_CENTRY_NATIVE)
		return e->pending; /* the remembered reason (below) */
	if (e->block) {
		*run = kjit_cache_block(c, e->block - 1)->run;
		return KJIT_OK;
	}
	r = translate_into_area(c, tr, orig, &cb->b, &at);
	if (r) {
		c->stats.refused += r != KJIT_R_NO_SPACE || at < c->code_size;
		c->stats.full += r == KJIT_R_NO_SPACE;
		if (kjit_reason_lasts(r)) {
			/* run natively from now on: no exit waits any more,
			 * and the free pending field keeps the reason */
			c->stats.native_links += link_waiting(c, e, orig);
			c->stats.native++;
			e->block = KJIT_CENTRY_NATIVE;
			e->pending = r;
		}
		return r;
	}
	put_block(c, at, cb->b.len);
	cb->run = (u64)(unsigned long)(c->code_run + at);
	cb->func = func;
	cb->linked = 0;
	c->counters_rw[bi] = 0;
	c->stats.bytes += at + cb->b.len - c->code_used;
	c->code_used = at + cb->b.len;
	for (x = 0; x < cb->b.n_exits; x++)
		link_or_queue(c, bi, x);
	e->block = bi + 1;
	link_waiting(c, e, direct_entry(cb));
	c->stats.translated++;
	__atomic_store_n(&c->n_blocks, bi + 1, __ATOMIC_RELEASE);
	*run = cb->run;
	return KJIT_OK;
}

/* Index + 1 of the last published block whose entry is at or below @a
 * (blocks lie in the cache in address order), 0 if none. */
static u32 block_at_or_below(const struct kjit_cache *c, u64 a)
{
	u32 lo = 0, hi = kjit_cache_count(c), mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (kjit_cache_block(c, mid)->run <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Fill a way: the compared value first; until its continuation lands, the
 * way's hit goes on (jit/exit.h). */
static void fill_way(struct kjit_cache *c, u8 *rw, u32 imm_off, u32 imm,
		     u32 rel_off, u32 rel)
{
	__atomic_store_n((u32 *)(rw + imm_off), imm, __ATOMIC_RELEASE);
	__atomic_store_n((u32 *)(rw + rel_off), rel, __ATOMIC_RELEASE);
	c->stats.predicted++;
}

/* The published block whose run-time address range holds @a, or NULL. */
static const struct kjit_cblock *block_holding(const struct kjit_cache *c,
					       u64 a)
{
	u32 i = block_at_or_below(c, a);

	return i && c->code_rw ? kjit_cache_block(c, i - 1) : NULL;
}

bool kjit_cache_predict(struct kjit_cache *c, u64 ret, u64 target, u64 dest)
{
	const struct kjit_cblock *cb = block_holding(c, ret);
	u32 imm_off, imm, rel_off, rel;
	u8 *rw;

	if (!cb || !cb->b.ret_off || ret != cb->run + cb->b.ret_off)
		return false;
	rw = kjit_cache_rw(c, cb->run);
	if (kjit_pred_patch(cb->b.pred_imm_off, cb->b.pred_jmp_off, cb->run, rw,
			    target, dest, &imm_off, &imm, &rel_off, &rel))
		return false;
	fill_way(c, rw, imm_off, imm, rel_off, rel);
	return true;
}

bool kjit_cache_predict_jump(struct kjit_cache *c, u64 site, u64 target,
			     u64 dest)
{
	const struct kjit_cblock *cb = block_holding(c, site);
	u32 imm_off = 0, imm, rel_off, rel;
	u8 *rw;
	bool set;

	if (!cb || !cb->b.jsite_off || site != cb->run + cb->b.jsite_off)
		return false;
	rw = kjit_cache_rw(c, cb->run);
	set =
	    !kjit_jpred_patch(cb->b.pred_imm_off, cb->b.pred_jmp_off, cb->run,
			      rw, target, dest, &imm_off, &imm, &rel_off, &rel);
	if (set)
		fill_way(c, rw, imm_off, imm, rel_off, rel);
	/* the last way, or a target no way can hold: the site learns no
	 * more, and its misses stop naming it (jit/exit.h) */
	if (!set || imm_off == cb->b.pred_imm_off + KJIT_JPRED_WAY_STRIDE *
							(KJIT_PRED_WAYS - 1u))
		__atomic_store_n(
		    (u32 *)(rw + cb->b.jsite_off + KJIT_JSITE_IMM_OFF), 0,
		    __ATOMIC_RELEASE);
	return set;
}

u64 kjit_cache_fault_site(const struct kjit_cache *c, u64 a)
{
	u32 i = block_at_or_below(c, a);
	const struct kjit_cblock *cb;

	if (!i)
		return 0;
	cb = kjit_cache_block(c, i - 1);
	if (cb->b.fix_insn == 0xff || a != cb->run + cb->b.fix_off)
		return 0;
	return cb->b.orig + cb->b.fix_orig_off;
}

u64 kjit_cache_return_site(const struct kjit_cache *c, u64 a)
{
	u32 i = block_at_or_below(c, a);
	const struct kjit_cblock *cb;

	if (!i)
		return 0;
	cb = kjit_cache_block(c, i - 1);
	if (!cb->b.ret_off || a != cb->run + cb->b.ret_off)
		return 0;
	return cb->b.orig + cb->b.orig_len;
}
