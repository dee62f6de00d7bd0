/*
 * format.c - `kjit report` output in three formats (see format.h).
 *
 * Invariants: the session is not modified; block order is computed into a
 * separate index array, so blocks[].func keeps indexing funcs[].
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tools/session/codeenv.h"
#include "disasm.h"
#include "format.h"
#include "limits.h"
#include "names.h"
#include "native.h"
#include "tools/session/oracle.h"
#include "plural.h"
#include "say.h"

static const struct session *cmp_s;
static enum report_sort cmp_key;

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static const char *fname(const struct session *s, unsigned int fi)
{
	return fi < s->n_funcs ? s->funcs[fi].name : "?";
}

static uint64_t foff(const struct session *s, const struct sess_block *b)
{
	return b->func < s->n_funcs ? b->addr - s->funcs[b->func].start : 0;
}

static int cmp_blocks(const void *pa, const void *pb)
{
	const struct sess_block *a = &cmp_s->blocks[*(const unsigned int *)pa];
	const struct sess_block *b = &cmp_s->blocks[*(const unsigned int *)pb];
	int c;

	if (cmp_key == SORT_COUNT && a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (cmp_key == SORT_FUNC) {
		c = strcmp(fname(cmp_s, a->func), fname(cmp_s, b->func));
		if (c)
			return c;
	}
	return cmp_u64(a->addr, b->addr);
}

static int cmp_funcs(const void *pa, const void *pb)
{
	const struct sess_func *a = &cmp_s->funcs[*(const unsigned int *)pa];
	const struct sess_func *b = &cmp_s->funcs[*(const unsigned int *)pb];

	if (cmp_key == SORT_COUNT && a->executions != b->executions)
		return a->executions > b->executions ? -1 : 1;
	if (cmp_key == SORT_FUNC)
		return strcmp(a->name, b->name);
	return cmp_u64(a->start, b->start);
}

/* Index order of n items under the current key; caller frees. */
static unsigned int *order(const struct session *s, unsigned int n,
			   enum report_sort key,
			   int (*cmp)(const void *, const void *))
{
	unsigned int *ix = malloc((n ? n : 1) * sizeof(*ix)), i;

	if (!ix)
		return NULL;
	for (i = 0; i < n; i++)
		ix[i] = i;
	cmp_s = s;
	cmp_key = key;
	qsort(ix, n, sizeof(*ix), cmp);
	return ix;
}

int report_sort_parse(const char *s)
{
	if (!strcmp(s, "count"))
		return SORT_COUNT;
	if (!strcmp(s, "addr"))
		return SORT_ADDR;
	if (!strcmp(s, "func"))
		return SORT_FUNC;
	return -1;
}

void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static unsigned int shown(const struct session *s, const struct report_opts *o)
{
	return o->top && o->top < s->n_blocks ? o->top : s->n_blocks;
}

static void csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* 1 if @b is its function's entry block (counted as its calls). */
static int is_entry(const struct session *s, const struct sess_block *b)
{
	return b->func < s->n_funcs && b->addr == s->funcs[b->func].entry;
}

static void print_csv(const struct session *s, const struct report_opts *o,
		      const unsigned int *bx, FILE *out)
{
	unsigned int i;

	fprintf(out, "function,offset,address,count,len,insns,cpus,entry\n");
	for (i = 0; i < shown(s, o); i++) {
		const struct sess_block *b = &s->blocks[bx[i]];

		csv_field(out, fname(s, b->func));
		fprintf(out,
			",0x%" PRIx64 ",0x%" PRIx64 ",%" PRIu64
			",%u,%u,%u,%d\n",
			foff(s, b), b->addr, b->count, b->len, b->insns,
			b->cpus, is_entry(s, b));
	}
}

static void json_kv_str(FILE *out, const char *k, const char *v, int comma)
{
	fprintf(out, "  \"%s\": ", k);
	json_string(out, v);
	fprintf(out, "%s\n", comma ? "," : "");
}

