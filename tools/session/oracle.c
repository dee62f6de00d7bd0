/*
 * oracle.c - parse function_graph output into the set of functions under
 * each root, store it in kjit.data, classify what kjit did not count (see
 * oracle.h).
 *
 * Invariants: o->fn[] holds each name once and o->hash indexes it (open
 * addressing, at most half full); a task's stack[d] is the function open at
 * depth d of its latest call chain, -1 when unknown (lost or cut lines), so
 * a line whose parent is unknown is skipped rather than misattributed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "kmod/kjit_refusals.h"
#include "codeenv.h"
#include "jit/decode.h"
#include "oracle.h"
#include "session.h"

#define ORACLE_DEPTH 128

/* Functions the irq entry code calls outside the hardirq count, which
 * function_graph therefore shows under the interrupted task even with
 * funcgraph-irqs off. The siblings after one of them that still run with
 * interrupts off (irq_exit's idle_cpu, tick and softirq work) belong to
 * the same interrupt. */
static const char *const irq_entry_names[] = {"irq_enter_rcu", "irq_enter"};

struct task {
	long key; /* pid, or -1 - cpu without funcgraph-proc */
	int stack[ORACLE_DEPTH];
	int irq_depth; /* interrupt region opened at this depth; -1: none */
	/* the frame (depth) of a KJIT_LEAVE_FROM call that has called its
	 * leaving callee: what it calls from then on runs natively; -1 */
	int left_depth;
};

struct parser {
	struct oracle *o;
	struct task *t;
	unsigned int n_t;
	unsigned int *hash; /* fn index + 1; 0: empty */
	unsigned int hcap;
};

struct tline {
	long task;
	int depth, irqs_off, irq_ctx;
	char name[KJIT_NAME_MAX];
};

static void set_str(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src);
}

/* "name [module]" and "module:name" -> "name", in place. */
static void base_name(char *s)
{
	char *c = strchr(s, ':');

	s[strcspn(s, " \t")] = 0;
	if (c)
		memmove(s, c + 1, strlen(c + 1) + 1);
}

int oracle_add_root(struct oracle *o, const char *name)
{
	if (o->n_roots == o->cap_roots) {
		unsigned int cap = o->cap_roots ? 2 * o->cap_roots : 16;
		void *r = realloc(o->roots, cap * sizeof(*o->roots));

		if (!r)
			return -ENOMEM;
		o->roots = r;
		o->cap_roots = cap;
	}
	set_str(o->roots[o->n_roots], KJIT_NAME_MAX, name);
	base_name(o->roots[o->n_roots]);
	o->n_roots++;
	return 0;
}

void oracle_free(struct oracle *o)
{
	free(o->roots);
	free(o->fn);
	memset(o, 0, sizeof(*o));
}

struct oracle_fn *oracle_find(const struct oracle *o, const char *name)
{
	unsigned int i;

	for (i = 0; i < o->n; i++)
		if (!strcmp(o->fn[i].name, name))
			return &o->fn[i];
	return NULL;
}

static int add_fn(struct oracle *o, const struct oracle_fn *fn)
{
	struct oracle_fn *v;

	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 256;
		v = realloc(o->fn, o->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		o->fn = v;
	}
	o->fn[o->n++] = *fn;
	return 0;
}

/*
 * A call that leaves the cache (kmod/kjit_refusals.h KJIT_LEAVE_AT): what
 * its caller calls from there on runs natively (do_exit() past
 * exit_tasks_rcu_start(): exit_notify() and the dying task's last steps).
 * The parser marks each callee of such a caller by where each call of it
 * came, before or after that invocation's leaving call (oracle_fn.left).
 */
static const char *const leave_at[] = {KJIT_LEAVE_AT};
static const char *const leave_from[] = {KJIT_LEAVE_FROM};
_Static_assert(sizeof(leave_at) == sizeof(leave_from),
	       "one caller per leaving callee");

/* Index k of @caller in leave_from, or -1. */
static int leave_caller(const char *caller)
{
	unsigned int k;

	for (k = 0; k < sizeof(leave_from) / sizeof(*leave_from); k++)
		if (!strcmp(caller, leave_from[k]))
			return (int)k;
	return -1;
}

/* Is @name a KJIT_LEAVE_AT function? */
static bool is_leave_at(const char *name)
{
	unsigned int k;

	for (k = 0; k < sizeof(leave_at) / sizeof(*leave_at); k++)
		if (!strcmp(name, leave_at[k]))
			return true;
	return false;
}

