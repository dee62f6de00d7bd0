/* SPDX-License-Identifier: GPL-2.0 */
/* env.h - the kernel implementation of jit/env.h. */
#ifndef KJIT_KMOD_ENV_H
#define KJIT_KMOD_ENV_H

#include "jit/env.h"

struct kjit_cpu;

/* Resolve __fentry__ and the thunks (process context, at load). */
int kjit_env_init(void);
/* Fill @env for translations into @c's cache. */
void kjit_env_fill(struct kjit_env *env, struct kjit_cpu *c);
/* The __fentry__ site of the function starting at @start: @start itself,
 * or @start + 4 behind its endbr64 (or the NOP that sealed it) on an IBT
 * kernel; 0 if it has none. Any context. */
unsigned long kjit_fentry_site(unsigned long start);
/* Code that lives as long as kjit may use it: core kernel text, or a
 * module's core text (kept by kjit_module_pin); not kprobe instruction
 * slots, ftrace or BPF trampolines or BPF programs, which their users
 * free. Preemption disabled. */
bool kjit_lasting_code(unsigned long a);
/* The exception-table entry of the instruction at @addr (core kernel or
 * module), or NULL. Preemption disabled. */
const struct exception_table_entry *kjit_env_ex_entry(unsigned long addr);
/* The kernel's retpoline thunk for register @reg (0 = rax .. 15 = r15),
 * or 0 when it has none (built without retpolines). */
unsigned long kjit_env_indirect_thunk(int reg);
/* Every function of KJIT_LEAVE_AT was found: a call to it leaves the cache
 * (kjit_refusals.h). */
bool kjit_env_leaves(void);

#endif
