// SPDX-License-Identifier: GPL-2.0
/*
 * timing.c - per-function time: the helpers timed functions' entries and
 * returns call, the per-task records and the scheduler's probe (see
 * timing.h).
 *
 * Context: the helpers run with preemption off and this CPU marked busy
 * (any context but NMI, which they leave untimed: an interrupt that comes
 * while a helper runs leaves its own calls untimed, whole), the probe in
 * the scheduler; neither takes a lock or allocates, and they call no
 * kernel function but through inlines (tests/host/test_dispatch_deps.c).
 * The rest: process context, kjit_mutex held.
 */
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>
#include <asm/msr.h>
#include <asm/tsc.h>
#include "timing.h"

static DEFINE_PER_CPU(struct kjit_trec *, kjit_tcur);
/* A helper runs on this CPU (an interrupt's own timed calls meanwhile go
 * untimed, whole), and a reset waits for it to finish (timing.h). */
static DEFINE_PER_CPU(u32, kjit_tbusy);
static DEFINE_PER_CPU(u32, kjit_tzero);
static struct kjit_timing __rcu *active;
static struct tracepoint *tp_switch;
#define PROBES 16 /* records a lookup tries */

/* The helpers' C halves (timing_entry.S saves every register and the
 * flags around them): not traced, not probed, reached only from the
 * cache. */
void kjit_time_enter(u32 fid, u64 rsp);
void kjit_time_exit(u32 fid, u64 rsp);

static void time_find_switch(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		tp_switch = tp;
}

void kjit_timing_init(void)
{
	for_each_kernel_tracepoint(time_find_switch, NULL);
}

/* The helpers' hot path is inlined: each call and return there costs a
 * call-depth or return thunk on a mitigated kernel; the slow paths
 * (claiming a record or a path) stay out of line. */
static __always_inline u64 now(void)
{
	return rdtsc_ordered();
}

/* The record of @t, or NULL if it has none; claimed when @claim and it
 * has none (NULL then if the slots it may take are all taken). Two
 * passes: a record released at exit leaves a hole another task's chain
 * may run through. */
static noinline struct kjit_trec *rec_of(struct kjit_timing *tm,
					 struct task_struct *t, bool claim)
{
	u32 i0 = hash_ptr(t, 32) % tm->n_recs, i, k;
	struct kjit_trec *r;

	for (k = 0, i = i0; k < PROBES && k < tm->n_recs;
	     k++, i = (i + 1) % tm->n_recs) {
		r = &tm->rec[i];
		if (READ_ONCE(r->task) != t)
			continue;
		if (READ_ONCE(r->start) == t->start_time)
			return r;
		if (!claim) /* a reused task_struct: a new task */
			return NULL;
		/* only the task itself claims its record */
		r->depth = 0, r->off = 0, r->out_at = 0;
		r->rnode = KJIT_TPATH_NONE;
		WRITE_ONCE(r->start, t->start_time);
		return r;
	}
	for (k = 0, i = i0; claim && k < PROBES && k < tm->n_recs;
	     k++, i = (i + 1) % tm->n_recs) {
		r = &tm->rec[i];
		if (!READ_ONCE(r->task) && cmpxchg(&r->task, NULL, t) == NULL) {
			r->depth = 0, r->off = 0, r->out_at = 0;
			r->rnode = KJIT_TPATH_NONE;
			WRITE_ONCE(r->start, t->start_time);
			atomic_inc(&tm->recs_used);
			return r;
		}
	}
	return NULL;
}

/* A dead task's record back to the pool (its last switch). */
static void rec_release(struct kjit_timing *tm, struct kjit_trec *r)
{
	if (r->depth)
		atomic64_add(r->depth, &tm->lost);
	r->depth = 0;
	WRITE_ONCE(r->task, NULL);
	atomic_dec(&tm->recs_used);
}

/* The node of the call path (@parent's node, @fid), claimed if new;
 * KJIT_TPATH_NONE when its probes find no room (counted). */
static u32 path_of(struct kjit_timing *tm, u32 parent, u32 fid)
{
	/* a root call's parent part: KJIT_TPATH_NONE + 1, 0 */
	u64 key = ((u64)(u32)(parent + 1) << 32) | (fid + 1), k;
	u32 mask = tm->n_paths - 1, i = hash_64(key, 32) & mask, n;

	for (n = 0; n < PROBES && n < tm->n_paths; n++, i = (i + 1) & mask) {
		k = READ_ONCE(tm->pkey[i]);
		if (k == key)
			return i;
		if (!k && cmpxchg(&tm->pkey[i], 0, key) == 0) {
			atomic_inc(&tm->paths_used);
			return i;
		}
		if (READ_ONCE(tm->pkey[i]) == key) /* another CPU's, just now */
			return i;
	}
	atomic64_inc(&tm->paths_full);
	return KJIT_TPATH_NONE;
}

