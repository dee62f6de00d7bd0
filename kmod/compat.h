/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every difference between the kernels kjit supports, in one
 * place (Debian 12's 6.1 and 6.12 from bookworm-backports;
 * docs/design/kernel-versions.md). The rest of kmod/ uses only the names
 * defined here.
 *
 * Each difference is keyed on a feature test: a header that exists
 * (__has_include), a macro the kernel defines, or a symbol found at load
 * (kmod/ksyms.c). A version number is used only where the kernel offers no
 * such test, and the comment says so.
 *
 * Adding a kernel: build against its headers, and add a branch here for
 * each difference the compiler or objtool reports.
 */
#ifndef KJIT_COMPAT_H
#define KJIT_COMPAT_H

#ifdef __ASSEMBLY__

#include <asm/ibt.h>
#include <asm/unwind_hints.h>
/* endbr64 where the kernel is built for IBT, nothing elsewhere. */
#ifndef ENDBR
#define ENDBR
#endif
#include <asm/segment.h>
/*
 * "No unwind information here": the unwinder stops and calls the trace
 * unreliable. 6.4 named it UNWIND_HINT_UNDEFINED (objtool_types.h appeared
 * with the new name). 6.1's UNWIND_HINT_EMPTY is not that: it also sets
 * `end`, which tells the unwinder the stack ends here, so a trace cut in
 * kjit's asm would pass for whole and reliable. On 6.1 the same meaning is
 * an undefined sp_reg (0) without `end`.
 */
#ifdef UNWIND_HINT_TYPE_UNDEFINED
#define KJIT_UNWIND_HINT_NONE UNWIND_HINT_UNDEFINED
#else
#define KJIT_UNWIND_HINT_NONE UNWIND_HINT type=UNWIND_HINT_TYPE_CALL
#endif
/*
 * KJIT_UNWIND_HINT_TARGET(off), in the dispatcher (dispatch_entry.S): the
 * word at sp + off - 8 is an original target address T, and above it the
 * program's stack as it is at T. 6.4 gave hints a signal bit, which makes
 * the unwinder look the next frame up at T itself rather than at T - 1 as
 * for a return address: a CALL frame with signal=1 says it exactly. 6.1's
 * hints have no such bit: there the fast path has no unwind information,
 * and the slow path builds an iret frame (UNWIND_HINT_IRET_REGS), the
 * one frame the 6.1 unwinder reads an exact ip from.
 */
#ifdef UNWIND_HINT_TYPE_UNDEFINED
#define KJIT_UNWIND_HINT_TARGET(off) \
	UNWIND_HINT type=UNWIND_HINT_TYPE_CALL sp_reg=ORC_REG_SP sp_offset=off signal=1
#else
#define KJIT_UNWIND_HINT_TARGET(off) KJIT_UNWIND_HINT_NONE
#endif

#else /* !__ASSEMBLY__ */

/*
 * The largest order alloc_pages() gives. 6.1's MAX_ORDER counts the orders
 * (11: 0..10); 6.8 named the largest one itself MAX_PAGE_ORDER.
 */
#ifdef MAX_PAGE_ORDER
#define KJIT_MAX_PAGE_ORDER MAX_PAGE_ORDER
#else
#define KJIT_MAX_PAGE_ORDER (MAX_ORDER - 1)
#endif

#include <linux/ftrace.h>
#include <linux/types.h>
#include <linux/version.h>

/* Does the kernel's unwinder find the exception and interrupt frames on a
 * stack (unwind_get_entry_regs(): ORC and frame pointers do, the guess
 * unwinder does not)? kmod/quiesce.c looks for saved IPs in the cache
 * with it. */
#if defined(CONFIG_UNWINDER_ORC) || defined(CONFIG_UNWINDER_FRAME_POINTER)
#define KJIT_UNWIND_FINDS_REGS 1
#else
#define KJIT_UNWIND_FINDS_REGS 0
#endif

/* rdmsrl() is rdmsrq() since 6.16 (both macros of <asm/msr.h>, which the
 * user includes first). */
#if defined(rdmsrl) && !defined(rdmsrq)
#define rdmsrq(msr, val) rdmsrl(msr, val)
#endif

/* get_unaligned()/put_unaligned(): moved to <linux/unaligned.h> in 6.12. */
#if __has_include(<linux/unaligned.h>)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* Bytes of padding before every function (CONFIG_CALL_PADDING, 6.2+; none
 * on 6.1). With call depth tracking (retbleed=stuff) the kernel rewrites a
 * direct `call f` into a call of an accounting thunk in f's padding, which
 * falls through into f. */
