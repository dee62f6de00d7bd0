/* flow.c - translated control transfers (sequences drawn in flow.h).
 *
 * Invariants: see flow.h. One emit_* helper per terminator class, chosen
 * by a table indexed by enum kjit_insn_kind.
 */
#include "jit/timing.h"
#include "jit/flow.h"
#include "jit/emit.h"
#include "jit/exit.h"
#include "jit/translate.h"
#include "jit/arch_x86.h"
#include "jit/instrument.h"
#include "jit/liveness.h"

static const u8 op_jmp32[] = {KX86_OP_JMP32};

/* Direct exit number blk->n_exits to @target: the exit instrumentation
 * point (flags liveness taken at the target; none where @c_call: a tail
 * static call's trampoline, which goes on to a C function as
 * kjit_live_after() takes it), then the patchable branch. */
static enum kjit_reason emit_exit_to(struct kjit_translator *tr,
				     struct kjit_emit *e,
				     struct kjit_block *blk, const u8 *op,
				     unsigned oplen, u64 target, bool c_call)
{
	struct kjit_point_info pi = {
	    KJIT_POINT_EXIT, blk->orig, blk->n_exits, 0, 0, 0};
	enum kjit_reason r;

	if (kjit_instrument_wants(tr, KJIT_POINT_EXIT) || tr->ctr_on_edges) {
		pi.live =
		    c_call ? 0 : kjit_live_at(tr, target, tr->cfg.live_depth);
		r = kjit_instrument_point(tr, e, &pi, blk);
		if (r)
			return r;
	}
	return kjit_exit_branch(e, blk, op, oplen, target);
}

static enum kjit_reason emit_exit(struct kjit_translator *tr,
				  struct kjit_emit *e, struct kjit_block *blk,
				  const u8 *op, unsigned oplen, u64 target)
{
	return emit_exit_to(tr, e, blk, op, oplen, target, false);
}

/* A two-way transfer as one conditional exit branch and a jmp: `jcc
 * exit(@taken); jmp exit(@fall)`, or with @invert `j!cc exit(@fall); jmp
 * exit(@taken)` (the condition's low bit negates it), so that the path
 * the caller expects runs the one branch. */
static enum kjit_reason emit_two_exits(struct kjit_emit *e,
				       struct kjit_block *blk, u8 cc,
				       bool invert, u64 taken, u64 fall)
{
	const u8 op[2] = {KX86_OP_ESC, (u8)(KX86_OP2_JCC32 | (cc ^ invert))};
	enum kjit_reason r =
	    kjit_exit_branch(e, blk, op, 2, invert ? fall : taken);

	return r ? r
		 : kjit_exit_branch(e, blk, op_jmp32, 1, invert ? taken : fall);
}

/* jcc T. Without exit instrumentation, the path the compiler made likely
 * takes one branch and the other two (backward taken, forward not taken:
 * loops branch back, while error paths and unlikely() code lie ahead; on
 * LMbench-style system calls under 6.1 this halves the jmps that jcc
 * blocks run, docs/design-jit.md):
 *   forward T:  j!cc rel32 -> exit0(fall); jmp -> exit1(T)
 *   backward T: jcc rel32 -> exit0(T); jmp -> exit1(fall)
 * With exit instrumentation, or the block counter on the edges
 * (kjit_config.ctr_edges), each edge needs its own hot path: j!cc skip; <exit0
 * point>; jmp -> exit0(T); skip: <exit1 point>; jmp -> exit1
 */
static enum kjit_reason emit_jcc(struct kjit_translator *tr,
				 struct kjit_emit *e,
				 const struct kjit_insn *in,
				 struct kjit_block *blk)
{
	/* rel8 (70+cc) and rel32 (0f 80+cc) both keep cc in the byte before rel
	 */
	u8 cc = in->bytes[in->rel_off - 1] & 0xf;
	enum kjit_reason r;
	u32 skip;

	if (!kjit_instrument_wants(tr, KJIT_POINT_EXIT) && !tr->ctr_on_edges)
		/* the likely path first, as one branch (see above) */
		return emit_two_exits(e, blk, cc, in->target > in->addr,
				      in->target, in->addr + in->len);
	kjit_emit_u8(e, KX86_OP_ESC); /* j!cc rel32 -> skip */
	kjit_emit_u8(e, (u8)(KX86_OP2_JCC32 | (cc ^ 1)));
	skip = e->pos;
	kjit_emit_u32(e, 0);
	r = emit_exit_to(tr, e, blk, op_jmp32, 1, in->target, in->static_call);
	if (r)
		return r;
	kjit_emit_put32(e, skip, e->pos - (skip + 4));
	return emit_exit(tr, e, blk, op_jmp32, 1, in->addr + in->len);
}

