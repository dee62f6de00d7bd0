/* test_shapes.c - the differential test on real kernel code: programs made
 * of thousands of blocks taken from the stock vmlinux run natively and
 * translated, and every block's count must equal the ptrace oracle's.
 *
 * Each kernel block (every function's blocks, as kjit's block discovery
 * finds them) keeps the instructions that touch only general registers
 * (not rsp, not r15), immediates and the flags, copied byte for byte: ALU,
 * shifts and rotates, moves and extensions, lea, setcc, cmovcc, adc/sbb,
 * bit tests, imul/mul (the list is allowed_mnemonic() below); memory
 * operands, stack, segment, system and string instructions are dropped,
 * and one that wrote the flags leaves `cmp %rax,%rcx` in its place, so the
 * flags die where the kernel's do.
 * Its terminator is kept in kind and condition: a jcc keeps the kernel's
 * condition code, taken to the block after next, falling into the next;
 * a jmp goes to the next; a call calls a leaf made of the next kernel
 * block with a ret. The flag and register use of real code stays: a jcc
 * whose compare read memory now tests flags set blocks earlier, so
 * liveness crosses blocks as in the kernel, and a register the kernel
 * code overwrites unread is a dead one for the counter.
 *
 * Flags a program would read while the last writer left them undefined
 * (imul's SF, a shift's OF ...) are made defined first by an inserted
 * `cmp %rax,%rcx`: kernel code never reads such flags, and a translator
 * may treat them as dead. The program loops r15 times (dec %r15; jnz),
 * r15 = 1..4 from the input.
 *
 * Compared, for each program and input: all 15 registers and the six flags
 * after the run (shape_call.S), native against translated in the module's
 * deep configuration (native calls, per-CPU counters at %gs, with a real
 * GS base), and each block's count against the oracle (oracle.h: its own
 * opcode table, ptrace single steps).
 *
 * Usage: test_shapes [vmlinux] (default: $BUILD/host/vmlinux)
 */
#define _GNU_SOURCE
#include <Zydis/Zydis.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "jit/translate.h"
#include "tests/host/host_cache.h"
#include "tests/host/kjit_test.h"
#include "tests/host/oracle.h"
#include "tests/host/vmlinux.h"

void shape_call(const u64 *in, u64 *out, void *prog);

#define GEN_ADDR     0x5e000000ul /* below 2 GiB, apart from the caches */
#define GEN_SIZE     (1ul << 20)
#define PROG_BLOCKS  160	     /* kernel blocks a program (< OMAP_MAX) */
#define N_PROGS	     24
#define N_INPUTS     48
#define N_ORACLE     3
#define MAX_KEEP     12		     /* instructions kept of a block */
#define MAX_SRC	     (1u << 16)
#define RUN_BASE     0xffffffffc0000000ull
#define CMP_RAX_RCX  "\x48\x39\xc1" /* cmp %rax,%rcx: every flag defined */
#define FLAGS6	     0x8d5u

/* ---- kernel blocks, reduced ------------------------------------------ */

enum { T_JCC, T_JMP, T_CALL, T_RET };

struct insn {
	u8 len;
	u8 bytes[15];
	u16 tested, undef, defined; /* flag masks (ZYDIS_CPUFLAG_* bits) */
};

struct src {
	u8 n, term, cc; /* cc: the jcc's condition (0..15) */
	struct insn in[MAX_KEEP];
};

static struct src *src;
static unsigned n_src;
static struct vml vml;
static ZydisDecoder dec;

/* Zydis' flag bits of the six arithmetic flags, as rflags bits */
static u16 flags_of(ZydisAccessedFlagsMask f)
{
	return (u16)(f & FLAGS6);
}

