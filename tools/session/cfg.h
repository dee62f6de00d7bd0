/* cfg.h - a kernel function's static control-flow graph, discovered from
 * its entry with the translator's own block decoder (jit/decode.h).
 *
 * Invariants:
 *  - Blocks are true basic blocks: every jump target inside the function
 *    starts a block, and a block ends at its first control transfer.
 *    Calls end a block but not the walk: the block after a call is its
 *    fall-through successor. Jumps leaving [start, end) are external edges
 *    (tail calls); they are recorded, never followed.
 *  - A static-key site (env->patch_site: a nop or jmp the kernel rewrites)
 *    has both successors, as kjit.ko translates it into a run-time test:
 *    its target (CFG_KEY) and the next instruction.
 *  - Indirect jumps have no known successors (kernel code built with
 *    retpolines has no jump tables, so switch statements are not lost).
 *  - The live-patched fentry site at the start (a 5-byte call while the
 *    function is traced or attached) is not a block end, as in kjit.ko;
 *    on IBT kernels it is at +4, behind an endbr64 or its seal
 *    (kx86_fentry_offset() in jit/arch_x86.h).
 *  - An instruction the translator refuses is a block of its own (kjit.ko
 *    runs it natively); after a trap or privileged transfer nothing follows.
 *  - Blocks are sorted by address; block 0 is the entry.
 */
#ifndef KJIT_TOOL_CFG_H
#define KJIT_TOOL_CFG_H

#include <stddef.h>
#include <stdint.h>
#include "jit/env.h"

enum cfg_edge_kind { CFG_FALL, CFG_TAKEN, CFG_JUMP, CFG_KEY };

struct cfg_edge {
	uint64_t to;
	uint8_t kind;	  /* enum cfg_edge_kind */
	uint8_t external; /* target outside the function */
};

struct cfg_insn {
	uint64_t addr;
	uint8_t len;
	uint8_t kind;	/* enum kjit_insn_kind */
	uint8_t reason; /* enum kjit_reason: refused (runs natively) if != 0 */
	uint64_t target;
};

struct cfg_block {
	uint64_t start, end;
	size_t first, n; /* instructions insn[first .. first+n) */
	unsigned int n_edges;
	struct cfg_edge edge[2];
};

struct cfg {
	uint64_t start, end;
	struct cfg_insn *insn; /* sorted by address */
	size_t n_insn;
	struct cfg_block *blk;
	size_t n_blk;
	size_t n_edges;
};

/* Builds the CFG of the function [start, end), reading code through @env
 * (read_code, classify). Returns 0, -ENOMEM, or -EIO if the entry cannot
 * be read. */
int cfg_build(struct cfg *g, uint64_t start, uint64_t end,
	      const struct kjit_env *env);
void cfg_free(struct cfg *g);

/* Index of the block containing @addr, or -1. */
long cfg_block_at(const struct cfg *g, uint64_t addr);

#endif
