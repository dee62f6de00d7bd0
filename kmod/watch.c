// SPDX-License-Identifier: GPL-2.0
/*
 * watch.c - what changes under the cache without a run-time test (see
 * sites.c and jit/flow.c for the sites that have one): a Kprobe that uses
 * int3, armed at an address inside an attached or followed function after
 * kjit attached. The cache holds copies of that code, so the copies never
 * hit the Kprobe; kjit cannot move it into them, so it says so: the
 * session's statistics count such Kprobes and keep the first address
 * (`kjit stat` prints a warning).
 *
 * How: an ftrace_ops callback on arch_arm_kprobe(), which the kprobes core
 * calls (kprobe_mutex and text_mutex held) for every int3 Kprobe it arms;
 * Kprobes on ftrace sites go through ftrace instead, which the entry guard
 * covers for followed callees and ftrace's own list for attached functions.
 *
 * Invariants:
 *  - Registered only while a session is attached; the callback reads the
 *    session through kjit_active under RCU-sched (ftrace callbacks run with
 *    preemption disabled).
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include "compat.h"
#include "ksyms.h"
#include "session.h"
#include "watch.h"

static void notrace on_arm_kprobe(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op,
				  struct ftrace_regs *fregs)
{
	struct kprobe *p = (struct kprobe *)kjit_fregs_arg(fregs, 0);
	struct kjit_session *s = rcu_dereference_sched(kjit_active);
	unsigned long addr;

	if (!s || !p)
		return;
	addr = (unsigned long)READ_ONCE(p->addr);
	if (!kjit_session_contains(s, addr))
		return;
	if (atomic64_inc_return(&s->patched) == 1)
		WRITE_ONCE(s->patched_addr, addr);
}

static struct ftrace_ops watch_ops = {
    .func = on_arm_kprobe,
    .flags = FTRACE_OPS_FL_RECURSION,
};
static bool watching;

void kjit_watch_start(struct kjit_session *s)
{
	static const char fn[] = "arch_arm_kprobe";
	int err;

	s->watched = false;
	if (watching)
		return;
	err = ftrace_set_filter(&watch_ops, (unsigned char *)fn, sizeof(fn) - 1,
				1);
	if (!err)
		err = register_ftrace_function(&watch_ops);
	if (err) {
		pr_info_once("kjit: cannot watch %s (%d): Kprobes armed in "
			     "translated code will not be noticed\n",
			     fn, err);
		return;
	}
	watching = true;
	s->watched = true;
}

void kjit_watch_stop(void)
{
	if (!watching)
		return;
	unregister_ftrace_function(&watch_ops);
	watching = false;
}
