/* decode.c - block discovery: Zydis decode + classification of each
 * instruction into what the translator must do with it.
 *
 * Invariants:
 *  - Raw field offsets are all the copy needs; operands are decoded only
 *    for the register effects (set_regs).
 *  - A refused instruction refuses the whole block; the reason is the first
 *    one met in program order.
 *  - Flag effects are conservative: flags_read may over-approximate,
 *    flags_kill may only under-approximate (a shift/rotate by a count that
 *    can be zero, or a rep-prefixed cmps/scas with a count that can be
 *    zero, leaves flags untouched, so it kills nothing).
 *  - Register effects likewise: regs_read has every GPR an operand
 *    (visible or hidden, address registers included) may read, regs_kill
 *    only GPRs written whole on every execution (a 64-bit write, or a
 *    32-bit one, which zeroes the upper half); a partial (8/16-bit) or
 *    conditional write kills nothing. They need Zydis' operand decoding,
 *    the one place it is used here, and only for a block's own
 *    instructions when it is instrumented (else "unknown": reads all).
 */
#include "jit/decode.h"
#include "jit/translate.h"

/* Mnemonics that must never run from a copy, with their reason. */
static const struct {
	ZydisMnemonic m;
	u8 reason;
} refused_mnemonics[] = {
    {ZYDIS_MNEMONIC_IRET, KJIT_R_PRIVILEGED_FLOW},
    {ZYDIS_MNEMONIC_IRETD, KJIT_R_PRIVILEGED_FLOW},
    {ZYDIS_MNEMONIC_IRETQ, KJIT_R_PRIVILEGED_FLOW},
    {ZYDIS_MNEMONIC_SYSRET, KJIT_R_PRIVILEGED_FLOW},
    {ZYDIS_MNEMONIC_SYSEXIT, KJIT_R_PRIVILEGED_FLOW},
    {ZYDIS_MNEMONIC_SYSCALL, KJIT_R_PRIVILEGED_FLOW},
    {ZYDIS_MNEMONIC_SYSENTER, KJIT_R_PRIVILEGED_FLOW},
    {ZYDIS_MNEMONIC_SWAPGS, KJIT_R_PRIVILEGED_FLOW},
    {ZYDIS_MNEMONIC_INT3, KJIT_R_TRAP},
    {ZYDIS_MNEMONIC_INT, KJIT_R_TRAP},
    {ZYDIS_MNEMONIC_INTO, KJIT_R_TRAP},
    {ZYDIS_MNEMONIC_INT1, KJIT_R_TRAP},
    {ZYDIS_MNEMONIC_UD0, KJIT_R_TRAP},
    {ZYDIS_MNEMONIC_UD1, KJIT_R_TRAP},
    {ZYDIS_MNEMONIC_UD2, KJIT_R_TRAP},
    {ZYDIS_MNEMONIC_HLT, KJIT_R_TRAP},
    {ZYDIS_MNEMONIC_VMLAUNCH, KJIT_R_VMX},
    {ZYDIS_MNEMONIC_VMRESUME, KJIT_R_VMX},
    {ZYDIS_MNEMONIC_VMRUN, KJIT_R_VMX},
    {ZYDIS_MNEMONIC_XBEGIN, KJIT_R_TSX},
    {ZYDIS_MNEMONIC_XABORT, KJIT_R_TSX},
    {ZYDIS_MNEMONIC_XEND, KJIT_R_TSX},
};

static enum kjit_reason refused_mnemonic(ZydisMnemonic m)
{
	unsigned i;

	for (i = 0; i < KJIT_ARRAY_SIZE(refused_mnemonics); i++)
		if (refused_mnemonics[i].m == m)
			return (enum kjit_reason)refused_mnemonics[i].reason;
	return KJIT_OK;
}

static bool count_may_be_zero(const ZydisDecodedInstruction *zi)
{
	switch (zi->mnemonic) {
	case ZYDIS_MNEMONIC_SHL:
	case ZYDIS_MNEMONIC_SHR:
	case ZYDIS_MNEMONIC_SAR:
	case ZYDIS_MNEMONIC_ROL:
	case ZYDIS_MNEMONIC_ROR:
	case ZYDIS_MNEMONIC_RCL:
	case ZYDIS_MNEMONIC_RCR:
	case ZYDIS_MNEMONIC_SHLD:
	case ZYDIS_MNEMONIC_SHRD:
		/* d0/d1: count is the constant 1 */
		return !(zi->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT &&
			 (zi->opcode == 0xd0 || zi->opcode == 0xd1));
	default:
		return false;
	}
}

