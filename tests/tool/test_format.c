/*
 * test_format.c - host tests of `kjit report` output and kjit.data
 * (tools/format.c, tools/datafile.c, tools/names.c): exact CSV and JSON for
 * a fixed session, sort orders, --top, the text table, a write/read round
 * trip, refusal of cut, foreign and future files, a name for every
 * fallback and refusal code, and the calls of an IBT kernel's function.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "tools/datafile.h"
#include "tools/format.h"
#include "tools/names.h"
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
	struct report_opts o = {sort,	     top,  fmt,
				"test.data", NULL, "no code in tests"};
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
    "\"covered\": 4, \"coverage\": 0.4000},\n"
    "    {\"name\": \"ksys,read\", \"start\": \"0xffffffff81001300\", \"end\": "
    "\"0xffffffff81001400\", "
    "\"size\": 256, \"calls\": 3, \"executions\": 3, \"blocks_run\": 1, "
    "\"deep\": true, \"static_blocks\": null, "
    "\"covered\": null, \"coverage\": null}\n"
    "  ],\n"
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
    "0, \"ftrace_site\": 0, \"rcu_idle\": 0, \"map_full\": 0},\n"
    "    \"refused\": {\"trap\": 1},\n"
    "    \"limits\": {\"deep_max\": 0, \"cache_kb\": 0, \"max_blocks\": 0, "
    "\"pcpu_slots\": 0, \"mem_bytes\": 0, \"deep_over_funcs\": 0, "
    "\"deep_over_budget\": 2, \"code_cache_full\": 0, "
    "\"block_map_full\": 0, \"pcpu_full\": 0, \"pool_bytes\": 0, "
    "\"pool_empty\": 0, \"hit\": 1}}\n"
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
		  strstr(r, "(no disassembly: no code in tests)") &&
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

int main(void)
{
	struct session s;

	area = "tool.format";
	make(&s);
	formats(&s);
	roundtrip(&s);
	ibt_calls();
	bad_file("data_foreign", "hello\n", "not a kjit data file");
	bad_file("data_future", "kjit-data 9\nend\n", "version 9");
	bad_file("data_bad_block", "kjit-data 1\nblock 0x1 0 1 1 1 1\nend\n",
		 "malformed record at line 2");
	names();
	return failures ? 1 : 0;
}
