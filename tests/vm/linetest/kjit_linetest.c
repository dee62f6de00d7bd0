/* kjit_linetest.c - guest module for the source-line case
 * (tests/vm/cases/lines.sh), built with -g: writing N to
 * /sys/module/kjit_linetest/parameters/run calls linemod_outer(N), the
 * host line test's function (tests/tool/fixtures/lines/linemod.c, compiled
 * in here), a noinline function with an inlined helper. */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include "linemod.c"

static int run_set(const char *val, const struct kernel_param *kp)
{
	int n, rc = kstrtoint(val, 0, &n);

	if (rc)
		return rc;
	pr_info("kjit_linetest: linemod_outer(%d) = %d\n", n, linemod_outer(n));
	return 0;
}

static const struct kernel_param_ops run_ops = {.set = run_set};
module_param_cb(run, &run_ops, NULL, 0200);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kjit source-line test: a -g module with an inlined helper");
