/* test_unit.c - golden translations, refusals, relocation, liveness, exit
 * patches and the flag-preserving counter sequences (executed).
 *
 * Every translation here is also run through the independent verifier, and
 * golden cases compare emitted bytes with frozen, hand-reviewed output.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "jit/translate.h"
#include "jit/instrument.h"
#include "jit/emit.h"
#include "tests/host/host_env.h"
#include "tests/host/kjit_test.h"
#include "tests/host/verify.h"
#include "tests/host/unwind_check.h"
#include "kmod/kjit_fixups.h"

#define ORIG	  0xffffffff81000000ull
#define RUN	  0xffffffff82000000ull
#define DISP	  0xffffffff81f00000ull
#define FENTRY	  0xffffffff81e00000ull
#define RETTHUNK  0xffffffff81e00100ull
#define ITHUNK(r) (0xffffffff81e00200ull + 0x20 * (r))
#define LEAVE	  0xffffffff81e00400ull /* a KJIT_SYM_LEAVE function */
#define STAY	  0xffffffff81e00500ull /* kjit_env.stay_call's helper */

static struct henv henv;
static struct kjit_translator tr;
static struct vfy vfy;
static struct uwc uwc; /* each translation's unwind map (unwind_check.h) */
static u8 code[4096];
static u8 out[KJIT_MAX_BLOCK_BYTES];

static void setup(const struct kjit_config *cfg)
{
	int r;

	henv_init(&henv, KJIT_MEM_GS, NULL, NULL, DISP);
	henv_add_region(&henv, ORIG, code, sizeof(code));
	henv_add_sym(&henv, FENTRY, KJIT_SYM_FENTRY, -1);
	henv_add_sym(&henv, RETTHUNK, KJIT_SYM_RETURN_THUNK, -1);
	for (r = 0; r < 16; r++)
		henv_add_sym(&henv, ITHUNK(r), KJIT_SYM_INDIRECT_THUNK, r);
	kjit_translator_init(&tr, &henv.env, cfg);
	vfy_init(&vfy, &henv.env);
	uwc_init(&uwc);
}

/* translate hex code at ORIG; returns reason; verifies on success */
static enum kjit_reason xlate(const char *in, struct kjit_block *b, char *why)
{
	enum kjit_reason r;

	memset(code, 0xcc, sizeof(code));
	kt_unhex(in, code);
	r = kjit_translate(&tr, ORIG, out, sizeof(out), RUN, b);
	why[0] = 0;
	if (!r && vfy_block(&vfy, kjit_last_desc(&tr), b, out, RUN))
		snprintf(why, 256, "verifier: %.200s", vfy.msg);
	else if (!r && uwc_block(&uwc, kjit_last_desc(&tr), b, out, RUN, tr.uw,
				 tr.n_uw))
		snprintf(why, 256, "unwind map: %.200s", uwc.msg);
	return r;
}

struct golden {
	const char *name, *in, *out;
};

/* Hand-reviewed (objdump -b binary -m i386:x86-64) outputs. Counter is
 * %gs:0x10000 (fake per-CPU offset of block ORIG). */
static const struct golden goldens[] = {
    /* xor %eax,%eax; ret -> incq %gs:0x10000 (flags dead: xor kills all);
     * xor; jmp dispatcher */
    {"jit.golden.ret", "31c0 c3", "6548ff04250000010031c0e9f0ffefff"},
    /* cmp $5,%rdi; je +0x10 (forward) -> inc; cmp; cs jne rel32 -> stub0;
     * cs cs cs jmp rel32 -> stub1 (prefixes align rel32); stubs: push $fall;
     * jmp disp; push $T; jmp disp */
    {"jit.golden.jcc8", "4883ff05 7410",
     "6548ff0425000001004883ff052e0f85080000002e2e2ee9"
     "0a0000006806000081e9daffefff6816000081e9d0ffefff"},
    /* mov 0x100(%rip),%eax; ret -> flags live at ret: LAHF sequence;
     * disp rebased by ORIG-RUN = -0x1000000 */
    {"jit.golden.riprel_lahf", "8b0500010000 c3",
     "509f0f90c06548ff042500000100047f9e588b05ee0000ff"
     "e9e3ffefff"},
    /* nopl 0(%rax,%rax); call __fentry__; ret: fentry call dropped */
    {"jit.golden.fentry",
     "0f1f440000 e8"
     "f6ffdf00"
     " c3",
     "509f0f90c06548ff042500000100047f9e580f1f440000e9"
     "e4ffefff"},
    /* call __x86_indirect_thunk_r11 -> push $R; push %r11; jmp disp */
    {"jit.golden.ithunk_call",
     "31c0 e8"
     "5903e000",
     "6548ff04250000010031c068070000814153e9e9ffefff"},
    /* jmp __x86_return_thunk -> jmp dispatcher */
    {"jit.golden.retthunk",
     "31c0 e9"
     "f900e000",
     "6548ff04250000010031c0e9f0ffefff"},
    /* xor; jmp *0x1000(,%rax,8) -> push 0x1000(,%rax,8); jmp disp */
    {"jit.golden.jumptable", "31c0 ff24c500100000",
     "6548ff04250000010031c0ff34c500100000e9e9ffefff"},
    /* ret $0x10 -> pop 0x8(%rsp); lea 0x8(%rsp),%rsp; jmp disp */
    {"jit.golden.ret_imm", "31c0 c21000",
     "6548ff04250000010031c08f842408000000488da4240800"
     "0000e9e1ffefff"},
    /* loop -4 */
    {"jit.golden.loop", "31c0 e2fc",
     "6548ff04250000010031c0e2072e2ee9080000002e2e2ee9"
     "0a0000006804000081e9daffefff6800000081e9d0ffefff"},
};

/* Exactly the expected bytes: same length and every byte. */
static bool golden_match(const u8 *got, unsigned len, const u8 *want,
			 unsigned n)
{
	return len == n && !memcmp(got, want, n);
}

/* The comparison must reject a translation that only starts with the
 * expected bytes, one that lacks the last byte, and one differing only in
 * its last byte (a wrong stub or literal at the end). */
static void test_golden_selftest(void)
{
	static const u8 want[] = {0x65, 0x48, 0xff, 0x04, 0x25, 0x31, 0xc0};
	u8 got[sizeof(want) + 1];
	unsigned n = sizeof(want);

	memcpy(got, want, n);
	got[n] = 0xcc;
	kt_check("jit.golden.selftest",
		 golden_match(got, n, want, n) &&
		     !golden_match(got, n + 1, want, n) &&
		     !golden_match(got, n - 1, want, n) &&
		     (got[n - 1] ^= 1, !golden_match(got, n, want, n)),
		 "a longer, shorter or different translation matched");
}

static void test_goldens(void)
{
	unsigned i, n;
	struct kjit_block b;
	char why[256], got[2 * KJIT_MAX_BLOCK_BYTES + 1];
	u8 want[512];

	for (i = 0; i < KJIT_ARRAY_SIZE(goldens); i++) {
		enum kjit_reason r = xlate(goldens[i].in, &b, why);

		if (r) {
			kt_fail(goldens[i].name, "refused: %s",
				kjit_reason_name(r));
			continue;
		}
		n = kt_unhex(goldens[i].out, want);
		kt_hex(out, b.len, got);
		/* the whole block: a prefix match would let wrong stubs,
		 * literals or trailing bytes through */
		if (!golden_match(out, b.len, want, n))
			kt_fail(goldens[i].name, "got %u bytes %s, want %u",
				b.len, got, n);
		else if (why[0])
			kt_fail(goldens[i].name, "%s", why);
		else
			kt_pass(goldens[i].name, "%u->%u bytes", b.orig_len,
				b.len);
	}
}

static const struct {
	const char *name, *in;
	enum kjit_reason want;
} refusals[] = {
    {"jit.refuse.ud2", "0f0b", KJIT_R_TRAP},
    {"jit.refuse.int3", "cc", KJIT_R_TRAP},
    {"jit.refuse.int80", "cd80", KJIT_R_TRAP},
    {"jit.refuse.hlt", "f4", KJIT_R_TRAP},
    {"jit.refuse.swapgs", "0f01f8", KJIT_R_PRIVILEGED_FLOW},
    {"jit.refuse.iretq", "48cf", KJIT_R_PRIVILEGED_FLOW},
    {"jit.refuse.sysretq", "480f07", KJIT_R_PRIVILEGED_FLOW},
    {"jit.refuse.lret", "cb", KJIT_R_PRIVILEGED_FLOW},
    {"jit.refuse.ljmp", "ff2c25000000", KJIT_R_PRIVILEGED_FLOW},
    {"jit.refuse.xbegin", "c7f800000000", KJIT_R_TSX},
    {"jit.refuse.vmlaunch", "0f01c2", KJIT_R_VMX},
    {"jit.refuse.invalid", "06", KJIT_R_DECODE},
    {"jit.refuse.jcc_thunk",
     "0f84"
     "fa01e000",
     KJIT_R_THUNK_COND},
    {"jit.refuse.call_rsp", "ff1424", KJIT_R_RSP_CALL},
    {"jit.refuse.retw", "66c3", KJIT_R_OPSIZE_BRANCH},
    {"jit.refuse.eip_relative", "678b0500010000", KJIT_R_EIP_RELATIVE},
    /* KNC jkzd (VEX map 0, opcode 0x74): not a legacy jz (fuzzer find) */
    {"jit.refuse.vex_branch", "c400407455", KJIT_R_DECODE},
};

static void test_refusals(void)
{
	unsigned i;
	struct kjit_block b;
	char why[256];

	for (i = 0; i < KJIT_ARRAY_SIZE(refusals); i++) {
		enum kjit_reason r = xlate(refusals[i].in, &b, why);

		kt_check(refusals[i].name,
			 r == refusals[i].want && b.reason == r,
			 "got %s want %s", kjit_reason_name(r),
			 kjit_reason_name(refusals[i].want));
	}
}

/* A must-run-natively instruction after the first ends the block before
 * it, with a fall-through exit to its original address. */
static void test_cut_before_native(void)
{
	struct kjit_block b;
	char why[256];
	enum kjit_reason r = xlate("31c0 0f0b", &b, why);

	kt_check("jit.decode.cut_before_trap",
		 !r && !why[0] && b.term == KJIT_I_LIMIT && b.n_exits == 1 &&
		     b.exit[0].target == ORIG + 2 && b.orig_len == 2,
		 "r=%s term=%u %s", kjit_reason_name(r), b.term, why);
}

/* A return-stack-buffer filling slot (FILL_RETURN_BUFFER in
 * __switch_to_asm: `call 1f; int3; 1:`) in native-call mode. Its call only
 * pushes a return address that the code drops again (add $16,%rsp): it is
 * copied as a real call over a copied int3, so the CPU's return stack
 * buffer is filled as natively, and then an edge to 1f - never a call exit
 * that would make 1f a callee (deep mode would run the rest of the
 * function natively, as it follows only function entries). */
static void test_rsb_slot(void)
{
	static const u8 slot[] = {KX86_OP_CALL32, 1, 0, 0, 0, KX86_OP_INT3};
	struct kjit_block b;
	enum kjit_reason r;
	char why[256];
	unsigned i, found = 0;

	tr.cfg.native_calls = true;
	vfy.native_calls = true;
	/* call 1f; int3; 1: call 2f; int3; 2: add $16,%rsp; ret */
	r = xlate("e801000000 cc e801000000 cc 4883c410 c3", &b, why);
	for (i = 0; !r && i + sizeof(slot) <= b.body_len; i++)
		found += !memcmp(out + i, slot, sizeof(slot));
	kt_check("jit.rsb_slot.edge",
		 !r && !why[0] && b.term == KJIT_I_CALL && b.n_exits == 1 &&
		     b.exit[0].kind == KJIT_EXIT_DIRECT &&
		     b.exit[0].target == ORIG + 6 && !b.ret_off,
		 "r=%s term %u exits %u, first to %#llx, ret_off %u %s",
		 kjit_reason_name(r), b.term, b.n_exits,
		 (unsigned long long)b.exit[0].target, b.ret_off, why);
	kt_check("jit.rsb_slot.real_call", found == 1,
		 "`call +1; int3` found %u times in the block", found);
	/* an ordinary call to the instruction after the next is a call */
	r = xlate("e801000000 90 c3", &b, why);
	kt_check("jit.rsb_slot.only_over_int3",
		 !r && !why[0] && b.term == KJIT_I_CALL && b.ret_off,
		 "r=%s term %u ret_off %u %s", kjit_reason_name(r), b.term,
		 b.ret_off, why);
	tr.cfg.native_calls = false;
	vfy.native_calls = false;
}

