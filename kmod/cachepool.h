/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cachepool.h - the code cache's memory: kjit_pool.ko's text
 * (kmod/pool/kjit_pool.h), handed out to the CPUs' caches in chunks.
 *
 *     kjit_pool.code  [chunk 0][chunk 1][chunk 2] ...      [chunk n-1]
 *                      ^ next: taken in address order, one atomic add
 *                        each, by whichever CPU's cache fills first
 *     each chunk      [blocks ......................][16 bytes int3]
 *                      usable: chunk_bytes - 16      ^ the tables' unused
 *                                                      slots point here
 *
 * Invariants:
 *  - The writable alias (a vmap of the pool's pages, PAGE_KERNEL: RW, NX)
 *    exists only between kjit_pool_open() and kjit_pool_seal(): while a
 *    session may translate. The pool itself is module text: RO+X always.
 *  - Chunks go out in address order, so every CPU's chunks are in address
 *    order too (codecache/cache.h relies on it).
 *  - Outside a session every byte is int3 and every table slice empty
 *    (kjit_pool_reset()); chunks are reused only after that.
 */
#ifndef KJIT_CACHEPOOL_H
#define KJIT_CACHEPOOL_H

#include <linux/types.h>

/* The pool's chunk slack: table fillers point at a chunk's last byte. */
#define KJIT_POOL_TAIL 16

/* Module init (process context): check kjit_pool.ko's ABI, fill the pool
 * with int3, give the kernel its (empty) side tables (orc.h). Returns 0
 * or -errno. */
int kjit_pool_init(void);
/* Module exit: no session runs: take the tables back, int3 all. */
void kjit_pool_exit(void);
/* Attach (process context): map the writable alias, no chunk taken.
 * Returns 0 or -ENOMEM. */
int kjit_pool_open(void);
/* Take the next chunk: *run (in the pool), *rw (its writable alias) and
 * *size (usable bytes). False when the pool is used up or not open. Any
 * context; lock-free. */
bool kjit_pool_take(u8 **run, u8 **rw, u32 *size);
/* Detach, once no dispatcher runs: remove the writable alias. */
void kjit_pool_seal(void);
/* Detach, once no task can run or return into the pool (after quiesce):
 * drop the blocks' names (symbols.h), empty the side tables' slices and
 * int3 the chunks taken. Process context. */
void kjit_pool_reset(void);

bool kjit_pool_contains(unsigned long addr);
/* Is @addr in a chunk this session took (until kjit_pool_reset())? */
bool kjit_pool_in_session(unsigned long addr);
/* Chunk index of pool address @addr (kjit_pool_contains(addr)). */
unsigned int kjit_pool_chunk(unsigned long addr);
/* Bytes of the pool, and of the chunks taken by this session. */
unsigned long kjit_pool_bytes(void);
unsigned long kjit_pool_taken(void);

#endif
