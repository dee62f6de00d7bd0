/*
 * lmbench.c - an LMbench-style suite of operating-system latencies (and the
 * pipe bandwidth) for the test guest. LMbench itself is not packaged in
 * Debian; this follows its method and keeps its metric names.
 *
 *   lmbench [-c CPU] [-r REPS] [-t MS | -n ITERS] [-x BENCH]... [BENCH...]
 *                              run (default: every one; -x: all but BENCH;
 *                              -n: ITERS operations a repetition, no
 *                              calibration)
 *   lmbench -L                 the benchmark names, one a line
 *   lmbench -l [BENCH...]      the kernel functions their timed loops enter
 *                              (what to attach kjit to), each once, one line
 *   lmbench hello              exit at once: the program lat_proc exec runs
 *   lmbench -K -n ITERS [BENCH...]
 *                              share mode (bench/share.sh): per benchmark,
 *                              after a warm-up run, zero kjit's counters,
 *                              call access("KJITSTEP-OPEN"), run ITERS
 *                              operations, call access("KJITSTEP-CLOSE"),
 *                              and print what kjit counted in between:
 *     KJIT-SHARE <name> ops=<o> blocks=<b> insns=<i>
 *                              (block executions, and the original
 *                              instructions they ran); the host's
 *                              bench_share single-steps the same window
 *
 * Method, as LMbench's benchmp: a benchmark first finds how many operations
 * fill MS milliseconds (default 200), then times REPS repetitions (default
 * 7) of that many and reports the median and the extremes. Calibration also
 * warms up (under kjit: translates the path), and its last run is at about
 * MS so that one-time work early on does not shrink the count. Setup
 * (files, peer processes, sockets) stays outside the timed window. The
 * operation count adapts to how slow a configuration is, and every line
 * says how many were timed.
 * Peers inherit the CPU pinning of -c: a ping-pong is two context switches
 * on one CPU. Output, one line per benchmark:
 *   LM <name> <median> <unit> min=<v> max=<v> reps=<R> iters=<n> ops=<o>
 * (iters: the count a repetition ran; ops: the operations all repetitions
 * timed, which differs for lat_ctx, two switches a round trip, and
 * lat_pagefault, the faults taken)
 *   LMFAIL <name> <why>
 *   LMSKIP <name> (excluded with -x)
 * Units: us per operation; MB/s (LMbench's MB: 2^20 bytes) for bw_pipe.
 * Exit status 0, or 1 if any benchmark failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "kmod/kjit_ioctl.h"

#define FILE_PATH "/tmp/lmbench.file"
#define FILE_SIZE (4 << 20) /* lat_mmap 4m, lat_pagefault's file */
#define PAGE	  4096
#define MMAP_STEP (160 << 10) /* lat_mmap's STRIDE: 10 * 16 KiB */
#define BW_CHUNK  (64 << 10)  /* bw_pipe's transfer size */
#define MAX_REPS  64
#define MAX_ITERS 100000000L
#define PF_PRIME  97 /* page order of lat_pagefault: i * 97 mod pages */

/* One benchmark. op(n) does n operations (0 or -1); run, where set, does
 * its own timing instead: it returns the nanoseconds of its timed part and
 * sets *ops to the operations those cover (-1 on failure). */
struct bench {
	const char *name;    /* LMbench program and argument, joined by '_' */
	const char *entries; /* kernel functions the timed loop enters */
	int (*setup)(void);
	int (*op)(long n);
	double (*run)(long n, double *ops);
	void (*teardown)(void);
	long bytes; /* per operation: reported as MB/s when set */
};

/* The peer process of the two-process benchmarks, and open files. */
static struct {
	pid_t pid;
	int rfd, wfd; /* ours: read from / write to the peer */
	int fd;	      /* a file the benchmark works on */
} st = {.pid = -1, .rfd = -1, .wfd = -1, .fd = -1};

static char self[256]; /* this program, for lat_proc exec */
static volatile sig_atomic_t caught;

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* ---- files ------------------------------------------------------------ */

