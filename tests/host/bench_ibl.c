/*
 * bench_ibl.c - what one hit of the indirect branch lookup (IBL) costs on
 * this CPU, natively: the hit path of kmod/dispatch_entry.S, run in user
 * space with a real GS base (arch_prctl), against a native indirect jump
 * and against the candidates that would replace it.
 *
 * Every variant runs the same loop: load a target, branch through the
 * variant to the continuation, count down. Variants:
 *   native     jmp *%rax                       (the original code's branch)
 *   ibl        push target; jmp probe; the probe as dispatch_entry.S has it
 *              (kjit_dispatch_entry): endbr64, pushfq, push rax/rcx, the
 *              one-word lookup (IBL_PROBE: range check, hash, add the
 *              per-CPU table pointer (%gs:), one load, compare the high
 *              half, sign-extend the low half), no indirect jmp's site
 *              waiting to learn (cmpq $0,%gs:jsite), store the
 *              continuation over the target, incq %gs: hits, pop, popfq,
 *              ret
 *   ibl-nf     kjit_dispatch_entry_nf: the same without pushfq/popfq, for
 *              exits whose flags the translator knows dead (indirect calls)
 *   ibl-old    the probe before: 16-byte slots read in two loads, made
 *              atomic by `pushfq; cli` ... `popfq` (`cli` is privileged:
 *              a nop of its length stands for it, so this is a lower bound)
 *   predict    cmp $target,%rax; je continuation (the first way of an
 *              inline prediction of the site's targets, jit/flow.c, as
 *              DynamoRIO inlines its lookup; the miss path is never taken)
 *   predict3   the same hit in the third way: two cmp/je pairs fall
 *              through first
 *   jpredict   an indirect jmp's prediction, which keeps the flags: push
 *              %rcx; lea -target(%rax),%rcx; jrcxz hit; ... hit: pop %rcx;
 *              jmp continuation (jit/flow.c emit_predicted_jmp)
 *   jpredict3  the same hit in the third way
 * `popfq` in user space leaves IF alone, as the kernel's does on the hit
 * path. The probe ends in a `ret` that no `call` pushed, as in the kernel:
 * the return-address predictor mispredicts it, which is most of the cost.
 * The binary is linked at a fixed low address (-no-pie), where, as in the
 * kernel's top 2 GiB, an address is its low 32 bits sign-extended.
 *
 * Output: per variant, median and [10th, 90th percentile] over ROUNDS of
 * TSC ticks and ns per branch, and added over native. --smoke: a few short
 * rounds, checks that every variant reached its continuation the right
 * number of times, and that the one-word probe misses a target that only
 * shares the slot, or only the low 32 bits, of the one in the table, and
 * an empty slot (a host test); prints nothing else of note.
 */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>
#include "tests/host/bench_stats.h"

#define SLOTS  4096	    /* as KJIT_IBL_SLOTS */
#define OSLOTS 2048	    /* the old probe's 16-byte slots */
#define TARGET 0x4000000ull /* the original target the loop branches to */

struct old_entry {
	uint64_t target, run;
};

/* What %gs points at: the per-CPU pointer to the table, then the hits,
 * then the old probe's table. */
struct percpu {
	uint64_t *tab;		/* %gs:0, as kjit_ibl_tab */
	uint64_t hits;		/* %gs:8, as kjit_ibl_hits */
	struct old_entry *old;	/* %gs:16 */
	uint64_t jsite[2];	/* %gs:24, as kjit_jsite: target, site */
};

static uint64_t table[SLOTS] __attribute__((aligned(64)));
static struct old_entry old_table[OSLOTS] __attribute__((aligned(64)));
static struct percpu pcpu;

/* Each loop: rdi = iterations; returns nothing. The continuation labels
 * are exported so the table can point at them. */
void loop_native(long n);
void loop_ibl(long n);
void loop_ibl_nf(long n);
void loop_ibl_old(long n);
void loop_predict(long n);
void loop_predict3(long n);
void loop_jpredict(long n);
void loop_jpredict3(long n);
/* One probe of @target through the nf entry: 1 on a hit, 0 on a miss. */
long lookup_nf(uint64_t target);
extern char cont_ibl[], cont_ibl_nf[], cont_ibl_old[], cont_predict[],
    cont_predict3[], cont_jpredict[], cont_jpredict3[], cont_native[],
    lookup_hit[];