/* Line @t of task @ts called @name from @caller (its frame one above):
 * note whether it ran after the invocation's leaving call in fn->left. */
static void note_leave(struct task *ts, int depth, const char *caller,
		       struct oracle_fn *fn)
{
	int k = leave_caller(caller), after;

	if (ts->left_depth >= depth) /* that invocation is over */
		ts->left_depth = -1;
	if (k < 0)
		return;
	if (!strcmp(fn->name, leave_at[k]))
		ts->left_depth = depth - 1;
	after = ts->left_depth == depth - 1;
	fn->left = fn->left < 0 ? after : fn->left && after;
}

/* ---- parsing ---------------------------------------------------------- */

static unsigned int hash_name(const char *s)
{
	unsigned int h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int rehash(struct parser *p)
{
	unsigned int cap = p->hcap ? 2 * p->hcap : 1024, i, h;
	unsigned int *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < p->o->n; i++) {
		for (h = hash_name(p->o->fn[i].name) & (cap - 1); v[h];
		     h = (h + 1) & (cap - 1))
			;
		v[h] = i + 1;
	}
	free(p->hash);
	p->hash = v;
	p->hcap = cap;
	return 0;
}

/* Index of @name in o->fn, adding it if new; -1 out of memory. */
static int intern(struct parser *p, const struct oracle_fn *fn)
{
	unsigned int h;

	if (2 * (p->o->n + 1) > p->hcap && rehash(p))
		return -1;
	for (h = hash_name(fn->name) & (p->hcap - 1); p->hash[h];
	     h = (h + 1) & (p->hcap - 1))
		if (!strcmp(p->o->fn[p->hash[h] - 1].name, fn->name))
			return (int)p->hash[h] - 1;
	if (add_fn(p->o, fn))
		return -1;
	p->hash[h] = p->o->n;
	return (int)p->o->n - 1;
}

static struct task *task_of(struct parser *p, long key)
{
	struct task *v;
	unsigned int i;

	for (i = 0; i < p->n_t; i++)
		if (p->t[i].key == key)
			return &p->t[i];
	v = realloc(p->t, (p->n_t + 1) * sizeof(*v));
	if (!v)
		return NULL;
	p->t = v;
	v = &p->t[p->n_t++];
	v->key = key;
	v->irq_depth = -1;
	v->left_depth = -1;
	for (i = 0; i < ORACLE_DEPTH; i++)
		v->stack[i] = -1;
	return v;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
		*--e = 0;
	return s;
}

/* The latency-format context column ("d..2." and the like). */
static int is_flags(const char *f)
{
	size_t n = strlen(f);

	return n >= 4 && n <= 6 && strspn(f, "dDXnNpPbBlLhHsSzZ.0123456789") == n;
}

/* "  name() {" or "  name();" after the last bar: depth and name. */
static int parse_call(char *func, struct tline *t)
{
	size_t sp = strspn(func, " ");
	char *c = func + sp, *paren = strchr(c, '(');

	if (!paren || paren == c ||
	    (strncmp(paren, "() {", 4) && strncmp(paren, "();", 3)))
		return 0;
	if (!(*c == '_' || (*c >= 'a' && *c <= 'z') ||
	      (*c >= 'A' && *c <= 'Z')))
		return 0; /* a comment, a closing brace */
	*paren = 0;
	set_str(t->name, sizeof(t->name), c);
	base_name(t->name);
	t->depth = sp >= 2 ? (int)(sp - 2) / 2 : 0;
	return t->name[0] != 0;
}

/* One line of `trace`; 1 if it is a function entry (or leaf), else 0. */
static int parse_line(char *l, struct tline *t)
{
	char *bar[16], *cpu_end = strchr(l, ')'), *f;
	long cpu;
	int n = 0, i;

	if (l[0] == '#' || !cpu_end)
		return 0;
	cpu = strtol(l, &f, 10);
	if (f != cpu_end || strspn(l, " 0123456789") != (size_t)(f - l))
		return 0;
	for (f = cpu_end; n < 16 && (f = strchr(f + 1, '|'));)
		bar[n++] = f;
	if (n < 2)
		return 0;
	for (i = 0; i < n; i++)
		*bar[i] = 0;
	memset(t, 0, sizeof(*t));
	f = trim(cpu_end + 1);
	t->task =
	    strrchr(f, '-') ? strtol(strrchr(f, '-') + 1, NULL, 10) : -1 - cpu;
	for (i = 0; i + 1 < n; i++) {
		f = trim(bar[i] + 1);
		if (is_flags(f)) {
			t->irqs_off = f[0] == 'd' || f[0] == 'D';
			t->irq_ctx = strchr("hHsSzZ", f[2]) != NULL;
		}
	}
	return parse_call(bar[n - 1] + 1, t);
}

