/* progress.c - progress on a terminal (see progress.h). */
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "progress.h"

static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void progress_begin(struct progress *p, const char *what, unsigned long total)
{
	p->what = what;
	p->total = total;
	p->on = isatty(STDERR_FILENO);
	p->last_ms = 0;
}

void progress_step(struct progress *p, unsigned long done)
{
	long t;

	if (!p->on)
		return;
	t = now_ms();
	if (p->last_ms && t - p->last_ms < 100 && done + 1 < p->total)
		return;
	p->last_ms = t;
	fprintf(stderr, "\r\033[Kkjit: %s %lu/%lu", p->what, done + 1,
		p->total);
	fflush(stderr);
}

void progress_end(struct progress *p)
{
	if (p->on && p->last_ms)
		fprintf(stderr, "\r\033[K");
	p->on = 0;
}
