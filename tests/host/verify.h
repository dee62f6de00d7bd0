/* verify.h - independent decode-back check of a translated block.
 *
 * Decodes the original instructions and the emitted code with full operand
 * decoding (a different Zydis path from the translator's raw-offset one) and
 * checks: every copied instruction is the same instruction with the same
 * absolute memory/branch targets; the entry sequence is one of the known
 * counter sequences on the right counter; every exit's branch, stub and
 * literal lead to the right original target and to the dispatcher; every
 * direct exit's rel32 is 4-aligned; the hot path has no gap.
 */
#ifndef KJIT_TESTS_HOST_VERIFY_H
#define KJIT_TESTS_HOST_VERIFY_H

#include <Zydis/Zydis.h>
#include "jit/translate.h"

struct vfy {
	ZydisDecoder dec;
	const struct kjit_env *env;
	const struct kjit_block_desc *d;
	const struct kjit_block *b;
	const u8 *buf;
	u64 run;
	bool native_calls; /* blocks made with kjit_config.native_calls */
	bool follow_indirect_calls; /* ... and follow_indirect_calls */
	bool predict_indirect_calls; /* ... and predict_indirect_calls */
	bool predict_indirect_jumps; /* kjit_config.predict_indirect_jumps */
	bool ibt; /* ... with kjit_config.ibt: endbr64 first, and the
		     original's own endbr64 or seal at the start dropped */
	char msg[256];
};

void vfy_init(struct vfy *v, const struct kjit_env *env);
/* 0 if the block checks out, else -1 with v->msg set. */
int vfy_block(struct vfy *v, const struct kjit_block_desc *d,
	      const struct kjit_block *b, const u8 *buf, u64 run);

#endif
