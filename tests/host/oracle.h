/* oracle.h - the independent block-count oracle of the host tests: runs
 * corpus code natively in a child under ptrace, one single step at a time,
 * and counts block starts.
 *
 * It uses neither the translator nor Zydis: it classifies executed
 * instructions as control transfers with its own small opcode table, counts
 * an address as a block start when it executes right after a transfer (or
 * first, or on return from outside the corpus), and records for each start
 * the address of the transfer that ends its straight line, and each edge
 * between consecutive starts. The corpus's fake kernel symbols (fentry,
 * return thunk, indirect thunks) are not blocks of their own and a call of
 * corpus_fentry is no transfer (the translator drops it).
 */
#ifndef KJIT_TESTS_HOST_ORACLE_H
#define KJIT_TESTS_HOST_ORACLE_H

#include <stdbool.h>
#include "jit/types.h"

#define OMAP_MAX 512

struct omap {
	u64 addr[OMAP_MAX];
	u64 count[OMAP_MAX];
	u64 end[OMAP_MAX]; /* transfer that ends the straight line from addr */
	unsigned n;
	bool valid;
	u64 prev; /* last block start, for edges */
	u64 e_from[OMAP_MAX], e_to[OMAP_MAX], e_count[OMAP_MAX];
	unsigned ne;
};

/* The corpus's code: [lo, hi) (__start_kjit_corpus, __stop_kjit_corpus). */
void oracle_init(u64 lo, u64 hi);
/* Callees of indirect calls (ff /2, or a call of an indirect thunk) run
 * natively, uncounted: as the translator's native_calls mode without
 * follow_indirect_calls copies such calls. Off by default. */
void oracle_native_indirect_calls(bool on);
/* Single-step @run(@arg) natively in a forked child (after
 * corpus_reset()); fills @m. Returns the steps taken in the corpus, or -1
 * if the run failed or took more than a few million steps. */
long oracle_run_fn(void (*run)(void *arg), void *arg, struct omap *m);
/* the count of block @a (0 if never entered); whether it was entered */
u64 omap_count(const struct omap *m, u64 a);
bool omap_has(const struct omap *m, u64 a);
/* times the oracle went from block start @from to block start @to */
u64 oracle_edge_count(const struct omap *m, u64 from, u64 to);

#endif
