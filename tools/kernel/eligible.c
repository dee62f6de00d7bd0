/*
 * eligible.c - the module's refusal reasons, computed by the tool (see
 * eligible.h for the order and the limits).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jit/arch_x86.h"
#include "kmod/kjit_refusals.h"
#include "eligible.h"
#include "symnames.h"
#include "sysfiles.h"

/* The module's own list (one source for both). */
static const char *const dispatch_deps[] = {KJIT_DISPATCH_DEPS};
static const char *const idle_path[] = {KJIT_IDLE_PATH};
static const char *const deep_deny[] = {KJIT_DEEP_DENY};
#define N_DISPATCH (sizeof(dispatch_deps) / sizeof(dispatch_deps[0]))
#define N_IDLE	   (sizeof(idle_path) / sizeof(idle_path[0]))
#define N_DENY	   (sizeof(deep_deny) / sizeof(deep_deny[0]))
static const char *const leave_at[] = {KJIT_LEAVE_AT};
static const char *const deny_unless_leave[] = {KJIT_DEEP_DENY_UNLESS_LEAVE};
#define N_LEAVE	 (sizeof(leave_at) / sizeof(leave_at[0]))
#define N_UNLESS (sizeof(deny_unless_leave) / sizeof(deny_unless_leave[0]))
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
#define N_NOTRACE_DENY (sizeof(notrace_deny) / sizeof(notrace_deny[0]))
_Static_assert(N_SECTIONS == sizeof(((struct eligible *)0)->sections) /
				 sizeof(((struct eligible *)0)->sections[0]),
	       "one bound pair per refused section");

static int in_range(const uint64_t r[2], uint64_t a)
{
	return r[0] && r[1] && a >= r[0] && a < r[1];
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
	return 0; /* kept in the file's order (traceable_from_names) */
}

static int push_addr(uint64_t **v, size_t *n, size_t *cap, uint64_t a)
{
	uint64_t *nv;

	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 8192;
		nv = realloc(*v, *cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
	}
	(*v)[(*n)++] = a;
	return 0;
}

/* available_filter_functions_addrs (6.5+): "SITE name [module]", one line
 * per __fentry__ site; the function is the symbol holding the site, if
 * the site is at its start or just after its endbr64, where kjit.ko looks
 * for it (kx86_fentry_offset): a site further in belongs to code kallsyms
 * does not name (freed init text: 7.2 listed one inside the span it
 * seemed init_cpu_possible.cold had). */
static int load_traceable_addrs(struct eligible *e, FILE *f)
{
	char line[512];
	size_t cap = 0;
	uint64_t site;
	const struct ksym *s;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64, &site) != 1)
			continue;
		s = symtab_containing(e->syms, site);
		if (!s ||
		    (site != s->addr && site != s->addr + KX86_ENDBR64_LEN))
			continue;
		if (push_addr(&e->traceable_at, &e->n_traceable_at, &cap,
			      s->addr))
			return -ENOMEM;
	}
	return 0;
}

/* The module's cursor: the address of its last function matched. */
static uint64_t *cursor(const char ***mods, uint64_t **cur, size_t *n,
			const char *module)
{
	size_t i;
	void *v;

	for (i = 0; i < *n; i++)
		if (!strcmp((*mods)[i], module))
			return &(*cur)[i];
	v = realloc(*mods, (*n + 1) * sizeof(**mods));
	if (v)
		*mods = v;
	v = v ? realloc(*cur, (*n + 1) * sizeof(**cur)) : NULL;
	if (!v)
		return NULL;
	*cur = v;
	(*mods)[*n] = module;
	(*cur)[*n] = 0;
	return &(*cur)[(*n)++];
}

/* One line of available_filter_functions ("name\tmodule"): of the
 * functions of that name and module, the first above the module's cursor;
 * every one of them if none is (the file was not in address order). */
