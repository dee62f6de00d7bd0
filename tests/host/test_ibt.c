/* test_ibt.c - indirect branch tracking (kjit_config.ibt): the layout
 * facts of jit/arch_x86.h, what the translator emits with the option on
 * and off, and that the static IBT proof (ibt_check.h) can fail.
 *
 * Every translation made here with ibt on is checked by the decode-back
 * verifier (vfy.ibt) and by the IBT proof; the corpus and vmlinux sweeps
 * (test_diff, test_vmlinux, test_smp) apply the same proof at scale.
 */
#include <stdio.h>
#include <string.h>
#include <Zydis/Zydis.h>
#include "codecache/entry.h"
#include "jit/translate.h"
#include "tests/host/host_env.h"
#include "tests/host/ibt_check.h"
#include "tests/host/kjit_test.h"
#include "tests/host/verify.h"
#include "tests/host/unwind_check.h"

#define ORIG	  0xffffffff81000000ull
#define RUN	  0xffffffff82000000ull
#define DISP	  0xffffffff81f00000ull
#define FAR_DISP  0x00007f0000001000ull /* out of rel32 reach of RUN */
#define FENTRY	  0xffffffff81e00000ull
#define RETTHUNK  0xffffffff81e00100ull
#define ITHUNK(r) (0xffffffff81e00200ull + 0x20 * (r))
#define GUARDCTR  (RUN + 0x100000)

static struct henv henv;
static struct kjit_translator tr;
static struct vfy vfy;
static struct uwc uwc; /* each translation's unwind map (unwind_check.h) */
static struct ibtc ibtc;
static u8 code[4096];
static u8 out[KJIT_MAX_BLOCK_BYTES];

/* The translator and verifier for @ibt, native calls (and followed
 * indirect calls) as asked, edge counters with @edges. */
static void setup(bool ibt, bool native, bool follow, bool edges)
{
	struct kjit_config cfg;
	int r;

	henv_init(&henv, KJIT_MEM_GS, NULL, NULL, DISP);
	henv.env.dispatch_nf = DISP + 0x40; /* the flags-dead entry */
	henv_add_region(&henv, ORIG, code, sizeof(code));
	henv_add_sym(&henv, FENTRY, KJIT_SYM_FENTRY, -1);
	henv_add_sym(&henv, RETTHUNK, KJIT_SYM_RETURN_THUNK, -1);
	for (r = 0; r < 16; r++)
		henv_add_sym(&henv, ITHUNK(r), KJIT_SYM_INDIRECT_THUNK, r);
	kjit_config_default(&cfg);
	cfg.ibt = ibt;
	cfg.native_calls = native;
	cfg.follow_indirect_calls = follow;
	cfg.predict_indirect_calls = follow;
	if (edges)
		cfg.instr |= KJIT_INSTR_EDGE_COUNT;
	kjit_translator_init(&tr, &henv.env, &cfg);
	vfy_init(&vfy, &henv.env);
	uwc_init(&uwc);
	vfy.native_calls = native;
	vfy.follow_indirect_calls = follow;
	vfy.predict_indirect_calls = follow;
	vfy.ibt = ibt;
	ibtc_init(&ibtc);
}

/* Translate hex code placed at ORIG for RUN; on success run the verifier
 * and, with ibt on, the IBT proof (the first complaint lands in @why). */
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
	else if (!r && tr.cfg.ibt &&
		 ibtc_block(&ibtc, kjit_last_desc(&tr), b, out, RUN))
		snprintf(why, 256, "ibt proof: %.200s", ibtc.msg);
	return r;
}

/* kx86_fentry_offset and friends on both forms of an IBT function start
 * and on starts that are neither. */