static void json_func(FILE *out, const struct sess_func *f, int last)
{
	fprintf(out, "    {\"name\": ");
	json_string(out, f->name);
	fprintf(out,
		", \"start\": \"0x%" PRIx64 "\", \"end\": \"0x%" PRIx64
		"\", \"size\": %" PRIu64 ", \"calls\": %" PRIu64
		", \"executions\": %" PRIu64
		", \"blocks_run\": %u, \"deep\": %s, ",
		f->start, f->end, f->end - f->start, f->calls, f->executions,
		f->blocks_run, f->deep ? "true" : "false");
	if (f->static_blocks > 0)
		fprintf(out,
			"\"static_blocks\": %ld, \"covered\": %ld, "
			"\"coverage\": %.4f, ",
			f->static_blocks, f->covered,
			(double)f->covered / (double)f->static_blocks);
	else
		fprintf(out, "\"static_blocks\": null, \"covered\": null, "
			     "\"coverage\": null, ");
	native_json(f, out);
	fprintf(out, "}%s\n", last ? "" : ",");
}

void json_stats(FILE *out, const struct sess_stats *st)
{
	unsigned int i, first = 1;

	fprintf(out,
		"  \"stats\": {\"translated\": %" PRIu64 ", \"links\": %" PRIu64
		", \"native_links\": %" PRIu64 ", \"exits_native\": %" PRIu64
		", \"dispatches\": %" PRIu64 ", \"lookup_hits\": %" PRIu64
		", \"predicted\": %" PRIu64 ", \"fixups_copied\": %" PRIu64
		", \"orc_entries\": %" PRIu64 ", \"pool_bytes\": %" PRIu64
		", \"pool_taken\": %" PRIu64 ", \"translate_ns\": %" PRIu64
		", \"cache_bytes\": %" PRIu64
		",\n    \"deep\": %s, \"deep_funcs\": %" PRIu64
		", \"deep_over_budget\": %" PRIu64 ",\n    \"fallback\": {",
		st->translated, st->links, st->native_links, st->exits_native,
		st->dispatches, st->lookup_hits, st->predicted,
		st->fixups_copied, st->orc_entries, st->pool_bytes,
		st->pool_taken, st->translate_ns, st->cache_bytes,
		st->deep ? "true" : "false", st->deep_funcs,
		st->deep_over_budget);
	for (i = 0; i < SESSION_FALLBACKS; i++)
		fprintf(out, "%s\"%s\": %" PRIu64, i ? ", " : "",
			fallback_key(i), st->fallback[i]);
	fprintf(out, "},\n    \"refused\": {");
	for (i = 1; i < KJIT_R_COUNT; i++) {
		if (!st->refused[i])
			continue;
		fprintf(out, "%s\"%s\": %" PRIu64, first ? "" : ", ",
			kjit_reason_name((enum kjit_reason)i), st->refused[i]);
		first = 0;
	}
	fprintf(out, "},\n    ");
	limits_json(st, out);
	fprintf(out, "}\n");
}

/* --uncovered: calls @fn for every static block of function @fi that no
 * executed block overlaps (coverage's rule). -ENOENT when the function's
 * code is not stored (codeenv.h), else the number of static blocks. */
static long each_uncovered(const struct session *s, unsigned int fi,
			   void (*fn)(const struct session *s, unsigned int fi,
				      const struct cfg *g, size_t k, void *ctx),
			   void *ctx, long *never)
{
	struct cfg g;
	char *mark;
	size_t k;
	long n;

	if (session_cfg(s, fi, &g))
		return -ENOENT;
	mark = malloc(g.n_blk ? g.n_blk : 1);
	if (!mark) {
		cfg_free(&g);
		return -ENOMEM;
	}
	*never = (long)g.n_blk - session_cover_marks(s, fi, &g, mark);
	for (k = 0; fn && k < g.n_blk; k++)
		if (!mark[k])
			fn(s, fi, &g, k, ctx);
	n = (long)g.n_blk;
	free(mark);
	cfg_free(&g);
	return n;
}

static uint8_t blk_reason(const struct cfg *g, size_t k)
{
	return g->insn[g->blk[k].first + g->blk[k].n - 1].reason;
}

struct uncovered_ctx {
	const struct report_opts *o;
	FILE *out;
};

