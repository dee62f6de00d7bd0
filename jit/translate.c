/* translate.c - the translator pipeline for one block:
 * decode -> liveness -> [endbr64] -> entry guard (deep callees, flow.c) ->
 * argument predicate (attached functions, predicate.c) -> timed entry ->
 * entry instrumentation (at the entry, or before a later instruction where
 * it is cheaper: instrument.c) -> body copy -> terminator -> stubs ->
 * literals.
 *
 * Invariants: see translate.h. Each stage lives in its own file; this one
 * only sequences them and fills the block metadata and statistics.
 */
#include "jit/predicate.h"
#include "jit/timing.h"
#include "jit/translate.h"
#include "jit/emit.h"
#include "jit/flow.h"
#include "jit/instrument.h"
#include "jit/liveness.h"

void kjit_config_default(struct kjit_config *cfg)
{
	cfg->instr = KJIT_INSTR_BLOCK_COUNT;
	cfg->live_seq = KJIT_SEQ_LAHF;
	cfg->force_live = false;
	cfg->live_depth = 2;
	cfg->ctr_move = true;
	cfg->ctr_edges = true;
	cfg->ctr_reg = KJIT_REG_DEAD;
	cfg->native_calls = false;
	cfg->follow_indirect_calls = false;
	cfg->predict_indirect_calls = false;
	cfg->predict_indirect_jumps = false;
	cfg->ibt = false;
}

enum kjit_reason kjit_translator_init(struct kjit_translator *tr,
				      const struct kjit_env *env,
				      const struct kjit_config *cfg)
{
	unsigned i;
	u8 *p = (u8 *)&tr->stats;

	if (!tr || !env || !env->read_code)
		return KJIT_R_BAD_ARG;
	tr->env = env;
	if (cfg)
		tr->cfg = *cfg;
	else
		kjit_config_default(&tr->cfg);
	if (tr->cfg.live_seq != KJIT_SEQ_PUSHF)
		tr->cfg.live_seq = KJIT_SEQ_LAHF;
	for (i = 0; i < sizeof(tr->stats); i++)
		p[i] = 0;
	for (i = 0; i < KJIT_MEMO_SETS; i++) {
		unsigned w;

		tr->memo_next[i] = 0;
		for (w = 0; w < KJIT_MEMO_WAYS; w++)
			tr->memo[i][w].len = 0;
	}
	tr->memo_cur = NULL;
	tr->zi = NULL;
	tr->zctx = NULL;
	tr->ctr_ready = false;
	tr->ctr_on_edges = false;
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&tr->dec, ZYDIS_MACHINE_MODE_LONG_64,
					   ZYDIS_STACK_WIDTH_64)))
		return KJIT_R_BAD_ARG;
	return KJIT_OK;
}

static void block_reset(struct kjit_block *blk, u64 orig)
{
	blk->orig = orig;
	blk->orig_len = blk->body_len = blk->len = 0;
	blk->direct_off = 0;
	blk->n_insns = 0;
	blk->n_exits = 0;
	blk->term = 0;
	blk->seq = KJIT_SEQ_NONE;
	blk->ctr = KJIT_CTR_NONE;
	blk->ctr_at = 0;
	blk->ctr_reg = 0xff;
	blk->live_in = 0;
	blk->ret_off = 0;
	blk->pred_imm_off = blk->pred_jmp_off = 0;
	blk->jsite_off = 0;
	blk->fix_insn = 0xff;
	blk->fix_kind = KJIT_FIXUP_NONE;
	blk->fix_off = blk->fix_land_off = blk->fix_orig_off = 0;
	blk->reason = KJIT_OK;
	blk->reason_addr = 0;
}

/* With IBT the block's own endbr64 stands for an endbr64 (or its seal) the
 * original has at the block's start: that copy would be a second nop. */
static bool redundant_endbr(const struct kjit_translator *tr,
			    const struct kjit_insn *in, unsigned i)
{
	return tr->cfg.ibt && i == 0 && in->len == KX86_ENDBR64_LEN &&
	       kx86_is_endbr(in->bytes, in->len);
}

/* Does the block counter go right before instruction @i of the block
 * (kjit_instrument_entry_at() chose pi->at; not when it is counted on the
 * edges of its jcc instead)? */
