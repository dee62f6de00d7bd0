/* host_cache.c - host code cache and dispatcher (see host_cache.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "tests/host/host_cache.h"

/* Above where the heap may start: brk is randomised up to 1 GiB past the
 * end of .bss on x86-64 (arch_randomize_brk), and a heap at 0x40000000
 * made MAP_FIXED_NOREPLACE fail now and then; still below 2 GiB. */
#define HC_RX_ADDR 0x60000000ul
#define HC_SIZE	   (16ul << 20)
#define HC_SLOTS   5 /* caches that can live at once (hc_init_slot) */

struct hc *hc_cur;
static u64 hc_ctr[HC_SLOTS][HENV_MAX_CTRS], hc_key[HC_SLOTS][HENV_MAX_CTRS];
/* an indirect jmp's miss path leaves its target and site here
 * (kjit_env.jsite_gs, relative to the GS base: hc_use_jsite) */
static u64 hc_jsite[HC_SLOTS][2];

/* Dispatcher: see jit/exit.h for the contract. 9 saved GPRs + flags put
 * the target slot at 80(%rsp) (88(%rbp) once rbp is pushed). The fast path
 * (hit in the block table) is integer-only C; only a miss, which may
 * translate and so run Zydis and libc, saves the FP/SSE state (fxsave). */
__asm__(".text\n.globl host_dispatch\nhost_dispatch:\n"
	"  pushfq\n push %rax\n push %rcx\n push %rdx\n push %rsi\n push %rdi\n"
	"  push %r8\n push %r9\n push %r10\n push %r11\n"
	"  cld\n"
	"  push %rbp\n mov %rsp,%rbp\n and $-64,%rsp\n"
	"  mov 88(%rbp),%rsi\n mov hc_cur(%rip),%rdi\n call hc_lookup_fast\n"
	"  test %rax,%rax\n jnz 1f\n"
	"  sub $512,%rsp\n fxsave64 (%rsp)\n"
	"  mov 88(%rbp),%rsi\n mov hc_cur(%rip),%rdi\n call hc_lookup\n"
	"  fxrstor64 (%rsp)\n"
	"1: mov 88(%rbp),%rsi\n mov 96(%rbp),%rdx\n mov %rax,%rcx\n"
	"  mov hc_cur(%rip),%rdi\n push %rax\n push %rax\n call hc_predict\n"
	"  pop %rax\n pop %rax\n"
	"  mov %rbp,%rsp\n pop %rbp\n"
	"  mov %rax,80(%rsp)\n"
	"  pop %r11\n pop %r10\n pop %r9\n pop %r8\n pop %rdi\n pop %rsi\n"
	"  pop %rdx\n pop %rcx\n pop %rax\n popfq\n"
	"  ret\n");

#define GPR_ONLY __attribute__((target("general-regs-only")))

GPR_ONLY static unsigned hslot(u64 a)
{
	return (unsigned)((a * 0x9e3779b97f4a7c15ull) >> 40) %
	       (HC_MAX_BLOCKS * 2);
}

GPR_ONLY struct hc_block *hc_find(struct hc *c, u64 orig)
{
	unsigned i;

	for (i = hslot(orig); c->hash[i] >= 0;
	     i = (i + 1) % (HC_MAX_BLOCKS * 2))
		if (c->blk[c->hash[i]].orig == orig)
			return &c->blk[c->hash[i]];
	return NULL;
}

static void insert(struct hc *c, unsigned idx)
{
	unsigned i;

	for (i = hslot(c->blk[idx].orig); c->hash[i] >= 0;
	     i = (i + 1) % (HC_MAX_BLOCKS * 2))
		;
	c->hash[i] = (int)idx;
}

/* After patching exit @x, its own branch field (read back through the exit
 * table, not through the patch's offset) must lead to @dest. A patch that
 * does not is undone (the code keeps going through the stub, so a test is
 * not left looping) and reported through c->bad_links. */
