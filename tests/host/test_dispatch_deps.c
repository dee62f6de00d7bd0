/* test_dispatch_deps.c - the kernel functions kjit's dispatcher calls,
 * derived from each kernel's built kjit.ko, against the hand-kept list
 * KJIT_DISPATCH_DEPS (kmod/kjit_refusals.h) that attach refuses.
 *
 * The rule (what counts as reached from the dispatcher):
 *  - roots: kjit_dispatch_entry and kjit_dispatch; and every function of
 *    the module whose address some code of the module takes (lea), unless
 *    not_dispatch[] below says which kernel path calls it instead. The
 *    translator calls its environment through tables filled at run time
 *    (kjit_env_fill's struct kjit_env, the cache's translatable), which
 *    the binary cannot tie to kjit_dispatch: so a function pointer made
 *    in code is taken as called by the dispatcher until shown otherwise;
 *  - a reached function reaches what it calls or jumps to, what it takes
 *    the address of, and the data objects it uses; a reached data object
 *    reaches every address stored in it (tables of function pointers);
 *  - kernel functions reached: direct calls and jumps to imported
 *    symbols (a static call's trampoline __SCT__x counts as x); and
 *    calls through a gate: a member of kjit_kapi used by reached code
 *    (named by ksyms.c's table of name -> kjit_kapi slot pairs, read from
 *    the .ko), or another module variable loaded just before an indirect
 *    call (gated[] names those; an unnamed one fails).
 * Each kernel function reached must be in KJIT_DISPATCH_DEPS or in
 * allowed[] (with why it needs no refusal), else the test fails naming it
 * and the chain of module functions that reaches it.
 *
 * Results, per kernel of build/cache/kernels (SKIP without its kjit.ko):
 *   kmod.dispatch_deps.K.graph    the module decodes; the roots exist
 *   kmod.dispatch_deps.K.kapi     every kjit_kapi member reached has a
 *                                 name, and an indirect call through it is
 *                                 seen (the load tracking works)
 *   kmod.dispatch_deps.K.listed   every kernel function reached is listed
 *                                 or allowed
 *   kmod.dispatch_deps.K.vmlinux  against the kernel's vmlinux (SKIP if
 *                                 not extracted): allowed[] entries said
 *                                 not to be traceable are not, and no
 *                                 imported symbol reached as data is code
 * and kmod.dispatch_deps.tables: every allowed[] entry is reached in some
 * kernel, every not_dispatch[] and gated[] entry names something of the
 * module (SKIP unless every kernel was checked).
 *
 * KJIT_BUILD (environment) names the build directory; the default is the
 * one this program was built for. KJIT_DEPS_VERBOSE=1 lists every
 * function and object reached.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jit/arch_x86.h"
#include "kmod/kjit_refusals.h"
#include "tests/host/kjit_test.h"
#include "tests/host/modgraph.h"
#include "tests/host/vmlinux.h"

#ifndef KJIT_BUILD_DIR
#define KJIT_BUILD_DIR "build"
#endif

static const char *const listed[] = {KJIT_DISPATCH_DEPS};

/* Reached kernel functions that need no entry in KJIT_DISPATCH_DEPS, and
 * why. A name ending in '*' is a prefix. NOTRACE entries are checked
 * against the kernel's vmlinux (kmod.dispatch_deps.K.vmlinux): attach
 * refuses them anyway, for having no __fentry__ site or for the text they
 * are in (KJIT_REFUSED_SECTIONS). */
