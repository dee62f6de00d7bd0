/*
 * cmd_diff.c - `kjit diff A.data B.data [--json] [-n N]`: what changed
 * between two recordings.
 *
 * Blocks are matched by function name and offset in the function, not by
 * address, so two recordings of one kernel on different boots (KASLR) still
 * match; recordings of different kernels are compared the same way after a
 * one-line warning (their offsets may name different code). Printed: the
 * functions and the blocks whose counts changed most (by absolute change,
 * with the relative change), and the blocks covered (count > 0) in one
 * recording and not the other.
 *
 * --per FUNC divides each recording's counts by the calls of FUNC in it
 * (its entry block's count): per operation, when the two runs differ in
 * length (a workload of 1,000 reads against one of 3,000). Changes, their
 * order and the relative change are then per call; counts are printed
 * per call with four decimals, and JSON keeps the raw counts beside them.
 * Whether a block changed is decided exactly (a x callsB != b x callsA).
 *
 * Invariants: both sessions are read whole before anything is printed;
 * every error is one line on stderr (exit 1), usage errors exit 2; text
 * lists keep N rows (default 10), JSON keeps every row.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "tools/session/datafile.h"
#include "tools/report/format.h"
#include "tools/report/plural.h"

/* One block or function present in A, B or both. */
struct delta {
	const char *name;
	uint64_t off; /* block offset in its function; 0 for a function */
	uint64_t a, b;
};

struct diff {
	struct delta *fn, *bl;
	unsigned int n_fn, n_bl;
};

struct diff_args {
	const char *path[2];
	unsigned int top;
	int json;
	const char *per; /* --per FUNC, or NULL */
};

/* --per: the calls of the FUNC in A and B (1 and 1 without it). */
static uint64_t calls[2] = {1, 1};
static int per_call;

static int parse_diff(int argc, char **argv, struct diff_args *d)
{
	int i, n = 0;

	memset(d, 0, sizeof(*d));
	d->top = 10;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json")) {
			d->json = 1;
		} else if (!strcmp(a, "--per")) {
			d->per = i + 1 < argc ? argv[++i] : NULL;
			if (!d->per || !*d->per || d->per[0] == '-') {
				fprintf(stderr, "kjit diff: --per needs a "
						"FUNC (counts per call of "
						"it)\n");
				return -1;
			}
		} else if (!strcmp(a, "-n")) {
			const char *v = i + 1 < argc ? argv[++i] : NULL;

			if (!v || !*v || v[strspn(v, "0123456789")] ||
			    strlen(v) > 9) {
				fprintf(stderr,
					"kjit diff: bad value for -n: '%s' "
					"(a count of rows)\n",
					v ? v : "");
				return -1;
			}
			d->top = (unsigned int)atoi(v);
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"kjit diff: unknown option '%s' (kjit help "
				"diff)\n",
				a);
			return -1;
		} else if (n < 2) {
			d->path[n++] = a;
		} else {
			fprintf(stderr,
				"kjit diff: one file too many: '%s' (give "
				"A.data B.data)\n",
				a);
			return -1;
		}
	}
	if (n != 2) {
		fprintf(stderr, "kjit diff: give two data files: kjit diff "
				"A.data B.data\n");
		return -1;
	}
	return 0;
}