static void text_uncovered_one(const struct session *s, unsigned int fi,
			       const struct cfg *g, size_t k, void *ctx)
{
	const struct cfg_block *b = &g->blk[k];
	const struct uncovered_ctx *c = ctx;
	FILE *out = c->out;

	fprintf(out,
		"  %s+0x%" PRIx64 " 0x%016" PRIx64 " %" PRIu64
		" bytes %zu insns",
		s->funcs[fi].name, b->start - s->funcs[fi].start, b->start,
		b->end - b->start, b->n);
	if (blk_reason(g, k))
		fprintf(out, " (runs natively: %s)",
			reason_text(blk_reason(g, k)));
	if (c->o->where)
		c->o->where(c->o->where_ctx, s->funcs[fi].name,
			    b->start - s->funcs[fi].start, out);
	fprintf(out, "\n");
}

static void text_uncovered(const struct session *s, const unsigned int *fx,
			   const struct report_opts *o, FILE *out)
{
	struct uncovered_ctx c = {o, out};
	unsigned int i;
	long n, never;

	fprintf(out, "\nuncovered: the static blocks that never ran\n");
	for (i = 0; i < s->n_funcs; i++) {
		const struct sess_func *f = &s->funcs[fx[i]];

		n = each_uncovered(s, fx[i], NULL, NULL, &never);
		if (n < 0) {
			fprintf(out,
				"%s: unknown: its code is not in this file "
				"(an older kjit recorded it)\n",
				f->name);
			continue;
		}
		if (!never) {
			fprintf(out, "%s: all %ld static blocks ran\n", f->name,
				n);
			continue;
		}
		fprintf(out, "%s: %ld of %ld static blocks never ran\n",
			f->name, never, n);
		each_uncovered(s, fx[i], text_uncovered_one, &c, &never);
	}
}

struct json_unc {
	FILE *out;
	int first;
};

static void json_uncovered_one(const struct session *s, unsigned int fi,
			       const struct cfg *g, size_t k, void *ctx)
{
	const struct cfg_block *b = &g->blk[k];
	struct json_unc *j = ctx;

	fprintf(j->out, "%s    {\"function\": ", j->first ? "" : ",\n");
	json_string(j->out, s->funcs[fi].name);
	fprintf(j->out,
		", \"offset\": %" PRIu64 ", \"address\": \"0x%" PRIx64
		"\", \"len\": %" PRIu64 ", \"insns\": %zu, \"refused\": ",
		b->start - s->funcs[fi].start, b->start, b->end - b->start,
		b->n);
	if (blk_reason(g, k))
		json_string(j->out, kjit_reason_name(
					(enum kjit_reason)blk_reason(g, k)));
	else
		fprintf(j->out, "null");
	fprintf(j->out, "}");
	j->first = 0;
}

/* "uncovered": [...], "uncovered_unknown": [names without stored code] */
static void json_uncovered(const struct session *s, const unsigned int *fx,
			   FILE *out)
{
	struct json_unc j = {out, 1};
	unsigned int i, first = 1;
	long never;

	fprintf(out, "  \"uncovered\": [\n");
	for (i = 0; i < s->n_funcs; i++)
		each_uncovered(s, fx[i], json_uncovered_one, &j, &never);
	fprintf(out, "%s  ],\n  \"uncovered_unknown\": [", j.first ? "" : "\n");
	for (i = 0; i < s->n_funcs; i++) {
		if (s->funcs[fx[i]].code)
			continue;
		fprintf(out, "%s", first ? "" : ", ");
		json_string(out, s->funcs[fx[i]].name);
		first = 0;
	}
	fprintf(out, "],\n");
}

static void csv_uncovered_one(const struct session *s, unsigned int fi,
			      const struct cfg *g, size_t k, void *ctx)
{
	const struct cfg_block *b = &g->blk[k];
	FILE *out = ctx;

	csv_field(out, s->funcs[fi].name);
	fprintf(out, ",0x%" PRIx64 ",0x%" PRIx64 ",0,%" PRIu64 ",%zu,0,0\n",
		b->start - s->funcs[fi].start, b->start, b->end - b->start,
		b->n);
}

static void csv_uncovered(const struct session *s, const unsigned int *fx,
			  FILE *out)
{
	unsigned int i;
	long never;

	for (i = 0; i < s->n_funcs; i++)
		each_uncovered(s, fx[i], csv_uncovered_one, out, &never);
}

