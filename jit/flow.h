/* flow.h - translation of a block's terminator: jcc, jmp, loop, call, ret,
 * indirect jmp/call (incl. retpoline and return thunks).
 *
 * Calls push the ORIGINAL return address (design (a) in
 * docs/design-jit.md): the stack always looks as in native execution, and a
 * translated ret goes through the dispatcher to find the return site's
 * translation. Sequences (T = original target, R = original return address):
 *
 *   jcc T        ->  jcc rel32 -> exit0(T); jmp rel32 -> exit1(fall)
 *   jmp T        ->  jmp rel32 -> exit0(T)
 *   loop/jrcxz T ->  loop L; jmp rel32 -> exit0(fall); L: jmp rel32 -> exit1(T)
 *   call T       ->  push $R; jmp rel32 -> exit0(T)
 *   ret          ->  jmp dispatcher                  ([rsp] = R already)
 *   ret $n       ->  pop [rsp+n-8]; lea rsp,[rsp+n-8]; jmp dispatcher
 *   jmp *X       ->  push X; jmp dispatcher           (X: reg or mem)
 *   call *X      ->  push $R; push X'; jmp dispatcher (X' = X, +8 if rsp-based)
 *
 * (push $R is `push imm32` when R sign-extends, else push [rip+lit]).
 * With exit instrumentation (edge counts) each direct exit gets its point
 * just before its branch, and jcc becomes
 *   j!cc skip; <edge T>; jmp -> exit0(T); skip: <edge fall>; jmp -> exit1(fall)
 *
 * Invariants: no sequence touches a register or flag the original would
 * not; every direct exit is created with kjit_exit_branch().
 */
#ifndef KJIT_JIT_FLOW_H
#define KJIT_JIT_FLOW_H

#include "jit/types.h"
#include "jit/reason.h"

struct kjit_translator;
struct kjit_emit;
struct kjit_block;
struct kjit_insn;

/* Entry guard of a block at a function start whose __fentry__ site the
 * kernel may enable (env->entry_guard): runs the function natively from
 * @fn while the site, at @site (@fn, or @fn + 4 after an endbr64 or its
 * seal: kx86_fentry_offset()), is not the 5-byte nop. @live: arithmetic
 * flags live at the block's entry (saved around the test if any). */
enum kjit_reason kjit_flow_emit_entry_guard(struct kjit_translator *tr,
					    struct kjit_emit *e, u64 fn,
					    u64 site, u16 live);

/* The end every guard shares, after its test left a jcc rel8 (at @je)
 * taken when the translation may run: the other side restores the flags
 * (@live: pushed before the test) and jumps to @native; at the jcc's
 * target the flags are restored too. */
enum kjit_reason kjit_flow_emit_guard_exit(struct kjit_emit *e, u32 je,
					   bool live, u64 native);

/* The guard of a followed static call trampoline at @tramp whose code is
 * `jmp @f`, against its key's func pointer at @key (flow.c). */
enum kjit_reason kjit_flow_emit_static_call_guard(struct kjit_translator *tr,
						  struct kjit_emit *e,
						  u64 tramp, u64 key, u64 f,
						  u16 live);

/* Emit the translation of terminator @in (last insn of the block) and
 * record the block's exits in @blk. Stubs are emitted later. */
enum kjit_reason kjit_flow_emit_term(struct kjit_translator *tr,
				     struct kjit_emit *e,
				     const struct kjit_insn *in,
				     struct kjit_block *blk);

/* exit.c helpers used by flow.c and translate.c */
enum kjit_reason kjit_exit_branch(struct kjit_emit *e, struct kjit_block *blk,
				  const u8 *op, unsigned oplen, u64 target);
/* @flags_dead: the arithmetic flags are dead at this exit (an indirect
 * call), so it may use env->dispatch_nf. */
enum kjit_reason kjit_exit_dispatch(struct kjit_translator *tr,
				    struct kjit_emit *e,
				    struct kjit_block *blk, bool flags_dead);
enum kjit_reason kjit_exit_emit_stubs(struct kjit_translator *tr,
				      struct kjit_emit *e,
				      struct kjit_block *blk);

#endif /* KJIT_JIT_FLOW_H */
