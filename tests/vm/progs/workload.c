/*
 * workload.c - deterministic system call loops for the in-guest tests.
 *
 *   workload getpid N        N getpid() calls
 *   workload threadpid N     N getpid() calls in a second thread, then N
 *   workload forkpid N       N getpid() calls in each of 3 processes (this,
 *                            its child, the child's child)
 *   workload read N          N one-byte reads of /dev/zero
 *   workload bigread N       N 64 KiB reads of /dev/zero
 *   workload fstat N         N fstat() calls
 *   workload openclose N     N open("/dev/null") + close()
 *   workload pipe N          N one-byte write+read through a pipe
 *   workload nanosleep N     N sleeps of 100 us (an hrtimer interrupt each)
 *   workload time OP N       as OP, then print "ns_per_op=<float>"
 *   workload rounds K OP N   stopped (SIGSTOP: the caller attaches and
 *                            continues it), N OPs (a warm-up), then K
 *                            rounds, each stopped first (the caller reads
 *                            and resets what it measured, continues it),
 *                            then N OPs between two rdtsc: prints "round I
 *                            tsc=CYCLES" for each (time_exact)
 * Options: -c CPU pins the process to CPU first.
 * Exit status 0, or 1 with a message if any call fails.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "workload_ops.h"

static int run_timed(const char *name, long n, int timed)
{
	struct timespec a, b;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = run_op(name, n);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (rc == -1)
		perror(name);
	if (rc)
		return rc < 0 ? 1 : rc;
	if (timed)
		printf("ns_per_op=%.1f\n",
		       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) /
			   n);
	return 0;
}

static uint64_t tsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* workload rounds K OP N: stopped, a warm-up of N, then K stopped-then-timed
 * rounds of N; each round's TSC cycles on stdout, flushed. */
static int run_rounds(long k, const char *name, long n)
{
	pid_t me = getpid();
	uint64_t a, b;
	long i;
	int rc;

	/* kill(), not raise(): glibc's raise() calls getpid() each time */
	kill(me, SIGSTOP);
	rc = run_op(name, n);
	for (i = 1; !rc && i <= k; i++) {
		kill(me, SIGSTOP);
		a = tsc();
		rc = run_op(name, n);
		b = tsc();
		printf("round %ld tsc=%llu\n", i, (unsigned long long)(b - a));
		fflush(stdout);
	}
	if (rc == -1)
		perror(name);
	return rc ? (rc < 0 ? 1 : rc) : 0;
}

int main(int argc, char **argv)
{
	int timed = 0;
	cpu_set_t set;

	if (argc > 2 && !strcmp(argv[1], "-c")) {
		CPU_ZERO(&set);
		CPU_SET(atoi(argv[2]), &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("sched_setaffinity");
			return 1;
		}
		argc -= 2;
		argv += 2;
	}
	if (argc == 5 && !strcmp(argv[1], "rounds"))
		return run_rounds(atol(argv[2]), argv[3], atol(argv[4]));
	if (argc > 1 && !strcmp(argv[1], "time")) {
		timed = 1;
		argc--;
		argv++;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: workload [-c CPU] [time] OP N | rounds K OP N\n");
		return 2;
	}
	return run_timed(argv[1], atol(argv[2]), timed);
}