static void test_arch_facts(void)
{
	static const struct {
		const char *name, *hex;
		unsigned n, off;
		bool endbr64, endbr;
	} cases[] = {
	    {"jit.ibt.fentry_offset.endbr64", "f30f1efa e800000000", 9, 4, true,
	     true},
	    {"jit.ibt.fentry_offset.sealed", "660f1f00 0f1f440000", 9, 4, false,
	     true},
	    /* 7.2's seal (gen_endbr_poison() since 6.15): nopl -0x2a(%rax) */
	    {"jit.ibt.fentry_offset.sealed_6_15", "0f1f40d6 0f1f440000", 9, 4,
	     false, true},
	    {"jit.ibt.fentry_offset.nop4_other", "0f1f4000 0f1f440000", 9, 0,
	     false, false},
	    {"jit.ibt.fentry_offset.nop5", "0f1f440000", 5, 0, false, false},
	    {"jit.ibt.fentry_offset.call", "e800000000", 5, 0, false, false},
	    /* endbr32 starts no 64-bit function; the kernel's nopw 0(%rax) */
	    {"jit.ibt.fentry_offset.endbr32", "f30f1efb", 4, 0, false, false},
	    {"jit.ibt.fentry_offset.nopw", "660f1f440000", 6, 0, false, false},
	    {"jit.ibt.fentry_offset.short", "f30f1efa", 3, 0, false, false},
	};
	u8 b[16];
	unsigned i;

	for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
		kt_unhex(cases[i].hex, b);
		kt_check(cases[i].name,
			 kx86_fentry_offset(b, cases[i].n) == cases[i].off &&
			     kx86_is_endbr64(b, cases[i].n) ==
				 cases[i].endbr64 &&
			     kx86_is_endbr(b, cases[i].n) == cases[i].endbr,
			 "offset %u want %u, endbr64 %d, endbr %d",
			 kx86_fentry_offset(b, cases[i].n), cases[i].off,
			 kx86_is_endbr64(b, cases[i].n),
			 kx86_is_endbr(b, cases[i].n));
	}
}

/* Frozen bytes (objdump -b binary -m i386:x86-64 reviewed): ibt on,
 * `xor %eax,%eax; ret` -> endbr64; incq %gs:0x10000; xor; jmp dispatcher.
 * The same block opening with the original's endbr64 or seal translates to
 * the very same bytes: the block's own endbr64 stands for them. Off, they
 * are copied, and an endbr64 that does not open the block always is. */
static void test_emission(void)
{
	static const char want_hex[] =
	    "f30f1efa6548ff04250000010031c0e9ecffefff";
	static const char *const opening[] = {"", "f30f1efa ", "660f1f00 "};
	static const char *const names[] = {"jit.ibt.golden_ret",
					    "jit.ibt.endbr_dropped",
					    "jit.ibt.seal_dropped"};
	char in[64], why[256], got[2 * KJIT_MAX_BLOCK_BYTES + 1];
	struct kjit_block b;
	enum kjit_reason r;
	u8 want[64];
	unsigned i, n = (unsigned)kt_unhex(want_hex, want);

	setup(true, false, false, false);
	for (i = 0; i < KJIT_ARRAY_SIZE(opening); i++) {
		snprintf(in, sizeof(in), "%s31c0 c3", opening[i]);
		r = xlate(in, &b, why);
		kt_hex(out, r ? 0 : b.len, got);
		kt_check(names[i],
			 !r && !why[0] && b.len == n && !memcmp(out, want, n) &&
			     (i == 0 ||
			      (b.insn_off[0] == 0xffff && b.orig_len == 7)),
			 "r=%s %s got %s want %s", kjit_reason_name(r), why,
			 got, want_hex);
	}
	r = xlate("31c0 f30f1efa c3", &b, why);
	kt_check("jit.ibt.endbr_mid_block_copied",
		 !r && !why[0] && b.insn_off[1] != 0xffff &&
		     kx86_is_endbr64(out + b.insn_off[1], 4),
		 "r=%s %s", kjit_reason_name(r), why);
	setup(false, false, false, false);
	r = xlate("f30f1efa 31c0 c3", &b, why);
	kt_check("jit.ibt.off_endbr_copied",
		 !r && !why[0] && b.insn_off[0] != 0xffff &&
		     !kx86_is_endbr64(out, b.len) &&
		     kx86_is_endbr64(out + b.insn_off[0], 4),
		 "r=%s %s", kjit_reason_name(r), why);
}

