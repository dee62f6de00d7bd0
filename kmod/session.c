// SPDX-License-Identifier: GPL-2.0
/*
 * session.c - create, attach, detach and destroy a session (see session.h).
 *
 * Detach order, and why it is safe:
 *   1. unregister every ftrace direct call: no new entry into the cache
 *      (if ftrace keeps one, detach stops here and says so: nothing the
 *      diverted function reaches may go);
 *   2. freeze and empty the lookup tables (kjit_ibl_freeze), then
 *      synchronize_rcu_tasks(): every task that was preempted inside a
 *      trampoline, translated code or the fast path of kjit_dispatch_entry
 *      (which may hold a continuation read before the tables emptied) has
 *      since scheduled voluntarily; from now on the fast path sends nobody
 *      back into the cache;
 *   3. clear kjit_active and synchronize_rcu(): no dispatcher (preemption
 *      disabled, any context, interrupts included) still uses the session;
 *   4. kjit_quiesce(): tasks that called out of translated code (native-call
 *      mode) and sleep there get their cache return addresses rewritten to
 *      the original ones (also where other tracers keep them); tasks still
 *      inside the cache are waited for; idle tasks included;
 *   5. synchronize_rcu_tasks() again: a task preempted in
 *      kjit_dispatch_entry (module text) after step 2 leaves it;
 *   6. unpin modules, free the code: int3 over every chunk of the code
 *      pool the caches took, and the trampolines.
 *      The detaching task's own cache return addresses (its ioctl may have
 *      entered through a deep-attached __x64_sys_ioctl) were moved by
 *      step 4 too.
 * The block tables and counters stay readable until the next attach or
 * unload.
 *
 * Context: process, kjit_mutex held (the __ functions say so).
 */
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/rcupdate_wait.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include "cachepool.h"
#include "divert.h"
#include "env.h"
#include "exittail.h"
#include "ibl.h"
#include "ksyms.h"
#include "extable.h"
#include "orc.h"
#include "symbols.h"
#include "quiesce.h"
#include "session.h"
#include "watch.h"

struct kjit_session __rcu *kjit_active;
DEFINE_MUTEX(kjit_mutex);

/* Defaults for the limits an attach leaves at 0 (docs/design/limits.md,
 * "Memory": per CPU). Sized so that a deep attach over the LMbench
 * suite's system call entry points (bench/lmbench.sh: ~1000 callees, up to
 * ~8000 blocks on one CPU) leaves nothing native for lack of room. */
static unsigned int cache_kb = 2048;
module_param(cache_kb, uint, 0444);
MODULE_PARM_DESC(cache_kb, "default code cache per CPU, KiB (2048)");
static unsigned int max_blocks = 32768;
module_param(max_blocks, uint, 0444);
MODULE_PARM_DESC(max_blocks, "default translated blocks per CPU (32768)");

static bool lock_counters;
module_param(lock_counters, bool, 0644);
MODULE_PARM_DESC(lock_counters,
		 "count with lock incq in shared counters (the old form), not "
		 "per-CPU incq %gs:; read at attach (default off)");

static bool near_counters = true;
module_param(near_counters, bool, 0644);
MODULE_PARM_DESC(
    near_counters,
    "per-CPU counters in the near area where the layout allows "
    "(incq %gs:disp32, one instruction a block; kmod/pcpu_near.h), "
    "the rest from alloc_percpu(); read at attach (default on)");

static bool predict = true;
module_param(predict, bool, 0644);
MODULE_PARM_DESC(predict,
		 "deep mode: give each followed indirect call through a "
		 "register an inline prediction of its first target; read at "
		 "attach (default on)");

static bool predict_jumps = true;
module_param(predict_jumps, bool, 0644);
MODULE_PARM_DESC(predict_jumps,
		 "give each indirect jmp through a register a flags-free "
		 "inline prediction of its first targets (lea/jrcxz); read at "
		 "attach (default on)");

static unsigned int deep_max = 16384;
module_param(deep_max, uint, 0444);
MODULE_PARM_DESC(deep_max, "default functions followed by one deep attach "
			   "(16384; the table grows to it)");
static unsigned int deep_first = KJIT_DEEP_FIRST;
module_param(deep_first, uint, 0444);
MODULE_PARM_DESC(deep_first, "callees a deep table has room for at attach, "
			     "before it grows (1024)");
static unsigned int deep_ahead = KJIT_DEEP_AHEAD;
module_param(deep_ahead, uint, 0444);
MODULE_PARM_DESC(deep_ahead, "free room a deep table's worker keeps ahead of "
			     "the callees followed (512; 0: grow only when "
			     "full)");
