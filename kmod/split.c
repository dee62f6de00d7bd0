// SPDX-License-Identifier: GPL-2.0
/*
 * split.c - a session split by process: banks of counters, one per thread
 * group, and the sched_switch probe that points each CPU's slots at the
 * bank of the task it runs (split.h).
 *
 * Context: process, kjit_mutex held, except the probe, which runs in the
 * scheduler (rq lock held, interrupts off) and so takes no lock and
 * allocates nothing, and the slot setting at start, which runs on each CPU
 * from an IPI.
 */
#include <linux/binfmts.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>
#include "split.h"

/* The running task's bank's chunks, per CPU (split.h: slot[c]). */
static DEFINE_PER_CPU(u64, kjit_bank_slot[KJIT_SPLIT_CHUNKS]);
static struct tracepoint *tp_switch, *tp_exec;
#define PROBES 8 /* table entries a lookup tries */

static void split_find_switch(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		tp_switch = tp;
	else if (!strcmp(tp->name, "sched_process_exec"))
		tp_exec = tp;
}

void kjit_split_init(void)
{
	for_each_kernel_tracepoint(split_find_switch, NULL);
	if (!tp_switch || !tp_exec)
		pr_info("kjit: no sched_switch or sched_process_exec "
			"tracepoint: no split sessions\n");
}

u64 kjit_split_slot(u32 c)
{
	return (u64)(unsigned long)&kjit_bank_slot[c];
}

/* A new bank for @t's thread group at table entry @e, or bank 0. */
static u32 claim(struct kjit_split *sp, u64 *e, struct task_struct *t)
{
	int b = atomic_inc_return(&sp->used) - 1;
	u64 want;

	if (b >= (int)sp->n_banks) {
		atomic_dec(&sp->used);
		return KJIT_SPLIT_OTHER;
	}
	sp->bank[b].tgid = t->tgid;
	memcpy(sp->bank[b].comm, t->comm, TASK_COMM_LEN);
	sp->bank[b].comm[TASK_COMM_LEN - 1] = 0;
	want = (u64)(t->tgid + 1) << 32 | (u32)b;
	/* publishes the bank's name with it; another CPU claiming the same
	 * group at this moment wins, and this bank stays empty */
	if (cmpxchg_release(e, 0, want) == 0)
		return (u32)b;
	return (u32)(READ_ONCE(*e) >> 32) == (u32)(t->tgid + 1)
		   ? (u32)READ_ONCE(*e)
		   : KJIT_SPLIT_OTHER;
}

/* The bank of @t: kernel threads and idle share one, a user thread group
 * has its own (claimed at its first switch-in), the rest share bank 0. */
static u32 bank_of(struct kjit_split *sp, struct task_struct *t)
{
	u32 mask = sp->n_table - 1, i = hash_32((u32)t->tgid, ilog2(sp->n_table));
	u32 k;
	u64 e;

	if (t->flags & PF_KTHREAD)
		return KJIT_SPLIT_KERNEL;
	for (k = 0; k < PROBES; k++, i = (i + 1) & mask) {
		e = smp_load_acquire(&sp->table[i]);
		if (!e)
			return claim(sp, &sp->table[i], t);
		if ((u32)(e >> 32) == (u32)(t->tgid + 1))
			return (u32)e;
	}
	return KJIT_SPLIT_OTHER;
}

/* Point this CPU's slots at the bank of @t. Interrupts off. */
static void point_at(struct kjit_split *sp, struct task_struct *t)
{
	u32 b = bank_of(sp, t), c;

	if (b == KJIT_SPLIT_OTHER && !(t->flags & PF_KTHREAD))
		atomic64_inc(&sp->left_over);
	/* the comm a group leader's exec() gave it (a plain copy) */
	if (b > KJIT_SPLIT_KERNEL && t->pid == t->tgid &&
	    memcmp(sp->bank[b].comm, t->comm, TASK_COMM_LEN - 1))
		memcpy(sp->bank[b].comm, t->comm, TASK_COMM_LEN - 1);
	for (c = 0; c < sp->chunks; c++)
		this_cpu_write(kjit_bank_slot[c],
			       (u64)(unsigned long)sp->bank[b].chunk[c]);
}

static void split_on_switch(void *data, bool preempt, struct task_struct *prev,
		      struct task_struct *next, unsigned int prev_state)
{
	point_at(data, next);
}

/* An exec() renames the process: its bank's command follows (the bank
 * is not claimed here, only found). */
static void split_on_exec(void *data, struct task_struct *p, pid_t old_pid,
		    struct linux_binprm *bprm)
{
	struct kjit_split *sp = data;
	u32 mask = sp->n_table - 1, i = hash_32((u32)p->tgid, ilog2(sp->n_table));
	u32 k, b;
	u64 e;

	for (k = 0; k < PROBES; k++, i = (i + 1) & mask) {
		e = smp_load_acquire(&sp->table[i]);
		if (!e)
			return;
		if ((u32)(e >> 32) != (u32)(p->tgid + 1))
			continue;
		b = (u32)e;
		if (b > KJIT_SPLIT_KERNEL)
			memcpy(sp->bank[b].comm, p->comm, TASK_COMM_LEN - 1);
		return;
	}
}

static void split_point_here(void *data)
{
	point_at(data, current);
}

