/*
 * cfg.c - static CFG discovery (invariants in cfg.h).
 *
 * Two passes: (1) a worklist walk decodes straight-line runs with
 * kjit_decode_block() from every leader (entry, jump targets, fall-through
 * after a conditional jump, call or length-limited run) and records each
 * instruction once in an offset-indexed map; (2) the instructions, in
 * address order, are cut into blocks at leaders and after transfers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "jit/translate.h"
#include "cfg.h"

struct walk {
	struct cfg *g;
	struct kjit_translator *tr;
	uint64_t fentry; /* the __fentry__ site: start, or +4 behind endbr64 */
	int32_t *at;	 /* offset -> insn index + 1 */
	uint8_t *leader;
	uint64_t *todo; /* worklist of (addr << 1 | is_leader) */
	size_t n_todo, cap_todo, cap_insn;
};

static int inside(const struct cfg *g, uint64_t a)
{
	return a >= g->start && a < g->end;
}

static int push(struct walk *w, uint64_t a, int leader)
{
	uint64_t *v;

	if (!inside(w->g, a))
		return 0;
	if (leader)
		w->leader[a - w->g->start] = 1;
	if (w->n_todo == w->cap_todo) {
		w->cap_todo = w->cap_todo ? 2 * w->cap_todo : 256;
		v = realloc(w->todo, w->cap_todo * sizeof(*v));
		if (!v)
			return -ENOMEM;
		w->todo = v;
	}
	w->todo[w->n_todo++] = a;
	return 0;
}

static int add_insn(struct walk *w, const struct cfg_insn *in)
{
	struct cfg *g = w->g;
	struct cfg_insn *v;

	if (w->at[in->addr - g->start])
		return 0;
	if (g->n_insn == w->cap_insn) {
		w->cap_insn = w->cap_insn ? 2 * w->cap_insn : 256;
		v = realloc(g->insn, w->cap_insn * sizeof(*v));
		if (!v)
			return -ENOMEM;
		g->insn = v;
	}
	g->insn[g->n_insn++] = *in;
	w->at[in->addr - g->start] = (int32_t)g->n_insn;
	return 0;
}

static int no_fallthrough(enum kjit_reason r)
{
	return r == KJIT_R_TRAP || r == KJIT_R_PRIVILEGED_FLOW ||
	       r == KJIT_R_DECODE || r == KJIT_R_UNREADABLE;
}

/* A refused first instruction: a one-instruction block of its own. */
static int add_refused(struct walk *w, uint64_t a, enum kjit_reason r)
{
	ZydisDecodedInstruction zi;
	struct cfg_insn in = {.addr = a, .len = 1, .reason = (uint8_t)r};
	uint8_t buf[15];
	size_t n =
	    w->tr->env->read_code(w->tr->env->opaque, a, buf, sizeof(buf));
	int err;

	if (n && ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&w->tr->dec, NULL,
							    buf, n, &zi)))
		in.len = zi.length;
	in.kind = KJIT_I_PLAIN;
	w->leader[a - w->g->start] = 1;
	err = add_insn(w, &in);
	if (!err && !no_fallthrough(r))
		err = push(w, a + in.len, 1);
	return err;
}

static int is_fentry_site(const struct walk *w, const struct kjit_insn *in)
{
	return in->addr == w->fentry && in->kind == KJIT_I_CALL &&
	       in->len == KX86_FENTRY_LEN;
}

/* Successors of a run's last instruction. */
static int push_successors(struct walk *w, const struct kjit_insn *in)
{
	uint64_t next = in->addr + in->len;
	int err = 0;

	switch (in->kind) {
	case KJIT_I_JCC:
	case KJIT_I_LOOP:
	case KJIT_I_SITE:
		err = push(w, in->target, 1);
		return err ? err : push(w, next, 1);
	case KJIT_I_JMP:
		return push(w, in->target, 1);
	case KJIT_I_CALL:
		return push(w, next, !is_fentry_site(w, in));
	case KJIT_I_CALL_IND:
		return push(w, next, 1);
	case KJIT_I_LIMIT:
		return push(w, in->addr, 1);
	default: /* ret, indirect jmp */
		return 0;
	}
}

