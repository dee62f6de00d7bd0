/*
 * test_format.c - host tests of `kjit report` output and kjit.data
 * (tools/report/format.c, tools/session/datafile.c, tools/report/names.c):
 * exact CSV and JSON for a fixed session, sort orders, --top, the text table, a
 * write/read round trip, refusal of cut, foreign and future files, a name for
 * every fallback and refusal code, and the calls of an IBT kernel's function.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "tools/session/datafile.h"
#include "tools/report/format.h"
#include "tools/report/names.h"
#include "tools/report/native.h"
#include "tools/report/by_part.h"
#include "tools/session/split.h"
#include "tools/session/timing.h"
#include "tools/report/time_report.h"
#include "tools/report/folded.h"
#include "check.h"

static struct sess_func funcs[2] = {
    {.name = "vfs_read",
     .start = 0xffffffff81001000ull,
     .entry = 0xffffffff81001005ull,
     .end = 0xffffffff81001300ull,
     .static_blocks = 10,
     .covered = 4},
    {.name = "ksys,read",
     .start = 0xffffffff81001300ull,
     .entry = 0xffffffff81001305ull,
     .end = 0xffffffff81001400ull,
     .deep = 1,
     .static_blocks = -1,
     .covered = -1},
};
static struct sess_block blocks[3] = {
    {0xffffffff81001005ull, 7, 0, 20, 5, 1, 0},
    {0xffffffff81001040ull, 9, 0, 8, 2, 2, 0},
    {0xffffffff81001305ull, 3, 1, 12, 4, 1, KJIT_BLOCK_PREEMPT_RET},
};

static void make(struct session *s)
{
	memset(s, 0, sizeof(*s));
	strcpy(s->kernel, "6.1.0-test");
	strcpy(s->boot_id, "boot-1");
	strcpy(s->time, "2026-01-01T00:00:00Z");
	strcpy(s->command, "workload \"read\" 10");
	s->funcs = funcs;
	s->n_funcs = 2;
	s->blocks = blocks;
	s->n_blocks = 3;
	s->st.translated = 3;
	s->st.deep = 1;
	s->st.deep_funcs = 1;
	s->st.deep_over_budget = 2;
	s->st.fallback[2] = 1;
	s->st.refused[KJIT_R_TRAP] = 1;
	session_derive(s);
}

static char *render(const struct session *s, enum report_fmt fmt,
		    enum report_sort sort, unsigned int top)
{
	struct report_opts o = {.sort = sort,
				.top = top,
				.fmt = fmt,
				.source = "test.data",
				.no_disasm = "no code in tests"};
	struct capture c;
	char *r;

	report_print(s, &o, capture_begin(&c));
	r = strdup(capture_end(&c));
	free(c.buf);
	return r;
}

static const char csv_count[] =
    "function,offset,address,count,len,insns,cpus,entry\n"
    "vfs_read,0x40,0xffffffff81001040,9,8,2,2,0\n"
    "vfs_read,0x5,0xffffffff81001005,7,20,5,1,1\n"
    "\"ksys,read\",0x5,0xffffffff81001305,3,12,4,1,1\n";

static const char json_top1[] =
    "{\n"
    "  \"kjit_report\": 1,\n"
    "  \"source\": \"file\",\n"
    "  \"kernel\": \"6.1.0-test\",\n"
    "  \"boot_id\": \"boot-1\",\n"
    "  \"time\": \"2026-01-01T00:00:00Z\",\n"
    "  \"command\": \"workload \\\"read\\\" 10\",\n"
    "  \"scope\": \"system-wide\",\n"
    "  \"attached\": false,\n"
    "  \"functions\": [\n"
    "    {\"name\": \"vfs_read\", \"start\": \"0xffffffff81001000\", \"end\": "
    "\"0xffffffff81001300\", "
    "\"size\": 768, \"calls\": 7, \"executions\": 16, \"blocks_run\": 2, "
    "\"deep\": false, \"static_blocks\": 10, "
    "\"covered\": 4, \"coverage\": 0.4000, \"native\": null},\n"
    "    {\"name\": \"ksys,read\", \"start\": \"0xffffffff81001300\", \"end\": "
    "\"0xffffffff81001400\", "
    "\"size\": 256, \"calls\": 3, \"executions\": 3, \"blocks_run\": 1, "
    "\"deep\": true, \"static_blocks\": null, "
    "\"covered\": null, \"coverage\": null, \"native\": null}\n"
    "  ],\n"
    "  \"native_other\": {\"nmi\": 0, \"nested\": 0, \"refused\": 1, "
    "\"full\": 0, \"ftrace_site\": 0, \"rcu_idle\": 0, \"map_full\": 0, "
    "\"growing\": 0, \"exiting\": 0},\n"
    "  \"blocks\": [\n"
    "    {\"function\": \"vfs_read\", \"offset\": 64, \"address\": "
    "\"0xffffffff81001040\", "
    "\"count\": 9, \"len\": 8, \"insns\": 2, \"cpus\": 2}\n"
    "  ],\n"
    "  \"stats\": {\"translated\": 3, \"links\": 0, \"native_links\": 0, "
    "\"exits_native\": 0, "
    "\"dispatches\": 0, \"lookup_hits\": 0, \"predicted\": 0, "
    "\"fixups_copied\": 0, \"orc_entries\": 0, \"pool_bytes\": 0, "
    "\"pool_taken\": 0, \"translate_ns\": 0, "
    "\"cache_bytes\": 0,\n"
    "    \"deep\": true, \"deep_funcs\": 1, \"deep_over_budget\": 2,\n"
    "    \"fallback\": {\"nmi\": 0, \"nested\": 0, \"refused\": 1, \"full\": "
    "0, \"ftrace_site\": 0, \"rcu_idle\": 0, \"map_full\": 0, "
    "\"growing\": 0, \"exiting\": 0},\n"
    "    \"refused\": {\"trap\": 1},\n"
    "    \"limits\": {\"deep_max\": 0, \"cache_kb\": 0, \"max_blocks\": 0, "
    "\"pcpu_slots\": 0, \"mem_bytes\": 0, \"deep_over_funcs\": 0, "
    "\"deep_over_budget\": 2, \"code_cache_full\": 0, "
    "\"block_map_full\": 0, \"block_map_growing\": 0, \"pcpu_full\": 0, "
    "\"pool_bytes\": 0, "
    "\"pool_empty\": 0, \"deep_held\": 0, \"deep_growing\": 0, "
    "\"pcpu_held\": 0, \"pcpu_growing\": 0, \"exit_tail_left\": 0, "
    "\"hit\": 1}}\n"
    "}\n";

static void formats(const struct session *s)
{
	char *r;

	r = render(s, FMT_CSV, SORT_COUNT, 0);
	check("csv_sort_count", !strcmp(r, csv_count), r);
	free(r);
	r = render(s, FMT_CSV, SORT_ADDR, 0);
	check("csv_sort_addr",
	      strstr(r, "entry\nvfs_read,0x5,") &&
		  strstr(r, "0\n\"ksys,read\""),
	      r);
	free(r);
	r = render(s, FMT_CSV, SORT_FUNC, 2);
	check("csv_sort_func_top",
	      !strncmp(strchr(r, '\n') + 1, "\"ksys,read\",0x5", 15) &&
		  strstr(r, "\nvfs_read,0x5,") && !strstr(r, "0x40"),
	      r);
	free(r);
	r = render(s, FMT_JSON, SORT_COUNT, 1);
	check("json", !strcmp(r, json_top1), r);
	free(r);
	r = render(s, FMT_TEXT, SORT_COUNT, 1);
	check("text",
	      strstr(r, "# kjit report: test.data, recorded "
			"2026-01-01T00:00:00Z on 6.1.0-test\n") &&
		  strstr(r, "# 2 functions, 3 blocks, 19 block executions\n") &&
		  strstr(r, "# scope: system-wide (every task on every CPU, "
			    "not only the command)\n") &&
		  strstr(r, "vfs_read                                  7       "
			    "    16       2      10     40.0%\n") &&
		  strstr(r, "ksys,read (deep)                          3       "
			    "     3       1       -         -\n") &&
		  strstr(r, "vfs_read+0x40") && !strstr(r, "vfs_read+0x5 ") &&
		  strstr(r, "(no disassembly of 1 block: no code in tests)") &&
		  strstr(r, "(2 more blocks; --top 0 shows all)"),
	      r);
	free(r);
}

/* A block line of an older kjit (no flags field) reads with flags 0. */
static int old_block(void)
{
	static char text[] = "kjit-data 1\nfunc 0x10 0x20 -1 -1 f\n"
			     "block 0x15 0 3 4 1 1\nend\n";
	struct session b;
	char why[128] = "";
	FILE *f = fmemopen(text, strlen(text), "r");
	int rc = datafile_read(&b, f, why, sizeof(why));

	fclose(f);
	check("data_block_without_flags",
	      !rc && b.n_blocks == 1 && b.blocks[0].count == 3 &&
		  !strcmp(session_scope(&b), "system-wide") &&
		  !b.blocks[0].flags,
	      rc ? why : "fields differ");
	if (!rc)
		session_free(&b);
	return 0;
}

