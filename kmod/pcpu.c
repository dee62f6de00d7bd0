// SPDX-License-Identifier: GPL-2.0
/*
 * pcpu.c - per-CPU block counters (layout and invariants in pcpu.h).
 *
 * The key table is open addressing with linear probing over the original
 * block address; claims race only with other claims (each CPU translates
 * into its own cache, so two CPUs may claim the same block at once) and
 * settle with cmpxchg: the loser finds the winner's key and shares its
 * number. A loser gives its number back when no one took a later one
 * meanwhile; otherwise that counter is never used (`used` may run ahead
 * of the keys by such rare losses).
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "pcpu.h"

bool kjit_pcpu_ok;

void kjit_pcpu_probe(void)
{
	u64 __percpu *p = alloc_percpu(u64);
	u64 before, after;
	int cpu;

	if (!p) {
		pr_warn("kjit: no per-CPU memory: counters use lock incq\n");
		return;
	}
	preempt_disable();
	cpu = smp_processor_id();
	before = *per_cpu_ptr(p, cpu);
	/* what translated code does: jit/instrument.c, KJIT_CTR_GS_REG */
	asm volatile("incq %%gs:(%0)" : : "r"(p) : "memory", "cc");
	after = *per_cpu_ptr(p, cpu);
	preempt_enable();
	free_percpu(p);
	kjit_pcpu_ok = after == before + 1;
	if (!kjit_pcpu_ok)
		pr_warn("kjit: incq %%gs:(ptr) missed this CPU's copy: "
			"counters use lock incq\n");
}

/* Does chunk @c lie in the near area (pcpu_near.h)? */
static bool near_chunk(const struct kjit_pcpu *p, u32 c)
{
	return c < p->near_chunks;
}

/* Does the %gs offset range [@off, @off + @len) fit a sign-extended
 * disp32 (jit/instrument.c: then incq %gs:disp32, no register)? */
static bool fits_disp32(unsigned long off, size_t len)
{
	return (long)off == (s32)off && (long)(off + len - 1) == (s32)(off + len - 1);
}

/* Say once a session that an alloc_percpu() chunk came within a disp32 of
 * %gs (a small kernel's first per-CPU chunk has room): its blocks count
 * with incq %gs:disp32, as near ones do, not through a register. */
static void say_in_reach(struct kjit_pcpu *p, u32 c, u64 __percpu *ch,
			 size_t row)
{
	if (p->said_in_reach || !fits_disp32((unsigned long)ch, row))
		return;
	p->said_in_reach = true;
	pr_info("kjit: counters: alloc_percpu() chunk %u lies within a disp32 "
		"of %%gs (%#lx): incq %%gs:disp32, no register\n",
		c, (unsigned long)ch);
}

/* Chunk @c and its base row, published in that order. Process context:
 * kjit_pcpu_init(), then only the worker. */
static int add_chunk(struct kjit_pcpu *p, u32 c)
{
	size_t row = (size_t)p->chunk_len * sizeof(u64);
	u64 __percpu *ch =
	    near_chunk(p, c)
		? (u64 __percpu *)(unsigned long)(p->near.disp + (s64)(c * row))
		: __alloc_percpu(row, sizeof(u64));
	u64 *base = kvzalloc(row, GFP_KERNEL);

	if (!ch || !base) {
		if (!near_chunk(p, c))
			free_percpu(ch);
		kvfree(base);
		return -ENOMEM;
	}
	if (!near_chunk(p, c))
		say_in_reach(p, c, ch, row);
	p->base[c] = base;
	smp_store_release(&p->chunk[c], ch);
	smp_store_release(&p->held, (c + 1) * p->chunk_len);
	/* a near chunk's per-CPU rows were counted with the near area */
	WRITE_ONCE(p->bytes,
		   p->bytes +
		       row *
			   (1 + (near_chunk(p, c) ? 0 : num_possible_cpus())));
	return 0;
}

/* Chunks until @ahead counters past those handed out have memory, or the
 * directory is full; stops at the first that cannot be had (its blocks
 * are then counted in the old form, and asked for again by the next
 * claim). */
static void add_chunks(struct kjit_pcpu *p)
{
	u32 held = p->held;

	while (held < p->n_ctrs &&
	       held < (u32)atomic_read(&p->used) + p->ahead) {
		if (add_chunk(p, held / p->chunk_len))
			return;
		held = p->held;
	}
}

static void pcpu_grow_work(struct kjit_worker *w)
{
	struct kjit_pcpu *p = container_of(w, struct kjit_pcpu, worker);

	if (p->delay_ms)
		msleep(p->delay_ms);
	add_chunks(p);
}

void kjit_pcpu_free(struct kjit_pcpu *p)
{
	u32 c;

	kjit_worker_stop(&p->worker);
	for (c = 0; p->chunk && c < p->dir_len; c++) {
		if (!near_chunk(p, c))
			free_percpu(p->chunk[c]);
		kvfree(p->base[c]);
	}
	kjit_pcpu_near_free(&p->near);
	kvfree(p->chunk);
	kvfree(p->base);
	vfree(p->keys);
	memset(p, 0, sizeof(*p));
}

