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
