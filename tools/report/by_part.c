/*
 * by_part.c - a split session's counts by process, command or CPU (see
 * by_part.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "by_part.h"
#include "say.h"
#include "tools/session/split.h"

int by_part_parse(const char *s)
{
	if (!strcmp(s, "pid"))
		return BY_PID;
	if (!strcmp(s, "comm"))
		return BY_COMM;
	if (!strcmp(s, "cpu"))
		return BY_CPU;
	return -1;
}

struct row {
	char group[40]; /* "1234 workload", "workload", "cpu 1" */
	unsigned int func;
	uint64_t calls, executions;
};

struct rows {
	struct row *r;
	unsigned int n, cap;
};

/* The block of @s at exactly @addr, or NULL (blocks are sorted). */
static const struct sess_block *block_at(const struct session *s,
					 uint64_t addr)
{
	unsigned int lo = 0, hi = s->n_blocks;

	while (lo < hi) {
		unsigned int m = (lo + hi) / 2;

		if (s->blocks[m].addr < addr)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < s->n_blocks && s->blocks[lo].addr == addr ? &s->blocks[lo]
							      : NULL;
}

static struct row *row_of(struct rows *t, const char *group, unsigned int func)
{
	unsigned int i;
	struct row *n;

	for (i = 0; i < t->n; i++)
		if (t->r[i].func == func && !strcmp(t->r[i].group, group))
			return &t->r[i];
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		n = realloc(t->r, t->cap * sizeof(*n));
		if (!n)
			return NULL;
		t->r = n;
	}
	n = &t->r[t->n++];
	memset(n, 0, sizeof(*n));
	snprintf(n->group, sizeof(n->group), "%s", group);
	n->func = func;
	return n;
}

static void group_of(const struct sess_part *p, enum by_part by, char *g,
		     size_t n)
{
	if (by == BY_CPU)
		snprintf(g, n, "cpu %u", p->id);
	else if (by == BY_COMM || !p->tgid)
		snprintf(g, n, "%s", p->comm[0] ? p->comm : "?");
	else
		snprintf(g, n, "%u %s", p->tgid, p->comm);
}

/* The rows of every part of the kind @by reads. 0, or -1 (memory). */
static int fill(const struct session *s, enum by_part by, struct rows *t)
{
	const struct sess_split *sp = s->split;
	unsigned int i, k;
	char g[40];

	for (i = 0; i < sp->n_parts; i++) {
		const struct sess_part *p = &sp->parts[i];

		if ((p->kind == PART_CPU) != (by == BY_CPU))
			continue;
		group_of(p, by, g, sizeof(g));
		for (k = 0; k < p->n; k++) {
			const struct sess_block *b = block_at(s, p->c[k].addr);
			struct row *r;

			if (!b)
				continue; /* a block the file does not list */
			r = row_of(t, g, b->func);
			if (!r)
				return -1;
			r->executions += p->c[k].count;
			if (b->addr == s->funcs[b->func].entry)
				r->calls += p->c[k].count;
		}
	}
	return 0;
}

static int heaviest(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->executions != y->executions)
		return x->executions < y->executions ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(x->group, y->group);
}

static const char *const by_names[] = {"process", "command", "CPU"};
static const char *const by_keys[] = {"pid", "comm", "cpu"};

static void print_text(const struct session *s, enum by_part by,
		       const struct rows *t, FILE *out)
{
	const struct sess_split *sp = s->split;
	unsigned int i;

	fprintf(out,
		"# kjit report: by %s (%u block%s split by process, %u "
		"counted whole; banks %u of %u used)\n",
		by_names[by], sp->split, sp->split == 1 ? "" : "s", sp->unsplit,
		sp->used, sp->banks);
	if (sp->left_over)
		fprintf(out,
			"# processes that found no bank of their own counted "
			"in [other] (%" PRIu64
			" switch-ins; kjit record --split-max N gives more)\n",
			sp->left_over);
	fprintf(out, "%-28s %-32s %12s %14s\n",
		by == BY_PID ? "pid comm" : by_keys[by], "function", "calls",
		"executions");
	for (i = 0; i < t->n; i++)
		fprintf(out, "%-28s %-32s %12" PRIu64 " %14" PRIu64 "\n",
			t->r[i].group, s->funcs[t->r[i].func].name,
			t->r[i].calls, t->r[i].executions);
}

static void print_csv(const struct session *s, const struct rows *t,
		      enum by_part by, FILE *out)
{
	unsigned int i;

	fprintf(out, "%s,function,calls,executions\n",
		by == BY_PID ? "pid comm" : by_keys[by]);
	for (i = 0; i < t->n; i++)
		fprintf(out, "%s,%s,%" PRIu64 ",%" PRIu64 "\n", t->r[i].group,
			s->funcs[t->r[i].func].name, t->r[i].calls,
			t->r[i].executions);
}

static void print_json(const struct session *s, const struct rows *t,
		       enum by_part by, FILE *out)
{
	const struct sess_split *sp = s->split;
	unsigned int i;

	fprintf(out,
		"{\n  \"by\": \"%s\", \"split\": %u, \"unsplit\": %u, "
		"\"banks\": %u, \"used\": %u, \"left_over\": %" PRIu64
		",\n  \"rows\": [",
		by_keys[by], sp->split, sp->unsplit, sp->banks, sp->used,
		sp->left_over);
	for (i = 0; i < t->n; i++) {
		fprintf(out, "%s\n    {\"group\": ", i ? "," : "");
		json_string(out, t->r[i].group);
		fprintf(out, ", \"function\": ");
		json_string(out, s->funcs[t->r[i].func].name);
		fprintf(out,
			", \"calls\": %" PRIu64 ", \"executions\": %" PRIu64
			"}",
			t->r[i].calls, t->r[i].executions);
	}
	fprintf(out, "\n  ]\n}\n");
}

int by_part_print(const struct session *s, enum by_part by,
		  enum report_fmt fmt, FILE *out)
{
	struct rows t = {0};

	if (!s->split) {
		say("--sort %s needs a session split by process: attach or "
		    "record with --split\n",
		    by_keys[by]);
		return 1;
	}
	if (fill(s, by, &t)) {
		free(t.r);
		say("out of memory\n");
		return 1;
	}
	qsort(t.r, t.n, sizeof(*t.r), heaviest);
	if (fmt == FMT_JSON)
		print_json(s, &t, by, out);
	else if (fmt == FMT_CSV)
		print_csv(s, &t, by, out);
	else
		print_text(s, by, &t, out);
	free(t.r);
	return 0;
}