static bool allowed_mnemonic(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_ADD: case ZYDIS_MNEMONIC_ADC:
	case ZYDIS_MNEMONIC_SUB: case ZYDIS_MNEMONIC_SBB:
	case ZYDIS_MNEMONIC_AND: case ZYDIS_MNEMONIC_OR:
	case ZYDIS_MNEMONIC_XOR: case ZYDIS_MNEMONIC_CMP:
	case ZYDIS_MNEMONIC_TEST: case ZYDIS_MNEMONIC_INC:
	case ZYDIS_MNEMONIC_DEC: case ZYDIS_MNEMONIC_NEG:
	case ZYDIS_MNEMONIC_NOT: case ZYDIS_MNEMONIC_SHL:
	case ZYDIS_MNEMONIC_SHR: case ZYDIS_MNEMONIC_SAR:
	case ZYDIS_MNEMONIC_ROL: case ZYDIS_MNEMONIC_ROR:
	case ZYDIS_MNEMONIC_RCL: case ZYDIS_MNEMONIC_RCR:
	case ZYDIS_MNEMONIC_SHLD: case ZYDIS_MNEMONIC_SHRD:
	case ZYDIS_MNEMONIC_MOV: case ZYDIS_MNEMONIC_MOVZX:
	case ZYDIS_MNEMONIC_MOVSX: case ZYDIS_MNEMONIC_MOVSXD:
	case ZYDIS_MNEMONIC_LEA: case ZYDIS_MNEMONIC_IMUL:
	case ZYDIS_MNEMONIC_MUL: case ZYDIS_MNEMONIC_BT:
	case ZYDIS_MNEMONIC_BTS: case ZYDIS_MNEMONIC_BTR:
	case ZYDIS_MNEMONIC_BTC: case ZYDIS_MNEMONIC_BSF:
	case ZYDIS_MNEMONIC_BSR: case ZYDIS_MNEMONIC_POPCNT:
	case ZYDIS_MNEMONIC_BSWAP: case ZYDIS_MNEMONIC_CDQ:
	case ZYDIS_MNEMONIC_CQO: case ZYDIS_MNEMONIC_CDQE:
	case ZYDIS_MNEMONIC_CWDE: case ZYDIS_MNEMONIC_XCHG:
	case ZYDIS_MNEMONIC_XADD: case ZYDIS_MNEMONIC_CMPXCHG:
	case ZYDIS_MNEMONIC_CLC: case ZYDIS_MNEMONIC_STC:
	case ZYDIS_MNEMONIC_CMC: case ZYDIS_MNEMONIC_NOP:
		return true;
	default:
		return (m >= ZYDIS_MNEMONIC_SETB && m <= ZYDIS_MNEMONIC_SETZ) ||
		       (m >= ZYDIS_MNEMONIC_CMOVB && m <= ZYDIS_MNEMONIC_CMOVZ);
	}
}

static bool gpr_ok(ZydisRegister r)
{
	ZydisRegister l = ZydisRegisterGetLargestEnclosing(
	    ZYDIS_MACHINE_MODE_LONG_64, r);

	if (l == ZYDIS_REGISTER_RFLAGS || l == ZYDIS_REGISTER_RIP)
		return true;
	return ZydisRegisterGetClass(r) >= ZYDIS_REGCLASS_GPR8 &&
	       ZydisRegisterGetClass(r) <= ZYDIS_REGCLASS_GPR64 &&
	       l != ZYDIS_REGISTER_RSP && l != ZYDIS_REGISTER_R15;
}

/* Is the instruction at @p kept: allowed, every operand a general
 * register other than rsp and r15, an immediate, or (lea, nop only) an
 * address computed from such registers or rip? */
