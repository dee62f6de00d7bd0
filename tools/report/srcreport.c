/* srcreport.c - "source lines" at the end of the text report: per counted
 * block (address order) FUNC+OFF, count, file:line and function, then one
 * "inlined in F at file:line" line per enclosing inline call site, as
 * `addr2line -i -f` prints them; unmapped blocks say why. */
#include "srcreport.h"

#include <inttypes.h>

/* The debug file holding @name and its address there, or NULL. */
static struct srcline *find(struct debuginfo *d, const char *name,
			    uint64_t *base)
{
	int k;

	for (k = 0; k < d->n; k++)
		if ((*base = srcline_addr(d->sl[k], name, 0)))
			return d->sl[k];
	return NULL;
}

/* The last function looked up (blocks come in address order, so a
 * function's blocks are together): a symbol-table scan per function. */
struct found {
	unsigned int func;
	struct srcline *sl;
	uint64_t base;
};

static void print_block(const struct session *s, struct debuginfo *d,
			const struct sess_block *b, struct found *c, FILE *out)
{
	const struct sess_func *f = &s->funcs[b->func];
	struct srcframe fr[16];
	struct srcline *sl;
	uint64_t base, off = b->addr - f->start;
	int i, n;

	fprintf(out, "  %s+0x%" PRIx64 " %" PRIu64 "  ", f->name, off,
		b->count);
	if (c->func != b->func) {
		c->func = b->func;
		c->sl = find(d, f->name, &c->base);
	}
	sl = c->sl;
	base = c->base;
	if (!sl) {
		fprintf(out, "unmapped: no symbol %s in the debug file(s)\n",
			f->name);
		return;
	}
	n = srcline_frames(sl, base + off, fr, 16);
	if (n < 1) {
		fprintf(out, "unmapped: no line-table row at this address\n");
		return;
	}
	fprintf(out, "%s:%d %s\n", fr[0].file, fr[0].line, fr[0].func);
	for (i = 1; i < n; i++)
		fprintf(out, "      inlined in %s at %s:%d\n", fr[i].func,
			fr[i].file, fr[i].line);
}

void srcreport_print(const struct session *s, struct debuginfo *d, FILE *out)
{
	struct found c = {.func = ~0u};
	unsigned int i;
	int k;

	if (!d->n) {
		fprintf(out, "\nsource lines: unavailable: %s\n", d->why);
		return;
	}
	fprintf(out, "\nsource lines (");
	for (k = 0; k < d->n; k++)
		fprintf(out, "%s%s", k ? ", " : "", d->path[k]);
	fprintf(out, "):\n");
	for (i = 0; i < s->n_blocks; i++)
		if (s->blocks[i].func < s->n_funcs)
			print_block(s, d, &s->blocks[i], &c, out);
}

void srcreport_where(void *ctx, const char *func, uint64_t off, FILE *out)
{
	struct debuginfo *d = ctx;
	struct srcframe fr[1];
	struct srcline *sl;
	uint64_t base;

	sl = find(d, func, &base);
	if (sl && srcline_frames(sl, base + off, fr, 1) == 1)
		fprintf(out, "  %s:%d", fr[0].file, fr[0].line);
}