static enum kjit_reason emit_jmp(struct kjit_translator *tr,
				 struct kjit_emit *e,
				 const struct kjit_insn *in,
				 struct kjit_block *blk)
{
	return emit_exit_to(tr, e, blk, op_jmp32, 1, in->target,
			    in->static_call);
}

/* loop L -> [prefixes] e0..e3 rel8=+over; jmp exit(fall); over: jmp exit(T) */
static enum kjit_reason emit_loop(struct kjit_translator *tr,
				  struct kjit_emit *e,
				  const struct kjit_insn *in,
				  struct kjit_block *blk)
{
	enum kjit_reason r;
	u32 rel8_at;
	s64 d;
	unsigned i;

	for (i = 0; i < in->rel_off; i++)
		kjit_emit_u8(e, in->bytes[i]);
	rel8_at = e->pos;
	kjit_emit_u8(e, 0);
	r = emit_exit(tr, e, blk, op_jmp32, 1, in->addr + in->len);
	if (r)
		return r;
	d = (s64)e->pos - (rel8_at + 1);
	if (d > 127)
		return KJIT_R_BRANCH_FAR;
	if (rel8_at < e->cap)
		e->buf[rel8_at] = (u8)d;
	return emit_exit(tr, e, blk, op_jmp32, 1, in->target);
}

static enum kjit_reason emit_call(struct kjit_translator *tr,
				  struct kjit_emit *e,
				  const struct kjit_insn *in,
				  struct kjit_block *blk)
{
	enum kjit_reason r = kjit_emit_push_const(e, in->addr + in->len);

	kjit_emit_unwind_sp(e, 8);
	return r ? r : emit_exit(tr, e, blk, op_jmp32, 1, in->target);
}

static enum kjit_reason emit_ret(struct kjit_translator *tr,
				 struct kjit_emit *e,
				 const struct kjit_insn *in,
				 struct kjit_block *blk)
{
	u32 d = (u32)in->ret_imm - 8;

	if (in->ret_imm) {
		kjit_emit_unwind(e, KJIT_UW_NONE, 0); /* a frame half gone */
		/* pop qword [rsp+n-8]: address computed after the pop's rsp +=
		 * 8 */
		kjit_emit_u8(e, KX86_OP_POP_RM);
		kjit_emit_u8(e, KX86_MODRM(2, 0, 4));
		kjit_emit_u8(e, 0x24); /* SIB: base rsp */
		kjit_emit_u32(e, d);
		/* lea rsp, [rsp+n-8] */
		kjit_emit_u8(e, KX86_REX | KX86_REX_W);
		kjit_emit_u8(e, KX86_OP_LEA);
		kjit_emit_u8(e, KX86_MODRM(2, KX86_RSP, 4));
		kjit_emit_u8(e, 0x24);
		kjit_emit_u32(e, d);
	}
	return kjit_exit_dispatch(tr, e, blk, false);
}

static void emit_push_reg(struct kjit_emit *e, u8 reg)
{
	if (reg >= 8)
		kjit_emit_u8(e, KX86_REX | KX86_REX_B);
	kjit_emit_u8(e, KX86_OP_PUSH_R + (reg & 7)); /* push %reg */
}

/* Is the memory operand of @c rsp-based? Then fix its displacement by
 * @adj (the pushes done before it), or refuse. */
static enum kjit_reason adjust_rsp_base(struct kjit_insn *c, s32 adj)
{
	u8 mrm = c->bytes[c->modrm_off];
	u8 mod = mrm >> 6, rm = mrm & 7;
	u8 rex = c->modrm_off >= 2 ? c->bytes[c->modrm_off - 2] : 0;
	bool rex_b = (rex & 0xf0) == KX86_REX && (rex & KX86_REX_B);
	u8 *disp = &c->bytes[c->modrm_off + 2];
	s32 v;

	if (!adj || mod == 3 || rm != 4 || rex_b ||
	    (c->bytes[c->modrm_off + 1] & 7) != 4)
		return KJIT_OK;
	if (mod == 1) {
		v = (s8)disp[0] + adj;
		if (v > 127)
			return KJIT_R_RSP_CALL;
		disp[0] = (u8)v;
		return KJIT_OK;
	}
	if (mod != 2)
		return KJIT_R_RSP_CALL; /* [rsp] without displacement */
	v = (s32)((u32)disp[0] | (u32)disp[1] << 8 | (u32)disp[2] << 16 |
		  (u32)disp[3] << 24);
	if (v > 0x7fffffff - adj)
		return KJIT_R_RSP_CALL;
	v += adj;
	disp[0] = (u8)v, disp[1] = (u8)(v >> 8), disp[2] = (u8)(v >> 16),
	disp[3] = (u8)(v >> 24);
	return KJIT_OK;
}

