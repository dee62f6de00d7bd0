/*
 * cmd_record.c - `kjit record [--deep] -f FUNC... [-o FILE] -- COMMAND`:
 * attach, run COMMAND, detach, save the session to FILE (default
 * kjit.data; format in datafile.h) with static coverage computed while the
 * recording kernel is at hand.
 *
 * Scope: by default only COMMAND counts, with the processes it forks: it
 * is forked first, held before exec until the session is attached with
 * its pid (KJIT_SCOPE_TASKS | KJIT_SCOPE_CHILDREN); -a counts every task,
 * -p PIDS or -C CPUS those (args.h).
 *
 * --oracle (with --deep) first runs COMMAND once under ftrace's
 * function_graph tracer (fgraph.h) and stores the functions it saw under
 * the FUNCs, for the report's completeness section (oracle.h).
 *
 * Invariants: the session is always detached before the command returns,
 * whatever happened to COMMAND (^C stops COMMAND; SIGTERM and SIGHUP sent
 * to kjit are passed on to it: runcmd.h), and if kjit itself is killed
 * (the session is the recorder's open /dev/kjit's: KJIT_IOC_OWN); the exit
 * status is COMMAND's when it failed, and then an existing default kjit.data is
 * kept (unless -o or
 * --force); the file is written to FILE.tmp and
 * renamed, so a FILE that exists is complete.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "kmod/kjit_ioctl.h"
#include "tools/session/args.h"
#include "tools/session/attach.h"
#include "commands.h"
#include "tools/session/datafile.h"
#include "tools/kernel/device.h"
#include "tools/report/limits.h"
#include "tools/kernel/fgraph.h"
#include "tools/session/funcset.h"
#include "tools/report/native.h"
#include "tools/session/runcmd.h"
#include "tools/session/session.h"
#include "tools/report/plural.h"
#include "tools/report/say.h"

static int save(const struct session *s, const char *path)
{
	char tmp[4096];
	FILE *f;
	int err;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "kjit record: cannot write %s: %s\n", tmp,
			strerror(errno));
		return 1;
	}
	err = datafile_write(s, f);
	err |= fclose(f);
	if (!err)
		err = rename(tmp, path);
	if (err) {
		fprintf(stderr, "kjit record: cannot write %s: %s\n", path,
			strerror(errno));
		unlink(tmp);
		return 1;
	}
	return 0;
}

/* Attached already: lets the command (forked by run_command_start) run,
 * detaches and reads the results; 0, or 1 after saying why. The command's
 * exit status goes to *@status. */
static int run_and_collect(int fd, const struct args *a, struct runcmd *r,
			   struct session *s, int *status_out)
{
	double ns = 0;
	int status = run_command_finish(r, &ns), err;

	*status_out = status;

	if (ioctl(fd, KJIT_IOC_DETACH, 0))
		fprintf(stderr, "kjit record: detach: %s\n",
			kjit_detach_why(errno));
	if (status < 0)
		return 1;
	if (status)
		fprintf(stderr, "kjit record: %s exited with status %d\n",
			a->cmd[0], status);
	if (run_command_stop_signal())
		fprintf(stderr,
			"kjit record: stopped by %s (passed on to %s); "
			"detached\n",
			strsignal(run_command_stop_signal()), a->cmd[0]);
	err = session_read_device(s, fd);
	if (err) {
		fprintf(stderr, "kjit record: cannot read the results: %s\n",
			strerror(-err));
		return 1;
	}
	return 0;
}

/* The function_graph run before kjit's, with the functions of @fs as its
 * roots; 0, or 1 after saying why. */
static int record_oracle(const struct args *a, const struct funcset *fs,
			 struct oracle **out)
{
	struct oracle *o = calloc(1, sizeof(*o));
	const char **roots = calloc((size_t)fs->n + 1, sizeof(*roots));
	int i, rc;

	*out = o;
	if (!o || !roots) {
		free(roots);
		fprintf(stderr, "kjit record: out of memory\n");
		return 1;
	}
	for (i = 0; i < fs->n; i++)
		roots[i] = fs->t[i].name;
	fprintf(stderr,
		"kjit record: running %s under function_graph "
		"first (--oracle)\n",
		a->cmd[0]);
	rc = fgraph_run(o, roots, fs->n, a->cmd);
	free(roots);
	return rc;
}

static void describe_who(const struct args *a, int command, char *buf,
			 size_t size);

/* The scope in words, for the data file and the report; @command: the
 * default scope, the command's process tree (its pid in scope_ids[0]);
 * then any --if, "; only when FUNC:argN OP VALUE". */
static void describe_scope(const struct args *a, int command, char *buf,
			   size_t size)
{
	int i;

	describe_who(a, command, buf, size);
	for (i = 0; i < a->n_preds; i++)
		pred_append_scope(&a->preds[i], !i, buf, size);
}

