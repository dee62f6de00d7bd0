/* predicate.h - `--if 'FUNC:argN[.32] OP VALUE'`: an attached function
 * runs from the cache, counted and timed, only on the calls where its
 * argument N (0..5, by the calling convention: %rdi %rsi %rdx %rcx %r8
 * %r9) holds the condition; every other call runs natively, uncounted
 * (jit/predicate.h, kmod/kjit_ioctl.h's kjit_target.if_*).
 *
 *   OP     == != < <= > >=  (unsigned), or & (any bit of VALUE set)
 *   .32    compare the low 32 bits (an int or unsigned argument: the
 *          convention leaves the upper half undefined)
 *   VALUE  decimal, 0x hex or 0 octal, up to 2^64 - 1; or negative,
 *          which stands for its two's complement in the width
 *
 * Invariants: parsing never touches the kernel; every error is one line
 * that quotes the expression.
 */
#ifndef KJIT_TOOL_PREDICATE_H
#define KJIT_TOOL_PREDICATE_H

#include <stddef.h>
#include "jit/predicate.h"

struct tool_pred {
	char func[128]; /* FUNC, as written */
	struct kjit_pred p;
};

/* Parses @s into @out: 0, or -1 with a reason in @why (@n bytes). */
int pred_parse(const char *s, struct tool_pred *out, char *why, size_t n);
/* "FUNC:argN[.32] OP VALUE" again, VALUE in decimal (hex for &). */
void pred_format(const struct tool_pred *p, char *buf, size_t n);
/* Appends @p to a scope's words in @buf (@n bytes): "; only when " and
 * it for the first (@first), ", " and it for the others. */
void pred_append_scope(const struct tool_pred *p, int first, char *buf,
		       size_t n);

#endif
