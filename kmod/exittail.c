// SPDX-License-Identifier: GPL-2.0
/*
 * exittail.c - the table of dying tasks that run the rest of do_exit()
 * from the cache (the design, and why, in exittail.h).
 */
#include <linux/atomic.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "kcode.h"
#include "exittail.h"
#include "kjit_refusals.h"
#include "ksyms.h"
#include "session.h"

static bool exit_tail = true;
module_param(exit_tail, bool, 0444);
MODULE_PARM_DESC(exit_tail,
		 "dying tasks run the rest of do_exit() from the cache "
		 "(default 1; 0: they leave it at " KJIT_LEAVE_AT ")");

static unsigned int exit_tail_max = KJIT_EXIT_TAIL_MAX;
module_param(exit_tail_max, uint, 0444);
MODULE_PARM_DESC(exit_tail_max,
		 "slots in the table of dying tasks (1 to 512; default 512): "
		 "more at once leave the cache at " KJIT_LEAVE_AT);

static bool ready;

/* The attached session, from attach to the end of its detach (not
 * kjit_active, which detach clears before quiesce has run). */
static struct kjit_session __rcu *tail_session;
static DEFINE_RAW_SPINLOCK(tail_lock);
static struct task_struct *tail[KJIT_EXIT_TAIL_MAX];
static atomic64_t stayed, left;

bool kjit_exit_tail_init(void)
{
	exit_tail_max =
	    clamp_t(unsigned int, exit_tail_max, 1, KJIT_EXIT_TAIL_MAX);
	kjit_exit_tail_to = kjit_lookup_name(KJIT_LEAVE_AT);
	ready = exit_tail && kjit_exit_tail_to && kjit_kcode_leaves();
	if (exit_tail && !ready)
		pr_info("kjit: dying tasks leave the code cache at %s\n",
			KJIT_LEAVE_AT);
	return ready;
}

unsigned int kjit_exit_tail_size(void)
{
	return exit_tail_max;
}

u64 kjit_exit_tail_helper(void)
{
	return ready ? (u64)(unsigned long)kjit_exit_tail_call : 0;
}

/* Past its last switch: it never runs again. */
static bool gone(struct task_struct *t)
{
	return READ_ONCE(t->__state) == TASK_DEAD && !READ_ONCE(t->on_cpu);
}

/* Free the slots of tasks that are gone (their references into @put, at
 * most @max) and take one for current; its index, or -1 if none is free. */
static int take_slot(struct task_struct **put, unsigned int max,
		     unsigned int *n_put)
{
	unsigned long flags;
	int i, slot = -1;

	raw_spin_lock_irqsave(&tail_lock, flags);
	for (i = 0; i < exit_tail_max; i++) {
		if (tail[i] && *n_put < max && gone(tail[i])) {
			put[(*n_put)++] = tail[i];
			tail[i] = NULL;
		}
		if (!tail[i] && slot < 0)
			slot = i;
	}
	if (slot >= 0) {
		get_task_struct(current);
		tail[slot] = current;
	}
	raw_spin_unlock_irqrestore(&tail_lock, flags);
	return slot;
}

/* The original return address that @cache_ret stands for, or 0 when it
 * is not a cache return address (any more): detach's quiesce has moved
 * it already, with this task inside the helper. */
static unsigned long original_return(unsigned long cache_ret)
{
	struct kjit_session *s;
	unsigned long orig = 0;

	rcu_read_lock_sched();
	s = rcu_dereference_sched(tail_session);
	if (s)
		orig = kjit_session_return_site(s, cache_ret);
	rcu_read_unlock_sched();
	return orig;
}

/* Process context, before exit_notify(). Never sleeps: RCU-tasks would
 * count that as leaving kjit's text. Without a slot, where @cache_ret no
 * longer stands for anything the task already returns natively: 0 keeps
 * whatever the stack now holds. */
unsigned long kjit_exit_tail_enter(unsigned long cache_ret)
{
	struct task_struct *put[16];
	unsigned int n_put = 0, i;
	unsigned long orig;
	int slot = take_slot(put, ARRAY_SIZE(put), &n_put);

	for (i = 0; i < n_put; i++)
		put_task_struct(put[i]);
	if (slot >= 0) {
		atomic64_inc(&stayed);
		return 0;
	}
	orig = original_return(cache_ret);
	if (orig)
		atomic64_inc(&left);
	return orig;
}

void kjit_exit_tail_start(struct kjit_session *s)
{
	atomic64_set(&stayed, 0);
	atomic64_set(&left, 0);
	rcu_assign_pointer(tail_session, s);
}

void kjit_exit_tail_stop(void)
{
	RCU_INIT_POINTER(tail_session, NULL);
	synchronize_rcu(); /* no helper reads the session any more */
	kjit_exit_tail_forget();
}

void kjit_exit_tail_each(void (*fn)(struct task_struct *t, void *arg),
			 void *arg)
{
	struct task_struct **held;
	unsigned long flags;
	unsigned int i, n = 0;

	held = kmalloc_array(KJIT_EXIT_TAIL_MAX, sizeof(*held),
			     GFP_KERNEL | __GFP_NOFAIL);
	raw_spin_lock_irqsave(&tail_lock, flags);
	for (i = 0; i < KJIT_EXIT_TAIL_MAX; i++)
		if (tail[i]) {
			get_task_struct(tail[i]);
			held[n++] = tail[i];
		}
	raw_spin_unlock_irqrestore(&tail_lock, flags);
	for (i = 0; i < n; i++) {
		fn(held[i], arg);
		put_task_struct(held[i]);
	}
	kfree(held);
}

void kjit_exit_tail_forget(void)
{
	struct task_struct *t;
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < KJIT_EXIT_TAIL_MAX; i++) {
		raw_spin_lock_irqsave(&tail_lock, flags);
		t = tail[i];
		tail[i] = NULL;
		raw_spin_unlock_irqrestore(&tail_lock, flags);
		if (t)
			put_task_struct(t);
	}
}

void kjit_exit_tail_counts(u64 *s, u64 *l)
{
	*s = atomic64_read(&stayed);
	*l = atomic64_read(&left);
}
