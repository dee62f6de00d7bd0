// SPDX-License-Identifier: GPL-2.0
/*
 * kjit_ipmodify.c - holds a function the way livepatch does: an ftrace_ops
 * with FTRACE_OPS_FL_IPMODIFY on it (the callback changes nothing). Used by
 * the VM test that checks kjit refuses, cleanly, a function someone else
 * already redirects.
 *   insmod kjit_ipmodify.ko func=NAME
 */
#include <linux/ftrace.h>
#include <linux/module.h>

static char *func = "__x64_sys_getpid";
module_param(func, charp, 0444);

static void notrace hold(unsigned long ip, unsigned long parent_ip,
			 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

static struct ftrace_ops ops = {
    .func = hold,
    .flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static int __init ipmodify_init(void)
{
	int err = ftrace_set_filter(&ops, func, strlen(func), 0);

	if (!err)
		err = register_ftrace_function(&ops);
	if (err)
		pr_err("kjit_ipmodify: cannot hold %s: %d\n", func, err);
	return err;
}

static void __exit ipmodify_exit(void)
{
	unregister_ftrace_function(&ops);
}

module_init(ipmodify_init);
module_exit(ipmodify_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kjit test: holds a function with an IPMODIFY ftrace_ops, as livepatch does");
