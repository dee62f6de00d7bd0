/* instrument.c - instrumentation table, where the block counter goes, and
 * the counter sequences.
 *
 * Invariants: see instrument.h. The flag-preserving sequence is chosen per
 * point from the liveness result: `incq` alone when OF/SF/ZF/AF/PF are dead
 * (CF is never touched by inc), else cfg.live_seq (LAHF by default, the
 * faster of the two on the bench - see docs/design-jit.md). A per-CPU
 * counter with a 64-bit offset goes through a register: a dead one when the
 * block proves one dead (kjit_live_points), else one saved on the stack.
 */
#include "jit/instrument.h"
#include "jit/translate.h"
#include "jit/emit.h"
#include "jit/arch_x86.h"
#include "jit/liveness.h"

/*
 * Relative costs of the parts of a counter sequence, for choosing the
 * point (measured on silicon, tests/host/bench_silicon.c: push/pop of a
 * register ~0.2 ns, lahf/sahf ~0.7 ns, pushf/popf ~7 ns per block).
 */
#define COST_SAVED 1
#define COST_LAHF  4
#define COST_PUSHF 40

/* Registers tried for a per-CPU counter's address, in this order: the
 * ones a kernel function most often overwrites first. Never rsp. */
static const u8 reg_pref[] = {
    KX86_R11, KX86_R10, KX86_RAX, KX86_RCX, KX86_RDX,
    KX86_RSI, KX86_RDI, KX86_R8,  KX86_R9,  KX86_RBX,
    KX86_RBP, KX86_R12, KX86_R13, KX86_R14, KX86_R15,
};

static const char *const form_names[KJIT_CTR_FORMS] = {
    "none",   "lock",	      "plain",	   "gs_disp32",
    "gs_reg", "gs_reg_saved", "gs_bank", "gs_bank_saved",
};
static const char *const seq_names[KJIT_SEQ_COUNT] = {
    "none", "flags_dead", "lahf", "pushf", "moved", "edges",
};

const char *kjit_ctr_form_name(unsigned form)
{
	return form < KJIT_CTR_FORMS ? form_names[form] : "?";
}

const char *kjit_seq_name(unsigned seq)
{
	return seq < KJIT_SEQ_COUNT ? seq_names[seq] : "?";
}

bool kjit_mem_needs_reg(const struct kjit_mem *mem)
{
	return mem->mode == KJIT_MEM_GS_BANK ||
	       (mem->mode == KJIT_MEM_GS && !kx86_fits_simm32(mem->addr));
}

static void emit_rex_b(struct kjit_emit *e, unsigned reg, bool w)
{
	u8 rex = (u8)((w ? KX86_REX_W : 0) | (reg >= 8 ? KX86_REX_B : 0));

	if (rex)
		kjit_emit_u8(e, KX86_REX | rex);
}

static void emit_push_pop(struct kjit_emit *e, u8 op, unsigned reg)
{
	emit_rex_b(e, reg, false);
	kjit_emit_u8(e, (u8)(op + (reg & 7)));
}

/* movabs $off,%reg; [lock] incq %gs:(%reg) */
static void emit_inc_gs_reg(struct kjit_emit *e, const struct kjit_mem *mem,
			    unsigned reg)
{
	unsigned i;

	emit_rex_b(e, reg, true); /* movabs $off,%reg */
	kjit_emit_u8(e, (u8)(KX86_OP_MOV_RI64 + (reg & 7)));
	for (i = 0; i < 8; i++)
		kjit_emit_u8(e, (u8)(mem->addr >> (8 * i)));
	if (mem->lock)
		kjit_emit_u8(e, KX86_PFX_LOCK);
	kjit_emit_u8(e, KX86_PFX_GS); /* incq %gs:(%reg) */
	emit_rex_b(e, reg, true);
	kjit_emit_u8(e, KX86_OP_GRP5);
	switch (reg & 7) {
	case KX86_RM_SIB: /* rsp/r12 as a base: SIB, base only */
		kjit_emit_u8(e, KX86_MODRM(0, KX86_GRP5_INC, KX86_RM_SIB));
		kjit_emit_u8(e, KX86_SIB(0, KX86_SIB_NO_INDEX, reg));
		break;
	case KX86_RM_DISP32: /* rbp/r13 as a base: mod 1, disp8 0 */
		kjit_emit_u8(e, KX86_MODRM(1, KX86_GRP5_INC, reg));
		kjit_emit_u8(e, 0);
		break;
	default:
		kjit_emit_u8(e, KX86_MODRM(0, KX86_GRP5_INC, reg));
	}
}

