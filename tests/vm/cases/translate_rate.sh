# translate_rate - translation in the guest, measured and checked: a deep
# attach at six system call entry points, workloads that reach a few
# thousand blocks, then `kjit stat`. Printed: blocks translated, time and
# blocks/s (docs/results/translate-guest.md quotes the KJIT-RATE line).
# Checked, for the shortcuts that made translation fast (kmod/env.c,
# kmod/sites.c, kmod/deep.c, codecache/cache.c): instructions with an
# exception-table fixup in core kernel text are still found (copied with
# an entry of their own, or refused for a type kept native), and the
# workloads still run from the cache.
# timeout: 300
. /tests/lib.sh
load_kjit
kjit attach --deep __x64_sys_read __x64_sys_write __x64_sys_openat \
	__x64_sys_close __x64_sys_newfstat __x64_sys_getpid > /dev/null ||
	fail "attach"
workload pipe 200 || fail "pipe"
workload openclose 200 || fail "openclose"
workload fstat 200 || fail "fstat"
workload read 200 || fail "read"
kjit stat > /tmp/s.out || fail "stat"
kjit detach || fail "detach"
grep -E '^blocks translated|^deep mode|^exception fixups|refused  *fixup' /tmp/s.out
sed -n 's/^blocks translated: \([0-9]*\) (\([0-9]*\) ns translating: \([0-9]*\) blocks\/s, \([0-9.]*\) us\/block)$/KJIT-RATE blocks=\1 ns=\2 blocks_per_s=\3 us_per_block=\4/p' /tmp/s.out
grep -q 'blocks/s' /tmp/s.out || { cat /tmp/s.out; fail "stat prints no rate"; }
n=$(sed -n 's/^blocks translated: \([0-9]*\) .*/\1/p' /tmp/s.out)
[ "${n:-0}" -ge 1000 ] || fail "only ${n:-0} blocks translated"
f=$(awk '$1 == "refused" && $2 == "fixup" { n += $3 }
	$1 == "exception" && $2 == "fixups:" { n += $3 } END { print n + 0 }' /tmp/s.out)
[ "$f" -ge 1 ] || { cat /tmp/s.out; fail "no instruction with an exception-table fixup found"; }
n=$(kjit report --live --csv | awk -F, '$1 == "__x64_sys_read" { s += $4 } END { print s + 0 }')
[ "$n" -ge 400 ] || fail "read's blocks counted $n times: the reads did not run from the cache"
unload_kjit