/* Every terminator class, in design (a), native-call mode and the deep
 * configuration, with and without edge counters: verified, and proven. */
static void test_terminators(void)
{
	static const char *const ins[] = {
	    "31c0 c3",			   /* ret */
	    "4883ff05 7410",		   /* jcc */
	    "8b0500010000 c3",		   /* rip-relative, flags live */
	    "0f1f440000 e8f6ffdf00 c3",	   /* __fentry__ call dropped */
	    "f30f1efa e8f7ffdf00 31c0 c3", /* IBT layout: fentry at +4 */
	    "31c0 e85903e000",		   /* call indirect thunk */
	    "31c0 e9f900e000",		   /* jmp return thunk */
	    "31c0 ff24c500100000",	   /* jmp *table(,%rax,8) */
	    "31c0 c21000",		   /* ret $16 */
	    "31c0 e2fc",		   /* loop */
	    "31c0 e800100000",		   /* call rel32 */
	    "31c0 ffd0",		   /* call *%rax */
	    "31c0 ff1500010000",	   /* call *0x100(%rip) */
	    "31c0 ff542408",		   /* call *8(%rsp) */
	    "31c0 ffe0",		   /* jmp *%rax */
	};
	static const struct {
		const char *name;
		bool native, follow, edges;
		u64 copies; /* copied indirect calls expected */
	} modes[] = {
	    {"jit.ibt.terminators.design_a", false, false, false, 0},
	    {"jit.ibt.terminators.edges", false, false, true, 0},
	    {"jit.ibt.terminators.native_calls", true, false, false, 3},
	    {"jit.ibt.terminators.deep", true, true, true, 0},
	};
	struct kjit_block b;
	char why[256], first[300];
	enum kjit_reason r;
	unsigned m, i, bad;

	for (m = 0; m < KJIT_ARRAY_SIZE(modes); m++) {
		setup(true, modes[m].native, modes[m].follow, modes[m].edges);
		bad = 0;
		first[0] = 0;
		for (i = 0; i < KJIT_ARRAY_SIZE(ins); i++) {
			r = xlate(ins[i], &b, why);
			if ((r || why[0]) && !bad++)
				snprintf(first, sizeof(first), "%s: %s %.200s",
					 ins[i], kjit_reason_name(r), why);
		}
		kt_check(modes[m].name,
			 !bad && ibtc.blocks == KJIT_ARRAY_SIZE(ins) &&
			     ibtc.copied == modes[m].copies &&
			     ibtc.indirect == ibtc.copied,
			 "%u bad, first %s; %llu indirect, %llu copies (want "
			 "%llu)",
			 bad, first, (unsigned long long)ibtc.indirect,
			 (unsigned long long)ibtc.copied,
			 (unsigned long long)modes[m].copies);
	}
}

/* With ibt the translator reaches nothing through `jmp *[rip+lit]`: a
 * dispatcher out of rel32 reach refuses the block (without ibt, the
 * literal form - which the proof rejects). */
static void test_far(void)
{
	struct kjit_block b;
	char why[256];
	enum kjit_reason r;

	setup(true, false, false, false);
	henv.env.dispatch = henv.env.dispatch_nf = FAR_DISP;
	r = xlate("31c0 c3", &b, why);
	kt_check("jit.ibt.far_dispatcher_refused", r == KJIT_R_BRANCH_FAR,
		 "got %s", kjit_reason_name(r));
	r = xlate("4883ff05 7410", &b, why);
	kt_check("jit.ibt.far_stub_refused", r == KJIT_R_BRANCH_FAR, "got %s",
		 kjit_reason_name(r));
	/* without ibt: translated at RUN + 4 behind an endbr64 put there by
	 * hand, so that only the literal jmp is left for the proof to find */
	setup(false, false, false, false);
	henv.env.dispatch = henv.env.dispatch_nf = FAR_DISP;
	memset(code, 0xcc, sizeof(code));
	kt_unhex("31c0 c3", code);
	r = kjit_translate(&tr, ORIG, out + 4, sizeof(out) - 4, RUN + 4, &b);
	memcpy(out, "\xf3\x0f\x1e\xfa", 4);
	b.len += 4;
	kt_check("jit.ibt.proof_catches_indirect_jmp",
		 !r && ibtc_block(&ibtc, kjit_last_desc(&tr), &b, out, RUN) &&
		     strstr(ibtc.msg, "indirect jmp"),
		 "r=%s; proof said \"%s\"", kjit_reason_name(r), ibtc.msg);
}

