/* exit.h - block exits: patchable exit branches, exit stubs, and the patch
 * that links an exit to its successor's translation.
 *
 * Every way out of a translated block is an exit. A direct exit (known
 * original target) is a jmp/jcc rel32 whose 4-byte rel32 field is naturally
 * aligned, so one aligned 32-bit store re-targets it atomically. Unlinked,
 * it points at the exit's stub, which hands the original target to the
 * dispatcher:
 *
 *   hot path (block body)       stub area (after the body)
 *   [2e..] 0f 8x rel32 ------+  stub k:
 *   [2e..] e9    rel32 --+   +-> 68 imm32   push $orig_target, or
 *                        |       ff 35 d32  push [rip+lit] (no sign-extend)
 *                        |       e9 rel32   jmp dispatcher, or
 *                        |       ff 25 d32  jmp [rip+lit]
 *                        +-> stub k+1: ...
 *   each rel32 4-aligned; [2e..]: up to three %cs prefixes that align it,
 *   part of the branch (kjit_emit_align_rel32), never a nop of their own
 *   literals (8-aligned, int3 padded): 8-byte values used by [rip+lit] forms
 *
 * Linking writes, at branch_off, rel32 = successor - (run address of
 * branch_off + 4). Unlinking writes back the value that points at the stub.
 *
 * Indirect exits (ret, jmp/call through register or memory, retpoline
 * thunks) are not linkable: their target is pushed and they jump straight
 * to the dispatcher.
 *
 * Dispatcher contract (implemented by kmod/ and by tests/host/):
 *   on entry  [rsp] = original target address (8 bytes), every register and
 *             RFLAGS as the program left them, rest of the stack untouched;
 *   it pops that slot and continues at the target's translation (or at the
 *   original target natively), leaving registers and flags unchanged.
 *
 * Invariants:
 *  - branch_off is 4-aligned in run-time addresses for every direct exit.
 *  - The stub of an exit is never reached once that exit is linked; it stays
 *    in place so unlinking is one store too.
 */
#ifndef KJIT_JIT_EXIT_H
#define KJIT_JIT_EXIT_H

#include "jit/types.h"
#include "jit/reason.h"
#include "jit/arch_x86.h"

#define KJIT_MAX_EXITS 3 /* jcc: 2, and a copied fixup's landing */

enum kjit_exit_kind {
	KJIT_EXIT_DIRECT,   /* linkable; target known */
	KJIT_EXIT_INDIRECT, /* target on the stack; goes to the dispatcher */
};

struct kjit_exit {
	u64 target;	/* DIRECT: original target address */
	u32 branch_off; /* DIRECT: offset of the aligned rel32 field */
	u32 stub_off;	/* DIRECT: offset of the stub; INDIRECT: of the jump */
	u8 kind;	/* enum kjit_exit_kind */
};

struct kjit_block;

/* Compute the link patch of exit @idx of block @b (emitted at run-time
 * address @run) so that it jumps to @dest. Fills *off (offset of the 4-byte
 * aligned field within the block), *new_val and *old_val (the value it holds
 * while unlinked - for a compare-and-exchange). Writes nothing.
 * Returns KJIT_R_BAD_ARG for an indirect exit or bad index,
 * KJIT_R_BRANCH_FAR if @dest is out of rel32 reach. */
enum kjit_reason kjit_exit_patch(const struct kjit_block *b, u64 run,
				 unsigned idx, u64 dest, u32 *off, u32 *new_val,
				 u32 *old_val);

/*
 * Inline prediction sites (jit/flow.c): KJIT_PRED_WAYS ways, each a
 * `cmp $P,%reg` (imm32 at pred_imm_off + KJIT_PRED_STRIDE * k) and a
 * `je` (rel32 at pred_jmp_off + KJIT_PRED_STRIDE * k). An empty way holds
 * P = 0 and rel 0 (the je goes on to the next way). Ways fill in order
 * and stay filled: a CPU never sees one target's continuation replaced.
 */
#define KJIT_PRED_WAYS	 3
#define KJIT_PRED_STRIDE 16

static inline u32 kjit_read_u32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

/*
 * An indirect jmp's inline prediction (jit/flow.c, predict_indirect_jumps):
 * way k is `lea disp32(%reg),%rcx; jrcxz H_k`, its disp32 (-P, 0 while
 * empty) at pred_imm_off + KJIT_JPRED_WAY_STRIDE * k; hit stub H_k is
 * `pop %rcx; jmp rel32`, its rel32 (the site's miss path while empty) at
 * pred_jmp_off + KJIT_JPRED_HIT_STRIDE * k.
 */
#define KJIT_JPRED_WAY_STRIDE 12
#define KJIT_JPRED_HIT_STRIDE 8
/* The site's miss path begins `movq $M,%gs:jsite_gs+8` (65 48 c7 04 25
 * disp32 imm32), M its own address: the imm32, 4-aligned, lies this far
 * into it. Once every way is filled, or a target cannot be, the cache
 * stores 0 there: the site then names no site, and its misses stop
 * sending the dispatcher's lookup-table hits into C to learn. */
#define KJIT_JSITE_IMM_OFF 9

/* The way fields of a prediction site: the first one's offsets, the
 * distances between ways, and the value way k's imm32 holds for a target
 * (0: the way is empty). A chained site's ways apply one after the other
 * to one register (`jmp *%rcx`: each way's lea turns what the way before
 * left in %rcx), so way k holds the difference between what ways k and
 * k-1 compare with, and compares with the sum of ways 0..k. */