/* FILE_PATH, FILE_SIZE bytes on tmpfs: in the page cache from now on. */
static int make_file(void)
{
	static char buf[PAGE];
	int fd, i;

	fd = open(FILE_PATH, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	memset(buf, 'l', sizeof(buf));
	for (i = 0; i < FILE_SIZE / PAGE; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			return -1;
	return close(fd);
}

static int open_into_st(const char *path, int flags)
{
	st.fd = open(path, flags);
	return st.fd < 0 ? -1 : 0;
}

static int setup_zero(void)
{
	return open_into_st("/dev/zero", O_RDONLY);
}

static int setup_null(void)
{
	return open_into_st("/dev/null", O_WRONLY);
}

static int setup_file(void)
{
	return open_into_st(FILE_PATH, O_RDWR);
}

static void close_fd(void)
{
	if (st.fd >= 0)
		close(st.fd);
	st.fd = -1;
}

/* ---- lat_syscall ------------------------------------------------------ */

/* LMbench's "null" system call is getppid(). */
static int op_null(long n)
{
	while (n--)
		syscall(SYS_getppid);
	return 0;
}

static int op_read(long n)
{
	char c;

	while (n--)
		if (read(st.fd, &c, 1) != 1)
			return -1;
	return 0;
}

static int op_write(long n)
{
	char c = 0;

	while (n--)
		if (write(st.fd, &c, 1) != 1)
			return -1;
	return 0;
}

/* stat and fstat as the system calls (glibc's fstat() is newfstatat). */
static int op_stat(long n)
{
	struct stat s;

	while (n--)
		if (syscall(SYS_stat, FILE_PATH, &s))
			return -1;
	return 0;
}

static int op_fstat(long n)
{
	struct stat s;

	while (n--)
		if (syscall(SYS_fstat, st.fd, &s))
			return -1;
	return 0;
}

static int op_open(long n)
{
	int fd;

	while (n--) {
		fd = open(FILE_PATH, O_RDONLY);
		if (fd < 0 || close(fd))
			return -1;
	}
	return 0;
}

/* ---- lat_sig ---------------------------------------------------------- */

static void on_usr1(int sig)
{
	caught++;
}

static int catch_usr1(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	return sigaction(SIGUSR1, &sa, NULL);
}

static void default_usr1(void)
{
	signal(SIGUSR1, SIG_DFL);
}

static int op_sig_install(long n)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	while (n--)
		if (sigaction(SIGUSR1, &sa, &old))
			return -1;
	return 0;
}

/* kill() to ourselves: delivery on the way out, the handler, sigreturn. */
static int op_sig_catch(long n)
{
	pid_t me = getpid();
	long want = caught + n;

	while (n--)
		if (kill(me, SIGUSR1))
			return -1;
	return caught == want ? 0 : -1;
}

/* ---- two processes ---------------------------------------------------- */

/* The peer's loop: send back every byte received, until EOF. */
static void echo(int rfd, int wfd)
{
	char c;

	while (read(rfd, &c, 1) == 1)
		if (write(wfd, &c, 1) != 1)
			break;
	_exit(0);
}

static void stop_peer(void)
{
	if (st.rfd >= 0)
		close(st.rfd);
	if (st.wfd >= 0 && st.wfd != st.rfd)
		close(st.wfd);
	st.rfd = st.wfd = -1;
	if (st.pid > 0)
		waitpid(st.pid, NULL, 0);
	st.pid = -1;
}

/* A peer echoing over two pipes (lat_pipe, lat_ctx). */
static int setup_pipe_echo(void)
{
	int to[2], from[2];

	if (pipe(to) || pipe(from))
		return -1;
	st.pid = fork();
	if (st.pid < 0)
		return -1;
	if (st.pid == 0) {
		close(to[1]);
		close(from[0]);
		echo(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	st.rfd = from[0];
	st.wfd = to[1];
	return 0;
}

/* One round trip of one byte per operation. */
static int op_roundtrip(long n)
{
	char c = 'x';

	while (n--)
		if (write(st.wfd, &c, 1) != 1 || read(st.rfd, &c, 1) != 1)
			return -1;
	return 0;
}

/* lat_ctx 2p/0K: the token's round trip through two processes is two
 * context switches and two pipe hops; LMbench subtracts the hops, measured
 * in one process, and reports per switch. Under TCG the two timings are
 * noisy enough that the difference can come out zero or negative: such a
 * pair is measured again (up to 5 times), and if it never comes out
 * positive the run fails with ERANGE ("below the noise"), never with a
 * negative time. */
static double ctx_once(long n)
{
	int p[2];
	char c = 'x';
	long i;
	double t0, ring, hops;

	t0 = now_ns();
	if (op_roundtrip(n))
		return -1;
	ring = now_ns() - t0;
	if (pipe(p))
		return -1;
	t0 = now_ns();
	for (i = 0; i < 2 * n; i++)
		if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1) {
			close(p[0]);
			close(p[1]);
			return -1;
		}
	hops = now_ns() - t0;
	close(p[0]);
	close(p[1]);
	return ring - hops > 0 ? ring - hops : 0;
}

static double run_ctx(long n, double *ops)
{
	double d = 0;
	int tries;

	for (tries = 0; tries < 5 && d == 0; tries++) {
		d = ctx_once(n);
		if (d < 0)
			return -1;
	}
	if (d == 0) {
		errno = ERANGE; /* the switches cost less than the noise */
		return -1;
	}
	*ops = 2.0 * n;
	return d;
}

static int setup_unix(void)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -1;
	st.pid = fork();
	if (st.pid < 0)
		return -1;
	if (st.pid == 0) {
		close(sv[0]);
		echo(sv[1], sv[1]);
	}
	close(sv[1]);
	st.rfd = st.wfd = sv[0];
	return 0;
}

/* Brings the loopback interface up (the guest boots with it down). */
static int lo_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0), rc;

	if (s < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	rc = ioctl(s, SIOCGIFFLAGS, &ifr);
	if (!rc && !(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
	return rc;
}

static int nodelay(int s)
{
	int one = 1;

	return setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* A listening socket on 127.0.0.1, any port (written to *addr). */
static int tcp_listener(struct sockaddr_in *addr)
{
	socklen_t len = sizeof(*addr);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)addr, sizeof(*addr)) ||
	    listen(s, 1) || getsockname(s, (struct sockaddr *)addr, &len))
		return -1;
	return s;
}

