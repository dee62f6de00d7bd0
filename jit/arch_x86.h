/* arch_x86.h - every x86-64 encoding fact the translator relies on, in one
 * place.
 *
 * Names carry a KX86_ prefix so they never collide with the kernel's own
 * <asm/insn.h> macros (X86_REX_W, ...) inside kjit.ko.
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
#define KX86_MAX_INSN_LEN 15

/* Arithmetic flags, same bit positions as RFLAGS (and as Zydis' masks). */
#define KX86_FLAG_CF (1u << 0)
#define KX86_FLAG_PF (1u << 2)
#define KX86_FLAG_AF (1u << 4)
#define KX86_FLAG_ZF (1u << 6)
#define KX86_FLAG_SF (1u << 7)
#define KX86_FLAG_OF (1u << 11)
#define KX86_FLAGS_ARITH                                                       \
	(KX86_FLAG_CF | KX86_FLAG_PF | KX86_FLAG_AF | KX86_FLAG_ZF |           \
	 KX86_FLAG_SF | KX86_FLAG_OF)
/* Flags clobbered by `inc`: every arithmetic flag except CF. */
#define KX86_FLAGS_INC_CLOBBER (KX86_FLAGS_ARITH & ~KX86_FLAG_CF)

/* General purpose register numbers (ModRM/REX numbering). */
enum kx86_reg {
	KX86_RAX = 0,
	KX86_RCX,
	KX86_RDX,
	KX86_RBX,
	KX86_RSP,
	KX86_RBP,
	KX86_RSI,
	KX86_RDI,
	KX86_R8,
	KX86_R9,
	KX86_R10,
	KX86_R11,
	KX86_R12,
	KX86_R13,
	KX86_R14,
	KX86_R15,
	KX86_NREGS
};

/* Prefixes */
#define KX86_PFX_OPSIZE 0x66 /* operand-size override */
#define KX86_PFX_GS	0x65 /* %gs segment override */
#define KX86_PFX_LOCK	0xf0 /* lock: atomic read-modify-write */
/* %cs segment override: ignored in 64-bit mode, so it pads the instruction
 * it precedes (the kernel pads its own `jmp *%reg` so) */
#define KX86_PFX_CS	0x2e
#define KX86_REX	0x40 /* REX base; | W R X B below */
#define KX86_REX_W	0x08
#define KX86_REX_R	0x04
#define KX86_REX_B	0x01

/* One-byte opcodes */
#define KX86_OP_JCC8	  0x70 /* 70+cc rel8 */
#define KX86_OP_JNE8	  0x75 /* jne rel8 */
#define KX86_OP_GRP1_IMM32 0x81 /* group 1 r/m, imm32: /7 is cmp */
#define KX86_GRP1_CMP	  7
#define KX86_OP_ADD_AL_IB 0x04 /* add al, imm8 */
#define KX86_OP_PUSH_R	  0x50 /* 50+r */
#define KX86_OP_POP_R	  0x58 /* 58+r */
#define KX86_OP_PUSH_I32  0x68 /* push imm32 (sign-extended to 64) */
#define KX86_OP_NOP	  0x90
#define KX86_OP_PUSHF	  0x9c
#define KX86_OP_POPF	  0x9d
#define KX86_OP_SAHF	  0x9e
#define KX86_OP_LAHF	  0x9f
#define KX86_OP_RET_IW	  0xc2 /* ret imm16 */
#define KX86_OP_RET	  0xc3
#define KX86_OP_INT3	  0xcc
#define KX86_OP_LOOPNE	  0xe0
#define KX86_OP_LOOPE	  0xe1
#define KX86_OP_LOOP	  0xe2
#define KX86_OP_JRCXZ	  0xe3
#define KX86_OP_CALL32	  0xe8
#define KX86_OP_JMP32	  0xe9
#define KX86_OP_JMP8	  0xeb
#define KX86_OP_GRP5	  0xff /* /0 inc, /2 call, /4 jmp, /6 push */
#define KX86_OP_POP_RM	  0x8f /* /0 pop r/m64 */
#define KX86_OP_LEA	  0x8d
#define KX86_OP_MOV_RM_R     0x89 /* mov r64 -> r/m64 (with REX.W) */
#define KX86_OP_MOV_RM       0x8b /* mov r/m64 -> r64 (with REX.W) */
#define KX86_OP_MOV_RM_IMM32 0xc7 /* /0 mov $imm32 (sign-extended) -> r/m64 */
#define KX86_OP_MOV_RI64  0xb8 /* b8+r imm64 with REX.W: movabs $imm64,%r */
#define KX86_OP_MOV_SREG  0x8e /* mov r/m16 -> Sreg (ModRM.reg) */
#define KX86_SREG_SS	  2    /* ModRM.reg of %ss in mov Sreg */
#define KX86_OP_ESC	  0x0f /* two-byte opcode escape */
/* Two-byte opcodes (after 0f) */
#define KX86_OP2_JCC32 0x80 /* 0f 80+cc rel32 */
#define KX86_OP2_SETCC 0x90 /* 0f 90+cc r/m8 */
#define KX86_OP2_NOPL  0x1f /* 0f 1f /0: multi-byte nop */
/* The kernel's 5-byte nop (x86_nops[5], 0f 1f 44 00 00) at an idle
 * __fentry__ site begins with this byte; an enabled site is a call (e8), a
 * site being patched is int3 (cc). */
