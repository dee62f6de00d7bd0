/* env.h - the only window the translator has onto the world around it.
 *
 * The translator never reads memory, looks up a symbol or picks a counter
 * address by itself: it asks through struct kjit_env. kmod/ implements it for
 * the kernel, tests/host/ for host programs.
 *
 * Invariants:
 *  - Callbacks are called only from inside kjit_translate() and friends, in
 *    the caller's context; they must not call back into the translator.
 *  - read_code is the only way code bytes come in; it may return fewer bytes
 *    than asked (end of mapping) but never bytes that are not there.
 */
#ifndef KJIT_JIT_ENV_H
#define KJIT_JIT_ENV_H

#include "jit/types.h"

struct kjit_pred; /* jit/predicate.h */

/* What a direct call/jump target means to the translator. */
enum kjit_sym {
	KJIT_SYM_NONE = 0,	 /* ordinary code */
	KJIT_SYM_FENTRY,	 /* __fentry__: the call is dropped */
	KJIT_SYM_RETURN_THUNK,	 /* __x86_return_thunk: jmp to it is a ret */
	KJIT_SYM_INDIRECT_THUNK, /* __x86_indirect_thunk_<reg>: *reg set */
	KJIT_SYM_TRANSIENT,	 /* code the kernel may free while the cache
				    lives (a kprobe slot, an ftrace or BPF
				    trampoline): a branch to it is refused */
	KJIT_SYM_LEAVE,		 /* a call to it leaves the cache: the callee
				    returns to the original code after the
				    call, and the caller's rest runs natively
				    (kjit_insn.leave); a jmp to it is an
				    ordinary exit */
};

/* How an instruction with an exception-table entry is translated
 * (kjit_env.fixup). */
enum kjit_fixup {
	KJIT_FIXUP_NONE,   /* no entry: an ordinary instruction */
	KJIT_FIXUP_NATIVE, /* it must fault at its own address: refused
			      (fixup), the block is cut before it */
	KJIT_FIXUP_EXIT,   /* copied; its fixup target becomes an exit of
			      the block (kjit_block.fix_land_off), and the
			      env gives the copy an entry whose fixup lands
			      there */
	KJIT_FIXUP_NEXT,   /* copied; the entry's fixup must be the copy's
			      next instruction (the kernel's handler checks
			      fixup - ip == length: zero-padding loads), so
			      nothing is inserted between them */
};

/* How an instrumentation counter is addressed. */
enum kjit_mem_mode {
	KJIT_MEM_GS,	 /* %gs-relative: .addr is the per-CPU offset (the
			    raw __percpu value); incq %gs:disp32 when it
			    fits in 32 bits, else through a register */
	KJIT_MEM_ABS32,	 /* [disp32], sign-extended absolute address */
	KJIT_MEM_RIPREL, /* [rip+disp32], .addr must be within +-2 GiB of code
			  */
	/* per-CPU, in the bank of the task that runs it (a session split by
	 * process): .addr is the %gs offset of this CPU's bank slot, which
	 * holds the running task's bank's offset for this counter's chunk,
	 * and .disp the counter's place in it. Always through a register:
	 *   mov %gs:slot,%r; incq %gs:disp(%r)  (slot in a disp32, else
	 *   movabs $slot,%r; mov %gs:(%r),%r first) */
	KJIT_MEM_GS_BANK,
};

struct kjit_mem {
	enum kjit_mem_mode mode;
	u64 addr;
	/* Emit the increment with a lock prefix: needed when another CPU may
	 * increment the same counter, e.g. a per-cache counter in shared
	 * memory whose code a migrated task keeps running on another CPU
	 * (kmod/env.c's old form; never needed with KJIT_MEM_GS). */
	bool lock;
	u32 disp; /* KJIT_MEM_GS_BANK: the counter's byte offset in its bank
		   * chunk (< 2^31) */
};

enum kjit_counter_kind {
	KJIT_CTR_BLOCK, /* block-entry count (u64) */
	KJIT_CTR_EDGE,	/* reserved: per-exit edge count */
};

