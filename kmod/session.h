/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session.h - one attachment: the functions diverted, each CPU's code cache,
 * counters and statistics.
 *
 *     kjit_active --rcu--> struct kjit_session
 *                            funcs[n_funcs] sorted by start address
 *                            tramp, keys  the entry trampoline (in the
 *                                         code pool) and its key table
 *                                         (divert.h)
 *                            entry_slots  per CPU: translations by key
 *                            direct       ftrace registrations (groups)
 *                            cpu[c] ----> struct kjit_cpu: cache, translator,
 *                                          env, fallbacks, busy flag
 *                            pctr         block counters, per-CPU memory
 *                                         (pcpu.h), one per original block
 *
 * Invariants:
 *  - kjit_active is set before any diversion is registered and cleared only
 *    after every diversion is gone and no task can run diverted code; the
 *    dispatcher reads it with preemption disabled (rcu_dereference_sched).
 *  - A session stays readable (blocks, counters, statistics) after detach,
 *    until the next attach, reset-all or unload; kjit_mutex serialises all of
 *    that.
 */
#ifndef KJIT_SESSION_H
#define KJIT_SESSION_H

#include <linux/kallsyms.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include "codecache/cache.h"
#include "jit/predicate.h"
#include "cachemem.h"
#include "compat.h"
#include "deep.h"
#include "grow.h"
#include "kjit_ioctl.h"
#include "native.h"
#include "pcpu.h"
#include "scope.h"
#include "split.h"
#include "timing.h"

/* Why the dispatcher ran code natively instead of translating it. */
enum kjit_fallback {
	KJIT_FB_NMI,	     /* dispatcher entered in NMI context */
	KJIT_FB_NESTED,	     /* dispatcher re-entered on this CPU */
	KJIT_FB_REFUSED,     /* translator refused the block (see refused[]) */
	KJIT_FB_FULL,	     /* code cache full */
	KJIT_FB_FTRACE_SITE, /* a followed callee's __fentry__ site was in use
				(Kprobe, tracer, livepatch): that call ran
				natively (counted by its entry guard) */
	KJIT_FB_RCU_IDLE,    /* dispatcher entered where RCU is not watching
				(idle): ran natively */
	KJIT_FB_MAP_FULL,    /* block map full (KJIT_FB_FULL: code full) */
	KJIT_FB_GROWING,     /* the block map was growing: its next chunk
				or bigger map had not come yet (grow.h) */
	KJIT_FB_EXITING,     /* an attached function called by a task past
				exit_notify(): sent native by the entry
				trampoline's guard (codecache/entry.h) */
	KJIT_FB_COUNT
};

struct kjit_func {
	unsigned long start, end; /* [start, end), from kallsyms */
	unsigned long body;	  /* first block run from the cache (site + 5:
				   * the key of the entry table, divert.h) */
	unsigned long tramp;	  /* the entry trampoline (shared by all) */
	struct module *mod;	  /* pinned while attached, if in a module */
	unsigned long site;	  /* its __fentry__ site (start, or +4: IBT) */
	u32 slot;		  /* its slot in the entry table */
	int err;		  /* why it was left out (best effort), or 0 */
	bool diverted;
	struct kjit_pred pred;	  /* its argument predicate (op 0: none) */
	char name[KJIT_NAME_MAX];
};

/* A session's limits, fixed at attach (kjit_attach: 0 there means the
 * module parameter of the same name). Everything is allocated up front. */
struct kjit_limits {
	u32 deep_max;	/* deep table: callees followed */
	u32 cache_kb;	/* code cache per CPU */
	u32 max_blocks; /* block map per CPU; 2 x that per-CPU counters */
};

struct kjit_session;
struct kjit_divert_group;

struct kjit_cpu {
	struct kjit_session *session;
	struct kjit_cache cache;
	struct kjit_grow grow; /* its block table and map (grow.h) */
	struct kjit_translator *tr;
	struct kjit_env env;
	struct kjit_region data; /* lock-form counters, guard counter */
	u64 code_taken;		 /* pool bytes this cache took */
	bool code_capped;	 /* ... and it wanted more than cache_kb */
	u64 pool_empty;		 /* ... or more than the pool had left */
	u64 orc_entries;	 /* written for its blocks (orc.h) */
	int busy;
	/* the indirect jmp site (and its target) whose miss led into this
	 * dispatch, taken from kjit_jsite at the dispatcher's entry; 0: none
	 * (kmod/dispatch.c) */
	unsigned long jsite, jtarget;
	u64 fallback[KJIT_FB_COUNT];
	u64 refused[KJIT_R_COUNT];
	u64 dispatches;	  /* entries into kjit_dispatch() */
	u64 native_exits; /* exits that left the attached code */
	u64 deep_growing; /* calls run natively: deep table growing */
	u64 translate_ns;
	u64 *guard_rw; /* entry guards that sent a callee native (env.h) */
};