static bool keep(const u8 *p, unsigned len, struct insn *out)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	unsigned i;

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, p, len, &zi, op)) ||
	    !allowed_mnemonic(zi.mnemonic) ||
	    (zi.attributes & (ZYDIS_ATTRIB_HAS_LOCK | ZYDIS_ATTRIB_HAS_REP |
			      ZYDIS_ATTRIB_HAS_REPNE | ZYDIS_ATTRIB_HAS_SEGMENT)))
		return false;
	for (i = 0; i < zi.operand_count; i++) {
		const ZydisDecodedOperand *o = &op[i];

		if (o->type == ZYDIS_OPERAND_TYPE_REGISTER && !gpr_ok(o->reg.value))
			return false;
		if (o->type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    (zi.mnemonic != ZYDIS_MNEMONIC_LEA &&
		     zi.mnemonic != ZYDIS_MNEMONIC_NOP))
			return false;
		if (o->type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    ((o->mem.base != ZYDIS_REGISTER_NONE &&
		      o->mem.base != ZYDIS_REGISTER_RIP &&
		      !gpr_ok(o->mem.base)) ||
		     (o->mem.index != ZYDIS_REGISTER_NONE &&
		      !gpr_ok(o->mem.index)) ||
		     o->mem.segment == ZYDIS_REGISTER_GS ||
		     o->mem.segment == ZYDIS_REGISTER_FS))
			return false;
		if (o->type == ZYDIS_OPERAND_TYPE_POINTER)
			return false;
	}
	out->len = zi.length;
	memcpy(out->bytes, p, zi.length);
	out->tested = zi.cpu_flags ? flags_of(zi.cpu_flags->tested) : 0;
	out->undef = zi.cpu_flags ? flags_of(zi.cpu_flags->undefined) : 0;
	out->defined = zi.cpu_flags
			   ? flags_of(zi.cpu_flags->modified |
				      zi.cpu_flags->set_0 | zi.cpu_flags->set_1) &
				 (u16)~out->undef
			   : 0;
	return true;
}

/* A dropped instruction that writes the flags (a compare with memory, an
 * add to memory ...) leaves a stand-in that writes them all, so the flags
 * die where the kernel's die: `cmp %rax,%rcx`. */
static const struct insn stand_in = {3, {0x48, 0x39, 0xc1}, 0, 0, FLAGS6};

static bool is_stand_in(const struct insn *in)
{
	return in->len == 3 && !memcmp(in->bytes, stand_in.bytes, 3);
}

static bool writes_flags(const u8 *p, unsigned len)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];

	return ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, p, len, &zi, op)) &&
	       zi.cpu_flags &&
	       flags_of(zi.cpu_flags->modified | zi.cpu_flags->set_0 |
			zi.cpu_flags->set_1 | zi.cpu_flags->undefined);
}

/* A kernel block as translated in the module's configuration, reduced. */
static void add_src(const struct kjit_block_desc *d)
{
	const struct kjit_insn *t = &d->insn[d->n - 1];
	struct src *s;
	unsigned i;

	if (n_src >= MAX_SRC)
		return;
	s = &src[n_src];
	memset(s, 0, sizeof(*s));
	s->term = t->kind == KJIT_I_JCC	   ? T_JCC
		  : t->kind == KJIT_I_CALL ? T_CALL
		  : t->kind == KJIT_I_RET  ? T_RET
					   : T_JMP;
	if (s->term == T_JCC) {
		/* 7x rel8 or 0f 8x rel32: the low nibble is the condition */
		s->cc = t->bytes[0] == 0x0f ? t->bytes[1] & 15 : t->bytes[0] & 15;
		if (t->bytes[0] != 0x0f && (t->bytes[0] & 0xf0) != 0x70)
			return; /* jrcxz, loop: not kept */
	}
	for (i = 0; i + 1 < d->n && s->n < MAX_KEEP; i++) {
		if (keep(d->insn[i].bytes, d->insn[i].len, &s->in[s->n]))
			s->n++;
		else if (writes_flags(d->insn[i].bytes, d->insn[i].len) &&
			 (!s->n || !is_stand_in(&s->in[s->n - 1])))
			s->in[s->n++] = stand_in;
	}
	if (s->n || s->term == T_JCC)
		n_src++;
}

/* ---- programs ---------------------------------------------------------- */

struct prog {
	u64 entry;
	unsigned blocks; /* generated blocks, leaves and the loop included */
};

