// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - read a session's results: blocks with counts summed over CPUs,
 * attached functions, statistics; and reset the counters.
 *
 * Readers run while other CPUs keep translating and counting: they read
 * each cache's published block count with acquire (codecache/cache.h) and
 * the counters with READ_ONCE, so a report is a consistent snapshot per
 * block, not across blocks. A block's count is its per-CPU counter summed
 * over CPUs (pcpu.h) plus the `lock incq` counters of its translations
 * (the old form, where it was used). Process context, kjit_mutex held.
 */
#include <linux/pid.h>
#include <asm/tsc.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "exittail.h"
#include "control.h"
#include "ibl.h"
#include "cachepool.h"
#include "session.h"
#include "sites.h"

static int cmp_block(const void *a, const void *b)
{
	const struct kjit_block_info *x = a, *y = b;

	if (x->orig != y->orig)
		return x->orig < y->orig ? -1 : 1;
	return 0;
}

static u32 total_blocks(const struct kjit_session *s)
{
	u32 n = 0;
	int cpu;

	for_each_possible_cpu(cpu) n += kjit_cache_count(&s->cpu[cpu]->cache);
	return n;
}

/* KJIT_BLOCK_* of the block at @orig: a preemption point, or where one
 * returns (an inline static call site is 5 bytes). */
static u32 block_flags(unsigned long orig)
{
	if (kjit_preempt_site(orig))
		return KJIT_BLOCK_PREEMPT;
	if (kjit_preempt_site(orig - 5))
		return KJIT_BLOCK_PREEMPT_RET;
	return 0;
}

/* The per-CPU counter of the block at @orig, summed over CPUs: every CPU's
 * translation of it increments that one counter (pcpu.h); 0 without one. A
 * block's total is this plus its translations' `lock incq` counters (the
 * old form, counters_rw[], 0 where the per-CPU one was used). */
static u64 pcpu_count(struct kjit_session *s, unsigned long orig)
{
	int n;

	if (!s->pcpu)
		return 0;
	if (!s->split.n_banks)
		return kjit_pcpu_count(&s->pctr, orig);
	/* split: the banks, or past their chunks the session's counter */
	n = kjit_pcpu_number(&s->pctr, orig, false);
	return n >= 0 && kjit_split_has(&s->split, (u32)n)
		   ? kjit_split_total(&s->split, (u32)n, -1)
		   : kjit_pcpu_count(&s->pctr, orig);
}

/* Every CPU's blocks into @out (room for @max); returns how many. */
static u32 gather(const struct kjit_session *s, struct kjit_block_info *out,
		  u32 max)
{
	const struct kjit_cache *c;
	u32 n = 0, i, cnt;
	int cpu;

	for_each_possible_cpu(cpu)
	{
		c = &s->cpu[cpu]->cache;
		cnt = kjit_cache_count(c);
		for (i = 0; i < cnt && n < max; i++, n++) {
			const struct kjit_cblock *cb = kjit_cache_block(c, i);

			out[n] = (struct kjit_block_info){
			    .orig = cb->b.orig,
			    .run = cb->run,
			    .count = READ_ONCE(c->counters_rw[i]),
			    .orig_len = cb->b.orig_len,
			    .run_len = cb->b.len,
			    .func = cb->func,
			    .cpus = 1,
			    .n_insns = (u8)cb->b.n_insns,
			    .seq = cb->b.seq,
			    .ctr = cb->b.ctr,
			    .ctr_at = cb->b.ctr_at,
			};
		}
	}
	return n;
}

/* Merges entries of the same original block (sorted input); returns count. */
static u32 merge(struct kjit_block_info *b, u32 n)
{
	u32 i, o = 0;

	for (i = 0; i < n; i++) {
		if (o && b[o - 1].orig == b[i].orig) {
			b[o - 1].count += b[i].count;
			b[o - 1].cpus++;
		} else {
			b[o++] = b[i];
		}
	}
	return o;
}

static long __blocks(struct kjit_session *s, struct kjit_blocks *req)
{
	struct kjit_block_info *b;
	u32 n, i, room = total_blocks(s);
	long err = 0;

	b = vmalloc(array_size(room ? room : 1, sizeof(*b)));
	if (!b)
		return -ENOMEM;
	n = gather(s, b, room);
	sort(b, n, sizeof(*b), cmp_block, NULL);
	n = merge(b, n);
	for (i = 0; i < n; i++) { /* once per block, not per CPU's copy */
		b[i].flags = block_flags(b[i].orig);
		b[i].count += pcpu_count(s, b[i].orig);
	}
	req->total = n;
	req->written = min(n, req->max);
	if (req->written && copy_to_user(u64_to_user_ptr(req->buf), b,
					 req->written * sizeof(*b)))
		err = -EFAULT;
	vfree(b);
	return err;
}

