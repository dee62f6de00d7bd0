/*
 * quiet_output.h - before a measuring window, wait until the pipe that a
 * case's output goes into is drained and its reader is asleep.
 *
 * The rig runs each case as `casewatch ... | tee ...` (tests/vm/init.sh):
 * the case's stdout and stderr are a pipe, and tee reads it with read(2),
 * that is pipe_read(), which several cases count system-wide. Console
 * output is slow under TCG: a case that has just printed a deep report
 * (1,700 lines) leaves up to 64 KiB in the pipe, and tee goes on reading
 * it, 4 KiB per pipe_read(), for seconds - inside the next window if one
 * opens at once (attach_migrate's pipe_read entry counted 116 for 100 on
 * 6.12-rt). And after its last chunk tee writes it out and enters
 * pipe_read() once more, to sleep there.
 *
 * quiet_output() waits (up to QUIET_MAX_MS) until no pipe that fd 1 or 2
 * of this process or of an ancestor goes into (a tool whose own output is
 * a file runs under the case's shell) holds unread bytes, and every other
 * process that has one open for reading is asleep in read(2). Without
 * such a pipe it returns at once. Its own reads of /proc run before the
 * window, never in it.
 */
#ifndef KJIT_QUIET_OUTPUT_H
#define KJIT_QUIET_OUTPUT_H

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "workload_ops.h" /* asleep_in_read(), read_proc() */

#define QUIET_MAX_MS  20000
#define QUIET_POLL_MS 5

/* Is fd @fd of process @pid open for reading only (fdinfo's flags)? */
static inline int quiet_fd_reads(const char *pid, const char *fd)
{
	char path[600], line[128];
	unsigned int flags;
	int rd = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "flags: %o", &flags) == 1) {
			rd = (flags & 3) == 0; /* O_RDONLY */
			break;
		}
	fclose(f);
	return rd;
}

/* Does process @pid have the pipe @link ("pipe:[INO]") open for reading? */
static inline int quiet_pid_reads(const char *pid, const char *link)
{
	char path[600], target[64];
	struct dirent *d;
	int found = 0;
	ssize_t n;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!found && (d = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, d->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		found = !strcmp(target, link) && quiet_fd_reads(pid, d->d_name);
	}
	closedir(dir);
	return found;
}

/* The pipes that our output, or an ancestor's, goes into ("pipe:[INO]"
 * and a descriptor of ours on each, to ask how much is unread): a tool
 * whose own output is a file still runs under the case's shell, whose
 * output is the rig's pipe. Returns how many (at most QUIET_PIPES). */
#define QUIET_PIPES 4
struct quiet_pipe {
	char link[64];
	int fd;
};

static inline int quiet_pipes(struct quiet_pipe *p)
{
	char path[64], link[64], stat[512], *c;
	int n = 0, pid = (int)getpid(), fd, i, ppid, depth;
	ssize_t len;

	for (depth = 0; pid > 1 && depth < 16; depth++) {
		for (fd = 1; fd <= 2 && n < QUIET_PIPES; fd++) {
			snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
			len = readlink(path, link, sizeof(link) - 1);
			if (len <= 0 || strncmp(link, "pipe:[", 6))
				continue;
			link[len] = 0;
			for (i = 0; i < n && strcmp(p[i].link, link); i++)
				;
			if (i < n)
				continue;
			/* a writer's descriptor of our own: never blocks,
			 * as the pipe has a reader */
			p[n].fd = open(path, O_WRONLY | O_NONBLOCK);
			if (p[n].fd < 0)
				continue;
			memcpy(p[n].link, link, (size_t)len + 1);
			n++;
		}
		if (read_proc(pid, "stat", stat, sizeof(stat)) <= 0)
			break;
		c = strrchr(stat, ')');
		if (!c || sscanf(c + 1, " %*c %d", &ppid) != 1)
			break;
		pid = ppid;
	}
	return n;
}

/* Up to @max readers (other than us) of the @np pipes @p into @pids;
 * returns how many. */
static inline int quiet_readers(const struct quiet_pipe *p, int np,
				pid_t *pids, int max)
{
	struct dirent *d;
	char me[16];
	int n = 0, i;
	DIR *proc;

	snprintf(me, sizeof(me), "%d", (int)getpid());
	proc = opendir("/proc");
	if (!proc)
		return 0;
	while (n < max && (d = readdir(proc))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9' ||
		    !strcmp(d->d_name, me))
			continue;
		for (i = 0; i < np; i++)
			if (quiet_pid_reads(d->d_name, p[i].link)) {
				pids[n++] = atoi(d->d_name);
				break;
			}
	}
	closedir(proc);
	return n;
}

/* Does any of the @np pipes @p hold unread bytes? */
static inline int quiet_unread(const struct quiet_pipe *p, int np)
{
	int i, n;

	for (i = 0; i < np; i++)
		if (!ioctl(p[i].fd, FIONREAD, &n) && n > 0)
			return 1;
	return 0;
}

/* Returns 0 once quiet, -1 when QUIET_MAX_MS passed first. */
static inline int quiet_output(void)
{
	struct timespec poll = {0, QUIET_POLL_MS * 1000000L};
	struct quiet_pipe p[QUIET_PIPES];
	int np, n, i, waited, busy = 1;
	pid_t pids[8];

	fflush(stdout);
	fflush(stderr);
	np = quiet_pipes(p);
	n = quiet_readers(p, np, pids, 8);
	for (waited = 0; busy && waited < QUIET_MAX_MS;
	     waited += QUIET_POLL_MS) {
		busy = quiet_unread(p, np);
		for (i = 0; i < n && !busy; i++) /* gone: quiet too */
			busy = !asleep_in_read(pids[i]) && !kill(pids[i], 0);
		if (busy)
			nanosleep(&poll, NULL);
	}
	for (i = 0; i < np; i++)
		close(p[i].fd);
	return busy ? -1 : 0;
}

#endif