static u8 *gen;
static size_t gen_used;

static void put(const void *p, size_t n)
{
	memcpy(gen + gen_used, p, n);
	gen_used += n;
}

static void put_rel32(u8 op0, int op1, u64 target)
{
	u64 at = GEN_ADDR + gen_used;
	unsigned n = op1 >= 0 ? 2 : 1;
	s32 rel = (s32)(target - (at + n + 4));

	gen[gen_used++] = op0;
	if (op1 >= 0)
		gen[gen_used++] = (u8)op1;
	put(&rel, 4);
}

/* Flags read undefined from here on are defined first (poison: the flags
 * some writer left undefined on a path that reaches this point). */
static u16 emit_insn(const struct insn *in, u16 poison)
{
	if (in->tested & poison) {
		put(CMP_RAX_RCX, 3);
		poison = 0;
	}
	put(in->bytes, in->len);
	return (u16)((poison & ~(in->defined | in->undef)) | in->undef);
}

/* The poison a block leaves, given what it starts with. */
static u16 block_out(const struct src *s, u16 poison)
{
	unsigned i;

	for (i = 0; i < s->n; i++)
		poison = s->in[i].tested & poison ? 0 : poison,
		poison = (u16)((poison & ~(s->in[i].defined | s->in[i].undef)) |
			       s->in[i].undef);
	return poison;
}

static u16 cc_flags(unsigned cc)
{
	static const u16 f[8] = {0x800, 0x001, 0x040, 0x041,
				 0x080, 0x004, 0x880, 0x8c0};

	return f[cc >> 1];
}

/*
 * One program from kernel blocks src[first..first+n): block i starts at
 * addr[i]; a jcc goes to i+2 (the loop block after the last), falls to
 * i+1; a call calls a leaf (the next source block + ret) placed after
 * the loop block. Poison at each block's entry is the union over its
 * predecessors' (fixpoint over the loop), so inserted cmps are placed
 * where any path could read an undefined flag.
 */
static int make_prog(unsigned first, unsigned n, struct prog *p)
{
	u16 in[PROG_BLOCKS + 2] = {0}, out[PROG_BLOCKS + 2];
	u64 addr[PROG_BLOCKS + 2], leaf[PROG_BLOCKS];
	unsigned i, pass, leaves = 0;
	size_t start = gen_used;

	if (n > PROG_BLOCKS || first + 2 * n > n_src ||
	    gen_used + 64 * 1024 > GEN_SIZE)
		return -1;
	for (pass = 0; pass < 3; pass++) {
		u16 back = 0;

		memset(out, 0, sizeof(out));
		for (i = 0; i < n; i++) {
			const struct src *s = &src[first + i];
			u16 pin = in[i];

			if (i) /* every block runs into the next (a ret is a
				* jmp to it here) */
				pin |= out[i - 1];
			if (i >= 2 && src[first + i - 2].term == T_JCC)
				pin |= out[i - 2];
			in[i] = pin;
			out[i] = block_out(s, pin);
			if (s->term == T_JCC && (cc_flags(s->cc) & out[i]))
				out[i] = 0; /* a cmp goes before the jcc */
			if (s->term == T_CALL) /* a callee leaves the flags
						* undefined, as the ABI says */
				out[i] = FLAGS6;
		}
		/* the loop block: reached from the last block and by a jcc
		 * two before; dec defines all but CF */
		back = out[n - 1] | (n >= 2 && src[first + n - 2].term == T_JCC
					 ? out[n - 2]
					 : 0);
		in[n] = back;
		in[0] |= (u16)(back & 0x001);
	}
	/* emit, twice: addresses first (sizes do not depend on them) */
	for (pass = 0; pass < 2; pass++) {
		gen_used = start;
		for (i = 0; i < n; i++) {
			const struct src *s = &src[first + i];
			u16 poison = in[i];
			unsigned k;

			addr[i] = GEN_ADDR + gen_used;
			for (k = 0; k < s->n; k++)
				poison = emit_insn(&s->in[k], poison);
			switch (s->term) {
			case T_JCC:
				if (cc_flags(s->cc) & poison)
					put(CMP_RAX_RCX, 3);
				put_rel32(0x0f, 0x80 + s->cc,
					  pass ? addr[i + 2 > n ? n : i + 2] : 0);
				break;
			case T_CALL:
				put_rel32(0xe8, -1, pass ? leaf[i] : 0);
				break;
			default: /* jmp (and ret: to the next block too) */
				put_rel32(0xe9, -1, pass ? addr[i + 1] : 0);
			}
		}
		/* the loop block: dec %r15; jnz first; ret */
		addr[n] = GEN_ADDR + gen_used;
		put("\x49\xff\xcf", 3);
		put_rel32(0x0f, 0x85, addr[0]);
		put("\xc3", 1);
		/* leaves: the source block after the program's, then ret */
		for (i = 0, leaves = 0; i < n; i++) {
			const struct src *s = &src[first + n + i];
			unsigned k;
			u16 poison = FLAGS6; /* called: flags dead at a call */

			if (src[first + i].term != T_CALL)
				continue;
			leaf[i] = GEN_ADDR + gen_used;
			for (k = 0; k < s->n; k++)
				poison = emit_insn(&s->in[k], poison);
			put("\xc3", 1);
			leaves++;
		}
	}
	p->entry = addr[0];
	p->blocks = n + 1 + leaves;
	while (gen_used & 15)
		gen[gen_used++] = 0xcc;
	return 0;
}

