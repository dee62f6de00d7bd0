// SPDX-License-Identifier: GPL-2.0
/*
 * own.c - kjit's own processes (see own.h): the groups that said so, and
 * the live bitmap of the attached session.
 *
 * A group that exits closes its files in do_exit() (exit_files(), in the
 * exiting task: the last fput runs as its task work), before
 * exit_notify() and the rest of its exit: that rest is still kjit's work.
 * So a last close by the group's last exiting thread (PF_EXITING, its
 * signal->live already 0) only marks the entry dying; the
 * sched_process_free tracepoint (the group leader's task freed) clears
 * its bit. That probe runs in an RCU callback, so the state is under a
 * spinlock, interrupts off. Limit: where the last thread is not the
 * leader, the leader can be reaped and freed while that thread still runs
 * the end of its exit (after exit_notify()): that end may be counted. A
 * thread that closes the last file exiting alone (no CLONE_FILES) leaves
 * the group counted from then on, as any close does.
 */
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
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
static int n_dying;  /* entries dying: on_free's quick way out */

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
	if (o->dying)
		WRITE_ONCE(n_dying, n_dying - 1);
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
		    task_tgid_nr(current) == tgid &&
		    !atomic_read(&current->signal->live)) {
			o->dying = true; /* the rest of its exit is ours */
			WRITE_ONCE(n_dying, n_dying + 1);
		} else {
			forget(o);
		}
	}
	spin_unlock_irqrestore(&own_lock, flags);
}

/* sched_process_free: a group leader's task goes after its whole group. */
static void on_free(void *data, struct task_struct *p)
{
	struct opener *o;
	unsigned long flags;

	if (p->pid != p->tgid || !READ_ONCE(n_dying))
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
	bool on;
	int i;

	/* without the probe, a group's exit after its last close counts */
	on = tp && !tracepoint_probe_register(tp, on_free, NULL);
	spin_lock_irqsave(&own_lock, flags);
	probing = on;
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
