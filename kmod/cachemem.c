// SPDX-License-Identifier: GPL-2.0
/*
 * cachemem.c - code and data regions for the code cache (see cachemem.h).
 *
 * Code region set-up order follows the kernel's own rule for executable
 * memory: fill with int3 while writable and non-executable, make the mapping
 * read-only, and only then executable. The writable alias is a vmap() of the
 * same pages with PAGE_KERNEL (RW, NX).
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "cachemem.h"
#include "compat.h"
#include "ksyms.h"

#define X86_INT3 0xcc

static struct page **region_pages(void *base, unsigned int n)
{
	struct page **pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL);
	unsigned int i;

	if (!pages)
		return NULL;
	for (i = 0; i < n; i++) {
		pages[i] = vmalloc_to_page((u8 *)base + i * PAGE_SIZE);
		if (!pages[i]) {
			kvfree(pages);
			return NULL;
		}
	}
	return pages;
}

int kjit_region_alloc_data(struct kjit_region *r, size_t size)
{
	memset(r, 0, sizeof(*r));
	size = PAGE_ALIGN(size);
	r->exec = kjit_code_alloc(size);
	if (!r->exec)
		return -ENOMEM;
	memset(r->exec, 0, size);
	r->rw = r->exec;
	r->size = size;
	return 0;
}

int kjit_region_alloc_code(struct kjit_region *r, size_t size)
{
	unsigned int n = PAGE_ALIGN(size) >> PAGE_SHIFT;
	struct page **pages;
	int err;

	err = kjit_region_alloc_data(r, size);
	if (err)
		return err;
	memset(r->exec, X86_INT3, r->size);
	pages = region_pages(r->exec, n);
	r->rw = pages ? vmap(pages, n, VM_MAP, PAGE_KERNEL) : NULL;
	kvfree(pages);
	if (!r->rw) {
		kjit_code_free(r->exec);
		return -ENOMEM;
	}
	r->code = true;
	err = kjit_kapi.set_memory_ro((unsigned long)r->exec, n);
	if (!err)
		err = kjit_kapi.set_memory_x((unsigned long)r->exec, n);
	if (err)
		kjit_region_free(r);
	return err;
}

void kjit_region_seal(struct kjit_region *r)
{
	if (!r->code || !r->rw)
		return;
	vunmap(r->rw);
	r->rw = NULL;
}

/* Undoes either allocation; the exec mapping gets its old permissions back
 * first (NX, then RW), as the allocator expects. Process context. */
void kjit_region_free(struct kjit_region *r)
{
	unsigned int n = r->size >> PAGE_SHIFT;

	if (!r->exec)
		return;
	if (r->code) {
		kjit_kapi.set_memory_nx((unsigned long)r->exec, n);
		kjit_kapi.set_memory_rw((unsigned long)r->exec, n);
		kjit_region_seal(r);
	}
	kjit_code_free(r->exec);
	memset(r, 0, sizeof(*r));
}
