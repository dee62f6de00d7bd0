// SPDX-License-Identifier: GPL-2.0
/*
 * kjit_rigtest.c - misbehaves on purpose, to prove the VM rig notices.
 *
 * Used only by `make rig-selftest`, never by the default `make test`.
 *   insmod kjit_rigtest.ko action=warn  - WARN() once at load
 *   insmod kjit_rigtest.ko action=hang  - both CPUs spin with interrupts off
 * and serves as a module with init text for the default suite:
 *   insmod kjit_rigtest.ko action=addr  - print where its init function is
 */
#include <linux/module.h>
#include <linux/smp.h>
#include <linux/string.h>

static char *action = "none";
module_param(action, charp, 0444);

static void spin_forever(void *unused)
{
	local_irq_disable();
	for (;;)
		cpu_relax();
}

static int __init rigtest_init(void)
{
	if (!strcmp(action, "warn"))
		WARN(1, "kjit_rigtest: deliberate warning\n");
	else if (!strcmp(action, "hang"))
		on_each_cpu(spin_forever, NULL, 0);
	else if (!strcmp(action, "addr"))
		pr_info("kjit_rigtest: init at %px\n", rigtest_init);
	return 0;
}

static void __exit rigtest_exit(void)
{
}

module_init(rigtest_init);
module_exit(rigtest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kjit test: misbehaves on purpose, to prove the VM rig notices");
