/*
 * attach.c - FUNC arguments -> addresses -> KJIT_IOC_ATTACH (see attach.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "kmod/kjit_ioctl.h"
#include "attach.h"
#include "tools/kernel/eligible.h"
#include "funcglob.h"
#include "funcset.h"
#include "tools/report/limits.h"
#include "tools/report/progress.h"
#include "tools/kernel/symtab.h"
#include "tools/kernel/sysfiles.h"
#include "target.h"
#include "tools/report/plural.h"
#include "tools/report/say.h"

int load_symbols(struct symtab *t)
{
	const char *path = sysfile(3, "/proc/kallsyms");
	int err = symtab_load(t, path);

	if (err == -EPERM)
		say("%s shows no addresses: kjit needs root "
		    "(or kernel.kptr_restrict=0)\n",
		    path);
	else if (err == -ENOENT)
		say("%s not found: this kernel has no kallsyms "
		    "(CONFIG_KALLSYMS), kjit needs it\n",
		    path);
	else if (err)
		say("cannot read %s: %s\n", path, strerror(-err));
	else if (!t->n)
		say("%s lists no functions\n", path);
	return err || !t->n;
}

static void say_deep_unsupported(const char *who, const char *what)
{
	(void)who; /* say() names the subcommand */
	say("%s: not supported by this kjit.ko yet (ABI %d)\n", what,
	    KJIT_ABI_VERSION);
}

/* --deep only where the header has it. */
static int deep_unsupported(const struct args *a, const char *who)
{
#ifndef KJIT_ATTACH_DEEP
	if (a->deep) {
		say_deep_unsupported(who,
				     "--deep (deep mode: following callees)");
		return 1;
	}
#endif
	return 0;
}

static unsigned int attach_flags(const struct args *a)
{
	unsigned int f = a->best_effort ? KJIT_ATTACH_BEST_EFFORT : 0;

#ifdef KJIT_ATTACH_DEEP
	if (a->deep)
		f |= KJIT_ATTACH_DEEP;
#endif
	if (a->no_count)
		f |= KJIT_ATTACH_NO_COUNT;
	if (a->split)
		f |= KJIT_ATTACH_SPLIT;
	if (a->time)
		f |= KJIT_ATTACH_TIME;
	return f;
}

/* The functions @a names (funcset.h), eligibility loaded when a FUNC is a
 * pattern; 0, or 1 after saying why. */
int attach_resolve(const struct args *a, const char *who, struct funcset *fs)
{
	struct eligible e, *ep = NULL;
	struct symtab syms;
	int bad;

	memset(fs, 0, sizeof(*fs));
	if (load_symbols(&syms))
		return 1;
	if (funcset_has_pattern(a->funcs, a->n_funcs)) {
		if (eligible_load(&e, &syms)) {
			fprintf(stderr, "kjit %s: out of memory\n", who);
			symtab_free(&syms);
			return 1;
		}
		ep = &e;
	}
	bad = funcset_build(fs, &syms, ep, a->funcs, a->n_funcs,
			    a->verbose ? -1 : FUNCSET_LIST_MAX, who, stderr);
	if (ep)
		eligible_free(ep);
	symtab_free(&syms);
	if (bad)
		funcset_free(fs);
	return bad ? 1 : 0;
}

static void explain_failure(int err, const struct args *a, const char *who)
{
	if (err == EINVAL && a->deep)
		say_deep_unsupported(who,
				     "--deep (deep mode: following callees)");
	else if (err == ENOMEM)
		fprintf(stderr,
			"kjit %s: nothing attached: not enough memory for "
			"the session's tables (--cache-kb, --max-blocks and "
			"--deep-max set their size)\n",
			who);
	else if (err == EOPNOTSUPP && a->time)
		fprintf(stderr,
			"kjit %s: nothing attached: kjit.ko cannot time this "
			"session (no sched_switch tracepoint, or the kernel "
			"found its TSC unstable; dmesg says which)\n",
			who);
	else if (err == EOPNOTSUPP && a->split)
		fprintf(stderr,
			"kjit %s: nothing attached: kjit.ko cannot split "
			"this session by process (no sched_switch "
			"tracepoint, or no per-CPU counters: "
			"kjit.lock_counters; see dmesg)\n",
			who);
	else if (err == EOPNOTSUPP && a->scope)
		fprintf(stderr,
			"kjit %s: nothing attached: this kernel's current "
			"task or CPU number was not found, so kjit.ko cannot "
			"count only some %s (-a counts everything; see "
			"dmesg)\n",
			who,
			(a->scope & 0xff) == KJIT_SCOPE_CPUS ? "CPUs"
							     : "processes");
	else if (err == EALREADY)
		fprintf(stderr,
			"kjit %s: a session is already attached "
			"(kjit detach first)\n",
			who);
	else
		fprintf(stderr, "kjit %s: nothing attached: %s\n", who,
			strerror(err));
}

/* The limits of the session just attached and the memory they took. */
static void print_reserved(int fd, const char *prefix)
{
	struct kjit_session_stats k = {.size = sizeof(k)};
	struct sess_stats st;

	if (ioctl(fd, KJIT_IOC_STATS, &k))
		return;
	sess_stats_from(&st, &k);
	limits_print_reserved(&st, prefix, stdout);
}

struct attach_call {
	int fd;
	struct kjit_attach *req;
};

static int attach_call(void *v)
{
	struct attach_call *c = v;

	return ioctl(c->fd, KJIT_IOC_ATTACH, c->req);
}

