/* SPDX-License-Identifier: GPL-2.0 */
/* sites.h - the kernel's live-patched sites: jump labels, static calls. */
#ifndef KJIT_SITES_H
#define KJIT_SITES_H

#include <linux/types.h>

int kjit_sites_init(void);
void kjit_sites_exit(void);
/* Is @addr a jump label site? Then *target is where its jmp goes. Any context.
 */
bool kjit_patch_site(unsigned long addr, unsigned long *target);
/* Is @addr an inline static_call site? Then *tramp is its trampoline (0:
 * not known, the block must run natively) and *tail says whether it is a
 * tail call. Any context. */
bool kjit_static_call_site(unsigned long addr, unsigned long *tramp,
			   bool *tail);
/* Is @addr a call site of the preempt_schedule or preempt_schedule_notrace
 * static call (core kernel)? Any context. */
bool kjit_preempt_site(unsigned long addr);
/* The key (struct static_call_key, whose first field is the func pointer)
 * of the core kernel's static call whose trampoline starts at @tramp, or
 * 0: not a trampoline, or one with no inline site. Any context. */
unsigned long kjit_static_call_key(unsigned long tramp);

#endif