static void check_link(struct hc *c, struct hc_block *b, unsigned x, u64 dest,
		       u32 *field, u32 patched, u32 old)
{
	u32 boff = b->meta.exit[x].branch_off;
	u32 *own = (u32 *)(c->rw + (b->run - (u64)(uintptr_t)c->rx) + boff);
	u64 lands = b->run + boff + 4 + (s64)(s32)*own;

	if (lands == dest)
		return;
	__atomic_compare_exchange_n(field, &patched, old, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	if (!c->bad_links++)
		snprintf(c->bad_link_msg, sizeof(c->bad_link_msg),
			 "link of exit %u of block %#llx lands at %#llx, "
			 "not %#llx",
			 x, (unsigned long long)b->orig,
			 (unsigned long long)lands, (unsigned long long)dest);
}

/* patch exit @x of @b to jump to @dest (one aligned 4-byte store) */
static void link_exit(struct hc *c, struct hc_block *b, unsigned x, u64 dest)
{
	u32 off, nv, ov, old, *field;

	if (kjit_exit_patch(&b->meta, b->run, x, dest, &off, &nv, &ov))
		return;
	field = (u32 *)(c->rw + (b->run - (u64)(uintptr_t)c->rx) + off);
	old = ov;
	if (__atomic_compare_exchange_n(field, &ov, nv, false, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST)) {
		c->links++;
		check_link(c, b, x, dest, field, nv, old);
	}
}

static void link_new(struct hc *c, struct hc_block *nb)
{
	unsigned i, x;

	for (x = 0; x < nb->meta.n_exits; x++) {
		struct hc_block *t;

		if (nb->meta.exit[x].kind != KJIT_EXIT_DIRECT)
			continue;
		t = hc_find(c, nb->meta.exit[x].target);
		if (t) /* a direct branch skips the endbr64 */
			link_exit(c, nb, x, t->run + t->meta.direct_off);
	}
	for (i = 0; i + 1 < c->n_blk; i++)
		for (x = 0; x < c->blk[i].meta.n_exits; x++)
			if (c->blk[i].meta.exit[x].kind == KJIT_EXIT_DIRECT &&
			    c->blk[i].meta.exit[x].target == nb->orig)
				link_exit(c, &c->blk[i], x,
					  nb->run + nb->meta.direct_off);
}

/* Dispatcher fast path: the translation of @orig, or 0 (slow path). */
/* The word above the target (@ret) is the exact return address of a
 * followed indirect call with a prediction site: fill its next empty way
 * with @target -> @dest, as kjit_cache_predict() does for the module's
 * cache (codecache/cache.c): the immediate first, then the je's rel32. */
/* The block whose code holds run-time address @a, or NULL. */
GPR_ONLY static const struct hc_block *block_holding(const struct hc *c, u64 a)
{
	unsigned lo = 0, hi = c->n_blk, mid;

	while (lo < hi) { /* blocks lie in the cache in the order made */
		mid = lo + (hi - lo) / 2;
		if (c->blk[mid].run <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &c->blk[lo - 1] : NULL;
}

/* An indirect jmp's site (its miss path at @site, the one that ran last)
 * went to @target: fill its next way, as kjit_cache_predict_jump(). */
GPR_ONLY static void predict_jump(struct hc *c, u64 site, u64 target, u64 dest)
{
	const struct hc_block *b = block_holding(c, site);
	u32 imm_off, imm, rel_off, rel;
	u8 *rw;

	if (!b || !b->meta.jsite_off || site != b->run + b->meta.jsite_off)
		return;
	rw = c->rw + (b->run - (u64)(uintptr_t)c->rx);
	if (kjit_jpred_patch(b->meta.pred_imm_off, b->meta.pred_jmp_off, b->run,
			     rw, target, dest, &imm_off, &imm, &rel_off, &rel))
		return;
	__atomic_store_n((u32 *)(rw + imm_off), imm, __ATOMIC_RELEASE);
	__atomic_store_n((u32 *)(rw + rel_off), rel, __ATOMIC_RELEASE);
	c->predicted++;
	c->jpredicted++;
}

GPR_ONLY void hc_predict(struct hc *c, u64 target, u64 ret, u64 dest);
GPR_ONLY void hc_predict(struct hc *c, u64 target, u64 ret, u64 dest)
{
	const struct hc_block *b = block_holding(c, ret);
	u64 *j = hc_jsite[c->slot], site = j[1];
	u32 imm_off, imm, rel_off, rel;
	u8 *rw;

	j[1] = 0;
	if (site && j[0] == target)
		predict_jump(c, site, target, dest);
	if (!b || !c->tr.cfg.predict_indirect_calls)
		return;
	rw = c->rw + (b->run - (u64)(uintptr_t)c->rx);
	if (!b->meta.ret_off || ret != b->run + b->meta.ret_off ||
	    kjit_pred_patch(b->meta.pred_imm_off, b->meta.pred_jmp_off, b->run,
			    rw, target, dest, &imm_off, &imm, &rel_off, &rel))
		return;
	__atomic_store_n((u32 *)(rw + imm_off), imm, __ATOMIC_RELEASE);
	__atomic_store_n((u32 *)(rw + rel_off), rel, __ATOMIC_RELEASE);
	c->predicted++;
}

int hc_use_jsite(struct hc *c)
{
	u64 off = (u64)(uintptr_t)hc_jsite[c->slot] - c->henv.gs_base;

	if (!c->henv.gs_base || !off || (u64)(s64)(s32)off != off ||
	    (u64)(s64)(s32)(off + 8) != off + 8)
		return -1;
	c->henv.env.jsite_gs = off;
	c->tr.cfg.predict_indirect_jumps = true;
	c->vfy.predict_indirect_jumps = true;
	return 0;
}

GPR_ONLY u64 hc_lookup_fast(struct hc *c, u64 orig);
GPR_ONLY u64 hc_lookup_fast(struct hc *c, u64 orig)
{
	struct hc_block *b;
	unsigned i;

	for (i = 0; i < c->n_native; i++)
		if (orig == c->native[i]) {
			c->lookups++;
			return orig;
		}
	if (orig < c->lo || orig >= c->hi) { /* not ours: continue natively */
		c->lookups++;
		return orig;
	}
	b = hc_find(c, orig);
	if (!b)
		return 0;
	c->lookups++;
	return b->run;
}

u64 hc_lookup(struct hc *c, u64 orig)
{
	struct hc_block *b;
	u64 run;

	c->lookups++;
	b = hc_find(c, orig);
	const struct kjit_block_desc *d;
	enum kjit_reason r;

	if (b)
		return b->run;
	for (unsigned i = 0; i < c->n_native; i++)
		if (orig == c->native[i])
			return orig;
	if (orig < c->lo || orig >= c->hi || c->n_blk >= HC_MAX_BLOCKS ||
	    c->used + KJIT_MAX_BLOCK_BYTES > c->size)
		return orig;
	b = &c->blk[c->n_blk];
	run = (u64)(uintptr_t)c->rx + c->used;
	r = kjit_translate(&c->tr, orig, c->rw + c->used, KJIT_MAX_BLOCK_BYTES,
			   run, &b->meta);
	if (r) {
		c->refusals++;
		c->last_refusal = r;
		c->last_refusal_addr = orig;
		return orig;
	}
	d = kjit_last_desc(&c->tr);
	if (vfy_block(&c->vfy, d, &b->meta, c->rw + c->used, run) &&
	    !c->vfy_failed++)
		snprintf(c->vfy_msg, sizeof(c->vfy_msg), "block %#llx: %.200s",
			 (unsigned long long)orig, c->vfy.msg);
	if (c->tr.cfg.ibt &&
	    ibtc_block(&c->ibt, d, &b->meta, c->rw + c->used, run) &&
	    !c->ibt_failed++)
		snprintf(c->ibt_msg, sizeof(c->ibt_msg), "block %#llx: %.200s",
			 (unsigned long long)orig, c->ibt.msg);
	b->orig = orig;
	b->run = run;
	b->term_addr =
	    d->insn[d->n - 1].kind == KJIT_I_LIMIT ? 0 : d->insn[d->n - 1].addr;
	c->used = (c->used + b->meta.len + 15) & ~15ull;
	c->n_blk++;
	insert(c, c->n_blk - 1);
	if (c->link)
		link_new(c, b);
	return run;
}

void hc_reset(struct hc *c)
{
	c->n_blk = 0;
	c->used = 0;
	c->refusals = c->links = c->bad_links = c->predicted = 0;
	c->jpredicted = 0;
	memset(c->hash, 0xff, sizeof(c->hash));
	memset(c->rw, 0xcc, c->size);
	memset(hc_ctr[c->slot], 0, sizeof(hc_ctr[0]));
	memset(hc_key[c->slot], 0, sizeof(hc_key[0]));
	c->henv.n_ctr = 0;
}

int hc_init_slot(struct hc *c, unsigned slot, u64 lo, u64 hi,
		 enum kjit_mem_mode mode, const struct kjit_config *cfg,
		 bool link)
{
	static bool mapped[HC_SLOTS];
	static int fd[HC_SLOTS];
	static u8 *rw[HC_SLOTS], *rx[HC_SLOTS];

	if (slot >= HC_SLOTS)
		return -1;
	if (!mapped[slot]) {
		fd[slot] = memfd_create("kjit-cache", 0);
		if (fd[slot] < 0 || ftruncate(fd[slot], HC_SIZE))
			return -1;
		rw[slot] = mmap(NULL, HC_SIZE, PROT_READ | PROT_WRITE,
				MAP_SHARED, fd[slot], 0);
		rx[slot] = mmap((void *)(HC_RX_ADDR + slot * HC_SIZE), HC_SIZE,
				PROT_READ | PROT_EXEC,
				MAP_SHARED | MAP_FIXED_NOREPLACE, fd[slot], 0);
		if (rw[slot] == MAP_FAILED || rx[slot] == MAP_FAILED)
			return -1;
		mapped[slot] = true;
	}
	memset(c, 0, sizeof(*c));
	c->slot = slot;
	c->rw = rw[slot], c->rx = rx[slot], c->size = HC_SIZE;
	c->lo = lo, c->hi = hi, c->link = link;
	henv_init(&c->henv, mode, hc_ctr[slot], hc_key[slot],
		  (u64)(uintptr_t)host_dispatch);
	henv_add_region(&c->henv, lo, (const void *)(uintptr_t)lo, hi - lo);
	hc_reset(c);
	vfy_init(&c->vfy, &c->henv.env);
	ibtc_init(&c->ibt);
	if (kjit_translator_init(&c->tr, &c->henv.env, cfg))
		return -1;
	hc_cur = c;
	return 0;
}

int hc_init(struct hc *c, u64 lo, u64 hi, enum kjit_mem_mode mode,
	    const struct kjit_config *cfg, bool link)
{
	return hc_init_slot(c, 0, lo, hi, mode, cfg, link);
}
