/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gates.h - call kernel functions found through kallsyms without an
 * indirect branch to them.
 *
 * Why: a kernel built with X86_KERNEL_IBT (Debian's 6.12) "seals" at boot
 * every function whose address it never takes: its leading endbr64 becomes
 * a 4-byte NOP (66 0f 1f 00). On CET hardware an indirect call to such a
 * function raises #CP and kills the kernel; QEMU's TCG does not enforce it.
 * Most of what kjit resolves by name (module_alloc/execmem_alloc,
 * set_memory_*, ftrace_location, ...) is only ever called directly, so
 * calling it through a plain function pointer would be that indirect call.
 *
 * How: each callable symbol gets a gate in kjit's own text (gates.S):
 *
 *   gate_i:  endbr64                   ; kjit calls the gate indirectly
 *            pushq kjit_gate_to+8*i(%rip)
 *            RET                       ; a return is not an IBT-checked branch
 *
 * The push/RET is a tail call that uses no register: the target starts
 * with the caller's return address on top of the stack and every argument
 * register intact, exactly as if it had been called directly, and returns
 * straight to the caller (ftrace_64.S uses the same PUSH;RET). Unwinders
 * never see the gate.
 */
#ifndef KJIT_GATES_H
#define KJIT_GATES_H

#define KJIT_GATES     32 /* how many symbols can be gated */
#define KJIT_GATE_SIZE 32 /* bytes per gate; gates.S checks it */

#ifndef __ASSEMBLY__
/* A callable address that reaches @addr without an indirect branch to it,
 * or NULL when every gate is in use or @addr is 0. Module init only (the
 * gates' targets never change afterwards). */
void *kjit_gate(unsigned long addr);
/* On an IBT kernel, check that every gate and kjit_dispatch_entry (whose
 * address trampolines and exit stubs take) start with endbr64: -ENOEXEC
 * with a message if not. Then log how many functions are gated and how
 * many of them the kernel sealed (their first bytes are the sealed
 * endbr64): those would die on an indirect call on CET hardware. Module
 * init, once every gate is set. */
int kjit_gates_check(void);
#endif

#endif
