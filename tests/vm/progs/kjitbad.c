/*
 * kjitbad.c - every bad request /dev/kjit must refuse, each with its errno
 * and with the module's state unchanged afterwards.
 *
 * One line per check: "ok <what>" or "BAD <what>: got <errno>, want <errno>".
 * Exit status 0 when every check passed. Must run as root, with no session.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kmod/kjit_ioctl.h"

static int fd, failures;

static void expect(const char *what, int rc, int want)
{
	int got = rc ? errno : 0;

	if (got == want) {
		printf("ok %s (%s)\n", what, want ? strerror(want) : "success");
	} else {
		printf("BAD %s: got %s, want %s\n", what, strerror(got),
		       strerror(want));
		failures++;
	}
}

static int attach(uint32_t size, uint32_t flags, uint32_t n,
		  struct kjit_target *t)
{
	struct kjit_attach a = {
	    .size = size, .flags = flags, .n = n, .targets = (uintptr_t)t};

	return ioctl(fd, KJIT_IOC_ATTACH, &a);
}

static int attach_one(const char *name, uint64_t addr, struct kjit_target *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->addr = addr;
	return attach(sizeof(struct kjit_attach), 0, 1, t);
}

/* An attach of __x64_sys_getpid with the scope @kind of @n ids. */
static int attach_scoped(uint32_t kind, uint32_t n, const uint32_t *ids)
{
	struct kjit_target t = {.name = "__x64_sys_getpid"};
	struct kjit_attach a = {.size = sizeof(a),
				.n = 1,
				.targets = (uintptr_t)&t,
				.scope = kind,
				.scope_n = n,
				.scope_ids = (uintptr_t)ids};

	return ioctl(fd, KJIT_IOC_ATTACH, &a);
}

static int no_session(void)
{
	struct kjit_session_stats st = {.size = sizeof(st)};

	return ioctl(fd, KJIT_IOC_STATS, &st);
}

/* Malformed scopes (kjit_attach.scope): each refused, nothing attached. */
static void bad_scopes(void)
{
	uint32_t ids[2] = {1, 1u << 30};

	expect("scope: unknown kind", attach_scoped(7, 1, ids), EINVAL);
	expect("scope: tasks without ids",
	       attach_scoped(KJIT_SCOPE_TASKS, 0, ids), EINVAL);
	expect("scope: too many ids",
	       attach_scoped(KJIT_SCOPE_TASKS, KJIT_SCOPE_MAX + 1, ids),
	       EINVAL);
	expect("scope: ids with ALL", attach_scoped(KJIT_SCOPE_ALL, 1, ids),
	       EINVAL);
	expect("scope: pid out of range",
	       attach_scoped(KJIT_SCOPE_TASKS, 2, ids), EINVAL);
	ids[0] = 0;
	expect("scope: pid 0", attach_scoped(KJIT_SCOPE_TASKS, 1, ids), EINVAL);
	ids[0] = 4096;
	expect("scope: CPU out of range",
	       attach_scoped(KJIT_SCOPE_CPUS, 1, ids), EINVAL);
	ids[0] = 0;
	expect("scope: children of CPUs",
	       attach_scoped(KJIT_SCOPE_CPUS | KJIT_SCOPE_CHILDREN, 1, ids),
	       EINVAL);
	expect("scope: ids with ALL, kjit counted",
	       attach_scoped(KJIT_SCOPE_ALL | KJIT_SCOPE_KJIT, 1, ids), EINVAL);
	expect("scope: children of ALL, kjit counted",
	       attach_scoped(KJIT_SCOPE_KJIT | KJIT_SCOPE_CHILDREN, 0, ids),
	       EINVAL);
	expect("scope: unknown flag", attach_scoped(0x400, 0, ids), EINVAL);
	ids[0] = 1; /* a valid pid: only the flag is wrong */
	expect("scope: tasks, kjit counted",
	       attach_scoped(KJIT_SCOPE_TASKS | KJIT_SCOPE_KJIT, 1, ids),
	       EINVAL);
	expect("scope: bad ids pointer",
	       attach_scoped(KJIT_SCOPE_TASKS, 1, (void *)8), EFAULT);
	expect("scope: ...and no session", no_session(), ENOENT);
}

