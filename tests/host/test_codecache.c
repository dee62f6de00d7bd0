/* test_codecache.c - host unit tests of codecache/, the module's own code
 * cache (kmod/ builds the same files): what detach's quiesce relies on,
 * and, with kjit_config.ibt, that the addresses the block map hands out
 * begin with endbr64.
 *
 * Nothing here executes translated code: the cache is given a run address
 * that is never mapped, and the tests read the metadata the cache keeps.
 */
#include <string.h>
#include "codecache/blockmap.h"
#include "codecache/cache.h"
#include "host_env.h"
#include "ibt_check.h"
#include "kjit_test.h"

#define ORIG	 0x400000ull   /* where the original code "is" */
#define RUN	 0x10000000ull /* run address of the cache's code */
#define DISPATCH 0x10800000ull
#define NBLK	 16

/* push %rbp; call callee; pop %rbp; ret; callee: ret */
static const u8 code[] = {0x55, 0xe8, 0x02, 0x00, 0x00, 0x00, 0x5d, 0xc3, 0xc3};
#define CALL_END (ORIG + 6) /* original return address of the call */

/* push %rbp; call *%rax; pop %rbp; ret: a followed indirect call */
#define ORIG_IND 0x500000ull
static const u8 code_ind[] = {0x55, 0xff, 0xd0, 0x5d, 0xc3};
/* an indirect jmp: xor %ecx,%ecx; jmp *%rax */
#define ORIG_JMP 0x580000ull
static const u8 code_jmp[] = {0x31, 0xc9, 0xff, 0xe0};

static u8 cache_rw[1 << 16];
static u64 counters[NBLK + 1];
static struct kjit_chunk chunk;
static struct kjit_chunk *dir[1];
static struct kjit_centry map[4 * NBLK];

struct fixture {
	struct henv h;
	struct kjit_translator tr;
	struct kjit_cache c;
};

/* The fixture's cache memory: the whole map, the directory's one chunk. */
static struct kjit_cache_mem fixture_mem(void)
{
	return (struct kjit_cache_mem){
	    .code_run = (u8 *)(unsigned long)RUN,
	    .code_rw = cache_rw,
	    .code_size = sizeof(cache_rw),
	    .counters_run = counters,
	    .counters_rw = counters,
	    .chunks = dir,
	    .max_blocks = NBLK,
	    .map = map,
	    .map_slots = 4 * NBLK,
	};
}

static int fixture_init(struct fixture *f, bool follow_indirect, bool ibt)
{
	struct kjit_cache_mem m = fixture_mem();
	struct kjit_config cfg;

	memset(&chunk, 0, sizeof(chunk));
	memset(map, 0, sizeof(map));
	dir[0] = &chunk;
	henv_init(&f->h, KJIT_MEM_GS, NULL, NULL, DISPATCH);
	henv_add_region(&f->h, ORIG, code, sizeof(code));
	henv_add_region(&f->h, ORIG_IND, code_ind, sizeof(code_ind));
	henv_add_region(&f->h, ORIG_JMP, code_jmp, sizeof(code_jmp));
	kjit_config_default(&cfg);
	cfg.native_calls = true; /* as kmod/session.c configures it */
	cfg.follow_indirect_calls = follow_indirect;
	cfg.predict_indirect_calls = follow_indirect; /* deep mode */
	cfg.ibt = ibt;
	if (kjit_translator_init(&f->tr, &f->h.env, &cfg) != KJIT_OK)
		return -1;
	return kjit_cache_init(&f->c, &m);
}

/* Only the exact address a callee returns to maps back to the original
 * return address: a task preempted anywhere else in the block (before the
 * call, say) must not be moved past the call. */
static void test_return_site_exact(bool ibt)
{
	const char *sfx = ibt ? ".ibt" : "";
	char name[64];
	struct fixture f;
	u64 run = 0, ret, a, hits = 0, wrong = 0;
	const struct kjit_block *b;

	if (fixture_init(&f, false, ibt) ||
	    kjit_cache_add(&f.c, &f.tr, ORIG, 0, &run) != KJIT_OK) {
		snprintf(name, sizeof(name), "cache.return_site.exact%s", sfx);
		kt_fail(name, "setup failed");
		return;
	}
	b = &(*kjit_cache_block(&f.c, 0)).b;
	ret = run + b->ret_off;
	snprintf(name, sizeof(name), "cache.return_site.call_block%s", sfx);
	kt_check(name,
		 b->ret_off && b->term == KJIT_I_CALL &&
		     b->orig + b->orig_len == CALL_END,
		 "ret_off %u term %u orig_len %u", b->ret_off, b->term,
		 b->orig_len);
	snprintf(name, sizeof(name), "cache.return_site.return_address%s", sfx);
	kt_check(name, kjit_cache_return_site(&f.c, ret) == CALL_END,
		 "run+%u maps to %#llx, not %#llx", b->ret_off,
		 (unsigned long long)kjit_cache_return_site(&f.c, ret),
		 (unsigned long long)CALL_END);
	for (a = run; a < run + b->len; a++) {
		if (a == ret)
			continue;
		hits += kjit_cache_return_site(&f.c, a) != 0;
		wrong += kjit_cache_return_site(&f.c, a) != 0 && a < ret;
	}
	snprintf(name, sizeof(name), "cache.return_site.exact%s", sfx);
	kt_check(name, hits == 0,
		 "%llu other addresses of the block map to a return site "
		 "(%llu of them before the call)",
		 (unsigned long long)hits, (unsigned long long)wrong);
	snprintf(name, sizeof(name), "cache.return_site.outside%s", sfx);
	kt_check(name,
		 !kjit_cache_return_site(&f.c, run - 1) &&
		     !kjit_cache_return_site(&f.c, RUN + sizeof(cache_rw)),
		 "addresses outside every block map to a return site");
}

