#!/bin/sh
# mutation.sh - deliberate breakages of jit/ (and of kmod/kjit_refusals.h)
# that the host tests must catch.
#
# Usage: mutation.sh [--results | --table] [MUTANT...]
# Copies jit/, codecache/, kmod/kjit_refusals.h and kjit_fixups.h,
# tests/host/ and the Makefile into a temporary tree, builds the host test
# programs listed in $progs there unmodified (the baseline must pass), then
# for each mutant applies one sed edit to a copy of one of those files,
# rebuilds and runs the programs: a mutant is "caught" when one fails,
# "SURVIVED" when they pass. An edit that no longer matches the source fails
# too (code drift must not turn a mutant into a silent no-op). Exits non-zero if any mutant
# survived or could not be applied. --results prints one KJIT-RESULT line per
# mutant (host.mutation.NAME) for tests/run-host.sh; MUTATION_VERBOSE=1 lists
# every failing case on stderr; MUTATION_ALL=1 runs every program for each
# mutant (not only up to the first that fails) and names the first
# behaviour case that failed; --table does that and writes a Markdown row
# per caught mutant on stderr (docs/results/mutation.md). Takes about 2 min. test_dispatch_deps reads
# the built kjit.ko files of $KJIT_BUILD (default: the tree's build/); a
# mutant of kmod/ is skipped where it found none to check.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
results=0
table=0
[ "${1:-}" = --results ] && results=1 && shift
# --table: a Markdown row per mutant (docs/results/mutation.md), every
# program run for each
[ "${1:-}" = --table ] && table=1 && export MUTATION_ALL=1 && shift
export KJIT_BUILD="${KJIT_BUILD:-$root/build}"

