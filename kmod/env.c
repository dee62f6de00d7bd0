// SPDX-License-Identifier: GPL-2.0
/*
 * env.c - the translator's window onto the running kernel (jit/env.h), for
 * one CPU's cache of a session: reading live text, what a call's target is
 * (kcode.h, plus the session's own entry trampoline), exception-table
 * fixups, patched sites, entry guards, and where each block's counter
 * lives. Facts about the kernel's code that do not depend on the session
 * are kcode.c's.
 *
 * Context: the callbacks run inside kjit_dispatch(): any context, preemption
 * disabled, no sleeping.
 */
#include <linux/kernel.h>
#include <linux/extable.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/extable_fixup_types.h>
#include "env.h"
#include "exittail.h"
#include "extable.h"
#include "ibl.h"
#include "jit/arch_x86.h"
#include "kcode.h"
#include "kjit_fixups.h"
#include "kjit_refusals.h"
#include "ksyms.h"
#include "session.h"
#include "sites.h"

/* Copies what is readable of [addr, addr+len): all of it, or up to the
 * first unreadable byte. */
static size_t env_read_code(void *opaque, u64 addr, u8 *buf, size_t len)
{
	size_t n;

	if (!copy_from_kernel_nofault(buf, (const void *)(unsigned long)addr,
				      len))
		return len;
	for (n = 0; n < len; n++)
		if (copy_from_kernel_nofault(
			buf + n, (const void *)(unsigned long)(addr + n), 1))
			break;
	return n;
}

/* What a call to @target is: a call of kjit's own entry trampoline (a
 * function both attached and reached in deep mode) is a __fentry__ site's,
 * as a call of __fentry__ or of ftrace's trampolines is (kcode.h). */
static enum kjit_sym env_classify(void *opaque, u64 target, int *reg)
{
	const struct kjit_session *s = ((struct kjit_cpu *)opaque)->session;

	if (target - s->tramp < s->tramp_len)
		return KJIT_SYM_FENTRY;
	return kjit_kcode_classify((unsigned long)target, reg);
}

static bool env_ftrace_site(void *opaque, u64 addr)
{
	return kjit_kapi.ftrace_location((unsigned long)addr) == addr;
}

static u64 env_func_start(void *opaque, u64 addr)
{
	unsigned long size, off;

	if (!kjit_kapi.kallsyms_lookup_size_offset((unsigned long)addr, &size,
						   &off))
		return 0;
	return addr - off;
}

/* The kernel's numbers for the types kmod/kjit_fixups.h names. */
static_assert(KJIT_EX_DEFAULT == EX_TYPE_DEFAULT &&
	      KJIT_EX_UACCESS == EX_TYPE_UACCESS &&
	      KJIT_EX_BPF == EX_TYPE_BPF &&
	      KJIT_EX_POP_REG == EX_TYPE_POP_REG &&
	      KJIT_EX_RDMSR_SAFE == EX_TYPE_RDMSR_SAFE &&
	      KJIT_EX_WRMSR_IN_MCE == EX_TYPE_WRMSR_IN_MCE &&
	      KJIT_EX_UCOPY_LEN == EX_TYPE_UCOPY_LEN &&
	      KJIT_EX_ZEROPAD == EX_TYPE_ZEROPAD &&
	      KJIT_EX_TYPE_MASK == EX_DATA_TYPE_MASK);

/* An instruction with an entry is copied when its type's handler only
 * touches registers and the IP (kjit_fixups.h), its fixup is code that
 * lasts, and the cache's own table can take the copy's entry. */
static enum kjit_fixup env_fixup(void *opaque, u64 addr, u64 *target)
{
	const struct exception_table_entry *e =
	    kjit_kcode_ex_entry((unsigned long)addr);
	unsigned long fix;

	if (!e)
		return KJIT_FIXUP_NONE;
	fix = (unsigned long)&e->fixup + e->fixup;
	if (!kjit_extable_ready() ||
	    !kjit_fixup_type_ok(e->data & KJIT_EX_TYPE_MASK) ||
	    !kjit_lasting_code(fix))
		return KJIT_FIXUP_NATIVE;
	*target = fix;
	return KJIT_FIXUP_EXIT;
}

/*
 * A block's counter: its slot in the session's per-CPU counters (pcpu.h),
 * incremented with `incq %gs:` - one instruction, on the copy of whichever
 * CPU runs it, so a task that migrates while inside this CPU's cache
 * counts on its new CPU and nothing is lost or shared. The old form, when
 * the session has no per-CPU counters (kjit.lock_counters, no memory) or
 * their table is full: this CPU's u64 array in the module area,
 * RIP-relative, with `lock incq` because other CPUs may run this cache's
 * code (docs/design/counters.md); also for a block whose per-CPU counter
 * has no memory yet (the table grows: pcpu.h).
 */
/* A split session's block counts in the running task's bank (split.h):
 * the slot of its counter's chunk, its place in the chunk. False past the
 * banks' chunks (counted whole, in the session's own counters). */
static bool bank_counter(struct kjit_session *s, u64 block_addr,
			 struct kjit_mem *out)
{
	int n = kjit_pcpu_number(&s->pctr, block_addr, true);

	if (n < 0 || !kjit_split_has(&s->split, (u32)n))
		return false;
	out->mode = KJIT_MEM_GS_BANK;
	out->addr = kjit_split_slot((u32)n / KJIT_SPLIT_CHUNK);
	out->lock = false;
	out->disp = (u32)(n % KJIT_SPLIT_CHUNK) * sizeof(u64);
	return true;
}

