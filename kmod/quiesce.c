// SPDX-License-Identifier: GPL-2.0
/*
 * quiesce.c - make sure no task can still run a session's code cache, so
 * that it can be freed.
 *
 * After diversion is off and the RCU grace periods of session.c, no task
 * can enter the cache. But in native-call mode a task that called out of
 * translated code has a cache return address on its stack, and it may be
 * asleep there (rcu_tasks counts its sleep as quiescent). So every task's
 * stack, the idle tasks' included, is scanned with the task held off the
 * CPU (task_call_func(), as livepatch does), and each cache return address
 * - exactly the address a translated call pushed, nothing near it
 * (kjit_cache_return_site) - is rewritten to the original return address
 * it stands for: the instruction after the original call, always a legal
 * place to resume natively; so is one that another tracer keeps off the
 * stack for the task (kretprobe, function graph: kmod/retstores.c). A task
 * that is on a CPU, or on a runqueue with any other cache address on its
 * stack (preempted inside translated code: that word is its saved IP), is
 * tried again shortly; it leaves the cache by itself. A dequeued task's
 * IP is in schedule(), but it may sleep in a fault raised inside the cache
 * (a user copy that waits for userfaultfd, mmap_lock, I/O or reclaim): the
 * exception frame on its stack then holds a cache IP that it resumes at
 * when the fault completes. The kernel's unwinder finds every exception
 * and interrupt frame on the stack; a saved IP on the copy of an
 * instruction with an exception-table entry is rewritten to the original
 * instruction (kjit_cache_fault_site: the same registers, stack and fixup,
 * so the instruction is simply run again natively), and a frame with any
 * other cache IP makes the task busy (tried again). Other cache addresses
 * on a dequeued task's stack are stale data. The quiescing task's own
 * stack is scanned last,
 * from its current frame up (it may have entered its ioctl through the
 * cache), so that the code can be freed before it returns.
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
#include <asm/unwind.h>
#include "cachepool.h"
#include "compat.h"
#include "exittail.h"
#include "ksyms.h"
#include "quiesce.h"
#include "retstores.h"
#include "session.h"

struct busy;

struct scan {
	const struct kjit_session *s;
	struct task_struct *t; /* the task being scanned */
	unsigned long rewritten, faults; /* return addresses, fault IPs moved */
	bool stray; /* @t's stack holds a cache address that is no return site */
	struct busy *busy; /* scan_all()'s, for scan_dying() */
};

/* Is @v code of @s's caches, the trampoline aside? */
static bool in_cache(const struct kjit_session *s, unsigned long v)
{
	return kjit_pool_in_session(v) && v - s->tramp >= s->tramp_len;
}

/* Words of another task's stack (or the current one's, above this frame)
 * are read with READ_ONCE_NOCHECK, as the kernel's unwinder reads them:
 * they include the redzones KASAN poisons around live frames' locals. A
 * stale word there can equal a return site and be rewritten too (harmless:
 * nothing reads it), so the write is not checked either. */
static noinline __no_sanitize_address void write_word(unsigned long *p,
						      unsigned long v)
{
	WRITE_ONCE(*p, v);
}

/* A word of @sc->t's stack, or a slot where another tracer keeps one of
 * its return addresses: a cache return address is rewritten to the
 * original it stands for. Any other cache address on a task that is on a
 * runqueue may be its saved IP inside translated code (preempted): come
 * back later - whatever __state says, as a task preempted between
 * set_current_state() and schedule() is still queued. On a dequeued
 * (sleeping) task it is stale data, as its IP is in schedule(), unless an
 * exception frame holds it (move_entry_frames() looks at those). */
static int move_word(unsigned long *p, void *arg)
{
	struct scan *sc = arg;
	unsigned long v = READ_ONCE_NOCHECK(*p), orig;

	if (!in_cache(sc->s, v))
		return 0; /* not the cache: no task runs the trampoline now
			     (detach's RCU-tasks wait), so stale data */
	orig = kjit_session_return_site(sc->s, v);
	if (!orig) {
		if (READ_ONCE(sc->t->on_rq))
			return -EBUSY;
		sc->stray = true; /* stale, or an exception frame's IP */
		return 0;
	}
	write_word(p, orig);
	sc->rewritten++;
	return 0;
}

