/* buildid.h - GNU build-ids: read from a kernel notes file (/sys/kernel/notes,
 * /sys/module/M/notes/.note.gnu.build-id) and turned into the path of the
 * matching debug file under a debug directory (Debian's -dbg layout:
 * DIR/.build-id/xx/rest.debug). */
#ifndef KJIT_TOOL_BUILDID_H
#define KJIT_TOOL_BUILDID_H

#include <stddef.h>

/* Lowercase hex build-id of the NT_GNU_BUILD_ID note in @path into @hex
 * (at least 2*20+1 bytes); 0, or -1 (no file or no such note). */
int buildid_read_notes(const char *path, char *hex, size_t size);

/* DIR/.build-id/xx/rest.debug for @hex into @buf. */
void buildid_debug_path(const char *dir, const char *hex, char *buf,
			size_t size);

#endif
