/* liveness.c - conservative arithmetic-flags liveness by forward look-ahead.
 *
 * A flag is live at a point if some path from there reads it before every
 * path overwrites it. We scan forward: `need` collects flags read before
 * being killed, `killed` the flags overwritten on this straight line. At a
 * transfer we continue into its direct successors (bounded), and give up -
 * everything not killed is live - at any unknown target.
 *
 * Invariants: see liveness.h (conservative, bounded recursion).
 */
#include "jit/liveness.h"
#include "jit/translate.h"
#include "jit/arch_x86.h"

/* Is @fn a compiled C function's entry: is its first instruction, after
 * an endbr64 or its seal, the function's __fentry__ site (decoded as
 * KJIT_I_DROP)? gcc's -mfentry puts one there in every traceable C
 * function, and assembly gets none. Decodes into tr->la. */
static bool c_function_entry(struct kjit_translator *tr, u64 fn)
{
	struct kjit_insn *in = &tr->la;

	if (kjit_decode_insn(tr, fn, in, false))
		return false;
	if (in->len == KX86_ENDBR64_LEN && kx86_is_endbr(in->bytes, in->len) &&
	    kjit_decode_insn(tr, fn + in->len, in, false))
		return false;
	return in->kind == KJIT_I_DROP;
}

/* Start of the function that holds @addr (kjit_env.func_start), 0 if
 * unknown. */
static u64 func_start(const struct kjit_translator *tr, u64 addr)
{
	const struct kjit_env *env = tr->env;

	return env->func_start ? env->func_start(env->opaque, addr) : 0;
}

/* Is the ret at @addr in a compiled C function? */
static bool ret_in_c_function(struct kjit_translator *tr, u64 addr)
{
	u64 fn = func_start(tr, addr);

	return fn && fn < addr && c_function_entry(tr, fn);
}

/* How many static key sites in a row the look-ahead passes through their
 * nop path without spending a level: the LSM's hooks on 6.12 are a run of
 * sites, one per slot, each nop falling into the next, and with two levels
 * all but the last two saved the flags around their compare. 6.12's
 * vmlinux has 257 runs of 11 and one of 22 (test
 * jit.site.run_of_22_sites_flags_dead). */
#define SITE_RUN 32

static u16 live_at(struct kjit_translator *tr, u64 addr, unsigned depth,
		   unsigned sites);

/* Flags live after a terminator @in, given what is already killed;
 * @sites: how many more site nop paths are free (SITE_RUN). */
static u16 live_after_term(struct kjit_translator *tr,
			   const struct kjit_insn *in, unsigned depth,
			   unsigned sites)
{
	u64 t = in->target, at = in->addr, fall = in->addr + in->len;
	enum kjit_insn_kind kind = (enum kjit_insn_kind)in->kind;
	bool static_call = in->static_call;
	u16 live;

	/* @in may be tr->la, which c_function_entry() overwrites: only t,
	 * at, fall, kind and static_call are used from here on */
	switch (kind) {
	case KJIT_I_JCC:
	case KJIT_I_LOOP:
	case KJIT_I_SITE:
		/* a tail static call's jcc: its taken side is a C call */
		live = static_call ? 0 : live_at(tr, t, depth, sites);
		if ((live & KX86_FLAGS_ARITH) == KX86_FLAGS_ARITH)
			return live;
		if (kind == KJIT_I_SITE && sites) /* the nop path: free */
			return live | live_at(tr, fall, depth + 1, sites - 1);
		return live | live_at(tr, fall, depth, sites);
	case KJIT_I_JMP:
	case KJIT_I_CALL: /* the callee's entry is the successor */
		/* a static call is a C call: its target (a C function, the
		 * return-0 stub, or a NULL trampoline's ret back into C)
		 * leaves the flags dead, whatever the trampoline holds now */
		if (static_call || c_function_entry(tr, t))
			return 0;
		return live_at(tr, t, depth, sites);
	case KJIT_I_LIMIT:
		return live_at(tr, t, depth, sites);
	case KJIT_I_CALL_IND:
		/* a callee called through a pointer reads no flags at its
		 * entry: the dispatcher's flags-dead entry and the inline
		 * prediction (jit/flow.c) rely on this already */
		return 0;
	case KJIT_I_RET:
		return ret_in_c_function(tr, at) ? 0 : KX86_FLAGS_ARITH;
	default: /* indirect jmp: unknown */
		return KX86_FLAGS_ARITH;
	}
}