struct kjit_env {
	void *opaque;
	/* Copy up to @len bytes of original code at @addr to @buf. Returns the
	 * number of bytes copied (0: nothing readable). */
	size_t (*read_code)(void *opaque, u64 addr, u8 *buf, size_t len);
	/* Classify a direct branch/call target. For KJIT_SYM_INDIRECT_THUNK set
	 * *reg to the register number (0 = rax .. 15 = r15). Optional.
	 * KJIT_SYM_FENTRY should also be returned for ftrace's trampolines
	 * (ftrace_caller, ftrace_regs_caller, ops trampolines): a traced
	 * function's fentry site calls one of them at run time, and the cache
	 * must never re-enter ftrace. */
	enum kjit_sym (*classify)(void *opaque, u64 target, int *reg);
	/* True if @addr is a function's __fentry__ site (its start, or +4
	 * behind an endbr64 or its seal on IBT kernels: kx86_fentry_offset()
	 * in jit/arch_x86.h). Whatever the 5-byte instruction there is today
	 * - a nop, a call to __fentry__, ftrace_caller, an ops or BPF
	 * trampoline, a direct call, a jmp to an optimized Kprobe's detour -
	 * it is the kernel's to change, and it is dropped (an int3 caught
	 * mid-patch is refused). Asked only about instructions that could be
	 * one (kx86_may_be_fentry_site()). Optional. */
	bool (*ftrace_site)(void *opaque, u64 addr);
	/* True if the instruction at @addr has an exception-table fixup (it may
	 * only fault at its original address). Optional; fixup() is asked
	 * first. */
	bool (*has_fixup)(void *opaque, u64 addr);
	/* How the instruction at @addr is translated for its exception-table
	 * entry: KJIT_FIXUP_NONE (none), NATIVE, or EXIT with *target where
	 * the original's fixup goes (the translator makes that NEXT when
	 * *target is the next instruction). Optional (then has_fixup decides:
	 * NATIVE). */
	enum kjit_fixup (*fixup)(void *opaque, u64 addr, u64 *target);
	/* Give the address of a counter for the block at @block_addr
	 * (@exit: exit index for edge counters). Returns false if none. */
	bool (*counter)(void *opaque, u64 block_addr,
			enum kjit_counter_kind kind, unsigned exit,
			struct kjit_mem *out);
	/* True if the instruction at @addr is a site the kernel rewrites at
	 * run time between a nop and a jmp to *target (a static key / jump
	 * label). The translation then tests the original bytes each time
	 * it runs instead of freezing today's choice. Optional. */
	bool (*patch_site)(void *opaque, u64 addr, u64 *target);
	/* True if the instruction at @addr is an inline static_call site,
	 * which the kernel rewrites between `call/jmp/jcc func`, a nop and
	 * `xor %eax,%eax` whenever the call's target changes. *tramp is the
	 * call's trampoline, which the kernel keeps pointing at the current
	 * target; *tail is true for a tail-call (jmp/jcc) site. The site is
	 * translated as that call, jmp or jcc to *tramp, so no translation
	 * freezes today's target. Optional. */
	bool (*static_call)(void *opaque, u64 addr, u64 *tramp, bool *tail);
	/* True if @addr is the start of a function the cache enters itself
	 * (deep mode) although its __fentry__ site is the kernel's to enable
	 * (a Kprobe, a tracer, livepatch). The block at @addr then begins
	 * with an entry guard (jit/flow.c): while the site (@addr +
	 * kx86_fentry_offset()) is the 5-byte nop the translation runs; once
	 * it is anything else the function runs natively from @addr, through
	 * whatever the kernel put there. Optional. */
	bool (*entry_guard)(void *opaque, u64 addr);
	/* If @addr is a static call trampoline (__SCT__x) the cache enters
	 * itself (deep mode), the address of its key's func pointer
	 * (__SCK__x.func), else 0. Its block then begins with a static call
	 * guard (jit/flow.c): while the key still holds the target the
	 * trampoline jumps to, the translation runs, which continues in that
	 * target's; otherwise the trampoline runs natively. Optional. */
	u64 (*static_call_key)(void *opaque, u64 addr);
	/* Start of the function (symbol) that contains @addr, 0 if unknown.
	 * The look-ahead asks it for the function of a `ret`: when that
	 * function is compiled C (its first instruction, after an endbr64,
	 * is its __fentry__ site), its caller reads no flags after the call
	 * (the C ABI leaves them undefined at a return), so none are live
	 * after the ret. Optional (then every ret leaves them live). */
	u64 (*func_start)(void *opaque, u64 addr);
	/* Counter (u64, `lock incq` RIP-relative, within rel32 reach of the
	 * code) of entry guards that sent a function native; 0 = none. */
	u64 guard_counter;
	/* Where a call to a KJIT_SYM_LEAVE function stays in the cache
	 * (native-call mode only): the address of a helper that takes the
	 * call in the callee's place, with the cache return address on top
	 * of the stack, and runs the callee; 0 = the call leaves
	 * (kjit_insn.leave). The kernel's helper (kmod/exittail.h) first
	 * registers the task, so that detach can find it after it drops off
	 * the task list, or, with no room, makes the call leave after all
	 * by returning to the original code. Only one KJIT_LEAVE_AT function
	 * exists, so the helper knows its callee. */
	u64 stay_call;
	/* Dispatcher entry: see the contract in jit/exit.h. */
	u64 dispatch;
	/* The same for exits where the arithmetic flags are dead (indirect
	 * calls: a callee never reads them), which may clobber them; 0 =
	 * use dispatch. */
	u64 dispatch_nf;
	/* kjit_config.predict_indirect_jumps: the %gs-relative offset (a
	 * sign-extended disp32) of two per-CPU words where an indirect jmp's
	 * miss path leaves its target (+0) and its site (+8) for the
	 * dispatcher to learn a prediction from; 0 = none. */
	u64 jsite_gs;
	/* Per-function timing (jit/timing.h; kmod/timing.h): the helpers a
	 * timed function's entry and each of its returns call (both keep
	 * every register and flag; 0 = no timing), and the timed id of the
	 * function whose timed entry block starts at @addr (@entry), or
	 * containing the block at @addr (a return): -1 if none. Optional. */
	u64 time_enter, time_exit;
	int (*time_fid)(void *opaque, u64 addr, bool entry);
	/* An attached function's argument predicate (jit/predicate.h): true
	 * if the block at @addr is the entry block of a function that runs
	 * from the cache only when @p holds (else natively, from @addr).
	 * Optional. */
	bool (*entry_pred)(void *opaque, u64 addr, struct kjit_pred *p);
};

#endif /* KJIT_JIT_ENV_H */