/*
 * read_session - the common frame of the reading ioctls: copy the request
 * in, check its size (its first __u32), run @fn on the latest session under
 * kjit_mutex, copy the request back. -ENOENT when there is no session.
 */
static long read_session(void __user *uarg, void *req, u32 size,
			 long (*fn)(struct kjit_session *s, void *req))
{
	long err;

	if (copy_from_user(req, uarg, size))
		return -EFAULT;
	if (*(u32 *)req != size)
		return -EINVAL;
	mutex_lock(&kjit_mutex);
	err = __kjit_current() ? fn(__kjit_current(), req) : -ENOENT;
	mutex_unlock(&kjit_mutex);
	if (!err && copy_to_user(uarg, req, size))
		err = -EFAULT;
	return err;
}

static long blocks_fn(struct kjit_session *s, void *req)
{
	return __blocks(s, req);
}

long kjit_ioctl_blocks(void __user *uarg)
{
	struct kjit_blocks req;

	return read_session(uarg, &req, sizeof(req), blocks_fn);
}

/* Function @i of the session: attached ones first, then deep callees. */
static void func_info(const struct kjit_session *s, u32 i,
		      struct kjit_func_info *fi)
{
	const struct kjit_deep_fn *d;
	unsigned int r;

	memset(fi, 0, sizeof(*fi));
	for (r = 0; r < KJIT_FALLBACK_REASONS; r++) {
		atomic64_t *c = kjit_native_ctr(&s->native, (int)i, r);

		fi->native[r] = c ? atomic64_read(c) : 0;
	}
	if (i < s->n_funcs) {
		strscpy(fi->name, s->funcs[i].name, sizeof(fi->name));
		fi->start = s->funcs[i].start;
		fi->end = s->funcs[i].end;
		fi->tramp = s->funcs[i].tramp;
		fi->entry = s->funcs[i].body;
		fi->diverted = s->funcs[i].diverted;
		fi->if_op = s->funcs[i].pred.op;
		fi->if_arg = s->funcs[i].pred.arg;
		fi->if_bits = s->funcs[i].pred.bits;
		fi->if_value = s->funcs[i].pred.value;
		return;
	}
	d = kjit_deep_fn(&s->deep_tab, i - s->n_funcs);
	snprintf(fi->name, sizeof(fi->name), "%ps", (void *)d->start);
	fi->start = d->start;
	fi->entry = d->start;
	fi->end = d->end;
	fi->deep = 1;
}

static long __funcs(struct kjit_session *s, struct kjit_funcs *req)
{
	struct kjit_func_info fi;
	u32 i, n = s->n_funcs;

	if (req->info_size != sizeof(fi) || req->pad)
		return -EINVAL;
	if (s->deep)
		n += smp_load_acquire(&s->deep_tab.n);
	req->total = n;
	req->written = min(n, req->max);
	for (i = 0; i < req->written; i++) {
		func_info(s, i, &fi);
		if (copy_to_user(u64_to_user_ptr(req->buf) + i * sizeof(fi),
				 &fi, sizeof(fi)))
			return -EFAULT;
	}
	return 0;
}

static long funcs_fn(struct kjit_session *s, void *req)
{
	return __funcs(s, req);
}

long kjit_ioctl_funcs(void __user *uarg)
{
	struct kjit_funcs req;

	return read_session(uarg, &req, sizeof(req), funcs_fn);
}

