// SPDX-License-Identifier: GPL-2.0
/*
 * scope.c - a session's scope (see scope.h): the bitmap, the trampoline's
 * view of it, and following forks.
 *
 * Context: process, kjit_mutex held, but the tracepoint probes: the fork
 * probe runs in the forking task, the free probe in an RCU callback
 * (softirq); both only flip bits atomically.
 */
#include <linux/bitops.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/threads.h>
#include <linux/tracepoint.h>
#include "kjit_ioctl.h"
#include "ksyms.h"
#include "own.h"
#include "scope.h"

extern char kjit_entry_return[]; /* dispatch_entry.S */

/* %gs offsets, 0: not found (scoping refused) */
static unsigned long gs_current, gs_preempt, gs_cpu;
static struct tracepoint *tp_fork, *tp_free;

/* The u32 or u64 at %gs:@off on this CPU. Preemption disabled. */
static u64 gs_read(unsigned long off, bool wide)
{
	void *p = this_cpu_ptr((void __percpu *)off);

	return wide ? *(u64 *)p : *(u32 *)p;
}

static void find_tracepoint(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		tp_fork = tp;
	else if (!strcmp(tp->name, "sched_process_free"))
		tp_free = tp;
}

/* 6.1 has per-CPU variables; 6.12 a struct pcpu_hot { current_task;
 * int preempt_count; int cpu_number; ... } (arch/x86/include/asm/
 * current.h). Each offset is checked against what it must hold. */
void kjit_scope_init(void)
{
	unsigned long hot = kjit_lookup_name("pcpu_hot");
	bool ok;

	gs_current = kjit_lookup_name("current_task");
	gs_preempt = kjit_lookup_name("__preempt_count");
	gs_cpu = kjit_lookup_name("cpu_number");
	if (!gs_current && hot) {
		gs_current = hot;
		gs_preempt = hot + 8;
		gs_cpu = hot + 12;
	}
	preempt_disable();
	ok = gs_current && gs_preempt && gs_cpu &&
	     gs_read(gs_current, true) == (u64)(unsigned long)current &&
	     (gs_read(gs_preempt, false) & ~PREEMPT_NEED_RESCHED) ==
		 (u64)preempt_count() &&
	     gs_read(gs_cpu, false) == (u64)smp_processor_id();
	preempt_enable();
	if (!ok) {
		pr_info(
		    "kjit: this kernel's current task, preempt count or "
		    "CPU number was not found: no scoped sessions, and a "
		    "task past exit_notify() is not kept out of the cache\n");
		gs_current = gs_preempt = gs_cpu = 0;
	}
	for_each_kernel_tracepoint(find_tracepoint, NULL);
}

struct tracepoint *kjit_scope_tp_free(void)
{
	return tp_free;
}

/* kjit's own processes are left out (own.h) of an every-task or CPU
 * scope, unless the request counts them (KJIT_SCOPE_KJIT); without the
 * %gs offsets they cannot be, and are counted. */
static int prepare_own(struct kjit_scope *sc, u32 kind)
{
	if ((kind & KJIT_SCOPE_KJIT) || sc->kind == KJIT_ENTRY_TASKS ||
	    !gs_current)
		return 0;
	sc->own_limit = PID_MAX_LIMIT;
	return kjit_region_alloc_data(&sc->own, BITS_TO_LONGS(sc->own_limit) *
						    sizeof(long));
}

int kjit_scope_prepare(struct kjit_scope *sc, u32 kind, const u32 *ids, u32 n)
{
	u32 i, what = kind & ~(KJIT_SCOPE_CHILDREN | KJIT_SCOPE_KJIT |
			       KJIT_SCOPE_CGROUP);
	unsigned long *bits;
	int err;

	memset(sc, 0, sizeof(*sc));
	if ((kind & KJIT_SCOPE_CGROUP) &&
	    (kind & ~KJIT_SCOPE_CGROUP) !=
		(KJIT_SCOPE_TASKS | KJIT_SCOPE_CHILDREN))
		return -EINVAL;
	if (what == KJIT_SCOPE_ALL)
		return (kind & KJIT_SCOPE_CHILDREN) || n
			   ? -EINVAL
			   : prepare_own(sc, kind);
	if ((what != KJIT_SCOPE_TASKS && what != KJIT_SCOPE_CPUS) || !n ||
	    ((kind & KJIT_SCOPE_CHILDREN) && what != KJIT_SCOPE_TASKS) ||
	    ((kind & KJIT_SCOPE_KJIT) && what == KJIT_SCOPE_TASKS))
		return -EINVAL;
	if (!gs_current || (what == KJIT_SCOPE_TASKS && !tp_free) ||
	    ((kind & KJIT_SCOPE_CHILDREN) && !tp_fork))
		return -EOPNOTSUPP;
	sc->kind =
	    what == KJIT_SCOPE_TASKS ? KJIT_ENTRY_TASKS : KJIT_ENTRY_CPUS;
	sc->children = kind & KJIT_SCOPE_CHILDREN;
	sc->limit = what == KJIT_SCOPE_TASKS ? PID_MAX_LIMIT : nr_cpu_ids;
	for (i = 0; i < n; i++)
		if (ids[i] >= sc->limit ||
		    (what == KJIT_SCOPE_TASKS && !ids[i]))
			return -EINVAL;
	err = kjit_region_alloc_data(&sc->bits,
				     BITS_TO_LONGS(sc->limit) * sizeof(long));
	if (!err)
		err = prepare_own(sc, kind);
	if (err) {
		kjit_region_free(&sc->bits);
		return err;
	}
	bits = (unsigned long *)sc->bits.exec;
	for (i = 0; i < n; i++)
		set_bit(ids[i], bits);
	return 0;
}