/* A rep/repe/repne string instruction runs zero times with rcx = 0 and
 * then leaves the flags as they were (cmps/scas write them otherwise).
 * Zydis reports these prefixes only where the instruction accepts them. */
static bool rep_may_be_zero(const ZydisDecodedInstruction *zi)
{
	return zi->attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
				 ZYDIS_ATTRIB_HAS_REPNE);
}

static void set_flags(const ZydisDecodedInstruction *zi, struct kjit_insn *in)
{
	const ZydisAccessedFlags *f = zi->cpu_flags;

	if (!f) { /* unknown: reads everything, kills nothing */
		in->flags_read = KX86_FLAGS_ARITH;
		in->flags_kill = 0;
		return;
	}
	in->flags_read = (u16)(f->tested & KX86_FLAGS_ARITH);
	in->flags_kill =
	    (u16)((f->modified | f->set_0 | f->set_1 | f->undefined) &
		  KX86_FLAGS_ARITH);
	if (count_may_be_zero(zi) || rep_may_be_zero(zi))
		in->flags_kill = 0;
}

/* GPR bit of Zydis register @r (any width, ah..bh included), 0 if @r is
 * not a general purpose register. */
static u16 gpr_bit(ZydisRegister r)
{
	switch (ZydisRegisterGetClass(r)) {
	case ZYDIS_REGCLASS_GPR8:
	case ZYDIS_REGCLASS_GPR16:
	case ZYDIS_REGCLASS_GPR32:
	case ZYDIS_REGCLASS_GPR64:
		r = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64,
						     r);
		if (r >= ZYDIS_REGISTER_RAX && r <= ZYDIS_REGISTER_R15)
			return (u16)(1u << (r - ZYDIS_REGISTER_RAX));
		return 0;
	default:
		return 0;
	}
}

/* xor/sub of a 32- or 64-bit register with itself: the zeroing idiom
 * writes the register without depending on it. */
static bool zeroing_idiom(const ZydisDecodedInstruction *zi,
			  const ZydisDecodedOperand *op)
{
	return (zi->mnemonic == ZYDIS_MNEMONIC_XOR ||
		zi->mnemonic == ZYDIS_MNEMONIC_SUB) &&
	       zi->operand_count_visible == 2 &&
	       op[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
	       op[1].type == ZYDIS_OPERAND_TYPE_REGISTER &&
	       op[0].reg.value == op[1].reg.value && op[0].size >= 32;
}

/* One operand's effect on the GPRs. */
static void operand_regs(const ZydisDecodedOperand *op, u16 *rd, u16 *kill)
{
	u16 b;

	if (op->type == ZYDIS_OPERAND_TYPE_MEMORY) {
		*rd |= gpr_bit(op->mem.base) | gpr_bit(op->mem.index);
		return;
	}
	if (op->type != ZYDIS_OPERAND_TYPE_REGISTER)
		return;
	b = gpr_bit(op->reg.value);
	if (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
		*rd |= b;
	if ((op->actions & ZYDIS_OPERAND_ACTION_WRITE) && op->size >= 32)
		*kill |= b;
}

/* in->regs_read/regs_kill of the instruction just decoded into tr->zi;
 * unknown operands read everything and kill nothing. */
static void set_regs(struct kjit_translator *tr, struct kjit_insn *in)
{
	const ZydisDecodedInstruction *zi = tr->zi;
	u16 rd = 0, kill = 0;
	unsigned i;

	in->regs_read = 0xffff;
	in->regs_kill = 0;
	if (tr->memo_cur->regs) {
		in->regs_read = tr->memo_cur->regs_read;
		in->regs_kill = tr->memo_cur->regs_kill;
		return;
	}
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeOperands(
		&tr->dec, tr->zctx, zi, tr->zop, zi->operand_count)))
		return;
	if (zeroing_idiom(zi, tr->zop)) {
		in->regs_read = 0;
		in->regs_kill = gpr_bit(tr->zop[0].reg.value);
	} else {
		for (i = 0; i < zi->operand_count; i++)
			operand_regs(&tr->zop[i], &rd, &kill);
		in->regs_read = rd;
		in->regs_kill = kill & ~rd;
	}
	tr->memo_cur->regs_read = in->regs_read;
	tr->memo_cur->regs_kill = in->regs_kill;
	tr->memo_cur->regs = true;
}