/* The proof must fail on a block without endbr64 at its entry, on an
 * indirect jmp (here `jmp *%rax` patched over the exit to the dispatcher)
 * and on a byte past the code that is neither padding nor literal. */
static void test_proof_selftest(void)
{
	struct kjit_block b;
	char why[256];
	enum kjit_reason r;
	int no_endbr, ind, tail;

	setup(false, false, false, false);
	r = xlate("31c0 c3", &b, why);
	no_endbr = !r && ibtc_block(&ibtc, kjit_last_desc(&tr), &b, out, RUN);
	kt_check("jit.ibt.proof_catches_no_endbr",
		 no_endbr && strstr(ibtc.msg, "endbr64"), "proof said \"%s\"",
		 ibtc.msg);
	setup(true, false, false, false);
	r = xlate("31c0 c3", &b, why);
	/* ... e9 rel32 (jmp dispatcher, the last 5 bytes) -> ff e0 90 90 90 */
	memcpy(out + b.len - 5, "\xff\xe0\x90\x90\x90", 5);
	ind = !r && !why[0] &&
	      ibtc_block(&ibtc, kjit_last_desc(&tr), &b, out, RUN);
	kt_check("jit.ibt.proof_catches_jmp_reg",
		 ind && strstr(ibtc.msg, "indirect jmp"), "proof said \"%s\"",
		 ibtc.msg);
	r = xlate("31c0 c3", &b, why);
	out[b.len++] = KX86_OP_NOP;
	tail = !r && ibtc_block(&ibtc, kjit_last_desc(&tr), &b, out, RUN);
	kt_check("jit.ibt.proof_catches_stray_byte",
		 tail && strstr(ibtc.msg, "unreached"), "proof said \"%s\"",
		 ibtc.msg);
}

static bool guard_at_orig(void *opaque, u64 addr)
{
	return addr == ORIG;
}

/* Decode @b's hot path: the address the entry guard's cmpb reads, the
 * target of its jmp, and whether it comes right after an endbr64. */
static void scan_guard(const struct kjit_block *b, u64 *cmp, u64 *jmp,
		       bool *after_endbr)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZyanU64 abs;
	unsigned off = 0;
	bool endbr = false;

	*cmp = *jmp = 0;
	*after_endbr = false;
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	while (off < b->body_len && !*jmp &&
	       ZYAN_SUCCESS(ZydisDecoderDecodeFull(
		   &dec, out + off, b->body_len - off, &zi, op))) {
		if (zi.mnemonic == ZYDIS_MNEMONIC_CMP && !*cmp &&
		    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&zi, &op[0],
							  RUN + off, &abs))) {
			*cmp = abs;
			*after_endbr = endbr;
		}
		if (zi.mnemonic == ZYDIS_MNEMONIC_JMP &&
		    ZYAN_SUCCESS(
			ZydisCalcAbsoluteAddress(&zi, &op[0], RUN + off, &abs)))
			*jmp = abs;
		endbr = off == 0 && zi.mnemonic == ZYDIS_MNEMONIC_ENDBR64;
		off += zi.length;
	}
}

/* A deep callee's entry guard tests the __fentry__ site where it is: +4
 * behind the function's endbr64 or seal (whether or not IBT is enforced:
 * a kernel built with it runs on CPUs without it), +0 otherwise; with ibt
 * the block's endbr64 comes before the guard. */
