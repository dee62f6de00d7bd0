/* verify.c - independent decode-back verifier (see verify.h).
 *
 * Invariants: this file never calls translator internals; its expectations
 * come from Zydis' full decode of the ORIGINAL instruction (category,
 * operands, ZydisCalcAbsoluteAddress) and from the environment's symbol
 * classification, so a bug in decode.c/emit.c/flow.c is not mirrored here.
 */
#include <stdio.h>
#include <string.h>
#include "tests/host/verify.h"
#include "jit/predicate.h"

struct dinsn {
	ZydisDecodedInstruction i;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	u64 addr;
};

#define FAILF(...) (snprintf(v->msg, sizeof(v->msg), __VA_ARGS__), -1)

static enum kjit_fixup env_fixup(struct vfy *v, u64 a, u64 *target);

void vfy_init(struct vfy *v, const struct kjit_env *env)
{
	ZydisDecoderInit(&v->dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	v->env = env;
	v->native_calls = false;
	v->follow_indirect_calls = false;
	v->predict_indirect_calls = false;
	v->predict_indirect_jumps = false;
	v->ibt = false;
	v->msg[0] = 0;
}

/* decode emitted code at run-time address @a (must lie in the block) */
static int dec_out(struct vfy *v, u64 a, struct dinsn *x)
{
	u64 off = a - v->run;

	if (a < v->run || off >= v->b->len)
		return FAILF("decode outside block at +%#llx",
			     (unsigned long long)off);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(
		&v->dec, v->buf + off, v->b->len - off, &x->i, x->op)))
		return FAILF("emitted code does not decode at +%#llx",
			     (unsigned long long)off);
	x->addr = a;
	return 0;
}

static int abs_of(const struct dinsn *x, int k, u64 *out)
{
	ZyanU64 r;

	if (!ZYAN_SUCCESS(
		ZydisCalcAbsoluteAddress(&x->i, &x->op[k], x->addr, &r)))
		return -1;
	*out = r;
	return 0;
}

static int read_lit(struct vfy *v, u64 a, u64 *val)
{
	if (a < v->run || a + 8 > v->run + v->b->len)
		return FAILF("literal %#llx outside block",
			     (unsigned long long)a);
	memcpy(val, v->buf + (a - v->run), 8);
	return 0;
}

static bool is_nop(const struct dinsn *x)
{
	return x->i.mnemonic == ZYDIS_MNEMONIC_NOP;
}

/* Decode the instruction at @a into @x, where the translator may have
 * aligned a rel32 or imm32 field: the padding must be ignored prefixes of
 * that instruction (jit/emit.c), never a nop of its own, which every pass
 * through the block would execute. */
static int dec_aligned(struct vfy *v, u64 a, struct dinsn *x)
{
	if (dec_out(v, a, x))
		return -1;
	if (is_nop(x))
		return FAILF("padding at %#llx executes as an instruction (%u "
			     "byte nop)",
			     (unsigned long long)a, x->i.length);
	return 0;
}

/* value pushed by a `push imm32` / `push [rip+lit]` */
static int pushed_const(struct vfy *v, const struct dinsn *x, u64 *val)
{
	u64 a;

	if (x->i.mnemonic != ZYDIS_MNEMONIC_PUSH)
		return FAILF("expected push at %#llx",
			     (unsigned long long)x->addr);
	if (x->op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
		*val = (u64)x->op[0].imm.value.s;
		return 0;
	}
	if (x->op[0].type == ZYDIS_OPERAND_TYPE_MEMORY &&
	    x->op[0].mem.base == ZYDIS_REGISTER_RIP && !abs_of(x, 0, &a))
		return read_lit(v, a, val);
	return FAILF("push of unexpected operand at %#llx",
		     (unsigned long long)x->addr);
}

/* Where the jmp @x goes: rel32, or through a literal in the block. */
static int jmp_target(struct vfy *v, const struct dinsn *x, u64 *t)
{
	if (abs_of(x, 0, t))
		return FAILF("jmp at %#llx: no target",
			     (unsigned long long)x->addr);
	if (x->op[0].type == ZYDIS_OPERAND_TYPE_MEMORY)
		return read_lit(v, *t, t);
	return 0;
}

/* x must be `jmp dispatcher` (rel32 or via literal): the flags-dead entry
 * (env->dispatch_nf, when set) exactly where the flags are dead at the
 * exit (@flags_dead: an indirect call), the other one everywhere else */
static int check_dispatch_jmp(struct vfy *v, const struct dinsn *x,
			      bool flags_dead)
{
	u64 t, want = flags_dead && v->env->dispatch_nf ? v->env->dispatch_nf
							 : v->env->dispatch;

	if (x->i.mnemonic != ZYDIS_MNEMONIC_JMP)
		return FAILF("expected jmp to dispatcher at %#llx",
			     (unsigned long long)x->addr);
	if (jmp_target(v, x, &t))
		return -1;
	if (t != want)
		return FAILF("jmp at %#llx goes to %#llx, not the dispatcher's "
			     "%s entry",
			     (unsigned long long)x->addr, (unsigned long long)t,
			     flags_dead ? "flags-dead" : "flags-saving");
	return 0;
}

/* x is an exit branch (jmp/jcc rel32): check alignment, follow its stub,
 * and check it leads to @want; check it is recorded in the exit table. */
static int check_exit_branch(struct vfy *v, const struct dinsn *x, u64 want)
{
	struct dinsn s;
	u64 stub, val;
	u32 field = (u32)(x->addr - v->run) + x->i.raw.imm[0].offset;
	unsigned k;

	if (x->i.raw.imm[0].size != 32 || ((v->run + field) & 3))
		return FAILF("exit branch at %#llx: rel32 missing or unaligned",
			     (unsigned long long)x->addr);
	if (abs_of(x, 0, &stub) || dec_out(v, stub, &s) ||
	    pushed_const(v, &s, &val))
		return -1;
	if (val != want)
		return FAILF("exit at %#llx targets %#llx, want %#llx",
			     (unsigned long long)x->addr,
			     (unsigned long long)val, (unsigned long long)want);
	if (dec_out(v, stub + s.i.length, &s) || check_dispatch_jmp(v, &s, false))
		return -1;
	for (k = 0; k < v->b->n_exits; k++)
		if (v->b->exit[k].kind == KJIT_EXIT_DIRECT &&
		    v->b->exit[k].branch_off == field &&
		    v->b->exit[k].target == want)
			return 0;
	return FAILF("exit at %#llx not in exit table",
		     (unsigned long long)x->addr);
}

static bool same_mem(const ZydisDecodedOperand *a, u64 aa,
		     const ZydisDecodedOperand *b, u64 ba, s64 disp_adj)
{
	if (a->mem.base == ZYDIS_REGISTER_RIP ||
	    b->mem.base == ZYDIS_REGISTER_RIP)
		return a->mem.base == b->mem.base && aa == ba;
	return a->mem.base == b->mem.base && a->mem.index == b->mem.index &&
	       a->mem.scale == b->mem.scale &&
	       a->mem.segment == b->mem.segment &&
	       a->mem.disp.value + disp_adj == b->mem.disp.value;
}

/* Same instruction, same operands; RIP-relative by absolute address. */
static int same_insn(struct vfy *v, const struct dinsn *o,
		     const struct dinsn *t)
{
	unsigned k;

	if (o->i.mnemonic != t->i.mnemonic || o->i.length != t->i.length ||
	    o->i.operand_count != t->i.operand_count)
		return FAILF("copy of %#llx differs (mnemonic/length)",
			     (unsigned long long)o->addr);
	for (k = 0; k < o->i.operand_count; k++) {
		const ZydisDecodedOperand *a = &o->op[k], *b = &t->op[k];
		u64 aa = 0, ba = 0;

		if (a->type != b->type || a->size != b->size)
			return FAILF("copy of %#llx: operand %u differs",
				     (unsigned long long)o->addr, k);
		if (a->type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    a->reg.value != b->reg.value)
			return FAILF("copy of %#llx: register differs",
				     (unsigned long long)o->addr);
		if (a->type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		    a->imm.value.u != b->imm.value.u)
			return FAILF("copy of %#llx: immediate differs",
				     (unsigned long long)o->addr);
		if (a->type != ZYDIS_OPERAND_TYPE_MEMORY)
			continue;
		if (a->mem.base == ZYDIS_REGISTER_RIP)
			abs_of(o, k, &aa), abs_of(t, k, &ba);
		if (!same_mem(a, aa, b, ba, 0))
			return FAILF("copy of %#llx: memory operand differs "
				     "(%#llx vs %#llx)",
				     (unsigned long long)o->addr,
				     (unsigned long long)aa,
				     (unsigned long long)ba);
	}
	return 0;
}

static int dec_orig(struct vfy *v, const struct kjit_insn *in, struct dinsn *o)
{
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&v->dec, in->bytes, in->len,
						 &o->i, o->op)))
		return FAILF("original at %#llx does not decode",
			     (unsigned long long)in->addr);
	o->addr = in->addr;
	return 0;
}

/* Is @in, decoded here, a call rel32 (no memory operand)? */
static bool is_direct_call(struct vfy *v, const struct kjit_insn *in)
{
	struct dinsn o;

	return ZYAN_SUCCESS(ZydisDecoderDecodeFull(&v->dec, in->bytes, in->len,
						   &o.i, o.op)) &&
	       o.i.mnemonic == ZYDIS_MNEMONIC_CALL &&
	       o.op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE;
}

/* With IBT: endbr64 at the entry (where the counter sequence begins).
 * The bytes are spelled here, from <asm/ibt.h>, not taken from jit/. */
static int check_endbr(struct vfy *v, u64 *a)
{
	static const u8 endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	struct dinsn x;

	if (!v->ibt)
		return 0;
	if (dec_out(v, *a, &x))
		return -1;
	if (x.i.mnemonic != ZYDIS_MNEMONIC_ENDBR64 || x.i.length != 4 ||
	    memcmp(v->buf, endbr64, 4))
		return FAILF("ibt: the block does not begin with endbr64");
	*a += x.i.length;
	return 0;
}

/* ---- counter sequences ------------------------------------------------
 * <inc>:  incq mem | movabs $off,%r; incq %gs:(%r)
 *       | push %r; movabs $off,%r; incq %gs:(%r); pop %r
 *       | [push %r;] <slot>; incq %gs:disp(%r) [; pop %r]   (a bank:
 *         <slot> = mov %gs:disp32,%r | movabs $s,%r; mov %gs:(%r),%r)
 * whole:  <inc> | push %rax; lahf; seto %al; <inc>; add $0x7f,%al; sahf;
 *         pop %rax | pushfq; <inc>; popfq
 */
struct cseq {
	int flags;  /* KJIT_SEQ_INC (bare), KJIT_SEQ_LAHF, KJIT_SEQ_PUSHF */
	int reg;    /* register holding the offset, -1: none */
	bool saved; /* ... pushed and popped around it */
	bool gs;    /* the increment is %gs-relative */
	u64 end;
};

static bool is_reg64(const ZydisDecodedOperand *op, ZydisRegister r)
{
	return op->type == ZYDIS_OPERAND_TYPE_REGISTER && op->reg.value == r;
}

static bool is_push_pop(const struct dinsn *x, ZydisMnemonic m, ZydisRegister r)
{
	return x->i.mnemonic == m && is_reg64(&x->op[0], r);
}

/* qword memory inc; with @base, exactly %gs:(base) */
static int check_inc(struct vfy *v, const struct dinsn *x, ZydisRegister base)
{
	if (x->i.mnemonic != ZYDIS_MNEMONIC_INC ||
	    x->op[0].type != ZYDIS_OPERAND_TYPE_MEMORY || x->op[0].size != 64)
		return FAILF("counter inc is not a qword memory inc at %#llx",
			     (unsigned long long)x->addr);
	if (base == ZYDIS_REGISTER_NONE)
		return 0;
	if (x->op[0].mem.segment != ZYDIS_REGISTER_GS ||
	    x->op[0].mem.base != base ||
	    x->op[0].mem.index != ZYDIS_REGISTER_NONE ||
	    x->op[0].mem.disp.value != 0)
		return FAILF("counter inc at %#llx is not incq %%gs:(%%reg)",
			     (unsigned long long)x->addr);
	return 0;
}

/* mov %gs:(%r) or %gs:disp32 (no base, no index) into %r itself? */
static bool is_gs_load(const struct dinsn *x, ZydisRegister r, bool based)
{
	const ZydisDecodedOperand *m = &x->op[1];

	return x->i.mnemonic == ZYDIS_MNEMONIC_MOV && is_reg64(&x->op[0], r) &&
	       x->op[0].size == 64 && m->type == ZYDIS_OPERAND_TYPE_MEMORY &&
	       m->mem.segment == ZYDIS_REGISTER_GS &&
	       m->mem.index == ZYDIS_REGISTER_NONE &&
	       (based ? m->mem.base == r && m->mem.disp.value == 0
		      : m->mem.base == ZYDIS_REGISTER_NONE);
}