/* The block holds `push $R; jmp T` (push imm32, e9 rel32) at some offset. */
static bool has_push_jmp(const struct kjit_block *b, u64 ret, u64 t)
{
	unsigned i;
	s32 rel;

	for (i = 0; i + 10 <= b->body_len; i++) {
		if (out[i] != KX86_OP_PUSH_I32 ||
		    memcmp(&out[i + 1], &ret, 4) || out[i + 5] != KX86_OP_JMP32)
			continue;
		memcpy(&rel, &out[i + 6], 4);
		if (RUN + i + 10 + (u64)(s64)rel == t)
			return true;
	}
	return false;
}

/* A call to a function the environment marks KJIT_SYM_LEAVE (the kernel:
 * do_exit()'s call of exit_tasks_rcu_start) leaves the cache in both call
 * modes: it pushes the ORIGINAL return address and jumps to the original
 * callee, so the caller's rest runs natively; the block has no exit and no
 * return site in the cache. A jmp to the same function is an ordinary exit.
 * The verifier rejects an ordinary call translation once the target is
 * LEAVE (a test that can fail). */
/* The block holds `call T` (e8 rel32) at some offset. */
static bool has_call(const struct kjit_block *b, u64 t)
{
	unsigned i;
	s32 rel;

	for (i = 0; i + 5 <= b->body_len; i++) {
		if (out[i] != KX86_OP_CALL32)
			continue;
		memcpy(&rel, &out[i + 1], 4);
		if (RUN + i + 5 + (u64)(s64)rel == t)
			return true;
	}
	return false;
}

/* Where the environment names a helper (kjit_env.stay_call: the kernel's
 * kjit_exit_tail_call, kmod/exittail.h), a call to a LEAVE function stays
 * in native-call mode: a direct call of the helper, a return site in the
 * cache and an exit to the instruction after the call. With cache return
 * addresses dispatched (mode a) it still leaves. The verifier rejects a
 * call of any other helper. */
static void test_stay_call(void)
{
	static const char call_leave[] = "31c0 e8f903e000 31c0 c3";
	struct kjit_block b;
	enum kjit_reason r;
	char why[256];

	henv_add_sym(&henv, LEAVE, KJIT_SYM_LEAVE, -1);
	henv.env.stay_call = STAY;
	tr.cfg.native_calls = vfy.native_calls = true;
	r = xlate(call_leave, &b, why);
	kt_check("jit.stay_call.native_calls",
		 !r && !why[0] && b.term == KJIT_I_CALL && b.n_exits == 1 &&
		     b.exit[0].target == ORIG + 7 && b.ret_off &&
		     has_call(&b, STAY) && !has_push_jmp(&b, ORIG + 7, LEAVE),
		 "r=%s term %u exits %u ret_off %u call %d %s",
		 kjit_reason_name(r), b.term, b.n_exits, b.ret_off,
		 has_call(&b, STAY), why);
	henv.env.stay_call = STAY + 0x10;
	kt_check("jit.stay_call.verifier_rejects_other_helper",
		 !r && vfy_block(&vfy, kjit_last_desc(&tr), &b, out, RUN),
		 "the verifier accepted a call of another helper");
	henv.env.stay_call = STAY;
	tr.cfg.native_calls = vfy.native_calls = false;
	r = xlate(call_leave, &b, why);
	kt_check("jit.stay_call.dispatch_calls_leave",
		 !r && !why[0] && !b.n_exits && !b.ret_off &&
		     has_push_jmp(&b, ORIG + 7, LEAVE),
		 "r=%s exits %u ret_off %u %s", kjit_reason_name(r), b.n_exits,
		 b.ret_off, why);
	henv.env.stay_call = 0;
	henv.n_sym--;
}

static void test_leave_call(void)
{
	/* xor %eax,%eax; call LEAVE; xor %eax,%eax; ret */
	static const char call_leave[] = "31c0 e8f903e000 31c0 c3";
	struct kjit_block b;
	enum kjit_reason r;
	char why[256];
	int native;

	henv_add_sym(&henv, LEAVE, KJIT_SYM_LEAVE, -1);
	for (native = 0; native < 2; native++) {
		tr.cfg.native_calls = vfy.native_calls = native;
		r = xlate(call_leave, &b, why);
		kt_check(native ? "jit.leave_call.native_calls"
				: "jit.leave_call.dispatch_calls",
			 !r && !why[0] && b.term == KJIT_I_CALL && !b.n_exits &&
			     !b.ret_off && has_push_jmp(&b, ORIG + 7, LEAVE),
			 "r=%s term %u exits %u ret_off %u push+jmp %d %s",
			 kjit_reason_name(r), b.term, b.n_exits, b.ret_off,
			 has_push_jmp(&b, ORIG + 7, LEAVE), why);
	}
	/* xor %eax,%eax; jmp LEAVE: an exit like any jmp */
	r = xlate("31c0 e9f903e000", &b, why);
	kt_check("jit.leave_call.jmp_is_exit",
		 !r && !why[0] && b.n_exits == 1 && b.exit[0].target == LEAVE,
		 "r=%s exits %u %s", kjit_reason_name(r), b.n_exits, why);
	henv.n_sym--;
	/* translated as an ordinary call, then judged with LEAVE known */
	r = xlate(call_leave, &b, why);
	henv_add_sym(&henv, LEAVE, KJIT_SYM_LEAVE, -1);
	kt_check("jit.leave_call.verifier_rejects_call",
		 !r && !why[0] &&
		     vfy_block(&vfy, kjit_last_desc(&tr), &b, out, RUN),
		 "r=%s %s: the verifier accepted an ordinary call to LEAVE",
		 kjit_reason_name(r), why);
	henv.n_sym--;
	tr.cfg.native_calls = vfy.native_calls = false;
}

/* Instructions with exception-table entries (kmod/kjit_fixups.h, env.h):
 * one a block, copied; a fixup elsewhere becomes an exit (the landing),
 * one to the next instruction keeps it adjacent; a type kept native, or a
 * fixup on a terminator, is refused; the counter never follows one. */
static void fixup_case(const char *name, const char *hex, u64 at1, u64 at2,
		       u32 type, u64 fix, struct kjit_block *b,
		       enum kjit_reason *r, char *why)
{
	static u64 at[2];
	static struct henv_fixup fx[2];

	at[0] = at1, at[1] = at2;
	fx[0] = (struct henv_fixup){at1, fix, type};
	fx[1] = (struct henv_fixup){at2, fix, type};
	henv.fixups = at, henv.n_fixups = at2 ? 2 : 1, henv.fix = fx;
	*r = xlate(hex, b, why);
	henv.fixups = NULL, henv.n_fixups = 0, henv.fix = NULL;
	if (why[0])
		kt_fail(name, "%s", why);
}

static void test_fixups(void)
{
	struct kjit_block b;
	enum kjit_reason r;
	char why[256];
	unsigned k, land = 0;

	/* mov (%rsi),%rax; add $1,%rax; ret - a user access, fixup away */
	fixup_case("jit.fixup.exit", "488b06 4883c001 c3", ORIG, 0,
		   KJIT_EX_UACCESS, ORIG + 0x40, &b, &r, why);
	for (k = 0; k < b.n_exits; k++)
		land += b.exit[k].target == ORIG + 0x40 &&
			b.exit[k].kind == KJIT_EXIT_DIRECT;
	kt_check("jit.fixup.exit",
		 !r && !why[0] && b.fix_kind == KJIT_FIXUP_EXIT &&
		     b.fix_insn == 0 && b.fix_off == b.insn_off[0] &&
		     b.fix_land_off > b.insn_off[2] &&
		     b.fix_land_off < b.body_len && land == 1 && b.ctr_at == 0,
		 "r=%s kind %u insn %u off %u land %u body %u exits to fixup "
		 "%u ctr_at %u %s",
		 kjit_reason_name(r), b.fix_kind, b.fix_insn, b.fix_off,
		 b.fix_land_off, b.body_len, land, b.ctr_at, why);
	/* the same with its fixup on the next instruction (rdmsr_safe,
	 * zero-padding loads): no exit, nothing between the two */
	fixup_case("jit.fixup.next", "488b06 4883c001 c3", ORIG, 0,
		   KJIT_EX_ZEROPAD, ORIG + 3, &b, &r, why);
	kt_check("jit.fixup.next",
		 !r && !why[0] && b.fix_kind == KJIT_FIXUP_NEXT &&
		     b.insn_off[1] == b.fix_off + 3 && !b.fix_land_off,
		 "r=%s kind %u insn_off[1] %u fix_off %u land %u",
		 kjit_reason_name(r), b.fix_kind, b.insn_off[1], b.fix_off,
		 b.fix_land_off);
	/* the access second in its block: where a task stopped in its fault
	 * resumes natively (kjit_cache_fault_site) */
	fixup_case("jit.fixup.orig_off", "4883c001 488b06 c3", ORIG + 4, 0,
		   KJIT_EX_UACCESS, ORIG + 0x40, &b, &r, why);
	kt_check("jit.fixup.orig_off",
		 !r && !why[0] && b.fix_insn == 1 && b.fix_orig_off == 4 &&
		     b.fix_off == b.insn_off[1] && b.fix_off > b.insn_off[0],
		 "r=%s insn %u orig_off %u off %u insn_off %u %u",
		 kjit_reason_name(r), b.fix_insn, b.fix_orig_off, b.fix_off,
		 b.insn_off[0], b.insn_off[1]);
	/* two user accesses: the second starts the next block */
	fixup_case("jit.fixup.one_a_block", "488b06 488b0f c3", ORIG, ORIG + 3,
		   KJIT_EX_UACCESS, ORIG + 0x40, &b, &r, why);
	kt_check("jit.fixup.one_a_block",
		 !r && b.orig_len == 3 && b.term == KJIT_I_LIMIT &&
		     b.fix_insn == 0,
		 "r=%s orig_len %u term %u", kjit_reason_name(r), b.orig_len,
		 b.term);
	/* a type kept native (BPF) is refused as before */
	fixup_case("jit.fixup.native_type", "488b06 c3", ORIG, 0, KJIT_EX_BPF,
		   ORIG + 0x40, &b, &r, why);
	kt_check("jit.fixup.native_type", r == KJIT_R_FIXUP, "r=%s",
		 kjit_reason_name(r));
	/* a fixup on a transfer (call *(%rax)) runs natively */
	fixup_case("jit.fixup.terminator", "ff10 c3", ORIG, 0, KJIT_EX_DEFAULT,
		   ORIG + 0x40, &b, &r, why);
	kt_check("jit.fixup.terminator", r == KJIT_R_FIXUP, "r=%s",
		 kjit_reason_name(r));
	/* clear_user's and copy_user's alternatives patched to a call
	 * (1: call clear_user_erms; 2:, _ASM_EXTABLE_UA(1b, 2b)): a direct
	 * call touches only the kernel stack, so the entry can never fire;
	 * the call is translated and its copy needs no entry */
	fixup_case("jit.fixup.direct_call", "e800010000 c3", ORIG, 0,
		   KJIT_EX_UACCESS, ORIG + 5, &b, &r, why);
	kt_check("jit.fixup.direct_call",
		 !r && !why[0] && b.term == KJIT_I_CALL &&
		     b.fix_kind == KJIT_FIXUP_NONE,
		 "r=%s term %u fix_kind %u %s", kjit_reason_name(r), b.term,
		 b.fix_kind, why);
	/* flags live at the entry only through the user access's fault path:
	 * the counter may not move past it to where they are dead
	 * (mov (%rsi),%rax; cmp %rcx,%rdx; jz .+0x10) */
	fixup_case("jit.fixup.counter_first", "488b06 4839ca 7410", ORIG, 0,
		   KJIT_EX_UACCESS, ORIG + 0x40, &b, &r, why);
	kt_check("jit.fixup.counter_first", !r && !why[0] && b.ctr_at == 0,
		 "r=%s ctr_at %u %s", kjit_reason_name(r), b.ctr_at, why);
}

static void test_reason_names(void)
{
	unsigned i, j;
	int bad = 0;

	for (i = 0; i < KJIT_R_COUNT; i++) {
		if (!strcmp(kjit_reason_name(i), "unknown"))
			bad++;
		for (j = 0; j < i; j++)
			if (!strcmp(kjit_reason_name(i), kjit_reason_name(j)))
				bad++;
	}
	kt_check("jit.reason.names",
		 !bad && !strcmp(kjit_reason_name(KJIT_R_COUNT), "unknown"),
		 "%d missing or duplicate names", bad);
}

