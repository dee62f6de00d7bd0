/*
 * bench_ibl.c - what one hit of the indirect branch lookup (IBL) costs on
 * this CPU, natively: the hit path of kmod/dispatch_entry.S, run in user
 * space with a real GS base (arch_prctl), against a native indirect jump
 * and against the candidates that would replace it.
 *
 * Every variant runs the same loop: load a target, branch through the
 * variant to the continuation, count down. Variants:
 *   native     jmp *%rax                       (the original code's branch)
 *   ibl        push target; jmp probe; the probe as dispatch_entry.S has it:
 *              endbr64, pushfq, [cli], push rax/rcx, hash, add the per-CPU
 *              table pointer (%gs:), compare, load the continuation, store
 *              it over the target, incq %gs: hits, pop, popfq, ret
 *   ibl-nf     the same probe without pushfq/cli/popfq: what exits whose
 *              flags the translator proves dead could use, given a probe
 *              that is atomic without cli (one read of the continuation,
 *              checked against the target stored at the translation's
 *              head); not what the module does today
 *   predict    cmp $target,%rax; jne probe; jmp continuation (an inline
 *              prediction of the site's last target, as DynamoRIO inlines
 *              its lookup; the miss path is never taken here)
 * The kernel probe's `cli` is privileged, so it is left out (a nop of
 * its length stays): the figures are a lower bound for the kernel's probe
 * by what `cli` costs. `popfq` in user space leaves IF alone, as the
 * kernel's does on the hit path (IF is restored to what it was). The
 * probe ends in a `ret` that no `call` pushed, as in the kernel: the
 * return-address predictor mispredicts it, which is most of the cost.
 *
 * Output: per variant, median and [10th, 90th percentile] over ROUNDS of
 * TSC ticks and ns per branch, and added over native. --smoke: a few short
 * rounds, checks that every variant reached its continuation the right
 * number of times (a host test), prints nothing else of note.
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

#define SLOTS  2048	    /* as KJIT_IBL_SLOTS */
#define TARGET 0x4000000ull /* the original target the loop branches to */

struct entry {
	uint64_t target, run;
};

/* What %gs points at: the per-CPU pointer to the table, then the hits. */
struct percpu {
	struct entry *tab; /* %gs:0, as kjit_ibl_tab */
	uint64_t hits;	   /* %gs:8, as kjit_ibl_hits */
};

static struct entry table[SLOTS] __attribute__((aligned(64)));
static struct percpu pcpu;

/* Each loop: rdi = iterations; returns nothing. The continuation labels
 * are exported so the table can point at them. */
void loop_native(long n);
void loop_ibl(long n);
void loop_ibl_nf(long n);
void loop_predict(long n);
extern char cont_ibl[], cont_ibl_nf[], cont_predict[], cont_native[];

__asm__(".text\n"
	/* the probe, as kmod/dispatch_entry.S's hit path */
	"probe:\n"
	"	endbr64\n"
	"	pushfq\n"
	"	nop\n" /* cli: privileged */
	"	pushq %rax\n"
	"	pushq %rcx\n"
	"	movq 24(%rsp), %rax\n"
	"	movl %eax, %ecx\n"
	"	shrl $4, %ecx\n"
	"	andl $(2048 - 1), %ecx\n"
	"	shll $4, %ecx\n"
	"	addq %gs:0, %rcx\n"
	"	cmpq %rax, (%rcx)\n"
	"	jne probe_miss\n"
	"	movq 8(%rcx), %rax\n"
	"	movq %rax, 24(%rsp)\n"
	"	incq %gs:8\n"
	"	popq %rcx\n"
	"	popq %rax\n"
	"	popfq\n"
	"	ret\n"
	/* flags dead: no pushfq/popfq, the target is at 16(%rsp) */
	"probe_nf:\n"
	"	endbr64\n"
	"	pushq %rax\n"
	"	pushq %rcx\n"
	"	movq 16(%rsp), %rax\n"
	"	movl %eax, %ecx\n"
	"	shrl $4, %ecx\n"
	"	andl $(2048 - 1), %ecx\n"
	"	shll $4, %ecx\n"
	"	addq %gs:0, %rcx\n"
	"	cmpq %rax, (%rcx)\n"
	"	jne probe_miss\n"
	"	movq 8(%rcx), %rax\n"
	"	movq %rax, 16(%rsp)\n"
	"	incq %gs:8\n"
	"	popq %rcx\n"
	"	popq %rax\n"
	"	ret\n"
	"probe_miss:\n"
	"	ud2\n" /* never: every probe hits */

	"loop_native:\n"
	"	movabsq $cont_native, %rax\n"
	"1:	jmp *%rax\n"
	"cont_native:\n"
	"	decq %rdi\n"
	"	jnz 1b\n"
	"	ret\n"

	"loop_ibl:\n"
	"	movq $0x4000000, %rax\n"
	"1:	pushq %rax\n" /* the exit stub: push the target */
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

	"loop_predict:\n"
	"	movq $0x4000000, %rax\n"
	"1:	cmpq $0x4000000, %rax\n"
	"	jne probe_miss\n"
	"	jmp cont_predict\n"
	"cont_predict:\n"
	"	decq %rdi\n"
	"	jnz 1b\n"
	"	ret\n");

