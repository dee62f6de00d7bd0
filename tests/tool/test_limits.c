/*
 * test_limits.c - host tests of the plain-words limit lines
 * (tools/report/limits.c): each limit hit gives one line with its number, its
 * limit and the option that raises it; none hit gives the "nothing ran natively
 * for lack of room" line; calls run natively while the deep table grew are said
 * as such; a saturated distinct-callee count says "at least"; a limit of 0 (an
 * older data file) is "unknown"; the JSON object; and the reports (text, JSON,
 * kjit.data round trip) carry them.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "tools/session/datafile.h"
#include "tools/report/format.h"
#include "tools/report/limits.h"
#include "check.h"

static char *lines(const struct sess_stats *st, const char *prefix)
{
	struct capture c;
	char *r;

	limits_print(st, prefix, capture_begin(&c));
	r = strdup(capture_end(&c));
	free(c.buf);
	return r;
}

static void base(struct sess_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->deep = 1;
	st->deep_funcs = 37;
	st->deep_max = 512;
	st->cache_kb = 2048;
	st->max_blocks = 32768;
	st->pcpu_slots = 65536;
	st->pcpu_used = 2000;
	st->blocks_cpu_max = 1500;
	st->cache_bytes_cpu_max = 120 * 1024;
	st->mem_bytes = 3 * 1024 * 1024 / 2;
	st->deep_held = 1024;
	st->pcpu_held = 4096;
}

static void test_none(void)
{
	struct sess_stats st;
	char *r;

	base(&st);
	r = lines(&st, "# ");
	check("none",
	      !strcmp(r, "# nothing ran natively for lack of room (deep table "
			 "37/512 functions; fullest CPU: code cache 120/2048 "
			 "KiB, block map 1500/32768 blocks; counters "
			 "2000/65536)\n") &&
		  limits_hit(&st) == 0,
	      r);
	free(r);
}

static void test_each(void)
{
	struct sess_stats st;
	char *r;

	base(&st);
	st.deep_over_budget = 2617;
	st.deep_over_funcs = 412;
	r = lines(&st, "");
	check("deep",
	      !strcmp(r, "412 callee(s) ran natively because the deep table "
			 "was full (limit 512 functions; --deep-max raises "
			 "it)\n") &&
		  limits_hit(&st) == 1,
	      r);
	free(r);
	st.deep_over_funcs = 513;
	r = lines(&st, "");
	check("deep_at_least", strstr(r, "at least 513 callee(s)") != NULL, r);
	free(r);

	base(&st);
	st.fallback[3] = 99;
	st.fallback[6] = 7;
	st.pcpu_full = 5;
	r = lines(&st, "kjit: ");
	check("cache_map_pcpu",
	      !strcmp(r, "kjit: 99 block entries ran natively because the "
			 "code cache was full (limit 2048 KiB per CPU; "
			 "--cache-kb raises it)\n"
			 "kjit: 7 block entries ran natively because the "
			 "block map was full (limit 32768 blocks per CPU; "
			 "--max-blocks raises it)\n"
			 "kjit: 5 block(s) counted with shared lock incq "
			 "counters (exact, slower) because the per-CPU "
			 "counter table was full (limit 65536 slots; "
			 "--max-blocks raises it)\n") &&
		  limits_hit(&st) == 3,
	      r);
	free(r);

	/* the code cache was full because the shared pool ran out, not
	 * for --cache-kb: say which limit, and what raises it */
	base(&st);
	st.fallback[3] = 12;
	st.pool_empty = 3;
	st.pool_bytes = 16u << 20;
	r = lines(&st, "");
	check("pool",
	      !strcmp(r, "12 block entries ran natively because the code "
			 "pool was used up (limit 16384 KiB in kjit_pool.ko "
			 "for all CPUs; make module KJIT_POOL_MB=N raises "
			 "it)\n") &&
		  limits_hit(&st) == 1,
	      r);
	free(r);

	/* the block map was growing, not full: no option to raise, and
	 * the limit named as not reached */
	base(&st);
	st.fallback[7] = 4;
	r = lines(&st, "");
	check("growing",
	      !strcmp(r, "4 block entries ran natively while the block map "
			 "was growing (more than 2048 translations on one "
			 "CPU before its worker brought room; the limit, "
			 "32768 blocks per CPU, was not reached)\n") &&
		  limits_hit(&st) == 1,
	      r);
	free(r);

	/* the deep table was growing, not full: the same */
	base(&st);
	st.deep_growing = 7;
	r = lines(&st, "");
	check("deep_growing",
	      !strcmp(r, "7 call(s) to callees ran natively while the deep "
			 "table was growing (new callees came faster than its "
			 "worker brought room; the limit, 512 functions, was "
			 "not reached)\n") &&
		  limits_hit(&st) == 1,
	      r);
	free(r);

	/* the counter table was growing: counted, but with lock incq */
	base(&st);
	st.pcpu_growing = 9;
	r = lines(&st, "");
	check("pcpu_growing",
	      !strcmp(r, "9 block translation(s) counted with shared lock "
			 "incq counters (exact, slower) while the per-CPU "
			 "counter table was growing (new blocks came faster "
			 "than its worker brought memory; the limit, 65536 "
			 "slots, was not reached)\n") &&
		  limits_hit(&st) == 1,
	      r);
	free(r);

	/* dying tasks found the table of dying tasks full (exittail.h) */
	base(&st);
	st.exit_tail = 1;
	st.exit_tail_left = 3;
	r = lines(&st, "");
	check("exit_tail_left",
	      !strcmp(r, "3 dying task(s) ran the rest of do_exit() natively "
			 "because the table of dying tasks was full (limit "
			 "512 tasks at once; kjit.exit_tail_max sets it, up to "
			 "512)\n") &&
		  limits_hit(&st) == 1,
	      r);
	free(r);
}

