/* lcov.c - a session's block counts as an lcov tracefile: collect per
 * file the lines, functions and conditional branches, then print one
 * SF..end_of_record record per file. See lcov.h for the counting rules. */
#include "lcov.h"
#include "say.h"

#include <Zydis/Zydis.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct lc_line {
	const char *file;
	int line;
	uint64_t count;
};
struct lc_fn {
	const char *file, *name;
	int line;
	uint64_t calls;
};
struct lc_br {
	const char *file;
	int line, block;
	uint64_t taken, not_taken, count;
};

struct lc {
	struct lc_line *ln;
	size_t n_ln, cap_ln;
	struct lc_fn *fn;
	size_t n_fn;
	struct lc_br *br;
	size_t n_br, cap_br;
};

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	*cap = *cap ? *cap * 2 : 256;
	if (*cap < need)
		*cap = need;
	p = realloc(p, *cap * elem);
	if (!p) {
		say("out of memory\n");
		exit(1);
	}
	return p;
}

/* Raises (file, line) to at least @count (max rule), adding it at 0. */
static void line_hit(struct lc *c, const char *file, int line, uint64_t count)
{
	size_t i;

	for (i = c->n_ln; i-- > 0;)
		if (c->ln[i].line == line && !strcmp(c->ln[i].file, file)) {
			if (count > c->ln[i].count)
				c->ln[i].count = count;
			return;
		}
	c->ln = grow(c->ln, &c->cap_ln, c->n_ln + 1, sizeof(*c->ln));
	c->ln[c->n_ln++] = (struct lc_line){file, line, count};
}

static void rows_hit(struct lc *c, struct srcline *sl, uint64_t a,
		     uint64_t len, uint64_t count)
{
	static struct srcrow rows[8192]; /* a function's rows (big ones too) */
	int i, n = srcline_rows(sl, a, len, rows, 8192);

	for (i = 0; i < n; i++)
		line_hit(c, rows[i].file, rows[i].line, count);
}

static uint64_t block_count(const struct session *s, uint64_t addr)
{
	unsigned int lo = 0, hi = s->n_blocks;

	while (lo < hi) {
		unsigned int m = (lo + hi) / 2;

		if (s->blocks[m].addr == addr)
			return s->blocks[m].count;
		if (s->blocks[m].addr < addr)
			lo = m + 1;
		else
			hi = m;
	}
	return 0;
}

/* If block @b (debug address @a) ends in a conditional jump, adds its
 * BRDA pair on the jump's line. */
static void branch_of(struct lc *c, const struct session *s,
		      struct srcline *sl, const struct sess_block *b,
		      uint64_t a)
{
	uint8_t code[256];
	ZydisDisassembledInstruction d;
	ZyanU64 tgt;
	uint64_t off = 0, last = 0, delta = b->addr - a;
	struct srcframe fr[1];
	struct lc_br br = {0};
	size_t i;

	if (b->len > sizeof(code) || srcline_code(sl, a, code, b->len))
		return;
	while (off < b->len) {
		if (!ZYAN_SUCCESS(ZydisDisassembleIntel(
			    ZYDIS_MACHINE_MODE_LONG_64, a + off, code + off,
			    b->len - off, &d)))
			return;
		last = off;
		off += d.info.length;
	}
	if (d.info.meta.category != ZYDIS_CATEGORY_COND_BR ||
	    !ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&d.info, &d.operands[0],
						   a + last, &tgt)) ||
	    srcline_frames(sl, a + last, fr, 1) < 1)
		return;
	br.file = fr[0].file;
	br.line = fr[0].line;
	br.count = b->count;
	br.taken = block_count(s, tgt + delta);
	br.not_taken = block_count(s, b->addr + b->len);
	if (br.taken > b->count)
		br.taken = b->count;
	if (br.not_taken > b->count)
		br.not_taken = b->count;
	for (i = 0; i < c->n_br; i++)
		if (c->br[i].line == br.line && !strcmp(c->br[i].file, br.file))
			br.block++;
	c->br = grow(c->br, &c->cap_br, c->n_br + 1, sizeof(*c->br));
	c->br[c->n_br++] = br;
}

static void collect(struct lc *c, const struct session *s,
		    struct srcline **sls, int n_sl, struct lcov_totals *t)
{
	unsigned int i;
	int k;
	uint64_t *base = calloc(s->n_funcs + 1, sizeof(*base));
	struct srcline **fsl = calloc(s->n_funcs + 1, sizeof(*fsl));
	struct srcline *sl;
	struct srcframe fr[1];