static void add_cpu_stats(struct kjit_session_stats *st,
			  const struct kjit_cpu *c, int cpu)
{
	int i, q;

	st->translated += READ_ONCE(c->cache.stats.translated);
	st->links += READ_ONCE(c->cache.stats.links);
	st->exits_native += READ_ONCE(c->native_exits);
	st->deep_growing += READ_ONCE(c->deep_growing);
	st->dispatches += READ_ONCE(c->dispatches);
	st->native_links += READ_ONCE(c->cache.stats.native_links);
	st->predicted += READ_ONCE(c->cache.stats.predicted);
	st->fixups_copied += READ_ONCE(c->tr->stats.fixups[KJIT_FIXUP_EXIT]) +
			     READ_ONCE(c->tr->stats.fixups[KJIT_FIXUP_NEXT]);
	st->orc_entries += READ_ONCE(c->orc_entries);
	st->pool_empty += READ_ONCE(c->pool_empty);
	st->pool_taken += READ_ONCE(c->code_taken);
	st->translate_ns += READ_ONCE(c->translate_ns);
	/* what its block table and map grew by since attach (grow.h) */
	st->mem_bytes += READ_ONCE(c->grow.bytes) -
			 kjit_grow_first_bytes(c->session->lim.max_blocks);
	if (cpu < KJIT_STAT_CPUS)
		st->bytes[cpu] = READ_ONCE(c->cache.stats.bytes);
	st->blocks_cpu_max =
	    max(st->blocks_cpu_max, kjit_cache_count(&c->cache));
	for (i = 0; i < KJIT_FB_COUNT && i < KJIT_FALLBACK_REASONS; i++)
		st->fallback[i] += READ_ONCE(c->fallback[i]);
	/* counted by the entry guards in the cache itself, not in fallback[] */
	st->fallback[KJIT_FB_FTRACE_SITE] += READ_ONCE(*c->guard_rw);
	for (i = 0; i < KJIT_R_COUNT && i < KJIT_REFUSE_REASONS; i++)
		st->refused[i] += READ_ONCE(c->refused[i]);
	for (i = 0; i < KJIT_CTR_FORMS && i < KJIT_COUNTER_FORMS; i++)
		for (q = 0; q < KJIT_SEQ_COUNT && q < KJIT_COUNTER_SEQS; q++)
			st->counters[i][q] += READ_ONCE(c->tr->stats.ctr[i][q]);
}

long kjit_ioctl_stats(void __user *uarg)
{
	struct kjit_session *s;
	struct kjit_session_stats st;
	long err = 0;
	int cpu;

	if (copy_from_user(&st, uarg, sizeof(st)))
		return -EFAULT;
	if (st.size != sizeof(st))
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	mutex_lock(&kjit_mutex);
	s = __kjit_current();
	if (s) {
		for_each_possible_cpu(cpu) add_cpu_stats(&st, s->cpu[cpu], cpu);
		/* entry guards count into their function's row (native.h) */
		st.fallback[KJIT_FB_FTRACE_SITE] +=
		    kjit_native_total(&s->native, KJIT_FB_FTRACE_SITE);
		/* and the entry trampoline's exiting guard */
		st.fallback[KJIT_FB_EXITING] =
		    kjit_native_total(&s->native, KJIT_FB_EXITING);
		st.ncpus = min_t(u32, nr_cpu_ids, KJIT_STAT_CPUS);
		for_each_possible_cpu(cpu) st.lookup_hits +=
		    READ_ONCE(per_cpu(kjit_ibl_hits, cpu));
		st.exit_tail = kjit_exit_tail_helper() != 0;
		st.exit_tail_max = kjit_exit_tail_size();
		kjit_exit_tail_counts(&st.exit_tail_stayed, &st.exit_tail_left);
		st.attached = s->attached;
		st.n_funcs = s->n_funcs;
		st.deep = s->deep;
		st.watched = s->watched;
		st.patched = atomic64_read(&s->patched);
		st.patched_addr = READ_ONCE(s->patched_addr);
		st.pcpu = !s->count ? 2 : s->pcpu;
		st.cache_kb = s->lim.cache_kb;
		st.max_blocks = s->lim.max_blocks;
		/* what the session took at attach, and what its tables grew
		 * by since (the CPUs' growth is in already) */
		st.mem_bytes +=
		    s->mem_bytes + kjit_session_grown_bytes(s) - s->grown_base;
		st.pool_bytes = kjit_pool_bytes();
		st.stepped_aside = s->stepped_aside;
		st.scope = s->scope_req;
		if (s->pcpu) {
			st.pcpu_used = (u32)atomic_read(&s->pctr.used);
			st.pcpu_full = (u64)atomic64_read(&s->pctr.full);
			st.pcpu_slots = s->pctr.n_ctrs;
			st.pcpu_held = smp_load_acquire(&s->pctr.held);
			st.pcpu_growing =
			    (u64)atomic64_read(&s->pctr.growing);
		}
		if (s->deep) {
			st.deep_max = s->lim.deep_max;
			st.deep_funcs = smp_load_acquire(&s->deep_tab.n);
			st.deep_over_budget =
			    atomic64_read(&s->deep_tab.over_budget);
			st.deep_over_funcs = READ_ONCE(s->deep_tab.over_n);
			st.deep_held = smp_load_acquire(&s->deep_tab.cap);
		}
	} else {
		err = -ENOENT;
	}
	mutex_unlock(&kjit_mutex);
	if (!err && copy_to_user(uarg, &st, sizeof(st)))
		err = -EFAULT;
	return err;
}

