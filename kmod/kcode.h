/* SPDX-License-Identifier: GPL-2.0 */
/* kcode.h - facts about the running kernel's code (kcode.c): what a call's
 * target is, which code lasts, __fentry__ sites, exception-table entries,
 * retpoline thunks, and the functions a call to which leaves the cache. */
#ifndef KJIT_KMOD_KCODE_H
#define KJIT_KMOD_KCODE_H

#include <linux/types.h>
#include "jit/env.h"

struct exception_table_entry;

/* Resolve __fentry__, the thunks, the text bounds and the exception table
 * (process context, at load). */
int kjit_kcode_init(void);
/* What a call to @target is (jit/env.h): a __fentry__ site's call (of
 * __fentry__ or ftrace's trampolines), a thunk's (*@reg set for a
 * retpoline), a leaving call, or a call of code that lasts (NONE) or not
 * (TRANSIENT). Any context. */
enum kjit_sym kjit_kcode_classify(unsigned long target, int *reg);
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
const struct exception_table_entry *kjit_kcode_ex_entry(unsigned long addr);
/* The kernel's retpoline thunk for register @reg (0 = rax .. 15 = r15),
 * or 0 when it has none (built without retpolines). */
unsigned long kjit_kcode_indirect_thunk(int reg);
/* Every function of KJIT_LEAVE_AT was found: a call to it leaves the cache
 * (kjit_refusals.h). */
bool kjit_kcode_leaves(void);

#endif
