/*
 * cmd_compare.c - `kjit compare [--deep] [--icount] -f FUNC... [-n RUNS] --
 * COMMAND`:
 * COMMAND RUNS times (default 5) natively, under kjit, and with counting
 * Kprobes (kjit_kprobes.ko) on the block addresses kjit found, each mode
 * after one untimed warm-up run; counts side by side, then per mode the
 * median, min and max wall time and the added cost per counted event.
 *
 * The warm-up run under kjit translates the blocks, so the measured runs
 * do not pay the one-off translation; counters are reset after every
 * warm-up, so the counts cover the measured runs only. Costs at or below
 * the noise floor (the native runs' spread per event, tools/report/noise.h) are
 * printed "below noise (±X ns)", never as a negative figure.
 *
 * --icount says the guest runs under QEMU `-icount shift=0,sleep=off`
 * (`make demo KJIT_ICOUNT=1`): its clock then advances 1 ns per executed
 * instruction, so the times are instruction counts, the same in every run,
 * and are printed as such (millions of instructions, instructions added per
 * event). The tool cannot see the emulator: the option only names the unit.
 *
 * The runs are separate because a Kprobe on an address kjit translated is
 * never hit while kjit runs (kjit runs the copy). Counts are system-wide
 * (kjit's own processes too, as Kprobes cannot leave them out), so
 * activity besides COMMAND can make them differ. The output leads with a
 * verdict (how many blocks of the attached functions agree, how many
 * differ as expected and why), says what each kind of row means, then
 * lists the attached functions' blocks and one line per deep callee.
 * Mismatches are flagged, not fatal (exit status 0 once the three runs
 * succeed).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "kmod/kjit_ioctl.h"
#include "kmod/companion/kjit_kprobes_ioctl.h"
#include "tools/session/args.h"
#include "tools/session/attach.h"
#include "commands.h"
#include "tools/kernel/device.h"
#include "tools/kernel/kprobe_hazards.h"
#include "tools/report/limits.h"
#include "tools/report/noise.h"
#include "tools/session/runcmd.h"
#include "tools/session/session.h"
#include "tools/report/say.h"

/* err[i]: 0 armed, -errno the kernel refused it, or LEFT_OUT: a deep
 * callee's block in the kernel's debug machinery, or any deep callee's on
 * a lockdep kernel (kprobe_hazards.h), never armed. */
struct probes {
	uint64_t *addr, *count;
	int32_t *err;
	unsigned int n;
	int lockdep; /* the kernel has lockdep: every deep callee left out */
};

#define LEFT_OUT 1

