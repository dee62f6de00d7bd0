// SPDX-License-Identifier: GPL-2.0
/*
 * quiesce.c - make sure no task can still run a session's code cache, so
 * that it can be freed.
 *
 * After diversion is off and the RCU grace periods of session.c, no task
 * can enter the cache. But in native-call mode a task that called out of
 * translated code has a cache return address on its stack, and it may be
 * asleep there (rcu_tasks counts its sleep as quiescent). So every task's
 * stack is scanned, with the task held off the CPU (task_call_func(), as
 * livepatch does), and each cache return address is rewritten to the
 * original return address it stands for - the instruction after the
 * original call, always a legal place to resume natively. A task that is
 * running, or runnable with any other cache address on its stack (preempted
 * inside translated code), is tried again shortly; it leaves the cache by
 * itself. Other cache addresses on a sleeping task's stack are stale data.
 *
 * Invariants: process context, kjit_mutex held, the session detached and
 * kjit_active cleared. Returns only when a full pass found nothing left.
 */
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include "ksyms.h"
#include "quiesce.h"
#include "session.h"

struct scan {
	const struct kjit_session *s;
	unsigned long rewritten;
};

/* Which CPU cache holds @a, or NULL. */
static const struct kjit_cpu *cache_of(const struct kjit_session *s,
				       unsigned long a)
{
	int cpu;

	for_each_possible_cpu(
	    cpu) if (kjit_region_contains(&s->cpu[cpu]->code,
					  a)) return s->cpu[cpu];
	return NULL;
}

/* The original address a cache return address @a stands for, or 0 if @a is
 * not the return site of a translated call. */
static unsigned long return_site(const struct kjit_cpu *c, unsigned long a)
{
	const struct kjit_cache *k = &c->cache;
	u32 lo = 0, hi = kjit_cache_count(k), mid;
	const struct kjit_cblock *cb;

	while (lo < hi) { /* blocks lie in the cache in address order */
		mid = (lo + hi) / 2;
		if (k->blocks[mid].run <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	cb = &k->blocks[lo - 1];
	if (a <= cb->run || a >= cb->run + cb->b.body_len ||
	    (cb->b.term != KJIT_I_CALL && cb->b.term != KJIT_I_CALL_IND))
		return 0;
	return cb->b.orig + cb->b.orig_len;
}

/* task_call_func() callback: @t cannot start running meanwhile. */
static int scan_task(struct task_struct *t, void *arg)
{
	struct scan *sc = arg;
	unsigned long *p, *end, v, orig;
	const struct kjit_cpu *c;

	if (READ_ONCE(t->on_cpu))
		return -EBUSY;
	if (t->exit_state || !task_stack_page(t))
		return 0;
	p = (unsigned long *)t->thread.sp;
	end = (unsigned long *)(task_stack_page(t) + THREAD_SIZE);
	if (p < (unsigned long *)task_stack_page(t) || p >= end)
		return 0;
	for (; p < end; p++) {
		v = READ_ONCE(*p);
		c = cache_of(sc->s, v);
		if (!c)
			continue;
		orig = return_site(c, v);
		if (!orig) {
			/* Runnable: preempted inside translated code, come back
			 * later. Asleep: it can only be stale data in a frame.
			 */
			if (READ_ONCE(t->__state) == TASK_RUNNING)
				return -EBUSY;
			continue;
		}
		WRITE_ONCE(*p, orig);
		sc->rewritten++;
	}
	return 0;
}

#define KJIT_MAX_BUSY 256

/* First pass over every task: the ones to try again go into @busy (with a
 * reference). Returns their number, or KJIT_MAX_BUSY + 1 if they did not all
 * fit (the pass is then repeated later). */
static unsigned int scan_all(struct scan *sc, struct task_struct **busy)
{
	struct task_struct *g, *t;
	unsigned int n = 0;

	rcu_read_lock();
	for_each_process_thread(g, t)
	{
		if (t == current || !kjit_kapi.task_call_func(t, scan_task, sc))
			continue;
		if (n == KJIT_MAX_BUSY) {
			n++;
			break;
		}
		get_task_struct(t);
		busy[n++] = t;
	}
	rcu_read_unlock();
	return n;
}

/* Retry @busy[0..n) from every online CPU in turn: while this task runs on
 * a CPU, no other task is running there, so tasks that only ran (in user
 * mode, say) are seen off the CPU. Returns how many are still busy. */
static unsigned int retry_busy(struct scan *sc, struct task_struct **busy,
			       unsigned int n)
{
	unsigned int i, left;
	int cpu;

	for_each_online_cpu(cpu)
	{
		set_cpus_allowed_ptr(current, cpumask_of(cpu));
		for (i = 0, left = 0; i < n; i++) {
			if (kjit_kapi.task_call_func(busy[i], scan_task, sc))
				busy[left++] = busy[i];
			else
				put_task_struct(busy[i]);
		}
		n = left;
	}
	return n;
}

void kjit_quiesce(const struct kjit_session *s)
{
	struct scan sc = {.s = s};
	struct task_struct **busy;
	cpumask_var_t saved;
	unsigned int n, pass = 0;

	busy = kcalloc(KJIT_MAX_BUSY, sizeof(*busy), GFP_KERNEL | __GFP_NOFAIL);
	if (!alloc_cpumask_var(&saved, GFP_KERNEL | __GFP_NOFAIL))
		return;
	cpumask_copy(saved, current->cpus_ptr);
	while ((n = scan_all(&sc, busy)) > KJIT_MAX_BUSY) {
		retry_busy(&sc, busy, KJIT_MAX_BUSY);
		usleep_range(1000, 2000);
	}
	while (n) {
		n = retry_busy(&sc, busy, n);
		if (n && ++pass % 500 == 0)
			pr_info("kjit: waiting for %u task(s) to leave the "
				"code cache\n",
				n);
		if (n)
			usleep_range(1000, 2000);
	}
	set_cpus_allowed_ptr(current, saved);
	free_cpumask_var(saved);
	kfree(busy);
	if (sc.rewritten)
		pr_info("kjit: %lu return address(es) moved out of the code "
			"cache\n",
			sc.rewritten);
}
