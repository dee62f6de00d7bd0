/*
 * kjitbench.c - the control side of the macro benchmarks (bench/lmbench.sh):
 * attach and detach kjit, read its statistics, put the kjit_kprobes oracle
 * on the blocks kjit translated, and time attach itself.
 *
 *   kjitbench attach [-d] FUNC...   best-effort attach (-d: deep); refused
 *                                   targets are named, the rest attached
 *   kjitbench detach
 *   kjitbench reset                 zero the session's counters
 *   kjitbench stats LABEL           the session's statistics, one line
 *   kjitbench kprobes-on [-n MAX] [MAXWAIT]
 *                                   a counting Kprobe on every block of the
 *                                   last kjit session (the MAX most executed
 *                                   ones when there are more; at most
 *                                   KJITKP_MAX), then wait (at most MAXWAIT
 *                                   s, default 60) until the Kprobe optimizer
 *                                   has stopped converting them
 *   kjitbench kprobes-off           disarm; print the hits
 *   kjitbench attach-time [-r R] N...  attach the first N of 64 system call
 *                                   entry points, shallow then deep, R times
 *                                   each (default 3); median attach and
 *                                   detach times
 *   kjitbench attach-list [-r R] FILE N...  the same for N functions spread
 *                                   over the addresses FILE lists (kjit list
 *                                   --ok output; N 0: all of them), shallow
 *
 * Output lines (machine-read by bench/lmbench-report.sh):
 *   REFUSED <func> <errno> <why>
 *   ATTACHED <attached> of <n> ms=<attach time>
 *   DETACHED ms=<detach time>
 *   STATS <label> key=value...
 *   REFUSALS <label> <reason>=<blocks the translator refused, by reason>
 *   KPROBES key=value...
 *   ATTACHTIME mode=<shallow|deep|list> n=<N> attached=<A> attach_ms=<med>
 *              attach_min=.. attach_max=.. detach_ms=<med> ...
 * Exit status 0, 1 when a request failed, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "kmod/kjit_ioctl.h"
#include "kmod/companion/kjit_kprobes_ioctl.h"
/* The translator's names for its refusal codes (guest programs are single
 * files, so the one definition is compiled in here). */
#include "jit/reason.c"

#define KPROBES_LIST "/sys/kernel/debug/kprobes/list"
#define KPROBES_OPT  "/proc/sys/debug/kprobes-optimization"
#define RCU_EXPEDITE "/sys/kernel/rcu_expedited"
#define MAX_BLOCKS   65536
#define MAX_REPS     16

static int kjit_fd = -1;