static int match_line(struct eligible *e, const char *key, uint64_t *cur,
		      size_t *cap)
{
	const char *tab = strchr(key, '\t'), *module = tab + 1;
	const struct symnames *x = &e->names;
	char name[256];
	size_t i, first;

	snprintf(name, sizeof(name), "%.*s", (int)(tab - key), key);
	first = symnames_first(x, name, module);
	for (i = first; i != SYMNAMES_END; i = symnames_next(x, i, name, module))
		if (e->syms->s[i].addr > *cur) {
			*cur = e->syms->s[i].addr;
			return push_addr(&e->traceable_at, &e->n_traceable_at,
					 cap, *cur);
		}
	for (i = first; i != SYMNAMES_END; i = symnames_next(x, i, name, module))
		if (push_addr(&e->traceable_at, &e->n_traceable_at, cap,
			      e->syms->s[i].addr))
			return -ENOMEM;
	return 0;
}

/*
 * Without the addresses (before 6.5): available_filter_functions names one
 * function per __fentry__ site, in address order within the kernel and
 * within each module (ftrace sorts each one's sites). Several static
 * functions may share a name (6.1 has six t_start, of which only some have
 * a site), so each line takes the first function of its name above the
 * previous line's of the same module.
 */
static int traceable_from_names(struct eligible *e)
{
	const char **mods = NULL;
	uint64_t *cur = NULL, *c;
	size_t i, cap = 0, nmods = 0;
	int err = 0;

	for (i = 0; !err && i < e->n_traceable; i++) {
		c = cursor(&mods, &cur, &nmods,
			   strchr(e->traceable[i], '\t') + 1);
		err = c ? match_line(e, e->traceable[i], c, &cap) : -ENOMEM;
	}
	free(mods);
	free(cur);
	return err;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int has_addr(const uint64_t *v, size_t n, uint64_t a)
{
	return v && bsearch(&a, v, n, sizeof(*v), by_value) != NULL;
}

/* The core-kernel address of each of the @n names (0: none); the lowest
 * of several, as kallsyms_lookup_name() finds it. */
static uint64_t *core_addrs(const struct eligible *e, const char *const *names,
			    size_t n)
{
	uint64_t *v = calloc(n ? n : 1, sizeof(*v));
	size_t i, k;

	for (i = 0; v && i < n; i++) {
		k = symnames_first(&e->names, names[i], "");
		if (k != SYMNAMES_END)
			v[i] = e->syms->s[k].addr;
	}
	return v;
}

/* Is every function of KJIT_LEAVE_AT in the kernel (kmod's
 * kjit_kcode_leaves())? -1: out of memory. */
static int leaves(const struct eligible *e)
{
	uint64_t *v = core_addrs(e, leave_at, N_LEAVE);
	size_t i;
	int all = 1;

	if (!v)
		return -1;
	for (i = 0; i < N_LEAVE; i++)
		all &= v[i] != 0;
	free(v);
	return all;
}

static int in_addrs(const uint64_t *v, size_t n, uint64_t a)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		if (v[i] == a)
			return 1;
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
	if (symnames_build(&e->names, syms))
		return -ENOMEM;
	e->dispatch_at = core_addrs(e, dispatch_deps, N_DISPATCH);
	e->idle_at = core_addrs(e, idle_path, N_IDLE);
	e->deny_at = core_addrs(e, deep_deny, N_DENY);
	e->notrace_at = core_addrs(e, notrace_deny, N_NOTRACE_DENY);
	err = leaves(e);
	e->n_deny_leave = err ? 0 : N_UNLESS;
	e->deny_leave_at = core_addrs(e, deny_unless_leave, e->n_deny_leave);
	if (!e->dispatch_at || !e->idle_at || !e->deny_at || !e->notrace_at ||
	    err < 0 || !e->deny_leave_at)
		return -ENOMEM;
	err = load_file(sysfile_tracing("available_filter_functions_addrs"), e,
			load_traceable_addrs, &e->have_traceable);
	if (!err && !e->have_traceable) {
		err = load_file(sysfile_tracing("available_filter_functions"),
				e, load_traceable, &e->have_traceable);
		if (!err && e->have_traceable)
			err = traceable_from_names(e);
	}
	if (!err && e->traceable_at)
		qsort(e->traceable_at, e->n_traceable_at,
		      sizeof(*e->traceable_at), by_value);
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
	free(e->traceable_at);
	symnames_free(&e->names);
	free(e->dispatch_at);
	free(e->idle_at);
	free(e->deny_at);
	free(e->deny_leave_at);
	free(e->notrace_at);
	free(e->black);
	free(e->maxend);
	memset(e, 0, sizeof(*e));
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

/* kallsyms_lookup_name(@name): the kernel's own first, else the module
 * first by name (its lowest address); 0 if none. */
static uint64_t lookup_name(const struct eligible *e, const char *name)
{
	const struct ksym *s = e->syms->s, *best = NULL;
	size_t i = symnames_first(&e->names, name, "");

	if (i != SYMNAMES_END)
		return s[i].addr;
	for (i = symnames_first(&e->names, name, NULL); i != SYMNAMES_END;
	     i = symnames_next(&e->names, i, name, NULL))
		if (!best || strcmp(s[i].module, best->module) < 0)
			best = &s[i];
	return best ? best->addr : 0;
}

/* within_kprobe_blacklist()'s second rule: a suffixed symbol (foo.part.0,
 * foo.cold, foo.isra.0) is refused when foo is blacklisted. Any name at
 * @a counts, so aliases agree. */
static int suffix_blacklisted(const struct eligible *e, uint64_t a)
{
	const struct ksym *s = symtab_containing(e->syms, a);
	char base[256];
	const char *dot;
	uint64_t b;

	for (; s && s >= e->syms->s && s->addr == a; s--) {
		dot = strchr(s->name, '.');
		if (!dot)
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)(dot - s->name),
			 s->name);
		b = lookup_name(e, base);
		if (b && blacklisted(e, b))
			return 1;
	}
	return 0;
}

