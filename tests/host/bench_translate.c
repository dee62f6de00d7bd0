/* bench_translate.c - translator speed and code expansion on real kernel
 * code, and the run-time cost of the three counter sequences.
 *
 * 1. Collects every statically reachable block of every .text function of
 *    the stock vmlinux (as test_vmlinux does), then times kjit_translate()
 *    alone over all of them (one core, several rounds): blocks/s and ns per
 *    block; expansion = emitted bytes / original bytes, for all bytes and
 *    for the hot path (entry..exit branches, without stubs and literals).
 * 2. Executes each entry-counter sequence (inc / lahf / pushf) in a tight
 *    loop from an executable mapping and reports ns per execution, the
 *    measurement behind the default choice of cfg.live_seq.
 *
 * 3. Runs a few corpus functions natively and translated (linked, block
 *    counting on) and reports ns per call: the run-time cost of counting
 *    and of looking every return up in the dispatcher (design (a)).
 *
 * Usage: bench_translate [vmlinux]   (default $BUILD/host/vmlinux)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "jit/translate.h"
#include "jit/instrument.h"
#include "jit/emit.h"
#include "tests/host/host_env.h"
#include "tests/host/vmlinux.h"
#include "tests/host/corpus.h"
#include "tests/host/host_cache.h"

#define RUN_BASE   0xffffffffc0000000ull
#define MAX_BLOCKS (2u << 20)

static struct vml vml;
static struct henv henv;
static struct kjit_translator tr;
static u8 outbuf[KJIT_MAX_BLOCK_BYTES];
static u64 *blocks;
static size_t n_blocks;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* breadth-first over one function's blocks, appending to blocks[] */
static void collect_fn(u64 lo, u64 hi)
{
	size_t first = n_blocks, i;

	if (vml_seen(lo))
		return;
	blocks[n_blocks++] = lo;
	for (i = first; i < n_blocks && n_blocks + 2 < MAX_BLOCKS; i++) {
		struct kjit_block b;
		const struct kjit_insn *t;
		u64 s[2];
		int ns = 0, k;

		if (kjit_translate(&tr, blocks[i], outbuf, sizeof(outbuf),
				   RUN_BASE, &b))
			continue;
		t = &kjit_last_desc(&tr)->insn[b.n_insns - 1];
		if (t->kind == KJIT_I_JCC || t->kind == KJIT_I_LOOP ||
		    t->kind == KJIT_I_JMP || t->kind == KJIT_I_LIMIT)
			s[ns++] = t->target;
		if (t->kind == KJIT_I_JCC || t->kind == KJIT_I_LOOP ||
		    t->kind == KJIT_I_CALL || t->kind == KJIT_I_CALL_IND)
			s[ns++] = t->addr + t->len;
		for (k = 0; k < ns; k++)
			if (s[k] >= lo && s[k] < hi && !vml_seen(s[k]))
				blocks[n_blocks++] = s[k];
	}
}

