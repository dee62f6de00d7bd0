/*
 * workload.c - deterministic system call loops for the in-guest tests.
 *
 *   workload getpid N        N getpid() calls
 *   workload read N          N one-byte reads of /dev/zero
 *   workload fstat N         N fstat() calls
 *   workload openclose N     N open("/dev/null") + close()
 *   workload pipe N          N one-byte write+read through a pipe
 *   workload time OP N       as OP, then print "ns_per_op=<float>"
 * Options: -c CPU pins the process to CPU first.
 * Exit status 0, or 1 with a message if any call fails.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int op_getpid(long n)
{
	while (n--)
		syscall(SYS_getpid);
	return 0;
}

static int op_read(long n)
{
	int fd = open("/dev/zero", O_RDONLY);
	char c;

	if (fd < 0)
		return -1;
	while (n--)
		if (read(fd, &c, 1) != 1)
			return -1;
	return close(fd);
}

static int op_fstat(long n)
{
	struct stat st;

	while (n--)
		if (fstat(0, &st))
			return -1;
	return 0;
}

static int op_openclose(long n)
{
	int fd;

	while (n--) {
		fd = open("/dev/null", O_RDONLY);
		if (fd < 0 || close(fd))
			return -1;
	}
	return 0;
}

static int op_pipe(long n)
{
	int p[2];
	char c = 'x';

	if (pipe(p))
		return -1;
	while (n--)
		if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
			return -1;
	close(p[0]);
	return close(p[1]);
}

static const struct {
	const char *name;
	int (*run)(long n);
} ops[] = {
	{ "getpid", op_getpid }, { "read", op_read }, { "fstat", op_fstat },
	{ "openclose", op_openclose }, { "pipe", op_pipe },
};

static int run_op(const char *name, long n, int timed)
{
	struct timespec a, b;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (strcmp(name, ops[i].name))
			continue;
		clock_gettime(CLOCK_MONOTONIC, &a);
		rc = ops[i].run(n);
		clock_gettime(CLOCK_MONOTONIC, &b);
		if (rc) {
			perror(name);
			return 1;
		}
		if (timed)
			printf("ns_per_op=%.1f\n",
			       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
		return 0;
	}
	fprintf(stderr, "workload: unknown op %s\n", name);
	return 2;
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
	if (argc > 1 && !strcmp(argv[1], "time")) {
		timed = 1;
		argc--;
		argv++;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: workload [-c CPU] [time] OP N\n");
		return 2;
	}
	return run_op(argv[1], atol(argv[2]), timed);
}
