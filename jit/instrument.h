/* instrument.h - instrumentation points and the code inserted at them.
 *
 * The translator calls kjit_instrument_point() at every instrumentation
 * point of a block; each enabled instrumentation (a table entry in
 * instrument.c) may emit code there: block counting at KJIT_POINT_ENTRY,
 * edge counting at KJIT_POINT_EXIT (on the hot path just before each
 * direct exit branch, see flow.c). Per-function cycle timing would hook
 * both points the same way, without changing the translator.
 *
 * Where KJIT_POINT_ENTRY is: at the block's entry, or - with
 * kjit_config.ctr_move - just before a later instruction of the block's
 * straight line where the increment is cheaper (the flags, or a register,
 * are dead there; kjit_instrument_entry_at()). A block is entered only at
 * its start and left only through its terminator, so code at that point
 * still runs exactly once per execution of the block. Entry
 * instrumentations must need no more than that.
 *
 * The counter sequences (drawn here; the address forms are enum
 * kjit_ctr_form in translate.h, the flags handling enum kjit_flagsave):
 *
 *   inc     incq %gs:disp32                           per-CPU, small offset
 *           movabs $off,%r; incq %gs:(%r)             %r dead at the point
 *           push %r; movabs $off,%r; incq %gs:(%r); pop %r
 *           [lock] incq disp32(%rip) / [disp32]       shared counters
 *   flags   <inc>                                     OF SF ZF AF PF dead
 *           push %rax; lahf; seto %al; <inc>; add $0x7f,%al; sahf; pop %rax
 *           pushfq; <inc>; popfq
 *   edges   j!cc skip; <inc>; jmp T; skip: <inc>; jmp fall   (a jcc block
 *           whose flags are live up to the jcc, dead at both successors:
 *           kjit_instrument_on_edges)
 *
 * Invariants:
 *  - Inserted code preserves every register, and every arithmetic flag in
 *    pi->live; it may use the stack below rsp (kernel code has no red zone;
 *    host test code is built with -mno-red-zone). A register it writes
 *    without saving is one the block itself overwrites, unread, after the
 *    point (pi->dead, jit/liveness.c: proven on the block's own straight
 *    line, never by look-ahead).
 *  - The increment itself is one `incq` on memory: an interrupt, or a
 *    preemption and migration, comes before or after it, never inside it.
 *    With %gs the CPU it runs on is the CPU whose counter it increments;
 *    movabs loads a constant (the same on every CPU), so a migration
 *    between the two instructions changes nothing. Counters shared by CPUs
 *    (KJIT_CTR_LOCK) need the lock prefix instead.
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
	u16 dead; /* GPRs dead here (bit n: register n), rsp never */
	u8 at;	  /* KJIT_POINT_ENTRY: index of the instruction it precedes */
};

struct kjit_translator;
struct kjit_emit;
struct kjit_block;
struct kjit_block_desc;

/* Emit every enabled instrumentation for point @pi. Records the sequence
 * kind used in blk->seq. Returns KJIT_OK or a refusal reason. */
enum kjit_reason kjit_instrument_point(struct kjit_translator *tr,
				       struct kjit_emit *e,
				       const struct kjit_point_info *pi,
				       struct kjit_block *blk);

/* True if some enabled instrumentation emits code at points of kind @p
 * (the terminator layout depends on it for KJIT_POINT_EXIT). */
bool kjit_instrument_wants(const struct kjit_translator *tr, enum kjit_point p);

/*
 * kjit_instrument_entry_at - choose where KJIT_POINT_ENTRY of block @d goes
 * and fill pi->at, pi->live and pi->dead for it. pi->live must hold the
 * flags live at the entry (look-ahead, kjit_live_in_block()). The cheapest
 * point wins (a dead-flags bare increment before a flags-saving one, a
 * dead register before a saved one), the earliest among equals; without
 * kjit_config.ctr_move it is always the entry. Returns KJIT_OK, or
 * KJIT_R_COUNTER when block counting is on and the env gives no counter.
 */
enum kjit_reason kjit_instrument_entry_at(struct kjit_translator *tr,
					  const struct kjit_block_desc *d,
					  struct kjit_point_info *pi);

/*
 * kjit_instrument_on_edges - should block @d's counter go on both edges of
 * its jcc (kjit_config.ctr_edges) instead of at pi (as chosen by
 * kjit_instrument_entry_at)? Yes where pi still needs the flags saved, the
 * block has no instruction with an exception fixup (a fault would leave it
 * through neither edge), no exit instrumentation is on, and the flags the
 * increment writes are dead at both successors (look-ahead). Each edge
 * then gets the bare increment, through a saved register where it needs
 * one (registers are never proven dead past a block), at its
 * KJIT_POINT_EXIT (jit/flow.c's instrumented jcc):
 *   j!cc skip; <inc>; jmp exit(target); skip: <inc>; jmp exit(fall)
 */
bool kjit_instrument_on_edges(struct kjit_translator *tr,
			      const struct kjit_block_desc *d,
			      const struct kjit_point_info *pi);

/* Emit `incq` of @mem (the counter operand), flags clobbered: OF SF ZF AF
 * PF. KJIT_MEM_GS with an offset beyond 32 bits needs a register: it goes
 * through %reg (dead, or saved around it when @save). */
enum kjit_reason kjit_emit_inc_mem(struct kjit_emit *e,
				   const struct kjit_mem *mem, unsigned reg,
				   bool save);

/* Does incrementing @mem need a register (KJIT_MEM_GS, 64-bit offset)? */
bool kjit_mem_needs_reg(const struct kjit_mem *mem);

/* Names of enum kjit_ctr_form and enum kjit_flagsave ("gs_reg", "lahf"),
 * for statistics; "?" when out of range. */
const char *kjit_ctr_form_name(unsigned form);
const char *kjit_seq_name(unsigned seq);

#endif /* KJIT_JIT_INSTRUMENT_H */
