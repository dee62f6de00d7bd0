/*
 * kjitfuzz.c - random ioctl sequences and arguments against /dev/kjit, every
 * result checked against what kmod/kjit_ioctl.h promises.
 *
 *   kjitfuzz [-s SEED] [-t SECONDS] [-j PROCS] [-u] [-v]
 *     -s  seed (default: from the clock). Printed first, with the command
 *         line that replays the same request streams (worker i draws from
 *         seed and i only; the interleaving of the workers is not replayed)
 *     -t  how long to fuzz (default 10 s)
 *     -j  fuzzing processes (default 2, at most 16): each issues requests on
 *         a device fd of its own and on the parent's fd, shared across fork
 *     -u  unprivileged: the workers drop to uid/gid 65534 after opening the
 *         device; every request must then fail with EPERM
 *     -v  print every request before it is issued
 *
 * Requests: all eight KJIT_IOC_* kinds and foreign commands (kjit's magic
 * with other numbers, direction or size bits; other magics), with right and
 * wrong sizes, flags (unknown bits too), counts out of range, pointers that
 * are NULL, low, unmapped, kernel, non-canonical, misaligned, read-only or
 * straddle an unmapped page, symbol names real, refused, garbage or
 * unterminated, addresses that are function starts, mid-function or random.
 * Meanwhile a busy process calls getpid, read, write, fstat and close (the
 * functions attached) and checks every result.
 *
 * Checks; each failure prints "FAIL w<worker> #<request> <what> [<request>]":
 *  - every ioctl returns 0 or -1 with an errno its kind documents (foreign
 *    commands: ENOTTY; unprivileged: EPERM, whatever the request);
 *  - outputs stay in bounds: written == min(max, total), 1 <= count <=
 *    max_insns, 1 <= attached <= n, decoded instructions contiguous,
 *    strings NUL-terminated, blocks sorted;
 *  - every attach and detach and one other request in four run alone (the
 *    others hold a shared flock on the device, they an exclusive one) with
 *    the session read before and after: a failed request leaves it
 *    unchanged, a successful one changes it only as documented (ENOENT and
 *    EALREADY only in the states they name);
 *  - the busy process sees every system call behave as natively;
 *  - privileged, every kind succeeded at least once (the fuzzer got past
 *    the argument checks).
 * At the end the parent detaches and prints one KIND line per request kind
 * and one ERRNO line (the errno histogram, "ok" for success), then
 * "kjitfuzz: passed|FAILED ...". Exit status: 0 passed, 1 a check failed,
 * 2 could not run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "kmod/kjit_ioctl.h"

#define MAX_PROCS      16
#define MAX_ERRNO      135 /* histogram: 0 success, errno, last: others */
#define MAX_FAIL_LINES 20  /* printed per process; the rest are counted */

enum kind {
	K_VERSION,
	K_DECODE,
	K_ATTACH,
	K_DETACH,
	K_BLOCKS,
	K_FUNCS,
	K_STATS,
	K_RESET,
	K_OWN,
	K_SELF,
	K_SPLIT,
	K_TIME,
	K_TPATHS,
	K_FOREIGN,
	N_KINDS
};

/* Each kind's command, how often it is drawn, and the errnos documented
 * for it in kjit_ioctl.h (0-terminated). */
static const struct {
	const char *name;
	unsigned int cmd;
	int weight;
	int errs[8];
} kinds[N_KINDS] = {
    [K_VERSION] = {"version", KJIT_IOC_VERSION, 4, {EFAULT, EINVAL}},
    [K_DECODE] = {"decode",
		  KJIT_IOC_DECODE,
		  14,
		  {ENOENT, EINVAL, EFAULT, EILSEQ, ENOMEM}},
    [K_ATTACH] = {"attach",
		  KJIT_IOC_ATTACH,
		  14,
		  {EALREADY, EBUSY, EINVAL, ENOENT, EOPNOTSUPP, ENOMEM,
		   EFAULT}},
    [K_DETACH] = {"detach", KJIT_IOC_DETACH, 1, {ENOENT}},
    [K_BLOCKS] = {"blocks",
		  KJIT_IOC_BLOCKS,
		  10,
		  {ENOENT, EINVAL, EFAULT, ENOMEM}},
    [K_FUNCS] = {"funcs", KJIT_IOC_FUNCS, 8, {ENOENT, EINVAL, EFAULT, ENOMEM}},
    [K_STATS] = {"stats", KJIT_IOC_STATS, 8, {ENOENT, EINVAL, EFAULT, ENOMEM}},
    [K_RESET] = {"reset", KJIT_IOC_RESET, 6, {ENOENT}},
    [K_OWN] = {"own", KJIT_IOC_OWN, 2, {ENOENT}},
    [K_SELF] = {"self", KJIT_IOC_SELF, 2, {ENOSPC}},
    [K_SPLIT] = {"split",
		 KJIT_IOC_SPLIT,
		 6,
		 {ENOENT, EOPNOTSUPP, EINVAL, EFAULT, ENOMEM}},
    [K_TIME] = {"time",
		KJIT_IOC_TIME,
		6,
		{ENOENT, EOPNOTSUPP, EINVAL, EFAULT, ENOMEM}},
    [K_TPATHS] = {"tpaths",
		  KJIT_IOC_TPATHS,
		  4,
		  {ENOENT, EOPNOTSUPP, EINVAL, EFAULT, ENOMEM}},
    [K_FOREIGN] = {"foreign", 0, 14, {ENOTTY}},
};

/* What the processes share: the stop flag, counters, the histogram. */
struct shared {
	volatile int stop;
	long failures[MAX_PROCS + 1]; /* the last slot: the busy process */
	long hist[MAX_PROCS][N_KINDS][MAX_ERRNO];
	double kind_secs[MAX_PROCS][N_KINDS]; /* time spent in each kind */
	long busy_rounds;
};

static struct shared *sh;
static unsigned long long seed;
static int secs = 10, procs = 2, unpriv, verbose;
/* kjit.ko refuses every timed session here (the kernel marked its TSC
 * unstable: 6.1 under TCG): a timed attach must then fail -EOPNOTSUPP as a
 * whole, and KJIT_IOC_TIME can never succeed (probe_timing()) */
static int timing_off;

/* ---- the worker's own state (each worker is a process) ---------------- */
static int me, own_fd, shared_fd, ncpus;
static long nreq;
static uint64_t rng;

