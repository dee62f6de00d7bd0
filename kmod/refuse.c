// SPDX-License-Identifier: GPL-2.0
/*
 * refuse.c - code kjit never translates (see refuse.h), one answer for
 * attach (kmod/divert.c) and deep mode (kmod/deep.c).
 *
 * Invariants:
 *  - kjit_refuse_init() resolves every section bound and name once, before
 *    /dev/kjit exists; afterwards the tables are read-only. (Resolving a
 *    name per attached function made attaching thousands slow: 6.1's
 *    kallsyms_lookup_name() scans every symbol.)
 *  - A section or name the running kernel lacks is simply absent (0), never
 *    a match: kernels differ in which of them they have.
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "kjit_refusals.h"
#include "kmod/pool/kjit_pool.h"
#include "ksyms.h"
#include "refuse.h"

static const struct {
	const char *start, *end, *why;
} section_names[] = {KJIT_REFUSED_SECTIONS};
static const char *const idle_names[] = {KJIT_IDLE_PATH};
static const char *const dispatch_dep_names[] = {KJIT_DISPATCH_DEPS};

static const struct {
	const char *start, *end, *why;
} notrace_section_names[] = {KJIT_DEEP_NOTRACE_SECTIONS};
static const char *const notrace_deny_names[] = {KJIT_DEEP_NOTRACE_DENY};

static unsigned long sections[ARRAY_SIZE(section_names)][2];
static unsigned long idle_path[ARRAY_SIZE(idle_names)];
static unsigned long dispatch_deps[ARRAY_SIZE(dispatch_dep_names)];
static unsigned long notrace_sections[ARRAY_SIZE(notrace_section_names)][2];
static unsigned long notrace_deny[ARRAY_SIZE(notrace_deny_names)];
/* Core kernel text, where the sanitizer runtimes are; [0, 0) if the
 * kernel has none of them (kjit_refuse_init()). */
static unsigned long sanitizer_text[2];

/* Has the kernel a sanitizer runtime? One symbol each that every kernel
 * built with it has; a kernel without them asks kallsyms nothing more. */
static bool sanitized_kernel(void)
{
	static const char *const probes[] = {"__tsan_read4",
					     "__asan_load4",
					     "__asan_load4_noabort",
					     "__hwasan_load4_noabort",
					     "__msan_get_context_state",
					     "__sanitizer_cov_trace_pc"};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(probes); i++)
		if (kjit_lookup_name(probes[i]))
			return true;
	return false;
}

/* Is the symbol at @start a sanitizer runtime's (KJIT_SANITIZER_PREFIXES)?
 * noinline: the name buffer (KSYM_SYMBOL_LEN, as %pS takes in any
 * context) is on the stack only for this call, on sanitizer kernels. */
static noinline bool sanitizer_name_at(unsigned long start)
{
	char name[KSYM_SYMBOL_LEN];

	sprint_symbol_no_offset(name, start);
	return kjit_sanitizer_name(name);
}

/* Is @start a sanitizer runtime's entry? Core kernel text only, where
 * kallsyms takes no lock; never on a kernel without a sanitizer. */
static bool sanitizer_runtime(unsigned long start)
{
	return start >= sanitizer_text[0] && start < sanitizer_text[1] &&
	       sanitizer_name_at(start);
}

void kjit_refuse_init(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(section_names); i++) {
		sections[i][0] = kjit_lookup_name(section_names[i].start);
		sections[i][1] = kjit_lookup_name(section_names[i].end);
	}
	for (i = 0; i < ARRAY_SIZE(idle_names); i++)
		idle_path[i] = kjit_lookup_name(idle_names[i]);
	for (i = 0; i < ARRAY_SIZE(dispatch_dep_names); i++)
		dispatch_deps[i] = kjit_lookup_name(dispatch_dep_names[i]);
	for (i = 0; i < ARRAY_SIZE(notrace_section_names); i++) {
		notrace_sections[i][0] =
		    kjit_lookup_name(notrace_section_names[i].start);
		notrace_sections[i][1] =
		    kjit_lookup_name(notrace_section_names[i].end);
	}
	for (i = 0; i < ARRAY_SIZE(notrace_deny_names); i++)
		notrace_deny[i] = kjit_lookup_name(notrace_deny_names[i]);
	if (sanitized_kernel()) {
		sanitizer_text[0] = kjit_lookup_name("_stext");
		sanitizer_text[1] = kjit_lookup_name("_etext");
	}
}

/* A static call trampoline anywhere (a module's has no section bounds):
 * 5 bytes (jmp rel32, or ret/xor+ret padded) then the signature that
 * arch_static_call_transform() checks, ud1 %esp,%ecx (0f b9 cc). */
static bool static_call_tramp(unsigned long start)
{
	static const u8 sig[] = {0x0f, 0xb9, 0xcc};
	u8 b[sizeof(sig)];

	return !copy_from_kernel_nofault(b, (void *)(start + 5), sizeof(b)) &&
	       !memcmp(b, sig, sizeof(sig));
}

const char *kjit_refuse_notrace(unsigned long start)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(notrace_sections); i++)
		if (notrace_sections[i][0] && start >= notrace_sections[i][0] &&
		    start < notrace_sections[i][1])
			return notrace_section_names[i].why;
	for (i = 0; i < ARRAY_SIZE(notrace_deny); i++)
		if (notrace_deny[i] && notrace_deny[i] == start)
			return KJIT_DEEP_NOTRACE_WHY;
	if (static_call_tramp(start))
		return KJIT_STATIC_CALL_TRAMP_WHY;
	if (sanitizer_runtime(start))
		return KJIT_SANITIZER_WHY;
	return NULL;
}

const char *kjit_refuse_text(unsigned long start)
{
	size_t i;

	if (within_module(start, THIS_MODULE) ||
	    within_module(start, kjit_pool.mod))
		return "part of kjit";
	for (i = 0; i < ARRAY_SIZE(sections); i++)
		if (sections[i][0] && start >= sections[i][0] &&
		    start < sections[i][1])
			return section_names[i].why;
	for (i = 0; i < ARRAY_SIZE(idle_path); i++)
		if (idle_path[i] && idle_path[i] == start)
			return KJIT_IDLE_PATH_WHY;
	return NULL;
}

bool kjit_refuse_dispatch_dep(unsigned long start)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dispatch_deps); i++)
		if (dispatch_deps[i] && dispatch_deps[i] == start)
			return true;
	return false;
}
