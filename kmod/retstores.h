/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retstores.h - return addresses that other tracers keep off a task's
 * stack: kretprobes/fprobe exits (rethook: the stack holds the rethook
 * trampoline, the real return address is in a node on the task's list) and
 * the function-graph tracer (the task's ret_stack). A cache return address
 * hidden there must be moved at detach like one on the stack.
 */
#ifndef KJIT_RETSTORES_H
#define KJIT_RETSTORES_H

struct task_struct;

/* Call @fn on every such slot of @t, until it returns non-zero (returned).
 * @t must be held off the CPU (task_call_func()). */
int kjit_retstores_walk(struct task_struct *t,
			int (*fn)(unsigned long *slot, void *arg), void *arg);

#endif
