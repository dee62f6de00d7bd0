/*
 * test_cli.c - host tests of the built kjit binary, run against the fixture
 * system root (KJIT_SYSROOT=tests/tool/fixtures/sysroot): `list` output and
 * exit statuses, help texts, usage errors, and the one-line errors of
 * commands that need what the fixture lacks (/proc/kcore, /dev/kjit).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "check.h"

static char out[16384];

/* Runs `kjit ARGS` with stderr folded into stdout; returns the exit status. */
static int kjit(const char *args)
{
	char cmd[512];
	size_t n;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd),
		 "KJIT_SYSROOT=" FIXTURES "/sysroot " KJIT_BIN " %s 2>&1",
		 args);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void expect(const char *name, const char *args, int status,
		   const char *text)
{
	int st = kjit(args);

	check(name, st == status && strstr(out, text), out);
}

/* Every message names the subcommand that says it, from shared code too
 * (the device, kallsyms, symbol lookup): each line of stderr begins with
 * "kjit SUBCMD: " or is indented under one that does. */
static void one_prefix(void)
{
	static const char *const runs[][2] = {
	    {"attach", "attach nope"},
	    {"record", "record -f nope -- true"},
	    {"annotate", "annotate nope"},
	    {"blocks", "blocks nope"},
	    {"compare", "compare -f nope -- true"},
	    {"list", "list 'zz:*'"},
	    {"report", "report -i /nonexistent"},
	    {"diff", "diff /nonexistent /nonexistent"},
	    {"stat", "stat"},
	    {"detach", "detach"},
	    {"top", "top -n 1"},
	};
	char name[64], want[64], why[512];
	const char *l;
	size_t i;
	int ok;

	for (i = 0; i < sizeof(runs) / sizeof(*runs); i++) {
		kjit(runs[i][1]);
		snprintf(want, sizeof(want), "kjit %s: ", runs[i][0]);
		ok = out[0] != 0;
		for (l = out; ok && *l; l = strchr(l, '\n') + 1) {
			ok = !strncmp(l, want, strlen(want)) || *l == ' ';
			if (!strchr(l, '\n'))
				break;
		}
		snprintf(name, sizeof(name), "prefix_%s", runs[i][0]);
		snprintf(why, sizeof(why), "want '%s' on each line: %.400s",
			 want, out);
		check(name, ok, why);
	}
}

static const char list_all[] =
    "ADDRESS            OK   FUNCTION  [WHY NOT]\n"
    "0xffffffff81000000 no   _stext  not traceable (no __fentry__ site at its "
    "start)\n"
    "0xffffffff81000000 no   _text  not traceable (no __fentry__ site at its "
    "start)\n"
    "0xffffffff81001000 yes  vfs_read\n"
    "0xffffffff81001300 yes  ksys_read\n"
    "0xffffffff81001400 yes  dup_static\n"
    "0xffffffff81001600 no   dup_static  not traceable (no __fentry__ site "
    "at its start)\n"
    "0xffffffff81001700 no   __bsearch_alias  used by kjit's dispatcher\n"
    "0xffffffff81001800 no   notify_die  on the kprobe blacklist\n";

/* Three names at one address (the syscall wrappers of getpid, as gcc
 * aliases them); available_filter_functions names only one of them. */
static const char list_getpid[] =
    "ADDRESS            OK   FUNCTION  [WHY NOT]\n"
    "0xffffffff81001b00 yes  __do_sys_getpid\n"
    "0xffffffff81001b00 yes  __ia32_sys_getpid\n"
    "0xffffffff81001b00 yes  __x64_sys_getpid\n"
    "# 3 functions, 3 instrumentable\n";

#define FX(name) FIXTURES "/diff-" name ".data"

/* kjit diff on synthetic recordings: A reads (vfs_read, ksys_read), B
 * writes (vfs_read at another address, vfs_write). */
