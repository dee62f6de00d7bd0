/* test_pred.c - an attached function's argument predicate
 * (jit/predicate.h), run: a function F(a0..a5) = a0 + ... + a5 is
 * translated with the predicate "argN OP VALUE" for every argument
 * register, operator and width, and for values at the edges (0, 1, the
 * 32- and 64-bit signed and unsigned limits); then called with arguments
 * around each edge, upper halves filled for the 32-bit tests.
 *
 * Each call must return F's value (the test clobbers nothing), and the
 * block's counter must move by one exactly when the condition holds, by
 * this file's own evaluation in C (it shares nothing with the emitter);
 * else the call ran natively, from F's original. Every translation is
 * also decode-back verified (verify.c's check_pred). A body that reads
 * the caller's flags (sete) checks the pushfq/popfq around the compare on
 * both sides, under every flag combination.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include "jit/predicate.h"
#include "tests/host/host_env.h"
#include "tests/host/kjit_test.h"
#include "tests/host/verify.h"

typedef u64 (*fn6)(u64, u64, u64, u64, u64, u64);

static u64 ctr_store[HENV_MAX_CTRS], key_store[HENV_MAX_CTRS];
static struct kjit_translator tr;
static struct kjit_pred want;
static u64 pred_block;
static unsigned vfy_failed, vfy_blocks;
static char vfy_msg[400];

static bool test_pred(void *opaque, u64 addr, struct kjit_pred *p)
{
	if (addr != pred_block)
		return false;
	*p = want;
	return true;
}

/* The condition in C: unsigned, in the predicate's width. */
static bool holds(const struct kjit_pred *p, u64 arg)
{
	u64 v = p->value;

	if (p->bits == 32) {
		arg &= 0xffffffffull;
		v &= 0xffffffffull;
	}
	switch (p->op) {
	case KJIT_PRED_EQ:
		return arg == v;
	case KJIT_PRED_NE:
		return arg != v;
	case KJIT_PRED_LT:
		return arg < v;
	case KJIT_PRED_LE:
		return arg <= v;
	case KJIT_PRED_GT:
		return arg > v;
	case KJIT_PRED_GE:
		return arg >= v;
	case KJIT_PRED_ANY:
		return (arg & v) != 0;
	}
	return false;
}

static const u64 edges[] = {0,
			    1,
			    2,
			    0x7f,
			    0xffff,
			    0x10000,
			    0x7fffffff,
			    0x80000000,
			    0xffffffff,
			    0x100000000ull,
			    0x7fffffffffffffffull,
			    0x8000000000000000ull,
			    0xfffffffffffffffeull,
			    0xffffffffffffffffull};
#define N_EDGES (sizeof(edges) / sizeof(edges[0]))

/* Translate the block at @o into @run with predicate @p; its counter, or
 * NULL after a failure. */
static u64 *translate(struct henv *h, u8 *m, u64 o, u64 run,
		      const struct kjit_pred *p, const char *name)
{
	struct kjit_config cfg;
	struct kjit_block b;
	enum kjit_reason r;
	struct vfy v;
	unsigned x;

	want = *p;
	pred_block = o;
	kjit_config_default(&cfg);
	kjit_translator_init(&tr, &h->env, &cfg);
	r = kjit_translate(&tr, o, m + (run - o), 0x400, run, &b);
	if (r) {
		kt_fail(name, "translate: %s", kjit_reason_name(r));
		return NULL;
	}
	/* before linking: the verifier wants exits to the dispatcher */
	vfy_init(&v, &h->env);
	if (vfy_block(&v, &tr.desc, &b, m + (run - o), run) &&
	    !vfy_failed++) /* said once, at the end; the code runs still */
		snprintf(vfy_msg, sizeof(vfy_msg), "%s: %s", name, v.msg);
	vfy_blocks++;
	for (x = 0; x < b.n_exits; x++) { /* exits: to their originals */
		u32 off, nv, ov;

		if (b.exit[x].kind != KJIT_EXIT_DIRECT)
			continue;
		r = kjit_exit_patch(&b, run, x, b.exit[x].target, &off, &nv,
				    &ov);
		if (r) {
			kt_fail(name, "link: %s", kjit_reason_name(r));
			return NULL;
		}
		memcpy(m + (run - o) + off, &nv, 4);
	}
	return henv_counter_of(h, o);
}