/* ModRM (and SIB) for [%reg] with @mod 0 (no disp) or 2 (disp32 to
 * follow), reg field @rf. */
static void emit_modrm_base(struct kjit_emit *e, unsigned mod, unsigned rf,
			    unsigned reg)
{
	if ((reg & 7) == KX86_RM_DISP32 && mod == 0) /* rbp/r13: disp8 0 */
		mod = 1;
	kjit_emit_u8(e, KX86_MODRM(mod, rf & 7, reg & 7));
	if ((reg & 7) == KX86_RM_SIB) /* rsp/r12 as a base: SIB, base only */
		kjit_emit_u8(e, KX86_SIB(0, KX86_SIB_NO_INDEX, reg));
	if (mod == 1)
		kjit_emit_u8(e, 0);
}

/* REX.W with R (reg field) and B (base) for @r and @b. */
static void emit_rex_rb(struct kjit_emit *e, unsigned r, unsigned b)
{
	kjit_emit_u8(e, (u8)(KX86_REX | KX86_REX_W | (r >= 8 ? KX86_REX_R : 0) |
			     (b >= 8 ? KX86_REX_B : 0)));
}

/*
 * The running task's bank (KJIT_MEM_GS_BANK):
 *   65 48 8b 04 25 <slot32>      mov %gs:slot,%reg     (slot in a disp32)
 * | 48 b8 <slot64>               movabs $slot,%reg
 *   65 48 8b <modrm>             mov %gs:(%reg),%reg
 *   65 48 ff 80 <disp32>         incq %gs:disp(%reg)
 * The slot is read on the CPU that runs the code and holds the bank of the
 * task running there; the task keeps %reg if it is preempted or migrates
 * before the inc, so the inc lands in its own bank (on its new CPU's copy).
 */
static void emit_inc_gs_bank(struct kjit_emit *e, const struct kjit_mem *mem,
			     unsigned reg)
{
	unsigned i;

	if (kx86_fits_simm32(mem->addr)) {
		kjit_emit_u8(e, KX86_PFX_GS); /* mov %gs:disp32,%reg */
		emit_rex_rb(e, reg, 0);
		kjit_emit_u8(e, KX86_OP_MOV_RM);
		kjit_emit_u8(e, KX86_MODRM(0, reg & 7, KX86_RM_SIB));
		kjit_emit_u8(e, KX86_SIB(0, KX86_SIB_NO_INDEX, KX86_RM_DISP32));
		kjit_emit_u32(e, (u32)mem->addr);
	} else {
		emit_rex_b(e, reg, true); /* movabs $slot,%reg */
		kjit_emit_u8(e, (u8)(KX86_OP_MOV_RI64 + (reg & 7)));
		for (i = 0; i < 8; i++)
			kjit_emit_u8(e, (u8)(mem->addr >> (8 * i)));
		kjit_emit_u8(e, KX86_PFX_GS); /* mov %gs:(%reg),%reg */
		emit_rex_rb(e, reg, reg);
		kjit_emit_u8(e, KX86_OP_MOV_RM);
		emit_modrm_base(e, 0, reg, reg);
	}
	kjit_emit_u8(e, KX86_PFX_GS); /* incq %gs:disp32(%reg) */
	emit_rex_b(e, reg, true);
	kjit_emit_u8(e, KX86_OP_GRP5);
	emit_modrm_base(e, 2, KX86_GRP5_INC, reg);
	kjit_emit_u32(e, mem->disp);
}

