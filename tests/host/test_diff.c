/* test_diff.c - differential test: every corpus function runs natively and
 * translated (through host_cache's dispatcher) on many inputs; results and
 * global state must match, and per-block entry counts must equal those of
 * an independent ptrace single-step oracle (oracle.h), which shares
 * nothing with the translator: counts exactly, and block ends exactly.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include "jit/instrument.h"
#include "tests/host/corpus.h"
#include "tests/host/host_cache.h"
#include "tests/host/kjit_test.h"
#include "tests/host/oracle.h"

/* corpus callees (see corpus.c) */
long op_add(long, long), op_sub(long, long), op_mul(long, long);
long op_xor(long, long), t_even(long, long), t_odd(long, long);

#define N_INPUTS  300
#define N_ORACLE  6
#define MAX_CASES 96

static struct hc cache;
static u64 lo, hi;

/* one corpus call under the oracle */
struct call {
	corpus_fn f;
	long a, b;
};

static void call_fn(void *arg)
{
	struct call *c = arg;

	c->f(c->a, c->b);
}

static long oracle_run(corpus_fn f, long a, long b, struct omap *m)
{
	struct call c = {f, a, b};

	return oracle_run_fn(call_fn, &c, m);
}

/* ---- translated runs ------------------------------------------------- */

static long run_translated(corpus_fn f, long a, long b)
{
	corpus_fn t =
	    (corpus_fn)(uintptr_t)hc_lookup(&cache, (u64)(uintptr_t)f);

	return t(a, b);
}

static u64 rnd_state = 0x12345678abcdefull;
static long rnd(void)
{
	rnd_state ^= rnd_state << 13, rnd_state ^= rnd_state >> 7,
	    rnd_state ^= rnd_state << 17;
	return (long)rnd_state;
}

static void input(unsigned i, long *a, long *b)
{
	static const long special[] = {0,
				       1,
				       -1,
				       2,
				       7,
				       63,
				       64,
				       0x7fffffffffffffffl,
				       (long)0x8000000000000000ul,
				       -64};

	*a = i < 10 ? special[i] : (i % 3 ? rnd() % 200 : rnd());
	*b =
	    i < 20 && i >= 10 ? special[i - 10] : (i % 5 ? rnd() % 100 : rnd());
}

static void zero_counters(void)
{
	unsigned i;

	for (i = 0; i < cache.n_blk; i++) {
		u64 *bc = henv_counter_of(&cache.henv, cache.blk[i].orig);
		unsigned x;

		if (bc) /* none: an uncounted block, compare_counts says so */
			*bc = 0;
		for (x = 0; x < cache.blk[i].meta.n_exits; x++) {
			u64 *c = henv_edge_counter_of(&cache.henv,
						      cache.blk[i].orig, x);
			if (c)
				*c = 0;
		}
	}
}

/* edge counts of every translated block's direct exits vs the oracle's
 * transitions between block starts; "" if equal */
static void compare_edges(struct omap *m, char *why, size_t n)
{
	unsigned i, x, y;

	for (i = 0; i < cache.n_blk && !why[0]; i++) {
		const struct hc_block *b = &cache.blk[i];

		for (x = 0; x < b->meta.n_exits; x++) {
			u64 t = b->meta.exit[x].target, sum = 0, want;

			if (b->meta.exit[x].kind != KJIT_EXIT_DIRECT)
				continue;
			for (y = 0; y < b->meta.n_exits;
			     y++) { /* jcc T == fall */
				u64 *c = henv_edge_counter_of(&cache.henv,
							      b->orig, y);

				if (b->meta.exit[y].kind == KJIT_EXIT_DIRECT &&
				    b->meta.exit[y].target == t && c)
					sum += *c;
			}
			want = oracle_edge_count(m, b->orig, t);
			if (sum != want) {
				snprintf(why, n,
					 "edge %#llx->%#llx: count %llu, "
					 "oracle %llu",
					 (unsigned long long)b->orig,
					 (unsigned long long)t,
					 (unsigned long long)sum,
					 (unsigned long long)want);
				break;
			}
		}
	}
}