static void print_json(const struct session *s, const struct report_opts *o,
		       const unsigned int *fx, const unsigned int *bx,
		       FILE *out)
{
	unsigned int i, n = shown(s, o);

	fprintf(out, "{\n  \"kjit_report\": 1,\n");
	json_kv_str(out, "source", s->live ? "live" : "file", 1);
	json_kv_str(out, "kernel", s->kernel, 1);
	json_kv_str(out, "boot_id", s->boot_id, 1);
	json_kv_str(out, "time", s->time, 1);
	json_kv_str(out, "command", s->command, 1);
	json_kv_str(out, "scope", session_scope(s), 1);
	fprintf(out, "  \"attached\": %s,\n",
		s->st.attached ? "true" : "false");
	fprintf(out, "  \"functions\": [\n");
	for (i = 0; i < s->n_funcs; i++)
		json_func(out, &s->funcs[fx[i]], i + 1 == s->n_funcs);
	fprintf(out, "  ],\n  ");
	native_json_other(s, out);
	fprintf(out, ",\n  \"blocks\": [\n");
	for (i = 0; i < n; i++) {
		const struct sess_block *b = &s->blocks[bx[i]];

		fprintf(out, "    {\"function\": ");
		json_string(out, fname(s, b->func));
		fprintf(out,
			", \"offset\": %" PRIu64 ", \"address\": \"0x%" PRIx64
			"\", \"count\": %" PRIu64 ", \"len\": %u, \"insns\": %u"
			", \"cpus\": %u}%s\n",
			foff(s, b), b->addr, b->count, b->len, b->insns,
			b->cpus, i + 1 == n ? "" : ",");
	}
	fprintf(out, "  ],\n");
	if (o->uncovered)
		json_uncovered(s, fx, out);
	json_stats(out, &s->st);
	fprintf(out, "}\n");
}

static void text_header(const struct session *s, const struct report_opts *o,
			FILE *out)
{
	if (s->live)
		fprintf(out, "# kjit report: live session (%s)\n",
			s->st.attached ? "attached" : "detached");
	else
		fprintf(out,
			"# kjit report: %s, recorded %s on %s\n# command: %s\n",
			o->source ? o->source : "file", s->time, s->kernel,
			s->command[0] ? s->command : "-");
	fprintf(out, "# scope: %s%s\n", session_scope(s),
		!strcmp(session_scope(s), "system-wide")
		    ? " (every task on every CPU, not only the command)"
		: !strcmp(session_scope(s), "system-wide" KJIT_LEFT_OUT)
		    ? " (every task on every CPU but kjit's own, not only the "
		      "command)"
		    : "");
	fprintf(out,
		"# %u function%s, %u block%s, %" PRIu64 " block execution%s\n",
		s->n_funcs, plural_s(s->n_funcs), s->n_blocks,
		plural_s(s->n_blocks), session_executions(s),
		plural_s(session_executions(s)));
	limits_print(&s->st, "# ", out);
	fprintf(out, "\n");
}

/* The name column's width: 32, or wider so that the longest name (with
 * " (deep)") keeps the columns after it aligned. */
static int func_width(const struct session *s)
{
	unsigned int i;
	int w = 32;

	for (i = 0; i < s->n_funcs; i++) {
		int n =
		    (int)strlen(s->funcs[i].name) + (s->funcs[i].deep ? 7 : 0);

		if (n > w)
			w = n;
	}
	return w;
}

/* The block column's width: 40, or the longest FUNC+0xOFF shown. */
static int block_width(const struct session *s, const unsigned int *bx,
		       unsigned int n)
{
	char where[KJIT_NAME_MAX + 24];
	unsigned int i;
	int w = 40;

	for (i = 0; i < n; i++) {
		const struct sess_block *b = &s->blocks[bx[i]];
		int k = snprintf(where, sizeof(where), "%s+0x%" PRIx64,
				 fname(s, b->func), foff(s, b));

		if (k > w)
			w = k;
	}
	return w;
}