static void test_entry_guard(void)
{
	static const struct {
		const char *name, *hex;
		bool ibt;
		unsigned site;
	} cases[] = {
	    {"jit.ibt.guard.endbr_fn", "f30f1efa 0f1f440000 31c0 c3", true, 4},
	    {"jit.ibt.guard.sealed_fn", "660f1f00 0f1f440000 31c0 c3", true, 4},
	    {"jit.ibt.guard.plain_fn", "0f1f440000 31c0 c3", true, 0},
	    {"jit.ibt.guard.endbr_fn_ibt_off", "f30f1efa 0f1f440000 31c0 c3",
	     false, 4},
	    {"jit.ibt.guard.plain_fn_ibt_off", "0f1f440000 31c0 c3", false, 0},
	};
	struct kjit_block b;
	char why[256];
	enum kjit_reason r;
	bool after_endbr;
	u64 cmp, jmp;
	unsigned i;

	for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
		setup(cases[i].ibt, true, true, false);
		henv.env.entry_guard = guard_at_orig;
		henv.env.guard_counter = GUARDCTR;
		memset(code, 0xcc, sizeof(code));
		kt_unhex(cases[i].hex, code);
		/* (the verifier does not know entry guards: proof only) */
		r = kjit_translate(&tr, ORIG, out, sizeof(out), RUN, &b);
		scan_guard(&b, &cmp, &jmp, &after_endbr);
		why[0] = 0;
		if (!r && cases[i].ibt &&
		    ibtc_block(&ibtc, kjit_last_desc(&tr), &b, out, RUN))
			snprintf(why, sizeof(why), "ibt proof: %.200s",
				 ibtc.msg);
		kt_check(cases[i].name,
			 !r && cmp == ORIG + cases[i].site && jmp == ORIG &&
			     after_endbr == cases[i].ibt &&
			     (!cases[i].ibt || !why[0]),
			 "r=%s cmpb at ORIG+%lld, jmp to ORIG+%lld, after "
			 "endbr64 %d %s",
			 kjit_reason_name(r), (long long)(cmp - ORIG),
			 (long long)(jmp - ORIG), after_endbr, why);
	}
}

#define SC_KEY  0xffffffff82400000ull /* a static call key's func pointer */
#define SC_FUNC 0xffffffff81234560ull /* the trampoline's target */

static u64 key_at_orig(void *opaque, u64 addr)
{
	(void)opaque;
	return addr == ORIG ? SC_KEY : 0;
}

/* A NULL static call's trampoline (`ret`, or a jmp to the return thunk)
 * is followed with the same guard against func NULL: cmpq $0, key(%rip);
 * je ok; jmp trampoline; ok: its ret. (Refused before, it ran natively on
 * every preempt_enable() of translated code: __SCT__preempt_schedule.) */
static void null_trampoline(const char *name, const char *hex)
{
	struct kjit_block b;
	enum kjit_reason r;
	u8 *p = out + KX86_ENDBR64_LEN;
	s32 disp;
	u32 imm;

	memset(code, 0xcc, sizeof(code));
	kt_unhex(hex, code);
	r = kjit_translate(&tr, ORIG, out, sizeof(out), RUN, &b);
	memcpy(&disp, p + 3, 4);
	memcpy(&imm, p + 7, 4);
	kt_check(name,
		 !r && p[0] == 0x48 && p[1] == 0x81 && p[2] == 0x3d &&
		     RUN + KX86_ENDBR64_LEN + 11 + disp == SC_KEY && imm == 0 &&
		     p[11] == 0x74 && b.term == KJIT_I_RET,
		 "r=%s bytes %02x %02x %02x imm %#x term %u",
		 kjit_reason_name(r), p[0], p[1], p[2], imm, b.term);
	if (!r && ibtc_block(&ibtc, kjit_last_desc(&tr), &b, out, RUN))
		kt_fail(name, "ibt proof: %s", ibtc.msg);
}

