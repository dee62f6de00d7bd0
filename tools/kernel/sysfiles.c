/*
 * sysfiles.c - paths of kernel interface files (see sysfiles.h).
 *
 * Invariants: mounting is tried at most once per file system and only
 * without KJIT_SYSROOT; a failed mount is not an error here (the caller
 * reports the missing file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>
#include "sysfiles.h"

static char bufs[4][512];

const char *sysfile(int slot, const char *path)
{
	const char *root = getenv("KJIT_SYSROOT");

	snprintf(bufs[slot & 3], sizeof(bufs[0]), "%s%s", root ? root : "",
		 path);
	return bufs[slot & 3];
}

static int have(const char *p)
{
	return access(p, R_OK) == 0;
}

static int can_mount(void)
{
	return !getenv("KJIT_SYSROOT");
}

const char *sysfile_tracing(const char *name)
{
	char a[256], b[256];
	const char *p;

	snprintf(a, sizeof(a), "/sys/kernel/tracing/%s", name);
	snprintf(b, sizeof(b), "/sys/kernel/debug/tracing/%s", name);
	if (have(p = sysfile(0, a)) || have(p = sysfile(0, b)))
		return p;
	if (can_mount())
		mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	return have(p = sysfile(0, a)) ? p : NULL;
}

const char *sysfile_debug(const char *name)
{
	char a[256];
	const char *p;

	snprintf(a, sizeof(a), "/sys/kernel/debug/%s", name);
	if (have(p = sysfile(1, a)))
		return p;
	if (can_mount())
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	return have(p = sysfile(1, a)) ? p : NULL;
}
