// SPDX-License-Identifier: GPL-2.0
/*
 * env.c - the translator's window onto the running kernel (jit/env.h):
 * reading live text, recognising __fentry__ and the retpoline/return thunks,
 * exception-table fixups, and where each block's counter lives.
 *
 * Context: the callbacks run inside kjit_dispatch(): any context, preemption
 * disabled, no sleeping. The symbol addresses are resolved once by
 * kjit_env_init() (process context, at module load).
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
#include "kjit_fixups.h"
#include "kjit_refusals.h"
#include "ksyms.h"
#include "session.h"
#include "sites.h"

static unsigned long fentry_addr, return_thunk_addr;
/* The core kernel's text: code that is never freed. */
static unsigned long stext_addr, etext_addr;
/* The core kernel's exception table, sorted by instruction at boot. */
static const struct exception_table_entry *ex_start, *ex_stop;
/* ftrace's own trampolines: a traced function's __fentry__ site calls one. */
static unsigned long ftrace_caller_addr, ftrace_regs_caller_addr;
/* __x86_indirect_thunk_<reg>, indexed by register number (rsp has none). */
static unsigned long indirect_thunk[16];

/* Functions a call to which leaves the cache, and the one function that
 * makes each such call (kjit_refusals.h). */
static const char *const leave_names[] = {KJIT_LEAVE_AT};
static const char *const leave_from_names[] = {KJIT_LEAVE_FROM};
static_assert(ARRAY_SIZE(leave_names) == ARRAY_SIZE(leave_from_names));
static unsigned long leave_addr[ARRAY_SIZE(leave_names)];
static bool leaves_checked; /* each caller calls its callee directly */

static const char *const reg_names[16] = {
    "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
    "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15",
};

/* x86 exception tables are relative: each field is an offset from itself. */
static unsigned long ex_insn(const struct exception_table_entry *e)
{
	return (unsigned long)&e->insn + e->insn;
}

/* The core kernel's entry for @addr, or NULL. A binary search of our
 * own: search_exception_tables() also walks the module tree and the BPF
 * programs' latch tree before it says no, and no is the answer for nearly
 * every instruction (~0.8 us a question under QEMU TCG). */
/* Where this CPU's last search ended: the translator asks about a block's
 * instructions in address order, so the answer is nearly always there or
 * one entry on (as sites.c's hint). A hint only, checked before use. */
static DEFINE_PER_CPU(const struct exception_table_entry *, ex_hint);

/* Is @e the first entry at or after @addr? */
static bool ex_lower_bound_at(const struct exception_table_entry *e,
			      unsigned long addr)
{
	return e >= ex_start && e <= ex_stop &&
	       (e == ex_stop || ex_insn(e) >= addr) &&
	       (e == ex_start || ex_insn(e - 1) < addr);
}

static const struct exception_table_entry *core_entry(unsigned long addr)
{
	const struct exception_table_entry *lo = raw_cpu_read(ex_hint),
					   *hi = ex_stop, *mid;

	if (lo && ex_lower_bound_at(lo, addr))
		goto found;
	if (lo && lo < ex_stop && ex_lower_bound_at(lo + 1, addr)) {
		lo++;
		goto found;
	}
	lo = ex_start;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ex_insn(mid) < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
found:
	raw_cpu_write(ex_hint, lo);
	return lo < ex_stop && ex_insn(lo) == addr ? lo : NULL;
}

/* Use our own search of the core exception table (core_entry()) only if
 * the table reads the way it assumes: relative entries, sorted, and the
 * kernel's own search finds what it finds. Otherwise every question goes
 * to search_exception_tables(). Process context, at load. */
static void probe_ex_table(void)
{
	const struct exception_table_entry *e;
	size_t n;

	n = ex_start && ex_stop > ex_start ? ex_stop - ex_start : 0;
	for (e = ex_start; n && e + 1 < ex_stop; e++)
		if (ex_insn(e) > ex_insn(e + 1))
			n = 0;
	if (n &&
	    (kjit_kapi.search_exception_tables(ex_insn(ex_start)) != ex_start ||
	     kjit_kapi.search_exception_tables(ex_insn(ex_stop - 1)) !=
		 ex_stop - 1))
		n = 0;
	if (!n) {
		pr_info("kjit: exception table not as expected: fixups are "
			"looked up with search_exception_tables()\n");
		ex_start = ex_stop = NULL;
	}
}

/* A direct call's target that is a call of the leaving function @fn: its
 * start, or the call depth accounting thunk in its padding (compat.h). */
static bool is_leave_target(u64 target, unsigned long fn)
{
	return fn && target <= fn && target >= fn - KJIT_FUNC_PADDING;
}

/* Does the function at @from hold a direct call (e8 rel32) of the leaving
 * function @to? Its code is read whole and every byte tried as a call's
 * first: a real call's five bytes are always found, and a false one would
 * need four bytes that happen to encode exactly that target. */
static bool calls_directly(unsigned long from, unsigned long to)
{
	unsigned long size = 0, off = 0, i;
	bool found = false;
	s32 rel;
	u8 *code;

	if (!from || !to ||
	    !kjit_kapi.kallsyms_lookup_size_offset(from, &size, &off) || off ||
	    size < 5 || size > 65536)
		return false;
	code = kmalloc(size, GFP_KERNEL);
	if (!code || copy_from_kernel_nofault(code, (void *)from, size)) {
		kfree(code);
		return false;
	}
	for (i = 0; !found && i + 5 <= size; i++) {
		if (code[i] != KX86_OP_CALL32)
			continue;
		memcpy(&rel, code + i + 1, sizeof(rel));
		found = is_leave_target(from + i + 5 + (s64)rel, to);
	}
	kfree(code);
	return found;
}