/* compare translated counts with the oracle; "" if equal */
static void compare_counts(struct omap *m, char *why, size_t n)
{
	unsigned i;

	why[0] = 0;
	for (i = 0; i < m->n; i++) {
		struct hc_block *b = hc_find(&cache, m->addr[i]);
		u64 *c = b ? henv_counter_of(&cache.henv, m->addr[i]) : NULL;

		if (!b || !c) {
			snprintf(why, n, "oracle block %#llx %s",
				 (unsigned long long)m->addr[i],
				 b ? "translated without a counter"
				   : "never translated");
			return;
		}
		if (*c != m->count[i]) {
			snprintf(why, n, "block %#llx: count %llu, oracle %llu",
				 (unsigned long long)m->addr[i],
				 (unsigned long long)*c,
				 (unsigned long long)m->count[i]);
			return;
		}
		if (m->end[i] && m->end[i] != b->term_addr) {
			snprintf(why, n,
				 "block %#llx ends at %#llx, oracle says %#llx",
				 (unsigned long long)m->addr[i],
				 (unsigned long long)b->term_addr,
				 (unsigned long long)m->end[i]);
			return;
		}
	}
	for (i = 0; i < cache.n_blk; i++) {
		u64 *pc = henv_counter_of(&cache.henv, cache.blk[i].orig);
		u64 c = pc ? *pc : 0;

		if (c && !omap_has(m, cache.blk[i].orig)) {
			snprintf(
			    why, n,
			    "block %#llx counted %llu, oracle never entered it",
			    (unsigned long long)cache.blk[i].orig,
			    (unsigned long long)c);
			return;
		}
	}
}

#define MODE_EDGES	 1u /* edge counters too, compared with the oracle */
#define MODE_NATIVE_CALL 2u /* kjit_config.native_calls */
/* some callees never translated: results only */
#define MODE_NATIVE_CALLEES 4u
/* with MODE_NATIVE_CALL: kjit_config.follow_indirect_calls (the module's
 * deep configuration); without it indirect callees run natively, uncounted,
 * so only results are compared */
#define MODE_FOLLOW_IND 8u
#define MODE_LOCK_CTR	16u /* `lock incq` counters, as the module's env */
/* kjit_config.ibt (a kernel enforcing IBT): every new block also gets the
 * static IBT proof (ibt_check.h); counts and results as without it */
#define MODE_IBT 32u
/* per-CPU counters as the module has them (henv_use_gs): %gs-relative,
 * 64-bit offsets (movabs; incq %gs:(%reg)) - or, with MODE_GS_SMALL,
 * offsets that fit incq %gs:disp32 */
#define MODE_GS	      64u
#define MODE_GS_SMALL 128u
/* with MODE_GS_SMALL: indirect jmps' inline predictions
 * (predict_indirect_jumps), learned by the host dispatcher */
#define MODE_JPRED    1024u
#define MODE_SAVE_REG 256u /* kjit_config.ctr_reg = KJIT_REG_SAVE */
#define MODE_NO_MOVE  512u /* kjit_config.ctr_move off */
static unsigned mode_flags;

static struct omap om;
/* the oracle's runs, one set for modes that run every callee translated,
 * one for those whose copied indirect calls run their callees natively */
static struct omap oracle_cache[MAX_CASES][N_ORACLE];
static struct omap oracle_cache_ni[MAX_CASES][N_ORACLE];

/* native_calls without follow_indirect_calls: indirect calls are copied */
static bool native_indirect(void)
{
	return (mode_flags & MODE_NATIVE_CALL) &&
	       !(mode_flags & MODE_FOLLOW_IND);
}

static void oracle_input(unsigned c, unsigned i, long *a, long *b)
{
	static const long as[N_ORACLE] = {0, 5, -3, 37, 1000003, -77};
	static const long bs[N_ORACLE] = {3, -1, 17, 64, 12, 5};

	*a = as[i] + (long)c;
	*b = bs[i] * (long)(c + 1);
}

/* Does every executed corpus block run translated in this mode? */
static bool oracle_comparable(void)
{
	return !(mode_flags & MODE_NATIVE_CALLEES);
}
/* Watchdog: translated code that loops (a wrong link, say) fails its case
 * instead of hanging the suite. The line is formatted before the alarm is
 * armed; the handler only write()s it. */
#define CASE_SECONDS 10
static char hung_line[160];

static void on_alarm(int sig)
{
	ssize_t n = write(1, hung_line, strlen(hung_line));

	(void)n;
	_exit(1);
}