enum kjit_reason kjit_emit_inc_mem(struct kjit_emit *e,
				   const struct kjit_mem *mem, unsigned reg,
				   bool save)
{
	if (kjit_mem_needs_reg(mem)) {
		if (reg >= KX86_NREGS || reg == KX86_RSP ||
		    (mem->mode == KJIT_MEM_GS_BANK && mem->disp >> 31))
			return KJIT_R_COUNTER;
		if (save) {
			emit_push_pop(e, KX86_OP_PUSH_R, reg);
			kjit_emit_unwind_sp(e, 8);
		}
		if (mem->mode == KJIT_MEM_GS_BANK)
			emit_inc_gs_bank(e, mem, reg);
		else
			emit_inc_gs_reg(e, mem, reg);
		if (save) {
			emit_push_pop(e, KX86_OP_POP_R, reg);
			kjit_emit_unwind_sp(e, -8);
		}
		return KJIT_OK;
	}
	if (mem->lock)
		kjit_emit_u8(e, KX86_PFX_LOCK);
	if (mem->mode == KJIT_MEM_RIPREL) {
		kjit_emit_u8(e, KX86_REX | KX86_REX_W); /* incq disp32(%rip) */
		kjit_emit_u8(e, KX86_OP_GRP5);
		kjit_emit_u8(e, KX86_MODRM(0, KX86_GRP5_INC, KX86_RM_DISP32));
		return kjit_emit_rel32(e, mem->addr) ? KJIT_R_COUNTER : KJIT_OK;
	}
	if ((mem->mode != KJIT_MEM_GS && mem->mode != KJIT_MEM_ABS32) ||
	    !kx86_fits_simm32(mem->addr))
		return KJIT_R_COUNTER;
	if (mem->mode == KJIT_MEM_GS)
		kjit_emit_u8(e, KX86_PFX_GS);	/* incq %gs:disp32 */
	kjit_emit_u8(e, KX86_REX | KX86_REX_W); /* incq disp32 (SIB, no base) */
	kjit_emit_u8(e, KX86_OP_GRP5);
	kjit_emit_u8(e, KX86_MODRM(0, KX86_GRP5_INC, KX86_RM_SIB));
	kjit_emit_u8(e, KX86_SIB(0, KX86_SIB_NO_INDEX, KX86_RM_DISP32));
	kjit_emit_u32(e, (u32)mem->addr);
	return KJIT_OK;
}

/* The increment of one point, as chosen for it. */
struct inc_plan {
	const struct kjit_mem *mem;
	unsigned reg;
	bool save;
};

/* push %rax; lahf; seto %al; <inc>; add $0x7f,%al; sahf; pop %rax
 * lahf/sahf carry SF ZF AF PF CF through AH; OF is rebuilt by the add,
 * which overflows exactly when al == 1. */
static enum kjit_reason emit_inc_lahf(struct kjit_emit *e,
				      const struct inc_plan *p)
{
	enum kjit_reason r;

	kjit_emit_u8(e, KX86_OP_PUSH_R + KX86_RAX);
	kjit_emit_unwind_sp(e, 8);
	kjit_emit_u8(e, KX86_OP_LAHF);
	kjit_emit_u8(e, KX86_OP_ESC);
	kjit_emit_u8(e, KX86_OP2_SETCC + KX86_CC_O);
	kjit_emit_u8(e, KX86_MODRM(3, 0, KX86_RAX));
	r = kjit_emit_inc_mem(e, p->mem, p->reg, p->save);
	kjit_emit_u8(e, KX86_OP_ADD_AL_IB);
	kjit_emit_u8(e, 0x7f);
	kjit_emit_u8(e, KX86_OP_SAHF);
	kjit_emit_u8(e, KX86_OP_POP_R + KX86_RAX);
	kjit_emit_unwind_sp(e, -8);
	return r;
}

/* pushfq; <inc>; popfq */
static enum kjit_reason emit_inc_pushf(struct kjit_emit *e,
				       const struct inc_plan *p)
{
	enum kjit_reason r;

	kjit_emit_u8(e, KX86_OP_PUSHF);
	kjit_emit_unwind_sp(e, 8);
	r = kjit_emit_inc_mem(e, p->mem, p->reg, p->save);
	kjit_emit_u8(e, KX86_OP_POPF);
	kjit_emit_unwind_sp(e, -8);
	return r;
}

static bool flags_live(const struct kjit_translator *tr, u16 live)
{
	return tr->cfg.force_live || (live & KX86_FLAGS_INC_CLOBBER);
}

/* First register of reg_pref[] in @dead (rax excluded when the LAHF
 * sequence holds the flags in it), or -1. */
static int pick_reg(u16 dead, bool no_rax)
{
	unsigned i;

	if (no_rax)
		dead &= (u16) ~(1u << KX86_RAX);
	for (i = 0; i < KJIT_ARRAY_SIZE(reg_pref); i++)
		if (dead & (1u << reg_pref[i]))
			return reg_pref[i];
	return -1;
}

