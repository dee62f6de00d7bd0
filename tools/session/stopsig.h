/* stopsig.h - the signals that stop a recorder, while it runs a command.
 *
 * ^C (SIGINT), ^\ (SIGQUIT), timeout(1)'s SIGTERM and a closed terminal's
 * SIGHUP must not end the tool while the kernel is changed (a session
 * attached, the tracer on): each is noted and passed on to the command,
 * and the tool goes on to undo what it did, then says which one stopped
 * it. Used by the workload runner (runcmd.c) and the function_graph run
 * of --oracle (tools/kernel/fgraph.c).
 *
 * Invariants: a signal the tool was started with ignored (nohup: SIGHUP)
 * stays ignored, in the tool and in the command. Only the process that
 * took the signals passes them on (a forked child that still has the
 * handler only notes them). The first stop signal seen is the one
 * reported.
 */
#ifndef KJIT_TOOL_STOPSIG_H
#define KJIT_TOOL_STOPSIG_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#define STOPSIG_N 4 /* SIGINT, SIGQUIT, SIGTERM, SIGHUP */

struct stopsig {
	sigset_t set;	   /* the stop signals */
	sigset_t old_mask; /* the tool's mask before stopsig_take() */
	struct sigaction old[STOPSIG_N];
};

/* Takes the stop signals: each gets a handler that notes it and passes it
 * on to the process named by stopsig_pass_to(). With @terminal_to_command,
 * ^C and ^\ are ignored instead: the terminal sends them to the command
 * itself, as system(3) does. Clears what was seen. */
void stopsig_take(struct stopsig *s, bool terminal_to_command);

/* Holds the stop signals (blocked) / lets the held ones in, to the handler. */
void stopsig_hold(const struct stopsig *s);
void stopsig_let_in(const struct stopsig *s);

/* The dispositions and the mask as they were before stopsig_take(); the
 * held signals still pending are taken by the handler first. */
void stopsig_release(const struct stopsig *s);

/* In a forked child: @sig's disposition as before stopsig_take(), or, for
 * 0, every one's and the mask too (before exec). */
void stopsig_restore_in_child(const struct stopsig *s, int sig);

/* Where a stop signal is passed on: the command's pid, or 0 for nowhere. */
void stopsig_pass_to(pid_t pid);

/* The first stop signal seen since stopsig_take(), else 0. */
int stopsig_seen(void);

/* "SIGINT", "SIGQUIT", "SIGTERM" or "SIGHUP". */
const char *stopsig_name(int sig);

#endif