/* RIP-relative rebasing: exact value, far refusal, and a corrupted
 * displacement must be caught by the verifier. */
static void test_relocation(void)
{
	struct kjit_block b;
	char why[256];
	s32 disp;
	enum kjit_reason r;

	/* add %eax,0x1234(%rip); xor; ret  (rip-relative read-modify-write) */
	r = xlate("01053412000031c0c3", &b, why);
	memcpy(&disp, out + b.insn_off[0] + 2, 4);
	kt_check("jit.relocate.rip_near",
		 !r && !why[0] &&
		     disp == (s32)(0x1234 + ORIG - (RUN + b.insn_off[0])),
		 "r=%s disp=%#x %s", kjit_reason_name(r), disp, why);
	if (!r) {
		out[b.insn_off[0] + 2] ^=
		    0x10; /* deliberately broken relocation */
		kt_check("jit.relocate.broken_caught",
			 vfy_block(&vfy, kjit_last_desc(&tr), &b, out, RUN) !=
			     0,
			 "verifier accepted a corrupted displacement");
	}
	/* cmpl $7, 0x1234(%rip) (imm after disp) */
	r = xlate("833d3412000007 c3", &b, why);
	kt_check("jit.relocate.rip_imm_tail", !r && !why[0], "%s %s",
		 kjit_reason_name(r), why);
	/* same code translated for a run address 4 GiB away: must refuse */
	memset(code, 0xcc, sizeof(code));
	kt_unhex("8b0500010000c3", code);
	r = kjit_translate(&tr, ORIG, out, sizeof(out), RUN - 0x100000000ull,
			   &b);
	kt_check("jit.relocate.rip_far", r == KJIT_R_RIP_FAR, "got %s",
		 kjit_reason_name(r));
	/* output buffer too small: refuse, and never write past it */
	memset(out, 0xa5, sizeof(out));
	kt_unhex("8b0500010000c3", code);
	r = kjit_translate(&tr, ORIG, out, 8, RUN, &b);
	kt_check("jit.emit.no_space",
		 r == KJIT_R_NO_SPACE && out[8] == 0xa5 && out[9] == 0xa5,
		 "got %s", kjit_reason_name(r));
	/* call *0x8(%rsp): the pushed return address shifts rsp by 8 */
	r = xlate("31c0 ff542408", &b, why);
	kt_check("jit.relocate.call_rsp_adjust", !r && !why[0], "%s %s",
		 kjit_reason_name(r), why);
}

static void test_liveness(void)
{
	static const struct {
		const char *name, *in;
		u8 seq;
		bool fn_at_orig; /* kjit_env.func_start: a function starts at
				    ORIG (else none is known) */
	} cases[] = {
	    /* jb reads CF only: inc keeps CF, so a bare inc is fine */
	    {"jit.liveness.cf_only", "7202 31c0 31c0 c3", KJIT_SEQ_INC, false},
	    /* je reads ZF at entry: flags-saving sequence */
	    {"jit.liveness.zf_live", "74fe 31c0 c3", KJIT_SEQ_LAHF, false},
	    /* adc reads CF, then sets all: inc */
	    {"jit.liveness.adc", "4811c8 c3", KJIT_SEQ_INC, false},
	    /* jmp to a block that tests ZF: live across the successor */
	    {"jit.liveness.succ_read", "eb00 74fe", KJIT_SEQ_LAHF, false},
	    /* a jmp chain longer than the look-ahead (depth 2): the unexplored
	     * successor must count as live */
	    {"jit.liveness.beyond_lookahead", "eb00 eb00 eb00 74fe",
	     KJIT_SEQ_LAHF, false},
	    /* jmp to a block that overwrites flags: dead */
	    {"jit.liveness.succ_kill", "eb00 4885c0 74fe", KJIT_SEQ_INC, false},
	    /* shl %cl may leave flags as they were: not a kill */
	    {"jit.liveness.shift_cl", "48d3e0 0f94c0 c3", KJIT_SEQ_LAHF, false},
	    /* cmpxchg8b kills ZF only; repe cmpsb with rcx = 0 leaves the
	     * flags as they were, so sets reads the entry SF (xor then
	     * kills all, ret is unknown) */
	    {"jit.liveness.repe_cmps", "0fc70d00000000 f3a6 0f98c0 31c0 c3",
	     KJIT_SEQ_LAHF, false},
	    {"jit.liveness.repne_scas", "0fc70d00000000 f2ae 0f98c0 31c0 c3",
	     KJIT_SEQ_LAHF, false},
	    {"jit.liveness.repe_scasq", "0fc70d00000000 f348af 0f98c0 31c0 c3",
	     KJIT_SEQ_LAHF, false},
	    /* without rep it always compares: a kill */
	    {"jit.liveness.cmps_kill", "0fc70d00000000 a6 0f98c0 31c0 c3",
	     KJIT_SEQ_INC, false},
	    /* mov; ret: unknown successor -> live */
	    {"jit.liveness.ret_live", "89f8 c3", KJIT_SEQ_LAHF, false},
	    /* mov; call F, F compiled C (its first instruction its
	     * __fentry__ call): C reads no flags at a function's entry, and a
	     * C caller none after a call - dead, though F's je reads ZF */
	    {"jit.liveness.call_c_function",
	     "b801000000 e816000000 "
	     "cccccccccccccccccccccccccccccccccccccccccccc e8dbffdf00 74fe",
	     KJIT_SEQ_INC, false},
	    /* ... F behind an endbr64 (IBT kernels) */
	    {"jit.liveness.call_c_function_ibt",
	     "b801000000 e816000000 "
	     "cccccccccccccccccccccccccccccccccccccccccccc f30f1efa e8d7ffdf00 "
	     "74fe",
	     KJIT_SEQ_INC, false},
	    /* ... a tail call (jmp F) the same */
	    {"jit.liveness.tail_call_c_function",
	     "b801000000 e916000000 "
	     "cccccccccccccccccccccccccccccccccccccccccccc e8dbffdf00 74fe",
	     KJIT_SEQ_INC, false},
	    /* ... F without an __fentry__ site (asm, or notrace): its je reads
	     * ZF at entry - live */
	    {"jit.liveness.call_no_fentry",
	     "b801000000 e816000000 "
	     "cccccccccccccccccccccccccccccccccccccccccccc 74fe",
	     KJIT_SEQ_LAHF, false},
	    /* mov; ret in a compiled C function (it starts at ORIG with its
	     * __fentry__ call): its caller reads no flags after the call -
	     * dead */
	    {"jit.liveness.ret_in_c_function", "e8fbffdf00 89f8 c3",
	     KJIT_SEQ_INC, true},
	    {"jit.liveness.ret_in_c_function_ibt",
	     "f30f1efa e8f7ffdf00 89f8 c3", KJIT_SEQ_INC, true},
	    /* ... jmp __x86_return_thunk is that ret */
	    {"jit.liveness.return_thunk_in_c_function",
	     "e8fbffdf00 89f8 e9f400e000", KJIT_SEQ_INC, true},
	    /* the function at ORIG is assembly (no __fentry__ site): it may
	     * return a flag to its caller - live */
	    {"jit.liveness.ret_in_asm_function", "89f8 c3", KJIT_SEQ_LAHF,
	     true},
	    /* an __fentry__ call that is not the function's first instruction
	     * says nothing */
	    {"jit.liveness.ret_fentry_not_first", "89f8 e8f9ffdf00 c3",
	     KJIT_SEQ_LAHF, true},
	    /* mov; call *%rax: a callee through a pointer reads no flags at
	     * its entry - dead */
	    {"jit.liveness.call_indirect", "89f8 ffd0", KJIT_SEQ_INC, false},
	    /* mov; jmp *%rax: unknown (not a call) - live */
	    {"jit.liveness.jmp_indirect", "89f8 ffe0", KJIT_SEQ_LAHF, false},
	};
	static const u64 orig_fn[] = {ORIG};
	unsigned i;
	struct kjit_block b;
	char why[256];
	enum kjit_reason r;

	/* the entry's liveness alone: no counter moved into the block
	 * (test_counters covers that) */
	tr.cfg.ctr_move = false;
	for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
		henv.funcs = cases[i].fn_at_orig ? orig_fn : NULL;
		henv.n_funcs = cases[i].fn_at_orig ? 1 : 0;
		r = xlate(cases[i].in, &b, why);
		kt_check(cases[i].name, !r && !why[0] && b.seq == cases[i].seq,
			 "r=%s seq=%u want %u live=%#x %s", kjit_reason_name(r),
			 b.seq, cases[i].seq, b.live_in, why);
	}
	henv.funcs = NULL, henv.n_funcs = 0;
	/* the flags a repe cmpsb may leave untouched stay live through it */
	r = xlate("f3a6 0f98c0 31c0 c3", &b, why);
	kt_check("jit.liveness.repe_cmps_live_in",
		 !r && (b.live_in & KX86_FLAG_SF), "r=%s live=%#x",
		 kjit_reason_name(r), b.live_in);
	tr.cfg.ctr_move = true;
}

/* `lock incq` when the environment asks for it (cross-CPU counters) */
static void test_lock_counter(void)
{
	struct kjit_block b;
	char why[256];
	enum kjit_reason r;

	henv.ctr_lock = true;
	r = xlate("31c0 c3", &b, why);
	henv.ctr_lock = false;
	kt_check("jit.instrument.lock_inc",
		 !r && !why[0] && out[0] == 0xf0 && out[1] == 0x65 &&
		     b.seq == KJIT_SEQ_INC,
		 "r=%s first bytes %02x %02x %s", kjit_reason_name(r), out[0],
		 out[1], why);
}

/* A jcc's translation puts the path the kernel's compiler makes likely
 * first, so that it is one branch: a forward jcc (usually not taken:
 * error paths and unlikely() code lie ahead) becomes j!cc exit(fall);
 * jmp exit(target); a backward one (a loop) jcc exit(target); jmp
 * exit(fall). Both verified by decoding back. */
static void test_jcc_order(void)
{
	static const struct {
		const char *name, *code;
		u64 fall, target;
		u8 first_cc;
	} cases[] = {
	    /* cmp $5,%rdi; je +0x10 */
	    {"jit.jcc.forward_fall_first", "4883ff05 7410", ORIG + 6,
	     ORIG + 0x16, 0x5},
	    /* cmp $5,%rdi; je -0x10 */
	    {"jit.jcc.backward_target_first", "4883ff05 74f0", ORIG + 6,
	     ORIG - 0xa, 0x4},
	};
	struct kjit_block b;
	char why[256];
	unsigned i;

	for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
		enum kjit_reason r = xlate(cases[i].code, &b, why);
		u8 op = b.n_exits ? out[b.exit[0].branch_off - 1] : 0;
		u64 first =
		    cases[i].first_cc == 0x4 ? cases[i].target : cases[i].fall;

		kt_check(
		    cases[i].name,
		    !r && !why[0] && b.n_exits == 2 &&
			op == (KX86_OP2_JCC32 | cases[i].first_cc) &&
			b.exit[0].target == first &&
			b.exit[1].target == (first == cases[i].fall
						 ? cases[i].target
						 : cases[i].fall),
		    "r=%s %s exits=%u first branch %#x to %#llx",
		    kjit_reason_name(r), why, b.n_exits, op,
		    (unsigned long long)(b.n_exits ? b.exit[0].target : 0));
	}
}

static void test_exit_patch(void)
{
	struct kjit_block b;
	char why[256];
	u32 off, nv, ov;
	s32 cur;
	enum kjit_reason r;

	xlate("4883ff05 7410", &b, why);
	r = kjit_exit_patch(&b, RUN, 0, RUN + 0x5000, &off, &nv, &ov);
	memcpy(&cur, out + off, 4);
	kt_check("jit.exit.patch_value",
		 !r && off % 4 == 0 && (u32)cur == ov &&
		     RUN + off + 4 + (s64)(s32)nv == RUN + 0x5000 &&
		     RUN + off + 4 + (s64)cur == RUN + b.exit[0].stub_off,
		 "r=%s off=%u", kjit_reason_name(r), off);
	/* the fall-through exit: its own branch field, not exit 0's */
	r = kjit_exit_patch(&b, RUN, 1, RUN + 0x6000, &off, &nv, &ov);
	memcpy(&cur, out + off, 4);
	kt_check("jit.exit.patch_second_exit",
		 !r && off == b.exit[1].branch_off && (u32)cur == ov &&
		     RUN + off + 4 + (s64)(s32)nv == RUN + 0x6000 &&
		     RUN + off + 4 + (s64)cur == RUN + b.exit[1].stub_off,
		 "r=%s off=%u, exit 1 branch at %u", kjit_reason_name(r), off,
		 b.exit[1].branch_off);
	r = kjit_exit_patch(&b, RUN, 1, RUN + 0x100000000ull, &off, &nv, &ov);
	kt_check("jit.exit.patch_far", r == KJIT_R_BRANCH_FAR, "got %s",
		 kjit_reason_name(r));
	xlate("31c0 c3", &b, why);
	r = kjit_exit_patch(&b, RUN, 0, RUN, &off, &nv, &ov);
	kt_check("jit.exit.patch_indirect", r == KJIT_R_BAD_ARG, "got %s",
		 kjit_reason_name(r));
}