/* Flags handling and register of an increment of @mem at a point with
 * flags @live and registers @dead. Returns its cost (COST_*). */
static unsigned plan_inc(const struct kjit_translator *tr,
			 const struct kjit_mem *mem, u16 live, u16 dead,
			 u8 *seq, struct inc_plan *p)
{
	bool flags = flags_live(tr, live);
	bool lahf = flags && tr->cfg.live_seq != KJIT_SEQ_PUSHF;
	unsigned cost = !flags ? 0 : lahf ? COST_LAHF : COST_PUSHF;
	int reg = -1;

	*seq = !flags ? KJIT_SEQ_INC : lahf ? KJIT_SEQ_LAHF : KJIT_SEQ_PUSHF;
	p->mem = mem;
	p->reg = KX86_NREGS;
	p->save = false;
	if (!kjit_mem_needs_reg(mem))
		return cost;
	if (tr->cfg.ctr_reg != KJIT_REG_SAVE)
		reg = pick_reg(dead & (u16) ~(1u << KX86_RSP), lahf);
	if (reg >= 0) {
		p->reg = (unsigned)reg;
		return cost;
	}
	p->reg = lahf ? KX86_RCX : KX86_RAX;
	p->save = true;
	return cost + COST_SAVED;
}

static u8 form_of(const struct inc_plan *p)
{
	if (p->mem->mode == KJIT_MEM_GS_BANK)
		return p->save ? KJIT_CTR_GS_BANK_SAVED : KJIT_CTR_GS_BANK;
	if (kjit_mem_needs_reg(p->mem))
		return p->save ? KJIT_CTR_GS_SAVED : KJIT_CTR_GS_REG;
	if (p->mem->mode == KJIT_MEM_GS)
		return KJIT_CTR_GS_DISP32;
	return p->mem->lock ? KJIT_CTR_LOCK : KJIT_CTR_PLAIN;
}

/* One counter increment at point @pi, flags-safe when they are live. */
static enum kjit_reason emit_count(struct kjit_translator *tr,
				   struct kjit_emit *e,
				   const struct kjit_point_info *pi,
				   const struct kjit_mem *mem, u8 *seq,
				   u8 *form, u8 *reg)
{
	struct inc_plan p;

	plan_inc(tr, mem, pi->live, pi->dead, seq, &p);
	*form = form_of(&p);
	*reg = p.reg < KX86_NREGS ? (u8)p.reg : 0xff;
	if (*seq == KJIT_SEQ_LAHF)
		return emit_inc_lahf(e, &p);
	if (*seq == KJIT_SEQ_PUSHF)
		return emit_inc_pushf(e, &p);
	if (pi->point == KJIT_POINT_ENTRY && pi->at)
		*seq = KJIT_SEQ_MOVED;
	return kjit_emit_inc_mem(e, p.mem, p.reg, p.save);
}

/* The block counter of @block into tr->ctr_mem, asked of the env once per
 * translation. */
static enum kjit_reason block_counter(struct kjit_translator *tr, u64 block)
{
	const struct kjit_env *env = tr->env;

	if (tr->ctr_ready && tr->ctr_for == block)
		return KJIT_OK;
	tr->ctr_mem = (struct kjit_mem){KJIT_MEM_GS, 0, false, 0}; /* env fills */
	if (!env->counter ||
	    !env->counter(env->opaque, block, KJIT_CTR_BLOCK, 0, &tr->ctr_mem))
		return KJIT_R_COUNTER;
	tr->ctr_for = block;
	tr->ctr_ready = true;
	return KJIT_OK;
}

static enum kjit_reason count_block(struct kjit_translator *tr,
				    struct kjit_emit *e,
				    const struct kjit_point_info *pi,
				    struct kjit_block *blk)
{
	enum kjit_reason r = block_counter(tr, pi->block);

	if (r)
		return r;
	blk->ctr_at = pi->at;
	return emit_count(tr, e, pi, &tr->ctr_mem, &blk->seq, &blk->ctr,
			  &blk->ctr_reg);
}

static enum kjit_reason count_edge(struct kjit_translator *tr,
				   struct kjit_emit *e,
				   const struct kjit_point_info *pi,
				   struct kjit_block *blk)
{
	const struct kjit_env *env = tr->env;
	struct kjit_mem m = {KJIT_MEM_GS, 0, false, 0}; /* env fills it */
	u8 seq, form, reg;