static int setup_tcp(void)
{
	struct sockaddr_in addr;
	int ls, s, c;

	if (lo_up() || (ls = tcp_listener(&addr)) < 0)
		return -1;
	st.pid = fork();
	if (st.pid < 0)
		return -1;
	if (st.pid == 0) {
		c = accept(ls, NULL, NULL);
		if (c < 0 || nodelay(c))
			_exit(1);
		echo(c, c);
	}
	close(ls);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof(addr)) ||
	    nodelay(s))
		return -1;
	st.rfd = st.wfd = s;
	return 0;
}

/* bw_pipe: the peer writes 64 KiB chunks until we close our end. */
static int setup_bw_pipe(void)
{
	static char buf[BW_CHUNK];
	int p[2];

	if (pipe(p))
		return -1;
	st.pid = fork();
	if (st.pid < 0)
		return -1;
	if (st.pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		close(p[0]);
		while (write(p[1], buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
	close(p[1]);
	st.rfd = p[0];
	return 0;
}

static int op_bw_pipe(long n)
{
	static char buf[BW_CHUNK];
	long left = n * (long)sizeof(buf);
	ssize_t got;

	while (left > 0) {
		got = read(st.rfd, buf, left < BW_CHUNK ? left : BW_CHUNK);
		if (got <= 0)
			return -1;
		left -= got;
	}
	return 0;
}

/* ---- lat_proc --------------------------------------------------------- */

static int reap(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int op_fork(long n)
{
	pid_t pid;

	while (n--) {
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (reap(pid))
			return -1;
	}
	return 0;
}

static int op_exec(long n)
{
	char *argv[] = {"lmbench", "hello", NULL};
	pid_t pid;

	while (n--) {
		pid = fork();
		if (pid == 0) {
			execv(self, argv);
			_exit(127);
		}
		if (reap(pid))
			return -1;
	}
	return 0;
}

/* ---- memory ----------------------------------------------------------- */

/* lat_pagefault: read pages of the mapped file in a scattered order, mmap
 * and munmap outside the timed windows. Reported per fault taken (getrusage
 * minflt): a read fault on a file maps up to 16 neighbours (fault-around),
 * so pages touched would understate it. */
static double run_pagefault(long n, double *ops)
{
	const long pages = FILE_SIZE / PAGE;
	volatile char *p;
	long done = 0, i, k, f0, faults = 0;
	double ns = 0, t0;

	while (done < n) {
		p = mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, st.fd, 0);
		if (p == MAP_FAILED)
			return -1;
		k = n - done < pages ? n - done : pages;
		f0 = minflt();
		t0 = now_ns();
		for (i = 0; i < k; i++)
			(void)p[(i * PF_PRIME % pages) * PAGE];
		ns += now_ns() - t0;
		faults += minflt() - f0;
		munmap((void *)p, FILE_SIZE);
		done += k;
	}
	*ops = faults;
	return faults ? ns : -1;
}

/* lat_mmap 4m: map the file, store to a byte every STRIDE, unmap. */
static int op_mmap(long n)
{
	char *p;
	long off;

	while (n--) {
		p = mmap(NULL, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
			 st.fd, 0);
		if (p == MAP_FAILED)
			return -1;
		for (off = 0; off < FILE_SIZE; off += MMAP_STEP)
			p[off] = 'c';
		if (munmap(p, FILE_SIZE))
			return -1;
	}
	return 0;
}

/* ---- the suite -------------------------------------------------------- */

#define SYS(x) "__x64_sys_" #x " "
#define RW     SYS(read) SYS(write)
#define FAULT  "handle_mm_fault exc_page_fault "
#define FORKED SYS(clone) SYS(exit_group) SYS(wait4) FAULT

static const struct bench suite[] = {
    {.name = "lat_syscall_null", .entries = SYS(getppid), .op = op_null},
    {.name = "lat_syscall_read",
     .entries = SYS(read),
     .setup = setup_zero,
     .op = op_read,
     .teardown = close_fd},
    {.name = "lat_syscall_write",
     .entries = SYS(write),
     .setup = setup_null,
     .op = op_write,
     .teardown = close_fd},
    {.name = "lat_syscall_stat", .entries = SYS(newstat), .op = op_stat},
    {.name = "lat_syscall_fstat",
     .entries = SYS(newfstat),
     .setup = setup_file,
     .op = op_fstat,
     .teardown = close_fd},
    {.name = "lat_syscall_open",
     .entries = SYS(openat) SYS(close),
     .op = op_open},
    {.name = "lat_sig_install",
     .entries = SYS(rt_sigaction),
     .op = op_sig_install,
     .teardown = default_usr1},
    {.name = "lat_sig_catch",
     .entries = SYS(kill) SYS(rt_sigreturn) "arch_do_signal_or_restart",
     .setup = catch_usr1,
     .op = op_sig_catch,
     .teardown = default_usr1},
    {.name = "lat_pipe",
     .entries = RW,
     .setup = setup_pipe_echo,
     .op = op_roundtrip,
     .teardown = stop_peer},
    {.name = "bw_pipe",
     .entries = RW,
     .setup = setup_bw_pipe,
     .op = op_bw_pipe,
     .teardown = stop_peer,
     .bytes = BW_CHUNK},
    {.name = "lat_unix",
     .entries = RW,
     .setup = setup_unix,
     .op = op_roundtrip,
     .teardown = stop_peer},
    {.name = "lat_tcp",
     .entries = RW,
     .setup = setup_tcp,
     .op = op_roundtrip,
     .teardown = stop_peer},
    {.name = "lat_ctx_2p_0k",
     .entries = RW,
     .setup = setup_pipe_echo,
     .run = run_ctx,
     .teardown = stop_peer},
    {.name = "lat_proc_fork", .entries = FORKED, .op = op_fork},
    {.name = "lat_proc_exec", .entries = FORKED SYS(execve), .op = op_exec},
    {.name = "lat_pagefault",
     .entries = FAULT,
     .setup = setup_file,
     .run = run_pagefault,
     .teardown = close_fd},
    {.name = "lat_mmap",
     .entries = SYS(mmap) SYS(munmap) FAULT,
     .setup = setup_file,
     .op = op_mmap,
     .teardown = close_fd},
};
#define N_SUITE (sizeof(suite) / sizeof(suite[0]))

/* Nanoseconds of n operations of b (its own timing, or op's), or -1. */
static double run_bench(const struct bench *b, long n, double *ops)
{
	double t0;

	if (b->run)
		return b->run(n, ops);
	*ops = n;
	t0 = now_ns();
	if (b->op(n))
		return -1;
	return now_ns() - t0;
}

static long scale(long n, double ns, double target_ns)
{
	n = (long)(n * (target_ns / (ns > 1 ? ns : 1)));
	return n < 1 ? 1 : n > MAX_ITERS ? MAX_ITERS : n;
}

/* Operations that fill target_ns, or -1. The runs on the way warm up; a
 * last run at about the target corrects for one-time work in the first
 * ones (under kjit: translating the path). */
static long calibrate(const struct bench *b, double target_ns)
{
	double ns, ops;
	long n = 1;

	for (;;) {
		ns = run_bench(b, n, &ops);
		if (ns < 0)
			return -1;
		if (ns >= target_ns / 4 || n >= MAX_ITERS)
			break;
		n *= ns < target_ns / 64 ? 8 : 2;
	}
	n = scale(n, ns, target_ns);
	ns = run_bench(b, n, &ops);
	return ns < 0 ? -1 : scale(n, ns, target_ns);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One repetition's result in the benchmark's unit. */
static double in_unit(const struct bench *b, double ns, double ops)
{
	double us = ns / 1e3 / ops;

	return b->bytes ? b->bytes / (1024.0 * 1024.0) / (us / 1e6) : us;
}

static long fixed_iters; /* -n: no calibration */
static int share_mode;	 /* -K */

/* -K: one measured window of n operations (see the top). Everything the
 * window needs is ready before kjit's counters are zeroed: /dev/kjit open,
 * the buffer for the blocks allocated, so that no system call on the
 * suite's entry points (open, close, mmap) runs between the reset and the
 * read of the counts except the window's own. */
static int share(const struct bench *b, long n)
{
	struct kjit_blocks kb = {.size = sizeof(kb)};
	struct kjit_block_info *info = NULL;
	unsigned long long blocks = 0, insns = 0;
	int fd = open(KJIT_DEVICE, O_RDWR), rc = -1;
	double ops;
	__u32 i;

	if (fd < 0 || run_bench(b, n, &ops) < 0 || /* warm-up */
	    ioctl(fd, KJIT_IOC_BLOCKS, &kb))
		goto out;
	kb.max = kb.total + 65536; /* room for what the window adds */
	info = calloc(kb.max, sizeof(*info));
	if (!info)
		goto out;
	memset(info, 0, kb.max * sizeof(*info)); /* fault it in now */
	kb.buf = (__u64)(unsigned long)info;
	if (ioctl(fd, KJIT_IOC_RESET, 0))
		goto out;
	syscall(SYS_access, "KJITSTEP-OPEN", F_OK);
	if (run_bench(b, n, &ops) < 0)
		goto out;
	syscall(SYS_access, "KJITSTEP-CLOSE", F_OK);
	if (ioctl(fd, KJIT_IOC_BLOCKS, &kb) || kb.written < kb.total)
		goto out;
	for (i = 0; i < kb.written; i++) {
		blocks += info[i].count;
		insns += info[i].count * info[i].n_insns;
	}
	printf("KJIT-SHARE %s ops=%.0f blocks=%llu insns=%llu\n", b->name, ops,
	       blocks, insns);
	rc = 0;
out:
	free(info);
	if (fd >= 0)
		close(fd);
	return rc;
}

static int measure(const struct bench *b, int reps, double target_ns)
{
	double v[MAX_REPS], ns, ops, all = 0;
	long n;
	int i;

	n = fixed_iters ? fixed_iters : calibrate(b, target_ns);
	if (share_mode)
		return n > 0 ? share(b, n) : -1;
	for (i = 0; n > 0 && i < reps; i++) {
		ns = run_bench(b, n, &ops);
		if (ns < 0 || ops <= 0)
			n = -1;
		else
			v[i] = in_unit(b, ns, ops);
		all += ops;
	}
	if (n < 0)
		return -1;
	qsort(v, reps, sizeof(v[0]), cmp_double);
	printf("LM %s %.4f %s min=%.4f max=%.4f reps=%d iters=%ld ops=%.0f\n",
	       b->name, v[reps / 2], b->bytes ? "MB/s" : "us", v[0],
	       v[reps - 1], reps, n, all);
	return 0;
}

static int run_one(const struct bench *b, int reps, double target_ns)
{
	int rc;

	if (b->setup && b->setup()) {
		printf("LMFAIL %s setup: %s\n", b->name, strerror(errno));
		if (b->teardown)
			b->teardown();
		return 1;
	}
	rc = measure(b, reps, target_ns);
	if (rc)
		printf("LMFAIL %s: %s\n", b->name, strerror(errno));
	if (b->teardown)
		b->teardown();
	fflush(stdout);
	return rc ? 1 : 0;
}

static const struct bench *find(const char *name)
{
	size_t i;

	for (i = 0; i < N_SUITE; i++)
		if (!strcmp(suite[i].name, name))
			return &suite[i];
	fprintf(stderr, "lmbench: no benchmark %s\n", name);
	exit(2);
}

static const char *excluded[N_SUITE];
static size_t n_excluded;

static int selected(const struct bench *b, char **names, int n)
{
	size_t k;
	int i;

	for (k = 0; k < n_excluded; k++)
		if (!strcmp(excluded[k], b->name))
			return 0;
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], b->name))
			return 1;
	return n == 0;
}

/* Prints each entry point of the named benchmarks (all: none named) once,
 * space-separated on one line. */
static void list_entries(char **names, int n)
{
	char seen[4096] = " ", word[128], key[132];
	const char *p;
	size_t i;
	int len;

	for (i = 0; i < N_SUITE; i++) {
		if (!selected(&suite[i], names, n))
			continue;
		for (p = suite[i].entries;
		     sscanf(p, "%127s%n", word, &len) == 1; p += len) {
			snprintf(key, sizeof(key), " %s ", word);
			if (strstr(seen, key) ||
			    strlen(seen) + strlen(key) >= sizeof(seen))
				continue;
			printf("%s%s", seen[1] ? " " : "", word);
			strcat(seen, key + 1);
		}
	}
	printf("\n");
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(2);
	}
}

