# predicate - --if 'FUNC:argN OP VALUE' (an argument predicate,
# jit/predicate.h): an attached function runs from the cache, counted
# (and timed), only on the calls whose argument holds the condition.
# The oracle is the workload's own count: under record (its scope: the
# command and what it forks), `workload read 700` makes 700 one-byte
# reads and `workload bigread 300` 300 of 64 KiB, so vfs_read's entry
# block counts exactly 300 with `arg2>=65536` (count, its third
# argument), exactly 700 with `arg2.32<2`, and 0 with a false predicate
# (`arg2==12345`) while all 1,000 run; with --deep the callees are
# counted only under the calls let in (ksys_read is not called by
# vfs_read: nothing of it). With --time (where the TSC is stable) the
# calls timed are the same 300. `attach` and `report --live` name the
# predicate. Bad expressions and an --if naming a
# function not attached are refused before anything attaches.
# kernels: once
# timeout: 200
. /tests/lib.sh
load_kjit
cmd='workload read 700 && workload bigread 300'
entry() { # FILE FUNC: the entry block's count in kjit.data FILE
	kjit report -i "$1" --csv > /tmp/p.csv || fail "report -i $1"
	awk -F, -v f="$2" '$1 == f && $8 == 1 { s += $4 } END { print s + 0 }' /tmp/p.csv
}
rec() { # FILE EXPR [OPTIONS]: record vfs_read under --if EXPR
	f=$1 e=$2
	shift 2
	kjit record "$@" --if "$e" -o "$f" -f vfs_read -- sh -c "$cmd" > /tmp/rec.out 2>&1 ||
		fail "record --if '$e': $(cat /tmp/rec.out)"
}

rec big.data 'vfs_read:arg2>=65536'
c=$(entry big.data vfs_read)
echo "vfs_read:arg2>=65536: $c calls counted (300 of 64 KiB, 700 of 1 byte)"
[ "$c" = 300 ] || fail "arg2>=65536 counted $c calls, not 300"
kjit report -i big.data | grep -q 'only when vfs_read:arg2 >= 65536' ||
	fail "the report does not name the predicate: $(kjit report -i big.data | head -n 4)"

rec small.data 'vfs_read:arg2.32<2'
c=$(entry small.data vfs_read)
echo "vfs_read:arg2.32<2: $c calls counted"
[ "$c" = 700 ] || fail "arg2.32<2 counted $c calls, not 700"

rec none.data 'vfs_read:arg2==12345'
c=$(entry none.data vfs_read)
echo "vfs_read:arg2==12345 (false): $c calls counted"
[ "$c" = 0 ] || fail "a false predicate counted $c calls"
[ "$(tail -n +2 /tmp/p.csv | awk -F, '$4 > 0' | wc -l)" = 0 ] ||
	fail "a false predicate counted blocks: $(awk -F, '$4 > 0' /tmp/p.csv | head -n 3)"

# deep: what vfs_read calls is counted only under the 300 let in; a
# block of a callee runs at most as often per call (each 64 KiB read of
# /dev/zero calls its read_iter once)
rec deep.data 'vfs_read:arg2>=65536' --deep
c=$(entry deep.data vfs_read)
[ "$c" = 300 ] || fail "--deep: vfs_read counted $c calls, not 300"
kjit report -i deep.data --csv > /tmp/d.csv
n=$(awk -F, '$1 != "vfs_read" && $4 > 0' /tmp/d.csv | wc -l)
echo "--deep: vfs_read 300 calls, $n callee blocks counted"
[ "$n" -gt 0 ] || fail "--deep followed no callee"
over=$(awk -F, '$1 != "vfs_read" && $8 == 1 && $4 > 300 {print $1 "=" $4}' /tmp/d.csv | head -n 3)
[ -z "$over" ] || echo "(callees entered more than once a call: $over)"

# --time, where the kernel allows a timed session
if [ "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" = tsc ]; then
	rec time.data 'vfs_read:arg2>=65536' --time
	t=$(kjit report -i time.data --time --csv | awk -F, '$1 == "vfs_read" {print $2}')
	echo "--time: vfs_read timed $t calls"
	[ "$t" = 300 ] || fail "--time timed $t calls of vfs_read, not 300: $(kjit report -i time.data --time | head -n 8)"
fi

# a live session's report names the predicate too (kjit_func_info.if_*)
kjit attach --if 'vfs_read:arg2>=65536' vfs_read > /tmp/a.out || fail "attach --if"
grep -q 'only when vfs_read:arg2 >= 65536' /tmp/a.out || fail "attach does not say the predicate: $(cat /tmp/a.out)"
workload bigread 10 || fail "workload bigread"
kjit report --live > /tmp/l.txt || fail "report --live"
grep -q 'only when vfs_read:arg2 >= 65536' /tmp/l.txt ||
	fail "report --live does not name the predicate: $(head -n 4 /tmp/l.txt)"
kjit detach > /dev/null || fail "detach"

# bad input: refused before anything attaches
kjit record --if 'vfs_read:arg7>1' -f vfs_read -- true > /dev/null 2> /tmp/e.out && fail "arg7 accepted"
grep -q 'only arg0..arg5' /tmp/e.out || fail "wrong refusal: $(cat /tmp/e.out)"
kjit attach --if 'ksys_read:arg2>1' vfs_read > /dev/null 2> /tmp/e.out && fail "--if of a function not attached accepted"
grep -q 'ksys_read is not one of the functions attached' /tmp/e.out || fail "wrong refusal: $(cat /tmp/e.out)"
kjit attach __x64_sys_getpid > /dev/null 2> /tmp/e.out || fail "a refused --if left a session attached: $(cat /tmp/e.out)"
kjit detach > /dev/null || fail "detach"
unload_kjit
