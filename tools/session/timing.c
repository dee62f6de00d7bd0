/*
 * timing.c - a timed session's per-function time, from /dev/kjit and
 * kjit.data (see timing.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include "timing.h"

static int add(struct sess_time *t, const struct sess_tfunc *f)
{
	struct sess_tfunc *n = realloc(t->f, (t->n + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	t->f = n;
	t->f[t->n++] = *f;
	return 0;
}

int timing_read_device(int fd, unsigned int n_funcs, struct sess_time **out)
{
	enum { ROOM = 512 };
	struct kjit_time_func *buf = calloc(ROOM, sizeof(*buf));
	struct kjit_time_read r = {.size = sizeof(r), .max = ROOM};
	struct sess_time *t = calloc(1, sizeof(*t));
	unsigned int i;
	int err = 0;

	*out = NULL;
	if (!buf || !t) {
		free(buf);
		free(t);
		return -ENOMEM;
	}
	r.buf = (uintptr_t)buf;
	for (;;) {
		if (ioctl(fd, KJIT_IOC_TIME, &r)) {
			err = errno == EOPNOTSUPP || errno == ENOTTY ||
				      errno == EINVAL
				  ? 1 /* not timed (or a kjit.ko before it) */
				  : -errno;
			break;
		}
		for (i = 0; i < r.written && !err; i++) {
			struct sess_tfunc f = {.func = buf[i].fid,
					       .calls = buf[i].calls,
					       .incl = buf[i].incl,
					       .excl = buf[i].excl,
					       .virt = buf[i].virt};

			memcpy(f.hist, buf[i].hist, sizeof(f.hist));
			if (f.func < n_funcs)
				err = add(t, &f);
		}
		t->tsc_khz = r.tsc_khz;
		t->untimed = r.untimed;
		t->lost = r.lost;
		t->recs = r.recs;
		t->recs_used = r.recs_used;
		t->max_fid = r.max_fid;
		if (err || r.next >= r.max_fid || !r.written)
			break;
		r.first = r.next;
	}
	free(buf);
	if (err) {
		timing_free(t);
		return err > 0 ? 0 : err;
	}
	*out = t;
	return 0;
}

void timing_free(struct sess_time *t)
{
	if (!t)
		return;
	free(t->f);
	free(t);
}

void timing_write(const struct sess_time *t, FILE *f)
{
	unsigned int i, b;

	if (!t)
		return;
	fprintf(f, "timing %" PRIu64 " %" PRIu64 " %" PRIu64 " %u %u %u\n",
		t->tsc_khz, t->untimed, t->lost, t->recs, t->recs_used,
		t->max_fid);
	for (i = 0; i < t->n; i++) {
		const struct sess_tfunc *x = &t->f[i];

		fprintf(f,
			"tfunc %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			"\n",
			x->func, x->calls, x->incl, x->excl, x->virt);
		for (b = 0; b < KJIT_TIME_BUCKETS; b++)
			if (x->hist[b])
				fprintf(f, "thist %u %u %" PRIu64 "\n", x->func,
					b, x->hist[b]);
	}
}

int timing_parse_line(const char *line, struct sess_time **tp)
{
	struct sess_time *t = *tp;
	struct sess_tfunc f;
	unsigned int fn, b;
	uint64_t c;

	if (!strncmp(line, "timing ", 7)) {
		if (t)
			return -1;
		t = calloc(1, sizeof(*t));
		if (!t || sscanf(line, "timing %" SCNu64 " %" SCNu64 " %" SCNu64
				       " %u %u %u",
				 &t->tsc_khz, &t->untimed, &t->lost, &t->recs,
				 &t->recs_used, &t->max_fid) != 6) {
			free(t);
			return -1;
		}
		*tp = t;
		return 0;
	}
	if (!strncmp(line, "tfunc ", 6)) {
		memset(&f, 0, sizeof(f));
		if (!t || sscanf(line, "tfunc %u %" SCNu64 " %" SCNu64
				       " %" SCNu64 " %" SCNu64,
				 &f.func, &f.calls, &f.incl, &f.excl,
				 &f.virt) != 5 ||
		    (t->n && t->f[t->n - 1].func >= f.func))
			return -1;
		return add(t, &f) ? -1 : 0;
	}
	if (!strncmp(line, "thist ", 6)) {
		if (!t || !t->n ||
		    sscanf(line, "thist %u %u %" SCNu64, &fn, &b, &c) != 3 ||
		    fn != t->f[t->n - 1].func || b >= KJIT_TIME_BUCKETS)
			return -1;
		t->f[t->n - 1].hist[b] = c;
		return 0;
	}
	return 1;
}

double timing_ns(const struct sess_time *t, uint64_t cycles)
{
	return t->tsc_khz ? (double)cycles * 1e6 / (double)t->tsc_khz : 0;
}

uint64_t timing_quantile(const struct sess_tfunc *tf, double q)
{
	double x = q * (double)tf->calls;
	uint64_t seen = 0, want = (uint64_t)x;
	unsigned int b;

	if ((double)want < x) /* the call that reaches the share: ceil */
		want++;
	if (want < 1)
		want = 1;
	for (b = 0; b < KJIT_TIME_BUCKETS; b++) {
		seen += tf->hist[b];
		if (seen >= want)
			return b ? (uint64_t)1 << b : 1;
	}
	return (uint64_t)1 << (KJIT_TIME_BUCKETS - 1);
}
