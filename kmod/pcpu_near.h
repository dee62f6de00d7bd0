/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcpu_near.h - per-CPU counter memory at a %gs offset that fits in 32
 * bits, so that translated code counts a block with one instruction,
 * `incq %gs:disp32`, and needs no register (docs/design/counters.md).
 *
 * On x86-64 %gs holds, on each CPU, that CPU's per_cpu_offset(); memory
 * that alloc_percpu() gives lies 2^46 or more away from it, beyond any
 * disp32. The near area is one allocation of direct-map pages that
 * holds, for every possible CPU, a slice at the same distance D from that
 * CPU's %gs base:
 *
 *     slice(cpu) = per_cpu_offset(cpu) + D,   |D| + size < 2 GiB
 *
 * so (u64 __percpu *)D is a per-CPU pointer like any other (per_cpu_ptr()
 * finds each CPU's slice) whose raw value fits in a disp32. The CPUs'
 * bases lie one percpu unit apart (1 MiB on the stock kernels here), so
 * the allocation spans every base plus one slice; the pages between
 * slices go back to the allocator at once.
 *
 * It is taken when the layout allows: every possible CPU's base within
 * one allocation of at most MAX_PAGE_ORDER (4 MiB: four CPUs at a 1 MiB
 * unit), pages that land within 2 GiB of the bases, and a probe on every
 * online CPU that finds its increment in its own slice. Otherwise the
 * counters come from alloc_percpu() alone (kmod/pcpu.c), two instructions
 * each; `kjit stat` says which form each translation uses.
 *
 * Invariants: process context; the slices are zeroed, never move, and
 * are freed only when the session's translations are gone.
 */
#ifndef KJIT_KMOD_PCPU_NEAR_H
#define KJIT_KMOD_PCPU_NEAR_H

#include <linux/types.h>

struct page;

struct kjit_pcpu_near {
	struct page *pages; /* the allocation, split into order-0 pages */
	unsigned int order;
	unsigned long lo; /* the lowest per_cpu_offset() */
	s64 disp;	  /* D: the raw __percpu value of the first byte */
	size_t size;	  /* bytes in each CPU's slice, 0: no near area */
};

/* An area with @size bytes (rounded up to pages) per possible CPU, or
 * none (n->size == 0) where the layout does not allow one; *why says why
 * in a few words. Never fails otherwise. */
void kjit_pcpu_near_init(struct kjit_pcpu_near *n, size_t size,
			 const char **why);
void kjit_pcpu_near_free(struct kjit_pcpu_near *n);

#endif /* KJIT_KMOD_PCPU_NEAR_H */
