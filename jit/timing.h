/* timing.h - the calls a timed function's entry and returns make (a
 * session with per-function timing, kmod/timing.h):
 *
 *   68 <fid>           push $fid          the timed function's id
 *   e8 <rel32>         call H             env->time_enter or time_exit
 *   48 8d 64 24 08     lea 8(%rsp),%rsp   (lea: the flags untouched)
 *
 * H keeps every register and flag, and reads the caller's stack pointer
 * (the function's own at its entry and at its ret: where its return
 * address is) as its address of call + 16. At the entry the sequence goes
 * first in the function's entry block (after a guard, before the
 * counter); at a return, just before the ret (or the jmp to the return
 * thunk). A tail call (jmp to another function) makes no call: the
 * callee's entry and return close both.
 *
 * Invariants: the sequence is balanced and the unwind map follows it (an
 * unwinder inside H sees the function's frame plus 16 bytes).
 */
#ifndef KJIT_JIT_TIMING_H
#define KJIT_JIT_TIMING_H

#include "jit/types.h"
#include "jit/reason.h"

struct kjit_translator;
struct kjit_emit;

/* The entry call of the function whose timed entry block starts at
 * @block, if it is one (env->time_fid); KJIT_OK otherwise too. */
enum kjit_reason kjit_timing_entry(struct kjit_translator *tr,
				   struct kjit_emit *e, u64 block);
/* The return call of the timed function containing @block, if any. */
enum kjit_reason kjit_timing_return(struct kjit_translator *tr,
				    struct kjit_emit *e, u64 block);

#endif