#if defined(CONFIG_CALL_PADDING) && defined(CONFIG_FUNCTION_PADDING_BYTES)
#define KJIT_FUNC_PADDING CONFIG_FUNCTION_PADDING_BYTES
#else
#define KJIT_FUNC_PADDING 0
#endif

/* Argument @n of the traced function, in an ftrace_ops callback that did
 * not ask for saved registers: struct ftrace_regs became opaque (6.12). */
#ifdef ftrace_regs_get_argument
#define kjit_fregs_arg(fregs, n) ftrace_regs_get_argument(fregs, n)
#else
#define kjit_fregs_arg(fregs, n) regs_get_kernel_argument(&(fregs)->regs, n)
#endif

/*
 * Ftrace direct calls, many sites to one target: one ftrace_ops whose
 * filter names every site, so ftrace patches them in one batch and an
 * unregistration waits for one pair of grace periods, whatever the count.
 * Up to 6.4 that is register_ftrace_direct_multi(ops, addr) (6.1 also had
 * register_ftrace_direct(ip, addr), one site per call and one RCU-tasks
 * wait per target address at removal); since 6.5 register_ftrace_direct
 * (ops, addr) is that call. No macro tells them apart, so this one test is
 * on the version.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define KJIT_DIRECT_OPS 1
#endif

/*
 * The most functions one session may divert. 6.1's ftrace keeps every
 * direct call in one hash of at most 4096 buckets and, once it holds more
 * than 2 x 4096 entries, copies it on every insertion, leaking the old copy
 * (ftrace_add_rec_direct(): 32 KiB per function past 8192; attaching the
 * whole 6.1 kernel, 37,455 functions, exhausted a 1 GiB guest). 6.5+
 * builds the new hash once, sized for all (register_ftrace_direct()).
 * Other direct-call users (BPF trampolines) count against 6.1's bound too;
 * kjit cannot see them.
 */
#ifdef KJIT_DIRECT_OPS
#define KJIT_DIRECT_MAX UINT_MAX
#else
#define KJIT_DIRECT_MAX 8192u
#endif
#define KJIT_DIRECT_MAX_WHY                                                    \
	"past the most functions this kernel's ftrace can divert at once"
struct kjit_direct {
	struct ftrace_ops ops;
};

/* Send every call of the functions whose __fentry__ sites are @sites[0..n)
 * to @tramp, all or none. Returns 0 or -errno (-EBUSY: another direct call
 * or an IPMODIFY user such as livepatch holds one of them). @d must be
 * zeroed; after a failure it may be reused only once zeroed again. */
int kjit_direct_on(struct kjit_direct *d, unsigned long *sites, unsigned int n,
		   unsigned long tramp);
/* Undo kjit_direct_on(); returns 0 or -errno. Waits for ftrace's grace
 * periods (RCU-tasks-rude and RCU-tasks): sleeps. */
int kjit_direct_off(struct kjit_direct *d, unsigned long tramp);

/* Data within reach of the kernel's code (rel32 from the cache and the
 * kernel: counters, tables): module_alloc() up to 6.9, then
 * execmem_alloc(EXECMEM_MODULE_DATA, ...), in the modules area, RW+NX. Not
 * EXECMEM_MODULE_TEXT: since 6.14 x86 may hand out module text read-only
 * (EXECMEM_ROX_CACHE). Both are found at load (neither is exported);
 * kjit_compat_init() says which. */
void *kjit_near_alloc(unsigned long size);
void kjit_near_free(void *p);

/* The function-graph tracer's frame @idx of @t, counted from the newest
 * (the kernel's own ftrace_graph_get_ret_stack(), found at load), or NULL
 * past the oldest or when the kernel has no such function. Its layout
 * changed in 6.9 (one shadow stack of words, frames found by walking);
 * the accessor hides that. */
struct ftrace_ret_stack *kjit_fgraph_frame(struct task_struct *t, int idx);

/* Resolve what the functions above need. Returns 0 or -ENOENT (with a
 * message naming what is missing). Module init, process context, after
 * kjit_ksyms_init(). */
int kjit_compat_init(void);

#endif /* __ASSEMBLY__ */
#endif /* KJIT_COMPAT_H */
