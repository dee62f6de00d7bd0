// SPDX-License-Identifier: GPL-2.0
/*
 * kjit_stackcheck.c - the reliable stack walk of one sleeping task, as
 * livepatch asks for it, for the VM case stack_traces.
 *
 *   insmod kjit_stackcheck.ko pid=N   prints, for task N,
 *     kjit_stackcheck: pid N: reliable, F frames: a < b < ...   or
 *     kjit_stackcheck: pid N: unreliable (why) after F frames: ...
 *   and fails the load (-EAGAIN), so nothing stays loaded.
 *
 * The walk is the kernel's arch_stack_walk_reliable() (arch/x86/kernel/
 * stacktrace.c, the same in 6.1 and 6.12) written out with the exported
 * unwinder: stack_trace_save_tsk_reliable() itself is not exported. Every
 * return address must be kernel text the unwinder knows, no unwinder error
 * may occur, and the walk must end at the task's user-mode registers.
 */
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched/task.h>
#include <asm/unwind.h>

static int pid;
module_param(pid, int, 0444);

#define MAX_FRAMES 32

static const char *walk(struct task_struct *t, unsigned long *addr,
			unsigned int *n)
{
	struct unwind_state state;
	struct pt_regs *regs;

	*n = 0;
	for (unwind_start(&state, t, NULL, NULL);
	     !unwind_done(&state) && !unwind_error(&state);
	     unwind_next_frame(&state)) {
		regs = unwind_get_entry_regs(&state, NULL);
		if (regs && user_mode(regs))
			return NULL; /* reached user mode: reliable */
		addr[*n] = unwind_get_return_address(&state);
		if (!addr[*n])
			return "a return address the unwinder does not know";
		if (++*n == MAX_FRAMES)
			return "too many frames";
	}
	return unwind_error(&state) ? "unwinder error" : NULL;
}

static int __init stackcheck_init(void)
{
	unsigned long addr[MAX_FRAMES];
	struct task_struct *t;
	const char *why;
	unsigned int n, i;
	char line[1024];
	int len = 0;

	/* the case's task sleeps in a read for as long as this runs: its
	 * stack stays (put_task_stack() is not exported to pin it) */
	t = get_pid_task(find_vpid(pid), PIDTYPE_PID);
	if (!t)
		return -ESRCH;
	why = walk(t, addr, &n);
	put_task_struct(t);
	for (i = 0; i < n && len < (int)sizeof(line) - 80; i++)
		len += scnprintf(line + len, sizeof(line) - len, "%s%pS",
				 i ? " < " : "", (void *)addr[i]);
	if (why)
		pr_info("kjit_stackcheck: pid %d: unreliable (%s) after %u "
			"frames: %s\n",
			pid, why, n, line);
	else
		pr_info("kjit_stackcheck: pid %d: reliable, %u frames: %s\n",
			pid, n, line);
	return -EAGAIN;
}

module_init(stackcheck_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kjit test: reliable stack walk of one task");
