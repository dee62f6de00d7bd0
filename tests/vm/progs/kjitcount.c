/*
 * kjitcount.c - count a workload's kernel blocks with kjit, then with the
 * kjit_kprobes oracle on the same block addresses, and compare.
 *
 *   kjitcount [-c CPU] [-p] [-e] [-x] OP N FUNC...
 *     OP N   the workload (see workload.c: getpid read fstat openclose pipe)
 *     -p     run it on every CPU at once (one pinned child per CPU): each
 *            count is then the total over CPUs, N per CPU
 *     -e     every FUNC's entry block must have run exactly N times (N times
 *            the number of CPUs with -p), and with -p on every CPU
 *     -x     cross-check every block against a Kprobe on its address
 *     -d     deep mode: also follow direct calls into callees. Kprobes count
 *            every call of a callee, kjit only those made under the
 *            attached functions, and callees such as atime updates take
 *            time-dependent paths: other callees' blocks are shown, not
 *            judged; callees named with -C must match exactly
 *     -O     (deep, with -x) arm Kprobes only in the attached functions
 *            and the -C callees: the others' blocks are shown unchecked
 *            (deep mode follows the scheduler: Kprobes on every context
 *            switch of the system make a cross-check run for minutes)
 *     -C F   (deep) callee F is reached only from the attached functions in
 *            this workload: its blocks must match exactly and its entry
 *            block must have run
 *     -S F   with -x: also probe the blocks listed in file F ("NAME ADDR"
 *            lines, ADDR in hex: a function's static blocks from `kjit
 *            blocks`); each that ran in the Kprobe run must lie in a
 *            block kjit counted: STATIC <name> kprobe=<n> <verdict>
 *     -c     pin to CPU
 *     -t R   timing (for the benchmarks): time R runs of N operations
 *            natively, under kjit without counting (KJIT_ATTACH_NO_COUNT),
 *            under kjit, (with -x) under the Kprobes on every block, and
 *            under one Kprobe per function entry; print TIME, NOCOUNT,
 *            ENTRYPROBE and PERBLOCK lines before the comparison (whose
 *            counts then cover all R runs). The native baseline is the
 *            mean of a timing first (after an untimed warm-up) and one
 *            last ("native-again"), as TCG drifts within a boot. Every
 *            mode is timed after an untimed warm-up as long as one timed
 *            run (kjit translates in it), medians compared. A cost no more than
 * the noise floor X (the native runs' max - min, per block or per op) reads
 * "below-noise(±X)", a ratio with kjit's cost below it
 *            ">=R" (R = Kprobes' cost / X): never a negative figure.
 *            PERBLOCK kjit=<c> ns [kprobes=<c> ns ratio=<r>] noise=<X> ns
 *     -I     the guest runs under QEMU -icount shift=0 (tests/vm/run.sh
 *            --icount), whose clock counts executed instructions: the -t
 *            lines say "insns" where they would say "ns"
 *     -L     the live session: no attach and no detach, the session
 *            that `kjit attach` made (deep, system-wide, with its own
 *            limits) is measured as it is: warm-up, reset, OP N, read;
 *            only the FUNCs' and the -C callees' blocks are reported
 *            (with -e, the entries of both must be exactly N: a -C
 *            callee is then one the attached FUNCs call once per OP).
 *            Not with -x, -t, -d or -A
 *     -A F   also attach every function whose address starts a line of
 *            file F (`kjit list` output), best effort, in the same session
 *            (thousands: they share one entry trampoline); only FUNC's
 *            blocks are reported and judged, and each FUNC must attach
 *
 * The measuring window holds nothing but the workload: counters are reset
 * and read with ioctls only, so the tool's own system calls (open, read,
 * mmap...) never land in the counts. Output, one line each:
 *   BLOCK <func>+0x<off> kjit=<n> kprobe=<n>|- <verdict>
 *     verdict: OK (equal), MISMATCH, NOPROBE(<err>), TIMING(...) (a
 *     bound, not an equality), or UNCHECKED(...) for a deep callee not
 *     named with -C, whose count no run can predict (see verdict())
 *   ENTRY <func> kjit=<n> expected=<N> <OK|MISMATCH>
 *   SUMMARY blocks=<b> crosschecked=<c> bounded=<t> unchecked=<u>
 *           mismatches=<m> entry_mismatches=<e>
 *     crosschecked counts only equalities; unchecked the NOPROBE and
 *     UNCHECKED blocks
 * Exit status 0 when there is no mismatch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "kmod/kjit_ioctl.h"
#include "kmod/companion/kjit_kprobes_ioctl.h"
#include "workload_ops.h"
#include "quiet_output.h"
#include "tools/report/noise.h"

#define MAX_BLOCKS 65536
static struct kjit_block_info blocks[MAX_BLOCKS];
static struct kjit_func_info funcs[65536];
static unsigned int nblocks, nfuncs;
/* -A: more functions to attach (addresses), and the FUNCs judged */
static unsigned long long *extra;
static int n_extra;
static char **named;
static int n_named;

