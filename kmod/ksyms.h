/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksyms.h - kernel symbols kjit needs but the kernel does not export.
 *
 * They are resolved once, at module load, through kallsyms_lookup_name (itself
 * found with a kprobe, since 6.1 no longer exports it). A symbol that cannot be
 * found makes the load fail with a message naming it. docs/design.md lists
 * every symbol with the reason we need it.
 */
#ifndef KJIT_KSYMS_H
#define KJIT_KSYMS_H

int kjit_ksyms_init(void);
unsigned long kjit_lookup_name(const char *name);

#endif
