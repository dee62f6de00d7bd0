/* funcglob.h - FUNC patterns: shell globs over kernel function names, as
 * `kjit list`, `attach`, `record` and `compare` take them.
 *
 *   GLOB         every function whose name matches (fnmatch), any module
 *   MODULE:GLOB  ... in a module whose name matches MODULE (itself a glob;
 *                `vmlinux` for the kernel proper)
 *
 * Invariants: a word is a pattern only if it holds `*`, `?` or `[` (no
 * kernel symbol does), so exact names keep their meaning (target.h); the
 * padding symbols before functions (__pfx_) and section markers are never
 * matched.
 */
#ifndef KJIT_TOOL_FUNCGLOB_H
#define KJIT_TOOL_FUNCGLOB_H

#include <stdio.h>
#include "tools/kernel/symtab.h"

/* Does @word hold a glob character? */
int funcglob_is(const char *word);
/* Does @s match pattern @pat? */
int funcglob_match(const struct ksym *s, const char *pat);
/* Is @s a function a pattern may name (not padding, not a marker, not a
 * translated block's name in kjit_pool)? */
int funcglob_listable(const struct ksym *s);
/* For a MODULE:GLOB @pat whose MODULE matches no module in @t (nor
 * vmlinux), says so on @err as `kjit WHO` and returns 1; else 0 (and for
 * a plain GLOB). */
int funcglob_say_absent_module(FILE *err, const char *who,
			       const struct symtab *t, const char *pat);

#endif