static int parallel;
static int reps;
static int live; /* -L */
static unsigned int attach_flags;
static const char *exact[16];
static int n_exact;
/* -S: static blocks that the Kprobe run also probes */
static struct {
	char name[96];
	unsigned long long addr;
} statics[1024];
static unsigned int nstatics;

static int is_exact(const char *name)
{
	int i;

	for (i = 0; i < n_exact; i++)
		if (!strcmp(exact[i], name))
			return 1;
	return 0;
}

/* While workloads run, what they say on stderr (op_migrate's summary,
 * say) goes to a file, and reaches the real stderr only after the last
 * count: the case's output is a pipe that the rig's tee reads, and a read
 * of it inside a measuring window lands in pipe_read's counts (at a time
 * no run repeats: kjit's and the Kprobes' runs then differ by one). */
static int held_err = -1, saved_err = -1;

static void hold_stderr(void)
{
	fflush(stderr);
	saved_err = dup(2);
	held_err = open("/tmp/kjitcount.stderr", O_RDWR | O_CREAT | O_TRUNC,
			0600);
	if (saved_err < 0 || held_err < 0 || dup2(held_err, 2) < 0) {
		held_err = -1;
		return;
	}
	unlink("/tmp/kjitcount.stderr");
}

static void release_stderr(void)
{
	char buf[4096];
	ssize_t n;

	if (held_err < 0)
		return;
	fflush(stderr);
	dup2(saved_err, 2);
	lseek(held_err, 0, SEEK_SET);
	while ((n = read(held_err, buf, sizeof(buf))) > 0)
		if (write(2, buf, (size_t)n) != n)
			break;
	close(held_err);
	close(saved_err);
	held_err = saved_err = -1;
}

/* Right before a window opens: the case's output drained (quiet_output.h) */
static void quiet(void)
{
	if (quiet_output())
		fprintf(stderr, "kjitcount: the case's output pipe still busy "
				"after %d ms: its reader may be counted\n",
			QUIET_MAX_MS);
}

static void die(const char *what)
{
	int e = errno;

	release_stderr();
	fprintf(stderr, "kjitcount: %s: %s\n", what, strerror(e));
	exit(2);
}

static void read_statics(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f)
		die(path);
	while (nstatics < 1024 && fscanf(f, "%95s %llx", statics[nstatics].name,
					 &statics[nstatics].addr) == 2)
		nstatics++;
	fclose(f);
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* The native runs' extremes over both native timings (ns/op): their
 * spread is the noise floor (tools/report/noise.h). */
static struct spread native_all = {.min = 1e300, .max = 0};
/* What the clock counts: "ns", or "insns" with -I (QEMU -icount). */
static const char *unit = "ns";

/* Times reps runs of n operations; prints "TIME <what> median= min= max="
 * in ns per operation and returns the median. */
