/*
 * cmd_session.c - `kjit attach|detach|report|stat|reset`: drive a session
 * through /dev/kjit and print its results (report formats in format.h).
 *
 * `report` reads -i FILE; else an attached live session (saying so when
 * ./kjit.data exists too); else ./kjit.data if it exists; else the live
 * session (--live forces the device). Exit status 0, 1 failure, 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "kmod/kjit_ioctl.h"
#include "kmod/kjit_refusals.h"
#include "jit/instrument.h"
#include "tools/session/args.h"
#include "tools/session/attach.h"
#include "tools/session/codeenv.h"
#include "commands.h"
#include "tools/session/datafile.h"
#include "tools/session/merge.h"
#include "tools/report/by_part.h"
#include "tools/report/folded.h"
#include "tools/report/time_report.h"
#include "tools/report/debuginfo.h"
#include "tools/kernel/device.h"
#include "tools/report/format.h"
#include "tools/report/lcov.h"
#include "tools/report/limits.h"
#include "tools/report/names.h"
#include "tools/report/native.h"
#include "tools/session/session.h"
#include "tools/session/timing.h"
#include "tools/report/srcreport.h"
#include "tools/kernel/sysfiles.h"
#include "tools/report/plural.h"
#include "tools/report/progress.h"
#include "tools/report/say.h"

int cmd_attach(int argc, char **argv)
{
	struct args a;
	int fd, rc;

	if (args_parse(argc, argv,
		       ARG_BEST_EFFORT | ARG_NO_COUNT | ARG_DEEP | ARG_LIMITS | ARG_SPLIT | ARG_TIME | ARG_IF |
			   ARG_SCOPE,
		       "attach", &a, stderr))
		return 2;
	fd = kjit_device_open();
	rc = fd < 0 ? 1 : attach_funcs(fd, &a, "attach");
	if (fd >= 0)
		close(fd);
	args_free(&a);
	return rc;
}

static int simple_ioctl(unsigned long cmd, const char *what, const char *enoent)
{
	int fd = kjit_device_open(), rc;

	if (fd < 0)
		return 1;
	rc = ioctl(fd, cmd, 0);
	if (rc)
		fprintf(stderr, "kjit %s: %s\n", what,
			errno == ENOENT ? enoent : strerror(errno));
	close(fd);
	return rc ? 1 : 0;
}

/* The end of an attach: say in plain words what ran natively for lack of
 * room (limits.h). */
static void print_limits_of(int fd, const char *prefix, FILE *out)
{
	struct kjit_session_stats k = {.size = sizeof(k)};
	struct sess_stats st;

	if (ioctl(fd, KJIT_IOC_STATS, &k))
		return;
	sess_stats_from(&st, &k);
	limits_print(&st, prefix, out);
}

static int detach_call(void *fd)
{
	return ioctl(*(int *)fd, KJIT_IOC_DETACH, 0);
}

int cmd_detach(int argc, char **argv)
{
	int fd, rc;

	if (argc > 1) {
		fprintf(stderr, "kjit detach: takes no arguments\n");
		return 2;
	}
	fd = kjit_device_open();
	if (fd < 0)
		return 1;
	rc = progress_call("kjit.ko is detaching (ftrace and RCU wait for "
			   "tasks to leave)",
			   detach_call, &fd);
	if (rc)
		fprintf(stderr, "kjit detach: %s\n", kjit_detach_why(errno));
	else
		print_limits_of(fd, "", stdout);
	close(fd);
	return rc ? 1 : 0;
}

int cmd_reset(int argc, char **argv)
{
	return simple_ioctl(KJIT_IOC_RESET, "reset",
			    "no session (kjit attach first)");
}

/* The live session; 0 or 1 after printing why. */
static int read_live(struct session *s, const char *who)
{
	int fd = kjit_device_open(), err;

	if (fd < 0)
		return 1;
	err = session_read_device(s, fd);
	close(fd);
	if (err)
		fprintf(stderr, "kjit %s: %s\n", who,
			err == -ENOENT
			    ? "no session (kjit attach or kjit record first)"
			    : strerror(-err));
	return err ? 1 : 0;
}

static int read_file(struct session *s, const char *path, const char *who)
{
	FILE *f = fopen(path, "r");
	char why[128];
	int err;

	if (!f) {
		fprintf(stderr, "kjit %s: cannot open %s: %s%s\n", who, path,
			strerror(errno),
			errno == ENOENT ? " (kjit record writes it)" : "");
		return 1;
	}
	err = datafile_read(s, f, why, sizeof(why));
	fclose(f);
	if (err)
		fprintf(stderr, "kjit %s: %s: %s\n", who, path, why);
	return err ? 1 : 0;
}

