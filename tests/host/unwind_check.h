/* unwind_check.h - the static check that a translated block's unwind map
 * (jit/emit.h) describes its code: what kmod/orc.c turns into ORC entries,
 * so that an unwinder stopped anywhere in the block finds its caller.
 *
 * With Zydis' full decoder and nothing from jit/ but the map and the
 * block's insn_off[] (where each original instruction's copy starts), the
 * hot path [0, body_len) is walked from the entry along every path
 * (fall-through, every direct branch or call inside it; exits to stubs and
 * out of the block end a path), tracking the bytes that code the
 * translator inserted has pushed (push/pop of any kind, pushfq/popfq, a
 * call into the block, lea/add/sub on rsp):
 *  (a) every path reaches each instruction with the same count, and every
 *      copied original instruction with 0 (inserted code is balanced);
 *  (b) the map's point covering each instruction says that count, and the
 *      original instruction whose layout the code has: i at the copy of
 *      original instruction i, and for inserted code the next copied one
 *      (or an instruction dropped before it), n-1 in the terminator's
 *      translation;
 *  (c) the map is ordered, starts at 0, and says "none known" from
 *      body_len on (stubs, literals) and nowhere before it, except after a
 *      design (a) `ret $n` began to take the frame down.
 *
 * Invariants: decodes only inside [run, run + b->len); writes only *u.
 */
#ifndef KJIT_TESTS_HOST_UNWIND_CHECK_H
#define KJIT_TESTS_HOST_UNWIND_CHECK_H

#include <Zydis/Zydis.h>
#include "jit/translate.h"

struct uwc {
	ZydisDecoder dec;
	u64 blocks; /* checked */
	u64 insns;  /* hot-path instructions checked */
	u64 pushed; /* of which with inserted bytes on the stack */
	char msg[256];
};

void uwc_init(struct uwc *u);
/* Check the unwind map @uw[0..n) of block @b (decoded as @d) emitted at
 * @buf for run address @run. Returns 0, or -1 with u->msg set. */
int uwc_block(struct uwc *u, const struct kjit_block_desc *d,
	      const struct kjit_block *b, const u8 *buf, u64 run,
	      const struct kjit_uw_point *uw, unsigned n);

#endif