static int open_kprobes(void)
{
	int fd = open(KJITKP_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fprintf(stderr, "kjit compare: %s: %s\n", KJITKP_DEVICE,
			errno == ENOENT
			    ? "not found: load the Kprobes companion "
			      "module first (insmod kjit_kprobes.ko)"
			    : strerror(errno));
	return fd;
}

/* Runs COMMAND once, warning if it fails; 0, or -1 if it could not run. */
static int run_once(const struct args *a, const char *mode, double *ns)
{
	int st = run_command(a->cmd, ns);

	if (st < 0)
		return -1;
	if (run_command_stop_signal()) {
		fprintf(stderr,
			"kjit compare: stopped by %s (passed on to %s)\n",
			strsignal(run_command_stop_signal()), a->cmd[0]);
		return -1;
	}
	if (st)
		fprintf(stderr,
			"kjit compare: warning: %s exited with status %d "
			"(%s run)\n",
			a->cmd[0], st, mode);
	return 0;
}

/* Runs COMMAND a->runs times, wall ns of each into @t[0..runs) (sorted,
 * with its median and spread in @sp). 0 or -1. */
static int run_all(const struct args *a, const char *mode, double *t,
		   struct spread *sp)
{
	int i;

	for (i = 0; i < a->runs; i++)
		if (run_once(a, mode, &t[i]))
			return -1;
	spread_of(t, a->runs, sp);
	return 0;
}

/* kjit's translation time so far (all CPUs), or 0 if unreadable. */
static uint64_t translate_ns_now(int fd)
{
	struct session s;
	uint64_t ns = 0;

	if (!session_read_device(&s, fd)) {
		ns = s.st.translate_ns;
		session_free(&s);
	}
	return ns;
}

/* Attach, warm up (translating), reset the counters, measure, detach.
 * @warm_ns: translation time of the warm-up run. 0 or -1. */
static int kjit_run(int fd, const struct args *a, struct session *s, double *t,
		    struct spread *sp, uint64_t *warm_ns)
{
	double ns;
	int err = 0;

	if (attach_funcs(fd, a, "compare"))
		return -1;
	if (run_once(a, "kjit warm-up", &ns))
		err = -1;
	*warm_ns = translate_ns_now(fd);
	if (!err && ioctl(fd, KJIT_IOC_RESET, 0)) {
		fprintf(stderr, "kjit compare: reset: %s\n", strerror(errno));
		err = -1;
	}
	if (!err)
		err = run_all(a, "kjit", t, sp);
	if (ioctl(fd, KJIT_IOC_DETACH, 0))
		fprintf(stderr, "kjit compare: detach: %s\n",
			kjit_detach_why(errno));
	if (err)
		return -1;
	err = session_read_device(s, fd);
	if (err) {
		fprintf(stderr, "kjit compare: cannot read kjit's counts: %s\n",
			strerror(-err));
		return -1;
	}
	return 0;
}

/* Arm @p's addresses, warm up, reset the counts, measure, read, disarm.
 * 0 or -1. */
static int kprobe_measure(int kfd, const struct args *a, struct probes *p,
			  double *t, struct spread *sp)
{
	struct kjitkp_arm arm = {.size = sizeof(arm),
				 .n = p->n,
				 .addrs = (uintptr_t)p->addr,
				 .errs = (uintptr_t)p->err};
	struct kjitkp_read rd = {
	    .size = sizeof(rd), .n = p->n, .counts = (uintptr_t)p->count};
	double ns;
	int err = 0;

	if (ioctl(kfd, KJITKP_IOC_ARM, &arm)) {
		fprintf(stderr, "kjit compare: cannot arm Kprobes: %s\n",
			strerror(errno));
		return -1;
	}
	if (run_once(a, "kprobes warm-up", &ns))
		err = -1;
	if (!err && ioctl(kfd, KJITKP_IOC_RESET, 0)) {
		fprintf(stderr, "kjit compare: cannot reset Kprobes: %s\n",
			strerror(errno));
		err = -1;
	}
	if (!err)
		err = run_all(a, "kprobes", t, sp);
	if (!err && ioctl(kfd, KJITKP_IOC_READ, &rd)) {
		fprintf(stderr, "kjit compare: cannot read Kprobe counts: %s\n",
			strerror(errno));
		err = -1;
	}
	arm.n = 0;
	ioctl(kfd, KJITKP_IOC_ARM, &arm);
	return err;
}

/* The blocks to arm (err 0) packed into @q, the rest left out. */
static void pack_armed(const struct probes *p, struct probes *q,
		       unsigned int *idx)
{
	unsigned int i;

	q->n = 0;
	for (i = 0; i < p->n; i++)
		if (!p->err[i]) {
			idx[q->n] = i;
			q->addr[q->n++] = p->addr[i];
		}
}

/* The kernel's errors and counts of the packed set back at their blocks. */
static void unpack_armed(struct probes *p, const struct probes *q,
			 const unsigned int *idx)
{
	unsigned int i;

	for (i = 0; i < q->n; i++) {
		p->err[idx[i]] = q->err[i];
		p->count[idx[i]] = q->count[i];
	}
}

/* Arm, warm up, reset the counts, measure, read, disarm. 0 or -1. */
static int kprobe_run(int kfd, const struct args *a, struct probes *p,
		      double *t, struct spread *sp)
{
	struct probes q = {.addr = calloc(p->n + 1, sizeof(*q.addr)),
			   .count = calloc(p->n + 1, sizeof(*q.count)),
			   .err = calloc(p->n + 1, sizeof(*q.err))};
	unsigned int *idx = calloc(p->n + 1, sizeof(*idx));
	int err = !q.addr || !q.count || !q.err || !idx;

	if (!err) {
		pack_armed(p, &q, idx);
		err = kprobe_measure(kfd, a, &q, t, sp);
		unpack_armed(p, &q, idx);
	}
	free(q.addr);
	free(q.count);
	free(q.err);
	free(idx);
	return err ? -1 : 0;
}

static int probes_alloc(struct probes *p, const struct session *s)
{
	unsigned int i;

	p->n = s->n_blocks < KJITKP_MAX ? s->n_blocks : KJITKP_MAX;
	p->addr = calloc(p->n + 1, sizeof(*p->addr));
	p->count = calloc(p->n + 1, sizeof(*p->count));
	p->err = calloc(p->n + 1, sizeof(*p->err));
	if (!p->addr || !p->count || !p->err)
		return -1;
	p->lockdep = kprobe_lockdep_kernel();
	for (i = 0; i < p->n; i++) {
		const struct sess_func *f = &s->funcs[s->blocks[i].func];

		p->addr[i] = s->blocks[i].addr;
		if (f->deep && (p->lockdep || kprobe_hazard(f->name)))
			p->err[i] = LEFT_OUT;
	}
	return 0;
}

/*
 * Executions of other blocks of @s that run through @b's first address
 * without starting there: blocks are not split at branch targets, so a
 * block entered by a jump (a loop head, translated first in the warm-up
 * run) may also lie inside a longer block that reaches it by falling
 * through. A Kprobe at the address counts both; a block has no exit before
 * its end, so every execution of the longer one passes there (the same
 * rule as kjitcount's).
 */
static uint64_t through(const struct session *s, const struct sess_block *b)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < s->n_blocks; i++)
		if (s->blocks[i].addr < b->addr &&
		    b->addr < s->blocks[i].addr + s->blocks[i].len)
			n += s->blocks[i].count;
	return n;
}

