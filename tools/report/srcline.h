/* srcline.h - source lines of kernel code from DWARF, through elfutils'
 * libdw (dwfl offline reporting of one vmlinux or .ko with debug info).
 *
 * Addresses are given as FUNC+OFF, so a KASLR-shifted vmlinux or a module
 * at any load address maps without knowing its base: the debug file's own
 * symbol FUNC gives the address to add OFF to.
 *
 * Invariants: a frame's strings live as long as the srcline context;
 * frames are innermost first (the line table's line, then each inlined
 * call site outwards), as `addr2line -i` prints them.
 */
#ifndef KJIT_TOOL_SRCLINE_H
#define KJIT_TOOL_SRCLINE_H

#include <stddef.h>
#include <stdint.h>

struct srcline;

struct srcframe {
	const char *file; /* as DWARF names it (absolute or comp-dir relative) */
	int line;
	const char *func; /* function this line belongs to (inlined or not) */
};

/* One line-table row inside a code range: the lines of a block. */
struct srcrow {
	const char *file;
	int line;
};

/* Opens @path (ELF with DWARF). NULL with a reason in @why. */
struct srcline *srcline_open(const char *path, char *why, size_t size);
void srcline_close(struct srcline *s);

/* Address of @func+@off in the debug file's address space, or 0 when the
 * file has no function symbol of that name. "MOD:func" (a module's function
 * as kjit names it) looks up func. */
uint64_t srcline_addr(struct srcline *s, const char *func, uint64_t off);

/* The inline chain at @addr (a debug-file address): up to @max frames.
 * Returns the number of frames, 0 when no line covers @addr. */
int srcline_frames(struct srcline *s, uint64_t addr, struct srcframe *fr,
		   int max);

/* The lines of the code [addr, addr+len): the row covering @addr and every
 * row starting inside the range. Returns the number stored (at most @max). */
int srcline_rows(struct srcline *s, uint64_t addr, uint64_t len,
		 struct srcrow *rows, int max);

/* Reads @len code bytes at @addr from the debug file; 0 or -1. */
int srcline_code(struct srcline *s, uint64_t addr, uint8_t *buf, size_t len);

#endif