static uint64_t kallsyms(const char *name)
{
	char line[256], sym[200], type;
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %199s", &a, &type, sym) == 3 &&
		    !strcmp(sym, name)) {
			fclose(f);
			return a;
		}
	if (f)
		fclose(f);
	return 0;
}

/* Each refused function and the words its reason must contain. */
/* Does @why contain one of the '|'-separated words of @any? */
static int reason_has(const char *why, const char *any)
{
	char w[64];
	const char *p = any, *bar;

	while (*p) {
		bar = strchr(p, '|');
		snprintf(w, sizeof(w), "%.*s",
			 bar ? (int)(bar - p) : (int)strlen(p), p);
		if (strstr(why, w))
			return 1;
		p = bar ? bar + 1 : p + strlen(p);
	}
	return 0;
}

static void refusals(void)
{
	static const struct {
		const char *name, *why;
	} r[] = {
	    {"kjit_dispatch", "part of kjit"},
	    {"entry_SYSCALL_64", "entry text"},
	    {"do_syscall_64", "noinstr"},
	    {"copy_from_kernel_nofault", "dispatcher"},
	    {"notify_die", "blacklist"},
	    {"sched_clock_cpu", "not traceable"},
	    {"schedule_idle", "idle path"},
	    {"do_idle", "idle path"},
	    /* noinstr since 6.2 / 6.3; refused either way */
	    {"default_idle_call", "idle|noinstr"},
	    {"default_idle", "cpuidle text|noinstr"},
	};
	struct kjit_target t;
	char what[160];
	size_t i;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		snprintf(what, sizeof(what), "refuse %s", r[i].name);
		expect(what, attach_one(r[i].name, 0, &t), EOPNOTSUPP);
		if (!reason_has(t.why, r[i].why)) {
			printf("BAD %s: reason '%s' lacks '%s'\n", r[i].name,
			       t.why, r[i].why);
			failures++;
		} else {
			printf("ok %s refused: %s\n", r[i].name, t.why);
		}
	}
}

/* An attach of __x64_sys_getpid with the argument predicate fields given
 * (kjit_target.if_*, ABI 16); @pad: a byte of if_pad set. */
static int attach_pred(uint8_t op, uint8_t arg, uint8_t bits, uint64_t value,
		       int pad)
{
	struct kjit_target t = {.name = "__x64_sys_getpid"};

	t.if_op = op;
	t.if_arg = arg;
	t.if_bits = bits;
	t.if_value = value;
	t.if_pad[4] = (uint8_t)pad;
	return attach(sizeof(struct kjit_attach), 0, 1, &t);
}

/* Malformed argument predicates: each refused, the target's why set. */
static void bad_predicates(void)
{
	expect("predicate: unknown op", attach_pred(KJIT_IF_OPS, 0, 64, 1, 0),
	       EINVAL);
	expect("predicate: op 255", attach_pred(255, 0, 64, 1, 0), EINVAL);
	expect("predicate: arg 6", attach_pred(KJIT_IF_EQ, 6, 64, 1, 0),
	       EINVAL);
	expect("predicate: 16 bits", attach_pred(KJIT_IF_EQ, 0, 16, 1, 0),
	       EINVAL);
	expect("predicate: 0 bits", attach_pred(KJIT_IF_GE, 2, 0, 1, 0),
	       EINVAL);
	expect("predicate: padding set", attach_pred(KJIT_IF_EQ, 0, 64, 1, 1),
	       EINVAL);
	expect("predicate: none, but a value",
	       attach_pred(KJIT_IF_NONE, 0, 0, 5, 0), EINVAL);
	expect("predicate: none, but an argument",
	       attach_pred(KJIT_IF_NONE, 3, 0, 0, 0), EINVAL);
	/* a good one attaches (and detaches) */
	expect("predicate: arg5 & 1, 32 bits",
	       attach_pred(KJIT_IF_ANY, 5, 32, 1, 0), 0);
	expect("predicate: detach", ioctl(fd, KJIT_IOC_DETACH, 0), 0);
}

