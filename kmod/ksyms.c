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
#include <linux/module.h>
#include <linux/uaccess.h>
#include "jit/arch_x86.h"
#include "gates.h"
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
	struct kprobe kp = {.symbol_name = "kallsyms_lookup_name"};
	int err;

	err = register_kprobe(&kp);
	if (err) {
		pr_err("kjit: cannot find kallsyms_lookup_name "
		       "(register_kprobe: %d)\n",
		       err);
		return err;
	}
	kjit_kallsyms_lookup_name = kjit_gate((unsigned long)kp.addr);
	unregister_kprobe(&kp);
	return kjit_kallsyms_lookup_name ? 0 : -ENOSPC;
}

unsigned long kjit_lookup_name(const char *name)
{
	return kjit_kallsyms_lookup_name(name);
}

struct kjit_kernel_api kjit_kapi;

/* Every unexported function we call, with the slot it is resolved into
 * (always through a gate: gates.h). */
static const struct {
	const char *name;
	void **slot;
} wanted[] = {
    {"search_exception_tables", (void **)&kjit_kapi.search_exception_tables},
    {"within_kprobe_blacklist", (void **)&kjit_kapi.within_kprobe_blacklist},
    {"kallsyms_lookup_size_offset",
     (void **)&kjit_kapi.kallsyms_lookup_size_offset},
    {"ftrace_location", (void **)&kjit_kapi.ftrace_location},
    {"__module_address", (void **)&kjit_kapi.module_address},
    {"task_call_func", (void **)&kjit_kapi.task_call_func},
    {"idle_task", (void **)&kjit_kapi.idle_task},
    {"kernel_text_address", (void **)&kjit_kapi.kernel_text_address},
    {"kallsyms_show_value", (void **)&kjit_kapi.kallsyms_show_value},
};

int kjit_ksyms_init(void)
{
	unsigned long addr;
	size_t i;
	int err;

	err = find_kallsyms_lookup_name();
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(wanted); i++) {
		addr = kjit_lookup_name(wanted[i].name);
		if (!addr) {
			pr_err(
			    "kjit: kernel symbol %s not found; cannot load\n",
			    wanted[i].name);
			return -ENOENT;
		}
		*wanted[i].slot = kjit_gate(addr);
		if (!*wanted[i].slot)
			return -ENOSPC;
	}
	return 0;
}

extern char kjit_gates[];
extern unsigned long kjit_gate_to[KJIT_GATES];

static unsigned int used, sealed;

/* Does the function at @addr start with a sealed endbr64 (gates.h)? */
static bool is_sealed(unsigned long addr)
{
	u8 first[KX86_ENDBR64_LEN];

	return !copy_from_kernel_nofault(first, (void *)addr, sizeof(first)) &&
	       kx86_is_endbr(first, sizeof(first)) &&
	       !kx86_is_endbr64(first, sizeof(first));
}

void *kjit_gate(unsigned long addr)
{
	unsigned int i;

	if (!addr)
		return NULL;
	for (i = 0; i < used; i++)
		if (kjit_gate_to[i] == addr)
			return kjit_gates + i * KJIT_GATE_SIZE;
	if (used == KJIT_GATES) {
		pr_err("kjit: out of call gates (KJIT_GATES)\n");
		return NULL;
	}
	kjit_gate_to[used] = addr;
	sealed += is_sealed(addr);
	return kjit_gates + used++ * KJIT_GATE_SIZE;
}

extern char kjit_dispatch_entry[], kjit_dispatch_entry_nf[];

/* On an IBT kernel, does @p start with endbr64? (Always true elsewhere.)
 * @p is hidden from the optimizer: a read of sym+4 folded into a
 * relocation makes objtool warn "relocation to !ENDBR" (KASAN builds). */
static bool ibt_entry_ok(const void *p)
{
	OPTIMIZER_HIDE_VAR(p);
	return !IS_ENABLED(CONFIG_X86_KERNEL_IBT) ||
	       kx86_is_endbr64(p, KX86_ENDBR64_LEN);
}

int kjit_gates_check(void)
{
	unsigned int i;

	for (i = 0; i < KJIT_GATES; i++)
		if (!ibt_entry_ok(kjit_gates + i * KJIT_GATE_SIZE)) {
			pr_err("kjit: call gate %u does not start with endbr64 "
			       "on an IBT kernel; cannot load\n",
			       i);
			return -ENOEXEC;
		}
	if (!ibt_entry_ok(kjit_dispatch_entry) ||
	    !ibt_entry_ok(kjit_dispatch_entry_nf)) {
		pr_err("kjit: a kjit_dispatch_entry does not start with endbr64 "
		       "on an IBT kernel; cannot load\n");
		return -ENOEXEC;
	}
	pr_info("kjit: %u kernel functions found by name, called through "
		"gates; %u of them sealed for IBT (%s)\n",
		used, sealed,
		IS_ENABLED(CONFIG_X86_KERNEL_IBT) ? "IBT kernel" : "no IBT");
	return 0;
}

void *kjit_lookup_callable(const char *name)
{
	return kjit_gate(kjit_lookup_name(name));
}

struct module *kjit_module_pin(unsigned long addr)
{
	struct module *mod;

	preempt_disable();
	mod = kjit_kapi.module_address(addr);
	if (mod && (mod->state != MODULE_STATE_LIVE ||
		    within_module_init(addr, mod) || !try_module_get(mod)))
		mod = ERR_PTR(-ENOENT);
	preempt_enable();
	return mod;
}

void kjit_module_unpin(struct module *mod)
{
	if (!IS_ERR_OR_NULL(mod))
		module_put(mod);
}