/* Every linked direct exit of @f's blocks lands on its target's direct
 * entry: past the endbr64 with kjit_config.ibt (a direct branch needs none,
 * and each block would run one more instruction), on the block's start
 * without. */
static void check_direct_entries(struct fixture *f, const char *sfx)
{
	char name[64], first[200] = "";
	unsigned bad = 0, n = 0;
	u32 i, j, x;

	for (i = 0; i < f->c.n_blocks; i++) {
		const struct kjit_cblock *cb = &(*kjit_cache_block(&f->c, i));

		for (x = 0; x < cb->b.n_exits; x++) {
			const struct kjit_exit *ex = &cb->b.exit[x];
			u64 lands;
			s32 rel;

			if (!(cb->linked & (1u << x)))
				continue;
			memcpy(&rel,
			       cache_rw + (cb->run - RUN) + ex->branch_off, 4);
			lands = cb->run + ex->branch_off + 4 + (s64)rel;
			for (j = 0; j < f->c.n_blocks; j++) {
				const struct kjit_cblock *t =
				    &(*kjit_cache_block(&f->c, j));
				bool endbr = kx86_is_endbr64(
				    cache_rw + (t->run - RUN), 4);

				if (t->b.orig != ex->target)
					continue;
				n++;
				if (lands != t->run + (endbr ? 4 : 0) ||
				    endbr != (*sfx != 0))
					if (!bad++)
						snprintf(first, sizeof(first),
							 "exit %u of %#llx "
							 "lands at +%lld of "
							 "its target",
							 x,
							 (unsigned long long)
							     cb->b.orig,
							 (long long)(lands -
								     t->run));
			}
		}
	}
	snprintf(name, sizeof(name), "cache.direct_entry%s", sfx);
	kt_check(name, n && !bad, "%u links checked, %u bad; first: %s", n, bad,
		 first);
}

/* With kjit_config.ibt, what the block map hands out (kjit_cache_lookup:
 * what the dispatcher continues at and a trampoline's `jmp *%r11` lands
 * on) is the block's endbr64, and each block passes the IBT proof; the
 * call block's return address is 4 bytes further than without it. */
static void test_ibt_entries(void)
{
	static const u64 origs[] = {ORIG, CALL_END, ORIG + 8};
	struct fixture f, plain;
	struct ibtc c;
	u64 run = 0, ret_plain = 0;
	unsigned i, bad = 0;
	char first[300] = "";

	ibtc_init(&c);
	if (fixture_init(&plain, false, false) ||
	    kjit_cache_add(&plain.c, &plain.tr, ORIG, 0, &run) != KJIT_OK) {
		kt_fail("cache.ibt.entries", "setup failed");
		return;
	}
	ret_plain = (*kjit_cache_block(&plain.c, 0)).b.ret_off;
	for (i = 1; i < KJIT_ARRAY_SIZE(origs); i++)
		kjit_cache_add(&plain.c, &plain.tr, origs[i], 0, &run);
	check_direct_entries(&plain, ""); /* before f reuses the memory */
	memset(cache_rw, 0xcc, sizeof(cache_rw));
	if (fixture_init(&f, false, true)) {
		kt_fail("cache.ibt.entries", "setup failed");
		return;
	}
	for (i = 0; i < KJIT_ARRAY_SIZE(origs); i++) {
		const struct kjit_cblock *cb = &(*kjit_cache_block(&f.c, i));
		const u8 *at;

		if (kjit_cache_add(&f.c, &f.tr, origs[i], 0, &run) ||
		    kjit_cache_lookup(&f.c, origs[i]) != run) {
			if (!bad++)
				snprintf(first, sizeof(first),
					 "block %#llx not added",
					 (unsigned long long)origs[i]);
			continue;
		}
		at = cache_rw + (run - RUN);
		if (!kx86_is_endbr64(at, 4) && !bad++)
			snprintf(first, sizeof(first),
				 "lookup of %#llx gives %#llx, not an endbr64",
				 (unsigned long long)origs[i],
				 (unsigned long long)run);
		if (ibtc_block(&c, kjit_last_desc(&f.tr), &cb->b, at, run) &&
		    !bad++)
			snprintf(first, sizeof(first), "block %#llx: %.200s",
				 (unsigned long long)origs[i], c.msg);
	}
	kt_check("cache.ibt.entries", !bad, "%u bad; first: %s", bad, first);
	check_direct_entries(&f, ".ibt");
	kt_check("cache.ibt.ret_off",
		 (*kjit_cache_block(&f.c, 0)).b.ret_off ==
			 ret_plain + KX86_ENDBR64_LEN &&
		     kjit_cache_return_site(
			 &f.c, (*kjit_cache_block(&f.c, 0)).run +
				   (*kjit_cache_block(&f.c, 0)).b.ret_off) ==
			 CALL_END,
		 "ret_off %u with ibt, %llu without",
		 (*kjit_cache_block(&f.c, 0)).b.ret_off,
		 (unsigned long long)ret_plain);
}

