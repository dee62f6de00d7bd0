/* test_vmlinux.c - translate every statically reachable block of every
 * function in the stock kernel's .text (no execution) and decode each
 * emitted block back with the independent verifier.
 *
 * Functions come from the kernel's embedded kallsyms; .entry.text,
 * .noinstr.text, cpuidle text and the retpoline/return thunks themselves
 * are skipped. Blocks are found by following direct successors (both jcc
 * sides, jmp targets, loop, call return sites) inside the function.
 * Instructions with exception-table entries are refused (they may only
 * fault at their original address), as the kernel module must do.
 * Fails below 99% of non-trap blocks (98.5% of all blocks) translated, or
 * on any verifier complaint. A third pass translates for a kernel that
 * enforces IBT (kjit_config.ibt) and proves every block safe under it
 * (ibt_check.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "jit/translate.h"
#include "jit/instrument.h"
#include "tests/host/host_env.h"
#include "tests/host/ibt_check.h"
#include "tests/host/unwind_check.h"
#include "tests/host/kjit_test.h"
#include "tests/host/verify.h"
#include "tests/host/vmlinux.h"

#define RUN_BASE 0xffffffffc0000000ull /* module area: like the real cache */
/* Blocks are placed in RUN_BASE + [0, 16 MiB) (do_block): the dispatcher
 * lies past them, as the module's lies outside its cache (inside, a block
 * could end where the dispatcher starts, and the IBT proof would follow an
 * exit to the dispatcher into the block's own bytes). */
#define DISPATCH      0xffffffffc1100000ull
#define GUARD_CTR     0xffffffffc1200000ull /* env->guard_counter */
#define MAX_FN_BLOCKS (1u << 16)
/* Target on blocks that are not a lone ud2/int3 (BUG/WARN sites and padding
 * after noreturn calls: they must execute at their original address, so
 * refusing them is the design, not a gap); a floor on all blocks. */
#define TARGET_PCT    99.0
#define RAW_FLOOR_PCT 98.5

static struct vml vml;
static struct henv henv;
static struct kjit_translator tr;
static struct vfy vfy;
static struct ibtc ibtc; /* with tr.cfg.ibt: the IBT proof of each block */
static struct uwc uwc;	 /* every block: its unwind map (unwind_check.h) */
static u8 outbuf[KJIT_MAX_BLOCK_BYTES];
/* With check_memo, each block is translated a second time by a translator
 * whose decode memo is empty (translate.h): the bytes must not differ. */
static struct kjit_translator cold;
static u8 coldbuf[KJIT_MAX_BLOCK_BYTES];
static bool check_memo;

static u64 seen_addr[MAX_FN_BLOCKS * 2];
static unsigned seen_gen[MAX_FN_BLOCKS * 2], gen;
static u64 work[MAX_FN_BLOCKS];

static struct {
	u64 fns, fns_ok, blocks, blocks_ok, vfy_fail, in_bytes, out_bytes;
	u64 ibt_fail, memo_diff, uw_fail;
	u64 jpred;  /* blocks ending in an indirect jmp with a prediction */
	u64 sites;  /* blocks ending at a static-key site (verified) */
	u64 scall_sites;   /* blocks ending at an inline static_call site */
	u64 entry_guards;  /* blocks behind an entry guard (verified) */
	u64 scall_guards;  /* static call trampolines behind a guard */
	u64 fix[4]; /* blocks by kjit_block.fix_kind */
	char first_ibt[400], first_memo[200], first_uw[400];
	u64 reason[KJIT_R_COUNT];
	u64 trap_kind[3];
	char first_vfy[400];
} st;

