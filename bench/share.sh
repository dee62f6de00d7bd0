# share - what share of the kernel code executed under the LMbench-style
# suite's entry points ran counted by kjit, against an independent oracle:
# the host single-steps this guest through QEMU's gdb stub
# (tests/host/bench_share.c) in the same windows that lmbench -K counts
# with kjit. kjit deep-attaches the suite's entry points (those it accepts),
# then per benchmark: a warm-up run, counters zeroed, a window of ITERS
# operations marked by access("KJITSTEP-OPEN"/"-CLOSE"), what kjit counted
# in it. The host counts every native kernel instruction run under an
# attached root in the window, and the blocks they make (leader rule).
# Report: bench/share-report.sh. Run by `BENCH_ONLY=share make bench`.
# timeout: 7200
. /tests/lib.sh
load_kjit
ENTRIES=$(lmbench -l)
kjit attach --deep --best-effort $ENTRIES > /tmp/a.out 2> /tmp/a.err || { cat /tmp/a.err; fail "attach"; }
cat /tmp/a.err
tail -n 2 /tmp/a.out
sym() { awk -v n="$1" '$3 == n && ($2 == "T" || $2 == "t") { print $1; exit }' /proc/kallsyms; }
roots=
for f in $ENTRIES; do
	grep -q "^kjit attach: $f: " /tmp/a.err && continue # refused: not a root
	a=$(sym "$f")
	[ -n "$a" ] && roots="$roots${roots:+,}$a"
done
# the speculation thunks, each up to the next symbol (bench_share.c)
thunks=$(sort /proc/kallsyms | awk '
	on { printf "%s%s-%s", n++ ? "," : "", lo, $1; on = 0 }
	$3 ~ /^(__x86_indirect_(call_|jump_)?thunk_|__x86_return_thunk$|srso_(alias_)?return_thunk$|retbleed_return_thunk$|srso_safe_ret$|srso_alias_safe_ret$)/ { lo = $1; on = 1 }')
kjitko=$(awk '$1 == "kjit" { sub(/^0x/, "", $6); print $6 "," $2 }' /proc/modules)
echo "KJIT-STEP-INFO marker=$(sym __x64_sys_access) stext=$(sym _stext) etext=$(sym _etext) switch=$(sym __switch_to_asm) kjit=$kjitko thunks=$thunks roots=$roots"
sleep 5 # the host connects to the gdb stub and sets its breakpoint
# operations per window: the step-by-step oracle runs ~10^4 instructions a
# second, so the long benchmarks get few
iters() {
	case $1 in
	lat_proc_exec | lat_proc_fork | lat_mmap | bw_pipe) echo 1 ;;
	lat_tcp | lat_unix | lat_pipe | lat_pagefault | lat_ctx*) echo 3 ;;
	*) echo 10 ;;
	esac
}
benches=$(lmbench -L)
[ -f /tests/share-benches ] && benches=$(cat /tests/share-benches)
for b in $benches; do
	lmbench -c 0 -K -n "$(iters "$b")" "$b" || echo "SHARE-FAILED $b"
done
kjit stat | grep -E '^deep mode|^nothing ran|natively' | head -n 5
kjit detach > /dev/null || fail "detach"
unload_kjit
# the kernel's text symbols, for the report to name native instructions
awk '$2 == "T" || $2 == "t" { print "KSYM " $1 " " $3 }' /proc/kallsyms
