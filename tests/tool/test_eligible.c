/*
 * test_eligible.c - host tests of the tool's copy of the module's refusal
 * checks (tools/kernel/eligible.c) on a fixture system root (KJIT_SYSROOT):
 * every reason, in kjit_divert_check's order, and "unknown" when debugfs
 * is missing rather than a false "yes".
 */
#include <stdlib.h>
#include <string.h>
#include "kmod/kjit_refusals.h"
#include "tools/kernel/eligible.h"
#include "tools/kernel/symtab.h"
#include "tools/kernel/sysfiles.h"
#include "tools/session/target.h"
#include "check.h"

typedef const char *why_fn(const struct eligible *, const struct ksym *);

/* @fn's answer for @spec is @why (NULL: instrumentable / followed); the
 * check is named @kind.@spec, and says @yes when the answer is NULL. */
static void expect_by(why_fn *fn, const char *kind, const char *yes,
		      const struct eligible *e, const struct symtab *t,
		      const char *spec, const char *why)
{
	struct target r;
	const char *got;
	char name[96];

	snprintf(name, sizeof(name), "%s.%s", kind, spec);
	if (target_resolve(t, spec, &r, stderr)) {
		check(name, 0, "cannot resolve");
		return;
	}
	got = fn(e, r.sym);
	check(name, why ? got && !strcmp(got, why) : !got, got ? got : yes);
}

static void expect(const struct eligible *e, const struct symtab *t,
		   const char *spec, const char *why)
{
	expect_by(eligible_why, "why", "(instrumentable)", e, t, spec, why);
}

/* eligible_deep_why(): is @spec followed in deep mode (why == NULL)? */
static void expect_deep(const struct eligible *e, const struct symtab *t,
			const char *spec, const char *why)
{
	expect_by(eligible_deep_why, "deep", "(followed)", e, t, spec, why);
}

static int load(const char *root, struct symtab *t, struct eligible *e)
{
	setenv("KJIT_SYSROOT", root, 1);
	if (symtab_load(t, sysfile(0, "/proc/kallsyms")) ||
	    eligible_load(e, t)) {
		check("load", 0, root);
		return -1;
	}
	return 0;
}

