/*
 * kjit.c - the kjit command-line tool: subcommand dispatch and help.
 *
 * Invariants: every subcommand has a one-line summary (kjit --help) and a
 * full text (kjit help SUBCOMMAND, the man page docs/kjit.1 says the same).
 * Exit status: 0 success, 1 failure (one clear line on stderr), 2 usage.
 */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "kmod/kjit_ioctl.h"
#include "commands.h"
#include "tools/kernel/device.h"
#include "tools/report/say.h"

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *synopsis;
	const char *summary;
	const char *help;
};

/* Subcommands that check kjit itself (its tests use them): kjit help NAME
 * has them, kjit --help does not list them. */
static int internal(const char *name)
{
	return !strcmp(name, "decode");
}

static const struct subcommand subcommands[] = {
    {"list", cmd_list, "list [--ok] PATTERN...",
     "kernel functions matching globs, instrumentable or why not",
     "PATTERN is a shell glob on the function name ('vfs_*');\n"
     "MODULE:PATTERN also matches the module ('vmlinux': the kernel\n"
     "proper). Each match is printed with its address, yes or no, and\n"
     "the reason kjit.ko would refuse it: part of kjit, entry text,\n"
     "noinstr text, used by kjit's dispatcher, on the kprobe blacklist,\n"
     "not traceable. --ok lists instrumentable functions only.\n"
     "Needs root; mounts tracefs/debugfs when they are not mounted.\n"},
    {"blocks", cmd_blocks, "blocks FUNC",
     "a function's static basic blocks, disassembly and CFG edges",
     "Reads FUNC's code through /proc/kcore and finds its basic blocks\n"
     "from the entry with kjit's own block decoder, following jumps\n"
     "inside the function (calls do not end the walk; indirect jumps\n"
     "have no known targets). Prints each block disassembled, with its\n"
     "outgoing edges.\n"},
    {"attach", cmd_attach,
     "attach [-a | -p PID,... | -C CPU,... | -G CGROUP] [--count-kjit] [-v] "
     "[--best-effort] [--no-count] [--deep] [--time] [--if EXPR]... "
     "[SPLIT] [LIMITS] "
     "FUNC...",
     "divert FUNCs into the code cache and count their blocks",
     "FUNC is name, module:name, name+0xOFF (OFF must be 0),\n"
     "0xADDRESS, or a pattern as list takes it ('vfs_*', 'ext4:*'):\n"
     "every instrumentable function it matches; each one it skips is\n"
     "named with its reason (past 20, counted by reason; -v names\n"
     "each), and a pattern with nothing to attach is an error. Any\n"
     "number of FUNCs (one shared trampoline; 6.1's ftrace diverts\n"
     "at most 8192 functions at once). Names are\n"
     "resolved by the tool; an ambiguous name is an error that lists\n"
     "the candidates; a function named twice is attached once. On a\n"
     "terminal a bar shows the matching, then the seconds kjit.ko\n"
     "takes. All or nothing unless --best-effort.\n"
     "Counts every task on every CPU (-a), or -p PID,... those\n"
     "processes (every thread, task context), or -C CPU,... what runs\n"
     "on those CPUs (interrupts too), or -G CGROUP the processes of\n"
     "that cgroup v2 (a path below its mount) at attach and those they\n"
     "fork; other calls run natively.\n"
     "kjit's own processes (this tool, a kjit report while attached)\n"
     "are left out of -a and -C (as perf leaves out its own work);\n"
     "--count-kjit counts them too.\n"
     "--deep follows the functions' callees, and theirs, into the\n"
     "cache. --no-count runs the functions\n"
     "from the cache without counting (the cost of the cache alone;\n"
     "every count stays 0).\n"
     "SPLIT: --split counts each block in the bank of the process that\n"
     "runs it (report --sort pid|comm|cpu): exact per process, thread\n"
     "group and CPU; kernel threads share \"[kernel]\", processes past\n"
     "--split-max N (default 30) share \"[other]\"; the first\n"
     "--split-blocks N distinct blocks (default 4096, at most 16384)\n"
     "are split, later ones counted whole (reports say how many).\n"
     "--time also times every call of the functions (and, with --deep,\n"
     "of each callee followed): calls, inclusive, exclusive (less the\n"
     "timed callees) and virtual time (less the time switched out),\n"
     "and a log2 histogram, in TSC cycles (report --time).\n"
     "--if 'FUNC:argN[.32] OP VALUE' (one per FUNC attached) runs FUNC\n"
     "from the cache, counted and timed, only on calls whose argument\n"
     "N (0..5: rdi rsi rdx rcx r8 r9) holds the condition; OP is one of\n"
     "== != < <= > >= (unsigned) or & (any bit set), .32 compares the\n"
     "low halves; other calls run natively, uncounted. A false one\n"
     "costs a compare and a jump a call.\n"
     "LIMITS: --deep-max N (callees a deep session follows), --cache-kb\n"
     "N (code cache per CPU), --max-blocks N (blocks per CPU); 0 or\n"
     "absent: the module's defaults. What a full table left native is\n"
     "said in plain words at detach, in stat and in every report.\n"},
    {"detach", cmd_detach, "detach", "stop diversion (results stay readable)",
     "Stops every diversion; report and stat still read the results.\n"},
    {"record", cmd_record,
     "record [-a | -p PID,... | -C CPU,... | -G CGROUP] [--count-kjit] "
     "[-v] "
     "[--best-effort] "
     "[--deep [--oracle]] [--time] [--if EXPR]... [SPLIT] [LIMITS] "
     "-f FUNC... [-o FILE] "
     "[--force] "
     "-- "
     "COMMAND [ARGS...]",
     "attach, run COMMAND, detach, save the results (kjit.data)",
     "Attaches the FUNCs (patterns too, as attach), runs COMMAND to\n"
     "completion, detaches and writes functions, blocks with counts,\n"
     "statistics, coverage, kernel, boot id, time and command line to\n"
     "FILE (default kjit.data; the format is in docs/usage.md). If\n"
     "COMMAND fails, record exits with its status and keeps an\n"
     "existing kjit.data (-o FILE or --force saves the recording\n"
     "anyway).\n"
     "The file keeps each function's code and the symbols it reaches,\n"
     "so kjit annotate works from it later, elsewhere. record ends with\n"
     "one warning line when anything ran natively instead of from the\n"
     "cache (kjit report says what and why per function).\n"
     "Counts COMMAND and the processes it forks, in task context; -a\n"
     "every task on every CPU, -p PID,... those processes (every\n"
     "thread), -C CPU,... everything on those CPUs (interrupts too),\n"
     "-G CGROUP a cgroup's processes at attach and what they fork;\n"
     "kjit's own processes are left out unless --count-kjit.\n"
     "Reports name the scope. --best-effort and -v as for attach\n"
     "(record -f '*' on 6.1: its first 8192, the rest said); SPLIT as\n"
     "for attach (the file keeps every process's counts); --time and\n"
     "--if as for attach (the file keeps the times; reports name the\n"
     "predicate with the scope).\n"
     "--oracle (with --deep) first runs COMMAND once under ftrace's\n"
     "function_graph tracer with set_graph_function = the FUNCs, and\n"
     "stores the functions it saw under them; report then prints how\n"
     "many of them kjit counted and why each other one was not. Needs\n"
     "tracefs and a free tracer (current_tracer nop); every tracer\n"
     "setting it changes is put back.\n"},
    {"report", cmd_report,
     "report [-i FILE... | --live] [--sort count|addr|func|pid|comm|cpu] "
     "[--top N] "
     "[--uncovered] [--time | --folded] [--json|--csv|--lcov] "
     "[--debuginfo PATH]...",
     "per-function and per-block counts, coverage, hottest blocks, lines",
     "Reads -i FILE (several -i: their counts summed block by block,\n"
     "recordings of one kernel only, other boots too); else an attached\n"
     "live session (saying so if\n"
     "./kjit.data exists too); else ./kjit.data if present; else the\n"
     "live session of /dev/kjit (--live forces it). Text: per function\n"
     "the calls (entry block count), executions, blocks run, static\n"
     "blocks and coverage; then the blocks sorted by --sort (default\n"
     "count).\n"
     "--sort pid, comm or cpu (a session attached or recorded with\n"
     "--split): each function's calls and block executions by process,\n"
     "by command name (processes summed) or by CPU, heaviest first;\n"
     "text, --json or --csv.\n"
     "--time (a session attached or recorded with --time): each timed\n"
     "function's calls, inclusive, exclusive and virtual time, mean,\n"
     "p50 and p99 (histogram bounds), by exclusive time; text, --json\n"
     "or --csv (cycles and ns).\n"
     "--folded (a timed session): its call paths as folded stacks,\n"
     "\"root;...;func NS\" a line, weighted by exclusive time (the input\n"
     "of flamegraph.pl and speedscope).\n"
     "--top N keeps N blocks and disassembles them (only while the\n"
     "recording kernel runs). --json and --csv are for programs\n"
     "(schemas in docs/usage.md; they exclude each other). A file\n"
     "recorded with --oracle ends the text report with a completeness\n"
     "section.\n"
     "Under each function's row a line says what of it ran natively\n"
     "instead of from the cache, how often and why ('ran natively 20x:\n"
     "its ftrace site was held by a Kprobe'; JSON: \"native\"; CSV: on\n"
     "stderr).\n"
     "--uncovered lists the static blocks that never ran (those the\n"
     "coverage column leaves out), per function; in JSON \"uncovered\",\n"
     "in CSV rows of count 0. kjit annotate shows them in the code.\n"
     "Source lines (libdw): the text report ends with each counted block's\n"
     "file:line and inline chain, from --debuginfo PATH (a vmlinux or .ko\n"
     "with DWARF; repeatable) or the recording kernel's vmlinux under\n"
     "/usr/lib/debug ($KJIT_DEBUG_DIR) found by the recorded build-id or\n"
     "release (Debian's linux-image-REL-dbg), and each counted module's\n"
     ".ko by its recorded build-id there; else one line says why not.\n"
     "--lcov writes an lcov tracefile (genhtml's input) to stdout and\n"
     "kjit's line and branch totals to stderr; it needs debug info.\n"},
    {"annotate", cmd_annotate,
     "annotate [-i FILE | --live] [--json] [--debuginfo PATH]... FUNC...",
     "a function's disassembly with each block's count; what never ran",
     "Prints FUNC's code as kjit recorded it (kjit.data keeps each\n"
     "function's bytes), in static blocks (those of kjit blocks), each\n"
     "with its count and its share of the function's block executions;\n"
     "every instruction with its own count (the executed blocks holding\n"
     "it); blocks that never ran are marked 'never ran' (their\n"
     "instructions '-'). Call and jump targets are named by symbol\n"
     "(call __x86_indirect_thunk_rax, jmp pipe_read+0x4c), the\n"
     "__fentry__ site is labelled, and what ran natively instead is said\n"
     "under the header. Source lines (and their text, where the file is\n"
     "readable) are interleaved when debug info is found, as for kjit\n"
     "report: --debuginfo PATH, or the recording kernel's vmlinux under\n"
     "/usr/lib/debug ($KJIT_DEBUG_DIR). The session is read as report\n"
     "reads it (-i FILE, --live, else an attached session, else\n"
     "./kjit.data). FUNC: a recorded function's name (module:name or\n"
     "name), or an address inside it. --json: the same data (schema in\n"
     "docs/usage.md). A file of an older kjit holds no code: only the\n"
     "recording boot can still show it.\n"},
    {"compare", cmd_compare,
     "compare [--deep] [--icount] [LIMITS] -f FUNC... [-n RUNS] -- COMMAND "
     "[ARGS...]",
     "counts and overhead: native vs kjit vs Kprobes on the same blocks",
     "Runs COMMAND RUNS times (default 5) natively, under kjit, and\n"
     "with kjit_kprobes.ko's counting Kprobes on the blocks kjit found\n"
     "(FUNCs as for attach, patterns too), each mode after one untimed\n"
     "warm-up run (kjit translates in it);\n"
     "prints both counts per block (MISMATCH flagged), the median, min\n"
     "and max wall time, and the added time per counted event, or\n"
     "\"below noise (\u00b1X ns)\" where it is within the native runs'\n"
     "spread. --deep also follows callees (as attach --deep).\n"
     "--icount: the guest runs under QEMU -icount shift=0 (make demo\n"
     "KJIT_ICOUNT=1), whose clock counts instructions: print the times\n"
     "as instruction counts.\n"
     "Needs kjit_kprobes.ko loaded.\n"},
    {"diff", cmd_diff, "diff [--json] [-n N] [--per FUNC] A.data B.data",
     "what changed between two recordings (functions, blocks, coverage)",
     "Compares two kjit.data files: the functions and blocks whose\n"
     "counts changed most (absolute change, then relative: 'new' or\n"
     "'gone' where one count is 0), and the blocks covered in one\n"
     "recording and not the other. Blocks are matched by function and\n"
     "offset, so recordings of one kernel on two boots compare; files\n"
     "from two kernels are compared after a warning. -n N rows per list\n"
     "(default 10); --json prints every row (schema in docs/usage.md).\n"
     "--per FUNC divides each recording's counts by its calls of FUNC\n"
     "(the workload's operation, e.g. __x64_sys_read): per call, for\n"
     "runs of different lengths.\n"},
    {"stat", cmd_stat, "stat [--json]", "cache, link and fallback statistics",
     "Translations, cache bytes, links, dispatcher entries, and every\n"
     "reason code ran natively (fallbacks, translator refusals), named.\n"
     "--json: the \"stats\" and \"limits\" of report --json, at once\n"
     "(no function or block is read).\n"},
    {"top", cmd_top, "top [-d SECS] [-n COUNT] [--top N]",
     "live view: the functions and blocks running most, refreshed",
     "Reads the attached session every SECS seconds (default 2, 0.1 to\n"
     "3600) and shows the N functions (default 10) and N blocks that ran\n"
     "most since the last read: calls, executions and executions per\n"
     "second. On a terminal each frame replaces the last; otherwise the\n"
     "frames follow each other. Ends after COUNT frames, at ^C, or when\n"
     "the session is detached; it never detaches it.\n"},
    {"reset", cmd_reset, "reset", "zero the counters",
     "Zeroes every counter of the session.\n"},
    {"decode", cmd_decode, "decode [-n N] [--check] FUNC...",
     "decode FUNC in the kernel and in user space",
     "Decodes FUNC with kjit.ko's Zydis and with the tool's; --check\n"
     "fails on any difference. A check of kjit itself (its tests use\n"
     "it), not listed in kjit --help.\n"},
    {"check", cmd_check, "check [--modules DIR]",
     "what kjit can do on this kernel, and what stops it",
     "Checks, without changing anything: whether kjit.ko and kjit_pool.ko\n"
     "are loaded or installed for the running kernel (--modules DIR: the\n"
     "ones in DIR, as make module left them), /dev/kjit, the kernel's\n"
     "release and configuration (direct-call ftrace, kprobes, kallsyms),\n"
     "IBT, lockdown and module signatures, kptr_restrict, how many\n"
     "functions ftrace can divert and at once, and the memory the code\n"
     "pool takes. Each line is ok, info, ? (unknown) or no; each no has\n"
     "its fix on the next line. Exit status 1 when something stops kjit.\n"},
    {"version", cmd_version, "version", "tool and module versions",
     "Prints the tool's ABI and the loaded module's build and ABI.\n"},
};
#define N_SUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

