/*
 * eligible.c - the module's refusal reasons, computed by the tool (see
 * eligible.h for the order and the limits).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../kmod/kjit_refusals.h"
#include "eligible.h"
#include "sysfiles.h"

/* The module's own list (one source for both). */
static const char *const dispatch_deps[] = {KJIT_DISPATCH_DEPS};
static const char *const idle_path[] = {KJIT_IDLE_PATH};
static const char *const deep_deny[] = {KJIT_DEEP_DENY};
static const struct {
	const char *start, *end, *why;
} section_names[] = {KJIT_REFUSED_SECTIONS};
#define N_SECTIONS (sizeof(section_names) / sizeof(section_names[0]))
static const struct {
	const char *start, *end, *why;
} notrace_section_names[] = {KJIT_DEEP_NOTRACE_SECTIONS};
#define N_NOTRACE_SECTIONS                                                     \
	(sizeof(notrace_section_names) / sizeof(notrace_section_names[0]))
_Static_assert(N_NOTRACE_SECTIONS ==
		   sizeof(((struct eligible *)0)->notrace_sections) /
		       sizeof(((struct eligible *)0)->notrace_sections[0]),
	       "one bound pair per notrace section");
static const char *const notrace_deny[] = {KJIT_DEEP_NOTRACE_DENY};
_Static_assert(N_SECTIONS == sizeof(((struct eligible *)0)->sections) /
				 sizeof(((struct eligible *)0)->sections[0]),
	       "one bound pair per refused section");

static int in_range(const uint64_t r[2], uint64_t a)
{
	return r[0] && r[1] && a >= r[0] && a < r[1];
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *key(const char *name, const char *module)
{
	char *k = malloc(strlen(name) + strlen(module) + 2);

	if (k)
		sprintf(k, "%s\t%s", name, module);
	return k;
}

static int load_traceable(struct eligible *e, FILE *f)
{
	char line[512], name[256], module[64];
	size_t cap = 0;
	char **v;

	while (fgets(line, sizeof(line), f)) {
		module[0] = 0;
		if (sscanf(line, "%255s [%63[^]]]", name, module) < 1)
			continue;
		if (e->n_traceable == cap) {
			cap = cap ? 2 * cap : 8192;
			v = realloc(e->traceable, cap * sizeof(*v));
			if (!v)
				return -ENOMEM;
			e->traceable = v;
		}
		e->traceable[e->n_traceable] = key(name, module);
		if (!e->traceable[e->n_traceable])
			return -ENOMEM;
		e->n_traceable++;
	}
	qsort(e->traceable, e->n_traceable, sizeof(char *), cmp_str);
	return 0;
}

static int load_black(struct eligible *e, FILE *f)
{
	char line[512];
	uint64_t a, b;
	size_t cap = 0;
	void *v;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "0x%" SCNx64 "-0x%" SCNx64, &a, &b) != 2)
			continue;
		if (e->n_black == cap) {
			cap = cap ? 2 * cap : 1024;
			v = realloc(e->black, cap * sizeof(*e->black));
			if (!v)
				return -ENOMEM;
			e->black = v;
		}
		e->black[e->n_black][0] = a;
		e->black[e->n_black][1] = b;
		e->n_black++;
	}
	return 0;
}

static int index_black(struct eligible *e);

static int load_file(const char *path, struct eligible *e,
		     int (*fn)(struct eligible *, FILE *), int *have)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	int err;

	if (!f)
		return 0;
	err = fn(e, f);
	fclose(f);
	*have = !err;
	return err;
}

int eligible_load(struct eligible *e, const struct symtab *syms)
{
	size_t i;
	int err;

	memset(e, 0, sizeof(*e));
	e->syms = syms;
	for (i = 0; i < N_SECTIONS; i++) {
		e->sections[i][0] = symtab_addr(syms, section_names[i].start);
		e->sections[i][1] = symtab_addr(syms, section_names[i].end);
	}
	for (i = 0; i < N_NOTRACE_SECTIONS; i++) {
		e->notrace_sections[i][0] =
		    symtab_addr(syms, notrace_section_names[i].start);
		e->notrace_sections[i][1] =
		    symtab_addr(syms, notrace_section_names[i].end);
	}
	err = load_file(sysfile_tracing("available_filter_functions"), e,
			load_traceable, &e->have_traceable);
	if (!err)
		err = load_file(sysfile_debug("kprobes/blacklist"), e,
				load_black, &e->have_black);
	if (!err && e->have_black)
		err = index_black(e);
	return err;
}