struct kjit_session {
	unsigned int n_funcs;
	bool attached;
	bool deep;  /* follow calls (deep.h) */
	bool count; /* instrument: not KJIT_ATTACH_NO_COUNT */
	bool timed; /* KJIT_ATTACH_TIME: time per function (timing.h) */
	bool pcpu;  /* block counters in per-CPU memory (pcpu.h);
		       else `lock incq` in each CPU's data
		       region (kjit.lock_counters, or no
		       per-CPU memory) */
	struct kjit_limits lim;
	size_t mem_bytes; /* what kjit_session_new() reserved */
	size_t grown_base; /* kjit_session_grown_bytes() at attach */
	struct kjit_pcpu pctr;
	struct kjit_deep deep_tab; /* functions n_funcs.. of blocks */
	struct kjit_native native; /* native runs per function (native.h) */
	struct kjit_func *funcs;   /* n_funcs, kvmalloc'd */
	u32 n_preds;		   /* of them with an argument predicate */
	struct kjit_region keys;   /* the entry trampoline's key table */
	struct kjit_region exiting; /* its counters[]: per key slot, the
				     * function's KJIT_FB_EXITING counter */
	unsigned long tramp;	   /* the entry trampoline, in the code pool
				      (kjit_divert_place), or 0 */
	u32 tramp_len;		   /* its bytes of code */
	u32 entry_size;		   /* slots of the entry table */
	unsigned long **entry_slots;	  /* [nr_cpu_ids][entry_size] */
	struct kjit_divert_group *groups; /* ftrace registrations */
	unsigned int n_groups;
	bool watched;		    /* watch.c saw arch_arm_kprobe for us */
	bool stepped_aside;	    /* detached for a livepatch (livepatch.h) */
	bool holds_module; /* a detach failed: kjit.ko pinned until one works */
	u32 scope_req;		    /* KJIT_SCOPE_* asked for (kjit_attach) */
	struct kjit_scope scope;    /* who is counted (scope.h) */
	struct kjit_split split;    /* counts by process, if split (split.h) */
	struct kjit_timing timing;  /* time per function, if timed (timing.h) */
	atomic64_t patched;	    /* int3 Kprobes armed in translated code */
	unsigned long patched_addr; /* the first one's address */
	struct kjit_cpu **cpu;	    /* [nr_cpu_ids] */
};

extern struct kjit_session __rcu *kjit_active;
extern struct mutex kjit_mutex;

/* Index of the function containing @addr: an attached one (0..n_funcs),
 * or in deep mode a followed callee (n_funcs + deep index, added on first
 * use); -1 if @addr is not to be translated - an attached function's own
 * start included: it is entered through its ftrace site; KJIT_DEEP_LATER
 * for a callee the deep table has no room for yet (run it natively this
 * time, remember nothing: deep.h). Any context. */
int kjit_session_func_of(struct kjit_session *s, unsigned long addr);
/* Bytes the deep table and the native-run rows hold now (they grow). */
size_t kjit_session_grown_bytes(const struct kjit_session *s);
/* The original return address that cache address @a stands for, if it is
 * exactly one that a translated call pushed, in any CPU's cache; else 0.
 * Any context (kjit_cache_return_site() reads published blocks only). */
unsigned long kjit_session_return_site(const struct kjit_session *s,
				       unsigned long a);
/* The original instruction that cache address @a stands for, if it is
 * exactly the copy of one with an exception-table entry, in any CPU's
 * cache (a fault there may sleep with its IP saved); else 0. Any context
 * (kjit_cache_fault_site()). */
unsigned long kjit_session_fault_site(const struct kjit_session *s,
				      unsigned long a);

/* Index of the attached function containing @addr, or -1 (deep callees
 * not included). Any context. */
int kjit_session_attached_of(const struct kjit_session *s, unsigned long addr);
/* Is @addr inside an attached function or a callee followed so far?
 * Adds nothing. Any context. */
bool kjit_session_contains(struct kjit_session *s, unsigned long addr);
/* Fills the 0 fields of @l with the module parameters' defaults; -EINVAL
 * if a field is outside its range (kjit_ioctl.h). */
int kjit_session_limits(struct kjit_limits *l);
/* A session for the @n functions @funcs; it takes over @scope (prepared:
 * scope.h), also on failure. */
struct kjit_session *kjit_session_new(const struct kjit_func *funcs,
				      unsigned int n, u32 flags,
				      const struct kjit_limits *lim,
				      struct kjit_scope *scope);
void kjit_session_free(struct kjit_session *s);
/* Attach @s; on failure @s is detached again, unless that detach failed
 * too (s->attached stays true: see __kjit_session_detach). */
int __kjit_session_attach(struct kjit_session *s, bool best_effort);
/* Detach @s: 0, or -EBUSY if a diversion could not be removed (the
 * session then stays attached and whole). kjit_mutex held. */
int __kjit_session_detach(struct kjit_session *s);

#endif