static int setup(const char *path)
{
	static const char *const regs[16] = {
	    "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	    "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
	char err[256], name[64];
	int r;

	if (vml_open(&vml, path, err, sizeof(err))) {
		fprintf(stderr, "bench: %s\n", err);
		return -1;
	}
	henv_init(&henv, KJIT_MEM_GS, NULL, NULL, RUN_BASE + 0xff0000);
	henv_add_region(&henv, vml.text_addr, vml.text, vml.text_size);
	henv.fixups = vml.fixups, henv.n_fixups = vml.n_fixups;
	henv_add_sym(&henv, vml_sym(&vml, "__fentry__"), KJIT_SYM_FENTRY, -1);
	henv_add_sym(&henv, vml_sym(&vml, "__x86_return_thunk"),
		     KJIT_SYM_RETURN_THUNK, -1);
	for (r = 0; r < 16; r++) {
		snprintf(name, sizeof(name), "__x86_indirect_thunk_%s",
			 regs[r]);
		if (vml_sym(&vml, name))
			henv_add_sym(&henv, vml_sym(&vml, name),
				     KJIT_SYM_INDIRECT_THUNK, r);
	}
	{
		struct kjit_config cfg;

		kjit_config_default(&cfg);
		if (getenv("KJIT_BENCH_DEPTH"))
			cfg.live_depth = (u8)atoi(getenv("KJIT_BENCH_DEPTH"));
		if (getenv("KJIT_BENCH_NOINSTR"))
			cfg.instr = 0;
		kjit_translator_init(&tr, &henv.env, &cfg);
	}
	blocks = malloc(MAX_BLOCKS * sizeof(u64));
	return 0;
}

static void bench_translate(void)
{
	u64 noinstr_lo = vml_sym(&vml, "__noinstr_text_start");
	u64 noinstr_hi = vml_sym(&vml, "__noinstr_text_end");
	u64 end = vml.text_addr + vml.text_size, ok = 0, in = 0, out = 0,
	    hot = 0;
	size_t i, j;
	int round;
	double t0, best = 1e9;

	for (i = 0; i < vml.n_sym; i++) {
		u64 a = vml.sym[i].addr, e = end;

		if (!strchr("tT", vml.sym[i].type) || a < vml.text_addr ||
		    a >= end || (a >= noinstr_lo && a < noinstr_hi))
			continue;
		for (j = i + 1; j < vml.n_sym && vml.sym[j].addr <= a; j++)
			;
		if (j < vml.n_sym && vml.sym[j].addr < end)
			e = vml.sym[j].addr;
		collect_fn(a, e);
	}
	for (round = 0; round < 5; round++) {
		struct kjit_block b;

		ok = in = out = hot = 0;
		t0 = now();
		for (i = 0; i < n_blocks; i++) {
			if (kjit_translate(&tr, blocks[i], outbuf,
					   sizeof(outbuf),
					   RUN_BASE + (i & 0xffff) * 64, &b))
				continue;
			ok++, in += b.orig_len, out += b.len, hot += b.body_len;
		}
		t0 = now() - t0;
		if (t0 < best)
			best = t0;
	}
	printf("bench.translate: %zu blocks (%llu translated) in %.3f s: %.0f "
	       "blocks/s, %.0f ns/block\n",
	       n_blocks, (unsigned long long)ok, best, n_blocks / best,
	       best * 1e9 / n_blocks);
	printf("bench.decode: %.2f instructions decoded per block, %.1f%% "
	       "from the decode memo\n",
	       (double)tr.stats.decodes / (5.0 * n_blocks),
	       tr.stats.decodes ? 100.0 * tr.stats.memo_hits / tr.stats.decodes
				: 0.0);
	printf("bench.expansion: %.2fx all bytes (incl. exit stubs + "
	       "literals), %.2fx hot path; "
	       "orig %.1f bytes/block\n",
	       (double)out / in, (double)hot / in, (double)in / ok);
}

/* ns per execution of each counter sequence, in a loop of @n iterations:
 *   top: <seq>; dec %ecx; jnz top; ret       (counter: a static u64) */
static u64 ctr[HENV_MAX_CTRS], key[HENV_MAX_CTRS];

static double time_seq(u8 *m, int seq, long n)
{
	struct kjit_config cfg;
	struct kjit_emit e;
	struct kjit_block blk;
	struct kjit_point_info pi = {KJIT_POINT_ENTRY, 1, 0,
				     KX86_FLAGS_ARITH, 0, 0};
	struct henv h;
	double t;

	kjit_config_default(&cfg);
	cfg.live_seq = seq == KJIT_SEQ_PUSHF ? KJIT_SEQ_PUSHF : KJIT_SEQ_LAHF;
	henv_init(&h, KJIT_MEM_ABS32, ctr, key, 0);
	kjit_translator_init(&tr, &h.env, &cfg);
	if (seq == KJIT_SEQ_INC)
		pi.live = 0;
	kjit_emit_init(&e, m, 4096, (u64)(uintptr_t)m);
	kjit_emit_u8(&e, 0x89), kjit_emit_u8(&e, 0xf9); /* mov %edi,%ecx */
	if (seq != KJIT_SEQ_NONE)
		kjit_instrument_point(&tr, &e, &pi, &blk);
	kjit_emit_u8(&e, 0xff), kjit_emit_u8(&e, 0xc9); /* dec %ecx */
	kjit_emit_u8(&e, 0x75),
	    kjit_emit_u8(&e, (u8)(2 - (int)e.pos - 2)); /* jnz top */
	kjit_emit_u8(&e, 0xc3);
	m[e.pos - 2] = (u8)(2 - (int)(e.pos - 1)); /* rel8 back to offset 2 */
	t = now();
	((void (*)(long))m)(n);
	return (now() - t) * 1e9 / n;
}

static void bench_sequences(void)
{
	u8 *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	long n = 100000000;
	double base = time_seq(m, KJIT_SEQ_NONE, n);
	double inc = time_seq(m, KJIT_SEQ_INC, n);
	double lahf = time_seq(m, KJIT_SEQ_LAHF, n);
	double pushf = time_seq(m, KJIT_SEQ_PUSHF, n);

	printf("bench.sequence: ns/exec over an empty loop: inc %.2f, lahf "
	       "%.2f, pushf %.2f "
	       "(loop itself %.2f)\n",
	       inc - base, lahf - base, pushf - base, base);
}

static struct hc cache;

/* map the code cache first: it needs a fixed low address */
static int bench_run_init(void)
{
	if (hc_init(&cache, (u64)(uintptr_t)__start_kjit_corpus,
		    (u64)(uintptr_t)__stop_kjit_corpus, KJIT_MEM_ABS32, NULL,
		    true)) {
		perror("bench.run: code cache");
		return -1;
	}
	return 0;
}

static void bench_run(void)
{
	static const char *const which[] = {"fib", "loop", "switch", "fnptr",
					    "twojcc"};
	long n = 200000, i;
	unsigned k, c;

	hc_cur = &cache;
	for (k = 0; k < KJIT_ARRAY_SIZE(which); k++) {
		corpus_fn f = NULL, t;
		double tn, tt;
		volatile long sink = 0;

		for (c = 0; c < corpus_n_cases; c++)
			if (!strcmp(corpus_cases[c].name, which[k]))
				f = corpus_cases[c].fn;
		if (!f)
			continue;
		corpus_reset();
		t = (corpus_fn)(uintptr_t)hc_lookup(&cache, (u64)(uintptr_t)f);
		for (i = 0; i < 1000; i++) /* translate and link everything */
			sink += t(i, 7);
		tn = now();
		for (i = 0; i < n; i++)
			sink += f(i & 1023, 7);
		tn = now() - tn;
		cache.lookups = 0;
		tt = now();
		for (i = 0; i < n; i++)
			sink += t(i & 1023, 7);
		tt = now() - tt;
		printf("bench.run: %-7s native %7.1f ns/call, translated %7.1f "
		       "ns/call (%.2fx), "
		       "%.1f dispatches/call, %.1f ns extra per dispatch\n",
		       which[k], tn * 1e9 / n, tt * 1e9 / n, tt / tn,
		       (double)cache.lookups / n,
		       cache.lookups ? (tt - tn) * 1e9 / cache.lookups : 0.0);
	}
}

int main(int argc, char **argv)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char path[512];

	int run_ok = bench_run_init() == 0;

	snprintf(path, sizeof(path), "%s/host/vmlinux", build);
	if (setup(argc > 1 ? argv[1] : path))
		return 1;
	bench_translate();
	bench_sequences();
	if (run_ok)
		bench_run();
	return 0;
}