static uint64_t rnd64(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static uint64_t rnd(uint64_t n)
{
	return n ? rnd64() % n : 0;
}

static int chance(int percent)
{
	return rnd(100) < (uint64_t)percent;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "kjitfuzz: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* "ok", "EINVAL"..., or "errno N" (one at a time: a static buffer). */
static const char *errname(int err)
{
	static char other[24];
	const char *s = err ? strerrorname_np(err) : "ok";

	if (err == MAX_ERRNO - 1)
		return "other";
	if (s)
		return s;
	snprintf(other, sizeof(other), "errno %d", err);
	return other;
}

/* ---- kernel symbols ---------------------------------------------------- */

/* Functions named in targets. safe: may be attached while the system runs
 * (system call paths); the others are real functions kjit must refuse. */
static struct sym {
	const char *name;
	int safe;
	uint64_t addr;
} syms[] = {
    {"__x64_sys_getpid", 1, 0}, {"__x64_sys_read", 1, 0},
    {"__x64_sys_write", 1, 0},	{"__x64_sys_newfstat", 1, 0},
    {"__x64_sys_close", 1, 0},	{"ksys_read", 1, 0},
    {"ksys_write", 1, 0},	{"vfs_read", 1, 0},
    {"vfs_write", 1, 0},	{"kjit_dispatch", 0, 0},
    {"do_syscall_64", 0, 0},	{"notify_die", 0, 0},
};
#define N_SYMS (sizeof(syms) / sizeof(syms[0]))

static uint64_t text_start, text_end;
static uint64_t *starts; /* every kallsyms address, sorted */
static size_t n_starts;

static void note_symbol(unsigned long long a, const char *name)
{
	static size_t room;
	size_t i;

	if (n_starts == room) {
		room = room ? 2 * room : 65536;
		starts = realloc(starts, room * sizeof(*starts));
		if (!starts)
			die("realloc");
	}
	starts[n_starts++] = a;
	if (!strcmp(name, "_stext"))
		text_start = a;
	else if (!strcmp(name, "_etext"))
		text_end = a;
	for (i = 0; i < N_SYMS; i++)
		if (!syms[i].addr && !strcmp(name, syms[i].name))
			syms[i].addr = a;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Reads every symbol address, those of syms[] and the kernel text's
 * bounds from kallsyms. */
static void load_symbols(void)
{
	char line[256], name[200], type;
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t i;

	if (!f)
		die("/proc/kallsyms");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %199s", &a, &type, name) == 3)
			note_symbol(a, name);
	fclose(f);
	qsort(starts, n_starts, sizeof(*starts), cmp_u64);
	for (i = 0; i < N_SYMS; i++)
		if (!syms[i].addr)
			fprintf(stderr, "kjitfuzz: note: %s not in kallsyms\n",
				syms[i].name);
	if (!syms[0].addr || !text_start || text_end <= text_start) {
		fprintf(stderr, "kjitfuzz: no %s in kallsyms\n",
			syms[0].addr ? "kernel text" : syms[0].name);
		exit(2);
	}
}

static const struct sym *any_sym(int safe_only)
{
	const struct sym *s;

	do
		s = &syms[rnd(N_SYMS)];
	while ((safe_only && !s->safe) || !s->addr);
	return s;
}

static int is_start(uint64_t a)
{
	return bsearch(&a, starts, n_starts, sizeof(*starts), cmp_u64) != NULL;
}

/* A kernel text address that starts no symbol: an attach at it must be
 * refused, whatever function it falls in. */
static uint64_t text_addr(void)
{
	uint64_t a = text_start + rnd(text_end - text_start);

	while (is_start(a))
		a++;
	return a;
}

/* An address 1..15 bytes into one of syms[] (@safe_only: a safe one). */
static uint64_t mid_addr(int safe_only)
{
	uint64_t a = any_sym(safe_only)->addr + 1 + rnd(15);

	while (is_start(a))
		a--;
	return a;
}

/* ---- memory the requests live in --------------------------------------- */
/*
 * Two views of one memfd, each followed by an inaccessible page:
 *
 *   rw: | requests | targets      | output buffers (1 MiB)         |guard|
 *   ro: | the same bytes, read-only                                |guard|
 *       0          REQ_END        OUT_OFF                 VIEW_SIZE
 *
 * An object "straddles" when it ends past VIEW_SIZE, in the guard page.
 */
#define TGT_OFF 4096
#define FUZZ_TARGETS                                                           \
	64 /* targets one request places (they fit before OUT_OFF) */
#define OUT_OFF	  65536
#define OUT_ROOM  (1 << 20)
#define VIEW_SIZE (OUT_OFF + OUT_ROOM)

static uint8_t *rw, *ro;

static uint8_t *map_view(int fd, int prot)
{
	uint8_t *v = mmap(NULL, VIEW_SIZE + 4096, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (v == MAP_FAILED ||
	    mmap(v, VIEW_SIZE, prot, MAP_SHARED | MAP_FIXED, fd, 0) != v)
		die("mmap");
	return v;
}

static void map_views(void)
{
	int fd = memfd_create("kjitfuzz", 0);

	if (fd < 0 || ftruncate(fd, VIEW_SIZE))
		die("memfd");
	rw = map_view(fd, PROT_READ | PROT_WRITE);
	ro = map_view(fd, PROT_READ);
	close(fd);
}

enum ptr {
	P_OK,
	P_MISALIGNED,
	P_READONLY,
	P_STRADDLE,
	P_NULL,
	P_LOW,
	P_NOACCESS,
	P_KERNEL,
	P_NONCANON,
	P_RANDOM,
	N_PTRS
};

static const char *const ptr_names[N_PTRS] = {
    "ok",  "misaligned", "read-only", "straddle",      "null",
    "low", "no-access",	 "kernel",    "non-canonical", "random",
};

/* Where one object of a request lies: the address the module gets and,
 * when the caller can read back what the module wrote, that view. */
struct obj {
	enum ptr kind;
	uint64_t addr;
	uint8_t *view;
};

static enum ptr pick_ptr(void)
{
	if (chance(65))
		return P_OK;
	if (chance(30))
		return P_MISALIGNED;
	return (enum ptr)(P_READONLY + rnd(N_PTRS - P_READONLY));
}

static uint64_t bad_addr(enum ptr k)
{
	uint64_t a;

	switch (k) {
	case P_NULL:
		return 0;
	case P_LOW:
		return 1 + rnd(65536);
	case P_NOACCESS:
		return (uintptr_t)rw + VIEW_SIZE + rnd(2048);
	case P_KERNEL:
		return chance(50) ? 0xffffffff81000000ULL : text_addr();
	case P_NONCANON:
		return 0x0000800000000000ULL + rnd(0xffff000000000000ULL);
	default:
		a = rnd64();
		return a < 0x0000800000000000ULL ? a | 0xffff800000000000ULL
						 : a;
	}
}

/*
 * place - put @len bytes of @src (or none, for an output buffer: @src NULL)
 * at offset @off of the views, behind a pointer of a random kind.
 */
static void place(struct obj *o, size_t off, const void *src, size_t len)
{
	size_t cut;

	o->kind = pick_ptr();
	o->view = NULL;
	switch (o->kind) {
	case P_OK:
		o->view = rw + off;
		break;
	case P_MISALIGNED:
		o->view = rw + off + 1 + rnd(7);
		break;
	case P_READONLY:
		if (src)
			memcpy(rw + off, src, len);
		o->addr = (uintptr_t)(ro + off);
		return;
	case P_STRADDLE:
		cut = len > 1 ? 1 + rnd(len - 1) : 0;
		if (src)
			memcpy(rw + VIEW_SIZE - cut, src, cut);
		o->addr = (uintptr_t)(rw + VIEW_SIZE - cut);
		return;
	default:
		o->addr = bad_addr(o->kind);
		return;
	}
	if (src)
		memcpy(o->view, src, len);
	o->addr = (uintptr_t)o->view;
}

/* ---- issuing a request and judging it ---------------------------------- */

/* The session as STATS and FUNCS show it; deep callees left out (they are
 * added while the session runs). */
struct snap {
	int exists;
	uint32_t attached, n_funcs, deep;
	uint64_t starts[FUZZ_TARGETS];
};

/* One request as issued, with what a failure report needs. */
struct call {
	enum kind kind;
	unsigned int cmd;
	int err;   /* 0, or the errno it failed with */
	int alone; /* ran under the exclusive lock, session read around it */
	struct snap before, after;
	char desc[400];
};

static void bad(const struct call *c, const char *fmt, ...)
{
	char what[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (sh->failures[me]++ < MAX_FAIL_LINES)
		printf("FAIL w%d #%ld %s [%s cmd=%#x %s]\n", me, nreq, what,
		       kinds[c->kind].name, c->cmd, c->desc);
	fflush(stdout);
}

static void describe(struct call *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->desc, sizeof(c->desc), fmt, ap);
	va_end(ap);
}

static void snapshot(const struct call *c, struct snap *s)
{
	static struct kjit_func_info fi[FUZZ_TARGETS];
	struct kjit_session_stats st = {.size = sizeof(st)};
	struct kjit_funcs f = {.size = sizeof(f),
			       .max = FUZZ_TARGETS,
			       .buf = (uintptr_t)fi,
			       .info_size = sizeof(fi[0])};
	uint32_t i;

	memset(s, 0, sizeof(*s));
	if (ioctl(own_fd, KJIT_IOC_STATS, &st)) {
		if (errno != ENOENT)
			bad(c, "STATS for the session check: %s",
			    errname(errno));
		return;
	}
	if (ioctl(own_fd, KJIT_IOC_FUNCS, &f))
		bad(c, "FUNCS for the session check: %s", errname(errno));
	s->exists = 1;
	s->attached = st.attached;
	s->n_funcs = st.n_funcs;
	s->deep = st.deep;
	for (i = 0; i < st.n_funcs && i < f.written; i++)
		s->starts[i] = fi[i].start;
}

static int same_session(const struct snap *a, const struct snap *b)
{
	return a->exists == b->exists && a->attached == b->attached &&
	       a->n_funcs == b->n_funcs && a->deep == b->deep &&
	       !memcmp(a->starts, b->starts, sizeof(a->starts));
}

static void print_snap(char *out, size_t n, const struct snap *s)
{
	if (!s->exists)
		snprintf(out, n, "none");
	else
		snprintf(out, n, "attached=%u n_funcs=%u deep=%u first=%#llx",
			 s->attached, s->n_funcs, s->deep,
			 (unsigned long long)s->starts[0]);
}

static void bad_session(const struct call *c, const char *what)
{
	char b[120], a[120];

	print_snap(b, sizeof(b), &c->before);
	print_snap(a, sizeof(a), &c->after);
	bad(c, "%s (%s): session %s -> %s", what, errname(c->err), b, a);
}

static int reads_session(enum kind k)
{
	return k == K_BLOCKS || k == K_FUNCS || k == K_STATS || k == K_RESET;
}

/* What a request run alone may do to the session. */
static void check_session(const struct call *c)
{
	const struct snap *b = &c->before, *a = &c->after;

	if (!c->alone)
		return;
	if (c->err && !same_session(b, a))
		bad_session(c, "failed request changed the session");
	else if (c->err == ENOENT && c->kind == K_DETACH && b->attached)
		bad_session(c, "ENOENT while attached");
	else if (c->err == ENOENT && reads_session(c->kind) && b->exists)
		bad_session(c, "ENOENT while a session exists");
	else if (c->err == EALREADY && !b->attached)
		bad_session(c, "EALREADY while not attached");
	else if (c->err == ENOENT && c->kind == K_OWN && b->attached)
		bad_session(c, "own: ENOENT while attached");
	else if (!c->err && c->kind == K_OWN && !b->attached)
		bad_session(c, "own succeeded with nothing attached");
	else if (c->err)
		return;
	else if (c->kind == K_ATTACH && (b->attached || !a->attached))
		bad_session(c, "attach did not attach a new session");
	else if (c->kind == K_DETACH &&
		 (!b->attached || a->attached || a->n_funcs != b->n_funcs))
		bad_session(c, "detach did not detach the session");
	else if (reads_session(c->kind) && !b->exists)
		bad_session(c, "succeeded without a session");
	else if (c->kind != K_ATTACH && c->kind != K_DETACH &&
		 !same_session(b, a))
		bad_session(c, "request changed the session");
}

static int documented(const struct call *c)
{
	const int *e = kinds[c->kind].errs;

	if (unpriv)
		return c->err == EPERM;
	if (!c->err)
		return c->kind != K_FOREIGN;
	while (*e && *e != c->err)
		e++;
	return *e != 0;
}

static void lock(int op)
{
	if (!unpriv && flock(own_fd, op))
		die("flock");
}

/*
 * issue - run request @c with argument @arg on the worker's own fd or the
 * shared one, count its result and judge the errno and, when it ran alone,
 * its effect on the session. Returns 0 or the errno.
 */
static int issue(struct call *c, uint64_t arg)
{
	int fd = chance(50) ? own_fd : shared_fd;
	double t0 = now();
	long rc;

	nreq++;
	c->alone = !unpriv &&
		   (c->kind == K_ATTACH || c->kind == K_DETACH || chance(25));
	if (verbose) {
		printf("w%d #%ld %s cmd=%#x arg=%#llx %s\n", me, nreq,
		       kinds[c->kind].name, c->cmd, (unsigned long long)arg,
		       c->desc);
		fflush(stdout);
	}
	lock(c->alone ? LOCK_EX : LOCK_SH);
	if (c->alone)
		snapshot(c, &c->before);
	rc = syscall(SYS_ioctl, fd, c->cmd, arg);
	c->err = rc ? errno : 0;
	if (c->alone)
		snapshot(c, &c->after);
	lock(LOCK_UN);
	sh->kind_secs[me][c->kind] += now() - t0;
	sh->hist[me][c->kind][c->err < MAX_ERRNO ? c->err : MAX_ERRNO - 1]++;
	if (rc != 0 && rc != -1)
		bad(c, "returned %ld", rc);
	else if (!documented(c))
		bad(c, "%s is not documented for this request",
		    c->err ? errname(c->err) : "success");
	else
		check_session(c);
	return c->err;
}

/* ---- request arguments ------------------------------------------------- */

static uint32_t pick_size(uint32_t right)
{
	const uint32_t wrong[] = {0, 4, 8, right - 1, right + 1, right + 8};

	if (chance(85))
		return right;
	return chance(80) ? wrong[rnd(6)] : (uint32_t)rnd64();
}

/* A count for a field whose valid range is 1..@max. */
static uint32_t pick_n(uint32_t max, uint32_t small)
{
	const uint32_t wrong[] = {0, max + 1, 0xffffffffu, 1u << 31};

	if (chance(88))
		return 1 + rnd(small && chance(75) ? small : max);
	return chance(70) ? wrong[rnd(4)] : (uint32_t)rnd64();
}

/* Room asked for in an output buffer (max), out of @cap that fit. */
static uint32_t pick_max(uint32_t cap)
{
	switch (rnd(5)) {
	case 0:
		return rnd(4);
	case 1:
		return rnd(64);
	case 2:
		return rnd(cap + 1);
	case 3:
		return cap;
	default:
		return chance(50) ? 0xffffffffu : (uint32_t)rnd64();
	}
}

static void garbage_name(char *name)
{
	size_t i, len = 1 + rnd(40);

	for (i = 0; i < len; i++)
		name[i] = chance(80) ? (char)(' ' + rnd(95)) : (char)rnd(256);
	name[len] = 0;
}

/* A name: real (refused ones too), garbage, unterminated or empty. Returns
 * its symbol when it is a real one. */
static const struct sym *pick_name(char *name, int safe_only)
{
	const struct sym *s = NULL;
	uint64_t r = rnd(100);

	memset(name, 0, KJIT_NAME_MAX);
	if (r < 70) {
		s = any_sym(safe_only && r < 62);
		strcpy(name, s->name);
	} else if (r < 82) {
		garbage_name(name);
	} else if (r < 92) {
		memset(name, 'A' + rnd(26), KJIT_NAME_MAX);
	}
	return s;
}

static void printable(char *out, const char *name, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n && i < KJIT_NAME_MAX && name[i]; i++)
		out[i] = name[i] > ' ' && name[i] < 127 ? name[i] : '?';
	out[i] = 0;
}

/* ---- one function per request kind ------------------------------------- */

static void fuzz_version(void)
{
	struct call c = {.kind = K_VERSION, .cmd = KJIT_IOC_VERSION};
	struct kjit_version v;
	struct obj req;

	memset(&v, 0xa5, sizeof(v));
	v.size = pick_size(sizeof(v));
	place(&req, 0, &v, sizeof(v));
	describe(&c, "size=%u req=%s", v.size, ptr_names[req.kind]);
	if (issue(&c, req.addr) || !req.view)
		return;
	memcpy(&v, req.view, sizeof(v));
	if (v.abi != KJIT_ABI_VERSION || !memchr(v.build, 0, sizeof(v.build)))
		bad(&c, "abi %u, build string terminated: %d", v.abi,
		    memchr(v.build, 0, sizeof(v.build)) != NULL);
}

/* A DECODE target: a name, or an address of some kind. Returns the
 * address the module must report as resolved (0: unknown). */
static uint64_t decode_target(struct kjit_decode *d)
{
	const struct sym *s;
	uint64_t r = rnd(100);

	if (r < 40) {
		s = pick_name(d->name, 0);
		return s ? s->addr : 0;
	}
	if (r < 60)
		d->addr = any_sym(0)->addr;
	else if (r < 70)
		d->addr = mid_addr(0);
	else if (r < 92)
		d->addr = text_start + rnd(text_end - text_start);
	else
		d->addr = bad_addr((enum ptr)(P_LOW + rnd(N_PTRS - P_LOW)));
	return d->addr;
}

static void check_insns(const struct call *c, const struct kjit_decode *d,
			const struct kjit_decoded_insn *in)
{
	uint64_t at = d->resolved;
	uint32_t i;

	for (i = 0; i < d->count; i++, in++) {
		if (in->addr != at || in->length < 1 || in->length > 15 ||
		    !memchr(in->mnemonic, 0, sizeof(in->mnemonic))) {
			bad(c, "instruction %u: addr %#llx (want %#llx) len %u",
			    i, (unsigned long long)in->addr,
			    (unsigned long long)at, in->length);
			return;
		}
		at += in->length;
	}
}

static void fuzz_decode(void)
{
	struct call c = {.kind = K_DECODE, .cmd = KJIT_IOC_DECODE};
	struct kjit_decode d;
	struct obj req, out;
	uint64_t want;
	char name[48];

	memset(&d, 0, sizeof(d));
	d.size = pick_size(sizeof(d));
	d.max_insns = pick_n(KJIT_DECODE_MAX, 16);
	want = decode_target(&d);
	place(&out, OUT_OFF, NULL,
	      (d.max_insns <= KJIT_DECODE_MAX ? d.max_insns : 0) *
		  sizeof(struct kjit_decoded_insn));
	d.insns = out.addr;
	d.count = (uint32_t)rnd64();
	place(&req, 0, &d, sizeof(d));
	printable(name, d.name, sizeof(name));
	describe(&c,
		 "size=%u max_insns=%u addr=%#llx name='%s' req=%s insns=%s",
		 d.size, d.max_insns, (unsigned long long)d.addr, name,
		 ptr_names[req.kind], ptr_names[out.kind]);
	if (issue(&c, req.addr) || !req.view)
		return;
	memcpy(&d, req.view, sizeof(d));
	if (d.count < 1 || d.count > d.max_insns ||
	    (want && d.resolved != want))
		bad(&c, "count %u, resolved %#llx (want %#llx)", d.count,
		    (unsigned long long)d.resolved, (unsigned long long)want);
	else if (out.view)
		check_insns(&c, &d, (const void *)out.view);
}

/* One attach target: by name or address, of every kind. */
static void pick_target(struct kjit_target *t)
{
	uint64_t r = rnd(100);

	memset(t, 0, sizeof(*t));
	if (r < 60)
		pick_name(t->name, 1);
	else if (r < 72)
		t->addr = any_sym(chance(70))->addr;
	else if (r < 82)
		t->addr = mid_addr(1);
	else if (r < 92)
		t->addr = text_addr();
	else
		t->addr = bad_addr((enum ptr)(P_LOW + rnd(N_PTRS - P_LOW)));
	if (t->addr && chance(20))
		pick_name(t->name, 1); /* ignored: addr wins */
	if (chance(8)) { /* an argument predicate (ABI 16), often malformed */
		t->if_op = (uint8_t)(chance(80) ? 1 + rnd(KJIT_IF_OPS - 1)
						: rnd(256));
		t->if_arg = (uint8_t)(chance(80) ? rnd(6) : rnd(256));
		t->if_bits = (uint8_t)(chance(80) ? (chance(50) ? 32 : 64)
						  : rnd(256));
		t->if_value = chance(50) ? rnd(70000) : rnd64();
		if (chance(5))
			t->if_pad[rnd(5)] = (uint8_t)(1 + rnd(255));
	}
	memset(t->why, 0x5a, sizeof(t->why));
	t->err = (int32_t)rnd64();
}

/* Is @t's argument predicate well formed (kjit_ioctl.h's rules)? */
static int pred_ok(const struct kjit_target *t)
{
	unsigned i;

	for (i = 0; i < sizeof(t->if_pad); i++)
		if (t->if_pad[i])
			return 0;
	if (t->if_op == KJIT_IF_NONE)
		return !t->if_arg && !t->if_bits && !t->if_value;
	return t->if_op < KJIT_IF_OPS && t->if_arg < 6 &&
	       (t->if_bits == 32 || t->if_bits == 64);
}

static uint32_t pick_flags(void)
{
	const uint32_t ok[] = {0,
			       KJIT_ATTACH_BEST_EFFORT,
			       KJIT_ATTACH_DEEP,
			       KJIT_ATTACH_BEST_EFFORT | KJIT_ATTACH_DEEP,
			       KJIT_ATTACH_NO_COUNT,
			       KJIT_ATTACH_DEEP | KJIT_ATTACH_NO_COUNT,
			       KJIT_ATTACH_SPLIT,
			       KJIT_ATTACH_DEEP | KJIT_ATTACH_SPLIT,
			       KJIT_ATTACH_TIME,
			       KJIT_ATTACH_DEEP | KJIT_ATTACH_TIME |
				   KJIT_ATTACH_SPLIT};

	if (chance(88))
		return ok[rnd(10)];
	return (uint32_t)rnd64() | 32u << rnd(27); /* an unknown bit at least */
}

/* A limit of KJIT_IOC_ATTACH (ABI 5): mostly 0 (the default), else a
 * small legal value in [lo, lo * 16] (never a large one: the guest's
 * memory), else out of range: just below lo, just above hi, or ~0. */
static uint32_t pick_limit(uint32_t lo, uint32_t hi)
{
	const uint32_t bad[] = {lo - 1, hi + 1, ~0u};

	if (chance(70))
		return 0;
	if (chance(70))
		return lo + (uint32_t)rnd(lo * 15 + 1);
	return bad[rnd(3)];
}

/* split_banks: 0 without KJIT_ATTACH_SPLIT; with it banks 0 or
 * 3..KJIT_SPLIT_BANKS_MAX, chunks 0..4. */
static int split_bad(const struct kjit_attach *a)
{
	uint32_t banks = a->split_banks & 0xffff, chunks = a->split_banks >> 16;

	if (!(a->flags & KJIT_ATTACH_SPLIT))
		return a->split_banks != 0;
	return (banks && (banks < 3 || banks > KJIT_SPLIT_BANKS_MAX)) ||
	       chunks > 4;
}

/* Is a limit out of its range (0 is the default: in range)? */
static int limits_bad(const struct kjit_attach *a)
{
	return (a->deep_max && a->deep_max > KJIT_DEEP_MAX) ||
	       (a->cache_kb &&
		(a->cache_kb < 4 || a->cache_kb > KJIT_CACHE_KB_MAX)) ||
	       (a->max_blocks &&
		(a->max_blocks < 16 || a->max_blocks > KJIT_BLOCKS_MAX)) ||
	       split_bad(a);
}

static void describe_attach(struct call *c, const struct kjit_attach *a,
			    const struct kjit_target *t, const struct obj *req,
			    const struct obj *tgt)
{
	char names[200] = "", one[40];
	uint32_t i, len = 0;

	for (i = 0; i < a->n && i < 4; i++) {
		printable(one, t[i].name, 28);
		len +=
		    snprintf(names + len, sizeof(names) - len, " t%u=%s@%#llx",
			     i, one, (unsigned long long)t[i].addr);
		if (len >= sizeof(names))
			break;
	}
	describe(c,
		 "size=%u flags=%#x n=%u deep_max=%u cache_kb=%u max_blocks=%u "
		 "split_banks=%#x req=%s targets=%s%s%s",
		 a->size, a->flags, a->n, a->deep_max, a->cache_kb,
		 a->max_blocks, a->split_banks, ptr_names[req->kind],
		 ptr_names[tgt->kind], names, a->n > 4 ? " ..." : "");
}

static unsigned malformed_ok; /* targets accepted with a bad predicate */

/* Per-target results of an attach: how many were accepted, and whether
 * one of them carries @err (a negative errno). */
static uint32_t accepted(const struct kjit_target *t, uint32_t n, int err,
			 int *has_err)
{
	uint32_t i, ok = 0;

	*has_err = 0;
	for (i = 0; i < n; i++) {
		ok += t[i].err == 0;
		*has_err |= t[i].err == err;
		malformed_ok += !pred_ok(&t[i]) && t[i].err == 0;
	}
	return ok;
}

static void check_attach(const struct call *c, const struct kjit_attach *a,
			 const struct kjit_target *t)
{
	int has_err = 0;
	uint32_t ok = t ? accepted(t, a->n, -c->err, &has_err) : 0;
	int all = !(a->flags & KJIT_ATTACH_BEST_EFFORT);

	if (!c->err && limits_bad(a)) {
		bad(c, "attached with a limit out of range");
		return;
	}
	if (malformed_ok) {
		bad(c, "a target with a malformed predicate was accepted");
		malformed_ok = 0;
		return;
	}
	if ((a->flags & KJIT_ATTACH_TIME) && timing_off) {
		if (!c->err)
			bad(c, "a timed session attached where the module "
			       "refused one at the start");
		else if (c->err == EOPNOTSUPP)
			return; /* the session's refusal: no target's */
	}
	if (c->err) {
		if (t && all &&
		    (c->err == ENOENT || c->err == EOPNOTSUPP ||
		     c->err == EBUSY) &&
		    !has_err)
			bad(c, "no target says -%s", errname(c->err));
		return;
	}
	if (a->attached < 1 || a->attached > a->n ||
	    (all && a->attached != a->n))
		bad(c, "attached %u of n %u", a->attached, a->n);
	else if (t && ok != a->attached)
		bad(c, "attached %u but %u targets have err 0", a->attached,
		    ok);
	else if (c->alone && (c->after.n_funcs != a->attached ||
			      c->after.deep != !!(a->flags & KJIT_ATTACH_DEEP)))
		bad(c, "attached %u (deep %u), session has %u (deep %u)",
		    a->attached, !!(a->flags & KJIT_ATTACH_DEEP),
		    c->after.n_funcs, c->after.deep);
}

static void fuzz_attach(void)
{
	struct call c = {.kind = K_ATTACH, .cmd = KJIT_IOC_ATTACH};
	struct kjit_target t[FUZZ_TARGETS];
	struct kjit_attach a;
	struct obj req, tgt;
	uint32_t i, nt;

	memset(&a, 0, sizeof(a));
	a.size = pick_size(sizeof(a));
	a.flags = pick_flags();
	/* mostly what fits the view; now and then the ABI's bound, just
	 * inside (the targets are not all there: -EFAULT) or past it */
	a.n = chance(97) ? pick_n(FUZZ_TARGETS, 3)
			 : KJIT_MAX_TARGETS + (uint32_t)rnd(2);
	a.attached = (uint32_t)rnd64();
	a.deep_max = pick_limit(1, KJIT_DEEP_MAX);
	a.cache_kb = pick_limit(4, KJIT_CACHE_KB_MAX);
	a.max_blocks = pick_limit(16, KJIT_BLOCKS_MAX);
	/* mostly the default; now and then a few banks, or anything */
	a.split_banks = chance(90)   ? 0
			: chance(50) ? 3 + (uint32_t)rnd(8)
				     : (uint32_t)rnd64();
	nt = a.n < FUZZ_TARGETS ? a.n : FUZZ_TARGETS;
	for (i = 0; i < nt; i++)
		pick_target(&t[i]);
	place(&tgt, TGT_OFF, t, nt * sizeof(t[0]));
	a.targets = tgt.addr;
	place(&req, 0, &a, sizeof(a));
	describe_attach(&c, &a, t, &req, &tgt);
	issue(&c, req.addr);
	if (!req.view || a.n != nt)
		return;
	memcpy(&a, req.view, sizeof(a));
	if (tgt.view)
		memcpy(t, tgt.view, nt * sizeof(t[0]));
	check_attach(&c, &a, tgt.view ? t : NULL);
}

/* DETACH and RESET take no argument; they get a random one. */
static void fuzz_noarg(enum kind k)
{
	struct call c = {.kind = k, .cmd = kinds[k].cmd};
	uint64_t arg = chance(50) ? 0 : rnd64();

	describe(&c, "arg=%#llx", (unsigned long long)arg);
	issue(&c, arg);
}

static void fuzz_detach(void)
{
	fuzz_noarg(K_DETACH);
}

static void fuzz_reset(void)
{
	fuzz_noarg(K_RESET);
}

static void fuzz_own(void)
{
	fuzz_noarg(K_OWN);
}

static void fuzz_self(void)
{
	fuzz_noarg(K_SELF);
}

/* BLOCKS and FUNCS share their first fields: size, max, buf, total,
 * written; FUNCS adds the size of its entries and a pad (ABI 7). */
struct listing {
	uint32_t size, max;
	uint64_t buf;
	uint32_t total, written;
	uint32_t info_size, pad;
};
_Static_assert(offsetof(struct listing, info_size) ==
		       sizeof(struct kjit_blocks) &&
		   sizeof(struct listing) == sizeof(struct kjit_funcs),
	       "BLOCKS and FUNCS requests share their first fields");

static void check_blocks(const struct call *c, const struct listing *l,
			 const struct kjit_block_info *b)
{
	uint32_t i;

	for (i = 0; i < l->written; i++, b++)
		if ((i && b->orig <= b[-1].orig) || !b->orig_len ||
		    !b->n_insns || b->cpus < 1 || b->cpus > ncpus) {
			bad(c, "block %u: orig %#llx len %u insns %u cpus %u",
			    i, (unsigned long long)b->orig, b->orig_len,
			    b->n_insns, b->cpus);
			return;
		}
}

static void check_funcs(const struct call *c, const struct listing *l,
			const struct kjit_func_info *f)
{
	uint32_t i;

	for (i = 0; i < l->written; i++, f++)
		if (!memchr(f->name, 0, sizeof(f->name)) ||
		    f->end <= f->start || f->diverted > 1 || f->deep > 1 ||
		    (f->deep && f->diverted)) {
			bad(c, "func %u: %#llx-%#llx diverted %u deep %u", i,
			    (unsigned long long)f->start,
			    (unsigned long long)f->end, f->diverted, f->deep);
			return;
		}
}

static void fuzz_listing(enum kind k, size_t entry)
{
	struct call c = {.kind = k, .cmd = kinds[k].cmd};
	uint32_t cap = OUT_ROOM / entry;
	size_t req_size = k == K_BLOCKS ? sizeof(struct kjit_blocks)
					: sizeof(struct kjit_funcs);
	struct obj req, out;
	struct listing l;

	l.size = pick_size((uint32_t)req_size);
	l.info_size = pick_size((uint32_t)entry);
	l.pad = chance(90) ? 0 : (uint32_t)rnd64();
	l.max = pick_max(cap);
	place(&out, OUT_OFF, NULL, (l.max < cap ? l.max : cap) * entry);
	l.buf = out.addr;
	l.total = (uint32_t)rnd64();
	l.written = (uint32_t)rnd64();
	place(&req, 0, &l, req_size);
	describe(&c, "size=%u info_size=%u pad=%u max=%u req=%s buf=%s", l.size,
		 l.info_size, l.pad, l.max, ptr_names[req.kind],
		 ptr_names[out.kind]);
	if (issue(&c, req.addr) || !req.view)
		return;
	memcpy(&l, req.view, req_size);
	if (l.written != (l.max < l.total ? l.max : l.total))
		bad(&c, "written %u, max %u, total %u", l.written, l.max,
		    l.total);
	else if (out.view && k == K_BLOCKS)
		check_blocks(&c, &l, (const void *)out.view);
	else if (out.view)
		check_funcs(&c, &l, (const void *)out.view);
}

static void fuzz_blocks(void)
{
	fuzz_listing(K_BLOCKS, sizeof(struct kjit_block_info));
}

static void fuzz_funcs(void)
{
	fuzz_listing(K_FUNCS, sizeof(struct kjit_func_info));
}

static void fuzz_stats(void)
{
	struct call c = {.kind = K_STATS, .cmd = KJIT_IOC_STATS};
	struct kjit_session_stats st;
	struct obj req;

	memset(&st, 0xa5, sizeof(st));
	st.size = pick_size(sizeof(st));
	place(&req, 0, &st, sizeof(st));
	describe(&c, "size=%u req=%s", st.size, ptr_names[req.kind]);
	if (issue(&c, req.addr) || !req.view)
		return;
	memcpy(&st, req.view, sizeof(st));
	if (st.size != sizeof(st) || st.ncpus < 1 ||
	    st.ncpus > KJIT_STAT_CPUS || st.attached > 1 || st.deep > 1 ||
	    st.n_funcs < 1 || st.n_funcs > KJIT_MAX_TARGETS ||
	    (!st.deep && st.deep_funcs))
		bad(&c, "ncpus %u attached %u deep %u n_funcs %u deep_funcs %u",
		    st.ncpus, st.attached, st.deep, st.n_funcs, st.deep_funcs);
}

/* KJIT_IOC_SPLIT: any bank or CPU, any room; what comes back must hold
 * together (written within max and total, banks used within banks). */
static void fuzz_split(void)
{
	struct call c = {.kind = K_SPLIT, .cmd = KJIT_IOC_SPLIT};
	uint32_t cap = OUT_ROOM / sizeof(struct kjit_split_count);
	struct kjit_split_read r;
	struct obj req, out;

	memset(&r, 0xa5, sizeof(r));
	r.size = pick_size(sizeof(r));
	r.bank = chance(60)   ? (uint32_t)rnd(40)
		 : chance(50) ? KJIT_SPLIT_CPU | (uint32_t)rnd(4)
			      : (uint32_t)rnd64();
	r.max = pick_max(cap);
	place(&out, OUT_OFF, NULL,
	      (r.max < cap ? r.max : cap) * sizeof(struct kjit_split_count));
	r.buf = out.addr;
	place(&req, 0, &r, sizeof(r));
	describe(&c, "size=%u bank=%#x max=%u req=%s buf=%s", r.size, r.bank,
		 r.max, ptr_names[req.kind], ptr_names[out.kind]);
	if (issue(&c, req.addr) || !req.view)
		return;
	memcpy(&r, req.view, sizeof(r));
	if (r.written > r.max || r.written > r.total || r.used > r.n_banks ||
	    !memchr(r.comm, 0, sizeof(r.comm)))
		bad(&c, "written %u max %u total %u used %u banks %u", r.written,
		    r.max, r.total, r.used, r.n_banks);
}

/* KJIT_IOC_TIME: any first id, any room. */
static void fuzz_time(void)
{
	struct call c = {.kind = K_TIME, .cmd = KJIT_IOC_TIME};
	uint32_t cap = OUT_ROOM / sizeof(struct kjit_time_func);
	struct kjit_time_read r;
	struct obj req, out;

	memset(&r, 0xa5, sizeof(r));
	r.size = pick_size(sizeof(r));
	r.first = chance(70) ? (uint32_t)rnd(64) : (uint32_t)rnd64();
	r.max = pick_max(cap);
	place(&out, OUT_OFF, NULL,
	      (r.max < cap ? r.max : cap) * sizeof(struct kjit_time_func));
	r.buf = out.addr;
	place(&req, 0, &r, sizeof(r));
	describe(&c, "size=%u first=%u max=%u req=%s buf=%s", r.size, r.first,
		 r.max, ptr_names[req.kind], ptr_names[out.kind]);
	if (issue(&c, req.addr) || !req.view)
		return;
	memcpy(&r, req.view, sizeof(r));
	if (r.written > r.max || (r.next > r.max_fid && r.next != r.first) ||
	    r.recs_used > r.recs)
		bad(&c, "written %u max %u next %u max_fid %u recs %u/%u",
		    r.written, r.max, r.next, r.max_fid, r.recs_used, r.recs);
}

/* The call paths: in bounds, each node below the room, its parent
 * below it too, or none. */
static void fuzz_tpaths(void)
{
	struct call c = {.kind = K_TPATHS, .cmd = KJIT_IOC_TPATHS};
	uint32_t cap = OUT_ROOM / sizeof(struct kjit_tpath_info), i, n;
	struct kjit_tpath_read r;
	struct obj req, out;

	memset(&r, 0xa5, sizeof(r));
	r.size = pick_size(sizeof(r));
	r.first = chance(70) ? (uint32_t)rnd(64) : (uint32_t)rnd64();
	r.max = pick_max(cap);
	place(&out, OUT_OFF, NULL,
	      (r.max < cap ? r.max : cap) * sizeof(struct kjit_tpath_info));
	r.buf = out.addr;
	place(&req, 0, &r, sizeof(r));
	describe(&c, "size=%u first=%u max=%u req=%s buf=%s", r.size, r.first,
		 r.max, ptr_names[req.kind], ptr_names[out.kind]);
	if (issue(&c, req.addr) || !req.view)
		return;
	memcpy(&r, req.view, sizeof(r));
	if (r.written > r.max || r.used > r.n_paths ||
	    (r.next > r.n_paths && r.next != r.first))
		bad(&c, "written %u max %u next %u used %u of %u", r.written,
		    r.max, r.next, r.used, r.n_paths);
	n = out.view && r.written <= cap ? r.written : 0;
	for (i = 0; i < n; i++) {
		const struct kjit_tpath_info *p =
		    (const struct kjit_tpath_info *)out.view + i;

		/* (not excl <= incl: another CPU may add between the two
		 * reads of a node's sums) */
		if (p->node >= r.n_paths ||
		    (p->parent != KJIT_TPATH_NONE && p->parent >= r.n_paths))
			bad(&c, "node %u parent %u of %u", p->node, p->parent,
			    r.n_paths);
	}
}

static int is_kjit_cmd(unsigned int cmd)
{
	int k;

	for (k = 0; k < K_FOREIGN; k++)
		if (cmd == kinds[k].cmd)
			return 1;
	return 0;
}

/* Command types the VFS answers itself on any file (FIOCLEX, FIONBIO,
 * FIFREEZE, FICLONE, FS_IOC_GETFLAGS, FIGETBSZ...): never sent. */
static int vfs_type(unsigned int cmd)
{
	unsigned int type = _IOC_TYPE(cmd);

	return type == 'T' || type == 'X' || type == 'f' || type == 0x94 ||
	       type == 0;
}

static unsigned int foreign_cmd(void)
{
	unsigned int cmd;

	do {
		switch (rnd(4)) {
		case 0: /* kjit's magic, an unknown number */
			cmd = _IOC(rnd(4), KJIT_IOC_MAGIC, 8 + rnd(248),
				   rnd(1 << 14));
			break;
		case 1: /* a known number, other direction or size */
			cmd = _IOC(rnd(4), KJIT_IOC_MAGIC, rnd(8),
				   chance(50) ? rnd(1 << 14) : rnd(512));
			break;
		case 2: /* a known command, one bit flipped */
			cmd = kinds[rnd(K_FOREIGN)].cmd ^ 1u << rnd(32);
			break;
		default:
			cmd = (uint32_t)rnd64();
		}
	} while (is_kjit_cmd(cmd) || vfs_type(cmd));
	return cmd;
}

static void fuzz_foreign(void)
{
	struct call c = {.kind = K_FOREIGN, .cmd = foreign_cmd()};
	uint8_t junk[64];
	struct obj req;
	size_t i;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)rnd64();
	place(&req, 0, junk, sizeof(junk));
	describe(&c, "req=%s", ptr_names[req.kind]);
	issue(&c, req.addr);
}

static void (*const fuzz_fns[N_KINDS])(void) = {
    [K_VERSION] = fuzz_version, [K_DECODE] = fuzz_decode,
    [K_ATTACH] = fuzz_attach,	[K_DETACH] = fuzz_detach,
    [K_BLOCKS] = fuzz_blocks,	[K_FUNCS] = fuzz_funcs,
    [K_STATS] = fuzz_stats,	[K_RESET] = fuzz_reset,
    [K_OWN] = fuzz_own,		[K_SELF] = fuzz_self,
    [K_SPLIT] = fuzz_split,	[K_TIME] = fuzz_time, [K_TPATHS] = fuzz_tpaths,
    [K_FOREIGN] = fuzz_foreign,
};

static void fuzz_one(void)
{
	int total = 0, k;
	uint64_t r;

	for (k = 0; k < N_KINDS; k++)
		total += kinds[k].weight;
	r = rnd(total);
	for (k = 0; r >= (uint64_t)kinds[k].weight; k++)
		r -= kinds[k].weight;
	fuzz_fns[k]();
}

/* ---- processes --------------------------------------------------------- */

static void drop_root(void)
{
	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		die("dropping root");
}

/* A worker's end. A session ends when the file that attached it closes
 * (kmod: "the session's owner closed /dev/kjit"), and a worker's own file
 * closes when it exits: so the session is detached here, under the
 * exclusive lock, never inside another worker's alone request (under
 * KCSAN one worker ended seconds before the other, whose next request saw
 * the session gone). A detach that succeeds counts as one. */
static void finish(void)
{
	lock(LOCK_EX);
	if (!unpriv && !syscall(SYS_ioctl, own_fd, KJIT_IOC_DETACH, 0))
		sh->hist[me][K_DETACH][0]++;
	close(own_fd); /* its flock with it */
	exit(0);
}

static void worker(int idx)
{
	double end = now() + secs;

	me = idx;
	rng = (seed + 1) * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(idx + 1) << 32;
	own_fd = open(KJIT_DEVICE, O_RDWR);
	if (own_fd < 0)
		die(KJIT_DEVICE);
	map_views();
	if (unpriv)
		drop_root();
	while (now() < end)
		fuzz_one();
	finish();
}

static int all_zero(const char *p, size_t n)
{
	while (n--)
		if (*p++)
			return 0;
	return 1;
}

/* One round of the busy process's system calls; 1 if all behaved. */
static int busy_round(pid_t pid, int zero, const int *p)
{
	static const char msg[16] = "0123456789abcdef";
	char buf[64], back[16];
	struct stat st;
	int ok, fd;

	ok = syscall(SYS_getpid) == pid;
	memset(buf, 0xa5, sizeof(buf));
	ok &= read(zero, buf, sizeof(buf)) == sizeof(buf) &&
	      all_zero(buf, sizeof(buf));
	ok &= write(p[1], msg, sizeof(msg)) == sizeof(msg) &&
	      read(p[0], back, sizeof(back)) == sizeof(back) &&
	      !memcmp(back, msg, sizeof(msg));
	ok &= syscall(SYS_fstat, zero, &st) == 0 && S_ISCHR(st.st_mode);
	fd = dup(zero);
	ok &= fd >= 0 && syscall(SYS_close, fd) == 0;
	return ok;
}

static void busy(int idx)
{
	int zero = open("/dev/zero", O_RDONLY), p[2];
	pid_t pid = getpid();

	me = MAX_PROCS;
	if (zero < 0 || pipe(p))
		die("busy setup");
	while (!sh->stop) {
		if (!busy_round(pid, zero, p) &&
		    sh->failures[me]++ < MAX_FAIL_LINES)
			printf(
			    "FAIL busy round %ld: a system call misbehaved\n",
			    sh->busy_rounds);
		sh->busy_rounds++;
	}
	exit(0);
}

static pid_t start(void (*fn)(int), int idx)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0)
		fn(idx);
	return pid;
}

