# jump_predictions - an indirect jmp out of warm translated code takes its
# inline prediction (jit/flow.c emit_predicted_jmp: lea/jrcxz under a saved
# %rcx, learned by the dispatcher from what the jmp's miss path leaves in
# kjit_jsite). fstat(2) tail-jumps through a pointer (vfs_getattr_nosec ->
# inode->i_op->getattr, among others). Two sessions of N warm fstats each
# under a deep attach of the fstat syscall:
#  - kjit.predict_jumps=0: those jumps go through the lookup table;
#  - default: at least one jmp target predicted beyond the first session's
#    predictions (which are indirect calls' alone), and at least N
#    lookup-table hits fewer (one jump per fstat served inline).
# Both: C dispatcher entries stay well below the calls (a site that named
# itself on every miss would send each one into C). Exact counts with the
# predictions on are the other cases' (attach_counts, attach_deep,
# notrace_callees, ...): they run with the default.
# timeout: 180
. /tests/lib.sh
N=4000
entry=$(first_func __x64_sys_newfstat __se_sys_newfstat)
[ -n "$entry" ] || fail "no fstat syscall entry point in kallsyms"
# "dispatcher entries: C in C (...), H served by the lookup table; P ..."
field() {
	sed -n 's/^dispatcher entries: \([0-9]*\) in C.*, \([0-9]*\) served by the lookup table; \([0-9]*\) indirect call.*/\1 \2 \3/p' "$1"
}
# session PARAMS: deep attach, warm up, N fstats; sets c, h (C entries and
# lookup-table hits during the N calls) and p (targets predicted)
session() {
	load_kjit "$@"
	kjit attach --deep "$entry" > /dev/null || fail "deep attach $entry"
	workload -c 0 fstat 200 || fail "warm-up fstats"
	kjit stat > /tmp/st0.out || fail "kjit stat"
	workload -c 0 fstat $N || fail "fstats"
	kjit stat > /tmp/st1.out || fail "kjit stat"
	kjit detach || fail "detach"
	unload_kjit
	set -- $(field /tmp/st0.out) $(field /tmp/st1.out)
	[ $# = 6 ] || { cat /tmp/st1.out; fail "no dispatcher line in kjit stat"; }
	c=$(($4 - $1)) h=$(($5 - $2)) p=$6
}
session predict_jumps=0
h0=$h p0=$p
echo "predict_jumps=0: $N warm fstats: $h lookup-table hits, $c C dispatcher entries, $p targets predicted"
[ "$c" -lt $((N / 4)) ] || fail "predict_jumps=0: $c C dispatcher entries for $N warm fstats"
session
echo "predict_jumps=1: $N warm fstats: $h lookup-table hits, $c C dispatcher entries, $p targets predicted"
[ "$p" -gt "$p0" ] || fail "no indirect jmp target predicted ($p targets, $p0 without jmp predictions)"
[ $((h + N)) -le "$h0" ] || fail "$h lookup-table hits for $N fstats ($h0 with predict_jumps=0): the predictions did not serve the jumps"
[ "$c" -lt $((N / 4)) ] || fail "$c C dispatcher entries for $N warm fstats"
