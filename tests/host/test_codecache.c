/* test_codecache.c - host unit tests of codecache/, the module's own code
 * cache (kmod/ builds the same files): what detach's quiesce relies on.
 *
 * Nothing here executes translated code: the cache is given a run address
 * that is never mapped, and the tests read the metadata the cache keeps.
 */
#include <string.h>
#include "codecache/cache.h"
#include "host_env.h"
#include "kjit_test.h"

#define ORIG	 0x400000ull   /* where the original code "is" */
#define RUN	 0x10000000ull /* run address of the cache's code */
#define DISPATCH 0x10800000ull
#define NBLK	 16

/* push %rbp; call callee; pop %rbp; ret; callee: ret */
static const u8 code[] = {0x55, 0xe8, 0x02, 0x00, 0x00, 0x00, 0x5d, 0xc3, 0xc3};
#define CALL_END (ORIG + 6) /* original return address of the call */

static u8 cache_rw[1 << 16];
static u64 counters[NBLK + 1];
static struct kjit_cblock blocks[NBLK];
static struct kjit_centry map[4 * NBLK];
static struct kjit_pending pending[2 * NBLK];

struct fixture {
	struct henv h;
	struct kjit_translator tr;
	struct kjit_cache c;
};

static int fixture_init(struct fixture *f, bool follow_indirect)
{
	struct kjit_cache_mem m = {
	    .code_run = (u8 *)(unsigned long)RUN,
	    .code_rw = cache_rw,
	    .code_size = sizeof(cache_rw),
	    .counters_run = counters,
	    .counters_rw = counters,
	    .blocks = blocks,
	    .max_blocks = NBLK,
	    .map = map,
	    .map_slots = 4 * NBLK,
	    .pending = pending,
	    .max_pending = 2 * NBLK,
	};
	struct kjit_config cfg;

	memset(blocks, 0, sizeof(blocks));
	memset(map, 0, sizeof(map));
	memset(pending, 0, sizeof(pending));
	henv_init(&f->h, KJIT_MEM_GS, NULL, NULL, DISPATCH);
	henv_add_region(&f->h, ORIG, code, sizeof(code));
	kjit_config_default(&cfg);
	cfg.native_calls = true; /* as kmod/session.c configures it */
	cfg.follow_indirect_calls = follow_indirect;
	if (kjit_translator_init(&f->tr, &f->h.env, &cfg) != KJIT_OK)
		return -1;
	return kjit_cache_init(&f->c, &m);
}

/* Only the exact address a callee returns to maps back to the original
 * return address: a task preempted anywhere else in the block (before the
 * call, say) must not be moved past the call. */
static void test_return_site_exact(void)
{
	struct fixture f;
	u64 run = 0, ret, a, hits = 0, wrong = 0;
	const struct kjit_block *b;

	if (fixture_init(&f, false) ||
	    kjit_cache_add(&f.c, &f.tr, ORIG, 0, &run) != KJIT_OK) {
		kt_fail("cache.return_site.exact", "setup failed");
		return;
	}
	b = &f.c.blocks[0].b;
	ret = run + b->ret_off;
	kt_check("cache.return_site.call_block",
		 b->ret_off && b->term == KJIT_I_CALL &&
		     b->orig + b->orig_len == CALL_END,
		 "ret_off %u term %u orig_len %u", b->ret_off, b->term,
		 b->orig_len);
	kt_check("cache.return_site.return_address",
		 kjit_cache_return_site(&f.c, ret) == CALL_END,
		 "run+%u maps to %#llx, not %#llx", b->ret_off,
		 (unsigned long long)kjit_cache_return_site(&f.c, ret),
		 (unsigned long long)CALL_END);
	for (a = run; a < run + b->len; a++) {
		if (a == ret)
			continue;
		hits += kjit_cache_return_site(&f.c, a) != 0;
		wrong += kjit_cache_return_site(&f.c, a) != 0 && a < ret;
	}
	kt_check("cache.return_site.exact", hits == 0,
		 "%llu other addresses of the block map to a return site "
		 "(%llu of them before the call)",
		 (unsigned long long)hits, (unsigned long long)wrong);
	kt_check("cache.return_site.outside",
		 !kjit_cache_return_site(&f.c, run - 1) &&
		     !kjit_cache_return_site(&f.c, RUN + sizeof(cache_rw)),
		 "addresses outside every block map to a return site");
}

int main(void)
{
	test_return_site_exact();
	return kt_exit();
}