/* The check column: "ok" (kjit's count, plus the executions of longer
 * blocks that run through the address: through()), "MISMATCH", "timing"
 * where a preemption point (or its return) differs - how often
 * preempt_enable() reschedules is decided by ticks and wake-ups, not by
 * COMMAND - or "callee" for a callee followed in deep mode: its Kprobe
 * counts its calls from everywhere, kjit only those from the attached
 * functions. */
static const char *check_of(const struct session *s, const struct sess_block *b,
			    const struct sess_func *f, uint64_t kp)
{
	if (kp == b->count || kp == b->count + through(s, b))
		return "ok";
	if (f->deep)
		return "callee";
	if (b->flags & (KJIT_BLOCK_PREEMPT | KJIT_BLOCK_PREEMPT_RET))
		return "timing";
	return "MISMATCH";
}

/* What each kind of row means, printed once above the table when the
 * kind occurs. */
static void print_legend(unsigned int bad, unsigned int callee,
			 unsigned int timing, unsigned int noprobe,
			 unsigned int left_out, int lockdep)
{
	if (bad)
		printf("#   MISMATCH: an attached function's block counted "
		       "differently. Counts are system-wide and the runs are "
		       "separate: another task calling it in one run and not "
		       "the other shows here too (pin or scope the workload, "
		       "then compare again); a difference that stays is a "
		       "kjit bug worth a report\n");
	if (callee)
		printf("#   callee: a function deep mode followed. kjit counts "
		       "only its calls from the attached functions, its "
		       "Kprobes every call from anywhere: one line per "
		       "function, blocks summed\n");
	if (timing)
		printf("#   timing: a preemption point (or its return): how "
		       "often preempt_enable() reschedules is decided by "
		       "ticks and wake-ups, not by COMMAND\n");
	if (noprobe)
		printf("#   NOPROBE: no Kprobe can sit there (a static call or "
		       "jump label site, an address the kprobe decoder "
		       "refuses): not compared\n");
	if (left_out)
		printf("#   left out: %s; kjit counted it, no Kprobe was armed "
		       "there\n",
		       lockdep ? KPROBE_LOCKDEP_WHY
			       : "a deep callee in " KPROBE_HAZARD_WHY);
}

/* The row kinds of every block, tallied: [0] ok, [1] MISMATCH, [2]
 * callee, [3] timing, [4] not probed (the kernel refused, or left out),
 * [5] of those, left out. */
static void tally(const struct session *s, const struct probes *p,
		  unsigned int n[6])
{
	unsigned int i;

	memset(n, 0, 6 * sizeof(n[0]));
	for (i = 0; i < p->n; i++) {
		const struct sess_block *b = &s->blocks[i];
		const char *c;

		if (p->err[i]) {
			n[4]++;
			n[5] += p->err[i] == LEFT_OUT;
			continue;
		}
		c = check_of(s, b, &s->funcs[b->func], p->count[i]);
		n[c[0] == 'o' ? 0 : c[0] == 'M' ? 1 : c[0] == 'c' ? 2 : 3]++;
	}
}

/* One line for every deep callee: its blocks summed, "ok" when each
 * agreed, else "callee". */
