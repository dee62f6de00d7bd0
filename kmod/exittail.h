/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exittail.h - dying tasks that run the rest of do_exit() from the cache.
 *
 * do_exit() calls exit_tasks_rcu_start() (KJIT_LEAVE_AT) just before
 * exit_notify(), after which the task may drop off the task list that
 * detach's quiesce walks (its own release_task(), or its parent's wait()),
 * while it still runs: exit_notify()'s rest, proc_exit_connector(), ...,
 * and its last schedule() in do_task_dead(). Translated do_exit() calls
 * kjit_exit_tail_call (exittail_call.S, kjit_env.stay_call) in that callee's
 * place: the task takes a slot in a table of dying tasks, with a
 * reference, and the helper runs exit_tasks_rcu_start() and returns into
 * the cache. Quiesce scans every task in the table as it scans the task
 * list (kjit_exit_tail_each()), so a dying task that ran off the list is
 * still found: its cache return addresses moved, or waited for until it
 * has made its last switch (TASK_DEAD and off the CPU). A slot is freed
 * once its task has done so, when another task takes one.
 *
 * No slot free (KJIT_EXIT_TAIL_MAX dying tasks, or kjit.exit_tail_max,
 * between that call and their last switch at once): the helper returns to the
 * original code after the call instead, and the rest of that do_exit() runs
 * natively, as it did before (counted: exit_tail_left; reports say so).
 *
 * Invariants: a task takes its slot before exit_notify(), so while it is
 * still on the task list; quiesce reads the table after its walk of the
 * list, so a task off the list by then is in the table. The table
 * outlives sessions: kjit_exit_tail_forget() drops its references after a
 * detach has freed the cache, and at unload.
 */
#ifndef KJIT_EXITTAIL_H
#define KJIT_EXITTAIL_H

#include <linux/types.h>
#include "kjit_ioctl.h" /* KJIT_EXIT_TAIL_MAX */

struct task_struct;
struct kjit_session;

/* The helper translated code calls in exit_tasks_rcu_start()'s place
 * (exittail_call.S); not a C function. */
void kjit_exit_tail_call(void);
/* The callee it tail-calls (exittail_call.S's data): exit_tasks_rcu_start. */
extern unsigned long kjit_exit_tail_to;
/* Its C part, with the call's cache return address: 0 when the task has
 * its slot (stay), else the original return address to leave to. */
unsigned long kjit_exit_tail_enter(unsigned long cache_ret);

/* Module init: find exit_tasks_rcu_start(); false (with a message) when
 * dying tasks cannot stay (kjit.exit_tail=0, the callee or do_exit()'s
 * direct call of it missing): then do_exit() leaves the cache there. */
bool kjit_exit_tail_init(void);
/* The table's size (kjit.exit_tail_max, at most KJIT_EXIT_TAIL_MAX). */
unsigned int kjit_exit_tail_size(void);
/* kjit_env.stay_call: the helper's address, or 0 when tasks cannot stay. */
u64 kjit_exit_tail_helper(void);
/* Call @fn for every task holding a slot, each with a reference held
 * across the call. Process context. */
void kjit_exit_tail_each(void (*fn)(struct task_struct *t, void *arg),
			 void *arg);
/* Drop every slot's reference (the cache is gone, or the module is). */
void kjit_exit_tail_forget(void);
/* Attach, before any diversion: @s's cache is the one the helper's
 * callers return into; the counts start again. */
void kjit_exit_tail_start(struct kjit_session *s);
/* The end of detach, once the cache is freed: the session is no longer
 * asked (an RCU grace period), and the slots are dropped. */
void kjit_exit_tail_stop(void);
/* Since the last kjit_exit_tail_start(): tasks that stayed, and that
 * left for want of a slot. */
void kjit_exit_tail_counts(u64 *stayed, u64 *left);

#endif