/* Blocks that branch to refused code: A jumps to B, whose load has an
 * exception-table fixup (a refusal that lasts); C jumps to D, an int3 (a
 * refusal that does not: the kernel plants int3s for a moment). */
#define REF   (ORIG + 0x100)
#define REF_B (REF + 2)
#define REF_C (REF + 5)
#define REF_D (REF + 7)
static const u8 ref_code[] = {
    0xeb, 0x00,	      /* A: jmp B */
    0x8b, 0x07, 0xc3, /* B: mov (%rdi),%eax (fixup); ret */
    0xeb, 0x00,	      /* C: jmp D */
    0xcc,	      /* D: int3 */
};
static const u64 ref_fixups[] = {REF_B};

/* The exit of block @bi is linked (any target). */
static bool exit_linked(const struct fixture *f, u64 orig)
{
	u32 i;

	for (i = 0; i < f->c.n_blocks; i++)
		if ((*kjit_cache_block(&f->c, i)).b.orig == orig)
			return (*kjit_cache_block(&f->c, i)).linked & 1;
	return false;
}

/* The fixture with ref_code and its fixup; 0, or -1 after a FAIL line. */
static int ref_fixture_init(struct fixture *f)
{
	if (fixture_init(f, false, false)) {
		kt_fail("cache.refusal.setup", "fixture");
		return -1;
	}
	henv_add_region(&f->h, REF, ref_code, sizeof(ref_code));
	f->h.fixups = ref_fixups;
	f->h.n_fixups = 1;
	return 0;
}

/* A lasting refusal is remembered: translated once, never again, and every
 * exit to it (one waiting before, one added after) linked straight to the
 * original code; a passing one (int3) is tried again. The dispatcher relies
 * on it: without it every visit to a block with a fixup re-ran the
 * translator (lat_sig_catch: 8.6 dispatcher entries per signal). */
static void test_lasting_refusal(void)
{
	struct fixture f;
	u64 run = 0;
	enum kjit_reason r1, r2, rd1, rd2;
	bool waiting_linked;

	if (ref_fixture_init(&f))
		return;
	/* A first: its exit waits for B */
	if (kjit_cache_add(&f.c, &f.tr, REF, 0, &run) != KJIT_OK) {
		kt_fail("cache.refusal.setup", "block A not added");
		return;
	}
	r1 = kjit_cache_add(&f.c, &f.tr, REF_B, 0, &run);
	waiting_linked = exit_linked(&f, REF);
	r2 = kjit_cache_add(&f.c, &f.tr, REF_B, 0, &run);
	kt_check("cache.refusal.remembered",
		 r1 == KJIT_R_FIXUP && r2 == KJIT_R_FIXUP &&
		     kjit_cache_native(&f.c, REF_B) &&
		     !kjit_cache_lookup(&f.c, REF_B) &&
		     f.c.stats.refused == 1 && f.c.stats.native == 1,
		 "reasons %s, %s; native %d; translator ran %llu time(s)",
		 kjit_reason_name(r1), kjit_reason_name(r2),
		 kjit_cache_native(&f.c, REF_B),
		 (unsigned long long)f.c.stats.refused);
	kt_check("cache.refusal.waiting_exit_linked", waiting_linked,
		 "A's exit to B still goes to the dispatcher");
	/* D refused for a moment, then C: C's exit must wait, not go native */
	rd1 = kjit_cache_add(&f.c, &f.tr, REF_D, 0, &run);
	rd2 = kjit_cache_add(&f.c, &f.tr, REF_D, 0, &run);
	if (kjit_cache_add(&f.c, &f.tr, REF_C, 0, &run) != KJIT_OK) {
		kt_fail("cache.refusal.passing", "block C not added");
		return;
	}
	kt_check("cache.refusal.passing",
		 rd1 == KJIT_R_TRAP && rd2 == KJIT_R_TRAP &&
		     !kjit_cache_native(&f.c, REF_D) &&
		     !exit_linked(&f, REF_C) && f.c.stats.refused == 3,
		 "int3: reasons %s, %s; native %d; C linked %d; refusals %llu",
		 kjit_reason_name(rd1), kjit_reason_name(rd2),
		 kjit_cache_native(&f.c, REF_D), exit_linked(&f, REF_C),
		 (unsigned long long)f.c.stats.refused);
}