static void print_callee(const struct session *s, const struct probes *p,
			 unsigned int fi)
{
	const struct sess_func *f = &s->funcs[fi];
	uint64_t kj = 0, kp = 0, kj_out = 0;
	unsigned int i, n = 0, differ = 0, out = 0;
	char where[KJIT_NAME_MAX + 24];

	for (i = 0; i < p->n; i++) {
		const struct sess_block *b = &s->blocks[i];

		if (b->func == fi && p->err[i] == LEFT_OUT) {
			out++;
			kj_out += b->count;
		}
		if (b->func != fi || p->err[i])
			continue;
		n++;
		kj += b->count;
		kp += p->count[i];
		differ += check_of(s, b, f, p->count[i])[0] != 'o';
	}
	if (!n && out) {
		snprintf(where, sizeof(where), "%s (%u block%s)", f->name, out,
			 out == 1 ? "" : "s");
		printf("%-40s %-18s %12" PRIu64 " %12s  left out\n", where,
		       "(deep callee)", kj_out, "-");
	}
	if (!n)
		return;
	snprintf(where, sizeof(where), "%s (%u block%s)", f->name, n,
		 n == 1 ? "" : "s");
	printf("%-40s %-18s %12" PRIu64 " %12" PRIu64 "  %s\n", where,
	       "(deep callee)", kj, kp, differ ? "callee" : "ok");
}

/* The verdict first, then what each kind of row means, then the rows:
 * every block of the attached functions, one line per deep callee. */
static void print_counts(const struct session *s, const struct probes *p,
			 uint64_t *kj, uint64_t *kp)
{
	unsigned int i, n[6];
	char where[KJIT_NAME_MAX + 24];

	tally(s, p, n);
	printf("# %u block(s), %u compared, %u mismatch(es), %u not probed\n",
	       p->n, p->n - n[4], n[1], n[4]);
	if (n[5])
		printf("# of those not probed, %u left out: deep callees %s "
		       "(left out, below)\n",
		       n[5],
		       p->lockdep ? "on a lockdep kernel"
				  : "in the kernel's debug machinery");
	if (n[1])
		printf("# verdict: %u block(s) of the attached functions "
		       "disagree (MISMATCH rows); %u agree",
		       n[1], n[0]);
	else
		printf("# verdict: kjit and Kprobes agree on every block of "
		       "the attached functions (%u agree exactly",
		       n[0]);
	if (n[2] || n[3])
		printf("%s %u differ as expected (%u callee, %u timing)",
		       n[1] ? ";" : ",", n[2] + n[3], n[2], n[3]);
	printf("%s\n", n[1] ? "" : ")");
	print_legend(n[1], n[2], n[3], n[4] - n[5], n[5], p->lockdep);
	printf("%-40s %-18s %12s %12s  %s\n", "block", "address", "kjit",
	       "kprobes", "check");
	for (i = 0; i < p->n; i++) {
		const struct sess_block *b = &s->blocks[i];
		const struct sess_func *f = &s->funcs[b->func];

		*kj += b->count;
		*kp += p->err[i] ? 0 : p->count[i];
		if (f->deep)
			continue;
		snprintf(where, sizeof(where), "%s+0x%" PRIx64, f->name,
			 b->addr - f->start);
		if (p->err[i])
			printf(
			    "%-40s 0x%016" PRIx64 " %12" PRIu64
			    " %12s  NOPROBE (%s)%s\n",
			    where, b->addr, b->count, "-", strerror(-p->err[i]),
			    b->flags & KJIT_BLOCK_PREEMPT ? ", preemption point"
							  : "");
		else
			printf("%-40s 0x%016" PRIx64 " %12" PRIu64 " %12" PRIu64
			       "  %s\n",
			       where, b->addr, b->count, p->count[i],
			       check_of(s, b, f, p->count[i]));
	}
	for (i = 0; i < s->n_funcs; i++)
		if (s->funcs[i].deep)
			print_callee(s, p, i);
}

/* The measured runs of one mode: sorted wall times, their spread, the
 * events counted over all of them. */
struct mode {
	const char *name;
	double *t;
	struct spread sp;
	uint64_t events;
};

/* Column units: wall time, or instructions under --icount. */
struct units {
	const char *total; /* median/min/max, in millions */
	const char *added; /* added per event */
};

static const struct units ns_units = {"ms", "ns"};
static const struct units insn_units = {"Minsns", "insns"};

static void print_mode(const struct mode *m, const struct mode *native,
		       int runs, const struct units *u, double *cost,
		       double *noise)
{
	double per_run = (double)m->events / runs;
	char buf[64];

	printf("%-8s %10.3f %10.3f %10.3f", m->name, m->sp.median / 1e6,
	       m->sp.min / 1e6, m->sp.max / 1e6);
	if (m == native) {
		printf(" %12s  %s\n", "-", "-");
		return;
	}
	*cost =
	    (m->sp.median - native->sp.median) / (per_run > 0 ? per_run : 1);
	*noise = noise_floor(&native->sp, per_run);
	cost_format_unit(buf, sizeof(buf), *cost, *noise, 0, u->added);
	printf(" %12" PRIu64 "  %s\n", m->events, buf);
}

