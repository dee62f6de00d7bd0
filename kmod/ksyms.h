/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksyms.h - kernel functions kjit needs but the kernel does not export.
 *
 * They are resolved once, at module load, through kallsyms_lookup_name (itself
 * found with a kprobe, since 6.1 no longer exports it). A symbol that cannot be
 * found makes the load fail with a message naming it. docs/design/ksyms.md
 * lists every symbol with the reason we need it. Every function here is called
 * through a gate (gates.h), never by a pointer to the function itself:
 * IBT kernels seal functions whose address is never taken.
 */
#ifndef KJIT_KSYMS_H
#define KJIT_KSYMS_H

#include <linux/types.h>

struct module;

struct exception_table_entry;
struct task_struct;
struct cred;

/* The resolved functions; every pointer is non-NULL after kjit_ksyms_init(). */
struct kjit_kernel_api {
	const struct exception_table_entry *(*search_exception_tables)(
	    unsigned long addr);
	bool (*within_kprobe_blacklist)(unsigned long addr);
	int (*kallsyms_lookup_size_offset)(unsigned long addr,
					   unsigned long *size,
					   unsigned long *offset);
	unsigned long (*ftrace_location)(unsigned long ip);
	struct module *(*module_address)(unsigned long addr);
	int (*task_call_func)(struct task_struct *p,
			      int (*func)(struct task_struct *, void *),
			      void *arg);
	struct task_struct *(*idle_task)(int cpu);
	int (*kernel_text_address)(unsigned long addr);
	bool (*kallsyms_show_value)(const struct cred *cred);
};

extern struct kjit_kernel_api kjit_kapi;

int kjit_ksyms_init(void);
/* Returns the address of @name, or 0 if the kernel has no such symbol.
 * Never call the address: use kjit_lookup_callable(). */
unsigned long kjit_lookup_name(const char *name);
/* A function pointer that calls kernel function @name (through a gate),
 * or NULL if there is no such symbol or no gate left. Module init only. */
void *kjit_lookup_callable(const char *name);

/* Pin the module whose code contains @addr so it cannot be unloaded while
 * the cache may hold translations of it. Returns the module (NULL for core
 * kernel code), or ERR_PTR(-ENOENT) if the module is not live (still
 * loading, or going away) or @addr is in its init text: both are freed
 * whatever the module's refcount. Any context. */
struct module *kjit_module_pin(unsigned long addr);
/* Undo kjit_module_pin(); NULL and error pointers are ignored. */
void kjit_module_unpin(struct module *mod);

#endif
