/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timing_entry.S - what a timed function's entry and returns call
 * (jit/timing.h: push $fid; call; lea 8(%rsp),%rsp):
 *
 *     [rsp]     the cache return address
 *     [rsp+8]   fid
 *     [rsp+16]  the timed function's stack: its return address
 *
 * Every register and the flags are kept (the caller's code may have any
 * of them live: arguments at an entry, the return value at a return);
 * kjit_time_enter/kjit_time_exit(fid, the function's stack pointer) do
 * the work in C. Pushes: flags and the nine registers C may clobber, 80
 * bytes: fid at 88(%rsp), the function's stack pointer 96(%rsp).
 */
#include <linux/linkage.h>
#include "compat.h"

.macro TIME_STUB name, fn
SYM_CODE_START(\name)
	UNWIND_HINT_FUNC
	ENDBR
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
	movl	88(%rsp), %edi
	leaq	96(%rsp), %rsi
	call	\fn
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
SYM_CODE_END(\name)
.endm

	.text
TIME_STUB kjit_time_enter_stub, kjit_time_enter
TIME_STUB kjit_time_exit_stub, kjit_time_exit
