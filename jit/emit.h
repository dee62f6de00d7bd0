/* emit.h - bounded byte emitter with a literal pool, and relocation of
 * copied instructions.
 *
 * Invariants:
 *  - Nothing is ever written at or past buf[cap]; an emit past the end only
 *    sets e->overflow (the caller turns that into KJIT_R_NO_SPACE).
 *  - e->base is the run-time address of buf[0]; all rel32/RIP-relative
 *    fields are computed against run-time addresses, never buf pointers.
 *  - Every RIP-relative field that cannot reach its target makes the emit
 *    fail with a reason; nothing is truncated.
 *  - Literals (8-byte values loaded RIP-relative) are collected and written
 *    8-byte aligned by kjit_emit_literals(), which patches their users.
 *  - With no_indirect set, no helper here emits an indirect jmp/call.
 */
#ifndef KJIT_JIT_EMIT_H
#define KJIT_JIT_EMIT_H

#include "jit/types.h"
#include "jit/reason.h"
#include "jit/decode.h"

#define KJIT_MAX_LITERALS 8

/*
 * Unwind map of a block: where its code has which stack layout, for the
 * module's ORC entries (kmod/orc.c) - an unwinder that stops in the cache
 * (an interrupt, a sleeping task's return address) must find the caller
 * where the original would. Point k says: from offset off up to the next
 * point, the stack is that of original instruction insn (index into the
 * block's kjit_block_desc, before it runs) plus sp bytes pushed by code the
 * translator inserted (a saved register, pushfq). insn KJIT_UW_NONE: no
 * layout known (exit stubs and literals, never run after linking).
 *
 *     off  0        insn 0, sp 0    entry: endbr64, guards, counter
 *          push %r  insn 0, sp 8    (a counter through a saved register)
 *          pop %r   insn 0, sp 0
 *          copy 1   insn 1, sp 0    ...one point per copied instruction
 *          term     insn n-1, sp 0  the terminator's translation
 *     body_len      NONE            exit stubs, literal pool
 *
 * A translated call's return site has the call's layout (a return leaves
 * the stack as the call found it).
 */
#define KJIT_UW_NONE 0xff
#define KJIT_MAX_UW  (2 * KJIT_MAX_INSNS + 32)
struct kjit_uw_point {
	u16 off;
	u8 insn;
	s8 sp;
};

struct kjit_emit {
	u8 *buf;
	u64 base; /* run-time address of buf[0] */
	u32 pos;
	u32 cap;
	bool overflow;
	/* kjit_config.ibt: a far jmp is refused, never `jmp *[rip+lit]` */
	bool no_indirect;
	unsigned n_lit;
	struct {
		u64 value;
		u32 field; /* offset of the disp32 that must point at it */
	} lit[KJIT_MAX_LITERALS];
	/* the unwind map (above), when uw is set: uw[0..n_uw), room for
	 * KJIT_MAX_UW; uw_insn/uw_sp: the state at pos */
	struct kjit_uw_point *uw;
	unsigned n_uw;
	u8 uw_insn;
	s8 uw_sp;
};

void kjit_emit_init(struct kjit_emit *e, u8 *buf, u32 cap, u64 base);

static inline u64 kjit_emit_here(const struct kjit_emit *e)
{
	return e->base + e->pos;
}

static inline void kjit_emit_u8(struct kjit_emit *e, u8 v)
{
	if (e->pos < e->cap)
		e->buf[e->pos] = v;
	else
		e->overflow = true;
	e->pos++;
}

void kjit_emit_u32(struct kjit_emit *e, u32 v);
/* Overwrite 4 bytes at offset @off (inside what was already emitted). */
void kjit_emit_put32(struct kjit_emit *e, u32 off, u32 v);
/* Pad with %cs prefixes (never a nop: emit.c) so that the instruction of
 * @oplen opcode bytes emitted right after has its rel32 (or imm32) field
 * 4-byte aligned (run-time address). */
void kjit_emit_align_rel32(struct kjit_emit *e, unsigned oplen);
/* Pad with int3 to @align (power of two) - for non-executed areas. */
void kjit_emit_align_int3(struct kjit_emit *e, unsigned align);

/* Unwind map (above): the code from here on has original instruction
 * @insn's stack layout plus @sp bytes (KJIT_UW_NONE: none known). */
void kjit_emit_unwind(struct kjit_emit *e, unsigned insn, int sp);
/* ... the same instruction's, with @delta more bytes pushed: call it right
 * after emitting an inserted push (+8) or pop (-8). */
static inline void kjit_emit_unwind_sp(struct kjit_emit *e, int delta)
{
	kjit_emit_unwind(e, e->uw_insn, e->uw_sp + delta);
}

/* rel32 field (at current position, ending the instruction) to @target. */
enum kjit_reason kjit_emit_rel32(struct kjit_emit *e, u64 target);
/* disp32 field that reads literal @value; the instruction ends @tail bytes
 * after the field. Patched by kjit_emit_literals(). */
enum kjit_reason kjit_emit_lit_ref(struct kjit_emit *e, u64 value,
				   unsigned tail);
/* Write the literal pool (8-aligned) and patch references to it. */
enum kjit_reason kjit_emit_literals(struct kjit_emit *e);

/* push of a 64-bit constant: `push imm32` when it sign-extends to @v,
 * else `push qword [rip+lit]`. Flags untouched, no scratch register. */
enum kjit_reason kjit_emit_push_const(struct kjit_emit *e, u64 v);
/* jmp to @target: `jmp rel32` if in reach, else `jmp [rip+lit]`, or
 * KJIT_R_BRANCH_FAR with no_indirect (nothing emitted then). */
enum kjit_reason kjit_emit_jmp_far(struct kjit_emit *e, u64 target);
/* endbr64: what an indirect jmp/call must land on under IBT. */
void kjit_emit_endbr64(struct kjit_emit *e);

/* Copy an ordinary instruction, rebasing its RIP-relative disp32 to the
 * new position. Refuses with KJIT_R_RIP_FAR if the rebased field does not
 * reach. */
enum kjit_reason kjit_emit_copy(struct kjit_emit *e,
				const struct kjit_insn *in);

#endif /* KJIT_JIT_EMIT_H */
