/* translate.h - public API of the translator core: one basic block in, one
 * instrumented, relocated copy with linkable exits out.
 *
 * Use:
 *   struct kjit_translator *tr = <allocate sizeof(*tr), not on the stack>;
 *   kjit_translator_init(tr, &env, &cfg);
 *   r = kjit_translate(tr, orig, buf, cap, run_addr, &blk);
 *   if (r != KJIT_OK) run the block natively (kjit_reason_name(r) says why);
 *   else copy nothing more: buf[0..blk.len) is the block, entry at offset 0,
 *        meant to run at run_addr (buf may be a writable alias of it).
 *
 * Block layout (offsets from run_addr):
 *
 *   0          endbr64, with kjit_config.ibt only (the block's entry is the
 *              address a trampoline's indirect jmp may land on)
 *   ...        entry guard (deep callees, env->entry_guard)
 *   ...        entry instrumentation (block counter; flags-safe form if the
 *              arithmetic flags are live at entry)
 *   ...        body: original instructions, RIP-relative operands rebased
 *              (the block counter sits before instruction ctr_at instead
 *              of at the entry when that point is cheaper)
 *   ...        translated terminator + exit branches (see exit.h, flow.c)
 *   body_len   exit stubs (cold), then the 8-aligned literal pool
 *   len        end
 *
 * Invariants:
 *  - kjit_translate() writes only buf[0..cap) and nothing at all to memory
 *    outside it; on refusal buf contents are unspecified and blk->reason set.
 *  - It does not link exits, publish the block or flush anything: that is
 *    the code cache's job. It may run in any context that may call the env
 *    callbacks (no sleeping of its own, no allocation).
 *  - Not reentrant per translator: one kjit_translator per CPU or a lock.
 */
#ifndef KJIT_JIT_TRANSLATE_H
#define KJIT_JIT_TRANSLATE_H

#include <Zydis/Zydis.h>
#include "jit/types.h"
#include "jit/reason.h"
#include "jit/env.h"
#include "jit/decode.h"
#include "jit/emit.h"
#include "jit/exit.h"

/* Worst-case output bytes for one block (fits any block of KJIT_MAX_INSNS). */
#define KJIT_MAX_BLOCK_BYTES                                                   \
	(KX86_ENDBR64_LEN + KJIT_MAX_INSNS * KX86_MAX_INSN_LEN + 320)

/* How a counter increment keeps the arithmetic flags, chosen per block by
 * flags liveness (kjit_block.seq). */
enum kjit_flagsave {
	KJIT_SEQ_NONE = 0, /* no instrumentation emitted */
	KJIT_SEQ_INC,  /* the increment alone: OF SF ZF AF PF dead at entry */
	KJIT_SEQ_LAHF, /* push rax; lahf; seto al; <inc>; add al,0x7f; sahf; pop
			  rax */
	KJIT_SEQ_PUSHF, /* pushfq; <inc>; popfq */
	KJIT_SEQ_MOVED, /* the increment alone, moved past the block's first
			   instructions to a point where the flags are dead
			   (kjit_config.ctr_move) */
	KJIT_SEQ_EDGES, /* the increment alone on both edges of the block's
			   jcc, where the flags are dead at both successors
			   (kjit_config.ctr_edges) */
	KJIT_SEQ_COUNT
};

/* How a counter is addressed and incremented (kjit_block.ctr). */
enum kjit_ctr_form {
	KJIT_CTR_NONE = 0,
	KJIT_CTR_LOCK,	    /* lock incq disp32(%rip) or [disp32]: counters
			       shared by CPUs (kmod/'s old form) */
	KJIT_CTR_PLAIN,	    /* incq disp32(%rip) or [disp32], no lock */
	KJIT_CTR_GS_DISP32, /* incq %gs:disp32: a per-CPU offset that fits */
	KJIT_CTR_GS_REG,    /* movabs $off,%r; incq %gs:(%r) with %r dead */
	KJIT_CTR_GS_SAVED,  /* push %r; movabs $off,%r; incq %gs:(%r); pop %r */
	KJIT_CTR_GS_BANK,   /* mov %gs:slot,%r; incq %gs:disp(%r), %r dead:
			       the running task's bank (a split session) */
	KJIT_CTR_GS_BANK_SAVED, /* the same with %r pushed and popped */
	KJIT_CTR_FORMS
};