int main(void)
{
	struct eligible e;
	struct symtab t;

	area = "tool.eligible";
	if (load(FIXTURES "/sysroot", &t, &e))
		return 1;
	check("sources",
	      e.have_black && e.have_traceable && e.n_black == 3 &&
		  e.n_traceable == 11,
	      "blacklist and filter list read");
	expect(&e, &t, "vfs_read", NULL);
	expect(&e, &t, "mymod:pipe_helper", NULL);
	expect(&e, &t, "kjit:kjit_dispatch", "part of kjit");
	expect(&e, &t, "entry_SYSCALL_64", "entry text");
	expect(&e, &t, "exc_page_fault", "noinstr text");
	expect(&e, &t, "default_idle",
	       "cpuidle text (runs while RCU is not watching)");
	expect(&e, &t, "schedule_idle", "idle path (run by the idle task)");
	expect(&e, &t, "bsearch", "used by kjit's dispatcher");
	/* aliases: one address, one answer (the filter list and the name
	 * lists name only one of them) */
	expect(&e, &t, "__bsearch_alias", "used by kjit's dispatcher");
	expect(&e, &t, "__do_sys_getpid", NULL);
	expect(&e, &t, "__x64_sys_getpid", NULL);
	expect(&e, &t, "__ia32_sys_getpid", NULL);
	expect(&e, &t, "notify_die", "on the kprobe blacklist");
	expect(&e, &t, "no_fentry_fn",
	       "not traceable (no __fentry__ site at its start)");
	expect(&e, &t, "othermod:pipe_helper",
	       "not traceable (no __fentry__ site at its start)");
	/* before 6.5, by name: of two static functions sharing a name, the
	 * one whose place in the filter list's address order fits */
	expect(&e, &t, "0xffffffff81001400", NULL);
	expect(&e, &t, "0xffffffff81001600",
	       "not traceable (no __fentry__ site at its start)");
	eligible_free(&e);
	symtab_free(&t);
	if (load(FIXTURES "/order", &t, &e))
		return 1;
	expect(&e, &t, "0xffffffff81001400",
	       "not traceable (no __fentry__ site at its start)");
	expect(&e, &t, "0xffffffff81001600", NULL);
	expect(&e, &t, "helper", NULL);
	expect(&e, &t, "ksys_read", NULL);
	/* within_kprobe_blacklist(): foo.cold is refused when foo is */
	expect(&e, &t, "notify_die.cold", "on the kprobe blacklist");
	/* no exit_tasks_rcu_start here: do_exit cannot leave the cache
	 * before exit_notify(), so deep mode keeps it native (the module's
	 * kjit_kcode_leaves()) */
	expect_deep(&e, &t, "do_exit", KJIT_DEEP_DENY_WHY);
	expect_deep(&e, &t, "do_group_exit", KJIT_DEEP_DENY_WHY);
	eligible_free(&e);
	symtab_free(&t);

	/* 6.5+: the sites themselves (available_filter_functions_addrs), so
	 * of two static functions sharing a name only the traced one */
	if (load(FIXTURES "/addrs", &t, &e))
		return 1;
	check("addrs.sources",
	      e.have_traceable && !e.n_traceable && e.n_traceable_at == 4,
	      "the addresses file read, not the names");
	expect(&e, &t, "vfs_read", NULL);
	expect(&e, &t, "0xffffffff81001600", NULL);
	expect(&e, &t, "0xffffffff81001400",
	       "not traceable (no __fentry__ site at its start)");
	expect(&e, &t, "ksys_read",
	       "not traceable (no __fentry__ site at its start)");
	expect(&e, &t, "__x64_sys_getpid", NULL);
	expect(&e, &t, "mymod:pipe_helper", NULL);
	expect(&e, &t, "othermod:pipe_helper",
	       "not traceable (no __fentry__ site at its start)");
	/* a site (a function kallsyms no longer names, freed init text on
	 * 7.2) inside the span the symbol before it seems to have: a site
	 * counts only at a function's start, or after its endbr64, as
	 * kjit.ko looks for it (kx86_fentry_offset) */
	expect(&e, &t, "init_cpu_possible.cold",
	       "not traceable (no __fentry__ site at its start)");
	/* with exit_tasks_rcu_start, do_exit is followed (past that call
	 * where the session lets dying tasks stay: kmod/exittail.h), and so
	 * is the dying task's last switch */
	expect_deep(&e, &t, "do_exit", NULL);
	expect_deep(&e, &t, "do_group_exit", NULL);
	expect_deep(&e, &t, "do_task_dead", NULL);
	eligible_free(&e);
	symtab_free(&t);

	/* the sysroot plus sanitizer runtimes and static call trampolines
	 * (a fixture of their own: the others count the sysroot's skips) */
	if (load(FIXTURES "/sanitizer", &t, &e))
		return 1;
	/* sanitizer runtimes stay native in deep mode, by name prefix
	 * (KJIT_SANITIZER_PREFIXES); other callees with no __fentry__ site
	 * are followed, a module's too, and so are UBSAN's handlers */
	expect_deep(&e, &t, "0xffffffff81001c00", KJIT_SANITIZER_WHY);
	expect_deep(&e, &t, "__tsan_unaligned_read4", KJIT_SANITIZER_WHY);
	expect_deep(&e, &t, "kcsan_setup_watchpoint", KJIT_SANITIZER_WHY);
	expect_deep(&e, &t, "__asan_load8_noabort", KJIT_SANITIZER_WHY);
	expect_deep(&e, &t, "__ubsan_handle_out_of_bounds", NULL);
	expect_deep(&e, &t, "my_tsan_helper", NULL);
	expect_deep(&e, &t, "no_fentry_fn", NULL);
	expect_deep(&e, &t, "othermod:__tsan_read4", NULL);
	/* static call trampolines: the core kernel's are followed behind a
	 * guard on their key, a module's stay native */
	expect_deep(&e, &t, "__SCT__might_resched", NULL);
	expect_deep(&e, &t, "othermod:__SCT__mod_hook",
		    KJIT_STATIC_CALL_TRAMP_WHY);
	eligible_free(&e);
	symtab_free(&t);

	if (load(FIXTURES "/nodebug", &t, &e))
		return 1;
	expect(&e, &t, "ksys_read",
	       "unknown: cannot read the kprobe blacklist (debugfs)");
	expect(&e, &t, "entry_SYSCALL_64", "entry text");
	eligible_free(&e);
	symtab_free(&t);
	return failures ? 1 : 0;
}
