/*
 * bench_entry.c - what the shared entry trampoline (codecache/entry.h)
 * costs per call of an attached function on this CPU, natively, and what
 * a session's scope prologue adds to it: the bytes kjit_entry_emit()
 * writes for the module, run in user space with a real GS base
 * (arch_prctl) standing for the per-CPU area.
 *
 * A "function" is emitted as an attached one looks: `call T` (its
 * __fentry__ site, diverted by ftrace's direct call to the trampoline T),
 * then its body, a `ret`. Its translation is a `ret` too, so every
 * variant does the same work but the way in:
 *   native       the function with a 5-byte nop at the site (not attached)
 *   all          T without a scope: hash, probe, this CPU's slot, jmp *%r11
 *   tasks (in)   T with the tasks prologue, the current tgid in the bitmap
 *   tasks (out)  the same, a tgid not in it: back to S+5 through R (the
 *                module's kjit_entry_return; a `ret` here), the body runs
 *   cpus (in)    T with the cpus prologue, this CPU in the bitmap
 *   own (in)     T with the prologue that keeps kjit's own processes out
 *                (every and cpus scopes, the default), the current tgid
 *                not one of them
 *   exiting      T, the current task past exit_notify (exit_state set):
 *                counted in its function's counter, back to S+5 through R
 * Every T has the exiting guard, as the module emits it; "no exiting
 * guard" is T without it (kjit before 11-27).
 * The translation's `ret` does not match the `call T` (the trampoline
 * drops S+5), as in the kernel: the return predictor misses it.
 *
 * Output: per variant, median [p10, p90] over ROUNDS of TSC ticks and ns
 * per call, and added over native. --smoke: short rounds, checks that each
 * variant went where it must (the translation or the body, counted), a
 * host test; prints nothing else of note. Linked -no-pie: keys[] and the
 * bitmap must be reachable by an absolute disp32, as in the kernel's top
 * 2 GiB.
 */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>
#include "codecache/entry.h"
#include "tests/host/bench_stats.h"

#define SIZE	 64
#define TGID_OFF 0x9a4
#define EXIT_OFF 0x5f0

/* %gs: the per-CPU area the prologues and the table read */
struct cpu_area {
	unsigned long *slots; /* %gs:0, this CPU's slots[] */
	u32 preempt, cpu;
	unsigned char *current;
	unsigned long xlat_runs, body_runs; /* %gs:24, %gs:32 */
};

static u32 keys[SIZE];
static unsigned long slots[SIZE];
static unsigned long bitmap[4], own_bits[4]; /* own_bits: none set */
static unsigned char task[TGID_OFF + 8], dying[TGID_OFF + 8];
static unsigned long exiting_count, *counters[SIZE];
static struct cpu_area pcpu;

/* call_n(fn, n): n calls of fn. xlat: the translation (counts, returns);
 * ret_via: R. */
void call_n(unsigned long fn, long n), xlat(void), ret_via(void),
    disp_stub(void);
__asm__(".text\n"
	".globl call_n, xlat, ret_via, disp_stub\n"
	"call_n:\n"
	"1:	call *%rdi\n"
	"	decq %rsi\n"
	"	jnz 1b\n"
	"	ret\n"
	"xlat:	endbr64\n"
	"	incq %gs:24\n"
	"	ret\n"
	"ret_via: ret\n"
	"disp_stub: ud2\n"); /* every slot is set: never a miss */

enum {
	V_NATIVE,
	V_ALL,
	V_TASKS_IN,
	V_TASKS_OUT,
	V_CPUS_IN,
	V_EXITING,
	V_NO_GUARD,
	V_OWN_IN,
	N_V
};
static const char *const names[N_V] = {
    "native (not attached)",
    "trampoline, no scope",
    "tasks scope, in (translation)",
    "tasks scope, out (native body)",
    "cpus scope, in (translation)",
    "a task past exit_notify (native body, counted)",
    "trampoline, no scope, no exiting guard (before 11-27)",
    "every task but kjit's own, in (translation; the default since 11-28)"};