enum allow_kind { NOTRACE, OTHER };
static const struct {
	const char *name;
	enum allow_kind kind;
	const char *why;
	/* reached only on kernels whose name starts so (NULL: any); the
	 * tables check wants it reached only when such a kernel was checked */
	const char *only;
} allowed[] = {
    /* The registers differ from build to build. Like __x86_return_thunk
     * they are asm; unlike it they are not listed: the translator turns a
     * call through one into the indirect call it stands for. */
    {"__x86_indirect_thunk_*", NOTRACE,
     "retpoline thunk: asm, no __fentry__ site", NULL},
    /* Zydis clears its structures with it (kmod/zyan_libc.h). */
    {"memset", NOTRACE, "asm (memset_64.S): no __fentry__ site", NULL},
    /* gcc-16 (7.2) calls it out of line where gcc-12 inlined the copy
     * (decode_bytes). */
    {"memcpy", NOTRACE, "asm (memcpy_64.S): no __fentry__ site", "7."},
    /* Debian's 7.2 enables UBSAN's bounds and shift checks: the module's
     * code calls the reports only when a check fails. */
    {"__ubsan_handle_*", NOTRACE,
     "UBSAN reports (lib/ubsan.c): no __fentry__ site", "7."},
    /* Only when a stack canary was overwritten: it panics. */
    {"__stack_chk_fail", NOTRACE, "noinstr text", NULL},
    /* Deep mode looks up every target's function with it. Left
     * attachable on purpose: the VM case dispatch_recursion attaches it
     * next to a deep root to show that the dispatcher's nested entry
     * runs natively (busy flag) instead of recursing. */
    {"kallsyms_lookup_size_offset", OTHER,
     "attachable on purpose (VM case dispatch_recursion)", NULL},
    /* Deep mode asks it the name of a callee with no __fentry__ site on
     * sanitizer kernels only (kmod/refuse.c, KJIT_SANITIZER_PREFIXES):
     * refusing it everywhere for that would be too much. Attached there,
     * the nested entry runs natively (busy flag). */
    {"sprint_symbol_no_offset", OTHER,
     "sanitizer kernels only; a nested entry runs natively", NULL},
};

/* Functions whose address the module's code takes for a kernel path that
 * is not the dispatcher. */
static const struct {
	const char *name, *why;
} not_dispatch[] = {
    {"kjit_init", "module init (the loader, through __this_module)"},
    {"kjit_exit", "module exit (the loader, through __this_module)"},
    {"scan_task", "task_call_func()'s callback in detach's quiesce"},
    {"move_word", "kjit_retstores_walk()'s callback in detach's quiesce"},
    {"scan_dying", "kjit_exit_tail_each()'s callback in detach's quiesce"},
    {"kjit_exit_tail_call",
     "called by translated do_exit() in a dying task, in task context, "
     "in place of exit_tasks_rcu_start (exittail.h): what it calls may "
     "be attached, and runs from the cache then"},
    {"move_own_word",
     "kjit_retstores_walk()'s callback for the detaching task (quiesce)"},
    {"cmp_site", "sort() at load (sites.c)"},
    {"cmp_func", "sort() at attach (session.c)"},
    {"cmp_block", "sort() in the BLOCKS ioctl (report.c)"},
    {"blocks_fn", "the BLOCKS ioctl's per-CPU walk (report.c)"},
    {"funcs_fn", "the FUNCS ioctl's walk (report.c)"},
    {"split_fn", "the SPLIT ioctl's read (report.c)"},
    {"time_fn", "the TIME ioctl's read (report.c)"},
    {"tpaths_fn", "the TPATHS ioctl's read (report.c)"},
    {"find_tracepoint", "for_each_kernel_tracepoint() at load (scope.c)"},
    {"on_fork", "the sched_process_fork tracepoint (scope.c)"},
    {"on_free", "the sched_process_free tracepoint (scope.c)"},
    {"worker_irq_work", "the irq_work that queues a worker the dispatcher "
			"asked for: hard irq, after it (worker.c)"},
    {"worker_run", "a worker's work item (worker.c)"},
    {"grow_work", "the worker that grows a block map (grow.c)"},
    {"deep_grow_work", "the worker that grows the deep table (deep.c)"},
    {"pcpu_grow_work", "the worker that grows the per-CPU counter table "
		       "(pcpu.c)"},
    {"near_probe_cpu", "on_each_cpu()'s callback at attach: the near "
		       "counter area's probe (pcpu_near.c)"},
    {"split_find_switch", "for_each_kernel_tracepoint() at load (split.c)"},
    {"split_on_switch", "the sched_switch tracepoint (split.c)"},
    {"split_on_exec", "the sched_process_exec tracepoint (split.c)"},
    {"split_point_here", "on_each_cpu()'s callback at attach (split.c)"},
    {"time_find_switch", "for_each_kernel_tracepoint() at load (timing.c)"},
    {"time_on_switch", "the sched_switch tracepoint (timing.c)"},
    {"time_forget_cur", "on_each_cpu()'s callback at attach and detach "
			"(timing.c)"},
    {"time_zero_here", "on_each_cpu()'s callback in the RESET ioctl "
		       "(timing.c)"},
};

