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
void kjit_emit_nops(struct kjit_emit *e, unsigned n);
/* Pad with nops so that an instruction of @oplen opcode bytes emitted next
 * has its rel32 field 4-byte aligned (run-time address). */
void kjit_emit_align_rel32(struct kjit_emit *e, unsigned oplen);
/* Pad with int3 to @align (power of two) - for non-executed areas. */
void kjit_emit_align_int3(struct kjit_emit *e, unsigned align);

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
