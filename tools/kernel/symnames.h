/* symnames.h - a symbol table's names, hashed: find every symbol of a name
 * (and module) without sorting the table by name.
 *
 * Sorting 160k kallsyms names with strcmp() was 40% of a `kjit attach`'s
 * own time on the host and more under TCG, where every tool command pays
 * it; building this index is one pass.
 *
 * Invariants:
 *  - Each chain holds the symbols of one bucket in the table's order
 *    (address order), so the symbols of one name are found lowest address
 *    first.
 *  - The index points into its symtab: free it before the table.
 */
#ifndef KJIT_TOOL_SYMNAMES_H
#define KJIT_TOOL_SYMNAMES_H

#include <stddef.h>
#include <stdint.h>
#include "symtab.h"

#define SYMNAMES_END ((size_t)-1)

struct symnames {
	const struct symtab *t;
	uint32_t *head; /* bucket -> first symbol index + 1 (0: empty) */
	uint32_t *next; /* symbol index -> next in its bucket + 1 (0: end) */
	size_t mask;
};

/* 0, or -ENOMEM. */
int symnames_build(struct symnames *x, const struct symtab *t);
void symnames_free(struct symnames *x);

/* The index of the lowest-addressed symbol called @name in @module ("" for
 * vmlinux, NULL for any), or SYMNAMES_END; then the next after @i. */
size_t symnames_first(const struct symnames *x, const char *name,
		      const char *module);
size_t symnames_next(const struct symnames *x, size_t i, const char *name,
		     const char *module);

#endif