/* Module variables holding a gate to a kernel function (kmod/ksyms.c,
 * kmod/compat.c), other than kjit_kapi. */
static const struct {
	const char *var, *func;
} gated[] = {
    {"kjit_kallsyms_lookup_name", "kallsyms_lookup_name"},
    {"module_alloc_fn", "module_alloc"},
    {"execmem_alloc_fn", "execmem_alloc"},
    {"execmem_free_fn", "execmem_free"},
    {"fgraph_frame_fn", "ftrace_graph_get_ret_stack"},
};

static bool allowed_used[KJIT_ARRAY_SIZE(allowed)];
/* allowed[i].only matched a kernel that was checked */
static bool allowed_due[KJIT_ARRAY_SIZE(allowed)];
static bool not_dispatch_used[KJIT_ARRAY_SIZE(not_dispatch)];
static bool gated_seen[KJIT_ARRAY_SIZE(gated)];

#define MAX_FOUND 512

/* A kernel symbol reached, and the reached node that refers to it. */
struct found {
	const char *name;
	int via;
};

/* One kernel's kjit.ko under analysis. */
struct an {
	struct mg g;
	const char *kernel;
	int *parent; /* per node: -2 not reached, -1 a root, else who */
	int *queue;  /* nodes reached, in order */
	size_t n_queue;
	bool *addr_taken; /* per node: code takes its address */
	bool *excluded;	  /* per node: in not_dispatch[] */
	int kapi;	  /* the node of kjit_kapi */
	int gated[KJIT_ARRAY_SIZE(gated)]; /* their nodes (-1: none) */
	const char *kapi_name[32];
	bool kapi_used[32], kapi_called[32];
	struct found fn[MAX_FOUND]; /* kernel functions reached */
	size_t n_fn;
	struct found data[MAX_FOUND]; /* imported symbols used as data */
	size_t n_data;
	char problems[4096]; /* what cannot be named */
	size_t n_unknown_icalls;
	int decode_errors;
};

static void add_found(struct found *v, size_t *n, const char *name, int via)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(v[i].name, name))
			return;
	if (*n < MAX_FOUND)
		v[(*n)++] = (struct found){name, via};
}

/* Note something the test cannot name (once: a message seen before is
 * not repeated). */
static void problem(struct an *a, const char *fmt, ...)
{
	size_t n = strlen(a->problems);
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!strstr(a->problems, msg) &&
	    n + strlen(msg) + 3 < sizeof(a->problems))
		snprintf(a->problems + n, sizeof(a->problems) - n, "%s%s",
			 n ? "; " : "", msg);
}

/* ksyms.c's wanted[]: a pointer to a name, then to its kjit_kapi slot. */
static void kapi_slot(void *ctx, int sec, int from, const struct mg_ref *r)
{
	struct an *a = ctx;
	struct mg_ref name;
	size_t slot = (size_t)r->off / 8;

	(void)from;
	if (r->node != a->kapi || r->off % 8 || slot >= 32 || r->at < 8 ||
	    !mg_data_ref_at(&a->g, sec, r->at - 8, &name))
		return;
	a->kapi_name[slot] = mg_string(&a->g, &name);
}

/* Mark the nodes not_dispatch[] names. */
static void mark_excluded(struct an *a)
{
	size_t i;
	int n;

	for (i = 0; i < KJIT_ARRAY_SIZE(not_dispatch); i++) {
		n = mg_node_by_name(&a->g, not_dispatch[i].name);
		if (n >= 0)
			a->excluded[n] = not_dispatch_used[i] = true;
	}
}

/* Pre-pass over all code: which functions have their address taken, and
 * which kjit_kapi members are called through anywhere. */
static void survey_ref(void *ctx, int from, const struct mg_ref *r)
{
	struct an *a = ctx;

	if (r->kind == MG_ADDR && r->node >= 0 && r->node != from &&
	    a->g.node[r->node].code)
		a->addr_taken[r->node] = true;
	if (r->kind == MG_ICALL && r->node == a->kapi && r->off >= 0 &&
	    r->off / 8 < 32)
		a->kapi_called[r->off / 8] = true;
}

