/* test_counters.c - per-CPU counter sequences: register effects of decoded
 * instructions, where the block counter goes, the bytes of every sequence
 * (goldens), each sequence executed with a real GS base (every flag
 * combination; every register but a dead one kept), two threads counting
 * into their own copies, and a migration between any two instructions of
 * a sequence (ptrace moves the GS base) still counting exactly once.
 *
 * Per-CPU memory is simulated as the kernel lays it out: a counter's
 * offset is the same for every "CPU" and each thread's GS base (its "CPU")
 * points at its own copy (host_env.h, henv_use_gs()).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include "jit/translate.h"
#include "jit/instrument.h"
#include "jit/emit.h"
#include "jit/liveness.h"
#include "tests/host/host_env.h"
#include "tests/host/kjit_test.h"
#include "tests/host/verify.h"
#include "tests/host/unwind_check.h"

#define ORIG	0xffffffff81000000ull
#define RUN	0xffffffff82000000ull
#define DISP	0xffffffff81f00000ull
#define FENTRY	0xffffffff81e00000ull
#define FAKE_GS 0x0040000000010000ull /* a 64-bit per-CPU offset */

static struct henv henv;
static struct kjit_translator tr;
static struct vfy vfy;
static struct uwc uwc; /* each translation's unwind map (unwind_check.h) */
static u8 code[4096];
static u8 out[KJIT_MAX_BLOCK_BYTES];

/* Translator with fake %gs counters at 64-bit offsets (never run). */
static void setup(const struct kjit_config *cfg, u64 gs_fake)
{
	henv_init(&henv, KJIT_MEM_GS, NULL, NULL, DISP);
	henv.gs_fake = gs_fake;
	henv_add_region(&henv, ORIG, code, sizeof(code));
	henv_add_sym(&henv, FENTRY, KJIT_SYM_FENTRY, -1);
	kjit_translator_init(&tr, &henv.env, cfg);
	vfy_init(&vfy, &henv.env);
	uwc_init(&uwc);
}

static enum kjit_reason xlate(const char *in, struct kjit_block *b, char *why)
{
	enum kjit_reason r;

	memset(code, 0xcc, sizeof(code));
	kt_unhex(in, code);
	r = kjit_translate(&tr, ORIG, out, sizeof(out), RUN, b);
	why[0] = 0;
	if (!r && vfy_block(&vfy, kjit_last_desc(&tr), b, out, RUN))
		snprintf(why, 256, "verifier: %.200s", vfy.msg);
	else if (!r && uwc_block(&uwc, kjit_last_desc(&tr), b, out, RUN,
				 tr.uw, tr.n_uw))
		snprintf(why, 256, "unwind map: %.200s", uwc.msg);
	return r;
}

/* ---- register effects (jit/decode.c) ---------------------------------- */

#define R(x) (1u << KX86_##x)

static void test_regs(void)
{
	static const struct {
		const char *name, *in;
		u16 rd, kill;
	} cases[] = {
	    {"mov64", "4889f8", R(RDI), R(RAX)},
	    {"mov32_zero_extends", "89f8", R(RDI), R(RAX)},
	    {"mov16_partial", "6689f8", R(RDI), 0},
	    {"mov8_high_partial", "88fc", R(RBX), 0}, /* mov %bh,%ah */
	    {"xor_idiom", "31c0", 0, R(RAX)},
	    {"sub_idiom64", "4829db", 0, R(RBX)},
	    {"xor_two_regs", "31d8", R(RAX) | R(RBX), 0},
	    {"xor_idiom16_partial", "6631c0", R(RAX), 0},
	    /* a false condition keeps the old value: not a kill */
	    {"cmov_no_kill", "480f44c7", R(RDI), 0},
	    {"lea", "488d4c9608", R(RSI) | R(RDX), R(RCX)},
	    {"load_own_base", "488b00", R(RAX), 0},
	    {"store", "48891f", R(RBX) | R(RDI), 0},
	    {"push", "53", R(RBX) | R(RSP), 0},
	    {"pop_r11", "415b", R(RSP), R(R11)},
	    {"rep_movsb", "f3a4", R(RCX) | R(RSI) | R(RDI), 0},
	    {"cpuid", "0fa2", R(RAX) | R(RCX), R(RBX) | R(RDX)},
	    {"div", "48f7f1", R(RAX) | R(RDX) | R(RCX), 0},
	    {"gs_load", "65488b0425000000", 0, R(RAX)},
	    {"rdmsr", "0f32", R(RCX), R(RAX) | R(RDX)},
	    {"setcc_partial", "0f94c0", 0, 0},
	    {"movzx", "0fb6c1", R(RCX), R(RAX)},
	};
	struct kjit_block_desc *d = &tr.desc;
	const struct kjit_insn *in = &d->insn[0];
	char name[96];
	unsigned i;
	enum kjit_reason r;

	for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
		memset(code, 0xcc, sizeof(code));
		kt_unhex(cases[i].in,
			 code); /* then int3: the block ends there */
		r = kjit_decode_block(&tr, ORIG, d);
		snprintf(name, sizeof(name), "jit.regs.%s", cases[i].name);
		/* rsp effects (push/pop/call) do not matter: never chosen */
		kt_check(
		    name,
		    !r &&
			(in->regs_read & ~R(RSP)) == (cases[i].rd & ~R(RSP)) &&
			(in->regs_kill & ~R(RSP)) == cases[i].kill,
		    "r=%s read %#x kill %#x, want %#x %#x", kjit_reason_name(r),
		    in->regs_read, in->regs_kill, cases[i].rd, cases[i].kill);
	}
}

static unsigned dead(u16 live)
{
	return 0xffffu & ~(unsigned)live;
}

