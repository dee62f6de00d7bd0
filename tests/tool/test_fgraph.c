/*
 * test_fgraph.c - host tests of `record --oracle`'s tracer run
 * (tools/kernel/fgraph.c) against a fake tracefs under KJIT_SYSROOT (a copy of
 * tests/tool/fixtures/sysroot): the settings it writes while the command
 * runs, every one written back after success, after a failure half-way
 * and never touched when the tracer is busy; the trace the command leaves
 * parsed, lost events summed over CPUs, deep-mode refusals named; the
 * filter grown from one chunk of the kernel's functions to all (built
 * with FGRAPH_CHUNK_FUNCS 2), and a kernel that would not widen it; a
 * SIGTERM sent to the tool while the command runs (passed on to the
 * command, the settings written back, nothing recorded) and a SIGHUP to a
 * tool started under nohup (no stop).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/kernel/fgraph.h"
#include "check.h"

static char root[128], tr[192];

/* name=value pairs of the fake tracefs, as a kernel with nothing set. */
static const char *const initial[][2] = {
    {"current_tracer", "nop\n"},
    {"tracing_on", "1\n"},
    {"set_ftrace_pid", "no pid\n"},
    {"set_graph_function", "#### all functions enabled ####\n"},
    {"set_ftrace_filter", "#### all functions enabled ####\n"},
    {"set_ftrace_notrace", ""},
    {"buffer_size_kb", "7 (expanded: 1408)\n"},
    {"options/funcgraph-irqs", "1\n"},
    {"options/funcgraph-proc", "0\n"},
    {"options/funcgraph-cpu", "1\n"},
    {"options/funcgraph-abstime", "0\n"},
    {"options/function-fork", "0\n"},
    {"options/latency-format", "0\n"},
    {"per_cpu/cpu0/stats", "entries: 9\noverrun: 2\n"},
    {"per_cpu/cpu1/stats", "dropped events: 3\n"},
    {"trace", ""},
    /* 5 functions, in 3 chunks of at most 2: the filter grows from the
     * first; the kernel would list each patched site in enabled_functions
     * (the fake lists all 5) */
    {"available_filter_functions",
     "vfs_read\nvfs_write\nksys_read\nhelper [ext4]\ngone\n"},
    {"enabled_functions", "a\nb\nc\nd\ne\n"},
};
#define N_INITIAL (sizeof(initial) / sizeof(initial[0]))

/* What each file must hold after a run: tracefs shows an empty
 * set_graph_function/set_ftrace_pid again; buffer_size_kb gets the size
 * it would have expanded to. (The fake files keep what was written.) */
static const char *after(const char *name, const char *init)
{
	if (!strcmp(name, "set_graph_function") ||
	    !strcmp(name, "set_ftrace_pid") ||
	    !strcmp(name, "set_ftrace_filter"))
		return "";
	if (!strcmp(name, "buffer_size_kb"))
		return "1408";
	if (!strcmp(name, "trace") || !strcmp(name, "enabled_functions"))
		return NULL; /* the command's trace, or emptied; the fake's */
	return init;
}

static char *slurp(const char *name)
{
	static char buf[4096];
	char path[1024];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", tr, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void put(const char *name, const char *val)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tr, name);
	f = fopen(path, "w");
	if (f) {
		fputs(val, f);
		fclose(f);
	}
}

static void fresh(void)
{
	char cmd[2048];
	size_t i;

	snprintf(cmd, sizeof(cmd),
		 "rm -rf %s && mkdir -p %s && cp -r %s/sysroot/. %s && "
		 "mkdir -p %s/options %s/per_cpu/cpu0 %s/per_cpu/cpu1",
		 root, root, FIXTURES, root, tr, tr, tr);
	if (system(cmd))
		fprintf(stderr, "setup failed: %s\n", cmd);
	for (i = 0; i < N_INITIAL; i++)
		put(initial[i][0], initial[i][1]);
}

static int same(const char *have, const char *want)
{
	return have && strcspn(have, "\n") == strcspn(want, "\n") &&
	       !strncmp(have, want, strcspn(want, "\n"));
}

/* 1 if every setting is back (compared without a trailing newline);
 * @partial: a run that stopped early may not have written some at all. */