/* A block added after the refusal links its exit to the original code. */
static void test_lasting_refusal_later_exit(void)
{
	struct fixture f;
	u64 run = 0;
	u64 links;

	if (ref_fixture_init(&f))
		return;
	kjit_cache_add(&f.c, &f.tr, REF_B, 0, &run);
	links = f.c.stats.native_links;
	if (kjit_cache_add(&f.c, &f.tr, REF, 0, &run) != KJIT_OK) {
		kt_fail("cache.refusal.later_exit_linked", "block A not added");
		return;
	}
	kt_check("cache.refusal.later_exit_linked",
		 exit_linked(&f, REF) && f.c.stats.native_links == links + 1,
		 "A's exit linked %d, native links %llu -> %llu",
		 exit_linked(&f, REF), (unsigned long long)links,
		 (unsigned long long)f.c.stats.native_links);
}

/* The cache holds exactly what the translator emits for a block (staged,
 * then copied in words: codecache/cache.h), the area after it stays int3,
 * and a block that fills the area to its last byte - a size that need not
 * be a multiple of 8 - is neither refused nor written past. */
static void test_staged_copy(void)
{
	static u8 want[KJIT_MAX_BLOCK_BYTES];
	struct kjit_block blk;
	struct fixture f;
	enum kjit_reason r;
	u64 run = 0;
	u32 i, len, bad = 0;

	if (fixture_init(&f, false, false) ||
	    kjit_translate(&f.tr, ORIG, want, sizeof(want), RUN, &blk) !=
		KJIT_OK) {
		kt_fail("cache.stage.bytes", "setup failed");
		return;
	}
	len = blk.len;
	memset(cache_rw, 0xcc, sizeof(cache_rw));
	if (fixture_init(&f, false, false) ||
	    kjit_cache_add(&f.c, &f.tr, ORIG, 0, &run) != KJIT_OK) {
		kt_fail("cache.stage.bytes", "add failed");
		return;
	}
	kt_check(
	    "cache.stage.bytes",
	    run == RUN && (*kjit_cache_block(&f.c, 0)).b.len == len &&
		!memcmp(cache_rw, want, len),
	    "the cache's %u bytes at %#llx differ from the translator's %u",
	    (*kjit_cache_block(&f.c, 0)).b.len, (unsigned long long)run, len);
	for (i = len; i < len + 64; i++)
		bad += cache_rw[i] != 0xcc;
	kt_check("cache.stage.int3_after", !bad,
		 "%u of the 64 bytes after the block are not int3", bad);

	memset(cache_rw, 0x5a, sizeof(cache_rw));
	if (fixture_init(&f, false, false)) {
		kt_fail("cache.stage.exact_fit", "setup failed");
		return;
	}
	f.c.code_size = len; /* the block fills the area exactly */
	r = kjit_cache_add(&f.c, &f.tr, ORIG, 0, &run);
	bad = 0;
	for (i = len; i < len + 16; i++)
		bad += cache_rw[i] != 0x5a;
	kt_check("cache.stage.exact_fit",
		 r == KJIT_OK && !memcmp(cache_rw, want, len) && !bad,
		 "a %u-byte block in a %u-byte area: not added, wrong bytes, "
		 "or %u bytes written past the area",
		 len, len, bad);
}

/* The two patched fields of way @k of block 0's prediction site. */
static void pred_fields(const struct fixture *f, unsigned k, u32 *imm, s32 *rel)
{
	const struct kjit_cblock *cb = &(*kjit_cache_block(&f->c, 0));
	const u8 *rw = cache_rw + (cb->run - RUN);

	memcpy(imm, rw + cb->b.pred_imm_off + KJIT_PRED_STRIDE * k, 4);
	memcpy(rel, rw + cb->b.pred_jmp_off + KJIT_PRED_STRIDE * k, 4);
}

/* Does way @k hold @t with its je landing at @d? */
static bool way_holds(const struct fixture *f, unsigned k, u64 t, u64 d)
{
	const struct kjit_cblock *cb = &(*kjit_cache_block(&f->c, 0));
	u32 imm;
	s32 rel;

	pred_fields(f, k, &imm, &rel);
	return imm == (u32)t && cb->run + cb->b.pred_jmp_off +
					KJIT_PRED_STRIDE * k + 4 + (s64)rel ==
				    d;
}

