/*
 * annotate.c - a function's code with its counts (see annotate.h).
 *
 * Invariants: the session is not modified; the disassembly is the stored
 * code's (codeenv.h), named with the stored symbols, so a file read on
 * another machine shows what the recording kernel ran.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "jit/arch_x86.h"
#include "annotate.h"
#include "tools/session/codeenv.h"
#include "disasm.h"
#include "format.h"
#include "names.h"
#include "native.h"
#include "plural.h"
#include "srcline.h"

struct ainsn {
	uint64_t addr, count, target;
	uint8_t len;
	int has_target;
	long blk; /* static block, or -1: not reached from the entry */
	char text[160];
};

struct afunc {
	const struct session *s;
	const struct sess_func *f;
	unsigned int fi;
	struct cfg g;
	char *ran;	  /* per static block: an executed block overlaps it */
	uint64_t *bcount; /* per static block: its largest insn count */
	uint64_t btotal;
	long n_ran;
	struct ainsn *in;
	size_t n;
	uint64_t fentry; /* the __fentry__ site's address, or 0 */
	struct srcline *sl;
	uint64_t base; /* the function's address in the debug file */
};

/* ---- building ---- */

static int sweep(struct afunc *a)
{
	const struct sess_func *f = a->f;
	struct disasm_syms sy = session_syms(a->s);
	uint64_t size = f->end - f->start, off = 0;
	struct disasm_insn d;

	a->in = calloc(size ? size : 1, sizeof(*a->in));
	if (!a->in)
		return -ENOMEM;
	while (off < size) {
		struct ainsn *i = &a->in[a->n++];

		i->addr = f->start + off;
		if (disasm_one(f->code + off, f->code_len - off, i->addr, &sy,
			       &d)) {
			i->len = 1;
			snprintf(i->text, sizeof(i->text), "(bad)");
		} else {
			i->len = d.len;
			i->has_target = d.has_target;
			i->target = d.target;
			snprintf(i->text, sizeof(i->text), "%s", d.text);
		}
		i->blk = cfg_block_at(&a->g, i->addr);
		off += i->len;
	}
	return 0;
}

/* An instruction ran as often as the executed blocks holding it. */
static void count(struct afunc *a)
{
	unsigned int b;
	size_t k;

	for (b = 0; b < a->s->n_blocks; b++) {
		const struct sess_block *sb = &a->s->blocks[b];

		if (sb->func != a->fi || !sb->count)
			continue;
		for (k = 0; k < a->n; k++)
			if (a->in[k].addr >= sb->addr &&
			    a->in[k].addr < sb->addr + sb->len)
				a->in[k].count += sb->count;
	}
	for (k = 0; k < a->n; k++) {
		long blk = a->in[k].blk;

		if (blk >= 0 && a->ran[blk] && a->in[k].count > a->bcount[blk])
			a->bcount[blk] = a->in[k].count;
	}
	for (k = 0; k < a->g.n_blk; k++)
		a->btotal += a->bcount[k];
}

static void find_lines(struct afunc *a, struct debuginfo *di)
{
	int k;

	for (k = 0; di && k < di->n && !a->sl; k++)
		if ((a->base = srcline_addr(di->sl[k], a->f->name, 0)))
			a->sl = di->sl[k];
}

static void afunc_free(struct afunc *a)
{
	cfg_free(&a->g);
	free(a->ran);
	free(a->bcount);
	free(a->in);
}

static int afunc_build(struct afunc *a, const struct session *s,
		       unsigned int fi, struct debuginfo *di)
{
	const struct sess_func *f = &s->funcs[fi];
	int err;

	memset(a, 0, sizeof(*a));
	a->s = s;
	a->f = f;
	a->fi = fi;
	err = session_cfg(s, fi, &a->g);
	if (err)
		return err;
	a->ran = calloc(a->g.n_blk ? a->g.n_blk : 1, 1);
	a->bcount = calloc(a->g.n_blk ? a->g.n_blk : 1, sizeof(*a->bcount));
	if (!a->ran || !a->bcount || sweep(a)) {
		afunc_free(a);
		return -ENOMEM;
	}
	a->n_ran = session_cover_marks(s, fi, &a->g, a->ran);
	count(a);
	if (f->code_len >= KX86_FENTRY_LEN)
		a->fentry = f->start + kx86_fentry_offset(f->code, f->code_len);
	find_lines(a, di);
	return 0;
}

static int is_fentry(const struct afunc *a, const struct ainsn *i)
{
	return i->addr == a->fentry && i->len == KX86_FENTRY_LEN;
}