static void reach(struct an *a, int n, int parent)
{
	if (n < 0 || a->parent[n] != -2)
		return;
	a->parent[n] = parent;
	a->queue[a->n_queue++] = n;
}

static const char *gated_func(const struct an *a, int node)
{
	size_t i;

	for (i = 0; i < KJIT_ARRAY_SIZE(gated); i++)
		if (a->gated[i] == node)
			return gated[i].func;
	return NULL;
}

/* An indirect call through a pointer loaded from @r. */
static void through_pointer(struct an *a, int from, const struct mg_ref *r)
{
	const char *where = a->g.node[from].name, *f;

	if (r->kind == MG_ICALL_UNK) {
		a->n_unknown_icalls++;
	} else if (r->node == a->kapi) {
		f = r->off >= 0 && r->off / 8 < 32 ? a->kapi_name[r->off / 8]
						   : NULL;
		if (f)
			add_found(a->fn, &a->n_fn, f, from);
		else
			problem(a,
				"call through kjit_kapi+%lld (no name) in %s",
				(long long)r->off, where);
	} else if (r->node >= 0 && (f = gated_func(a, r->node))) {
		add_found(a->fn, &a->n_fn, f, from);
	} else {
		problem(a, "call through the pointer in %s+%lld in %s",
			r->node >= 0 ? a->g.node[r->node].name
			: r->ksym    ? r->ksym
				     : "?",
			(long long)r->off, where);
	}
}

/* What a static call's trampoline calls: __SCT__x -> x. */
static const char *kernel_function(const char *ksym)
{
	return strncmp(ksym, "__SCT__", 7) ? ksym : ksym + 7;
}

static void reach_ref(void *ctx, int from, const struct mg_ref *r)
{
	struct an *a = ctx;
	size_t slot;

	if (r->kind == MG_ICALL || r->kind == MG_ICALL_UNK) {
		through_pointer(a, from, r);
		return;
	}
	if (r->node == a->kapi && r->off >= 0) {
		slot = (size_t)r->off / 8;
		if (slot < 32)
			a->kapi_used[slot] = true;
		if (slot < 32 && a->kapi_name[slot])
			add_found(a->fn, &a->n_fn, a->kapi_name[slot], from);
		else
			problem(a, "use of kjit_kapi+%lld (no name) in %s",
				(long long)r->off, a->g.node[from].name);
	}
	if (r->node >= 0 && (r->kind == MG_CALL || !a->excluded[r->node]))
		reach(a, r->node, from);
	else if (r->ksym && r->kind == MG_CALL)
		add_found(a->fn, &a->n_fn, kernel_function(r->ksym), from);
	else if (r->ksym)
		add_found(a->data, &a->n_data, r->ksym, from);
	else if (r->sec >= 0 && r->kind == MG_CALL)
		problem(a, "a branch to code no symbol covers in %s",
			a->g.node[from].name);
}

/* Roots, then everything they reach (breadth first). */
static int walk(struct an *a)
{
	static const char *const roots[] = {
	    "kjit_dispatch_entry", "kjit_dispatch_entry_nf", "kjit_dispatch"};
	size_t i;
	int n;

	for (i = 0; i < KJIT_ARRAY_SIZE(roots); i++) {
		n = mg_node_by_name(&a->g, roots[i]);
		if (n < 0)
			return -1;
		reach(a, n, -1);
	}
	mark_excluded(a);
	for (n = 0; n < (int)a->g.n_node; n++)
		if (a->addr_taken[n] && !a->excluded[n])
			reach(a, n, -1);
	for (i = 0; i < a->n_queue; i++)
		if (mg_refs(&a->g, a->queue[i], reach_ref, a))
			a->decode_errors++;
	if (getenv("KJIT_DEPS_VERBOSE"))
		for (i = 0; i < a->n_queue; i++)
			printf("  %s: reached %s%s\n", a->kernel,
			       a->g.node[a->queue[i]].name,
			       a->parent[a->queue[i]] == -1 ? " (root)" : "");
	return 0;
}

