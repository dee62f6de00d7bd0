/* args.h - command-line parsing shared by attach, record and compare.
 *
 *   attach  [SCOPE] [--best-effort] [--no-count] [--deep] [SPLIT]
 *           [LIMITS] FUNC...
 *   record  [SCOPE] [--best-effort] [--deep [--oracle]] [SPLIT] [LIMITS]
 *           -f FUNC...
 *           [-o FILE] [--force] -- COMMAND
 *   compare [--deep] [--icount] [LIMITS] -f FUNC... [-n RUNS] -- COMMAND [ARGS]
 *   each also takes -v (name every function a pattern skipped)
 *   attach and record also take --time and --if 'FUNC:argN OP VALUE'
 *   (repeatable, one per attached FUNC: predicate.h)
 *   LIMITS: [--deep-max N] [--cache-kb N] [--max-blocks N] (0: the
 *           module's default; ranges as kjit_attach in kmod/kjit_ioctl.h)
 *   SCOPE:  -a (every task on every CPU: attach's default), -p PID[,PID]
 *           (those processes), -C CPU[,CPU] (everything on those CPUs);
 *           record's default is COMMAND and the processes it forks;
 *           --count-kjit: -a and -C count kjit's own processes too (they
 *           are left out by default: kmod/own.h)
 *   SPLIT:  --split (count by process: kmod/split.h) [--split-max N]
 *           (1..KJIT_SPLIT_BANKS_MAX - 2 processes with counts of their
 *           own) [--split-blocks N] (1..16384 distinct blocks split)
 *
 * `-f` takes every following word up to the next option or `--`; it may be
 * repeated. FUNC words are kept as given, any number of them: patterns
 * are expanded at attach (funcset.h). Invariants: parsing never touches the
 * kernel; every error is one line on the error stream and the result -1 (usage
 * error, exit status 2).
 */
#ifndef KJIT_TOOL_ARGS_H
#define KJIT_TOOL_ARGS_H

#include <stdio.h>
#include "predicate.h"

#define ARG_BEST_EFFORT (1u << 0)
#define ARG_DEEP	(1u << 1)  /* --deep */
#define ARG_FUNC_OPT	(1u << 2)  /* functions come after -f, not bare */
#define ARG_OUTPUT	(1u << 3)  /* -o FILE */
#define ARG_RUNS	(1u << 4)  /* -n RUNS */
#define ARG_COMMAND	(1u << 5)  /* -- COMMAND required */
#define ARG_ICOUNT	(1u << 6)  /* --icount: the clock counts instructions */
#define ARG_LIMITS	(1u << 7)  /* --deep-max, --cache-kb, --max-blocks */
#define ARG_ORACLE	(1u << 8)  /* --oracle: function_graph run first */
#define ARG_SCOPE	(1u << 9)  /* -a, -p PIDS, -C CPUS, -G CGROUP */
#define ARG_NO_COUNT	(1u << 10) /* --no-count */
/* --split [--split-max N] [--split-blocks N]: counts by process
 * (default: KJIT_SPLIT_BANKS - 2 processes, 4096 blocks) */
#define ARG_SPLIT (1u << 11)
#define ARG_TIME  (1u << 12) /* --time: time per function */
#define ARG_IF	  (1u << 13) /* --if 'FUNC:argN OP VALUE' (predicate.h) */

struct args {
	const char **funcs; /* FUNC words (patterns unexpanded), into argv */
	int n_funcs;
	char **cmd; /* NULL-terminated, from argv */
	int best_effort, deep, runs, no_count, icount;
	int deep_max, cache_kb, max_blocks; /* 0: the module's default */
	int oracle;
	int split;	  /* --split: KJIT_ATTACH_SPLIT */
	int split_max;	  /* --split-max N: processes with banks of their
			   * own (0: the module's default) */
	int split_blocks; /* --split-blocks N: blocks split (0: 4096) */
	int time;	  /* --time: KJIT_ATTACH_TIME */
	int all;		 /* -a: system-wide */
	int count_kjit;		 /* --count-kjit: KJIT_SCOPE_KJIT */
	unsigned int scope;	 /* KJIT_SCOPE_*: -p (TASKS), -C (CPUS), or
				  * ALL (-a or neither) */
	unsigned int *scope_ids; /* -p pids or -C CPUs, scope_n of them */
	int scope_n;
	const char *cgroup; /* -G PATH: scope_ids are its processes */
	struct tool_pred *preds; /* --if, n_preds of them (one per FUNC) */
	int n_preds;
	int force;   /* record --force: a failed command may overwrite */
	int verbose; /* -v: name every function a pattern skipped */
	const char *output;
};

/* Parses argv[1..argc) of subcommand @name accepting the ARG_* in @allowed.
 * Returns 0 or -1 after one line on @err. */
int args_parse(int argc, char **argv, unsigned int allowed, const char *name,
	       struct args *a, FILE *err);
/* Frees what args_parse() allocated. */
void args_free(struct args *a);

#endif
