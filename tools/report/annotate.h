/* annotate.h - `kjit annotate FUNC`: a function's disassembly with each
 * static block's count and share, the blocks that never ran marked, and
 * source lines interleaved where debug info is at hand (as perf annotate
 * shows samples); text or JSON.
 *
 * What is counted where:
 *  - an instruction's count is the sum of the counts of the executed
 *    blocks (kjit's translated blocks, kjit.data's block lines) that hold
 *    it: a translated block is entered at its start and left at its end,
 *    so each of its instructions ran exactly that often;
 *  - a static block (the CFG of `kjit blocks`, built from the stored code:
 *    codeenv.h) has the largest count of its instructions (they are equal
 *    but where a translated block begins inside it: an attached
 *    function's entry after its __fentry__ site, a return after a sleep),
 *    and "never ran" when that is 0 - the rule of the report's coverage
 *    column, so "15 of 38 blocks" leaves exactly 23 marked;
 *  - share is a block's count over the sum of the function's static
 *    blocks' counts.
 * Instructions come from a linear sweep of [start, end); those in no
 * static block (padding, code reached only through a jump table or an
 * exception fixup) are listed under "not reached from the entry".
 *
 * Invariant: output depends only on the session and the debug files
 * (host-testable).
 */
#ifndef KJIT_TOOL_ANNOTATE_H
#define KJIT_TOOL_ANNOTATE_H

#include <stdio.h>
#include "debuginfo.h"
#include "tools/session/session.h"

struct annotate_opts {
	int json;
	const char *source; /* the data file, or NULL: live */
	struct debuginfo *di;
};

/* Prints functions @fis[0..n) of @s. Returns 0, or -ENOENT when one's
 * code is not stored (nothing printed), -ENOMEM. */
int annotate_print(const struct session *s, const unsigned int *fis,
		   unsigned int n, const struct annotate_opts *o, FILE *out);

/* The index of the function @want names in @s: its exact name, the name
 * without its module ("f" for "mod:f" or "f [mod]"), or 0xADDRESS inside
 * it. -1 when none does, -2 when several do. */
int annotate_find(const struct session *s, const char *want);

#endif
