/*
 * fgraph.c - one run of COMMAND under function_graph (see fgraph.h).
 *
 * Invariants: `saved` lists, in the order written, every setting changed
 * with its old value; restore() writes them back in reverse and is reached
 * from every path after the first write. The child is stopped (SIGSTOP)
 * until its pid is in set_ftrace_pid, and is killed and reaped on any
 * failure before it runs. function_graph is switched on with a filter of
 * one chunk of the kernel's functions, widened a chunk per write to all of
 * them, and narrowed again before it is switched off (filter_chunks.h):
 * the same functions are traced, but no kernel call patches them all.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tools/session/attach.h"
#include "tools/session/stopsig.h"
#include "eligible.h"
#include "fgraph.h"
#include "filter_chunks.h"
#include "kcore.h"
#include "symtab.h"
#include "sysfiles.h"
#include "tools/report/say.h"

#define SAVED_MAX 16
/* ftrace sites patched per kernel call. Measured on 6.1 under TCG (38,252
 * functions): all at once took 6 s at pace 2; each write to the filter
 * costs about 0.6 s there whatever it adds (ftrace walks every record and
 * copies the filter), so a chunk of 4,096 keeps each call near 1 s at the
 * price of 9 writes each way. */
#ifndef FGRAPH_CHUNK_FUNCS
#define FGRAPH_CHUNK_FUNCS 4096
#endif

struct saved {
	char name[64];
	char *old; /* contents to write back ("" truncates) */
};

struct fgraph {
	struct saved s[SAVED_MAX];
	int n;
	struct filter_chunks ch; /* the kernel's functions, in chunks */
	bool filtered;	/* set_ftrace_filter holds chunk 0 (and more) */
	size_t widened; /* chunks in it: 1 + those widen() added */
};

static int path_of(const char *name, char *buf, size_t size)
{
	const char *p = sysfile_tracing(name);

	if (!p)
		return -ENOENT;
	snprintf(buf, size, "%s", p);
	return 0;
}

/* Whole file @name, NUL-terminated, or NULL with errno set. */
static char *read_all(const char *name)
{
	char path[512], *buf = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f;

	if (path_of(name, path, sizeof(path))) {
		errno = ENOENT;
		return NULL;
	}
	f = fopen(path, "r");
	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			char *v = realloc(buf, cap = 2 * cap + 8192);

			if (!v) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = v;
		}
		n = fread(buf + len, 1, 4096, f);
		len += n;
	} while (n);
	buf[len] = 0;
	fclose(f);
	return buf;
}

/* Writes @val to @name, one write per line of @val (a last line without
 * "\n" is written without); @flags: O_TRUNC
 * replaces, O_APPEND adds (set_ftrace_filter: to the functions it holds). */