static unsigned int deep_grow_delay_ms;
module_param(deep_grow_delay_ms, uint, 0444);
MODULE_PARM_DESC(deep_grow_delay_ms,
		 "for tests: the deep table's worker waits this long before "
		 "it grows the table (0)");

static unsigned int pcpu_chunk = KJIT_PCPU_CHUNK;
module_param(pcpu_chunk, uint, 0444);
MODULE_PARM_DESC(pcpu_chunk, "per-CPU counters per allocation: the counter "
			     "table grows by this many (4096, the most; "
			     "smaller for tests)");
static unsigned int pcpu_near_kb;
module_param(pcpu_near_kb, uint, 0444);
MODULE_PARM_DESC(pcpu_near_kb,
		 "for tests: at most this many KiB of each CPU's counters in "
		 "the near area, the rest from alloc_percpu() (0: no cap)");
static unsigned int pcpu_grow_delay_ms;
module_param(pcpu_grow_delay_ms, uint, 0444);
MODULE_PARM_DESC(pcpu_grow_delay_ms,
		 "for tests: the counter table's worker waits this long "
		 "before it grows the table (0)");

/* Fills a 0 limit from @def; -EINVAL outside [@lo, @hi]. */
static int limit(u32 *v, u32 def, u32 lo, u32 hi)
{
	if (!*v)
		*v = def;
	return *v < lo || *v > hi ? -EINVAL : 0;
}

int kjit_session_limits(struct kjit_limits *l)
{
	return limit(&l->deep_max, deep_max, 1, KJIT_DEEP_MAX) ?:
	       limit(&l->cache_kb, cache_kb, 4, KJIT_CACHE_KB_MAX) ?:
	       limit(&l->max_blocks, max_blocks, 16, KJIT_BLOCKS_MAX);
}

/* Bytes one CPU's cache takes at attach under @l (cpu_alloc); its block
 * table and map grow later (grow.h: kjit_grow.bytes). */
static size_t cpu_mem_bytes(const struct kjit_limits *l)
{
	size_t b = l->max_blocks;

	return PAGE_ALIGN((b + 1) * sizeof(u64)) +
	       kjit_grow_first_bytes(l->max_blocks) +
	       sizeof(struct kjit_translator) + sizeof(struct kjit_cpu);
}

int kjit_session_attached_of(const struct kjit_session *s, unsigned long addr)
{
	int lo = 0, hi = (int)s->n_funcs - 1, mid;

	while (lo <= hi) {
		mid = (lo + hi) / 2;
		if (addr < s->funcs[mid].start)
			hi = mid - 1;
		else if (addr >= s->funcs[mid].end)
			lo = mid + 1;
		else
			return mid;
	}
	return -1;
}

int kjit_session_func_of(struct kjit_session *s, unsigned long addr)
{
	int i = kjit_session_attached_of(s, addr);

	/* A call from translated code to an attached function's start goes
	 * the way every other caller's does: through its __fentry__ site
	 * (other ftrace users there, then kjit's diversion), never straight
	 * into a copy that skips the site. */
	if (i >= 0 && addr == s->funcs[i].start)
		return -1;
	if (i >= 0 || !s->deep)
		return i;
	i = kjit_deep_func_of(&s->deep_tab, addr);
	return i < 0 ? i : (int)s->n_funcs + i;
}

unsigned long kjit_session_return_site(const struct kjit_session *s,
				       unsigned long a)
{
	unsigned long orig;
	int cpu;

	for_each_possible_cpu(cpu)
	{
		orig = kjit_cache_return_site(&s->cpu[cpu]->cache, a);
		if (orig)
			return orig;
	}
	return 0;
}

unsigned long kjit_session_fault_site(const struct kjit_session *s,
				      unsigned long a)
{
	unsigned long orig;
	int cpu;

	for_each_possible_cpu(cpu)
	{
		orig = kjit_cache_fault_site(&s->cpu[cpu]->cache, a);
		if (orig)
			return orig;
	}
	return 0;
}

size_t kjit_session_grown_bytes(const struct kjit_session *s)
{
	return READ_ONCE(s->deep_tab.bytes) + READ_ONCE(s->native.bytes) +
	       READ_ONCE(s->pctr.bytes);
}

bool kjit_session_contains(struct kjit_session *s, unsigned long addr)
{
	return kjit_session_attached_of(s, addr) >= 0 ||
	       (s->deep && kjit_deep_contains(&s->deep_tab, addr));
}

