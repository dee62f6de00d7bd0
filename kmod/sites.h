/* SPDX-License-Identifier: GPL-2.0 */
/* sites.h - the kernel's live-patched branch sites (jump labels). */
#ifndef KJIT_SITES_H
#define KJIT_SITES_H

#include <linux/types.h>

int kjit_sites_init(void);
void kjit_sites_exit(void);
/* Is @addr a jump label site? Then *target is where its jmp goes. Any context.
 */
bool kjit_patch_site(unsigned long addr, unsigned long *target);

#endif
