/* fuzz_translate.c - libFuzzer target: random and mutated real code through
 * block discovery, liveness, instrumentation and emission.
 *
 * Input: byte 0 picks the configuration (flag sequence, forced liveness,
 * look-ahead depth, output capacity, far run/dispatcher addresses), bytes
 * 1..2 a start offset (12 bits) and more configuration (native calls, edge
 * counters, lock prefix, RIP-relative counters; the start's low bit turns
 * kjit_config.ibt on, and every block then gets the IBT proof, whose
 * complaint is a finding too, as is one of the unwind map check's; its next
 * three bits the module's deep-mode options: followed indirect calls, their
 * inline predictions, the flags-dead dispatcher entry; its fifth,
 * indirect jmps' inline predictions; and more's low bit puts
 * exception-table entries of several types every 5 bytes), the rest is code
 * placed at a kernel-like address; a few fake kernel symbols live inside it so
 * branches can hit them. Each output buffer is malloc'ed with exactly its
 * capacity, so ASan reports any write past it. Every block the translator
 * accepts must pass the independent decode-back verifier; a rejection by the
 * verifier aborts (a finding).
 *
 * Then a fourth translation, the module's deep-mode kernel (kernel_pass):
 * a copy of the code is laid out as functions every 0x80 bytes from +0x100,
 * each with an __fentry__ site at its start (after an endbr64 in every
 * other one) behind an entry guard, a static-key site at +0x25 (jmp rel32,
 * nop5, jmp rel8 or nop2 planted, as __jump_table points at them), an
 * inline static_call site at +0x47 in one of the forms the kernel writes
 * there (plant_static_call) whose trampoline is +0x60 of the next
 * function, guarded by its key. The translation starts at one
 * function's entry, its trampoline or the input's start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jit/translate.h"
#include "tests/host/host_env.h"
#include "tests/host/ibt_check.h"
#include "tests/host/unwind_check.h"
#include "kmod/kjit_fixups.h"
#include "tests/host/verify.h"

#define ORIG	  0xffffffff81000000ull
#define RUN	  0xffffffffc0001000ull
#define KEYS	  0xffffffff82000000ull /* static call keys' func pointers */
#define GUARD_CTR 0xffffffffc1200000ull

/* kernel_pass's layout (see the header) */
#define FN_FIRST 0x100
#define FN_SIZE	 0x80
#define FN_SITE	 0x25
#define FN_SCALL 0x47
#define FN_TRAMP 0x60
#define MAX_FNS	 64

static struct henv henv;
static struct kjit_translator tr;
static struct vfy vfy;
static struct ibtc ibtc;
static struct uwc uwc;
#define N_FIX 64
static u64 fix_at[N_FIX];
static struct henv_fixup fix[N_FIX];
static u8 planted[1 << 16];
static u64 fn_starts[MAX_FNS];
static struct henv_site sites[MAX_FNS];
static struct henv_scall scalls[MAX_FNS];

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

/* A finding: the block's instructions as the translator decoded them, then
 * abort. */
static void finding(const struct kjit_block_desc *d)
{
	unsigned i, j;

	for (i = 0; i < d->n; i++) {
		const struct kjit_insn *in = &d->insn[i];

		fprintf(stderr, "  insn %u +%llu len %u kind %u fixup %u:", i,
			(unsigned long long)(in->addr - ORIG), in->len,
			in->kind, in->fixup);
		for (j = 0; j < in->len; j++)
			fprintf(stderr, " %02x", in->bytes[j]);
		fprintf(stderr, "\n");
	}
	abort();
}