static int roundtrip(const struct session *s)
{
	struct session b;
	struct capture c;
	char why[128], *text;
	FILE *f;
	int rc;

	datafile_write(s, capture_begin(&c));
	text = strdup(capture_end(&c));
	free(c.buf);
	check("data_header",
	      !strncmp(text, "kjit-data 2\nkernel 6.1.0-test\nboot_id boot-1\n",
		       44),
	      text);
	f = fmemopen(text, strlen(text), "r");
	rc = datafile_read(&b, f, why, sizeof(why));
	fclose(f);
	check("data_roundtrip",
	      !rc && b.n_funcs == 2 && b.n_blocks == 3 &&
		  !strcmp(b.funcs[1].name, "ksys,read") &&
		  b.funcs[0].entry == funcs[0].entry &&
		  b.funcs[1].entry == funcs[1].entry &&
		  b.funcs[0].static_blocks == 10 && b.funcs[1].covered == -1 &&
		  b.blocks[2].addr == blocks[2].addr && b.blocks[1].cpus == 2 &&
		  b.blocks[2].flags == KJIT_BLOCK_PREEMPT_RET &&
		  !b.blocks[1].flags && b.st.fallback[2] == 1 &&
		  b.st.refused[KJIT_R_TRAP] == 1 &&
		  !strcmp(b.command, s->command) && b.funcs[0].calls == 7 &&
		  b.funcs[1].deep && !b.funcs[0].deep && b.st.deep_funcs == 1 &&
		  b.st.deep_over_budget == 2 && !b.live &&
		  strstr(text, "\nscope system-wide\n") &&
		  !strcmp(b.scope, "system-wide"),
	      rc ? why : "fields differ");
	if (!rc)
		session_free(&b);
	text[strlen(text) - 4] = 0; /* drop "end\n" */
	f = fmemopen(text, strlen(text), "r");
	rc = datafile_read(&b, f, why, sizeof(why));
	fclose(f);
	check("data_cut", rc && strstr(why, "cut short"), why);
	free(text);
	return old_block();
}