/* A followed static call trampoline (env->static_call_key): `jmp F` gets a
 * guard, cmpq $F, key(%rip); je ok; jmp trampoline (native); ok: ..., and
 * then its exit to F; NULL (ret) the same against 0 (above); a return-0
 * trampoline (xor; ret) is refused for good: it runs natively, and an exit
 * to it is linked straight to it (retrying made every call through such a
 * trampoline a translation attempt: lat_pipe entered the dispatcher 8.2
 * times per operation on 6.12 through NULL ones, against 0.65). */
static void test_static_call_guard(void)
{
	static const char *const jmp_f = "e95b452300 0fb9cc"; /* jmp SC_FUNC */
	struct kjit_block b;
	enum kjit_reason r;
	s32 disp, rel;
	u32 imm;
	u64 at;
	u8 *p;

	setup(true, true, true, false);
	henv.env.static_call_key = key_at_orig;
	memset(code, 0xcc, sizeof(code));
	kt_unhex(jmp_f, code);
	r = kjit_translate(&tr, ORIG, out, sizeof(out), RUN, &b);
	p = out + KX86_ENDBR64_LEN; /* ibt on: the block's endbr64 first */
	memcpy(&disp, p + 3, 4);
	memcpy(&imm, p + 7, 4);
	at = RUN + KX86_ENDBR64_LEN + 11; /* after the cmp */
	kt_check("jit.static_call_guard.cmp",
		 !r && p[0] == 0x48 && p[1] == 0x81 && p[2] == 0x3d &&
		     at + disp == SC_KEY && imm == (u32)SC_FUNC,
		 "r=%s bytes %02x %02x %02x, key %#llx imm %#x",
		 kjit_reason_name(r), p[0], p[1], p[2],
		 (unsigned long long)(at + disp), imm);
	memcpy(&rel, p + 14, 4);
	kt_check("jit.static_call_guard.native_trampoline",
		 !r && p[11] == 0x74 && p[13] == 0xe9 &&
		     at + 2 + 5 + rel == ORIG && p[12] == 5,
		 "je %02x +%u, jmp %02x to %#llx", p[11], p[12], p[13],
		 (unsigned long long)(at + 7 + rel));
	kt_check("jit.static_call_guard.exit_to_target",
		 !r && b.n_exits == 1 && b.exit[0].target == SC_FUNC,
		 "%u exits, first to %#llx", b.n_exits,
		 (unsigned long long)b.exit[0].target);
	kt_check("jit.static_call_guard.ibt_proof",
		 !r && !ibtc_block(&ibtc, kjit_last_desc(&tr), &b, out, RUN),
		 "%s", ibtc.msg);
	null_trampoline("jit.static_call_guard.null_ret", "c3cccccccc 0fb9cc");
	/* NULL with return thunks: jmp __x86_return_thunk */
	null_trampoline("jit.static_call_guard.null_ret_thunk",
			"e9fb00e000 0fb9cc");
	kt_unhex("31c0c3cccc 0fb9cc", code); /* return 0 */
	r = kjit_translate(&tr, ORIG, out, sizeof(out), RUN, &b);
	kt_check("jit.static_call_guard.ret0_refused",
		 r == KJIT_R_STATIC_CALL_TRAMP, "got %s", kjit_reason_name(r));
}

/* Indirect calls (the flags are dead at a callee's entry) exit through the
 * dispatcher's flags-dead entry, indirect jumps through the one that keeps
 * RFLAGS: the verifier checks which (verify.c, check_dispatch_jmp). */