static void cpu_free(struct kjit_cpu *c)
{
	if (!c)
		return;
	kjit_region_free(&c->data);
	kjit_grow_stop(&c->grow);
	kjit_grow_free(&c->grow, c->cache.chunks ? &c->cache : NULL, NULL);
	kvfree(c->tr);
	kfree(c);
}

/* An exit to a callee the deep table has no room for yet waits for it
 * (it stays unlinked until the callee is translated), as one to a
 * followed callee does; only a lasting "no" links it to native code. */
static bool translatable(void *ctx, u64 orig)
{
	struct kjit_cpu *c = ctx;
	int fi = kjit_session_func_of(c->session, (unsigned long)orig);

	return fi >= 0 || fi == KJIT_DEEP_LATER;
}

/* A block's side tables before its code is written (codecache/cache.h):
 * its ORC entries and, for a copied instruction with a fixup, its
 * exception-table entry. False: no room left in its chunk's slices. */
static bool place(void *ctx, const struct kjit_block *b,
		  const struct kjit_translator *tr, u64 run)
{
	struct kjit_cpu *c = ctx;
	int n = kjit_orc_place(b, tr, run);

	if (n < 0 || !kjit_extable_place(b, tr, run))
		return false;
	c->orc_entries += n;
	return true;
}

/* The cache's next code area: a chunk of the pool, cut to what is left
 * of the session's cache_kb for this CPU (codecache/cache.h). */
static bool more_code(void *ctx, u8 **run, u8 **rw, u32 *size)
{
	struct kjit_cpu *c = ctx;
	u64 cap = (u64)c->session->lim.cache_kb << 10;

	if (c->code_taken >= cap) {
		c->code_capped = true;
		return false;
	}
	if (!kjit_pool_take(run, rw, size)) {
		c->pool_empty++;
		return false;
	}
	if (*size > cap - c->code_taken)
		*size = cap - c->code_taken;
	c->code_taken += *size;
	return true;
}

static struct kjit_cpu *cpu_alloc(struct kjit_session *s)
{
	u32 max_blocks = s->lim.max_blocks;
	struct kjit_cache_mem m = {};
	struct kjit_config cfg;
	struct kjit_cpu *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	c->tr = kvzalloc(sizeof(*c->tr), GFP_KERNEL);
	/* no code area yet: chunks of the pool come with use (more_code);
	 * the block table and map start small and grow (grow.h) */
	if (!c->tr || kjit_grow_first(&c->grow, &m, max_blocks) ||
	    kjit_region_alloc_data(&c->data,
				   ((size_t)max_blocks + 1) * sizeof(u64)))
		goto fail;
	m.counters_run = (u64 *)c->data.exec;
	m.counters_rw = (u64 *)c->data.rw;
	if (kjit_cache_init(&c->cache, &m))
		goto fail;
	kjit_grow_start(&c->grow, &c->cache);
	c->session = s;
	c->guard_rw = m.counters_rw + max_blocks; /* after the block counters */
	c->cache.translatable = translatable;
	c->cache.more_code = more_code;
	c->cache.place = place;
	c->cache.ctx = c;
	kjit_env_fill(&c->env, c);
	kjit_config_default(&cfg);
	cfg.native_calls = true;
	cfg.follow_indirect_calls = s->deep;
	cfg.predict_indirect_calls = s->deep && predict;
	cfg.predict_indirect_jumps = predict_jumps;
	cfg.instr = s->count;
	/* every translation may be the target of the trampoline's jmp *%r11 */
	cfg.ibt = IS_ENABLED(CONFIG_X86_KERNEL_IBT);
	if (kjit_translator_init(c->tr, &c->env, &cfg) != KJIT_OK)
		goto fail;
	return c;
fail:
	if (!c->cache.chunks) /* else cpu_free() frees what the cache has */
		kjit_grow_free(&c->grow, NULL, &m);
	cpu_free(c);
	return NULL;
}

void kjit_session_free(struct kjit_session *s)
{
	unsigned int i;

	if (!s)
		return;
	if (s->groups) {
		pr_err("kjit: %s still diverted: leaking its session\n",
		       s->funcs[s->groups->first].name);
		return;
	}
	if (s->cpu)
		for (i = 0; i < nr_cpu_ids; i++)
			cpu_free(s->cpu[i]);
	kfree(s->cpu);
	kjit_divert_free(s);
	kjit_deep_free(&s->deep_tab);
	kjit_native_free(&s->native);
	kjit_pcpu_free(&s->pctr);
	kjit_split_free(&s->split);
	kjit_timing_free(&s->timing);
	kjit_scope_free(&s->scope);
	kvfree(s->funcs);
	kvfree(s);
}