/* Registers for per-CPU counters with a 64-bit offset. */
enum kjit_ctr_reg {
	KJIT_REG_DEAD = 0, /* a register dead at the point, else save one */
	KJIT_REG_SAVE,	   /* always save one (tests, benchmarks) */
};

/* Instrumentation selection (bits). */
#define KJIT_INSTR_BLOCK_COUNT (1u << 0)
#define KJIT_INSTR_EDGE_COUNT  (1u << 1) /* per direct exit, on the hot path */

struct kjit_config {
	unsigned instr; /* KJIT_INSTR_* (default: block count) */
	enum kjit_flagsave
	    live_seq;	 /* LAHF (default) or PUSHF when flags live */
	bool force_live; /* tests: treat flags as live at every entry */
	u8 live_depth;	 /* successor look-ahead levels (default 2) */
	/* The block counter may sit after the block's first instructions,
	 * where the arithmetic flags (or a register, KJIT_MEM_GS with a
	 * 64-bit offset) are dead, instead of at the entry: still once per
	 * execution of the block, cheaper (default on; see instrument.h). */
	bool ctr_move;
	/* A block ending in a jcc whose counter would need the flags saved
	 * wherever it went (a lone jcc at a branch target, mostly) has it on
	 * both of the jcc's edges instead, where the look-ahead proves the
	 * flags dead at both successors: still once per execution, as the
	 * block is left only by one of them (a block with an exception fixup
	 * is not: a fault would leave it uncounted). Default on; see
	 * instrument.h. */
	bool ctr_edges;
	enum kjit_ctr_reg ctr_reg; /* default KJIT_REG_DEAD */
	/* Native-call mode (default off): calls run as real calls from the
	 * cache - the return address pushed is the cache address of the exit
	 * that follows the call - and ret is the original ret. The kernel uses
	 * it (see docs/design/calls-and-scope.md); off, a call pushes the
	 * original return address and ret goes through the dispatcher. */
	bool native_calls;
	/* With native_calls: indirect calls go through the dispatcher too
	 * (`call` to a stub that pushes the target), so a deep session can
	 * follow them; off, they are copied and run the callee natively. */
	bool follow_indirect_calls;
	/* With follow_indirect_calls: a followed indirect call through a
	 * register first compares the target with an inline prediction (an
	 * immediate, 0 until the cache sets it once, to the first target
	 * that site sees) and jumps straight to that target's continuation
	 * on a match; see jit/flow.c and kjit_cache_predict(). */
	bool predict_indirect_calls;
	/* An indirect jmp through a register (a sibling call through a
	 * pointer, a computed goto) first compares the target with an inline
	 * prediction too, without touching the flags (nothing proves them
	 * dead at an indirect jmp): `lea -P(%reg),%rcx; jrcxz` under a saved
	 * %rcx, one way per target, filled by the cache from what the site's
	 * miss path leaves in kjit_env.jsite_gs (jit/flow.c,
	 * kjit_cache_predict_jump()). Needs jsite_gs and a block address that
	 * a sign-extended imm32 holds; default off. */
	bool predict_indirect_jumps;
	/* The kernel enforces indirect branch tracking (default off; the
	 * module sets it when the running kernel has CONFIG_X86_KERNEL_IBT):
	 * every address of the cache that an indirect jmp/call may reach
	 * must begin with endbr64. Each block then begins with one (its entry
	 * is what a trampoline's `jmp *%r11` lands on, and any block may be
	 * an entry), an endbr64 or seal the original has at the block's start
	 * is dropped for it, and the translator emits no indirect jmp/call
	 * of its own: a target out of rel32 reach is refused (branch_far)
	 * instead of reached through `jmp *[rip+lit]`, which would need an
	 * endbr64 at the dispatcher or at a sealed function. Off, the output
	 * is byte for byte what it was before the option existed. */
	bool ibt;
};

