// SPDX-License-Identifier: GPL-2.0
/*
 * kcode.c - facts about the running kernel's code that translation and
 * diversion ask for: what a call's target is (__fentry__, ftrace's
 * trampolines, the return and retpoline thunks, a function a call to which
 * leaves the cache), which code lasts, where a function's __fentry__ site
 * is, and an instruction's exception-table entry. Knows nothing of
 * sessions (env.c, the translator's window, asks here).
 *
 * Context: the symbol addresses are resolved once by kjit_kcode_init()
 * (process context, at module load); the questions are asked from any
 * context, preemption disabled, never sleeping.
 */
#include <linux/kernel.h>
#include <linux/extable.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "compat.h"
#include "jit/arch_x86.h"
#include "kcode.h"
#include "kjit_refusals.h"
#include "ksyms.h"

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

int kjit_kcode_init(void)
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

bool kjit_kcode_leaves(void)
{
	return leaves_checked;
}

unsigned long kjit_kcode_indirect_thunk(int reg)
{
	return reg >= 0 && reg < 16 ? indirect_thunk[reg] : 0;
}

/* A call of __fentry__, or of one of ftrace's trampolines that a traced
 * function's site calls instead. */
static bool is_fentry_call(unsigned long target)
{
	return target == fentry_addr ||
	       (ftrace_caller_addr && target == ftrace_caller_addr) ||
	       (ftrace_regs_caller_addr && target == ftrace_regs_caller_addr);
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

enum kjit_sym kjit_kcode_classify(unsigned long target, int *reg)
{
	int i;

	if (is_fentry_call(target))
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
	return kjit_lasting_code(target) ? KJIT_SYM_NONE
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

const struct exception_table_entry *kjit_kcode_ex_entry(unsigned long a)
{
	if (ex_start && a >= stext_addr && a < etext_addr)
		return core_entry(a);
	return kjit_kapi.search_exception_tables(a);
}
