// SPDX-License-Identifier: GPL-2.0
/*
 * retstores.c - return-address slots kept off the stack (see retstores.h).
 *
 * Invariants:
 *  - Only walked with the task held off the CPU (task_call_func(), from
 *    kmod/quiesce.c): it cannot push or pop entries meanwhile, so the
 *    lists and arrays are stable and a slot rewritten is read by the task
 *    only when it returns.
 *  - Layouts are the kernel's (include/linux/rethook.h, ftrace.h); a kernel
 *    whose layout differs must get its own walker here, never a guess.
 */
#include <linux/ftrace.h>
#include <linux/llist.h>
#include <linux/rethook.h>
#include <linux/sched.h>
#include "retstores.h"

/* kretprobes and fprobe exits (rethook): one node per hooked call. */
static int walk_rethooks(struct task_struct *t,
			 int (*fn)(unsigned long *, void *), void *arg)
{
#ifdef CONFIG_RETHOOK
	struct llist_node *n;
	int err;

	for (n = t->rethooks.first; n; n = n->next) {
		err = fn(&llist_entry(n, struct rethook_node, llist)->ret_addr,
			 arg);
		if (err)
			return err;
	}
#endif
	return 0;
}

/* The function-graph tracer: entries 0..curr_ret_stack of ret_stack. */
static int walk_fgraph(struct task_struct *t,
		       int (*fn)(unsigned long *, void *), void *arg)
{
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	struct ftrace_ret_stack *rs = READ_ONCE(t->ret_stack);
	int i, top = READ_ONCE(t->curr_ret_stack), err;

	if (!rs)
		return 0;
	for (i = 0; i <= top && i < FTRACE_RETFUNC_DEPTH; i++) {
		err = fn(&rs[i].ret, arg);
		if (err)
			return err;
	}
#endif
	return 0;
}

int kjit_retstores_walk(struct task_struct *t,
			int (*fn)(unsigned long *slot, void *arg), void *arg)
{
	int err = walk_rethooks(t, fn, arg);

	return err ? err : walk_fgraph(t, fn, arg);
}
