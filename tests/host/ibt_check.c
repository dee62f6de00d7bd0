/* ibt_check.c - the IBT proof of one translated block (rules in
 * ibt_check.h).
 *
 * Invariants: nothing here calls the translator or reads its encoding
 * facts (jit/arch_x86.h): the endbr64 bytes are spelled from <asm/ibt.h>,
 * instructions come from Zydis' full decoder, branch targets from
 * ZydisCalcAbsoluteAddress. The walk state is static: not reentrant.
 */
#include <stdio.h>
#include <string.h>
#include "tests/host/ibt_check.h"

#define FAILF(...) (snprintf(c->msg, sizeof(c->msg), __VA_ARGS__), -1)

enum { UNSEEN, START, INSIDE }; /* what a byte of the block is */

static u8 state[KJIT_MAX_BLOCK_BYTES];
static u32 todo[2 * KJIT_MAX_BLOCK_BYTES + 1]; /* <= 2 per instruction */

struct walk {
	const struct kjit_block_desc *d;
	const struct kjit_block *b;
	const u8 *buf;
	u64 run;
	unsigned n_todo;
};

void ibtc_init(struct ibtc *c)
{
	memset(c, 0, sizeof(*c));
	ZydisDecoderInit(&c->dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
}

static void push(struct walk *w, u64 a)
{
	if (a >= w->run && a < w->run + w->b->len && state[a - w->run] != START)
		todo[w->n_todo++] = (u32)(a - w->run);
}

static bool same_operand(const ZydisDecodedInstruction *oi,
			 const ZydisDecodedOperand *o, u64 oa,
			 const ZydisDecodedInstruction *xi,
			 const ZydisDecodedOperand *x, u64 xa)
{
	ZyanU64 p, q;

	if (o->type != x->type || o->size != x->size)
		return false;
	if (o->type == ZYDIS_OPERAND_TYPE_REGISTER)
		return o->reg.value == x->reg.value;
	if (o->type != ZYDIS_OPERAND_TYPE_MEMORY)
		return false;
	if (o->mem.base == ZYDIS_REGISTER_RIP)
		return x->mem.base == ZYDIS_REGISTER_RIP &&
		       ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(oi, o, oa, &p)) &&
		       ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(xi, x, xa, &q)) &&
		       p == q;
	return o->mem.base == x->mem.base && o->mem.index == x->mem.index &&
	       o->mem.scale == x->mem.scale &&
	       o->mem.segment == x->mem.segment &&
	       o->mem.disp.value == x->mem.disp.value;
}

/* Is the indirect @x at offset @off the block's terminator, an indirect
 * call of the original, copied (native-call mode, not followed)? */
static bool copied_call(struct ibtc *c, const struct walk *w, u32 off,
			const ZydisDecodedInstruction *xi,
			const ZydisDecodedOperand *x)
{
	const struct kjit_insn *t = &w->d->insn[w->d->n - 1];
	ZydisDecodedInstruction oi;
	ZydisDecodedOperand o[ZYDIS_MAX_OPERAND_COUNT];

	if (w->b->term != KJIT_I_CALL_IND || t->rel_off ||
	    off != w->b->insn_off[w->d->n - 1] ||
	    xi->meta.category != ZYDIS_CATEGORY_CALL ||
	    !ZYAN_SUCCESS(
		ZydisDecoderDecodeFull(&c->dec, t->bytes, t->len, &oi, o)))
		return false;
	return oi.meta.category == ZYDIS_CATEGORY_CALL &&
	       oi.mnemonic == xi->mnemonic && oi.length == xi->length &&
	       same_operand(&oi, &o[0], t->addr, xi, x, w->run + off);
}

static bool is_indirect(const ZydisDecodedInstruction *i,
			const ZydisDecodedOperand *op)
{
	return (i->meta.category == ZYDIS_CATEGORY_CALL ||
		i->meta.category == ZYDIS_CATEGORY_UNCOND_BR) &&
	       op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE;
}

/* Decode the instruction at offset @off, mark its bytes, queue where
 * control goes next (inside the block). */
/* Is the int3 at @off the trap of a return stack buffer slot, right after
 * a reachable `call +1` (e8 01 00 00 00) that jumps over it? */
static bool rsb_trap(const struct walk *w, u32 off)
{
	static const u8 call_over[5] = {0xe8, 1, 0, 0, 0};

	return off >= 5 && state[off - 5] == START &&
	       !memcmp(w->buf + off - 5, call_over, 5);
}