/* This CPU's stats (preemption off). */
static struct kjit_tstat *here(const struct kjit_timing *tm)
{
	return tm->stat[raw_smp_processor_id()];
}

/* This CPU's stats and paths' zeroed (a reset). */
static void zero_cpu(struct kjit_timing *t)
{
	memset(here(t), 0, t->max_fid * sizeof(struct kjit_tstat));
	memset(t->pstat[raw_smp_processor_id()], 0,
	       t->n_paths * sizeof(struct kjit_tpstat));
}

/* Close the open call on top of @r at @at: its time into this CPU's
 * stats, and into its caller's callees' time. */
static void close_top(struct kjit_timing *tm, struct kjit_trec *r, u64 at)
{
	struct kjit_tframe *f = &r->f[--r->depth];
	struct kjit_tstat *st = here(tm) + f->fid;
	u64 dt = at - f->t0, off = r->off - f->off0;

	st->calls++;
	st->incl += dt;
	st->excl += dt > f->child ? dt - f->child : 0;
	st->virt += dt > off ? dt - off : 0;
	st->hist[min_t(u32, dt ? ilog2(dt) + 1 : 0, KJIT_TIME_BUCKETS - 1)]++;
	if (f->node != KJIT_TPATH_NONE) {
		struct kjit_tpstat *ps =
		    tm->pstat[raw_smp_processor_id()] + f->node;

		ps->calls++;
		ps->incl += dt;
		ps->excl += dt > f->child ? dt - f->child : 0;
	}
	if (r->depth)
		r->f[r->depth - 1].child += dt;
}

/* This CPU's record of the running task, claimed if need be. */
static __always_inline struct kjit_trec *cur_rec(struct kjit_timing *tm)
{
	struct kjit_trec *r = this_cpu_read(kjit_tcur);

	if (r && READ_ONCE(r->task) == current)
		return r;
	r = rec_of(tm, current, true);
	this_cpu_write(kjit_tcur, r);
	return r;
}

/* The record of the context running here: this CPU's hardirq or softirq
 * record (softirqs on PREEMPT_RT run in their task, preemptible), or the
 * task's (claimed when @claim). Calls in one record are on one stack. */
static __always_inline struct kjit_trec *ctx_rec(struct kjit_timing *tm,
						 bool claim)
{
	struct kjit_trec *r;
	u32 cpu = raw_smp_processor_id(); /* preemption is off */

	if (in_hardirq())
		return &tm->rec[tm->n_recs + 2 * cpu];
	if (!IS_ENABLED(CONFIG_PREEMPT_RT) && in_serving_softirq())
		return &tm->rec[tm->n_recs + 2 * cpu + 1];
	if (claim)
		return cur_rec(tm);
	r = this_cpu_read(kjit_tcur);
	return r && READ_ONCE(r->task) == current ? r : NULL;
}

/* The open call on top of @r was made on another stack than @rsp's (a
 * record left so by a return that ran natively). */
static bool top_elsewhere(const struct kjit_trec *r, u64 rsp)
{
	u64 top = r->f[r->depth - 1].rsp;

	return top > rsp ? top - rsp >= THREAD_SIZE : rsp - top >= THREAD_SIZE;
}

/* A call at @rsp that @r cannot hold: a task's record holds only calls
 * on the task's own stack. A function entered on another (the scheduler's
 * __switch_to runs on the next task's stack while `current` is still the
 * previous one) is left untimed, and the task's open calls stay. */
static bool off_stack(const struct kjit_timing *tm, const struct kjit_trec *r,
		      u64 rsp)
{
	unsigned long base = (unsigned long)task_stack_page(current);

	return r < tm->rec + tm->n_recs && rsp - base >= THREAD_SIZE;
}

/* Mark this CPU busy, preemption off: the timing, or NULL when there is
 * none or an interrupted helper is in the middle of its work here. */
static struct kjit_timing *begin(void)
{
	struct kjit_timing *tm;

	preempt_disable_notrace();
	tm = rcu_dereference_sched(active);
	if (this_cpu_inc_return(kjit_tbusy) != 1 && tm) {
		atomic64_inc(&tm->untimed);
		tm = NULL;
	}
	return tm;
}

/* A reset that came meanwhile zeroes this CPU's stats now (timing.h). */
static void end(struct kjit_timing *tm)
{
	if (tm && this_cpu_read(kjit_tzero)) {
		zero_cpu(tm);
		this_cpu_write(kjit_tzero, 0);
	}
	this_cpu_dec(kjit_tbusy);
	preempt_enable_notrace();
}

/* The path node of a call of @fid on top of @r: its caller's last callee's
 * if that was @fid too, else from the path table (and remembered there). */
