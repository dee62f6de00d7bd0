// SPDX-License-Identifier: GPL-2.0
/*
 * dispatch.c - where translated code goes when it does not know where to go:
 * find or make the translation of a target on this CPU, or run it natively.
 *
 * Context: any - process, softirq, hardirq, NMI - with interrupts in any
 * state. kjit_dispatch() never sleeps and never allocates: the cache tables
 * are preallocated per CPU. It returns the address to continue at; running
 * the original target natively is always legal, because every target is a
 * block boundary of the original code.
 *
 * Invariants:
 *  - Preemption is disabled from the session lookup to the last use of the
 *    CPU's cache, so the session cannot be freed under us (detach waits for
 *    synchronize_rcu()) and the cache is only touched by its own CPU.
 *  - The per-CPU busy flag makes a nested entry (an interrupt arriving while
 *    this CPU translates, itself running instrumented code) fall back to
 *    native code instead of re-entering the translator.
 */
#include <linux/hardirq.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/sched/clock.h>
#include "divert.h"
#include "ibl.h"
#include "session.h"

static_assert(KJIT_FB_COUNT <= KJIT_FALLBACK_REASONS);

unsigned long kjit_dispatch(unsigned long target, unsigned long ret);

/* The entry block of function @fi now has a translation on this CPU: let
 * the function's trampoline jump straight to it from now on. */
static void set_entry_slot(const struct kjit_session *s, int fi,
			   unsigned long target, unsigned long run)
{
	if (fi < (int)s->n_funcs && s->funcs[fi].body == target)
		kjit_divert_set_entry(s, fi, run);
}

/* @target continues at @run from now on, on this CPU: fill the lookup
 * table, and if the exit was a followed indirect call (@ret, the word above
 * the target on the stack, is its exact return address in this CPU's
 * cache) give the call site an inline prediction of @target; if an
 * indirect jmp's miss path left @target in kjit_jsite, its site too. */
static void remember(struct kjit_cpu *c, unsigned long target,
		     unsigned long run, unsigned long ret)
{
	kjit_ibl_fill(target, run);
	kjit_cache_predict(&c->cache, ret, target, run);
	if (c->jsite && c->jtarget == target)
		kjit_cache_predict_jump(&c->cache, c->jsite, target, run);
	c->jsite = 0;
}

/* The indirect jmp site whose miss path ran last on this CPU, if any, and
 * its target: taken (and cleared, so that the lookup table's fast path,
 * which sends a hit into C while a site is named, goes on fast) at every
 * entry into C. Preemption disabled. */
static void take_jsite(unsigned long *site, unsigned long *target)
{
	struct kjit_jsite *j = this_cpu_ptr(&kjit_jsite);

	*site = READ_ONCE(j->site);
	*target = READ_ONCE(j->target);
	if (*site)
		WRITE_ONCE(j->site, 0);
}

/* Timed with sched_clock() (a TSC read), never ktime_get*(): those read
 * the clocksource, and read_hpet() takes a lock that translated code can be
 * holding right now - a block of a followed read_hpet() that exits to the
 * dispatcher inside its locked section - which deadlocks this CPU (found
 * with TCP over loopback deep-attached; bench/lmbench). The dispatcher may
 * call nothing that takes a lock kernel code can hold. */
static unsigned long translate(struct kjit_session *s, struct kjit_cpu *c,
			       unsigned long target, int fi, unsigned long ret)
{
	u64 t0 = sched_clock(), run, table_full = c->cache.stats.table_full;
	u64 growing = c->cache.stats.growing;
	atomic64_t *guard =
	    kjit_native_ctr(&s->native, fi, KJIT_FB_FTRACE_SITE);
	enum kjit_fallback fb;
	enum kjit_reason r;

	/* A translation is of one block of function @fi: an entry guard in it
	 * (a followed callee's first block) counts into @fi's own row. */
	if (guard)
		c->env.guard_counter = (u64)(unsigned long)guard;
	r = kjit_cache_add(&c->cache, c->tr, target, fi, &run);
	c->translate_ns += sched_clock() - t0;
	if (kjit_cache_wants_room(&c->cache))
		kjit_grow_kick(&c->grow);
	if (r == KJIT_R_NO_SPACE) { /* the block map, or the code area */
		fb = c->cache.stats.growing != growing ? KJIT_FB_GROWING
		     : c->cache.stats.table_full != table_full
			 ? KJIT_FB_MAP_FULL
			 : KJIT_FB_FULL;
		c->fallback[fb]++;
		kjit_native_add(&s->native, fi, fb);
		return target;
	}
	if (r) {
		/* A lasting refusal is remembered by the cache (it links exits
		 * to @target from now on) and in the lookup table; the others
		 * are tried again next time (jit/reason.h). */
		c->fallback[KJIT_FB_REFUSED]++;
		kjit_native_add(&s->native, fi, KJIT_FB_REFUSED);
		c->refused[r]++;
		if (kjit_reason_lasts(r))
			remember(c, target, target, ret);
		return target;
	}
	return run;
}

