/* emit.c - bounded byte emitter, literal pool and instruction relocation.
 *
 * Invariants: see emit.h. In short: bounded writes, run-time addressing,
 * refusal instead of truncation. Raw bytes are used instead of the Zydis
 * encoder on purpose: relocation only rewrites a disp32/rel32 field of an
 * otherwise identical instruction, which keeps every prefix exactly as the
 * compiler wrote it and costs nanoseconds; every emitted byte run is
 * decoded back by the host tests.
 */
#include "jit/emit.h"
#include "jit/arch_x86.h"

void kjit_emit_init(struct kjit_emit *e, u8 *buf, u32 cap, u64 base)
{
	e->buf = buf;
	e->base = base;
	e->pos = 0;
	e->cap = cap;
	e->overflow = false;
	e->no_indirect = false;
	e->n_lit = 0;
	e->uw = NULL;
	e->n_uw = 0;
	e->uw_insn = KJIT_UW_NONE;
	e->uw_sp = 0;
}

void kjit_emit_unwind(struct kjit_emit *e, unsigned insn, int sp)
{
	struct kjit_uw_point *last = e->n_uw ? &e->uw[e->n_uw - 1] : NULL;

	e->uw_insn = (u8)insn;
	e->uw_sp = (s8)sp;
	if (!e->uw || (last && last->insn == insn && last->sp == sp))
		return;
	if (last && last->off == e->pos) { /* nothing emitted in between */
		last->insn = (u8)insn;
		last->sp = (s8)sp;
		return;
	}
	if (e->n_uw == KJIT_MAX_UW) { /* cannot happen: KJIT_MAX_UW bounds */
		e->overflow = true;
		return;
	}
	e->uw[e->n_uw++] = (struct kjit_uw_point){(u16)e->pos, (u8)insn, (s8)sp};
}

void kjit_emit_u32(struct kjit_emit *e, u32 v)
{
	kjit_emit_u8(e, (u8)v);
	kjit_emit_u8(e, (u8)(v >> 8));
	kjit_emit_u8(e, (u8)(v >> 16));
	kjit_emit_u8(e, (u8)(v >> 24));
}

void kjit_emit_put32(struct kjit_emit *e, u32 off, u32 v)
{
	unsigned i;

	for (i = 0; i < 4; i++) {
		if (off + i < e->cap)
			e->buf[off + i] = (u8)(v >> (8 * i));
		else
			e->overflow = true;
	}
}

/*
 * The padding that aligns a field is %cs prefixes on the instruction that
 * holds it, not nops before it: a prefix is part of that instruction, so
 * no pass through the block executes anything more (a nop is one more
 * instruction each time; under -icount every executed block paid up to
 * two). In 64-bit mode a %cs override is ignored on every instruction
 * kjit pads (jmp/jcc/call rel32, cmp $imm32,%reg), a jcc included: the
 * hint it once meant (branch not taken) is ignored by current CPUs.
 */
void kjit_emit_align_rel32(struct kjit_emit *e, unsigned oplen)
{
	unsigned mis = (unsigned)((kjit_emit_here(e) + oplen) & 3);
	unsigned n = (4 - mis) & 3;

	while (n--)
		kjit_emit_u8(e, KX86_PFX_CS);
}

void kjit_emit_align_int3(struct kjit_emit *e, unsigned align)
{
	while (kjit_emit_here(e) & (align - 1))
		kjit_emit_u8(e, KX86_OP_INT3);
}

enum kjit_reason kjit_emit_rel32(struct kjit_emit *e, u64 target)
{
	s32 rel;

	if (!kx86_rel32(kjit_emit_here(e) + 4, target, &rel))
		return KJIT_R_BRANCH_FAR;
	kjit_emit_u32(e, (u32)rel);
	return KJIT_OK;
}