static void free_banks(struct kjit_split *sp)
{
	u32 b, c;

	for (b = 0; sp->bank && b < sp->n_banks; b++)
		for (c = 0; c < KJIT_SPLIT_CHUNKS; c++) {
			free_percpu(sp->bank[b].chunk[c]);
			kvfree(sp->bank[b].base[c]);
		}
	kvfree(sp->bank);
	kvfree(sp->table);
}

int kjit_split_prepare(struct kjit_split *sp, u32 banks, u32 chunks)
{
	size_t row = KJIT_SPLIT_CHUNK * sizeof(u64);
	u32 b, c;

	memset(sp, 0, sizeof(*sp));
	if (banks < 3 || banks > KJIT_SPLIT_BANKS_MAX || !chunks ||
	    chunks > KJIT_SPLIT_CHUNKS)
		return -EINVAL;
	if (!tp_switch || !tp_exec)
		return -EOPNOTSUPP;
	sp->n_table = roundup_pow_of_two(4 * banks);
	sp->table = kvcalloc(sp->n_table, sizeof(u64), GFP_KERNEL);
	sp->bank = kvcalloc(banks, sizeof(*sp->bank), GFP_KERNEL);
	if (!sp->table || !sp->bank)
		goto nomem;
	sp->n_banks = banks;
	sp->chunks = chunks;
	for (b = 0; b < banks; b++)
		for (c = 0; c < chunks; c++) {
			sp->bank[b].chunk[c] = __alloc_percpu(row, sizeof(u64));
			sp->bank[b].base[c] = kvcalloc(
			    (size_t)nr_cpu_ids * KJIT_SPLIT_CHUNK,
			    sizeof(u64), GFP_KERNEL);
			if (!sp->bank[b].chunk[c] || !sp->bank[b].base[c])
				goto nomem;
		}
	strscpy(sp->bank[KJIT_SPLIT_OTHER].comm, "[other]", TASK_COMM_LEN);
	strscpy(sp->bank[KJIT_SPLIT_KERNEL].comm, "[kernel]", TASK_COMM_LEN);
	atomic_set(&sp->used, 2);
	sp->bytes = (size_t)banks * chunks *
			(row * num_possible_cpus() + nr_cpu_ids * row) +
		    sp->n_table * sizeof(u64) + banks * sizeof(*sp->bank);
	return 0;
nomem:
	free_banks(sp);
	memset(sp, 0, sizeof(*sp));
	return -ENOMEM;
}

int kjit_split_start(struct kjit_split *sp)
{
	int err;

	if (!sp->n_banks)
		return 0;
	err = tracepoint_probe_register(tp_exec, split_on_exec, sp);
	if (err)
		return err;
	err = tracepoint_probe_register(tp_switch, split_on_switch, sp);
	if (err) {
		tracepoint_probe_unregister(tp_exec, split_on_exec, sp);
		tracepoint_synchronize_unregister();
		return err;
	}
	sp->probing = true;
	/* the tasks running now switched in before the probe: their banks
	 * from here (a switch meanwhile only sets them again) */
	on_each_cpu(split_point_here, sp, 1);
	return 0;
}

void kjit_split_stop(struct kjit_split *sp)
{
	if (!sp->probing)
		return;
	tracepoint_probe_unregister(tp_switch, split_on_switch, sp);
	tracepoint_probe_unregister(tp_exec, split_on_exec, sp);
	tracepoint_synchronize_unregister();
	sp->probing = false;
}

void kjit_split_free(struct kjit_split *sp)
{
	kjit_split_stop(sp);
	free_banks(sp);
	memset(sp, 0, sizeof(*sp));
}

/* Copy @cpu of counter @n of bank @b; its base entry in *@base. */
static u64 copy_of(const struct kjit_split *sp, u32 b, u32 n, int cpu,
		   u64 **base)
{
	const struct kjit_bank *k = &sp->bank[b];
	u32 c = n / KJIT_SPLIT_CHUNK, w = n % KJIT_SPLIT_CHUNK;

	*base = &k->base[c][(size_t)cpu * KJIT_SPLIT_CHUNK + w];
	return READ_ONCE(*per_cpu_ptr(k->chunk[c] + w, cpu));
}

u64 kjit_split_count(const struct kjit_split *sp, u32 b, u32 n, int cpu)
{
	u64 s = 0, *base;
	int k;

	if (!kjit_split_has(sp, n) || b >= sp->n_banks)
		return 0;
	if (cpu >= 0)
		return copy_of(sp, b, n, cpu, &base) - *base;
	for_each_possible_cpu(k) s += copy_of(sp, b, n, k, &base) - *base;
	return s;
}

u64 kjit_split_total(const struct kjit_split *sp, u32 n, int cpu)
{
	u64 s = 0;
	u32 b;

	for (b = 0; kjit_split_has(sp, n) && b < sp->n_banks; b++)
		s += kjit_split_count(sp, b, n, cpu);
	return s;
}

void kjit_split_reset(struct kjit_split *sp)
{
	u32 b, n;
	u64 *base, v;
	int cpu;

	for (b = 0; b < sp->n_banks; b++)
		for (n = 0; n < sp->chunks * KJIT_SPLIT_CHUNK; n++)
			for_each_possible_cpu(cpu) {
				v = copy_of(sp, b, n, cpu, &base);
				*base = v;
			}
}
