/*
 * test_args.c - host tests of the tool's argument parsing
 * (tools/session/args.c): FUNC lists, -f lists, `-- COMMAND`, numbers, and
 * every usage error.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "kmod/kjit_ioctl.h"
#include "tools/session/args.h"
#include "check.h"

/* argv from a space-separated string (words only; good enough here). */
static char **words(const char *s, int *argc)
{
	static char buf[512], *v[64];
	char *p;

	snprintf(buf, sizeof(buf), "%s", s);
	*argc = 0;
	for (p = strtok(buf, " "); p && *argc < 63; p = strtok(NULL, " "))
		v[(*argc)++] = p;
	v[*argc] = NULL;
	return v;
}

static int run(const char *cmdline, unsigned int allowed, struct args *a,
	       char **err)
{
	struct capture c;
	int argc, rc;
	char **argv = words(cmdline, &argc);

	rc = args_parse(argc, argv, allowed, argv[0], a, capture_begin(&c));
	*err = strdup(capture_end(&c));
	free(c.buf);
	return rc;
}

#define ATTACH                                                                 \
	(ARG_BEST_EFFORT | ARG_NO_COUNT | ARG_DEEP | ARG_LIMITS | ARG_SCOPE)

/* Any number of FUNC words (there was a limit of 64), bare or after -f. */
static void many_funcs(void)
{
	static char names[3000][16], *argv[3004];
	struct args a;
	int i, rc;

	argv[0] = "attach";
	for (i = 0; i < 3000; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		argv[i + 1] = names[i];
	}
	rc = args_parse(3001, argv, ATTACH, "attach", &a, stderr);
	check("attach_3000_funcs",
	      !rc && a.n_funcs == 3000 && !strcmp(a.funcs[2999], "f2999"),
	      "3000 FUNC words refused");
	if (!rc)
		args_free(&a);
	argv[0] = "record";
	argv[1] = "-f";
	for (i = 0; i < 3000; i++)
		argv[i + 2] = names[i];
	argv[3002] = "--";
	argv[3003] = "true";
	rc = args_parse(3004, argv,
			ARG_FUNC_OPT | ARG_COMMAND | ARG_DEEP | ARG_OUTPUT,
			"record", &a, stderr);
	check("record_3000_funcs", !rc && a.n_funcs == 3000 && a.cmd,
	      "3000 words after -f refused");
	if (!rc)
		args_free(&a);
}
#define RECORD                                                                 \
	(ARG_BEST_EFFORT | ARG_DEEP | ARG_FUNC_OPT | ARG_OUTPUT |              \
	 ARG_COMMAND | ARG_LIMITS | ARG_ORACLE | ARG_SCOPE)
#define COMPARE                                                                \
	(ARG_DEEP | ARG_FUNC_OPT | ARG_RUNS | ARG_COMMAND | ARG_LIMITS |       \
	 ARG_ICOUNT)

static void expect_error(const char *name, const char *cmdline,
			 unsigned int allowed, const char *msg)
{
	struct args a;
	char *err;
	int rc = run(cmdline, allowed, &a, &err);

	const char *nl = strchr(err, '\n');

	check(name, rc == -1 && strstr(err, msg) && nl && !nl[1], err);
	free(err);
}

/* --if (tools/session/predicate.h): what each expression parses to, and
 * printed back; every malformed one refused in one line. */
static void expect_pred(const char *name, const char *cmdline,
			const char *func, unsigned op, unsigned arg,
			unsigned bits, unsigned long long value,
			const char *printed)
{
	struct args a;
	char *err, text[256] = "";
	int rc = run(cmdline, RECORD | ARG_IF, &a, &err);
	const struct tool_pred *p = a.preds;

	if (!rc && a.n_preds == 1)
		pred_format(p, text, sizeof(text));
	check(name,
	      !rc && a.n_preds == 1 && !strcmp(p->func, func) &&
		  p->p.op == op && p->p.arg == arg && p->p.bits == bits &&
		  p->p.value == value && !strcmp(text, printed),
	      *err ? err : text);
	free(err);
	args_free(&a);
}

