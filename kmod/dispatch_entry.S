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
 * store that over the target slot, restore everything and `RET` into it.
 *
 * Fast path first: this CPU's indirect branch lookup table (reached
 * through the per-CPU pointer kjit_ibl_tab, a direct-mapped cache of target -> continuation filled by
 * kjit_dispatch()) is probed with rax and rcx saved; a hit continues
 * without entering C. This is what indirect jumps out of translated code
 * (and exits whose target was not linkable) cost in the common case.
 *
 * The probe compares a slot's target, then loads its continuation: two
 * reads, which must see one entry. Interrupts are off from the compare to
 * the load (popfq restores the program's IF): otherwise an interrupt
 * between them could refill the slot on this CPU, or a preemption move the
 * task to another CPU whose slot holds another target, and the probe would
 * continue at another target's code. The slow path turns interrupts back on
 * (as the program had them) before it saves the rest and enters C.
 *
 *     slot = (target >> 4) & (KJIT_IBL_SLOTS - 1), 16 bytes each:
 *     +0 target (0: empty)   +8 continuation
 *
 * Saved frame of the slow path (offsets from rsp after the pushes):
 *
 *     0   r11   8  r10  16  r9   24  r8   32  rdi
 *     40  rsi  48  rdx  56  rcx  64  rax  72  rflags
 *     80  target -> replaced by the continuation address
 */
#include <linux/linkage.h>
#include "compat.h"
#include "ibl.h"

	.text
SYM_CODE_START(kjit_dispatch_entry)
	KJIT_UNWIND_HINT_NONE
	ENDBR	/* its address is taken (trampolines, exit stubs jump here) */
	pushfq
	cli					/* one slot, read whole */
	pushq	%rax
	pushq	%rcx
	movq	24(%rsp), %rax			/* the target */
	movl	%eax, %ecx
	shrl	$4, %ecx
	andl	$(KJIT_IBL_SLOTS - 1), %ecx
	shll	$4, %ecx
	addq	%gs:kjit_ibl_tab, %rcx		/* this CPU's slot */
	cmpq	%rax, (%rcx)
	jne	.Lslow
	movq	8(%rcx), %rax			/* hit: the continuation */
	movq	%rax, 24(%rsp)
	incq	%gs:kjit_ibl_hits		/* flags are saved: free to clobber */
	popq	%rcx
	popq	%rax
	popfq
	RET
.Lslow:
	pushq	16(%rsp)			/* the program's rflags */
	popfq					/* interrupts as they were */
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	movq	80(%rsp), %rdi
	pushq	%rbp
	movq	%rsp, %rbp
	andq	$-16, %rsp
	cld
	call	kjit_dispatch
	movq	%rbp, %rsp
	popq	%rbp
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
