# ibl_hits - the indirect branch lookup table's one-word probe
# (kmod/dispatch_entry.S, kmod/ibl.h) serves the indirect calls of a warm
# deep read path without the C dispatcher: each read(2) of /dev/zero under
# a deep attach of the read syscall makes at least one indirect call
# (vfs_read -> f_op->read_iter or ->read), so N warm reads must give at
# least N lookup-table hits and no more C dispatcher entries than the
# warm-up needed. A probe that always missed would still count right, but
# slowly: this case is what catches it.
# timeout: 120
. /tests/lib.sh
N=2000
entry=$(first_func __x64_sys_read __se_sys_read)
[ -n "$entry" ] || fail "no read syscall entry point in kallsyms"
load_kjit
kjit attach --deep "$entry" > /dev/null || fail "deep attach $entry"
workload -c 0 read 200 || fail "warm-up reads"
kjit stat > /tmp/st0.out || fail "kjit stat"
workload -c 0 read $N || fail "reads"
kjit stat > /tmp/st1.out || fail "kjit stat"
kjit detach || fail "detach"
unload_kjit
# "dispatcher entries: C in C (...), H served by the lookup table"
field() { sed -n 's/^dispatcher entries: \([0-9]*\) in C.*, \([0-9]*\) served by the lookup table.*/\1 \2/p' "$1"; }
set -- $(field /tmp/st0.out) $(field /tmp/st1.out)
[ $# = 4 ] || { cat /tmp/st1.out; fail "no dispatcher line in kjit stat"; }
c=$(($3 - $1)) h=$(($4 - $2))
echo "$N warm reads: $h lookup-table hits, $c C dispatcher entries"
[ "$h" -ge $N ] || fail "$h lookup-table hits for $N reads (want >= $N)"
[ "$c" -le $((N / 10)) ] || fail "$c C dispatcher entries for $N warm reads"
