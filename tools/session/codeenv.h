/* codeenv.h - the code of a session's functions, kept with its results:
 * read once from the running kernel (session_capture(): /proc/kcore and
 * kallsyms), stored in kjit.data (code, sym and keysite lines), and turned
 * back into the translator's environment (jit/env.h) for static CFGs,
 * coverage, `report --uncovered` and `annotate`, on any machine, later.
 *
 * Why the bytes and not /proc/kcore at report time: the code a report
 * shows must be the code that ran. A later boot of the same build (same
 * build-id) has other absolute addresses (KASLR), its static keys and
 * alternatives may be in other states and a module loads elsewhere, and
 * the data file may be read on another machine. A function is small (vfs_read:
 * 784 bytes, 1.6 KB of hex), so kjit.data keeps a copy.
 *
 * What is kept, per function: its bytes [start, end) and up to 16 more
 * (the decoder may read past its last instruction), the core kernel's
 * static-key sites inside that range (kenv.h's __jump_table entries), and
 * the text symbols its branches and RIP-relative operands reach, plus the
 * ones the translator's classify() knows by name (__fentry__, ftrace's
 * callers, the return and indirect-branch thunks).
 *
 * Invariants:
 *  - A CFG built over codeenv is the one kenv.h gives for the same bytes:
 *    read_code, classify and patch_site answer from the same facts.
 *  - session_capture() only runs where the session's kernel runs (live, or
 *    the recording boot): the caller checks.
 */
#ifndef KJIT_TOOL_CODEENV_H
#define KJIT_TOOL_CODEENV_H

#include "cfg.h"
#include "tools/kernel/kthunks.h"
#include "tools/report/disasm.h"
#include "session.h"

#define CODE_TAIL 16 /* bytes kept past a function's end */

struct codeenv {
	struct kjit_env env;
	const struct session *s;
	struct kthunks thunks;
	unsigned int last; /* function read last: a hint */
};

/* The environment over @s's stored code (what it lacks reads as absent). */
void codeenv_init(struct codeenv *e, const struct session *s);

/* Reads every function's code, the static-key sites in it and the
 * symbols it reaches from the running kernel into @s (functions whose
 * code is stored already are kept). Returns 0, or -errno when kallsyms or
 * /proc/kcore cannot be read. */
int session_capture(struct session *s);

/* 1 if every function of @s has its code stored. */
int session_has_code(const struct session *s);

/* The static CFG of function @fi from its stored code: 0, -ENOENT if its
 * code is not stored, or cfg_build()'s error. */
int session_cfg(const struct session *s, unsigned int fi, struct cfg *g);

/* Marks (mark[k] = 1) the static blocks of @g that an executed block of
 * function @fi overlaps (coverage's rule); returns how many. */
long session_cover_marks(const struct session *s, unsigned int fi,
			 const struct cfg *g, char *mark);

/* Frees what codeenv.c kept in @s (session_free() calls it). */
void session_cache_free(struct session *s);

/* Names addresses from @s's functions and stored symbols. */
struct disasm_syms session_syms(const struct session *s);

#endif
