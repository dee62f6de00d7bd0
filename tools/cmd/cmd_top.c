/*
 * cmd_top.c - `kjit top [-d SECS] [-n COUNT] [--top N]`: a live view of the
 * attached session, as top(1) is of processes. Every SECS seconds it reads
 * the counts from /dev/kjit and shows the functions and blocks that ran
 * most since the last read, with their rates.
 *
 * Invariants:
 *  - A frame's numbers are differences of two reads of the same counters:
 *    summed over the frames, a block's equal its count at the last read
 *    minus its count at the first (a counter that went down was reset by
 *    `kjit reset`: its difference is its new count).
 *  - On a terminal each frame replaces the last; elsewhere frames follow
 *    each other, separated by a blank line, for scripts and logs.
 *  - It ends after COUNT frames, at ^C, SIGTERM or SIGHUP (stopsig.h), or
 *    when the session is detached (saying so): it never detaches itself.
 */
#define _GNU_SOURCE /* ppoll */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "commands.h"
#include "tools/kernel/device.h"
#include "tools/report/plural.h"
#include "tools/session/session.h"
#include "tools/session/stopsig.h"

struct top_args {
	double secs;	     /* between frames */
	unsigned long count; /* frames; 0: until stopped */
	unsigned int top;    /* rows of each table */
};

/* The last read's counts, by block address (sorted). */
struct top_prev {
	uint64_t (*ac)[2];
	unsigned int n;
};

/* One row of a frame: a function or a block, and what it ran. */
struct top_row {
	unsigned int idx; /* funcs[] or blocks[] of the current read */
	uint64_t runs, calls;
};

static int parse_top(int argc, char **argv, struct top_args *a)
{
	char *end;
	int i;

	a->secs = 2;
	a->count = 0;
	a->top = 10;
	for (i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v && (!strcmp(o, "-d") || !strcmp(o, "-n") ||
			   !strcmp(o, "--top"))) {
			fprintf(stderr,
				"kjit top: %s needs a value (kjit help top)\n",
				o);
			return -1;
		}
		if (!v) {
			fprintf(stderr,
				"kjit top: unknown argument '%s' (kjit help "
				"top)\n",
				o);
			return -1;
		}
		errno = 0;
		if (!strcmp(o, "-d")) {
			a->secs = strtod(v, &end);
			if (*end || errno || !(a->secs >= 0.1) ||
			    a->secs > 3600) {
				fprintf(stderr,
					"kjit top: bad value for -d: '%s' is "
					"not a number of seconds from 0.1 to "
					"3600\n",
					v);
				return -1;
			}
		} else if (!strcmp(o, "-n") || !strcmp(o, "--top")) {
			unsigned long x = strtoul(v, &end, 10);
			unsigned long max = o[1] == 'n' ? 1000000 : 1000;

			if (*end || errno || !*v || *v == '-' || !x ||
			    x > max) {
				fprintf(stderr,
					"kjit top: bad value for %s: '%s' is "
					"not a number from 1 to %lu\n",
					o, v, max);
				return -1;
			}
			if (o[1] == 'n')
				a->count = x;
			else
				a->top = (unsigned int)x;
		} else {
			fprintf(stderr,
				"kjit top: unknown argument '%s' (kjit help "
				"top)\n",
				o);
			return -1;
		}
		i++;
	}
	return 0;
}

/* The session now, or 1 after saying why not. */
static int read_now(int fd, struct session *s)
{
	int err = session_read_device(s, fd);

	if (err == -ENOENT)
		fprintf(stderr, "kjit top: no session (kjit attach first)\n");
	else if (err)
		fprintf(stderr, "kjit top: %s\n", strerror(-err));
	return err ? 1 : 0;
}

static int keep(struct top_prev *p, const struct session *s)
{
	unsigned int i;

	free(p->ac);
	p->ac = calloc(s->n_blocks + 1, sizeof(*p->ac));
	if (!p->ac)
		return -1;
	for (i = 0; i < s->n_blocks; i++) {
		p->ac[i][0] = s->blocks[i].addr;
		p->ac[i][1] = s->blocks[i].count;
	}
	p->n = s->n_blocks;
	return 0;
}

/* Block @b's runs since @p's read (both sorted by address; *@k walks
 * @p). A new block's are all its runs; a reset one's, its new count. */
static uint64_t since(const struct top_prev *p, unsigned int *k,
		      const struct sess_block *b)
{
	while (*k < p->n && p->ac[*k][0] < b->addr)
		(*k)++;
	if (*k < p->n && p->ac[*k][0] == b->addr && p->ac[*k][1] <= b->count)
		return b->count - p->ac[*k][1];
	return b->count;
}

static int by_runs(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->runs != y->runs)
		return x->runs < y->runs ? 1 : -1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void print_funcs(const struct session *s, struct top_row *f,
			unsigned int top, double secs)
{
	unsigned int i;

	qsort(f, s->n_funcs, sizeof(*f), by_runs);
	printf("\n%-40s %12s %12s %14s\n", "function", "calls", "executions",
	       "executions/s");
	for (i = 0; i < s->n_funcs && i < top && f[i].runs; i++)
		printf("%-40s %12" PRIu64 " %12" PRIu64 " %14.0f\n",
		       s->funcs[f[i].idx].name, f[i].calls, f[i].runs,
		       (double)f[i].runs / secs);
}

