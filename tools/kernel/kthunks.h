/* kthunks.h - the kernel symbols the translator's classify() knows by
 * name (jit/env.h): __fentry__ and ftrace's callers, the return thunk and
 * the sixteen indirect-branch thunks. One table for the two environments
 * that answer classify() - over the live kernel (kenv.h) and over a
 * session's stored code (codeenv.h) - so the CFGs they give agree, and
 * kmod/env.c's list on the module's side.
 */
#ifndef KJIT_TOOL_KTHUNKS_H
#define KJIT_TOOL_KTHUNKS_H

#include <stddef.h>
#include <stdint.h>
#include "jit/env.h"
#include "symtab.h"

#define KTHUNKS_N 20 /* names known: 3 fentry, 1 return, 16 indirect */

struct kthunks {
	uint64_t fentry[3], ret_thunk, ind_thunk[16]; /* 0: absent */
};

/* The @i-th known name (i < KTHUNKS_N) into @buf. */
const char *kthunks_name(int i, char *buf, size_t len);

/* Each known name's address in @t (0 where @t lacks it). */
void kthunks_from_symtab(struct kthunks *k, const struct symtab *t);

/* Notes @addr for @name when it is a known name not noted yet (the first
 * of a walk by address wins). */
void kthunks_note(struct kthunks *k, const char *name, uint64_t addr);

/* What a branch to @target reaches; *@reg gets an indirect thunk's
 * register number. */
enum kjit_sym kthunks_classify(const struct kthunks *k, uint64_t target,
			       int *reg);

#endif
