# split - a session split by process (attach/record --split, kmod/split.h):
# each block counts in the bank of the thread group that runs it. Two
# processes held before their exec (as tool_top's), pinned to CPU 0 and 1,
# under a session scoped to both: by pid exactly 1000 and 300 calls of
# __x64_sys_getpid, by CPU 1000 and 300, by command 1300, and the total
# 1300; a two-thread process is one row (both threads); a deep session's
# callees are split too (getpid's callee: 700 in the process); record
# --split keeps
# the parts in kjit.data (report -i --sort pid/comm); a session that is not
# split says how to get one.
# kernels: once
# timeout: 200
. /tests/lib.sh
load_kjit
# held FIFO CMD...: CMD starts after a line on FIFO; its pid in $held
held() {
	rm -f "$1"; mkfifo "$1" || fail "mkfifo"
	f=$1; shift
	sh -c "read x < $f; exec $*" &
	held=$!
}
wait_fifo() { # PID: until it waits on its fifo
	for i in $(seq 50); do grep -Eq "fifo|wait_for_partner|pipe" /proc/$1/wchan 2> /dev/null && return 0; sleep 0.1; done
	return 1
}
row() { # CSV KEY FUNC: the calls of FUNC in the row of group KEY
	awk -F, -v k="$2" -v f="$3" '$1 == k && $2 == f { print $3 }' "$1"
}
held /tmp/ga workload -c 0 getpid 1000; a=$held
held /tmp/gb workload -c 1 threadpid 150; b=$held
wait_fifo $a && wait_fifo $b || fail "the held processes did not start"
kjit attach --split -p $a,$b __x64_sys_getpid > /tmp/a.out || fail "attach --split"
cat /tmp/a.out
echo go > /tmp/ga; echo go > /tmp/gb
wait $a || fail "workload a"; wait $b || fail "workload b"
kjit report --live --sort pid --csv > /tmp/p.csv || fail "report --sort pid"
kjit report --live --sort cpu --csv > /tmp/c.csv || fail "report --sort cpu"
kjit report --live --sort comm > /tmp/m.txt || fail "report --sort comm"
kjit report --live --csv > /tmp/r.csv || fail "report"
cat /tmp/p.csv /tmp/c.csv /tmp/m.txt
pa=$(row /tmp/p.csv "$a workload" __x64_sys_getpid)
pb=$(row /tmp/p.csv "$b workload" __x64_sys_getpid)
c0=$(row /tmp/c.csv "cpu 0" __x64_sys_getpid)
c1=$(row /tmp/c.csv "cpu 1" __x64_sys_getpid)
tot=$(awk -F, '$1 == "__x64_sys_getpid" && $8 == 1 { s += $4 } END { print s + 0 }' /tmp/r.csv)
echo "by pid: $a $pa, $b $pb; by cpu: $c0, $c1; total $tot"
[ "$pa" = 1000 ] || fail "pid $a: ${pa:-no row} calls, not 1000"
[ "$pb" = 300 ] || fail "pid $b (two threads of 150): ${pb:-no row} calls, not 300"
[ "$c0" = 1000 ] || fail "cpu 0: ${c0:-no row} calls, not 1000"
[ "$c1" = 300 ] || fail "cpu 1: ${c1:-no row} calls, not 300"
[ "$tot" = 1300 ] || fail "total $tot, not 1300"
[ "$(grep -c ',__x64_sys_getpid,' /tmp/p.csv)" = 2 ] || fail "more than the two processes' rows"
grep -Eq '^workload +__x64_sys_getpid +1300 ' /tmp/m.txt || fail "by command: not one workload row of 1300"
grep -q '^# kjit report: by command (' /tmp/m.txt || fail "by command: no header"
kjit detach > /dev/null || fail "detach"

# deep: the callees split as well (getpid's callee, __task_pid_nr_ns on
# these kernels: once a call, in the same process)
held /tmp/gr workload -c 0 getpid 700; r=$held
wait_fifo $r || fail "the held process did not start"
kjit attach --split --deep -p $r __x64_sys_getpid > /dev/null || fail "attach --split --deep"
echo go > /tmp/gr
wait $r || fail "getpid 700"
kjit report --live --sort pid --csv > /tmp/d.csv || fail "report --sort pid (deep)"
kjit detach > /dev/null
cat /tmp/d.csv
kr=$(awk -F, -v k="$r workload" '$1 == k && $2 != "__x64_sys_getpid" && $3 == 700 { n++ } END { print n + 0 }' /tmp/d.csv)
[ "$kr" -ge 1 ] || fail "deep: no callee of getpid counted 700 calls in pid $r"
[ "$(row /tmp/d.csv "$r workload" __x64_sys_getpid)" = 700 ] || fail "deep: getpid not 700 in pid $r"

# record: the parts in the data file
mkdir -p /tmp/rec && cd /tmp/rec || fail "mkdir"
kjit record --split -f __x64_sys_getpid -- sh -c 'workload getpid 100 & workload getpid 50; wait' \
	2> /tmp/e.out || { cat /tmp/e.out; fail "record --split"; }
grep -q '^split ' kjit.data || fail "no split line in kjit.data"
kjit report --sort comm --csv > /tmp/rc.csv || fail "report -i --sort comm"
kjit report --sort pid --csv > /tmp/rp.csv || fail "report -i --sort pid"
cat /tmp/rc.csv /tmp/rp.csv
[ "$(row /tmp/rc.csv workload __x64_sys_getpid)" = 150 ] || fail "recorded by command: not 150"
n=$(awk -F, '$1 ~ / workload$/ && $2 == "__x64_sys_getpid" { print $3 }' /tmp/rp.csv | sort -n | tr '\n' ' ')
[ "$n" = "50 100 " ] || fail "recorded by pid: '$n', not 50 and 100"
cd /tmp

# not split: said, exit 1
kjit attach __x64_sys_getpid > /dev/null || fail "attach"
kjit report --live --sort pid > /dev/null 2> /tmp/e.out && fail "--sort pid of a session not split"
grep -q 'needs a session split by process: attach or record with --split' /tmp/e.out ||
	fail "no reason: $(cat /tmp/e.out)"
kjit detach > /dev/null
kjit attach --split-max 4 __x64_sys_getpid 2> /tmp/e.out && fail "--split-max without --split"
grep -q 'go with --split' /tmp/e.out || fail "--split-max alone: $(cat /tmp/e.out)"
unload_kjit