static void test_dispatch_entries(void)
{
	static const struct {
		const char *name, *hex;
		bool native, follow;
	} cases[] = {
	    {"jit.dispatch_nf.call_reg", "ffd0", false, false},
	    {"jit.dispatch_nf.call_mem", "ff5008", false, false},
	    {"jit.dispatch_nf.followed_call_reg", "ffd0", true, true},
	    {"jit.dispatch_nf.jmp_reg_keeps_flags", "ffe0", true, true},
	};
	struct kjit_block b;
	char why[256];
	unsigned i;

	for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
		enum kjit_reason r;

		setup(false, cases[i].native, cases[i].follow, false);
		r = xlate(cases[i].hex, &b, why);
		kt_check(cases[i].name, !r && !why[0], "%s %s",
			 kjit_reason_name(r), why);
	}
	/* the verifier can tell: told the entries the other way round, it
	 * must object to the same translation */
	setup(false, true, true, false);
	{
		struct kjit_env swapped = henv.env;
		enum kjit_reason r;

		swapped.dispatch = henv.env.dispatch_nf;
		swapped.dispatch_nf = henv.env.dispatch;
		vfy.env = &swapped;
		r = xlate("ffd0", &b, why);
		kt_check("jit.dispatch_nf.verifier_catches_wrong_entry",
			 !r && strstr(why, "not the dispatcher's"), "%s \"%s\"",
			 kjit_reason_name(r), why);
	}
}

/* The shared entry trampoline (codecache/entry.h) under IBT: it is
 * entered by a direct call (ftrace) or a RET, so it needs no endbr64; its
 * one indirect branch is `jmp *%r11`, whose operand it loads from this
 * CPU's slot table (which holds only translations, each starting with
 * endbr64: test_smp's phase C checks every address the cache hands out),
 * reached through the retpoline thunk when the kernel has one (then none
 * at all in the trampoline); and nothing else jumps anywhere but the
 * dispatcher and the thunk. tests/host/test_entry.c runs it. */
static void entry_tramp_case(u64 thunk, const char *name)
{
	static u8 buf[KJIT_ENTRY_TRAMP_MAX];
	struct kjit_entry_addrs a = {
	    .run = RUN,
	    .keys = RUN + 0x1000,
	    .size = 64,
	    .slots_gs = 0x100,
	    .dispatch = DISP,
	    .thunk = thunk,
	};
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder d;
	int indirect = 0, loads_r11 = 0, bad = 0;
	u32 len = 0, off = 0;
	u64 t;

	ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	if (kjit_entry_emit(buf, sizeof(buf), &a, &len)) {
		kt_fail(name, "not emitted");
		return;
	}
	while (off < len && ZYAN_SUCCESS(ZydisDecoderDecodeFull(
				&d, buf + off, len - off, &in, op))) {
		if (in.mnemonic == ZYDIS_MNEMONIC_MOV &&
		    op[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    op[0].reg.value == ZYDIS_REGISTER_R11 &&
		    op[1].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    op[1].mem.scale == 8)
			loads_r11++;
		if (in.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
		    in.meta.category == ZYDIS_CATEGORY_COND_BR ||
		    in.meta.category == ZYDIS_CATEGORY_CALL ||
		    in.meta.category == ZYDIS_CATEGORY_RET) {
			if (op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE) {
				indirect++;
				bad |=
				    op[0].type != ZYDIS_OPERAND_TYPE_REGISTER ||
				    op[0].reg.value != ZYDIS_REGISTER_R11;
			} else {
				ZydisCalcAbsoluteAddress(&in, &op[0], RUN + off,
							 &t);
				bad |= !(t >= RUN && t < RUN + len) &&
				       t != DISP && t != thunk;
			}
		}
		off += in.length;
	}
	kt_check(name,
		 off == len && !bad && loads_r11 == 1 &&
		     indirect == (thunk ? 0 : 1),
		 "decoded %u of %u bytes, %d indirect branches, %d slot "
		 "loads, bad=%d",
		 off, len, indirect, loads_r11, bad);
}

static void test_entry_trampoline(void)
{
	entry_tramp_case(ITHUNK(11), "jit.ibt.entry_trampoline.thunk");
	entry_tramp_case(0, "jit.ibt.entry_trampoline.jmp_r11");
}

int main(void)
{
	test_arch_facts();
	test_entry_trampoline();
	test_emission();
	test_terminators();
	test_far();
	test_proof_selftest();
	test_entry_guard();
	test_dispatch_entries();
	test_static_call_guard();
	return kt_exit();
}