#define REPORT_INPUTS 16 /* -i FILE, merged (merge.h) */

struct report_args {
	struct report_opts o;
	const char *input;
	const char *more[REPORT_INPUTS - 1]; /* -i after the first */
	int n_more;
	char inputs[512]; /* "A + B + ...": the header's source */
	int live, lcov;
	int by; /* --sort pid|comm|cpu: by_part.h's + 1; 0: the blocks */
	int time; /* --time: time per function (time_report.h) */
	int folded; /* --folded: call paths' folded stacks (folded.h) */
	const char *dbg[DEBUGINFO_MAX];
	int n_dbg;
};

/* One line naming the bad option or value. */
static void bad_report_arg(const char *a, const char *v)
{
	if (!strcmp(a, "-i") || !strcmp(a, "--input") || !strcmp(a, "--top") ||
	    !strcmp(a, "--sort") || !strcmp(a, "--debuginfo"))
		fprintf(stderr,
			v ? "kjit report: bad value for %s: '%s' (kjit help "
			    "report)\n"
			  : "kjit report: %s needs a value (kjit help "
			    "report)\n",
			a, v);
	else
		fprintf(stderr,
			"kjit report: unknown argument '%s' (kjit help "
			"report)\n",
			a);
}

static int parse_report(int argc, char **argv, struct report_args *r)
{
	int i, k;

	memset(r, 0, sizeof(*r));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--json") || !strcmp(a, "--csv")) {
			enum report_fmt f = a[2] == 'j' ? FMT_JSON : FMT_CSV;

			if (r->o.fmt != FMT_TEXT && r->o.fmt != f) {
				fprintf(stderr,
					"kjit report: --json and --csv exclude "
					"each other\n");
				return -1;
			}
			r->o.fmt = f;
		} else if (!strcmp(a, "--live"))
			r->live = 1;
		else if (!strcmp(a, "--uncovered"))
			r->o.uncovered = 1;
		else if (!strcmp(a, "--time"))
			r->time = 1;
		else if (!strcmp(a, "--folded"))
			r->folded = 1;
		else if (!strcmp(a, "--lcov"))
			r->lcov = 1;
		else if (!strcmp(a, "--debuginfo") && v &&
			 r->n_dbg < DEBUGINFO_MAX)
			r->dbg[r->n_dbg++] = argv[++i];
		else if ((!strcmp(a, "-i") || !strcmp(a, "--input")) && v &&
			 r->input && r->n_more == REPORT_INPUTS - 1) {
			fprintf(stderr,
				"kjit report: at most %d -i FILEs (merged)\n",
				REPORT_INPUTS);
			return -1;
		} else if ((!strcmp(a, "-i") || !strcmp(a, "--input")) && v &&
			   r->input)
			r->more[r->n_more++] = argv[++i];
		else if ((!strcmp(a, "-i") || !strcmp(a, "--input")) && v)
			r->input = argv[++i];
		else if (!strcmp(a, "--top") && v &&
			 v[strspn(v, "0123456789")] == 0 && *v &&
			 strlen(v) <= 9)
			r->o.top = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(a, "--sort") && v &&
			 (k = report_sort_parse(v)) >= 0) {
			r->o.sort = (enum report_sort)k;
			i++;
		} else if (!strcmp(a, "--sort") && v &&
			   (k = by_part_parse(v)) >= 0) {
			r->by = k + 1;
			i++;
		} else {
			bad_report_arg(a, v);
			return -1;
		}
	}
	if (r->lcov && r->o.fmt != FMT_TEXT) {
		fprintf(stderr, "kjit report: --lcov excludes --json and "
				"--csv\n");
		return -1;
	}
	if (r->live && r->input) {
		fprintf(stderr,
			"kjit report: -i and --live exclude each other\n");
		return -1;
	}
	if (r->folded && (r->o.fmt != FMT_TEXT || r->lcov || r->time)) {
		fprintf(stderr, "kjit report: --folded is a format of its own: "
				"not with --json, --csv, --lcov or --time\n");
		return -1;
	}
	return 0;
}

static void attach_disasm(struct report_args *r, const struct session *s)
{
	static struct disasm_syms names;
	static char why[256];

	if (!r->o.top || r->o.fmt != FMT_TEXT)
		return;
	names = session_syms(s); /* the functions, and the stored symbols */
	r->o.syms = &names;
	/* the code stored with each function comes first (format.c); the
	 * running kernel's only for functions stored without it */
	if (!session_is_running_kernel(s)) {
		snprintf(why, sizeof(why),
			 "recorded on another boot (kernel %s) by a kjit that "
			 "kept no code; the running kernel's code is not the "
			 "recorded code",
			 s->kernel);
		r->o.no_disasm = why;
		return;
	}
	r->o.kc = kcore_open(sysfile(2, "/proc/kcore"));
	if (!r->o.kc) {
		snprintf(why, sizeof(why), "cannot read /proc/kcore: %s",
			 strerror(errno));
		r->o.no_disasm = why;
	}
}

