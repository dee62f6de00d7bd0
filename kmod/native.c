// SPDX-License-Identifier: GPL-2.0
/*
 * native.c - the per-function native-run counters (see native.h).
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include "native.h"
#include "session.h"

size_t kjit_native_mem_bytes(u32 first)
{
	return PAGE_ALIGN((size_t)first * sizeof(kjit_native_row));
}

#define CHUNK_BYTES PAGE_ALIGN(KJIT_NATIVE_CHUNK * sizeof(kjit_native_row))

int kjit_native_init(struct kjit_native *n, u32 first, u32 max_rows)
{
	int err;

	memset(n, 0, sizeof(*n));
	first = min(first, max_rows);
	err = kjit_region_alloc_data(&n->mem, kjit_native_mem_bytes(first));
	if (err)
		return err;
	n->cnt = (void *)n->mem.rw; /* zeroed */
	n->first = first;
	n->rows = first;
	n->max_rows = max_rows;
	n->bytes = n->mem.size;
	n->dir_len = DIV_ROUND_UP(max_rows - first, KJIT_NATIVE_CHUNK);
	if (!n->dir_len)
		return 0;
	n->more = kvcalloc(n->dir_len, sizeof(*n->more), GFP_KERNEL);
	if (!n->more) {
		kjit_native_free(n);
		return -ENOMEM;
	}
	n->bytes += n->dir_len * sizeof(*n->more);
	return 0;
}

bool kjit_native_grow(struct kjit_native *n, u32 rows)
{
	u32 have = n->rows, c;

	rows = min(rows, n->max_rows);
	while (have < rows) {
		c = (have - n->first) / KJIT_NATIVE_CHUNK;
		if (kjit_region_alloc_data(&n->more[c], CHUNK_BYTES))
			return false;
		n->bytes += n->more[c].size;
		have = min(have + KJIT_NATIVE_CHUNK, n->max_rows);
		smp_store_release(&n->rows, have);
	}
	return true;
}

void kjit_native_free(struct kjit_native *n)
{
	u32 c;

	for (c = 0; n->more && c < n->dir_len; c++)
		if (n->more[c].size)
			kjit_region_free(&n->more[c]);
	kvfree(n->more);
	if (n->cnt)
		kjit_region_free(&n->mem);
	memset(n, 0, sizeof(*n));
}

u64 kjit_native_total(const struct kjit_native *n, unsigned int r)
{
	u64 t = 0;
	u32 i;

	for (i = 0; i < n->rows && r < KJIT_FALLBACK_REASONS; i++)
		t += atomic64_read(kjit_native_ctr(n, (int)i, r));
	return t;
}

/* Only what the session's totals zero too (report.c): the entry guards'
 * and the entry trampoline's counts; the dispatcher's fallbacks are counted
 * for the whole session, as KJIT_IOC_STATS counts them, so a function's
 * add up to the total. */
void kjit_native_reset(struct kjit_native *n)
{
	u32 i;

	for (i = 0; i < n->rows; i++) {
		atomic64_set(kjit_native_ctr(n, (int)i, KJIT_FB_FTRACE_SITE),
			     0);
		atomic64_set(kjit_native_ctr(n, (int)i, KJIT_FB_EXITING), 0);
	}
}