static void diff_tests(void)
{
	expect("diff_text", "diff " FX("a") " " FX("b"), 0,
	       "Functions that changed most (2 of 3 changed):\n"
	       "  FUNCTION               A              B          CHANGE      "
	       "REL\n"
	       "  vfs_write              0           1000           +1000      "
	       "new\n"
	       "  ksys_read             30              0             -30     "
	       "gone\n");
	expect("diff_only_a", "diff " FX("a") " " FX("b"), 0,
	       "Blocks covered in A only: 2\n  ksys_read+0x5  30\n"
	       "  vfs_read+0x40  10\n");
	expect("diff_only_b", "diff " FX("a") " " FX("b"), 0,
	       "Blocks covered in B only: 2\n  vfs_read+0x80  5\n");
	expect(
	    "diff_relative", "diff " FX("a") " " FX("b"), 0,
	    "  vfs_read+0x5              20             25              +5   "
	    "+25.0%\n");
	expect("diff_top", "diff -n 1 " FX("a") " " FX("b"), 0,
	       "  ksys_read+0x5  30\n  ... and 1 more (-n or --json)\n");
	expect("diff_json", "diff --json " FX("a") " " FX("b"), 0,
	       "{\"function\": \"vfs_read\", \"offset\": \"0x5\", \"a\": 20, "
	       "\"b\": 25, \"change\": 5, \"relative\": 0.2500}");
	expect("diff_json_only_b", "diff --json " FX("a") " " FX("b"), 0,
	       "\"only_b\": [\n    {\"function\": \"vfs_read\", \"offset\": "
	       "\"0x80\"");
	/* --per: A 20 calls of vfs_read, B 25; vfs_read's 30 executions
	 * in each are 1.5 and 1.2 per call, +0x5 (20, 25) is 1 in both */
	expect("diff_per", "diff --per vfs_read " FX("a") " " FX("b"), 0,
	       "per call of vfs_read: 20 in A, 25 in B (counts divided by "
	       "them)\n");
	expect("diff_per_func", "diff --per vfs_read " FX("a") " " FX("b"), 0,
	       "  vfs_read          1.5000         1.2000         -0.3000   "
	       "-20.0%\n");
	expect("diff_per_blocks", "diff --per vfs_read " FX("a") " " FX("b"), 0,
	       "Blocks that changed most (4 of 5 changed, per call):\n");
	expect("diff_per_json",
	       "diff --json --per vfs_read " FX("a") " " FX("b"), 0,
	       "{\"name\": \"vfs_read\", \"a\": 30, \"b\": 30, \"change\": "
	       "0, \"a_per_call\": 1.500000, \"b_per_call\": 1.200000, "
	       "\"relative\": -0.2000}");
	expect("diff_per_absent", "diff --per vfs_write " FX("a") " " FX("b"),
	       1,
	       "kjit diff: --per vfs_write: " FX("a") " did not record it "
						      "(nothing to divide "
						      "by)\n");
	expect("diff_per_missing", "diff " FX("a") " " FX("b") " --per", 2,
	       "kjit diff: --per needs a FUNC (counts per call of it)\n");
	expect("diff_same",
	       "diff " FX("a") " " FX("a") " 2>&1 | grep -c warning", 1, "0\n");
	expect("diff_kernels", "diff " FX("a") " " FX("other-kernel"), 0,
	       "kjit diff: warning: " FX("a") " is from kernel 6.1.0-test, " FX(
		   "other-kernel") " from kernel 6.12.0-test");
	expect("diff_missing", "diff " FX("a") " /nonexistent.data", 1,
	       "kjit diff: cannot open /nonexistent.data: No such file");
	expect("diff_cut", "diff " FX("a") " " FX("cut"), 1,
	       "kjit diff: " FX("cut") ": file is cut short (ends inside a "
				       "line) at line 9\n");
	expect(
	    "diff_noend", "diff " FX("noend") " " FX("a"), 1,
	    "kjit diff: " FX("noend") ": file is cut short (no end record)\n");
	expect("diff_garbage", "diff " FX("a") " " FX("garbage"), 1,
	       "kjit diff: " FX("garbage") ": not a kjit data file\n");
	expect("diff_one_file", "diff " FX("a"), 2, "give two data files");
	expect("diff_bad_n", "diff -n x " FX("a") " " FX("b"), 2,
	       "kjit diff: bad value for -n: 'x'");
	expect("diff_bad_option", "diff --csv " FX("a") " " FX("b"), 2,
	       "kjit diff: unknown option '--csv'");
}