struct kjit_stats {
	u64 blocks; /* translated */
	u64 refused[KJIT_R_COUNT];
	u64 seq[KJIT_SEQ_COUNT]; /* by enum kjit_flagsave */
	/* block counters by form and flags handling */
	u64 ctr[KJIT_CTR_FORMS][KJIT_SEQ_COUNT];
	u64 in_bytes, out_bytes, body_bytes;
	u64 decodes,
	    memo_hits; /* instructions decoded; of them, from the memo */
	u64 fixups[4]; /* blocks by kjit_block.fix_kind (enum kjit_fixup) */
};

/* What one translation produced (metadata; the code is in the buffer). */
struct kjit_block {
	u64 orig;     /* original start */
	u32 orig_len; /* bytes of original code covered */
	u32 body_len; /* hot bytes: entry up to the stubs */
	u32 len;      /* all bytes incl. stubs and literals */
	/* Where a direct branch enters: past the endbr64 that opens the block
	 * with kjit_config.ibt, which only an indirect branch needs (the
	 * block's start, its indirect entry, stays for the dispatcher, the
	 * lookup table and the entry trampoline); 0 without one. */
	u8 direct_off;
	u16 n_insns;
	u8 n_exits;
	u8 term;     /* enum kjit_insn_kind of the last instruction */
	u8 seq;	     /* enum kjit_flagsave of the block counter */
	u8 ctr;	     /* enum kjit_ctr_form of the block counter */
	u8 ctr_at;   /* index of the instruction the block counter precedes
			(0: at the entry; see kjit_config.ctr_move) */
	u8 ctr_reg;  /* register of KJIT_CTR_GS_REG/SAVED, else 0xff */
	u16 live_in; /* arithmetic flags live at entry (KX86_FLAG_*) */
	/* native-call mode, a block ending in a call: offset of the return
	 * address that call pushes (where the callee returns into the cache);
	 * 0: the block ends in no such call */
	u16 ret_off;
	/* a followed indirect call's inline prediction
	 * (predict_indirect_calls): offsets of its first way's cmp imm32 and je
	 * rel32 (both 4-aligned; way k's lie KJIT_PRED_STRIDE * k further,
	 * jit/exit.h); 0: none */
	u16 pred_imm_off, pred_jmp_off;
	/* an indirect jmp's inline prediction (predict_indirect_jumps): the
	 * offset of its miss path, whose run-time address names the site
	 * (it stores it at kjit_env.jsite_gs + 8); pred_imm_off and
	 * pred_jmp_off then hold way 0's lea disp32 and hit stub rel32
	 * (KJIT_JPRED_*_STRIDE apart, jit/exit.h); 0: none */
	u16 jsite_off;
	/* the instruction with a copied exception-table entry (decode.h):
	 * index, KJIT_FIXUP_* form, offset of its copy and, for
	 * KJIT_FIXUP_EXIT, of its landing - an exit branch to the original
	 * fixup target, after the terminator's translation, where the copy's
	 * entry sends a fault; fix_insn 0xff: none. The copy runs with the
	 * registers, flags and stack the original has (no kjit push is
	 * outstanding there), so a task stopped on it in a fault can resume
	 * at the original, fix_orig_off bytes into the block's original code
	 * (kjit_cache_fault_site()). */
	u8 fix_insn, fix_kind;
	u16 fix_off, fix_land_off, fix_orig_off;
	enum kjit_reason reason;
	u64 reason_addr;
	struct kjit_exit exit[KJIT_MAX_EXITS];
	/* offset of each original instruction's translation (0xffff: dropped);
	 * for the fault/unwind map from cache address back to original. */
	u16 insn_off[KJIT_MAX_INSNS];
};