/* One walk of @t's stack with the kernel's unwinder: the first exception
 * or interrupt frame whose saved IP is in the cache has it moved, if it is
 * the copy of an instruction with an exception-table entry, to the
 * original (1); any other cache IP there is a frame that cannot move
 * (-EBUSY); 0: none. */
static int move_one_entry_frame(struct task_struct *t, struct scan *sc)
{
	struct unwind_state st;
	struct pt_regs *regs;
	unsigned long ip, orig;

	for (unwind_start(&st, t, NULL, NULL); !unwind_done(&st);
	     unwind_next_frame(&st)) {
		regs = unwind_get_entry_regs(&st, NULL);
		if (!regs)
			continue;
		ip = READ_ONCE(regs->ip);
		if (!in_cache(sc->s, ip))
			continue;
		orig = kjit_session_fault_site(sc->s, ip);
		if (!orig)
			return -EBUSY;
		WRITE_ONCE(regs->ip, orig);
		sc->faults++;
		return 1;
	}
	return 0;
}

/* The exception and interrupt frames on the stack of @t (off CPU and off
 * the runqueue): moved one by one, the walk starting anew after each, so
 * that it goes on from the original (its ORC) rather than from the copy.
 * 0, or -EBUSY: a frame that cannot move (try again later). Without an
 * unwinder that finds such frames (KJIT_UNWIND_FINDS_REGS), a stray cache
 * address may be one: busy too. */
static int move_entry_frames(struct task_struct *t, struct scan *sc)
{
	int err, n = 0;

	if (!KJIT_UNWIND_FINDS_REGS)
		return -EBUSY;
	while ((err = move_one_entry_frame(t, sc)) > 0 && ++n < 16)
		;
	return err < 0 ? err : 0;
}

/* task_call_func() callback: @t cannot start running meanwhile. */
static int scan_task(struct task_struct *t, void *arg)
{
	struct scan *sc = arg;
	unsigned long *p, *end;
	int err;

	if (READ_ONCE(t->on_cpu))
		return -EBUSY;
	/* TASK_DEAD: past its last schedule(), it never runs again (and its
	 * stack may be going). An exiting task (exit_state) before that still
	 * runs code and is scanned like any other. */
	if (READ_ONCE(t->__state) == TASK_DEAD || !task_stack_page(t))
		return 0;
	sc->t = t;
	sc->stray = false;
	p = (unsigned long *)t->thread.sp;
	end = (unsigned long *)(task_stack_page(t) + THREAD_SIZE);
	if (p < (unsigned long *)task_stack_page(t) || p >= end)
		p = end;
	for (; p < end; p++) {
		err = move_word(p, sc);
		if (err)
			return err;
	}
	/* return addresses that other tracers keep, before the unwinder
	 * reads them back */
	err = kjit_retstores_walk(t, move_word, sc);
	if (err)
		return err;
	/* only a stack with such a word can hold an exception frame's cache
	 * IP: the unwinder is not run on the others */
	return sc->stray ? move_entry_frames(t, sc) : 0;
}

#define KJIT_MAX_BUSY 256

/* Tasks to try again, each with a reference. */
struct busy {
	struct task_struct *t[KJIT_MAX_BUSY];
	unsigned int n;
	bool overflow; /* some did not fit: scan everything again later */
};

/* Scan @t now, or keep it in @b for later. */
static void scan_or_hold(struct scan *sc, struct busy *b, struct task_struct *t)
{
	if (!kjit_kapi.task_call_func(t, scan_task, sc))
		return;
	if (b->n == KJIT_MAX_BUSY) {
		b->overflow = true;
		return;
	}
	get_task_struct(t);
	b->t[b->n++] = t;
}

/* kjit_exit_tail_each() callback: a dying task is scanned as any other
 * (twice if the walk found it too: a moved address is moved once). */
static void scan_dying(struct task_struct *t, void *arg)
{
	struct scan *sc = arg;

	if (t != current)
		scan_or_hold(sc, sc->busy, t);
}

/* One pass over every task, the idle tasks included: for_each_process_thread
 * does not list them (nor does RCU-tasks wait for them), yet an idle task
 * runs kernel code like any other. An offline CPU's idle task is parked in
 * its dead-CPU loop, which kjit refuses to translate (kmod/refuse.c). */