/* report -i A -i B: one session, counts summed block by block. diff-b
 * was recorded on another boot, its code 0x1000000 higher: vfs_read
 * (in both) says so, and vfs_write (only in B) moves with it. */
static void merge_tests(void)
{
	expect("merge_csv",
	       "report --csv -i " FX("a") " -i " FX("b") " --sort addr", 0,
	       "function,offset,address,count,len,insns,cpus,entry\n"
	       "vfs_read,0x5,0xffffffff81001005,45,20,5,2,1\n"
	       "vfs_read,0x40,0xffffffff81001040,10,8,2,1,0\n"
	       "vfs_read,0x80,0xffffffff81001080,5,8,2,1,0\n"
	       "ksys_read,0x5,0xffffffff81001305,30,12,4,1,1\n"
	       "vfs_write,0x5,0xffffffff81002005,1000,12,4,1,1\n");
	expect("merge_header", "report -i " FX("a") " -i " FX("b"), 0,
	       "# kjit report: " FX("a") " + " FX("b") ", recorded");
	expect("merge_commands", "report -i " FX("a") " -i " FX("b"), 0,
	       "# command: workload read 10; workload write 10\n");
	expect("merge_funcs", "report -i " FX("a") " -i " FX("b"), 0,
	       "# 3 functions, 5 blocks, 1090 block executions\n");
	/* a shared function's coverage needs the CFG: unknown */
	expect("merge_coverage", "report -i " FX("a") " -i " FX("b"), 0,
	       "vfs_read                                 45           60       "
	       "3       -         -\n");
	/* one file twice: every count doubles */
	expect("merge_same",
	       "report --csv -i " FX("a") " -i " FX("a") " --sort addr", 0,
	       "vfs_read,0x5,0xffffffff81001005,40,20,5,2,1\n"
	       "vfs_read,0x40,0xffffffff81001040,20,8,2,1,0\n"
	       "ksys_read,0x5,0xffffffff81001305,60,12,4,1,1\n");
	expect("merge_kernels", "report -i " FX("a") " -i " FX("other-kernel"),
	       1,
	       "kjit report: cannot merge " FX("other-kernel") " into " FX(
		   "a") ": recorded on kernel 6.12.0-test, the first file on "
			"6.1.0-test\n");
	/* B's vfs_write alone: nothing both recorded says where it moved */
	expect("merge_unplaced", "report -i " FX("a") " -i " FX("moved"), 1,
	       "vfs_write: recorded on another boot, and no function both "
	       "files recorded once says where the kernel's code moved\n");
	/* two static functions named foo, the same size: on the same boot
	 * each is itself (by address); from another boot (listed in the
	 * other order, 0x1000000 higher) the unique bar says where they
	 * moved; without bar, nothing does */
	expect("merge_dup_same_boot",
	       "report --csv --sort addr -i " FX("dup-a") " -i " FX("dup-b"),
	       0,
	       "foo,0x5,0xffffffff81001005,11,12,4,1,1\n"
	       "foo,0x5,0xffffffff81002005,22,12,4,1,1\n"
	       "bar,0x5,0xffffffff81003005,33,12,4,1,1\n");
	expect("merge_dup_other_boot",
	       "report --csv --sort addr -i " FX("dup-a") " -i " FX("dup-c"),
	       0,
	       "foo,0x5,0xffffffff81001005,110,12,4,1,1\n"
	       "foo,0x5,0xffffffff81002005,220,12,4,1,1\n"
	       "bar,0x5,0xffffffff81003005,330,12,4,1,1\n");
	expect("merge_dup_unplaced", "report -i " FX("dup-a") " -i " FX("dup-d"),
	       1,
	       "foo: recorded on another boot, and no function both files "
	       "recorded once says where the kernel's code moved\n");
	/* vfs_read and ksys_read moved by different distances */
	expect("merge_split", "report -i " FX("a") " -i " FX("split"), 1,
	       ": vfs_read and ksys_read moved by different distances: "
	       "another build of the kernel\n");
	expect("merge_garbage", "report -i " FX("a") " -i " FX("garbage"), 1,
	       "kjit report: " FX("garbage") ": not a kjit data file\n");
}

