/* bench_silicon.c - what counting costs on this host's CPU, per executed
 * block, in the module's exact configuration: code emitted by jit/ in
 * native-call mode, the module's counter sequences and flags handling,
 * per-CPU counters at 64-bit %gs offsets with the GS base set by
 * arch_prctl(ARCH_SET_GS) - run natively on the CPU, no emulator.
 *
 * Blocks shaped like kernel code: every block of the stock vmlinux is
 * translated in the module's configuration and its shape recorded (length
 * in instructions, whether the flags are live at its counter, whether a
 * register is dead there or must be saved, whether the counter moved into
 * the block, its terminator). A program is N blocks drawn from those
 * shapes (seeded), each rebuilt from safe register-only instructions with
 * the same shape: the translator must give each the counter sequence its
 * kernel original got (fidelity is printed). Calls go to one-block leaf
 * functions (ret shapes), jcc and jmp to the next block. Three programs:
 * the vmlinux mix, flags-dead blocks only, flags-live blocks only.
 *
 * Each program runs natively and from five code caches (hc_init_slot):
 * translated without counting, with the old `lock incq` counters
 * (RIP-relative, shared by CPUs, LAHF where flags are live), with per-CPU
 * counters at 64-bit offsets as alloc_percpu() gives (dead register or
 * saved one, moved where cheaper), the same without the liveness (always
 * a saved register, always at the entry), and per-CPU counters at 32-bit
 * offsets as the near area gives (kmod/pcpu_near.h: `incq %gs:disp32`). One
 * round times every configuration once, in turn; the added cost per executed
 * block of a round is (configuration - native) / blocks, and (configuration -
 * no counting) / blocks for the counter alone; the spread is over rounds.
 * Blocks per run are read from the counters themselves, and the old and the new
 * counters must agree exactly.
 *
 * Timing: rdtscp (the TSC, a fixed-rate clock: "cycles" below are TSC
 * ticks), converted to ns with the TSC rate measured against
 * CLOCK_MONOTONIC over the whole run.
 *
 * Usage: bench_silicon [--smoke] [--markdown FILE] [vmlinux]
 *   --smoke     a few short rounds: checks that it runs and counts exactly
 *               (KJIT-RESULT lines), not how fast; without a vmlinux it
 *               uses a built-in shape mix
 *   --markdown  also write the result table's rows, in markdown, to FILE
 *               (bench/run.sh)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <x86intrin.h>
#include "jit/translate.h"
#include "jit/instrument.h"
#include "tests/host/host_cache.h"
#include "tests/host/bench_stats.h"
#include "tests/host/kjit_test.h"
#include "tests/host/vmlinux.h"

#define RUN_BASE 0xffffffffc0000000ull
/* synthetic programs: below 2 GiB, above the randomised heap (see
 * host_cache.c), below the code caches */
#define GEN_ADDR    0x5f000000ul
#define GEN_SIZE    (1ul << 20)
#define PROG_BLOCKS 256
#define MAX_SHAPES  (1u << 20)
#define MAX_INSNS   60
#define MAX_ROUNDS  1001
#define N_CFG	    6

/* ---- shapes ------------------------------------------------------------ */

enum { T_JCC, T_JMP, T_CALL, T_RET };

struct shape {
	u8 n;	     /* instructions, terminator included */
	u8 live;     /* flags live at the counter (LAHF) */
	u8 moved;    /* counter moved into the block, flags dead there */
	u8 dead_reg; /* a register dead at the counter (no save) */
	u8 term;
};

static struct shape *shapes;
static size_t n_shapes;
static struct vml vml;
static struct henv henv;
static struct kjit_translator tr;
static u8 outbuf[KJIT_MAX_BLOCK_BYTES];