enum kjit_reason kjit_emit_lit_ref(struct kjit_emit *e, u64 value,
				   unsigned tail)
{
	if (e->n_lit >= KJIT_MAX_LITERALS)
		return KJIT_R_NO_SPACE;
	e->lit[e->n_lit].value = value;
	/* store the field offset; the tail is folded in when patching */
	e->lit[e->n_lit].field = e->pos | (tail << 24);
	e->n_lit++;
	kjit_emit_u32(e, 0);
	return KJIT_OK;
}

enum kjit_reason kjit_emit_literals(struct kjit_emit *e)
{
	unsigned i, j;
	u32 slot[KJIT_MAX_LITERALS];

	if (!e->n_lit)
		return KJIT_OK;
	kjit_emit_align_int3(e, 8);
	for (i = 0; i < e->n_lit; i++) {
		for (j = 0; j < i; j++)
			if (e->lit[j].value == e->lit[i].value)
				break;
		if (j < i) {
			slot[i] = slot[j];
			continue;
		}
		slot[i] = e->pos;
		kjit_emit_u32(e, (u32)e->lit[i].value);
		kjit_emit_u32(e, (u32)(e->lit[i].value >> 32));
	}
	for (i = 0; i < e->n_lit; i++) {
		u32 field = e->lit[i].field & 0xffffff;
		u32 tail = e->lit[i].field >> 24;
		s32 rel;

		if (!kx86_rel32(e->base + field + 4 + tail, e->base + slot[i],
				&rel))
			return KJIT_R_BRANCH_FAR;
		kjit_emit_put32(e, field, (u32)rel);
	}
	return KJIT_OK;
}

enum kjit_reason kjit_emit_push_const(struct kjit_emit *e, u64 v)
{
	if (kx86_fits_simm32(v)) {
		kjit_emit_u8(e, KX86_OP_PUSH_I32); /* push $imm32 */
		kjit_emit_u32(e, (u32)v);
		return KJIT_OK;
	}
	kjit_emit_u8(e, KX86_OP_GRP5); /* push qword [rip+lit] */
	kjit_emit_u8(e, KX86_MODRM(0, KX86_GRP5_PUSH, 5));
	return kjit_emit_lit_ref(e, v, 0);
}

enum kjit_reason kjit_emit_jmp_far(struct kjit_emit *e, u64 target)
{
	s32 rel;

	if (kx86_rel32(kjit_emit_here(e) + KX86_JMP32_LEN, target, &rel)) {
		kjit_emit_u8(e, KX86_OP_JMP32); /* jmp rel32 */
		kjit_emit_u32(e, (u32)rel);
		return KJIT_OK;
	}
	if (e->no_indirect)
		return KJIT_R_BRANCH_FAR;
	kjit_emit_u8(e, KX86_OP_GRP5); /* jmp qword [rip+lit] */
	kjit_emit_u8(e, KX86_MODRM(0, KX86_GRP5_JMP, 5));
	return kjit_emit_lit_ref(e, target, 0);
}

void kjit_emit_endbr64(struct kjit_emit *e)
{
	static const u8 endbr[KX86_ENDBR64_LEN] = KX86_ENDBR64;
	unsigned i;

	for (i = 0; i < KX86_ENDBR64_LEN; i++) /* f3 0f 1e fa  endbr64 */
		kjit_emit_u8(e, endbr[i]);
}

static s32 get_s32(const u8 *p)
{
	return (s32)((u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 |
		     (u32)p[3] << 24);
}

enum kjit_reason kjit_emit_copy(struct kjit_emit *e, const struct kjit_insn *in)
{
	u64 at = kjit_emit_here(e);
	u32 start = e->pos;
	unsigned i;

	for (i = 0; i < in->len; i++)
		kjit_emit_u8(e, in->bytes[i]);
	if (in->disp_off) {
		u64 abs =
		    in->addr + in->len + (s64)get_s32(in->bytes + in->disp_off);
		s32 rel;

		if (!kx86_rel32(at + in->len, abs, &rel))
			return KJIT_R_RIP_FAR;
		kjit_emit_put32(e, start + in->disp_off, (u32)rel);
	}
	return KJIT_OK;
}
