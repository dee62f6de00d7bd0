/*
 * casewatch.c - run one VM test case under a time limit, and when the limit
 * kills it, say where it was (tests/vm/init.sh).
 *
 *   casewatch LIMIT_S CMD [ARG...]
 *
 * Runs CMD in a process group of its own and waits for it, doing nothing
 * else: many cases count every read(), open() or exit in the guest
 * exactly, so a watcher that polled /proc while they ran would change
 * their counts. What it needs afterwards the kernel keeps on the way: BSD
 * process accounting (acct(2), on for the case only, into a file in /tmp)
 * writes a record as each process of the case exits - its command name,
 * when it began (to the second) and how long it ran (to 10 ms). Past
 * LIMIT_S seconds it prints
 *
 *   casewatch: timed out after LIMIT_S s in: COMMAND (running for T s)
 *   casewatch: steps before it, in order of their end (of N; shorter
 *   casewatch: than 0.5 s left out):
 *   casewatch:   +START_S  DURATION_S  NAME [exit STATUS]
 *
 * (COMMAND: the command line of the newest, deepest process under the
 * case, from /proc; NAME: a process's name as accounting has it), kills the
 * group and exits 137, as `timeout -s KILL` does. Otherwise it exits with
 * CMD's status (128 + the signal for a signalled CMD), after killing what
 * the case left in its group. Without process accounting (no
 * CONFIG_BSD_PROCESS_ACCT_V3) it says so and names the command only.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/acct.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ACCT_FILE "/tmp/.casewatch.acct"
#define CMD_LEN	  160
#define SHOW_MIN  0.5 /* steps shorter than this are counted, not listed */
#define ACCT_HZ	  100 /* AHZ: accounting's clock ticks a second */

static double boot_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
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
	if (!p || sscanf(p + 2, "%*c %d", ppid) != 1)
		return -1;
	for (i = 0; i < 20 && p; i++) /* field 22, starttime */
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &st) != 1)
		return -1;
	*start = st / (double)sysconf(_SC_CLK_TCK);
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

/* The newest child of @pid now, or 0; *@start: when it began. */
static int newest_child(int pid, double *start)
{
	DIR *dir = opendir("/proc");
	struct dirent *d;
	double best = -1, st;
	int c = 0, ppid;

	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		int p = atoi(d->d_name);

		if (p > 0 && !proc_stat(p, &ppid, &st) && ppid == pid &&
		    st >= best)
			best = st, c = p;
	}
	closedir(dir);
	*start = best;
	return c;
}

/* Where the case is: its newest, deepest process, and for how long. */
static void report_where(int top, int limit)
{
	char cmd[CMD_LEN];
	double start = 0, st;
	int p = top, c, depth = 0;

	while ((c = newest_child(p, &st)) && depth++ < 16)
		p = c, start = st;
	if (p == top) {
		printf("casewatch: timed out after %d s in the case's shell "
		       "itself (no command running)\n",
		       limit);
		return;
	}
	proc_cmd(p, cmd, sizeof(cmd));
	printf("casewatch: timed out after %d s in: %s (running for %.1f s)\n",
	       limit, cmd, boot_now() - start);
}

#define MAX_RECS 8192

static struct acct_v3 recs[MAX_RECS];
static char in_case[MAX_RECS];

/* Is @pid the case's shell, a process of the case that exited (a
 * record marked so far), or one of its processes still alive? */
static int of_case(int top, int n, int pid)
{
	double st;
	int k, p = pid, ppid, depth = 0;

	if (pid == top)
		return 1;
	for (k = 0; k < n; k++)
		if (in_case[k] && (int)recs[k].ac_pid == pid)
			return 1;
	while (p > 1 && depth++ < 32 && !proc_stat(p, &ppid, &st)) {
		if (ppid == top)
			return 1;
		p = ppid;
	}
	return 0;
}

/* The steps before it: every process of the case that exited, from the
 * accounting file (every process of the guest that exited meanwhile),
 * in the order they ended. */
static void report_steps(int top, time_t t0)
{
	int fd = open(ACCT_FILE, O_RDONLY), n = 0, k, more = 1;
	int total = 0, hidden = 0, shown = 0;

	if (fd < 0) {
		printf("casewatch: no earlier steps (no process accounting: "
		       "CONFIG_BSD_PROCESS_ACCT_V3)\n");
		return;
	}
	while (n < MAX_RECS && read(fd, &recs[n], sizeof(recs[n])) ==
				  sizeof(recs[n]))
		if (recs[n].ac_version == 3)
			in_case[n++] = 0;
	close(fd);
	while (more) /* a parent's record follows its children's */
		for (k = n - 1, more = 0; k >= 0; k--)
			if (!in_case[k] && of_case(top, n, recs[k].ac_ppid))
				in_case[k] = 1, more = 1;
	for (k = 0; k < n; k++)
		if (in_case[k]) {
			total++;
			hidden += recs[k].ac_etime / ACCT_HZ < SHOW_MIN;
		}
	printf("casewatch: steps before it, in order of their end (of %d; %d "
	       "shorter than %.1f s left out):\n",
	       total, hidden, SHOW_MIN);
	for (k = 0; k < n; k++) {
		double d = recs[k].ac_etime / ACCT_HZ;
		long at = (long)recs[k].ac_btime - (long)t0;

		if (!in_case[k] || d < SHOW_MIN)
			continue;
		printf("casewatch:   +%4ld s  %6.2f s  %.*s%s", at < 0 ? 0 : at,
		       d, (int)sizeof(recs[k].ac_comm), recs[k].ac_comm,
		       recs[k].ac_flag & AFORK ? " (a subshell)" : "");
		if (recs[k].ac_exitcode)
			printf(" exit %u", recs[k].ac_exitcode);
		printf("\n");
		shown++;
	}
	if (!shown)
		printf("casewatch:   (none)\n");
}

/* Wait for @pid up to @limit seconds, in one sleep: SIGCHLD or the end of
 * the limit wakes it. True when it exited, with *status. */
static int wait_limit(pid_t pid, int limit, int *status)
{
	struct timespec end, now, left;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += limit;
	for (;;) {
		pid_t w = waitpid(pid, status, WNOHANG);

		if (w == pid)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0)
			left.tv_sec--, left.tv_nsec += 1000000000L;
		if (left.tv_sec < 0)
			return 0;
		sigtimedwait(&set, NULL, &left);
	}
}

int main(int argc, char **argv)
{
	int limit, status, fd, accounting;
	sigset_t set;
	time_t t0;
	pid_t pid;

	if (argc < 3 || (limit = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: casewatch LIMIT_S CMD [ARG...]\n");
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	fd = open(ACCT_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0)
		close(fd);
	accounting = fd >= 0 && !acct(ACCT_FILE);
	if (!accounting)
		unlink(ACCT_FILE);
	t0 = time(NULL);
	pid = fork();
	if (pid < 0) {
		perror("casewatch: fork");
		return 2;
	}
	if (!pid) {
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		setpgid(0, 0);
		execvp(argv[2], argv + 2);
		perror("casewatch: exec");
		_exit(127);
	}
	setpgid(pid, pid);
	if (!wait_limit(pid, limit, &status)) {
		if (accounting)
			acct(NULL);
		report_where(pid, limit);
		report_steps(pid, t0);
		fflush(stdout);
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		unlink(ACCT_FILE);
		return 137;
	}
	if (accounting)
		acct(NULL);
	unlink(ACCT_FILE);
	/* what the group left behind goes too */
	kill(-pid, SIGKILL);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