/* Execute each counter sequence with every combination of the six
 * arithmetic flags (and DF clear): flags and rax must survive, the counter
 * must go up by exactly one. The sequence is emitted by the real
 * instrumentation path (kjit_instrument_point), counter in a low array. */
static u64 seq_ctr[HENV_MAX_CTRS], seq_key[HENV_MAX_CTRS];

/* RFLAGS with IF and the reserved bit set, and combination @f (0..63) of
 * the six arithmetic flags CF PF AF ZF SF OF. */
static u64 rflags_combo(unsigned f)
{
	static const unsigned bits[6] = {0, 2, 4, 6, 7, 11};
	u64 fl = 0x202;
	unsigned k;

	for (k = 0; k < 6; k++)
		if (f & (1u << k))
			fl |= 1ull << bits[k];
	return fl;
}

static void test_sequences_run(void)
{
	static const u8 pre[] = {0x48, 0x89, 0xf8,  /* mov %rdi,%rax */
				 0x57, 0x9d};	    /* push %rdi; popfq */
	static const u8 post[] = {0x9c, 0x5a,	    /* pushfq; pop %rdx */
				  0x48, 0x89, 0x16, /* mov %rdx,(%rsi) */
				  0x48, 0x89, 0x42,
				  0x08, /* mov %rax,8(%rsi)... */
				  0xc3};
	static const char *names[] = {"", "", "jit.seq.lahf_exec",
				      "jit.seq.pushf_exec"};
	int seq;

	for (seq = KJIT_SEQ_LAHF; seq <= KJIT_SEQ_PUSHF; seq++) {
		u8 *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		struct kjit_config cfg;
		struct kjit_emit e;
		struct kjit_block blk;
		struct kjit_point_info pi = {KJIT_POINT_ENTRY, 1, 0,
					     KX86_FLAGS_ARITH, 0, 0};
		struct henv h;
		int bad = 0;
		unsigned f;
		u64 *ctr;

		kjit_config_default(&cfg);
		cfg.live_seq = seq;
		henv_init(&h, KJIT_MEM_ABS32, seq_ctr, seq_key, 0);
		kjit_translator_init(&tr, &h.env, &cfg);
		kjit_emit_init(&e, m, 4096, (u64)(uintptr_t)m);
		memcpy(m, pre, sizeof(pre));
		e.pos = sizeof(pre);
		if (kjit_instrument_point(&tr, &e, &pi, &blk) ||
		    blk.seq != seq || !(ctr = henv_counter_of(&h, 1))) {
			kt_fail(names[seq], "could not emit the sequence");
			continue;
		}
		memcpy(m + e.pos, post, sizeof(post));
		m[e.pos + 5] = 0x48, m[e.pos + 6] = 0x89,
			  m[e.pos + 7] = 0x46; /* mov %rax,8(%rsi) */
		for (f = 0; f < 64; f++) {
			u64 fl = rflags_combo(f), got[2] = {0, 0},
			    before = *ctr;

			((void (*)(u64, u64 *))m)(fl, got);
			if ((got[0] & 0xcd5) != (fl & 0xcd5) || got[1] != fl ||
			    *ctr != before + 1)
				bad++;
		}
		kt_check(names[seq], !bad, "%d of 64 flag combinations broken",
			 bad);
		munmap(m, 4096);
	}
}

/*
 * Indirect jmps' inline prediction (predict_indirect_jumps, jit/flow.c).
 * ut_jrun(flags, block) calls a translated `jmp *%reg` block with those
 * flags and every general register but %rsp loaded from ut_jin[] (indexed
 * by register number; the target in the jumping register's slot); the
 * block leaves by a tail jump, to a landing (a filled way's continuation:
 * 2, 3 or 4) or to the dispatcher stub (1), which pops the target; each
 * records the flags and every register it found (ut_jout[]) and returns
 * its number.
 */
u64 ut_jflags, ut_jin[16], ut_jout[16], ut_jblock;
u64 ut_jrun(u64 flags, u64 block);
void ut_jland1(void), ut_jland2(void), ut_jland3(void), ut_jdisp(void);
#define UT_JLOAD(n, r) " mov ut_jin+8*" #n "(%rip),%" #r "\n"
#define UT_JSAVE(n, r) " mov %" #r ",ut_jout+8*" #n "(%rip)\n"
#define UT_JREGS(X)                                                        \
	X(0, rax) X(1, rcx) X(2, rdx) X(3, rbx) X(5, rbp) X(6, rsi) X(8, r8)   \
	    X(9, r9) X(10, r10) X(11, r11) X(12, r12) X(13, r13) X(14, r14)    \
		X(15, r15) X(7, rdi)
__asm__(".text\n ut_jrun:\n push %rbx\n push %rbp\n push %r12\n push %r13\n"
	" push %r14\n push %r15\n mov %rsi,ut_jblock(%rip)\n push %rdi\n"
	UT_JREGS(UT_JLOAD) " popfq\n call *ut_jblock(%rip)\n"
	" pop %r15\n pop %r14\n pop %r13\n pop %r12\n pop %rbp\n pop %rbx\n"
	" ret\n"
	"ut_jrecord:\n pushfq\n pop ut_jflags(%rip)\n" UT_JREGS(UT_JSAVE)
	" ret\n"
	"ut_jdisp:\n lea 8(%rsp),%rsp\n call ut_jrecord\n mov $1,%eax\n ret\n"
	"ut_jland1:\n call ut_jrecord\n mov $2,%eax\n ret\n"
	"ut_jland2:\n call ut_jrecord\n mov $3,%eax\n ret\n"
	"ut_jland3:\n call ut_jrecord\n mov $4,%eax\n ret\n");

static u64 ut_gs[4]; /* the GS base: jsite_gs 16 is ut_gs[2], [3] */

/* Translate @hex at ORIG with the prediction on; verified; 0 or -1. */
static int jpred_xlate(const char *hex, struct kjit_block *b, u8 *buf, u64 run,
		       char *why)
{
	enum kjit_reason r;

	memset(code, 0xcc, sizeof(code));
	kt_unhex(hex, code);
	r = kjit_translate(&tr, ORIG, buf, KJIT_MAX_BLOCK_BYTES, run, b);
	why[0] = 0;
	if (r)
		snprintf(why, 256, "refused: %s", kjit_reason_name(r));
	else if (vfy_block(&vfy, kjit_last_desc(&tr), b, buf, run))
		snprintf(why, 256, "verifier: %.200s", vfy.msg);
	else if (uwc_block(&uwc, kjit_last_desc(&tr), b, buf, run, tr.uw,
			   tr.n_uw))
		snprintf(why, 256, "unwind map: %.200s", uwc.msg);
	return why[0] ? -1 : 0;
}

/* Fill the next way of @b's site (at @m) with @t -> @dest. */
static bool jpred_fill(const struct kjit_block *b, u8 *m, u64 t, u64 dest)
{
	u32 io, iv, ro, rv;

	if (kjit_jpred_patch(b->pred_imm_off, b->pred_jmp_off,
			     (u64)(uintptr_t)m, m, t, dest, &io, &iv, &ro, &rv))
		return false;
	memcpy(m + io, &iv, 4);
	memcpy(m + ro, &rv, 4);
	return true;
}

/* Run @m (a `jmp *%reg`, register number @reg, block) on every flags
 * combination with target @t: how many runs did not reach @want, or
 * changed the flags or any register (the target's included). */
static int jpred_runs(u8 *m, unsigned reg, u64 t, u64 want)
{
	unsigned f, k;
	int bad = 0;

	for (f = 0; f < 64; f++) {
		u64 fl = rflags_combo(f);
		bool regs_ok = true;

		for (k = 0; k < 16; k++)
			ut_jin[k] = 0x5eed000000ull + f * 0x100 + k;
		ut_jin[reg] = t;
		memset(ut_jout, 0, sizeof(ut_jout));
		ut_jflags = 0;
		if (ut_jrun(fl, (u64)(uintptr_t)m) != want ||
		    (ut_jflags & 0xcd5) != (fl & 0xcd5))
			regs_ok = false;
		for (k = 0; k < 16; k++)
			if (k != KX86_RSP && ut_jout[k] != ut_jin[k])
				regs_ok = false;
		bad += !regs_ok;
	}
	return bad;
}

/* `jmp *%reg` for register number @reg: its bytes as hex. */
static void jmp_reg_hex(unsigned reg, char *hex)
{
	if (reg < 8)
		sprintf(hex, "ffe%x", reg);
	else
		sprintf(hex, "41ffe%x", reg - 8);
}

static const char *const ut_reg_names[16] = {
    "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
    "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};

/* Run the prediction of `jmp *%reg` (emitted at @m): a miss leaves the
 * site, three ways fill and hit, other targets miss, the target's
 * register and every other one stay. One result, jit.jpred.run.REG. */
static void jpred_run_reg(u8 *m, unsigned reg)
{
	static const u64 t[4] = {ORIG + 0x100, ORIG + 0x200, ORIG + 0x300,
				 ORIG + 0x400};
	struct kjit_block b;
	char hex[16], name[64], why[256];
	u64 run = (u64)(uintptr_t)m;
	int bad;

	jmp_reg_hex(reg, hex);
	memset(ut_gs, 0, sizeof(ut_gs));
	/* the shape checks (verifier, unwind map) apart: the runs below
	 * judge the behaviour whatever they say */
	snprintf(name, sizeof(name), "jit.jpred.run.%s.verifier",
		 ut_reg_names[reg]);
	kt_check(name, !jpred_xlate(hex, &b, m, run, why), "%s", why);
	snprintf(name, sizeof(name), "jit.jpred.run.%s", ut_reg_names[reg]);
	memset(code, 0xcc, sizeof(code));
	kt_unhex(hex, code);
	if (kjit_translate(&tr, ORIG, m, KJIT_MAX_BLOCK_BYTES, run, &b) ||
	    !b.jsite_off) {
		kt_fail(name, "not translated with a prediction");
		return;
	}
	bad = jpred_runs(m, reg, t[0], 1);
	if (bad || ut_gs[2] != t[0] || ut_gs[3] != run + b.jsite_off ||
	    ut_gs[3] != (u64)(s64)(s32)ut_gs[3]) {
		kt_fail(name,
			"miss: %d runs broken; %%gs words %#llx %#llx (site "
			"%#llx)",
			bad, (unsigned long long)ut_gs[2],
			(unsigned long long)ut_gs[3],
			(unsigned long long)(run + b.jsite_off));
		return;
	}
	if (!jpred_fill(&b, m, t[0], (u64)(uintptr_t)ut_jland1) ||
	    jpred_fill(&b, m, t[0], (u64)(uintptr_t)ut_jland2) ||
	    !jpred_fill(&b, m, t[1], (u64)(uintptr_t)ut_jland2) ||
	    jpred_fill(&b, m, t[1], (u64)(uintptr_t)ut_jland3) ||
	    !jpred_fill(&b, m, t[2], (u64)(uintptr_t)ut_jland3) ||
	    jpred_fill(&b, m, t[3], (u64)(uintptr_t)ut_jland3)) {
		kt_fail(name, "a way refused, or a fourth (or a repeated "
			      "target) taken");
		return;
	}
	bad = jpred_runs(m, reg, t[0], 2) + jpred_runs(m, reg, t[1], 3) +
	      jpred_runs(m, reg, t[2], 4);
	if (bad) {
		kt_fail(name, "%d of 192 runs missed their way, or changed "
			      "flags or registers",
			bad);
		return;
	}
	/* targets no way holds, the sums and differences of the ways'
	 * among them: each way compares the register itself */
	bad = jpred_runs(m, reg, t[3], 1) + jpred_runs(m, reg, t[0] + 1, 1) +
	      jpred_runs(m, reg, t[0] ^ 1ull << 40, 1) +
	      jpred_runs(m, reg, t[0] + t[1], 1) +
	      jpred_runs(m, reg, t[1] + t[2], 1) +
	      jpred_runs(m, reg, t[0] + t[1] + t[2], 1) +
	      jpred_runs(m, reg, t[1] - t[0], 1);
	kt_check(name, !bad,
		 "%d of 448 runs of unpredicted targets did not reach the "
		 "dispatcher intact",
		 bad);
}

static void test_jump_prediction(void)
{
	static const struct {
		const char *name, *hex;
		bool predicted;
	} cases[] = {
	    {"jit.jpred.reg", "ffe0", true},	     /* jmp *%rax */
	    {"jit.jpred.rcx", "ffe1", true},	     /* jmp *%rcx */
	    {"jit.jpred.r12_sib", "41ffe4", true},   /* jmp *%r12 */
	    {"jit.jpred.r15", "41ffe7", true},	     /* jmp *%r15 */
	    {"jit.jpred.thunk", "e9fb01e000", true}, /* jmp ITHUNK(0) */
	    {"jit.jpred.mem", "ff6010", false},	     /* jmp *0x10(%rax) */
	};
	struct kjit_config cfg;
	struct kjit_block b;
	char why[256];
	unsigned i;
	u8 *m;

	kjit_config_default(&cfg);
	cfg.native_calls = cfg.follow_indirect_calls = true;
	cfg.predict_indirect_jumps = true;
	setup(&cfg);
	henv.env.jsite_gs = 16;
	vfy.native_calls = vfy.follow_indirect_calls = true;
	vfy.predict_indirect_jumps = true;
	for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
		int r = jpred_xlate(cases[i].hex, &b, out, RUN, why);

		kt_check(cases[i].name,
			 !r && !!b.jsite_off == cases[i].predicted,
			 "%s jsite_off %#x", why, b.jsite_off);
	}
	/* no place for the site, or a cache no imm32 names: no prediction */
	henv.env.jsite_gs = 0x80000000ull;
	kt_check("jit.jpred.gs_far",
		 !jpred_xlate("ffe0", &b, out, RUN, why) && !b.jsite_off, "%s",
		 why);
	henv.env.jsite_gs = 16;
	kt_check("jit.jpred.run_far",
		 !jpred_xlate("ffe0", &b, out, RUN + (1ull << 32), why) &&
		     !b.jsite_off,
		 "%s", why);

	/* run it, the jump through each register: %gs on ut_gs */
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (m == MAP_FAILED) {
		kt_fail("jit.jpred.run", "mmap: %s", strerror(errno));
		return;
	}
	henv_init(&henv, KJIT_MEM_ABS32, seq_ctr, seq_key,
		  (u64)(uintptr_t)ut_jdisp);
	henv_add_region(&henv, ORIG, code, sizeof(code));
	henv.env.jsite_gs = 16;
	kjit_translator_init(&tr, &henv.env, &cfg);
	vfy_init(&vfy, &henv.env);
	vfy.native_calls = vfy.follow_indirect_calls = true;
	vfy.predict_indirect_jumps = true;
	if (henv_set_gs((u64)(uintptr_t)ut_gs)) {
		kt_fail("jit.jpred.run", "no GS base");
		munmap(m, 4096);
		return;
	}
	for (i = 0; i < 16; i++)
		if (i != KX86_RSP)
			jpred_run_reg(m, i);
	munmap(m, 4096);
	kjit_config_default(&cfg);
	setup(&cfg);
}

