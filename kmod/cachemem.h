/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cachemem.h - memory for translated code, within rel32 reach of kernel text.
 *
 * A region is one module_alloc() allocation seen through two mappings:
 *
 *     exec  (module area, read-only + executable)  <- the CPU runs this
 *     rw    (vmap of the same pages, writable, NX) <- kjit writes this
 *
 * so no mapping is ever writable and executable at once, and the writable
 * alias lives only as long as kjit may write: kjit_region_seal() removes it
 * once the code is final (trampolines: once written; a CPU's cache: at
 * detach, when no dispatcher can run any more). A data region (for
 * counters) has only a writable, non-executable mapping, also in the module
 * area so RIP-relative operands in translated code reach it.
 *
 * Invariants:
 *  - exec and rw are page aligned and size is a multiple of PAGE_SIZE.
 *  - Unused code bytes are int3 (0xcc); data regions start zeroed.
 *  - Allocation and freeing sleep: process context only.
 */
#ifndef KJIT_CACHEMEM_H
#define KJIT_CACHEMEM_H

#include <linux/types.h>

struct kjit_region {
	u8 *exec; /* run-time address (RX); for data regions, == rw */
	u8 *rw;	  /* writable alias */
	size_t size;
	bool code;
};

int kjit_region_alloc_code(struct kjit_region *r, size_t size);
int kjit_region_alloc_data(struct kjit_region *r, size_t size);
void kjit_region_free(struct kjit_region *r);
/* Remove the writable alias of code region @r for good (rw becomes NULL):
 * nothing may write @r afterwards. Process context. */
void kjit_region_seal(struct kjit_region *r);

/* The writable alias of run-time address @exec inside @r. */
static inline void *kjit_region_rw(const struct kjit_region *r,
				   const void *exec)
{
	return r->rw + ((const u8 *)exec - r->exec);
}

static inline bool kjit_region_contains(const struct kjit_region *r,
					unsigned long a)
{
	return a >= (unsigned long)r->exec &&
	       a < (unsigned long)r->exec + r->size;
}

#endif