/* sti and mov to %ss hold interrupts (and, for mov ss, debug traps) off
 * until the next instruction has run: `sti; hlt` is atomic. pop %ss is
 * invalid in 64-bit mode (Zydis rejects it). */
static bool irq_shadow(const ZydisDecodedInstruction *zi)
{
	return zi->mnemonic == ZYDIS_MNEMONIC_STI ||
	       (zi->mnemonic == ZYDIS_MNEMONIC_MOV &&
		zi->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT &&
		zi->opcode == KX86_OP_MOV_SREG &&
		zi->raw.modrm.reg == KX86_SREG_SS);
}

/* `call 1f; int3; 1:` (e8 01 00 00 00 cc): a slot of the return stack
 * buffer filling sequence (FILL_RETURN_BUFFER), not a call of a function */
static bool is_rsb_slot(const u8 *b)
{
	return b[0] == KX86_OP_CALL32 && b[1] == 1 && !b[2] && !b[3] && !b[4] &&
	       b[5] == KX86_OP_INT3;
}

static u64 rel_target(const ZydisDecodedInstruction *zi,
		      const struct kjit_insn *in)
{
	return in->addr + in->len + (u64)zi->raw.imm[0].value.s;
}

/* Direct rel8/rel32 branch or call: fill kind/target/rel_off. */
static enum kjit_reason classify_direct(struct kjit_translator *tr,
					const ZydisDecodedInstruction *zi,
					struct kjit_insn *in, u8 kind)
{
	const struct kjit_env *env = tr->env;
	int reg = -1;
	enum kjit_sym sym = KJIT_SYM_NONE;

	in->kind = kind;
	in->target = rel_target(zi, in);
	in->rel_off = zi->raw.imm[0].offset;
	if (kind == KJIT_I_LOOP || !env->classify)
		return KJIT_OK;
	sym = env->classify(env->opaque, in->target, &reg);
	if (sym == KJIT_SYM_NONE)
		return KJIT_OK;
	if (sym == KJIT_SYM_TRANSIENT)
		return KJIT_R_TRANSIENT_TARGET;
	if (sym == KJIT_SYM_LEAVE) {
		in->leave = kind == KJIT_I_CALL;
		return KJIT_OK;
	}
	if (kind == KJIT_I_JCC)
		return KJIT_R_THUNK_COND;
	if (sym == KJIT_SYM_FENTRY && kind == KJIT_I_CALL) {
		in->kind = KJIT_I_DROP;
	} else if (sym == KJIT_SYM_RETURN_THUNK && kind == KJIT_I_JMP) {
		in->kind = KJIT_I_RET;
	} else if (sym == KJIT_SYM_INDIRECT_THUNK && reg >= 0 &&
		   reg < KX86_NREGS && reg != KX86_RSP) {
		in->kind =
		    kind == KJIT_I_CALL ? KJIT_I_CALL_IND : KJIT_I_JMP_IND;
		in->reg = (u8)reg;
	}
	return KJIT_OK;
}

/* ff /2 /3 /4 /5: near indirect call/jmp (far forms refused). */
static enum kjit_reason classify_grp5(const ZydisDecodedInstruction *zi,
				      struct kjit_insn *in)
{
	u8 r = zi->raw.modrm.reg;