/* A file from a kjit before ABI 5: no limits, no distinct callees. */
static void test_old_file(void)
{
	struct sess_stats st;
	char *r;

	memset(&st, 0, sizeof(st));
	st.deep = 1;
	st.deep_over_budget = 2617;
	r = lines(&st, "");
	check("old_file",
	      !strcmp(r, "callees were left to run natively 2617 time(s) "
			 "because the deep table was full (limit unknown; "
			 "--deep-max raises it)\n"),
	      r);
	free(r);
}

static void test_reserved_json(void)
{
	struct sess_stats st;
	struct capture c;

	base(&st);
	limits_print_reserved(&st, "", capture_begin(&c));
	capture_end(&c);
	check("reserved",
	      !strcmp(c.buf, "limits: deep table 512 functions, code cache "
			     "2048 KiB and block map 32768 blocks per CPU, "
			     "65536 counter slots; 1.5 MiB reserved\n"),
	      c.buf);
	free(c.buf);
	st.fallback[6] = 7;
	limits_json(&st, capture_begin(&c));
	capture_end(&c);
	check("json",
	      !strcmp(c.buf, "\"limits\": {\"deep_max\": 512, \"cache_kb\": "
			     "2048, \"max_blocks\": 32768, \"pcpu_slots\": "
			     "65536, \"mem_bytes\": 1572864, "
			     "\"deep_over_funcs\": 0, \"deep_over_budget\": 0, "
			     "\"code_cache_full\": 0, \"block_map_full\": 7, "
			     "\"block_map_growing\": 0, "
			     "\"pcpu_full\": 0, \"pool_bytes\": 0, "
			     "\"pool_empty\": 0, \"deep_held\": 1024, "
			     "\"deep_growing\": 0, \"pcpu_held\": 4096, "
			     "\"pcpu_growing\": 0, \"exit_tail_left\": 0, "
			     "\"hit\": 1}"),
	      c.buf);
	free(c.buf);
}

/* The report formats say it too, and kjit.data keeps the numbers. */
static void test_reports(void)
{
	struct report_opts o = {.sort = SORT_COUNT,
				.fmt = FMT_TEXT,
				.source = "t.data",
				.no_disasm = "-"};
	struct session s, back;
	struct capture c;
	char why[128];
	FILE *f;

	memset(&s, 0, sizeof(s));
	base(&s.st);
	s.st.deep_over_budget = 30;
	s.st.deep_over_funcs = 12;
	s.st.deep_growing = 3;
	s.st.pcpu_growing = 5;
	report_print(&s, &o, capture_begin(&c));
	capture_end(&c);
	check("report_text",
	      strstr(c.buf, "# 12 callee(s) ran natively because the deep "
			    "table was full (limit 512 functions; --deep-max "
			    "raises it)\n") != NULL,
	      c.buf);
	free(c.buf);
	o.fmt = FMT_JSON;
	report_print(&s, &o, capture_begin(&c));
	capture_end(&c);
	check("report_json",
	      strstr(c.buf, "\"deep_over_funcs\": 12, \"deep_over_budget\": "
			    "30,") != NULL,
	      c.buf);
	free(c.buf);
	f = tmpfile();
	datafile_write(&s, f);
	rewind(f);
	memset(&back, 0, sizeof(back));
	check("datafile",
	      !datafile_read(&back, f, why, sizeof(why)) &&
		  back.st.deep_over_funcs == 12 && back.st.deep_max == 512 &&
		  back.st.max_blocks == 32768 && back.st.deep_held == 1024 &&
		  back.st.deep_growing == 3 && back.st.pcpu_held == 4096 &&
		  back.st.pcpu_growing == 5 &&
		  back.st.mem_bytes == s.st.mem_bytes,
	      why);
	fclose(f);
	session_free(&back);
}

int main(void)
{
	area = "tool.limits";
	test_none();
	test_each();
	test_old_file();
	test_reserved_json();
	test_reports();
	return failures ? 1 : 0;
}
