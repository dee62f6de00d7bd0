// SPDX-License-Identifier: GPL-2.0
/*
 * compat.c - the kernel-version differences that need code (see compat.h).
 *
 * Invariants:
 *  - kjit_compat_init() runs once at module load; afterwards code_alloc is
 *    set and every function here is usable.
 *  - Functions here only adapt one kernel interface to one kjit name; the
 *    policy stays with their callers.
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>
#include "compat.h"
#include "ksyms.h"

#ifdef KJIT_DIRECT_OPS
#define kjit_register_direct(ops, addr) register_ftrace_direct(ops, addr)
#define kjit_unregister_direct(ops, addr)                                      \
	unregister_ftrace_direct(ops, addr, false)
#else
#define kjit_register_direct(ops, addr) register_ftrace_direct_multi(ops, addr)
#define kjit_unregister_direct(ops, addr)                                      \
	unregister_ftrace_direct_multi(ops, addr)
#endif

int kjit_direct_on(struct kjit_direct *d, unsigned long *sites, unsigned int n,
		   unsigned long tramp)
{
	int err;

	err = ftrace_set_filter_ips(&d->ops, sites, n, 0, 0);
	if (!err)
		err = kjit_register_direct(&d->ops, tramp);
	if (err)
		ftrace_free_filter(&d->ops);
	return err;
}

int kjit_direct_off(struct kjit_direct *d, unsigned long tramp)
{
	int err = kjit_unregister_direct(&d->ops, tramp);

	if (!err)
		ftrace_free_filter(&d->ops);
	return err;
}

/* Where execmem exists (6.10+), its header names the data type; x86
 * places module data in the modules area, as module text. */
#if __has_include(<linux/execmem.h>)
#include <linux/execmem.h>
#define KJIT_EXECMEM_DATA EXECMEM_MODULE_DATA
#else
#define KJIT_EXECMEM_DATA 0 /* unused: module_alloc() */
#endif

static void *(*module_alloc_fn)(unsigned long size);
static void *(*execmem_alloc_fn)(int type, size_t size);
static void (*execmem_free_fn)(void *p);
static struct ftrace_ret_stack *(*fgraph_frame_fn)(struct task_struct *t,
						   int idx);

void *kjit_near_alloc(unsigned long size)
{
	if (execmem_alloc_fn)
		return execmem_alloc_fn(KJIT_EXECMEM_DATA, size);
	return module_alloc_fn(size);
}

void kjit_near_free(void *p)
{
	if (execmem_free_fn)
		execmem_free_fn(p);
	else
		vfree(p); /* what module_memfree() does on x86 */
}

struct ftrace_ret_stack *kjit_fgraph_frame(struct task_struct *t, int idx)
{
	return fgraph_frame_fn ? fgraph_frame_fn(t, idx) : NULL;
}

int kjit_compat_init(void)
{
	execmem_alloc_fn = kjit_lookup_callable("execmem_alloc");
	execmem_free_fn = kjit_lookup_callable("execmem_free");
	if (!execmem_alloc_fn || !execmem_free_fn) {
		execmem_alloc_fn = NULL;
		execmem_free_fn = NULL;
		module_alloc_fn = kjit_lookup_callable("module_alloc");
		if (!module_alloc_fn) {
			pr_err("kjit: neither execmem_alloc nor module_alloc "
			       "found; cannot load\n");
			return -ENOENT;
		}
	}
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	fgraph_frame_fn = kjit_lookup_callable("ftrace_graph_get_ret_stack");
	if (!fgraph_frame_fn) {
		pr_err("kjit: ftrace_graph_get_ret_stack not found; cannot "
		       "load\n");
		return -ENOENT;
	}
#endif
	return 0;
}