/* An IBT kernel's function (endbr64 at +0, __fentry__ site at +4): its
 * calls are its entry block after the site (+9, as the module reports
 * it), not one at +5, plus those entering at its start; the entry
 * survives the data file. */
static void ibt_calls(void)
{
	struct sess_func fn = {.name = "ibt_fn",
			       .start = 0xffffffff81002000ull,
			       .end = 0xffffffff81002100ull,
			       .entry = 0xffffffff81002009ull,
			       .static_blocks = -1,
			       .covered = -1};
	struct sess_block bl[3] = {
	    {0xffffffff81002000ull, 2, 0, 9, 2, 1, 0},
	    {0xffffffff81002009ull, 5, 0, 20, 5, 1, 0},
	    {0xffffffff81002040ull, 11, 0, 8, 2, 1, 0},
	};
	struct session s = {.funcs = &fn,
			    .n_funcs = 1,
			    .blocks = bl,
			    .n_blocks = 3},
		       b;
	struct capture c;
	char why[128] = "", *text;
	FILE *f;
	int rc;

	session_derive(&s);
	check("ibt_calls", fn.calls == 7 && fn.executions == 18,
	      "calls: blocks at +9 and +0");
	datafile_write(&s, capture_begin(&c));
	text = strdup(capture_end(&c));
	free(c.buf);
	f = fmemopen(text, strlen(text), "r");
	rc = datafile_read(&b, f, why, sizeof(why));
	fclose(f);
	check("ibt_data_roundtrip",
	      !rc && b.n_funcs == 1 &&
		  b.funcs[0].entry == 0xffffffff81002009ull &&
		  b.funcs[0].calls == 7 &&
		  strstr(text, "\nentry 0 0xffffffff81002009\n"),
	      rc ? why : "entry lost");
	if (!rc)
		session_free(&b);
	free(text);
}

