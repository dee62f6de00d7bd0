/*
 * cmd_compare.c - `kjit compare -f FUNC... [-n RUNS] -- COMMAND`: COMMAND
 * RUNS times natively, RUNS times under kjit, RUNS times with counting
 * Kprobes (kjit_kprobes.ko) on the block addresses kjit found; counts side
 * by side, then wall time and cost per counted event of each.
 *
 * The runs are separate because a Kprobe on an address kjit translated is
 * never hit while kjit runs (kjit runs the copy). Counts are system-wide,
 * so activity besides COMMAND can make them differ; mismatches are flagged,
 * not fatal (exit status 0 once the three runs succeed).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "../kmod/kjit_ioctl.h"
#include "../kmod/companion/kjit_kprobes_ioctl.h"
#include "args.h"
#include "attach.h"
#include "commands.h"
#include "device.h"
#include "runcmd.h"
#include "session.h"

struct probes {
	uint64_t *addr, *count;
	int32_t *err;
	unsigned int n;
};

static int open_kprobes(void)
{
	int fd = open(KJITKP_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		fprintf(stderr, "kjit: compare: %s: %s\n", KJITKP_DEVICE,
			errno == ENOENT
			    ? "not found: load the Kprobes companion "
			      "module first (insmod kjit_kprobes.ko)"
			    : strerror(errno));
	return fd;
}

/* Runs COMMAND a->runs times; total wall ns, or -1. */
static double run_all(const struct args *a, const char *mode)
{
	double total = 0, ns;
	int i, st;

	for (i = 0; i < a->runs; i++) {
		st = run_command(a->cmd, &ns);
		if (st < 0)
			return -1;
		if (st)
			fprintf(
			    stderr,
			    "kjit: compare: warning: %s exited with status %d "
			    "(%s run)\n",
			    a->cmd[0], st, mode);
		total += ns;
	}
	return total;
}

static double kjit_run(int fd, const struct args *a, struct session *s)
{
	double ns;
	int err;

	if (attach_funcs(fd, a, "compare"))
		return -1;
	ns = run_all(a, "kjit");
	if (ioctl(fd, KJIT_IOC_DETACH, 0))
		fprintf(stderr, "kjit: compare: detach: %s\n", strerror(errno));
	if (ns < 0)
		return -1;
	err = session_read_device(s, fd);
	if (err) {
		fprintf(stderr,
			"kjit: compare: cannot read kjit's counts: %s\n",
			strerror(-err));
		return -1;
	}
	return ns;
}

static double kprobe_run(int kfd, const struct args *a, struct probes *p)
{
	struct kjitkp_arm arm = {.size = sizeof(arm),
				 .n = p->n,
				 .addrs = (uintptr_t)p->addr,
				 .errs = (uintptr_t)p->err};
	struct kjitkp_read rd = {
	    .size = sizeof(rd), .n = p->n, .counts = (uintptr_t)p->count};
	double ns;

	if (ioctl(kfd, KJITKP_IOC_ARM, &arm) ||
	    ioctl(kfd, KJITKP_IOC_RESET, 0)) {
		fprintf(stderr, "kjit: compare: cannot arm Kprobes: %s\n",
			strerror(errno));
		return -1;
	}
	ns = run_all(a, "kprobes");
	if (ioctl(kfd, KJITKP_IOC_READ, &rd)) {
		fprintf(stderr,
			"kjit: compare: cannot read Kprobe counts: %s\n",
			strerror(errno));
		ns = -1;
	}
	arm.n = 0;
	ioctl(kfd, KJITKP_IOC_ARM, &arm);
	return ns;
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
	for (i = 0; i < p->n; i++)
		p->addr[i] = s->blocks[i].addr;
	return 0;
}

/* The check column: "ok", "MISMATCH", or "timing" where a preemption
 * point (or its return) differs - how often preempt_enable() reschedules
 * is decided by ticks and wake-ups, not by COMMAND. */
static const char *check_of(const struct sess_block *b, uint64_t kp)
{
	if (kp == b->count)
		return "ok";
	if (b->flags & (KJIT_BLOCK_PREEMPT | KJIT_BLOCK_PREEMPT_RET))
		return "timing";
	return "MISMATCH";
}