/* --lcov: the tracefile on stdout, kjit's totals on stderr. */
static int report_lcov(const struct session *s, struct debuginfo *d)
{
	struct lcov_totals t;

	if (!d->n) {
		fprintf(stderr, "kjit report: --lcov needs source lines: %s\n",
			d->why);
		return 1;
	}
	lcov_write(s, d->sl, d->n, stdout, &t);
	fflush(stdout);
	say("lcov: lines %lu of %lu hit, branches %lu of %lu hit, "
	    "%lu of %lu function(s) mapped, %lu block(s) unmapped\n",
	    t.lines_hit, t.lines, t.branches_hit, t.branches, t.funcs_mapped,
	    t.funcs, t.blocks_unmapped);
	return 0;
}

/* No -i and no --live, and ./kjit.data exists: an attached live session
 * wins, with a line saying so and how to see the file; else the file (a
 * detached session is what record just saved). 0 or 1 after saying why. */
static int live_or_file(struct session *s, const char **input, const char *who)
{
	int fd = access(KJIT_DEVICE, F_OK) ? -1 : kjit_device_open();

	if (fd >= 0 && session_read_device(s, fd) == 0) {
		if (s->st.attached) {
			close(fd);
			fprintf(stderr,
				"kjit %s: showing the attached live session; "
				"kjit %s -i kjit.data shows the file\n",
				who, who);
			return 0;
		}
		session_free(s);
	}
	if (fd >= 0)
		close(fd);
	*input = "kjit.data";
	return read_file(s, *input, who);
}

int load_session(struct session *s, const char **input, int live,
		 const char *who)
{
	if (!*input && !live && access("kjit.data", F_OK) == 0)
		return live_or_file(s, input, who);
	return *input ? read_file(s, *input, who) : read_live(s, who);
}

/* What CSV rows cannot carry, on stderr: the limits hit, and each
 * function's native runs (native.h). */
static void csv_stderr(const struct session *s)
{
	char words[640];
	unsigned int i;

	if (limits_hit(&s->st))
		limits_print(&s->st, "kjit report: ", stderr);
	for (i = 0; i < s->n_funcs; i++)
		if (native_total(&s->funcs[i]))
			fprintf(
			    stderr, "kjit report: %s %s\n", s->funcs[i].name,
			    native_words(&s->funcs[i], words, sizeof(words)));
	native_print_other(s, "kjit report: ", stderr);
}

/* -i A -i B ...: B and the rest added to @s (A), each said if it cannot
 * be (merge.h); the header names them all. 0 or 1. */