struct kjit_pred_site {
	u32 imm_off, jmp_off, imm_stride, jmp_stride;
	bool chained;
};

/* The value @site's first empty way must hold so that it compares with
 * @imm, into *@v (sign-extended values: a way's imm32 is a disp32 or an
 * imm32 the CPU sign-extends). Returns that way's number, KJIT_PRED_WAYS
 * if every way is filled, or -1 if a way compares with @imm already or a
 * chained way cannot reach it. */
static inline int kjit_pred_next_way(const struct kjit_pred_site *site,
				     const u8 *code, u32 imm, u32 *v)
{
	s64 want = (s64)(s32)imm, acc = 0, d;
	u32 w, k;

	for (k = 0; k < KJIT_PRED_WAYS; k++) {
		w = kjit_read_u32(code + site->imm_off + site->imm_stride * k);
		if (!w)
			break;
		acc = site->chained ? acc + (s32)w : (s32)w;
		if (acc == want)
			return -1; /* predicted already */
	}
	if (k == KJIT_PRED_WAYS)
		return KJIT_PRED_WAYS;
	d = site->chained ? want - acc : want;
	if (!d || d != (s64)(s32)d)
		return -1;
	*v = (u32)d;
	return (int)k;
}

/* The patch that fills the first empty way of @site (a block emitted at
 * run-time address @run, its bytes readable at @code) with @imm (what the
 * way compares with: the target, or minus it) and @dest, the target's
 * continuation. Store *imm_val at *imm_off first and *rel_val at *rel_off
 * after it: a CPU that sees the compared value before its continuation
 * goes on to the site's miss path, which is right. Writes nothing.
 * KJIT_R_BAD_ARG: no site, @imm 0, one a way has already, or every way
 * filled; KJIT_R_BRANCH_FAR: @dest out of rel32 reach.
 * (inline: the host rig's dispatcher calls it in integer-only code) */
static inline enum kjit_reason kjit_pred_fill(const struct kjit_pred_site *site,
					      u64 run, const u8 *code, u32 imm,
					      u64 dest, u32 *imm_off,
					      u32 *imm_val, u32 *rel_off,
					      u32 *rel_val)
{
	u32 v = 0;
	s32 rel;
	int k;

	if (!site->imm_off || !imm)
		return KJIT_R_BAD_ARG;
	k = kjit_pred_next_way(site, code, imm, &v);
	if (k < 0 || k == KJIT_PRED_WAYS)
		return KJIT_R_BAD_ARG; /* predicted, unreachable, or full */
	*imm_off = site->imm_off + site->imm_stride * (u32)k;
	*rel_off = site->jmp_off + site->jmp_stride * (u32)k;
	if (!kx86_rel32(run + *rel_off + 4, dest, &rel))
		return KJIT_R_BRANCH_FAR;
	*imm_val = v;
	*rel_val = (u32)rel;
	return KJIT_OK;
}

/* A followed indirect call's site (kjit_block.pred_imm_off and
 * .pred_jmp_off, no jsite_off): kjit_pred_fill() with @target as the
 * cmp's imm32, which must sign-extend to it and not be 0. */
static inline enum kjit_reason
kjit_pred_patch(u32 pred_imm_off, u32 pred_jmp_off, u64 run, const u8 *code,
		u64 target, u64 dest, u32 *imm_off, u32 *imm_val, u32 *rel_off,
		u32 *rel_val)
{
	const struct kjit_pred_site site = {pred_imm_off, pred_jmp_off,
					    KJIT_PRED_STRIDE, KJIT_PRED_STRIDE,
					    false};

	if (!kx86_fits_simm32(target))
		return KJIT_R_BAD_ARG;
	return kjit_pred_fill(&site, run, code, (u32)target, dest, imm_off,
			      imm_val, rel_off, rel_val);
}

/* Is the indirect jmp site whose first way's disp32 lies at @imm_off in
 * @code a jump through %rcx? Its ways' lea disp32(%rcx),%rcx (48 8d 89
 * disp32: REX.W without REX.B, ModRM mod 2, reg and rm %rcx) then each
 * turn what the way before left, so the site is chained (struct
 * kjit_pred_site). The bytes say it; the block needs no flag of its own. */
static inline bool kjit_jpred_chained(const u8 *code, u32 imm_off)
{
	return imm_off >= 3 &&
	       code[imm_off - 1] == KX86_MODRM(2, KX86_RCX, KX86_RCX) &&
	       code[imm_off - 3] == (KX86_REX | KX86_REX_W);
}

/* An indirect jmp's site (kjit_block.jsite_off set): kjit_pred_fill() with
 * -@target as the lea's disp32 (so %rcx is 0 exactly when the register
 * holds @target), which must sign-extend to it. */
static inline enum kjit_reason
kjit_jpred_patch(u32 pred_imm_off, u32 pred_jmp_off, u64 run, const u8 *code,
		 u64 target, u64 dest, u32 *imm_off, u32 *imm_val, u32 *rel_off,
		 u32 *rel_val)
{
	const struct kjit_pred_site site = {
	    pred_imm_off, pred_jmp_off, KJIT_JPRED_WAY_STRIDE,
	    KJIT_JPRED_HIT_STRIDE,
	    pred_imm_off && kjit_jpred_chained(code, pred_imm_off)};

	if (!kx86_fits_simm32(target) || (u32)target == 0x80000000u)
		return KJIT_R_BAD_ARG; /* -target would not fit */
	return kjit_pred_fill(&site, run, code, 0u - (u32)target, dest, imm_off,
			      imm_val, rel_off, rel_val);
}

#endif /* KJIT_JIT_EXIT_H */