/* Liveness inside a block (kjit_live_points): the registers a block
 * overwrites unread are dead before it, nothing is dead at its
 * terminator (successors are never looked at), flags die at a kill. */
static void test_live_points(void)
{
	/* mov %r11,%rax; mov $1,%r11d; xor %ecx,%ecx; ret */
	static const char *in = "4c89d8 41bb01000000 31c9 c3";
	u16 fl[KJIT_MAX_INSNS], rg[KJIT_MAX_INSNS];
	struct kjit_block_desc *d = &tr.desc;
	enum kjit_reason r;

	memset(code, 0xcc, sizeof(code));
	kt_unhex(in, code);
	r = kjit_decode_block(&tr, ORIG, d);
	if (!r)
		kjit_live_points(d, 0, fl, rg);
	kt_check("jit.live_points.regs",
		 !r && d->n == 4 && dead(rg[0]) == (R(RAX) | R(RCX)) &&
		     dead(rg[1]) == (R(RCX) | R(R11)) &&
		     dead(rg[2]) == R(RCX) && !dead(rg[3]),
		 "r=%s n=%u dead %#x %#x %#x %#x", kjit_reason_name(r), d->n,
		 dead(rg[0]), dead(rg[1]), dead(rg[2]), dead(rg[3]));
	kt_check("jit.live_points.flags",
		 !r && !(fl[0] & KX86_FLAGS_ARITH) &&
		     (fl[3] & KX86_FLAGS_ARITH) == KX86_FLAGS_ARITH,
		 "flags live %#x .. %#x", fl[0], fl[3]);
}

/* ---- placement and bytes ------------------------------------------------ */

struct golden {
	const char *name, *in, *out;
	u8 ctr, seq, at, reg;
	u8 live_seq;  /* KJIT_SEQ_LAHF or KJIT_SEQ_PUSHF */
	bool no_move; /* kjit_config.ctr_move off */
};

/* Counter offset FAKE_GS (+ block & 0xfff8 = 0): movabs $0x40000000010000.
 * Hand-reviewed with objdump -b binary -m i386:x86-64. */