static void print_counts(const struct session *s, const struct probes *p,
			 uint64_t *kj, uint64_t *kp)
{
	unsigned int i, bad = 0, noprobe = 0, timing = 0;
	char where[KJIT_NAME_MAX + 24];
	const char *check;

	printf("%-40s %-18s %12s %12s  %s\n", "block", "address", "kjit",
	       "kprobes", "check");
	for (i = 0; i < p->n; i++) {
		const struct sess_block *b = &s->blocks[i];
		const struct sess_func *f = &s->funcs[b->func];

		snprintf(where, sizeof(where), "%s+0x%" PRIx64, f->name,
			 b->addr - f->start);
		*kj += b->count;
		if (p->err[i]) {
			printf(
			    "%-40s 0x%016" PRIx64 " %12" PRIu64
			    " %12s  NOPROBE (%s)%s\n",
			    where, b->addr, b->count, "-", strerror(-p->err[i]),
			    b->flags & KJIT_BLOCK_PREEMPT ? ", preemption point"
							  : "");
			noprobe++;
			continue;
		}
		*kp += p->count[i];
		check = check_of(b, p->count[i]);
		bad += check[0] == 'M';
		timing += check[0] == 't';
		printf("%-40s 0x%016" PRIx64 " %12" PRIu64 " %12" PRIu64
		       "  %s\n",
		       where, b->addr, b->count, p->count[i], check);
	}
	printf("# %u block(s), %u compared, %u mismatch(es), %u not probed\n",
	       p->n, p->n - noprobe, bad, noprobe);
	if (timing)
		printf("# %u difference(s) at preemption points (timing, not "
		       "COMMAND, decides how often preempt_enable() "
		       "reschedules)\n",
		       timing);
}

static void print_times(double native, double kjit, double kprobes, uint64_t kj,
			uint64_t kp, int runs, uint64_t translate_ns)
{
	printf("\n%-8s %12s %12s %12s %12s\n", "mode", "wall ms", "added ms",
	       "events", "ns/event");
	printf("%-8s %12.3f %12s %12s %12s\n", "native", native / 1e6, "-", "-",
	       "-");
	printf("%-8s %12.3f %12.3f %12" PRIu64 " %12.1f\n", "kjit", kjit / 1e6,
	       (kjit - native) / 1e6, kj,
	       kj ? (kjit - native) / (double)kj : 0.0);
	printf("%-8s %12.3f %12.3f %12" PRIu64 " %12.1f\n", "kprobes",
	       kprobes / 1e6, (kprobes - native) / 1e6, kp,
	       kp ? (kprobes - native) / (double)kp : 0.0);
	printf("# wall time of %d run(s) each; per event = added time / events "
	       "counted\n",
	       runs);
	printf("# kjit's added time includes %.3f ms translating (first "
	       "execution of "
	       "each block)\n",
	       (double)translate_ns / 1e6);
}

static int compare(int fd, int kfd, const struct args *a)
{
	struct session s = {0};
	struct probes p = {0};
	double native, kjit, kprobes = -1;
	uint64_t kj = 0, kp = 0;
	char cmd[512];

	native = run_all(a, "native");
	kjit = native < 0 ? -1 : kjit_run(fd, a, &s);
	if (kjit >= 0 && !s.n_blocks)
		fprintf(stderr,
			"kjit: compare: the command never ran the functions "
			"(no block counted)\n");
	else if (kjit >= 0 && probes_alloc(&p, &s))
		fprintf(stderr, "kjit: out of memory\n");
	else if (kjit >= 0)
		kprobes = kprobe_run(kfd, a, &p);
	if (kprobes >= 0) {
		command_line(a->cmd, cmd, sizeof(cmd));
		printf("# kjit compare: %d run(s) of: %s\n", a->runs, cmd);
		print_counts(&s, &p, &kj, &kp);
		print_times(native, kjit, kprobes, kj, kp, a->runs,
			    s.st.translate_ns);
	}
	free(p.addr);
	free(p.count);
	free(p.err);
	session_free(&s);
	return kprobes >= 0 ? 0 : 1;
}

int cmd_compare(int argc, char **argv)
{
	struct args a;
	int fd, kfd, rc;

	if (args_parse(argc, argv, ARG_FUNC_OPT | ARG_RUNS | ARG_COMMAND,
		       "compare", &a, stderr))
		return 2;
	fd = kjit_device_open();
	if (fd < 0)
		return 1;
	kfd = open_kprobes();
	if (kfd < 0) {
		close(fd);
		return 1;
	}
	rc = compare(fd, kfd, &a);
	close(kfd);
	close(fd);
	return rc;
}
