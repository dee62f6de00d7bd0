/* unwind_check.c - see unwind_check.h. */
#include <stdio.h>
#include <string.h>
#include "tests/host/unwind_check.h"

#define FAILF(...) (snprintf(u->msg, sizeof(u->msg), __VA_ARGS__), -1)
#define UNSEEN	   (-1000)

struct walk {
	const struct kjit_block_desc *d;
	const struct kjit_block *b;
	const u8 *buf;
	u64 run;
	const struct kjit_uw_point *uw;
	unsigned n;
	int extra[KJIT_MAX_BLOCK_BYTES]; /* per offset; UNSEEN */
	u32 todo[KJIT_MAX_BLOCK_BYTES];
	unsigned n_todo;
};

void uwc_init(struct uwc *u)
{
	memset(u, 0, sizeof(*u));
	ZydisDecoderInit(&u->dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
}

/* The map's point covering offset @off. */
static const struct kjit_uw_point *point_at(const struct walk *w, u32 off)
{
	const struct kjit_uw_point *p = NULL;
	unsigned k;

	for (k = 0; k < w->n && w->uw[k].off <= off; k++)
		p = &w->uw[k];
	return p;
}

/* Index of the original instruction whose copy starts at @off, or -1. */
static int copy_at(const struct walk *w, u32 off)
{
	unsigned i;

	for (i = 0; i + 1 < w->d->n; i++)
		if (w->b->insn_off[i] == off)
			return (int)i;
	return -1;
}

/* The original instructions inserted code at @off may stand for: from
 * just after the last copy before it to the first copy after it. */
static void allowed(const struct walk *w, u32 off, unsigned *lo, unsigned *hi)
{
	unsigned i, last = w->d->n - 1;

	if (w->b->fix_kind == KJIT_FIXUP_EXIT && off >= w->b->fix_land_off) {
		*lo = *hi = w->b->fix_insn; /* the landing */
		return;
	}
	*lo = 0;
	*hi = last;
	if (off >= w->b->insn_off[last]) {
		*lo = last;
		return;
	}
	for (i = 0; i < last; i++) {
		if (w->b->insn_off[i] == 0xffff)
			continue;
		if (w->b->insn_off[i] <= off)
			*lo = i + 1;
		else if (i < *hi) {
			*hi = i;
			break;
		}
	}
}

static bool is_rsp(const ZydisDecodedOperand *op)
{
	return op->type == ZYDIS_OPERAND_TYPE_REGISTER &&
	       op->reg.value == ZYDIS_REGISTER_RSP;
}

/* Bytes @x pushes (negative: pops), or UNSEEN if it writes rsp some other
 * way. Calls and returns are the walker's. */
static int sp_effect(const ZydisDecodedInstruction *x,
		     const ZydisDecodedOperand *op)
{
	switch (x->mnemonic) {
	case ZYDIS_MNEMONIC_PUSH:
	case ZYDIS_MNEMONIC_PUSHFQ:
		return 8;
	case ZYDIS_MNEMONIC_POP:
	case ZYDIS_MNEMONIC_POPFQ:
		return -8;
	case ZYDIS_MNEMONIC_LEA:
		if (is_rsp(&op[0]) && op[1].mem.base == ZYDIS_REGISTER_RSP &&
		    op[1].mem.index == ZYDIS_REGISTER_NONE)
			return -(int)op[1].mem.disp.value;
		break;
	case ZYDIS_MNEMONIC_ADD:
	case ZYDIS_MNEMONIC_SUB:
		if (is_rsp(&op[0]) &&
		    op[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
			return x->mnemonic == ZYDIS_MNEMONIC_SUB
				   ? (int)op[1].imm.value.s
				   : -(int)op[1].imm.value.s;
		break;
	default:
		break;
	}
	for (unsigned k = 0; k < x->operand_count_visible; k++)
		if (is_rsp(&op[k]) &&
		    (op[k].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			return UNSEEN;
	return 0;
}

/* Queue offset @to with @extra; conflicting counts fail. */
static int reach(struct uwc *u, struct walk *w, u64 to_abs, int extra)
{
	u32 to;

	if (to_abs < w->run || to_abs >= w->run + w->b->body_len)
		return 0; /* a stub or out of the block: the path ends */
	to = (u32)(to_abs - w->run);
	if (w->extra[to] == extra)
		return 0;
	if (w->extra[to] != UNSEEN)
		return FAILF("+%#x reached with %d and %d bytes pushed", to,
			     w->extra[to], extra);
	w->extra[to] = extra;
	w->todo[w->n_todo++] = to;
	return 0;
}

/* The map at @off against what the walk found there. */
static int check_point(struct uwc *u, struct walk *w, u32 off, int extra,
		       int copy, bool frame_going)
{
	const struct kjit_uw_point *p = point_at(w, off);
	unsigned lo, hi;

	if (!p)
		return FAILF("+%#x: no unwind point before it", off);
	if (p->insn == KJIT_UW_NONE)
		return frame_going ? 0
				   : FAILF("+%#x: no layout in the hot path",
					   off);
	if (p->sp != extra)
		return FAILF("+%#x: map says %d bytes pushed, code %d", off,
			     p->sp, extra);
	if (copy >= 0) {
		if (p->insn != copy || extra)
			return FAILF("+%#x: copy of insn %d, map says insn %u "
				     "+%d",
				     off, copy, p->insn, extra);
		return 0;
	}
	allowed(w, off, &lo, &hi);
	if (p->insn < lo || p->insn > hi)
		return FAILF("+%#x: inserted code has insn %u's layout, "
			     "want %u..%u",
			     off, p->insn, lo, hi);
	return 0;
}

/* A design (a) `ret $n` (pop, lea) takes the frame down in the hot path. */
static bool ret_imm_term(const struct kjit_block_desc *d)
{
	const struct kjit_insn *t = &d->insn[d->n - 1];

	return t->kind == KJIT_I_RET && t->ret_imm;
}

static int check_map_shape(struct uwc *u, const struct walk *w)
{
	unsigned k;

	if (!w->n || w->uw[0].off)
		return FAILF("map does not start at +0");
	for (k = 0; k < w->n; k++) {
		if (k && w->uw[k].off <= w->uw[k - 1].off)
			return FAILF("map out of order at point %u", k);
		if (w->uw[k].off >= w->b->body_len &&
		    w->uw[k].insn != KJIT_UW_NONE)
			return FAILF("+%#x: a layout in the stubs",
				     w->uw[k].off);
		if (w->uw[k].insn != KJIT_UW_NONE &&
		    w->uw[k].insn >= w->d->n)
			return FAILF("point %u names insn %u of %u", k,
				     w->uw[k].insn, w->d->n);
	}
	if (w->b->len > w->b->body_len &&
	    point_at(w, w->b->body_len)->insn != KJIT_UW_NONE)
		return FAILF("the stubs have a layout");
	return 0;
}

static int walk_one(struct uwc *u, struct walk *w, u32 off)
{
	ZydisDecodedInstruction x;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	int extra = w->extra[off], copy = copy_at(w, off), fx;
	u64 a = w->run + off, t;
	bool going = ret_imm_term(w->d) && off >= w->b->insn_off[w->d->n - 1];

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&u->dec, w->buf + off,
						 w->b->len - off, &x, op)))
		return FAILF("+%#x: undecodable", off);
	u->insns++;
	u->pushed += extra != 0;
	if (check_point(u, w, off, extra, copy, going))
		return -1;
	if (copy >= 0) /* the original's own effect is in the next layout */
		return reach(u, w, a + x.length, 0);
	if (going)
		return 0; /* the frame is going: nothing more to check */
	if (x.meta.category == ZYDIS_CATEGORY_RET ||
	    x.mnemonic == ZYDIS_MNEMONIC_INT3) /* int3: nothing follows */
		return 0;
	if (x.meta.category == ZYDIS_CATEGORY_CALL) {
		if (op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&x, &op[0], a, &t)) &&
		    reach(u, w, t, extra + 8))
			return -1;
		return reach(u, w, a + x.length, extra);
	}
	if (x.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
	    x.meta.category == ZYDIS_CATEGORY_COND_BR) {
		if (op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&x, &op[0], a, &t)) &&
		    reach(u, w, t, extra))
			return -1;
		return x.meta.category == ZYDIS_CATEGORY_COND_BR
			   ? reach(u, w, a + x.length, extra)
			   : 0;
	}
	fx = sp_effect(&x, op);
	if (fx == UNSEEN)
		return FAILF("+%#x: inserted code writes rsp", off);
	return reach(u, w, a + x.length, extra + fx);
}

