// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - kjit.ko load and unload.
 *
 * Order matters: symbols are resolved before anything can use them, and
 * /dev/kjit appears last, so no request reaches a half-initialised module.
 * Unload removes /dev/kjit first.
 */
#include <linux/module.h>
#include "cachepool.h"
#include "chardev.h"
#include "compat.h"
#include "control.h"
#include "kcode.h"
#include "gates.h"
#include "sites.h"
#include "kjit_ioctl.h"
#include "ibl.h"
#include "ksyms.h"
#include "exittail.h"
#include "livepatch.h"
#include "pcpu.h"
#include "refuse.h"
#include "scope.h"
#include "split.h"
#include "timing.h"

static int __init kjit_init(void)
{
	int err;

	err = kjit_ksyms_init();
	if (!err)
		err = kjit_compat_init();
	if (!err) /* every gate is set by now */
		err = kjit_gates_check();
	if (!err)
		err = kjit_kcode_init();
	if (err)
		return err;
	kjit_exit_tail_init();
	err = kjit_pool_init();
	if (err)
		return err;
	err = kjit_ibl_init();
	if (err)
		goto out_pool;
	err = kjit_sites_init();
	if (err)
		goto out_ibl;
	kjit_refuse_init();
	kjit_pcpu_probe();
	kjit_scope_init();
	kjit_split_init();
	kjit_timing_init();
	err = kjit_livepatch_init();
	if (err)
		goto out_sites;
	err = kjit_chardev_init();
	if (err) {
		pr_err("kjit: cannot register /dev/kjit: %d\n", err);
		goto out_livepatch;
	}
	pr_info("kjit: loaded (%s, ABI %d)\n", KJIT_BUILD_STRING,
		KJIT_ABI_VERSION);
	return 0;
out_livepatch:
	kjit_livepatch_exit();
out_sites:
	kjit_sites_exit();
out_ibl:
	kjit_ibl_exit();
out_pool:
	kjit_pool_exit();
	return err;
}

static void __exit kjit_exit(void)
{
	kjit_chardev_exit();
	kjit_livepatch_exit();
	kjit_control_exit();
	kjit_exit_tail_forget();
	kjit_sites_exit();
	kjit_ibl_exit();
	kjit_pool_exit();
	pr_info("kjit: unloaded\n");
}

module_init(kjit_init);
module_exit(kjit_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kjit: just-in-time instrumentation of kernel code");