static const char *const thunk_regs[16] = {
    "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
    "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};

static int visit(u64 a)
{
	unsigned i = (unsigned)((a * 0x9e3779b97f4a7c15ull) >> 47);

	for (;; i = (i + 1) % (MAX_FN_BLOCKS * 2)) {
		if (seen_gen[i] != gen) {
			seen_gen[i] = gen, seen_addr[i] = a;
			return 1;
		}
		if (seen_addr[i] == a)
			return 0;
	}
}

/* The static_call site ending block @d and the guards at its start @a,
 * as the env answers the translator (for the sweep's figures). */
static void count_guards(const struct kjit_block_desc *d, u64 a)
{
	u64 tramp;
	bool tail;

	st.scall_sites += henv.env.static_call &&
			  henv.env.static_call(&henv, d->insn[d->n - 1].addr,
					       &tramp, &tail);
	st.entry_guards +=
	    henv.env.entry_guard && henv.env.entry_guard(&henv, a);
	st.scall_guards += henv.env.static_call_key &&
			   henv.env.static_call_key(&henv, a) != 0;
}

/* translate one block; push its in-function successors */
static int do_block(u64 a, u64 lo, u64 hi, unsigned *nw)
{
	struct kjit_block b;
	const struct kjit_block_desc *d;
	const struct kjit_insn *t;
	u64 run = RUN_BASE + ((st.blocks * 4099) & 0xfffff) * 16;
	enum kjit_reason r =
	    kjit_translate(&tr, a, outbuf, sizeof(outbuf), run, &b);
	u64 succ[2];
	int ns = 0, k;

	st.blocks++;
	if (r) {
		st.reason[r]++;
		if (r == KJIT_R_TRAP) {
			u8 c = vml.text[a - vml.text_addr];
			st.trap_kind[c == 0xcc ? 0 : c == 0x0f ? 1 : 2]++;
		}
		return 0;
	}
	st.blocks_ok++;
	st.fix[b.fix_kind & 3]++;
	st.jpred += b.jsite_off != 0;
	st.sites += b.term == KJIT_I_SITE;
	st.in_bytes += b.orig_len, st.out_bytes += b.len;
	if (check_memo) {
		struct kjit_block bc;

		kjit_translator_init(&cold, &henv.env, &tr.cfg);
		if ((kjit_translate(&cold, a, coldbuf, sizeof(coldbuf), run,
				    &bc) ||
		     bc.len != b.len || memcmp(coldbuf, outbuf, b.len)) &&
		    !st.memo_diff++)
			snprintf(st.first_memo, sizeof(st.first_memo),
				 "block %#llx: %u bytes from the memo, %u "
				 "without",
				 (unsigned long long)a, b.len, bc.len);
	}
	d = kjit_last_desc(&tr);
	count_guards(d, a);
	if (vfy_block(&vfy, d, &b, outbuf, run) && !st.vfy_fail++)
		snprintf(st.first_vfy, sizeof(st.first_vfy),
			 "block %#llx: %.300s", (unsigned long long)a, vfy.msg);
	if (uwc_block(&uwc, d, &b, outbuf, run, tr.uw, tr.n_uw) &&
	    !st.uw_fail++)
		snprintf(st.first_uw, sizeof(st.first_uw),
			 "block %#llx at run %#llx: %.300s",
			 (unsigned long long)a, (unsigned long long)run,
			 uwc.msg);
	if (tr.cfg.ibt && ibtc_block(&ibtc, d, &b, outbuf, run) &&
	    !st.ibt_fail++)
		snprintf(st.first_ibt, sizeof(st.first_ibt),
			 "block %#llx at run %#llx: %.300s",
			 (unsigned long long)a, (unsigned long long)run,
			 ibtc.msg);
	t = &d->insn[d->n - 1];
	switch (t->kind) {
	case KJIT_I_JCC:
	case KJIT_I_LOOP:
		succ[ns++] = t->target;
		/* fallthrough */
	case KJIT_I_CALL:
	case KJIT_I_CALL_IND:
		succ[ns++] = t->addr + t->len;
		break;
	case KJIT_I_JMP:
	case KJIT_I_LIMIT:
		succ[ns++] = t->target;
		break;
	}
	for (k = 0; k < ns; k++)
		if (succ[k] >= lo && succ[k] < hi && *nw < MAX_FN_BLOCKS &&
		    visit(succ[k]))
			work[(*nw)++] = succ[k];
	return 1;
}

static void do_function(u64 lo, u64 hi)
{
	unsigned nw = 0, i, ok = 1;

	gen++;
	visit(lo);
	work[nw++] = lo;
	for (i = 0; i < nw; i++)
		ok &= do_block(work[i], lo, hi, &nw);
	st.fns++;
	st.fns_ok += ok;
}

static int in_skip(u64 a, const u64 (*skip)[2], int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (a >= skip[i][0] && a < skip[i][1])
			return 1;
	return 0;
}

static void sweep(void)
{
	u64 skip[4][2] = {
	    {vml_sym(&vml, "__noinstr_text_start"),
	     vml_sym(&vml, "__noinstr_text_end")},
	    {vml_sym(&vml, "__entry_text_start"),
	     vml_sym(&vml, "__entry_text_end")},
	    {vml_sym(&vml, "__cpuidle_text_start"),
	     vml_sym(&vml, "__cpuidle_text_end")},
	    {vml_sym(&vml, "__indirect_thunk_start"),
	     vml_sym(&vml, "__indirect_thunk_end")},
	};
	u64 text_end = vml.text_addr + vml.text_size;
	size_t i, j;

	for (i = 0; i < vml.n_sym; i++) {
		const struct vsym *s = &vml.sym[i];
		u64 end = text_end;

		if (!strchr("tTwW", s->type) || s->addr < vml.text_addr ||
		    s->addr >= text_end ||
		    in_skip(s->addr, (const u64(*)[2])skip, 4) ||
		    (i > 0 && vml.sym[i - 1].addr == s->addr))
			continue;
		for (j = i + 1; j < vml.n_sym; j++)
			if (vml.sym[j].addr > s->addr) {
				end = vml.sym[j].addr < text_end
					  ? vml.sym[j].addr
					  : text_end;
				break;
			}
		do_function(s->addr, end);
	}
}

static int setup_env(void)
{
	char name[64];
	int r;
	u64 a;

	henv_init(&henv, KJIT_MEM_GS, NULL, NULL, DISPATCH);
	henv.env.dispatch_nf = DISPATCH + 0x40; /* the flags-dead entry */
	henv_add_region(&henv, vml.text_addr, vml.text, vml.text_size);
	henv.fixups = vml.fixups, henv.n_fixups = vml.n_fixups;
	henv.funcs = vml_func_starts(&vml, &henv.n_funcs);
	/* static-key sites, as the module translates them */
	henv.sites = (const struct henv_site *)vml.jumps;
	henv.n_sites = vml.n_jumps;
	henv.env.patch_site = henv_patch_site;
	/* inline static_call sites, as the module translates them: a call
	 * (jmp, jcc) to the call's trampoline */
	if (henv_set_static_calls(&henv,
				  (const struct henv_scall *)vml.scalls,
				  vml.n_scalls))
		return -1;
	henv.env.static_call = henv_static_call;
	if (!(a = vml_sym(&vml, "__fentry__")))
		return -1;
	henv_add_sym(&henv, a, KJIT_SYM_FENTRY, -1);
	if (!(a = vml_sym(&vml, "__x86_return_thunk")))
		return -1;
	henv_add_sym(&henv, a, KJIT_SYM_RETURN_THUNK, -1);
	for (r = 0; r < 16; r++) {
		snprintf(name, sizeof(name), "__x86_indirect_thunk_%s",
			 thunk_regs[r]);
		if ((a = vml_sym(&vml, name)))
			henv_add_sym(&henv, a, KJIT_SYM_INDIRECT_THUNK, r);
	}
	kjit_translator_init(&tr, &henv.env, NULL);
	vfy_init(&vfy, &henv.env);
	return 0;
}

/* Whole exception-table entries for the env (host_env.h): instructions
 * with a fixup are then copied as kjit.ko copies them (kmod/kjit_fixups.h),
 * not refused. */
static void use_fixup_entries(void)
{
	static struct henv_fixup *fix;
	size_t i;

	fix = calloc(vml.n_fixups, sizeof(*fix));
	for (i = 0; fix && i < vml.n_fixups; i++) {
		fix[i].insn = vml.fix[i].insn;
		fix[i].fixup = vml.fix[i].fixup;
		fix[i].data = vml.fix[i].data;
	}
	henv.fix = fix;
}

/* Second pass with the configuration kjit.ko uses in a deep session
 * (kmod/session.c, kmod/env.c): native-call mode, followed indirect calls,
 * per-CPU counters at 64-bit %gs offsets (as alloc_percpu() gives: movabs
 * + incq %gs:(%reg), a dead register or a saved one, moved to where the
 * flags are dead), plus edge counters, and instructions with exception-table
 * entries copied. */
static void kernel_config(void)
{
	struct kjit_config cfg;

	memset(&st, 0, sizeof(st));
	use_fixup_entries();
	kjit_config_default(&cfg);
	cfg.native_calls = true;
	cfg.follow_indirect_calls = true;
	cfg.predict_indirect_calls = true;
	cfg.predict_indirect_jumps = true;
	cfg.instr |= KJIT_INSTR_EDGE_COUNT;
	henv.ctr_mode = KJIT_MEM_GS;
	henv.gs_fake = 0xffffe8c000010000ull; /* like a percpu chunk's */
	henv.env.jsite_gs = 0x1d0f8; /* like a module's static per-CPU data */
	/* deep mode's guards: every function's first block behind an entry
	 * guard (a function whose __fentry__ site the kernel may enable:
	 * the module guards those it follows), every static call trampoline
	 * behind its key's guard */
	henv.env.entry_guard = henv_entry_guard;
	henv.env.static_call_key = henv_static_call_key;
	henv.env.guard_counter = GUARD_CTR;
	kjit_translator_init(&tr, &henv.env, &cfg);
	vfy.native_calls = true;
	vfy.follow_indirect_calls = true;
	vfy.predict_indirect_calls = true;
	vfy.predict_indirect_jumps = true;
	printf("vmlinux sweep: kernel configuration (native calls, followed "
	       "and inline-predicted indirect calls, inline-predicted indirect "
	       "jmps, per-CPU %%gs counters at 64-bit offsets, "
	       "edge counters, entry guards on every function, static call "
	       "guards on every trampoline)\n");
}

/* Third and fourth passes: for a kernel that enforces IBT
 * (kjit_config.ibt), every block through the IBT proof; the module's
 * configuration with indirect calls copied (@follow false: they are what
 * the proof must find and check) and followed (deep sessions). */
static void ibt_config(bool follow)
{
	memset(&st, 0, sizeof(st));
	tr.cfg.ibt = true;
	tr.cfg.follow_indirect_calls = follow;
	tr.cfg.predict_indirect_calls = follow;
	kjit_translator_init(&tr, &henv.env, &tr.cfg);
	vfy.ibt = true;
	vfy.follow_indirect_calls = follow;
	vfy.predict_indirect_calls = follow;
	ibtc_init(&ibtc);
	printf("vmlinux sweep: kernel configuration with kjit_config.ibt (a "
	       "kernel enforcing IBT), indirect calls %s\n",
	       follow ? "followed" : "copied");
}

static void report_ibt(const char *pfx)
{
	char name[64];

	printf("vmlinux sweep: ibt proof: %llu blocks begin with endbr64; "
	       "%llu code bytes reachable, %llu bytes padding and literals; "
	       "%llu indirect calls, %llu of them copies of the original's\n",
	       (unsigned long long)ibtc.blocks,
	       (unsigned long long)ibtc.code_bytes,
	       (unsigned long long)ibtc.tail_bytes,
	       (unsigned long long)ibtc.indirect,
	       (unsigned long long)ibtc.copied);
	snprintf(name, sizeof(name), "jit.vmlinux.%sproof", pfx);
	kt_check(name,
		 !st.ibt_fail && ibtc.blocks == st.blocks_ok &&
		     ibtc.indirect == ibtc.copied,
		 "%llu of %llu blocks fail; first: %s",
		 (unsigned long long)st.ibt_fail,
		 (unsigned long long)ibtc.blocks, st.first_ibt);
}

/* Block counters by sequence, as `kjit stat` prints them. */
static void report_forms(void)
{
	unsigned f, q;
	u64 n = 0;

	for (f = 1; f < KJIT_CTR_FORMS; f++)
		for (q = 1; q < KJIT_SEQ_COUNT; q++)
			n += tr.stats.ctr[f][q];
	printf("vmlinux sweep: block counters:");
	for (f = 1; f < KJIT_CTR_FORMS; f++)
		for (q = 1; q < KJIT_SEQ_COUNT; q++)
			if (tr.stats.ctr[f][q])
				printf(" %s/%s %llu (%.1f%%)",
				       kjit_ctr_form_name(f), kjit_seq_name(q),
				       (unsigned long long)tr.stats.ctr[f][q],
				       100.0 * tr.stats.ctr[f][q] / n);
	printf("\n");
}

static void report(const char *pfx, double secs)
{
	char name[64];
	double pct = st.blocks ? 100.0 * st.blocks_ok / st.blocks : 0;
	u64 code_blocks = st.blocks - st.trap_kind[0] - st.trap_kind[1];
	double pct_code = code_blocks ? 100.0 * st.blocks_ok / code_blocks : 0;
	int r;

	printf(
	    "vmlinux sweep: %llu functions, %llu fully translated (%.2f%%)\n",
	    (unsigned long long)st.fns, (unsigned long long)st.fns_ok,
	    st.fns ? 100.0 * st.fns_ok / st.fns : 0);
	printf("vmlinux sweep: %llu blocks, %llu translated (%.3f%%), %.2fs, "
	       "%.0f blocks/s incl. verify\n",
	       (unsigned long long)st.blocks, (unsigned long long)st.blocks_ok,
	       pct, secs, st.blocks / secs);
	printf("vmlinux sweep: %llu blocks end at one of the %zu static-key "
	       "sites of __jump_table (each checked by the verifier)\n",
	       (unsigned long long)st.sites, vml.n_jumps);
	printf("vmlinux sweep: expansion %.2fx (all bytes incl. stubs), "
	       "inc/lahf/pushf %llu/%llu/%llu\n",
	       (double)st.out_bytes / st.in_bytes,
	       (unsigned long long)tr.stats.seq[KJIT_SEQ_INC],
	       (unsigned long long)tr.stats.seq[KJIT_SEQ_LAHF],
	       (unsigned long long)tr.stats.seq[KJIT_SEQ_PUSHF]);
	report_forms();
	for (r = 1; r < KJIT_R_COUNT; r++)
		if (st.reason[r])
			printf("vmlinux sweep: refused %-16s %8llu (%.3f%% of "
			       "blocks)\n",
			       kjit_reason_name(r),
			       (unsigned long long)st.reason[r],
			       100.0 * st.reason[r] / st.blocks);
	printf("vmlinux sweep: instructions with exception-table entries "
	       "copied: %llu with an exit to their fixup, %llu whose fixup is "
	       "the next instruction\n",
	       (unsigned long long)st.fix[KJIT_FIXUP_EXIT],
	       (unsigned long long)st.fix[KJIT_FIXUP_NEXT]);
	printf("vmlinux sweep: trap blocks starting with int3 %llu, ud2 "
	       "(BUG/WARN) %llu, other %llu\n",
	       (unsigned long long)st.trap_kind[0],
	       (unsigned long long)st.trap_kind[1],
	       (unsigned long long)st.trap_kind[2]);
	printf("vmlinux sweep: %.3f%% of blocks that are not a lone trap "
	       "(ud2/int3 must run at their own address)\n",
	       pct_code);
	snprintf(name, sizeof(name), "jit.vmlinux.%sverify", pfx);
	kt_check(name, st.vfy_fail == 0,
		 "%llu blocks fail decode-back; first: %s",
		 (unsigned long long)st.vfy_fail, st.first_vfy);
	snprintf(name, sizeof(name), "jit.vmlinux.%sunwind", pfx);
	kt_check(name, st.uw_fail == 0 && uwc.blocks == st.blocks_ok,
		 "%llu of %llu blocks' unwind maps are wrong; first: %s",
		 (unsigned long long)st.uw_fail,
		 (unsigned long long)st.blocks_ok, st.first_uw);
	printf("vmlinux sweep: unwind maps of %llu blocks checked, %llu "
	       "instructions, %llu of them with inserted bytes pushed\n",
	       (unsigned long long)uwc.blocks, (unsigned long long)uwc.insns,
	       (unsigned long long)uwc.pushed);
	uwc_init(&uwc);
	snprintf(name, sizeof(name), "jit.vmlinux.%scoverage", pfx);
	kt_check(name, pct_code >= TARGET_PCT && st.fns > 10000,
		 "%.3f%% of %llu non-trap blocks translated, target %.0f%%",
		 pct_code, (unsigned long long)code_blocks, TARGET_PCT);
	snprintf(name, sizeof(name), "jit.vmlinux.%scoverage_raw", pfx);
	kt_check(name, pct >= RAW_FLOOR_PCT,
		 "%.3f%% of all %llu blocks translated, floor %.1f%%", pct,
		 (unsigned long long)st.blocks, RAW_FLOOR_PCT);
}

int main(int argc, char **argv)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char path[512], err[256];
	struct stat sb;
	struct timespec t0, t1;
	int follow;

	snprintf(path, sizeof(path), "%s/host/vmlinux", build);
	if (argc > 1)
		snprintf(path, sizeof(path), "%s", argv[1]);
	if (stat(path, &sb)) {
		/* no image at all is a SKIP; an image we failed to unpack is
		 * not */
		snprintf(err, sizeof(err), "%s/cache/kver", build);
		if (stat(err, &sb))
			kt_skip("jit.vmlinux.extract",
				"no kernel image in %s/cache", build);
		else
			kt_fail("jit.vmlinux.extract",
				"%s missing (extract-vmlinux.sh failed?)",
				path);
		return kt_exit();
	}
	if (vml_open(&vml, path, err, sizeof(err)) || setup_env()) {
		kt_fail("jit.vmlinux.kallsyms", "%s", err);
		return kt_exit();
	}
	kt_pass("jit.vmlinux.kallsyms", "%zu symbols, %zu extable entries",
		vml.n_sym, vml.n_fixups);
	uwc_init(&uwc);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sweep();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	report("", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	kernel_config();
	check_memo = true;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sweep();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	check_memo = false;
	report("kcfg.",
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	printf("vmlinux sweep: %llu blocks end in an indirect jmp with an "
	       "inline prediction\n",
	       (unsigned long long)st.jpred);
	printf("vmlinux sweep: %llu blocks end at an inline static_call site "
	       "(of %zu), %llu begin with an entry guard, %llu static call "
	       "trampolines with a guard (each checked by the verifier)\n",
	       (unsigned long long)st.scall_sites, vml.n_scalls,
	       (unsigned long long)st.entry_guards,
	       (unsigned long long)st.scall_guards);
	kt_check("jit.vmlinux.kcfg.guards",
		 st.entry_guards > 10000 && st.scall_guards > 100 &&
		     st.scall_sites > 1000,
		 "%llu entry guards, %llu static call guards, %llu static "
		 "call sites: the sweep checks almost none",
		 (unsigned long long)st.entry_guards,
		 (unsigned long long)st.scall_guards,
		 (unsigned long long)st.scall_sites);
	kt_check("jit.vmlinux.kcfg.jmp_predictions", st.jpred > 100,
		 "%llu blocks with an indirect jmp's prediction: the sweep "
		 "checks almost none",
		 (unsigned long long)st.jpred);
	kt_check("jit.vmlinux.kcfg.memo_equivalent", !st.memo_diff,
		 "%llu of %llu blocks translate differently with the decode "
		 "memo; first: %s",
		 (unsigned long long)st.memo_diff,
		 (unsigned long long)st.blocks_ok, st.first_memo);
	for (follow = 0; follow < 2; follow++) {
		const char *pfx = follow ? "ibt_deep." : "ibt.";

		ibt_config(follow);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		sweep();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		report(pfx, (t1.tv_sec - t0.tv_sec) +
				(t1.tv_nsec - t0.tv_nsec) / 1e9);
		report_ibt(pfx);
	}
	return kt_exit();
}
