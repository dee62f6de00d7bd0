// SPDX-License-Identifier: GPL-2.0
/*
 * pcpu_near.c - the near counter area: per-CPU slices at one distance D
 * from every CPU's %gs base, D within a disp32 (layout and rules in
 * pcpu_near.h).
 */
#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <asm/msr.h>
#include "compat.h"
#include "pcpu_near.h"

/* At most this many possible CPUs: their bases could not all fit in one
 * allocation anyway (a percpu unit is at least 32 KiB). */
#define NEAR_MAX_CPUS 128

/* The lowest and highest %gs base of the possible CPUs, and the least
 * distance between two of them (ULONG_MAX with one CPU). */
static void cpu_bases(unsigned long *lo, unsigned long *hi, unsigned long *gap)
{
	int cpu, other;

	*lo = ULONG_MAX, *hi = 0, *gap = ULONG_MAX;
	for_each_possible_cpu(cpu)
	{
		unsigned long b = per_cpu_offset(cpu);

		*lo = min(*lo, b);
		*hi = max(*hi, b);
		for_each_possible_cpu(other)
		{
			unsigned long o = per_cpu_offset(other);

			if (o > b)
				*gap = min(*gap, o - b);
		}
	}
}

/* Does page @i of the allocation hold part of a CPU's slice? */
static bool page_in_slice(const struct kjit_pcpu_near *n, unsigned long i)
{
	unsigned long at = i * PAGE_SIZE;
	int cpu;

	for_each_possible_cpu(cpu)
	{
		unsigned long s = per_cpu_offset(cpu) - n->lo;

		if (at < s + n->size && at + PAGE_SIZE > s)
			return true;
	}
	return false;
}

/* Is every possible CPU's base page-aligned (percpu units are)? */
static bool bases_aligned(void)
{
	int cpu;

	for_each_possible_cpu(cpu) if (per_cpu_offset(cpu) &
				       ~PAGE_MASK) return false;
	return true;
}

static atomic_t near_misses;

/* On each CPU: what translated code does (jit/instrument.c's
 * KJIT_CTR_GS_DISP32, here through a register holding the same value)
 * must increment this CPU's slice, and nothing else. */
static void near_probe_cpu(void *info)
{
	const struct kjit_pcpu_near *n = info;
	u64 __percpu *p = (u64 __percpu *)(unsigned long)n->disp;
	int cpu = smp_processor_id();
	u64 *mine = per_cpu_ptr(p, cpu);
	u64 before = READ_ONCE(*mine), gs;

	/* the increment below lands at %gs + D: only where %gs is the base
	 * the area was laid out for */
	rdmsrq(MSR_GS_BASE, gs);
	if (gs != per_cpu_offset(cpu)) {
		atomic_inc(&near_misses);
		return;
	}
	asm volatile("incq %%gs:(%0)" : : "r"(n->disp) : "memory", "cc");
	if (READ_ONCE(*mine) != before + 1)
		atomic_inc(&near_misses);
	WRITE_ONCE(*mine, before);
}

static bool probe_all(struct kjit_pcpu_near *n)
{
	u64 __percpu *p = (u64 __percpu *)(unsigned long)n->disp;
	unsigned long r = (unsigned long)page_address(n->pages);
	int cpu;

	/* per_cpu_ptr() of D must be each CPU's slice */
	for_each_possible_cpu(
	    cpu) if ((unsigned long)per_cpu_ptr(p, cpu) !=
		     r + (per_cpu_offset(cpu) - n->lo)) return false;
	atomic_set(&near_misses, 0);
	on_each_cpu(near_probe_cpu, n, 1);
	return atomic_read(&near_misses) == 0;
}

void kjit_pcpu_near_init(struct kjit_pcpu_near *n, size_t size,
			 const char **why)
{
	unsigned long lo, hi, gap, r, i;
	unsigned int order;
	struct page *pg;
	s64 d;

	memset(n, 0, sizeof(*n));
	*why = NULL;
	if (num_possible_cpus() > NEAR_MAX_CPUS) {
		*why = "too many CPUs";
		return;
	}
	cpu_bases(&lo, &hi, &gap);
	size = min_t(size_t, PAGE_ALIGN(size), gap & PAGE_MASK);
	if (!size || !bases_aligned()) {
		*why = "CPU bases less than a page apart, or not page-aligned";
		return;
	}
	order = get_order(hi - lo + size);
	if (order > KJIT_MAX_PAGE_ORDER) {
		*why = "CPU bases too far apart for one allocation";
		return;
	}
	pg = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN, order);
	if (!pg) {
		*why = "no free contiguous pages";
		return;
	}
	r = (unsigned long)page_address(pg);
	d = (s64)(r - lo);
	if (d < S32_MIN || d > (s64)S32_MAX - (s64)size) {
		__free_pages(pg, order);
		*why = "pages beyond 2 GiB of the CPU bases";
		return;
	}
	split_page(pg, order);
	n->pages = pg;
	n->order = order;
	n->lo = lo;
	n->disp = d;
	n->size = size;
	for (i = 0; i < (1ul << order); i++)
		if (!page_in_slice(n, i))
			__free_page(pg + i);
	if (!probe_all(n)) {
		kjit_pcpu_near_free(n);
		*why = "an increment missed its CPU's slice";
	}
}

void kjit_pcpu_near_free(struct kjit_pcpu_near *n)
{
	unsigned long i;

	if (!n->size)
		return;
	for (i = 0; i < (1ul << n->order); i++)
		if (page_in_slice(n, i))
			__free_page(n->pages + i);
	memset(n, 0, sizeof(*n));
}