static int cmp_func(const void *a, const void *b)
{
	const struct kjit_func *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Allocates a session for the @n functions in @funcs (start/end/name set). */
struct kjit_session *kjit_session_new(const struct kjit_func *funcs,
				      unsigned int n, u32 flags,
				      const struct kjit_limits *lim,
				      struct kjit_scope *scope)
{
	struct kjit_session *s = kvzalloc(sizeof(*s), GFP_KERNEL);
	unsigned int i;
	u32 first;

	if (!s) {
		kjit_scope_free(scope);
		return NULL;
	}
	s->scope = *scope; /* taken over: freed with the session */
	memset(scope, 0, sizeof(*scope));
	s->n_funcs = n;
	s->funcs = kvmalloc_array(n, sizeof(*funcs), GFP_KERNEL);
	if (!s->funcs)
		goto fail;
	memcpy(s->funcs, funcs, n * sizeof(*funcs));
	sort(s->funcs, n, sizeof(*funcs), cmp_func, NULL);
	for (i = 0; i < n; i++) {
		s->funcs[i].body = s->funcs[i].site + MCOUNT_INSN_SIZE;
		s->funcs[i].mod = NULL;
		s->funcs[i].err = 0;
		s->funcs[i].diverted = false;
		s->n_preds += s->funcs[i].pred.op != KJIT_PRED_NONE;
	}
	s->deep = flags & KJIT_ATTACH_DEEP;
	s->count = !(flags & KJIT_ATTACH_NO_COUNT);
	s->timed = flags & KJIT_ATTACH_TIME;
	s->lim = *lim;
	s->mem_bytes = sizeof(*s) + num_possible_cpus() * cpu_mem_bytes(lim) +
		       kjit_scope_mem_bytes(&s->scope);
	/* native-run rows: every attached function's, and the deep table's
	 * first entries'; the deep table grows them with itself (deep.h) */
	first = clamp_t(u32, deep_first, 1, lim->deep_max);
	i = n + (s->deep ? first : 0);
	if (kjit_native_init(&s->native, i, n + (s->deep ? lim->deep_max : 0)))
		goto fail;
	if (s->deep &&
	    kjit_deep_init(&s->deep_tab, lim->deep_max, first,
			   min(deep_ahead, KJIT_DEEP_MAX), &s->native, n))
		goto fail;
	s->deep_tab.delay_ms = min(deep_grow_delay_ms, 10000u);
	/* one key per original block, room for a CPU's full cache of
	 * distinct blocks twice over; counters come half a chunk ahead of
	 * the blocks numbered (pcpu.h); without the memory, the old form */
	if (s->count && !lock_counters && kjit_pcpu_ok)
		s->pcpu = !kjit_pcpu_init(&s->pctr, 2 * lim->max_blocks,
					  pcpu_chunk, pcpu_chunk / 2,
					  near_counters, pcpu_near_kb * 1024ul);
	if (s->pcpu && s->pctr.near_chunks)
		pr_info("kjit: counters: the first %u in the near area "
			"(incq %%gs:%#llx..), the rest from alloc_percpu()\n",
			s->pctr.near_chunks * s->pctr.chunk_len,
			(unsigned long long)s->pctr.near.disp);
	else if (s->pcpu)
		pr_info("kjit: counters: no near area (%s): movabs + incq "
			"%%gs:(%%reg)\n",
			s->pctr.near_why ? s->pctr.near_why : "too small");
	s->pctr.delay_ms = min(pcpu_grow_delay_ms, 10000u);
	s->grown_base = kjit_session_grown_bytes(s);
	s->mem_bytes += s->grown_base;
	if (s->count && !lock_counters && !s->pcpu)
		pr_info("kjit: no per-CPU counters for this session: "
			"counting with lock incq\n");
	s->cpu = kcalloc(nr_cpu_ids, sizeof(*s->cpu), GFP_KERNEL);
	if (!s->cpu)
		goto fail;
	for_each_possible_cpu(i)
	{
		s->cpu[i] = cpu_alloc(s);
		if (!s->cpu[i])
			goto fail;
	}
	if (kjit_divert_prepare(s))
		goto fail;
	return s;
fail:
	kjit_session_free(s);
	return NULL;
}

/* __kjit_session_attach - publish @s and divert its functions. A function
 * that cannot be pinned or diverted gets its err; with @best_effort the
 * others stay attached, else (or when none could be) everything is undone
 * and the first error returned. kjit_mutex held. */
int __kjit_session_attach(struct kjit_session *s, bool best_effort)
{
	struct kjit_func *f;
	unsigned int i;
	int err;

	err = kjit_pool_open();
	if (err)
		return err;
	err = kjit_divert_place(s);
	if (!err)
		err = kjit_scope_start(&s->scope);
	/* every CPU's bank slots set before any translated code runs */
	if (!err) {
		err = kjit_split_start(&s->split);
		if (!err) {
			err = kjit_timing_start(&s->timing);
			if (err)
				kjit_split_stop(&s->split);
		}
		if (err)
			kjit_scope_stop(&s->scope);
	}
	if (err) {
		kjit_pool_seal();
		kjit_pool_reset(); /* the trampoline's chunk, if it took one */
		s->tramp = 0;
		s->tramp_len = 0;
		return err;
	}
	kjit_ibl_thaw();
	kjit_ibl_reset_hits();
	kjit_exit_tail_start(s);
	rcu_assign_pointer(kjit_active, s);
	kjit_symbols_start(s);
	kjit_watch_start(s);
	for (i = 0; i < s->n_funcs; i++) {
		f = &s->funcs[i];
		f->mod = kjit_module_pin(f->start);
		if (IS_ERR(f->mod)) {
			f->err = PTR_ERR(f->mod);
			f->mod = NULL;
		}
	}
	s->attached = true;
	err = kjit_divert_on(s, best_effort);
	if (err)
		__kjit_session_detach(s);
	return err;
}

/* Drop CPU @c's pointer to the writable alias of its code: after detach
 * nothing writes translations (the alias itself goes with the pool's). */
static void seal_cpu(struct kjit_cpu *c)
{
	if (c)
		c->cache.code_rw = NULL;
}

/* __kjit_session_detach - the steps above. Returns 0, or -EBUSY when ftrace
 * kept a diversion of @s: detach then stops before anything else, the
 * session stays attached and whole (its other functions run natively),
 * and a later detach tries again. kjit_mutex held. */
int __kjit_session_detach(struct kjit_session *s)
{
	unsigned int i, left;

	if (!s->attached)
		return 0;
	left = kjit_divert_off(s);
	if (left) {
		pr_err("kjit: detach stopped: %u functions are still diverted; "
		       "the session stays attached (detach again to retry)\n",
		       left);
		/* rmmod could not wait for ftrace for ever: refuse it until a
		 * detach succeeds (never in rmmod's own detach, whose module
		 * is going: control.c tries again there) */
		if (!s->holds_module && try_module_get(THIS_MODULE))
			s->holds_module = true;
		return -EBUSY;
	}
	if (s->holds_module) {
		module_put(THIS_MODULE);
		s->holds_module = false;
	}
	kjit_symbols_stop();
	kjit_scope_stop(&s->scope);
	/* The lookup tables take no more entries and are emptied, before the
	 * RCU-tasks wait below. A task preempted in the fast path of
	 * kjit_dispatch_entry (module text: quiesce sees nothing of the cache
	 * on it) that read its slot before the tables emptied may hold the
	 * continuation only as half of a word, in no form quiesce knows: the
	 * wait lets it go on, into the cache (where quiesce finds it) or out,
	 * by its next voluntary switch. One that reads its slot after this
	 * misses and goes into C. Left filled, the tables sent such a task
	 * back into the cache after quiesce, to sleep in a translated callee
	 * and wake into freed code. */
	kjit_ibl_freeze();
	synchronize_rcu_tasks();
	kjit_watch_stop();
	rcu_assign_pointer(kjit_active, NULL);
	synchronize_rcu();
	kjit_quiesce(s);
	/* No dispatcher runs any more (synchronize_rcu() above), and only the
	 * dispatcher writes the caches: their writable aliases go. */
	for_each_possible_cpu(i) seal_cpu(s->cpu[i]);
	kjit_pool_seal();
	/* A task preempted in kjit_dispatch_entry (module text, not the cache:
	 * quiesce does not see it) after step 2 came from the cache; let it
	 * leave before the module can be unloaded. */
	synchronize_rcu_tasks();
	/* Every CPU's code goes: its block table keeps the translations'
	 * addresses, as numbers for reports. */
	kjit_pool_reset();
	/* no translated code runs: the banks' slots need no more setting
	 * (the banks stay, for the reports, until the session is freed) */
	kjit_split_stop(&s->split);
	kjit_timing_stop(&s->timing);
	kjit_divert_release(s);
	for (i = 0; i < s->n_funcs; i++) {
		kjit_module_unpin(s->funcs[i].mod);
		s->funcs[i].mod = NULL;
	}
	kjit_deep_unpin(&s->deep_tab);
	kjit_exit_tail_stop(); /* the cache is gone: no task runs it */
	s->attached = false;
	return 0;
}
