/* args.c - parse the FUNC lists, options and `-- COMMAND` (see args.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kmod/kjit_ioctl.h"
#include "args.h"
#include "tools/kernel/sysfiles.h"

struct parser {
	int argc, i;
	char **argv;
	unsigned int allowed;
	const char *name;
	FILE *err;
};

static int bad(struct parser *p, const char *msg, const char *arg)
{
	fprintf(p->err, "kjit %s: %s%s%s (kjit help %s)\n", p->name, msg,
		arg ? " " : "", arg ? arg : "", p->name);
	return -1;
}

static int add_func(struct parser *p, struct args *a, const char *f)
{
	a->funcs[a->n_funcs++] = f; /* room for every word of argv */
	return 0;
}

static int number_in(struct parser *p, const char *opt, long min, long max,
		     int *out)
{
	char *end;
	long v;

	if (p->i + 1 >= p->argc)
		return bad(p, "missing value after", opt);
	v = strtol(p->argv[++p->i], &end, 10);
	if (*end || end == p->argv[p->i] || v < min || v > max) {
		char what[96];

		snprintf(what, sizeof(what),
			 "%s: '%s' is not a number from %ld "
			 "to %ld",
			 opt, p->argv[p->i], min, max);
		return bad(p, "bad number for", what);
	}
	*out = (int)v;
	return 0;
}

static int number(struct parser *p, const char *opt, int min, int *out)
{
	return number_in(p, opt, min, 1000000, out);
}

/* --deep-max, --cache-kb, --max-blocks: 1 if @o is none of them. */
static int limit_option(struct parser *p, struct args *a, const char *o)
{
	if (!(p->allowed & ARG_LIMITS))
		return 1;
	if (!strcmp(o, "--deep-max"))
		return number_in(p, o, 1, KJIT_DEEP_MAX, &a->deep_max);
	if (!strcmp(o, "--cache-kb"))
		return number_in(p, o, 4, KJIT_CACHE_KB_MAX, &a->cache_kb);
	if (!strcmp(o, "--max-blocks"))
		return number_in(p, o, 16, KJIT_BLOCKS_MAX, &a->max_blocks);
	return 1;
}

/* -p PID[,PID...] or -C CPU[,CPU...]: the scope @kind with those ids. */
static int id_list(struct parser *p, struct args *a, const char *opt,
		   unsigned int kind)
{
	const char *s;
	char *end;
	long v;

	if (a->scope)
		return bad(p, "one of -p, -C and -G, once:", opt);
	if (p->i + 1 >= p->argc)
		return bad(p, "missing value after", opt);
	s = p->argv[++p->i];
	a->scope_ids = calloc(strlen(s) / 2 + 1, sizeof(*a->scope_ids));
	if (!a->scope_ids)
		return bad(p, "out of memory", NULL);
	for (;;) {
		v = strtol(s, &end, 10);
		if (end == s || (*end && *end != ',') || v < 0 ||
		    v >= (kind == KJIT_SCOPE_TASKS ? 4194304 : 65536) ||
		    (kind == KJIT_SCOPE_TASKS && !v) ||
		    a->scope_n >= KJIT_SCOPE_MAX) {
			char what[80];

			snprintf(what, sizeof(what), "%s: '%s'", opt,
				 p->argv[p->i]);
			return bad(p, "bad value for", what);
		}
		a->scope_ids[a->scope_n++] = (unsigned int)v;
		if (!*end)
			break;
		s = end + 1;
	}
	a->scope = kind;
	return 0;
}

/* The cgroup v2 hierarchy's mount point into @mnt; 0, or -1. */
static int cgroup2_mount(char *mnt, size_t size)
{
	FILE *f = fopen(sysfile(2, "/proc/self/mounts"), "r");
	char dev[256], dir[512], type[64];
	int found = 0;

	if (!f)
		return -1;
	while (!found &&
	       fscanf(f, "%255s %511s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2"))
			found = snprintf(mnt, size, "%s", dir) < (int)size;
	fclose(f);
	return found ? 0 : -1;
}

/* -G PATH: the processes of cgroup v2 PATH (below its mount; a leading
 * '/' or the mount's own prefix is allowed) at attach, and the processes
 * they fork: scope TASKS | CHILDREN | CGROUP with their ids. */