int cmd_version(int argc, char **argv)
{
	struct kjit_version v = {.size = sizeof(v)};
	int fd;

	printf("kjit tool, ABI %d\n", KJIT_ABI_VERSION);
	fd = kjit_device_open();
	if (fd < 0)
		return 1;
	if (ioctl(fd, KJIT_IOC_VERSION, &v) == 0)
		printf("module: %s, ABI %u\n", v.build, v.abi);
	close(fd);
	return 0;
}

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: kjit SUBCOMMAND [ARGS]    (kjit help SUBCOMMAND; "
		     "kjit --version;\n       man -l docs/kjit.1 in the "
		     "source tree)\n\n");
	for (i = 0; i < N_SUBCOMMANDS; i++)
		if (!internal(subcommands[i].name))
			fprintf(out, "  %-9s %s\n", subcommands[i].name,
				subcommands[i].summary);
	fprintf(out, "\nFUNC: name, module:name, name+0xOFF or 0xADDRESS; for "
		     "attach, record and\ncompare also a pattern, 'glob' or "
		     "'module:glob'. Most subcommands need root.\n");
}

static const struct subcommand *find(const char *name)
{
	size_t i;

	for (i = 0; i < N_SUBCOMMANDS; i++)
		if (!strcmp(name, subcommands[i].name))
			return &subcommands[i];
	return NULL;
}

static int help(int argc, char **argv)
{
	const struct subcommand *c;

	if (argc < 3) {
		usage(stdout);
		return 0;
	}
	c = find(argv[2]);
	if (!c) {
		say("help: unknown subcommand '%s' (kjit --help)\n", argv[2]);
		return 2;
	}
	printf("usage: kjit %s\n\n%s\n%s", c->synopsis, c->summary, c->help);
	return 0;
}

int main(int argc, char **argv)
{
	const struct subcommand *c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("kjit tool, ABI %d (kjit version: the module's too)\n",
		       KJIT_ABI_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help"))
		return help(argc, argv);
	c = find(argv[1]);
	if (!c) {
		say("unknown subcommand '%s' (kjit --help)\n", argv[1]);
		return 2;
	}
	if (argc > 2 &&
	    (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
		char *h[] = {argv[0], "help", argv[1], NULL};

		return help(3, h);
	}
	say_set_command(c->name);
	/* first, before kallsyms or anything a session may count is read */
	kjit_device_join();
	return c->run(argc - 1, argv + 1);
}
