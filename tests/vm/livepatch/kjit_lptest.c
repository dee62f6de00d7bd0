// SPDX-License-Identifier: GPL-2.0
/*
 * kjit_lptest.c - a livepatch of kjit_lptarget.ko's lpt_wait(), for the
 * livepatch VM case (the kernel's samples/livepatch pattern).
 */
#include <linux/livepatch.h>
#include <linux/module.h>

static int lpt_wait_patched(void)
{
	return 0;
}

static struct klp_func funcs[] = {
    {.old_name = "lpt_wait", .new_func = lpt_wait_patched}, {}};

static struct klp_object objs[] = {{.name = "kjit_lptarget", .funcs = funcs},
				   {}};

static struct klp_patch patch = {.mod = THIS_MODULE, .objs = objs};

static int __init lptest_init(void)
{
	return klp_enable_patch(&patch);
}

static void __exit lptest_exit(void)
{
}

module_init(lptest_init);
module_exit(lptest_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
MODULE_DESCRIPTION("kjit test: a livepatch of kjit_lptarget:lpt_wait");