# name | file | sed expression (the edit must change the file) | what it breaks
mutants='liveness_dead|jit/translate.c|s/pi.live = sc_key ? 0 : kjit_live_in_block(tr, d);/pi.live = 0;/|flags liveness says everything is dead at every entry
lookahead_dead|jit/liveness.c|/if (depth == 0)/{n;s/return KX86_FLAGS_ARITH;/return 0;/}|the liveness look-ahead treats an unexplored successor as dead
link_wrong_exit|jit/exit.c|s/x = &b->exit\[idx\];/x = \&b->exit[0];/|a link patch rewrites exit 0 instead of the exit asked for
count_skipped|jit/instrument.c|s/return kjit_emit_inc_mem(e, p.mem, p.reg, p.save);/return KJIT_OK;/|the bare counter increment is not emitted
count_doubled|jit/instrument.c|s/return kjit_emit_inc_mem(e, p.mem, p.reg, p.save);/kjit_emit_inc_mem(e, p.mem, p.reg, p.save);\n\treturn kjit_emit_inc_mem(e, p.mem, p.reg, p.save);/|the bare counter increment is emitted twice
count_wrong_block|jit/instrument.c|s/!env->counter(env->opaque, block, KJIT_CTR_BLOCK,/!env->counter(env->opaque, block + 1, KJIT_CTR_BLOCK,/|each block increments the counter of the address after its start
reg_not_dead|jit/liveness.c|s/regs\[i\] = r;/regs[i] = 0;/|every register counts as dead inside a block: the per-CPU counter clobbers a live one
moved_flags_live|jit/liveness.c|s/flags\[i\] = f;/flags[i] = 0;/|flags count as dead inside a block: the counter moves to where they are live
saved_not_restored|jit/instrument.c|s/emit_push_pop(e, KX86_OP_POP_R, reg);/(void)0;/|a saved counter register is pushed but never popped
gs_wrong_reg|jit/instrument.c|s/p->reg = (unsigned)reg;/p->reg = KX86_R11;/|the per-CPU counter goes through r11 whether it is dead or not
lahf_no_of|jit/instrument.c|s/kjit_emit_u8(e, 0x7f);/kjit_emit_u8(e, 0x7e);/|the LAHF sequence does not restore OF (add $0x7e instead of $0x7f)
ibt_no_endbr|jit/translate.c|s/^\t\tkjit_emit_endbr64(e);/\t\t(void)e;/|with kjit_config.ibt a block does not begin with endbr64
ibt_far_indirect|jit/emit.c|/if (e->no_indirect)/{N;s/return KJIT_R_BRANCH_FAR;/(void)0;/}|with kjit_config.ibt a far target is still reached through jmp *[rip+lit]
ibt_guard_site|jit/translate.c|s/r = kjit_flow_emit_entry_guard(tr, e, blk->orig, site, pi.live);/r = kjit_flow_emit_entry_guard(tr, e, blk->orig, blk->orig + 0 * site, pi.live);/|the entry guard tests the function start, not its __fentry__ site behind an endbr64
uw_push_unrecorded|jit/instrument.c|/emit_push_pop(e, KX86_OP_PUSH_R, reg);/{n;s/kjit_emit_unwind_sp(e, 8);/(void)0;/}|the unwind map misses the push of a saved counter register (ORC would be 8 bytes off)
uw_call_target|jit/flow.c|s/kjit_emit_unwind(e, e->uw_insn, 8);/(void)0;/|the unwind map misses the return address a followed indirect call pushes
fixup_counter_moves|jit/instrument.c|s/if (d->insn\[i\].fixup == KJIT_FIXUP_EXIT)/if (d->insn[i].fixup == 0xee)/|the block counter may move past an instruction whose fault leaves the block
fixup_landing_wrong|jit/translate.c|s/d->insn\[blk->fix_insn\].fixup_target);/d->insn[blk->fix_insn].fixup_target + 1);/|the landing of a copied fixup exits to the wrong address
fault_site_off|jit/translate.c|s/blk->fix_orig_off = (u16)(d->insn\[i\].addr - blk->orig);/blk->fix_orig_off = (u16)(d->insn[i].addr - blk->orig + 1);/|a task stopped in a fault on a copied instruction would resume one byte past its original (kjit_cache_fault_site)
jpred_rcx_unchained|jit/exit.h|s/pred_imm_off \&\& kjit_jpred_chained(code, pred_imm_off)};/false};/|a jmp *%rcx site fills its ways as if each compared the target: ways 2 and 3 compare a clobbered %rcx
fixup_liveness|jit/decode.c|s/in->flags_read = KX86_FLAGS_ARITH;/(void)0;/|the flags the fixup of a fault may read count as dead before it
entry_key_scale|codecache/entry.c|s/kjit_emit_u8(e, 0x9d);/kjit_emit_u8(e, 0x1d);/|the entry trampoline indexes its key table with a scale of 1, not 4
dispatch_dep_dropped|kmod/kjit_refusals.h|s/"sched_clock", //|KJIT_DISPATCH_DEPS loses sched_clock, which kjit_dispatch calls
grow_map_drops_entries|codecache/blockmap.c|s/nu\[j\] = old\[i\];/(void)0;/|a bigger block map is adopted without the entries of the old one
decode_read_no_of|jit/decode.c|s/in->flags_read = (u16)(f->tested \& KX86_FLAGS_ARITH);/in->flags_read = (u16)(f->tested \& KX86_FLAGS_ARITH \& ~KX86_FLAG_OF);/|the flags an instruction reads lose OF: jo, seto and cmovo may get a bare incq in front
site_nop_path_ignored|jit/liveness.c|s/return live . live_at(tr, fall, depth + 1, sites - 1);/return live;/|the look-ahead ignores the nop path of a static-key site: the pushfq around its compare goes while the nop path reads the flags
jcc_fall_ignored|jit/liveness.c|s/return live . live_at(tr, fall, depth, sites);/return live;/|the look-ahead ignores the fall-through of a jcc: flags read only there count as dead
read_no_sf|jit/decode.c|s/in->flags_read = (u16)(f->tested \& KX86_FLAGS_ARITH);/in->flags_read = (u16)(f->tested \& KX86_FLAGS_ARITH \& ~KX86_FLAG_SF);/|the flags an instruction reads lose SF (js, sets, jl, cmovle ...)
read_no_zf|jit/decode.c|s/in->flags_read = (u16)(f->tested \& KX86_FLAGS_ARITH);/in->flags_read = (u16)(f->tested \& KX86_FLAGS_ARITH \& ~KX86_FLAG_ZF);/|the flags an instruction reads lose ZF (je, setbe, loope ...)
read_no_pf|jit/decode.c|s/in->flags_read = (u16)(f->tested \& KX86_FLAGS_ARITH);/in->flags_read = (u16)(f->tested \& KX86_FLAGS_ARITH \& ~KX86_FLAG_PF);/|the flags an instruction reads lose PF (jp, setnp, cmovp)
read_no_cf|jit/decode.c|s/in->flags_read = (u16)(f->tested \& KX86_FLAGS_ARITH);/in->flags_read = (u16)(f->tested \& KX86_FLAGS_ARITH \& ~KX86_FLAG_CF);/|the flags an instruction reads lose CF: incq keeps CF, but the cmp of a static-key site does not
kill_of_toggled|jit/decode.c|s/(u16)((f->modified/(u16)(((KX86_FLAG_OF ^ f->modified)/|OF counts as killed by instructions that leave it, and as left by those that write it
rep_zero_kills|jit/decode.c|s/(ZYDIS_ATTRIB_HAS_REP . ZYDIS_ATTRIB_HAS_REPE ./(0 +/|a rep or repe string instruction counts as killing the flags, though with rcx = 0 it leaves them
repne_zero_kills|jit/decode.c|s/ZYDIS_ATTRIB_HAS_REPNE);/0);/|a repne string instruction counts as killing the flags, though with rcx = 0 it leaves them
count_zero_kills|jit/decode.c|s/^\tcase ZYDIS_MNEMONIC_SHL:$/\tcase ZYDIS_MNEMONIC_INVALID:/|a shift left by %cl counts as killing the flags, though a count of 0 leaves them
jcc_odd_as_even|jit/flow.c|s/u8 cc = in->bytes\[in->rel_off - 1\] \& 0xf;/u8 cc = in->bytes[in->rel_off - 1] \& 0xe;/|an odd condition code becomes its even partner (jno as jo, jae as jb, jg as jle ...)
jcc_cc_low3|jit/flow.c|s/u8 cc = in->bytes\[in->rel_off - 1\] \& 0xf;/u8 cc = in->bytes[in->rel_off - 1] \& 0x7;/|condition codes 8-15 lose their high bit (js as je, jl as jb ...)
jcc_not_inverted|jit/flow.c|s/(u8)(KX86_OP2_JCC32 . (cc ^ invert))/(u8)(KX86_OP2_JCC32 + cc)/|a forward jcc is emitted with its condition where the layout needs it negated
jcc_edge_skip|jit/flow.c|s/(u8)(KX86_OP2_JCC32 . (cc ^ 1))/(u8)(KX86_OP2_JCC32 + cc)/|with edge counters, the jcc that skips the taken edge tests the condition, not its negation
jcc_exits_swapped|jit/flow.c|s/kjit_exit_branch(e, blk, op, 2, invert ? fall : taken);/kjit_exit_branch(e, blk, op, 2, invert ? taken : fall);/|the conditional exit of a two-way transfer goes to the other successor
site_cmp_wrong_op|jit/flow.c|s/u8 op = in->len == 2 ? KX86_OP_JMP8 : KX86_OP_JMP32;/u8 op = in->len == 2 ? KX86_OP_JMP32 : KX86_OP_JMP8;/|a static-key site is compared against the other length of jmp: it never counts as jumping
site_exits_swapped|jit/flow.c|s/in->target, in->addr + in->len);/in->addr + in->len, in->target);/|a static-key site with the flags dead takes the nop path when it jumps and the jump when it is the nop
site_save_not_cf|jit/flow.c|s/(kjit_live_after(tr, in) \& KX86_FLAGS_ARITH);/(kjit_live_after(tr, in) \& KX86_FLAGS_INC_CLOBBER);/|a static-key site saves the flags only where more than CF is live: the cmp kills a live CF
jpred_no_rex_b|jit/flow.c|s/(reg >= 8 ? KX86_REX_B : 0)));/0));/|a jmp *%r8..%r15 prediction compares %rax..%rdi instead
jpred_no_sib|jit/flow.c|s/^\t\tif (sib)$/\t\tif (0)/|a jmp *%rsp or *%r12 prediction lea lacks its SIB byte
jpred_learns_rax|jit/flow.c|s/emit_gs_store_reg(e, reg, disp);/emit_gs_store_reg(e, KX86_RAX, disp);/|an indirect jmp miss path leaves %rax as its target for the prediction to learn, not its register
cpred_hit_ne|jit/flow.c|s/kjit_emit_u8(e, KX86_OP2_JCC32 . KX86_CC_E);/kjit_emit_u8(e, KX86_OP2_JCC32 + (KX86_CC_E ^ 1));/|an indirect call prediction way is taken when the target differs from what it learned
link_rel_off|jit/exit.c|s/if (!kx86_rel32(run + x->branch_off + 4, dest, \&rel))/if (!kx86_rel32(run + x->branch_off + 5, dest, \&rel))/|a link patch computes its rel32 from one byte too far: the linked exit lands one byte early
unlink_wrong_value|jit/exit.c|s/\*old_val = (u32)(s32)(x->stub_off - (x->branch_off + 4));/*old_val = (u32)(s32)(x->stub_off - x->branch_off);/|unlinking an exit restores a rel32 four bytes off its stub
edge_wrong_exit|jit/instrument.c|s/KJIT_CTR_EDGE, pi->exit, \&m))/KJIT_CTR_EDGE, pi->exit ^ 1, \&m))/|an edge counter counts the other edge of its jcc
pushf_seq_no_popf|jit/instrument.c|/^static enum kjit_reason emit_inc_pushf/,/^}/s/kjit_emit_u8(e, KX86_OP_POPF);/kjit_emit_u8(e, KX86_OP_POP_R + KX86_RAX);/|the pushf counter sequence pops the saved flags into %rax
lahf_no_sahf|jit/instrument.c|s/kjit_emit_u8(e, KX86_OP_SAHF);/kjit_emit_u8(e, KX86_OP_NOP);/|the LAHF counter sequence never puts SF ZF AF PF CF back
lahf_seto_inverted|jit/instrument.c|s/kjit_emit_u8(e, KX86_OP2_SETCC + KX86_CC_O);/kjit_emit_u8(e, KX86_OP2_SETCC + KX86_CC_O + 1);/|the LAHF counter sequence saves OF negated
lock_dropped|jit/instrument.c|/if (mem->lock)/{n;s/kjit_emit_u8(e, KX86_PFX_LOCK);/(void)0;/}|the shared counters lose their lock prefix: increments from two CPUs get lost
gs_dropped|jit/instrument.c|s/kjit_emit_u8(e, KX86_PFX_GS); \/\* incq %gs:(%reg) \*\//(void)0;/|a per-CPU counter held in a register is incremented without %gs: every CPU counts one shared word, or none
map_probe_stops|codecache/blockmap.c|/^struct kjit_centry \*kjit_map_find/,/^}/s/i = (i + 1) \& c->map_mask;/return NULL;/|the block map lookup gives up at the first collision: blocks that are there count as missing
map_old_not_retired|codecache/blockmap.c|s/__atomic_store_n(\&c->old_map, old, __ATOMIC_RELEASE);/(void)old;/|a grown block map never hands its old table back to be freed
entry_irq_swapped|codecache/entry.c|s/irq = emit_jcc_out(e, 0x85);/irq = emit_jcc_out(e, 0x84);/|the entry scope prologue takes task context for an interrupt and the other way round
entry_bitmap_range|codecache/entry.c|s/\*past = emit_jcc_out(e, 0x83);/*past = emit_jcc_out(e, 0x82);/|the entry scope prologue tests the thread group bitmap only past its end
seq_flags_of_only|jit/instrument.c|s/return tr->cfg.force_live .. (live \& KX86_FLAGS_INC_CLOBBER);/return tr->cfg.force_live + (live \& KX86_FLAG_OF);/|the counter saves the flags only where OF is live: SF, ZF, AF or PF live get a bare incq
grow_counted_full|codecache/cache.c|s/return no_room(c, false);/return no_room(c, true);/|a block whose chunk has not come yet counts as a full table, not as growing
guard_site_off|jit/flow.c|s/r = emit_cmp_site(e, site, KX86_NOP5_FIRST);/r = emit_cmp_site(e, site + 1, KX86_NOP5_FIRST);/|an entry guard tests the byte after the __fentry__ site: it sends every call native, or none
guard_sc_target|jit/translate.c|s/\t\tf = in->target;/\t\tf = in->target + 1;/|a static call guard compares its key with the wrong function: the trampoline always runs natively
bank_disp_dropped|jit/instrument.c|s/kjit_emit_u32(e, mem->disp);/kjit_emit_u32(e, 0);/|a bank counter increments the first counter of its bank chunk, not its own
bank_inc_no_gs|jit/instrument.c|s/kjit_emit_u8(e, KX86_PFX_GS); \/\* incq %gs:disp32(%reg) \*\//(void)0;/|a bank counter increments its bank offset as an address, without %gs
bank_slot_not_read|jit/instrument.c|0,/kjit_emit_u8(e, KX86_OP_MOV_RM);/s//kjit_emit_u8(e, 0x8d);/|a bank counter takes the slot offset for the bank offset (lea, not mov): every task counts beside the slot
timing_no_return|jit/timing.c|s/return fid < 0 ? KJIT_OK : emit_time_call(e, tr->env->time_exit, fid);/return fid < 0 ? KJIT_OK : KJIT_OK;/|the returns of a timed function make no call: its calls never close
timing_stack_off|jit/timing.c|s/kjit_emit_u8(e, 8);/kjit_emit_u8(e, 0);/|the timing call leaves its pushed id on the stack
timing_entry_as_exit|jit/timing.c|s/emit_time_call(e, tr->env->time_enter, fid);/emit_time_call(e, tr->env->time_exit, fid);/|the entry of a timed function calls the return helper
pred_ge_above|jit/predicate.c|s/\[KJIT_PRED_GE\] = KX86_CC_AE/[KJIT_PRED_GE] = KX86_CC_A/|an argument predicate >= tests > (ja for jae): a call with the value itself runs natively
pred_no_rex_w|jit/predicate.c|s/rex .= KX86_REX_W;/(void)0;/|a 64-bit argument predicate compares only the low halves
pred_flags_unsaved|jit/translate.c|s/r = kjit_pred_emit(e, \&pred, blk->orig, pi.live != 0);/r = kjit_pred_emit(e, \&pred, blk->orig, false);/|an argument predicate clobbers the flags where they are live at the entry block'

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kjit-mutation.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/tests" "$tmp/tree/kmod" "$tmp/pristine/kmod"
cp "$root/Makefile" "$tmp/tree/"
cp -r "$root/jit" "$tmp/tree/jit"
cp -r "$root/jit" "$tmp/pristine/jit"
cp "$root/kmod/kjit_refusals.h" "$root/kmod/kjit_fixups.h" "$tmp/tree/kmod/"
cp "$root/kmod/kjit_refusals.h" "$root/kmod/kjit_fixups.h" "$tmp/pristine/kmod/"
cp -r "$root/tests/host" "$tmp/tree/tests/host"
cp -r "$root/codecache" "$tmp/tree/codecache" # the entry trampoline
cp -r "$root/codecache" "$tmp/pristine/codecache"
bld=$tmp/build
progs="$bld/host/test_unit $bld/host/test_entry $bld/host/test_codecache"
progs="$progs $bld/host/test_ibt $bld/host/test_dispatch_deps $bld/host/test_diff"
progs="$progs $bld/host/test_counters $bld/host/test_smp $bld/host/test_timing"
progs="$progs $bld/host/test_pred"
# the differential on the stock vmlinux's blocks (test_shapes), where the
# tree has extracted one: the copy reads it in place
if [ -f "$root/build/host/vmlinux" ]; then
	mkdir -p "$bld/host" "$tmp/tree/build/host"
	ln -s "$root/build/host/vmlinux" "$bld/host/vmlinux"
	ln -s "$root/build/host/vmlinux" "$tmp/tree/build/host/vmlinux"
	progs="$progs $bld/host/test_shapes"
fi

# table_row name file what why: | mutant | file | breaks | failing cases |
# first behaviour case |, on stderr (the report lines stay on stdout)
table_row() {
	n=$(echo "$4" | sed -n 's/^failing cases: \([0-9]*\),.*/\1/p')
	b=$(echo "$4" | sed -n 's/.*; behaviour: //p' | sed 's/|/\\|/g')
	printf '| `%s` | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$n" "$b" >&2
}

