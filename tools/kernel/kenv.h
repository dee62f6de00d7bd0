/* kenv.h - the translator's environment (jit/env.h) over the live kernel:
 * code from /proc/kcore, symbol classes from kallsyms. Used for static
 * CFGs; it never emits or counts anything.
 *
 * Invariants:
 *  - read_code never returns bytes it could not read.
 *  - classify knows __fentry__ and ftrace's callers, the return thunk and
 *    the indirect-branch thunks (kthunks.h), as kjit.ko's kmod/env.c does.
 *  - patch_site knows the core kernel's static-key sites (its __jump_table,
 *    read once through /proc/kcore), as kmod/sites.c does; module sites
 *    are not known (nor to the module).
 */
#ifndef KJIT_TOOL_KENV_H
#define KJIT_TOOL_KENV_H

#include "jit/env.h"
#include "kcore.h"
#include "kthunks.h"
#include "symtab.h"

struct kenv {
	struct kjit_env env;
	struct kcore *kc;
	struct kthunks thunks;
	uint64_t (*sites)[2]; /* {code, target}, sorted by code */
	size_t n_sites;
};

/* Opens @kcore_path; NULL with errno set if it cannot be read. */
struct kenv *kenv_open(const char *kcore_path, const struct symtab *t);
void kenv_close(struct kenv *e);

#endif