static void predicates(void)
{
	struct args a;
	char *err;
	int rc;

	expect_pred("if_ge", "record --if vfs_read:arg2>=65536 -f vfs_read "
			     "-- true",
		    "vfs_read", KJIT_PRED_GE, 2, 64, 65536,
		    "vfs_read:arg2 >= 65536");
	expect_pred("if_eq_32_negative",
		    "record --if f:arg1.32==-1 -f f -- true", "f", KJIT_PRED_EQ,
		    1, 32, 0xffffffffull, "f:arg1.32 == 4294967295");
	expect_pred("if_negative_64", "record --if f:arg0>-2 -f f -- true",
		    "f", KJIT_PRED_GT, 0, 64, 0xfffffffffffffffeull,
		    "f:arg0 > 18446744073709551614");
	expect_pred("if_any_bit", "record --if do_sys_openat2:arg5&0x40 -f "
				  "do_sys_openat2 -- true",
		    "do_sys_openat2", KJIT_PRED_ANY, 5, 64, 0x40,
		    "do_sys_openat2:arg5 & 0x40");
	expect_pred("if_lt_hex", "record --if f:arg3<0x10 -f f -- true", "f",
		    KJIT_PRED_LT, 3, 64, 16, "f:arg3 < 16");
	expect_pred("if_le_ne", "record --if f:arg4.64<=7 -f f -- true", "f",
		    KJIT_PRED_LE, 4, 64, 7, "f:arg4 <= 7");
	expect_pred("if_ne_max", "record --if f:arg0!=0xffffffffffffffff -f "
				 "f -- true",
		    "f", KJIT_PRED_NE, 0, 64, ~0ull,
		    "f:arg0 != 18446744073709551615");
	rc = run("attach --if a:arg0==1 --if b:arg1==2 a b", ATTACH | ARG_IF,
		 &a, &err);
	check("if_two_funcs",
	      !rc && a.n_preds == 2 && !strcmp(a.preds[1].func, "b") &&
		  a.preds[1].p.value == 2,
	      err);
	free(err);
	args_free(&a);
	expect_error("if_arg6", "attach --if f:arg6==1 f", ATTACH | ARG_IF,
		     "only arg0..arg5 are passed in registers");
	expect_error("if_bad_op", "attach --if f:arg0=<1 f", ATTACH | ARG_IF,
		     "expected one of == != < <= > >= & after argN");
	expect_error("if_no_value", "attach --if f:arg0== f", ATTACH | ARG_IF,
		     "no VALUE after the operator");
	expect_error("if_not_number", "attach --if f:arg0==12ab f",
		     ATTACH | ARG_IF, "VALUE is not a number");
	expect_error("if_too_big", "attach --if f:arg0==18446744073709551616 f",
		     ATTACH | ARG_IF, "VALUE is not a number up to 2^64 - 1");
	expect_error("if_32_too_big", "attach --if f:arg0.32<0x100000000 f",
		     ATTACH | ARG_IF, "VALUE does not fit the 32 bits");
	expect_error("if_no_func", "attach --if :arg0==1 f", ATTACH | ARG_IF,
		     "expected FUNC:argN OP VALUE");
	expect_error("if_no_arg", "attach --if f:rdi==1 f", ATTACH | ARG_IF,
		     "expected argN (N 0..5) after FUNC:");
	expect_error("if_twice", "attach --if f:arg0==1 --if f:arg1==1 f",
		     ATTACH | ARG_IF, "one --if per function: f");
	expect_error("if_missing", "attach f --if", ATTACH | ARG_IF,
		     "missing 'FUNC:argN OP VALUE' after --if");
	expect_error("if_not_compare", "compare --if f:arg0==1 -f f -- ls",
		     COMPARE, "unknown option --if");
}