static __always_inline u32 call_node(struct kjit_timing *tm,
				     struct kjit_trec *r, u32 fid)
{
	struct kjit_tframe *up = r->depth ? &r->f[r->depth - 1] : NULL;
	u32 *mfid = up ? &up->cfid : &r->rfid;
	u32 *mnode = up ? &up->cnode : &r->rnode;
	u32 node;

	if (*mnode != KJIT_TPATH_NONE && *mfid == fid)
		return *mnode;
	if (up && up->node == KJIT_TPATH_NONE) {
		atomic64_inc(&tm->paths_full); /* under a call with no path */
		return KJIT_TPATH_NONE;
	}
	node = path_of(tm, up ? up->node : KJIT_TPATH_NONE, fid);
	if (node != KJIT_TPATH_NONE)
		*mfid = fid, *mnode = node;
	return node;
}

void notrace kjit_time_enter(u32 fid, u64 rsp)
{
	struct kjit_timing *tm;
	struct kjit_trec *r;
	u32 node;

	if (in_nmi())
		return;
	tm = begin();
	r = tm ? ctx_rec(tm, true) : NULL;
	if (!tm)
		goto out;
	if (!r || fid >= tm->max_fid || r->depth >= KJIT_TIME_DEPTH ||
	    off_stack(tm, r, rsp)) {
		atomic64_inc(&tm->untimed);
		goto out;
	}
	/* calls left open deeper than this one or on another stack (their
	 * return ran natively) */
	while (r->depth && (r->f[r->depth - 1].rsp < rsp ||
			    top_elsewhere(r, rsp))) {
		r->depth--;
		atomic64_inc(&tm->lost);
	}
	node = call_node(tm, r, fid);
	r->f[r->depth] = (struct kjit_tframe){
	    fid, node, rsp, now(), r->off, 0, U32_MAX, KJIT_TPATH_NONE};
	r->depth++;
out:
	end(tm);
}

void notrace kjit_time_exit(u32 fid, u64 rsp)
{
	struct kjit_timing *tm;
	struct kjit_trec *r;
	u64 at;

	if (in_nmi())
		return;
	at = now();
	tm = begin();
	r = tm ? ctx_rec(tm, false) : NULL;
	if (r && off_stack(tm, r, rsp))
		r = NULL;
	while (r && r->depth && r->f[r->depth - 1].rsp <= rsp) {
		if (!top_elsewhere(r, rsp)) {
			close_top(tm, r, at);
			continue;
		}
		r->depth--;
		atomic64_inc(&tm->lost);
	}
	end(tm);
}
NOKPROBE_SYMBOL(kjit_time_enter);
NOKPROBE_SYMBOL(kjit_time_exit);

/* Book the switch: @prev's record stops (or goes back to the pool: its
 * task is dead, this is its last switch), @next's resumes (its time out
 * added to its total), and this CPU names @next's record. */
static void notrace time_on_switch(void *data, bool preempt,
			      struct task_struct *prev,
			      struct task_struct *next, unsigned int state)
{
	struct kjit_timing *tm = data;
	struct kjit_trec *p = this_cpu_read(kjit_tcur), *n;
	u64 at = now();

	if (!p || READ_ONCE(p->task) != prev)
		p = state == TASK_DEAD ? rec_of(tm, prev, false) : NULL;
	if (p && state == TASK_DEAD)
		rec_release(tm, p);
	else if (p)
		p->out_at = at;
	n = rec_of(tm, next, false);
	if (n && n->out_at) {
		n->off += at - n->out_at;
		n->out_at = 0;
	}
	this_cpu_write(kjit_tcur, n);
}

static void time_forget_cur(void *unused)
{
	this_cpu_write(kjit_tcur, NULL);
}

static void free_stats(struct kjit_timing *t)
{
	int cpu;

	if (t->stat)
		for_each_possible_cpu(cpu)
			vfree(t->stat[cpu]);
	if (t->pstat)
		for_each_possible_cpu(cpu)
			vfree(t->pstat[cpu]);
	kfree(t->stat);
	kfree(t->pstat);
	vfree(t->pkey);
	vfree(t->rec);
}