static const char *refused(const struct afunc *a, long blk)
{
	const struct cfg_block *b = &a->g.blk[blk];
	const struct cfg_insn *last = &a->g.insn[b->first + b->n - 1];

	return last->reason ? reason_text(last->reason) : NULL;
}

/* ---- source text ---- */

/* The text of @line of @file, if the file can be read here; a few files
 * are kept (a function's lines come from one or two). */
static const char *source_text(const char *file, int line)
{
	static struct {
		char *name, *buf, **lines;
		int n;
	} c[8];
	static int next;
	int k;
	FILE *f;
	long size;

	for (k = 0; k < 8; k++)
		if (c[k].name && !strcmp(c[k].name, file))
			goto found;
	k = next++ % 8;
	free(c[k].name);
	free(c[k].buf);
	free(c[k].lines);
	memset(&c[k], 0, sizeof(c[k]));
	c[k].name = strdup(file);
	f = fopen(file, "r");
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) || !(c[k].buf = malloc((size_t)size + 1)) ||
	    fread(c[k].buf, 1, (size_t)size, f) != (size_t)size) {
		if (f)
			fclose(f);
		return NULL;
	}
	fclose(f);
	c[k].buf[size] = 0;
	c[k].lines = malloc(((size_t)size + 2) * sizeof(char *));
	for (char *p = c[k].buf; c[k].lines && p && *p;) {
		c[k].lines[c[k].n++] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = 0;
	}
found:
	return line >= 1 && line <= c[k].n ? c[k].lines[line - 1] : NULL;
}

/* The frames at @i, or 0. A line-table row outside every scope of the
 * debug info (libdw finds no function there) belongs to the function
 * being annotated, whose symbol holds it: named so, as addr2line names it
 * from the symbol table. */
static int frames_at(const struct afunc *a, const struct ainsn *i,
		     struct srcframe *fr, int max)
{
	const char *name = strchr(a->f->name, ':');
	int n;

	if (!a->sl)
		return 0;
	n = srcline_frames(a->sl, a->base + (i->addr - a->f->start), fr, max);
	if (n >= 1 && !strcmp(fr[0].func, "??"))
		fr[0].func = name ? name + 1 : a->f->name;
	return n;
}

/* ---- text ---- */

struct lastline {
	const char *file, *func;
	int line;
};

/* "; FILE:LINE FUNC[, inlined in OUTER]" (and the source text) when the
 * line of @i differs from the last one printed. */
static void text_line(const struct afunc *a, const struct ainsn *i,
		      struct lastline *l, FILE *out)
{
	struct srcframe fr[8];
	const char *src;
	int n;

	n = frames_at(a, i, fr, 8);
	if (n < 1 ||
	    (l->file && fr[0].line == l->line && !strcmp(fr[0].file, l->file) &&
	     !strcmp(fr[0].func, l->func)))
		return;
	l->file = fr[0].file;
	l->line = fr[0].line;
	l->func = fr[0].func;
	fprintf(out, "%14s; %s:%d %s", "", fr[0].file, fr[0].line, fr[0].func);
	if (n > 1)
		fprintf(out, ", inlined in %s", fr[n - 1].func);
	fprintf(out, "\n");
	src = source_text(fr[0].file, fr[0].line);
	if (src) {
		src += strspn(src, " \t");
		fprintf(out, "%14s;   %d: %s\n", "", fr[0].line, src);
	}
}

static void text_block_head(const struct afunc *a, long blk, FILE *out)
{
	const struct cfg_block *b = &a->g.blk[blk];
	const char *why = refused(a, blk);

	fprintf(out, "block %ld %s+0x%" PRIx64 ": ", blk, a->f->name,
		b->start - a->f->start);
	if (a->ran[blk])
		fprintf(out, "%" PRIu64 " execution%s (%.1f%%)", a->bcount[blk],
			plural_s(a->bcount[blk]),
			a->btotal
			    ? 100.0 * (double)a->bcount[blk] / (double)a->btotal
			    : 0.0);
	else
		fprintf(out, "never ran");
	if (why)
		fprintf(out, " (runs natively: %s)", why);
	fprintf(out, "\n");
}

static void text_insn(const struct afunc *a, const struct ainsn *i, FILE *out)
{
	char c[24];

	if (i->blk >= 0 && !a->ran[i->blk])
		snprintf(c, sizeof(c), "-");
	else if (i->blk < 0 && !i->count)
		c[0] = 0;
	else
		snprintf(c, sizeof(c), "%" PRIu64, i->count);
	fprintf(out, "%12s  0x%016" PRIx64 "  +0x%-5" PRIx64 " %s%s\n", c,
		i->addr, i->addr - a->f->start, i->text,
		is_fentry(a, i) ? "    <- __fentry__ site" : "");
}