/* KJIT_IOC_ATTACH, with the time it takes shown on a terminal. */
static int attach_ioctl(int fd, struct kjit_attach *req, int n)
{
	struct attach_call c = {fd, req};
	char what[64];

	snprintf(what, sizeof(what), "kjit.ko is attaching %d function%s", n,
		 plural_s((unsigned)n));
	return progress_call(what, attach_call, &c);
}

/* --if: each predicate into the targets of its FUNC; 0, or 1 after
 * saying which names no attached function. */
static int apply_preds(const struct args *a, struct funcset *fs,
		       const char *who)
{
	int i, k, hit;

	for (k = 0; k < a->n_preds; k++) {
		const struct tool_pred *p = &a->preds[k];

		for (i = 0, hit = 0; i < fs->n; i++) {
			struct kjit_target *t = &fs->t[i];

			if (strcmp(t->name, p->func))
				continue;
			t->if_op = p->p.op;
			t->if_arg = p->p.arg;
			t->if_bits = p->p.bits;
			t->if_value = p->p.value;
			hit++;
		}
		if (!hit) {
			fprintf(stderr,
				"kjit %s: --if %s: %s is not one of the "
				"functions attached (name it with the "
				"others)\n",
				who, p->func, p->func);
			return 1;
		}
	}
	return 0;
}

static int do_attach(int fd, const struct args *a, struct funcset *fs,
		     const char *who)
{
	struct kjit_attach req = {.size = sizeof(req)};
	struct kjit_target *t = fs->t;
	unsigned int over = 0;
	int first_over = 0;
	int i, rc, err, told = 0;

	if (apply_preds(a, fs, who))
		return 1;
	req.n = (unsigned int)fs->n;
	req.targets = (uintptr_t)t;
	req.flags = attach_flags(a);
	req.deep_max = (unsigned int)a->deep_max;
	req.cache_kb = (unsigned int)a->cache_kb;
	req.max_blocks = (unsigned int)a->max_blocks;
	req.scope = a->scope | (a->count_kjit ? KJIT_SCOPE_KJIT : 0);
	req.scope_n = (unsigned int)a->scope_n;
	req.scope_ids = (uintptr_t)a->scope_ids;
	if (a->split) /* banks: the processes and the two shared ones */
		req.split_banks = (a->split_max ? (unsigned int)a->split_max + 2
						: 0) |
				  (unsigned int)(a->split_blocks + 4095) / 4096
				      << 16;
	rc = attach_ioctl(fd, &req, fs->n);
	err = errno;
	for (i = 0; i < fs->n; i++)
		if (t[i].err ==
		    -E2BIG) { /* one line: a bound, not a function */
			if (!over++)
				first_over = i;
		} else if (t[i].err) {
			say("%s: refused by kjit.ko: %s (%s)\n",
			    funcglob_is(fs->spec[i]) ? t[i].name : fs->spec[i],
			    t[i].why[0] ? t[i].why : "-", strerror(-t[i].err));
			told++;
		}
	if (over) {
		fprintf(stderr,
			"kjit %s: %u function%s refused by kjit.ko, from %s "
			"on: %s (%s)\n",
			who, over, plural_s(over), t[first_over].name,
			t[first_over].why, strerror(E2BIG));
		told++;
	}
	if (!rc) {
		if (!strcmp(who, "attach")) {
			printf("attached %u function%s\n", req.attached,
			       plural_s(req.attached));
			for (i = 0; i < a->n_preds; i++) {
				char p[200];

				pred_format(&a->preds[i], p, sizeof(p));
				printf("only when %s (other calls of %s run "
				       "natively, uncounted)\n",
				       p, a->preds[i].func);
			}
			print_reserved(fd, "");
		}
	} else if (!told) { /* else each refusal said why */
		explain_failure(err, a, who);
	}
	return rc ? 1 : 0;
}

/* The highest possible CPU's number + 1 (/sys/devices/system/cpu/possible
 * reads "0-1" or "0"), or 0 if unknown. */
static unsigned int possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	char line[256], *p;
	unsigned long last = 0;

	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return 0;
	}
	fclose(f);
	for (p = line; *p; p++)
		if (*p >= '0' && *p <= '9' &&
		    (p == line || p[-1] < '0' || p[-1] > '9'))
			last = strtoul(p, NULL, 10);
	return (unsigned int)last + 1;
}

/* -p names processes that exist, -C CPUs that this machine can have: 0,
 * or 1 after saying which one does not. */
static int scope_unusable(const struct args *a, const char *who)
{
	unsigned int n = possible_cpus();
	int i;

	for (i = 0; i < a->scope_n; i++) {
		unsigned int id = a->scope_ids[i];

		if (a->scope == KJIT_SCOPE_TASKS && kill((pid_t)id, 0) &&
		    errno == ESRCH) {
			fprintf(stderr, "kjit %s: -p %u: no such process\n",
				who, id);
			return 1;
		}
		if (a->scope == KJIT_SCOPE_CPUS && n && id >= n) {
			fprintf(stderr,
				"kjit %s: -C %u: no such CPU (this machine "
				"has CPUs 0-%u)\n",
				who, id, n - 1);
			return 1;
		}
	}
	return 0;
}

int attach_set(int fd, const struct args *a, struct funcset *fs,
	       const char *who)
{
	if (deep_unsupported(a, who) || scope_unusable(a, who))
		return 1;
	return do_attach(fd, a, fs, who);
}

int attach_funcs(int fd, const struct args *a, const char *who)
{
	struct funcset fs;
	int rc;

	if (deep_unsupported(a, who) || scope_unusable(a, who) ||
	    attach_resolve(a, who, &fs))
		return 1;
	rc = do_attach(fd, a, &fs, who);
	funcset_free(&fs);
	return rc;
}
