/* test_timing.c - the calls of timed functions (jit/timing.h) on the
 * differential corpus: every corpus function timed, translated in the
 * module's deep configuration and run through the host cache, with
 * stand-ins for kmod/timing_entry.S that log (kind, fid, stack pointer).
 *
 * For every case and input: the result and global state equal the native
 * run's (the calls keep every register and flag); the log is a proper
 * nesting under kmod/timing.c's rule (a return closes every open call at
 * or below its stack pointer; an entry is never above an open one), each
 * entry's id the function its stack pointer belongs to, and nothing is
 * left open; and on the oracle's inputs, each function's entries equal
 * the times the ptrace oracle saw its first instruction run (it shares
 * nothing with the translator), and its closes its entries.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jit/instrument.h"
#include "tests/host/corpus.h"
#include "tests/host/host_cache.h"
#include "tests/host/kjit_test.h"
#include "tests/host/oracle.h"

void host_time_enter(void), host_time_exit(void);

#define MAX_FUNCS 256
#define MAX_LOG	  (1 << 16)
#define N_INPUTS  40
#define N_ORACLE  4

static u64 starts[MAX_FUNCS];
static unsigned n_starts;
static struct hc cache;

static struct {
	u32 kind, fid;
	u64 rsp;
} tlog[MAX_LOG];
static unsigned n_log, log_over;

void host_time_log(u32 fid, u64 rsp, u32 kind);
void host_time_log(u32 fid, u64 rsp, u32 kind)
{
	if (n_log >= MAX_LOG) {
		log_over++;
		return;
	}
	tlog[n_log].kind = kind;
	tlog[n_log].fid = fid;
	tlog[n_log++].rsp = rsp;
}

static int by_addr(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static bool special(u64 a)
{
	return a == (u64)(uintptr_t)corpus_fentry ||
	       a == (u64)(uintptr_t)corpus_return_thunk ||
	       a == (u64)(uintptr_t)corpus_thunk_rax ||
	       a == (u64)(uintptr_t)corpus_thunk_r11 ||
	       a == (u64)(uintptr_t)__start_kjit_corpus ||
	       a == (u64)(uintptr_t)__stop_kjit_corpus;
}

/* The corpus's function starts, from this program's own symbol table. */
static int load_starts(u64 lo, u64 hi)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	unsigned i0;
	int fd = open("/proc/self/exe", O_RDONLY);

	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE ||
	    !(e = elf_begin(fd, ELF_C_READ, NULL)))
		return -1;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;

			/* C functions and the assembly ones (untyped), not
			 * the stand-ins for kernel symbols */
			if (gelf_getsym(d, (int)i, &s) &&
			    (GELF_ST_TYPE(s.st_info) == STT_FUNC ||
			     GELF_ST_TYPE(s.st_info) == STT_NOTYPE) &&
			    s.st_value >= lo && s.st_value < hi &&
			    !special(s.st_value) && n_starts < MAX_FUNCS)
				starts[n_starts++] = s.st_value;
		}
	}
	elf_end(e);
	close(fd);
	qsort(starts, n_starts, sizeof(*starts), by_addr);
	for (fd = 1, i0 = 1; i0 < n_starts; i0++) /* distinct */
		if (starts[i0] != starts[fd - 1])
			starts[fd++] = starts[i0];
	n_starts = n_starts ? (unsigned)fd : 0;
	return n_starts ? 0 : -1;
}

/* The function containing @a (its index), or -1. */
static int func_of(u64 a)
{
	int lo = 0, hi = (int)n_starts - 1, r = -1;

	while (lo <= hi) {
		int m = (lo + hi) / 2;

		if (starts[m] <= a)
			r = m, lo = m + 1;
		else
			hi = m - 1;
	}
	return r;
}

static int time_fid(void *opaque, u64 addr, bool entry)
{
	int f = func_of(addr);

	return f < 0 || (entry && starts[f] != addr) ? -1 : f;
}

/* The log under kmod/timing.c's rule; "" when well formed. Fills each
 * function's entries and closes. */
static void check_log(char *why, size_t n, unsigned *enters, unsigned *closes)
{
	u64 stack[256];
	u32 fids[256];
	unsigned depth = 0, i;

	why[0] = 0;
	if (log_over) {
		snprintf(why, n, "log overflow");
		return;
	}
	for (i = 0; i < n_log && !why[0]; i++) {
		if (tlog[i].kind == 0) {
			if (depth && stack[depth - 1] < tlog[i].rsp)
				snprintf(why, n,
					 "entry %u above an open call "
					 "(%#llx over %#llx)",
					 i, (unsigned long long)tlog[i].rsp,
					 (unsigned long long)stack[depth - 1]);
			else if (depth == 256)
				snprintf(why, n, "too deep");
			else {
				stack[depth] = tlog[i].rsp;
				fids[depth++] = tlog[i].fid;
				enters[tlog[i].fid]++;
			}
			continue;
		}
		if (!depth || stack[depth - 1] > tlog[i].rsp) {
			snprintf(why, n, "return %u (fid %u) closes nothing", i,
				 tlog[i].fid);
			break;
		}
		/* the return's own function is the innermost it closes */
		if (fids[depth - 1] != tlog[i].fid &&
		    stack[depth - 1] != tlog[i].rsp)
			snprintf(why, n, "return %u of fid %u closes fid %u", i,
				 tlog[i].fid, fids[depth - 1]);
		while (depth && stack[depth - 1] <= tlog[i].rsp)
			closes[fids[--depth]]++;
	}
	if (!why[0] && depth)
		snprintf(why, n, "%u call(s) left open", depth);
}

