// SPDX-License-Identifier: GPL-2.0
/*
 * pcpu.c - per-CPU block counters (layout and invariants in pcpu.h).
 *
 * The slot table is open addressing with linear probing over the original
 * block address; claims race only with other claims (each CPU translates
 * into its own cache, so two CPUs may claim the same block at once) and
 * settle with cmpxchg: the loser finds the winner's key and shares it.
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "pcpu.h"

bool kjit_pcpu_ok;

void kjit_pcpu_probe(void)
{
	u64 __percpu *p = alloc_percpu(u64);
	u64 before, after;
	int cpu;

	if (!p) {
		pr_warn("kjit: no per-CPU memory: counters use lock incq\n");
		return;
	}
	preempt_disable();
	cpu = smp_processor_id();
	before = *per_cpu_ptr(p, cpu);
	/* what translated code does: jit/instrument.c, KJIT_CTR_GS_REG */
	asm volatile("incq %%gs:(%0)" : : "r"(p) : "memory", "cc");
	after = *per_cpu_ptr(p, cpu);
	preempt_enable();
	free_percpu(p);
	kjit_pcpu_ok = after == before + 1;
	if (!kjit_pcpu_ok)
		pr_warn("kjit: incq %%gs:(ptr) missed this CPU's copy: "
			"counters use lock incq\n");
}

void kjit_pcpu_free(struct kjit_pcpu *p)
{
	u32 c;

	if (p->chunk)
		for (c = 0; c < p->n_slots / KJIT_PCPU_CHUNK; c++)
			free_percpu(p->chunk[c]);
	kfree(p->chunk);
	vfree(p->keys);
	vfree(p->base);
	memset(p, 0, sizeof(*p));
}

int kjit_pcpu_init(struct kjit_pcpu *p, u32 n_slots)
{
	u32 c, n;

	memset(p, 0, sizeof(*p));
	n_slots = roundup_pow_of_two(max_t(u32, n_slots, KJIT_PCPU_CHUNK));
	n = n_slots / KJIT_PCPU_CHUNK;
	p->n_slots = n_slots;
	p->keys = vzalloc(array_size(n_slots, sizeof(u64)));
	p->base = vzalloc(array_size(n_slots, sizeof(u64)));
	p->chunk = kcalloc(n, sizeof(*p->chunk), GFP_KERNEL);
	if (!p->keys || !p->base || !p->chunk)
		goto fail;
	for (c = 0; c < n; c++) {
		p->chunk[c] =
		    __alloc_percpu(KJIT_PCPU_CHUNK * sizeof(u64), sizeof(u64));
		if (!p->chunk[c])
			goto fail;
	}
	return 0;
fail:
	kjit_pcpu_free(p);
	return -ENOMEM;
}

int kjit_pcpu_slot(struct kjit_pcpu *p, u64 orig, bool claim)
{
	u32 mask = p->n_slots - 1, i = hash_64(orig, ilog2(p->n_slots)), n;
	u64 key;

	for (n = 0; n < p->n_slots; n++, i = (i + 1) & mask) {
		key = READ_ONCE(p->keys[i]);
		if (key == orig)
			return (int)i;
		if (key)
			continue;
		if (!claim)
			return -1;
		/* keep a quarter free: probes stay short */
		if ((u32)atomic_read(&p->used) >= p->n_slots - p->n_slots / 4)
			break;
		key = cmpxchg(&p->keys[i], 0, orig);
		if (!key) {
			atomic_inc(&p->used);
			return (int)i;
		}
		if (key == orig) /* another CPU claimed it just now */
			return (int)i;
	}
	if (claim)
		atomic64_inc(&p->full);
	return -1;
}

u64 kjit_pcpu_offset(const struct kjit_pcpu *p, u32 s)
{
	return (u64)(unsigned long)(p->chunk[s / KJIT_PCPU_CHUNK] +
				    s % KJIT_PCPU_CHUNK);
}

static u64 sum(const struct kjit_pcpu *p, u32 s)
{
	u64 __percpu *c = p->chunk[s / KJIT_PCPU_CHUNK] + s % KJIT_PCPU_CHUNK;
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu) n += READ_ONCE(*per_cpu_ptr(c, cpu));
	return n;
}

u64 kjit_pcpu_read(const struct kjit_pcpu *p, u32 s)
{
	return sum(p, s) - p->base[s];
}

void kjit_pcpu_reset(struct kjit_pcpu *p)
{
	u32 s;

	for (s = 0; s < p->n_slots; s++)
		if (READ_ONCE(p->keys[s]))
			p->base[s] = sum(p, s);
}