report() { # verdict name detail
	echo "mutant $2: $3"
	[ $results = 1 ] && echo "KJIT-RESULT $1 host.mutation.$2 $3"
	return 0
}

# build and run the programs, one at a time, the quick ones first; stop
# at the first that fails (MUTATION_VERBOSE=1 or a baseline run: all of
# them). Returns 0 if everything passed, 1 if some case failed (prints how
# many and the first), 2 if a build failed.
run_suite() {
	: > "$tmp/fails"
	: > "$tmp/all"
	for p in $progs; do
		if ! env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$tmp/tree" \
			-j2 BUILD="$bld" "$p" > "$tmp/build.log" 2>&1; then
			echo "build failed: $(grep -m1 -i error "$tmp/build.log")"
			return 2
		fi
		(cd "$tmp/tree" && timeout 30 "$p") > "$tmp/run.log" 2>&1
		rc=$?
		cat "$tmp/run.log" >> "$tmp/all"
		grep '^KJIT-RESULT FAIL' "$tmp/run.log" >> "$tmp/fails"
		# a program killed by a signal (SIGILL, SIGSEGV running emitted
		# code) computed nothing: a behaviour failure of its own
		if [ $rc -gt 128 ] && [ $rc -lt 160 ]; then
			echo "KJIT-RESULT FAIL $(basename "$p").died of SIG$(kill -l $((rc - 128)))" >> "$tmp/fails"
		elif ! grep -q '^KJIT-RESULT FAIL' "$tmp/run.log" && [ $rc != 0 ]; then
			echo "KJIT-RESULT FAIL $(basename "$p") exit $rc" >> "$tmp/fails"
		fi
		[ -s "$tmp/fails" ] && [ -z "${MUTATION_VERBOSE:-}" ] &&
			[ -z "${MUTATION_ALL:-}" ] && [ "${1:-}" != all ] && break
	done
	[ -s "$tmp/fails" ] || return 0
	[ "${MUTATION_VERBOSE:-}" ] && sed 's/^/    /' "$tmp/fails" >&2
	printf '%s %s' "failing cases: $(wc -l < "$tmp/fails"), first:" \
		"$(sed -n '1s/^KJIT-RESULT FAIL //p' "$tmp/fails" | cut -c1-140)"
	[ "${MUTATION_ALL:-}" ] && printf '; behaviour: %s' "$(behaviour)"
	return 1
}

