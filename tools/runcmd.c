/* runcmd.c - fork/exec/wait with wall-clock timing (see runcmd.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "runcmd.h"

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* While COMMAND runs, ^C and ^\ are its business: the tool must live on
 * to detach (as system(3) does). */
static void ignore_interrupts(struct sigaction *old)
{
	struct sigaction ign = {.sa_handler = SIG_IGN};

	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old[0]);
	sigaction(SIGQUIT, &ign, &old[1]);
}

static void restore_interrupts(const struct sigaction *old)
{
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGQUIT, &old[1], NULL);
}

static void exec_child(char **cmd, const struct sigaction *old)
{
	restore_interrupts(old);
	execvp(cmd[0], cmd);
	fprintf(stderr, "kjit: cannot run %s: %s\n", cmd[0], strerror(errno));
	_exit(127);
}

int run_command(char **cmd, double *ns)
{
	struct sigaction old[2];
	double t0 = now_ns();
	int status, rc;
	pid_t pid;

	fflush(NULL);
	ignore_interrupts(old);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "kjit: cannot fork: %s\n", strerror(errno));
		restore_interrupts(old);
		return -1;
	}
	if (!pid)
		exec_child(cmd, old);
	while ((rc = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	restore_interrupts(old);
	if (rc < 0)
		return -1;
	*ns = now_ns() - t0;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

void command_line(char **cmd, char *buf, unsigned long size)
{
	size_t used = 0;
	int i;

	buf[0] = 0;
	for (i = 0; cmd[i] && used + 1 < size; i++) {
		int n = snprintf(buf + used, size - used, "%s%s", i ? " " : "",
				 cmd[i]);

		if (n < 0)
			break;
		used += (size_t)n;
	}
	for (used = 0; buf[used]; used++)
		if (buf[used] == '\n' || buf[used] == '\r')
			buf[used] = ' ';
}