static int restored(char *why, size_t size, int partial)
{
	size_t i;

	for (i = 0; i < N_INITIAL; i++) {
		const char *want = after(initial[i][0], initial[i][1]);
		char *have = slurp(initial[i][0]);

		if (!want)
			continue;
		if (!same(have, want) &&
		    !(partial && same(have, initial[i][1]))) {
			snprintf(why, size, "%s: '%s', want '%s'",
				 initial[i][0], have ? have : "(none)", want);
			return 0;
		}
	}
	return 1;
}

static const char trace[] =
    " 0)  w-5   |  ...1. |               |  vfs_read() {\n"
    " 0)  w-5   |  ...1. |               |    ksys_read() {\n"
    " 0)  w-5   |  ...1. |   1.0 us      |      exc_page_fault();\n"
    " 0)  w-5   |  ...1. |   1.0 us      |      schedule_idle();\n"
    " 0)  w-5   |  ...1. |   1.0 us      |      helper();\n"
    " 0)  w-5   |  ...1. |   1.0 us      |      gone();\n"
    " 0)  w-5   |  ...1. |   1.0 us      |    }\n"
    " 0)  w-5   |  ...1. |   1.0 us      |  }\n";

static const char *why_of(const struct oracle *o, const char *name)
{
	const struct oracle_fn *fn = oracle_find(o, name);

	return fn ? fn->why : "(absent)";
}

static void success(void)
{
	const char *roots[] = {"vfs_read"};
	char script[2048], seen[2048], why[512];
	char *cmd[] = {"sh", "-c", script, NULL};
	struct oracle o;
	int rc;

	fresh();
	put("../../../cmdtrace", trace);
	/* the command notes the settings while it runs (itself in
	 * set_ftrace_pid), then leaves the trace the kernel would have */
	snprintf(script, sizeof(script),
		 "cd %s && for f in current_tracer set_graph_function "
		 "options/funcgraph-irqs options/funcgraph-proc "
		 "options/function-fork options/latency-format buffer_size_kb "
		 "tracing_on; do printf '%%s ' $(cat $f); done > %s/seen && "
		 "tr '\\n' ' ' < set_ftrace_filter >> %s/seen && "
		 "[ $(cat set_ftrace_pid) = $$ ] && echo pid >> %s/seen && "
		 "cp %s/cmdtrace trace",
		 tr, root, root, root, root);
	memset(&o, 0, sizeof(o));
	rc = fgraph_run(&o, roots, 1, cmd);
	check("run", rc == 0, "fgraph_run failed");
	snprintf(why, sizeof(why), "%s/seen", root);
	{
		FILE *f = fopen(why, "r");
		size_t n = f ? fread(seen, 1, sizeof(seen) - 1, f) : 0;

		seen[n] = 0;
		if (f)
			fclose(f);
	}
	check("while_running",
	      !strcmp(seen, "function_graph vfs_read 0 1 1 1 16384 1 g* h* k* "
			    "v* pid\n"),
	      seen);
	check("restored", restored(why, sizeof(why), 0), why);
	check("parsed", o.n == 6 && o.lost == 5, "6 functions, 2 + 3 lost");
	check("why_noinstr",
	      !strcmp(why_of(&o, "exc_page_fault"), "noinstr text"),
	      why_of(&o, "exc_page_fault"));
	check("why_idle", !strncmp(why_of(&o, "schedule_idle"), "idle path", 9),
	      why_of(&o, "schedule_idle"));
	check("why_followable", !strcmp(why_of(&o, "helper"), ""),
	      why_of(&o, "helper"));
	check("why_unknown", !strcmp(why_of(&o, "gone"), "not in kallsyms"),
	      why_of(&o, "gone"));
	oracle_free(&o);
}

static void busy(void)
{
	const char *roots[] = {"vfs_read"};
	char *cmd[] = {"true", NULL}, why[512];
	struct oracle o;

	fresh();
	put("current_tracer", "function\n");
	memset(&o, 0, sizeof(o));
	check("busy", fgraph_run(&o, roots, 1, cmd) == 1, "accepted");
	check("busy_untouched",
	      !strcmp(slurp("current_tracer"), "function\n") &&
		  !strcmp(slurp("options/funcgraph-irqs"), "1\n") &&
		  !strcmp(slurp("buffer_size_kb"), "7 (expanded: 1408)\n"),
	      "settings changed");
	fresh();
	put("set_ftrace_filter", "vfs_read\n");
	check("filter_set", fgraph_run(&o, roots, 1, cmd) == 1, "accepted");
	oracle_free(&o);
	(void)why;
}