static double time_runs(const char *what, const char *op, long n)
{
	double t[64], t0;
	struct spread sp;
	int i;

	for (i = 0; i < reps; i++) {
		t0 = now_ns();
		if (run_op(op, n))
			die("timed workload");
		t[i] = (now_ns() - t0) / n;
	}
	spread_of(t, reps, &sp);
	printf("TIME %s median=%.1f min=%.1f max=%.1f %s/op (%d runs of %ld)\n",
	       what, sp.median, sp.min, sp.max, unit, reps, n);
	if (!strncmp(what, "native", 6)) {
		if (sp.min < native_all.min)
			native_all.min = sp.min;
		if (sp.max > native_all.max)
			native_all.max = sp.max;
	}
	return sp.median;
}

/* The untimed run before a timing: as long as a timed run, so that kjit
 * translates every block the timed runs take and the one-off translation
 * time stays out of them. */
static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/* The workload, here or (with -p) in one pinned child per CPU at once. */
static int run_load(const char *op, long n)
{
	int cpu, ncpu = parallel, status, bad = 0;

	if (!parallel)
		return run_op(op, n);
	for (cpu = 0; cpu < ncpu; cpu++) {
		if (fork() == 0) {
			pin(cpu);
			_exit(run_op(op, n) ? 1 : 0);
		}
	}
	for (cpu = 0; cpu < ncpu; cpu++)
		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad = 1;
	return bad;
}

/* The untimed run before a timing: as long as a timed run, so that kjit
 * translates every block the timed runs take and the one-off translation
 * time stays out of them. */
static void warm_up(const char *what, const char *op, long n)
{
	if (run_load(op, n))
		die(what);
}

/* The addresses that start lines of @path (-A). */
static void read_extra(const char *path)
{
	unsigned long long a;
	char line[512];
	int cap = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "0x%llx", &a) != 1)
			continue;
		if (n_extra == cap) {
			cap = cap ? 2 * cap : 4096;
			extra = realloc(extra, cap * sizeof(*extra));
			if (!extra)
				die("realloc");
		}
		extra[n_extra++] = a;
	}
	fclose(f);
}

/* FUNCs by name, then (-A) the extra functions by address, best effort:
 * every FUNC must attach all the same. */
static void attach(int fd, char **names, int n, unsigned int flags)
{
	struct kjit_target *t = calloc(n + n_extra, sizeof(*t));
	struct kjit_attach a = {.size = sizeof(a),
				.flags = flags,
				.n = n + n_extra,
				.targets = (uintptr_t)t};
	int i, bad = 0;

	if (!t)
		die("calloc");
	for (i = 0; i < n; i++)
		snprintf(t[i].name, sizeof(t[i].name), "%s", names[i]);
	for (i = 0; i < n_extra; i++)
		t[n + i].addr = extra[i];
	if (n_extra)
		a.flags |= KJIT_ATTACH_BEST_EFFORT;
	if (ioctl(fd, KJIT_IOC_ATTACH, &a))
		bad = 1;
	for (i = 0; i < n; i++)
		if (t[i].err) {
			fprintf(stderr, "kjitcount: %s: %s\n", names[i],
				t[i].why);
			bad = 1;
		}
	if (bad)
		die("attach");
	if (n_extra)
		printf("ATTACHED %u functions (%d named, %d more asked)\n",
		       a.attached, n, n_extra);
	free(t);
}

static int is_named(const struct kjit_func_info *f)
{
	int i;

	for (i = 0; i < n_named; i++)
		if (!f->deep && !strcmp(f->name, named[i]))
			return 1;
	return live && f->deep && is_exact(f->name);
}

/* -A: keep only the blocks of the FUNCs, which alone are judged (the other
 * functions run at the whim of the rest of the system). */
static void keep_named(void)
{
	unsigned int i, k = 0;

	for (i = 0; i < nblocks; i++)
		if (is_named(&funcs[blocks[i].func]))
			blocks[k++] = blocks[i];
	printf("NAMED %u of %u blocks belong to the named functions\n", k,
	       nblocks);
	nblocks = k;
}

