/* attach.h - resolve FUNC arguments in user space and attach them.
 *
 * Invariants:
 *  - Names are resolved here (target.h), so KJIT_IOC_ATTACH always gets
 *    addresses; an ambiguous or unknown name never reaches the module.
 *  - Every failure prints one line per cause (per refused target) and
 *    returns non-zero; nothing is left attached after a failure.
 */
#ifndef KJIT_TOOL_ATTACH_H
#define KJIT_TOOL_ATTACH_H

#include "args.h"

struct funcset;

/* Attaches a->funcs through the open /dev/kjit @fd (honours --best-effort
 * and refuses --deep). @who prefixes messages. Returns 0 or 1. The two
 * steps apart (record --oracle needs the names in between): */
int attach_funcs(int fd, const struct args *a, const char *who);
/* The functions a->funcs names, patterns expanded (funcset.h); 0 or 1
 * after saying why. */
int attach_resolve(const struct args *a, const char *who, struct funcset *fs);
/* Attaches @fs; 0 or 1 after saying why. */
int attach_set(int fd, const struct args *a, struct funcset *fs,
	       const char *who);

/* Loads kallsyms for resolution; prints why not and returns non-zero. */
struct symtab;
int load_symbols(struct symtab *t);

#endif