/* A bank increment after its slot load into %r: incq %gs:disp(%r). */
static bool is_bank_inc(const struct dinsn *x, ZydisRegister r)
{
	return x->i.mnemonic == ZYDIS_MNEMONIC_INC &&
	       x->op[0].type == ZYDIS_OPERAND_TYPE_MEMORY &&
	       x->op[0].size == 64 &&
	       x->op[0].mem.segment == ZYDIS_REGISTER_GS &&
	       x->op[0].mem.base == r &&
	       x->op[0].mem.index == ZYDIS_REGISTER_NONE;
}

/* After an optional push: the slot load of a bank increment at @a into
 * %r, and the increment; the address past it, or 0 when it is none. */
static u64 parse_bank(struct vfy *v, u64 a, ZydisRegister *r)
{
	struct dinsn x, y;

	if (dec_out(v, a, &x))
		return 0;
	if (x.i.mnemonic == ZYDIS_MNEMONIC_MOV &&
	    x.op[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
	    is_gs_load(&x, x.op[0].reg.value, false)) {
		*r = x.op[0].reg.value;
	} else if (x.i.mnemonic == ZYDIS_MNEMONIC_MOV &&
		   x.op[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		   x.op[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		   x.i.raw.imm[0].size == 64 &&
		   !dec_out(v, a + x.i.length, &y) &&
		   is_gs_load(&y, x.op[0].reg.value, true)) {
		*r = x.op[0].reg.value;
		a += x.i.length;
		x = y;
	} else {
		return 0;
	}
	if (*r == ZYDIS_REGISTER_RSP)
		return 0;
	a += x.i.length;
	if (dec_out(v, a, &y) || !is_bank_inc(&y, *r))
		return 0;
	return a + y.i.length;
}

/* <inc> at @a. Returns 1 (nothing written to v->msg) when @a holds no
 * counter increment at all, -1 when it is a broken one. */
static int parse_inc(struct vfy *v, u64 a, struct cseq *c)
{
	struct dinsn x, y;
	ZydisRegister r;
	u64 past;

	c->reg = -1, c->saved = false;
	if (dec_out(v, a, &x))
		return -1;
	if (x.i.mnemonic == ZYDIS_MNEMONIC_PUSH &&
	    x.op[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
	    !dec_out(v, a + x.i.length, &y) &&
	    y.i.mnemonic == ZYDIS_MNEMONIC_MOV &&
	    is_reg64(&y.op[0], x.op[0].reg.value)) {
		c->saved = true;
		a += x.i.length;
		x = y;
	}
	past = parse_bank(v, a, &r);
	if (past) {
		c->reg = (int)(r - ZYDIS_REGISTER_RAX);
		c->gs = true;
		if (c->saved) {
			if (dec_out(v, past, &x) ||
			    !is_push_pop(&x, ZYDIS_MNEMONIC_POP, r))
				return FAILF("saved counter register not "
					     "popped at %#llx",
					     (unsigned long long)past);
			past += x.i.length;
		}
		c->end = past;
		return 0;
	}
	if (x.i.mnemonic == ZYDIS_MNEMONIC_MOV) {
		if (x.op[0].type != ZYDIS_OPERAND_TYPE_REGISTER ||
		    x.op[0].size != 64 ||
		    x.op[1].type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
		    x.i.raw.imm[0].size != 64)
			return c->saved ? FAILF("saved counter register at "
						"%#llx not loaded by movabs",
						(unsigned long long)a)
					: 1;
		r = x.op[0].reg.value;
		if (r == ZYDIS_REGISTER_RSP)
			return FAILF("counter offset in %%rsp");
		c->reg = (int)(r - ZYDIS_REGISTER_RAX);
		a += x.i.length;
		if (dec_out(v, a, &x) || check_inc(v, &x, r))
			return -1;
		c->gs = true;
		a += x.i.length;
		if (c->saved) {
			if (dec_out(v, a, &x) ||
			    !is_push_pop(&x, ZYDIS_MNEMONIC_POP, r))
				return FAILF("saved counter register not "
					     "popped at %#llx",
					     (unsigned long long)a);
			a += x.i.length;
		}
		c->end = a;
		return 0;
	}
	if (c->saved || x.i.mnemonic != ZYDIS_MNEMONIC_INC)
		return 1;
	if (check_inc(v, &x, ZYDIS_REGISTER_NONE))
		return -1;
	c->gs = x.op[0].mem.segment == ZYDIS_REGISTER_GS;
	c->end = a + x.i.length;
	return 0;
}

/* A whole counter sequence at @a (see above); 1 when there is none. */
static int parse_count(struct vfy *v, u64 a, struct cseq *c)
{
	static const ZydisMnemonic lahf_head[] = {ZYDIS_MNEMONIC_LAHF,
						  ZYDIS_MNEMONIC_SETO};
	static const ZydisMnemonic lahf_tail[] = {
	    ZYDIS_MNEMONIC_ADD, ZYDIS_MNEMONIC_SAHF, ZYDIS_MNEMONIC_POP};
	const ZydisMnemonic *tail = NULL;
	struct dinsn x, y;
	unsigned n = 0, k;
	int r;

	c->flags = KJIT_SEQ_INC;
	if (dec_out(v, a, &x))
		return -1;
	if (is_push_pop(&x, ZYDIS_MNEMONIC_PUSH, ZYDIS_REGISTER_RAX) &&
	    !dec_out(v, a + x.i.length, &y) &&
	    y.i.mnemonic == ZYDIS_MNEMONIC_LAHF) {
		a += x.i.length;
		for (k = 0; k < 2; k++, a += x.i.length)
			if (dec_out(v, a, &x) || x.i.mnemonic != lahf_head[k])
				return FAILF("lahf sequence broken at %#llx",
					     (unsigned long long)a);
		c->flags = KJIT_SEQ_LAHF, tail = lahf_tail, n = 3;
	} else if (x.i.mnemonic == ZYDIS_MNEMONIC_PUSHFQ) {
		a += x.i.length;
		c->flags = KJIT_SEQ_PUSHF, n = 1;
	}
	r = parse_inc(v, a, c);
	if (r)
		return r > 0 && c->flags != KJIT_SEQ_INC
			   ? FAILF("no counter inc inside the flags-saving "
				   "sequence at %#llx",
				   (unsigned long long)a)
			   : r;
	if (c->flags == KJIT_SEQ_LAHF && c->reg == 0)
		return FAILF("lahf sequence uses %%rax for the counter");
	a = c->end;
	for (k = 0; k < n; k++, a += x.i.length) {
		if (dec_out(v, a, &x))
			return -1;
		if (tail ? x.i.mnemonic != tail[k]
			 : x.i.mnemonic != ZYDIS_MNEMONIC_POPFQ)
			return FAILF("counter sequence broken at %#llx",
				     (unsigned long long)a);
	}
	if (tail && (x.op[0].reg.value != ZYDIS_REGISTER_RAX))
		return FAILF("lahf sequence does not restore %%rax");
	c->end = a;
	return 0;
}

/* Can the instruction at @i fault to a fixup outside the block (an
 * exception-table entry whose fixup is not the next instruction)? Then it
 * is a way out that reads everything. A direct call cannot: its entry
 * never fires (check_fixups). */
static bool faults_away(struct vfy *v, unsigned i)
{
	const struct kjit_insn *in = &v->d->insn[i];
	u64 t;

	return in->kind != KJIT_I_LIMIT && !is_direct_call(v, in) &&
	       env_fixup(v, in->addr, &t) == KJIT_FIXUP_EXIT &&
	       t != in->addr + in->len;
}

static ZydisRegister reg64_of(ZydisRegister r)
{
	return ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
}

/* What @o does to GPR @r64: 1 overwrites it whole unread, -1 may read it,
 * 0 neither. */
static int reg_effect(const struct dinsn *o, ZydisRegister r64)
{
	bool kill = false;
	unsigned j;

	if ((o->i.mnemonic == ZYDIS_MNEMONIC_XOR ||
	     o->i.mnemonic == ZYDIS_MNEMONIC_SUB) &&
	    o->op[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
	    o->op[0].size >= 32 && is_reg64(&o->op[1], o->op[0].reg.value) &&
	    reg64_of(o->op[0].reg.value) == r64)
		return 1;
	for (j = 0; j < o->i.operand_count; j++) {
		const ZydisDecodedOperand *op = &o->op[j];

		if (op->type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    (reg64_of(op->mem.base) == r64 ||
		     reg64_of(op->mem.index) == r64))
			return -1;
		if (op->type != ZYDIS_OPERAND_TYPE_REGISTER ||
		    reg64_of(op->reg.value) != r64)
			continue;
		if (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
			return -1;
		if ((op->actions & ZYDIS_OPERAND_ACTION_WRITE) &&
		    op->size >= 32)
			kill = true;
	}
	return kill;
}

/* ---- registers past a block -------------------------------------------
 * Where the block's own code does not settle it, a counter register may
 * still be dead by what follows: its successors in the same function
 * (the environment's func_start; never a trampoline the kernel retargets),
 * read here from the original code, a few levels deep; the scratch
 * registers r10 and r11 at a compiled C function's entry; and every
 * caller-saved register but rax and rdx after a ret in one. A compiled C
 * function is one whose first instruction, after an endbr64, is its
 * __fentry__ site. */
#define VFY_REG_DEPTH  3
#define VFY_REG_WINDOW 32

static u64 orig_target(const struct dinsn *o);
static enum kjit_sym sym_of(struct vfy *v, u64 t, int *reg);

static int dec_code(struct vfy *v, u64 a, struct dinsn *o)
{
	u8 b[ZYDIS_MAX_INSTRUCTION_LENGTH];
	size_t n = v->env->read_code(v->env->opaque, a, b, sizeof(b));

	if (!n ||
	    !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&v->dec, b, n, &o->i, o->op)))
		return -1;
	o->addr = a;
	return 0;
}

static bool is_fentry_site(struct vfy *v, const struct dinsn *o)
{
	int reg;

	if (v->env->ftrace_site && o->i.length == 5 &&
	    v->env->ftrace_site(v->env->opaque, o->addr))
		return true;
	return o->i.mnemonic == ZYDIS_MNEMONIC_CALL &&
	       o->op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
	       sym_of(v, orig_target(o), &reg) == KJIT_SYM_FENTRY;
}

/* The seal the kernel writes over an unused endbr64 (<asm/ibt.h>,
 * gen_endbr_poison()): osp nopl (%rax) up to 6.14, nopl -0x2a(%rax) since. */
static bool is_seal(const u8 *b)
{
	static const u8 old_seal[4] = {0x66, 0x0f, 0x1f, 0x00};
	static const u8 new_seal[4] = {0x0f, 0x1f, 0x40, 0xd6};

	return !memcmp(b, old_seal, 4) || !memcmp(b, new_seal, 4);
}

static bool c_entry(struct vfy *v, u64 fn)
{
	u8 b[4] = {0};
	struct dinsn o;

	if (dec_code(v, fn, &o))
		return false;
	/* an endbr64, or the seal that replaced one, comes first on IBT */
	if ((o.i.mnemonic == ZYDIS_MNEMONIC_ENDBR64 ||
	     (v->env->read_code(v->env->opaque, fn, b, 4) == 4 && is_seal(b))) &&
	    dec_code(v, fn + 4, &o))
		return false;
	return is_fentry_site(v, &o);
}

static u64 func_of(struct vfy *v, u64 a)
{
	return v->env->func_start ? v->env->func_start(v->env->opaque, a) : 0;
}

static bool scratch(ZydisRegister r64)
{
	return r64 == ZYDIS_REGISTER_R10 || r64 == ZYDIS_REGISTER_R11;
}

static bool reg_dead_at(struct vfy *v, u64 from, u64 a, ZydisRegister r64,
			unsigned depth);

/* Does @o go anywhere but its next instruction or a branch target: a
 * trap, a return to another privilege level, a transaction's abort? */
static bool leaves_straight_line(const struct dinsn *o)
{
	switch (o->i.mnemonic) {
	case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
	case ZYDIS_MNEMONIC_SYSRET:
	case ZYDIS_MNEMONIC_SYSEXIT:
	case ZYDIS_MNEMONIC_SYSCALL:
	case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_HLT:
	case ZYDIS_MNEMONIC_VMLAUNCH:
	case ZYDIS_MNEMONIC_VMRESUME:
	case ZYDIS_MNEMONIC_VMRUN:
	case ZYDIS_MNEMONIC_XBEGIN:
	case ZYDIS_MNEMONIC_XABORT:
		return true;
	default:
		return o->i.meta.category == ZYDIS_CATEGORY_INTERRUPT;
	}
}

/* After terminator @o (decoded at its address), @depth levels left. */
static bool reg_dead_past(struct vfy *v, const struct dinsn *o,
			  ZydisRegister r64, unsigned depth)
{
	u64 fall = o->addr + o->i.length, t, f;
	int reg;

	/* a static-key site: a nop or a jmp, both paths by turns */
	if (v->env->patch_site &&
	    v->env->patch_site(v->env->opaque, o->addr, &t))
		return reg_dead_at(v, o->addr, t, r64, depth) &&
		       reg_dead_at(v, o->addr, fall, r64, depth);
	if (o->i.meta.category == ZYDIS_CATEGORY_COND_BR) {
		t = orig_target(o);
		return sym_of(v, t, &reg) == KJIT_SYM_NONE &&
		       reg_dead_at(v, o->addr, t, r64, depth) &&
		       reg_dead_at(v, o->addr, fall, r64, depth);
	}
	if (o->i.mnemonic == ZYDIS_MNEMONIC_RET ||
	    (o->i.mnemonic == ZYDIS_MNEMONIC_JMP &&
	     o->op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
	     sym_of(v, orig_target(o), &reg) == KJIT_SYM_RETURN_THUNK)) {
		f = func_of(v, o->addr);
		return f && f < o->addr && c_entry(v, f) &&
		       r64 != ZYDIS_REGISTER_RAX && r64 != ZYDIS_REGISTER_RDX &&
		       r64 != ZYDIS_REGISTER_RBX && r64 != ZYDIS_REGISTER_RBP &&
		       r64 != ZYDIS_REGISTER_RSP && r64 < ZYDIS_REGISTER_R12;
	}
	if ((o->i.mnemonic != ZYDIS_MNEMONIC_JMP &&
	     o->i.mnemonic != ZYDIS_MNEMONIC_CALL) ||
	    o->op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
		return false; /* indirect, or not a transfer */
	t = orig_target(o);
	if (sym_of(v, t, &reg) != KJIT_SYM_NONE)
		return false;
	if (c_entry(v, t))
		return scratch(r64);
	return o->i.mnemonic == ZYDIS_MNEMONIC_JMP &&
	       reg_dead_at(v, o->addr, t, r64, depth);
}

/* Is @r64 overwritten unread on every path from @a, a successor of the
 * terminator at @from? */
static bool reg_dead_at(struct vfy *v, u64 from, u64 a, ZydisRegister r64,
			unsigned depth)
{
	struct dinsn o;
	u64 f = func_of(v, from), t;
	unsigned i;
	int e;

	if (!depth || !f || f != func_of(v, a))
		return false;
	for (i = 0; i < VFY_REG_WINDOW; i++, a += o.i.length) {
		if (dec_code(v, a, &o) ||
		    env_fixup(v, a, &t) != KJIT_FIXUP_NONE)
			return false;
		if (v->env->static_call &&
		    v->env->static_call(v->env->opaque, a, &t, &(bool){0}))
			return false;
		if (is_fentry_site(v, &o)) {
			if (!scratch(r64))
				return false;
			continue;
		}
		if (v->env->patch_site &&
		    v->env->patch_site(v->env->opaque, a, &t))
			return reg_dead_at(v, a, t, r64, depth - 1) &&
			       reg_dead_at(v, a, a + o.i.length, r64,
					   depth - 1);
		e = reg_effect(&o, r64);
		if (e)
			return e > 0;
		if (leaves_straight_line(&o))
			return false;
		if (o.i.meta.category == ZYDIS_CATEGORY_COND_BR ||
		    o.i.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
		    o.i.meta.category == ZYDIS_CATEGORY_CALL ||
		    o.i.meta.category == ZYDIS_CATEGORY_RET)
			return reg_dead_past(v, &o, r64, depth - 1);
	}
	return false;
}

/* Is GPR @reg (0..15) overwritten whole, unread, from the block's
 * instruction @k on: by the block's own instructions, or past its
 * terminator (above)? */
static bool reg_dead_from(struct vfy *v, unsigned k, int reg)
{
	ZydisRegister r64 = (ZydisRegister)(ZYDIS_REGISTER_RAX + reg);
	const struct kjit_insn *last = &v->d->insn[v->d->n - 1];
	struct dinsn o;
	unsigned i;
	int e;

	for (i = k; i < v->d->n; i++) {
		if (v->d->insn[i].kind == KJIT_I_LIMIT)
			return reg_dead_at(v, v->d->insn[i - 1].addr,
					   v->d->insn[i].addr, r64,
					   VFY_REG_DEPTH);
		if (faults_away(v, i) || dec_orig(v, &v->d->insn[i], &o))
			return false;
		e = reg_effect(&o, r64);
		if (e)
			return e > 0;
	}
	return !dec_orig(v, last, &o) &&
	       reg_dead_past(v, &o, r64, VFY_REG_DEPTH);
}

/* A shift or rotate whose count may be 0 (then it writes no flag): a
 * count in %cl, or an immediate that masks to 0. */
static bool shift_by_maybe_zero(const struct dinsn *o)
{
	const ZydisDecodedOperand *c = &o->op[1];
	unsigned mask = o->op[0].size == 64 ? 63 : 31;

	switch (o->i.mnemonic) {
	case ZYDIS_MNEMONIC_SHL:
	case ZYDIS_MNEMONIC_SHR:
	case ZYDIS_MNEMONIC_SAR:
	case ZYDIS_MNEMONIC_ROL:
	case ZYDIS_MNEMONIC_ROR:
	case ZYDIS_MNEMONIC_RCL:
	case ZYDIS_MNEMONIC_RCR:
		break;
	case ZYDIS_MNEMONIC_SHLD:
	case ZYDIS_MNEMONIC_SHRD:
		c = &o->op[2];
		break;
	default:
		return false;
	}
	return c->type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
	       !(c->imm.value.u & mask);
}

/* Are OF SF ZF AF PF written before read by the block's own instructions
 * from @k on (never a shift by a count that may be 0, nor rep cmps/scas)? */
static bool flags_dead_from(struct vfy *v, unsigned k)
{
	const u32 clob = 0x8d4; /* OF SF ZF AF PF */
	u32 killed = 0;
	struct dinsn o;
	unsigned i;

	for (i = k; i < v->d->n && killed != clob; i++) {
		const ZydisAccessedFlags *f;

		if (v->d->insn[i].kind == KJIT_I_LIMIT || faults_away(v, i) ||
		    dec_orig(v, &v->d->insn[i], &o))
			return false;
		f = o.i.cpu_flags;
		if (!f || (f->tested & clob & ~killed))
			return false;
		if ((o.i.attributes &
		     (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
		      ZYDIS_ATTRIB_HAS_REPNE)) ||
		    shift_by_maybe_zero(&o))
			continue; /* may run zero times / shift by 0 */
		killed |=
		    (f->modified | f->set_0 | f->set_1 | f->undefined) & clob;
	}
	return killed == clob;
}

/* A block with an instruction that faults away (faults_away): are the
 * flags written by the block before it, so that its fixup cannot read
 * them? True for a block without one. */
static bool fault_path_flags_dead(struct vfy *v)
{
	unsigned i;

	/* a compiled C function's entry: no path of it reads the caller's
	 * flags, its fixups' included (C keeps no flags across a call) */
	if (c_entry(v, v->d->start))
		return true;
	for (i = 0; i < v->d->n; i++)
		if (faults_away(v, i))
			return flags_dead_from(v, 0);
	return true;
}

/* ---- the verifier's own flags liveness ---------------------------------
 * Which arithmetic flags may be read from @a on before every path writes
 * them, decoded here from the original code (Zydis' cpu_flags), following
 * successors VFY_LIVE_DEPTH levels deep, anything unknown live. It shares
 * nothing with jit/liveness.c or jit/decode.c. Facts it takes: the ABI (C
 * reads no flags at a function's entry, after its ret, after a call it
 * makes, nor at a callee called through a pointer), and the environment (static-key sites, whose
 * two paths both count and cost no level in a run of them; static calls,
 * which are C calls, whatever the site holds; exception fixups, where a
 * faulting instruction's path goes on). A bare counter the translator puts where these flags
 * may be read, OF SF ZF AF PF (incq keeps CF), is an error. */
#define VFY_LIVE_DEPTH	4
#define VFY_LIVE_WINDOW 256
#define VFY_SITE_RUN	64
#define VFY_ARITH	0x8d5u /* OF SF ZF AF PF CF, at their EFLAGS bits */
#define VFY_CLOBBER	0x8d4u /* ... what incq writes */

/* what a walk carries: site levels left free, and whether a ret now goes
 * back into compiled C (the walk entered an assembly callee from C) */
struct vwalk {
	unsigned sites;
	bool ret_to_c;
	u64 ret_to; /* ... or where it goes back to (0: not known) */
};

static u32 vlive_at(struct vfy *v, u64 a, unsigned depth, struct vwalk *w);

/* a ret's function is compiled C: its caller reads no flags after it */
static bool ret_in_c(struct vfy *v, u64 a)
{
	u64 fn = func_of(v, a);

	return fn && fn < a && c_entry(v, fn);
}

/* Flags live after a ret at @a: none if it goes back into C; where the
 * walk entered this callee by a call, what is live after that call (the
 * walk then knows nothing of the caller's own return); else all. */
static u32 vlive_ret(struct vfy *v, u64 a, unsigned depth, struct vwalk *w)
{
	struct vwalk out = {w->sites, false, 0};
	u32 live;

	if (w->ret_to_c || ret_in_c(v, a))
		return 0;
	if (!w->ret_to)
		return VFY_ARITH;
	live = vlive_at(v, w->ret_to, depth, &out);
	w->sites = out.sites;
	return live;
}

/* Flags live after the transfer @o, @depth levels left. */
static u32 vlive_after(struct vfy *v, const struct dinsn *o, unsigned depth,
		       struct vwalk *w)
{
	u64 fall = o->addr + o->i.length, t = orig_target(o), tramp, site_to;
	bool direct = o->op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE, tail;
	bool static_call = v->env->static_call &&
			   v->env->static_call(v->env->opaque, o->addr, &tramp,
					       &tail);
	int reg;

	if (v->env->patch_site &&
	    v->env->patch_site(v->env->opaque, o->addr, &site_to)) {
		if (!w->sites)
			return VFY_ARITH;
		w->sites--; /* a run of sites: free of depth */
		return vlive_at(v, site_to, depth + 1, w) |
		       vlive_at(v, fall, depth + 1, w);
	}
	if (static_call) /* a C call, whatever the site holds today (a call,
			  * a jmp, a jcc, a ret): only a jcc's fall-through
			  * stays here */
		return o->i.meta.category == ZYDIS_CATEGORY_COND_BR
			   ? vlive_at(v, fall, depth, w)
			   : 0;
	if (o->i.mnemonic == ZYDIS_MNEMONIC_RET)
		return vlive_ret(v, o->addr, depth, w);
	if (o->i.mnemonic == ZYDIS_MNEMONIC_CALL) {
		bool to_c = w->ret_to_c;
		u64 to = w->ret_to;
		u32 live;

		if (!direct || sym_of(v, t, &reg) == KJIT_SYM_INDIRECT_THUNK)
			return 0; /* through a pointer */

		if (c_entry(v, t))
			return 0;
		/* an assembly callee: its ret comes back here, which is C
		 * (reads no flags after a call) if this function is */
		w->ret_to_c = ret_in_c(v, o->addr);
		w->ret_to = fall;
		live = vlive_at(v, t, depth, w);
		w->ret_to_c = to_c;
		w->ret_to = to;
		return live;
	}
	if (o->i.meta.category == ZYDIS_CATEGORY_COND_BR)
		return vlive_at(v, t, depth, w) | vlive_at(v, fall, depth, w);
	if (o->i.meta.category == ZYDIS_CATEGORY_UNCOND_BR && direct) {
		switch (sym_of(v, t, &reg)) {
		case KJIT_SYM_RETURN_THUNK:
			return vlive_ret(v, o->addr, depth, w);
		case KJIT_SYM_INDIRECT_THUNK:
			return VFY_ARITH;
		default:
			break;
		}
		if (c_entry(v, t))
			return 0; /* a tail call of C */
		return vlive_at(v, t, depth, w);
	}
	return VFY_ARITH; /* an indirect jmp, a trap, an iret ... */
}

static bool is_transfer_insn(const struct dinsn *o)
{
	switch (o->i.meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
		return true;
	default:
		return leaves_straight_line(o);
	}
}

static u32 vlive_at(struct vfy *v, u64 a, unsigned depth, struct vwalk *w)
{
	u32 need = 0, killed = 0;
	struct dinsn o;
	unsigned i;
	u64 ft;

	if (!depth)
		return VFY_ARITH;
	for (i = 0; i < VFY_LIVE_WINDOW; i++, a += o.i.length) {
		const ZydisAccessedFlags *f;
		bool site = v->env->patch_site &&
			    v->env->patch_site(v->env->opaque, a, &ft);
		/* an inline static_call site is a C call whatever it holds
		 * today, a nop5 or `xor %eax,%eax` (a NULL or RET0 target)
		 * as much as a call: vlive_after() says so */
		bool scall = v->env->static_call &&
			     v->env->static_call(v->env->opaque, a, &ft,
						 &(bool){0});

		if (dec_code(v, a, &o))
			break;
		if (is_fentry_site(v, &o))
			continue; /* a nop, or ftrace's call, which keeps them */
		/* a fault goes on at its fixup; a direct call's entry never
		 * fires (it only pushes: a fault in the callee has the
		 * callee's address), as faults_away() */
		if (env_fixup(v, a, &ft) == KJIT_FIXUP_EXIT &&
		    ft != a + o.i.length &&
		    !(o.i.mnemonic == ZYDIS_MNEMONIC_CALL &&
		      o.op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE))
			need |= vlive_at(v, ft, depth - 1, w) & ~killed;
		f = o.i.cpu_flags;
		if (!f) {
			need |= VFY_ARITH & ~killed;
		} else {
			need |= f->tested & VFY_ARITH & ~killed;
			if (!(o.i.attributes & (ZYDIS_ATTRIB_HAS_REP |
						ZYDIS_ATTRIB_HAS_REPE |
						ZYDIS_ATTRIB_HAS_REPNE)) &&
			    !shift_by_maybe_zero(&o))
				killed |= (f->modified | f->set_0 | f->set_1 |
					   f->undefined) &
					  VFY_ARITH;
		}
		if (killed == VFY_ARITH)
			return need;
		if (site || scall || is_transfer_insn(&o))
			return need | (vlive_after(v, &o, depth - 1, w) &
				       ~killed);
	}
	return need | (VFY_ARITH & ~killed);
}

/* Flags that may be read from the block's start on (0 at a compiled C
 * function's entry, and at a static call trampoline's: only static_call()
 * sites in C call it). */
static u32 vfy_live_in(struct vfy *v)
{
	struct vwalk w = {VFY_SITE_RUN, false, 0};

	if (c_entry(v, v->d->start) ||
	    (v->env->static_call_key &&
	     v->env->static_call_key(v->env->opaque, v->d->start)))
		return 0;
	return vlive_at(v, v->d->start, VFY_LIVE_DEPTH, &w);
}

/* ... and from @a on, the start of one successor */
static u32 vfy_live_from(struct vfy *v, u64 a)
{
	struct vwalk w = {VFY_SITE_RUN, false, 0};

	return vlive_at(v, a, VFY_LIVE_DEPTH, &w);
}

/* The block counter between @a and @end, before original instruction
 * b->ctr_at: its sequence, and the liveness facts that allow it. */
static int check_block_count(struct vfy *v, u64 a, u64 end)
{
	struct cseq c;
	unsigned k = v->b->ctr_at;
	u32 live;
	int r;

	if (v->b->seq == KJIT_SEQ_EDGES) /* check_jcc_edges() */
		return a == end ? 0
				: FAILF("code before +%llu in a block counted "
					"on its edges",
					(unsigned long long)(end - v->run));
	if (v->b->seq == KJIT_SEQ_NONE)
		return a == end ? 0
				: FAILF("code before +%llu in an uncounted "
					"block",
					(unsigned long long)(end - v->run));
	r = parse_count(v, a, &c);
	if (r > 0)
		return FAILF("no counter sequence at +%llu",
			     (unsigned long long)(a - v->run));
	if (r)
		return -1;
	if (c.end != end)
		return FAILF("counter sequence ends at +%llu, code at +%llu",
			     (unsigned long long)(c.end - v->run),
			     (unsigned long long)(end - v->run));
	if ((c.flags == KJIT_SEQ_INC) !=
	    (v->b->seq == KJIT_SEQ_INC || v->b->seq == KJIT_SEQ_MOVED))
		return FAILF("counter sequence is not the recorded one (%u)",
			     v->b->seq);
	if ((v->b->seq == KJIT_SEQ_MOVED && !k) ||
	    (v->b->seq == KJIT_SEQ_INC && k))
		return FAILF("counter at insn %u recorded as seq %u", k,
			     v->b->seq);
	if (v->b->seq == KJIT_SEQ_INC && !k &&
	    ((live = vfy_live_in(v)) & VFY_CLOBBER))
		return FAILF("bare inc at the entry although flags %#x may be "
			     "read (the verifier's own look-ahead)",
			     live);
	if (v->b->seq == KJIT_SEQ_INC && !k && !fault_path_flags_dead(v))
		return FAILF("bare inc at the entry, but a fault may leave "
			     "the block before the flags are written");
	if (k && v->d->insn[k - 1].shadow)
		return FAILF("counter in the interrupt shadow of insn %u",
			     k - 1);
	if (v->b->seq == KJIT_SEQ_MOVED && !flags_dead_from(v, k))
		return FAILF("bare inc moved to insn %u: flags not dead there",
			     k);
	if (c.reg >= 0 && !c.saved && !reg_dead_from(v, k, c.reg))
		return FAILF("counter register %d not dead at insn %u", c.reg,
			     k);
	return 0;
}

/* Entry: endbr64 (ibt), then the block counter when it is at the entry,
 * ending where the first instruction starts. Instructions before @first
 * were dropped (a seal the block's endbr64 stands for): a counter before
 * instruction @first is at the entry too. */
/* ---- guards (jit/flow.c): what each compares and where it goes are
 * derived from the original code and the environment's facts, the flags'
 * save from this file's own liveness ---- */

/* The immediate of @x's operand 1, sign-extended from its encoded width
 * to 64 bits. */
static u64 imm_sx(const struct dinsn *x)
{
	unsigned bits = x->i.raw.imm[0].size;
	u64 u = x->op[1].imm.value.u;

	if (bits && bits < 64 && (u >> (bits - 1) & 1))
		u |= ~0ull << bits;
	else if (bits && bits < 64)
		u &= (1ull << bits) - 1;
	return u;
}

/* Is @x `cmp $IMM, disp(%rip)` of @size bytes against @want_addr? */
static bool is_cmp_rip(const struct dinsn *x, unsigned size, u64 want_addr)
{
	u64 a;

	return x->i.mnemonic == ZYDIS_MNEMONIC_CMP &&
	       x->op[0].type == ZYDIS_OPERAND_TYPE_MEMORY &&
	       x->op[0].mem.base == ZYDIS_REGISTER_RIP &&
	       x->op[0].size == size * 8 &&
	       x->op[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
	       !abs_of(x, 0, &a) && a == want_addr;
}

/* The end of every guard, from *@a (past its jcc to @ok): [popfq] jmp
 * @native; ok: [popfq], popfq where @pushed. *@a moves past it. */
static int guard_tail(struct vfy *v, u64 *a, const char *what, bool pushed,
		      u64 ok, u64 native)
{
	struct dinsn x;
	u64 t;

	if (pushed) {
		if (dec_out(v, *a, &x) || x.i.mnemonic != ZYDIS_MNEMONIC_POPFQ)
			return FAILF("%s: native side without popfq", what);
		*a += x.i.length;
	}
	if (dec_out(v, *a, &x))
		return -1;
	if (x.i.mnemonic != ZYDIS_MNEMONIC_JMP)
		return FAILF("%s: no jmp to the native code", what);
	if (jmp_target(v, &x, &t))
		return -1;
	if (t != native)
		return FAILF("%s: the native side goes to %#llx, not %#llx",
			     what, (unsigned long long)t,
			     (unsigned long long)native);
	*a += x.i.length;
	if (*a != ok)
		return FAILF("%s: its jcc goes to %#llx, not past the native "
			     "side",
			     what, (unsigned long long)ok);
	if (pushed) {
		if (dec_out(v, *a, &x) || x.i.mnemonic != ZYDIS_MNEMONIC_POPFQ)
			return FAILF("%s: no popfq where the guard passes",
				     what);
		*a += x.i.length;
	}
	return 0;
}

/*
 * A guard from @a on: [pushfq] CMP je ok; [lock incq ctr(%rip)] [popfq]
 * jmp NATIVE; ok: [popfq]. @cmp_size, @cmp_at and @imm: the compare's
 * width, the address it reads and the value it wants; @ctr the counter
 * (0: none). The pushfq is required where this file's own look-ahead
 * finds the flags possibly read at the block's start, unless @called:
 * code only ever called or tail called from C, which leaves no flags
 * live across a call. *@a moves past it.
 */
static int check_guard(struct vfy *v, u64 *a, const char *what,
		       unsigned cmp_size, u64 cmp_at, u64 imm, u64 ctr,
		       u64 native, bool called)
{
	struct dinsn x;
	bool pushed;
	u64 ok, t;

	if (dec_out(v, *a, &x))
		return -1;
	pushed = x.i.mnemonic == ZYDIS_MNEMONIC_PUSHFQ;
	if (!pushed && !called && vfy_live_in(v))
		return FAILF("%s: the flags are live at the block's start "
			     "and not saved around the compare", what);
	if (pushed && (*a += x.i.length, dec_out(v, *a, &x)))
		return -1;
	if (!is_cmp_rip(&x, cmp_size, cmp_at) || imm_sx(&x) != imm) {
		u64 at = 0;

		abs_of(&x, 0, &at);
		return FAILF("%s: not cmp $%#llx of %u bytes at %#llx (found "
			     "%s $%#llx of %u bits at %#llx)",
			     what, (unsigned long long)imm, cmp_size,
			     (unsigned long long)cmp_at,
			     ZydisMnemonicGetString(x.i.mnemonic),
			     (unsigned long long)imm_sx(&x),
			     x.op[0].size, (unsigned long long)at);
	}
	*a += x.i.length;
	if (dec_out(v, *a, &x))
		return -1;
	if (x.i.mnemonic != ZYDIS_MNEMONIC_JZ || x.i.length != 2 ||
	    abs_of(&x, 0, &ok))
		return FAILF("%s: no je rel8 after the compare", what);
	*a += x.i.length;
	if (ctr) {
		if (dec_out(v, *a, &x))
			return -1;
		if (x.i.mnemonic != ZYDIS_MNEMONIC_INC ||
		    !(x.i.attributes & ZYDIS_ATTRIB_HAS_LOCK) ||
		    x.op[0].type != ZYDIS_OPERAND_TYPE_MEMORY ||
		    x.op[0].size != 64 || abs_of(&x, 0, &t) || t != ctr)
			return FAILF("%s: the native side does not count "
				     "in env->guard_counter", what);
		*a += x.i.length;
	}
	return guard_tail(v, a, what, pushed, ok, native);
}

/* A followed static call trampoline (env->static_call_key): its key's
 * func must still be what the trampoline's own code jumps to (its `jmp
 * F`, or 0 for a NULL call's ret), else the trampoline runs natively. */
static int check_static_call_guard(struct vfy *v, u64 *a, u64 key)
{
	struct dinsn o;
	u64 f;
	int reg;

	if (dec_code(v, v->d->start, &o))
		return FAILF("static call trampoline %#llx does not decode",
			     (unsigned long long)v->d->start);
	if (o.i.mnemonic == ZYDIS_MNEMONIC_JMP &&
	    o.op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
		f = orig_target(&o);
	else if (o.i.mnemonic == ZYDIS_MNEMONIC_RET && !o.i.operand_count_visible)
		f = 0;
	else
		return FAILF("a guard on trampoline %#llx, which is neither "
			     "jmp nor ret", (unsigned long long)v->d->start);
	/* a NULL call's ret, as a return-thunk kernel spells it */
	if (f && sym_of(v, f, &reg) == KJIT_SYM_RETURN_THUNK)
		f = 0;
	/* its callers: static_call() sites in C */
	return check_guard(v, a, "static call guard", 8, key, f, 0,
			   v->d->start, true);
}

/* Deep mode's entry guard (env->entry_guard): while the function's
 * __fentry__ site (after an endbr64 or its seal) still holds the 5-byte
 * nop (first byte 0f), the translation runs; else the function runs
 * natively from its start. */
static int check_entry_guard(struct vfy *v, u64 *a)
{
	u8 b[8] = {0};
	u64 fn = v->d->start;
	unsigned off;

	v->env->read_code(v->env->opaque, fn, b, sizeof(b));
	off = (!memcmp(b, "\xf3\x0f\x1e\xfa", 4) || is_seal(b)) ? 4 : 0;
	return check_guard(v, a, "entry guard", 1, fn + off, 0x0f,
			   v->env->guard_counter, fn, false);
}

/* An attached function's argument predicate (env->entry_pred;
 * jit/predicate.h): [pushfq] cmp lit(%rip),REG (test REG,lit(%rip) for
 * "any bit") in the predicate's width, REG its argument's by the calling
 * convention, lit holding its value; the jcc that is taken exactly when
 * the condition holds (unsigned); then the native side to the block's own
 * original. *@a moves past it. */
static int check_pred(struct vfy *v, u64 *a, const struct kjit_pred *p)
{
	static const ZydisRegister r64[6] = {
	    ZYDIS_REGISTER_RDI, ZYDIS_REGISTER_RSI, ZYDIS_REGISTER_RDX,
	    ZYDIS_REGISTER_RCX, ZYDIS_REGISTER_R8,  ZYDIS_REGISTER_R9};
	static const ZydisRegister r32[6] = {
	    ZYDIS_REGISTER_EDI, ZYDIS_REGISTER_ESI, ZYDIS_REGISTER_EDX,
	    ZYDIS_REGISTER_ECX, ZYDIS_REGISTER_R8D, ZYDIS_REGISTER_R9D};
	static const ZydisMnemonic jcc[KJIT_PRED_OPS] = {
	    [KJIT_PRED_EQ] = ZYDIS_MNEMONIC_JZ,
	    [KJIT_PRED_NE] = ZYDIS_MNEMONIC_JNZ,
	    [KJIT_PRED_LT] = ZYDIS_MNEMONIC_JB,
	    [KJIT_PRED_LE] = ZYDIS_MNEMONIC_JBE,
	    [KJIT_PRED_GT] = ZYDIS_MNEMONIC_JNBE,
	    [KJIT_PRED_GE] = ZYDIS_MNEMONIC_JNB,
	    [KJIT_PRED_ANY] = ZYDIS_MNEMONIC_JNZ};
	bool any = p->op == KJIT_PRED_ANY, pushed;
	const ZydisDecodedOperand *reg, *mem;
	u64 lit, val = 0, ok;
	struct dinsn x;

	if (p->op <= KJIT_PRED_NONE || p->op >= KJIT_PRED_OPS ||
	    p->arg >= 6 || (p->bits != 32 && p->bits != 64))
		return FAILF("the environment gives a malformed predicate");
	if (dec_out(v, *a, &x))
		return -1;
	pushed = x.i.mnemonic == ZYDIS_MNEMONIC_PUSHFQ;
	if (!pushed && vfy_live_in(v))
		return FAILF("predicate: the flags are live at the block's "
			     "start and not saved around the compare");
	if (pushed && (*a += x.i.length, dec_out(v, *a, &x)))
		return -1;
	/* cmp r, r/m: the register first; test r/m, r: the memory first */
	reg = &x.op[any ? 1 : 0];
	mem = &x.op[any ? 0 : 1];
	if (x.i.mnemonic != (any ? ZYDIS_MNEMONIC_TEST : ZYDIS_MNEMONIC_CMP) ||
	    reg->type != ZYDIS_OPERAND_TYPE_REGISTER ||
	    reg->reg.value != (p->bits == 64 ? r64 : r32)[p->arg] ||
	    mem->type != ZYDIS_OPERAND_TYPE_MEMORY ||
	    mem->mem.base != ZYDIS_REGISTER_RIP || mem->size != p->bits ||
	    abs_of(&x, any ? 0 : 1, &lit))
		return FAILF("predicate: not %s of arg%u's register (%u bits) "
			     "with a RIP-relative literal",
			     any ? "test" : "cmp", p->arg, p->bits);
	if (lit < v->run || lit + p->bits / 8 > v->run + v->b->len)
		return FAILF("predicate: its value is not in the block");
	memcpy(&val, v->buf + (lit - v->run), p->bits / 8);
	if (val != (p->bits == 32 ? (u32)p->value : p->value))
		return FAILF("predicate: the literal holds %#llx, not %#llx",
			     (unsigned long long)val,
			     (unsigned long long)p->value);
	*a += x.i.length;
	if (dec_out(v, *a, &x))
		return -1;
	if (x.i.mnemonic != jcc[p->op] || x.i.length != 2 || abs_of(&x, 0, &ok))
		return FAILF("predicate: not %s rel8 after the compare",
			     ZydisMnemonicGetString(jcc[p->op]));
	*a += x.i.length;
	return guard_tail(v, a, "predicate", pushed, ok, v->d->start);
}

/* A timed function's entry or return call (jit/timing.h) at *@a, with
 * the id the environment gives, when it gives one: push $fid; call
 * @helper; lea 8(%rsp),%rsp. Advances *@a past it. */
static int check_time_call(struct vfy *v, u64 *a, bool entry)
{
	u64 helper = entry ? v->env->time_enter : v->env->time_exit, t;
	int fid = v->env->time_fid && helper
		      ? v->env->time_fid(v->env->opaque, v->d->start, entry)
		      : -1;
	struct dinsn x;

	if (fid < 0)
		return 0;
	if (dec_out(v, *a, &x) || x.i.mnemonic != ZYDIS_MNEMONIC_PUSH ||
	    x.op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
	    x.op[0].imm.value.s != fid)
		return FAILF("timed %s at %#llx: no push $%d",
			     entry ? "entry" : "return",
			     (unsigned long long)*a, fid);
	*a += x.i.length;
	if (dec_out(v, *a, &x) || x.i.mnemonic != ZYDIS_MNEMONIC_CALL ||
	    abs_of(&x, 0, &t) || t != helper)
		return FAILF("timed %s: no call of its helper",
			     entry ? "entry" : "return");
	*a += x.i.length;
	if (dec_out(v, *a, &x) || x.i.mnemonic != ZYDIS_MNEMONIC_LEA ||
	    !is_reg64(&x.op[0], ZYDIS_REGISTER_RSP) ||
	    x.op[1].mem.base != ZYDIS_REGISTER_RSP ||
	    x.op[1].mem.index != ZYDIS_REGISTER_NONE ||
	    x.op[1].mem.disp.value != 8)
		return FAILF("timed %s: the stack not put back",
			     entry ? "entry" : "return");
	*a += x.i.length;
	return 0;
}

static int check_entry(struct vfy *v, u64 end, unsigned first)
{
	struct kjit_pred pred;
	u64 a = v->run, key;

	if (check_endbr(v, &a))
		return -1;
	key = v->env->static_call_key
		  ? v->env->static_call_key(v->env->opaque, v->d->start)
		  : 0;
	if (key && check_static_call_guard(v, &a, key))
		return -1;
	if (v->env->entry_guard &&
	    v->env->entry_guard(v->env->opaque, v->d->start) &&
	    check_entry_guard(v, &a))
		return -1;
	if (v->env->entry_pred &&
	    v->env->entry_pred(v->env->opaque, v->d->start, &pred) &&
	    check_pred(v, &a, &pred))
		return -1;
	if (check_time_call(v, &a, true))
		return -1;
	if (v->b->ctr_at > first)
		return a == end ? 0
				: FAILF("code before the first instruction, "
					"counter at insn %u",
					v->b->ctr_at);
	return check_block_count(v, a, end);
}

static u64 orig_target(const struct dinsn *o)
{
	u64 t = 0;

	abs_of(o, 0, &t);
	return t;
}

static bool is_loop(ZydisMnemonic m)
{
	return m == ZYDIS_MNEMONIC_LOOP || m == ZYDIS_MNEMONIC_LOOPE ||
	       m == ZYDIS_MNEMONIC_LOOPNE || m == ZYDIS_MNEMONIC_JRCXZ ||
	       m == ZYDIS_MNEMONIC_JECXZ;
}

/* push of the indirect target: register, or same memory operand (+adj) */
static int check_push_target(struct vfy *v, const struct dinsn *o, u64 a,
			     int reg, s64 adj, u64 *next)
{
	struct dinsn x;
	u64 aa = 0, ba = 0;

	if (dec_out(v, a, &x))
		return -1;
	*next = a + x.i.length;
	if (x.i.mnemonic != ZYDIS_MNEMONIC_PUSH)
		return FAILF("indirect: no push of target");
	if (reg >= 0)
		return (x.op[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
			(int)x.op[0].reg.value == (int)ZYDIS_REGISTER_RAX + reg)
			   ? 0
			   : FAILF("indirect: pushes wrong register");
	if (o->op[0].type == ZYDIS_OPERAND_TYPE_REGISTER)
		return (x.op[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
			x.op[0].reg.value == o->op[0].reg.value)
			   ? 0
			   : FAILF("indirect: pushes wrong register");
	if (x.op[0].type != ZYDIS_OPERAND_TYPE_MEMORY)
		return FAILF("indirect: push operand is not memory");
	if (o->op[0].mem.base == ZYDIS_REGISTER_RIP)
		abs_of(o, 0, &aa), abs_of(&x, 0, &ba);
	if (o->op[0].mem.base != ZYDIS_REGISTER_RSP)
		adj = 0;
	return same_mem(&o->op[0], aa, &x.op[0], ba, adj)
		   ? 0
		   : FAILF("indirect: memory operand differs");
}

/* classify a direct target through the environment */
static enum kjit_sym sym_of(struct vfy *v, u64 t, int *reg)
{
	enum kjit_sym s;

	*reg = -1;
	s = v->env->classify ? v->env->classify(v->env->opaque, t, reg)
			     : KJIT_SYM_NONE;
	/* a thunk through %rsp (or a bad register) cannot exist: plain target
	 */
	if (s == KJIT_SYM_INDIRECT_THUNK &&
	    (*reg < 0 || *reg > 15 || *reg == 4))
		return KJIT_SYM_NONE;
	return s;
}

static int check_call_ret_push(struct vfy *v, u64 a, u64 want, u64 *next)
{
	struct dinsn x;
	u64 val;

	if (dec_out(v, a, &x) || pushed_const(v, &x, &val))
		return -1;
	if (val != want)
		return FAILF("call pushes %#llx, want return address %#llx",
			     (unsigned long long)val, (unsigned long long)want);
	*next = a + x.i.length;
	return 0;
}

/* A call that leaves the cache (KJIT_SYM_LEAVE), in either call mode:
 * push of the original return address, then a direct jmp to the original
 * callee @t itself (no exit, no translation). */
static int check_leave_call(struct vfy *v, u64 a, u64 fall, u64 t)
{
	struct dinsn x;
	u64 xt;

	if (check_call_ret_push(v, a, fall, &a) || dec_out(v, a, &x))
		return -1;
	if (x.i.mnemonic != ZYDIS_MNEMONIC_JMP ||
	    x.op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
	    abs_of(&x, 0, &xt) || xt != t)
		return FAILF("leaving call: no direct jmp to the callee %#llx",
			     (unsigned long long)t);
	return 0;
}

static int check_ret(struct vfy *v, const struct dinsn *o, u64 a)
{
	struct dinsn x;
	u16 n = o->i.operand_count_visible ? (u16)o->op[0].imm.value.u : 0;

	if (n) {
		if (dec_out(v, a, &x) || x.i.mnemonic != ZYDIS_MNEMONIC_POP ||
		    x.op[0].mem.base != ZYDIS_REGISTER_RSP ||
		    x.op[0].mem.disp.value != n - 8)
			return FAILF("ret imm: bad pop");
		a += x.i.length;
		if (dec_out(v, a, &x) || x.i.mnemonic != ZYDIS_MNEMONIC_LEA ||
		    x.op[0].reg.value != ZYDIS_REGISTER_RSP ||
		    x.op[1].mem.disp.value != n - 8)
			return FAILF("ret imm: bad lea");
		a += x.i.length;
	}
	if (dec_out(v, a, &x))
		return -1;
	return check_dispatch_jmp(v, &x, false);
}

/* Skip an optional counter sequence (edge point) at @a. */
static int skip_count_seq(struct vfy *v, u64 a, u64 *after)
{
	struct cseq c;
	int r = parse_count(v, a, &c);

	*after = r ? a : c.end;
	if (r < 0)
		return -1;
	if (!r && c.reg >= 0 && !c.saved)
		return FAILF("edge counter through an unsaved register");
	return 0;
}

/* The exit branch at @a: optional edge counter, then the branch. */
static int dec_exit(struct vfy *v, u64 a, struct dinsn *x)
{
	if (dec_aligned(v, a, x))
		return -1;
	if (skip_count_seq(v, x->addr, &a))
		return -1;
	return dec_aligned(v, a, x);
}

/* condition code of a jcc (70+cc or 0f 80+cc) */
static int jcc_cond(const struct dinsn *x)
{
	return x->i.opcode & 0xf;
}

/* The block counter on one edge of a block counted on its edges: a bare
 * increment (check_jcc_edges: the flags dead at both successors, by the
 * verifier's own look-ahead), its register saved (none is proven dead
 * past a block). */
static int check_edge_count(struct vfy *v, u64 a, u64 *after)
{
	struct cseq c;
	int r = parse_count(v, a, &c);

	if (r)
		return r < 0 ? -1
			     : FAILF("no block counter on the edge at %#llx",
				     (unsigned long long)a);
	if (c.flags != KJIT_SEQ_INC)
		return FAILF("block counter on an edge saves the flags");
	if (c.reg >= 0 && !c.saved)
		return FAILF("block counter on an edge through an unsaved "
			     "register");
	*after = c.end;
	return 0;
}

/* A block counted on its jcc's edges (KJIT_SEQ_EDGES): j!cc skip; <inc>;
 * jmp exit(T); skip: <inc>; jmp exit(fall), and no instruction of the
 * block with an exception fixup (a fault would leave by neither edge). */
static int check_jcc_edges(struct vfy *v, const struct dinsn *o,
			   const struct dinsn *x, u64 t, u64 fall)
{
	struct dinsn y;
	u64 skip, a;
	unsigned i;
	u32 live;

	for (i = 0; i < v->d->n; i++)
		if (v->d->insn[i].fixup)
			return FAILF("block counted on its edges has a fixup "
				     "at insn %u",
				     i);
	/* a bare counter on each edge: the flags dead at both successors,
	 * by the verifier's own look-ahead; a tail static_call's jcc goes
	 * to a C function (through the trampoline), which reads none */
	live = vfy_live_from(v, fall);
	if (!(v->env->static_call &&
	      v->env->static_call(v->env->opaque, o->addr, &(u64){0},
				  &(bool){0})))
		live |= vfy_live_from(v, t);
	if (live & VFY_CLOBBER)
		return FAILF("block counted on its edges, but flags %#x may be "
			     "read after them (the verifier's own look-ahead)",
			     live);
	if (jcc_cond(x) != (jcc_cond(o) ^ 1) || abs_of(x, 0, &skip))
		return FAILF("block counted on its edges: no j!cc to the "
			     "second edge");
	if (check_edge_count(v, x->addr + x->i.length, &a) ||
	    dec_aligned(v, a, &y) || y.i.mnemonic != ZYDIS_MNEMONIC_JMP ||
	    check_exit_branch(v, &y, t))
		return -1;
	if (check_edge_count(v, skip, &a) || dec_aligned(v, a, &y) ||
	    y.i.mnemonic != ZYDIS_MNEMONIC_JMP)
		return FAILF("block counted on its edges: second edge");
	return check_exit_branch(v, &y, fall);
}

/* jcc: plain form (jcc exit(T); jmp exit(fall)), inverted plain form for a
 * forward jcc (j!cc exit(fall); jmp exit(T)), or j!cc skip; <edge>; jmp
 * exit0(T); skip: <edge>; jmp */
static int check_jcc(struct vfy *v, const struct dinsn *o, u64 a, u64 t,
		     u64 fall)
{
	struct dinsn x;
	u64 skip;

	if (dec_aligned(v, a, &x))
		return -1;
	if (v->b->seq == KJIT_SEQ_EDGES)
		return x.i.meta.category != ZYDIS_CATEGORY_COND_BR
			   ? FAILF("conditional branch %#llx not re-emitted",
				   (unsigned long long)o->addr)
			   : check_jcc_edges(v, o, &x, t, fall);
	if (x.i.meta.category != ZYDIS_CATEGORY_COND_BR ||
	    (jcc_cond(&x) != jcc_cond(o) && jcc_cond(&x) != (jcc_cond(o) ^ 1)))
		return FAILF("conditional branch %#llx not re-emitted",
			     (unsigned long long)o->addr);
	if (jcc_cond(&x) == jcc_cond(o)) {
		if (check_exit_branch(v, &x, t))
			return -1;
		if (dec_exit(v, x.addr + x.i.length, &x))
			return -1;
		return x.i.mnemonic != ZYDIS_MNEMONIC_JMP
			   ? FAILF("jcc: no fallthrough jmp")
			   : check_exit_branch(v, &x, fall);
	}
	if (abs_of(&x, 0, &skip))
		return FAILF("jcc skip target");
	if (skip - v->run >= v->b->body_len) {
		/* j!cc exit(fall); jmp exit(T): a forward jcc's likely path
		 * (not taken) first */
		if (t <= o->addr)
			return FAILF("jcc %#llx: a backward jcc inverted",
				     (unsigned long long)o->addr);
		if (check_exit_branch(v, &x, fall) ||
		    dec_exit(v, x.addr + x.i.length, &x))
			return -1;
		return x.i.mnemonic != ZYDIS_MNEMONIC_JMP
			   ? FAILF("jcc: no jmp to the target")
			   : check_exit_branch(v, &x, t);
	}
	if (dec_exit(v, x.addr + x.i.length, &x) || check_exit_branch(v, &x, t))
		return -1;
	return dec_exit(v, skip, &x) || check_exit_branch(v, &x, fall);
}

/* The inline prediction at @a of a followed call through @zreg, as emitted
 * (jit/flow.c): KJIT_PRED_WAYS ways, each [pad] cmp $0,%zreg (imm32
 * 4-aligned); [pad] je rel32 (4-aligned) to the next instruction, way k's
 * fields KJIT_PRED_STRIDE * k past the block's pred_imm_off/pred_jmp_off.
 * @next: after the last way (the dispatcher path). */
static int check_prediction(struct vfy *v, u64 a, ZydisRegister zreg,
			    u64 *next)
{
	struct dinsn c, j;
	u64 t, imm_at, rel_at;
	unsigned k;

	for (k = 0; k < KJIT_PRED_WAYS; k++, a = j.addr + j.i.length) {
		if (dec_aligned(v, a, &c) ||
		    c.i.mnemonic != ZYDIS_MNEMONIC_CMP ||
		    c.op[0].type != ZYDIS_OPERAND_TYPE_REGISTER ||
		    c.op[0].reg.value != zreg ||
		    c.op[1].type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
		    c.op[1].imm.value.u != 0 || c.i.raw.imm[0].size != 32)
			return FAILF("prediction way %u at %#llx: not cmp $0 "
				     "(imm32), %%reg",
				     k, (unsigned long long)a);
		imm_at = c.addr + c.i.raw.imm[0].offset;
		if (dec_aligned(v, c.addr + c.i.length, &j) ||
		    j.i.mnemonic != ZYDIS_MNEMONIC_JZ ||
		    j.i.length - j.i.raw.prefix_count != 6 || abs_of(&j, 0, &t))
			return FAILF("prediction way %u: no je rel32 after the "
				     "cmp",
				     k);
		rel_at = j.addr + j.i.length - 4;
		if (t != j.addr + j.i.length)
			return FAILF(
			    "prediction way %u: an empty way's je must "
			    "go on to the next instruction",
			    k);
		if ((imm_at | rel_at) & 3 ||
		    imm_at - v->run !=
			v->b->pred_imm_off + KJIT_PRED_STRIDE * k ||
		    rel_at - v->run !=
			v->b->pred_jmp_off + KJIT_PRED_STRIDE * k)
			return FAILF(
			    "prediction way %u: fields unaligned or not where "
			    "the block says (imm +%#llx/%#x, rel +%#llx/%#x)",
			    k, (unsigned long long)(imm_at - v->run),
			    v->b->pred_imm_off,
			    (unsigned long long)(rel_at - v->run),
			    v->b->pred_jmp_off);
	}
	*next = a;
	return 0;
}

/* followed indirect call (call thunk, call *reg, call *mem):
 *   call L; jmp exit(fall); L: [prediction: through a register, with
 *   predict_indirect_calls] push target (rsp-based +8); jmp dispatcher */
static int check_followed_call(struct vfy *v, const struct dinsn *o, u64 a,
			       int reg, u64 fall)
{
	struct dinsn x, j;
	ZydisRegister zreg;
	u64 l, next;

	if (dec_out(v, a, &x) || x.i.mnemonic != ZYDIS_MNEMONIC_CALL ||
	    x.op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE || abs_of(&x, 0, &l))
		return FAILF("followed call at %#llx: not call rel32",
			     (unsigned long long)o->addr);
	if (dec_exit(v, x.addr + x.i.length, &j) ||
	    check_exit_branch(v, &j, fall))
		return -1;
	if (l != j.addr + j.i.length)
		return FAILF("followed call at %#llx: call lands at +%#llx, "
			     "not after the return exit",
			     (unsigned long long)o->addr,
			     (unsigned long long)(l - v->run));
	zreg = reg >= 0 ? (ZydisRegister)(ZYDIS_REGISTER_RAX + reg)
	       : o->op[0].type == ZYDIS_OPERAND_TYPE_REGISTER
		   ? o->op[0].reg.value
		   : ZYDIS_REGISTER_NONE;
	if (v->predict_indirect_calls && zreg != ZYDIS_REGISTER_NONE) {
		if (check_prediction(v, l, zreg, &l))
			return -1;
	} else if (v->b->pred_imm_off) {
		return FAILF("followed call at %#llx: a prediction site where "
			     "none belongs",
			     (unsigned long long)o->addr);
	}
	return check_push_target(v, o, l, reg, 8, &next) ||
	       dec_out(v, next, &x) || check_dispatch_jmp(v, &x, true);
}

/* Is @x `mov %zreg, %gs:@disp` (@zreg NONE: `movq $@imm, %gs:@disp`, the
 * imm32 sign-extended) with an absolute disp32? */
static bool is_gs_store(const struct dinsn *x, ZydisRegister zreg, u64 disp,
			u64 imm)
{
	const ZydisDecodedOperand *m = &x->op[0], *s = &x->op[1];

	if (x->i.mnemonic != ZYDIS_MNEMONIC_MOV ||
	    m->type != ZYDIS_OPERAND_TYPE_MEMORY || m->size != 64 ||
	    m->mem.segment != ZYDIS_REGISTER_GS ||
	    m->mem.base != ZYDIS_REGISTER_NONE ||
	    m->mem.index != ZYDIS_REGISTER_NONE ||
	    (u64)m->mem.disp.value != disp)
		return false;
	if (zreg != ZYDIS_REGISTER_NONE)
		return s->type == ZYDIS_OPERAND_TYPE_REGISTER &&
		       s->reg.value == zreg;
	return s->type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
	       (u64)s->imm.value.s == imm;
}

/* push %rcx / pop %rcx at @a */
static int check_rcx(struct vfy *v, u64 a, ZydisMnemonic m, struct dinsn *x)
{
	if (dec_aligned(v, a, x) || x->i.mnemonic != m ||
	    x->op[0].type != ZYDIS_OPERAND_TYPE_REGISTER ||
	    x->op[0].reg.value != ZYDIS_REGISTER_RCX)
		return FAILF("jump prediction at %#llx: no %s %%rcx",
			     (unsigned long long)a,
			     m == ZYDIS_MNEMONIC_PUSH ? "push" : "pop");
	return 0;
}

/* Way @k of an indirect jmp's prediction at @a: [pad] lea 0(%zreg),%rcx
 * (disp32 4-aligned, where the block says); jrcxz to its hit stub (*hit).
 * @next: after it. */
static int check_jump_way(struct vfy *v, u64 a, ZydisRegister zreg, unsigned k,
			  u64 *hit, u64 *next)
{
	struct dinsn l, j;
	u64 disp_at;

	if (dec_aligned(v, a, &l) || l.i.mnemonic != ZYDIS_MNEMONIC_LEA ||
	    l.op[0].reg.value != ZYDIS_REGISTER_RCX ||
	    l.op[1].mem.base != zreg ||
	    l.op[1].mem.index != ZYDIS_REGISTER_NONE ||
	    l.op[1].mem.disp.value != 0 || l.i.raw.disp.size != 32)
		return FAILF("jump prediction way %u at %#llx: not lea "
			     "0(%%reg) (disp32),%%rcx",
			     k, (unsigned long long)a);
	disp_at = l.addr + l.i.raw.disp.offset;
	if (disp_at & 3 ||
	    disp_at - v->run !=
		v->b->pred_imm_off + KJIT_JPRED_WAY_STRIDE * (u64)k)
		return FAILF("jump prediction way %u: disp32 at +%#llx, "
			     "unaligned or not where the block says (+%#x)",
			     k, (unsigned long long)(disp_at - v->run),
			     v->b->pred_imm_off);
	if (dec_aligned(v, l.addr + l.i.length, &j) ||
	    j.i.mnemonic != ZYDIS_MNEMONIC_JRCXZ || abs_of(&j, 0, hit))
		return FAILF("jump prediction way %u: no jrcxz after the lea",
			     k);
	*next = j.addr + j.i.length;
	return 0;
}

/* Hit stub @k at @h: pop %rcx; [pad] jmp rel32 (4-aligned, where the block
 * says) to the site's miss path @m, as every way is empty. */
static int check_jump_hit(struct vfy *v, u64 h, unsigned k, u64 m)
{
	struct dinsn p, j;
	u64 t, rel_at;

	if (check_rcx(v, h, ZYDIS_MNEMONIC_POP, &p))
		return -1;
	if (dec_aligned(v, p.addr + p.i.length, &j) ||
	    j.i.mnemonic != ZYDIS_MNEMONIC_JMP ||
	    j.i.length - j.i.raw.prefix_count != 5 || abs_of(&j, 0, &t))
		return FAILF("jump prediction hit %u: no jmp rel32", k);
	rel_at = j.addr + j.i.length - 4;
	if (rel_at & 3 || rel_at - v->run != v->b->pred_jmp_off +
						 KJIT_JPRED_HIT_STRIDE * (u64)k)
		return FAILF("jump prediction hit %u: rel32 at +%#llx, "
			     "unaligned or not where the block says (+%#x)",
			     k, (unsigned long long)(rel_at - v->run),
			     v->b->pred_jmp_off);
	if (t != m)
		return FAILF("jump prediction hit %u: an empty way goes to "
			     "%#llx, not the miss path %#llx",
			     k, (unsigned long long)t, (unsigned long long)m);
	return 0;
}

/* An indirect jmp's inline prediction (jit/flow.c emit_predicted_jmp):
 * push %rcx; ways; pop %rcx; M: M itself (an aligned imm32) and the target
 * stored at jsite_gs; the site's own push of the target (@next). */
static int check_jump_prediction(struct vfy *v, u64 a, ZydisRegister zreg,
				 u64 *next)
{
	u64 hit[KJIT_PRED_WAYS], m, g = v->env->jsite_gs;
	struct dinsn x;
	unsigned k;

	if (check_rcx(v, a, ZYDIS_MNEMONIC_PUSH, &x))
		return -1;
	a = x.addr + x.i.length;
	for (k = 0; k < KJIT_PRED_WAYS; k++)
		if (check_jump_way(v, a, zreg, k, &hit[k], &a))
			return -1;
	if (check_rcx(v, a, ZYDIS_MNEMONIC_POP, &x))
		return -1;
	m = x.addr + x.i.length;
	if (m - v->run != v->b->jsite_off)
		return FAILF("jump prediction: miss path at +%#llx, the block "
			     "says +%#x",
			     (unsigned long long)(m - v->run), v->b->jsite_off);
	if (dec_aligned(v, m, &x) ||
	    !is_gs_store(&x, ZYDIS_REGISTER_NONE, g + 8, m) ||
	    x.i.raw.imm[0].size != 32 ||
	    x.i.raw.imm[0].offset != KJIT_JSITE_IMM_OFF ||
	    (m + KJIT_JSITE_IMM_OFF) & 3)
		return FAILF("jump prediction: the miss path does not begin "
			     "with its own address stored at %%gs:%#llx, "
			     "from an aligned imm32 %u bytes in",
			     (unsigned long long)(g + 8), KJIT_JSITE_IMM_OFF);
	a = x.addr + x.i.length;
	if (dec_aligned(v, a, &x) || !is_gs_store(&x, zreg, g, 0))
		return FAILF("jump prediction: the miss path does not store "
			     "the target at %%gs:%#llx",
			     (unsigned long long)g);
	for (k = 0; k < KJIT_PRED_WAYS; k++)
		if (check_jump_hit(v, hit[k], k, m))
			return -1;
	*next = x.addr + x.i.length;
	return 0;
}

/* An indirect jmp (through a thunk for register @reg, or its own operand,
 * @reg -1): [prediction, through a register with predict_indirect_jumps]
 * push target; jmp dispatcher (the flags-saving entry). */
static int check_jmp_ind(struct vfy *v, const struct dinsn *o, u64 a, int reg)
{
	ZydisRegister zreg = reg >= 0
				 ? (ZydisRegister)(ZYDIS_REGISTER_RAX + reg)
			     : o->op[0].type == ZYDIS_OPERAND_TYPE_REGISTER
				 ? o->op[0].reg.value
				 : ZYDIS_REGISTER_NONE;
	struct dinsn x;
	u64 next;

	if (v->b->jsite_off) {
		if (!v->predict_indirect_jumps || zreg == ZYDIS_REGISTER_NONE ||
		    zreg == ZYDIS_REGISTER_RSP || !v->env->jsite_gs)
			return FAILF("indirect jmp at %#llx: a prediction "
				     "where none belongs",
				     (unsigned long long)o->addr);
		if (check_jump_prediction(v, a, zreg, &a))
			return -1;
	} else if (v->b->pred_imm_off) {
		return FAILF("indirect jmp at %#llx: prediction fields without "
			     "a site",
			     (unsigned long long)o->addr);
	}
	return check_push_target(v, o, a, reg, 0, &next) ||
	       dec_out(v, next, &x) || check_dispatch_jmp(v, &x, false);
}

/* Is the original a slot of the return stack buffer filling sequence,
 * `call 1f; int3; 1:` (read from the code itself: e8 01 00 00 00 cc, no
 * prefix), and a direct call (1f no indirect thunk, which makes it an
 * indirect call through it)? */
static bool is_rsb_slot(struct vfy *v, const struct dinsn *o, u64 fall)
{
	u8 next = 0;
	int reg = -1;

	return o->op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
	       o->i.length == 5 &&
	       orig_target(o) == fall + 1 &&
	       sym_of(v, fall + 1, &reg) != KJIT_SYM_INDIRECT_THUNK &&
	       v->env->read_code(v->env->opaque, fall, &next, 1) == 1 &&
	       next == 0xcc;
}

/* ... in native-call mode: a real call over an int3 (call +1; int3), then
 * an exit to 1f; the block has no return site */
static int check_rsb_slot(struct vfy *v, const struct dinsn *o, u64 a, u64 fall)
{
	struct dinsn x;
	u64 xt;

	if (dec_out(v, a, &x) || x.i.mnemonic != ZYDIS_MNEMONIC_CALL ||
	    abs_of(&x, 0, &xt) || xt != x.addr + x.i.length + 1 ||
	    xt - v->run > v->b->len || v->buf[xt - 1 - v->run] != 0xcc)
		return FAILF("return stack buffer slot at %#llx: not `call "
			     "+1; int3`",
			     (unsigned long long)o->addr);
	if (v->b->ret_off)
		return FAILF("return stack buffer slot at %#llx: a return "
			     "site at +%#x",
			     (unsigned long long)o->addr, v->b->ret_off);
	return dec_exit(v, xt, &x) || check_exit_branch(v, &x, fall + 1);
}

/* native-call mode: call stays a call (to T), then an exit to the return
 * site; ret stays ret; jmp to the return thunk stays a jmp to it */
static int check_native_call(struct vfy *v, const struct dinsn *o, u64 a,
			     u64 fall)
{
	struct dinsn x;
	u64 t, xt;
	int reg = -1;

	if (is_rsb_slot(v, o, fall))
		return check_rsb_slot(v, o, a, fall);
	if (v->follow_indirect_calls &&
	    (o->op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
	     sym_of(v, orig_target(o), &reg) == KJIT_SYM_INDIRECT_THUNK))
		return check_followed_call(v, o, a, reg, fall);
	if (o->op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
		/* a call straight to a thunk, or a call exit to its stub
		 * (its rel32 aligned by prefixes) */
		if (dec_exit(v, a, &x))
			return -1;
		t = orig_target(o);
		if (x.i.mnemonic != ZYDIS_MNEMONIC_CALL || abs_of(&x, 0, &xt))
			return FAILF("native call at %#llx: not a call",
				     (unsigned long long)o->addr);
		if (xt != t && check_exit_branch(v, &x, t))
			return -1;
	} else if (dec_out(v, a, &x) || same_insn(v, o, &x)) {
		return -1;
	}
	return dec_exit(v, x.addr + x.i.length, &x) ||
	       check_exit_branch(v, &x, fall);
}

/* A leaving call that stays (kjit_env.stay_call, native-call mode): a
 * direct call of the helper in the callee's place, then the exit to the
 * instruction after the original call. */
static int check_stay_call(struct vfy *v, u64 a, u64 fall)
{
	struct dinsn x;
	u64 xt;

	if (dec_out(v, a, &x))
		return -1;
	if (x.i.mnemonic != ZYDIS_MNEMONIC_CALL ||
	    x.op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
	    abs_of(&x, 0, &xt) || xt != v->env->stay_call)
		return FAILF("staying call: no direct call of the helper %#llx",
			     (unsigned long long)v->env->stay_call);
	return dec_exit(v, x.addr + x.i.length, &x) ||
	       check_exit_branch(v, &x, fall);
}

/* The exit a site's path takes at @a: [popfq if @saved]; jmp exit(@want)
 * (an exit counter may come first, dec_exit). */
static int check_site_path(struct vfy *v, u64 a, bool saved, u64 want)
{
	struct dinsn x;

	if (saved) {
		if (dec_out(v, a, &x) || x.i.mnemonic != ZYDIS_MNEMONIC_POPFQ)
			return FAILF("site path at %#llx: no popfq",
				     (unsigned long long)a);
		a += x.i.length;
	}
	return dec_exit(v, a, &x) || check_exit_branch(v, &x, want);
}

/*
 * A static-key site (the environment's patch_site), as jit/flow.c draws
 * it: [pushfq]; cmpb $op, site(%rip), op the first byte of the jmp the
 * kernel writes there (e9 at a 5-byte site, eb at a 2-byte one,
 * <asm/jump_label.h>); then jcc exit; jmp exit (je to the jmp's target,
 * jne to the nop path), or je J; [popfq]; jmp exit(nop path); J: [popfq];
 * jmp exit(target). The flags are saved wherever the verifier's own
 * look-ahead finds any read after the site: the cmp writes all six (saved
 * where it finds none is only slower).
 */
static int check_site(struct vfy *v, const struct kjit_insn *in, u64 a,
		      u64 to)
{
	u64 fall = in->addr + in->len, m, j;
	u8 op = in->len == 2 ? 0xeb : 0xe9;
	u32 live = vfy_live_from(v, to) | vfy_live_from(v, fall);
	struct dinsn x, y;
	bool saved;

	if (dec_out(v, a, &x))
		return -1;
	saved = x.i.mnemonic == ZYDIS_MNEMONIC_PUSHFQ;
	if (!saved && (live & VFY_ARITH)) /* saved without need: allowed */
		return FAILF("site %#llx: flags not saved, but %#x may be read "
			     "after it (the verifier's own look-ahead)",
			     (unsigned long long)in->addr, live);
	if (saved && dec_out(v, x.addr + x.i.length, &x))
		return -1;
	if (x.i.mnemonic != ZYDIS_MNEMONIC_CMP ||
	    x.op[0].type != ZYDIS_OPERAND_TYPE_MEMORY ||
	    x.op[0].size != 8 || abs_of(&x, 0, &m) || m != in->addr ||
	    x.op[1].type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
	    (u8)x.op[1].imm.value.u != op)
		return FAILF("site %#llx: no cmpb $%#x, site(%%rip)",
			     (unsigned long long)in->addr, op);
	if (dec_aligned(v, x.addr + x.i.length, &y) ||
	    y.i.meta.category != ZYDIS_CATEGORY_COND_BR ||
	    (jcc_cond(&y) != 4 && jcc_cond(&y) != 5))
		return FAILF("site %#llx: no je or jne after the cmp",
			     (unsigned long long)in->addr);
	if (y.i.raw.imm[0].size == 32) { /* jcc exit; jmp exit */
		bool eq = jcc_cond(&y) == 4;

		if (saved || check_exit_branch(v, &y, eq ? to : fall) ||
		    dec_exit(v, y.addr + y.i.length, &x))
			return saved ? FAILF("site %#llx: flags saved but "
					     "never restored",
					     (unsigned long long)in->addr)
				     : -1;
		return check_exit_branch(v, &x, eq ? fall : to);
	}
	if (jcc_cond(&y) != 4 || abs_of(&y, 0, &j)) /* je J */
		return FAILF("site %#llx: no je J after the cmp",
			     (unsigned long long)in->addr);
	return check_site_path(v, y.addr + y.i.length, saved, fall) ||
	       check_site_path(v, j, saved, to);
}

static int check_term(struct vfy *v, const struct kjit_insn *in, u64 a)
{
	struct dinsn o, x;
	u64 fall = in->addr + in->len, t, next, site_to;
	int reg;
	enum kjit_sym s;

	if (in->kind == KJIT_I_LIMIT) {
		if (dec_exit(v, a, &x))
			return -1;
		return check_exit_branch(v, &x, in->addr);
	}
	if (v->env->patch_site &&
	    v->env->patch_site(v->env->opaque, in->addr, &site_to))
		return check_site(v, in, a, site_to);
	if (dec_orig(v, in, &o))
		return -1;
	t = orig_target(&o);
	switch (o.i.meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		if (!is_loop(o.i.mnemonic))
			return check_jcc(v, &o, a, t, fall);
		if (dec_aligned(v, a, &x) || x.i.mnemonic != o.i.mnemonic)
			return FAILF("loop %#llx not re-emitted",
				     (unsigned long long)in->addr);
		{
			u64 over;

			if (abs_of(&x, 0, &over))
				return FAILF("loop target");
			if (dec_exit(v, x.addr + x.i.length, &x) ||
			    check_exit_branch(v, &x, fall))
				return -1;
			return dec_exit(v, over, &x) ||
			       check_exit_branch(v, &x, t);
		}
	case ZYDIS_CATEGORY_UNCOND_BR:
		if (o.op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			s = sym_of(v, t, &reg);
			if (s == KJIT_SYM_RETURN_THUNK && v->native_calls) {
				u64 xt;

				return check_time_call(v, &a, false) ||
				       dec_out(v, a, &x) ||
					       x.i.mnemonic !=
						   ZYDIS_MNEMONIC_JMP ||
					       abs_of(&x, 0, &xt) || xt != t
					   ? FAILF("native ret thunk jmp")
					   : 0;
			}
			if (s == KJIT_SYM_RETURN_THUNK)
				return dec_out(v, a, &x) ||
				       check_dispatch_jmp(v, &x, false);
			if (s == KJIT_SYM_INDIRECT_THUNK)
				return check_jmp_ind(v, &o, a, reg);
			return dec_exit(v, a, &x) ||
			       check_exit_branch(v, &x, t);
		}
		return check_jmp_ind(v, &o, a, -1);
	case ZYDIS_CATEGORY_CALL:
		if (o.op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		    sym_of(v, t, &reg) == KJIT_SYM_LEAVE)
			return v->native_calls && v->env->stay_call
				   ? check_stay_call(v, a, fall)
				   : check_leave_call(v, a, fall, t);
		if (v->native_calls)
			return check_native_call(v, &o, a, fall);
		if (check_call_ret_push(v, a, fall, &next))
			return -1;
		if (o.op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			s = sym_of(v, t, &reg);
			if (s == KJIT_SYM_INDIRECT_THUNK)
				return check_push_target(v, &o, next, reg, 0,
							 &next) ||
				       dec_out(v, next, &x) ||
				       check_dispatch_jmp(v, &x, true);
			return dec_exit(v, next, &x) ||
			       check_exit_branch(v, &x, t);
		}
		return check_push_target(v, &o, next, -1, 8, &next) ||
		       dec_out(v, next, &x) || check_dispatch_jmp(v, &x, true);
	case ZYDIS_CATEGORY_RET:
		if (v->native_calls)
			return check_time_call(v, &a, false) ||
			       dec_out(v, a, &x) || same_insn(v, &o, &x);
		return check_ret(v, &o, a);
	default:
		return FAILF("terminator %#llx has unexpected category",
			     (unsigned long long)in->addr);
	}
}

/* An instruction the translator may leave out: a call to __fentry__, or
 * with IBT an endbr64 or its seal opening the block, which the block's own
 * endbr64 stands for. */
static int check_dropped(struct vfy *v, const struct kjit_insn *in, unsigned i)
{
	static const u8 endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	struct dinsn o;
	int reg;

	if (dec_orig(v, in, &o))
		return -1;
	if (v->ibt && i == 0 && in->len == 4 &&
	    (!memcmp(in->bytes, endbr64, 4) || is_seal(in->bytes)))
		return 0;
	if (o.i.meta.category != ZYDIS_CATEGORY_CALL ||
	    sym_of(v, orig_target(&o), &reg) != KJIT_SYM_FENTRY)
		return FAILF("dropped insn at %#llx is not call __fentry__%s",
			     (unsigned long long)in->addr,
			     v->ibt ? " nor an opening endbr64/seal" : "");
	return 0;
}

/* The environment's word on the fixup of the instruction at @a. */
static enum kjit_fixup env_fixup(struct vfy *v, u64 a, u64 *target)
{
	*target = 0;
	if (v->env->fixup)
		return v->env->fixup(v->env->opaque, a, target);
	return v->env->has_fixup && v->env->has_fixup(v->env->opaque, a)
		   ? KJIT_FIXUP_NATIVE
		   : KJIT_FIXUP_NONE;
}

/* Instructions with exception-table entries, by the environment: at most
 * one, copied as a body instruction, the counter before it (EXIT: a fault
 * leaves the block; NEXT: its fixup is the very next instruction, nothing
 * may come between), and an EXIT one's landing is an exit to its fixup. */
static int check_fixups(struct vfy *v, const struct kjit_block_desc *d)
{
	const struct kjit_block *b = v->b;
	enum kjit_fixup k, want_kind = KJIT_FIXUP_NONE;
	unsigned i, at = 0xff;
	u64 t, want_t = 0;
	struct dinsn x;

	for (i = 0; i < d->n; i++) {
		/* a dropped instruction (checked by check_dropped) never
		 * runs: its entry, if any, cannot matter */
		if (d->insn[i].kind == KJIT_I_LIMIT ||
		    (i + 1 < d->n && b->insn_off[i] == 0xffff))
			continue;
		k = env_fixup(v, d->insn[i].addr, &t);
		if (k == KJIT_FIXUP_NONE)
			continue;
		/* a direct call (an alternative patched to one) cannot fault
		 * on its entry's behalf: it needs none, wherever it is */
		if (is_direct_call(v, &d->insn[i]))
			continue;
		if (k == KJIT_FIXUP_EXIT &&
		    t == d->insn[i].addr + d->insn[i].len)
			k = KJIT_FIXUP_NEXT;
		if (k == KJIT_FIXUP_NATIVE || at != 0xff || i + 1 == d->n)
			return FAILF(
			    "instruction at %#llx with a fixup (%d) in "
			    "the block",
			    (unsigned long long)d->insn[i].addr, k);
		at = i, want_kind = k, want_t = t;
	}
	if (b->fix_insn != at ||
	    (at != 0xff &&
	     (b->fix_kind != want_kind || b->fix_off != b->insn_off[at])))
		return FAILF("fixup instruction %u (kind %u at +%u), want %u",
			     b->fix_insn, b->fix_kind, b->fix_off, at);
	if (at == 0xff)
		return 0;
	if (want_kind == KJIT_FIXUP_NEXT) {
		/* the next instruction that is emitted (dropped ones do
		 * nothing), with nothing before it */
		for (i = at + 1; i + 1 < d->n && b->insn_off[i] == 0xffff; i++)
			;
		return b->insn_off[i] == b->fix_off + d->insn[at].len &&
			       (b->ctr_at <= at || b->ctr_at > i)
			   ? 0
			   : FAILF("code between insn %u (a fixup to the next "
				   "instruction, +%u, %u bytes) and insn %u "
				   "(+%u; counter before insn %u)",
				   at, b->fix_off, d->insn[at].len, i,
				   b->insn_off[i], b->ctr_at);
	}
	if (b->ctr_at > at)
		return FAILF("block counter after the fixup instruction");
	if (dec_aligned(v, v->run + b->fix_land_off, &x))
		return -1;
	if (x.i.mnemonic != ZYDIS_MNEMONIC_JMP)
		return FAILF("fixup landing is not a jmp");
	return check_exit_branch(v, &x, want_t);
}

/* A static_call site's instruction as described: the branch to the
 * site's trampoline that the site stands for, whatever it holds today
 * (arch/x86/kernel/static_call.c keeps a call site a call, a tail site a
 * jmp, or the jcc it was compiled as): call rel32 (not a tail), jmp rel32
 * or, where the code holds that jcc, the same jcc rel32 (a tail). */
static int check_static_call_desc(struct vfy *v, const struct kjit_insn *in,
				  const u8 *code, size_t n, u64 tramp,
				  bool tail)
{
	struct dinsn o;
	u64 t;
	bool jcc = n >= 2 && code[0] == 0x0f && (code[1] & 0xf0) == 0x80;

	if (dec_orig(v, in, &o) || o.i.length != (jcc && tail ? 6 : 5) ||
	    o.op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE || abs_of(&o, 0, &t))
		return FAILF("static_call site %#llx: not a rel32 branch",
			     (unsigned long long)in->addr);
	if (t != tramp)
		return FAILF("static_call site %#llx: goes to %#llx, not its "
			     "trampoline %#llx",
			     (unsigned long long)in->addr,
			     (unsigned long long)t, (unsigned long long)tramp);
	if (!tail ? o.i.mnemonic != ZYDIS_MNEMONIC_CALL
		  : jcc ? memcmp(in->bytes, code, 2) != 0
			: o.i.mnemonic != ZYDIS_MNEMONIC_JMP)
		return FAILF("static_call site %#llx: a %s site is not a %s",
			     (unsigned long long)in->addr,
			     tail ? "tail" : "call",
			     !tail ? "call" : jcc ? "jcc of its own condition"
						  : "jmp");
	return 0;
}

/* The block's instructions are the code's: each one's bytes are what
 * read_code() gives at its address, but for the two the kernel rewrites
 * at will: an ftrace site (a nop5 in the copy, spelled here) and an inline
 * static_call site (check_static_call_desc). Everything else here decodes
 * the description, so a translator that decoded or kept the wrong bytes
 * would otherwise be checked against its own mistake. */
static int check_desc_bytes(struct vfy *v, const struct kjit_block_desc *d)
{
	static const u8 nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
	u8 code[16];
	unsigned i;
	size_t n;
	u64 tramp;
	bool tail;

	for (i = 0; i < d->n; i++) {
		const struct kjit_insn *in = &d->insn[i];

		n = v->env->read_code(v->env->opaque, in->addr, code,
				      sizeof(code));
		if (n < in->len)
			return FAILF("insn at %#llx: %u bytes described, %zu "
				     "readable",
				     (unsigned long long)in->addr, in->len, n);
		if (v->env->static_call &&
		    v->env->static_call(v->env->opaque, in->addr, &tramp,
					&tail)) {
			if (check_static_call_desc(v, in, code, n, tramp, tail))
				return -1;
			continue;
		}
		if (v->env->ftrace_site && in->len == 5 &&
		    v->env->ftrace_site(v->env->opaque, in->addr) &&
		    !memcmp(in->bytes, nop5, 5))
			continue;
		if (memcmp(in->bytes, code, in->len))
			return FAILF("insn at %#llx: described bytes are not "
				     "the code's",
				     (unsigned long long)in->addr);
	}
	return 0;
}

int vfy_block(struct vfy *v, const struct kjit_block_desc *d,
	      const struct kjit_block *b, const u8 *buf, u64 run)
{
	u64 a;
	unsigned i, first = 0;
	struct dinsn o, x;

	v->d = d, v->b = b, v->buf = buf, v->run = run, v->msg[0] = 0;
	if (b->n_insns != d->n || !d->n)
		return FAILF("instruction count mismatch");
	if (check_desc_bytes(v, d) || check_fixups(v, d))
		return -1;
	while (first + 1 < d->n && b->insn_off[first] == 0xffff)
		first++;
	a = run + b->insn_off[first];
	if (check_entry(v, a, first))
		return -1;
	for (i = 0; i + 1 < d->n; i++) {
		if (b->insn_off[i] == 0xffff) {
			if (check_dropped(v, &d->insn[i], i))
				return -1;
			continue;
		}
		if (i > first && i == b->ctr_at) {
			if (check_block_count(v, a, run + b->insn_off[i]))
				return -1;
			a = run + b->insn_off[i];
		}
		if (run + b->insn_off[i] != a)
			return FAILF("gap before copy of %#llx",
				     (unsigned long long)d->insn[i].addr);
		if (dec_orig(v, &d->insn[i], &o) || dec_out(v, a, &x) ||
		    same_insn(v, &o, &x))
			return -1;
		if (o.i.meta.category == ZYDIS_CATEGORY_COND_BR ||
		    o.i.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
		    o.i.meta.category == ZYDIS_CATEGORY_RET ||
		    o.i.meta.category == ZYDIS_CATEGORY_CALL)
			return FAILF("transfer at %#llx copied as body",
				     (unsigned long long)o.addr);
		a += x.i.length;
	}
	if (d->n > 1 && b->ctr_at == d->n - 1) {
		if (check_block_count(v, a, run + b->insn_off[d->n - 1]))
			return -1;
		a = run + b->insn_off[d->n - 1];
	}
	if (run + b->insn_off[d->n - 1] != a)
		return FAILF("gap before terminator");
	return check_term(v, &d->insn[d->n - 1], a);
}
