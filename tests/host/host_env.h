/* host_env.h - struct kjit_env for host programs: code from memory regions,
 * a small table of special symbols, optional exception-fixup list, and
 * counters in a host array (absolute, RIP-relative, or %gs-relative with a
 * real GS base: henv_use_gs()) or fake %gs offsets.
 *
 * Invariants: read_code never reads outside a registered region; counters
 * are handed out one per distinct block address, in first-come order.
 */
#ifndef KJIT_TESTS_HOST_HOST_ENV_H
#define KJIT_TESTS_HOST_HOST_ENV_H

#include "jit/env.h"

#define HENV_MAX_REGIONS 4
#define HENV_MAX_SYMS	 32
#define HENV_MAX_CTRS	 (1u << 16)

struct henv {
	struct kjit_env env;
	struct {
		u64 addr, size;
		const u8 *ptr;
	} region[HENV_MAX_REGIONS];
	unsigned n_region;
	struct {
		u64 addr;
		enum kjit_sym kind;
		int reg;
	} sym[HENV_MAX_SYMS];
	unsigned n_sym;
	const u64 *fixups; /* sorted */
	size_t n_fixups;
	/* optional, whole entries (sorted by insn, as fixups): with them the
	 * env's fixup() says how each is translated (kmod/kjit_fixups.h) */
	const struct henv_fixup {
		u64 insn, fixup;
		u32 data;
	} * fix;
	/* optional, sorted by code: static-key sites (a kernel's
	 * __jump_table); henv_patch_site() answers kjit_env.patch_site
	 * from them */
	const struct henv_site {
		u64 code, target;
	} * sites;
	size_t n_sites;
	/* optional, sorted by code: inline static_call sites;
	 * henv_static_call() answers kjit_env.static_call from them and
	 * henv_static_call_key() kjit_env.static_call_key (the same layout
	 * as vmlinux.h's struct vscall) */
	const struct henv_scall {
		u64 code, tramp, key;
		bool tail;
	} * scalls;
	size_t n_scalls;
	/* the same sites' trampolines -> keys, sorted by trampoline, made
	 * by henv_set_static_calls(); henv_static_call_key() reads it */
	struct henv_tramp_key {
		u64 tramp, key;
	} *tramp_keys;
	size_t n_tramp_keys;
	/* optional, sorted function starts: kjit_env.func_start gives the
	 * last one at or below an address (0 below the first) */
	const u64 *funcs;
	size_t n_funcs;
	enum kjit_mem_mode ctr_mode;
	bool ctr_lock;	   /* ask for `lock incq` */
	u64 fake_ctr_base; /* ABS32/RIPREL without storage: fake addresses */
	u64 *ctr;	   /* HENV_MAX_CTRS counters */
	/* KJIT_MEM_GS: a counter's offset is its address minus gs_base (the
	 * GS base its thread sets, henv_use_gs); with no storage, offsets
	 * are made up from gs_fake (default 0x10000: they fit in 32 bits) */
	u64 gs_base;
	u64 gs_fake;
	u64 *ctr_key; /* block address of each counter, 0 = free (hash) */
	unsigned n_ctr;
};

/* @ctr_storage: NULL for fake counters (nothing stored, never run). */
void henv_init(struct henv *h, enum kjit_mem_mode mode, u64 *ctr_storage,
	       u64 *key_storage, u64 dispatch);
void henv_add_region(struct henv *h, u64 addr, const void *ptr, u64 size);
void henv_add_sym(struct henv *h, u64 addr, enum kjit_sym kind, int reg);
/*
 * henv_use_gs - per-CPU counters as the kernel has them: KJIT_MEM_GS
 * offsets into @h's storage, relative to a GS base that this thread sets
 * with arch_prctl(ARCH_SET_GS). @big: the base lies 2^46 away from the
 * storage, so every offset is a 64-bit value (as alloc_percpu() gives:
 * movabs + incq %gs:(%reg)); else it is the storage itself (offsets fit in
 * 32 bits: incq %gs:disp32). Returns 0 or -1 (errno set).
 */
int henv_use_gs(struct henv *h, bool big);
/* Set this thread's GS base to @base (arch_prctl). Returns 0 or -1. */
int henv_set_gs(u64 base);
/* Counter of @block_addr, or NULL if it has none. */
u64 *henv_counter_of(struct henv *h, u64 block_addr);
/* Edge counter of exit @exit of @block_addr, or NULL. */
u64 *henv_edge_counter_of(struct henv *h, u64 block_addr, unsigned exit);

/* kjit_env.patch_site over h->sites (@opaque: the henv) */
bool henv_patch_site(void *opaque, u64 addr, u64 *target);
/* kjit_env.static_call from h->scalls (a site whose key has no known
 * trampoline is reported with tramp 0, as kmod/sites.c does). */
bool henv_static_call(void *opaque, u64 addr, u64 *tramp, bool *tail);
/* Take @n inline static_call sites @scalls (sorted by code) for
 * henv_static_call() and henv_static_call_key(): builds h->tramp_keys.
 * Returns 0 or -1 (out of memory: no trampoline has a key then). */
int henv_set_static_calls(struct henv *h, const struct henv_scall *scalls,
			  size_t n);
/* kjit_env.static_call_key: @addr a trampoline of h->scalls -> its key. */
u64 henv_static_call_key(void *opaque, u64 addr);
/* kjit_env.entry_guard: every function start of h->funcs. */
bool henv_entry_guard(void *opaque, u64 addr);

#endif
