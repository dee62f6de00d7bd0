// SPDX-License-Identifier: GPL-2.0
/*
 * kjit_lptarget.c - a function for the livepatch VM case to patch while a
 * task sleeps in it.
 *
 *   echo 1 > /sys/module/kjit_lptarget/parameters/sleep   sleeps in
 *       lpt_block(), called by lpt_wait(), called by set_sleep(), until
 *   echo 1 > /sys/module/kjit_lptarget/parameters/wake
 * kjit_lptest.ko replaces lpt_wait() with one that does not sleep.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/wait.h>

static DECLARE_WAIT_QUEUE_HEAD(wq);
static int woken;

int lpt_wait(void); /* global: no clone or rename by the compiler */

/* The sleep itself (its might_sleep() static call keeps it native in a
 * module, where kjit knows no static call trampolines). */
static noinline int lpt_block(void)
{
	return wait_event_interruptible(wq, READ_ONCE(woken));
}

/* What the livepatch replaces: plain code, translated whole by deep mode,
 * so a sleeper's frame of it is in the cache. */
noinline int lpt_wait(void)
{
	return lpt_block() ? -EINTR : 0;
}

/* Calls lpt_wait() (no tail call: deep mode follows calls). */
static int set_sleep(const char *val, const struct kernel_param *kp)
{
	WRITE_ONCE(woken, 0);
	return lpt_wait() ? -EINTR : 0;
}

static int set_wake(const char *val, const struct kernel_param *kp)
{
	WRITE_ONCE(woken, 1);
	wake_up_all(&wq);
	return 0;
}

module_param_call(sleep, set_sleep, NULL, NULL, 0200);
module_param_call(wake, set_wake, NULL, NULL, 0200);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kjit test: a function a livepatch replaces");
