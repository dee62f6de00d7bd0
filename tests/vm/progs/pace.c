/*
 * pace.c - how fast this host runs the guest, against the reference host
 * (tests/vm/init.sh; docs/testing.md, "Time limits that follow the host").
 *
 *   pace REF_MS
 *
 * Runs a fixed piece of user-mode work three times - integer arithmetic,
 * branches, calls, and loads and stores over 8 MiB (more pages than QEMU's
 * software TLB holds, so its slow path is timed too) - and prints
 *
 *   KJIT-PACE MS ms (reference REF_MS ms): factor F
 *
 * MS is the fastest of the three runs; F = MS / REF_MS, never below 1.00
 * (a faster host keeps the limits as written). Under TCG without -icount
 * the guest's clock is the host's, so MS is host time. The work is user
 * code only: what it times is the host's TCG pace, not the kernel's, so one
 * reference serves every kernel. With -icount (the clock counts
 * instructions) the factor is meaningless; init.sh does not run it there.
 * Exit status 0, or 2 on bad usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define BUF_BYTES (8u << 20)
#define ROUNDS	  32

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static __attribute__((noinline)) uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

/* One piece of the work over @buf; returns a hash so it is not elided. */
static uint64_t work(uint32_t *buf)
{
	uint32_t n = BUF_BYTES / sizeof(*buf), i, r, j = 1;
	uint64_t h = 1;

	for (r = 0; r < ROUNDS; r++)
		for (i = 0; i < n; i += 64) { /* a store and a load a line */
			j = (j * 1103515245u + 12345u) % n;
			buf[i] += (uint32_t)h;
			h = mix(h, buf[j]);
			if (h & 1)
				h += i;
		}
	return h;
}

int main(int argc, char **argv)
{
	double ref, best = 0, t;
	uint64_t h = 0;
	uint32_t *buf;
	int k;

	if (argc != 2 || (ref = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: pace REF_MS\n");
		return 2;
	}
	buf = mmap(NULL, BUF_BYTES, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED) {
		perror("pace: mmap");
		return 1;
	}
	memset(buf, 1, BUF_BYTES);
	for (k = 0; k < 3; k++) {
		t = now_ms();
		h += work(buf);
		t = now_ms() - t;
		if (!k || t < best)
			best = t;
	}
	t = best / ref;
	printf("KJIT-PACE %.0f ms (reference %.0f ms): factor %.2f%s\n", best,
	       ref, t < 1 ? 1 : t, h == 42 ? " " : "");
	return 0;
}
