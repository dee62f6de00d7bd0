/* debuginfo.h - which debug files give a report its source lines: the
 * --debuginfo PATHs, else the recording kernel's vmlinux found under the
 * debug directory (/usr/lib/debug, or $KJIT_DEBUG_DIR) by the build-id in
 * the data file, then by release (boot/vmlinux-REL, lib/modules/REL/vmlinux),
 * and each recorded module's .ko by its build-id (.build-id/xx/rest.debug).
 *
 * Invariant: n == 0 means no lines, and why says so in one sentence.
 */
#ifndef KJIT_TOOL_DEBUGINFO_H
#define KJIT_TOOL_DEBUGINFO_H

#include "tools/session/session.h"
#include "srcline.h"

#define DEBUGINFO_MAX 8

struct debuginfo {
	struct srcline *sl[DEBUGINFO_MAX];
	char path[DEBUGINFO_MAX][512];
	int n;
	char why[768];
};

/* Opens the @n_paths given files (an unreadable one is an error: -1 with
 * the reason in d->why), or searches as above (0, n may be 0). */
int debuginfo_open(struct debuginfo *d, const struct session *s,
		   const char *const *paths, int n_paths);
void debuginfo_close(struct debuginfo *d);

#endif