/* kmod/dispatch_entry.S's IBL_PROBE, the same instructions */
#define IBL_PROBE(off, miss)                                                   \
	"	movq " #off "(%rsp), %rax\n"                                   \
	"	movslq %eax, %rcx\n"                                           \
	"	cmpq %rax, %rcx\n"                                             \
	"	jne " miss "\n"                                                \
	"	shrl $4, %ecx\n"                                               \
	"	andl $(4096 - 1), %ecx\n"                                      \
	"	shll $3, %ecx\n"                                               \
	"	addq %gs:0, %rcx\n"                                            \
	"	movq (%rcx), %rcx\n"                                           \
	"	shlq $32, %rax\n"                                              \
	"	xorq %rax, %rcx\n"                                             \
	"	movq %rcx, %rax\n"                                             \
	"	shrq $32, %rax\n"                                              \
	"	jnz " miss "\n"                                                \
	"	movslq %ecx, %rcx\n"

__asm__(
    ".text\n"
    /* kjit_dispatch_entry's hit path */
    "probe:\n"
    "	endbr64\n"
    "	pushfq\n"
    "	pushq %rax\n"
    "	pushq %rcx\n" IBL_PROBE(
	24,
	"probe_miss") "	cmpq $0, %gs:32\n"
		      "	jne probe_miss\n"
		      "	movq %rcx, 24(%rsp)\n"
		      "	incq %gs:8\n"
		      "	popq %rcx\n"
		      "	popq %rax\n"
		      "	popfq\n"
		      "	ret\n"
		      /* kjit_dispatch_entry_nf's hit path */
		      "probe_nf:\n"
		      "	endbr64\n"
		      "	pushq %rax\n"
		      "	pushq %rcx\n" IBL_PROBE(
			  16,
			  "probe_nf_miss") "	movq %rcx, 16(%rsp)\n"
					   "	incq %gs:8\n"
					   "	popq %rcx\n"
					   "	popq %rax\n"
					   "	ret\n"
					   /* a miss of lookup_nf: drop the
					    * target, return 0 to lookup_nf's
					    * caller */
					   "probe_nf_miss:\n"
					   "	popq %rcx\n"
					   "	popq %rax\n"
					   "	addq $8, %rsp\n"
					   "	xorl %eax, %eax\n"
					   "	ret\n"
					   /* the old two-read probe, with cli
					      as a nop of its length */
					   "probe_old:\n"
					   "	endbr64\n"
					   "	pushfq\n"
					   "	nop\n"
					   "	pushq %rax\n"
					   "	pushq %rcx\n"
					   "	movq 24(%rsp), %rax\n"
					   "	movl %eax, %ecx\n"
					   "	shrl $4, %ecx\n"
					   "	andl $(2048 - 1), %ecx\n"
					   "	shll $4, %ecx\n"
					   "	addq %gs:16, %rcx\n"
					   "	cmpq %rax, (%rcx)\n"
					   "	jne probe_miss\n"
					   "	movq 8(%rcx), %rax\n"
					   "	movq %rax, 24(%rsp)\n"
					   "	incq %gs:8\n"
					   "	popq %rcx\n"
					   "	popq %rax\n"
					   "	popfq\n"
					   "	ret\n"
					   "probe_miss:\n"
					   "	ud2\n" /* never: every timed
							  probe hits */

					   "lookup_nf:\n"
					   "	pushq %rdi\n"
					   "	jmp probe_nf\n"
					   "lookup_hit:\n"
					   "	movl $1, %eax\n"
					   "	ret\n"

					   "loop_native:\n"
					   "	movabsq $cont_native, %rax\n"
					   "1:	jmp *%rax\n"
					   "cont_native:\n"
					   "	decq %rdi\n"
					   "	jnz 1b\n"
					   "	ret\n"

					   "loop_ibl:\n"
					   "	movq $0x4000000, %rax\n"
					   "1:	pushq %rax\n" /* the exit stub:
								 push the target
							       */
					   "	jmp probe\n"
					   "cont_ibl:\n"
					   "	decq %rdi\n"
					   "	jnz 1b\n"
					   "	ret\n"

					   "loop_ibl_nf:\n"
					   "	movq $0x4000000, %rax\n"
					   "1:	pushq %rax\n"
					   "	jmp probe_nf\n"
					   "cont_ibl_nf:\n"
					   "	decq %rdi\n"
					   "	jnz 1b\n"
					   "	ret\n"

					   "loop_ibl_old:\n"
					   "	movq $0x4000000, %rax\n"
					   "1:	pushq %rax\n"
					   "	jmp probe_old\n"
					   "cont_ibl_old:\n"
					   "	decq %rdi\n"
					   "	jnz 1b\n"
					   "	ret\n"

					   "loop_predict:\n"
					   "	movq $0x4000000, %rax\n"
					   "1:	cmpq $0x4000000, %rax\n"
					   "	je cont_predict\n"
					   "	jmp probe_miss\n"
					   "cont_predict:\n"
					   "	decq %rdi\n"
					   "	jnz 1b\n"
					   "	ret\n"

					   "loop_predict3:\n"
					   "	movq $0x4000000, %rax\n"
					   "1:	cmpq $0x4000040, %rax\n"
					   "	je probe_miss\n"
					   "	cmpq $0x4000080, %rax\n"
					   "	je probe_miss\n"
					   "	cmpq $0x4000000, %rax\n"
					   "	je cont_predict3\n"
					   "	jmp probe_miss\n"
					   "cont_predict3:\n"
					   "	decq %rdi\n"
					   "	jnz 1b\n"
					   "	ret\n"

					   "loop_jpredict:\n"
					   "	movq $0x4000000, %rax\n"
					   "1:	pushq %rcx\n"
					   "	leaq -0x4000000(%rax), %rcx\n"
					   "	jrcxz 3f\n"
					   "	popq %rcx\n"
					   "	jmp probe_miss\n"
					   "cont_jpredict:\n"
					   "	decq %rdi\n"
					   "	jnz 1b\n"
					   "	ret\n"
					   "3:	popq %rcx\n"
					   "	jmp cont_jpredict\n"

					   "loop_jpredict3:\n"
					   "	movq $0x4000000, %rax\n"
					   "1:	pushq %rcx\n"
					   "	leaq -0x4000040(%rax), %rcx\n"
					   "	jrcxz 4f\n"
					   "	leaq -0x4000080(%rax), %rcx\n"
					   "	jrcxz 4f\n"
					   "	leaq -0x4000000(%rax), %rcx\n"
					   "	jrcxz 3f\n"
					   "	popq %rcx\n"
					   "	jmp probe_miss\n"
					   "cont_jpredict3:\n"
					   "	decq %rdi\n"
					   "	jnz 1b\n"
					   "	ret\n"
					   "3:	popq %rcx\n"
					   "	jmp cont_jpredict3\n"
					   "4:	popq %rcx\n"
					   "	jmp probe_miss\n");

