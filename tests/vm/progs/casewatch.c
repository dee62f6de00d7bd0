/*
 * casewatch.c - run one VM test case under a time limit, and when the limit
 * kills it, say where it was (tests/vm/init.sh).
 *
 *   casewatch LIMIT_S CMD [ARG...]
 *
 * Runs CMD in a process group of its own. Every 200 ms it looks at CMD's
 * children in /proc: each one is a step of the case (a command the case's
 * shell ran, or a subshell); it notes when each began (its start time in
 * /proc/PID/stat) and when it was last seen. Past LIMIT_S seconds it prints
 *
 *   casewatch: timed out after LIMIT_S s in: COMMAND (running for T s)
 *   casewatch: steps before it, in order (of N; shorter than 0.5 s left out):
 *   casewatch:   +START_S  DURATION_S  COMMAND
 *
 * (COMMAND: the command line of the deepest process under the step, with
 * the step's own when they differ), kills the group and exits 137, as
 * `timeout -s KILL` does. Otherwise it exits with CMD's status (128 + the
 * signal for a signalled CMD). Durations are sampled: within 0.2 s.
 *
 * It has no work of its own while the case runs but a scan of /proc five
 * times a second.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_STEPS 4096
#define MAX_PROCS 1024
#define CMD_LEN	  160
#define POLL_NS	  200000000L
#define SHOW_MIN  0.5 /* steps shorter than this are counted, not listed */

struct step {
	int pid;
	double start, last, gone; /* seconds since the case began: began,
				     last seen, first seen gone */
	char cmd[CMD_LEN];
	int ended;
};

static struct step steps[MAX_STEPS];
static int n_steps, dropped;
static double ticks;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* /proc/PID/stat: parent and start time (seconds since boot); 0 or -1. */
static int proc_stat(int pid, int *ppid, double *start)
{
	char path[64], buf[1024], *p;
	unsigned long long st = 0;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')'); /* the name may hold blanks */
	if (!p)
		return -1;
	/* after ")": state ppid ... field 22 (starttime) is the 20th */
	if (sscanf(p + 2, "%*c %d", ppid) != 1)
		return -1;
	for (i = 0; i < 20 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &st) != 1)
		return -1;
	*start = st / ticks;
	return 0;
}

/* The command line of @pid, blanks between its words, into @buf. */
static void proc_cmd(int pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n, i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	buf[0] = 0;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0) {
		buf[0] = 0;
		return;
	}
	while (n > 0 && !buf[n - 1])
		n--;
	for (i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = 0;
}

struct proc {
	int pid, ppid;
	double start;
};

static struct proc procs[MAX_PROCS];
static int n_procs;

static void scan_procs(void)
{
	struct dirent *d;
	DIR *dir = opendir("/proc");

	n_procs = 0;
	if (!dir)
		return;
	while ((d = readdir(dir)) && n_procs < MAX_PROCS) {
		int pid = atoi(d->d_name), ppid;
		double st;

		if (pid > 0 && !proc_stat(pid, &ppid, &st))
			procs[n_procs++] = (struct proc){pid, ppid, st};
	}
	closedir(dir);
}

/* The newest child of @pid in the last scan, or 0. */
static int newest_child(int pid)
{
	double best = -1;
	int i, c = 0;

	for (i = 0; i < n_procs; i++)
		if (procs[i].ppid == pid && procs[i].start >= best)
			best = procs[i].start, c = procs[i].pid;
	return c;
}

/* What step @pid runs: its command line, and the deepest (newest)
 * descendant's when that is another program (a subshell's command). */
static void step_cmd(int pid, char *buf, size_t size)
{
	char own[CMD_LEN], deep[CMD_LEN];
	int p = pid, c, depth = 0;

	proc_cmd(pid, own, sizeof(own));
	while ((c = newest_child(p)) && depth++ < 16)
		p = c;
	if (p == pid) {
		snprintf(buf, size, "%s", own);
		return;
	}
	proc_cmd(p, deep, sizeof(deep));
	if (!strcmp(own, deep))
		snprintf(buf, size, "%s", own);
	else
		snprintf(buf, size, "%.100s (in: %.50s)", deep, own);
}