int main(void)
{
	area = "tool.cli";
	kjit("list '*_*' | head -n 9");
	check("list_table", !strcmp(out, list_all), out);
	kjit("list '*getpid*'");
	check("list_aliases", !strcmp(out, list_getpid), out);
	expect("list_dispatch", "list bsearch", 0,
	       "no   bsearch  used by kjit's dispatcher\n");
	expect("list_summary", "list 'vfs_*' 'ksys_*'", 0,
	       "# 2 functions, 2 instrumentable\n");
	expect("list_module", "list 'kjit:*'", 0,
	       "0xffffffffc0003000 no   kjit:kjit_dispatch  part of kjit\n");
	expect("list_vmlinux", "list 'vmlinux:pipe*'", 1,
	       "kjit list: no kernel function matches\n");
	expect("top_bad_d", "top -d 0.01", 2,
	       "kjit top: bad value for -d: '0.01' is not a number of seconds "
	       "from 0.1 to 3600\n");
	expect("top_bad_n", "top -n 0", 2,
	       "kjit top: bad value for -n: '0' is not a number from 1 to "
	       "1000000\n");
	expect("top_bad_top", "top --top 5000", 2,
	       "kjit top: bad value for --top: '5000' is not a number from 1 "
	       "to 1000\n");
	expect("top_no_value", "top -n 2 -d", 2,
	       "kjit top: -d needs a value (kjit help top)\n");
	expect("top_unknown", "top --json", 2,
	       "kjit top: unknown argument '--json' (kjit help top)\n");
	expect("top_no_device", "top -n 1", 1,
	       "kjit top: /dev/kjit not found");
	/* a plain name that matches nothing: the names close to it, as
	 * attach and blocks say them; a glob gets none */
	expect("list_near", "list vfs_reed", 1,
	       "kjit list: no kernel function matches\n"
	       "kjit list: vfs_reed: no such kernel function; did you mean "
	       "vfs_read?\n");
	/* a name that is there but not instrumentable, hidden by --ok:
	 * no "no such function" */
	expect("list_near_ok", "list --ok notify_die 2>&1 | grep -c 'no such'",
	       1, "0\n");
	expect("list_near_glob", "list 'vfs_reed*' 2>&1 | grep -c 'did you'",
	       1, "0\n");
	expect("list_module_glob", "list '*mod:pipe_helper'", 0,
	       "no   othermod:pipe_helper  not traceable");
	expect("list_ok", "list --ok 'n*'", 1,
	       "no kernel function matches "
	       "(and is instrumentable)");
	expect("list_entry", "list entry_SYSCALL_64", 0,
	       "no   entry_SYSCALL_64  entry text\n");
	expect("list_usage", "list", 2, "give a PATTERN");
	expect("list_bad_option", "list --bogus x", 2,
	       "unknown option --bogus");
	expect("blocks_no_kcore", "blocks vfs_read", 1,
	       "(kernel without CONFIG_PROC_KCORE)");
	expect("blocks_ambiguous", "blocks dup_static", 1,
	       "kjit blocks: dup_static: ambiguous: 2 functions");
	one_prefix();
	expect("blocks_unknown", "blocks nope", 1,
	       "kjit blocks: nope: no such kernel function\n");
	expect("help", "--help", 0, "  compare   counts and overhead");
	expect(
	    "help_sub", "help record", 0,
	    "usage: kjit record [-a | -p PID,... | -C CPU,... | -G CGROUP] "
	    "[--count-kjit] [-v] [--best-effort] [--deep [--oracle]] [--time] "
	    "[--if EXPR]... [SPLIT] [LIMITS] -f "
	    "FUNC... [-o FILE] [--force] -- COMMAND");
	expect("help_flag", "report --help", 0, "--sort count|addr|func");
	expect("list_module_absent", "list 'nomod:*'", 1,
	       "kjit list: 'nomod:*': no module nomod is loaded (lsmod lists "
	       "them)\n");
	expect("list_module_present", "list 'mymod:*'", 0, "mymod:pipe_helper");
	expect("report_two_missing", "report -i " FX("a") " -i b.data", 1,
	       "kjit report: cannot open b.data");
	expect("report_top_huge", "report --top 99999999999", 2,
	       "kjit report: bad value for --top: '99999999999'");
	/* decode is the tests' check of kjit itself: not in the user's list */
	kjit("--help");
	check("help_no_internal", !strstr(out, "  decode "), out);
	expect("help_internal", "help decode", 0, "usage: kjit decode");
	expect("help_no_depth", "help attach", 0,
	       "[--deep] [--time] [--if EXPR]... [SPLIT] [LIMITS] FUNC...");
	expect("split_max_alone", "attach --split-max 4 vfs_read", 2,
	       "--split-max and --split-blocks go with --split");
	expect("split_no_count", "attach --split --no-count vfs_read", 2,
	       "--split counts by process: not with --no-count");
	expect("time_no_count", "attach --time --no-count vfs_read",
	       2, "--time times the counted code: not with --no-count");
	expect("report_time_untimed", "report -i " FX("a") " --time", 1,
	       "--time needs a timed session: attach or record with --time");
	expect("report_folded_untimed", "report -i " FX("a") " --folded", 1,
	       "--folded needs a timed session: attach or record with --time");
	expect("report_folded_json", "report -i " FX("a") " --folded --json", 2,
	       "kjit report: --folded is a format of its own");
	expect("split_max_range", "attach --split --split-max 5000 vfs_read", 2,
	       "bad number for");
	expect("sort_pid_not_split", "report -i " FX("a") " --sort pid", 1,
	       "kjit report: --sort pid needs a session split by process: "
	       "attach or record with --split\n");
	expect("help_unknown", "help nosuch", 2, "unknown subcommand 'nosuch'");
	expect("unknown_sub", "nosuch", 2,
	       "kjit: unknown subcommand 'nosuch' (kjit --help)\n");
	expect("no_sub", "", 2, "usage: kjit SUBCOMMAND");
	expect("record_usage", "record -f vfs_read", 2,
	       "give the command to run after --");
	expect("report_bad_sort", "report --sort size", 2,
	       "kjit report: bad value for --sort: 'size'");
	expect("report_json_csv", "report --json --csv", 2,
	       "kjit report: --json and --csv exclude each other\n");
	expect("report_cut_midline", "report -i " FIXTURES "/diff-cut.data", 1,
	       "diff-cut.data: file is cut short (ends inside a line)");
	expect("version", "--version", 0, "kjit tool, ABI ");
	expect("grammar_one", "report -i " FIXTURES "/long-name.data", 0,
	       "# 1 function, 1 block, 1 block execution\n");
	expect("long_name_func", "report -i " FIXTURES "/long-name.data", 0,
	       "__a_very_long_deep_mode_callee_name_that_overflows (deep)"
	       "          1            1       1      10     10.0%\n");
	expect("long_name_block", "report -i " FIXTURES "/long-name.data", 0,
	       "__a_very_long_deep_mode_callee_name_that_overflows+0x5 "
	       "0xffffffff81001005    20");
	expect("help_man", "--help", 0, "man -l docs/kjit.1");
	expect("record_force_help", "help record", 0, "--force");
	expect("report_missing", "report -i /nonexistent.data", 1,
	       "cannot open /nonexistent.data");
	expect("report_data", "report -i " FIXTURES "/sample.data --csv", 0,
	       "function,offset,address,count,len,insns,cpus,entry\n"
	       "ksys_read,0x5,0xffffffff81001305,30,12,4,1,1\n"
	       "vfs_read,0x5,0xffffffff81001005,20,20,5,2,1\n");
	expect("report_other_boot",
	       "report -i " FIXTURES "/sample.data --top 1", 0,
	       "(no disassembly of 1 block: recorded on another boot (kernel "
	       "6.1.0-test) by a kjit that kept no code");
	diff_tests();
	merge_tests();
	return failures ? 1 : 0;
}
