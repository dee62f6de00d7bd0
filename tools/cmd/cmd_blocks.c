/*
 * cmd_blocks.c - `kjit blocks FUNC`: a function's static basic blocks with
 * their disassembly and control-flow edges (cfg.h), code read live through
 * /proc/kcore.
 *
 * Output:
 *   <name> 0x<start>-0x<end> (<size> bytes): <n> blocks, <m> edges
 *   block <i> <name>+0x<off> 0x<addr> (<bytes> bytes, <n> insns)[ runs
 * natively: <why>] 0x<addr>  <instruction>
 *       -> <i> <name>+0x<off> (taken|fallthrough|jump)   | -> <sym>+0x<off>
 * (outside)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "tools/session/attach.h"
#include "tools/session/cfg.h"
#include "commands.h"
#include "tools/report/disasm.h"
#include "tools/kernel/kenv.h"
#include "tools/report/names.h"
#include "tools/kernel/symtab.h"
#include "tools/kernel/sysfiles.h"
#include "tools/session/target.h"
#include "tools/report/plural.h"

static const char *const edge_names[] = {"fallthrough", "taken", "jump",
					 "static key"};

static void print_edge(const struct cfg *g, const struct symtab *t,
		       const struct ksym *fn, const struct cfg_edge *e)
{
	const struct ksym *o;

	if (!e->external) {
		printf("    -> block %ld %s+0x%" PRIx64 " (%s)\n",
		       cfg_block_at(g, e->to), fn->name, e->to - fn->addr,
		       edge_names[e->kind]);
		return;
	}
	o = symtab_containing(t, e->to);
	if (o)
		printf("    -> %s+0x%" PRIx64 " (%s, outside the function)\n",
		       o->name, e->to - o->addr, edge_names[e->kind]);
	else
		printf("    -> 0x%" PRIx64 " (%s, outside the function)\n",
		       e->to, edge_names[e->kind]);
}

static void print_block(const struct cfg *g, const struct symtab *t,
			const struct ksym *fn, struct kenv *env, size_t i)
{
	const struct cfg_block *b = &g->blk[i];
	const struct cfg_insn *last = &g->insn[b->first + b->n - 1];
	struct disasm_syms sy = disasm_syms_of(t);
	unsigned int k;

	printf("block %zu %s+0x%" PRIx64 " 0x%016" PRIx64 " (%" PRIu64
	       " bytes, %zu insns)",
	       i, fn->name, b->start - fn->addr, b->start, b->end - b->start,
	       b->n);
	if (last->reason)
		printf(" runs natively: %s", reason_text(last->reason));
	printf("\n");
	if (disasm_range(env->kc, b->start, (uint32_t)(b->end - b->start),
			 "    ", &sy, stdout))
		printf("    (cannot decode the code)\n");
	for (k = 0; k < b->n_edges; k++)
		print_edge(g, t, fn, &b->edge[k]);
}

static int show(const struct symtab *t, const struct ksym *fn)
{
	struct kenv *env = kenv_open(sysfile(2, "/proc/kcore"), t);
	struct cfg g;
	size_t i;
	int err;

	if (!env) {
		fprintf(stderr, "kjit blocks: cannot read %s: %s%s\n",
			sysfile(2, "/proc/kcore"), strerror(errno),
			errno == ENOENT ? " (kernel without CONFIG_PROC_KCORE)"
			: errno == EACCES || errno == EPERM
			    ? " (kjit needs root)"
			    : "");
		return 1;
	}
	err = cfg_build(&g, fn->addr, fn->end, &env->env);
	if (err) {
		fprintf(stderr, "kjit blocks: %s: %s\n", fn->name,
			err == -EIO
			    ? "its code cannot be read through /proc/kcore"
			    : strerror(-err));
		kenv_close(env);
		return 1;
	}
	printf("%s 0x%016" PRIx64 "-0x%016" PRIx64 " (%" PRIu64
	       " bytes): %zu block%s, %zu edge%s\n",
	       fn->name, fn->addr, fn->end, fn->end - fn->addr, g.n_blk,
	       plural_s(g.n_blk), g.n_edges, plural_s(g.n_edges));
	for (i = 0; i < g.n_blk; i++)
		print_block(&g, t, fn, env, i);
	cfg_free(&g);
	kenv_close(env);
	return 0;
}

int cmd_blocks(int argc, char **argv)
{
	struct symtab t;
	struct target r;
	int rc;

	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr,
			"kjit blocks: give one FUNC (kjit help blocks)\n");
		return 2;
	}
	if (load_symbols(&t))
		return 1;
	rc = target_resolve(&t, argv[1], &r, stderr) ? 1 : show(&t, r.sym);
	symtab_free(&t);
	return rc;
}