#define KX86_NOP5_FIRST KX86_OP_ESC
#define KX86_NOP5                                                              \
	{                                                                      \
		0x0f, 0x1f, 0x44, 0x00, 0x00                                   \
	}
#define KX86_FENTRY_LEN 5 /* an __fentry__ site: nop5, call or jmp rel32 */

/*
 * Indirect branch tracking (CET IBT, CONFIG_X86_KERNEL_IBT): with it
 * enforced, every target of an indirect jmp/call in kernel mode must begin
 * with endbr64, or the CPU raises #CP. Such a kernel starts its functions
 * with endbr64, so their __fentry__ site is at +4; at boot it "seals" the
 * functions whose address is never taken by overwriting their endbr64 with
 * a 4-byte nop found nowhere else (gen_endbr_poison() in <asm/ibt.h>):
 *
 *   f3 0f 1e fa    endbr64
 *   66 0f 1f 00    osp nopl (%rax)    the seal ("poison") up to 6.14: an
 *                                     indirect branch to it faults
 *   0f 1f 40 d6    nopl -0x2a(%rax)   the seal since 6.15 (seen on 7.2;
 *                                     gen_endbr_poison() changed to it)
 * All are exactly 4 bytes (no further displacement follows any).
 */
#define KX86_ENDBR64_LEN 4
#define KX86_ENDBR64                                                           \
	{                                                                      \
		0xf3, 0x0f, 0x1e, 0xfa                                         \
	}
#define KX86_ENDBR_POISON                                                      \
	{                                                                      \
		0x66, 0x0f, 0x1f, 0x00                                         \
	}
#define KX86_ENDBR_POISON_NEW                                                  \
	{                                                                      \
		0x0f, 0x1f, 0x40, 0xd6                                         \
	}

/* ModRM */
#define KX86_MODRM(mod, reg, rm)                                               \
	((u8)(((mod) << 6) | (((reg)&7) << 3) | ((rm)&7)))
#define KX86_GRP5_INC  0
#define KX86_GRP5_CALL 2
#define KX86_GRP5_JMP  4
#define KX86_GRP5_PUSH 6
#define KX86_CC_O      0x0 /* condition code "overflow" (seto) */
#define KX86_CC_E      0x4 /* condition code "equal" (je) */
#define KX86_CC_B      0x2 /* "below" (unsigned <: jb) */
#define KX86_CC_AE     0x3 /* "above or equal" (unsigned >=: jae) */
#define KX86_CC_NE     0x5 /* "not equal" (jne) */
#define KX86_CC_BE     0x6 /* "below or equal" (unsigned <=: jbe) */
#define KX86_CC_A      0x7 /* "above" (unsigned >: ja) */
#define KX86_OP_CMP_R_RM  0x3b /* cmp r/m, r: flags of r - r/m */
#define KX86_OP_TEST_RM_R 0x85 /* test r, r/m */
/* ModRM.rm values that do not name a plain base register at mod 0:
 * 4 (rsp/r12) means "a SIB byte follows", 5 (rbp/r13) "disp32, no base"
 * (RIP-relative in 64-bit mode); such bases take a SIB byte, or mod 1
 * with a zero disp8. */