static void print_blocks(const struct session *s, struct top_row *b,
			 unsigned int top, double secs)
{
	char name[KJIT_NAME_MAX + 24];
	unsigned int i;

	qsort(b, s->n_blocks, sizeof(*b), by_runs);
	printf("\n%-48s %12s %14s\n", "block", "executions", "executions/s");
	for (i = 0; i < s->n_blocks && i < top && b[i].runs; i++) {
		const struct sess_block *k = &s->blocks[b[i].idx];
		const struct sess_func *fn =
		    k->func < s->n_funcs ? &s->funcs[k->func] : NULL;

		if (fn)
			snprintf(name, sizeof(name), "%s+0x%" PRIx64, fn->name,
				 k->addr - fn->start);
		else
			snprintf(name, sizeof(name), "0x%" PRIx64, k->addr);
		printf("%-48s %12" PRIu64 " %14.0f\n", name, b[i].runs,
		       (double)b[i].runs / secs);
	}
}

/* One frame: what ran between @p's read and @s's, @secs apart. */
static int frame(const struct session *s, const struct top_prev *p,
		 const struct top_args *a, unsigned long nr, double secs)
{
	struct top_row *f = calloc(s->n_funcs + 1, sizeof(*f));
	struct top_row *b = calloc(s->n_blocks + 1, sizeof(*b));
	unsigned int i, k = 0, active = 0;
	uint64_t total = 0;

	if (!f || !b) {
		free(f);
		free(b);
		return -1;
	}
	for (i = 0; i < s->n_funcs; i++)
		f[i].idx = i;
	for (i = 0; i < s->n_blocks; i++) {
		const struct sess_block *bl = &s->blocks[i];
		struct top_row *fr =
		    bl->func < s->n_funcs ? &f[bl->func] : NULL;

		b[i].idx = i;
		b[i].runs = since(p, &k, bl);
		total += b[i].runs;
		if (!fr)
			continue;
		active += b[i].runs && !fr->runs;
		fr->runs += b[i].runs;
		if (bl->addr == s->funcs[bl->func].entry ||
		    bl->addr == s->funcs[bl->func].start)
			fr->calls += b[i].runs;
	}
	if (isatty(STDOUT_FILENO))
		printf("\033[H\033[2J");
	else if (nr > 1)
		printf("\n");
	printf("kjit top: frame %lu, %.1f s: %" PRIu64
	       " block executions (%.0f/s) in %u of %u function%s\n",
	       nr, secs, total, (double)total / secs, active, s->n_funcs,
	       plural_s(s->n_funcs));
	print_funcs(s, f, a->top, secs);
	print_blocks(s, b, a->top, secs);
	fflush(stdout);
	free(f);
	free(b);
	return 0;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Sleeps @secs, or less when a stop signal comes. The stop signals are
 * held (blocked) outside this sleep, and ppoll() lets them in only while
 * it waits: one that comes while a frame is read or printed wakes the
 * next sleep at once, never a whole interval later, and no write is
 * interrupted. */
static void pause_for(double secs, const struct stopsig *sig)
{
	struct timespec t = {.tv_sec = (time_t)secs,
			     .tv_nsec =
				 (long)((secs - (double)(time_t)secs) * 1e9)};
	sigset_t open = sig->old_mask;
	int i;

	for (i = 1; i < NSIG; i++)
		if (sigismember(&sig->set, i))
			sigdelset(&open, i);
	ppoll(NULL, 0, &t, &open);
}

static int run_top(int fd, const struct top_args *a, const struct stopsig *sig)
{
	struct top_prev p = {NULL, 0};
	struct session s;
	unsigned long nr;
	double t0, t1;
	int rc = 0;

	if (read_now(fd, &s))
		return 1;
	if (!s.st.attached) {
		fprintf(stderr, "kjit top: the session is detached: nothing "
				"runs from the cache (kjit report --live shows "
				"its counts)\n");
		session_free(&s);
		return 1;
	}
	t0 = now();
	if (keep(&p, &s)) {
		session_free(&s);
		return 1;
	}
	session_free(&s);
	fprintf(stderr, "kjit top: a frame every %.1f s%s\n", a->secs,
		a->count ? "" : " (^C stops)");
	for (nr = 1; !a->count || nr <= a->count; nr++) {
		pause_for(a->secs, sig);
		if (stopsig_seen())
			break;
		if (read_now(fd, &s)) {
			rc = 1;
			break;
		}
		t1 = now();
		if (frame(&s, &p, a, nr, t1 - t0) || keep(&p, &s)) {
			session_free(&s);
			rc = 1;
			break;
		}
		t0 = t1;
		if (!s.st.attached) {
			fprintf(stderr, "kjit top: the session was detached; "
					"its counts stay readable (kjit "
					"report --live)\n");
			session_free(&s);
			break;
		}
		session_free(&s);
	}
	free(p.ac);
	return rc;
}

int cmd_top(int argc, char **argv)
{
	struct top_args a;
	struct stopsig sig;
	int fd, rc;

	if (parse_top(argc, argv, &a))
		return 2;
	fd = kjit_device_open();
	if (fd < 0)
		return 1;
	stopsig_take(&sig, false);
	stopsig_pass_to(0);
	stopsig_hold(&sig);
	rc = run_top(fd, &a, &sig);
	stopsig_release(&sig);
	close(fd);
	return rc;
}