static int write_lines(const char *name, const char *val, int flags)
{
	char path[512];
	const char *l, *e;
	int fd, err = 0;

	if (path_of(name, path, sizeof(path)))
		return -ENOENT;
	fd = open(path, O_WRONLY | flags);
	if (fd < 0)
		return -errno;
	for (l = val; *l && !err; l = *e ? e + 1 : e) {
		e = l + strcspn(l, "\n");
		/* with its newline: tracefs joins a word that ends a
		 * write to the next write's first ("a" "b" is "ab") */
		if (e > l && write(fd, l, (size_t)(e - l) + !!*e) < 0)
			err = -errno;
	}
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* Writes @val to @name, truncating. */
static int write_val(const char *name, const char *val)
{
	return write_lines(name, val, O_TRUNC);
}

/* tracefs shows "nothing set" as a comment line or "no pid": written back
 * as an empty (truncating) write. */
static char *restorable(char *old)
{
	char *e;

	if (old[0] == '#' || !strncmp(old, "no pid", 6))
		old[0] = 0;
	/* buffer_size_kb before first use, "7 (expanded: 1408)": the size
	 * it would have grown to (writing 7 would leave 7 KB) */
	e = strstr(old, "(expanded: ");
	if (e)
		memmove(old, e + 11, strlen(e + 11) + 1);
	old[strcspn(old, ")")] = 0;
	return old;
}

static int set(struct fgraph *g, const char *name, const char *val)
{
	char *old = read_all(name);
	int err;

	if (!old)
		return -errno;
	if (g->n == SAVED_MAX) {
		free(old);
		return -ENOSPC;
	}
	snprintf(g->s[g->n].name, sizeof(g->s[0].name), "%s", name);
	g->s[g->n++].old = restorable(old);
	err = write_val(name, val);
	if (err)
		fprintf(stderr,
			"kjit record: --oracle: cannot write '%.200s%s' to "
			"tracefs %s: %s\n",
			val, strlen(val) > 200 ? "..." : "", name,
			strerror(-err));
	return err;
}

static int restore(struct fgraph *g)
{
	int rc = 0, err;

	while (g->n > 0) {
		struct saved *s = &g->s[--g->n];

		err = write_val(s->name, s->old);
		if (err) {
			fprintf(stderr,
				"kjit record: --oracle: cannot restore "
				"tracefs %s: %s\n",
				s->name, strerror(-err));
			rc = 1;
		}
		free(s->old);
	}
	return rc;
}

/* 0 if the top-level tracer is free to use; else 1 after saying why. */
static int check_free(void)
{
	static const char *const filters[] = {"set_ftrace_filter",
					      "set_ftrace_notrace"};
	char *v = read_all("current_tracer");
	size_t i;
	int busy;

	if (!v) {
		fprintf(stderr,
			"kjit record: --oracle: cannot read tracefs "
			"current_tracer: %s\n",
			strerror(errno));
		return 1;
	}
	busy = strcmp(v, "nop\n") != 0;
	if (busy)
		fprintf(stderr,
			"kjit record: --oracle: the tracer is busy "
			"(current_tracer is %.*s); stop it or try later\n",
			(int)strcspn(v, "\n"), v);
	free(v);
	for (i = 0; !busy && i < 2; i++) {
		v = read_all(filters[i]);
		busy = v && v[0] && v[0] != '#';
		if (busy)
			fprintf(stderr,
				"kjit record: --oracle: tracefs %s is set "
				"and would hide functions; clear it first\n",
				filters[i]);
		free(v);
	}
	return busy;
}

/* The kernel's functions (available_filter_functions) in chunks. */
static int plan_chunks(struct fgraph *g)
{
	char *avail = read_all("available_filter_functions");
	int err;

	if (!avail) {
		err = -errno;
		fprintf(stderr,
			"kjit record: --oracle: cannot read tracefs "
			"available_filter_functions: %s\n",
			strerror(errno));
		return err;
	}
	err = filter_chunks_plan(avail, FGRAPH_CHUNK_FUNCS, &g->ch);
	free(avail);
	if (err)
		fprintf(stderr, "kjit record: --oracle: %s\n",
			err == -ENOMEM ? "out of memory"
				       : "no functions in tracefs "
					 "available_filter_functions");
	return err;
}

/* Lines of @name that name a function: not the indented lines some
 * records add (6.12's "\tdirect-->" of a direct call). */
static size_t functions_in(const char *name)
{
	char *v = read_all(name), *p;
	size_t n = 0;

	for (p = v; p && *p; p++)
		n += (p == v || p[-1] == '\n') && *p != ' ' && *p != '\t' &&
		     *p != '\n';
	free(v);
	return n;
}

/* The tracer on with chunk 0: adds chunks 1..n-1, one kernel call each,
 * then checks that the kernel traces every function (enabled_functions
 * lists each patched site): a kernel that would not widen a running
 * tracer's filter would leave the oracle blind to most of the kernel. */
static int widen(struct fgraph *g)
{
	size_t i, on;
	int err = 0;

	for (i = 1; i < g->ch.n && !err; i++) {
		err = write_lines("set_ftrace_filter", g->ch.text[i], O_APPEND);
		/* a failed write may have added some of its globs */
		g->widened = i + 1;
	}
	if (err) {
		fprintf(stderr,
			"kjit record: --oracle: cannot add to tracefs "
			"set_ftrace_filter: %s\n",
			strerror(-err));
		return err;
	}
	on = functions_in("enabled_functions");
	if (on < g->ch.total) {
		fprintf(stderr,
			"kjit record: --oracle: function_graph traces %zu of "
			"the kernel's %zu functions after its filter grew\n",
			on, g->ch.total);
		return -EIO;
	}
	return 0;
}

/* Back to chunk 0 before the tracer is switched off: every chunk widen()
 * added, each on its own even when one fails (a module unloaded since
 * leaves a glob that matches nothing, which tracefs refuses), so that
 * switching off patches as little as it can. The first error is returned. */
static int narrow(struct fgraph *g)
{
	size_t i;
	int err = 0, e;

	for (i = g->widened; i-- > 1;) {
		char *neg = filter_chunks_negated(g->ch.text[i]);

		e = neg ? write_lines("set_ftrace_filter", neg, O_APPEND)
			: -ENOMEM;
		free(neg);
		if (e && !err)
			err = e;
	}
	if (err)
		fprintf(stderr,
			"kjit record: --oracle: cannot narrow tracefs "
			"set_ftrace_filter: %s\n",
			strerror(-err));
	return err;
}

static int setup(struct fgraph *g, const struct oracle *o)
{
	static const char *const opts[][2] = {
	    {"options/funcgraph-irqs", "0"}, {"options/funcgraph-proc", "1"},
	    {"options/funcgraph-cpu", "1"},  {"options/funcgraph-abstime", "0"},
	    {"options/function-fork", "1"},  {"options/latency-format", "1"},
	};
	char kb[32], *list;
	size_t i, used = 0;
	int err;

	snprintf(kb, sizeof(kb), "%d", FGRAPH_BUFFER_KB);
	/* every root, one a line: each name fits KJIT_NAME_MAX with its \n */
	list = malloc((size_t)o->n_roots * KJIT_NAME_MAX + 1);
	if (!list)
		return -ENOMEM;
	list[0] = 0;
	for (i = 0; i < o->n_roots; i++)
		used += (size_t)sprintf(list + used, "%s\n", o->roots[i]);
	err = set(g, "tracing_on", "0");
	for (i = 0; !err && i < sizeof(opts) / sizeof(*opts); i++)
		err = set(g, opts[i][0], opts[i][1]);
	if (!err)
		err = set(g, "buffer_size_kb", kb);
	if (!err)
		err = set(g, "set_graph_function", list);
	free(list);
	if (err == -EINVAL)
		fprintf(stderr, "kjit record: --oracle: function_graph cannot "
				"trace a FUNC (not in available_filter_"
				"functions; give names, not addresses)\n");
	if (!err)
		err = plan_chunks(g);
	if (!err)
		err = set(g, "set_ftrace_filter", g->ch.text[0]);
	g->filtered = !err;
	g->widened = !err;
	if (!err)
		err = write_val("trace", "");
	return err;
}

/*
 * The signals that stop a recorder (tools/session/stopsig.h): from setup()
 * to restore() they are held, so that none ends the tool with the tracer
 * on and the kernel's ftrace sites patched (widening and narrowing the
 * filter take seconds); only while the command runs are they let in, each
 * passed on to the command. The first one seen ends the record after
 * restore(): nothing is recorded, and kjit's own run never starts.
 */
static struct stopsig stops;

/* Forks the command, stopped before exec. Returns its pid or -1. */
static pid_t fork_stopped(char **cmd)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		/* the tool's own dispositions and mask, as given */
		stopsig_restore_in_child(&stops, 0);
		raise(SIGSTOP);
		execvp(cmd[0], cmd);
		say("cannot run %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, WUNTRACED) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFSTOPPED(st))
		return -1;
	return pid;
}

static int wait_exit(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Tracing on, the child runs, tracing off. 0 or -errno. A stop signal
 * held until the child is ready kills it before it runs. */
static int trace_child(struct fgraph *g, char **cmd)
{
	char pid_s[32];
	pid_t pid;
	int err, st;

	pid = fork_stopped(cmd);
	if (pid < 0)
		return -errno ? -errno : -ECHILD;
	snprintf(pid_s, sizeof(pid_s), "%d", (int)pid);
	err = set(g, "set_ftrace_pid", pid_s);
	if (!err)
		err = set(g, "current_tracer", "function_graph");
	if (!err)
		err = widen(g);
	if (!err)
		err = write_val("tracing_on", "1");
	stopsig_pass_to(pid);
	stopsig_let_in(&stops); /* held ones: passed on, the child stopped */
	if (err || stopsig_seen()) {
		stopsig_pass_to(0);
		kill(pid, SIGKILL);
		wait_exit(pid);
		stopsig_hold(&stops);
		return err;
	}
	kill(pid, SIGCONT);
	st = wait_exit(pid);
	stopsig_pass_to(0);
	stopsig_hold(&stops);
	err = write_val("tracing_on", "0");
	if (st && !stopsig_seen())
		fprintf(stderr,
			"kjit record: warning: %s exited with status %d "
			"under the tracer\n",
			cmd[0], st);
	return err;
}

static uint64_t lost_events(void)
{
	char name[64];
	uint64_t sum = 0;
	FILE *f;
	int cpu;

	for (cpu = 0; cpu < 4096; cpu++) {
		const char *p;

		snprintf(name, sizeof(name), "per_cpu/cpu%d/stats", cpu);
		p = sysfile_tracing(name);
		if (!p || !(f = fopen(p, "r")))
			break;
		sum += oracle_stats_lost(f);
		fclose(f);
	}
	return sum;
}

static int collect(struct oracle *o)
{
	char path[512];
	FILE *f;
	int err;

	if (path_of("trace", path, sizeof(path)) || !(f = fopen(path, "r")))
		return -errno;
	err = oracle_parse(o, f);
	fclose(f);
	o->lost = lost_events();
	return err;
}

static const struct ksym *by_name(const struct symtab *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->s[i].name, name))
			return &t->s[i];
	return NULL;
}