/*
 * The measuring requests go through the ioctl system call, which a session
 * may attach as a root (its every block checked exactly): the kjit window
 * ends in a KJIT_IOC_BLOCKS, the Kprobe window in a KJITKP_IOC_READ, and
 * the system call's entry path runs until each reads the counts. Which of
 * its blocks that path takes depends on the command's value (the compiler
 * lays out do_vfs_ioctl()'s switch as it likes: on make sanitize's kernel
 * the two commands took different blocks, kjit=1 kprobe=0). So each
 * window also makes the other's request first, with a NULL argument
 * (EFAULT at once): both then run one whole request and the entry of the
 * other, the same blocks. The resets before each window leave only the
 * common return path.
 */
static int kjit_fd = -1, kp_fd = -1;

static void mirror(int fd, unsigned long cmd)
{
	if (fd >= 0)
		ioctl(fd, cmd, NULL);
}

static void read_results(int fd)
{
	struct kjit_blocks b = {
	    .size = sizeof(b), .max = MAX_BLOCKS, .buf = (uintptr_t)blocks};
	struct kjit_funcs f = {.size = sizeof(f),
			       .max = sizeof(funcs) / sizeof(funcs[0]),
			       .buf = (uintptr_t)funcs,
			       .info_size = sizeof(funcs[0])};

	if (ioctl(fd, KJIT_IOC_BLOCKS, &b) || ioctl(fd, KJIT_IOC_FUNCS, &f))
		die("read results");
	nblocks = b.written;
	nfuncs = f.written;
	if (b.written < b.total || f.written < f.total) {
		errno = ENOSPC;
		die("read results: more blocks or functions than room");
	}
	if (n_extra || live)
		keep_named();
}

static double kprobe_ns, nocount_ns, entry_ns;

/* Arm Kprobes on @n addresses, or disarm (n = 0). */
static int arm(int fd, const unsigned long long *addrs, unsigned int n,
	       int *errs)
{
	struct kjitkp_arm a = {.size = sizeof(a),
			       .n = n,
			       .addrs = (uintptr_t)addrs,
			       .errs = (uintptr_t)errs};

	return ioctl(fd, KJITKP_IOC_ARM, &a);
}

/* Timing only: one Kprobe on each attached function's entry (what a
 * function-level probe costs), not on its blocks. */
static void time_entry_probes(const char *op, long n)
{
	static unsigned long long addrs[sizeof(funcs) / sizeof(funcs[0])];
	static int errs[sizeof(funcs) / sizeof(funcs[0])];
	unsigned int i, k = 0;
	int fd = open(KJITKP_DEVICE, O_RDWR);

	if (fd < 0)
		die(KJITKP_DEVICE);
	for (i = 0; i < nfuncs; i++)
		if (!funcs[i].deep)
			addrs[k++] = funcs[i].start;
	if (arm(fd, addrs, k, errs))
		die("arm entry kprobes");
	warm_up("workload under entry Kprobes", op, n);
	entry_ns = time_runs("kprobe-entry", op, n);
	arm(fd, addrs, 0, errs);
	close(fd);
}

/* Timing only: kjit attached with KJIT_ATTACH_NO_COUNT, the cost of
 * running from the cache without counting anything. */
static void time_nocount(int fd, char **names, int n_names, const char *op,
			 long n)
{
	attach(fd, names, n_names, attach_flags | KJIT_ATTACH_NO_COUNT);
	warm_up("workload under kjit (no counting)", op, n);
	nocount_ns = time_runs("kjit-nocount", op, n);
	if (ioctl(fd, KJIT_IOC_DETACH, 0))
		die("detach");
}

static int probe_only; /* -O */

/* Is @name part of a checker's runtime (lockdep, KASAN, KCSAN, KFENCE,
 * UBSAN, debug objects: make sanitize's kernels)? A Kprobe there recurses:
 * its handler takes locks, which run lockdep, which hits the Kprobe
 * ("Unrecoverable kprobe detected" in lockdep_hardirqs_on_prepare). */