/* kjit_cache_predict_jump: only at the exact miss path of a block with an
 * indirect jmp's prediction site; way k's lea disp32 holds -target and its
 * hit stub's rel32 lands at the continuation; ways fill in order, once
 * per target, and stay. */
static void test_predict_jump(void)
{
	const u64 t = 0x12345670, d = RUN + 0x1000;
	struct fixture f;
	u64 run = 0, site;
	const struct kjit_cblock *cb;
	const u8 *rw;
	unsigned k, bad = 0;
	u32 disp;
	s32 rel;

	if (fixture_init(&f, true, false)) {
		kt_fail("cache.predict_jump.site", "setup failed");
		return;
	}
	f.tr.cfg.predict_indirect_jumps = true;
	f.h.env.jsite_gs = 0x7ff0;
	if (kjit_cache_add(&f.c, &f.tr, ORIG_JMP, 0, &run) != KJIT_OK) {
		kt_fail("cache.predict_jump.site", "not translated");
		return;
	}
	cb = &(*kjit_cache_block(&f.c, 0));
	rw = cache_rw + (cb->run - RUN);
	site = run + cb->b.jsite_off;
	kt_check("cache.predict_jump.site",
		 cb->b.jsite_off && cb->b.pred_imm_off && cb->b.pred_jmp_off &&
		     !cb->b.ret_off,
		 "jsite +%u imm +%u jmp +%u ret +%u", cb->b.jsite_off,
		 cb->b.pred_imm_off, cb->b.pred_jmp_off, cb->b.ret_off);
	kt_check("cache.predict_jump.not_the_site",
		 !kjit_cache_predict_jump(&f.c, site + 1, t, d) &&
		     !kjit_cache_predict_jump(&f.c, site - 1, t, d) &&
		     !kjit_cache_predict(&f.c, site, t, d),
		 "set from an address next to the site, or as a call's");
	kt_check("cache.predict_jump.target_not_imm32",
		 !kjit_cache_predict_jump(&f.c, site, t | 1ull << 32, d) &&
		     !kjit_cache_predict_jump(&f.c, site, 0xffffffff80000000ull,
					      d) &&
		     !kjit_cache_predict_jump(&f.c, site, 0, d),
		 "set for a target whose negation a disp32 cannot hold");
	for (k = 0; k < KJIT_PRED_WAYS; k++)
		bad += !kjit_cache_predict_jump(&f.c, site, t + 0x40 * k,
						d + 0x40 * k);
	bad += kjit_cache_predict_jump(&f.c, site, t, d + 0x80);
	bad += kjit_cache_predict_jump(&f.c, site, t + 0x1000, d);
	kt_check("cache.predict_jump.ways", !bad,
		 "%u of the ways refused, or a repeated or fourth target set",
		 bad);
	for (k = 0; k < KJIT_PRED_WAYS; k++) {
		memcpy(&disp,
		       rw + cb->b.pred_imm_off + KJIT_JPRED_WAY_STRIDE * k, 4);
		memcpy(&rel,
		       rw + cb->b.pred_jmp_off + KJIT_JPRED_HIT_STRIDE * k, 4);
		bad += disp != 0u - (u32)(t + 0x40 * k) ||
		       run + cb->b.pred_jmp_off + KJIT_JPRED_HIT_STRIDE * k +
			       4 + (s64)rel !=
			   d + 0x40 * k;
	}
	kt_check("cache.predict_jump.fields", !bad,
		 "%u ways hold the wrong disp32 or continuation", bad);
	/* every way filled: the miss path names no site any more */
	memcpy(&disp, rw + cb->b.jsite_off + KJIT_JSITE_IMM_OFF, 4);
	kt_check("cache.predict_jump.full_site_silent", disp == 0,
		 "the miss path still names its site (%#x)", disp);
	if (fixture_init(&f, true, false))
		return;
	f.tr.cfg.predict_indirect_jumps = true;
	f.h.env.jsite_gs = 0x7ff0;
	if (kjit_cache_add(&f.c, &f.tr, ORIG_JMP, 0, &run) != KJIT_OK)
		return;
	cb = &(*kjit_cache_block(&f.c, 0));
	rw = cache_rw + (cb->run - RUN);
	site = run + cb->b.jsite_off;
	memcpy(&disp, rw + cb->b.jsite_off + KJIT_JSITE_IMM_OFF, 4);
	bad = disp != (u32)site;
	bad += !kjit_cache_predict_jump(&f.c, site, t, d);
	memcpy(&disp, rw + cb->b.jsite_off + KJIT_JSITE_IMM_OFF, 4);
	bad += disp != (u32)site;
	bad += kjit_cache_predict_jump(&f.c, site, 0xffffffff80000000ull, d);
	memcpy(&disp, rw + cb->b.jsite_off + KJIT_JSITE_IMM_OFF, 4);
	kt_check("cache.predict_jump.unfillable_site_silent", !bad && disp == 0,
		 "the site's name %#x after a target no way can hold (%u)",
		 disp, bad);
}

