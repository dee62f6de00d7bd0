/* ibt_check.h - the static proof that a translated block is safe where the
 * kernel enforces indirect branch tracking (kjit_config.ibt).
 *
 * QEMU/TCG does not enforce IBT, so this is checked on the bytes. For one
 * block, with Zydis' full decoder and nothing from jit/:
 *  (a) the entry - the address the block map hands to the dispatcher and
 *      to a function's trampoline, whose `jmp *%r11` lands on it - begins
 *      with endbr64 (f3 0f 1e fa);
 *  (b) every instruction reachable from the entry is decoded (falling
 *      through, and following every direct branch or call whose target is
 *      inside the block; the stubs of direct exits too, which an exit
 *      reaches whenever it is not linked), and every
 *      indirect jmp or call met on the way is listed: the only one allowed
 *      is the block's terminator copied from the original, an indirect
 *      call in native-call mode, which goes where the original went (a
 *      kernel function pointer or register, never a cache address: the
 *      cache's only addresses outside the block map are the return
 *      addresses its calls push, and those are reached by `ret`, which
 *      IBT does not check). Any other one is reported;
 *  (c) every emitted byte is accounted for: reachable code, or the tail
 *      that nothing reaches (int3 padding to 8, then the 8-byte literals).
 *      The one int3 counted as code is the trap of a return stack buffer
 *      slot, `call +1; int3` (only a speculated return lands on it).
 *
 * Invariants: decodes only inside [run, run + b->len); writes only *c.
 */
#ifndef KJIT_TESTS_HOST_IBT_CHECK_H
#define KJIT_TESTS_HOST_IBT_CHECK_H

#include <Zydis/Zydis.h>
#include "jit/translate.h"

struct ibtc {
	ZydisDecoder dec;
	u64 blocks;	/* checked */
	u64 code_bytes; /* reachable instruction bytes */
	u64 tail_bytes; /* int3 padding and literals, never reached */
	u64 indirect;	/* indirect jmp/call instructions reachable */
	u64 copied;	/* of which copies of the original's indirect call */
	char msg[256];
};

void ibtc_init(struct ibtc *c);
/* Check block @b (decoded as @d) emitted at @buf for run address @run.
 * Returns 0, or -1 with c->msg saying which rule failed and where. */
int ibtc_block(struct ibtc *c, const struct kjit_block_desc *d,
	       const struct kjit_block *b, const u8 *buf, u64 run);

#endif