static int is_irq_entry(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(irq_entry_names) / sizeof(*irq_entry_names); i++)
		if (!strcmp(name, irq_entry_names[i]))
			return 1;
	return 0;
}

/*
 * A preemption at interrupt exit: __schedule (notrace) calls
 * rcu_note_context_switch first, with interrupts off, and nothing else
 * calls it. Under a function that is no entry to __schedule (sched_entries
 * below: schedule(), preempt_schedule()...), the reschedule came from an
 * interrupt's exit (preempt_schedule_irq, notrace too), whose lines the
 * tracer may print before the interrupted function's own entry line
 * (7.2: irq_enter_rcu's region, then "bpf_lsm_file_permission() {", then
 * __schedule's callees below it). So it opens a region as irq_enter_rcu
 * does: it and its siblings that still run with interrupts off
 * (pick_task_fair ... finish_task_switch) are the interrupt's work.
 */
static int opens_preemption(const struct tline *t, const char *parent)
{
	bool followed;

	return t->irqs_off && parent &&
	       !strcmp(t->name, "rcu_note_context_switch") &&
	       !oracle_sched_entry(parent, &followed);
}

/* Interrupt context for line @t of task @ts, called from @parent (NULL
 * at depth 0 or unknown); updates its region. */
static int in_irq(struct task *ts, const struct tline *t, const char *parent)
{
	if (ts->irq_depth >= 0 && (t->depth < ts->irq_depth ||
				   (t->depth == ts->irq_depth && !t->irqs_off)))
		ts->irq_depth = -1;
	if (ts->irq_depth < 0 &&
	    (is_irq_entry(t->name) || opens_preemption(t, parent)))
		ts->irq_depth = t->depth;
	return ts->irq_depth >= 0 || t->irq_ctx;
}

/* The name of the function open one above @depth in @ts's chain, or NULL
 * at depth 0 or where it is unknown (lost or cut lines). The pointer lasts
 * until the next intern(). */
static const char *parent_name(const struct parser *p, const struct task *ts,
			       int depth)
{
	int i = depth > 0 ? ts->stack[depth - 1] : -1;

	return i >= 0 ? p->o->fn[i].name : NULL;
}

static int take_line(struct parser *p, const struct tline *t)
{
	struct task *ts = task_of(p, t->task);
	const char *parent;
	struct oracle_fn fn;
	int idx, irq;

	if (!ts)
		return -ENOMEM;
	memset(&fn, 0, sizeof(fn));
	fn.left = -1;
	if (t->depth >= ORACLE_DEPTH - 1)
		return 0;
	parent = parent_name(p, ts, t->depth);
	irq = in_irq(ts, t, parent);
	set_str(fn.name, sizeof(fn.name), t->name);
	if (t->depth == 0) {
		set_str(fn.parent, sizeof(fn.parent), "-");
		set_str(fn.root, sizeof(fn.root), t->name);
	} else if (parent && ts->stack[0] >= 0) {
		set_str(fn.parent, sizeof(fn.parent), parent);
		set_str(fn.root, sizeof(fn.root), p->o->fn[ts->stack[0]].root);
	} else {
		ts->stack[t->depth] = ts->stack[t->depth + 1] = -1;
		return 0; /* parent unknown: lost or cut lines */
	}
	fn.irq = irq;
	idx = intern(p, &fn);
	if (idx < 0)
		return -ENOMEM;
	if (p->o->fn[idx].irq && !irq) { /* first seen in task context now */
		fn.left = p->o->fn[idx].left;
		p->o->fn[idx] = fn;
	}
	if (t->depth > 0) /* intern() may have moved the names */
		note_leave(ts, t->depth, parent_name(p, ts, t->depth),
			   &p->o->fn[idx]);
	ts->stack[t->depth] = idx;
	ts->stack[t->depth + 1] = -1;
	p->o->lines++;
	return 0;
}

int oracle_parse(struct oracle *o, FILE *trace)
{
	struct parser p = {o, NULL, 0, NULL, 0};
	char line[1024];
	struct tline t;
	int err = rehash(&p);

	while (!err && fgets(line, sizeof(line), trace))
		if (parse_line(line, &t))
			err = take_line(&p, &t);
	free(p.t);
	free(p.hash);
	return err;
}

