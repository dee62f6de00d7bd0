/* exit.c - exit branches, exit stubs and link patches (format in exit.h).
 *
 * Invariants: every direct exit branch's rel32 is 4-byte aligned at run
 * time; a stub is emitted for every direct exit and the branch points at it
 * until a linker patches it; indirect exits jump to the dispatcher directly.
 */
#include "jit/exit.h"
#include "jit/emit.h"
#include "jit/flow.h"
#include "jit/translate.h"
#include "jit/arch_x86.h"

/* Emit a direct exit branch: [%cs prefixes] op[0..oplen) rel32
 * (placeholder). */
enum kjit_reason kjit_exit_branch(struct kjit_emit *e, struct kjit_block *blk,
				  const u8 *op, unsigned oplen, u64 target)
{
	struct kjit_exit *x;
	unsigned i;

	if (blk->n_exits >= KJIT_MAX_EXITS)
		return KJIT_R_BAD_ARG;
	x = &blk->exit[blk->n_exits++];
	kjit_emit_align_rel32(e, oplen);
	for (i = 0; i < oplen; i++)
		kjit_emit_u8(e, op[i]);
	x->kind = KJIT_EXIT_DIRECT;
	x->target = target;
	x->branch_off = e->pos;
	x->stub_off = 0;
	kjit_emit_u32(e, 0); /* -> stub, filled by kjit_exit_emit_stubs() */
	return KJIT_OK;
}

/* Indirect exit: the target is already on the stack; go to the dispatcher. */
enum kjit_reason kjit_exit_dispatch(struct kjit_translator *tr,
				    struct kjit_emit *e, struct kjit_block *blk,
				    bool flags_dead)
{
	u64 to = flags_dead && tr->env->dispatch_nf ? tr->env->dispatch_nf
						     : tr->env->dispatch;

	struct kjit_exit *x;

	if (blk->n_exits >= KJIT_MAX_EXITS)
		return KJIT_R_BAD_ARG;
	x = &blk->exit[blk->n_exits++];
	x->kind = KJIT_EXIT_INDIRECT;
	x->target = 0;
	x->branch_off = 0;
	x->stub_off = e->pos;
	return kjit_emit_jmp_far(e, to);
}

/* Emit the stubs of all direct exits and point their branches at them. */
enum kjit_reason kjit_exit_emit_stubs(struct kjit_translator *tr,
				      struct kjit_emit *e,
				      struct kjit_block *blk)
{
	enum kjit_reason r;
	unsigned i;

	for (i = 0; i < blk->n_exits; i++) {
		struct kjit_exit *x = &blk->exit[i];
		s32 rel;

		if (x->kind != KJIT_EXIT_DIRECT)
			continue;
		x->stub_off = e->pos;
		r = kjit_emit_push_const(e, x->target);
		if (!r)
			r = kjit_emit_jmp_far(e, tr->env->dispatch);
		if (r)
			return r;
		rel = (s32)(x->stub_off - (x->branch_off + 4));
		kjit_emit_put32(e, x->branch_off, (u32)rel);
	}
	return KJIT_OK;
}

enum kjit_reason kjit_exit_patch(const struct kjit_block *b, u64 run,
				 unsigned idx, u64 dest, u32 *off, u32 *new_val,
				 u32 *old_val)
{
	const struct kjit_exit *x;
	s32 rel;

	if (idx >= b->n_exits || b->exit[idx].kind != KJIT_EXIT_DIRECT)
		return KJIT_R_BAD_ARG;
	x = &b->exit[idx];
	if (!kx86_rel32(run + x->branch_off + 4, dest, &rel))
		return KJIT_R_BRANCH_FAR;
	*off = x->branch_off;
	*new_val = (u32)rel;
	*old_val = (u32)(s32)(x->stub_off - (x->branch_off + 4));
	return KJIT_OK;
}