	if (r == 3 || r == 5)
		return KJIT_R_PRIVILEGED_FLOW; /* far call/jmp m16:64 */
	in->kind = r == KX86_GRP5_CALL ? KJIT_I_CALL_IND : KJIT_I_JMP_IND;
	if (zi->raw.modrm.mod == 3) {
		in->reg = (u8)(zi->raw.modrm.rm | (zi->raw.rex.B << 3));
		if (in->reg == KX86_RSP)
			return KJIT_R_RSP_CALL;
	} else {
		if (zi->attributes & ZYDIS_ATTRIB_HAS_ADDRESSSIZE)
			return KJIT_R_OPSIZE_BRANCH; /* addr32 operand: keep it
							simple */
		in->reg = KJIT_IND_MEM;
		in->modrm_off = zi->raw.modrm.offset;
	}
	return KJIT_OK;
}

static bool is_rip_relative_mem(const ZydisDecodedInstruction *zi)
{
	return (zi->attributes & ZYDIS_ATTRIB_HAS_MODRM) &&
	       zi->raw.modrm.mod == 0 && zi->raw.modrm.rm == 5 &&
	       zi->raw.disp.size == 32;
}

/* Control transfers of the one-byte and 0f maps. */
static enum kjit_reason classify_branch(struct kjit_translator *tr,
					const ZydisDecodedInstruction *zi,
					struct kjit_insn *in, bool *done)
{
	u8 op = zi->opcode;

	*done = true;
	if (zi->encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY) {
		*done =
		    false; /* VEX/EVEX/MVEX/XOP: not a legacy branch opcode */
		return KJIT_OK;
	}
	if (zi->opcode_map == ZYDIS_OPCODE_MAP_0F &&
	    (op & 0xf0) == KX86_OP2_JCC32)
		return classify_direct(tr, zi, in, KJIT_I_JCC);
	if (zi->opcode_map != ZYDIS_OPCODE_MAP_DEFAULT) {
		*done = false;
		return KJIT_OK;
	}
	if ((op & 0xf0) == KX86_OP_JCC8)
		return classify_direct(tr, zi, in, KJIT_I_JCC);
	switch (op) {
	case KX86_OP_LOOPNE:
	case KX86_OP_LOOPE:
	case KX86_OP_LOOP:
	case KX86_OP_JRCXZ:
		return classify_direct(tr, zi, in, KJIT_I_LOOP);
	case KX86_OP_JMP32:
	case KX86_OP_JMP8:
		return classify_direct(tr, zi, in, KJIT_I_JMP);
	case KX86_OP_CALL32:
		return classify_direct(tr, zi, in, KJIT_I_CALL);
	case KX86_OP_RET:
	case KX86_OP_RET_IW:
		in->kind = KJIT_I_RET;
		in->ret_imm =
		    op == KX86_OP_RET_IW ? (u16)zi->raw.imm[0].value.u : 0;
		return KJIT_OK;
	case 0xca:
	case 0xcb: /* far ret */
		return KJIT_R_PRIVILEGED_FLOW;
	case KX86_OP_GRP5:
		if (zi->raw.modrm.reg >= 2 && zi->raw.modrm.reg <= 5)
			return classify_grp5(zi, in);
		break;
	}
	*done = false;
	return KJIT_OK;
}

static enum kjit_reason classify(struct kjit_translator *tr,
				 const ZydisDecodedInstruction *zi,
				 struct kjit_insn *in)
{
	enum kjit_reason r = refused_mnemonic(zi->mnemonic);
	bool branch;

	if (r)
		return r;
	if (is_rip_relative_mem(zi)) { /* also jmp/call *disp(%rip) */
		if (zi->attributes & ZYDIS_ATTRIB_HAS_ADDRESSSIZE)
			return KJIT_R_EIP_RELATIVE;
		in->disp_off = zi->raw.disp.offset;
	}
	r = classify_branch(tr, zi, in, &branch);
	if (r || branch) {
		if (!r && in->kind != KJIT_I_DROP &&
		    (zi->attributes & ZYDIS_ATTRIB_HAS_OPERANDSIZE))
			return KJIT_R_OPSIZE_BRANCH;
		return r;
	}
	if (!in->disp_off && (zi->attributes & ZYDIS_ATTRIB_IS_RELATIVE))
		return KJIT_R_DECODE; /* a relative operand we do not know */
	return KJIT_OK;
}

/* A live-patched site must currently be a 2- or 5-byte nop or jmp (in the
 * middle of a patch it may be int3: refused, the block runs natively). */