#define REG(r)	    (1u << KX86_##r)
#define ABI_SCRATCH (REG(R10) | REG(R11)) /* no argument, caller-saved */
#define ABI_DEAD_AFTER_RET                                                     \
	(REG(RCX) | REG(RSI) | REG(RDI) | REG(R8) | REG(R9) | ABI_SCRATCH)

static u16 regs_dead_at(struct kjit_translator *tr, u64 addr, unsigned depth);

/* Is @to in the same function as @from (kjit_env.func_start)? The
 * registers' look-ahead reads only code that stays what it is: not a
 * static call's trampoline, whose jmp the kernel retargets, nor another
 * function, which a livepatch may replace. */
static bool same_function(struct kjit_translator *tr, u64 from, u64 to)
{
	u64 f = func_start(tr, from);

	return f && f == func_start(tr, to);
}

/* GPRs dead at successor @to of the terminator at @from. */
static u16 regs_dead_next(struct kjit_translator *tr, u64 from, u64 to,
			  unsigned depth)
{
	return same_function(tr, from, to) ? regs_dead_at(tr, to, depth) : 0;
}

/* GPRs dead after terminator @in, @depth levels of successors ahead. */
static u16 regs_dead_after_term(struct kjit_translator *tr,
				const struct kjit_insn *in, unsigned depth)
{
	u64 t = in->target, at = in->addr, fall = in->addr + in->len;
	enum kjit_insn_kind kind = (enum kjit_insn_kind)in->kind;

	/* @in may be tr->la, which the calls below overwrite: only t, at,
	 * fall and kind are used from here on */
	switch (kind) {
	case KJIT_I_JCC:
	case KJIT_I_LOOP:
	case KJIT_I_SITE:
		return regs_dead_next(tr, at, t, depth) &
		       regs_dead_next(tr, at, fall, depth);
	case KJIT_I_CALL: /* the callee runs next */
	case KJIT_I_JMP:
		if (c_function_entry(tr, t))
			return ABI_SCRATCH;
		return kind == KJIT_I_JMP ? regs_dead_next(tr, at, t, depth)
					  : 0;
	case KJIT_I_LIMIT:
		return regs_dead_next(tr, at, t, depth);
	case KJIT_I_RET:
		return ret_in_c_function(tr, at) ? (u16)ABI_DEAD_AFTER_RET : 0;
	default: /* an indirect target may take any register */
		return 0;
	}
}

/* GPRs that every path from @addr overwrites whole before reading them,
 * within @addr's function. A __fentry__ site reads every register a
 * tracer may be shown (all but the ABI's scratch ones); an instruction
 * with an exception-table entry ends the scan (its fixup is not looked
 * at). */
static u16 regs_dead_at(struct kjit_translator *tr, u64 addr, unsigned depth)
{
	struct kjit_insn *in = &tr->la;
	u16 read = 0, dead = 0;
	unsigned i;

	if (depth == 0)
		return 0;
	for (i = 0; i < KJIT_LIVE_WINDOW; i++) {
		if (kjit_decode_insn_regs(tr, addr, in) || in->fixup)
			return dead;
		if (in->kind == KJIT_I_DROP)
			in->regs_read = (u16)~ABI_SCRATCH;
		dead |= in->regs_kill & ~read;
		read |= in->regs_read;
		if ((u16)(read | dead) == 0xffff)
			return dead;
		if (kjit_insn_is_term(in))
			return dead | (regs_dead_after_term(tr, in, depth - 1) &
				       ~read);
		addr += in->len;
	}
	return dead;
}