static void watchdog_arm(const char *name)
{
	snprintf(hung_line, sizeof(hung_line),
		 "KJIT-RESULT FAIL %s still running after %d s (hung)\n", name,
		 CASE_SECONDS);
	fflush(stdout);
	signal(SIGALRM, on_alarm);
	alarm(CASE_SECONDS);
}

/* corpus.c's cases, then corpus_flags.c's (main() joins them) */
static struct corpus_case cases[MAX_CASES];
static unsigned n_cases;

static void run_case(const char *mode, const struct corpus_case *cc,
		     long *steps_total)
{
	char name[96], why[256] = "";
	unsigned i;
	long a, b;

	snprintf(name, sizeof(name), "jit.diff.%s.%s", mode, cc->name);
	watchdog_arm(name);
	for (i = 0; i < N_INPUTS && !why[0]; i++) {
		long rn, rt;
		unsigned long sn, st;

		input(i, &a, &b);
		corpus_reset();
		rn = cc->fn(a, b);
		sn = corpus_state();
		corpus_reset();
		rt = run_translated(cc->fn, a, b);
		st = corpus_state();
		if (rn != rt || sn != st)
			snprintf(why, sizeof(why),
				 "f(%ld,%ld): native %ld translated %ld%s", a,
				 b, rn, rt,
				 sn != st ? " (global state differs)" : "");
	}
	/* counts are compared with the oracle wherever every block the oracle
	 * sees runs translated: not when some callees stay native */
	for (i = 0; i < N_ORACLE && !why[0] && oracle_comparable(); i++) {
		struct omap *m = native_indirect()
				     ? &oracle_cache_ni[cc - cases][i]
				     : &oracle_cache[cc - cases][i];

		oracle_input((unsigned)(cc - cases), i, &a, &b);
		if (!m->valid) {
			long s;

			oracle_native_indirect_calls(native_indirect());
			s = oracle_run(cc->fn, a, b, m);

			if (s < 0) {
				snprintf(why, sizeof(why), "oracle run failed");
				break;
			}
			m->valid = true;
			*steps_total += s;
		}
		zero_counters();
		corpus_reset();
		run_translated(cc->fn, a, b);
		compare_counts(m, why, sizeof(why));
		if (!why[0] && (cache.tr.cfg.instr & KJIT_INSTR_EDGE_COUNT))
			compare_edges(m, why, sizeof(why));
	}
	if (!why[0] && cache.bad_links)
		snprintf(why, sizeof(why), "%u bad links; first: %.200s",
			 cache.bad_links, cache.bad_link_msg);
	if (!why[0] && cache.vfy_failed)
		snprintf(why, sizeof(why), "verifier: %.230s", cache.vfy_msg);
	if (!why[0] && cache.ibt_failed)
		snprintf(why, sizeof(why), "ibt: %.230s", cache.ibt_msg);
	if (!why[0] && cache.refusals)
		snprintf(why, sizeof(why), "%u refusals (last %s at %#llx)",
			 cache.refusals, kjit_reason_name(cache.last_refusal),
			 (unsigned long long)cache.last_refusal_addr);
	alarm(0);
	if (why[0])
		kt_fail(name, "%s", why);
	else
		kt_pass(name, "%u blocks", cache.n_blk);
}

/* With MODE_IBT: every block got the IBT proof, and what it listed is
 * what the mode makes - copied indirect calls only where they are copied
 * (native calls not followed), none elsewhere. */
static void check_ibt(const char *mode)
{
	bool copies =
	    (mode_flags & MODE_NATIVE_CALL) && !(mode_flags & MODE_FOLLOW_IND);
	const struct ibtc *c = &cache.ibt;
	char name[96];

	snprintf(name, sizeof(name), "jit.diff.%s.ibt_proof", mode);
	kt_check(name,
		 !cache.ibt_failed && c->blocks == cache.n_blk &&
		     c->indirect == c->copied && (c->copied != 0) == copies,
		 "%u failed (first: %.200s); %llu of %u blocks checked, "
		 "%llu indirect, %llu copies",
		 cache.ibt_failed, cache.ibt_msg, (unsigned long long)c->blocks,
		 cache.n_blk, (unsigned long long)c->indirect,
		 (unsigned long long)c->copied);
	printf("mode %s: ibt proof: %llu blocks begin with endbr64, %llu code "
	       "bytes reachable, %llu bytes padding and literals, %llu "
	       "indirect calls, all copies of the original's\n",
	       mode, (unsigned long long)c->blocks,
	       (unsigned long long)c->code_bytes,
	       (unsigned long long)c->tail_bytes,
	       (unsigned long long)c->indirect);
}