static unsigned long fn[N_V]; /* each variant's function */

/* The function at @at: `call @tramp` (or a 5-byte nop), then its body:
 * `incq %gs:32; ret`. Returns S+5. */
static unsigned long emit_fn(u8 *at, u8 *tramp)
{
	static const u8 nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
	static const u8 body[] = {0x65, 0x48, 0xff, 0x04, 0x25,
				  32,	0,    0,    0,	  0xc3};
	int32_t rel;

	if (tramp) {
		rel = (int32_t)(tramp - (at + 5));
		at[0] = 0xe8;
		memcpy(at + 1, &rel, 4);
	} else {
		memcpy(at, nop5, 5);
	}
	memcpy(at + 5, body, sizeof(body));
	return (unsigned long)at + 5;
}

/* A trampoline at @at for @kind, with the exiting guard if @guard, kjit's
 * own thread groups kept out if @own; 0 or -1. */
static int emit_tramp(u8 *at, u32 kind, int guard, int own)
{
	struct kjit_entry_addrs a = {
	    .run = (u64)(unsigned long)at,
	    .keys = (u64)(unsigned long)keys,
	    .size = SIZE,
	    .slots_gs = offsetof(struct cpu_area, slots),
	    .dispatch = (u64)(unsigned long)disp_stub,
	    .scope = {.kind = kind,
		      .preempt_gs = offsetof(struct cpu_area, preempt),
		      .irq_mask = 0x1f0100u,
		      .current_gs = offsetof(struct cpu_area, current),
		      .tgid_off = TGID_OFF,
		      .cpu_gs = offsetof(struct cpu_area, cpu),
		      .bitmap = (u64)(unsigned long)bitmap,
		      .limit = 200,
		      .ret_via = (u64)(unsigned long)ret_via},
	    .exiting = {.current_gs = offsetof(struct cpu_area, current),
			.preempt_gs = offsetof(struct cpu_area, preempt),
			.irq_mask = 0x1f0100u,
			.exit_state_off = EXIT_OFF,
			.counters = (u64)(unsigned long)counters,
			.ret_via = (u64)(unsigned long)ret_via},
	};
	u32 len;

	if (!guard)
		a.exiting.current_gs = 0;
	if (own) {
		a.scope.own_bitmap = (u64)(unsigned long)own_bits;
		a.scope.own_limit = 200;
	}
	return kjit_entry_emit(at, KJIT_ENTRY_TRAMP_MAX, &a, &len) ? -1 : 0;
}

/* Every variant's trampoline and function in @page; 0 or -1. */
static int build(u8 *page)
{
	static const u32 kinds[N_V] = {0,
				       KJIT_ENTRY_ALL,
				       KJIT_ENTRY_TASKS,
				       KJIT_ENTRY_TASKS,
				       KJIT_ENTRY_CPUS,
				       KJIT_ENTRY_ALL,
				       KJIT_ENTRY_ALL,
				       KJIT_ENTRY_ALL};
	struct kjit_entry_keys kt = {keys, SIZE, 0};
	u32 tgid = 77;
	int v, s;

	for (v = 0; v < N_V; v++) {
		u8 *tramp = page + 256 * v, *f = page + 2048 + 64 * v;
		unsigned long s5;

		if (v != V_NATIVE &&
		    emit_tramp(tramp, kinds[v], v != V_NO_GUARD, v == V_OWN_IN))
			return -1;
		s5 = emit_fn(f, v == V_NATIVE ? NULL : tramp);
		fn[v] = (unsigned long)f;
		if (v == V_NATIVE)
			continue;
		s = kjit_entry_insert(&kt, (u32)s5);
		if (s < 0)
			return -1;
		slots[s] = (unsigned long)xlat;
		counters[s] = &exiting_count;
	}
	memcpy(&task[TGID_OFF], &tgid, 4);
	memcpy(&dying[TGID_OFF], &tgid, 4);
	memcpy(&dying[EXIT_OFF], &(int){16}, 4); /* EXIT_ZOMBIE */
	bitmap[1] = 1ul << (77 - 64);		 /* tgid 77, and CPU 77 */
	pcpu.slots = slots;
	pcpu.current = task;
	pcpu.cpu = 77;
	return 0;
}

