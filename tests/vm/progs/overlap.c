/*
 * overlap.c - do the guest's two vCPUs really execute at the same time?
 *
 *   overlap SECS      one process pinned to each of CPU 0 and CPU 1 spins
 *                     for SECS seconds
 *
 * Each process keeps incrementing a counter of its own in shared memory
 * and, every SPINS increments, samples the other's counter: a sample
 * "overlaps" when the other counter moved since the previous sample, i.e.
 * the other vCPU ran while this one did. Under single-threaded TCG the
 * vCPUs take turns on one host thread in slices of milliseconds, so the
 * other counter stands still through nearly every sample of a slice (a
 * fraction near 0); with a host thread per vCPU it moves in most samples,
 * less only where the host's own load deschedules a vCPU thread.
 * Prints "cpuN samples=S overlapped=O fraction=F" for each CPU.
 * Exit status 0, or 1 if a process could not be set up.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SPINS 200 /* increments between samples: a few us under TCG */

/* each counter on a cache line of its own: no false sharing */
struct shared {
	struct {
		volatile unsigned long n;
		char pad[56];
	} count[2];
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* spin CPU: count and sample until the time is up; returns the exit status */
static int spin(struct shared *sh, int cpu, double secs)
{
	unsigned long samples = 0, overlapped = 0, last;
	double end;
	int i;

	if (pin(cpu)) {
		perror("sched_setaffinity");
		return 1;
	}
	last = sh->count[!cpu].n;
	end = now() + secs;
	while (now() < end) {
		for (i = 0; i < SPINS; i++)
			sh->count[cpu].n++;
		samples++;
		if (sh->count[!cpu].n != last)
			overlapped++;
		last = sh->count[!cpu].n;
	}
	printf("cpu%d samples=%lu overlapped=%lu fraction=%.4f\n", cpu, samples,
	       overlapped, samples ? (double)overlapped / samples : 0);
	return 0;
}

int main(int argc, char **argv)
{
	struct shared *sh;
	int status, rc = 0;
	double secs;
	pid_t pid;

	if (argc != 2 || (secs = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: overlap SECS\n");
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0)
		_exit(spin(sh, 1, secs));
	rc = spin(sh, 0, secs);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		rc = 1;
	return rc;
}