/* push the indirect target: push %reg, or ff /6 with the original operand */
static enum kjit_reason
emit_push_target(struct kjit_emit *e, const struct kjit_insn *in, s32 rsp_adj)
{
	struct kjit_insn c;
	enum kjit_reason r;

	if (in->reg != KJIT_IND_MEM) {
		emit_push_reg(e, in->reg);
		kjit_emit_unwind_sp(e, 8);
		return KJIT_OK;
	}
	c = *in;
	c.kind = KJIT_I_PLAIN;
	c.bytes[c.modrm_off] =
	    (u8)((c.bytes[c.modrm_off] & ~0x38) | (KX86_GRP5_PUSH << 3));
	r = adjust_rsp_base(&c, rsp_adj);
	if (!r)
		r = kjit_emit_copy(e, &c);
	kjit_emit_unwind_sp(e, 8);
	return r;
}

/* gs-relative store of the 64-bit register @reg (mod 0, SIB with neither
 * base nor index: an absolute disp32 under %gs) */
static void emit_gs_store_reg(struct kjit_emit *e, int reg, u32 disp)
{
	kjit_emit_u8(e, KX86_PFX_GS);
	kjit_emit_u8(e,
		     (u8)(KX86_REX | KX86_REX_W | (reg >= 8 ? KX86_REX_R : 0)));
	kjit_emit_u8(e, KX86_OP_MOV_RM_R);
	kjit_emit_u8(e, KX86_MODRM(0, reg & 7, KX86_RM_SIB));
	kjit_emit_u8(e, KX86_SIB(0, KX86_SIB_NO_INDEX, KX86_RM_DISP32));
	kjit_emit_u32(e, disp);
}

/* movq $imm32 (sign-extended), %gs:disp32 */
static void emit_gs_store_imm(struct kjit_emit *e, u32 disp, u32 imm)
{
	kjit_emit_u8(e, KX86_PFX_GS);
	kjit_emit_u8(e, KX86_REX | KX86_REX_W);
	kjit_emit_u8(e, KX86_OP_MOV_RM_IMM32);
	kjit_emit_u8(e, KX86_MODRM(0, 0, KX86_RM_SIB));
	kjit_emit_u8(e, KX86_SIB(0, KX86_SIB_NO_INDEX, KX86_RM_DISP32));
	kjit_emit_u32(e, disp);
	kjit_emit_u32(e, imm);
}

/* Does the indirect jmp @in get an inline prediction? Through a register
 * other than %rsp (a memory operand is read once, by its push), with a
 * place to leave the site (jsite_gs) and a block address that a
 * sign-extended imm32 holds (the site's name). */
static bool jump_predicted(const struct kjit_translator *tr,
			   const struct kjit_emit *e,
			   const struct kjit_insn *in)
{
	u64 g = tr->env->jsite_gs;

	return tr->cfg.predict_indirect_jumps && g && kx86_fits_simm32(g) &&
	       kx86_fits_simm32(g + 8) && in->reg != KJIT_IND_MEM &&
	       in->reg != KX86_RSP && kx86_fits_simm32(e->base) &&
	       kx86_fits_simm32(e->base + e->cap);
}

/*
 * Indirect jmp through %reg with an inline prediction
 * (predict_indirect_jumps). Nothing proves the flags dead at an indirect
 * jmp (a computed goto may leave them live), so the ways compare without
 * touching them:
 *       push %rcx
 *   way k (KJIT_PRED_WAYS of them, KJIT_JPRED_WAY_STRIDE bytes apart):
 *       [2e..] lea disp32(%reg),%rcx  disp32 4-aligned: -P, 0 until
 *                                     kjit_jpred_patch() fills the way
 *       jrcxz H_k                     %rcx = %reg - P: 0 on a hit
 *       [2e..] pop %rcx               (aligns M's imm32)
 *   M:  movq $M,%gs:jsite_gs+8        the site's name (its run address;
 *                                     imm32 4-aligned, KJIT_JSITE_IMM_OFF
 *                                     into M: 0 once the site learns no
 *                                     more, kjit_cache_predict_jump) and
 *       mov %reg,%gs:jsite_gs         what it jumped to, for the
 *                                     dispatcher to learn from
 *       push %reg; jmp dispatcher     the indirect exit, as without
 *   H_k (KJIT_JPRED_HIT_STRIDE bytes apart):
 *       pop %rcx
 *       [2e..] jmp rel32              4-aligned: M until filled, then P's
 *                                     continuation
 * A hit runs 5 instructions (push, lea, jrcxz, pop, jmp), against 29 and
 * a mispredicted return for the lookup table's probe. An empty way's lea
 * leaves %rcx = %reg, and jrcxz takes it only for a target of 0, which
 * goes to M.
 * Through %rcx itself (6.1 has 22 `jmp __x86_indirect_thunk_rcx`), way k's
 * lea turns what way k-1 left in %rcx, not the target: the site is chained
 * and way k holds P_{k-1} - P_k (kjit_jpred_chained(), jit/exit.h), so
 * way k still leaves %rcx = target - P_k. The bytes are the same.
 */