static int cgroup_list(struct parser *p, struct args *a, const char *opt)
{
	char mnt[512], file[1200], what[1400];
	const char *path;
	unsigned int v;
	size_t m;
	FILE *f;

	if (a->scope)
		return bad(p, "one of -p, -C and -G, once:", opt);
	if (p->i + 1 >= p->argc)
		return bad(p, "missing value after", opt);
	path = p->argv[++p->i];
	if (cgroup2_mount(mnt, sizeof(mnt)))
		return bad(p, "no cgroup v2 hierarchy is mounted for", opt);
	m = strlen(mnt);
	if (!strncmp(path, mnt, m) && (path[m] == '/' || !path[m]))
		path += m;
	while (*path == '/')
		path++;
	snprintf(file, sizeof(file), "%s/%s%scgroup.procs", mnt, path,
		 *path ? "/" : "");
	snprintf(what, sizeof(what), "%s: no cgroup '%s' (%s)", opt,
		 p->argv[p->i], file);
	f = fopen(sysfile(3, file), "r");
	if (!f)
		return bad(p, "bad value for", what);
	a->scope_ids = calloc(KJIT_SCOPE_MAX, sizeof(*a->scope_ids));
	if (!a->scope_ids) {
		fclose(f);
		return bad(p, "out of memory", NULL);
	}
	while (a->scope_n < KJIT_SCOPE_MAX && fscanf(f, "%u", &v) == 1)
		if (v)
			a->scope_ids[a->scope_n++] = v;
	fclose(f);
	snprintf(what, sizeof(what), "%s '%s': no process in it to count",
		 opt, p->argv[p->i]);
	if (!a->scope_n)
		return bad(p, "nothing to attach to:", what);
	a->cgroup = p->argv[p->i];
	a->scope = KJIT_SCOPE_TASKS | KJIT_SCOPE_CHILDREN | KJIT_SCOPE_CGROUP;
	return 0;
}

/* --if EXPR: one more predicate, its FUNC named once. */
static int pred_option(struct parser *p, struct args *a, const char *opt)
{
	struct tool_pred *t;
	char why[96], what[256];
	int i;

	if (p->i + 1 >= p->argc)
		return bad(p, "missing 'FUNC:argN OP VALUE' after", opt);
	if (!a->preds)
		a->preds = calloc((size_t)p->argc, sizeof(*a->preds));
	if (!a->preds)
		return bad(p, "out of memory", NULL);
	t = &a->preds[a->n_preds];
	if (pred_parse(p->argv[++p->i], t, why, sizeof(why))) {
		snprintf(what, sizeof(what), "%s '%s': %s", opt,
			 p->argv[p->i], why);
		return bad(p, "bad predicate", what);
	}
	for (i = 0; i < a->n_preds; i++)
		if (!strcmp(a->preds[i].func, t->func))
			return bad(p, "one --if per function:", t->func);
	a->n_preds++;
	return 0;
}

static int funcs_after_f(struct parser *p, struct args *a)
{
	int n = 0;

	while (p->i + 1 < p->argc && p->argv[p->i + 1][0] != '-') {
		if (add_func(p, a, p->argv[++p->i]))
			return -1;
		n++;
	}
	return n ? 0 : bad(p, "-f needs at least one FUNC", NULL);
}

