/*
 * cmd_record.c - `kjit record [--deep] -f FUNC... [-o FILE] -- COMMAND`:
 * attach, run COMMAND, detach, save the session to FILE (default
 * kjit.data; format in datafile.h) with static coverage computed while the
 * recording kernel is at hand.
 *
 * --oracle (with --deep) first runs COMMAND once under ftrace's
 * function_graph tracer (fgraph.h) and stores the functions it saw under
 * the FUNCs, for the report's completeness section (oracle.h).
 *
 * Invariants: the session is always detached before the command returns,
 * whatever happened to COMMAND; the exit status is COMMAND's when it
 * failed, and then an existing default kjit.data is kept (unless -o or
 * --force); the file is written to FILE.tmp and
 * renamed, so a FILE that exists is complete.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "../kmod/kjit_ioctl.h"
#include "args.h"
#include "attach.h"
#include "commands.h"
#include "datafile.h"
#include "device.h"
#include "limits.h"
#include "fgraph.h"
#include "funcset.h"
#include "native.h"
#include "runcmd.h"
#include "session.h"
#include "plural.h"

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

/* Attached already: run, detach, read. Returns 0 or 1. */
/* Runs the command and reads the results; 0, or 1 after saying why. The
 * command's exit status goes to *@status. */
static int run_and_collect(int fd, const struct args *a, struct session *s,
			   int *status_out)
{
	double ns = 0;
	int status = run_command(a->cmd, &ns), err;

	*status_out = status;

	if (ioctl(fd, KJIT_IOC_DETACH, 0))
		fprintf(stderr, "kjit record: detach: %s\n", strerror(errno));
	if (status < 0)
		return 1;
	if (status)
		fprintf(stderr, "kjit record: %s exited with status %d\n",
			a->cmd[0], status);
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
	struct funcset fs;
	struct session s;
	struct args a;
	int fd, rc, status = 0;

	if (args_parse(argc, argv,
		       ARG_DEEP | ARG_FUNC_OPT | ARG_OUTPUT | ARG_COMMAND |
			   ARG_LIMITS | ARG_ORACLE | ARG_SCOPE,
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
	rc = a.oracle ? record_oracle(&a, &fs, &orc) : 0;
	if (!rc)
		rc = attach_set(fd, &a, &fs, "record");
	funcset_free(&fs);
	if (!rc)
		rc = run_and_collect(fd, &a, &s, &status);
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
	snprintf(s.scope, sizeof(s.scope), "system-wide");
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
		fprintf(stderr,
			"kjit: recorded %u block%s of %u function%s, %llu "
			"block execution%s, to %s (kjit report -i %s)\n",
			s.n_blocks, plural_s(s.n_blocks), s.n_funcs,
			plural_s(s.n_funcs),
			(unsigned long long)session_executions(&s),
			plural_s(session_executions(&s)), path, path);
	if (!rc)
		limits_print(&s.st, "kjit: ", stderr);
	if (!rc && native_warning(&s, "kjit record", warn, sizeof(warn)))
		fprintf(stderr, "%s\n", warn);
	session_free(&s);
	/* the command's failure is the record's failure */
	return rc ? rc : status ? (status > 255 ? 1 : status) : 0;
}