static enum kjit_reason emit_predicted_jmp(struct kjit_translator *tr,
					   struct kjit_emit *e,
					   const struct kjit_insn *in,
					   struct kjit_block *blk)
{
	u32 jrcxz[KJIT_PRED_WAYS], m, disp = (u32)tr->env->jsite_gs;
	u64 site;
	u8 uw_insn = e->uw_insn;
	int sp = e->uw_sp, reg = in->reg;
	bool sib = (reg & 7) == KX86_RM_SIB;
	enum kjit_reason r;
	unsigned k;

	emit_push_reg(e, KX86_RCX);
	kjit_emit_unwind_sp(e, 8);
	for (k = 0; k < KJIT_PRED_WAYS; k++) {
		kjit_emit_align_rel32(e, sib ? 4 : 3);
		kjit_emit_u8(e, (u8)(KX86_REX | KX86_REX_W |
				     (reg >= 8 ? KX86_REX_B : 0)));
		kjit_emit_u8(e, KX86_OP_LEA);
		kjit_emit_u8(e, KX86_MODRM(2, KX86_RCX, reg & 7));
		if (sib)
			kjit_emit_u8(e, KX86_SIB(0, KX86_SIB_NO_INDEX, reg));
		if (!k)
			blk->pred_imm_off = (u16)e->pos;
		kjit_emit_u32(e, 0);
		kjit_emit_u8(e, KX86_OP_JRCXZ);
		jrcxz[k] = e->pos;
		kjit_emit_u8(e, 0);
	}
	kjit_emit_align_rel32(e, 1 + KJIT_JSITE_IMM_OFF); /* on the pop */
	kjit_emit_u8(e, KX86_OP_POP_R + KX86_RCX);
	kjit_emit_unwind(e, uw_insn, sp);
	m = e->pos;
	blk->jsite_off = (u16)m;
	site = kjit_emit_here(e);
	emit_gs_store_imm(e, disp + 8, (u32)site);
	emit_gs_store_reg(e, reg, disp);
	r = emit_push_target(e, in, 0);
	if (!r)
		r = kjit_exit_dispatch(tr, e, blk, false);
	for (k = 0; !r && k < KJIT_PRED_WAYS; k++) {
		if (e->pos - (jrcxz[k] + 1) > 127)
			return KJIT_R_BAD_ARG; /* cannot happen: ~80 bytes */
		if (jrcxz[k] < e->cap)
			e->buf[jrcxz[k]] = (u8)(e->pos - (jrcxz[k] + 1));
		kjit_emit_unwind(e, uw_insn, sp + 8);
		kjit_emit_u8(e, KX86_OP_POP_R + KX86_RCX);
		kjit_emit_unwind(e, uw_insn, sp);
		kjit_emit_align_rel32(e, 1);
		kjit_emit_u8(e, KX86_OP_JMP32);
		if (!k)
			blk->pred_jmp_off = (u16)e->pos;
		kjit_emit_u32(e, m - (e->pos + 4));
	}
	return r;
}

static enum kjit_reason emit_jmp_ind(struct kjit_translator *tr,
				     struct kjit_emit *e,
				     const struct kjit_insn *in,
				     struct kjit_block *blk)
{
	enum kjit_reason r;

	if (jump_predicted(tr, e, in))
		return emit_predicted_jmp(tr, e, in, blk);
	r = emit_push_target(e, in, 0);
	return r ? r : kjit_exit_dispatch(tr, e, blk, false);
}

static enum kjit_reason emit_call_ind(struct kjit_translator *tr,
				      struct kjit_emit *e,
				      const struct kjit_insn *in,
				      struct kjit_block *blk)
{
	enum kjit_reason r = kjit_emit_push_const(e, in->addr + in->len);

	kjit_emit_unwind_sp(e, 8);
	if (!r)
		r = emit_push_target(e, in, 8);
	return r ? r : kjit_exit_dispatch(tr, e, blk, true);
}