/* A live-patched site (static key) at site_at, jumping to site_to. */
static u64 site_at = ORIG + 2, site_to = ORIG + 0x40;

/* How many 5-byte sites follow one another from site_at (all to site_to). */
static unsigned site_chain = 1;

static bool unit_site(void *opaque, u64 addr, u64 *target)
{
	if (addr < site_at || addr >= site_at + 5 * site_chain ||
	    (addr - site_at) % 5)
		return false;
	*target = site_to;
	return true;
}

/* What the translation of a site block holds: compares of the site's first
 * byte (and against which opcode), pushfq, and instructions in the body. */
struct site_shape {
	unsigned cmps, cmp_op, pushf, insns;
	ZydisMnemonic after_cmp; /* the instruction after the cmp */
};

static struct site_shape site_shape(const struct kjit_block *b, const u8 *buf,
				    u64 run)
{
	struct site_shape sh = {0, 0, 0, 0, ZYDIS_MNEMONIC_INVALID};
	bool cmp_before = false;
	ZydisDecoder dec;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	unsigned off = 0;
	ZyanU64 abs;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	while (off < b->body_len &&
	       ZYAN_SUCCESS(ZydisDecoderDecodeFull(
		   &dec, buf + off, b->body_len - off, &zi, op))) {
		if (zi.mnemonic == ZYDIS_MNEMONIC_CMP &&
		    op[0].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&zi, &op[0],
							  run + off, &abs)) &&
		    abs == site_at) {
			sh.cmps++;
			sh.cmp_op = (unsigned)(op[1].imm.value.u & 0xff);
			cmp_before = true;
		} else if (cmp_before) {
			sh.after_cmp = zi.mnemonic;
			cmp_before = false;
		}
		sh.pushf += zi.mnemonic == ZYDIS_MNEMONIC_PUSHFQ;
		sh.insns++;
		off += zi.length;
	}
	return sh;
}

/*
 * The kernel makes a 5-byte site a jmp rel32 and a 2-byte site a jmp rel8,
 * never the other (arch_jump_entry_size() reads the length), so one compare
 * of the first byte against that opcode says which; the flags are saved
 * around it only where a successor may read them. Flags dead, the block is
 * its counter, the cmp, `je exit(target)` and `jmp exit(fall)`. A site
 * caught mid-patch (int3) must not be frozen in.
 */
static void test_patch_site(void)
{
	static const struct {
		const char *name, *code;
		unsigned op;
		bool live;
	} cases[] = {
	    /* xor; nop5 (the site); xor; ret -- target: xor; ret */
	    {"jit.site.nop5_flags_dead", "31c0 0f1f440000 31c9 c3", 0xe9,
	     false},
	    /* ...; target and fall-through read the flags (setc) */
	    {"jit.site.nop5_flags_live", "31c0 0f1f440000 0f92c1 c3", 0xe9,
	     true},
	    {"jit.site.nop2_flags_dead", "31c0 6690 31c9 c3", 0xeb, false},
	    {"jit.site.nop2_flags_live", "31c0 6690 0f92c1 c3", 0xeb, true},
	};
	struct kjit_block b;
	enum kjit_reason r;
	unsigned i;

	henv.env.patch_site = unit_site;
	for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
		struct site_shape sh;
		u64 fall;

		memset(code, 0xcc, sizeof(code));
		kt_unhex(cases[i].code, code);
		kt_unhex(cases[i].live ? "0f92c1 c3" : "31c9 c3",
			 code + (site_to - ORIG));
		fall = site_at + (cases[i].op == 0xe9 ? 5 : 2);
		r = kjit_translate(&tr, ORIG + 2, out, sizeof(out), RUN, &b);
		sh = site_shape(&b, out, RUN);
		/* flags dead: the counter (incq %gs:disp32), cmp, je, jmp */
		kt_check(cases[i].name,
			 !r && !vfy_block(&vfy, kjit_last_desc(&tr), &b, out,
					  RUN) &&
			     b.term == KJIT_I_SITE && b.n_exits == 2 &&
			     sh.cmps == 1 && sh.cmp_op == cases[i].op &&
			     sh.pushf == (cases[i].live ? 1u : 0u) &&
			     ((b.exit[0].target == fall &&
			       b.exit[1].target == site_to) ||
			      (b.exit[0].target == site_to &&
			       b.exit[1].target == fall)) &&
			     (cases[i].live || sh.insns == 1 + 3),
			 "r=%s verifier: %s term=%u exits=%u cmps=%u op=%#x "
			 "pushf=%u insns=%u",
			 kjit_reason_name(r), vfy.msg, b.term, b.n_exits,
			 sh.cmps, sh.cmp_op, sh.pushf, sh.insns);
	}
	/* Flags dead, the state the site is in when translated runs first:
	 * a nop today: `jne exit(fall)` (2 instructions with the cmp), a jmp
	 * today: `je exit(target)`; the other path takes one jmp more. */
	for (i = 0; i < 2; i++) {
		struct site_shape sh;
		ZydisMnemonic first =
		    i ? ZYDIS_MNEMONIC_JZ : ZYDIS_MNEMONIC_JNZ;
		u64 want = i ? site_to : site_at + 5;

		memset(code, 0xcc, sizeof(code));
		kt_unhex(i ? "31c0 e939000000 31c9 c3"
			   : "31c0 0f1f440000 31c9 c3",
			 code);
		kt_unhex("31c9 c3", code + (site_to - ORIG));
		r = kjit_translate(&tr, ORIG + 2, out, sizeof(out), RUN, &b);
		sh = site_shape(&b, out, RUN);
		kt_check(
		    i ? "jit.site.jmp_today_first" : "jit.site.nop_today_first",
		    !r &&
			!vfy_block(&vfy, kjit_last_desc(&tr), &b, out, RUN) &&
			b.term == KJIT_I_SITE && b.n_exits == 2 &&
			sh.after_cmp == first && b.exit[0].target == want,
		    "r=%s after the cmp: %s, first exit to %#llx (want "
		    "%s to %#llx)",
		    kjit_reason_name(r), ZydisMnemonicGetString(sh.after_cmp),
		    (unsigned long long)b.exit[0].target,
		    ZydisMnemonicGetString(first), (unsigned long long)want);
	}
	/* A run of sites (the LSM's hooks on 6.12: one static key per slot,
	 * each nop falling into the next) ending where the flags die: the
	 * look-ahead walks the run however long it is, so no site saves the
	 * flags. Six sites, then xor %ecx,%ecx; ret (target: the same). */
	site_chain = 6;
	memset(code, 0xcc, sizeof(code));
	kt_unhex("31c0 0f1f440000 0f1f440000 0f1f440000 0f1f440000 0f1f440000 "
		 "0f1f440000 31c9 c3",
		 code);
	kt_unhex("31c9 c3", code + (site_to - ORIG));
	r = kjit_translate(&tr, ORIG + 2, out, sizeof(out), RUN, &b);
	{
		struct site_shape sh = site_shape(&b, out, RUN);

		kt_check("jit.site.run_of_sites_flags_dead",
			 !r &&
			     !vfy_block(&vfy, kjit_last_desc(&tr), &b, out,
					RUN) &&
			     b.term == KJIT_I_SITE && sh.cmps == 1 && !sh.pushf,
			 "r=%s verifier: %s cmps=%u pushf=%u",
			 kjit_reason_name(r), vfy.msg, sh.cmps, sh.pushf);
	}
	/* 6.12's vmlinux holds 257 runs of 11 sites (the LSM's hooks, e.g.
	 * security_file_permission) and one of 22: the longest, here. */
	site_chain = 22;
	site_to = ORIG + 0x100;
	memset(code, 0xcc, sizeof(code));
	kt_unhex("31c0", code);
	for (i = 0; i < site_chain; i++)
		kt_unhex("0f1f440000", code + 2 + 5 * i);
	kt_unhex("31c9 c3", code + 2 + 5 * site_chain);
	kt_unhex("31c9 c3", code + (site_to - ORIG));
	r = kjit_translate(&tr, ORIG + 2, out, sizeof(out), RUN, &b);
	{
		struct site_shape sh = site_shape(&b, out, RUN);

		kt_check("jit.site.run_of_22_sites_flags_dead",
			 !r &&
			     !vfy_block(&vfy, kjit_last_desc(&tr), &b, out,
					RUN) &&
			     b.term == KJIT_I_SITE && sh.cmps == 1 &&
			     !sh.pushf && b.seq == KJIT_SEQ_INC,
			 "r=%s verifier: %s cmps=%u pushf=%u seq=%s",
			 kjit_reason_name(r), vfy.msg, sh.cmps, sh.pushf,
			 kjit_seq_name(b.seq));
	}
	site_to = ORIG + 0x40;
	site_chain = 1;
	memset(code, 0xcc, sizeof(code));
	kt_unhex("31c0 cc1f440000 c3", code); /* mid-patch: int3 at the site */
	r = kjit_translate(&tr, ORIG, out, sizeof(out), RUN, &b);
	kt_check("jit.site.mid_patch_not_frozen",
		 !r && b.orig_len == 2 && b.term == KJIT_I_LIMIT,
		 "r=%s orig_len=%u term=%u", kjit_reason_name(r), b.orig_len,
		 b.term);
	henv.env.patch_site = NULL;
}