/* kjit_cache_predict: only at the exact return address of a block with a
 * prediction site, only a target that fits the sign-extended imm32 and a
 * continuation in rel32 reach; each new target fills the next empty way
 * (a loop over hooks calls several from one site), a target a way has
 * already is not set twice, and filled ways stay. */
static void test_predict(void)
{
	const u64 t = 0x12345670, d = RUN + 0x1000;
	struct fixture f;
	u64 run = 0, ret;
	const struct kjit_cblock *cb;
	unsigned k, bad = 0;
	u32 imm;
	s32 rel;

	if (fixture_init(&f, true, false) ||
	    kjit_cache_add(&f.c, &f.tr, ORIG_IND, 0, &run) != KJIT_OK) {
		kt_fail("cache.predict.site", "setup failed");
		return;
	}
	cb = &(*kjit_cache_block(&f.c, 0));
	ret = run + cb->b.ret_off;
	kt_check("cache.predict.site",
		 cb->b.pred_imm_off && cb->b.pred_jmp_off && cb->b.ret_off,
		 "imm +%u jmp +%u ret +%u", cb->b.pred_imm_off,
		 cb->b.pred_jmp_off, cb->b.ret_off);
	kt_check("cache.predict.not_exact_return",
		 !kjit_cache_predict(&f.c, ret + 1, t, d) &&
		     !kjit_cache_predict(&f.c, ret - 1, t, d),
		 "set from an address next to the return address");
	kt_check("cache.predict.target_not_imm32",
		 !kjit_cache_predict(&f.c, ret, t | 1ull << 32, d) &&
		     !kjit_cache_predict(&f.c, ret, 0x80000000ull, d) &&
		     !kjit_cache_predict(&f.c, ret, 0, d),
		 "set for a target a sign-extended imm32 cannot hold");
	kt_check("cache.predict.out_of_reach",
		 !kjit_cache_predict(&f.c, ret, t, RUN + (1ull << 33)),
		 "set with a continuation out of rel32 reach");
	for (k = 0; k < KJIT_PRED_WAYS; k++) {
		pred_fields(&f, k, &imm, &rel);
		bad += imm || rel;
	}
	kt_check("cache.predict.untouched", !bad, "refused calls wrote %u ways",
		 bad);
	kt_check("cache.predict.set", kjit_cache_predict(&f.c, ret, t, d),
		 "refused");
	kt_check("cache.predict.fields", way_holds(&f, 0, t, d),
		 "way 0 does not hold the target and its continuation");
	kt_check("cache.predict.same_target_once",
		 !kjit_cache_predict(&f.c, ret, t, d + 0x40),
		 "a target way 0 holds was set again");
	for (k = 1; k < KJIT_PRED_WAYS; k++)
		bad +=
		    !kjit_cache_predict(&f.c, ret, t + 0x40 * k, d + 0x40 * k);
	kt_check("cache.predict.next_ways", !bad,
		 "%u of %u further targets refused", bad, KJIT_PRED_WAYS - 1);
	kt_check("cache.predict.ways_full",
		 !kjit_cache_predict(&f.c, ret, t + 0x1000, d + 0x1000),
		 "a target set with every way filled");
	for (k = 0; k < KJIT_PRED_WAYS; k++)
		bad += !way_holds(&f, k, t + 0x40 * k, d + 0x40 * k);
	kt_check("cache.predict.ways_stay", !bad,
		 "%u ways changed or hold the wrong target", bad);
	kt_check("cache.predict.counted", f.c.stats.predicted == KJIT_PRED_WAYS,
		 "predicted %llu", (unsigned long long)f.c.stats.predicted);
	/* a block without a prediction site (a direct call) */
	if (fixture_init(&f, true, false) ||
	    kjit_cache_add(&f.c, &f.tr, ORIG, 0, &run) != KJIT_OK)
		return;
	kt_check("cache.predict.no_site",
		 !kjit_cache_predict(
		     &f.c, run + (*kjit_cache_block(&f.c, 0)).b.ret_off, t, d),
		 "set in a block with no prediction site");
}

/* Code areas (cache.h): a cache that starts with none takes them from
 * more_code() as it fills, in address order; blocks stay in address order
 * and links and return sites work across areas; place() refusing a block
 * moves it to the next area; with no area left it is full. */