/* Waits for @pid; a crash or a failed setup is a failure of its own. */
static void reap(pid_t pid, const char *who)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("FAIL %s ended with status %#x\n", who, status);
		sh->failures[MAX_PROCS]++;
	}
}

/* ---- the end: detach, summary ------------------------------------------ */

/* Detaches what the workers left attached; the session must then be
 * detached (or absent). Returns failures. */
static int final_detach(void)
{
	struct kjit_session_stats st = {.size = sizeof(st)};
	int rc = ioctl(shared_fd, KJIT_IOC_DETACH, 0);

	if (rc && errno != ENOENT) {
		printf("FAIL final detach: %s\n", errname(errno));
		return 1;
	}
	if (ioctl(shared_fd, KJIT_IOC_STATS, &st) ? errno != ENOENT
						  : st.attached != 0) {
		printf("FAIL still attached after the final detach\n");
		return 1;
	}
	return 0;
}

/* One histogram line: LABEL n=<requests> [time=<s>] <errno>=<count>... */
static long print_hist(const char *label, const long *h, double secs)
{
	long n = 0;
	int e;

	for (e = 0; e < MAX_ERRNO; e++)
		n += h[e];
	printf("%s n=%ld", label, n);
	if (secs >= 0)
		printf(" time=%.1fs", secs);
	for (e = 0; e < MAX_ERRNO; e++)
		if (h[e])
			printf(" %s=%ld", errname(e), h[e]);
	printf("\n");
	return n;
}

