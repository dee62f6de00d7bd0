/* eligible.h - can kjit.ko attach to a function? The module's refusal
 * checks (kmod/divert.c, kjit_divert_check), made from user space.
 *
 * Invariants:
 *  - Same order and same reason strings as kjit_divert_check: part of kjit,
 *    entry text, noinstr text, used by kjit's dispatcher, on the kprobe
 *    blacklist, not traceable.
 *  - Every answer is about an address, not a name: aliases (several
 *    names at one address, such as __x64_sys_getpid and __do_sys_getpid)
 *    get the same answer, as the module, which sees only the address, gives
 *    them. The name lists (dispatcher, idle path, deep deny) are turned
 *    into the addresses of those core-kernel names at load.
 *  - "Not traceable" comes from available_filter_functions_addrs where the
 *    kernel has it (6.5+: the __fentry__ sites themselves), else from
 *    available_filter_functions, which lists one name per site: every
 *    function at the address of a listed name (and module) counts as
 *    traceable, so of several static functions sharing a name all count
 *    as traceable if one is (the module checks the address itself).
 *  - A source that cannot be read is not guessed: eligible_why() reports
 *    it as "unknown: ..." instead of claiming the function is fine.
 */
#ifndef KJIT_TOOL_ELIGIBLE_H
#define KJIT_TOOL_ELIGIBLE_H

#include "symnames.h"
#include "symtab.h"

struct eligible {
	const struct symtab *syms;
	struct symnames names; /* syms by name */
	uint64_t sections[4][2]; /* KJIT_REFUSED_SECTIONS bounds, 0: unknown */
	uint64_t notrace_sections[2][2]; /* KJIT_DEEP_NOTRACE_SECTIONS */
	char **traceable; /* sorted "name\tmodule" (filter list by name) */
	size_t n_traceable;
	uint64_t *traceable_at; /* sorted function starts with a site */
	size_t n_traceable_at;
	/* the name lists' core-kernel addresses (0: absent) */
	uint64_t *dispatch_at, *idle_at, *deny_at, *notrace_at;
	/* KJIT_DEEP_DENY_UNLESS_LEAVE's functions, denied as the module
	 * denies them when a name of KJIT_LEAVE_AT is missing (else 0). */
	uint64_t *deny_leave_at;
	size_t n_deny_leave;
	uint64_t (*black)[2]; /* kprobe blacklist ranges */
	uint64_t *maxend;     /* maxend[i]: highest end of black[0..i] */
	size_t n_black;
	int have_traceable, have_black;
};

/* Reads the filter list and the blacklist (mounting tracefs/debugfs if
 * needed). Returns 0 or -ENOMEM; missing files are remembered, not fatal. */
int eligible_load(struct eligible *e, const struct symtab *syms);
void eligible_free(struct eligible *e);

/* NULL if kjit.ko should accept @s, else the reason (a static string). */
const char *eligible_why(const struct eligible *e, const struct ksym *s);

/* NULL if deep mode would follow a call to @s (kmod/deep.c's allowed():
 * part of kjit, refused sections, idle path, deep deny list; without an
 * ftrace site: a BPF program, KJIT_DEEP_NOTRACE_SECTIONS or _DENY), else
 * the reason. Deep mode does not apply the kprobe blacklist
 * or the dispatcher's list, so this is not eligible_why(). */
const char *eligible_deep_why(const struct eligible *e, const struct ksym *s);

#endif
