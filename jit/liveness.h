/* liveness.h - which arithmetic flags are live at a block's entry.
 *
 * Invariants:
 *  - Conservative: anything not proven dead is live. Unknown successors
 *    (ret, indirect transfers, undecodable code, look-ahead exhausted) make
 *    every not-yet-overwritten flag live.
 *  - Bounded: at most cfg.live_depth successor levels, KJIT_LIVE_WINDOW
 *    instructions per level; the recursion depth is that bound.
 */
#ifndef KJIT_JIT_LIVENESS_H
#define KJIT_JIT_LIVENESS_H

#include "jit/types.h"
#include "jit/decode.h"

#define KJIT_LIVE_WINDOW 16

struct kjit_translator;

/* Arithmetic flags (KX86_FLAG_*) live at the entry of decoded block @d. */
u16 kjit_live_in_block(struct kjit_translator *tr,
		       const struct kjit_block_desc *d);

/* Flags live at original address @addr, looking @depth levels ahead. */
u16 kjit_live_at(struct kjit_translator *tr, u64 addr, unsigned depth);

#endif /* KJIT_JIT_LIVENESS_H */