enum { V_NATIVE, V_IBL, V_IBL_NF, V_PREDICT, N_V };
static void (*const loops[N_V])(long) = {loop_native, loop_ibl, loop_ibl_nf,
					 loop_predict};
static const char *const names[N_V] = {"native jmp *%rax", "ibl (hit)",
				       "ibl, flags dead", "inline prediction"};
/* per branch, the loop's own decq/jnz not counted; the kernel's RET may
 * be a jmp to the return thunk, one more */
static const char *const insns[N_V] = {"1", "22 (as the module's)", "19", "3"};

static void fill_table(void)
{
	unsigned slot = (TARGET >> 4) & (SLOTS - 1);

	memset(table, 0, sizeof(table));
	table[slot].target = TARGET;
	/* the variants share the target; the table is set per variant */
	pcpu.tab = table;
	pcpu.hits = 0;
}

static void set_cont(char *cont)
{
	table[(TARGET >> 4) & (SLOTS - 1)].run = (uint64_t)(uintptr_t)cont;
}

static char *const conts[N_V] = {cont_native, cont_ibl, cont_ibl_nf,
				 cont_predict};

int main(int argc, char **argv)
{
	int smoke = argc > 1 && !strcmp(argv[1], "--smoke");
	long iters = smoke ? 1000 : 1000000;
	unsigned rounds = smoke ? 3 : 201, r, v;
	static double ticks[N_V][201], add[N_V][201];
	double tsc_per_ns, a;
	uint64_t b;
	int bad = 0;

	fill_table();
	if (syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)&pcpu)) {
		perror("bench_ibl: arch_prctl(ARCH_SET_GS)");
		return 1;
	}
	/* the hit counter counts every probe: the exact check */
	for (v = V_IBL; v <= V_IBL_NF; v++) {
		set_cont(conts[v]);
		pcpu.hits = 0;
		loops[v](iters);
		if (pcpu.hits != (uint64_t)iters) {
			printf("KJIT-RESULT FAIL bench.ibl.%s %llu hits, %ld "
			       "branches\n",
			       v == V_IBL ? "hit" : "hit_nf",
			       (unsigned long long)pcpu.hits, iters);
			bad = 1;
		}
	}
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
		double lo = kb_pct(add[v], rounds, 0.1) / tsc_per_ns;
		double hi = kb_pct(add[v], rounds, 0.9) / tsc_per_ns;
		double md = kb_pct(add[v], rounds, 0.5) / tsc_per_ns;

		char added[64] = "-";

		if (v != V_NATIVE)
			snprintf(added, sizeof(added), "%.2f [%.2f, %.2f]", md,
				 lo, hi);
		printf("| %s | %s | %.1f | %.2f | %s |\n", names[v], insns[v],
		       t, t / tsc_per_ns, added);
	}
	printf("\nTSC: %.3f ticks/ns; %u rounds of %ld branches, variants "
	       "in rotating order.\n",
	       tsc_per_ns, rounds, iters);
	return bad;
}