/* Marks each function that a static call trampoline (__SCT__x: `jmp
 * target`, after an endbr64 on some kernels) jumps to now. Best effort:
 * without /proc/kcore nothing is marked. */
static void mark_static_calls(struct oracle *o, const struct symtab *t)
{
	struct kcore *kc = kcore_open(sysfile(2, "/proc/kcore"));
	const struct ksym *to;
	struct oracle_fn *fn;
	unsigned char b[9];
	size_t i, at;
	int32_t rel;

	for (i = 0; kc && i < t->n; i++) {
		if (strncmp(t->s[i].name, "__SCT__", 7) ||
		    kcore_read(kc, t->s[i].addr, b, sizeof(b)))
			continue;
		at =
		    b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa
			? 4
			: 0;
		if (b[at] != 0xe9)
			continue;
		memcpy(&rel, b + at + 1, 4);
		to = symtab_containing(t, t->s[i].addr + at + 5 + (int64_t)rel);
		fn = to ? oracle_find(o, to->name) : NULL;
		if (fn && !fn->via[0])
			snprintf(fn->via, sizeof(fn->via), "%s", t->s[i].name);
	}
	kcore_close(kc);
}

/* A function called through __schedule from a preemption entry, which
 * deep mode keeps native (KJIT_DEEP_DENY): the tracer cannot see
 * __schedule (notrace), so it names the entry as the caller; it runs
 * natively below a counted one. */