/* Counter sequences used in this mode, as `kjit stat` prints them. */
static void print_forms(const char *mode)
{
	unsigned f, q;

	printf("mode %s: counters", mode);
	for (f = 1; f < KJIT_CTR_FORMS; f++)
		for (q = 1; q < KJIT_SEQ_COUNT; q++)
			if (cache.tr.stats.ctr[f][q])
				printf(" %s/%s=%llu", kjit_ctr_form_name(f),
				       kjit_seq_name(q),
				       (unsigned long long)
					   cache.tr.stats.ctr[f][q]);
	printf("\n");
}

static void run_mode(const char *mode, enum kjit_mem_mode mm,
		     enum kjit_flagsave seq, bool force_live, bool link,
		     unsigned flags)
{
	struct kjit_config cfg;
	unsigned i;
	long steps = 0;

	kjit_config_default(&cfg);
	cfg.live_seq = seq;
	cfg.force_live = force_live;
	if (flags & MODE_EDGES)
		cfg.instr |= KJIT_INSTR_EDGE_COUNT;
	cfg.native_calls = (flags & MODE_NATIVE_CALL) != 0;
	cfg.follow_indirect_calls = (flags & MODE_FOLLOW_IND) != 0;
	cfg.predict_indirect_calls = cfg.follow_indirect_calls;
	cfg.ibt = (flags & MODE_IBT) != 0;
	cfg.ctr_reg = flags & MODE_SAVE_REG ? KJIT_REG_SAVE : KJIT_REG_DEAD;
	cfg.ctr_move = !(flags & MODE_NO_MOVE);
	mode_flags = flags;
	if (hc_init(&cache, lo, hi, mm, &cfg, link)) {
		kt_fail("jit.diff.setup", "cannot map the code cache");
		return;
	}
	if ((flags & (MODE_GS | MODE_GS_SMALL)) &&
	    henv_use_gs(&cache.henv, !(flags & MODE_GS_SMALL))) {
		kt_fail("jit.diff.setup", "arch_prctl(ARCH_SET_GS) failed");
		return;
	}
	if ((flags & MODE_JPRED) && hc_use_jsite(&cache)) {
		kt_fail("jit.diff.setup", "no disp32 reaches the jump sites");
		return;
	}
	cache.vfy.native_calls = cfg.native_calls;
	cache.vfy.follow_indirect_calls = cfg.follow_indirect_calls;
	cache.vfy.predict_indirect_calls = cfg.predict_indirect_calls;
	cache.vfy.ibt = cfg.ibt;
	cache.henv.ctr_lock = (flags & MODE_LOCK_CTR) != 0;
	if (flags & MODE_NATIVE_CALLEES) {
		static u64 nat[6];

		nat[0] = (u64)(uintptr_t)op_add,
		nat[1] = (u64)(uintptr_t)op_sub;
		nat[2] = (u64)(uintptr_t)op_mul,
		nat[3] = (u64)(uintptr_t)op_xor;
		nat[4] = (u64)(uintptr_t)t_even, nat[5] = (u64)(uintptr_t)t_odd;
		cache.native = nat, cache.n_native = 6;
	}
	henv_add_sym(&cache.henv, (u64)(uintptr_t)corpus_fentry,
		     KJIT_SYM_FENTRY, -1);
	henv_add_sym(&cache.henv, (u64)(uintptr_t)corpus_return_thunk,
		     KJIT_SYM_RETURN_THUNK, -1);
	henv_add_sym(&cache.henv, (u64)(uintptr_t)corpus_thunk_rax,
		     KJIT_SYM_INDIRECT_THUNK, 0);
	henv_add_sym(&cache.henv, (u64)(uintptr_t)corpus_thunk_r11,
		     KJIT_SYM_INDIRECT_THUNK, 11);
	for (i = 0; i < n_cases; i++)
		run_case(mode, &cases[i], &steps);
	if (link) { /* the results above were obtained through patched exits */
		char name[96];

		snprintf(name, sizeof(name), "jit.diff.%s.linked", mode);
		kt_check(name, cache.links > cache.n_blk / 2,
			 "only %u exits linked", cache.links);
	}
	if (cfg.predict_indirect_calls) { /* the results above went through
					   * set predictions too */
		char name[96];

		snprintf(name, sizeof(name), "jit.diff.%s.predicted", mode);
		kt_check(name, cache.predicted > 0,
			 "no indirect call site was given a prediction");
	}
	if (flags & MODE_JPRED) { /* ... and set jmp predictions */
		char name[96];

		snprintf(name, sizeof(name), "jit.diff.%s.jmp_predicted", mode);
		kt_check(name, cache.jpredicted > 0,
			 "no indirect jmp site was given a prediction");
	}
	if (cfg.ibt)
		check_ibt(mode);
	print_forms(mode);
	henv_set_gs(0);
	printf("mode %s: %u blocks, %u links, %llu predictions, %ld oracle "
	       "steps, seq inc/lahf/pushf/moved %llu/%llu/%llu/%llu\n",
	       mode, cache.n_blk, cache.links,
	       (unsigned long long)cache.predicted, steps,
	       (unsigned long long)cache.tr.stats.seq[KJIT_SEQ_INC],
	       (unsigned long long)cache.tr.stats.seq[KJIT_SEQ_LAHF],
	       (unsigned long long)cache.tr.stats.seq[KJIT_SEQ_PUSHF],
	       (unsigned long long)cache.tr.stats.seq[KJIT_SEQ_MOVED]);
}