static enum kjit_reason classify_site(const ZydisDecodedInstruction *zi,
				      struct kjit_insn *in)
{
	if ((in->len != 2 && in->len != 5) ||
	    (zi->mnemonic != ZYDIS_MNEMONIC_NOP &&
	     zi->mnemonic != ZYDIS_MNEMONIC_JMP))
		return KJIT_R_DECODE;
	in->kind = KJIT_I_SITE;
	return KJIT_OK;
}

/*
 * The decode memo (translate.h) matches by shape: the bytes of an entry
 * that hold its displacement and immediates are not compared (sig has a
 * bit per byte that is), so `mov 0x8(%rdi),%rax` serves `mov
 * 0x10(%rdi),%rax`, and a `call rel32` every call. Only legacy-encoded
 * instructions are matched so: there nothing but those values depends on
 * those bytes (VEX/XOP use an immediate's high bits as a register, 3DNow!
 * its last byte as the opcode), and the values are read back from the
 * bytes at hand (memo_values()). The displacement and immediates come
 * last in an instruction, so the bytes compared are a prefix of it, and
 * an entry lives in the set of its first min(3, that prefix) bytes: a
 * lookup tries the sets of the first 3, 2 and 1 bytes.
 */
static unsigned memo_set(const u8 *b, unsigned k)
{
	u32 h = b[0] * 0x9e3779b1u + k;

	if (k > 1)
		h ^= b[1] * 0x85ebca6bu;
	if (k > 2)
		h ^= b[2] * 0xc2b2ae35u;
	return (h >> 16) & (KJIT_MEMO_SETS - 1);
}

static bool memo_match(const struct kjit_memo *m, const u8 *b, size_t n)
{
	unsigned i;

	if (!m->len || m->len > n)
		return false;
	for (i = 0; i < m->len; i++)
		if ((m->sig >> i & 1) && m->bytes[i] != b[i])
			return false;
	return true;
}

/* Little-endian value of the @bits-bit field at @b, sign-extended if
 * @sign. */
static u64 field(const u8 *b, unsigned bits, bool sign)
{
	unsigned i, n = bits / 8;
	u64 v = 0;

	for (i = 0; i < n; i++)
		v |= (u64)b[i] << (8 * i);
	if (sign && n < 8 && (v >> (bits - 1) & 1))
		v |= ~0ull << bits;
	return v;
}

/* tr->zi came from a memo entry of the same shape: take its displacement
 * and immediates from @b, as Zydis would have. */
static void memo_values(ZydisDecodedInstruction *zi, const u8 *b)
{
	unsigned i;

	if (zi->raw.disp.size)
		zi->raw.disp.value = (s64)field(b + zi->raw.disp.offset,
						zi->raw.disp.size, true);
	for (i = 0; i < 2; i++)
		if (zi->raw.imm[i].size)
			zi->raw.imm[i].value.u = field(
			    b + zi->raw.imm[i].offset, zi->raw.imm[i].size,
			    zi->raw.imm[i].is_signed);
}

/* Which bytes of the instruction just decoded the memo compares. */
static u16 memo_sig(const ZydisDecodedInstruction *zi)
{
	u16 sig = (u16)((1u << zi->length) - 1);
	unsigned i, k;

	if (zi->encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY)
		return sig;
	for (k = 0; k < zi->raw.disp.size / 8; k++)
		sig &= (u16) ~(1u << (zi->raw.disp.offset + k));
	for (i = 0; i < 2; i++)
		for (k = 0; k < zi->raw.imm[i].size / 8; k++)
			sig &= (u16) ~(1u << (zi->raw.imm[i].offset + k));
	return sig;
}

/* Length of the run of compared bytes at the start of @sig (at least the
 * opcode), capped at 3. */
static unsigned sig_prefix(u16 sig)
{
	unsigned k = 0;

	while (k < 3 && (sig >> k & 1))
		k++;
	return k ? k : 1;
}

/* Decode the first instruction of @b (@n bytes), from the memo if it holds
 * it (translate.h); tr->zi, tr->zctx and tr->memo_cur then point into its
 * entry (a hit copies nothing). */