u16 kjit_regs_dead_after(struct kjit_translator *tr, const struct kjit_insn *in)
{
	return regs_dead_after_term(tr, in, tr->cfg.live_depth);
}

u16 kjit_live_at(struct kjit_translator *tr, u64 addr, unsigned depth)
{
	return live_at(tr, addr, depth, SITE_RUN);
}

static u16 live_at(struct kjit_translator *tr, u64 addr, unsigned depth,
		   unsigned sites)
{
	struct kjit_insn *in = &tr->la;
	u16 need = 0, killed = 0;
	unsigned i;

	if (depth == 0)
		return KX86_FLAGS_ARITH;
	for (i = 0; i < KJIT_LIVE_WINDOW; i++) {
		if (kjit_decode_insn(tr, addr, in, true))
			return need | (KX86_FLAGS_ARITH & ~killed);
		/* a fault here goes on at the fixup, which may read them
		 * (found by the verifier's own look-ahead: 6.12's
		 * rep_stos_alternative, a loop whose store faults to a ret) */
		if (in->fixup == KJIT_FIXUP_EXIT)
			need |= KX86_FLAGS_ARITH & ~killed;
		need |= in->flags_read & ~killed;
		killed |= in->flags_kill;
		if ((killed & KX86_FLAGS_ARITH) == KX86_FLAGS_ARITH)
			return need;
		if (kjit_insn_is_term(in))
			return need |
			       (live_after_term(tr, in, depth - 1, sites) &
				~killed);
		addr += in->len;
	}
	return need | (KX86_FLAGS_ARITH & ~killed);
}

u16 kjit_live_after(struct kjit_translator *tr, const struct kjit_insn *in)
{
	return live_after_term(tr, in, tr->cfg.live_depth, SITE_RUN);
}

/* Does @d start a compiled C function: is its first instruction, after
 * an endbr64 or its seal, the function's __fentry__ site? */
static bool block_is_c_entry(const struct kjit_block_desc *d)
{
	const struct kjit_insn *in = &d->insn[0];

	if (d->n > 1 && in->len == KX86_ENDBR64_LEN &&
	    kx86_is_endbr(in->bytes, in->len))
		in++;
	return in->kind == KJIT_I_DROP;
}

u16 kjit_live_in_block(struct kjit_translator *tr,
		       const struct kjit_block_desc *d)
{
	u16 need = 0, killed = 0;
	unsigned i;

	/* C reads no flags at a function's entry (as after a call to one,
	 * live_after_term), however far the look-ahead would have to go */
	if (block_is_c_entry(d))
		return 0;
	for (i = 0; i < d->n; i++) {
		const struct kjit_insn *in = &d->insn[i];

		need |= in->flags_read & ~killed;
		killed |= in->flags_kill;
		if ((killed & KX86_FLAGS_ARITH) == KX86_FLAGS_ARITH)
			return need;
	}
	/* the look-ahead uses tr->la, never @d, so d's terminator stays valid
	 */
	return need | (live_after_term(tr, &d->insn[d->n - 1],
				       tr->cfg.live_depth, SITE_RUN) &
		       ~killed);
}

void kjit_live_points(const struct kjit_block_desc *d, u16 regs_dead_after,
		      u16 *flags, u16 *regs)
{
	u16 f = KX86_FLAGS_ARITH, r = (u16)~regs_dead_after;
	unsigned i = d->n;

	while (i--) {
		const struct kjit_insn *in = &d->insn[i];

		f = in->flags_read | (f & ~in->flags_kill);
		r = in->regs_read | (r & ~in->regs_kill);
		flags[i] = f;
		regs[i] = r;
	}
}