/*
 * Run a site block's translation against the site's real bytes: original
 * code and translation in one executable page, exits linked to the
 * original successors, which return 1 (fall-through) or 2 (jmp target)
 * and, where they read the flags, the flags they got. Every site state the
 * kernel leaves (nop, jmp, int3 mid-patch) and every combination of the
 * six arithmetic flags: the right successor, the flags intact where live,
 * the counter up by one each run.
 */
static void test_patch_site_run(void)
{
	/* what the nop path (fall-through) and the jmp's target read: 0
	 * nothing, F all the flags (pushfq), C only CF (setc), which the
	 * cmp kills as well. Where one path reads them, the flags must be
	 * saved around the compare. */
	enum { N = 0, F = 1, C = 2 };
	static const struct {
		const char *name, *nop, *jmp;
		unsigned nop_reads, jmp_reads;
	} cases[] = {
	    {"jit.site.run.nop5_flags_dead", "0f1f440000", "e93b000000", N, N},
	    {"jit.site.run.nop5_flags_live", "0f1f440000", "e93b000000", F, F},
	    {"jit.site.run.nop2_flags_dead", "6690", "eb3e", N, N},
	    {"jit.site.run.nop2_flags_live", "6690", "eb3e", F, F},
	    {"jit.site.run.nop5_live_on_nop_path", "0f1f440000", "e93b000000",
	     F, N},
	    {"jit.site.run.nop5_live_on_jmp_path", "0f1f440000", "e93b000000",
	     N, F},
	    {"jit.site.run.nop2_live_on_nop_path", "6690", "eb3e", F, N},
	    {"jit.site.run.nop2_live_on_jmp_path", "6690", "eb3e", N, F},
	    {"jit.site.run.nop5_cf_on_nop_path", "0f1f440000", "e93b000000", C,
	     N},
	    {"jit.site.run.nop2_cf_on_jmp_path", "6690", "eb3e", N, C},
	};
	/* mov $N,%eax; then xor %edx,%edx (the flags die), pushfq; pop %rdx
	 * or mov $0,%edx; setc %dl; xor %ecx,%ecx (the flags die: only CF
	 * was read) */
	static const char *const tail[3] = {"31d2 c3", "9c5a c3",
					    "ba00000000 0f92c2 31c9 c3"};
	unsigned i;

	char name[80];

	for (i = 0; i < 2 * KJIT_ARRAY_SIZE(cases); i++) {
		unsigned ts = i & 1;
		u8 *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		u64 o = (u64)(uintptr_t)m, run = o + 0x800, w = o + 0x700;
		struct kjit_config cfg;
		struct kjit_block b;
		struct henv h;
		unsigned state, f, x, n;
		int bad = 0;
		u64 *ctr;
		enum kjit_reason r;

		if (m == MAP_FAILED) {
			kt_fail(cases[i / 2].name, "mmap: %s", strerror(errno));
			continue;
		}
		memset(m, 0xcc, 4096);
		n = (unsigned)kt_unhex(cases[i / 2].nop, m);
		m[n] = 0xb8, m[n + 1] = 1, m[n + 2] = m[n + 3] = m[n + 4] = 0;
		kt_unhex(tail[cases[i / 2].nop_reads], m + n + 5);
		m[0x40] = 0xb8, m[0x41] = 2, m[0x42] = m[0x43] = m[0x44] = 0;
		kt_unhex(tail[cases[i / 2].jmp_reads], m + 0x45);
		m[0x700] = 0x57,
		m[0x701] = 0x9d; /* push %rdi; popfq; jmp run */
		m[0x702] = 0xe9;
		memcpy(m + 0x703, &(u32){(u32)(run - (w + 7))}, 4);
		kjit_config_default(&cfg);
		henv_init(&h, KJIT_MEM_ABS32, seq_ctr, seq_key, 0);
		henv_add_region(&h, o, m, 0x700);
		h.env.patch_site = unit_site;
		site_at = o;
		site_to = o + 0x40;
		kjit_translator_init(&tr, &h.env, &cfg);
		/* translated while the site jumps (the other half of the cases
		 * while it is the nop): the first path tested differs */
		if (ts)
			kt_unhex(cases[i / 2].jmp, m);
		r = kjit_translate(&tr, o, m + 0x800, 0x800, run, &b);
		if (!r) { /* the decode-back verifier, on the site's env; the
			   * runs below judge the behaviour apart */
			struct vfy sv;

			vfy_init(&sv, &h.env);
			snprintf(name, sizeof(name), "%s%s.verifier",
				 cases[i / 2].name, i & 1 ? ".jmp_today" : "");
			kt_check(name,
				 !vfy_block(&sv, kjit_last_desc(&tr), &b,
					    m + 0x800, run),
				 "%s", sv.msg);
		}
		for (x = 0; !r && x < b.n_exits; x++) {
			u32 off, nv, ov;

			r = kjit_exit_patch(&b, run, x, b.exit[x].target, &off,
					    &nv, &ov);
			if (!r)
				memcpy(m + 0x800 + off, &nv, 4);
		}
		ctr = henv_counter_of(&h, o);
		if (r || !ctr) {
			kt_fail(cases[i / 2].name, "translate: %s",
				kjit_reason_name(r));
			munmap(m, 4096);
			continue;
		}
		for (state = 0; state < 3; state++) {
			/* 0: the nop, 1: the jmp, 2: int3 over the nop's first
			 * byte (text_poke_bp mid-patch): the old nop */
			kt_unhex(state == 1 ? cases[i / 2].jmp
					    : cases[i / 2].nop,
				 m);
			if (state == 2)
				m[0] = 0xcc;
			for (f = 0; f < 64; f++) {
				struct two {
					u64 a, d;
				} got;
				u64 fl = rflags_combo(f), before = *ctr;
				unsigned read = state == 1
						    ? cases[i / 2].jmp_reads
						    : cases[i / 2].nop_reads;

				got = ((struct two(*)(u64))(void *)(m + 0x700))(
				    fl);
				if (got.a != (state == 1 ? 2u : 1u) ||
				    *ctr != before + 1 ||
				    (read == F &&
				     (got.d & 0xcd5) != (fl & 0xcd5)) ||
				    (read == C && got.d != (fl & 1)))
					bad++;
			}
		}
		snprintf(name, sizeof(name), "%s%s", cases[i / 2].name,
			 ts ? ".jmp_today" : "");
		kt_check(name, !bad,
			 "translated while the site %s: %d of 192 runs (3 "
			 "site states x 64 flag combinations) broken",
			 ts ? "jumps" : "is the nop", bad);
		munmap(m, 4096);
	}
	site_at = ORIG + 2;
	site_to = ORIG + 0x40;
}

/*
 * Guards run against the bytes they test. An entry guard's function and a
 * followed static call trampoline are each translated into an executable
 * page, exits linked to their original successors, then called while what
 * the guard tests is as at translation and after the kernel changed it:
 *  - entry guard, F = [endbr64] nop5 (its __fentry__ site); jmp body
 *    (body: ...; ret), the site left the nop (the translation runs: F's block counter +1,
 *    the guard's counter not), made `call T1` (a tracer's call that
 *    returns: native from F, the body still runs, the guard's counter +1)
 *    or `jmp T2` (a livepatch: native, T2's result);
 *  - static call guard, trampoline `jmp F2` with key F2 (the translation
 *    runs, exit to F2, the block counter +1), then the kernel's update:
 *    key F3 (native: the old trampoline still runs F2), trampoline
 *    `jmp F3` (native: F3 runs), the counter not moving.
 * Each call goes through `push %rdi; popfq` with every combination of the
 * six arithmetic flags: a body that reads ZF must get the caller's.
 */
static u64 guard_fn;

static bool run_guard(void *opaque, u64 addr)
{
	return addr == guard_fn;
}

static u64 sc_tramp, sc_key;

static u64 run_sc_key(void *opaque, u64 addr)
{
	return addr == sc_tramp ? sc_key : 0;
}

/* rel32 of a 5-byte jmp/call at @at to @to, written after its opcode. */
static void put_rel5(u8 *m, u64 o, u64 at, u8 op, u64 to)
{
	m[at - o] = op;
	memcpy(m + (at - o) + 1, &(u32){(u32)(to - (at + 5))}, 4);
}

/* Translate the block at @fn into @run and link its exits to their
 * originals; its counter, or NULL. */
static u64 *guard_translate(struct henv *h, u8 *m, u64 o, u64 fn, u64 run,
			    const char *name)
{
	struct kjit_config cfg;
	struct kjit_block b;
	enum kjit_reason r;
	unsigned x;

	kjit_config_default(&cfg);
	kjit_translator_init(&tr, &h->env, &cfg);
	r = kjit_translate(&tr, fn, m + (run - o), 0x200, run, &b);
	for (x = 0; !r && x < b.n_exits; x++) {
		u32 off, nv, ov;

		if (b.exit[x].kind != KJIT_EXIT_DIRECT)
			continue;
		r = kjit_exit_patch(&b, run, x, b.exit[x].target, &off, &nv,
				    &ov);
		if (!r)
			memcpy(m + (run - o) + off, &nv, 4);
	}
	if (r) {
		kt_fail(name, "translate: %s", kjit_reason_name(r));
		return NULL;
	}
	return henv_counter_of(h, fn);
}

/* Call the translation at @run through the flags trampoline at o+0x700
 * with every flag combination; how many runs gave other than @want (or,
 * @zf: the caller's ZF), moved @ctr by other than @dctr or the guard's
 * counter @gctr by other than @dg. */
static unsigned guard_calls(u8 *m, u64 o, u64 run, unsigned want, bool zf,
			    u64 *ctr, u64 dctr, u64 *gctr, u64 dg)
{
	unsigned f, bad = 0;

	m[0x700] = 0x57, m[0x701] = 0x9d; /* push %rdi; popfq; jmp run */
	put_rel5(m, o, o + 0x702, 0xe9, run);
	for (f = 0; f < 64; f++) {
		u64 fl = rflags_combo(f), c = *ctr, g = gctr ? *gctr : 0;
		unsigned got = ((unsigned (*)(u64))(void *)(m + 0x700))(fl);
		unsigned exp = zf ? (unsigned)((fl >> 6) & 1) : want;

		bad += got != exp || *ctr != c + dctr ||
		       (gctr && *gctr != g + dg);
	}
	return bad;
}