static bool memo_decode(struct kjit_translator *tr, const u8 *b, size_t n)
{
	unsigned k, set, w;
	struct kjit_memo *m;

	tr->stats.decodes++;
	for (k = n < 3 ? n : 3; k >= 1; k--) {
		set = memo_set(b, k);
		for (w = 0; w < KJIT_MEMO_WAYS; w++) {
			m = &tr->memo[set][w];
			if (m->k != k || m->bytes[0] != b[0] ||
			    !memo_match(m, b, n))
				continue;
			memo_values(&m->zi, b);
			tr->stats.memo_hits++;
			goto found;
		}
	}
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(
		&tr->dec, &tr->miss_zctx, b, n, &tr->miss_zi)))
		return false;
	k = sig_prefix(memo_sig(&tr->miss_zi));
	set = memo_set(b, k);
	m = &tr->memo[set][tr->memo_next[set]];
	tr->memo_next[set] = (tr->memo_next[set] + 1) % KJIT_MEMO_WAYS;
	m->zi = tr->miss_zi;
	m->zctx = tr->miss_zctx;
	m->sig = memo_sig(&m->zi);
	m->k = (u8)k;
	m->len = m->zi.length;
	for (w = 0; w < m->len; w++)
		m->bytes[w] = b[w];
	m->regs = false;
found:
	tr->memo_cur = m;
	tr->zi = &m->zi;
	tr->zctx = &m->zctx;
	return true;
}

/* Decode the @n bytes in in->bytes (the instruction at @addr) and reset
 * the classification fields. */
static enum kjit_reason decode_bytes(struct kjit_translator *tr, u64 addr,
				     struct kjit_insn *in, size_t n)
{
	const ZydisDecodedInstruction *zi;
	unsigned i;

	if (!memo_decode(tr, in->bytes, n))
		return n < KX86_MAX_INSN_LEN ? KJIT_R_UNREADABLE
					     : KJIT_R_DECODE;
	zi = tr->zi;
	in->addr = addr;
	in->len = zi->length;
	in->kind = KJIT_I_PLAIN;
	in->target = 0;
	in->ret_imm = 0;
	in->disp_off = in->rel_off = in->modrm_off = 0;
	in->reg = 0;
	in->shadow = irq_shadow(zi);
	in->rsb_slot = zi->length == 5 && n > 5 && is_rsb_slot(in->bytes);
	in->leave = 0;
	for (i = in->len; i < KX86_MAX_INSN_LEN; i++)
		in->bytes[i] = 0;
	set_flags(zi, in);
	in->regs_read = 0xffff; /* unknown until set_regs() */
	in->regs_kill = 0;
	return KJIT_OK;
}

/*
 * A function's __fentry__ site (kjit_env.ftrace_site) is dropped whatever
 * it holds: the kernel switches it between a nop and calls to trampolines
 * (ftrace_caller, ops and BPF trampolines, direct calls) or a jmp to an
 * optimized Kprobe's detour, and frees those trampolines when their users
 * leave - a copied call would outlive them. It is decoded as the nop it is
 * when idle. Anything but a nop, call or jmp there is an int3 caught
 * mid-patch: refused, tried again next time.
 */
static enum kjit_reason ftrace_site_form(struct kjit_translator *tr, u64 addr,
					 struct kjit_insn *in, size_t n)
{
	static const u8 nop5[KX86_FENTRY_LEN] = KX86_NOP5;
	enum kjit_reason r;
	unsigned i;

	if (in->bytes[0] != KX86_NOP5_FIRST && in->bytes[0] != KX86_OP_CALL32 &&
	    in->bytes[0] != KX86_OP_JMP32)
		return KJIT_R_TRAP;
	if (n < KX86_FENTRY_LEN)
		return KJIT_R_UNREADABLE;
	for (i = 0; i < KX86_FENTRY_LEN; i++)
		in->bytes[i] = nop5[i];
	r = decode_bytes(tr, addr, in, KX86_FENTRY_LEN);
	if (!r)
		in->kind = KJIT_I_DROP;
	return r;
}

/* Is the tail static_call site whose first @n bytes are @b a jcc (the
 * kernel keeps a jcc site a jcc, rewriting only its rel32) or a jmp/ret?
 * Anything else - in practice text_poke_bp's int3 over the first byte -
 * hides which, and a jcc's condition with it: the site is refused. */