static int step(struct ibtc *c, struct walk *w, u32 off)
{
	ZydisDecodedInstruction i;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	u64 a = w->run + off;
	ZyanU64 t;
	unsigned k;

	if (state[off] == INSIDE)
		return FAILF("+%#x: a branch lands inside an instruction", off);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&c->dec, w->buf + off,
						 w->b->len - off, &i, op)))
		return FAILF("+%#x: reachable bytes do not decode", off);
	for (k = 0; k < i.length; k++)
		if (state[off + k] != UNSEEN)
			return FAILF("+%#x: instructions overlap", off);
	state[off] = START;
	for (k = 1; k < i.length; k++)
		state[off + k] = INSIDE;
	c->code_bytes += i.length;
	if (i.mnemonic == ZYDIS_MNEMONIC_INT3 && !rsb_trap(w, off))
		return FAILF("+%#x: int3 padding is reachable", off);
	if (i.mnemonic == ZYDIS_MNEMONIC_INT3)
		return 0; /* a trap: nothing follows */
	if (is_indirect(&i, op)) {
		c->indirect++;
		if (!copied_call(c, w, off, &i, &op[0]))
			return FAILF(
			    "+%#x: indirect %s of the translator's: its "
			    "target would need endbr64",
			    off, ZydisMnemonicGetString(i.mnemonic));
		c->copied++;
	} else if (i.meta.category == ZYDIS_CATEGORY_CALL ||
		   i.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
		   i.meta.category == ZYDIS_CATEGORY_COND_BR) {
		if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&i, &op[0], a, &t)))
			return FAILF("+%#x: branch target unknown", off);
		push(w, t);
	}
	if (i.meta.category != ZYDIS_CATEGORY_UNCOND_BR &&
	    i.meta.category != ZYDIS_CATEGORY_RET)
		push(w, a + i.length);
	return 0;
}

/* (c): past the reachable code only int3 padding to 8, then literals. */
static int check_tail(struct ibtc *c, const struct walk *w)
{
	u32 len = w->b->len, u, k, lit;

	for (u = 0; u < len && state[u] != UNSEEN; u++)
		;
	for (k = u; k < len; k++)
		if (state[k] != UNSEEN)
			return FAILF("+%#x..+%#x: bytes nothing reaches before "
				     "code at +%#x",
				     u, k, k);
	c->tail_bytes += len - u;
	if (u == len)
		return 0;
	lit = u + (u32)((8 - ((w->run + u) & 7)) & 7);
	for (k = u; k < lit && k < len; k++)
		if (w->buf[k] != 0xcc)
			return FAILF("+%#x: unreached byte %02x is not int3 "
				     "padding",
				     k, w->buf[k]);
	if (lit >= len || (len - lit) % 8)
		return FAILF("+%#x..+%#x: unreached tail is not whole 8-byte "
			     "literals",
			     lit, len);
	return 0;
}

int ibtc_block(struct ibtc *c, const struct kjit_block_desc *d,
	       const struct kjit_block *b, const u8 *buf, u64 run)
{
	static const u8 endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	struct walk w = {d, b, buf, run, 0};
	unsigned k;
	int r = 0;

	c->msg[0] = 0;
	c->blocks++;
	if (b->len > KJIT_MAX_BLOCK_BYTES || !d->n)
		return FAILF("block of %u bytes, %u instructions", b->len,
			     d->n);
	if (b->len < 4 || memcmp(buf, endbr64, 4))
		return FAILF("entry %#llx does not begin with endbr64",
			     (unsigned long long)run);
	memset(state, UNSEEN, b->len);
	todo[w.n_todo++] = 0;
	/* a direct exit reaches its stub while unlinked, and again once
	 * unlinked: a walk after linking must still cover them */
	for (k = 0; k < b->n_exits; k++)
		if (b->exit[k].kind == KJIT_EXIT_DIRECT)
			push(&w, run + b->exit[k].stub_off);
	/* a copied fixup's landing is reached by the kernel's fixup (an
	 * exception return, which IBT does not check) */
	if (b->fix_kind == KJIT_FIXUP_EXIT)
		push(&w, run + b->fix_land_off);
	while (!r && w.n_todo) {
		u32 off = todo[--w.n_todo];

		if (state[off] != START)
			r = step(c, &w, off);
	}
	return r ? r : check_tail(c, &w);
}
