/*
 * report_scale.c - what a report's coverage costs as sessions grow (make
 * bench, host): a synthetic session of N functions (10 static blocks of
 * kernel-shaped code each, every block run once) and 20,000 stored
 * symbols; the time to build every function's CFG and mark its covered
 * blocks, as session_coverage() and report --uncovered do. Before the
 * session kept its name lookups and its blocks by function
 * (tools/session/codeenv.c, struct sess_cache), both were a walk of everything
 * per function: quadratic in the session's size.
 *
 * Usage: report_scale [N...]   (default: 1000 4000 8192 42000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tools/session/cfg.h"
#include "tools/session/codeenv.h"

#define BLOCKS_PER_FUNC 10
#define SYMS		20000

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* test %eax,%eax; je +2; nop; nop: a block boundary every 6 bytes. */
static const unsigned char pattern[] = {0x85, 0xc0, 0x74, 0x02, 0x90, 0x90};

static int make_session(struct session *s, unsigned int nf)
{
	unsigned int i, j, len = sizeof(pattern) * BLOCKS_PER_FUNC + 1;

	memset(s, 0, sizeof(*s));
	s->funcs = calloc(nf, sizeof(*s->funcs));
	s->blocks = calloc((size_t)nf * BLOCKS_PER_FUNC, sizeof(*s->blocks));
	s->syms = calloc(SYMS, sizeof(*s->syms));
	if (!s->funcs || !s->blocks || !s->syms)
		return -1;
	s->n_funcs = nf;
	s->n_syms = SYMS;
	for (i = 0; i < SYMS; i++) {
		s->syms[i].addr = 0xffffffff90000000ull + (uint64_t)i * 16;
		snprintf(s->syms[i].name, sizeof(s->syms[i].name), "sym_%u",
			 i);
	}
	for (i = 0; i < nf; i++) {
		struct sess_func *f = &s->funcs[i];
		unsigned char *c = malloc(len + CODE_TAIL);

		if (!c)
			return -1;
		for (j = 0; j < BLOCKS_PER_FUNC; j++)
			memcpy(c + j * sizeof(pattern), pattern,
			       sizeof(pattern));
		c[len - 1] = 0xc3; /* ret */
		memset(c + len, 0xcc, CODE_TAIL);
		f->start = 0xffffffff81000000ull + (uint64_t)i * 256;
		f->end = f->start + len;
		f->code = c;
		f->code_len = len + CODE_TAIL;
		snprintf(f->name, sizeof(f->name), "f%u", i);
	}
	/* blocks in address order of no function in particular: by block
	 * number, then function, as a deep session's interleave */
	for (i = 0; i < nf * BLOCKS_PER_FUNC; i++) {
		struct sess_block *b = &s->blocks[s->n_blocks++];
		unsigned int fi = i % nf, k = i / nf;

		b->func = fi;
		b->addr = s->funcs[fi].start + k * sizeof(pattern);
		b->len = 4;
		b->count = 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const unsigned int def[] = {1000, 4000, 8192, 42000};
	unsigned int n = argc > 1 ? (unsigned int)argc - 1 : 4, k;

	printf("%10s %10s %12s %10s\n", "functions", "blocks", "coverage s",
	       "covered");
	for (k = 0; k < n; k++) {
		unsigned int nf = argc > 1 ? (unsigned int)atoi(argv[k + 1])
					   : def[k], i;
		struct session s;
		long covered = 0;
		double t0;
		struct cfg g;

		if (make_session(&s, nf)) {
			fprintf(stderr, "report_scale: out of memory\n");
			return 1;
		}
		t0 = now();
		for (i = 0; i < nf; i++) {
			char *mark;

			if (session_cfg(&s, i, &g))
				continue;
			mark = malloc(g.n_blk ? g.n_blk : 1);
			if (mark)
				covered += session_cover_marks(&s, i, &g, mark);
			free(mark);
			cfg_free(&g);
		}
		printf("%10u %10u %12.3f %10ld\n", nf, s.n_blocks, now() - t0,
		       covered);
		session_free(&s);
	}
	return 0;
}