/* One translation at @start through every check; a finding aborts. */
static void translate_one(u64 start, u32 cap, u64 run, bool ibt)
{
	struct kjit_block b;
	enum kjit_reason r;
	u8 *out = malloc(cap);

	r = kjit_translate(&tr, start, out, cap, run, &b);
	if (r == KJIT_OK &&
	    vfy_block(&vfy, kjit_last_desc(&tr), &b, out, run)) {
		fprintf(stderr, "verifier: block at +%llu: %s\n",
			(unsigned long long)(start - ORIG), vfy.msg);
		finding(kjit_last_desc(&tr));
	}
	if (r == KJIT_OK && ibt &&
	    ibtc_block(&ibtc, kjit_last_desc(&tr), &b, out, run)) {
		fprintf(stderr, "ibt proof: block at +%llu: %s\n",
			(unsigned long long)(start - ORIG), ibtc.msg);
		finding(kjit_last_desc(&tr));
	}
	if (r == KJIT_OK && uwc_block(&uwc, kjit_last_desc(&tr), &b, out, run,
				      tr.uw, tr.n_uw)) {
		fprintf(stderr, "unwind map: block at +%llu: %s\n",
			(unsigned long long)(start - ORIG), uwc.msg);
		finding(kjit_last_desc(&tr));
	}
	if (r == KJIT_OK && b.len > cap)
		abort();
	free(out);
}

/* Plants function @k's __fentry__ site and static-key site in planted[]
 * and lists them (see the header); @mix's bits choose the forms: endbr64,
 * nop5 or call at the entry, the key site's form, a tail static call. */