uint64_t oracle_stats_lost(FILE *stats)
{
	static const char *const keys[] = {
	    "overrun:", "commit overrun:", "dropped events:"};
	char line[256];
	uint64_t sum = 0;
	size_t i;

	while (fgets(line, sizeof(line), stats))
		for (i = 0; i < sizeof(keys) / sizeof(*keys); i++)
			if (!strncmp(line, keys[i], strlen(keys[i])))
				sum +=
				    strtoull(line + strlen(keys[i]), NULL, 10);
	return sum;
}

/* ---- kjit.data ---------------------------------------------------------- */

void oracle_write(const struct oracle *o, FILE *f)
{
	unsigned int i;

	for (i = 0; i < o->n_roots; i++)
		fprintf(f, "oracle_root %s\n", o->roots[i]);
	fprintf(f, "oracle_lost %" PRIu64 "\n", o->lost);
	for (i = 0; i < o->n; i++)
		fprintf(f, "oracle %s %s %s %d %s\n", o->fn[i].name,
			o->fn[i].parent, o->fn[i].root, o->fn[i].irq,
			o->fn[i].why[0] ? o->fn[i].why : "-");
	for (i = 0; i < o->n; i++)
		if (o->fn[i].via[0])
			fprintf(f, "oracle_via %s %s\n", o->fn[i].name,
				o->fn[i].via);
	for (i = 0; i < o->n; i++)
		if (o->fn[i].left >= 0)
			fprintf(f, "oracle_left %s %d\n", o->fn[i].name,
				o->fn[i].left);
}

static int read_left(struct oracle *o, const char *rest)
{
	char name[KJIT_NAME_MAX];
	struct oracle_fn *fn;
	int left;

	if (sscanf(rest, "%127s %d", name, &left) != 2 || left < 0 || left > 1)
		return -1;
	fn = oracle_find(o, name);
	if (fn)
		fn->left = left;
	return 1;
}

static int read_via(struct oracle *o, const char *rest)
{
	char name[KJIT_NAME_MAX], via[KJIT_NAME_MAX];
	struct oracle_fn *fn;

	if (sscanf(rest, "%127s %127s", name, via) != 2)
		return -1;
	fn = oracle_find(o, name);
	if (fn)
		set_str(fn->via, sizeof(fn->via), via);
	return 1;
}

static int read_fn(struct oracle *o, const char *rest)
{
	struct oracle_fn fn;
	char name[KJIT_NAME_MAX], parent[KJIT_NAME_MAX], root[KJIT_NAME_MAX];
	int used = 0;

	memset(&fn, 0, sizeof(fn));
	fn.left = -1;
	if (sscanf(rest, "%127s %127s %127s %d %n", name, parent, root, &fn.irq,
		   &used) < 4 ||
	    !used || !rest[used])
		return -1;
	set_str(fn.name, sizeof(fn.name), name);
	set_str(fn.parent, sizeof(fn.parent), parent);
	set_str(fn.root, sizeof(fn.root), root);
	if (strcmp(rest + used, "-"))
		set_str(fn.why, sizeof(fn.why), rest + used);
	return add_fn(o, &fn) ? -1 : 1;
}

int oracle_read_line(struct oracle *o, const char *key, const char *rest)
{
	if (!strcmp(key, "oracle_root"))
		return oracle_add_root(o, rest) ? -1 : 1;
	if (!strcmp(key, "oracle_lost"))
		return sscanf(rest, "%" SCNu64, &o->lost) == 1 ? 1 : -1;
	if (!strcmp(key, "oracle"))
		return read_fn(o, rest);
	if (!strcmp(key, "oracle_via"))
		return read_via(o, rest);
	if (!strcmp(key, "oracle_left"))
		return read_left(o, rest);
	return 0;
}

/* ---- classification and the report -------------------------------------- */

/* The session function called @name with at least one block counted. */
static const struct sess_func *counted(const struct session *s,
				       const char *name)
{
	char b[KJIT_NAME_MAX];
	unsigned int i;

	for (i = 0; i < s->n_funcs; i++) {
		if (!s->funcs[i].executions)
			continue;
		set_str(b, sizeof(b), s->funcs[i].name);
		base_name(b);
		if (!strcmp(b, name))
			return &s->funcs[i];
	}
	return NULL;
}