static u8 term_of(u8 kind)
{
	switch (kind) {
	case KJIT_I_JCC:
	case KJIT_I_LOOP:
		return T_JCC;
	case KJIT_I_CALL:
	case KJIT_I_CALL_IND:
		return T_CALL;
	case KJIT_I_RET:
		return T_RET;
	default:
		return T_JMP;
	}
}

static void record(const struct kjit_block *b)
{
	struct shape *s;

	if (n_shapes >= MAX_SHAPES || b->seq == KJIT_SEQ_NONE)
		return;
	s = &shapes[n_shapes++];
	s->n = (u8)(b->n_insns > MAX_INSNS ? MAX_INSNS : b->n_insns);
	s->live = b->seq == KJIT_SEQ_LAHF || b->seq == KJIT_SEQ_PUSHF;
	s->moved = b->seq == KJIT_SEQ_MOVED;
	s->dead_reg = b->ctr == KJIT_CTR_GS_REG;
	s->term = term_of(b->term);
}

/* Every statically reachable block of one function, breadth first. */
static void collect_fn(u64 lo, u64 hi)
{
	static u64 work[1 << 16];
	size_t nw = 0, i;

	if (vml_seen(lo))
		return;
	work[nw++] = lo;
	for (i = 0; i < nw; i++) {
		struct kjit_block b;
		const struct kjit_insn *t;
		u64 s[2];
		int ns = 0, k;

		if (kjit_translate(&tr, work[i], outbuf, sizeof(outbuf),
				   RUN_BASE, &b))
			continue;
		record(&b);
		t = &kjit_last_desc(&tr)->insn[b.n_insns - 1];
		if (t->kind == KJIT_I_JCC || t->kind == KJIT_I_LOOP ||
		    t->kind == KJIT_I_JMP || t->kind == KJIT_I_LIMIT)
			s[ns++] = t->target;
		if (t->kind == KJIT_I_JCC || t->kind == KJIT_I_LOOP ||
		    t->kind == KJIT_I_CALL || t->kind == KJIT_I_CALL_IND)
			s[ns++] = t->addr + t->len;
		for (k = 0; k < ns; k++)
			if (s[k] >= lo && s[k] < hi && !vml_seen(s[k]) &&
			    nw < KJIT_ARRAY_SIZE(work))
				work[nw++] = s[k];
	}
}

