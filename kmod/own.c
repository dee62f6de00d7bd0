// SPDX-License-Identifier: GPL-2.0
/*
 * own.c - kjit's own processes (see own.h): the groups that said so, and
 * the live bitmap of the attached session.
 *
 * A group that exits closes its files in do_exit(), before exit_notify()
 * and the rest of its exit: that rest is still kjit's work. So a last
 * close by an exiting task of the group itself only marks the entry
 * dying; the sched_process_free tracepoint (the group leader's task
 * freed, after the whole group) clears its bit. That probe runs in an RCU
 * callback, so the state is under a spinlock, interrupts off.
 */
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>
#include "own.h"
#include "scope.h"

struct opener {
	pid_t tgid; /* 0: a free entry */
	u32 files;
	bool dying; /* closed by its own exit: cleared when it is freed */
};

static DEFINE_SPINLOCK(own_lock);
static struct opener openers[KJIT_OWN_MAX];
static unsigned long *live;
static u32 live_limit;
static bool probing; /* on_free is registered (while watching) */

/* The entry of @tgid, or a free one if @add; NULL. own_lock held. */
static struct opener *find(pid_t tgid, bool add)
{
	struct opener *free = NULL;
	int i;

	for (i = 0; i < KJIT_OWN_MAX; i++) {
		if (openers[i].tgid == tgid)
			return &openers[i];
		if (!openers[i].tgid && !free)
			free = &openers[i];
	}
	return add ? free : NULL;
}

static void mark(pid_t tgid, bool set)
{
	if (!live || (u32)tgid >= live_limit)
		return;
	if (set)
		set_bit(tgid, live);
	else
		clear_bit(tgid, live);
}

static void forget(struct opener *o)
{
	mark(o->tgid, false);
	o->tgid = 0;
	o->files = 0;
	o->dying = false;
}

void kjit_own_open(struct file *file)
{
	file->private_data = NULL;
}

/* The file remembers the group: the last close may come from another
 * process (one that inherited the file). */
long kjit_own_join(struct file *file)
{
	pid_t tgid = task_tgid_nr(current);
	struct opener *o;
	unsigned long flags;
	long err = 0;

	spin_lock_irqsave(&own_lock, flags);
	if (file->private_data)
		goto out; /* once per file */
	o = find(tgid, true);
	if (!o || o->dying) {
		err = -ENOSPC;
		goto out;
	}
	o->tgid = tgid;
	o->files++;
	file->private_data = (void *)(unsigned long)tgid;
	mark(tgid, true);
out:
	spin_unlock_irqrestore(&own_lock, flags);
	return err;
}

void kjit_own_release(struct file *file)
{
	pid_t tgid = (pid_t)(unsigned long)file->private_data;
	struct opener *o;
	unsigned long flags;

	if (!tgid)
		return;
	spin_lock_irqsave(&own_lock, flags);
	o = find(tgid, false);
	if (o && o->files && !--o->files) {
		if (probing && (current->flags & PF_EXITING) &&
		    task_tgid_nr(current) == tgid)
			o->dying = true; /* the rest of its exit is ours */
		else
			forget(o);
	}
	spin_unlock_irqrestore(&own_lock, flags);
}

/* sched_process_free: a group leader's task goes after its whole group. */
static void on_free(void *data, struct task_struct *p)
{
	struct opener *o;
	unsigned long flags;

	if (p->pid != p->tgid)
		return;
	spin_lock_irqsave(&own_lock, flags);
	o = find(p->tgid, false);
	if (o && o->dying)
		forget(o);
	spin_unlock_irqrestore(&own_lock, flags);
}

void kjit_own_watch(unsigned long *bits, u32 limit)
{
	struct tracepoint *tp = kjit_scope_tp_free();
	unsigned long flags;
	int i;

	/* without the probe, a group's exit after its last close counts */
	probing = tp && !tracepoint_probe_register(tp, on_free, NULL);
	spin_lock_irqsave(&own_lock, flags);
	live = bits;
	live_limit = limit;
	for (i = 0; i < KJIT_OWN_MAX; i++)
		if (openers[i].tgid)
			mark(openers[i].tgid, true);
	spin_unlock_irqrestore(&own_lock, flags);
}

void kjit_own_unwatch(void)
{
	struct tracepoint *tp = kjit_scope_tp_free();
	unsigned long flags;
	int i;

	if (probing) {
		tracepoint_probe_unregister(tp, on_free, NULL);
		tracepoint_synchronize_unregister();
	}
	spin_lock_irqsave(&own_lock, flags);
	probing = false;
	live = NULL;
	live_limit = 0;
	/* no probe: a dying group is forgotten now, its pid may come back */
	for (i = 0; i < KJIT_OWN_MAX; i++)
		if (openers[i].dying)
			forget(&openers[i]);
	spin_unlock_irqrestore(&own_lock, flags);
}