static void test_guards_run(void)
{
	static const struct {
		const char *name, *fn, *body;
		unsigned site; /* offset of the __fentry__ site */
		bool zf;       /* the body returns ZF (sete) */
	} cases[] = {
	    /* nop5; jmp body -- body: mov $1,%eax; ret */
	    {"jit.entry_guard.run.flags_dead", "0f1f440000 eb19", "b801000000 c3", 0,
	     false},
	    /* endbr64; nop5; jmp body: the site at +4 */
	    {"jit.entry_guard.run.ibt", "f30f1efa 0f1f440000 eb15",
	     "b801000000 c3", 4, false},
	    /* nop5; jmp body -- body: sete %al; movzbl %al,%eax; ret: the
	     * flags live at the guard */
	    {"jit.entry_guard.run.flags_live", "0f1f440000 eb19",
	     "0f94c0 0fb6c0 c3", 0, true},
	};
	unsigned i, bad;

	for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
		u8 *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		u64 o = (u64)(uintptr_t)m, run = o + 0x800, *gctr, *ctr;
		struct henv h;
		u8 site[5];

		if (m == MAP_FAILED) {
			kt_fail(cases[i].name, "mmap: %s", strerror(errno));
			continue;
		}
		memset(m, 0xcc, 4096);
		kt_unhex(cases[i].fn, m);
		kt_unhex(cases[i].body, m + 0x20); /* the jmp's target */
		memcpy(site, m + cases[i].site, 5);
		kt_unhex("c3", m + 0x80);	   /* T1: a tracer's call */
		kt_unhex("b802000000 c3", m + 0x40); /* T2: a livepatch */
		gctr = (u64 *)(m + 0x600);
		*gctr = 0;
		henv_init(&h, KJIT_MEM_ABS32, seq_ctr, seq_key, 0);
		henv_add_region(&h, o, m, 0x700);
		guard_fn = o;
		h.env.entry_guard = run_guard;
		h.env.guard_counter = o + 0x600;
		ctr = guard_translate(&h, m, o, o, run, cases[i].name);
		if (!ctr) {
			munmap(m, 4096);
			continue;
		}
		/* the nop: translated code, its counter */
		bad = guard_calls(m, o, run, 1, cases[i].zf, ctr, 1, gctr, 0);
		/* call T1: native from F (the body runs after the call) */
		put_rel5(m, o, o + cases[i].site, 0xe8, o + 0x80);
		bad += guard_calls(m, o, run, 1, cases[i].zf, ctr, 0, gctr, 1);
		/* jmp T2: native, T2 instead of the body */
		put_rel5(m, o, o + cases[i].site, 0xe9, o + 0x40);
		bad += guard_calls(m, o, run, 2, false, ctr, 0, gctr, 1);
		/* the nop again: the translation again */
		memcpy(m + cases[i].site, site, 5);
		bad += guard_calls(m, o, run, 1, cases[i].zf, ctr, 1, gctr, 0);
		kt_check(cases[i].name, !bad,
			 "%u of 256 calls (4 site states x 64 flag "
			 "combinations) took the wrong way or counted wrong",
			 bad);
		munmap(m, 4096);
	}
	{
		u8 *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		u64 o = (u64)(uintptr_t)m, run = o + 0x800, *key, *ctr;
		struct henv h;

		if (m == MAP_FAILED) {
			kt_fail("jit.static_call_guard.run.update", "mmap: %s",
				strerror(errno));
			return;
		}
		memset(m, 0xcc, 4096);
		sc_tramp = o + 0x100;
		sc_key = o + 0x608;
		key = (u64 *)(m + 0x608);
		kt_unhex("b803000000 c3", m + 0x140); /* F2 */
		kt_unhex("b804000000 c3", m + 0x180); /* F3 */
		put_rel5(m, o, sc_tramp, 0xe9, o + 0x140);
		*key = o + 0x140;
		henv_init(&h, KJIT_MEM_ABS32, seq_ctr, seq_key, 0);
		henv_add_region(&h, o, m, 0x700);
		h.env.static_call_key = run_sc_key;
		ctr = guard_translate(&h, m, o, sc_tramp, run,
				      "jit.static_call_guard.run.update");
		if (ctr) {
			/* as translated: the exit to F2, counted */
			bad = guard_calls(m, o, run, 3, false, ctr, 1, NULL, 0);
			/* __static_call_update: the key first (native through
			 * the old trampoline still: F2, as a native caller
			 * may run during the update), then the trampoline */
			*key = o + 0x180;
			bad += guard_calls(m, o, run, 3, false, ctr, 0, NULL, 0);
			put_rel5(m, o, sc_tramp, 0xe9, o + 0x180);
			bad += guard_calls(m, o, run, 4, false, ctr, 0, NULL, 0);
			/* and back */
			*key = o + 0x140;
			put_rel5(m, o, sc_tramp, 0xe9, o + 0x140);
			bad += guard_calls(m, o, run, 3, false, ctr, 1, NULL, 0);
			kt_check("jit.static_call_guard.run.update", !bad,
				 "%u of 256 calls (4 key and trampoline states "
				 "x 64 flag combinations) took the wrong way "
				 "or counted wrong",
				 bad);
		}
		munmap(m, 4096);
	}
}

/* Static call sites: ORIG+2 a call site, ORIG+0x20 a tail site, both of
 * the static call whose trampoline is ORIG+0x80; ORIG+0x40 a site whose
 * trampoline is not known. */
static bool unit_static_call(void *opaque, u64 addr, u64 *tramp, bool *tail)
{
	if (addr != ORIG + 2 && addr != ORIG + 0x20 && addr != ORIG + 0x40)
		return false;
	*tramp = addr == ORIG + 0x40 ? 0 : ORIG + 0x80;
	*tail = addr == ORIG + 0x20;
	return true;
}

/* A tail site caught mid-patch (text_poke_bp's int3 over the first byte)
 * may be a jcc (0f 8x rel32, 6 bytes) or a jmp (e9 rel32, 5 bytes): the
 * bytes read cannot say which, so the site must not become a plain jmp to
 * the trampoline (a jcc site would lose its condition). It is refused and
 * runs natively; later in a block, the block ends before it. */
static void test_static_call_tail_mid_patch(void)
{
	static const char *const forms[] = {"cc8400000000 c3", "cc00000000 c3"};
	struct kjit_block b;
	enum kjit_reason r;
	unsigned i;

	for (i = 0; i < KJIT_ARRAY_SIZE(forms); i++) {
		memset(code, 0xcc, sizeof(code));
		kt_unhex(forms[i], code + 0x20);
		r = kjit_translate(&tr, ORIG + 0x20, out, sizeof(out), RUN, &b);
		kt_check(i ? "jit.static_call.tail_mid_patch_jmp"
			   : "jit.static_call.tail_mid_patch_jcc",
			 r == KJIT_R_STATIC_CALL_PATCHING && b.reason == r,
			 "r=%s term=%u exits=%u (translated: as a %s)",
			 kjit_reason_name(r), b.term, b.n_exits,
			 b.term == KJIT_I_JCC ? "jcc" : "plain jmp");
	}
	memset(code, 0xcc, sizeof(code));
	kt_unhex("31c0 cc8400000000 c3", code + 0x1e);
	r = kjit_translate(&tr, ORIG + 0x1e, out, sizeof(out), RUN, &b);
	kt_check("jit.static_call.tail_mid_patch_cut",
		 !r && b.term == KJIT_I_LIMIT && b.orig_len == 2 &&
		     b.exit[0].target == ORIG + 0x20,
		 "r=%s term=%u orig_len=%u", kjit_reason_name(r), b.term,
		 b.orig_len);
}

/* Whatever a static_call site holds today (call func, the ret0 xor, a nop,
 * int3 mid-patch; ret or jmp/jcc func for a tail site), the translation
 * must branch to the trampoline, never freeze today's target. */
static void test_static_call(void)
{
	static const struct {
		const char *name, *hex;
		u8 term;
		u64 site, exit0, exit1;
	} cases[] = {
	    {"jit.static_call.call", "31c0 e8f9ffffff c3", KJIT_I_CALL,
	     ORIG + 2, ORIG + 0x80, 0},
	    {"jit.static_call.ret0_xor", "31c0 2e2e2e31c0 c3", KJIT_I_CALL,
	     ORIG + 2, ORIG + 0x80, 0},
	    {"jit.static_call.nop", "31c0 0f1f440000 c3", KJIT_I_CALL, ORIG + 2,
	     ORIG + 0x80, 0},
	    {"jit.static_call.mid_patch", "31c0 ccf9ffffff c3", KJIT_I_CALL,
	     ORIG + 2, ORIG + 0x80, 0},
	    {"jit.static_call.tail_ret", "c3cccccccc", KJIT_I_JMP, ORIG + 0x20,
	     ORIG + 0x80, 0},
	    {"jit.static_call.tail_jmp", "e900000000", KJIT_I_JMP, ORIG + 0x20,
	     ORIG + 0x80, 0},
	    {"jit.static_call.tail_jcc", "0f8400000000 c3", KJIT_I_JCC,
	     ORIG + 0x20, ORIG + 0x80, ORIG + 0x26},
	};
	struct kjit_block b;
	enum kjit_reason r;
	char why[256];
	unsigned i, j;

	henv.env.static_call = unit_static_call;
	for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
		memset(code, 0xcc, sizeof(code));
		kt_unhex(cases[i].hex, code + (cases[i].site - ORIG));
		r = kjit_translate(&tr, cases[i].site, out, sizeof(out), RUN,
				   &b);
		why[0] = 0;
		if (!r && vfy_block(&vfy, kjit_last_desc(&tr), &b, out, RUN))
			snprintf(why, sizeof(why), "verifier: %.200s", vfy.msg);
		for (j = 0; !r && j < b.n_exits; j++)
			if (b.exit[j].target != cases[i].exit0 &&
			    b.exit[j].target != cases[i].exit1)
				snprintf(why, sizeof(why), "exit %u to 0x%llx",
					 j,
					 (unsigned long long)b.exit[j].target);
		kt_check(cases[i].name,
			 !r && !why[0] && b.term == cases[i].term &&
			     b.n_exits >= 1,
			 "r=%s term=%u exits=%u %s", kjit_reason_name(r),
			 b.term, b.n_exits, why);
	}
	test_static_call_tail_mid_patch();
	/* A static call is a C call (static_call()): its target reads no
	 * flags at its entry, nor does its C caller after it returns, even
	 * where the trampoline is a NULL one's ret, which the look-ahead
	 * cannot see past (a slot of 6.12's LSM hooks that no module
	 * fills): a block that jumps to the call counts with the bare inc.
	 * ORIG+0x10: nop; jmp ORIG+2: call tramp (ORIG+0x80: ret). */
	memset(code, 0xcc, sizeof(code));
	kt_unhex("e879000000", code + 2);
	kt_unhex("90ebef", code + 0x10);
	kt_unhex("c3", code + 0x80);
	r = kjit_translate(&tr, ORIG + 0x10, out, sizeof(out), RUN, &b);
	kt_check("jit.static_call.flags_dead_at_call",
		 !r && b.seq == KJIT_SEQ_INC, "r=%s seq=%s",
		 kjit_reason_name(r), kjit_seq_name(b.seq));
	memset(code, 0xcc, sizeof(code));
	kt_unhex("e800000000", code + 0x40);
	r = kjit_translate(&tr, ORIG + 0x40, out, sizeof(out), RUN, &b);
	kt_check("jit.static_call.unknown_tramp_refused",
		 r == KJIT_R_STATIC_CALL, "r=%s", kjit_reason_name(r));
	henv.env.static_call = NULL;
}

/* Does the last decoded block copy sti or mov ss (whose next instruction
 * runs in its interrupt shadow) as its last instruction before a cut,
 * i.e. before the fall-through exit? */
static bool ends_in_shadow(const struct kjit_block *b)
{
	const struct kjit_block_desc *d = kjit_last_desc(&tr);
	const struct kjit_insn *in;
	ZydisDecoder dec;
	ZydisDecodedInstruction zi;

	if (b->term != KJIT_I_LIMIT || d->n < 2)
		return false;
	in = &d->insn[d->n - 2];
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(
		&dec, ZYAN_NULL, in->bytes, in->len, &zi)))
		return false;
	return zi.mnemonic == ZYDIS_MNEMONIC_STI ||
	       (zi.mnemonic == ZYDIS_MNEMONIC_MOV && zi.opcode == 0x8e &&
		zi.raw.modrm.reg == 2);
}

/* `sti; hlt` must stay atomic (default_idle): no block may end between
 * sti (or mov ss) and the next instruction, whatever ends it - a refused
 * instruction (hlt), the length limit. */
static void test_irq_shadow(void)
{
	static const struct {
		const char *name, *hex;
		u32 orig_len; /* 0: refused */
		u8 term;
	} cases[] = {
	    {"jit.shadow.sti_hlt_first", "fb f4", 0, 0},
	    {"jit.shadow.sti_hlt_cut", "31c0 fb f4", 2, KJIT_I_LIMIT},
	    {"jit.shadow.mov_ss_cut", "31c0 8ed0 0f0b", 2, KJIT_I_LIMIT},
	    {"jit.shadow.sti_ret", "31c0 fb c3", 4, KJIT_I_RET},
	};
	struct kjit_block b;
	enum kjit_reason r;
	char why[256], in[256];
	unsigned i;

	for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
		r = xlate(cases[i].hex, &b, why);
		kt_check(cases[i].name,
			 !ends_in_shadow(&b) && !why[0] &&
			     (cases[i].orig_len
				  ? !r && b.orig_len == cases[i].orig_len &&
					b.term == cases[i].term
				  : r == KJIT_R_IRQ_SHADOW),
			 "r=%s orig_len=%u term=%u%s %s", kjit_reason_name(r),
			 b.orig_len, b.term,
			 ends_in_shadow(&b) ? " ends after sti/mov ss" : "",
			 why);
	}
	/* the length limit falls right after sti: the block ends before it,
	 * and the next block starts with it and keeps its successor */
	for (i = 0; i < KJIT_MAX_INSNS - 2; i++)
		memcpy(in + 2 * i, "90", 2);
	strcpy(in + 2 * i, "fb 90 c3");
	r = xlate(in, &b, why);
	kt_check("jit.shadow.sti_at_limit",
		 !r && !why[0] && !ends_in_shadow(&b) &&
		     b.orig_len == KJIT_MAX_INSNS - 2,
		 "r=%s orig_len=%u%s %s", kjit_reason_name(r), b.orig_len,
		 ends_in_shadow(&b) ? " ends after sti" : "", why);
	r = kjit_translate(&tr, ORIG + KJIT_MAX_INSNS - 2, out, sizeof(out),
			   RUN, &b);
	kt_check("jit.shadow.sti_starts_next", !r && b.term == KJIT_I_RET,
		 "r=%s term=%u", kjit_reason_name(r), b.term);
}