static int an_open(struct an *a, const char *kernel, const char *ko, char *err,
		   size_t errlen)
{
	size_t i;
	int n;

	memset(a, 0, sizeof(*a));
	a->kernel = kernel;
	if (mg_open(&a->g, ko, err, errlen))
		return -1;
	a->parent = malloc(a->g.n_node * sizeof(*a->parent));
	a->queue = malloc(a->g.n_node * sizeof(*a->queue));
	a->addr_taken = calloc(a->g.n_node, sizeof(*a->addr_taken));
	a->excluded = calloc(a->g.n_node, sizeof(*a->excluded));
	if (!a->parent || !a->queue || !a->addr_taken || !a->excluded) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < a->g.n_node; i++)
		a->parent[i] = -2;
	a->kapi = mg_node_by_name(&a->g, "kjit_kapi");
	if (a->kapi < 0) {
		snprintf(err, errlen, "no kjit_kapi in %s", ko);
		return -1;
	}
	mg_data_refs_to(&a->g, "kjit_kapi", kapi_slot, a);
	for (i = 0; i < KJIT_ARRAY_SIZE(gated); i++) {
		a->gated[i] = mg_node_by_name(&a->g, gated[i].var);
		gated_seen[i] |= a->gated[i] >= 0;
	}
	for (n = 0; n < (int)a->g.n_node; n++)
		if (a->g.node[n].code && mg_refs(&a->g, n, survey_ref, a))
			a->decode_errors++;
	if (walk(a)) {
		snprintf(err, errlen,
			 "no kjit_dispatch_entry or kjit_dispatch");
		return -1;
	}
	return 0;
}

static void an_close(struct an *a)
{
	mg_close(&a->g);
	free(a->parent);
	free(a->queue);
	free(a->addr_taken);
	free(a->excluded);
}

/* "kjit_dispatch > translate > ... > @n" into @buf. */
static const char *chain(const struct an *a, int n, char *buf, size_t len)
{
	int path[64], k = 0;
	size_t used = 0;

	for (; n >= 0 && k < 64; n = a->parent[n])
		path[k++] = n;
	buf[0] = 0;
	while (k-- > 0 && used + 2 < len)
		used +=
		    (size_t)snprintf(buf + used, len - used, "%s%s",
				     a->g.node[path[k]].name, k ? " > " : "");
	return buf;
}

static bool in_listed(const char *name)
{
	size_t i;

	for (i = 0; i < KJIT_ARRAY_SIZE(listed); i++)
		if (!strcmp(listed[i], name))
			return true;
	return false;
}

static int allowed_index(const char *name)
{
	size_t i, n;

	for (i = 0; i < KJIT_ARRAY_SIZE(allowed); i++) {
		n = strlen(allowed[i].name);
		if (allowed[i].name[n - 1] == '*'
			? !strncmp(allowed[i].name, name, n - 1)
			: !strcmp(allowed[i].name, name))
			return (int)i;
	}
	return -1;
}

static void check_graph(struct an *a, char *name, size_t len)
{
	size_t roots = 0, i;

	for (i = 0; i < a->n_queue; i++)
		roots += a->parent[a->queue[i]] == -1;
	snprintf(name, len, "kmod.dispatch_deps.%s.graph", a->kernel);
	kt_check(name, !a->decode_errors,
		 "%d functions of kjit.ko do not decode", a->decode_errors);
	printf("  %s: %zu of %zu functions and objects reached from %zu "
	       "roots; %zu indirect calls through pointers in memory\n",
	       a->kernel, a->n_queue, a->g.n_node, roots, a->n_unknown_icalls);
}

static void check_kapi(struct an *a, char *name, size_t len)
{
	char why[512] = "";
	size_t i, n = 0, used = 0;

	for (i = 0; i < 32; i++) {
		if (!a->kapi_used[i])
			continue;
		used++;
		if (!a->kapi_name[i] || !a->kapi_called[i])
			n += (size_t)snprintf(
			    why + n, n < sizeof(why) ? sizeof(why) - n : 0,
			    "kjit_kapi+%zu: %s; ", 8 * i,
			    !a->kapi_name[i] ? "no name in ksyms.c's table"
					     : "no indirect call through it "
					       "seen (load tracking)");
	}
	snprintf(name, len, "kmod.dispatch_deps.%s.kapi", a->kernel);
	if (!used)
		kt_fail(name, "no kjit_kapi member reached: is the graph "
			      "broken?");
	else
		kt_check(name, !why[0], "%s", why);
}

static bool found_named(const struct an *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->n_fn; i++)
		if (!strcmp(a->fn[i].name, name))
			return true;
	return false;
}