/* Find or make the translation of @target on this CPU; @target itself if it
 * is to run natively. Preemption disabled, c->busy held. */
static unsigned long lookup_or_translate(struct kjit_session *s,
					 struct kjit_cpu *c,
					 unsigned long target,
					 unsigned long ret)
{
	unsigned long run;
	int fi = kjit_session_func_of(s, target);

	if (fi == KJIT_DEEP_LATER) {
		/* the deep table's room is on its way: natively this once,
		 * remembering nothing, so a later call is followed */
		c->deep_growing++;
		return target;
	}
	if (fi < 0) {
		c->native_exits++;
		remember(c, target, target, ret);
		return target;
	}
	run = kjit_cache_lookup(&c->cache, target);
	if (!run && kjit_cache_native(&c->cache, target)) {
		/* refused for good: an indirect branch whose lookup table slot
		 * was taken by another target since */
		remember(c, target, target, ret);
		return target;
	}
	if (!run)
		run = translate(s, c, target, fi, ret);
	if (run != target) {
		set_entry_slot(s, fi, target, run);
		remember(c, target, run, ret);
	}
	return run;
}

/* The dispatcher runs @target natively for @fb before it looks anything
 * up: count it, and for the attached function it lies in (a binary search
 * that calls nothing) that function's native runs too. A deep callee's
 * code is not looked up here (that may call kallsyms, itself perhaps
 * attached): the session total alone has it. */
static void fall_back(struct kjit_session *s, struct kjit_cpu *c,
		      unsigned long target, enum kjit_fallback fb)
{
	c->fallback[fb]++;
	kjit_native_add(&s->native, kjit_session_attached_of(s, target), fb);
}

unsigned long notrace kjit_dispatch(unsigned long target, unsigned long ret)
{
	struct kjit_session *s;
	unsigned long run = target, jsite, jtarget;
	struct kjit_cpu *c;

	preempt_disable_notrace();
	take_jsite(&jsite, &jtarget);
	/* Raw: under PROVE_RCU rcu_dereference_sched() calls
	 * rcu_read_lock_sched_held(), a traceable function a session may
	 * attach (attach_many's '*_read*' does), and nothing before the busy
	 * flag below may call one: its diversion came back here, again and
	 * again, until the stack overflowed (a double fault on make
	 * sanitize's lockdep kernel). Preemption is off: an RCU-sched reader. */
	s = rcu_dereference_raw(kjit_active);
	if (!s)
		goto out;
	c = s->cpu[smp_processor_id()];
	c->dispatches++;
	if (in_nmi()) {
		fall_back(s, c, target, KJIT_FB_NMI);
		goto out;
	}
	/* RCU does not see this CPU (the idle loop's low-power window, early
	 * entry code): detach's synchronize_rcu() would not wait for us. */
	if (!rcu_is_watching()) {
		fall_back(s, c, target, KJIT_FB_RCU_IDLE);
		goto out;
	}
	/* Busy first: everything below may call kernel functions that are
	 * themselves attached (kallsyms, ftrace_location, module lookups in
	 * deep mode); their diversion re-enters here and must find us busy,
	 * or it recurses until the stack overflows. */
	if (c->busy) {
		fall_back(s, c, target, KJIT_FB_NESTED);
		goto out;
	}
	c->busy = 1;
	c->jsite = jsite;
	c->jtarget = jtarget;
	run = lookup_or_translate(s, c, target, ret);
	c->busy = 0;
out:
	preempt_enable_notrace();
	return run;
}