static int merge_inputs(struct session *s, struct report_args *r)
{
	char why[512];
	struct session add;
	size_t len;
	int i;

	snprintf(r->inputs, sizeof(r->inputs), "%s", r->input);
	for (i = 0; i < r->n_more; i++) {
		if (read_file(&add, r->more[i], "report")) {
			session_free(s);
			return 1;
		}
		if (session_merge(s, &add, why, sizeof(why))) {
			fprintf(stderr,
				"kjit report: cannot merge %s into %s: "
				"%s\n",
				r->more[i], r->input, why);
			session_free(&add);
			session_free(s);
			return 1;
		}
		session_free(&add);
		len = strlen(r->inputs);
		snprintf(r->inputs + len, sizeof(r->inputs) - len, " + %s",
			 r->more[i]);
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_args r;
	struct debuginfo di;
	struct session s;
	int rc;

	if (parse_report(argc, argv, &r))
		return 2;
	rc = load_session(&s, &r.input, r.live, "report");
	if (!rc)
		rc = merge_inputs(&s, &r);
	if (rc)
		return rc;
	r.o.source = r.n_more ? r.inputs : r.input;
	if (s.live) {
		session_coverage(&s); /* best effort: '-' where unknown */
		native_find_holders(&s);
	} else if (r.o.uncovered && !session_has_code(&s) &&
		   session_is_running_kernel(&s)) {
		session_capture(&s); /* an older kjit's file, this boot */
	}
	memset(&di, 0, sizeof(di)); /* JSON and CSV carry no lines */
	if ((r.lcov || r.o.fmt == FMT_TEXT) &&
	    debuginfo_open(&di, &s, r.dbg, r.n_dbg)) {
		say("%s\n", di.why);
		session_free(&s);
		return 1;
	}
	if (r.folded) {
		rc = folded_print(&s, stdout);
		debuginfo_close(&di);
		session_free(&s);
		return rc;
	}
	if (r.time) {
		rc = time_report_print(&s, r.o.fmt, stdout);
		debuginfo_close(&di);
		session_free(&s);
		return rc;
	}
	if (r.by) {
		rc = by_part_print(&s, (enum by_part)(r.by - 1), r.o.fmt,
				   stdout);
		debuginfo_close(&di);
		session_free(&s);
		return rc;
	}
	if (r.lcov) {
		rc = report_lcov(&s, &di);
		debuginfo_close(&di);
		session_free(&s);
		return rc;
	}
	attach_disasm(&r, &s);
	if (di.n) {
		r.o.where = srcreport_where;
		r.o.where_ctx = &di;
	}
	if (!s.n_blocks)
		fprintf(stderr,
			"kjit report: no block was executed: the functions "
			"never ran while attached\n");
	report_print(&s, &r.o, stdout);
	if (r.o.fmt == FMT_TEXT)
		srcreport_print(&s, &di, stdout);
	debuginfo_close(&di);
	if (r.o.fmt == FMT_CSV) /* rows only on stdout */
		csv_stderr(&s);
	kcore_close(r.o.kc);
	session_free(&s);
	return 0;
}

/* How the translated blocks count: per-CPU or shared counters, and how
 * many translations use each counting sequence (form/flags handling). */
static void print_counters(const struct kjit_session_stats *st)
{
	unsigned f, q;

	printf("counters: %s",
	       st->pcpu ? "per-CPU (incq %gs:)" : "shared (lock incq)");
	if (st->pcpu)
		printf(", %u slots in use of %u (memory for %u), %" PRIu64
		       " blocks on lock incq (table full), %" PRIu64
		       " while the table grew",
		       st->pcpu_used, st->pcpu_slots, st->pcpu_held,
		       (uint64_t)st->pcpu_full, (uint64_t)st->pcpu_growing);
	printf("\n");
	for (f = 1; f < KJIT_COUNTER_FORMS; f++)
		for (q = 1; q < KJIT_COUNTER_SEQS; q++)
			if (st->counters[f][q])
				printf("  counter  %-24s %10" PRIu64 "\n",
				       names_counter(f, q),
				       (uint64_t)st->counters[f][q]);
}

static void print_stats(const struct kjit_session_stats *st)
{
	uint64_t bytes = 0;
	unsigned int i;

	for (i = 0; i < st->ncpus; i++)
		bytes += st->bytes[i];
	printf("state: %s, %u function%s%s\n",
	       st->attached ? "attached" : "detached", st->n_funcs,
	       plural_s(st->n_funcs),
	       st->stepped_aside ? " (detached by kjit.ko: a livepatch module "
				   "loaded; see dmesg)"
				 : "");
	printf("scope: %s\n", scope_words(st->scope));
	printf("blocks translated: %" PRIu64 " (%" PRIu64 " ns translating",
	       (uint64_t)st->translated, (uint64_t)st->translate_ns);
	if (st->translated && st->translate_ns)
		printf(": %.0f blocks/s, %.2f us/block",
		       st->translated * 1e9 / st->translate_ns,
		       st->translate_ns / 1e3 / st->translated);
	printf(")\n");
	printf("cache bytes: %" PRIu64, bytes);
	for (i = 0; i < st->ncpus; i++)
		printf("%s cpu%u=%" PRIu64, i ? "," : " (", i,
		       (uint64_t)st->bytes[i]);
	printf("%s\n", st->ncpus ? ")" : "");
	printf("links: %" PRIu64 " (%" PRIu64 " straight to native code)\n",
	       (uint64_t)st->links, (uint64_t)st->native_links);
	printf("dispatcher entries: %" PRIu64 " in C (%" PRIu64
	       " left the attached code),"
	       " %" PRIu64 " served by the lookup table; %" PRIu64
	       " indirect call/jmp target(s) predicted inline\n",
	       (uint64_t)st->dispatches, (uint64_t)st->exits_native,
	       (uint64_t)st->lookup_hits, (uint64_t)st->predicted);
	printf(
	    "exception fixups: %" PRIu64 " instruction(s) with an "
	    "exception-table entry run from the cache; stack traces: %" PRIu64
	    " ORC entries\n",
	    (uint64_t)st->fixups_copied, (uint64_t)st->orc_entries);
	if (st->pool_bytes)
		printf("code pool: %" PRIu64 " of %" PRIu64
		       " KiB taken (kjit_pool.ko, all CPUs)\n",
		       (uint64_t)(st->pool_taken + 1023) / 1024,
		       (uint64_t)st->pool_bytes / 1024);
	print_counters(st);
	if (st->deep)
		printf("deep mode: %u callee(s) followed of at most %u (room "
		       "held for %u), %s%u left native (deep table full; "
		       "%" PRIu64 " time(s)); %" PRIu64 " call(s) run natively "
		       "while the table grew\n",
		       st->deep_funcs, st->deep_max, st->deep_held,
		       /* the module remembers max + 1 of them (limits.c) */
		       st->deep_max && st->deep_over_funcs > st->deep_max
			   ? "at least "
			   : "",
		       st->deep_over_funcs, (uint64_t)st->deep_over_budget,
		       (uint64_t)st->deep_growing);
	if (st->exit_tail && (st->exit_tail_stayed || st->exit_tail_left))
		printf("dying tasks: %" PRIu64 " ran the rest of do_exit() "
		       "from the cache, %" PRIu64 " left it at %s (no slot "
		       "free in the table of dying tasks, %u at once)\n",
		       (uint64_t)st->exit_tail_stayed,
		       (uint64_t)st->exit_tail_left, KJIT_LEAVE_AT,
		       st->exit_tail_max);
	else if (!st->exit_tail && st->deep && st->attached)
		printf("dying tasks leave the cache at %s: the rest of "
		       "do_exit() runs natively (kjit.exit_tail=0, or this "
		       "kernel's do_exit() does not call it directly)\n",
		       KJIT_LEAVE_AT);
	if (st->patched)
		printf("warning: %" PRIu64 " int3 Kprobe(s) armed inside "
		       "translated code after attach (first at 0x%" PRIx64
		       "): the cache's copies do not hit them; detach and "
		       "attach again to include them\n",
		       (uint64_t)st->patched, (uint64_t)st->patched_addr);
	else if (!st->watched && st->attached)
		printf("note: Kprobes armed after attach are not watched "
		       "(dmesg says why)\n");
	printf("ran natively instead (fallbacks):\n");
	for (i = 0; i < SESSION_FALLBACKS; i++)
		printf("  fallback %-16s %10" PRIu64 "  %s\n", fallback_key(i),
		       (uint64_t)st->fallback[i], fallback_text(i));
	for (i = 1; i < KJIT_REFUSE_REASONS; i++)
		if (st->refused[i])
			printf("  refused  %-16s %10" PRIu64 "  %s\n",
			       kjit_reason_name((enum kjit_reason)i),
			       (uint64_t)st->refused[i], reason_text(i));
}

/* A timed session's room and what went untimed (stat's line). */
static void print_timing_stats(int fd)
{
	struct sess_time *t = NULL;

	if (timing_read_device(fd, ~0u, &t) || !t)
		return;
	printf("timed: %u function%s called (of %u timed at most); task "
	       "records in use %u of %u; %" PRIu64 " call%s untimed, %" PRIu64
	       " left open; call paths %u of %u (%" PRIu64 " call%s "
	       "found none)\n",
	       t->n, plural_s(t->n), t->max_fid, t->recs_used, t->recs,
	       t->untimed, plural_s(t->untimed), t->lost, t->paths_used,
	       t->paths, t->paths_full, plural_s(t->paths_full));
	timing_free(t);
}

int cmd_stat(int argc, char **argv)
{
	struct kjit_session_stats st = {.size = sizeof(st)};
	struct sess_stats sst;
	int fd, json = 0;

	if (argc == 2 && !strcmp(argv[1], "--json"))
		json = 1;
	else if (argc > 1) {
		fprintf(stderr,
			"kjit stat: unknown argument '%s' (only --json)\n",
			argv[1]);
		return 2;
	}
	fd = kjit_device_open();
	if (fd < 0)
		return 1;
	if (ioctl(fd, KJIT_IOC_STATS, &st)) {
		fprintf(stderr, "kjit stat: %s\n",
			errno == ENOENT ? "no session (kjit attach first)"
					: strerror(errno));
		close(fd);
		return 1;
	}
	sess_stats_from(&sst, &st);
	if (json) { /* the report's "stats" member, without its work */
		printf("{\n");
		json_stats(stdout, &sst);
		printf("}\n");
		close(fd);
		return 0;
	}
	print_stats(&st);
	print_timing_stats(fd);
	limits_print_reserved(&sst, "", stdout);
	limits_print(&sst, "", stdout);
	close(fd);
	return 0;
}