static void check_listed(struct an *a, char *name, size_t len)
{
	char missing[4096] = "", path[1024];
	size_t i, n = 0;
	int k;

	snprintf(name, len, "kmod.dispatch_deps.%s.listed", a->kernel);
	for (i = 0; i < a->n_fn; i++) {
		k = allowed_index(a->fn[i].name);
		if (k >= 0)
			allowed_used[k] = true;
		printf("  %s: %-32s %s%s\n", a->kernel, a->fn[i].name,
		       in_listed(a->fn[i].name) ? "listed"
		       : k >= 0			? "allowed: "
						: "NOT LISTED, via ",
		       in_listed(a->fn[i].name) ? ""
		       : k >= 0			? allowed[k].why
				: chain(a, a->fn[i].via, path, sizeof(path)));
		if (in_listed(a->fn[i].name) || k >= 0 ||
		    n + 64 >= sizeof(missing))
			continue;

		n += (size_t)snprintf(
		    missing + n, sizeof(missing) - n, "%s (via %s); ",
		    a->fn[i].name, chain(a, a->fn[i].via, path, sizeof(path)));
	}
	for (i = 0; i < KJIT_ARRAY_SIZE(listed); i++)
		if (!found_named(a, listed[i]))
			printf("  %s: %-32s listed, not called by kjit.ko "
			       "itself (by what it calls)\n",
			       a->kernel, listed[i]);
	if (a->problems[0] || missing[0])
		kt_fail(name,
			"kernel functions the dispatcher reaches, in "
			"neither KJIT_DISPATCH_DEPS nor allowed[]: %s%s%s",
			missing, a->problems[0] ? "cannot name: " : "",
			a->problems);
	else
		kt_pass(name, "%zu kernel functions reached", a->n_fn);
}

static const struct vsym *vsym_named(const struct vml *v, const char *name)
{
	size_t i;

	for (i = 0; i < v->n_sym; i++)
		if (!strcmp(v->sym[i].name, name))
			return &v->sym[i];
	return NULL;
}

