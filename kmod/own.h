/* SPDX-License-Identifier: GPL-2.0 */
/*
 * own.h - kjit's own processes: the thread groups that said so
 * (KJIT_IOC_SELF: every kjit command does, first thing), while the file
 * they said it on stays open. A session leaves them out of its counts
 * (every-task and CPU scopes; a tasks scope counts only the processes it
 * names anyway), as perf leaves out its own work: `kjit report --live`
 * during a system-wide session reads kallsyms, and a session attached
 * there counted each symbol it read (KJIT_SCOPE_KJIT in the request counts
 * them too). Other users of /dev/kjit (the test programs that attach and
 * run their workload in their own process) are counted like any process.
 *
 *     openers  up to KJIT_OWN_MAX thread groups, each with its number of
 *              files (a file keeps the tgid of the task that called
 *              KJIT_IOC_SELF on it); past the limit, -ENOSPC
 *     live     the attached session's bitmap (scope.h), kept up to date:
 *              a bit is set when its group says so, cleared when its last
 *              file closes, or, when that close is the group's own exit,
 *              when the group is freed (sched_process_free): the rest of
 *              its exit is kjit's work too; atomic bit operations, which
 *              the entry trampoline reads with bt
 *
 * Context: process (open, release, attach, detach), and the free probe in
 * an RCU callback; own_lock is a spinlock taken with interrupts off,
 * inside kjit_mutex, never the other way round.
 */
#ifndef KJIT_OWN_H
#define KJIT_OWN_H

#include <linux/fs.h>
#include <linux/types.h>

#define KJIT_OWN_MAX 64

/* /dev/kjit's open: @file belongs to nobody yet. */
void kjit_own_open(struct file *file);
/* KJIT_IOC_SELF: the caller's thread group is kjit's own while @file stays
 * open (once per file). 0, or -ENOSPC past KJIT_OWN_MAX groups. */
long kjit_own_join(struct file *file);
/* /dev/kjit's release: the group leaves with its last file. */
void kjit_own_release(struct file *file);
/* Sets every opener's bit in @bits (@limit bits), then keeps it up to
 * date until kjit_own_unwatch(). */
void kjit_own_watch(unsigned long *bits, u32 limit);
void kjit_own_unwatch(void);

#endif