/*
 * The decode memo (decode.c): Zydis' results for instructions decoded
 * recently, matched by shape - every byte but the displacement and
 * immediates, whose values are read back from the bytes at hand. Decoding
 * depends on nothing else (legacy encoding, fixed machine mode), and x86
 * code is prefix-free: an entry whose compared bytes begin the bytes at
 * hand is their first instruction. Register effects (the operand decode)
 * are kept with the entry. A few ways a set, replaced round-robin.
 * Kernel code repeats its instruction shapes (prologues, register moves,
 * calls, jcc, field loads): the memo serves ~83% of the decodes over all
 * of vmlinux (bench_translate prints the rate). It matters where Zydis is
 * slow - under QEMU TCG a decode costs ~2,100 guest instructions with its
 * operands (docs/results/translate-guest.md) - and costs ~190 KiB per
 * translator.
 */
#define KJIT_MEMO_SETS 128
#define KJIT_MEMO_WAYS 4
struct kjit_memo {
	u8 len; /* 0: empty */
	u8 bytes[KX86_MAX_INSN_LEN];
	u16 sig;   /* bit i: bytes[i] is compared (decode.c: by shape) */
	u8 k;	   /* compared bytes at the start, at most 3: the set's key */
	bool regs; /* regs_read/regs_kill known */
	u16 regs_read, regs_kill;
	ZydisDecodedInstruction zi;
	ZydisDecoderContext zctx;
};

struct kjit_translator {
	const struct kjit_env *env;
	struct kjit_config cfg;
	struct kjit_stats stats;
	ZydisDecoder dec;
	/* the instruction just decoded: its memo entry's, whose values (disp,
	 * imm) are this instruction's; valid until the next decode */
	ZydisDecodedInstruction *zi;
	ZydisDecoderContext *zctx; /* ... for operand decoding */
	/* Zydis decodes a memo miss here; it is then copied into its entry */
	ZydisDecodedInstruction miss_zi;
	ZydisDecoderContext miss_zctx;
	ZydisDecodedOperand zop[ZYDIS_MAX_OPERAND_COUNT];
	struct kjit_insn la; /* scratch for liveness look-ahead */
	struct kjit_block_desc desc;
	/* the unwind map of the block last translated (emit.h) */
	struct kjit_uw_point uw[KJIT_MAX_UW];
	unsigned n_uw;
	/* the block counter being placed (instrument.c) */
	struct kjit_mem ctr_mem;
	u64 ctr_for; /* the block ctr_mem was given for */
	bool ctr_ready;
	/* the block being translated counts on its jcc's edges
	 * (kjit_config.ctr_edges, kjit_instrument_on_edges()) */
	bool ctr_on_edges;
	u16 live_flags[KJIT_MAX_INSNS], live_regs[KJIT_MAX_INSNS];
	struct kjit_memo *memo_cur; /* the entry of tr->zi */
	u8 memo_next[KJIT_MEMO_SETS];
	struct kjit_memo memo[KJIT_MEMO_SETS][KJIT_MEMO_WAYS];
};

/* Fill @cfg with defaults (block counting, LAHF sequence, depth 2). */
void kjit_config_default(struct kjit_config *cfg);

/* Prepare @tr. @env must outlive @tr. @cfg may be NULL (defaults).
 * Returns KJIT_OK or KJIT_R_BAD_ARG. */
enum kjit_reason kjit_translator_init(struct kjit_translator *tr,
				      const struct kjit_env *env,
				      const struct kjit_config *cfg);

/* Translate the block at @orig into @buf (capacity @cap) for execution at
 * @run. Returns KJIT_OK or a refusal reason (see reason.h). */
enum kjit_reason kjit_translate(struct kjit_translator *tr, u64 orig, u8 *buf,
				u32 cap, u64 run, struct kjit_block *blk);

/* The descriptor of the block last decoded by kjit_translate() (valid until
 * the next call) - for verifiers and debugging. */
static inline const struct kjit_block_desc *
kjit_last_desc(const struct kjit_translator *tr)
{
	return &tr->desc;
}

/* The unwind map (jit/emit.h) of the block last translated successfully
 * by kjit_translate(), *n points; valid until the next call. */
static inline const struct kjit_uw_point *
kjit_last_unwind(const struct kjit_translator *tr, unsigned *n)
{
	*n = tr->n_uw;
	return tr->uw;
}

#endif /* KJIT_JIT_TRANSLATE_H */