static enum kjit_reason static_call_tail_form(const u8 *b, size_t n, bool *jcc)
{
	*jcc = b[0] == KX86_OP_ESC;
	if (*jcc && n < KX86_JCC32_LEN)
		return KJIT_R_UNREADABLE;
	if (*jcc && (b[1] & 0xf0) == KX86_OP2_JCC32)
		return KJIT_OK;
	if (b[0] == KX86_OP_JMP32 || b[0] == KX86_OP_RET)
		return KJIT_OK;
	return KJIT_R_STATIC_CALL_PATCHING;
}

/*
 * An inline static_call site becomes the branch to its trampoline that it
 * stands for, whatever it is today (call/jmp/jcc func, nop, xor %eax,%eax,
 * ret; int3 mid-patch for a call site): `call tramp`, `jmp tramp` for a
 * tail call, or the same jcc to tramp for a conditional tail call. The
 * kernel keeps the trampoline pointing at the current target (and makes it
 * a plain ret for a NULL one), so the translation is never stale. A tail
 * site mid-patch is refused (static_call_tail_form).
 */
static enum kjit_reason static_call_form(struct kjit_translator *tr, u64 addr,
					 struct kjit_insn *in, size_t n,
					 u64 tramp, bool tail)
{
	bool jcc = false;
	unsigned len;
	s32 rel;
	enum kjit_reason r;

	if (!tramp)
		return KJIT_R_STATIC_CALL;
	if (tail) {
		r = static_call_tail_form(in->bytes, n, &jcc);
		if (r)
			return r;
	}
	len = jcc ? KX86_JCC32_LEN : KX86_JMP32_LEN;
	if (!kx86_rel32(addr + len, tramp, &rel))
		return KJIT_R_BRANCH_FAR;
	if (!jcc)
		in->bytes[0] = tail ? KX86_OP_JMP32 : KX86_OP_CALL32;
	in->bytes[len - 4] = (u8)rel;
	in->bytes[len - 3] = (u8)(rel >> 8);
	in->bytes[len - 2] = (u8)(rel >> 16);
	in->bytes[len - 1] = (u8)(rel >> 24);
	return decode_bytes(tr, addr, in, len);
}

enum kjit_reason kjit_decode_insn(struct kjit_translator *tr, u64 addr,
				  struct kjit_insn *in, bool check_fixup)
{
	const struct kjit_env *env = tr->env;
	size_t n =
	    env->read_code(env->opaque, addr, in->bytes, KX86_MAX_INSN_LEN);
	enum kjit_reason r;
	bool tail = false, sc = false;
	u64 tramp;

	if (n == 0)
		return KJIT_R_UNREADABLE;
	if (env->ftrace_site && kx86_may_be_fentry_site(in->bytes, n) &&
	    env->ftrace_site(env->opaque, addr))
		return ftrace_site_form(tr, addr, in, n);
	if (env->static_call &&
	    env->static_call(env->opaque, addr, &tramp, &tail)) {
		r = static_call_form(tr, addr, in, n, tramp, tail);
		sc = true;
	} else {
		r = decode_bytes(tr, addr, in, n);
	}
	if (r)
		return r;
	in->static_call = sc;
	in->fixup = KJIT_FIXUP_NONE;
	if (check_fixup) {
		if (env->fixup)
			in->fixup = (u8)env->fixup(env->opaque, addr,
						   &in->fixup_target);
		else if (env->has_fixup && env->has_fixup(env->opaque, addr))
			in->fixup = KJIT_FIXUP_NATIVE;
		if (in->fixup == KJIT_FIXUP_NATIVE)
			return KJIT_R_FIXUP;
	}
	if (env->patch_site && env->patch_site(env->opaque, addr, &in->target))
		r = classify_site(tr->zi, in);
	else
		r = classify(tr, tr->zi, in);
	/* an RSB slot is a direct call: not one the environment names a
	 * thunk (its "1f" a retpoline symbol: an indirect call, then) */
	if (in->kind != KJIT_I_CALL)
		in->rsb_slot = 0;
	if (!r && in->fixup && in->kind == KJIT_I_CALL)
		/* an alternative patched to a call (clear_user's and
		 * copy_user's `1: call rep_stos_alternative; 2:` with
		 * _ASM_EXTABLE_UA(1b, 2b)): a direct call only pushes to the
		 * kernel stack, a fault in its callee has the callee's IP, so
		 * the entry can never fire and the copy needs none */
		in->fixup = KJIT_FIXUP_NONE;
	if (in->fixup == KJIT_FIXUP_EXIT && in->fixup_target == addr + in->len)
		in->fixup = KJIT_FIXUP_NEXT; /* no exit needed */
	/* a fixup is copied only on a plain instruction (the rest run
	 * natively: an indirect call's memory operand may fault) */
	return !r && in->fixup && in->kind != KJIT_I_PLAIN ? KJIT_R_FIXUP : r;
}

