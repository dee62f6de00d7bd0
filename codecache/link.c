/* link.c - point a block's exit straight at its successor's translation.
 *
 * Invariants:
 *  - A link is one 4-byte compare-and-exchange on a 4-aligned rel32 field,
 *    through the writable alias: a CPU executing the exit at the same time
 *    sees the old or the new target, never a mix, and both are correct.
 *  - The field must hold the unlinked value (pointing at the exit's stub);
 *    anything else means the block is not what we think, and nothing is
 *    written.
 */
#include "codecache/cache.h"

enum kjit_reason kjit_cache_link(struct kjit_cache *c, u32 bi, unsigned exit,
				 u64 dest)
{
	struct kjit_cblock *cb = kjit_cache_block(c, bi);
	u32 off, new_val, old_val;
	enum kjit_reason r;
	u32 *field;

	if (cb->linked & (1u << exit))
		return KJIT_OK;
	r = kjit_exit_patch(&cb->b, cb->run, exit, dest, &off, &new_val,
			    &old_val);
	if (r)
		return r;
	field = (u32 *)(kjit_cache_rw(c, cb->run) + off);
	if (!__atomic_compare_exchange_n(field, &old_val, new_val, false,
					 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return KJIT_R_BAD_ARG;
	cb->linked |= 1u << exit;
	c->stats.links++;
	return KJIT_OK;
}