static bool is_code(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* Does @p start with a call to __fentry__ (how the vmlinux file has it
 * before ftrace turns it into a NOP at boot), or that NOP? */
static bool fentry_site(const struct vml *v, u64 addr, const u8 *p)
{
	static const u8 nop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
	s32 rel;

	if (!memcmp(p, nop5, sizeof(nop5)))
		return true;
	memcpy(&rel, p + 1, sizeof(rel));
	return p[0] == 0xe8 &&
	       addr + 5 + (u64)(s64)rel == vml_sym(v, "__fentry__");
}

/* Why kjit could not attach the function at @addr anyway (text it
 * refuses, or no __fentry__ site behind the optional endbr64), or NULL if
 * it could. */
static const char *untraceable(const struct vml *v, u64 addr)
{
	static const struct {
		const char *start, *end, *why;
	} sections[] = {KJIT_REFUSED_SECTIONS};
	const u8 *p;
	u64 s, e;
	size_t i;
	unsigned off;

	for (i = 0; i < KJIT_ARRAY_SIZE(sections); i++) {
		s = vml_sym(v, sections[i].start);
		e = vml_sym(v, sections[i].end);
		if (s && e && addr >= s && addr < e)
			return sections[i].why;
	}
	if (addr < v->text_addr || addr + 16 > v->text_addr + v->text_size)
		return "outside .text (asm in a section of its own)";
	p = v->text + (addr - v->text_addr);
	off = kx86_fentry_offset(p, 16);
	return fentry_site(v, addr + off, p + off) ? NULL
						   : "no __fentry__ site";
}

static void check_vmlinux(struct an *a, const char *path, char *name,
			  size_t len)
{
	char err[256], why[2048] = "";
	const struct vsym *s;
	const char *u;
	struct vml v;
	size_t i, n = 0;
	int k;

	snprintf(name, len, "kmod.dispatch_deps.%s.vmlinux", a->kernel);
	if (vml_open(&v, path, err, sizeof(err))) {
		kt_skip(name, "%s (make host-test extracts it)", err);
		return;
	}
	for (i = 0; i < a->n_fn && n + 128 < sizeof(why); i++) {
		k = allowed_index(a->fn[i].name);
		s = vsym_named(&v, a->fn[i].name);
		u = s ? untraceable(&v, s->addr) : NULL;
		printf("  %s: %-32s %s\n", a->kernel, a->fn[i].name,
		       !s  ? "not in kallsyms"
		       : u ? u
			   : "traceable");
		if (k >= 0 && allowed[k].kind == NOTRACE && (!u || !s))
			n += (size_t)snprintf(why + n, sizeof(why) - n,
					      "%s is %s; ", a->fn[i].name,
					      s ? "traceable" : "not found");
	}
	for (i = 0; i < a->n_data && n + 128 < sizeof(why); i++) {
		s = vsym_named(&v, a->data[i].name);
		if (s && is_code(s->type))
			n += (size_t)snprintf(why + n, sizeof(why) - n,
					      "%s (code) used as data in %s; ",
					      a->data[i].name,
					      a->g.node[a->data[i].via].name);
	}
	kt_check(name, !why[0], "%s", why);
}

/* Returns whether the kernel's kjit.ko was there to check. */
static bool check_kernel(const char *build, const char *kernel, bool first)
{
	char ko[1024], vmlinux[1024], name[128], err[1200];
	struct an a;

	snprintf(ko, sizeof(ko), "%s/mod/%s/kmod/kjit.ko", build, kernel);
	snprintf(vmlinux, sizeof(vmlinux), "%s/host/vmlinux%s%s", build,
		 first ? "" : "-", first ? "" : kernel);
	snprintf(name, sizeof(name), "kmod.dispatch_deps.%s", kernel);
	if (access(ko, R_OK)) {
		kt_skip(name, "no %s (make modules)", ko);
		return false;
	}
	if (an_open(&a, kernel, ko, err, sizeof(err))) {
		snprintf(name, sizeof(name), "kmod.dispatch_deps.%s.graph",
			 kernel);
		kt_fail(name, "%s", err);
		an_close(&a);
		return true;
	}
	check_graph(&a, name, sizeof(name));
	check_kapi(&a, name, sizeof(name));
	check_listed(&a, name, sizeof(name));
	check_vmlinux(&a, vmlinux, name, sizeof(name));
	an_close(&a);
	return true;
}

/* Entries of the test's own tables that no longer match anything. */
static void check_tables(void)
{
	char why[1024] = "";
	size_t i, n = 0;

	for (i = 0; i < KJIT_ARRAY_SIZE(allowed) && n < 900; i++)
		if (!allowed_used[i] && (!allowed[i].only || allowed_due[i]))
			n += (size_t)snprintf(why + n, sizeof(why) - n,
					      "allowed %s is not reached; ",
					      allowed[i].name);
	for (i = 0; i < KJIT_ARRAY_SIZE(not_dispatch) && n < 900; i++)
		if (!not_dispatch_used[i])
			n += (size_t)snprintf(why + n, sizeof(why) - n,
					      "not_dispatch %s is gone; ",
					      not_dispatch[i].name);
	for (i = 0; i < KJIT_ARRAY_SIZE(gated) && n < 900; i++)
		if (!gated_seen[i])
			n += (size_t)snprintf(why + n, sizeof(why) - n,
					      "gated %s is gone; ",
					      gated[i].var);
	kt_check("kmod.dispatch_deps.tables", !why[0], "%s", why);
}

int main(void)
{
	const char *build = getenv("KJIT_BUILD");
	char path[1024], line[1024], kernel[64];
	int n = 0, done = 0;
	FILE *f;

	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!build || !*build)
		build = KJIT_BUILD_DIR;
	snprintf(path, sizeof(path), "%s/cache/kernels", build);
	f = fopen(path, "r");
	if (!f) {
		kt_skip("kmod.dispatch_deps", "no %s (make deps)", path);
		return kt_exit();
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s", kernel) == 1) {
			size_t i;

			for (i = 0; i < KJIT_ARRAY_SIZE(allowed); i++)
				allowed_due[i] |=
				    allowed[i].only &&
				    !strncmp(kernel, allowed[i].only,
					     strlen(allowed[i].only));
			done += check_kernel(build, kernel, n++ == 0);
		}
	fclose(f);
	if (n && done == n)
		check_tables();
	else
		kt_skip("kmod.dispatch_deps.tables",
			"not every kernel's kjit.ko was checked");
	return kt_exit();
}