#define AREA_ORIG  0x600000ull
#define AREA_BLKS  24
#define AREA_SIZE  256u
#define AREA_COUNT 4
static u8 area_code[3 * AREA_BLKS]; /* nop; jmp .+2 (to the next block) */
struct area_ctx {
	unsigned given, placed, refuse_at; /* refuse the refuse_at-th place */
};

static bool area_more(void *ctx, u8 **run, u8 **rw, u32 *size)
{
	struct area_ctx *a = ctx;
	u64 off = (u64)a->given * 0x1000; /* gaps between areas */

	if (a->given == AREA_COUNT)
		return false;
	a->given++;
	*run = (u8 *)(unsigned long)(RUN + off);
	*rw = cache_rw + off;
	*size = AREA_SIZE;
	return true;
}

static bool area_place(void *ctx, const struct kjit_block *b,
		       const struct kjit_translator *tr, u64 run)
{
	struct area_ctx *a = ctx;

	return ++a->placed != a->refuse_at;
}

static void test_areas(void)
{
	struct area_ctx a = {.refuse_at = 3};
	struct fixture f;
	u64 run = 0, prev = 0;
	unsigned i, in_order = 1, added = 0;
	enum kjit_reason r = KJIT_OK;

	for (i = 0; i < AREA_BLKS; i++) {
		area_code[3 * i] = 0x90;
		area_code[3 * i + 1] = 0xeb; /* jmp rel8 0: the next block */
		area_code[3 * i + 2] = 0x00;
	}
	if (fixture_init(&f, false, false)) {
		kt_fail("cache.areas.setup", "fixture");
		return;
	}
	henv_add_region(&f.h, AREA_ORIG, area_code, sizeof(area_code));
	memset(cache_rw, 0xcc, sizeof(cache_rw));
	f.c.code_size = f.c.code_used = 0; /* no area until more_code() */
	f.c.more_code = area_more;
	f.c.place = area_place;
	f.c.ctx = &a;
	for (i = 0; i < AREA_BLKS; i++) {
		r = kjit_cache_add(&f.c, &f.tr, AREA_ORIG + 3 * i, 0, &run);
		if (r)
			break;
		added++;
		in_order &= run > prev;
		prev = run;
	}
	kt_check("cache.areas.in_order",
		 added > 8 && in_order && f.c.stats.areas == AREA_COUNT,
		 "%u blocks added, in order %u, areas taken %llu", added,
		 in_order, (unsigned long long)f.c.stats.areas);
	kt_check("cache.areas.full",
		 r == KJIT_R_NO_SPACE && f.c.stats.full >= 1 &&
		     added < AREA_BLKS,
		 "after %u blocks: %s, full %llu", added, kjit_reason_name(r),
		 (unsigned long long)f.c.stats.full);
	/* the 3rd block was refused by place(): it went to area 2 */
	kt_check("cache.areas.place_refused_moves",
		 (*kjit_cache_block(&f.c, 2)).run >= RUN + 0x1000 &&
		     (*kjit_cache_block(&f.c, 1)).run < RUN + 0x1000,
		 "block 2 at %#llx, block 1 at %#llx",
		 (unsigned long long)(*kjit_cache_block(&f.c, 2)).run,
		 (unsigned long long)(*kjit_cache_block(&f.c, 1)).run);
	/* every block's exit to its successor is linked, areas crossed */
	for (i = 0; i + 1 < added; i++)
		if (!((*kjit_cache_block(&f.c, i)).linked & 1))
			break;
	kt_check("cache.areas.links_across", i + 1 >= added,
		 "block %u's exit is not linked", i);
	kt_check("cache.areas.bytes",
		 f.c.stats.bytes > AREA_SIZE &&
		     f.c.stats.bytes <= AREA_COUNT * AREA_SIZE,
		 "%llu bytes used", (unsigned long long)f.c.stats.bytes);
}

/* A cache that grows (cache.h, "Growing"): a missing chunk or a map with
 * no room is "growing" while the limit is not reached, "table full" only
 * at the limit; a bigger map is adopted with every entry. */