static const struct golden goldens[] = {
    /* mov $1,%r11d; xor %eax,%eax; ret: r11 (and rax) dead at the entry,
     * flags too: movabs $off,%r11; incq %gs:(%r11) */
    {"jit.ctr.gs_reg_r11", "41bb01000000 31c0 c3",
     "49bb00000100000040006549ff0341bb0100000031c0e9e5"
     "ffefff",
     KJIT_CTR_GS_REG, KJIT_SEQ_INC, 0, KX86_R11, KJIT_SEQ_LAHF, false},
    /* only %r12 dead: a base that needs a SIB byte (ff 04 24) */
    {"jit.ctr.gs_reg_r12", "41bc01000000 4885ff c3",
     "49bc00000100000040006549ff042441bc010000004885ff"
     "e9e3ffefff",
     KJIT_CTR_GS_REG, KJIT_SEQ_INC, 0, KX86_R12, KJIT_SEQ_LAHF, false},
    /* only %r13 dead: a base that needs mod 1, disp8 0 (ff 45 00) */
    {"jit.ctr.gs_reg_r13", "41bd01000000 4885ff c3",
     "49bd00000100000040006549ff450041bd010000004885ff"
     "e9e3ffefff",
     KJIT_CTR_GS_REG, KJIT_SEQ_INC, 0, KX86_R13, KJIT_SEQ_LAHF, false},
    /* only %rbp dead */
    {"jit.ctr.gs_reg_rbp", "bd01000000 4885ff c3",
     "48bd00000100000040006548ff4500bd010000004885ffe9"
     "e4ffefff",
     KJIT_CTR_GS_REG, KJIT_SEQ_INC, 0, KX86_RBP, KJIT_SEQ_LAHF, false},
    /* test %rdi,%rdi; ret: nothing dead: push %rax; movabs $off,%rax;
     * incq %gs:(%rax); pop %rax */
    {"jit.ctr.gs_reg_saved", "4885ff c3",
     "5048b800000100000040006548ff00584885ffe9e8ffefff", KJIT_CTR_GS_SAVED,
     KJIT_SEQ_INC, 0, KX86_RAX, KJIT_SEQ_LAHF, false},
    /* mov $1,%esp kills only rsp, never used: saved */
    {"jit.ctr.never_rsp", "bc01000000 4885ff c3",
     "5048b800000100000040006548ff0058bc010000004885ff"
     "e9e3ffefff",
     KJIT_CTR_GS_SAVED, KJIT_SEQ_INC, 0, KX86_RAX, KJIT_SEQ_LAHF, false},
    /* mov $1,%r11d; je: flags live all along, r11 dead: LAHF around
     * movabs $off,%r11; incq %gs:(%r11) */
    {"jit.ctr.lahf_gs_reg", "41bb01000000 7402",
     "509f0f90c049bb00000100000040006549ff03047f9e5841"
     "bb010000002e0f85080000002e2e2ee90a00000068080000"
     "81e9caffefff680a000081e9c0ffefff",
     KJIT_CTR_GS_REG, KJIT_SEQ_LAHF, 0, KX86_R11, KJIT_SEQ_LAHF, false},
    /* mov $1,%eax; je: only rax dead, which LAHF holds the flags in:
     * saved %rcx inside the LAHF sequence */
    {"jit.ctr.lahf_not_rax", "b801000000 7402",
     "509f0f90c05148b900000100000040006548ff0159047f9e"
     "58b8010000000f85080000002e2e2ee90a00000068070000"
     "81e9caffefff6809000081e9c0ffefff",
     KJIT_CTR_GS_SAVED, KJIT_SEQ_LAHF, 0, KX86_RCX, KJIT_SEQ_LAHF, false},
    /* je alone: LAHF and a saved %rcx */
    {"jit.ctr.lahf_gs_saved", "7402",
     "509f0f90c05148b900000100000040006548ff0159047f9e"
     "582e0f85080000002e2e2ee90a0000006802000081e9ceff"
     "efff6804000081e9c4ffefff",
     KJIT_CTR_GS_SAVED, KJIT_SEQ_LAHF, 0, KX86_RCX, KJIT_SEQ_LAHF, false},
    /* the same two with kjit_config.live_seq = PUSHF */
    {"jit.ctr.pushf_gs_reg", "41bb01000000 7402",
     "9c49bb00000100000040006549ff039d41bb010000000f85"
     "080000002e2e2ee90a0000006808000081e9d2ffefff680a"
     "000081e9c8ffefff",
     KJIT_CTR_GS_REG, KJIT_SEQ_PUSHF, 0, KX86_R11, KJIT_SEQ_PUSHF, false},
    {"jit.ctr.pushf_gs_saved", "7402",
     "9c5048b800000100000040006548ff00589d0f8508000000"
     "2e2e2ee90a0000006802000081e9d6ffefff6804000081e9"
     "ccffefff",
     KJIT_CTR_GS_SAVED, KJIT_SEQ_PUSHF, 0, KX86_RAX, KJIT_SEQ_PUSHF, false},
    /* sete %al; xor %eax,%eax; ret: flags live at the entry, dead before
     * the xor, which also kills rax: the bare increment moves there */
    {"jit.ctr.moved_flags", "0f94c0 31c0 c3",
     "0f94c048b800000100000040006548ff0031c0e9e8ffefff", KJIT_CTR_GS_REG,
     KJIT_SEQ_MOVED, 1, KX86_RAX, KJIT_SEQ_LAHF, false},
    /* ... unless told not to (kjit_config.ctr_move off): LAHF, saved */
    {"jit.ctr.not_moved", "0f94c0 31c0 c3",
     "509f0f90c05148b900000100000040006548ff0159047f9e"
     "580f94c031c0e9ddffefff",
     KJIT_CTR_GS_SAVED, KJIT_SEQ_LAHF, 0, KX86_RCX, KJIT_SEQ_LAHF, true},
    /* add %r11,%rax (flags dead, nothing dead); mov $1,%r11d; test %rdi,
     * %rdi; ret: after the add r11 is dead: moved for the register */
    {"jit.ctr.moved_reg", "4c01d8 41bb01000000 4885ff c3",
     "4c01d849bb00000100000040006549ff0341bb0100000048"
     "85ffe9e1ffefff",
     KJIT_CTR_GS_REG, KJIT_SEQ_MOVED, 1, KX86_R11, KJIT_SEQ_LAHF, false},
    /* sete %cl; mov %eax,%ss; xor %eax,%eax; ret: rax is dead after the
     * mov to %ss, in its interrupt shadow: not there, before it (flags
     * dead, a saved register) */
    {"jit.ctr.not_in_irq_shadow", "0f94c1 8ed0 31c0 c3",
     "0f94c15048b800000100000040006548ff00588ed031c0e9"
     "e4ffefff",
     KJIT_CTR_GS_SAVED, KJIT_SEQ_MOVED, 1, KX86_RAX, KJIT_SEQ_LAHF, false},
    /* je alone (a branch target, flags live), both successors xor first:
     * the counter on each edge, bare, through a saved %rax:
     * jne skip; <inc>; jmp exit(T); skip: <inc>; jmp exit(fall) */
    {"jit.ctr.edges", "7403 31c0 c3 31c9 c3",
     "0f85160000005048b800000100000040006548ff00582ee9"
     "180000005048b800000100000040006548ff00582e2e2ee9"
     "0a0000006805000081e9c2ffefff6802000081e9b8ffefff",
     KJIT_CTR_GS_SAVED, KJIT_SEQ_EDGES, 0, KX86_RAX, KJIT_SEQ_LAHF, false},
    /* ... where the jcc's target reads ZF (sete): LAHF at the entry */
    {"jit.ctr.edges_not_live", "7403 31c0 c3 0f94c0 c3",
     "509f0f90c05148b900000100000040006548ff0159047f9e"
     "582e0f85080000002e2e2ee90a0000006802000081e9ceff"
     "efff6805000081e9c4ffefff",
     KJIT_CTR_GS_SAVED, KJIT_SEQ_LAHF, 0, KX86_RCX, KJIT_SEQ_LAHF, false},
    /* sete %al; call __fentry__ (dropped); xor; ret: not before the dropped
     * call, before the xor */
    {"jit.ctr.not_at_dropped", "0f94c0 e8f8ffdf00 31c0 c3",
     "0f94c048b800000100000040006548ff0031c0e9e8ffefff", KJIT_CTR_GS_REG,
     KJIT_SEQ_MOVED, 2, KX86_RAX, KJIT_SEQ_LAHF, false},
};

static void test_goldens(void)
{
	char why[256], name[96], got[2 * KJIT_MAX_BLOCK_BYTES + 1];
	struct kjit_config cfg;
	struct kjit_block b;
	enum kjit_reason r;
	u8 want[512];
	unsigned i, n;

	for (i = 0; i < KJIT_ARRAY_SIZE(goldens); i++) {
		const struct golden *g = &goldens[i];

		kjit_config_default(&cfg);
		cfg.live_seq = g->live_seq;
		cfg.ctr_move = !g->no_move;
		setup(&cfg, FAKE_GS);
		r = xlate(g->in, &b, why);
		kt_hex(out, r ? 0 : b.len, got);
		n = kt_unhex(g->out, want);
		kt_check(g->name,
			 !r && !why[0] && b.ctr == g->ctr && b.seq == g->seq &&
			     b.ctr_at == g->at && b.ctr_reg == g->reg &&
			     b.len == n && !memcmp(out, want, n),
			 "r=%s %s ctr=%s seq=%s at=%u reg=%u, want %s %s "
			 "%u %u; got %s",
			 kjit_reason_name(r), why, kjit_ctr_form_name(b.ctr),
			 kjit_seq_name(b.seq), b.ctr_at, b.ctr_reg,
			 kjit_ctr_form_name(g->ctr), kjit_seq_name(g->seq),
			 g->at, g->reg, got);
		(void)name;
	}
}

