/* time_stub.S - the host's stand-ins for kmod/timing_entry.S: the same
 * register and flag saving, around host_time_log(fid, the timed function's
 * stack pointer, kind) (tests/host/test_timing.c). */
.macro HOST_TIME_STUB name, kind
	.text
	.globl \name
	.type \name, @function
\name:
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
	movl	$\kind, %edx
	subq	$8, %rsp	/* the host ABI's 16-byte alignment at a call */
	call	host_time_log
	addq	$8, %rsp
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
	ret
	.size \name, .-\name
.endm
HOST_TIME_STUB host_time_enter, 0
HOST_TIME_STUB host_time_exit, 1
	.section .note.GNU-stack,"",@progbits
