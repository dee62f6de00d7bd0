// SPDX-License-Identifier: GPL-2.0
/*
 * kjit_stackcheck.c - the reliable stack walk of one sleeping task, as
 * livepatch asks for it, for the VM case stack_traces; or of every task
 * that hits one code address.
 *
 *   insmod kjit_stackcheck.ko pid=N   prints, for task N,
 *     kjit_stackcheck: pid N: reliable, F frames: a < b < ...   or
 *     kjit_stackcheck: pid N: unreliable (why) after F frames: ...
 *   and fails the load (-EAGAIN), so nothing stays loaded.
 *
 *   insmod kjit_stackcheck.ko addr=A off=O   arms a Kprobe at A + O (any
 *   kernel text with a name: kjit's entry trampoline, which a kprobe event
 *   may not probe, as it has no ftrace site), which walks the stack from
 *   the trapped registers at each hit; rmmod prints
 *     kjit_stackcheck: probe at X: H hits, R reliable; first: a < b < ...
 *     kjit_stackcheck: probe at X: first unreliable (why) after F frames: ...
 *
 * The walk is the kernel's arch_stack_walk_reliable() (arch/x86/kernel/
 * stacktrace.c, the same in 6.1 and 6.12) written out with the exported
 * unwinder: stack_trace_save_tsk_reliable() itself is not exported. Every
 * return address must be kernel text the unwinder knows, no unwinder error
 * may occur, and the walk must end at the task's user-mode registers.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched/task.h>
#include <asm/unwind.h>

static int pid;
module_param(pid, int, 0444);
static unsigned long addr, off;
module_param(addr, ulong, 0444);
module_param(off, ulong, 0444);

#define MAX_FRAMES 32

/* The walk of @t, from @from (trapped registers) or its saved state. */
static const char *walk(struct task_struct *t, struct pt_regs *from,
			unsigned long *ret, unsigned int *n)
{
	struct unwind_state state;
	struct pt_regs *regs;

	*n = 0;
	for (unwind_start(&state, t, from, NULL);
	     !unwind_done(&state) && !unwind_error(&state);
	     unwind_next_frame(&state)) {
		regs = unwind_get_entry_regs(&state, NULL);
		if (regs && user_mode(regs))
			return NULL; /* reached user mode: reliable */
		ret[*n] = unwind_get_return_address(&state);
		if (!ret[*n])
			return "a return address the unwinder does not know";
		if (++*n == MAX_FRAMES)
			return "too many frames";
	}
	return unwind_error(&state) ? "unwinder error" : NULL;
}

/* "a < b < ..." for @n frames at @a into @line. */
static void frames_line(char *line, size_t cap, const unsigned long *a,
			unsigned int n)
{
	unsigned int i;
	int len = 0;

	line[0] = 0;
	for (i = 0; i < n && len < (int)cap - 80; i++)
		len += scnprintf(line + len, cap - len, "%s%pS", i ? " < " : "",
				 (void *)a[i]);
}

/* probe mode: counts, and the first trace and the first unreliable one */
static struct kprobe kp;
static atomic_t hits, good;
static unsigned long first[MAX_FRAMES], bad[MAX_FRAMES];
static unsigned int n_first, n_bad;
static const char *bad_why;
static DEFINE_SPINLOCK(keep);

static int on_hit(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long a[MAX_FRAMES];
	const char *why;
	unsigned int n;
	unsigned long flags;

	why = walk(current, regs, a, &n);
	spin_lock_irqsave(&keep, flags);
	if (atomic_inc_return(&hits) == 1) {
		memcpy(first, a, n * sizeof(*a));
		n_first = n;
	}
	if (!why)
		atomic_inc(&good);
	else if (!bad_why) {
		bad_why = why;
		memcpy(bad, a, n * sizeof(*a));
		n_bad = n;
	}
	spin_unlock_irqrestore(&keep, flags);
	return 0;
}

static int __init stackcheck_init(void)
{
	unsigned long a[MAX_FRAMES];
	struct task_struct *t;
	const char *why;
	unsigned int n;
	char line[1024];
	int err;

	if (addr) {
		kp.addr = (kprobe_opcode_t *)(addr + off);
		kp.pre_handler = on_hit;
		err = register_kprobe(&kp);
		if (err)
			pr_info("kjit_stackcheck: probe at %pS: cannot arm: "
				"%d\n",
				(void *)(addr + off), err);
		return err;
	}
	/* the case's task sleeps in a read for as long as this runs: its
	 * stack stays (put_task_stack() is not exported to pin it) */
	t = get_pid_task(find_vpid(pid), PIDTYPE_PID);
	if (!t)
		return -ESRCH;
	why = walk(t, NULL, a, &n);
	put_task_struct(t);
	frames_line(line, sizeof(line), a, n);
	if (why)
		pr_info("kjit_stackcheck: pid %d: unreliable (%s) after %u "
			"frames: %s\n",
			pid, why, n, line);
	else
		pr_info("kjit_stackcheck: pid %d: reliable, %u frames: %s\n",
			pid, n, line);
	return -EAGAIN;
}

static void __exit stackcheck_exit(void)
{
	static char line[1024];

	unregister_kprobe(&kp);
	frames_line(line, sizeof(line), first, n_first);
	pr_info("kjit_stackcheck: probe at %pS: %d hits, %d reliable; "
		"first: %s\n",
		(void *)(addr + off), atomic_read(&hits), atomic_read(&good),
		line);
	if (!bad_why)
		return;
	frames_line(line, sizeof(line), bad, n_bad);
	pr_info("kjit_stackcheck: probe at %pS: first unreliable (%s) after "
		"%u frames: %s\n",
		(void *)(addr + off), bad_why, n_bad, line);
}

module_init(stackcheck_init);
module_exit(stackcheck_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kjit test: reliable stack walk of one task");
