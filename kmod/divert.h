/* SPDX-License-Identifier: GPL-2.0 */
/*
 * divert.h - entry diversion: one ftrace direct call target for every
 * attached function's __fentry__ site, the shared entry trampoline, which
 * sends each call into this CPU's translation of that function's first
 * block (codecache/entry.h draws it and its table).
 *
 *     F: [endbr64] call tramp        ftrace direct call at F's site S
 *     tramp: key = S+5 (the return address on the stack)
 *            i = slot of key in keys[] (open addressing, built at attach)
 *            r11 = %gs:kjit_entry_slots[i]    this CPU's translation
 *            none yet: jz kjit_dispatch_entry with [rsp] = S+5
 *            else: drop S+5, jmp __x86_indirect_thunk_r11
 *
 * Memory of a session (allocated with it, kjit_divert_prepare(), but the
 * trampoline's, which it gets at attach, kjit_divert_place()):
 *  - the trampoline at the start of a code pool chunk of its own
 *    (s->tramp), module text of kjit_pool.ko: the ORC unwinder finds its
 *    entries (orc.h, from codecache/entry.h's frames) and %pS its name,
 *    kjit_entry_trampoline; detach int3s it with the cache;
 *  - keys[] in a data region of the module area (s->keys, in reach of an
 *    absolute disp32);
 *  - per CPU, slots[] (vmalloc): 8 bytes per key-table slot, 0 until the
 *    dispatcher of that CPU has translated the function's first block;
 *    the per-CPU pointer kjit_entry_slots (a static per-CPU variable of
 *    the module: its %gs offset fits in the trampoline's disp32) points at
 *    the attached session's.
 *
 * Registration (kjit_divert_on()): one ftrace_ops for every site. Should
 * ftrace refuse it with -EBUSY (a site that another direct call or an
 * IPMODIFY user such as livepatch holds), the functions are halved and
 * each half tried again, down to the functions that cannot be diverted:
 * their err says why, and the others are diverted by a few registrations
 * (s->groups), so a conflict costs a few grace periods at detach, not one
 * per function.
 *
 * IBT: the trampoline is entered by ftrace's direct call or by
 * ftrace_regs_caller's RET; its only indirect branch goes to translations,
 * which begin with endbr64 on IBT kernels (jit/). endbr64 is a NOP
 * elsewhere, so the layout is the same on every kernel.
 */
#ifndef KJIT_DIVERT_H
#define KJIT_DIVERT_H

#include "compat.h"
#include "session.h"

/* Consecutive functions [first, first + n) of a session (those of them
 * with err 0) diverted by one ftrace registration. */
struct kjit_divert_group {
	struct kjit_direct d;
	unsigned int first, n;
	struct kjit_divert_group *next;
};

/* This CPU's slots[] of the attached session (see above). */
DECLARE_PER_CPU(unsigned long *, kjit_entry_slots);

/* Why a function cannot be attached (also reported to user space). */
int kjit_divert_check(unsigned long start, const char **why);
/* Allocate the key table and every CPU's slots[] for the functions of @s
 * (sorted, body set) and fill the keys; adds
 * what it took to s->mem_bytes. 0, -ENOMEM, -ERANGE (a function or the
 * region outside the top 2 GiB), -E2BIG (too many functions for a table).
 * Process context, before any diversion. */
int kjit_divert_prepare(struct kjit_session *s);
/* Attach, the code pool just opened, before any cache takes a chunk: write
 * the trampoline into a chunk of its own, with its ORC entries and its
 * name. 0, -ENOMEM (no chunk), -ERANGE (keys[], the dispatcher or a %gs
 * offset out of reach). kjit_mutex held. */
int kjit_divert_place(struct kjit_session *s);
/* Point every CPU's kjit_entry_slots at @s's, then divert its functions
 * (pinned by the caller; one with err set is skipped). With @best_effort a
 * function ftrace refuses gets its err and the rest are diverted;
 * otherwise any refusal undoes everything. Returns 0 if any function was
 * diverted (and, without @best_effort, all were), else the first error.
 * Sleeps. kjit_mutex held. */
int kjit_divert_on(struct kjit_session *s, bool best_effort);
/* Remove every registration of @s (each waits for ftrace's grace
 * periods). Tasks may still be inside the trampoline afterwards. Returns
 * how many functions are still diverted: 0, or those of each group whose
 * removal failed; such a group stays registered and in s->groups, and
 * nothing it reaches (trampoline, dispatcher, caches) may be freed. */
unsigned int kjit_divert_off(struct kjit_session *s);
/* After detach's last RCU-tasks wait: free the key table and clear every
 * CPU's kjit_entry_slots (the trampoline goes with the pool's chunks). */
void kjit_divert_release(struct kjit_session *s);
/* Free the slots[], the key table and groups (session free). */
void kjit_divert_free(struct kjit_session *s);
/* The dispatcher of this CPU translated function @fi's first block into
 * @run: let the trampoline jump there from now on. Preemption disabled. */
static inline void kjit_divert_set_entry(const struct kjit_session *s, int fi,
					 unsigned long run)
{
	WRITE_ONCE(s->entry_slots[smp_processor_id()][s->funcs[fi].slot], run);
}

#endif