/* Every function that enters __schedule, and whether deep mode follows it
 * there (oracle_sched_entry()). */
static const struct {
	const char *name;
	bool followed;
} sched_entries[] = {
    {"__cond_resched", true},
    {"schedule", true},
    {"schedule_preempt_disabled", true},
    {"io_schedule", true},
    {"yield", true},
    {"do_sched_yield", true},
    {"preempt_schedule", false},
    {"preempt_schedule_notrace", false},
    {"preempt_schedule_irq", false},
};

bool oracle_sched_entry(const char *parent, bool *followed)
{
	unsigned int i;

	for (i = 0; i < sizeof(sched_entries) / sizeof(*sched_entries); i++)
		if (!strcmp(parent, sched_entries[i].name)) {
			*followed = sched_entries[i].followed;
			return true;
		}
	return false;
}

/*
 * Where the tracer's run rescheduled and kjit's did not: a function called
 * from a followed entry to __schedule (the tracer's parent for it). A
 * session that counted no block of __schedule never rescheduled there, and
 * the two runs of the workload simply differ (a reschedule comes with a
 * timer tick). A session that did run __schedule and still missed what it
 * calls stays unexplained.
 */
static bool not_rescheduled_here(const struct oracle_fn *fn,
				 const struct session *s)
{
	bool followed;

	return oracle_sched_entry(fn->parent, &followed) && followed &&
	       !counted(s, "__schedule");
}

/*
 * The two runs of the workload take different paths (a pipe reader that
 * blocks in one run finds data waiting in the other): a callee the
 * tracer saw may be called from a branch of its parent that kjit's run
 * never took. kjit's own counts say so. The tracer names as the parent
 * the innermost function it can see, so the callee was called by the
 * parent itself - a direct call or jump of it (or of the padding before
 * it, where a call depth thunk sits), or an indirect call - or by a
 * function the tracer cannot see (notrace: not in its set) that the
 * parent calls, in the same ways, down to SITE_DEPTH such functions. The
 * walk gathers what these sites say (struct sites) and site_verdict()
 * weighs it:
 *  - a direct call of it that ran: SITE_RAN (kjit missed it);
 *  - a call of a sanitizer's hook (KJIT_SANITIZER_PREFIXES: notrace,
 *    kept native, calling only its own runtime) says nothing;
 *  - a call of an unseen function kjit did not count (or could not read,
 *    or past SITE_DEPTH) that ran: SITE_MAYBE (it may have called it
 *    natively, and kjit cannot tell);
 *  - direct calls of it, none of which ran: SITE_NOT, even where an
 *    indirect call ran beside them. Deep mode follows indirect calls, so
 *    had one reached it in kjit's run, kjit would have counted it; the
 *    tracer's run took the direct call (CI, 11-29 on 6.1: __schedule's
 *    call of switch_mm_irqs_off, when only the tracer's run switched to a
 *    task of another mm, beside pick_next_task's indirect calls);
 *  - an indirect call that ran, and no direct call of it: SITE_MAYBE (a
 *    function only ever called indirectly stays unexplained, so a miss
 *    of deep mode's indirect calls still shows);
 *  - sites, none of which ran: SITE_NOT; no site at all, or no stored
 *    code: SITE_NONE.
 */
#define SITE_PADDING 16 /* the most CONFIG_FUNCTION_PADDING_BYTES gives */
#define SITE_DEPTH   3

enum site { SITE_NONE, SITE_NOT, SITE_MAYBE, SITE_RAN };

static bool names_fn(const char *sym, const char *name)
{
	char b[KJIT_NAME_MAX];

	set_str(b, sizeof(b), sym);
	base_name(b);
	return !strcmp(b, name);
}

static bool targets_fn(const struct session *s, uint64_t to, const char *name)
{
	unsigned int i;

	for (i = 0; i < s->n_syms; i++)
		if (to <= s->syms[i].addr &&
		    s->syms[i].addr - to <= SITE_PADDING &&
		    names_fn(s->syms[i].name, name))
			return true;
	for (i = 0; i < s->n_funcs; i++)
		if (to <= s->funcs[i].start &&
		    s->funcs[i].start - to <= SITE_PADDING &&
		    names_fn(s->funcs[i].name, name))
			return true;
	return false;
}

static bool block_ran_at(const struct session *s, unsigned int fi, uint64_t a)
{
	unsigned int i;

	for (i = 0; i < s->n_blocks; i++)
		if (s->blocks[i].func == fi && s->blocks[i].count &&
		    s->blocks[i].addr <= a &&
		    a < s->blocks[i].addr + s->blocks[i].len)
			return true;
	return false;
}