/* Native runs per function (native.h): the module's counts by reason, in
 * words under the function's row, in JSON, through the data file, in
 * record's one warning line; a file of an older kjit says what it lacks
 * instead of showing a zero. */
static void native(void)
{
	struct sess_func fn[3] = {
	    {.name = "__x64_sys_read",
	     .start = 0x1000,
	     .end = 0x1100,
	     .entry = 0x1005,
	     .native_known = 1},
	    {.name = "pipe_read",
	     .start = 0x2000,
	     .end = 0x2400,
	     .entry = 0x2000,
	     .deep = 1,
	     .native_known = 1,
	     .native = {[FB_FTRACE_SITE] = 20},
	     .native_holder = "a Kprobe"},
	    {.name = "vfs_read",
	     .start = 0x3000,
	     .end = 0x3100,
	     .entry = 0x3000,
	     .deep = 1,
	     .native_known = 1,
	     .native = {[2] = 1, [3] = 3}},
	};
	struct sess_block bl[1] = {{0x1005, 20, 0, 9, 2, 1, 0}};
	struct session s = {.funcs = fn,
			    .n_funcs = 3,
			    .blocks = bl,
			    .n_blocks = 1},
		       b;
	char why[128] = "", warn[1024], *text, *r;
	struct capture c;
	FILE *f;
	int rc;

	s.st.fallback[FB_FTRACE_SITE] = 20;
	s.st.fallback[2] = 1;
	s.st.fallback[3] = 3;
	s.st.fallback[0] = 2; /* NMI entries tied to no function */
	session_derive(&s);
	r = render(&s, FMT_TEXT, SORT_ADDR, 0);
	check("native.text",
	      strstr(r, "\npipe_read (deep)                          0       "
			"     0       0       -         -\n  ran natively 20x: "
			"its ftrace site was held by a Kprobe\n") &&
		  strstr(r, "\n  ran natively 3x: the code cache was full "
			    "(--cache-kb raises it); runs natively from "
			    "blocks kjit.ko does not translate (1 refusal; "
			    "kjit stat names the reasons)\n") &&
		  strstr(r, "\n# also 2 dispatcher entries (nmi 2) ran "
			    "natively at code the module ties to no function "
			    "above\n") &&
		  !strstr(r, "__x64_sys_read                            20 "
			     "          20       1       -         -\n  ran"),
	      r);
	free(r);
	r = render(&s, FMT_JSON, SORT_ADDR, 0);
	check("native.json",
	      strstr(r, "\"name\": \"pipe_read\", ") &&
		  strstr(r, "\"native\": {\"total\": 20, \"nmi\": 0, "
			    "\"nested\": 0, \"refused\": 0, \"full\": 0, "
			    "\"ftrace_site\": 20, \"rcu_idle\": 0, "
			    "\"map_full\": 0, \"growing\": 0, "
			    "\"exiting\": 0, \"holder\": \"a Kprobe\", "
			    "\"why\": \"its ftrace site was held by a "
			    "Kprobe\"}},\n") &&
		  strstr(r, "\"native\": {\"total\": 0, ") &&
		  strstr(r, "\"native_other\": {\"nmi\": 2, \"nested\": 0, "
			    "\"refused\": 0, \"full\": 0, \"ftrace_site\": "
			    "0, "),
	      r);
	free(r);
	check("native.warning",
	      native_warning(&s, "kjit record", warn, sizeof(warn)) == 3 &&
		  !strcmp(warn,
			  "kjit record: warning: code ran natively instead of "
			  "from the cache, uncounted: pipe_read 20x (its "
			  "ftrace site was held by a Kprobe), vfs_read 3x (the "
			  "code cache was full (--cache-kb raises it)); from "
			  "blocks kjit.ko does not translate in vfs_read; 2 "
			  "dispatcher entries tied to no function; kjit report "
			  "says why per function"),
	      warn);
	datafile_write(&s, capture_begin(&c));
	text = strdup(capture_end(&c));
	free(c.buf);
	f = fmemopen(text, strlen(text), "r");
	rc = datafile_read(&b, f, why, sizeof(why));
	fclose(f);
	check("native.data_roundtrip",
	      !rc && b.funcs[1].native_known &&
		  b.funcs[1].native[FB_FTRACE_SITE] == 20 &&
		  !strcmp(b.funcs[1].native_holder, "a Kprobe") &&
		  b.funcs[2].native[3] == 3 && b.funcs[2].native[2] == 1 &&
		  native_total(&b.funcs[0]) == 0 && b.funcs[0].native_known &&
		  strstr(text, "\nnative 1 ftrace_site 20\n") &&
		  strstr(text, "\nnative_holder 1 a Kprobe\n"),
	      rc ? why : text);
	if (!rc)
		session_free(&b);
	free(text);
	/* an older kjit's file: no per-function counts, only the totals */
	{
		static char old[] = "kjit-data 2\nstat fallback.ftrace_site "
				    "20\nfunc 0x2000 0x2400 -1 -1 pipe_read\n"
				    "deep 0\nend\n";

		f = fmemopen(old, strlen(old), "r");
		rc = datafile_read(&b, f, why, sizeof(why));
		fclose(f);
		r = rc ? strdup(why) : render(&b, FMT_TEXT, SORT_ADDR, 0);
		check("native.old_file",
		      !rc && !b.funcs[0].native_known &&
			  strstr(r, "\n# 20 runs went native instead of "
				    "through the cache (ftrace_site 20); which "
				    "functions is not in this file (an older "
				    "kjit recorded it)\n") &&
			  !strstr(r, "  ran natively"),
		      r);
		free(r);
		if (!rc) {
			r = render(&b, FMT_JSON, SORT_ADDR, 0);
			check("native.old_file_json",
			      strstr(r, "\"native\": null}") != NULL, r);
			free(r);
			session_free(&b);
		}
	}
}

