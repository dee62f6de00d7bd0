/* symtab.h - the kernel's text symbols from /proc/kallsyms, in memory.
 *
 * Invariants:
 *  - Only text symbols (t/T) are kept, sorted by address (ties by name).
 *  - A symbol's end is the next higher text address (kallsyms has no sizes,
 *    so this is the same estimate the kernel's kallsyms_lookup_size_offset
 *    makes), capped at SYMTAB_MAX_SIZE.
 *  - module is "" for vmlinux symbols.
 */
#ifndef KJIT_TOOL_SYMTAB_H
#define KJIT_TOOL_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

#define SYMTAB_MAX_SIZE (1u << 20)

struct ksym {
	uint64_t addr, end;
	char *name;   /* in the table's buffer: freed with it */
	char *module; /* likewise; "" for vmlinux */
};

struct symtab {
	struct ksym *s;
	size_t n;
	int restricted; /* every address read as 0 (kptr_restrict, not root) */
	uint64_t jump_table[2]; /* __start/__stop___jump_table (data), or 0 */
	char *buf; /* the file, parsed in place */
};

/* Loads @path. Returns 0, -EPERM if addresses are hidden, -errno else. */
int symtab_load(struct symtab *t, const char *path);
void symtab_free(struct symtab *t);

/* The symbol whose [addr, end) holds @addr, or NULL. */
const struct ksym *symtab_containing(const struct symtab *t, uint64_t addr);

/* Address of the first symbol called @name (any module), or 0. */
uint64_t symtab_addr(const struct symtab *t, const char *name);

#endif