/* One option at p->i; 1 if it was `--`. */
static int option(struct parser *p, struct args *a)
{
	const char *o = p->argv[p->i];
	unsigned int al = p->allowed;
	int r;

	if (!strcmp(o, "--") && (al & ARG_COMMAND))
		return 1;
	if (!strcmp(o, "--best-effort") && (al & ARG_BEST_EFFORT))
		a->best_effort = 1;
	else if (!strcmp(o, "--deep") && (al & ARG_DEEP))
		a->deep = 1;
	else if (!strcmp(o, "--icount") && (al & ARG_ICOUNT))
		a->icount = 1;
	else if (!strcmp(o, "--oracle") && (al & ARG_ORACLE))
		a->oracle = 1;
	else if ((!strcmp(o, "-a") || !strcmp(o, "--all")) && (al & ARG_SCOPE))
		a->all = 1;
	else if (!strcmp(o, "--count-kjit") && (al & ARG_SCOPE))
		a->count_kjit = 1;
	else if ((!strcmp(o, "-p") || !strcmp(o, "--pid")) && (al & ARG_SCOPE))
		return id_list(p, a, o, KJIT_SCOPE_TASKS);
	else if ((!strcmp(o, "-C") || !strcmp(o, "--cpu")) && (al & ARG_SCOPE))
		return id_list(p, a, o, KJIT_SCOPE_CPUS);
	else if ((!strcmp(o, "-G") || !strcmp(o, "--cgroup")) &&
		 (al & ARG_SCOPE))
		return cgroup_list(p, a, o);
	else if (!strcmp(o, "-v") || !strcmp(o, "--verbose"))
		a->verbose = 1;
	else if (!strcmp(o, "--no-count") && (al & ARG_NO_COUNT))
		a->no_count = 1;
	else if (!strcmp(o, "--split") && (al & ARG_SPLIT))
		a->split = 1;
	else if (!strcmp(o, "--time") && (al & ARG_TIME))
		a->time = 1;
	else if (!strcmp(o, "--if") && (al & ARG_IF))
		return pred_option(p, a, o);
	else if (!strcmp(o, "--split-max") && (al & ARG_SPLIT))
		return number_in(p, o, 1, KJIT_SPLIT_BANKS_MAX - 2,
				 &a->split_max);
	else if (!strcmp(o, "--split-blocks") && (al & ARG_SPLIT))
		return number_in(p, o, 1, 4 * 4096, &a->split_blocks);
	else if ((!strcmp(o, "-f") || !strcmp(o, "--func")) &&
		 (al & ARG_FUNC_OPT))
		return funcs_after_f(p, a);
	else if ((!strcmp(o, "-o") || !strcmp(o, "--output")) &&
		 (al & ARG_OUTPUT)) {
		if (p->i + 1 >= p->argc)
			return bad(p, "missing file after", o);
		a->output = p->argv[++p->i];
	} else if (!strcmp(o, "--force") && (al & ARG_OUTPUT))
		a->force = 1;
	else if ((!strcmp(o, "-n") || !strcmp(o, "--runs")) && (al & ARG_RUNS))
		return number(p, o, 1, &a->runs);
	else if ((r = limit_option(p, a, o)) != 1)
		return r;
	else
		return bad(p, "unknown option", o);
	return 0;
}

static int check(struct parser *p, struct args *a)
{
	if (!a->n_funcs)
		return bad(p,
			   (p->allowed & ARG_FUNC_OPT)
			       ? "name functions with -f FUNC..."
			       : "name at least one FUNC",
			   NULL);
	if ((p->allowed & ARG_COMMAND) && (!a->cmd || !a->cmd[0]))
		return bad(p, "give the command to run after --", NULL);
	if (a->deep_max && !a->deep)
		return bad(p, "--deep-max only makes sense with --deep", NULL);
	if ((a->split_max || a->split_blocks) && !a->split)
		return bad(p, "--split-max and --split-blocks go with --split",
			   NULL);
	if (a->time && a->no_count)
		return bad(p, "--time times the counted code: not with "
			      "--no-count",
			   NULL);
	if (a->split && a->no_count)
		return bad(p, "--split counts by process: not with --no-count",
			   NULL);
	if (a->oracle && !a->deep)
		return bad(p, "--oracle checks deep mode: add --deep", NULL);
	if (a->all && a->scope)
		return bad(p, "-a counts everything: not with -p, -C or -G",
			   NULL);
	if (a->count_kjit &&
	    (a->scope == KJIT_SCOPE_TASKS ||
	     ((p->allowed & ARG_COMMAND) && !a->all && !a->scope)))
		return bad(p,
			   "--count-kjit is for a system-wide or CPU scope: "
			   "add -a or -C",
			   NULL);
	return 0;
}

int args_parse(int argc, char **argv, unsigned int allowed, const char *name,
	       struct args *a, FILE *err)
{
	struct parser p = {argc, 1, argv, allowed, name, err};
	int r;

	memset(a, 0, sizeof(*a));
	a->funcs = calloc((size_t)argc + 1, sizeof(*a->funcs));
	if (!a->funcs)
		return bad(&p, "out of memory", NULL);
	a->runs = 5; /* compare: at least 5 for a median and spread */
	for (; p.i < argc; p.i++) {
		if (argv[p.i][0] != '-' || !argv[p.i][1]) {
			if (allowed & ARG_FUNC_OPT)
				return bad(&p, "unexpected argument",
					   argv[p.i]);
			if (add_func(&p, a, argv[p.i]))
				return -1;
			continue;
		}
		r = option(&p, a);
		if (r < 0)
			return -1;
		if (r == 1) {
			a->cmd = &argv[p.i + 1];
			break;
		}
	}
	return check(&p, a);
}

void args_free(struct args *a)
{
	free(a->preds);
	a->preds = NULL;
	a->n_preds = 0;
	free(a->scope_ids);
	a->scope_ids = NULL;
	free(a->funcs);
	a->funcs = NULL;
	a->n_funcs = 0;
}
