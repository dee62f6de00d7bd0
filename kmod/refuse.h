/* SPDX-License-Identifier: GPL-2.0 */
/*
 * refuse.h - code kjit never translates, whether attached or reached in deep
 * mode: kjit itself, entry, noinstr and cpuidle text, the idle path
 * (kjit_refusals.h lists them, shared with the tool).
 */
#ifndef KJIT_REFUSE_H
#define KJIT_REFUSE_H

/* Process context, at module load: resolve the names and sections. */
void kjit_refuse_init(void);
/* Why the function starting at @start must never run from the cache, or
 * NULL. Any context: takes no lock and looks up no symbol. */
const char *kjit_refuse_text(unsigned long start);

#endif
