/* test_smp.c - the code cache (codecache/) under concurrency on real
 * silicon: several threads run translated corpus code while one owning
 * thread keeps translating, publishing and linking blocks into it.
 *
 * Set-up as kmod/session.c cpu_alloc does it: one struct kjit_cache over a
 * memfd mapped twice (RX where the code runs, RW alias the translator and
 * the linker write through), native_calls on, block counters `lock incq`
 * RIP-relative in one array (kmod/env.c env_counter). The dispatcher
 * (smp_dispatch_entry, assembly) keeps the contract of jit/exit.h.
 *
 * The module's rule, mirrored: only the owner (the cache's CPU) translates
 * into the cache and uses its map; any other thread may run its code, and
 * when one of them reaches the dispatcher it only looks the target up in
 * the published blocks (kjit_cache_count(), acquire) and otherwise runs the
 * target natively - like a task that migrated off the cache's CPU.
 *
 * Phase A (concurrent): the owner translates at most one new block per
 * TR_GAP_NS, so publishing and linking go on for most of the phase while
 * the readers execute the same exits. Checks: every result equals the
 * native one; every published block a reader sees is complete; the entry
 * block count of each function equals the calls made through the cache.
 * The cache starts empty and grows (cache.h, "Growing") while all this
 * runs: a grower thread, as kmod/grow.c's worker, hands in one chunk at a
 * time when the owner was refused for lack of one, and a map twice the
 * size whenever the current one is a quarter full; it poisons each map
 * the owner retires before freeing it, so a late use shows.
 * Phase B (quiescent cache, concurrent runs): with everything translated,
 * every block's count over one run of a fixed input list equals that of
 * the independent ptrace oracle (oracle.h) single-stepping the list
 * natively, and over N_READERS concurrent runs N_READERS times that.
 * Phase C: phase B again on a fresh cache translating for a kernel that
 * enforces IBT (kjit_config.ibt): every block the owner adds gets the IBT
 * proof (ibt_check.h), and every address the block map hands out begins
 * with endbr64.
 * Phase D: phase B again with the module's per-CPU counters: `incq %gs:`
 * at a 64-bit offset, no lock; each thread is a CPU with its own GS base
 * (arch_prctl) over its own copy of the counters, and a block's count is
 * the sum of the copies, as kmod/report.c sums CPUs; each reader's copy
 * equals the oracle's count of one run, so each thread's count is proven
 * on its own.
 *
 * Invariants: the functions run here keep no global state (their results
 * depend on the inputs only); none of them is called by another one of
 * them, so its entry block is entered once per call from the harness.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include "codecache/cache.h"
#include "tests/host/corpus.h"
#include "tests/host/host_env.h"
#include "tests/host/ibt_check.h"
#include "tests/host/kjit_test.h"
#include "tests/host/oracle.h"

#define N_READERS  4
#define CODE_RX	   0x50000000ul
#define CODE_SIZE  (4ul << 20)
#define MAX_BLOCKS 4096
#define MAP_SLOTS  (2 * MAX_BLOCKS * 2)
#define TR_GAP_NS  2000000ull	 /* owner: one new block per 2 ms at most */
#define PHASE_A_NS 2500000000ull /* then stop */
#define LIST_LEN   64		 /* phase B inputs */
#define RDR_SLOTS  (2 * MAX_BLOCKS)

long c_loop(long, long), c_switch(long, long), c_fib(long, long);
long c_fnptr(long, long), c_setcc(long, long), c_twojcc(long, long);
long c_wide(long, long), c_goto(long, long), c_bits(long, long);
long a_carry(long, long), a_loop(long, long), a_retimm(long, long);
long a_thunks(long, long), a_callrsp(long, long), a_ibt(long, long);

struct fn {
	const char *name;
	corpus_fn fn;
	bool exact; /* its entry count is checked (fib recurses into it) */
};

static const struct fn fns[] = {
    {"loop", c_loop, true},	{"switch", c_switch, true},
    {"fib", c_fib, false},	{"fnptr", c_fnptr, true},
    {"setcc", c_setcc, true},	{"twojcc", c_twojcc, true},
    {"wide", c_wide, true},	{"goto", c_goto, true},
    {"bits", c_bits, true},	{"carry", a_carry, true},
    {"loopinsn", a_loop, true}, {"retimm", a_retimm, true},
    {"thunks", a_thunks, true}, {"callrsp", a_callrsp, true},
    {"ibt", a_ibt, true},
};
#define N_FNS KJIT_ARRAY_SIZE(fns)

