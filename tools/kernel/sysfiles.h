/* sysfiles.h - where the kernel's interface files are, and making them
 * appear (mounting tracefs/debugfs when they are not mounted).
 *
 * Invariants:
 *  - Every path the tool reads from /proc or /sys goes through sysfile():
 *    the environment variable KJIT_SYSROOT, when set, is prefixed (tests use
 *    a directory of captured files); then nothing is ever mounted.
 */
#ifndef KJIT_TOOL_SYSFILES_H
#define KJIT_TOOL_SYSFILES_H

/* KJIT_SYSROOT + @path, in a static buffer (one per slot 0..3). */
const char *sysfile(int slot, const char *path);

/* First existing of the tracefs file @name under /sys/kernel/tracing or
 * /sys/kernel/debug/tracing, mounting tracefs if neither exists. NULL if
 * none can be found (the caller says why). */
const char *sysfile_tracing(const char *name);

/* /sys/kernel/debug/@name, mounting debugfs if needed; NULL if absent. */
const char *sysfile_debug(const char *name);

#endif