/* ---- executed with a real GS base -------------------------------------- */

/* Registers in and out of run_seq(): r[0..15] by number (rsp unused), the
 * flags. run_seq loads them, calls kjit_seq_target, stores them. */
struct cpu_state {
	u64 r[16];
	u64 flags;
};
void run_seq(struct cpu_state *st);
void *kjit_seq_target;
__asm__(".text\n.globl run_seq\nrun_seq:\n"
	" push %rbx\n push %rbp\n push %r12\n push %r13\n push %r14\n"
	" push %r15\n push %rdi\n"
	" pushq 128(%rdi)\n popfq\n"
	" mov 0(%rdi),%rax\n mov 8(%rdi),%rcx\n mov 16(%rdi),%rdx\n"
	" mov 24(%rdi),%rbx\n mov 40(%rdi),%rbp\n mov 48(%rdi),%rsi\n"
	" mov 64(%rdi),%r8\n mov 72(%rdi),%r9\n mov 80(%rdi),%r10\n"
	" mov 88(%rdi),%r11\n mov 96(%rdi),%r12\n mov 104(%rdi),%r13\n"
	" mov 112(%rdi),%r14\n mov 120(%rdi),%r15\n mov 56(%rdi),%rdi\n"
	" call *kjit_seq_target(%rip)\n"
	" pushfq\n push %rdi\n mov 16(%rsp),%rdi\n"
	" mov %rax,0(%rdi)\n mov %rcx,8(%rdi)\n mov %rdx,16(%rdi)\n"
	" mov %rbx,24(%rdi)\n mov %rbp,40(%rdi)\n mov %rsi,48(%rdi)\n"
	" mov %r8,64(%rdi)\n mov %r9,72(%rdi)\n mov %r10,80(%rdi)\n"
	" mov %r11,88(%rdi)\n mov %r12,96(%rdi)\n mov %r13,104(%rdi)\n"
	" mov %r14,112(%rdi)\n mov %r15,120(%rdi)\n"
	" pop %rax\n mov %rax,56(%rdi)\n pop %rax\n mov %rax,128(%rdi)\n"
	" pop %rdi\n pop %r15\n pop %r14\n pop %r13\n pop %r12\n pop %rbp\n"
	" pop %rbx\n ret\n");

#define NCPU	   2
#define CTR_SLOTS  HENV_MAX_CTRS
#define CPU_STRIDE ((u64)CTR_SLOTS * 8)

/* One sequence to execute: how it is emitted. */
struct exec_case {
	const char *name;
	u8 ctr;	       /* expected enum kjit_ctr_form */
	u16 live;      /* flags live at the point */
	u16 dead;      /* registers dead at the point */
	u8 live_seq;   /* KJIT_SEQ_LAHF or KJIT_SEQ_PUSHF */
	bool small;    /* offsets fit in 32 bits: incq %gs:disp32 */
	bool lock_abs; /* the old form: lock incq [disp32], no %gs */
};

static const struct exec_case exec_cases[] = {
    {"gs_disp32", KJIT_CTR_GS_DISP32, 0, 0, KJIT_SEQ_LAHF, true, false},
    {"gs_reg_r11", KJIT_CTR_GS_REG, 0, R(R11), KJIT_SEQ_LAHF, false, false},
    {"gs_reg_r12", KJIT_CTR_GS_REG, 0, R(R12), KJIT_SEQ_LAHF, false, false},
    {"gs_reg_r13", KJIT_CTR_GS_REG, 0, R(R13), KJIT_SEQ_LAHF, false, false},
    {"gs_reg_rbp", KJIT_CTR_GS_REG, 0, R(RBP), KJIT_SEQ_LAHF, false, false},
    {"gs_reg_saved", KJIT_CTR_GS_SAVED, 0, 0, KJIT_SEQ_LAHF, false, false},
    {"lahf_gs_disp32", KJIT_CTR_GS_DISP32, KX86_FLAGS_ARITH, 0, KJIT_SEQ_LAHF,
     true, false},
    {"lahf_gs_reg", KJIT_CTR_GS_REG, KX86_FLAGS_ARITH, R(R11) | R(RAX),
     KJIT_SEQ_LAHF, false, false},
    {"lahf_gs_saved", KJIT_CTR_GS_SAVED, KX86_FLAGS_ARITH, R(RAX),
     KJIT_SEQ_LAHF, false, false},
    {"pushf_gs_reg", KJIT_CTR_GS_REG, KX86_FLAGS_ARITH, R(R11), KJIT_SEQ_PUSHF,
     false, false},
    {"pushf_gs_saved", KJIT_CTR_GS_SAVED, KX86_FLAGS_ARITH, 0, KJIT_SEQ_PUSHF,
     false, false},
    {"lock", KJIT_CTR_LOCK, 0, 0, KJIT_SEQ_LAHF, false, true},
    {"lahf_lock", KJIT_CTR_LOCK, KX86_FLAGS_ARITH, 0, KJIT_SEQ_LAHF, false,
     true},
};

/* Per-CPU counter area (NCPU copies, shared with ptrace children) and its
 * hash keys; the code page. */
static u64 *pcpu, *keys;
static u8 *page;
static struct henv xh;

/* Emit @c's sequence + ret at page; returns its length, 0 on failure.
 * *ctr: the counter's slot in CPU 0's copy. */