# The first failing case that runs code and compares what it computed with
# native code or an oracle (translated corpus against native and ptrace,
# emitted sequences executed, threads' counts, the code cache's lookups),
# or a test program that died running it, not one that compares bytes or
# shapes (golden bytes, the verifier).
behaviour() {
	b=$(grep -E '^KJIT-RESULT FAIL (jit\.diff\.|[a-z0-9_.]*\.run[._]|[a-z_.]*_exec |codecache\.smp\.|cache\.(grow|map)\.|entry\.(run|own|scope|exiting|frames)\.|[a-z_]*\.died )' \
		"$tmp/fails" | grep -v -e 'verifier:' -e 'unwind map' \
		-e '^KJIT-RESULT FAIL [^ ]*\.verifier ' |
		head -n 1 | cut -d' ' -f3-)
	echo "${b:-none (caught by shape checks only)}" | cut -c1-140
}

if ! why=$(run_suite all); then
	report FAIL baseline "the unmodified tree fails: $why"
	exit 2
fi
echo "baseline: passes"
# kjit.ko files to check (else test_dispatch_deps only skips)
kmod_checked=0
grep -q '^KJIT-RESULT PASS kmod\.dispatch_deps\..*\.listed' "$tmp/all" &&
	kmod_checked=1
status=0
selected=" $* "
printf '%s\n' "$mutants" | {
	while IFS='|' read -r name file expr what; do
		[ "$selected" != "  " ] &&
			case "$selected" in *" $name "*) ;; *) continue ;; esac
		case $file in kmod/*)
			if [ $kmod_checked = 0 ]; then
				report SKIP "$name" "no kjit.ko to check (make modules)"
				continue
			fi
			;;
		esac
		if ! sed "$expr" "$tmp/pristine/$file" > "$tmp/tree/$file" ||
			cmp -s "$tmp/pristine/$file" "$tmp/tree/$file"; then
			report FAIL "$name" "not applied: the edit fails or no longer matches $file"
			status=1
		else
			why=$(run_suite)
			case $? in
			0)
				report FAIL "$name" "SURVIVED ($what)"
				status=1
				;;
			1)
				report PASS "$name" "caught ($what): $why"
				[ $table = 1 ] && table_row "$name" "$file" "$what" "$why"
				;;
			*)
				report FAIL "$name" "mutant does not build: $why"
				status=1
				;;
			esac
		fi
		cp "$tmp/pristine/$file" "$tmp/tree/$file" # new mtime: rebuilt
	done
	exit $status
}