/* The oracle must be able to fail: a translation whose counter sequence is
 * skipped for one block must be caught by the count comparison. */
static void oracle_selftest(void)
{
	char why[256];
	struct hc_block *b;
	u64 *c;
	long a = 5, bb = 3;

	if (oracle_run(corpus_cases[0].fn, a, bb, &om) < 0) {
		kt_fail("jit.diff.oracle_selftest", "oracle run failed");
		return;
	}
	zero_counters();
	run_translated(corpus_cases[0].fn, a, bb);
	b = hc_find(&cache, om.addr[om.n - 1]);
	c = b ? henv_counter_of(&cache.henv, b->orig) : NULL;
	if (c)
		(*c)++; /* simulate a miscount */
	compare_counts(&om, why, sizeof(why));
	kt_check("jit.diff.oracle_selftest", c && why[0],
		 "a miscount went unnoticed");
}

/* Same for edges: one extra count on one direct exit must be noticed. */
static void edge_selftest(void)
{
	char why[256] = "";
	struct omap *m = &oracle_cache[0][1];
	long a, b;
	unsigned i;
	u64 *c = NULL;

	oracle_input(0, 1, &a, &b);
	zero_counters();
	corpus_reset();
	run_translated(corpus_cases[0].fn, a, b);
	for (i = 0; i < cache.n_blk && !c; i++)
		if (cache.blk[i].meta.n_exits &&
		    cache.blk[i].meta.exit[0].kind == KJIT_EXIT_DIRECT)
			c = henv_edge_counter_of(&cache.henv, cache.blk[i].orig,
						 0);
	if (c)
		(*c)++;
	compare_edges(m, why, sizeof(why));
	kt_check("jit.diff.edge_selftest", m->valid && c && why[0],
		 "an edge miscount went unnoticed");
}