/* Reads @path into @s; 0 or 1 after one line on stderr. */
static int load(struct session *s, const char *path)
{
	FILE *f = fopen(path, "r");
	char why[128];
	int err;

	if (!f) {
		fprintf(stderr, "kjit diff: cannot open %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	err = datafile_read(s, f, why, sizeof(why));
	fclose(f);
	if (err)
		fprintf(stderr, "kjit diff: %s: %s\n", path, why);
	return err ? 1 : 0;
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct delta *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	return a->off < b->off ? -1 : a->off > b->off;
}

/* Keys of @s's blocks (or functions, @funcs) with their counts in a or b
 * (@side), sorted by name and offset. */
static struct delta *keys(const struct session *s, int funcs, int side,
			  unsigned int *n)
{
	unsigned int i, m = funcs ? s->n_funcs : s->n_blocks;
	struct delta *v = calloc(m ? m : 1, sizeof(*v));

	if (!v)
		return NULL;
	for (i = 0; i < m; i++) {
		uint64_t c;

		if (funcs) {
			v[i].name = s->funcs[i].name;
			c = s->funcs[i].executions;
		} else {
			const struct sess_block *b = &s->blocks[i];

			v[i].name = s->funcs[b->func].name;
			v[i].off = b->addr - s->funcs[b->func].start;
			c = b->count;
		}
		if (side)
			v[i].b = c;
		else
			v[i].a = c;
	}
	qsort(v, m, sizeof(*v), cmp_key);
	*n = m;
	return v;
}

/* Merges two sorted key lists into @out (the union; equal keys summed). */
static struct delta *merge(struct delta *x, unsigned int nx, struct delta *y,
			   unsigned int ny, unsigned int *n)
{
	struct delta *o = calloc(nx + ny + 1, sizeof(*o));
	unsigned int i = 0, j = 0, k = 0;

	if (!o)
		return NULL;
	while (i < nx || j < ny) {
		int c = i >= nx ? 1 : j >= ny ? -1 : cmp_key(&x[i], &y[j]);
		struct delta d = c <= 0 ? x[i++] : y[j++];

		if (c == 0) {
			d.b += y[j].b;
			j++;
		}
		if (k && !cmp_key(&o[k - 1], &d)) {
			o[k - 1].a += d.a;
			o[k - 1].b += d.b;
		} else {
			o[k++] = d;
		}
	}
	*n = k;
	return o;
}

static struct delta *union_of(const struct session *a, const struct session *b,
			      int funcs, unsigned int *n)
{
	unsigned int na = 0, nb = 0;
	struct delta *x = keys(a, funcs, 0, &na), *y = keys(b, funcs, 1, &nb);
	struct delta *o = x && y ? merge(x, na, y, nb, n) : NULL;

	free(x);
	free(y);
	return o;
}

/* A's and B's count, per call of --per's FUNC (the counts without it). */
static double va(const struct delta *d)
{
	return (double)d->a / (double)calls[0];
}

static double vb(const struct delta *d)
{
	return (double)d->b / (double)calls[1];
}

/* Did it change (per call: exactly, by cross-multiplying)? */
static int changed(const struct delta *d)
{
	return (unsigned __int128)d->a * calls[1] !=
	       (unsigned __int128)d->b * calls[0];
}

static double absdiff(const struct delta *d)
{
	double x = vb(d) - va(d);

	return changed(d) ? (x < 0 ? -x : x) : 0;
}

/* Largest absolute change first; ties by name and offset. */
static int cmp_change(const void *pa, const void *pb)
{
	const struct delta *a = pa, *b = pb;
	double x = absdiff(a), y = absdiff(b);

	if (x != y)
		return x > y ? -1 : 1;
	return cmp_key(a, b);
}

/* The relative change as text: "+12.5%", "new" (0 in A), "gone" (0 in B). */
static const char *relative(const struct delta *d, char *buf, size_t size)
{
	if (!d->a && d->b)
		return "new";
	if (d->a && !d->b)
		return "gone";
	if (!d->a)
		return "0";
	snprintf(buf, size, "%+.1f%%", 100.0 * (vb(d) - va(d)) / va(d));
	return buf;
}

static void label(const struct delta *d, int funcs, char *buf, size_t size)
{
	if (funcs)
		snprintf(buf, size, "%s", d->name);
	else
		snprintf(buf, size, "%s+0x%" PRIx64, d->name, d->off);
}

/* Width of the label column: the longest label shown, at least @min. */
static int label_width(const struct delta *v, unsigned int n, int funcs,
		       int min)
{
	char buf[KJIT_NAME_MAX + 24];
	unsigned int i;
	int w = min;

	for (i = 0; i < n; i++) {
		label(&v[i], funcs, buf, sizeof(buf));
		if ((int)strlen(buf) > w)
			w = (int)strlen(buf);
	}
	return w;
}

static void text_changes(FILE *out, const char *what, struct delta *v,
			 unsigned int n, int funcs, unsigned int top)
{
	char buf[KJIT_NAME_MAX + 24], rel[32];
	unsigned int i, n_changed = 0, shown;
	int w;

	qsort(v, n, sizeof(*v), cmp_change);
	while (n_changed < n && changed(&v[n_changed]))
		n_changed++;
	shown = n_changed < top ? n_changed : top;
	fprintf(out, "\n%s that changed most (%u of %u changed%s):\n", what,
		n_changed, n, per_call ? ", per call" : "");
	if (!shown)
		return;
	w = label_width(v, shown, funcs, 8);
	fprintf(out, "  %-*s %14s %14s %15s %8s\n", w,
		funcs ? "FUNCTION" : "BLOCK", per_call ? "A/CALL" : "A",
		per_call ? "B/CALL" : "B", "CHANGE", "REL");
	for (i = 0; i < shown; i++) {
		label(&v[i], funcs, buf, sizeof(buf));
		if (per_call)
			fprintf(out, "  %-*s %14.4f %14.4f %+15.4f %8s\n", w,
				buf, va(&v[i]), vb(&v[i]),
				vb(&v[i]) - va(&v[i]),
				relative(&v[i], rel, sizeof(rel)));
		else
			fprintf(out,
				"  %-*s %14" PRIu64 " %14" PRIu64 " %+15" PRId64
				" %8s\n",
				w, buf, v[i].a, v[i].b,
				(int64_t)(v[i].b - v[i].a),
				relative(&v[i], rel, sizeof(rel)));
	}
}

/* Blocks with a count in @side's recording only (side 0: A, 1: B). */
static void text_only(FILE *out, const struct diff *d, int side,
		      unsigned int top)
{
	char buf[KJIT_NAME_MAX + 24];
	unsigned int i, n = 0, shown = 0;

	for (i = 0; i < d->n_bl; i++)
		n += side ? (!d->bl[i].a && d->bl[i].b)
			  : (d->bl[i].a && !d->bl[i].b);
	fprintf(out, "\nBlocks covered in %s only: %u\n", side ? "B" : "A", n);
	for (i = 0; i < d->n_bl && shown < top; i++) {
		const struct delta *x = &d->bl[i];
		uint64_t c = side ? x->b : x->a;

		if ((side ? x->a : x->b) || !c)
			continue;
		label(x, 0, buf, sizeof(buf));
		fprintf(out, "  %s  %" PRIu64 "\n", buf, c);
		shown++;
	}
	if (shown < n)
		fprintf(out, "  ... and %u more (-n or --json)\n", n - shown);
}

static void text_header(FILE *out, const struct diff_args *o,
			const struct session *s)
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		fprintf(out, "%s: %s (kernel %s, %s, %u block%s)\n",
			i ? "B" : "A", o->path[i], s[i].kernel,
			s[i].command[0] ? s[i].command : "no command",
			s[i].n_blocks, plural_s(s[i].n_blocks));
}

static void print_text(FILE *out, const struct diff_args *o,
		       const struct session *s, struct diff *d)
{
	text_header(out, o, s);
	if (per_call)
		fprintf(out,
			"per call of %s: %" PRIu64 " in A, %" PRIu64
			" in B (counts divided by them)\n",
			o->per, calls[0], calls[1]);
	text_changes(out, "Functions", d->fn, d->n_fn, 1, o->top);
	qsort(d->bl, d->n_bl, sizeof(*d->bl), cmp_key);
	text_only(out, d, 0, o->top);
	text_only(out, d, 1, o->top);
	text_changes(out, "Blocks", d->bl, d->n_bl, 0, o->top);
}

static void json_rows(FILE *out, const char *key, const struct delta *v,
		      unsigned int n, int funcs, int only)
{
	unsigned int i, first = 1;

	fprintf(out, "  \"%s\": [", key);
	for (i = 0; i < n; i++) {
		const struct delta *x = &v[i];

		if (only == 1 && !(x->a && !x->b))
			continue;
		if (only == 2 && !(!x->a && x->b))
			continue;
		if (!only && funcs != 2 && !changed(x))
			continue;
		fprintf(out, "%s\n    {\"%s\": ", first ? "" : ",",
			funcs == 1 ? "name" : "function");
		json_string(out, x->name);
		if (funcs != 1)
			fprintf(out, ", \"offset\": \"0x%" PRIx64 "\"", x->off);
		fprintf(out,
			", \"a\": %" PRIu64 ", \"b\": %" PRIu64
			", \"change\": %" PRId64,
			x->a, x->b, (int64_t)(x->b - x->a));
		if (per_call)
			fprintf(out,
				", \"a_per_call\": %.6f, \"b_per_call\": "
				"%.6f",
				va(x), vb(x));
		fprintf(out, ", \"relative\": ");
		if (x->a)
			fprintf(out, "%.4f}", (vb(x) - va(x)) / va(x));
		else
			fprintf(out, "null}");
		first = 0;
	}
	fprintf(out, "%s]", first ? "" : "\n  ");
}

static void json_side(FILE *out, const char *key, const char *path,
		      const struct session *s)
{
	fprintf(out, "  \"%s\": {\"path\": ", key);
	json_string(out, path);
	fprintf(out, ", \"kernel\": ");
	json_string(out, s->kernel);
	fprintf(out, ", \"command\": ");
	json_string(out, s->command);
	fprintf(out, ", \"blocks\": %u},\n", s->n_blocks);
}

static void print_json(FILE *out, const struct diff_args *o,
		       const struct session *s, struct diff *d)
{
	fprintf(out, "{\n  \"kjit_diff\": 1,\n");
	json_side(out, "a", o->path[0], &s[0]);
	json_side(out, "b", o->path[1], &s[1]);
	fprintf(out, "  \"same_kernel\": %s,\n",
		strcmp(s[0].kernel, s[1].kernel) ? "false" : "true");
	if (per_call) {
		fprintf(out, "  \"per\": {\"function\": ");
		json_string(out, o->per);
		fprintf(out,
			", \"a_calls\": %" PRIu64 ", \"b_calls\": %" PRIu64
			"},\n",
			calls[0], calls[1]);
	}
	qsort(d->fn, d->n_fn, sizeof(*d->fn), cmp_change);
	json_rows(out, "functions", d->fn, d->n_fn, 1, 0);
	fprintf(out, ",\n");
	qsort(d->bl, d->n_bl, sizeof(*d->bl), cmp_change);
	json_rows(out, "blocks", d->bl, d->n_bl, 0, 0);
	fprintf(out, ",\n");
	qsort(d->bl, d->n_bl, sizeof(*d->bl), cmp_key);
	json_rows(out, "only_a", d->bl, d->n_bl, 0, 1);
	fprintf(out, ",\n");
	json_rows(out, "only_b", d->bl, d->n_bl, 0, 2);
	fprintf(out, "\n}\n");
}

/* --per FUNC: its calls in each recording into calls[]; 0, or 1 after
 * saying why (absent, or never called: nothing to divide by). */
static int per_calls(const struct session *s, const char *func,
		     const char *const path[2])
{
	unsigned int i, k;

	for (k = 0; k < 2; k++) {
		const struct sess_func *f = NULL;

		for (i = 0; i < s[k].n_funcs && !f; i++)
			if (!strcmp(s[k].funcs[i].name, func))
				f = &s[k].funcs[i];
		if (!f || !f->calls) {
			fprintf(stderr,
				"kjit diff: --per %s: %s %s (nothing to "
				"divide by)\n",
				func, path[k],
				f ? "never called it" : "did not record it");
			return 1;
		}
		calls[k] = f->calls;
	}
	per_call = 1;
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_args o;
	struct session s[2];
	struct diff d = {0};
	int rc = 1;

	if (parse_diff(argc, argv, &o))
		return 2;
	if (load(&s[0], o.path[0]))
		return 1;
	if (load(&s[1], o.path[1])) {
		session_free(&s[0]);
		return 1;
	}
	if (strcmp(s[0].kernel, s[1].kernel))
		fprintf(stderr,
			"kjit diff: warning: %s is from kernel %s, %s from "
			"kernel %s: the same offsets may be different code\n",
			o.path[0], s[0].kernel, o.path[1], s[1].kernel);
	if (o.per && per_calls(s, o.per, o.path))
		goto out;
	d.fn = union_of(&s[0], &s[1], 1, &d.n_fn);
	d.bl = union_of(&s[0], &s[1], 0, &d.n_bl);
	if (!d.fn || !d.bl) {
		fprintf(stderr, "kjit diff: out of memory\n");
		goto out;
	}
	if (o.json)
		print_json(stdout, &o, s, &d);
	else
		print_text(stdout, &o, s, &d);
	rc = 0;
out:
	free(d.fn);
	free(d.bl);
	session_free(&s[0]);
	session_free(&s[1]);
	return rc;
}