int main(void)
{
	struct args a;
	char *err;
	int rc;

	area = "tool.args";
	rc = run("attach vfs_read ksys_read", ATTACH, &a, &err);
	check("attach_funcs",
	      !rc && a.n_funcs == 2 && !strcmp(a.funcs[1], "ksys_read") &&
		  !a.deep && !a.best_effort && !a.cmd,
	      err);
	free(err);
	many_funcs();
	rc = run("attach --best-effort --deep 0xffffffff81000000", ATTACH, &a,
		 &err);
	check("attach_options",
	      !rc && a.best_effort && a.deep && a.n_funcs == 1, err);
	free(err);
	rc = run("record -a -f vfs_read -- workload read 10", RECORD, &a, &err);
	check("record_all", !rc && a.all && a.n_funcs == 1, err);
	free(err);
	/* record -f '*' past 6.1's 8192: what can be, the rest said */
	rc = run("record --best-effort -f vfs_* -- ls", RECORD, &a, &err);
	check("record_best_effort", !rc && a.best_effort, err);
	free(err);
	expect_error("record_no_count", "record --no-count -f a -- ls", RECORD,
		     "unknown option --no-count");
	rc = run("attach vfs_read", ATTACH, &a, &err);
	check("attach_default_all", !rc && !a.all, err);
	free(err);
	rc = run("record -p 12,345 -f vfs_read -- true", RECORD, &a, &err);
	check("record_pids",
	      !rc && a.scope == KJIT_SCOPE_TASKS && a.scope_n == 2 &&
		  a.scope_ids[0] == 12 && a.scope_ids[1] == 345 && !a.all,
	      err);
	free(err);
	rc = run("attach --cpu 1 vfs_read", ATTACH, &a, &err);
	check("attach_cpu",
	      !rc && a.scope == KJIT_SCOPE_CPUS && a.scope_n == 1 &&
		  a.scope_ids[0] == 1,
	      err);
	free(err);
	rc = run("record -f vfs_read -- true", RECORD, &a, &err);
	check("record_default_scope", !rc && !a.scope && !a.all, err);
	free(err);
	expect_error("pid_and_all", "attach -a -p 1 vfs_read", ATTACH,
		     "-a counts everything: not with -p, -C or -G");
	expect_error("pid_and_cpu", "attach -p 1 -C 0 vfs_read", ATTACH,
		     "one of -p, -C and -G, once: -C");
	/* -G: a cgroup's processes from cgroup.procs under the cgroup2
	 * mount that /proc/self/mounts names (a captured root) */
	setenv("KJIT_SYSROOT", FIXTURES "/cgroot", 1);
	rc = run("attach -G /work vfs_read", ATTACH, &a, &err);
	check("cgroup_procs",
	      !rc && a.scope == (KJIT_SCOPE_TASKS | KJIT_SCOPE_CHILDREN |
				 KJIT_SCOPE_CGROUP) &&
		  a.scope_n == 2 && a.scope_ids[0] == 312 &&
		  a.scope_ids[1] == 313 && a.cgroup &&
		  !strcmp(a.cgroup, "/work"),
	      err);
	free(err);
	rc = run("record -G /sys/fs/cgroup/work -f vfs_read -- true", RECORD,
		 &a, &err);
	check("cgroup_mount_prefix", !rc && a.scope_n == 2, err);
	free(err);
	expect_error("cgroup_empty", "attach -G empty vfs_read", ATTACH,
		     "nothing to attach to: -G 'empty': no process in it");
	expect_error("cgroup_missing", "attach -G nosuch vfs_read", ATTACH,
		     "bad value for -G: no cgroup 'nosuch'");
	expect_error("cgroup_and_pid", "attach -G work -p 1 vfs_read", ATTACH,
		     "one of -p, -C and -G, once: -p");
	unsetenv("KJIT_SYSROOT");
	predicates();
	expect_error("pid_zero", "attach -p 0 vfs_read", ATTACH,
		     "bad value for -p: '0'");
	expect_error("pid_list_bad", "attach -p 1,,2 vfs_read", ATTACH,
		     "bad value for -p: '1,,2'");
	expect_error("cpu_negative", "attach -C -1 vfs_read", ATTACH,
		     "bad value for -C: '-1'");
	expect_error("cpu_missing", "attach vfs_read -C", ATTACH,
		     "missing value after -C");
	expect_error("pid_not_compare", "compare -p 1 -f a -- ls", COMPARE,
		     "unknown option -p");
	rc = run("attach --count-kjit -C 0 vfs_read", ATTACH, &a, &err);
	check("count_kjit_cpus",
	      !rc && a.count_kjit && a.scope == KJIT_SCOPE_CPUS, err);
	free(err);
	rc =
	    run("record -a --count-kjit -f vfs_read -- true", RECORD, &a, &err);
	check("count_kjit_record_all", !rc && a.count_kjit && a.all, err);
	free(err);
	expect_error("count_kjit_pids", "attach --count-kjit -p 1 vfs_read",
		     ATTACH,
		     "--count-kjit is for a system-wide or CPU scope: add -a "
		     "or -C");
	expect_error("count_kjit_record_command",
		     "record --count-kjit -f vfs_read -- true", RECORD,
		     "--count-kjit is for a system-wide or CPU scope: add -a "
		     "or -C");
	expect_error("count_kjit_not_compare",
		     "compare --count-kjit -f a -- ls", COMPARE,
		     "unknown option --count-kjit");
	rc = run("record -f vfs_read ksys_read -o out.data -- workload read 10",
		 RECORD, &a, &err);
	check("record",
	      !rc && a.n_funcs == 2 && !strcmp(a.output, "out.data") && a.cmd &&
		  !strcmp(a.cmd[0], "workload") && !strcmp(a.cmd[2], "10") &&
		  !a.cmd[3],
	      err);
	free(err);
	rc = run("record -f a -f b --deep -- ls -l", RECORD, &a, &err);
	check("record_repeat_f",
	      !rc && a.n_funcs == 2 && a.deep && !strcmp(a.cmd[1], "-l"), err);
	free(err);
	rc = run("record --deep --oracle -f __x64_sys_read -- true", RECORD, &a,
		 &err);
	check("record_oracle", !rc && a.oracle && a.deep, err);
	free(err);
	rc = run("record --force -f a -- false", RECORD, &a, &err);
	check("record_force", !rc && a.force && !a.output, err);
	free(err);
	expect_error("force_compare", "compare --force -f a -- ls", COMPARE,
		     "unknown option --force");
	expect_error("oracle_without_deep", "record --oracle -f a -- ls",
		     RECORD, "--oracle checks deep mode: add --deep");
	expect_error("oracle_not_compare", "compare --deep --oracle -f a -- ls",
		     COMPARE, "unknown option --oracle");
	rc = run("compare -f ksys_read -n 5 -- workload getpid 3", COMPARE, &a,
		 &err);
	check("compare",
	      !rc && a.runs == 5 && a.n_funcs == 1 &&
		  !strcmp(a.cmd[1], "getpid"),
	      err);
	free(err);
	rc = run("compare -f ksys_read -- true", COMPARE, &a, &err);
	check("compare_default_runs", !rc && a.runs == 5, err);
	free(err);
	rc = run("compare --deep -f __x64_sys_read -- true", COMPARE, &a, &err);
	check("compare_deep", !rc && a.deep && a.n_funcs == 1, err);
	free(err);
	rc = run("compare --icount -f ksys_read -- true", COMPARE, &a, &err);
	check("compare_icount", !rc && a.icount && !a.deep, err);
	free(err);
	expect_error("icount_not_attach", "attach --icount vfs_read", ATTACH,
		     "unknown option --icount");

	rc = run("attach --deep --deep-max 4 --cache-kb 16 --max-blocks 64 f",
		 ATTACH, &a, &err);
	check("limits",
	      !rc && a.deep_max == 4 && a.cache_kb == 16 && a.max_blocks == 64,
	      err);
	free(err);
	rc = run("attach f", ATTACH, &a, &err);
	check("limits_default",
	      !rc && !a.deep_max && !a.cache_kb && !a.max_blocks, err);
	free(err);
	rc = run("record --max-blocks 4194304 -f a -- ls", RECORD, &a, &err);
	check("limits_record", !rc && a.max_blocks == 4194304, err);
	free(err);
	expect_error("deep_max_without_deep", "attach --deep-max 9 f", ATTACH,
		     "--deep-max only makes sense with --deep");
	expect_error(
	    "deep_max_zero", "attach --deep --deep-max 0 f", ATTACH,
	    "bad number for --deep-max: '0' is not a number from 1 to");
	expect_error(
	    "cache_kb_small", "attach --cache-kb 3 f", ATTACH,
	    "bad number for --cache-kb: '3' is not a number from 4 to");
	expect_error("max_blocks_big", "attach --max-blocks 4194305 f", ATTACH,
		     "bad number for --max-blocks: '4194305' is not a number "
		     "from 16 to 4194304");
	expect_error("limits_not_here", "attach --cache-kb 16 f",
		     ARG_BEST_EFFORT, "unknown option --cache-kb");
	expect_error("no_funcs", "attach", ATTACH, "name at least one FUNC");
	expect_error("unknown_option", "attach --bogus vfs_read", ATTACH,
		     "unknown option --bogus");
	rc = run("attach -v vfs_*", ATTACH, &a, &err);
	check("attach_verbose", !rc && a.verbose && a.n_funcs == 1, err);
	free(err);
	/* never advertised as working: gone, not refused later */
	expect_error("no_depth", "attach --deep --depth 2 vfs_read", ATTACH,
		     "unknown option --depth");
	expect_error("record_no_command", "record -f vfs_read", RECORD,
		     "give the command to run after --");
	expect_error("record_empty_command", "record -f vfs_read --", RECORD,
		     "give the command");
	expect_error("record_no_f", "record -- ls", RECORD,
		     "name functions with -f FUNC");
	expect_error("record_bare_func", "record vfs_read -- ls", RECORD,
		     "unexpected argument vfs_read");
	expect_error("f_without_func", "record -f -o x -- ls", RECORD,
		     "-f needs at least one FUNC");
	expect_error("o_without_file", "record -f a -o", RECORD,
		     "missing file after -o");
	expect_error(
	    "compare_runs_zero", "compare -f a -n 0 -- ls", COMPARE,
	    "bad number for -n: '0' is not a number from 1 to 1000000");
	expect_error("compare_no_o", "compare -f a -o x -- ls", COMPARE,
		     "unknown option -o");
	expect_error("attach_no_dashdash", "attach a -- ls", ATTACH,
		     "unknown option --");
	return failures ? 1 : 0;
}
