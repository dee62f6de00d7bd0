/* host_env.h - struct kjit_env for host programs: code from memory regions,
 * a small table of special symbols, optional exception-fixup list, and
 * counters in a host array (absolute or RIP-relative) or fake %gs offsets.
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
	enum kjit_mem_mode ctr_mode;
	bool ctr_lock;	   /* ask for `lock incq` */
	u64 fake_ctr_base; /* ABS32/RIPREL without storage: fake addresses */
	u64 *ctr;	   /* HENV_MAX_CTRS counters (ABS32/RIPREL modes) */
	u64 *ctr_key;	   /* block address of each counter, 0 = free (hash) */
	unsigned n_ctr;
};

/* @ctr_storage: NULL for KJIT_MEM_GS (fake offsets, nothing stored). */
void henv_init(struct henv *h, enum kjit_mem_mode mode, u64 *ctr_storage,
	       u64 *key_storage, u64 dispatch);
void henv_add_region(struct henv *h, u64 addr, const void *ptr, u64 size);
void henv_add_sym(struct henv *h, u64 addr, enum kjit_sym kind, int reg);
/* Counter of @block_addr, or NULL if it has none. */
u64 *henv_counter_of(struct henv *h, u64 block_addr);
/* Edge counter of exit @exit of @block_addr, or NULL. */
u64 *henv_edge_counter_of(struct henv *h, u64 block_addr, unsigned exit);

#endif
