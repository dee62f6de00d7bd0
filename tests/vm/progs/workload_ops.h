/* workload_ops.h - the system call loops shared by workload and kjitcount.
 * run_op(name, n) returns 0, -1 (a call failed, errno set) or 2 (unknown op).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifndef KJIT_WORKLOAD_OPS_H
#define KJIT_WORKLOAD_OPS_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline int op_getpid(long n)
{
	while (n--)
		syscall(SYS_getpid);
	return 0;
}

static inline int op_read(long n)
{
	int fd = open("/dev/zero", O_RDONLY);
	char c;

	if (fd < 0)
		return -1;
	while (n--)
		if (read(fd, &c, 1) != 1)
			return -1;
	return close(fd);
}

static inline int op_fstat(long n)
{
	struct stat st;

	while (n--)
		if (syscall(SYS_fstat, 0, &st))
			return -1;
	return 0;
}

static inline int op_openclose(long n)
{
	int fd;

	while (n--) {
		fd = open("/dev/null", O_RDONLY);
		if (fd < 0 || close(fd))
			return -1;
	}
	return 0;
}

static inline int op_pipe(long n)
{
	int p[2];
	char c = 'x';

	if (pipe(p))
		return -1;
	while (n--)
		if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
			return -1;
	close(p[0]);
	return close(p[1]);
}

static inline int op_nanosleep(long n)
{
	struct timespec ts = {0, 100000}; /* 100 us: an hrtimer each */

	while (n--)
		if (nanosleep(&ts, NULL))
			return -1;
	return 0;
}

/* One-byte reads from a pipe filled (64 KiB, one write) on first use: a
 * workload whose measured window holds reads only. */
static inline int op_piperead(long n)
{
	static int p[2] = {-1, -1};
	static char fill[65536];
	char c;

	if (p[0] < 0) {
		if (pipe(p) ||
		    fcntl(p[1], F_SETPIPE_SZ, (int)sizeof(fill)) < 0 ||
		    write(p[1], fill, sizeof(fill)) != (ssize_t)sizeof(fill))
			return -1;
	}
	while (n--)
		if (read(p[0], &c, 1) != 1)
			return -1;
	return 0;
}

/* fork() a child that exits at once, and reap it. */
static inline int op_forkexit(long n)
{
	int status;
	pid_t pid;

	while (n--) {
		pid = fork();
		if (pid < 0)
			return -1;
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, &status, 0) != pid)
			return -1;
	}
	return 0;
}

/* System calls handed bad user pointers: each must fail with EFAULT (a
 * fault in copy_to_user/copy_from_user, fixed up by the exception table). */
static inline int op_efault(long n)
{
	void *volatile bad = (void *)1; /* opaque to the compiler */
	int p[2];
	char c = 'x';

	if (pipe(p))
		return -1;
	while (n--) {
		if (write(p[1], &c, 1) != 1)
			return -1;
		if (read(p[0], bad, 1) != -1 || errno != EFAULT)
			return -1;
		if (write(p[1], bad, 1) != -1 || errno != EFAULT)
			return -1;
		if (nanosleep(bad, NULL) != -1 || errno != EFAULT)
			return -1;
		if (read(p[0], &c, 1) != 1) /* the byte is still there */
			return -1;
	}
	close(p[0]);
	return close(p[1]);
}

/* ioctls into module code: KJITKP_IOC_RESET on kjit_kprobes.ko's device
 * (its handler, kp_ioctl, is the only code run that belongs to a module). */
static inline int op_modioctl(long n)
{
	int fd = open("/dev/kjit_kprobes", O_RDONLY);

	if (fd < 0)
		return -1;
	while (n--)
		if (ioctl(fd, _IO(0xB8, 0x03)) != 0)
			return -1;
	return close(fd);
}

static const struct {
	const char *name;
	int (*run)(long n);
} ops[] = {
    {"getpid", op_getpid},     {"read", op_read},
    {"fstat", op_fstat},       {"openclose", op_openclose},
    {"pipe", op_pipe},	       {"nanosleep", op_nanosleep},
    {"piperead", op_piperead}, {"forkexit", op_forkexit},
    {"efault", op_efault},     {"modioctl", op_modioctl},
};

static inline int run_op(const char *name, long n)
{
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(name, ops[i].name))
			return ops[i].run(n);
	fprintf(stderr, "unknown op %s\n", name);
	return 2;
}

#endif