static void print_times(const struct mode *m, int runs, int icount,
			uint64_t warm_ns, uint64_t measured_ns)
{
	const struct units *u = icount ? &insn_units : &ns_units;
	double kj = 0, kj_noise = 0, kp = 0, kp_noise = 0;
	char buf[64], h[4][32];

	snprintf(h[0], sizeof(h[0]), "median %s", u->total);
	snprintf(h[1], sizeof(h[1]), "min %s", u->total);
	snprintf(h[2], sizeof(h[2]), "max %s", u->total);
	snprintf(h[3], sizeof(h[3]), "added %s/event", u->added);
	printf("\n%-8s %10s %10s %10s %12s  %s\n", "mode", h[0], h[1], h[2],
	       "events", h[3]);
	print_mode(&m[0], &m[0], runs, u, NULL, NULL);
	print_mode(&m[1], &m[0], runs, u, &kj, &kj_noise);
	print_mode(&m[2], &m[0], runs, u, &kp, &kp_noise);
	ratio_format(buf, sizeof(buf), kp, kp_noise, kj, kj_noise, 0);
	printf("# ratio kprobes/kjit (added %s/event): %s\n", u->added, buf);
	if (icount)
		printf("# --icount: under QEMU -icount shift=0 the guest clock "
		       "advances 1 ns per executed instruction, so these are "
		       "instruction counts, not times\n");
	printf("# %d measured run(s) per mode, each mode after 1 untimed "
	       "warm-up run; events: all measured runs; added = (median - "
	       "native median) / events per run; noise floor \u00b1X = "
	       "(native max - native min) / events per run\n",
	       runs);
	printf("# translation: %.3f ms in kjit's warm-up run (not measured), "
	       "%.3f ms in the measured runs\n",
	       (double)warm_ns / 1e6,
	       (double)(measured_ns > warm_ns ? measured_ns - warm_ns : 0) /
		   1e6);
}

static int compare(int fd, int kfd, const struct args *a)
{
	struct session s = {0};
	struct probes p = {0};
	struct mode m[3] = {
	    {.name = "native"}, {.name = "kjit"}, {.name = "kprobes"}};
	uint64_t warm_ns = 0;
	double ns;
	char cmd[512];
	int i, err = 0;

	for (i = 0; i < 3; i++) {
		m[i].t = calloc((size_t)a->runs, sizeof(double));
		if (!m[i].t)
			err = -1;
	}
	if (err)
		say("out of memory\n");
	if (!err)
		err = run_once(a, "native warm-up", &ns) ||
		      run_all(a, "native", m[0].t, &m[0].sp);
	if (!err)
		err = kjit_run(fd, a, &s, m[1].t, &m[1].sp, &warm_ns);
	if (!err && !s.n_blocks) {
		fprintf(stderr,
			"kjit compare: the command never ran the functions "
			"(no block counted)\n");
		err = -1;
	} else if (!err && probes_alloc(&p, &s)) {
		say("out of memory\n");
		err = -1;
	}
	if (!err)
		err = kprobe_run(kfd, a, &p, m[2].t, &m[2].sp);
	if (!err) {
		command_line(a->cmd, cmd, sizeof(cmd));
		printf("# kjit compare%s: %d run(s) of: %s\n",
		       a->deep ? " --deep" : "", a->runs, cmd);
		print_counts(&s, &p, &m[1].events, &m[2].events);
		limits_print(&s.st, "# ", stdout);
		print_times(m, a->runs, a->icount, warm_ns, s.st.translate_ns);
	}
	for (i = 0; i < 3; i++)
		free(m[i].t);
	free(p.addr);
	free(p.count);
	free(p.err);
	session_free(&s);
	return err ? 1 : 0;
}

int cmd_compare(int argc, char **argv)
{
	struct args a;
	int fd, kfd, rc;

	if (args_parse(argc, argv,
		       ARG_DEEP | ARG_FUNC_OPT | ARG_RUNS | ARG_COMMAND |
			   ARG_ICOUNT | ARG_LIMITS,
		       "compare", &a, stderr))
		return 2;
	/* Kprobes cannot leave kjit's own processes out: both sides count
	 * the same tasks (this one waits for COMMAND meanwhile) */
	a.count_kjit = 1;
	fd = kjit_device_open();
	kfd = fd < 0 ? -1 : open_kprobes();
	rc = kfd < 0 ? 1 : compare(fd, kfd, &a);
	if (kfd >= 0)
		close(kfd);
	if (fd >= 0)
		close(fd);
	args_free(&a);
	return rc;
}
