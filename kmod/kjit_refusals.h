/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kjit_refusals.h - refusal facts shared by kjit.ko (kmod/divert.c) and the
 * tool (tools/eligible.c, `kjit list`), so the two can never disagree.
 * Plain string literals: includable in the kernel and in user space.
 */
#ifndef KJIT_REFUSALS_H
#define KJIT_REFUSALS_H

/* Functions the dispatcher itself calls: diverting them would only make
 * every dispatch fall back (busy flag), so they are refused outright. */
#define KJIT_DISPATCH_DEPS                                                     \
	"copy_from_kernel_nofault", "copy_from_kernel_nofault_allowed",        \
	    "search_exception_tables", "search_kernel_exception_table",        \
	    "search_module_extables", "__module_address", "bsearch",           \
	    "sched_clock", "preempt_schedule_notrace", "preempt_schedule",     \
	    "__x86_return_thunk"

#endif
