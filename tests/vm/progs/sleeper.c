/*
 * sleeper.c - a child that sleeps inside pipe_read() until told to wake.
 *
 * Prints "child <pid> asleep" once the child is blocked in read() on an
 * empty pipe (its writer end stays open), then waits for SIGUSR1, writes one
 * byte, and exits with the child's status: 0 when its read() returned that
 * byte. Used to detach and unload kjit under a task sleeping in
 * instrumented code.
 *
 * `sleeper exit`: the child is asleep inside do_exit() instead: it is
 * traced with PTRACE_O_TRACEEXIT and calls _exit(7), so it stops at
 * PTRACE_EVENT_EXIT (do_exit -> ptrace_event -> ptrace_stop), before
 * exit_notify(). On SIGUSR1 the parent lets it go on and exits 0 when it
 * exited with status 7.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static int child_read(int fd)
{
	char c = 0;

	return read(fd, &c, 1) == 1 && c == 'x' ? 0 : 1;
}

/* The child stopped at PTRACE_EVENT_EXIT until SIGUSR1 (see above). */
static int exit_stop(const sigset_t *set)
{
	int status, sig;
	pid_t pid = fork();

	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(2);
		raise(SIGSTOP);
		_exit(7);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_TRACEEXIT) ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL) ||
	    waitpid(pid, &status, 0) != pid ||
	    status >> 8 != (SIGTRAP | (PTRACE_EVENT_EXIT << 8)))
		return 2;
	printf("child %d asleep\n", (int)pid);
	fflush(stdout);
	sigwait(set, &sig);
	if (ptrace(PTRACE_CONT, pid, NULL, NULL) ||
	    waitpid(pid, &status, 0) != pid)
		return 2;
	printf("child exit %s\n",
	       WIFEXITED(status) && WEXITSTATUS(status) == 7 ? "ok" : "FAILED");
	return WIFEXITED(status) && WEXITSTATUS(status) == 7 ? 0 : 3;
}

int main(int argc, char **argv)
{
	int p[2], status, sig;
	sigset_t set;
	pid_t pid;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (argc > 1 && !strcmp(argv[1], "exit"))
		return exit_stop(&set);
	if (pipe(p))
		return 2;
	pid = fork();
	if (pid == 0)
		_exit(child_read(p[0]));
	usleep(300000);
	printf("child %d asleep\n", (int)pid);
	fflush(stdout);
	sigwait(&set, &sig);
	if (write(p[1], "x", 1) != 1 || waitpid(pid, &status, 0) != pid)
		return 2;
	printf("child read %s\n",
	       WIFEXITED(status) && !WEXITSTATUS(status) ? "ok" : "FAILED");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}
