/* workload_ops.h - the system call loops shared by workload and kjitcount.
 * run_op(name, n) returns 0, -1 (a call failed, errno set), 2 (unknown
 * op) or 3 (the op cannot run here: migrate on one CPU).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifndef KJIT_WORKLOAD_OPS_H
#define KJIT_WORKLOAD_OPS_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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

static void *getpid_thread(void *n)
{
	op_getpid((long)n);
	return NULL;
}

/* N getpid() calls in a second thread, then N in the first: one process,
 * two tasks (a scope by process counts both). */
static inline int op_threadpid(long n)
{
	pthread_t t;
	int err = pthread_create(&t, NULL, getpid_thread, (void *)n);

	if (err) {
		errno = err;
		return -1;
	}
	pthread_join(t, NULL);
	return op_getpid(n);
}

/* N getpid() calls in each of three processes: this one, a child and the
 * child's child (each waits for its own). */
static inline int op_forkpid(long n)
{
	int level, status;
	pid_t pid;

	for (level = 0; level < 2; level++) {
		pid = fork();
		if (pid < 0)
			return -1;
		if (pid)
			break;
	}
	op_getpid(n);
	if (level == 2)
		_exit(0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		_exit(1);
	if (level)
		_exit(0);
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

/* N reads of 64 KiB from /dev/zero: reads an argument predicate on the
 * count (vfs_read's third) can tell from op_read's one-byte ones. */
static inline int op_bigread(long n)
{
	static char buf[65536];
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return -1;
	while (n--)
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
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

static inline int op_stat(long n)
{
	struct stat st;

	while (n--)
		if (syscall(SYS_stat, "/", &st))
			return -1;
	return 0;
}

/* lseek(2) on /dev/zero: vfs_llseek() tail-calls file->f_op->llseek
 * through a pointer (an indirect jmp) on 6.1, 6.12 and 7.2 alike. */
static inline int op_lseek(long n)
{
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return -1;
	while (n--)
		if (lseek(fd, 0, SEEK_SET) != 0)
			return -1;
	return close(fd);
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

/* fork() a child that exits at once, and reap it. waitpid() returns once
 * the child is a zombie (exit_notify()), before it has run the rest of
 * do_exit() and its last schedule (do_task_dead()); nothing user space can
 * wait on marks that. So the op ends with a sleep of 10 ms: the last child
 * finishes its exit then, not in a count window that begins after the op
 * (a 6.12-rt run's Kprobes counted one such exit tail, 101 for 100). */
static inline int op_forkexit(long n)
{
	struct timespec settle = {0, 10000000};
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
	nanosleep(&settle, NULL);
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

/* A step of op_faults() did not give what it should: say which. */
static inline int fault_step(const char *what, ssize_t r)
{
	fprintf(stderr, "faults: %s returned %zd (%s)\n", what, r,
		r < 0 ? strerror(errno) : "no error");
	errno = EINVAL;
	return -1;
}

/*
 * Faults that kernel code fixes up through its exception table, each call
 * checked for the result the fixup gives (the faults VM case):
 *  - read() of a pipe into a page that is not mapped: copy_to_user's
 *    string copy faults at once, EFAULT, the byte stays in the pipe;
 *  - write() to the pipe of 16 bytes whose last 8 lie on that page: a
 *    partial copy_from_user across the page boundary, EFAULT, nothing
 *    added to the pipe;
 *  - ioctl(FIONBIO) with a bad pointer: get_user faults, EFAULT;
 *  - with msr.ko loaded (/dev/cpu/0/msr), a read of MSR 0x802, the x2APIC
 *    id, which raises #GP unless the APIC is in x2APIC mode (the test
 *    guest's is not; QEMU/TCG reads an unknown MSR as 0 instead):
 *    rdmsr_safe's fixup, EIO (skipped without the device);
 *  - read() of /dev/zero into 16 bytes whose last 8 lie on that page:
 *    clear_user zeroes 8 and faults, read_zero returns 8; then into the
 *    page itself: EFAULT. Where the CPU lacks fast short rep stos, the
 *    kernel patched clear_user's `rep stosb` into a call that carries the
 *    exception-table entry (`1: call clear_user_erms; 2:`);
 *  - the pipe's byte read back.
 */
static inline int op_faults(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	int p[2], msr = open("/dev/cpu/0/msr", O_RDONLY);
	int zero = open("/dev/zero", O_RDONLY);
	unsigned long long v;
	char c = 'x', *m;
	ssize_t r;

	m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (zero < 0 || m == MAP_FAILED || munmap(m + page, page) || pipe(p))
		return -1;
	while (n--) {
		if (write(p[1], &c, 1) != 1)
			return -1;
		r = read(p[0], m + page, 1);
		if (r != -1 || errno != EFAULT)
			return fault_step("read into an unmapped page", r);
		r = write(p[1], m + page - 8, 16);
		if (r != -1 || errno != EFAULT)
			return fault_step("write across into it", r);
		r = ioctl(p[0], FIONBIO, (int *)(m + page));
		if (r != -1 || errno != EFAULT)
			return fault_step("ioctl FIONBIO", r);
		r = msr < 0 ? -1 : pread(msr, &v, 8, 0x802);
		if (msr >= 0 && (r != -1 || errno != EIO))
			return fault_step("read of MSR 0x802", r);
		r = read(zero, m + page - 8, 16);
		if (r != 8)
			return fault_step("read of /dev/zero across into it",
					  r);
		r = read(zero, m + page, 16);
		if (r != -1 || errno != EFAULT)
			return fault_step("read of /dev/zero into it", r);
		if (read(p[0], &c, 1) != 1)
			return -1;
	}
	close(zero);
	if (msr >= 0)
		close(msr);
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

/* /proc/@pid/@what into @buf (NUL-terminated, at most @size - 1 bytes);
 * its length, or -1. */
static inline ssize_t read_proc(pid_t pid, const char *what, char *buf,
				size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, size - 1);
	if (fd >= 0)
		close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

/* Is @pid asleep ('S') in a read() system call? From /proc, not from its
 * kernel stack: wchan and stack traces stop at code-cache frames. */
static inline int asleep_in_read(pid_t pid)
{
	char buf[512], *p;

	if (read_proc(pid, "stat", buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] != 'S')
		return 0;
	return read_proc(pid, "syscall", buf, sizeof(buf)) > 2 &&
	       buf[0] == '0' && buf[1] == ' '; /* __NR_read */
}

/* Pin @pid to @cpu alone. */
static inline int pin_to(pid_t pid, int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(pid, sizeof(one), &one);
}

/*
 * One-byte reads of a pipe that is empty when each read begins: the reader
 * sleeps in pipe_read. A child waits until it is asleep (and 2 ms more),
 * moves it to the other of two CPUs (its affinity: it wakes there), and
 * writes the byte. So every read sleeps on one CPU and finishes on the
 * other; with pipe_read translated, it returns from schedule() into the
 * first CPU's code cache and runs on the second. Fails unless every read
 * woke on the other CPU. The child's own system calls (reads of /proc,
 * nanosleep, sched_setaffinity, a pipe write) never enter pipe_read.
 */
static inline int op_migrate(long n)
{
	struct timespec poll = {0, 200000}, settle = {0, 2000000};
	int p[2], cpu[2] = {-1, -1}, k, status, moved = 0, rc = 0;
	pid_t me = getpid(), child;
	cpu_set_t old;
	long i;
	char c;

	if (sched_getaffinity(0, sizeof(old), &old))
		return -1;
	for (k = 0, i = 0; i < CPU_SETSIZE && k < 2; i++)
		if (CPU_ISSET(i, &old))
			cpu[k++] = (int)i;
	if (k < 2)
		return 3;
	if (pin_to(0, cpu[0]) || pipe(p))
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	if (child == 0) {
		for (i = 0; i < n; i++) {
			while (!asleep_in_read(me))
				nanosleep(&poll, NULL);
			nanosleep(&settle, NULL);
			if (pin_to(me, cpu[(i + 1) % 2]) ||
			    write(p[1], "x", 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	for (i = 0; i < n && !rc; i++) {
		int before = sched_getcpu();

		if (read(p[0], &c, 1) != 1)
			rc = -1;
		moved += sched_getcpu() != before;
	}
	if (rc)
		kill(child, SIGKILL);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		rc = -1;
	sched_setaffinity(0, sizeof(old), &old);
	close(p[0]);
	close(p[1]);
	fprintf(stderr, "migrate: %d of %ld reads woke on the other CPU\n",
		moved, n);
	if (!rc && moved != n)
		errno = EAGAIN, rc = -1;
	return rc;
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
    {"migrate", op_migrate},   {"stat", op_stat},
    {"faults", op_faults},     {"threadpid", op_threadpid},
    {"forkpid", op_forkpid},   {"lseek", op_lseek},
    {"bigread", op_bigread},
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