/* Every argument register, operator, width and edge value. */
static void sum_cases(u8 *m, u64 o)
{
	/* lea (%rdi,%rsi),%rax; add %rdx,%rax; add %rcx,%rax;
	 * add %r8,%rax; add %r9,%rax; jmp o+0x40 (ret, run natively) */
	static const char body[] = "488d0437 4801d0 4801c8 4c01c0 4c01c8 eb2e";
	unsigned arg, op, bits, vi, ai, d, bad = 0, calls = 0, translated = 0;
	u64 run = o + 0x800;

	kt_unhex(body, m);
	m[0x40] = 0xc3;
	for (arg = 0; arg < KJIT_PRED_ARGS; arg++)
		for (op = KJIT_PRED_EQ; op < KJIT_PRED_OPS; op++)
			for (bits = 32; bits <= 64; bits += 32)
				for (vi = 0; vi < N_EDGES; vi++) {
					struct kjit_pred p = {(u8)op, (u8)arg,
							      (u8)bits,
							      edges[vi]};
					struct henv h;
					u64 *ctr;

					henv_init(&h, KJIT_MEM_ABS32, ctr_store,
						  key_store, 0);
					henv_add_region(&h, o, m, 0x100);
					h.env.entry_pred = test_pred;
					ctr = translate(&h, m, o, run, &p,
							"jit.pred.run.sum");
					if (!ctr)
						return;
					translated++;
					for (ai = 0; ai < N_EDGES; ai++)
						for (d = 0; d < 4; d++) {
							u64 x[6] = {11, 22, 33,
								    44, 55, 66},
							    c = *ctr, want_sum,
							    got;

							/* the edge, its
							 * neighbours, and (32
							 * bits) junk above */
							x[arg] = edges[ai] +
								 (d == 1) -
								 (d == 2);
							if (d == 3)
								x[arg] =
								    (edges[ai] &
								     0xffffffffull) |
								    0xdead000000000000ull;
							want_sum = x[0] + x[1] +
								   x[2] + x[3] +
								   x[4] + x[5];
							got = ((
							    fn6)(void
								     *)(m +
									0x800))(
							    x[0], x[1], x[2],
							    x[3], x[4], x[5]);
							bad +=
							    got != want_sum ||
							    *ctr - c !=
								(u64)holds(
								    &p, x[arg]);
							calls++;
						}
				}
	kt_check("jit.pred.run.sum", !bad && translated == 6 * 7 * 2 * N_EDGES,
		 "%u of %u calls (%u translations) returned wrong or counted "
		 "other than the condition",
		 bad, calls, translated);
}

/* The flags live at the block's start: the body returns the caller's ZF
 * (sete), called through `push %rdi; popfq; jmp run` with every flag
 * combination, the predicate on %rsi both ways. */
static void flags_case(u8 *m, u64 o)
{
	struct kjit_pred p = {KJIT_PRED_GE, 1, 64, 65536};
	unsigned f, bad = 0, way;
	u64 run = o + 0x800, *ctr;
	struct henv h;

	/* sete %al; movzbl %al,%eax; jmp o+0x40 (ret) */
	kt_unhex("0f94c0 0fb6c0 eb38", m);
	m[0x40] = 0xc3;
	henv_init(&h, KJIT_MEM_ABS32, ctr_store, key_store, 0);
	henv_add_region(&h, o, m, 0x100);
	h.env.entry_pred = test_pred;
	ctr = translate(&h, m, o, run, &p, "jit.pred.run.flags_live");
	if (!ctr)
		return;
	m[0x700] = 0x57, m[0x701] = 0x9d; /* push %rdi; popfq; jmp run */
	m[0x702] = 0xe9;
	memcpy(m + 0x703, &(u32){(u32)(run - (o + 0x707))}, 4);
	for (way = 0; way < 2; way++)
		for (f = 0; f < 64; f++) {
			static const unsigned bit[6] = {0, 2, 4, 6, 7, 11};
			u64 fl = 0x202, c = *ctr, arg1 = way ? 65536 : 65535;
			unsigned k, got;

			for (k = 0; k < 6; k++)
				if (f & (1u << k))
					fl |= 1ull << bit[k];
			got = (unsigned)((u64(*)(u64, u64))(void *)(m + 0x700))(
			    fl, arg1);
			bad += got != ((fl >> 6) & 1) || *ctr - c != way;
		}
	kt_check("jit.pred.run.flags_live", !bad,
		 "%u of 128 calls lost the caller's ZF or counted wrong", bad);
}

/* A malformed predicate is refused, not emitted. */
static void refusals(u8 *m, u64 o)
{
	static const struct kjit_pred badp[] = {{KJIT_PRED_NONE, 0, 64, 1},
						{KJIT_PRED_OPS, 0, 64, 1},
						{KJIT_PRED_EQ, 6, 64, 1},
						{KJIT_PRED_EQ, 0, 16, 1}};
	unsigned i, wrong = 0;
	struct kjit_block b;
	struct henv h;

	kt_unhex("31c0 c3", m);
	for (i = 0; i < sizeof(badp) / sizeof(badp[0]); i++) {
		struct kjit_config cfg;

		henv_init(&h, KJIT_MEM_ABS32, ctr_store, key_store, 0);
		henv_add_region(&h, o, m, 0x100);
		h.env.entry_pred = test_pred;
		want = badp[i];
		pred_block = o;
		kjit_config_default(&cfg);
		kjit_translator_init(&tr, &h.env, &cfg);
		wrong += kjit_translate(&tr, o, m + 0x800, 0x400, o + 0x800,
					&b) != KJIT_R_BAD_ARG;
	}
	kt_check("jit.pred.refuse_malformed", !wrong,
		 "%u of 4 malformed predicates translated", wrong);
}

int main(void)
{
	u8 *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	u64 o = (u64)(uintptr_t)m;

	if (m == MAP_FAILED) {
		kt_fail("jit.pred", "mmap: %s", strerror(errno));
		return kt_exit();
	}
	memset(m, 0xcc, 4096);
	sum_cases(m, o);
	memset(m, 0xcc, 4096);
	flags_case(m, o);
	memset(m, 0xcc, 4096);
	refusals(m, o);
	kt_check("jit.pred.verifier", vfy_blocks && !vfy_failed,
		 "%u of %u translations failed the decode-back verifier, the "
		 "first %s",
		 vfy_failed, vfy_blocks, vfy_msg);
	munmap(m, 4096);
	return kt_exit();
}
