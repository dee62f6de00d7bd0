// SPDX-License-Identifier: GPL-2.0
/*
 * livepatch.c - detach when a livepatch module comes (see livepatch.h).
 *
 * Context: the module notifier runs in process context, in the loading
 * task, with no module lock held at MODULE_STATE_COMING (6.1 and 6.12:
 * prepare_coming_module()), before the module's init.
 */
#include <linux/module.h>
#include <linux/notifier.h>
#include "control.h"
#include "livepatch.h"

static int on_module(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = data;

	if (state == MODULE_STATE_COMING && is_livepatch_module(mod))
		kjit_control_step_aside(mod->name);
	return NOTIFY_DONE;
}

static struct notifier_block notifier = {.notifier_call = on_module};

int kjit_livepatch_init(void)
{
	return register_module_notifier(&notifier);
}

void kjit_livepatch_exit(void)
{
	unregister_module_notifier(&notifier);
}
