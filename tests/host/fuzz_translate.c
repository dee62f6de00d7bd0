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

#define ORIG 0xffffffff81000000ull
#define RUN  0xffffffffc0001000ull

static struct henv henv;
static struct kjit_translator tr;
static struct vfy vfy;
static struct ibtc ibtc;
static struct uwc uwc;
#define N_FIX 64
static u64 fix_at[N_FIX];
static struct henv_fixup fix[N_FIX];

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
	cfg.predict_indirect_calls = cfg.follow_indirect_calls &&
				     (opts & 4);
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
		if (r == KJIT_OK && uwc_block(&uwc, kjit_last_desc(&tr), &b, out,
					      run, tr.uw, tr.n_uw)) {
			fprintf(stderr, "unwind map: block at +%zu: %s\n",
				start, uwc.msg);
			finding(kjit_last_desc(&tr));
		}
		if (r == KJIT_OK && b.len > cap)
			abort();
		free(out);
	}
	return 0;
}
