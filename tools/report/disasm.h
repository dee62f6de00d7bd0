/* disasm.h - kernel code as Intel-syntax assembly (Zydis), the same way in
 * every command (blocks, report --top, annotate): hex in lower case, and
 * the targets of branches and RIP-relative operands named by symbol where
 * one holds them (`call __x86_indirect_thunk_rax`, `jmp pipe_read+0x4c`),
 * as objdump names them between <>.
 */
#ifndef KJIT_TOOL_DISASM_H
#define KJIT_TOOL_DISASM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tools/kernel/kcore.h"

/* Names addresses: the name of the symbol holding @addr and its start in
 * *@start, or NULL (printed in hex). */
struct disasm_syms {
	const char *(*lookup)(void *ctx, uint64_t addr, uint64_t *start);
	void *ctx;
};

struct symtab;
/* A disasm_syms over the kernel's text symbols (symtab.h). */
struct disasm_syms disasm_syms_of(const struct symtab *t);

struct disasm_insn {
	uint8_t len;
	int has_target;	 /* a relative branch or RIP-relative operand: */
	uint64_t target; /* the first one's absolute address */
	char text[160];
};

/* Decodes and formats the instruction at @addr, whose bytes are @buf
 * (@avail of them). Returns 0, or -1 if they do not decode. */
int disasm_one(const uint8_t *buf, size_t avail, uint64_t addr,
	       const struct disasm_syms *sy, struct disasm_insn *out);

/* Prints the instructions of @buf, the @len bytes at @addr, one per line,
 * each prefixed by @indent; @sy may be NULL (no names). Returns 0, or -1
 * if they do not decode. */
int disasm_bytes(const uint8_t *buf, uint64_t addr, uint32_t len,
		 const char *indent, const struct disasm_syms *sy, FILE *out);

/* disasm_bytes() of the kernel's code in [addr, addr+len), read through
 * @kc. Returns 0, or -1 if the bytes cannot be read or decoded. */
int disasm_range(struct kcore *kc, uint64_t addr, uint32_t len,
		 const char *indent, const struct disasm_syms *sy, FILE *out);

#endif