static unsigned emit_case(const struct exec_case *c, u64 **ctr)
{
	struct kjit_point_info pi = {KJIT_POINT_ENTRY, 1,	0,
				     c->live,	       c->dead, 0};
	struct kjit_config cfg;
	struct kjit_block blk;
	struct kjit_emit e;

	memset(keys, 0, CTR_SLOTS * sizeof(u64));
	memset(pcpu, 0, NCPU * CPU_STRIDE);
	henv_init(&xh, c->lock_abs ? KJIT_MEM_ABS32 : KJIT_MEM_GS, pcpu, keys,
		  0);
	xh.ctr_lock = c->lock_abs;
	if (!c->lock_abs && henv_use_gs(&xh, !c->small))
		return 0;
	kjit_config_default(&cfg);
	cfg.live_seq = c->live_seq;
	kjit_translator_init(&tr, &xh.env, &cfg);
	kjit_emit_init(&e, page, 4096, (u64)(uintptr_t)page);
	memset(&blk, 0, sizeof(blk));
	if (kjit_instrument_point(&tr, &e, &pi, &blk) || blk.ctr != c->ctr ||
	    !(*ctr = henv_counter_of(&xh, 1)))
		return 0;
	kjit_emit_u8(&e, KX86_OP_RET);
	kjit_seq_target = page;
	return e.pos;
}

static void fill_state(struct cpu_state *st, unsigned f)
{
	static const unsigned bits[6] = {0, 2, 4, 6, 7, 11};
	unsigned k;

	for (k = 0; k < 16; k++)
		st->r[k] = 0x0101010101010101ull * (k + 1) + f;
	st->flags = 0x202;
	for (k = 0; k < 6; k++)
		if (f & (1u << k))
			st->flags |= 1ull << bits[k];
}

/* Registers and flags the sequence must keep, compared; "" if kept. */
static void compare_state(const struct exec_case *c, u8 reg,
			  const struct cpu_state *in, const struct cpu_state *o,
			  char *why, size_t n)
{
	unsigned k;

	for (k = 0; k < 16; k++) {
		if (k == KX86_RSP ||
		    ((c->ctr == KJIT_CTR_GS_REG || c->ctr == KJIT_CTR_GS_BANK) &&
		     k == reg)) /* dead */
			continue;
		if (o->r[k] != in->r[k]) {
			snprintf(why, n, "register %u changed", k);
			return;
		}
	}
	/* a bare inc (flags dead) keeps CF only; a saving sequence all */
	if ((o->flags & (c->live ? 0xcd5 : 0x1)) !=
	    (in->flags & (c->live ? 0xcd5 : 0x1)))
		snprintf(why, n, "flags %#llx -> %#llx",
			 (unsigned long long)in->flags,
			 (unsigned long long)o->flags);
}

static void test_exec(void)
{
	char name[96], why[128];
	struct cpu_state in, o;
	unsigned i, f;
	u64 *ctr;

	for (i = 0; i < KJIT_ARRAY_SIZE(exec_cases); i++) {
		const struct exec_case *c = &exec_cases[i];
		u8 reg;

		snprintf(name, sizeof(name), "jit.ctr.exec.%s", c->name);
		why[0] = 0;
		if (!emit_case(c, &ctr)) {
			kt_fail(name, "could not emit the sequence");
			continue;
		}
		{ /* the register the sequence went through */
			ZydisDecoder dec;
			ZydisDecodedInstruction zi;
			ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
			unsigned off = 0;

			ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
					 ZYDIS_STACK_WIDTH_64);
			reg = 0xff;
			while (ZYAN_SUCCESS(ZydisDecoderDecodeFull(
				   &dec, page + off, 64, &zi, op)) &&
			       zi.mnemonic != ZYDIS_MNEMONIC_RET) {
				if (zi.mnemonic == ZYDIS_MNEMONIC_MOV &&
				    zi.raw.imm[0].size == 64)
					reg = (u8)(op[0].reg.value -
						   ZYDIS_REGISTER_RAX);
				off += zi.length;
			}
		}
		for (f = 0; f < 64 && !why[0]; f++) {
			u64 before = *ctr;

			fill_state(&in, f);
			o = in;
			run_seq(&o);
			compare_state(c, reg, &in, &o, why, sizeof(why));
			if (!why[0] && *ctr != before + 1)
				snprintf(why, sizeof(why),
					 "counter %llu -> %llu",
					 (unsigned long long)before,
					 (unsigned long long)*ctr);
		}
		henv_set_gs(0);
		kt_check(name, !why[0], "with flags %u: %s", f - 1, why);
	}
}

/* ---- two "CPUs": threads with their own GS base ------------------------ */

#define THREAD_RUNS 100000

struct cpu_thread {
	unsigned cpu;
	int err;
};

/* Runs the emitted sequence THREAD_RUNS times as CPU @cpu (GS base on
 * copy @cpu of the per-CPU area). */
static void *cpu_thread_fn(void *arg)
{
	struct cpu_thread *t = arg;
	struct cpu_state st;
	long i;

	t->err = henv_set_gs(xh.gs_base + t->cpu * CPU_STRIDE);
	fill_state(&st, 0);
	for (i = 0; i < THREAD_RUNS && !t->err; i++)
		run_seq(&st);
	return NULL;
}