/* do_exit() leaves the cache at exit_tasks_rcu_start() on every call: the
 * report says its rest ran natively, as many times as it was called; not
 * for another function, nor for a do_exit never called. */
static void left_cache(void)
{
	struct sess_func fn[2] = {
	    {.name = "do_exit",
	     .start = 0x1000,
	     .end = 0x1400,
	     .entry = 0x1000,
	     .deep = 1,
	     .native_known = 1},
	    {.name = "do_group_exit",
	     .start = 0x2000,
	     .end = 0x2100,
	     .entry = 0x2000,
	     .deep = 1,
	     .native_known = 1},
	};
	struct sess_block bl[2] = {{0x1000, 5, 0, 9, 2, 1, 0},
				   {0x2000, 5, 1, 9, 2, 1, 0}};
	struct session s = {
	    .funcs = fn, .n_funcs = 2, .blocks = bl, .n_blocks = 2};
	char *r;

	session_derive(&s);
	r = render(&s, FMT_TEXT, SORT_ADDR, 0);
	check("left_cache.text",
	      strstr(r, "\n  the rest after its call of exit_tasks_rcu_start "
			"runs natively on every call (5 calls): a dying task "
			"leaves the cache there (exit_notify and its last "
			"steps)\n") &&
		  !strstr(strstr(r, "do_group_exit"), "the rest after"),
	      r);
	free(r);
	bl[0].count = 0;
	session_derive(&s);
	r = render(&s, FMT_TEXT, SORT_ADDR, 0);
	check("left_cache.never_called", !strstr(r, "the rest after"), r);
	free(r);
	/* dying tasks stay in the cache (ABI 11 exit_tail): nothing said,
	 * unless some left for want of a slot */
	bl[0].count = 5;
	s.st.exit_tail = 1;
	session_derive(&s);
	r = render(&s, FMT_TEXT, SORT_ADDR, 0);
	check("left_cache.exit_tail", !strstr(r, "the rest after"), r);
	free(r);
	s.st.exit_tail_left = 2;
	r = render(&s, FMT_TEXT, SORT_ADDR, 0);
	check("left_cache.exit_tail_left",
	      strstr(r, "\n  the rest after its call of exit_tasks_rcu_start "
			"ran natively for 2 dying task(s): no slot was free "
			"in the table of dying tasks (512 at once)\n") != NULL,
	      r);
	free(r);
}