/* The function a direct transfer at @to enters, by name (@b), if it is
 * another function's start that the tracer never saw; else false. */
static bool unseen_callee(const struct oracle *o, const struct session *s,
			  unsigned int fi, uint64_t to, char *b, size_t size)
{
	struct disasm_syms d = session_syms(s);
	const char *name;
	uint64_t start = 0;

	if (to >= s->funcs[fi].start && to < s->funcs[fi].end)
		return false;
	name = d.lookup(d.ctx, to, &start);
	if (!name || start != to)
		return false;
	set_str(b, size, name);
	base_name(b);
	return !oracle_find(o, b);
}

/* What the sites of one walk say (site_verdict() weighs it). */
struct sites {
	bool direct_ran;   /* a direct call of the callee ran */
	bool direct_not;   /* a direct call of it never ran */
	bool indirect_ran; /* an indirect call ran */
	bool unseen_ran;   /* an unseen callee kjit cannot look into ran */
	bool other_not;	   /* another site that could reach it never ran */
};

static void sites_in(const struct oracle *o, const struct session *s,
		     unsigned int fi, const char *name, unsigned int depth,
		     struct sites *w);

/* A site at @in of function @fi that may call @name: what it says. */
static void site_at(const struct oracle *o, const struct session *s,
		    unsigned int fi, const struct cfg_insn *in,
		    const char *name, unsigned int depth, struct sites *w)
{
	const struct sess_func *u;
	char b[KJIT_NAME_MAX];
	bool ran;

	if (in->kind == KJIT_I_CALL_IND || in->kind == KJIT_I_JMP_IND) {
		if (block_ran_at(s, fi, in->addr))
			w->indirect_ran = true;
		else
			w->other_not = true;
		return;
	}
	if (in->kind != KJIT_I_CALL && in->kind != KJIT_I_JMP &&
	    in->kind != KJIT_I_JCC)
		return;
	if (targets_fn(s, in->target, name)) {
		if (block_ran_at(s, fi, in->addr))
			w->direct_ran = true;
		else
			w->direct_not = true;
		return;
	}
	/* a sanitizer's hook (notrace, kept native) calls only its own
	 * runtime: no route to a function the tracer sees */
	if (!unseen_callee(o, s, fi, in->target, b, sizeof(b)) ||
	    !strcmp(b, name) || kjit_sanitizer_name(b))
		return;
	ran = block_ran_at(s, fi, in->addr);
	if (!ran) {
		w->other_not = true;
		return;
	}
	u = counted(s, b);
	if (!u || depth >= SITE_DEPTH) {
		w->unseen_ran = true;
		return;
	}
	sites_in(o, s, (unsigned int)(u - s->funcs), name, depth + 1, w);
}

static void sites_in(const struct oracle *o, const struct session *s,
		     unsigned int fi, const char *name, unsigned int depth,
		     struct sites *w)
{
	struct cfg g;
	size_t k;

	if (session_cfg(s, fi, &g)) {
		if (depth) /* an unseen callee that ran, code unknown */
			w->unseen_ran = true;
		return;
	}
	for (k = 0; k < g.n_insn; k++)
		site_at(o, s, fi, &g.insn[k], name, depth, w);
	cfg_free(&g);
}

static enum site site_verdict(const struct sites *w)
{
	if (w->direct_ran)
		return SITE_RAN;
	if (w->unseen_ran)
		return SITE_MAYBE;
	if (w->direct_not)
		return SITE_NOT;
	if (w->indirect_ran)
		return SITE_MAYBE;
	return w->other_not ? SITE_NOT : SITE_NONE;
}

/* What kjit's run says of @parent's calls of @name (the comment above). */
static enum site site_in(const struct oracle *o, const struct session *s,
			 unsigned int parent, const char *name)
{
	struct sites w = {0};

	sites_in(o, s, parent, name, 0, &w);
	return site_verdict(&w);
}

/*
 * Tracepoints that have a probe only because the tracer runs: function_graph
 * registers one on sched_switch (its sleep-time accounting), and every
 * tracer records task names on sched_switch, sched_wakeup and
 * sched_wakeup_new (tracing_start_cmdline_record()). In the tracer's run
 * their static call reaches __traceiter_X; in kjit's, with no tracer and
 * no other user, it is a ret and nothing is called.
 */