static int walk_from(struct walk *w, uint64_t a)
{
	struct kjit_block_desc *d = &w->tr->desc;
	enum kjit_reason r;
	unsigned int i;
	int err = 0;

	if (w->at[a - w->g->start])
		return 0;
	r = kjit_decode_block(w->tr, a, d);
	if (r)
		return add_refused(w, a, r);
	for (i = 0; i < d->n && !err; i++) {
		const struct kjit_insn *in = &d->insn[i];
		struct cfg_insn c = {in->addr, in->len, in->kind, 0,
				     in->target};

		if (in->kind == KJIT_I_LIMIT || !inside(w->g, in->addr))
			return push_successors(w, in);
		if (w->at[in->addr - w->g->start])
			return 0; /* ran into code already decoded */
		if (is_fentry_site(w, in))
			c.kind = KJIT_I_DROP;
		err = add_insn(w, &c);
		if (!err && kjit_insn_is_term(in))
			err = push_successors(w, in);
	}
	return err;
}

static int by_insn_addr(const void *a, const void *b)
{
	const struct cfg_insn *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int ends_block(const struct cfg_insn *in)
{
	return in->reason ||
	       (in->kind != KJIT_I_PLAIN && in->kind != KJIT_I_DROP);
}

static void add_edge(struct cfg *g, struct cfg_block *b, uint64_t to,
		     uint8_t kind)
{
	struct cfg_edge *e = &b->edge[b->n_edges++];

	e->to = to;
	e->kind = kind;
	e->external = !inside(g, to);
	g->n_edges++;
}

static void set_edges(struct cfg *g, struct cfg_block *b, int falls)
{
	const struct cfg_insn *last = &g->insn[b->first + b->n - 1];

	if (last->reason) {
		if (!no_fallthrough((enum kjit_reason)last->reason))
			add_edge(g, b, b->end, CFG_FALL);
		return;
	}
	switch (last->kind) {
	case KJIT_I_SITE:
		add_edge(g, b, last->target, CFG_KEY);
		add_edge(g, b, b->end, CFG_FALL);
		break;
	case KJIT_I_JCC:
	case KJIT_I_LOOP:
		add_edge(g, b, last->target, CFG_TAKEN);
		add_edge(g, b, b->end, CFG_FALL);
		break;
	case KJIT_I_JMP:
		add_edge(g, b, last->target, CFG_JUMP);
		break;
	case KJIT_I_RET:
	case KJIT_I_JMP_IND:
		break;
	default: /* call, or cut before a leader */
		if (falls)
			add_edge(g, b, b->end, CFG_FALL);
	}
}

static int cut_blocks(struct walk *w)
{
	struct cfg *g = w->g;
	struct cfg_block *b = NULL;
	size_t i;

	qsort(g->insn, g->n_insn, sizeof(*g->insn), by_insn_addr);
	g->blk = calloc(g->n_insn ? g->n_insn : 1, sizeof(*g->blk));
	if (!g->blk)
		return -ENOMEM;
	for (i = 0; i < g->n_insn; i++) {
		const struct cfg_insn *in = &g->insn[i];
		int starts = !b || w->leader[in->addr - g->start] ||
			     b->end != in->addr || ends_block(&g->insn[i - 1]);

		if (starts) {
			if (b)
				set_edges(g, b, b->end == in->addr);
			b = &g->blk[g->n_blk++];
			b->start = in->addr;
			b->first = i;
		}
		b->n++;
		b->end = in->addr + in->len;
	}
	if (b)
		set_edges(g, b, i < g->n_insn);
	return 0;
}

int cfg_build(struct cfg *g, uint64_t start, uint64_t end,
	      const struct kjit_env *env)
{
	struct walk w = {.g = g};
	int err = -ENOMEM;
	uint8_t head[KX86_ENDBR64_LEN];
	size_t n;

	memset(g, 0, sizeof(*g));
	g->start = start;
	g->end = end > start ? end : start + 1;
	n = env->read_code(env->opaque, start, head, sizeof(head));
	if (!n)
		return -EIO;
	w.fentry = start + kx86_fentry_offset(head, n);
	w.tr = malloc(sizeof(*w.tr));
	w.at = calloc(g->end - start, sizeof(*w.at));
	w.leader = calloc(g->end - start, 1);
	if (!w.tr || !w.at || !w.leader ||
	    kjit_translator_init(w.tr, env, NULL) != KJIT_OK)
		goto out;
	err = push(&w, start, 1);
	while (!err && w.n_todo)
		err = walk_from(&w, w.todo[--w.n_todo]);
	if (!err)
		err = cut_blocks(&w);
out:
	free(w.tr);
	free(w.at);
	free(w.leader);
	free(w.todo);
	if (err)
		cfg_free(g);
	return err;
}

void cfg_free(struct cfg *g)
{
	free(g->insn);
	free(g->blk);
	memset(g, 0, sizeof(*g));
}

long cfg_block_at(const struct cfg *g, uint64_t addr)
{
	size_t lo = 0, hi = g->n_blk;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->blk[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->n_blk && g->blk[lo].start <= addr ? (long)lo : -1;
}