static void test_grow(void)
{
	static struct kjit_centry small[4], big[64];
	struct kjit_centry *old;
	struct fixture f;
	u64 run, run0 = 0;
	u32 want_chunks, want_map;
	struct kjit_cache_mem m = fixture_mem();
	enum kjit_reason r0, r1, r2, r3;

	m.map = small; /* 4 slots that may grow to 64 */
	m.map_slots = 4;
	m.map_max_slots = 64;
	memset(small, 0, sizeof(small));
	memset(big, 0, sizeof(big));
	if (fixture_init(&f, false, false) || kjit_cache_init(&f.c, &m)) {
		kt_fail("cache.grow.setup", "setup failed");
		return;
	}
	dir[0] = NULL; /* no chunk yet */
	r0 = kjit_cache_add(&f.c, &f.tr, ORIG, 0, &run);
	want_chunks = kjit_cache_chunks_wanted(&f.c);
	kt_check("cache.grow.no_chunk",
		 r0 == KJIT_R_NO_SPACE && f.c.stats.growing == 1 &&
		     !f.c.stats.table_full && want_chunks == 1 &&
		     kjit_cache_wants_room(&f.c),
		 "reason %d, growing %llu, table_full %llu, chunks wanted %u",
		 r0, (unsigned long long)f.c.stats.growing,
		 (unsigned long long)f.c.stats.table_full, want_chunks);
	kjit_cache_offer_chunk(&f.c, 0, &chunk);
	r1 = kjit_cache_add(&f.c, &f.tr, ORIG, 0, &run0);
	/* ORIG's exits took the map's other entries: half of 4 slots */
	r2 = kjit_cache_add(&f.c, &f.tr, CALL_END, 0, &run);
	want_map = kjit_cache_map_wanted(&f.c);
	kt_check("cache.grow.small_map",
		 r1 == KJIT_OK && r2 == KJIT_R_NO_SPACE &&
		     f.c.stats.growing == 2 && !f.c.stats.table_full &&
		     want_map == 64,
		 "adds %d %d, growing %llu, table_full %llu, map wanted %u", r1,
		 r2, (unsigned long long)f.c.stats.growing,
		 (unsigned long long)f.c.stats.table_full, want_map);
	kjit_cache_offer_map(&f.c, big, 64);
	r3 = kjit_cache_add(&f.c, &f.tr, CALL_END, 0, &run);
	old = kjit_cache_retired_map(&f.c);
	kt_check(
	    "cache.grow.map_adopted",
	    r3 == KJIT_OK && f.c.map == big && old == small &&
		f.c.stats.maps == 1 && kjit_cache_lookup(&f.c, ORIG) == run0 &&
		kjit_cache_lookup(&f.c, CALL_END) == run &&
		!kjit_cache_map_wanted(&f.c) && !kjit_cache_retired_map(&f.c),
	    "add %d, map %s, retired %s, lookups %#llx/%#llx", r3,
	    f.c.map == big ? "big" : "not big",
	    old == small ? "small" : "not small",
	    (unsigned long long)kjit_cache_lookup(&f.c, ORIG),
	    (unsigned long long)kjit_cache_lookup(&f.c, CALL_END));

	/* at the limit: one block */
	memset(&chunk, 0, sizeof(chunk));
	memset(big, 0, sizeof(big));
	m.max_blocks = 1;
	m.map = big;
	m.map_slots = m.map_max_slots = 64;
	dir[0] = &chunk;
	if (kjit_cache_init(&f.c, &m)) {
		kt_fail("cache.grow.limit", "setup failed");
		return;
	}
	r0 = kjit_cache_add(&f.c, &f.tr, ORIG, 0, &run);
	r1 = kjit_cache_add(&f.c, &f.tr, CALL_END, 0, &run);
	kt_check("cache.grow.limit",
		 r0 == KJIT_OK && r1 == KJIT_R_NO_SPACE &&
		     f.c.stats.table_full == 1 && !f.c.stats.growing &&
		     !kjit_cache_wants_room(&f.c),
		 "adds %d %d, table_full %llu, growing %llu", r0, r1,
		 (unsigned long long)f.c.stats.table_full,
		 (unsigned long long)f.c.stats.growing);
}

/* The block map at half load (the most it takes): 32 blocks in 64 slots
 * collide (any hash does, for fixed addresses: the birthday bound), and
 * every one must be found again past its collisions, nothing else. */
static void test_map_collisions(void)
{
	static struct kjit_centry slots[64];
	static struct kjit_cache c;
	u32 used = 0, i, bad = 0;

	memset(slots, 0, sizeof(slots));
	c.map = slots;
	c.map_mask = 63;
	for (i = 0; i < 32; i++) {
		struct kjit_centry *e = kjit_map_get(&c, ORIG + 16 * i, &used);

		bad += !e || e->orig != ORIG + 16 * i;
	}
	for (i = 0; i < 32; i++) {
		const struct kjit_centry *e = kjit_map_find(&c, ORIG + 16 * i);

		bad += !e || e->orig != ORIG + 16 * i;
	}
	bad += kjit_map_find(&c, ORIG + 8) != NULL; /* never added */
	bad += kjit_map_get(&c, ORIG + 16 * 32, &used) != NULL; /* full */
	kt_check("cache.map.collisions", !bad && used == 32,
		 "%u of 34 lookups wrong, %u entries", bad, used);
}

int main(void)
{
	test_map_collisions();
	test_areas();
	test_grow();
	test_staged_copy();
	test_return_site_exact(false);
	test_return_site_exact(true);
	test_ibt_entries();
	test_lasting_refusal();
	test_lasting_refusal_later_exit();
	test_predict();
	test_predict_jump();
	return kt_exit();
}
