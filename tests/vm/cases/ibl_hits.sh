# ibl_hits - indirect branches out of warm translated code do not enter the
# C dispatcher. Each read(2) of /dev/zero under a deep attach of the read
# syscall makes at least one indirect call (vfs_read -> f_op->read_iter or
# ->read). Two sessions of N warm reads each:
#  - kjit.predict=0: the lookup table's one-word probe
#    (kmod/dispatch_entry.S, kmod/ibl.h) must serve them: at least N hits
#    (a probe that never hit would still count right, but slowly);
#  - default: the followed indirect calls get an inline prediction of their
#    target (jit/flow.c, kjit_cache_predict): at least one site predicted,
#    and at least N lookup-table hits fewer than with predict=0 (at least
#    one call per read served inline).
# Both: C dispatcher entries stay well below the reads (under N/4: `kjit
# stat` itself reads files through the attached path, from any CPU, and
# its first reads there are translated in between - 0 to 520 of them in
# runs of 2000 reads, which is why N is 4000; a probe that never hit
# makes 3N here).
# kernels: spot
# timeout: 180
. /tests/lib.sh
N=4000
entry=$(first_func __x64_sys_read __se_sys_read)
[ -n "$entry" ] || fail "no read syscall entry point in kallsyms"
# "dispatcher entries: C in C (...), H served by the lookup table; P ..."
field() {
	sed -n 's/^dispatcher entries: \([0-9]*\) in C.*, \([0-9]*\) served by the lookup table; \([0-9]*\) indirect call.*/\1 \2 \3/p' "$1"
}
# session PARAMS: deep attach, warm up, N reads; sets c, h (C entries and
# lookup-table hits during the N reads) and p (sites predicted)
session() {
	load_kjit "$@"
	kjit attach --deep "$entry" > /dev/null || fail "deep attach $entry"
	workload -c 0 read 200 || fail "warm-up reads"
	kjit stat > /tmp/st0.out || fail "kjit stat"
	workload -c 0 read $N || fail "reads"
	kjit stat > /tmp/st1.out || fail "kjit stat"
	kjit detach || fail "detach"
	unload_kjit
	set -- $(field /tmp/st0.out) $(field /tmp/st1.out)
	[ $# = 6 ] || { cat /tmp/st1.out; fail "no dispatcher line in kjit stat"; }
	c=$(($4 - $1)) h=$(($5 - $2)) p=$6
}
session predict=0 predict_jumps=0
h0=$h
echo "predict=0: $N warm reads: $h lookup-table hits, $c C dispatcher entries, $p sites predicted"
[ "$h" -ge $N ] || fail "predict=0: $h lookup-table hits for $N reads (want >= $N)"
[ "$c" -lt $((N / 4)) ] || fail "predict=0: $c C dispatcher entries for $N warm reads"
[ "$p" = 0 ] || fail "predict=0: $p sites predicted"
session
echo "predict=1: $N warm reads: $h lookup-table hits, $c C dispatcher entries, $p sites predicted"
[ "$p" -ge 1 ] || fail "no indirect call site predicted"
[ $((h + N)) -le "$h0" ] || fail "$h lookup-table hits for $N reads ($h0 with predict=0): the predictions did not serve the calls"
[ "$c" -lt $((N / 4)) ] || fail "$c C dispatcher entries for $N warm reads"
