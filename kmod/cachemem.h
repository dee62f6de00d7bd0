/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cachemem.h - data regions in the module area, within rel32 and absolute
 * disp32 reach of kernel and module text: the lock-form counters, the
 * native-run table, the scope bitmap and the entry trampoline's key table,
 * which translated code or the trampoline address directly.
 *
 * A region is one module_alloc()/execmem allocation with a single
 * writable, non-executable mapping. Translated code itself lives in the
 * code pool (cachepool.h), never here.
 *
 * Invariants:
 *  - exec (== rw) is page aligned and size is a multiple of PAGE_SIZE.
 *  - Regions start zeroed.
 *  - Allocation and freeing sleep: process context only.
 */
#ifndef KJIT_CACHEMEM_H
#define KJIT_CACHEMEM_H

#include <linux/types.h>

struct kjit_region {
	u8 *exec; /* its address, as code reaches it */
	u8 *rw;	  /* the same: the one mapping, writable */
	size_t size;
};

int kjit_region_alloc_data(struct kjit_region *r, size_t size);
void kjit_region_free(struct kjit_region *r);

#endif