/* Sums kind @k over the workers into @h; returns the time spent in it. */
static double sum_kind(int k, long *h)
{
	double secs = 0;
	int e, w;

	memset(h, 0, MAX_ERRNO * sizeof(*h));
	for (w = 0; w < procs; w++) {
		for (e = 0; e < MAX_ERRNO; e++)
			h[e] += sh->hist[w][k][e];
		secs += sh->kind_secs[w][k];
	}
	return secs;
}

/* The workers draw a timed or split session only now and then (a few of
 * their hundreds of requests attach at all, and some of those carry a
 * malformed predicate): where KJIT_IOC_TIME and KJIT_IOC_TPATHS, or
 * KJIT_IOC_SPLIT, found none, one more worker attaches one (deep, timed;
 * or split) and draws those requests with the same checks, in a worker
 * of its own, so that their success is tried on every run. */
static uint32_t last_flags; /* what the last worker attaches */

static void last_worker(int idx)
{
	struct kjit_target t = {.name = "__x64_sys_getpid"};
	struct kjit_attach a = {.size = sizeof(a),
				.flags = last_flags,
				.n = 1,
				.targets = (uintptr_t)&t,
				.scope = KJIT_SCOPE_ALL};
	int i;

	me = idx; /* a worker's set-up: its rng, file and views */
	rng = (seed + 7) * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(idx + 1) << 32;
	own_fd = open(KJIT_DEVICE, O_RDWR);
	if (own_fd < 0)
		die(KJIT_DEVICE);
	map_views();
	if (ioctl(shared_fd, KJIT_IOC_ATTACH, &a)) {
		printf("FAIL the last attach (flags %#x): %s\n", last_flags,
		       errname(errno));
		sh->failures[idx]++;
		exit(0);
	}
	for (i = 0; i < 100; i++)
		syscall(SYS_getpid);
	for (i = 0; i < 40; i++) {
		if (last_flags & KJIT_ATTACH_TIME) {
			fuzz_time();
			fuzz_tpaths();
		} else {
			fuzz_split();
		}
	}
	if (ioctl(shared_fd, KJIT_IOC_DETACH, 0) && errno != ENOENT) {
		printf("FAIL detach after the last reads: %s\n",
		       errname(errno));
		sh->failures[idx]++;
	}
	exit(0);
}