static void describe_who(const struct args *a, int command, char *buf,
			 size_t size)
{
	size_t used;
	int i;

	if (command) {
		snprintf(buf, size,
			 "command (pid %u and the processes it forks)",
			 a->scope_ids[0]);
		return;
	}
	if (a->scope == KJIT_SCOPE_ALL) {
		snprintf(buf, size, "system-wide%s",
			 a->count_kjit ? "" : KJIT_LEFT_OUT);
		return;
	}
	if (a->cgroup) {
		snprintf(buf, size,
			 "cgroup %s (its %d processes at attach and those "
			 "they fork)",
			 a->cgroup, a->scope_n);
		return;
	}
	used = (size_t)snprintf(buf, size, "%s ",
				a->scope == KJIT_SCOPE_TASKS ? "pid" : "cpu");
	for (i = 0; i < a->scope_n && used + 32 < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%u",
					 i ? "," : "", a->scope_ids[i]);
	if (i < a->scope_n)
		used += (size_t)snprintf(buf + used, size - used, ",...");
	if (a->scope == KJIT_SCOPE_CPUS && !a->count_kjit && used < size)
		snprintf(buf + used, size - used, KJIT_LEFT_OUT);
}

/* Without -a, -p or -C: the command's process, stopped before exec, and
 * every process it forks. Fills @a's scope; the caller frees nothing more
 * than args_free() does. 0, or 1 after saying why. */
static int scope_command(struct args *a, int pid)
{
	a->scope_ids = calloc(1, sizeof(*a->scope_ids));
	if (!a->scope_ids) {
		fprintf(stderr, "kjit record: out of memory\n");
		return 1;
	}
	a->scope_ids[0] = (unsigned int)pid;
	a->scope_n = 1;
	a->scope = KJIT_SCOPE_TASKS | KJIT_SCOPE_CHILDREN;
	return 0;
}

/* A failed command does not replace an existing default data file: 1 if
 * @path is kept (said on stderr), 0 to save. -o FILE or --force saves. */
static int keep_old(const struct args *a, const char *path, int status)
{
	if (!status || a->output || a->force || access(path, F_OK))
		return 0;
	fprintf(stderr,
		"kjit record: kept the existing %s: the command failed "
		"(--force or -o FILE saves this recording)\n",
		path);
	return 1;
}

int cmd_record(int argc, char **argv)
{
	char warn[1024];
	const char *path;
	struct oracle *orc = NULL;
	char scope[sizeof(((struct session *)0)->scope)];
	struct funcset fs;
	struct session s;
	struct runcmd r;
	struct args a;
	int fd, rc, status = 0, by_command;

	if (args_parse(argc, argv,
		       ARG_BEST_EFFORT | ARG_DEEP | ARG_FUNC_OPT | ARG_OUTPUT |
			   ARG_COMMAND | ARG_LIMITS | ARG_ORACLE | ARG_SCOPE |
			   ARG_SPLIT | ARG_TIME | ARG_IF,
		       "record", &a, stderr))
		return 2;
	path = a.output ? a.output : "kjit.data";
	fd = kjit_device_open();
	if (fd < 0 || attach_resolve(&a, "record", &fs)) {
		if (fd >= 0)
			close(fd);
		args_free(&a);
		return 1;
	}
	by_command = !a.all && !a.scope;
	rc = a.oracle ? record_oracle(&a, &fs, &orc) : 0;
	if (!rc && run_command_start(a.cmd, &r))
		rc = 1;
	if (!rc) {
		rc = by_command ? scope_command(&a, r.pid) : 0;
		if (!rc)
			rc = attach_set(fd, &a, &fs, "record");
		/* killed now, however (SIGKILL too), kjit.ko detaches when
		 * fd closes: the command's copy of it goes at exec */
		if (!rc && ioctl(fd, KJIT_IOC_OWN, 0))
			fprintf(stderr,
				"kjit record: warning: the session outlives "
				"a killed recorder: %s\n",
				strerror(errno));
		if (rc)
			run_command_abort(&r);
	}
	if (!rc)
		describe_scope(&a, by_command, scope, sizeof(scope));
	funcset_free(&fs);
	if (!rc)
		rc = run_and_collect(fd, &a, &r, &s, &status);
	close(fd);
	args_free(&a);
	if (rc) {
		if (orc)
			oracle_free(orc);
		free(orc);
		return rc;
	}
	s.oracle = orc;
	command_line(a.cmd, s.command, sizeof(s.command));
	snprintf(s.scope, sizeof(s.scope), "%s", scope);
	s.live = 0;
	session_coverage(&s);
	native_find_holders(&s);
	if (keep_old(&a, path, status)) {
		session_free(&s);
		return status;
	}
	rc = save(&s, path);
	if (!rc && !s.n_blocks)
		fprintf(stderr,
			"kjit record: warning: no block was executed: "
			"%s never ran the functions\n",
			a.cmd[0]);
	if (!rc)
		say("recorded %u block%s of %u function%s, %llu "
		    "block execution%s, to %s (kjit report -i %s)\n",
		    s.n_blocks, plural_s(s.n_blocks), s.n_funcs,
		    plural_s(s.n_funcs),
		    (unsigned long long)session_executions(&s),
		    plural_s(session_executions(&s)), path, path);
	if (!rc)
		limits_print(&s.st, "kjit record: ", stderr);
	if (!rc && native_warning(&s, "kjit record", warn, sizeof(warn)))
		fprintf(stderr, "%s\n", warn);
	session_free(&s);
	/* the command's failure is the record's failure */
	return rc ? rc : status ? (status > 255 ? 1 : status) : 0;
}
