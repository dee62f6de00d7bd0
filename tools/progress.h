/* progress.h - a one-line progress indicator on stderr, shown only when
 * stderr is a terminal (silent when piped or redirected).
 *
 * Invariants: the line is erased by progress_end(), so the output of the
 * command itself is never interleaved with it; updates are rate-limited.
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
void progress_step(struct progress *p, unsigned long done);
void progress_end(struct progress *p);

#endif