long kjit_ioctl_reset(void)
{
	struct kjit_session *s;
	struct kjit_cache *c;
	u32 i, n;
	int cpu;

	mutex_lock(&kjit_mutex);
	s = __kjit_current();
	if (s) {
		for_each_possible_cpu(cpu)
		{
			c = &s->cpu[cpu]->cache;
			n = kjit_cache_count(c);
			for (i = 0; i < n; i++)
				WRITE_ONCE(c->counters_rw[i], 0);
			WRITE_ONCE(*s->cpu[cpu]->guard_rw, 0);
		}
		if (s->pcpu)
			kjit_pcpu_reset(&s->pctr);
		kjit_split_reset(&s->split);
		kjit_timing_reset(&s->timing);
		kjit_native_reset(&s->native);
	}
	mutex_unlock(&kjit_mutex);
	return s ? 0 : -ENOENT;
}

/* The (block, count) pairs of bank @b, or with KJIT_SPLIT_CPU of every
 * bank on one CPU, into @out (room for @max); r->total and the split
 * figures set. kjit_mutex held. */
static void split_fill(struct kjit_session *s, struct kjit_split_read *r,
		       struct kjit_split_count *out, u32 max)
{
	const struct kjit_pcpu *p = &s->pctr;
	bool by_cpu = r->bank & KJIT_SPLIT_CPU;
	int cpu = by_cpu ? (int)(r->bank & ~KJIT_SPLIT_CPU) : -1;
	u64 key, c;
	u32 k, n;

	r->total = r->written = r->split = r->unsplit = 0;
	for (k = 0; k < p->n_keys; k++) {
		key = READ_ONCE(p->keys[k]);
		if (!key)
			continue;
		n = (u32)(key >> 32) - 1;
		if (!kjit_split_has(&s->split, n)) {
			r->unsplit++;
			continue;
		}
		r->split++;
		c = by_cpu ? kjit_split_total(&s->split, n, cpu)
			   : kjit_split_count(&s->split, r->bank, n, -1);
		if (!c)
			continue;
		if (r->total++ < max) {
			out[r->written].orig = 0xffffffff00000000ull | (u32)key;
			out[r->written++].count = c;
		}
	}
}

/* The command of bank @b's process: its leader's now, if it is alive
 * (an exec() after its last switch-in renamed it), else as the bank kept
 * it. @out: 16 bytes, zeroed. */
static void bank_comm(const struct kjit_bank *b, char *out)
{
	struct task_struct *t = NULL;

	if (b->tgid) {
		rcu_read_lock();
		t = pid_task(find_pid_ns(b->tgid, &init_pid_ns), PIDTYPE_TGID);
		if (t)
			memcpy(out, t->comm, min_t(size_t, 16, TASK_COMM_LEN) - 1);
		rcu_read_unlock();
	}
	if (!t)
		memcpy(out, b->comm, min_t(size_t, 16, TASK_COMM_LEN) - 1);
}

/* A reading ioctl's output buffer: room for min(@max, @cap) entries of
 * @elem bytes, zeroed; NULL for none (also on -ENOMEM: *@err set). */
static void *out_alloc(u32 max, u32 cap, size_t elem, u32 *room, long *err)
{
	void *out = NULL;

	*room = min(max, cap);
	*err = 0;
	if (*room) {
		out = kvcalloc(*room, elem, GFP_KERNEL);
		if (!out)
			*err = -ENOMEM;
	}
	return out;
}

/* The first @written entries of @out to user pointer @ubuf; frees @out.
 * @err: the fill's result, returned unless the copy fails. */
static long out_copy(void *out, u64 ubuf, u32 written, size_t elem, long err)
{
	if (!err && written &&
	    copy_to_user(u64_to_user_ptr(ubuf), out, written * elem))
		err = -EFAULT;
	kvfree(out);
	return err;
}

