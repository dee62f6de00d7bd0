// SPDX-License-Identifier: GPL-2.0
/*
 * own.c - kjit's own processes (see own.h): the openers of /dev/kjit and
 * the live bitmap of the attached session.
 */
#include <linux/bitops.h>
#include <linux/mutex.h>
#include <linux/errno.h>
#include <linux/sched.h>
#include "own.h"

struct opener {
	pid_t tgid; /* 0: a free entry */
	u32 files;
};

static DEFINE_MUTEX(own_lock);
static struct opener openers[KJIT_OWN_MAX];
static unsigned long *live;
static u32 live_limit;

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
	long err = 0;

	mutex_lock(&own_lock);
	if (file->private_data)
		goto out; /* once per file */
	o = find(tgid, true);
	if (!o) {
		err = -ENOSPC;
		goto out;
	}
	o->tgid = tgid;
	o->files++;
	file->private_data = (void *)(unsigned long)tgid;
	mark(tgid, true);
out:
	mutex_unlock(&own_lock);
	return err;
}

void kjit_own_release(struct file *file)
{
	pid_t tgid = (pid_t)(unsigned long)file->private_data;
	struct opener *o;

	if (!tgid)
		return;
	mutex_lock(&own_lock);
	o = find(tgid, false);
	if (o && !--o->files) {
		o->tgid = 0;
		mark(tgid, false);
	}
	mutex_unlock(&own_lock);
}

void kjit_own_watch(unsigned long *bits, u32 limit)
{
	int i;

	mutex_lock(&own_lock);
	live = bits;
	live_limit = limit;
	for (i = 0; i < KJIT_OWN_MAX; i++)
		if (openers[i].tgid)
			mark(openers[i].tgid, true);
	mutex_unlock(&own_lock);
}

void kjit_own_unwatch(void)
{
	mutex_lock(&own_lock);
	live = NULL;
	live_limit = 0;
	mutex_unlock(&own_lock);
}
