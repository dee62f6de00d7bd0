/* predicate.c - the argument predicate's test at an attached function's
 * entry (see predicate.h). */
#include "jit/predicate.h"
#include "jit/arch_x86.h"
#include "jit/emit.h"
#include "jit/flow.h"

/* The jcc taken when the predicate holds, after cmp lit,%reg (or test). */
static const u8 cc_of[KJIT_PRED_OPS] = {
    [KJIT_PRED_EQ] = KX86_CC_E,	  [KJIT_PRED_NE] = KX86_CC_NE,
    [KJIT_PRED_LT] = KX86_CC_B,	  [KJIT_PRED_LE] = KX86_CC_BE,
    [KJIT_PRED_GT] = KX86_CC_A,	  [KJIT_PRED_GE] = KX86_CC_AE,
    [KJIT_PRED_ANY] = KX86_CC_NE,
};

bool kjit_pred_valid(const struct kjit_pred *p)
{
	return p->op > KJIT_PRED_NONE && p->op < KJIT_PRED_OPS &&
	       p->arg < KJIT_PRED_ARGS && (p->bits == 64 || p->bits == 32);
}

enum kjit_reason kjit_pred_emit(struct kjit_emit *e, const struct kjit_pred *p,
				u64 native, bool live)
{
	u8 reg = kx86_arg_reg(p->arg), rex = 0;
	enum kjit_reason r;
	u32 jcc;

	if (!kjit_pred_valid(p))
		return KJIT_R_BAD_ARG;
	if (live) {
		kjit_emit_u8(e, KX86_OP_PUSHF);
		kjit_emit_unwind_sp(e, 8);
	}
	if (p->bits == 64)
		rex |= KX86_REX_W;
	if (reg >= 8)
		rex |= KX86_REX_R;
	if (rex)
		kjit_emit_u8(e, KX86_REX | rex);
	kjit_emit_u8(e, p->op == KJIT_PRED_ANY ? KX86_OP_TEST_RM_R
					       : KX86_OP_CMP_R_RM);
	kjit_emit_u8(e, KX86_MODRM(0, reg, KX86_RM_DISP32));
	r = kjit_emit_lit_ref(e, p->value, 0);
	if (r)
		return r;
	kjit_emit_u8(e, KX86_OP_JCC8 + cc_of[p->op]);
	jcc = e->pos;
	kjit_emit_u8(e, 0);
	return kjit_flow_emit_guard_exit(e, jcc, live, native);
}
