/* host_env.c - host implementation of struct kjit_env (see host_env.h). */
#include <asm/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "tests/host/host_env.h"
#include "kmod/kjit_fixups.h"
#include "jit/arch_x86.h"

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

/* Compare two things that begin with a u64 key: a key and an element
 * (bsearch), or two elements (qsort). */
static int cmp_lead_u64(const void *x, const void *y)
{
	u64 a, b;

	memcpy(&a, x, sizeof(a));
	memcpy(&b, y, sizeof(b));
	return a < b ? -1 : a > b;
}

/* The element of @base[0..n) (each @size bytes, sorted by a leading u64)
 * whose key is @key, or NULL: the sorted tables of this file (fixups,
 * static-key and static_call sites, function starts). */
static const void *find_by_key(const void *base, size_t n, size_t size,
			       u64 key)
{
	return n ? bsearch(&key, base, n, size, cmp_lead_u64) : NULL;
}

/* Index of the entry for @addr in h->fixups, or -1. */
static long fixup_index(const struct henv *h, u64 addr)
{
	const u64 *f = find_by_key(h->fixups, h->n_fixups, sizeof(*f), addr);

	return f ? (long)(f - h->fixups) : -1;
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
	const struct henv_site *e =
	    find_by_key(h->sites, h->n_sites, sizeof(*e), addr);

	if (e)
		*target = e->target;
	return e != NULL;
}

bool henv_static_call(void *opaque, u64 addr, u64 *tramp, bool *tail)
{
	const struct henv *h = opaque;
	const struct henv_scall *e =
	    find_by_key(h->scalls, h->n_scalls, sizeof(*e), addr);

	if (e) {
		*tramp = e->tramp;
		*tail = e->tail;
	}
	return e != NULL;
}

int henv_set_static_calls(struct henv *h, const struct henv_scall *scalls,
			  size_t n)
{
	struct henv_tramp_key *t = n ? malloc(n * sizeof(*t)) : NULL;
	size_t i, k = 0;

	h->scalls = scalls;
	h->n_scalls = n;
	free(h->tramp_keys);
	h->tramp_keys = NULL;
	h->n_tramp_keys = 0;
	if (!t)
		return n ? -1 : 0;
	for (i = 0; i < n; i++)
		if (scalls[i].tramp)
			t[k++] = (struct henv_tramp_key){scalls[i].tramp,
							 scalls[i].key};
	qsort(t, k, sizeof(*t), cmp_lead_u64);
	h->tramp_keys = t;
	h->n_tramp_keys = k;
	return 0;
}

u64 henv_static_call_key(void *opaque, u64 addr)
{
	const struct henv *h = opaque;
	const struct henv_tramp_key *e = find_by_key(
	    h->tramp_keys, h->n_tramp_keys, sizeof(*e), addr);

	return addr && e ? e->key : 0;
}

/* A function start with an __fentry__ site (the module's
 * kjit_fentry_site): after an endbr64 or its seal, `call __fentry__` (the
 * vmlinux file's bytes) or the 5-byte nop the kernel makes of it. */
bool henv_entry_guard(void *opaque, u64 addr)
{
	static const u8 nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
	struct henv *h = opaque;
	size_t n;
	u8 b[16];
	unsigned off;
	int reg;
	s32 rel;

	if (!find_by_key(h->funcs, h->n_funcs, sizeof(*h->funcs), addr))
		return false;
	n = h_read(h, addr, b, sizeof(b));
	off = kx86_fentry_offset(b, n);
	if (n < off + 5)
		return false;
	if (!memcmp(b + off, nop5, 5))
		return true;
	memcpy(&rel, b + off + 1, 4);
	return b[off] == 0xe8 &&
	       h_classify(h, addr + off + 5 + (s64)rel, &reg) ==
		   KJIT_SYM_FENTRY;
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
