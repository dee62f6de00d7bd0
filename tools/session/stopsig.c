/* stopsig.c - the signals that stop a recorder (see stopsig.h). */
#include <errno.h>
#include <unistd.h>
#include "stopsig.h"

static const int stop_sigs[STOPSIG_N] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};

static volatile sig_atomic_t seen; /* the first stop signal seen */
static volatile pid_t owner;	   /* the process that took them */
static volatile pid_t pass_to;	   /* the command, while it runs */

static void on_stop(int sig)
{
	int e = errno;

	if (!seen)
		seen = sig;
	if (pass_to > 0 && getpid() == owner)
		kill(pass_to, sig);
	errno = e;
}

static bool is_terminal(int sig)
{
	return sig == SIGINT || sig == SIGQUIT;
}

void stopsig_take(struct stopsig *s, bool terminal_to_command)
{
	struct sigaction take = {.sa_handler = on_stop};
	struct sigaction ign = {.sa_handler = SIG_IGN};
	unsigned int i;

	seen = 0;
	pass_to = 0;
	owner = getpid();
	sigemptyset(&s->set);
	for (i = 0; i < STOPSIG_N; i++)
		sigaddset(&s->set, stop_sigs[i]);
	sigprocmask(SIG_SETMASK, NULL, &s->old_mask);
	take.sa_mask = s->set; /* one handler at a time */
	sigemptyset(&ign.sa_mask);
	for (i = 0; i < STOPSIG_N; i++) {
		sigaction(stop_sigs[i], NULL, &s->old[i]);
		/* one the tool was started with ignored (nohup) is no stop */
		if (s->old[i].sa_handler == SIG_IGN)
			continue;
		sigaction(stop_sigs[i],
			  terminal_to_command && is_terminal(stop_sigs[i])
			      ? &ign
			      : &take,
			  NULL);
	}
}

void stopsig_hold(const struct stopsig *s)
{
	sigprocmask(SIG_BLOCK, &s->set, NULL);
}

void stopsig_let_in(const struct stopsig *s)
{
	sigprocmask(SIG_UNBLOCK, &s->set, NULL);
}

void stopsig_release(const struct stopsig *s)
{
	unsigned int i;

	pass_to = 0;
	stopsig_let_in(s); /* held ones: on_stop(), they are the tool's own */
	for (i = 0; i < STOPSIG_N; i++)
		sigaction(stop_sigs[i], &s->old[i], NULL);
	sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
}

void stopsig_restore_in_child(const struct stopsig *s, int sig)
{
	unsigned int i;

	for (i = 0; i < STOPSIG_N; i++)
		if (!sig || stop_sigs[i] == sig)
			sigaction(stop_sigs[i], &s->old[i], NULL);
	if (!sig)
		sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
}

void stopsig_pass_to(pid_t pid)
{
	pass_to = pid;
}

int stopsig_seen(void)
{
	return seen;
}

const char *stopsig_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGQUIT:
		return "SIGQUIT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	default:
		return "a signal";
	}
}