/* Who holds an ftrace site, from fixture copies of debugfs' kprobes/list
 * and tracefs' enabled_functions (tests/tool/fixtures/holders). */
static void holders(void)
{
	struct sess_func fn[5] = {{.name = "pipe_read"},
				  {.name = "vfs_read"},
				  {.name = "pipe_write"},
				  {.name = "ksys_read"},
				  {.name = "sys_nothing"}};
	struct session s = {.funcs = fn, .n_funcs = 5};
	char w[640];
	unsigned int i;

	for (i = 0; i < 5; i++) {
		fn[i].native_known = 1;
		fn[i].native[FB_FTRACE_SITE] = 1;
	}
	setenv("KJIT_SYSROOT", FIXTURES "/holders", 1);
	native_find_holders(&s);
	unsetenv("KJIT_SYSROOT");
	check("native.holder_kprobe", !strcmp(fn[0].native_holder, "a Kprobe"),
	      fn[0].native_holder);
	check("native.holder_ipmodify",
	      !strcmp(fn[1].native_holder,
		      "an IPMODIFY ftrace user (livepatch or the like)"),
	      fn[1].native_holder);
	check("native.holder_tracer",
	      !strcmp(fn[2].native_holder, "the function tracer"),
	      fn[2].native_holder);
	check("native.holder_direct",
	      !strcmp(fn[3].native_holder,
		      "a direct call (a BPF trampoline or the like)"),
	      fn[3].native_holder);
	check("native.holder_gone",
	      !fn[4].native_holder[0] &&
		  !strcmp(native_words(&fn[4], w, sizeof(w)),
			  "ran natively 1x: its ftrace site was in use (a "
			  "Kprobe, a tracer, livepatch or a BPF trampoline; "
			  "gone when kjit looked)"),
	      w);
}

static void bad_file(const char *name, const char *text, const char *want)
{
	struct session b;
	char why[128] = "";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc = datafile_read(&b, f, why, sizeof(why));

	fclose(f);
	check(name, rc && strstr(why, want), why);
}

static void names(void)
{
	unsigned int i, ok = 1;

	for (i = 0; i < KJIT_R_COUNT; i++)
		ok &= strcmp(reason_text(i), "unknown refusal") != 0;
	check("reason_texts", ok, "a refusal code has no text");
	check("fallback_names",
	      !strcmp(fallback_key(0), "nmi") &&
		  !strcmp(fallback_key(3), "full") &&
		  !strcmp(fallback_key(4), "ftrace_site") &&
		  !strcmp(fallback_key(5), "rcu_idle") &&
		  !strcmp(fallback_key(9), "?"),
	      "fallback keys");
}

/* A split session (tools/session/split.h) through kjit.data and
 * report --sort pid|comm|cpu: two processes of one command, a shared
 * bank, two CPUs; rows heaviest first, a command's processes summed. */