static bool unit_guard(void *opaque, u64 addr)
{
	return addr == ORIG;
}

/* The entry guard of a followed callee: a test of the fentry site's first
 * byte against the 5-byte nop's, a counted jmp to the original function
 * otherwise, all before the block's counter; flags saved only when live. */
/* ORIG is a function's __fentry__ site, whatever it holds. */
static bool unit_ftrace_site(void *opaque, u64 addr)
{
	return addr == ORIG;
}

/* The __fentry__ site is dropped whatever the kernel has put there (an ops
 * or BPF trampoline, a direct call, an optimized Kprobe's jmp), never copied
 * as a call to a trampoline that may be freed; caught mid-patch it is
 * refused (and tried again later). A direct branch elsewhere into code the
 * kernel may free is refused too. */
static void test_ftrace_site(void)
{
	static const struct {
		const char *name, *hex;
		enum kjit_reason r;
	} cases[] = {
	    {"jit.ftrace_site.nop", "0f1f440000 31c0 c3", KJIT_OK},
	    {"jit.ftrace_site.ops_trampoline", "e8fbef0f00 31c0 c3", KJIT_OK},
	    {"jit.ftrace_site.kprobe_detour", "e9fbef0f00 31c0 c3", KJIT_OK},
	    {"jit.ftrace_site.mid_patch", "ccfbef0f00 31c0 c3", KJIT_R_TRAP},
	};
	struct kjit_block b;
	enum kjit_reason r;
	unsigned i;

	henv.env.ftrace_site = unit_ftrace_site;
	for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
		memset(code, 0xcc, sizeof(code));
		kt_unhex(cases[i].hex, code);
		r = kjit_translate(&tr, ORIG, out, sizeof(out), RUN, &b);
		kt_check(cases[i].name,
			 r == cases[i].r &&
			     (r || (b.term == KJIT_I_RET && b.orig_len == 8 &&
				    b.insn_off[0] == 0xffff)),
			 "r=%s term=%u orig_len=%u (site copied: %s)",
			 kjit_reason_name(r), b.term, b.orig_len,
			 b.insn_off[0] == 0xffff ? "no" : "yes");
	}
	henv.env.ftrace_site = NULL;
	memset(code, 0xcc, sizeof(code));
	kt_unhex("31c0 e900100000", code);
	henv_add_sym(&henv, ORIG + 7 + 0x1000, KJIT_SYM_TRANSIENT, -1);
	r = kjit_translate(&tr, ORIG, out, sizeof(out), RUN, &b);
	kt_check("jit.transient_target.jmp_refused",
		 r == KJIT_OK && b.orig_len == 2 && b.term == KJIT_I_LIMIT,
		 "r=%s term=%u orig_len=%u", kjit_reason_name(r), b.term,
		 b.orig_len);
	r = kjit_translate(&tr, ORIG + 2, out, sizeof(out), RUN, &b);
	kt_check("jit.transient_target.block_refused",
		 r == KJIT_R_TRANSIENT_TARGET, "r=%s", kjit_reason_name(r));
	henv.n_sym--;
}

/* Every state text_poke_bp() leaves an __fentry__ site in, between any two
 * of nop5, call and jmp (int3 over the first byte, the other four, the new
 * first byte), is a candidate for kjit_env.ftrace_site; common instructions
 * are not, and the translator asks about candidates only. */
static unsigned ftrace_asked;

static bool counting_ftrace_site(void *opaque, u64 addr)
{
	ftrace_asked++;
	return addr == ORIG;
}

static void test_fentry_candidates(void)
{
	static const u8 forms[3][5] = {
	    KX86_NOP5, {0xe8, 0xfb, 0xef, 0x0f, 0x00}, {0xe9, 0x10, 0, 0, 0}};
	static const char *const others[] = {"31c0",   "0fb6c0", "0f8410000000",
					     "4889e5", "55",	 "c3"};
	unsigned from, to, step, i, bad = 0;
	u8 b[5];
	struct kjit_block blk;
	enum kjit_reason r;

	for (from = 0; from < 3; from++)
		for (to = 0; to < 3; to++)
			for (step = 0; step < 4; step++) {
				memcpy(b, forms[from], 5);
				if (step >= 1)
					b[0] = KX86_OP_INT3;
				if (step >= 2)
					memcpy(b + 1, forms[to] + 1, 4);
				if (step >= 3)
					b[0] = forms[to][0];
				bad += !kx86_may_be_fentry_site(b, 5);
			}
	kt_check("jit.fentry_site.every_patch_state", !bad,
		 "%u text_poke_bp states not taken for a possible site", bad);
	for (i = 0, bad = 0; i < KJIT_ARRAY_SIZE(others); i++)
		bad += kx86_may_be_fentry_site(b, kt_unhex(others[i], b));
	kt_check("jit.fentry_site.others", !bad,
		 "%u ordinary instructions taken for a possible site", bad);

	henv.env.ftrace_site = counting_ftrace_site;
	memset(code, 0xcc, sizeof(code));
	kt_unhex("31c0 0fb6c0 4889e5 c3", code);
	ftrace_asked = 0;
	r = kjit_translate(&tr, ORIG, out, sizeof(out), RUN, &blk);
	kt_check("jit.ftrace_site.asked_for_candidates_only",
		 r == KJIT_OK && ftrace_asked == 0,
		 "r=%s, asked %u times about a block with no candidate",
		 kjit_reason_name(r), ftrace_asked);
	kt_unhex("0f1f440000 31c0 c3", code);
	ftrace_asked = 0;
	r = kjit_translate(&tr, ORIG, out, sizeof(out), RUN, &blk);
	kt_check("jit.ftrace_site.asked_for_nop5",
		 r == KJIT_OK && ftrace_asked == 1 && blk.insn_off[0] == 0xffff,
		 "r=%s, asked %u times, site %s", kjit_reason_name(r),
		 ftrace_asked,
		 blk.insn_off[0] == 0xffff ? "dropped" : "copied");
	henv.env.ftrace_site = NULL;
}

/* The decode memo (translate.h) changes nothing: a warm translator, whose
 * decodes come from the memo, emits what a cold one does - also for
 * instructions that share their first three bytes (one memo set) and
 * differ in displacement or length, decoded in turn. */
static void test_decode_memo(void)
{
	static const char *const blocks[] = {
	    "488b4708 c3",
	    "488b4710 c3",
	    "488b8710010000 c3",
	    "488b4708 488b4710 c3",
	    "4889e5 4889e5 31c0 c3",
	    "488b8710010000 488b4708 7402 c3 c3",
	    /* same first three bytes, other lengths */
	    "660f1f440000 c3",
	    "660f1f00 c3",
	    "488b0424 c3",
	    "488b042510000000 c3",
	    /* same shape, other displacement or immediate (by shape) */
	    "e810000000 c3",
	    "e820000000 c3",
	    "7402 c3 c3",
	    "7401 c3 c3",
	    "c7470801000000 c3",
	    "c74710ffffffff c3",
	    "c20800",
	    "c21000",
	    "4883c008 c3",
	    "4883c0f8 c3",
	};
	static struct kjit_translator cold;
	static u8 want[KJIT_MAX_BLOCK_BYTES];
	struct kjit_block b, bc;
	unsigned pass, i, bad = 0;
	u64 hits = tr.stats.memo_hits;
	char first[200] = "";

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < KJIT_ARRAY_SIZE(blocks); i++) {
			enum kjit_reason r, rc;

			memset(code, 0xcc, sizeof(code));
			kt_unhex(blocks[i], code);
			kjit_translator_init(&cold, &henv.env, &tr.cfg);
			rc = kjit_translate(&cold, ORIG, want, sizeof(want),
					    RUN, &bc);
			r = kjit_translate(&tr, ORIG, out, sizeof(out), RUN,
					   &b);
			if (r == rc && (r || (b.len == bc.len &&
					      !memcmp(out, want, b.len))))
				continue;
			if (!bad++)
				snprintf(first, sizeof(first),
					 "pass %u, %s: warm %s/%u bytes, cold "
					 "%s/%u",
					 pass, blocks[i], kjit_reason_name(r),
					 b.len, kjit_reason_name(rc), bc.len);
		}
	kt_check("jit.memo.same_translation", !bad, "%u differ; first: %s", bad,
		 first);
	kt_check("jit.memo.used", tr.stats.memo_hits > hits,
		 "no decode came from the memo");
}

static u64 fentry_site_at;

static bool unit_fentry_site_at(void *opaque, u64 addr)
{
	return addr == fentry_site_at;
}

static void test_entry_guard(void)
{
	static const struct {
		const char *name, *hex;
		bool live;
		unsigned site_off;
		bool fentry; /* the nop is the function's __fentry__ site */
	} cases[] = {
	    {"jit.entry_guard.flags_dead", "0f1f440000 31c0 c3", false, 0,
	     false},
	    {"jit.entry_guard.flags_live", "0f1f440000 7400 c3", true, 0,
	     false},
	    /* IBT: the site is at +4, behind endbr64; the guard tests the site
	     * and goes native from the function's start. */
	    {"jit.entry_guard.ibt_site", "f30f1efa 0f1f440000 31c0 c3", false,
	     4, false},
	    /* A compiled C function's entry (its first instruction is its
	     * __fentry__ site) reads no flags, whatever the look-ahead sees
	     * past it (here an indirect jmp, which it cannot see through):
	     * no pushfq around the guard. */
	    {"jit.entry_guard.c_entry_flags_dead", "0f1f440000 ffe0", false, 0,
	     true},
	    {"jit.entry_guard.c_entry_ibt_flags_dead",
	     "f30f1efa 0f1f440000 ffe0", false, 4, true},
	};
	ZydisDecoder dec;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	struct kjit_block b;
	enum kjit_reason r;
	ZyanU64 abs;
	unsigned i, off, cmp, inc, jmp, pushf;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	henv.env.entry_guard = unit_guard;
	henv.env.guard_counter = RUN + 0x100000;
	for (i = 0; i < KJIT_ARRAY_SIZE(cases); i++) {
		memset(code, 0xcc, sizeof(code));
		kt_unhex(cases[i].hex, code);
		henv.env.ftrace_site =
		    cases[i].fentry ? unit_fentry_site_at : NULL;
		fentry_site_at = ORIG + cases[i].site_off;
		r = kjit_translate(&tr, ORIG, out, sizeof(out), RUN, &b);
		henv.env.ftrace_site = NULL;
		off = cmp = inc = jmp = pushf = 0;
		while (!r && off < b.body_len && !jmp &&
		       ZYAN_SUCCESS(ZydisDecoderDecodeFull(
			   &dec, out + off, b.body_len - off, &zi, op))) {
			if (zi.mnemonic == ZYDIS_MNEMONIC_PUSHFQ)
				pushf++;
			if (zi.mnemonic == ZYDIS_MNEMONIC_CMP &&
			    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(
				&zi, &op[0], RUN + off, &abs)) &&
			    abs == ORIG + cases[i].site_off &&
			    op[1].imm.value.u == 0x0f)
				cmp++;
			if (zi.mnemonic == ZYDIS_MNEMONIC_INC &&
			    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(
				&zi, &op[0], RUN + off, &abs)) &&
			    abs == RUN + 0x100000)
				inc++;
			if (zi.mnemonic == ZYDIS_MNEMONIC_JMP &&
			    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(
				&zi, &op[0], RUN + off, &abs)) &&
			    abs == ORIG)
				jmp++;
			off += zi.length;
		}
		kt_check(cases[i].name,
			 !r && cmp == 1 && inc == 1 && jmp == 1 &&
			     pushf == (cases[i].live ? 1u : 0u),
			 "r=%s cmp=%u inc=%u jmp=%u pushf=%u",
			 kjit_reason_name(r), cmp, inc, jmp, pushf);
	}
	henv.env.entry_guard = NULL;
	henv.env.guard_counter = 0;
}

int main(void)
{
	struct kjit_config cfg;

	kjit_config_default(&cfg);
	setup(&cfg);
	test_reason_names();
	test_golden_selftest();
	test_goldens();
	test_refusals();
	test_cut_before_native();
	test_rsb_slot();
	test_leave_call();
	test_stay_call();
	test_fixups();
	test_relocation();
	test_liveness();
	test_exit_patch();
	test_jcc_order();
	test_lock_counter();
	test_patch_site();
	test_static_call();
	test_entry_guard();
	test_ftrace_site();
	test_fentry_candidates();
	test_decode_memo();
	test_irq_shadow();
	test_patch_site_run();
	test_guards_run();
	test_sequences_run();
	test_jump_prediction();
	return kt_exit();
}
