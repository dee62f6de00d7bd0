/* SPDX-License-Identifier: GPL-2.0 */
/*
 * divert.h - entry diversion: an ftrace direct call at each attached
 * function's __fentry__ site sends its entry into the code cache.
 *
 * Entry trampoline of function i (64 bytes in the shared trampoline region):
 *
 *   tramp_i:  48 8d 64 24 08         lea  0x8(%rsp),%rsp  ; drop the fentry
 *                                                         ; call's return addr
 *             65 4c 8b 1c 25 <slot_i> mov %gs:slot_i,%r11 ; this CPU's entry
 *             e9 <rel32>             jmp  __x86_indirect_thunk_r11
 *             cc ...                 int3 padding
 *   miss_i:   f3 0f 1e fa            endbr64              ; +32
 *             68 <body_i>            push $body_i         ; first block
 *             e9 <rel32>             jmp  kjit_dispatch_entry
 *             cc ...                 int3 padding
 *
 * slot_i is kjit_entry_slot[i], a per-CPU variable of the module (its %gs
 * offset fits in 32 bits). It holds miss_i until this CPU has translated the
 * function's first block, then that translation. The indirect jump goes
 * through the kernel's retpoline thunk for %r11 (a register no function
 * expects preserved across its entry), as the kernel's own indirect
 * branches do; a kernel built without retpolines has no thunk, and the
 * trampoline ends in `41 ff e3  jmp *%r11` instead.
 *
 * IBT: the jump through %r11 is an indirect branch (the thunk is a plain
 * `jmp *%r11` on hardware with IBT), so both of its targets start with
 * endbr64: miss_i here, and every translation (jit/, when the kernel has
 * IBT). The trampoline itself is entered by ftrace's direct call or by
 * ftrace_regs_caller's RET, neither of which IBT checks. endbr64 is a NOP
 * elsewhere, so the layout is the same on every kernel.
 */
#ifndef KJIT_DIVERT_H
#define KJIT_DIVERT_H

#include "session.h"

#define KJIT_TRAMP_SIZE	  64
#define KJIT_TRAMP_JUMPED 19 /* where the jump through %r11 ends */
#define KJIT_TRAMP_MISS	  32 /* offset of miss_i */

/* Why a function cannot be attached (also reported to user space). */
int kjit_divert_check(unsigned long start, const char **why);
/* Write the trampolines of every function of @s and point every CPU's slot
 * at its miss stub. Process context, before any diversion. */
int kjit_divert_prepare(struct kjit_session *s);
/* Register the ftrace direct call of function @i. Returns 0 or -errno
 * (-EBUSY: someone else redirects this function already). */
int kjit_divert_on(struct kjit_session *s, unsigned int i);
void kjit_divert_off(struct kjit_session *s, unsigned int i);

#endif
