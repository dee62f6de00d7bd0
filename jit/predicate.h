/* predicate.h - an attached function's argument predicate (KernInst's
 * "only when"): the function runs from the cache, counted and timed,
 * only on the calls where one of its arguments holds a condition; every
 * other call runs natively, as if kjit were not there.
 *
 * The test goes first in the function's entry block (the block after its
 * __fentry__ site, which only the entry trampoline enters), after the
 * block's endbr64 and before its timed entry and its counter:
 *
 *       [9c]                  pushfq             if the flags are live
 *       REX 3b 05 <lit>       cmp lit(%rip),%reg ; (or 85: test, for
 *                                                ;  KJIT_PRED_ANY)
 *       7<cc> <ok>            jCC ok             ; the condition holds
 *       [9d]                  popfq
 *       e9 <native>           jmp native         ; the block's original
 *   ok: [9d]                  popfq
 *
 * lit is the value, 8 bytes in the block's literal pool; a 32-bit
 * predicate compares the register's low half with the literal's (no
 * REX.W). One compare and one jump for a false predicate, two with
 * the native jmp. Comparisons are unsigned; the argument registers are
 * the calling convention's (kx86_arg_reg). It clobbers nothing: the
 * compare writes only the flags, saved where live.
 */
#ifndef KJIT_JIT_PREDICATE_H
#define KJIT_JIT_PREDICATE_H

#include "jit/reason.h"
#include "jit/types.h"

/* The ABI's KJIT_IF_* (kmod/kjit_ioctl.h) use these numbers. */
enum kjit_pred_op {
	KJIT_PRED_NONE,
	KJIT_PRED_EQ,  /* == */
	KJIT_PRED_NE,  /* != */
	KJIT_PRED_LT,  /* <  (unsigned) */
	KJIT_PRED_LE,  /* <= */
	KJIT_PRED_GT,  /* >  */
	KJIT_PRED_GE,  /* >= */
	KJIT_PRED_ANY, /* & : any bit of the value set */
	KJIT_PRED_OPS
};

#define KJIT_PRED_ARGS 6 /* arguments passed in registers */

struct kjit_pred {
	u8 op;	 /* enum kjit_pred_op */
	u8 arg;	 /* 0..KJIT_PRED_ARGS-1 */
	u8 bits; /* 64, or 32: the argument's low half */
	u64 value;
};

/* True if @p is well formed (op, arg and bits in range). */
bool kjit_pred_valid(const struct kjit_pred *p);
struct kjit_emit;
/* The test of @p at the start of the block whose original is @native;
 * @live: the arithmetic flags are live there. */
enum kjit_reason kjit_pred_emit(struct kjit_emit *e, const struct kjit_pred *p,
				u64 native, bool live);

#endif