/* ---- runs ------------------------------------------------------------- */

static struct hc cache;

struct call {
	u64 in[17], out[17];
	void *prog;
};

static void call_native(void *arg)
{
	struct call *c = arg;

	shape_call(c->in, c->out, c->prog);
}

/* Inputs that make the flags come out both ways: every register zero,
 * all equal, small, small negative, a few bits, random. */
static void input(unsigned prog, unsigned k, u64 in[17])
{
	u64 x = 0x9e3779b97f4a7c15ull * (prog * 131 + k + 1), v = x;
	unsigned r;

	for (r = 0; r < 16; r++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		switch (k % 6) {
		case 0: in[r] = 0; break;
		case 1: in[r] = v; break;
		case 2: in[r] = x % 4; break;
		case 3: in[r] = -(x % 3); break;
		case 4: in[r] = 1ull << (x % 64); break;
		default: in[r] = x;
		}
	}
	in[4] = 0;		  /* rsp: not set */
	in[15] = 1 + k % 4;	  /* r15: the loop's count */
	in[16] = x & FLAGS6;	  /* the flags */
}

static void zero_counters(void)
{
	unsigned i;

	for (i = 0; i < cache.n_blk; i++) {
		u64 *c = henv_counter_of(&cache.henv, cache.blk[i].orig);

		if (c)
			*c = 0;
	}
}

/* The oracle's counts against the translation's; "" if equal. */
static void compare_counts(const struct omap *m, char *why, size_t n)
{
	unsigned i;

	why[0] = 0;
	for (i = 0; i < m->n && !why[0]; i++) {
		struct hc_block *b = hc_find(&cache, m->addr[i]);
		u64 *c = b ? henv_counter_of(&cache.henv, m->addr[i]) : NULL;

		if (!c)
			snprintf(why, n, "oracle block %#llx never counted",
				 (unsigned long long)m->addr[i]);
		else if (*c != m->count[i])
			snprintf(why, n, "block %#llx: count %llu, oracle %llu",
				 (unsigned long long)m->addr[i],
				 (unsigned long long)*c,
				 (unsigned long long)m->count[i]);
	}
	for (i = 0; i < cache.n_blk && !why[0]; i++) {
		u64 *c = henv_counter_of(&cache.henv, cache.blk[i].orig);

		if (c && *c && !omap_has(m, cache.blk[i].orig))
			snprintf(why, n,
				 "block %#llx counted %llu, the oracle never "
				 "entered it",
				 (unsigned long long)cache.blk[i].orig,
				 (unsigned long long)*c);
	}
}

