/* progress.c - progress on a terminal (see progress.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "progress.h"
#include "say.h"

#define BAR 20

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
	char bar[BAR + 1];
	unsigned long fill;
	long t;

	if (!p->on || !p->total)
		return;
	t = now_ms();
	if (p->last_ms && t - p->last_ms < 100 && done + 1 < p->total)
		return;
	p->last_ms = t;
	fill = (done + 1) * BAR / p->total;
	memset(bar, '#', fill > BAR ? BAR : fill);
	memset(bar + (fill > BAR ? BAR : fill), '.',
	       BAR - (fill > BAR ? BAR : fill));
	bar[BAR] = 0;
	fprintf(stderr, "\r\033[K%s: %s [%s] %lu/%lu", say_who(), p->what, bar,
		done + 1, p->total);
	fflush(stderr);
}

void progress_end(struct progress *p)
{
	if (p->on && p->last_ms)
		fprintf(stderr, "\r\033[K");
	p->on = 0;
}

struct call {
	int (*fn)(void *);
	void *arg;
	int rc, err;
	volatile int done;
};

static void *run(void *v)
{
	struct call *c = v;

	c->rc = c->fn(c->arg);
	c->err = errno;
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int progress_call(const char *what, int (*fn)(void *), void *arg)
{
	struct call c = {fn, arg, 0, 0, 0};
	long t0 = now_ms(), shown = 0;
	pthread_t th;

	if (!isatty(STDERR_FILENO) || pthread_create(&th, NULL, run, &c))
		return fn(arg);
	while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE)) {
		usleep(100 * 1000);
		if (now_ms() - t0 >= 500) {
			fprintf(stderr, "\r\033[K%s: %s (%ld s)", say_who(),
				what, (now_ms() - t0) / 1000);
			fflush(stderr);
			shown = 1;
		}
	}
	pthread_join(th, NULL);
	if (shown)
		fprintf(stderr, "\r\033[K");
	errno = c.err;
	return c.rc;
}
