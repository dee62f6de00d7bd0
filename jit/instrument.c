/* instrument.c - instrumentation table and counter sequences.
 *
 * Invariants: see instrument.h. The flag-preserving sequence is chosen per
 * point from the liveness result: `incq` alone when OF/SF/ZF/AF/PF are dead
 * (CF is never touched by inc), else cfg.live_seq (LAHF by default, the
 * faster of the two on the bench - see docs/design-jit.md).
 */
#include "jit/instrument.h"
#include "jit/translate.h"
#include "jit/emit.h"
#include "jit/arch_x86.h"

enum kjit_reason kjit_emit_inc_mem(struct kjit_emit *e,
				   const struct kjit_mem *mem)
{
	if (mem->lock)
		kjit_emit_u8(e, KX86_PFX_LOCK);
	if (mem->mode == KJIT_MEM_RIPREL) {
		kjit_emit_u8(e, KX86_REX | KX86_REX_W); /* incq disp32(%rip) */
		kjit_emit_u8(e, KX86_OP_GRP5);
		kjit_emit_u8(e, KX86_MODRM(0, KX86_GRP5_INC, 5));
		return kjit_emit_rel32(e, mem->addr) ? KJIT_R_COUNTER : KJIT_OK;
	}
	if ((mem->mode != KJIT_MEM_GS && mem->mode != KJIT_MEM_ABS32) ||
	    !kx86_fits_simm32(mem->addr))
		return KJIT_R_COUNTER;
	if (mem->mode == KJIT_MEM_GS)
		kjit_emit_u8(e, KX86_PFX_GS);	/* incq %gs:disp32 */
	kjit_emit_u8(e, KX86_REX | KX86_REX_W); /* incq disp32 (SIB, no base) */
	kjit_emit_u8(e, KX86_OP_GRP5);
	kjit_emit_u8(e, KX86_MODRM(0, KX86_GRP5_INC, 4));
	kjit_emit_u8(e, 0x25); /* SIB: no index, no base */
	kjit_emit_u32(e, (u32)mem->addr);
	return KJIT_OK;
}

/* push %rax; lahf; seto %al; <inc>; add $0x7f,%al; sahf; pop %rax
 * lahf/sahf carry SF ZF AF PF CF through AH; OF is rebuilt by the add,
 * which overflows exactly when al == 1. */
static enum kjit_reason emit_inc_lahf(struct kjit_emit *e,
				      const struct kjit_mem *m)
{
	enum kjit_reason r;

	kjit_emit_u8(e, KX86_OP_PUSH_R + KX86_RAX);
	kjit_emit_u8(e, KX86_OP_LAHF);
	kjit_emit_u8(e, KX86_OP_ESC);
	kjit_emit_u8(e, KX86_OP2_SETCC + KX86_CC_O);
	kjit_emit_u8(e, KX86_MODRM(3, 0, KX86_RAX));
	r = kjit_emit_inc_mem(e, m);
	kjit_emit_u8(e, KX86_OP_ADD_AL_IB);
	kjit_emit_u8(e, 0x7f);
	kjit_emit_u8(e, KX86_OP_SAHF);
	kjit_emit_u8(e, KX86_OP_POP_R + KX86_RAX);
	return r;
}

/* pushfq; <inc>; popfq */
static enum kjit_reason emit_inc_pushf(struct kjit_emit *e,
				       const struct kjit_mem *m)
{
	enum kjit_reason r;

	kjit_emit_u8(e, KX86_OP_PUSHF);
	r = kjit_emit_inc_mem(e, m);
	kjit_emit_u8(e, KX86_OP_POPF);
	return r;
}

/* One counter increment, flags-safe when @pi says they are live. */
static enum kjit_reason emit_count(struct kjit_translator *tr,
				   struct kjit_emit *e,
				   const struct kjit_point_info *pi,
				   enum kjit_counter_kind kind, u8 *seq)
{
	const struct kjit_env *env = tr->env;
	struct kjit_mem m = {KJIT_MEM_GS, 0, false}; /* env fills it */
	bool live = tr->cfg.force_live || (pi->live & KX86_FLAGS_INC_CLOBBER);

	if (!env->counter ||
	    !env->counter(env->opaque, pi->block, kind, pi->exit, &m))
		return KJIT_R_COUNTER;
	if (!live) {
		*seq = KJIT_SEQ_INC;
		return kjit_emit_inc_mem(e, &m);
	}
	*seq = tr->cfg.live_seq;
	if (tr->cfg.live_seq == KJIT_SEQ_PUSHF)
		return emit_inc_pushf(e, &m);
	return emit_inc_lahf(e, &m);
}

static enum kjit_reason count_block(struct kjit_translator *tr,
				    struct kjit_emit *e,
				    const struct kjit_point_info *pi,
				    struct kjit_block *blk)
{
	return emit_count(tr, e, pi, KJIT_CTR_BLOCK, &blk->seq);
}

static enum kjit_reason count_edge(struct kjit_translator *tr,
				   struct kjit_emit *e,
				   const struct kjit_point_info *pi,
				   struct kjit_block *blk)
{
	u8 seq;

	return emit_count(tr, e, pi, KJIT_CTR_EDGE, &seq);
}

static const struct {
	const char *name;
	unsigned bit;
	unsigned points; /* 1 << enum kjit_point */
	enum kjit_reason (*emit)(struct kjit_translator *tr,
				 struct kjit_emit *e,
				 const struct kjit_point_info *pi,
				 struct kjit_block *blk);
} instrumentations[] = {
    {"block_count", KJIT_INSTR_BLOCK_COUNT, 1u << KJIT_POINT_ENTRY,
     count_block},
    {"edge_count", KJIT_INSTR_EDGE_COUNT, 1u << KJIT_POINT_EXIT, count_edge},
};

bool kjit_instrument_wants(const struct kjit_translator *tr, enum kjit_point p)
{
	unsigned i;

	for (i = 0; i < KJIT_ARRAY_SIZE(instrumentations); i++)
		if ((tr->cfg.instr & instrumentations[i].bit) &&
		    (instrumentations[i].points & (1u << p)))
			return true;
	return false;
}

enum kjit_reason kjit_instrument_point(struct kjit_translator *tr,
				       struct kjit_emit *e,
				       const struct kjit_point_info *pi,
				       struct kjit_block *blk)
{
	enum kjit_reason r;
	unsigned i;

	for (i = 0; i < KJIT_ARRAY_SIZE(instrumentations); i++) {
		if (!(tr->cfg.instr & instrumentations[i].bit) ||
		    !(instrumentations[i].points & (1u << pi->point)))
			continue;
		r = instrumentations[i].emit(tr, e, pi, blk);
		if (r)
			return r;
	}
	return KJIT_OK;
}
