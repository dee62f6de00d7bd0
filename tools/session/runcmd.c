/* runcmd.c - fork/exec/wait with wall-clock timing (see runcmd.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "runcmd.h"
#include "stopsig.h"
#include "tools/report/say.h"

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* While COMMAND runs, ^C and ^\ are its business: the tool must live on
 * to detach (as system(3) does); SIGTERM and SIGHUP sent to the tool
 * (timeout(1), a closed terminal, a kill) are passed on to the command,
 * and the tool lives on to detach and save, as after ^C. */
static struct stopsig stops; /* while a command is held or runs */

int run_command_stop_signal(void)
{
	return stopsig_seen();
}

static void exec_child(char **cmd)
{
	stopsig_restore_in_child(&stops, 0);
	execvp(cmd[0], cmd);
	say("cannot run %s: %s\n", cmd[0], strerror(errno));
	_exit(127);
}

/* Wait for @pid; its exit status, 128+signal, or -1. */
static int wait_for(pid_t pid)
{
	int status, rc;

	while ((rc = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	stopsig_release(&stops);
	if (rc < 0)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int run_command_start(char **cmd, struct runcmd *r)
{
	int p[2];
	char c;

	fflush(NULL);
	if (pipe(p)) {
		say("cannot make a pipe: %s\n", strerror(errno));
		return -1;
	}
	stopsig_take(&stops, true);
	r->pid = fork();
	if (r->pid < 0) {
		say("cannot fork: %s\n", strerror(errno));
		stopsig_release(&stops);
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!r->pid) {
		close(p[1]);
		/* a SIGTERM the tool passes on now ends the child here */
		stopsig_restore_in_child(&stops, SIGTERM);
		stopsig_restore_in_child(&stops, SIGHUP);
		if (read(p[0], &c, 1) != 1) /* the tool gave up on it */
			_exit(127);
		close(p[0]);
		exec_child(cmd);
	}
	close(p[0]);
	r->go = p[1];
	stopsig_pass_to(r->pid);
	return 0;
}

int run_command_finish(struct runcmd *r, double *ns)
{
	int status;

	r->t0 = now_ns();
	if (stopsig_seen()) { /* asked to stop before the command ran */
		int sig = stopsig_seen();

		run_command_abort(r);
		*ns = 0;
		return 128 + sig;
	}
	if (write(r->go, "g", 1) != 1) {
		close(r->go);
		wait_for(r->pid);
		return -1;
	}
	close(r->go);
	status = wait_for(r->pid);
	*ns = now_ns() - r->t0;
	return status;
}

void run_command_abort(struct runcmd *r)
{
	close(r->go); /* its read sees end of file: it exits 127 */
	wait_for(r->pid);
}

int run_command(char **cmd, double *ns)
{
	struct runcmd r;

	if (run_command_start(cmd, &r))
		return -1;
	return run_command_finish(&r, ns);
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