static void test_threads(void)
{
	static const unsigned which[] = {1, 5, 8}; /* gs_reg, saved, lahf */
	struct cpu_thread t[NCPU];
	pthread_t th[NCPU];
	unsigned i, k;
	u64 *ctr, got[NCPU];
	char name[96];

	for (i = 0; i < KJIT_ARRAY_SIZE(which); i++) {
		const struct exec_case *c = &exec_cases[which[i]];
		bool ok = emit_case(c, &ctr) != 0;

		snprintf(name, sizeof(name), "jit.ctr.percpu_threads.%s",
			 c->name);
		for (k = 0; k < NCPU && ok; k++) {
			t[k].cpu = k;
			t[k].err = 0;
			ok =
			    !pthread_create(&th[k], NULL, cpu_thread_fn, &t[k]);
		}
		for (k = 0; k < NCPU && ok; k++)
			pthread_join(th[k], NULL);
		for (k = 0; k < NCPU; k++)
			got[k] = ok ? ctr[k * CTR_SLOTS] : 0;
		kt_check(name,
			 ok && !t[0].err && !t[1].err &&
			     got[0] == THREAD_RUNS && got[1] == THREAD_RUNS,
			 "per-CPU copies %llu and %llu, want %d each",
			 (unsigned long long)got[0], (unsigned long long)got[1],
			 THREAD_RUNS);
	}
	henv_set_gs(0);
}

/* ---- migration between any two instructions ---------------------------- */

/*
 * A child runs the sequence once as CPU 0; the parent single-steps it and,
 * when the child's rip is the start of the sequence's instruction @at,
 * moves it to CPU 1 (PTRACE_POKEUSER of gs_base: what a migration does to
 * %gs). The child checks its own registers (exit status 0: kept). Returns
 * the number of instructions of the sequence (@at beyond it: never moved),
 * or -1 with *why set.
 */
static int migrate_run(const struct exec_case *c, unsigned at, u8 reg,
		       char *why, size_t n)
{
	u64 start = (u64)(uintptr_t)page, gs1 = xh.gs_base + CPU_STRIDE;
	unsigned idx = 0;
	bool moved = false;
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		struct cpu_state in, o;

		ptrace(PTRACE_TRACEME, 0, 0, 0);
		henv_set_gs(xh.gs_base);
		fill_state(&in, 63);
		o = in;
		raise(SIGSTOP);
		run_seq(&o);
		why[0] = 0;
		compare_state(c, reg, &in, &o, why, n);
		_exit(why[0] ? 1 : 0);
	}
	waitpid(pid, &st, 0);
	for (;;) {
		struct user_regs_struct regs;

		if (ptrace(PTRACE_SINGLESTEP, pid, 0, 0) < 0)
			break;
		waitpid(pid, &st, 0);
		if (!WIFSTOPPED(st))
			break;
		ptrace(PTRACE_GETREGS, pid, 0, &regs);
		if (regs.rip < start || regs.rip >= start + 4096)
			continue;
		if (idx == at && !moved) {
			regs.gs_base = gs1;
			if (ptrace(PTRACE_SETREGS, pid, 0, &regs) < 0) {
				snprintf(why, n, "cannot set the gs base");
				kill(pid, SIGKILL);
				waitpid(pid, &st, 0);
				return -1;
			}
			moved = true;
		}
		idx++;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(why, n, "child: registers or flags not kept (%#x)",
			 st);
		return -1;
	}
	return (int)idx;
}

static void test_migration(void)
{
	static const unsigned which[] = {1, 5, 7, 8, 10};
	char name[96], why[160];
	unsigned i, at;
	u64 *ctr;

	for (i = 0; i < KJIT_ARRAY_SIZE(which); i++) {
		const struct exec_case *c = &exec_cases[which[i]];
		int ninsn = 1;
		u8 reg = c->ctr == KJIT_CTR_GS_REG ? KX86_R11 : 0xff;

		snprintf(name, sizeof(name), "jit.ctr.migrate.%s", c->name);
		why[0] = 0;
		if (!emit_case(c, &ctr)) {
			kt_fail(name, "could not emit the sequence");
			continue;
		}
		/* every instruction boundary of the sequence, the ret's too */
		for (at = 0; at <= (unsigned)ninsn && !why[0]; at++) {
			u64 c0 = ctr[0], c1 = ctr[CTR_SLOTS];
			int k = migrate_run(c, at, reg, why, sizeof(why));

			if (k < 0)
				break;
			if (at == 0)
				ninsn = k;
			if (ctr[0] + ctr[CTR_SLOTS] != c0 + c1 + 1)
				snprintf(why, sizeof(why),
					 "moved before insn %u: counted %llu "
					 "times",
					 at,
					 (unsigned long long)(ctr[0] +
							      ctr[CTR_SLOTS] -
							      c0 - c1));
		}
		henv_set_gs(0);
		kt_check(name, !why[0], "%s", why);
	}
}

/* ---- the running task's bank (KJIT_MEM_GS_BANK) ------------------------ */

/*
 * A session split by process counts in the bank of the task that runs the
 * code: each CPU's bank slot holds that bank's offset, the sequence loads
 * it and increments at the counter's place in it. Here the slot (word
 * BANK_SLOT of every CPU copy) names bank A (words BANK_A..) or bank B:
 * each run must add one to the named bank's counter on the running CPU's
 * copy and nothing to the other bank, keep every register but a dead one
 * and the flags where live, for every flag combination, with the slot in
 * a disp32 and beyond one (movabs); and moved to the other CPU between any
 * two of its instructions (ptrace), the one bank's copies must still sum
 * one more, the other's none.
 */
#define BANK_SLOT 16
#define BANK_A	  1024
#define BANK_B	  2048
#define BANK_IDX  5

static struct kjit_mem bank_mem;

static bool bank_counter(void *opaque, u64 block, enum kjit_counter_kind kind,
			 unsigned exit, struct kjit_mem *out)
{
	*out = bank_mem;
	return kind == KJIT_CTR_BLOCK;
}

static u64 word_off(unsigned w)
{
	return (u64)(uintptr_t)&pcpu[w] - xh.gs_base;
}