static int die(const char *what)
{
	fprintf(stderr, "kjitbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int kjit(void)
{
	if (kjit_fd < 0)
		kjit_fd = open(KJIT_DEVICE, O_RDWR);
	if (kjit_fd < 0)
		die(KJIT_DEVICE);
	return kjit_fd;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ---- attach and detach ------------------------------------------------ */

/* Best-effort attach of n named functions; returns how many were attached
 * and their time in *ms, or -1. Refusals are printed when loud. */
static int attach(char **names, int n, unsigned int flags, int loud, double *ms)
{
	struct kjit_target *t = calloc(n, sizeof(*t));
	struct kjit_attach a = {.size = sizeof(a),
				.flags = flags | KJIT_ATTACH_BEST_EFFORT,
				.n = n,
				.targets = (uintptr_t)t};
	double t0;
	int i, rc;

	if (!t)
		die("calloc");
	for (i = 0; i < n; i++) /* a name, or an address 0x... */
		if (!strncmp(names[i], "0x", 2))
			t[i].addr = strtoull(names[i], NULL, 16);
		else
			snprintf(t[i].name, sizeof(t[i].name), "%s", names[i]);
	t0 = now_ms();
	rc = ioctl(kjit(), KJIT_IOC_ATTACH, &a);
	*ms = now_ms() - t0;
	for (i = 0; loud && i < n; i++)
		if (t[i].err)
			printf("REFUSED %s %d %s\n", names[i], t[i].err,
			       t[i].why[0] ? t[i].why : strerror(-t[i].err));
	free(t);
	return rc ? -1 : (int)a.attached;
}

static double detach(void)
{
	double t0 = now_ms();

	if (ioctl(kjit(), KJIT_IOC_DETACH, 0))
		die("detach");
	return now_ms() - t0;
}

static int cmd_attach(int argc, char **argv)
{
	unsigned int flags = 0;
	double ms;
	int n;

	if (argc > 0 && !strcmp(argv[0], "-d")) {
		flags = KJIT_ATTACH_DEEP;
		argc--;
		argv++;
	}
	if (argc < 1 || (unsigned int)argc > KJIT_MAX_TARGETS)
		return 2;
	n = attach(argv, argc, flags, 1, &ms);
	if (n < 0)
		die("attach");
	printf("ATTACHED %d of %d ms=%.1f\n", n, argc, ms);
	return 0;
}

/* ---- statistics ------------------------------------------------------- */

static struct kjit_block_info blocks[MAX_BLOCKS];

/* The last session's blocks (at most MAX_BLOCKS); returns the total. */
static unsigned int read_blocks(unsigned int *written)
{
	struct kjit_blocks b = {
	    .size = sizeof(b), .max = MAX_BLOCKS, .buf = (uintptr_t)blocks};

	if (ioctl(kjit(), KJIT_IOC_BLOCKS, &b))
		die("blocks");
	*written = b.written;
	return b.total;
}

static int cmd_stats(const char *label)
{
	struct kjit_session_stats s = {.size = sizeof(s)};
	unsigned long long bytes = 0, execs = 0;
	unsigned int i, total, n;

	if (ioctl(kjit(), KJIT_IOC_STATS, &s))
		die("stats");
	total = read_blocks(&n);
	for (i = 0; i < n; i++)
		execs += blocks[i].count;
	for (i = 0; i < s.ncpus && i < KJIT_STAT_CPUS; i++)
		bytes += s.bytes[i];
	printf("STATS %s blocks=%u executions=%llu funcs=%u deep_funcs=%u "
	       "over_budget=%llu translated=%llu translate_ns=%llu "
	       "ns_per_block=%.0f cache_bytes=%llu bytes_per_block=%.0f "
	       "cpu0_bytes=%llu cpu1_bytes=%llu fallback_nmi=%llu "
	       "fallback_nested=%llu fallback_refused=%llu fallback_full=%llu "
	       "dispatches=%llu over_funcs=%u fallback_map_full=%llu "
	       "pcpu_full=%llu mem_bytes=%llu lookup_hits=%llu "
	       "native_links=%llu pcpu_growing=%llu\n",
	       label, total, execs, s.n_funcs, s.deep_funcs,
	       (unsigned long long)s.deep_over_budget,
	       (unsigned long long)s.translated,
	       (unsigned long long)s.translate_ns,
	       s.translated ? (double)s.translate_ns / s.translated : 0.0,
	       bytes, s.translated ? (double)bytes / s.translated : 0.0,
	       (unsigned long long)s.bytes[0], (unsigned long long)s.bytes[1],
	       (unsigned long long)s.fallback[0],
	       (unsigned long long)s.fallback[1],
	       (unsigned long long)s.fallback[2],
	       (unsigned long long)s.fallback[3],
	       (unsigned long long)s.dispatches, s.deep_over_funcs,
	       (unsigned long long)s.fallback[6],
	       (unsigned long long)s.pcpu_full, (unsigned long long)s.mem_bytes,
	       (unsigned long long)s.lookup_hits,
	       (unsigned long long)s.native_links,
	       (unsigned long long)s.pcpu_growing);
	for (i = 0; i < KJIT_REFUSE_REASONS && i < KJIT_R_COUNT; i++)
		if (s.refused[i])
			printf("REFUSALS %s %s=%llu\n", label,
			       kjit_reason_name((enum kjit_reason)i),
			       (unsigned long long)s.refused[i]);
	return 0;
}

/* ---- Kprobes on kjit's blocks ----------------------------------------- */

static int by_count_desc(const void *a, const void *b)
{
	const struct kjit_block_info *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static int kprobes_fd(void)
{
	int fd = open(KJITKP_DEVICE, O_RDWR);

	if (fd < 0)
		die(KJITKP_DEVICE);
	return fd;
}

/* Lines of the Kprobe list marked [OPTIMIZED]. */
static int optimized(void)
{
	char line[512];
	FILE *f = fopen(KPROBES_LIST, "r");
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, "[OPTIMIZED]") != NULL;
	if (f)
		fclose(f);
	return n;
}

static int sysctl_value(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (f && fscanf(f, "%d", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

/* Expedited RCU grace periods on (1) or off (0). Arming and disarming
 * thousands of Kprobes waits for a grace period per probe (unregister,
 * optimizer), which under TCG costs tens of ms each; only those phases run
 * expedited, never a measurement. */
static void expedite(int on)
{
	FILE *f = fopen(RCU_EXPEDITE, "w");

	if (f) {
		fprintf(f, "%d\n", on);
		fclose(f);
	}
}

/* Waits until the optimized count has not moved for 3 s (or max_s). */
static void wait_optimizer(int max_s)
{
	double t0 = now_ms();
	int last = -1, now, still = 0;

	while (still < 3 && now_ms() - t0 < max_s * 1e3) {
		sleep(1);
		now = optimized();
		still = now == last ? still + 1 : 0;
		last = now;
	}
	printf("KPROBES optimized=%d optimization=%d waited_s=%.0f\n", last,
	       sysctl_value(KPROBES_OPT), (now_ms() - t0) / 1e3);
}

/* Prints how many probes the kernel refused, by error. */
static void print_refusals(const int *errs, unsigned int n)
{
	int seen[8] = {0}, count[8] = {0}, k, kinds = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!errs[i])
			continue;
		for (k = 0; k < kinds && seen[k] != errs[i]; k++)
			;
		if (k == kinds && kinds < 8)
			seen[kinds++] = errs[i];
		if (k < 8)
			count[k]++;
	}
	for (k = 0; k < kinds; k++)
		printf("KPROBES refused_errno=%d (%s) count=%d\n", seen[k],
		       strerror(-seen[k]), count[k]);
}

static int cmd_kprobes_on(unsigned int max, int max_s)
{
	static unsigned long long addrs[KJITKP_MAX];
	static int errs[KJITKP_MAX];
	struct kjitkp_arm a = {.size = sizeof(a),
			       .addrs = (uintptr_t)addrs,
			       .errs = (uintptr_t)errs};
	unsigned long long all = 0, covered = 0;
	unsigned int i, total, n;
	double t0;
	int fd = kprobes_fd();

	if (max > KJITKP_MAX)
		max = KJITKP_MAX;
	total = read_blocks(&n);
	if (n > max)
		qsort(blocks, n, sizeof(blocks[0]), by_count_desc);
	a.n = n > max ? max : n;
	for (i = 0; i < n; i++)
		all += blocks[i].count;
	for (i = 0; i < a.n; i++) {
		addrs[i] = blocks[i].orig;
		covered += blocks[i].count;
	}
	expedite(1);
	t0 = now_ms();
	if (ioctl(fd, KJITKP_IOC_ARM, &a))
		die("arm kprobes");
	printf("KPROBES blocks=%u armed=%u refused=%u capped=%u arm_ms=%.0f "
	       "covered_pct=%.2f\n",
	       total, a.armed, a.n - a.armed, total > a.n ? total - a.n : 0,
	       now_ms() - t0, all ? 100.0 * covered / all : 0.0);
	print_refusals(errs, a.n);
	if (total > a.n)
		printf("KPROBES note: at most %u armed: the %u most executed "
		       "blocks are probed, %u are not\n",
		       max, a.n, total - a.n);
	fflush(stdout);
	wait_optimizer(max_s);
	expedite(0);
	if (ioctl(fd, KJITKP_IOC_RESET, 0))
		die("kprobes reset");
	close(fd);
	return 0;
}

static int cmd_kprobes_off(void)
{
	static unsigned long long counts[KJITKP_MAX];
	struct kjitkp_read r = {
	    .size = sizeof(r), .n = KJITKP_MAX, .counts = (uintptr_t)counts};
	struct kjitkp_arm a = {.size = sizeof(a)};
	unsigned long long hits = 0;
	unsigned int i;
	double t0;
	int fd = kprobes_fd();

	if (ioctl(fd, KJITKP_IOC_READ, &r))
		die("kprobes read");
	for (i = 0; i < r.n; i++)
		hits += counts[i];
	expedite(1);
	t0 = now_ms();
	if (ioctl(fd, KJITKP_IOC_ARM, &a))
		die("disarm kprobes");
	expedite(0);
	printf("KPROBES off hits=%llu disarm_ms=%.0f\n", hits, now_ms() - t0);
	close(fd);
	return 0;
}

/* ---- attach time ------------------------------------------------------ */

/* 64 system call entry points (none of them ends or replaces the task). */
#define N_SYSCALLS 64
static char *syscalls[N_SYSCALLS] = {
    "__x64_sys_getpid",	      "__x64_sys_read",
    "__x64_sys_write",	      "__x64_sys_openat",
    "__x64_sys_close",	      "__x64_sys_newstat",
    "__x64_sys_newfstat",     "__x64_sys_newlstat",
    "__x64_sys_poll",	      "__x64_sys_lseek",
    "__x64_sys_mmap",	      "__x64_sys_mprotect",
    "__x64_sys_munmap",	      "__x64_sys_brk",
    "__x64_sys_rt_sigaction", "__x64_sys_rt_sigprocmask",
    "__x64_sys_ioctl",	      "__x64_sys_pread64",
    "__x64_sys_pwrite64",     "__x64_sys_readv",
    "__x64_sys_writev",	      "__x64_sys_access",
    "__x64_sys_pipe",	      "__x64_sys_select",
    "__x64_sys_sched_yield",  "__x64_sys_mremap",
    "__x64_sys_msync",	      "__x64_sys_mincore",
    "__x64_sys_madvise",      "__x64_sys_dup",
    "__x64_sys_dup2",	      "__x64_sys_nanosleep",
    "__x64_sys_getitimer",    "__x64_sys_alarm",
    "__x64_sys_setitimer",    "__x64_sys_getppid",
    "__x64_sys_socket",	      "__x64_sys_connect",
    "__x64_sys_accept",	      "__x64_sys_sendto",
    "__x64_sys_recvfrom",     "__x64_sys_sendmsg",
    "__x64_sys_recvmsg",      "__x64_sys_shutdown",
    "__x64_sys_bind",	      "__x64_sys_listen",
    "__x64_sys_getsockname",  "__x64_sys_getpeername",
    "__x64_sys_socketpair",   "__x64_sys_setsockopt",
    "__x64_sys_getsockopt",   "__x64_sys_uname",
    "__x64_sys_fcntl",	      "__x64_sys_flock",
    "__x64_sys_fsync",	      "__x64_sys_fdatasync",
    "__x64_sys_truncate",     "__x64_sys_ftruncate",
    "__x64_sys_getdents64",   "__x64_sys_getcwd",
    "__x64_sys_chdir",	      "__x64_sys_fchdir",
    "__x64_sys_mkdir",	      "__x64_sys_rmdir",
};

static void time_names(char **names, int n, unsigned int flags, int reps,
		       const char *mode)
{
	double at[MAX_REPS], dt[MAX_REPS];
	int i, got = 0;

	for (i = 0; i < reps; i++) {
		got = attach(names, n, flags,
			     i == 0 && (n <= 64 || !strcmp(mode, "list")),
			     &at[i]);
		if (got < 0)
			die("attach");
		dt[i] = detach();
	}
	qsort(at, reps, sizeof(at[0]), cmp_double);
	qsort(dt, reps, sizeof(dt[0]), cmp_double);
	printf("ATTACHTIME mode=%s n=%d attached=%d attach_ms=%.1f "
	       "attach_min=%.1f attach_max=%.1f detach_ms=%.1f detach_min=%.1f "
	       "detach_max=%.1f reps=%d\n",
	       mode, n, got, at[reps / 2], at[0], at[reps - 1], dt[reps / 2],
	       dt[0], dt[reps - 1], reps);
	fflush(stdout);
}

static void attach_time(int n, unsigned int flags, int reps)
{
	time_names(syscalls, n, flags, reps, flags ? "deep" : "shallow");
}

static int cmd_attach_time(int argc, char **argv)
{
	int reps = 3, i, n;

	if (argc > 1 && !strcmp(argv[0], "-r")) {
		reps = atoi(argv[1]);
		argc -= 2;
		argv += 2;
	}
	if (reps < 1 || reps > MAX_REPS)
		return 2;
	for (i = 0; i < argc; i++) {
		n = atoi(argv[i]);
		if (n < 1 || n > N_SYSCALLS)
			return 2;
		attach_time(n, 0, reps);
		attach_time(n, KJIT_ATTACH_DEEP, reps);
	}
	return 0;
}

/* attach-list [-r R] FILE N...: of the functions whose addresses start
 * the lines of FILE (`kjit list --ok` output, aliases once), N spread
 * evenly over the file (0: all), shallow, R times each. */
static int cmd_attach_list(int argc, char **argv)
{
	static char buf[1 << 18][20];
	static char *all[1 << 18], *pick[1 << 18];
	unsigned long long a, prev = 0;
	int reps = 3, i, k, n, total = 0;
	char line[512];
	FILE *f;

	if (argc > 1 && !strcmp(argv[0], "-r")) {
		reps = atoi(argv[1]);
		argc -= 2;
		argv += 2;
	}
	if (reps < 1 || reps > MAX_REPS || argc < 2)
		return 2;
	f = fopen(argv[0], "r");
	if (!f)
		die(argv[0]);
	while (fgets(line, sizeof(line), f) && total < (1 << 18))
		if (sscanf(line, "0x%llx", &a) == 1 && a != prev) {
			snprintf(buf[total], sizeof(buf[total]), "0x%llx", a);
			all[total] = buf[total];
			total++;
			prev = a;
		}
	fclose(f);
	for (i = 1; i < argc; i++) {
		n = atoi(argv[i]);
		if (n < 0)
			return 2;
		if (!n || n > total)
			n = total;
		for (k = 0; k < n; k++)
			pick[k] = all[(long)k * total / n];
		time_names(pick, n, 0, reps, "list");
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: kjitbench attach [-d] FUNC... | detach | "
		"reset | stats LABEL | kprobes-on [-n MAX] [MAXWAIT] |\n"
		"       kprobes-off | "
		"attach-time [-r R] N... | attach-list [-r R] FILE N...\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int rc = -1;

	if (!strcmp(cmd, "attach"))
		rc = cmd_attach(argc - 2, argv + 2);
	else if (!strcmp(cmd, "reset"))
		rc = ioctl(kjit(), KJIT_IOC_RESET, 0) ? die("reset") : 0;
	else if (!strcmp(cmd, "detach"))
		rc = printf("DETACHED ms=%.1f\n", detach()) < 0;
	else if (!strcmp(cmd, "stats") && argc == 3)
		rc = cmd_stats(argv[2]);
	else if (!strcmp(cmd, "kprobes-on") && argc > 3 &&
		 !strcmp(argv[2], "-n"))
		rc = cmd_kprobes_on(atoi(argv[3]),
				    argc > 4 ? atoi(argv[4]) : 60);
	else if (!strcmp(cmd, "kprobes-on"))
		rc = cmd_kprobes_on(KJITKP_MAX, argc > 2 ? atoi(argv[2]) : 60);
	else if (!strcmp(cmd, "kprobes-off"))
		rc = cmd_kprobes_off();
	else if (!strcmp(cmd, "attach-time"))
		rc = cmd_attach_time(argc - 2, argv + 2);
	else if (!strcmp(cmd, "attach-list"))
		rc = cmd_attach_list(argc - 2, argv + 2);
	return rc == 2 || rc < 0 ? usage() : rc;
}