static void last_calls(void)
{
	long kt[MAX_ERRNO], kp[MAX_ERRNO], ks[MAX_ERRNO];

	if (unpriv)
		return;
	sum_kind(K_TIME, kt);
	sum_kind(K_TPATHS, kp);
	sum_kind(K_SPLIT, ks);
	if (!timing_off && (!kt[0] || !kp[0])) {
		printf("kjitfuzz: no read found a timed session (time ok %ld, "
		       "tpaths ok %ld): one more worker attaches one and "
		       "reads it\n",
		       kt[0], kp[0]);
		fflush(stdout);
		last_flags = KJIT_ATTACH_TIME | KJIT_ATTACH_DEEP;
		reap(start(last_worker, 0), "the timed worker");
	}
	if (!ks[0]) {
		printf("kjitfuzz: no read found a split session: one more "
		       "worker attaches one and reads it\n");
		fflush(stdout);
		last_flags = KJIT_ATTACH_SPLIT;
		reap(start(last_worker, 0), "the split worker");
	}
}

/* Prints the KIND and ERRNO lines; returns how many kinds were never
 * issued or (privileged) never succeeded. */
static int summary(long *total)
{
	long kind[MAX_ERRNO], all[MAX_ERRNO] = {0};
	char label[32];
	int k, e, missing = 0;
	double secs;

	for (k = 0; k < N_KINDS; k++) {
		secs = sum_kind(k, kind);
		for (e = 0; e < MAX_ERRNO; e++)
			all[e] += kind[e];
		snprintf(label, sizeof(label), "KIND %s", kinds[k].name);
		if (!print_hist(label, kind, secs) ||
		    (!unpriv && k != K_FOREIGN &&
		     !((k == K_TIME || k == K_TPATHS) && timing_off) &&
		     !kind[0])) {
			printf("FAIL %s never issued or never succeeded\n",
			       kinds[k].name);
			missing++;
		}
	}
	*total = print_hist("ERRNO", all, -1);
	return missing;
}