	if (!env->counter ||
	    !env->counter(env->opaque, pi->block, KJIT_CTR_EDGE, pi->exit, &m))
		return KJIT_R_COUNTER;
	return emit_count(tr, e, pi, &m, &seq, &form, &reg);
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

/* Can code be inserted before instruction @k of @d? Not into the
 * interrupt shadow of an sti / mov ss (decode.h), nor where a dropped
 * instruction would leave it between two offsets of insn_off[], nor right
 * after a KJIT_FIXUP_NEXT instruction (its fixup is its next instruction,
 * dropped ones aside),
 * nor after a KJIT_FIXUP_EXIT one: a fault there leaves the block, which
 * must have been counted. */
static bool point_ok(const struct kjit_block_desc *d, unsigned k)
{
	unsigned i, next = 0; /* after a NEXT one: nothing emitted yet */

	for (i = 0; i < k; i++) {
		if (d->insn[i].fixup == KJIT_FIXUP_EXIT)
			return false;
		if (d->insn[i].fixup == KJIT_FIXUP_NEXT)
			next = 1;
		else if (d->insn[i].kind != KJIT_I_DROP)
			next = 0;
	}
	if (next)
		return false;
	return k == 0 ||
	       (!d->insn[k - 1].shadow && d->insn[k].kind != KJIT_I_DROP);
}

enum kjit_reason kjit_instrument_entry_at(struct kjit_translator *tr,
					  const struct kjit_block_desc *d,
					  struct kjit_point_info *pi)
{
	const struct kjit_mem *m = &tr->ctr_mem;
	unsigned k, cost, best;
	struct inc_plan p;
	enum kjit_reason r;
	u8 seq;

	pi->at = 0;
	pi->dead = 0;
	if (!(tr->cfg.instr & KJIT_INSTR_BLOCK_COUNT))
		return KJIT_OK;
	r = block_counter(tr, pi->block);
	if (r)
		return r;
	if (!kjit_mem_needs_reg(m) && !flags_live(tr, pi->live))
		return KJIT_OK; /* the cheapest there is, at the entry */
	/* the registers' look-ahead only where a register is wanted */
	kjit_live_points(d,
			 kjit_mem_needs_reg(m)
			     ? kjit_regs_dead_after(tr, &d->insn[d->n - 1])
			     : 0,
			 tr->live_flags, tr->live_regs);
	pi->dead = (u16)~tr->live_regs[0];
	best = plan_inc(tr, m, pi->live, pi->dead, &seq, &p);
	for (k = 1; tr->cfg.ctr_move && best && k < d->n; k++) {
		if (!point_ok(d, k))
			continue;
		cost = plan_inc(tr, m, tr->live_flags[k],
				(u16)~tr->live_regs[k], &seq, &p);
		if (cost < best) {
			best = cost;
			pi->at = (u8)k;
		}
	}
	if (pi->at) {
		pi->live = tr->live_flags[pi->at];
		pi->dead = (u16)~tr->live_regs[pi->at];
	}
	return KJIT_OK;
}

bool kjit_instrument_on_edges(struct kjit_translator *tr,
			      const struct kjit_block_desc *d,
			      const struct kjit_point_info *pi)
{
	const struct kjit_insn *t = &d->insn[d->n - 1];
	unsigned i;

	if (!tr->cfg.ctr_edges || tr->cfg.force_live ||
	    !(tr->cfg.instr & KJIT_INSTR_BLOCK_COUNT) ||
	    kjit_instrument_wants(tr, KJIT_POINT_EXIT) ||
	    t->kind != KJIT_I_JCC || !flags_live(tr, pi->live))
		return false;
	for (i = 0; i < d->n; i++)
		if (d->insn[i].fixup)
			return false;
	return !(kjit_live_after(tr, t) & KX86_FLAGS_INC_CLOBBER);
}

enum kjit_reason kjit_instrument_point(struct kjit_translator *tr,
				       struct kjit_emit *e,
				       const struct kjit_point_info *pi,
				       struct kjit_block *blk)
{
	enum kjit_reason r;
	unsigned i;

	if (pi->point == KJIT_POINT_EXIT && tr->ctr_on_edges) {
		r = count_block(tr, e, pi, blk);
		if (r)
			return r;
	}

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