	c->fn = calloc(s->n_funcs + 1, sizeof(*c->fn));
	if (!base || !fsl || !c->fn) {
		say("out of memory\n");
		exit(1);
	}
	for (i = 0; i < s->n_funcs; i++) {
		const struct sess_func *f = &s->funcs[i];

		t->funcs++;
		for (k = 0; k < n_sl && !base[i]; k++)
			base[i] = srcline_addr(fsl[i] = sls[k], f->name, 0);
		sl = fsl[i];
		if (!base[i] || srcline_frames(sl, base[i], fr, 1) < 1) {
			base[i] = 0;
			continue;
		}
		t->funcs_mapped++;
		/* FN names the symbol: "MOD:func" without "MOD:" */
		c->fn[c->n_fn++] = (struct lc_fn){
			fr[0].file,
			strchr(f->name, ':') ? strchr(f->name, ':') + 1 : f->name,
			fr[0].line, f->calls};
		if (f->end > f->start && f->end - f->start < (1u << 20))
			rows_hit(c, sl, base[i], f->end - f->start, 0);
	}
	for (i = 0; i < s->n_blocks; i++) {
		const struct sess_block *b = &s->blocks[i];
		const struct sess_func *f = &s->funcs[b->func];
		uint64_t a;

		if (b->func >= s->n_funcs || !base[b->func]) {
			t->blocks_unmapped++;
			continue;
		}
		a = base[b->func] + (b->addr - f->start);
		rows_hit(c, fsl[b->func], a, b->len ? b->len : 1, b->count);
		branch_of(c, s, fsl[b->func], b, a);
	}
	free(base);
	free(fsl);
}

static int seen_file(const struct lc *c, size_t upto, const char *file)
{
	size_t i;

	for (i = 0; i < upto; i++)
		if (!strcmp(c->ln[i].file, file))
			return 1;
	return 0;
}

static int by_line(const void *x, const void *y)
{
	const struct lc_line *a = x, *b = y;

	return a->line - b->line;
}

/* One SF record: the functions, branches and lines of @file. */
static void print_file(struct lc *c, const char *file, FILE *out,
		       struct lcov_totals *t)
{
	unsigned long lf = 0, lh = 0, brf = 0, brh = 0, fnf = 0, fnh = 0;
	struct lc_line *ls = malloc((c->n_ln + 1) * sizeof(*ls));
	size_t i, n = 0;

	fprintf(out, "SF:%s\n", file);
	for (i = 0; i < c->n_fn; i++)
		if (!strcmp(c->fn[i].file, file)) {
			fprintf(out, "FN:%d,%s\n", c->fn[i].line, c->fn[i].name);
			fprintf(out, "FNDA:%" PRIu64 ",%s\n", c->fn[i].calls,
				c->fn[i].name);
			fnf++;
			fnh += c->fn[i].calls != 0;
		}
	fprintf(out, "FNF:%lu\nFNH:%lu\n", fnf, fnh);
	for (i = 0; i < c->n_br; i++) {
		const struct lc_br *b = &c->br[i];

		if (strcmp(b->file, file))
			continue;
		if (!b->count) {
			fprintf(out, "BRDA:%d,%d,0,-\nBRDA:%d,%d,1,-\n",
				b->line, b->block, b->line, b->block);
		} else {
			fprintf(out,
				"BRDA:%d,%d,0,%" PRIu64 "\nBRDA:%d,%d,1,%" PRIu64
				"\n",
				b->line, b->block, b->taken, b->line, b->block,
				b->not_taken);
		}
		brf += 2;
		brh += (b->taken != 0) + (b->not_taken != 0);
	}
	if (brf)
		fprintf(out, "BRF:%lu\nBRH:%lu\n", brf, brh);
	for (i = 0; i < c->n_ln; i++)
		if (!strcmp(c->ln[i].file, file))
			ls[n++] = c->ln[i];
	qsort(ls, n, sizeof(*ls), by_line);
	for (i = 0; i < n; i++) {
		fprintf(out, "DA:%d,%" PRIu64 "\n", ls[i].line, ls[i].count);
		lf++;
		lh += ls[i].count != 0;
	}
	fprintf(out, "LF:%lu\nLH:%lu\nend_of_record\n", lf, lh);
	free(ls);
	t->lines += lf;
	t->lines_hit += lh;
	t->branches += brf;
	t->branches_hit += brh;
}

int lcov_write(const struct session *s, struct srcline **sls, int n_sl,
	       FILE *out, struct lcov_totals *t)
{
	struct lc c = {0};
	size_t i;

	memset(t, 0, sizeof(*t));
	collect(&c, s, sls, n_sl, t);
	fprintf(out, "TN:kjit\n");
	for (i = 0; i < c.n_ln; i++)
		if (!seen_file(&c, i, c.ln[i].file))
			print_file(&c, c.ln[i].file, out, t);
	free(c.ln);
	free(c.fn);
	free(c.br);
	return 0;
}