int kjit_timing_prepare(struct kjit_timing *t, u32 recs, u32 max_fid,
			u32 paths)
{
	u32 i;
	int cpu;

	memset(t, 0, sizeof(*t));
	if (!recs || !max_fid || !is_power_of_2(paths))
		return -EINVAL;
	/* the kernel's own judgement of its TSC: a clock whose rate and
	 * CPUs agree (it would have switched clocksource otherwise) */
	if (!boot_cpu_has(X86_FEATURE_TSC) || check_tsc_unstable()) {
		pr_info("kjit: --time refused: the kernel marked its TSC "
			"unstable (or it has none)\n");
		return -EOPNOTSUPP;
	}
	if (!tp_switch) {
		pr_info("kjit: --time refused: no sched_switch tracepoint\n");
		return -EOPNOTSUPP;
	}
	/* the tasks', then each CPU's hardirq and softirq records */
	t->rec = vzalloc(array_size(recs + 2 * nr_cpu_ids, sizeof(*t->rec)));
	/* each CPU's stats on its node: vmalloc, as they are larger than
	 * what the per-CPU allocator gives (PCPU_MIN_UNIT_SIZE) */
	t->stat = kcalloc(nr_cpu_ids, sizeof(*t->stat), GFP_KERNEL);
	t->pstat = kcalloc(nr_cpu_ids, sizeof(*t->pstat), GFP_KERNEL);
	t->pkey = vzalloc(array_size(paths, sizeof(*t->pkey)));
	t->bytes = (recs + 2 * nr_cpu_ids) * sizeof(*t->rec) +
		   paths * sizeof(*t->pkey);
	for_each_possible_cpu(cpu) {
		if (!t->stat || !t->pstat)
			break;
		t->stat[cpu] = vzalloc_node(array_size(max_fid, sizeof(**t->stat)),
					    cpu_to_node(cpu));
		t->pstat[cpu] = vzalloc_node(
		    array_size(paths, sizeof(**t->pstat)), cpu_to_node(cpu));
		if (!t->stat[cpu] || !t->pstat[cpu])
			goto nomem;
		t->bytes += max_fid * sizeof(**t->stat) +
			    paths * sizeof(**t->pstat);
	}
	if (!t->rec || !t->stat || !t->pstat || !t->pkey)
		goto nomem;
	t->n_paths = paths;
	t->n_recs = recs;
	t->max_fid = max_fid;
	for (i = 0; i < recs + 2 * nr_cpu_ids; i++) /* no root memo yet */
		t->rec[i].rnode = KJIT_TPATH_NONE;
	return 0;
nomem:
	free_stats(t);
	memset(t, 0, sizeof(*t));
	return -ENOMEM;
}

int kjit_timing_start(struct kjit_timing *t)
{
	int err;

	if (!t->n_recs)
		return 0;
	on_each_cpu(time_forget_cur, NULL, 1);
	err = tracepoint_probe_register(tp_switch, time_on_switch, t);
	if (err)
		return err;
	t->probing = true;
	rcu_assign_pointer(active, t);
	return 0;
}

void kjit_timing_stop(struct kjit_timing *t)
{
	if (!t->probing)
		return;
	RCU_INIT_POINTER(active, NULL);
	tracepoint_probe_unregister(tp_switch, time_on_switch, t);
	tracepoint_synchronize_unregister(); /* and the helpers' RCU-sched */
	synchronize_rcu();
	on_each_cpu(time_forget_cur, NULL, 1);
	t->probing = false;
}

void kjit_timing_free(struct kjit_timing *t)
{
	kjit_timing_stop(t);
	free_stats(t);
	memset(t, 0, sizeof(*t));
}

void kjit_timing_read(const struct kjit_timing *t, u32 fid,
		      struct kjit_tstat *out)
{
	int cpu;
	u32 b;

	memset(out, 0, sizeof(*out));
	if (fid >= t->max_fid)
		return;
	for_each_possible_cpu(cpu) {
		const struct kjit_tstat *s = t->stat[cpu] + fid;

		out->calls += READ_ONCE(s->calls);
		out->incl += READ_ONCE(s->incl);
		out->excl += READ_ONCE(s->excl);
		out->virt += READ_ONCE(s->virt);
		for (b = 0; b < KJIT_TIME_BUCKETS; b++)
			out->hist[b] += READ_ONCE(s->hist[b]);
	}
}

u64 kjit_timing_path(const struct kjit_timing *t, u32 node,
		     struct kjit_tpstat *out)
{
	int cpu;

	memset(out, 0, sizeof(*out));
	if (node >= t->n_paths)
		return 0;
	for_each_possible_cpu(cpu) {
		const struct kjit_tpstat *s = t->pstat[cpu] + node;

		out->calls += READ_ONCE(s->calls);
		out->incl += READ_ONCE(s->incl);
		out->excl += READ_ONCE(s->excl);
	}
	return READ_ONCE(t->pkey[node]);
}

static void time_zero_here(void *data)
{
	struct kjit_timing *t = data;

	if (this_cpu_read(kjit_tbusy)) /* the helper it interrupted does it */
		this_cpu_write(kjit_tzero, 1);
	else
		zero_cpu(t);
}

void kjit_timing_reset(struct kjit_timing *t)
{
	if (!t->n_recs)
		return;
	/* each CPU zeroes its own (an IPI), or the helper it interrupted
	 * there does when it is done */
	on_each_cpu(time_zero_here, t, 1);
	atomic64_set(&t->untimed, 0);
	atomic64_set(&t->lost, 0);
	atomic64_set(&t->paths_full, 0);
}