/* ---- the cache and its environment ------------------------------------ */

static struct kjit_cache cache;
static struct kjit_translator tr;
static struct henv henv;
static u64 counters[MAX_BLOCKS + 1];
#define N_CHUNKS (MAX_BLOCKS / KJIT_CHUNK_BLOCKS)
static struct kjit_chunk chunk_mem[N_CHUNKS];
static struct kjit_chunk *dir[N_CHUNKS];
static struct kjit_centry map[MAP_SLOTS];
#define GROW_MAP0 8 /* phase A's first map: 8 slots */
#define blocks(i) (*kjit_cache_block(&cache, (i)))
static u64 lo, hi; /* the corpus section: what may be translated */
/* phase D: one copy of the counters per thread ("CPU"), and the GS base
 * of thread 0's copy (2^46 below it: every offset a 64-bit one) */
static u64 pcpu[N_READERS + 1][MAX_BLOCKS + 1];
static bool pcpu_mode;
#define PCPU_BASE ((u64)(uintptr_t)pcpu[0] + (1ull << 46))

/* A block's count: its counter, or in phase D the sum of every copy. */
static u64 ctr_total(u32 i)
{
	u64 n = 0;
	unsigned t;

	if (!pcpu_mode)
		return counters[i];
	for (t = 0; t <= N_READERS; t++)
		n += __atomic_load_n(&pcpu[t][i], __ATOMIC_RELAXED);
	return n;
}

/* Thread @t runs as CPU @t: its GS base on its copy. */
static void be_cpu(unsigned t)
{
	if (pcpu_mode && henv_set_gs(PCPU_BASE + t * (u64)sizeof(pcpu[0]))) {
		kt_fail("codecache.smp.pcpu.setup", "arch_prctl failed");
		exit(kt_exit());
	}
}

void smp_dispatch_entry(void);
u64 smp_dispatch(u64 target);

/* Dispatcher entry (jit/exit.h): [rsp] = target. 9 GPRs + flags saved put
 * the target at 80(%rsp), 88(%rbp) once rbp is pushed; FP/SSE state is
 * saved too, as a miss may run Zydis and libc. */
__asm__(".text\n.globl smp_dispatch_entry\nsmp_dispatch_entry:\n"
	"  pushfq\n push %rax\n push %rcx\n push %rdx\n push %rsi\n push %rdi\n"
	"  push %r8\n push %r9\n push %r10\n push %r11\n"
	"  cld\n"
	"  push %rbp\n mov %rsp,%rbp\n and $-64,%rsp\n"
	"  sub $512,%rsp\n fxsave64 (%rsp)\n"
	"  mov 88(%rbp),%rdi\n call smp_dispatch\n"
	"  fxrstor64 (%rsp)\n"
	"  mov %rbp,%rsp\n pop %rbp\n"
	"  mov %rax,80(%rsp)\n"
	"  pop %r11\n pop %r10\n pop %r9\n pop %r8\n pop %rdi\n pop %rsi\n"
	"  pop %rdx\n pop %rcx\n pop %rax\n popfq\n"
	"  ret\n");

/* kmod/env.c env_counter: the next block's counter, per-CPU at a 64-bit
 * %gs offset (phase D), else RIP-relative and locked (the old form). */
static bool smp_counter(void *opaque, u64 block_addr,
			enum kjit_counter_kind kind, unsigned exit,
			struct kjit_mem *out)
{
	if (kind != KJIT_CTR_BLOCK)
		return false;
	if (pcpu_mode) {
		out->mode = KJIT_MEM_GS;
		out->addr = (u64)(uintptr_t)&pcpu[0][kjit_cache_count(&cache)] -
			    PCPU_BASE;
		out->lock = false;
		return true;
	}
	out->mode = KJIT_MEM_RIPREL;
	out->addr = kjit_cache_next_counter(&cache);
	out->lock = true;
	return true;
}

static bool smp_translatable(void *ctx, u64 orig)
{
	return orig >= lo && orig < hi;
}

