/* arch_x86.h - every x86-64 encoding fact the translator relies on, in one place.
 *
 * Invariants:
 *  - No other jit/ file spells an opcode byte as a bare number; they use
 *    these names, so an encoding mistake is fixed here once.
 *  - Sizes given here are the exact byte counts emitted by emit.c; the
 *    worst-case block size bound in translate.h is derived from them.
 */
#ifndef KJIT_JIT_ARCH_X86_H
#define KJIT_JIT_ARCH_X86_H

#include "jit/types.h"

/* Longest legal x86 instruction. */
#define X86_MAX_INSN_LEN 15

/* Arithmetic flags, same bit positions as RFLAGS (and as Zydis' masks). */
#define X86_FLAG_CF (1u << 0)
#define X86_FLAG_PF (1u << 2)
#define X86_FLAG_AF (1u << 4)
#define X86_FLAG_ZF (1u << 6)
#define X86_FLAG_SF (1u << 7)
#define X86_FLAG_OF (1u << 11)
#define X86_FLAGS_ARITH                                                        \
	(X86_FLAG_CF | X86_FLAG_PF | X86_FLAG_AF | X86_FLAG_ZF | X86_FLAG_SF | \
	 X86_FLAG_OF)
/* Flags clobbered by `inc`: every arithmetic flag except CF. */
#define X86_FLAGS_INC_CLOBBER (X86_FLAGS_ARITH & ~X86_FLAG_CF)

/* General purpose register numbers (ModRM/REX numbering). */
enum x86_reg {
	X86_RAX = 0, X86_RCX, X86_RDX, X86_RBX, X86_RSP, X86_RBP, X86_RSI,
	X86_RDI, X86_R8, X86_R9, X86_R10, X86_R11, X86_R12, X86_R13, X86_R14,
	X86_R15, X86_NREGS
};

/* Prefixes */
#define X86_PFX_OPSIZE 0x66 /* operand-size override */
#define X86_PFX_GS 0x65     /* %gs segment override */
#define X86_REX 0x40        /* REX base; | W R X B below */
#define X86_REX_W 0x08
#define X86_REX_B 0x01

/* One-byte opcodes */
#define X86_OP_JCC8 0x70     /* 70+cc rel8 */
#define X86_OP_ADD_AL_IB 0x04 /* add al, imm8 */
#define X86_OP_PUSH_R 0x50   /* 50+r */
#define X86_OP_POP_R 0x58    /* 58+r */
#define X86_OP_PUSH_I32 0x68 /* push imm32 (sign-extended to 64) */
#define X86_OP_NOP 0x90
#define X86_OP_PUSHF 0x9c
#define X86_OP_POPF 0x9d
#define X86_OP_SAHF 0x9e
#define X86_OP_LAHF 0x9f
#define X86_OP_RET_IW 0xc2 /* ret imm16 */
#define X86_OP_RET 0xc3
#define X86_OP_INT3 0xcc
#define X86_OP_LOOPNE 0xe0
#define X86_OP_LOOPE 0xe1
#define X86_OP_LOOP 0xe2
#define X86_OP_JRCXZ 0xe3
#define X86_OP_CALL32 0xe8
#define X86_OP_JMP32 0xe9
#define X86_OP_JMP8 0xeb
#define X86_OP_GRP5 0xff /* /0 inc, /2 call, /4 jmp, /6 push */
#define X86_OP_POP_RM 0x8f /* /0 pop r/m64 */
#define X86_OP_LEA 0x8d
#define X86_OP_ESC 0x0f /* two-byte opcode escape */
/* Two-byte opcodes (after 0f) */
#define X86_OP2_JCC32 0x80 /* 0f 80+cc rel32 */
#define X86_OP2_SETCC 0x90 /* 0f 90+cc r/m8 */
#define X86_OP2_NOPL 0x1f  /* 0f 1f /0: multi-byte nop */

/* ModRM */
#define X86_MODRM(mod, reg, rm) ((u8)(((mod) << 6) | (((reg) & 7) << 3) | ((rm) & 7)))
#define X86_GRP5_INC 0
#define X86_GRP5_CALL 2
#define X86_GRP5_JMP 4
#define X86_GRP5_PUSH 6
#define X86_CC_O 0x0 /* condition code "overflow" (seto) */

/* Encoded sizes used in size bounds */
#define X86_JMP32_LEN 5
#define X86_JCC32_LEN 6
#define X86_PUSH_I32_LEN 5
#define X86_PUSH_RIPREL_LEN 6 /* ff 35 disp32 */
#define X86_JMP_RIPREL_LEN 6  /* ff 25 disp32 */

/* Kernel text lives in the top 2 GiB: a sign-extended imm32 reaches it. */
static inline bool x86_fits_simm32(u64 v)
{
	return (s64)v == (s64)(s32)(u32)v;
}

/* rel32 from the end of an instruction ending at @end to @target. */
static inline bool x86_rel32(u64 end, u64 target, s32 *rel)
{
	s64 d = (s64)(target - end);

	if (d != (s64)(s32)d)
		return false;
	*rel = (s32)d;
	return true;
}

#endif /* KJIT_JIT_ARCH_X86_H */
