/* merge.h - one session out of several recordings of the same kernel
 * (`kjit report -i A -i B ...`): counts summed block by block.
 *
 * Invariants:
 *  - Only recordings of one kernel merge: the same build-id, or without
 *    build-ids the same release. Anything else is refused, saying why.
 *  - The added file's addresses move into the first one's boot by its
 *    module's shift (the core kernel's for vmlinux): the distance between
 *    the two copies of a function both files recorded once (name, mod:name
 *    for a module's, and size; static functions share names, so names
 *    recorded twice say nothing). On the same boot a module no such
 *    function places has not moved; on another boot (KASLR) it is refused,
 *    not guessed, and so is a module whose shared functions disagree or
 *    whose build-ids differ.
 *  - A function is then the first file's at the moved address with the
 *    same name, or a new one; a block, its function's at the moved
 *    address.
 *  - Stored code (annotate, --uncovered, --top) of a function only the
 *    added file has moves with it from the same boot, with the symbols and
 *    static-key sites it reads; from another boot it is dropped (those
 *    addresses are that boot's), and such a function shows no code.
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