static bool env_counter(void *opaque, u64 block_addr,
			enum kjit_counter_kind kind, unsigned int exit,
			struct kjit_mem *out)
{
	struct kjit_cpu *c = opaque;
	struct kjit_session *s = c->session;
	u64 off;

	if (kind != KJIT_CTR_BLOCK)
		return false;
	if (s->split.n_banks && bank_counter(s, block_addr, out))
		return true;
	if (s->pcpu && !kjit_pcpu_claim(&s->pctr, block_addr, &off)) {
		out->mode = KJIT_MEM_GS;
		out->addr = off;
		out->lock = false;
		out->disp = 0;
		return true;
	}
	out->mode = KJIT_MEM_RIPREL;
	out->addr = kjit_cache_next_counter(&c->cache);
	out->lock = true;
	out->disp = 0;
	return true;
}

static bool env_patch_site(void *opaque, u64 addr, u64 *target)
{
	unsigned long t;

	if (!kjit_patch_site((unsigned long)addr, &t))
		return false;
	*target = t;
	return true;
}

static bool env_static_call(void *opaque, u64 addr, u64 *tramp, bool *tail)
{
	unsigned long t;

	if (!kjit_static_call_site((unsigned long)addr, &t, tail))
		return false;
	*tramp = t;
	return true;
}

/* Deep mode enters a followed callee from the cache, so its __fentry__
 * site, which the kernel may enable at any time, needs an entry guard.
 * Attached functions do not: their site is kjit's own ftrace direct call,
 * which other ftrace users share through ftrace's list (they run first).
 * The dispatcher adds a callee to the deep table before it translates any
 * of its blocks, so a block that starts no followed callee needs no guard,
 * and the table (a hash lookup) says so without ftrace_location(). */
static bool env_entry_guard(void *opaque, u64 addr)
{
	const struct kjit_session *s = ((struct kjit_cpu *)opaque)->session;

	return s->deep &&
	       kjit_deep_is_start(&s->deep_tab, (unsigned long)addr) &&
	       kjit_fentry_site((unsigned long)addr) &&
	       kjit_session_attached_of(s, (unsigned long)addr) < 0;
}

/* A followed static call trampoline gets a guard on its key (jit/flow.c):
 * deep sessions only, and only one the deep table holds. */
static u64 env_static_call_key(void *opaque, u64 addr)
{
	const struct kjit_session *s = ((struct kjit_cpu *)opaque)->session;

	if (!s->deep || !kjit_deep_is_start(&s->deep_tab, (unsigned long)addr))
		return 0;
	return kjit_static_call_key((unsigned long)addr);
}

/* A timed session (timing.h): the id of the function whose timed entry
 * block starts at @addr (an attached function's after its __fentry__
 * site, a followed callee's at its start), or containing @addr (a
 * return); -1 if none, or past the functions timed. */
static int env_time_fid(void *opaque, u64 addr, bool entry)
{
	struct kjit_session *s = ((struct kjit_cpu *)opaque)->session;
	unsigned long a = (unsigned long)addr;
	int i = kjit_session_func_of(s, a);

	if (i < 0 || (u32)i >= s->timing.max_fid)
		return -1;
	if (!entry)
		return i;
	if ((u32)i < s->n_funcs)
		return a == s->funcs[i].body ? i : -1;
	return kjit_deep_is_start(&s->deep_tab, a) ? i : -1;
}

/* An attached function's argument predicate (jit/predicate.h), at its
 * entry block: the one after its __fentry__ site, which the entry
 * trampoline enters. */
static bool env_entry_pred(void *opaque, u64 addr, struct kjit_pred *p)
{
	const struct kjit_session *s = ((struct kjit_cpu *)opaque)->session;
	int i = kjit_session_attached_of(s, (unsigned long)addr);

	if (i < 0 || s->funcs[i].body != (unsigned long)addr ||
	    !s->funcs[i].pred.op)
		return false;
	*p = s->funcs[i].pred;
	return true;
}

extern char kjit_dispatch_entry[], kjit_dispatch_entry_nf[];

void kjit_env_fill(struct kjit_env *env, struct kjit_cpu *c)
{
	*env = (struct kjit_env){
	    .opaque = c,
	    .read_code = env_read_code,
	    .classify = env_classify,
	    .ftrace_site = env_ftrace_site,
	    .fixup = env_fixup,
	    .counter = env_counter,
	    .patch_site = env_patch_site,
	    .static_call = env_static_call,
	    .entry_guard = env_entry_guard,
	    .static_call_key = env_static_call_key,
	    .func_start = env_func_start,
	    .guard_counter = (u64)(unsigned long)(c->cache.counters_run +
						  c->cache.max_blocks),
	    .stay_call = kjit_exit_tail_helper(),
	    .dispatch = (u64)(unsigned long)kjit_dispatch_entry,
	    .dispatch_nf = (u64)(unsigned long)kjit_dispatch_entry_nf,
	    /* a module's static per-CPU data is a small %gs offset (as
	     * dispatch_entry.S's %gs:kjit_ibl_tab); jit/ checks it fits */
	    .jsite_gs = (u64)(unsigned long)&kjit_jsite,
	};
	if (c->session->n_preds)
		env->entry_pred = env_entry_pred;
	if (c->session->timed) { /* its pool comes later: time_fid waits */
		env->time_enter = (u64)(unsigned long)kjit_time_enter_stub;
		env->time_exit = (u64)(unsigned long)kjit_time_exit_stub;
		env->time_fid = env_time_fid;
	}
}
