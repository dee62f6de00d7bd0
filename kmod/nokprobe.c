// SPDX-License-Identifier: GPL-2.0
/*
 * nokprobe.c - keep Kprobes off kjit's dispatch path: a probe hit inside the
 * dispatcher would run arbitrary handlers in the middle of a translation.
 *
 * Apart from dispatch.c because <linux/kprobes.h> brings the kernel's x86
 * instruction decoder macros (X86_REX_W, ...), which jit/arch_x86.h also
 * defines for the portable translator.
 */
#include <linux/kprobes.h>

unsigned long kjit_dispatch(unsigned long target, unsigned long ret);
extern char kjit_dispatch_entry[], kjit_dispatch_entry_nf[];

NOKPROBE_SYMBOL(kjit_dispatch);
NOKPROBE_SYMBOL(kjit_dispatch_entry);
NOKPROBE_SYMBOL(kjit_dispatch_entry_nf);