int uwc_block(struct uwc *u, const struct kjit_block_desc *d,
	      const struct kjit_block *b, const u8 *buf, u64 run,
	      const struct kjit_uw_point *uw, unsigned n)
{
	static struct walk w;
	unsigned k;

	if (b->len > KJIT_MAX_BLOCK_BYTES || !d->n)
		return FAILF("block too large or empty");
	w.d = d, w.b = b, w.buf = buf, w.run = run, w.uw = uw, w.n = n;
	for (k = 0; k < b->len; k++)
		w.extra[k] = UNSEEN;
	w.n_todo = 0;
	if (check_map_shape(u, &w))
		return -1;
	if (reach(u, &w, run, 0))
		return -1;
	/* a copied fixup's landing: reached from the fault, which left the
	 * stack as the faulting instruction had it */
	if (b->fix_kind == KJIT_FIXUP_EXIT &&
	    reach(u, &w, run + b->fix_land_off, 0))
		return -1;
	while (w.n_todo)
		if (walk_one(u, &w, w.todo[--w.n_todo]))
			return -1;
	/* a task stopped in a fault on the copied instruction resumes at the
	 * original (kmod/quiesce.c, kjit_cache_fault_site()): the copy must
	 * be where the block says, and the original too, and (walked above,
	 * (a)) nothing inserted may be on the stack there */
	if (b->fix_insn != 0xff &&
	    (b->fix_insn >= d->n || b->fix_off != b->insn_off[b->fix_insn] ||
	     d->insn[b->fix_insn].addr != b->orig + b->fix_orig_off ||
	     w.extra[b->fix_off] != 0))
		return FAILF("the copied faulting instruction %u is not at "
			     "+%#x in the cache and +%#x in the original, with "
			     "nothing inserted on the stack",
			     b->fix_insn, b->fix_off, b->fix_orig_off);
	u->blocks++;
	return 0;
}