static int is_checker(const char *name)
{
	static const char *const prefix[] = {
	    "lockdep",	 "lock_acquire",  "lock_release",  "__lock_",
	    "lock_is_held", "mark_lock",  "mark_usage",    "mark_held_locks",
	    "validate_chain", "check_prev", "lookup_chain", "add_chain",
	    "hlock_",	 "look_up_lock",  "register_lock_class",
	    "find_held_lock", "match_held_lock", "check_flags", "kasan_",
	    "__kasan",	 "__asan",	  "kcsan_",	   "__kcsan",
	    "__tsan",	 "__ubsan",	  "kfence_",	   "__kfence",
	    "debug_object", "__debug_object", "debug_check_no",
	    "trace_hardirqs", "lock_pin", "lock_unpin", "lock_repin",
	    "lock_downgrade", "lock_set_class", "lock_sync",
	};
	size_t i;

	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

/* No Kprobe in a deep callee that is not named with -C under -O, nor in
 * one of a checker's runtime. */
static int is_skipped(const struct kjit_func_info *f)
{
	return f->deep && !is_exact(f->name) &&
	       (probe_only || is_checker(f->name));
}

/* Kprobe counts for every block address (errs: register_kprobe result;
 * -ENOENT for the blocks -O leaves without one: read as unchecked). */
static void kprobe_counts(const char *op, long n, unsigned long long *cnt,
			  int *errs)
{
	static unsigned long long addrs[MAX_BLOCKS + 1024];
	static unsigned int armed[MAX_BLOCKS + 1024];
	struct kjitkp_arm a = {.size = sizeof(a),
			       .n = nblocks + nstatics,
			       .addrs = (uintptr_t)addrs,
			       .errs = (uintptr_t)errs};
	struct kjitkp_read r = {.size = sizeof(r),
				.n = nblocks + nstatics,
				.counts = (uintptr_t)cnt};
	unsigned int i, k;
	int fd = open(KJITKP_DEVICE, O_RDWR);

	if (fd < 0)
		die(KJITKP_DEVICE);
	for (i = 0, k = 0; i < nblocks; i++)
		if (!is_skipped(&funcs[blocks[i].func])) {
			armed[k] = i;
			addrs[k++] = blocks[i].orig;
		}
	for (i = 0; i < nstatics; i++) {
		armed[k] = nblocks + i;
		addrs[k++] = statics[i].addr;
	}
	a.n = r.n = k;
	if (ioctl(fd, KJITKP_IOC_ARM, &a))
		die("arm kprobes");
	if (reps)
		warm_up("workload under Kprobes", op, n);
	run_load(op, 10);
	quiet();
	if (ioctl(fd, KJITKP_IOC_RESET, 0))
		die("kprobe reset");
	if (reps)
		kprobe_ns = time_runs("kprobes", op, n);
	else if (run_load(op, n))
		die("kprobe run");
	mirror(kjit_fd, KJIT_IOC_BLOCKS);
	if (ioctl(fd, KJITKP_IOC_READ, &r))
		die("kprobe read");
	a.n = 0;
	ioctl(fd, KJITKP_IOC_ARM, &a);
	close(fd);
	/* spread the packed results back to their blocks (armed[] only
	 * grows, so from the end nothing is overwritten before it moves) */
	for (i = k; i-- > 0 && armed[i] != i;) {
		cnt[armed[i]] = cnt[i];
		errs[armed[i]] = errs[i];
	}
	for (i = 0, k = 0; i < nblocks; i++)
		if (is_skipped(&funcs[blocks[i].func])) {
			cnt[i] = 0;
			errs[i] = -ENOENT;
		}
}

/* kjit's count of the block at @orig (0: never translated, never ran). */
static unsigned long long kjit_count_at(unsigned long long orig)
{
	unsigned int i;

	for (i = 0; i < nblocks; i++)
		if (blocks[i].orig == orig)
			return blocks[i].count;
	return 0;
}

/*
 * Executions of other blocks that run through @b's first address without
 * starting there: blocks are not split at branch targets, so a block
 * entered by a jump (a loop head) may also lie inside a longer block that
 * reaches it by falling through. A Kprobe at the address counts both; a
 * block has no exit before its end, so every execution of the longer one
 * passes there.
 */
static unsigned long long through(const struct kjit_block_info *b)
{
	unsigned long long n = 0;
	unsigned int i;

	for (i = 0; i < nblocks; i++)
		if (blocks[i].orig < b->orig &&
		    b->orig < blocks[i].orig + blocks[i].orig_len)
			n += blocks[i].count;
	return n;
}

/*
 * The verdict on block @b, which the Kprobe counted @kc times: NULL if the
 * counts disagree. Exact (kjit's count plus the executions of blocks that
 * run through its address, through()), except:
 *  - a deep callee not named with -C: Kprobes count its calls from
 *    everywhere, and callees take data- and time-dependent paths;
 *  - where a preemption point returns (KJIT_BLOCK_PREEMPT_RET): each run
 *    adds its own, timing-decided number of preemptions P (the point itself
 *    cannot be probed: it is a static call site). kjit's P is the point's
 *    count, so the rest, base = count - P, must be no more than the
 *    Kprobe's, and the Kprobe run's own preemptions there, kc - base, no
 *    more than one per operation (@n) or per execution of the base path.
 */
static const char *verdict(const struct kjit_block_info *b,
			   unsigned long long kc, int loose, long n)
{
	unsigned long long p, base, most, t = through(b);

	if (kc == b->count)
		return "OK";
	if (t && kc == b->count + t)
		return "OK(also run through by a longer block)";
	if (loose)
		return kc > b->count
			   ? "UNCHECKED(callee also called elsewhere)"
			   : "UNCHECKED(callee: data- or time-dependent path)";
	if (b->flags & KJIT_BLOCK_PREEMPT_RET) {
		p = kjit_count_at(b->orig - 5);
		base = p >= b->count ? 0 : b->count - p;
		most =
		    base > (unsigned long long)n ? base : (unsigned long long)n;
		if (base <= kc && kc - base <= most)
			return "TIMING(a preemption point returns here)";
	}
	return NULL;
}

static int report(long n, int entry, int cross, const unsigned long long *kc,
		  const int *errs)
{
	unsigned int i, checked = 0, bounded = 0, unchecked = 0, bad = 0,
			ebad = 0, seen_exact = 0, entries = 0;

	for (i = 0; i < nblocks; i++) {
		const struct kjit_block_info *b = &blocks[i];
		const struct kjit_func_info *f = &funcs[b->func];
		int loose = f->deep && !is_exact(f->name);
		const char *v =
		    cross && !errs[i]
			? verdict(b, kc[i], loose, parallel ? n * parallel : n)
			: "";
		/* A block no Kprobe can sit on (a reserved site: static
		 * call, jump label; an address the kprobe decoder rejects)
		 * stays unchecked: counted in the summary, never silent. */
		int ok = v != NULL;

		printf("BLOCK %s+0x%llx kjit=%llu", f->name,
		       (unsigned long long)(b->orig - f->start),
		       (unsigned long long)b->count);
		if (!cross)
			printf("\n");
		else if (errs[i])
			printf(" kprobe=- NOPROBE(%d)%s\n", errs[i],
			       b->flags & KJIT_BLOCK_PREEMPT
				   ? " preemption point"
				   : " unchecked");
		else
			printf(" kprobe=%llu %s\n", kc[i], ok ? v : "MISMATCH");
		/* equal (or equal with a longer block's runs added) is a
		 * check; a bound (TIMING) is not, nor a callee shown loose */
		checked += cross && !errs[i] && ok && !strncmp(v, "OK", 2);
		bounded += cross && !errs[i] && ok && !strncmp(v, "TIMING", 6);
		unchecked += cross && (errs[i] || (ok && v[0] == 'U'));
		bad += !ok;
		if (f->deep && is_exact(f->name) && b->orig == f->start)
			seen_exact++;
		if (entry && ((!f->deep && b->orig == f->entry) ||
			      (live && f->deep && b->orig == f->start))) {
			int e_ok = b->count == (unsigned long long)n &&
				   (!parallel || b->cpus == parallel);

			printf("ENTRY %s kjit=%llu expected=%ld cpus=%u %s\n",
			       f->name, (unsigned long long)b->count, n,
			       b->cpus, e_ok ? "OK" : "MISMATCH");
			ebad += !e_ok;
			entries++;
		}
	}
	for (i = 0; cross && i < nstatics; i++) {
		unsigned long long a = statics[i].addr, c = kc[nblocks + i];
		unsigned int k, in = 0;

		for (k = 0; k < nblocks; k++)
			in |= blocks[k].count && blocks[k].orig <= a &&
			      a < blocks[k].orig + blocks[k].orig_len;
		if (errs[nblocks + i])
			printf("STATIC %s kprobe=- NOPROBE(%d)\n",
			       statics[i].name, errs[nblocks + i]);
		else
			printf("STATIC %s kprobe=%llu %s\n", statics[i].name, c,
			       !c   ? "never ran"
			       : in ? "counted by kjit"
				    : "UNCOVERED");
		bad += c && !in && !errs[nblocks + i];
	}
	/* -L: a FUNC not in the live session (or whose entry never ran)
	 * must not pass for one that counted exactly */
	if (live && entry && entries != (unsigned int)(n_named + n_exact)) {
		printf("MISSING: %d FUNC(s) or -C callee(s) with no entry "
		       "block in the live session\n",
		       n_named + n_exact - (int)entries);
		ebad++;
	}
	if (seen_exact != (unsigned int)n_exact) {
		printf("MISSING: %d callee(s) named with -C never ran under "
		       "kjit\n",
		       n_exact - (int)seen_exact);
		ebad++;
	}
	printf("SUMMARY blocks=%u crosschecked=%u bounded=%u unchecked=%u "
	       "mismatches=%u entry_mismatches=%u\n",
	       nblocks, checked, bounded, unchecked, bad, ebad);
	return bad || ebad;
}

static double native_ns, kjit_ns;

/* Blocks executed per operation (kjit's own counts), and the added cost
 * per executed block of kjit and of the Kprobes: a figure, or
 * "below-noise(±X)" where it is no more than the noise floor X, the native
 * runs' spread (max - min over both native timings) per block. Never a
 * negative cost or ratio (tools/report/noise.c). */
static int report_timing(double ops)
{
	unsigned long long total = 0;
	unsigned int i;
	double per_op, noise;
	char kj[48], kp[48], r[48];

	for (i = 0; i < nblocks; i++)
		total += blocks[i].count;
	per_op = total / ops;
	printf("BLOCKS_PER_OP %.2f (%u distinct blocks)\n", per_op, nblocks);
	printf("NOCOUNT kjit-nocount/native=%.3f kjit/native=%.3f\n",
	       nocount_ns / native_ns, kjit_ns / native_ns);
	if (entry_ns > 0) {
		cost_format(kj, sizeof(kj), entry_ns - native_ns,
			    noise_floor(&native_all, 1), 1);
		printf("ENTRYPROBE added=%s %s/op (one Kprobe per function "
		       "entry)\n",
		       kj, unit);
	}
	noise = noise_floor(&native_all, per_op);
	cost_format(kj, sizeof(kj), (kjit_ns - native_ns) / per_op, noise, 1);
	printf("PERBLOCK kjit=%s %s", kj, unit);
	if (kprobe_ns > 0) {
		cost_format(kp, sizeof(kp), (kprobe_ns - native_ns) / per_op,
			    noise, 1);
		ratio_format(r, sizeof(r), (kprobe_ns - native_ns) / per_op,
			     noise, (kjit_ns - native_ns) / per_op, noise, 1);
		printf(" kprobes=%s %s ratio=%s", kp, unit, r);
	}
	printf(" noise=%.2f %s\n", noise, unit);
	return 0;
}

int main(int argc, char **argv)
{
	static unsigned long long kc[MAX_BLOCKS + 1024];
	static int errs[MAX_BLOCKS + 1024];
	int entry = 0, cross = 0, opt, fd;
	long n;

	while ((opt = getopt(argc, argv, "c:pexdt:C:OIA:S:L")) != -1) {
		if (opt == 'L') {
			live = 1;
		} else if (opt == 'S') {
			read_statics(optarg);
		} else if (opt == 'A') {
			read_extra(optarg);
		} else if (opt == 'I') {
			unit = "insns";
		} else if (opt == 'O') {
			probe_only = 1;
		} else if (opt == 'C' && n_exact < 16) {
			exact[n_exact++] = optarg;
		} else if (opt == 'd') {
			attach_flags |= KJIT_ATTACH_DEEP;
		} else if (opt == 't') {
			reps = atoi(optarg);
			if (reps < 1 || reps > 64)
				return 2;
		} else if (opt == 'c') {
			pin(atoi(optarg));
		} else if (opt == 'p') {
			parallel = (int)sysconf(_SC_NPROCESSORS_ONLN);
		} else if (opt == 'e') {
			entry = 1;
		} else if (opt == 'x') {
			cross = 1;
		} else {
			return 2;
		}
	}
	if (argc - optind < 3 || (n_extra && (attach_flags || reps)) ||
	    (live && (cross || reps || attach_flags || n_extra))) {
		fprintf(stderr, "usage: kjitcount [-c CPU] [-p] [-d] [-e] [-x] "
				"[-t R] [-I] [-A FILE] [-L] OP N FUNC...\n"
				"(-A: not with -d or -t; -L: not with -x, -t, "
				"-d or -A)\n");
		return 2;
	}
	named = argv + optind + 2;
	n_named = argc - optind - 2;
	n = atol(argv[optind + 1]);
	fd = open(KJIT_DEVICE, O_RDWR);
	if (fd < 0)
		die(KJIT_DEVICE);
	kjit_fd = fd;
	if (cross) {
		kp_fd = open(KJITKP_DEVICE, O_RDWR);
		if (kp_fd < 0)
			die(KJITKP_DEVICE);
	}
	hold_stderr();
	if (reps) {
		if (run_load(argv[optind], n)) /* warm caches: untimed */
			die("warm-up");
		native_ns = time_runs("native", argv[optind], n);
		time_nocount(fd, argv + optind + 2, argc - optind - 2,
			     argv[optind], n);
	}
	if (!live)
		attach(fd, argv + optind + 2, argc - optind - 2, attach_flags);
	if (reps)
		warm_up("workload under kjit", argv[optind], n);
	if (run_load(argv[optind], 10))
		die("workload under kjit");
	quiet();
	if (ioctl(fd, KJIT_IOC_RESET, 0))
		die("kjit reset");
	if (reps)
		kjit_ns = time_runs("kjit", argv[optind], n);
	else if (run_load(argv[optind], n))
		die("workload under kjit");
	mirror(kp_fd, KJITKP_IOC_READ);
	read_results(fd);
	if (!live && ioctl(fd, KJIT_IOC_DETACH, 0))
		die("detach");
	if (cross)
		kprobe_counts(argv[optind], n, kc, errs);
	if (reps) {
		time_entry_probes(argv[optind], n);
		/* TCG drifts within a boot: the baseline is the mean of a
		 * native timing before and after the others */
		native_ns =
		    (native_ns + time_runs("native-again", argv[optind], n)) /
		    2;
	}
	release_stderr();
	if (reps) {
		report_timing((double)n * reps);
		n *= reps; /* the counts cover every timed run */
	}
	return report(parallel ? n * parallel : n, entry, cross, kc, errs);
}
