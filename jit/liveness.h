/* liveness.h - which arithmetic flags are live at a block's entry, and
 * which flags and registers are live inside it.
 *
 * Invariants:
 *  - Conservative: anything not proven dead is live. Unknown successors
 *    (ret, indirect jmps, undecodable code, look-ahead exhausted) make
 *    every not-yet-overwritten flag live. Facts of the ABI used:
 *     - a call or jmp to a compiled C function's entry - one whose first
 *       instruction (after an endbr64) is its __fentry__ site - leaves
 *       every flag dead: C reads no flags at a function's entry; and a
 *       block that is such an entry has none live (kjit_live_in_block);
 *     - so does a ret inside such a function (kjit_env.func_start): the
 *       ABI leaves the flags undefined at a return, so no caller reads
 *       them after the call;
 *     - so does an indirect call: a callee called through a pointer
 *       reads none at its entry (the dispatcher's flags-dead entry and
 *       the inline prediction rely on it too);
 *     - and so does an inline static call site (kjit_insn.static_call):
 *       static_call() is a C call, whose target is a C function, the
 *       return-0 stub or nothing (a NULL trampoline's ret back into the
 *       C caller, which reads no flags after a call).
 *    Assembly functions have no __fentry__ site, and may take or return
 *    flags (the cmpxchg16b emulation returns its result in ZF), so a ret
 *    in one, and a direct call or jmp to one, are looked through or
 *    taken as unknown.
 *  - Bounded: at most cfg.live_depth successor levels, KJIT_LIVE_WINDOW
 *    instructions per level, plus up to SITE_RUN (liveness.c) static key
 *    sites whose nop path costs no level; the recursion depth is that
 *    bound.
 *  - Register liveness looks past the block only into code that stays
 *    what it is: successors of a jcc, jmp or site in the same function
 *    (kjit_env.func_start), never a callee, a static call trampoline or
 *    another function (text the kernel rewrites or a livepatch
 *    replaces); and it uses the ABI at a compiled C callee's entry and
 *    after a ret in compiled C (kjit_regs_dead_after()).
 */
#ifndef KJIT_JIT_LIVENESS_H
#define KJIT_JIT_LIVENESS_H

#include "jit/types.h"
#include "jit/decode.h"

#define KJIT_LIVE_WINDOW 16

struct kjit_translator;

/* Arithmetic flags (KX86_FLAG_*) live at the entry of decoded block @d. */
u16 kjit_live_in_block(struct kjit_translator *tr,
		       const struct kjit_block_desc *d);

/* Arithmetic flags and GPRs live before each instruction of @d, proven on
 * the block's own straight line: everything but the registers in
 * @regs_dead_after (kjit_regs_dead_after(): facts of the ABI, not of the
 * successors' code) is taken as live after its terminator, so the proof
 * holds whatever the successors become. flags[i], regs[i] for i < d->n.
 * One backward pass. */
void kjit_live_points(const struct kjit_block_desc *d, u16 regs_dead_after,
		      u16 *flags, u16 *regs);

/* General registers (1 << KX86_*) that the ABI leaves dead after
 * terminator @in, whatever its successors do: at a call or jmp to a
 * compiled C function's entry the scratch registers r10 and r11 (no
 * argument; the caller expects them clobbered), after a ret in a compiled C
 * function every caller-saved register but the return value's rax and
 * rdx. 0 for anything else. */
u16 kjit_regs_dead_after(struct kjit_translator *tr,
			 const struct kjit_insn *in);

/* Flags live after terminator @in (its successors, kjit_config.live_depth
 * levels ahead); @in must not be the look-ahead's own scratch (tr->la). */
u16 kjit_live_after(struct kjit_translator *tr, const struct kjit_insn *in);

/* Flags live at original address @addr, looking @depth levels ahead. */
u16 kjit_live_at(struct kjit_translator *tr, u64 addr, unsigned depth);

#endif /* KJIT_JIT_LIVENESS_H */