static void text_head(const struct afunc *a, FILE *out)
{
	const struct sess_func *f = a->f;
	char words[640];

	fprintf(out,
		"%s%s 0x%016" PRIx64 "-0x%016" PRIx64 " (%" PRIu64
		" bytes): %zu block%s, %ld ran, %ld never ran; %" PRIu64
		" call%s, %" PRIu64 " block execution%s\n",
		f->name, f->deep ? " (deep)" : "", f->start, f->end,
		f->end - f->start, a->g.n_blk, plural_s(a->g.n_blk), a->n_ran,
		(long)a->g.n_blk - a->n_ran, f->calls, plural_s(f->calls),
		f->executions, plural_s(f->executions));
	if (native_total(f))
		fprintf(out, "  %s\n", native_words(f, words, sizeof(words)));
	else if (!f->native_known)
		fprintf(out, "  native runs: not in this file (an older kjit "
			     "recorded it)\n");
}

static void text_func(const struct afunc *a, FILE *out)
{
	struct lastline l = {0};
	long cur = -2;
	size_t k;

	text_head(a, out);
	fprintf(out, "\n%12s  %-18s  %-7s %s\n", "count", "address", "offset",
		"instruction");
	for (k = 0; k < a->n; k++) {
		const struct ainsn *i = &a->in[k];

		if (i->blk != cur && i->blk >= 0)
			text_block_head(a, i->blk, out);
		else if (i->blk != cur)
			fprintf(out, "not reached from the entry:\n");
		cur = i->blk;
		text_line(a, i, &l, out);
		text_insn(a, i, out);
	}
}

static void text_header(const struct session *s, const struct annotate_opts *o,
			const struct debuginfo *di, FILE *out)
{
	int k;

	if (s->live)
		fprintf(out, "# kjit annotate: live session (%s)\n",
			s->st.attached ? "attached" : "detached");
	else
		fprintf(out,
			"# kjit annotate: %s, recorded %s on %s\n"
			"# command: %s\n",
			o->source ? o->source : "file", s->time, s->kernel,
			s->command[0] ? s->command : "-");
	if (!di || !di->n) {
		fprintf(out, "# source lines: unavailable: %s\n",
			di && di->why[0] ? di->why : "no debug info");
		return;
	}
	fprintf(out, "# source lines: ");
	for (k = 0; k < di->n; k++)
		fprintf(out, "%s%s", k ? ", " : "", di->path[k]);
	fprintf(out, "\n");
}

/* ---- JSON ---- */

static void json_line(const struct afunc *a, const struct ainsn *i, FILE *out)
{
	struct srcframe fr[8];
	int n = frames_at(a, i, fr, 8);

	if (n < 1) {
		fprintf(out, "null");
		return;
	}
	fprintf(out, "{\"file\": ");
	json_string(out, fr[0].file);
	fprintf(out, ", \"line\": %d, \"function\": ", fr[0].line);
	json_string(out, fr[0].func);
	fprintf(out, ", \"inlined_in\": ");
	if (n > 1)
		json_string(out, fr[n - 1].func);
	else
		fprintf(out, "null");
	fprintf(out, "}");
}

static void json_insn(const struct afunc *a, const struct ainsn *i, int last,
		      FILE *out)
{
	fprintf(out,
		"        {\"offset\": %" PRIu64 ", \"address\": \"0x%" PRIx64
		"\", \"len\": %u, \"count\": %" PRIu64 ", \"text\": ",
		i->addr - a->f->start, i->addr, i->len, i->count);
	json_string(out, i->text);
	if (i->has_target)
		fprintf(out, ", \"target\": \"0x%" PRIx64 "\"", i->target);
	else
		fprintf(out, ", \"target\": null");
	fprintf(out, ", \"fentry_site\": %s, \"line\": ",
		is_fentry(a, i) ? "true" : "false");
	json_line(a, i, out);
	fprintf(out, "}%s\n", last ? "" : ",");
}

/* The instructions of block @blk (or, -1, of no block). */
static void json_insns(const struct afunc *a, long blk, FILE *out)
{
	size_t k, last = a->n;

	for (k = 0; k < a->n; k++)
		if (a->in[k].blk == blk)
			last = k;
	for (k = 0; k < a->n; k++)
		if (a->in[k].blk == blk)
			json_insn(a, &a->in[k], k == last, out);
}