int main(void)
{
	unsigned i;

	for (i = 0; i < corpus_n_cases && n_cases < MAX_CASES; i++)
		cases[n_cases++] = corpus_cases[i];
	for (i = 0; i < corpus_n_flag_cases && n_cases < MAX_CASES; i++)
		cases[n_cases++] = corpus_flag_cases[i];
	kt_check("jit.diff.all_cases_run",
		 n_cases == corpus_n_cases + corpus_n_flag_cases,
		 "%u of %u cases fit MAX_CASES", n_cases,
		 corpus_n_cases + corpus_n_flag_cases);
	lo = (u64)(uintptr_t)__start_kjit_corpus;
	hi = (u64)(uintptr_t)__stop_kjit_corpus;
	oracle_init(lo, hi);
	run_mode("link", KJIT_MEM_ABS32, KJIT_SEQ_LAHF, false, true, 0);
	oracle_selftest();
	run_mode("nolink_riprel_lahf", KJIT_MEM_RIPREL, KJIT_SEQ_LAHF, true,
		 false, 0);
	run_mode("pushf", KJIT_MEM_ABS32, KJIT_SEQ_PUSHF, true, true, 0);
	run_mode("edges", KJIT_MEM_ABS32, KJIT_SEQ_LAHF, false, true,
		 MODE_EDGES);
	edge_selftest();
	run_mode("edges_nolink", KJIT_MEM_RIPREL, KJIT_SEQ_PUSHF, false, false,
		 MODE_EDGES);
	run_mode("native_call", KJIT_MEM_RIPREL, KJIT_SEQ_LAHF, false, true,
		 MODE_NATIVE_CALL);
	/* the module's configuration (kmod/session.c cpu_alloc(), deep
	 * session): native calls, followed indirect calls, block counting,
	 * per-CPU counters at 64-bit %gs offsets in a register the block
	 * proves dead or saves, moved to where the flags are dead when they
	 * can be (kmod/env.c), linked; counts compared with the oracle */
	run_mode("module_deep", KJIT_MEM_GS, KJIT_SEQ_LAHF, false, true,
		 MODE_NATIVE_CALL | MODE_FOLLOW_IND | MODE_GS);
	/* ... and with the old RIP-relative `lock incq` counters, which the
	 * module falls back to (kjit.lock_counters=1, no per-CPU memory) */
	run_mode("module_deep_lock", KJIT_MEM_RIPREL, KJIT_SEQ_LAHF, false,
		 true, MODE_NATIVE_CALL | MODE_FOLLOW_IND | MODE_LOCK_CTR);
	/* every per-CPU sequence: a saved register always (with LAHF on every
	 * block, the register is not %rax), PUSHF, counters left at the
	 * entry, incq %gs:disp32, edge counters */
	run_mode("percpu_saved_lahf", KJIT_MEM_GS, KJIT_SEQ_LAHF, true, true,
		 MODE_GS | MODE_SAVE_REG);
	run_mode("percpu_pushf", KJIT_MEM_GS, KJIT_SEQ_PUSHF, false, true,
		 MODE_GS);
	run_mode("percpu_entry", KJIT_MEM_GS, KJIT_SEQ_LAHF, false, false,
		 MODE_GS | MODE_NO_MOVE);
	run_mode("percpu_disp32", KJIT_MEM_GS, KJIT_SEQ_LAHF, false, true,
		 MODE_GS_SMALL);
	run_mode("percpu_edges", KJIT_MEM_GS, KJIT_SEQ_LAHF, false, true,
		 MODE_GS | MODE_EDGES);
	/* design (a) with callees that stay native: they return to the
	 * original code, which finishes the caller natively */
	run_mode("native_callees", KJIT_MEM_ABS32, KJIT_SEQ_LAHF, false, true,
		 MODE_NATIVE_CALLEES);
	/* a kernel enforcing IBT (kjit_config.ibt): every block begins with
	 * endbr64; counts compared with the oracle in design (a) and in the
	 * module's deep configuration, results in native-call mode, where
	 * indirect calls are copied */
	run_mode("link_ibt", KJIT_MEM_ABS32, KJIT_SEQ_LAHF, false, true,
		 MODE_IBT);
	run_mode("native_call_ibt", KJIT_MEM_RIPREL, KJIT_SEQ_LAHF, false, true,
		 MODE_NATIVE_CALL | MODE_IBT);
	run_mode("module_deep_ibt", KJIT_MEM_GS, KJIT_SEQ_LAHF, false, true,
		 MODE_NATIVE_CALL | MODE_FOLLOW_IND | MODE_GS | MODE_IBT);
	/* the module's deep configuration with its near counters (incq
	 * %gs:disp32) and indirect jmps' inline predictions, which learn
	 * their targets from what each jmp's miss path leaves near %gs */
	run_mode("module_deep_near", KJIT_MEM_GS, KJIT_SEQ_LAHF, false, true,
		 MODE_NATIVE_CALL | MODE_FOLLOW_IND | MODE_GS_SMALL |
		     MODE_JPRED);
	run_mode("module_deep_near_ibt", KJIT_MEM_GS, KJIT_SEQ_LAHF, false,
		 true,
		 MODE_NATIVE_CALL | MODE_FOLLOW_IND | MODE_GS_SMALL |
		     MODE_JPRED | MODE_IBT);
	run_mode("module_deep_lock_ibt", KJIT_MEM_RIPREL, KJIT_SEQ_LAHF, false,
		 true,
		 MODE_NATIVE_CALL | MODE_FOLLOW_IND | MODE_LOCK_CTR | MODE_IBT);
	return kt_exit();
}