void kjit_scope_entry(const struct kjit_scope *sc, struct kjit_entry_scope *e)
{
	memset(e, 0, sizeof(*e));
	e->kind = sc->kind;
	if (sc->kind == KJIT_ENTRY_ALL && !sc->own.exec)
		return;
	if (sc->own.exec) {
		e->own_bitmap = (unsigned long)sc->own.exec;
		e->own_limit = sc->own_limit;
	}
	e->preempt_gs = gs_preempt;
	e->irq_mask = NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET;
	e->current_gs = gs_current;
	e->tgid_off = offsetof(struct task_struct, tgid);
	e->cpu_gs = gs_cpu;
	e->bitmap = (unsigned long)sc->bits.exec;
	e->limit = sc->limit;
	e->ret_via = (unsigned long)kjit_entry_return;
}

void kjit_scope_exiting(struct kjit_entry_exiting *x)
{
	memset(x, 0, sizeof(*x));
	if (!gs_current)
		return;
	x->current_gs = gs_current;
	x->preempt_gs = gs_preempt;
	x->irq_mask = NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET;
	x->exit_state_off = offsetof(struct task_struct, exit_state);
	x->ret_via = (unsigned long)kjit_entry_return;
}

/* A process forked by one in scope is in scope (threads share the tgid). */
static void on_fork(void *data, struct task_struct *parent,
		    struct task_struct *child)
{
	struct kjit_scope *sc = data;
	unsigned long *bits = (unsigned long *)sc->bits.exec;

	if (child->tgid != parent->tgid && parent->tgid < sc->limit &&
	    child->tgid < sc->limit && test_bit(parent->tgid, bits))
		set_bit(child->tgid, bits);
}

/* A group leader's task goes after its whole group: its tgid may be
 * reused from now on. */
static void on_free(void *data, struct task_struct *p)
{
	struct kjit_scope *sc = data;

	if (p->pid == p->tgid && p->tgid < sc->limit)
		clear_bit(p->tgid, (unsigned long *)sc->bits.exec);
}

/* A pid leaves the bitmap when its process is gone (so a reused pid is not
 * counted); with children, forks join it. */
int kjit_scope_start(struct kjit_scope *sc)
{
	int err;

	if (sc->own.exec) {
		kjit_own_watch((unsigned long *)sc->own.exec, sc->own_limit);
		sc->watching = true;
	}
	if (sc->kind != KJIT_ENTRY_TASKS)
		return 0;
	err = tracepoint_probe_register(tp_free, on_free, sc);
	if (err || !sc->children)
		goto out;
	err = tracepoint_probe_register(tp_fork, on_fork, sc);
	if (err) {
		tracepoint_probe_unregister(tp_free, on_free, sc);
		tracepoint_synchronize_unregister();
	}
out:
	sc->probing = !err;
	if (err)
		kjit_scope_stop(sc);
	return err;
}

void kjit_scope_stop(struct kjit_scope *sc)
{
	if (sc->watching) {
		kjit_own_unwatch();
		sc->watching = false;
	}
	if (!sc->probing)
		return;
	if (sc->children)
		tracepoint_probe_unregister(tp_fork, on_fork, sc);
	tracepoint_probe_unregister(tp_free, on_free, sc);
	tracepoint_synchronize_unregister();
	sc->probing = false;
}

void kjit_scope_free(struct kjit_scope *sc)
{
	kjit_scope_stop(sc);
	kjit_region_free(&sc->bits);
	kjit_region_free(&sc->own);
	memset(sc, 0, sizeof(*sc));
}

u32 kjit_scope_counted(const struct kjit_scope *sc, u32 kind)
{
	if (sc->kind != KJIT_ENTRY_TASKS && !sc->own.exec)
		kind |= KJIT_SCOPE_KJIT; /* nothing is left out */
	return kind;
}

size_t kjit_scope_mem_bytes(const struct kjit_scope *sc)
{
	return sc->bits.size + sc->own.size;
}