int kjit_pcpu_init(struct kjit_pcpu *p, u32 n_keys, u32 chunk_len, u32 ahead,
		   bool near, size_t near_cap)
{
	size_t want;

	memset(p, 0, sizeof(*p));
	kjit_worker_init(&p->worker, pcpu_grow_work);
	if (!chunk_len || chunk_len > KJIT_PCPU_CHUNK)
		chunk_len = KJIT_PCPU_CHUNK;
	p->chunk_len = roundup_pow_of_two(chunk_len);
	p->n_keys = roundup_pow_of_two(max_t(u32, n_keys, 4));
	p->n_ctrs = p->n_keys - p->n_keys / 4; /* probes stay short */
	p->dir_len = DIV_ROUND_UP(p->n_ctrs, p->chunk_len);
	p->ahead = max_t(u32, ahead, 1);
	p->keys = vzalloc(array_size(p->n_keys, sizeof(u64)));
	p->chunk = kvcalloc(p->dir_len, sizeof(*p->chunk), GFP_KERNEL);
	p->base = kvcalloc(p->dir_len, sizeof(*p->base), GFP_KERNEL);
	if (!p->keys || !p->chunk || !p->base)
		goto fail;
	p->bytes = (size_t)p->n_keys * sizeof(u64) +
		   (size_t)p->dir_len * 2 * sizeof(void *);
	want = (size_t)p->dir_len * p->chunk_len * sizeof(u64);
	if (near_cap)
		want = min(want, near_cap);
	if (near)
		kjit_pcpu_near_init(&p->near, want, &p->near_why);
	else
		p->near_why = "turned off (kjit.near_counters=0)";
	p->near_chunks = (u32)(p->near.size / (p->chunk_len * sizeof(u64)));
	if (!p->near_chunks) /* smaller than one chunk: of no use */
		kjit_pcpu_near_free(&p->near);
	p->bytes += p->near.size * num_possible_cpus();
	add_chunks(p);
	if (!p->held)
		goto fail;
	kjit_worker_start(&p->worker);
	return 0;
fail:
	kjit_pcpu_free(p);
	return -ENOMEM;
}

static u64 key_of(u32 n, u64 orig)
{
	return (u64)(n + 1) << 32 | (u32)orig;
}

/* The next number, or -1 when every counter is handed out. */
static int take_number(struct kjit_pcpu *p)
{
	int n = atomic_read(&p->used);

	do {
		if ((u32)n >= p->n_ctrs)
			return -1;
	} while (!atomic_try_cmpxchg(&p->used, &n, n + 1));
	return n;
}

/* The number of the block at @orig (a text address), claimed when @claim
 * and new; -ENOENT (not claimed) or -ENOSPC (full). */
static int number_of(struct kjit_pcpu *p, u64 orig, bool claim)
{
	u32 mask = p->n_keys - 1, i = hash_64(orig, ilog2(p->n_keys)), k;
	int n = -1;
	u64 key;

	for (k = 0; k < p->n_keys; k++, i = (i + 1) & mask) {
		key = READ_ONCE(p->keys[i]);
		if (!key && claim) {
			if (n < 0)
				n = take_number(p);
			if (n < 0)
				break;
			key = cmpxchg(&p->keys[i], 0, key_of(n, orig));
			if (!key)
				return n;
		}
		if (!key)
			return -ENOENT;
		if ((u32)key == (u32)orig) {
			/* another CPU claimed it just now: give ours back */
			if (n >= 0)
				atomic_cmpxchg(&p->used, n + 1, n);
			return (int)(key >> 32) - 1;
		}
	}
	return claim ? -ENOSPC : -ENOENT;
}

int kjit_pcpu_number(struct kjit_pcpu *p, u64 orig, bool claim)
{
	if (orig >> 32 != 0xffffffffULL)
		return -ERANGE;
	return number_of(p, orig, claim);
}

int kjit_pcpu_claim(struct kjit_pcpu *p, u64 orig, u64 *off)
{
	u64 __percpu *ch;
	u32 held;
	int n;

	if (orig >> 32 != 0xffffffffULL)
		return -ERANGE;
	n = number_of(p, orig, true);
	if (n < 0) {
		atomic64_inc(&p->full);
		return n;
	}
	held = smp_load_acquire(&p->held);
	/* once every chunk is held there is nothing to ask for */
	if (held < p->n_ctrs && (u32)atomic_read(&p->used) + p->ahead > held)
		kjit_worker_ask(&p->worker);
	ch = smp_load_acquire(&p->chunk[n / p->chunk_len]);
	if (!ch) {
		atomic64_inc(&p->growing);
		return -EAGAIN;
	}
	*off = (u64)(unsigned long)(ch + n % p->chunk_len);
	return 0;
}

/* Counter @n summed over CPUs; 0 when its chunk has not come (nothing
 * ever incremented it). @base: its base entry, or NULL. */
static u64 sum(const struct kjit_pcpu *p, u32 n, u64 **base)
{
	u64 __percpu *ch = smp_load_acquire(&p->chunk[n / p->chunk_len]);
	u64 s = 0;
	int cpu;

	*base = NULL;
	if (!ch)
		return 0;
	*base = &p->base[n / p->chunk_len][n % p->chunk_len];
	ch += n % p->chunk_len;
	for_each_possible_cpu(cpu) s += READ_ONCE(*per_cpu_ptr(ch, cpu));
	return s;
}

u64 kjit_pcpu_count(const struct kjit_pcpu *p, u64 orig)
{
	/* without a claim number_of() writes nothing */
	int n = orig >> 32 == 0xffffffffULL
		    ? number_of((struct kjit_pcpu *)p, orig, false)
		    : -ENOENT;
	u64 *base, s;

	if (n < 0)
		return 0;
	s = sum(p, n, &base);
	return base ? s - *base : 0;
}

void kjit_pcpu_reset(struct kjit_pcpu *p)
{
	u64 *base, s, key;
	u32 k;

	for (k = 0; k < p->n_keys; k++) {
		key = READ_ONCE(p->keys[k]);
		if (!key)
			continue;
		s = sum(p, (u32)(key >> 32) - 1, &base);
		if (base)
			*base = s;
	}
}