void eligible_free(struct eligible *e)
{
	size_t i;

	for (i = 0; i < e->n_traceable; i++)
		free(e->traceable[i]);
	free(e->traceable);
	free(e->black);
	free(e->maxend);
	memset(e, 0, sizeof(*e));
}

/* Is @s a core-kernel function named in @names? */
static int in_list(const struct ksym *s, const char *const *names, size_t n)
{
	size_t i;

	if (s->module[0])
		return 0;
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s->name))
			return 1;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Sorts the ranges by start and fills maxend (for the backward scan). */
static int index_black(struct eligible *e)
{
	size_t i;

	qsort(e->black, e->n_black, sizeof(*e->black), by_start);
	e->maxend = malloc((e->n_black + 1) * sizeof(*e->maxend));
	if (!e->maxend)
		return -ENOMEM;
	for (i = 0; i < e->n_black; i++)
		e->maxend[i] = i && e->maxend[i - 1] > e->black[i][1]
				   ? e->maxend[i - 1]
				   : e->black[i][1];
	return 0;
}

static int blacklisted(const struct eligible *e, uint64_t a)
{
	size_t lo = 0, hi = e->n_black, j;

	while (lo < hi) { /* first range starting after a */
		size_t mid = lo + (hi - lo) / 2;

		if (e->black[mid][0] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (j = lo; j-- > 0 && e->maxend[j] > a;)
		if (in_range(e->black[j], a))
			return 1;
	return 0;
}

static int traceable(const struct eligible *e, const struct ksym *s)
{
	char *k = key(s->name, s->module);
	int found;

	if (!k)
		return 0;
	found = bsearch(&k, e->traceable, e->n_traceable, sizeof(char *),
			cmp_str) != NULL;
	free(k);
	return found;
}

/* What attach and deep mode both refuse: kjit itself, the refused sections,
 * the idle path. NULL if none applies. */
static const char *refused_everywhere(const struct eligible *e,
				      const struct ksym *s)
{
	size_t i;

	if (!strcmp(s->module, "kjit") || !strcmp(s->module, "kjit_pool"))
		return "part of kjit";
	for (i = 0; i < N_SECTIONS; i++)
		if (in_range(e->sections[i], s->addr))
			return section_names[i].why;
	if (in_list(s, idle_path, sizeof(idle_path) / sizeof(idle_path[0])))
		return KJIT_IDLE_PATH_WHY;
	return NULL;
}

const char *eligible_why(const struct eligible *e, const struct ksym *s)
{
	const char *why = refused_everywhere(e, s);

	if (why)
		return why;
	if (in_list(s, dispatch_deps,
		    sizeof(dispatch_deps) / sizeof(dispatch_deps[0])))
		return "used by kjit's dispatcher";
	if (!e->have_black)
		return "unknown: cannot read the kprobe blacklist (debugfs)";
	if (blacklisted(e, s->addr))
		return "on the kprobe blacklist";
	if (!e->have_traceable)
		return "unknown: cannot read available_filter_functions "
		       "(tracefs)";
	if (!traceable(e, s))
		return "not traceable (no __fentry__ site at its start)";
	return NULL;
}

const char *eligible_deep_why(const struct eligible *e, const struct ksym *s)
{
	const char *why = refused_everywhere(e, s);
	size_t i;

	if (why)
		return why;
	if (in_list(s, deep_deny, sizeof(deep_deny) / sizeof(deep_deny[0])))
		return KJIT_DEEP_DENY_WHY;
	if (!e->have_traceable)
		return "unknown: cannot read available_filter_functions "
		       "(tracefs)";
	if (traceable(e, s))
		return NULL;
	/* no ftrace site: followed too, but for these */
	if (s->module && !strcmp(s->module, "bpf"))
		return "a BPF program (no ftrace site; freed by its user)";
	/* the core kernel's trampolines are followed behind a guard on
	 * their key (kmod/sites.c keeps those with inline sites) */
	if (!strncmp(s->name, "__SCT__", 7) && !s->module)
		return NULL;
	for (i = 0; i < N_NOTRACE_SECTIONS; i++)
		if (in_range(e->notrace_sections[i], s->addr))
			return notrace_section_names[i].why;
	if (in_list(s, notrace_deny,
		    sizeof(notrace_deny) / sizeof(notrace_deny[0])))
		return KJIT_DEEP_NOTRACE_WHY;
	if (!strncmp(s->name, "__SCT__", 7) && s->module) /* a module's */
		return KJIT_STATIC_CALL_TRAMP_WHY;
	return NULL;
}