static const char *const tracer_tracepoints[] = {"sched_switch", "sched_wakeup",
						 "sched_wakeup_new"};

static bool tracer_probe(const struct oracle_fn *fn)
{
	static const char iter[] = "__traceiter_", sct[] = "__SCT__tp_func_";
	unsigned int i;

	if (strncmp(fn->name, iter, sizeof(iter) - 1) ||
	    strncmp(fn->via, sct, sizeof(sct) - 1) ||
	    strcmp(fn->name + sizeof(iter) - 1, fn->via + sizeof(sct) - 1))
		return false;
	for (i = 0;
	     i < sizeof(tracer_tracepoints) / sizeof(*tracer_tracepoints); i++)
		if (!strcmp(fn->name + sizeof(iter) - 1, tracer_tracepoints[i]))
			return true;
	return false;
}

enum oracle_class oracle_classify(const struct oracle *o,
				  const struct oracle_fn *fn,
				  const struct session *s)
{
	int root = !strcmp(fn->parent, "-");

	if (fn->irq)
		return OC_IRQ;
	if (counted(s, fn->name))
		return OC_COUNTED;
	if (fn->why[0])
		return OC_REFUSED;
	if (!root && !counted(s, fn->parent))
		return OC_CALLER;
	if (!root && !s->st.deep)
		return OC_NOT_DEEP;
	/* before static_call: __schedule's own static calls (the
	 * sched_switch tracepoint) look called from the reschedule point */
	if (!root && not_rescheduled_here(fn, s))
		return OC_NOT_RUN;
	if (!root && tracer_probe(fn))
		return OC_TRACER_PROBE;
	/* the leaving callee itself always runs natively (jumped to, or
	 * called by kjit's helper: kmod/exittail.h); what follows it only
	 * where dying tasks leave the cache */
	if (!root && leave_caller(fn->parent) >= 0 &&
	    (is_leave_at(fn->name) ||
	     (fn->left == 1 && (!s->st.exit_tail || s->st.exit_tail_left))))
		return OC_LEFT_CACHE;
	if (!root &&
	    site_in(o, s, (unsigned int)(counted(s, fn->parent) - s->funcs),
		    fn->name) == SITE_NOT)
		return OC_SITE_NOT_RUN;
	if (!root && fn->via[0])
		return OC_STATIC_CALL;
	if (!root && s->st.deep_over_budget)
		return OC_TABLE_FULL;
	return OC_UNEXPLAINED;
}

const char *oracle_class_name(enum oracle_class c)
{
	static const char *const names[OC_COUNT] = {
	    "counted",	    "interrupt",   "refused",	   "caller",
	    "not_deep",	    "static_call", "table_full",   "not_run",
	    "tracer_probe", "left_cache",  "site_not_run", "unexplained"};

	return c < OC_COUNT ? names[c] : "?";
}

/* Group headings of the report, by class. */
static const char *heading(enum oracle_class c)
{
	switch (c) {
	case OC_REFUSED:
		return "refused by kjit (deep mode does not follow them)";
	case OC_CALLER:
		return "its caller was not counted either (the cause is there)";
	case OC_NOT_DEEP:
		return "callees not followed: recorded without --deep";
	case OC_STATIC_CALL:
		return "reached through a static call trampoline that ran "
		       "natively (a module's, which has no guard; one "
		       "retargeted since it was translated, from NULL "
		       "included; or one that was return-0 when first "
		       "reached)";
	case OC_TABLE_FULL:
		return "deep table full (callees left native)";
	case OC_NOT_RUN:
		return "called through __schedule, which kjit's run never "
		       "entered: the tracer's run rescheduled there, kjit's "
		       "did not";
	case OC_TRACER_PROBE:
		return "a tracepoint's probes, there only while the tracer "
		       "runs (its own sched_switch / sched_wakeup probes): "
		       "kjit's run, without it, called none";
	case OC_LEFT_CACHE:
		return "called after its caller left the cache on purpose "
		       "(do_exit() at exit_tasks_rcu_start(): a dying task "
		       "runs natively from there where the session says so: "
		       "kjit.exit_tail=0, or no slot free in the table of "
		       "dying tasks), or the leaving callee itself, which "
		       "runs natively either way";
	case OC_SITE_NOT_RUN:
		return "its caller's call of it never ran in kjit's run (the "
		       "blocks holding every direct call of it counted 0: the "
		       "two runs took different paths)";
	case OC_UNEXPLAINED:
		return "called from counted code but not followed: unexplained";
	default:
		return "";
	}
}

