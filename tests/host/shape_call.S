/* shape_call.S - call a generated program with every general register and
 * the arithmetic flags set from an array, and store them all afterwards
 * (tests/host/test_shapes.c).
 *
 *   void shape_call(const u64 in[17], u64 out[17], void *prog);
 *
 * in/out: rax rcx rdx rbx (rsp: unused) rbp rsi rdi r8..r15 (index =
 * register number), then [16] the flags (only OF SF ZF AF PF CF are set
 * from in[16]; out[16] is the whole of rflags). The program is entered by
 * `call *(%rsp)` and must return with the stack as it found it; the
 * callee-saved registers of the caller are restored here. Lives outside
 * the translatable range: the ptrace oracle does not count its steps.
 */
	.text
	.globl shape_call
	.type shape_call, @function
shape_call:
	push %rbx
	push %rbp
	push %r12
	push %r13
	push %r14
	push %r15
	push %rsi		/* out */
	push %rdx		/* prog: called through (%rsp) */
	mov %rdi, %rax
	mov 8(%rax), %rcx
	mov 16(%rax), %rdx
	mov 24(%rax), %rbx
	mov 40(%rax), %rbp
	mov 48(%rax), %rsi
	mov 56(%rax), %rdi
	mov 64(%rax), %r8
	mov 72(%rax), %r9
	mov 80(%rax), %r10
	mov 88(%rax), %r11
	mov 96(%rax), %r12
	mov 104(%rax), %r13
	mov 112(%rax), %r14
	mov 120(%rax), %r15
	pushq 128(%rax)
	andq $0x8d5, (%rsp)	/* OF SF ZF AF PF CF only */
	orq $0x202, (%rsp)	/* IF and the reserved bit, as the caller has */
	popfq
	mov (%rax), %rax	/* mov leaves the flags */
	call *(%rsp)
	pushfq
	push %rax
	mov 24(%rsp), %rax	/* out: above the flags, rax and prog */
	pop (%rax)
	pop 128(%rax)
	mov %rcx, 8(%rax)
	mov %rdx, 16(%rax)
	mov %rbx, 24(%rax)
	movq $0, 32(%rax)
	mov %rbp, 40(%rax)
	mov %rsi, 48(%rax)
	mov %rdi, 56(%rax)
	mov %r8, 64(%rax)
	mov %r9, 72(%rax)
	mov %r10, 80(%rax)
	mov %r11, 88(%rax)
	mov %r12, 96(%rax)
	mov %r13, 104(%rax)
	mov %r14, 112(%rax)
	mov %r15, 120(%rax)
	add $16, %rsp		/* prog, out */
	cld
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %rbp
	pop %rbx
	ret
	.size shape_call, .-shape_call
	.section .note.GNU-stack,"",@progbits
