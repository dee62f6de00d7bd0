/* runcmd.h - run the workload COMMAND of record/compare: fork, exec, wait.
 *
 * Invariants: the child inherits stdio; an exec failure is reported by the
 * child on stderr and gives exit status 127, like a shell. The tool ignores
 * SIGINT/SIGQUIT while the child runs, so ^C stops the command and the
 * tool still detaches and saves; SIGTERM and SIGHUP sent to the tool are
 * passed on to the command (or, while it is held before exec, stop it
 * there), with the same result.
 */
#ifndef KJIT_TOOL_RUNCMD_H
#define KJIT_TOOL_RUNCMD_H

/* Runs @cmd to completion. Returns its exit status (128+signal if killed),
 * or -1 if it could not be started; *ns gets the wall time. */
int run_command(char **cmd, double *ns);

/* In two steps, for a scope that names the command's process before it
 * runs: run_command_start() forks it, stopped before exec; its pid is
 * r->pid. run_command_finish() lets it exec and waits (as run_command);
 * run_command_abort() kills it instead. */
struct runcmd {
	int pid, go;
	double t0;
};
int run_command_start(char **cmd, struct runcmd *r);
int run_command_finish(struct runcmd *r, double *ns);
void run_command_abort(struct runcmd *r);

/* The SIGTERM or SIGHUP the tool was sent (and passed on) while a command
 * was held or ran, else 0. */
int run_command_stop_signal(void);

/* The command line as one string (arguments joined by spaces). */
void command_line(char **cmd, char *buf, unsigned long size);

#endif
