/* runcmd.c - fork/exec/wait with wall-clock timing (see runcmd.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "runcmd.h"
#include "tools/report/say.h"

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* SIGTERM or SIGHUP sent to the tool (timeout(1), a closed terminal, a
 * kill) while a command is held or runs: it is passed on to the command,
 * and the tool lives on to detach and save, as after ^C. */
static volatile sig_atomic_t stop_sig;
static volatile pid_t tool_pid, child_pid;

static void pass_on(int sig)
{
	stop_sig = sig;
	/* the child, between fork and exec, has this handler too: only the
	 * tool passes it on (a held child is stopped by run_command_finish) */
	if (getpid() == tool_pid && child_pid > 0)
		kill(child_pid, sig);
}

/* Passes @sig on, unless the tool was started with it ignored (nohup
 * kjit record ...: a hangup is no stop, and the command ignores it too). */
static void pass_on_unless_ignored(int sig, struct sigaction *old)
{
	struct sigaction fwd = {.sa_handler = pass_on};

	sigemptyset(&fwd.sa_mask);
	sigaction(sig, NULL, old);
	if (old->sa_handler != SIG_IGN)
		sigaction(sig, &fwd, NULL);
}

/* While COMMAND runs, ^C and ^\ are its business: the tool must live on
 * to detach (as system(3) does); SIGTERM and SIGHUP are passed on. */
static void ignore_interrupts(struct sigaction *old)
{
	struct sigaction ign = {.sa_handler = SIG_IGN};

	sigemptyset(&ign.sa_mask);
	tool_pid = getpid();
	child_pid = 0;
	sigaction(SIGINT, &ign, &old[0]);
	sigaction(SIGQUIT, &ign, &old[1]);
	pass_on_unless_ignored(SIGTERM, &old[2]);
	pass_on_unless_ignored(SIGHUP, &old[3]);
}

static void restore_interrupts(const struct sigaction *old)
{
	child_pid = 0;
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGQUIT, &old[1], NULL);
	sigaction(SIGTERM, &old[2], NULL);
	sigaction(SIGHUP, &old[3], NULL);
}

int run_command_stop_signal(void)
{
	return stop_sig;
}

static void exec_child(char **cmd, const struct sigaction *old)
{
	restore_interrupts(old);
	execvp(cmd[0], cmd);
	say("cannot run %s: %s\n", cmd[0], strerror(errno));
	_exit(127);
}

static struct sigaction saved[4]; /* while a command runs */

/* Wait for @pid; its exit status, 128+signal, or -1. */
static int wait_for(pid_t pid)
{
	int status, rc;

	while ((rc = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	restore_interrupts(saved);
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
	ignore_interrupts(saved);
	r->pid = fork();
	if (r->pid < 0) {
		say("cannot fork: %s\n", strerror(errno));
		restore_interrupts(saved);
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!r->pid) {
		close(p[1]);
		/* a SIGTERM the tool passes on now ends the child here */
		sigaction(SIGTERM, &saved[2], NULL);
		sigaction(SIGHUP, &saved[3], NULL);
		if (read(p[0], &c, 1) != 1) /* the tool gave up on it */
			_exit(127);
		close(p[0]);
		exec_child(cmd, saved);
	}
	close(p[0]);
	r->go = p[1];
	child_pid = r->pid;
	return 0;
}

int run_command_finish(struct runcmd *r, double *ns)
{
	int status;

	r->t0 = now_ns();
	if (stop_sig) { /* asked to stop before the command ran */
		run_command_abort(r);
		*ns = 0;
		return 128 + stop_sig;
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