static void usage(void)
{
	fprintf(stderr, "usage: kjitfuzz [-s SEED] [-t SECONDS] [-j PROCS] "
			"[-u] [-v]\n");
	exit(2);
}

static void options(int argc, char **argv)
{
	int opt;

	seed = (unsigned long long)time(NULL) ^ (unsigned long long)getpid()
						    << 16;
	while ((opt = getopt(argc, argv, "s:t:j:uv")) != -1) {
		if (opt == 's')
			seed = strtoull(optarg, NULL, 0);
		else if (opt == 't')
			secs = atoi(optarg);
		else if (opt == 'j')
			procs = atoi(optarg);
		else if (opt == 'u')
			unpriv = 1;
		else if (opt == 'v')
			verbose = 1;
		else
			usage();
	}
	if (optind != argc || secs < 1 || procs < 1 || procs > MAX_PROCS)
		usage();
}

/* Does kjit.ko time a session here? One timed attach of getpid, before
 * the workers start (no session then), detached at once. */
static void probe_timing(void)
{
	struct kjit_target t = {.name = "__x64_sys_getpid"};
	struct kjit_attach a = {.size = sizeof(a),
				.flags = KJIT_ATTACH_TIME,
				.n = 1,
				.targets = (uintptr_t)&t,
				.scope = KJIT_SCOPE_ALL};

	if (unpriv)
		return;
	if (ioctl(shared_fd, KJIT_IOC_ATTACH, &a)) {
		timing_off = errno == EOPNOTSUPP && !t.err;
		printf("kjitfuzz: a timed attach fails here (%s)%s\n",
		       strerror(errno),
		       timing_off ? ": the module times no session" : "");
		fflush(stdout); /* before the workers' fork */
		return;
	}
	if (ioctl(shared_fd, KJIT_IOC_DETACH, 0))
		die("detach after the timing probe");
}