static void plant_function(size_t k, size_t size, unsigned mix)
{
	static const u8 endbr[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	static const u8 nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
	size_t f = FN_FIRST + FN_SIZE * k, p = f + FN_SITE, at = f;
	u64 target = ORIG + (p * 31 + 7) % size;
	s32 rel;

	if (mix & 1) {
		memcpy(planted + at, endbr, 4);
		at += 4;
	}
	if (mix & 2) { /* the kernel's nop5, or `call __fentry__` */
		memcpy(planted + at, nop5, 5);
	} else {
		rel = (s32)(ORIG + 0x10 - (ORIG + at + 5));
		planted[at] = 0xe8;
		memcpy(planted + at + 1, &rel, 4);
	}
	fn_starts[k] = ORIG + f;
	switch (mix >> 2 & 3) {
	case 0: /* jmp rel32 */
		rel = (s32)(target - (ORIG + p + 5));
		planted[p] = 0xe9;
		memcpy(planted + p + 1, &rel, 4);
		break;
	case 1:
		memcpy(planted + p, nop5, 5);
		break;
	case 2: /* jmp rel8 */
		planted[p] = 0xeb;
		planted[p + 1] = (u8)(s8)((int)(p * 13 % 100) - 50);
		target = ORIG + p + 2 + (s8)planted[p + 1];
		break;
	default: /* nop2: the kernel's form for a target in rel8 reach */
		planted[p] = 0x66, planted[p + 1] = 0x90;
		target = ORIG + p + 2 + (s8)((int)(p * 13 % 100) - 50);
		break;
	}
	sites[k] = (struct henv_site){ORIG + p, target};
	scalls[k] = (struct henv_scall){
	    ORIG + f + FN_SCALL,
	    ORIG + FN_FIRST + FN_SIZE * ((k + 1) % MAX_FNS) + FN_TRAMP,
	    KEYS + 8 * k, (mix >> 4 & 1) != 0};
}

/* Plants static call site @k in one of the forms the kernel gives such a
 * slot (arch/x86/kernel/static_call.c): a call site holds `call func`, a
 * nop5 (NULL) or `xor %eax,%eax` with three cs prefixes (RET0); a tail
 * site `jmp func`, the jcc it was compiled as, or `ret; int3 x4` (NULL).
 * (Mid-patch, text_poke_bp's int3 over the first byte, is left out: the
 * verifier decodes original instruction lengths.) */
static void plant_static_call(size_t k, u8 form)
{
	static const u8 nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
	static const u8 ret0[5] = {0x2e, 0x2e, 0x2e, 0x31, 0xc0};
	static const u8 ret[5] = {0xc3, 0xcc, 0xcc, 0xcc, 0xcc};
	u8 *b = planted + (scalls[k].code - ORIG);
	s32 rel =
	    (s32)(ORIG + FN_FIRST + (form * 7u) % 0x80 - (scalls[k].code + 5));

	switch (form % 3 + (scalls[k].tail ? 3 : 0)) {
	case 0:
	case 3: /* call func / jmp func */
		b[0] = scalls[k].tail ? 0xe9 : 0xe8;
		memcpy(b + 1, &rel, 4);
		break;
	case 1:
		memcpy(b, nop5, 5);
		break;
	case 2:
		memcpy(b, ret0, 5);
		break;
	case 4: /* jcc rel32, its condition from the form */
		b[0] = 0x0f, b[1] = (u8)(0x80 | (form >> 3 & 0xf));
		rel -= 1;
		memcpy(b + 2, &rel, 4);
		break;
	default:
		memcpy(b, ret, 5);
		break;
	}
}

/* The fourth translation: the deep-mode kernel (see the header). @pick
 * chooses the start. */
static void kernel_pass(const u8 *data, size_t size,
			const struct kjit_config *c, u8 pick, u32 cap, u64 run)
{
	struct kjit_config cfg = *c;
	size_t n = 0, k;
	u64 start;

	if (size < FN_FIRST + FN_SIZE || size > sizeof(planted))
		return;
	memcpy(planted, data, size);
	for (k = 0; k < MAX_FNS && FN_FIRST + FN_SIZE * (k + 1) <= size; k++) {
		plant_function(k, size, (pick ^ (unsigned)k * 0x9du) & 0xff);
		plant_static_call(k, (u8)(pick + k));
	}
	n = k;
	/* the last function's trampoline: the first one's */
	scalls[n - 1].tramp = ORIG + FN_FIRST + FN_TRAMP;
	henv.region[0].ptr = planted;
	henv.funcs = fn_starts, henv.n_funcs = n;
	henv.sites = sites, henv.n_sites = n;
	henv.env.patch_site = henv_patch_site;
	if (henv_set_static_calls(&henv, scalls, n))
		return;
	henv.env.static_call = henv_static_call;
	henv.env.static_call_key = henv_static_call_key;
	henv.env.entry_guard = henv_entry_guard;
	henv.env.guard_counter = GUARD_CTR;
	cfg.native_calls = true; /* deep mode */
	kjit_translator_init(&tr, &henv.env, &cfg);
	vfy_init(&vfy, &henv.env);
	vfy.native_calls = true;
	vfy.follow_indirect_calls = cfg.follow_indirect_calls;
	vfy.predict_indirect_calls = cfg.predict_indirect_calls;
	vfy.predict_indirect_jumps = cfg.predict_indirect_jumps;
	vfy.ibt = cfg.ibt;
	k = pick % n;
	start = pick & 0x40   ? ORIG + FN_FIRST + FN_SIZE * k + FN_TRAMP
		: pick & 0x80 ? ORIG + (pick * 17u) % size
			      : fn_starts[k];
	translate_one(start, cap, run, cfg.ibt);
	henv_set_static_calls(&henv, NULL, 0);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct kjit_config cfg;
	struct kjit_block b;
	u8 sel, more, opts;
	bool ibt;
	size_t start, len;
	u32 caps[4] = {KJIT_MAX_BLOCK_BYTES, 64, 23, 200};
	u64 run;
	u8 *out;
	int k;

	if (size < 4)
		return 0;
	sel = data[0];
	start = (data[1] | (size_t)(data[2] & 0x0f) << 8);
	opts = data[1];
	ibt = (opts & 1) != 0;
	more = data[2];
	data += 3, size -= 3;
	start %= size;
	kjit_config_default(&cfg);
	cfg.live_seq = (sel & 1) ? KJIT_SEQ_PUSHF : KJIT_SEQ_LAHF;
	cfg.force_live = (sel & 2) != 0;
	cfg.live_depth = (sel >> 2) & 3;
	henv_init(&henv, KJIT_MEM_GS, NULL, NULL, ORIG + 0x7ff00000ull);
	henv_add_region(&henv, ORIG, data, size);
	henv_add_sym(&henv, ORIG + 0x10, KJIT_SYM_FENTRY, -1);
	henv_add_sym(&henv, ORIG + 0x20, KJIT_SYM_RETURN_THUNK, -1);
	for (k = 0; k < 16; k++)
		henv_add_sym(&henv, ORIG + 0x30 + 2 * k,
			     KJIT_SYM_INDIRECT_THUNK, k);
	if (sel & 0x80)
		henv.env.dispatch = 0x7f0000001000ull; /* far: via literals */
	cfg.native_calls = (more & 0x10) != 0;
	/* the module's configuration: indirect calls followed (deep mode),
	 * inline predictions, the flags-dead dispatcher entry */
	cfg.follow_indirect_calls = cfg.native_calls && (opts & 2);
	cfg.predict_indirect_calls = cfg.follow_indirect_calls && (opts & 4);
	if (opts & 8)
		henv.env.dispatch_nf = henv.env.dispatch + 0x40;
	/* indirect jmps' inline predictions: a per-CPU word pair near %gs,
	 * or (with the flags sequence's bit) one no disp32 reaches */
	cfg.predict_indirect_jumps = (opts & 0x10) != 0;
	if (cfg.predict_indirect_jumps)
		henv.env.jsite_gs = (sel & 1) ? 0x7ff0 : 0x80000000ull;
	cfg.ibt = ibt;
	if (more & 0x20)
		cfg.instr |= KJIT_INSTR_EDGE_COUNT;
	henv.ctr_lock = (more & 0x40) != 0;
	if (more & 0x80) { /* the module's old form: rip-relative counters */
		henv.ctr_mode = KJIT_MEM_RIPREL;
		henv.fake_ctr_base = RUN + 0x1000000;
	} else if (more & 0x08) { /* per-CPU, 64-bit offsets (the module's) */
		henv.gs_fake = 0xffffe8c000010000ull;
	}
	cfg.ctr_reg = (more & 0x04) ? KJIT_REG_SAVE : KJIT_REG_DEAD;
	if (more & 0x01) { /* exception-table entries every 5 bytes */
		henv.fixups = fix_at, henv.n_fixups = N_FIX, henv.fix = fix;
		for (k = 0; k < N_FIX; k++) {
			static const u32 types[] = {
			    KJIT_EX_UACCESS, KJIT_EX_ZEROPAD, KJIT_EX_BPF,
			    KJIT_EX_DEFAULT};
			fix_at[k] = ORIG + 5 * k;
			fix[k] = (struct henv_fixup){
			    fix_at[k],
			    (k & 4) ? ORIG + 0x100 : fix_at[k] + (k % 7),
			    types[k & 3]};
		}
	}
	cfg.ctr_move = !(more & 0x02);
	kjit_translator_init(&tr, &henv.env, &cfg);
	vfy_init(&vfy, &henv.env);
	vfy.native_calls = cfg.native_calls;
	vfy.follow_indirect_calls = cfg.follow_indirect_calls;
	vfy.predict_indirect_calls = cfg.predict_indirect_calls;
	vfy.predict_indirect_jumps = cfg.predict_indirect_jumps;
	vfy.ibt = cfg.ibt;
	ibtc_init(&ibtc);
	uwc_init(&uwc);
	for (k = 0; k < 3; k++, start = (start * 7 + 13) % size) {
		u32 cap = caps[(sel >> 4) & 3];
		enum kjit_reason r;

		len = cap;
		out = malloc(len);
		run = (sel & 0x40) ? RUN + 0x100000000ull * (k + 1)
				   : RUN + 8 * k + (sel & 3);
		r = kjit_translate(&tr, ORIG + start, out, cap, run, &b);
		if (r == KJIT_OK &&
		    vfy_block(&vfy, kjit_last_desc(&tr), &b, out, run)) {
			fprintf(stderr, "verifier: block at +%zu: %s\n", start,
				vfy.msg);
			finding(kjit_last_desc(&tr));
		}
		if (r == KJIT_OK && cfg.ibt &&
		    ibtc_block(&ibtc, kjit_last_desc(&tr), &b, out, run)) {
			fprintf(stderr, "ibt proof: block at +%zu: %s\n", start,
				ibtc.msg);
			finding(kjit_last_desc(&tr));
		}
		if (r == KJIT_OK && uwc_block(&uwc, kjit_last_desc(&tr), &b,
					      out, run, tr.uw, tr.n_uw)) {
			fprintf(stderr, "unwind map: block at +%zu: %s\n",
				start, uwc.msg);
			finding(kjit_last_desc(&tr));
		}
		if (r == KJIT_OK && b.len > cap)
			abort();
		free(out);
	}
	kernel_pass(data, size, &cfg, (u8)(data[0] ^ start),
		    caps[(sel >> 4) & 3],
		    (sel & 0x40) ? RUN + 0x400000000ull : RUN + 24 + (sel & 3));
	return 0;
}