struct call {
	corpus_fn f;
	long a, b;
};

static void call_fn(void *arg)
{
	struct call *c = arg;

	c->f(c->a, c->b);
}

static void input(unsigned i, long *a, long *b)
{
	static const long as[] = {0, 1, -1, 5, 37, -3, 1000003, 64};
	static const long bs[] = {3, 0, 17, -1, 64, 5, 12, 7};

	*a = as[i % 8] * (long)(i / 8 + 1);
	*b = bs[(i * 3) % 8] + (long)i;
}

static void run_case(const struct corpus_case *cc, unsigned *totals)
{
	static struct omap m;
	char name[96], why[200] = "";
	unsigned enters[MAX_FUNCS], closes[MAX_FUNCS], i, f;
	long a, b;

	snprintf(name, sizeof(name), "jit.timing.run.%s", cc->name);
	for (i = 0; i < N_INPUTS && !why[0]; i++) {
		corpus_fn t = (corpus_fn)(uintptr_t)hc_lookup(
		    &cache, (u64)(uintptr_t)cc->fn);
		long rn, rt;
		unsigned long sn, st;

		input(i, &a, &b);
		corpus_reset();
		rn = cc->fn(a, b);
		sn = corpus_state();
		corpus_reset();
		n_log = log_over = 0;
		rt = t(a, b);
		st = corpus_state();
		if (rn != rt || sn != st) {
			snprintf(why, sizeof(why),
				 "f(%ld,%ld): native %ld translated %ld%s", a,
				 b, rn, rt, sn != st ? " (state differs)" : "");
			break;
		}
		memset(enters, 0, sizeof(enters));
		memset(closes, 0, sizeof(closes));
		check_log(why, sizeof(why), enters, closes);
		if (why[0] || i >= N_ORACLE)
			continue;
		if (oracle_run_fn(call_fn, &(struct call){cc->fn, a, b}, &m) <
		    0) {
			snprintf(why, sizeof(why), "oracle run failed");
			break;
		}
		for (f = 0; f < n_starts && !why[0]; f++) {
			u64 o = omap_count(&m, starts[f]);

			if (enters[f] != o || closes[f] != enters[f])
				snprintf(why, sizeof(why),
					 "f(%ld,%ld): function %#llx entered "
					 "%u, closed %u, the oracle ran its "
					 "start %llu times",
					 a, b, (unsigned long long)starts[f],
					 enters[f], closes[f],
					 (unsigned long long)o);
			totals[0] += enters[f];
		}
	}
	if (!why[0] && cache.vfy_failed)
		snprintf(why, sizeof(why), "verifier: %.180s", cache.vfy_msg);
	if (!why[0] && cache.refusals)
		snprintf(why, sizeof(why), "%u refusals (last %s)",
			 cache.refusals, kjit_reason_name(cache.last_refusal));
	kt_check(name, !why[0], "%s", why);
}

int main(void)
{
	u64 lo = (u64)(uintptr_t)__start_kjit_corpus,
	    hi = (u64)(uintptr_t)__stop_kjit_corpus;
	struct kjit_config cfg;
	unsigned i, totals[1] = {0};

	if (load_starts(lo, hi)) {
		kt_fail("jit.timing.setup", "no corpus functions in the symbol "
					    "table");
		return kt_exit();
	}
	kjit_config_default(&cfg); /* the module's deep session */
	cfg.native_calls = true;
	cfg.follow_indirect_calls = true;
	cfg.predict_indirect_calls = true;
	if (hc_init(&cache, lo, hi, KJIT_MEM_ABS32, &cfg, true)) {
		kt_fail("jit.timing.setup", "cannot map the code cache");
		return kt_exit();
	}
	cache.vfy.native_calls = true;
	cache.vfy.follow_indirect_calls = true;
	cache.vfy.predict_indirect_calls = true;
	henv_add_sym(&cache.henv, (u64)(uintptr_t)corpus_fentry,
		     KJIT_SYM_FENTRY, -1);
	henv_add_sym(&cache.henv, (u64)(uintptr_t)corpus_return_thunk,
		     KJIT_SYM_RETURN_THUNK, -1);
	henv_add_sym(&cache.henv, (u64)(uintptr_t)corpus_thunk_rax,
		     KJIT_SYM_INDIRECT_THUNK, 0);
	henv_add_sym(&cache.henv, (u64)(uintptr_t)corpus_thunk_r11,
		     KJIT_SYM_INDIRECT_THUNK, 11);
	cache.henv.env.time_enter = (u64)(uintptr_t)host_time_enter;
	cache.henv.env.time_exit = (u64)(uintptr_t)host_time_exit;
	cache.henv.env.time_fid = time_fid;
	oracle_init(lo, hi);
	for (i = 0; i < corpus_n_cases; i++)
		run_case(&corpus_cases[i], totals);
	kt_check("jit.timing.calls_seen", totals[0] > 100,
		 "only %u timed calls checked against the oracle", totals[0]);
	printf("timing: %u corpus functions, %u timed calls checked against the "
	       "oracle, %u blocks\n",
	       n_starts, totals[0], cache.n_blk);
	return kt_exit();
}