/* Where a variant's calls went: @want_xlat of n reached the translation. */
static int check(unsigned v, long n, int want_xlat)
{
	int ok;

	pcpu.xlat_runs = pcpu.body_runs = exiting_count = 0;
	/* tasks (out): another process's tgid */
	memcpy(&task[TGID_OFF], &(u32){v == V_TASKS_OUT ? 78 : 77}, 4);
	pcpu.current = v == V_EXITING ? dying : task;
	call_n(fn[v], n);
	pcpu.current = task;
	ok = pcpu.xlat_runs == (unsigned long)(want_xlat ? n : 0) &&
	     pcpu.body_runs == (unsigned long)(want_xlat ? 0 : n) &&
	     exiting_count == (unsigned long)(v == V_EXITING ? n : 0);
	printf("KJIT-RESULT %s bench.entry.%u %s: %lu translation, %lu "
	       "native\n",
	       ok ? "PASS" : "FAIL", v, names[v], pcpu.xlat_runs,
	       pcpu.body_runs);
	return !ok;
}

int main(int argc, char **argv)
{
	int smoke = argc > 1 && !strcmp(argv[1], "--smoke");
	long iters = smoke ? 1000 : 1000000;
	unsigned rounds = smoke ? 3 : 201, r, v;
	static double ticks[N_V][201], add[N_V][201];
	u8 *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	double tsc_per_ns, a;
	uint64_t b;
	int bad = 0;

	if (page == MAP_FAILED || build(page) ||
	    mprotect(page, 4096, PROT_READ | PROT_EXEC)) {
		printf("KJIT-RESULT FAIL bench.entry.build\n");
		return 1;
	}
	if (syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)&pcpu)) {
		perror("bench_entry: arch_prctl(ARCH_SET_GS)");
		return 1;
	}
	for (v = 0; v < N_V; v++)
		bad |=
		    check(v, iters,
			  v != V_NATIVE && v != V_TASKS_OUT && v != V_EXITING);
	a = kb_now_ns();
	b = __rdtsc();
	while (kb_now_ns() - a < (smoke ? 1e6 : 5e7))
		;
	tsc_per_ns = (double)(__rdtsc() - b) / (kb_now_ns() - a);
	for (r = 0; r < rounds; r++)
		for (v = 0; v < N_V; v++) {
			unsigned w = (v + r) % N_V, aux;
			uint64_t t0;

			memcpy(&task[TGID_OFF],
			       &(u32){w == V_TASKS_OUT ? 78 : 77}, 4);
			pcpu.current = w == V_EXITING ? dying : task;
			t0 = __rdtscp(&aux);
			call_n(fn[w], iters);
			ticks[w][r] = (double)(__rdtscp(&aux) - t0) / iters;
			pcpu.current = task;
		}
	for (r = 0; r < rounds; r++)
		for (v = 0; v < N_V; v++)
			add[v][r] = ticks[v][r] - ticks[V_NATIVE][r];
	if (smoke) {
		printf("KJIT-RESULT %s bench.entry.smoke %u rounds of %ld\n",
		       bad ? "FAIL" : "PASS", rounds, iters);
		return bad;
	}
	printf("| way in | TSC ticks per call | ns per call | added ns over "
	       "native [p10, p90] |\n| --- | --- | --- | --- |\n");
	for (v = 0; v < N_V; v++) {
		double t = kb_pct(ticks[v], rounds, 0.5);
		char added[64] = "-";

		if (v != V_NATIVE)
			kb_added_cell(added, sizeof(added), add[v], rounds,
				      tsc_per_ns);
		printf("| %s | %.1f | %.2f | %s |\n", names[v], t,
		       t / tsc_per_ns, added);
	}
	printf("\nTSC: %.3f ticks/ns; %u rounds of %ld calls, variants in "
	       "rotating order.\n",
	       tsc_per_ns, rounds, iters);
	return bad;
}