static void scan_all(struct scan *sc, struct busy *b)
{
	struct task_struct *g, *t;
	int cpu;

	b->n = 0;
	b->overflow = false;
	rcu_read_lock();
	for_each_process_thread(g, t)
	{
		if (t != current)
			scan_or_hold(sc, b, t);
	}
	for_each_online_cpu(cpu) scan_or_hold(sc, b, kjit_kapi.idle_task(cpu));
	rcu_read_unlock();
	/* dying tasks in the cache's tail of do_exit() (exittail.h): one
	 * may be off the task list already. Each took its slot while still
	 * on it, so one that the walk missed is in the table by now. */
	smp_mb();
	sc->busy = b;
	kjit_exit_tail_each(scan_dying, sc);
}

/* move_word() for the quiescing task itself: its ioctl may have entered
 * through a deep-attached function (__x64_sys_ioctl), so the callers'
 * frames above this one hold cache return addresses it will return
 * through. It is running, so nothing else on its stack is a saved IP:
 * only exact return addresses are moved. */
static int move_own_word(unsigned long *p, void *arg)
{
	struct scan *sc = arg;
	unsigned long v = READ_ONCE_NOCHECK(*p), orig;

	orig = kjit_pool_in_session(v) ? kjit_session_return_site(sc->s, v) : 0;
	if (orig) {
		write_word(p, orig);
		sc->rewritten++;
	}
	return 0;
}

/* The calling task's stack, from this frame up, and its return stores.
 * Only it pushes onto them, and a push below this frame or onto the head
 * of its rethook list cannot disturb what is walked. */
static noinline void scan_current(struct scan *sc)
{
	unsigned long *p = (unsigned long *)current_stack_pointer;
	unsigned long *end =
	    (unsigned long *)(task_stack_page(current) + THREAD_SIZE);

	sc->t = current;
	for (; p < end; p++)
		move_own_word(p, sc);
	kjit_retstores_walk(current, move_own_word, sc);
}

/* Retry @b from every online CPU in turn: while this task runs on a CPU, no
 * other task is running there, so tasks that only ran (in user mode, say)
 * are seen off the CPU - that CPU's idle task too. Drops the reference of
 * each task that is done. */
static void retry_busy(struct scan *sc, struct busy *b)
{
	unsigned int i, left;
	int cpu;

	for_each_online_cpu(cpu)
	{
		set_cpus_allowed_ptr(current, cpumask_of(cpu));
		for (i = 0, left = 0; i < b->n; i++) {
			if (kjit_kapi.task_call_func(b->t[i], scan_task, sc))
				b->t[left++] = b->t[i];
			else
				put_task_struct(b->t[i]);
		}
		b->n = left;
	}
}

/* Until every task in @b has been scanned; @b is then empty. */
static void wait_busy(struct scan *sc, struct busy *b)
{
	unsigned int pass = 0;

	while (b->n) {
		retry_busy(sc, b);
		if (b->n && ++pass % 500 == 0)
			pr_info("kjit: waiting for %u task(s) to leave the "
				"code cache\n",
				b->n);
		if (b->n)
			usleep_range(1000, 2000);
	}
}

void kjit_quiesce(const struct kjit_session *s)
{
	struct scan sc = {.s = s};
	struct busy *b;
	cpumask_var_t saved;

	b = kzalloc(sizeof(*b), GFP_KERNEL | __GFP_NOFAIL);
	if (!alloc_cpumask_var(&saved, GFP_KERNEL | __GFP_NOFAIL))
		return;
	cpumask_copy(saved, current->cpus_ptr);
	do {
		scan_all(&sc, b);
		wait_busy(&sc, b);
	} while (b->overflow);
	scan_current(&sc);
	set_cpus_allowed_ptr(current, saved);
	free_cpumask_var(saved);
	kfree(b);
	if (sc.rewritten)
		pr_info("kjit: %lu return address(es) moved out of the code "
			"cache\n",
			sc.rewritten);
	if (sc.faults)
		pr_info("kjit: %lu task(s) stopped in a fault in the code cache "
			"resume at the original instruction\n",
			sc.faults);
}