static void print_group(const struct oracle *o, const struct session *s,
			const char *root, enum oracle_class c, unsigned int n,
			FILE *out)
{
	unsigned int i;
	uint64_t refused = 0;

	if (!n)
		return;
	fprintf(out, "  %s (%u):\n", heading(c), n);
	for (i = 0; i < o->n; i++) {
		const struct oracle_fn *fn = &o->fn[i];

		if (strcmp(fn->root, root) || oracle_classify(o, fn, s) != c)
			continue;
		fprintf(out, "    %-32s called from %s", fn->name, fn->parent);
		if (c == OC_REFUSED)
			fprintf(out, ": %s", fn->why);
		if (c == OC_STATIC_CALL)
			fprintf(out, " via %s", fn->via);
		fprintf(out, "\n");
	}
	for (i = 1; i < KJIT_R_COUNT; i++)
		refused += s->st.refused[i];
	if (c == OC_UNEXPLAINED && refused)
		fprintf(out,
			"    (this session refused %" PRIu64 " instruction(s), "
			"kjit stat names them: the code after one runs "
			"natively and its calls are not followed)\n",
			refused);
	if (c == OC_TABLE_FULL)
		fprintf(out, "    (%" PRIu64 " callee(s) left native)\n",
			s->st.deep_over_budget);
}

static void report_root(const struct oracle *o, const struct session *s,
			const char *root, FILE *out)
{
	unsigned int n[OC_COUNT] = {0}, i, total;
	enum oracle_class c;

	for (i = 0; i < o->n; i++)
		if (!strcmp(o->fn[i].root, root))
			n[oracle_classify(o, &o->fn[i], s)]++;
	total = 0;
	for (c = OC_COUNTED; c < OC_COUNT; c++)
		total += c == OC_IRQ ? 0 : n[c];
	if (!total) {
		fprintf(out,
			"function_graph saw 0 functions under %s (the command "
			"never called it in the oracle run)\n",
			root);
		return;
	}
	fprintf(out,
		"function_graph saw %u functions under %s; kjit counted %u "
		"of them (%.1f%%)\n",
		total, root, n[OC_COUNTED],
		100.0 * (double)n[OC_COUNTED] / (double)total);
	fprintf(out, "  not counted, by reason:");
	for (c = OC_REFUSED; c < OC_COUNT; c++)
		fprintf(out, " %s %u%s", oracle_class_name(c), n[c],
			c + 1 < OC_COUNT ? "," : "\n");
	for (c = OC_REFUSED; c < OC_COUNT; c++)
		print_group(o, s, root, c, n[c], out);
	if (!n[OC_IRQ])
		return;
	fprintf(out,
		"  interrupt context under the root, not counted by "
		"design (%u):",
		n[OC_IRQ]);
	for (i = 0; i < o->n; i++)
		if (!strcmp(o->fn[i].root, root) && o->fn[i].irq)
			fprintf(out, " %s", o->fn[i].name);
	fprintf(out, "\n");
}

/* Functions kjit counted that the tracer never saw (in task context). */
static void report_unseen(const struct oracle *o, const struct session *s,
			  FILE *out)
{
	char b[KJIT_NAME_MAX];
	const struct oracle_fn *fn;
	unsigned int i, n = 0, pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < s->n_funcs; i++) {
			if (!s->funcs[i].executions)
				continue;
			set_str(b, sizeof(b), s->funcs[i].name);
			base_name(b);
			fn = oracle_find(o, b);
			if (fn && !fn->irq)
				continue;
			if (pass)
				fprintf(out, " %s", b);
			else
				n++;
		}
		if (!pass && !n)
			return;
		if (!pass)
			fprintf(out,
				"kjit counted %u function(s) the tracer did "
				"not see (notrace or inlined callees, or "
				"another path in the other run):",
				n);
	}
	fprintf(out, "\n");
}

void oracle_report(const struct oracle *o, const struct session *s, FILE *out)
{
	unsigned int i;

	fprintf(out, "\n# completeness: ftrace's function_graph tracer (one "
		     "run of the same command before kjit's) against kjit's "
		     "counts\n");
	for (i = 0; i < o->n_roots; i++)
		report_root(o, s, o->roots[i], out);
	report_unseen(o, s, out);
	if (o->lost)
		fprintf(out,
			"warning: the tracer lost %" PRIu64 " event(s) (its "
			"buffer overflowed): its set may miss functions\n",
			o->lost);
}
