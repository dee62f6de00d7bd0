/* progress.h - progress on stderr, shown only when stderr is a terminal
 * (silent when piped or redirected):
 *
 *   kjit: matching [##########..........] 27000/55638
 *   kjit: kjit.ko is attaching 42482 functions (3 s)
 *
 * Invariants: the line is erased when the work ends, so the output of the
 * command itself is never interleaved with it; updates are rate-limited
 * (10 a second).
 */
#ifndef KJIT_TOOL_PROGRESS_H
#define KJIT_TOOL_PROGRESS_H

struct progress {
	const char *what;
	unsigned long total;
	int on;
	long last_ms;
};

void progress_begin(struct progress *p, const char *what, unsigned long total);
/* @done of the total are done: redraws the bar (at most 10 times a
 * second, and at the last step). */
void progress_step(struct progress *p, unsigned long done);
void progress_end(struct progress *p);

/* Runs @fn(@arg) - one long request to the module, whose progress the tool
 * cannot see - and meanwhile, on a terminal, shows @what with the seconds
 * it has taken so far. Returns what @fn returns; errno is @fn's. */
int progress_call(const char *what, int (*fn)(void *), void *arg);

#endif