enum {
	V_NATIVE,
	V_IBL,
	V_IBL_NF,
	V_IBL_OLD,
	V_PREDICT,
	V_PREDICT3,
	V_JPREDICT,
	V_JPREDICT3,
	N_V
};
static void (*const loops[N_V])(long) = {
    loop_native,  loop_ibl,	 loop_ibl_nf,	loop_ibl_old,
    loop_predict, loop_predict3, loop_jpredict, loop_jpredict3};
static const char *const names[N_V] = {
    "native jmp *%rax",
    "ibl (hit)",
    "ibl, flags dead (hit)",
    "ibl before: two reads under cli (hit)",
    "inline prediction, first way",
    "inline prediction, third way",
    "jmp prediction (flags kept), first way",
    "jmp prediction (flags kept), third way"};
/* per branch, the loop's own decq/jnz not counted; the kernel's RET may
 * be a jmp to the return thunk, one more */
static const char *const insns[N_V] = {
    "1", "29 (as the module's)", "25", "22", "2", "6", "5", "9"};

static unsigned slot_of(uint64_t target) { return (target >> 4) & (SLOTS - 1); }

static uint64_t word(uint64_t target, uint64_t run)
{
	return (uint64_t)(uint32_t)target << 32 | (uint32_t)run;
}

static void set_cont(char *cont)
{
	uint64_t run = (uint64_t)(uintptr_t)cont;

	memset(table, 0, sizeof(table));
	memset(old_table, 0, sizeof(old_table));
	table[slot_of(TARGET)] = word(TARGET, run);
	old_table[(TARGET >> 4) & (OSLOTS - 1)] =
	    (struct old_entry){TARGET, run};
	pcpu.tab = table;
	pcpu.old = old_table;
}

