/*
 * test_progress.c - progress on a terminal (tools/report/progress.c): with
 * stderr a pseudo-terminal, a bar that fills and a line that is erased at the
 * end; a long call shows its seconds and keeps its result and errno; with
 * stderr not a terminal, nothing at all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/report/progress.h"
#include "check.h"

static char got[65536];

/* Everything written to the terminal so far. */
static void drain(int master)
{
	size_t n = strlen(got);
	ssize_t r;

	while ((r = read(master, got + n, sizeof(got) - 1 - n)) > 0)
		n += (size_t)r;
	got[n] = 0;
}

static int slow(void *arg)
{
	usleep(1300 * 1000);
	errno = ENOSPC;
	return *(int *)arg;
}

int main(void)
{
	struct progress p;
	int master, slave, saved = dup(2), v = 7, rc, err;
	unsigned long i;

	area = "tool.progress";
	if (openpty(&master, &slave, NULL, NULL, NULL)) {
		check("pty", 0, "openpty failed");
		return 1;
	}
	fcntl(master, F_SETFL, O_NONBLOCK);
	dup2(slave, 2);
	progress_begin(&p, "matching", 1000);
	for (i = 0; i < 1000; i++) {
		progress_step(&p, i);
		if (i == 0 || i == 499)
			usleep(120 * 1000); /* past the rate limit */
	}
	progress_end(&p);
	rc = progress_call("kjit.ko is attaching 3 functions", slow, &v);
	err = errno;
	dup2(saved, 2);
	drain(master);
	check("bar_first",
	      strstr(got, "kjit: matching [....................] "
			  "1/1000") != NULL,
	      got);
	check("bar_full",
	      strstr(got, "[####################] 1000/1000") != NULL, got);
	check("bar_half", strstr(got, "[##########..........] ") != NULL, got);
	check("erased", strstr(got, "1000/1000\r\033[K") != NULL, got);
	check("call_seconds",
	      strstr(got, "kjit: kjit.ko is attaching 3 functions (1 s)") !=
		  NULL,
	      got);
	check("call_result", rc == 7 && err == ENOSPC, "result or errno lost");

	got[0] = 0; /* not a terminal: silent */
	progress_begin(&p, "matching", 10);
	for (i = 0; i < 10; i++)
		progress_step(&p, i);
	progress_end(&p);
	rc = progress_call("x", slow, &v);
	check("silent_without_terminal", !p.on && rc == 7, "drew on a pipe");
	return failures ? 1 : 0;
}
