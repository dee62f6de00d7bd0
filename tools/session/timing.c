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

static int add_path(struct sess_time *t, const struct sess_tpath *p)
{
	struct sess_tpath *n = realloc(t->p, (t->n_p + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	t->p = n;
	t->p[t->n_p++] = *p;
	return 0;
}

/* The session's call paths (KJIT_IOC_TPATHS) into @t; 0 or -errno. */
static int read_paths(int fd, unsigned int n_funcs, struct sess_time *t)
{
	enum { ROOM = 2048 };
	struct kjit_tpath_info *buf = calloc(ROOM, sizeof(*buf));
	struct kjit_tpath_read r = {.size = sizeof(r), .max = ROOM};
	unsigned int i;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	r.buf = (uintptr_t)buf;
	for (;;) {
		if (ioctl(fd, KJIT_IOC_TPATHS, &r)) {
			err = -errno;
			break;
		}
		for (i = 0; i < r.written && !err; i++) {
			struct sess_tpath p = {buf[i].node,  buf[i].parent,
					       buf[i].fid,   buf[i].calls,
					       buf[i].incl,  buf[i].excl};

			if (p.func < n_funcs)
				err = add_path(t, &p);
		}
		t->paths = r.n_paths;
		t->paths_used = r.used;
		t->paths_full = r.full;
		if (err || r.next >= r.n_paths || !r.written)
			break;
		r.first = r.next;
	}
	free(buf);
	return err;
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
	if (!err)
		err = read_paths(fd, n_funcs, t);
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
	free(t->p);
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
	fprintf(f, "tpaths %u %u %" PRIu64 "\n", t->paths, t->paths_used,
		t->paths_full);
	for (i = 0; i < t->n_p; i++) {
		const struct sess_tpath *p = &t->p[i];
		char parent[16] = "-";

		if (p->parent != KJIT_TPATH_NONE)
			snprintf(parent, sizeof(parent), "%u", p->parent);
		fprintf(f,
			"tpath %u %s %u %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			p->node, parent, p->func, p->calls, p->incl, p->excl);
	}
}

/* A "tpaths" or "tpath" line into @t: 0, 1 if not one, -1 if bad. */
static int parse_path_line(const char *line, struct sess_time *t)
{
	struct sess_tpath p;
	char parent[16];

	if (!strncmp(line, "tpaths ", 7))
		return !t || sscanf(line, "tpaths %u %u %" SCNu64, &t->paths,
				    &t->paths_used, &t->paths_full) != 3
			   ? -1
			   : 0;
	if (strncmp(line, "tpath ", 6))
		return 1;
	if (!t || sscanf(line, "tpath %u %15s %u %" SCNu64 " %" SCNu64
			       " %" SCNu64,
			 &p.node, parent, &p.func, &p.calls, &p.incl,
			 &p.excl) != 6 ||
	    (t->n_p && t->p[t->n_p - 1].node >= p.node))
		return -1;
	if (!strcmp(parent, "-"))
		p.parent = KJIT_TPATH_NONE;
	else if (sscanf(parent, "%u", &p.parent) != 1)
		return -1;
	return add_path(t, &p) ? -1 : 0;
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
	return parse_path_line(line, t);
}

const struct sess_tpath *timing_path(const struct sess_time *t,
				     unsigned int node)
{
	unsigned int lo = 0, hi = t->n_p, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->p[mid].node == node)
			return &t->p[mid];
		if (t->p[mid].node < node)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
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