/* A kernel that would not widen a running tracer's filter (enabled_
 * functions lists fewer than all): an error, everything written back. */
static void not_widened(void)
{
	const char *roots[] = {"vfs_read"};
	char *cmd[] = {"true", NULL}, why[512];
	struct oracle o;

	fresh();
	put("enabled_functions", "vfs_read\nvfs_write\n");
	memset(&o, 0, sizeof(o));
	check("not_widened_fails", fgraph_run(&o, roots, 1, cmd) == 1, "ok");
	check("not_widened_restored", restored(why, sizeof(why), 0), why);
	oracle_free(&o);
	/* 6.12 adds an indented line to a direct call's record: not a
	 * function of its own */
	fresh();
	put("enabled_functions", "vfs_read\n\tdirect-->x\nvfs_write\n"
				 "\tdirect-->y\nksys_read\n");
	memset(&o, 0, sizeof(o));
	check("indented_not_counted", fgraph_run(&o, roots, 1, cmd) == 1,
	      "5 lines taken for 5 functions");
	oracle_free(&o);
}

/* A setting that cannot be read half-way: those before it are restored. */
static void half_way(void)
{
	const char *roots[] = {"vfs_read"};
	char *cmd[] = {"true", NULL}, path[1024], why[512];
	struct oracle o;

	fresh();
	snprintf(path, sizeof(path), "%s/options/latency-format", tr);
	unlink(path);
	memset(&o, 0, sizeof(o));
	check("half_way_fails", fgraph_run(&o, roots, 1, cmd) == 1, "ok");
	put("options/latency-format", "0\n");
	check("half_way_restored", restored(why, sizeof(why), 1), why);
	oracle_free(&o);
}

/* The command sends @sig to the tool (its parent), then waits 5 s for
 * it to be passed on before it notes that it ran to its end. */
static int stopped_by(int sig, char *why, size_t size)
{
	const char *roots[] = {"vfs_read"};
	char script[512], mark[256];
	char *cmd[] = {"sh", "-c", script, NULL};
	struct oracle o;
	int rc;

	fresh();
	snprintf(mark, sizeof(mark), "%s/ran-to-end", root);
	unlink(mark);
	snprintf(script, sizeof(script),
		 "kill -%d $PPID; i=0; while [ $i -lt 50 ]; do sleep 0.1; "
		 "i=$((i + 1)); done; touch %s",
		 sig, mark);
	memset(&o, 0, sizeof(o));
	rc = fgraph_run(&o, roots, 1, cmd);
	if (!restored(why, size, 0))
		rc = -1;
	oracle_free(&o);
	if (access(mark, F_OK) == 0)
		rc += 1000; /* the command was not stopped */
	return rc;
}

static void stopped(void)
{
	struct sigaction sa;
	char why[512];
	int rc;

	signal(SIGTERM, SIG_DFL);
	rc = stopped_by(SIGTERM, why, sizeof(why));
	check("sigterm_stops", rc == 128 + SIGTERM,
	      rc < 0 ? why
		     : "fgraph_run did not return 143 with the command "
		       "stopped and the settings restored");
	sigaction(SIGTERM, NULL, &sa);
	check("sigterm_disposition_back", sa.sa_handler == SIG_DFL,
	      "the tool's SIGTERM disposition is not its own again");
	signal(SIGHUP, SIG_IGN); /* nohup */
	rc = stopped_by(SIGHUP, why, sizeof(why));
	check("sighup_under_nohup", rc == 1000,
	      rc < 0 ? why
		     : "a SIGHUP the tool was started ignoring stopped the "
		       "run");
	sigaction(SIGHUP, NULL, &sa);
	check("sighup_still_ignored", sa.sa_handler == SIG_IGN,
	      "SIGHUP is no longer ignored after the run");
	signal(SIGHUP, SIG_DFL);
}

int main(void)
{
	char tmpl[] = "/tmp/kjit-fgraph.XXXXXX";

	area = "tool.fgraph";
	if (!mkdtemp(tmpl))
		return 1;
	snprintf(root, sizeof(root), "%s/root", tmpl);
	snprintf(tr, sizeof(tr), "%s/sys/kernel/tracing", root);
	setenv("KJIT_SYSROOT", root, 1);
	success();
	busy();
	not_widened();
	half_way();
	stopped();
	snprintf(tr, sizeof(tr), "rm -rf %s", tmpl);
	if (system(tr))
		return 1;
	return failures != 0;
}
