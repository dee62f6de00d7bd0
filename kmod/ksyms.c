// SPDX-License-Identifier: GPL-2.0
/*
 * ksyms.c - resolve unexported kernel symbols at load time.
 *
 * Invariants:
 *  - kjit_ksyms_init() runs once from module init, in process context, before
 *    anything else of kjit uses a resolved symbol; after it returns 0 every
 *    pointer here is non-NULL.
 *  - The kprobe used to find kallsyms_lookup_name is unregistered before
 *    kjit_ksyms_init() returns, whatever happens.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include "ksyms.h"

typedef unsigned long (*kallsyms_lookup_name_t)(const char *name);
static kallsyms_lookup_name_t kjit_kallsyms_lookup_name;

/*
 * find_kallsyms_lookup_name - learn the address of kallsyms_lookup_name by
 * registering (and at once unregistering) a kprobe on it: register_kprobe()
 * resolves symbol_name for us and leaves the address in kp.addr.
 */
static int find_kallsyms_lookup_name(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	int err;

	err = register_kprobe(&kp);
	if (err) {
		pr_err("kjit: cannot find kallsyms_lookup_name (register_kprobe: %d)\n",
		       err);
		return err;
	}
	kjit_kallsyms_lookup_name = (kallsyms_lookup_name_t)kp.addr;
	unregister_kprobe(&kp);
	return 0;
}

/* Returns the address of @name, or 0 if the kernel has no such symbol. */
unsigned long kjit_lookup_name(const char *name)
{
	return kjit_kallsyms_lookup_name(name);
}

int kjit_ksyms_init(void)
{
	return find_kallsyms_lookup_name();
}
