// SPDX-License-Identifier: GPL-2.0
/*
 * native.c - the per-function native-run counters (see native.h).
 */
#include <linux/mm.h>
#include "native.h"
#include "session.h"

size_t kjit_native_mem_bytes(u32 rows)
{
	return PAGE_ALIGN((size_t)rows *
			  sizeof(atomic64_t[KJIT_FALLBACK_REASONS]));
}

int kjit_native_init(struct kjit_native *n, u32 rows)
{
	int err = kjit_region_alloc_data(&n->mem, kjit_native_mem_bytes(rows));

	if (err)
		return err;
	n->cnt = (void *)n->mem.rw; /* zeroed */
	n->rows = rows;
	return 0;
}

void kjit_native_free(struct kjit_native *n)
{
	if (n->cnt)
		kjit_region_free(&n->mem);
	n->cnt = NULL;
	n->rows = 0;
}

u64 kjit_native_total(const struct kjit_native *n, unsigned int r)
{
	u64 t = 0;
	u32 i;

	for (i = 0; i < n->rows && r < KJIT_FALLBACK_REASONS; i++)
		t += atomic64_read(&n->cnt[i][r]);
	return t;
}

/* Only what the session's totals zero too (report.c): the entry guards'
 * counts; the dispatcher's fallbacks are counted for the whole session,
 * as KJIT_IOC_STATS counts them, so a function's add up to the total. */
void kjit_native_reset(struct kjit_native *n)
{
	u32 i;

	for (i = 0; i < n->rows; i++)
		atomic64_set(&n->cnt[i][KJIT_FB_FTRACE_SITE], 0);
}
