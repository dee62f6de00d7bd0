// SPDX-License-Identifier: GPL-2.0
/*
 * cachemem.c - data regions in the module area (see cachemem.h).
 */
#include <linux/mm.h>
#include <linux/string.h>
#include "cachemem.h"
#include "compat.h"

int kjit_region_alloc_data(struct kjit_region *r, size_t size)
{
	memset(r, 0, sizeof(*r));
	size = PAGE_ALIGN(size);
	r->exec = kjit_near_alloc(size);
	if (!r->exec)
		return -ENOMEM;
	memset(r->exec, 0, size);
	r->rw = r->exec;
	r->size = size;
	return 0;
}

/* Process context. */
void kjit_region_free(struct kjit_region *r)
{
	if (!r->exec)
		return;
	kjit_near_free(r->exec);
	memset(r, 0, sizeof(*r));
}