/* The RX view at CODE_RX and the RW alias of the same memfd, int3-filled. */
static int map_code(u8 **rx, u8 **rw)
{
	int fd = memfd_create("kjit-smp", 0);

	if (fd < 0 || ftruncate(fd, CODE_SIZE))
		return -1;
	*rw = mmap(NULL, CODE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	*rx = mmap((void *)CODE_RX, CODE_SIZE, PROT_READ | PROT_EXEC,
		   MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	close(fd);
	if (*rw == MAP_FAILED || *rx == MAP_FAILED)
		return -1;
	memset(*rw, 0xcc, CODE_SIZE);
	return 0;
}

static u8 *code_rx, *code_rw;

/* A fresh, empty cache and translator (native calls, and @ibt); @grow:
 * no chunk and a map of GROW_MAP0 slots (calloc) for the grower to grow,
 * else every chunk and the whole map up front. */
static int reset_cache(bool ibt, bool grow)
{
	struct kjit_cache_mem m = {
	    .code_run = code_rx,
	    .code_rw = code_rw,
	    .code_size = CODE_SIZE,
	    .counters_run = counters,
	    .counters_rw = counters,
	    .chunks = dir,
	    .max_blocks = MAX_BLOCKS,
	    .map = map,
	    .map_slots = MAP_SLOTS,
	};
	struct kjit_config cfg;
	unsigned i;

	memset(code_rw, 0xcc, CODE_SIZE);
	memset(counters, 0, sizeof(counters));
	memset(pcpu, 0, sizeof(pcpu));
	memset(chunk_mem, 0, sizeof(chunk_mem));
	memset(map, 0, sizeof(map));
	for (i = 0; i < N_CHUNKS; i++)
		dir[i] = grow ? NULL : &chunk_mem[i];
	if (grow) {
		m.map = calloc(GROW_MAP0, sizeof(*m.map));
		m.map_slots = GROW_MAP0;
		m.map_max_slots = MAP_SLOTS;
	}
	if (!m.map || kjit_cache_init(&cache, &m))
		return -1;
	cache.translatable = smp_translatable;
	henv_init(&henv, KJIT_MEM_RIPREL, NULL, NULL,
		  (u64)(uintptr_t)smp_dispatch_entry);
	henv.env.counter = smp_counter;
	henv_add_region(&henv, lo, (const void *)(uintptr_t)lo, hi - lo);
	henv_add_sym(&henv, (u64)(uintptr_t)corpus_fentry, KJIT_SYM_FENTRY, -1);
	henv_add_sym(&henv, (u64)(uintptr_t)corpus_return_thunk,
		     KJIT_SYM_RETURN_THUNK, -1);
	henv_add_sym(&henv, (u64)(uintptr_t)corpus_thunk_rax,
		     KJIT_SYM_INDIRECT_THUNK, 0);
	henv_add_sym(&henv, (u64)(uintptr_t)corpus_thunk_r11,
		     KJIT_SYM_INDIRECT_THUNK, 11);
	kjit_config_default(&cfg);
	cfg.native_calls = true;
	cfg.ibt = ibt;
	return kjit_translator_init(&tr, &henv.env, &cfg) ? -1 : 0;
}

static int setup(void)
{
	lo = (u64)(uintptr_t)__start_kjit_corpus;
	hi = (u64)(uintptr_t)__stop_kjit_corpus;
	oracle_init(lo, hi);
	oracle_native_indirect_calls(true); /* cfg.native_calls copies them */
	if (map_code(&code_rx, &code_rw))
		return -1;
	return reset_cache(false, true);
}

/* ---- dispatch: the owner translates, readers look up ------------------- */

static __thread bool is_owner;
static bool owner_throttled; /* phase A: one new block per TR_GAP_NS */
static u64 last_add_ns, phase_a_start;
static int bad_published; /* readers saw an incomplete published block */
static u64 reader_hits;	  /* reader exits continued in the cache */
static char bad_msg[200];

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

static struct ibtc ibtc; /* phase C */
static unsigned ibt_bad;
static char ibt_msg[300];

/* With tr.cfg.ibt: the IBT proof of block @i, just added by the owner. */
static void prove_block(u32 i)
{
	const struct kjit_cblock *cb = &blocks(i);
	const u8 *at = cache.code_rw + (cb->run - (u64)(uintptr_t)code_rx);

	if (ibtc_block(&ibtc, kjit_last_desc(&tr), &cb->b, at, cb->run) &&
	    !ibt_bad++)
		snprintf(ibt_msg, sizeof(ibt_msg), "block %#llx: %.200s",
			 (unsigned long long)cb->b.orig, ibtc.msg);
}

/* Owner: the translation of @orig, made now unless throttled; 0 if none. */
static u64 owner_get(u64 orig)
{
	u64 run = kjit_cache_lookup(&cache, orig), t;
	u32 n = cache.n_blocks;

	if (run)
		return run;
	t = now_ns();
	if (owner_throttled && t - last_add_ns < TR_GAP_NS)
		return 0;
	last_add_ns = t;
	if (kjit_cache_add(&cache, &tr, orig, 0, &run))
		return 0;
	if (tr.cfg.ibt && cache.n_blocks != n)
		prove_block(n);
	return run;
}

/* A reader's private index of the blocks published so far. */
struct rindex {
	u64 orig[RDR_SLOTS], run[RDR_SLOTS];
	u32 seen;
};
static __thread struct rindex *rix;

static u32 rslot(u64 a)
{
	return (u32)((a * 0x9e3779b97f4a7c15ull) >> 40) & (RDR_SLOTS - 1);
}

/* What cache.h promises a reader about blocks[0..n_blocks): complete. */
static bool block_ok(const struct kjit_cblock *cb)
{
	u64 base = (u64)(uintptr_t)cache.code_run;

	return cb->b.orig >= lo && cb->b.orig < hi && cb->b.len &&
	       cb->run >= base && cb->run + cb->b.len <= base + CODE_SIZE &&
	       *(const u8 *)(uintptr_t)cb->run != 0xcc;
}

static void note_bad(u32 i, const struct kjit_cblock *cb)
{
	if (__atomic_fetch_add(&bad_published, 1, __ATOMIC_RELAXED) == 0)
		snprintf(bad_msg, sizeof(bad_msg),
			 "block %u published incomplete: orig %#llx run %#llx "
			 "len %u",
			 i, (unsigned long long)cb->b.orig,
			 (unsigned long long)cb->run, cb->b.len);
}

static void rindex_refresh(struct rindex *r)
{
	u32 n = kjit_cache_count(&cache), i, s;

	for (i = r->seen; i < n; i++) {
		const struct kjit_cblock *cb = &blocks(i);

		if (!block_ok(cb)) {
			note_bad(i, cb);
			continue;
		}
		for (s = rslot(cb->b.orig); r->orig[s];
		     s = (s + 1) & (RDR_SLOTS - 1))
			;
		r->orig[s] = cb->b.orig;
		r->run[s] = cb->run;
	}
	r->seen = n;
}

static u64 rindex_find(const struct rindex *r, u64 orig)
{
	u32 s;

	for (s = rslot(orig); r->orig[s]; s = (s + 1) & (RDR_SLOTS - 1))
		if (r->orig[s] == orig)
			return r->run[s];
	return 0;
}

/* Reader: the published translation of @orig, or 0. */
static u64 reader_get(u64 orig)
{
	u64 run = rindex_find(rix, orig);

	if (!run && rix->seen != kjit_cache_count(&cache)) {
		rindex_refresh(rix);
		run = rindex_find(rix, orig);
	}
	return run;
}

/* Where the dispatcher continues: a translation or @target natively. */
u64 smp_dispatch(u64 target)
{
	u64 run;

	if (target < lo || target >= hi)
		return target;
	if (is_owner)
		run = owner_get(target);
	else if ((run = reader_get(target)))
		__atomic_fetch_add(&reader_hits, 1, __ATOMIC_RELAXED);
	return run ? run : target;
}

/* ---- the workload ------------------------------------------------------ */

struct worker {
	pthread_t th;
	bool owner;
	u64 rnd;
	u64 calls[N_FNS];  /* made through the cache */
	u64 native[N_FNS]; /* made natively (no translation yet) */
	char why[200];	   /* first wrong result */
	struct rindex ix;
};

static volatile int stop_a;

static u64 xorshift(u64 *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

/* Inputs kept small enough that loops and recursion stay short. */
static void pick(u64 *s, unsigned *f, long *a, long *b)
{
	u64 r = xorshift(s);

	*f = (unsigned)(r % N_FNS);
	*a = (long)(xorshift(s) % 200) - 50;
	*b = (r >> 32) & 1 ? (long)(xorshift(s) % 100) : (long)xorshift(s);
	if (fns[*f].fn == c_fib)
		*a &= 11;
}

/* One call of fns[f] through the cache if its entry is translated. */
static void call_one(struct worker *w, unsigned f, long a, long b)
{
	u64 orig = (u64)(uintptr_t)fns[f].fn;
	u64 run = w->owner ? owner_get(orig) : reader_get(orig);
	long want = fns[f].fn(a, b), got;

	if (!run) {
		w->native[f]++;
		return;
	}
	got = ((corpus_fn)(uintptr_t)run)(a, b);
	w->calls[f]++;
	if (got != want && !w->why[0])
		snprintf(w->why, sizeof(w->why),
			 "%s(%ld,%ld): native %ld, "
			 "cache %ld",
			 fns[f].name, a, b, want, got);
}

static void *phase_a(void *arg)
{
	struct worker *w = arg;
	unsigned f;
	long a, b;

	is_owner = w->owner;
	rix = &w->ix;
	while (!stop_a) {
		pick(&w->rnd, &f, &a, &b);
		call_one(w, f, a, b);
	}
	return NULL;
}

static struct worker workers[N_READERS + 1]; /* [0] is the owner */

/* Phase A's grower: kmod/grow.c's worker, slowed down so that the owner
 * keeps running into missing chunks and small maps. */
static pthread_t grower;
static u64 grown_chunks, grown_maps, retired_maps;
static u32 retire_slots; /* size of the map the owner will leave */

static void grow_once(u64 *growing_seen)
{
	u64 growing = __atomic_load_n(&cache.stats.growing, __ATOMIC_RELAXED);
	u32 slots = __atomic_load_n(&cache.map_mask, __ATOMIC_RELAXED) + 1;
	u32 used = __atomic_load_n(&cache.map_used, __ATOMIC_RELAXED);
	struct kjit_centry *old = kjit_cache_retired_map(&cache), *nu;
	unsigned i;

	if (old) { /* poisoned: a late use by the owner misbehaves */
		memset(old, 0xa5, sizeof(*old) * retire_slots);
		free(old);
		retired_maps++;
	}
	if (growing != *growing_seen) { /* the owner waited: one chunk */
		*growing_seen = growing;
		for (i = 0; i < N_CHUNKS && dir[i]; i++)
			;
		if (i < N_CHUNKS) {
			kjit_cache_offer_chunk(&cache, i, &chunk_mem[i]);
			grown_chunks++;
		}
	}
	if (4 * used >= slots && 2 * slots <= MAP_SLOTS &&
	    !__atomic_load_n(&cache.next_map, __ATOMIC_ACQUIRE) &&
	    !__atomic_load_n(&cache.old_map, __ATOMIC_ACQUIRE) &&
	    (nu = calloc(2 * slots, sizeof(*nu)))) {
		retire_slots = slots;
		kjit_cache_offer_map(&cache, nu, 2 * slots);
		grown_maps++;
	}
}

static void *grow_loop(void *arg)
{
	u64 seen = 0;

	(void)arg;
	while (!stop_a) {
		grow_once(&seen);
		usleep(3000);
	}
	return NULL;
}

/* Counter of the block translated from @orig, or NULL. */
static u64 *counter_of(u64 orig)
{
	u32 i, n = kjit_cache_count(&cache);

	for (i = 0; i < n; i++)
		if (blocks(i).b.orig == orig)
			return &counters[i];
	return NULL;
}

static void check_phase_a(u64 links_before)
{
	char why[300] = "";
	u64 calls = 0, native = 0;
	unsigned i, f;

	for (i = 0; i <= N_READERS && !why[0]; i++)
		if (workers[i].why[0])
			snprintf(why, sizeof(why), "thread %u: %s", i,
				 workers[i].why);
	kt_check("codecache.smp.results", !why[0], "%s", why);
	kt_check("codecache.smp.published", !bad_published, "%d: %s",
		 bad_published, bad_msg);
	why[0] = 0;
	for (f = 0; f < N_FNS; f++) {
		u64 want = 0, *c = counter_of((u64)(uintptr_t)fns[f].fn);

		for (i = 0; i <= N_READERS; i++) {
			want += workers[i].calls[f];
			native += workers[i].native[f];
		}
		calls += want;
		if (fns[f].exact && !why[0] && (c ? *c : 0) != want)
			snprintf(why, sizeof(why),
				 "%s: entry block counted %llu, %llu calls "
				 "through the cache",
				 fns[f].name, (unsigned long long)(c ? *c : 0),
				 (unsigned long long)want);
	}
	kt_check("codecache.smp.entry_counts", !why[0] && calls, "%s", why);
	printf("phase A: %llu calls through the cache, %llu native, %u "
	       "blocks (the last %llu ms in), %llu links (%llu while readers "
	       "ran), %llu refused, %llu reader exits into the cache\n",
	       (unsigned long long)calls, (unsigned long long)native,
	       kjit_cache_count(&cache),
	       (unsigned long long)(last_add_ns - phase_a_start) / 1000000,
	       (unsigned long long)cache.stats.links,
	       (unsigned long long)(cache.stats.links - links_before),
	       (unsigned long long)cache.stats.refused,
	       (unsigned long long)reader_hits);
	printf("phase A: grown by %llu chunks and %llu maps (%llu adopted, "
	       "%llu retired and poisoned) while %llu adds waited\n",
	       (unsigned long long)grown_chunks, (unsigned long long)grown_maps,
	       (unsigned long long)cache.stats.maps,
	       (unsigned long long)retired_maps,
	       (unsigned long long)cache.stats.growing);
	kt_check("codecache.smp.grew_while_running",
		 grown_chunks >= 4 && cache.stats.maps >= 3 &&
		     cache.stats.growing && !cache.stats.table_full,
		 "%llu chunks, %llu maps adopted, %llu waits, %llu table full",
		 (unsigned long long)grown_chunks,
		 (unsigned long long)cache.stats.maps,
		 (unsigned long long)cache.stats.growing,
		 (unsigned long long)cache.stats.table_full);
	kt_check("codecache.smp.linked_while_running",
		 cache.stats.links - links_before >= 10 && !cache.stats.refused,
		 "%llu links while readers ran, %llu refusals",
		 (unsigned long long)(cache.stats.links - links_before),
		 (unsigned long long)cache.stats.refused);
}

static void run_phase_a(void)
{
	u64 t0, links_before;
	unsigned i;

	owner_throttled = true;
	for (i = 0; i <= N_READERS; i++) {
		workers[i].owner = i == 0;
		workers[i].rnd = 0x9e3779b97f4a7c15ull * (i + 1);
	}
	links_before = cache.stats.links;
	if (pthread_create(&grower, NULL, grow_loop, NULL)) {
		kt_fail("codecache.smp.setup", "pthread_create");
		exit(kt_exit());
	}
	for (i = 0; i <= N_READERS; i++)
		if (pthread_create(&workers[i].th, NULL, phase_a,
				   &workers[i])) {
			kt_fail("codecache.smp.setup", "pthread_create");
			exit(kt_exit());
		}
	t0 = phase_a_start = now_ns();
	while (now_ns() - t0 < PHASE_A_NS)
		usleep(10000);
	stop_a = 1;
	for (i = 0; i <= N_READERS; i++)
		pthread_join(workers[i].th, NULL);
	pthread_join(grower, NULL);
	check_phase_a(links_before);
}

/* ---- phase B: exact per-block counts on a complete cache --------------- */

static unsigned list_f[LIST_LEN];
static long list_a[LIST_LEN], list_b[LIST_LEN];
static u64 snap0[MAX_BLOCKS], snap1[MAX_BLOCKS];

static void run_list(struct worker *w)
{
	unsigned i;

	for (i = 0; i < LIST_LEN; i++)
		call_one(w, list_f[i], list_a[i], list_b[i]);
}

static void *phase_b(void *arg)
{
	struct worker *w = arg;

	be_cpu((unsigned)(w - workers));
	is_owner = false;
	rix = &w->ix;
	run_list(w);
	return NULL;
}

/* ---- the independent oracle: one run of the list, single-stepped ------ */

static struct omap list_oracle;

static void run_list_natively(void *arg)
{
	unsigned i;

	(void)arg;
	for (i = 0; i < LIST_LEN; i++)
		fns[list_f[i]].fn(list_a[i], list_b[i]);
}

/* The count of block @i in the oracle's run of the list, or ~0 if the
 * oracle cannot say: a block the translator starts where the oracle saw no
 * start (inside a straight line) never runs on its own. Blocks the cache
 * never translated (callees of copied indirect calls run natively) are
 * not compared. */
static u64 oracle_count(u32 i)
{
	u64 orig = blocks(i).b.orig;

	return omap_has(&list_oracle, orig) ? omap_count(&list_oracle, orig)
					    : 0;
}

/* Every translated block's count in @ctr (one reader's copy, or the sum
 * of @times runs) against the oracle's: equal. */
static bool equals_oracle(u32 n, const u64 *ctr, u64 times, char *why,
			  size_t len, const char *who)
{
	u32 i;

	for (i = 0; i < n; i++) {
		u64 want = times * oracle_count(i);

		if (ctr[i] != want) {
			snprintf(why, len,
				 "%s: block %#llx counted %llu, the oracle "
				 "%llu",
				 who, (unsigned long long)blocks(i).b.orig,
				 (unsigned long long)ctr[i],
				 (unsigned long long)want);
			return false;
		}
	}
	return true;
}

static void check_phase_b(u32 n, const char *name)
{
	char why[300] = "";
	u32 i, seen;

	for (i = 1; i <= N_READERS && !why[0]; i++)
		if (workers[i].why[0])
			snprintf(why, sizeof(why), "thread %u: %s", i,
				 workers[i].why);
	if (!why[0] && kjit_cache_count(&cache) != n)
		snprintf(why, sizeof(why), "blocks %u -> %u: not complete", n,
			 kjit_cache_count(&cache));
	if (!why[0]) { /* one run, and the readers' runs, against the oracle */
		static u64 one[MAX_BLOCKS], all[MAX_BLOCKS];

		for (i = 0; i < n; i++) {
			one[i] = snap1[i] - snap0[i];
			all[i] = ctr_total(i) - snap1[i];
		}
		if (equals_oracle(n, one, 1, why, sizeof(why), "one run"))
			equals_oracle(n, all, N_READERS, why, sizeof(why),
				      "the readers' runs");
	}
	for (i = 0; i < n && !why[0]; i++) {
		u64 one = snap1[i] - snap0[i], all = ctr_total(i) - snap1[i];

		if (all != N_READERS * one)
			snprintf(why, sizeof(why),
				 "block %#llx: %llu counts from %u threads, "
				 "%llu from one",
				 (unsigned long long)blocks(i).b.orig,
				 (unsigned long long)all, N_READERS,
				 (unsigned long long)one);
	}
	for (i = 0, seen = 0; i < n; i++)
		seen += oracle_count(i) != 0;
	/* the comparison says something only if the list ran most blocks */
	if (!why[0] && seen * 2 < n)
		snprintf(why, sizeof(why),
			 "the oracle saw only %u of %u translated blocks run",
			 seen, n);
	kt_check(name, !why[0], "%s", why);
	printf("%s: %u blocks (%u run by the list, equal to the oracle's "
	       "counts), %llu links\n",
	       name, n, seen, (unsigned long long)cache.stats.links);
}

static void run_phase_b(const char *name)
{
	struct worker *o = &workers[0];
	u64 s = 0x2545f4914f6cdd1dull;
	unsigned i;
	u32 n;

	for (i = 0; i < LIST_LEN; i++)
		pick(&s, &list_f[i], &list_a[i], &list_b[i]);
	if (!list_oracle.valid) {
		if (oracle_run_fn(run_list_natively, NULL, &list_oracle) < 0)
			kt_fail(name, "the oracle's run of the list failed");
		list_oracle.valid = true;
	}
	is_owner = true;
	owner_throttled = false;
	o->owner = true;
	be_cpu(0);
	run_list(o); /* translates whatever the list reaches */
	n = kjit_cache_count(&cache);
	for (i = 0; i < n; i++)
		snap0[i] = ctr_total(i);
	run_list(o);
	for (i = 0; i < n; i++)
		snap1[i] = ctr_total(i);
	for (i = 1; i <= N_READERS; i++) {
		memset(workers[i].why, 0, sizeof(workers[i].why));
		workers[i].owner = false;
		pthread_create(&workers[i].th, NULL, phase_b, &workers[i]);
	}
	for (i = 1; i <= N_READERS; i++)
		pthread_join(workers[i].th, NULL);
	check_phase_b(n, name);
}

/* ---- phase C: phase B with kjit_config.ibt ----------------------------- */

static void run_phase_c(void)
{
	u32 i, n, no_endbr = 0;
	unsigned w;

	if (reset_cache(true, false)) {
		kt_fail("codecache.smp.ibt.setup", "cannot reset the cache");
		return;
	}
	ibtc_init(&ibtc);
	for (w = 0; w <= N_READERS; w++)
		memset(&workers[w].ix, 0, sizeof(workers[w].ix));
	run_phase_b("codecache.smp.ibt.block_counts");
	n = kjit_cache_count(&cache);
	for (i = 0; i < n; i++) {
		u64 run = kjit_cache_lookup(&cache, blocks(i).b.orig);

		no_endbr +=
		    !run || !kx86_is_endbr64(
				cache.code_rw + (run - (u64)(uintptr_t)code_rx),
				KX86_ENDBR64_LEN);
	}
	kt_check("codecache.smp.ibt.proof",
		 n && !ibt_bad && !no_endbr && ibtc.blocks == n,
		 "%u of %llu blocks fail the proof (first: %s); %u of %u "
		 "looked-up entries lack endbr64",
		 ibt_bad, (unsigned long long)ibtc.blocks, ibt_msg, no_endbr,
		 n);
	printf("phase C: ibt proof of %llu blocks, %llu copied indirect "
	       "calls\n",
	       (unsigned long long)ibtc.blocks,
	       (unsigned long long)ibtc.copied);
}

/* ---- phase D: phase B with per-CPU counters ---------------------------- */

static void run_phase_d(void)
{
	unsigned w, i, n, gs = 0, bad = 0;

	pcpu_mode = true;
	if (reset_cache(false, false)) {
		kt_fail("codecache.smp.pcpu.setup", "cannot reset the cache");
		return;
	}
	for (w = 0; w <= N_READERS; w++)
		memset(&workers[w].ix, 0, sizeof(workers[w].ix));
	run_phase_b("codecache.smp.pcpu.block_counts");
	n = kjit_cache_count(&cache);
	for (i = 0; i < n; i++)
		gs += blocks(i).b.ctr == KJIT_CTR_GS_REG ||
		      blocks(i).b.ctr == KJIT_CTR_GS_SAVED;
	/* each reader ran the list once, on its own copy alone: its copy is
	 * the oracle's count of one run, thread by thread */
	for (w = 1; w <= N_READERS; w++)
		for (i = 0; i < n; i++)
			bad += pcpu[w][i] != oracle_count(i);
	kt_check("codecache.smp.pcpu.forms", n && gs == n,
		 "%u of %u blocks count with incq %%gs:(%%reg)", gs, n);
	kt_check("codecache.smp.pcpu.own_copy", n && !bad,
		 "%u counters of reader copies differ from the oracle's run",
		 bad);
	henv_set_gs(0);
	pcpu_mode = false;
}

/* A stray jump (a torn link, an incomplete block) lands on int3 or worse:
 * say where, as a FAIL line, instead of dying silently. */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	char msg[160];
	u64 rip = (u64)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	int n = snprintf(msg, sizeof(msg),
			 "KJIT-RESULT FAIL codecache.smp.fault signal %d at "
			 "%#llx (cache %#lx..%#lx)\n",
			 sig, (unsigned long long)rip, CODE_RX,
			 CODE_RX + CODE_SIZE);

	(void)si;
	if (write(1, msg, (size_t)n) < 0)
		_exit(2);
	_exit(1);
}

static void catch_faults(void)
{
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE};
	struct sigaction sa;
	unsigned i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	for (i = 0; i < KJIT_ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	catch_faults();
	if (setup()) {
		kt_fail("codecache.smp.setup",
			"cannot map or set up the cache");
		return kt_exit();
	}
	run_phase_a();
	run_phase_b("codecache.smp.block_counts");
	run_phase_c();
	run_phase_d();
	return kt_exit();
}