static void split_parts(void)
{
	static struct sess_count c1[] = {{0xffffffff81001005ull, 4},
					 {0xffffffff81001040ull, 5}},
				 c2[] = {{0xffffffff81001005ull, 2},
					 {0xffffffff81001305ull, 3}},
				 c3[] = {{0xffffffff81001005ull, 1}},
				 k0[] = {{0xffffffff81001005ull, 5},
					 {0xffffffff81001040ull, 5}},
				 k1[] = {{0xffffffff81001005ull, 2},
					 {0xffffffff81001305ull, 3}};
	static struct sess_part parts[] = {
	    {PART_BANK, 1, 0, "[kernel]", c3, 1},
	    {PART_BANK, 2, 100, "work load", c1, 2},
	    {PART_BANK, 3, 101, "work load", c2, 2},
	    {PART_CPU, 0, 0, "", k0, 2},
	    {PART_CPU, 1, 0, "", k1, 2},
	};
	struct sess_split sp = {32, 4, 7, 3, 1, parts, 5};
	struct session s, b;
	struct capture c;
	char why[128], *text;
	FILE *f;
	int rc;

	make(&s);
	s.split = &sp;
	datafile_write(&s, capture_begin(&c));
	text = strdup(capture_end(&c));
	free(c.buf);
	f = fmemopen(text, strlen(text), "r");
	rc = datafile_read(&b, f, why, sizeof(why));
	fclose(f);
	check("split_roundtrip",
	      !rc && b.split && b.split->n_parts == 5 &&
		  b.split->left_over == 7 && b.split->unsplit == 1 &&
		  b.split->parts[1].tgid == 100 &&
		  !strcmp(b.split->parts[1].comm, "work_load") &&
		  b.split->parts[4].kind == PART_CPU &&
		  b.split->parts[4].n == 2 &&
		  b.split->parts[4].c[1].count == 3,
	      rc ? why : text);
	free(text);
	if (rc)
		return;
	by_part_print(&b, BY_PID, FMT_CSV, capture_begin(&c));
	check("split_by_pid",
	      !strcmp(capture_end(&c),
		      "pid comm,function,calls,executions\n"
		      "100 work_load,vfs_read,4,9\n"
		      "101 work_load,ksys,read,3,3\n"
		      "101 work_load,vfs_read,2,2\n"
		      "[kernel],vfs_read,1,1\n"),
	      c.buf);
	free(c.buf);
	by_part_print(&b, BY_COMM, FMT_CSV, capture_begin(&c));
	check("split_by_comm",
	      !strcmp(capture_end(&c), "comm,function,calls,executions\n"
				       "work_load,vfs_read,6,11\n"
				       "work_load,ksys,read,3,3\n"
				       "[kernel],vfs_read,1,1\n"),
	      c.buf);
	free(c.buf);
	by_part_print(&b, BY_CPU, FMT_CSV, capture_begin(&c));
	check("split_by_cpu",
	      !strcmp(capture_end(&c), "cpu,function,calls,executions\n"
				       "cpu 0,vfs_read,5,10\n"
				       "cpu 1,ksys,read,3,3\n"
				       "cpu 1,vfs_read,2,2\n"),
	      c.buf);
	free(c.buf);
	by_part_print(&b, BY_PID, FMT_TEXT, capture_begin(&c));
	check("split_text_header",
	      strstr(capture_end(&c),
		     "# kjit report: by process (3 blocks split by process, 1 "
		     "counted whole; banks 4 of 32 used)\n# processes that "
		     "found no bank of their own counted in [other] (7 "
		     "switch-ins") != NULL,
	      c.buf);
	free(c.buf);
	session_free(&b);
}

/* A timed session (tools/session/timing.h) through kjit.data and report
 * --time: two functions at 1 GHz (a cycle a ns), the heavier exclusive
 * first; p50 and p99 are the bounds of the buckets the share's call (the
 * ceiling) falls in: of 10 calls, the 5th and the 10th. */