/*
 * Native-call mode (kjit_config.native_calls):
 *   call rel32               ->  call exit: e8 rel32 (4-aligned) to a stub
 *                                (push $callee; jmp dispatcher) until the
 *                                cache links it to the callee's translation
 *                                or to the original callee; jmp exit(fall)
 *   call thunk               ->  e8 rel32 (the thunk); jmp exit(fall)
 *   call *reg / call *mem    ->  the instruction, RIP-relative rebased;
 *                                jmp exit(fall)
 *   ret / ret imm16          ->  the instruction
 *   jmp __x86_return_thunk   ->  e9 rel32 (the thunk)
 * The callee, translated or not, returns into the cache right after the
 * call, so the caller's remaining blocks keep being counted.
 */
static enum kjit_reason emit_op_rel32(struct kjit_emit *e, u8 op, u64 target)
{
	kjit_emit_u8(e, op);
	return kjit_emit_rel32(e, target);
}

/*
 * Inline prediction of a followed indirect call through %reg
 * (predict_indirect_calls; the arithmetic flags are dead at a call), one
 * way per target, KJIT_PRED_WAYS of them, KJIT_PRED_STRIDE bytes apart:
 *       [2e] cmp $P,%reg   [REX.W|B] 81 /7 imm32, the imm32 4-aligned:
 *                          P = 0 until kjit_pred_patch() fills the way
 *       2e 2e je C         0f 84 rel32, 4-aligned: rel 0 (the next way)
 *                          until filled, then P's continuation
 *       ... the next way
 *   M:                     (the dispatcher path follows)
 * A loop over hooks (the LSM's, notifier chains) calls several targets
 * from one site: each fills a way, and a hit costs two instructions per
 * way tried, against ~25 for the lookup table's probe.
 */
static void emit_prediction(struct kjit_emit *e, int reg,
			    struct kjit_block *blk)
{
	unsigned k;

	for (k = 0; k < KJIT_PRED_WAYS; k++) {
		kjit_emit_align_rel32(e, 3);
		kjit_emit_u8(e, (u8)(KX86_REX | KX86_REX_W |
				     (reg >= 8 ? KX86_REX_B : 0)));
		kjit_emit_u8(e, KX86_OP_GRP1_IMM32);
		kjit_emit_u8(e, KX86_MODRM(3, KX86_GRP1_CMP, reg & 7));
		if (!k)
			blk->pred_imm_off = (u16)e->pos;
		kjit_emit_u32(e, 0);
		kjit_emit_align_rel32(e, 2);
		kjit_emit_u8(e, KX86_OP_ESC);
		kjit_emit_u8(e, KX86_OP2_JCC32 | KX86_CC_E);
		if (!k)
			blk->pred_jmp_off = (u16)e->pos;
		kjit_emit_u32(e, 0); /* rel 0: the next way */
	}
}

/*
 * Followed indirect call (native_calls + follow_indirect_calls):
 *       call L          e8 rel32: pushes the return address (the jmp below)
 *       jmp exit(fall)  where the callee returns to
 *   L:  [prediction]    through a register, with predict_indirect_calls
 *       push target     the call's operand, [rsp]-relative ones adjusted by 8
 *       jmp dispatcher  (an indirect exit: [rsp] = target, [rsp+8] = return)
 */
static enum kjit_reason emit_followed_call_ind(struct kjit_translator *tr,
					       struct kjit_emit *e,
					       const struct kjit_insn *in,
					       struct kjit_block *blk)
{
	static const u8 op_jmp[] = {KX86_OP_JMP32};
	enum kjit_reason r;
	u32 field;

	kjit_emit_u8(e, KX86_OP_CALL32);
	field = e->pos;
	kjit_emit_u32(e, 0);
	blk->ret_off = (u16)e->pos;
	r = emit_exit(tr, e, blk, op_jmp, 1, in->addr + in->len);
	if (r)
		return r;
	kjit_emit_put32(e, field, e->pos - (field + 4));
	kjit_emit_unwind(e, e->uw_insn, 8); /* L: the call's return address */
	if (tr->cfg.predict_indirect_calls && in->reg != KJIT_IND_MEM)
		emit_prediction(e, in->reg, blk);
	r = emit_push_target(e, in, 8);
	return r ? r : kjit_exit_dispatch(tr, e, blk, true);
}

/*
 * Slot of the return stack buffer filling sequence (kjit_insn.rsb_slot,
 * `call 1f; int3; 1:` in __switch_to_asm's FILL_RETURN_BUFFER):
 *       e8 01 00 00 00  call +1   a real call, so the CPU's return stack
 *       cc              int3      buffer gets an entry that traps, as the
 *                                 original's does; the pushed address (of
 *                                 this int3) is dropped by the code later
 *       jmp exit(1f)              an edge within the function
 */
