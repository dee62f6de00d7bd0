/* instrument.h - instrumentation points and the code inserted at them.
 *
 * The translator calls kjit_instrument_point() at every instrumentation
 * point of a block; each enabled instrumentation (a table entry in
 * instrument.c) may emit code there: block counting at KJIT_POINT_ENTRY,
 * edge counting at KJIT_POINT_EXIT (on the hot path just before each
 * direct exit branch, see flow.c). Per-function cycle timing would hook
 * both points the same way, without changing the translator.
 *
 * Invariants:
 *  - Inserted code preserves every register, and every arithmetic flag in
 *    pi->live; it may use the stack below rsp (kernel code has no red zone;
 *    host test code is built with -mno-red-zone).
 *  - A counter increment is a single `incq` on memory, so it is atomic
 *    against interrupts on its CPU (not against other CPUs: counters are
 *    per-CPU in the kernel).
 */
#ifndef KJIT_JIT_INSTRUMENT_H
#define KJIT_JIT_INSTRUMENT_H

#include "jit/types.h"
#include "jit/reason.h"
#include "jit/env.h"

enum kjit_point {
	KJIT_POINT_ENTRY, /* block entry, before the first instruction */
	KJIT_POINT_EXIT,  /* before exit branch pi->exit (reserved) */
};

struct kjit_point_info {
	enum kjit_point point;
	u64 block; /* original block start */
	unsigned exit;
	u16 live; /* arithmetic flags live here */
};

struct kjit_translator;
struct kjit_emit;
struct kjit_block;

/* Emit every enabled instrumentation for point @pi. Records the sequence
 * kind used in blk->seq. Returns KJIT_OK or a refusal reason. */
enum kjit_reason kjit_instrument_point(struct kjit_translator *tr,
				       struct kjit_emit *e,
				       const struct kjit_point_info *pi,
				       struct kjit_block *blk);

/* True if some enabled instrumentation emits code at points of kind @p
 * (the terminator layout depends on it for KJIT_POINT_EXIT). */
bool kjit_instrument_wants(const struct kjit_translator *tr, enum kjit_point p);

/* Emit `incq` of @mem (the counter operand), flags clobbered: OF SF ZF AF PF.
 */
enum kjit_reason kjit_emit_inc_mem(struct kjit_emit *e,
				   const struct kjit_mem *mem);

#endif /* KJIT_JIT_INSTRUMENT_H */
