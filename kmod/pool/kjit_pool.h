/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kjit_pool.h - what kjit_pool.ko gives kjit.ko: the code cache's memory
 * and the side tables the kernel reads for addresses in it.
 *
 * The code cache lives in a module of its own so that the kernel treats
 * cache addresses as module text: __module_address() finds kjit_pool, so
 * the exception-table search (search_module_extables: mod->extable), the
 * ORC unwinder (orc_module_find: mod->arch.orc_unwind*), kernel_text_address()
 * and %pS / /proc/kallsyms all reach it. Memory that module_alloc() or
 * execmem_alloc() hands out is seen by none of them, and the kernel has no
 * API to add a range. Its own module, not a section of kjit.ko: objtool
 * cannot read a NOBITS executable section (it segfaults on 6.12, where it
 * runs on the linked kjit.o), and this module has no code for objtool to
 * check. See docs/design/code-pool.md.
 *
 *     code     .kjit_pool_text, "ax", NOBITS: KJIT_POOL_MB MiB of module
 *              text, no bytes in the .ko; chunks of chunk_bytes
 *     extable  ex_per_chunk entries per chunk, chunk i's at [i * ex_per_chunk]
 *     orc      orc_per_chunk (ip, entry) pairs per chunk, the same way
 *
 * kjit.ko fills all of it (kmod/cachepool.c, extable.c, orc.c): this
 * module has no code at all, not even an init function.
 *
 * Invariants kept by kjit.ko:
 *  - The tables stay sorted at every moment: a chunk's unused slots name
 *    the chunk's last byte, which never holds an instruction, and a slot
 *    is written in place (its entry first, then its address), in address
 *    order within a chunk. The kernel searches them without a lock.
 *  - mod->extable / num_exentries and mod->arch.orc_unwind* point here
 *    only while kjit.ko is loaded, and the code is int3 whenever no
 *    session's cache is in it.
 */
#ifndef KJIT_POOL_H
#define KJIT_POOL_H

#include <linux/types.h>

#ifndef KJIT_POOL_MB
#define KJIT_POOL_MB 16 /* make module KJIT_POOL_MB=N */
#endif
#define KJIT_POOL_BYTES		((unsigned long)KJIT_POOL_MB << 20)
#define KJIT_POOL_CHUNK		(64u << 10)
#define KJIT_POOL_ORC_PER_CHUNK                                                \
	(KJIT_POOL_CHUNK / 16) /* measured: ~20 B a slot */
#define KJIT_POOL_EX_PER_CHUNK	64u
#define KJIT_POOL_ABI		1

struct exception_table_entry;
struct orc_entry;
struct module;

struct kjit_pool {
	unsigned int abi; /* KJIT_POOL_ABI */
	struct module *mod;
	u8 *code; /* page aligned */
	unsigned long code_bytes;
	unsigned int chunk_bytes;
	struct exception_table_entry *extable;
	unsigned int ex_per_chunk;
	int *orc_ip; /* relative: orc_ip[i] + &orc_ip[i] */
	struct orc_entry *orc;
	unsigned int orc_per_chunk;
};

extern const struct kjit_pool kjit_pool;

#endif