/* Every CPU's slot names bank @w. */
static void name_bank(unsigned w)
{
	unsigned k;

	for (k = 0; k < NCPU; k++)
		pcpu[k * CTR_SLOTS + BANK_SLOT] = word_off(w);
}

static u64 bank_sum(unsigned w)
{
	u64 s = 0;
	unsigned k;

	for (k = 0; k < NCPU; k++)
		s += pcpu[k * CTR_SLOTS + w + BANK_IDX];
	return s;
}

static unsigned emit_bank(const struct exec_case *c, u8 *reg)
{
	struct kjit_point_info pi = {KJIT_POINT_ENTRY, 1,	0,
				     c->live,	       c->dead, 0};
	struct kjit_config cfg;
	struct kjit_block blk;
	struct kjit_emit e;

	memset(pcpu, 0, NCPU * CPU_STRIDE);
	henv_init(&xh, KJIT_MEM_GS, pcpu, keys, 0);
	if (henv_use_gs(&xh, !c->small))
		return 0;
	xh.env.counter = bank_counter;
	bank_mem = (struct kjit_mem){KJIT_MEM_GS_BANK, word_off(BANK_SLOT),
				     false, BANK_IDX * 8};
	kjit_config_default(&cfg);
	cfg.live_seq = c->live_seq;
	kjit_translator_init(&tr, &xh.env, &cfg);
	kjit_emit_init(&e, page, 4096, (u64)(uintptr_t)page);
	memset(&blk, 0, sizeof(blk));
	if (kjit_instrument_point(&tr, &e, &pi, &blk) || blk.ctr != c->ctr)
		return 0;
	*reg = blk.ctr_reg;
	kjit_emit_u8(&e, KX86_OP_RET);
	kjit_seq_target = page;
	return e.pos;
}

static void test_bank(void)
{
	static const struct exec_case cases[] = {
	    {"r11", KJIT_CTR_GS_BANK, 0, R(R11), KJIT_SEQ_LAHF, true, false},
	    {"r11_far", KJIT_CTR_GS_BANK, 0, R(R11), KJIT_SEQ_LAHF, false,
	     false},
	    {"r12_far", KJIT_CTR_GS_BANK, 0, R(R12), KJIT_SEQ_LAHF, false,
	     false},
	    {"r13_far", KJIT_CTR_GS_BANK, 0, R(R13), KJIT_SEQ_LAHF, false,
	     false},
	    {"rbp", KJIT_CTR_GS_BANK, 0, R(RBP), KJIT_SEQ_LAHF, true, false},
	    {"saved", KJIT_CTR_GS_BANK_SAVED, 0, 0, KJIT_SEQ_LAHF, true, false},
	    {"saved_far", KJIT_CTR_GS_BANK_SAVED, 0, 0, KJIT_SEQ_LAHF, false,
	     false},
	    {"lahf", KJIT_CTR_GS_BANK, KX86_FLAGS_ARITH, R(R11) | R(RAX),
	     KJIT_SEQ_LAHF, true, false},
	    {"lahf_saved", KJIT_CTR_GS_BANK_SAVED, KX86_FLAGS_ARITH, R(RAX),
	     KJIT_SEQ_LAHF, false, false},
	    {"pushf_saved", KJIT_CTR_GS_BANK_SAVED, KX86_FLAGS_ARITH, 0,
	     KJIT_SEQ_PUSHF, false, false},
	};
	char name[96], why[160];
	struct cpu_state in, o;
	unsigned i, f, at, b;
	u8 reg;

	for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
		const struct exec_case *c = &cases[i];
		int ninsn = 1;

		snprintf(name, sizeof(name), "jit.ctr.bank.run.%s", c->name);
		why[0] = 0;
		if (!emit_bank(c, &reg)) {
			kt_fail(name, "could not emit the sequence");
			continue;
		}
		for (b = 0; b < 2 && !why[0]; b++) {
			unsigned mine = b ? BANK_B : BANK_A,
				 other = b ? BANK_A : BANK_B;

			name_bank(mine);
			for (f = 0; f < 64 && !why[0]; f++) {
				u64 m = bank_sum(mine), n = bank_sum(other);

				fill_state(&in, f);
				o = in;
				run_seq(&o);
				compare_state(c, reg, &in, &o, why,
					      sizeof(why));
				if (!why[0] &&
				    (pcpu[mine + BANK_IDX] == 0 ||
				     bank_sum(mine) != m + 1 ||
				     bank_sum(other) != n))
					snprintf(why, sizeof(why),
						 "bank %c: %llu -> %llu, the "
						 "other %llu -> %llu",
						 b ? 'B' : 'A',
						 (unsigned long long)m,
						 (unsigned long long)bank_sum(
						     mine),
						 (unsigned long long)n,
						 (unsigned long long)bank_sum(
						     other));
			}
		}
		name_bank(BANK_A);
		for (at = 0; at <= (unsigned)ninsn && !why[0]; at++) {
			u64 m = bank_sum(BANK_A), n = bank_sum(BANK_B);
			int k = migrate_run(c, at, reg, why, sizeof(why));

			if (k < 0)
				break;
			if (at == 0)
				ninsn = k;
			if (bank_sum(BANK_A) != m + 1 || bank_sum(BANK_B) != n)
				snprintf(why, sizeof(why),
					 "moved before insn %u: bank A +%llu, "
					 "bank B +%llu",
					 at,
					 (unsigned long long)(bank_sum(BANK_A) -
							      m),
					 (unsigned long long)(bank_sum(BANK_B) -
							      n));
		}
		henv_set_gs(0);
		kt_check(name, !why[0], "%s", why);
	}
}

/* Translated blocks with bank counters, through the decode-back verifier
 * and the unwind map check: flags dead or live, a dead register or none,
 * the slot in a disp32 or beyond one. */
