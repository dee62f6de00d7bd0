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
 * Saved frame (offsets from rsp after the pushes):
 *
 *     0   r11   8  r10  16  r9   24  r8   32  rdi
 *     40  rsi  48  rdx  56  rcx  64  rax  72  rflags
 *     80  target -> replaced by the continuation address
 */
#include <linux/linkage.h>
#include <asm/unwind_hints.h>

	.text
SYM_CODE_START(kjit_dispatch_entry)
	UNWIND_HINT_EMPTY
	pushfq
	pushq	%rax
	pushq	%rcx
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
