/* modgraph.h - the references out of each function and data object of a
 * built kernel module (a relocatable ELF such as kjit.ko), for call-graph
 * tests: which functions a function calls, which addresses it takes, and
 * where the pointers of its indirect calls were loaded from.
 *
 * A node is a defined symbol with a size in an allocated section (a
 * function, an asm routine, a data object), or, in a data section, a span
 * that no symbol covers (from a relocation's target up to the next symbol;
 * named SECTION+0xOFF). Code is decoded with Zydis from each node's start
 * to its end; a reference is an instruction's relocation, or its branch
 * or RIP-relative operand when the assembler resolved it (a static
 * function in the same section). A data node's references are its
 * relocations.
 *
 * Invariants: everything points into the ELF file's data, kept open until
 * mg_close(); nodes of one section are sorted by start and do not
 * overlap (of symbols at one address the widest is kept, then the first
 * by name; a symbol inside another is dropped).
 */
#ifndef KJIT_TESTS_HOST_MODGRAPH_H
#define KJIT_TESTS_HOST_MODGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include "jit/types.h"

enum mg_kind {
	MG_CALL,     /* call, jmp or jcc to the target (rel32 or rel8) */
	MG_ADDR,     /* the target's address is taken or its data used */
	MG_ICALL,    /* indirect call/jmp through a pointer loaded from the
		      * target + off (a RIP-relative load a few instructions
		      * before; see mg_refs) */
	MG_ICALL_UNK /* indirect call/jmp through a pointer of unknown origin
		      * (a register, memory through a register) */
};

/* The target of a reference: a node of the module, or a symbol the module
 * imports (the kernel's), at byte offset @off from its start. */
struct mg_ref {
	enum mg_kind kind;
	int node;	  /* -1: imported, MG_ICALL_UNK, or no node covers it */
	const char *ksym; /* imported symbol, else NULL */
	s64 off;	  /* from the node's start, or the imported symbol */
	int sec;	  /* a defined target's section (else -1) */
	u64 sec_off;	  /* and its offset there */
	u64 at;		  /* where: offset in the referring node's section */
};

struct mg_node {
	const char *name;
	int sec;
	u64 start, end; /* offsets in the section */
	bool code;	/* in an executable section */
};

struct mg_sec;
struct mg_sym;

struct mg {
	int fd;
	void *elf; /* Elf * */
	struct mg_sec *sec;
	size_t n_sec;
	struct mg_sym *sym;
	size_t n_sym;
	struct mg_node *node;
	size_t n_node;
	char **owned; /* names made for gap nodes */
	size_t n_owned;
};

/* Read @path. 0 on success, else -1 with a message in @err. */
int mg_open(struct mg *g, const char *path, char *err, size_t errlen);
void mg_close(struct mg *g);
/* The node a symbol called @name starts (the node may go by another
 * name: module_init's alias init_module), or -1. */
int mg_node_by_name(const struct mg *g, const char *name);
/* The node covering byte @off of section @sec, or -1. */
int mg_node_at(const struct mg *g, int sec, u64 off);
/* Section name of node @n. */
const char *mg_sec_name(const struct mg *g, int n);
/* The NUL-terminated string @off bytes into the node or section that @ref
 * names (a pointer to a string literal: .rodata.str*), or NULL. */
const char *mg_string(const struct mg *g, const struct mg_ref *ref);

typedef void (*mg_ref_fn)(void *ctx, int from, const struct mg_ref *ref);
/* Call @fn for each reference out of node @n, in address order. Returns
 * 0, or -1 if an instruction does not decode (@fn has seen the references
 * before it). */
int mg_refs(const struct mg *g, int n, mg_ref_fn fn, void *ctx);

/* Call @fn for each relocation in a data section whose symbol is called
 * @target (@from is the node holding it or -1; ref->at its offset in
 * section @sec). For tables read outside the call graph. */
typedef void (*mg_reloc_fn)(void *ctx, int sec, int from,
			    const struct mg_ref *ref);
void mg_data_refs_to(const struct mg *g, const char *target, mg_reloc_fn fn,
		     void *ctx);
/* The relocation of data section @sec at offset @at, as a reference
 * (MG_ADDR), or false if there is none. */
bool mg_data_ref_at(const struct mg *g, int sec, u64 at, struct mg_ref *out);

#endif