/* Run program @p natively, translated and under the oracle. */
static int run_prog(unsigned pi, const struct prog *p, char *why, size_t n,
		    unsigned long *oracle_blocks)
{
	static struct omap m;
	struct call c, t;
	unsigned k, r;

	for (k = 0; k < N_INPUTS; k++) {
		input(pi, k, c.in);
		c.prog = (void *)(uintptr_t)p->entry;
		t = c;
		t.prog = (void *)(uintptr_t)hc_lookup(&cache, p->entry);
		call_native(&c);
		call_native(&t);
		for (r = 0; r < 17; r++)
			if (r != 4 && (r == 16 ? (c.out[r] ^ t.out[r]) & FLAGS6
					       : c.out[r] != t.out[r])) {
				snprintf(why, n,
					 "input %u: register %u native %#llx "
					 "translated %#llx",
					 k, r, (unsigned long long)c.out[r],
					 (unsigned long long)t.out[r]);
				return -1;
			}
		if (k >= N_ORACLE)
			continue;
		if (oracle_run_fn(call_native, &c, &m) < 0) {
			snprintf(why, n, "oracle run failed (input %u)", k);
			return -1;
		}
		zero_counters();
		call_native(&t);
		compare_counts(&m, why, n);
		if (why[0])
			return -1;
		*oracle_blocks += m.n;
	}
	return 0;
}

/* ---- setup -------------------------------------------------------------- */

static struct kjit_translator sweep_tr;
static struct henv sweep_env;
static u8 sweep_out[KJIT_MAX_BLOCK_BYTES];

/* Every block of the kernel's functions, sampled evenly down to MAX_SRC. */
static int collect(void)
{
	struct kjit_config cfg;
	u64 end = vml.text_addr + vml.text_size;
	u64 nlo = vml_sym(&vml, "__noinstr_text_start");
	u64 nhi = vml_sym(&vml, "__noinstr_text_end");
	size_t i, step;

	henv_init(&sweep_env, KJIT_MEM_GS, NULL, NULL, RUN_BASE + 0xff0000);
	henv_add_region(&sweep_env, vml.text_addr, vml.text, vml.text_size);
	henv_add_sym(&sweep_env, vml_sym(&vml, "__fentry__"), KJIT_SYM_FENTRY,
		     -1);
	kjit_config_default(&cfg);
	cfg.native_calls = true;
	kjit_translator_init(&sweep_tr, &sweep_env.env, &cfg);
	step = vml.n_sym / 8192 + 1;
	for (i = 0; i < vml.n_sym && n_src < MAX_SRC; i += step) {
		u64 a = vml.sym[i].addr, pc = a;
		unsigned k;

		if (!strchr("tT", vml.sym[i].type) || a < vml.text_addr ||
		    a >= end || (a >= nlo && a < nhi))
			continue;
		/* the function's straight line of blocks, up to 16 */
		for (k = 0; k < 16; k++) {
			struct kjit_block b;
			const struct kjit_block_desc *d;

			if (kjit_translate(&sweep_tr, pc, sweep_out,
					   sizeof(sweep_out), RUN_BASE, &b))
				break;
			d = kjit_last_desc(&sweep_tr);
			add_src(d);
			if (d->insn[d->n - 1].kind == KJIT_I_RET)
				break;
			pc = d->end;
			if (i + 1 < vml.n_sym && pc >= vml.sym[i + 1].addr)
				break;
		}
	}
	return n_src >= (N_PROGS * 2 + 1) * PROG_BLOCKS ? 0 : -1;
}