/* Shapes of every block of @path, translated as the module does. */
static int shapes_from_vmlinux(const char *path)
{
	static const char *const regs[16] = {
	    "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	    "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
	u64 nlo, nhi, end;
	struct kjit_config cfg;
	char err[256], name[64];
	size_t i, j;
	int r;

	if (vml_open(&vml, path, err, sizeof(err)))
		return -1;
	henv_init(&henv, KJIT_MEM_GS, NULL, NULL, RUN_BASE + 0xff0000);
	henv.gs_fake = 0xffffe8c000010000ull; /* 64-bit per-CPU offsets */
	henv_add_region(&henv, vml.text_addr, vml.text, vml.text_size);
	henv.fixups = vml.fixups, henv.n_fixups = vml.n_fixups;
	henv.funcs = vml_func_starts(&vml, &henv.n_funcs);
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
	kjit_config_default(&cfg); /* kmod/session.c, a deep session */
	cfg.native_calls = true;
	cfg.follow_indirect_calls = true;
	kjit_translator_init(&tr, &henv.env, &cfg);
	nlo = vml_sym(&vml, "__noinstr_text_start");
	nhi = vml_sym(&vml, "__noinstr_text_end");
	end = vml.text_addr + vml.text_size;
	for (i = 0; i < vml.n_sym; i++) {
		u64 a = vml.sym[i].addr, e = end;

		if (!strchr("tT", vml.sym[i].type) || a < vml.text_addr ||
		    a >= end || (a >= nlo && a < nhi))
			continue;
		for (j = i + 1; j < vml.n_sym && vml.sym[j].addr <= a; j++)
			;
		if (j < vml.n_sym && vml.sym[j].addr < end)
			e = vml.sym[j].addr;
		collect_fn(a, e);
	}
	return n_shapes ? 0 : -1;
}

/* Without a vmlinux (smoke test only): a fixed mix of every kind. */
static void shapes_builtin(void)
{
	unsigned i;

	for (i = 0; i < 64; i++) {
		struct shape *s = &shapes[n_shapes++];

		s->n = (u8)(2 + i % 7);
		s->live = i % 8 == 3;
		s->moved = i % 16 == 5;
		s->dead_reg = i % 3 != 0;
		s->term = (u8)(i % 4);
	}
}

/* ---- synthetic programs ------------------------------------------------ */

static u64 rnd_state = 0x9e3779b97f4a7c15ull;
static u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

enum prog_kind { P_MIX, P_DEAD, P_LIVE, P_COUNT };
static const char *const prog_names[P_COUNT] = {"vmlinux mix", "flags dead",
						"flags live"};

static bool shape_in(const struct shape *s, enum prog_kind k)
{
	return k == P_MIX || (k == P_DEAD) == (!s->live && !s->moved);
}

/* A random shape of kind @k whose terminator is (@ret) / is not a ret. */
static const struct shape *draw(enum prog_kind k, bool ret)
{
	for (;;) {
		const struct shape *s = &shapes[rnd() % n_shapes];

		if (shape_in(s, k) && (s->term == T_RET) == ret)
			return s;
	}
}

struct gen {
	u8 *p, *base;
};

static void g_bytes(struct gen *g, const char *hex)
{
	unsigned v;

	while (*hex) {
		if (*hex == ' ') {
			hex++;
			continue;
		}
		sscanf(hex, "%2x", &v);
		*g->p++ = (u8)v;
		hex += 2;
	}
}

static void g_rel32(struct gen *g, u64 target)
{
	s32 rel = (s32)(target - ((u64)(uintptr_t)g->p + 4));

	memcpy(g->p, &rel, 4);
	g->p += 4;
}

/*
 * One block of shape @s (its terminator is emitted by the caller, except a
 * ret). Instructions, all on scratch registers r8-r10, rcx, rdx:
 *   cmove %r9,%r8      reads ZF: the flags are live at the entry
 *   mov $k,%r10d       r10 overwritten unread: a dead register
 *   add %r9,%r8        kills every flag
 *   filler             flags-neutral read-modify-writes where the flags
 *                      must stay live (lea, not), else add/xor/lea
 *   cmp $3,%r8         before a jcc, when the flags are not live
 * Returns the number of instructions emitted, terminator included.
 */
static unsigned gen_body(struct gen *g, const struct shape *s)
{
	static const char *const live_fill[] = {"4d8d4001", "49f7d1",
						"4d8d4901"};
	static const char *const dead_fill[] = {"4801ca", "4d31c1", "4d8d4001"};
	bool flags_live = s->live || s->moved;
	unsigned n = 0, want = s->n, i;
	bool cmp = s->term == T_JCC && !s->live;

	if (flags_live)
		g_bytes(g, "4d0f44c1"), n++; /* cmove %r9,%r8 */
	if (s->dead_reg)
		g_bytes(g, "41ba01000000"), n++; /* mov $1,%r10d */
	if (!s->live)
		g_bytes(g, "4d01c8"), n++; /* add %r9,%r8 */
	for (i = 0; n + 1 + cmp < want; i++, n++)
		g_bytes(g, s->live ? live_fill[i % 3] : dead_fill[i % 3]);
	if (cmp)
		g_bytes(g, "4983f803"), n++; /* cmp $3,%r8 */
	return n + 1;
}

struct prog {
	u64 lo, hi, entry;
	unsigned blocks_per_iter; /* executed per iteration */
	unsigned insns;		  /* instructions of the mainline blocks */
	const struct shape *sh[PROG_BLOCKS * 2];
	u64 addr[PROG_BLOCKS * 2]; /* where each block starts */
	unsigned n;
};

/*
 * The program: drv(iterations) runs PROG_BLOCKS blocks in a loop.
 *   drv: push %r15; mov %rdi,%r15
 *   L:   block 0 .. block N-1   (jcc/jmp to the next, call leaf_i)
 *        dec %r15; jnz L; pop %r15; ret
 *   leaf_i: a ret-shaped block
 */
static void gen_prog(struct prog *pg, u8 *mem, enum prog_kind k)
{
	struct gen g = {mem, mem};
	const struct shape *leaf[PROG_BLOCKS];
	u64 loop, calls[PROG_BLOCKS];
	unsigned i, nleaf = 0, ncall = 0;

	memset(mem, 0xcc, GEN_SIZE);
	pg->entry = (u64)(uintptr_t)g.p;
	g_bytes(&g, "4157 4989ff"); /* push %r15; mov %rdi,%r15 */
	loop = (u64)(uintptr_t)g.p;
	pg->n = pg->insns = 0;
	for (i = 0; i < PROG_BLOCKS; i++) {
		const struct shape *s = draw(k, false);

		pg->sh[pg->n] = s;
		pg->addr[pg->n++] = (u64)(uintptr_t)g.p;
		pg->insns += gen_body(&g, s);
		switch (s->term) {
		case T_JCC:
			g_bytes(&g, "7500"); /* jne .+2: both to the next */
			break;
		case T_JMP:
			g_bytes(&g, "eb00");
			break;
		default: /* call leaf (patched below) */
			g_bytes(&g, "e8");
			calls[ncall++] = (u64)(uintptr_t)g.p;
			g.p += 4;
			leaf[nleaf++] = draw(k, true);
		}
	}
	g_bytes(&g, "49ffcf 0f85"); /* dec %r15; jnz L */
	g_rel32(&g, loop);
	g_bytes(&g, "415f c3"); /* pop %r15; ret */
	for (i = 0; i < nleaf; i++) {
		u8 *at = (u8 *)(uintptr_t)calls[i];
		s32 rel = (s32)((u64)(uintptr_t)g.p - (calls[i] + 4));

		memcpy(at, &rel, 4);
		pg->sh[pg->n] = leaf[i];
		pg->addr[pg->n++] = (u64)(uintptr_t)g.p;
		gen_body(&g, leaf[i]);
		g_bytes(&g, "c3");
	}
	pg->lo = (u64)(uintptr_t)mem;
	pg->hi = (u64)(uintptr_t)g.p;
	/* mainline blocks, leaves, the loop's dec/jnz block (plus, once a
	 * run, pop/ret; the first iteration's block 0 is drv's entry block) */
	pg->blocks_per_iter = PROG_BLOCKS + nleaf + 1;
}

/* ---- configurations --------------------------------------------------- */

enum { C_NATIVE, C_NOCOUNT, C_LOCK, C_PCPU, C_PCPU_NOLIVE, C_PCPU_NEAR };
static const char *const cfg_names[N_CFG] = {"native",
					     "kjit, no counting",
					     "kjit, lock incq (old)",
					     "kjit, per-CPU alloc_percpu",
					     "per-CPU, no liveness",
					     "kjit, per-CPU near (disp32)"};

static struct hc caches[N_CFG]; /* [0] unused: native */
static u64 gs_base[N_CFG];

typedef void (*drv_fn)(long iters);

/* Translate @pg into cache slot @c-1 as configuration @c; warm up. */
static int setup_cfg(struct prog *pg, int c, drv_fn *fn, char *why, size_t n)
{
	struct hc *h = &caches[c];
	struct kjit_config cfg;
	enum kjit_mem_mode mode = c == C_LOCK ? KJIT_MEM_RIPREL : KJIT_MEM_GS;

	kjit_config_default(&cfg);
	cfg.native_calls = true;
	if (c == C_NOCOUNT)
		cfg.instr = 0;
	if (c == C_LOCK || c == C_PCPU_NOLIVE)
		cfg.ctr_move = false; /* the old translator had no moving */
	if (c == C_PCPU_NOLIVE)
		cfg.ctr_reg = KJIT_REG_SAVE;
	if (hc_init_slot(h, (unsigned)(c - 1), pg->lo, pg->hi, mode, &cfg,
			 true)) {
		snprintf(why, n, "cannot map code cache %d: %s", c,
			 strerror(errno));
		return -1;
	}
	h->henv.ctr_lock = c == C_LOCK;
	h->vfy.native_calls = true;
	/* alloc_percpu() memory: offsets beyond 32 bits; the near area
	 * (kmod/pcpu_near.h): offsets within a disp32 */
	if (mode == KJIT_MEM_GS && henv_use_gs(&h->henv, c != C_PCPU_NEAR)) {
		snprintf(why, n, "arch_prctl(ARCH_SET_GS) failed");
		return -1;
	}
	gs_base[c] = h->henv.gs_base;
	*fn = (drv_fn)(uintptr_t)hc_lookup(h, pg->entry);
	(*fn)(3); /* translate and link every block */
	if (h->refusals || h->vfy_failed) {
		snprintf(why, n, "%s: %u refusals, %u verifier failures %s",
			 cfg_names[c], h->refusals, h->vfy_failed, h->vfy_msg);
		return -1;
	}
	return 0;
}

/* Blocks one run of @iters executes, from cache @c's counters. */
static u64 counted(struct hc *h, drv_fn fn, long iters)
{
	u64 sum = 0;
	unsigned i;

	memset(h->henv.ctr, 0, HENV_MAX_CTRS * sizeof(u64));
	if (h->henv.ctr_mode == KJIT_MEM_GS)
		henv_set_gs(h->henv.gs_base);
	fn(iters);
	for (i = 0; i < HENV_MAX_CTRS; i++)
		sum += h->henv.ctr[i];
	return sum;
}

/* How each synthetic block was counted vs. its kernel original. */
static double fidelity(const struct prog *pg)
{
	const struct hc *h = &caches[C_PCPU];
	unsigned i, same = 0;

	for (i = 0; i < pg->n; i++) {
		const struct hc_block *b = NULL;
		const struct shape *s = pg->sh[i];
		unsigned k;

		for (k = 0; k < h->n_blk && !b; k++)
			if (h->blk[k].orig == pg->addr[i])
				b = &h->blk[k];
		if (b && (b->meta.seq == KJIT_SEQ_LAHF) == s->live &&
		    (b->meta.seq == KJIT_SEQ_MOVED) == s->moved &&
		    (b->meta.ctr == KJIT_CTR_GS_REG) == s->dead_reg)
			same++;
	}
	return pg->n ? 100.0 * same / pg->n : 0;
}

/* ---- timing ------------------------------------------------------------ */

static u64 time_run(drv_fn fn, long iters)
{
	unsigned aux;
	u64 t0 = __rdtscp(&aux);

	fn(iters);
	return __rdtscp(&aux) - t0;
}

struct result {
	double native;	       /* median TSC per block, native */
	double add[N_CFG][3];  /* vs native: p10 p50 p90, TSC */
	double only[N_CFG][3]; /* vs no counting */
	double fid;	       /* shape fidelity % */
	double insns;	       /* instructions per mainline block */
	u64 blocks;	       /* per run */
};

static double tsc_per_ns; /* TSC ticks per ns */

/* Rounds of every configuration in turn; per-block added TSC ticks. */
static void measure(drv_fn fn[N_CFG], long iters, unsigned rounds, u64 blocks,
		    struct result *res)
{
	static double t[N_CFG][MAX_ROUNDS], d[MAX_ROUNDS];
	unsigned r, c, k;
	u64 x;

	for (r = 0; r < rounds; r++)
		for (k = 0; k < N_CFG; k++) {
			c = (r + k) % N_CFG; /* rotate: no fixed order */
			if (c >= C_PCPU)
				henv_set_gs(gs_base[c]);
			x = time_run(fn[c], iters);
			t[c][r] = (double)x / blocks;
		}
	for (c = 0; c < N_CFG; c++) {
		for (r = 0; r < rounds; r++)
			d[r] = t[c][r] - t[C_NATIVE][r];
		res->add[c][0] = kb_pct(d, rounds, 0.1);
		res->add[c][1] = kb_pct(d, rounds, 0.5);
		res->add[c][2] = kb_pct(d, rounds, 0.9);
		for (r = 0; r < rounds; r++)
			d[r] = t[c][r] - t[C_NOCOUNT][r];
		res->only[c][0] = kb_pct(d, rounds, 0.1);
		res->only[c][1] = kb_pct(d, rounds, 0.5);
		res->only[c][2] = kb_pct(d, rounds, 0.9);
	}
	res->native = kb_pct(t[C_NATIVE], rounds, 0.5);
}

/* ---- main -------------------------------------------------------------- */

static void print_text(enum prog_kind k, const struct result *res)
{
	unsigned c;

	printf("bench.silicon: %s: %llu blocks per run, %.1f instructions "
	       "per block, fidelity %.1f%%, native %.2f ns per block\n",
	       prog_names[k], (unsigned long long)res->blocks, res->insns,
	       res->fid, res->native / tsc_per_ns);
	for (c = 1; c < N_CFG; c++)
		printf("bench.silicon: %-12s %-24s added vs native p10/p50/p90 "
		       "%6.2f %6.2f %6.2f ns (%5.1f %5.1f %5.1f TSC cycles); "
		       "counter alone %6.2f %6.2f %6.2f ns\n",
		       prog_names[k], cfg_names[c], res->add[c][0] / tsc_per_ns,
		       res->add[c][1] / tsc_per_ns, res->add[c][2] / tsc_per_ns,
		       res->add[c][0], res->add[c][1], res->add[c][2],
		       res->only[c][0] / tsc_per_ns,
		       res->only[c][1] / tsc_per_ns,
		       res->only[c][2] / tsc_per_ns);
}

static void print_md(FILE *f, enum prog_kind k, const struct result *res)
{
	char only[64];
	unsigned c;

	for (c = 1; c < N_CFG; c++) {
		snprintf(only, sizeof(only), "%.2f [%.2f, %.2f]",
			 res->only[c][1] / tsc_per_ns,
			 res->only[c][0] / tsc_per_ns,
			 res->only[c][2] / tsc_per_ns);
		fprintf(
		    f, "| %s | %s | %.2f | %.2f [%.2f, %.2f] | %.1f | %s |\n",
		    prog_names[k], cfg_names[c], res->native / tsc_per_ns,
		    res->add[c][1] / tsc_per_ns, res->add[c][0] / tsc_per_ns,
		    res->add[c][2] / tsc_per_ns, res->add[c][1],
		    c == C_NOCOUNT ? "-" : only);
	}
}

int main(int argc, char **argv)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	bool smoke = false;
	const char *md = NULL;
	char path[512], why[300] = "";
	struct result res[P_COUNT];
	struct prog *pg = calloc(1, sizeof(*pg));
	long iters;
	unsigned rounds, k, c;
	double w0, w1;
	u64 s0, s1;
	u8 *mem;
	int i, ok = 1;

	snprintf(path, sizeof(path), "%s/host/vmlinux", build);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--smoke"))
			smoke = true;
		else if (!strcmp(argv[i], "--markdown") && i + 1 < argc)
			md = argv[++i];
		else
			snprintf(path, sizeof(path), "%s", argv[i]);
	}
	iters = smoke ? 20 : 100;
	rounds = smoke ? 5 : MAX_ROUNDS;
	shapes = calloc(MAX_SHAPES, sizeof(*shapes));
	if (shapes_from_vmlinux(path)) {
		if (!smoke) {
			fprintf(stderr, "bench_silicon: cannot read %s\n",
				path);
			return 1;
		}
		shapes_builtin();
	}
	mem = mmap((void *)GEN_ADDR, GEN_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (mem == MAP_FAILED || !pg) {
		perror("bench_silicon: mmap");
		return 1;
	}
	w0 = kb_now_ns();
	s0 = __rdtsc();
	for (k = 0; k < P_COUNT && ok; k++) {
		drv_fn fn[N_CFG];
		u64 lock_blocks;

		mprotect(mem, GEN_SIZE, PROT_READ | PROT_WRITE);
		gen_prog(pg, mem, (enum prog_kind)k);
		mprotect(mem, GEN_SIZE, PROT_READ | PROT_EXEC);
		fn[C_NATIVE] = (drv_fn)(uintptr_t)pg->entry;
		for (c = 1; c < N_CFG && ok; c++)
			ok = !setup_cfg(pg, (int)c, &fn[c], why, sizeof(why));
		if (!ok)
			break;
		res[k].blocks = counted(&caches[C_PCPU], fn[C_PCPU], iters);
		lock_blocks = counted(&caches[C_LOCK], fn[C_LOCK], iters);
		if (counted(&caches[C_PCPU_NEAR], fn[C_PCPU_NEAR], iters) !=
			res[k].blocks ||
		    res[k].blocks != lock_blocks ||
		    res[k].blocks != (u64)iters * pg->blocks_per_iter + 1) {
			snprintf(
			    why, sizeof(why),
			    "%s: per-CPU counted %llu blocks, lock %llu, "
			    "the program runs %llu",
			    prog_names[k], (unsigned long long)res[k].blocks,
			    (unsigned long long)lock_blocks,
			    (unsigned long long)iters * pg->blocks_per_iter +
				1);
			ok = 0;
			break;
		}
		res[k].fid = fidelity(pg);
		res[k].insns = (double)pg->insns / PROG_BLOCKS;
		if (!tsc_per_ns) { /* a first estimate for the first table */
			double a = kb_now_ns();
			u64 b = __rdtsc();

			while (kb_now_ns() - a < 2e7)
				;
			tsc_per_ns =
			    (double)(__rdtsc() - b) / (kb_now_ns() - a);
		}
		for (c = 1; c < N_CFG; c++)
			caches[c].lookups = 0;
		measure(fn, iters, rounds, res[k].blocks, &res[k]);
		for (c = 1; c < N_CFG && ok; c++)
			if (caches[c].lookups) {
				snprintf(why, sizeof(why),
					 "%s: %llu dispatcher entries while "
					 "timed",
					 cfg_names[c],
					 (unsigned long long)caches[c].lookups);
				ok = 0;
			}
	}
	henv_set_gs(0);
	w1 = kb_now_ns();
	s1 = __rdtsc();
	tsc_per_ns = (double)(s1 - s0) / (w1 - w0);
	if (smoke) {
		kt_check("bench.silicon.smoke", ok, "%s", why);
		return kt_exit();
	}
	if (!ok) {
		fprintf(stderr, "bench_silicon: %s\n", why);
		return 1;
	}
	printf("bench.silicon: %zu block shapes from %s; TSC %.3f GHz\n",
	       n_shapes, path, tsc_per_ns);
	for (k = 0; k < P_COUNT; k++)
		print_text((enum prog_kind)k, &res[k]);
	if (md) {
		FILE *f = fopen(md, "w");

		if (!f) {
			perror(md);
			return 1;
		}
		for (k = 0; k < P_COUNT; k++)
			print_md(f, (enum prog_kind)k, &res[k]);
		fclose(f);
	}
	return 0;
}