enum kjit_reason kjit_decode_insn_regs(struct kjit_translator *tr, u64 addr,
				       struct kjit_insn *in)
{
	enum kjit_reason r = kjit_decode_insn(tr, addr, in, true);

	if (!r)
		set_regs(tr, in); /* tr->zi still holds it */
	return r;
}

/* Has @d an instruction with a copied exception-table entry already? */
static bool has_fixup_insn(const struct kjit_block_desc *d)
{
	unsigned i;

	for (i = 0; i < d->n; i++)
		if (d->insn[i].fixup)
			return true;
	return false;
}

/* A block about to end with a fall-through exit (length limit, or cut
 * before a refused instruction) must not separate sti / mov ss from the
 * instruction in its shadow: the exit, a dispatcher entry or the next
 * block's counter would run there instead, and an interrupt could come
 * in between (`sti; hlt` would sleep past its wake-up). End the block
 * before them; they start the next block with their successor, or run
 * natively with it if the block at them is refused too. */
static enum kjit_reason trim_shadow(struct kjit_block_desc *d, u64 *addr)
{
	while (d->n && d->insn[d->n - 1].shadow) {
		d->n--;
		*addr -= d->insn[d->n].len;
	}
	if (d->n)
		return KJIT_OK;
	d->reason = KJIT_R_IRQ_SHADOW;
	d->reason_addr = d->start;
	d->end = d->start;
	return KJIT_R_IRQ_SHADOW;
}

enum kjit_reason kjit_decode_block(struct kjit_translator *tr, u64 start,
				   struct kjit_block_desc *d)
{
	u64 addr = start;
	enum kjit_reason r;

	d->start = start;
	d->n = 0;
	d->reason = KJIT_OK;
	d->reason_addr = 0;
	while (d->n < KJIT_MAX_INSNS - 1) {
		struct kjit_insn *in = &d->insn[d->n];

		r = kjit_decode_insn(tr, addr, in, true);
		/* tr->zi still holds it; only a counter needs the register
		 * effects (look-aheads never do) */
		if (!r && tr->cfg.instr)
			set_regs(tr, in);
		if (!r && in->fixup && has_fixup_insn(d))
			r = KJIT_R_FIXUP; /* one a block: it starts the next */
		if (!r && in->fixup == KJIT_FIXUP_EXIT) {
			/* a fault leaves the block here for its fixup:
			 * whatever that reads must be intact */
			in->regs_read = 0xffff;
			in->flags_read = KX86_FLAGS_ARITH;
		}
		if (r && d->n)
			break; /* end before it: it runs natively, at its own
				  address */
		if (r) {
			d->reason = r;
			d->reason_addr = addr;
			d->end = addr;
			return r;
		}
		d->n++;
		addr += in->len;
		if (kjit_insn_is_term(in))
			break;
	}
	if (!kjit_insn_is_term(&d->insn[d->n - 1])) {
		struct kjit_insn *lim;

		r = trim_shadow(d, &addr);
		if (r)
			return r;
		lim = &d->insn[d->n++];
		lim->kind = KJIT_I_LIMIT;
		lim->addr = addr;
		lim->target = addr;
		lim->len = 0;
		lim->flags_read = lim->flags_kill = 0;
		lim->regs_read = lim->regs_kill = 0;
		lim->disp_off = 0;
		lim->shadow = 0;
		lim->fixup = KJIT_FIXUP_NONE;
	}
	d->end = addr;
	return KJIT_OK;
}
