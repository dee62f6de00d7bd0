/* host_env.c - host implementation of struct kjit_env (see host_env.h). */
#include <asm/prctl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "tests/host/host_env.h"
#include "kmod/kjit_fixups.h"

static size_t h_read(void *o, u64 addr, u8 *buf, size_t len)
{
	struct henv *h = o;
	unsigned i;

	for (i = 0; i < h->n_region; i++) {
		u64 a = h->region[i].addr, n = h->region[i].size;

		if (addr >= a && addr < a + n) {
			if (len > a + n - addr)
				len = a + n - addr;
			memcpy(buf, h->region[i].ptr + (addr - a), len);
			return len;
		}
	}
	return 0;
}

static enum kjit_sym h_classify(void *o, u64 t, int *reg)
{
	struct henv *h = o;
	unsigned i;

	for (i = 0; i < h->n_sym; i++)
		if (h->sym[i].addr == t) {
			*reg = h->sym[i].reg;
			return h->sym[i].kind;
		}
	return KJIT_SYM_NONE;
}

/* Index of the entry for @addr in h->fixups, or -1. */
static long fixup_index(const struct henv *h, u64 addr)
{
	size_t lo = 0, hi = h->n_fixups;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (h->fixups[mid] == addr)
			return (long)mid;
		if (h->fixups[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static bool h_fixup(void *o, u64 addr)
{
	return fixup_index(o, addr) >= 0;
}

/* With whole entries (h->fix): the module's rule, kmod/kjit_fixups.h. */
static enum kjit_fixup h_fixup_form(void *o, u64 addr, u64 *target)
{
	const struct henv *h = o;
	long i = fixup_index(h, addr);

	if (i < 0)
		return KJIT_FIXUP_NONE;
	if (!h->fix || !kjit_fixup_type_ok(h->fix[i].data & KJIT_EX_TYPE_MASK))
		return KJIT_FIXUP_NATIVE;
	*target = h->fix[i].fixup;
	return KJIT_FIXUP_EXIT;
}

static u64 *slot_of(struct henv *h, u64 block, bool add)
{
	unsigned i = (unsigned)((block * 0x9e3779b97f4a7c15ull) >> 48) &
		     (HENV_MAX_CTRS - 1);

	for (;; i = (i + 1) & (HENV_MAX_CTRS - 1)) {
		if (h->ctr_key[i] == block)
			return &h->ctr[i];
		if (!h->ctr_key[i]) {
			if (!add || h->n_ctr + 1 >= HENV_MAX_CTRS)
				return NULL;
			h->ctr_key[i] = block;
			h->n_ctr++;
			return &h->ctr[i];
		}
	}
}

/* host test addresses are below 2^47: the exit number goes above them */
static u64 edge_key(u64 block, unsigned exit)
{
	return block ^ ((u64)(exit + 1) << 52);
}

static bool h_counter(void *o, u64 block, enum kjit_counter_kind kind,
		      unsigned exit, struct kjit_mem *out)
{
	struct henv *h = o;
	u64 *c;

	out->mode = h->ctr_mode;
	out->lock = h->ctr_lock;
	if (h->ctr_mode == KJIT_MEM_GS && !h->ctr) {
		out->addr = h->gs_fake + (block & 0xfff8) + /* fake per-CPU */
			    (kind == KJIT_CTR_EDGE ? 8 * (exit + 1) : 0);
		return true;
	}
	if (!h->ctr) { /* no storage: fake, distinct, never-dereferenced */
		out->addr = h->fake_ctr_base + ((block & 0xfffff) << 4) +
			    (kind == KJIT_CTR_EDGE ? 8 * (exit + 1) : 0);
		return true;
	}
	c = slot_of(h, kind == KJIT_CTR_EDGE ? edge_key(block, exit) : block,
		    true);
	if (!c)
		return false;
	out->addr = (u64)(uintptr_t)c;
	if (h->ctr_mode == KJIT_MEM_GS)
		out->addr -= h->gs_base;
	return true;
}

bool henv_patch_site(void *opaque, u64 addr, u64 *target)
{
	const struct henv *h = opaque;
	size_t lo = 0, hi = h->n_sites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->sites[mid].code == addr) {
			*target = h->sites[mid].target;
			return true;
		}
		if (h->sites[mid].code < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static u64 h_func_start(void *o, u64 addr)
{
	const struct henv *h = o;
	size_t lo = 0, hi = h->n_funcs;

	while (lo < hi) { /* first start above @addr */
		size_t mid = lo + (hi - lo) / 2;

		if (h->funcs[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? h->funcs[lo - 1] : 0;
}

int henv_set_gs(u64 base)
{
	return (int)syscall(SYS_arch_prctl, ARCH_SET_GS, base);
}

int henv_use_gs(struct henv *h, bool big)
{
	u64 a = (u64)(uintptr_t)h->ctr, far = 1ull << 46;

	h->ctr_mode = KJIT_MEM_GS;
	/* a user address stays below 2^47: 2^46 below or above the storage */
	h->gs_base = !big ? a : a >= far ? a - far : a + far;
	return henv_set_gs(h->gs_base);
}

u64 *henv_edge_counter_of(struct henv *h, u64 block, unsigned exit)
{
	return h->ctr ? slot_of(h, edge_key(block, exit), false) : NULL;
}

u64 *henv_counter_of(struct henv *h, u64 block)
{
	return h->ctr ? slot_of(h, block, false) : NULL;
}

void henv_init(struct henv *h, enum kjit_mem_mode mode, u64 *ctr, u64 *keys,
	       u64 dispatch)
{
	memset(h, 0, sizeof(*h));
	h->env.opaque = h;
	h->env.read_code = h_read;
	h->env.classify = h_classify;
	h->env.has_fixup = h_fixup;
	h->env.fixup = h_fixup_form;
	h->env.counter = h_counter;
	h->env.func_start = h_func_start;
	h->env.dispatch = dispatch;
	h->ctr_mode = mode;
	h->gs_fake = 0x10000;
	h->ctr = ctr;
	h->ctr_key = keys;
}

void henv_add_region(struct henv *h, u64 addr, const void *ptr, u64 size)
{
	if (h->n_region < HENV_MAX_REGIONS) {
		h->region[h->n_region].addr = addr;
		h->region[h->n_region].ptr = ptr;
		h->region[h->n_region].size = size;
		h->n_region++;
	}
}

void henv_add_sym(struct henv *h, u64 addr, enum kjit_sym kind, int reg)
{
	if (h->n_sym < HENV_MAX_SYMS) {
		h->sym[h->n_sym].addr = addr;
		h->sym[h->n_sym].kind = kind;
		h->sym[h->n_sym].reg = reg;
		h->n_sym++;
	}
}
