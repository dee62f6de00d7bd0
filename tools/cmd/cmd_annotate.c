/*
 * cmd_annotate.c - `kjit annotate [-i FILE | --live] [--json]
 * [--debuginfo PATH]... FUNC...`: the annotated listing (annotate.h) of
 * functions of a session, read as `kjit report` reads it.
 *
 * The code comes from the data file (codeenv.h); a file of an older kjit
 * has none, and then only the recording boot can still show it, from
 * /proc/kcore. Exit status 0, 1 failure, 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/report/annotate.h"
#include "tools/session/codeenv.h"
#include "commands.h"
#include "tools/report/debuginfo.h"
#include "tools/report/native.h"
#include "tools/session/session.h"

struct annotate_args {
	const char *input;
	int live, json;
	const char *dbg[DEBUGINFO_MAX];
	int n_dbg;
	char **funcs;
	int n_funcs;
};

static int parse(int argc, char **argv, struct annotate_args *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--json"))
			a->json = 1;
		else if (!strcmp(o, "--live"))
			a->live = 1;
		else if ((!strcmp(o, "-i") || !strcmp(o, "--input")) && v)
			a->input = argv[++i];
		else if (!strcmp(o, "--debuginfo") && v &&
			 a->n_dbg < DEBUGINFO_MAX)
			a->dbg[a->n_dbg++] = argv[++i];
		else if (!strcmp(o, "--")) {
			i++;
			break;
		} else if (!v && (!strcmp(o, "-i") || !strcmp(o, "--input") ||
				  !strcmp(o, "--debuginfo"))) {
			fprintf(stderr,
				"kjit annotate: %s needs a value (kjit help "
				"annotate)\n",
				o);
			return -1;
		} else {
			fprintf(stderr,
				"kjit annotate: unknown argument '%s' (kjit "
				"help annotate)\n",
				o);
			return -1;
		}
	}
	a->funcs = argv + i;
	a->n_funcs = argc - i;
	if (!a->n_funcs) {
		fprintf(stderr, "kjit annotate: give at least one FUNC (kjit "
				"help annotate)\n");
		return -1;
	}
	if (a->live && a->input) {
		fprintf(stderr,
			"kjit annotate: -i and --live exclude each other\n");
		return -1;
	}
	return 0;
}

/* Each FUNC's index in @s, in @fis; 0, or 1 after saying which is not
 * there. */
static int resolve(const struct session *s, const struct annotate_args *a,
		   const char *where, unsigned int *fis)
{
	unsigned int i;
	int k, fi;

	for (k = 0; k < a->n_funcs; k++) {
		fi = annotate_find(s, a->funcs[k]);
		if (fi >= 0) {
			fis[k] = (unsigned int)fi;
			continue;
		}
		fprintf(stderr, "kjit annotate: %s: %s %s (", a->funcs[k],
			fi == -2 ? "names several functions of"
				 : "was not recorded in",
			where);
		for (i = 0; i < s->n_funcs && i < 8; i++)
			fprintf(stderr, "%s%s", i ? ", " : "",
				s->funcs[i].name);
		fprintf(stderr, "%s)\n", s->n_funcs > 8 ? ", ..." : "");
		return 1;
	}
	return 0;
}

/* The code of every function asked for: stored, or (live, or the
 * recording boot) read now. 0, or 1 after saying why not. */
static int have_code(struct session *s, const unsigned int *fis, int n,
		     const char *where)
{
	int k, err = 0;

	for (k = 0; k < n; k++)
		if (!s->funcs[fis[k]].code)
			break;
	if (k == n)
		return 0;
	if (!session_is_running_kernel(s)) {
		fprintf(stderr,
			"kjit annotate: %s has no code of %s (an older kjit "
			"recorded it) and the recording kernel (%s) is not "
			"running: kjit record again\n",
			where, s->funcs[fis[k]].name, s->kernel);
		return 1;
	}
	err = session_capture(s);
	for (k = 0; !err && k < n; k++)
		if (!s->funcs[fis[k]].code)
			err = -EIO;
	if (err)
		fprintf(stderr,
			"kjit annotate: cannot read the code of %s: %s\n",
			s->funcs[fis[k < n ? k : 0]].name, strerror(-err));
	return err ? 1 : 0;
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_args a;
	struct annotate_opts o = {0};
	struct debuginfo di;
	struct session s;
	unsigned int *fis;
	const char *where;
	int rc;

	if (parse(argc, argv, &a))
		return 2;
	if (load_session(&s, &a.input, a.live, "annotate"))
		return 1;
	where = a.input ? a.input : "the live session";
	fis = calloc((size_t)a.n_funcs, sizeof(*fis));
	rc = fis ? resolve(&s, &a, where, fis) : 1;
	if (!rc && s.live) {
		session_coverage(&s); /* reads the code, as report does */
		native_find_holders(&s);
	}
	if (!rc)
		rc = have_code(&s, fis, a.n_funcs, where);
	memset(&di, 0, sizeof(di));
	if (!rc && debuginfo_open(&di, &s, a.dbg, a.n_dbg)) {
		fprintf(stderr, "kjit annotate: %s\n", di.why);
		rc = 1;
	}
	if (!rc) {
		o.json = a.json;
		o.source = a.input;
		o.di = &di;
		rc =
		    annotate_print(&s, fis, (unsigned int)a.n_funcs, &o, stdout)
			? 1
			: 0;
		if (rc)
			fprintf(stderr, "kjit annotate: out of memory\n");
	}
	debuginfo_close(&di);
	free(fis);
	session_free(&s);
	return rc;
}