static const char *sched_core_why(const char *parent)
{
	bool followed;

	if (oracle_sched_entry(parent, &followed) && !followed)
		return "called through __schedule from a preemption point "
		       "(kept native in deep mode)";
	return NULL;
}

/* Why deep mode would refuse each function (from the running kernel). */
static int explain(struct oracle *o)
{
	struct symtab syms;
	struct eligible e;
	const char *why;
	unsigned int i;

	if (load_symbols(&syms))
		return 1;
	if (eligible_load(&e, &syms)) {
		symtab_free(&syms);
		return 1;
	}
	for (i = 0; i < o->n; i++) {
		const struct ksym *k = by_name(&syms, o->fn[i].name);

		why = k ? eligible_deep_why(&e, k) : "not in kallsyms";
		if (!why)
			why = sched_core_why(o->fn[i].parent);
		snprintf(o->fn[i].why, sizeof(o->fn[i].why), "%s",
			 why ? why : "");
	}
	mark_static_calls(o, &syms);
	eligible_free(&e);
	symtab_free(&syms);
	return 0;
}

int fgraph_run(struct oracle *o, const char *const *roots, int n_roots,
	       char **cmd)
{
	struct fgraph g = {0};
	int i, err = 0, rc, sig;

	for (i = 0; i < n_roots && !err; i++)
		err = oracle_add_root(o, roots[i]);
	if (err || !sysfile_tracing("current_tracer")) {
		fprintf(stderr, "kjit record: --oracle: %s\n",
			err ? strerror(-err) : "cannot find tracefs");
		return 1;
	}
	if (check_free())
		return 1;
	stopsig_take(&stops, false);
	stopsig_hold(&stops);
	err = setup(&g, o);
	if (!err)
		err = trace_child(&g, cmd);
	if (!err && !stopsig_seen())
		err = collect(o);
	/* on every path: back to one chunk before current_tracer is nop */
	if (g.filtered && narrow(&g) && !err)
		err = -EIO;
	rc = restore(&g);
	filter_chunks_free(&g.ch);
	stopsig_release(&stops); /* held ones: the tool's own, noted */
	sig = stopsig_seen();
	if (sig) {
		say("interrupted by %s under --oracle: the tracer's settings "
		    "restored%s, nothing recorded\n",
		    stopsig_name(sig), rc ? " as far as they could be" : "");
		return 128 + sig;
	}
	if (err) {
		fprintf(stderr,
			"kjit record: --oracle: function_graph run "
			"failed: %s\n",
			strerror(-err));
		return 1;
	}
	if (o->lost)
		fprintf(stderr,
			"kjit record: warning: the tracer lost %llu event(s) "
			"(buffer full): the oracle may miss functions; use a "
			"shorter command\n",
			(unsigned long long)o->lost);
	return rc || explain(o);
}
