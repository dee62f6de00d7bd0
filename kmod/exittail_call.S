/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exittail_call.S - kjit_exit_tail_call, what translated do_exit() calls in
 * exit_tasks_rcu_start()'s place (exittail.h):
 *
 *     [rsp] = the cache return address the translated call pushed
 *
 * It asks kjit_exit_tail_enter(that address) whether the task has its
 * slot; if not, the answer is the original return address, which replaces
 * the cache's, so the callee returns to the original do_exit() and the
 * rest runs natively. Then it tail-calls exit_tasks_rcu_start() with
 * push/RET (gates.h: no indirect branch to a function IBT may have
 * sealed). The registers the C call clobbers are the ones the original
 * call of a C function (void, no arguments) clobbers.
 */
#include <linux/linkage.h>
#include "compat.h"

	.data
	.balign 8
SYM_DATA(kjit_exit_tail_to, .quad 0)

	.text
SYM_CODE_START(kjit_exit_tail_call)
	UNWIND_HINT_FUNC	/* called: [rsp] returns into the cache */
	ENDBR
	movq	(%rsp), %rdi
	call	kjit_exit_tail_enter
	testq	%rax, %rax
	jz	1f
	movq	%rax, (%rsp)	/* no slot: return to the original code */
1:	pushq	kjit_exit_tail_to(%rip)
	RET
SYM_CODE_END(kjit_exit_tail_call)