static void time_parts(void)
{
	static struct sess_tfunc tf[2] = {
	    {0, 10, 5000, 3000, 4000, {0}}, {1, 2, 2000, 2000, 1000, {0}}};
	static struct sess_tpath tp[2] = {
	    {3, KJIT_TPATH_NONE, 0, 10, 5000, 3000}, {7, 3, 1, 2, 2000, 2000}};
	struct sess_time t = {1000000, 3, 1, 1024, 2, 2, tf, 2, tp, 2, 16384,
			      2, 0},
			 *u;
	struct session s, b;
	struct capture c;
	char why[128], *text;
	FILE *f;
	int rc;

	tf[0].hist[10] = 5, tf[0].hist[11] = 4, tf[0].hist[13] = 1;
	tf[1].hist[11] = 2;
	make(&s);
	s.timing = &t;
	datafile_write(&s, capture_begin(&c));
	text = strdup(capture_end(&c));
	free(c.buf);
	check("time_lines",
	      strstr(text, "\ntiming 1000000 3 1 1024 2 2\n"
			   "tfunc 0 10 5000 3000 4000\n") &&
		  strstr(text, "\nthist 0 13 1\n") &&
		  strstr(text, "\ntpaths 16384 2 0\ntpath 3 - 0 10 5000 "
			       "3000\ntpath 7 3 1 2 2000 2000\n"),
	      text);
	f = fmemopen(text, strlen(text), "r");
	rc = datafile_read(&b, f, why, sizeof(why));
	fclose(f);
	u = rc ? NULL : b.timing;
	check("time_roundtrip",
	      u && u->tsc_khz == 1000000 && u->untimed == 3 && u->lost == 1 &&
		  u->n == 2 && u->f[0].calls == 10 && u->f[0].virt == 4000 &&
		  u->f[0].hist[11] == 4 && u->f[1].func == 1 &&
		  u->f[1].hist[11] == 2 && u->n_p == 2 &&
		  u->p[0].parent == KJIT_TPATH_NONE && u->p[1].parent == 3 &&
		  u->p[1].excl == 2000 && u->paths == 16384,
	      rc ? why : text);
	free(text);
	if (!u)
		return;
	check("time_quantiles",
	      timing_quantile(&u->f[0], 0.5) == 1024 &&
		  timing_quantile(&u->f[0], 0.99) == 8192 &&
		  timing_quantile(&u->f[0], 0.9) == 2048,
	      "p50 1024, p90 2048, p99 8192 of 5/4/1 calls in buckets 10/11/13");
	time_report_print(&b, FMT_CSV, capture_begin(&c));
	check("time_csv",
	      !strcmp(capture_end(&c),
		      "function,calls,incl_cycles,excl_cycles,virt_cycles,"
		      "incl_ns,excl_ns,virt_ns,p50_ns,p99_ns\n"
		      "vfs_read,10,5000,3000,4000,5000,3000,4000,1024,8192\n"
		      "ksys,read,2,2000,2000,1000,2000,2000,1000,2048,2048\n"),
	      c.buf);
	free(c.buf);
	folded_print(&b, capture_begin(&c));
	check("time_folded",
	      !strcmp(capture_end(&c), "vfs_read 3000\nvfs_read;ksys,read 2000\n"),
	      c.buf);
	free(c.buf);
	session_free(&b);
	make(&s);
	rc = time_report_print(&s, FMT_CSV, capture_begin(&c));
	capture_end(&c);
	check("time_untimed", rc == 1 && !*c.buf, c.buf);
	free(c.buf);
}

int main(void)
{
	struct session s;

	area = "tool.format";
	make(&s);
	formats(&s);
	roundtrip(&s);
	ibt_calls();
	native();
	holders();
	left_cache();
	split_parts();
	time_parts();
	bad_file("data_foreign", "hello\n", "not a kjit data file");
	bad_file("data_future", "kjit-data 9\nend\n", "version 9");
	bad_file("data_bad_block", "kjit-data 1\nblock 0x1 0 1 1 1 1\nend\n",
		 "malformed record at line 2");
	names();
	return failures ? 1 : 0;
}
