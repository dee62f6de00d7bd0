// SPDX-License-Identifier: GPL-2.0
/*
 * retstores.c - return-address slots kept off the stack (see retstores.h).
 *
 * Invariants:
 *  - Only walked with the task held off the CPU (task_call_func(), from
 *    kmod/quiesce.c): it cannot push or pop entries meanwhile, so the
 *    lists and arrays are stable and a slot rewritten is read by the task
 *    only when it returns.
 *  - Layouts are the kernel's: struct rethook_node (include/linux/
 *    rethook.h, the same in 6.1 and 6.12) and, for the function-graph
 *    tracer, struct ftrace_ret_stack reached through the kernel's own
 *    ftrace_graph_get_ret_stack(). A kernel whose layout differs must get
 *    its own walker here, never a guess.
 */
#include <linux/ftrace.h>
#include <linux/llist.h>
#include <linux/rethook.h>
#include <linux/sched.h>
#include "compat.h"
#include "retstores.h"

/* More frames than any shadow stack holds (6.1: FTRACE_RETFUNC_DEPTH 50;
 * 6.12: a page of words). */
#define KJIT_FGRAPH_MAX_FRAMES 1024

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

/* The function-graph tracer: every frame of the task's shadow stack,
 * newest first, through the kernel's own accessor (compat.h), whose
 * layout changed in 6.9. */
static int walk_fgraph(struct task_struct *t,
		       int (*fn)(unsigned long *, void *), void *arg)
{
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	struct ftrace_ret_stack *rs;
	int i, err;

	if (!READ_ONCE(t->ret_stack))
		return 0;
	for (i = 0; i < KJIT_FGRAPH_MAX_FRAMES; i++) {
		rs = kjit_fgraph_frame(t, i);
		if (!rs)
			return 0;
		err = fn(&rs->ret, arg);
		if (err)
			return err;
	}
	return -E2BIG; /* a cycle or a corrupt stack: do not trust it */
#else
	return 0;
#endif
}

int kjit_retstores_walk(struct task_struct *t,
			int (*fn)(unsigned long *slot, void *arg), void *arg)
{
	int err = walk_rethooks(t, fn, arg);

	return err ? err : walk_fgraph(t, fn, arg);
}