static int usage(void)
{
	fprintf(stderr, "usage: lmbench [-c CPU] [-r REPS] [-t MS | -n ITERS] "
			"[-x BENCH]... [BENCH...]\n"
			"       lmbench -L | -l [BENCH...] | hello\n");
	return 2;
}

int main(int argc, char **argv)
{
	int reps = 7, opt, bad = 0, i;
	double ms = 200;
	size_t k;

	if (argc == 2 && !strcmp(argv[1], "hello"))
		return 0;
	while ((opt = getopt(argc, argv, "+c:n:r:t:x:lLK")) != -1) {
		if (opt == 'K') {
			share_mode = 1;
		} else if (opt == 'n') {
			fixed_iters = atol(optarg);
		} else if (opt == 'x' && n_excluded < N_SUITE) {
			excluded[n_excluded++] = find(optarg)->name;
		} else if (opt == 'c') {
			pin(atoi(optarg));
		} else if (opt == 'r') {
			reps = atoi(optarg);
		} else if (opt == 't') {
			ms = atof(optarg);
		} else if (opt == 'l') {
			list_entries(argv + optind, argc - optind);
			return 0;
		} else if (opt == 'L') {
			for (k = 0; k < N_SUITE; k++)
				printf("%s\n", suite[k].name);
			return 0;
		} else {
			return usage();
		}
	}
	if (reps < 1 || reps > MAX_REPS || ms <= 0 || fixed_iters < 0)
		return usage();
	for (i = optind; i < argc; i++)
		find(argv[i]);
	if (readlink("/proc/self/exe", self, sizeof(self) - 1) < 0 ||
	    make_file()) {
		perror("lmbench: setup");
		return 1;
	}
	for (k = 0; k < N_SUITE; k++) {
		if (selected(&suite[k], argv + optind, argc - optind))
			bad |= run_one(&suite[k], reps, ms * 1e6);
		else if (optind == argc)
			printf("LMSKIP %s\n", suite[k].name);
	}
	unlink(FILE_PATH);
	return bad;
}