static void text_functions(const struct session *s, const unsigned int *fx,
			   FILE *out)
{
	char name[KJIT_NAME_MAX + 8], words[640];
	unsigned int i;
	int w = func_width(s);

	fprintf(out, "%-*s %10s %12s %7s %7s %9s\n", w, "function", "calls",
		"executions", "blocks", "static", "coverage");
	for (i = 0; i < s->n_funcs; i++) {
		const struct sess_func *f = &s->funcs[fx[i]];

		snprintf(name, sizeof(name), "%s%s", f->name,
			 f->deep ? " (deep)" : "");
		fprintf(out, "%-*s %10" PRIu64 " %12" PRIu64 " %7u", w, name,
			f->calls, f->executions, f->blocks_run);
		if (f->static_blocks > 0)
			fprintf(out, " %7ld %8.1f%%\n", f->static_blocks,
				100.0 * (double)f->covered /
				    (double)f->static_blocks);
		else
			fprintf(out, " %7s %9s\n", "-", "-");
		if (native_total(f))
			fprintf(out, "  %s\n",
				native_words(f, words, sizeof(words)));
		if (native_leave_words(f, &s->st, words, sizeof(words))[0])
			fprintf(out, "  %s\n", words);
	}
	native_print_other(s, "# ", out);
}

/* --top: block @b's instructions, from the code the data file stored for
 * its function (the code that ran, on any machine), else from
 * /proc/kcore where the recording kernel runs. 0, or -1: neither. */
static int block_disasm(const struct session *s, const struct report_opts *o,
			const struct sess_block *b, FILE *out)
{
	const struct sess_func *f = &s->funcs[b->func];
	static const char indent[] = "              ";

	if (f->code && b->addr >= f->start &&
	    b->addr - f->start + b->len <= f->code_len)
		return disasm_bytes(f->code + (b->addr - f->start), b->addr,
				    b->len, indent, o->syms, out);
	if (o->kc)
		return disasm_range(o->kc, b->addr, b->len, indent, o->syms,
				    out);
	return -1;
}

static void text_blocks(const struct session *s, const struct report_opts *o,
			const unsigned int *bx, FILE *out)
{
	unsigned int i, missing = 0;
	char where[KJIT_NAME_MAX + 24];
	int w = block_width(s, bx, shown(s, o));

	fprintf(out, "\n%12s  %-*s %-18s %5s %5s %4s\n", "count", w, "block",
		"address", "bytes", "insns", "cpus");
	for (i = 0; i < shown(s, o); i++) {
		const struct sess_block *b = &s->blocks[bx[i]];

		snprintf(where, sizeof(where), "%s+0x%" PRIx64,
			 fname(s, b->func), foff(s, b));
		fprintf(out,
			"%12" PRIu64 "  %-*s 0x%016" PRIx64 " %5u %5u %4u\n",
			b->count, w, where, b->addr, b->len, b->insns, b->cpus);
		if (o->top && block_disasm(s, o, b, out)) {
			if (o->kc || s->funcs[b->func].code)
				fprintf(out, "              (cannot read the "
					     "code)\n");
			else
				missing++;
		}
	}
	if (missing)
		fprintf(out, "(no disassembly of %u block%s: %s)\n", missing,
			missing == 1 ? "" : "s",
			o->no_disasm ? o->no_disasm
				     : "cannot read /proc/kcore");
	if (shown(s, o) < s->n_blocks)
		fprintf(out, "(%u more blocks; --top 0 shows all)\n",
			s->n_blocks - shown(s, o));
}

void report_print(const struct session *s, const struct report_opts *o,
		  FILE *out)
{
	unsigned int *fx = order(s, s->n_funcs, o->sort, cmp_funcs);
	unsigned int *bx = order(s, s->n_blocks, o->sort, cmp_blocks);

	if (!fx || !bx) {
		say("out of memory\n");
	} else if (o->fmt == FMT_CSV) {
		print_csv(s, o, bx, out);
		if (o->uncovered)
			csv_uncovered(s, fx, out);
	} else if (o->fmt == FMT_JSON) {
		print_json(s, o, fx, bx, out);
	} else {
		text_header(s, o, out);
		text_functions(s, fx, out);
		text_blocks(s, o, bx, out);
		if (o->uncovered)
			text_uncovered(s, fx, o, out);
		if (s->oracle)
			oracle_report(s->oracle, s, out);
	}
	free(fx);
	free(bx);
}