/* KJIT_IOC_SPLIT (split.h): one bank's counts, or one CPU's. */
static long split_fn(struct kjit_session *s, void *req)
{
	struct kjit_split_read *r = req;
	struct kjit_split_count *out;
	const struct kjit_bank *b;
	u32 max;
	long err;

	if (!s->split.n_banks)
		return -EOPNOTSUPP;
	if (r->bank & KJIT_SPLIT_CPU
		? (r->bank & ~KJIT_SPLIT_CPU) >= nr_cpu_ids ||
		      !cpu_possible(r->bank & ~KJIT_SPLIT_CPU)
		: r->bank >= s->split.n_banks)
		return -EINVAL;
	out = out_alloc(r->max, 1u << 20, sizeof(*out), &max, &err);
	if (err)
		return err;
	b = r->bank & KJIT_SPLIT_CPU ? NULL : &s->split.bank[r->bank];
	split_fill(s, r, out, max);
	r->n_banks = s->split.n_banks;
	r->used = min_t(u32, atomic_read(&s->split.used), s->split.n_banks);
	r->tgid = b ? READ_ONCE(b->tgid) : 0;
	memset(r->comm, 0, sizeof(r->comm));
	if (b)
		bank_comm(b, r->comm);
	r->left_over = atomic64_read(&s->split.left_over);
	return out_copy(out, r->buf, r->written, sizeof(*out), 0);
}

long kjit_ioctl_split(void __user *uarg)
{
	struct kjit_split_read r;

	return read_session(uarg, &r, sizeof(r), split_fn);
}

/* KJIT_IOC_TIME: the called functions from r->first on, as many as fit. */
static long time_fn(struct kjit_session *s, void *req)
{
	struct kjit_time_read *r = req;
	struct kjit_time_func *out;
	struct kjit_tstat st;
	u32 max, fid;
	long err;

	if (!s->timing.n_recs)
		return -EOPNOTSUPP;
	out = out_alloc(r->max, 4096, sizeof(*out), &max, &err);
	if (err)
		return err;
	r->written = 0;
	for (fid = r->first; fid < s->timing.max_fid && r->written < max;
	     fid++) {
		kjit_timing_read(&s->timing, fid, &st);
		if (!st.calls)
			continue;
		out[r->written].fid = fid;
		out[r->written].calls = st.calls;
		out[r->written].incl = st.incl;
		out[r->written].excl = st.excl;
		out[r->written].virt = st.virt;
		memcpy(out[r->written].hist, st.hist, sizeof(st.hist));
		r->written++;
	}
	r->next = fid;
	r->max_fid = s->timing.max_fid;
	r->tsc_khz = tsc_khz;
	r->untimed = atomic64_read(&s->timing.untimed);
	r->lost = atomic64_read(&s->timing.lost);
	r->recs = s->timing.n_recs;
	r->recs_used = atomic_read(&s->timing.recs_used);
	return out_copy(out, r->buf, r->written, sizeof(*out), 0);
}

long kjit_ioctl_time(void __user *uarg)
{
	struct kjit_time_read r;

	return read_session(uarg, &r, sizeof(r), time_fn);
}

/* KJIT_IOC_TPATHS: the claimed call paths from r->first on. */
static long tpaths_fn(struct kjit_session *s, void *req)
{
	struct kjit_tpath_read *r = req;
	struct kjit_tpath_info *out;
	struct kjit_tpstat st;
	u32 max, n;
	long err;
	u64 key;

	if (!s->timing.n_recs)
		return -EOPNOTSUPP;
	out = out_alloc(r->max, 16384, sizeof(*out), &max, &err);
	if (err)
		return err;
	r->written = 0;
	for (n = r->first; n < s->timing.n_paths && r->written < max; n++) {
		key = kjit_timing_path(&s->timing, n, &st);
		if (!key) /* free; one still open is kept: a chain */
			continue;
		out[r->written] = (struct kjit_tpath_info){
		    .node = n,
		    .parent = (u32)(key >> 32) - 1,
		    .fid = (u32)key - 1,
		    .calls = st.calls,
		    .incl = st.incl,
		    .excl = st.excl,
		};
		r->written++;
	}
	r->next = n;
	r->n_paths = s->timing.n_paths;
	r->used = atomic_read(&s->timing.paths_used);
	r->full = atomic64_read(&s->timing.paths_full);
	return out_copy(out, r->buf, r->written, sizeof(*out), 0);
}

long kjit_ioctl_tpaths(void __user *uarg)
{
	struct kjit_tpath_read r;

	return read_session(uarg, &r, sizeof(r), tpaths_fn);
}
