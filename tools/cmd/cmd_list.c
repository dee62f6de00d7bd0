/*
 * cmd_list.c - `kjit list PATTERN...`: kernel functions matching shell
 * globs, each marked instrumentable or not with the module's reason.
 *
 * PATTERN matches the name; `module:PATTERN` also the module (`vmlinux`
 * for the kernel proper). Output, one function per line after a header:
 *   <address> <yes|no> <module:name or name>  [<reason>]
 * Exit status 1 when nothing matches.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "tools/session/attach.h"
#include "commands.h"
#include "tools/kernel/eligible.h"
#include "tools/session/funcglob.h"
#include "tools/kernel/symtab.h"
#include "tools/session/target.h"
#include "tools/report/plural.h"
#include "tools/report/say.h"

static int matches_any(const struct ksym *s, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (argv[i][0] != '-' && funcglob_match(s, argv[i]))
			return 1;
	return 0;
}

static unsigned int list(const struct symtab *t, const struct eligible *e,
			 int argc, char **argv, int only_ok)
{
	char name[320];
	unsigned int n = 0, ok = 0;
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct ksym *s = &t->s[i];
		const char *why;

		if (!funcglob_listable(s) || !matches_any(s, argc, argv))
			continue;
		why = eligible_why(e, s);
		if (only_ok && why)
			continue;
		if (!n++)
			printf("%-18s %-4s %s\n", "ADDRESS", "OK",
			       "FUNCTION  [WHY NOT]");
		ok += !why;
		target_symname(s, name, sizeof(name));
		printf("0x%016" PRIx64 " %-4s %s%s%s\n", s->addr,
		       why ? "no" : "yes", name, why ? "  " : "",
		       why ? why : "");
	}
	if (n)
		printf("# %u function%s, %u instrumentable\n", n, plural_s(n),
		       ok);
	return n;
}

/* A plain name (no glob) that matched nothing: the names close to it. */
static void say_near_names(const struct symtab *t, const char *arg)
{
	char hint[512];

	const char *colon = strchr(arg, ':');

	if (arg[0] == '-' || strpbrk(arg, "*?[") ||
	    symtab_addr(t, colon ? colon + 1 : arg))
		return; /* a glob, or a name that is there (--ok hid it) */
	target_did_you_mean(t, arg, hint, sizeof(hint));
	if (hint[0])
		fprintf(stderr, "kjit list: %s: no such kernel function%s\n",
			arg, hint);
}

int cmd_list(int argc, char **argv)
{
	struct eligible e;
	struct symtab t;
	int i, only_ok = 0, npat = 0;
	unsigned int n;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ok")) {
			only_ok = 1;
		} else if (argv[i][0] == '-') {
			fprintf(
			    stderr,
			    "kjit list: unknown option %s (kjit help list)\n",
			    argv[i]);
			return 2;
		} else {
			npat++;
		}
	}
	if (!npat) {
		fprintf(stderr, "kjit list: give a PATTERN, e.g. 'vfs_*' (kjit "
				"help list)\n");
		return 2;
	}
	if (load_symbols(&t))
		return 1;
	if (eligible_load(&e, &t)) {
		say("out of memory\n");
		symtab_free(&t);
		return 1;
	}
	n = list(&t, &e, argc, argv, only_ok);
	for (i = 1; i < argc; i++)
		if (argv[i][0] != '-')
			funcglob_say_absent_module(stderr, "list", &t, argv[i]);
	if (!n)
		fprintf(stderr, "kjit list: no kernel function matches%s\n",
			only_ok ? " (and is instrumentable)" : "");
	for (i = 1; !n && i < argc; i++)
		say_near_names(&t, argv[i]);
	eligible_free(&e);
	symtab_free(&t);
	return n ? 0 : 1;
}
