/* merge.h - one session out of several recordings of the same kernel
 * (`kjit report -i A -i B ...`): counts summed block by block.
 *
 * Invariants:
 *  - Only recordings of one kernel merge: the same build-id, or without
 *    build-ids the same release. Anything else is refused, saying why.
 *  - Functions match by name (mod:name for a module's) and size; a block
 *    by its function and its offset in it. Across boots (KASLR moves the
 *    code) the added recording's addresses are moved into the first one's
 *    by the distance between the two copies of a function they share; a
 *    function of the added file that no shared function places (a module
 *    loaded elsewhere and sharing nothing) is refused, not guessed.
 *  - Counts, native runs and event statistics add up; limits and levels
 *    (cache size, counters in use, ...) take the larger value. A shared
 *    function's static blocks and coverage become unknown (-1, shown as
 *    '-'): the union of two coverages needs the CFG.
 */
#ifndef KJIT_TOOL_MERGE_H
#define KJIT_TOOL_MERGE_H

#include <stddef.h>
#include "session.h"

/* Adds @add to @into; @add is emptied (its stored code moves) and must
 * still be freed with session_free(). Returns 0, or -1 with @why set
 * (@into unchanged then, unless memory ran out). */
int session_merge(struct session *into, struct session *add, char *why,
		  size_t why_size);

#endif
