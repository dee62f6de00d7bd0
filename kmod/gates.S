/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gates.S - the call gates described in gates.h: KJIT_GATES of them, each
 * KJIT_GATE_SIZE bytes, gate i jumping to kjit_gate_to[i].
 */
#include <linux/linkage.h>
#include "compat.h"
#include "gates.h"

	.data
	.balign 8
SYM_DATA_START(kjit_gate_to)
	.fill KJIT_GATES, 8, 0
SYM_DATA_END(kjit_gate_to)

/* Gate n (see gates.h); the .org fails the build if a gate is larger than
 * KJIT_GATE_SIZE. */
.macro KJIT_GATE n
	.balign KJIT_GATE_SIZE, 0xcc
	UNWIND_HINT_FUNC	/* called: [rsp] returns into kjit */
	ENDBR
	pushq	kjit_gate_to + 8 * (\n)(%rip)
	RET
	.org kjit_gates + KJIT_GATE_SIZE * ((\n) + 1), 0xcc
.endm

/* Gates n..last. */
.macro KJIT_GATES_FROM n, last
	KJIT_GATE \n
	.if (\n) < (\last)
	KJIT_GATES_FROM "(\n + 1)", \last
	.endif
.endm

	.text
	.balign KJIT_GATE_SIZE
SYM_CODE_START(kjit_gates)
	KJIT_GATES_FROM 0, (KJIT_GATES - 1)
SYM_CODE_END(kjit_gates)