/* One look at the case's children (@top: the case's process). */
static void sample(int top, double t0, double boot_t0)
{
	int i, k;

	scan_procs();
	for (k = 0; k < n_steps; k++)
		if (!steps[k].ended)
			steps[k].ended = -1; /* unless seen again below */
	for (i = 0; i < n_procs; i++) {
		if (procs[i].ppid != top)
			continue;
		for (k = n_steps - 1; k >= 0; k--)
			if (steps[k].pid == procs[i].pid && steps[k].ended <= 0)
				break;
		if (k < 0) {
			if (n_steps == MAX_STEPS) {
				dropped++;
				continue;
			}
			k = n_steps++;
			steps[k].pid = procs[i].pid;
			steps[k].start = procs[i].start - boot_t0;
			if (steps[k].start < 0)
				steps[k].start = 0;
		}
		steps[k].ended = 0;
		steps[k].last = now() - t0;
		step_cmd(procs[i].pid, steps[k].cmd, sizeof(steps[k].cmd));
	}
	for (k = 0; k < n_steps; k++)
		if (steps[k].ended < 0) {
			steps[k].ended = 1;
			steps[k].gone = now() - t0;
		}
}

/* How long step @k ran: to the middle of its last sample and the next. */
static double step_len(const struct step *s)
{
	return (s->ended ? (s->last + s->gone) / 2 : s->last) - s->start;
}

static void report(int limit)
{
	int k, shown = 0, hidden = 0, cur = -1;

	for (k = n_steps - 1; k >= 0 && cur < 0; k--)
		if (!steps[k].ended)
			cur = k;
	if (cur >= 0)
		printf("casewatch: timed out after %d s in: %s (running for "
		       "%.1f s)\n",
		       limit, steps[cur].cmd, step_len(&steps[cur]));
	else
		printf("casewatch: timed out after %d s in the case's shell "
		       "itself (no command running)\n",
		       limit);
	for (k = 0; k < n_steps; k++)
		if (k != cur && step_len(&steps[k]) < SHOW_MIN)
			hidden++;
	printf("casewatch: steps before it, in order (of %d; %d shorter than "
	       "%.1f s left out%s):\n",
	       n_steps - (cur >= 0), hidden, SHOW_MIN,
	       dropped ? ", more not recorded" : "");
	for (k = 0; k < n_steps; k++) {
		double d = step_len(&steps[k]);

		if (k == cur || d < SHOW_MIN)
			continue;
		printf("casewatch:   +%6.1f s  %6.1f s  %s\n", steps[k].start, d,
		       steps[k].cmd);
		shown++;
	}
	if (!shown)
		printf("casewatch:   (none)\n");
	fflush(stdout);
}

/* Seconds since boot now (CLOCK_BOOTTIME, what /proc/PID/stat counts). */
static double uptime(void)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct timespec poll = {0, POLL_NS};
	double t0, boot_t0;
	int limit, status;
	pid_t pid;

	if (argc < 3 || (limit = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: casewatch LIMIT_S CMD [ARG...]\n");
		return 2;
	}
	ticks = sysconf(_SC_CLK_TCK);
	t0 = now();
	boot_t0 = uptime();
	pid = fork();
	if (pid < 0) {
		perror("casewatch: fork");
		return 2;
	}
	if (!pid) {
		setpgid(0, 0);
		execvp(argv[2], argv + 2);
		perror("casewatch: exec");
		_exit(127);
	}
	setpgid(pid, pid);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return 2;
		if (now() - t0 >= limit) {
			sample(pid, t0, boot_t0);
			report(limit);
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return 137;
		}
		sample(pid, t0, boot_t0);
		nanosleep(&poll, NULL);
	}
	/* what the group left behind goes too, as with timeout(1) */
	kill(-pid, SIGKILL);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
