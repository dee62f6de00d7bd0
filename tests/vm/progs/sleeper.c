/*
 * sleeper.c - a child that sleeps inside pipe_read() until told to wake.
 *
 * Prints "child <pid> asleep" once the child is blocked in read() on an
 * empty pipe (its writer end stays open), then waits for SIGUSR1, writes one
 * byte, and exits with the child's status: 0 when its read() returned that
 * byte. Used to detach and unload kjit under a task sleeping in
 * instrumented code.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int child_read(int fd)
{
	char c = 0;

	return read(fd, &c, 1) == 1 && c == 'x' ? 0 : 1;
}

int main(void)
{
	int p[2], status, sig;
	sigset_t set;
	pid_t pid;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
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