static enum kjit_reason emit_rsb_slot(struct kjit_translator *tr,
				      struct kjit_emit *e,
				      const struct kjit_insn *in,
				      struct kjit_block *blk)
{
	kjit_emit_u8(e, KX86_OP_CALL32);
	kjit_emit_u32(e, 1);
	kjit_emit_u8(e, KX86_OP_INT3);
	kjit_emit_unwind_sp(e, 8);
	return emit_exit(tr, e, blk, op_jmp32, 1, in->target);
}

static enum kjit_reason emit_native_call(struct kjit_translator *tr,
					 struct kjit_emit *e,
					 const struct kjit_insn *in,
					 struct kjit_block *blk)
{
	static const u8 op_call32[] = {KX86_OP_CALL32};
	enum kjit_reason r;

	if (in->kind == KJIT_I_CALL && in->rsb_slot)
		return emit_rsb_slot(tr, e, in, blk);
	if (in->kind == KJIT_I_CALL_IND && tr->cfg.follow_indirect_calls)
		return emit_followed_call_ind(tr, e, in, blk);
	if (in->kind == KJIT_I_CALL) /* call exit: linkable, not an edge */
		r = kjit_exit_branch(e, blk, op_call32, 1, in->target);
	else if (in->rel_off) /* call to an indirect-branch thunk */
		r = emit_op_rel32(e, KX86_OP_CALL32, in->target);
	else
		r = kjit_emit_copy(e, in);
	if (r)
		return r;
	blk->ret_off = (u16)e->pos;
	return emit_exit(tr, e, blk, op_jmp32, 1, in->addr + in->len);
}

/*
 * Call that leaves the cache (kjit_insn.leave), in either call mode:
 *       push $R         the original return address
 *       jmp T           e9 rel32: the original callee, never a translation
 * The callee returns to the original code after the call, so the rest of
 * the caller runs natively and no cache address is left for anything to
 * return to: do_exit() leaves this way before exit_notify() can make the
 * dying task invisible to detach's scan of every task's stack.
 */
static enum kjit_reason emit_leave_call(struct kjit_emit *e,
					const struct kjit_insn *in)
{
	enum kjit_reason r = kjit_emit_push_const(e, in->addr + in->len);

	kjit_emit_unwind_sp(e, 8);
	return r ? r : emit_op_rel32(e, KX86_OP_JMP32, in->target);
}

/*
 * Call that would leave the cache (kjit_insn.leave) where the environment
 * lets it stay (kjit_env.stay_call; native-call mode only):
 *       call H          e8 rel32: the helper, in the callee's place
 *       jmp exit(fall)
 * H runs the original callee, which returns here, so the caller's rest
 * runs from the cache; or H makes the call leave after all, by returning
 * to the original code after the call (kmod/exittail.h says when).
 */
static enum kjit_reason emit_stay_call(struct kjit_translator *tr,
				       struct kjit_emit *e,
				       const struct kjit_insn *in,
				       struct kjit_block *blk)
{
	enum kjit_reason r =
	    emit_op_rel32(e, KX86_OP_CALL32, tr->env->stay_call);

	if (r)
		return r;
	blk->ret_off = (u16)e->pos;
	return emit_exit(tr, e, blk, op_jmp32, 1, in->addr + in->len);
}

static enum kjit_reason emit_native_ret(struct kjit_translator *tr,
					struct kjit_emit *e,
					const struct kjit_insn *in,
					struct kjit_block *blk)
{
	/* a timed function's return (jit/timing.h), right before it */
	enum kjit_reason r = kjit_timing_return(tr, e, blk->orig);

	if (r)
		return r;
	if (in->rel_off)
		return emit_op_rel32(e, KX86_OP_JMP32, in->target);
	return kjit_emit_copy(e, in);
}

/*
 * Live-patched site (KJIT_I_SITE), tested against the original each time.
 * The kernel makes a 5-byte site a jmp rel32 and a 2-byte one a jmp rel8,
 * never the other (the length it reads there decides), so one compare of
 * the first byte says which; anything else there (the nop, or int3 while
 * text_poke_bp() rewrites it) is the nop. The cmp writes the arithmetic
 * flags, so they are saved only where a successor may read them (look-ahead
 * of jit/liveness.c, as for a block's counter):
 *   flags dead, the site a nop when translated (its path first: the
 *   cmp and a jne, one instruction more than the native nop):
 *       80 3d <site> op          cmpb $op, site(%rip)  ; e9 or eb
 *       0f 85 <rel32>            jne exit(site + len)  ; the nop
 *       e9 <rel32>               jmp exit(target)      ; the jmp
 *   flags dead, the site a jmp when translated: je exit(target); jmp
 *   exit(site + len)
 *   flags live (or exit instrumentation, which needs a point per edge):
 *       [9c]                     pushfq
 *       80 3d <site> op          cmpb $op, site(%rip)
 *       74 <J>                   je J
 *       [9d]                     popfq
 *       jmp exit(site + len)
 *   J:  [9d]                     popfq
 *       jmp exit(target)
 * Both exits are linkable.
 */
