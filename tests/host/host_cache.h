/* host_cache.h - a minimal host code cache + dispatcher for running
 * translated code in a test process.
 *
 * The cache is one memfd mapped twice: a read-write view the translator
 * writes through and a read-execute view (at a fixed address below 2 GiB)
 * the code runs from; no page is ever writable and executable at once.
 * The dispatcher (host_dispatch, assembly) implements the contract of
 * jit/exit.h: [rsp] = original target; it saves all state, looks the
 * target up (translating on a miss), and `ret`s into the translation, or to
 * the original address when it is outside the translatable range.
 *
 * Invariants: single-threaded; blocks are never freed until hc_reset().
 * Up to five caches (slots) may exist at once, at distinct fixed
 * addresses, each with its own counters.
 * Every new block is decode-back verified (verify.h) and, when the
 * translator has kjit_config.ibt, checked by the IBT proof (ibt_check.h)
 * before anything is linked to it.
 */
#ifndef KJIT_TESTS_HOST_HOST_CACHE_H
#define KJIT_TESTS_HOST_HOST_CACHE_H

#include "jit/translate.h"
#include "tests/host/host_env.h"
#include "tests/host/verify.h"
#include "tests/host/ibt_check.h"

#define HC_MAX_BLOCKS 8192

struct hc_block {
	u64 orig;
	u64 run;
	u64 term_addr; /* address of the original terminator (0: LIMIT) */
	struct kjit_block meta;
};

struct hc {
	unsigned slot; /* which of the caches that can live at once */
	struct kjit_translator tr;
	struct henv henv;
	u8 *rw, *rx;
	u64 size, used;
	u64 lo, hi;	   /* translatable original range */
	const u64 *native; /* entries always run natively (tests) */
	unsigned n_native;
	bool link; /* link exits eagerly */
	struct hc_block blk[HC_MAX_BLOCKS];
	unsigned n_blk;
	int hash[HC_MAX_BLOCKS * 2];
	unsigned refusals, links;
	unsigned bad_links; /* patches that missed their target (undone) */
	char bad_link_msg[160];
	u64 lookups;	/* dispatcher entries */
	u64 predicted;	/* prediction sites set (hc_predict) */
	u64 jpredicted; /* ... of them, indirect jmps' ways */
	struct vfy vfy; /* every new block is decode-back verified */
	unsigned vfy_failed;
	char vfy_msg[300];
	struct ibtc ibt; /* with kjit_config.ibt: every new block's IBT proof */
	unsigned ibt_failed;
	char ibt_msg[300];
	enum kjit_reason last_refusal;
	u64 last_refusal_addr;
};

extern struct hc *hc_cur; /* used by the dispatcher */
void host_dispatch(void);

int hc_init(struct hc *c, u64 lo, u64 hi, enum kjit_mem_mode mode,
	    const struct kjit_config *cfg, bool link);
/* Indirect jmps' inline predictions (predict_indirect_jumps) for @c, whose
 * GS base is set (henv_use_gs): its two words near that base, learned
 * from by the dispatcher as the module's (kmod/dispatch.c). Call before
 * the first translation. 0, or -1 if no disp32 reaches them. */
int hc_use_jsite(struct hc *c);
/* The same for cache @slot (0..4), each with its own code mapping and
 * counters, so several can be run in turn once translated and linked
 * (the dispatcher serves hc_cur only: the cache last initialised, or set
 * by the caller). hc_init is slot 0. */
int hc_init_slot(struct hc *c, unsigned slot, u64 lo, u64 hi,
		 enum kjit_mem_mode mode, const struct kjit_config *cfg,
		 bool link);
void hc_reset(struct hc *c);
/* translation of @orig (translating if needed), or @orig if outside range
 * or refused */
u64 hc_lookup(struct hc *c, u64 orig);
struct hc_block *hc_find(struct hc *c, u64 orig);

#endif
