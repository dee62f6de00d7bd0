/*
 * uffdread.c - a thread asleep in a page fault that a kernel user copy
 * raised, until told to let it finish (VM case fault_sleeping; issue 35,
 * item 1).
 *
 *   uffdread [FILE]     (default /dev/zero)
 *
 * Registers a fresh anonymous page with userfaultfd (missing pages), then a
 * thread read()s 4096 bytes of FILE into it: the kernel's copy to user
 * memory faults, and the fault sleeps in handle_userfault() until the page
 * is supplied. Once the fault's event has arrived (the thread is asleep in
 * it) it prints "reader <tid> asleep in a fault" and waits for SIGUSR1;
 * then it supplies the page (UFFDIO_ZEROPAGE), the copy completes, and it
 * exits 0 when read() returned data (4096 bytes, all zeros, for
 * /dev/zero), else 1 (2: the set-up failed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096

static char *page;
static const char *path = "/dev/zero";
static ssize_t got = -1;
static int got_errno;
static pid_t reader_tid;

static void *reader(void *arg)
{
	int fd = open(path, O_RDONLY);

	reader_tid = (pid_t)syscall(SYS_gettid);
	if (fd < 0) {
		got_errno = errno;
		return NULL;
	}
	got = read(fd, page, PAGE);
	got_errno = errno;
	close(fd);
	return arg;
}

static int setup(int *uffd)
{
	struct uffdio_api api = {.api = UFFD_API};
	struct uffdio_register reg;

	*uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (*uffd < 0) {
		perror("uffdread: userfaultfd");
		return -1;
	}
	if (ioctl(*uffd, UFFDIO_API, &api)) {
		perror("uffdread: UFFDIO_API");
		return -1;
	}
	page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("uffdread: mmap");
		return -1;
	}
	reg.range.start = (unsigned long)page;
	reg.range.len = PAGE;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(*uffd, UFFDIO_REGISTER, &reg)) {
		perror("uffdread: UFFDIO_REGISTER");
		return -1;
	}
	return 0;
}

/* Wait for the reader's fault to reach userfaultfd: then it sleeps. */
static int wait_fault(int uffd)
{
	struct uffd_msg msg;
	struct pollfd p = {.fd = uffd, .events = POLLIN};

	if (poll(&p, 1, 20000) != 1) {
		fprintf(stderr, "uffdread: no fault within 20 s\n");
		return -1;
	}
	if (read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT ||
	    (msg.arg.pagefault.address & ~(unsigned long)(PAGE - 1)) !=
		(unsigned long)page) {
		fprintf(stderr, "uffdread: not the reader's fault\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct uffdio_zeropage zp;
	pthread_t t;
	sigset_t set;
	int uffd, sig, i;
	char want[PAGE];

	if (argc > 1)
		path = argv[1];
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL); /* the thread inherits it */
	if (setup(&uffd) || pthread_create(&t, NULL, reader, NULL))
		return 2;
	if (wait_fault(uffd))
		return 2;
	printf("reader %d asleep in a fault\n", (int)reader_tid);
	fflush(stdout);
	if (sigwait(&set, &sig))
		return 2;
	zp.range.start = (unsigned long)page;
	zp.range.len = PAGE;
	zp.mode = 0;
	if (ioctl(uffd, UFFDIO_ZEROPAGE, &zp)) {
		perror("uffdread: UFFDIO_ZEROPAGE");
		return 2;
	}
	pthread_join(t, NULL);
	if (got <= 0 || (got != PAGE && !strcmp(path, "/dev/zero"))) {
		fprintf(stderr, "uffdread: read returned %zd (%s)\n", got,
			strerror(got_errno));
		return 1;
	}
	memset(want, 0, sizeof(want));
	if (!strcmp(path, "/dev/zero") && memcmp(page, want, PAGE)) {
		for (i = 0; i < PAGE && !page[i]; i++)
			;
		fprintf(stderr, "uffdread: byte %d is %#x, not 0\n", i,
			(unsigned char)page[i]);
		return 1;
	}
	printf("reader %d's read completed: %zd bytes\n", (int)reader_tid,
	       got);
	return 0;
}
