/* disasm.h - print kernel code as Intel-syntax assembly (Zydis), read live
 * through /proc/kcore. */
#ifndef KJIT_TOOL_DISASM_H
#define KJIT_TOOL_DISASM_H

#include <stdint.h>
#include <stdio.h>
#include "kcore.h"

/* Prints the instructions in [addr, addr+len), one per line, each prefixed
 * by @indent. Returns 0, or -1 if the bytes cannot be read or decoded. */
int disasm_range(struct kcore *kc, uint64_t addr, uint32_t len,
		 const char *indent, FILE *out);

#endif
