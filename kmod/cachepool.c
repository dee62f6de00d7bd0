// SPDX-License-Identifier: GPL-2.0
/*
 * cachepool.c - chunks of kjit_pool.ko's text for the code cache (see
 * cachepool.h; why a module of its own: kmod/pool/kjit_pool.h).
 *
 * Writes go through a vmap() of the pool's pages, as for any code kjit
 * writes: no mapping is writable and executable at once. The alias of a
 * session lives from its attach to its detach; int3 fills outside a
 * session use a short-lived one.
 *
 * Context: process, kjit_mutex held, except kjit_pool_take() (the
 * dispatcher: any context, preemption disabled) and the lookups.
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "cachepool.h"
#include "kmod/pool/kjit_pool.h"
#include "extable.h"
#include "orc.h"
#include "symbols.h"

#define X86_INT3 0xcc

static struct page **pool_pages; /* every page of the pool */
static unsigned int pool_npages, pool_chunks;
static u8 *pool_rw;	   /* the session's writable alias, or NULL */
static atomic_t pool_next; /* chunks taken by this session */

static void *map_rw(void)
{
	return vmap(pool_pages, pool_npages, VM_MAP, PAGE_KERNEL);
}

/* int3 over the first @n chunks, through a short-lived alias. */
static int fill_int3(unsigned int n)
{
	u8 *rw;

	if (!n)
		return 0;
	rw = map_rw();
	if (!rw)
		return -ENOMEM;
	memset(rw, X86_INT3, (size_t)n * kjit_pool.chunk_bytes);
	vunmap(rw);
	return 0;
}

int kjit_pool_init(void)
{
	unsigned int i;
	int err;

	if (kjit_pool.abi != KJIT_POOL_ABI || !PAGE_ALIGNED(kjit_pool.code) ||
	    kjit_pool.chunk_bytes % PAGE_SIZE ||
	    kjit_pool.code_bytes % kjit_pool.chunk_bytes) {
		pr_err("kjit: kjit_pool.ko does not match this kjit.ko "
		       "(pool ABI %u, want %u): rebuild both\n",
		       kjit_pool.abi, KJIT_POOL_ABI);
		return -EINVAL;
	}
	pool_npages = kjit_pool.code_bytes >> PAGE_SHIFT;
	pool_chunks = kjit_pool.code_bytes / kjit_pool.chunk_bytes;
	pool_pages = kvcalloc(pool_npages, sizeof(*pool_pages), GFP_KERNEL);
	if (!pool_pages)
		return -ENOMEM;
	for (i = 0; i < pool_npages; i++) {
		pool_pages[i] = vmalloc_to_page(kjit_pool.code + i * PAGE_SIZE);
		if (!pool_pages[i]) {
			kvfree(pool_pages);
			return -EFAULT;
		}
	}
	err = fill_int3(pool_chunks);
	if (err) {
		kvfree(pool_pages);
		return err;
	}
	kjit_orc_init();
	kjit_extable_init();
	kjit_symbols_init();
	pr_info("kjit: code pool %lu KiB in kjit_pool.ko at %px\n",
		kjit_pool.code_bytes >> 10, kjit_pool.code);
	return 0;
}

void kjit_pool_exit(void)
{
	kjit_symbols_exit();
	kjit_extable_exit();
	kjit_orc_exit();
	kjit_pool_seal();
	fill_int3(pool_chunks);
	kvfree(pool_pages);
	pool_pages = NULL;
}

int kjit_pool_open(void)
{
	if (pool_rw)
		return 0;
	pool_rw = map_rw();
	atomic_set(&pool_next, 0);
	return pool_rw ? 0 : -ENOMEM;
}

bool kjit_pool_take(u8 **run, u8 **rw, u32 *size)
{
	u8 *alias = READ_ONCE(pool_rw);
	unsigned int i, skip;
	size_t off;

	if (!alias || atomic_read(&pool_next) >= pool_chunks)
		return false;
	i = atomic_inc_return(&pool_next) - 1;
	if (i >= pool_chunks)
		return false;
	off = (size_t)i * kjit_pool.chunk_bytes;
	/* the pool's first bytes are kjit_pool_code's: no block there,
	 * whose name that symbol would hide (symbols.h) */
	skip = i ? 0 : KJIT_POOL_TAIL;
	*run = kjit_pool.code + off + skip;
	*rw = alias + off + skip;
	*size = kjit_pool.chunk_bytes - KJIT_POOL_TAIL - skip;
	return true;
}

void kjit_pool_seal(void)
{
	if (pool_rw)
		vunmap(pool_rw);
	pool_rw = NULL;
}

void kjit_pool_reset(void)
{
	unsigned int n =
	    min_t(unsigned int, atomic_read(&pool_next), pool_chunks);

	kjit_symbols_reset();
	kjit_orc_reset(n);
	kjit_extable_reset(n);
	if (fill_int3(n))
		pr_err("kjit: no memory to int3 the code pool after detach\n");
	atomic_set(&pool_next, 0);
}

bool kjit_pool_contains(unsigned long addr)
{
	return addr - (unsigned long)kjit_pool.code < kjit_pool.code_bytes;
}

bool kjit_pool_in_session(unsigned long addr)
{
	return addr - (unsigned long)kjit_pool.code < kjit_pool_taken();
}

unsigned int kjit_pool_chunk(unsigned long addr)
{
	return (addr - (unsigned long)kjit_pool.code) / kjit_pool.chunk_bytes;
}

unsigned long kjit_pool_bytes(void)
{
	return kjit_pool.code_bytes;
}

unsigned long kjit_pool_taken(void)
{
	unsigned int n = atomic_read(&pool_next);

	return (unsigned long)min(n, pool_chunks) * kjit_pool.chunk_bytes;
}