static void malformed(void)
{
	struct kjit_target t[4]; /* n is checked before targets are read */
	struct kjit_version v = {.size = 3};

	memset(t, 0, sizeof(t));
	strcpy(t[0].name, "__x64_sys_getpid");
	expect("version with wrong size", ioctl(fd, KJIT_IOC_VERSION, &v),
	       EINVAL);
	expect("unknown ioctl", ioctl(fd, _IO(KJIT_IOC_MAGIC, 0x7f), 0),
	       ENOTTY);
	expect("attach with wrong size", attach(8, 0, 1, t), EINVAL);
	expect("attach n=0", attach(sizeof(struct kjit_attach), 0, 0, t),
	       EINVAL);
	expect("attach n too large",
	       attach(sizeof(struct kjit_attach), 0, KJIT_MAX_TARGETS + 1, t),
	       EINVAL);
	expect("attach unknown flags",
	       attach(sizeof(struct kjit_attach), 0x80, 1, t), EINVAL);
	expect("attach bad target pointer",
	       attach(sizeof(struct kjit_attach), 0, 1, (void *)8), EFAULT);
	expect("attach bad request pointer",
	       ioctl(fd, KJIT_IOC_ATTACH, (void *)8), EFAULT);
	expect("attach unknown symbol",
	       attach_one("no_such_function_kjit", 0, t), ENOENT);
	expect("attach mid-function address",
	       attach_one("", kallsyms("vfs_read") + 1, t), EINVAL);
	memset(t, 0, sizeof(t));
	strcpy(t[0].name, "__x64_sys_getpid");
	strcpy(t[1].name, "__x64_sys_getpid");
	expect("attach duplicate target",
	       attach(sizeof(struct kjit_attach), 0, 2, t), EINVAL);
	memset(t, 0, sizeof(t));
	strcpy(t[0].name, "__x64_sys_getpid");
	strcpy(t[1].name, "no_such_function_kjit");
	expect("all-or-nothing attach with one unknown",
	       attach(sizeof(struct kjit_attach), 0, 2, t), ENOENT);
	expect("detach with nothing attached", ioctl(fd, KJIT_IOC_DETACH, 0),
	       ENOENT);
	expect("...and still no session", no_session(), ENOENT);
	bad_scopes();
}

static void set_kptr_restrict(const char *v)
{
	int k = open("/proc/sys/kernel/kptr_restrict", O_WRONLY);

	if (k < 0 || write(k, v, 1) != 1) {
		printf("BAD cannot set kptr_restrict to %s\n", v);
		failures++;
	}
	if (k >= 0)
		close(k);
}

/* Kernel addresses follow kptr_restrict, as /proc/kallsyms does: at 2 not
 * even root gets them. @b: a BLOCKS request with a bad buffer. */
static void kptr_restrict(struct kjit_blocks *b)
{
	struct kjit_session_stats st = {.size = sizeof(st)};

	set_kptr_restrict("2");
	expect("blocks with kptr_restrict=2", ioctl(fd, KJIT_IOC_BLOCKS, b),
	       EPERM);
	expect("stats with kptr_restrict=2", ioctl(fd, KJIT_IOC_STATS, &st),
	       EPERM);
	set_kptr_restrict("0");
	expect("stats with kptr_restrict=0", ioctl(fd, KJIT_IOC_STATS, &st), 0);
}