static bool counter_before(const struct kjit_translator *tr,
			   const struct kjit_point_info *pi, unsigned i)
{
	return tr->cfg.instr && !tr->ctr_on_edges && pi->at == i;
}

/* Copy every instruction but the terminator, with the entry point's
 * instrumentation before instruction pi->at when that is not 0. */
static enum kjit_reason emit_body(struct kjit_translator *tr,
				  struct kjit_emit *e,
				  const struct kjit_block_desc *d,
				  const struct kjit_point_info *pi,
				  struct kjit_block *blk)
{
	enum kjit_reason r;
	unsigned i;

	for (i = 0; i + 1 < d->n; i++) {
		kjit_emit_unwind(e, i, 0);
		if (i && counter_before(tr, pi, i)) {
			r = kjit_instrument_point(tr, e, pi, blk);
			if (r)
				return r;
		}
		if (d->insn[i].kind == KJIT_I_DROP ||
		    redundant_endbr(tr, &d->insn[i], i)) {
			blk->insn_off[i] = 0xffff;
			continue;
		}
		blk->insn_off[i] = (u16)e->pos;
		if (d->insn[i].fixup) {
			blk->fix_insn = (u8)i;
			blk->fix_kind = d->insn[i].fixup;
			blk->fix_off = (u16)e->pos;
			blk->fix_orig_off = (u16)(d->insn[i].addr - blk->orig);
		}
		r = kjit_emit_copy(e, &d->insn[i]);
		if (r) {
			blk->reason_addr = d->insn[i].addr;
			return r;
		}
	}
	return KJIT_OK;
}

/* A copied KJIT_FIXUP_EXIT instruction's landing: an exit branch to its
 * original fixup target, with the stack as the instruction had it (the
 * kernel's fixups keep the frame: objtool checks it). Reached only by a
 * fault's fixup, never by falling through. */
static enum kjit_reason emit_fixup_landing(struct kjit_emit *e,
					   const struct kjit_block_desc *d,
					   struct kjit_block *blk)
{
	static const u8 op_jmp32[] = {KX86_OP_JMP32};

	if (blk->fix_kind != KJIT_FIXUP_EXIT)
		return KJIT_OK;
	kjit_emit_unwind(e, blk->fix_insn, 0);
	blk->fix_land_off = (u16)e->pos;
	return kjit_exit_branch(e, blk, op_jmp32, 1,
				d->insn[blk->fix_insn].fixup_target);
}

/* The guard of a followed static call trampoline, against the function it
 * holds now: F for `jmp F`, NULL for a plain ret; anything else (a
 * return-0 `xor; ret`) is refused for good. */
static enum kjit_reason static_call_guard(struct kjit_translator *tr,
					  struct kjit_emit *e,
					  const struct kjit_block_desc *d,
					  u64 tramp, u64 key, u16 live)
{
	const struct kjit_insn *in = &d->insn[0];
	u64 f;

	if (d->n == 1 && in->kind == KJIT_I_JMP)
		f = in->target;
	else if (d->n == 1 && in->kind == KJIT_I_RET && !in->ret_imm)
		f = 0;
	else
		return KJIT_R_STATIC_CALL_TRAMP;
	return kjit_flow_emit_static_call_guard(tr, e, tramp, key, f, live);
}

static enum kjit_reason translate(struct kjit_translator *tr,
				  struct kjit_emit *e, struct kjit_block *blk)
{
	struct kjit_block_desc *d = &tr->desc;
	struct kjit_point_info pi = {KJIT_POINT_ENTRY, blk->orig, 0, 0, 0, 0};
	enum kjit_reason r;
	struct kjit_pred pred;
	bool guard, has_pred;
	u64 sc_key;