int main(int argc, char **argv)
{
	pid_t pids[MAX_PROCS], busy_pid;
	long failures = 0, total;
	double t0 = now();
	int i;

	options(argc, argv);
	printf("kjitfuzz: seed %llu (replay: kjitfuzz -s %llu -t %d -j %d%s)\n",
	       seed, seed, secs, procs, unpriv ? " -u" : "");
	fflush(stdout);
	shared_fd = open(KJIT_DEVICE, O_RDWR);
	if (shared_fd < 0)
		die(KJIT_DEVICE);
	load_symbols();
	probe_timing();
	ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	busy_pid = start(busy, 0);
	t0 = now();
	for (i = 0; i < procs; i++)
		pids[i] = start(worker, i);
	for (i = 0; i < procs; i++)
		reap(pids[i], "a worker");
	sh->stop = 1;
	reap(busy_pid, "the busy process");
	failures += final_detach();
	last_calls();
	failures += summary(&total);
	for (i = 0; i <= MAX_PROCS; i++)
		failures += sh->failures[i];
	printf("BUSY rounds=%ld\n", sh->busy_rounds);
	printf("kjitfuzz: %s: %ld requests in %.1f s, %d process(es)%s, "
	       "seed %llu, %ld failure(s)\n",
	       failures ? "FAILED" : "passed", total, now() - t0, procs,
	       unpriv ? " unprivileged" : "", seed, failures);
	return failures ? 1 : 0;
}
