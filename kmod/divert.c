// SPDX-License-Identifier: GPL-2.0
/*
 * divert.c - entry diversion through ftrace direct calls (layout in divert.h).
 *
 * Invariants:
 *  - Trampolines are written through the writable alias before any direct
 *    call points at them, and never change while diverted.
 *  - A refused function is never touched; the reason is one of a fixed set
 *    of strings (kjit_divert_check).
 *  - Process context, kjit_mutex held.
 */
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/string.h>
#include "compat.h"
#include "divert.h"
#include "env.h"
#include "jit/arch_x86.h"
#include "kjit_refusals.h"
#include "ksyms.h"
#include "refuse.h"

DEFINE_PER_CPU(unsigned long, kjit_entry_slot[KJIT_MAX_FUNCS]);
extern char kjit_dispatch_entry[];

static const char *const dispatch_deps[] = {KJIT_DISPATCH_DEPS};

static bool is_dispatch_dep(unsigned long start)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dispatch_deps); i++)
		if (kjit_lookup_name(dispatch_deps[i]) == start)
			return true;
	return false;
}

int kjit_divert_check(unsigned long start, const char **why)
{
	*why = kjit_refuse_text(start);
	if (*why)
		return -EOPNOTSUPP;
	if (is_dispatch_dep(start))
		*why = "used by kjit's dispatcher";
	else if (kjit_kapi.within_kprobe_blacklist(start))
		*why = "on the kprobe blacklist";
	else if (!kjit_fentry_site(start))
		*why = "not traceable (no __fentry__ site at its start)";
	else
		return 0;
	return -EOPNOTSUPP;
}

/* Emits the KJIT_TRAMP_SIZE bytes drawn in divert.h into @p (run address
 * @run). */
static int write_tramp(u8 *p, unsigned long run, unsigned long slot,
		       unsigned long body)
{
	static const u8 endbr[] = KX86_ENDBR64;
	unsigned long miss = run + KJIT_TRAMP_MISS;
	unsigned long thunk = kjit_env_indirect_thunk(11);
	s64 rel = (s64)((unsigned long)kjit_dispatch_entry -
			(miss + sizeof(endbr) + 10));
	s64 trel = (s64)(thunk - (run + KJIT_TRAMP_JUMPED));

	if ((s64)(s32)slot != (s64)slot || (s64)(s32)body != (s64)body ||
	    (s64)(s32)rel != rel || (thunk && (s64)(s32)trel != trel))
		return -ERANGE;
	memset(p, 0xcc, KJIT_TRAMP_SIZE);
	memcpy(p, "\x48\x8d\x64\x24\x08", 5);	  /* lea 0x8(%rsp),%rsp */
	memcpy(p + 5, "\x65\x4c\x8b\x1c\x25", 5); /* mov %gs:disp32,%r11 */
	put_unaligned((s32)slot, (s32 *)(p + 10));
	if (thunk) {
		p[14] = 0xe9; /* jmp __x86_indirect_thunk_r11 */
		put_unaligned((s32)trel, (s32 *)(p + 15));
	} else {
		memcpy(p + 14, "\x41\xff\xe3", 3); /* jmp *%r11 */
	}
	p += KJIT_TRAMP_MISS;
	memcpy(p, endbr, sizeof(endbr));
	p += sizeof(endbr);
	p[0] = 0x68; /* push $imm32 (sign-extended) */
	put_unaligned((s32)body, (s32 *)(p + 1));
	p[5] = 0xe9; /* jmp rel32 */
	put_unaligned((s32)rel, (s32 *)(p + 6));
	return 0;
}

int kjit_divert_prepare(struct kjit_session *s)
{
	unsigned long slot, run;
	unsigned int i;
	int cpu, err;

	for (i = 0; i < s->n_funcs; i++) {
		run = (unsigned long)s->tramps.exec + i * KJIT_TRAMP_SIZE;
		slot = (unsigned long)&kjit_entry_slot[i];
		err = write_tramp(kjit_region_rw(&s->tramps, (void *)run), run,
				  slot, s->funcs[i].body);
		if (err)
			return err;
		s->funcs[i].tramp = run;
		for_each_possible_cpu(cpu) per_cpu(kjit_entry_slot[i], cpu) =
		    run + KJIT_TRAMP_MISS;
	}
	return 0;
}

int kjit_divert_on(struct kjit_session *s, unsigned int i)
{
	struct kjit_func *f = &s->funcs[i];
	int err;

	err = kjit_direct_on(&f->direct, f->site, f->tramp);
	if (!err)
		f->diverted = true;
	return err;
}

void kjit_divert_off(struct kjit_session *s, unsigned int i)
{
	struct kjit_func *f = &s->funcs[i];
	int err;

	if (!f->diverted)
		return;
	err = kjit_direct_off(&f->direct, f->tramp);
	if (err)
		pr_err("kjit: %s: cannot remove diversion: %d\n", f->name, err);
	else
		f->diverted = false;
}