static char *const conts[N_V] = {cont_native,	cont_ibl,      cont_ibl_nf,
				 cont_ibl_old,	cont_predict,  cont_predict3,
				 cont_jpredict, cont_jpredict3};

/* The one-word probe hits its own target only: not one that shares its
 * slot, nor one that shares its low 32 bits, nor an empty slot. */
static int check_probe(void)
{
	static const struct {
		const char *name;
		uint64_t target;
		long want;
	} t[] = {
	    {"own_target", TARGET, 1},
	    {"same_slot_other_target", TARGET + SLOTS * 16, 0},
	    {"same_low32_other_high32", TARGET + (1ull << 32), 0},
	    {"not_sign_extended", 0x80000000ull | TARGET, 0},
	};
	unsigned i;
	int bad = 0;

	set_cont(lookup_hit);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		long got = lookup_nf(t[i].target);

		printf("KJIT-RESULT %s bench.ibl.probe.%s: %s\n",
		       got == t[i].want ? "PASS" : "FAIL", t[i].name,
		       got ? "hit" : "miss");
		bad |= got != t[i].want;
	}
	memset(table, 0, sizeof(table));
	bad |= lookup_nf(TARGET) != 0;
	printf("KJIT-RESULT %s bench.ibl.probe.empty_slot\n",
	       lookup_nf(TARGET) ? "FAIL" : "PASS");
	return bad;
}

int main(int argc, char **argv)
{
	int smoke = argc > 1 && !strcmp(argv[1], "--smoke");
	long iters = smoke ? 1000 : 1000000;
	unsigned rounds = smoke ? 3 : 201, r, v;
	static double ticks[N_V][201], add[N_V][201];
	double tsc_per_ns, a;
	uint64_t b;
	int bad = 0;

	set_cont(cont_native);
	if (syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)&pcpu)) {
		perror("bench_ibl: arch_prctl(ARCH_SET_GS)");
		return 1;
	}
	/* the hit counter counts every probe: the exact check */
	for (v = V_IBL; v <= V_IBL_OLD; v++) {
		set_cont(conts[v]);
		pcpu.hits = 0;
		loops[v](iters);
		if (pcpu.hits != (uint64_t)iters) {
			printf("KJIT-RESULT FAIL bench.ibl.%s %llu hits, %ld "
			       "branches\n",
			       names[v], (unsigned long long)pcpu.hits, iters);
			bad = 1;
		}
	}
	if (smoke)
		bad |= check_probe();
	a = kb_now_ns();
	b = __rdtsc();
	while (kb_now_ns() - a < (smoke ? 1e6 : 5e7))
		;
	tsc_per_ns = (double)(__rdtsc() - b) / (kb_now_ns() - a);
	for (r = 0; r < rounds; r++)
		for (v = 0; v < N_V; v++) {
			unsigned w = (v + r) % N_V; /* rotate the order */
			unsigned aux;
			uint64_t t0;

			set_cont(conts[w]);
			t0 = __rdtscp(&aux);
			loops[w](iters);
			ticks[w][r] = (double)(__rdtscp(&aux) - t0) / iters;
		}
	for (r = 0; r < rounds; r++)
		for (v = 0; v < N_V; v++)
			add[v][r] = ticks[v][r] - ticks[V_NATIVE][r];
	if (smoke) {
		printf("KJIT-RESULT %s bench.ibl.smoke %u rounds of %ld\n",
		       bad ? "FAIL" : "PASS", rounds, iters);
		return bad;
	}
	printf(
	    "| branch | instructions | TSC ticks per branch | ns per branch | "
	    "added ns over native [p10, p90] |\n");
	printf("| --- | --- | --- | --- | --- |\n");
	for (v = 0; v < N_V; v++) {
		double t = kb_pct(ticks[v], rounds, 0.5);
		char added[64] = "-";

		if (v != V_NATIVE)
			kb_added_cell(added, sizeof(added), add[v], rounds,
				      tsc_per_ns);
		printf("| %s | %s | %.1f | %.2f | %s |\n", names[v], insns[v],
		       t, t / tsc_per_ns, added);
	}
	printf("\nTSC: %.3f ticks/ns; %u rounds of %ld branches, variants "
	       "in rotating order.\n",
	       tsc_per_ns, rounds, iters);
	return bad;
}
