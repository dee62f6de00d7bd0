/* SPDX-License-Identifier: GPL-2.0 */
/*
 * refuse.h - code kjit never translates, whether attached or reached in deep
 * mode: kjit itself, entry, noinstr and cpuidle text, the idle path
 * (kjit_refusals.h lists them, shared with the tool).
 */
#ifndef KJIT_REFUSE_H
#define KJIT_REFUSE_H

#include <linux/types.h>

/* Process context, at module load: resolve the names and sections. */
void kjit_refuse_init(void);
/* Why the function starting at @start must never run from the cache, or
 * NULL. Any context: takes no lock and looks up no symbol. */
const char *kjit_refuse_text(unsigned long start);
/* Deep mode, a callee with no __fentry__ site at @start: why it stays
 * native (KJIT_DEEP_NOTRACE_SECTIONS, KJIT_DEEP_NOTRACE_DENY, a static
 * call trampoline, KJIT_SANITIZER_PREFIXES), or NULL. On top of
 * kjit_refuse_text(). Any context: on a sanitizer kernel it asks kallsyms
 * for the name of core kernel text, which takes no lock. */
const char *kjit_refuse_notrace(unsigned long start);

/* Is the function at @start one the dispatcher calls (KJIT_DISPATCH_DEPS)?
 * Attach refuses those. Any context. */
bool kjit_refuse_dispatch_dep(unsigned long start);

#endif