static void test_bank_translate(void)
{
	static const struct {
		const char *name, *in;
		u8 ctr;
	} cases[] = {
	    /* xor %r11d,%r11d; ret: r11 dead */
	    {"dead_reg", "4531db c3", KJIT_CTR_GS_BANK},
	    /* test %rdi,%rdi; ret: no register dead */
	    {"saved", "4885ff c3", KJIT_CTR_GS_BANK_SAVED},
	    /* jz +0: the flags live at the entry */
	    {"flags_live", "7400 c3", KJIT_CTR_GS_BANK_SAVED},
	};
	struct kjit_config cfg;
	struct kjit_block b;
	enum kjit_reason r;
	char name[96], why[256];
	unsigned i, far;

	kjit_config_default(&cfg);
	for (far = 0; far < 2; far++)
		for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
			setup(&cfg, FAKE_GS);
			henv.env.counter = bank_counter;
			bank_mem = (struct kjit_mem){
			    KJIT_MEM_GS_BANK, far ? FAKE_GS : 0x1000, false,
			    0x7ff8};
			r = xlate(cases[i].in, &b, why);
			snprintf(name, sizeof(name), "jit.ctr.bank.verify.%s%s",
				 cases[i].name, far ? "_far" : "");
			kt_check(name, !r && !why[0] && b.ctr == cases[i].ctr,
				 "r=%s form %s %s", kjit_reason_name(r),
				 kjit_ctr_form_name(b.ctr), why);
		}
}

/* Registers dead past a block: in both successors of a jcc in the same
 * function (kjit_env.func_start), at a compiled C callee's entry (r10,
 * r11), after a ret in a compiled C function; not where a successor reads
 * it, nor where the function is unknown, nor in an assembly callee, whose
 * code the look-ahead does not read. The verifier checks each claim. */
static void test_dead_past(void)
{
	static const struct {
		const char *name, *in;
		bool fn_at_orig; /* func_start: one function at ORIG */
		u8 ctr;		 /* KJIT_CTR_GS_REG (with r11) or _SAVED */
	} cases[] = {
	    /* test %rdi,%rdi; je 1f; xor %r11,%r11; ret; 1: xor %r11,%r11;
	     * ret */
	    {"jit.ctr.dead_past.jcc", "4885ff 7404 4d31db c3 4d31db c3", true,
	     KJIT_CTR_GS_REG},
	    /* ... 1: mov %r11,%rax: read on one edge */
	    {"jit.ctr.dead_past.jcc_one_reads",
	     "4885ff 7404 4d31db c3 4c89d8 c3", true, KJIT_CTR_GS_SAVED},
	    /* ... no function known: its successors are not read */
	    {"jit.ctr.dead_past.no_function", "4885ff 7404 4d31db c3 4d31db c3",
	     false, KJIT_CTR_GS_SAVED},
	    /* test; jmp 1f; int3 int3; 1: xor %r11,%r11; ret */
	    {"jit.ctr.dead_past.jmp", "4885ff eb02 cccc 4d31db c3", true,
	     KJIT_CTR_GS_REG},
	    /* test; call F, F (at +0x40) compiled C: call __fentry__ first */
	    {"jit.ctr.dead_past.call_c",
	     "4885ff e838000000 "
	     "ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
	     "c"
	     "cccccccccccccccccccccccccccccccccccccccccccccc e8bbffdf00 c3",
	     true, KJIT_CTR_GS_REG},
	    /* ... F assembly that overwrites r11 first: not read, not taken */
	    {"jit.ctr.dead_past.call_asm",
	     "4885ff e838000000 "
	     "ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
	     "c"
	     "cccccccccccccccccccccccccccccccccccccccccccccc 4d31db c3",
	     true, KJIT_CTR_GS_SAVED},
	    /* call __fentry__; test; ret: a compiled C function's ret */
	    {"jit.ctr.dead_past.ret_c", "e8fbffdf00 4885ff c3", true,
	     KJIT_CTR_GS_REG},
	    /* test; ret: assembly (no __fentry__ site first) */
	    {"jit.ctr.dead_past.ret_asm", "4885ff c3", true, KJIT_CTR_GS_SAVED},
	};
	static const u64 orig_fn[] = {ORIG};
	struct kjit_config cfg;
	struct kjit_block b;
	enum kjit_reason r;
	char why[256];
	unsigned i;

	kjit_config_default(&cfg);
	setup(&cfg, FAKE_GS);
	for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
		henv.funcs = cases[i].fn_at_orig ? orig_fn : NULL;
		henv.n_funcs = cases[i].fn_at_orig ? 1 : 0;
		r = xlate(cases[i].in, &b, why);
		kt_check(
		    cases[i].name,
		    !r && !why[0] && b.ctr == cases[i].ctr &&
			(b.ctr != KJIT_CTR_GS_REG || b.ctr_reg == KX86_R11),
		    "r=%s form %s reg %u %s", kjit_reason_name(r),
		    kjit_ctr_form_name(b.ctr), b.ctr_reg, why);
	}
	henv.funcs = NULL, henv.n_funcs = 0;
}

int main(void)
{
	struct kjit_config cfg;

	kjit_config_default(&cfg);
	setup(&cfg, FAKE_GS);
	test_regs();
	test_live_points();
	test_goldens();
	test_dead_past();
	setup(&cfg, FAKE_GS);
	pcpu = mmap(NULL, NCPU * CPU_STRIDE, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	keys = calloc(CTR_SLOTS, sizeof(u64));
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (pcpu == MAP_FAILED || !keys || page == MAP_FAILED) {
		kt_fail("jit.ctr.setup", "no memory");
		return kt_exit();
	}
	test_exec();
	test_threads();
	test_migration();
	test_bank();
	test_bank_translate();
	return kt_exit();
}
