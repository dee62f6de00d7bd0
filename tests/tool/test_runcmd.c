/*
 * test_runcmd.c - the workload command of record and compare
 * (tools/session/runcmd.c) when the tool itself is told to stop: SIGTERM or
 * SIGHUP sent to the tool while the command runs is passed on to the command,
 * and run_command() returns its status (128 + the signal) to a tool still alive
 * to detach and save; sent while the command is held before exec (record
 * attaches then), the command never runs; a tool started with SIGHUP ignored
 * (nohup) takes no hangup for a stop. Each check runs in a child process
 * that plays the tool, so the signals hit only it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "tools/session/runcmd.h"
#include "check.h"

static double secs(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The tool: runs a command that creates MARK and sleeps 30 s; its parent
 * sends @sig once MARK exists (the command runs, so the tool's handlers are
 * in place: a fixed 0.3 s was not always enough on a loaded host, and the
 * signal then killed the tool). Exit 0 if run_command returned 128+sig
 * within 10 s and the stop was seen. */
static int tool_running(int sig, const char *mark)
{
	char *cmd[] = {"sh", "-c", "touch \"$0\" && exec sleep 30",
		       (char *)mark, NULL};
	double ns, t0 = secs();
	int st = run_command(cmd, &ns);

	if (st != 128 + sig) {
		fprintf(stderr, "status %d, want %d\n", st, 128 + sig);
		return 1;
	}
	if (run_command_stop_signal() != sig) {
		fprintf(stderr, "stop signal %d\n", run_command_stop_signal());
		return 1;
	}
	return secs() - t0 < 10 ? 0 : 1;
}

/* The tool: holds `touch MARK` before exec, is sent @sig (by itself, as a
 * timeout would), then lets it go: it must not run. */
static int tool_held(int sig, const char *mark)
{
	char *cmd[] = {"touch", (char *)mark, NULL};
	struct runcmd r;
	double ns;
	int st;

	if (run_command_start(cmd, &r))
		return 1;
	kill(getpid(), sig);
	st = run_command_finish(&r, &ns);
	if (st != 128 + sig || !access(mark, F_OK)) {
		fprintf(stderr, "held: status %d, %s\n", st,
			access(mark, F_OK) ? "not run" : "ran");
		return 1;
	}
	/* the handlers are the tool's own again: SIG_DFL */
	return 0;
}

/* Forks the tool, sends it @sig when @send, once @mark exists (at most
 * 30 s on); its exit status. */
static int as_tool(int (*fn)(int, const char *), int sig, const char *mark,
		   int send)
{
	pid_t pid;
	int status;

	fflush(NULL); /* the child's run_command flushes: nothing twice */
	pid = fork();
	if (!pid)
		_exit(fn(sig, mark));
	if (send) {
		double t0 = secs();

		while (access(mark, F_OK) && secs() - t0 < 30)
			usleep(10 * 1000);
		kill(pid, sig);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status)
				 : 1000 + WTERMSIG(status);
}

static int running(int sig, const char *mark)
{
	return tool_running(sig, mark);
}

/* The tool, started with SIGHUP ignored (nohup): runs a command that
 * creates MARK and sleeps 1 s; a SIGHUP sent meanwhile is no stop. */
static int tool_nohup(int sig, const char *mark)
{
	char *cmd[] = {"sh", "-c", "touch \"$0\" && sleep 1", (char *)mark,
		       NULL};
	double ns;
	int st;

	signal(sig, SIG_IGN);
	st = run_command(cmd, &ns);
	if (st || run_command_stop_signal()) {
		fprintf(stderr, "nohup: status %d, stop signal %d\n", st,
			run_command_stop_signal());
		return 1;
	}
	return 0;
}

int main(void)
{
	char mark[] = "/tmp/kjit-runcmd-XXXXXX";
	int fd = mkstemp(mark), sigs[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
	sigset_t none;
	unsigned int i;

	area = "tool.runcmd";
	/* the checks are of the tool's own handling: not of what this test
	 * inherited (under nohup SIGHUP came ignored, and the command then
	 * ignored the SIGHUP passed on to it) */
	for (i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (fd >= 0) {
		close(fd);
		unlink(mark);
	}
	check("sigterm_passed_on", as_tool(running, SIGTERM, mark, 1) == 0,
	      "SIGTERM to the tool did not end the command with status 143, "
	      "or killed the tool");
	unlink(mark);
	check("sighup_passed_on", as_tool(running, SIGHUP, mark, 1) == 0,
	      "SIGHUP to the tool did not end the command with status 129, "
	      "or killed the tool");
	unlink(mark);
	check("sighup_ignored_by_nohup",
	      as_tool(tool_nohup, SIGHUP, mark, 1) == 0,
	      "a tool started with SIGHUP ignored took a SIGHUP for a stop, "
	      "or died of it");
	unlink(mark);
	check("sigterm_while_held", as_tool(tool_held, SIGTERM, mark, 0) == 0,
	      "a command held before exec ran after SIGTERM, or the tool died");
	unlink(mark);
	return failures ? 1 : 0;
}
