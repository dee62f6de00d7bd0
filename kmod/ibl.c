// SPDX-License-Identifier: GPL-2.0
/*
 * ibl.c - the indirect branch lookup table's memory: one table per possible
 * CPU, allocated at load, reached through the per-CPU pointer kjit_ibl_tab
 * (layout and invariants in ibl.h; the probe is in dispatch_entry.S).
 */
#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "ibl.h"

DEFINE_PER_CPU(struct kjit_ibl_entry *, kjit_ibl_tab);
DEFINE_PER_CPU(unsigned long, kjit_ibl_hits);
DEFINE_PER_CPU(struct kjit_jsite, kjit_jsite);
static_assert(offsetof(struct kjit_jsite, site) == 8); /* jit/env.h */

#define KJIT_IBL_BYTES (KJIT_IBL_SLOTS * sizeof(struct kjit_ibl_entry))

int kjit_ibl_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
	{
		struct kjit_ibl_entry *t =
		    kvzalloc_node(KJIT_IBL_BYTES, GFP_KERNEL, cpu_to_node(cpu));

		if (!t) {
			kjit_ibl_exit();
			return -ENOMEM;
		}
		per_cpu(kjit_ibl_tab, cpu) = t;
	}
	return 0;
}

void kjit_ibl_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
	{
		kvfree(per_cpu(kjit_ibl_tab, cpu));
		per_cpu(kjit_ibl_tab, cpu) = NULL;
	}
}

/* One store a slot: the fast path may be probing while this runs (detach
 * empties the tables before it quiesces), and a slot half cleared by a
 * memset could pair its target with continuation 0. */
void kjit_ibl_clear(void)
{
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu)
	{
		struct kjit_ibl_entry *t = per_cpu(kjit_ibl_tab, cpu);

		for (i = 0; t && i < KJIT_IBL_SLOTS; i++)
			WRITE_ONCE(t[i].word, 0);
	}
}

bool kjit_ibl_frozen;

void kjit_ibl_freeze(void)
{
	WRITE_ONCE(kjit_ibl_frozen, true);
	synchronize_rcu(); /* fills run with preemption disabled */
	kjit_ibl_clear();
}

void kjit_ibl_thaw(void)
{
	kjit_ibl_clear();
	WRITE_ONCE(kjit_ibl_frozen, false);
}

void kjit_ibl_reset_hits(void)
{
	int cpu;

	for_each_possible_cpu(cpu) per_cpu(kjit_ibl_hits, cpu) = 0;
}