static enum kjit_reason emit_cmp_site(struct kjit_emit *e, u64 site, u8 op)
{
	s32 rel;

	kjit_emit_u8(e, 0x80); /* cmpb $imm8, disp32(%rip) */
	kjit_emit_u8(e, KX86_MODRM(0, 7, 5));
	if (!kx86_rel32(kjit_emit_here(e) + 5, site, &rel))
		return KJIT_R_RIP_FAR;
	kjit_emit_u32(e, (u32)rel);
	kjit_emit_u8(e, op);
	return KJIT_OK;
}

/* je rel8, its displacement 0 until the caller patches it: returns the
 * displacement's offset. */
static u32 emit_je8(struct kjit_emit *e)
{
	kjit_emit_u8(e, KX86_OP_JCC8 | 0x4);
	kjit_emit_u8(e, 0);
	return e->pos - 1;
}

static enum kjit_reason emit_site(struct kjit_translator *tr,
				  struct kjit_emit *e,
				  const struct kjit_insn *in,
				  struct kjit_block *blk)
{
	u8 op = in->len == 2 ? KX86_OP_JMP8 : KX86_OP_JMP32;
	bool save =
	    tr->cfg.force_live || (kjit_live_after(tr, in) & KX86_FLAGS_ARITH);
	enum kjit_reason r;
	u32 je;

	if (!save && !kjit_instrument_wants(tr, KJIT_POINT_EXIT)) {
		r = emit_cmp_site(e, in->addr, op);
		/* the path of the state the site is in now runs first */
		return r ? r
			 : emit_two_exits(e, blk, KX86_CC_E, in->bytes[0] != op,
					  in->target, in->addr + in->len);
	}
	if (save) {
		kjit_emit_u8(e, KX86_OP_PUSHF);
		kjit_emit_unwind_sp(e, 8);
	}
	r = emit_cmp_site(e, in->addr, op);
	if (r)
		return r;
	je = emit_je8(e);
	if (save) {
		kjit_emit_u8(e, KX86_OP_POPF);
		kjit_emit_unwind_sp(e, -8);
	}
	r = emit_exit(tr, e, blk, op_jmp32, 1, in->addr + in->len);
	if (r)
		return r;
	if (e->pos - (je + 1) > 127)
		return KJIT_R_BRANCH_FAR;
	if (je < e->cap)
		e->buf[je] = (u8)(e->pos - (je + 1));
	if (save) {
		/* J: reached with the flags pushed */
		kjit_emit_unwind_sp(e, 8);
		kjit_emit_u8(e, KX86_OP_POPF);
		kjit_emit_unwind_sp(e, -8);
	}
	return emit_exit(tr, e, blk, op_jmp32, 1, in->target);
}

/* The shared end of a guard whose test left a `je ok` (rel8 at @je): the
 * failing side restores the flags and jumps to @native; ok: restores them
 * too. */
enum kjit_reason kjit_flow_emit_guard_exit(struct kjit_emit *e, u32 je,
					   bool live, u64 native)
{
	enum kjit_reason r;
	u32 ok;

	if (live) {
		kjit_emit_u8(e, KX86_OP_POPF);
		kjit_emit_unwind_sp(e, -8);
	}
	r = kjit_emit_jmp_far(e, native);
	if (r)
		return r;
	ok = e->pos;
	if (ok - (je + 1) > 127)
		return KJIT_R_BRANCH_FAR;
	if (je < e->cap)
		e->buf[je] = (u8)(ok - (je + 1));
	if (live) {
		kjit_emit_unwind_sp(e, 8); /* ok: reached with the flags pushed */
		kjit_emit_u8(e, KX86_OP_POPF);
		kjit_emit_unwind_sp(e, -8);
	}
	return KJIT_OK;
}

/*
 * Entry guard (kjit_flow_emit_entry_guard), before the block's counter
 * (after its endbr64 with kjit_config.ibt):
 *       [9c]                 pushfq                 if flags are live
 *       80 3d <site> 0f      cmpb $0x0f, site(%rip) ; the site still a nop?
 *       74 <ok>              je ok
 *       f0 48 ff 05 <ctr>    lock incq ctr(%rip)    ; env->guard_counter
 *       [9d]                 popfq
 *       e9 <fn>              jmp fn                 ; native, through the site
 *   ok: [9d]                 popfq
 * site is fn, or fn + 4 behind an endbr64 or its seal (IBT kernels). Native
 * from fn means the kernel's fentry call runs (Kprobe, tracer, livepatch)
 * and so does the rest of this invocation of the function.
 */