	r = kjit_decode_block(tr, blk->orig, d);
	if (r) {
		blk->reason_addr = d->reason_addr;
		return r;
	}
	blk->n_insns = (u16)d->n;
	blk->orig_len = (u32)(d->end - d->start);
	guard = tr->env->entry_guard &&
		tr->env->entry_guard(tr->env->opaque, blk->orig);
	sc_key = tr->env->static_call_key
		     ? tr->env->static_call_key(tr->env->opaque, blk->orig)
		     : 0;
	has_pred = tr->env->entry_pred &&
		   tr->env->entry_pred(tr->env->opaque, blk->orig, &pred);
	if (tr->cfg.instr || guard || sc_key || has_pred) {
		/* a static call trampoline is only ever called (or tail
		 * called): the arithmetic flags are dead at its entry */
		pi.live = sc_key ? 0 : kjit_live_in_block(tr, d);
		blk->live_in = pi.live;
	}
	kjit_emit_unwind(e, 0, 0);
	if (tr->cfg.ibt) {
		kjit_emit_endbr64(e);
		blk->direct_off = (u8)e->pos;
	}
	if (sc_key) {
		/* a followed static call trampoline: `jmp F` alone, a NULL
		 * one's `ret` (or jmp to the return thunk), or not now */
		r = static_call_guard(tr, e, d, blk->orig, sc_key, pi.live);
		if (r)
			return r;
	}
	if (guard) {
		/* the site follows the function's endbr64 on IBT kernels */
		u64 site = blk->orig +
			   kx86_fentry_offset(d->insn[0].bytes, d->insn[0].len);

		r = kjit_flow_emit_entry_guard(tr, e, blk->orig, site, pi.live);
		if (r)
			return r;
	}
	/* an attached function's argument predicate (jit/predicate.h):
	 * a false one runs the call natively, untimed and uncounted */
	if (has_pred) {
		r = kjit_pred_emit(e, &pred, blk->orig, pi.live != 0);
		if (r)
			return r;
	}
	/* a timed function's entry (jit/timing.h): after its guard, which
	 * sends the call native, untimed, once the kernel took the site */
	r = kjit_timing_entry(tr, e, blk->orig);
	if (r)
		return r;
	if (tr->cfg.instr) {
		r = kjit_instrument_entry_at(tr, d, &pi);
		if (!r)
			tr->ctr_on_edges = kjit_instrument_on_edges(tr, d, &pi);
		if (!r && counter_before(tr, &pi, 0))
			r = kjit_instrument_point(tr, e, &pi, blk);
		if (r)
			return r;
	}
	r = emit_body(tr, e, d, &pi, blk);
	if (r)
		return r;
	kjit_emit_unwind(e, d->n - 1, 0);
	if (d->n > 1 && counter_before(tr, &pi, d->n - 1)) {
		r = kjit_instrument_point(tr, e, &pi, blk);
		if (r)
			return r;
	}
	blk->insn_off[d->n - 1] = (u16)e->pos;
	r = kjit_flow_emit_term(tr, e, &d->insn[d->n - 1], blk);
	if (r) {
		blk->reason_addr = d->insn[d->n - 1].addr;
		return r;
	}
	if (tr->ctr_on_edges) { /* the counter follows the jcc */
		blk->seq = KJIT_SEQ_EDGES;
		blk->ctr_at = (u8)(d->n - 1);
	}
	r = emit_fixup_landing(e, d, blk);
	if (r)
		return r;
	blk->body_len = e->pos;
	kjit_emit_unwind(e, KJIT_UW_NONE, 0);
	r = kjit_exit_emit_stubs(tr, e, blk);
	if (!r)
		r = kjit_emit_literals(e);
	return r;
}

enum kjit_reason kjit_translate(struct kjit_translator *tr, u64 orig, u8 *buf,
				u32 cap, u64 run, struct kjit_block *blk)
{
	struct kjit_emit e;
	enum kjit_reason r;

	if (!tr || !buf || !blk)
		return KJIT_R_BAD_ARG;
	block_reset(blk, orig);
	tr->ctr_ready = false;
	tr->ctr_on_edges = false;
	kjit_emit_init(&e, buf, cap, run);
	e.no_indirect = tr->cfg.ibt;
	e.uw = tr->uw;
	tr->n_uw = 0;
	r = translate(tr, &e, blk);
	if (!r && e.overflow)
		r = KJIT_R_NO_SPACE;
	blk->reason = r;
	if (r) {
		tr->stats.refused[r]++;
		return r;
	}
	blk->len = e.pos;
	tr->n_uw = e.n_uw;
	tr->stats.blocks++;
	tr->stats.seq[blk->seq]++;
	tr->stats.ctr[blk->ctr][blk->seq]++;
	tr->stats.fixups[blk->fix_kind & 3]++;
	tr->stats.in_bytes += blk->orig_len;
	tr->stats.out_bytes += blk->len;
	tr->stats.body_bytes += blk->body_len;
	return KJIT_OK;
}