#define KX86_RM_SIB    4
#define KX86_RM_DISP32 5
#define KX86_SIB(scale, index, base)                                           \
	((u8)(((scale) << 6) | (((index)&7) << 3) | ((base)&7)))
#define KX86_SIB_NO_INDEX 4 /* SIB.index 4: no index register */

/* Encoded sizes used in size bounds */
#define KX86_JMP32_LEN	     5
#define KX86_JCC32_LEN	     6
#define KX86_PUSH_I32_LEN    5
#define KX86_PUSH_RIPREL_LEN 6 /* ff 35 disp32 */
#define KX86_JMP_RIPREL_LEN  6 /* ff 25 disp32 */

/* The System V calling convention's integer argument registers, in
 * order (the kernel's too). */
static inline u8 kx86_arg_reg(unsigned n)
{
	static const u8 regs[6] = {KX86_RDI, KX86_RSI, KX86_RDX,
				   KX86_RCX, KX86_R8,  KX86_R9};

	return n < 6 ? regs[n] : (u8)KX86_NREGS;
}

/* Kernel text lives in the top 2 GiB: a sign-extended imm32 reaches it. */
static inline bool kx86_fits_simm32(u64 v)
{
	return (s64)v == (s64)(s32)(u32)v;
}

static inline bool kx86_starts_with(const u8 *code, size_t n, const u8 *pat,
				    size_t len)
{
	size_t i;

	if (n < len)
		return false;
	for (i = 0; i < len; i++)
		if (code[i] != pat[i])
			return false;
	return true;
}

/* Do the @n bytes at @code begin with endbr64? */
static inline bool kx86_is_endbr64(const u8 *code, size_t n)
{
	static const u8 endbr[KX86_ENDBR64_LEN] = KX86_ENDBR64;

	return kx86_starts_with(code, n, endbr, KX86_ENDBR64_LEN);
}

/* ... with an endbr64 or the seal that replaced one, either kernel's
 * (the kernel's is_endbr(), less endbr32, which no 64-bit function starts
 * with)? */
static inline bool kx86_is_endbr(const u8 *code, size_t n)
{
	static const u8 poison[KX86_ENDBR64_LEN] = KX86_ENDBR_POISON;
	static const u8 poison_new[KX86_ENDBR64_LEN] = KX86_ENDBR_POISON_NEW;

	return kx86_is_endbr64(code, n) ||
	       kx86_starts_with(code, n, poison, KX86_ENDBR64_LEN) ||
	       kx86_starts_with(code, n, poison_new, KX86_ENDBR64_LEN);
}

/*
 * kx86_fentry_offset - where a function's __fentry__ site is, given the
 * first @n bytes of the function at @code: KX86_ENDBR64_LEN after an
 * endbr64 or its seal (IBT kernels; a function gcc gave no endbr64, one
 * only ever called directly, keeps its site at +0 there too), else 0.
 * The one place the tool, the module and the translator learn it from.
 */
static inline unsigned kx86_fentry_offset(const u8 *code, size_t n)
{
	return kx86_is_endbr(code, n) ? KX86_ENDBR64_LEN : 0;
}

/*
 * Could the instruction whose first @n bytes are @b be an __fentry__ site,
 * in any state the kernel leaves one in? A site holds the 5-byte nop, a
 * call or a jmp rel32, and text_poke_bp() changes one into another by
 * writing int3 over the first byte, then the other four bytes, then the
 * new first byte: so the first byte is always 0f (the nop, whose second
 * byte is then 1f), e8, e9 or cc. Anything else is not a site, and the
 * translator need not ask the environment (kjit_env.ftrace_site: a lookup
 * in ftrace's records, the costliest question it asks of an instruction).
 */
static inline bool kx86_may_be_fentry_site(const u8 *b, size_t n)
{
	if (!n)
		return false;
	if (b[0] == KX86_OP_CALL32 || b[0] == KX86_OP_JMP32 ||
	    b[0] == KX86_OP_INT3)
		return true;
	return b[0] == KX86_NOP5_FIRST && n > 1 && b[1] == KX86_OP2_NOPL;
}

/* rel32 from the end of an instruction ending at @end to @target. */
static inline bool kx86_rel32(u64 end, u64 target, s32 *rel)
{
	s64 d = (s64)(target - end);

	if (d != (s64)(s32)d)
		return false;
	*rel = (s32)d;
	return true;
}

#endif /* KJIT_JIT_ARCH_X86_H */