/* Has the function at @s's address an __fentry__ site (by any name)? */
static int traceable(const struct eligible *e, const struct ksym *s)
{
	return has_addr(e->traceable_at, e->n_traceable_at, s->addr);
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
	if (in_addrs(e->idle_at, N_IDLE, s->addr))
		return KJIT_IDLE_PATH_WHY;
	return NULL;
}

const char *eligible_why(const struct eligible *e, const struct ksym *s)
{
	const char *why = refused_everywhere(e, s);

	if (why)
		return why;
	if (in_addrs(e->dispatch_at, N_DISPATCH, s->addr))
		return "used by kjit's dispatcher";
	if (!e->have_black)
		return "unknown: cannot read the kprobe blacklist (debugfs)";
	if (blacklisted(e, s->addr) || suffix_blacklisted(e, s->addr))
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
	if (in_addrs(e->deny_at, N_DENY, s->addr) ||
	    in_addrs(e->deny_leave_at, e->n_deny_leave, s->addr))
		return KJIT_DEEP_DENY_WHY;
	if (!e->have_traceable)
		return "unknown: cannot read available_filter_functions "
		       "(tracefs)";
	if (traceable(e, s))
		return NULL;
	/* no ftrace site: followed too, but for these */
	if (!strcmp(s->module, "bpf"))
		return "a BPF program (no ftrace site; freed by its user)";
	/* the core kernel's trampolines are followed behind a guard on
	 * their key (kmod/sites.c keeps those with inline sites) */
	if (!strncmp(s->name, "__SCT__", 7) && !*s->module)
		return NULL;
	for (i = 0; i < N_NOTRACE_SECTIONS; i++)
		if (in_range(e->notrace_sections[i], s->addr))
			return notrace_section_names[i].why;
	if (in_addrs(e->notrace_at, N_NOTRACE_DENY, s->addr))
		return KJIT_DEEP_NOTRACE_WHY;
	if (!strncmp(s->name, "__SCT__", 7) && *s->module) /* a module's */
		return KJIT_STATIC_CALL_TRAMP_WHY;
	if (!*s->module && kjit_sanitizer_name(s->name))
		return KJIT_SANITIZER_WHY;
	return NULL;
}
