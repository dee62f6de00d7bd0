/*
 * test_funcset.c - FUNC arguments to attach targets (tools/session/funcset.c)
 * on the fixture system root: patterns (`glob`, `module:glob`) expanded to the
 * instrumentable functions they match, each skipped one named with its reason,
 * aliases and repeats attached once, and the errors: a pattern matching
 * nothing, or nothing instrumentable, an offset on a pattern.
 */
#include <stdlib.h>
#include <string.h>
#include "tools/kernel/eligible.h"
#include "tools/session/funcset.h"
#include "tools/kernel/symtab.h"
#include "tools/kernel/sysfiles.h"
#include "check.h"

static struct symtab t;
static struct eligible e;
static struct funcset fs;
static char msgs[8192];

static int list_max = FUNCSET_LIST_MAX;

/* Builds from the space-separated FUNCs of @line; returns its result. */
static int build(const char *line)
{
	static char buf[512];
	const char *v[32];
	struct capture c;
	int n = 0, rc;
	char *p;

	snprintf(buf, sizeof(buf), "%s", line);
	for (p = strtok(buf, " "); p && n < 32; p = strtok(NULL, " "))
		v[n++] = p;
	funcset_free(&fs);
	rc = funcset_build(&fs, &t, &e, v, n, list_max, "attach",
			   capture_begin(&c));
	snprintf(msgs, sizeof(msgs), "%s", capture_end(&c));
	free(c.buf);
	return rc;
}

/* The targets' names, space-separated. */
static const char *names(void)
{
	static char s[2048];
	size_t used = 0;
	int i;

	s[0] = 0;
	for (i = 0; i < fs.n && used < sizeof(s); i++)
		used += (size_t)snprintf(s + used, sizeof(s) - used, "%s%s",
					 i ? " " : "", fs.t[i].name);
	return s;
}

static void expect(const char *name, const char *line, int rc, const char *want,
		   const char *msg)
{
	int got = build(line);
	static char why[12288];

	snprintf(why, sizeof(why), "rc %d targets [%s] messages [%s]", got,
		 names(), msgs);
	check(name,
	      (got != 0) == (rc != 0) && (!want || !strcmp(names(), want)) &&
		  (!msg || strstr(msgs, msg)),
	      why);
}

int main(void)
{
	area = "tool.funcset";
	setenv("KJIT_SYSROOT", FIXTURES "/sysroot", 1);
	if (symtab_load(&t, sysfile(0, "/proc/kallsyms")) ||
	    eligible_load(&e, &t)) {
		check("load", 0, "fixture");
		return 1;
	}
	/* not the names of translated blocks in kjit_pool (vfs_read+0x293) */
	expect("glob", "vfs_*", 0, "vfs_read", NULL);
	check("glob_not_blocks", !strstr(msgs, "0x293"), msgs);
	expect("glob_several", "*_read", 0, "vfs_read ksys_read", NULL);
	expect("glob_skips", "*", 0,
	       "vfs_read ksys_read dup_static helper __do_sys_getpid "
	       "mymod:pipe_helper",
	       "kjit attach: skipped notify_die: on the kprobe blacklist\n");
	check(
	    "glob_skip_reasons",
	    fs.skipped == 15 &&
		strstr(msgs, "skipped __bsearch_alias: used by kjit's "
			     "dispatcher\n") &&
		strstr(msgs, "skipped bsearch: used by kjit's dispatcher\n") &&
		strstr(msgs, "skipped schedule_idle: idle path") &&
		strstr(msgs, "skipped no_fentry_fn: not traceable") &&
		strstr(msgs, "skipped entry_SYSCALL_64: entry text\n") &&
		strstr(msgs, "skipped kjit:kjit_dispatch: part of kjit") &&
		strstr(msgs, "kjit attach: 6 functions to attach; 15 "
			     "matching functions skipped (not "
			     "instrumentable, above)\n"),
	    msgs);
	/* past list_max skipped functions, one line counts them by reason */
	list_max = 10;
	expect("glob_skips_counted", "*", 0, NULL,
	       "kjit attach: skipped 15 matching functions kjit cannot "
	       "instrument: ");
	check("glob_skips_summary",
	      !strstr(msgs, "skipped notify_die") &&
		  strstr(msgs, " 2 used by kjit's dispatcher;") &&
		  strstr(msgs, " 1 on the kprobe blacklist") &&
		  strstr(msgs, "(-v names each)\n"),
	      msgs);
	list_max = FUNCSET_LIST_MAX;
	/* a function two patterns match is skipped (and named) once */
	expect("skipped_once", "* *", 0, NULL, NULL);
	check("skipped_once_count",
	      fs.skipped == 15 && strstr(msgs, "skipped notify_die") &&
		  !strstr(strstr(msgs, "skipped notify_die") + 1,
			  "skipped notify_die"),
	      msgs);
	/* aliases: one target, the first name in address order */
	expect("aliases_once", "*sys_getpid", 0, "__do_sys_getpid", NULL);
	expect("name_and_glob_once", "vfs_read vfs_*", 0, "vfs_read", NULL);
	expect("same_name_twice", "ksys_read ksys_read", 0, "ksys_read", NULL);
	expect("module_glob", "mymod:*", 0, "mymod:pipe_helper", NULL);
	expect("vmlinux_glob", "vmlinux:pipe*", 1, NULL,
	       "kjit attach: 'vmlinux:pipe*': no kernel function matches\n");
	expect("module_absent", "nomod:*", 1, NULL,
	       "kjit attach: 'nomod:*': no module nomod is loaded (lsmod lists "
	       "them)\n");
	expect("no_match", "zz_*", 1, NULL,
	       "kjit attach: 'zz_*': no kernel function matches\n");
	expect("none_instrumentable", "entry_*", 1, NULL,
	       "kjit attach: 'entry_*': no instrumentable function matches "
	       "(1 skipped)\n");
	expect("glob_offset", "vfs_*+0x10", 1, NULL,
	       "vfs_*+0x10: a pattern names whole functions");
	/* names and addresses go to the module as given, refused or not */
	expect("name_refused_passed", "entry_SYSCALL_64", 0, "entry_SYSCALL_64",
	       NULL);
	expect("address", "0xffffffff81001300", 0, "ksys_read", NULL);
	expect("ambiguous", "dup_static", 1, NULL, "ambiguous");
	funcset_free(&fs);
	eligible_free(&e);
	symtab_free(&t);
	return failures ? 1 : 0;
}