static void json_block(const struct afunc *a, long blk, FILE *out)
{
	const struct cfg_block *b = &a->g.blk[blk];
	const struct cfg_insn *last = &a->g.insn[b->first + b->n - 1];

	fprintf(out,
		"      {\"index\": %ld, \"offset\": %" PRIu64
		", \"address\": \"0x%" PRIx64 "\", \"len\": %" PRIu64
		", \"insns\": %zu, \"count\": %" PRIu64
		", \"share\": %.4f, \"ran\": %s, \"refused\": ",
		blk, b->start - a->f->start, b->start, b->end - b->start, b->n,
		a->bcount[blk],
		a->btotal ? (double)a->bcount[blk] / (double)a->btotal : 0.0,
		a->ran[blk] ? "true" : "false");
	if (last->reason)
		json_string(out,
			    kjit_reason_name((enum kjit_reason)last->reason));
	else
		fprintf(out, "null");
	fprintf(out, ",\n       \"instructions\": [\n");
	json_insns(a, blk, out);
	fprintf(out, "      ]}%s\n", blk + 1 == (long)a->g.n_blk ? "" : ",");
}

static void json_func(const struct afunc *a, int last, FILE *out)
{
	const struct sess_func *f = a->f;
	long k;

	fprintf(out, "    {\"name\": ");
	json_string(out, f->name);
	fprintf(out,
		", \"start\": \"0x%" PRIx64 "\", \"end\": \"0x%" PRIx64
		"\", \"deep\": %s, \"calls\": %" PRIu64
		", \"executions\": %" PRIu64 ", \"static_blocks\": %zu"
		", \"ran_blocks\": %ld, \"never_ran_blocks\": %ld, ",
		f->start, f->end, f->deep ? "true" : "false", f->calls,
		f->executions, a->g.n_blk, a->n_ran,
		(long)a->g.n_blk - a->n_ran);
	native_json(f, out);
	fprintf(out, ",\n     \"blocks\": [\n");
	for (k = 0; k < (long)a->g.n_blk; k++)
		json_block(a, k, out);
	fprintf(out, "     ],\n     \"unreached\": [\n");
	json_insns(a, -1, out);
	fprintf(out, "     ]}%s\n", last ? "" : ",");
}

static void json_header(const struct session *s, const struct debuginfo *di,
			FILE *out)
{
	int k;

	fprintf(out, "{\n  \"kjit_annotate\": 1,\n  \"source\": \"%s\",\n",
		s->live ? "live" : "file");
	fprintf(out, "  \"kernel\": ");
	json_string(out, s->kernel);
	fprintf(out, ",\n  \"command\": ");
	json_string(out, s->command);
	fprintf(out, ",\n  \"debuginfo\": [");
	for (k = 0; di && k < di->n; k++) {
		fprintf(out, "%s", k ? ", " : "");
		json_string(out, di->path[k]);
	}
	fprintf(out, "],\n  \"functions\": [\n");
}

int annotate_print(const struct session *s, const unsigned int *fis,
		   unsigned int n, const struct annotate_opts *o, FILE *out)
{
	struct afunc *a = calloc(n ? n : 1, sizeof(*a));
	unsigned int k, built;
	int err = a ? 0 : -ENOMEM;

	for (built = 0; built < n && !err; built++)
		err = afunc_build(&a[built], s, fis[built], o->di);
	if (err && a) /* a failed build frees its own */
		built--;
	if (!err && o->json) {
		json_header(s, o->di, out);
		for (k = 0; k < n; k++)
			json_func(&a[k], k + 1 == n, out);
		fprintf(out, "  ]\n}\n");
	} else if (!err) {
		text_header(s, o, o->di, out);
		for (k = 0; k < n; k++) {
			fprintf(out, "\n");
			text_func(&a[k], out);
		}
	}
	for (k = 0; a && k < built; k++)
		afunc_free(&a[k]);
	free(a);
	return err;
}

/* "f" of "mod:f" and of "f [mod]". */
static int same_base(const char *name, const char *want)
{
	const char *c = strchr(name, ':');
	size_t n;

	if (c)
		name = c + 1;
	n = strcspn(name, " ");
	return strlen(want) == n && !strncmp(name, want, n);
}

int annotate_find(const struct session *s, const char *want)
{
	unsigned long long addr;
	unsigned int i;
	char *end;
	int found = -1;

	for (i = 0; i < s->n_funcs; i++)
		if (!strcmp(s->funcs[i].name, want))
			return (int)i;
	if (!strncmp(want, "0x", 2)) {
		addr = strtoull(want, &end, 16);
		for (i = 0; !*end && i < s->n_funcs; i++)
			if (addr >= s->funcs[i].start && addr < s->funcs[i].end)
				return (int)i;
		return -1;
	}
	for (i = 0; i < s->n_funcs; i++)
		if (same_base(s->funcs[i].name, want)) {
			if (found >= 0)
				return -2;
			found = (int)i;
		}
	return found;
}