static void out_of_order(void)
{
	struct kjit_session_stats st = {.size = sizeof(st)};
	struct kjit_blocks b = {.size = sizeof(b), .max = 16, .buf = 8};
	struct kjit_target t[2];

	memset(t, 0, sizeof(t));
	strcpy(t[0].name, "__x64_sys_getpid");
	strcpy(t[1].name, "no_such_function_kjit");
	expect(
	    "best-effort attach",
	    attach(sizeof(struct kjit_attach), KJIT_ATTACH_BEST_EFFORT, 2, t),
	    0);
	if (t[0].err || t[1].err != -ENOENT) {
		printf("BAD best-effort per-target status: %d %d\n", t[0].err,
		       t[1].err);
		failures++;
	}
	syscall(SYS_getpid);
	expect("attach while attached", attach_one("vfs_read", 0, t), EALREADY);
	expect("stats", ioctl(fd, KJIT_IOC_STATS, &st), 0);
	if (!st.attached || st.n_funcs != 1) {
		printf(
		    "BAD state changed by refused attach: attached=%u n=%u\n",
		    st.attached, st.n_funcs);
		failures++;
	}
	expect("blocks with bad buffer", ioctl(fd, KJIT_IOC_BLOCKS, &b),
	       EFAULT);
	kptr_restrict(&b);
	b.size = 4;
	expect("blocks with wrong size", ioctl(fd, KJIT_IOC_BLOCKS, &b),
	       EINVAL);
	expect("detach", ioctl(fd, KJIT_IOC_DETACH, 0), 0);
	expect("detach twice", ioctl(fd, KJIT_IOC_DETACH, 0), ENOENT);
	expect("reset after detach", ioctl(fd, KJIT_IOC_RESET, 0), 0);
}

/* Whether a session is attached now (STATS through the main fd). */
static int attached_now(void)
{
	struct kjit_session_stats st = {.size = sizeof(st)};

	return !ioctl(fd, KJIT_IOC_STATS, &st) && st.attached;
}

/* KJIT_IOC_OWN: ENOENT with nothing attached; an owned session outlives
 * the close of another open file, and is detached when its owner's file
 * is closed (kjit record killed: its /dev/kjit goes with it). */
static void ownership(void)
{
	struct kjit_target t[1];
	int other = open(KJIT_DEVICE, O_RDWR | O_CLOEXEC);
	int mine = open(KJIT_DEVICE, O_RDWR | O_CLOEXEC);

	if (other < 0 || mine < 0) {
		printf("BAD open %s twice more\n", KJIT_DEVICE);
		failures++;
		return;
	}
	expect("own with nothing attached", ioctl(mine, KJIT_IOC_OWN, 0),
	       ENOENT);
	expect("attach to own", attach_one("__x64_sys_getpid", 0, t), 0);
	expect("own", ioctl(mine, KJIT_IOC_OWN, 0), 0);
	close(other);
	if (!attached_now()) {
		printf("BAD another file's close detached the owned session\n");
		failures++;
	} else {
		printf("ok another file's close leaves the owned session\n");
	}
	close(mine);
	if (attached_now()) {
		printf("BAD the owner's close left the session attached\n");
		failures++;
	} else {
		printf("ok the owner's close detached the session\n");
	}
	expect("detach after the owner's close", ioctl(fd, KJIT_IOC_DETACH, 0),
	       ENOENT);
	expect("own after the owner's close", ioctl(fd, KJIT_IOC_OWN, 0),
	       ENOENT);
}

/* An fd opened by root, used after dropping root: every ioctl is EPERM. */
static void unprivileged(void)
{
	int status, ok;

	if (fork() == 0) {
		struct kjit_version v = {.size = sizeof(v)};

		if (setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(3);
		if (ioctl(fd, KJIT_IOC_VERSION, &v) == 0 || errno != EPERM)
			_exit(1);
		if (ioctl(fd, KJIT_IOC_DETACH, 0) == 0 || errno != EPERM)
			_exit(1);
		if (open(KJIT_DEVICE, O_RDWR) >= 0 || errno != EACCES)
			_exit(2);
		_exit(0);
	}
	wait(&status);
	ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	printf("%s unprivileged caller: EPERM on ioctls, EACCES on open "
	       "(status 0x%x)\n",
	       ok ? "ok" : "BAD", status);
	failures += !ok;
}

int main(void)
{
	fd = open(KJIT_DEVICE, O_RDWR);
	if (fd < 0) {
		perror(KJIT_DEVICE);
		return 2;
	}
	malformed();
	refusals();
	out_of_order();
	ownership();
	unprivileged();
	bad_predicates(); /* last: its good attach leaves a session */
	printf("%s: %d failure(s)\n", failures ? "FAILED" : "passed", failures);
	return failures ? 1 : 0;
}