/* A call can leave the cache where every KJIT_LEAVE_AT function was found
 * and its caller calls it directly: else (the call inlined, renamed, made
 * through a pointer) deep mode keeps the caller native (kmod/deep.c). */
static void check_leaves(void)
{
	unsigned long from;
	int i;

	leaves_checked = true;
	for (i = 0; i < ARRAY_SIZE(leave_names); i++) {
		from = kjit_lookup_name(leave_from_names[i]);
		if (calls_directly(from, leave_addr[i]))
			continue;
		pr_info("kjit: %s has no direct call of %s: deep mode keeps "
			"it native (a dying task could not leave the code "
			"cache there)\n",
			leave_from_names[i], leave_names[i]);
		leaves_checked = false;
	}
}

int kjit_env_init(void)
{
	char name[40];
	int i;

	fentry_addr = kjit_lookup_name("__fentry__");
	ftrace_caller_addr = kjit_lookup_name("ftrace_caller");
	ftrace_regs_caller_addr = kjit_lookup_name("ftrace_regs_caller");
	return_thunk_addr = kjit_lookup_name("__x86_return_thunk");
	stext_addr = kjit_lookup_name("_stext");
	ex_start = (const void *)kjit_lookup_name("__start___ex_table");
	ex_stop = (const void *)kjit_lookup_name("__stop___ex_table");
	probe_ex_table();
	etext_addr = kjit_lookup_name("_etext");
	for (i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "__x86_indirect_thunk_%s",
			 reg_names[i]);
		indirect_thunk[i] = kjit_lookup_name(name);
	}
	for (i = 0; i < ARRAY_SIZE(leave_names); i++)
		leave_addr[i] = kjit_lookup_name(leave_names[i]);
	check_leaves();
	if (!fentry_addr || !stext_addr || !etext_addr) {
		pr_err("kjit: kernel symbol %s not found; cannot load\n",
		       !fentry_addr  ? "__fentry__"
		       : !stext_addr ? "_stext"
				     : "_etext");
		return -ENOENT;
	}
	return 0;
}

bool kjit_env_leaves(void)
{
	return leaves_checked;
}

unsigned long kjit_env_indirect_thunk(int reg)
{
	return reg >= 0 && reg < 16 ? indirect_thunk[reg] : 0;
}

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

/* A call to @target at a function's start is its __fentry__ site: the
 * original __fentry__, ftrace's trampolines, or kjit's own entry trampoline
 * (a function both attached and reached in deep mode). */
static bool is_fentry_call(const struct kjit_cpu *c, u64 target)
{
	return target == fentry_addr ||
	       (ftrace_caller_addr && target == ftrace_caller_addr) ||
	       (ftrace_regs_caller_addr && target == ftrace_regs_caller_addr) ||
	       target - c->session->tramp < c->session->tramp_len;
}

/* Code that lives as long as a translation can: the core kernel's text,
 * or a module's (kept by kjit_module_pin). Not kprobe instruction slots,
 * ftrace or BPF trampolines, which their users free. Preemption disabled. */
bool kjit_lasting_code(unsigned long a)
{
	struct module *mod;

	if (a >= stext_addr && a < etext_addr)
		return true;
	mod = kjit_kapi.module_address(a);
	return mod && within_module_core(a, mod);
}

static enum kjit_sym env_classify(void *opaque, u64 target, int *reg)
{
	int i;

	if (is_fentry_call(opaque, target))
		return KJIT_SYM_FENTRY;
	if (return_thunk_addr && target == return_thunk_addr)
		return KJIT_SYM_RETURN_THUNK;
	for (i = 0; i < 16; i++) {
		if (indirect_thunk[i] && target == indirect_thunk[i]) {
			*reg = i;
			return KJIT_SYM_INDIRECT_THUNK;
		}
	}
	for (i = 0; i < ARRAY_SIZE(leave_names); i++)
		if (is_leave_target(target, leave_addr[i]))
			return KJIT_SYM_LEAVE;
	return kjit_lasting_code((unsigned long)target) ? KJIT_SYM_NONE
						   : KJIT_SYM_TRANSIENT;
}

unsigned long kjit_fentry_site(unsigned long start)
{
	unsigned long site = kjit_kapi.ftrace_location(start);
	u8 first[KX86_ENDBR64_LEN];

	if (site == start)
		return site;
	if (site != start + KX86_ENDBR64_LEN ||
	    copy_from_kernel_nofault(first, (void *)start, sizeof(first)))
		return 0;
	return kx86_fentry_offset(first, sizeof(first)) == KX86_ENDBR64_LEN
		   ? site
		   : 0;
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

const struct exception_table_entry *kjit_env_ex_entry(unsigned long a)
{
	if (ex_start && a >= stext_addr && a < etext_addr)
		return core_entry(a);
	return kjit_kapi.search_exception_tables(a);
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
	    kjit_env_ex_entry((unsigned long)addr);
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
static bool env_counter(void *opaque, u64 block_addr,
			enum kjit_counter_kind kind, unsigned int exit,
			struct kjit_mem *out)
{
	struct kjit_cpu *c = opaque;
	struct kjit_session *s = c->session;
	u64 off;

	if (kind != KJIT_CTR_BLOCK)
		return false;
	if (s->pcpu && !kjit_pcpu_claim(&s->pctr, block_addr, &off)) {
		out->mode = KJIT_MEM_GS;
		out->addr = off;
		out->lock = false;
		return true;
	}
	out->mode = KJIT_MEM_RIPREL;
	out->addr = kjit_cache_next_counter(&c->cache);
	out->lock = true;
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
}