static int setup_cache(void)
{
	struct kjit_config cfg;

	kjit_config_default(&cfg); /* the module's deep session */
	cfg.native_calls = true;
	cfg.follow_indirect_calls = true;
	if (hc_init(&cache, GEN_ADDR, GEN_ADDR + GEN_SIZE, KJIT_MEM_GS, &cfg,
		    true))
		return -1;
	if (henv_use_gs(&cache.henv, true))
		return -1;
	cache.vfy.native_calls = true;
	cache.vfy.follow_indirect_calls = true;
	return 0;
}

int main(int argc, char **argv)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char path[512], err[256], why[300] = "";
	unsigned long blocks = 0, oracle_blocks = 0, kept = 0, drops = 0;
	unsigned i, k, failed = 0;
	struct stat sb;

	snprintf(path, sizeof(path), "%s/host/vmlinux", build);
	if (argc > 1)
		snprintf(path, sizeof(path), "%s", argv[1]);
	if (stat(path, &sb)) {
		kt_skip("jit.shapes.vmlinux", "no %s", path);
		return kt_exit();
	}
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	src = calloc(MAX_SRC, sizeof(*src));
	gen = mmap((void *)GEN_ADDR, GEN_SIZE,
		   PROT_READ | PROT_WRITE | PROT_EXEC,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (!src || gen == MAP_FAILED || vml_open(&vml, path, err, sizeof(err))) {
		kt_fail("jit.shapes.setup", "%s",
			gen == MAP_FAILED ? strerror(errno) : err);
		return kt_exit();
	}
	memset(gen, 0xcc, GEN_SIZE);
	if (collect()) {
		kt_fail("jit.shapes.collect", "only %u kernel blocks kept",
			n_src);
		return kt_exit();
	}
	for (i = 0; i < n_src; i++) {
		kept += src[i].n;
		drops += src[i].n == 0;
	}
	if (setup_cache()) {
		kt_fail("jit.shapes.setup", "code cache or GS base");
		return kt_exit();
	}
	oracle_init(GEN_ADDR, GEN_ADDR + GEN_SIZE);
	for (i = 0; i < N_PROGS; i++) {
		struct prog p;
		char name[64];

		snprintf(name, sizeof(name), "jit.shapes.prog%02u", i);
		if (make_prog(i * 2 * PROG_BLOCKS, PROG_BLOCKS, &p)) {
			kt_fail(name, "cannot generate");
			failed++;
			continue;
		}
		why[0] = 0;
		if (run_prog(i, &p, why, sizeof(why), &oracle_blocks) ||
		    cache.vfy_failed || cache.refusals || cache.bad_links) {
			if (!why[0])
				snprintf(why, sizeof(why),
					 "verifier %u (%.200s), refusals %u, "
					 "bad links %u",
					 cache.vfy_failed, cache.vfy_msg,
					 cache.refusals, cache.bad_links);
			kt_fail(name, "%s", why);
			failed++;
		} else {
			kt_pass(name, "%u blocks", p.blocks);
		}
		blocks += p.blocks;
	}
	k = cache.n_blk;
	kt_check("jit.shapes.blocks", blocks >= 4000 && !failed,
		 "%lu generated blocks, %u translations, %u programs failed",
		 blocks, k, failed);
	printf("shapes: %u kernel blocks kept (%lu instructions, %lu blocks "
	       "with none), %u programs, %lu generated blocks, %u translated; "
	       "%lu block counts compared with the oracle; seq "
	       "inc/lahf/pushf/moved %llu/%llu/%llu/%llu\n",
	       n_src, kept, drops, N_PROGS, blocks, k, oracle_blocks,
	       (unsigned long long)cache.tr.stats.seq[KJIT_SEQ_INC],
	       (unsigned long long)cache.tr.stats.seq[KJIT_SEQ_LAHF],
	       (unsigned long long)cache.tr.stats.seq[KJIT_SEQ_PUSHF],
	       (unsigned long long)cache.tr.stats.seq[KJIT_SEQ_MOVED]);
	return kt_exit();
}