enum kjit_reason kjit_flow_emit_entry_guard(struct kjit_translator *tr,
					    struct kjit_emit *e, u64 fn,
					    u64 site, u16 live)
{
	struct kjit_mem ctr = {KJIT_MEM_RIPREL, tr->env->guard_counter, true, 0};
	enum kjit_reason r;
	u32 je;

	if (live) {
		kjit_emit_u8(e, KX86_OP_PUSHF);
		kjit_emit_unwind_sp(e, 8);
	}
	r = emit_cmp_site(e, site, KX86_NOP5_FIRST);
	je = emit_je8(e);
	if (!r && ctr.addr)
		r = kjit_emit_inc_mem(e, &ctr, KX86_NREGS, false);
	return r ? r : kjit_flow_emit_guard_exit(e, je, live, fn);
}

/*
 * Static call guard (kjit_flow_emit_static_call_guard), before the counter
 * of a followed static call trampoline whose code is `jmp F` (F = 0 for a
 * NULL static call's `ret`):
 *       [9c]                   pushfq                 if flags are live
 *       48 81 3d <key> <F>     cmpq $F, key(%rip)     ; key->func still F?
 *       74 <ok>                je ok
 *       [9d]                   popfq
 *       e9 <tramp>             jmp tramp              ; native: whatever the
 *                                                     ; kernel made it now
 *   ok: [9d]                   popfq
 * then the block (jmp F: an exit, linked to F's translation). The kernel
 * sets key->func before it rewrites the trampoline and its sites
 * (__static_call_update), so a call that passes sees F as the current
 * target, or the one being replaced: either is what a native caller may
 * run during an update.
 */
enum kjit_reason kjit_flow_emit_static_call_guard(struct kjit_translator *tr,
						  struct kjit_emit *e,
						  u64 tramp, u64 key, u64 f,
						  u16 live)
{
	s64 rel;
	u32 je;

	if ((u64)(s64)(s32)f != f)
		return KJIT_R_BRANCH_FAR;
	if (live) {
		kjit_emit_u8(e, KX86_OP_PUSHF);
		kjit_emit_unwind_sp(e, 8);
	}
	/* cmpq $imm32, disp32(%rip): REX.W 81 /7, modrm 00 111 101 */
	kjit_emit_u8(e, KX86_REX | KX86_REX_W);
	kjit_emit_u8(e, KX86_OP_GRP1_IMM32);
	kjit_emit_u8(e, KX86_MODRM(0, KX86_GRP1_CMP, 5));
	rel = (s64)(key - (kjit_emit_here(e) + 8)); /* disp32, imm32 follow */
	if (rel != (s32)rel)
		return KJIT_R_RIP_FAR;
	kjit_emit_u32(e, (u32)rel);
	kjit_emit_u32(e, (u32)f);
	kjit_emit_u8(e, KX86_OP_JCC8 + 4); /* je rel8 */
	je = e->pos;
	kjit_emit_u8(e, 0);
	return kjit_flow_emit_guard_exit(e, je, live, tramp);
}

typedef enum kjit_reason (*term_fn)(struct kjit_translator *tr,
				    struct kjit_emit *e,
				    const struct kjit_insn *in,
				    struct kjit_block *blk);

static const term_fn term_fns[] = {
    [KJIT_I_JCC] = emit_jcc,	     [KJIT_I_JMP] = emit_jmp,
    [KJIT_I_LIMIT] = emit_jmp,	     [KJIT_I_LOOP] = emit_loop,
    [KJIT_I_CALL] = emit_call,	     [KJIT_I_RET] = emit_ret,
    [KJIT_I_JMP_IND] = emit_jmp_ind, [KJIT_I_CALL_IND] = emit_call_ind,
    [KJIT_I_SITE] = emit_site,
};

enum kjit_reason kjit_flow_emit_term(struct kjit_translator *tr,
				     struct kjit_emit *e,
				     const struct kjit_insn *in,
				     struct kjit_block *blk)
{
	if (in->kind >= KJIT_ARRAY_SIZE(term_fns) || !term_fns[in->kind])
		return KJIT_R_BAD_ARG;
	blk->term = in->kind;
	if (in->kind == KJIT_I_CALL && in->leave)
		return tr->cfg.native_calls && tr->env->stay_call
			   ? emit_stay_call(tr, e, in, blk)
			   : emit_leave_call(e, in);
	if (tr->cfg.native_calls &&
	    (in->kind == KJIT_I_CALL || in->kind == KJIT_I_CALL_IND))
		return emit_native_call(tr, e, in, blk);
	if (tr->cfg.native_calls && in->kind == KJIT_I_RET)
		return emit_native_ret(tr, e, in, blk);
	return term_fns[in->kind](tr, e, in, blk);
}
