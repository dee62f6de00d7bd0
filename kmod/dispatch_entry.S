/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dispatch_entry.S - the way from translated code into the dispatcher.
 *
 * Exit stubs (jit/exit.h) and entry miss stubs jump here with
 *
 *     [rsp]  original target address      <- pushed by the stub
 *     [rsp+8] whatever the program had on its stack
 *
 * and every register and RFLAGS as the program left them. We save what the
 * C calling convention may clobber, call kjit_dispatch(target), which returns
 * where to continue (a translation, or the target itself to run natively),
 * given also the word above the target (a followed indirect call's return
 * address when the exit was that call: kjit_cache_predict()),
 * store that over the target slot, restore everything and `RET` into it.
 *
 * An indirect jmp whose inline prediction missed (jit/flow.c) names its
 * site in %gs:kjit_jsite+8 (ibl.h) before it comes here, flags saved, while
 * the site still learns: then even a hit goes into C, which takes the name
 * (clearing it) and fills a way of the site with the target.
 *
 * Fast path first: this CPU's indirect branch lookup table (reached
 * through the per-CPU pointer kjit_ibl_tab, a direct-mapped cache of
 * target -> continuation filled by kjit_dispatch()) is probed with rax and
 * rcx saved; a hit continues without entering C. This is what indirect
 * jumps out of translated code (and exits whose target was not linkable)
 * cost in the common case.
 *
 * A slot is one word, read once (layout and why in ibl.h):
 *
 *     slot = (target >> 4) & (KJIT_IBL_SLOTS - 1), 8 bytes each:
 *     target[31:0] << 32 | continuation[31:0]
 *
 * so neither an interrupt that refills it nor a migration between two
 * reads can pair a target with another target's continuation: no `cli`.
 *
 * Two entries. kjit_dispatch_entry keeps the program's RFLAGS (pushfq ...
 * popfq around the probe): exits where the translator does not know the
 * flags dead. kjit_dispatch_entry_nf is for exits where they are dead
 * (indirect calls: a callee never reads the arithmetic flags, and the
 * probe leaves DF, IF and AC alone); it skips pushfq/popfq, and on a miss
 * restores rax and rcx and takes the other entry.
 *
 * Saved frame of the slow path (offsets from rsp after the pushes):
 *
 *     0   r11   8  r10  16  r9   24  r8   32  rdi
 *     40  rsi  48  rdx  56  rcx  64  rax  72  rflags
 *     80  target -> replaced by the continuation address
 *
 * For the unwinder (docs/design/fixups-and-stacks.md), the frame below the
 * dispatcher is the program's at the target: a trace taken in here (a
 * perf sample, a Kprobe, a WARN inside a translation) goes on from the
 * target to the program's own frames, which return into the cache. The
 * word at the target slot is an address to look up as it is, not as a
 * return address (target - 1 may be another function): on 6.4+ a CALL
 * hint with signal=1 says so from the first instruction
 * (KJIT_UNWIND_HINT_TARGET); on 6.1 the slow path pushes an iret frame
 *
 *     0   target (ip)   8  __KERNEL_CS   16  rflags   24  the program's sp
 *     32  __KERNEL_DS
 *
 * below the saved frame while it is in C, and the fast path (the IBL
 * probe, no calls) has no unwind information: a trace taken there stops,
 * unreliable, as it always did on both kernels.
 */
#include <linux/linkage.h>
#include "compat.h"
#include "ibl.h"

/* IBL_PROBE off: with rax = target at off(%rsp) loaded by the macro,
 * leaves the continuation in rcx or jumps to miss; clobbers rax, rcx and
 * the arithmetic flags. */
.macro IBL_PROBE off, miss
	movq	\off(%rsp), %rax		/* the target */
	movslq	%eax, %rcx
	cmpq	%rax, %rcx
	jne	\miss				/* not in the top 2 GiB: never in the table */
	shrl	$4, %ecx
	andl	$(KJIT_IBL_SLOTS - 1), %ecx
	shll	$3, %ecx
	addq	%gs:kjit_ibl_tab, %rcx		/* this CPU's slot */
	movq	(%rcx), %rcx			/* the entry: one read */
	shlq	$32, %rax
	xorq	%rax, %rcx			/* high half 0: the target's entry */
	movq	%rcx, %rax
	shrq	$32, %rax
	jnz	\miss
	movslq	%ecx, %rcx			/* the continuation */
.endm

	.text
SYM_CODE_START(kjit_dispatch_entry)
	KJIT_UNWIND_HINT_TARGET(8)
	ENDBR	/* its address is taken (trampolines, exit stubs jump here) */
	pushfq
	pushq	%rax
	pushq	%rcx
	IBL_PROBE 24, .Lslow
	cmpq	$0, %gs:kjit_jsite+8		/* an indirect jmp's site waits */
	jne	.Lslow				/* to learn its target: into C */
	movq	%rcx, 24(%rsp)			/* hit: continue there */
	incq	%gs:kjit_ibl_hits		/* flags are saved: free to clobber */
	popq	%rcx
	popq	%rax
	popfq
	RET
.Lslow:
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	movq	80(%rsp), %rdi			/* the target */
	movq	88(%rsp), %rsi			/* the word above it: a followed
						 * call's return address, maybe */
	leaq	88(%rsp), %rax			/* the program's sp */
	pushq	$__KERNEL_DS			/* the iret frame (above) */
	pushq	%rax
	pushq	88(%rsp)			/* rflags, saved at 72 */
	pushq	$__KERNEL_CS
	pushq	%rdi
	UNWIND_HINT_IRET_REGS
	cld
	call	kjit_dispatch	/* the kernel's C wants 8-byte alignment only
				 * (-mpreferred-stack-boundary=3); no realigning
				 * `and` on rsp, which objtool cannot follow
				 * below a REGS hint */
	addq	$40, %rsp			/* drop the iret frame */
	KJIT_UNWIND_HINT_TARGET(88)
	movq	%rax, 80(%rsp)
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rax
	popfq
	RET
SYM_CODE_END(kjit_dispatch_entry)

/* Exits whose arithmetic flags are dead: the probe without pushfq/popfq. */
SYM_CODE_START(kjit_dispatch_entry_nf)
	KJIT_UNWIND_HINT_TARGET(8)
	ENDBR	/* its address is taken (exit stubs jump here) */
	pushq	%rax
	pushq	%rcx
	IBL_PROBE 16, .Lslow_nf
	movq	%rcx, 16(%rsp)			/* hit: continue there */
	incq	%gs:kjit_ibl_hits
	popq	%rcx
	popq	%rax
	RET
.Lslow_nf:
	popq	%rcx
	popq	%rax
	jmp	kjit_dispatch_entry
SYM_CODE_END(kjit_dispatch_entry_nf)

/* The entry trampoline's way back for a call out of the session's scope
 * (codecache/entry.h): [rsp] = S+5, the function's own code after its
 * __fentry__ call. A `RET` of the module, so that the kernel's patching of
 * the module's returns at load makes it what the kernel's own returns are
 * (a ret, or a jmp to the return thunk in use); emitted code jumps here. */
SYM_CODE_START(kjit_entry_return)
	UNWIND_HINT_FUNC
	ENDBR	/* its address is taken (by C, for the emitted jmp) */
	RET
SYM_CODE_END(kjit_entry_return)
