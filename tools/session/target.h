/* target.h - what a FUNC argument names: `name`, `module:name`,
 * `name+0xoff`, `module:name+0xoff` or an address `0x...`.
 *
 * Invariants:
 *  - Names are resolved by the tool, never by the module: a name that
 *    several text symbols share is an error that lists the candidates (the
 *    kernel's kallsyms_lookup_name would silently pick one).
 *  - A resolved target always lies inside a known text symbol.
 */
#ifndef KJIT_TOOL_TARGET_H
#define KJIT_TOOL_TARGET_H

#include <stdint.h>
#include <stdio.h>
#include "tools/kernel/symtab.h"

struct target {
	const struct ksym *sym; /* the function containing addr */
	uint64_t addr;		/* sym->addr + off */
	uint64_t off;
};

/*
 * target_resolve - resolve @spec against @t. Returns 0, or -EINVAL (bad
 * syntax), -ENOENT (no such function / address in no function), -ENOTUNIQ
 * (ambiguous), -ERANGE (offset past the function's end). On error one
 * message line (plus the candidates when ambiguous) goes to @err, each
 * starting "kjit SUBCMD: " (say.h).
 */
int target_resolve(const struct symtab *t, const char *spec, struct target *out,
		   FILE *err);

/* "; did you mean A, B?" (at most three names close to @arg's, a FUNC),
 * or "" when none is close. */
void target_did_you_mean(const struct symtab *t, const char *arg, char *out,
			 size_t size);

/* Writes "name" or "module:name" (for module symbols) to buf. */
void target_symname(const struct ksym *s, char *buf, size_t size);

#endif
