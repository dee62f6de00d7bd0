/* decode.h - block discovery: decode from a start address to the first
 * control transfer and classify every instruction.
 *
 * Invariants:
 *  - A block is the straight line of instructions from its start up to and
 *    including its first control transfer (jcc, jmp, call, ret, loop/jrcxz,
 *    indirect jmp/call, retpoline/return thunk jump). `call __fentry__` is
 *    not a transfer: it is classified KJIT_I_DROP and the block goes on.
 *  - A block that would exceed KJIT_MAX_INSNS ends in a KJIT_I_LIMIT
 *    pseudo-terminator that falls through to the next address.
 *  - No block ends (KJIT_I_LIMIT, cut before a refused instruction) right
 *    after sti or mov ss: it ends before them instead, and a block that
 *    would start with one and end right after it is refused (irq_shadow).
 *  - A block holds at most one instruction with an exception-table entry
 *    that is copied (kjit_insn.fixup, never its terminator): a second one
 *    starts the next block. Liveness treats a KJIT_FIXUP_EXIT one as a
 *    branch out that reads everything (the fault goes to its fixup).
 *  - Decoding never refuses silently: on refusal desc->reason and
 *    desc->reason_addr say which instruction and why.
 *  - Instruction bytes are copied into the descriptor; later stages never
 *    read original code again.
 */
#ifndef KJIT_JIT_DECODE_H
#define KJIT_JIT_DECODE_H

#include "jit/types.h"
#include "jit/reason.h"
#include "jit/arch_x86.h"

#define KJIT_MAX_INSNS 64

enum kjit_insn_kind {
	KJIT_I_PLAIN,	 /* copied; RIP-relative disp32 rebased if disp_off */
	KJIT_I_DROP,	 /* call __fentry__: not emitted */
	KJIT_I_JCC,	 /* jcc rel8/rel32 -> target, else fall through */
	KJIT_I_JMP,	 /* jmp rel8/rel32 -> target */
	KJIT_I_CALL,	 /* call rel32 -> target, returns to addr+len */
	KJIT_I_RET,	 /* ret, ret imm16, jmp __x86_return_thunk */
	KJIT_I_JMP_IND,	 /* jmp reg/mem, jmp __x86_indirect_thunk_reg */
	KJIT_I_CALL_IND, /* call reg/mem, call __x86_indirect_thunk_reg */
	KJIT_I_LOOP,	 /* loop/loope/loopne/jrcxz/jecxz rel8 */
	KJIT_I_LIMIT,	 /* pseudo: block too long, falls through to addr */
	KJIT_I_SITE,	 /* a branch the kernel live-patches (static key):
			    nop or jmp to target, tested at run time */
};

#define KJIT_IND_MEM 0xff /* kjit_insn.reg for a memory-operand indirect */

struct kjit_insn {
	u64 addr;
	u64 target;	/* direct transfers: original target */
	u16 flags_read; /* KX86_FLAGS_ARITH bits read */
	u16 flags_kill; /* KX86_FLAGS_ARITH bits surely overwritten */
	u16 regs_read;	/* GPRs read (bit n: register n, KX86_RAX..R15),
			   address registers included; all when unknown
			   (kjit_decode_insn() alone leaves them unknown:
			   kjit_decode_block() fills them when instrumenting) */
	u16 regs_kill;	/* GPRs surely overwritten whole (a 64- or 32-bit
			   write, not a conditional one) */
	u16 ret_imm;	/* ret imm16 */
	u8 len;
	u8 kind;      /* enum kjit_insn_kind */
	u8 disp_off;  /* offset of RIP-relative disp32, 0 = none */
	u8 rel_off;   /* offset of a branch's rel8/rel32 */
	u8 modrm_off; /* offset of ModRM of an indirect jmp/call (mem form) */
	u8 reg;	      /* indirect register, or KJIT_IND_MEM */
	u8 shadow;    /* sti / mov ss: the next instruction runs in its
			 interrupt shadow, so no block ends right after it */
	u8 rsb_slot;  /* KJIT_I_CALL to addr + len + 1 over an int3: a
			 slot of the return stack buffer filling sequence
			 (`call 1f; int3; 1:`), not a call of a function */
	u8 leave;     /* KJIT_I_CALL to a KJIT_SYM_LEAVE function: it pushes
			 the original return address and jumps to the
			 original callee (jit/flow.c emit_leave_call) */
	u8 static_call; /* an inline static_call site (kjit_env.static_call),
			   decoded as its call, jmp or jcc to the trampoline:
			   a C call, whatever the trampoline holds */
	u8 fixup;     /* enum kjit_fixup: its exception-table entry's form
			 (a block holds at most one such instruction) */
	u64 fixup_target; /* KJIT_FIXUP_EXIT: the original fixup address */
	u8 bytes[KX86_MAX_INSN_LEN];
};

struct kjit_block_desc {
	u64 start;
	u64 end; /* address after the last instruction */
	unsigned n;
	enum kjit_reason reason;
	u64 reason_addr;
	struct kjit_insn insn[KJIT_MAX_INSNS];
};

struct kjit_translator;

/* Decode and classify the block at @start into @d. Returns KJIT_OK or the
 * refusal reason (also stored in d->reason). Does not emit anything. */
enum kjit_reason kjit_decode_block(struct kjit_translator *tr, u64 start,
				   struct kjit_block_desc *d);

/* Decode one instruction at @addr into @in (no fixup check). Used by the
 * liveness look-ahead. */
enum kjit_reason kjit_decode_insn(struct kjit_translator *tr, u64 addr,
				  struct kjit_insn *in, bool check_fixup);

/* The same with the fixup check and the register effects (regs_read,
 * regs_kill): for the registers' look-ahead. */
enum kjit_reason kjit_decode_insn_regs(struct kjit_translator *tr, u64 addr,
				       struct kjit_insn *in);

static inline bool kjit_insn_is_term(const struct kjit_insn *in)
{
	return in->kind != KJIT_I_PLAIN && in->kind != KJIT_I_DROP;
}

#endif /* KJIT_JIT_DECODE_H */
