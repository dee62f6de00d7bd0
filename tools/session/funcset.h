/* funcset.h - the functions a list of FUNC arguments names, ready for
 * KJIT_IOC_ATTACH: patterns expanded (funcglob.h), names resolved
 * (target.h), each function once.
 *
 * Invariants:
 *  - A pattern takes the functions it matches that kjit.ko would accept
 *    (eligible.h, the reasons of `kjit list`); each one it skips gets one
 *    line on the error stream with its reason. A pattern that matches
 *    nothing, or nothing instrumentable, is an error.
 *  - A name or address is passed on as given, refused or not: the module
 *    says why (the same words).
 *  - One target per address: aliases, a function named twice, or by a
 *    name and a pattern, are attached once (the first FUNC naming it gives
 *    the name).
 */
#ifndef KJIT_TOOL_FUNCSET_H
#define KJIT_TOOL_FUNCSET_H

#include <stdio.h>
#include "kmod/kjit_ioctl.h"
#include "tools/kernel/eligible.h"
#include "tools/kernel/symtab.h"

struct funcset {
	struct kjit_target *t; /* n targets: addr and name set */
	const char **spec;     /* the FUNC argument each came from */
	int n, cap;
	unsigned int skipped; /* matched by a pattern, not instrumentable */
};

/* Up to this many skipped functions are named one a line; past it, a
 * count by reason (kjit attach -v names every one). */
#define FUNCSET_LIST_MAX 20

/* Does any of the @n FUNCs hold a pattern (then eligibility is needed)? */
int funcset_has_pattern(const char *const *funcs, int n);
/* Builds @fs from @funcs[0..n) against @syms; @e is needed only when a
 * FUNC is a pattern. Messages, one line each, start "kjit @who: " (the
 * subcommand, as say.h writes it); the functions patterns
 * skipped are named one a line when there are at most @list_max of them
 * (-1: always), else counted by reason. Returns 0, or the number of
 * FUNCs that failed (nothing is attached then). */
int funcset_build(struct funcset *fs, const struct symtab *syms,
		  const struct eligible *e, const char *const *funcs, int n,
		  int list_max, const char *who, FILE *err);
void funcset_free(struct funcset *fs);

#endif
